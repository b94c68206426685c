// SPDX-License-Identifier: MIT

/// PixelConverter's scratch buffers: one allocation per chain of libyuv
/// calls, holding the intermediate images its steps write (made at init;
/// nothing is allocated per frame).
extension PixelConverter {
    /// One buffer holding two scratch images (for odd and even steps) big
    /// enough for every intermediate of `plans`, and each plan's images.
    static func allocateScratch(_ plans: [[ConversionCall]], _ w: Int, _ h: Int)
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

    static func steps(_ plan: [ConversionCall], _ outputs: [PixelImage?]) -> [Step] {
        zip(plan, outputs).map { Step(edge: $0, output: $1) }
    }
}
