// SPDX-License-Identifier: MIT
internal import CTurboJPEG
internal import CYuv
#if canImport(Glibc)
import Glibc
#endif

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

    /// The filter of every libyuv scale call (S38): box. libyuv's box filter
    /// averages every source pixel into the output pixel it falls in; for
    /// an axis that shrinks by less than 2 (and for enlarging) libyuv itself
    /// uses bilinear instead (its ScaleFilterReduce), which there also reads
    /// every source pixel. Exactly the asked size: the image is stretched,
    /// never cropped, when the aspect ratio differs.
    static let scaleFilter = kFilterBox

    /// The largest output size accepted, per dimension, and how many times
    /// the source size it may be (enlarging beyond that is refused as a
    /// mistake rather than a scale anyone wants).
    static let maxOutputSide = 16384
    static let maxUpscale = 4

    private let sourceLayout: PixelLayout
    private let targetLayout: PixelLayout
    /// Source planes 1 and 2 are V and U (YV12, YM21, YM61, YM42).
    private let swapSourceUV: Bool
    /// Raw sources: the chain; each step writes a scratch image, the last one the destination.
    private let steps: [Step]
    /// Raw sources with an output size: convert, scale, convert (S38).
    private let scaling: Scaling?
    /// MJPEG: the chains after decoding, by the decoded layout (at the DCT size).
    private let jpegSteps: [PixelLayout: [Step]]
    /// MJPEG whose DCT size is not the output size: what follows the
    /// per-plane scale of a YCbCr decode (into `planarOut`, the layout
    /// `planarLayout` at the output size; nil: the destination), and what
    /// follows the ARGBScale of a BGRX decode (into `argbOut`).
    private let planarLayout: PixelLayout
    private let planarOut: PixelImage?
    private let planarPost: [Step]
    private let argbOut: PixelImage?
    private let argbPost: [Step]
    private var buffers: [UnsafeMutableRawPointer] = []
    private let jpegScratch: UnsafeMutableRawPointer?
    /// The TurboJPEG decompressor; re-created after a frame it rejected
    /// (see `resetDecoder`), nil when that failed (out of memory).
    private var tj: tjhandle?
    private let decodesJPEG: Bool
    /// MJPEG with stray bytes before a marker: the stream without them
    /// (JPEGMarkers), grown only when such a frame is bigger than any before.
    private var cleanJPEG: UnsafeMutablePointer<UInt8>?
    private var cleanCapacity = 0
    /// Table slots (JPEGMarkers.Walk.tables) the decompressor holds from
    /// the frames since it was created.
    private var heldTables: UInt16 = 0
    private let tjPlanes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>
    private let tjStrides: UnsafeMutablePointer<Int32>

    /// One libyuv call of a chain and where it writes (nil: the destination).
    private struct Step {
        let edge: ConversionCall
        let output: PixelImage?
    }

    /// A raw frame to an output size: `pre` converts the source into
    /// `layout` at the source size (into `atSource`; empty when the source
    /// is that layout), one libyuv scale writes `layout` at the output size
    /// (into `atOutput`, nil: the destination), `post` converts it to the
    /// target (empty when `layout` is the target).
    private struct Scaling {
        let layout: PixelLayout
        let pre: [Step]
        let atSource: PixelImage?
        let atOutput: PixelImage?
        let post: [Step]
    }

    /// Checks an output size (S38) for `target` from a `width`×`height`
    /// source: 1...16384 and at most `maxUpscale` times the source per
    /// side, even where the target's chroma needs it (I420 and NV12: width
    /// and height; YUYV: width). Throws `CamError.invalidArgument` saying
    /// which rule failed.
    static func checkOutputSize(_ ow: Int, _ oh: Int, target: FourCC, width: Int, height: Int) throws(CamError) {
        guard (1...maxOutputSide).contains(ow), (1...maxOutputSide).contains(oh) else {
            throw .invalidArgument("output size \(ow)x\(oh) is outside 1...\(maxOutputSide)")
        }
        guard ow <= maxUpscale * width, oh <= maxUpscale * height else {
            throw .invalidArgument("output size \(ow)x\(oh) is more than \(maxUpscale) times the captured \(width)x\(height)")
        }
        try CaptureRequest.checkOutputParity(ow, oh, output: target)
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

    private func run(_ steps: [Step], _ input: PixelImage, _ destination: PixelImage, _ width: Int, _ height: Int) -> Bool {
        var current = input
        let w = Int32(width), h = Int32(height)
        for step in steps {
            let output = step.output ?? destination
            guard step.edge.call(current, output, w, h) == 0 else { return false }
            current = output
        }
        return true
    }

    // MARK: - Output size (S38)

    /// A raw frame converted to the scaled layout, scaled, converted to the target.
    private func runScaled(_ s: Scaling, _ input: PixelImage, _ destination: PixelImage) -> Bool {
        var image = input
        if let atSource = s.atSource {
            guard run(s.pre, input, atSource, width, height) else { return false }
            image = atSource
        }
        let scaled = s.atOutput ?? destination
        guard Self.scale(s.layout, image, width, height, scaled, outputWidth, outputHeight) == 0 else { return false }
        return s.post.isEmpty || run(s.post, scaled, destination, outputWidth, outputHeight)
    }

    /// The libyuv call that scales `layout`, as `route` names it.
    static func scaleName(_ layout: PixelLayout) -> String {
        switch layout {
        case .i420: return "I420Scale box"
        case .i422: return "I422Scale box"
        case .i444: return "I444Scale box"
        case .nv12: return "NV12Scale box"
        case .argb: return "ARGBScale box"
        default: return "ScalePlane box"
        }
    }

    /// Scales an image of `layout` (I420, I422, I444, NV12, ARGB or one
    /// plane) from `w`×`h` to `ow`×`oh` with `scaleFilter`; 0 on success.
    static func scale(_ layout: PixelLayout, _ s: PixelImage, _ w: Int, _ h: Int,
                      _ d: PixelImage, _ ow: Int, _ oh: Int) -> Int32 {
        let sw = Int32(w), sh = Int32(h), dw = Int32(ow), dh = Int32(oh), f = scaleFilter
        switch layout {
        case .i420:
            return I420Scale(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, sw, sh, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, dw, dh, f)
        case .i422:
            return I422Scale(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, sw, sh, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, dw, dh, f)
        case .i444:
            return I444Scale(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, sw, sh, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, dw, dh, f)
        case .nv12:
            return NV12Scale(s.p0, s.s0, s.p1, s.s1, sw, sh, d.p0, d.s0, d.p1, d.s1, dw, dh, f)
        case .argb:
            return ARGBScale(s.p0, s.s0, sw, sh, d.p0, d.s0, dw, dh, f)
        default:
            ScalePlane(s.p0, s.s0, sw, sh, d.p0, d.s0, dw, dh, f)
            return 0
        }
    }

    // MARK: - MJPEG

    private func decodeJPEG(_ plane: Plane, into destination: PixelImage) -> Bool {
        guard let base = plane.base, plane.length > 4 else { return false }
        var jpeg = UnsafePointer(base.assumingMemoryBound(to: UInt8.self))
        // Drop zero padding after the image; a JPEG without its end marker is truncated.
        var size = plane.length
        while size > 2 && jpeg[size - 1] == 0 { size -= 1 }
        guard jpeg[0] == 0xFF, jpeg[1] == 0xD8, jpeg[size - 2] == 0xFF, jpeg[size - 1] == 0xD9 else {
            return false
        }
        let walk = JPEGMarkers.walk(jpeg, size)
        // A frame must decode as on its own: one that leaves out a table the
        // decompressor holds from an earlier frame (a DHT-less camera frame
        // after one with its own tables) gets a fresh decompressor, so that
        // libjpeg-turbo supplies the standard tables. Once per change of
        // kind; a camera sends its frames all one way.
        if heldTables & ~walk.tables != 0 { resetDecoder() }
        heldTables |= walk.tables
        // Stray bytes before a marker: decode the stream without them, so
        // that any warning TurboJPEG gives is about the picture (`accept`).
        let stray = walk.stray
        if stray > 0 {
            if cleanCapacity < size {
                cleanJPEG?.deallocate()
                cleanCapacity = max(size + size / 2, 64 << 10)
                cleanJPEG = .allocate(capacity: cleanCapacity)
            }
            guard let clean = cleanJPEG else { return false }
            _ = JPEGMarkers.strayBytes(jpeg, size, copyingTo: clean)
            jpeg = UnsafePointer(clean); size -= stray
        }
        if tj == nil { tj = tjInitDecompress() }  // the last re-creation failed: try again
        guard let tj else { return false }
        var w: Int32 = 0, h: Int32 = 0, subsamp: Int32 = -1, colorspace: Int32 = -1
        guard accept(tjDecompressHeader3(tj, jpeg, UInt(size), &w, &h, &subsamp, &colorspace)) else { return false }
        guard Int(w) == width, Int(h) == height else {
            // Its tables stay in the decompressor: another stream, start afresh.
            resetDecoder()
            return false
        }
        let flags = CC_TJFLAG_LIMITSCANS
        // The size TurboJPEG decodes at (S38's DCT scale; the JPEG's own without one).
        let dw = Int32(decodeWidth), dh = Int32(decodeHeight)
        let exact = decodeWidth == outputWidth && decodeHeight == outputHeight

        if targetLayout.isRGB && exact {
            let format: TJPF = targetLayout == .raw ? TJPF_RGB : targetLayout == .rgb24 ? TJPF_BGR : TJPF_RGBA
            return accept(tjDecompress2(tj, jpeg, UInt(size), destination.p0, dw, destination.s0, dh,
                                        Int32(format.rawValue), flags))
        }
        guard let scratch = jpegScratch else { return false }
        let yuvJPEG = colorspace == Int32(TJCS_YCbCr.rawValue) || colorspace == Int32(TJCS_GRAY.rawValue)
        if !yuvJPEG || targetLayout.isRGB {
            // RGB targets at a scale, or an RGB, CMYK or YCCK JPEG (not from
            // cameras): decode to BGRX (libyuv ARGB), scale, convert.
            let argb = PixelLayout.argb.image(scratch, decodeWidth, decodeHeight)
            guard accept(tjDecompress2(tj, jpeg, UInt(size), argb.p0, dw, argb.s0, dh,
                                       Int32(TJPF_BGRX.rawValue), flags)) else { return false }
            if exact { return run(jpegSteps[.argb] ?? [], argb, destination, decodeWidth, decodeHeight) }
            let scaled = argbOut ?? destination
            guard Self.scale(.argb, argb, decodeWidth, decodeHeight, scaled, outputWidth, outputHeight) == 0 else {
                return false
            }
            return argbPost.isEmpty || run(argbPost, scaled, destination, outputWidth, outputHeight)
        }
        let decoded: PixelLayout
        switch subsamp {
        case Int32(TJSAMP_420.rawValue): decoded = .i420
        case Int32(TJSAMP_422.rawValue): decoded = .i422
        case Int32(TJSAMP_444.rawValue): decoded = .i444
        case Int32(TJSAMP_GRAY.rawValue): decoded = .i400
        default: decoded = .i420  // 4:4:0, 4:1:1: chroma resampled to 4:2:0 below
        }
        // TurboJPEG writes whole sampling units: the luma plane is padded to
        // them (one more column and row at odd 4:2:0 sizes).
        let yw = tjPlaneWidth(0, dw, subsamp), yh = tjPlaneHeight(0, dh, subsamp)
        guard yw >= dw, yh >= dh, Int(yw) <= (decodeWidth + 3) & ~3, Int(yh) <= (decodeHeight + 1) & ~1 else {
            resetDecoder()
            return false
        }
        if exact && subsamp == Int32(TJSAMP_420.rawValue) && targetLayout == .i420 && yw == dw && yh == dh {
            return decodeYUV(jpeg, size, into: destination, subsamp: subsamp, flags: flags)
        }
        var image = PixelImage(p0: scratch.assumingMemoryBound(to: UInt8.self), s0: yw)
        if decoded == .i400 {
            guard decodeYUV(jpeg, size, into: image, subsamp: subsamp, flags: flags) else { return false }
            if exact { return run(jpegSteps[.i400] ?? [], image, destination, decodeWidth, decodeHeight) }
            return scalePlanes(image, chroma: nil, destination)
        }
        let cw = tjPlaneWidth(1, dw, subsamp), chh = tjPlaneHeight(1, dh, subsamp)
        guard cw > 0, chh > 0, cw <= dw, chh <= dh else {
            resetDecoder()
            return false
        }
        let u = scratch + Int(yw * yh)
        image.p1 = u.assumingMemoryBound(to: UInt8.self); image.s1 = cw
        image.p2 = (u + Int(cw * chh)).assumingMemoryBound(to: UInt8.self); image.s2 = cw
        let qw = Int32((decodeWidth + 1) / 2), qh = Int32((decodeHeight + 1) / 2)
        if exact && subsamp == Int32(TJSAMP_422.rawValue) && targetLayout == .i420 && yw == dw && yh == dh {
            // 4:2:2 to I420, direct: luma straight into the destination, the
            // chroma halved vertically from scratch into it. The same calls
            // and bytes as I422ToI420 after a whole 4:2:2 decode, without
            // the copy of the luma plane.
            image.p0 = destination.p0; image.s0 = destination.s0
            guard decodeYUV(jpeg, size, into: image, subsamp: subsamp, flags: flags) else { return false }
            ScalePlane(image.p1, cw, cw, chh, destination.p1, destination.s1, qw, qh, kFilterBilinear)
            ScalePlane(image.p2, cw, cw, chh, destination.p2, destination.s2, qw, qh, kFilterBilinear)
            return true
        }
        guard decodeYUV(jpeg, size, into: image, subsamp: subsamp, flags: flags) else { return false }
        if !exact { return scalePlanes(image, chroma: (cw, chh), destination) }
        if decoded == .i420 && subsamp != Int32(TJSAMP_420.rawValue) {
            // Resample the chroma to 4:2:0 (as libyuv's I4xxToI420 does), after the native planes.
            let q = u + 2 * Int(cw * chh)
            let i420u = q.assumingMemoryBound(to: UInt8.self), i420v = (q + Int(qw * qh)).assumingMemoryBound(to: UInt8.self)
            ScalePlane(image.p1, cw, cw, chh, i420u, qw, qw, qh, kFilterBilinear)
            ScalePlane(image.p2, cw, cw, chh, i420v, qw, qw, qh, kFilterBilinear)
            image.p1 = i420u; image.s1 = qw; image.p2 = i420v; image.s2 = qw
        }
        return run(jpegSteps[decoded] ?? [], image, destination, decodeWidth, decodeHeight)
    }

    /// S38: the planes of a JPEG decoded at the DCT size (`image`; luma
    /// `decodeWidth`×`decodeHeight`, chroma `chroma` samples, nil for grey)
    /// each scaled with ScalePlane (`scaleFilter`) to `planarLayout` at the
    /// output size — in one pass per plane, whatever the JPEG's chroma
    /// subsampling — then converted to the target. Grey gets neutral chroma (128).
    private func scalePlanes(_ image: PixelImage, chroma: (Int32, Int32)?, _ destination: PixelImage) -> Bool {
        let out = planarOut ?? destination
        let f = Self.scaleFilter
        let ow = Int32(outputWidth), oh = Int32(outputHeight)
        let cw = Int32(planarLayout.rowBytes(1, outputWidth)), ch = Int32(planarLayout.rows(1, outputHeight))
        ScalePlane(image.p0, image.s0, Int32(decodeWidth), Int32(decodeHeight), out.p0, out.s0, ow, oh, f)
        if let (sw, sh) = chroma {
            ScalePlane(image.p1, image.s1, sw, sh, out.p1, out.s1, cw, ch, f)
            ScalePlane(image.p2, image.s2, sw, sh, out.p2, out.s2, cw, ch, f)
        } else {
            SetPlane(out.p1, out.s1, cw, ch, 128)
            SetPlane(out.p2, out.s2, cw, ch, 128)
        }
        return planarPost.isEmpty || run(planarPost, out, destination, outputWidth, outputHeight)
    }

    private func decodeYUV(_ jpeg: UnsafePointer<UInt8>, _ size: Int, into image: PixelImage,
                           subsamp: Int32, flags: Int32) -> Bool {
        guard let tj else { return false }
        tjPlanes[0] = image.p0; tjPlanes[1] = image.p1; tjPlanes[2] = image.p2
        tjStrides[0] = image.s0; tjStrides[1] = image.s1; tjStrides[2] = image.s2
        return accept(tjDecompressToYUVPlanes(tj, jpeg, UInt(size), tjPlanes, Int32(decodeWidth), tjStrides,
                                              Int32(decodeHeight), flags))
    }

    /// TurboJPEG's result: success, or the one warning that leaves the
    /// picture whole. Any other warning or error is a corrupt frame (SPEC
    /// S26): premature end of data, a bad Huffman code, a marker inside a
    /// scan all leave rows of grey filler.
    ///
    /// TurboJPEG reports only the *first* warning of a decode (libjpeg's
    /// `emit_message` prints one; later ones are only counted), so a frame
    /// with stray bytes before its DQT and a cut scan used to pass as
    /// "extraneous bytes". Stray bytes between segments are now removed
    /// before decoding (JPEGMarkers), so that warning can no longer hide
    /// another. What stays is the common camera quirk of stray bytes after
    /// the last scan's data: libjpeg reads them when it looks for EOI,
    /// after the last row was decoded ("N extraneous bytes before marker
    /// 0xd9"). Being the first warning, no other came before it, and none
    /// can come after it: accepted. (An error after a warning keeps the
    /// warning code but writes its own message, so the text is checked.)
    ///
    /// A rejected frame resets the decompressor (`resetDecoder`).
    private func accept(_ result: Int32) -> Bool {
        if result == 0 { return true }
        if let tj, tjGetErrorCode(tj) == Int32(TJERR_WARNING.rawValue), let message = tjGetErrorStr2(tj),
           strstr(message, "extraneous bytes before marker 0xd9") != nil { return true }
        resetDecoder()
        return false
    }

    /// Replaces the decompressor after a frame it rejected, so that a bad
    /// frame costs that frame only. libjpeg keeps a stream's Huffman and
    /// quantization tables in the decompressor for the next stream (JPEG
    /// "abbreviated" streams; ITU T.81 B.5) and supplies the standard
    /// Huffman tables only where none is held. UVC cameras send MJPEG
    /// without DHT (AVI1: the standard tables), so one frame with a bogus
    /// DHT ("Bogus Huffman table definition") used to leave its table
    /// there and every later frame was rejected with it. Only at error
    /// time: a clean decode keeps the decompressor (no allocation per frame).
    private func resetDecoder() {
        if let tj { tjDestroy(tj) }
        tj = tjInitDecompress()
        heldTables = 0
    }

    // MARK: - Scratch

    /// One buffer holding two scratch images (for odd and even steps) big
    /// enough for every intermediate of `plans`, and each plan's images.
    private static func allocateScratch(_ plans: [[ConversionCall]], _ w: Int, _ h: Int)
        -> (UnsafeMutableRawPointer?, [[PixelImage?]]) {
        var size = [0, 0]
        for plan in plans {
            for (i, edge) in plan.dropLast().enumerated() {
                size[i % 2] = max(size[i % 2], edge.to.bytes(w, h))
            }
        }
        let second = (size[0] + 63) & ~63
        guard size[0] + size[1] > 0 else { return (nil, plans.map { $0.map { _ in nil } }) }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: second + size[1], alignment: 64)
        let images = plans.map { plan in
            plan.enumerated().map { i, edge -> PixelImage? in
                i == plan.count - 1 ? nil : edge.to.image(buffer + (i % 2 == 0 ? 0 : second), w, h)
            }
        }
        return (buffer, images)
    }

    private static func steps(_ plan: [ConversionCall], _ outputs: [PixelImage?]) -> [Step] {
        zip(plan, outputs).map { Step(edge: $0, output: $1) }
    }
}

