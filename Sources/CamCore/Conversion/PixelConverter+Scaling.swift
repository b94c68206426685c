// SPDX-License-Identifier: MIT
internal import CYuv

/// PixelConverter's output size (SPEC S38): the limits and the check of an
/// asked size, the plan a raw frame follows to it (convert, scale,
/// convert), and the libyuv scale calls. An MJPEG frame reaches its output
/// size through TurboJPEG's DCT scale and the per-plane scale of
/// PixelConverter+MJPEG.swift.
extension PixelConverter {
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

    /// A raw frame to an output size: `pre` converts the source into
    /// `layout` at the source size (into `atSource`; empty when the source
    /// is that layout), one libyuv scale writes `layout` at the output size
    /// (into `atOutput`, nil: the destination), `post` converts it to the
    /// target (empty when `layout` is the target).
    struct Scaling {
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

    /// A raw frame converted to the scaled layout, scaled, converted to the target.
    func runScaled(_ s: Scaling, _ input: PixelImage, _ destination: PixelImage) -> Bool {
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
}
