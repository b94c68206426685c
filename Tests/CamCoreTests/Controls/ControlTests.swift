// SPDX-License-Identifier: MIT
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import CamCore

/// S27 logic without a device: validation and rounding against made-up
/// control descriptions shaped like real drivers' (vivid, uvcvideo), and
/// the synthetic camera, which has no controls.
@Suite struct ControlTests {
    // Shaped like vivid's / uvcvideo's controls.
    let brightness = ControlInfo(id: 0x0098_0900, name: "Brightness", type: .integer,
                                 minimum: 0, maximum: 255, step: 1, defaultValue: 128, flags: [.slider])
    let exposure = ControlInfo(id: 0x009a_0902, name: "Exposure Time, Absolute", type: .integer,
                               minimum: 3, maximum: 2047, step: 4, defaultValue: 250)
    let whiteBalance = ControlInfo(id: 0x0098_091a, name: "White Balance Temperature", type: .integer,
                                   minimum: 2800, maximum: 6500, step: 10, defaultValue: 4600)
    let hue = ControlInfo(id: 0x0098_0903, name: "Hue", type: .integer, minimum: -128, maximum: 128, step: 5)
    let gainInactive = ControlInfo(id: 0x0098_0913, name: "Gain", type: .integer, minimum: 0, maximum: 255,
                                   step: 1, defaultValue: 100, flags: [.inactive, .volatile])
    let readOnly = ControlInfo(id: 0x0098_f90c, name: "Read-Only Integer 32 Bits", type: .integer,
                               minimum: 0, maximum: 255, step: 1, flags: [.readOnly])
    let menu = ControlInfo(id: 0x0098_f904, name: "Menu", type: .menu, minimum: 1, maximum: 4, step: 1,
                           defaultValue: 3, menu: [MenuItem(index: 1, name: "Menu Item 1", value: 1),
                                                   MenuItem(index: 3, name: "Menu Item 3", value: 3),
                                                   MenuItem(index: 4, name: "Menu Item 4", value: 4)])
    let intMenu = ControlInfo(id: 0x0098_f907, name: "Integer Menu", type: .integerMenu, minimum: 1, maximum: 3,
                              defaultValue: 2, menu: [MenuItem(index: 2, name: "2", value: 2),
                                                      MenuItem(index: 3, name: "4294967296", value: 1 << 32)])
    let bitmask = ControlInfo(id: 0x0098_f906, name: "Bitmask", type: .bitmask, minimum: 0,
                              maximum: 0x8040_2010, step: 0, defaultValue: 0x8000_2000)
    let int64 = ControlInfo(id: 0x0098_f903, name: "Integer 64 Bits", type: .integer64,
                            minimum: Int64.min, maximum: Int64.max, step: 1)
    let button = ControlInfo(id: 0x0098_f900, name: "Button", type: .button, flags: [.writeOnly, .executeOnWrite])
    let boolean = ControlInfo(id: 0x0098_0912, name: "Gain, Automatic", type: .boolean, minimum: 0, maximum: 1,
                              step: 1, defaultValue: 1, flags: [.update])
    let string = ControlInfo(id: 0x0098_f905, name: "String", type: .string, minimum: 2, maximum: 4, step: 1,
                             flags: [.hasPayload])

    func error(_ info: ControlInfo, _ value: Int64) -> CamError? {
        do { _ = try info.check(value); return nil } catch { return error }
    }

    @Test func test_S27_in_range_values_pass_unchanged() throws {
        #expect(try brightness.check(0) == 0)
        #expect(try brightness.check(200) == 200)
        #expect(try brightness.check(255) == 255)
        #expect(try int64.check(Int64.min) == Int64.min)
        #expect(try int64.check(Int64.max) == Int64.max)
        #expect(try boolean.check(0) == 0)
        #expect(try boolean.check(1) == 1)
    }

    @Test func test_S27_out_of_range_is_an_error_with_the_range() {
        for v: Int64 in [-1, 256, 1 << 40] {
            guard case .invalidArgument(let m)? = error(brightness, v) else {
                Issue.record("value \(v) accepted"); continue
            }
            #expect(m.contains("\(v) is out of range"))
            #expect(m.contains("'Brightness' (0x00980900)"))
            #expect(m.contains("minimum 0, maximum 255, step 1"))
        }
        guard case .invalidArgument(let m)? = error(boolean, 2) else { Issue.record("2 accepted for a boolean"); return }
        #expect(m.contains("0 or 1"))
    }

