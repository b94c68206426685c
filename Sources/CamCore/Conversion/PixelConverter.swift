// SPDX-License-Identifier: MIT
internal import CTurboJPEG

/// Converts frames of one source format and size into one output format
/// (SPEC S8), with libyuv for raw formats and libjpeg-turbo's TurboJPEG for
/// MJPEG. No conversion is written by hand here: every pixel goes through a
/// libyuv or TurboJPEG call; this type only chooses the calls and checks
/// the buffers.
///
/// **Targets** (V4L2 FourCC, output layout, all tightly packed, rows
/// top-down, planes one after the other in `destination`):
/// - `YU12` (I420): Y `w`×`h`, then U and V, each `⌈w/2⌉`×`⌈h/2⌉`.
/// - `NV12`: Y `w`×`h`, then interleaved UV rows of `2⌈w/2⌉` bytes, `⌈h/2⌉` rows.
/// - `YUYV`: one plane, `4⌈w/2⌉` bytes per row (Y0 U Y1 V).
/// - `RGB3` (RGB24): bytes R, G, B; `3w` per row (libyuv calls this "RAW").
/// - `BGR3` (BGR24): bytes B, G, R; `3w` per row (libyuv "RGB24").
/// - `AB24` (V4L2_PIX_FMT_RGBA32): bytes R, G, B, A; `4w` per row (libyuv
///   "ABGR"). Alpha is the source's alpha for formats that carry one
///   (`AR24`, `AB24`, `BA24`, `RA24`, `AR15`, `AR12`) and 255 otherwise
///   (the `X` formats' padding byte is never passed off as alpha).
///
/// **Sources**: packed 4:2:2 (`YUYV`, `YVYU`, `UYVY`, `VYUY`), planar
/// (`YU12`, `YV12`, `422P` and the multi-planar `YM12`, `YM21`, `YM16`,
/// `YM61`, `YM24`, `YM42`), semi-planar (`NV12`, `NV21`, `NV16`, `NV61`,
/// `NV24`, `NV42`, `NM12`, `NM21`, `NM16`, `NM61`), `GREY`, 24-bit RGB
/// (`RGB3`, `BGR3`), 32-bit RGB (`AR24`, `XR24`, `AB24`, `XB24`, `BA24`,
/// `BX24`, `RA24`, `RX24`, `BGR4`, `RGB4`), 16-bit RGB (`RGBP`, `RGBO`,
/// `AR15`, `XR15`, `R444`, `AR12`, `XR12`), and `MJPG`/`JPEG`. Bayer and
/// other formats libyuv lacks throw `CamError.notSupported`.
///
/// **Route**: at init the converter picks the cheapest chain of libyuv calls
/// from the source layout to the target (one call for the common paths:
/// YUYV→I420 is `YUY2ToI420`, YUYV→NV12 `YUY2ToNV12`, NV12→I420
/// `NV12ToI420`); chains that need an intermediate image use scratch
/// buffers allocated at init. `route` names the calls.
///
/// **Colour**: YUV↔RGB uses libyuv's default, BT.601 limited range
/// (Y 16–235). `GREY` is intensity: grey level v becomes RGB (v, v, v) and
/// Y = v. MJPEG is special: JPEG (JFIF) YCbCr is BT.601 *full* range. To a
/// YUV target the JPEG's samples are passed through unchanged (as libyuv's
/// own `MJPGToI420` does), so I420/NV12/YUYV from MJPEG are full range; to
/// an RGB target TurboJPEG converts with the JFIF matrix, so the colours
/// are right.
///
/// **MJPEG**: plane 0 holds the JPEG, its `length` the bytes used (trailing
/// zero padding is allowed). The JPEG is decoded at its own chroma
/// subsampling (4:2:0 straight into the destination when the target is
/// I420), then libyuv converts; RGB targets are decoded straight into the
/// destination by TurboJPEG. A JPEG whose size differs from the configured
/// size, one without its end-of-image marker (truncated), one TurboJPEG
/// rejects, or one that decodes with any warning is corrupt, except for
/// stray bytes before a marker (a common camera quirk): between segments
/// they are removed before decoding (JPEGMarkers), after the last scan's
/// data they are the one warning accepted (see `accept`). A rejected frame
/// costs that frame only: the TurboJPEG handle is re-created.
///
/// **Output size (S38)**: with `outputWidth`×`outputHeight` other than the
/// source size, frames come out at exactly that size (stretched, never
/// cropped), scaled by libyuv with `scaleFilter` (box). Raw sources are
/// converted to a layout libyuv scales (the target itself for I420 and
/// NV12, I422 for YUYV, ARGB for RGB targets), scaled, then converted to
/// the target at the output size (the steps that are not needed are
/// left out: NV12→NV12 is one NV12Scale). MJPEG is decoded by TurboJPEG at
/// the smallest DCT scale of 1/2, 1/4, 1/8 whose size (TJSCALED) is at or
/// above the output size in both dimensions (`jpegScale`,
/// `decodeWidth`×`decodeHeight`); when that is the output size nothing is
/// scaled. Otherwise a YCbCr JPEG's planes are each scaled from the DCT
/// size straight to the output's I420 (I422 for YUYV) planes with
/// ScalePlane, whatever the JPEG's chroma subsampling, then converted; RGB
/// targets (and RGB JPEGs) are decoded to BGRX at the DCT size,
/// ARGBScale'd, then converted. Output sizes are checked by
/// `checkOutputSize`.
///
/// **4:2:2 MJPEG to I420** (what UVC webcams send): the luma is decoded
/// straight into the destination and only the chroma goes through scratch
/// before libyuv halves it vertically (the same bytes as a whole 4:2:2
/// decode followed by I422ToI420, without copying the luma).
///
/// **Errors**: `init` throws `CamError.notSupported` when source→target is
/// impossible and `CamError.invalidArgument` for a size outside 1...16384.
/// `convert` returns false for a corrupt or short frame (wrong FourCC or
/// size, missing plane, stride below the row size, plane shorter than its
/// rows, bad JPEG); the caller flags the frame corrupted or drops it. No
/// input makes it crash or write outside `destination`.
///
/// **Cost**: nothing is allocated per frame by this type (libjpeg's own
/// per-decode pools aside; the copy of an MJPEG frame without its stray
/// bytes grows when such a frame is bigger than any before; a rejected
/// frame re-creates the TurboJPEG handle). Finding stray bytes is one pass
/// over the JPEG: ~5 µs for an 84 KB 640x480 frame, against 1.4–1.7 ms to
/// decode it (0.3%; `bench_S26_marker_walk_640x480`). One converter serves one capture thread: calls
/// to `convert` must not overlap (the scratch buffers and the TurboJPEG
/// handle are shared state); the object may be handed between threads.
final class PixelConverter: @unchecked Sendable {
    /// The source format and size frames must have.
    let source: FourCC
    let width: Int
    let height: Int
    /// The output format.
    let target: FourCC
    /// The size of the output frames, pixels (S38): the source size unless
    /// an output size was asked.
    let outputWidth: Int
    let outputHeight: Int
    /// Bytes per row of each output plane (tightly packed, at the output
    /// size): I420 `[w, ⌈w/2⌉, ⌈w/2⌉]`, NV12 `[w, 2⌈w/2⌉]`, YUYV
    /// `[4⌈w/2⌉]`, RGB3/BGR3 `[3w]`, AB24 `[4w]`.
    let outputStrides: [Int]
    /// Bytes of one output frame; `destination` must be this long.
    let outputBytes: Int
    /// The libyuv calls a raw frame goes through, in order, e.g.
    /// `["YUY2ToI420"]`. For MJPEG: the TurboJPEG call, with its DCT scale
    /// when an output size was asked (`"tjDecompressToYUVPlanes 1/2"`), then the calls after a 4:2:0
    /// decode (other subsamplings use their own chains). A scale is named
    /// by its libyuv call and filter, e.g. `"I420Scale box"`, `"ScalePlane box"`.
    let route: [String]
    /// MJPEG: the DCT scale TurboJPEG decodes at (S38), as numerator and
    /// denominator: 1/1, 1/2, 1/4 or 1/8, the smallest whose scaled size
    /// (TJSCALED) is at least the output size in both dimensions. 1/1 for
    /// raw sources and for MJPEG without an output size.
    let jpegScale: (num: Int, denom: Int)
    /// MJPEG: the size decoded at `jpegScale` (TJSCALED of the source size).
    let decodeWidth: Int
    let decodeHeight: Int

