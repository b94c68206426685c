// SPDX-License-Identifier: MIT
internal import CUdev
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Watches udev's "video4linux" events on its own thread and tells its
/// observer about capture devices that come and go (S24): V4L2Source's
/// hot-plug watch. Only capture devices (S1) are reported; a removed node
/// is reported with what was known of it when it was added or last
/// listed. The app pumps nothing; the Manager fans events out.
final class DeviceMonitor: SourceWatch, @unchecked Sendable {
    private let observer: @Sendable (DeviceChange) -> Void
    /// Capture devices known by node path (for removals).
    private let known = Mutex<[String: DeviceInfo]>([:])
    private var thread: LibraryThread?
    private let waker: Waker
    private let stopping = Atomic<Bool>(false)

    init(observer: @escaping @Sendable (DeviceChange) -> Void) throws(CamError) {
        self.observer = observer
        waker = try Waker()
        // Listen first, then list: a device that appears in between is
        // heard as an event instead of falling into a gap (its removal
        // could not be reported otherwise).
        guard let udev = udev_new() else { throw .io("udev_new failed") }
        guard let mon = udev_monitor_new_from_netlink(udev, "udev") else {
            udev_unref(udev)
            throw .io("no udev monitor (is udevd running?)")
        }
        udev_monitor_filter_add_match_subsystem_devtype(mon, "video4linux", nil)
        guard udev_monitor_enable_receiving(mon) >= 0 else {
            udev_monitor_unref(mon)
            udev_unref(udev)
            throw .io("cannot receive udev events")
        }
        for d in DeviceEnumerator.captureDevices() { remember(d) }
        let u = UdevRef(udev: udev, mon: mon)
        thread = try LibraryThread(name: "camcore-hotplug") { [self] in run(u) }
    }

    deinit { stop() }

    func stop() {
        guard let t = thread else { return }
        stopping.store(true, ordering: .releasing)
        waker.wake()
        t.join()
        thread = nil
    }

    func remember(_ d: DeviceInfo) { known.withLock { $0[d.node] = d } }

    private func emit(_ c: DeviceChange) { observer(c) }

    /// The udev context and monitor, handed to the monitor thread.
    private struct UdevRef: @unchecked Sendable { let udev: OpaquePointer; let mon: OpaquePointer }

    private func run(_ u: UdevRef) {
        let mon = u.mon
        defer {
            udev_monitor_unref(u.mon)
            udev_unref(u.udev)
        }
        let wait = FdWait(fd: udev_monitor_get_fd(mon), events: Int16(POLLIN), waker: waker)
        while !stopping.load(ordering: .acquiring) {
            guard case .ready = wait.wait(timeoutMs: 1000) else { continue }
            guard let dev = udev_monitor_receive_device(mon) else { continue }
            handle(dev)
            udev_device_unref(dev)
        }
    }

    /// What one udev event of a capture node means to the app (S24): a
    /// camera's arrival is reported once. `known`: what was known of the
    /// node before the event; `found`: the node as probed now (add and
    /// change only). "change" of a known node, and an "add" for a node
    /// already known with the same id (`udevadm trigger`, a replayed
    /// coldplug), announce nothing; the node's description is refreshed.
    enum Verdict: Equatable {
        case none
        /// Remember `found`, announce nothing.
        case refresh
        case arrived
        case left
        /// The node now holds another device: the old one left, this one came.
        case replaced
    }

    static func verdict(action: String, known: DeviceInfo?, found: DeviceInfo?) -> Verdict {
        switch action {
        case "add", "change":
            guard let found else { return .none }
            guard let known else { return .arrived }
            return known.id == found.id ? .refresh : .replaced
        case "remove":
            return known == nil ? .none : .left
        default:
            return .none
        }
    }

    private func handle(_ dev: OpaquePointer) {
        guard let a = udev_device_get_action(dev), let node = UdevDevices.describe(dev) else { return }
        let action = String(cString: a)
        switch action {
        case "add", "change":
            let before = known.withLock { $0[node.devnode] }
            // A change of a known node: nothing to probe (it did not arrive).
            if action == "change" && before != nil { return }
            // udev may still be creating links and permissions: the probe
            // opens the node, so retry briefly if it is not ready.
            var info: DeviceInfo?
            probing: for _ in 0..<20 {
                switch DeviceEnumerator.examine(node) {
                case .device(let d): info = d; break probing
                case .notCapture, .hidden: return
                case .unavailable: usleep(25_000)
                }
            }
            guard let d = info else { return }
            switch Self.verdict(action: action, known: before, found: d) {
            case .arrived:
                remember(d)
                emit(.added(d))
            case .replaced:
                remember(d)
                if let old = before { emit(.removed(old)) }
                emit(.added(d))
            case .refresh:
                remember(d)
            case .none, .left:
                break
            }
        case "remove":
            guard let d = known.withLock({ $0.removeValue(forKey: node.devnode) }) else { return }
            emit(.removed(d))
        default:
            break
        }
    }
}
