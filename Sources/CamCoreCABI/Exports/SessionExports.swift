// SPDX-License-Identifier: MIT
// The C ABI of the video session (include/camcore.h, "Video session"):
// @_cdecl exports and handle boxing only; the camera switch is
// CamCore.VideoSession.
public import CCamCore  // the header's types are this module's API (the @_cdecl signatures)
import CamCore
#if canImport(Glibc)
import Glibc
#endif

/// What a session handle points at.
final class SessionBox {
    let session: VideoSession
    init(_ s: VideoSession) { session = s }
}

/// The live session behind a handle; nil with the thread's last error
/// and status set (Handles.lookup: INVALID_ARG, or STATE once its
/// manager's free closed it).
private func sessionBox(_ s: OpaquePointer?, _ fn: String) -> SessionBox? {
    Handles.shared.lookup(s, as: SessionBox.self, fn, "session")
}

private func status(_ e: CamError?) -> Int32 { e.map(fail) ?? 0 }

/// A C frame sink from a callbacks struct; nil for NULL or no on_frame.
/// Errors: invalidArgument for a short struct_size.
private func sink(_ cb: UnsafePointer<camcore_frame_callbacks>?, _ fn: String) throws(CamError) -> FrameSink? {
    guard let cb else { return nil }
    let c = try Versioned.frameCallbacks.read(cb, over: camcore_frame_callbacks(), fn, "callbacks")
    guard let onFrame = c.on_frame else { return nil }
    let userData = c.user_data
    return { frame in FrameBox.withBorrowed(frame) { onFrame(userData, $0) } }
}

private func preference(_ p: UnsafePointer<camcore_preference>, _ fn: String) throws(CamError) -> CapturePreference {
    try capturePreference(try Versioned.preference.read(p, over: camcore_preference(), fn, "preference"), fn)
}

private func request(_ c: UnsafePointer<camcore_capture_config>?, _ fn: String) throws(CamError) -> CaptureRequest {
    guard let c else { throw .invalidArgument("\(fn): config is NULL") }
    var v = camcore_capture_config()
    cabi_capture_config_init(&v)
    v = try Versioned.captureConfig.read(c, over: v, fn, "config")
    // S37 is for capturers: a session's frames (previews, sink, hook) are
    // in the driver's buffers or camcore's own, never handed out as
    // DMA-BUF, so asking for it is refused rather than ignored.
    if v.dmabuf != 0 {
        throw .notSupported("\(fn): dmabuf is for capturers (camcore_capturer_start, camcore_capturer_start_pull); "
            + "a session's frames carry no DMA-BUF fd")
    }
    return try captureRequest(v, fn, output: false)
}

/// A completion closure calling the C function once with the status.
private func completion(_ fn: camcore_completion_fn?, _ userData: UnsafeMutableRawPointer?) -> ((CamError?) -> Void)? {
    guard let fn else { return nil }
    return { e in
        if let e { LastError.set(e.message) }
        fn(userData, e?.status ?? 0)
    }
}

@_cdecl("camcore_session_config_init")
public func cabi_session_config_init(_ c: UnsafeMutablePointer<camcore_session_config>?) {
    guard let c else { return }
    var p = camcore_preference()
    cabi_preference_init(&p)
    c.pointee = camcore_session_config(struct_size: UInt32(MemoryLayout<camcore_session_config>.size),
                                       device_id: nil, preference: p, return_to_reconnected_device: 1,
                                       output_width: 0, output_height: 0, stall_restart_ms: 3000, stall_restart_tries: 3)
}

