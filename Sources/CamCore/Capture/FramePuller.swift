// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// The pull side of a capturer or a session preview (SPEC S36): frames
/// wait in a queue of at most `depth` for `acquire`; a full queue gives
/// up its oldest frame (counted as a drop), so a slow reader never stalls
/// the driver. The app gives each frame back by releasing the returned
/// object; at most `depth` frames may be out with it at once.
///
/// Who takes frames from the driver (a capturer's pull mode, `enablePump`):
/// while the reader keeps up, the reader's own `acquire` runs the frame
/// path (wait, dequeue, convert) on its thread, so a frame costs no
/// hand-over between threads. The capture thread stands by, and takes over
/// when the reader has not come for `takeOverNs` (the time in which the
/// driver would fill the buffers the reader leaves it): it then queues
/// frames as above (the oldest given up), and hands back to the reader
/// once a reader waits for a frame. A session preview has no pump: its
/// frames are always queued by the session's capture thread (`deliver`).
///
/// `readyFD` (an eventfd) is readable exactly while a frame is queued, for
/// an app's own poll/epoll/asyncio loop; it is only read by camcore. From
/// the first time it is asked for, the capture thread takes every frame
/// from the driver (a frame must be queued to make the fd readable); until
/// then a waiting `acquire` sleeps on a condition variable, so a frame
/// costs no eventfd write and read.
/// Safe from any thread.
package final class FramePuller: @unchecked Sendable {
    /// Queue depths accepted (frames kept ready).
    package static let depths = 1...8
    package let depth: Int

    /// Who runs the frame path of a pumped capture now.
    private enum Pumper { case none, reader, thread }
    /// One step of the frame path on the calling thread, waiting at most
    /// the given ms (< 0: the path's own wait); frames go to the closure,
    /// during the call. False when streaming ended (the capturer's onError
    /// has told `fail`).
    typealias PumpStep = (_ timeoutMs: Int32, _ onFrame: (Frame) -> Void) -> Bool

    // All state below is under `lock`.
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    /// Broadcast on every change a waiting reader or `stop` may wait for:
    /// a frame queued, the end, the stop, a pump given up.
    private let changed: UnsafeMutablePointer<pthread_cond_t>
    /// What the standing-by capture thread sleeps on (stop).
    private let standby: UnsafeMutablePointer<pthread_cond_t>
    private var queue: [RetainedFrame] = []
    private var held = 0
    private var ended: CamError?
    private var stopped = false
    /// Stopped by the capturer's close (acquire says "closed").
    private var closing = false
    /// readyFD was handed out: keep the eventfd in step with the queue.
    private var fdWanted = false
    private var pumper = Pumper.none
    /// Readers sleeping in `acquire` for a frame.
    private var readersWaiting = 0
    /// When a reader last ran the frame path (or the thread handed it back).
    private var lastReaderPumpNs: UInt64 = 0
    private var step: PumpStep?
    private var takeOverNs: UInt64 = 0

    private let ready: Waker
    /// Counts a frame given up by the queue (the capturer's stats).
    private let onDrop: @Sendable () -> Void

    /// `ready`: the eventfd to keep in step with the queue; a capturer
    /// passes the one it keeps for its whole life (the same frame fd across
    /// restarts, so a waiter on it is never left with a closed fd), and
    /// `fdHandedOut` when the app has it already. nil: one of its own.
    init(depth: Int, ready: Waker? = nil, fdHandedOut: Bool = false,
         onDrop: @escaping @Sendable () -> Void) throws(CamError) {
        guard FramePuller.depths.contains(depth) else {
            throw .invalidArgument("queue depth \(depth) is out of range (\(FramePuller.depths.lowerBound)...\(FramePuller.depths.upperBound))")
        }
        self.depth = depth
        self.onDrop = onDrop
        if let ready { self.ready = ready } else { self.ready = try Waker() }
        fdWanted = fdHandedOut
        lock = .allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        changed = .allocate(capacity: 1)
        pthread_cond_init(changed, &attr)
        standby = .allocate(capacity: 1)
        pthread_cond_init(standby, &attr)
        pthread_condattr_destroy(&attr)
        queue.reserveCapacity(depth)
    }

    deinit {
        pthread_cond_destroy(standby)
        standby.deallocate()
        pthread_cond_destroy(changed)
        changed.deallocate()
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    @inline(__always)
    private func locked<T>(_ body: () throws(CamError) -> T) throws(CamError) -> T {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body()
    }

    @inline(__always)
    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return body()
    }

    /// Sleeps on `cond` (lock held) until `endNs` (0: no limit); false on timeout.
    private func sleep(_ cond: UnsafeMutablePointer<pthread_cond_t>, until endNs: UInt64) -> Bool {
        if endNs == 0 { pthread_cond_wait(cond, lock); return true }
        var ts = timespec(tv_sec: Int(endNs / 1_000_000_000), tv_nsec: Int(endNs % 1_000_000_000))
        return pthread_cond_timedwait(cond, lock, &ts) != ETIMEDOUT
    }

    /// True once `readyFD` was asked for: the app may be waiting on it.
    /// Final once the puller is stopped for a close (`stop(closing:)`).
    package var fdHandedOut: Bool { locked { fdWanted } }

    /// The eventfd that is readable while a frame is ready (from now on).
    /// nil after a close when it was never handed out (a close that did not
    /// keep it open for a waiter: the caller says "closed").
    package var readyFD: Int32? {
        let ok: Bool = locked {
            if closing && !fdWanted { return false }
            if !fdWanted {
                fdWanted = true
                if !queue.isEmpty || ended != nil || stopped { ready.wake() }
                pthread_cond_signal(standby)   // the capture thread takes every frame from now on
            }
            return true
        }
        return ok ? ready.fd : nil
    }

    /// Buffers the driver needs so that `depth` queued plus `depth` held
    /// frames still leave it two to fill, and one more: while the reader
    /// runs the frame path, the capture thread's take-over window is the
    /// driver's spare buffers beyond those.
    func buffersNeeded(_ asked: Int) -> Int { min(32, max(asked, 2 * depth + 3)) }

    /// Lets readers run the frame path themselves (a capturer's pull mode):
    /// `step` runs it once; `takeOverNs` is how long a reader may stay away
    /// before the capture thread (`runCaptureThread`) queues frames instead.
    func enablePump(_ step: @escaping PumpStep, takeOverNs: UInt64) {
        locked {
            self.step = step
            self.takeOverNs = max(takeOverNs, 1_000_000)
            lastReaderPumpNs = monotonicNs()
        }
    }

    /// A frame from the capture thread (its callback).
    func deliver(_ frame: Frame) {
        // A frame in the app's own memory (a session's pushed frame) cannot
        // be kept past its delivery: not queued.
        guard frame.isRetainable else { return }
        let kept = frame.retain()
        var dropped: RetainedFrame?
        locked {
            guard !stopped else { dropped = kept; return }
            if queue.count >= depth { dropped = queue.removeFirst() }
            if queue.isEmpty {
                if fdWanted { ready.wake() }
                pthread_cond_broadcast(changed)
            }
            queue.append(kept)
        }
        if dropped != nil { onDrop() }
        dropped = nil  // released outside the lock
    }

    /// Streaming ended on its own (the capturer's onError): acquire reports it.
    func fail(_ error: CamError) {
        locked {
            ended = error
            ready.wake()
            pthread_cond_broadcast(changed)
            pthread_cond_signal(standby)
        }
    }

    /// The capture stops: queued frames are released, acquire refuses, no
    /// new pump starts; returns once a reader running the frame path left
    /// it (the caller woke its wait first, or does it right after — the
    /// wait ends within the path's own wait of at most 1 s).
    func stop(closing: Bool = false) {
        let gone: [RetainedFrame] = locked {
            stopped = true
            if closing { self.closing = true }
            step = nil   // the frame path holds the capturer: let go of it
            let q = queue
            queue.removeAll()
            ready.wake()
            pthread_cond_broadcast(changed)
            pthread_cond_signal(standby)
            return q
        }
        _ = gone
    }

    /// After `stop` and the wake of the frame path's wait: returns once no
    /// reader runs the frame path (the driver's queue may then be freed).
    func waitForPumpIdle() {
        locked {
            while pumper == .reader { _ = sleep(changed, until: 0) }
        }
    }

    /// The capture thread of a pumped capture: stands by while readers
    /// keep up, queues frames while they do not (see the type's doc).
    /// Returns when stopped or when streaming ended.
    func runCaptureThread() {
        guard let step = locked({ self.step }) else { return }
        while true {
            // Stand by until a reader has stayed away too long.
            let go: Bool = locked {
                while true {
                    if stopped || ended != nil { return false }
                    if pumper == .none {
                        if fdWanted { break }
                        let due = lastReaderPumpNs &+ takeOverNs
                        let now = monotonicNs()
                        if now >= due { break }
                        _ = sleep(standby, until: due)
                    } else {
                        _ = sleep(standby, until: monotonicNs() &+ takeOverNs)
                    }
                }
                pumper = .thread
                return true
            }
            if !go { return }
            // Queue frames until a reader waits for one (then hand back).
            var more = true
            while more {
                more = step(-1) { self.deliver($0) }
                let handBack: Bool = locked {
                    if stopped || ended != nil { more = false }
                    guard more else { return true }
                    return readersWaiting > 0 && !fdWanted
                }
                if handBack { break }
            }
            locked {
                pumper = .none
                lastReaderPumpNs = monotonicNs()
                pthread_cond_broadcast(changed)
            }
            if !more { return }
        }
    }

    /// The oldest queued frame, or the next one from the driver, waiting up
    /// to `timeoutMs` (0: no wait; < 0: until one comes). The frame is the
    /// app's until the returned object is released. Errors: timeout (none
    /// came), state (stopped, or `depth` frames are out already), and the
    /// error that ended streaming (noDevice, io, ...).
    package func acquire(timeoutMs: Int32) throws(CamError) -> RetainedFrame {
        let end = timeoutMs > 0 ? monotonicNs() &+ UInt64(timeoutMs) &* 1_000_000 : 0
        var pumped = false   // this call ran the frame path once already
        while true {
            enum Next { case frame(RetainedFrame), pump(PumpStep), waited }
            let next = try locked { () throws(CamError) -> Next in
                if held >= depth {
                    throw .state("\(held) pulled frames are not released yet (the queue depth is \(depth)); release one first")
                }
                if !queue.isEmpty {
                    let f = queue.removeFirst()
                    if queue.isEmpty && ended == nil && !stopped && fdWanted { ready.drain() }
                    held += 1
                    return .frame(f)
                }
                if let e = ended { throw e }
                if stopped { throw stoppedError }
                if timeoutMs == 0 && (pumped || step == nil || pumper != .none || fdWanted) {
                    // A readable fd with nothing queued is stale (a wake of
                    // an earlier capture on the same fd): cleared, so an
                    // event loop does not spin on it.
                    if fdWanted { ready.drain() }
                    throw .timeout("no frame is ready")
                }
                if timeoutMs > 0 && monotonicNs() >= end { throw .timeout("no frame within \(timeoutMs) ms") }
                if let step, pumper == .none, !fdWanted {
                    pumper = .reader
                    return .pump(step)
                }
                readersWaiting += 1
                _ = sleep(changed, until: end)
                readersWaiting -= 1
                return .waited
            }
            switch next {
            case .frame(let f):
                return RetainedFrame(pulled: f, from: self)
            case .waited:
                continue
            case .pump(let step):
                // The frame path on this thread: no queue, no hand-over.
                // The frame's buffer is retained during the step (else it
                // goes back to the driver); the object is made once the
                // frame counts as held.
                //
                // Lifetime rule: a frame's pool (`Frame.poolRef`, not a
                // strong reference) is alive only while its frame path
                // runs. Once this reader sets `pumper = .none`, `stop` may
                // go on and free the driver's buffers, so the strong hold
                // on the pool (`owner`) is taken inside the step, and
                // after it only `owner` is touched, never `got.pool`.
                var got: Frame?
                var owner: BufferPool?
                let wait: Int32 = timeoutMs < 0 ? -1
                    : timeoutMs == 0 ? 0 : Int32(clamping: (end &- min(end, monotonicNs()) + 999_999) / 1_000_000)
                _ = step(wait) { f in
                    if got == nil, let pool = f.pool { pool.retain(f.slot); owner = pool; got = f }
                }
                let kept: Bool = locked {
                    pumper = .none
                    lastReaderPumpNs = monotonicNs()
                    pthread_cond_broadcast(changed)
                    guard got != nil, !stopped else { return false }
                    held += 1
                    return true
                }
                if let got, let owner {
                    if kept { return RetainedFrame(pumped: got, owner: owner, from: self) }
                    owner.release(got.slot)   // the retain taken in the step
                    throw locked { stoppedError }
                }
                pumped = true   // the loop looks again: an end, a stop, a timeout, or another wait
            }
        }
    }

    /// Why acquire refuses after `stop` (lock held).
    private var stoppedError: CamError {
        closing ? .state("the capturer is closed; nothing more to pull")
                : .state("the capture is stopped (or the preview removed); nothing more to pull")
    }

    /// A pulled frame was released (RetainedFrame's deinit).
    func released() { locked { held = max(0, held - 1) } }

    /// Frames out with the app now.
    package var heldCount: Int { locked { held } }
}
