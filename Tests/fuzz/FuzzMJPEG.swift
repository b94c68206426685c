// SPDX-License-Identifier: MIT
// libFuzzer target for the MJPEG decode path (SPEC S8, S26): each input is
// one MJPEG frame, handed to PixelConverter for every output format.
//
// Why not the public C API: include/camcore.h has no call that runs the
// converter on app-supplied bytes. camcore_session_push_frame delivers the
// pushed frame to the transmission sink as it is (no conversion), the
// capture hook runs after conversion, and a capturer converts only what a
// V4L2 device (or the synthetic camera, which makes no MJPEG) delivers.
// So Tests/fuzz/run compiles this file into the CamCore module itself
// (swiftc -sanitize=fuzzer,address over Sources/CamCore and this file),
// which reaches the same PixelConverter.convert the capture thread calls.
#if canImport(Glibc)
import Glibc
#endif
internal import CTurboJPEG

/// Converters for one frame size, one per output format, kept across
/// inputs like a capture keeps its converter across frames (so state a bad
/// frame leaves behind is exercised too).
private final class Converters {
    let width: Int, height: Int
    let all: [PixelConverter]
    let output: UnsafeMutableRawPointer
    let again: UnsafeMutableRawPointer
    init(_ w: Int, _ h: Int) {
        width = w; height = h
        all = ["YU12", "NV12", "YUYV", "RGB3", "BGR3", "AB24"].map {
            try! PixelConverter(source: .mjpeg, width: w, height: h, target: FourCC($0))
        }
        let bytes = all.map(\.outputBytes).max()!
        output = .allocate(byteCount: bytes, alignment: 64)
        again = .allocate(byteCount: bytes, alignment: 64)
    }
    deinit { output.deallocate(); again.deallocate() }
}

nonisolated(unsafe) private var cache: [Converters] = []
nonisolated(unsafe) private let probe = tjInitDecompress()

/// The size the capture is configured for: the one the JPEG's header names
/// (up to 1 MP, so that decodes stay fast), else 64x48.
private func converters(for jpeg: UnsafePointer<UInt8>, _ size: Int) -> Converters {
    var w: Int32 = 0, h: Int32 = 0, ss: Int32 = 0, cs: Int32 = 0
    _ = tjDecompressHeader3(probe, jpeg, UInt(size), &w, &h, &ss, &cs)
    var (cw, ch) = (Int(w), Int(h))
    if cw < 1 || ch < 1 || cw * ch > 1 << 20 { (cw, ch) = (64, 48) }
    if let i = cache.firstIndex(where: { $0.width == cw && $0.height == ch }) {
        let c = cache.remove(at: i); cache.append(c); return c
    }
    if cache.count >= 6 { cache.removeFirst() }
    let c = Converters(cw, ch)
    cache.append(c)
    return c
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMJPEG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    // The frame in a buffer of exactly its size: a read past it is an ASan report.
    let frameBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
    defer { frameBytes.deallocate() }
    frameBytes.update(from: data, count: size)
    let set = converters(for: frameBytes, size)
    let plane = Plane(base: UnsafeMutableRawPointer(frameBytes), stride: 0, length: size)
    let frame = Frame(fourcc: .mjpeg, width: set.width, height: set.height, planeCount: 1,
                      planes: (plane, .empty, .empty), timestampNs: 0, sequence: 0)
    for c in set.all {
        let ok = c.convert(frame, into: set.output)
        // The verdict and the picture depend on the frame only, not on what
        // the converter saw before (a bad frame costs that frame only).
        let ok2 = c.convert(frame, into: set.again)
        if ok != ok2 { fatalError("\(c.target): the same frame decoded \(ok) then \(ok2)") }
        if ok && memcmp(set.output, set.again, c.outputBytes) != 0 {
            fatalError("\(c.target): the same frame decoded to different pictures")
        }
    }
    return 0
}
