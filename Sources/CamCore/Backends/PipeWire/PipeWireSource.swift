// SPDX-License-Identifier: MIT
internal import CPipeWire
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The camera nodes of a PipeWire daemon as a camera source (SPEC S32, S34):
/// the registry's nodes with media.class "Video/Source" and media.role
/// "Camera". libpipewire-0.3 is loaded at run time (CPipeWire's ccpw_load):
/// without it, or without a daemon, this source lists nothing and says why
/// in `unavailableReason`; the other sources are unaffected (S33).
///
/// Ids are "pipewire:" + node.name, which survives daemon restarts (the
/// registry id does not). Node names are the session manager's and can
/// clash (WirePlumber names both of vivid's nodes after their one platform
/// device and races when they come back): a node whose name an earlier node
/// already has gets "@" + its object.path appended, so ids stay unique. A node that wraps a V4L2 device (object.path
/// "v4l2:/dev/videoN") reports that device's V4L2 id as `v4l2ID`.
///
/// One connection (a pw_thread_loop) serves listing, formats, hot-plug and
/// capture; it is made on first use and made again after the daemon went
/// away. Safe from any thread.
final class PipeWireSource: CameraSource, @unchecked Sendable {
    let name = "pipewire"

    /// The shim's connection (ccpw_core), which is safe from any thread. It
    /// is destroyed when its last holder lets go: the source, and every
    /// capture, buffer pool and control surface made on it, so a stream
    /// never outlives the loop it runs on (a dead connection is replaced
    /// while streams on it may still be closing).
    final class Core: @unchecked Sendable {
        let p: OpaquePointer
        init(_ p: OpaquePointer) { self.p = p }
        deinit { ccpw_core_destroy(p) }
    }
    private struct State {
        var core: Core?
        /// Why the last connection attempt failed; nil when connected.
        var reason: String?
        /// When the last failed attempt was made (monotonic ns): retry at most every 500 ms.
        var failedAt: UInt64 = 0
        /// The running watches, which deliver the changes on their threads.
        var watches: [Int: PipeWireWatch] = [:]
        var nextObserver = 1
        /// The devices last reported added, by id.
        var known: [String: DeviceInfo] = [:]
    }
    private let state = Mutex(State())
    /// Serialises connecting (not held while observers run).
    private let connecting = Mutex(())
    /// How a connection reaches the daemon (S35).
    enum Remote: @unchecked Sendable {
        /// The default socket ($PIPEWIRE_REMOTE, $XDG_RUNTIME_DIR/pipewire-0).
        case socket
        /// A remote fd the app handed over; each connection uses a dup.
        case fd(Int32)
        /// A fresh fd from the camera portal (OpenPipeWireRemote) for each
        /// connection, once the portal granted access; asks it first.
        case portal(CameraPortal)
    }
    let remote: Remote

    init(remote: Remote = .socket) { self.remote = remote }

    /// The portal this source goes through, if any.
    var cameraPortal: CameraPortal? {
        if case .portal(let p) = remote { return p }
        return nil
    }

    deinit {
        // A capture's buffers may keep the connection a while: its registry
        // must not call into this source any more.
        if let c = state.withLock({ $0.core }) { ccpw_core_set_listener(c.p, nil, nil) }
    }

    /// Why PipeWire cameras cannot be listed now (library or daemon
    /// missing); nil when connected.
    var unavailableReason: String? {
        _ = connection()
        return state.withLock { $0.reason }
    }

