// SPDX-License-Identifier: MIT
internal import CV4L2
#if canImport(Glibc)
import Glibc
#endif

/// An eventfd that wakes a capture thread out of poll(): used for stop and
/// for released buffers. Lives as long as anything refers to it, so a
/// late wake from a retained frame never writes to a reused fd number.
final class Waker: @unchecked Sendable {
    let fd: Int32

    init() throws(CamError) {
        let (fd, e) = Sys.eventFD()
        if fd < 0 { throw CamError.fromErrno(e, "eventfd") }
        self.fd = fd
    }

    deinit { Sys.close(fd) }

    func wake() { Sys.signal(fd) }

    /// Clears pending wakes.
    func drain() { Sys.drain(fd) }
}

/// CLOCK_MONOTONIC now, nanoseconds.
func monotonicNs() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
