// SPDX-License-Identifier: MIT
internal import CPipeWire
#if canImport(Glibc)
import Glibc
#endif

/// The buffers of one PipeWire capture stream (S23): the shim's mappings
/// of MemFd/DmaBuf buffers (and its copies of MemPtr ones) stay until the
/// last frame referring to them is gone, after the stream was closed too.
final class PipeWireBuffers: BufferPool, @unchecked Sendable {
    /// The shim's stream; closed by the backend, freed (unmapped) here.
    let stream: OpaquePointer
    /// The connection the stream runs on, kept as long as the stream.
    private let core: PipeWireSource.Core
    static let slots = 32

    init(stream: OpaquePointer, core: PipeWireSource.Core, waker: Waker) {
        self.stream = stream
        self.core = core
        super.init(count: PipeWireBuffers.slots, waker: waker)
    }

    deinit { ccpw_stream_free(stream) }
}

/// Captures from a PipeWire camera node (SPEC S34): negotiates by S6 over
/// the node's EnumFormat entries like a V4L2 driver would adjust a request
/// (nearest size and rate of the asked pixel format), then connects a
/// pw_stream that offers exactly that fixed setting, and hands out each
/// buffer the daemon delivers as a frame. "Camera off" (S9) is `stop()`:
/// the stream is disconnected, and the daemon closes the device after its
/// suspend timeout.
final class PipeWireCapture: CaptureBackend {
    private let source: PipeWireSource
    private let core: PipeWireSource.Core
    private let nodeID: UInt32
    /// target.object of the stream: the node's object.serial (or node.name).
    private let target: String
    let device: DeviceInfo
    private var pool: PipeWireBuffers?
    private var ready: Waker?
    private var wait: FdWait?
    private var planeSplit = PlaneLayout.Split(chromaCount: 0, stride: 0, chromaStride: 0, heightDivisor: 1)
    private var format = CaptureFormat(fourcc: .yuyv, width: 0, height: 0, strides: [], frameBytes: 0,
                                       frameRate: nil, bufferCount: 0)
    private var tightStride = 0
    private var sequence: UInt32 = 0
    private var closed = false

    init(source: PipeWireSource, core: PipeWireSource.Core, nodeID: UInt32, target: String, device: DeviceInfo) {
        self.source = source; self.core = core; self.nodeID = nodeID; self.target = target; self.device = device
    }

    var fileDescriptor: Int32? { nil }
    private(set) lazy var controlSurface: ControlSurface? = PipeWireControls(core: core, nodeID: nodeID, name: device.node)
    var buffers: BufferPool? { pool }

    /// The setting the node can take nearest to the request, as a V4L2
    /// driver would adjust it: the asked FourCC, the nearest size (S6's
    /// size fit, Negotiation.fit), then the rate S7's max_frame_rate picks
    /// (the asked one if offered, else the closest; the highest when none
    /// was asked).
    private func choose(_ r: CaptureRequest) throws(CamError) -> (width: Int, height: Int, rate: FrameRate?) {
        let all = try PipeWireSource.formats(core: core, nodeID: nodeID, name: device.node)
        var best: (cost: Int, width: Int, height: Int, format: FormatDescription)?
        for f in all where f.fourcc == r.fourcc {
            let (w, h) = Negotiation.fit(f.size, width: r.width, height: r.height)
            let cost = abs(w - r.width) + abs(h - r.height)
            if best.map({ cost < $0.cost }) ?? true { best = (cost, w, h, f) }
        }
        guard let best else {
            var seen: [String] = []
            for f in all where !seen.contains(f.fourcc.description) { seen.append(f.fourcc.description) }
            throw .notSupported("the PipeWire camera \(device.node) has no pixel format \(r.fourcc); it offers \(seen.joined(separator: ", "))")
        }
        let rate = r.frameRate.map { Negotiation.maxFrameRate(best.format, $0) ?? $0 } ?? best.format.rates.maximum
        return (best.width, best.height, rate)
    }

    func start(_ r: CaptureRequest, waker: Waker) throws(CamError) -> CaptureFormat {
        guard !closed else { throw .noDevice("the PipeWire camera \(device.node) is closed") }
        let (w, h, rate) = try choose(r)
        let ready = try Waker()
        var err = [CChar](repeating: 0, count: 256)
        guard let s = ccpw_stream_open(core.p, target, nodeID, r.fourcc.rawValue, UInt32(w), UInt32(h),
                                       rate?.numerator ?? 0, rate?.denominator ?? 0, UInt32(r.bufferCount),
                                       ready.fd, 5000, &err, err.count) else {
            let m = PipeWireSource.text(err)
            throw m.contains("went away") ? .noDevice("\(device.node): \(m)") : .io("\(device.node): \(m)")
        }
        var fcc: UInt32 = 0, fw: UInt32 = 0, fh: UInt32 = 0, rn: UInt32 = 0, rd: UInt32 = 0
        ccpw_stream_format(s, &fcc, &fw, &fh, &rn, &rd)
        let fourcc = FourCC(rawValue: fcc == 0 ? r.fourcc.rawValue : fcc)
        let info = PixelFormatTable.info(fourcc)
        tightStride = info?.rowBytes(plane: 0, width: Int(fw)) ?? 0
        planeSplit = PlaneLayout.split(for: fourcc, stride: tightStride)
        format = CaptureFormat(fourcc: fourcc, width: Int(fw), height: Int(fh),
                               strides: info?.isCompressed == false ? PlaneLayout.strides(fourcc, stride: tightStride) : [0],
                               frameBytes: info?.frameBytes(width: Int(fw), height: Int(fh)) ?? 0,
                               frameRate: rn != 0 && rd != 0 ? FrameRate(rn, rd) : nil,
                               bufferCount: Int(ccpw_stream_buffer_count(s)))
        pool = PipeWireBuffers(stream: s, core: core, waker: waker)
        self.ready = ready
        wait = FdWait(fd: ready.fd, events: Int16(POLLIN), waker: waker)
        sequence = 0
        return format
    }

