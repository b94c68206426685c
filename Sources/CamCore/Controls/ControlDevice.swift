// SPDX-License-Identifier: MIT
internal import CV4L2
#if canImport(Glibc)
import Glibc
#endif

/// The control ioctls (SPEC S27) on the borrowed fd of an open device:
/// VIDIOC_QUERY_EXT_CTRL, VIDIOC_QUERYMENU, VIDIOC_G/S_EXT_CTRLS and the
/// control-event calls. The only place controls make syscalls. The fd
/// belongs to the capturer; its owner (CameraControls) guarantees it stays
/// open while these run.
struct ControlDevice {
    let fd: Int32
    /// The node path, for messages.
    let path: String

    private static let nextCtrl: UInt32 = 0x8000_0000      // V4L2_CTRL_FLAG_NEXT_CTRL
    private static let nextCompound: UInt32 = 0x4000_0000  // V4L2_CTRL_FLAG_NEXT_COMPOUND

    /// One ioctl, retrying on EINTR; the errno on failure, 0 on success.
    private func call<T>(_ request: UInt, _ arg: inout T) -> Int32 { Sys.ioctl(fd, request, &arg) }

    /// Every control the driver lists, in its order (NEXT_CTRL |
    /// NEXT_COMPOUND), with menus and current values. Controls camcore
    /// cannot represent (class headings, arrays and other compound
    /// payloads except strings) and disabled ones are left out.
    func list() -> [ControlInfo] {
        var out: [ControlInfo] = []
        var id: UInt32 = 0
        var guardCount = 0
        while guardCount < 4096 {
            guardCount += 1
            var q = v4l2_query_ext_ctrl()
            q.id = id | Self.nextCtrl | Self.nextCompound
            if call(CC_VIDIOC_QUERY_EXT_CTRL, &q) != 0 { break }
            if q.id <= id && id != 0 { break }  // a driver that does not advance
            id = q.id
            guard var info = describe(q) else { continue }
            if info.isReadable, let v = try? value(of: info) { info.value = v }
            out.append(info)
        }
        return out
    }

    /// The description of one control by id (no NEXT flags).
    /// Errors: notSupported (the device has no such control), or the errno's.
    func query(_ id: UInt32) throws(CamError) -> ControlInfo {
        var q = v4l2_query_ext_ctrl()
        q.id = id
        let e = call(CC_VIDIOC_QUERY_EXT_CTRL, &q)
        if e == EINVAL || e == ENOTTY {
            throw .notSupported("\(path) has no control \(ControlInfo.hex(id))")
        }
        if e != 0 { throw CamError.fromErrno(e, "VIDIOC_QUERY_EXT_CTRL \(ControlInfo.hex(id)) on \(path)") }
        guard let info = describe(q) else {
            if q.flags & ControlFlags.disabled.rawValue != 0 {
                throw .notSupported("control \(ControlInfo.hex(id)) of \(path) is disabled by the driver")
            }
            throw .notSupported("control \(ControlInfo.hex(id)) of \(path) has a type camcore does not handle (V4L2 type \(q.type)); use the device fd")
        }
        return info
    }

    /// A ControlInfo from a query, with its menu; nil for what is not listed.
    private func describe(_ q: v4l2_query_ext_ctrl) -> ControlInfo? {
        guard let type = ControlType(rawValue: q.type), type != .controlClass else { return nil }
        let flags = ControlFlags(rawValue: q.flags)
        if flags.contains(.disabled) { return nil }
        // Arrays of scalars carry a payload; only plain values are listed.
        if type != .string && (q.nr_of_dims > 0 || flags.contains(.hasPayload)) { return nil }
        var qq = q
        let name = cString(&qq.name)
        var info = ControlInfo(id: q.id, name: name, type: type, minimum: q.minimum, maximum: q.maximum,
                               step: Int64(bitPattern: q.step), defaultValue: q.default_value, flags: flags)
        if type == .bitmask {
            info.maximum = Int64(UInt32(truncatingIfNeeded: q.maximum))
            info.defaultValue = Int64(UInt32(truncatingIfNeeded: q.default_value))
        }
        if type == .menu || type == .integerMenu {
            info.menu = menu(q.id, type: type, minimum: q.minimum, maximum: q.maximum)
        }
        return info
    }

