import CV4L2
#if canImport(Glibc)
import Glibc
#endif

/// The mmap buffers of one V4L2 streaming session. Unmapped when the last
/// frame referring to them is gone (S23).
final class MappedBuffers: BufferPool, @unchecked Sendable {
    /// Per buffer, per memory plane: (address, length).
    var maps: [[(UnsafeMutableRawPointer, Int)]] = []

    deinit {
        for b in maps { for (p, len) in b { V4L2Node.unmap(p, length: len) } }
    }
}

/// Captures from a V4L2 node with mmap streaming I/O, single- or
/// multi-planar (V4L2 "Streaming I/O (Memory Mapping)"; SPEC S17, S22).
final class V4L2Capture: CaptureBackend {
    let device: DeviceInfo
    private var node: V4L2Node?
    private let bufType: UInt32
    private var mapped: MappedBuffers?
    var buffers: BufferPool? { mapped }
    private var waker: Waker?
    private var format = CaptureFormat(fourcc: .yuyv, width: 0, height: 0, strides: [], frameBytes: 0,
                                       frameRate: nil, bufferCount: 0)
    /// Per memory plane of the applied format: bytesperline.
    private var memStrides: [Int] = []
    private var streaming = false
    private var errorPolls = 0
    /// Scratch for the frame path, allocated once: no allocation per frame.
    private let planeScratch = UnsafeMutablePointer<v4l2_plane>.allocate(capacity: Int(VIDEO_MAX_PLANES))
    private let pollScratch = UnsafeMutablePointer<pollfd>.allocate(capacity: 2)

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

    deinit {
        close()
        planeScratch.deallocate()
        pollScratch.deallocate()
    }

    var fileDescriptor: Int32? { node.map { $0.fd } }

