// SPDX-License-Identifier: MIT
/*
 * PNG snapshots of frames (capture --snapshot, the view's snapshot key):
 * the frame converted to RGB24 by camcore (libyuv; MJPEG decoded with
 * TurboJPEG), written with libpng.
 */
#include "camcore_tool.h"

#include <png.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The snapshot: the kept frame as RGB24, converted by camcore (libyuv;
 * MJPEG decoded with TurboJPEG) into rgb (width * height * 3 bytes). */
static int frame_to_rgb(const camcore_frame *f, uint8_t *rgb)
{
    return camcore_frame_convert(f, CAMCORE_FOURCC_RGB24, 0, 0, rgb, (size_t)f->width * f->height * 3);
}

static int write_png(const char *path, uint32_t width, uint32_t height, const uint8_t *rgb)
{
    FILE *file = fopen(path, "wb");
    png_structp png;
    png_infop info;
    uint32_t y;

    if (file == NULL) {
        errorf("cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    info = png ? png_create_info_struct(png) : NULL;
    if (png == NULL || info == NULL) {
        errorf("libpng: out of memory");
        png_destroy_write_struct(&png, NULL);
        fclose(file);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        errorf("libpng could not write %s", path);
        png_destroy_write_struct(&png, &info);
        fclose(file);
        return -1;
    }
    png_init_io(png, file);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (y = 0; y < height; y++)
        png_write_row(png, rgb + (size_t)y * width * 3);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    if (fclose(file) != 0) {
        errorf("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int write_snapshot(const camcore_frame *f, const char *path)
{
    uint8_t *rgb = malloc((size_t)f->width * f->height * 3);
    char code[8];
    int rc;

    if (rgb == NULL || frame_to_rgb(f, rgb) != 0) {
        char why[512];
        snprintf(why, sizeof why, "%s", rgb ? camcore_last_error_message() : "out of memory");
        errorf("cannot convert the %s frame to RGB for the snapshot %s: %s", fourcc_text(f->fourcc, code), path, why);
        free(rgb);
        return -1;
    }
    rc = write_png(path, f->width, f->height, rgb);
    free(rgb);
    return rc;
}
