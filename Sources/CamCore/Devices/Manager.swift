import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Manager settings.
public struct ManagerConfig: Sendable {
    /// How many synthetic cameras to list after the real ones (S4): 0, 1,
    /// or 2 (a front and a back one). The environment variable
    /// CAMCORE_SYNTHETIC_CAMERA=1 (or =2) also turns them on.
    public var syntheticCount: Int
    public init(includeSynthetic: Bool = false) { syntheticCount = includeSynthetic ? 1 : 0 }
    public init(syntheticCount: Int) { self.syntheticCount = max(0, min(syntheticCount, 2)) }
    public var includeSynthetic: Bool { syntheticCount > 0 }
}

/// Finds cameras and opens them (SPEC S1–S5). Holds no device open
/// between calls. Safe from any thread.
public final class Manager: @unchecked Sendable {
    public let config: ManagerConfig
    /// The synthetic cameras listed (config or environment).
    public let synthetic: [DeviceInfo]
    public var listsSynthetic: Bool { !synthetic.isEmpty }

    public init(config: ManagerConfig = ManagerConfig()) {
        self.config = config
        var env = 0
        if let v = getenv("CAMCORE_SYNTHETIC_CAMERA") {
            let s = String(cString: v)
            env = s == "2" ? 2 : (s.isEmpty || s == "0" || s == "false" || s == "no") ? 0 : 1
        }
        let count = max(config.syntheticCount, env)
        synthetic = count == 0 ? [] : SyntheticCamera.devices(count: count)
    }

    /// The capture devices present now: real cameras in node order, then
    /// the synthetic camera when enabled. No streaming; each node is open
    /// only for its queries (S3).
    public func devices() -> [DeviceInfo] {
        let found = DeviceEnumerator.captureDevicesWithSyspaths()
        var paths: [String: String] = [:]
        for (d, p) in found { paths[d.id] = p }
        syspaths.withLock { $0 = paths }
        return found.map { $0.0 } + synthetic
    }

    /// Where each id was last seen (udev sysfs path): lets `device(id:)`
    /// look at that one node instead of scanning them all.
    private let syspaths = Mutex<[String: String]>([:])

    /// The device with this id, present now. Errors: noDevice.
    public func device(id: String) throws(CamError) -> DeviceInfo {
        if let d = synthetic.first(where: { $0.id == id }) { return d }
        if let (d, path) = DeviceEnumerator.captureDevice(id: id, syspath: syspaths.withLock { $0[id] }) {
            syspaths.withLock { $0[id] = path }
            return d
        }
        guard let d = DeviceEnumerator.captureDevices().first(where: { $0.id == id }) else {
            throw .noDevice("no camera with id \"\(id)\" is present")
        }
        return d
    }

    /// Formats of one device (S5): the driver's own, in its order.
    /// Errors: noDevice, access, busy, io.
    public func formats(deviceID: String) throws(CamError) -> [FormatDescription] {
        let d = try device(id: deviceID)
        if d.isSynthetic { return SyntheticCamera.formatDescriptions }
        let node = try V4L2Node(path: d.node)
        defer { node.close() }
        return V4L2Query.formats(node, type: V4L2Query.bufferType(d.deviceCaps))
    }

    /// S6: the setting nearest to `preference` on this device.
    /// Errors: noDevice, access, busy, io, notSupported (no formats).
    public func negotiate(deviceID: String, preference: CapturePreference) throws(CamError) -> NegotiatedFormat {
        guard let n = Negotiation.choose(try formats(deviceID: deviceID), for: preference) else {
            throw .notSupported("\(deviceID) lists no formats")
        }
        return n
    }

    /// S7 `format_for`: the nearest format supporting `rate`.
    /// Errors: noDevice, notSupported (no format reaches the rate), io.
    public func format(deviceID: String, width: Int, height: Int, rate: FrameRate) throws(CamError) -> NegotiatedFormat {
        guard let n = Negotiation.format(for: try formats(deviceID: deviceID), width: width, height: height, rate: rate) else {
            throw .notSupported("no format of \(deviceID) supports \(rate) fps")
        }
        return n
    }

    /// S7 `max_frame_rate`: `rate` if the format at this size supports it,
    /// else the supported rate closest to it.
    /// Errors: noDevice, notSupported (no such format and size, or no rates known).
    public func maxFrameRate(deviceID: String, fourcc: FourCC, width: Int, height: Int,
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
    public func rates(deviceID: String, fourcc: FourCC, width: Int, height: Int) throws(CamError) -> RateRange {
        let d = try device(id: deviceID)
        if d.isSynthetic {
            guard SyntheticCamera.formats.contains(fourcc) else { throw .notSupported("synthetic camera has no \(fourcc)") }
            return .continuous(min: SyntheticCamera.minRate, max: SyntheticCamera.maxRate)
        }
        let node = try V4L2Node(path: d.node)
        defer { node.close() }
        let type = V4L2Query.bufferType(d.deviceCaps)
        guard V4L2Query.pixelFormats(node, type: type).contains(where: { $0.fourcc == fourcc }) else {
            throw .notSupported("\(d.node) has no pixel format \(fourcc)")
        }
        return V4L2Query.frameRates(node, fourcc: fourcc, width: width, height: height)
    }

    // MARK: Hot-plug (S24)

    private let monitor = Mutex<DeviceMonitor?>(nil)

    /// Calls `observer` on camcore's hot-plug thread for every capture
    /// device that is added or removed from now on (libudev monitor).
    /// Returns a token for `stopObserving`. Errors: io (no udev monitor).
    public func observeDevices(_ observer: @escaping @Sendable (DeviceChange) -> Void) throws(CamError) -> Int {
        try monitor.withLock { m throws(CamError) -> Int in
            if m == nil { m = try DeviceMonitor() }
            return m!.addObserver(observer)
        }
    }

    /// Stops calling an observer; after it returns the observer is not called.
    public func stopObserving(_ token: Int) {
        monitor.withLock { $0?.removeObserver(token) }
    }

    deinit {
        monitor.withLock { $0?.stop() }
    }

    /// Opens a device for capture. Errors: noDevice, access, busy, io.
    public func open(deviceID: String) throws(CamError) -> Capturer {
        let d = try device(id: deviceID)
        let backend: CaptureBackend = d.isSynthetic ? SyntheticCapture() : try V4L2Capture(device: d)
        return Capturer(device: d, backend: backend)
    }
}
