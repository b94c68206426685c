// SPDX-License-Identifier: MIT
/// One frame converted on its own (camcore_frame_convert): the same
/// PixelConverter a capture with an output format uses (S8, S38), made for
/// the call. For every frame of a stream, the capture's output format is
/// cheaper: it keeps its converter and buffers.
extension Frame {
    /// Writes this frame as `target` at `outputWidth`x`outputHeight` (its
    /// own size when equal) into `destination`, planes tightly packed one
    /// after the other (PixelFormatTable's frame size). Returns the bytes
    /// written. Errors: notSupported (no conversion from this format to
    /// `target`), invalidArgument (an output size S38 refuses, a buffer
    /// shorter than the output frame, or pixels that cannot be decoded:
    /// a corrupt or truncated JPEG, planes shorter than the size says).
    package func convert(to target: FourCC, width outputWidth: Int, height outputHeight: Int,
                        into destination: UnsafeMutableRawPointer, capacity: Int) throws(CamError) -> Int {
        let converter = try PixelConverter(source: fourcc, width: width, height: height, target: target,
                                           outputWidth: outputWidth, outputHeight: outputHeight)
        guard capacity >= converter.outputBytes else {
            throw .invalidArgument("the buffer has \(capacity) bytes; a \(target) frame of \(outputWidth)x\(outputHeight) needs \(converter.outputBytes)")
        }
        guard converter.convert(self, into: destination) else {
            throw .invalidArgument("this \(fourcc) \(width)x\(height) frame cannot be converted: its data is corrupt or shorter than its format and size need")
        }
        return converter.outputBytes
    }
}
