// SPDX-License-Identifier: MIT
import Testing
@testable import CamCore

/// S41/S42 on the host, for what the guest's cameras cannot show: which
/// libcamera ids name a camera on a video node of its own (libcamera's
/// uvcvideo handler; libcamera 0.0.3 in the guest does not list the
/// emulated USB webcam), the DRM <-> V4L2 pixel format pairs, and rates
/// from FrameDurationLimits.
@Suite struct LibcameraSourceTests {
    @Test func test_S42_uvc_ids_are_left_to_v4l2_pipeline_ids_are_not() {
        // uvcvideo handler ids: the USB interface's path, then vendor:product.
        for id in ["\\_SB_.PCI0.XHC_.RHUB.HS03-3:1.0-0c45:6366", "pci-0000:00:14.0-usb-0:1:1.0-046d:0825",
                   "platform/vhci_hcd.0-1:1.0-1d6b:0102"] {
            #expect(LibcameraSource.isVideoNodeCamera(id), "\(id)")
        }
        // Media-pipeline cameras: sensor entity names, I2C addresses.
        for id in ["platform/vimc.0 Sensor B", "/base/soc/i2c0mux/i2c@1/imx219@10",
                   "\\_SB_.PCI0.I2C2.CAM0", "platform/vimc.0 Sensor A", "1d6b:0102"] {
            #expect(!LibcameraSource.isVideoNodeCamera(id), "\(id)")
        }
    }

    @Test func test_S41_drm_formats_name_the_same_bytes_as_their_v4l2_fourccs() {
        // libcamera's BGR888 ('BG24') is R, G, B in memory: V4L2's RGB24.
        #expect(PixelFormatTable.v4l2FourCC(drm: FourCC("BG24")) == .rgb24)
        #expect(PixelFormatTable.v4l2FourCC(drm: FourCC("RG24")) == .bgr24)
        #expect(PixelFormatTable.drmFourCC(v4l2: .rgb24) == FourCC("BG24"))
        #expect(PixelFormatTable.v4l2FourCC(drm: FourCC("YU12")) == .i420)
        #expect(PixelFormatTable.v4l2FourCC(drm: FourCC("MJPG")) == .mjpeg)
        #expect(PixelFormatTable.v4l2FourCC(drm: FourCC("R8  ")) == .grey)
        #expect(PixelFormatTable.v4l2FourCC(drm: FourCC("ZZZZ")) == nil)
        // Every pair goes both ways, and every V4L2 side is in the format table.
        for code in ["BG24", "RG24", "XR24", "YUYV", "NV12", "NV21", "YU12", "YV12", "YU16", "MJPG", "R8  ", "RGGB"] {
            let v = PixelFormatTable.v4l2FourCC(drm: FourCC(code))
            #expect(v != nil && PixelFormatTable.drmFourCC(v4l2: v!) == FourCC(code), "\(code)")
            #expect(v.flatMap { PixelFormatTable.info($0) } != nil, "\(code) -> \(String(describing: v))")
        }
    }

    @Test func test_S41_frame_duration_limits_are_a_rate_range() {
        #expect(LibcameraSource.rates(minNs: 0, maxNs: 0) == .unknown)
        #expect(LibcameraSource.rates(minNs: 33_333_000, maxNs: 33_333_000) == .discrete([FrameRate(1_000_000, 33_333)]))
        guard case .continuous(let lo, let hi) = LibcameraSource.rates(minNs: 16_666_000, maxNs: 1_000_000_000) else {
            Issue.record("not a range"); return
        }
        #expect(hi.fps > 59.9 && hi.fps < 60.1 && lo.fps == 1.0)
    }
}

/// S42 on the host: the folding of entries several backends list, and
/// libcamera UVC ids matched to V4L2 devices (the guest's libcamera 0.0.3
/// does not list the emulated webcam: vhci_hcd has no firmware node).
@Suite struct OneCameraOneEntryTests {
    static func dev(_ id: String, wraps: String? = nil, vid: UInt16 = 0, pid: UInt16 = 0, bus: String = "") -> DeviceInfo {
        var d = DeviceInfo(id: id, name: id, node: id, busInfo: bus, driver: "x", usbVendorID: vid, usbProductID: pid,
                           type: .external, position: .external)
        d.wraps = wraps
        return d
    }

