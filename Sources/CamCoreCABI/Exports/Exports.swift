// The C ABI of include/camcore.h: only @_cdecl exports and handle boxing.
// Each body checks its arguments, makes one call into CamCore and maps
// any error to a status; no Swift error or trap crosses the boundary.
public import CCamCore  // the header's types are this module's API (the @_cdecl signatures)
import CamCore
#if canImport(Glibc)
import Glibc
#endif

private let versionString: StaticString = "0.1.0"

@_cdecl("camcore_version")
public func cabi_version() -> UInt32 {
    (UInt32(CAMCORE_VERSION_MAJOR) << 16) | (UInt32(CAMCORE_VERSION_MINOR) << 8) | UInt32(CAMCORE_VERSION_PATCH)
}

@_cdecl("camcore_version_string")
public func cabi_version_string() -> UnsafePointer<CChar> { cString(versionString) }

@_cdecl("camcore_strerror")
public func cabi_strerror(_ status: Int32) -> UnsafePointer<CChar> { cString(statusName(status)) }

@_cdecl("camcore_last_error_message")
public func cabi_last_error_message() -> UnsafePointer<CChar> { LastError.current }

@_cdecl("camcore_fourcc_to_string")
public func cabi_fourcc_to_string(_ fourcc: UInt32, _ out: UnsafeMutablePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
    guard let out else { return nil }
    for i in 0..<4 {
        let c = UInt8(truncatingIfNeeded: fourcc >> (8 * UInt32(i)))
        out[i] = CChar(bitPattern: c >= 0x20 && c < 0x7f ? c : UInt8(ascii: "?"))
    }
    out[4] = 0
    return out
}

// MARK: Manager

@_cdecl("camcore_manager_config_init")
public func cabi_manager_config_init(_ config: UnsafeMutablePointer<camcore_manager_config>?) {
    config?.pointee = camcore_manager_config(
        struct_size: UInt32(MemoryLayout<camcore_manager_config>.size), include_synthetic: 0)
}

@_cdecl("camcore_manager_new")
public func cabi_manager_new(_ config: UnsafePointer<camcore_manager_config>?,
                             _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return invalid("camcore_manager_new: out is NULL") }
    out.pointee = nil
    var c = ManagerConfig()
    if let config {
        guard config.pointee.struct_size >= UInt32(MemoryLayout<camcore_manager_config>.size) else {
            return invalid("camcore_manager_new: config->struct_size \(config.pointee.struct_size) is too small; call camcore_manager_config_init()")
        }
        c.syntheticCount = Int(max(0, min(config.pointee.include_synthetic, 2)))
    }
    out.pointee = Handles.shared.add(ManagerBox(Manager(config: c)))
    return 0
}

@_cdecl("camcore_manager_free")
public func cabi_manager_free(_ manager: OpaquePointer?) {
    _ = Handles.shared.remove(manager, as: ManagerBox.self)
}

private func managerBox(_ m: OpaquePointer?, _ fn: String) -> ManagerBox? {
    guard let box = Handles.shared.get(m, as: ManagerBox.self) else {
        LastError.set("\(fn): manager is NULL or not a live manager")
        return nil
    }
    return box
}

@_cdecl("camcore_manager_list_devices")
public func cabi_manager_list_devices(_ manager: OpaquePointer?,
                                      _ out: UnsafeMutablePointer<UnsafeMutablePointer<camcore_device_list>?>?) -> Int32 {
    guard let out else { return invalid("camcore_manager_list_devices: out is NULL") }
    out.pointee = nil
    guard let box = managerBox(manager, "camcore_manager_list_devices") else { return CAMCORE_E_INVALID_ARG.rawValue }
    guard let list = Lists.deviceList(box.manager.devices()) else { return fail(.noMemory("device list")) }
    out.pointee = Lists.handOut(list)
    return 0
}

@_cdecl("camcore_device_list_free")
public func cabi_device_list_free(_ list: UnsafeMutablePointer<camcore_device_list>?) { Lists.release(list) }

