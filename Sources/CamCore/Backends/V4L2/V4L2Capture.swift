// SPDX-License-Identifier: MIT
internal import CV4L2
#if canImport(Glibc)
import Glibc
#endif

/// The mmap buffers of one V4L2 streaming session. Unmapped when the last
/// frame referring to them is gone (S23).
final class MappedBuffers: BufferPool, @unchecked Sendable {
    /// One mapped memory plane of a buffer.
    struct MappedPlane {
        var base: UnsafeMutableRawPointer?
        var length: Int
    }
    let bufferCount: Int
    /// Memory planes per buffer (1 single-planar; num_planes multi-planar).
    let planesPerBuffer: Int
    /// Buffer-major table of mappings, fixed after allocation; nil base
    /// means "not mapped" (allocation failed part-way).
    private let maps: UnsafeMutablePointer<MappedPlane>
    /// DMA-BUF fds of the memory planes (S37), -1 when not exported;
    /// closed with the mappings, when the last frame is gone.
    private let dmabufs: UnsafeMutablePointer<Int32>

    init(count: Int, planesPerBuffer: Int, waker: Waker) {
        bufferCount = count
        self.planesPerBuffer = planesPerBuffer
        maps = .allocate(capacity: count * planesPerBuffer)
        maps.initialize(repeating: MappedPlane(base: nil, length: 0), count: count * planesPerBuffer)
        dmabufs = .allocate(capacity: count * planesPerBuffer)
        dmabufs.initialize(repeating: -1, count: count * planesPerBuffer)
        super.init(count: count, waker: waker)
    }

    deinit {
        for i in 0..<bufferCount * planesPerBuffer {
            if let b = maps[i].base { Sys.unmapBuffer(b, length: maps[i].length) }
            if dmabufs[i] >= 0 { Sys.close(dmabufs[i]) }
        }
        maps.deallocate()
        dmabufs.deallocate()
    }

    func setDmabuf(_ slot: Int, plane: Int, _ fd: Int32) { dmabufs[slot * planesPerBuffer + plane] = fd }

    /// Multi-planar buffers: a frame plane is a memory plane with its own
    /// fd; one-buffer formats: every plane lies in memory plane 0's fd.
    override func dmabuf(slot: Int, plane: Int, base: UnsafeMutableRawPointer?) -> (fd: Int32, offset: Int) {
        guard slot < bufferCount else { return (-1, 0) }
        let mem = planesPerBuffer > 1 ? min(plane, planesPerBuffer - 1) : 0
        let m = maps[slot * planesPerBuffer + mem]
        guard let start = m.base, let base else { return (dmabufs[slot * planesPerBuffer + mem], 0) }
        return (dmabufs[slot * planesPerBuffer + mem], base - start)
    }

    func set(_ slot: Int, plane: Int, _ base: UnsafeMutableRawPointer, length: Int) {
        maps[slot * planesPerBuffer + plane] = MappedPlane(base: base, length: length)
    }

    @inline(__always)
    func plane(_ slot: Int, _ plane: Int) -> MappedPlane { maps[slot * planesPerBuffer + plane] }
}

/// What the frame path reads, fixed for one streaming session: built at
/// start, read by the capture thread through `let`s only, so a frame
/// costs no copies, retains or exclusivity checks of capture state.
private final class Stream {
    /// The node's fd: QBUF and DQBUF go straight to the kernel (libv4l2
    /// passes them through unchanged with conversion disabled).
    let fd: Int32
    /// The wait for a frame or the waker (epoll where the driver is
    /// safe with it, else poll(); see `init`).
    let wait: FdWait
    let waker: Waker
    let pool: MappedBuffers
    /// `pool` as frames refer to it (unretained: this Stream keeps it).
    let poolRef: Unmanaged<BufferPool>
    /// The node's path, for error messages.
    let path: String
    let bufType: UInt32
    let multiplanar: Bool
    let fourcc: FourCC
    let width: Int
    let height: Int
    /// bytesperline per memory plane.
    let memStrides: [Int]
    /// How a one-buffer frame splits into planes (from the format table,
    /// resolved once here, not per frame).
    let planeSplit: PlaneLayout.Split
    let isJPEG: Bool
    /// Scratch v4l2_plane array for the capture thread's QBUF/DQBUF.
    let planes = UnsafeMutablePointer<v4l2_plane>.allocate(capacity: Int(VIDEO_MAX_PLANES))
    /// Consecutive polls that reported an error with nothing to dequeue.
    var errorPolls = 0

