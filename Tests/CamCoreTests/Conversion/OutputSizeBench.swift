// SPDX-License-Identifier: MIT
import CTurboJPEG
import CYuv
import Testing
@testable import CamCore
#if canImport(Glibc)
import Glibc
#endif

// SPEC S38 bench (issue 14 item 3): 1920x1080 4:2:2 MJPEG -> 640x360 I420.
// Run by bench/run (host part) with CAMCORE_BENCH_S38=<jsonl file>; one
// JSON line per variant and round. Not a test otherwise (disabled).
//
// Variants, interleaved round by round, thread CPU time per frame:
//   camcore  PixelConverter with an output size (DCT 1/2 decode + scale)
//   full     TurboJPEG full-size 4:2:2 decode + libyuv ScalePlane per plane
//            straight to 640x360 I420 (the cheapest full-size route)
//   direct   TurboJPEG 1/2 decode + ScalePlane, called here: what camcore
//            does, without camcore (its overhead check)
// With CAMCORE_BENCH_S38_CALLGRIND=1 each variant runs once for a few
// frames in its own function, for callgrind --toggle-collect/--dump-after.

enum S38Bench {
    static let w = 1920, h = 1080, ow = 640, oh = 360

    static func threadNs() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Planes of TurboJPEG's decode at `dw`×`dh` (4:2:2) and an I420 output.
    final class Work {
        let jpeg: [UInt8]
        let tj = tjInitDecompress()
        let y: UnsafeMutablePointer<UInt8>, u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>
        let out: UnsafeMutablePointer<UInt8>
        init(_ jpeg: [UInt8]) {
            self.jpeg = jpeg
            // 64-byte aligned, as camcore's own scratch is.
            func buffer(_ n: Int) -> UnsafeMutablePointer<UInt8> {
                UnsafeMutableRawPointer.allocate(byteCount: n, alignment: 64).bindMemory(to: UInt8.self, capacity: n)
            }
            y = buffer(w * h); u = buffer(w * h / 2); v = buffer(w * h / 2)
            out = buffer(ow * oh * 3 / 2)
        }
        deinit { tjDestroy(tj); y.deallocate(); u.deallocate(); v.deallocate(); out.deallocate() }

        /// Decode at `dw`×`dh`, then scale each plane to 640x360 I420.
        func decodeAndScale(_ dw: Int32, _ dh: Int32) {
            let cw = tjPlaneWidth(1, dw, Int32(TJSAMP_422.rawValue))
            var planes: [UnsafeMutablePointer<UInt8>?] = [y, u, v]
            var strides: [Int32] = [dw, cw, cw]
            // As an app would: read the header, then decode (camcore's flags).
            var jw: Int32 = 0, jh: Int32 = 0, ss: Int32 = 0, cs: Int32 = 0
            let rc = jpeg.withUnsafeBufferPointer { j in
                _ = tjDecompressHeader3(tj, j.baseAddress, UInt(j.count), &jw, &jh, &ss, &cs)
                return tjDecompressToYUVPlanes(tj, j.baseAddress, UInt(j.count), &planes, dw, &strides, dh,
                                               CC_TJFLAG_LIMITSCANS)
            }
            precondition(rc == 0)
            let OW = Int32(ow), OH = Int32(oh)
            ScalePlane(y, dw, dw, dh, out, OW, OW, OH, kFilterBox)
            ScalePlane(u, cw, cw, dh, out + ow * oh, OW / 2, OW / 2, OH / 2, kFilterBox)
            ScalePlane(v, cw, cw, dh, out + ow * oh * 5 / 4, OW / 2, OW / 2, OH / 2, kFilterBox)
        }
    }

    @inline(never) static func s38CamcoreRound(_ c: PixelConverter, _ f: Frame, _ out: UnsafeMutableRawPointer, _ n: Int) {
        for _ in 0..<n { precondition(c.convert(f, into: out)) }
    }
    @inline(never) static func s38FullRound(_ work: Work, _ n: Int) {
        for _ in 0..<n { work.decodeAndScale(Int32(w), Int32(h)) }
    }
    @inline(never) static func s38DirectRound(_ work: Work, _ n: Int) {
        for _ in 0..<n { work.decodeAndScale(Int32(w / 2), Int32(h / 2)) }
    }
}

