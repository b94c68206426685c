// SPDX-License-Identifier: MIT
internal import CCamCore
import CamCore
#if canImport(Glibc)
import Glibc
#endif

/// The one place CamError becomes a C status code (SPEC S29).
extension CamError {
    var status: Int32 {
        switch self {
        case .invalidArgument: return CAMCORE_E_INVALID_ARG.rawValue
        case .noDevice: return CAMCORE_E_NO_DEVICE.rawValue
        case .busy: return CAMCORE_E_BUSY.rawValue
        case .access: return CAMCORE_E_ACCESS.rawValue
        case .notSupported: return CAMCORE_E_NOT_SUPPORTED.rawValue
        case .timeout: return CAMCORE_E_TIMEOUT.rawValue
        case .io: return CAMCORE_E_IO.rawValue
        case .state: return CAMCORE_E_STATE.rawValue
        case .customSourceActive: return CAMCORE_E_CUSTOM_SOURCE_ACTIVE.rawValue
        case .wouldDeadlock: return CAMCORE_E_WOULD_DEADLOCK.rawValue
        case .noMemory: return CAMCORE_E_NO_MEMORY.rawValue
        case .internalError: return CAMCORE_E_INTERNAL.rawValue
        case .bandwidth: return CAMCORE_E_BANDWIDTH.rawValue
        }
    }
}

/// The static name of each status (camcore_strerror).
func statusName(_ status: Int32) -> StaticString {
    switch status {
    case CAMCORE_OK.rawValue: return "CAMCORE_OK: success"
    case CAMCORE_E_INVALID_ARG.rawValue: return "CAMCORE_E_INVALID_ARG: invalid argument"
    case CAMCORE_E_NO_DEVICE.rawValue: return "CAMCORE_E_NO_DEVICE: no such device"
    case CAMCORE_E_BUSY.rawValue: return "CAMCORE_E_BUSY: device busy"
    case CAMCORE_E_ACCESS.rawValue: return "CAMCORE_E_ACCESS: permission denied"
    case CAMCORE_E_NOT_SUPPORTED.rawValue: return "CAMCORE_E_NOT_SUPPORTED: not supported"
    case CAMCORE_E_TIMEOUT.rawValue: return "CAMCORE_E_TIMEOUT: timed out"
    case CAMCORE_E_IO.rawValue: return "CAMCORE_E_IO: input/output error"
    case CAMCORE_E_STATE.rawValue: return "CAMCORE_E_STATE: invalid in the current state"
    case CAMCORE_E_CUSTOM_SOURCE_ACTIVE.rawValue: return "CAMCORE_E_CUSTOM_SOURCE_ACTIVE: a custom video source is active"
    case CAMCORE_E_WOULD_DEADLOCK.rawValue: return "CAMCORE_E_WOULD_DEADLOCK: called from the object's own callback"
    case CAMCORE_E_NO_MEMORY.rawValue: return "CAMCORE_E_NO_MEMORY: out of memory"
    case CAMCORE_E_INTERNAL.rawValue: return "CAMCORE_E_INTERNAL: internal error"
    case CAMCORE_E_BANDWIDTH.rawValue: return "CAMCORE_E_BANDWIDTH: not enough bus bandwidth"
    default: return "unknown status"
    }
}

/// Per-thread last error message (camcore_last_error_message).
enum LastError {
    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k) { p in free(p) }
        return k
    }()
    private static let empty: StaticString = ""

    static func set(_ message: String) {
        let old = pthread_getspecific(key)
        pthread_setspecific(key, strdup(message))
        free(old)
    }

    /// The status of the error last recorded by `fail` on this thread
    /// (CAMCORE_E_INVALID_ARG when none was): what a handle check that
    /// just failed (`Handles.lookup`) returns.
    static var status: Int32 {
        guard let p = pthread_getspecific(statusKey) else { return CAMCORE_E_INVALID_ARG.rawValue }
        return Int32(truncatingIfNeeded: Int(bitPattern: p))
    }
    private static let statusKey: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k, nil)
        return k
    }()
    /// Records `status` (negative, so never a NULL pointer value).
    fileprivate static func set(status: Int32) {
        pthread_setspecific(statusKey, UnsafeRawPointer(bitPattern: Int(status)))
    }

    static var current: UnsafePointer<CChar> {
        if let p = pthread_getspecific(key) { return UnsafePointer(p.assumingMemoryBound(to: CChar.self)) }
        return UnsafeRawPointer(empty.utf8Start).assumingMemoryBound(to: CChar.self)
    }
}

/// Records `error` for the thread and returns its status.
func fail(_ error: CamError) -> Int32 {
    LastError.set(error.message)
    LastError.set(status: error.status)
    return error.status
}

func invalid(_ message: String) -> Int32 { fail(.invalidArgument(message)) }

/// A StaticString as a C string.
func cString(_ s: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}