    /// `videobuf2`: the driver's queue is the kernel's videobuf2, whose
    /// poll registers its wait queue on every call ("poll_wait() MUST be
    /// called on the first invocation", vb2_core_poll, since Linux 5.2),
    /// so an epoll set registered once is woken for every frame. Other
    /// drivers (v4l2loopback) and older kernels register only when no
    /// frame is ready, or only while streaming: epoll could sleep through
    /// frames, so they get poll(), which registers anew on each call. So
    /// does a stream where epoll cannot be set up.
    init(fd: Int32, path: String, waker: Waker, pool: MappedBuffers, bufType: UInt32, format: CaptureFormat,
         memStrides: [Int], videobuf2: Bool) {
        self.fd = fd; self.path = path; self.waker = waker; self.pool = pool; self.bufType = bufType
        poolRef = Unmanaged.passUnretained(pool)
        multiplanar = bufType == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue
        fourcc = format.fourcc; width = format.width; height = format.height
        self.memStrides = memStrides
        planeSplit = PlaneLayout.split(for: format.fourcc, stride: memStrides.first ?? 0)
        isJPEG = format.fourcc.isJPEG
        planes.initialize(repeating: v4l2_plane(), count: Int(VIDEO_MAX_PLANES))
        // POLLIN only on the device: control events (POLLPRI) belong to
        // the control thread. Errors and hang-ups are always reported.
        wait = FdWait(fd: fd, events: Int16(POLLIN), waker: waker,
                      epoll: videobuf2 && Stream.kernelPollRegistersFirst)
    }

    /// Linux 5.2 or later: vb2_core_poll calls poll_wait() first, always.
    static let kernelPollRegistersFirst: Bool = {
        var u = utsname()
        guard uname(&u) == 0 else { return false }
        // "6.1.0-57-amd64": the first two numbers, read off the C chars.
        return withUnsafeBytes(of: u.release) { raw -> Bool in
            var parts: [Int] = [], n = -1
            for c in raw {
                if c >= 0x30 && c <= 0x39 {
                    n = (n < 0 ? 0 : n) &* 10 &+ Int(c - 0x30)
                } else {
                    if n >= 0 { parts.append(n); n = -1 }
                    if c == 0 || parts.count == 2 { break }
                }
            }
            guard parts.count == 2 else { return false }
            return parts[0] > 5 || (parts[0] == 5 && parts[1] >= 2)
        }
    }()

    /// `error` as it stands, or as noDevice (same message, "(the camera
    /// was disconnected)" added) when the node left sysfs: an unplugged
    /// uvcvideo camera fails DQBUF with EIO or EINVAL before ENODEV
    /// (SPEC S25, S39; `Sys.deviceGone`).
    func unplugged(_ error: CamError) -> CamError {
        if case .noDevice = error { return error }
        guard Sys.deviceGone(fd) else { return error }
        return .noDevice(error.message + " (the camera was disconnected)")
    }