    /// VIDIOC_QUERYMENU for each index from minimum to maximum; indices
    /// the driver refuses (EINVAL: skipped) are left out.
    private func menu(_ id: UInt32, type: ControlType, minimum: Int64, maximum: Int64) -> [MenuItem] {
        var items: [MenuItem] = []
        guard minimum >= 0, maximum >= minimum, maximum - minimum < 1024 else { return items }
        for index in minimum...maximum {
            var m = v4l2_querymenu()
            m.id = id
            m.index = UInt32(index)
            if call(CC_VIDIOC_QUERYMENU, &m) != 0 { continue }
            if type == .integerMenu {
                let v = m.value
                items.append(MenuItem(index: UInt32(index), name: String(v), value: v))
            } else {
                let label = withUnsafeBytes(of: &m.name) { raw -> String in
                    let b = raw.bindMemory(to: UInt8.self)
                    let end = b.firstIndex(of: 0) ?? b.count
                    return String(decoding: b[0..<end], as: UTF8.self)
                }
                items.append(MenuItem(index: UInt32(index), name: label, value: index))
            }
        }
        return items
    }

    /// The current value (VIDIOC_G_EXT_CTRLS). Bitmasks come back as
    /// unsigned 32-bit numbers.
    /// Errors: notSupported (write-only, a button, not a number), or the errno's.
    func value(of info: ControlInfo) throws(CamError) -> Int64 {
        if info.type == .button || info.flags.contains(.writeOnly) {
            throw .notSupported("control \(info.label) is write-only; it has no value to read")
        }
        if !info.type.isScalar {
            throw .notSupported("control \(info.label) is a \(info.type.name) control; camcore reads numeric controls only (use the device fd)")
        }
        var c = v4l2_ext_control()
        c.id = info.id
        try transfer(&c, CC_VIDIOC_G_EXT_CTRLS, "VIDIOC_G_EXT_CTRLS", info)
        return Self.unpack(c, info.type)
    }

    /// The bytes of a string control, without the NUL (VIDIOC_G_EXT_CTRLS
    /// with a buffer of maximum + 1 bytes, so never more than maximum).
    /// Errors: notSupported (not a string, write-only), or the errno's.
    func stringBytes(of info: ControlInfo) throws(CamError) -> [UInt8] {
        guard info.type == .string else {
            throw .notSupported("control \(info.label) is a \(info.type.name) control, not a string")
        }
        if info.flags.contains(.writeOnly) {
            throw .notSupported("control \(info.label) is write-only; it has no value to read")
        }
        let size = Int(max(0, min(info.maximum, 1 << 20))) + 1
        var buffer = [UInt8](repeating: 0, count: size)
        try buffer.withUnsafeMutableBufferPointer { b throws(CamError) in
            var c = v4l2_ext_control()
            c.id = info.id
            c.size = UInt32(size)
            c.string = UnsafeMutableRawPointer(b.baseAddress!).assumingMemoryBound(to: CChar.self)
            try transfer(&c, CC_VIDIOC_G_EXT_CTRLS, "VIDIOC_G_EXT_CTRLS", info)
        }
        return Array(buffer.prefix { $0 != 0 })
    }

    /// Sets a string control (VIDIOC_S_EXT_CTRLS) to these exact bytes;
    /// `info.checkString(bytes:)` has vetted them.
    func setString(_ info: ControlInfo, bytes: [UInt8]) throws(CamError) {
        var b = bytes + [0]
        try b.withUnsafeMutableBufferPointer { p throws(CamError) in
            var c = v4l2_ext_control()
            c.id = info.id
            c.size = UInt32(p.count)
            c.string = UnsafeMutableRawPointer(p.baseAddress!).assumingMemoryBound(to: CChar.self)
            try transfer(&c, CC_VIDIOC_S_EXT_CTRLS, "VIDIOC_S_EXT_CTRLS", info)
        }
    }

    /// Sets a value (VIDIOC_S_EXT_CTRLS) and returns what the driver wrote back.
    func set(_ info: ControlInfo, _ value: Int64) throws(CamError) -> Int64 {
        var c = v4l2_ext_control()
        c.id = info.id
        if info.type == .integer64 {
            c.value64 = value
        } else {
            c.value = Int32(truncatingIfNeeded: value)
        }
        try transfer(&c, CC_VIDIOC_S_EXT_CTRLS, "VIDIOC_S_EXT_CTRLS", info)
        return Self.unpack(c, info.type)
    }

    private static func unpack(_ c: v4l2_ext_control, _ type: ControlType) -> Int64 {
        switch type {
        case .integer64: return c.value64
        case .bitmask: return Int64(UInt32(bitPattern: c.value))
        default: return Int64(c.value)
        }
    }

