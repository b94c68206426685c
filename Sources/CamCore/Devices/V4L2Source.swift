import Synchronization

/// The V4L2 capture nodes, found through libudev (SPEC S1–S3, S24).
final class V4L2Source: CameraSource, @unchecked Sendable {
    let idPrefix = "v4l2:"

    /// Where each id was last seen (udev sysfs path): lets `device(id:)`
    /// look at that one node instead of scanning them all.
    private let syspaths = Mutex<[String: String]>([:])

    func devices() -> [DeviceInfo] {
        let found = DeviceEnumerator.captureDevicesWithSyspaths()
        var paths: [String: String] = [:]
        for (d, p) in found { paths[d.id] = p }
        syspaths.withLock { $0 = paths }
        return found.map { $0.0 }
    }

    func device(id: String) -> DeviceInfo? {
        if let (d, path) = DeviceEnumerator.captureDevice(id: id, syspath: syspaths.withLock({ $0[id] })) {
            syspaths.withLock { $0[id] = path }
            return d
        }
        return DeviceEnumerator.captureDevices().first(where: { $0.id == id })
    }

    func formats(of d: DeviceInfo) throws(CamError) -> [FormatDescription] {
        let node = try V4L2Node(path: d.node, wrap: false)
        defer { node.close() }
        return V4L2Query.formats(node, type: V4L2Query.bufferType(d.deviceCaps))
    }

    func rates(of d: DeviceInfo, fourcc: FourCC, width: Int, height: Int) throws(CamError) -> RateRange {
        let node = try V4L2Node(path: d.node, wrap: false)
        defer { node.close() }
        let type = V4L2Query.bufferType(d.deviceCaps)
        guard V4L2Query.pixelFormats(node, type: type).contains(where: { $0.fourcc == fourcc }) else {
            throw .notSupported("\(d.node) has no pixel format \(fourcc)")
        }
        return V4L2Query.frameRates(node, fourcc: fourcc, width: width, height: height)
    }

    func open(_ d: DeviceInfo) throws(CamError) -> CaptureBackend { try V4L2Capture(device: d) }

    func watch(_ observer: @escaping @Sendable (DeviceChange) -> Void) throws(CamError) -> SourceWatch? {
        try DeviceMonitor(observer: observer)
    }
}
