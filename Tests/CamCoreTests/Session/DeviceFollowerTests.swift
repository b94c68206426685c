// SPDX-License-Identifier: MIT
import Testing
@testable import CamCore

/// S19 and S25 on DeviceFollower alone: no camera, no udev.
struct DeviceFollowerTests {
    static func d(_ id: String, _ position: CameraPosition = .unknown) -> DeviceInfo {
        DeviceInfo(id: id, name: id, node: "/dev/\(id)", busInfo: id, driver: "test", type: .external, position: position)
    }

    @Test func test_S19_flip_targets() {
        let front = Self.d("f", .front), back = Self.d("b", .back), ext = Self.d("x", .external)
        #expect(DeviceFollower(device: front).flipTarget(among: [ext, front, back])?.id == "b")
        #expect(DeviceFollower(device: back).flipTarget(among: [front, ext, back])?.id == "f")
        // No opposite position: the next camera in list order, wrapping.
        #expect(DeviceFollower(device: front).flipTarget(among: [ext, front])?.id == "x")
        let a = Self.d("a"), b = Self.d("b"), c = Self.d("c")
        #expect(DeviceFollower(device: a).flipTarget(among: [a, b, c])?.id == "b")
        #expect(DeviceFollower(device: c).flipTarget(among: [a, b, c])?.id == "a")
        // The device in use is not listed (gone): the first camera.
        #expect(DeviceFollower(device: Self.d("gone")).flipTarget(among: [a, b])?.id == "a")
        #expect(DeviceFollower(device: a).flipTarget(among: [a]) == nil)
        #expect(DeviceFollower(device: nil).flipTarget(among: []) == nil)
    }

    static func ir(_ id: String) -> DeviceInfo {
        DeviceInfo(id: id, name: id, node: "/dev/\(id)", busInfo: id, driver: "uvcvideo", type: .infrared, position: .front)
    }

    @Test func test_S44_flip_fallback_and_arrival_never_pick_an_infrared_camera() {
        let colour = Self.d("c", .front), ir = Self.ir("i"), ext = Self.d("x", .external)
        // Flip from the colour camera: the IR one faces the same way and is
        // next in list order, and is still never the target.
        #expect(DeviceFollower(device: colour).flipTarget(among: [colour, ir]) == nil)
        #expect(DeviceFollower(device: colour).flipTarget(among: [colour, ir, ext])?.id == "x")
        #expect(DeviceFollower(device: ext).flipTarget(among: [colour, ir, ext])?.id == "c")
        // An app that chose the IR camera flips to a colour one.
        #expect(DeviceFollower(device: ir).flipTarget(among: [colour, ir])?.id == "c")
        // The colour camera is lost: the stand-in is not the IR one.
        let f = DeviceFollower(device: colour)
        #expect(f.lost(colour, available: [colour, ir]) == nil && f.device == nil)
        #expect(DeviceFollower(device: colour).lost(colour, available: [ir, ext])?.id == "x")
        // No device: an arriving IR camera is announced, not switched to.
        let none = DeviceFollower(device: nil)
        var told: [String] = []
        #expect(!none.added(ir, announce: { if case .connected(let d) = $0 { told.append(d.id) } }))
        #expect(none.added(ext, announce: { if case .connected(let d) = $0 { told.append(d.id) } }))
        #expect(told == ["i", "x"])
    }

    @Test func test_S25_a_stand_in_arriving_first_does_not_replace_the_return() {
        // Two cameras both gone (e.g. a hub): the session has none. The other
        // one comes back first and is taken; the lost one, back later, is
        // returned to.
        let a = Self.d("a"), b = Self.d("b")
        let f = DeviceFollower(device: a)
        #expect(f.removed(a, announce: { _ in }))
        #expect(f.lost(a, available: []) == nil && f.device == nil)
        #expect(f.added(b, announce: { _ in }))     // no device: take b
        f.use(b)
        #expect(f.added(a, announce: { _ in }))     // a is back: return to it
        f.use(a)
        #expect(!f.added(b, announce: { _ in }))    // and nothing more to return to
    }

