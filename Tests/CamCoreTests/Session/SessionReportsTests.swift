// SPDX-License-Identifier: MIT
import Testing
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
@testable import CamCore

/// What a session tells the app about the camera it runs: S6's "says that
/// it adjusted" (state and the selected event) and stalls (S22, S24).
@Suite(.serialized) struct SessionReportsTests {
    let manager = try! Manager(config: ManagerConfig(syntheticCount: 2))

    /// The synthetic camera's sizes step by 2: 641x481 must become 642x482.
    let odd = CapturePreference(width: 641, height: 481, minRate: FrameRate(30), maxRate: FrameRate(60))

    @Test func test_S6_session_says_it_adjusted_the_preference() throws {
        let s = try VideoSession(manager: manager, deviceID: "synthetic:0", preference: odd)
        defer { s.close() }
        let selected = Mutex<[CaptureFormat]>([])
        s.setEventHandler { e in if case .selected(_, let f) = e { selected.withLock { $0.append(f) } } }
        try s.addPreview { _ in }
        let st = s.currentState
        #expect(st.cameraOn && st.format?.width == 642 && st.format?.height == 482)
        #expect(st.adjustments == .size)
        #expect(st.format?.adjustments == .size)
        // The event that reports the selected (and started) setting says it too.
        s.select(deviceID: "synthetic:1")
        s.flush()
        let f = try #require(selected.withLock { $0.last })
        #expect(s.currentState.cameraOn && f.width == 642 && f.adjustments == .size)
        #expect(s.currentState.adjustments == .size)
    }

    @Test func test_S6_session_met_exactly_says_nothing_adjusted() throws {
        let s = try VideoSession(manager: manager, deviceID: "synthetic:0",
                                 preference: CapturePreference(width: 640, height: 480))
        defer { s.close() }
        let p = try s.addPreview { _ in }
        #expect(s.currentState.cameraOn && s.currentState.adjustments.isEmpty)
        #expect(s.currentState.format?.adjustments.isEmpty == true)
        // Off: nothing in use, nothing adjusted.
        try s.removePreview(p)
        #expect(!s.currentState.cameraOn && s.currentState.adjustments.isEmpty)
    }

    /// A preview that keeps every frame stalls the camera (no free buffer):
    /// the session tells stalled, then resumed once the frames are released.
    @Test func test_S22_session_reports_stall_and_resume() throws {
        let s = try VideoSession(manager: manager, deviceID: "synthetic:0",
                                 preference: CapturePreference(width: 64, height: 48, minRate: FrameRate(60),
                                                               maxRate: FrameRate(60)))
        defer { s.close() }
        let events = Mutex<[(String, Bool, UInt64, UInt64)]>([])  // (device, stalled, since, arrival)
        s.setEventHandler { e in
            if case .stall(let d, let stalled, let since) = e {
                let t = monotonicNs()
                events.withLock { $0.append((d.id, stalled, since, t)) }
            }
        }
        let kept = Mutex<[RetainedFrame]>([])
        let hold = Atomic<Bool>(true)
        try s.addPreview { f in if hold.load(ordering: .relaxed) { kept.withLock { $0.append(f.retain()) } } }
        for _ in 0..<400 where events.withLock({ $0.isEmpty }) { usleep(10_000) }
        let first = try #require(events.withLock { $0.first })
        #expect(first.0 == "synthetic:0" && first.1)
        #expect(first.3 - first.2 >= 1_000_000_000 && first.3 - first.2 < 1_600_000_000)
        #expect(s.currentState.cameraOn)
        hold.store(false, ordering: .relaxed)
        kept.withLock { $0.removeAll() }
        for _ in 0..<300 where events.withLock({ $0.count }) < 2 { usleep(10_000) }
        let all = events.withLock { $0 }
        #expect(all.count == 2)
        #expect(all.count == 2 && !all[1].1 && all[1].2 == first.2)
    }
}
