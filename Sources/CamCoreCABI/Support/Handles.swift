public import CCamCore  // the header's types are this module's API (the @_cdecl signatures)
import CamCore
import Synchronization

/// Boxes Swift objects as opaque C handles and remembers which handles
/// are alive, so a NULL, freed or foreign handle gives
/// CAMCORE_E_INVALID_ARG instead of a crash (SPEC S31).
final class Handles: @unchecked Sendable {
    static let shared = Handles()
    /// Handle address -> object. The objects boxed are camcore's own
    /// thread-safe classes (Manager, Capturer, sessions, boxes).
    private struct Live: @unchecked Sendable { var map: [UInt: AnyObject] = [:] }
    private let live = Mutex(Live())

    func add(_ object: AnyObject) -> OpaquePointer {
        let p = OpaquePointer(Unmanaged.passUnretained(object).toOpaque())
        live.withLock { $0.map[UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(p)))] = object }
        return p
    }

    /// The live object behind `handle`, as a strong reference, or nil.
    func get<T: AnyObject>(_ handle: OpaquePointer?, as: T.Type) -> T? {
        guard let handle else { return nil }
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))
        return live.withLock { $0.map[key] as? T }
    }

    /// Forgets `handle`; returns its object (the last strong reference
    /// once the caller drops it), or nil when it was not live.
    func remove<T: AnyObject>(_ handle: OpaquePointer?, as: T.Type) -> T? {
        guard let handle else { return nil }
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))
        return live.withLock { d -> T? in
            guard d.map[key] is T else { return nil }
            return d.map.removeValue(forKey: key) as? T
        }
    }
}

/// The live manager behind a handle; nil (with the thread's last error
/// set) for a NULL, freed or foreign one. Shared by every section's exports.
func managerBox(_ m: OpaquePointer?, _ fn: String) -> ManagerBox? {
    guard let box = Handles.shared.get(m, as: ManagerBox.self) else {
        LastError.set("\(fn): manager is NULL or not a live manager")
        return nil
    }
    return box
}

// The app's callback tables are called on camcore's threads by contract
// (camcore.h says which thread each callback runs on, and the app's
// user_data is the app's to make safe there), so they cross threads.
extension camcore_hotplug_callbacks: @retroactive @unchecked Sendable {}
extension camcore_frame_callbacks: @retroactive @unchecked Sendable {}
extension camcore_device_callbacks: @retroactive @unchecked Sendable {}
extension camcore_control_callbacks: @retroactive @unchecked Sendable {}
