// SPDX-License-Identifier: MIT
// The "Pixel formats" section of include/camcore.h: camcore's pixel-format
// table (CamCore's PixelFormatTable) as C sees it. Each body checks its
// arguments and reads the table; no Swift error or trap crosses the boundary.
public import CCamCore  // the header's types are this module's API (the @_cdecl signatures)
import CamCore

@_cdecl("camcore_pixel_format_get_info")
public func cabi_pixel_format_get_info(_ fourcc: UInt32,
                                       _ out: UnsafeMutablePointer<camcore_pixel_format_info>?) -> Int32 {
    let fn = "camcore_pixel_format_get_info"
    guard let out else { return invalid("\(fn): out is NULL") }
    let size: UInt32
    do { size = try Versioned.pixelFormatInfo.outSize(out, fn) } catch { return fail(error) }
    let f = FourCC(rawValue: fourcc)
    var r = camcore_pixel_format_info()
    r.struct_size = size
    r.fourcc = fourcc
    copyCString(Array(f.description.utf8), into: &r.name)
    guard let info = PixelFormatTable.info(f) else {
        Versioned.pixelFormatInfo.write(r, to: out, size: size)
        return fail(.notSupported("\(fn): \(f) (0x\(String(fourcc, radix: 16))) is not a pixel format camcore knows"))
    }
    info.description.withUTF8Buffer { copyCString(Array($0), into: &r.description) }
    r.flags = info.isCompressed ? CAMCORE_FORMAT_COMPRESSED : 0
    r.plane_count = UInt32(info.planeCount)
    r.memory_plane_count = UInt32(info.memoryPlaneCount)
    r.bytes_per_pixel = UInt32(info.bytesPerPixel ?? 0)
    r.horizontal_subsampling = UInt32(info.horizontalSubsampling)
    r.vertical_subsampling = UInt32(info.verticalSubsampling)
    let g = (0..<3).map { info.plane($0) }
    r.plane_group_bytes = (UInt32(g[0]?.groupBytes ?? 0), UInt32(g[1]?.groupBytes ?? 0), UInt32(g[2]?.groupBytes ?? 0))
    r.plane_group_pixels = (UInt32(g[0]?.groupPixels ?? 0), UInt32(g[1]?.groupPixels ?? 0),
                            UInt32(g[2]?.groupPixels ?? 0))
    r.plane_vertical_subsampling = (UInt32(g[0]?.verticalSubsampling ?? 0), UInt32(g[1]?.verticalSubsampling ?? 0),
                                    UInt32(g[2]?.verticalSubsampling ?? 0))
    Versioned.pixelFormatInfo.write(r, to: out, size: size)
    return 0
}

@_cdecl("camcore_pixel_format_plane_size")
public func cabi_pixel_format_plane_size(_ fourcc: UInt32, _ width: UInt32, _ height: UInt32, _ plane: UInt32,
                                         _ rowBytes: UnsafeMutablePointer<UInt32>?,
                                         _ rows: UnsafeMutablePointer<UInt32>?) -> Int32 {
    let fn = "camcore_pixel_format_plane_size"
    rowBytes?.pointee = 0
    rows?.pointee = 0
    var status: Int32 = 0
    guard let info = rawInfo(fourcc, fn, &status) else { return status }
    guard Int(plane) < info.planeCount,
          let rb = info.rowBytes(plane: Int(plane), width: Int(width)),
          let n = info.rows(plane: Int(plane), height: Int(height)) else {
        return invalid("\(fn): \(info.fourcc) has \(info.planeCount) plane(s), not a plane \(plane)")
    }
    guard let rb32 = UInt32(exactly: rb), let n32 = UInt32(exactly: n) else {
        return invalid("\(fn): a row of \(info.fourcc) \(width)x\(height) does not fit in 32 bits")
    }
    rowBytes?.pointee = rb32
    rows?.pointee = n32
    return 0
}

@_cdecl("camcore_pixel_format_frame_size")
public func cabi_pixel_format_frame_size(_ fourcc: UInt32, _ width: UInt32, _ height: UInt32,
                                         _ bytes: UnsafeMutablePointer<UInt32>?) -> Int32 {
    let fn = "camcore_pixel_format_frame_size"
    guard let bytes else { return invalid("\(fn): bytes is NULL") }
    bytes.pointee = 0
    var status: Int32 = 0
    guard let info = rawInfo(fourcc, fn, &status) else { return status }
    // Int is 64 bits: three planes of 2^32 x 2^32 pixels at 4 bytes overflow it.
    let (w, h) = (Int(width), Int(height))
    var total = 0
    for p in 0..<info.planeCount {
        let (product, overflow) = (info.rowBytes(plane: p, width: w) ?? 0)
            .multipliedReportingOverflow(by: info.rows(plane: p, height: h) ?? 0)
        guard !overflow else { total = Int.max; break }
        total = total > Int.max - product ? Int.max : total + product
    }
    guard let total32 = UInt32(exactly: total) else {
        return invalid("\(fn): a frame of \(info.fourcc) \(width)x\(height) does not fit in 32 bits")
    }
    bytes.pointee = total32
    return 0
}

/// A raw format's entry; nil with `status` set for an unknown or compressed one.
private func rawInfo(_ fourcc: UInt32, _ fn: String, _ status: inout Int32) -> PixelFormatInfo? {
    let f = FourCC(rawValue: fourcc)
    guard let info = PixelFormatTable.info(f) else {
        status = fail(.notSupported("\(fn): \(f) is not a pixel format camcore knows"))
        return nil
    }
    guard !info.isCompressed else {
        status = fail(.notSupported("\(fn): \(f) is compressed: its planes have no fixed size"))
        return nil
    }
    return info
}

/// Copies `bytes` into a fixed C char array, truncated, NUL-terminated.
private func copyCString<T>(_ bytes: [UInt8], into field: inout T) {
    withUnsafeMutableBytes(of: &field) { raw in
        let n = min(bytes.count, raw.count - 1)
        for i in 0..<n { raw[i] = bytes[i] }
        for i in n..<raw.count { raw[i] = 0 }
    }
}
