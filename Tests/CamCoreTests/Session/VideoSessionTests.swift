// SPDX-License-Identifier: MIT
import Testing
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
@testable import CamCore

/// Counts frames per receiver.
final class Receivers: @unchecked Sendable {
    let counts = Mutex<[String: Int]>([:])
    func sink(_ name: String) -> FrameSink { { [self] _ in counts.withLock { $0[name, default: 0] += 1 } } }
    func count(_ name: String) -> Int { counts.withLock { $0[name, default: 0] } }
    func reset() { counts.withLock { $0 = [:] } }
    /// Frames each receiver gets over `ms` milliseconds.
    func during(_ ms: UInt32 = 300) -> [String: Int] {
        reset()
        usleep(ms * 1000)
        return counts.withLock { $0 }
    }
}

@Suite(.serialized) struct VideoSessionTests {
    let manager = try! Manager(config: ManagerConfig(syntheticCount: 2))
    let fast = CapturePreference(width: 64, height: 48, minRate: FrameRate(60), maxRate: FrameRate(120))

    func session() throws -> VideoSession {
        try VideoSession(manager: manager, deviceID: "synthetic:0", preference: fast)
    }

    @Test func test_S9_truth_table() throws {
        let s = try session()
        defer { s.close() }
        let r = Receivers()
        s.setTransmissionSink(r.sink("tx"))
        // no preview, no transmit -> off
        #expect(!s.currentState.cameraOn)
        #expect(r.during()["tx"] == nil)
        // preview only -> on
        let p = try s.addPreview(r.sink("p"))
        #expect(s.currentState.cameraOn)
        var got = r.during()
        #expect(got["p", default: 0] > 3 && got["tx"] == nil)
        // both -> on
        try s.startTransmission()
        got = r.during()
        #expect(s.currentState.cameraOn && got["p", default: 0] > 3 && got["tx", default: 0] > 3)
        // transmit only -> on
        try s.removePreview(p)
        got = r.during()
        #expect(s.currentState.cameraOn && got["p"] == nil && got["tx", default: 0] > 3)
        // neither -> off
        try s.endTransmission()
        #expect(!s.currentState.cameraOn)
        #expect(r.during().isEmpty)
    }

    @Test func test_S10_S11_S12_sequence_pause_preview_hold_unhold_resume() throws {
        let s = try session()
        defer { s.close() }
        let r = Receivers()
        s.setTransmissionSink(r.sink("tx"))
        try s.startTransmission(.pause)                  // S10 pause: camera stays off
        #expect(!s.currentState.cameraOn)
        let p = try s.addPreview(r.sink("p"))            // preview: on, only preview gets frames
        var got = r.during()
        #expect(s.currentState.cameraOn && got["tx"] == nil && got["p", default: 0] > 0)
        try s.hold()                                     // S11 hold with preview: stays on
        #expect(s.currentState.cameraOn && s.currentState.held)
        try s.removePreview(p)                           // nothing needs it: off
        #expect(!s.currentState.cameraOn)
        try s.unhold()                                   // still paused: off
        #expect(!s.currentState.cameraOn && !s.currentState.held)
        try s.resumeVideo()                              // S12 resume: on and transmitting
        got = r.during()
        #expect(s.currentState.cameraOn && got["tx", default: 0] > 3)
        try s.pauseVideo()                               // S12 pause without preview: off
        #expect(!s.currentState.cameraOn)
        #expect(r.during().isEmpty)
        try s.hold(); try s.unhold()                     // hold/unhold keep the pause
        #expect(!s.currentState.cameraOn && s.currentState.paused)
    }

    @Test func test_S13_preparation_runs_camera_but_transmits_after() throws {
        let s = try session()
        defer { s.close() }
        let r = Receivers()
        s.setTransmissionSink(r.sink("tx"))
        try s.startTransmission(.resume, preparing: true)
        #expect(s.currentState.cameraOn)
        #expect(r.during()["tx"] == nil)                 // on, but nothing transmitted
        try s.pauseVideo()
        #expect(!s.currentState.cameraOn)                // pause toggles the camera
        try s.resumeVideo()
        #expect(s.currentState.cameraOn)
        #expect(r.during()["tx"] == nil)
        try s.endPreparation()
        #expect(r.during()["tx", default: 0] > 3)        // transmitted after preparation
    }

