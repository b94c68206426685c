// The C ABI of camcore.h's "Version" section: @_cdecl exports only.
// Each body checks its arguments, makes one call into CamCore and maps
// any error to a status; no Swift error or trap crosses the boundary.
internal import CCamCore  // no header type in this file's public signatures

private let versionString: StaticString = "0.1.0"

@_cdecl("camcore_version")
public func cabi_version() -> UInt32 {
    (UInt32(CAMCORE_VERSION_MAJOR) << 16) | (UInt32(CAMCORE_VERSION_MINOR) << 8) | UInt32(CAMCORE_VERSION_PATCH)
}

@_cdecl("camcore_version_string")
public func cabi_version_string() -> UnsafePointer<CChar> { cString(versionString) }