/// A libyuv image: up to three planes and their strides (as libyuv takes them).
struct PixelImage {
    var p0: UnsafeMutablePointer<UInt8>?
    var s0: Int32
    var p1: UnsafeMutablePointer<UInt8>? = nil
    var s1: Int32 = 0
    var p2: UnsafeMutablePointer<UInt8>? = nil
    var s2: Int32 = 0
}

/// The memory layouts the converter knows, named as libyuv names them
/// (libyuv's "ARGB" is bytes B, G, R, A in memory). `x…` layouts carry a
/// padding byte or bit where the `a…` ones carry alpha. Each is the layout
/// of one V4L2 format (`fourcc`); its planes, row sizes and rows are that
/// format's entry in PixelFormatTable. Which layout reads which FourCC and
/// which libyuv calls join them is the converter's own routing.
enum PixelLayout: Int, Hashable, CaseIterable, Sendable {
    case i420, i422, i444, nv12, nv21, nv16, nv61, nv24, nv42
    case yuy2, yvyu, uyvy, vyuy, i400
    case raw, rgb24
    case argb, xrgb, abgr, xbgr, bgra, xbgra, rgba, xrgba
    case rgb565, argb1555, xrgb1555, argb4444, xrgb4444

    /// The V4L2 format whose bytes are laid out as this layout.
    var fourcc: FourCC {
        switch self {
        case .i420: return .i420
        case .i422: return .yuv422p
        case .i444: return FourCC("YM24")
        case .nv12: return .nv12
        case .nv21: return .nv21
        case .nv16: return .nv16
        case .nv61: return .nv61
        case .nv24: return FourCC("NV24")
        case .nv42: return FourCC("NV42")
        case .yuy2: return .yuyv
        case .yvyu: return .yvyu
        case .uyvy: return .uyvy
        case .vyuy: return .vyuy
        case .i400: return .grey
        case .raw: return .rgb24            // R G B
        case .rgb24: return .bgr24          // B G R
        case .argb: return FourCC("AR24")   // B G R A
        case .xrgb: return FourCC("XR24")   // B G R X
        case .abgr: return FourCC("AB24")   // R G B A
        case .xbgr: return FourCC("XB24")   // R G B X
        case .bgra: return FourCC("BA24")   // A R G B
        case .xbgra: return FourCC("BX24")  // X R G B
        case .rgba: return FourCC("RA24")   // A B G R
        case .xrgba: return FourCC("RX24")  // X B G R
        case .rgb565: return FourCC("RGBP")
        case .argb1555: return FourCC("AR15")
        case .xrgb1555: return FourCC("XR15")
        case .argb4444: return FourCC("AR12")
        case .xrgb4444: return FourCC("XR12")
        }
    }

