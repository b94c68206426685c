// SPDX-License-Identifier: MIT
import Synchronization

/// The V4L2 capture nodes, found through libudev (SPEC S1–S3, S24).
final class V4L2Source: CameraSource, @unchecked Sendable {
    let name = "v4l2"

    /// Where each id was last seen (udev sysfs path), what it was, and
    /// which device instance the node was then: lets `device(id:)` look at
    /// that one node instead of scanning them all.
    private struct Sighting {
        let syspath: String
        let info: DeviceInfo
        let identity: NodeIdentity?
    }
    private let seen = Mutex<[String: Sighting]>([:])

    private static func sighting(_ d: DeviceInfo, _ syspath: String) -> Sighting {
        Sighting(syspath: syspath, info: d, identity: Sys.nodeIdentity(syspath: syspath, devnode: d.node))
    }

    /// The last listing met a media-pipeline node (S40): there is a camera
    /// only libcamera reaches (the `auto` choice then asks libcamera too).
    private let metMediaPipeline = Atomic<Bool>(false)
    var sawMediaPipeline: Bool { metMediaPipeline.load(ordering: .acquiring) }

    func devices() -> [DeviceInfo] {
        let everything = DeviceEnumerator.captureDevicesWithSyspaths(includeHidden: true)
        metMediaPipeline.store(everything.contains { $0.0.hiddenReason != nil }, ordering: .releasing)
        let found = everything.filter { $0.0.hiddenReason == nil }
        var known: [String: Sighting] = [:]
        for (d, p) in found { known[d.id] = V4L2Source.sighting(d, p) }
        seen.withLock { $0 = known }
        return found.map { $0.0 }
    }

    func hiddenDevices() -> [DeviceInfo] {
        DeviceEnumerator.captureDevicesWithSyspaths(includeHidden: true).map { $0.0 }.filter { $0.hiddenReason != nil }
    }

    func device(id: String) -> DeviceInfo? {
        let last = seen.withLock { $0[id] }
        // Listed just before (the usual list-then-open): the same device
        // instance (its sysfs directory and device number unchanged since)
        // with an id made from udev data alone still has that id; opening
        // it checks it is still a capture node (QUERYCAP), so neither udev
        // nor the node is asked again here.
        if let last, let was = last.identity, DeviceEnumerator.isUdevID(id),
           Sys.nodeIdentity(syspath: last.syspath, devnode: last.info.node) == was {
            return last.info
        }
        if let (d, path) = DeviceEnumerator.captureDevice(id: id, syspath: last?.syspath) {
            seen.withLock { $0[id] = V4L2Source.sighting(d, path) }
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
