/// Where the logical planes of a pixel format sit in one memory buffer.
/// Formats such as I420 and NV12 come in one V4L2 buffer; frames split
/// them so that plane 1 of I420 is always its U plane (SPEC S22).
enum PlaneLayout {
    /// Bytes per pixel of the first plane, where the format is packed or
    /// planar with 8-bit luma; nil for compressed or unknown formats.
    static func bytesPerPixel(_ f: FourCC) -> Int? {
        switch f {
        case .yuyv, .uyvy, .yvyu, .vyuy: return 2
        case .i420, .yv12, .yuv422p, .nv12, .nv21, .nv16, .nv61, .grey: return 1
        case .rgb24, .bgr24: return 3
        case FourCC("XR24"), FourCC("AR24"), FourCC("RGB4"), FourCC("BGR4"), FourCC("AB24"), FourCC("XB24"): return 4
        case FourCC("RGBP"), FourCC("RGBO"): return 2
        default: return nil
        }
    }

    /// The chroma planes after the first plane, without allocating:
    /// (count, stride divisor, height divisor).
    @inline(__always)
    static func chroma(_ f: FourCC) -> (count: Int, strideDivisor: Int, heightDivisor: Int) {
        switch f.rawValue {
        case FourCC.i420.rawValue, FourCC.yv12.rawValue: return (2, 2, 2)
        case FourCC.yuv422p.rawValue: return (2, 2, 1)
        case FourCC.nv12.rawValue, FourCC.nv21.rawValue: return (1, 1, 2)
        case FourCC.nv16.rawValue, FourCC.nv61.rawValue: return (1, 1, 1)
        default: return (0, 1, 1)
        }
    }

    /// Splits one buffer holding a whole frame into its planes.
    /// `used` is the bytes the driver filled; a plane is cut short (and
    /// the frame should be flagged corrupted) when `used` is too small.
    /// On the frame path: no allocation.
    static func split(_ f: FourCC, base: UnsafeMutableRawPointer, used: Int, stride: Int,
                      height: Int) -> (planes: (Plane, Plane, Plane), count: Int, complete: Bool) {
        let c = chroma(f)
        let lumaBytes = stride * height
        if c.count == 0 || stride == 0 {
            return ((Plane(base: base, stride: stride, length: used), .empty, .empty), 1,
                    used > 0 && used >= lumaBytes)
        }
        let cs = stride / c.strideDivisor
        let rows = (height + c.heightDivisor - 1) / c.heightDivisor
        let chromaBytes = cs * rows
        let y = Plane(base: base, stride: stride, length: min(used, lumaBytes))
        let p1 = Plane(base: base + lumaBytes, stride: cs, length: max(0, min(used - lumaBytes, chromaBytes)))
        if c.count == 1 {
            return ((y, p1, .empty), 2, used >= lumaBytes + chromaBytes)
        }
        let off2 = lumaBytes + chromaBytes
        let p2 = Plane(base: base + off2, stride: cs, length: max(0, min(used - off2, chromaBytes)))
        return ((y, p1, p2), 3, used >= off2 + chromaBytes)
    }

    /// Bytes per row and plane sizes a capture of this format uses; used
    /// by the synthetic camera and to describe strides.
    static func strides(_ f: FourCC, stride: Int) -> [Int] {
        let c = chroma(f)
        return [stride] + Array(repeating: stride / c.strideDivisor, count: c.count)
    }
}
