// SPDX-License-Identifier: MIT
/// Camera controls as values (SPEC S27): what a control is, what it may be
/// set to, and how a driver rounds a value. Pure logic, no device: the
/// ioctls live in ControlDevice.swift, the per-capturer object in
/// CameraControls.swift.

/// A control's type; raw values equal V4L2's `V4L2_CTRL_TYPE_*`.
package enum ControlType: UInt32, Sendable, CaseIterable {
    case integer = 1
    case boolean = 2
    case menu = 3
    case button = 4
    case integer64 = 5
    /// A class heading ("User Controls"); never listed.
    case controlClass = 6
    case string = 7
    case bitmask = 8
    case integerMenu = 9

    /// Short lowercase name, as v4l2-ctl prints it ("int", "menu", ...).
    package var name: String {
        switch self {
        case .integer: return "int"
        case .boolean: return "bool"
        case .menu: return "menu"
        case .button: return "button"
        case .integer64: return "int64"
        case .controlClass: return "class"
        case .string: return "str"
        case .bitmask: return "bitmask"
        case .integerMenu: return "intmenu"
        }
    }

    /// Whether the value is a number camcore reads and writes (all but strings and class headings).
    package var isScalar: Bool { self != .string && self != .controlClass }
}

/// Control flags; raw values equal V4L2's `V4L2_CTRL_FLAG_*`.
package struct ControlFlags: OptionSet, Sendable, Hashable {
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }
    package static let disabled = ControlFlags(rawValue: 0x0001)
    package static let grabbed = ControlFlags(rawValue: 0x0002)
    package static let readOnly = ControlFlags(rawValue: 0x0004)
    package static let update = ControlFlags(rawValue: 0x0008)
    package static let inactive = ControlFlags(rawValue: 0x0010)
    package static let slider = ControlFlags(rawValue: 0x0020)
    package static let writeOnly = ControlFlags(rawValue: 0x0040)
    package static let volatile = ControlFlags(rawValue: 0x0080)
    package static let hasPayload = ControlFlags(rawValue: 0x0100)
    package static let executeOnWrite = ControlFlags(rawValue: 0x0200)
    package static let modifyLayout = ControlFlags(rawValue: 0x0400)
    package static let dynamicArray = ControlFlags(rawValue: 0x0800)

    /// Names of the set flags, e.g. ["inactive", "volatile"].
    package var names: [String] {
        let all: [(ControlFlags, String)] = [
            (.disabled, "disabled"), (.grabbed, "grabbed"), (.readOnly, "read-only"),
            (.update, "update"), (.inactive, "inactive"), (.slider, "slider"),
            (.writeOnly, "write-only"), (.volatile, "volatile"), (.hasPayload, "has-payload"),
            (.executeOnWrite, "execute-on-write"), (.modifyLayout, "modify-layout"),
            (.dynamicArray, "dynamic-array")]
        return all.filter { contains($0.0) }.map { $0.1 }
    }
}

/// One entry of a menu or integer-menu control.
package struct MenuItem: Sendable, Equatable {
    /// The value to set to choose this item.
    package var index: UInt32
    /// The item's label; for integer menus, the decimal value.
    package var name: String
    /// Integer menus: the item's number; menus: equal to `index`.
    package var value: Int64

    package init(index: UInt32, name: String, value: Int64) {
        self.index = index; self.name = name; self.value = value
    }
}

