// SPDX-License-Identifier: MIT
/// Builds the device list from udev and short V4L2 queries (SPEC S1–S4).
enum DeviceEnumerator {
    /// The capture devices present now, in node order. Each node is opened
    /// only for QUERYCAP, one ENUM_FMT and the orientation control, then
    /// closed (S3). Nodes that cannot be opened are skipped.
    static func captureDevices() -> [DeviceInfo] { captureDevicesWithSyspaths().map { $0.0 } }

    /// `captureDevices()` with each device's udev sysfs path; with
    /// `includeHidden`, also the capture nodes camcore does not list as
    /// cameras (S40), with their `hiddenReason`.
    static func captureDevicesWithSyspaths(includeHidden: Bool = false) -> [(DeviceInfo, String)] {
        var out: [(DeviceInfo, String)] = []
        var seen: [String: Int] = [:]
        for u in UdevDevices.videoNodes() {
            var info: DeviceInfo
            switch examine(u) {
            case .device(let d): info = d
            case .hidden(let d):
                guard includeHidden else { continue }
                info = d
            case .notCapture: continue
            case .unavailable(let e):
                // S26: present but inaccessible is reported, not hidden.
                // Only where udev says the node captures video (v4l_id).
                guard case .access = e, let caps = u.v4lCapabilities, caps.contains(":capture:") else { continue }
                info = DeviceInfo(id: stableID(u, busInfo: ""), name: u.name ?? u.devnode, node: u.devnode,
                                  busInfo: "", driver: "", usbVendorID: u.usbVendorID, usbProductID: u.usbProductID,
                                  type: u.isUSB ? .external : .builtin, position: .unknown,
                                  unavailableReason: e.message)
            }
            // Two identical cameras without serial numbers on one path cannot
            // happen, but a clash must still not give two devices one id.
            if let n = seen[info.id] {
                seen[info.id] = n + 1
                info.id += "#\(n + 1)"
            } else {
                seen[info.id] = 1
            }
            out.append((info, u.syspath))
        }
        return out
    }

    /// The capture device with this id, probing only the node whose udev
    /// data gives that id, not every camera (opening a camera looks its id
    /// up; a full enumeration opens every node). `syspath`, where the id
    /// was last seen, spares even the udev scan. nil when the id is not
    /// found that way: ids from bus_info (no udev data) or with a "#n"
    /// clash suffix, or a node that is not a usable capture device now;
    /// the caller then enumerates everything (same answer, slower).
    static func captureDevice(id: String, syspath: String? = nil) -> (DeviceInfo, String)? {
        guard isUdevID(id) else { return nil }
        if let syspath, let u = UdevDevices.node(syspath: syspath), stableID(u, busInfo: "") == id,
           case .device(let d) = examine(u) {
            return (d, syspath)
        }
        for u in UdevDevices.videoNodes() where u.idSerial != nil || u.idPath != nil {
            guard stableID(u, busInfo: "") == id else { continue }
            // The first capture node in node order with this id holds it
            // in the full list too; anything else: let the full list decide.
            if case .device(let d) = examine(u) { return (d, u.syspath) }
            return nil
        }
        return nil
    }

    /// An id made from udev data alone (serial or path, no "#n" clash
    /// suffix): one udev node can be checked against it.
    static func isUdevID(_ id: String) -> Bool {
        (id.hasPrefix("v4l2:serial-") || id.hasPrefix("v4l2:path-")) && !id.contains("#")
    }

    /// What probing a node found.
    enum Probe {
        case device(DeviceInfo)
        /// Not a capture device (S1): output, metadata, touch, no formats...
        case notCapture
        /// A capture node that is not a camera of its own (S40): described,
        /// with the reason, for a listing that asks for hidden nodes.
        case hidden(DeviceInfo)
        /// Could not be opened or queried (not ready yet, gone, no access).
        case unavailable(CamError)
    }

    static func examine(_ u: UdevNode) -> Probe {
        let node: V4L2Node
        do throws(CamError) { node = try V4L2Node(path: u.devnode, wrap: false) } catch { return .unavailable(error) }
        defer { node.close() }
        let caps: V4L2Query.Capabilities
        do throws(CamError) { caps = try V4L2Query.capabilities(node) } catch { return .unavailable(error) }
        guard V4L2Query.isVideoCapture(caps.deviceCaps) else { return .notCapture }
        let type = V4L2Query.bufferType(caps.deviceCaps)
        if V4L2Query.isMediaControllerCentric(caps.deviceCaps) {
            // S40: the pipeline's sensor, scaler and format are set through
            // the media controller; setting a format here and streaming
            // would fail (EPIPE) and could break the pipeline for everyone.
            // Never a camera: described only, nothing else asked.
            var d = DeviceInfo(
                id: stableID(u, busInfo: caps.busInfo), name: caps.card, node: u.devnode,
                busInfo: caps.busInfo, driver: caps.driver, usbVendorID: u.usbVendorID,
                usbProductID: u.usbProductID, type: deviceType(driver: caps.driver, udev: u), position: .unknown,
                deviceCaps: caps.deviceCaps, isMultiplanar: type == V4L2Query.multiplanarType,
                unavailableReason: DeviceEnumerator.mediaPipelineReason)
            d.hiddenReason = DeviceEnumerator.mediaPipelineReason
            return .hidden(d)
        }
        guard V4L2Query.hasPixelFormat(node, type: type) else { return .notCapture }
        let usbType = deviceType(driver: caps.driver, udev: u)
        // A face-login IR camera faces where its colour twin does.
        let position = V4L2Query.orientation(node) ?? defaultPosition(usbType)
        let devType = isInfrared(node, type: type, udev: u) ? .infrared : usbType
        var d = DeviceInfo(
            id: stableID(u, busInfo: caps.busInfo), name: caps.card, node: u.devnode,
            busInfo: caps.busInfo, driver: caps.driver, usbVendorID: u.usbVendorID,
            usbProductID: u.usbProductID, type: devType, position: position,
            deviceCaps: caps.deviceCaps,
            isMultiplanar: type == V4L2Query.multiplanarType)
        d.rotation = V4L2Query.sensorRotation(node)   // S45
        return .device(d)
    }