    func nextFrame(into frame: inout Frame, timeoutMs: Int32) -> BackendEvent {
        guard let pool, let ready, let wait else { return .failed(.state("not streaming")) }
        var b = ccpw_buffer()
        var err = [CChar](repeating: 0, count: 256)
        var got = ccpw_stream_next(pool.stream, &b, &err, err.count)
        if got == 0 {
            switch wait.wait(timeoutMs: timeoutMs) {
            case .ready: ready.drain()
            case .woken: return .woken
            case .timeout: return .idle
            case .failed(let e): return .failed(CamError.fromErrno(e, "waiting for a PipeWire buffer"))
            }
            got = ccpw_stream_next(pool.stream, &b, &err, err.count)
        }
        if got < 0 { return .failed(.noDevice("\(device.node): \(PipeWireSource.text(err))")) }
        if got == 0 { return .idle }
        let slot = Int(b.slot)
        guard slot < PipeWireBuffers.slots, let data = b.data else {
            ccpw_stream_release(pool.stream, b.slot)
            return .idle
        }
        var flags: FrameFlags = b.corrupted != 0 ? .corrupted : []
        let base = UnsafeMutableRawPointer(mutating: data)
        let used = Int(b.size)
        if format.fourcc.isJPEG {
            frame = Frame(fourcc: format.fourcc, width: format.width, height: format.height, planeCount: 1,
                          planes: (Plane(base: base, stride: 0, length: used), .empty, .empty),
                          timestampNs: 0, sequence: 0, flags: flags, pool: pool, slot: slot)
        } else {
            let stride = b.stride > 0 ? Int(b.stride) : tightStride
            let (width, height) = chunkGeometry(stride: stride, used: used)
            let split = stride == planeSplit.stride ? planeSplit : PlaneLayout.split(for: format.fourcc, stride: stride)
            let parts = PlaneLayout.split(split, base: base, used: used, height: height)
            if !parts.complete { flags.insert(.corrupted) }
            frame = Frame(fourcc: format.fourcc, width: width, height: height,
                          planeCount: parts.count, planes: parts.planes, timestampNs: 0, sequence: 0,
                          flags: flags, pool: pool, slot: slot)
        }
        // The node's buffer header: the driver's CLOCK_MONOTONIC time and
        // sequence (V4L2 buffers through PipeWire's v4l2 plugin).
        frame.timestampNs = b.has_header != 0 && b.pts_ns != 0 ? b.pts_ns : monotonicNs()
        if b.has_header != 0 {
            frame.sequence = UInt32(truncatingIfNeeded: b.seq)
        } else {
            frame.sequence = sequence
            sequence &+= 1
        }
        if format.fourcc.isJPEG && !V4L2Capture.looksLikeWholeJPEG(frame.planes.0) {
            frame.flags.insert(.corrupted)
        }
        return .frame
    }

    /// The size a buffer's chunk says (S43): a packed one-plane format whose
    /// chunk stride is below the announced width's row holds narrower rows
    /// (PipeWire's libcamera node announces vimc's 640x480 and delivers
    /// 636x480 at stride 1908), as many as its bytes hold, at most the
    /// announced height. Otherwise the announced size; the capturer checks
    /// either against the negotiated format.
    private func chunkGeometry(stride: Int, used: Int) -> (width: Int, height: Int) {
        guard stride > 0, stride < tightStride, planeSplit.chromaCount == 0, format.width > 0,
              tightStride % format.width == 0 else { return (format.width, format.height) }
        let bytesPerPixel = tightStride / format.width
        guard stride % bytesPerPixel == 0 else { return (format.width, format.height) }
        return (stride / bytesPerPixel, min(format.height, used / stride))
    }

    func requeue(_ slot: Int) throws(CamError) {
        if let pool { ccpw_stream_release(pool.stream, Int32(slot)) }
    }

    func stop() {
        guard let pool else { return }
        pool.finishStreaming()
        ccpw_stream_close(pool.stream)  // the mappings stay with the pool
        self.pool = nil
        wait = nil
        ready = nil
    }

    func close() {
        stop()
        closed = true
    }
}
