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