    /// The kernel's ROUND_TO_RANGE: nearest step above minimum, halves up,
    /// the top half-step goes to the highest step not above maximum.
    @Test func test_S27_off_step_values_round_like_the_kernel() throws {
        // exposure: 3, 7, 11, ... 2047 (step 4 from 3)
        #expect(try exposure.check(3) == 3)
        #expect(try exposure.check(4) == 3)
        #expect(try exposure.check(5) == 7)     // halfway rounds up
        #expect(try exposure.check(6) == 7)
        #expect(try exposure.check(9) == 11)
        #expect(try exposure.check(2046) == 2047)
        // white balance: 2800, 2810, ... 6500
        #expect(try whiteBalance.check(4604) == 4600)
        #expect(try whiteBalance.check(4605) == 4610)
        #expect(try whiteBalance.check(6499) == 6500)
        // negative minimum: -128, -123, ..., 122, 127; 128 is max but not on a step
        #expect(try hue.check(-126) == -128)
        #expect(try hue.check(-125) == -123)
        #expect(try hue.check(0) == 2)
        #expect(try hue.check(126) == 127)
        #expect(try hue.check(128) == 127)
        // step 1 never changes a value
        for v: Int64 in [0, 1, 127, 254, 255] { #expect(brightness.rounded(v) == v) }
    }

    @Test func test_S27_rounding_matches_the_kernel_formula_exhaustively() {
        // The kernel macro, written out independently, over small ranges.
        func kernel(_ val: Int64, _ minimum: Int64, _ maximum: Int64, _ step: Int64) -> Int64 {
            var v = val
            if maximum >= 0 && v >= maximum - step / 2 { v = maximum } else { v += step / 2 }
            v = Swift.min(Swift.max(v, minimum), maximum)
            return minimum + step * ((v - minimum) / step)
        }
        for (lo, hi) in [(0, 20), (-7, 9), (3, 30), (-20, -3)] as [(Int64, Int64)] {
            for step: Int64 in 1...6 {
                let c = ControlInfo(id: 1, name: "t", type: .integer, minimum: lo, maximum: hi, step: step)
                for v in lo...hi { #expect(c.rounded(v) == kernel(v, lo, hi, step), "v \(v) in \(lo)...\(hi) step \(step)") }
            }
        }
    }

    @Test func test_S27_read_only_and_inactive_are_refused() {
        guard case .notSupported(let m)? = error(readOnly, 5) else { Issue.record("read-only accepted"); return }
        #expect(m.contains("read-only"))
        guard case .state(let s)? = error(gainInactive, 50) else { Issue.record("inactive accepted"); return }
        #expect(s.contains("inactive"))
        var grabbed = brightness
        grabbed.flags.insert(.grabbed)
        guard case .state(let g)? = error(grabbed, 50) else { Issue.record("grabbed accepted"); return }
        #expect(g.contains("grabbed"))
        guard case .notSupported? = error(string, 1) else { Issue.record("string set accepted"); return }
    }

    @Test func test_S27_string_lengths_are_checked_never_cut() throws {
        // vivid's 'String': 2...4 bytes, step 1.
        let vividString = ControlInfo(id: 0x0098_f905, name: "String", type: .string, minimum: 2, maximum: 4, step: 1)
        for ok in ["ab", "abc", "abcd", "äb"] { try vividString.checkString(ok) }
        for bad in ["", "a", "abcde", "äbcd"] {  // "äbcd" is 4 characters but 5 bytes
            guard case .invalidArgument(let m)? = stringError(vividString, bad) else {
                Issue.record("\(bad) accepted"); continue
            }
            #expect(m.contains("length from 2 to 4"))
        }
        guard case .invalidArgument(let nul)? = stringError(vividString, "a\u{0}b") else {
            Issue.record("NUL accepted"); return
        }
        #expect(nul.contains("NUL"))
        let stepped = ControlInfo(id: 1, name: "Stepped", type: .string, minimum: 2, maximum: 8, step: 2)
        try stepped.checkString("abcd")
        guard case .invalidArgument(let s)? = stringError(stepped, "abc") else { Issue.record("off-step length"); return }
        #expect(s.contains("in steps of 2"))
        guard case .notSupported(let n)? = stringError(brightness, "12") else { Issue.record("number as string"); return }
        #expect(n.contains("not a string"))
        var readOnly = vividString
        readOnly.flags.insert(.readOnly)
        guard case .notSupported? = stringError(readOnly, "abc") else { Issue.record("read-only string set"); return }
    }

    private func stringError(_ c: ControlInfo, _ text: String) -> CamError? {
        do { try c.checkString(text); return nil } catch { return error }
    }

    @Test func test_S27_menus_refuse_skipped_indices() throws {
        #expect(try menu.check(1) == 1)
        #expect(try menu.check(3) == 3)
        #expect(try menu.check(4) == 4)
        for v: Int64 in [0, 2, 5, -1] {
            guard case .invalidArgument(let m)? = error(menu, v) else { Issue.record("menu index \(v) accepted"); continue }
            #expect(m.contains("valid indices: 1 (Menu Item 1), 3 (Menu Item 3), 4 (Menu Item 4)"))
        }
        #expect(try intMenu.check(3) == 3)
        guard case .invalidArgument(let m)? = error(intMenu, 1) else { Issue.record("skipped int menu index"); return }
        #expect(m.contains("3 (= 4294967296)"))
    }

    @Test func test_S27_bitmask_refuses_foreign_bits() throws {
        #expect(try bitmask.check(0) == 0)
        #expect(try bitmask.check(0x8000_0000) == 0x8000_0000)
        #expect(try bitmask.check(0x8040_2010) == 0x8040_2010)
        for v: Int64 in [1, 0x100, -1, 0x1_0000_0000] {
            guard case .invalidArgument(let m)? = error(bitmask, v) else { Issue.record("bits \(v) accepted"); continue }
            #expect(m.contains("valid bits: 0x80402010"))
        }
    }

    @Test func test_S27_button_takes_any_value() throws {
        #expect(try button.check(0) == 0)
        #expect(try button.check(12345) == 0)
        #expect(!button.isReadable)
        #expect(brightness.isReadable)
        #expect(!string.isReadable)
    }

    @Test func test_S27_types_and_flags_equal_v4l2() {
        #expect(ControlType.integer.rawValue == 1 && ControlType.boolean.rawValue == 2)
        #expect(ControlType.menu.rawValue == 3 && ControlType.button.rawValue == 4)
        #expect(ControlType.integer64.rawValue == 5 && ControlType.string.rawValue == 7)
        #expect(ControlType.bitmask.rawValue == 8 && ControlType.integerMenu.rawValue == 9)
        #expect(ControlFlags.readOnly.rawValue == 0x4 && ControlFlags.inactive.rawValue == 0x10)
        #expect(ControlFlags.writeOnly.rawValue == 0x40 && ControlFlags.volatile.rawValue == 0x80)
        #expect(ControlFlags.grabbed.rawValue == 0x2)
        #expect(ControlFlags([.inactive, .volatile]).names == ["inactive", "volatile"])
        #expect(ControlChanges.value.rawValue == 1 && ControlChanges.flags.rawValue == 2 && ControlChanges.range.rawValue == 4)
    }

    @Test func test_S27_synthetic_camera_has_no_controls() throws {
        let m = try Manager(config: ManagerConfig(includeSynthetic: true))
        let cap = try m.open(deviceID: SyntheticCamera.id)
        #expect(try cap.controls.list().isEmpty)
        #expect(throws: CamError.self) { try cap.controls.value(0x0098_0900) }
        do {
            _ = try cap.controls.set(0x0098_0900, to: 1)
            Issue.record("set on the synthetic camera succeeded")
        } catch {
            guard case .notSupported = error else { Issue.record("\(error)"); return }
        }
        try cap.controls.setChangeHandler { _ in Issue.record("synthetic camera reported a control change") }
        try cap.controls.setChangeHandler(nil)
        try cap.close()
        do {
            _ = try cap.controls.list()
            Issue.record("list after close succeeded")
        } catch {
            guard case .state = error else { Issue.record("\(error)"); return }
        }
    }
}
