// SPDX-License-Identifier: MIT
internal import CLibcamera
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The buffers of one libcamera stream (S23): the plugin's mappings of the
/// FrameBufferAllocator's dmabufs stay until the last frame referring to
/// them is gone, after the stream stopped and the camera was released too.
final class LibcameraBuffers: BufferPool, @unchecked Sendable {
    private let context: LibcameraSource.Context
    private let maps: OpaquePointer

    init(context: LibcameraSource.Context, maps: OpaquePointer, count: Int, waker: Waker) {
        self.context = context
        self.maps = maps
        super.init(count: count, waker: waker)
    }

    deinit { context.api.pointee.maps_free(maps) }
}

/// Captures from a libcamera camera (SPEC S41): acquires it when opened
/// (another process sees it busy until close: S9's camera off is a close),
/// configures one VideoRecording stream at the asked pixel format and
/// size (libcamera adjusts it, e.g. vimc cuts widths to multiples of 6:
/// the capturer reports the size it got as adjusted, S6), allocates and
/// maps the frame buffers, and keeps one request per buffer in flight: a
/// completed request is a frame, given back (reused and queued) when the
/// frame is released. Timestamps are libcamera's (the sensor's
/// CLOCK_MONOTONIC ns), sequences its frame sequence numbers.
final class LibcameraCapture: CaptureBackend {
    private let context: LibcameraSource.Context
    let device: DeviceInfo
    private let cameraID: String
    private var cam: OpaquePointer?
    private var pool: LibcameraBuffers?
    private var ready: Waker?
    private var wait: FdWait?
    private var format = CaptureFormat(fourcc: .yuyv, width: 0, height: 0, strides: [], frameBytes: 0,
                                       frameRate: nil, bufferCount: 0)
    private var strides: [Int] = []
    private var split = PlaneLayout.Split(chromaCount: 0, stride: 0, chromaStride: 0, heightDivisor: 1)
    private(set) lazy var controlSurface: ControlSurface? = LibcameraControls(capture: self)

    init(context: LibcameraSource.Context, device: DeviceInfo, cameraID: String) throws(CamError) {
        self.context = context
        self.device = device
        self.cameraID = cameraID
        var busy: Int32 = 0
        var err = [CChar](repeating: 0, count: 256)
        guard let c = context.api.pointee.acquire(context.p, cameraID, &busy, &err, err.count) else {
            let m = "\(device.id): \(LibcameraSource.text(err))"
            throw busy != 0 ? .busy(m + " (another process holds it)") : .noDevice(m)
        }
        cam = c
    }

    deinit { close() }

    var fileDescriptor: Int32? { nil }
    var buffers: BufferPool? { pool }
    var api: UnsafePointer<cclc_api> { context.api }
    var contextHandle: OpaquePointer { context.p }
    var camera: OpaquePointer? { cam }
    var libcameraID: String { cameraID }

    func start(_ r: CaptureRequest, waker: Waker) throws(CamError) -> CaptureFormat {
        guard let cam else { throw .noDevice("\(device.id) is closed") }
        guard let drm = PixelFormatTable.drmFourCC(v4l2: r.fourcc) else {
            throw .notSupported("\(device.id): libcamera has no pixel format for \(r.fourcc)")
        }
        var s = cclc_stream()
        var err = [CChar](repeating: 0, count: 256)
        if api.pointee.configure(cam, drm.rawValue, UInt32(r.width), UInt32(r.height), UInt32(r.bufferCount),
                                 &s, &err, err.count) != 0 {
            throw .notSupported("\(device.id): \(LibcameraSource.text(err))")
        }
        guard let fourcc = PixelFormatTable.v4l2FourCC(drm: FourCC(rawValue: s.drm_fourcc)) else {
            throw .notSupported("\(device.id): libcamera chose \(FourCC(rawValue: s.drm_fourcc)), which camcore has no V4L2 name for")
        }
        let ready = try Waker()
        let frameNs: Int64 = r.frameRate.map { Int64($0.frameDurationNs) } ?? 0
        guard let maps = api.pointee.start(cam, frameNs, ready.fd, &err, err.count) else {
            throw .io("\(device.id): \(LibcameraSource.text(err))")
        }
        let info = PixelFormatTable.info(fourcc)
        let stride = Int(s.stride)
        strides = info?.isCompressed == false ? PlaneLayout.strides(fourcc, stride: stride) : [0]
        split = PlaneLayout.split(for: fourcc, stride: stride)
        format = CaptureFormat(fourcc: fourcc, width: Int(s.width), height: Int(s.height), strides: strides,
                               frameBytes: Int(s.frame_size), frameRate: r.frameRate,
                               bufferCount: Int(s.buffer_count))
        pool = LibcameraBuffers(context: context, maps: maps, count: Int(s.buffer_count), waker: waker)
        self.ready = ready
        wait = FdWait(fd: ready.fd, events: Int16(POLLIN), waker: waker)
        return format
    }

