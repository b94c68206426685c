// SPDX-License-Identifier: MIT
import Synchronization
import Testing
@testable import CamCore
#if canImport(Glibc)
import Glibc
#endif

/// S43 on the host, through the backend seam: a backend whose buffers say
/// another geometry than negotiated (what PipeWire's libcamera node does:
/// 640x480 announced, 636x480 at stride 1908 delivered), and one whose
/// buffers fit no geometry.
@Suite struct FrameGeometryTests {
    /// Delivers RGB3 frames described by `describe(n)` (width, height, stride, length) from one buffer.
    final class ScriptedBackend: CaptureBackend {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: 640 * 480 * 3, alignment: 64)
        var pool: BufferPool?
        var n: UInt32 = 0
        let describe: (UInt32) -> (Int, Int, Int, Int)
        init(_ describe: @escaping (UInt32) -> (Int, Int, Int, Int)) {
            self.describe = describe
            memset(memory, 0x40, 640 * 480 * 3)
        }
        deinit { memory.deallocate() }
        var fileDescriptor: Int32? { nil }
        var buffers: BufferPool? { pool }
        func start(_ r: CaptureRequest, waker: Waker) throws(CamError) -> CaptureFormat {
            pool = BufferPool(count: 1, waker: waker)
            return CaptureFormat(fourcc: .rgb24, width: 640, height: 480, strides: [1920], frameBytes: 921_600,
                                 frameRate: FrameRate(30), bufferCount: 1)
        }
        func nextFrame(into frame: inout Frame, timeoutMs: Int32) -> BackendEvent {
            var ts = timespec(tv_sec: 0, tv_nsec: 2_000_000)
            nanosleep(&ts, nil)
            let (w, h, stride, length) = describe(n)
            frame = Frame(fourcc: .rgb24, width: w, height: h, planeCount: 1,
                          planes: (Plane(base: memory, stride: stride, length: length), .empty, .empty),
                          timestampNs: monotonicNs(), sequence: n, flags: [], pool: pool, slot: 0)
            n += 1
            return .frame
        }
        func requeue(_ slot: Int) throws(CamError) {}
        func stop() { pool?.finishStreaming(); pool = nil }
        func close() { stop() }
    }

    struct Seen: Sendable { var sizes: [String] = []; var corrupted = 0; var changes: [String] = [] }

    static func run(_ backend: ScriptedBackend, output: FourCC? = nil, frames: Int = 6) throws -> (Seen, Capturer) {
        let device = DeviceInfo(id: "test:geometry", name: "scripted", node: "none", busInfo: "", driver: "test",
                                type: .virtual, position: .unknown)
        let cap = Capturer(device: device, backend: backend)
        let seen = Mutex(Seen())
        cap.onFormatChange = { fmt, why in seen.withLock { $0.changes.append("\(fmt.width)x\(fmt.height): \(why)") } }
        var req = CaptureRequest(fourcc: .rgb24, width: 640, height: 480)
        req.output = output
        try cap.start(req, onFrame: { f in
            seen.withLock { s in
                s.sizes.append("\(f.width)x\(f.height)/\(f.planes.0.stride)")
                if f.flags.contains(.corrupted) { s.corrupted += 1 }
            }
        })
        let end = monotonicNs() + 10_000_000_000
        while seen.withLock({ $0.sizes.count }) < frames && monotonicNs() < end {
            var ts = timespec(tv_sec: 0, tv_nsec: 2_000_000)
            nanosleep(&ts, nil)
        }
        try cap.stop()
        return (seen.withLock { $0 }, cap)
    }

    @Test func test_S43_a_consistent_other_geometry_is_delivered_as_it_is_and_reported() throws {
        // 636x480 at stride 1908 where 640x480 was negotiated.
        let (seen, cap) = try Self.run(ScriptedBackend { _ in (636, 480, 1908, 1908 * 480) })
        print("MEASURED S43 other geometry:", seen.sizes.prefix(3), cap.frameNote ?? "no note")
        #expect(seen.sizes.count >= 6 && seen.sizes.allSatisfy { $0 == "636x480/1908" }, "\(seen.sizes)")
        #expect(seen.corrupted == 0)
        #expect(seen.changes.count == 1, "\(seen.changes)")   // told once, not per frame
        let fmt = try #require(cap.format)
        #expect(fmt.width == 636 && fmt.height == 480 && fmt.strides == [1908] && fmt.adjustments.contains(.size))
        #expect(cap.frameNote?.contains("636x480 (stride 1908)") == true, "\(cap.frameNote ?? "")")
        try cap.close()
    }

    @Test func test_S43_converted_output_follows_the_true_size() throws {
        let (seen, cap) = try Self.run(ScriptedBackend { _ in (636, 480, 1908, 1908 * 480) }, output: .i420)
        #expect(seen.sizes.count >= 6 && seen.sizes.allSatisfy { $0 == "636x480/636" }, "\(seen.sizes)")
        #expect(seen.corrupted == 0)
        #expect(cap.format?.outputWidth == 636)
        try cap.close()
    }

    @Test func test_S43_a_frame_that_fits_no_geometry_is_marked_corrupt_with_the_reason() throws {
        // Every third frame: the 1920-byte stride of 640 pixels but half the rows' bytes.
        let (seen, cap) = try Self.run(ScriptedBackend { n in n % 3 == 2 ? (640, 480, 1920, 1920 * 240) : (640, 480, 1920, 921_600) },
                                       frames: 9)
        let bad = seen.sizes.indices.filter { $0 % 3 == 2 }.count
        print("MEASURED S43 no geometry:", seen.corrupted, "of", seen.sizes.count, cap.frameNote ?? "no note")
        #expect(seen.corrupted == bad, "\(seen.corrupted) corrupted of \(seen.sizes.count)")
        #expect(seen.changes.isEmpty)
        #expect(cap.format?.width == 640 && cap.format?.adjustments.contains(.size) == false)
        #expect(cap.frameNote?.contains("fits no geometry") == true, "\(cap.frameNote ?? "")")
        #expect(cap.stats.corrupted == UInt64(seen.corrupted))
        // A stride below a row is never delivered as fitting.
        let (s2, c2) = try Self.run(ScriptedBackend { _ in (640, 480, 1908, 921_600) })
        #expect(s2.corrupted == s2.sizes.count && s2.sizes.count >= 6, "\(s2)")
        #expect(c2.frameNote?.contains("stride 1908 is below") == true, "\(c2.frameNote ?? "")")
        try cap.close(); try c2.close()
    }
}
