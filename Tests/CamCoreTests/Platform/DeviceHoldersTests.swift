// SPDX-License-Identifier: MIT
import Testing
@testable import CamCore
#if canImport(Glibc)
import Glibc
#endif

/// S46 on the host: who holds a character device, found through /proc.
@Suite struct DeviceHoldersTests {
    @Test func test_S46_this_process_is_found_holding_a_node_it_opened() throws {
        let fd = open("/dev/zero", O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        let h = DeviceHolders.scan(["/dev/zero", "/nonexistent/video9", "/etc/hostname"])
        let mine = (h.byNode["/dev/zero"] ?? []).filter { $0.pid == getpid() }
        print("MEASURED holders of /dev/zero:", h.byNode["/dev/zero"]?.count ?? 0, "unseen", h.unseen, "cut", h.cut)
        #expect(mine.count == 1 && !mine[0].command.isEmpty && mine[0].command != "?", "\(mine)")
        #expect(h.describe("/dev/zero").contains("(pid \(getpid()), this process)"), "\(h.describe("/dev/zero"))")
        // The caller's own fd (the one that met EBUSY) is not a holder...
        let alone = DeviceHolders.scan(["/dev/zero"], ignoringFD: fd)
        #expect((alone.byNode["/dev/zero"] ?? []).allSatisfy { $0.pid != getpid() })
        // ...but another fd of this process on the node is.
        let second = open("/dev/zero", O_RDONLY | O_CLOEXEC)
        defer { close(second) }
        let skipping = DeviceHolders.scan(["/dev/zero"], ignoringFD: second)
        #expect((skipping.byNode["/dev/zero"] ?? []).filter { $0.pid == getpid() }.count == 1)
        // Not a character device, or no such node: nothing to look for.
        #expect(h.byNode["/nonexistent/video9"] == nil && h.byNode["/etc/hostname"] == nil)
    }

    @Test func test_S46_the_words_for_none_and_for_unseen_processes() {
        var h = DeviceHolders()
        h.byNode["/dev/video0"] = []
        #expect(h.describe("/dev/video0") == "no process found holding it")
        h.unseen = 3
        #expect(h.describe("/dev/video0") == "no process found holding it: 3 processes of other users could not be looked at (/proc)")
        h.byNode["/dev/video0"] = [DeviceHolder(pid: 10, command: "v4l2-ctl"), DeviceHolder(pid: 11, command: "obs")]
        h.unseen = 0
        #expect(h.describe("/dev/video0") == "held by v4l2-ctl (pid 10) and obs (pid 11)")
    }
}
