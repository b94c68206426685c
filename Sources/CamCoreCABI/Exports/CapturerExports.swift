// SPDX-License-Identifier: MIT
// The C ABI of camcore.h's "Capturer" section: @_cdecl exports only.
// Each body checks its arguments, makes one call into CamCore and maps
// any error to a status; no Swift error or trap crosses the boundary.
public import CCamCore  // the header's types are this module's API (the @_cdecl signatures)
import CamCore

@_cdecl("camcore_frame_callbacks_init")
public func cabi_frame_callbacks_init(_ cb: UnsafeMutablePointer<camcore_frame_callbacks>?) {
    cb?.pointee = camcore_frame_callbacks(
        struct_size: UInt32(MemoryLayout<camcore_frame_callbacks>.size), user_data: nil, on_frame: nil, on_error: nil,
        on_stall: nil, on_restart: nil)
}

@_cdecl("camcore_capture_config_init")
public func cabi_capture_config_init(_ c: UnsafeMutablePointer<camcore_capture_config>?) {
    c?.pointee = camcore_capture_config(
        struct_size: UInt32(MemoryLayout<camcore_capture_config>.size), fourcc: FourCC.yuyv.rawValue,
        width: 640, height: 480, fps: camcore_fraction(numerator: 30, denominator: 1), buffer_count: 4,
        output_fourcc: 0, dmabuf: 0, output_width: 0, output_height: 0, stall_restart_ms: 3000,
        stall_restart_tries: 3, output_rotation: 0)
}

/// The live capturer behind a handle; nil with the thread's last error
/// and status set (Handles.lookup: INVALID_ARG, or STATE once its
/// manager's free closed it).
private func capturerBox(_ c: OpaquePointer?, _ fn: String) -> CapturerBox? {
    Handles.shared.lookup(c, as: CapturerBox.self, fn, "capturer")
}

@_cdecl("camcore_capturer_open")
public func cabi_capturer_open(_ manager: OpaquePointer?, _ deviceID: UnsafePointer<CChar>?,
                               _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return invalid("camcore_capturer_open: out is NULL") }
    out.pointee = nil
    guard let box = managerBox(manager, "camcore_capturer_open") else { return LastError.status }
    guard let deviceID else { return invalid("camcore_capturer_open: device_id is NULL") }
    do {
        let capturer = try box.manager.open(deviceID: String(cString: deviceID))
        out.pointee = Handles.shared.add(CapturerBox(capturer), parent: manager)
        return 0
    } catch {
        return fail(error)
    }
}

@_cdecl("camcore_capturer_close")
public func cabi_capturer_close(_ capturer: OpaquePointer?) {
    guard let box = Handles.shared.get(capturer, as: CapturerBox.self) else {
        // Retired (its manager's free closed it): only the handle is left.
        _ = Handles.shared.remove(capturer, as: CapturerBox.self)
        return
    }
    // Never fails: from inside the capturer's own callback the teardown
    // finishes on a library thread once that callback returned.
    box.capturer.close()
    // A frame fd handed out may have a waiter (epoll, asyncio) that
    // must see it readable before it is closed: keep the handle as
    // closed until the next call on it (Handles.keepClosed).
    if box.capturer.pullQueue?.fdHandedOut == true {
        _ = Handles.shared.keepClosed(capturer)
    } else {
        _ = Handles.shared.remove(capturer, as: CapturerBox.self)
    }
}

@_cdecl("camcore_capturer_start")
public func cabi_capturer_start(_ capturer: OpaquePointer?, _ config: UnsafePointer<camcore_capture_config>?,
                                _ callbacks: UnsafePointer<camcore_frame_callbacks>?) -> Int32 {
    guard let box = capturerBox(capturer, "camcore_capturer_start") else { return LastError.status }
    let fn = "camcore_capturer_start"
    var c = camcore_capture_config()
    cabi_capture_config_init(&c)
    var cb = camcore_frame_callbacks()
    do {
        if let config { c = try Versioned.captureConfig.read(config, over: c, fn, "config") }
        if let callbacks { cb = try Versioned.frameCallbacks.read(callbacks, over: cb, fn, "callbacks") }
    } catch {
        return fail(error)
    }
    let request: CaptureRequest
    do { request = try captureRequest(c, fn) } catch { return fail(error) }
    let userData = cb.user_data
    let onFrame = cb.on_frame, onError = cb.on_error, onStall = cb.on_stall, onRestart = cb.on_restart
    let arena = FrameBoxes.borrowed
    do {
        try box.capturer.start(request, onFrame: { frame in
            guard let onFrame else { return }
            FrameBox.withBorrowed(frame, in: arena) { onFrame(userData, $0) }
        }, onError: { error in
            guard let onError else { return }
            error.message.withCString { onError(userData, error.status, $0) }
        }, onStall: onStall.map { f in { stalled, since in f(userData, stalled ? 1 : 0, since) } },
        onRestart: onRestart.map { f in { restarted, attempt in f(userData, restarted ? 1 : 0, UInt32(attempt)) } })
        return 0
    } catch {
        return fail(namingDmabufEnvironment(error, c, request))
    }
}

