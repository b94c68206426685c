// SPDX-License-Identifier: MIT
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The capture buffers of one streaming session and who holds them
/// (SPEC S23). A buffer that the app retains is not handed back to the
/// driver (or reused) until every retain is released; the pool itself
/// lives as long as any frame refers to it, so a retained frame stays
/// valid after the capture stopped. Subclasses own the memory.
class BufferPool: @unchecked Sendable {
    private struct State {
        var retains: [Int]
        /// The buffer was out with the app when its callback returned.
        var held: [Bool]
        /// Released buffers waiting for the capture thread to requeue them.
        var pending: [Int] = []
        var streaming = true
    }
    private let state: Mutex<State>
    /// Some released buffer waits on the pending list (read per frame
    /// without the lock).
    private let pendingFlag = Atomic<Bool>(false)
    /// Retains not yet released, over all buffers (changed under the lock,
    /// read without it): 0 lets `finishDelivery` skip the lock.
    private let retainsOut = Atomic<Int>(0)
    /// The buffers are exported as DMA-BUF (S37); set once, before frames.
    var exportsDmabuf = false
    /// Wakes the capture thread to requeue released buffers; nil for pools
    /// whose buffers are simply reused once free (camcore's own memory).
    private let waker: Waker?

    init(count: Int, waker: Waker?) {
        state = Mutex(State(retains: Array(repeating: 0, count: count),
                            held: Array(repeating: false, count: count)))
        self.waker = waker
    }

    func retain(_ slot: Int) {
        state.withLock { s in
            s.retains[slot] += 1
            retainsOut.add(1, ordering: .releasing)
        }
    }

    /// Gives back one retain of `slot`. A buffer the app held goes on the
    /// pending list; the capture thread requeues it after its next frame,
    /// and is woken for it (an eventfd write and a thread switch) only when
    /// the driver is down to its last two queued buffers: an app that
    /// releases every frame (pull, S36) costs no wake-up per frame.
    func release(_ slot: Int) {
        let wake: Bool = state.withLock { s in
            guard s.retains[slot] > 0 else { return false }
            s.retains[slot] -= 1
            retainsOut.subtract(1, ordering: .releasing)
            guard s.retains[slot] == 0, s.held[slot] else { return false }
            s.held[slot] = false
            guard s.streaming, let _ = waker else { return false }
            s.pending.append(slot)
            pendingFlag.store(true, ordering: .releasing)
            var out = s.pending.count + 1   // + the one the capture thread may be delivering
            for h in s.held where h { out += 1 }
            return s.held.count - out <= 2
        }
        if wake { waker?.wake() }
    }

    /// Called by the capture thread after the callbacks: true when the
    /// buffer may go back to the driver now; false when the app holds it.
    /// A retain made during the callback (on any thread: a C frame is
    /// pinned while it is retained, and its callback ends only after) is
    /// seen by the load here, so "no retains anywhere" needs no lock.
    func finishDelivery(_ slot: Int) -> Bool {
        if retainsOut.load(ordering: .acquiring) == 0 { return true }
        return state.withLock { s in
            if s.retains[slot] > 0 { s.held[slot] = true; return false }
            return true
        }
    }

    /// True while the app holds the buffer.
    func isHeld(_ slot: Int) -> Bool { state.withLock { $0.held[slot] } }

    /// Buffers released since the last call, for the capture thread to requeue.
    func takePending() -> [Int] {
        state.withLock { s in
            pendingFlag.store(false, ordering: .relaxed)
            if s.pending.isEmpty { return [] }
            let p = s.pending
            s.pending.removeAll(keepingCapacity: true)
            return p
        }
    }

    /// Whether released buffers wait for `takePending` (one atomic load).
    var hasPending: Bool { pendingFlag.load(ordering: .acquiring) }

    /// Ends streaming: later releases only drop their hold.
    func finishStreaming() { state.withLock { $0.streaming = false; $0.pending.removeAll() } }

    /// Plane `plane` of buffer `slot` as a DMA-BUF fd and offset, for a
    /// plane starting at `base` (pools that export override it).
    func dmabuf(slot: Int, plane: Int, base: UnsafeMutableRawPointer?) -> (fd: Int32, offset: Int) { (-1, 0) }

    /// Number of buffers the app holds now.
    var heldCount: Int { state.withLock { $0.held.reduce(0) { $0 + ($1 ? 1 : 0) } } }
}
