// SPDX-License-Identifier: MIT
// The C ABI of camcore.h's "Common types" section: @_cdecl exports only.
// Each body checks its arguments, makes one call into CamCore and maps
// any error to a status; no Swift error or trap crosses the boundary.
internal import CCamCore  // no header type in this file's public signatures

@_cdecl("camcore_fourcc_to_string")
public func cabi_fourcc_to_string(_ fourcc: UInt32, _ out: UnsafeMutablePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
    guard let out else { return nil }
    for i in 0..<4 {
        let c = UInt8(truncatingIfNeeded: fourcc >> (8 * UInt32(i)))
        out[i] = CChar(bitPattern: c >= 0x20 && c < 0x7f ? c : UInt8(ascii: "?"))
    }
    out[4] = 0
    return out
}
