/*
 * bench_util.h — what the benchmark programs share: clocks, CPU time,
 * resident memory, FourCC names, one JSON line of results, and the
 * *reference* conversions: libyuv and TurboJPEG called directly, the same
 * calls camcore's PixelConverter makes (Sources/CamCore/Conversion/PixelConverter.swift),
 * so that "camcore ÷ reference" compares camcore's pipeline with the bare
 * library calls on the same input buffers.
 *
 * Header-only (static functions); each program includes it once.
 */
#ifndef CAMCORE_BENCH_UTIL_H
#define CAMCORE_BENCH_UTIL_H

#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <libyuv.h>
#include <turbojpeg.h>

/* ------------------------------------------------------------------ */
/* Clocks and memory                                                   */
/* ------------------------------------------------------------------ */

/** CLOCK_MONOTONIC, ns. */
static inline uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/** User + system CPU time of the whole process (all threads), ns, from getrusage. */
static inline uint64_t bench_cpu_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
           ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
}

/** A "VmXXX:" line of /proc/self/status in kB (VmRSS, VmHWM); -1 if absent. */
static inline long bench_status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, n) == 0 && line[n] == ':') { v = strtol(line + n + 1, NULL, 10); break; }
    }
    fclose(f);
    return v;
}

/* ------------------------------------------------------------------ */
/* FourCC                                                              */
/* ------------------------------------------------------------------ */

#define BENCH_FOURCC(a, b, c, d) \
    ((uint32_t)(a) | ((uint32_t)(b) << 8) | ((uint32_t)(c) << 16) | ((uint32_t)(d) << 24))
#define BENCH_YUYV  BENCH_FOURCC('Y', 'U', 'Y', 'V')
#define BENCH_I420  BENCH_FOURCC('Y', 'U', '1', '2')
#define BENCH_NV12  BENCH_FOURCC('N', 'V', '1', '2')
#define BENCH_RGB24 BENCH_FOURCC('R', 'G', 'B', '3')
#define BENCH_MJPEG BENCH_FOURCC('M', 'J', 'P', 'G')

/** "YUYV", "I420" (= YU12), "NV12", "RGB24" (= RGB3), "MJPEG" (= MJPG), or any 4 letters; 0 if bad. */
static inline uint32_t bench_parse_fourcc(const char *s)
{
    if (!s) return 0;
    if (!strcmp(s, "I420")) return BENCH_I420;
    if (!strcmp(s, "RGB24")) return BENCH_RGB24;
    if (!strcmp(s, "MJPEG")) return BENCH_MJPEG;
    if (strlen(s) != 4) return 0;
    return BENCH_FOURCC(s[0], s[1], s[2], s[3]);
}

static inline const char *bench_fourcc_str(uint32_t f, char out[5])
{
    for (int i = 0; i < 4; i++) out[i] = (char)((f >> (8 * i)) & 0xff);
    out[4] = 0;
    return out;
}

static inline int bench_parse_size(const char *s, uint32_t *w, uint32_t *h)
{
    unsigned a, b;
    if (!s || sscanf(s, "%ux%u", &a, &b) != 2 || !a || !b) return -1;
    *w = a; *h = b;
    return 0;
}

/* ------------------------------------------------------------------ */
/* One JSON object per run, on one line of stdout                      */
/* ------------------------------------------------------------------ */

typedef struct bench_json { char buf[4096]; size_t n; } bench_json;

static inline void bench_json_begin(bench_json *j) { j->n = 0; j->buf[0] = 0; }

static inline void bench_json_addf(bench_json *j, const char *key, const char *fmt, ...)
{
    if (j->n + 8 >= sizeof j->buf) return;
    j->n += (size_t)snprintf(j->buf + j->n, sizeof j->buf - j->n, "%s\"%s\": ", j->n ? ", " : "{", key);
    va_list ap;
    va_start(ap, fmt);
    if (j->n < sizeof j->buf) j->n += (size_t)vsnprintf(j->buf + j->n, sizeof j->buf - j->n, fmt, ap);
    va_end(ap);
}

static inline void bench_json_end(bench_json *j)
{
    printf("%s}\n", j->n ? j->buf : "{");
    fflush(stdout);
}

/* ------------------------------------------------------------------ */
/* Reference conversions: libyuv / TurboJPEG called directly           */
/* ------------------------------------------------------------------ */

/*
 * The calls are the ones camcore's converter routes through for the
 * benchmark's pairs (PixelConverter.route):
 *   YUYV  -> I420   YUY2ToI420
 *   NV12  -> I420   NV12ToI420
 *   YUYV  -> RGB24  YUY2ToI422 then I422ToRAW (libyuv has no one-call
 *                   YUY2->RAW; "RAW" is libyuv's name for bytes R,G,B)
 *   MJPEG -> I420   tjDecompressHeader3 then tjDecompressToYUVPlanes
 *                   straight into the I420 planes (4:2:0 JPEG, even size);
 *                   a 4:2:2 JPEG: Y straight into the I420 Y plane, U and V
 *                   into scratch, then ScalePlane (bilinear) halves them
 *                   vertically into the I420 chroma (the bytes of a whole
 *                   4:2:2 decode + I422ToI420, without the luma copy)
 * Output goes round-robin into one buffer per capture buffer, as camcore's
 * does, so both sides touch the same amount of memory.
 */
