// SPDX-License-Identifier: MIT
import Testing
@testable import CamCore

/// S5/S6: rates are exact fractions; FourCC codes round-trip.
struct ValueTypeTests {
    @Test func test_S6_interval_fraction_stays_exact() {
        // vivid-style odd interval: 12375/742500 s per frame is 60 fps, not 0.
        let r = FrameRate(interval: 12375, 742500)
        #expect(r == FrameRate(60))
        #expect(r.numerator == 60 && r.denominator == 1)
        #expect(r.fps == 60)
        #expect(r.frameDurationNs == 16_666_666)
        #expect(FrameRate(30000, 1001).description == "30000/1001")
        #expect(FrameRate(30000, 1001) < FrameRate(30))
        #expect(FrameRate(interval: 1, 30).interval.numerator == 1)
        #expect(FrameRate(interval: 1, 30).interval.denominator == 30)
        #expect(!FrameRate(0, 1).isValid)
        #expect(!FrameRate(30, 0).isValid)
    }

    @Test func test_S5_fourcc_round_trip() {
        #expect(FourCC("YUYV").rawValue == 0x5659_5559)
        #expect(FourCC.yuyv.description == "YUYV")
        #expect(FourCC.i420.description == "YU12")
        #expect(FourCC(rawValue: 0x3231_564E).description == "NV12")
        #expect(FourCC("RGB").description == "RGB ")
    }

    @Test func test_S17_request_validation() throws {
        try CaptureRequest().validate()
        #expect(throws: CamError.self) { try CaptureRequest(width: 0).validate() }
        #expect(throws: CamError.self) { try CaptureRequest(bufferCount: 1).validate() }
        #expect(throws: CamError.self) { try CaptureRequest(bufferCount: 33).validate() }
        #expect(throws: CamError.self) { try CaptureRequest(frameRate: FrameRate(30, 0)).validate() }
    }

    @Test func test_S26_errno_maps_to_clear_errors() {
        #expect(CamError.fromErrno(16, "x") == .busy("x: Device or resource busy"))
        if case .noDevice = CamError.fromErrno(19, "open") {} else { Issue.record("ENODEV") }
        if case .access = CamError.fromErrno(13, "open") {} else { Issue.record("EACCES") }
        if case .io = CamError.fromErrno(5, "DQBUF") {} else { Issue.record("EIO") }
    }
}

/// S22: one-buffer formats are split into their planes.
final class PlaneLayoutTests {
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 64)
    deinit { buffer.deallocate() }  // one per test: LeakSanitizer (Tests/sanitizers) counts it

    @Test func test_S22_i420_planes() {
        let s = PlaneLayout.split(.i420, base: buffer, used: 640 * 480 * 3 / 2, stride: 640, height: 480)
        #expect(s.count == 3)
        #expect(s.complete)
        #expect(s.planes.0.stride == 640 && s.planes.0.length == 640 * 480)
        #expect(s.planes.1.stride == 320 && s.planes.1.length == 320 * 240)
        #expect(s.planes.1.base == buffer + 640 * 480)
        #expect(s.planes.2.base == buffer + 640 * 480 + 320 * 240)
    }

    @Test func test_S22_nv12_chroma_has_luma_stride_and_padding() {
        // Padded rows: stride 704 for a 640-wide image.
        let s = PlaneLayout.split(.nv12, base: buffer, used: 704 * 480 * 3 / 2, stride: 704, height: 480)
        #expect(s.count == 2)
        #expect(s.planes.1.stride == 704)
        #expect(s.planes.1.base == buffer + 704 * 480)
        #expect(s.planes.1.length == 704 * 240)
    }

    @Test func test_S26_short_buffer_is_incomplete() {
        let packed = PlaneLayout.split(.yuyv, base: buffer, used: 1000, stride: 1280, height: 480)
        #expect(packed.count == 1)
        #expect(!packed.complete)
        let planar = PlaneLayout.split(.i420, base: buffer, used: 640 * 480, stride: 640, height: 480)
        #expect(!planar.complete)
        #expect(planar.planes.1.length == 0)
    }
}

/// S2: stable ids never come from /dev/videoN.
struct DeviceIdentityTests {
    func node(serial: String? = nil, short: String? = nil, path: String? = nil, index: Int = 0,
              usb: Bool = false, removable: String? = nil, name: String? = nil) -> UdevNode {
        UdevNode(syspath: "/sys/x", devnode: "/dev/video7", index: index, idSerial: serial,
                 idSerialShort: short, idPath: path, usbVendorID: 0, usbProductID: 0,
                 removable: removable, isUSB: usb, name: name)
    }

