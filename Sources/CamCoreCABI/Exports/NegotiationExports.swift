// SPDX-License-Identifier: MIT
// The C ABI of camcore.h's "Negotiation" section: @_cdecl exports only.
// Each body checks its arguments, makes one call into CamCore and maps
// any error to a status; no Swift error or trap crosses the boundary.
public import CCamCore  // the header's types are this module's API (the @_cdecl signatures)
import CamCore

@_cdecl("camcore_preference_init")
public func cabi_preference_init(_ p: UnsafeMutablePointer<camcore_preference>?) {
    p?.pointee = camcore_preference(
        struct_size: UInt32(MemoryLayout<camcore_preference>.size), width: 1280, height: 720,
        min_fps: camcore_fraction(numerator: 15, denominator: 1),
        max_fps: camcore_fraction(numerator: 30, denominator: 1), output_fourcc: 0)
}

private func rate(_ f: camcore_fraction, _ what: String) -> FrameRate? {
    f.numerator == 0 || f.denominator == 0 ? nil : FrameRate(f.numerator, f.denominator)
}

private func writeSetting(_ n: NegotiatedFormat, _ out: UnsafeMutablePointer<camcore_setting>) {
    var r = camcore_setting()
    r.struct_size = UInt32(MemoryLayout<camcore_setting>.size)
    r.fourcc = n.fourcc.rawValue
    r.width = UInt32(n.width)
    r.height = UInt32(n.height)
    if let f = n.rate { r.fps = camcore_fraction(numerator: f.numerator, denominator: f.denominator) }
    r.adjusted = n.adjustments.rawValue
    out.pointee = r
}

private func checkSetting(_ out: UnsafeMutablePointer<camcore_setting>?, _ fn: String) -> Int32? {
    guard let out else { return invalid("\(fn): out is NULL") }
    do { _ = try Versioned.setting.outSize(out, fn) } catch { return fail(error) }
    return nil
}

@_cdecl("camcore_manager_negotiate")
public func cabi_manager_negotiate(_ manager: OpaquePointer?, _ deviceID: UnsafePointer<CChar>?,
                                   _ preference: UnsafePointer<camcore_preference>?,
                                   _ out: UnsafeMutablePointer<camcore_setting>?) -> Int32 {
    let fn = "camcore_manager_negotiate"
    if let e = checkSetting(out, fn) { return e }
    guard let box = managerBox(manager, fn) else { return LastError.status }
    guard let deviceID else { return invalid("\(fn): device_id is NULL") }
    var p = camcore_preference()
    cabi_preference_init(&p)
    if let preference {
        do { p = try Versioned.preference.read(preference, over: p, fn, "preference") } catch { return fail(error) }
    }
    do {
        let n = try box.manager.negotiate(deviceID: String(cString: deviceID),
                                          preference: try capturePreference(p, fn))
        writeSetting(n, out!)
        return 0
    } catch {
        return fail(error)
    }
}

@_cdecl("camcore_manager_format_for")
public func cabi_manager_format_for(_ manager: OpaquePointer?, _ deviceID: UnsafePointer<CChar>?,
                                    _ width: UInt32, _ height: UInt32, _ fps: camcore_fraction,
                                    _ out: UnsafeMutablePointer<camcore_setting>?) -> Int32 {
    let fn = "camcore_manager_format_for"
    if let e = checkSetting(out, fn) { return e }
    guard let box = managerBox(manager, fn) else { return LastError.status }
    guard let deviceID else { return invalid("\(fn): device_id is NULL") }
    guard width > 0, height > 0, let r = rate(fps, "fps") else { return invalid("\(fn): zero size or fps") }
    do {
        writeSetting(try box.manager.format(deviceID: String(cString: deviceID), width: Int(width),
                                            height: Int(height), rate: r), out!)
        return 0
    } catch {
        return fail(error)
    }
}

@_cdecl("camcore_manager_max_frame_rate")
public func cabi_manager_max_frame_rate(_ manager: OpaquePointer?, _ deviceID: UnsafePointer<CChar>?,
                                        _ fourcc: UInt32, _ width: UInt32, _ height: UInt32,
                                        _ fps: camcore_fraction, _ out: UnsafeMutablePointer<camcore_fraction>?) -> Int32 {
    let fn = "camcore_manager_max_frame_rate"
    guard let out else { return invalid("\(fn): out is NULL") }
    guard let box = managerBox(manager, fn) else { return LastError.status }
    guard let deviceID else { return invalid("\(fn): device_id is NULL") }
    guard width > 0, height > 0, let r = rate(fps, "fps") else { return invalid("\(fn): zero size or fps") }
    do {
        let m = try box.manager.maxFrameRate(deviceID: String(cString: deviceID), fourcc: FourCC(rawValue: fourcc),
                                             width: Int(width), height: Int(height), rate: r)
        out.pointee = camcore_fraction(numerator: m.numerator, denominator: m.denominator)
        return 0
    } catch {
        return fail(error)
    }
}
