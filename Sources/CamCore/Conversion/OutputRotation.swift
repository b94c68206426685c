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
    /// The target's packed layout (PixelConverter's), for sizes and planes.
    private let layout: PixelLayout
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
        // The layouts PixelConverter writes (checked: a turnable target has one).
        let layout = PixelLayout.target(target)!
        self.layout = layout
        var sizes = [layout.bytes(width, height)]
        switch target {
        case .nv12: sizes.append(PixelLayout.i420.bytes(width, height))
        case .rgb24, .bgr24: sizes += [PixelLayout.argb.bytes(width, height), PixelLayout.argb.bytes(width, height)]
        default: break
        }
        var got: [UnsafeMutableRawPointer] = []
        do throws(CamError) {
            for n in sizes { got.append(try alloc(n)) }
        } catch {
            for p in got { free(p) }   // none left behind by a failed init
            throw error
        }
        scratch = got[0]
        between = got.count > 1 ? got[1] : nil
        between2 = got.count > 2 ? got[2] : nil
    }

    deinit {
        free(scratch)
        if let between { free(between) }
        if let between2 { free(between2) }
    }

    /// Turns `scratch` into `destination` (packed, `outputWidth`×`outputHeight`).
    /// False when libyuv refused (it does not for the sizes camcore checked).
    func rotate(into destination: UnsafeMutableRawPointer) -> Bool {
        let mode = RotationMode(rawValue: UInt32(degrees))
        let w = Int32(width), h = Int32(height)
        let ow = outputWidth, oh = outputHeight
        switch target {
        case .i420:
            let s = layout.image(scratch, width, height), d = layout.image(destination, ow, oh)
            return I420Rotate(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h, mode) == 0
        case .nv12:
            guard let between else { return false }
            let s = layout.image(scratch, width, height), d = layout.image(destination, ow, oh)
            let t = PixelLayout.i420.image(between, ow, oh)
            guard NV12ToI420Rotate(s.p0, s.s0, s.p1, s.s1, t.p0, t.s0, t.p1, t.s1, t.p2, t.s2, w, h, mode) == 0 else {
                return false
            }
            return I420ToNV12(t.p0, t.s0, t.p1, t.s1, t.p2, t.s2, d.p0, d.s0, d.p1, d.s1, Int32(ow), Int32(oh)) == 0
        case .rgb24, .bgr24:
            guard let between, let between2 else { return false }
            let s = layout.image(scratch, width, height), d = layout.image(destination, ow, oh)
            let a = PixelLayout.argb.image(between, width, height), b = PixelLayout.argb.image(between2, ow, oh)
            guard RGB24ToARGB(s.p0, s.s0, a.p0, a.s0, w, h) == 0,
                  ARGBRotate(a.p0, a.s0, b.p0, b.s0, w, h, mode) == 0 else { return false }
            return ARGBToRGB24(b.p0, b.s0, d.p0, d.s0, Int32(ow), Int32(oh)) == 0
        default:
            let s = layout.image(scratch, width, height), d = layout.image(destination, ow, oh)
            return ARGBRotate(s.p0, s.s0, d.p0, d.s0, w, h, mode) == 0
        }
    }
}
