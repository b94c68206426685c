// SPDX-License-Identifier: MIT
/*
 * s38_scale.c — the instruction side of the S38 bench row (issue 14 item 3):
 * 1920x1080 4:2:2 JPEG -> 640x360 I420 by TurboJPEG + libyuv called
 * directly, the two ways:
 *   --variant dct   decode at the DCT scale 1/2 (960x540), then ScalePlane
 *                   per plane to 640x360 I420 (box) — camcore's route
 *   --variant full  decode at full size, then ScalePlane per plane (box)
 *   --variant dct3-8  decode at 3/8 (720x405), then ScalePlane (box): the
 *                   scale nearest the output that TurboJPEG offers; tried
 *                   for S38 and slower than 1/2 (no SIMD 3x3 IDCT), so
 *                   camcore keeps to 1/2, 1/4, 1/8
 * and, for the 4:2:2 -> I420 path at full size (no output size):
 *   --variant i422-copy    decode to I422 scratch, then I422ToI420 (the old route)
 *   --variant i422-direct  Y straight into the I420 plane, chroma into scratch,
 *                          ScalePlane (bilinear) halves it (camcore's route now)
 * Under callgrind (--callgrind) the counters cover only the measured
 * frames (CALLGRIND_ZERO_STATS / DUMP_STATS around them). camcore's own
 * route is byte-identical to "dct" (Tests/CamCoreTests/Conversion/
 * OutputSizeBench.swift checks it and times camcore itself).
 * --noise N: +-N levels of noise in the picture (default 3, as the Swift bench).
 * Prints one JSON line: {"variant", "frames", "jpeg_bytes", "cpu_ns_per_frame"}.
 */
#define _GNU_SOURCE
#include <libyuv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <turbojpeg.h>
#include <valgrind/callgrind.h>

enum { W = 1920, H = 1080, OW = 640, OH = 360 };

static uint64_t thread_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    const char *variant = "dct";
    int frames = 20, cg = 0, i, noise = 3;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--variant") && i + 1 < argc) variant = argv[++i];
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--callgrind")) cg = 1;
        else if (!strcmp(argv[i], "--noise") && i + 1 < argc) noise = atoi(argv[++i]);
        else { fprintf(stderr, "usage: s38_scale [--variant dct|dct3-8|full|i422-copy|i422-direct] [--frames N] [--noise N] [--callgrind]\n"); return 2; }
    }
    int full = !strcmp(variant, "full"), d38 = !strcmp(variant, "dct3-8"), copy422 = !strcmp(variant, "i422-copy"),
        direct422 = !strcmp(variant, "i422-direct");
    if (copy422 || direct422) full = 1;
    /* A camera-like picture: gradients, a checkerboard, a little noise (as the Swift bench). */
    unsigned char *rgb = malloc(3 * W * H);
    uint64_t x = 0x12345678;
    for (int y = 0; y < H; y++)
        for (int c = 0; c < W; c++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            int n = noise > 0 ? (int)(x % (uint64_t)(2 * noise + 1)) - noise : 0, p = 3 * (y * W + c);
            int r = 30 + 190 * c / (W - 1) + n, g = 40 + 170 * y / (H - 1) + n,
                b = 60 + 120 * ((c / 40 + y / 40) % 2) + n;
            rgb[p] = (unsigned char)(r < 0 ? 0 : r > 255 ? 255 : r);
            rgb[p + 1] = (unsigned char)(g < 0 ? 0 : g > 255 ? 255 : g);
            rgb[p + 2] = (unsigned char)(b < 0 ? 0 : b > 255 ? 255 : b);
        }
    tjhandle tc = tjInitCompress(), td = tjInitDecompress();
    unsigned char *jpeg = NULL;
    unsigned long size = 0;
    if (tjCompress2(tc, rgb, W, 3 * W, H, TJPF_RGB, &jpeg, &size, TJSAMP_422, 85, 0)) {
        fprintf(stderr, "tjCompress2: %s\n", tjGetErrorStr2(tc));
        return 1;
    }
    int dw = full ? W : d38 ? W * 3 / 8 : W / 2, dh = full ? H : d38 ? H * 3 / 8 : H / 2, cw = tjPlaneWidth(1, dw, TJSAMP_422);
    unsigned char *yp = aligned_alloc(64, W * H), *up = aligned_alloc(64, W * H / 2),
                  *vp = aligned_alloc(64, W * H / 2), *out = aligned_alloc(64, W * H * 3 / 2);
    unsigned char *planes[3] = { yp, up, vp };
    int strides[3] = { dw, cw, cw };
    uint64_t t0 = 0;
    for (i = -3; i < frames; i++) {
        if (i == 0) {
            if (cg) CALLGRIND_ZERO_STATS;
            t0 = thread_ns();
        }
        int w, h, ss, cs;
        if (copy422 || direct422) {
            unsigned char *dy = out, *du = out + W * H, *dv = du + W * H / 4;
            unsigned char *p2[3] = { direct422 ? dy : yp, up, vp };
            if (tjDecompressHeader3(td, jpeg, size, &w, &h, &ss, &cs) ||
                tjDecompressToYUVPlanes(td, jpeg, size, p2, W, strides, H, TJFLAG_LIMITSCANS))
                return 1;
            if (copy422) {
                I422ToI420(yp, W, up, W / 2, vp, W / 2, dy, W, du, W / 2, dv, W / 2, W, H);
            } else {
                ScalePlane(up, W / 2, W / 2, H, du, W / 2, W / 2, H / 2, kFilterBilinear);
                ScalePlane(vp, W / 2, W / 2, H, dv, W / 2, W / 2, H / 2, kFilterBilinear);
            }
            continue;
        }
        if (tjDecompressHeader3(td, jpeg, size, &w, &h, &ss, &cs) ||
            tjDecompressToYUVPlanes(td, jpeg, size, planes, dw, strides, dh, TJFLAG_LIMITSCANS)) {
            fprintf(stderr, "decode: %s\n", tjGetErrorStr2(td));
            return 1;
        }
        ScalePlane(yp, dw, dw, dh, out, OW, OW, OH, kFilterBox);
        ScalePlane(up, cw, cw, dh, out + OW * OH, OW / 2, OW / 2, OH / 2, kFilterBox);
        ScalePlane(vp, cw, cw, dh, out + OW * OH * 5 / 4, OW / 2, OW / 2, OH / 2, kFilterBox);
    }
    uint64_t t1 = thread_ns();
    if (cg) CALLGRIND_DUMP_STATS;
    printf("{\"variant\": \"%s\", \"frames\": %d, \"jpeg_bytes\": %lu, \"cpu_ns_per_frame\": %.1f}\n", variant,
           frames, size, (double)(t1 - t0) / frames);
    tjFree(jpeg); tjDestroy(tc); tjDestroy(td);
    free(rgb); free(yp); free(up); free(vp); free(out);
    return 0;
}