@_cdecl("camcore_session_new")
public func cabi_session_new(_ manager: OpaquePointer?, _ config: UnsafePointer<camcore_session_config>?,
                             _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    let fn = "camcore_session_new"
    guard let out else { return invalid("\(fn): out is NULL") }
    out.pointee = nil
    guard let mbox = managerBox(manager, fn) else { return LastError.status }
    var c = camcore_session_config()
    cabi_session_config_init(&c)
    if let config {
        do { c = try Versioned.sessionConfig.read(config, over: c, fn, "config") } catch { return fail(error) }
        // An older struct ends in padding where output_width now is: only a
        // struct_size covering output_height carries an output size (S38).
        let end = MemoryLayout<camcore_session_config>.offset(of: \.output_height)! + 4
        if Int(config.pointee.struct_size) < end { c.output_width = 0; c.output_height = 0 }
        // The same for the S48 fields (0.2): an older struct's tail padding is no setting.
        let tail = MemoryLayout<camcore_session_config>.offset(of: \.stall_restart_tries)! + 4
        if Int(config.pointee.struct_size) < tail { c.stall_restart_ms = 3000; c.stall_restart_tries = 3 }
    }
    do {
        let pref = try withUnsafePointer(to: c.preference) { p throws(CamError) in try preference(p, fn) }
        let id = c.device_id.map { String(cString: $0) }
        let s = try VideoSession(manager: mbox.manager, deviceID: id, preference: pref,
                                 outputWidth: Int(c.output_width), outputHeight: Int(c.output_height))
        s.returnsToReconnectedDevice = c.return_to_reconnected_device != 0
        try s.setStallRestart(ms: Int(c.stall_restart_ms), tries: Int(c.stall_restart_tries))
        out.pointee = Handles.shared.add(SessionBox(s), parent: manager)
        return 0
    } catch {
        return fail(error)
    }
}

@_cdecl("camcore_session_free")
public func cabi_session_free(_ session: OpaquePointer?) {
    guard let box = Handles.shared.get(session, as: SessionBox.self) else {
        // Retired (its manager's free closed it): only the handle is left.
        _ = Handles.shared.remove(session, as: SessionBox.self)
        return
    }
    _ = Handles.shared.remove(session, as: SessionBox.self)
    // Never fails: from inside the session's own callback the session is
    // muted now and turned off on a library thread once that callback returned.
    box.session.close()
}

/// Runs a synchronous session call: handle check, then `body`'s error as status.
private func call(_ session: OpaquePointer?, _ fn: String, _ body: (VideoSession) throws(CamError) -> Void) -> Int32 {
    guard let box = sessionBox(session, fn) else { return LastError.status }
    do {
        try body(box.session)
        return 0
    } catch {
        return fail(error)
    }
}

@_cdecl("camcore_session_start_transmission")
public func cabi_session_start_transmission(_ s: OpaquePointer?, _ initial: Int32, _ preparing: Int32) -> Int32 {
    guard initial == CAMCORE_VIDEO_RESUME || initial == CAMCORE_VIDEO_PAUSE else {
        return invalid("camcore_session_start_transmission: initial_state must be CAMCORE_VIDEO_RESUME or CAMCORE_VIDEO_PAUSE")
    }
    return call(s, "camcore_session_start_transmission") { v throws(CamError) in
        try v.startTransmission(initial == CAMCORE_VIDEO_PAUSE ? .pause : .resume, preparing: preparing != 0)
    }
}

@_cdecl("camcore_session_end_preparation")
public func cabi_session_end_preparation(_ s: OpaquePointer?) -> Int32 {
    call(s, "camcore_session_end_preparation") { v throws(CamError) in try v.endPreparation() }
}

@_cdecl("camcore_session_pause_video")
public func cabi_session_pause_video(_ s: OpaquePointer?) -> Int32 {
    call(s, "camcore_session_pause_video") { v throws(CamError) in try v.pauseVideo() }
}

@_cdecl("camcore_session_resume_video")
public func cabi_session_resume_video(_ s: OpaquePointer?) -> Int32 {
    call(s, "camcore_session_resume_video") { v throws(CamError) in try v.resumeVideo() }
}

@_cdecl("camcore_session_hold")
public func cabi_session_hold(_ s: OpaquePointer?) -> Int32 {
    call(s, "camcore_session_hold") { v throws(CamError) in try v.hold() }
}

@_cdecl("camcore_session_unhold")
public func cabi_session_unhold(_ s: OpaquePointer?) -> Int32 {
    call(s, "camcore_session_unhold") { v throws(CamError) in try v.unhold() }
}

@_cdecl("camcore_session_set_hard_mute")
public func cabi_session_set_hard_mute(_ s: OpaquePointer?, _ muted: Int32) -> Int32 {
    call(s, "camcore_session_set_hard_mute") { v throws(CamError) in try v.setHardMute(muted != 0) }
}

@_cdecl("camcore_session_end_transmission")
public func cabi_session_end_transmission(_ s: OpaquePointer?) -> Int32 {
    call(s, "camcore_session_end_transmission") { v throws(CamError) in try v.endTransmission() }
}

