// SPDX-License-Identifier: MIT
/*
 * bench_util.h — what the benchmark programs share: clocks, CPU time,
 * resident memory, FourCC names, one JSON line of results, and the
 * *reference* conversions: libyuv and TurboJPEG called directly (the
 * libyuv routes conv_routes.c compares with camcore's bytes), so that
 * "camcore ÷ reference" compares camcore's pipeline with the bare library
 * calls on the same input buffers.
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

/** Minor page faults of the whole process so far (getrusage ru_minflt). */
static inline long bench_minflt(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
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
 * The reference side of the conversion rows is an app calling libyuv
 * itself. For each pair there are several libyuv routes (one call, or two
 * through an intermediate image); bench/c/conv_routes.c runs every route
 * below on the same frame camcore converted, keeps those whose bytes equal
 * camcore's (and, on random bytes, the first route's: libyuv's one call, or
 * the chain through I422 where there is none), and bench/run takes the
 * cheapest of them by instructions
 * (callgrind) as the reference (camcore_capture --app-route NAME). So the
 * reference is the cheapest byte-identical route found, whichever camcore
 * itself takes.
 *   YUYV  -> I420   YUY2ToI420 | YUY2ToNV12+NV12ToI420 | YUY2ToI422+I422ToI420 | YUY2ToARGB+ARGBToI420
 *   NV12  -> I420   NV12ToI420 | CopyPlane+SplitUVPlane | NV12ToARGB+ARGBToI420
 *   YUYV  -> RGB24  YUY2ToI422+I422ToRAW | YUY2ToARGB+ARGBToRAW | YUY2ToI420+I420ToRAW | YUY2ToNV12+NV12ToRAW
 *                   ("RAW" is libyuv's name for bytes R,G,B: V4L2 RGB3;
 *                   libyuv has no one-call YUY2->RAW)
 *   MJPEG -> I420   tjDecompressHeader3 then tjDecompressToYUVPlanes
 *                   straight into the I420 planes (4:2:0 JPEG, even size);
 *                   a 4:2:2 JPEG: Y into the I420 Y plane, U and V into
 *                   scratch, then ScalePlane halves them vertically
 * Intermediate images go to one scratch buffer (tightly packed), the
 * output round-robin into one buffer per capture buffer, as camcore's does,
 * so both sides touch the same amount of memory.
 */
#define BENCH_OUT_BUFFERS 4

/** Source planes: p0/s0 (YUYV: the one plane; NV12: Y) and p1/s1 (NV12: UV). */
typedef struct bench_src { const uint8_t *p0; int s0; const uint8_t *p1; int s1; } bench_src;

/** One route: writes the tightly packed output at d (I420: Y, U, V). */
typedef int (*bench_route_fn)(const bench_src *s, uint8_t *d, uint8_t *scratch, int w, int h);

typedef struct bench_route { const char *name; uint32_t src, dst; bench_route_fn fn; } bench_route;

#define BENCH_CW ((w + 1) / 2)
#define BENCH_CH ((h + 1) / 2)
#define BENCH_I420_PLANES(base) \
    uint8_t *dy = (base), *du = dy + (size_t)w * h, *dv = du + (size_t)BENCH_CW * BENCH_CH

