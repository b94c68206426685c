// SPDX-License-Identifier: MIT
internal import CLibcamera
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The cameras libcamera reaches (SPEC S41): above all the media-pipeline
/// cameras (MIPI sensors behind an ISP or CSI receiver; the kernel's vimc)
/// whose capture nodes the V4L2 backend hides (S40). libcamera's C++ API
/// is behind camcore's plugin (CLibcamera: cclc.h), loaded at run time;
/// without it (or without libcamera) this source lists nothing and says
/// why (`unavailableReason`).
///
/// Ids are "libcamera:" + libcamera's camera id. A camera's name is its
/// Model property; its position comes from Location, its rotation from
/// Rotation. libcamera's CameraManager is process-wide and slow to start
/// (seconds: IPA modules, the media graph), so it is started on first use.
///
/// `gate` (the `auto` choice): list only when the V4L2 backend has seen a
/// media-pipeline node, so a machine with plain webcams never starts
/// libcamera. A camera libcamera reaches through a video node of its own
/// (its uvcvideo handler: an id ending in USB "vendor:product") is left to
/// the V4L2 backend when that is in use too (S42: one camera, one entry).
final class LibcameraSource: CameraSource, @unchecked Sendable {
    let name = "libcamera"
    private let gate: (@Sendable () -> Bool)?
    private let skipVideoNodeCameras: Bool

    /// The plugin's table and the shared CameraManager, once opened.
    final class Context: @unchecked Sendable {
        let api: UnsafePointer<cclc_api>
        let p: OpaquePointer
        init(api: UnsafePointer<cclc_api>, p: OpaquePointer) { self.api = api; self.p = p }
        deinit { api.pointee.ctx_close(p) }
    }
    private struct State {
        var context: Context?
        var reason: String?
        var watches: [Int: @Sendable (DeviceChange) -> Void] = [:]
        var nextWatch = 1
        var known: [String: DeviceInfo] = [:]
        var hotplugSet = false
    }
    private let state = Mutex(State())

    init(gate: (@Sendable () -> Bool)? = nil, skipVideoNodeCameras: Bool = false) {
        self.gate = gate
        self.skipVideoNodeCameras = skipVideoNodeCameras
    }