    /// Waits for the next frame (or the waker) and fills `frame` in place.
    func next(into frame: inout Frame, timeoutMs: Int32) -> BackendEvent {
        let deviceEvents: UInt32
        switch wait.wait(timeoutMs: timeoutMs) {
        case .ready(let r): deviceEvents = r
        case .woken: return .woken
        case .timeout: return .idle
        case .failed(let e): return .failed(CamError.fromErrno(e, "waiting for a frame on \(path)"))
        }
        // EPOLLERR/EPOLLHUP have the values of POLLERR/POLLHUP.
        let deviceError = deviceEvents & CC_EPOLLERR_HUP != 0
        var b = v4l2_buffer()
        b.type = bufType
        b.memory = V4L2_MEMORY_MMAP.rawValue
        if multiplanar {
            planes.update(repeating: v4l2_plane(), count: Int(VIDEO_MAX_PLANES))
            b.m.planes = planes
            b.length = UInt32(VIDEO_MAX_PLANES)
        }
        let e = Sys.rawIoctl(fd, CC_VIDIOC_DQBUF, &b)
        if e == EAGAIN {
            if deviceError {
                // An error with nothing to dequeue: the queue is broken. Give
                // the driver a moment, then give up rather than spin.
                errorPolls += 1
                if errorPolls > 50 { return .failed(unplugged(.io("\(path) reports an error on poll"))) }
                usleep(10_000)
            }
            return .idle
        }
        if e != 0 { return .failed(unplugged(CamError.fromErrno(e, "VIDIOC_DQBUF on \(path)"))) }
        if errorPolls != 0 { errorPolls = 0 }
        let slot = Int(b.index)
        guard slot < pool.bufferCount else { return .failed(.internalError("DQBUF index \(slot) out of range")) }
        var flags: FrameFlags = b.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0 ? .corrupted : []
        if multiplanar && pool.planesPerBuffer > 1 {
            var ps = (Plane.empty, Plane.empty, Plane.empty)
            let n = min(pool.planesPerBuffer, 3)
            for i in 0..<n {
                let m = pool.plane(slot, i)
                let len = m.length
                let off = Int(planes[i].data_offset)
                let used = Int(planes[i].bytesused)
                if used <= off || used > len { flags.insert(.corrupted) }
                let p = Plane(base: m.base.map { $0 + min(off, len) }, stride: memStrides[i],
                              length: max(0, min(used, len) - off))
                switch i { case 0: ps.0 = p; case 1: ps.1 = p; default: ps.2 = p }
            }
            frame = Frame(fourcc: fourcc, width: width, height: height,
                          planeCount: n, planes: ps, timestampNs: 0, sequence: b.sequence,
                          flags: flags, poolRef: poolRef, slot: slot)
        } else {
            let m = pool.plane(slot, 0)
            guard let base = m.base else { return .failed(.internalError("buffer \(slot) is not mapped")) }
            let len = m.length
            let off = multiplanar ? Int(planes[0].data_offset) : 0
            let usedRaw = multiplanar ? Int(planes[0].bytesused) : Int(b.bytesused)
            let used = max(0, min(usedRaw, len) - off)
            let split = PlaneLayout.split(planeSplit, base: base + min(off, len), used: used, height: height)
            if !split.complete { flags.insert(.corrupted) }
            frame = Frame(fourcc: fourcc, width: width, height: height,
                          planeCount: split.count, planes: split.planes, timestampNs: 0,
                          sequence: b.sequence, flags: flags, poolRef: poolRef, slot: slot)
        }
        frame.timestampNs = V4L2Capture.timestamp(flags: b.flags, sec: b.timestamp.tv_sec, usec: b.timestamp.tv_usec)
        // S26: a truncated JPEG is no good frame, native output included.
        if isJPEG && !V4L2Capture.looksLikeWholeJPEG(frame.planes.0) {
            frame.flags.insert(.corrupted)
        }
        return .frame
    }

    deinit {
        planes.deallocate()
    }

    /// VIDIOC_QBUF of buffer `slot`; errno or 0. Capture thread (or start).
    func queue(_ slot: Int) -> Int32 {
        var b = v4l2_buffer()
        b.index = UInt32(slot)
        b.type = bufType
        b.memory = V4L2_MEMORY_MMAP.rawValue
        if multiplanar {
            planes.update(repeating: v4l2_plane(), count: Int(VIDEO_MAX_PLANES))
            b.m.planes = planes
            b.length = UInt32(pool.planesPerBuffer)
        }
        return Sys.rawIoctl(fd, CC_VIDIOC_QBUF, &b)
    }
}

