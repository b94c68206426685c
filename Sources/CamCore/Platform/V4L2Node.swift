internal import CV4L2
#if canImport(Glibc)
import Glibc
#endif

/// One open V4L2 device node: the only place that makes syscalls on a
/// camera (open, ioctl, mmap, poll, close), through libv4l2 with format
/// conversion disabled, so the rest of the engine reads as camera logic.
/// Not thread-safe by itself; its owner serialises use.
final class V4L2Node {
    let path: String
    private(set) var fd: Int32

    /// Opens `path` read-write, non-blocking, close-on-exec.
    /// Errors: noDevice, access, busy, io (from errno).
    init(path: String) throws(CamError) {
        self.path = path
        let raw = cc_sys_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        if raw < 0 { throw CamError.fromErrno(errno, "open \(path)") }
        fd = raw
        // libv4l2 wraps single-planar capture nodes (conversion disabled:
        // the driver's own formats). Multi-planar nodes stay raw: libv4l2's
        // mplane plugin would disguise them as single-planar, hide
        // data_offset and print to stdout; unwrapped fds pass through
        // libv4l2's ioctl/mmap to the kernel unchanged.
        var cap = v4l2_capability()
        if cc_sys_ioctl(raw, CC_VIDIOC_QUERYCAP, &cap) == 0 {
            let caps = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? cap.device_caps : cap.capabilities
            if caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 {
                let wrapped = cc_v4l2_fd_open_noconvert(raw)
                if wrapped >= 0 { fd = wrapped }
            }
        }
    }

    deinit { close() }

    /// Closes the fd (through libv4l2, which forgets it). Idempotent.
    func close() {
        if fd >= 0 {
            _ = v4l2_close(fd)
            fd = -1
        }
    }

    /// Runs one ioctl, retrying on EINTR. Returns errno on failure (0 on success).
    @discardableResult
    func ioctlErrno<T>(_ request: UInt, _ arg: inout T) -> Int32 {
        if fd < 0 { return EBADF }
        while true {
            let rc = withUnsafeMutablePointer(to: &arg) { cc_v4l2_ioctl(fd, request, $0) }
            if rc >= 0 { return 0 }
            let e = errno
            if e != EINTR { return e }
        }
    }

    /// The kernel's ioctl on `fd` without libv4l2, retrying on EINTR;
    /// errno or 0. For QBUF and DQBUF on the frame path, which libv4l2 only
    /// passes through when it converts nothing (conversion is always
    /// disabled here); static, so the capture thread needs no node.
    @inline(__always)
    static func rawIoctlErrno<T>(_ fd: Int32, _ request: UInt, _ arg: inout T) -> Int32 {
        if fd < 0 { return EBADF }
        while true {
            let rc = withUnsafeMutablePointer(to: &arg) { cc_sys_ioctl(fd, request, $0) }
            if rc >= 0 { return 0 }
            let e = errno
            if e != EINTR { return e }
        }
    }

    /// Runs one ioctl; throws the mapped error naming `name` and the node.
    func ioctl<T>(_ request: UInt, _ arg: inout T, _ name: String) throws(CamError) {
        let e = ioctlErrno(request, &arg)
        if e != 0 { throw CamError.fromErrno(e, "\(name) on \(path)") }
    }

    /// Maps `length` bytes of a buffer at `offset` (V4L2 mmap streaming).
    func map(length: Int, offset: UInt32) throws(CamError) -> UnsafeMutableRawPointer {
        guard let p = v4l2_mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, Int64(offset)),
              p != MAP_FAILED else {
            throw CamError.fromErrno(errno, "mmap on \(path)")
        }
        return p
    }

    static func unmap(_ p: UnsafeMutableRawPointer, length: Int) {
        _ = v4l2_munmap(p, length)
    }
}
