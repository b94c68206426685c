import CCamCore
import CamCore
import Synchronization

/// Boxes Swift objects as opaque C handles and remembers which handles
/// are alive, so a NULL, freed or foreign handle gives
/// CAMCORE_E_INVALID_ARG instead of a crash (SPEC S31).
final class Handles: @unchecked Sendable {
    static let shared = Handles()
    private let live = Mutex<[UInt: AnyObject]>([:])

    func add(_ object: AnyObject) -> OpaquePointer {
        let p = OpaquePointer(Unmanaged.passUnretained(object).toOpaque())
        live.withLock { $0[UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(p)))] = object }
        return p
    }

    /// The live object behind `handle`, as a strong reference, or nil.
    func get<T: AnyObject>(_ handle: OpaquePointer?, as: T.Type) -> T? {
        guard let handle else { return nil }
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))
        return live.withLock { $0[key] as? T }
    }

    /// Forgets `handle`; returns its object (the last strong reference
    /// once the caller drops it), or nil when it was not live.
    func remove<T: AnyObject>(_ handle: OpaquePointer?, as: T.Type) -> T? {
        guard let handle else { return nil }
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))
        return live.withLock { d -> T? in
            guard d[key] is T else { return nil }
            return d.removeValue(forKey: key) as? T
        }
    }
}
