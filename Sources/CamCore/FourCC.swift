/// A V4L2 pixel format code: four ASCII characters packed little-endian
/// (`v4l2_fourcc('Y','U','Y','V')`).
public struct FourCC: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// From its four characters, e.g. `FourCC("YUYV")`. Shorter strings are
    /// padded with spaces; characters past the fourth are ignored.
    public init(_ text: String) {
        var value: UInt32 = 0
        var bytes = Array(text.utf8.prefix(4))
        while bytes.count < 4 { bytes.append(0x20) }
        for (i, b) in bytes.enumerated() { value |= UInt32(b) << (8 * UInt32(i)) }
        rawValue = value
    }

    /// The four characters (V4L2's big-endian flag bit is shown as "-BE").
    public var description: String {
        var chars: [Character] = []
        for i in 0..<4 {
            let b = UInt8((rawValue >> (8 * UInt32(i))) & 0x7f)
            chars.append(b >= 0x20 && b < 0x7f ? Character(Unicode.Scalar(b)) : "?")
        }
        return String(chars) + (rawValue & 0x8000_0000 != 0 ? "-BE" : "")
    }

    public static let yuyv = FourCC("YUYV")
    public static let uyvy = FourCC("UYVY")
    public static let yvyu = FourCC("YVYU")
    public static let vyuy = FourCC("VYUY")
    /// I420: planar 4:2:0, Y, U, V (V4L2 "YU12").
    public static let i420 = FourCC("YU12")
    /// YV12: planar 4:2:0, Y, V, U.
    public static let yv12 = FourCC("YV12")
    public static let nv12 = FourCC("NV12")
    public static let nv21 = FourCC("NV21")
    public static let nv16 = FourCC("NV16")
    public static let nv61 = FourCC("NV61")
    /// Planar 4:2:2 (V4L2 "422P").
    public static let yuv422p = FourCC("422P")
    public static let grey = FourCC("GREY")
    public static let rgb24 = FourCC("RGB3")
    public static let bgr24 = FourCC("BGR3")
    public static let mjpeg = FourCC("MJPG")
    public static let jpeg = FourCC("JPEG")
}