    static func text(_ buf: [CChar]) -> String {
        String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The context, starting libcamera's CameraManager the first time.
    /// Errors: notSupported (no plugin or libcamera), io (it did not start).
    func context() throws(CamError) -> Context {
        if let c = state.withLock({ $0.context }) { return c }
        var err = [CChar](repeating: 0, count: 512)
        guard let api = cclc_load(&err, err.count) else {
            let why = LibcameraSource.text(err)
            state.withLock { $0.reason = why }
            throw .notSupported(why)
        }
        guard let p = api.pointee.ctx_open(&err, err.count) else {
            let why = LibcameraSource.text(err)
            state.withLock { $0.reason = why }
            throw .io(why)
        }
        let made = Context(api: api, p: p)
        return state.withLock { s in
            if let c = s.context { return c }   // another thread won; `made` closes
            s.context = made
            s.reason = nil
            return made
        }
    }

    /// Why this source lists nothing (plugin or libcamera missing), once known.
    var unavailableReason: String? { state.withLock { $0.reason } }
    var openRefusal: String? { unavailableReason }

    /// A libcamera id that names a camera on a video node of its own
    /// (libcamera's uvcvideo handler ends it with the USB "vid:pid").
    static func isVideoNodeCamera(_ id: String) -> Bool {
        // "<the USB interface's path>-<vid>:<pid>": the path part is there.
        guard let dash = id.lastIndex(of: "-"), dash != id.startIndex else { return false }
        let tail = id[id.index(after: dash)...]
        let parts = tail.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { $0.count == 4 && $0.allSatisfy(\.isHexDigit) }
    }

    /// The USB camera a libcamera UVC id names, as parts: the USB ports
    /// ("2.4": the bus number is not in it) and vendor and product id. The
    /// id is "<controller's firmware node>-<ports>:<config>.<interface>-<vid>:<pid>"
    /// (libcamera's uvcvideo handler); nil for any other id.
    static func usbParts(_ id: String) -> (ports: String, vendor: UInt16, product: UInt16)? {
        guard isVideoNodeCamera(id), let dash = id.lastIndex(of: "-") else { return nil }
        let ids = id[id.index(after: dash)...].split(separator: ":")
        guard let vendor = UInt16(ids[0], radix: 16), let product = UInt16(ids[1], radix: 16) else { return nil }
        let rest = id[..<dash]
        guard let dash2 = rest.lastIndex(of: "-") else { return nil }
        let usb = rest[rest.index(after: dash2)...]          // "2.4:1.0"
        guard let colon = usb.firstIndex(of: ":") else { return nil }
        let ports = String(usb[..<colon])
        guard !ports.isEmpty, ports.allSatisfy({ $0.isNumber || $0 == "." }) else { return nil }
        return (ports, vendor, product)
    }

    /// The V4L2 device of a camera libcamera reaches through a video node
    /// of its own (S42): same USB vendor and product, on the same ports
    /// (V4L2's bus_info "usb-<controller>-<ports>"); the only one with that
    /// vendor and product when the ports tell nothing. nil when none fits.
    static func videoNodeDevice(of id: String, among v4l2: [DeviceInfo]) -> DeviceInfo? {
        guard let u = usbParts(id) else { return nil }
        let same = v4l2.filter { $0.usbVendorID == u.vendor && $0.usbProductID == u.product }
        if let d = same.first(where: { $0.busInfo.hasPrefix("usb-") && $0.busInfo.hasSuffix("-" + u.ports) }) { return d }
        return same.count == 1 ? same[0] : nil
    }

    private func info(_ d: cclc_camera_desc) -> DeviceInfo {
        var desc = d
        let id = withUnsafeBytes(of: &desc.id) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let model = withUnsafeBytes(of: &desc.model) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let position: CameraPosition
        switch d.location {
        case 0: position = .front
        case 1: position = .back
        case 2: position = .external
        default: position = .unknown
        }
        var info = DeviceInfo(id: idPrefix + id, name: model, node: id, busInfo: "", driver: "libcamera",
                              type: d.location == 2 ? .external : .builtin, position: position)
        info.rotation = d.rotation >= 0 ? Int(d.rotation) : nil   // S45: the Rotation property
        return info
    }

    private func all() -> [DeviceInfo] {
        guard let c = try? context() else { return [] }
        var buf = [cclc_camera_desc](repeating: cclc_camera_desc(), count: 32)
        let n = Int(c.api.pointee.cameras(c.p, &buf, Int32(buf.count)))
        var cams = buf.prefix(min(n, buf.count)).map(info)
        // S42: a UVC camera libcamera lists is a V4L2 device too; name it.
        if cams.contains(where: { LibcameraSource.isVideoNodeCamera($0.node) }) {
            let v4l2 = DeviceEnumerator.captureDevices()
            for i in cams.indices where LibcameraSource.isVideoNodeCamera(cams[i].node) {
                cams[i].wraps = LibcameraSource.videoNodeDevice(of: cams[i].node, among: v4l2)?.id
            }
        }
        // One the V4L2 backend lists is folded into it by the manager; one
        // that cannot be matched is still V4L2's when that backend is in use.
        return cams.filter { !(skipVideoNodeCameras && LibcameraSource.isVideoNodeCamera($0.node) && $0.wraps == nil) }
    }

    func devices() -> [DeviceInfo] {
        if let gate, !gate() { return [] }
        return all()
    }

    func device(id: String) -> DeviceInfo? { all().first { $0.id == id } }

    /// The libcamera id of a camcore id.
    func cameraID(_ d: DeviceInfo) -> String { d.node }

    func formats(of d: DeviceInfo) throws(CamError) -> [FormatDescription] {
        let c = try context()
        var buf = [cclc_format](repeating: cclc_format(), count: 32)
        var minNs: Int64 = 0, maxNs: Int64 = 0
        var err = [CChar](repeating: 0, count: 256)
        let n = c.api.pointee.formats(c.p, cameraID(d), &buf, Int32(buf.count), &minNs, &maxNs, &err, err.count)
        if n < 0 { throw .noDevice("\(d.id): \(LibcameraSource.text(err))") }
        let rates = LibcameraSource.rates(minNs: minNs, maxNs: maxNs)
        var out: [FormatDescription] = []
        for var f in buf.prefix(Int(min(n, Int32(buf.count)))) {
            guard let fourcc = PixelFormatTable.v4l2FourCC(drm: FourCC(rawValue: f.drm_fourcc)), f.modifier == 0 else { continue }
            let name = PixelFormatTable.info(fourcc).map { "\($0.description)" } ?? fourcc.description
            let compressed = PixelFormatTable.info(fourcc)?.isCompressed ?? false
            let sizes: [(Int, Int)] = withUnsafeBytes(of: &f.sizes) { raw in
                let v = raw.bindMemory(to: UInt32.self)
                return (0..<Int(min(f.n_sizes, UInt32(CCLC_MAX_SIZES)))).map { (Int(v[2 * $0]), Int(v[2 * $0 + 1])) }
            }
            if f.max_w > f.min_w || f.max_h > f.min_h || sizes.isEmpty {
                // A range stays a range (S5); libcamera's own list of
                // "common sizes" inside it is not what the camera offers.
                out.append(FormatDescription(fourcc: fourcc, description: name, isCompressed: compressed,
                                             size: .stepwise(minWidth: Int(f.min_w), maxWidth: Int(f.max_w),
                                                             stepWidth: Int(max(1, f.step_w)), minHeight: Int(f.min_h),
                                                             maxHeight: Int(f.max_h), stepHeight: Int(max(1, f.step_h))),
                                             rates: rates))
            } else {
                for (w, h) in sizes {
                    out.append(FormatDescription(fourcc: fourcc, description: name, isCompressed: compressed,
                                                 size: .discrete(width: w, height: h), rates: rates))
                }
            }
        }
        return out
    }

    /// FrameDurationLimits as a rate range (unknown without them).
    static func rates(minNs: Int64, maxNs: Int64) -> RateRange {
        guard minNs > 0, maxNs >= minNs else { return .unknown }
        // A duration in µs as a rate fraction: 1e6 / µs fps.
        let fast = FrameRate(1_000_000, UInt32(clamping: max(1, minNs / 1000)))
        let slow = FrameRate(1_000_000, UInt32(clamping: max(1, maxNs / 1000)))
        return fast == slow ? .discrete([fast]) : .continuous(min: slow, max: fast)
    }

    func rates(of d: DeviceInfo, fourcc: FourCC, width: Int, height: Int) throws(CamError) -> RateRange {
        let all = try formats(of: d)
        guard let f = all.first(where: { $0.fourcc == fourcc }) else {
            throw .notSupported("\(d.id) has no pixel format \(fourcc)")
        }
        return f.rates
    }

    func open(_ d: DeviceInfo) throws(CamError) -> CaptureBackend {
        try LibcameraCapture(context: try context(), device: d, cameraID: cameraID(d))
    }

    // MARK: Hot-plug (cameraAdded / cameraRemoved)

    func watch(_ observer: @escaping @Sendable (DeviceChange) -> Void) throws(CamError) -> SourceWatch? {
        if let gate, !gate() { return nil }
        guard let c = try? context() else { return nil }
        let present = all()   // (outside the lock: all() takes it)
        let token: Int = state.withLock { s in
            let t = s.nextWatch
            s.nextWatch += 1
            s.watches[t] = observer
            if s.known.isEmpty { for d in present { s.known[d.node] = d } }
            return t
        }
        let install = state.withLock { s -> Bool in
            defer { s.hotplugSet = true }
            return !s.hotplugSet
        }
        if install {
            let me = Unmanaged.passUnretained(self).toOpaque()
            c.api.pointee.set_hotplug(c.p, { ud, added, id in
                guard let ud, let id else { return }
                Unmanaged<LibcameraSource>.fromOpaque(ud).takeUnretainedValue().changed(added != 0, String(cString: id))
            }, me)
        }
        return LibcameraWatch(source: self, token: token)
    }

    fileprivate func stopWatch(_ token: Int) {
        let last: Context? = state.withLock { s in
            s.watches[token] = nil
            guard s.watches.isEmpty, s.hotplugSet else { return nil }
            s.hotplugSet = false
            return s.context
        }
        // Waits for a running hot-plug callback (the plugin's context lock).
        last?.api.pointee.set_hotplug(last!.p, nil, nil)
    }

    private func changed(_ added: Bool, _ cameraID: String) {
        if skipVideoNodeCameras && LibcameraSource.isVideoNodeCamera(cameraID) { return }
        let (event, observers): (DeviceChange?, [@Sendable (DeviceChange) -> Void]) = state.withLock { s in
            let obs = Array(s.watches.values)
            if added {
                let d = DeviceInfo(id: idPrefix + cameraID, name: cameraID, node: cameraID, busInfo: "",
                                   driver: "libcamera", type: .builtin, position: .unknown)
                s.known[cameraID] = d
                return (.added(d), obs)
            }
            guard let d = s.known.removeValue(forKey: cameraID) else {
                return (.removed(DeviceInfo(id: idPrefix + cameraID, name: cameraID, node: cameraID, busInfo: "",
                                            driver: "libcamera", type: .builtin, position: .unknown)), obs)
            }
            return (.removed(d), obs)
        }
        guard let event else { return }
        for o in observers { o(event) }
    }

    deinit {
        if let c = state.withLock({ $0.context }), state.withLock({ $0.hotplugSet }) {
            c.api.pointee.set_hotplug(c.p, nil, nil)
        }
    }
}

/// One hot-plug watch of the libcamera source.
final class LibcameraWatch: SourceWatch, @unchecked Sendable {
    private let source: LibcameraSource
    private let token: Int
    private let stopped = Mutex(false)
    init(source: LibcameraSource, token: Int) { self.source = source; self.token = token }
    func stop() {
        let first = stopped.withLock { s -> Bool in defer { s = true }; return !s }
        if first { source.stopWatch(token) }
    }
}
