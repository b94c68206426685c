// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// The built-in synthetic camera (SPEC S4): a moving test pattern (colour
/// bars sliding left, a white square bouncing) at any even size from
/// 16x16 to 3840x2160 and any rate from 1 to 120 fps, in YUYV, I420 and
/// NV12. Listed only when the app asks for it.
enum SyntheticCamera {
    static let id = "synthetic:0"
    static let formats: [FourCC] = [.yuyv, .i420, .nv12]
    static let minSize = 16, maxWidth = 3840, maxHeight = 2160
    static let minRate = FrameRate(1), maxRate = FrameRate(120)

    static let device = devices(count: 1)[0]

    /// The synthetic cameras listed for `count` (1 or 2): one camera
    /// "synthetic:0" with no position, or a front "synthetic:0" and a back
    /// "synthetic:1" (to try flip() without hardware), whose bars run the
    /// other way (black first), so a flip shows in the picture.
    static func devices(count: Int) -> [DeviceInfo] {
        if count <= 1 {
            return [DeviceInfo(id: id, name: "camcore synthetic camera", node: "synthetic", busInfo: "synthetic:0",
                               driver: "camcore", type: .virtual, position: .unknown, isSynthetic: true)]
        }
        return [
            DeviceInfo(id: "synthetic:0", name: "camcore synthetic camera (front)", node: "synthetic",
                       busInfo: "synthetic:0", driver: "camcore", type: .virtual, position: .front, isSynthetic: true),
            DeviceInfo(id: "synthetic:1", name: "camcore synthetic camera (back)", node: "synthetic",
                       busInfo: "synthetic:1", driver: "camcore", type: .virtual, position: .back, isSynthetic: true),
        ]
    }

    static var formatDescriptions: [FormatDescription] {
        formats.map { f in
            FormatDescription(
                fourcc: f, description: f == .yuyv ? "YUYV 4:2:2" : f == .i420 ? "Planar YUV 4:2:0" : "Y/UV 4:2:0",
                size: .stepwise(minWidth: minSize, maxWidth: maxWidth, stepWidth: 2,
                                minHeight: minSize, maxHeight: maxHeight, stepHeight: 2),
                rates: .continuous(min: minRate, max: maxRate))
        }
    }

    /// The colours of the bars as (Y, U, V), BT.601 limited range:
    /// white, yellow, cyan, green, magenta, red, blue, black.
    static let bars: [(UInt8, UInt8, UInt8)] = [
        (235, 128, 128), (210, 16, 146), (170, 166, 16), (145, 54, 34),
        (106, 202, 222), (81, 90, 240), (41, 240, 110), (16, 128, 128),
    ]
}

/// Heap buffers of the synthetic camera, freed when the last frame is gone.
final class HeapBuffers: BufferPool, @unchecked Sendable {
    var memory: [UnsafeMutableRawPointer] = []
    /// A free buffer (one the app does not hold) is reused as it is: no
    /// driver queue to hand released ones back to, so no wake-up.
    init(count: Int) { super.init(count: count, waker: nil) }
    deinit { for m in memory { m.deallocate() } }
}

/// The synthetic camera as a capture backend: frames are drawn on the
/// capture thread at the requested rate; sequence numbers count every
/// frame period, so frames skipped (all buffers retained, or the app too
/// slow) show as sequence gaps, as on a real camera.
final class SyntheticCapture: CaptureBackend {
    private var pool: HeapBuffers?
    private var waker: Waker?
    private var format = CaptureFormat(fourcc: .yuyv, width: 0, height: 0, strides: [], frameBytes: 0,
                                       frameRate: nil, bufferCount: 0)
    private var period: UInt64 = 0
    private var startNs: UInt64 = 0
    private var tick: UInt64 = 0
    private var nextSlot = 0
    /// One row of the bar pattern per plane, twice the width, so any
    /// horizontal shift is one copy.
    private var rows: [[UInt8]] = []
    private var closed = false
    /// The back camera ("synthetic:1") draws its bars in reverse order
    /// (black first), so a flip shows in the picture.
    private let reversedBars: Bool

    init(reversedBars: Bool = false) { self.reversedBars = reversedBars }

    var fileDescriptor: Int32? { nil }
    var buffers: BufferPool? { pool }

