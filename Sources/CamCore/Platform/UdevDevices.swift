// SPDX-License-Identifier: MIT
internal import CUdev
#if canImport(Glibc)
import Glibc
#endif

/// What udev knows about one video4linux node (SPEC S2, S24).
struct UdevNode {
    var syspath: String
    /// "/dev/videoN".
    var devnode: String
    /// sysfs `index`: the node's index among its parent's video nodes.
    var index: Int
    var idSerial: String?
    var idSerialShort: String?
    var idPath: String?
    var usbVendorID: UInt16
    var usbProductID: UInt16
    /// sysfs `removable` of the USB device: "fixed", "removable" or "unknown".
    var removable: String?
    /// The node sits on a USB device.
    var isUSB: Bool
    /// udev's ID_V4L_CAPABILITIES, e.g. ":capture:" (from v4l_id).
    var v4lCapabilities: String? = nil
    /// sysfs `name` (the card name), readable without opening the node.
    var name: String? = nil
    /// The sysfs path of the USB device the node sits on; nil off USB.
    var usbDevice: String? = nil
    /// udev's ID_USB_INTERFACE_NUM: the node's function on its USB device
    /// ("00"; a second camera function, e.g. an IR one, has another).
    var usbInterface: String? = nil
}

/// libudev enumeration of the "video4linux" subsystem.
enum UdevDevices {
    /// Every video4linux node with a device node, sorted by node path
    /// (/dev/video2 before /dev/video10). Empty when udev is unavailable.
    static func videoNodes() -> [UdevNode] {
        var out: [UdevNode] = []
        eachVideoDevice(under: nil) { dev in
            // A node udev is still setting up has no ID_PATH yet, so its
            // id would differ from the final one: skip it until ready
            // (the monitor reports it then). Without udevd nothing is
            // "initialized": take every node.
            let ready = udev_device_get_is_initialized(dev) > 0 || !udevRunning
            if ready, let node = describe(dev) { out.append(node) }
        }
        return out.sorted { nodeOrder($0.devnode, $1.devnode) }
    }

    /// Calls `body` with each video4linux device udev knows, below the
    /// device at sysfs path `parent` when given (nothing when that path is
    /// gone); the one walk both listings share.
    private static func eachVideoDevice(under parent: String?, _ body: (OpaquePointer) -> Void) {
        guard let udev = udev_new() else { return }
        defer { udev_unref(udev) }
        guard let en = udev_enumerate_new(udev) else { return }
        defer { udev_enumerate_unref(en) }
        udev_enumerate_add_match_subsystem(en, "video4linux")
        if let parent {
            guard let p = udev_device_new_from_syspath(udev, parent) else { return }
            defer { udev_device_unref(p) }
            udev_enumerate_add_match_parent(en, p)
            udev_enumerate_scan_devices(en)
        } else {
            udev_enumerate_scan_devices(en)
        }
        var entry = udev_enumerate_get_list_entry(en)
        while let e = entry {
            if let sp = udev_list_entry_get_name(e), let dev = udev_device_new_from_syspath(udev, sp) {
                body(dev)
                udev_device_unref(dev)
            }
            entry = udev_list_entry_get_next(e)
        }
    }

    /// The node at this sysfs path, if it is still there (and ready, as in
    /// `videoNodes()`). One device's attributes, not the whole subsystem.
    static func node(syspath: String) -> UdevNode? {
        guard let udev = udev_new() else { return nil }
        defer { udev_unref(udev) }
        guard let dev = udev_device_new_from_syspath(udev, syspath) else { return nil }
        defer { udev_device_unref(dev) }
        guard udev_device_get_is_initialized(dev) > 0 || !udevRunning else { return nil }
        return describe(dev)
    }

    /// The device nodes of the video4linux devices on the USB device at
    /// sysfs path `usbDevice`, ready in udev or not (a sibling function
    /// probed while udev still handles the others), in node order.
    static func videoNodes(onUSBDevice usbDevice: String) -> [String] {
        var out: [String] = []
        eachVideoDevice(under: usbDevice) { dev in
            if let dn = udev_device_get_devnode(dev) { out.append(String(cString: dn)) }
        }
        return out.sorted(by: nodeOrder)
    }

    /// udevd keeps its database under /run/udev; without it (containers)
    /// devices are never marked initialized.
    static var udevRunning: Bool { access("/run/udev/control", F_OK) == 0 }

    /// Builds a node description from a udev device (also used by the monitor).
    static func describe(_ dev: OpaquePointer) -> UdevNode? {
        guard let dn = udev_device_get_devnode(dev) else { return nil }
        let devnode = String(cString: dn)
        guard devnode.hasPrefix("/dev/video") else { return nil }
        func prop(_ name: String) -> String? {
            guard let v = udev_device_get_property_value(dev, name) else { return nil }
            let s = String(cString: v)
            return s.isEmpty ? nil : s
        }
        func attr(_ d: OpaquePointer, _ name: String) -> String? {
            guard let v = udev_device_get_sysattr_value(d, name) else { return nil }
            return String(cString: v).trimmingWhitespace()
        }
        var node = UdevNode(
            syspath: String(cString: udev_device_get_syspath(dev)), devnode: devnode,
            index: Int(attr(dev, "index") ?? "0") ?? 0,
            idSerial: prop("ID_SERIAL"), idSerialShort: prop("ID_SERIAL_SHORT"),
            idPath: prop("ID_PATH"), usbVendorID: 0, usbProductID: 0, removable: nil, isUSB: false)
        node.v4lCapabilities = prop("ID_V4L_CAPABILITIES")
        node.name = attr(dev, "name")
        node.usbInterface = prop("ID_USB_INTERFACE_NUM")
        // The parent is owned by the child device: no unref.
        if let usb = udev_device_get_parent_with_subsystem_devtype(dev, "usb", "usb_device") {
            node.isUSB = true
            node.usbDevice = String(cString: udev_device_get_syspath(usb))
            node.usbVendorID = UInt16(attr(usb, "idVendor") ?? "", radix: 16) ?? 0
            node.usbProductID = UInt16(attr(usb, "idProduct") ?? "", radix: 16) ?? 0
            node.removable = attr(usb, "removable")
        }
        if node.usbVendorID == 0, let v = prop("ID_VENDOR_ID") { node.usbVendorID = UInt16(v, radix: 16) ?? 0 }
        if node.usbProductID == 0, let v = prop("ID_MODEL_ID") { node.usbProductID = UInt16(v, radix: 16) ?? 0 }
        return node
    }

    /// "/dev/video2" < "/dev/video10": by the number, then by the text.
    static func nodeOrder(_ a: String, _ b: String) -> Bool {
        let na = Int(a.dropFirst("/dev/video".count)), nb = Int(b.dropFirst("/dev/video".count))
        if let na, let nb, na != nb { return na < nb }
        return a < b
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\n" || c == "\t" || c == "\r" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\n" || c == "\t" || c == "\r" { s = s.dropLast() }
        return String(s)
    }
}
