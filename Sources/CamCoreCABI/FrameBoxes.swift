import CCamCore
import CamCore
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
    /// The borrowed frame box handed to on_frame.
    let scratch: UnsafeMutableRawPointer
    /// The frame being delivered; set only on the capture thread during on_frame.
    var current: Frame?

    init(_ capturer: Capturer) {
        self.capturer = capturer
        deviceID = strdup(capturer.device.id)
        scratch = FrameBox.allocate(magic: 0, token: nil)
        FrameBox.setMagic(scratch, FrameBox.borrowedMagic)
        (scratch + FrameBox.frameBytes + 8).storeBytes(
            of: Unmanaged.passUnretained(self).toOpaque(), as: UnsafeMutableRawPointer?.self)
    }

    deinit {
        free(deviceID)
        FrameBox.setMagic(scratch, 0)
        free(scratch)
    }
}

/// What a manager handle points at.
final class ManagerBox {
    let manager: Manager
    init(_ m: Manager) { manager = m }
}
