// SPDX-License-Identifier: MIT
/// What an app would like to capture (SPEC S6): default 1280x720 at
/// 15–30 fps, the driver's own pixel format.
package struct CapturePreference: Sendable, Equatable {
    /// Size in pixels.
    package var width: Int
    package var height: Int
    /// Frame rates the app accepts, fps.
    package var minRate: FrameRate
    package var maxRate: FrameRate
    /// The pixel format the app wants frames in; nil for native (no conversion).
    package var output: FourCC?

    package init(width: Int = 1280, height: Int = 720, minRate: FrameRate = FrameRate(15),
                maxRate: FrameRate = FrameRate(30), output: FourCC? = nil) {
        self.width = width; self.height = height; self.minRate = minRate
        self.maxRate = maxRate; self.output = output
    }
}

/// The setting chosen for a preference, and how it differs from the ask.
package struct NegotiatedFormat: Sendable, Equatable {
    package var fourcc: FourCC
    package var width: Int
    package var height: Int
    /// The chosen rate; nil when the driver does not enumerate rates.
    package var rate: FrameRate?

    /// What differs from the preference (S6's Valid / Adjusted).
    package struct Adjustments: OptionSet, Sendable {
        package let rawValue: UInt32
        package init(rawValue: UInt32) { self.rawValue = rawValue }
        /// The size is not the one asked for.
        package static let size = Adjustments(rawValue: 1)
        /// The rate is outside min...max.
        package static let rate = Adjustments(rawValue: 2)
        /// The pixel format is not the output format asked for.
        package static let format = Adjustments(rawValue: 4)
    }
    package var adjustments: Adjustments
    package var isAdjusted: Bool { !adjustments.isEmpty }
}

