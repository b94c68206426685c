// SPDX-License-Identifier: MIT
import Testing
@testable import CamCore

/// S47 on the host: a session's fallback when the bus cannot carry the
/// negotiated setting. (In the guest, Linux 6.1's uvcvideo clamps an
/// oversized payload to the largest alternate setting and vhci_hcd reserves
/// no bandwidth, so no real ENOSPC can be had there; the V4L2 errno path is
/// in SyscallFaultTests.)
@Suite struct BandwidthFallbackTests {
    /// A USB 2.0 webcam's table; the bus carries MJPEG, and YUYV only up to 640x480.
    static let webcam = NegotiationTests.webcam

    @Test func test_S47_the_same_size_compressed_is_tried_first_and_said() throws {
        let failed = CaptureRequest(fourcc: .yuyv, width: 1280, height: 720, frameRate: FrameRate(10))
        let options = Negotiation.bandwidthFallbacks(Self.webcam, failed: .yuyv, width: 1280, height: 720,
                                                     maxRate: FrameRate(30))
        var tried: [String] = []
        let (used, adjusted, why) = try VideoSession.fallBack(from: failed, .bandwidth("ENOSPC"), to: options) { r throws(CamError) in
            tried.append("\(r.fourcc) \(r.width)x\(r.height)")
        }
        #expect(tried == ["MJPG 1280x720"])
        #expect(used.fourcc == .mjpeg && used.width == 1280 && used.frameRate == FrameRate(30))
        #expect(adjusted == [.format])
        #expect(why == "not enough USB bandwidth for YUYV 1280x720 at 10/1 fps: fell back to MJPG 1280x720 at 30/1 fps (S47)")
    }

    @Test func test_S47_a_bus_that_carries_no_mjpeg_either_goes_lower() throws {
        let failed = CaptureRequest(fourcc: .yuyv, width: 1920, height: 1080, frameRate: FrameRate(5))
        let options = Negotiation.bandwidthFallbacks(Self.webcam, failed: .yuyv, width: 1920, height: 1080,
                                                     maxRate: FrameRate(30))
        var tried: [String] = []
        // Only 640x480 fits.
        let (used, adjusted, _) = try VideoSession.fallBack(from: failed, .bandwidth("ENOSPC"), to: options) { r throws(CamError) in
            tried.append("\(r.fourcc) \(r.width)x\(r.height)")
            if r.width > 640 { throw .bandwidth("ENOSPC") }
        }
        #expect(tried == ["MJPG 1920x1080", "YUYV 1280x720", "MJPG 1280x720", "YUYV 640x480"], "\(tried)")
        #expect((used.fourcc, used.width) == (.yuyv, 640) && adjusted == [.size])
    }

    @Test func test_S47_another_error_ends_the_search_and_none_fitting_is_the_bandwidth_error() {
        let failed = CaptureRequest(fourcc: .yuyv, width: 1280, height: 720, frameRate: FrameRate(10))
        let options = Negotiation.bandwidthFallbacks(Self.webcam, failed: .yuyv, width: 1280, height: 720, maxRate: nil)
        var tries = 0
        #expect(throws: CamError.busy("taken")) {
            _ = try VideoSession.fallBack(from: failed, .bandwidth("ENOSPC"), to: options) { _ throws(CamError) in
                tries += 1
                throw .busy("taken")
            }
        }
        #expect(tries == 1)
        #expect(throws: CamError.bandwidth("last")) {
            _ = try VideoSession.fallBack(from: failed, .bandwidth("first"), to: options) { _ throws(CamError) in
                throw .bandwidth("last")
            }
        }
    }
}
