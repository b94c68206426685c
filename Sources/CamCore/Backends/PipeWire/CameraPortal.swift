// SPDX-License-Identifier: MIT
internal import CPortal
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Whether the app may use the cameras (SPEC S35), as the camera portal
/// answered. Raw values are the C ABI's CAMCORE_PERMISSION_*.
package enum CameraPermission: Int32, Sendable, CaseIterable {
    /// Not asked yet.
    case unknown = 0
    /// Asked; the portal (or the user, in its dialog) has not answered.
    case pending = 1
    /// Allowed, or no portal is in use (nothing to ask).
    case granted = 2
    /// Refused by the user, the permission store or a lockdown; or the
    /// portal could not be asked (the detail says which).
    case denied = 3

    package var name: String {
        switch self {
        case .unknown: return "unknown"
        case .pending: return "pending"
        case .granted: return "granted"
        case .denied: return "denied"
        }
    }
}

/// When camcore goes through the camera portal (S35).
package enum PortalChoice: String, Sendable, CaseIterable {
    /// Inside a sandbox (Flatpak, Snap), for the PipeWire backend.
    case auto
    /// Never: PipeWire's default socket (or the app's fd).
    case never
    /// Always for the PipeWire backend, also outside a sandbox.
    case always

    /// The choice in CAMCORE_PORTAL; nil when unset or empty. Errors:
    /// invalidArgument for any other name (Environment).
    static func fromEnvironment() throws(CamError) -> PortalChoice? {
        try Environment.choice(Environment.portal, PortalChoice.self)
    }
}

/// The camera portal client (org.freedesktop.portal.Camera on the session
/// bus, through libdbus-1 loaded at run time): AccessCamera on first need
/// (or when asked), its answer as the permission state, then
/// OpenPipeWireRemote for each PipeWire connection. The request runs on
/// camcore's portal thread; state changes go to `onChange` there. Safe
/// from any thread.
final class CameraPortal: @unchecked Sendable {
    private struct State {
        var permission: CameraPermission = .unknown
        var detail = "camera access has not been asked for yet"
        var thread: LibraryThread?
        /// Stays readable once the running request has an answer.
        var answered: Waker?
        var client: OpaquePointer?
        var closed = false
    }
    private let state = Mutex(State())
    private let onChange: @Sendable (CameraPermission, String) -> Void

    init(onChange: @escaping @Sendable (CameraPermission, String) -> Void) { self.onChange = onChange }

    deinit { close() }

    var permission: CameraPermission { state.withLock { $0.permission } }
    /// Why the state is what it is ("waiting for the user's answer", the
    /// portal's refusal, "no desktop portal on the session bus", ...).
    var detail: String { state.withLock { $0.detail } }

    /// Starts AccessCamera unless a request is running or answered
    /// (`again`: also after a denial). Errors: io (no thread).
    /// The state turns pending at once; the change is reported from the
    /// portal thread (callers may hold locks the observers take).
    func start(again: Bool = false) throws(CamError) {
        try state.withLock { s throws(CamError) in
            if s.closed || s.permission == .pending || s.permission == .granted { return }
            if s.permission == .denied && !again { return }
            s.thread?.join()
            let done = try Waker()
            let previous = (s.permission, s.detail)
            s.answered = done
            s.permission = .pending
            s.detail = "waiting for the camera portal's answer (AccessCamera)"
            do throws(CamError) {
                s.thread = try LibraryThread(name: "camcore-portal") { [self] in run(done) }
            } catch {
                (s.permission, s.detail) = previous
                throw error
            }
        }
    }

    /// The portal thread: report pending, connect, AccessCamera, wait for
    /// the answer, report it.
    private func run(_ done: Waker) {
        onChange(.pending, detail)
        var err = [CChar](repeating: 0, count: 512)
        var outcome: (CameraPermission, String)
        if let client = state.withLock({ s -> OpaquePointer? in
            if s.client == nil { s.client = ccportal_open(&err, err.count) }
            return s.client
        }) {
            // IsCameraPresent first: it tells a desktop portal without the
            // camera portal (-1) apart; no camera now (0) is still asked for,
            // as one may be plugged in later.
            var r: Int32 = ccportal_camera_present(client, 10_000, &err, err.count) < 0 ? -1 : -2
            // The user may take long in the dialog: wait in 10-minute slices until an answer or close().
            while r == -2 && !state.withLock({ $0.closed }) {
                r = ccportal_access_camera(client, 600_000, &err, err.count)
            }
            let text = PipeWireSource.text(err)
            switch r {
            case 0: outcome = (.granted, "camera access granted by the portal")
            case -3: outcome = (.unknown, "the camera access request was cancelled")
            default: outcome = (.denied, text)
            }
        } else {
            outcome = (.denied, PipeWireSource.text(err))
        }
        let report = state.withLock { s -> Bool in
            if s.closed { return false }
            s.permission = outcome.0
            s.detail = outcome.1
            return true
        }
        done.wake()
        if report { onChange(outcome.0, outcome.1) }
    }

