// SPDX-License-Identifier: MIT
internal import CCamCore  // no header type in this file's public signatures
import CamCore
#if canImport(Glibc)
import Glibc
#endif

/// A CaptureFormat as the C struct (full size).
func cCaptureFormat(_ f: CaptureFormat) -> camcore_capture_format {
    var r = camcore_capture_format()
    r.struct_size = UInt32(MemoryLayout<camcore_capture_format>.size)
    r.fourcc = f.fourcc.rawValue
    // The size frames are delivered at (S38's output size when scaling),
    // like fourcc, strides and frame_bytes.
    r.width = UInt32(f.outputWidth == 0 ? f.width : f.outputWidth)
    r.height = UInt32(f.outputHeight == 0 ? f.height : f.outputHeight)
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

/// A capture config as the engine's request, checked whole at the call
/// (issue 12 item 7): size 1...65536, buffer_count 2...32, fps a positive
/// fraction or 0/0 (the driver's rate) — 0/1 and 30/0 are refused.
/// `output` false leaves output_fourcc and the output size (S38) unread
/// (camcore_session_start: the session's own apply).
/// Errors: invalidArgument naming `fn`.
func captureRequest(_ v: camcore_capture_config, _ fn: String, output: Bool = true) throws(CamError) -> CaptureRequest {
    let keepsDriverRate = v.fps.numerator == 0 && v.fps.denominator == 0
    if !keepsDriverRate && (v.fps.numerator == 0 || v.fps.denominator == 0) {
        throw .invalidArgument("\(fn): fps \(v.fps.numerator)/\(v.fps.denominator) is not a rate (0/0 keeps the driver's rate)")
    }
    // S37: the config field, or CAMCORE_CAPTURE_DMABUF on (Environment's
    // flag spellings; any other value is refused here).
    let env = output && v.dmabuf == 0 ? try dmabufFromEnvironment(fn) : false
    var r = CaptureRequest(fourcc: FourCC(rawValue: v.fourcc), width: Int(v.width), height: Int(v.height),
                           frameRate: keepsDriverRate ? nil : FrameRate(v.fps.numerator, v.fps.denominator),
                           bufferCount: Int(v.buffer_count),
                           output: !output || v.output_fourcc == 0 ? nil : FourCC(rawValue: v.output_fourcc),
                           dmabuf: output && (v.dmabuf != 0 || env),
                           outputWidth: output ? Int(v.output_width) : 0, outputHeight: output ? Int(v.output_height) : 0)
    r.stallRestartMs = Int(v.stall_restart_ms)
    r.stallRestartTries = Int(v.stall_restart_tries)
    r.outputRotation = output ? Int(v.output_rotation) : 0
    do { try r.validate() } catch { throw .invalidArgument("\(fn): \(error.message)") }
    return r
}

/// CAMCORE_CAPTURE_DMABUF as a flag (off when unset). Errors:
/// invalidArgument naming `fn`, the variable and its value.
func dmabufFromEnvironment(_ fn: String) throws(CamError) -> Bool {
    do { return try Environment.flag(Environment.captureDmabuf) ?? false } catch { throw error.prefixed(fn) }
}

/// A start's error, saying that DMA-BUF was asked by the environment
/// (not by the config) when that is why the start was refused.
func namingDmabufEnvironment(_ error: CamError, _ v: camcore_capture_config, _ request: CaptureRequest) -> CamError {
    guard case .notSupported = error, request.dmabuf, v.dmabuf == 0 else { return error }
    let value = getenv(Environment.captureDmabuf).map { String(cString: $0) } ?? ""
    return error.mapMessage { "\($0) (DMA-BUF export was asked by the environment: \(Environment.captureDmabuf)=\(value); unset it or set it to 0)" }
}

/// A caller's camcore_preference as the engine's (S6), checked once for
/// every function that takes one: a non-zero size and 0 < min_fps <= max_fps.
func capturePreference(_ v: camcore_preference, _ fn: String) throws(CamError) -> CapturePreference {
    guard v.width > 0, v.height > 0, v.min_fps.numerator > 0, v.min_fps.denominator > 0,
          v.max_fps.numerator > 0, v.max_fps.denominator > 0 else {
        throw .invalidArgument("\(fn): the preference needs a non-zero size and 0 < min_fps <= max_fps")
    }
    let lo = FrameRate(v.min_fps.numerator, v.min_fps.denominator)
    let hi = FrameRate(v.max_fps.numerator, v.max_fps.denominator)
    guard lo <= hi else { throw .invalidArgument("\(fn): the preference needs a non-zero size and 0 < min_fps <= max_fps") }
    return CapturePreference(width: Int(v.width), height: Int(v.height), minRate: lo, maxRate: hi,
                             output: v.output_fourcc == 0 ? nil : FourCC(rawValue: v.output_fourcc))
}