/// One control of a device (S27), as VIDIOC_QUERY_EXT_CTRL and
/// VIDIOC_QUERYMENU describe it, with its value when it was read.
package struct ControlInfo: Sendable, Equatable {
    /// The V4L2 control id (V4L2_CID_*).
    package var id: UInt32
    package var name: String
    package var type: ControlType
    /// Bounds and step. Bitmask: `maximum` holds the bits that may be set.
    /// String: lengths in characters.
    package var minimum: Int64
    package var maximum: Int64
    package var step: Int64
    package var defaultValue: Int64
    /// The value when listed; 0 for write-only controls, buttons and strings.
    package var value: Int64
    package var flags: ControlFlags
    /// Menu items in index order; skipped indices are absent. Empty for other types.
    package var menu: [MenuItem]

    package init(id: UInt32, name: String, type: ControlType, minimum: Int64 = 0, maximum: Int64 = 0,
                step: Int64 = 1, defaultValue: Int64 = 0, value: Int64 = 0, flags: ControlFlags = [],
                menu: [MenuItem] = []) {
        self.id = id; self.name = name; self.type = type
        self.minimum = minimum; self.maximum = maximum; self.step = step
        self.defaultValue = defaultValue; self.value = value; self.flags = flags; self.menu = menu
    }

    /// "'Brightness' (0x00980900)": how messages name a control.
    package var label: String { "'\(name)' (\(Self.hex(id)))" }

    /// Whether the current value can be read (not write-only, a button or a string).
    package var isReadable: Bool {
        type.isScalar && type != .button && !flags.contains(.writeOnly)
    }

    /// The values a user may set, in words, for error messages.
    package var validValues: String {
        switch type {
        case .menu, .integerMenu:
            let items = menu.map { type == .menu ? "\($0.index) (\($0.name))" : "\($0.index) (= \($0.value))" }
            return "valid indices: " + (items.isEmpty ? "none" : items.joined(separator: ", "))
        case .bitmask:
            return "valid bits: \(Self.hex(UInt32(truncatingIfNeeded: maximum)))"
        case .boolean:
            return "valid values: 0 or 1"
        case .button:
            return "any value presses it"
        default:
            return "minimum \(minimum), maximum \(maximum), step \(step)"
        }
    }

    /// Checks that `value` may be set now and returns the value the driver
    /// will apply: out-of-range values are refused (the kernel would
    /// silently clamp them), in-range values off the step are rounded the
    /// way the kernel's control framework does (see `rounded(_:)`).
    /// Errors: notSupported (read-only, disabled, not a number), state
    /// (inactive, or grabbed while streaming), invalidArgument (out of
    /// range, a skipped menu index, bits outside the mask).
    package func check(_ value: Int64) throws(CamError) -> Int64 {
        if flags.contains(.disabled) { throw .notSupported("control \(label) is disabled by the driver") }
        if flags.contains(.readOnly) { throw .notSupported("control \(label) is read-only") }
        if !type.isScalar {
            throw .notSupported("control \(label) is a \(type.name) control; camcore sets numeric controls only (use the device fd)")
        }
        if flags.contains(.inactive) {
            throw .state("control \(label) is inactive: another control (such as its automatic mode) is in charge of it; turn that off first")
        }
        if flags.contains(.grabbed) {
            throw .state("control \(label) is grabbed (locked while the device streams); stop the capture first")
        }
        switch type {
        case .button:
            return 0
        case .menu, .integerMenu:
            guard value >= minimum, value <= maximum, menu.contains(where: { Int64($0.index) == value }) else {
                throw .invalidArgument("value \(value) is not a valid item of menu control \(label); \(validValues)")
            }
            return value
        case .bitmask:
            let mask = UInt32(truncatingIfNeeded: maximum)
            guard value >= 0, value <= Int64(UInt32.max), UInt32(value) & ~mask == 0 else {
                throw .invalidArgument("value \(Self.hex(value)) sets bits that bitmask control \(label) does not have; \(validValues)")
            }
            return value
        default:
            guard value >= minimum, value <= maximum else {
                throw .invalidArgument("value \(value) is out of range for control \(label): \(validValues)")
            }
            return rounded(value)
        }
    }

    /// Checks that the string `text` may be set now (V4L2_CTRL_TYPE_STRING:
    /// minimum and maximum are lengths in bytes, and the length must be
    /// minimum plus a multiple of step, else the kernel refuses it).
    /// Errors: notSupported (not a string control, read-only, disabled),
    /// state (inactive, grabbed), invalidArgument (length or a NUL byte).
    package func checkString(_ text: String) throws(CamError) { try checkString(bytes: Array(text.utf8)) }

    /// `checkString` for the exact bytes to be sent (no UTF-8 repair).
    package func checkString(bytes: [UInt8]) throws(CamError) {
        if type != .string {
            throw .notSupported("control \(label) is a \(type.name) control, not a string; set it as a number")
        }
        if flags.contains(.disabled) { throw .notSupported("control \(label) is disabled by the driver") }
        if flags.contains(.readOnly) { throw .notSupported("control \(label) is read-only") }
        if flags.contains(.inactive) { throw .state("control \(label) is inactive: another control is in charge of it") }
        if flags.contains(.grabbed) {
            throw .state("control \(label) is grabbed (locked while the device streams); stop the capture first")
        }
        if bytes.contains(0) { throw .invalidArgument("a string for control \(label) cannot contain a NUL byte") }
        let n = Int64(bytes.count)
        guard n >= minimum, n <= maximum, step <= 1 || (n - minimum) % step == 0 else {
            throw .invalidArgument("a string of \(n) bytes does not fit control \(label): length from \(minimum) to \(maximum)"
                + (step > 1 ? " in steps of \(step)" : ""))
        }
    }

    /// `value` (already within minimum...maximum) rounded to the step as
    /// the kernel's ROUND_TO_RANGE does: to the nearest multiple of `step`
    /// above `minimum`, halves going up, and a value within step/2 of the
    /// maximum going to the highest step not above the maximum.
    package func rounded(_ value: Int64) -> Int64 {
        guard step > 1, value >= minimum, value <= maximum else { return value }
        let half = step / 2
        var v = value
        if maximum >= 0 && v >= maximum &- half {
            v = maximum
        } else {
            v = v &+ half
        }
        v = min(max(v, minimum), maximum)
        let offset = UInt64(bitPattern: v &- minimum)
        return minimum &+ Int64(bitPattern: (offset / UInt64(step)) * UInt64(step))
    }

    static func hex(_ v: UInt32) -> String {
        let s = String(v, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 8 - s.count)) + s
    }

    static func hex(_ v: Int64) -> String {
        v < 0 ? "-0x" + String(v.magnitude, radix: 16) : "0x" + String(v, radix: 16)
    }
}

/// What changed in a control-change event; raw values equal V4L2's
/// `V4L2_EVENT_CTRL_CH_*`.
package struct ControlChanges: OptionSet, Sendable, Hashable {
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }
    package static let value = ControlChanges(rawValue: 0x1)
    package static let flags = ControlChanges(rawValue: 0x2)
    package static let range = ControlChanges(rawValue: 0x4)
}

/// A control-change event (V4L2_EVENT_CTRL): the control's state after the change.
package struct ControlChange: Sendable, Equatable {
    package var id: UInt32
    package var type: ControlType?
    /// The new value (0 for strings and buttons).
    package var value: Int64
    package var flags: ControlFlags
    package var changes: ControlChanges
    package var minimum: Int64
    package var maximum: Int64
    package var step: Int64
    package var defaultValue: Int64
}
