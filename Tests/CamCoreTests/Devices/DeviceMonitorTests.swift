// SPDX-License-Identifier: MIT
import Testing
@testable import CamCore

/// SPEC S24: a camera's arrival is reported once. `udevadm trigger
/// --action=change|add` replays events for cameras that never left.
struct DeviceMonitorTests {
    func info(_ id: String, _ node: String = "/dev/video0") -> DeviceInfo {
        DeviceInfo(id: id, name: "cam", node: node, busInfo: "platform:x", driver: "vivid",
                   type: .virtual, position: .unknown, deviceCaps: 1)
    }

    @Test func test_S24_change_or_repeated_add_of_a_known_camera_is_no_arrival() {
        let a = info("v4l2:a:0")
        #expect(DeviceMonitor.verdict(action: "change", known: a, found: a) == .refresh)
        #expect(DeviceMonitor.verdict(action: "add", known: a, found: a) == .refresh)
        #expect(DeviceMonitor.verdict(action: "bind", known: a, found: a) == .none)
    }

    @Test func test_S24_new_node_arrives_and_removal_leaves() {
        let a = info("v4l2:a:0")
        #expect(DeviceMonitor.verdict(action: "add", known: nil, found: a) == .arrived)
        // A node missed at its add (still being set up) arrives with its change.
        #expect(DeviceMonitor.verdict(action: "change", known: nil, found: a) == .arrived)
        #expect(DeviceMonitor.verdict(action: "add", known: nil, found: nil) == .none)
        #expect(DeviceMonitor.verdict(action: "remove", known: a, found: nil) == .left)
        #expect(DeviceMonitor.verdict(action: "remove", known: nil, found: nil) == .none)
    }

    @Test func test_S24_node_reused_by_another_camera_is_a_replacement() {
        #expect(DeviceMonitor.verdict(action: "add", known: info("v4l2:a:0"), found: info("v4l2:b:0")) == .replaced)
    }
}
