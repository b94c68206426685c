// SPDX-License-Identifier: MIT
internal import CV4L2
#if canImport(Glibc)
import Glibc
#endif

/// One open V4L2 device node (raw by default; through libv4l2 with format
/// conversion disabled when CAMCORE_LIBV4L2=1); its syscalls go through
/// `Sys` (Platform/Syscalls.swift).
/// Not thread-safe by itself; its owner serialises use.
final class V4L2Node {
    let path: String
    private(set) var fd: Int32

    /// Opens `path` read-write, non-blocking, close-on-exec.
    /// Errors: noDevice, access, busy, io (from errno).
    /// Opens `path`. With `wrap`, and CAMCORE_LIBV4L2=1 in the
    /// environment, a single-planar capture node is handed to libv4l2
    /// (conversion disabled) for a camera that needs one of its plugins.
    /// By default every node is raw, as v4l2-ctl opens it: with conversion
    /// disabled libv4l2 changes nothing camcore uses (QBUF/DQBUF go raw in
    /// any case), but its set-up (plugins, libv4lconvert enumerating every
    /// format and size) cost ~1 ms of CPU per open and delayed vivid's
    /// first frame by 0.5–1.9 s in the bench's guest (bare loop --libv4l2).
    init(path: String, wrap: Bool = true) throws(CamError) {
        self.path = path
        let (raw, e) = Sys.openNode(path)
        if raw < 0 { throw CamError.fromErrno(e, "open \(path)") }
        fd = raw
        guard wrap && V4L2Node.useLibv4l2 else { return }
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

    /// CAMCORE_LIBV4L2=1: capture nodes go through libv4l2 (read once).
    /// (Environment's flag spellings; a value it does not take was refused
    /// by camcore_manager_new and reads as off here.)
    static let useLibv4l2: Bool = (try? Environment.flag(Environment.libv4l2)) ?? false

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
    /// `name` is only built when the ioctl fails (it often interpolates
    /// the request's values).
    func ioctl<T>(_ request: UInt, _ arg: inout T, _ name: @autoclosure () -> String) throws(CamError) {
        let e = ioctlErrno(request, &arg)
        if e != 0 { throw CamError.fromErrno(e, "\(name()) on \(path)") }
    }

    /// Maps `length` bytes of a buffer at `offset` (V4L2 mmap streaming).
    func map(length: Int, offset: UInt32) throws(CamError) -> UnsafeMutableRawPointer {
        let (p, e) = Sys.mapBuffer(fd, length: length, offset: offset)
        guard let p else { throw CamError.fromErrno(e, "mmap on \(path)") }
        return p
    }
}
