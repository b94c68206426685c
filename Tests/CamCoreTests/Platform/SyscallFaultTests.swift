// SPDX-License-Identifier: MIT
import CV4L2
import Glibc
import Synchronization
import Testing
@testable import CamCore

/// Errno mapping of the V4L2 path on the host (SPEC S25, S26): the test
/// build's syscall hooks (Platform/Syscalls.swift) stand in for a driver
/// that fails one call with one errno. The kernel tests check the same
/// codes against vivid and v4l2loopback in the QEMU guest.
@Suite(.serialized)
struct SyscallFaultTests {
    /// A one-format capture node (YUYV, 4 mmap buffers) answered by the
    /// hooks; `fail` makes one request fail with an errno. Its fd is a
    /// real /dev/null descriptor (always readable), so poll() works.
    final class FakeNode: @unchecked Sendable {
        static let path = "/dev/camcore-fake-video"
        let fd: Int32 = open("/dev/null", O_RDWR | O_CLOEXEC)
        struct State {
            var fail: [UInt: Int32] = [:]
            var openErrno: Int32 = 0
            var queued: [UInt32] = []
            var sequence: UInt32 = 0
            var width: UInt32 = 0, height: UInt32 = 0
            var buffers: [UInt] = []  // mapping addresses
            /// The driver stops filling buffers: DQBUF finds none (EAGAIN).
            var stalled = false
            /// S45: the orientation and sensor rotation controls, when set.
            var orientation: Int32? = nil
            var sensorRotation: Int32? = nil
            /// A stream off and on again ends the stall (S48's restart works).
            var unstallOnStreamOn = false
            var streamOns = 0
        }
        let state = Mutex(State())
        let bufferBytes = 640 * 480 * 2

        func install() {
            Sys.hooks.withLock { h in
                h.open = { [self] path in
                    guard path == Self.path else { return nil }
                    let e = state.withLock { $0.openErrno }
                    return e != 0 ? (-1, e) : (dup(fd), 0)
                }
                h.ioctl = { [self] fd, request, arg in handle(fd, request, arg) }
                h.mmap = { [self] _, length, offset in
                    let p = UnsafeMutableRawPointer.allocate(byteCount: length, alignment: 64)
                    p.initializeMemory(as: UInt8.self, repeating: UInt8(offset / UInt32(bufferBytes)), count: length)
                    state.withLock { $0.buffers.append(UInt(bitPattern: p)) }
                    return (p, 0)
                }
                h.munmap = { [self] p, _ in
                    let a = UInt(bitPattern: p)
                    let mine = state.withLock { s -> Bool in
                        guard let i = s.buffers.firstIndex(of: a) else { return false }
                        s.buffers.remove(at: i)
                        return true
                    }
                    if mine { p.deallocate() }
                    return mine
                }
            }
        }

        func uninstall() {
            Sys.hooks.withLock { $0 = Sys.Hooks() }
            close(fd)
        }

