// SPDX-License-Identifier: MIT
import Testing
@testable import CamCore

/// S33 "backends are named": the registry's rows against the named set,
/// and abilities a backend declares instead of the core checking its type.
@Suite struct BackendRegistryTests {
    @Test func test_S33_every_named_backend_is_one_row_in_listing_order() {
        #expect(BackendRegistry.rows.map(\.name) == ["v4l2", "libcamera", "pipewire"])
        // Each row's name is the one BackendSet gives its bit.
        for row in BackendRegistry.rows {
            #expect(BackendSet.names.first { $0.1 == row.bit }?.0 == row.name, "\(row.name)")
        }
        var all: BackendSet = []
        for row in BackendRegistry.rows { all.insert(row.bit) }
        #expect(all == .all)
    }

    @Test func test_S33_a_manager_asks_the_named_rows_only() throws {
        let m = try Manager(config: { var c = ManagerConfig(); c.backends = [.libcamera]; return c }())
        // libcamera alone: no V4L2 node is listed, and its source is the one asked.
        #expect(m.backends == .libcamera)
        let listed = m.devices()
        #expect(listed.allSatisfy { $0.backend == "libcamera" })
        #expect(m.unavailableReason(of: "v4l2") == nil)
        // Without the plugin (the host's test build stages none next to
        // the library) the libcamera row lists nothing and says why.
        let why = m.unavailableReason(of: "libcamera")
        print("MEASURED libcamera row: \(listed.count) cameras, reason: \(why ?? "none")")
        #expect(why != nil || !listed.isEmpty)
        if let why {
            #expect(listed.isEmpty)
            #expect(why.contains("libcamera plugin is not available"), "\(why)")
        }
    }

    @Test func test_S37_dmabuf_is_an_ability_the_backend_declares() throws {
        // The synthetic camera declares none: a DMA-BUF start is refused by the core.
        let m = try Manager(config: ManagerConfig(includeSynthetic: true))
        let cam = try #require(m.synthetic.first)
        let cap = try m.open(deviceID: cam.id)
        defer { try? cap.close() }
        var req = CaptureRequest(); req.dmabuf = true
        #expect(throws: CamError.self) { try cap.start(req, onFrame: { _ in }) }
    }
}