    /// The live connection, connecting (again) when there is none.
    private func connection() -> Core? {
        if let c = state.withLock({ $0.core }), ccpw_core_alive(c.p) != 0 { return c }
        return connecting.withLock { _ -> Core? in
            let (old, failedAt) = state.withLock { s -> (Core?, UInt64) in
                if let c = s.core, ccpw_core_alive(c.p) == 0 { s.core = nil; return (c, s.failedAt) }
                return (nil, s.failedAt)
            }
            if let old { ccpw_core_set_listener(old.p, nil, nil) }  // destroyed with its last holder
            if let c = state.withLock({ $0.core }) { return c }
            let now = monotonicNs()
            if failedAt != 0 && now - failedAt < 500_000_000 { return nil }
            var fd: Int32 = -1
            switch remote {
            case .socket: break
            case .fd(let f): fd = dup(f)
            case .portal(let p):
                guard p.permission == .granted else {
                    try? p.start()
                    let why = "camera access through the portal is \(p.permission.name): \(p.detail)"
                    state.withLock { $0.reason = why }
                    return nil
                }
                do throws(CamError) {
                    fd = try p.openRemote()
                } catch {
                    state.withLock { s in s.reason = error.message; s.failedAt = now }
                    return nil
                }
            }
            var err = [CChar](repeating: 0, count: 256)
            let me = Unmanaged.passUnretained(self).toOpaque()
            ccpw_set_debug(((try? Environment.flag(Environment.pipewireDebug)) ?? false) ? 1 : 0)
            let c = ccpw_connect(fd, 5000, { ud, added, node in
                guard let ud, let node else { return }
                Unmanaged<PipeWireSource>.fromOpaque(ud).takeUnretainedValue().nodeChanged(added != 0, node.pointee)
            }, me, &err, err.count)
            let message = PipeWireSource.text(err)
            let made = c.map(Core.init)
            state.withLock { s in
                s.core = made
                s.reason = c == nil ? message : nil
                s.failedAt = c == nil ? now : 0
            }
            return made
        }
    }

    /// A node came or went (on the PipeWire loop thread).
    private func nodeChanged(_ added: Bool, _ node: ccpw_node) {
        let id = idPrefix + PipeWireSource.key(node)
        let arrived = added ? described([node]).first : nil
        // The V4L2 node it wraps, when V4L2 does not list it yet (udev may
        // still be making it): the watch thread waits for it (`wrapped`).
        let path = PipeWireSource.string(node.device_path)
        let pending = (arrived.map { $0.v4l2ID == nil } ?? false) ? path : ""
        // Handed to the watches' threads, not delivered here: an observer
        // calling back in (formats, open) needs this loop thread running.
        state.withLock { s in
            let change: DeviceChange
            if let d = arrived {
                s.known[id] = d
                change = .added(d)
            } else {
                guard let d = s.known.removeValue(forKey: id) else { return }
                change = .removed(d)
            }
            for w in s.watches.values { w.enqueue(change, wrapping: pending) }
        }
    }

    /// `d` as it arrived, with the V4L2 device at `path` it wraps once V4L2
    /// lists it: waits up to 2 s (on the watch thread). What is known of it
    /// is updated too, so its removal reports the same.
    fileprivate func wrapped(_ d: DeviceInfo, path: String) -> DeviceInfo {
        for _ in 0..<20 {
            if let v = DeviceEnumerator.captureDevices().first(where: { $0.node == path }) {
                var got = d
                PipeWireSource.adopt(v, into: &got)
                state.withLock { s in if s.known[d.id] != nil { s.known[d.id] = got } }
                return got
            }
            var ts = timespec(tv_sec: 0, tv_nsec: 100_000_000)
            nanosleep(&ts, nil)
        }
        return d
    }