#define BENCH_OUT_BUFFERS 4

typedef struct bench_refconv {
    uint32_t src, dst;
    int w, h;
    size_t out_bytes;
    uint8_t *out[BENCH_OUT_BUFFERS];
    uint8_t *scratch;   /* I422 intermediate for YUYV -> RGB24; 4:2:2 chroma for MJPEG */
    int next;
    tjhandle tj;
    uint64_t converted, failed;
} bench_refconv;

static inline int bench_refconv_init(bench_refconv *c, uint32_t src, uint32_t dst, int w, int h)
{
    memset(c, 0, sizeof *c);
    c->src = src; c->dst = dst; c->w = w; c->h = h;
    int cw = (w + 1) / 2, ch = (h + 1) / 2;
    if (dst == BENCH_I420) c->out_bytes = (size_t)w * h + 2u * cw * ch;
    else if (dst == BENCH_RGB24) c->out_bytes = (size_t)w * h * 3;
    else return -1;
    int ok = (src == BENCH_YUYV && (dst == BENCH_I420 || dst == BENCH_RGB24)) ||
             (src == BENCH_NV12 && dst == BENCH_I420) || (src == BENCH_MJPEG && dst == BENCH_I420);
    if (!ok) return -1;
    for (int i = 0; i < BENCH_OUT_BUFFERS; i++) {
        if (posix_memalign((void **)&c->out[i], 64, c->out_bytes)) return -1;
        memset(c->out[i], 0, c->out_bytes);
    }
    if (src == BENCH_YUYV && dst == BENCH_RGB24) {
        if (posix_memalign((void **)&c->scratch, 64, (size_t)w * h + 2u * cw * h)) return -1;
        memset(c->scratch, 0, (size_t)w * h + 2u * cw * h);
    }
    if (src == BENCH_MJPEG && !(c->tj = tjInitDecompress())) return -1;
    if (src == BENCH_MJPEG) {
        if (posix_memalign((void **)&c->scratch, 64, 2u * cw * h)) return -1;
        memset(c->scratch, 0, 2u * cw * h);
    }
    return 0;
}

/*
 * Converts one frame. p0/p1 and s0/s1 are the source planes and strides
 * (NV12: Y and UV; YUYV: one plane; MJPEG: the JPEG in p0, len0 bytes).
 * Returns 0, or -1 when the library refuses the frame.
 */
static inline int bench_refconv_run(bench_refconv *c, const uint8_t *p0, int s0, const uint8_t *p1, int s1,
                             size_t len0)
{
    int w = c->w, h = c->h, cw = (w + 1) / 2, ch = (h + 1) / 2;
    uint8_t *d = c->out[c->next];
    c->next = (c->next + 1) % BENCH_OUT_BUFFERS;
    uint8_t *dy = d, *du = d + (size_t)w * h, *dv = du + (size_t)cw * ch;
    int rc = -1;
    if (c->src == BENCH_YUYV && c->dst == BENCH_I420) {
        rc = YUY2ToI420(p0, s0, dy, w, du, cw, dv, cw, w, h);
    } else if (c->src == BENCH_NV12 && c->dst == BENCH_I420) {
        rc = NV12ToI420(p0, s0, p1, s1, dy, w, du, cw, dv, cw, w, h);
    } else if (c->src == BENCH_YUYV && c->dst == BENCH_RGB24) {
        uint8_t *iy = c->scratch, *iu = iy + (size_t)w * h, *iv = iu + (size_t)cw * h;
        rc = YUY2ToI422(p0, s0, iy, w, iu, cw, iv, cw, w, h);
        if (rc == 0) rc = I422ToRAW(iy, w, iu, cw, iv, cw, d, 3 * w, w, h);
    } else if (c->src == BENCH_MJPEG && c->dst == BENCH_I420) {
        int jw = 0, jh = 0, sub = -1, cs = 0;
        if (tjDecompressHeader3(c->tj, p0, (unsigned long)len0, &jw, &jh, &sub, &cs) != 0) sub = -1;
        if (jw == w && jh == h && sub == TJSAMP_420) {
            unsigned char *planes[3] = {dy, du, dv};
            int strides[3] = {w, cw, cw};
            rc = tjDecompressToYUVPlanes(c->tj, p0, (unsigned long)len0, planes, w, strides, h, 0);
        } else if (jw == w && jh == h && sub == TJSAMP_422 && w % 2 == 0) {
            unsigned char *planes[3] = {dy, c->scratch, c->scratch + (size_t)cw * h};
            int strides[3] = {w, cw, cw};
            rc = tjDecompressToYUVPlanes(c->tj, p0, (unsigned long)len0, planes, w, strides, h, 0);
            if (rc == 0) {
                ScalePlane(planes[1], cw, cw, h, du, cw, cw, ch, kFilterBilinear);
                ScalePlane(planes[2], cw, cw, h, dv, cw, cw, ch, kFilterBilinear);
            }
        }
    }
    if (rc == 0) c->converted++; else c->failed++;
    return rc == 0 ? 0 : -1;
}

static inline void bench_refconv_free(bench_refconv *c)
{
    for (int i = 0; i < BENCH_OUT_BUFFERS; i++) free(c->out[i]);
    free(c->scratch);
    if (c->tj) tjDestroy(c->tj);
    memset(c, 0, sizeof *c);
}

#endif
