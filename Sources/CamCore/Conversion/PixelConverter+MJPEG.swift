// SPDX-License-Identifier: MIT
internal import CTurboJPEG
internal import CYuv
#if canImport(Glibc)
import Glibc
#endif

/// PixelConverter's MJPEG decoding (SPEC S8, S26, S38): a JPEG checked,
/// cleaned of stray bytes before its markers (JPEGMarkers) and decoded by
/// TurboJPEG at its own chroma subsampling (at the DCT scale an output
/// size asks), then scaled and converted with libyuv; which warnings a
/// frame may carry, and the decompressor re-created after a frame it
/// rejected. The type's doc (PixelConverter.swift) says what comes out.
extension PixelConverter {
    func decodeJPEG(_ plane: Plane, into destination: PixelImage) -> Bool {
        guard let base = plane.base, plane.length > 4 else { return false }
        var jpeg = UnsafePointer(base.assumingMemoryBound(to: UInt8.self))
        // Drop zero padding after the image; a JPEG without its end marker is truncated.
        var size = plane.length
        while size > 2 && jpeg[size - 1] == 0 { size -= 1 }
        guard jpeg[0] == 0xFF, jpeg[1] == 0xD8, jpeg[size - 2] == 0xFF, jpeg[size - 1] == 0xD9 else {
            return false
        }
        let walk = JPEGMarkers.walk(jpeg, size)
        // A frame must decode as on its own: one that leaves out a table the
        // decompressor holds from an earlier frame (a DHT-less camera frame
        // after one with its own tables) gets a fresh decompressor, so that
        // libjpeg-turbo supplies the standard tables. Once per change of
        // kind; a camera sends its frames all one way.
        if heldTables & ~walk.tables != 0 { resetDecoder() }
        heldTables |= walk.tables
        // Stray bytes before a marker: decode the stream without them, so
        // that any warning TurboJPEG gives is about the picture (`accept`).
        let stray = walk.stray
        if stray > 0 {
            if cleanCapacity < size {
                cleanJPEG?.deallocate()
                cleanCapacity = max(size + size / 2, 64 << 10)
                cleanJPEG = .allocate(capacity: cleanCapacity)
            }
            guard let clean = cleanJPEG else { return false }
            _ = JPEGMarkers.strayBytes(jpeg, size, copyingTo: clean)
            jpeg = UnsafePointer(clean); size -= stray
        }
        if tj == nil { tj = tjInitDecompress() }  // the last re-creation failed: try again
        guard let tj else { return false }
        var w: Int32 = 0, h: Int32 = 0, subsamp: Int32 = -1, colorspace: Int32 = -1
        guard accept(tjDecompressHeader3(tj, jpeg, UInt(size), &w, &h, &subsamp, &colorspace)) else { return false }
        guard Int(w) == width, Int(h) == height else {
            // Its tables stay in the decompressor: another stream, start afresh.
            resetDecoder()
            return false
        }
        let flags = CC_TJFLAG_LIMITSCANS
        // The size TurboJPEG decodes at (S38's DCT scale; the JPEG's own without one).
        let dw = Int32(decodeWidth), dh = Int32(decodeHeight)
        let exact = decodeWidth == outputWidth && decodeHeight == outputHeight

        if targetLayout.isRGB && exact {
            let format: TJPF = targetLayout == .raw ? TJPF_RGB : targetLayout == .rgb24 ? TJPF_BGR : TJPF_RGBA
            return accept(tjDecompress2(tj, jpeg, UInt(size), destination.p0, dw, destination.s0, dh,
                                        Int32(format.rawValue), flags))
        }
        guard let scratch = jpegScratch else { return false }
        let yuvJPEG = colorspace == Int32(TJCS_YCbCr.rawValue) || colorspace == Int32(TJCS_GRAY.rawValue)
        if !yuvJPEG || targetLayout.isRGB {
            // RGB targets at a scale, or an RGB, CMYK or YCCK JPEG (not from
            // cameras): decode to BGRX (libyuv ARGB), scale, convert.
            let argb = PixelLayout.argb.image(scratch, decodeWidth, decodeHeight)
            guard accept(tjDecompress2(tj, jpeg, UInt(size), argb.p0, dw, argb.s0, dh,
                                       Int32(TJPF_BGRX.rawValue), flags)) else { return false }
            if exact { return run(jpegSteps[.argb] ?? [], argb, destination, decodeWidth, decodeHeight) }
            let scaled = argbOut ?? destination
            guard Self.scale(.argb, argb, decodeWidth, decodeHeight, scaled, outputWidth, outputHeight) == 0 else {
                return false
            }
            return argbPost.isEmpty || run(argbPost, scaled, destination, outputWidth, outputHeight)
        }
        let decoded: PixelLayout
        switch subsamp {
        case Int32(TJSAMP_420.rawValue): decoded = .i420
        case Int32(TJSAMP_422.rawValue): decoded = .i422
        case Int32(TJSAMP_444.rawValue): decoded = .i444
        case Int32(TJSAMP_GRAY.rawValue): decoded = .i400
        default: decoded = .i420  // 4:4:0, 4:1:1: chroma resampled to 4:2:0 below
        }
        // TurboJPEG writes whole sampling units: the luma plane is padded to
        // them (one more column and row at odd 4:2:0 sizes).
        let yw = tjPlaneWidth(0, dw, subsamp), yh = tjPlaneHeight(0, dh, subsamp)
        guard yw >= dw, yh >= dh, Int(yw) <= (decodeWidth + 3) & ~3, Int(yh) <= (decodeHeight + 1) & ~1 else {
            resetDecoder()
            return false
        }
        if exact && subsamp == Int32(TJSAMP_420.rawValue) && targetLayout == .i420 && yw == dw && yh == dh {
            return decodeYUV(jpeg, size, into: destination, subsamp: subsamp, flags: flags)
        }
        var image = PixelImage(p0: scratch.assumingMemoryBound(to: UInt8.self), s0: yw)
        if decoded == .i400 {
            guard decodeYUV(jpeg, size, into: image, subsamp: subsamp, flags: flags) else { return false }
            if exact { return run(jpegSteps[.i400] ?? [], image, destination, decodeWidth, decodeHeight) }
            return scalePlanes(image, chroma: nil, destination)
        }
        let cw = tjPlaneWidth(1, dw, subsamp), chh = tjPlaneHeight(1, dh, subsamp)
        guard cw > 0, chh > 0, cw <= dw, chh <= dh else {
            resetDecoder()
            return false
        }
        let u = scratch + Int(yw * yh)
        image.p1 = u.assumingMemoryBound(to: UInt8.self); image.s1 = cw
        image.p2 = (u + Int(cw * chh)).assumingMemoryBound(to: UInt8.self); image.s2 = cw
        let qw = Int32((decodeWidth + 1) / 2), qh = Int32((decodeHeight + 1) / 2)
        if exact && subsamp == Int32(TJSAMP_422.rawValue) && targetLayout == .i420 && yw == dw && yh == dh {
            // 4:2:2 to I420, direct: luma straight into the destination, the
            // chroma halved vertically from scratch into it. The same calls
            // and bytes as I422ToI420 after a whole 4:2:2 decode, without
            // the copy of the luma plane.
            image.p0 = destination.p0; image.s0 = destination.s0
            guard decodeYUV(jpeg, size, into: image, subsamp: subsamp, flags: flags) else { return false }
            ScalePlane(image.p1, cw, cw, chh, destination.p1, destination.s1, qw, qh, kFilterBilinear)
            ScalePlane(image.p2, cw, cw, chh, destination.p2, destination.s2, qw, qh, kFilterBilinear)
            return true
        }
        guard decodeYUV(jpeg, size, into: image, subsamp: subsamp, flags: flags) else { return false }
        if !exact { return scalePlanes(image, chroma: (cw, chh), destination) }
        if decoded == .i420 && subsamp != Int32(TJSAMP_420.rawValue) {
            // Resample the chroma to 4:2:0 (as libyuv's I4xxToI420 does), after the native planes.
            let q = u + 2 * Int(cw * chh)
            let i420u = q.assumingMemoryBound(to: UInt8.self), i420v = (q + Int(qw * qh)).assumingMemoryBound(to: UInt8.self)
            ScalePlane(image.p1, cw, cw, chh, i420u, qw, qw, qh, kFilterBilinear)
            ScalePlane(image.p2, cw, cw, chh, i420v, qw, qw, qh, kFilterBilinear)
            image.p1 = i420u; image.s1 = qw; image.p2 = i420v; image.s2 = qw
        }
        return run(jpegSteps[decoded] ?? [], image, destination, decodeWidth, decodeHeight)
    }

