// SPDX-License-Identifier: MIT
// The C ABI of camcore.h's "Controls (S27, S28)" section: @_cdecl exports
// only. Each body checks its arguments, makes one call into CamCore
// (Capturer.controls) and maps any error to a status.
public import CCamCore  // the header's types are this module's API (the @_cdecl signatures)
import CamCore
#if canImport(Glibc)
import Glibc
#endif

private func controlsOf(_ c: OpaquePointer?, _ fn: String) -> CameraControls? {
    Handles.shared.lookup(c, as: CapturerBox.self, fn, "capturer")?.capturer.controls
}

@_cdecl("camcore_capturer_list_controls")
public func cabi_capturer_list_controls(_ capturer: OpaquePointer?,
                                        _ out: UnsafeMutablePointer<UnsafeMutablePointer<camcore_control_list>?>?) -> Int32 {
    let fn = "camcore_capturer_list_controls"
    guard let out else { return invalid("\(fn): out is NULL") }
    out.pointee = nil
    guard let controls = controlsOf(capturer, fn) else { return LastError.status }
    do {
        guard let list = ControlList.make(try controls.list()) else { return fail(.noMemory("control list")) }
        out.pointee = Lists.handOut(list)
        return 0
    } catch {
        return fail(error)
    }
}

@_cdecl("camcore_control_list_free")
public func cabi_control_list_free(_ list: UnsafeMutablePointer<camcore_control_list>?) { Lists.release(list) }

@_cdecl("camcore_capturer_get_control")
public func cabi_capturer_get_control(_ capturer: OpaquePointer?, _ id: UInt32,
                                      _ value: UnsafeMutablePointer<Int64>?) -> Int32 {
    let fn = "camcore_capturer_get_control"
    guard let value else { return invalid("\(fn): value is NULL") }
    guard let controls = controlsOf(capturer, fn) else { return LastError.status }
    do {
        value.pointee = try controls.value(id)
        return 0
    } catch {
        return fail(error)
    }
}

@_cdecl("camcore_capturer_set_control")
public func cabi_capturer_set_control(_ capturer: OpaquePointer?, _ id: UInt32, _ value: Int64,
                                      _ applied: UnsafeMutablePointer<Int64>?) -> Int32 {
    guard let controls = controlsOf(capturer, "camcore_capturer_set_control") else { return LastError.status }
    do {
        let v = try controls.set(id, to: value)
        applied?.pointee = v
        return 0
    } catch {
        return fail(error)
    }
}

@_cdecl("camcore_capturer_get_control_string")
public func cabi_capturer_get_control_string(_ capturer: OpaquePointer?, _ id: UInt32,
                                             _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int) -> Int32 {
    let fn = "camcore_capturer_get_control_string"
    guard let buffer else { return invalid("\(fn): buffer is NULL") }
    guard size != 0 else { return invalid("\(fn): size is 0") }
    // size_t above Int.max arrives negative: as good as unlimited.
    let room = size < 0 ? Int.max : size
    guard let controls = controlsOf(capturer, fn) else { return LastError.status }
    do {
        let bytes = try controls.stringBytes(id)
        guard bytes.count < room else {
            return invalid("\(fn): the value has \(bytes.count) bytes; buffer needs \(bytes.count + 1), has \(room)"
                + " (the control's maximum + 1 always suffices)")
        }
        bytes.withUnsafeBufferPointer { b in
            if let src = b.baseAddress, b.count > 0 {
                UnsafeMutableRawPointer(buffer).copyMemory(from: src, byteCount: b.count)
            }
        }
        buffer[bytes.count] = 0
        return 0
    } catch {
        return fail(error)
    }
}