    // Internal, not private, where the MJPEG decoder reads them: Swift's
    // private stops at the file, and it is in PixelConverter+MJPEG.swift.
    private let sourceLayout: PixelLayout
    let targetLayout: PixelLayout
    /// Source planes 1 and 2 are V and U (YV12, YM21, YM61, YM42).
    private let swapSourceUV: Bool
    /// Raw sources: the chain; each step writes a scratch image, the last one the destination.
    private let steps: [Step]
    /// Raw sources with an output size: convert, scale, convert (S38).
    private let scaling: Scaling?
    /// MJPEG: the chains after decoding, by the decoded layout (at the DCT size).
    let jpegSteps: [PixelLayout: [Step]]
    /// MJPEG whose DCT size is not the output size: what follows the
    /// per-plane scale of a YCbCr decode (into `planarOut`, the layout
    /// `planarLayout` at the output size; nil: the destination), and what
    /// follows the ARGBScale of a BGRX decode (into `argbOut`).
    let planarLayout: PixelLayout
    let planarOut: PixelImage?
    let planarPost: [Step]
    let argbOut: PixelImage?
    let argbPost: [Step]
    private var buffers: [UnsafeMutableRawPointer] = []
    let jpegScratch: UnsafeMutableRawPointer?
    /// The TurboJPEG decompressor; re-created after a frame it rejected
    /// (see `resetDecoder`), nil when that failed (out of memory).
    var tj: tjhandle?
    private let decodesJPEG: Bool
    /// MJPEG with stray bytes before a marker: the stream without them
    /// (JPEGMarkers), grown only when such a frame is bigger than any before.
    var cleanJPEG: UnsafeMutablePointer<UInt8>?
    var cleanCapacity = 0
    /// Table slots (JPEGMarkers.Walk.tables) the decompressor holds from
    /// the frames since it was created.
    var heldTables: UInt16 = 0
    let tjPlanes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>
    let tjStrides: UnsafeMutablePointer<Int32>

