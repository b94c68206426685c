internal import CV4L2
#if canImport(Glibc)
import Glibc
#endif

/// One open V4L2 device node, through libv4l2 with format conversion
/// disabled; its syscalls go through `Sys` (Platform/Syscalls.swift).
/// Not thread-safe by itself; its owner serialises use.
final class V4L2Node {
    let path: String
    private(set) var fd: Int32

    /// Opens `path` read-write, non-blocking, close-on-exec.
    /// Errors: noDevice, access, busy, io (from errno).
    init(path: String) throws(CamError) {
        self.path = path
        let (raw, e) = Sys.openNode(path)
        if raw < 0 { throw CamError.fromErrno(e, "open \(path)") }
        fd = raw
        // libv4l2 wraps single-planar capture nodes (conversion disabled:
        // the driver's own formats). Multi-planar nodes stay raw: libv4l2's
        // mplane plugin would disguise them as single-planar, hide
        // data_offset and print to stdout; unwrapped fds pass through
        // libv4l2's ioctl/mmap to the kernel unchanged.
        var cap = v4l2_capability()
        if Sys.rawIoctl(raw, CC_VIDIOC_QUERYCAP, &cap) == 0 {
            let caps = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? cap.device_caps : cap.capabilities
            if caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 {
                let wrapped = Sys.v4l2Wrap(raw)
                if wrapped >= 0 { fd = wrapped }
            }
        }
    }

    deinit { close() }

    /// Closes the fd (through libv4l2, which forgets it). Idempotent.
    func close() {
        if fd >= 0 {
            Sys.v4l2Close(fd)
            fd = -1
        }
    }

    /// Runs one ioctl, retrying on EINTR. Returns errno on failure (0 on success).
    @discardableResult
    func ioctlErrno<T>(_ request: UInt, _ arg: inout T) -> Int32 { Sys.ioctl(fd, request, &arg) }

    /// Runs one ioctl; throws the mapped error naming `name` and the node.
    func ioctl<T>(_ request: UInt, _ arg: inout T, _ name: String) throws(CamError) {
        let e = ioctlErrno(request, &arg)
        if e != 0 { throw CamError.fromErrno(e, "\(name) on \(path)") }
    }

    /// Maps `length` bytes of a buffer at `offset` (V4L2 mmap streaming).
    func map(length: Int, offset: UInt32) throws(CamError) -> UnsafeMutableRawPointer {
        let (p, e) = Sys.mapBuffer(fd, length: length, offset: offset)
        guard let p else { throw CamError.fromErrno(e, "mmap on \(path)") }
        return p
    }
}
