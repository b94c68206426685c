// SPDX-License-Identifier: MIT
import Testing
@testable import CamCore

/// S6/S7 on made-up format tables.
struct NegotiationTests {
    static func d(_ f: FourCC, _ w: Int, _ h: Int, _ rates: [UInt32], compressed: Bool = false) -> FormatDescription {
        FormatDescription(fourcc: f, description: "\(f)", isCompressed: compressed,
                          size: .discrete(width: w, height: h),
                          rates: .discrete(rates.sorted(by: >).map { FrameRate($0) }))
    }

    /// A typical UVC webcam: YUYV is slow at large sizes, MJPEG is fast.
    static let webcam: [FormatDescription] = [
        d(.yuyv, 640, 480, [30, 15]), d(.yuyv, 1280, 720, [10, 5]), d(.yuyv, 1920, 1080, [5]),
        d(.mjpeg, 640, 480, [30, 15], compressed: true), d(.mjpeg, 1280, 720, [30, 15], compressed: true),
        d(.mjpeg, 1920, 1080, [30, 15], compressed: true),
    ]

    @Test func test_S6_default_request_prefers_rate_then_aspect_then_size() throws {
        let r = try #require(Negotiation.choose(Self.webcam, for: CapturePreference()))
        // YUYV 1280x720 only reaches 10 fps < 15: MJPEG 1280x720 at 30 wins.
        #expect(r.fourcc == .mjpeg && r.width == 1280 && r.height == 720)
        #expect(r.rate == FrameRate(30))
        #expect(!r.isAdjusted)
    }

    @Test func test_S6_raw_preferred_over_mjpeg_when_both_reach_rate() throws {
        let r = try #require(Negotiation.choose(Self.webcam, for: CapturePreference(width: 640, height: 480)))
        #expect(r.fourcc == .yuyv && r.width == 640 && r.rate == FrameRate(30))
    }

    @Test func test_S6_output_format_wins_ties() throws {
        let t = [Self.d(.yuyv, 640, 480, [30]), Self.d(.nv12, 640, 480, [30])]
        let r = try #require(Negotiation.choose(t, for: CapturePreference(width: 640, height: 480, output: .nv12)))
        #expect(r.fourcc == .nv12)
        let n = try #require(Negotiation.choose(t, for: CapturePreference(width: 640, height: 480)))
        #expect(n.fourcc == .yuyv)  // native: driver order breaks the tie
    }

    @Test func test_S6_no_format_reaches_min_rate_keeps_all() throws {
        let t = [Self.d(.yuyv, 1280, 720, [10]), Self.d(.yuyv, 640, 480, [5])]
        let r = try #require(Negotiation.choose(t, for: CapturePreference()))
        #expect(r.width == 1280 && r.rate == FrameRate(10))
        #expect(r.adjustments == .rate)
    }

    @Test func test_S6_request_above_every_size_takes_largest() throws {
        let r = try #require(Negotiation.choose(Self.webcam, for: CapturePreference(width: 4096, height: 2160)))
        #expect(r.width == 1920 && r.height == 1080 && r.fourcc == .mjpeg)
        #expect(r.adjustments.contains(.size))
    }

    @Test func test_S6_mjpeg_only_camera_is_usable() throws {
        let t = [Self.d(.mjpeg, 1280, 720, [30], compressed: true)]
        let r = try #require(Negotiation.choose(t, for: CapturePreference(output: .i420)))
        #expect(r.fourcc == .mjpeg && r.adjustments == .format)
    }

    @Test func test_S6_highest_rate_not_above_max() throws {
        let t = [Self.d(.yuyv, 1280, 720, [60, 50, 30, 25])]
        let r = try #require(Negotiation.choose(t, for: CapturePreference(minRate: FrameRate(15), maxRate: FrameRate(28))))
        #expect(r.rate == FrameRate(25))
    }

    @Test func test_S5_S6_stepwise_range_snaps_inside() throws {
        let t = [FormatDescription(fourcc: .yuyv, description: "",
                                   size: .stepwise(minWidth: 16, maxWidth: 1920, stepWidth: 16,
                                                   minHeight: 16, maxHeight: 1080, stepHeight: 8),
                                   rates: .continuous(min: FrameRate(1), max: FrameRate(60)))]
        let r = try #require(Negotiation.choose(t, for: CapturePreference(width: 1000, height: 700)))
        #expect(r.width == 1008 && r.height == 704)
        #expect(r.rate == FrameRate(30))
        let big = try #require(Negotiation.choose(t, for: CapturePreference(width: 5000, height: 5000)))
        #expect(big.width == 1920 && big.height == 1080)
    }

    @Test func test_S6_stepwise_interval_rate() {
        // Intervals 1/60 s upward in 1/600 s steps: 1/60, 11/600, 12/600 (=50 fps), ...
        let rates = RateRange.stepwise(min: FrameRate(5), max: FrameRate(60), intervalStep: FrameRate(1, 600))
        let r = Negotiation.highestRate(rates, notAbove: FrameRate(52))!
        #expect(abs(r.fps - 50) < 0.01)
    }

    @Test func test_S7_format_for_and_max_frame_rate() throws {
        let f = try #require(Negotiation.format(for: Self.webcam, width: 1280, height: 720, rate: FrameRate(30)))
        #expect(f.fourcc == .mjpeg && f.width == 1280)
        #expect(Negotiation.format(for: Self.webcam, width: 640, height: 480, rate: FrameRate(90)) == nil)
        let thirty = Self.d(.yuyv, 640, 480, [30, 15])
        #expect(Negotiation.maxFrameRate(thirty, FrameRate(40)) == FrameRate(30))
        #expect(Negotiation.maxFrameRate(thirty, FrameRate(15)) == FrameRate(15))
        #expect(Negotiation.maxFrameRate(thirty, FrameRate(20)) == FrameRate(15))
    }

    @Test func test_S47_bandwidth_fallbacks_same_size_compressed_first_then_lower() {
        let f = Negotiation.bandwidthFallbacks(Self.webcam, failed: .yuyv, width: 1280, height: 720,
                                               maxRate: FrameRate(10))
        let got = f.map { "\($0.fourcc) \($0.width)x\($0.height)@\($0.rate.map { "\($0.fps)" } ?? "-")" }
        // (this table has no MJPEG or 640x480 rate at or below 10: their lowest, 15.)
        #expect(got == ["MJPG 1280x720@15.0", "YUYV 640x480@15.0", "MJPG 640x480@15.0"], "\(got)")
        #expect(f[0].adjustments == [.format] && f[1].adjustments == [.size] && f[2].adjustments == [.format, .size])
        // No rate limit: each at its fastest; the failed setting itself never.
        let any = Negotiation.bandwidthFallbacks(Self.webcam, failed: .mjpeg, width: 1920, height: 1080, maxRate: nil)
        #expect(any.map { "\($0.fourcc) \($0.width)" } == ["MJPG 1280", "MJPG 640"], "\(any)")
        #expect(any.first?.rate == FrameRate(30))
    }
}
