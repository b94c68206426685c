// SPDX-License-Identifier: MIT
internal import CV4L2
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The controls of one open camera (SPEC S27), reached through its
/// capturer (`Capturer.controls`) on the capturer's own fd (S28), or,
/// for a PipeWire camera, through the node's PropInfo/Props params
/// (PipeWireControls: values cannot be read there, and there are no
/// change events).
///
/// Every method is safe from any thread. Control-change events are
/// delivered on a control-event thread of this capturer (started by
/// `setChangeHandler`), one at a time. After `setChangeHandler(nil)` or
/// the capturer's `close()` returns, no handler runs again; calling them
/// from inside the handler throws `wouldDeadlock`. The synthetic camera
/// has no controls: `list()` is empty and `value`/`set` throw notSupported.
package final class CameraControls: @unchecked Sendable {
    package typealias ChangeHandler = (ControlChange) -> Void

    private let device: ControlSurface?
    private let deviceName: String
    private struct State {
        var closed = false
    }
    /// Held during each ioctl, so close() cannot close the fd under one.
    private let state = Mutex(State())
    /// Serialises setChangeHandler and close (they join the event thread).
    private let operations = Mutex(())
    /// The running event thread, if any (read without `operations` for the deadlock check).
    private let events = Mutex<ControlEventThread?>(nil)

    init(device: DeviceInfo, fileDescriptor: Int32?, surface: ControlSurface? = nil) {
        deviceName = device.isSynthetic ? "the synthetic camera" : device.node
        if let surface {
            self.device = surface
        } else if let fd = fileDescriptor, fd >= 0, !device.isSynthetic {
            self.device = ControlDevice(fd: fd, path: device.node)
        } else {
            self.device = nil
        }
    }

    /// Runs `body` with the device while the capturer is open.
    private func withDevice<T>(_ body: (ControlSurface) throws(CamError) -> T) throws(CamError) -> T {
        try state.withLock { s throws(CamError) -> T in
            if s.closed { throw CamError.state("the capturer of \(deviceName) is closed") }
            guard let device else { throw CamError.notSupported("\(deviceName) has no controls") }
            return try body(device)
        }
    }

    /// Every control of the device with its current value, in the
    /// driver's order (VIDIOC_QUERY_EXT_CTRL). Empty for the synthetic
    /// camera. Errors: state (closed).
    package func list() throws(CamError) -> [ControlInfo] {
        if device == nil {
            try state.withLock { s throws(CamError) in
                if s.closed { throw CamError.state("the capturer of \(deviceName) is closed") }
            }
            return []
        }
        return try withDevice { d in d.list() }
    }

    /// The description of one control, with its current value.
    /// Errors: notSupported (no such control), state (closed), io.
    package func info(_ id: UInt32) throws(CamError) -> ControlInfo {
        try withDevice { d throws(CamError) in
            var info = try d.query(id)
            if info.isReadable { info.value = try d.value(of: info) }
            return info
        }
    }

    /// The current value of a control (VIDIOC_G_EXT_CTRLS). Bitmasks are
    /// unsigned 32-bit; menus give the item index.
    /// Errors: notSupported (no such control, write-only, a button, a
    /// string), state (closed), io, noDevice.
    package func value(_ id: UInt32) throws(CamError) -> Int64 {
        try withDevice { d throws(CamError) in try d.value(of: try d.query(id)) }
    }

    /// The automatic control that makes a manual one inactive while it is on
    /// (V4L2's pairs: white balance, exposure, gain, focus, hue), by CID.
    static func autoControl(of id: UInt32) -> UInt32? {
        switch id {
        case CC_V4L2_CID_WHITE_BALANCE_TEMPERATURE, CC_V4L2_CID_RED_BALANCE, CC_V4L2_CID_BLUE_BALANCE:
            return CC_V4L2_CID_AUTO_WHITE_BALANCE
        case CC_V4L2_CID_EXPOSURE_ABSOLUTE, CC_V4L2_CID_EXPOSURE: return CC_V4L2_CID_EXPOSURE_AUTO
        case CC_V4L2_CID_GAIN: return CC_V4L2_CID_AUTOGAIN
        case CC_V4L2_CID_FOCUS_ABSOLUTE, CC_V4L2_CID_FOCUS_RELATIVE: return CC_V4L2_CID_FOCUS_AUTO
        case CC_V4L2_CID_HUE: return CC_V4L2_CID_HUE_AUTO
        default: return nil
        }
    }


    /// How to switch the automatic control `a` off: 0 for a boolean, the
    /// manual item of a menu (EXPOSURE_AUTO: "Manual Mode", 1).
    static func turnOff(_ a: ControlInfo) -> String {
        if a.type == .menu, let m = a.menu.first(where: { $0.name.lowercased().contains("manual") }) {
            return "to '\(m.name)' (\(m.index))"
        }
        return "to 0"
    }

    /// Sets a control and returns the value the driver applied. Refuses
    /// read-only, disabled, inactive and grabbed controls and out-of-range
    /// values with a message giving the valid range; an in-range value off
    /// the step is rounded by the driver (ControlInfo.rounded(_:) predicts
    /// it). A button is pressed whatever the value (applied: 0).
    /// Errors: notSupported, state, invalidArgument, busy, io, noDevice.
    @discardableResult
    package func set(_ id: UInt32, to value: Int64) throws(CamError) -> Int64 {
        try withDevice { d throws(CamError) in
            let info = try d.query(id)
            let expected: Int64
            do throws(CamError) { expected = try info.check(value) } catch {
                // An inactive manual control: name the automatic mode in charge of it.
                if case .state = error, info.flags.contains(.inactive), let auto = CameraControls.autoControl(of: id),
                   let a = try? d.query(auto) {
                    throw CamError.state("control \(info.label) is inactive while \(a.label) is on: "
                        + "turn that off first (set it \(CameraControls.turnOff(a)))")
                }
                throw error
            }
            let applied = try d.set(info, info.type == .button ? 0 : value)
            return info.type == .button ? expected : applied
        }
    }

    /// The text of a string control (V4L2_CTRL_TYPE_STRING), decoded as
    /// UTF-8 (invalid sequences become U+FFFD; `stringBytes` gives them
    /// as they are). Errors: notSupported (no such control, not a string,
    /// write-only), state (closed), io, noDevice.
    package func string(_ id: UInt32) throws(CamError) -> String {
        String(decoding: try stringBytes(id), as: UTF8.self)
    }

    /// The bytes of a string control as the driver holds them (no NUL;
    /// at most the control's maximum). Errors: as `string`.
    package func stringBytes(_ id: UInt32) throws(CamError) -> [UInt8] {
        try withDevice { d throws(CamError) in try d.stringBytes(of: try d.query(id)) }
    }

    /// Sets a string control and returns the text the driver then holds.
    /// The length in bytes must be within the control's minimum...maximum
    /// (and on its step), and no NUL: anything else is refused with the
    /// valid lengths, never cut short. Errors: notSupported, state,
    /// invalidArgument, busy, io, noDevice.
    @discardableResult
    package func setString(_ id: UInt32, to text: String) throws(CamError) -> String {
        String(decoding: try setString(id, bytes: Array(text.utf8)), as: UTF8.self)
    }

    /// `setString` with the exact bytes to send (the C ABI passes C
    /// strings through unchanged); returns the bytes the driver then holds.
    @discardableResult
    package func setString(_ id: UInt32, bytes: [UInt8]) throws(CamError) -> [UInt8] {
        try withDevice { d throws(CamError) in
            let info = try d.query(id)
            try info.checkString(bytes: bytes)
            try d.setString(info, bytes: bytes)
            return info.flags.contains(.writeOnly) ? bytes : try d.stringBytes(of: info)
        }
    }

    /// Sets (or with nil, removes) the handler of control-change events
    /// (V4L2_EVENT_CTRL for every listed control, including changes made
    /// through `set`). The handler runs on this capturer's control-event
    /// thread. When this returns, a replaced or removed handler no longer
    /// runs. Errors: wouldDeadlock (called from the handler), state
    /// (closed), notSupported (the driver reports no control events).
    package func setChangeHandler(_ handler: ChangeHandler?) throws(CamError) {
        if events.withLock({ $0?.isCurrent ?? false }) {
            throw .wouldDeadlock("the control-change handler cannot be changed from inside itself")
        }
        try operations.withLock { _ throws(CamError) in
            stopEvents()
            try state.withLock { s throws(CamError) in
                if s.closed { throw CamError.state("the capturer of \(deviceName) is closed") }
            }
            guard let surface = device else { return }  // no controls: nothing will ever change
            guard let device = surface as? ControlDevice else {
                if handler == nil { return }
                throw CamError.notSupported(surface.noChangeEvents)
            }
            guard let handler else {
                _ = try? withDevice { _ in device.unsubscribeAll() }
                return
            }
            // Subscribe to every control now listed (subscribing twice is harmless).
            try withDevice { _ throws(CamError) in
                let d = device
                let all = d.list()
                var subscribed = 0
                var firstError: CamError?
                for c in all {
                    do throws(CamError) {
                        try d.subscribe(c.id)
                        subscribed += 1
                    } catch {
                        if firstError == nil { firstError = error }
                    }
                }
                if subscribed == 0, !all.isEmpty, let firstError {
                    throw CamError.notSupported("\(deviceName) does not report control changes (\(firstError.message))")
                }
            }
            let thread = try ControlEventThread(device: device, handler: handler)
            events.withLock { $0 = thread }
        }
    }

    /// Stops the event thread, if any (with `operations` held). The thread
    /// stays in `events` until joined, so its handler calling back in
    /// meanwhile is recognised (wouldDeadlock) rather than blocking.
    private func stopEvents() {
        guard let t = events.withLock({ $0 }) else { return }
        t.stop()
        events.withLock { $0 = nil }
    }

    /// True on the control-event thread (inside the change handler).
    var isInsideHandler: Bool { events.withLock { $0?.isCurrent ?? false } }

    /// No handler call starts from now on (a running one finishes): the
    /// first step of a close asked for from inside a callback.
    func mute() { events.withLock { $0 }?.mute() }

    /// Called by Capturer.close() before the fd closes (never from the
    /// change handler: the capturer defers its close then): stops the event
    /// thread and refuses every later call. Idempotent.
    func close() {
        operations.withLock { _ in
            stopEvents()
            state.withLock { s in
                if !s.closed, let device = device as? ControlDevice { device.unsubscribeAll() }
                s.closed = true
            }
        }
    }
}

