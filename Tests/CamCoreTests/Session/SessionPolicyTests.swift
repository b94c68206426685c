// SPDX-License-Identifier: MIT
import Testing
@testable import CamCore

/// S9–S15, S17 stop and S21 on SessionPolicy alone: no camera, no queue.
struct SessionPolicyTests {
    /// A policy with the given inputs (every one false or 0 unless said).
    static func p(tx: Bool = false, paused: Bool = false, held: Bool = false, preparing: Bool = false,
                  muted: Bool = false, previews: Int = 0, custom: Bool = false,
                  stopped: Bool = false) -> SessionPolicy {
        var s = SessionPolicy()
        s.transmitting = tx; s.paused = paused; s.held = held; s.preparing = preparing
        s.hardMuted = muted; s.previewCount = previews; s.customSource = custom; s.stoppedByApp = stopped
        return s
    }

    /// One row: the inputs, then camera on, frames to the sink from the
    /// camera, and from pushFrame.
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let policy: SessionPolicy
        let device: Bool
        let on: Bool
        let cameraTx: Bool
        let pushedTx: Bool
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        // S9's truth table (SPEC), with a device.
        Row(name: "S9 no preview, no transmit", policy: p(), device: true, on: false, cameraTx: false, pushedTx: false),
        Row(name: "S9 preview only", policy: p(previews: 1), device: true, on: true, cameraTx: false, pushedTx: false),
        Row(name: "S9 transmit only", policy: p(tx: true), device: true, on: true, cameraTx: true, pushedTx: false),
        Row(name: "S9 both", policy: p(tx: true, previews: 1), device: true, on: true, cameraTx: true, pushedTx: false),
        Row(name: "S9 no device", policy: p(tx: true, previews: 1), device: false, on: false, cameraTx: true, pushedTx: false),
        // S10 initial pause, S12 pause.
        Row(name: "S12 paused", policy: p(tx: true, paused: true), device: true, on: false, cameraTx: false, pushedTx: false),
        Row(name: "S12 paused, preview", policy: p(tx: true, paused: true, previews: 1), device: true, on: true, cameraTx: false, pushedTx: false),
        // S11 hold.
        Row(name: "S11 held", policy: p(tx: true, held: true), device: true, on: false, cameraTx: false, pushedTx: false),
        Row(name: "S11 held, preview", policy: p(tx: true, held: true, previews: 2), device: true, on: true, cameraTx: false, pushedTx: false),
        // S13 preparation: the camera runs, nothing is transmitted.
        Row(name: "S13 preparing", policy: p(tx: true, preparing: true), device: true, on: true, cameraTx: false, pushedTx: false),
        Row(name: "S13 preparing, paused", policy: p(tx: true, paused: true, preparing: true), device: true, on: false, cameraTx: false, pushedTx: false),
        // S15 hard mute.
        Row(name: "S15 muted", policy: p(tx: true, muted: true), device: true, on: false, cameraTx: false, pushedTx: false),
        Row(name: "S15 muted, preview", policy: p(tx: true, muted: true, previews: 1), device: true, on: true, cameraTx: false, pushedTx: false),
        // S17 stop wins over every need.
        Row(name: "S17 stopped, transmitting", policy: p(tx: true, stopped: true), device: true, on: false, cameraTx: true, pushedTx: false),
        Row(name: "S17 stopped, preview", policy: p(previews: 1, stopped: true), device: true, on: false, cameraTx: false, pushedTx: false),
        // S21 custom source: transmission takes pushed frames, the camera runs for previews only.
        Row(name: "S21 custom source", policy: p(tx: true, custom: true), device: true, on: false, cameraTx: false, pushedTx: true),
        Row(name: "S21 custom source, preview", policy: p(tx: true, previews: 1, custom: true), device: true, on: true, cameraTx: false, pushedTx: true),
        Row(name: "S21 custom source, paused", policy: p(tx: true, paused: true, custom: true), device: true, on: false, cameraTx: false, pushedTx: false),
        Row(name: "S21 custom source, no transmission", policy: p(custom: true), device: true, on: false, cameraTx: false, pushedTx: false),
    ]

    @Test(arguments: rows) func test_S9_S11_S12_S13_S15_S17_S21_table(_ r: Row) {
        #expect(r.policy.wantsCamera(hasDevice: r.device) == r.on)
        #expect(r.policy.transmitsCameraFrames == r.cameraTx)
        #expect(r.policy.transmitsPushedFrames == r.pushedTx)
    }

    /// Every combination of the inputs (8 flags, 0/1/2 previews): S9 as
    /// SPEC words it, case by case.
    @Test func test_S9_every_combination_of_inputs() {
        var on = 0, total = 0
        for bits in 0..<(1 << 8) {
            for previews in 0...2 {
                let f = { (i: Int) in bits & (1 << i) != 0 }
                let s = Self.p(tx: f(0), paused: f(1), held: f(2), preparing: f(3), muted: f(4),
                               previews: previews, custom: f(5), stopped: f(6))
                let device = f(7)
                let expected: Bool
                if !device || s.stoppedByApp {
                    expected = false                        // nothing to open, or the app said stop
                } else if previews > 0 {
                    expected = true                         // S14: a preview keeps it on
                } else if !s.transmitting || s.paused || s.held || s.hardMuted || s.customSource {
                    expected = false                        // S10–S12, S15, S21: transmission does not need it
                } else {
                    expected = true                         // S13: preparing or not
                }
                #expect(s.wantsCamera(hasDevice: device) == expected, "\(s) device \(device)")
                #expect(s.transmissionNeedsCamera == (s.transmitting && !s.paused && !s.held
                                                      && !s.hardMuted && !s.customSource))
                // Frames never reach the sink from both sources, nor while paused, held, muted or preparing.
                #expect(!(s.transmitsCameraFrames && s.transmitsPushedFrames))
                if s.paused || s.held || s.hardMuted || s.preparing || !s.transmitting {
                    #expect(!s.transmitsCameraFrames && !s.transmitsPushedFrames)
                }
                if s.wantsCamera(hasDevice: device) { on += 1 }
                total += 1
            }
        }
        // With a device and no stop (1/4 of 768): all 128 with a preview,
        // and the 2 transmitting-only ones (preparing or not).
        #expect(total == 768 && on == 130)
    }

    @Test func test_S10_start_resume_or_pause_and_not_twice() {
        var s = SessionPolicy()
        #expect(s.startTransmission(.resume, preparing: false) == nil)
        #expect(s == Self.p(tx: true) && s.wantsCamera(hasDevice: true))
        let again = s.startTransmission(.pause, preparing: true)
        #expect(again == .state("transmission has already started"))
        #expect(s == Self.p(tx: true))                      // unchanged by the refused start

        var q = Self.p(previews: 1)
        #expect(q.startTransmission(.pause, preparing: true) == nil)
        #expect(q == Self.p(tx: true, paused: true, preparing: true, previews: 1))
        #expect(!Self.p(tx: true, paused: true).wantsCamera(hasDevice: true))
    }

    @Test func test_S10_start_after_end_clears_hold_and_mute() {
        var s = Self.p(tx: true, held: true, muted: true)
        s.endTransmission()
        #expect(s == SessionPolicy())
        s.held = true; s.hardMuted = true                  // stale flags from outside the rules
        #expect(s.startTransmission(.resume, preparing: false) == nil)
        #expect(s == Self.p(tx: true))
    }

    @Test func test_S11_S12_S13_S15_changes_need_a_transmission() {
        let idle = Self.p(previews: 1, custom: true)
        let changes: [(String, (inout SessionPolicy) -> CamError?)] = [
            ("pause", { $0.pauseVideo() }), ("resume", { $0.resumeVideo() }),
            ("hold", { $0.hold() }), ("unhold", { $0.unhold() }),
            ("mute", { $0.setHardMute(true) }), ("unmute", { $0.setHardMute(false) }),
            ("endPreparation", { $0.endPreparation() }),
        ]
        for (name, change) in changes {
            var s = idle
            #expect(change(&s) == .state("no transmission: start it first"), "\(name)")
            #expect(s == idle, "\(name) changed the policy")
        }
    }

    @Test func test_S12_pause_turns_camera_off_unless_preview_and_resume_restores() {
        var s = Self.p(tx: true)
        #expect(s.pauseVideo() == nil)
        #expect(s.paused && !s.wantsCamera(hasDevice: true) && !s.transmitsCameraFrames)
        s.previewCount = 1
        #expect(s.wantsCamera(hasDevice: true) && !s.transmitsCameraFrames)
        s.previewCount = 0
        #expect(s.resumeVideo() == nil)
        #expect(s == Self.p(tx: true) && s.wantsCamera(hasDevice: true) && s.transmitsCameraFrames)
    }

    /// hold then unhold gives back exactly the policy before the hold, and
    /// with it the camera's on/off, in every transmission state.
    @Test func test_S11_unhold_restores_the_state_before_hold() {
        for bits in 0..<(1 << 4) {
            for previews in 0...1 {
                let f = { (i: Int) in bits & (1 << i) != 0 }
                let before = Self.p(tx: true, paused: f(0), preparing: f(1), muted: f(2), previews: previews,
                                    custom: f(3))
                var s = before
                #expect(s.hold() == nil)
                #expect(s.held && !s.transmissionNeedsCamera && !s.transmitsFrames)
                #expect(s.wantsCamera(hasDevice: true) == (previews > 0))   // S11: off unless previewing
                #expect(s.unhold() == nil)
                #expect(s == before, "\(before)")
                #expect(s.wantsCamera(hasDevice: true) == before.wantsCamera(hasDevice: true))
            }
        }
    }

    @Test func test_S11_S12_hold_and_pause_are_independent() {
        var s = Self.p(tx: true)
        _ = s.pauseVideo(); _ = s.hold()
        _ = s.resumeVideo()                                 // resumed, but still held
        #expect(!s.wantsCamera(hasDevice: true) && s.held && !s.paused)
        _ = s.unhold()
        #expect(s == Self.p(tx: true) && s.wantsCamera(hasDevice: true))
        _ = s.hold(); _ = s.pauseVideo(); _ = s.unhold()    // unheld, but still paused
        #expect(!s.wantsCamera(hasDevice: true) && s == Self.p(tx: true, paused: true))
    }

    @Test func test_S13_preparation_camera_on_frames_after() {
        var s = SessionPolicy()
        _ = s.startTransmission(.resume, preparing: true)
        #expect(s.wantsCamera(hasDevice: true) && !s.transmitsCameraFrames)
        _ = s.pauseVideo()
        #expect(!s.wantsCamera(hasDevice: true))            // pause toggles the camera during preparation
        _ = s.resumeVideo()
        #expect(s.wantsCamera(hasDevice: true) && !s.transmitsCameraFrames)
        #expect(s.endPreparation() == nil)
        #expect(s == Self.p(tx: true) && s.transmitsCameraFrames)
    }

    @Test func test_S15_hard_mute_keeps_the_rest_and_unmute_restores() {
        let before = Self.p(tx: true, paused: true, held: true, preparing: true, previews: 2)
        var s = before
        #expect(s.setHardMute(true) == nil)
        #expect(s.hardMuted && s.paused && s.held && s.preparing && s.previewCount == 2)
        #expect(s.setHardMute(false) == nil)
        #expect(s == before)
        var t = Self.p(tx: true)
        _ = t.setHardMute(true)
        #expect(!t.wantsCamera(hasDevice: true) && t.transmitting)
        _ = t.setHardMute(false)
        #expect(t.wantsCamera(hasDevice: true) && t.transmitsCameraFrames)
    }

    @Test func test_S9_end_transmission_leaves_only_previews_and_custom_source() {
        var s = Self.p(tx: true, paused: true, held: true, preparing: true, muted: true, previews: 1, custom: true,
                       stopped: true)
        s.endTransmission()
        #expect(s == Self.p(previews: 1, custom: true, stopped: true))
        s.stoppedByApp = false
        #expect(s.wantsCamera(hasDevice: true))             // the preview still needs it
        s.previewCount = 0
        #expect(!s.wantsCamera(hasDevice: true))
    }

    /// The published snapshot reports the policy it was taken from.
    @Test func test_S9_state_snapshot_reports_the_policy() {
        var st = VideoSession.State()
        #expect(!st.wantsCamera && !st.cameraOn && st.device == nil)
        st.policy = Self.p(tx: true, preparing: true, previews: 2)
        #expect(st.transmitting && st.preparing && st.previewCount == 2 && !st.paused && !st.held)
        #expect(st.transmissionNeedsCamera && !st.wantsCamera)   // no device
        st.stoppedByApp = true
        #expect(st.policy.stoppedByApp)
    }
}
