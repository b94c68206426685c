// The C ABI of camcore.h's "Frames" section: @_cdecl exports only.
// Each body checks its arguments, makes one call into CamCore and maps
// any error to a status; no Swift error or trap crosses the boundary.
public import CCamCore  // the header's types are this module's API (the @_cdecl signatures)
import CamCore
#if canImport(Glibc)
import Glibc
#endif

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
