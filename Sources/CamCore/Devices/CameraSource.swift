// SPDX-License-Identifier: MIT
/// One kind of camera behind one seam (ARCHITECTURE "Backend seam"; model:
/// SDL3's SDL_CameraDriverImpl): how its cameras are listed, described
/// (formats, rates), opened for capture and watched for hot-plug. The
/// V4L2 nodes (`V4L2Source`) and the synthetic camera (`SyntheticSource`)
/// sit behind it; `Manager` asks its sources and branches on no kind.
///
/// Adding a backend (e.g. PipeWire) is: a `CameraSource` that lists and
/// describes its cameras, a `CaptureBackend` (Capture/CaptureBackend.swift)
/// that streams one, and one line in `Manager.init`. Neither needs a file
/// descriptor (`CaptureBackend.fileDescriptor` may be nil), a udev device
/// or mmap buffers (frames come from any `BufferPool`).
///
/// Ids are namespaced: every id a source lists starts with its
/// `idPrefix` ("v4l2:", "synthetic:"), so an id leads to one source
/// without asking the others (SPEC S2: ids are stable and unique).
/// All methods are safe from any thread and may block on the device
/// (S3: listing streams nothing and keeps nothing open).
protocol CameraSource: AnyObject, Sendable {
    /// The prefix of every id this source lists, e.g. "v4l2:".
    var idPrefix: String { get }

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
    func hiddenDevices() -> [DeviceInfo] { [] }
    var openRefusal: String? { nil }
}