    /// The table entry of `fourcc`, resolved once per layout (an array
    /// index on the frame path). Every layout's FourCC is in the table
    /// (PixelFormatTableTests checks it).
    var info: PixelFormatInfo { PixelLayout.infos[rawValue] }
    private static let infos: [PixelFormatInfo] = allCases.map { PixelFormatTable.info($0.fourcc)! }

    /// The layout of a V4L2 source format, and whether its planes 1 and 2 are V, U.
    static func source(_ f: FourCC) -> (PixelLayout, swapUV: Bool)? {
        guard let info = PixelFormatTable.info(f), !info.isCompressed else { return nil }
        if info.planeCount > 1 {
            // (Semi-)planar formats read as the layout of the same planes and
            // subsampling, whether in one buffer or one per plane (YM12 as
            // YU12, NM12 as NV12). Semi-planar layouts differ by chroma
            // order; three-plane ones take Cr-first formats (YV12, YM21,
            // YM61, YM42) with planes 1 and 2 swapped.
            let layout = allCases.first { l in
                let i = l.info
                return i.planeCount == info.planeCount && i.horizontalSubsampling == info.horizontalSubsampling
                    && i.verticalSubsampling == info.verticalSubsampling
                    && (info.planeCount == 3 ? !i.isCrFirst : i.isCrFirst == info.isCrFirst)
            }
            return layout.map { ($0, info.planeCount == 3 && info.isCrFirst) }
        }
        if let own = allCases.first(where: { $0.fourcc == f }) { return (own, false) }
        // V4L2's older names for the same bytes.
        switch f {
        case FourCC("BGR4"): return (.xrgb, false)      // B G R X
        case FourCC("RGB4"): return (.xbgra, false)     // X R G B
        case FourCC("RGBO"): return (.xrgb1555, false)
        case FourCC("R444"): return (.xrgb4444, false)
        default: return nil
        }
    }