    func nextFrame(into frame: inout Frame, timeoutMs: Int32) -> BackendEvent {
        guard let cam, let pool, let ready, let wait else { return .failed(.state("not streaming")) }
        var b = cclc_buffer()
        var got = api.pointee.next(cam, &b)
        if got == 0 {
            switch wait.wait(timeoutMs: timeoutMs) {
            case .ready: ready.drain()
            case .woken: return .woken
            case .timeout: return .idle
            case .failed(let e): return .failed(CamError.fromErrno(e, "waiting for a libcamera request"))
            }
            got = api.pointee.next(cam, &b)
        }
        if got < 0 { return .failed(.noDevice("\(device.id): the camera was disconnected (libcamera)")) }
        if got == 0 { return .idle }
        let slot = Int(b.slot)
        if b.status == 2 || slot < 0 {
            // Cancelled (a stop in flight): nothing to deliver.
            _ = api.pointee.requeue(cam, b.slot)
            return .idle
        }
        var flags: FrameFlags = b.status == 1 ? .corrupted : []
        let (p0, p1, p2) = b.data
        let (u0, u1, u2) = b.bytesused
        if b.n_planes <= 1 || format.fourcc.isJPEG {
            guard let d = p0 else { _ = api.pointee.requeue(cam, b.slot); return .idle }
            let base = UnsafeMutableRawPointer(mutating: d)
            if format.fourcc.isJPEG {
                frame = Frame(fourcc: format.fourcc, width: format.width, height: format.height, planeCount: 1,
                              planes: (Plane(base: base, stride: 0, length: Int(u0)), .empty, .empty),
                              timestampNs: b.timestamp_ns, sequence: b.sequence, flags: flags, pool: pool, slot: slot)
            } else {
                let parts = PlaneLayout.split(split, base: base, used: Int(u0), height: format.height)
                if !parts.complete { flags.insert(.corrupted) }
                frame = Frame(fourcc: format.fourcc, width: format.width, height: format.height,
                              planeCount: parts.count, planes: parts.planes, timestampNs: b.timestamp_ns,
                              sequence: b.sequence, flags: flags, pool: pool, slot: slot)
            }
        } else {
            // One FrameBuffer plane per logical plane (NV12: Y, then CbCr).
            func plane(_ d: UnsafePointer<UInt8>?, _ used: UInt32, _ i: Int) -> Plane {
                guard let d else { return .empty }
                return Plane(base: UnsafeMutableRawPointer(mutating: d), stride: i < strides.count ? strides[i] : 0,
                             length: Int(used))
            }
            frame = Frame(fourcc: format.fourcc, width: format.width, height: format.height,
                          planeCount: Int(min(b.n_planes, 3)), planes: (plane(p0, u0, 0), plane(p1, u1, 1), plane(p2, u2, 2)),
                          timestampNs: b.timestamp_ns, sequence: b.sequence, flags: flags, pool: pool, slot: slot)
        }
        return .frame
    }

    func requeue(_ slot: Int) throws(CamError) {
        guard let cam else { return }
        if api.pointee.requeue(cam, Int32(slot)) != 0 {
            throw .io("\(device.id): libcamera refused a request back")
        }
    }

    func stop() {
        guard let cam, let pool else { return }
        pool.finishStreaming()
        api.pointee.stop(cam)       // the mappings stay with the pool
        self.pool = nil
        wait = nil
        ready = nil
    }

    func close() {
        stop()
        if let cam { api.pointee.release(cam) }
        cam = nil
    }
}

