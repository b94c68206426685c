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
        fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        if fd < 0 { throw CamError.fromErrno(errno, "eventfd") }
    }

    deinit { Glibc.close(fd) }

    func wake() {
        var one: UInt64 = 1
        _ = write(fd, &one, 8)
    }

    /// Clears pending wakes.
    func drain() {
        var v: UInt64 = 0
        _ = read(fd, &v, 8)
    }
}

/// CLOCK_MONOTONIC now, nanoseconds.
func monotonicNs() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
