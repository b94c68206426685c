// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// A process that holds a device node open (SPEC S46).
package struct DeviceHolder: Sendable, Equatable {
    /// Its process id.
    package let pid: Int32
    /// Its command name (/proc/<pid>/comm, at most 15 bytes: "v4l2-ctl").
    package let command: String
}

/// Who holds device nodes open, found the way fuser(1) does: every
/// /proc/<pid>/fd/<n> whose target is the same character device (S46).
/// A scan is bounded in time; processes whose fds this one may not read
/// (another user's, without CAP_SYS_PTRACE) are counted, not seen.
package struct DeviceHolders: Sendable {
    /// The holders of each node asked for, in pid order (this process too).
    package var byNode: [String: [DeviceHolder]] = [:]
    /// Processes whose open files could not be looked at.
    package var unseen = 0
    /// True when the time ran out before every process was looked at.
    package var cut = false

    /// Scans /proc for the holders of `nodes` (device node paths; others
    /// are ignored), for at most `budgetNs` (default 300 ms). `ignoringFD`:
    /// one fd of this process not to count (the caller's own, which met
    /// the EBUSY).
    package static func scan(_ nodes: [String], budgetNs: UInt64 = 300_000_000, ignoringFD: Int32? = nil) -> DeviceHolders {
        var out = DeviceHolders()
        var wanted: [UInt64: [String]] = [:]
        for n in nodes {
            var st = stat()
            guard stat(n, &st) == 0, st.st_mode & S_IFMT == S_IFCHR else { continue }
            wanted[UInt64(st.st_rdev), default: []].append(n)
            out.byNode[n] = []
        }
        guard !wanted.isEmpty, let proc = opendir("/proc") else { return out }
        defer { closedir(proc) }
        let end = monotonicNs() &+ budgetNs
        var pids: [Int32] = []
        while let e = readdir(proc) {
            if let pid = Int32(cString(&e.pointee.d_name)) { pids.append(pid) }
        }
        let me = getpid()
        for (i, pid) in pids.sorted().enumerated() {
            if monotonicNs() > end {
                out.cut = true
                out.unseen += pids.count - i
                break
            }
            guard let fds = opendir("/proc/\(pid)/fd") else {
                if errno == EACCES || errno == EPERM { out.unseen += 1 }
                continue   // ENOENT: it ended meanwhile
            }
            var found: Set<String> = []
            while let e = readdir(fds) {
                let fd = cString(&e.pointee.d_name)
                guard fd.first?.isNumber == true else { continue }
                if pid == me, let skip = ignoringFD, Int32(fd) == skip { continue }
                var st = stat()
                guard stat("/proc/\(pid)/fd/\(fd)", &st) == 0, st.st_mode & S_IFMT == S_IFCHR,
                      let ns = wanted[UInt64(st.st_rdev)] else { continue }
                found.formUnion(ns)
            }
            closedir(fds)
            if found.isEmpty { continue }
            let holder = DeviceHolder(pid: pid, command: command(of: pid))
            for n in found { out.byNode[n, default: []].append(holder) }
        }
        return out
    }

    /// The command name of a process ("?" when it cannot be read).
    static func command(of pid: Int32) -> String {
        let fd = open("/proc/\(pid)/comm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "?" }
        defer { close(fd) }
        var buf = [UInt8](repeating: 0, count: 64)
        let n = read(fd, &buf, buf.count)
        guard n > 0 else { return "?" }
        return String(decoding: buf.prefix(n).prefix { $0 != 10 && $0 != 0 }, as: UTF8.self)
    }

    /// "v4l2-ctl (pid 123)", "a (pid 1) and b (pid 2)", or what could not
    /// be seen: the words a busy error gives the user (S46).
    package func describe(_ node: String) -> String {
        let me = getpid()
        let list = (byNode[node] ?? []).map { h in
            "\(h.command) (pid \(h.pid)\(h.pid == me ? ", this process" : ""))"
        }
        var text: String
        switch list.count {
        case 0: text = "no process found holding it"
        case 1: text = "held by " + list[0]
        default: text = "held by " + list.dropLast().joined(separator: ", ") + " and " + list.last!
        }
        if unseen > 0 {
            text += list.isEmpty ? ": " : "; "
            text += cut ? "the search ran out of time with \(unseen) process\(unseen == 1 ? "" : "es") not looked at"
                        : "\(unseen) process\(unseen == 1 ? "" : "es") of other users could not be looked at (/proc)"
        }
        return text
    }
}