/// Captures from a V4L2 node with mmap streaming I/O, single- or
/// multi-planar (V4L2 "Streaming I/O (Memory Mapping)"; SPEC S17, S22).
final class V4L2Capture: CaptureBackend {
    let device: DeviceInfo
    var abilities: BackendAbilities { .dmabufExport }
    private var node: V4L2Node?
    private let bufType: UInt32
    /// The running streaming session; nil when stopped.
    private var stream: Stream? {
        didSet { streamRef = stream.map { Unmanaged.passUnretained($0) } }
    }
    /// `stream` for the capture thread, without a retain per frame.
    private var streamRef: Unmanaged<Stream>?
    var buffers: BufferPool? { stream?.pool }
    private var format = CaptureFormat(fourcc: .yuyv, width: 0, height: 0, strides: [], frameBytes: 0,
                                       frameRate: nil, bufferCount: 0)
    /// Per memory plane of the applied format (up to 3): bytesperline.
    private var memStrides: [Int] = []
    /// Memory planes per buffer (multi-planar num_planes, all of them:
    /// each is mapped; frames show the first 3).
    private var memPlaneCount = 1
    private var streaming = false

    var isMultiplanar: Bool { bufType == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue }

    init(device: DeviceInfo) throws(CamError) {
        self.device = device
        let n = try V4L2Node(path: device.node)
        let caps = try V4L2Query.capabilities(n)
        guard V4L2Query.isVideoCapture(caps.deviceCaps) else {
            throw .noDevice("\(device.node) is no longer a video capture node")
        }
        bufType = V4L2Query.bufferType(caps.deviceCaps)
        node = n
    }

    deinit { close() }

    var fileDescriptor: Int32? { node.map { $0.fd } }

    /// A busy error that names who holds the node (S46).
    private func busy(_ error: CamError) -> CamError {
        let holders = DeviceHolders.scan([device.node], ignoringFD: node?.fd).describe(device.node)
        return .busy("device busy: \(device.node) (\(device.name)) is in use, \(holders) (\(error.message))")
    }

    /// The bandwidth error of a setting (S47): what did not fit, and what may.
    private func bandwidth(_ fourcc: FourCC, _ w: Int, _ h: Int, _ rate: FrameRate?, _ call: String) -> CamError {
        let at = rate.map { " at \($0.numerator)/\($0.denominator) fps" } ?? ""
        return .bandwidth("not enough USB bandwidth for \(fourcc) \(w)x\(h)\(at) on \(device.node) (\(device.name)): "
            + "\(call): No space left on device. Choose MJPEG, or a lower size or rate, or move other cameras "
            + "to another USB bus")
    }

