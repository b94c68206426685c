// SPDX-License-Identifier: MIT
/// What an app asks a capture to use (SPEC S17).
package struct CaptureRequest: Sendable, Equatable {
    package var fourcc: FourCC
    /// Size in pixels.
    package var width: Int
    package var height: Int
    /// Frame rate in fps; nil keeps the driver's rate.
    package var frameRate: FrameRate?
    /// Capture buffers to ask for, 2...32.
    package var bufferCount: Int
    /// The pixel format frames are delivered in; nil delivers the
    /// driver's buffers as they are, without a copy (S8 "native").
    package var output: FourCC?
    /// Export each buffer as DMA-BUF fds (S37, VIDIOC_EXPBUF) and give
    /// every plane its fd and offset. V4L2 native frames only.
    package var dmabuf: Bool = false
    /// The size frames are delivered at, pixels (S38); 0×0 (the default)
    /// delivers the negotiated size. Needs `output`: camcore scales with
    /// libyuv (MJPEG: decoded at a DCT scale first), see PixelConverter.
    package var outputWidth: Int = 0
    package var outputHeight: Int = 0
    /// S48: a stream that stalls this long (ms) is restarted (stream off
    /// and on again); 0 never restarts. Default 3000.
    package var stallRestartMs: Int = 3000
    /// S48: restarts tried before the stall ends the stream (a timeout
    /// error); each frame that comes resets the count. Default 3.
    package var stallRestartTries: Int = 3
    /// S45: turn the converted output by 0, 90, 180 or 270 degrees
    /// clockwise (90 and 270 swap width and height), e.g. to show a sensor
    /// mounted rotated (DeviceInfo.rotation) upright. Needs `output`.
    package var outputRotation: Int = 0

    package init(fourcc: FourCC = .yuyv, width: Int = 640, height: Int = 480,
                frameRate: FrameRate? = FrameRate(30), bufferCount: Int = 4, output: FourCC? = nil,
                dmabuf: Bool = false, outputWidth: Int = 0, outputHeight: Int = 0) {
        self.fourcc = fourcc; self.width = width; self.height = height
        self.frameRate = frameRate; self.bufferCount = bufferCount; self.output = output
        self.dmabuf = dmabuf
        self.outputWidth = outputWidth; self.outputHeight = outputHeight
    }

    /// True when an output size (S38) is asked.
    package var scales: Bool { outputWidth != 0 || outputHeight != 0 }

    /// Checks an output size (S38) on its own, before any device is
    /// touched: 0×0 (none), or both sides in 1...16384 with an output
    /// format, even where that format's chroma needs it. Throws
    /// invalidArgument saying which rule failed; the size against the
    /// captured one is checked at start (PixelConverter.checkOutputSize).
    package static func checkOutputSize(_ w: Int, _ h: Int, output: FourCC?) throws(CamError) {
        if w == 0 && h == 0 { return }
        guard w > 0, h > 0 else {
            throw .invalidArgument("output size \(w)x\(h): give both sides, or 0x0 for the negotiated size")
        }
        guard let output else {
            throw .invalidArgument("output size \(w)x\(h) needs an output format (I420, NV12, YUYV, RGB24, BGR24, RGBA): camcore scales only what it converts")
        }
        guard w <= PixelConverter.maxOutputSide, h <= PixelConverter.maxOutputSide else {
            throw .invalidArgument("output size \(w)x\(h) is outside 1...\(PixelConverter.maxOutputSide)")
        }
        try checkOutputParity(w, h, output: output)
    }

    /// Even sides where the output format's chroma covers two pixels:
    /// I420 and NV12 need an even width and height, YUYV an even width.
    static func checkOutputParity(_ w: Int, _ h: Int, output: FourCC) throws(CamError) {
        let needsEvenWidth = output == .i420 || output == .nv12 || output == .yuyv
        let needsEvenHeight = output == .i420 || output == .nv12
        if (needsEvenWidth && w % 2 != 0) || (needsEvenHeight && h % 2 != 0) {
            throw .invalidArgument("output size \(w)x\(h) must be even\(needsEvenHeight ? "" : " in width") for \(output) (its chroma covers 2 pixels)")
        }
    }

    /// Throws invalidArgument for sizes, rates or buffer counts no camera can use.
    package func validate() throws(CamError) {
        guard width > 0, height > 0, width <= 65536, height <= 65536 else {
            throw .invalidArgument("size \(width)x\(height) is out of range (1...65536)")
        }
        guard (2...32).contains(bufferCount) else {
            throw .invalidArgument("buffer_count \(bufferCount) is out of range (2...32)")
        }
        if let r = frameRate, !r.isValid {
            throw .invalidArgument("frame rate \(r.numerator)/\(r.denominator) is not a valid rate")
        }
        try Self.checkOutputSize(outputWidth, outputHeight, output: output)
        guard (0...600_000).contains(stallRestartMs) else {
            throw .invalidArgument("stall_restart_ms \(stallRestartMs) is out of range (0: never, up to 600000)")
        }
        try OutputRotator.check(outputRotation, output: output)
        guard (0...100).contains(stallRestartTries) else {
            throw .invalidArgument("stall_restart_tries \(stallRestartTries) is out of range (0...100)")
        }
    }
}

/// What a started capture really uses, as the driver applied it (S6).
package struct CaptureFormat: Sendable, Equatable {
    /// The pixel format of delivered frames (the output format when
    /// converting, else the driver's).
    package var fourcc: FourCC
    package var width: Int
    package var height: Int
    /// Bytes per row of each plane, as delivered in frames.
    package var strides: [Int]
    /// Bytes of one whole frame (sizeimage; summed over memory planes).
    package var frameBytes: Int
    /// The rate read back with VIDIOC_G_PARM; nil when the driver has none.
    package var frameRate: FrameRate?
    /// Buffers the driver granted.
    package var bufferCount: Int
    /// The driver's pixel format (equal to `fourcc` unless converting).
    package var sourceFourCC: FourCC = .yuyv
    /// How the applied setting differs from the request (S6, S7).
    package var adjustments: NegotiatedFormat.Adjustments = []
    /// The size frames are delivered at (S38): the output size when one
    /// was asked, else `width`×`height`. `strides` and `frameBytes` are
    /// those of frames at this size.
    package var outputWidth: Int = 0
    package var outputHeight: Int = 0
}

/// Counters of one capture session (S22).
package struct CaptureStats: Sendable, Equatable {
    package var delivered: UInt64 = 0
    package var dropped: UInt64 = 0
    package var corrupted: UInt64 = 0
    /// Frame rate measured over the last (up to 32) frames' timestamps, fps.
    package var measuredFPS: Double = 0
    /// Stalls: times frames stopped for longer than `Capturer.stallThresholdNs`.
    package var stalls: UInt64 = 0
    /// Stream restarts made because of stalls (S48).
    package var restarts: UInt64 = 0
    package init() {}
}
