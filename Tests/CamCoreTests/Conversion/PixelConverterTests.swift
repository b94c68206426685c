// SPDX-License-Identifier: MIT
import CTurboJPEG
import CYuv
import Testing
@testable import CamCore
#if canImport(Glibc)
import Glibc
#endif

/// libyuv declares a FourCC enum too; this file means camcore's.
typealias FourCC = CamCore.FourCC

// SPEC S8: output pixel formats by conversion, checked against libyuv's and
// TurboJPEG's own results for the same input.

/// Bytes owned by a test, filled with a repeatable pseudo-random pattern.
final class TestBytes {
    let count: Int
    let p: UnsafeMutablePointer<UInt8>
    init(_ count: Int, seed: UInt64 = 1, fill: UInt8? = nil) {
        self.count = count
        p = .allocate(capacity: max(count, 1))
        if let fill {
            p.initialize(repeating: fill, count: max(count, 1))
        } else {
            var x = seed &* 0x9E37_79B9_7F4A_7C15 | 1
            for i in 0..<max(count, 1) {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17
                p[i] = UInt8(truncatingIfNeeded: x >> 24)
            }
        }
    }
    convenience init(_ bytes: [UInt8]) {
        self.init(bytes.count, fill: 0)
        for (i, b) in bytes.enumerated() { p[i] = b }
    }
    var raw: UnsafeMutableRawPointer { UnsafeMutableRawPointer(p) }
    var array: [UInt8] { Array(UnsafeBufferPointer(start: p, count: count)) }
    deinit { p.deallocate() }
}

/// A frame over test bytes (internal init, no buffer pool).
func testFrame(_ fourcc: FourCC, _ w: Int, _ h: Int, _ planes: [Plane]) -> Frame {
    let p = planes + [Plane.empty, Plane.empty, Plane.empty]
    return Frame(fourcc: fourcc, width: w, height: h, planeCount: planes.count, planes: (p[0], p[1], p[2]),
                 timestampNs: 0, sequence: 0, flags: [], pool: nil, slot: 0)
}

func plane(_ b: TestBytes, stride: Int, offset: Int = 0, length: Int? = nil) -> Plane {
    Plane(base: b.raw + offset, stride: stride, length: length ?? (b.count - offset))
}

/// The first index where `a` and `b` differ (nil: equal, same length).
func firstMismatch(_ a: TestBytes, _ b: TestBytes) -> Int? {
    if a.count != b.count { return min(a.count, b.count) }
    return (0..<a.count).first { a.p[$0] != b.p[$0] }
}

/// Converts with `c` and compares every output byte with `expected`'s.
func expectSameAsLibyuv(_ c: PixelConverter, _ frame: Frame,
                        sourceLocation: SourceLocation = #_sourceLocation,
                        _ expected: (UnsafeMutablePointer<UInt8>) -> Void) {
    let got = TestBytes(c.outputBytes, fill: 0xEE), want = TestBytes(c.outputBytes, fill: 0xEE)
    #expect(c.convert(frame, into: got.raw), "convert \(c.source)->\(c.target)", sourceLocation: sourceLocation)
    expected(want.p)
    let mismatch = firstMismatch(got, want)
    #expect(mismatch == nil, "\(c.source)->\(c.target) via \(c.route): first differing byte \(mismatch ?? -1) of \(c.outputBytes)",
            sourceLocation: sourceLocation)
}

struct PixelConverterTests {
    // MARK: Routes, shapes, errors