@_cdecl("camcore_capturer_stop")
public func cabi_capturer_stop(_ capturer: OpaquePointer?) -> Int32 {
    guard let box = capturerBox(capturer, "camcore_capturer_stop") else { return LastError.status }
    do {
        try box.capturer.stop()
        return 0
    } catch {
        return fail(error)
    }
}

@_cdecl("camcore_capturer_is_streaming")
public func cabi_capturer_is_streaming(_ capturer: OpaquePointer?) -> Int32 {
    guard let box = capturerBox(capturer, "camcore_capturer_is_streaming") else { return 0 }
    return box.capturer.isStreaming ? 1 : 0
}

@_cdecl("camcore_capturer_get_format")
public func cabi_capturer_get_format(_ capturer: OpaquePointer?, _ out: UnsafeMutablePointer<camcore_capture_format>?) -> Int32 {
    guard let box = capturerBox(capturer, "camcore_capturer_get_format") else { return LastError.status }
    guard let out else { return invalid("camcore_capturer_get_format: out is NULL") }
    let size: UInt32
    do { size = try Versioned.captureFormat.outSize(out, "camcore_capturer_get_format") } catch { return fail(error) }
    guard let f = box.capturer.format else { return fail(.state("the capturer was never started")) }
    var r = cCaptureFormat(f)
    r.struct_size = size
    Versioned.captureFormat.write(r, to: out, size: size)
    return 0
}

@_cdecl("camcore_capturer_get_stats")
public func cabi_capturer_get_stats(_ capturer: OpaquePointer?, _ out: UnsafeMutablePointer<camcore_capture_stats>?) -> Int32 {
    guard let box = capturerBox(capturer, "camcore_capturer_get_stats") else { return LastError.status }
    guard let out else { return invalid("camcore_capturer_get_stats: out is NULL") }
    let size: UInt32
    do { size = try Versioned.captureStats.outSize(out, "camcore_capturer_get_stats") } catch { return fail(error) }
    let s = box.capturer.stats
    Versioned.captureStats.write(camcore_capture_stats(struct_size: size, frames_delivered: s.delivered,
                                          frames_dropped: s.dropped, frames_corrupted: s.corrupted,
                                          measured_fps: s.measuredFPS, stalls: s.stalls, restarts: s.restarts),
                                    to: out, size: size)
    return 0
}

@_cdecl("camcore_capturer_get_frame_note")
public func cabi_capturer_get_frame_note(_ capturer: OpaquePointer?, _ buffer: UnsafeMutablePointer<CChar>?,
                                         _ size: Int) -> Int32 {
    let fn = "camcore_capturer_get_frame_note"
    guard let box = capturerBox(capturer, fn) else { return LastError.status }
    guard buffer != nil || size == 0 else { return invalid("\(fn): buffer is NULL with size \(size)") }
    return writeText(box.capturer.frameNote ?? "", to: buffer, size: size)
}

/// snprintf-style text out (the note getters): the text cut to `size` - 1
/// bytes and NUL-terminated, its full length returned.
func writeText(_ text: String, to buffer: UnsafeMutablePointer<CChar>?, size: Int) -> Int32 {
    // size_t above Int.max arrives negative: as good as unlimited.
    let room = size < 0 ? Int.max : size
    let bytes = Array(text.utf8.prefix(Int(Int32.max)))
    if let buffer, room > 0 {
        let n = min(bytes.count, room - 1)
        bytes.withUnsafeBufferPointer { b in
            if let src = b.baseAddress, n > 0 { UnsafeMutableRawPointer(buffer).copyMemory(from: src, byteCount: n) }
        }
        buffer[n] = 0
    }
    return Int32(bytes.count)
}