    /// The layout of an output format (SPEC S8's list).
    static func target(_ f: FourCC) -> PixelLayout? {
        let targets: [PixelLayout] = [.i420, .nv12, .yuy2, .raw, .rgb24, .abgr]
        return targets.first { $0.fourcc == f }
    }

    var planeCount: Int { info.planeCount }

    /// Bytes one row of plane `i` needs at `width` pixels.
    func rowBytes(_ i: Int, _ width: Int) -> Int { info.rowBytes(plane: i, width: width) ?? 0 }

    /// Rows of plane `i` at `height` pixels.
    func rows(_ i: Int, _ height: Int) -> Int { info.rows(plane: i, height: height) ?? 0 }

    /// Chroma stride of a frame in one buffer whose luma stride is `s`
    /// (V4L2's rule, as PlaneLayout applies it).
    func contiguousChromaStride(_ s: Int) -> Int { info.contiguousStride(plane: 1, lumaStride: s) }

    /// Bytes of a tightly packed image.
    func bytes(_ w: Int, _ h: Int) -> Int { info.frameBytes(width: w, height: h) ?? 0 }

    /// A tightly packed image at `base`.
    func image(_ base: UnsafeMutableRawPointer, _ w: Int, _ h: Int) -> PixelImage {
        let b = base.assumingMemoryBound(to: UInt8.self)
        var image = PixelImage(p0: b, s0: Int32(rowBytes(0, w)))
        if planeCount > 1 {
            let o1 = rowBytes(0, w) * rows(0, h)
            image.p1 = b + o1; image.s1 = Int32(rowBytes(1, w))
            if planeCount > 2 {
                image.p2 = b + o1 + rowBytes(1, w) * rows(1, h); image.s2 = Int32(rowBytes(2, w))
            }
        }
        return image
    }