static int br_yuy2_i420(const bench_src *s, uint8_t *d, uint8_t *t, int w, int h)
{
    (void)t; BENCH_I420_PLANES(d);
    return YUY2ToI420(s->p0, s->s0, dy, w, du, BENCH_CW, dv, BENCH_CW, w, h);
}
static int br_yuy2_nv12_i420(const bench_src *s, uint8_t *d, uint8_t *t, int w, int h)
{
    BENCH_I420_PLANES(d);
    uint8_t *ty = t, *tuv = t + (size_t)w * h;
    if (YUY2ToNV12(s->p0, s->s0, ty, w, tuv, 2 * BENCH_CW, w, h)) return -1;
    return NV12ToI420(ty, w, tuv, 2 * BENCH_CW, dy, w, du, BENCH_CW, dv, BENCH_CW, w, h);
}
static int br_yuy2_i422_i420(const bench_src *s, uint8_t *d, uint8_t *t, int w, int h)
{
    BENCH_I420_PLANES(d);
    uint8_t *ty = t, *tu = t + (size_t)w * h, *tv = tu + (size_t)BENCH_CW * h;
    if (YUY2ToI422(s->p0, s->s0, ty, w, tu, BENCH_CW, tv, BENCH_CW, w, h)) return -1;
    return I422ToI420(ty, w, tu, BENCH_CW, tv, BENCH_CW, dy, w, du, BENCH_CW, dv, BENCH_CW, w, h);
}
static int br_yuy2_argb_i420(const bench_src *s, uint8_t *d, uint8_t *t, int w, int h)
{
    BENCH_I420_PLANES(d);
    if (YUY2ToARGB(s->p0, s->s0, t, 4 * w, w, h)) return -1;
    return ARGBToI420(t, 4 * w, dy, w, du, BENCH_CW, dv, BENCH_CW, w, h);
}
static int br_nv12_i420(const bench_src *s, uint8_t *d, uint8_t *t, int w, int h)
{
    (void)t; BENCH_I420_PLANES(d);
    return NV12ToI420(s->p0, s->s0, s->p1, s->s1, dy, w, du, BENCH_CW, dv, BENCH_CW, w, h);
}
static int br_nv12_split(const bench_src *s, uint8_t *d, uint8_t *t, int w, int h)
{
    (void)t; BENCH_I420_PLANES(d);
    CopyPlane(s->p0, s->s0, dy, w, w, h);
    SplitUVPlane(s->p1, s->s1, du, BENCH_CW, dv, BENCH_CW, BENCH_CW, BENCH_CH);
    return 0;
}
static int br_nv12_argb_i420(const bench_src *s, uint8_t *d, uint8_t *t, int w, int h)
{
    BENCH_I420_PLANES(d);
    if (NV12ToARGB(s->p0, s->s0, s->p1, s->s1, t, 4 * w, w, h)) return -1;
    return ARGBToI420(t, 4 * w, dy, w, du, BENCH_CW, dv, BENCH_CW, w, h);
}
static int br_yuy2_argb_raw(const bench_src *s, uint8_t *d, uint8_t *t, int w, int h)
{
    if (YUY2ToARGB(s->p0, s->s0, t, 4 * w, w, h)) return -1;
    return ARGBToRAW(t, 4 * w, d, 3 * w, w, h);
}
static int br_yuy2_i422_raw(const bench_src *s, uint8_t *d, uint8_t *t, int w, int h)
{
    uint8_t *ty = t, *tu = t + (size_t)w * h, *tv = tu + (size_t)BENCH_CW * h;
    if (YUY2ToI422(s->p0, s->s0, ty, w, tu, BENCH_CW, tv, BENCH_CW, w, h)) return -1;
    return I422ToRAW(ty, w, tu, BENCH_CW, tv, BENCH_CW, d, 3 * w, w, h);
}
static int br_yuy2_i420_raw(const bench_src *s, uint8_t *d, uint8_t *t, int w, int h)
{
    uint8_t *ty = t, *tu = t + (size_t)w * h, *tv = tu + (size_t)BENCH_CW * BENCH_CH;
    if (YUY2ToI420(s->p0, s->s0, ty, w, tu, BENCH_CW, tv, BENCH_CW, w, h)) return -1;
    return I420ToRAW(ty, w, tu, BENCH_CW, tv, BENCH_CW, d, 3 * w, w, h);
}
static int br_yuy2_nv12_raw(const bench_src *s, uint8_t *d, uint8_t *t, int w, int h)
{
    uint8_t *ty = t, *tuv = t + (size_t)w * h;
    if (YUY2ToNV12(s->p0, s->s0, ty, w, tuv, 2 * BENCH_CW, w, h)) return -1;
    return NV12ToRAW(ty, w, tuv, 2 * BENCH_CW, d, 3 * w, w, h);
}

static const bench_route bench_routes[] = {
    {"YUY2ToI420", BENCH_YUYV, BENCH_I420, br_yuy2_i420},
    {"YUY2ToNV12+NV12ToI420", BENCH_YUYV, BENCH_I420, br_yuy2_nv12_i420},
    {"YUY2ToI422+I422ToI420", BENCH_YUYV, BENCH_I420, br_yuy2_i422_i420},
    {"YUY2ToARGB+ARGBToI420", BENCH_YUYV, BENCH_I420, br_yuy2_argb_i420},
    {"NV12ToI420", BENCH_NV12, BENCH_I420, br_nv12_i420},
    {"CopyPlane+SplitUVPlane", BENCH_NV12, BENCH_I420, br_nv12_split},
    {"NV12ToARGB+ARGBToI420", BENCH_NV12, BENCH_I420, br_nv12_argb_i420},
    {"YUY2ToI422+I422ToRAW", BENCH_YUYV, BENCH_RGB24, br_yuy2_i422_raw},
    {"YUY2ToARGB+ARGBToRAW", BENCH_YUYV, BENCH_RGB24, br_yuy2_argb_raw},
    {"YUY2ToI420+I420ToRAW", BENCH_YUYV, BENCH_RGB24, br_yuy2_i420_raw},
    {"YUY2ToNV12+NV12ToRAW", BENCH_YUYV, BENCH_RGB24, br_yuy2_nv12_raw},
};
#define BENCH_NROUTES (sizeof bench_routes / sizeof bench_routes[0])