@_cdecl("camcore_manager_list_formats")
public func cabi_manager_list_formats(_ manager: OpaquePointer?, _ deviceID: UnsafePointer<CChar>?,
                                      _ out: UnsafeMutablePointer<UnsafeMutablePointer<camcore_format_list>?>?) -> Int32 {
    guard let out else { return invalid("camcore_manager_list_formats: out is NULL") }
    out.pointee = nil
    guard let box = managerBox(manager, "camcore_manager_list_formats") else { return CAMCORE_E_INVALID_ARG.rawValue }
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

// MARK: Frames

@_cdecl("camcore_frame_retain")
public func cabi_frame_retain(_ frame: UnsafePointer<camcore_frame>?) -> UnsafePointer<camcore_frame>? {
    guard let frame else {
        LastError.set("camcore_frame_retain: frame is NULL")
        return nil
    }
    let raw = UnsafeRawPointer(frame)
    let retained: RetainedFrame
    switch FrameBox.magic(raw) {
    case FrameBox.borrowedMagic:
        guard let t = FrameBox.token(raw) else { return nil }
        let current = t.assumingMemoryBound(to: Frame.self).pointee
        guard current.isRetainable else {
            LastError.set("camcore_frame_retain: frames pushed by the app (custom source, hook replacement) cannot be retained; copy the pixels")
            return nil
        }
        retained = current.retain()
    case FrameBox.retainedMagic:
        guard let t = FrameBox.token(raw) else { return nil }
        retained = Unmanaged<RetainedFrame>.fromOpaque(t).takeUnretainedValue()
    default:
        LastError.set("camcore_frame_retain: not a frame from camcore")
        return nil
    }
    let copy = FrameBox.allocate(magic: FrameBox.retainedMagic,
                                 token: Unmanaged.passRetained(retained).toOpaque())
    memcpy(copy, raw, MemoryLayout<camcore_frame>.size)
    return UnsafePointer(copy.assumingMemoryBound(to: camcore_frame.self))
}

@_cdecl("camcore_frame_release")
public func cabi_frame_release(_ frame: UnsafePointer<camcore_frame>?) {
    guard let frame else { return }
    let raw = UnsafeMutableRawPointer(mutating: frame)
    guard FrameBox.magic(raw) == FrameBox.retainedMagic, let t = FrameBox.token(raw) else {
        LastError.set("camcore_frame_release: not a retained frame")
        return
    }
    FrameBox.setMagic(raw, 0)
    Unmanaged<RetainedFrame>.fromOpaque(t).release()
    free(raw)
}

// MARK: Capturer

@_cdecl("camcore_frame_callbacks_init")
public func cabi_frame_callbacks_init(_ cb: UnsafeMutablePointer<camcore_frame_callbacks>?) {
    cb?.pointee = camcore_frame_callbacks(
        struct_size: UInt32(MemoryLayout<camcore_frame_callbacks>.size), user_data: nil, on_frame: nil, on_error: nil)
}

@_cdecl("camcore_capture_config_init")
public func cabi_capture_config_init(_ c: UnsafeMutablePointer<camcore_capture_config>?) {
    c?.pointee = camcore_capture_config(
        struct_size: UInt32(MemoryLayout<camcore_capture_config>.size), fourcc: FourCC.yuyv.rawValue,
        width: 640, height: 480, fps: camcore_fraction(numerator: 30, denominator: 1), buffer_count: 4,
        output_fourcc: 0)
}

private func capturerBox(_ c: OpaquePointer?, _ fn: String) -> CapturerBox? {
    guard let box = Handles.shared.get(c, as: CapturerBox.self) else {
        LastError.set("\(fn): capturer is NULL or not a live capturer")
        return nil
    }
    return box
}

@_cdecl("camcore_capturer_open")
public func cabi_capturer_open(_ manager: OpaquePointer?, _ deviceID: UnsafePointer<CChar>?,
                               _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return invalid("camcore_capturer_open: out is NULL") }
    out.pointee = nil
    guard let box = managerBox(manager, "camcore_capturer_open") else { return CAMCORE_E_INVALID_ARG.rawValue }
    guard let deviceID else { return invalid("camcore_capturer_open: device_id is NULL") }
    do {
        let capturer = try box.manager.open(deviceID: String(cString: deviceID))
        out.pointee = Handles.shared.add(CapturerBox(capturer))
        return 0
    } catch {
        return fail(error)
    }
}

@_cdecl("camcore_capturer_close")
public func cabi_capturer_close(_ capturer: OpaquePointer?) {
    guard let box = Handles.shared.get(capturer, as: CapturerBox.self) else { return }
    do {
        try box.capturer.close()
        _ = Handles.shared.remove(capturer, as: CapturerBox.self)
    } catch {
        _ = fail(error)
    }
}

