// SPDX-License-Identifier: MIT
/// What kind of camera a device is (SPEC S2).
package enum DeviceType: Int32, Sendable {
    /// Built into the machine: a non-removable camera.
    case builtin = 0
    /// Plugged in: removable, or on a bus whose removability is unknown.
    case external = 1
    /// Software: the synthetic camera, vivid, v4l2loopback.
    case virtual = 2
    /// An infrared camera beside a colour one on the same USB device (S44:
    /// a capture node offering only greyscale/depth formats, as face-login
    /// cameras have): listed after the colour cameras and never picked by
    /// default selection, flip, session fallback or "the first camera".
    case infrared = 3
}

/// Where a camera faces (SPEC S2): from V4L2_CID_CAMERA_ORIENTATION when
/// the driver has it, else builtin → front, external → external.
package enum CameraPosition: Int32, Sendable {
    case unknown = 0
    case front = 1
    case back = 2
    case external = 3
}

/// One camera: one V4L2 capture node, or the synthetic camera (S1, S2, S4).
package struct DeviceInfo: Sendable, Equatable {
    /// Stable unique id: from udev's ID_SERIAL (when the camera has a
    /// serial number) or ID_PATH, plus the capture-node index; survives
    /// replugging into the same port and /dev/videoN renumbering.
    package var id: String
    /// Display name (V4L2 `card`).
    package var name: String
    /// Device node path, e.g. "/dev/video0"; "synthetic" for the synthetic camera.
    package var node: String
    /// V4L2 `bus_info`.
    package var busInfo: String
    /// V4L2 `driver`.
    package var driver: String
    /// USB vendor and product id, 0 where unknown.
    package var usbVendorID: UInt16
    package var usbProductID: UInt16
    package var type: DeviceType
    package var position: CameraPosition
    /// V4L2 `device_caps` (V4L2_CAP_* bits); 0 for the synthetic camera.
    package var deviceCaps: UInt32
    /// The node speaks the multi-planar API (V4L2_CAP_VIDEO_CAPTURE_MPLANE only).
    package var isMultiplanar: Bool
    /// The built-in synthetic camera.
    package var isSynthetic: Bool
    /// Why the node cannot be opened (e.g. permission denied); nil when usable.
    package var unavailableReason: String?
    /// Why camcore does not list this node as a camera (S40: it is part of
    /// a media pipeline), for a listing that asks for hidden nodes; nil for
    /// a camera. A hidden device also has `unavailableReason` set.
    package var hiddenReason: String? = nil
    /// For a PipeWire camera that wraps a V4L2 device: that device's V4L2
    /// id (S32), so an app can match the two; nil otherwise. (`wraps`, for
    /// a PipeWire node over a V4L2 device.)
    package var v4l2ID: String? {
        guard backend == "pipewire", let w = wraps, w.hasPrefix("v4l2:") else { return nil }
        return w
    }
    /// The id, in another backend, of the camera this entry reaches
    /// through: a PipeWire node's V4L2 device or libcamera camera, a
    /// libcamera UVC camera's V4L2 device (S42); nil when none is known.
    /// Set by the source; the manager lists such a camera once.
    package var wraps: String? = nil
    /// The ids this camera has in the other backends (S42): whatever it
    /// wraps, and the entries of other backends the manager folded into
    /// this one; [] when none. Set by `Manager.devices()`.
    package var otherIDs: [String] = []
    /// How far the sensor is mounted rotated, clockwise, in degrees (S45:
    /// V4L2_CID_CAMERA_SENSOR_ROTATION, libcamera's Rotation property): an
    /// app turns the picture by as much the other way to show it upright;
    /// nil when the camera does not say.
    package var rotation: Int? = nil

    /// The backend the camera comes from (S32): "v4l2", "pipewire" or
    /// "synthetic", the part of the id before its first ':'.
    package var backend: String { String(id.prefix { $0 != ":" }) }

    package init(id: String, name: String, node: String, busInfo: String, driver: String,
                usbVendorID: UInt16 = 0, usbProductID: UInt16 = 0, type: DeviceType,
                position: CameraPosition, deviceCaps: UInt32 = 0, isMultiplanar: Bool = false,
                isSynthetic: Bool = false, unavailableReason: String? = nil) {
        self.id = id; self.name = name; self.node = node; self.busInfo = busInfo
        self.driver = driver; self.usbVendorID = usbVendorID; self.usbProductID = usbProductID
        self.type = type; self.position = position; self.deviceCaps = deviceCaps
        self.isMultiplanar = isMultiplanar; self.isSynthetic = isSynthetic
        self.unavailableReason = unavailableReason
    }
}