    /// One libyuv call of a chain and where it writes (nil: the destination).
    struct Step {
        let edge: ConversionCall
        let output: PixelImage?
    }

    /// Throws `CamError.notSupported` when `source`→`target` is impossible,
    /// `CamError.invalidArgument` for a size outside 1...16384 or an output
    /// size `checkOutputSize` refuses, and `CamError.noMemory` when
    /// TurboJPEG cannot start. `outputWidth`/`outputHeight` nil (or equal to
    /// the source size) convert without scaling.
    init(source: FourCC, width: Int, height: Int, target: FourCC,
         outputWidth: Int? = nil, outputHeight: Int? = nil) throws(CamError) {
        guard (1...16384).contains(width), (1...16384).contains(height) else {
            throw .invalidArgument("conversion size \(width)x\(height) is outside 1...16384")
        }
        guard let to = PixelLayout.target(target) else {
            throw .notSupported("output pixel format \(target) is not one of YU12, NV12, YUYV, RGB3, BGR3, AB24")
        }
        let ow = outputWidth ?? width, oh = outputHeight ?? height
        let scales = ow != width || oh != height
        if scales { try PixelConverter.checkOutputSize(ow, oh, target: target, width: width, height: height) }
        self.source = source; self.width = width; self.height = height; self.target = target
        self.outputWidth = ow; self.outputHeight = oh
        targetLayout = to
        outputStrides = (0..<to.planeCount).map { to.rowBytes($0, ow) }
        outputBytes = to.bytes(ow, oh)
        // S38's scaled layout: I420 and NV12 scale as themselves, YUYV as
        // I422 (its chroma), RGB as ARGB.
        planarLayout = to == .yuy2 ? .i422 : .i420
        var owned: [UnsafeMutableRawPointer] = []
        func scratchImage(_ layout: PixelLayout, _ w: Int, _ h: Int) -> PixelImage {
            let b = UnsafeMutableRawPointer.allocate(byteCount: max(layout.bytes(w, h), 1), alignment: 64)
            owned.append(b)
            return layout.image(b, w, h)
        }
        func chain(_ plan: [ConversionCall], _ w: Int, _ h: Int) -> [Step] {
            let (buffer, images) = PixelConverter.allocateScratch([plan], w, h)
            if let buffer { owned.append(buffer) }
            return PixelConverter.steps(plan, images[0])
        }
        func freeAll() { for b in owned { b.deallocate() } }

        if source.isJPEG {
            sourceLayout = .i420; swapSourceUV = false; steps = []; scaling = nil
            // The DCT scale: the smallest of 1/1, 1/2, 1/4, 1/8 TurboJPEG
            // offers whose scaled size covers the output size.
            var n: Int32 = 0
            var best = tjscalingfactor(num: 1, denom: 1)
            if scales, let factors = tjGetScalingFactors(&n) {
                for i in 0..<Int(n) {
                    let f = factors[i]
                    guard f.num == 1, [1, 2, 4, 8].contains(f.denom), f.denom > best.denom,
                          Int(cc_tjscaled(Int32(width), f)) >= ow, Int(cc_tjscaled(Int32(height), f)) >= oh else { continue }
                    best = f
                }
            }
            let dw = Int(cc_tjscaled(Int32(width), best)), dh = Int(cc_tjscaled(Int32(height), best))
            jpegScale = (Int(best.num), Int(best.denom)); decodeWidth = dw; decodeHeight = dh
            let exact = dw == ow && dh == oh
            let scaleName = scales ? " \(best.num)/\(best.denom)" : ""  // the DCT scale, with an output size
            if to.isRGB && exact {
                // TurboJPEG decodes straight into the destination.
                jpegSteps = [:]
                planarOut = nil; planarPost = []; argbOut = nil; argbPost = []
                route = ["tjDecompress2" + scaleName]
            } else if exact {
                let decodedLayouts: [PixelLayout] = [.i420, .i422, .i444, .i400, .argb]
                var plans: [[ConversionCall]] = []
                for decoded in decodedLayouts {
                    guard let plan = ConversionGraph.plan(from: decoded, to: to) else {
                        freeAll()
                        throw .notSupported("no conversion from decoded JPEG (\(decoded)) to \(target)")
                    }
                    plans.append(plan)
                }
                let (buffer, images) = Self.allocateScratch(plans, dw, dh)
                if let buffer { owned.append(buffer) }
                var all: [PixelLayout: [Step]] = [:]
                for (i, decoded) in decodedLayouts.enumerated() {
                    all[decoded] = Self.steps(plans[i], images[i])
                }
                jpegSteps = all
                planarOut = nil; planarPost = []; argbOut = nil; argbPost = []
                route = ["tjDecompressToYUVPlanes" + scaleName] + (to == .i420 ? [] : plans[0].map(\.name))
            } else {
                // Decode at the DCT size, scale each plane to the output
                // size (YCbCr) or the BGRX image (RGB targets, RGB JPEGs),
                // then convert at the output size.
                guard let fromPlanar = ConversionGraph.plan(from: planarLayout, to: to),
                      let fromARGB = ConversionGraph.plan(from: .argb, to: to) else {
                    freeAll()
                    throw .notSupported("no conversion from a scaled JPEG to \(target)")
                }
                jpegSteps = [:]
                if planarLayout == to || to.isRGB {
                    planarOut = nil; planarPost = []
                } else {
                    planarOut = scratchImage(planarLayout, ow, oh); planarPost = chain(fromPlanar, ow, oh)
                }
                if to == .argb {
                    argbOut = nil; argbPost = []
                } else {
                    argbOut = scratchImage(.argb, ow, oh); argbPost = chain(fromARGB, ow, oh)
                }
                let filter = "box"
                if to.isRGB {
                    route = ["tjDecompress2" + scaleName, "ARGBScale \(filter)"] + fromARGB.map(\.name)
                } else {
                    route = ["tjDecompressToYUVPlanes" + scaleName, "ScalePlane \(filter)"]
                        + (planarLayout == to ? [] : fromPlanar.map(\.name))
                }
            }
            // Room for Y (padded to the sampling unit), native chroma up to
            // 4:4:4, I420 chroma (4:4:0 and 4:1:1 are resampled to it), or
            // a BGRX decode of an RGB JPEG (all at most the source size).
            let cw = (width + 1) / 2, ch = (height + 1) / 2
            let paddedY = ((width + 3) & ~3) * ((height + 1) & ~1)
            let jpegBytes = max(paddedY + 2 * width * height + 2 * cw * ch + 64, 4 * width * height)
            let js = UnsafeMutableRawPointer.allocate(byteCount: jpegBytes, alignment: 64)
            jpegScratch = js
            guard let handle = tjInitDecompress() else {
                js.deallocate(); freeAll()
                throw .noMemory("TurboJPEG: \(String(cString: tjGetErrorStr2(nil)))")
            }
            tj = handle; decodesJPEG = true
        } else {
            guard let (from, swap) = PixelLayout.source(source) else {
                throw .notSupported("no converter for pixel format \(source)")
            }
            guard let plan = ConversionGraph.plan(from: from, to: to) else {
                throw .notSupported("no conversion from \(source) to \(target)")
            }
            sourceLayout = from; swapSourceUV = swap
            jpegScale = (1, 1); decodeWidth = width; decodeHeight = height
            jpegSteps = [:]; jpegScratch = nil; tj = nil; decodesJPEG = false
            planarOut = nil; planarPost = []; argbOut = nil; argbPost = []
            if scales {
                // The layout libyuv scales: the target's own (I420, NV12),
                // I422 for YUYV, ARGB for RGB targets.
                let layout: PixelLayout = to.isRGB ? .argb : to == .yuy2 ? .i422 : to
                guard let pre = layout == from ? [] : ConversionGraph.plan(from: from, to: layout),
                      let post = layout == to ? [] : ConversionGraph.plan(from: layout, to: to) else {
                    throw .notSupported("no conversion from \(source) to \(target) through \(layout)")
                }
                let atSource = pre.isEmpty ? nil : scratchImage(layout, width, height)
                let atOutput = post.isEmpty ? nil : scratchImage(layout, ow, oh)
                scaling = Scaling(layout: layout, pre: chain(pre, width, height), atSource: atSource,
                                  atOutput: atOutput, post: chain(post, ow, oh))
                steps = []
                route = pre.map(\.name) + [PixelConverter.scaleName(layout)] + post.map(\.name)
            } else {
                scaling = nil
                steps = chain(plan, width, height)
                route = plan.map(\.name)
            }
            tjPlanes = .allocate(capacity: 3); tjPlanes.initialize(repeating: nil, count: 3)
            tjStrides = .allocate(capacity: 3); tjStrides.initialize(repeating: 0, count: 3)
            buffers = owned
            return
        }
        tjPlanes = .allocate(capacity: 3); tjPlanes.initialize(repeating: nil, count: 3)
        tjStrides = .allocate(capacity: 3); tjStrides.initialize(repeating: 0, count: 3)
        buffers = owned
    }