@_cdecl("camcore_capturer_start")
public func cabi_capturer_start(_ capturer: OpaquePointer?, _ config: UnsafePointer<camcore_capture_config>?,
                                _ callbacks: UnsafePointer<camcore_frame_callbacks>?) -> Int32 {
    guard let box = capturerBox(capturer, "camcore_capturer_start") else { return CAMCORE_E_INVALID_ARG.rawValue }
    var c = camcore_capture_config()
    cabi_capture_config_init(&c)
    if let config {
        guard Versioned.read(config, into: &c, minimum: Versioned.captureConfigV1) else {
            return invalid("camcore_capturer_start: config->struct_size \(config.pointee.struct_size) is too small; call camcore_capture_config_init()")
        }
    }
    var cb = camcore_frame_callbacks()
    if let callbacks {
        guard callbacks.pointee.struct_size >= UInt32(MemoryLayout<camcore_frame_callbacks>.size) else {
            return invalid("camcore_capturer_start: callbacks->struct_size \(callbacks.pointee.struct_size) is too small; call camcore_frame_callbacks_init()")
        }
        cb = callbacks.pointee
    }
    if c.fps.denominator == 0 && c.fps.numerator != 0 {
        return invalid("camcore_capturer_start: fps \(c.fps.numerator)/0 has a zero denominator")
    }
    let request = CaptureRequest(
        fourcc: FourCC(rawValue: c.fourcc), width: Int(c.width), height: Int(c.height),
        frameRate: c.fps.numerator == 0 ? nil : FrameRate(c.fps.numerator, c.fps.denominator),
        bufferCount: Int(c.buffer_count),
        output: c.output_fourcc == 0 ? nil : FourCC(rawValue: c.output_fourcc))
    let userData = cb.user_data
    let onFrame = cb.on_frame, onError = cb.on_error
    do {
        try box.capturer.start(request, onFrame: { frame in
            guard let onFrame else { return }
            FrameBox.withBorrowed(frame) { onFrame(userData, $0) }
        }, onError: { error in
            guard let onError else { return }
            error.message.withCString { onError(userData, error.status, $0) }
        })
        return 0
    } catch {
        return fail(error)
    }
}

@_cdecl("camcore_capturer_stop")
public func cabi_capturer_stop(_ capturer: OpaquePointer?) -> Int32 {
    guard let box = capturerBox(capturer, "camcore_capturer_stop") else { return CAMCORE_E_INVALID_ARG.rawValue }
    do {
        try box.capturer.stop()
        return 0
    } catch {
        return fail(error)
    }
}

@_cdecl("camcore_capturer_is_streaming")
public func cabi_capturer_is_streaming(_ capturer: OpaquePointer?) -> Int32 {
    guard let box = Handles.shared.get(capturer, as: CapturerBox.self) else { return 0 }
    return box.capturer.isStreaming ? 1 : 0
}

@_cdecl("camcore_capturer_get_format")
public func cabi_capturer_get_format(_ capturer: OpaquePointer?, _ out: UnsafeMutablePointer<camcore_capture_format>?) -> Int32 {
    guard let box = capturerBox(capturer, "camcore_capturer_get_format") else { return CAMCORE_E_INVALID_ARG.rawValue }
    guard let out else { return invalid("camcore_capturer_get_format: out is NULL") }
    let size = out.pointee.struct_size
    guard size >= Versioned.captureFormatV1 else {
        return invalid("camcore_capturer_get_format: out->struct_size must be sizeof(camcore_capture_format)")
    }
    guard let f = box.capturer.format else { return fail(.state("the capturer was never started")) }
    var r = cCaptureFormat(f)
    r.struct_size = size
    Versioned.write(r, to: out, size: size)
    return 0
}

@_cdecl("camcore_capturer_get_stats")
public func cabi_capturer_get_stats(_ capturer: OpaquePointer?, _ out: UnsafeMutablePointer<camcore_capture_stats>?) -> Int32 {
    guard let box = capturerBox(capturer, "camcore_capturer_get_stats") else { return CAMCORE_E_INVALID_ARG.rawValue }
    guard let out else { return invalid("camcore_capturer_get_stats: out is NULL") }
    let size = out.pointee.struct_size
    guard size >= Versioned.captureStatsV1 else {
        return invalid("camcore_capturer_get_stats: out->struct_size must be sizeof(camcore_capture_stats)")
    }
    let s = box.capturer.stats
    Versioned.write(camcore_capture_stats(struct_size: size, frames_delivered: s.delivered,
                                          frames_dropped: s.dropped, frames_corrupted: s.corrupted,
                                          measured_fps: s.measuredFPS), to: out, size: size)
    return 0
}

