// SPDX-License-Identifier: MIT
/// What camcore knows of one pixel format: its planes, their geometry and
/// its names (model: libcamera's `PixelFormatInfo`). One entry per FourCC
/// in `PixelFormatTable`; plane splitting, conversion, the C ABI (and
/// through it the CLI, the examples and the Python binding) all read it.
///
/// Geometry is given per plane as *groups*: a row of plane `p` is
/// `⌈width / groupPixels⌉` groups of `groupBytes` bytes, and the plane has
/// `⌈height / verticalSubsampling⌉` rows. YUYV is one plane of 4-byte groups
/// of 2 pixels; I420 is Y (1 byte per pixel) then U and V (1 byte per 2×2
/// pixels); NV12 is Y then interleaved CbCr (2 bytes per 2×2 pixels).
package struct PixelFormatInfo: Sendable {
    /// What a format's samples are: YUV (grey counts as luma only), RGB,
    /// or raw Bayer. Compressed formats carry YUV (JPEG, H.264).
    package enum Encoding: UInt8, Sendable, Equatable { case yuv, rgb, bayer }

    /// The geometry of one plane (see the type's doc). Stored in bytes so
    /// that an entry is small to copy on the frame path.
    package struct PlaneGeometry: Sendable, Equatable {
        private let bytes: UInt8, pixels: UInt8, rowsPer: UInt8
        /// Bytes of one group of pixels in a row of this plane.
        package var groupBytes: Int { Int(bytes) }
        /// Pixels of the image's width one group covers.
        package var groupPixels: Int { Int(pixels) }
        /// Image rows per row of this plane.
        package var verticalSubsampling: Int { Int(rowsPer) }

        init(groupBytes: Int, groupPixels: Int, verticalSubsampling: Int) {
            bytes = UInt8(groupBytes); pixels = UInt8(groupPixels); rowsPer = UInt8(verticalSubsampling)
        }
        static let none = PlaneGeometry(groupBytes: 0, groupPixels: 0, verticalSubsampling: 0)
    }

    package let fourcc: FourCC
    /// The kernel's description (VIDIOC_ENUM_FMT), e.g. "Planar YUV 4:2:0".
    package let description: StaticString
    private let planes: (PlaneGeometry, PlaneGeometry, PlaneGeometry)
    private let counts: (planes: UInt8, memoryPlanes: UInt8, h: UInt8, v: UInt8)
    private let compressed: Bool, crFirst: Bool
    /// What the samples are (libcamera's colour encoding).
    package let encoding: Encoding

    /// Logical planes: 1 for packed and compressed formats, 2 for Y + CbCr,
    /// 3 for Y, Cb, Cr (in the frame's plane order: Y, V, U for YV12).
    package var planeCount: Int { Int(counts.planes) }
    /// V4L2 memory planes: 1 for formats held in one buffer (YU12, NV12),
    /// `planeCount` for the multi-planar "N-C" ones (YM12, NM12).
    package var memoryPlaneCount: Int { Int(counts.memoryPlanes) }
    /// MJPEG, JPEG, H.264…: no fixed geometry (every size helper says nil).
    package var isCompressed: Bool { compressed }
    /// Chroma subsampling: 2 and 2 for 4:2:0, 2 and 1 for 4:2:2, 1 and 1
    /// for 4:4:4 and for formats without chroma planes or samples (RGB,
    /// grey, Bayer); 0 and 0 for compressed formats.
    package var horizontalSubsampling: Int { Int(counts.h) }
    package var verticalSubsampling: Int { Int(counts.v) }
    /// Cr comes before Cb (YVYU, YV12, NV21, YM21…).
    package var isCrFirst: Bool { crFirst }

    init(_ fourcc: FourCC, _ description: StaticString, planes: [PlaneGeometry], memoryPlanes: Int = 1,
         subsampling: (Int, Int) = (1, 1), crFirst: Bool = false, compressed: Bool = false,
         encoding: Encoding = .yuv) {
        self.fourcc = fourcc; self.description = description
        let (h, v) = compressed ? (0, 0) : subsampling
        counts = (UInt8(compressed ? 1 : planes.count), UInt8(memoryPlanes), UInt8(h), UInt8(v))
        self.compressed = compressed
        self.crFirst = crFirst
        self.encoding = encoding
        self.planes = (planes.count > 0 ? planes[0] : .none, planes.count > 1 ? planes[1] : .none,
                       planes.count > 2 ? planes[2] : .none)
    }

    /// The name v4l2-ctl prints: "YUYV", "Y16 -BE" (FourCC's description).
    package var name: String { fourcc.description }

    /// Plane `p`'s geometry; nil for compressed formats and past the last plane.
    @inline(__always)
    package func plane(_ p: Int) -> PlaneGeometry? {
        guard !isCompressed, p >= 0, p < planeCount else { return nil }
        switch p {
        case 0: return planes.0
        case 1: return planes.1
        default: return planes.2
        }
    }

    /// Bytes per pixel of plane 0 (2 for YUYV, 1 for I420 and NV12, 3 for
    /// RGB3); nil for compressed formats.
    package var bytesPerPixel: Int? {
        guard let g = plane(0), g.groupBytes % g.groupPixels == 0 else { return nil }
        return g.groupBytes / g.groupPixels
    }

    /// Bytes one tightly packed row of plane `p` holds at `width` pixels.
    @inline(__always)
    package func rowBytes(plane p: Int, width: Int) -> Int? {
        guard let g = plane(p) else { return nil }
        return (width + g.groupPixels - 1) / g.groupPixels * g.groupBytes
    }

    /// Rows of plane `p` at `height` pixels.
    @inline(__always)
    package func rows(plane p: Int, height: Int) -> Int? {
        guard let g = plane(p) else { return nil }
        return (height + g.verticalSubsampling - 1) / g.verticalSubsampling
    }

    /// Bytes of a tightly packed frame, planes one after the other.
    package func frameBytes(width: Int, height: Int) -> Int? {
        guard !isCompressed else { return nil }
        var total = 0
        for p in 0..<planeCount {
            total += rowBytes(plane: p, width: width)! * rows(plane: p, height: height)!
        }
        return total
    }

    /// The stride of plane `p` when the whole frame sits in one buffer whose
    /// plane 0 has `lumaStride` (V4L2's rule: strides scale with bytes per
    /// pixel, so I420's chroma has half the luma stride, NV12's the same and
    /// NV24's twice).
    @inline(__always)
    package func contiguousStride(plane p: Int, lumaStride: Int) -> Int {
        guard p > 0, let g = plane(p), let g0 = plane(0) else { return lumaStride }
        return lumaStride * g.groupBytes * g0.groupPixels / (g.groupPixels * g0.groupBytes)
    }
}

