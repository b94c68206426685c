// SPDX-License-Identifier: MIT
internal import CCamCore
import CamCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Builds the library-allocated lists: each one malloc'd block holding
/// the header, the entries and every string or rate they point to, so one
/// free() releases it all (STYLE: one allocation, one free).
enum Lists {
    /// Lists handed to the app and not yet freed: a second free, or a
    /// pointer camcore never gave out, is ignored instead of corrupting
    /// the heap (SPEC S31).
    private static let live = Mutex<Set<UInt>>([])

    static func handOut<T>(_ p: UnsafeMutablePointer<T>) -> UnsafeMutablePointer<T> {
        _ = live.withLock { $0.insert(UInt(bitPattern: p)) }
        return p
    }

    static func release<T>(_ p: UnsafeMutablePointer<T>?) {
        guard let p else { return }
        let known = live.withLock { $0.remove(UInt(bitPattern: p)) != nil }
        if known { free(p) } else { LastError.set("list free: not a list from camcore, or freed already") }
    }

    /// A bump allocator over one block (also used by the control list).
    struct Arena {
        let base: UnsafeMutableRawPointer
        var used: Int
        mutating func take(_ bytes: Int, align: Int) -> UnsafeMutableRawPointer {
            used = (used + align - 1) & ~(align - 1)
            let p = base + used
            used += bytes
            return p
        }
        mutating func string(_ s: String) -> UnsafePointer<CChar> {
            let bytes = Array(s.utf8)
            let p = take(bytes.count + 1, align: 1).assumingMemoryBound(to: CChar.self)
            bytes.withUnsafeBufferPointer { b in
                for (i, c) in b.enumerated() { p[i] = CChar(bitPattern: c) }
            }
            p[bytes.count] = 0
            return UnsafePointer(p)
        }
    }

    static func deviceList(_ devices: [DeviceInfo]) -> UnsafeMutablePointer<camcore_device_list>? {
        let head = MemoryLayout<camcore_device_list>.stride
        let entry = MemoryLayout<camcore_device_info>.stride
        let detail = MemoryLayout<camcore_device_details>.stride
        let pointer = MemoryLayout<UnsafeRawPointer?>.stride
        var strings = 0, idPointers = 0
        for d in devices {
            for s in [d.id, d.name, d.node, d.busInfo, d.driver, d.unavailableReason ?? "", d.backend, d.v4l2ID ?? ""]
                + d.otherIDs {
                strings += s.utf8.count + 1
            }
            idPointers += d.otherIDs.count + 1
        }
        let total = head + 16 + entry * devices.count + 16 + pointer * devices.count + 16 + detail * devices.count
            + 16 + pointer * idPointers + strings
        guard let block = malloc(total) else { return nil }
        var arena = Arena(base: block, used: 0)
        let list = arena.take(head, align: 16).bindMemory(to: camcore_device_list.self, capacity: 1)
        let infos = arena.take(entry * devices.count, align: 16)
            .bindMemory(to: camcore_device_info.self, capacity: max(devices.count, 1))
        let detailPointers = arena.take(pointer * devices.count, align: 16)
            .bindMemory(to: UnsafePointer<camcore_device_details>?.self, capacity: max(devices.count, 1))
        let details = arena.take(detail * devices.count, align: 16)
            .bindMemory(to: camcore_device_details.self, capacity: max(devices.count, 1))
        var idSlots = arena.take(pointer * idPointers, align: 16)
            .bindMemory(to: UnsafePointer<CChar>?.self, capacity: max(idPointers, 1))
        for (i, d) in devices.enumerated() {
            var flags: UInt32 = 0
            if d.isMultiplanar { flags |= UInt32(CAMCORE_DEVICE_MULTIPLANAR) }
            if d.isSynthetic { flags |= UInt32(CAMCORE_DEVICE_SYNTHETIC) }
            if d.unavailableReason != nil { flags |= UInt32(CAMCORE_DEVICE_UNAVAILABLE) }
            if d.hiddenReason != nil { flags |= UInt32(CAMCORE_DEVICE_HIDDEN) }
            infos[i] = camcore_device_info(
                id: arena.string(d.id), name: arena.string(d.name), node: arena.string(d.node),
                bus_info: arena.string(d.busInfo), driver: arena.string(d.driver),
                usb_vendor_id: d.usbVendorID, usb_product_id: d.usbProductID, flags: flags,
                device_caps: d.deviceCaps, type: d.type.rawValue, position: d.position.rawValue,
                unavailable_reason: arena.string(d.unavailableReason ?? ""), backend: arena.string(d.backend),
                v4l2_id: arena.string(d.v4l2ID ?? ""))
            let ids = idSlots
            for (k, other) in d.otherIDs.enumerated() { ids[k] = arena.string(other) }
            ids[d.otherIDs.count] = nil
            idSlots += d.otherIDs.count + 1
            details[i] = camcore_device_details(struct_size: UInt32(MemoryLayout<camcore_device_details>.size),
                                                other_id_count: UInt32(d.otherIDs.count), other_ids: UnsafePointer(ids),
                                                rotation: Int32(d.rotation ?? -1))
            detailPointers[i] = UnsafePointer(details + i)
        }
        list.pointee = camcore_device_list(count: devices.count, devices: devices.isEmpty ? nil : infos,
                                           details: devices.isEmpty ? nil : UnsafePointer(detailPointers))
        return list
    }

