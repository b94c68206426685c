// SPDX-License-Identifier: MIT
// The C ABI of camcore.h's "Threads" section: @_cdecl exports only.
// Each body checks its arguments, makes one call into CamCore and maps
// any error to a status; no Swift error or trap crosses the boundary.
public import CCamCore  // the header's types are this module's API (the @_cdecl signatures)
import CamCore

@_cdecl("camcore_thread_hooks_init")
public func cabi_thread_hooks_init(_ hooks: UnsafeMutablePointer<camcore_thread_hooks>?) {
    hooks?.pointee = camcore_thread_hooks(
        struct_size: UInt32(MemoryLayout<camcore_thread_hooks>.size), user_data: nil,
        on_thread_start: nil, on_thread_stop: nil)
}

/// The app's hooks as closures: user_data travels as a bit pattern (the
/// app promises it outlives the threads).
@_cdecl("camcore_set_thread_hooks")
public func cabi_set_thread_hooks(_ hooks: UnsafePointer<camcore_thread_hooks>?) -> Int32 {
    guard let hooks else {
        ThreadHooks.install(nil)
        return 0
    }
    var h = camcore_thread_hooks()
    cabi_thread_hooks_init(&h)
    do { h = try Versioned.threadHooks.read(hooks, over: h, "camcore_set_thread_hooks", "hooks") } catch {
        return fail(error)
    }
    let data = UInt(bitPattern: h.user_data)
    let start = h.on_thread_start, stop = h.on_thread_stop
    if start == nil && stop == nil {
        ThreadHooks.install(nil)
        return 0
    }
    ThreadHooks.install(ThreadHooks(
        start: { name in start?(UnsafeMutableRawPointer(bitPattern: data), cString(name)) },
        stop: { name in stop?(UnsafeMutableRawPointer(bitPattern: data), cString(name)) }))
    return 0
}
