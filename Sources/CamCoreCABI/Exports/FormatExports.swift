// SPDX-License-Identifier: MIT
// The C ABI of camcore.h's "Formats" section: @_cdecl exports only.
// Each body checks its arguments, makes one call into CamCore and maps
// any error to a status; no Swift error or trap crosses the boundary.
public import CCamCore  // the header's types are this module's API (the @_cdecl signatures)
import CamCore

@_cdecl("camcore_manager_list_formats")
public func cabi_manager_list_formats(_ manager: OpaquePointer?, _ deviceID: UnsafePointer<CChar>?,
                                      _ out: UnsafeMutablePointer<UnsafeMutablePointer<camcore_format_list>?>?) -> Int32 {
    guard let out else { return invalid("camcore_manager_list_formats: out is NULL") }
    out.pointee = nil
    guard let box = managerBox(manager, "camcore_manager_list_formats") else { return LastError.status }
    guard let deviceID else { return invalid("camcore_manager_list_formats: device_id is NULL") }
    do {
        let formats = try box.manager.formats(deviceID: String(cString: deviceID))
        guard let list = Lists.formatList(formats) else { return fail(.noMemory("format list")) }
        out.pointee = Lists.handOut(list)
        return 0
    } catch {
        return fail(error)
    }
}

@_cdecl("camcore_format_list_free")
public func cabi_format_list_free(_ list: UnsafeMutablePointer<camcore_format_list>?) { Lists.release(list) }
