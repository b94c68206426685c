// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// The one reader of camcore's `CAMCORE_*` environment variables (issue 29
/// item 4): each variable has its accepted spellings, and any other value
/// is an error at the call that reads it, naming the variable and the
/// value — never a silent default.
///
/// Spellings (matched without regard to case; no surrounding spaces):
/// - an empty value is the same as an unset variable;
/// - flags (`CAMCORE_CAPTURE_DMABUF`, `CAMCORE_LIBV4L2`,
///   `CAMCORE_PIPEWIRE_DEBUG`): `1`, `true`, `yes`, `on` / `0`, `false`,
///   `no`, `off`;
/// - `CAMCORE_SYNTHETIC_CAMERA`: `0`, `1`, `2`, or a flag word (on = 1);
/// - `CAMCORE_BACKEND`: `auto`, `both`, or backend names (`v4l2`,
///   `pipewire`, `libcamera`) alone or comma-separated (BackendSet);
/// - `CAMCORE_PORTAL`: `auto`, `never`, `always`.
/// Paths (`CAMCORE_PIPEWIRE_LIBRARY`, `CAMCORE_DBUS_LIBRARY`) are taken
/// as they are. Read each time asked (cheap), so a test may change them;
/// except CAMCORE_LIBV4L2, read once per process (V4L2Node.useLibv4l2).
package enum Environment {
    /// The names of the choice-valued and flag variables, for documentation and tests.
    package static let backend = "CAMCORE_BACKEND"
    package static let portal = "CAMCORE_PORTAL"
    package static let syntheticCamera = "CAMCORE_SYNTHETIC_CAMERA"
    package static let captureDmabuf = "CAMCORE_CAPTURE_DMABUF"
    package static let libv4l2 = "CAMCORE_LIBV4L2"
    package static let pipewireDebug = "CAMCORE_PIPEWIRE_DEBUG"

    static let onWords: Set<String> = ["1", "true", "yes", "on"]
    static let offWords: Set<String> = ["0", "false", "no", "off"]

    /// The raw value, nil when unset or empty.
    static func raw(_ name: String) -> String? {
        guard let v = getenv(name) else { return nil }
        let s = String(cString: v)
        return s.isEmpty ? nil : s
    }

    /// The value as an error message shows it: quoted, its first 40 bytes,
    /// every byte outside printable ASCII as \xNN (two hex digits: no
    /// terminal control code, direction override or invisible character
    /// reaches the message), and the length when cut.
    static func shown(_ value: String) -> String {
        let bytes = Array(value.utf8)
        var out = "'"
        for b in bytes.prefix(40) {
            if b >= 0x20 && b < 0x7f && b != 0x5c {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                let hex = String(b, radix: 16)
                out += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        out += "'"
        if bytes.count > 40 { out += " (cut; \(bytes.count) bytes)" }
        return out
    }

    static func invalid(_ name: String, _ value: String, _ accepted: String) -> CamError {
        .invalidArgument("environment variable \(name)=\(shown(value)) is not valid: use \(accepted) (or unset it)")
    }

    /// A flag: nil when unset or empty.
    package static func flag(_ name: String) throws(CamError) -> Bool? {
        guard let v = raw(name) else { return nil }
        let l = v.lowercased()
        if onWords.contains(l) { return true }
        if offWords.contains(l) { return false }
        throw invalid(name, v, "1, true, yes, on, or 0, false, no, off")
    }

    /// A name out of `T`'s cases (their raw values): nil when unset or empty.
    package static func choice<T: RawRepresentable & CaseIterable>(_ name: String, _ type: T.Type) throws(CamError) -> T?
        where T.RawValue == String {
        guard let v = raw(name) else { return nil }
        if let c = T(rawValue: v.lowercased()) { return c }
        throw invalid(name, v, T.allCases.map(\.rawValue).joined(separator: ", "))
    }

    /// CAMCORE_SYNTHETIC_CAMERA: 0...2 synthetic cameras; nil when unset or empty.
    package static func syntheticCount() throws(CamError) -> Int? {
        guard let v = raw(syntheticCamera) else { return nil }
        let l = v.lowercased()
        switch l {
        case "0": return 0
        case "1": return 1
        case "2": return 2
        default:
            if onWords.contains(l) { return 1 }
            if offWords.contains(l) { return 0 }
            throw invalid(syntheticCamera, v, "0, 1, 2 (cameras), or a flag word (true/false, yes/no, on/off)")
        }
    }

    /// Every variable camcore reads, checked at once (camcore_manager_new):
    /// the first one that is not valid, as an error.
    package static func validate() throws(CamError) {
        _ = try BackendSet.fromEnvironment()
        _ = try choice(portal, PortalChoice.self)
        _ = try syntheticCount()
        _ = try flag(captureDmabuf)
        _ = try flag(libv4l2)
        _ = try flag(pipewireDebug)
    }
}
