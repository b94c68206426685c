// SPDX-License-Identifier: MIT
import Testing
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
@testable import CamCore

/// Collects what a capture delivers, thread-safely.
final class Collector: @unchecked Sendable {
    struct Seen { var sequence: UInt32; var timestamp: UInt64; var fourcc: FourCC; var width: Int; var height: Int
                  var planeCount: Int; var strides: [Int]; var lengths: [Int]; var firstBytes: [UInt8] }
    let seen = Mutex<[Seen]>([])
    var count: Int { seen.withLock { $0.count } }

    func add(_ f: Frame) {
        let strides = (0..<f.planeCount).map { f.plane($0).stride }
        let lengths = (0..<f.planeCount).map { f.plane($0).length }
        let p = f.planes.0.base!.assumingMemoryBound(to: UInt8.self)
        let bytes = (0..<f.planes.0.stride).map { p[$0] }
        seen.withLock { $0.append(Seen(sequence: f.sequence, timestamp: f.timestampNs, fourcc: f.fourcc,
                                       width: f.width, height: f.height, planeCount: f.planeCount,
                                       strides: strides, lengths: lengths, firstBytes: bytes)) }
    }

    func wait(for n: Int, seconds: Double = 10) -> Bool {
        let end = monotonicNs() + UInt64(seconds * 1e9)
        while count < n && monotonicNs() < end { usleep(5000) }
        return count >= n
    }
}

@Suite(.serialized) struct SyntheticCaptureTests {
    let manager = try! Manager(config: ManagerConfig(includeSynthetic: true))

    @Test func test_S4_synthetic_listed_only_when_asked() {
        let plain = try! Manager(config: ManagerConfig(includeSynthetic: false))
        if getenv("CAMCORE_SYNTHETIC_CAMERA") == nil {
            #expect(!plain.devices().contains { $0.isSynthetic })
        }
        let d = manager.devices().filter { $0.isSynthetic }
        #expect(d.count == 1)
        #expect(d.first?.id == "synthetic:0")
        #expect(d.first?.type == .virtual)
    }

    @Test func test_S5_synthetic_formats_are_ranges() throws {
        let f = try manager.formats(deviceID: SyntheticCamera.id)
        #expect(f.map { $0.fourcc } == [.yuyv, .i420, .nv12])
        #expect(f[0].size == .stepwise(minWidth: 16, maxWidth: 3840, stepWidth: 2, minHeight: 16, maxHeight: 2160, stepHeight: 2))
        #expect(f[0].rates == .continuous(min: FrameRate(1), max: FrameRate(120)))
    }

