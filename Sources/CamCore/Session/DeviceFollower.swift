// SPDX-License-Identifier: MIT
import Synchronization

/// Which camera the session uses, and following it through hot-plug
/// (SPEC S18, S19, S24, S25): the selected device, the flip target, the
/// device lost last (to return to when it comes back), and which removals
/// were already announced. It decides; the session turns the camera off and
/// on and emits the events it is handed. Touched only on the camera queue,
/// except `returnsToReconnectedDevice` (any thread).
final class DeviceFollower: @unchecked Sendable {
    /// The device in use; nil when none is present.
    private(set) var device: DeviceInfo?
    /// The device lost last, to return to when it comes back (S25).
    private var lostDeviceID: String?
    /// Devices already reported gone by a failed capture (no second event
    /// when udev's remove follows).
    private var announcedGone: Set<String> = []
    private let switchBack = Atomic<Bool>(true)

    init(device: DeviceInfo? = nil) { self.device = device }

    /// Switch back to a lost device when it returns (S25). Default true.
    var returnsToReconnectedDevice: Bool {
        get { switchBack.load(ordering: .relaxed) }
        set { switchBack.store(newValue, ordering: .relaxed) }
    }

    /// The session now uses `device` (select, flip, hot-plug).
    func use(_ device: DeviceInfo) { self.device = device }

    /// S18: the app chose a device; that replaces the automatic return.
    func appSelected() { lostDeviceID = nil }

    /// S19: the camera facing the other way (front <-> back), else the
    /// next camera in `all` (list order); nil when there is no other camera.
    /// Never an infrared camera (S44).
    func flipTarget(among listed: [DeviceInfo]) -> DeviceInfo? {
        let current = device
        let all = listed.filter { $0.type != .infrared }
        let others = all.filter { $0.id != current?.id }
        guard !others.isEmpty else { return nil }
        var target: DeviceInfo?
        if let pos = current?.position, pos == .front || pos == .back {
            let want: CameraPosition = pos == .front ? .back : .front
            target = others.first { $0.position == want }
        }
        if target == nil {
            // No opposite position known: the next camera in list order.
            let i = all.firstIndex { $0.id == current?.id } ?? -1
            target = all[(i + 1) % all.count].id == current?.id ? others.first : all[(i + 1) % all.count]
        }
        return target
    }

    /// The preference to negotiate on a device being switched to (S18,
    /// S19): `base` with the size and rate of `current` (flip), else of the
    /// app's explicit `request` (select), else `base` as it is.
    static func preference(_ base: CapturePreference, keeping current: CaptureFormat?,
                           request: CaptureRequest?) -> CapturePreference {
        var pref = base
        if let c = current {
            pref.width = c.width
            pref.height = c.height
            if let r = c.frameRate { pref.minRate = r; pref.maxRate = r }
        } else if let r = request {
            pref.width = r.width
            pref.height = r.height
            if let rate = r.frameRate { pref.minRate = rate; pref.maxRate = rate }
        }
        return pref
    }

    // MARK: Hot-plug (S24, S25)

    /// The capture of `device` found it gone (S25): udev's removal that
    /// follows is not announced a second time.
    func captureFoundGone(_ device: DeviceInfo) { announcedGone.insert(device.id) }

    /// udev: `d` was removed. Announces it (unless a failed capture did);
    /// returns true when it was the device in use (the session has lost it).
    func removed(_ d: DeviceInfo, announce: (SessionEvent) -> Void) -> Bool {
        if announcedGone.remove(d.id) != nil { return false }
        announce(.disconnected(d))
        return device?.id == d.id
    }

    /// udev: `d` was added. Announces it; returns true when the session
    /// should switch to it: it has no device (and `d` is no infrared
    /// camera, S44), or `d` is the one lost last and returning to it is on
    /// (checked after the announcement).
    func added(_ d: DeviceInfo, announce: (SessionEvent) -> Void) -> Bool {
        announcedGone.remove(d.id)
        announce(.connected(d))
        let back = returnsToReconnectedDevice && d.id == lostDeviceID
        guard (device == nil && d.type != .infrared) || back else { return false }
        // A stand-in that arrives while the session has none is taken, and
        // the lost device is still returned to when it comes back (S25).
        if back { lostDeviceID = nil }
        return true
    }

    /// The device in use is gone (S25): remembers it to return to (the one
    /// the app was using, not a stand-in selected after it vanished: several
    /// cameras may go at once, e.g. a hub) and gives the stand-in from
    /// `available` (never an infrared camera, S44); with none, the session
    /// has no device.
    func lost(_ gone: DeviceInfo, available: [DeviceInfo]) -> DeviceInfo? {
        if lostDeviceID == nil { lostDeviceID = gone.id }
        let next = available.first { $0.id != gone.id && $0.type != .infrared }
        if next == nil { device = nil }
        return next
    }
}
