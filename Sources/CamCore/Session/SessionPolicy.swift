// SPDX-License-Identifier: MIT
/// The camera switch as pure code (SPEC S9–S15, S17 stop, S21): the
/// session's inputs to S9, the one S9 predicate over them, and the state
/// transitions of the transmission. No device, no lock, no thread: the
/// session keeps one of these on its camera queue, changes it only through
/// these rules and then makes the camera match `wantsCamera` (table-tested
/// in SessionPolicyTests).
struct SessionPolicy: Sendable, Equatable {
    /// A transmission exists (started and not ended).
    var transmitting = false
    /// S12: pause_video() (or S10's initial `pause`) until resume_video().
    var paused = false
    /// S11: hold() until unhold().
    var held = false
    /// S13 responder preparation: the call is not fully connected yet.
    var preparing = false
    /// S15 hard mute.
    var hardMuted = false
    /// S14: active preview receivers.
    var previewCount = 0
    /// S21: a custom video source feeds transmission instead of the camera.
    var customSource = false
    /// S17: the app stopped the capturer and has not started or restarted it.
    var stoppedByApp = false

    /// Transmission needs the camera: transmitting and not paused, held or
    /// hard-muted, and fed by the camera (no custom source). Preparation
    /// does not matter: the camera may run before frames are sent (S13).
    var transmissionNeedsCamera: Bool {
        transmitting && !paused && !held && !hardMuted && !customSource
    }

    /// S9, the one place it is written: the camera is on exactly when
    /// transmission needs it or at least one preview is active, unless the
    /// app stopped the capturer; and only with a device to open.
    func wantsCamera(hasDevice: Bool) -> Bool {
        (transmissionNeedsCamera || previewCount > 0) && !stoppedByApp && hasDevice
    }

    /// Frames reach the transmission sink: after preparation, while
    /// transmitting and not paused, held or muted (S11–S13, S15).
    var transmitsFrames: Bool { transmitting && !paused && !held && !hardMuted && !preparing }
    /// The camera's frames go to the transmission sink (not a custom source's).
    var transmitsCameraFrames: Bool { transmitsFrames && !customSource }
    /// Pushed frames go to the transmission sink (S21).
    var transmitsPushedFrames: Bool { transmitsFrames && customSource }

    // MARK: Transitions (S10–S13, S15)

    /// S10: starts transmission in `initial` state; `preparing` starts in
    /// responder preparation (S13). Hold and mute start cleared.
    /// Error: state (already transmitting; nothing changes).
    mutating func startTransmission(_ initial: VideoSession.InitialVideoState, preparing: Bool) -> CamError? {
        if transmitting { return .state("transmission has already started") }
        transmitting = true
        paused = initial == .pause
        held = false
        hardMuted = false
        self.preparing = preparing
        return nil
    }

    /// The call ended: no transmission and none of its states left.
    mutating func endTransmission() {
        transmitting = false
        paused = false; held = false; preparing = false; hardMuted = false
    }

    /// S13: preparation over; frames now reach the transmission sink.
    mutating func endPreparation() -> CamError? { changeTransmission { $0.preparing = false } }
    /// S12.
    mutating func pauseVideo() -> CamError? { changeTransmission { $0.paused = true } }
    /// S12.
    mutating func resumeVideo() -> CamError? { changeTransmission { $0.paused = false } }
    /// S11. Hold is a flag of its own, so unhold gives back exactly the
    /// state before the hold (a pause or a mute made before it stays).
    mutating func hold() -> CamError? { changeTransmission { $0.held = true } }
    /// S11.
    mutating func unhold() -> CamError? { changeTransmission { $0.held = false } }
    /// S15: mute keeps the other transmission state; unmute restores it.
    mutating func setHardMute(_ muted: Bool) -> CamError? { changeTransmission { $0.hardMuted = muted } }

    /// A change of a running transmission. Error: state (no transmission;
    /// nothing changes).
    private mutating func changeTransmission(_ change: (inout SessionPolicy) -> Void) -> CamError? {
        guard transmitting else { return .state("no transmission: start it first") }
        change(&self)
        return nil
    }
}

extension VideoSession {
    /// A snapshot of the session (S9's inputs and output).
    package struct State: Sendable, Equatable {
        /// S9's inputs (the session's policy when the snapshot was taken).
        var policy = SessionPolicy()
        /// The camera device is open and streaming.
        package var cameraOn = false
        package var device: DeviceInfo?
        /// The format in use while the camera is on. Its `adjustments` say
        /// how it differs from what the session asked for: the preference
        /// (the negotiation's adjustments and the driver's) or the explicit
        /// start setting.
        package var format: CaptureFormat?
        /// `format`'s adjustments (S6 "says that it adjusted"); empty while off.
        package var adjustments: NegotiatedFormat.Adjustments { format?.adjustments ?? [] }

        /// A transmission exists (started and not ended).
        package var transmitting: Bool { get { policy.transmitting } set { policy.transmitting = newValue } }
        package var paused: Bool { get { policy.paused } set { policy.paused = newValue } }
        package var held: Bool { get { policy.held } set { policy.held = newValue } }
        /// Responder preparation: the call is not fully connected (S13).
        package var preparing: Bool { get { policy.preparing } set { policy.preparing = newValue } }
        package var hardMuted: Bool { get { policy.hardMuted } set { policy.hardMuted = newValue } }
        package var previewCount: Int { get { policy.previewCount } set { policy.previewCount = newValue } }
        /// A custom video source feeds transmission (S21).
        package var customSource: Bool { get { policy.customSource } set { policy.customSource = newValue } }
        /// The app stopped the capturer (S17 stop) and has not restarted it.
        package var stoppedByApp: Bool { get { policy.stoppedByApp } set { policy.stoppedByApp = newValue } }

        /// Transmission needs the camera: transmitting and not paused,
        /// held or hard-muted, and fed by the camera (no custom source).
        package var transmissionNeedsCamera: Bool { policy.transmissionNeedsCamera }
        /// S9: on iff transmission needs the camera or a preview is active
        /// (and the app has not stopped the capturer, and a device exists).
        package var wantsCamera: Bool { policy.wantsCamera(hasDevice: device != nil) }
    }
}