@_cdecl("camcore_session_set_transmission_sink")
public func cabi_session_set_transmission_sink(_ s: OpaquePointer?, _ cb: UnsafePointer<camcore_frame_callbacks>?) -> Int32 {
    let fn = "camcore_session_set_transmission_sink"
    return call(s, fn) { v throws(CamError) in v.setTransmissionSink(try sink(cb, fn)) }
}

@_cdecl("camcore_session_add_preview")
public func cabi_session_add_preview(_ s: OpaquePointer?, _ cb: UnsafePointer<camcore_frame_callbacks>?,
                                     _ id: UnsafeMutablePointer<UInt32>?) -> Int32 {
    let fn = "camcore_session_add_preview"
    guard let id else { return invalid("\(fn): preview_id is NULL") }
    guard cb != nil else { return invalid("\(fn): callbacks is NULL") }
    id.pointee = 0
    return call(s, fn) { v throws(CamError) in
        let k = try sink(cb, fn) ?? { _ in }
        // The preview stays added on a camera error: its id comes with it.
        let (n, error) = v.addPreviewReporting(k)
        id.pointee = n
        if let error { throw error }
    }
}

@_cdecl("camcore_session_add_preview_pull")
public func cabi_session_add_preview_pull(_ s: OpaquePointer?, _ depth: UInt32,
                                          _ id: UnsafeMutablePointer<UInt32>?) -> Int32 {
    let fn = "camcore_session_add_preview_pull"
    guard let id else { return invalid("\(fn): preview_id is NULL") }
    id.pointee = 0
    return call(s, fn) { v throws(CamError) in
        let (n, error) = v.addPullPreviewReporting(depth: Int(min(depth, 1 << 20)))
        id.pointee = n
        if let error { throw error }
    }
}

@_cdecl("camcore_session_acquire_preview_frame")
public func cabi_session_acquire_preview_frame(_ s: OpaquePointer?, _ previewID: UInt32, _ timeoutMs: Int32,
                                               _ frame: UnsafeMutablePointer<UnsafePointer<camcore_frame>?>?) -> Int32 {
    let fn = "camcore_session_acquire_preview_frame"
    guard let frame else { return invalid("\(fn): frame is NULL") }
    frame.pointee = nil
    return call(s, fn) { v throws(CamError) in
        let got = try v.acquirePreview(previewID, timeoutMs: timeoutMs)
        guard let out = FrameBox.retainedBox(for: got) else {
            throw .noMemory("\(fn): too many retained frames; release some")
        }
        frame.pointee = out
    }
}

@_cdecl("camcore_session_next_preview_frame")
public func cabi_session_next_preview_frame(_ s: OpaquePointer?, _ previewID: UInt32, _ timeoutMs: Int32,
                                            _ frame: UnsafeMutablePointer<UnsafePointer<camcore_frame>?>?) -> Int32 {
    let fn = "camcore_session_next_preview_frame"
    guard let frame else { return invalid("\(fn): frame is NULL") }
    if let refused = releasePassedIn(frame, fn) { return refused }
    return cabi_session_acquire_preview_frame(s, previewID, timeoutMs, frame)
}

@_cdecl("camcore_session_get_preview_fd")
public func cabi_session_get_preview_fd(_ s: OpaquePointer?, _ previewID: UInt32,
                                        _ fd: UnsafeMutablePointer<Int32>?) -> Int32 {
    let fn = "camcore_session_get_preview_fd"
    guard let fd else { return invalid("\(fn): fd is NULL") }
    return call(s, fn) { v throws(CamError) in
        guard let f = try v.pullQueue(ofPreview: previewID).readyFD else { throw .state("\(fn): the preview is removed") }
        fd.pointee = f
    }
}

@_cdecl("camcore_session_remove_preview")
public func cabi_session_remove_preview(_ s: OpaquePointer?, _ id: UInt32) -> Int32 {
    call(s, "camcore_session_remove_preview") { v throws(CamError) in try v.removePreview(id) }
}

@_cdecl("camcore_session_get_note")
public func cabi_session_get_note(_ s: OpaquePointer?, _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int) -> Int32 {
    let fn = "camcore_session_get_note"
    guard let box = sessionBox(s, fn) else { return LastError.status }
    guard buffer != nil || size == 0 else { return invalid("\(fn): buffer is NULL with size \(size)") }
    return writeText(box.session.note ?? "", to: buffer, size: size)
}