        /// The driver: nil passes the call on (another fd), else an errno.
        private func handle(_ callFD: Int32, _ request: UInt, _ arg: UnsafeMutableRawPointer) -> Int32? {
            // Only descriptors dup'ed from this node's /dev/null.
            var a = stat(), b = stat()
            guard fstat(callFD, &a) == 0, fstat(fd, &b) == 0, a.st_rdev == b.st_rdev, a.st_ino == b.st_ino else { return nil }
            if let e = state.withLock({ $0.fail[request] }) { return e }
            switch request {
            case CC_VIDIOC_QUERYCAP:
                let c = arg.assumingMemoryBound(to: v4l2_capability.self)
                c.pointee = v4l2_capability()
                withUnsafeMutableBytes(of: &c.pointee.card) { _ = strcpy($0.baseAddress!.assumingMemoryBound(to: CChar.self), "fake") }
                c.pointee.device_caps = UInt32(V4L2_CAP_VIDEO_CAPTURE) | UInt32(V4L2_CAP_STREAMING)
                c.pointee.capabilities = c.pointee.device_caps | UInt32(V4L2_CAP_DEVICE_CAPS)
                return 0
            case CC_VIDIOC_ENUM_FMT:
                let d = arg.assumingMemoryBound(to: v4l2_fmtdesc.self)
                guard d.pointee.index == 0 else { return EINVAL }
                d.pointee.pixelformat = FourCC.yuyv.rawValue
                return 0
            case CC_VIDIOC_S_FMT:
                let f = arg.assumingMemoryBound(to: v4l2_format.self)
                f.pointee.fmt.pix.width = 640
                f.pointee.fmt.pix.height = 480
                f.pointee.fmt.pix.bytesperline = 1280
                f.pointee.fmt.pix.sizeimage = UInt32(bufferBytes)
                return 0
            case CC_VIDIOC_G_CTRL:
                let c = arg.assumingMemoryBound(to: v4l2_control.self)
                let v = state.withLock { s -> Int32? in
                    c.pointee.id == CC_V4L2_CID_CAMERA_ORIENTATION ? s.orientation
                        : c.pointee.id == CC_V4L2_CID_CAMERA_SENSOR_ROTATION ? s.sensorRotation : nil
                }
                guard let v else { return EINVAL }
                c.pointee.value = v
                return 0
            case CC_VIDIOC_G_PARM, CC_VIDIOC_ENUM_FRAMEINTERVALS, CC_VIDIOC_ENUM_FRAMESIZES:
                return EINVAL
            case CC_VIDIOC_REQBUFS, CC_VIDIOC_STREAMON, CC_VIDIOC_STREAMOFF:
                if request == CC_VIDIOC_STREAMOFF { state.withLock { $0.queued = [] } }
                if request == CC_VIDIOC_STREAMON {
                    state.withLock { s in
                        s.streamOns += 1
                        if s.unstallOnStreamOn { s.stalled = false }
                    }
                }
                return 0
            case CC_VIDIOC_QUERYBUF:
                let buf = arg.assumingMemoryBound(to: v4l2_buffer.self)
                buf.pointee.length = UInt32(bufferBytes)
                buf.pointee.m.offset = buf.pointee.index * UInt32(bufferBytes)
                return 0
            case CC_VIDIOC_QBUF:
                let i = arg.assumingMemoryBound(to: v4l2_buffer.self).pointee.index
                state.withLock { $0.queued.append(i) }
                return 0
            case CC_VIDIOC_DQBUF:
                if state.withLock({ $0.stalled }) {
                    // The fd (/dev/null) always polls readable: pace the loop.
                    usleep(5000)
                    return EAGAIN
                }
                let buf = arg.assumingMemoryBound(to: v4l2_buffer.self)
                return state.withLock { s -> Int32 in
                    guard !s.queued.isEmpty else { return EAGAIN }
                    usleep(2000)
                    buf.pointee.index = s.queued.removeFirst()
                    buf.pointee.bytesused = UInt32(bufferBytes)
                    buf.pointee.sequence = s.sequence
                    s.sequence += 1
                    return 0
                }
            default:
                return ENOTTY
            }
        }
    }

    let device = DeviceInfo(id: "v4l2:fake:0", name: "fake", node: FakeNode.path, busInfo: "fake", driver: "fake",
                            type: .virtual, position: .unknown, deviceCaps: UInt32(V4L2_CAP_VIDEO_CAPTURE))

    func withFake<R>(_ body: (FakeNode) throws -> R) rethrows -> R {
        let node = FakeNode()
        node.install()
        defer { node.uninstall() }
        return try body(node)
    }

    /// Starts a capturer on the fake node; the error it throws, if any.
    func startError(_ node: FakeNode) -> CamError? {
        do throws(CamError) {
            let c = Capturer(device: device, backend: try V4L2Capture(device: device))
            defer { try? c.close() }
            try c.start(CaptureRequest(fourcc: .yuyv, width: 640, height: 480, frameRate: nil), onFrame: { _ in })
            return nil
        } catch {
            return error
        }
    }

    @Test func test_S26_open_errno_maps_to_status() {
        withFake { node in
            for (e, expected) in [(EACCES, "access"), (EBUSY, "busy"), (ENODEV, "noDevice"), (ENOENT, "noDevice")] {
                node.state.withLock { $0.openErrno = e }
                let error = startError(node)
                let kind: String
                switch error {
                case .access?: kind = "access"
                case .busy?: kind = "busy"
                case .noDevice?: kind = "noDevice"
                default: kind = "\(String(describing: error))"
                }
                #expect(kind == expected, "open errno \(e)")
                #expect(error?.message.hasPrefix("open \(FakeNode.path): ") == true)
            }
        }
    }