    deinit {
        for b in buffers { b.deallocate() }
        jpegScratch?.deallocate()
        cleanJPEG?.deallocate()
        if let tj { tjDestroy(tj) }
        tjPlanes.deallocate()
        tjStrides.deallocate()
    }

    /// Converts `frame` into `destination` (`outputBytes` long, laid out
    /// as `outputStrides` say). Returns false, leaving `destination` with
    /// undefined content, when the frame is corrupt or short (see the type's
    /// doc); never crashes on garbage input.
    /// The row bytes of each plane of a packed `format` output `width` wide.
    static func packedStrides(_ format: FourCC, _ width: Int) -> [Int] {
        guard let l = PixelLayout.target(format) else { return [] }
        return (0..<l.planeCount).map { l.rowBytes($0, width) }
    }

    func convert(_ frame: Frame, into destination: UnsafeMutableRawPointer) -> Bool {
        guard frame.fourcc == source, frame.width == width, frame.height == height else { return false }
        let out = targetLayout.image(destination, outputWidth, outputHeight)
        if decodesJPEG { return decodeJPEG(frame.plane(0), into: out) }
        guard let input = inputImage(frame) else { return false }
        if let s = scaling { return runScaled(s, input, out) }
        return run(steps, input, out, width, height)
    }

    /// The output planes in `destination`, split like PlaneLayout splits a
    /// capture buffer: I420 → Y, U, V; NV12 → Y, UV; packed formats → one.
    /// `width`/`height`: another size of the same format laid out the same
    /// way (S45: the output turned by 90 or 270 degrees).
    func outputPlanes(_ destination: UnsafeMutableRawPointer, width: Int? = nil,
                      height: Int? = nil) -> (planes: (Plane, Plane, Plane), count: Int) {
        var planes = (Plane.empty, Plane.empty, Plane.empty)
        var offset = 0
        let w = width ?? outputWidth, h = height ?? outputHeight
        for i in 0..<targetLayout.planeCount {
            let stride = targetLayout.rowBytes(i, w)
            let p = Plane(base: destination + offset, stride: stride,
                          length: stride * targetLayout.rows(i, h))
            offset += p.length
            switch i {
            case 0: planes.0 = p
            case 1: planes.1 = p
            default: planes.2 = p
            }
        }
        return (planes, targetLayout.planeCount)
    }

