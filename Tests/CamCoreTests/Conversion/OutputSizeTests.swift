// SPDX-License-Identifier: MIT
import CTurboJPEG
import CYuv
import Testing
import Synchronization
@testable import CamCore
#if canImport(Glibc)
import Glibc
#endif

// SPEC S38: an output size. camcore's scaled frames are compared byte for
// byte with TurboJPEG's scaled decode and libyuv's scale called directly.

struct OutputSizeTests {
    /// The DCT denominator S38 asks for, worked out here on its own: the
    /// largest of 1, 2, 4, 8 whose ⌈side/d⌉ still covers the output size.
    static func expectedDenominator(_ w: Int, _ h: Int, _ ow: Int, _ oh: Int) -> Int {
        [8, 4, 2, 1].first { d in (w + d - 1) / d >= ow && (h + d - 1) / d >= oh } ?? 1
    }

    /// The JPEG decoded by TurboJPEG at `dw`×`dh` into its own planes.
    static func scaledYUV(_ jpeg: [UInt8], _ dw: Int, _ dh: Int, _ ss: Int32)
        -> (y: TestBytes, u: TestBytes, v: TestBytes, sy: Int32, sc: Int32, ch: Int32) {
        let tj = tjInitDecompress()
        defer { tjDestroy(tj) }
        let sy = tjPlaneWidth(0, Int32(dw), ss), hy = tjPlaneHeight(0, Int32(dh), ss)
        let sc = tjPlaneWidth(1, Int32(dw), ss), hc = tjPlaneHeight(1, Int32(dh), ss)
        let y = TestBytes(Int(sy * hy)), u = TestBytes(Int(sc * hc)), v = TestBytes(Int(sc * hc))
        var planes: [UnsafeMutablePointer<UInt8>?] = [y.p, u.p, v.p]
        var strides: [Int32] = [sy, sc, sc]
        let rc = jpeg.withUnsafeBufferPointer { j in
            tjDecompressToYUVPlanes(tj, j.baseAddress, UInt(j.count), &planes, Int32(dw), &strides, Int32(dh), 0)
        }
        precondition(rc == 0, String(cString: tjGetErrorStr2(tj)))
        return (y, u, v, sy, sc, hc)
    }

    static func convert(_ c: PixelConverter, _ jpeg: [UInt8], _ w: Int, _ h: Int) -> TestBytes? {
        let src = TestBytes(jpeg)
        let out = TestBytes(c.outputBytes, fill: 0xEE)
        let frame = testFrame(.mjpeg, w, h, [Plane(base: src.raw, stride: 0, length: jpeg.count)])
        let ok = withExtendedLifetime(src) { c.convert(frame, into: out.raw) }
        return ok ? out : nil
    }