    func start(_ request: CaptureRequest, waker: Waker) throws(CamError) -> CaptureFormat {
        guard let node else { throw .noDevice("\(device.node) is closed") }
        // Enumerates only up to the format asked for; the whole list only
        // for the refusal's message.
        if !V4L2Query.hasPixelFormat(node, type: bufType, request.fourcc) {
            let known = V4L2Query.pixelFormats(node, type: bufType)
            // No formats at all: tell a vanished device (ENODEV) from a driver
            // without this format (S25: later calls say "no device").
            if known.isEmpty { _ = try V4L2Query.capabilities(node) }
            throw .notSupported("\(device.node) has no pixel format \(request.fourcc); it offers "
                + known.map { $0.fourcc.description }.joined(separator: ", "))
        }
        do throws(CamError) {
            try setFormat(node, request)
        } catch {
            // S26: EBUSY on S_FMT means another process owns the stream.
            if case .busy = error { throw busy(error) }
            // S47: uvcvideo probing a setting no alternate setting carries
            // (cameras with its PROBE_MINMAX quirk) refuses it with ENOSPC.
            if case .bandwidth = error {
                throw bandwidth(request.fourcc, request.width, request.height, request.frameRate, "VIDIOC_S_FMT")
            }
            throw error
        }
        // S7: a rate above what the format offers at this size is clamped
        // to the nearest supported one before VIDIOC_S_PARM.
        var rate = request.frameRate
        if let r = rate {
            let rates = V4L2Query.frameRates(node, fourcc: format.fourcc, width: format.width, height: format.height)
            let desc = FormatDescription(fourcc: format.fourcc, description: "",
                                         size: .discrete(width: format.width, height: format.height), rates: rates)
            rate = Negotiation.maxFrameRate(desc, r) ?? r
        }
        format.frameRate = try setRate(node, rate)
        do throws(CamError) {
            try allocate(node, count: request.bufferCount, waker: waker, dmabuf: request.dmabuf)
            var t = Int32(bitPattern: bufType)
            let e = node.ioctlErrno(CC_VIDIOC_STREAMON, &t)
            if e == ENOSPC {
                // S47, USB: the host controller cannot reserve the
                // isochronous bandwidth of the alternate setting (the bus is
                // shared with other cameras, or the setting is too big).
                throw bandwidth(format.fourcc, format.width, format.height, format.frameRate, "VIDIOC_STREAMON")
            }
            if e != 0 { throw CamError.fromErrno(e, "VIDIOC_STREAMON on \(device.node)") }
        } catch {
            stop()
            // S26: the driver refusing REQBUFS, QBUF or STREAMON (EINVAL) is a
            // failed start, an I/O error, not a missing feature.
            if case .notSupported(let m) = error { throw CamError.io(m) }
            if case .busy = error { throw busy(error) }
            throw error
        }
        streaming = true
        return format
    }

    /// VIDIOC_S_FMT, then what the driver applied is the format (S6).
    private func setFormat(_ node: V4L2Node, _ r: CaptureRequest) throws(CamError) {
        var f = v4l2_format()
        f.type = bufType
        if isMultiplanar {
            f.fmt.pix_mp.width = UInt32(r.width)
            f.fmt.pix_mp.height = UInt32(r.height)
            f.fmt.pix_mp.pixelformat = r.fourcc.rawValue
            f.fmt.pix_mp.field = V4L2_FIELD_NONE.rawValue
        } else {
            f.fmt.pix.width = UInt32(r.width)
            f.fmt.pix.height = UInt32(r.height)
            f.fmt.pix.pixelformat = r.fourcc.rawValue
            f.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        }
        try node.ioctl(CC_VIDIOC_S_FMT, &f, "VIDIOC_S_FMT \(r.fourcc) \(r.width)x\(r.height)")
        if isMultiplanar {
            let p = f.fmt.pix_mp
            let n = max(1, min(Int(p.num_planes), 3))
            memPlaneCount = max(1, min(Int(p.num_planes), Int(VIDEO_MAX_PLANES)))
            var strides: [Int] = []
            var total = 0
            withUnsafeBytes(of: p.plane_fmt) { raw in
                let pf = raw.bindMemory(to: v4l2_plane_pix_format.self)
                for i in 0..<n {
                    strides.append(Int(pf[i].bytesperline))
                    total += Int(pf[i].sizeimage)
                }
            }
            memStrides = strides
            let fcc = FourCC(rawValue: p.pixelformat)
            format = CaptureFormat(
                fourcc: fcc, width: Int(p.width), height: Int(p.height),
                strides: n == 1 ? PlaneLayout.strides(fcc, stride: strides[0]) : strides,
                frameBytes: total, frameRate: nil, bufferCount: 0)
        } else {
            let p = f.fmt.pix
            let fcc = FourCC(rawValue: p.pixelformat)
            memStrides = [Int(p.bytesperline)]
            memPlaneCount = 1
            format = CaptureFormat(
                fourcc: fcc, width: Int(p.width), height: Int(p.height),
                strides: PlaneLayout.strides(fcc, stride: Int(p.bytesperline)),
                frameBytes: Int(p.sizeimage), frameRate: nil, bufferCount: 0)
        }
    }