    func start(_ r: CaptureRequest, waker: Waker) throws(CamError) -> CaptureFormat {
        guard !closed else { throw .noDevice("the synthetic camera is closed") }
        guard SyntheticCamera.formats.contains(r.fourcc) else {
            throw .notSupported("the synthetic camera has no pixel format \(r.fourcc); it offers YUYV, YU12, NV12")
        }
        // Like a driver: clamp into range and round to the step (2).
        let w = min(max(r.width, SyntheticCamera.minSize), SyntheticCamera.maxWidth) & ~1
        let h = min(max(r.height, SyntheticCamera.minSize), SyntheticCamera.maxHeight) & ~1
        let rate = min(max(r.frameRate ?? FrameRate(30), SyntheticCamera.minRate), SyntheticCamera.maxRate)
        let stride = r.fourcc == .yuyv ? w * 2 : w
        let strides = PlaneLayout.strides(r.fourcc, stride: stride)
        let bytes = r.fourcc == .yuyv ? stride * h : stride * h * 3 / 2
        let p = HeapBuffers(count: r.bufferCount)
        for _ in 0..<r.bufferCount {
            let m = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
            m.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
            p.memory.append(m)
        }
        pool = p
        self.waker = waker
        format = CaptureFormat(fourcc: r.fourcc, width: w, height: h, strides: strides, frameBytes: bytes,
                               frameRate: rate, bufferCount: r.bufferCount)
        period = rate.frameDurationNs
        buildRows()
        startNs = 0   // set at the first frame, on the capture thread
        tick = 0
        nextSlot = 0
        return format
    }

    private func buildRows() {
        let w = format.width
        let reversed = reversedBars
        func bar(_ x: Int) -> (UInt8, UInt8, UInt8) {
            let i = (x % w) * 8 / w
            return SyntheticCamera.bars[reversed ? 7 - i : i]
        }
        switch format.fourcc {
        case .yuyv:
            var row = [UInt8](repeating: 0, count: 4 * w)
            for x in stride(from: 0, to: 2 * w, by: 2) {
                let (y, u, v) = bar(x)
                row[2 * x] = y; row[2 * x + 1] = u; row[2 * x + 2] = y; row[2 * x + 3] = v
            }
            rows = [row]
        case .i420:
            rows = [(0..<2 * w).map { bar($0).0 },
                    (0..<w).map { bar(2 * $0).1 },
                    (0..<w).map { bar(2 * $0).2 }]
        default: // NV12
            var uv = [UInt8](repeating: 0, count: 2 * w)
            for x in 0..<w { let (_, u, v) = bar(2 * x); uv[2 * x] = u; uv[2 * x + 1] = v }
            rows = [(0..<2 * w).map { bar($0).0 }, uv]
        }
    }

    func nextFrame(into frame: inout Frame, timeoutMs: Int32) -> BackendEvent {
        guard let pool, let waker else { return .failed(.state("not streaming")) }
        if startNs == 0 { startNs = monotonicNs() }
        let due = startNs &+ tick &* period
        let now = monotonicNs()
        if due > now {
            if timeoutMs == 0 { return .idle }   // a poll (S36 acquire with timeout 0): no wait
            var p = pollfd(fd: waker.fd, events: Int16(POLLIN), revents: 0)
            let ms = Int32(min((due - now + 999_999) / 1_000_000, UInt64(max(timeoutMs, 1))))
            let rc = Sys.poll(&p, 1, timeoutMs: ms).0
            if rc > 0 { waker.drain(); return .woken }
            if rc < 0 || monotonicNs() < due { return .idle }
        } else if now - due > 4 * period {
            // Fell far behind: skip the missed periods (they count as drops).
            tick = (now - startNs) / period
        }
        // The frame's capture time is its scheduled time: exact spacing.
        let stamp = startNs &+ tick &* period
        let sequence = UInt32(truncatingIfNeeded: tick)
        tick += 1
        // A free buffer: one the app does not hold. None free: a drop.
        var slot = -1
        for i in 0..<pool.memory.count {
            let s = (nextSlot + i) % pool.memory.count
            if !pool.isHeld(s) { slot = s; break }
        }
        if slot < 0 { return .idle }
        nextSlot = (slot + 1) % pool.memory.count
        draw(into: pool.memory[slot], sequence: sequence)
        let base = pool.memory[slot]
        let split = PlaneLayout.split(format.fourcc, base: base, used: format.frameBytes,
                                      stride: format.strides[0], height: format.height)
        frame = Frame(fourcc: format.fourcc, width: format.width, height: format.height,
                      planeCount: split.count, planes: split.planes, timestampNs: stamp,
                      sequence: sequence, flags: [], pool: pool, slot: slot)
        return .frame
    }

