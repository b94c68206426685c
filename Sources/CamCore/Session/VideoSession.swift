// SPDX-License-Identifier: MIT
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Receives frames: the transmission sink or a preview (SPEC S14, S15).
/// Runs on the capture thread of the camera in use (or, for a custom
/// source, on the thread that pushed the frame); the frame is borrowed
/// for the call.
package typealias FrameSink = (Frame) -> Void

/// What a capture hook does with a frame (S20).
package enum HookResult {
    /// Hand the frame on unchanged.
    case pass
    /// Drop it: neither transmission nor previews see it.
    case drop
    /// Hand this frame on instead (the app's memory, valid during the call).
    case replace(Frame)
}

/// Events of a session, delivered on its camera queue (S24).
package enum SessionEvent {
    case connected(DeviceInfo)
    case disconnected(DeviceInfo)
    /// The device in use changed; the format it captures (or will capture).
    case selected(DeviceInfo, CaptureFormat)
    /// Capture stopped on its own (the device vanished, a driver error).
    case captureFailed(DeviceInfo, CamError)
    /// Frames stopped coming (`stalled` true: none for longer than
    /// `Capturer.stallThresholdNs`) or came back (false); `sinceNs` is the
    /// CLOCK_MONOTONIC time of the last frame before the stall. The camera
    /// stays on; the capturer restarts a stall that lasts (S48), and one
    /// that restarts do not end is a disconnect (S25 fallback).
    case stall(DeviceInfo, stalled: Bool, sinceNs: UInt64)
    /// S48: the camera is being restarted after a stall (`restarted`
    /// false) or was (true), `attempt` since its last frame.
    case restart(DeviceInfo, restarted: Bool, attempt: Int)
}

