// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// The marker structure of a JPEG stream, walked once before decoding to
/// find stray bytes before markers (SPEC S26: a frame TurboJPEG warns about
/// is corrupt, yet many UVC cameras put a few stray bytes before a marker).
///
/// **The rule** (JPEG, ITU T.81 B.1.1.2–B.1.1.5): a stream is SOI, then
/// marker segments (0xFF, a marker byte, a 2-byte big-endian length that
/// counts itself, the payload), each scan's SOS segment followed by its
/// entropy-coded data, and EOI. A marker may be preceded by any number of
/// 0xFF fill bytes. In entropy-coded data 0xFF is followed by 0x00 (a
/// stuffed data byte) or is a marker; RST0–RST7 (0xD0–0xD7) sit between
/// restart intervals and belong to the scan; any other marker ends it.
/// SOI, EOI, RSTn and TEM (0x01) have no length. Anything else where a
/// marker is due is not JPEG: libjpeg's `next_marker` (jdmarker.c) skips
/// it, 0xFF00 pairs included, and warns "Corrupt JPEG data: N extraneous
/// bytes before marker 0xXX".
///
/// `strayBytes` finds exactly those bytes between one segment's end and
/// the next marker, and can copy the stream without them, so that libjpeg
/// decodes the copy as it decodes the original minus the warning. What it
/// cannot see: bytes after the last coded unit of a scan look like
/// entropy-coded data here (only Huffman decoding tells where a scan's
/// data end); libjpeg skips those when it reads the next marker, after the
/// whole picture was decoded, and that warning (before EOI, the common
/// camera quirk) is the converter's one accepted warning.
///
/// One linear pass: segments are jumped over by their lengths, scan data
/// is searched for 0xFF with memchr. It stops where the structure breaks
/// (a length past the end, a second SOI): from there on the stream is left
/// as it is and TurboJPEG reports the error.
///
/// The walk also notes which tables the stream defines (`Walk.tables`):
/// libjpeg keeps Huffman and quantization tables from one stream to the
/// next in the same decompressor (T.81 B.5 "abbreviated" streams), and
/// MJPEG frames without DHT mean the standard Huffman tables (AVI1, UVC),
/// which libjpeg-turbo supplies only into slots that hold none.
enum JPEGMarkers {
    struct Walk {
        /// Stray bytes found.
        var stray = 0
        /// Table slots the stream defines: bits 0–3 quantization tables
        /// 0–3, bits 4–7 DC Huffman tables 0–3, bits 8–11 AC tables 0–3.
        var tables: UInt16 = 0
    }

    /// The number of stray bytes in `jpeg` (see `walk`).
    static func strayBytes(_ jpeg: UnsafePointer<UInt8>, _ size: Int,
                           copyingTo output: UnsafeMutablePointer<UInt8>? = nil) -> Int {
        walk(jpeg, size, copyingTo: output).stray
    }

    /// Walks `jpeg` (SOI at its start, checked by the caller). With
    /// `output` (at least `size` bytes), also writes the stream without
    /// its stray bytes there: `size` minus `stray` bytes.
    static func walk(_ jpeg: UnsafePointer<UInt8>, _ size: Int,
                     copyingTo output: UnsafeMutablePointer<UInt8>? = nil) -> Walk {
        var stray = 0, tables: UInt16 = 0
        var i = 2           // after SOI
        var copied = 0      // input bytes before this are written (or skipped)
        var written = 0
        /// Leaves out jpeg[from..<to]: the bytes before it go to `output`.
        func drop(_ from: Int, _ to: Int) {
            stray += to - from
            if let output {
                let n = from - copied
                if n > 0 { memcpy(output + written, jpeg + copied, n); written += n }
                copied = to
            }
        }
        /// The first 0xFF at or after `from`, or `size`.
        func nextFF(_ from: Int) -> Int {
            guard from < size, let p = memchr(jpeg + from, 0xFF, size - from) else { return size }
            return UnsafeRawPointer(p) - UnsafeRawPointer(jpeg)
        }
        walk: while i < size {
            // next_marker: skip to 0xFF, over fill bytes, and over 0xFF00.
            let start = i
            var ff = nextFF(i)
            var m: UInt8 = 0
            while ff < size {
                var j = ff + 1
                while j < size && jpeg[j] == 0xFF { j += 1 }
                guard j < size else { ff = size; break }
                if jpeg[j] != 0 { m = jpeg[j]; i = j + 1; break }
                ff = nextFF(j + 1)
            }
            if ff > start { drop(start, min(ff, size)) }
            guard ff < size else { break walk }
            switch m {
            case 0xD9:                      // EOI: the end
                break walk
            case 0xD8:                      // a second SOI: not ours to mend
                break walk
            case 0x01, 0xD0...0xD7:         // TEM, RSTn: no length
                continue walk
            default:
                guard i + 2 <= size else { break walk }
                let length = Int(jpeg[i]) << 8 | Int(jpeg[i + 1])
                guard length >= 2, i + length <= size else { break walk }
                if m == 0xDB || m == 0xC4 { tables |= tableSlots(m, jpeg + i + 2, length - 2) }
                i += length
                guard m == 0xDA else { continue walk }
                // SOS: the scan's entropy-coded data run to the next marker
                // other than RSTn; 0xFF00 is a data byte.
                while true {
                    let f = nextFF(i)
                    var j = f + 1
                    while j < size && jpeg[j] == 0xFF { j += 1 }
                    guard j < size else { i = size; break }
                    if jpeg[j] == 0 || (0xD0...0xD7).contains(jpeg[j]) { i = j + 1; continue }
                    i = f               // the marker (with its fill bytes) after the scan
                    break
                }
            }
        }
        if let output, size > copied { memcpy(output + written, jpeg + copied, size - copied) }
        return Walk(stray: stray, tables: tables)
    }

    /// The slots (as `Walk.tables`) a DQT or DHT payload of `n` bytes fills
    /// (T.81 B.2.4.1: Pq/Tq then 64 or 128 bytes; B.2.4.2: Tc/Th, 16
    /// counts, then that many values). Slots past 3 are libjpeg errors.
    private static func tableSlots(_ marker: UInt8, _ p: UnsafePointer<UInt8>, _ n: Int) -> UInt16 {
        var slots: UInt16 = 0, k = 0
        while k < n {
            let kind = p[k] >> 4, slot = Int(p[k] & 0x0F)
            if marker == 0xDB {
                if slot < 4 { slots |= 1 << slot }
                k += 1 + (kind == 0 ? 64 : 128)
            } else {
                guard k + 17 <= n else { break }
                if slot < 4 && kind < 2 { slots |= 1 << (4 + 4 * Int(kind) + slot) }
                var count = 0
                for c in 1...16 { count += Int(p[k + c]) }
                k += 17 + count
            }
        }
        return slots
    }
}
