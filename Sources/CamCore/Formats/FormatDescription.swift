// SPDX-License-Identifier: MIT
/// The frame sizes a format offers (V4L2 VIDIOC_ENUM_FRAMESIZES, SPEC S5).
/// Ranges stay ranges: never blown up into lists.
package enum SizeRange: Sendable, Equatable {
    case discrete(width: Int, height: Int)
    case stepwise(minWidth: Int, maxWidth: Int, stepWidth: Int,
                  minHeight: Int, maxHeight: Int, stepHeight: Int)
    /// Any size in the range (V4L2 continuous: step 1).
    case continuous(minWidth: Int, maxWidth: Int, minHeight: Int, maxHeight: Int)

    /// The size itself, or a range's largest size, in pixels.
    package var largest: (width: Int, height: Int) {
        switch self {
        case .discrete(let w, let h): return (w, h)
        case .stepwise(_, let w, _, _, let h, _): return (w, h)
        case .continuous(_, let w, _, let h): return (w, h)
        }
    }
}

/// The frame rates a format offers at one size (VIDIOC_ENUM_FRAMEINTERVALS).
package enum RateRange: Sendable, Equatable {
    /// A list of rates, highest first.
    case discrete([FrameRate])
    /// From `min` to `max` fps; `intervalStep` is the step of the frame
    /// interval in seconds (numerator, denominator).
    case stepwise(min: FrameRate, max: FrameRate, intervalStep: FrameRate)
    case continuous(min: FrameRate, max: FrameRate)
    /// The driver does not enumerate intervals.
    case unknown

    package var maximum: FrameRate? {
        switch self {
        case .discrete(let r): return r.max()
        case .stepwise(_, let m, _), .continuous(_, let m): return m
        case .unknown: return nil
        }
    }
    package var minimum: FrameRate? {
        switch self {
        case .discrete(let r): return r.min()
        case .stepwise(let m, _, _), .continuous(let m, _): return m
        case .unknown: return nil
        }
    }
}

/// One pixel format at one size (or size range) with its rates (SPEC S5).
package struct FormatDescription: Sendable, Equatable {
    package var fourcc: FourCC
    /// The driver's description, e.g. "YUYV 4:2:2".
    package var description: String
    /// V4L2_FMT_FLAG_COMPRESSED.
    package var isCompressed: Bool
    /// V4L2_FMT_FLAG_EMULATED.
    package var isEmulated: Bool
    package var size: SizeRange
    /// Rates at `size` (at the largest size for ranges).
    package var rates: RateRange

    package init(fourcc: FourCC, description: String, isCompressed: Bool = false,
                isEmulated: Bool = false, size: SizeRange, rates: RateRange) {
        self.fourcc = fourcc; self.description = description; self.isCompressed = isCompressed
        self.isEmulated = isEmulated; self.size = size; self.rates = rates
    }
}