/// The camera switch of a video call (SPEC S9–S21): keeps the camera on
/// exactly when video is transmitted or at least one preview is active.
/// Off means streaming stopped and the device's fd closed.
///
/// A facade over three parts: SessionPolicy (S9's inputs, the one S9 rule
/// and the transmission's transitions, pure code), FrameRouter (who gets
/// each frame: hook, transmission sink, previews, pushed frames) and
/// DeviceFollower (which camera is in use through select, flip and
/// hot-plug). The session itself owns the preferred setting and the
/// capturer, and turns the camera on and off as the policy says.
///
/// Every operation runs on the session's own camera queue, in order
/// (S16). Calls are safe from any thread: from other threads they wait
/// until the operation took effect; on the camera queue (inside an event
/// callback) they run at once; from inside a frame callback of this
/// session they are queued and take effect right after (they return
/// without error then).
package final class VideoSession: @unchecked Sendable {
    /// The transmission's state when it starts (S10).
    package enum InitialVideoState: Sendable { case resume, pause }

    // The snapshot type, State, is with the rules it reports (SessionPolicy.swift).

    package let manager: Manager
    private let queue: CameraQueue
    // Touched only on the camera queue.
    /// S9's inputs and the transmission's state.
    private var policy = SessionPolicy()
    /// The camera is open and streaming (as published).
    private var cameraOn = false
    /// The format in use while the camera is on.
    private var format: CaptureFormat?
    private var preference: CapturePreference
    /// The size every frame of the session is delivered at (S38), for
    /// transmission and previews alike; 0×0 keeps the negotiated size.
    /// Fixed at init; needs the preference's output format.
    package let outputWidth: Int
    package let outputHeight: Int
    private var explicitRequest: CaptureRequest?
    private var capturer: Capturer?
    private var eventHandler: ((SessionEvent) -> Void)?
    private var closed = false
    /// Closed from inside a callback: nothing more reaches the app (any thread).
    private let muted = Atomic<Bool>(false)
    private var observerToken: Int?
    /// Stream restarts tried since the last good start (S26: one).
    private var recoveries = 0
    /// When the camera last turned on (CLOCK_MONOTONIC ns).
    private var onSince: UInt64 = 0
    /// Why the setting in use differs from the negotiated one beyond S6
    /// (S47: the bus could not carry it), or what frames turned out to be
    /// (S43); nil when nothing to say. Read with `note`.
    private let noteText = Mutex<String?>(nil)

    /// Why the camera runs another setting than negotiated: S47's fallback
    /// ("not enough USB bandwidth for YUYV 1280x720 at 10/1 fps: fell back to
    /// MJPG 1280x720 at 30/1 fps"), or S43's frame geometry note; nil when
    /// the camera runs what was negotiated. Safe from any thread.
    package var note: String? { noteText.withLock { $0 } }
    /// S48: the capturer's stall restart (CaptureRequest.stallRestartMs,
    /// stallRestartTries) for every time the camera turns on.
    private let stallRestart = Mutex((ms: 3000, tries: 3))

    /// Sets S48's restart of a stalled camera for the next time it turns
    /// on: after `ms` (0: never), up to `tries` times. Errors: invalidArgument.
    package func setStallRestart(ms: Int, tries: Int) throws(CamError) {
        var r = CaptureRequest()
        r.stallRestartMs = ms; r.stallRestartTries = tries
        try r.validate()
        stallRestart.withLock { $0 = (ms, tries) }
    }

    /// Switch back to a lost device when it returns (S25). Default true.
    package var returnsToReconnectedDevice: Bool {
        get { follower.returnsToReconnectedDevice }
        set { follower.returnsToReconnectedDevice = newValue }
    }
    /// Who gets each frame (hook, transmission sink, previews).
    private let router = FrameRouter()
    /// Which device is in use, through select, flip and hot-plug.
    private let follower = DeviceFollower()
    // Read from other threads.
    private let published = Mutex(State())
    /// The pull queues of pull previews (S36), by preview id.
    private let pullers = Mutex<[UInt32: FramePuller]>([:])

    /// A session on `deviceID` (nil: the first device the manager lists).
    /// Errors: noDevice (no such device, or no device at all when nil is
    /// given and the list is empty is not an error: the session has no
    /// device until one is selected), and thread creation failures.
    package init(manager: Manager, deviceID: String? = nil,
                preference: CapturePreference = CapturePreference(),
                outputWidth: Int = 0, outputHeight: Int = 0) throws(CamError) {
        try CaptureRequest.checkOutputSize(outputWidth, outputHeight, output: preference.output)
        self.manager = manager
        self.preference = preference
        self.outputWidth = outputWidth; self.outputHeight = outputHeight
        queue = try CameraQueue()
        // Every stored property is set by now: if the lookup throws,
        // deinit runs and ends the camera queue.
        if let deviceID {
            follower.use(try manager.device(id: deviceID))
        } else if let first = Manager.defaultDevice(among: manager.devices()) {
            follower.use(first)
        }
        publish()
        // Hot-plug: without a udev monitor (no udev at all) the session
        // still works; it just hears of no device changes.
        observerToken = try? manager.observeDevices { [weak self] change in
            guard let self else { return }
            self.queue.async { [weak self] in self?.deviceChanged(change) }
        }
    }

    deinit {
        // Normally closed already; a session dropped while open is closed
        // here without capturing self in queued work.
        if !closed {
            closed = true
            if let t = observerToken { manager.stopObserving(t) }
            if let c = capturer { c.close() }
            queue.shutdown()
        }
    }

    /// Turns the camera off, drops every sink and ends the camera queue.
    /// Afterwards no callback of this session runs. Idempotent.
    package func close() {
        if isInsideCallback {
            closeAfterCallback()
            return
        }
        _ = queue.sync { [self] () -> CamError? in
            guard !closed else { return nil }
            closed = true
            if let t = observerToken { manager.stopObserving(t) }
            turnOff()
            eventHandler = nil
            router.removeAll()
            for p in pullers.withLock({ d in defer { d.removeAll() }; return Array(d.values) }) { p.stop() }
            policy.previewCount = 0
            policy.transmitting = false
            publish()
            return nil
        }
        queue.shutdown()
    }

    /// close() from inside one of the session's callbacks (frame, device,
    /// completion): from now on no callback starts (frames reach no
    /// receiver, events and completions are dropped), and close() runs on
    /// a library thread, where it waits for the running callback to return
    /// and turns the camera off. It never fails (ISSUES 32).
    private func closeAfterCallback() {
        muted.store(true, ordering: .releasing)
        router.mute()
        // With no thread to be had it stays muted, closed by the manager's
        // free or the app's next close outside a callback.
        LibraryThread.detached { [self] in close() }
    }

    /// An event for the app, unless the session was closed from a callback.
    private func emit(_ event: SessionEvent) {
        if !muted.load(ordering: .acquiring) { eventHandler?(event) }
    }

    // MARK: Queries

    /// The current state (safe from any thread, also from callbacks).
    package var currentState: State { published.withLock { $0 } }

    // MARK: Running operations

    /// True inside one of this session's callbacks (frame delivery or the
    /// camera queue), where freeing the session would pull it from under itself.
    package var isInsideCallback: Bool { isDelivering || queue.isCurrent }

    /// Inside this session's frame delivery (its router's CallbackMark).
    private var isDelivering: Bool { router.isDelivering }

    /// Runs `body` on the camera queue and returns its error: waits from
    /// other threads, inline on the queue, deferred inside a frame callback.
    private func run(_ body: @escaping () -> CamError?) -> CamError? {
        if isDelivering {
            queue.async { [self] in if !closed { _ = body() } }
            return nil
        }
        return queue.sync { [self] in closed ? .state("the session is closed") : body() }
    }

    /// Runs `body` on the camera queue later; `completion` (if any) is then
    /// called once on the queue with its result (S16).
    private func submit(_ body: @escaping () -> CamError?, _ completion: ((CamError?) -> Void)?) {
        queue.async { [self] in
            let r = closed ? CamError.state("the session is closed") : body()
            if !muted.load(ordering: .acquiring) { completion?(r) }
        }
    }

    private func publish() {
        let s = State(policy: policy, cameraOn: cameraOn, device: follower.device, format: format)
        published.withLock { $0 = s }
    }

    /// Tells the router where frames go now (S11–S15, S21).
    private func updateRouting() {
        router.update(transmitCamera: policy.transmitsCameraFrames, transmitPushed: policy.transmitsPushedFrames)
    }

    /// S9: make the camera's on/off match the state. Returns the error of
    /// turning it on, if that failed (the state is kept: a later change retries).
    @discardableResult
    private func applySwitch() -> CamError? {
        updateRouting()
        var error: CamError?
        let hasDevice = follower.device != nil
        if !hasDevice && policy.wantsCamera(hasDevice: true) {
            error = .noDevice("no camera is selected: none is present (the state is kept; a camera that appears is used)")
        }
        let wanted = policy.wantsCamera(hasDevice: hasDevice)
        if wanted && capturer == nil {
            error = turnOn()
        } else if !wanted && capturer != nil {
            turnOff()
        }
        cameraOn = capturer != nil
        publish()
        return error
    }

    /// The request used when the camera turns on: the app's explicit
    /// setting, else the preference negotiated on the device (S6), with
    /// how that differs from the preference (the request itself is exact,
    /// so the capturer alone would see no adjustment).
    private func request(for device: DeviceInfo) throws(CamError)
        -> (CaptureRequest, NegotiatedFormat.Adjustments) {
        if var r = explicitRequest {
            r.output = preference.output
            r.outputWidth = outputWidth; r.outputHeight = outputHeight
            return (r, [])
        }
        let n = try manager.negotiate(deviceID: device.id, preference: preference)
        return (CaptureRequest(fourcc: n.fourcc, width: n.width, height: n.height, frameRate: n.rate,
                               output: preference.output, outputWidth: outputWidth, outputHeight: outputHeight),
                n.adjustments)
    }

    private func turnOn() -> CamError? {
        guard let device = follower.device else { return .noDevice("no camera is selected") }
        do throws(CamError) {
            var (req, negotiated) = try request(for: device)
            (req.stallRestartMs, req.stallRestartTries) = stallRestart.withLock { $0 }
            let cap = try manager.open(deviceID: device.id)
            // S43: frames of another size than negotiated re-report the selection.
            cap.onFormatChange = { [weak self, weak cap] fmt, why in
                guard let self else { return }
                noteText.withLock { $0 = why }
                queue.async { self.formatChanged(cap, device, fmt) }
            }
            func start(_ r: CaptureRequest) throws(CamError) {
                try cap.start(r, onFrame: { [router] f in router.deliver(f) }, onError: { [weak self] e in
                    guard let self else { return }
                    queue.async { self.captureFailed(device, e) }
                }, onStall: { [weak self, weak cap] stalled, since in
                    guard let self else { return }
                    queue.async { self.captureStalled(cap, device, stalled: stalled, sinceNs: since) }
                }, onRestart: { [weak self, weak cap] restarted, attempt in
                    guard let self else { return }
                    queue.async {
                        guard !self.closed, let cap, self.capturer === cap else { return }
                        self.emit(.restart(device, restarted: restarted, attempt: attempt))
                    }
                })
            }
            noteText.withLock { $0 = nil }
            do throws(CamError) {
                try start(req)
            } catch {
                guard case .bandwidth = error else { cap.close(); throw error }
                // S47: the bus cannot carry it; the best setting it does.
                let options = Negotiation.bandwidthFallbacks(
                    (try? manager.formats(deviceID: device.id)) ?? [], failed: req.fourcc, width: req.width,
                    height: req.height, maxRate: preference.maxRate)
                do throws(CamError) {
                    let (used, adjusted, why) = try VideoSession.fallBack(from: req, error, to: options, start: start)
                    req = used
                    negotiated.formUnion(adjusted)
                    noteText.withLock { $0 = why }
                } catch {
                    cap.close()
                    throw error
                }
            }
            capturer = cap
            onSince = monotonicNs()
            // S6 for sessions: what the session asked for is the preference,
            // so the negotiation's adjustments join the driver's.
            format = cap.format.map { f in
                var f = f
                f.adjustments.formUnion(negotiated)
                return f
            }
            return nil
        } catch {
            return error
        }
    }

    /// S47: after `failed` met `error` (the bus cannot carry it), starts
    /// the first of `options` that `start` takes; a bandwidth error goes on
    /// to the next, any other error ends the search. Returns the request
    /// started, how it differs from `failed` and the words saying why.
    /// Throws the last error when none starts.
    static func fallBack(from failed: CaptureRequest, _ error: CamError, to options: [NegotiatedFormat],
                         start: (CaptureRequest) throws(CamError) -> Void)
        throws(CamError) -> (CaptureRequest, NegotiatedFormat.Adjustments, String) {
        func setting(_ r: CaptureRequest) -> String {
            "\(r.fourcc) \(r.width)x\(r.height)" + (r.frameRate.map { " at \($0.numerator)/\($0.denominator) fps" } ?? "")
        }
        var last = error
        for n in options {
            var r = failed
            r.fourcc = n.fourcc; r.width = n.width; r.height = n.height; r.frameRate = n.rate
            do throws(CamError) {
                try start(r)
            } catch {
                last = error
                if case .bandwidth = error { continue }
                throw error
            }
            return (r, n.adjustments, "not enough USB bandwidth for \(setting(failed)): fell back to \(setting(r)) (S47)")
        }
        throw last
    }

    /// The capture's frames have another geometry than negotiated (S43):
    /// the session's format follows, and `selected` tells it again.
    private func formatChanged(_ cap: Capturer?, _ device: DeviceInfo, _ fmt: CaptureFormat) {
        guard !closed, let cap, capturer === cap else { return }
        var f = fmt
        f.adjustments.formUnion(format?.adjustments ?? [])   // the negotiation's (S6) too
        format = f
        emit(.selected(device, f))
        publish()
    }

    private func turnOff() {
        if let c = capturer {
            c.close()
            capturer = nil
        }
        format = nil
    }

    /// Capture ended on its own (S25, S26). A vanished device is handled
    /// as a removal; another error gets one stream restart, then is reported.
    private func captureFailed(_ device: DeviceInfo, _ error: CamError) {
        guard !closed, capturer != nil, follower.device?.id == device.id else { return }
        turnOff()
        // S48: a stall that restarts did not end is a camera gone for the
        // call (S25: fall back to another camera), as an unplug is.
        var gone = false
        if case .noDevice = error { gone = true }
        if case .timeout = error { gone = true }
        if gone {
            follower.captureFoundGone(device)
            emit(.disconnected(device))
            lost(device)
            return
        }
        emit(.captureFailed(device, error))
        // A stream that ran a while before failing earns a fresh restart:
        // the bound is one restart per failure burst, not per session.
        if monotonicNs() &- onSince > 5_000_000_000 { recoveries = 0 }
        if recoveries == 0 {
            recoveries += 1
            if applySwitch() == nil { return }
        }
        cameraOn = false
        publish()
    }

    /// The capturer in use stopped getting frames, or got them again: told
    /// as it is (no restart). A stale capturer's word is dropped.
    private func captureStalled(_ cap: Capturer?, _ device: DeviceInfo, stalled: Bool, sinceNs: UInt64) {
        guard !closed, let cap, capturer === cap else { return }
        emit(.stall(device, stalled: stalled, sinceNs: sinceNs))
    }

    /// S24/S25: a device came or went.
    private func deviceChanged(_ change: DeviceChange) {
        guard !closed else { return }
        switch change {
        case .removed(let d):
            if follower.removed(d, announce: { emit($0) }) { lost(d) }
        case .added(let d):
            if follower.added(d, announce: { emit($0) }) { _ = switchTo(d, keeping: nil) }
        case .permission:
            break  // the cameras it lets in or out arrive as added/removed
        }
    }

    /// The device in use is gone: stop cleanly and select another if one
    /// exists, keeping S9 (S25).
    private func lost(_ device: DeviceInfo) {
        turnOff()
        if let next = follower.lost(device, available: manager.devices()) {
            _ = switchTo(next, keeping: nil)
        } else {
            cameraOn = false
            publish()
        }
    }

    // MARK: Transmission (S10–S13, S15)

    /// Starts transmission in `initial` state (S10); `preparing` starts in
    /// responder preparation (S13). Errors: state (already transmitting),
    /// and the camera's errors when it must turn on.
    package func startTransmission(_ initial: InitialVideoState = .resume, preparing: Bool = false) throws(CamError) {
        try transition { $0.startTransmission(initial, preparing: preparing) }
    }

    /// Ends responder preparation: frames now reach the transmission sink (S13).
    package func endPreparation() throws(CamError) { try transition { $0.endPreparation() } }
    /// S12: stops transmitting video; the camera turns off unless a preview is active.
    package func pauseVideo() throws(CamError) { try transition { $0.pauseVideo() } }
    /// S12: transmits video again; the camera turns back on.
    package func resumeVideo() throws(CamError) { try transition { $0.resumeVideo() } }
    /// S11: holds the call: no transmission, camera off unless a preview is active.
    package func hold() throws(CamError) { try transition { $0.hold() } }
    /// S11: unholds: transmission (and the camera) back as before the hold.
    package func unhold() throws(CamError) { try transition { $0.unhold() } }
    /// S15: hard mute turns the transmission's camera off, keeping the
    /// other transmission state; unmute restores it.
    package func setHardMute(_ muted: Bool) throws(CamError) { try transition { $0.setHardMute(muted) } }

    /// Ends transmission (the call ended): camera off unless previewing.
    package func endTransmission() throws(CamError) {
        try transition { $0.endTransmission(); return nil }
    }

    /// Applies a policy transition on the camera queue, then makes the
    /// camera match (S9); the transition's error leaves everything as it was.
    private func transition(_ step: @escaping (inout SessionPolicy) -> CamError?) throws(CamError) {
        if let e = run({ [self] in
            if let e = step(&policy) { return e }
            return applySwitch()
        }) { throw e }
    }

    /// S15: where transmitted frames go; nil keeps the camera as S9 says
    /// and drops the frames. After it returns, the old sink gets no frame.
    package func setTransmissionSink(_ sink: FrameSink?) {
        _ = run { [self] in
            router.setSink(sink)
            return nil
        }
    }

    // MARK: Previews (S14)

    /// Previews one session takes at most (camcore.h CAMCORE_MAX_PREVIEWS):
    /// each frame is handed to every preview on the capture thread, so far
    /// more would only stall capture.
    package static let maxPreviews = 64

    /// Adds a preview receiver; the camera turns on if it was off.
    /// Returns its id. On a camera error the preview stays registered
    /// (the error is thrown; a later change retries). Errors: noMemory
    /// past `maxPreviews`, and turning the camera on's.
    @discardableResult
    package func addPreview(_ sink: @escaping FrameSink) throws(CamError) -> UInt32 {
        let (id, error) = addPreviewReporting(sink)
        if let error { throw error }
        return id
    }

    /// addPreview that also gives the id when turning the camera on failed
    /// (the preview stays added). The id is chosen on the calling thread,
    /// so it is right even when the addition is queued (from a callback).
    /// Errors: noMemory past `maxPreviews` (the id is then 0), and
    /// turning the camera on's errors.
    package func addPreviewReporting(_ sink: @escaping FrameSink) -> (id: UInt32, error: CamError?) {
        guard router.reservePreview(limit: VideoSession.maxPreviews) else {
            return (0, .noMemory("the session already has \(VideoSession.maxPreviews) previews (CAMCORE_MAX_PREVIEWS); remove one first"))
        }
        let n = router.nextPreviewID()
        let e = run { [self] in
            router.addPreview(n, sink)
            policy.previewCount = router.previewCount
            return applySwitch()
        }
        return (n, e)
    }

    /// Removes a preview; after it returns that receiver gets no frame.
    /// The camera turns off if nothing else needs it. Errors: invalidArgument (unknown id).
    package func removePreview(_ id: UInt32) throws(CamError) {
        if let e = run({ [self] in
            guard router.removePreview(id) else {
                return .invalidArgument("no preview with id \(id)")
            }
            policy.previewCount = router.previewCount
            return applySwitch()
        }) { throw e }
        pullers.withLock { $0.removeValue(forKey: id) }?.stop()
    }

    /// A preview read by pulling (S36): it counts as a preview for S9 (the
    /// camera turns on), and its frames wait in a queue of `depth` (1...8)
    /// for `acquirePreview`, the oldest given up when it is full. Remove
    /// it with `removePreview`. Errors: invalidArgument (depth), and
    /// addPreview's. The id comes back also when turning the camera on
    /// failed (the preview stays added).
    package func addPullPreviewReporting(depth: Int) -> (id: UInt32, error: CamError?) {
        let p: FramePuller
        do throws(CamError) { p = try FramePuller(depth: depth) {} } catch { return (0, error) }
        let (id, error) = addPreviewReporting { p.deliver($0) }
        if id != 0 { pullers.withLock { $0[id] = p } }
        return (id, error)
    }

    /// The pull queue of a pull preview. Errors: invalidArgument (no pull
    /// preview with that id).
    package func pullQueue(ofPreview id: UInt32) throws(CamError) -> FramePuller {
        guard let p = pullers.withLock({ $0[id] }) else {
            throw .invalidArgument("no pull preview with id \(id) (camcore_session_add_preview_pull)")
        }
        return p
    }

    /// The oldest queued frame of a pull preview, waiting up to
    /// `timeoutMs` (0: poll; < 0: no limit). From inside the session's own
    /// callbacks (the thread that delivers its frames) it never waits: a
    /// queued frame is returned, none is wouldDeadlock unless `timeoutMs`
    /// is 0 (then timeout), since no frame can come while that thread
    /// waits (S16). Errors: invalidArgument (unknown id), timeout, state
    /// (depth frames held, or removed), wouldDeadlock.
    package func acquirePreview(_ id: UInt32, timeoutMs: Int32) throws(CamError) -> RetainedFrame {
        let queue = try pullQueue(ofPreview: id)
        guard timeoutMs != 0, isInsideCallback else { return try queue.acquire(timeoutMs: timeoutMs) }
        do throws(CamError) {
            return try queue.acquire(timeoutMs: 0)
        } catch {
            if case .timeout = error {
                throw .wouldDeadlock("acquiring a preview frame with a timeout from the session's own callback: "
                                     + "no frame can arrive while it waits (poll with timeout 0, or pull on another thread)")
            }
            throw error
        }
    }

    // MARK: Capture hook and custom source (S20, S21)

    /// Sets (or clears) the capture hook, called for each camera frame
    /// before transmission and previews, on the capture thread.
    package func setCaptureHook(_ hook: ((Frame) -> HookResult)?) {
        _ = run { [self] in
            router.setHook(hook)
            return nil
        }
    }

    /// Turns the custom video source on or off (S21): while on,
    /// transmission takes frames from `pushFrame` instead of the camera,
    /// and the camera runs only for previews.
    package func setCustomSource(_ active: Bool) throws(CamError) {
        try transition { $0.customSource = active; return nil }
    }

    /// Pushes an app frame into transmission (S21). Delivered to the
    /// transmission sink on the calling thread when transmission takes
    /// frames. Errors: state (no custom source active).
    package func pushFrame(_ frame: Frame) throws(CamError) {
        guard published.withLock({ $0.customSource }) else { throw .state("no custom video source is active") }
        router.push(frame)
    }

    // MARK: Capturer operations (S17–S19)

    /// S17 start: capture with this setting whenever S9 says on (clears a
    /// previous stop). `completion` runs on the camera queue once it took effect.
    package func start(_ request: CaptureRequest, completion: ((CamError?) -> Void)? = nil) {
        submit({ [self] in
            do throws(CamError) { try request.validate() } catch { return error }
            explicitRequest = request
            policy.stoppedByApp = false
            recoveries = 0
            turnOff()
            return applySwitch()
        }, completion)
    }

    /// S17 stop: the camera turns off until start or restart.
    package func stop(completion: ((CamError?) -> Void)? = nil) {
        submit({ [self] in
            policy.stoppedByApp = true
            return applySwitch()
        }, completion)
    }

    /// S17 restart: on again with the same settings as before the stop.
    package func restart(completion: ((CamError?) -> Void)? = nil) {
        submit({ [self] in
            policy.stoppedByApp = false
            recoveries = 0
            return applySwitch()
        }, completion)
    }

    /// S17 change: new settings; restarts the camera if it is on.
    package func change(_ request: CaptureRequest, completion: ((CamError?) -> Void)? = nil) {
        submit({ [self] in
            do throws(CamError) { try request.validate() } catch { return error }
            explicitRequest = request
            if capturer != nil { turnOff() }
            return applySwitch()
        }, completion)
    }

    /// S18 select: switch to another device keeping the preferred setting
    /// (its nearest format on the new device); emits `selected`.
    /// Errors: customSourceActive, noDevice, and the camera's errors.
    package func select(deviceID: String, completion: ((CamError?) -> Void)? = nil) {
        submit({ [self] in
            if policy.customSource {
                return .customSourceActive("a custom video source feeds transmission; turn it off before selecting a camera")
            }
            do throws(CamError) {
                let d = try manager.device(id: deviceID)
                follower.appSelected()  // the app's choice replaces the automatic return
                return switchTo(d, keeping: nil)
            } catch { return error }
        }, completion)
    }

    /// S19 flip: the camera facing the other way (front <-> back), or with
    /// no positions known the next camera, at the format and rate nearest
    /// to the current ones. Errors: customSourceActive, noDevice (no other camera).
    package func flip(completion: ((CamError?) -> Void)? = nil) {
        submit({ [self] in
            if policy.customSource {
                return .customSourceActive("a custom video source feeds transmission; turn it off before flipping")
            }
            guard let target = follower.flipTarget(among: manager.devices()) else {
                return .noDevice("there is no other camera to flip to")
            }
            return switchTo(target, keeping: format ?? explicitRequest.map {
                CaptureFormat(fourcc: $0.fourcc, width: $0.width, height: $0.height, strides: [],
                              frameBytes: 0, frameRate: $0.frameRate, bufferCount: $0.bufferCount)
            })
        }, completion)
    }

    /// Moves to `device`. With `keeping`, the new setting is the nearest to
    /// that format (flip); else the preference (select). Emits `selected`.
    private func switchTo(_ device: DeviceInfo, keeping current: CaptureFormat?) -> CamError? {
        turnOff()
        follower.use(device)
        let pref = DeviceFollower.preference(preference, keeping: current, request: explicitRequest)
        var chosen: NegotiatedFormat
        do throws(CamError) {
            chosen = try manager.negotiate(deviceID: device.id, preference: pref)
        } catch {
            cameraOn = false
            publish()
            return error
        }
        if explicitRequest != nil || current != nil {
            explicitRequest = CaptureRequest(fourcc: chosen.fourcc, width: chosen.width, height: chosen.height,
                                             frameRate: chosen.rate, output: preference.output)
        }
        let error = applySwitch()
        let fmt = format ?? CaptureFormat(
            fourcc: preference.output ?? chosen.fourcc, width: chosen.width, height: chosen.height, strides: [],
            frameBytes: 0, frameRate: chosen.rate, bufferCount: 0, sourceFourCC: chosen.fourcc,
            adjustments: chosen.adjustments)
        emit(.selected(device, fmt))
        return error
    }

    /// Sets the preferred setting used from the next time the camera turns
    /// on (and now, if it is on with the preference).
    package func setPreference(_ p: CapturePreference, completion: ((CamError?) -> Void)? = nil) {
        submit({ [self] in
            preference = p
            if capturer != nil && explicitRequest == nil { turnOff() }
            return applySwitch()
        }, completion)
    }

    /// Sets the event handler (S24), called on the camera queue. nil removes it.
    package func setEventHandler(_ handler: ((SessionEvent) -> Void)?) {
        _ = run { [self] in
            eventHandler = handler
            return nil
        }
    }

    /// Waits until every operation queued so far has run (for tests and
    /// for apps that queued operations without completions).
    package func flush() {
        if isDelivering || queue.isCurrent { return }
        _ = queue.sync { () -> Int in 0 }
    }
}