    static func formatList(_ formats: [FormatDescription]) -> UnsafeMutablePointer<camcore_format_list>? {
        let head = MemoryLayout<camcore_format_list>.stride
        let entry = MemoryLayout<camcore_format>.stride
        var rateCount = 0
        for f in formats { if case .discrete(let r) = f.rates { rateCount += r.count } }
        let total = head + 16 + entry * formats.count + 16 + rateCount * MemoryLayout<camcore_fraction>.stride
        guard let block = malloc(total) else { return nil }
        var arena = Arena(base: block, used: 0)
        let list = arena.take(head, align: 16).bindMemory(to: camcore_format_list.self, capacity: 1)
        let entries = arena.take(entry * formats.count, align: 16)
            .bindMemory(to: camcore_format.self, capacity: max(formats.count, 1))
        for (i, f) in formats.enumerated() {
            var e = camcore_format()
            e.fourcc = f.fourcc.rawValue
            e.flags = (f.isCompressed ? UInt32(CAMCORE_FORMAT_COMPRESSED) : 0)
                | (f.isEmulated ? UInt32(CAMCORE_FORMAT_EMULATED) : 0)
            withUnsafeMutableBytes(of: &e.description) { raw in
                let bytes = Array(f.description.utf8.prefix(raw.count - 1))
                for (j, b) in bytes.enumerated() { raw[j] = b }
                raw[bytes.count] = 0
            }
            switch f.size {
            case .discrete(let w, let h):
                e.size_kind = Int32(CAMCORE_RANGE_DISCRETE.rawValue)
                (e.width, e.height) = (UInt32(w), UInt32(h))
                (e.min_width, e.max_width, e.min_height, e.max_height) = (UInt32(w), UInt32(w), UInt32(h), UInt32(h))
            case .stepwise(let minW, let maxW, let stepW, let minH, let maxH, let stepH):
                e.size_kind = Int32(CAMCORE_RANGE_STEPWISE.rawValue)
                (e.width, e.height) = (UInt32(maxW), UInt32(maxH))
                (e.min_width, e.max_width, e.step_width) = (UInt32(minW), UInt32(maxW), UInt32(stepW))
                (e.min_height, e.max_height, e.step_height) = (UInt32(minH), UInt32(maxH), UInt32(stepH))
            case .continuous(let minW, let maxW, let minH, let maxH):
                e.size_kind = Int32(CAMCORE_RANGE_CONTINUOUS.rawValue)
                (e.width, e.height) = (UInt32(maxW), UInt32(maxH))
                (e.min_width, e.max_width, e.step_width) = (UInt32(minW), UInt32(maxW), 1)
                (e.min_height, e.max_height, e.step_height) = (UInt32(minH), UInt32(maxH), 1)
            }
            func frac(_ r: FrameRate) -> camcore_fraction { camcore_fraction(numerator: r.numerator, denominator: r.denominator) }
            switch f.rates {
            case .discrete(let rates):
                e.rate_kind = Int32(CAMCORE_RANGE_DISCRETE.rawValue)
                let p = arena.take(rates.count * MemoryLayout<camcore_fraction>.stride, align: 8)
                    .bindMemory(to: camcore_fraction.self, capacity: rates.count)
                for (j, r) in rates.enumerated() { p[j] = frac(r) }
                e.rates = UnsafePointer(p)
                e.rate_count = rates.count
            case .stepwise(_, _, let step):
                e.rate_kind = Int32(CAMCORE_RANGE_STEPWISE.rawValue)
                e.interval_step = frac(step)
            case .continuous:
                e.rate_kind = Int32(CAMCORE_RANGE_CONTINUOUS.rawValue)
            case .unknown:
                e.rate_kind = Int32(CAMCORE_RANGE_UNKNOWN.rawValue)
            }
            if let lo = f.rates.minimum { e.min_fps = frac(lo) }
            if let hi = f.rates.maximum { e.max_fps = frac(hi) }
            entries[i] = e
        }
        list.pointee = camcore_format_list(count: formats.count, formats: formats.isEmpty ? nil : entries)
        return list
    }
}
