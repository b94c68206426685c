// SPDX-License-Identifier: MIT
internal import CYuv
#if canImport(Glibc)
import Glibc
#endif

/// Turns converted output upright (SPEC S45): the picture of a sensor
/// mounted rotated, rotated back by 90, 180 or 270 degrees clockwise with
/// libyuv, after conversion and scaling, into the delivered buffer. 90 and
/// 270 swap width and height. Outputs: YU12 (I420Rotate), NV12 (through
/// I420: NV12ToI420Rotate, I420ToNV12), AB24 (4-byte pixels: ARGBRotate),
/// RGB3/BGR3 (through 4-byte pixels: RGB24ToARGB, ARGBRotate,
/// ARGBToRGB24, which give back the same three bytes). YUYV cannot be
/// turned by 90 degrees without resampling its chroma: refused.
final class OutputRotator: @unchecked Sendable {
    let target: FourCC
    let degrees: Int
    /// The size before and after turning, pixels.
    let width: Int, height: Int
    let outputWidth: Int, outputHeight: Int
    /// What conversion writes before turning (`width`×`height`, packed).
    let scratch: UnsafeMutableRawPointer
    /// A second scratch (I420 or 4-byte pixels) for the formats turned through another one.
    private let between: UnsafeMutableRawPointer?
    private let between2: UnsafeMutableRawPointer?

    /// The formats camcore turns.
    static let formats: [FourCC] = [.i420, .nv12, .rgb24, .bgr24, FourCC("AB24")]

    /// Checks the angle and the format before any device is touched.
    static func check(_ degrees: Int, output: FourCC?) throws(CamError) {
        guard degrees != 0 else { return }
        guard [90, 180, 270].contains(degrees) else {
            throw .invalidArgument("output rotation \(degrees) is not 0, 90, 180 or 270 degrees")
        }
        guard let output else {
            throw .invalidArgument("output rotation \(degrees) needs an output format (I420, NV12, RGB24, BGR24, RGBA): camcore turns only what it converts")
        }
        guard formats.contains(output) else {
            throw .invalidArgument("output rotation: \(output) cannot be turned (YUYV's chroma covers 2 pixels of a row); ask I420, NV12, RGB24, BGR24 or RGBA")
        }
    }

    init(target: FourCC, width: Int, height: Int, degrees: Int) throws(CamError) {
        try Self.check(degrees, output: target)
        self.target = target; self.degrees = degrees
        self.width = width; self.height = height
        (outputWidth, outputHeight) = degrees == 180 ? (width, height) : (height, width)
        func alloc(_ n: Int) throws(CamError) -> UnsafeMutableRawPointer {
            var m: UnsafeMutableRawPointer?
            guard posix_memalign(&m, 64, max(n, 1)) == 0, let m else {
                throw .noMemory("output rotation: \(n) bytes of scratch")
            }
            return m
        }
        scratch = try alloc(Self.bytes(target, width, height))
        switch target {
        case .nv12: between = try alloc(Self.bytes(.i420, width, height)); between2 = nil
        case .rgb24, .bgr24: between = try alloc(width * height * 4); between2 = try alloc(width * height * 4)
        default: between = nil; between2 = nil
        }
    }

    deinit {
        free(scratch)
        if let between { free(between) }
        if let between2 { free(between2) }
    }

    /// Bytes of a packed `format` frame of w×h (the layouts PixelConverter writes).
    static func bytes(_ format: FourCC, _ w: Int, _ h: Int) -> Int {
        let cw = (w + 1) / 2, ch = (h + 1) / 2
        switch format {
        case .i420: return w * h + 2 * cw * ch
        case .nv12: return w * h + 2 * cw * ch
        case .rgb24, .bgr24: return 3 * w * h
        default: return 4 * w * h
        }
    }

    /// I420 plane pointers of a packed w×h image at `p`.
    private static func i420(_ p: UnsafeMutableRawPointer, _ w: Int, _ h: Int)
        -> (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, Int32, Int32) {
        let cw = (w + 1) / 2, ch = (h + 1) / 2
        let y = p.assumingMemoryBound(to: UInt8.self)
        return (y, y + w * h, y + w * h + cw * ch, Int32(w), Int32(cw))
    }

    /// Turns `scratch` into `destination` (packed, `outputWidth`×`outputHeight`).
    /// False when libyuv refused (it does not for the sizes camcore checked).
    func rotate(into destination: UnsafeMutableRawPointer) -> Bool {
        let mode = RotationMode(rawValue: UInt32(degrees))
        let w = Int32(width), h = Int32(height)
        let ow = outputWidth, oh = outputHeight
        switch target {
        case .i420:
            let s = Self.i420(scratch, width, height), d = Self.i420(destination, ow, oh)
            return I420Rotate(s.0, s.3, s.1, s.4, s.2, s.4, d.0, d.3, d.1, d.4, d.2, d.4, w, h, mode) == 0
        case .nv12:
            guard let between else { return false }
            let y = scratch.assumingMemoryBound(to: UInt8.self)
            let uvStride = Int32(((width + 1) / 2) * 2)
            let t = Self.i420(between, ow, oh)
            guard NV12ToI420Rotate(y, w, y + width * height, uvStride, t.0, t.3, t.1, t.4, t.2, t.4, w, h, mode) == 0 else {
                return false
            }
            let dy = destination.assumingMemoryBound(to: UInt8.self)
            return I420ToNV12(t.0, t.3, t.1, t.4, t.2, t.4, dy, Int32(ow), dy + ow * oh, Int32(((ow + 1) / 2) * 2),
                              Int32(ow), Int32(oh)) == 0
        case .rgb24, .bgr24:
            guard let between, let between2 else { return false }
            let a = between.assumingMemoryBound(to: UInt8.self), b = between2.assumingMemoryBound(to: UInt8.self)
            guard RGB24ToARGB(scratch.assumingMemoryBound(to: UInt8.self), 3 * w, a, 4 * w, w, h) == 0,
                  ARGBRotate(a, 4 * w, b, Int32(4 * ow), w, h, mode) == 0 else { return false }
            return ARGBToRGB24(b, Int32(4 * ow), destination.assumingMemoryBound(to: UInt8.self), Int32(3 * ow),
                               Int32(ow), Int32(oh)) == 0
        default:
            return ARGBRotate(scratch.assumingMemoryBound(to: UInt8.self), 4 * w,
                              destination.assumingMemoryBound(to: UInt8.self), Int32(4 * ow), w, h, mode) == 0
        }
    }
}
