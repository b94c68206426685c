// SPDX-License-Identifier: MIT
// The C ABI of camcore.h's "Version" section: @_cdecl exports only.
// Each body checks its arguments, makes one call into CamCore and maps
// any error to a status; no Swift error or trap crosses the boundary.
internal import CCamCore  // no header type in this file's public signatures
#if canImport(Glibc)
import Glibc
#endif

/// "major.minor.patch" from camcore.h's CAMCORE_VERSION_MAJOR, _MINOR and
/// _PATCH, the header's one source of the version, spelled as its
/// CAMCORE_VERSION_STRING macro spells them (Swift cannot import that
/// macro). Made once, on first use, and kept for the life of the process.
nonisolated(unsafe) private let versionString: UnsafePointer<CChar> =
    UnsafePointer(strdup("\(CAMCORE_VERSION_MAJOR).\(CAMCORE_VERSION_MINOR).\(CAMCORE_VERSION_PATCH)")!)

@_cdecl("camcore_version")
public func cabi_version() -> UInt32 {
    (UInt32(CAMCORE_VERSION_MAJOR) << 16) | (UInt32(CAMCORE_VERSION_MINOR) << 8) | UInt32(CAMCORE_VERSION_PATCH)
}

@_cdecl("camcore_version_string")
public func cabi_version_string() -> UnsafePointer<CChar> { versionString }
