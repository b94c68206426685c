// SPDX-License-Identifier: MIT
internal import CYuv

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
