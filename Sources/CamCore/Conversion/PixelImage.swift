// SPDX-License-Identifier: MIT

/// A libyuv image: up to three planes and their strides (as libyuv takes them).
struct PixelImage {
    var p0: UnsafeMutablePointer<UInt8>?
    var s0: Int32
    var p1: UnsafeMutablePointer<UInt8>? = nil
    var s1: Int32 = 0
    var p2: UnsafeMutablePointer<UInt8>? = nil
    var s2: Int32 = 0
}