    @Test(arguments: [(1920, 1080), (1280, 720)])
    func test_S38_mjpeg_scaled_to_i420_matches_turbojpeg_scaled_decode_then_libyuv(_ size: (Int, Int)) throws {
        let (w, h) = size
        let pic = PixelConverterTests.picture(w, h, noise: 6)
        for ss in [TJSAMP_420, TJSAMP_422] {
            let jpeg = PixelConverterTests.jpeg(pic, w, h, subsamp: ss, quality: 90)
            // Downscales (DCT exact and not), a non-DCT size, the source size, an upscale.
            for (ow, oh) in [(640, 360), (320, 180), (960, 540), (800, 450), (w, h), (2 * w, 2 * h)] {
                let what = "\(w)x\(h) 4:2:\(ss == TJSAMP_420 ? 0 : 2) -> \(ow)x\(oh)"
                let c = try PixelConverter(source: .mjpeg, width: w, height: h, target: .i420,
                                           outputWidth: ow, outputHeight: oh)
                let d = Self.expectedDenominator(w, h, ow, oh)
                #expect(c.jpegScale == (1, d) || (c.jpegScale.num == 1 && c.jpegScale.denom == d), "\(what): DCT 1/\(c.jpegScale.denom), want 1/\(d)")
                let named = ow == w && oh == h ? "tjDecompressToYUVPlanes" : "tjDecompressToYUVPlanes 1/\(d)"
                #expect(c.route.first == named, "\(what): route \(c.route)")
                let dw = (w + d - 1) / d, dh = (h + d - 1) / d
                #expect(c.decodeWidth == dw && c.decodeHeight == dh, "\(what)")
                let exact = dw == ow && dh == oh
                #expect(c.route.contains("ScalePlane box") == !exact, "\(what): scale only when the DCT size is not the output size: \(c.route)")
                #expect(c.outputStrides == [ow, ow / 2, ow / 2] && c.outputBytes == ow * oh * 3 / 2, "\(what)")
                let got = try #require(Self.convert(c, jpeg, w, h), "\(what)")

                // The same by hand: TurboJPEG at 1/d, then libyuv.
                let r = Self.scaledYUV(jpeg, dw, dh, Int32(ss.rawValue))
                let want = TestBytes(ow * oh * 3 / 2, fill: 0xEE)
                let (py, pu, pv) = (want.p, want.p + ow * oh, want.p + ow * oh + ow * oh / 4)
                let OW = Int32(ow), OH = Int32(oh), CW = Int32(ow / 2), CH = Int32(oh / 2)
                if exact {
                    if ss == TJSAMP_420 {
                        _ = I420Copy(r.y.p, r.sy, r.u.p, r.sc, r.v.p, r.sc, py, OW, pu, CW, pv, CW, OW, OH)
                    } else {
                        _ = I422ToI420(r.y.p, r.sy, r.u.p, r.sc, r.v.p, r.sc, py, OW, pu, CW, pv, CW, OW, OH)
                    }
                } else if ss == TJSAMP_420 {
                    _ = I420Scale(r.y.p, r.sy, r.u.p, r.sc, r.v.p, r.sc, Int32(dw), Int32(dh),
                                  py, OW, pu, CW, pv, CW, OW, OH, kFilterBox)
                } else {
                    ScalePlane(r.y.p, r.sy, Int32(dw), Int32(dh), py, OW, OW, OH, kFilterBox)
                    ScalePlane(r.u.p, r.sc, r.sc, r.ch, pu, CW, CW, CH, kFilterBox)
                    ScalePlane(r.v.p, r.sc, r.sc, r.ch, pv, CW, CW, CH, kFilterBox)
                }
                let mismatch = firstMismatch(got, want)
                #expect(mismatch == nil, "\(what) via \(c.route): first differing byte \(mismatch ?? -1)")
                // And it is the picture: luma close to a full decode scaled down.
                if ow <= w {
                    let full = Self.scaledYUV(jpeg, w, h, Int32(ss.rawValue))
                    let ref = TestBytes(ow * oh)
                    ScalePlane(full.y.p, full.sy, Int32(w), Int32(h), ref.p, OW, OW, OH, kFilterBox)
                    let e = PixelConverterTests.meanError(got.p, ref.p, ow * oh)
                    #expect(e < 3, "\(what): mean luma error \(e) against a full-size decode + scale")
                }
            }
        }
    }

