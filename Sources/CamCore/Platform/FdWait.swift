// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// The one "wait on an fd or a waker" loop step (ARCHITECTURE "Syscalls"),
/// shared by the capture stream (device readable: a frame), the hot-plug
/// monitor (udev monitor readable: an event) and the control-event thread
/// (device POLLPRI: a control event).
///
/// The set is built once per stream or thread. With `epoll` the two fds
/// are registered once (epoll_wait re-registers no wait queues per call,
/// which poll() does: ~540 instructions a frame on vivid); a driver whose
/// poll does not register its wait queue on every call (v4l2loopback,
/// kernels before 5.2) could leave epoll asleep through ready frames, so
/// when epoll times out while poll() finds the fd ready, this wait uses
/// poll() for good. Used by one thread at a time.
final class FdWait {
    enum Event: Equatable {
        /// The fd has `events`; `revents` are what poll/epoll reported
        /// (POLLERR/POLLHUP included).
        case ready(revents: UInt32)
        /// The waker fired (and was drained).
        case woken
        /// Nothing within the timeout.
        case timeout
        /// The wait itself failed with this errno.
        case failed(Int32)
    }

    let fd: Int32
    let waker: Waker
    private let events: Int16
    private let epoll: Int32
    /// Wait with `epoll` (else poll()). A cell, not a `var`: read on every
    /// frame without an exclusivity check.
    private let useEpoll = UnsafeMutablePointer<Bool>.allocate(capacity: 1)
    private let pollSet = UnsafeMutablePointer<pollfd>.allocate(capacity: 2)

    /// `events`: POLLIN or POLLPRI. `epoll`: register with epoll (POLLIN
    /// only) instead of poll() per call; falls back to poll() when the set
    /// cannot be made.
    init(fd: Int32, events: Int16, waker: Waker, epoll: Bool = false) {
        self.fd = fd
        self.waker = waker
        self.events = events
        pollSet[0] = pollfd(fd: fd, events: events, revents: 0)
        pollSet[1] = pollfd(fd: waker.fd, events: Int16(POLLIN), revents: 0)
        self.epoll = epoll && events == Int16(POLLIN) ? Sys.epollPair(fd, waker.fd) : -1
        useEpoll.initialize(to: self.epoll >= 0)
    }

    deinit {
        if epoll >= 0 { Sys.close(epoll) }
        pollSet.deallocate()
        useEpoll.deallocate()
    }

    /// Waits up to `timeoutMs` for the fd or the waker; the waker wins
    /// when both are ready. EINTR counts as a timeout.
    @inline(__always)
    func wait(timeoutMs: Int32) -> Event {
        var deviceEvents: UInt32 = 0, wakeEvents: UInt32 = 0
        let rc: Int32, e: Int32
        if useEpoll.pointee {
            (rc, e) = Sys.epollWait(epoll, timeoutMs: timeoutMs, &deviceEvents, &wakeEvents)
            if rc == 0 && e == 0 {
                // A timeout: make sure epoll is not sleeping through a ready
                // fd (a driver that registered no wait queue).
                pollSet[0].revents = 0
                if Sys.poll(pollSet, 1, timeoutMs: 0).0 > 0 && pollSet[0].revents & events != 0 {
                    useEpoll.pointee = false
                }
                return .timeout
            }
        } else {
            pollSet[0].revents = 0
            pollSet[1].revents = 0
            (rc, e) = Sys.poll(pollSet, 2, timeoutMs: timeoutMs)
            deviceEvents = UInt32(UInt16(bitPattern: pollSet[0].revents))
            wakeEvents = UInt32(UInt16(bitPattern: pollSet[1].revents))
        }
        if rc < 0 { return .failed(e) }
        if wakeEvents != 0 {
            waker.drain()
            return .woken
        }
        if rc == 0 || deviceEvents == 0 { return .timeout }
        return .ready(revents: deviceEvents)
    }
}