    /// VIDIOC_S_PARM after S_FMT, then VIDIOC_G_PARM: the applied rate (S6).
    private func setRate(_ node: V4L2Node, _ rate: FrameRate?) throws(CamError) -> FrameRate? {
        var p = v4l2_streamparm()
        p.type = bufType
        if node.ioctlErrno(CC_VIDIOC_G_PARM, &p) != 0 { return nil }
        let canSet = p.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0
        if let rate, canSet {
            var s = v4l2_streamparm()
            s.type = bufType
            s.parm.capture.timeperframe.numerator = rate.interval.numerator
            s.parm.capture.timeperframe.denominator = rate.interval.denominator
            try node.ioctl(CC_VIDIOC_S_PARM, &s, "VIDIOC_S_PARM \(rate) fps")
            p = v4l2_streamparm()
            p.type = bufType
            if node.ioctlErrno(CC_VIDIOC_G_PARM, &p) != 0 { return nil }
        }
        let tpf = p.parm.capture.timeperframe
        let r = FrameRate(interval: tpf.numerator, tpf.denominator)
        return r.isValid ? r : nil
    }

    /// REQBUFS, mmap of every buffer, the frame path's Stream, QBUF of all.
    private func allocate(_ node: V4L2Node, count: Int, waker: Waker, dmabuf: Bool) throws(CamError) {
        var req = v4l2_requestbuffers()
        req.count = UInt32(count)
        req.type = bufType
        req.memory = V4L2_MEMORY_MMAP.rawValue
        try node.ioctl(CC_VIDIOC_REQBUFS, &req, "VIDIOC_REQBUFS \(count)")
        guard req.count >= 2 else {
            var free = v4l2_requestbuffers()
            free.type = bufType
            free.memory = V4L2_MEMORY_MMAP.rawValue
            node.ioctlErrno(CC_VIDIOC_REQBUFS, &free)
            throw .noMemory("\(device.node) granted only \(req.count) buffers")
        }
        let granted = Int(req.count)
        let perBuffer = isMultiplanar ? memPlaneCount : 1
        let pool = MappedBuffers(count: granted, planesPerBuffer: perBuffer, waker: waker)
        // videobuf2 reports its buffer capabilities here (Linux 4.20+).
        let videobuf2 = req.capabilities & UInt32(V4L2_BUF_CAP_SUPPORTS_MMAP) != 0
        // From here on stop() frees the driver's queue and the mappings.
        let s = Stream(fd: node.fd, path: device.node, waker: waker, pool: pool, bufType: bufType, format: format,
                       memStrides: memStrides, videobuf2: videobuf2)
        stream = s
        format.bufferCount = granted
        var planes = [v4l2_plane](repeating: v4l2_plane(), count: Int(VIDEO_MAX_PLANES))
        for i in 0..<granted {
            var b = v4l2_buffer()
            b.index = UInt32(i)
            b.type = bufType
            b.memory = V4L2_MEMORY_MMAP.rawValue
            if isMultiplanar {
                try planes.withUnsafeMutableBufferPointer { pp throws(CamError) in
                    b.m.planes = pp.baseAddress
                    b.length = UInt32(VIDEO_MAX_PLANES)
                    try node.ioctl(CC_VIDIOC_QUERYBUF, &b, "VIDIOC_QUERYBUF")
                    guard Int(b.length) == perBuffer else {
                        throw CamError.io("VIDIOC_QUERYBUF on \(device.node): \(b.length) planes, the format has \(perBuffer)")
                    }
                    for p in 0..<perBuffer {
                        let len = Int(pp[p].length)
                        pool.set(i, plane: p, try node.map(length: len, offset: pp[p].m.mem_offset), length: len)
                    }
                }
            } else {
                try node.ioctl(CC_VIDIOC_QUERYBUF, &b, "VIDIOC_QUERYBUF")
                pool.set(i, plane: 0, try node.map(length: Int(b.length), offset: b.m.offset), length: Int(b.length))
            }
        }
        if dmabuf {
            // S37: each memory plane as a DMA-BUF, read-only, close-on-exec.
            for i in 0..<granted {
                for p in 0..<perBuffer {
                    var e = v4l2_exportbuffer()
                    e.type = bufType
                    e.index = UInt32(i)
                    e.plane = UInt32(p)
                    e.flags = UInt32(O_RDONLY | O_CLOEXEC)
                    do throws(CamError) {
                        try node.ioctl(CC_VIDIOC_EXPBUF, &e, "VIDIOC_EXPBUF buffer \(i) plane \(p)")
                    } catch {
                        if case .notSupported = error {
                            throw CamError.notSupported("\(device.node) cannot export its buffers as DMA-BUF (VIDIOC_EXPBUF: \(error.message))")
                        }
                        throw error
                    }
                    pool.setDmabuf(i, plane: p, e.fd)
                }
            }
            pool.exportsDmabuf = true
        }
        for i in 0..<granted { try requeue(i) }
    }