/// The thread that waits for control events (POLLPRI on the device fd,
/// POLLIN on its own eventfd to stop) and hands each to the handler.
final class ControlEventThread: @unchecked Sendable {
    private let device: ControlDevice
    private let handler: CameraControls.ChangeHandler
    private let waker: Waker
    private let stopping = Atomic<Bool>(false)
    private var thread: LibraryThread?

    init(device: ControlDevice, handler: @escaping CameraControls.ChangeHandler) throws(CamError) {
        self.device = device
        self.handler = handler
        waker = try Waker()
        thread = try LibraryThread(name: "camcore-control") { [self] in CallbackMark.inside(self) { run() } }
    }

    /// True when called on the event thread (from the handler).
    var isCurrent: Bool { CallbackMark.isInside(self) }

    private func run() {
        let wait = FdWait(fd: device.fd, events: Int16(POLLPRI), waker: waker)
        while !stopping.load(ordering: .acquiring) {
            let revents: UInt32
            switch wait.wait(timeoutMs: 1000) {
            case .failed, .woken: return
            case .timeout: continue
            case .ready(let r): revents = r
            }
            if stopping.load(ordering: .acquiring) { return }
            var delivered = 0
            while !stopping.load(ordering: .acquiring), let change = device.dequeueEvent() {
                handler(change)
                delivered += 1
            }
            if delivered == 0 && revents & UInt32(POLLERR | POLLHUP | POLLNVAL) != 0 {
                // The device is gone (HUP/NVAL), or reports an error with no
                // event to take: stop, or at least do not spin.
                if revents & UInt32(POLLHUP | POLLNVAL) != 0 { return }
                usleep(100_000)
            }
        }
    }

    /// No handler call starts after this (one running finishes); the
    /// thread ends at its next turn. Does not wait.
    func mute() {
        stopping.store(true, ordering: .releasing)
        waker.wake()
    }

    /// Stops and joins the thread; no handler runs after this returns.
    func stop() {
        stopping.store(true, ordering: .releasing)
        waker.wake()
        thread?.join()
        thread = nil
    }
}