    @Test func test_S15_sink_cleared_and_hard_mute() throws {
        let s = try session()
        defer { s.close() }
        let r = Receivers()
        s.setTransmissionSink(r.sink("tx"))
        try s.startTransmission()
        #expect(r.during()["tx", default: 0] > 3)
        s.setTransmissionSink(nil)                       // camera keeps running, frames go nowhere
        #expect(s.currentState.cameraOn)
        #expect(r.during().isEmpty)
        s.setTransmissionSink(r.sink("tx2"))
        try s.setHardMute(true)                          // camera off, transmission state kept
        #expect(!s.currentState.cameraOn && s.currentState.transmitting && !s.currentState.paused)
        try s.setHardMute(false)
        #expect(s.currentState.cameraOn)
        #expect(r.during()["tx2", default: 0] > 3)
    }

    @Test func test_S14_several_previews_each_get_every_frame() throws {
        let s = try session()
        defer { s.close() }
        let seqs = Mutex<[String: [UInt32]]>([:])
        func sink(_ n: String) -> FrameSink { { f in seqs.withLock { $0[n, default: []].append(f.sequence) } } }
        let a = try s.addPreview(sink("a"))
        let b = try s.addPreview(sink("b"))
        usleep(150_000)
        try s.removePreview(a)
        let frozen = seqs.withLock { $0["a"] ?? [] }
        #expect(s.currentState.cameraOn)                 // b still previews
        usleep(100_000)
        #expect(seqs.withLock { $0["a"] ?? [] } == frozen)  // none after remove returned
        try s.removePreview(b)
        #expect(!s.currentState.cameraOn)
        let all = seqs.withLock { $0 }
        // While both were active (from b's first frame until a left), both
        // saw exactly the same frames.
        let seenA = all["a"]!, seenB = all["b"]!
        let both = seenA.filter { $0 >= seenB.first! }
        #expect(both.count > 3)
        #expect(Array(seenB.prefix(both.count)) == both)
        #expect(throws: CamError.self) { try s.removePreview(a) }
    }

    @Test func test_S16_completions_exactly_once_in_order() throws {
        let s = try session()
        defer { s.close() }
        let calls = Mutex<[(Int, Bool)]>([])
        let req = CaptureRequest(fourcc: .i420, width: 64, height: 48, frameRate: FrameRate(60))
        for i in 0..<20 {
            switch i % 4 {
            case 0: s.start(req) { e in calls.withLock { $0.append((i, e == nil)) } }
            case 1: s.change(CaptureRequest(fourcc: .nv12, width: 32, height: 32)) { e in calls.withLock { $0.append((i, e == nil)) } }
            case 2: s.stop { e in calls.withLock { $0.append((i, e == nil)) } }
            default: s.restart { e in calls.withLock { $0.append((i, e == nil)) } }
            }
        }
        s.start(CaptureRequest(width: 0, height: 0)) { e in calls.withLock { $0.append((99, e == nil)) } }
        s.flush()
        let c = calls.withLock { $0 }
        #expect(c.map { $0.0 } == Array(0..<20) + [99])
        #expect(c.dropLast().allSatisfy { $0.1 })
        #expect(c.last?.1 == false)                      // bad input: an error, once
    }

    @Test func test_S17_start_change_stop_restart_apply_settings() throws {
        let s = try session()
        defer { s.close() }
        _ = try s.addPreview { _ in }
        s.start(CaptureRequest(fourcc: .i420, width: 96, height: 64, frameRate: FrameRate(30)))
        s.flush()
        #expect(s.currentState.format?.fourcc == .i420 && s.currentState.format?.width == 96)
        s.change(CaptureRequest(fourcc: .nv12, width: 32, height: 32, frameRate: FrameRate(60)))
        s.flush()
        #expect(s.currentState.format?.fourcc == .nv12 && s.currentState.format?.frameRate == FrameRate(60))
        s.stop()
        s.flush()
        #expect(!s.currentState.cameraOn && s.currentState.stoppedByApp)
        s.restart()
        s.flush()
        #expect(s.currentState.cameraOn && s.currentState.format?.fourcc == .nv12 && s.currentState.format?.width == 32)
    }

