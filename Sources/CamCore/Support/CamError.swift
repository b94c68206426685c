// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// Every failure the engine reports. Each case carries a message for the
/// user (which device, which call, what the driver said). The C ABI maps
/// each case to one stable `CAMCORE_E_*` code (SPEC S26, S29); raw errno
/// never leaves the engine.
package enum CamError: Error, Equatable, CustomStringConvertible {
    case invalidArgument(String)
    case noDevice(String)
    case busy(String)
    case access(String)
    case notSupported(String)
    case timeout(String)
    case io(String)
    case state(String)
    case customSourceActive(String)
    case wouldDeadlock(String)
    case noMemory(String)
    case internalError(String)
    /// The bus cannot carry the stream (S47: USB isochronous bandwidth,
    /// ENOSPC at STREAMON); a compressed format or a lower size or rate may fit.
    case bandwidth(String)

    /// The human-readable detail.
    package var message: String {
        switch self {
        case .invalidArgument(let m), .noDevice(let m), .busy(let m), .access(let m),
             .notSupported(let m), .timeout(let m), .io(let m), .state(let m),
             .customSourceActive(let m), .wouldDeadlock(let m), .noMemory(let m),
             .internalError(let m), .bandwidth(let m):
            return m
        }
    }

    package var description: String { message }

    /// The same error with its message as "`prefix`: message".
    package func prefixed(_ prefix: String) -> CamError { mapMessage { "\(prefix): \($0)" } }

    /// The same error with its message rewritten.
    package func mapMessage(_ f: (String) -> String) -> CamError {
        switch self {
        case .invalidArgument(let m): return .invalidArgument(f(m))
        case .noDevice(let m): return .noDevice(f(m))
        case .busy(let m): return .busy(f(m))
        case .access(let m): return .access(f(m))
        case .notSupported(let m): return .notSupported(f(m))
        case .timeout(let m): return .timeout(f(m))
        case .io(let m): return .io(f(m))
        case .state(let m): return .state(f(m))
        case .customSourceActive(let m): return .customSourceActive(f(m))
        case .wouldDeadlock(let m): return .wouldDeadlock(f(m))
        case .noMemory(let m): return .noMemory(f(m))
        case .internalError(let m): return .internalError(f(m))
        case .bandwidth(let m): return .bandwidth(f(m))
        }
    }

    /// Maps an errno from a device call to the error a user can act on.
    /// `what` names the call and the device, e.g. "VIDIOC_STREAMON on /dev/video0".
    package static func fromErrno(_ code: Int32, _ what: String) -> CamError {
        let text = "\(what): \(String(cString: strerror(code)))"
        switch code {
        case ENODEV, ENOENT, ENXIO: return .noDevice(text)
        case EBUSY: return .busy(text)
        case EACCES, EPERM: return .access(text)
        case EINVAL, ENOTTY, EOPNOTSUPP: return .notSupported(text)
        case ETIMEDOUT: return .timeout(text)
        case ENOMEM: return .noMemory(text)
        case ENOSPC: return .bandwidth(text)
        default: return .io(text)
        }
    }
}