    /// Bars shifted 4 pixels per frame; a white square bouncing diagonally.
    private func draw(into base: UnsafeMutableRawPointer, sequence: UInt32) {
        let w = format.width, h = format.height
        let shift = Int(sequence % UInt32(w / 2)) * 4 % w
        let side = max(2, (h / 8) & ~1)
        let travelX = max(1, w - side), travelY = max(1, h - side)
        let t = Int(sequence) * 6
        var sx = t % (2 * travelX); if sx > travelX { sx = 2 * travelX - sx }
        var sy = t % (2 * travelY); if sy > travelY { sy = 2 * travelY - sy }
        sx &= ~1; sy &= ~1
        let b = base.assumingMemoryBound(to: UInt8.self)
        switch format.fourcc {
        case .yuyv:
            let rowBytes = w * 2
            rows[0].withUnsafeBufferPointer { r in
                for y in 0..<h { (b + y * rowBytes).update(from: r.baseAddress! + shift * 2, count: rowBytes) }
            }
            for y in sy..<min(h, sy + side) {
                let row = b + y * rowBytes
                for x in stride(from: sx, to: min(w, sx + side), by: 2) {
                    row[2 * x] = 235; row[2 * x + 1] = 128; row[2 * x + 2] = 235; row[2 * x + 3] = 128
                }
            }
        case .i420:
            let ySize = w * h, cw = w / 2, ch = h / 2
            rows[0].withUnsafeBufferPointer { r in
                for y in 0..<h { (b + y * w).update(from: r.baseAddress! + shift, count: w) }
            }
            for p in 1...2 {
                let plane = b + ySize + (p - 1) * cw * ch
                rows[p].withUnsafeBufferPointer { r in
                    for y in 0..<ch { (plane + y * cw).update(from: r.baseAddress! + shift / 2, count: cw) }
                }
            }
            for y in sy..<min(h, sy + side) { (b + y * w + sx).update(repeating: 235, count: min(side, w - sx)) }
            for p in 1...2 {
                let plane = b + ySize + (p - 1) * cw * ch
                for y in sy / 2..<min(ch, (sy + side) / 2) {
                    (plane + y * cw + sx / 2).update(repeating: 128, count: min(side / 2, cw - sx / 2))
                }
            }
        default: // NV12
            let ySize = w * h, ch = h / 2
            rows[0].withUnsafeBufferPointer { r in
                for y in 0..<h { (b + y * w).update(from: r.baseAddress! + shift, count: w) }
            }
            rows[1].withUnsafeBufferPointer { r in
                for y in 0..<ch { (b + ySize + y * w).update(from: r.baseAddress! + shift, count: w) }
            }
            for y in sy..<min(h, sy + side) { (b + y * w + sx).update(repeating: 235, count: min(side, w - sx)) }
            for y in sy / 2..<min(ch, (sy + side) / 2) {
                (b + ySize + y * w + sx).update(repeating: 128, count: min(side, w - sx))
            }
        }
    }

    func requeue(_ slot: Int) throws(CamError) {}

    func stop() {
        pool?.finishStreaming()
        pool = nil
        waker = nil
    }

    func close() {
        stop()
        closed = true
    }
}

/// The synthetic cameras as a camera source (S4): listed only when asked
/// for, always present, never plugged or unplugged.
final class SyntheticSource: CameraSource {
    let name = "synthetic"
    let cameras: [DeviceInfo]

    /// `count`: 1 (one camera) or 2 (a front and a back one).
    init(count: Int) { cameras = SyntheticCamera.devices(count: count) }

    func devices() -> [DeviceInfo] { cameras }

    func device(id: String) -> DeviceInfo? { cameras.first { $0.id == id } }

    func formats(of device: DeviceInfo) throws(CamError) -> [FormatDescription] {
        SyntheticCamera.formatDescriptions
    }

    func rates(of device: DeviceInfo, fourcc: FourCC, width: Int, height: Int) throws(CamError) -> RateRange {
        guard SyntheticCamera.formats.contains(fourcc) else { throw .notSupported("synthetic camera has no \(fourcc)") }
        return .continuous(min: SyntheticCamera.minRate, max: SyntheticCamera.maxRate)
    }

    func open(_ device: DeviceInfo) throws(CamError) -> CaptureBackend {
        SyntheticCapture(reversedBars: device.position == .back)
    }

    func watch(_ observer: @escaping @Sendable (DeviceChange) -> Void) throws(CamError) -> SourceWatch? { nil }
}
