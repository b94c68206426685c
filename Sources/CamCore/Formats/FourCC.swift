// SPDX-License-Identifier: MIT
/// A V4L2 pixel format code: four ASCII characters packed little-endian
/// (`v4l2_fourcc('Y','U','Y','V')`).
package struct FourCC: Hashable, Sendable, CustomStringConvertible {
    package var rawValue: UInt32

    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// From its four characters, e.g. `FourCC("YUYV")`. Shorter strings are
    /// padded with spaces; characters past the fourth are ignored.
    package init(_ text: String) {
        var value: UInt32 = 0
        var bytes = Array(text.utf8.prefix(4))
        while bytes.count < 4 { bytes.append(0x20) }
        for (i, b) in bytes.enumerated() { value |= UInt32(b) << (8 * UInt32(i)) }
        rawValue = value
    }

    /// V4L2's big-endian variant of a format (`v4l2_fourcc_be`): bit 31 set,
    /// e.g. `FourCC(bigEndian: "Y16 ")` is V4L2_PIX_FMT_Y16_BE.
    package init(bigEndian text: String) {
        self.init(rawValue: FourCC(text).rawValue | FourCC.bigEndianBit)
    }

    /// V4L2 sets bit 31 of a FourCC for the big-endian variant of a format.
    package static let bigEndianBit: UInt32 = 0x8000_0000

    /// The name of the format as v4l2-ctl (and the kernel) prints it: the
    /// four characters, "-BE" appended for the big-endian bit ("Y16 -BE").
    /// The one naming function: PixelFormatInfo.name and the C ABI's
    /// camcore_pixel_format_info.name are this.
    package var description: String {
        var chars: [Character] = []
        for i in 0..<4 {
            let b = UInt8((rawValue >> (8 * UInt32(i))) & 0x7f)
            chars.append(b >= 0x20 && b < 0x7f ? Character(Unicode.Scalar(b)) : "?")
        }
        return String(chars) + (rawValue & FourCC.bigEndianBit != 0 ? "-BE" : "")
    }

    package static let yuyv = FourCC(rawValue: 0x56595559) // "YUYV"
    package static let uyvy = FourCC(rawValue: 0x59565955) // "UYVY"
    package static let yvyu = FourCC(rawValue: 0x55595659) // "YVYU"
    package static let vyuy = FourCC(rawValue: 0x59555956) // "VYUY"
    /// I420: planar 4:2:0, Y, U, V (V4L2 "YU12").
    package static let i420 = FourCC(rawValue: 0x32315559) // "YU12"
    /// YV12: planar 4:2:0, Y, V, U.
    package static let yv12 = FourCC(rawValue: 0x32315659) // "YV12"
    package static let nv12 = FourCC(rawValue: 0x3231564E) // "NV12"
    package static let nv21 = FourCC(rawValue: 0x3132564E) // "NV21"
    package static let nv16 = FourCC(rawValue: 0x3631564E) // "NV16"
    package static let nv61 = FourCC(rawValue: 0x3136564E) // "NV61"
    /// Planar 4:2:2 (V4L2 "422P").
    package static let yuv422p = FourCC(rawValue: 0x50323234) // "422P"
    package static let grey = FourCC(rawValue: 0x59455247) // "GREY"
    package static let rgb24 = FourCC(rawValue: 0x33424752) // "RGB3"
    package static let bgr24 = FourCC(rawValue: 0x33524742) // "BGR3"
    package static let mjpeg = FourCC(rawValue: 0x47504A4D) // "MJPG"
    package static let jpeg = FourCC(rawValue: 0x4745504A) // "JPEG"

    /// MJPEG or JPEG: frames are whole JPEG images (S26's truncation check,
    /// the TurboJPEG decode path).
    package var isJPEG: Bool { self == .mjpeg || self == .jpeg }
}