    @Test func test_S38_mjpeg_scaled_to_nv12_yuyv_and_rgb_match_turbojpeg_then_libyuv() throws {
        let w = 1280, h = 720, ow = 400, oh = 224
        let pic = PixelConverterTests.picture(w, h, noise: 6)
        let jpeg = PixelConverterTests.jpeg(pic, w, h, subsamp: TJSAMP_422, quality: 90)
        let ss = Int32(TJSAMP_422.rawValue)
        let d = Self.expectedDenominator(w, h, ow, oh)
        #expect(d == 2)
        let dw = w / d, dh = h / d
        let r = Self.scaledYUV(jpeg, dw, dh, ss)
        let OW = Int32(ow), OH = Int32(oh)
        // NV12: planes scaled to I420 at the output size, then I420ToNV12.
        let nv = try PixelConverter(source: .mjpeg, width: w, height: h, target: .nv12, outputWidth: ow, outputHeight: oh)
        #expect(nv.route == ["tjDecompressToYUVPlanes 1/2", "ScalePlane box", "I420ToNV12"])
        let i420 = TestBytes(ow * oh * 3 / 2)
        let (py, pu, pv) = (i420.p, i420.p + ow * oh, i420.p + ow * oh + ow * oh / 4)
        ScalePlane(r.y.p, r.sy, Int32(dw), Int32(dh), py, OW, OW, OH, kFilterBox)
        ScalePlane(r.u.p, r.sc, r.sc, r.ch, pu, OW / 2, OW / 2, OH / 2, kFilterBox)
        ScalePlane(r.v.p, r.sc, r.sc, r.ch, pv, OW / 2, OW / 2, OH / 2, kFilterBox)
        let wantNV = TestBytes(ow * oh * 3 / 2)
        _ = I420ToNV12(py, OW, pu, OW / 2, pv, OW / 2, wantNV.p, OW, wantNV.p + ow * oh, OW, OW, OH)
        let gotNV = try #require(Self.convert(nv, jpeg, w, h))
        #expect(firstMismatch(gotNV, wantNV) == nil, "NV12 via \(nv.route)")
        // YUYV: planes scaled to I422, then I422ToYUY2.
        let yu = try PixelConverter(source: .mjpeg, width: w, height: h, target: .yuyv, outputWidth: ow, outputHeight: oh)
        #expect(yu.route == ["tjDecompressToYUVPlanes 1/2", "ScalePlane box", "I422ToYUY2"])
        let i422 = TestBytes(ow * oh * 2)
        let (qy, qu, qv) = (i422.p, i422.p + ow * oh, i422.p + ow * oh + ow * oh / 2)
        ScalePlane(r.y.p, r.sy, Int32(dw), Int32(dh), qy, OW, OW, OH, kFilterBox)
        ScalePlane(r.u.p, r.sc, r.sc, r.ch, qu, OW / 2, OW / 2, OH, kFilterBox)
        ScalePlane(r.v.p, r.sc, r.sc, r.ch, qv, OW / 2, OW / 2, OH, kFilterBox)
        let wantYU = TestBytes(ow * oh * 2)
        _ = I422ToYUY2(qy, OW, qu, OW / 2, qv, OW / 2, wantYU.p, 2 * OW, OW, OH)
        let gotYU = try #require(Self.convert(yu, jpeg, w, h))
        #expect(firstMismatch(gotYU, wantYU) == nil, "YUYV via \(yu.route)")
        // RGB24: TurboJPEG's own colour at 1/2 (BGRX), ARGBScale, ARGBToRAW.
        let rgb = try PixelConverter(source: .mjpeg, width: w, height: h, target: .rgb24, outputWidth: ow, outputHeight: oh)
        #expect(rgb.route == ["tjDecompress2 1/2", "ARGBScale box", "ARGBToRAW"])
        let bgrx = TestBytes(dw * dh * 4)
        let tj = tjInitDecompress()
        defer { tjDestroy(tj) }
        let rc = jpeg.withUnsafeBufferPointer { j in
            tjDecompress2(tj, j.baseAddress, UInt(j.count), bgrx.p, Int32(dw), Int32(4 * dw), Int32(dh), Int32(TJPF_BGRX.rawValue), 0)
        }
        #expect(rc == 0)
        let argb = TestBytes(ow * oh * 4)
        _ = ARGBScale(bgrx.p, Int32(4 * dw), Int32(dw), Int32(dh), argb.p, 4 * OW, OW, OH, kFilterBox)
        let wantRGB = TestBytes(ow * oh * 3)
        _ = ARGBToRAW(argb.p, 4 * OW, wantRGB.p, 3 * OW, OW, OH)
        let gotRGB = try #require(Self.convert(rgb, jpeg, w, h))
        #expect(firstMismatch(gotRGB, wantRGB) == nil, "RGB3 via \(rgb.route)")
        // At an exact DCT size RGB is decoded straight into the destination.
        let exact = try PixelConverter(source: .mjpeg, width: w, height: h, target: .rgb24, outputWidth: 320, outputHeight: 180)
        #expect(exact.route == ["tjDecompress2 1/4"])
        let gotExact = try #require(Self.convert(exact, jpeg, w, h))
        let wantExact = TestBytes(320 * 180 * 3)
        let rc2 = jpeg.withUnsafeBufferPointer { j in
            tjDecompress2(tj, j.baseAddress, UInt(j.count), wantExact.p, 320, 960, 180, Int32(TJPF_RGB.rawValue), 0)
        }
        #expect(rc2 == 0)
        #expect(firstMismatch(gotExact, wantExact) == nil)
    }

