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
///
/// A capturer closed while the app may wait on its frame fd is kept as
/// *closed* (`keepClosed`): its object, and so the fd, stays alive and
/// readable until the first call on the handle, which returns
/// CAMCORE_E_STATE "closed" and forgets it (so does a second close, and
/// the manager's free). This is what lets an epoll or asyncio waiter learn
/// of the close (an epoll set forgets an fd the moment it is closed). At
/// most `closedKept` such handles are kept; the oldest is forgotten then.
final class Handles: @unchecked Sendable {
    static let shared = Handles()

    private struct Entry {
        let object: AnyObject
        /// The key of the manager it was made from; 0 for none.
        let parent: UInt
        /// Closed by its manager's free: only free/close are accepted.
        var retired = false
        /// Closed by the app, kept for a waiter (`keepClosed`).
        var closed = false
    }
    /// Handle key -> entry. The objects boxed are camcore's own
    /// thread-safe classes (Manager, Capturer, sessions, boxes).
    private struct Live: @unchecked Sendable {
        var map: [UInt: Entry] = [:]
        /// The next key's counter; keys are next << 4 (aligned-looking,
        /// never 0, 2^60 of them before a repeat).
        var next: UInt = 1
        /// Keys of the handles kept as closed, oldest first.
        var closedKeys: [UInt] = []
    }
    private let live = Mutex(Live())
    static let closedKept = 16
    /// What `lookup` found behind a handle.
    private enum Found { case live(AnyObject), retired, closed(AnyObject), unknown }

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
            guard let e = d.map[Handles.key(handle)], !e.retired, !e.closed else { return nil }
            return e.object as? T
        }
    }

    /// The live object behind `handle`, or nil with the thread's last
    /// error set: CAMCORE_E_INVALID_ARG for a NULL, freed or foreign
    /// handle, CAMCORE_E_STATE for one its manager's free closed.
    /// `LastError.status` is then the status to return.
    func lookup<T: AnyObject>(_ handle: OpaquePointer?, as: T.Type, _ fn: String, _ noun: String) -> T? {
        let found: Found = live.withLock { d in
            guard let handle, let e = d.map[Handles.key(handle)], let o = e.object as? T else { return .unknown }
            if e.closed {
                // The waiter learns of the close; the handle is forgotten
                // (its object released below, outside the lock).
                let key = Handles.key(handle)
                d.map.removeValue(forKey: key)
                d.closedKeys.removeAll { $0 == key }
                return .closed(o)
            }
            return e.retired ? .retired : .live(o)
        }
        switch found {
        case .live(let o):
            return o as? T
        case .retired:
            _ = fail(.state("\(fn): the \(noun) was closed by camcore_manager_free; only its own free/close is accepted"))
        case .closed:
            _ = fail(.state("\(fn): the \(noun) is closed (camcore_\(noun)_close); this handle is now forgotten"))
        case .unknown:
            _ = invalid("\(fn): \(noun) is NULL or not a live \(noun)")
        }
        return nil
    }

    /// Keeps the live `handle` known as closed (see the type's doc) instead
    /// of forgetting it; returns the object of the oldest closed handle
    /// forgotten to make room (to be released by the caller, outside this
    /// lock), if any.
    func keepClosed(_ handle: OpaquePointer?) -> AnyObject? {
        guard let handle else { return nil }
        let key = Handles.key(handle)
        return live.withLock { d -> AnyObject? in
            guard d.map[key] != nil, d.map[key]?.closed == false else { return nil }
            d.map[key]?.closed = true
            d.closedKeys.append(key)
            guard d.closedKeys.count > Handles.closedKept else { return nil }
            return d.map.removeValue(forKey: d.closedKeys.removeFirst())?.object
        }
    }

    /// Forgets `handle`, live or retired; returns its object (the last
    /// strong reference once the caller drops it), or nil when it was not known.
    func remove<T: AnyObject>(_ handle: OpaquePointer?, as: T.Type) -> T? {
        guard let handle else { return nil }
        let key = Handles.key(handle)
        return live.withLock { d -> T? in
            guard d.map[key]?.object is T else { return nil }
            if d.map[key]?.closed == true { d.closedKeys.removeAll { $0 == key } }
            return d.map.removeValue(forKey: key)?.object as? T
        }
    }

    /// The objects made from the manager `handle` that are still live,
    /// without changing anything (for the would-deadlock check).
    func children(of handle: OpaquePointer) -> [AnyObject] {
        let key = Handles.key(handle)
        return live.withLock { d in d.map.values.filter { $0.parent == key && !$0.retired && !$0.closed }.map(\.object) }
    }

    /// Forgets the manager `handle` and retires every handle made from
    /// it, in one step (closed ones are forgotten); returns the manager's
    /// object, the live children's (to be closed by the caller, outside
    /// this lock) and the forgotten ones' (to be released there), or nil
    /// when `handle` was not a live `T`.
    func removeRetiringChildren<T: AnyObject>(_ handle: OpaquePointer?, as: T.Type)
        -> (T, children: [AnyObject], forgotten: [AnyObject])? {
        guard let handle else { return nil }
        let key = Handles.key(handle)
        return live.withLock { d -> (T, children: [AnyObject], forgotten: [AnyObject])? in
            guard let parent = d.map[key]?.object as? T else { return nil }
            d.map.removeValue(forKey: key)
            var children: [AnyObject] = [], forgotten: [AnyObject] = []
            for (k, e) in d.map where e.parent == key && !e.retired {
                if e.closed {
                    d.map.removeValue(forKey: k)
                    d.closedKeys.removeAll { $0 == k }
                    forgotten.append(e.object)
                } else {
                    d.map[k]?.retired = true
                    children.append(e.object)
                }
            }
            return (parent, children, forgotten)
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