/// Every pixel format camcore knows, keyed by FourCC (model: libcamera's
/// `formats.cpp`). The FourCCs and descriptions are V4L2's
/// (`videodev2.h`, `v4l_fill_fmtdesc`).
package enum PixelFormatTable {
    /// The entry of `fourcc`, or nil when camcore does not know it.
    /// On the frame path: no allocation and no dictionary hashing; a
    /// multiply, a shift, one load and usually one compare.
    @inline(__always)
    package static func info(_ fourcc: FourCC) -> PixelFormatInfo? {
        let raw = fourcc.rawValue
        var slot = Index.slot(raw)
        while true {
            let key = index.keys[slot]
            if key == Index.empty { return nil }
            if UInt32(truncatingIfNeeded: key) == raw { return index.entries[Int(key >> 32)] }
            slot = (slot + 1) & Index.mask
        }
    }

    /// Every entry, grouped by family as in the table below.
    package static var all: [PixelFormatInfo] { index.entries }

    // MARK: - libcamera's pixel formats (DRM FourCCs)

    /// libcamera names pixel formats by DRM FourCC and DRM's byte order:
    /// its BGR888 ('BG24') holds R, G, B in memory, which is V4L2's RGB24
    /// ('RGB3'), and RGB888 ('RG24') is V4L2's BGR24 (libcamera's
    /// formats.cpp pairs them the same way). Formats whose codes mean the
    /// same bytes in both (YUYV, NV12, XR24, AB24, Bayer...) map to
    /// themselves. (DRM code, V4L2 code.)
    private static let drmPairs: [(drm: FourCC, v4l2: FourCC)] = [
        (FourCC("BG24"), .rgb24), (FourCC("RG24"), .bgr24),
        (FourCC("XR24"), FourCC("XR24")), (FourCC("AR24"), FourCC("AR24")),
        (FourCC("XB24"), FourCC("XB24")), (FourCC("AB24"), FourCC("AB24")),
        (FourCC("RX24"), FourCC("RX24")), (FourCC("BX24"), FourCC("BX24")),
        (FourCC("YUYV"), .yuyv), (FourCC("YVYU"), .yvyu), (FourCC("UYVY"), .uyvy), (FourCC("VYUY"), .vyuy),
        (FourCC("NV12"), .nv12), (FourCC("NV21"), .nv21), (FourCC("NV16"), .nv16), (FourCC("NV61"), .nv61),
        (FourCC("NV24"), FourCC("NV24")), (FourCC("NV42"), FourCC("NV42")),
        (FourCC("YU12"), .i420), (FourCC("YV12"), .yv12), (FourCC("YU16"), .yuv422p),
        (FourCC("MJPG"), .mjpeg),
        (FourCC("R8  "), .grey), (FourCC("R10 "), FourCC("Y10 ")), (FourCC("R12 "), FourCC("Y12 ")),
        (FourCC("R16 "), FourCC("Y16 ")),
        (FourCC("BA81"), FourCC("BA81")), (FourCC("GBRG"), FourCC("GBRG")),
        (FourCC("GRBG"), FourCC("GRBG")), (FourCC("RGGB"), FourCC("RGGB")),
    ]

    /// The V4L2 FourCC whose bytes a libcamera (DRM) pixel format holds; nil
    /// for one camcore has no name for.
    package static func v4l2FourCC(drm: FourCC) -> FourCC? { drmPairs.first { $0.drm == drm }?.v4l2 }

    /// The libcamera (DRM) pixel format holding a V4L2 FourCC's bytes.
    package static func drmFourCC(v4l2: FourCC) -> FourCC? { drmPairs.first { $0.v4l2 == v4l2 }?.drm }

    // MARK: - Index

    private static let index = Index(entries)

    /// An open-addressing table built once from `entries`: a FourCC's hash
    /// picks its slot, collisions take the next. Each slot holds the FourCC
    /// (low 32 bits) and its entry number (high bits), so a miss or a hit
    /// reads one word.
    private struct Index: Sendable {
        static let size = 256, mask = size - 1
        static let empty = UInt64.max
        let keys: [UInt64]
        let entries: [PixelFormatInfo]

        /// Fibonacci hashing into 256 slots.
        @inline(__always)
        static func slot(_ raw: UInt32) -> Int { Int((raw &* 0x9E37_79B1) >> 24) }

        init(_ entries: [PixelFormatInfo]) {
            precondition(entries.count < Index.size / 2, "PixelFormatTable: too many entries")
            var keys = [UInt64](repeating: Index.empty, count: Index.size)
            for (i, e) in entries.enumerated() {
                var s = Index.slot(e.fourcc.rawValue)
                while keys[s] != Index.empty {
                    precondition(UInt32(truncatingIfNeeded: keys[s]) != e.fourcc.rawValue,
                                 "PixelFormatTable: \(e.fourcc) twice")
                    s = (s + 1) & Index.mask
                }
                keys[s] = UInt64(i) << 32 | UInt64(e.fourcc.rawValue)
            }
            self.keys = keys
            self.entries = entries
        }
    }

    // MARK: - The table

    private typealias G = PixelFormatInfo.PlaneGeometry

    /// One plane of `bpp` bytes per pixel: RGB, grey, Bayer.
    private static func packed(_ f: FourCC, _ d: StaticString, bpp: Int,
                               _ encoding: PixelFormatInfo.Encoding) -> PixelFormatInfo {
        PixelFormatInfo(f, d, planes: [G(groupBytes: bpp, groupPixels: 1, verticalSubsampling: 1)],
                        encoding: encoding)
    }

    /// Packed 4:2:2: one plane of 4-byte groups of two pixels (Y0 Cb Y1 Cr and orders).
    private static func packed422(_ f: FourCC, _ d: StaticString, crFirst: Bool) -> PixelFormatInfo {
        PixelFormatInfo(f, d, planes: [G(groupBytes: 4, groupPixels: 2, verticalSubsampling: 1)],
                        subsampling: (2, 1), crFirst: crFirst)
    }

    /// Y, Cb and Cr planes (Y, Cr, Cb when `crFirst`), chroma subsampled `h`×`v`.
    private static func planar(_ f: FourCC, _ d: StaticString, _ h: Int, _ v: Int, memoryPlanes: Int = 1,
                               crFirst: Bool = false) -> PixelFormatInfo {
        let chroma = G(groupBytes: 1, groupPixels: h, verticalSubsampling: v)
        return PixelFormatInfo(f, d, planes: [G(groupBytes: 1, groupPixels: 1, verticalSubsampling: 1), chroma, chroma],
                               memoryPlanes: memoryPlanes, subsampling: (h, v), crFirst: crFirst)
    }

    /// A Y plane, then one of interleaved CbCr (CrCb when `crFirst`), subsampled `h`×`v`.
    private static func semiPlanar(_ f: FourCC, _ d: StaticString, _ h: Int, _ v: Int, memoryPlanes: Int = 1,
                                   crFirst: Bool = false) -> PixelFormatInfo {
        PixelFormatInfo(f, d, planes: [G(groupBytes: 1, groupPixels: 1, verticalSubsampling: 1),
                                       G(groupBytes: 2, groupPixels: h, verticalSubsampling: v)],
                        memoryPlanes: memoryPlanes, subsampling: (h, v), crFirst: crFirst)
    }

    private static func compressed(_ f: FourCC, _ d: StaticString) -> PixelFormatInfo {
        PixelFormatInfo(f, d, planes: [], compressed: true)
    }

    private static let entries: [PixelFormatInfo] = [
        // Packed YUV 4:2:2.
        packed422(.yuyv, "YUYV 4:2:2", crFirst: false),
        packed422(.yvyu, "YVYU 4:2:2", crFirst: true),
        packed422(.uyvy, "UYVY 4:2:2", crFirst: false),
        packed422(.vyuy, "VYUY 4:2:2", crFirst: true),
        // Planar YUV, one buffer.
        planar(.i420, "Planar YUV 4:2:0", 2, 2),
        planar(.yv12, "Planar YVU 4:2:0", 2, 2, crFirst: true),
        planar(.yuv422p, "Planar YUV 4:2:2", 2, 1),
        // Planar YUV, one buffer per plane (multi-planar API).
        planar(FourCC("YM12"), "Planar YUV 4:2:0 (N-C)", 2, 2, memoryPlanes: 3),
        planar(FourCC("YM21"), "Planar YVU 4:2:0 (N-C)", 2, 2, memoryPlanes: 3, crFirst: true),
        planar(FourCC("YM16"), "Planar YUV 4:2:2 (N-C)", 2, 1, memoryPlanes: 3),
        planar(FourCC("YM61"), "Planar YVU 4:2:2 (N-C)", 2, 1, memoryPlanes: 3, crFirst: true),
        planar(FourCC("YM24"), "Planar YUV 4:4:4 (N-C)", 1, 1, memoryPlanes: 3),
        planar(FourCC("YM42"), "Planar YVU 4:4:4 (N-C)", 1, 1, memoryPlanes: 3, crFirst: true),
        // Semi-planar YUV, one buffer.
        semiPlanar(.nv12, "Y/CbCr 4:2:0", 2, 2),
        semiPlanar(.nv21, "Y/CrCb 4:2:0", 2, 2, crFirst: true),
        semiPlanar(.nv16, "Y/CbCr 4:2:2", 2, 1),
        semiPlanar(.nv61, "Y/CrCb 4:2:2", 2, 1, crFirst: true),
        semiPlanar(FourCC("NV24"), "Y/CbCr 4:4:4", 1, 1),
        semiPlanar(FourCC("NV42"), "Y/CrCb 4:4:4", 1, 1, crFirst: true),
        // Semi-planar YUV, one buffer per plane.
        semiPlanar(FourCC("NM12"), "Y/CbCr 4:2:0 (N-C)", 2, 2, memoryPlanes: 2),
        semiPlanar(FourCC("NM21"), "Y/CrCb 4:2:0 (N-C)", 2, 2, memoryPlanes: 2, crFirst: true),
        semiPlanar(FourCC("NM16"), "Y/CbCr 4:2:2 (N-C)", 2, 1, memoryPlanes: 2),
        semiPlanar(FourCC("NM61"), "Y/CrCb 4:2:2 (N-C)", 2, 1, memoryPlanes: 2, crFirst: true),
        // Greyscale (10 to 16 bits in 16-bit words).
        packed(.grey, "8-bit Greyscale", bpp: 1, .yuv),
        packed(FourCC("Y10 "), "10-bit Greyscale", bpp: 2, .yuv),
        packed(FourCC("Y12 "), "12-bit Greyscale", bpp: 2, .yuv),
        packed(FourCC("Y14 "), "14-bit Greyscale", bpp: 2, .yuv),
        packed(FourCC("Y16 "), "16-bit Greyscale", bpp: 2, .yuv),
        packed(FourCC(bigEndian: "Y16 "), "16-bit Greyscale BE", bpp: 2, .yuv),
        // 16-bit RGB.
        packed(FourCC("RGBP"), "16-bit RGB 5-6-5", bpp: 2, .rgb),
        packed(FourCC("RGBR"), "16-bit RGB 5-6-5 BE", bpp: 2, .rgb),
        packed(FourCC("RGBO"), "16-bit A/XRGB 1-5-5-5", bpp: 2, .rgb),
        packed(FourCC("RGBQ"), "16-bit A/XRGB 1-5-5-5 BE", bpp: 2, .rgb),
        packed(FourCC("AR15"), "16-bit ARGB 1-5-5-5", bpp: 2, .rgb),
        packed(FourCC("XR15"), "16-bit XRGB 1-5-5-5", bpp: 2, .rgb),
        packed(FourCC("R444"), "16-bit A/XRGB 4-4-4-4", bpp: 2, .rgb),
        packed(FourCC("AR12"), "16-bit ARGB 4-4-4-4", bpp: 2, .rgb),
        packed(FourCC("XR12"), "16-bit XRGB 4-4-4-4", bpp: 2, .rgb),
        // 24-bit RGB.
        packed(.rgb24, "24-bit RGB 8-8-8", bpp: 3, .rgb),
        packed(.bgr24, "24-bit BGR 8-8-8", bpp: 3, .rgb),
        // 32-bit RGB.
        packed(FourCC("AR24"), "32-bit BGRA 8-8-8-8", bpp: 4, .rgb),
        packed(FourCC("XR24"), "32-bit BGRX 8-8-8-8", bpp: 4, .rgb),
        packed(FourCC("AB24"), "32-bit RGBA 8-8-8-8", bpp: 4, .rgb),
        packed(FourCC("XB24"), "32-bit RGBX 8-8-8-8", bpp: 4, .rgb),
        packed(FourCC("BA24"), "32-bit ARGB 8-8-8-8", bpp: 4, .rgb),
        packed(FourCC("BX24"), "32-bit XRGB 8-8-8-8", bpp: 4, .rgb),
        packed(FourCC("RA24"), "32-bit ABGR 8-8-8-8", bpp: 4, .rgb),
        packed(FourCC("RX24"), "32-bit XBGR 8-8-8-8", bpp: 4, .rgb),
        packed(FourCC("BGR4"), "32-bit BGRA/X 8-8-8-8", bpp: 4, .rgb),
        packed(FourCC("RGB4"), "32-bit A/XRGB 8-8-8-8", bpp: 4, .rgb),
        // 8-bit Bayer (one plane; no chroma planes to subsample).
        packed(FourCC("BA81"), "8-bit Bayer BGBG/GRGR", bpp: 1, .bayer),
        packed(FourCC("GBRG"), "8-bit Bayer GBGB/RGRG", bpp: 1, .bayer),
        packed(FourCC("GRBG"), "8-bit Bayer GRGR/BGBG", bpp: 1, .bayer),
        packed(FourCC("RGGB"), "8-bit Bayer RGRG/GBGB", bpp: 1, .bayer),
        // Compressed.
        compressed(.mjpeg, "Motion-JPEG"),
        compressed(.jpeg, "JFIF JPEG"),
        compressed(FourCC("H264"), "H.264"),
        compressed(FourCC("HEVC"), "HEVC"),
    ]
}