/// SPEC S6's choice of format, size and rate, and S7's `format_for` and
/// `max_frame_rate`. Pure functions of a format table: deterministic, and
/// ranges are never expanded into lists.
package enum Negotiation {
    /// One concrete option: a pixel format at one size with its rates.
    struct Candidate {
        var fourcc: FourCC
        var isCompressed: Bool
        var width: Int
        var height: Int
        var rates: RateRange
        /// Order in the driver's table: the last tie-breaker.
        var order: Int
    }

    /// The nearest size a size range offers for a request: the smallest at
    /// or above it, snapped to the step, else the largest.
    static func fit(_ size: SizeRange, width: Int, height: Int) -> (Int, Int) {
        func snap(_ v: Int, _ lo: Int, _ hi: Int, _ step: Int) -> Int {
            if v <= lo { return lo }
            if v >= hi { return hi }
            let s = max(step, 1)
            let up = lo + (v - lo + s - 1) / s * s
            return up > hi ? hi : up
        }
        switch size {
        case .discrete(let w, let h): return (w, h)
        case .stepwise(let minW, let maxW, let sw, let minH, let maxH, let sh):
            return (snap(width, minW, maxW, sw), snap(height, minH, maxH, sh))
        case .continuous(let minW, let maxW, let minH, let maxH):
            return (snap(width, minW, maxW, 1), snap(height, minH, maxH, 1))
        }
    }

    static func candidates(_ formats: [FormatDescription], width: Int, height: Int) -> [Candidate] {
        formats.enumerated().map { i, f in
            let (w, h) = fit(f.size, width: width, height: height)
            return Candidate(fourcc: f.fourcc, isCompressed: f.isCompressed, width: w, height: h,
                             rates: f.rates, order: i)
        }
    }

    /// True when the rates reach `rate` (some rate at or above it).
    static func reaches(_ rates: RateRange, _ rate: FrameRate) -> Bool {
        guard let hi = rates.maximum else { return false }
        return hi >= rate
    }

    /// The highest rate of `rates` not above `limit`; if every rate is
    /// above it, the lowest rate. Ranges are snapped to their interval step.
    static func highestRate(_ rates: RateRange, notAbove limit: FrameRate) -> FrameRate? {
        switch rates {
        case .unknown: return nil
        case .discrete(let list):
            return list.filter { $0 <= limit }.max() ?? list.min()
        case .continuous(let lo, let hi):
            return limit > hi ? hi : (limit < lo ? lo : limit)
        case .stepwise(let lo, let hi, let step):
            if limit >= hi { return hi }
            if limit <= lo { return lo }
            // Intervals run from 1/hi up in steps: the smallest interval
            // >= 1/limit is the highest rate <= limit.
            let minI = (Double(hi.denominator) / Double(hi.numerator))
            let want = Double(limit.denominator) / Double(limit.numerator)
            let s = step.denominator == 0 ? 0 : Double(step.numerator) / Double(step.denominator)
            if s <= 0 { return limit }
            let k = ((want - minI) / s).rounded(.up)
            let interval = minI + k * s
            return FrameRate(UInt32((1e6 / interval).rounded()), 1_000_000)
        }
    }

    /// Log-distance of two aspect ratios (0 = equal).
    static func aspectDistance(_ w: Int, _ h: Int, _ rw: Int, _ rh: Int) -> Double {
        let a = Double(w) / Double(max(h, 1)), b = Double(rw) / Double(max(rh, 1))
        let d = a > b ? a / b : b / a
        return d < 1.005 ? 0 : d   // within 0.5 %: the same shape
    }

    /// Work needed to deliver `fourcc` as `output`: 0 none, 1 raw
    /// conversion, 2 decompression.
    static func work(_ c: Candidate, output: FourCC?) -> Int {
        if let output, c.fourcc == output { return 0 }
        if output == nil && !c.isCompressed { return 0 }
        return c.isCompressed ? 2 : 1
    }

    /// S6: the setting nearest to `preference` among `formats`.
    /// Returns nil only for an empty table.
    package static func choose(_ formats: [FormatDescription], for p: CapturePreference) -> NegotiatedFormat? {
        var pool = candidates(formats, width: p.width, height: p.height)
        if pool.isEmpty { return nil }
        // (1) only formats whose rates reach the minimum, if any do.
        let fast = pool.filter { reaches($0.rates, p.minRate) }
        if !fast.isEmpty { pool = fast }
        // (2) nearest aspect ratio.
        let bestAspect = pool.map { aspectDistance($0.width, $0.height, p.width, p.height) }.min()!
        pool = pool.filter { aspectDistance($0.width, $0.height, p.width, p.height) == bestAspect }
        // (3) smallest size at or above the request, else the largest below.
        let above = pool.filter { $0.width >= p.width && $0.height >= p.height }
        if !above.isEmpty {
            let area = above.map { $0.width * $0.height }.min()!
            pool = above.filter { $0.width * $0.height == area }
        } else {
            let area = pool.map { $0.width * $0.height }.max()!
            pool = pool.filter { $0.width * $0.height == area }
        }
        // (4) least work: the output format, then raw, then compressed.
        let least = pool.map { work($0, output: p.output) }.min()!
        pool = pool.filter { work($0, output: p.output) == least }
        // (5) the highest rate not above the maximum; ties keep driver order.
        let best = pool.max { a, b in
            let ra = highestRate(a.rates, notAbove: p.maxRate), rb = highestRate(b.rates, notAbove: p.maxRate)
            let ka = rateKey(ra, p.maxRate), kb = rateKey(rb, p.maxRate)
            if ka != kb { return ka < kb }
            return a.order > b.order
        }!
        let rate = highestRate(best.rates, notAbove: p.maxRate)
        var adj: NegotiatedFormat.Adjustments = []
        if best.width != p.width || best.height != p.height { adj.insert(.size) }
        if let r = rate, r < p.minRate || r > p.maxRate { adj.insert(.rate) }
        if let o = p.output, o != best.fourcc { adj.insert(.format) }
        return NegotiatedFormat(fourcc: best.fourcc, width: best.width, height: best.height,
                                rate: rate, adjustments: adj)
    }

    /// Orders rates for (5): any rate not above the limit beats any above
    /// it; below the limit higher is better, above it lower is better.
    private static func rateKey(_ r: FrameRate?, _ limit: FrameRate) -> (Int, Double) {
        guard let r else { return (0, 0) }
        return r <= limit ? (2, r.fps) : (1, -r.fps)
    }

    /// S7 `format_for(width, height, fps)`: the nearest format (by S6's
    /// aspect and size rules) among those that support `fps`; nil when
    /// no format reaches it.
    package static func format(for formats: [FormatDescription], width: Int, height: Int,
                              rate: FrameRate) -> NegotiatedFormat? {
        let able = formats.filter { supports($0.rates, rate) }
        if able.isEmpty { return nil }
        return choose(able, for: CapturePreference(width: width, height: height, minRate: rate, maxRate: rate))
    }

    /// True when `rates` contains `rate` exactly (discrete) or within the range.
    static func supports(_ rates: RateRange, _ rate: FrameRate) -> Bool {
        switch rates {
        case .unknown: return false
        case .discrete(let l): return l.contains(rate)
        case .stepwise(let lo, let hi, _), .continuous(let lo, let hi): return rate >= lo && rate <= hi
        }
    }

    /// S7 `max_frame_rate(format, fps)`: `rate` if the format supports it,
    /// else its supported rate closest to it (ask 40 of a 30 fps format: 30).
    package static func maxFrameRate(_ format: FormatDescription, _ rate: FrameRate) -> FrameRate? {
        switch format.rates {
        case .unknown: return nil
        case .discrete(let l):
            if l.contains(rate) { return rate }
            return l.min { abs($0.fps - rate.fps) < abs($1.fps - rate.fps) }
        case .stepwise(let lo, let hi, _), .continuous(let lo, let hi):
            if rate > hi { return hi }
            if rate < lo { return lo }
            return highestRate(format.rates, notAbove: rate)
        }
    }

    /// S47: what to try when the bus cannot carry `failed` (ENOSPC): the
    /// same size in a compressed format first, then lower sizes, largest
    /// first — in the failed format, then compressed — each at its highest
    /// rate not above `maxRate` (the fastest the format has when nil). The
    /// failed setting itself is never among them; at most `limit`.
    package static func bandwidthFallbacks(_ formats: [FormatDescription], failed fourcc: FourCC, width: Int,
                                          height: Int, maxRate: FrameRate?, limit: Int = 8) -> [NegotiatedFormat] {
        func rate(_ f: FormatDescription) -> FrameRate? {
            maxRate.flatMap { highestRate(f.rates, notAbove: $0) } ?? f.rates.maximum
        }
        func setting(_ f: FormatDescription, _ w: Int, _ h: Int) -> NegotiatedFormat {
            var a: NegotiatedFormat.Adjustments = []
            if f.fourcc != fourcc { a.insert(.format) }
            if w != width || h != height { a.insert(.size) }
            return NegotiatedFormat(fourcc: f.fourcc, width: w, height: h, rate: rate(f), adjustments: a)
        }
        var out: [NegotiatedFormat] = []
        func add(_ n: NegotiatedFormat) {
            if out.count < limit && !out.contains(where: { ($0.fourcc, $0.width, $0.height) == (n.fourcc, n.width, n.height) })
                && !(n.fourcc == fourcc && n.width == width && n.height == height) { out.append(n) }
        }
        // The same size, compressed.
        for f in formats where f.isCompressed {
            let (w, h) = fit(f.size, width: width, height: height)
            if w == width && h == height { add(setting(f, w, h)) }
        }
        // Lower sizes: the sizes each format offers below the failed one
        // (a range offers its size nearest to the failed one's halves).
        func lower(_ f: FormatDescription) -> [(Int, Int)] {
            switch f.size {
            case .discrete(let w, let h): return w * h < width * height ? [(w, h)] : []
            default:
                return [(width * 3 / 4, height * 3 / 4), (width / 2, height / 2)].map { fit(f.size, width: $0.0, height: $0.1) }
                    .filter { $0.0 * $0.1 < width * height }
            }
        }
        var smaller: [(NegotiatedFormat, Int)] = []
        for f in formats where f.fourcc == fourcc || f.isCompressed {
            for (w, h) in lower(f) {
                // The failed format before compressed ones at each size.
                smaller.append((setting(f, w, h), f.fourcc == fourcc ? 0 : 1))
            }
        }
        smaller.sort { a, b in
            let (x, y) = (a.0.width * a.0.height, b.0.width * b.0.height)
            return x != y ? x > y : a.1 < b.1
        }
        for (n, _) in smaller { add(n) }
        return out
    }
}
