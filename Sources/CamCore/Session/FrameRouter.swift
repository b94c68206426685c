// SPDX-License-Identifier: MIT
import Synchronization

/// Who gets each frame (SPEC S14, S15, S20, S21): the capture hook, then
/// the transmission sink and every preview for a camera frame; the
/// transmission sink alone for a frame the app pushed.
///
/// The routes are read per frame on the capture thread (or the pushing
/// thread) and changed on the camera queue. A frame is handed on from a
/// snapshot of the routes taken under the routing lock, so app code never
/// runs under it, and no allocation is made per frame. Frames are handed on
/// one at a time (the delivery lock), marked as inside this router's
/// callbacks (CallbackMark): the session queues calls made from there.
/// After a route change returns, frames in flight have finished, so a
/// removed receiver is not called again.
final class FrameRouter: @unchecked Sendable {
    private struct Routes {
        var sink: FrameSink?
        var transmitCamera = false
        var transmitPushed = false
        var previews: [(id: UInt32, sink: FrameSink)] = []
        var hook: ((Frame) -> HookResult)?
    }

    // Touched only on the camera queue.
    private var previewSinks: [UInt32: FrameSink] = [:]
    // Read from other threads.
    private let routes = Mutex(Routes())
    /// Held while app code runs with frames (camera fan-out or a pushed
    /// frame), never while the routing lock is held: after a routing change
    /// the queue waits on it, so a replaced sink is not called afterwards.
    private let delivery = Mutex(())
    /// The session was closed from a callback: no receiver is called any
    /// more, also not the rest of a frame's fan-out in progress.
    private let muted = Atomic<Bool>(false)
    /// Preview ids, handed out on the caller's thread (also from callbacks).
    private let previewIDs = Atomic<UInt32>(1)

    /// Inside this router's frame delivery, on the calling thread.
    var isDelivering: Bool { CallbackMark.isInside(self) }

    // MARK: Changes (camera queue)

    /// A new preview id (any thread; ids are never reused).
    func nextPreviewID() -> UInt32 { previewIDs.wrappingAdd(1, ordering: .relaxed).oldValue }

    /// Previews added or queued to be added (any thread), for the cap.
    private let previewSlots = Atomic<Int>(0)

    /// Takes one of `limit` preview slots on the calling thread (also from
    /// a callback, where the addition itself is queued); false when all are
    /// taken. A slot is given back when its preview is removed.
    func reservePreview(limit: Int) -> Bool {
        var n = previewSlots.load(ordering: .relaxed)
        while n < limit {
            let (done, now) = previewSlots.compareExchange(expected: n, desired: n + 1, ordering: .relaxed)
            if done { return true }
            n = now
        }
        return false
    }

    /// Registers a preview (its slot reserved); it gets frames from the next `update`.
    func addPreview(_ id: UInt32, _ sink: @escaping FrameSink) { previewSinks[id] = sink }

    /// Unregisters a preview and frees its slot (false: no such id); it
    /// gets no frame after the next `update`.
    func removePreview(_ id: UInt32) -> Bool {
        guard previewSinks.removeValue(forKey: id) != nil else { return false }
        previewSlots.subtract(1, ordering: .relaxed)
        return true
    }

    /// The previews registered.
    var previewCount: Int { previewSinks.count }

    /// Publishes the previews and whether camera and pushed frames reach
    /// the transmission sink (the policy's say, S11–S13, S15, S21).
    func update(transmitCamera: Bool, transmitPushed: Bool) {
        reroute { r in
            r.transmitCamera = transmitCamera
            r.transmitPushed = transmitPushed
            r.previews = previewSinks.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
    }

    /// S15: the transmission sink; nil drops transmitted frames.
    func setSink(_ sink: FrameSink?) { reroute { $0.sink = sink } }

    /// S20: the capture hook; nil hands camera frames on unchanged.
    func setHook(_ hook: ((Frame) -> HookResult)?) { reroute { $0.hook = hook } }

    /// No receiver is called from now on, without waiting (any thread,
    /// also from inside a delivery): a close asked for from a callback.
    func mute() {
        muted.store(true, ordering: .releasing)
        routes.withLock { $0 = Routes() }
    }

    /// Drops every receiver and the hook (the session closes).
    func removeAll() {
        reroute { $0 = Routes() }
        previewSlots.subtract(previewSinks.count, ordering: .relaxed)
        previewSinks = [:]
    }

    /// Changes the routes, then waits for frames in flight to finish, so
    /// that a removed receiver is not called after this returns.
    private func reroute(_ change: (inout Routes) -> Void) {
        routes.withLock { change(&$0) }
        if !isDelivering { delivery.withLock { _ in } }
    }

    // MARK: Frames (capture thread, pushing thread)

    /// A camera frame: hook, transmission, previews (S14, S20).
    func deliver(_ frame: Frame) {
        delivering {
            let r = routes.withLock { $0 }
            var f = frame
            if let hook = r.hook {
                switch hook(f) {
                case .drop: return
                case .pass: break
                case .replace(let g): f = g
                }
            }
            if r.transmitCamera, let sink = r.sink, !muted.load(ordering: .acquiring) { sink(f) }
            for p in r.previews where !muted.load(ordering: .acquiring) { p.sink(f) }
        }
    }

    /// A frame the app pushed (S21): to the transmission sink when
    /// transmission takes pushed frames.
    func push(_ frame: Frame) {
        delivering {
            let r = routes.withLock { $0 }
            if r.transmitPushed, let sink = r.sink { sink(frame) }
        }
    }

    /// Runs `body` marked as inside this router's frame delivery (calls
    /// into the session from there are queued) with deliveries serialised.
    private func delivering(_ body: () -> Void) {
        if isDelivering { body(); return }
        CallbackMark.inside(self) { delivery.withLock { _ in body() } }
    }
}
