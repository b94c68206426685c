// SPDX-License-Identifier: MIT
/// The backends, by name (SPEC S33; ARCHITECTURE "Backends alike", model:
/// SDL3's `bootstrap[]` camera driver table). A manager walks this table
/// in order and asks each row for its source; the core never names a
/// backend's type. A fourth backend is a folder under Backends/ and one
/// row here (plus its bit in `BackendSet` for the C mask).
enum BackendRegistry {
    /// One row: a backend's name, its bit, and how it is made.
    struct Row: Sendable {
        let name: String
        let bit: BackendSet
        /// The source for this manager, or nil when this backend is not
        /// used here (not named, and not wanted by `auto`).
        let make: @Sendable (Context) -> CameraSource?
    }

    /// What a row is made from.
    struct Context {
        /// The named backends in use.
        let named: BackendSet
        /// True when the set came from `auto`: a row may add its backend
        /// where it is needed (libcamera once V4L2 meets a media pipeline).
        let auto: Bool
        /// The sources of the rows before this one, in table order.
        let earlier: [CameraSource]
        let config: ManagerConfig
        /// How PipeWire reaches the daemon (S35), resolved by the manager.
        let portalChoice: PortalChoice
        /// Where a camera portal made by a row reports its permission changes.
        let onPermission: @Sendable (CameraPermission, String) -> Void
    }

    /// Listing order: video-node cameras, then media-pipeline cameras,
    /// then the daemon's (S42 decides which entry a shared camera keeps).
    static let rows: [Row] = [
        Row(name: "v4l2", bit: .v4l2) { c in c.named.contains(.v4l2) ? V4L2Source() : nil },
        // S41: libcamera when named, and under `auto` beside V4L2 once V4L2
        // met a media-pipeline node (so plain webcams never start
        // libcamera). With V4L2 in use, cameras libcamera reaches through
        // a video node of their own stay V4L2's (S42).
        Row(name: "libcamera", bit: .libcamera) { c in
            let videoNodes = c.earlier.first { $0.name == "v4l2" }
            if c.named.contains(.libcamera) {
                return LibcameraSource(gate: nil, skipVideoNodeCameras: videoNodes != nil)
            }
            guard c.auto, let videoNodes else { return nil }
            return LibcameraSource(gate: { [weak videoNodes] in videoNodes?.sawMediaPipeline ?? false },
                                   skipVideoNodeCameras: true)
        },
        Row(name: "pipewire", bit: .pipewire) { c in
            guard c.named.contains(.pipewire) else { return nil }
            if c.config.pipeWireFD >= 0 { return PipeWireSource(remote: .fd(c.config.pipeWireFD)) }
            if c.portalChoice == .always || (c.portalChoice == .auto && BackendChoice.inSandbox) {
                return PipeWireSource(remote: .portal(CameraPortal(onChange: c.onPermission)))
            }
            return PipeWireSource()
        },
    ]
}