    @Test func test_S17_fake_node_streams_frames() throws {
        try withFake { node in
            let c = Capturer(device: device, backend: try V4L2Capture(device: device))
            defer { try? c.close() }
            let seen = Mutex<[(FourCC, Int, Int, UInt32)]>([])
            try c.start(CaptureRequest(fourcc: .yuyv, width: 640, height: 480, frameRate: nil), onFrame: { f in
                seen.withLock { $0.append((f.fourcc, f.width, f.planes.0.stride, f.sequence)) }
            })
            for _ in 0..<200 where seen.withLock({ $0.count }) < 5 { usleep(10_000) }
            try c.stop()
            let frames = seen.withLock { $0 }
            #expect(frames.count >= 5)
            #expect(frames.allSatisfy { $0.0 == .yuyv && $0.1 == 640 && $0.2 == 1280 })
            #expect(frames.map(\.3) == Array(0..<UInt32(frames.count)))
        }
    }

    @Test func test_S26_busy_on_set_format_names_the_other_process() {
        withFake { node in
            node.state.withLock { $0.fail[CC_VIDIOC_S_FMT] = EBUSY }
            guard case .busy(let m)? = startError(node) else { Issue.record("not busy"); return }
            #expect(m.hasPrefix("device busy: \(FakeNode.path) (fake) is in use, "), "\(m)")
        }
    }

    @Test func test_S26_refused_reqbufs_is_an_io_error() {
        withFake { node in
            node.state.withLock { $0.fail[CC_VIDIOC_REQBUFS] = EINVAL }
            guard case .io(let m)? = startError(node) else { Issue.record("not io"); return }
            #expect(m.contains("VIDIOC_REQBUFS"))
        }
    }

    @Test func test_S47_streamon_enospc_is_a_bandwidth_error_naming_the_setting() {
        withFake { node in
            node.state.withLock { $0.fail[CC_VIDIOC_STREAMON] = ENOSPC }
            guard case .bandwidth(let m)? = startError(node) else { Issue.record("not bandwidth"); return }
            #expect(m.hasPrefix("not enough USB bandwidth for YUYV "), "\(m)")
            #expect(m.contains("Choose MJPEG, or a lower size or rate"), "\(m)")
            // Every mapping was undone by the failed start.
            #expect(node.state.withLock { $0.buffers.isEmpty })
        }
    }

    /// A DQBUF errno ends the stream with its own kind while the node is
    /// still in sysfs (/dev/null here: 1:3 stays).
    @Test func test_S25_dequeue_errno_on_a_present_node_ends_the_stream() throws {
        for (e, expected) in [(ENODEV, "noDevice"), (EIO, "io"), (EINVAL, "notSupported")] {
            try dequeueFails(errno: e, expected: expected)
        }
    }

    /// uvcvideo fails DQBUF with EIO or EINVAL just before it unregisters
    /// an unplugged camera's node: with the node gone from sysfs, any
    /// errno reads as noDevice, "(the camera was disconnected)" added.
    @Test func test_S25_S39_dequeue_errno_after_unplug_is_no_device() throws {
        for e in [EIO, EINVAL, EPIPE] {
            // (FakeNode.uninstall clears every hook: set for each round.)
            Sys.hooks.withLock { $0.deviceGone = { _ in true } }
            try dequeueFails(errno: e, expected: "noDevice", suffix: " (the camera was disconnected)")
        }
    }