    func start(_ request: CaptureRequest, waker: Waker) throws(CamError) -> CaptureFormat {
        guard let node else { throw .noDevice("\(device.node) is closed") }
        let known = V4L2Query.pixelFormats(node, type: bufType)
        // No formats at all: tell a vanished device (ENODEV) from a driver
        // without this format (S25: later calls say "no device").
        if known.isEmpty { _ = try V4L2Query.capabilities(node) }
        guard known.contains(where: { $0.fourcc == request.fourcc }) else {
            throw .notSupported("\(device.node) has no pixel format \(request.fourcc); it offers "
                + known.map { $0.fourcc.description }.joined(separator: ", "))
        }
        do throws(CamError) {
            try setFormat(node, request)
        } catch {
            // S26: EBUSY on S_FMT means another process owns the stream.
            if case .busy = error {
                throw .busy("device busy: \(device.node) (\(device.name)) is used by another process (\(error.message))")
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
        self.waker = waker
        do throws(CamError) {
            try allocate(node, count: request.bufferCount, waker: waker)
            var t = Int32(bitPattern: bufType)
            let e = node.ioctlErrno(CC_VIDIOC_STREAMON, &t)
            if e == ENOSPC {
                // UVC and others: not enough bus bandwidth for this format.
                throw CamError.noMemory("VIDIOC_STREAMON on \(device.node): not enough bus bandwidth for "
                    + "\(format.fourcc) \(format.width)x\(format.height); choose a smaller size, rate or a compressed format")
            }
            if e != 0 { throw CamError.fromErrno(e, "VIDIOC_STREAMON on \(device.node)") }
        } catch {
            stop()
            // S26: the driver refusing REQBUFS, QBUF or STREAMON (EINVAL) is a
            // failed start, an I/O error, not a missing feature.
            if case .notSupported(let m) = error { throw CamError.io(m) }
            throw error
        }
        streaming = true
        errorPolls = 0
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

    private func allocate(_ node: V4L2Node, count: Int, waker: Waker) throws(CamError) {
        var req = v4l2_requestbuffers()
        req.count = UInt32(count)
        req.type = bufType
        req.memory = V4L2_MEMORY_MMAP.rawValue
        try node.ioctl(CC_VIDIOC_REQBUFS, &req, "VIDIOC_REQBUFS \(count)")
        guard req.count >= 2 else {
            throw .noMemory("\(device.node) granted only \(req.count) buffers")
        }
        let pool = MappedBuffers(count: Int(req.count), waker: waker)
        mapped = pool
        format.bufferCount = Int(req.count)
        for i in 0..<Int(req.count) {
            var planes = [v4l2_plane](repeating: v4l2_plane(), count: Int(VIDEO_MAX_PLANES))
            var b = v4l2_buffer()
            b.index = UInt32(i)
            b.type = bufType
            b.memory = V4L2_MEMORY_MMAP.rawValue
            var maps: [(UnsafeMutableRawPointer, Int)] = []
            if isMultiplanar {
                try planes.withUnsafeMutableBufferPointer { pp throws(CamError) in
                    b.m.planes = pp.baseAddress
                    b.length = UInt32(VIDEO_MAX_PLANES)
                    try node.ioctl(CC_VIDIOC_QUERYBUF, &b, "VIDIOC_QUERYBUF")
                    for p in 0..<Int(b.length) {
                        let len = Int(pp[p].length)
                        maps.append((try node.map(length: len, offset: pp[p].m.mem_offset), len))
                    }
                }
            } else {
                try node.ioctl(CC_VIDIOC_QUERYBUF, &b, "VIDIOC_QUERYBUF")
                maps.append((try node.map(length: Int(b.length), offset: b.m.offset), Int(b.length)))
            }
            pool.maps.append(maps)
        }
        for i in 0..<Int(req.count) { try requeue(i) }
    }

    func requeue(_ slot: Int) throws(CamError) {
        guard let node else { return }
        var b = v4l2_buffer()
        b.index = UInt32(slot)
        b.type = bufType
        b.memory = V4L2_MEMORY_MMAP.rawValue
        if isMultiplanar {
            planeScratch.update(repeating: v4l2_plane(), count: Int(VIDEO_MAX_PLANES))
            b.m.planes = planeScratch
            b.length = UInt32(mapped?.maps[slot].count ?? 1)
        }
        let e = node.rawIoctlErrno(CC_VIDIOC_QBUF, &b)
        if e != 0 { throw CamError.fromErrno(e, "VIDIOC_QBUF on \(node.path)") }
    }

    func nextFrame() -> BackendEvent {
        guard let node, let waker, let pool = mapped else { return .failed(.state("not streaming")) }
        let fds = pollScratch
        // POLLIN only: control events (POLLPRI) belong to the control thread.
        fds[0] = pollfd(fd: node.fd, events: Int16(POLLIN), revents: 0)
        fds[1] = pollfd(fd: waker.fd, events: Int16(POLLIN), revents: 0)
        let rc = poll(fds, 2, 1000)
        if rc < 0 {
            return errno == EINTR ? .idle : .failed(CamError.fromErrno(errno, "poll on \(device.node)"))
        }
        if fds[1].revents != 0 {
            waker.drain()
            return .woken
        }
        if rc == 0 { return .idle }
        let deviceError = fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0
        var b = v4l2_buffer()
        b.type = bufType
        b.memory = V4L2_MEMORY_MMAP.rawValue
        let planes = planeScratch
        if isMultiplanar {
            planes.update(repeating: v4l2_plane(), count: Int(VIDEO_MAX_PLANES))
            b.m.planes = planes
            b.length = UInt32(VIDEO_MAX_PLANES)
        }
        let e = node.rawIoctlErrno(CC_VIDIOC_DQBUF, &b)
        if e == EAGAIN {
            if deviceError {
                // POLLERR with nothing to dequeue: the queue is broken. Give
                // the driver a moment, then give up rather than spin.
                errorPolls += 1
                if errorPolls > 50 { return .failed(.io("\(device.node) reports an error on poll")) }
                usleep(10_000)
            }
            return .idle
        }
        if e != 0 { return .failed(CamError.fromErrno(e, "VIDIOC_DQBUF on \(device.node)")) }
        errorPolls = 0
        let slot = Int(b.index)
        guard slot < pool.maps.count else { return .failed(.internalError("DQBUF index \(slot) out of range")) }
        var flags: FrameFlags = b.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0 ? .corrupted : []
        var frame: Frame
        if isMultiplanar && pool.maps[slot].count > 1 {
            var ps = (Plane.empty, Plane.empty, Plane.empty)
            let n = min(pool.maps[slot].count, 3)
            for i in 0..<n {
                let (base, len) = pool.maps[slot][i]
                let off = Int(planes[i].data_offset)
                let used = Int(planes[i].bytesused)
                if used <= off || used > len { flags.insert(.corrupted) }
                let p = Plane(base: base + min(off, len), stride: memStrides[i], length: max(0, min(used, len) - off))
                switch i { case 0: ps.0 = p; case 1: ps.1 = p; default: ps.2 = p }
            }
            frame = Frame(fourcc: format.fourcc, width: format.width, height: format.height,
                          planeCount: n, planes: ps, timestampNs: 0, sequence: b.sequence,
                          flags: flags, pool: pool, slot: slot)
        } else {
            let (base, len) = pool.maps[slot][0]
            let off = isMultiplanar ? Int(planes[0].data_offset) : 0
            let usedRaw = isMultiplanar ? Int(planes[0].bytesused) : Int(b.bytesused)
            let used = max(0, min(usedRaw, len) - off)
            let stride = memStrides.first ?? 0
            let split = PlaneLayout.split(format.fourcc, base: base + min(off, len), used: used,
                                          stride: stride, height: format.height)
            if !split.complete { flags.insert(.corrupted) }
            frame = Frame(fourcc: format.fourcc, width: format.width, height: format.height,
                          planeCount: split.count, planes: split.planes, timestampNs: 0,
                          sequence: b.sequence, flags: flags, pool: pool, slot: slot)
        }
        frame.timestampNs = timestamp(b)
        // S26: a truncated JPEG is no good frame, native output included.
        if (format.fourcc == .mjpeg || format.fourcc == .jpeg) && !Self.looksLikeWholeJPEG(frame.planes.0) {
            frame.flags.insert(.corrupted)
        }
        return .frame(frame)
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
    private func timestamp(_ b: v4l2_buffer) -> UInt64 {
        let monotonic = b.flags & UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK) == UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC)
        let ns = UInt64(max(0, b.timestamp.tv_sec)) * 1_000_000_000 + UInt64(max(0, b.timestamp.tv_usec)) * 1000
        return monotonic && ns != 0 ? ns : monotonicNs()
    }

    func stop() {
        guard let node else { return }
        if streaming {
            var t = Int32(bitPattern: bufType)
            node.ioctlErrno(CC_VIDIOC_STREAMOFF, &t)
            streaming = false
        }
        if let pool = mapped {
            pool.finishStreaming()
            // Drop our hold first so unheld buffers are unmapped, then free
            // the driver's queue; buffers the app still holds stay mapped
            // (orphaned, V4L2_BUF_CAP_SUPPORTS_ORPHANED_BUFS) until released.
            mapped = nil
            var req = v4l2_requestbuffers()
            req.count = 0
            req.type = bufType
            req.memory = V4L2_MEMORY_MMAP.rawValue
            node.ioctlErrno(CC_VIDIOC_REQBUFS, &req)
        }
        waker = nil
    }

    func close() {
        stop()
        node?.close()
        node = nil
    }
}
