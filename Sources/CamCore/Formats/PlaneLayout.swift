// SPDX-License-Identifier: MIT
/// Where the logical planes of a pixel format sit in one memory buffer.
/// Formats such as I420 and NV12 come in one V4L2 buffer; frames split
/// them so that plane 1 of I420 is always its U plane (SPEC S22). The
/// planes, strides and rows come from PixelFormatTable.
enum PlaneLayout {
    /// The chroma planes after the first plane of a frame held in one
    /// buffer, without allocating: (count, stride of plane 1 and 2 for a
    /// luma stride, height divisor). 0 planes for packed, compressed,
    /// unknown and multi-planar (one buffer per plane) formats.
    ///
    /// 4:4:4 formats in one buffer (NV24, NV42) are not split (count 0), as
    /// before the table: their frames keep one plane and the converter
    /// splits them itself (PixelConverter.inputImage). Splitting them would
    /// change the planes such frames carry: a change of behaviour of its own.
    @inline(__always)
    static func chroma(_ f: FourCC) -> (count: Int, info: PixelFormatInfo?, heightDivisor: Int) {
        guard let info = PixelFormatTable.info(f), info.memoryPlaneCount == 1, info.planeCount > 1,
              info.horizontalSubsampling != 1 || info.verticalSubsampling != 1,
              let g = info.plane(1) else { return (0, nil, 1) }
        return (info.planeCount - 1, info, g.verticalSubsampling)
    }

    /// How one format at one luma stride splits into planes, worked out
    /// once per stream from the table (`for(_:stride:)`), so the frame
    /// path does arithmetic only: no table lookup per frame.
    struct Split: Sendable {
        /// Chroma planes after the luma plane (0: one plane).
        let chromaCount: Int
        /// Bytes per row of the luma plane and of each chroma plane.
        let stride: Int
        let chromaStride: Int
        /// Luma rows per chroma row.
        let heightDivisor: Int
    }

    /// The split of `f` at luma stride `stride` (see `chroma`).
    static func split(for f: FourCC, stride: Int) -> Split {
        let c = chroma(f)
        guard c.count > 0, stride != 0, let info = c.info else {
            return Split(chromaCount: 0, stride: stride, chromaStride: 0, heightDivisor: 1)
        }
        return Split(chromaCount: c.count, stride: stride,
                     chromaStride: info.contiguousStride(plane: 1, lumaStride: stride), heightDivisor: c.heightDivisor)
    }

    /// Splits one buffer holding a whole frame into its planes.
    /// `used` is the bytes the driver filled; a plane is cut short (and
    /// the frame should be flagged corrupted) when `used` is too small.
    /// On the frame path: no allocation, no lookup.
    @inline(__always)
    static func split(_ l: Split, base: UnsafeMutableRawPointer, used: Int,
                      height: Int) -> (planes: (Plane, Plane, Plane), count: Int, complete: Bool) {
        let stride = l.stride
        let lumaBytes = stride * height
        if l.chromaCount == 0 {
            return ((Plane(base: base, stride: stride, length: used), .empty, .empty), 1,
                    used > 0 && used >= lumaBytes)
        }
        let cs = l.chromaStride
        let rows = (height + l.heightDivisor - 1) / l.heightDivisor
        let chromaBytes = cs * rows
        let y = Plane(base: base, stride: stride, length: min(used, lumaBytes))
        let p1 = Plane(base: base + lumaBytes, stride: cs, length: max(0, min(used - lumaBytes, chromaBytes)))
        if l.chromaCount == 1 {
            return ((y, p1, .empty), 2, used >= lumaBytes + chromaBytes)
        }
        let off2 = lumaBytes + chromaBytes
        let p2 = Plane(base: base + off2, stride: cs, length: max(0, min(used - off2, chromaBytes)))
        return ((y, p1, p2), 3, used >= off2 + chromaBytes)
    }

    /// `split(split(for: f, stride: stride), …)` in one call, for callers
    /// off the frame path.
    static func split(_ f: FourCC, base: UnsafeMutableRawPointer, used: Int, stride: Int,
                      height: Int) -> (planes: (Plane, Plane, Plane), count: Int, complete: Bool) {
        split(split(for: f, stride: stride), base: base, used: used, height: height)
    }

    /// Bytes per row of each plane a capture of this format in one buffer
    /// uses; used by the synthetic camera and to describe strides.
    static func strides(_ f: FourCC, stride: Int) -> [Int] {
        let c = chroma(f)
        guard let info = c.info else { return [stride] }
        return [stride] + Array(repeating: info.contiguousStride(plane: 1, lumaStride: stride), count: c.count)
    }
}