    /// One control through G/S_EXT_CTRLS in the control's own class.
    private func transfer(_ c: inout v4l2_ext_control, _ request: UInt, _ name: String,
                          _ info: ControlInfo) throws(CamError) {
        var cs = v4l2_ext_controls()
        cs.ctrl_class = info.id & 0x0fff_0000  // V4L2_CTRL_ID2WHICH
        cs.count = 1
        let e = withUnsafeMutablePointer(to: &c) { p -> Int32 in
            cs.controls = p
            return call(request, &cs)
        }
        if e == 0 { return }
        switch e {
        case EACCES:
            throw .notSupported("control \(info.label) of \(path) is "
                + (request == CC_VIDIOC_S_EXT_CTRLS ? "read-only" : "write-only"))
        case EBUSY:
            throw .busy("control \(info.label) of \(path) is busy (grabbed while streaming, or in use)")
        case ERANGE, EINVAL:
            if request == CC_VIDIOC_S_EXT_CTRLS {
                throw .invalidArgument("\(path) refused the value for control \(info.label): \(info.validValues)")
            }
            throw .notSupported("\(path) cannot read control \(info.label)")
        default:
            throw CamError.fromErrno(e, "\(name) \(info.label) on \(path)")
        }
    }

    // MARK: Events

    /// Subscribes to change events of one control; our own changes are
    /// reported too (ALLOW_FEEDBACK).
    func subscribe(_ id: UInt32) throws(CamError) {
        var s = v4l2_event_subscription()
        s.type = UInt32(V4L2_EVENT_CTRL)
        s.id = id
        s.flags = UInt32(V4L2_EVENT_SUB_FL_ALLOW_FEEDBACK)
        let e = call(CC_VIDIOC_SUBSCRIBE_EVENT, &s)
        if e != 0 { throw CamError.fromErrno(e, "VIDIOC_SUBSCRIBE_EVENT \(ControlInfo.hex(id)) on \(path)") }
    }

    /// Drops every subscription (and every queued event) of this fd.
    func unsubscribeAll() {
        var s = v4l2_event_subscription()
        s.type = UInt32(V4L2_EVENT_ALL)
        _ = call(CC_VIDIOC_UNSUBSCRIBE_EVENT, &s)
    }

    /// Dequeues one event; nil when none is pending (or on error).
    func dequeueEvent() -> ControlChange? {
        while true {
            var ev = v4l2_event()
            if call(CC_VIDIOC_DQEVENT, &ev) != 0 { return nil }
            guard ev.type == UInt32(V4L2_EVENT_CTRL) else { continue }
            let c = ev.u.ctrl
            let type = ControlType(rawValue: c.type)
            var value: Int64
            switch type {
            case .integer64: value = c.value64
            case .bitmask: value = Int64(UInt32(bitPattern: c.value))
            case .string, .button, .controlClass: value = 0
            default: value = Int64(c.value)
            }
            if type == nil { value = 0 }
            return ControlChange(
                id: ev.id, type: type, value: value, flags: ControlFlags(rawValue: c.flags),
                changes: ControlChanges(rawValue: c.changes), minimum: Int64(c.minimum),
                maximum: type == .bitmask ? Int64(UInt32(bitPattern: c.maximum)) : Int64(c.maximum),
                step: Int64(c.step), defaultValue: Int64(c.default_value))
        }
    }
}

/// What CameraControls needs of a device's controls: V4L2's ioctls
/// (ControlDevice) or a PipeWire node's params (PipeWireControls). Errors
/// as ControlDevice's; each call may block on the device or the daemon.
protocol ControlSurface: Sendable {
    /// Every control, in the device's order.
    func list() -> [ControlInfo]
    /// One control. Errors: notSupported (no such control), io.
    func query(_ id: UInt32) throws(CamError) -> ControlInfo
    /// The current value. Errors: notSupported (cannot be read), io, noDevice.
    func value(of info: ControlInfo) throws(CamError) -> Int64
    /// Sets a checked value; returns the value applied.
    func set(_ info: ControlInfo, _ value: Int64) throws(CamError) -> Int64
    func stringBytes(of info: ControlInfo) throws(CamError) -> [UInt8]
    func setString(_ info: ControlInfo, bytes: [UInt8]) throws(CamError)
    /// Why this surface has no change events (the notSupported message).
    var noChangeEvents: String { get }
}

extension ControlDevice: ControlSurface {
    var noChangeEvents: String { "\(path) does not report control changes" }
}
