// SPDX-License-Identifier: MIT
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One open camera (a V4L2 node or the synthetic camera) and its capture
/// session (SPEC S16, S17, S22). Frames are delivered on the capturer's
/// own capture thread, in order, one at a time. After `stop()` or
/// `close()` returns, no callback runs again. Every method is safe from
/// any thread; `start`, `stop` and `close` called from inside this
/// capturer's own callback throw `wouldDeadlock` instead of hanging.
package final class Capturer: @unchecked Sendable {
    package typealias FrameHandler = (Frame) -> Void
    package typealias ErrorHandler = (CamError) -> Void
    /// Told when frames stop (`stalled` true) and when they come back
    /// (false); `sinceNs` is the CLOCK_MONOTONIC time of the last frame
    /// before the stall (or of the start, when no frame came yet), in both.
    package typealias StallHandler = (_ stalled: Bool, _ sinceNs: UInt64) -> Void
    /// S48: a stalled stream is being restarted (`restarted` false: stream
    /// off and on again now) or was (true: on again; frames may follow),
    /// attempt 1, 2, ... since the last frame.
    package typealias RestartHandler = (_ restarted: Bool, _ attempt: Int) -> Void

    /// No frame for this long is a stall: max(1 s, 5 frame intervals) of
    /// the applied rate (1 s when the driver has none).
    package static func stallThresholdNs(_ rate: FrameRate?) -> UInt64 {
        max(1_000_000_000, 5 * (rate?.frameDurationNs ?? 0))
    }

    package let device: DeviceInfo
    private let backend: CaptureBackend
    /// Serialises start/stop/close.
    private let operations = Mutex(())
    private struct Session {
        var thread: LibraryThread?
        var waker: Waker?
        var format: CaptureFormat?
        var closed = false
    }
    private let session = Mutex(Session())
    /// Counters of the rarer events (stalls, conversion drops, frames the
    /// pull queue gave up); added to the frame path's own below.
    private struct Counters {
        var stats = CaptureStats()
    }
    private let counters = Mutex(Counters())
    /// The frame path's counters: written by the capture thread alone (a
    /// load and a store each, no lock per frame), read by `stats`.
    private let framesDelivered = Atomic<UInt64>(0)
    private let framesDropped = Atomic<UInt64>(0)
    private let framesCorrupted = Atomic<UInt64>(0)
    /// For the measured rate: the span of the last frames' timestamps (ns)
    /// << 6 | the frames it covers (at most 31), one word so that a reader
    /// never pairs one frame's span with another's count.
    private let rateWindow = Atomic<UInt64>(0)
    private let running = Atomic<Bool>(false)
    /// Timestamps of the last frames, for the measured rate (capture thread only).
    private let stamps = UnsafeMutablePointer<UInt64>.allocate(capacity: 32)
    private let stopRequested = Atomic<Bool>(false)
    /// The device's controls (S27), on its fd; see CameraControls.swift.
    package let controls: CameraControls
    /// The pull queue of the last `startPull` (S36); nil when started with callbacks.
    private let puller = Mutex<FramePuller?>(nil)
    /// The frame fd (S36): one eventfd for the capturer's whole life, shared
    /// by every pull start, so restarting never closes an fd a waiter may
    /// hold; and whether the app was given it.
    private struct FrameFD { var waker: Waker?; var handedOut = false }
    private let frameFDState = Mutex(FrameFD())

    init(device: DeviceInfo, backend: CaptureBackend) {
        self.device = device
        self.backend = backend
        controls = CameraControls(device: device, fileDescriptor: backend.fileDescriptor,
                                  surface: backend.controlSurface)
    }

    deinit {
        // Dropped on its own thread (inside a callback) nothing can wait
        // for that thread: the device stays as it is, as before.
        if !isInsideCallback { close() }
        stamps.deallocate()
    }

    /// True while frames flow (false after an error ended streaming).
    package var isStreaming: Bool { running.load(ordering: .acquiring) }

    /// The format applied at the last start; nil before any start.
    package var format: CaptureFormat? { session.withLock { $0.format } }

    /// What the frame path last found of a frame's geometry (S43), e.g.
    /// "the camera delivers RGB3 636x480 (stride 1908), not the
    /// negotiated 640x480: ..."; nil while every frame fits the negotiated
    /// format. Kept across stop; cleared at start.
    package var frameNote: String? { note.withLock { $0 } }
    private let note = Mutex<String?>(nil)

    /// Called on the capture thread (or a pull reader's) when frames turn
    /// out to have another consistent geometry than negotiated (S43), with
    /// the capture's format as it is now and `frameNote`. Set before start.
    package var onFormatChange: (@Sendable (CaptureFormat, String) -> Void)? {
        get { formatChangeHandler.withLock { $0 } }
        set { formatChangeHandler.withLock { $0 = newValue } }
    }
    private let formatChangeHandler = Mutex<(@Sendable (CaptureFormat, String) -> Void)?>(nil)

    /// Counters since the last start.
    package var stats: CaptureStats {
        var s = counters.withLock { $0.stats }
        s.delivered &+= framesDelivered.load(ordering: .acquiring)
        s.dropped &+= framesDropped.load(ordering: .acquiring)
        s.corrupted &+= framesCorrupted.load(ordering: .acquiring)
        let w = rateWindow.load(ordering: .acquiring)
        let rateFrames = w & 63, rateSpanNs = w >> 6
        s.measuredFPS = rateFrames > 0 && rateSpanNs > 0 ? Double(rateFrames) * 1e9 / Double(rateSpanNs) : 0
        return s
    }

    /// The native fd (S28), borrowed; nil for the synthetic camera or once closed.
    package var fileDescriptor: Int32? {
        session.withLock { $0.closed } ? nil : backend.fileDescriptor
    }

    /// The capture thread marks itself from inside (CallbackMark), so the
    /// check holds from the very first frame.
    private func onCaptureThread() -> Bool { CallbackMark.isInside(self) }

    /// True inside one of this capturer's callbacks: a frame, error or
    /// stall callback on the capture thread, or the control-change
    /// handler on the control-event thread. stop/close from there would
    /// wait for the calling thread itself.
    package var isInsideCallback: Bool { onCaptureThread() || controls.isInsideHandler }

    /// Negotiates `request`, starts streaming and delivers each frame to
    /// `onFrame` on the capture thread. `onError` is called at most once,
    /// when streaming ends on its own; no frame follows it. `onStall` is
    /// called on the capture thread when no frame came for longer than
    /// `stallThresholdNs` (checked when the capture thread's wait times
    /// out or is woken, never per frame), and again before the next frame.
    /// S48: a stall of `request.stallRestartMs` restarts the stream
    /// (`onRestart` before and after), up to `stallRestartTries` times;
    /// then streaming ends with a timeout error (`onError`).
    /// Errors: invalidArgument, state (already started or closed),
    /// notSupported, busy, noDevice, io, noMemory, wouldDeadlock.
    package func start(_ request: CaptureRequest, onFrame: @escaping FrameHandler,
                      onError: @escaping ErrorHandler = { _ in },
                      onStall: StallHandler? = nil, onRestart: RestartHandler? = nil) throws(CamError) {
        try startStream(request, onFrame: onFrame, onError: onError, onStall: onStall, onRestart: onRestart,
                        thread: "camcore-capture", pull: nil)
    }

    /// `start`, its capture thread named `thread` (what thread hooks see:
    /// "camcore-capture" calls the app back per frame, "camcore-pull" does not).
    private func startStream(_ request: CaptureRequest, onFrame: @escaping FrameHandler,
                             onError: @escaping ErrorHandler, onStall: StallHandler?, onRestart: RestartHandler? = nil,
                             thread threadName: StaticString, pull: FramePuller?) throws(CamError) {
        if onCaptureThread() { throw .wouldDeadlock("start() called from this capturer's own callback") }
        try request.validate()
        try operations.withLock { _ throws(CamError) in
            let s = session.withLock { $0 }
            if s.closed { throw CamError.state("the capturer is closed") }
            if s.thread != nil { throw CamError.state("the capturer is already started; stop it first") }
            puller.withLock { $0 = nil }
            if request.dmabuf && !backend.abilities.contains(.dmabufExport) {
                throw CamError.notSupported("DMA-BUF export (S37) is for V4L2 devices; \(device.isSynthetic ? "the synthetic camera" : device.id) has none")
            }
            let waker = try Waker()
            var fmt = try backend.start(request, waker: waker)
            fmt.sourceFourCC = fmt.fourcc
            if fmt.width != request.width || fmt.height != request.height { fmt.adjustments.insert(.size) }
            if let want = request.frameRate, fmt.frameRate != want { fmt.adjustments.insert(.rate) }
            if fmt.fourcc != request.fourcc { fmt.adjustments.insert(.format) }
            // S8: an output format other than the driver's goes through a
            // converter into camcore's own buffers.
            var conversion: Conversion?
            if request.dmabuf, let out = request.output, out != fmt.fourcc {
                backend.stop()
                throw CamError.notSupported("DMA-BUF export (S37) is for native frames: output \(out) would convert \(fmt.fourcc) into camcore's own memory, which has no DMA-BUF")
            }
            fmt.outputWidth = fmt.width; fmt.outputHeight = fmt.height
            // S38: an output size scales, even into the driver's own format.
            let scaled = request.scales && (request.outputWidth != fmt.width || request.outputHeight != fmt.height)
            if let out = request.output, out != fmt.fourcc || scaled || request.outputRotation != 0 {
                do throws(CamError) {
                    let conv = try PixelConverter(source: fmt.fourcc, width: fmt.width, height: fmt.height, target: out,
                                                  outputWidth: scaled ? request.outputWidth : nil,
                                                  outputHeight: scaled ? request.outputHeight : nil)
                    let pool = HeapBuffers(count: fmt.bufferCount)
                    for _ in 0..<fmt.bufferCount {
                        // posix_memalign, not allocate(): an output too big for
                        // the memory left is an error to report, not an abort.
                        var m: UnsafeMutableRawPointer?
                        guard posix_memalign(&m, 64, max(conv.outputBytes, 1)) == 0, let m else {
                            throw CamError.noMemory("\(fmt.bufferCount) output buffers of \(conv.outputBytes) bytes "
                                + "(\(out) \(conv.outputWidth)x\(conv.outputHeight)) do not fit in memory; "
                                + "ask a smaller output size or fewer buffers")
                        }
                        pool.memory.append(m)
                    }
                    // S45: the converted picture turned (same bytes, maybe width and height swapped).
                    let rotator = request.outputRotation == 0 ? nil
                        : try OutputRotator(target: out, width: conv.outputWidth, height: conv.outputHeight,
                                            degrees: request.outputRotation)
                    conversion = Conversion(converter: conv, rotator: rotator, pool: pool, bufferBytes: max(conv.outputBytes, 1),
                                            outputSize: scaled ? (request.outputWidth, request.outputHeight) : nil)
                    fmt.fourcc = out
                    fmt.frameBytes = conv.outputBytes
                    if let rotator {
                        fmt.outputWidth = rotator.outputWidth; fmt.outputHeight = rotator.outputHeight
                        fmt.strides = PixelConverter.packedStrides(out, rotator.outputWidth)
                    } else {
                        fmt.strides = conv.outputStrides
                        fmt.outputWidth = conv.outputWidth; fmt.outputHeight = conv.outputHeight
                    }
                } catch {
                    backend.stop()
                    throw error
                }
            }
            counters.withLock { $0 = Counters() }
            framesDelivered.store(0, ordering: .releasing); framesDropped.store(0, ordering: .releasing)
            framesCorrupted.store(0, ordering: .releasing); rateWindow.store(0, ordering: .releasing)
            stopRequested.store(false, ordering: .releasing)
            running.store(true, ordering: .releasing)
            note.withLock { $0 = nil }
            let path = FramePath(conversion, stallAfterNs: Capturer.stallThresholdNs(fmt.frameRate),
                                 geometry: FrameGeometry(fourcc: fmt.sourceFourCC, width: fmt.width, height: fmt.height))
            path.request = request
            path.waker = waker
            path.onRestart = onRestart
            if let pull {
                // S36: readers run the frame path in acquire; the capture
                // thread takes over when one stays away for as long as the
                // driver's spare buffers last (those beyond the queued and
                // held frames and the two it fills).
                let spare = UInt64(max(1, fmt.bufferCount - pull.depth - 2))
                let interval = fmt.frameRate.map { $0.frameDurationNs } ?? 33_333_333
                pull.enablePump({ [unowned self] wait, deliver in
                    pumpStep(path, timeoutMs: wait, onFrame: deliver, onError: onError)
                }, takeOverNs: spare &* max(interval, 1_000_000))
            }
            do throws(CamError) {
                let thread = try LibraryThread(name: threadName) { [self] in
                    if let pull {
                        pull.runCaptureThread()
                    } else {
                        CallbackMark.inside(self) {
                            captureLoop(path, onFrame: onFrame, onError: onError, onStall: onStall)
                        }
                    }
                    conversion?.pool.finishStreaming()
                }
                session.withLock { $0.thread = thread; $0.waker = waker; $0.format = fmt }
                // Recorded under `operations`, with the thread: a stop or
                // close that comes next finds the queue to stop (else its
                // join waited for a capture thread nobody told to end).
                if let pull { puller.withLock { $0 = pull } }
            } catch {
                running.store(false, ordering: .releasing)
                backend.stop()
                throw error
            }
        }
    }

    /// Starts streaming in pull mode (S36): frames wait in a queue of
    /// `depth` (1...8) for `acquire`; a full queue gives up its oldest
    /// frame, counted as dropped (and not as delivered). The driver gets
    /// at least 2 × depth + 2 buffers, so queued and held frames never
    /// starve it. Errors: as `start`, and invalidArgument (depth).
    @discardableResult
    package func startPull(_ request: CaptureRequest, depth: Int = 2) throws(CamError) -> FramePuller {
        let fd = try frameFDState.withLock { f throws(CamError) -> FrameFD in
            if f.waker == nil { f.waker = try Waker() }
            return f
        }
        let p = try FramePuller(depth: depth, ready: fd.waker, fdHandedOut: fd.handedOut) { [weak self] in
            self?.counters.withLock { c in
                c.stats.delivered &-= 1
                c.stats.dropped += 1
            }
        }
        var r = request
        r.bufferCount = p.buffersNeeded(r.bufferCount)
        try startStream(r, onFrame: { p.deliver($0) }, onError: { p.fail($0) }, onStall: nil, thread: "camcore-pull", pull: p)
        return p
    }

    /// The frame fd of the pull queue (S36), handed out to the app from now
    /// on; nil once closed when it was not handed out before the close.
    /// Errors: state (not started in pull mode).
    package func frameFD() throws(CamError) -> Int32? {
        guard let p = puller.withLock({ $0 }) else {
            throw .state("the capturer is not started in pull mode")
        }
        guard let fd = p.readyFD else { return nil }
        frameFDState.withLock { $0.handedOut = true }
        return fd
    }

    /// The pull queue when started with `startPull` (also after it stopped).
    package var pullQueue: FramePuller? { puller.withLock { $0 } }

    /// The next frame of a capturer started with `startPull`, waiting up to
    /// `timeoutMs` (0: poll; < 0: no limit); release the returned object
    /// when done. Errors: state (started with callbacks, not started,
    /// stopped, or `depth` frames not released), timeout, wouldDeadlock
    /// (from this capturer's own callback), and what ended streaming.
    package func acquire(timeoutMs: Int32) throws(CamError) -> RetainedFrame {
        if onCaptureThread() { throw .wouldDeadlock("acquire() called from this capturer's own callback") }
        guard let p = puller.withLock({ $0 }) else {
            throw .state(isStreaming ? "the capturer was started with callbacks; frames come to them, not to acquire"
                                     : "the capturer is not started; start it in pull mode first")
        }
        return try p.acquire(timeoutMs: timeoutMs)
    }

    /// A converter and the buffers it writes into (S8).
    struct Conversion {
        var converter: PixelConverter
        /// S45: turns the converted picture; converter writes its scratch.
        var rotator: OutputRotator?
        let pool: HeapBuffers
        /// Bytes of each buffer of `pool`.
        let bufferBytes: Int
        /// The output size asked (S38), nil for the captured size.
        let outputSize: (width: Int, height: Int)?
        /// A buffer the app does not hold, or nil when all are held.
        func freeSlot(after last: inout Int) -> Int? {
            let n = pool.memory.count
            for i in 0..<n {
                let s = (last + 1 + i) % n
                if !pool.isHeld(s) { last = s; return s }
            }
            return nil
        }
    }

    /// The frame path's state between frames (the sequence seen last, the
    /// rate window, the stall watch, the output buffer used last): kept by
    /// whichever thread runs the path, one at a time (the capture thread,
    /// or in pull mode a reader in `acquire`, see FramePuller).
    final class FramePath {
        var conversion: Conversion?
        /// What every frame from the backend must be (S43); nil for a
        /// FourCC the table does not know.
        var geometry: FrameGeometry?
        /// S48: what a restart starts again, with which waker, and who is told.
        var request = CaptureRequest()
        var waker: Waker?
        var onRestart: RestartHandler?
        /// Restarts since the last frame, and when the last one was made.
        var restartTries = 0
        var lastRestartNs: UInt64 = 0
        let stallAfterNs: UInt64
        var lastOut = -1
        var lastSequence: UInt32? = nil
        var stampCount = 0
        // Stall watch: the frame path only stores the last frame's stamp (no
        // clock read); the check runs when the wait ends without a frame
        // (a timeout at least every second, or a wake-up). When the stall
        // falls due before the next timeout, the next wait ends then.
        var lastStamp: UInt64 = 0
        var checkedCount = 0
        var progressNs = monotonicNs()
        var stalled = false
        var waitMs: Int32 = 1000
        /// The one frame of the path, filled in place by the backend.
        var frame = Frame(fourcc: .yuyv, width: 0, height: 0, planeCount: 1, planes: (.empty, .empty, .empty),
                          timestampNs: 0, sequence: 0)
        init(_ conversion: Conversion?, stallAfterNs: UInt64, geometry: FrameGeometry?) {
            self.conversion = conversion; self.stallAfterNs = stallAfterNs; self.geometry = geometry
        }
    }

    /// The capture thread with callbacks: the frame path until stopped or failed.
    private func captureLoop(_ path: FramePath, onFrame: FrameHandler,
                             onError: ErrorHandler, onStall: StallHandler?) {
        while !stopRequested.load(ordering: .acquiring) {
            if !step(path, timeoutMs: -1, onFrame: onFrame, onError: onError, onStall: onStall) { return }
        }
    }

    /// One turn of the frame path: wait (at most `timeoutMs`; < 0: the
    /// path's own wait, at most 1 s), then deliver a frame to `onFrame`
    /// and give its buffer back unless kept, or requeue released buffers
    /// and watch for a stall. False when streaming ended (onError told,
    /// unless stop was asked).
    // Inlined into captureLoop, the callback path; pull readers go through
    // pumpStep, out of line. Why, with the measurements: bench/results/
    // RESULTS.md, "Where step() is inlined".
    @inline(__always)
    private func step(_ path: FramePath, timeoutMs: Int32, onFrame: FrameHandler,
                      onError: ErrorHandler, onStall: StallHandler?) -> Bool {
        /// Streaming ends on its own: report once, unless the app stopped it.
        func end(_ error: CamError) -> Bool {
            running.store(false, ordering: .releasing)
            if !stopRequested.load(ordering: .acquiring) { onError(error) }
            return false
        }
        /// False when the stall ended the stream (S48: restarts used up).
        func checkStall() -> Bool {
            if path.stalled { return restartIfDue() }
            let now = monotonicNs()
            if path.stampCount != path.checkedCount {
                path.checkedCount = path.stampCount
                // The last frame's own capture time when it reads as this
                // clock; a driver stamp that does not (wrapped, another
                // clock) counts as "just now": late, never a false stall.
                // (An end-of-frame stamp may lie a frame period ahead of
                // the dequeue: hence the shortened wait below.)
                path.progressNs = path.lastStamp <= now && path.lastStamp >= path.progressNs ? path.lastStamp : now
            }
            let quiet = now &- path.progressNs
            guard quiet >= path.stallAfterNs else {
                path.waitMs = Int32(min((path.stallAfterNs - quiet) / 1_000_000 + 1, 1000))
                return true
            }
            path.stalled = true
            path.waitMs = 1000
            counters.withLock { $0.stats.stalls += 1 }
            onStall?(true, path.progressNs)
            return restartIfDue()
        }
        /// S48: stream off and on again once the stall lasted
        /// stallRestartMs (since the last frame, or the last restart).
        func restartIfDue() -> Bool {
            let every = UInt64(path.request.stallRestartMs) * 1_000_000
            guard every > 0, let waker = path.waker, !stopRequested.load(ordering: .acquiring) else { return true }
            let now = monotonicNs()
            guard now &- max(path.progressNs, path.lastRestartNs) >= every else {
                path.waitMs = Int32(min((every - (now &- max(path.progressNs, path.lastRestartNs))) / 1_000_000 + 1, 1000))
                return true
            }
            if path.restartTries >= path.request.stallRestartTries {
                let secs = Double(now &- path.progressNs) / 1e9
                return end(.timeout("no frame from \(device.node) for \((secs * 10).rounded() / 10) s, "
                    + "\(path.restartTries) restart\(path.restartTries == 1 ? "" : "s") did not bring frames back (S48)"))
            }
            path.restartTries += 1
            path.onRestart?(false, path.restartTries)
            backend.stop()
            do throws(CamError) {
                _ = try backend.start(path.request, waker: waker)
            } catch {
                return end(error)
            }
            path.lastSequence = nil
            path.lastRestartNs = monotonicNs()
            path.waitMs = 1000
            counters.withLock { $0.stats.restarts += 1 }
            path.onRestart?(true, path.restartTries)
            return true
        }
        let wait = timeoutMs < 0 ? path.waitMs : min(timeoutMs, path.waitMs)
        switch backend.nextFrame(into: &path.frame, timeoutMs: wait) {
        case .idle:
            if !checkStall() { return false }
        case .woken:
            requeueReleased()
            if !checkStall() { return false }
        case .failed(let error):
            return end(error)
        case .frame:
            // S43: every frame is what its description says.
            if let g = path.geometry, !g.fits(path.frame) { checkGeometry(path) }
            let conversion = path.conversion
            if let last = path.lastSequence {
                path.frame.droppedBefore = path.frame.sequence &- last &- 1
                // A sequence that went backwards (driver restart) is no gap.
                if path.frame.droppedBefore > 1 << 30 { path.frame.droppedBefore = 0 }
            }
            path.lastSequence = path.frame.sequence
            if let c = conversion {
                // Convert into a free output buffer, give the driver its
                // buffer back at once, deliver the converted frame.
                let source = path.frame
                let slot = c.freeSlot(after: &path.lastOut)
                let ok = slot.map { s in
                    guard let r = c.rotator else { return c.converter.convert(source, into: c.pool.memory[s]) }
                    return c.converter.convert(source, into: r.scratch) && r.rotate(into: c.pool.memory[s])
                } ?? false
                do { try backend.requeue(source.slot) } catch { return end(error) }
                guard ok, let slot else {
                    // All output buffers held (a drop) or undecodable
                    // input (corrupted): counted, never delivered.
                    counters.withLock {
                        $0.stats.dropped += UInt64(source.droppedBefore)
                        if slot == nil { $0.stats.dropped += 1 } else { $0.stats.corrupted += 1 }
                    }
                    // No frame delivered: as good as none arriving.
                    return checkStall()
                }
                let out = c.converter.outputPlanes(c.pool.memory[slot], width: c.rotator?.outputWidth,
                                                   height: c.rotator?.outputHeight)
                var converted = Frame(fourcc: c.converter.target, width: c.rotator?.outputWidth ?? c.converter.outputWidth,
                                      height: c.rotator?.outputHeight ?? c.converter.outputHeight,
                                      planeCount: out.count, planes: out.planes, timestampNs: source.timestampNs,
                                      sequence: source.sequence, flags: source.flags, pool: c.pool, slot: slot)
                converted.droppedBefore = source.droppedBefore
                path.frame = converted
            }
            let frame = path.frame
            let corrupted = frame.flags.contains(.corrupted)
            let newest = frame.timestampNs
            path.lastStamp = newest
            path.waitMs = 1000
            if path.stalled {
                path.stalled = false
                onStall?(false, path.progressNs)
            }
            path.restartTries = 0
            stamps[path.stampCount & 31] = newest
            path.stampCount += 1
            let window = min(path.stampCount, 32)
            let oldest = stamps[(path.stampCount - window) & 31]
            let dropped = UInt64(frame.droppedBefore)
            // The rate itself is worked out when read (`stats`).
            let span = min(newest > oldest ? newest - oldest : 0, UInt64(1) << 57)
            rateWindow.store(span << 6 | UInt64(window - 1), ordering: .releasing)
            framesDelivered.store(framesDelivered.load(ordering: .relaxed) &+ 1, ordering: .releasing)
            if dropped != 0 { framesDropped.store(framesDropped.load(ordering: .relaxed) &+ dropped, ordering: .releasing) }
            if corrupted { framesCorrupted.store(framesCorrupted.load(ordering: .relaxed) &+ 1, ordering: .releasing) }
            onFrame(frame)
            // Back to the driver unless the app kept it (S23); buffers it
            // releases later come back after a later frame, or through
            // the waker (.woken) when the driver runs short.
            let slot = frame.slot
            let free = frame.poolRef?._withUnsafeGuaranteedRef { $0.finishDelivery(slot) } ?? true
            if free, conversion == nil {
                do { try backend.requeue(slot) } catch { return end(error) }
            }
            // Buffers released since (without a wake-up: BufferPool.release).
            if frame.poolRef?._withUnsafeGuaranteedRef({ $0.hasPending }) == true { requeueReleased() }
        }
        return true
    }

    /// A frame that does not fit the capture's geometry (S43), looked at
    /// closely: one whose own description is consistent (a daemon's chunk
    /// that says 636x480 at stride 1908 where 640x480 was announced) is
    /// delivered as it is, and the capture's format follows it (adjusted
    /// size, `onFormatChange`); one that fits no geometry is marked
    /// corrupt. Either way `frameNote` says why.
    @inline(never)
    private func checkGeometry(_ path: FramePath) {
        let f = path.frame
        do throws(CamError) {
            try f.checkDescription()
        } catch {
            path.frame.flags.insert(.corrupted)
            setNote("frame \(f.sequence) (\(f.fourcc) \(f.width)x\(f.height)) fits no geometry, marked corrupted: \(error.message)")
            return
        }
        guard let g = path.geometry, f.fourcc != g.fourcc || f.width != g.width || f.height != g.height else {
            return   // the negotiated geometry, laid out another way (one plane holding all)
        }
        let stride = f.planeCount > 0 ? f.planes.0.stride : 0
        var why = "the camera delivers \(f.fourcc) \(f.width)x\(f.height) (stride \(stride)), not the negotiated "
            + "\(g.fourcc) \(g.width)x\(g.height): frames carry the size they have"
        if var c = path.conversion {
            do throws(CamError) {
                let conv = try PixelConverter(source: f.fourcc, width: f.width, height: f.height, target: c.converter.target,
                                              outputWidth: c.outputSize?.width, outputHeight: c.outputSize?.height)
                guard conv.outputBytes <= c.bufferBytes else {
                    throw CamError.notSupported("its output (\(conv.outputBytes) bytes) outgrows camcore's buffers")
                }
                c.converter = conv
                path.conversion = c
            } catch {
                path.frame.flags.insert(.corrupted)
                setNote(why + "; it cannot be converted at that size (\(error.message)): restart the capture")
                return
            }
        }
        path.geometry = FrameGeometry(fourcc: f.fourcc, width: f.width, height: f.height)
        let changed: CaptureFormat? = session.withLock { s in
            guard var fmt = s.format else { return nil }
            fmt.width = f.width; fmt.height = f.height
            fmt.adjustments.insert(.size)
            if let c = path.conversion {
                fmt.strides = c.converter.outputStrides; fmt.frameBytes = c.converter.outputBytes
                fmt.outputWidth = c.converter.outputWidth; fmt.outputHeight = c.converter.outputHeight
            } else {
                fmt.strides = (0..<f.planeCount).map { f.plane($0).stride }
                fmt.frameBytes = (0..<f.planeCount).reduce(0) { $0 + f.plane($1).length }
                fmt.outputWidth = f.width; fmt.outputHeight = f.height
            }
            s.format = fmt
            return fmt
        }
        why += "; the capture's format says so (size adjusted)"
        setNote(why)
        if let changed, let handler = onFormatChange { handler(changed, why) }
    }

    private func setNote(_ text: String) { note.withLock { $0 = text } }

    /// A pull reader's turn of the frame path (FramePuller's pump): `step`
    /// out of line.
    @inline(never)
    private func pumpStep(_ path: FramePath, timeoutMs: Int32, onFrame: FrameHandler,
                          onError: ErrorHandler) -> Bool {
        step(path, timeoutMs: timeoutMs, onFrame: onFrame, onError: onError, onStall: nil)
    }

    private func requeueReleased() {
        // Released buffers come back through the pool of the current session.
        guard let pool = backend.buffers else { return }
        for slot in pool.takePending() { try? backend.requeue(slot) }
    }

    /// Stops streaming; afterwards no callback runs. Stopping a stopped
    /// capturer does nothing. Errors: wouldDeadlock (from the callback).
    package func stop() throws(CamError) {
        if onCaptureThread() { throw .wouldDeadlock("stop() called from this capturer's own callback") }
        operations.withLock { _ in stopLocked() }
    }

    /// close() from inside a callback: nothing more is delivered from now
    /// on (the capture loop stops at its next turn, the control-event
    /// thread before its next handler call), and close() runs on a library
    /// thread, where it waits for the running callback to return.
    private func closeAfterCallback() {
        stopRequested.store(true, ordering: .releasing)
        controls.mute()
        // With no thread to be had it stays muted and open, closed by the
        // app's next close or its manager's free outside a callback.
        LibraryThread.detached { [self] in close() }
    }

    private func stopLocked() {
        let (thread, waker) = session.withLock { s in
            let t = (s.thread, s.waker)
            s.thread = nil
            s.waker = nil
            return t
        }
        guard let thread else { return }
        stopRequested.store(true, ordering: .releasing)
        // Pull mode: no new turn of the frame path starts; a reader's turn
        // is woken with the capture thread's wait and ends before the
        // driver's queue is freed.
        let pull = puller.withLock { $0 }
        pull?.stop()
        waker?.wake()
        pull?.waitForPumpIdle()
        thread.join()
        running.store(false, ordering: .releasing)
        backend.stop()
    }

    /// Stops and closes the device: its fd is closed when this returns.
    /// Closing twice is fine. It never fails: called from inside one of
    /// this capturer's own callbacks (frame, error, stall, restart, control
    /// change) it mutes the capturer at once (no other callback starts;
    /// streaming ends when the running one returns) and the rest of the
    /// teardown runs on a library thread once that callback has returned,
    /// so the device is closed shortly after (ISSUES 32: close cannot fail).
    package func close() {
        if isInsideCallback {
            closeAfterCallback()
            return
        }
        controls.close()  // joins the control-event thread before the fd closes
        operations.withLock { _ in
            // A reader waiting in acquire (or on the frame fd) learns "closed".
            puller.withLock { $0 }?.stop(closing: true)
            stopLocked()
            let wasOpen = session.withLock { s in
                let open = !s.closed
                s.closed = true
                return open
            }
            if wasOpen { backend.close() }
        }
    }
}