    @Test func test_S44_listing_puts_infrared_after_colour_and_default_skips_it() {
        let colour = Self.d("c", .front), ir = Self.ir("i"), ext = Self.d("x", .external)
        var synth = Self.d("synthetic:0")
        synth.isSynthetic = true
        synth.type = .virtual
        #expect(Manager.colourFirst([ir, colour, ext, synth]).map(\.id) == ["c", "x", "i", "synthetic:0"])
        #expect(Manager.colourFirst([colour, ext]).map(\.id) == ["c", "x"])
        #expect(Manager.defaultDevice(among: [ir, colour])?.id == "c")
        #expect(Manager.defaultDevice(among: [ir]) == nil)
        #expect(Manager.defaultDevice(among: []) == nil)
        #expect(DeviceEnumerator.isGreyscaleOrDepth(.grey) && DeviceEnumerator.isGreyscaleOrDepth(FourCC("Z16 ")))
        #expect(DeviceEnumerator.isGreyscaleOrDepth(FourCC(bigEndian: "Y16 ")))
        #expect(!DeviceEnumerator.isGreyscaleOrDepth(.yuyv) && !DeviceEnumerator.isGreyscaleOrDepth(.mjpeg))
    }

    @Test func test_S18_S19_switch_preference_keeps_size_and_rate() {
        let base = CapturePreference(width: 640, height: 480, minRate: FrameRate(15), maxRate: FrameRate(30))
        let f = CaptureFormat(fourcc: .yuyv, width: 320, height: 240, strides: [], frameBytes: 0,
                              frameRate: FrameRate(25), bufferCount: 0)
        let r = CaptureRequest(fourcc: .nv12, width: 1280, height: 720, frameRate: FrameRate(60))
        let flip = DeviceFollower.preference(base, keeping: f, request: r)
        #expect(flip.width == 320 && flip.height == 240 && flip.minRate == FrameRate(25) && flip.maxRate == FrameRate(25))
        let select = DeviceFollower.preference(base, keeping: nil, request: r)
        #expect(select.width == 1280 && select.height == 720 && select.minRate == FrameRate(60))
        let plain = DeviceFollower.preference(base, keeping: nil, request: nil)
        #expect(plain.width == 640 && plain.minRate == FrameRate(15) && plain.maxRate == FrameRate(30))
    }

    @Test func test_S25_lost_device_returns_when_it_comes_back() {
        let a = Self.d("a"), b = Self.d("b")
        let f = DeviceFollower(device: a)
        var events: [String] = []
        func note(_ e: SessionEvent) {
            switch e {
            case .connected(let d): events.append("+\(d.id)")
            case .disconnected(let d): events.append("-\(d.id)")
            default: events.append("?")
            }
        }
        #expect(f.removed(a, announce: note))               // the device in use
        #expect(f.lost(a, available: [a, b])?.id == "b")    // stand-in
        f.use(b)
        #expect(!f.removed(Self.d("c"), announce: note))    // another one: announced only
        #expect(f.added(a, announce: note))                 // a is back: switch to it
        f.use(a)
        #expect(!f.added(b, announce: note))                // a in use, b not the lost one: no switch
        #expect(events == ["-a", "-c", "+a", "+b"])
    }

    @Test func test_S25_return_off_and_app_choice_replace_the_return() {
        let a = Self.d("a"), b = Self.d("b")
        let f = DeviceFollower(device: a)
        _ = f.lost(a, available: [b]); f.use(b)
        f.returnsToReconnectedDevice = false
        #expect(!f.added(a, announce: { _ in }))
        f.returnsToReconnectedDevice = true
        f.appSelected()                                      // the app chose: no automatic return
        #expect(!f.added(a, announce: { _ in }))
    }

    @Test func test_S25_no_stand_in_and_announced_gone() {
        let a = Self.d("a")
        let f = DeviceFollower(device: a)
        f.captureFoundGone(a)
        var n = 0
        #expect(!f.removed(a, announce: { _ in n += 1 }))   // the failed capture announced it
        #expect(n == 0)
        #expect(f.lost(a, available: []) == nil && f.device == nil)
        #expect(f.added(a, announce: { _ in n += 1 }) && n == 1)   // no device: take the one that came
    }
}