    /// S44: the node offers only greyscale or depth formats and sits on a
    /// USB device that also has a colour capture node (face-login cameras
    /// are one USB device with two camera functions). A greyscale camera
    /// alone (machine vision) is a camera like any other.
    static func isInfrared(_ node: V4L2Node, type: UInt32, udev u: UdevNode) -> Bool {
        guard let usb = u.usbDevice else { return false }
        let formats = V4L2Query.pixelFormats(node, type: type)
        guard !formats.isEmpty, formats.allSatisfy({ isGreyscaleOrDepth($0.fourcc) }) else { return false }
        return UdevDevices.videoNodes(onUSBDevice: usb).contains { path in
            guard path != u.devnode else { return false }
            return offersColour(path)
        }
    }

    /// The node at `path` is a capture node (not a media pipeline's) with
    /// at least one format that is not greyscale or depth.
    static func offersColour(_ path: String) -> Bool {
        guard let node = try? V4L2Node(path: path, wrap: false) else { return false }
        defer { node.close() }
        guard let caps = try? V4L2Query.capabilities(node), V4L2Query.isVideoCapture(caps.deviceCaps),
              !V4L2Query.isMediaControllerCentric(caps.deviceCaps) else { return false }
        return V4L2Query.pixelFormats(node, type: V4L2Query.bufferType(caps.deviceCaps))
            .contains { !isGreyscaleOrDepth($0.fourcc) }
    }

    /// Luma-only and depth pixel formats (S44): what IR and depth camera
    /// functions offer (GREY, Y10, Y12, Y16, the packed and interleaved
    /// forms, Z16).
    static func isGreyscaleOrDepth(_ f: FourCC) -> Bool { greyscaleAndDepth.contains(f.rawValue) }
    private static let greyscaleAndDepth: Set<UInt32> = Set(
        ["GREY", "Y04 ", "Y06 ", "Y10 ", "Y12 ", "Y14 ", "Y16 ", "Y10B", "Y10P", "Y12P", "Y14P", "Y8I ",
         "Y12I", "Y16I", "Z16 ", "INVZ"].map { FourCC($0).rawValue } + [FourCC(bigEndian: "Y16 ").rawValue])

    /// Why a media-controller-centric node (V4L2_CAP_IO_MC) is no camera (S40).
    static let mediaPipelineReason =
        "part of a media pipeline (V4L2_CAP_IO_MC): its format is set through the media controller; use the libcamera backend"

    /// S2: built from ID_SERIAL (only when the camera has a serial number,
    /// else identical models would share it) or ID_PATH plus the sysfs
    /// name, and the node index;
    /// bus_info stands in where udev has no data. Never from /dev/videoN.
    static func stableID(_ u: UdevNode, busInfo: String) -> String {
        let base: String
        if u.idSerialShort != nil, let s = u.idSerial {
            // The serial names the USB device: a second camera function on
            // it (an IR camera, S44) adds its interface number.
            let function = u.usbInterface.map { $0 == "00" ? "" : "-if" + $0 } ?? ""
            base = "serial-" + s + function
        } else if let p = u.idPath {
            // Several devices of one parent share ID_PATH (vivid instances,
            // multi-function boards); the sysfs name tells them apart. Both
            // are udev data, readable by anyone, bound to the port and not
            // to /dev/videoN: the id is the same for every user (S2).
            base = "path-" + p + ((u.name ?? "").isEmpty ? "" : "+" + u.name!)
        } else {
            base = "bus-" + busInfo
        }
        return "v4l2:\(base):\(u.index)"
    }

    static func deviceType(driver: String, udev: UdevNode) -> DeviceType {
        if driver == "vivid" || driver == "v4l2 loopback" || driver.hasPrefix("v4l2loopback") {
            return .virtual
        }
        if udev.isUSB { return udev.removable == "fixed" ? .builtin : .external }
        return .builtin
    }

    static func defaultPosition(_ t: DeviceType) -> CameraPosition {
        switch t {
        case .builtin: return .front
        case .external: return .external
        case .virtual: return .unknown
        case .infrared: return .front
        }
    }
}
