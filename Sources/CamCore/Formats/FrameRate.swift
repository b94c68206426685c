// SPDX-License-Identifier: MIT
/// A frame rate in frames per second as an exact fraction (30/1,
/// 30000/1001). V4L2 speaks in frame intervals (seconds per frame); a rate
/// is the interval turned over, kept as a fraction so that 12375/742500 s
/// stays 60 fps rather than rounding to 0 (SPEC S6).
package struct FrameRate: Hashable, Sendable, CustomStringConvertible, Comparable {
    package var numerator: UInt32
    package var denominator: UInt32

    /// `numerator`/`denominator` fps; the fraction is reduced.
    package init(_ numerator: UInt32, _ denominator: UInt32 = 1) {
        let g = FrameRate.gcd(numerator, denominator)
        self.numerator = g == 0 ? numerator : numerator / g
        self.denominator = g == 0 ? denominator : denominator / g
    }

    /// The rate of a V4L2 frame interval of `numerator`/`denominator` seconds.
    package init(interval numerator: UInt32, _ denominator: UInt32) {
        self.init(denominator, numerator)
    }

    /// The V4L2 frame interval (seconds per frame) as (numerator, denominator).
    package var interval: (numerator: UInt32, denominator: UInt32) { (denominator, numerator) }

    /// Frames per second as a Double; 0 when the denominator is 0.
    package var fps: Double { denominator == 0 ? 0 : Double(numerator) / Double(denominator) }

    /// Nanoseconds between frames; 0 for an invalid rate.
    package var frameDurationNs: UInt64 {
        numerator == 0 ? 0 : UInt64(denominator) * 1_000_000_000 / UInt64(numerator)
    }

    package var isValid: Bool { numerator != 0 && denominator != 0 }

    package var description: String { denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)" }

    package static func < (a: FrameRate, b: FrameRate) -> Bool {
        UInt64(a.numerator) * UInt64(b.denominator) < UInt64(b.numerator) * UInt64(a.denominator)
    }
    package static func == (a: FrameRate, b: FrameRate) -> Bool {
        UInt64(a.numerator) * UInt64(b.denominator) == UInt64(b.numerator) * UInt64(a.denominator)
    }
    package func hash(into h: inout Hasher) {
        let r = FrameRate(numerator, denominator)
        h.combine(r.numerator); h.combine(r.denominator)
    }

    static func gcd(_ a: UInt32, _ b: UInt32) -> UInt32 {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return x
    }
}