@_cdecl("camcore_session_get_state")
public func cabi_session_get_state(_ s: OpaquePointer?, _ out: UnsafeMutablePointer<camcore_session_state>?) -> Int32 {
    let fn = "camcore_session_get_state"
    guard let out else { return invalid("\(fn): out is NULL") }
    let size: UInt32
    do { size = try Versioned.sessionState.outSize(out, fn) } catch { return fail(error) }
    return call(s, fn) { v throws(CamError) in
        let st = v.currentState
        var r = camcore_session_state()
        r.struct_size = UInt32(MemoryLayout<camcore_session_state>.size)
        r.camera_on = st.cameraOn ? 1 : 0
        r.transmitting = st.transmitting ? 1 : 0
        r.paused = st.paused ? 1 : 0
        r.held = st.held ? 1 : 0
        r.preparing = st.preparing ? 1 : 0
        r.hard_muted = st.hardMuted ? 1 : 0
        r.custom_source = st.customSource ? 1 : 0
        r.stopped_by_app = st.stoppedByApp ? 1 : 0
        r.preview_count = UInt32(st.previewCount)
        withUnsafeMutableBytes(of: &r.device_id) { raw in
            let bytes = Array((st.device?.id ?? "").utf8.prefix(raw.count - 1))
            for (i, b) in bytes.enumerated() { raw[i] = b }
            raw[bytes.count] = 0
        }
        if let f = st.format { r.format = cCaptureFormat(f) }
        r.adjusted = st.adjustments.rawValue
        // An older caller's struct ends sooner: write only what it has.
        r.struct_size = size
        Versioned.sessionState.write(r, to: out, size: size)
    }
}

@_cdecl("camcore_session_start")
public func cabi_session_start(_ s: OpaquePointer?, _ c: UnsafePointer<camcore_capture_config>?,
                               _ done: camcore_completion_fn?, _ ud: UnsafeMutableRawPointer?) -> Int32 {
    let fn = "camcore_session_start"
    return call(s, fn) { v throws(CamError) in v.start(try request(c, fn), completion: completion(done, ud)) }
}

@_cdecl("camcore_session_stop")
public func cabi_session_stop(_ s: OpaquePointer?, _ done: camcore_completion_fn?, _ ud: UnsafeMutableRawPointer?) -> Int32 {
    call(s, "camcore_session_stop") { v in v.stop(completion: completion(done, ud)) }
}

@_cdecl("camcore_session_restart")
public func cabi_session_restart(_ s: OpaquePointer?, _ done: camcore_completion_fn?, _ ud: UnsafeMutableRawPointer?) -> Int32 {
    call(s, "camcore_session_restart") { v in v.restart(completion: completion(done, ud)) }
}

@_cdecl("camcore_session_change")
public func cabi_session_change(_ s: OpaquePointer?, _ c: UnsafePointer<camcore_capture_config>?,
                                _ done: camcore_completion_fn?, _ ud: UnsafeMutableRawPointer?) -> Int32 {
    let fn = "camcore_session_change"
    return call(s, fn) { v throws(CamError) in v.change(try request(c, fn), completion: completion(done, ud)) }
}

@_cdecl("camcore_session_select")
public func cabi_session_select(_ s: OpaquePointer?, _ id: UnsafePointer<CChar>?,
                                _ done: camcore_completion_fn?, _ ud: UnsafeMutableRawPointer?) -> Int32 {
    let fn = "camcore_session_select"
    guard let id else { return invalid("\(fn): device_id is NULL") }
    let deviceID = String(cString: id)
    return call(s, fn) { v in v.select(deviceID: deviceID, completion: completion(done, ud)) }
}

@_cdecl("camcore_session_flip")
public func cabi_session_flip(_ s: OpaquePointer?, _ done: camcore_completion_fn?, _ ud: UnsafeMutableRawPointer?) -> Int32 {
    call(s, "camcore_session_flip") { v in v.flip(completion: completion(done, ud)) }
}