    /// S38: the planes of a JPEG decoded at the DCT size (`image`; luma
    /// `decodeWidth`×`decodeHeight`, chroma `chroma` samples, nil for grey)
    /// each scaled with ScalePlane (`scaleFilter`) to `planarLayout` at the
    /// output size — in one pass per plane, whatever the JPEG's chroma
    /// subsampling — then converted to the target. Grey gets neutral chroma (128).
    private func scalePlanes(_ image: PixelImage, chroma: (Int32, Int32)?, _ destination: PixelImage) -> Bool {
        let out = planarOut ?? destination
        let f = Self.scaleFilter
        let ow = Int32(outputWidth), oh = Int32(outputHeight)
        let cw = Int32(planarLayout.rowBytes(1, outputWidth)), ch = Int32(planarLayout.rows(1, outputHeight))
        ScalePlane(image.p0, image.s0, Int32(decodeWidth), Int32(decodeHeight), out.p0, out.s0, ow, oh, f)
        if let (sw, sh) = chroma {
            ScalePlane(image.p1, image.s1, sw, sh, out.p1, out.s1, cw, ch, f)
            ScalePlane(image.p2, image.s2, sw, sh, out.p2, out.s2, cw, ch, f)
        } else {
            SetPlane(out.p1, out.s1, cw, ch, 128)
            SetPlane(out.p2, out.s2, cw, ch, 128)
        }
        return planarPost.isEmpty || run(planarPost, out, destination, outputWidth, outputHeight)
    }