    @Test func test_S42_entries_that_wrap_a_listed_one_fold_into_it() {
        let v = Self.dev("v4l2:usb-cam-0")
        let vimc = Self.dev("libcamera:platform/vimc.0 Sensor B")
        let uvcLC = Self.dev("libcamera:\\_SB_.XHC_.HS03-3:1.0-0c45:6366", wraps: "v4l2:usb-cam-0")
        let pwV = Self.dev("pipewire:v4l2_input.cam", wraps: "v4l2:usb-cam-0")
        let pwLC = Self.dev("pipewire:libcamera_input.vimc", wraps: "libcamera:platform/vimc.0 Sensor B")
        let pwOnly = Self.dev("pipewire:remote-cam")
        let pwGone = Self.dev("pipewire:stale", wraps: "v4l2:not-listed")
        let out = Manager.listedOnce([v, vimc, uvcLC, pwV, pwLC, pwOnly, pwGone])
        #expect(out.map(\.id) == [v.id, vimc.id, pwOnly.id, pwGone.id])
        #expect(out[0].otherIDs == [uvcLC.id, pwV.id])
        #expect(out[1].otherIDs == [pwLC.id])
        #expect(out[2].otherIDs == [])
        // What an entry wraps is named even when that backend is not in use.
        #expect(out[3].otherIDs == ["v4l2:not-listed"])
        // A chain: a PipeWire node over libcamera's UVC camera over V4L2.
        let pwUVC = Self.dev("pipewire:libcamera_input.uvc", wraps: uvcLC.id)
        let chain = Manager.listedOnce([pwUVC, uvcLC, v])
        #expect(chain.map(\.id) == [v.id])
        #expect(Set(chain[0].otherIDs) == [pwUVC.id, uvcLC.id])
        // A cycle (no source makes one) neither hangs nor loses both.
        let a = Self.dev("a:1", wraps: "b:1"), b = Self.dev("b:1", wraps: "a:1")
        #expect(Manager.listedOnce([a, b]).count >= 1)
    }

    @Test func test_S42_a_libcamera_uvc_id_finds_its_v4l2_device() {
        let cams = [Self.dev("v4l2:a", vid: 0x0c45, pid: 0x6366, bus: "usb-0000:00:14.0-3"),
                    Self.dev("v4l2:b", vid: 0x0c45, pid: 0x6366, bus: "usb-0000:00:14.0-2.4"),
                    Self.dev("v4l2:c", vid: 0x046d, pid: 0x0825, bus: "usb-vhci_hcd.0-1")]
        let u = LibcameraSource.usbParts("\\_SB_.PCI0.XHC_.RHUB.HS03-2.4:1.0-0c45:6366")
        #expect(u?.ports == "2.4" && u?.vendor == 0x0c45 && u?.product == 0x6366)
        // Two of one model: the ports decide.
        #expect(LibcameraSource.videoNodeDevice(of: "\\_SB_.PCI0.XHC_.RHUB.HS03-3:1.0-0c45:6366", among: cams)?.id == "v4l2:a")
        #expect(LibcameraSource.videoNodeDevice(of: "/base/soc/usb@7e980000-2.4:1.0-0c45:6366", among: cams)?.id == "v4l2:b")
        // One of its model: found even where the ports differ in form.
        #expect(LibcameraSource.videoNodeDevice(of: "/base/usb-7:1.0-046d:0825", among: cams)?.id == "v4l2:c")
        // No such vendor:product, or not a UVC id at all.
        #expect(LibcameraSource.videoNodeDevice(of: "/base/usb-1:1.0-1d6b:0102", among: cams) == nil)
        #expect(LibcameraSource.videoNodeDevice(of: "platform/vimc.0 Sensor B", among: cams) == nil)
        #expect(LibcameraSource.videoNodeDevice(of: "\\_SB_.HS03-9:1.0-0c45:6366", among: cams) == nil)
    }
}