@_cdecl("camcore_session_set_preference")
public func cabi_session_set_preference(_ s: OpaquePointer?, _ p: UnsafePointer<camcore_preference>?,
                                        _ done: camcore_completion_fn?, _ ud: UnsafeMutableRawPointer?) -> Int32 {
    let fn = "camcore_session_set_preference"
    guard let p else { return invalid("\(fn): preference is NULL") }
    return call(s, fn) { v throws(CamError) in v.setPreference(try preference(p, fn), completion: completion(done, ud)) }
}

@_cdecl("camcore_session_set_capture_hook")
public func cabi_session_set_capture_hook(_ s: OpaquePointer?, _ hook: UnsafePointer<camcore_capture_hook>?) -> Int32 {
    let fn = "camcore_session_set_capture_hook"
    var h: ((Frame) -> HookResult)?
    if let hook {
        let hk: camcore_capture_hook
        do { hk = try Versioned.captureHook.read(hook, over: camcore_capture_hook(), fn, "hook") } catch { return fail(error) }
        if let onCapture = hk.on_capture {
            let ud = hk.user_data
            h = { frame in
                var replacement = camcore_frame()
                replacement.struct_size = UInt32(MemoryLayout<camcore_frame>.size)
                let r = FrameBox.withBorrowed(frame) { onCapture(ud, $0, &replacement) }
                switch r {
                case Int32(CAMCORE_HOOK_DROP): return .drop
                case Int32(CAMCORE_HOOK_REPLACE):
                    // A replacement that does not fit its format drops the
                    // frame (never the camera's frame in its place: the hook
                    // may be hiding it); why is the capture thread's last error.
                    do throws(CamError) {
                        return .replace(try FrameBox.frame(from: replacement, "camcore_capture_hook: replacement"))
                    } catch {
                        LastError.set(error.message)
                        return .drop
                    }
                default: return .pass
                }
            }
        }
    }
    return call(s, fn) { v in v.setCaptureHook(h) }
}

@_cdecl("camcore_session_set_custom_source")
public func cabi_session_set_custom_source(_ s: OpaquePointer?, _ active: Int32) -> Int32 {
    call(s, "camcore_session_set_custom_source") { v throws(CamError) in try v.setCustomSource(active != 0) }
}

@_cdecl("camcore_session_push_frame")
public func cabi_session_push_frame(_ s: OpaquePointer?, _ frame: UnsafePointer<camcore_frame>?) -> Int32 {
    let fn = "camcore_session_push_frame"
    guard let frame else { return invalid("\(fn): frame is NULL") }
    return call(s, fn) { v throws(CamError) in
        // Reads sizeof(camcore_frame) at most (less for a short struct_size: refused).
        let c = try Versioned.frame.read(frame, over: camcore_frame(), fn, "frame")
        try v.pushFrame(try FrameBox.frame(from: c, fn))
    }
}

@_cdecl("camcore_session_set_device_callbacks")
public func cabi_session_set_device_callbacks(_ s: OpaquePointer?, _ cb: UnsafePointer<camcore_device_callbacks>?) -> Int32 {
    let fn = "camcore_session_set_device_callbacks"
    var handler: ((SessionEvent) -> Void)?
    if let cb {
        let c: camcore_device_callbacks
        do { c = try Versioned.deviceCallbacks.read(cb, over: camcore_device_callbacks(), fn, "callbacks") } catch {
            return fail(error)
        }
        handler = { event in
            let withDevice = withCDevice
            switch event {
            case .connected(let d): if let f = c.on_connected { withDevice(d) { f(c.user_data, $0) } }
            case .disconnected(let d): if let f = c.on_disconnected { withDevice(d) { f(c.user_data, $0) } }
            case .selected(let d, let fmt):
                if let f = c.on_selected {
                    var cf = cCaptureFormat(fmt)
                    withDevice(d) { f(c.user_data, $0, &cf) }
                }
            case .captureFailed(let d, let e):
                if let f = c.on_error { withDevice(d) { dev in e.message.withCString { f(c.user_data, dev, e.status, $0) } } }
            case .stall(let d, let stalled, let since):
                if let f = c.on_stall { withDevice(d) { f(c.user_data, $0, stalled ? 1 : 0, since) } }
            case .restart(let d, let restarted, let attempt):
                if let f = c.on_restart { withDevice(d) { f(c.user_data, $0, restarted ? 1 : 0, UInt32(attempt)) } }
            }
        }
    }
    return call(s, fn) { v in v.setEventHandler(handler) }
}