/** The route named `name` from src to dst (NULL: the first listed for the pair); NULL if none. */
static inline const bench_route *bench_route_find(uint32_t src, uint32_t dst, const char *name)
{
    for (size_t i = 0; i < BENCH_NROUTES; i++)
        if (bench_routes[i].src == src && bench_routes[i].dst == dst && (!name || !strcmp(name, bench_routes[i].name)))
            return &bench_routes[i];
    return NULL;
}

/** Bytes of a tightly packed I420 or RGB24 image; 0 for other formats. */
static inline size_t bench_out_bytes(uint32_t dst, int w, int h)
{
    if (dst == BENCH_I420) return (size_t)w * h + 2u * (size_t)BENCH_CW * BENCH_CH;
    if (dst == BENCH_RGB24) return (size_t)w * h * 3;
    return 0;
}

typedef struct bench_refconv {
    uint32_t src, dst;
    int w, h;
    size_t out_bytes;
    uint8_t *out[BENCH_OUT_BUFFERS];
    uint8_t *scratch;   /* the intermediate image of a two-call route */
    const bench_route *route;
    int next;
    tjhandle tj;
    uint64_t converted, failed;
} bench_refconv;

/** route: a name from bench_routes (NULL: the first for the pair); ignored for MJPEG. */
static inline int bench_refconv_init(bench_refconv *c, uint32_t src, uint32_t dst, int w, int h, const char *route)
{
    memset(c, 0, sizeof *c);
    c->src = src; c->dst = dst; c->w = w; c->h = h;
    if (!(c->out_bytes = bench_out_bytes(dst, w, h))) return -1;
    if (src == BENCH_MJPEG) {
        if (dst != BENCH_I420 || !(c->tj = tjInitDecompress())) return -1;
    } else if (!(c->route = bench_route_find(src, dst, route))) {
        return -1;
    }
    for (int i = 0; i < BENCH_OUT_BUFFERS; i++) {
        if (posix_memalign((void **)&c->out[i], 64, c->out_bytes)) return -1;
        memset(c->out[i], 0, c->out_bytes);
    }
    size_t sb = 4u * (size_t)w * h + 64;   /* room for any intermediate: ARGB */
    if (posix_memalign((void **)&c->scratch, 64, sb)) return -1;
    memset(c->scratch, 0, sb);
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
    int w = c->w, h = c->h;
    uint8_t *d = c->out[c->next];
    c->next = (c->next + 1) % BENCH_OUT_BUFFERS;
    int rc = -1;
    if (c->route) {
        bench_src s = {p0, s0, p1, s1};
        rc = c->route->fn(&s, d, c->scratch, w, h);
    } else if (c->src == BENCH_MJPEG && c->dst == BENCH_I420) {
        BENCH_I420_PLANES(d);
        int jw = 0, jh = 0, sub = -1, cs = 0, cw = BENCH_CW, ch = BENCH_CH;
        if (tjDecompressHeader3(c->tj, p0, (unsigned long)len0, &jw, &jh, &sub, &cs) != 0) sub = -1;
        if (jw == w && jh == h && sub == TJSAMP_420) {
            unsigned char *planes[3] = {dy, du, dv};
            int strides[3] = {w, cw, cw};
            rc = tjDecompressToYUVPlanes(c->tj, p0, (unsigned long)len0, planes, w, strides, h, 0);
        } else if (jw == w && jh == h && sub == TJSAMP_422 && w % 2 == 0) {
            /* Y straight into the I420 Y plane, U and V into scratch, then
             * ScalePlane (bilinear) halves them vertically: the bytes of a
             * whole 4:2:2 decode + I422ToI420, without the luma copy. */
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
