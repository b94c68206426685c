// SPDX-License-Identifier: MIT
// The C ABI of camcore.h's "Status codes" section: @_cdecl exports only.
// Each body checks its arguments, makes one call into CamCore and maps
// any error to a status; no Swift error or trap crosses the boundary.
internal import CCamCore  // no header type in this file's public signatures

@_cdecl("camcore_strerror")
public func cabi_strerror(_ status: Int32) -> UnsafePointer<CChar> { cString(statusName(status)) }

@_cdecl("camcore_last_error_message")
public func cabi_last_error_message() -> UnsafePointer<CChar> { LastError.current }
