// SPDX-License-Identifier: MIT
internal import CPipeWire
import Synchronization

/// The controls of a PipeWire camera (SPEC S27 through S34), as far as
/// its node exposes them: PipeWire's V4L2 source lists the device's
/// integer, boolean and menu controls as PropInfo params (id: the SPA prop
/// key, which maps back to the V4L2 control id) and sets them from a Props
/// param (VIDIOC_S_CTRL in the daemon). What it does not do is refused with
/// notSupported and a message, never silently: reading a value (Props
/// carries none, so listed controls are flagged write-only with value 0),
/// 64-bit, bitmask, integer-menu, button and string controls (not listed),
/// and change events. The daemon reports no result for a set: `set`
/// returns the checked value once the daemon has handled the request.
///
/// Safe from any thread; each call is a round trip to the daemon (up to
/// 5 s). The list is read once per capturer (a node's controls do not
/// change).
final class PipeWireControls: ControlSurface, @unchecked Sendable {
    private let core: PipeWireSource.Core
    private let nodeID: UInt32
    private let name: String
    private struct Control { var info: ControlInfo; var prop: UInt32 }
    private let cache = Mutex<[Control]?>(nil)

    init(core: PipeWireSource.Core, nodeID: UInt32, name: String) {
        self.core = core
        self.nodeID = nodeID
        self.name = name
    }

    private func controls() throws(CamError) -> [Control] {
        if let c = cache.withLock({ $0 }) { return c }
        var err = [CChar](repeating: 0, count: 256)
        var buf = [ccpw_control](repeating: ccpw_control(), count: 128)
        let n = ccpw_enum_controls(core.p, nodeID, 5000, &buf, buf.count, &err, err.count)
        if n < 0 { throw .io("\(name): \(PipeWireSource.text(err))") }
        let list = buf.prefix(Int(min(n, Int32(buf.count)))).compactMap(PipeWireControls.control)
        cache.withLock { $0 = list }
        return list
    }

    /// A PropInfo entry as a ControlInfo (V4L2 type numbers, write-only).
    private static func control(_ c: ccpw_control) -> Control? {
        let type: ControlType
        switch c.type {
        case 1: type = .integer
        case 2: type = .boolean
        case 3: type = .menu
        default: return nil
        }
        var menu: [MenuItem] = []
        if type == .menu {
            withUnsafeBytes(of: c.item_index) { raw in
                let idx = raw.bindMemory(to: Int32.self)
                withUnsafeBytes(of: c.item_name) { names in
                    for i in 0..<Int(min(c.item_count, UInt32(CCPW_MAX_MENU))) where idx[i] >= 0 {
                        let slot = names[(i * 32)..<(i * 32 + 32)]
                        let label = String(decoding: slot.prefix { $0 != 0 }, as: UTF8.self)
                        menu.append(MenuItem(index: UInt32(idx[i]), name: label, value: Int64(idx[i])))
                    }
                }
            }
            menu.sort { $0.index < $1.index }
        }
        let info = ControlInfo(id: c.cid, name: PipeWireSource.string(c.name), type: type,
                               minimum: Int64(c.minimum), maximum: Int64(c.maximum), step: Int64(max(1, c.step)),
                               defaultValue: Int64(c.default_value), value: 0, flags: [.writeOnly], menu: menu)
        return Control(info: info, prop: c.prop_id)
    }

    func list() -> [ControlInfo] { ((try? controls()) ?? []).map(\.info) }

    func query(_ id: UInt32) throws(CamError) -> ControlInfo {
        guard let c = try controls().first(where: { $0.info.id == id }) else {
            throw .notSupported("\(name) exposes no control \(ControlInfo.hex(id)) through PipeWire (its node lists integer, boolean and menu controls only; \(try controls().count) listed)")
        }
        return c.info
    }

    func value(of info: ControlInfo) throws(CamError) -> Int64 {
        throw .notSupported("control \(info.label) of \(name) cannot be read through PipeWire: the node takes control values (Props) but reports none back; it can be set")
    }

    func set(_ info: ControlInfo, _ value: Int64) throws(CamError) -> Int64 {
        guard let c = try controls().first(where: { $0.info.id == info.id }) else { _ = try query(info.id); return value }
        guard let v = Int32(exactly: value) else {
            throw .invalidArgument("value \(value) is out of range for control \(info.label): \(info.validValues)")
        }
        var err = [CChar](repeating: 0, count: 256)
        if ccpw_set_control(core.p, nodeID, c.prop, info.type == .boolean ? 1 : 0, v, 5000, &err, err.count) != 0 {
            let m = PipeWireSource.text(err)
            throw m.contains("went away") ? .noDevice("\(name): \(m)") : .io("\(name): \(m)")
        }
        return value
    }

    func stringBytes(of info: ControlInfo) throws(CamError) -> [UInt8] {
        throw .notSupported("\(name) has no string controls through PipeWire (\(info.label))")
    }

    func setString(_ info: ControlInfo, bytes: [UInt8]) throws(CamError) {
        throw .notSupported("\(name) has no string controls through PipeWire (\(info.label))")
    }

    var noChangeEvents: String {
        "\(name) does not report control changes through PipeWire (the node's Props carry no values)"
    }
}