    // MARK: - Raw frames

    /// The frame's planes as a libyuv image, or nil when any is missing or short.
    private func inputImage(_ frame: Frame) -> PixelImage? {
        let layout = sourceLayout
        var p0 = frame.plane(0), p1 = frame.plane(1), p2 = frame.plane(2)
        if layout.planeCount > 1 && frame.planeCount == 1 {
            // The whole frame in one buffer: chroma planes follow the luma.
            guard let base = p0.base, p0.length >= 0 else { return nil }
            let used = p0.length, s0 = p0.stride
            let s1 = layout.contiguousChromaStride(s0)
            let o1 = s0 * height
            let l1 = s1 * layout.rows(1, height)
            p0 = Plane(base: base, stride: s0, length: min(used, o1))
            p1 = Plane(base: base + min(o1, used), stride: s1, length: max(0, min(used - o1, l1)))
            if layout.planeCount > 2 {
                let o2 = o1 + l1
                p2 = Plane(base: base + min(o2, used), stride: s1, length: max(0, min(used - o2, l1)))
            }
        } else if frame.planeCount < layout.planeCount {
            return nil
        }
        if swapSourceUV { swap(&p1, &p2) }
        guard let b0 = check(p0, 0) else { return nil }
        var image = PixelImage(p0: b0, s0: Int32(p0.stride))
        if layout.planeCount > 1 {
            guard let b1 = check(p1, 1) else { return nil }
            image.p1 = b1; image.s1 = Int32(p1.stride)
        }
        if layout.planeCount > 2 {
            guard let b2 = check(p2, 2) else { return nil }
            image.p2 = b2; image.s2 = Int32(p2.stride)
        }
        return image
    }

    /// The plane's bytes when it holds `rows` rows of `rowBytes` at its stride.
    private func check(_ p: Plane, _ index: Int) -> UnsafeMutablePointer<UInt8>? {
        let rowBytes = sourceLayout.rowBytes(index, width)
        let rows = sourceLayout.rows(index, height)
        guard let base = p.base, p.stride >= rowBytes, p.stride <= Int(Int32.max),
              p.length >= p.stride * (rows - 1) + rowBytes else { return nil }
        return base.assumingMemoryBound(to: UInt8.self)
    }

    func run(_ steps: [Step], _ input: PixelImage, _ destination: PixelImage, _ width: Int, _ height: Int) -> Bool {
        var current = input
        let w = Int32(width), h = Int32(height)
        for step in steps {
            let output = step.output ?? destination
            guard step.edge.call(current, output, w, h) == 0 else { return false }
            current = output
        }
        return true
    }
}
