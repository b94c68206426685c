public import CCamCore  // the header's types are this module's API (the @_cdecl signatures)
#if canImport(Glibc)
import Glibc
#endif

/// Structs that start with `uint32_t struct_size` grow by appending
/// fields. A caller built against an older header passes a smaller size:
/// camcore reads and writes only that many bytes and defaults the rest.
enum Versioned {
    /// Sizes of the 0.1.0 structs before fields were appended.
    static let captureConfigV1 = UInt32(MemoryLayout<camcore_capture_config>.offset(of: \.output_fourcc)!)
    static let captureFormatV1 = UInt32(MemoryLayout<camcore_capture_format>.offset(of: \.source_fourcc)!)
    static let captureStatsV1 = UInt32(MemoryLayout<camcore_capture_stats>.offset(of: \.measured_fps)!)

    /// Copies the caller's struct over `value` (which holds the defaults),
    /// up to the caller's struct_size. False when it is below `minimum`.
    static func read<T>(_ p: UnsafePointer<T>, into value: inout T, minimum: UInt32) -> Bool {
        let size = UnsafeRawPointer(p).load(as: UInt32.self)
        guard size >= minimum else { return false }
        withUnsafeMutableBytes(of: &value) { dst in
            _ = memcpy(dst.baseAddress!, p, min(Int(size), MemoryLayout<T>.size))
        }
        return true
    }

    /// Writes `value` to the caller's struct, up to `size` bytes.
    static func write<T>(_ value: T, to p: UnsafeMutablePointer<T>, size: UInt32) {
        withUnsafeBytes(of: value) { src in
            _ = memcpy(p, src.baseAddress!, min(Int(size), MemoryLayout<T>.size))
        }
    }
}
