// SPDX-License-Identifier: MIT

/// The memory layouts the converter knows, named as libyuv names them
/// (libyuv's "ARGB" is bytes B, G, R, A in memory). `x…` layouts carry a
/// padding byte or bit where the `a…` ones carry alpha. Each is the layout
/// of one V4L2 format (`fourcc`); its planes, row sizes and rows are that
/// format's entry in PixelFormatTable. Which layout reads which FourCC and
/// which libyuv calls join them is the converter's own routing.
enum PixelLayout: Int, Hashable, CaseIterable, Sendable {
    case i420, i422, i444, nv12, nv21, nv16, nv61, nv24, nv42
    case yuy2, yvyu, uyvy, vyuy, i400
    case raw, rgb24
    case argb, xrgb, abgr, xbgr, bgra, xbgra, rgba, xrgba
    case rgb565, argb1555, xrgb1555, argb4444, xrgb4444

    /// The V4L2 format whose bytes are laid out as this layout.
    var fourcc: FourCC {
        switch self {
        case .i420: return .i420
        case .i422: return .yuv422p
        case .i444: return FourCC("YM24")
        case .nv12: return .nv12
        case .nv21: return .nv21
        case .nv16: return .nv16
        case .nv61: return .nv61
        case .nv24: return FourCC("NV24")
        case .nv42: return FourCC("NV42")
        case .yuy2: return .yuyv
        case .yvyu: return .yvyu
        case .uyvy: return .uyvy
        case .vyuy: return .vyuy
        case .i400: return .grey
        case .raw: return .rgb24            // R G B
        case .rgb24: return .bgr24          // B G R
        case .argb: return FourCC("AR24")   // B G R A
        case .xrgb: return FourCC("XR24")   // B G R X
        case .abgr: return FourCC("AB24")   // R G B A
        case .xbgr: return FourCC("XB24")   // R G B X
        case .bgra: return FourCC("BA24")   // A R G B
        case .xbgra: return FourCC("BX24")  // X R G B
        case .rgba: return FourCC("RA24")   // A B G R
        case .xrgba: return FourCC("RX24")  // X B G R
        case .rgb565: return FourCC("RGBP")
        case .argb1555: return FourCC("AR15")
        case .xrgb1555: return FourCC("XR15")
        case .argb4444: return FourCC("AR12")
        case .xrgb4444: return FourCC("XR12")
        }
    }

    /// The table entry of `fourcc`, resolved once per layout (an array
    /// index on the frame path). Every layout's FourCC is in the table
    /// (PixelFormatTableTests checks it).
    var info: PixelFormatInfo { PixelLayout.infos[rawValue] }
    private static let infos: [PixelFormatInfo] = allCases.map { PixelFormatTable.info($0.fourcc)! }

    /// The layout of a V4L2 source format, and whether its planes 1 and 2 are V, U.
    static func source(_ f: FourCC) -> (PixelLayout, swapUV: Bool)? {
        guard let info = PixelFormatTable.info(f), !info.isCompressed else { return nil }
        if info.planeCount > 1 {
            // (Semi-)planar formats read as the layout of the same planes and
            // subsampling, whether in one buffer or one per plane (YM12 as
            // YU12, NM12 as NV12). Semi-planar layouts differ by chroma
            // order; three-plane ones take Cr-first formats (YV12, YM21,
            // YM61, YM42) with planes 1 and 2 swapped.
            let layout = allCases.first { l in
                let i = l.info
                return i.planeCount == info.planeCount && i.horizontalSubsampling == info.horizontalSubsampling
                    && i.verticalSubsampling == info.verticalSubsampling
                    && (info.planeCount == 3 ? !i.isCrFirst : i.isCrFirst == info.isCrFirst)
            }
            return layout.map { ($0, info.planeCount == 3 && info.isCrFirst) }
        }
        if let own = allCases.first(where: { $0.fourcc == f }) { return (own, false) }
        // V4L2's older names for the same bytes.
        switch f {
        case FourCC("BGR4"): return (.xrgb, false)      // B G R X
        case FourCC("RGB4"): return (.xbgra, false)     // X R G B
        case FourCC("RGBO"): return (.xrgb1555, false)
        case FourCC("R444"): return (.xrgb4444, false)
        default: return nil
        }
    }

    /// The layout of an output format (SPEC S8's list).
    static func target(_ f: FourCC) -> PixelLayout? {
        let targets: [PixelLayout] = [.i420, .nv12, .yuy2, .raw, .rgb24, .abgr]
        return targets.first { $0.fourcc == f }
    }

    var planeCount: Int { info.planeCount }

    /// Bytes one row of plane `i` needs at `width` pixels.
    func rowBytes(_ i: Int, _ width: Int) -> Int { info.rowBytes(plane: i, width: width) ?? 0 }

    /// Rows of plane `i` at `height` pixels.
    func rows(_ i: Int, _ height: Int) -> Int { info.rows(plane: i, height: height) ?? 0 }

    /// Chroma stride of a frame in one buffer whose luma stride is `s`
    /// (V4L2's rule, as PlaneLayout applies it).
    func contiguousChromaStride(_ s: Int) -> Int { info.contiguousStride(plane: 1, lumaStride: s) }

    /// Bytes of a tightly packed image.
    func bytes(_ w: Int, _ h: Int) -> Int { info.frameBytes(width: w, height: h) ?? 0 }

    /// A tightly packed image at `base`.
    func image(_ base: UnsafeMutableRawPointer, _ w: Int, _ h: Int) -> PixelImage {
        let b = base.assumingMemoryBound(to: UInt8.self)
        var image = PixelImage(p0: b, s0: Int32(rowBytes(0, w)))
        if planeCount > 1 {
            let o1 = rowBytes(0, w) * rows(0, h)
            image.p1 = b + o1; image.s1 = Int32(rowBytes(1, w))
            if planeCount > 2 {
                image.p2 = b + o1 + rowBytes(1, w) * rows(1, h); image.s2 = Int32(rowBytes(2, w))
            }
        }
        return image
    }

    var isRGB: Bool { info.encoding == .rgb }

    /// Chroma samples per 2×2 pixels: 4 for 4:4:4 and RGB, 2 for 4:2:2, 1 for 4:2:0.
    var chromaResolution: Int {
        if self == .i400 { return 0 }
        return 4 / (info.horizontalSubsampling * info.verticalSubsampling)
    }

    /// The alpha layout's padding twin, and back.
    var withoutAlpha: PixelLayout? {
        switch self {
        case .argb: return .xrgb
        case .abgr: return .xbgr
        case .bgra: return .xbgra
        case .rgba: return .xrgba
        case .argb1555: return .xrgb1555
        case .argb4444: return .xrgb4444
        default: return nil
        }
    }
}
