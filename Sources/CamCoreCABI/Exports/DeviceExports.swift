// SPDX-License-Identifier: MIT
// The C ABI of camcore.h's "Devices" section: @_cdecl exports only.
// Each body checks its arguments, makes one call into CamCore and maps
// any error to a status; no Swift error or trap crosses the boundary.
public import CCamCore  // the header's types are this module's API (the @_cdecl signatures)
import CamCore

@_cdecl("camcore_manager_list_devices")
public func cabi_manager_list_devices(_ manager: OpaquePointer?,
                                      _ out: UnsafeMutablePointer<UnsafeMutablePointer<camcore_device_list>?>?) -> Int32 {
    listDevices(manager, 0, out, "camcore_manager_list_devices")
}

@_cdecl("camcore_manager_list_devices_with")
public func cabi_manager_list_devices_with(_ manager: OpaquePointer?, _ flags: UInt32,
                                           _ out: UnsafeMutablePointer<UnsafeMutablePointer<camcore_device_list>?>?) -> Int32 {
    listDevices(manager, flags, out, "camcore_manager_list_devices_with")
}

/// Both listings: the cameras, and with CAMCORE_LIST_HIDDEN the hidden nodes after them.
private func listDevices(_ manager: OpaquePointer?, _ flags: UInt32,
                         _ out: UnsafeMutablePointer<UnsafeMutablePointer<camcore_device_list>?>?, _ fn: String) -> Int32 {
    guard let out else { return invalid("\(fn): out is NULL") }
    out.pointee = nil
    guard let box = managerBox(manager, fn) else { return LastError.status }
    let known = UInt32(CAMCORE_LIST_HIDDEN)
    guard flags & ~known == 0 else { return invalid("\(fn): flags 0x\(String(flags, radix: 16)) has bits that are not CAMCORE_LIST_*") }
    let devices = box.manager.devices(includeHidden: flags & known != 0)
    guard let list = Lists.deviceList(devices) else { return fail(.noMemory("device list")) }
    out.pointee = Lists.handOut(list)
    return 0
}

@_cdecl("camcore_device_list_free")
public func cabi_device_list_free(_ list: UnsafeMutablePointer<camcore_device_list>?) { Lists.release(list) }

@_cdecl("camcore_manager_set_hotplug_callbacks")
public func cabi_manager_set_hotplug_callbacks(_ manager: OpaquePointer?,
                                               _ cb: UnsafePointer<camcore_hotplug_callbacks>?) -> Int32 {
    let fn = "camcore_manager_set_hotplug_callbacks"
    guard let box = managerBox(manager, fn) else { return LastError.status }
    var c: camcore_hotplug_callbacks?
    if let cb {
        do { c = try Versioned.hotplugCallbacks.read(cb, over: camcore_hotplug_callbacks(), fn, "callbacks") } catch {
            return fail(error)
        }
    }
    return box.setHotplug(c)
}

@_cdecl("camcore_manager_get_camera_permission")
public func cabi_manager_get_camera_permission(_ manager: OpaquePointer?, _ state: UnsafeMutablePointer<Int32>?) -> Int32 {
    let fn = "camcore_manager_get_camera_permission"
    guard let box = managerBox(manager, fn) else { return LastError.status }
    guard let state else { return invalid("\(fn): state is NULL") }
    state.pointee = box.manager.cameraPermission.rawValue
    return 0
}

@_cdecl("camcore_manager_camera_present")
public func cabi_manager_camera_present(_ manager: OpaquePointer?) -> Int32 {
    guard let box = managerBox(manager, "camcore_manager_camera_present") else { return LastError.status }
    do { return try box.manager.cameraPresent() ? 1 : 0 } catch { return fail(error) }
}

@_cdecl("camcore_manager_get_holders")
public func cabi_manager_get_holders(_ manager: OpaquePointer?, _ deviceID: UnsafePointer<CChar>?,
                                     _ holders: UnsafeMutablePointer<camcore_holder>?, _ max: Int,
                                     _ found: UnsafeMutablePointer<Int>?, _ unseen: UnsafeMutablePointer<UInt32>?) -> Int32 {
    let fn = "camcore_manager_get_holders"
    guard let box = managerBox(manager, fn) else { return LastError.status }
    guard let deviceID else { return invalid("\(fn): device_id is NULL") }
    guard holders != nil || max == 0 else { return invalid("\(fn): holders is NULL with max \(max)") }
    do {
        let h = try box.manager.holders(of: String(cString: deviceID))
        let list = h.byNode.values.first ?? []
        // size_t above Int.max arrives negative: as good as unlimited.
        let room = max < 0 ? Int.max : max
        for (i, x) in list.prefix(room).enumerated() {
            var e = camcore_holder()
            e.pid = x.pid
            withUnsafeMutableBytes(of: &e.command) { raw in
                let bytes = Array(x.command.utf8.prefix(raw.count - 1))
                for (j, b) in bytes.enumerated() { raw[j] = b }
                raw[bytes.count] = 0
            }
            holders![i] = e
        }
        found?.pointee = list.count
        unseen?.pointee = UInt32(clamping: h.unseen)
        return 0
    } catch {
        return fail(error)
    }
}

@_cdecl("camcore_manager_request_camera_access")
public func cabi_manager_request_camera_access(_ manager: OpaquePointer?, _ timeoutMs: Int32,
                                               _ state: UnsafeMutablePointer<Int32>?) -> Int32 {
    let fn = "camcore_manager_request_camera_access"
    guard let box = managerBox(manager, fn) else { return LastError.status }
    if timeoutMs != 0 && box.manager.isInsideCallback {
        return fail(.wouldDeadlock("\(fn) with a timeout called from a hot-plug callback: the answer is delivered after it returns; pass 0 and wait for on_permission"))
    }
    do {
        let s = try box.manager.requestCameraAccess(timeoutMs: timeoutMs)
        state?.pointee = s.rawValue
        return 0
    } catch {
        state?.pointee = box.manager.cameraPermission.rawValue
        return fail(error)
    }
}
