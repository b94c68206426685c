// SPDX-License-Identifier: MIT
import CYuv
import Testing
@testable import CamCore
#if canImport(Glibc)
import Glibc
#endif

// SPEC S8: the converter's routes (ConversionGraph) — which libyuv calls a
// conversion takes, and that a cheaper route gives the same bytes.

struct ConversionGraphTests {
    /// Every layout to every output layout: the route, one line each
    /// (`CAMCORE_ROUTE_DUMP=1 swift test --filter dump_routes`), to diff
    /// the routes before and after a change of the cost model.
    @Test(.enabled(if: getenv("CAMCORE_ROUTE_DUMP") != nil))
    func dump_routes() {
        let targets: [PixelLayout] = [.i420, .nv12, .yuy2, .raw, .rgb24, .abgr]
        for from in PixelLayout.allCases {
            for to in targets {
                let plan = ConversionGraph.plan(from: from, to: to)
                print("route \(from) -> \(to): \(plan.map { $0.map(\.name).joined(separator: " + ") } ?? "none")")
            }
        }
    }
}

extension ConversionGraphTests {
    /// Packed 4:2:2 to 24-bit RGB goes through libyuv's 32-bit matrix call
    /// and a repack (YUY2ToARGB + ARGBToRAW: 0.86 M instructions at 640x480)
    /// instead of YUY2ToI422 + I422ToRAW (1.29 M), the route before the cost
    /// model charged 24-bit matrix rows their real price.
    @Test func test_S8_yuyv_to_rgb24_is_yuy2toargb_then_argbtoraw() throws {
        #expect(try PixelConverter(source: .yuyv, width: 640, height: 480, target: .rgb24).route
                == ["YUY2ToARGB", "ARGBToRAW"])
        #expect(try PixelConverter(source: .yuyv, width: 640, height: 480, target: .bgr24).route
                == ["YUY2ToARGB", "ARGBToRGB24"])
        #expect(try PixelConverter(source: .uyvy, width: 640, height: 480, target: .rgb24).route
                == ["UYVYToARGB", "ARGBToRAW"])
        #expect(try PixelConverter(source: .uyvy, width: 640, height: 480, target: .bgr24).route
                == ["UYVYToARGB", "ARGBToRGB24"])
        // Planar and semi-planar sources keep their one call to 24-bit RGB.
        #expect(try PixelConverter(source: .i420, width: 640, height: 480, target: .rgb24).route == ["I420ToRAW"])
        #expect(try PixelConverter(source: .nv12, width: 640, height: 480, target: .rgb24).route == ["NV12ToRAW"])
        #expect(try PixelConverter(source: .yuv422p, width: 640, height: 480, target: .rgb24).route == ["I422ToRAW"])
    }

    /// The four routes the cost change altered (YUYV, UYVY → RGB3, BGR3)
    /// give byte for byte what the old routes gave (YUY2ToI422 / UYVYToI422
    /// then I422ToRAW / I422ToRGB24), on random bytes with a padded stride
    /// and on the synthetic camera's bars, at even and odd sizes.
    @Test(arguments: [(640, 480), (1280, 720), (63, 47), (2, 2)])
    func test_S8_changed_rgb24_routes_give_the_old_routes_bytes(_ size: (Int, Int)) throws {
        let (w, h) = size
        let cw = (w + 1) / 2, stride = 4 * cw + 32
        let W = Int32(w), H = Int32(h), S = Int32(stride), CW = Int32(cw)
        for pattern in ["random", "bars"] {
            let src = TestBytes(stride * h, seed: 11)
            if pattern == "bars" {
                // Y ramps, U and V in eight bars: smooth and sharp edges.
                for y in 0..<h {
                    for x in 0..<cw {
                        let o = y * stride + 4 * x, bar = x * 8 / max(cw, 1)
                        src.p[o] = UInt8(16 + (2 * x * 219) / max(2 * cw, 1))
                        src.p[o + 1] = UInt8(bar * 32 + 16)
                        src.p[o + 2] = UInt8(16 + ((2 * x + 1) * 219) / max(2 * cw, 1))
                        src.p[o + 3] = UInt8(240 - bar * 28)
                    }
                }
            }
            defer { withExtendedLifetime(src) {} }
            for packed in [FourCC.yuyv, FourCC.uyvy] {
                let f = testFrame(packed, w, h, [plane(src, stride: stride)])
                let i422 = TestBytes(w * h + 2 * cw * h)
                defer { withExtendedLifetime(i422) {} }
                let (y, u, v) = (i422.p, i422.p + w * h, i422.p + w * h + cw * h)
                if packed == .yuyv {
                    _ = YUY2ToI422(src.p, S, y, W, u, CW, v, CW, W, H)
                } else {
                    _ = UYVYToI422(src.p, S, y, W, u, CW, v, CW, W, H)
                }
                expectSameAsLibyuv(try PixelConverter(source: packed, width: w, height: h, target: .rgb24), f) { d in
                    _ = I422ToRAW(y, W, u, CW, v, CW, d, 3 * W, W, H)
                }
                expectSameAsLibyuv(try PixelConverter(source: packed, width: w, height: h, target: .bgr24), f) { d in
                    _ = I422ToRGB24(y, W, u, CW, v, CW, d, 3 * W, W, H)
                }
            }
        }
    }
}