    var isRGB: Bool { info.encoding == .rgb }

    /// Chroma samples per 2×2 pixels: 4 for 4:4:4 and RGB, 2 for 4:2:2, 1 for 4:2:0.
    var chromaResolution: Int {
        if self == .i400 { return 0 }
        return 4 / (info.horizontalSubsampling * info.verticalSubsampling)
    }

    /// The alpha layout's padding twin, and back.
    var withoutAlpha: PixelLayout? {
        switch self {
        case .argb: return .xrgb
        case .abgr: return .xbgr
        case .bgra: return .xbgra
        case .rgba: return .xrgba
        case .argb1555: return .xrgb1555
        case .argb4444: return .xrgb4444
        default: return nil
        }
    }
}

/// One libyuv call turning an image of one layout into another.
struct ConversionCall: @unchecked Sendable {
    typealias Call = (_ src: PixelImage, _ dst: PixelImage, _ width: Int32, _ height: Int32) -> Int32
    let from: PixelLayout
    let to: PixelLayout
    /// The libyuv function (with a note when planes or channels are swapped).
    let name: String
    let call: Call

    /// What the call costs a frame: one pass, a little per output byte,
    /// more for a YUV↔RGB matrix and for each halving of the chroma, and
    /// one pass more for a YUV→RGB matrix that writes 3-byte pixels:
    /// libyuv's 24-bit rows cost about a 32-bit row plus a repack
    /// (callgrind, 640x480, instructions per pixel: I422ToRAW 3.25,
    /// I420ToRAW 3.25, NV12ToRAW 3.11 against I422ToARGB 2.25, YUY2ToARGB
    /// 1.94, ARGBToRAW 0.84). So a source with a direct 32-bit matrix call
    /// goes through it: YUYV→RGB3 is YUY2ToARGB + ARGBToRAW (2.78), not
    /// YUY2ToI422 + I422ToRAW (4.21), the same bytes. (I420ToRAW stays one
    /// call: I420ToARGB + ARGBToRAW, 3.14, is no real saving.)
    var cost: Double {
        var c = 1.0 + Double(to.bytes(2, 2)) / 4 * 0.01
        let fromRGB = from.isRGB, toRGB = to.isRGB
        if from != .i400 && fromRGB != toRGB { c += 0.5 }
        if from != .i400 && !fromRGB && toRGB && to.bytes(2, 2) == 12 { c += 1 }
        if to.chromaResolution < from.chromaResolution && from != .i400 {
            var r = from.chromaResolution
            while r > to.chromaResolution { c += 0.5; r /= 2 }
        }
        return c
    }
}

