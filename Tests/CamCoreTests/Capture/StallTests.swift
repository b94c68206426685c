// SPDX-License-Identifier: MIT
import Testing
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
@testable import CamCore

/// What a capture's on_stall callback was told, with arrival times.
final class StallLog: @unchecked Sendable {
    struct Entry { var at: UInt64; var stalled: Bool; var since: UInt64 }
    let entries = Mutex<[Entry]>([])
    func add(_ stalled: Bool, _ since: UInt64) {
        let t = monotonicNs()
        entries.withLock { $0.append(Entry(at: t, stalled: stalled, since: since)) }
    }
    var all: [Entry] { entries.withLock { $0 } }
    func wait(for n: Int, seconds: Double = 5) -> Bool {
        let end = monotonicNs() + UInt64(seconds * 1e9)
        while all.count < n && monotonicNs() < end { usleep(5000) }
        return all.count >= n
    }
}

/// SPEC S22 stalls: frames that stop for longer than max(1 s, 5 intervals)
/// are told (on_stall, a counter), and so is their return; no restart.
@Suite(.serialized) struct StallTests {
    let manager = try! Manager(config: ManagerConfig(includeSynthetic: true))

    @Test func test_S22_threshold_is_one_second_or_five_intervals() {
        #expect(Capturer.stallThresholdNs(nil) == 1_000_000_000)
        #expect(Capturer.stallThresholdNs(FrameRate(30)) == 1_000_000_000)
        #expect(Capturer.stallThresholdNs(FrameRate(5)) == 1_000_000_000)
        #expect(Capturer.stallThresholdNs(FrameRate(2)) == 2_500_000_000)
        #expect(Capturer.stallThresholdNs(FrameRate(1)) == 5_000_000_000)
    }

    /// The synthetic camera stalls when the app keeps every buffer: a real
    /// driver does the same (no buffer to fill).
    @Test func test_S22_all_buffers_retained_stalls_then_resumes() throws {
        let cap = try manager.open(deviceID: SyntheticCamera.id)
        defer { try? cap.close() }
        let kept = Mutex<[RetainedFrame]>([])
        let lastFrame = Atomic<UInt64>(0)
        let frames = Atomic<Int>(0)
        let keeping = Atomic<Bool>(true)
        let log = StallLog()
        try cap.start(CaptureRequest(width: 64, height: 48, frameRate: FrameRate(60), bufferCount: 2),
                      onFrame: { f in
                          lastFrame.store(f.timestampNs, ordering: .relaxed)
                          frames.add(1, ordering: .relaxed)
                          if keeping.load(ordering: .relaxed) { kept.withLock { $0.append(f.retain()) } }
                      }, onStall: { log.add($0, $1) })
        #expect(log.wait(for: 1, seconds: 4))
        let stall = try #require(log.all.first)
        #expect(stall.stalled)
        #expect(frames.load(ordering: .relaxed) == 2)
        #expect(stall.since == lastFrame.load(ordering: .relaxed))
        let latency = stall.at - stall.since
        #expect(latency >= 1_000_000_000 && latency < 1_500_000_000, "stall told \(latency) ns after the last frame")
        #expect(cap.stats.stalls == 1)
        #expect(cap.isStreaming)
        // Still stalled: no second event while nothing changes.
        usleep(300_000)
        #expect(log.all.count == 1)
        // Let go of every buffer and keep none from now on: frames flow again.
        keeping.store(false, ordering: .relaxed)
        kept.withLock { $0.removeAll() }
        #expect(log.wait(for: 2))
        let resumed = log.all[1]
        #expect(!resumed.stalled && resumed.since == stall.since)
        let n = frames.load(ordering: .relaxed)
        var waited = 0
        while frames.load(ordering: .relaxed) <= n && waited < 2_000 { usleep(10_000); waited += 10 }
        #expect(frames.load(ordering: .relaxed) > n, "no frame within 2 s after the stall ended")
        kept.withLock { $0.removeAll() }
        try cap.stop()
        #expect(cap.stats.stalls == 1)
        print("MEASURED stall (synthetic, all buffers retained): told \(Double(latency) / 1e6) ms after the last frame")
    }

    @Test func test_S22_steady_frames_are_no_stall() throws {
        let cap = try manager.open(deviceID: SyntheticCamera.id)
        defer { try? cap.close() }
        let log = StallLog()
        // 10 fps: a frame every 100 ms, each wait ends in a frame, never a stall.
        try cap.start(CaptureRequest(width: 64, height: 48, frameRate: FrameRate(10)), onFrame: { _ in },
                      onStall: { log.add($0, $1) })
        usleep(1_500_000)
        try cap.stop()
        #expect(log.all.isEmpty)
        #expect(cap.stats.stalls == 0 && cap.stats.delivered >= 10)
    }
}
