// SPDX-License-Identifier: MIT
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Which backends a manager lists cameras from (SPEC S33).
package enum BackendChoice: String, Sendable, CaseIterable {
    /// PipeWire inside a sandbox (Flatpak's /.flatpak-info, Snap's
    /// $SNAP), V4L2 elsewhere.
    case auto
    case v4l2
    case pipewire
    /// Every backend; a camera several reach is listed once (S42): a
    /// PipeWire camera that wraps a listed V4L2 device as the V4L2 device,
    /// a camera libcamera reaches through a video node (UVC) as V4L2's.
    case both
    /// libcamera's cameras only (S41; the plugin loaded at run time).
    case libcamera

    /// True inside a Flatpak or Snap sandbox.
    static var inSandbox: Bool { access("/.flatpak-info", F_OK) == 0 || getenv("SNAP") != nil }

    /// What `auto` means here and now.
    var resolved: BackendChoice {
        guard self == .auto else { return self }
        return BackendChoice.inSandbox ? .pipewire : .v4l2
    }
}

/// A set of named backends (S33: "backends are named, not a closed
/// list"): an app, the tool's `--backend` or CAMCORE_BACKEND may name any
/// set of them, comma-separated (`v4l2,libcamera`). One name alone is a
/// `BackendChoice` (`auto` and `both` included); a list may use the
/// backend names only. A camera several named backends reach is listed
/// once (S42).
package struct BackendSet: OptionSet, Sendable, Hashable {
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }
    package static let v4l2 = BackendSet(rawValue: 1)
    package static let pipewire = BackendSet(rawValue: 2)
    package static let libcamera = BackendSet(rawValue: 4)
    package static let all: BackendSet = [.v4l2, .pipewire, .libcamera]
    /// The backend names, in this order.
    package static let names: [(String, BackendSet)] = [("v4l2", .v4l2), ("pipewire", .pipewire), ("libcamera", .libcamera)]

    /// What a backend text names: one choice, or a set of backends.
    package enum Parsed: Sendable, Equatable { case choice(BackendChoice), set(BackendSet) }

    /// "auto", "both", one backend name, or a comma-separated list of
    /// backend names (any case, no spaces; each once). Errors:
    /// invalidArgument saying what is accepted, naming `what`.
    package static func parse(_ text: String, what: String) throws(CamError) -> Parsed {
        let l = text.lowercased()
        if let c = BackendChoice(rawValue: l) { return .choice(c) }
        var set: BackendSet = []
        let accepted = "auto, both, or backend names (v4l2, pipewire, libcamera) alone or comma-separated"
        for part in l.split(separator: ",", omittingEmptySubsequences: false) {
            guard let (_, b) = names.first(where: { $0.0 == part }), !set.contains(b) else {
                let unset = what.hasPrefix("environment") ? " (or unset it)" : ""
                throw .invalidArgument("\(what)\(Environment.shown(text)) is not valid: use \(accepted)\(unset)")
            }
            set.insert(b)
        }
        return .set(set)
    }

    /// CAMCORE_BACKEND parsed; nil when unset or empty.
    static func fromEnvironment() throws(CamError) -> Parsed? {
        guard let v = Environment.raw(Environment.backend) else { return nil }
        return try parse(v, what: "environment variable \(Environment.backend)=")
    }

    /// "v4l2,libcamera".
    package var description: String { BackendSet.names.filter { contains($0.1) }.map(\.0).joined(separator: ",") }
}

/// Manager settings.
package struct ManagerConfig: Sendable {
    /// A set of named backends (S33); when set, it is used instead of
    /// `backend` and of CAMCORE_BACKEND.
    package var backends: BackendSet? = nil
    /// The backends to list (S33). `auto` (the default) defers to
    /// CAMCORE_BACKEND when that is set.
    package var backend: BackendChoice = .auto
    /// A PipeWire remote fd the app already holds (e.g. from the camera
    /// portal, S35), used instead of the default socket; -1 for none.
    /// Duplicated: the app keeps its fd.
    package var pipeWireFD: Int32 = -1
    /// When PipeWire is reached through the camera portal (S35). `auto`
    /// (the default) defers to CAMCORE_PORTAL when that is set, and means
    /// "inside a sandbox". Not used when `pipeWireFD` is given.
    package var portal: PortalChoice = .auto
    /// How many synthetic cameras to list after the real ones (S4): 0, 1,
    /// or 2 (a front and a back one). The environment variable
    /// CAMCORE_SYNTHETIC_CAMERA=1 (or =2) also turns them on.
    package var syntheticCount: Int
    package init(includeSynthetic: Bool = false) { syntheticCount = includeSynthetic ? 1 : 0 }
    /// `syntheticCount` outside 0...2 is clamped (the C ABI refuses it first).
    package init(syntheticCount: Int) { self.syntheticCount = max(0, min(syntheticCount, 2)) }
    package var includeSynthetic: Bool { syntheticCount > 0 }
}

