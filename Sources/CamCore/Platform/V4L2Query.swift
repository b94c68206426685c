// SPDX-License-Identifier: MIT
internal import CV4L2
#if canImport(Glibc)
import Glibc
#endif

/// Read-only V4L2 queries: capabilities, formats, sizes, rates, the camera
/// orientation. Each takes an open node and opens nothing (SPEC S3).
enum V4L2Query {
    struct Capabilities {
        var driver: String
        var card: String
        var busInfo: String
        /// device_caps when the driver sets V4L2_CAP_DEVICE_CAPS, else capabilities.
        var deviceCaps: UInt32
    }

    static func capabilities(_ node: V4L2Node) throws(CamError) -> Capabilities {
        var cap = v4l2_capability()
        try node.ioctl(CC_VIDIOC_QUERYCAP, &cap, "VIDIOC_QUERYCAP")
        let caps = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? cap.device_caps : cap.capabilities
        return Capabilities(driver: cString(&cap.driver), card: cString(&cap.card),
                            busInfo: cString(&cap.bus_info), deviceCaps: caps)
    }

    /// True for a node that captures video (S1): VIDEO_CAPTURE or
    /// VIDEO_CAPTURE_MPLANE, and not memory-to-memory or touch.
    /// V4L2_CAP_IO_MC: the node's input and format are set up through the
    /// media controller (a media-pipeline camera, S40), not by its user.
    static func isMediaControllerCentric(_ caps: UInt32) -> Bool { caps & UInt32(V4L2_CAP_IO_MC) != 0 }

    /// V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE, as `bufferType` gives it.
    static let multiplanarType = V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue

    static func isVideoCapture(_ caps: UInt32) -> Bool {
        let capture = UInt32(V4L2_CAP_VIDEO_CAPTURE) | UInt32(V4L2_CAP_VIDEO_CAPTURE_MPLANE)
        let excluded = UInt32(V4L2_CAP_VIDEO_M2M) | UInt32(V4L2_CAP_VIDEO_M2M_MPLANE) | UInt32(V4L2_CAP_TOUCH)
        return caps & capture != 0 && caps & excluded == 0
    }

    /// The buffer type to use: single-planar when the node offers it.
    static func bufferType(_ caps: UInt32) -> UInt32 {
        caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0
            ? V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue : V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue
    }

    struct PixelFormat {
        var fourcc: FourCC
        var description: String
        var flags: UInt32
    }

    /// VIDIOC_ENUM_FMT from index 0 until EINVAL (at most 256 entries), in
    /// the driver's order; `body` returns false to stop early. The one walk
    /// of the format list the queries below share.
    private static func walkFormats(_ node: V4L2Node, type: UInt32, _ body: (inout v4l2_fmtdesc) -> Bool) {
        var index: UInt32 = 0
        while index < 256 {
            var d = v4l2_fmtdesc()
            d.index = index
            d.type = type
            if node.ioctlErrno(CC_VIDIOC_ENUM_FMT, &d) != 0 || !body(&d) { return }
            index += 1
        }
    }

    /// Whether the node lists any pixel format (one VIDIOC_ENUM_FMT).
    static func hasPixelFormat(_ node: V4L2Node, type: UInt32) -> Bool {
        var any = false
        walkFormats(node, type: type) { _ in any = true; return false }
        return any
    }

    /// Whether the node lists `fourcc`, enumerating only up to it.
    static func hasPixelFormat(_ node: V4L2Node, type: UInt32, _ fourcc: FourCC) -> Bool {
        var found = false
        walkFormats(node, type: type) { d in found = d.pixelformat == fourcc.rawValue; return !found }
        return found
    }

    /// Every pixel format the node lists, in the driver's order.
    static func pixelFormats(_ node: V4L2Node, type: UInt32) -> [PixelFormat] {
        var out: [PixelFormat] = []
        walkFormats(node, type: type) { d in
            out.append(PixelFormat(fourcc: FourCC(rawValue: d.pixelformat),
                                   description: cString(&d.description), flags: d.flags))
            return true
        }
        return out
    }

    /// VIDIOC_ENUM_FRAMESIZES: discrete sizes in driver order, or one range.
    /// Empty when the driver does not implement it.
    static func frameSizes(_ node: V4L2Node, fourcc: FourCC) -> [SizeRange] {
        var out: [SizeRange] = []
        var index: UInt32 = 0
        while index < 1024 {
            var s = v4l2_frmsizeenum()
            s.index = index
            s.pixel_format = fourcc.rawValue
            if node.ioctlErrno(CC_VIDIOC_ENUM_FRAMESIZES, &s) != 0 { break }
            switch s.type {
            case V4L2_FRMSIZE_TYPE_DISCRETE.rawValue:
                out.append(.discrete(width: Int(s.discrete.width), height: Int(s.discrete.height)))
            case V4L2_FRMSIZE_TYPE_STEPWISE.rawValue:
                let w = s.stepwise
                return [.stepwise(minWidth: Int(w.min_width), maxWidth: Int(w.max_width),
                                  stepWidth: Int(w.step_width), minHeight: Int(w.min_height),
                                  maxHeight: Int(w.max_height), stepHeight: Int(w.step_height))]
            default:
                let w = s.stepwise
                return [.continuous(minWidth: Int(w.min_width), maxWidth: Int(w.max_width),
                                    minHeight: Int(w.min_height), maxHeight: Int(w.max_height))]
            }
            index += 1
        }
        return out
    }