    @Test func test_S18_S19_select_flip_and_custom_source() throws {
        let s = try session()
        defer { s.close() }
        let events = Mutex<[String]>([])
        s.setEventHandler { e in
            if case .selected(let d, let f) = e { events.withLock { $0.append("\(d.id) \(f.width)x\(f.height)") } }
        }
        try s.startTransmission()
        let r = Receivers()
        s.setTransmissionSink(r.sink("tx"))
        let done = Mutex<[CamError?]>([])
        s.select(deviceID: "synthetic:1") { e in done.withLock { $0.append(e) } }
        s.flush()
        #expect(s.currentState.device?.id == "synthetic:1" && s.currentState.cameraOn)
        #expect(r.during()["tx", default: 0] > 3)
        s.flip { e in done.withLock { $0.append(e) } }                 // back -> front
        s.flush()
        #expect(s.currentState.device?.id == "synthetic:0")
        #expect(s.currentState.device?.position == .front)
        // Custom source: select and flip refuse; transmission takes app frames.
        try s.setCustomSource(true)
        s.select(deviceID: "synthetic:1") { e in done.withLock { $0.append(e) } }
        s.flip { e in done.withLock { $0.append(e) } }
        s.flush()
        #expect(!s.currentState.cameraOn)                               // no preview: camera off
        let buf = UnsafeMutableRawPointer.allocate(byteCount: 16 * 16 * 2, alignment: 16)
        defer { buf.deallocate() }
        r.reset()
        try s.pushFrame(Frame(fourcc: .yuyv, width: 16, height: 16, planeCount: 1,
                              planes: (Plane(base: buf, stride: 32, length: 512), .empty, .empty),
                              timestampNs: monotonicNs(), sequence: 7, flags: [], pool: nil, slot: 0))
        #expect(r.count("tx") == 1)
        let results = done.withLock { $0 }
        #expect(results.count == 4)
        #expect(results[0] == nil && results[1] == nil)
        if case .customSourceActive = results[2] {} else { Issue.record("select with custom source") }
        if case .customSourceActive = results[3] {} else { Issue.record("flip with custom source") }
        #expect(events.withLock { $0 } == ["synthetic:1 64x48", "synthetic:0 64x48"])
    }

    @Test func test_S16_eight_threads_leave_consistent_state() throws {
        let s = try session()
        defer { s.close() }
        try s.startTransmission(.pause)
        var threads: [pthread_t] = []
        final class Ctx { let s: VideoSession; let seed: Int; init(_ s: VideoSession, _ seed: Int) { self.s = s; self.seed = seed } }
        for t in 0..<8 {
            var tid = pthread_t()
            let ctx = Unmanaged.passRetained(Ctx(s, t)).toOpaque()
            pthread_create(&tid, nil, { p in
                let c = Unmanaged<Ctx>.fromOpaque(p!).takeRetainedValue()
                for i in 0..<25 {
                    switch (c.seed + i) % 5 {
                    case 0: if let id = try? c.s.addPreview({ _ in }) { try? c.s.removePreview(id) }
                    case 1: try? c.s.pauseVideo()
                    case 2: try? c.s.resumeVideo()
                    case 3: try? c.s.hold(); try? c.s.unhold()
                    default: _ = c.s.currentState
                    }
                }
                return nil
            }, ctx)
            threads.append(tid)
        }
        for t in threads { pthread_join(t, nil) }
        let st = s.currentState
        #expect(st.previewCount == 0 && !st.held)
        #expect(st.cameraOn == st.wantsCamera)
        try s.resumeVideo()
        #expect(s.currentState.cameraOn)
        try s.pauseVideo()
        #expect(!s.currentState.cameraOn)
    }

    @Test func test_S20_capture_hook_drops_and_replaces() throws {
        let s = try session()
        defer { s.close() }
        let seen = Mutex<[UInt32]>([])
        s.setCaptureHook { f in
            if f.sequence % 2 == 1 { return .drop }
            var g = f
            g.sequence = f.sequence + 1000
            return .replace(g)
        }
        _ = try s.addPreview { f in seen.withLock { $0.append(f.sequence) } }
        usleep(150_000)
        s.setCaptureHook(nil)
        let got = seen.withLock { $0 }
        #expect(got.count > 3)
        #expect(got.prefix(3).allSatisfy { $0 >= 1000 && $0 % 2 == 0 })
    }

    @Test func test_S31_calls_from_inside_frame_callback_are_deferred() throws {
        let s = try session()
        defer { s.close() }
        let once = Atomic<Bool>(false)
        var pid: UInt32 = 0
        pid = try s.addPreview { [s] _ in
            if !once.exchange(true, ordering: .acquiringAndReleasing) {
                try? s.removePreview(1)   // would deadlock if it waited
            }
        }
        #expect(pid == 1)
        usleep(150_000)
        s.flush()
        #expect(s.currentState.previewCount == 0 && !s.currentState.cameraOn)
    }
}
