// SPDX-License-Identifier: MIT
internal import CV4L2
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Every syscall the engine makes on a device, a udev monitor or a waker
/// (open, ioctl, mmap, poll, epoll, eventfd, close) — the one place, so
/// the rest reads as camera logic and errno never leaves the engine
/// unmapped (`CamError.fromErrno`, SPEC S26). Model: swift-system's
/// Syscalls.swift with `valueOrErrno(retryOnInterrupt:)`.
///
/// Each call returns 0 or a value on success and the errno on failure,
/// retrying on EINTR. In test builds (debug, CAMCORE_SYSCALL_HOOKS) tests
/// can replace open, ioctl and mmap (`Sys.hooks`) to drive the errno
/// mapping on the host; release builds have no hooks and no extra cost.
enum Sys {
    /// Runs `call` again while it fails with EINTR: its result, or -1
    /// with the errno.
    @inline(__always)
    static func retrying(_ call: () -> Int32) -> (result: Int32, errno: Int32) {
        while true {
            let rc = call()
            if rc >= 0 { return (rc, 0) }
            let e = errno
            if e != EINTR { return (rc, e) }
        }
    }

    /// open(2) of a device node, read-write, non-blocking, close-on-exec.
    static func openNode(_ path: String) -> (fd: Int32, errno: Int32) {
#if CAMCORE_SYSCALL_HOOKS
        if let h = hooks.withLock({ $0.open }), let r = h(path) { return r }
#endif
        let (fd, e) = retrying { cc_sys_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC) }
        return (fd, e)
    }

    /// Hands a single-planar capture fd to libv4l2 (conversion disabled);
    /// the wrapped fd (the same number) or -1.
    static func v4l2Wrap(_ fd: Int32) -> Int32 {
#if CAMCORE_SYSCALL_HOOKS
        if hooks.withLock({ $0.ioctl != nil }) { return fd }
#endif
        return cc_v4l2_fd_open_noconvert(fd)
    }

    /// close(2) through libv4l2, which forgets a wrapped fd.
    static func v4l2Close(_ fd: Int32) { _ = v4l2_close(fd) }

    /// One ioctl through libv4l2: 0 or the errno.
    @inline(__always)
    static func ioctl<T>(_ fd: Int32, _ request: UInt, _ arg: inout T) -> Int32 {
        ioctl(fd, request, &arg, through: cc_v4l2_ioctl)
    }

    /// One ioctl straight to the kernel (QBUF/DQBUF on the frame path,
    /// QUERYCAP before libv4l2 wraps a node): 0 or the errno.
    @inline(__always)
    static func rawIoctl<T>(_ fd: Int32, _ request: UInt, _ arg: inout T) -> Int32 {
        ioctl(fd, request, &arg, through: cc_sys_ioctl)
    }

    /// The one body of both: the test hook, then `call` retried on EINTR.
    @inline(__always)
    private static func ioctl<T>(_ fd: Int32, _ request: UInt, _ arg: inout T,
                                 through call: (Int32, UInt, UnsafeMutableRawPointer?) -> Int32) -> Int32 {
        if fd < 0 { return EBADF }
#if CAMCORE_SYSCALL_HOOKS
        if let h = hooks.withLock({ $0.ioctl }),
           let e = withUnsafeMutablePointer(to: &arg, { h(fd, request, UnsafeMutableRawPointer($0)) }) { return e }
#endif
        return retrying { withUnsafeMutablePointer(to: &arg) { call(fd, request, $0) } }.errno
    }

    /// mmap(2) of `length` bytes of a device buffer at `offset`, shared,
    /// read-write: the mapping, or nil and the errno.
    static func mapBuffer(_ fd: Int32, length: Int, offset: UInt32) -> (UnsafeMutableRawPointer?, Int32) {
#if CAMCORE_SYSCALL_HOOKS
        if let h = hooks.withLock({ $0.mmap }), let r = h(fd, length, offset) { return r }
#endif
        guard let p = v4l2_mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, Int64(offset)),
              p != MAP_FAILED else { return (nil, errno) }
        return (p, 0)
    }

    static func unmapBuffer(_ p: UnsafeMutableRawPointer, length: Int) {
#if CAMCORE_SYSCALL_HOOKS
        if let h = hooks.withLock({ $0.munmap }), h(p, length) { return }
#endif
        _ = v4l2_munmap(p, length)
    }

    /// poll(2) on `count` descriptors; the number ready (0: timed out; an
    /// EINTR counts as a timeout) or -1 and the errno.
    @inline(__always)
    static func poll(_ fds: UnsafeMutablePointer<pollfd>, _ count: Int, timeoutMs: Int32) -> (Int32, Int32) {
        let rc = Glibc.poll(fds, nfds_t(count), timeoutMs)
        if rc >= 0 { return (rc, 0) }
        let e = errno
        return e == EINTR ? (0, 0) : (rc, e)
    }

    /// An epoll set holding `a` (tag 0) and `b` (tag 1) for POLLIN, or -1.
    static func epollPair(_ a: Int32, _ b: Int32) -> Int32 {
        let ep = cc_epoll_create()
        if ep < 0 { return -1 }
        if cc_epoll_add(ep, a, CC_EPOLLIN, 0) != 0 || cc_epoll_add(ep, b, CC_EPOLLIN, 1) != 0 {
            Glibc.close(ep)
            return -1
        }
        return ep
    }

    /// epoll_wait on a pair set: the number ready (EINTR: 0) or -1 and the
    /// errno, with the events of tag 0 and tag 1.
    @inline(__always)
    static func epollWait(_ ep: Int32, timeoutMs: Int32, _ events0: inout UInt32, _ events1: inout UInt32) -> (Int32, Int32) {
        let rc = cc_epoll_wait2(ep, timeoutMs, &events0, &events1)
        if rc >= 0 { return (rc, 0) }
        let e = errno
        return e == EINTR ? (0, 0) : (rc, e)
    }

    /// A non-blocking close-on-exec eventfd, or -1 and the errno.
    static func eventFD() -> (Int32, Int32) {
        let fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        return fd < 0 ? (fd, errno) : (fd, 0)
    }

    /// Adds one to an eventfd's counter.
    static func signal(_ fd: Int32) {
        var one: UInt64 = 1
        _ = retrying { Int32(write(fd, &one, 8)) }
    }

    /// Resets an eventfd's counter.
    static func drain(_ fd: Int32) {
        var v: UInt64 = 0
        _ = retrying { Int32(read(fd, &v, 8)) }
    }

    /// Which device instance a video node is now: the inode of its sysfs
    /// directory (kernfs gives a re-created device a new one, generation
    /// included) and the device number of its /dev node. nil when either
    /// is gone. Two stat(2) calls; no udev database read.
    static func nodeIdentity(syspath: String, devnode: String) -> NodeIdentity? {
        var a = stat(), b = stat()
        guard fstatat(AT_FDCWD, syspath, &a, 0) == 0, fstatat(AT_FDCWD, devnode, &b, 0) == 0, b.st_rdev != 0 else { return nil }
        return NodeIdentity(sysfsInode: UInt64(a.st_ino), rdev: UInt64(b.st_rdev))
    }

    /// True when the character device behind `fd` has left sysfs
    /// (`/sys/dev/char/MAJ:MIN` is gone) within `graceMs`, checked every
    /// 25 ms: the device was unplugged while the fd stayed open. uvcvideo
    /// fails VIDIOC_DQBUF with EIO or EINVAL a moment before it
    /// unregisters the node (only later calls get ENODEV), so the errno
    /// alone cannot tell an unplug from a driver error (SPEC S25, S39).
    /// False for anything that is not a character device.
    static func deviceGone(_ fd: Int32, graceMs: Int = 250) -> Bool {
#if CAMCORE_SYSCALL_HOOKS
        if let h = hooks.withLock({ $0.deviceGone }), let r = h(fd) { return r }
#endif
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFCHR else { return false }
        let dev = UInt64(st.st_rdev)
        let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & ~0xfff)
        let minor = (dev & 0xff) | ((dev >> 12) & ~0xff)
        let link = "/sys/dev/char/\(major):\(minor)"
        var waited = 0
        while true {
            var ls = stat()
            if lstat(link, &ls) != 0 && errno == ENOENT { return true }
            if waited >= graceMs { return false }
            usleep(25_000)
            waited += 25
        }
    }

    static func close(_ fd: Int32) { _ = Glibc.close(fd) }

#if CAMCORE_SYSCALL_HOOKS
    /// Replacements for test builds. Each returns nil to make the real call.
    struct Hooks: Sendable {
        /// open of a path: (fd, errno) to return instead.
        var open: (@Sendable (String) -> (fd: Int32, errno: Int32)?)?
        /// ioctl(fd, request, arg): an errno (0 = success, arg filled in).
        var ioctl: (@Sendable (Int32, UInt, UnsafeMutableRawPointer) -> Int32?)?
        /// mmap(fd, length, offset): (mapping, errno) to return instead.
        var mmap: (@Sendable (Int32, Int, UInt32) -> (UnsafeMutableRawPointer?, Int32)?)?
        /// munmap: true when the hook took it.
        var munmap: (@Sendable (UnsafeMutableRawPointer, Int) -> Bool)?
        /// deviceGone(fd): the answer to give instead.
        var deviceGone: (@Sendable (Int32) -> Bool?)?
        init() {}
    }
    static let hooks = Mutex(Hooks())
#endif
}

/// See `Sys.nodeIdentity`: equal while the node is the same device instance.
struct NodeIdentity: Equatable, Sendable {
    let sysfsInode: UInt64
    let rdev: UInt64
}
