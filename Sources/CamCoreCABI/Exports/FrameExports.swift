// SPDX-License-Identifier: MIT
// The C ABI of camcore.h's "Frames" section: @_cdecl exports only.
// Each body checks its arguments, makes one call into CamCore and maps
// any error to a status; no Swift error or trap crosses the boundary.
// A frame pointer is looked up in FrameBoxes before anything is read
// through it (S31): stale, released, app-built and wild pointers are
// refused without touching memory camcore does not own.
public import CCamCore  // the header's types are this module's API (the @_cdecl signatures)
import CamCore
#if canImport(Glibc)
import Glibc
#endif

@_cdecl("camcore_frame_retain")
public func cabi_frame_retain(_ frame: UnsafePointer<camcore_frame>?) -> UnsafePointer<camcore_frame>? {
    let fn = "camcore_frame_retain"
    guard let frame else {
        LastError.set("\(fn): frame is NULL")
        return nil
    }
    let raw = UnsafeRawPointer(frame)
    guard let (arena, box, kind) = FrameBoxes.pin(raw) else {
        LastError.set(FrameBoxes.isBox(raw)
            ? "\(fn): a borrowed frame whose callback has returned, or a released frame; retain during the callback"
            : "\(fn): not a frame from camcore (a camcore_frame the app built itself cannot be retained)")
        return nil
    }
    // Pinned: the box stays live (and a borrowed frame's buffers stay
    // delivered) until unpin.
    let description = box.frame.pointee
    let retained: RetainedFrame?
    if kind == .borrowed {
        let current = box.side.load(as: UnsafeRawPointer.self).load(as: Frame.self)
        retained = current.isRetainable ? current.retain() : nil
    } else {
        retained = Unmanaged<RetainedFrame>.fromOpaque(box.side.load(as: UnsafeMutableRawPointer.self))
            .takeUnretainedValue()
    }
    arena.unpin(box)
    guard let retained else {
        LastError.set("\(fn): frames pushed by the app (custom source, hook replacement) cannot be retained; copy the pixels")
        return nil
    }
    guard let copy = FrameBoxes.retained.tryClaim() else {
        LastError.set("\(fn): too many retained frames; release some")
        return nil
    }
    copy.frame.pointee = description
    copy.side.storeBytes(of: Unmanaged.passRetained(retained).toOpaque(), as: UnsafeMutableRawPointer.self)
    FrameBoxes.retained.publish(copy, as: .retained)
    return UnsafePointer(copy.frame)
}

@_cdecl("camcore_frame_release")
public func cabi_frame_release(_ frame: UnsafePointer<camcore_frame>?) {
    guard let frame else { return }
    if let why = releaseRetained(frame, "camcore_frame_release") { LastError.set(why) }
}

/// The first half of a next-frame call (camcore_capturer_next_frame,
/// camcore_session_next_preview_frame): releases the frame at *frame, if
/// any, and clears it; nil when done, else the status of the refusal
/// (INVALID_ARG, nothing released, *frame left as it was).
func releasePassedIn(_ frame: UnsafeMutablePointer<UnsafePointer<camcore_frame>?>, _ fn: String) -> Int32? {
    guard let prev = frame.pointee else { return nil }
    if let why = releaseRetained(prev, fn) { return invalid("\(why); *frame must be NULL or a frame to release") }
    frame.pointee = nil
    return nil
}

/// Gives back the retained frame `frame` (camcore_frame_release); nil, or
/// why it is no retained frame of camcore's (nothing is touched then).
func releaseRetained(_ frame: UnsafePointer<camcore_frame>, _ fn: String) -> String? {
    let raw = UnsafeRawPointer(frame)
    let arena = FrameBoxes.retained
    guard let i = arena.index(of: raw) else {
        return FrameBoxes.isBox(raw)
            ? "\(fn): a borrowed frame, not a retained frame; release only what camcore_frame_retain returned"
            : "\(fn): not a frame from camcore"
    }
    let box = arena.box(i)
    guard arena.take(box, expecting: .retained) else {
        return "\(fn): not a retained frame (already released)"
    }
    let token = box.side.load(as: UnsafeMutableRawPointer.self)
    arena.free(box)
    Unmanaged<RetainedFrame>.fromOpaque(token).release()
    return nil
}

@_cdecl("camcore_frame_convert")
public func cabi_frame_convert(_ frame: UnsafePointer<camcore_frame>?, _ fourcc: UInt32, _ width: UInt32,
                               _ height: UInt32, _ buffer: UnsafeMutableRawPointer?, _ size: Int) -> Int32 {
    let fn = "camcore_frame_convert"
    guard let frame else { return invalid("\(fn): frame is NULL") }
    guard let buffer else { return invalid("\(fn): buffer is NULL") }
    guard (width == 0) == (height == 0) else {
        return invalid("\(fn): output size \(width)x\(height): give both sides, or 0x0 for the frame's own size")
    }
    // A camcore frame (borrowed or retained) is pinned while it is read, so
    // its buffer stays delivered; a stale box is refused unread. Anything
    // else is an app's frame, checked like camcore_session_push_frame's.
    let raw = UnsafeRawPointer(frame)
    var pinned: (FrameBoxes.Arena, FrameBoxes.Box)?
    if FrameBoxes.isBox(raw) {
        guard let (arena, box, _) = FrameBoxes.pin(raw) else {
            return invalid("\(fn): a borrowed frame whose callback has returned, or a released frame; convert it during the callback or retain it")
        }
        pinned = (arena, box)
    }
    defer { if let (arena, box) = pinned { arena.unpin(box) } }
    do {
        let c = try Versioned.frame.read(frame, over: camcore_frame(), fn, "frame")
        let f = try FrameBox.frame(from: c, fn)
        let w = width == 0 ? f.width : Int(width), h = height == 0 ? f.height : Int(height)
        do {
            _ = try f.convert(to: FourCC(rawValue: fourcc), width: w, height: h, into: buffer, capacity: max(size, 0))
        } catch {
            let status = fail(error)
            LastError.set("\(fn): \(error.message)")
            return status
        }
        return 0
    } catch {
        return fail(error)
    }
}