    func dequeueFails(errno e: Int32, expected: String, suffix: String = "") throws {
        try withFake { node in
            let c = Capturer(device: device, backend: try V4L2Capture(device: device))
            defer { try? c.close() }
            let errors = Mutex<[CamError]>([])
            let frames = Atomic<Int>(0)
            try c.start(CaptureRequest(fourcc: .yuyv, width: 640, height: 480, frameRate: nil),
                        onFrame: { _ in frames.add(1, ordering: .relaxed) },
                        onError: { err in errors.withLock { $0.append(err) } })
            for _ in 0..<200 where frames.load(ordering: .relaxed) < 3 { usleep(10_000) }
            node.state.withLock { $0.fail[CC_VIDIOC_DQBUF] = e }
            for _ in 0..<200 where errors.withLock({ $0.isEmpty }) { usleep(10_000) }
            let got = errors.withLock { $0 }
            #expect(got.count == 1)
            let kind: String
            switch got.first {
            case .noDevice?: kind = "noDevice"
            case .io?: kind = "io"
            case .notSupported?: kind = "notSupported"
            default: kind = "\(String(describing: got.first))"
            }
            #expect(kind == expected, "DQBUF errno \(e)")
            #expect(got.first?.message.hasPrefix("VIDIOC_DQBUF on \(FakeNode.path): ") == true)
            #expect(got.first?.message.hasSuffix(suffix) == true, "\(String(describing: got.first))")
            if suffix.isEmpty { #expect(got.first?.message.contains("disconnected") == false) }
        }
    }

    /// S22 stalls: the driver stops answering DQBUF with frames, with no
    /// error. The capturer tells it once (on_stall, the stall counter)
    /// after max(1 s, 5 intervals) and again when frames return; the stream
    /// is not restarted.
    @Test func test_S22_dequeue_without_frames_is_a_stall_then_resumes() throws {
        try withFake { node in
            let c = Capturer(device: device, backend: try V4L2Capture(device: device))
            defer { try? c.close() }
            let frames = Mutex<[(UInt64, UInt32)]>([])  // (timestamp, sequence)
            let events = Mutex<[(UInt64, Bool, UInt64)]>([])  // (arrival, stalled, since)
            let errors = Atomic<Int>(0)
            var request = CaptureRequest(fourcc: .yuyv, width: 640, height: 480, frameRate: nil)
            request.stallRestartMs = 0   // S22 alone: no restart (S48)
            try c.start(request,
                        onFrame: { f in frames.withLock { $0.append((f.timestampNs, f.sequence)) } },
                        onError: { _ in errors.add(1, ordering: .relaxed) },
                        onStall: { stalled, since in
                            let t = monotonicNs()
                            events.withLock { $0.append((t, stalled, since)) }
                        })
            for _ in 0..<200 where frames.withLock({ $0.count }) < 5 { usleep(10_000) }
            node.state.withLock { $0.stalled = true }
            for _ in 0..<300 where events.withLock({ $0.isEmpty }) { usleep(10_000) }
            let stall = try #require(events.withLock { $0.first })
            let last = try #require(frames.withLock { $0.last })
            #expect(stall.1 && stall.2 == last.0)
            let latency = stall.0 - last.0
            #expect(latency >= 1_000_000_000 && latency < 1_500_000_000, "told \(latency) ns after the last frame")
            #expect(c.stats.stalls == 1 && c.isStreaming)
            let before = frames.withLock { $0.count }
            node.state.withLock { $0.stalled = false }
            for _ in 0..<200 where events.withLock({ $0.count }) < 2 { usleep(10_000) }
            for _ in 0..<200 where frames.withLock({ $0.count }) < before + 5 { usleep(10_000) }
            try c.stop()
            let all = events.withLock { $0 }
            #expect(all.count == 2)
            #expect(all.count == 2 && !all[1].1 && all[1].2 == stall.2)
            // The same stream goes on: sequences continue, nothing restarted.
            let seqs = frames.withLock { $0.map(\.1) }
            #expect(seqs == Array(0..<UInt32(seqs.count)))
            #expect(errors.load(ordering: .relaxed) == 0 && c.stats.stalls == 1)
            print("MEASURED stall (fake V4L2 node): told \(Double(latency) / 1e6) ms after the last frame")
        }
    }

    /// S48: a stall that lasts stallRestartMs restarts the stream, told
    /// before and after; frames come back without the app doing anything.
    /// What an S48 test sees of a capture on the fake node.
    final class Seen: @unchecked Sendable {
        let frames = Atomic<Int>(0)
        let restarts = Mutex<[String]>([])
        let errors = Mutex<[CamError]>([])
    }

    /// Starts `c` with S48's settings, recording into `seen`; returns once 5 frames came.
    func startRecording(_ c: Capturer, restartMs: Int, tries: Int = 3, _ seen: Seen) throws {
        var request = CaptureRequest(fourcc: .yuyv, width: 640, height: 480, frameRate: nil)
        request.stallRestartMs = restartMs
        request.stallRestartTries = tries
        try c.start(request, onFrame: { _ in seen.frames.add(1, ordering: .relaxed) },
                    onError: { e in seen.errors.withLock { $0.append(e) } },
                    onRestart: { done, attempt in
                        seen.restarts.withLock { $0.append("\(done ? "restarted" : "restarting") \(attempt)") }
                    })
        for _ in 0..<200 where seen.frames.load(ordering: .relaxed) < 5 { usleep(10_000) }
    }

    @Test func test_S48_a_stalled_stream_is_restarted_and_frames_come_back() throws {
        try withFake { node in
            let c = Capturer(device: device, backend: try V4L2Capture(device: device))
            defer { try? c.close() }
            let seen = Seen()
            try startRecording(c, restartMs: 300, seen)
            node.state.withLock { $0.stalled = true; $0.unstallOnStreamOn = true }
            let t0 = monotonicNs()
            let before = seen.frames.load(ordering: .relaxed)
            for _ in 0..<500 where seen.frames.load(ordering: .relaxed) < before + 5 { usleep(10_000) }
            let back = Double(monotonicNs() - t0) / 1e6
            try c.stop()
            print("MEASURED S48 (fake node): frames again \(back) ms after the stall began; \(seen.restarts.withLock { $0 })")
            #expect(seen.frames.load(ordering: .relaxed) >= before + 5)
            #expect(seen.restarts.withLock { $0 } == ["restarting 1", "restarted 1"])
            #expect(c.stats.restarts == 1 && c.stats.stalls == 1)
            #expect(node.state.withLock { $0.streamOns } == 2)
            #expect(seen.errors.withLock { $0.isEmpty })
        }
    }

    /// S48: a stall restarts do not end ends the stream after the tries,
    /// with a timeout error naming them.
    @Test func test_S48_a_stall_that_goes_on_ends_after_the_tries() throws {
        try withFake { node in
            let c = Capturer(device: device, backend: try V4L2Capture(device: device))
            defer { try? c.close() }
            let seen = Seen()
            try startRecording(c, restartMs: 200, tries: 2, seen)
            var request = CaptureRequest(fourcc: .yuyv, width: 640, height: 480, frameRate: nil)
            node.state.withLock { $0.stalled = true }
            for _ in 0..<600 where seen.errors.withLock({ $0.isEmpty }) { usleep(10_000) }
            let e = seen.errors.withLock { $0 }
            #expect(e.count == 1)
            if case .timeout(let m)? = e.first {
                #expect(m.contains("2 restarts did not bring frames back"), "\(m)")
            } else {
                Issue.record("not a timeout: \(e)")
            }
            #expect(seen.restarts.withLock { $0 } == ["restarting 1", "restarted 1", "restarting 2", "restarted 2"])
            #expect(!c.isStreaming && c.stats.restarts == 2)
            // Bad settings are refused before the device is touched.
            request.stallRestartMs = 700_000
            #expect(throws: CamError.self) { try c.start(request, onFrame: { _ in }) }
        }
    }

    /// S45: position from V4L2_CID_CAMERA_ORIENTATION, rotation from
    /// V4L2_CID_CAMERA_SENSOR_ROTATION (no guest driver has them).
    @Test func test_S45_orientation_and_sensor_rotation_are_read_from_the_controls() throws {
        try withFake { node in
            let n = try V4L2Node(path: FakeNode.path, wrap: false)
            #expect(V4L2Query.sensorRotation(n) == nil && V4L2Query.orientation(n) == nil)
            node.state.withLock { $0.orientation = 1; $0.sensorRotation = 90 }   // V4L2_CAMERA_ORIENTATION_BACK
            #expect(V4L2Query.sensorRotation(n) == 90)
            #expect(V4L2Query.orientation(n) == .back)
            node.state.withLock { $0.orientation = 2; $0.sensorRotation = 180 }  // EXTERNAL
            #expect(V4L2Query.orientation(n) == .external && V4L2Query.sensorRotation(n) == 180)
        }
    }
}
