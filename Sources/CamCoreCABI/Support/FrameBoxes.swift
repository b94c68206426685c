internal import CCamCore
import CamCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The C view of a frame: a `camcore_frame` followed by a magic word and
/// a token, in one malloc'd block. A capturer has one borrowed box that
/// it refills for each callback (no allocation per frame); retaining
/// copies it into a new box whose token keeps the buffer (S23).
enum FrameBox {
    static let frameBytes = (MemoryLayout<camcore_frame>.stride + 7) & ~7
    static let bytes = frameBytes + 16
    static let borrowedMagic: UInt64 = 0x4341_4D46_424F_5257
    static let retainedMagic: UInt64 = 0x4341_4D46_5245_5441

    static func allocate(magic: UInt64, token: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer {
        let p = malloc(bytes)!
        memset(p, 0, bytes)
        (p + frameBytes).storeBytes(of: magic, as: UInt64.self)
        (p + frameBytes + 8).storeBytes(of: token, as: UnsafeMutableRawPointer?.self)
        return p
    }

    static func magic(_ p: UnsafeRawPointer) -> UInt64 { (p + frameBytes).load(as: UInt64.self) }
    static func token(_ p: UnsafeRawPointer) -> UnsafeMutableRawPointer? {
        (p + frameBytes + 8).load(as: UnsafeMutableRawPointer?.self)
    }
    static func setMagic(_ p: UnsafeMutableRawPointer, _ m: UInt64) {
        (p + frameBytes).storeBytes(of: m, as: UInt64.self)
    }

    /// Calls `body` with a borrowed C frame for `frame`, built on the
    /// stack (no allocation per frame). Its token points at the Swift frame
    /// so that camcore_frame_retain() can keep the buffer.
    static func withBorrowed<R>(_ frame: Frame, _ body: (UnsafePointer<camcore_frame>) -> R) -> R {
        withUnsafeTemporaryAllocation(byteCount: bytes + MemoryLayout<Frame>.stride, alignment: 16) { raw in
            let p = raw.baseAddress!
            fill(p, frame)
            let swiftFrame = (p + bytes).bindMemory(to: Frame.self, capacity: 1)
            swiftFrame.initialize(to: frame)
            (p + frameBytes).storeBytes(of: borrowedMagic, as: UInt64.self)
            (p + frameBytes + 8).storeBytes(of: UnsafeMutableRawPointer(swiftFrame), as: UnsafeMutableRawPointer?.self)
            defer {
                setMagic(p, 0)
                swiftFrame.deinitialize(count: 1)
            }
            return body(UnsafePointer(p.assumingMemoryBound(to: camcore_frame.self)))
        }
    }

    /// A Swift frame describing an app's C frame (custom source, hook
    /// replacement); nil when it is malformed. Not retainable.
    static func frame(from c: camcore_frame) -> Frame? {
        guard Versioned.frame.accepts(c.struct_size), c.width > 0, c.height > 0,
              (1...3).contains(c.plane_count) else { return nil }
        let cp = [c.planes.0, c.planes.1, c.planes.2]
        for i in 0..<Int(c.plane_count) where cp[i].data == nil || cp[i].length == 0 { return nil }
        func plane(_ i: Int) -> Plane {
            i < Int(c.plane_count) ? Plane(base: UnsafeMutableRawPointer(cp[i].data), stride: Int(cp[i].stride),
                                           length: Int(cp[i].length)) : .empty
        }
        return Frame(fourcc: FourCC(rawValue: c.fourcc), width: Int(c.width), height: Int(c.height),
                     planeCount: Int(c.plane_count), planes: (plane(0), plane(1), plane(2)),
                     timestampNs: c.timestamp_ns, sequence: c.sequence,
                     flags: FrameFlags(rawValue: c.flags), droppedBefore: c.dropped_before)
    }

    static func fill(_ box: UnsafeMutableRawPointer, _ f: Frame) {
        func plane(_ p: Plane) -> camcore_plane {
            camcore_plane(data: p.base?.assumingMemoryBound(to: UInt8.self),
                          stride: UInt32(truncatingIfNeeded: p.stride),
                          length: UInt32(truncatingIfNeeded: p.length))
        }
        box.storeBytes(of: camcore_frame(
            struct_size: UInt32(MemoryLayout<camcore_frame>.size), fourcc: f.fourcc.rawValue,
            width: UInt32(f.width), height: UInt32(f.height), plane_count: UInt32(f.planeCount),
            flags: f.flags.rawValue, planes: (plane(f.planes.0), plane(f.planes.1), plane(f.planes.2)),
            timestamp_ns: f.timestampNs, sequence: f.sequence, dropped_before: f.droppedBefore),
            as: camcore_frame.self)
    }
}

/// What a capturer handle points at.
final class CapturerBox {
    let capturer: Capturer
    let deviceID: UnsafeMutablePointer<CChar>

    init(_ capturer: Capturer) {
        self.capturer = capturer
        deviceID = strdup(capturer.device.id)
    }

    deinit { free(deviceID) }
}

/// What a manager handle points at.
final class ManagerBox {
    let manager: Manager
    private var hotplugToken: Int?
    private let lock = Mutex(())
    init(_ m: Manager) { manager = m }

    deinit { if let t = hotplugToken { manager.stopObserving(t) } }

    /// Replaces the hot-plug callbacks (nil removes them).
    func setHotplug(_ c: camcore_hotplug_callbacks?) -> Int32 {
        lock.withLock { _ -> Int32 in
            if let t = hotplugToken { manager.stopObserving(t); hotplugToken = nil }
            guard let c else { return 0 }
            do throws(CamError) {
                hotplugToken = try manager.observeDevices { change in
                    switch change {
                    case .added(let d): if let f = c.on_connected { withCDevice(d) { f(c.user_data, $0) } }
                    case .removed(let d): if let f = c.on_disconnected { withCDevice(d) { f(c.user_data, $0) } }
                    }
                }
                return 0
            } catch {
                return fail(error)
            }
        }
    }
}

/// Calls `body` with a C description of `d` valid during the call.
func withCDevice(_ d: DeviceInfo, _ body: (UnsafePointer<camcore_device_info>) -> Void) {
    guard let list = Lists.deviceList([d]) else { return }
    defer { free(list) }
    body(list.pointee.devices)
}