    private func decodeYUV(_ jpeg: UnsafePointer<UInt8>, _ size: Int, into image: PixelImage,
                           subsamp: Int32, flags: Int32) -> Bool {
        guard let tj else { return false }
        tjPlanes[0] = image.p0; tjPlanes[1] = image.p1; tjPlanes[2] = image.p2
        tjStrides[0] = image.s0; tjStrides[1] = image.s1; tjStrides[2] = image.s2
        return accept(tjDecompressToYUVPlanes(tj, jpeg, UInt(size), tjPlanes, Int32(decodeWidth), tjStrides,
                                              Int32(decodeHeight), flags))
    }

    /// TurboJPEG's result: success, or the one warning that leaves the
    /// picture whole. Any other warning or error is a corrupt frame (SPEC
    /// S26): premature end of data, a bad Huffman code, a marker inside a
    /// scan all leave rows of grey filler.
    ///
    /// TurboJPEG reports only the *first* warning of a decode (libjpeg's
    /// `emit_message` prints one; later ones are only counted), so a frame
    /// with stray bytes before its DQT and a cut scan used to pass as
    /// "extraneous bytes". Stray bytes between segments are now removed
    /// before decoding (JPEGMarkers), so that warning can no longer hide
    /// another. What stays is the common camera quirk of stray bytes after
    /// the last scan's data: libjpeg reads them when it looks for EOI,
    /// after the last row was decoded ("N extraneous bytes before marker
    /// 0xd9"). Being the first warning, no other came before it, and none
    /// can come after it: accepted. (An error after a warning keeps the
    /// warning code but writes its own message, so the text is checked.)
    ///
    /// A rejected frame resets the decompressor (`resetDecoder`).
    private func accept(_ result: Int32) -> Bool {
        if result == 0 { return true }
        if let tj, tjGetErrorCode(tj) == Int32(TJERR_WARNING.rawValue), let message = tjGetErrorStr2(tj),
           strstr(message, "extraneous bytes before marker 0xd9") != nil { return true }
        resetDecoder()
        return false
    }

    /// Replaces the decompressor after a frame it rejected, so that a bad
    /// frame costs that frame only. libjpeg keeps a stream's Huffman and
    /// quantization tables in the decompressor for the next stream (JPEG
    /// "abbreviated" streams; ITU T.81 B.5) and supplies the standard
    /// Huffman tables only where none is held. UVC cameras send MJPEG
    /// without DHT (AVI1: the standard tables), so one frame with a bogus
    /// DHT ("Bogus Huffman table definition") used to leave its table
    /// there and every later frame was rejected with it. Only at error
    /// time: a clean decode keeps the decompressor (no allocation per frame).
    private func resetDecoder() {
        if let tj { tjDestroy(tj) }
        tj = tjInitDecompress()
        heldTables = 0
    }
}
