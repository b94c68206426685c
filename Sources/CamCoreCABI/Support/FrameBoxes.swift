// SPDX-License-Identifier: MIT
internal import CCamCore
import CamCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The C view of a frame: a `camcore_frame` in a box camcore owns (S23,
/// S31). Every frame pointer camcore hands to C — borrowed for a callback
/// or retained — is a box of `FrameBoxes`: memory that is never freed, in a
/// table whose state words say which boxes are live. A pointer is looked
/// up by its address (arithmetic only) and its box's state checked before
/// anything is read through it, so a stale borrowed pointer, a released
/// one, an app's own struct or a wild pointer is refused without reading
/// memory that camcore does not own or no longer uses. Validity is an
/// atomic state word, not a marker written into the frame: no store the
/// optimizer may drop decides it.
enum FrameBox {
    /// Calls `body` with a borrowed C frame for `frame`, in a box that is
    /// live (retainable) until `body` returns. No allocation and no lock
    /// per frame: a few uncontended atomic operations.
    @inline(__always)
    static func withBorrowed<R>(_ frame: Frame, _ body: (UnsafePointer<camcore_frame>) -> R) -> R {
        withBorrowed(frame, in: FrameBoxes.borrowed, body)
    }

    /// `withBorrowed`, with `FrameBoxes.borrowed` read once by the caller
    /// (a frame callback made at start: no lazy-global check per frame).
    @inline(__always)
    static func withBorrowed<R>(_ frame: Frame, in arena: FrameBoxes.Arena,
                                _ body: (UnsafePointer<camcore_frame>) -> R) -> R {
        let box = arena.claim()
        FrameBoxes.fill(box.frame, frame)
        // Beside the C frame: where the Swift frame is, not a copy of it. It
        // lives on this call's stack, and a retain reads it only while the
        // box is pinned, which the retire below waits out.
        return withUnsafePointer(to: frame) { swiftFrame in
            box.side.storeBytes(of: UnsafeRawPointer(swiftFrame), as: UnsafeRawPointer.self)
            arena.publish(box, as: .borrowed)
            defer { arena.retire(box) }
            return body(UnsafePointer(box.frame))
        }
    }

    /// A retained C frame holding `retained` (a pulled frame, S36): the
    /// app releases it with camcore_frame_release. nil when every retained
    /// box is in use.
    static func retainedBox(for retained: RetainedFrame) -> UnsafePointer<camcore_frame>? {
        guard let copy = FrameBoxes.retained.tryClaim() else { return nil }
        FrameBoxes.fill(copy.frame, retained.frame)
        copy.side.storeBytes(of: Unmanaged.passRetained(retained).toOpaque(), as: UnsafeMutableRawPointer.self)
        FrameBoxes.retained.publish(copy, as: .retained)
        return UnsafePointer(copy.frame)
    }

    /// A Swift frame describing an app's C frame (custom source, hook
    /// replacement), checked against its FourCC and size (S22, S31).
    /// Not retainable. Errors: invalidArgument naming what is wrong.
    static func frame(from c: camcore_frame, _ fn: String) throws(CamError) -> Frame {
        guard Versioned.frame.accepts(c.struct_size) else {
            throw .invalidArgument("\(fn): frame->struct_size \(c.struct_size) is not sizeof(camcore_frame)")
        }
        guard (1...3).contains(c.plane_count) else {
            throw .invalidArgument("\(fn): frame->plane_count \(c.plane_count) is not 1 to 3")
        }
        let cp = [c.planes.0, c.planes.1, c.planes.2]
        func plane(_ i: Int) -> Plane {
            i < Int(c.plane_count) ? Plane(base: UnsafeMutableRawPointer(cp[i].data), stride: Int(cp[i].stride),
                                           length: Int(cp[i].length)) : .empty
        }
        let f = Frame(fourcc: FourCC(rawValue: c.fourcc), width: Int(c.width), height: Int(c.height),
                      planeCount: Int(c.plane_count), planes: (plane(0), plane(1), plane(2)),
                      timestampNs: c.timestamp_ns, sequence: c.sequence,
                      flags: FrameFlags(rawValue: c.flags), droppedBefore: c.dropped_before)
        do { try f.checkDescription() } catch { throw .invalidArgument("\(fn): \(error.message)") }
        return f
    }
}

/// The boxes behind every C frame pointer (see FrameBox). Two arenas:
/// borrowed boxes (one per callback in progress) and retained ones (one
/// per camcore_frame_retain), so retaining many frames never leaves a
/// callback without a box.
enum FrameBoxes {
    /// What a box's state word says it holds.
    enum Kind: UInt64 { case free = 0, busy = 1, borrowed = 2, retained = 3 }

    /// One box: the C frame handed out, and beside it the address of the
    /// Swift frame (borrowed: on the delivering call's stack) or the
    /// RetainedFrame token (retained).
    struct Box {
        let index: Int
        let frame: UnsafeMutablePointer<camcore_frame>
        let side: UnsafeMutableRawPointer
    }

    static let borrowed = Arena(name: "borrowed", chunks: 256)
    static let retained = Arena(name: "retained", chunks: 256)

    /// The live box behind `p`, pinned (see Arena.pin); nil when `p` is
    /// not a box of camcore's or its box is not live (borrowed and still
    /// in its callback, or retained and not yet released).
    static func pin(_ p: UnsafeRawPointer) -> (Arena, Box, Kind)? {
        if let i = borrowed.index(of: p) {
            guard let kind = borrowed.pin(i) else { return nil }
            return (borrowed, borrowed.box(i), kind)
        }
        if let i = retained.index(of: p), let kind = retained.pin(i) { return (retained, retained.box(i), kind) }
        return nil
    }

    /// Whether `p` is the address of a box (live or not).
    static func isBox(_ p: UnsafeRawPointer) -> Bool {
        borrowed.index(of: p) != nil || retained.index(of: p) != nil
    }

    static func fill(_ box: UnsafeMutablePointer<camcore_frame>, _ f: Frame) {
        func plane(_ p: Plane) -> camcore_plane {
            camcore_plane(data: p.base?.assumingMemoryBound(to: UInt8.self),
                          stride: UInt32(truncatingIfNeeded: p.stride),
                          length: UInt32(truncatingIfNeeded: p.length))
        }
        box.pointee = camcore_frame(
            struct_size: UInt32(MemoryLayout<camcore_frame>.size), fourcc: f.fourcc.rawValue,
            width: UInt32(f.width), height: UInt32(f.height), plane_count: UInt32(f.planeCount),
            flags: f.flags.rawValue, planes: (plane(f.planes.0), plane(f.planes.1), plane(f.planes.2)),
            timestamp_ns: f.timestampNs, sequence: f.sequence, dropped_before: f.droppedBefore,
            dmabuf_fd: (-1, -1, -1), dmabuf_offset: (0, 0, 0))
        // S37: only frames of an exporting capture look further.
        if f.hasDmabuf {
            let d0 = f.dmabuf(plane: 0), d1 = f.dmabuf(plane: 1), d2 = f.dmabuf(plane: 2)
            box.pointee.dmabuf_fd = (d0.fd, d1.fd, d2.fd)
            box.pointee.dmabuf_offset = (UInt32(truncatingIfNeeded: d0.offset), UInt32(truncatingIfNeeded: d1.offset),
                                         UInt32(truncatingIfNeeded: d2.offset))
        }
    }

    /// Boxes in chunks that are allocated on demand and never freed, each
    /// with an atomic state word: generation << 32 | pins << 2 | kind.
    /// A box is claimed (free -> busy) by one thread, filled, published
    /// (busy -> borrowed/retained); readers pin a live box (pins + 1, same
    /// generation) while they copy from it; its owner retires it (live ->
    /// free, generation + 1) once no reader has it pinned. A pointer saved
    /// across a retire finds its box free or in a later generation.
    final class Arena: @unchecked Sendable {
        /// 64 boxes of 384 bytes: a chunk is 24 KB (6 pages), zeroed when
        /// it is added. Borrowed boxes are reused round-robin over the
        /// chunks there are, so one chunk serves a capture whose callbacks
        /// return (a box is live only during its callback), and a stale
        /// pointer meets its box live again only 64 frames later.
        static let boxesPerChunk = 64
        /// Bytes per box: the C frame, then the Swift frame or token.
        static let stride = 384
        static let sideOffset = (MemoryLayout<camcore_frame>.stride + 15) & ~15
        static let pinUnit: UInt64 = 4
        static let pinMask: UInt64 = 0xFFFF_FFFC

        let name: StaticString
        let maxChunks: Int
        /// Chunk i's boxes and state words; written once, before `chunkCount` covers it.
        private let bases: UnsafeMutablePointer<UnsafeMutableRawPointer?>
        private let states: UnsafeMutablePointer<UnsafeMutablePointer<Atomic<UInt64>>?>
        private let chunkCount = Atomic<Int>(0)
        /// Where the next claim starts looking: boxes are reused round-robin,
        /// so a stale pointer rarely meets its box live again.
        private let hint = Atomic<Int>(0)
        private let growing = Mutex(())

        init(name: StaticString, chunks: Int) {
            precondition(MemoryLayout<Frame>.stride + Self.sideOffset <= Self.stride)
            self.name = name
            maxChunks = chunks
            bases = .allocate(capacity: chunks)
            bases.initialize(repeating: nil, count: chunks)
            states = .allocate(capacity: chunks)
            states.initialize(repeating: nil, count: chunks)
            _ = grow(from: 0)
        }

        @inline(__always)
        private func state(_ i: Int) -> UnsafeMutablePointer<Atomic<UInt64>> {
            states[i / Self.boxesPerChunk]! + i % Self.boxesPerChunk
        }

        func box(_ i: Int) -> Box {
            let p = bases[i / Self.boxesPerChunk]! + (i % Self.boxesPerChunk) * Self.stride
            return Box(index: i, frame: p.assumingMemoryBound(to: camcore_frame.self), side: p + Self.sideOffset)
        }

        /// The index of the box at exactly `p`, by address arithmetic only.
        func index(of p: UnsafeRawPointer) -> Int? {
            let n = chunkCount.load(ordering: .acquiring)
            let a = UInt(bitPattern: p)
            for c in 0..<n {
                let base = UInt(bitPattern: bases[c]!)
                guard a >= base, a - base < UInt(Self.boxesPerChunk * Self.stride) else { continue }
                let off = Int(a - base)
                guard off % Self.stride == 0 else { return nil }
                return c * Self.boxesPerChunk + off / Self.stride
            }
            return nil
        }

        /// Adds a chunk unless another thread already did (count moved past `seen`).
        /// False when the arena is full.
        private func grow(from seen: Int) -> Bool {
            growing.withLock { _ in
                let n = chunkCount.load(ordering: .relaxed)
                if n != seen { return true }
                guard n < maxChunks else { return false }
                var mem: UnsafeMutableRawPointer?
                guard posix_memalign(&mem, 64, Self.boxesPerChunk * Self.stride) == 0, let mem else { return false }
                // Zeroed now, so its pages are faulted in here, not one every
                // few frames while boxes are first used round-robin (that
                // cost the frame path ~0.5 us per frame over 300 frames).
                memset(mem, 0, Self.boxesPerChunk * Self.stride)
                let st = UnsafeMutablePointer<Atomic<UInt64>>.allocate(capacity: Self.boxesPerChunk)
                for k in 0..<Self.boxesPerChunk { (st + k).initialize(to: Atomic(0)) }
                bases[n] = mem
                states[n] = st
                chunkCount.store(n + 1, ordering: .releasing)
                return true
            }
        }

        /// A free box, now busy (only the caller uses it); nil when the
        /// arena is full.
        func tryClaim() -> Box? {
            // The usual case, one chunk and its next box free: one atomic
            // add, one load, one compare-and-swap.
            if chunkCount.load(ordering: .acquiring) == 1 {
                let i = Int(UInt(bitPattern: hint.wrappingAdd(1, ordering: .relaxed).oldValue) & UInt(Self.boxesPerChunk - 1))
                if claimIfFree(i) { return box(i) }
            }
            while true {
                let n = chunkCount.load(ordering: .acquiring)
                let total = n * Self.boxesPerChunk
                let start = hint.wrappingAdd(1, ordering: .relaxed).oldValue
                for k in 0..<total {
                    let i = Int(UInt(bitPattern: start &+ k) % UInt(total))
                    if claimIfFree(i) { return box(i) }
                }
                guard grow(from: n) else { return nil }
            }
        }

        /// Box `i`, free -> busy for the caller; false when it is not free
        /// (or another thread claimed it first).
        @inline(__always)
        private func claimIfFree(_ i: Int) -> Bool {
            let st = state(i)
            let s = st.pointee.load(ordering: .relaxed)
            return s & 3 == Kind.free.rawValue
                && st.pointee.compareExchange(expected: s, desired: s | Kind.busy.rawValue, ordering: .acquiring).exchanged
        }

        /// A free box, now busy; waits for one when the arena is full (only
        /// with more callbacks in progress than boxes: not in practice).
        func claim() -> Box {
            while true {
                if let b = tryClaim() { return b }
                sched_yield()
            }
        }

        /// Makes a claimed, filled box live.
        @inline(__always)
        func publish(_ b: Box, as kind: Kind) {
            let st = state(b.index)
            let s = st.pointee.load(ordering: .relaxed)
            st.pointee.store((s & ~3) | kind.rawValue, ordering: .releasing)
        }

        /// Pins the live box `i` so that it stays live while the caller
        /// reads it; returns its kind, or nil when it is not live.
        func pin(_ i: Int) -> Kind? {
            let st = state(i)
            var s = st.pointee.load(ordering: .acquiring)
            while true {
                let kind = Kind(rawValue: s & 3)!
                guard kind == .borrowed || kind == .retained else { return nil }
                let (done, now) = st.pointee.compareExchange(expected: s, desired: s + Self.pinUnit,
                                                             ordering: .acquiringAndReleasing)
                if done { return kind }
                s = now
            }
        }

        func unpin(_ b: Box) {
            state(b.index).pointee.subtract(Self.pinUnit, ordering: .releasing)
        }

        /// Ends a live box: waits for readers to unpin it, then frees it
        /// for its next generation.
        @inline(__always)
        func retire(_ b: Box) {
            // Usually nobody has it pinned: one CAS, live -> free.
            let st = state(b.index)
            let s = st.pointee.load(ordering: .relaxed)
            if s & Self.pinMask == 0,
               st.pointee.compareExchange(expected: s, desired: ((s >> 32) &+ 1) << 32,
                                          ordering: .acquiringAndReleasing).exchanged { return }
            _ = take(b, expecting: nil)
            free(b)
        }

        /// Makes the live box `b` (of kind `expecting`, any when nil) busy
        /// for the caller alone, once no reader has it pinned; false when
        /// it was not live as that kind (freed, or taken by another thread).
        func take(_ b: Box, expecting: Kind?) -> Bool {
            let st = state(b.index)
            var s = st.pointee.load(ordering: .acquiring)
            var spins = 0
            while true {
                let kind = Kind(rawValue: s & 3)!
                guard kind == .borrowed || kind == .retained, expecting == nil || expecting == kind else { return false }
                if s & Self.pinMask != 0 {
                    spins += 1
                    if spins > 64 { sched_yield() }
                    s = st.pointee.load(ordering: .acquiring)
                    continue
                }
                let (done, now) = st.pointee.compareExchange(expected: s, desired: (s & ~3) | Kind.busy.rawValue,
                                                             ordering: .acquiringAndReleasing)
                if done { return true }
                s = now
            }
        }

        /// Frees a busy box of the caller's for its next generation.
        @inline(__always)
        func free(_ b: Box) {
            let st = state(b.index)
            let s = st.pointee.load(ordering: .relaxed)
            st.pointee.store(((s >> 32) &+ 1) << 32, ordering: .releasing)
        }
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
    /// Freed from inside a callback: no hot-plug callback starts any more.
    private let muted = MuteFlag()
    init(_ m: Manager) { manager = m }

    /// No hot-plug callback starts from now on (any thread, no waiting).
    func mute() { muted.on.store(true, ordering: .releasing) }

    deinit { if let t = hotplugToken { manager.stopObserving(t) } }

    /// Replaces the hot-plug callbacks (nil removes them).
    func setHotplug(_ c: camcore_hotplug_callbacks?) -> Int32 {
        lock.withLock { _ -> Int32 in
            if let t = hotplugToken { manager.stopObserving(t); hotplugToken = nil }
            guard let c else { return 0 }
            let muted = self.muted
            do throws(CamError) {
                hotplugToken = try manager.observeDevices { change in
                    if muted.on.load(ordering: .acquiring) { return }
                    switch change {
                    case .added(let d): if let f = c.on_connected { withCDevice(d) { f(c.user_data, $0) } }
                    case .removed(let d): if let f = c.on_disconnected { withCDevice(d) { f(c.user_data, $0) } }
                    case .permission(let state, let detail):
                        if let f = c.on_permission { detail.withCString { f(c.user_data, state.rawValue, $0) } }
                    }
                }
                return 0
            } catch {
                return fail(error)
            }
        }
    }
}

/// A flag shared with callbacks that must not keep its owner alive.
final class MuteFlag: Sendable {
    let on = Atomic<Bool>(false)
}

/// Calls `body` with a C description of `d` valid during the call.
func withCDevice(_ d: DeviceInfo, _ body: (UnsafePointer<camcore_device_info>) -> Void) {
    guard let list = Lists.deviceList([d]) else { return }
    defer { free(list) }
    body(list.pointee.devices)
}