    @Test func test_S2_id_prefers_serial_then_path() {
        #expect(DeviceEnumerator.stableID(node(serial: "Logi_C920_ABC", short: "ABC", path: "pci-0:1"), busInfo: "b")
                == "v4l2:serial-Logi_C920_ABC:0")
        // A serial without a serial number (model only) is not unique: use the port.
        #expect(DeviceEnumerator.stableID(node(serial: "Logi_C920", path: "pci-0000:00:14.0-usb-0:1:1.0", index: 1,
                                               name: "HD Pro Webcam C920"), busInfo: "b")
                == "v4l2:path-pci-0000:00:14.0-usb-0:1:1.0+HD Pro Webcam C920:1")
        #expect(DeviceEnumerator.stableID(node(), busInfo: "platform:vivid-000") == "v4l2:bus-platform:vivid-000:0")
        #expect(!DeviceEnumerator.stableID(node(path: "p"), busInfo: "b").contains("video7"))
        // Two vivid instances share ID_PATH; the sysfs name keeps their ids
        // apart, and bus_info (which needs the node open) plays no part.
        #expect(DeviceEnumerator.stableID(node(path: "platform-vivid.0", name: "vivid-000-vid-cap"), busInfo: "x")
                != DeviceEnumerator.stableID(node(path: "platform-vivid.0", name: "vivid-001-vid-cap"), busInfo: "x"))
        #expect(DeviceEnumerator.stableID(node(path: "platform-vivid.0", name: "vivid-000-vid-cap"), busInfo: "x")
                == DeviceEnumerator.stableID(node(path: "platform-vivid.0", name: "vivid-000-vid-cap"), busInfo: ""))
    }

    @Test func test_S2_type_and_position() {
        #expect(DeviceEnumerator.deviceType(driver: "vivid", udev: node()) == .virtual)
        #expect(DeviceEnumerator.deviceType(driver: "uvcvideo", udev: node(usb: true, removable: "fixed")) == .builtin)
        #expect(DeviceEnumerator.deviceType(driver: "uvcvideo", udev: node(usb: true, removable: "removable")) == .external)
        #expect(DeviceEnumerator.deviceType(driver: "uvcvideo", udev: node(usb: true, removable: "unknown")) == .external)
        #expect(DeviceEnumerator.defaultPosition(.builtin) == .front)
        #expect(DeviceEnumerator.defaultPosition(.external) == .external)
    }

    @Test func test_S1_capture_caps_filter() {
        #expect(V4L2Query.isVideoCapture(0x1))            // VIDEO_CAPTURE
        #expect(V4L2Query.isVideoCapture(0x1000))         // VIDEO_CAPTURE_MPLANE
        #expect(!V4L2Query.isVideoCapture(0x0080_0000))   // META_CAPTURE
        #expect(!V4L2Query.isVideoCapture(0x2))           // VIDEO_OUTPUT
        #expect(!V4L2Query.isVideoCapture(0x1 | 0x1000_0000)) // touch
        #expect(!V4L2Query.isVideoCapture(0x1 | 0x2 | 0x8000)) // M2M
        #expect(!V4L2Query.isVideoCapture(0x10))          // VBI_CAPTURE
    }
}

/// S26: native MJPEG frames are checked for a whole JPEG.
struct JPEGCheckTests {
    func check(_ bytes: [UInt8]) -> Bool {
        var b = bytes
        return b.withUnsafeMutableBytes { V4L2Capture.looksLikeWholeJPEG(Plane(base: $0.baseAddress, stride: 0, length: $0.count)) }
    }

    @Test func test_S26_truncated_jpeg_is_flagged() {
        #expect(check([0xFF, 0xD8, 0x01, 0x02, 0xFF, 0xD9]))
        #expect(check([0xFF, 0xD8, 0x01, 0xFF, 0xD9, 0, 0, 0]))   // zero padding after EOI
        #expect(!check([0xFF, 0xD8, 0x01, 0x02, 0x03]))           // cut short
        #expect(!check([0x00, 0xD8, 0xFF, 0xD9]))                 // no SOI
        #expect(!check([0xFF, 0xD8]))
    }
}

/// S21: an app frame (no pool) stays a frame when wrapped in an Optional.
struct AppFrameTests {
    @inline(never) func wrap(_ f: Frame) -> Frame? { f }

    @Test func test_S21_app_frame_is_not_nil_in_optional() {
        let buf = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16)
        defer { buf.deallocate() }
        let f = Frame(fourcc: .yuyv, width: 4, height: 4, planeCount: 1,
                      planes: (Plane(base: buf, stride: 8, length: 32), .empty, .empty),
                      timestampNs: 1, sequence: 7)
        let w = wrap(f)
        #expect(w != nil)
        #expect(w?.sequence == 7)
        #expect(w?.isRetainable == false)
    }
}
