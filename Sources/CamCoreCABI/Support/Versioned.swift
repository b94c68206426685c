// SPDX-License-Identifier: MIT
internal import CCamCore  // only internal helpers here
import CamCore
#if canImport(Glibc)
import Glibc
#endif

/// Structs that start with `uint32_t struct_size` grow by appending
/// fields. A caller built against an older header passes a smaller size:
/// camcore reads and writes only that many bytes and defaults the rest.
///
/// This is the one table of camcore.h's caller-filled structs with the
/// smallest struct_size each entry point accepts; every export checks and
/// copies them through it (`read` for structs the app fills, `outSize`
/// and `write` for structs camcore fills).
enum Versioned {
    /// A struct that never grew accepts only its full size. One that grew
    /// names its first appended field: a caller predating it ends there.
    static let managerConfig = Layout<camcore_manager_config>(grewAt: \.backend, initializer: "camcore_manager_config_init")
    static let hotplugCallbacks = Layout<camcore_hotplug_callbacks>(grewAt: \.on_permission)
    static let preference = Layout<camcore_preference>(initializer: "camcore_preference_init")
    static let setting = Layout<camcore_setting>()
    static let frame = Layout<camcore_frame>(grewAt: \.dmabuf_fd)
    static let frameCallbacks = Layout<camcore_frame_callbacks>(grewAt: \.on_stall,
                                                                initializer: "camcore_frame_callbacks_init")
    static let captureConfig = Layout<camcore_capture_config>(grewAt: \.output_fourcc,
                                                              initializer: "camcore_capture_config_init")
    static let captureFormat = Layout<camcore_capture_format>(grewAt: \.source_fourcc)
    static let captureStats = Layout<camcore_capture_stats>(grewAt: \.measured_fps)
    static let sessionConfig = Layout<camcore_session_config>(grewAt: \.output_width,
                                                              initializer: "camcore_session_config_init")
    static let sessionState = Layout<camcore_session_state>(grewAt: \.adjusted)
    static let captureHook = Layout<camcore_capture_hook>()
    static let deviceCallbacks = Layout<camcore_device_callbacks>(grewAt: \.on_stall)
    static let controlCallbacks = Layout<camcore_control_callbacks>(initializer: "camcore_control_callbacks_init")
    static let pixelFormatInfo = Layout<camcore_pixel_format_info>()
    static let threadHooks = Layout<camcore_thread_hooks>(initializer: "camcore_thread_hooks_init")

    /// One caller-filled struct `T`: the smallest struct_size accepted and
    /// the `_init()` helper a refusal points to.
    struct Layout<T>: Sendable {
        /// The smallest struct_size accepted.
        let minimum: UInt32
        /// The helper that fills `T`, named in the refusal; nil when none exists.
        let initializer: StaticString?
        /// The struct_sizes below the full size that end between two fields
        /// (where an older version of `T` ended, with or without its tail
        /// padding); a size that ends inside a field is refused (S31).
        let boundaries: Set<UInt32>

        /// A struct that never grew: only its full size.
        init(initializer: StaticString? = nil) {
            minimum = UInt32(MemoryLayout<T>.size)
            self.initializer = initializer
            boundaries = []
        }

        /// A struct that grew: from the offset of its first appended field.
        init(grewAt firstAppended: PartialKeyPath<T>, initializer: StaticString? = nil) {
            minimum = UInt32(MemoryLayout<T>.offset(of: firstAppended)!)
            self.initializer = initializer
            boundaries = Layout.fieldBoundaries()
        }

        /// Where `T`'s fields end, from its reflection in declaration order
        /// with C's layout rules, each end also rounded up to `T`'s
        /// alignment. Checked against `T`'s own size: if reflection does not
        /// add up (it should), every size is taken as a boundary.
        private static func fieldBoundaries() -> Set<UInt32> {
            let blank = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<T>.size, alignment: MemoryLayout<T>.alignment)
            defer { blank.deallocate() }
            memset(blank, 0, MemoryLayout<T>.size)
            let value = blank.load(as: T.self)   // C structs: all-zero is a valid value
            func layout<V>(_ v: V) -> (size: Int, alignment: Int) { (MemoryLayout<V>.size, MemoryLayout<V>.alignment) }
            let align = MemoryLayout<T>.alignment
            var ends: Set<UInt32> = []
            var offset = 0
            for child in Mirror(reflecting: value).children {
                let (size, a) = layout(child.value)
                offset = (offset + a - 1) / a * a + size
                ends.insert(UInt32(offset))
                ends.insert(UInt32((offset + align - 1) / align * align))
            }
            guard (offset + align - 1) / align * align == MemoryLayout<T>.size else {
                return Set(0...UInt32(MemoryLayout<T>.size))
            }
            return ends
        }

        /// Whether a struct_size is accepted.
        func accepts(_ size: UInt32) -> Bool {
            size >= minimum && (size >= UInt32(MemoryLayout<T>.size) || boundaries.contains(size))
        }

        /// The caller's struct (argument `name` of `fn`) copied over
        /// `defaults` up to its struct_size: a shorter, older struct keeps
        /// the defaults past its end. Errors: invalidArgument when its
        /// struct_size is below the minimum.
        func read(_ p: UnsafePointer<T>, over defaults: T, _ fn: String, _ name: String) throws(CamError) -> T {
            let size = UnsafeRawPointer(p).load(as: UInt32.self)
            guard accepts(size) else {
                let hint = initializer.map { "; call \($0)()" } ?? ""
                if size >= minimum {
                    throw .invalidArgument("\(fn): \(name)->struct_size \(size) ends inside a field of \(T.self) "
                        + "(sizeof is \(MemoryLayout<T>.size))\(hint)")
                }
                throw .invalidArgument("\(fn): \(name)->struct_size \(size) is too small\(hint)")
            }
            var value = defaults
            withUnsafeMutableBytes(of: &value) { dst in
                _ = memcpy(dst.baseAddress!, p, min(Int(size), MemoryLayout<T>.size))
            }
            return value
        }

        /// The struct_size the caller set in its out-struct `out` of `fn`:
        /// camcore writes that many bytes (`write`). Errors:
        /// invalidArgument when it is below the minimum.
        func outSize(_ out: UnsafeMutablePointer<T>, _ fn: String) throws(CamError) -> UInt32 {
            let size = UnsafeRawPointer(out).load(as: UInt32.self)
            guard accepts(size) else {
                throw .invalidArgument("\(fn): out->struct_size \(size) must be sizeof(\(T.self)) (\(MemoryLayout<T>.size)), "
                    + "or that of an older version of it")
            }
            return size
        }

        /// Writes `value` to the caller's struct, up to `size` bytes.
        func write(_ value: T, to p: UnsafeMutablePointer<T>, size: UInt32) {
            withUnsafeBytes(of: value) { src in
                _ = memcpy(p, src.baseAddress!, min(Int(size), MemoryLayout<T>.size))
            }
        }
    }
}