    func requeue(_ slot: Int) throws(CamError) {
        guard let ref = streamRef else { return }
        let e = ref._withUnsafeGuaranteedRef { $0.queue(slot) }
        if e != 0 {
            let error = CamError.fromErrno(e, "VIDIOC_QBUF on \(device.node)")
            throw ref._withUnsafeGuaranteedRef { $0.unplugged(error) }
        }
    }

    /// Reads the process-wide facts a stream start needs (Manager.warmUp).
    static func warmUp() { _ = Stream.kernelPollRegistersFirst }

    func nextFrame(into frame: inout Frame, timeoutMs: Int32) -> BackendEvent {
        // Unretained: this capturer owns the stream while the capture
        // thread runs (stop() joins the thread before dropping it).
        guard let ref = streamRef else { return .failed(.state("not streaming")) }
        return ref._withUnsafeGuaranteedRef { $0.next(into: &frame, timeoutMs: timeoutMs) }
    }

    /// SOI at the start and EOI at the end (after any zero padding some
    /// UVC cameras add): a cheap check that the JPEG is whole.
    static func looksLikeWholeJPEG(_ p: Plane) -> Bool {
        guard let base = p.base, p.length >= 4 else { return false }
        let b = base.assumingMemoryBound(to: UInt8.self)
        guard b[0] == 0xFF, b[1] == 0xD8 else { return false }
        var end = p.length
        while end > 2 && b[end - 1] == 0 { end -= 1 }
        return b[end - 2] == 0xFF && b[end - 1] == 0xD9
    }

    /// The buffer's CLOCK_MONOTONIC timestamp; the dequeue time when the
    /// driver stamps with another clock or not at all.
    /// (The buffer's flags and timestamp fields, not the whole v4l2_buffer:
    /// no copy of it per frame.)
    @inline(__always)
    static func timestamp(flags: UInt32, sec: Int, usec: Int) -> UInt64 {
        let monotonic = flags & UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK) == UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC)
        let ns = UInt64(max(0, sec)) &* 1_000_000_000 &+ UInt64(max(0, usec)) &* 1000
        return monotonic && ns != 0 ? ns : monotonicNs()
    }

    func stop() {
        guard let node else { return }
        if streaming {
            var t = Int32(bitPattern: bufType)
            node.ioctlErrno(CC_VIDIOC_STREAMOFF, &t)
            streaming = false
        }
        if let s = stream {
            s.pool.finishStreaming()
            // Drop our hold first so unheld buffers are unmapped, then free
            // the driver's queue; buffers the app still holds stay mapped
            // (orphaned, V4L2_BUF_CAP_SUPPORTS_ORPHANED_BUFS) until released.
            stream = nil
            var req = v4l2_requestbuffers()
            req.count = 0
            req.type = bufType
            req.memory = V4L2_MEMORY_MMAP.rawValue
            node.ioctlErrno(CC_VIDIOC_REQBUFS, &req)
        }
    }

    func close() {
        stop()
        node?.close()
        node = nil
    }
}
