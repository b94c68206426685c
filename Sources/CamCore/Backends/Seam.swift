// SPDX-License-Identifier: MIT
/// One kind of camera behind one seam (ARCHITECTURE "Backend seam"; model:
/// SDL3's SDL_CameraDriverImpl): how its cameras are listed, described
/// (formats, rates), opened for capture and watched for hot-plug. The
/// V4L2 nodes (`V4L2Source`) and the synthetic camera (`SyntheticSource`)
/// sit behind it; `Manager` asks its sources and branches on no kind.
///
/// Adding a backend is: a folder under Backends/ with a `CameraSource`
/// that lists and describes its cameras and a `CaptureBackend` (below)
/// that streams one, and one row in `BackendRegistry.rows`. Neither needs
/// a file descriptor (`CaptureBackend.fileDescriptor` may be nil), a udev
/// device or mmap buffers (frames come from any `BufferPool`); what a
/// backend can do beyond frames it declares (`CaptureBackend.abilities`,
/// `controlSurface`), and the core asks for nothing else.
///
/// Ids are namespaced: every id a source lists starts with its
/// `idPrefix` ("v4l2:", "synthetic:"), so an id leads to one source
/// without asking the others (SPEC S2: ids are stable and unique).
/// All methods are safe from any thread and may block on the device
/// (S3: listing streams nothing and keeps nothing open).
protocol CameraSource: AnyObject, Sendable {
    /// The backend's name (S33), as in `BackendRegistry.rows`: "v4l2",
    /// "libcamera", "pipewire", "synthetic".
    var name: String { get }

    /// The prefix of every id this source lists: `name` + ":".
    var idPrefix: String { get }

    /// Why this source lists nothing now (its library, plugin or daemon
    /// is missing); nil (the default) when it lists.
    var unavailableReason: String? { get }

    /// True when the last listing met capture nodes that only a
    /// media-pipeline backend reaches (S40); false (the default) for
    /// sources that have none.
    var sawMediaPipeline: Bool { get }

    /// The camera portal this source reaches its cameras through (S35),
    /// whose permission the manager reports; nil (the default).
    var cameraPortal: CameraPortal? { get }

    /// The cameras present now, in this source's order.
    func devices() -> [DeviceInfo]

    /// The capture nodes of this source that are not cameras (S40: parts
    /// of a media pipeline), each with its `hiddenReason`; most sources
    /// have none (the default).
    func hiddenDevices() -> [DeviceInfo]

    /// Why opening one of this source's ids is not supported at all now
    /// (its plugin is missing), for the open's error; nil (the default)
    /// when an unknown id is simply absent.
    var openRefusal: String? { get }

    /// The camera with this id, present now; nil when absent.
    func device(id: String) -> DeviceInfo?

    /// The device's formats (S5), in the driver's order.
    /// Errors: noDevice, access, busy, io.
    func formats(of device: DeviceInfo) throws(CamError) -> [FormatDescription]

    /// The rates of one format at one size (S7).
    /// Errors: noDevice, access, busy, io, notSupported (no such format).
    func rates(of device: DeviceInfo, fourcc: FourCC, width: Int, height: Int) throws(CamError) -> RateRange

    /// Opens the device for capture; the backend is owned by one Capturer.
    /// Errors: noDevice, access, busy, io.
    func open(_ device: DeviceInfo) throws(CamError) -> CaptureBackend

    /// Starts reporting cameras of this source that come and go (S24) to
    /// `observer`, on a thread of the source's. nil when the source's
    /// cameras never change. Errors: io (no event source).
    func watch(_ observer: @escaping @Sendable (DeviceChange) -> Void) throws(CamError) -> SourceWatch?
}

/// A running hot-plug watch of one source; after `stop()` returns the
/// observer is not running and will not run again.
protocol SourceWatch: AnyObject, Sendable {
    func stop()
}

extension CameraSource {
    var idPrefix: String { name + ":" }
    func hiddenDevices() -> [DeviceInfo] { [] }
    var openRefusal: String? { nil }
    var unavailableReason: String? { nil }
    var sawMediaPipeline: Bool { false }
    var cameraPortal: CameraPortal? { nil }
}

/// What a backend's wait for a frame ends with.
enum BackendEvent {
    /// A frame was written into the caller's frame.
    case frame
    /// The waker fired: stop, or buffers to requeue.
    case woken
    /// Nothing yet; wait again.
    case idle
    /// Streaming cannot go on.
    case failed(CamError)
}

/// A source of frames behind a capturer: a V4L2 node or the synthetic
/// camera. Called only from the capturer, one call at a time: `configure`
/// and `streamOff` with the capture thread not running, `nextFrame` and
/// `requeue` from the capture thread.
/// What a capture backend can do beyond delivering frames (ARCHITECTURE
/// "Backends alike": declared, never found out by the backend's type).
struct BackendAbilities: OptionSet, Sendable {
    let rawValue: UInt32
    /// Exports its buffers as DMA-BUF fds (S37: VIDIOC_EXPBUF).
    static let dmabufExport = BackendAbilities(rawValue: 1)
}

protocol CaptureBackend: AnyObject {
    /// What this backend can do beyond frames; [] (the default) for none.
    var abilities: BackendAbilities { get }
    /// The native fd while open (S28); nil for the synthetic camera.
    var fileDescriptor: Int32? { get }
    /// The buffers of the running session; nil when stopped.
    var buffers: BufferPool? { get }
    /// Sets format and rate, allocates buffers and starts streaming.
    func start(_ request: CaptureRequest, waker: Waker) throws(CamError) -> CaptureFormat
    /// Waits for the next frame or a wake-up, at most `timeoutMs` (then
    /// `.idle`); on `.frame` the frame was written into `frame` (in place:
    /// a frame is too big to pass around by value on every hand-over of
    /// the frame path).
    func nextFrame(into frame: inout Frame, timeoutMs: Int32) -> BackendEvent
    /// Gives a buffer back to the driver.
    func requeue(_ slot: Int) throws(CamError)
    /// Stops streaming and frees the driver's queue. Idempotent.
    func stop()
    /// Closes the device. Idempotent.
    func close()
    /// The controls of a backend that reaches them some other way than a
    /// V4L2 fd (a PipeWire node's Props); nil (the default) means: the
    /// controls of `fileDescriptor`, or none.
    var controlSurface: ControlSurface? { get }
}

extension CaptureBackend {
    var abilities: BackendAbilities { [] }
    var controlSurface: ControlSurface? { nil }
}
