// SPDX-License-Identifier: MIT
import Testing
@testable import CamCore

/// S5/S22/S8: one pixel-format table keyed by FourCC; plane splitting and
/// conversion read it.
struct PixelFormatTableTests {
    func info(_ text: String) throws -> PixelFormatInfo {
        try #require(PixelFormatTable.info(FourCC(text)), "\(text) is not in the table")
    }

    func sizes(_ i: PixelFormatInfo, _ w: Int, _ h: Int) -> [(Int, Int)] {
        (0..<i.planeCount).map { (i.rowBytes(plane: $0, width: w)!, i.rows(plane: $0, height: h)!) }
    }

    @Test func test_S22_i420_planes_rows_and_frame() throws {
        let i = try info("YU12")
        #expect(i.fourcc == .i420 && i.name == "YU12")
        #expect(String(describing: i.description) == "Planar YUV 4:2:0")
        #expect(i.planeCount == 3 && i.memoryPlaneCount == 1 && !i.isCompressed)
        #expect(i.horizontalSubsampling == 2 && i.verticalSubsampling == 2)
        #expect(i.bytesPerPixel == 1)
        #expect(sizes(i, 640, 480).map(\.0) == [640, 320, 320])
        #expect(sizes(i, 640, 480).map(\.1) == [480, 240, 240])
        #expect(i.frameBytes(width: 640, height: 480) == 460_800)
        // Odd sizes round the chroma up.
        #expect(sizes(i, 641, 481).map(\.0) == [641, 321, 321])
        #expect(sizes(i, 641, 481).map(\.1) == [481, 241, 241])
        #expect(i.rowBytes(plane: 3, width: 640) == nil)
        #expect(i.contiguousStride(plane: 1, lumaStride: 704) == 352)
    }

    @Test func test_S22_nv12_yuyv_rgb24() throws {
        let nv12 = try info("NV12")
        #expect(nv12.planeCount == 2 && nv12.memoryPlaneCount == 1)
        #expect(sizes(nv12, 640, 480).map(\.0) == [640, 640] && sizes(nv12, 640, 480).map(\.1) == [480, 240])
        #expect(nv12.frameBytes(width: 640, height: 480) == 460_800)
        #expect(nv12.contiguousStride(plane: 1, lumaStride: 704) == 704)
        #expect(String(describing: nv12.description) == "Y/CbCr 4:2:0")

        let yuyv = try info("YUYV")
        #expect(yuyv.planeCount == 1 && yuyv.bytesPerPixel == 2)
        #expect(yuyv.horizontalSubsampling == 2 && yuyv.verticalSubsampling == 1)
        #expect(yuyv.rowBytes(plane: 0, width: 640) == 1280 && yuyv.rows(plane: 0, height: 480) == 480)
        #expect(yuyv.rowBytes(plane: 0, width: 641) == 1284)  // whole Y0 U Y1 V groups
        #expect(yuyv.frameBytes(width: 640, height: 480) == 614_400)
        #expect(yuyv.plane(1) == nil)

        let rgb = try info("RGB3")
        #expect(rgb.fourcc == .rgb24 && rgb.encoding == .rgb)
        #expect(rgb.bytesPerPixel == 3 && rgb.rowBytes(plane: 0, width: 640) == 1920)
        #expect(rgb.horizontalSubsampling == 1 && rgb.verticalSubsampling == 1)
        #expect(rgb.frameBytes(width: 640, height: 480) == 921_600)
        #expect(String(describing: rgb.description) == "24-bit RGB 8-8-8")
    }

    @Test func test_S22_multiplanar_twins() throws {
        let ym12 = try info("YM12"), nm12 = try info("NM12"), yv12 = try info("YV12")
        #expect(ym12.planeCount == 3 && ym12.memoryPlaneCount == 3)
        #expect(nm12.planeCount == 2 && nm12.memoryPlaneCount == 2)
        #expect(sizes(ym12, 640, 480).map(\.0) == sizes(try info("YU12"), 640, 480).map(\.0))
        #expect(yv12.isCrFirst && !ym12.isCrFirst)
        let nv24 = try info("NV24")
        #expect(sizes(nv24, 640, 480).map(\.0) == [640, 1280])
        #expect(nv24.contiguousStride(plane: 1, lumaStride: 640) == 1280)
    }

    @Test func test_S5_mjpeg_is_compressed() throws {
        let m = try info("MJPG")
        #expect(m.isCompressed && m.planeCount == 1 && m.memoryPlaneCount == 1)
        #expect(m.name == "MJPG" && String(describing: m.description) == "Motion-JPEG")
        #expect(m.bytesPerPixel == nil && m.plane(0) == nil)
        #expect(m.rowBytes(plane: 0, width: 640) == nil && m.frameBytes(width: 640, height: 480) == nil)
        #expect(m.horizontalSubsampling == 0 && m.verticalSubsampling == 0)
    }

    @Test func test_S5_big_endian_name_as_v4l2_ctl() throws {
        let be = try #require(PixelFormatTable.info(FourCC(bigEndian: "Y16 ")))
        #expect(be.fourcc.rawValue == 0x2036_3159 | 0x8000_0000)
        #expect(be.name == "Y16 -BE")
        #expect(String(describing: be.description) == "16-bit Greyscale BE")
        #expect(be.bytesPerPixel == 2)
        let le = try info("Y16")
        #expect(le.name == "Y16 " && String(describing: le.description) == "16-bit Greyscale")
        // Naming does not depend on the table.
        #expect(FourCC(bigEndian: "ZZZZ").description == "ZZZZ-BE")
    }