/// Finds cameras and opens them (SPEC S1–S5) by asking its camera
/// sources (Backends/Seam.swift, made by Backends/Registry.swift): the V4L2 nodes, then the
/// synthetic cameras when enabled. Holds no device open between calls.
/// Safe from any thread.
package final class Manager: @unchecked Sendable {
    package let config: ManagerConfig
    /// The synthetic cameras listed (config or environment).
    package let synthetic: [DeviceInfo]
    package var listsSynthetic: Bool { !synthetic.isEmpty }
    /// The camera sources, in listing order.
    private let sources: [CameraSource]
    /// The backends in use (`auto` resolved), as the nearest one choice.
    package let backend: BackendChoice
    /// The backends in use (S33), as named.
    package let backends: BackendSet
    /// The camera portal, when PipeWire is reached through it (S35).
    private let portal: CameraPortal?

    /// Builds the process-wide tables that opening and starting a camera
    /// read (the pixel format table, the kernel's poll behaviour) once,
    /// here, so that switching a camera on later (S9: on exactly when
    /// needed) spends its time on the device, not on first-use set-up.
    static func warmUp() {
        _ = PixelFormatTable.info(.yuyv)
        V4L2Capture.warmUp()
    }

    /// Errors: invalidArgument when a CAMCORE_* variable has a value
    /// camcore does not take (Environment: every variable is checked
    /// here), or `pipeWireFD` is not an open socket.
    package init(config: ManagerConfig = ManagerConfig()) throws(CamError) {
        try Environment.validate()
        if config.pipeWireFD < -1 {
            throw .invalidArgument("pipewire_fd \(config.pipeWireFD) is not a file descriptor (-1: none)")
        }
        if config.pipeWireFD >= 0 {
            var st = stat()
            guard fstat(config.pipeWireFD, &st) == 0 else {
                throw .invalidArgument("pipewire_fd \(config.pipeWireFD) is not an open file descriptor")
            }
            guard st.st_mode & S_IFMT == S_IFSOCK else {
                throw .invalidArgument("pipewire_fd \(config.pipeWireFD) is not a socket (a PipeWire remote fd is a "
                    + "connected Unix socket, e.g. from the camera portal's OpenPipeWireRemote)")
            }
        }
        self.config = config
        Manager.warmUp()
        let env = try Environment.syntheticCount() ?? 0
        let count = max(config.syntheticCount, env)
        // The backends: an explicit set, else the config's choice, else
        // CAMCORE_BACKEND (a choice or a set), else auto.
        let parsed: BackendSet.Parsed
        if let set = config.backends {
            parsed = .set(set)
        } else if config.backend != .auto {
            parsed = .choice(config.backend)
        } else {
            parsed = try BackendSet.fromEnvironment() ?? .choice(.auto)
        }
        let set: BackendSet
        var gated = false
        switch parsed {
        case .set(let s): set = s
        case .choice(let c):
            switch c.resolved {
            case .v4l2: set = .v4l2; gated = c == .auto
            case .pipewire: set = .pipewire
            case .both: set = .all
            case .libcamera: set = .libcamera
            case .auto: set = .v4l2
            }
        }
        if case .choice(let c) = parsed { backend = c.resolved } else {
            backend = set == .all ? .both : set == .pipewire ? .pipewire : set == .libcamera ? .libcamera : .v4l2
        }
        backends = set
        let portalChoice = config.portal == .auto ? try PortalChoice.fromEnvironment() ?? .auto : config.portal
        // The portal reports through the relay (the manager owns the portal).
        let relay = relay
        var sources: [CameraSource] = []
        for row in BackendRegistry.rows {
            let c = BackendRegistry.Context(named: set, auto: gated, earlier: sources, config: config,
                                            portalChoice: portalChoice,
                                            onPermission: { state, detail in relay.manager?.emit(.permission(state, detail)) })
            if let s = row.make(c) { sources.append(s) }
        }
        var synthetic: [DeviceInfo] = []
        if count > 0 {
            let s = SyntheticSource(count: count)
            sources.append(s)
            synthetic = s.cameras
        }
        self.sources = sources
        self.portal = sources.lazy.compactMap(\.cameraPortal).first
        self.synthetic = synthetic
        relay.manager = self
    }

    /// Hands the portal's reports to the manager without owning it.
    private final class PermissionRelay: @unchecked Sendable {
        weak var manager: Manager?
    }
    private let relay = PermissionRelay()

    // MARK: Camera permission (S35)

    /// Whether the cameras may be used: the camera portal's answer, or
    /// `granted` when no portal is in use.
    package var cameraPermission: CameraPermission { portal?.permission ?? .granted }

    /// Why the permission is what it is (the portal's answer or error);
    /// "no camera portal in use" without one.
    package var cameraPermissionDetail: String { portal?.detail ?? "no camera portal in use" }

    /// Asks the camera portal for access (AccessCamera) unless it is asked
    /// already or has granted it; after a denial it asks again. Waits up
    /// to `timeoutMs` for the answer (< 0: until answered; 0: not at all)
    /// and returns the state then: granted, or pending when the wait ended
    /// first. State changes are reported to the observers
    /// (`DeviceChange.permission`) on camcore's portal thread.
    /// Errors: access (denied: by the user, the permission store, a
    /// lockdown, or no portal to ask), timeout (no answer within a
    /// positive `timeoutMs`; the request stays pending), io.
    package func requestCameraAccess(timeoutMs: Int32) throws(CamError) -> CameraPermission {
        guard let portal else { return .granted }
        try portal.start(again: true)
        let state = portal.wait(timeoutMs: timeoutMs)
        switch state {
        case .denied: throw .access("camera access denied (camera portal): \(portal.detail)")
        case .pending where timeoutMs > 0:
            throw .timeout("the camera portal gave no answer within \(timeoutMs) ms; the request stays pending")
        case .unknown: throw .access("camera access not granted (camera portal): \(portal.detail)")
        default: return state
        }
    }

    /// Whether a camera is there now (S49), without asking for the camera
    /// permission: through the camera portal (S35) its IsCameraPresent,
    /// elsewhere whether the listing has a camera that is not synthetic.
    /// Never shows a permission prompt and never starts a stream; for an
    /// app that wants to know before it asks (Firefox does this).
    /// Errors: io (the portal did not answer).
    package func cameraPresent() throws(CamError) -> Bool {
        if let portal { return try portal.cameraPresent(timeoutMs: 10_000) }
        return devices().contains { !$0.isSynthetic }
    }

    /// The processes that hold a camera's device node open (S46), found
    /// through /proc as fuser(1) does, within 300 ms. Errors: noDevice
    /// (unknown id), notSupported (a camera without a device node of its
    /// own: libcamera's, a PipeWire node, the synthetic one).
    package func holders(of deviceID: String) throws(CamError) -> DeviceHolders {
        let (_, d) = try lookup(deviceID)
        guard d.node.hasPrefix("/dev/") else {
            throw .notSupported("\(deviceID) has no device node of its own to look for in /proc (\(d.node))")
        }
        return DeviceHolders.scan([d.node])
    }

    /// The capture devices present now: every source's, in source order
    /// (real cameras in node order, then the synthetic ones). No
    /// streaming; each node is open only for its queries (S3).
    /// A camera several sources reach is listed once (S42), as the device
    /// the others wrap, with their ids in `otherIDs`.
    package func devices() -> [DeviceInfo] {
        Manager.colourFirst(Manager.listedOnce(sources.flatMap { $0.devices() }))
    }

    /// S44: infrared cameras after the colour ones (the synthetic cameras,
    /// asked for, stay last), each group in its order.
    static func colourFirst(_ all: [DeviceInfo]) -> [DeviceInfo] {
        guard all.contains(where: { $0.type == .infrared }) else { return all }
        return all.filter { $0.type != .infrared && !$0.isSynthetic } + all.filter { $0.type == .infrared }
            + all.filter(\.isSynthetic)
    }

    /// The camera camcore picks when the app names none (S44: never an
    /// infrared one): the first listed that is not infrared; nil when there
    /// is none.
    package static func defaultDevice(among all: [DeviceInfo]) -> DeviceInfo? {
        all.first { $0.type != .infrared }
    }

    /// S42, one camera one entry: an entry that wraps another listed entry
    /// (`wraps`, followed through chains: a PipeWire node over a libcamera
    /// camera over a V4L2 device) is folded into the one at the end of the
    /// chain, which keeps its place and gains the folded ids in
    /// `otherIDs`; every entry names what it wraps there too. So the V4L2
    /// entry stands for a UVC camera, the libcamera one for a
    /// media-pipeline camera, a PipeWire node for a camera only it reaches.
    static func listedOnce(_ all: [DeviceInfo]) -> [DeviceInfo] {
        var index: [String: Int] = [:]
        for (i, d) in all.enumerated() where index[d.id] == nil { index[d.id] = i }
        func end(_ start: Int) -> Int {
            var path = [start]
            while let w = all[path.last!].wraps, let j = index[w], j != path.last! {
                // A cycle (no source makes one) ends at its first entry.
                if let k = path.firstIndex(of: j) { return path[k...].min()! }
                path.append(j)
            }
            return path.last!
        }
        var out = all
        var kept = [Bool](repeating: true, count: all.count)
        func add(_ id: String, to i: Int) {
            if id != out[i].id && !out[i].otherIDs.contains(id) { out[i].otherIDs.append(id) }
        }
        for i in all.indices { if let w = all[i].wraps { add(w, to: i) } }
        for i in all.indices {
            let e = end(i)
            guard e != i else { continue }
            kept[i] = false
            add(all[i].id, to: e)
            for id in out[i].otherIDs { add(id, to: e) }
        }
        return out.indices.filter { kept[$0] }.map { out[$0] }
    }

    /// `devices()`, then with `includeHidden` the capture nodes that are no
    /// cameras of their own (S40: parts of a media pipeline), each with
    /// `hiddenReason` (and `unavailableReason`) saying why and what to use.
    package func devices(includeHidden: Bool) -> [DeviceInfo] {
        guard includeHidden else { return devices() }
        return devices() + sources.flatMap { $0.hiddenDevices() }
    }

    /// Why a backend in use lists nothing (its library, plugin or daemon
    /// is missing), by backend name ("pipewire"); nil when it lists, or is
    /// not in use.
    package func unavailableReason(of backend: String) -> String? {
        sources.first { $0.name == backend }?.unavailableReason
    }

    /// The source whose ids start like `id`, with that device present now.
    private func lookup(_ id: String) throws(CamError) -> (CameraSource, DeviceInfo) {
        guard let source = sources.first(where: { id.hasPrefix($0.idPrefix) }), let d = source.device(id: id) else {
            if let h = sources.first(where: { id.hasPrefix($0.idPrefix) })?.hiddenDevices().first(where: { $0.id == id }),
               let why = h.hiddenReason {
                throw .notSupported("\(id) (\(h.node), \(h.name)) is not a camera camcore opens: \(why)")
            }
            if let why = sources.first(where: { id.hasPrefix($0.idPrefix) })?.openRefusal {
                throw .notSupported("\(id) cannot be reached: \(why)")
            }
            if let portal, id.hasPrefix("pipewire:"), portal.permission != .granted {
                throw .access("camera access through the portal is \(portal.permission.name) (\(portal.detail)), so \"\(id)\" cannot be reached")
            }
            throw .noDevice("no camera with id \"\(id)\" is present")
        }
        return (source, d)
    }

    /// The device with this id, present now. Errors: noDevice.
    package func device(id: String) throws(CamError) -> DeviceInfo { try lookup(id).1 }

    /// Formats of one device (S5): the driver's own, in its order.
    /// Errors: noDevice, access, busy, io.
    package func formats(deviceID: String) throws(CamError) -> [FormatDescription] {
        let (source, d) = try lookup(deviceID)
        return try source.formats(of: d)
    }

    /// S6: the setting nearest to `preference` on this device.
    /// Errors: noDevice, access, busy, io, notSupported (no formats).
    package func negotiate(deviceID: String, preference: CapturePreference) throws(CamError) -> NegotiatedFormat {
        guard let n = Negotiation.choose(try formats(deviceID: deviceID), for: preference) else {
            throw .notSupported("\(deviceID) lists no formats")
        }
        return n
    }

    /// S7 `format_for`: the nearest format supporting `rate`.
    /// Errors: noDevice, notSupported (no format reaches the rate), io.
    package func format(deviceID: String, width: Int, height: Int, rate: FrameRate) throws(CamError) -> NegotiatedFormat {
        guard let n = Negotiation.format(for: try formats(deviceID: deviceID), width: width, height: height, rate: rate) else {
            throw .notSupported("no format of \(deviceID) supports \(rate) fps")
        }
        return n
    }

    /// S7 `max_frame_rate`: `rate` if the format at this size supports it,
    /// else the supported rate closest to it.
    /// Errors: noDevice, notSupported (no such format and size, or no rates known).
    package func maxFrameRate(deviceID: String, fourcc: FourCC, width: Int, height: Int,
                             rate: FrameRate) throws(CamError) -> FrameRate {
        let rates = try self.rates(deviceID: deviceID, fourcc: fourcc, width: width, height: height)
        let f = FormatDescription(fourcc: fourcc, description: "", size: .discrete(width: width, height: height), rates: rates)
        guard let r = Negotiation.maxFrameRate(f, rate) else {
            throw .notSupported("\(deviceID) has no \(fourcc) \(width)x\(height) with known rates")
        }
        return r
    }

    /// The rates of one format at one size (VIDIOC_ENUM_FRAMEINTERVALS).
    /// Errors: noDevice, access, busy, io, notSupported (no such format).
    package func rates(deviceID: String, fourcc: FourCC, width: Int, height: Int) throws(CamError) -> RateRange {
        let (source, d) = try lookup(deviceID)
        return try source.rates(of: d, fourcc: fourcc, width: width, height: height)
    }

    // MARK: Hot-plug (S24)

    private struct Watching {
        var watches: [SourceWatch] = []
        var started = false
        var next = 1
        var observers: [(Int, @Sendable (DeviceChange) -> Void)] = []
    }
    private let watching = Mutex(Watching())
    /// Held while observers are called, so that after stopObserving
    /// returns the observer is not running and will not run.
    private let delivering = Mutex(())

    /// Calls `observer` on a source's hot-plug thread (libudev monitor for
    /// V4L2) for every capture device that is added or removed from now
    /// on. Returns a token for `stopObserving`. Errors: io (no udev monitor).
    package func observeDevices(_ observer: @escaping @Sendable (DeviceChange) -> Void) throws(CamError) -> Int {
        try watching.withLock { w throws(CamError) -> Int in
            if !w.started {
                var watches: [SourceWatch] = []
                for s in sources {
                    do throws(CamError) {
                        if let watch = try s.watch({ [weak self] change in self?.emit(change) }) { watches.append(watch) }
                    } catch {
                        for watch in watches { watch.stop() }
                        throw error
                    }
                }
                w.watches = watches
                w.started = true
            }
            let id = w.next
            w.next += 1
            w.observers.append((id, observer))
            return id
        }
    }

    fileprivate func emit(_ change: DeviceChange) {
        // S42: a camera listed once is told once, by the source that lists it.
        switch change {
        case .added(let d), .removed(let d):
            if let w = d.wraps, sources.contains(where: { w.hasPrefix($0.idPrefix) }) { return }
        case .permission: break
        }
        CallbackMark.inside(self) {
            delivering.withLock { _ in
                let list = watching.withLock { $0.observers }
                for (_, f) in list { f(change) }
            }
        }
    }

    /// True on the hot-plug thread while an observer runs: stopObserving
    /// from there would wait for itself (its callers refuse instead).
    package var isInsideCallback: Bool { CallbackMark.isInside(self) }

    /// Stops calling an observer; after it returns the observer is not called.
    package func stopObserving(_ token: Int) {
        watching.withLock { $0.observers.removeAll { $0.0 == token } }
        delivering.withLock { _ in }
    }

    deinit {
        for w in watching.withLock({ $0.watches }) { w.stop() }
        portal?.close()
    }

    /// Opens a device for capture. Errors: noDevice, access, busy, io.
    package func open(deviceID: String) throws(CamError) -> Capturer {
        let (source, d) = try lookup(deviceID)
        return Capturer(device: d, backend: try source.open(d))
    }
}