    /// VIDIOC_ENUM_FRAMEINTERVALS at one size, as rates.
    static func frameRates(_ node: V4L2Node, fourcc: FourCC, width: Int, height: Int) -> RateRange {
        var rates: [FrameRate] = []
        var index: UInt32 = 0
        while index < 1024 {
            var f = v4l2_frmivalenum()
            f.index = index
            f.pixel_format = fourcc.rawValue
            f.width = UInt32(width)
            f.height = UInt32(height)
            if node.ioctlErrno(CC_VIDIOC_ENUM_FRAMEINTERVALS, &f) != 0 { break }
            switch f.type {
            case V4L2_FRMIVAL_TYPE_DISCRETE.rawValue:
                let r = FrameRate(interval: f.discrete.numerator, f.discrete.denominator)
                if r.isValid { rates.append(r) }
            case V4L2_FRMIVAL_TYPE_STEPWISE.rawValue:
                let s = f.stepwise
                return .stepwise(min: FrameRate(interval: s.max.numerator, s.max.denominator),
                                 max: FrameRate(interval: s.min.numerator, s.min.denominator),
                                 intervalStep: FrameRate(s.step.numerator, s.step.denominator))
            default:
                let s = f.stepwise
                return .continuous(min: FrameRate(interval: s.max.numerator, s.max.denominator),
                                   max: FrameRate(interval: s.min.numerator, s.min.denominator))
            }
            index += 1
        }
        if rates.isEmpty { return .unknown }
        return .discrete(rates.sorted(by: >))
    }

    /// Every format of the node at every size (S5). A driver without
    /// ENUM_FRAMESIZES gets its current size from G_FMT.
    static func formats(_ node: V4L2Node, type: UInt32) -> [FormatDescription] {
        var out: [FormatDescription] = []
        for pf in pixelFormats(node, type: type) {
            var sizes = frameSizes(node, fourcc: pf.fourcc)
            if sizes.isEmpty, let cur = currentSize(node, type: type) {
                sizes = [.discrete(width: cur.width, height: cur.height)]
            }
            for size in sizes {
                let big = size.largest
                out.append(FormatDescription(
                    fourcc: pf.fourcc, description: pf.description,
                    isCompressed: pf.flags & UInt32(V4L2_FMT_FLAG_COMPRESSED) != 0,
                    isEmulated: pf.flags & UInt32(V4L2_FMT_FLAG_EMULATED) != 0,
                    size: size,
                    rates: frameRates(node, fourcc: pf.fourcc, width: big.width, height: big.height)))
            }
        }
        return out
    }

    static func currentSize(_ node: V4L2Node, type: UInt32) -> (width: Int, height: Int)? {
        var f = v4l2_format()
        f.type = type
        if node.ioctlErrno(CC_VIDIOC_G_FMT, &f) != 0 { return nil }
        if type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue {
            return (Int(f.fmt.pix_mp.width), Int(f.fmt.pix_mp.height))
        }
        return (Int(f.fmt.pix.width), Int(f.fmt.pix.height))
    }

    /// V4L2_CID_CAMERA_SENSOR_ROTATION in degrees (0, 90, 180, 270: how
    /// far the sensor is mounted rotated, clockwise), when the driver has it.
    static func sensorRotation(_ node: V4L2Node) -> Int? {
        var c = v4l2_control()
        c.id = CC_V4L2_CID_CAMERA_SENSOR_ROTATION
        if node.ioctlErrno(CC_VIDIOC_G_CTRL, &c) != 0 { return nil }
        return Int(c.value)
    }

    /// V4L2_CID_CAMERA_ORIENTATION, when the driver has it.
    static func orientation(_ node: V4L2Node) -> CameraPosition? {
        var c = v4l2_control()
        c.id = CC_V4L2_CID_CAMERA_ORIENTATION
        if node.ioctlErrno(CC_VIDIOC_G_CTRL, &c) != 0 { return nil }
        switch UInt32(c.value) {
        case UInt32(V4L2_CAMERA_ORIENTATION_FRONT): return .front
        case UInt32(V4L2_CAMERA_ORIENTATION_BACK): return .back
        default: return .external
        }
    }
}

/// A Swift string from a fixed-size C char array (a NUL-terminated tuple).
func cString<T>(_ tuple: inout T) -> String {
    withUnsafeBytes(of: &tuple) { raw in
        let bytes = raw.bindMemory(to: UInt8.self)
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        return String(decoding: bytes[0..<end], as: UTF8.self)
    }
}
