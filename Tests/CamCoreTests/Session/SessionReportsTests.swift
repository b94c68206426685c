import Testing
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
@testable import CamCore

/// What a session tells the app about the camera it runs: S6's "says that
/// it adjusted" (state and the selected event).
@Suite(.serialized) struct SessionReportsTests {
    let manager = Manager(config: ManagerConfig(syntheticCount: 2))

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
}
