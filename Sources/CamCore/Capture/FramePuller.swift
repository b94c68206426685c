// SPDX-License-Identifier: MIT
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The pull side of a capturer or a session preview (SPEC S36): the
/// capture thread hands every frame in (`deliver`), retained, to a queue
/// of at most `depth` frames; a full queue gives up its oldest frame
/// (counted as a drop), so a slow reader never stalls the driver. The app
/// takes frames with `acquire` and gives each back by releasing the
/// returned object; at most `depth` frames may be out with it at once.
///
/// `readyFD` (an eventfd) is readable exactly while a frame is queued, for
/// an app's own poll/epoll/asyncio loop; it is only read by camcore. It is
/// kept up to date from the first time it is asked for: until then
/// `acquire` waits on a condition variable, so a frame costs the capture
/// thread no eventfd write and the reader no poll and read.
/// Safe from any thread.
public final class FramePuller: @unchecked Sendable {
    /// Queue depths accepted (frames kept ready).
    public static let depths = 1...8
    public let depth: Int
    private struct State {
        var queue: [RetainedFrame] = []
        var held = 0
        var ended: CamError?
        var stopped = false
        /// readyFD was handed out: keep the eventfd in step with the queue.
        var fdWanted = false
    }
    private let state = Mutex(State())
    private let ready: Waker
    /// What `acquire` sleeps on: `arrivals` counts deliveries and ends.
    private let waitLock: UnsafeMutablePointer<pthread_mutex_t>
    private let arrived: UnsafeMutablePointer<pthread_cond_t>
    private var arrivals: UInt64 = 0   // under waitLock
    /// Counts a frame given up by the queue (the capturer's stats).
    private let onDrop: @Sendable () -> Void

    init(depth: Int, onDrop: @escaping @Sendable () -> Void) throws(CamError) {
        guard FramePuller.depths.contains(depth) else {
            throw .invalidArgument("queue depth \(depth) is out of range (\(FramePuller.depths.lowerBound)...\(FramePuller.depths.upperBound))")
        }
        self.depth = depth
        self.onDrop = onDrop
        ready = try Waker()
        waitLock = .allocate(capacity: 1)
        pthread_mutex_init(waitLock, nil)
        arrived = .allocate(capacity: 1)
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(arrived, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(arrived)
        arrived.deallocate()
        pthread_mutex_destroy(waitLock)
        waitLock.deallocate()
    }

    /// The eventfd that is readable while a frame is ready (from now on).
    public var readyFD: Int32 {
        state.withLock { s in
            if !s.fdWanted {
                s.fdWanted = true
                if !s.queue.isEmpty || s.ended != nil || s.stopped { ready.wake() }
            }
        }
        return ready.fd
    }

    /// Wakes a reader waiting in `acquire`.
    private func signal() {
        pthread_mutex_lock(waitLock)
        arrivals &+= 1
        pthread_cond_broadcast(arrived)
        pthread_mutex_unlock(waitLock)
    }

    private var arrivalCount: UInt64 {
        pthread_mutex_lock(waitLock)
        defer { pthread_mutex_unlock(waitLock) }
        return arrivals
    }

    /// Buffers the driver needs so that `depth` queued plus `depth` held
    /// frames still leave it two to fill.
    func buffersNeeded(_ asked: Int) -> Int { min(32, max(asked, 2 * depth + 2)) }

    /// A frame from the capture thread (its callback).
    func deliver(_ frame: Frame) {
        // A frame in the app's own memory (a session's pushed frame) cannot
        // be kept past its delivery: not queued.
        guard frame.isRetainable else { return }
        let kept = frame.retain()
        var dropped: RetainedFrame?
        let first: Bool = state.withLock { s in
            guard !s.stopped else { dropped = kept; return false }
            if s.queue.count >= depth { dropped = s.queue.removeFirst() }
            let first = s.queue.isEmpty
            if first && s.fdWanted { ready.wake() }
            s.queue.append(kept)
            return first
        }
        if first { signal() }
        if dropped != nil { onDrop() }
        dropped = nil  // released outside the lock
    }

    /// Streaming ended on its own (the capturer's onError): acquire reports it.
    func fail(_ error: CamError) {
        state.withLock { s in
            s.ended = error
            ready.wake()
        }
        signal()
    }

    /// The capture stopped: queued frames are released, acquire refuses.
    func stop() {
        let gone = state.withLock { s -> [RetainedFrame] in
            s.stopped = true
            let q = s.queue
            s.queue.removeAll()
            ready.wake()
            return q
        }
        signal()
        _ = gone
    }

    /// The oldest queued frame, waiting up to `timeoutMs` (0: no wait;
    /// < 0: until one comes). The frame is the app's until the returned
    /// object is released. Errors: timeout (none came), state (stopped, or
    /// `depth` frames are out already), and the error that ended streaming
    /// (noDevice, io, ...).
    public func acquire(timeoutMs: Int32) throws(CamError) -> RetainedFrame {
        let end = timeoutMs > 0 ? monotonicNs() &+ UInt64(timeoutMs) &* 1_000_000 : 0
        while true {
            let seen = arrivalCount   // a delivery after this ends the wait below
            let got = try state.withLock { s throws(CamError) -> RetainedFrame? in
                if s.held >= depth {
                    throw .state("\(s.held) pulled frames are not released yet (the queue depth is \(depth)); release one first")
                }
                if !s.queue.isEmpty {
                    let f = s.queue.removeFirst()
                    if s.queue.isEmpty && s.ended == nil && !s.stopped && s.fdWanted { ready.drain() }
                    s.held += 1
                    return f
                }
                if let e = s.ended { throw e }
                if s.stopped { throw .state("the capture is stopped (or the preview removed); nothing more to pull") }
                return nil
            }
            if let got {
                return RetainedFrame(pulled: got) { [weak self] in self?.released() }
            }
            if timeoutMs == 0 { throw .timeout("no frame is ready") }
            if timeoutMs > 0 && monotonicNs() >= end { throw .timeout("no frame within \(timeoutMs) ms") }
            pthread_mutex_lock(waitLock)
            while arrivals == seen {
                if timeoutMs < 0 {
                    pthread_cond_wait(arrived, waitLock)
                } else {
                    var ts = timespec(tv_sec: Int(end / 1_000_000_000), tv_nsec: Int(end % 1_000_000_000))
                    if pthread_cond_timedwait(arrived, waitLock, &ts) == ETIMEDOUT { break }
                }
            }
            pthread_mutex_unlock(waitLock)
        }
    }

    private func released() { state.withLock { $0.held = max(0, $0.held - 1) } }

    /// Frames out with the app now.
    public var heldCount: Int { state.withLock { $0.held } }
}
