internal import CCamCore  // no header type in this file's public signatures
import CamCore

/// A CaptureFormat as the C struct (full size).
func cCaptureFormat(_ f: CaptureFormat) -> camcore_capture_format {
    var r = camcore_capture_format()
    r.struct_size = UInt32(MemoryLayout<camcore_capture_format>.size)
    r.fourcc = f.fourcc.rawValue
    r.width = UInt32(f.width)
    r.height = UInt32(f.height)
    r.plane_count = UInt32(min(f.strides.count, 3))
    let s = f.strides + [0, 0, 0]
    r.strides = (UInt32(s[0]), UInt32(s[1]), UInt32(s[2]))
    r.frame_bytes = UInt32(truncatingIfNeeded: f.frameBytes)
    if let rate = f.frameRate { r.fps = camcore_fraction(numerator: rate.numerator, denominator: rate.denominator) }
    r.buffer_count = UInt32(f.bufferCount)
    r.source_fourcc = f.sourceFourCC.rawValue
    r.adjusted = f.adjustments.rawValue
    return r
}