    @Test func test_S8_common_paths_are_one_libyuv_call() throws {
        #expect(try PixelConverter(source: .yuyv, width: 640, height: 480, target: .i420).route == ["YUY2ToI420"])
        #expect(try PixelConverter(source: .yuyv, width: 640, height: 480, target: .nv12).route == ["YUY2ToNV12"])
        #expect(try PixelConverter(source: .nv12, width: 640, height: 480, target: .i420).route == ["NV12ToI420"])
        #expect(try PixelConverter(source: .i420, width: 640, height: 480, target: .nv12).route == ["I420ToNV12"])
        #expect(try PixelConverter(source: .i420, width: 640, height: 480, target: .rgb24).route == ["I420ToRAW"])
        #expect(try PixelConverter(source: .nv12, width: 640, height: 480, target: FourCC("AB24")).route == ["NV12ToABGR"])
        // YUYV to RGB keeps 4:2:2 chroma: through libyuv's 32-bit call, not I420
        // (ConversionGraphTests: the same bytes as YUY2ToI422 + I422ToRAW).
        #expect(try PixelConverter(source: .yuyv, width: 640, height: 480, target: .rgb24).route == ["YUY2ToARGB", "ARGBToRAW"])
        // A padding byte never becomes alpha: XR24 -> RGBA goes through RGB24.
        #expect(try PixelConverter(source: FourCC("XR24"), width: 64, height: 48, target: FourCC("AB24")).route
                == ["ARGBToRAW", "RGB24ToARGB (R/B swapped)"])
        #expect(try PixelConverter(source: .mjpeg, width: 640, height: 480, target: .i420).route == ["tjDecompressToYUVPlanes"])
        #expect(try PixelConverter(source: .jpeg, width: 640, height: 480, target: .rgb24).route == ["tjDecompress2"])
    }

    @Test func test_S8_impossible_conversions_throw_not_supported() {
        for (s, t) in [("BA81", "YU12"), ("H264", "YU12"), ("YUYV", "GREY"), ("YUYV", "MJPG"), ("MJPG", "AR24")] {
            #expect(throws: CamError.self) { try PixelConverter(source: FourCC(s), width: 64, height: 48, target: FourCC(t)) }
            do {
                _ = try PixelConverter(source: FourCC(s), width: 64, height: 48, target: FourCC(t))
            } catch {
                if case .notSupported = error {} else { Issue.record("\(s)->\(t): \(error)") }
            }
        }
        do {
            _ = try PixelConverter(source: .yuyv, width: 0, height: 48, target: .i420)
            Issue.record("zero width accepted")
        } catch {
            if case .invalidArgument = error {} else { Issue.record("zero width: \(error)") }
        }
    }

    @Test func test_S8_output_strides_and_sizes() throws {
        let cases: [(String, [Int], Int)] = [
            ("YU12", [640, 320, 320], 640 * 480 * 3 / 2), ("NV12", [640, 640], 640 * 480 * 3 / 2),
            ("YUYV", [1280], 1280 * 480), ("RGB3", [1920], 1920 * 480), ("BGR3", [1920], 1920 * 480),
            ("AB24", [2560], 2560 * 480),
        ]
        for (t, strides, bytes) in cases {
            let c = try PixelConverter(source: .mjpeg, width: 640, height: 480, target: FourCC(t))
            #expect(c.outputStrides == strides, "\(t)")
            #expect(c.outputBytes == bytes, "\(t)")
            let buffer = TestBytes(bytes)
            let out = c.outputPlanes(buffer.raw)
            #expect(out.count == strides.count)
            #expect(out.planes.0.base == buffer.raw && out.planes.0.stride == strides[0])
            if t == "YU12" {
                #expect(out.planes.1.base == buffer.raw + 640 * 480 && out.planes.1.length == 320 * 240)
                #expect(out.planes.2.base == buffer.raw + 640 * 480 + 320 * 240 && out.planes.2.stride == 320)
            }
            if t == "NV12" { #expect(out.planes.1.base == buffer.raw + 640 * 480 && out.planes.1.length == 640 * 240) }
        }
        // Odd sizes round the chroma up.
        let odd: [(String, [Int], Int)] = [
            ("YU12", [641, 321, 321], 641 * 481 + 2 * 321 * 241), ("NV12", [641, 642], 641 * 481 + 642 * 241),
            ("YUYV", [1284], 1284 * 481), ("RGB3", [1923], 1923 * 481), ("AB24", [2564], 2564 * 481),
        ]
        for (t, strides, bytes) in odd {
            let c = try PixelConverter(source: .i420, width: 641, height: 481, target: FourCC(t))
            #expect(c.outputStrides == strides, "\(t)")
            #expect(c.outputBytes == bytes, "\(t)")
        }
    }

    // MARK: Raw paths against libyuv

    @Test func test_S8_yuyv_paths_match_libyuv_with_padded_stride() throws {
        let w = 640, h = 480, stride = 2 * w + 64
        let src = TestBytes(stride * h, seed: 7)
        defer { withExtendedLifetime(src) {} }
        let f = testFrame(.yuyv, w, h, [plane(src, stride: stride)])
        let W = Int32(w), H = Int32(h), S = Int32(stride)
        expectSameAsLibyuv(try PixelConverter(source: .yuyv, width: w, height: h, target: .i420), f) { d in
            _ = YUY2ToI420(src.p, S, d, W, d + w * h, W / 2, d + w * h * 5 / 4, W / 2, W, H)
        }
        expectSameAsLibyuv(try PixelConverter(source: .yuyv, width: w, height: h, target: .nv12), f) { d in
            _ = YUY2ToNV12(src.p, S, d, W, d + w * h, W, W, H)
        }
        let i422 = TestBytes(w * h * 2)
        _ = YUY2ToI422(src.p, S, i422.p, W, i422.p + w * h, W / 2, i422.p + w * h * 3 / 2, W / 2, W, H)
        let (y, u, v) = (i422.p, i422.p + w * h, i422.p + w * h * 3 / 2)
        expectSameAsLibyuv(try PixelConverter(source: .yuyv, width: w, height: h, target: .rgb24), f) { d in
            _ = I422ToRAW(y, W, u, W / 2, v, W / 2, d, 3 * W, W, H)
        }
        expectSameAsLibyuv(try PixelConverter(source: .yuyv, width: w, height: h, target: .bgr24), f) { d in
            _ = I422ToRGB24(y, W, u, W / 2, v, W / 2, d, 3 * W, W, H)
        }
        expectSameAsLibyuv(try PixelConverter(source: .yuyv, width: w, height: h, target: FourCC("AB24")), f) { d in
            _ = I422ToABGR(y, W, u, W / 2, v, W / 2, d, 4 * W, W, H)
        }
        // Source == target: a copy that drops the row padding.
        expectSameAsLibyuv(try PixelConverter(source: .yuyv, width: w, height: h, target: .yuyv), f) { d in
            CopyPlane(src.p, S, d, 2 * W, 2 * W, H)
        }
        // YVYU and VYUY are YUYV and UYVY with U and V exchanged.
        let fv = testFrame(.yvyu, w, h, [plane(src, stride: stride)])
        expectSameAsLibyuv(try PixelConverter(source: .yvyu, width: w, height: h, target: .i420), fv) { d in
            _ = YUY2ToI420(src.p, S, d, W, d + w * h * 5 / 4, W / 2, d + w * h, W / 2, W, H)
        }
        let fu = testFrame(.uyvy, w, h, [plane(src, stride: stride)])
        expectSameAsLibyuv(try PixelConverter(source: .uyvy, width: w, height: h, target: .i420), fu) { d in
            _ = UYVYToI420(src.p, S, d, W, d + w * h, W / 2, d + w * h * 5 / 4, W / 2, W, H)
        }
    }

    @Test func test_S8_nv12_paths_match_libyuv_two_planes_or_one_buffer() throws {
        let w = 640, h = 480, stride = 704
        let buf = TestBytes(stride * h * 3 / 2, seed: 11)
        defer { withExtendedLifetime(buf) {} }
        let Y = buf.p, UV = buf.p + stride * h
        let W = Int32(w), H = Int32(h), S = Int32(stride)
        let split = testFrame(.nv12, w, h, [plane(buf, stride: stride, length: stride * h),
                                            plane(buf, stride: stride, offset: stride * h)])
        let whole = testFrame(.nv12, w, h, [plane(buf, stride: stride)])
        for f in [split, whole] {
            expectSameAsLibyuv(try PixelConverter(source: .nv12, width: w, height: h, target: .i420), f) { d in
                _ = NV12ToI420(Y, S, UV, S, d, W, d + w * h, W / 2, d + w * h * 5 / 4, W / 2, W, H)
            }
            expectSameAsLibyuv(try PixelConverter(source: .nv12, width: w, height: h, target: .rgb24), f) { d in
                _ = NV12ToRAW(Y, S, UV, S, d, 3 * W, W, H)
            }
            expectSameAsLibyuv(try PixelConverter(source: .nv12, width: w, height: h, target: FourCC("AB24")), f) { d in
                _ = NV12ToABGR(Y, S, UV, S, d, 4 * W, W, H)
            }
            expectSameAsLibyuv(try PixelConverter(source: .nv12, width: w, height: h, target: .yuyv), f) { d in
                let t = TestBytes(w * h * 3 / 2)
                _ = NV12ToI420(Y, S, UV, S, t.p, W, t.p + w * h, W / 2, t.p + w * h * 5 / 4, W / 2, W, H)
                _ = I420ToYUY2(t.p, W, t.p + w * h, W / 2, t.p + w * h * 5 / 4, W / 2, d, 2 * W, W, H)
            }
        }
        let nv21 = testFrame(.nv21, w, h, [plane(buf, stride: stride)])
        expectSameAsLibyuv(try PixelConverter(source: .nv21, width: w, height: h, target: .nv12), nv21) { d in
            _ = NV21ToNV12(Y, S, UV, S, d, W, d + w * h, W, W, H)
        }
    }

    @Test func test_S8_planar_paths_match_libyuv_with_padded_planes() throws {
        let w = 640, h = 480, sy = 672, sc = 352
        let y = TestBytes(sy * h, seed: 3), u = TestBytes(sc * h / 2, seed: 4), v = TestBytes(sc * h / 2, seed: 5)
        defer { withExtendedLifetime((y, u, v)) {} }
        let f = testFrame(.i420, w, h, [plane(y, stride: sy), plane(u, stride: sc), plane(v, stride: sc)])
        let W = Int32(w), H = Int32(h), SY = Int32(sy), SC = Int32(sc)
        expectSameAsLibyuv(try PixelConverter(source: .i420, width: w, height: h, target: .nv12), f) { d in
            _ = I420ToNV12(y.p, SY, u.p, SC, v.p, SC, d, W, d + w * h, W, W, H)
        }
        expectSameAsLibyuv(try PixelConverter(source: .i420, width: w, height: h, target: .yuyv), f) { d in
            _ = I420ToYUY2(y.p, SY, u.p, SC, v.p, SC, d, 2 * W, W, H)
        }
        expectSameAsLibyuv(try PixelConverter(source: .i420, width: w, height: h, target: .bgr24), f) { d in
            _ = I420ToRGB24(y.p, SY, u.p, SC, v.p, SC, d, 3 * W, W, H)
        }
        expectSameAsLibyuv(try PixelConverter(source: .i420, width: w, height: h, target: FourCC("AB24")), f) { d in
            _ = I420ToABGR(y.p, SY, u.p, SC, v.p, SC, d, 4 * W, W, H)
        }
        expectSameAsLibyuv(try PixelConverter(source: .i420, width: w, height: h, target: .i420), f) { d in
            _ = I420Copy(y.p, SY, u.p, SC, v.p, SC, d, W, d + w * h, W / 2, d + w * h * 5 / 4, W / 2, W, H)
        }
        // YV12: planes 1 and 2 are V and U.
        let yv = testFrame(.yv12, w, h, [plane(y, stride: sy), plane(v, stride: sc), plane(u, stride: sc)])
        expectSameAsLibyuv(try PixelConverter(source: .yv12, width: w, height: h, target: .rgb24), yv) { d in
            _ = I420ToRAW(y.p, SY, u.p, SC, v.p, SC, d, 3 * W, W, H)
        }
        // 422P in one buffer (stride 640, chroma stride 320).
        let p422 = TestBytes(w * h * 2, seed: 9)
        defer { withExtendedLifetime(p422) {} }
        let f422 = testFrame(.yuv422p, w, h, [plane(p422, stride: w)])
        expectSameAsLibyuv(try PixelConverter(source: .yuv422p, width: w, height: h, target: .i420), f422) { d in
            _ = I422ToI420(p422.p, W, p422.p + w * h, W / 2, p422.p + w * h * 3 / 2, W / 2,
                           d, W, d + w * h, W / 2, d + w * h * 5 / 4, W / 2, W, H)
        }
        // GREY: luma copied, neutral chroma; as RGB, grey level v -> (v, v, v).
        let grey = testFrame(.grey, w, h, [plane(y, stride: sy)])
        expectSameAsLibyuv(try PixelConverter(source: .grey, width: w, height: h, target: .i420), grey) { d in
            _ = I400ToI420(y.p, SY, d, W, d + w * h, W / 2, d + w * h * 5 / 4, W / 2, W, H)
        }
        expectSameAsLibyuv(try PixelConverter(source: .grey, width: w, height: h, target: FourCC("AB24")), grey) { d in
            _ = J400ToARGB(y.p, SY, d, 4 * W, W, H)
        }
        // RGB3 -> I420 and -> RGBA (R, G, B, 255).
        let rgb = TestBytes(3 * w * h, seed: 12)
        defer { withExtendedLifetime(rgb) {} }
        let frgb = testFrame(.rgb24, w, h, [plane(rgb, stride: 3 * w)])
        expectSameAsLibyuv(try PixelConverter(source: .rgb24, width: w, height: h, target: .i420), frgb) { d in
            _ = RAWToI420(rgb.p, 3 * W, d, W, d + w * h, W / 2, d + w * h * 5 / 4, W / 2, W, H)
        }
        let c = try PixelConverter(source: .rgb24, width: w, height: h, target: FourCC("AB24"))
        let out = TestBytes(c.outputBytes)
        #expect(c.convert(frgb, into: out.raw))
        for i in [0, 1234, w * h - 1] {
            #expect(Array(out.array[4 * i..<4 * i + 4]) == [rgb.p[3 * i], rgb.p[3 * i + 1], rgb.p[3 * i + 2], 255])
        }
    }

    @Test func test_S8_odd_sizes_match_libyuv() throws {
        let w = 641, h = 481, cw = 321, ch = 241, sy = 648, sc = 328
        let y = TestBytes(sy * h, seed: 21), u = TestBytes(sc * ch, seed: 22), v = TestBytes(sc * ch, seed: 23)
        defer { withExtendedLifetime((y, u, v)) {} }
        let f = testFrame(.i420, w, h, [plane(y, stride: sy), plane(u, stride: sc), plane(v, stride: sc)])
        let W = Int32(w), H = Int32(h), SY = Int32(sy), SC = Int32(sc), CW = Int32(cw)
        expectSameAsLibyuv(try PixelConverter(source: .i420, width: w, height: h, target: .nv12), f) { d in
            _ = I420ToNV12(y.p, SY, u.p, SC, v.p, SC, d, W, d + w * h, 2 * CW, W, H)
        }
        expectSameAsLibyuv(try PixelConverter(source: .i420, width: w, height: h, target: .yuyv), f) { d in
            _ = I420ToYUY2(y.p, SY, u.p, SC, v.p, SC, d, 4 * CW, W, H)
        }
        expectSameAsLibyuv(try PixelConverter(source: .i420, width: w, height: h, target: .rgb24), f) { d in
            _ = I420ToRAW(y.p, SY, u.p, SC, v.p, SC, d, 3 * W, W, H)
        }
        // A stride one byte short of the row is refused, not read past.
        let short = testFrame(.i420, w, h, [plane(y, stride: w - 1), plane(u, stride: sc), plane(v, stride: sc)])
        let c = try PixelConverter(source: .i420, width: w, height: h, target: .nv12)
        let out = TestBytes(c.outputBytes)
        #expect(!c.convert(short, into: out.raw))
    }

    @Test func test_S8_short_or_mismatched_frames_are_refused() throws {
        let w = 64, h = 48
        let c = try PixelConverter(source: .yuyv, width: w, height: h, target: .i420)
        let out = TestBytes(c.outputBytes)
        let src = TestBytes(2 * w * h)
        defer { withExtendedLifetime(src) {} }
        #expect(c.convert(testFrame(.yuyv, w, h, [plane(src, stride: 2 * w)]), into: out.raw))
        #expect(!c.convert(testFrame(.yuyv, w, h, [plane(src, stride: 2 * w, length: 2 * w * h - 1)]), into: out.raw))
        #expect(!c.convert(testFrame(.yuyv, w, h, [plane(src, stride: 2 * w - 2)]), into: out.raw))
        #expect(!c.convert(testFrame(.yuyv, w, h, [Plane(base: nil, stride: 2 * w, length: 2 * w * h)]), into: out.raw))
        #expect(!c.convert(testFrame(.yuyv, w, h - 2, [plane(src, stride: 2 * w)]), into: out.raw))
        #expect(!c.convert(testFrame(.uyvy, w, h, [plane(src, stride: 2 * w)]), into: out.raw))
        let n = try PixelConverter(source: .nv12, width: w, height: h, target: .i420)
        let nv = TestBytes(w * h * 3 / 2)
        defer { withExtendedLifetime(nv) {} }
        #expect(n.convert(testFrame(.nv12, w, h, [plane(nv, stride: w)]), into: out.raw))
        #expect(!n.convert(testFrame(.nv12, w, h, [plane(nv, stride: w, length: w * h * 3 / 2 - 1)]), into: out.raw))
        #expect(!n.convert(testFrame(.nv12, w, h, [plane(nv, stride: w, length: -5)]), into: out.raw))
        let i = try PixelConverter(source: .i420, width: w, height: h, target: .nv12)
        #expect(!i.convert(testFrame(.i420, w, h, [plane(nv, stride: w, length: w * h), plane(nv, stride: w / 2)]), into: out.raw))
    }

    // MARK: Every source to every target, one known colour

    /// RGB (200, 100, 50) in BT.601 limited range: Y 123, U 91, V 175.
    static let colour = (r: 200.0, g: 100.0, b: 50.0)
    static var yuv: (y: UInt8, u: UInt8, v: UInt8) {
        let (r, g, b) = colour
        let y = 16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255
        let u = 128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255
        let v = 128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255
        return (UInt8(y.rounded()), UInt8(u.rounded()), UInt8(v.rounded()))
    }

    /// A solid frame of `fourcc` in the test colour, built byte by byte
    /// from the V4L2 layouts (independent of libyuv). Alpha, where the
    /// format has it, is `alpha`; padding bytes and bits are 0.
    static func solid(_ fourcc: String, _ w: Int, _ h: Int, alpha: UInt8) -> (TestBytes, [Plane])? {
        let (Y, U, V) = yuv
        let (R, G, B) = (UInt8(colour.r), UInt8(colour.g), UInt8(colour.b))
        func planes(_ sizes: [(Int, [UInt8], Int)]) -> (TestBytes, [Plane]) {
            // (bytes, pattern, stride) per plane, in one allocation.
            let total = sizes.reduce(0) { $0 + $1.0 }
            let t = TestBytes(total, fill: 0)
            var offset = 0, result: [Plane] = []
            for (n, px, stride) in sizes {
                for i in 0..<n { t.p[offset + i] = px[i % px.count] }
                result.append(Plane(base: t.raw + offset, stride: stride, length: n)); offset += n
            }
            return (t, result)
        }
        let n = w * h, q = w * h / 4
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        let r5 = Int(R) >> 3, g5 = Int(G) >> 3, b5 = Int(B) >> 3, g6 = Int(G) >> 2
        let r4 = Int(R) >> 4, g4 = Int(G) >> 4, b4 = Int(B) >> 4
        switch fourcc {
        case "YUYV": return planes([(2 * n, [Y, U, Y, V], 2 * w)])
        case "YVYU": return planes([(2 * n, [Y, V, Y, U], 2 * w)])
        case "UYVY": return planes([(2 * n, [U, Y, V, Y], 2 * w)])
        case "VYUY": return planes([(2 * n, [V, Y, U, Y], 2 * w)])
        case "YU12": return planes([(n, [Y], w), (q, [U], w / 2), (q, [V], w / 2)])
        case "YV12", "YM21": return planes([(n, [Y], w), (q, [V], w / 2), (q, [U], w / 2)])
        case "YM12": return planes([(n, [Y], w), (q, [U], w / 2), (q, [V], w / 2)])
        case "422P", "YM16": return planes([(n, [Y], w), (n / 2, [U], w / 2), (n / 2, [V], w / 2)])
        case "YM61": return planes([(n, [Y], w), (n / 2, [V], w / 2), (n / 2, [U], w / 2)])
        case "YM24": return planes([(n, [Y], w), (n, [U], w), (n, [V], w)])
        case "YM42": return planes([(n, [Y], w), (n, [V], w), (n, [U], w)])
        case "NV12", "NM12": return planes([(n, [Y], w), (n / 2, [U, V], w)])
        case "NV21", "NM21": return planes([(n, [Y], w), (n / 2, [V, U], w)])
        case "NV16", "NM16": return planes([(n, [Y], w), (n, [U, V], w)])
        case "NV61", "NM61": return planes([(n, [Y], w), (n, [V, U], w)])
        case "NV24": return planes([(n, [Y], w), (2 * n, [U, V], 2 * w)])
        case "NV42": return planes([(n, [Y], w), (2 * n, [V, U], 2 * w)])
        case "GREY": return planes([(n, [120], w)])
        case "RGB3": return planes([(3 * n, [R, G, B], 3 * w)])
        case "BGR3": return planes([(3 * n, [B, G, R], 3 * w)])
        case "AR24": return planes([(4 * n, [B, G, R, alpha], 4 * w)])
        case "XR24", "BGR4": return planes([(4 * n, [B, G, R, 0], 4 * w)])
        case "AB24": return planes([(4 * n, [R, G, B, alpha], 4 * w)])
        case "XB24": return planes([(4 * n, [R, G, B, 0], 4 * w)])
        case "BA24": return planes([(4 * n, [alpha, R, G, B], 4 * w)])
        case "BX24", "RGB4": return planes([(4 * n, [0, R, G, B], 4 * w)])
        case "RA24": return planes([(4 * n, [alpha, B, G, R], 4 * w)])
        case "RX24": return planes([(4 * n, [0, B, G, R], 4 * w)])
        case "RGBP": return planes([(2 * n, le16(r5 << 11 | g6 << 5 | b5), 2 * w)])
        case "AR15": return planes([(2 * n, le16(1 << 15 | r5 << 10 | g5 << 5 | b5), 2 * w)])
        case "RGBO", "XR15": return planes([(2 * n, le16(r5 << 10 | g5 << 5 | b5), 2 * w)])
        case "AR12": return planes([(2 * n, le16(Int(alpha >> 4) << 12 | r4 << 8 | g4 << 4 | b4), 2 * w)])
        case "R444", "XR12": return planes([(2 * n, le16(r4 << 8 | g4 << 4 | b4), 2 * w)])
        default: return nil
        }
    }

    static let sources = ["YUYV", "YVYU", "UYVY", "VYUY", "YU12", "YV12", "YM12", "YM21", "422P", "YM16", "YM61",
                          "YM24", "YM42", "NV12", "NM12", "NV21", "NM21", "NV16", "NM16", "NV61", "NM61", "NV24",
                          "NV42", "GREY", "RGB3", "BGR3", "AR24", "XR24", "BGR4", "AB24", "XB24", "BA24", "BX24",
                          "RGB4", "RA24", "RX24", "RGBP", "AR15", "RGBO", "XR15", "AR12", "R444", "XR12"]
    static let targets = ["YU12", "NV12", "YUYV", "RGB3", "BGR3", "AB24"]

    @Test(arguments: sources)
    func test_S8_every_source_to_every_target_keeps_the_colour(_ source: String) throws {
        let w = 64, h = 48, alpha: UInt8 = 0x77
        guard let (bytes, planes) = Self.solid(source, w, h, alpha: alpha) else {
            Issue.record("no test pattern for \(source)"); return
        }
        defer { withExtendedLifetime(bytes) {} }
        let grey = source == "GREY"
        let isYUV = ["Y", "U", "V", "N", "4"].contains(source.first.map(String.init) ?? "") && !grey
        let sixteenBit = ["RGBP", "AR15", "RGBO", "XR15", "AR12", "R444", "XR12"].contains(source)
        let realAlpha: UInt8? = ["AR24", "AB24", "BA24", "RA24"].contains(source) ? alpha
            : source == "AR15" ? 255 : source == "AR12" ? 0x77 : nil
        let (Y, U, V) = grey ? (UInt8(120), UInt8(128), UInt8(128)) : Self.yuv
        let rgb: [Int] = grey ? [120, 120, 120] : [200, 100, 50]
        for t in Self.targets {
            let c = try PixelConverter(source: FourCC(source), width: w, height: h, target: FourCC(t))
            let out = TestBytes(c.outputBytes, fill: 0xEE)
            let ok = c.convert(testFrame(FourCC(source), w, h, planes), into: out.raw)
            #expect(ok, "\(source)->\(t) via \(c.route)")
            guard ok else { continue }
            let o = out.array
            let n = w * h
            // Sampled at the first, a middle and the last pixel.
            for px in [0, n / 2 + w / 2, n - 1] {
                let x = px % w, y = px / w, ci = (y / 2) * (w / 2) + x / 2
                var got: [Int]
                var want: [Int]
                var tolerance: Int
                switch t {
                case "YU12", "NV12", "YUYV":
                    switch t {
                    case "YU12": got = [o[px], o[n + ci], o[n + n / 4 + ci]].map(Int.init)
                    case "NV12": got = [o[px], o[n + (y / 2) * w + (x / 2) * 2], o[n + (y / 2) * w + (x / 2) * 2 + 1]].map(Int.init)
                    default: got = [o[2 * px], o[4 * (px / 2) + 1], o[4 * (px / 2) + 3]].map(Int.init)
                    }
                    want = [Y, U, V].map(Int.init)
                    tolerance = isYUV || grey ? 0 : sixteenBit ? 4 : 2
                default:
                    let bpp = t == "AB24" ? 4 : 3
                    let p = Array(o[bpp * px..<bpp * px + 3]).map(Int.init)
                    got = t == "BGR3" ? [p[2], p[1], p[0]] : p
                    want = rgb
                    tolerance = isYUV ? 4 : sixteenBit ? 6 : 0
                    if t == "AB24" {
                        got.append(Int(o[4 * px + 3]))
                        want.append(Int(realAlpha ?? 255))
                    }
                }
                let diff = zip(got, want).map { abs($0 - $1) }.max() ?? 0
                #expect(diff <= tolerance, "\(source)->\(t) via \(c.route) pixel \(px): got \(got), want \(want)")
            }
        }
    }

    // MARK: MJPEG

    /// A smooth RGB test picture with some texture.
    static func picture(_ w: Int, _ h: Int, noise: Int = 0) -> TestBytes {
        let t = TestBytes(3 * w * h, fill: 0)
        var x64: UInt64 = 0x1234_5678
        for y in 0..<h {
            for x in 0..<w {
                var n = 0
                if noise > 0 {
                    x64 ^= x64 << 13; x64 ^= x64 >> 7; x64 ^= x64 << 17
                    n = Int(x64 % UInt64(2 * noise + 1)) - noise
                }
                let i = 3 * (y * w + x)
                let r = 30 + 190 * x / max(w - 1, 1), g = 40 + 170 * y / max(h - 1, 1)
                let b = 60 + 120 * ((x / 40 + y / 40) % 2)
                t.p[i] = UInt8(clamping: r + n); t.p[i + 1] = UInt8(clamping: g + n); t.p[i + 2] = UInt8(clamping: b + n)
            }
        }
        return t
    }

    /// `rgb` (bytes R, G, B) encoded by TurboJPEG.
    static func jpeg(_ rgb: TestBytes, _ w: Int, _ h: Int, subsamp: TJSAMP, quality: Int32 = 95) -> [UInt8] {
        let tj = tjInitCompress()
        defer { tjDestroy(tj) }
        var buf: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        let rc = tjCompress2(tj, rgb.p, Int32(w), Int32(3 * w), Int32(h), Int32(TJPF_RGB.rawValue), &buf, &size,
                             Int32(subsamp.rawValue), quality, 0)
        precondition(rc == 0, String(cString: tjGetErrorStr2(tj)))
        defer { tjFree(buf) }
        return Array(UnsafeBufferPointer(start: buf, count: Int(size)))
    }

    static func meanError(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Double {
        var sum = 0
        for i in 0..<n { sum += abs(Int(a[i]) - Int(b[i])) }
        return Double(sum) / Double(n)
    }

    func convertJPEG(_ jpeg: [UInt8], _ w: Int, _ h: Int, to target: String, fourcc: FourCC = .mjpeg,
                     length: Int? = nil) throws -> TestBytes? {
        let c = try PixelConverter(source: fourcc, width: w, height: h, target: FourCC(target))
        let src = TestBytes(jpeg)
        defer { withExtendedLifetime(src) {} }
        let out = TestBytes(c.outputBytes, fill: 0xEE)
        let frame = testFrame(fourcc, w, h, [Plane(base: src.raw, stride: 0, length: length ?? jpeg.count)])
        return c.convert(frame, into: out.raw) ? out : nil
    }

    @Test func test_S8_mjpeg_decodes_to_rgb_close_to_the_source() throws {
        let w = 320, h = 240
        let pic = Self.picture(w, h)
        for ss in [TJSAMP_420, TJSAMP_422, TJSAMP_444] {
            let jpeg = Self.jpeg(pic, w, h, subsamp: ss)
            let rgb = try #require(try convertJPEG(jpeg, w, h, to: "RGB3"))
            let e = Self.meanError(rgb.p, pic.p, 3 * w * h)
            #expect(e <= 3, "subsampling \(ss.rawValue): mean error \(e)")
            // BGR3 is the same with R and B exchanged; AB24 adds opaque alpha.
            let bgr = try #require(try convertJPEG(jpeg, w, h, to: "BGR3"))
            let rgba = try #require(try convertJPEG(jpeg, w, h, to: "AB24"))
            for i in [0, 777, w * h - 1] {
                #expect([bgr.p[3 * i + 2], bgr.p[3 * i + 1], bgr.p[3 * i]] == [rgb.p[3 * i], rgb.p[3 * i + 1], rgb.p[3 * i + 2]])
                #expect([rgba.p[4 * i], rgba.p[4 * i + 1], rgba.p[4 * i + 2], rgba.p[4 * i + 3]]
                        == [rgb.p[3 * i], rgb.p[3 * i + 1], rgb.p[3 * i + 2], 255])
            }
        }
    }

    /// The JPEG's own YUV planes as TurboJPEG decodes them (padded like it writes them).
    static func referenceYUV(_ jpeg: [UInt8], _ w: Int, _ h: Int, _ ss: Int32)
        -> (y: TestBytes, u: TestBytes, v: TestBytes, sy: Int32, sc: Int32) {
        let tj = tjInitDecompress()
        defer { tjDestroy(tj) }
        let sy = tjPlaneWidth(0, Int32(w), ss), hy = tjPlaneHeight(0, Int32(h), ss)
        let sc = ss == Int32(TJSAMP_GRAY.rawValue) ? 1 : tjPlaneWidth(1, Int32(w), ss)
        let hc = ss == Int32(TJSAMP_GRAY.rawValue) ? 1 : tjPlaneHeight(1, Int32(h), ss)
        let y = TestBytes(Int(sy * hy)), u = TestBytes(Int(sc * hc)), v = TestBytes(Int(sc * hc))
        var planes: [UnsafeMutablePointer<UInt8>?] = [y.p, u.p, v.p]
        var strides: [Int32] = [sy, sc, sc]
        let rc = jpeg.withUnsafeBufferPointer { j in
            tjDecompressToYUVPlanes(tj, j.baseAddress, UInt(j.count), &planes, Int32(w), &strides, Int32(h), 0)
        }
        precondition(rc == 0, String(cString: tjGetErrorStr2(tj)))
        return (y, u, v, sy, sc)
    }

    @Test func test_S8_mjpeg_to_yuv_matches_turbojpeg_then_libyuv() throws {
        for (w, h) in [(320, 240), (321, 241)] {
            let pic = Self.picture(w, h)
            let W = Int32(w), H = Int32(h), cw = (w + 1) / 2, ch = (h + 1) / 2, CW = Int32(cw)
            for ss in [TJSAMP_420, TJSAMP_422, TJSAMP_444, TJSAMP_GRAY] {
                let jpeg = Self.jpeg(pic, w, h, subsamp: ss)
                let r = Self.referenceYUV(jpeg, w, h, Int32(ss.rawValue))
                let (y, u, v, sy, sc) = (r.y.p, r.u.p, r.v.p, r.sy, r.sc)
                let what = "\(w)x\(h) subsampling \(ss.rawValue)"
                // I420: the JPEG's samples, chroma resampled as libyuv's I4xxToI420 does.
                let i420 = try #require(try convertJPEG(jpeg, w, h, to: "YU12"), "\(what)")
                let want = TestBytes(w * h + 2 * cw * ch)
                let (dy, du, dv) = (want.p, want.p + w * h, want.p + w * h + cw * ch)
                switch ss {
                case TJSAMP_420: _ = I420Copy(y, sy, u, sc, v, sc, dy, W, du, CW, dv, CW, W, H)
                case TJSAMP_422: _ = I422ToI420(y, sy, u, sc, v, sc, dy, W, du, CW, dv, CW, W, H)
                case TJSAMP_444: _ = I444ToI420(y, sy, u, sc, v, sc, dy, W, du, CW, dv, CW, W, H)
                default: _ = I400ToI420(y, sy, dy, W, du, CW, dv, CW, W, H)
                }
                #expect(firstMismatch(i420, want) == nil, "\(what) I420")
                // NV12 and YUYV from the same planes.
                let nv12 = try #require(try convertJPEG(jpeg, w, h, to: "NV12"))
                let wantNV = TestBytes(w * h + 2 * cw * ch)
                switch ss {
                case TJSAMP_420: _ = I420ToNV12(y, sy, u, sc, v, sc, wantNV.p, W, wantNV.p + w * h, 2 * CW, W, H)
                case TJSAMP_422: _ = I422ToNV21(y, sy, v, sc, u, sc, wantNV.p, W, wantNV.p + w * h, 2 * CW, W, H)
                case TJSAMP_444: _ = I444ToNV12(y, sy, u, sc, v, sc, wantNV.p, W, wantNV.p + w * h, 2 * CW, W, H)
                default: _ = I400ToNV21(y, sy, wantNV.p, W, wantNV.p + w * h, 2 * CW, W, H)
                }
                #expect(firstMismatch(nv12, wantNV) == nil, "\(what) NV12")
                if ss == TJSAMP_422 {
                    let yuyv = try #require(try convertJPEG(jpeg, w, h, to: "YUYV"))
                    let wantY = TestBytes(4 * cw * h)
                    _ = I422ToYUY2(y, sy, u, sc, v, sc, wantY.p, 4 * CW, W, H)
                    #expect(firstMismatch(yuyv, wantY) == nil, "\(what) YUYV")
                }
            }
        }
    }

    @Test func test_S8_mjpeg_yuv_pixels_match_the_encoded_planes() throws {
        // An I420 picture encoded from its planes, decoded back to I420.
        let w = 320, h = 240, cw = 160, ch = 120
        let pic = Self.picture(w, h)
        let src = TestBytes(w * h * 3 / 2)
        _ = RAWToJ420(pic.p, Int32(3 * w), src.p, Int32(w), src.p + w * h, Int32(cw), src.p + w * h + cw * ch,
                      Int32(cw), Int32(w), Int32(h))
        let tj = tjInitCompress()
        defer { tjDestroy(tj) }
        var planes: [UnsafePointer<UInt8>?] = [UnsafePointer(src.p), UnsafePointer(src.p + w * h),
                                                UnsafePointer(src.p + w * h + cw * ch)]
        var strides: [Int32] = [Int32(w), Int32(cw), Int32(cw)]
        var buf: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        #expect(tjCompressFromYUVPlanes(tj, &planes, Int32(w), &strides, Int32(h), Int32(TJSAMP_420.rawValue),
                                        &buf, &size, 95, 0) == 0)
        let jpeg = Array(UnsafeBufferPointer(start: buf, count: Int(size)))
        tjFree(buf)
        let out = try #require(try convertJPEG(jpeg, w, h, to: "YU12"))
        let e = Self.meanError(out.p, src.p, w * h * 3 / 2)
        #expect(e <= 3, "mean error \(e)")
        // The I420 carries the JPEG's full-range samples: J420 back to RGB is the picture.
        let rgb = TestBytes(3 * w * h)
        _ = J420ToRAW(out.p, Int32(w), out.p + w * h, Int32(cw), out.p + w * h + cw * ch, Int32(cw),
                      rgb.p, Int32(3 * w), Int32(w), Int32(h))
        let e2 = Self.meanError(rgb.p, pic.p, 3 * w * h)
        #expect(e2 <= 3, "mean RGB error \(e2)")
    }

    @Test func test_S8_mjpeg_other_subsamplings_resample_chroma() throws {
        let w = 320, h = 240, cw = 160, ch = 120
        let pic = Self.picture(w, h)
        for ss in [TJSAMP_440, TJSAMP_411] {
            let jpeg = Self.jpeg(pic, w, h, subsamp: ss)
            let out = try #require(try convertJPEG(jpeg, w, h, to: "YU12"), "subsampling \(ss.rawValue)")
            let rgb = TestBytes(3 * w * h)
            _ = J420ToRAW(out.p, Int32(w), out.p + w * h, Int32(cw), out.p + w * h + cw * ch, Int32(cw),
                          rgb.p, Int32(3 * w), Int32(w), Int32(h))
            let e = Self.meanError(rgb.p, pic.p, 3 * w * h)
            #expect(e <= 4, "subsampling \(ss.rawValue): mean error \(e)")
            #expect(try convertJPEG(jpeg, w, h, to: "NV12") != nil)
            #expect(try convertJPEG(jpeg, w, h, to: "YUYV") != nil)
        }
    }

    @Test func test_S8_mjpeg_corrupt_input_returns_false() throws {
        let w = 320, h = 240
        let jpeg = Self.jpeg(Self.picture(w, h), w, h, subsamp: TJSAMP_422)
        for target in Self.targets {
            // Complete, with trailing zero padding, and under the "JPEG" code: fine.
            #expect(try convertJPEG(jpeg, w, h, to: target) != nil, "\(target)")
            #expect(try convertJPEG(jpeg + [UInt8](repeating: 0, count: 100), w, h, to: target) != nil, "\(target) padded")
            #expect(try convertJPEG(jpeg, w, h, to: target, fourcc: .jpeg) != nil, "\(target) JPEG")
            // Truncated (with or without padding), random bytes, nothing.
            let half = Array(jpeg[..<(jpeg.count / 2)])
            #expect(try convertJPEG(half, w, h, to: target) == nil, "\(target) truncated")
            #expect(try convertJPEG(half + [UInt8](repeating: 0, count: 4096), w, h, to: target) == nil)
            #expect(try convertJPEG(jpeg, w, h, to: target, length: jpeg.count - 1) == nil)
            #expect(try convertJPEG(TestBytes(5000, seed: 99).array, w, h, to: target) == nil, "\(target) random")
            #expect(try convertJPEG([0xFF, 0xD8] + TestBytes(5000, seed: 98).array + [0xFF, 0xD9], w, h, to: target) == nil)
            #expect(try convertJPEG([0xFF, 0xD8, 0xFF, 0xD9], w, h, to: target) == nil)
            #expect(try convertJPEG([], w, h, to: target, length: 0) == nil)
            // A JPEG of another size than the capture's.
            #expect(try convertJPEG(jpeg, 640, 480, to: target) == nil, "\(target) wrong size")
            #expect(try convertJPEG(jpeg, 320, 240 - 16, to: target) == nil)
        }
        // Stray bytes before the end marker (a common camera quirk) only warn: accepted.
        let stray = Array(jpeg.dropLast(2)) + [0x12, 0x34, 0xFF, 0xD9]
        #expect(try convertJPEG(stray, w, h, to: "YU12") != nil)
        #expect(try convertJPEG(stray, w, h, to: "RGB3") != nil)
        // Entropy data cut short but closed with an end marker: corrupt.
        let cut = Array(jpeg[..<(jpeg.count * 3 / 4)]) + [0xFF, 0xD9]
        #expect(try convertJPEG(cut, w, h, to: "YU12") == nil)
        #expect(try convertJPEG(cut, w, h, to: "RGB3") == nil)
    }

    // MARK: MJPEG: stray bytes, corrupt scans, bad frames (SPEC S26)

    /// The offset of each marker segment before the first scan's data:
    /// (offset of its 0xFF, marker byte, bytes including the marker).
    static func segments(_ jpeg: [UInt8]) -> [(at: Int, marker: UInt8, bytes: Int)] {
        var list: [(Int, UInt8, Int)] = [(0, 0xD8, 2)]
        var i = 2
        while i + 4 <= jpeg.count, jpeg[i] == 0xFF {
            let m = jpeg[i + 1], n = 2 + (Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3]))
            list.append((i, m, n))
            if m == 0xDA { break }
            i += n
        }
        return list
    }

    /// `jpeg` with `bytes` inserted before the first marker `marker`.
    static func insert(_ bytes: [UInt8], before marker: UInt8, in jpeg: [UInt8]) -> [UInt8] {
        let at = marker == 0xD9 ? jpeg.count - 2 : segments(jpeg).first { $0.marker == marker }!.at
        return Array(jpeg[..<at]) + bytes + Array(jpeg[at...])
    }

    /// `jpeg` without its DHT segments, as UVC cameras send MJPEG (AVI1:
    /// the decoder supplies the standard tables TurboJPEG encodes with).
    static func withoutHuffmanTables(_ jpeg: [UInt8]) -> [UInt8] {
        var out = jpeg
        for s in segments(jpeg).reversed() where s.marker == 0xC4 { out.removeSubrange(s.at..<(s.at + s.bytes)) }
        return out
    }

    /// Decodes each frame with one converter; nil where `convert` refused it.
    static func decodeAll(_ c: PixelConverter, _ frames: [[UInt8]]) -> [[UInt8]?] {
        frames.map { bytes in
            let src = TestBytes(bytes)
            let out = TestBytes(c.outputBytes, fill: 0xEE)
            let ok = withExtendedLifetime(src) {
                c.convert(testFrame(.mjpeg, c.width, c.height, [Plane(base: src.raw, stride: 0, length: bytes.count)]),
                          into: out.raw)
            }
            return ok ? out.array : nil
        }
    }

    @Test func test_S26_mjpeg_stray_bytes_with_a_corrupt_scan_are_corrupt() throws {
        let w = 320, h = 240
        let jpeg = Self.jpeg(Self.picture(w, h, noise: 6), w, h, subsamp: TJSAMP_422)
        let sos = Self.segments(jpeg).last!
        let scanStart = sos.at + sos.bytes
        // The scan cut to a third and closed with EOI, or broken by a
        // marker in its middle: TurboJPEG warns, the rest is grey filler.
        let cut = Array(jpeg[..<(scanStart + (jpeg.count - scanStart) / 3)]) + [0xFF, 0xD9]
        var broken = jpeg
        broken[scanStart + 2000] = 0xFF; broken[scanStart + 2001] = 0xD5
        for target in Self.targets {
            let c = try PixelConverter(source: .mjpeg, width: w, height: h, target: FourCC(target))
            for (name, bad) in [("cut", cut), ("broken", broken)] {
                for marker: UInt8 in [0xDB, 0xC0, 0xC4, 0xDA] {
                    let frame = Self.insert([0x00, 0x12, 0x34], before: marker, in: bad)
                    #expect(Self.decodeAll(c, [frame])[0] == nil ? true : false,
                            "\(target): stray bytes before 0x\(String(marker, radix: 16)), scan \(name)")
                }
                #expect(Self.decodeAll(c, [bad])[0] == nil ? true : false, "\(target): scan \(name)")
            }
        }
    }

    @Test func test_S26_mjpeg_stray_bytes_before_markers_still_decode_the_same() throws {
        let w = 320, h = 240
        let jpeg = Self.jpeg(Self.picture(w, h, noise: 6), w, h, subsamp: TJSAMP_420)
        let frames: [[UInt8]] = [
            jpeg,
            Self.insert([0x12, 0x34], before: 0xD9, in: jpeg),                        // the common camera quirk
            Self.insert([0x00, 0x00, 0x00, 0x00], before: 0xD9, in: jpeg),
            Self.insert([0x55], before: 0xDB, in: jpeg),                               // between header segments
            Self.insert([0xFF, 0x00, 0x07], before: 0xC4, in: jpeg),                   // FF00 outside a scan is stray too
            Self.insert([0x01, 0x02, 0x03], before: 0xDA, in: Self.insert([0x09], before: 0xD9, in: jpeg)),
            Self.insert([0xFF, 0xFF, 0xFF], before: 0xDB, in: jpeg),                   // fill bytes: legal, no warning
            Self.withoutHuffmanTables(Self.insert([0xAB], before: 0xC0, in: jpeg)),
        ]
        for target in Self.targets {
            let c = try PixelConverter(source: .mjpeg, width: w, height: h, target: FourCC(target))
            let out = Self.decodeAll(c, frames)
            let first = try #require(out[0], "\(target)")
            for (i, o) in out.enumerated() { #expect(o == first ? true : false, "\(target): frame \(i) decodes as the clean one") }
        }
    }

    @Test func test_S26_marker_walk_finds_exactly_the_stray_bytes() throws {
        let jpeg = Self.jpeg(Self.picture(64, 48, noise: 20), 64, 48, subsamp: TJSAMP_420, quality: 90)
        func walk(_ bytes: [UInt8]) -> (Int, [UInt8]) {
            var out = [UInt8](repeating: 0xEE, count: bytes.count)
            let n = bytes.withUnsafeBufferPointer { b in
                out.withUnsafeMutableBufferPointer { o in JPEGMarkers.strayBytes(b.baseAddress!, b.count, copyingTo: o.baseAddress!) }
            }
            return (n, Array(out[..<(bytes.count - n)]))
        }
        #expect(jpeg.contains(0xFF) && walk(jpeg) == (0, jpeg), "a clean stream: nothing found, copied as it is")
        // Before a segment, with 0xFF00 pairs and fill bytes; RST and TEM are markers.
        let cases: [(junk: [UInt8], kept: [UInt8])] = [
            ([0x12, 0x34], []), ([0xFF, 0x00, 0x01], []), ([0x00, 0xFF, 0xFF], [0xFF, 0xFF]),
            ([0xFF, 0xD3, 0x07], [0xFF, 0xD3]), ([0xFF, 0x01], [0xFF, 0x01]),
        ]
        for (junk, kept) in cases {
            for marker: UInt8 in [0xDB, 0xC4, 0xDA] {
                let (found, copy) = walk(Self.insert(junk, before: marker, in: jpeg))
                let want = Self.insert(kept, before: marker, in: jpeg)
                #expect(found == junk.count - kept.count, "\(junk) before 0x\(String(marker, radix: 16))")
                #expect(copy == want ? true : false, "\(junk) before 0x\(String(marker, radix: 16)): the copy")
            }
        }
        // Bytes after a scan's data look like scan data: not found (libjpeg tells them after the decode).
        #expect(walk(Self.insert([0x12, 0x34], before: 0xD9, in: jpeg)).0 == 0)
        // The tables a stream defines: DQT 0-1, DC 0-1, AC 0-1; a UVC frame only its DQTs.
        let tables = jpeg.withUnsafeBufferPointer { JPEGMarkers.walk($0.baseAddress!, $0.count).tables }
        let uvc = Self.withoutHuffmanTables(jpeg)
        #expect(tables == 0x333)
        #expect(uvc.withUnsafeBufferPointer { JPEGMarkers.walk($0.baseAddress!, $0.count).tables } == 0x003)
        // Garbage lengths stop the walk; nothing is read past the end.
        #expect(walk([0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF, 0xFF, 0xD9]).0 == 0)
        #expect(walk([0xFF, 0xD8, 0x01, 0x02]).0 == 2)
    }

    @Test func test_S26_mjpeg_a_frame_without_tables_does_not_use_the_last_frames() throws {
        let w = 320, h = 240
        let pic = Self.picture(w, h, noise: 6)
        // A progressive JPEG carries optimized Huffman tables; camera frames
        // without DHT mean the standard ones, whatever came before.
        let tjc = tjInitCompress()
        defer { tjDestroy(tjc) }
        var buf: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        #expect(tjCompress2(tjc, pic.p, Int32(w), Int32(3 * w), Int32(h), Int32(TJPF_RGB.rawValue), &buf, &size,
                            Int32(TJSAMP_420.rawValue), 90, 16384 /* TJFLAG_PROGRESSIVE */) == 0)
        let progressive = Array(UnsafeBufferPointer(start: buf, count: Int(size)))
        tjFree(buf)
        let good = Self.withoutHuffmanTables(Self.jpeg(pic, w, h, subsamp: TJSAMP_420))
        for target in Self.targets {
            let fresh = try PixelConverter(source: .mjpeg, width: w, height: h, target: FourCC(target))
            let want = try #require(Self.decodeAll(fresh, [good])[0], "\(target)")
            let c = try PixelConverter(source: .mjpeg, width: w, height: h, target: FourCC(target))
            let out = Self.decodeAll(c, [progressive, good, good])
            #expect(out[0] != nil, "\(target): the progressive JPEG decodes")
            #expect(out[1] == want ? true : false, "\(target): the frame after it decodes with the standard tables")
            #expect(out[2] == want ? true : false, "\(target)")
        }
    }

    @Test(.enabled(if: getenv("CAMCORE_BENCH") != nil))
    func bench_S26_marker_walk_640x480() throws {
        let w = 640, h = 480
        let jpeg = Self.jpeg(Self.picture(w, h, noise: 12), w, h, subsamp: TJSAMP_422, quality: 85)
        let c = try PixelConverter(source: .mjpeg, width: w, height: h, target: .i420)
        let src = TestBytes(jpeg), out = TestBytes(c.outputBytes)
        let frame = testFrame(.mjpeg, w, h, [Plane(base: src.raw, stride: 0, length: jpeg.count)])
        func best(_ body: () -> Void) -> Double {
            var b = Double.infinity
            for _ in 0..<7 {
                var n = 0
                let start = Self.now()
                while Self.now() - start < 0.3 { body(); n += 1 }
                b = min(b, (Self.now() - start) / Double(n))
            }
            return b
        }
        var sum = 0
        let walk = best { sum &+= JPEGMarkers.strayBytes(UnsafePointer(src.p), jpeg.count) }
        let decode = best { precondition(c.convert(frame, into: out.raw)) }
        print("bench marker walk 640x480 (\(jpeg.count / 1024) KiB): \(Int(walk * 1e9)) ns/frame; "
              + "convert to I420 \(Int(decode * 1e9)) ns/frame (\(sum))")
    }

    @Test func test_S26_mjpeg_a_bad_frame_costs_that_frame_only() throws {
        let w = 320, h = 240
        let full = Self.jpeg(Self.picture(w, h, noise: 6), w, h, subsamp: TJSAMP_422)
        // Camera frames: no DHT (the standard tables). The bad frame's DC
        // table has 3 codes of length 1: "Bogus Huffman table definition".
        let good = Self.withoutHuffmanTables(full)
        var bogus = full
        let dht = Self.segments(full).first { $0.marker == 0xC4 }!
        let counts = dht.at + 5  // after FF C4, the length and Tc/Th
        #expect(full[dht.at + 4] == 0x00, "the first DHT is DC table 0")
        bogus[counts] = 3; bogus[counts + 1] = 0
        bogus[counts + 2] = UInt8(Int(full[counts + 1]) + Int(full[counts + 2]) - 3 + Int(full[counts]))
        let others: [[UInt8]] = [
            bogus,
            Array(full[..<(full.count / 2)]) + [0xFF, 0xD9],
            [0xFF, 0xD8] + TestBytes(3000, seed: 5).array + [0xFF, 0xD9],
            Self.insert([0xFF, 0xC4, 0x00, 0x03, 0x55], before: 0xDA, in: good),  // a DHT cut short
        ]
        for target in Self.targets {
            for (n, bad) in others.enumerated() {
                let c = try PixelConverter(source: .mjpeg, width: w, height: h, target: FourCC(target))
                let out = Self.decodeAll(c, [good, bad] + Array(repeating: good, count: 5))
                let first = try #require(out[0], "\(target)")
                #expect(out[1] == nil ? true : false, "\(target): bad frame \(n) is corrupt")
                for (i, o) in out.enumerated().dropFirst(2) {
                    #expect(o == first ? true : false, "\(target): valid frame \(i) after bad frame \(n) decodes as the first")
                }
            }
        }
    }

    @Test func test_S8_mjpeg_mutations_never_crash() throws {
        let w = 64, h = 48
        let jpeg = Self.jpeg(Self.picture(w, h, noise: 10), w, h, subsamp: TJSAMP_420, quality: 80)
        let converters = try Self.targets.map { try PixelConverter(source: .mjpeg, width: w, height: h, target: FourCC($0)) }
        var x: UInt64 = 0xDEAD_BEEF
        func next() -> Int { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return Int(x >> 33) }
        var accepted = 0
        for round in 0..<400 {
            var bytes = jpeg
            for _ in 0..<(1 + next() % 8) { bytes[next() % bytes.count] = UInt8(next() & 0xFF) }
            if round % 3 == 0 { bytes = Array(bytes[..<(1 + next() % bytes.count)]) }
            let src = TestBytes(bytes)
            defer { withExtendedLifetime(src) {} }
            let frame = testFrame(.mjpeg, w, h, [Plane(base: src.raw, stride: 0, length: bytes.count)])
            for c in converters {
                let out = TestBytes(c.outputBytes)
                if c.convert(frame, into: out.raw) { accepted += 1 }
            }
        }
        #expect(accepted < 400 * converters.count)
    }

    // MARK: Speed (prints; run with CAMCORE_BENCH=1, release build)

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    @Test(.enabled(if: getenv("CAMCORE_BENCH") != nil))
    func bench_S8_conversion_speed_1080p() throws {
        let w = 1920, h = 1080
        // Best and median of 7 windows of 0.5 s: the host may be busy.
        func measure(_ name: String, _ c: PixelConverter, _ frame: Frame) {
            let out = TestBytes(c.outputBytes)
            for _ in 0..<10 { _ = c.convert(frame, into: out.raw) }
            var rates: [Double] = []
            for _ in 0..<7 {
                var n = 0
                let start = Self.now()
                while Self.now() - start < 0.5 { precondition(c.convert(frame, into: out.raw)); n += 1 }
                rates.append(Double(n) / (Self.now() - start))
            }
            rates.sort()
            print("bench \(name) 1920x1080 via \(c.route): best \(Int(rates[6].rounded())) fps "
                  + "(\(String(format1: 1000 / rates[6])) ms/frame), median \(Int(rates[3].rounded())) fps")
        }
        let yuyv = TestBytes(2 * w * h, seed: 5)
        defer { withExtendedLifetime(yuyv) {} }
        measure("YUYV->I420", try PixelConverter(source: .yuyv, width: w, height: h, target: .i420),
                testFrame(.yuyv, w, h, [plane(yuyv, stride: 2 * w)]))
        measure("YUYV->NV12", try PixelConverter(source: .yuyv, width: w, height: h, target: .nv12),
                testFrame(.yuyv, w, h, [plane(yuyv, stride: 2 * w)]))
        measure("YUYV->RGB3", try PixelConverter(source: .yuyv, width: w, height: h, target: .rgb24),
                testFrame(.yuyv, w, h, [plane(yuyv, stride: 2 * w)]))
        for noise in [3, 12] {
            let pic = Self.picture(w, h, noise: noise)
            for (ss, name) in [(TJSAMP_420, "4:2:0"), (TJSAMP_422, "4:2:2")] {
                let jpeg = Self.jpeg(pic, w, h, subsamp: ss, quality: 85)
                let src = TestBytes(jpeg)
                defer { withExtendedLifetime(src) {} }
                let f = testFrame(.mjpeg, w, h, [Plane(base: src.raw, stride: 0, length: jpeg.count)])
                let label = "MJPEG(\(name), \(jpeg.count / 1024) KiB)"
                measure("\(label)->I420", try PixelConverter(source: .mjpeg, width: w, height: h, target: .i420), f)
                measure("\(label)->RGB3", try PixelConverter(source: .mjpeg, width: w, height: h, target: .rgb24), f)
            }
        }
    }
}

extension String {
    /// A number with one decimal (no Foundation).
    init(format1 v: Double) {
        let tenths = Int((v * 10).rounded())
        self = "\(tenths / 10).\(tenths % 10)"
    }
}