    @Test func test_S38_yuyv_640x480_to_320x240_i420_matches_libyuv() throws {
        let w = 640, h = 480, ow = 320, oh = 240
        let src = TestBytes(w * 2 * h, seed: 38)
        let frame = testFrame(.yuyv, w, h, [plane(src, stride: 2 * w)])
        let c = try PixelConverter(source: .yuyv, width: w, height: h, target: .i420, outputWidth: ow, outputHeight: oh)
        #expect(c.route == ["YUY2ToI420", "I420Scale box"])
        #expect(c.outputStrides == [320, 160, 160] && c.outputBytes == 320 * 240 * 3 / 2)
        expectSameAsLibyuv(c, frame) { d in
            let full = TestBytes(w * h * 3 / 2)
            _ = YUY2ToI420(src.p, Int32(2 * w), full.p, Int32(w), full.p + w * h, Int32(w / 2),
                           full.p + w * h * 5 / 4, Int32(w / 2), Int32(w), Int32(h))
            _ = I420Scale(full.p, Int32(w), full.p + w * h, Int32(w / 2), full.p + w * h * 5 / 4, Int32(w / 2),
                          Int32(w), Int32(h), d, Int32(ow), d + ow * oh, Int32(ow / 2), d + ow * oh * 5 / 4, Int32(ow / 2),
                          Int32(ow), Int32(oh), kFilterBox)
        }
        let planes = c.outputPlanes(UnsafeMutableRawPointer(src.p))
        #expect(planes.count == 3 && planes.planes.0.stride == 320 && planes.planes.0.length == 320 * 240
                && planes.planes.1.stride == 160 && planes.planes.1.length == 160 * 120)
        // NV12 to NV12 is one NV12Scale; YUYV to YUYV goes through I422.
        let nsrc = TestBytes(w * h * 3 / 2, seed: 7)
        let nframe = testFrame(.nv12, w, h, [plane(nsrc, stride: w, length: w * h), plane(nsrc, stride: w, offset: w * h)])
        let n = try PixelConverter(source: .nv12, width: w, height: h, target: .nv12, outputWidth: 400, outputHeight: 300)
        #expect(n.route == ["NV12Scale box"])
        expectSameAsLibyuv(n, nframe) { d in
            _ = NV12Scale(nsrc.p, Int32(w), nsrc.p + w * h, Int32(w), Int32(w), Int32(h),
                          d, 400, d + 400 * 300, 400, 400, 300, kFilterBox)
        }
        let y = try PixelConverter(source: .yuyv, width: w, height: h, target: .yuyv, outputWidth: 320, outputHeight: 240)
        #expect(y.route == ["YUY2ToI422", "I422Scale box", "I422ToYUY2"])
        expectSameAsLibyuv(y, frame) { d in
            let a = TestBytes(w * h * 2), b = TestBytes(320 * 240 * 2)
            _ = YUY2ToI422(src.p, Int32(2 * w), a.p, Int32(w), a.p + w * h, Int32(w / 2), a.p + w * h * 3 / 2, Int32(w / 2),
                           Int32(w), Int32(h))
            _ = I422Scale(a.p, Int32(w), a.p + w * h, Int32(w / 2), a.p + w * h * 3 / 2, Int32(w / 2), Int32(w), Int32(h),
                          b.p, 320, b.p + 320 * 240, 160, b.p + 320 * 240 * 3 / 2, 160, 320, 240, kFilterBox)
            _ = I422ToYUY2(b.p, 320, b.p + 320 * 240, 160, b.p + 320 * 240 * 3 / 2, 160, d, 640, 320, 240)
        }
    }

    @Test func test_S38_bad_output_sizes_are_refused() throws {
        func refused(_ ow: Int, _ oh: Int, _ target: FourCC, _ why: String,
                     sourceLocation: SourceLocation = #_sourceLocation) {
            do {
                _ = try PixelConverter(source: .mjpeg, width: 1280, height: 720, target: target, outputWidth: ow, outputHeight: oh)
                Issue.record("\(ow)x\(oh) \(target) accepted", sourceLocation: sourceLocation)
            } catch {
                guard case .invalidArgument(let m) = error else {
                    Issue.record("\(ow)x\(oh): \(error)", sourceLocation: sourceLocation); return
                }
                #expect(m.contains(why), "\(m)", sourceLocation: sourceLocation)
            }
        }
        refused(641, 360, .i420, "even")
        refused(640, 361, .nv12, "even")
        refused(641, 360, .yuyv, "even")
        refused(0, 360, .i420, "outside")
        refused(20000, 720, .rgb24, "outside")
        refused(5121, 720, .rgb24, "4 times")
        // Odd sizes are fine for RGB, and so is 4x.
        #expect(try PixelConverter(source: .mjpeg, width: 1280, height: 720, target: .rgb24,
                                   outputWidth: 641, outputHeight: 361).outputStrides == [3 * 641])
        #expect(try PixelConverter(source: .yuyv, width: 160, height: 120, target: .i420,
                                   outputWidth: 640, outputHeight: 480).outputBytes == 640 * 480 * 3 / 2)
        // The request's own check: both sides, and an output format.
        #expect(throws: CamError.self) { try CaptureRequest.checkOutputSize(640, 0, output: .i420) }
        #expect(throws: CamError.self) { try CaptureRequest.checkOutputSize(640, 360, output: nil) }
        #expect(throws: CamError.self) { try CaptureRequest.checkOutputSize(16386, 360, output: .i420) }
        #expect(throws: CamError.self) {
            try CaptureRequest(fourcc: .yuyv, width: 640, height: 480, output: .i420, outputWidth: 321, outputHeight: 240).validate()
        }
        try CaptureRequest.checkOutputSize(0, 0, output: nil)
        try CaptureRequest(fourcc: .yuyv, width: 640, height: 480, output: .i420, outputWidth: 320, outputHeight: 240).validate()
        // MJPEG cannot be an output, scaled or not.
        #expect(throws: CamError.self) {
            _ = try PixelConverter(source: .mjpeg, width: 1280, height: 720, target: .mjpeg, outputWidth: 640, outputHeight: 360)
        }
    }

    @Test func test_S38_synthetic_capture_delivers_the_output_size() throws {
        let m = try Manager(config: ManagerConfig(includeSynthetic: true))
        let dev = try #require(m.devices().first { $0.isSynthetic })
        let cap = try m.open(deviceID: dev.id)
        defer { try? cap.close() }
        let seen = Mutex<[(Int, Int, Int, Int, UInt32)]>([])
        try cap.start(CaptureRequest(fourcc: .yuyv, width: 640, height: 480, frameRate: FrameRate(60), output: .i420,
                                     outputWidth: 320, outputHeight: 240)) { f in
            seen.withLock { $0.append((f.width, f.height, f.plane(0).stride, f.plane(1).stride, f.sequence)) }
        }
        var n = 0
        for _ in 0..<200 where n < 4 { usleep(10_000); n = seen.withLock { $0.count } }
        try cap.stop()
        let frames = seen.withLock { $0 }
        #expect(frames.count >= 4)
        for f in frames { #expect(f.0 == 320 && f.1 == 240 && f.2 == 320 && f.3 == 160) }
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.4 < $1.4 })
        let fmt = try #require(cap.format)
        #expect(fmt.width == 640 && fmt.height == 480 && fmt.outputWidth == 320 && fmt.outputHeight == 240
                && fmt.strides == [320, 160, 160] && fmt.frameBytes == 320 * 240 * 3 / 2)
        // A size more than 4x the captured one fails at start; the capturer still works.
        #expect(throws: CamError.self) {
            try cap.start(CaptureRequest(fourcc: .yuyv, width: 64, height: 48, output: .i420,
                                         outputWidth: 640, outputHeight: 480)) { _ in }
        }
        try cap.start(CaptureRequest(fourcc: .yuyv, width: 64, height: 48, output: .i420)) { _ in }
        try cap.stop()
    }
}