/// The controls of a libcamera camera (S27 through S41), under camcore's
/// integer control API. libcamera's own ids and types (bool, int32,
/// int64, float) are kept, with the common ones given their V4L2 ids so
/// that names like "brightness" work everywhere: Brightness, Contrast,
/// Saturation, Sharpness, AnalogueGain (floats, in thousandths:
/// Brightness 0.25 is 250), ExposureTime (µs), AeEnable (V4L2's autogain),
/// AwbEnable (auto white balance). Other controls get 0x0a000000 + their
/// libcamera id. libcamera reports no current value outside a request's
/// metadata: a control reads as the value camcore last set, else its
/// default. A set takes effect with the next request (the next frame or
/// two), and before start with the start.
final class LibcameraControls: ControlSurface, @unchecked Sendable {
    private unowned let capture: LibcameraCapture
    private struct Control { var info: ControlInfo; var lcID: UInt32; var scale: Double }
    private struct State { var list: [Control]?; var values: [UInt32: Int64] = [:] }
    private let state = Mutex(State())

    init(capture: LibcameraCapture) { self.capture = capture }

    /// libcamera's control name -> (V4L2 id, the scale of a float).
    private static func v4l2(_ name: String) -> (UInt32, Double)? {
        switch name {
        case "Brightness": return (0x0098_0900, 1000)
        case "Contrast": return (0x0098_0901, 1000)
        case "Saturation": return (0x0098_0902, 1000)
        case "Sharpness": return (0x0098_091b, 1000)
        case "AnalogueGain": return (0x009e_0903, 1000)
        case "ExposureTime": return (0x009a_0902, 1)
        case "AeEnable": return (0x0098_0912, 1)
        case "AwbEnable": return (0x0098_090c, 1)
        default: return nil
        }
    }

    private func controls() -> [Control] {
        if let l = state.withLock({ $0.list }) { return l }
        var buf = [cclc_control](repeating: cclc_control(), count: 64)
        let n = Int(capture.api.pointee.controls(capture.contextHandle, capture.libcameraID, &buf, Int32(buf.count)))
        var list: [Control] = []
        for var c in buf.prefix(min(n, buf.count)) {
            let name = withUnsafeBytes(of: &c.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let mapped = LibcameraControls.v4l2(name)
            let scale = c.type == 4 ? (mapped?.1 ?? 1000) : 1
            let id = mapped?.0 ?? (0x0a00_0000 | (c.id & 0x00ff_ffff))
            let type: ControlType = c.type == 1 ? .boolean : c.type == 3 ? .integer64 : .integer
            let lo = Int64((c.min * scale).rounded()), hi = Int64((c.max * scale).rounded())
            let def = Int64((c.def * scale).rounded())
            let info = ControlInfo(id: id, name: name, type: type, minimum: min(lo, hi), maximum: max(lo, hi),
                                   step: 1, defaultValue: def, value: def)
            list.append(Control(info: info, lcID: c.id, scale: scale))
        }
        state.withLock { $0.list = list }
        return list
    }

    func list() -> [ControlInfo] {
        let values = state.withLock { $0.values }
        return controls().map { c in
            var i = c.info
            i.value = values[i.id] ?? i.defaultValue
            return i
        }
    }

    func query(_ id: UInt32) throws(CamError) -> ControlInfo {
        guard let c = list().first(where: { $0.id == id }) else {
            throw .notSupported("\(capture.device.id) has no control \(ControlInfo.hex(id)) (libcamera lists \(controls().count))")
        }
        return c
    }

    func value(of info: ControlInfo) throws(CamError) -> Int64 {
        state.withLock { $0.values[info.id] } ?? info.defaultValue
    }

    func set(_ info: ControlInfo, _ value: Int64) throws(CamError) -> Int64 {
        guard let c = controls().first(where: { $0.info.id == info.id }) else { _ = try query(info.id); return value }
        guard let cam = capture.camera else { throw .noDevice("\(capture.device.id) is closed") }
        var err = [CChar](repeating: 0, count: 256)
        if capture.api.pointee.set_control(cam, c.lcID, Double(value) / c.scale, &err, err.count) != 0 {
            throw .io("\(capture.device.id): \(LibcameraSource.text(err))")
        }
        state.withLock { $0.values[info.id] = value }
        return value
    }

    func stringBytes(of info: ControlInfo) throws(CamError) -> [UInt8] {
        throw .notSupported("\(capture.device.id) has no string controls through libcamera (\(info.label))")
    }

    func setString(_ info: ControlInfo, bytes: [UInt8]) throws(CamError) {
        throw .notSupported("\(capture.device.id) has no string controls through libcamera (\(info.label))")
    }

    var noChangeEvents: String { "\(capture.device.id) does not report control changes through libcamera" }
}