@_cdecl("camcore_capturer_fd")
public func cabi_capturer_fd(_ capturer: OpaquePointer?) -> Int32 {
    guard let box = capturerBox(capturer, "camcore_capturer_fd") else { return LastError.status }
    guard let fd = box.capturer.fileDescriptor else {
        return fail(.notSupported("\(box.capturer.device.name) has no file descriptor"))
    }
    return fd
}

@_cdecl("camcore_capturer_device_id")
public func cabi_capturer_device_id(_ capturer: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = capturerBox(capturer, "camcore_capturer_device_id") else { return nil }
    return UnsafePointer(box.deviceID)
}

@_cdecl("camcore_capturer_start_pull")
public func cabi_capturer_start_pull(_ capturer: OpaquePointer?, _ config: UnsafePointer<camcore_capture_config>?,
                                     _ depth: UInt32) -> Int32 {
    let fn = "camcore_capturer_start_pull"
    guard let box = capturerBox(capturer, fn) else { return LastError.status }
    var c = camcore_capture_config()
    cabi_capture_config_init(&c)
    do throws(CamError) {
        if let config { c = try Versioned.captureConfig.read(config, over: c, fn, "config") }
        let request = try captureRequest(c, fn)
        guard FramePuller.depths.contains(Int(depth)) else {
            throw .invalidArgument("\(fn): queue_depth \(depth) is out of range (\(FramePuller.depths.lowerBound)...\(FramePuller.depths.upperBound))")
        }
        do { try box.capturer.startPull(request, depth: Int(depth)) } catch {
            throw namingDmabufEnvironment(error, c, request)
        }
        return 0
    } catch {
        return fail(error)
    }
}

@_cdecl("camcore_capturer_acquire_frame")
public func cabi_capturer_acquire_frame(_ capturer: OpaquePointer?, _ timeoutMs: Int32,
                                        _ frame: UnsafeMutablePointer<UnsafePointer<camcore_frame>?>?) -> Int32 {
    let fn = "camcore_capturer_acquire_frame"
    guard let frame else { return invalid("\(fn): frame is NULL") }
    frame.pointee = nil
    return acquireInto(frame, capturer, timeoutMs, fn)
}

/// acquire_frame's and next_frame's common part: the next pulled frame
/// into `frame` (left NULL on failure) as a retained frame box.
private func acquireInto(_ frame: UnsafeMutablePointer<UnsafePointer<camcore_frame>?>, _ capturer: OpaquePointer?,
                         _ timeoutMs: Int32, _ fn: String) -> Int32 {
    guard let box = capturerBox(capturer, fn) else { return LastError.status }
    do {
        let got = try box.capturer.acquire(timeoutMs: timeoutMs)
        guard let out = FrameBox.retainedBox(for: got) else {
            return fail(.noMemory("\(fn): too many retained frames; release some"))
        }
        frame.pointee = out
        return 0
    } catch {
        return fail(error)
    }
}

@_cdecl("camcore_capturer_next_frame")
public func cabi_capturer_next_frame(_ capturer: OpaquePointer?, _ timeoutMs: Int32,
                                     _ frame: UnsafeMutablePointer<UnsafePointer<camcore_frame>?>?) -> Int32 {
    let fn = "camcore_capturer_next_frame"
    guard let frame else { return invalid("\(fn): frame is NULL") }
    if let refused = releasePassedIn(frame, fn) { return refused }
    return acquireInto(frame, capturer, timeoutMs, fn)
}

@_cdecl("camcore_capturer_get_frame_fd")
public func cabi_capturer_get_frame_fd(_ capturer: OpaquePointer?, _ fd: UnsafeMutablePointer<Int32>?) -> Int32 {
    let fn = "camcore_capturer_get_frame_fd"
    guard let fd else { return invalid("\(fn): fd is NULL") }
    guard let box = capturerBox(capturer, fn) else { return LastError.status }
    do {
        guard let f = try box.capturer.frameFD() else {
            return fail(.state("\(fn): the capturer is closed (camcore_capturer_close)"))
        }
        fd.pointee = f
    } catch CamError.state {
        return fail(.state("\(fn): the capturer is not started in pull mode (camcore_capturer_start_pull)"))
    } catch {
        return fail(error)
    }
    return 0
}
