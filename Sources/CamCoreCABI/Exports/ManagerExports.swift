// SPDX-License-Identifier: MIT
// The C ABI of camcore.h's "Manager" section: @_cdecl exports only.
// Each body checks its arguments, makes one call into CamCore and maps
// any error to a status; no Swift error or trap crosses the boundary.
public import CCamCore  // the header's types are this module's API (the @_cdecl signatures)
import CamCore

@_cdecl("camcore_manager_config_init")
public func cabi_manager_config_init(_ config: UnsafeMutablePointer<camcore_manager_config>?) {
    config?.pointee = camcore_manager_config(
        struct_size: UInt32(MemoryLayout<camcore_manager_config>.size), include_synthetic: 0, backend: 0,
        pipewire_fd: -1, portal: 0, backend_names: nil)
}

@_cdecl("camcore_manager_new")
public func cabi_manager_new(_ config: UnsafePointer<camcore_manager_config>?,
                             _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return invalid("camcore_manager_new: out is NULL") }
    out.pointee = nil
    var c = ManagerConfig()
    if let config {
        do {
            var defaults = camcore_manager_config()
            cabi_manager_config_init(&defaults)
            let v = try Versioned.managerConfig.read(config, over: defaults, "camcore_manager_new", "config")
            guard (0...2).contains(v.include_synthetic) else {
                return invalid("camcore_manager_new: include_synthetic \(v.include_synthetic) is not 0, 1 or 2 (synthetic cameras)")
            }
            c.syntheticCount = Int(v.include_synthetic)
            let backends = BackendChoice.allCases  // declared in camcore_backend's order
            guard (0..<Int32(backends.count)).contains(v.backend) else {
                return invalid("camcore_manager_new: backend \(v.backend) is not a camcore_backend value")
            }
            c.backend = backends[Int(v.backend)]
            c.pipeWireFD = v.pipewire_fd
            let portals = PortalChoice.allCases  // declared in camcore_portal's order
            guard (0..<Int32(portals.count)).contains(v.portal) else {
                return invalid("camcore_manager_new: portal \(v.portal) is not a camcore_portal value")
            }
            c.portal = portals[Int(v.portal)]
            if let names = v.backend_names {
                switch try BackendSet.parse(String(cString: names), what: "camcore_manager_new: backend_names ") {
                case .set(let s): c.backends = s
                case .choice(let ch): c.backend = ch
                }
            }
        } catch {
            return fail(error)
        }
    }
    do {
        out.pointee = Handles.shared.add(ManagerBox(try Manager(config: c)))
    } catch {
        return fail(error.prefixed("camcore_manager_new"))
    }
    // The frame boxes' first chunk, zeroed now rather than at the first frame.
    _ = FrameBoxes.borrowed
    return 0
}

@_cdecl("camcore_manager_free")
public func cabi_manager_free(_ manager: OpaquePointer?) {
    guard let manager, let box = Handles.shared.get(manager, as: ManagerBox.self) else { return }
    // Everything made from the manager is stopped here, which waits for
    // its callbacks: from inside one of them that would wait for itself.
    let inside = box.manager.isInsideCallback || Handles.shared.children(of: manager).contains { child in
        switch child {
        case let c as CapturerBox: return c.capturer.isInsideCallback
        case let s as SessionBox: return s.session.isInsideCallback
        default: return false
        }
    }
    if inside {
        // Never fails: everything made from the manager is muted now (no
        // callback starts), and the free itself runs on a library thread,
        // where it waits for the running callback to return.
        box.mute()
        for child in Handles.shared.children(of: manager) {
            switch child {
            case let s as SessionBox: s.session.close()
            case let c as CapturerBox: c.capturer.close()
            default: break
            }
        }
        // With no thread to be had everything stays muted until exit.
        let handle = UInt(bitPattern: manager)
        runDetached { cabi_manager_free(OpaquePointer(bitPattern: handle)) }
        return
    }
    guard let (m, children, forgotten) = Handles.shared.removeRetiringChildren(manager, as: ManagerBox.self) else { return }
    _ = forgotten   // closed capturers kept for a waiter: released (their frame fd closed) here
    _ = m.setHotplug(nil)  // waits for a running hot-plug callback
    for child in children {
        switch child {
        case let s as SessionBox: s.session.close()
        case let c as CapturerBox: c.capturer.close()
        default: break
        }
    }
}