/// libyuv's conversions as a graph; a route is the cheapest path.
enum ConversionGraph {
    /// The calls from `from` to `to`, cheapest first found; a copy when they are equal.
    static func plan(from: PixelLayout, to: PixelLayout) -> [ConversionCall]? {
        if from == to { return edges.first { $0.from == from && $0.to == to }.map { [$0] } }
        var cost: [PixelLayout: Double] = [from: 0]
        var via: [PixelLayout: ConversionCall] = [:]
        var done: Set<PixelLayout> = []
        while let (node, c) = cost.filter({ !done.contains($0.key) })
            .min(by: { $0.value < $1.value || ($0.value == $1.value && "\($0.key)" < "\($1.key)") }) {
            if node == to { break }
            done.insert(node)
            for edge in edges where edge.from == node && edge.to != node && !done.contains(edge.to) {
                let next = c + edge.cost
                if next < (cost[edge.to] ?? .infinity) {
                    cost[edge.to] = next; via[edge.to] = edge
                }
            }
        }
        guard cost[to] != nil else { return nil }
        var path: [ConversionCall] = []
        var node = to
        while node != from, let edge = via[node] { path.insert(edge, at: 0); node = edge.from }
        return path
    }

    /// Every call, each listed once for its alpha layout; the padding
    /// twins get the same calls except into a layout with alpha.
    static let edges: [ConversionCall] = {
        var list = baseEdges
        for e in baseEdges {
            guard let x = e.from.withoutAlpha else { continue }
            // Into a layout with alpha: into its padding twin instead.
            let to = e.from == e.to ? x : (e.to.withoutAlpha ?? e.to)
            list.append(ConversionCall(from: x, to: to, name: e.name, call: e.call))
        }
        return list
    }()

    private static func e(_ from: PixelLayout, _ to: PixelLayout, _ name: String,
                          _ call: @escaping ConversionCall.Call) -> ConversionCall {
        ConversionCall(from: from, to: to, name: name, call: call)
    }

    private static func copy(_ layout: PixelLayout) -> ConversionCall {
        e(layout, layout, "CopyPlane") { s, d, w, h in
            CopyPlane(s.p0, s.s0, d.p0, d.s0, Int32(layout.rowBytes(0, Int(w))), h); return 0
        }
    }