    @Test func test_S5_unknown_fourcc() {
        #expect(PixelFormatTable.info(FourCC("ZZZZ")) == nil)
        #expect(PixelFormatTable.info(FourCC(rawValue: 0)) == nil)
        #expect(PixelFormatTable.info(FourCC(rawValue: 0xFFFF_FFFF)) == nil)
        // YUYV with the big-endian bit is another format.
        #expect(PixelFormatTable.info(FourCC(rawValue: FourCC.yuyv.rawValue | FourCC.bigEndianBit)) == nil)
    }

    @Test func test_S5_every_entry_is_found_and_consistent() {
        var seen = Set<FourCC>()
        for e in PixelFormatTable.all {
            #expect(seen.insert(e.fourcc).inserted, "\(e.fourcc) twice")
            #expect(PixelFormatTable.info(e.fourcc)?.fourcc == e.fourcc, "\(e.fourcc) not found")
            #expect(String(describing: e.description).utf8.count < 32, "\(e.fourcc): description too long")
            #expect(e.name.utf8.count < 8)
            if e.isCompressed { continue }
            #expect((1...3).contains(e.planeCount), "\(e.fourcc)")
            #expect(e.memoryPlaneCount == 1 || e.memoryPlaneCount == e.planeCount, "\(e.fourcc)")
            // The frame is its planes, tightly packed.
            let total = (0..<e.planeCount).reduce(0) {
                $0 + e.rowBytes(plane: $1, width: 64)! * e.rows(plane: $1, height: 48)!
            }
            #expect(e.frameBytes(width: 64, height: 48) == total, "\(e.fourcc)")
        }
        #expect(PixelFormatTable.all.count >= 50)
    }

    /// The converter's layouts are table entries with the geometry it used
    /// before the table (its old row-size rules, written out here).
    @Test func test_S8_converter_layouts_read_the_table() {
        for layout in PixelLayout.allCases {
            let i = PixelFormatTable.info(layout.fourcc)
            #expect(i != nil, "\(layout): \(layout.fourcc) missing")
            for w in [1, 2, 639, 640] {
                let cw = (w + 1) / 2
                let want: [Int]
                switch layout {
                case .yuy2, .yvyu, .uyvy, .vyuy: want = [4 * cw]
                case .i420, .i422: want = [w, cw, cw]
                case .nv12, .nv21, .nv16, .nv61: want = [w, 2 * cw]
                case .nv24, .nv42: want = [w, 2 * w]
                case .i444: want = [w, w, w]
                case .i400: want = [w]
                case .raw, .rgb24: want = [3 * w]
                case .argb, .xrgb, .abgr, .xbgr, .bgra, .xbgra, .rgba, .xrgba: want = [4 * w]
                default: want = [2 * w]
                }
                #expect((0..<layout.planeCount).map { layout.rowBytes($0, w) } == want, "\(layout) at \(w)")
            }
        }
        #expect(PixelLayout.source(FourCC("YV12"))! == (.i420, true))
        #expect(PixelLayout.source(FourCC("YM61"))! == (.i422, true))
        #expect(PixelLayout.source(FourCC("YM42"))! == (.i444, true))
        #expect(PixelLayout.source(FourCC("NM21"))! == (.nv21, false))
        #expect(PixelLayout.source(FourCC("NV42"))! == (.nv42, false))
        #expect(PixelLayout.source(FourCC("BGR4"))! == (.xrgb, false))
        #expect(PixelLayout.source(FourCC("RGB4"))! == (.xbgra, false))
        #expect(PixelLayout.source(FourCC("GREY"))! == (.i400, false))
        #expect(PixelLayout.source(FourCC("Y16 ")) == nil)
        #expect(PixelLayout.source(FourCC("BA81")) == nil)
        #expect(PixelLayout.source(.mjpeg) == nil)
        #expect(PixelLayout.target(.i420) == .i420 && PixelLayout.target(FourCC("AB24")) == .abgr)
        #expect(PixelLayout.target(FourCC("NV21")) == nil)
    }

    /// PlaneLayout splits exactly the formats it split before the table.
    @Test func test_S22_split_formats_unchanged() {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { buffer.deallocate() }
        let counts = ["YU12": 3, "YV12": 3, "422P": 3, "NV12": 2, "NV21": 2, "NV16": 2, "NV61": 2,
                      "NV24": 1, "NV42": 1, "YM12": 1, "NM12": 1, "YUYV": 1, "RGB3": 1, "GREY": 1,
                      "MJPG": 1, "ZZZZ": 1]
        for (text, n) in counts {
            let s = PlaneLayout.split(FourCC(text), base: buffer, used: 640 * 480 * 2, stride: 640, height: 480)
            #expect(s.count == n, "\(text)")
            #expect(PlaneLayout.strides(FourCC(text), stride: 640).count == n, "\(text)")
        }
        #expect(PlaneLayout.strides(.yuv422p, stride: 640) == [640, 320, 320])
        let p422 = PlaneLayout.split(.yuv422p, base: buffer, used: 640 * 480 * 2, stride: 640, height: 480)
        #expect(p422.complete && p422.planes.1.length == 320 * 480 && p422.planes.2.base == buffer + 640 * 480 + 320 * 480)
        let nv16 = PlaneLayout.split(.nv16, base: buffer, used: 640 * 480 * 2, stride: 640, height: 480)
        #expect(nv16.complete && nv16.planes.1.stride == 640 && nv16.planes.1.length == 640 * 480)
    }
}