@_cdecl("camcore_capturer_fd")
public func cabi_capturer_fd(_ capturer: OpaquePointer?) -> Int32 {
    guard let box = capturerBox(capturer, "camcore_capturer_fd") else { return CAMCORE_E_INVALID_ARG.rawValue }
    guard let fd = box.capturer.fileDescriptor else {
        return fail(.notSupported("\(box.capturer.device.name) has no file descriptor"))
    }
    return fd
}

@_cdecl("camcore_capturer_device_id")
public func cabi_capturer_device_id(_ capturer: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = Handles.shared.get(capturer, as: CapturerBox.self) else { return nil }
    return UnsafePointer(box.deviceID)
}

// MARK: Negotiation

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
    guard out.pointee.struct_size >= UInt32(MemoryLayout<camcore_setting>.size) else {
        return invalid("\(fn): out->struct_size must be sizeof(camcore_setting)")
    }
    return nil
}

@_cdecl("camcore_manager_negotiate")
public func cabi_manager_negotiate(_ manager: OpaquePointer?, _ deviceID: UnsafePointer<CChar>?,
                                   _ preference: UnsafePointer<camcore_preference>?,
                                   _ out: UnsafeMutablePointer<camcore_setting>?) -> Int32 {
    let fn = "camcore_manager_negotiate"
    if let e = checkSetting(out, fn) { return e }
    guard let box = managerBox(manager, fn) else { return CAMCORE_E_INVALID_ARG.rawValue }
    guard let deviceID else { return invalid("\(fn): device_id is NULL") }
    var p = camcore_preference()
    cabi_preference_init(&p)
    if let preference {
        guard preference.pointee.struct_size >= UInt32(MemoryLayout<camcore_preference>.size) else {
            return invalid("\(fn): preference->struct_size is too small; call camcore_preference_init()")
        }
        p = preference.pointee
    }
    guard p.width > 0, p.height > 0, let lo = rate(p.min_fps, "min"), let hi = rate(p.max_fps, "max"), lo <= hi else {
        return invalid("\(fn): the preference needs a non-zero size and 0 < min_fps <= max_fps")
    }
    do {
        let n = try box.manager.negotiate(deviceID: String(cString: deviceID), preference: CapturePreference(
            width: Int(p.width), height: Int(p.height), minRate: lo, maxRate: hi,
            output: p.output_fourcc == 0 ? nil : FourCC(rawValue: p.output_fourcc)))
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
    guard let box = managerBox(manager, fn) else { return CAMCORE_E_INVALID_ARG.rawValue }
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
    guard let box = managerBox(manager, fn) else { return CAMCORE_E_INVALID_ARG.rawValue }
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

/// A CaptureFormat as the C struct (full size).
func cCaptureFormat(_ f: CaptureFormat) -> camcore_capture_format {
    var r = camcore_capture_format()
    r.struct_size = UInt32(MemoryLayout<camcore_capture_format>.size)
    r.fourcc = f.fourcc.rawValue
    r.width = UInt32(f.width)
    r.height = UInt32(f.height)
    r.plane_count = UInt32(min(f.strides.count, 3))
    let s = f.strides + [0, 0, 0]
    r.strides = (UInt32(s[0]), UInt32(s[1]), UInt32(s[2]))
    r.frame_bytes = UInt32(truncatingIfNeeded: f.frameBytes)
    if let rate = f.frameRate { r.fps = camcore_fraction(numerator: rate.numerator, denominator: rate.denominator) }
    r.buffer_count = UInt32(f.bufferCount)
    r.source_fourcc = f.sourceFourCC.rawValue
    r.adjusted = f.adjustments.rawValue
    return r
}

// MARK: Hot-plug

@_cdecl("camcore_manager_set_hotplug_callbacks")
public func cabi_manager_set_hotplug_callbacks(_ manager: OpaquePointer?,
                                               _ cb: UnsafePointer<camcore_hotplug_callbacks>?) -> Int32 {
    let fn = "camcore_manager_set_hotplug_callbacks"
    guard let box = managerBox(manager, fn) else { return CAMCORE_E_INVALID_ARG.rawValue }
    var c: camcore_hotplug_callbacks?
    if let cb {
        guard cb.pointee.struct_size >= UInt32(MemoryLayout<camcore_hotplug_callbacks>.size) else {
            return invalid("\(fn): callbacks->struct_size is too small")
        }
        c = cb.pointee
    }
    return box.setHotplug(c)
}