    private static let baseEdges: [ConversionCall] = [
        // Packed 4:2:2.
        e(.yuy2, .i420, "YUY2ToI420") { s, d, w, h in YUY2ToI420(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.yuy2, .nv12, "YUY2ToNV12") { s, d, w, h in YUY2ToNV12(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, w, h) },
        e(.yuy2, .i422, "YUY2ToI422") { s, d, w, h in YUY2ToI422(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.yuy2, .argb, "YUY2ToARGB") { s, d, w, h in YUY2ToARGB(s.p0, s.s0, d.p0, d.s0, w, h) },
        copy(.yuy2),
        e(.yvyu, .i420, "YUY2ToI420 (U/V swapped)") { s, d, w, h in YUY2ToI420(s.p0, s.s0, d.p0, d.s0, d.p2, d.s2, d.p1, d.s1, w, h) },
        e(.yvyu, .i422, "YUY2ToI422 (U/V swapped)") { s, d, w, h in YUY2ToI422(s.p0, s.s0, d.p0, d.s0, d.p2, d.s2, d.p1, d.s1, w, h) },
        e(.uyvy, .i420, "UYVYToI420") { s, d, w, h in UYVYToI420(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.uyvy, .nv12, "UYVYToNV12") { s, d, w, h in UYVYToNV12(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, w, h) },
        e(.uyvy, .i422, "UYVYToI422") { s, d, w, h in UYVYToI422(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.uyvy, .argb, "UYVYToARGB") { s, d, w, h in UYVYToARGB(s.p0, s.s0, d.p0, d.s0, w, h) },
        e(.vyuy, .i420, "UYVYToI420 (U/V swapped)") { s, d, w, h in UYVYToI420(s.p0, s.s0, d.p0, d.s0, d.p2, d.s2, d.p1, d.s1, w, h) },
        e(.vyuy, .i422, "UYVYToI422 (U/V swapped)") { s, d, w, h in UYVYToI422(s.p0, s.s0, d.p0, d.s0, d.p2, d.s2, d.p1, d.s1, w, h) },
        // Planar 4:2:0.
        e(.i420, .i420, "I420Copy") { s, d, w, h in I420Copy(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.i420, .nv12, "I420ToNV12") { s, d, w, h in I420ToNV12(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, d.p1, d.s1, w, h) },
        e(.i420, .nv21, "I420ToNV21") { s, d, w, h in I420ToNV21(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, d.p1, d.s1, w, h) },
        e(.i420, .yuy2, "I420ToYUY2") { s, d, w, h in I420ToYUY2(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, w, h) },
        e(.i420, .uyvy, "I420ToUYVY") { s, d, w, h in I420ToUYVY(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, w, h) },
        e(.i420, .i422, "I420ToI422") { s, d, w, h in I420ToI422(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.i420, .i444, "I420ToI444") { s, d, w, h in I420ToI444(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.i420, .raw, "I420ToRAW") { s, d, w, h in I420ToRAW(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, w, h) },
        e(.i420, .rgb24, "I420ToRGB24") { s, d, w, h in I420ToRGB24(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, w, h) },
        e(.i420, .abgr, "I420ToABGR") { s, d, w, h in I420ToABGR(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, w, h) },
        e(.i420, .argb, "I420ToARGB") { s, d, w, h in I420ToARGB(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, w, h) },
        // Planar 4:2:2.
        e(.i422, .i422, "I422Copy") { s, d, w, h in I422Copy(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.i422, .i420, "I422ToI420") { s, d, w, h in I422ToI420(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.i422, .nv21, "I422ToNV21") { s, d, w, h in I422ToNV21(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, d.p1, d.s1, w, h) },
        e(.i422, .nv12, "I422ToNV21 (U/V swapped)") { s, d, w, h in I422ToNV21(s.p0, s.s0, s.p2, s.s2, s.p1, s.s1, d.p0, d.s0, d.p1, d.s1, w, h) },
        e(.i422, .yuy2, "I422ToYUY2") { s, d, w, h in I422ToYUY2(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, w, h) },
        e(.i422, .uyvy, "I422ToUYVY") { s, d, w, h in I422ToUYVY(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, w, h) },
        e(.i422, .i444, "I422ToI444") { s, d, w, h in I422ToI444(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.i422, .raw, "I422ToRAW") { s, d, w, h in I422ToRAW(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, w, h) },
        e(.i422, .rgb24, "I422ToRGB24") { s, d, w, h in I422ToRGB24(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, w, h) },
        e(.i422, .abgr, "I422ToABGR") { s, d, w, h in I422ToABGR(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, w, h) },
        e(.i422, .argb, "I422ToARGB") { s, d, w, h in I422ToARGB(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, w, h) },
        // Planar 4:4:4.
        e(.i444, .i444, "I444Copy") { s, d, w, h in I444Copy(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.i444, .i420, "I444ToI420") { s, d, w, h in I444ToI420(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.i444, .nv12, "I444ToNV12") { s, d, w, h in I444ToNV12(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, d.p1, d.s1, w, h) },
        e(.i444, .nv21, "I444ToNV21") { s, d, w, h in I444ToNV21(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, d.p1, d.s1, w, h) },
        e(.i444, .raw, "I444ToRAW") { s, d, w, h in I444ToRAW(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, w, h) },
        e(.i444, .rgb24, "I444ToRGB24") { s, d, w, h in I444ToRGB24(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, w, h) },
        e(.i444, .abgr, "I444ToABGR") { s, d, w, h in I444ToABGR(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, w, h) },
        e(.i444, .argb, "I444ToARGB") { s, d, w, h in I444ToARGB(s.p0, s.s0, s.p1, s.s1, s.p2, s.s2, d.p0, d.s0, w, h) },
        // Semi-planar.
        e(.nv12, .nv12, "NV12Copy") { s, d, w, h in NV12Copy(s.p0, s.s0, s.p1, s.s1, d.p0, d.s0, d.p1, d.s1, w, h) },
        e(.nv12, .i420, "NV12ToI420") { s, d, w, h in NV12ToI420(s.p0, s.s0, s.p1, s.s1, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.nv12, .raw, "NV12ToRAW") { s, d, w, h in NV12ToRAW(s.p0, s.s0, s.p1, s.s1, d.p0, d.s0, w, h) },
        e(.nv12, .rgb24, "NV12ToRGB24") { s, d, w, h in NV12ToRGB24(s.p0, s.s0, s.p1, s.s1, d.p0, d.s0, w, h) },
        e(.nv12, .abgr, "NV12ToABGR") { s, d, w, h in NV12ToABGR(s.p0, s.s0, s.p1, s.s1, d.p0, d.s0, w, h) },
        e(.nv12, .argb, "NV12ToARGB") { s, d, w, h in NV12ToARGB(s.p0, s.s0, s.p1, s.s1, d.p0, d.s0, w, h) },
        e(.nv21, .nv21, "NV21Copy") { s, d, w, h in NV21Copy(s.p0, s.s0, s.p1, s.s1, d.p0, d.s0, d.p1, d.s1, w, h) },
        e(.nv21, .i420, "NV21ToI420") { s, d, w, h in NV21ToI420(s.p0, s.s0, s.p1, s.s1, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.nv21, .nv12, "NV21ToNV12") { s, d, w, h in NV21ToNV12(s.p0, s.s0, s.p1, s.s1, d.p0, d.s0, d.p1, d.s1, w, h) },
        e(.nv21, .raw, "NV21ToRAW") { s, d, w, h in NV21ToRAW(s.p0, s.s0, s.p1, s.s1, d.p0, d.s0, w, h) },
        e(.nv21, .rgb24, "NV21ToRGB24") { s, d, w, h in NV21ToRGB24(s.p0, s.s0, s.p1, s.s1, d.p0, d.s0, w, h) },
        e(.nv21, .abgr, "NV21ToABGR") { s, d, w, h in NV21ToABGR(s.p0, s.s0, s.p1, s.s1, d.p0, d.s0, w, h) },
        e(.nv21, .argb, "NV21ToARGB") { s, d, w, h in NV21ToARGB(s.p0, s.s0, s.p1, s.s1, d.p0, d.s0, w, h) },
        e(.nv16, .i422, "CopyPlane+SplitUVPlane") { s, d, w, h in
            CopyPlane(s.p0, s.s0, d.p0, d.s0, w, h)
            SplitUVPlane(s.p1, s.s1, d.p1, d.s1, d.p2, d.s2, (w + 1) / 2, h); return 0
        },
        e(.nv61, .i422, "CopyPlane+SplitUVPlane (U/V swapped)") { s, d, w, h in
            CopyPlane(s.p0, s.s0, d.p0, d.s0, w, h)
            SplitUVPlane(s.p1, s.s1, d.p2, d.s2, d.p1, d.s1, (w + 1) / 2, h); return 0
        },
        e(.nv24, .i444, "CopyPlane+SplitUVPlane") { s, d, w, h in
            CopyPlane(s.p0, s.s0, d.p0, d.s0, w, h)
            SplitUVPlane(s.p1, s.s1, d.p1, d.s1, d.p2, d.s2, w, h); return 0
        },
        e(.nv42, .i444, "CopyPlane+SplitUVPlane (U/V swapped)") { s, d, w, h in
            CopyPlane(s.p0, s.s0, d.p0, d.s0, w, h)
            SplitUVPlane(s.p1, s.s1, d.p2, d.s2, d.p1, d.s1, w, h); return 0
        },
        // Grey: luma only; as RGB it is intensity (J400, full range).
        copy(.i400),
        e(.i400, .i420, "I400ToI420") { s, d, w, h in I400ToI420(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.i400, .nv21, "I400ToNV21") { s, d, w, h in I400ToNV21(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, w, h) },
        e(.i400, .nv12, "I400ToNV21 (neutral chroma)") { s, d, w, h in I400ToNV21(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, w, h) },
        e(.i400, .argb, "J400ToARGB") { s, d, w, h in J400ToARGB(s.p0, s.s0, d.p0, d.s0, w, h) },
        e(.i400, .abgr, "J400ToARGB (grey: same bytes)") { s, d, w, h in J400ToARGB(s.p0, s.s0, d.p0, d.s0, w, h) },
        // 24-bit RGB. Swapping R and B is its own inverse, so RAWToRGB24
        // serves both ways, and ABGR is ARGB with R and B swapped.
        copy(.raw),
        e(.raw, .i420, "RAWToI420") { s, d, w, h in RAWToI420(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.raw, .rgb24, "RAWToRGB24") { s, d, w, h in RAWToRGB24(s.p0, s.s0, d.p0, d.s0, w, h) },
        e(.raw, .argb, "RAWToARGB") { s, d, w, h in RAWToARGB(s.p0, s.s0, d.p0, d.s0, w, h) },
        e(.raw, .abgr, "RGB24ToARGB (R/B swapped)") { s, d, w, h in RGB24ToARGB(s.p0, s.s0, d.p0, d.s0, w, h) },
        copy(.rgb24),
        e(.rgb24, .i420, "RGB24ToI420") { s, d, w, h in RGB24ToI420(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.rgb24, .raw, "RAWToRGB24 (R/B swapped)") { s, d, w, h in RAWToRGB24(s.p0, s.s0, d.p0, d.s0, w, h) },
        e(.rgb24, .argb, "RGB24ToARGB") { s, d, w, h in RGB24ToARGB(s.p0, s.s0, d.p0, d.s0, w, h) },
        e(.rgb24, .abgr, "RAWToARGB (R/B swapped)") { s, d, w, h in RAWToARGB(s.p0, s.s0, d.p0, d.s0, w, h) },
        // 32-bit RGB.
        e(.argb, .argb, "ARGBCopy") { s, d, w, h in ARGBCopy(s.p0, s.s0, d.p0, d.s0, w, h) },
        e(.argb, .i420, "ARGBToI420") { s, d, w, h in ARGBToI420(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.argb, .nv12, "ARGBToNV12") { s, d, w, h in ARGBToNV12(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, w, h) },
        e(.argb, .nv21, "ARGBToNV21") { s, d, w, h in ARGBToNV21(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, w, h) },
        e(.argb, .yuy2, "ARGBToYUY2") { s, d, w, h in ARGBToYUY2(s.p0, s.s0, d.p0, d.s0, w, h) },
        e(.argb, .uyvy, "ARGBToUYVY") { s, d, w, h in ARGBToUYVY(s.p0, s.s0, d.p0, d.s0, w, h) },
        e(.argb, .i422, "ARGBToI422") { s, d, w, h in ARGBToI422(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.argb, .i444, "ARGBToI444") { s, d, w, h in ARGBToI444(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.argb, .raw, "ARGBToRAW") { s, d, w, h in ARGBToRAW(s.p0, s.s0, d.p0, d.s0, w, h) },
        e(.argb, .rgb24, "ARGBToRGB24") { s, d, w, h in ARGBToRGB24(s.p0, s.s0, d.p0, d.s0, w, h) },
        e(.argb, .abgr, "ARGBToABGR") { s, d, w, h in ARGBToABGR(s.p0, s.s0, d.p0, d.s0, w, h) },
        e(.abgr, .abgr, "ARGBCopy") { s, d, w, h in ARGBCopy(s.p0, s.s0, d.p0, d.s0, w, h) },
        e(.abgr, .i420, "ABGRToI420") { s, d, w, h in ABGRToI420(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.abgr, .nv12, "ABGRToNV12") { s, d, w, h in ABGRToNV12(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, w, h) },
        e(.abgr, .nv21, "ABGRToNV21") { s, d, w, h in ABGRToNV21(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, w, h) },
        e(.abgr, .raw, "ARGBToRGB24 (R/B swapped)") { s, d, w, h in ARGBToRGB24(s.p0, s.s0, d.p0, d.s0, w, h) },
        e(.abgr, .rgb24, "ARGBToRAW (R/B swapped)") { s, d, w, h in ARGBToRAW(s.p0, s.s0, d.p0, d.s0, w, h) },
        e(.abgr, .argb, "ABGRToARGB") { s, d, w, h in ABGRToARGB(s.p0, s.s0, d.p0, d.s0, w, h) },
        e(.bgra, .i420, "BGRAToI420") { s, d, w, h in BGRAToI420(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.bgra, .argb, "BGRAToARGB") { s, d, w, h in BGRAToARGB(s.p0, s.s0, d.p0, d.s0, w, h) },
        e(.rgba, .i420, "RGBAToI420") { s, d, w, h in RGBAToI420(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.rgba, .argb, "RGBAToARGB") { s, d, w, h in RGBAToARGB(s.p0, s.s0, d.p0, d.s0, w, h) },
        // 16-bit RGB.
        e(.rgb565, .i420, "RGB565ToI420") { s, d, w, h in RGB565ToI420(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.rgb565, .argb, "RGB565ToARGB") { s, d, w, h in RGB565ToARGB(s.p0, s.s0, d.p0, d.s0, w, h) },
        e(.argb1555, .i420, "ARGB1555ToI420") { s, d, w, h in ARGB1555ToI420(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.argb1555, .argb, "ARGB1555ToARGB") { s, d, w, h in ARGB1555ToARGB(s.p0, s.s0, d.p0, d.s0, w, h) },
        e(.argb4444, .i420, "ARGB4444ToI420") { s, d, w, h in ARGB4444ToI420(s.p0, s.s0, d.p0, d.s0, d.p1, d.s1, d.p2, d.s2, w, h) },
        e(.argb4444, .argb, "ARGB4444ToARGB") { s, d, w, h in ARGB4444ToARGB(s.p0, s.s0, d.p0, d.s0, w, h) },
    ]
}
