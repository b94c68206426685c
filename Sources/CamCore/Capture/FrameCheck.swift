// SPDX-License-Identifier: MIT
/// The check of a frame description that comes from the app (a pushed
/// frame, a hook's replacement) against what its FourCC and size need
/// (SPEC S22, S31): camcore and every receiver read the planes through
/// these numbers, so a frame whose planes are shorter than its format and
/// size say is refused instead of being read past its end.
extension Frame {
    /// Throws invalidArgument, naming the plane and the sizes, unless:
    /// the size is non-zero; the FourCC is in PixelFormatTable (an unknown
    /// one has no geometry to check, so it is refused); the frame has the
    /// table's plane count (or, for a one-buffer format that camcore itself
    /// delivers unsplit, NV24/NV42, one plane holding all); every plane has
    /// data; for a raw format each plane's stride >= its row bytes and its
    /// length >= stride * (rows - 1) + row bytes; for a compressed one the
    /// plane is not empty.
    package func checkDescription() throws(CamError) {
        guard width > 0, height > 0 else {
            throw .invalidArgument("frame size \(width)x\(height) is empty")
        }
        guard let info = PixelFormatTable.info(fourcc) else {
            throw .invalidArgument("FourCC '\(fourcc)' (0x\(String(fourcc.rawValue, radix: 16))) is not a format camcore knows, so its planes cannot be checked")
        }
        func planes(_ n: Int) -> String { n == 1 ? "1 plane" : "\(n) planes" }
        let expected = info.planeCount
        let whole = planeCount == 1 && expected > 1 && info.memoryPlaneCount == 1 && PlaneLayout.chroma(fourcc).count == 0
        guard planeCount == expected || whole else {
            throw .invalidArgument("a \(fourcc) frame has \(planes(expected)); this one has \(planes(planeCount))")
        }
        for p in 0..<planeCount {
            let pl = plane(p)
            guard pl.base != nil else { throw .invalidArgument("plane \(p): data is NULL") }
            guard pl.length > 0 else {
                throw .invalidArgument("plane \(p): length 0; a \(fourcc) frame of \(width)x\(height) needs its data")
            }
            if info.isCompressed { continue }
            let rowBytes = info.rowBytes(plane: p, width: width)!, rows = info.rows(plane: p, height: height)!
            guard pl.stride >= rowBytes else {
                throw .invalidArgument("plane \(p): stride \(pl.stride) is below the \(rowBytes) bytes of a row of a \(fourcc) frame \(width) pixels wide")
            }
            var need = Self.span(stride: pl.stride, rows: rows, rowBytes: rowBytes)
            if whole {  // the other planes follow plane 0's rows in the same buffer
                need = Self.product(pl.stride, rows)
                for q in 1..<expected {
                    let stride = info.contiguousStride(plane: q, lumaStride: pl.stride)
                    let span = Self.span(stride: stride, rows: info.rows(plane: q, height: height)!,
                                         rowBytes: info.rowBytes(plane: q, width: width)!)
                    let full = q == expected - 1 ? span : Self.product(stride, info.rows(plane: q, height: height)!)
                    need = need > Int.max - full ? Int.max : need + full
                }
            }
            guard pl.length >= need else {
                throw .invalidArgument("plane \(p): length \(pl.length) is below the \(need) bytes a \(fourcc) frame of \(width)x\(height) needs at stride \(pl.stride) (stride * (rows - 1) + row bytes, \(rows) rows of \(rowBytes) bytes)")
            }
        }
    }

    /// a * b, or Int.max when it overflows.
    private static func product(_ a: Int, _ b: Int) -> Int {
        let (r, o) = a.multipliedReportingOverflow(by: b)
        return o ? Int.max : r
    }

    /// stride * (rows - 1) + rowBytes, or Int.max when it overflows.
    private static func span(stride: Int, rows: Int, rowBytes: Int) -> Int {
        let head = product(stride, rows - 1)
        return head > Int.max - rowBytes ? Int.max : head + rowBytes
    }
}

/// The geometry a capture's frames must have (SPEC S43): the negotiated
/// FourCC and size, and per plane the bytes of a row and the rows. The
/// frame path checks every frame against it with a few compares
/// (`fits`); a frame that does not fit is looked at closely, out of line
/// (Capturer: delivered with its own consistent geometry, or marked
/// corrupt with the reason).
struct FrameGeometry {
    let fourcc: FourCC
    let width: Int
    let height: Int
    let compressed: Bool
    let planeCount: Int
    let rowBytes: (Int, Int, Int)
    let rows: (Int, Int, Int)

    /// nil for a FourCC the table does not know (nothing to check against).
    init?(fourcc: FourCC, width: Int, height: Int) {
        guard let info = PixelFormatTable.info(fourcc), width > 0, height > 0 else { return nil }
        self.fourcc = fourcc; self.width = width; self.height = height
        compressed = info.isCompressed
        planeCount = compressed ? 1 : info.planeCount
        var rb = [0, 0, 0], rs = [0, 0, 0]
        if !compressed {
            for p in 0..<min(planeCount, 3) {
                rb[p] = info.rowBytes(plane: p, width: width) ?? 0
                rs[p] = info.rows(plane: p, height: height) ?? 0
            }
        }
        rowBytes = (rb[0], rb[1], rb[2]); rows = (rs[0], rs[1], rs[2])
    }

    @inline(__always)
    private static func planeFits(_ pl: Plane, _ rowBytes: Int, _ rows: Int) -> Bool {
        pl.stride >= rowBytes && pl.length >= pl.stride &* (rows &- 1) &+ rowBytes
    }

    /// True when the frame has this geometry: FourCC, size, and every
    /// plane's stride at least a row and its length at least the rows.
    @inline(__always)
    func fits(_ f: Frame) -> Bool {
        guard f.fourcc == fourcc, f.width == width, f.height == height else { return false }
        if compressed { return f.planes.0.length > 0 }
        guard f.planeCount == planeCount else { return false }
        if !Self.planeFits(f.planes.0, rowBytes.0, rows.0) { return false }
        if planeCount > 1 && !Self.planeFits(f.planes.1, rowBytes.1, rows.1) { return false }
        if planeCount > 2 && !Self.planeFits(f.planes.2, rowBytes.2, rows.2) { return false }
        return true
    }
}