    @Test func test_S22_yuyv_frames_have_fields_and_rising_sequence() throws {
        let cap = try manager.open(deviceID: SyntheticCamera.id)
        let c = Collector()
        try cap.start(CaptureRequest(fourcc: .yuyv, width: 320, height: 240, frameRate: FrameRate(60)),
                      onFrame: { c.add($0) })
        #expect(c.wait(for: 12))
        try cap.stop()
        let seen = c.seen.withLock { $0 }
        #expect(cap.format?.strides == [640])
        #expect(cap.format?.frameRate == FrameRate(60))
        for (i, s) in seen.enumerated() {
            #expect(s.sequence == UInt32(i))
            #expect(s.fourcc == .yuyv && s.width == 320 && s.height == 240)
            #expect(s.planeCount == 1 && s.strides == [640] && s.lengths == [640 * 240])
            if i > 0 { #expect(s.timestamp > seen[i - 1].timestamp) }
        }
        // 60 fps: frames about 16.7 ms apart.
        let span = Double(seen.last!.timestamp - seen.first!.timestamp) / Double(seen.count - 1)
        #expect(span > 12e6 && span < 30e6)
        // The pattern moves: the bars shift between frames.
        #expect(seen[0].firstBytes != seen[1].firstBytes)
        #expect(cap.stats.delivered == UInt64(seen.count))
    }

    @Test func test_S22_i420_and_nv12_planes() throws {
        for (fourcc, strides) in [(FourCC.i420, [320, 160, 160]), (FourCC.nv12, [320, 320])] {
            let cap = try manager.open(deviceID: SyntheticCamera.id)
            let c = Collector()
            try cap.start(CaptureRequest(fourcc: fourcc, width: 320, height: 240), onFrame: { c.add($0) })
            #expect(c.wait(for: 3))
            try cap.close()
            let s = try #require(c.seen.withLock { $0.first })
            #expect(s.fourcc == fourcc)
            #expect(s.strides == strides)
            #expect(s.lengths[0] == 320 * 240)
            #expect(s.lengths[1] == strides[1] * 120)
        }
    }

    @Test func test_S16_no_callback_after_stop_and_stop_in_callback_refused() throws {
        let cap = try manager.open(deviceID: SyntheticCamera.id)
        let c = Collector()
        let inside = Mutex<CamError?>(nil)
        try cap.start(CaptureRequest(width: 64, height: 48, frameRate: FrameRate(120)), onFrame: { f in
            c.add(f)
            if c.count == 3 {
                do throws(CamError) { try cap.stop() } catch { inside.withLock { $0 = error } }
            }
        })
        #expect(c.wait(for: 5))
        try cap.stop()
        let n = c.count
        usleep(100_000)
        #expect(c.count == n)
        #expect(!cap.isStreaming)
        if case .wouldDeadlock = inside.withLock({ $0 }) {} else { Issue.record("stop in callback was not refused") }
        // Start twice is a state error; the capturer still works afterwards.
        try cap.start(CaptureRequest(width: 64, height: 48), onFrame: { _ in })
        #expect(throws: CamError.self) { try cap.start(CaptureRequest(), onFrame: { _ in }) }
        try cap.close()
        #expect(throws: CamError.self) { try cap.start(CaptureRequest(), onFrame: { _ in }) }
    }

    @Test func test_S23_retained_buffer_not_reused_and_drops_counted() throws {
        let cap = try manager.open(deviceID: SyntheticCamera.id)
        let kept = Mutex<[RetainedFrame]>([])
        let c = Collector()
        // Keep every frame: with 3 buffers, frames after the third are dropped
        // (sequence gaps), never a hang and never an overwrite.
        try cap.start(CaptureRequest(width: 64, height: 48, frameRate: FrameRate(120), bufferCount: 3),
                      onFrame: { f in c.add(f); kept.withLock { $0.append(f.retain()) } })
        #expect(c.wait(for: 3))
        func bytes() -> [[UInt8]] {
            kept.withLock { $0.map { Array(UnsafeRawBufferPointer(start: $0.frame.planes.0.base, count: 64 * 2 * 48)) } }
        }
        let before = bytes()
        usleep(100_000)
        // All buffers held: nothing delivered, nothing overwritten.
        #expect(c.count == 3)
        let after = bytes()
        #expect(after == before)
        // Release all: capture resumes, with a sequence gap counted as drops.
        kept.withLock { $0.removeAll() }
        #expect(c.wait(for: 6))
        try cap.stop()
        #expect(cap.stats.dropped > 0)
        let seq = c.seen.withLock { $0.map { $0.sequence } }
        #expect(seq[3] > seq[2] + 1)
    }

    @Test func test_S23_retained_frame_outlives_stop() throws {
        let cap = try manager.open(deviceID: SyntheticCamera.id)
        let kept = Mutex<RetainedFrame?>(nil)
        try cap.start(CaptureRequest(width: 64, height: 48, frameRate: FrameRate(120)), onFrame: { f in
            kept.withLock { if $0 == nil { $0 = f.retain() } }
        })
        while kept.withLock({ $0 }) == nil { usleep(1000) }
        let r = kept.withLock { $0 }!
        let before = Array(UnsafeRawBufferPointer(start: r.frame.planes.0.base, count: 6144))
        usleep(100_000)
        try cap.close()
        let after = Array(UnsafeRawBufferPointer(start: r.frame.planes.0.base, count: 6144))
        #expect(before == after)
        #expect(r.frame.sequence == 0)
    }

    @Test func test_S31_unknown_device_and_bad_format() throws {
        #expect(throws: CamError.noDevice("no camera with id \"nope\" is present")) {
            _ = try manager.open(deviceID: "nope")
        }
        let cap = try manager.open(deviceID: SyntheticCamera.id)
        #expect(throws: CamError.self) { try cap.start(CaptureRequest(fourcc: .mjpeg), onFrame: { _ in }) }
        // Still usable after the error.
        let c = Collector()
        try cap.start(CaptureRequest(width: 64, height: 48), onFrame: { c.add($0) })
        #expect(c.wait(for: 2))
        try cap.close()
    }
}
