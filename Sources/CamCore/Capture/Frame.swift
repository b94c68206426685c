// SPDX-License-Identifier: MIT
/// One plane of a frame: where it starts, the bytes per row, the bytes used.
package struct Plane: @unchecked Sendable {
    /// First byte of the plane (after V4L2's data_offset). Borrowed.
    package var base: UnsafeMutableRawPointer?
    /// Bytes from one row to the next (bytesperline); 0 for compressed data.
    package var stride: Int
    /// Bytes of valid data in the plane.
    package var length: Int

    package init(base: UnsafeMutableRawPointer?, stride: Int, length: Int) {
        self.base = base; self.stride = stride; self.length = length
    }
    package static let empty = Plane(base: nil, stride: 0, length: 0)
}

/// Frame flags (SPEC S22, S26).
package struct FrameFlags: OptionSet, Sendable {
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }
    /// V4L2_BUF_FLAG_ERROR or a short buffer: the pixels are not to be trusted.
    package static let corrupted = FrameFlags(rawValue: 1)
}

/// A captured frame (SPEC S22). Its planes point into a capture buffer
/// that is valid during the frame callback; `retain()` keeps the buffer
/// out of the capture queue until the returned object is released (S23).
/// Plain value: building one allocates nothing.
package struct Frame: @unchecked Sendable {
    package var fourcc: FourCC
    /// Size in pixels.
    package var width: Int
    package var height: Int
    /// Planes in use, 1...3.
    package var planeCount: Int
    package var planes: (Plane, Plane, Plane)
    /// Capture time, CLOCK_MONOTONIC nanoseconds.
    package var timestampNs: UInt64
    /// The driver's sequence number.
    package var sequence: UInt32
    package var flags: FrameFlags
    /// Frames the driver dropped just before this one (sequence gap).
    package var droppedBefore: UInt32

    /// The buffers this frame lives in. Not a strong reference: a plain
    /// frame is only valid while its pool delivers it (the capture thread
    /// keeps the pool alive), and keeping Frame trivial spares the frame
    /// path a retain/release and outlined copies per hand-over.
    /// `retain()` takes a strong reference.
    /// (An Unmanaged reference rather than `unowned(unsafe)`: an optional
    /// unowned(unsafe) field let `Frame?` read a pool-less frame as nil.)
    let poolRef: Unmanaged<BufferPool>?
    var pool: BufferPool? { poolRef?.takeUnretainedValue() }
    let slot: Int

    init(fourcc: FourCC, width: Int, height: Int, planeCount: Int, planes: (Plane, Plane, Plane),
         timestampNs: UInt64, sequence: UInt32, flags: FrameFlags, pool: BufferPool?, slot: Int) {
        self.init(fourcc: fourcc, width: width, height: height, planeCount: planeCount, planes: planes,
                  timestampNs: timestampNs, sequence: sequence, flags: flags,
                  poolRef: pool.map { Unmanaged.passUnretained($0) }, slot: slot)
    }

    /// The frame path's form: the pool as the unretained reference it is kept as.
    @inline(__always)
    init(fourcc: FourCC, width: Int, height: Int, planeCount: Int, planes: (Plane, Plane, Plane),
         timestampNs: UInt64, sequence: UInt32, flags: FrameFlags, poolRef: Unmanaged<BufferPool>?, slot: Int) {
        self.fourcc = fourcc; self.width = width; self.height = height
        self.planeCount = planeCount; self.planes = planes; self.timestampNs = timestampNs
        self.sequence = sequence; self.flags = flags; self.droppedBefore = 0
        self.poolRef = poolRef; self.slot = slot
    }

    /// A frame of the app's own memory (custom source, hook replacement).
    /// Not retainable: camcore does not own the pixels.
    package init(fourcc: FourCC, width: Int, height: Int, planeCount: Int, planes: (Plane, Plane, Plane),
                timestampNs: UInt64, sequence: UInt32, flags: FrameFlags = [], droppedBefore: UInt32 = 0) {
        self.init(fourcc: fourcc, width: width, height: height, planeCount: planeCount, planes: planes,
                  timestampNs: timestampNs, sequence: sequence, flags: flags, pool: nil, slot: 0)
        self.droppedBefore = droppedBefore
    }

    /// Plane `i` (0...2); `.empty` past `planeCount`.
    package func plane(_ i: Int) -> Plane {
        switch i {
        case 0: return planes.0
        case 1 where planeCount > 1: return planes.1
        case 2 where planeCount > 2: return planes.2
        default: return .empty
        }
    }

    /// False for frames the app made (custom source, hook replacement):
    /// camcore does not own their memory, so it cannot keep it.
    package var isRetainable: Bool { pool != nil }

    /// Plane `i` as a DMA-BUF (S37): the fd of its buffer (VIDIOC_EXPBUF)
    /// and its byte offset there; (-1, 0) when the capture exports none.
    /// camcore's fd, valid as long as the frame. Worked out from the pool
    /// when asked, so frames carry nothing extra on the frame path.
    package var hasDmabuf: Bool { pool?.exportsDmabuf ?? false }

    package func dmabuf(plane i: Int) -> (fd: Int32, offset: Int) {
        guard i < planeCount, let pool, pool.exportsDmabuf else { return (-1, 0) }
        return pool.dmabuf(slot: slot, plane: i, base: self.plane(i).base)
    }

    /// Keeps this frame's buffer until the returned object is released
    /// (deinitialised). Safe from any thread, also after the capture stops.
    package func retain() -> RetainedFrame {
        pool?.retain(slot)
        return RetainedFrame(frame: self, owner: pool)
    }
}

/// A frame kept beyond its callback (S23). The buffer returns to the
/// capture queue when this object is released.
package final class RetainedFrame: @unchecked Sendable {
    package let frame: Frame
    /// Keeps the buffers (mapped memory) alive as long as the frame is kept.
    private let owner: BufferPool?
    /// A pulled frame taken from the queue (S36): the queue's retain.
    private let inner: RetainedFrame?
    /// A pulled frame (S36): the puller that counts it as held. Strong: a
    /// frame released after its capturer closed still tells it (no weak
    /// reference, no closure: one object per pulled frame).
    private let puller: FramePuller?
    init(frame: Frame, owner: BufferPool?) {
        self.frame = frame; self.owner = owner; inner = nil; puller = nil
    }
    /// The app's hold on a frame taken from a FramePuller's queue.
    init(pulled: RetainedFrame, from puller: FramePuller) {
        frame = pulled.frame; owner = nil; inner = pulled; self.puller = puller
    }
    /// The app's hold on a frame a reader took from the driver itself
    /// (FramePuller's pump): `frame`'s buffer is retained in `owner` already.
    init(pumped frame: Frame, owner: BufferPool?, from puller: FramePuller) {
        self.frame = frame; self.owner = owner; inner = nil; self.puller = puller
    }
    deinit {
        owner?.release(frame.slot)
        puller?.released()
    }
}
