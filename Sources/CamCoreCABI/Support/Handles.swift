// SPDX-License-Identifier: MIT
public import CCamCore  // the header's types are this module's API (the @_cdecl signatures)
import CamCore
import Synchronization

/// Boxes Swift objects as opaque C handles and remembers which handles
/// are alive, so a NULL, freed or foreign handle gives
/// CAMCORE_E_INVALID_ARG instead of a crash (SPEC S31).
///
/// A handle is a number from a counter that never repeats (not the
/// object's address): a freed handle stays unknown even when the
/// allocator reuses the object's memory for a new object (issue 12
/// item 3). A handle made from a manager (capturer, session) records
/// that manager; camcore_manager_free retires them: a retired handle is
/// still known, accepts only its own free/close, and every other call
/// returns CAMCORE_E_STATE (`lookup`).
final class Handles: @unchecked Sendable {
    static let shared = Handles()

    private struct Entry {
        let object: AnyObject
        /// The key of the manager it was made from; 0 for none.
        let parent: UInt
        /// Closed by its manager's free: only free/close are accepted.
        var retired = false
    }
    /// Handle key -> entry. The objects boxed are camcore's own
    /// thread-safe classes (Manager, Capturer, sessions, boxes).
    private struct Live: @unchecked Sendable {
        var map: [UInt: Entry] = [:]
        /// The next key's counter; keys are next << 4 (aligned-looking,
        /// never 0, 2^60 of them before a repeat).
        var next: UInt = 1
    }
    private let live = Mutex(Live())

    private static func key(_ h: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(h))) }

    /// A new handle for `object`, made from the manager `parent` (nil for none).
    func add(_ object: AnyObject, parent: OpaquePointer? = nil) -> OpaquePointer {
        live.withLock { d -> OpaquePointer in
            let k = d.next << 4
            d.next += 1
            d.map[k] = Entry(object: object, parent: parent.map(Handles.key) ?? 0)
            return OpaquePointer(bitPattern: k)!
        }
    }

    /// The live (not retired) object behind `handle`, as a strong reference, or nil.
    func get<T: AnyObject>(_ handle: OpaquePointer?, as: T.Type) -> T? {
        guard let handle else { return nil }
        return live.withLock { d -> T? in
            guard let e = d.map[Handles.key(handle)], !e.retired else { return nil }
            return e.object as? T
        }
    }

    /// The live object behind `handle`, or nil with the thread's last
    /// error set: CAMCORE_E_INVALID_ARG for a NULL, freed or foreign
    /// handle, CAMCORE_E_STATE for one its manager's free closed.
    /// `LastError.status` is then the status to return.
    func lookup<T: AnyObject>(_ handle: OpaquePointer?, as: T.Type, _ fn: String, _ noun: String) -> T? {
        let found: (T?, Bool) = live.withLock { d in
            guard let handle, let e = d.map[Handles.key(handle)], let o = e.object as? T else { return (nil, false) }
            return e.retired ? (nil, true) : (o, false)
        }
        if let o = found.0 { return o }
        if found.1 {
            _ = fail(.state("\(fn): the \(noun) was closed by camcore_manager_free; only its own free/close is accepted"))
        } else {
            _ = invalid("\(fn): \(noun) is NULL or not a live \(noun)")
        }
        return nil
    }

    /// Forgets `handle`, live or retired; returns its object (the last
    /// strong reference once the caller drops it), or nil when it was not known.
    func remove<T: AnyObject>(_ handle: OpaquePointer?, as: T.Type) -> T? {
        guard let handle else { return nil }
        let key = Handles.key(handle)
        return live.withLock { d -> T? in
            guard d.map[key]?.object is T else { return nil }
            return d.map.removeValue(forKey: key)?.object as? T
        }
    }

    /// The objects made from the manager `handle` that are still live,
    /// without changing anything (for the would-deadlock check).
    func children(of handle: OpaquePointer) -> [AnyObject] {
        let key = Handles.key(handle)
        return live.withLock { d in d.map.values.filter { $0.parent == key && !$0.retired }.map(\.object) }
    }

    /// Forgets the manager `handle` and retires every handle made from
    /// it, in one step; returns the manager's object and the children's
    /// (to be closed by the caller, outside this lock), or nil when
    /// `handle` was not a live `T`.
    func removeRetiringChildren<T: AnyObject>(_ handle: OpaquePointer?, as: T.Type) -> (T, [AnyObject])? {
        guard let handle else { return nil }
        let key = Handles.key(handle)
        return live.withLock { d -> (T, [AnyObject])? in
            guard let parent = d.map[key]?.object as? T else { return nil }
            d.map.removeValue(forKey: key)
            var children: [AnyObject] = []
            for (k, e) in d.map where e.parent == key && !e.retired {
                d.map[k]?.retired = true
                children.append(e.object)
            }
            return (parent, children)
        }
    }
}

/// The live manager behind a handle; nil (with the thread's last error
/// and status set) for a NULL, freed or foreign one. Shared by every
/// section's exports.
func managerBox(_ m: OpaquePointer?, _ fn: String) -> ManagerBox? {
    Handles.shared.lookup(m, as: ManagerBox.self, fn, "manager")
}

// The app's callback tables are called on camcore's threads by contract
// (camcore.h says which thread each callback runs on, and the app's
// user_data is the app's to make safe there), so they cross threads.
extension camcore_hotplug_callbacks: @retroactive @unchecked Sendable {}
extension camcore_frame_callbacks: @retroactive @unchecked Sendable {}
extension camcore_device_callbacks: @retroactive @unchecked Sendable {}
extension camcore_control_callbacks: @retroactive @unchecked Sendable {}