    /// A NUL-terminated message buffer as a String.
    static func text(_ buf: [CChar]) -> String {
        String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// What follows "pipewire:" in a node's id: node.name, plus
    /// "@" + object.path (or "@serial" + object.serial) when an earlier
    /// node has the same name.
    static func key(_ n: ccpw_node) -> String {
        let name = string(n.name)
        guard n.duplicate != 0 else { return name }
        let path = string(n.object_path)
        return name + "@" + (path.isEmpty ? "serial\(n.serial)" : path)
    }

    static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// Nodes as devices, each with the V4L2 device it wraps (object.path
    /// "v4l2:/dev/videoN") when V4L2 lists it; V4L2 is enumerated only
    /// when some node wraps a device.
    private func described(_ nodes: [ccpw_node]) -> [DeviceInfo] {
        let paths = nodes.map { PipeWireSource.string($0.device_path) }
        let v4l2 = paths.contains { !$0.isEmpty } ? DeviceEnumerator.captureDevices() : []
        return zip(nodes, paths).map { n, path in
            info(n, wraps: path.isEmpty ? nil : v4l2.first(where: { $0.node == path }))
        }
    }

    /// A node as a device; one over a V4L2 device takes that device's
    /// driver, bus, USB ids, type and position (the node's own properties
    /// carry none of them) and its id as `v4l2ID`.
    private func info(_ n: ccpw_node, wraps v: DeviceInfo?) -> DeviceInfo {
        let name = PipeWireSource.string(n.name)
        let description = PipeWireSource.string(n.description)
        let driver = PipeWireSource.string(n.driver)
        let virtualDrivers: Set<String> = ["vivid", "v4l2 loopback", "v4l2loopback"]
        var d = DeviceInfo(id: idPrefix + PipeWireSource.key(n), name: description.isEmpty ? name : description, node: name,
                           busInfo: PipeWireSource.string(n.bus_path), driver: driver.isEmpty ? "pipewire" : driver,
                           type: virtualDrivers.contains(driver) ? .virtual : .external, position: .unknown)
        if let v { PipeWireSource.adopt(v, into: &d) }
        let camera = PipeWireSource.string(n.libcamera_id)
        if d.wraps == nil, !camera.isEmpty { d.wraps = "libcamera:" + camera }
        return d
    }

    /// What a node over V4L2 device `v` takes from it.
    private static func adopt(_ v: DeviceInfo, into d: inout DeviceInfo) {
        d.wraps = v.id
        d.driver = v.driver
        if d.busInfo.isEmpty { d.busInfo = v.busInfo }
        d.usbVendorID = v.usbVendorID
        d.usbProductID = v.usbProductID
        d.type = v.type
        d.position = v.position
    }

    private func nodes() -> [ccpw_node] {
        guard let c = connection() else { return [] }
        var buf = [ccpw_node](repeating: ccpw_node(), count: 64)
        let n = ccpw_core_nodes(c.p, &buf, buf.count)
        return Array(buf.prefix(min(n, buf.count)))
    }

    func devices() -> [DeviceInfo] { described(nodes()) }

    /// The camera node with this id, present now.
    private func node(id: String) -> ccpw_node? {
        nodes().first { idPrefix + PipeWireSource.key($0) == id }
    }

    func device(id: String) -> DeviceInfo? { node(id: id).flatMap { described([$0]).first } }

    /// The live connection and the node now (its registry id and serial
    /// change when the daemon restarts). Errors: io (no daemon), noDevice.
    func resolve(_ d: DeviceInfo) throws(CamError) -> (Core, ccpw_node) {
        guard let c = connection() else {
            throw .io(state.withLock { $0.reason } ?? "PipeWire is not available")
        }
        guard let n = node(id: d.id) else {
            throw .noDevice("the PipeWire camera \"\(d.node)\" is gone")
        }
        return (c, n)
    }

    func formats(of d: DeviceInfo) throws(CamError) -> [FormatDescription] {
        let (c, n) = try resolve(d)
        return try PipeWireSource.formats(core: c, nodeID: n.id, name: d.node)
    }

    static func formats(core c: Core, nodeID: UInt32, name: String) throws(CamError) -> [FormatDescription] {
        var err = [CChar](repeating: 0, count: 256)
        var buf = [ccpw_format](repeating: ccpw_format(), count: 256)
        let n = ccpw_enum_formats(c.p, nodeID, 5000, &buf, buf.count, &err, err.count)
        if n < 0 { throw .io("\(name): \(PipeWireSource.text(err))") }
        return buf.prefix(Int(min(n, Int32(buf.count)))).map(description)
    }

    /// One EnumFormat entry in the V4L2 shapes (S5).
    private static func description(_ f: ccpw_format) -> FormatDescription {
        let fourcc = FourCC(rawValue: f.fourcc)
        let size: SizeRange = f.size_range != 0
            ? .stepwise(minWidth: Int(f.min_width), maxWidth: Int(f.max_width), stepWidth: Int(max(1, f.step_width)),
                        minHeight: Int(f.min_height), maxHeight: Int(f.max_height), stepHeight: Int(max(1, f.step_height)))
            : .discrete(width: Int(f.width), height: Int(f.height))
        let rates: RateRange
        switch f.rate_kind {
        case 0:
            var list: [FrameRate] = []
            withUnsafeBytes(of: f.rates) { raw in
                let r = raw.bindMemory(to: UInt32.self)
                for i in 0..<Int(f.rate_count) where r[2 * i + 1] != 0 {
                    list.append(FrameRate(r[2 * i], r[2 * i + 1]))
                }
            }
            rates = .discrete(list.sorted(by: >))
        case 1:
            rates = .continuous(min: FrameRate(f.min_rate.0, max(1, f.min_rate.1)),
                                max: FrameRate(f.max_rate.0, max(1, f.max_rate.1)))
        default:
            rates = .unknown
        }
        let info = PixelFormatTable.info(fourcc)
        return FormatDescription(fourcc: fourcc, description: info.map { "\($0.description)" } ?? fourcc.description,
                                 isCompressed: info?.isCompressed ?? (fourcc == .mjpeg), size: size, rates: rates)
    }

    func rates(of d: DeviceInfo, fourcc: FourCC, width: Int, height: Int) throws(CamError) -> RateRange {
        let all = try formats(of: d).filter { $0.fourcc == fourcc }
        guard !all.isEmpty else { throw .notSupported("the PipeWire camera \(d.node) has no pixel format \(fourcc)") }
        for f in all {
            switch f.size {
            case .discrete(let w, let h) where w == width && h == height: return f.rates
            case .stepwise(let a, let b, _, let c, let e, _) where (a...b).contains(width) && (c...e).contains(height):
                return f.rates
            case .continuous(let a, let b, let c, let e) where (a...b).contains(width) && (c...e).contains(height):
                return f.rates
            default: continue
            }
        }
        throw .notSupported("the PipeWire camera \(d.node) has no \(fourcc) \(width)x\(height)")
    }

    func open(_ d: DeviceInfo) throws(CamError) -> CaptureBackend {
        let (c, n) = try resolve(d)
        // target.object by serial: node names can clash (see the type's doc).
        let target = n.serial != 0 ? String(n.serial) : PipeWireSource.string(n.name)
        return PipeWireCapture(source: self, core: c, nodeID: n.id, target: target, device: d)
    }

    func watch(_ observer: @escaping @Sendable (DeviceChange) -> Void) throws(CamError) -> SourceWatch? {
        // Connect first, with no watch yet: the caller (Manager) holds its
        // lock here, and the first round trip reports every node. What is
        // there now counts as known, so its removal is reported.
        let present = devices()
        let token = state.withLock { s -> Int in
            for d in present where s.known[d.id] == nil { s.known[d.id] = d }
            let t = s.nextObserver
            s.nextObserver += 1
            return t
        }
        let w = try PipeWireWatch(source: self, token: token, observer: observer)
        state.withLock { $0.watches[token] = w }
        return w
    }

    fileprivate func stopWatching(_ token: Int) {
        state.withLock { _ = $0.watches.removeValue(forKey: token) }
    }

    /// Reconnects when the daemon went away (called by the watch's thread);
    /// a new connection reports its nodes as added.
    fileprivate func keepConnected() { _ = connection() }
}

/// The hot-plug watch of the PipeWire source: node add/remove come from the
/// registry on the PipeWire loop thread, which queues them here; this
/// thread delivers them to the observer (so the observer may call back
/// into the source) and reconnects after the daemon went away (every
/// 500 ms while it is gone).
final class PipeWireWatch: SourceWatch, @unchecked Sendable {
    private let source: PipeWireSource
    private let token: Int
    private let observer: @Sendable (DeviceChange) -> Void
    private let stopping = Atomic<Bool>(false)
    private let waker: Waker
    /// Changes to deliver, each with the V4L2 node an arrival wraps but
    /// whose V4L2 device was not listed yet ("" for none).
    private let queue = Mutex<[(DeviceChange, String)]>([])
    private var thread: LibraryThread?

    init(source: PipeWireSource, token: Int, observer: @escaping @Sendable (DeviceChange) -> Void) throws(CamError) {
        self.source = source
        self.token = token
        self.observer = observer
        waker = try Waker()
        thread = try LibraryThread(name: "camcore-pw") { [self] in run() }
    }

    /// Queues a change for the thread (from the loop thread).
    func enqueue(_ c: DeviceChange, wrapping path: String) {
        queue.withLock { $0.append((c, path)) }
        waker.wake()
    }

    private func run() {
        var p = pollfd(fd: waker.fd, events: Int16(POLLIN), revents: 0)
        while !stopping.load(ordering: .acquiring) {
            source.keepConnected()
            _ = poll(&p, 1, 500)
            waker.drain()
            while !stopping.load(ordering: .acquiring),
                  let (c, path) = queue.withLock({ q -> (DeviceChange, String)? in q.isEmpty ? nil : q.removeFirst() }) {
                if case .added(let d) = c, !path.isEmpty {
                    observer(.added(source.wrapped(d, path: path)))
                } else {
                    observer(c)
                }
            }
        }
    }

    func stop() {
        source.stopWatching(token)
        stopping.store(true, ordering: .releasing)
        waker.wake()
        thread?.join()
        thread = nil
    }
}