    /// Reports a change from a thread of its own: the caller may hold
    /// locks the observers take (a listing under the manager's lock).
    private func report(_ p: CameraPermission, _ why: String) {
        let f = onChange
        if let t = try? LibraryThread(name: "camcore-portal", { f(p, why) }) { t.detach() } else { f(p, why) }
    }

    /// Waits until the running request is answered, up to `timeoutMs`
    /// (< 0: no limit; 0: no wait); returns the state then.
    func wait(timeoutMs: Int32) -> CameraPermission {
        guard let done = state.withLock({ $0.permission == .pending ? $0.answered : nil }) else { return permission }
        if timeoutMs != 0 {
            var p = pollfd(fd: done.fd, events: Int16(POLLIN), revents: 0)
            let end = monotonicNs() &+ UInt64(max(0, timeoutMs)) &* 1_000_000
            while permission == .pending {
                let left = timeoutMs < 0 ? 1000 : Int32(clamping: (Int64(end) - Int64(monotonicNs())) / 1_000_000)
                if timeoutMs >= 0 && left <= 0 { break }
                _ = poll(&p, 1, min(left, 1000))
            }
        }
        return permission
    }

    /// The portal's IsCameraPresent (S49): whether the desktop has a camera,
    /// asked on a connection of its own and never with AccessCamera, so no
    /// prompt is shown and the permission is untouched. Errors: io (no
    /// camera portal on the session bus, or no answer within `timeoutMs`).
    func cameraPresent(timeoutMs: Int32) throws(CamError) -> Bool {
        var err = [CChar](repeating: 0, count: 512)
        guard let client = ccportal_open(&err, err.count) else {
            throw .io("the camera portal cannot tell whether a camera is present: \(PipeWireSource.text(err))")
        }
        defer { ccportal_close(client) }
        let r = ccportal_camera_present(client, timeoutMs, &err, err.count)
        guard r >= 0 else {
            throw .io("the camera portal cannot tell whether a camera is present: \(PipeWireSource.text(err))")
        }
        return r == 1
    }

    /// A new PipeWire remote fd from the portal (OpenPipeWireRemote); only
    /// once access is granted. Errors: access (not granted, or refused), io.
    func openRemote() throws(CamError) -> Int32 {
        guard permission == .granted, let client = state.withLock({ $0.client }) else {
            throw .access("camera access through the portal is \(permission.name): \(detail)")
        }
        var err = [CChar](repeating: 0, count: 512)
        var notAllowed: Int32 = 0
        let fd = ccportal_open_pipewire_remote(client, 10_000, &notAllowed, &err, err.count)
        if fd < 0 {
            let m = PipeWireSource.text(err)
            guard notAllowed != 0 else { throw .io(m) }
            // The portal said yes to AccessCamera but no to the remote
            // (xdg-desktop-portal 1.16 with "ask" stored): the cameras stay
            // out of reach, so the permission is denied after all.
            let why = "the portal granted AccessCamera but refused OpenPipeWireRemote (\(m))"
            let changed = state.withLock { s -> Bool in
                guard !s.closed, s.permission == .granted else { return false }
                s.permission = .denied
                s.detail = why
                return true
            }
            if changed { report(.denied, why) }
            throw .access(why)
        }
        return fd
    }

    /// Cancels a running request and frees the client; no change is
    /// reported after it returns. Idempotent.
    func close() {
        let thread = state.withLock { s -> LibraryThread? in
            s.closed = true
            if let c = s.client { ccportal_cancel(c) }
            let t = s.thread
            s.thread = nil
            return t
        }
        thread?.join()
        state.withLock { s in
            if let c = s.client { ccportal_close(c) }
            s.client = nil
        }
    }
}