@_cdecl("camcore_capturer_set_control_string")
public func cabi_capturer_set_control_string(_ capturer: OpaquePointer?, _ id: UInt32,
                                             _ value: UnsafePointer<CChar>?) -> Int32 {
    let fn = "camcore_capturer_set_control_string"
    guard let value else { return invalid("\(fn): value is NULL") }
    guard let controls = controlsOf(capturer, fn) else { return LastError.status }
    do {
        // The bytes as given (strlen), not re-encoded: no UTF-8 repair.
        let bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self),
                                              count: strlen(value)))
        try controls.setString(id, bytes: bytes)
        return 0
    } catch {
        return fail(error)
    }
}

@_cdecl("camcore_control_callbacks_init")
public func cabi_control_callbacks_init(_ cb: UnsafeMutablePointer<camcore_control_callbacks>?) {
    cb?.pointee = camcore_control_callbacks(
        struct_size: UInt32(MemoryLayout<camcore_control_callbacks>.size), user_data: nil,
        on_control_changed: nil)
}

@_cdecl("camcore_capturer_set_control_callbacks")
public func cabi_capturer_set_control_callbacks(_ capturer: OpaquePointer?,
                                                _ callbacks: UnsafePointer<camcore_control_callbacks>?) -> Int32 {
    let fn = "camcore_capturer_set_control_callbacks"
    guard let controls = controlsOf(capturer, fn) else { return LastError.status }
    var handler: CameraControls.ChangeHandler? = nil
    if let callbacks {
        let cb: camcore_control_callbacks
        do { cb = try Versioned.controlCallbacks.read(callbacks, over: camcore_control_callbacks(), fn, "callbacks") } catch {
            return fail(error)
        }
        if let on = cb.on_control_changed {
            let userData = cb.user_data
            handler = { change in
                on(userData, change.id, change.value, change.flags.rawValue, change.changes.rawValue)
            }
        } else {
            // Callbacks with nothing to call: subscribe anyway (the caller
            // may add a callback later), deliver nowhere.
            handler = { _ in }
        }
    }
    do {
        try controls.setChangeHandler(handler)
        return 0
    } catch {
        return fail(error)
    }
}

/// Builds a camcore_control_list in one malloc'd block: the header, the
/// entries, the menu items and every string (one free releases it all).
enum ControlList {
    static func make(_ controls: [ControlInfo]) -> UnsafeMutablePointer<camcore_control_list>? {
        let head = MemoryLayout<camcore_control_list>.stride
        let entry = MemoryLayout<camcore_control_info>.stride
        let item = MemoryLayout<camcore_menu_item>.stride
        var items = 0, strings = 0
        for c in controls {
            items += c.menu.count
            strings += c.name.utf8.count + 1
            for m in c.menu { strings += m.name.utf8.count + 1 }
        }
        let total = head + 16 + entry * controls.count + 16 + item * items + strings
        guard let block = malloc(total) else { return nil }
        var arena = Lists.Arena(base: block, used: 0)
        let list = arena.take(head, align: 16).bindMemory(to: camcore_control_list.self, capacity: 1)
        let infos = arena.take(entry * controls.count, align: 16)
            .bindMemory(to: camcore_control_info.self, capacity: max(controls.count, 1))
        let menuBase = arena.take(item * items, align: 16)
            .bindMemory(to: camcore_menu_item.self, capacity: max(items, 1))
        var nextItem = 0
        for (i, c) in controls.enumerated() {
            var menu: UnsafePointer<camcore_menu_item>? = nil
            if !c.menu.isEmpty {
                menu = UnsafePointer(menuBase + nextItem)
                for m in c.menu {
                    menuBase[nextItem] = camcore_menu_item(index: m.index, name: arena.string(m.name), value: m.value)
                    nextItem += 1
                }
            }
            infos[i] = camcore_control_info(
                id: c.id, type: Int32(c.type.rawValue), name: arena.string(c.name),
                minimum: c.minimum, maximum: c.maximum, step: c.step, default_value: c.defaultValue,
                value: c.value, flags: c.flags.rawValue, menu_count: UInt32(c.menu.count), menu: menu)
        }
        list.pointee = camcore_control_list(count: controls.count, controls: controls.isEmpty ? nil : infos)
        return list
    }
}