struct OutputSizeBench {
    @Test(.enabled(if: getenv("CAMCORE_BENCH_S38") != nil))
    func bench_S38_mjpeg_1080p_422_to_640x360() throws {
        let path = String(cString: getenv("CAMCORE_BENCH_S38"))
        let callgrind = getenv("CAMCORE_BENCH_S38_CALLGRIND") != nil
        let (w, h, ow, oh) = (S38Bench.w, S38Bench.h, S38Bench.ow, S38Bench.oh)
        // A camera-like picture (texture and a little noise), q85, 4:2:2 as UVC webcams send.
        let jpeg = PixelConverterTests.jpeg(PixelConverterTests.picture(w, h, noise: 3), w, h,
                                            subsamp: TJSAMP_422, quality: 85)
        let src = TestBytes(jpeg)
        defer { withExtendedLifetime(src) {} }
        let frame = testFrame(.mjpeg, w, h, [Plane(base: src.raw, stride: 0, length: jpeg.count)])
        let c = try PixelConverter(source: .mjpeg, width: w, height: h, target: .i420, outputWidth: ow, outputHeight: oh)
        // 64-byte aligned, as the capturer's output buffers are.
        let outRaw = UnsafeMutableRawPointer.allocate(byteCount: c.outputBytes, alignment: 64)
        defer { outRaw.deallocate() }
        let out = (raw: outRaw, p: outRaw.bindMemory(to: UInt8.self, capacity: c.outputBytes))
        let work = S38Bench.Work(jpeg)
        let file = fopen(path, "a")
        defer { if let file { fclose(file) } }
        func emit(_ name: String, _ run: Int, _ body: String) {
            let line = "{\"bench\": \"\(name)\", \"run\": \(run), \"result\": {\(body)}}\n"
            if let file { fputs(line, file) } else { print(line, terminator: "") }
        }
        if callgrind {
            // One call each, in this order: camcore, full, direct (dumps 1, 2, 3).
            let n = 5
            S38Bench.s38CamcoreRound(c, frame, out.raw, n)
            S38Bench.s38FullRound(work, n)
            S38Bench.s38DirectRound(work, n)
            emit("s38-callgrind-frames", 1, "\"frames\": \(n)")
            return
        }
        // Same bytes: camcore's output is the direct route's.
        S38Bench.s38CamcoreRound(c, frame, out.raw, 1)
        S38Bench.s38DirectRound(work, 1)
        let same = memcmp(out.p, work.out, c.outputBytes) == 0
        #expect(same)
        let rounds = Int(getenv("CAMCORE_BENCH_S38_ROUNDS").map { String(cString: $0) } ?? "") ?? 15
        let frames = 20
        for _ in 0..<3 {  // warm-up: caches, libjpeg's pools, page faults
            S38Bench.s38CamcoreRound(c, frame, out.raw, 2); S38Bench.s38FullRound(work, 2); S38Bench.s38DirectRound(work, 2)
        }
        let route = c.route.joined(separator: " + ")
        for r in 1...rounds {
            // Interleaved: every round measures all three, rotating which goes first.
            for k in 0..<3 {
                let which = (r + k) % 3
                let t0 = S38Bench.threadNs()
                switch which {
                case 0: S38Bench.s38CamcoreRound(c, frame, out.raw, frames)
                case 1: S38Bench.s38FullRound(work, frames)
                default: S38Bench.s38DirectRound(work, frames)
                }
                let ns = Double(S38Bench.threadNs() - t0) / Double(frames)
                let name = ["s38-camcore", "s38-full", "s38-direct"][which]
                emit(name, r, "\"cpu_ns_per_frame\": \(ns), \"frames\": \(frames), \"jpeg_bytes\": \(jpeg.count), \"route\": \"\(route)\", \"same_bytes\": \(same)")
            }
        }
    }
}
