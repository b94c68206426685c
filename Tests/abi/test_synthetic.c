// SPDX-License-Identifier: MIT
/*
 * test_synthetic.c — the C ABI of libcamcore against the synthetic camera.
 *
 * Asserts real values through include/camcore.h only: versions, status
 * names, the device list with and without the synthetic camera (S4), its
 * formats (S5), captures in YUYV, I420 and NV12 (S22: FourCC, size, planes,
 * strides, lengths, sequence, CLOCK_MONOTONIC timestamps, rate), retain and
 * release (S23), stop/close semantics and calls from inside callbacks
 * (STYLE.md threads), and bad input (S31).
 *
 * Each test is named after the SPEC rule it checks. Every check prints on
 * failure; the last line is "N passed, M failed". Exit 0 only if M is 0.
 * A watchdog ends the run (exit 1) if anything hangs.
 *
 * Build:  cc -std=c99 test_synthetic.c testlib.c $(pkg-config --cflags --libs camcore) -pthread
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */

#include "testlib.h"

#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* Frame recorder: the callbacks only record; checks run in main        */
/* ------------------------------------------------------------------ */

#define MAX_REC 256
#define MAX_RETAINED 8

struct rec {
    uint32_t struct_size, fourcc, width, height, plane_count, flags, sequence, dropped_before;
    camcore_plane planes[3];
    uint64_t timestamp_ns;
    uint64_t now_ns;       /* clock_gettime(CLOCK_MONOTONIC) when the callback ran */
    uint32_t hash;         /* FNV-1a of plane 0 */
    uint8_t min0, max0;    /* smallest and largest byte of plane 0 */
    int content;           /* ctx->inspect's verdict: 1 good, 0 bad, -1 not inspected */
};

struct ctx {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct rec recs[MAX_REC];
    unsigned entered;          /* callbacks started */
    unsigned total;            /* callbacks finished */
    int in_callback;
    unsigned sleep_ms;         /* make each callback this slow */
    int (*inspect)(const camcore_frame *); /* checks pixel content, on the capture thread */
    int error_count, error_status;

    /* Calls from inside the callback (first frame only). */
    camcore_capturer *cap;
    int inside_test;
    int inside_done;
    int inside_stop_rc, inside_start_rc;
    char inside_stop_msg[256], inside_close_msg[256];

    /* Retention. */
    int retain_index;          /* retain the frame with this index, -1: none */
    unsigned retain_first;     /* retain the first N frames */
    const camcore_frame *retained[MAX_RETAINED];
    unsigned retained_count;
    uint8_t *copy;             /* copy of plane 0 of retained[0] at retain time */
    size_t copy_len;
};

static uint32_t fnv1a(const uint8_t *p, size_t n, uint8_t *min, uint8_t *max)
{
    uint32_t h = 2166136261u;
    uint8_t lo = 255, hi = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        h = (h ^ p[i]) * 16777619u;
        if (p[i] < lo)
            lo = p[i];
        if (p[i] > hi)
            hi = p[i];
    }
    *min = lo;
    *max = hi;
    return h;
}

static void ctx_init(struct ctx *c)
{
    pthread_condattr_t attr;

    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->lock, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&c->cond, &attr);
    pthread_condattr_destroy(&attr);
    c->retain_index = -1;
}

static void ctx_destroy(struct ctx *c)
{
    pthread_cond_destroy(&c->cond);
    pthread_mutex_destroy(&c->lock);
    free(c->copy);
    c->copy = NULL;
}

static void on_frame(void *user_data, const camcore_frame *f)
{
    struct ctx *c = user_data;
    struct rec r;
    unsigned index;
    int inside;

    memset(&r, 0, sizeof r);
    r.now_ns = now_ns();
    r.struct_size = f->struct_size;
    r.fourcc = f->fourcc;
    r.width = f->width;
    r.height = f->height;
    r.plane_count = f->plane_count;
    r.flags = f->flags;
    r.sequence = f->sequence;
    r.dropped_before = f->dropped_before;
    memcpy(r.planes, f->planes, sizeof r.planes);
    r.timestamp_ns = f->timestamp_ns;
    r.content = c->inspect ? c->inspect(f) : -1;
    if (f->planes[0].data != NULL)
        r.hash = fnv1a(f->planes[0].data, f->planes[0].length, &r.min0, &r.max0);

    pthread_mutex_lock(&c->lock);
    c->in_callback = 1;
    index = c->entered++;
    if (index < MAX_REC)
        c->recs[index] = r;
    if ((c->retain_index >= 0 && index == (unsigned)c->retain_index) ||
        index < c->retain_first) {
        if (c->retained_count < MAX_RETAINED) {
            const camcore_frame *kept = camcore_frame_retain(f);
            if (c->retained_count == 0 && kept != NULL && kept->planes[0].data != NULL) {
                c->copy_len = kept->planes[0].length;
                c->copy = malloc(c->copy_len);
                if (c->copy != NULL)
                    memcpy(c->copy, kept->planes[0].data, c->copy_len);
            }
            c->retained[c->retained_count++] = kept;
        }
    }
    inside = c->inside_test && index == 0;
    pthread_mutex_unlock(&c->lock);

    if (c->sleep_ms)
        sleep_ms(c->sleep_ms);

    if (inside) {
        /* Stop and close from the capture thread itself must not hang. */
        int stop_rc = camcore_capturer_stop(c->cap);
        char stop_msg[256], close_msg[256];
        int start_rc;

        snprintf(stop_msg, sizeof stop_msg, "%s", camcore_last_error_message());
        camcore_capturer_close(c->cap);
        snprintf(close_msg, sizeof close_msg, "%s", camcore_last_error_message());
        start_rc = camcore_capturer_start(c->cap, NULL, NULL);

        pthread_mutex_lock(&c->lock);
        c->inside_stop_rc = stop_rc;
        c->inside_start_rc = start_rc;
        memcpy(c->inside_stop_msg, stop_msg, sizeof stop_msg);
        memcpy(c->inside_close_msg, close_msg, sizeof close_msg);
        c->inside_done = 1;
        pthread_mutex_unlock(&c->lock);
    }

    pthread_mutex_lock(&c->lock);
    c->total++;
    c->in_callback = 0;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

static void on_error(void *user_data, int status, const char *message)
{
    struct ctx *c = user_data;

    (void)message;
    pthread_mutex_lock(&c->lock);
    c->error_count++;
    c->error_status = status;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

/* Waits until *counter >= n (or, with counter NULL, inside_done); returns 1
 * if reached within timeout_ms. */
static int wait_for(struct ctx *c, const unsigned *counter, unsigned n, unsigned timeout_ms)
{
    struct timespec deadline;
    uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000u;
    int reached;

    deadline.tv_sec = (time_t)(end / 1000000000u);
    deadline.tv_nsec = (long)(end % 1000000000u);
    pthread_mutex_lock(&c->lock);
    for (;;) {
        reached = counter ? *counter >= n : c->inside_done != 0;
        if (reached || pthread_cond_timedwait(&c->cond, &c->lock, &deadline) != 0)
            break;
    }
    reached = counter ? *counter >= n : c->inside_done != 0;
    pthread_mutex_unlock(&c->lock);
    return reached;
}

static unsigned read_counter(struct ctx *c, const unsigned *counter)
{
    unsigned v;

    pthread_mutex_lock(&c->lock);
    v = *counter;
    pthread_mutex_unlock(&c->lock);
    return v;
}

static camcore_frame_callbacks callbacks_for(struct ctx *c)
{
    camcore_frame_callbacks cb;

    camcore_frame_callbacks_init(&cb);
    cb.user_data = c;
    cb.on_frame = on_frame;
    cb.on_error = on_error;
    return cb;
}

static camcore_capture_format get_format(camcore_capturer *cap, int *status)
{
    camcore_capture_format fmt;

    memset(&fmt, 0, sizeof fmt);
    fmt.struct_size = sizeof fmt;
    *status = camcore_capturer_get_format(cap, &fmt);
    return fmt;
}

static camcore_capture_stats get_stats(camcore_capturer *cap, int *status)
{
    camcore_capture_stats st;

    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    *status = camcore_capturer_get_stats(cap, &st);
    return st;
}

static const char *fourcc_str(uint32_t code, char buf[5])
{
    return camcore_fourcc_to_string(code, buf);
}

/* ------------------------------------------------------------------ */
/* Pixel content of the synthetic test pattern                         */
/* ------------------------------------------------------------------ */

/* The synthetic camera draws 8 colour bars (white, yellow, cyan, green,
 * magenta, red, blue, black; BT.601 limited range, sliding left) and a
 * white square (Sources/CamCore/Backends/Synthetic/SyntheticCamera.swift). Every Y, U and V
 * byte is therefore one of these values, and each sits in its own plane:
 * a swapped or misplaced plane shows up as a value outside its set. */
static const uint8_t BAR_Y[8] = { 235, 210, 170, 145, 106, 81, 41, 16 };
static const uint8_t BAR_U[8] = { 128, 16, 166, 54, 202, 90, 240, 128 };
static const uint8_t BAR_V[8] = { 128, 146, 16, 34, 222, 240, 110, 128 };
/* The same bars in RGB (what a BT.601 limited-range conversion gives). */
static const uint8_t BAR_RGB[8][3] = { { 255, 255, 255 }, { 255, 255, 0 }, { 0, 255, 255 },
                                       { 0, 255, 0 },     { 255, 0, 255 },   { 255, 0, 0 },
                                       { 0, 0, 255 },     { 0, 0, 0 } };

static int in_set(uint8_t v, const uint8_t set[8])
{
    int i;

    for (i = 0; i < 8; i++)
        if (set[i] == v)
            return 1;
    return 0;
}

/* Native YUYV / I420 / NV12 frames: rows 0, h/2 and h-1 of every plane. */
static int inspect_yuv(const camcore_frame *f)
{
    const uint32_t rows[3] = { 0, f->height / 2, f->height - 1 };
    uint32_t r, x;

    for (r = 0; r < 3; r++) {
        uint32_t y = rows[r];
        const uint8_t *p0 = f->planes[0].data + (size_t)y * f->planes[0].stride;
        switch (f->fourcc) {
        case CAMCORE_FOURCC_YUYV:
            for (x = 0; x + 1 < f->width; x += 2)
                if (!in_set(p0[2 * x], BAR_Y) || !in_set(p0[2 * x + 1], BAR_U) ||
                    !in_set(p0[2 * x + 2], BAR_Y) || !in_set(p0[2 * x + 3], BAR_V))
                    return 0;
            break;
        case CAMCORE_FOURCC_I420: {
            const uint8_t *u = f->planes[1].data + (size_t)(y / 2) * f->planes[1].stride;
            const uint8_t *v = f->planes[2].data + (size_t)(y / 2) * f->planes[2].stride;
            for (x = 0; x < f->width; x++)
                if (!in_set(p0[x], BAR_Y) || !in_set(u[x / 2], BAR_U) || !in_set(v[x / 2], BAR_V))
                    return 0;
            break;
        }
        case CAMCORE_FOURCC_NV12: {
            const uint8_t *uv = f->planes[1].data + (size_t)(y / 2) * f->planes[1].stride;
            for (x = 0; x < f->width; x++)
                if (!in_set(p0[x], BAR_Y) || !in_set(uv[x / 2 * 2], BAR_U) ||
                    !in_set(uv[x / 2 * 2 + 1], BAR_V))
                    return 0;
            break;
        }
        default:
            return 0;
        }
    }
    return 1;
}

/* The bar index of an RGB(A)/BGR pixel, or -1 if it is none of them. */
static int bar_of(const uint8_t *px, int bgr)
{
    int i, c;

    for (i = 0; i < 8; i++) {
        int ok = 1;
        for (c = 0; c < 3; c++) {
            int want = BAR_RGB[i][bgr ? 2 - c : c];
            int d = px[c] - want;
            if (d < -16 || d > 16)
                ok = 0;
        }
        if (ok)
            return i;
    }
    return -1;
}

/* One RGB row: every pixel (but a few at bar edges) is a bar colour, and
 * the bars come in their order (red then blue, not blue then red). */
static int rgb_row_ok(const uint8_t *row, uint32_t w, uint32_t bpp, int bgr, int *order_ok)
{
    uint32_t x, bad = 0, run = 0;
    int prev = -2, current = -2, last_run = -2;

    *order_ok = 1;
    for (x = 0; x < w; x++) {
        int b = bar_of(row + (size_t)x * bpp, bgr);
        if (b < 0) {
            bad++;
            continue;
        }
        if (bpp == 4 && row[(size_t)x * 4 + 3] != 255)
            return 0; /* RGBA: opaque */
        if (b == current) {
            run++;
        } else {
            current = b;
            run = 1;
        }
        if (run == 4 && current != last_run) { /* a run long enough to be a bar */
            prev = last_run;
            last_run = current;
            if (prev >= 0 && current != (prev + 1) % 8)
                *order_ok = 0;
        }
    }
    return bad <= w / 50;
}

static int inspect_rgb_common(const camcore_frame *f, uint32_t bpp, int bgr)
{
    const uint32_t rows[3] = { 0, f->height / 2, f->height - 1 };
    int r, order, any_order = 0;

    for (r = 0; r < 3; r++) {
        if (!rgb_row_ok(f->planes[0].data + (size_t)rows[r] * f->planes[0].stride, f->width, bpp,
                        bgr, &order))
            return 0;
        any_order |= order; /* the white square may break the order in one row */
    }
    return any_order;
}

static int inspect_rgb24(const camcore_frame *f) { return inspect_rgb_common(f, 3, 0); }
static int inspect_bgr24(const camcore_frame *f) { return inspect_rgb_common(f, 3, 1); }
static int inspect_rgba(const camcore_frame *f) { return inspect_rgb_common(f, 4, 0); }

/* ------------------------------------------------------------------ */
/* Shared state: one manager with the synthetic camera                 */
/* ------------------------------------------------------------------ */

static camcore_manager *g_manager;
static char g_synth_id[256];

/* Finds the synthetic camera in a list; NULL if absent. */
static const camcore_device_info *find_synthetic(const camcore_device_list *list, size_t *count)
{
    const camcore_device_info *found = NULL;
    size_t i, n = 0;

    for (i = 0; i < list->count; i++)
        if (list->devices[i].flags & CAMCORE_DEVICE_SYNTHETIC) {
            found = &list->devices[i];
            n++;
        }
    if (count)
        *count = n;
    return found;
}

static camcore_capturer *open_synthetic(void)
{
    camcore_capturer *cap = NULL;
    int rc = camcore_capturer_open(g_manager, g_synth_id, &cap);

    CHECK_STATUS(rc, CAMCORE_OK, "camcore_capturer_open(synthetic)");
    CHECK(rc != CAMCORE_OK || cap != NULL, "open returned OK but a NULL capturer");
    return rc == CAMCORE_OK ? cap : NULL;
}

/* Checks one recorded plane. */
static void check_plane(const struct rec *r, unsigned i, unsigned p, uint32_t stride,
                        uint32_t length)
{
    CHECK(r->planes[p].data != NULL, "frame %u plane %u: data is NULL", i, p);
    CHECK(r->planes[p].stride == stride, "frame %u plane %u: stride %" PRIu32 ", expected %" PRIu32,
          i, p, r->planes[p].stride, stride);
    CHECK(r->planes[p].length == length, "frame %u plane %u: length %" PRIu32 ", expected %" PRIu32,
          i, p, r->planes[p].length, length);
}

static void check_plane_unused(const struct rec *r, unsigned i, unsigned p)
{
    CHECK(r->planes[p].data == NULL && r->planes[p].stride == 0 && r->planes[p].length == 0,
          "frame %u plane %u past plane_count is not zero (%p, %" PRIu32 ", %" PRIu32 ")", i, p,
          (void *)r->planes[p].data, r->planes[p].stride, r->planes[p].length);
}

/* Planes of one frame must not overlap. */
static void check_planes_disjoint(const struct rec *r, unsigned i)
{
    uint32_t a, b;

    for (a = 0; a < r->plane_count && a < 3; a++)
        for (b = a + 1; b < r->plane_count && b < 3; b++) {
            const uint8_t *pa = r->planes[a].data, *pb = r->planes[b].data;
            int disjoint = pa + r->planes[a].length <= pb || pb + r->planes[b].length <= pa;
            CHECK(disjoint, "frame %u: planes %" PRIu32 " and %" PRIu32 " overlap", i, a, b);
        }
}

/* The S22 checks common to every capture: n frames of the given format,
 * sequence from 0 and strictly rising, gaps matching dropped_before,
 * timestamps strictly rising, close to CLOCK_MONOTONIC "now" and after
 * t_start, measured rate close to fps. */
static void check_sequence_and_time(struct ctx *c, unsigned n, uint64_t t_start, double fps)
{
    unsigned i;
    double measured;

    CHECK(c->recs[0].sequence == 0, "first sequence is %" PRIu32 ", expected 0",
          c->recs[0].sequence);
    CHECK(c->recs[0].timestamp_ns >= t_start,
          "first timestamp %" PRIu64 " is before the start call (%" PRIu64 "): not CLOCK_MONOTONIC?",
          c->recs[0].timestamp_ns, t_start);
    for (i = 0; i < n; i++) {
        const struct rec *r = &c->recs[i];
        /* Taken before the callback ran: not in the future, not stale. */
        CHECK(r->timestamp_ns <= r->now_ns,
              "frame %u timestamp %" PRIu64 " is after clock_gettime %" PRIu64, i, r->timestamp_ns,
              r->now_ns);
        CHECK(r->now_ns - r->timestamp_ns < 250000000u,
              "frame %u timestamp is %.1f ms older than clock_gettime(CLOCK_MONOTONIC)", i,
              (double)(r->now_ns - r->timestamp_ns) / 1e6);
        CHECK(!(r->flags & CAMCORE_FRAME_CORRUPTED), "frame %u flagged corrupted", i);
        if (i > 0) {
            const struct rec *q = &c->recs[i - 1];
            CHECK(r->sequence > q->sequence, "sequence not strictly rising: %" PRIu32 " then %" PRIu32,
                  q->sequence, r->sequence);
            CHECK(r->sequence - q->sequence - 1 == r->dropped_before,
                  "frame %u: sequence gap %" PRIu32 " but dropped_before %" PRIu32, i,
                  r->sequence - q->sequence - 1, r->dropped_before);
            CHECK(r->timestamp_ns > q->timestamp_ns,
                  "timestamps not strictly rising at frame %u: %" PRIu64 " then %" PRIu64, i,
                  q->timestamp_ns, r->timestamp_ns);
        }
    }
    if (n > 1 && c->recs[n - 1].timestamp_ns > c->recs[0].timestamp_ns) {
        measured = (n - 1) * 1e9 / (double)(c->recs[n - 1].timestamp_ns - c->recs[0].timestamp_ns);
        CHECK(measured > fps * 0.85 && measured < fps * 1.15,
              "measured %.2f fps from timestamps, asked %.0f", measured, fps);
    }
}

/* Captures n frames with cfg on a fresh capturer; records into c. Returns
 * the format read back (status in *fmt_status) or zeros. */
static int capture_frames(struct ctx *c, const camcore_capture_config *cfg, unsigned n,
                          camcore_capture_format *fmt, camcore_capture_stats *stats,
                          uint64_t *t_start)
{
    camcore_capturer *cap = open_synthetic();
    camcore_frame_callbacks cb = callbacks_for(c);
    int rc, ok = 0;
    unsigned before;

    if (cap == NULL)
        return 0;
    *t_start = now_ns();
    rc = camcore_capturer_start(cap, cfg, &cb);
    CHECK_STATUS(rc, CAMCORE_OK, "camcore_capturer_start");
    if (rc == CAMCORE_OK) {
        CHECK(camcore_capturer_is_streaming(cap) != 0, "is_streaming is 0 after start");
        *fmt = get_format(cap, &rc);
        CHECK_STATUS(rc, CAMCORE_OK, "camcore_capturer_get_format");
        ok = wait_for(c, &c->total, n, 10000);
        CHECK(ok, "only %u of %u frames within 10 s", read_counter(c, &c->total), n);
        CHECK_STATUS(camcore_capturer_stop(cap), CAMCORE_OK, "camcore_capturer_stop");
        CHECK(camcore_capturer_is_streaming(cap) == 0, "is_streaming is not 0 after stop");
        *stats = get_stats(cap, &rc);
        CHECK_STATUS(rc, CAMCORE_OK, "camcore_capturer_get_stats after stop");
        /* No callback after stop returned. */
        before = read_counter(c, &c->entered);
        sleep_ms(120);
        CHECK(read_counter(c, &c->entered) == before, "a callback ran after stop returned");
        CHECK(c->error_count == 0, "on_error called (%d)", c->error_status);
    }
    camcore_capturer_close(cap);
    return ok;
}

/* ------------------------------------------------------------------ */
/* S29: version, status names, messages                                */
/* ------------------------------------------------------------------ */

static void test_S29_version(void)
{
    char expect[32];

    CHECK(camcore_version() == CAMCORE_VERSION, "camcore_version() 0x%06" PRIx32 " != header 0x%06x",
          camcore_version(), (unsigned)CAMCORE_VERSION);
    CHECK(CAMCORE_VERSION == CAMCORE_VERSION_NUM(0, 2, 0) && CAMCORE_VERSION == 0x000200u,
          "CAMCORE_VERSION packs 0.2.0 as 0x%06x", (unsigned)CAMCORE_VERSION);
    snprintf(expect, sizeof expect, "%d.%d.%d", CAMCORE_VERSION_MAJOR, CAMCORE_VERSION_MINOR,
             CAMCORE_VERSION_PATCH);
    CHECK(camcore_version_string() != NULL && strcmp(camcore_version_string(), expect) == 0,
          "camcore_version_string() '%s', expected '%s'",
          camcore_version_string() ? camcore_version_string() : "(null)", expect);
    CHECK(strcmp(CAMCORE_VERSION_STRING, expect) == 0, "CAMCORE_VERSION_STRING '%s', expected '%s'",
          CAMCORE_VERSION_STRING, expect);
}

static void test_S29_strerror_names(void)
{
    static const struct {
        int code;
        const char *name;
    } names[] = {
        { CAMCORE_OK, "CAMCORE_OK" },
        { CAMCORE_E_INVALID_ARG, "CAMCORE_E_INVALID_ARG" },
        { CAMCORE_E_NO_DEVICE, "CAMCORE_E_NO_DEVICE" },
        { CAMCORE_E_BUSY, "CAMCORE_E_BUSY" },
        { CAMCORE_E_ACCESS, "CAMCORE_E_ACCESS" },
        { CAMCORE_E_NOT_SUPPORTED, "CAMCORE_E_NOT_SUPPORTED" },
        { CAMCORE_E_TIMEOUT, "CAMCORE_E_TIMEOUT" },
        { CAMCORE_E_IO, "CAMCORE_E_IO" },
        { CAMCORE_E_STATE, "CAMCORE_E_STATE" },
        { CAMCORE_E_CUSTOM_SOURCE_ACTIVE, "CAMCORE_E_CUSTOM_SOURCE_ACTIVE" },
        { CAMCORE_E_WOULD_DEADLOCK, "CAMCORE_E_WOULD_DEADLOCK" },
        { CAMCORE_E_NO_MEMORY, "CAMCORE_E_NO_MEMORY" },
        { CAMCORE_E_INTERNAL, "CAMCORE_E_INTERNAL" },
        { CAMCORE_E_BANDWIDTH, "CAMCORE_E_BANDWIDTH" },
    };
    static const int unknown[] = { 1, -14, -100, 12345, -2147483647 - 1 };
    size_t i;
    char buf[5];

    /* The codes are stable: they are part of the ABI. */
    CHECK(CAMCORE_E_INVALID_ARG == -1 && CAMCORE_E_WOULD_DEADLOCK == -10 &&
              CAMCORE_E_INTERNAL == -12 && CAMCORE_E_BANDWIDTH == -13,
          "status code values changed");
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *s = camcore_strerror(names[i].code);
        size_t len = strlen(names[i].name);
        /* "CAMCORE_E_BUSY: device busy" — the name, then end or ':'. */
        CHECK(s != NULL && strncmp(s, names[i].name, len) == 0 &&
                  (s[len] == '\0' || s[len] == ':'),
              "camcore_strerror(%d) = '%s', expected it to start with '%s'", names[i].code,
              s ? s : "(null)", names[i].name);
    }
    for (i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        const char *s = camcore_strerror(unknown[i]);
        CHECK(s != NULL && strcmp(s, "unknown status") == 0,
              "camcore_strerror(%d) = '%s', expected 'unknown status'", unknown[i],
              s ? s : "(null)");
    }

    /* FourCC helpers. */
    CHECK(camcore_fourcc_to_string(CAMCORE_FOURCC_YUYV, buf) == buf && strcmp(buf, "YUYV") == 0,
          "fourcc_to_string(YUYV) = '%s'", buf);
    CHECK(strcmp(fourcc_str(CAMCORE_FOURCC_I420, buf), "YU12") == 0, "I420 is '%s', expected YU12",
          buf);
    CHECK(strcmp(fourcc_str(CAMCORE_FOURCC_NV12, buf), "NV12") == 0, "NV12 is '%s'", buf);
    CHECK(strcmp(fourcc_str(CAMCORE_FOURCC_MJPEG, buf), "MJPG") == 0, "MJPEG is '%s'", buf);
    CHECK(CAMCORE_FOURCC_YUYV == 0x56595559u, "CAMCORE_FOURCC_YUYV is 0x%08x, expected V4L2's",
          (unsigned)CAMCORE_FOURCC_YUYV);
    CHECK(camcore_fourcc_to_string(CAMCORE_FOURCC_YUYV, NULL) == NULL,
          "fourcc_to_string(x, NULL) should return NULL");
}

static void *thread_last_error(void *arg)
{
    char *out = arg;

    snprintf(out, 256, "%s", camcore_last_error_message());
    return NULL;
}

static void test_S29_last_error_per_thread(void)
{
    char other[256], before[256];
    const char *msg;
    pthread_t t;
    camcore_device_list *list = NULL;

    CHECK_STATUS(camcore_manager_new(NULL, NULL), CAMCORE_E_INVALID_ARG,
                 "camcore_manager_new(NULL, NULL)");
    msg = camcore_last_error_message();
    CHECK(msg != NULL && msg[0] != '\0', "no last error message after a failure");
    snprintf(before, sizeof before, "%s", msg ? msg : "");

    /* Another thread has its own, empty, message. */
    memset(other, 'x', sizeof other);
    pthread_create(&t, NULL, thread_last_error, other);
    pthread_join(t, NULL);
    CHECK(strcmp(other, "") == 0, "a fresh thread sees last error '%s', expected ''", other);

    /* Successful calls leave it as it was. */
    CHECK_STATUS(camcore_manager_list_devices(g_manager, &list), CAMCORE_OK, "list_devices");
    camcore_device_list_free(list);
    (void)camcore_version();
    msg = camcore_last_error_message();
    CHECK(msg != NULL && strcmp(msg, before) == 0,
          "a successful call changed the last error from '%s' to '%s'", before, msg ? msg : "(null)");

    /* A different failure replaces it. */
    CHECK_STATUS(camcore_capturer_open(g_manager, "no-such-camera", NULL), CAMCORE_E_INVALID_ARG,
                 "capturer_open(out NULL)");
    msg = camcore_last_error_message();
    CHECK(msg != NULL && msg[0] != '\0', "empty message after capturer_open failure");
}

/* ------------------------------------------------------------------ */
/* S4: the synthetic camera is listed only when asked for              */
/* ------------------------------------------------------------------ */

static size_t count_synthetic_with(int include, const char *env, size_t *real_count)
{
    camcore_manager_config cfg;
    camcore_manager *m = NULL;
    camcore_device_list *list = NULL;
    size_t n = (size_t)-1, i;

    if (env)
        setenv("CAMCORE_SYNTHETIC_CAMERA", env, 1);
    else
        unsetenv("CAMCORE_SYNTHETIC_CAMERA");
    camcore_manager_config_init(&cfg);
    CHECK(cfg.struct_size == sizeof cfg && cfg.include_synthetic == 0,
          "manager_config_init: struct_size %" PRIu32 ", include_synthetic %d", cfg.struct_size,
          (int)cfg.include_synthetic);
    cfg.include_synthetic = include;
    CHECK_STATUS(camcore_manager_new(&cfg, &m), CAMCORE_OK, "camcore_manager_new");
    if (m != NULL) {
        CHECK_STATUS(camcore_manager_list_devices(m, &list), CAMCORE_OK, "list_devices");
        if (list != NULL) {
            find_synthetic(list, &n);
            if (real_count) {
                *real_count = 0;
                for (i = 0; i < list->count; i++)
                    if (!(list->devices[i].flags & CAMCORE_DEVICE_SYNTHETIC))
                        (*real_count)++;
            }
        }
        camcore_device_list_free(list);
        camcore_manager_free(m);
    }
    unsetenv("CAMCORE_SYNTHETIC_CAMERA");
    return n;
}

static void test_S4_synthetic_listed_only_when_asked(void)
{
    camcore_device_list *list = NULL;
    camcore_manager *m = NULL;
    const camcore_device_info *d;
    size_t n, real_without = 0, real_with = 0;

    n = count_synthetic_with(0, NULL, &real_without);
    CHECK(n == 0, "synthetic listed %zu time(s) without being asked", n);
    n = count_synthetic_with(1, NULL, &real_with);
    CHECK(n == 1, "include_synthetic=1 lists the synthetic camera %zu time(s), expected 1", n);
    CHECK(real_with == real_without, "real cameras: %zu without synthetic, %zu with", real_without,
          real_with);
    n = count_synthetic_with(0, "1", NULL);
    CHECK(n == 1, "CAMCORE_SYNTHETIC_CAMERA=1 lists the synthetic camera %zu time(s), expected 1", n);
    n = count_synthetic_with(0, "0", NULL);
    CHECK(n == 0, "CAMCORE_SYNTHETIC_CAMERA=0 lists the synthetic camera %zu time(s), expected 0", n);

    /* NULL config = defaults = no synthetic camera. */
    CHECK_STATUS(camcore_manager_new(NULL, &m), CAMCORE_OK, "camcore_manager_new(NULL config)");
    if (m != NULL && camcore_manager_list_devices(m, &list) == CAMCORE_OK) {
        CHECK(find_synthetic(list, NULL) == NULL, "NULL config lists the synthetic camera");
        camcore_device_list_free(list);
        list = NULL;
    }
    camcore_manager_free(m);

    /* Its fields, from the shared manager. */
    CHECK_STATUS(camcore_manager_list_devices(g_manager, &list), CAMCORE_OK, "list_devices");
    if (list == NULL)
        return;
    d = find_synthetic(list, NULL);
    CHECK(d != NULL, "no synthetic camera in the shared manager");
    if (d != NULL) {
        CHECK(d == &list->devices[list->count - 1], "synthetic camera is not last in the list");
        CHECK(d->id != NULL && d->id[0] != '\0', "synthetic id empty");
        CHECK(d->id != NULL && strcmp(d->id, g_synth_id) == 0,
              "synthetic id not stable across lists: '%s' vs '%s'", d->id ? d->id : "(null)",
              g_synth_id);
        CHECK(d->name != NULL && d->name[0] != '\0', "synthetic name empty");
        CHECK(d->node != NULL && strcmp(d->node, "synthetic") == 0, "node '%s', expected 'synthetic'",
              d->node ? d->node : "(null)");
        CHECK(d->driver != NULL && strcmp(d->driver, "camcore") == 0, "driver '%s', expected 'camcore'",
              d->driver ? d->driver : "(null)");
        CHECK(d->bus_info != NULL, "bus_info NULL (strings are never NULL)");
        CHECK(d->type == CAMCORE_DEVICE_TYPE_VIRTUAL, "type %d, expected VIRTUAL (2)", (int)d->type);
        CHECK((d->flags & CAMCORE_DEVICE_SYNTHETIC) && !(d->flags & CAMCORE_DEVICE_MULTIPLANAR),
              "flags 0x%" PRIx32 ", expected SYNTHETIC only", d->flags);
        CHECK(d->device_caps == 0, "device_caps 0x%" PRIx32 ", expected 0", d->device_caps);
        CHECK(d->usb_vendor_id == 0 && d->usb_product_id == 0, "USB ids %04x:%04x, expected 0",
              d->usb_vendor_id, d->usb_product_id);
        CHECK(d->position >= CAMCORE_POSITION_UNKNOWN && d->position <= CAMCORE_POSITION_EXTERNAL,
              "position %d out of range", (int)d->position);
    }
    /* The details (0.2): one per entry, of the library's size; the synthetic
     * camera is in no other backend (S42): no other ids, the array still ends
     * in NULL. */
    CHECK(list->details != NULL, "details NULL in a list of %zu", list->count);
    for (size_t k = 0; list->details && k < list->count; k++) {
        const camcore_device_details *more = list->details[k];
        CHECK(more != NULL && more->struct_size == sizeof(camcore_device_details),
              "details[%zu]: struct_size %u, expected %zu", k, more ? more->struct_size : 0u,
              sizeof(camcore_device_details));
        if (more && d == &list->devices[k])
            CHECK(more->other_id_count == 0 && more->other_ids && more->other_ids[0] == NULL && more->rotation == -1,
                  "synthetic camera: %u other ids, rotation %d", more->other_id_count, (int)more->rotation);
        for (uint32_t j = 0; more && more->other_ids && j < more->other_id_count; j++)
            CHECK(more->other_ids[j] && strchr(more->other_ids[j], ':'), "details[%zu]: other id %u '%s' has no backend",
                  k, j, more->other_ids[j] ? more->other_ids[j] : "(null)");
        if (more && more->other_ids)
            CHECK(more->other_ids[more->other_id_count] == NULL, "details[%zu]: other ids not NULL-terminated", k);
    }
    camcore_device_list_free(list);
}

/* ------------------------------------------------------------------ */
/* S5: the synthetic camera's formats                                  */
/* ------------------------------------------------------------------ */

/* The pixel-format table through the ABI: real values for I420, NV12,
 * YUYV, RGB24, MJPEG, a big-endian name and an unknown FourCC. */
static void plane_size_is(uint32_t fourcc, uint32_t w, uint32_t h, uint32_t p, uint32_t want_row,
                          uint32_t want_rows)
{
    uint32_t row = 99, rows = 99;
    char name[5];
    int rc = camcore_pixel_format_plane_size(fourcc, w, h, p, &row, &rows);

    CHECK(rc == CAMCORE_OK && row == want_row && rows == want_rows,
          "%s %ux%u plane %u: rc %d, %u bytes x %u rows, expected %u x %u",
          camcore_fourcc_to_string(fourcc, name), (unsigned)w, (unsigned)h, (unsigned)p, rc,
          (unsigned)row, (unsigned)rows, (unsigned)want_row, (unsigned)want_rows);
}

static camcore_pixel_format_info format_info(uint32_t fourcc, int *rc)
{
    camcore_pixel_format_info info;

    memset(&info, 0xAB, sizeof info);
    info.struct_size = sizeof info;
    *rc = camcore_pixel_format_get_info(fourcc, &info);
    return info;
}

static void test_S5_pixel_format_table(void)
{
    const uint32_t y16_be = CAMCORE_FOURCC('Y', '1', '6', ' ') | 0x80000000u;
    camcore_pixel_format_info info;
    uint32_t bytes = 99, row = 99, rows = 99;
    int rc;

    info = format_info(CAMCORE_FOURCC_I420, &rc);
    CHECK_STATUS(rc, CAMCORE_OK, "get_info(I420)");
    CHECK(info.fourcc == CAMCORE_FOURCC_I420 && strcmp(info.name, "YU12") == 0, "I420 name '%s'", info.name);
    CHECK(strcmp(info.description, "Planar YUV 4:2:0") == 0, "I420 description '%s'", info.description);
    CHECK(info.plane_count == 3 && info.memory_plane_count == 1 && info.flags == 0,
          "I420: %u planes, %u memory planes, flags %u", (unsigned)info.plane_count,
          (unsigned)info.memory_plane_count, (unsigned)info.flags);
    CHECK(info.bytes_per_pixel == 1 && info.horizontal_subsampling == 2 && info.vertical_subsampling == 2,
          "I420: bpp %u, subsampling %ux%u", (unsigned)info.bytes_per_pixel,
          (unsigned)info.horizontal_subsampling, (unsigned)info.vertical_subsampling);
    CHECK(info.plane_group_bytes[1] == 1 && info.plane_group_pixels[1] == 2 &&
              info.plane_vertical_subsampling[1] == 2,
          "I420 plane 1 group: %u bytes / %u pixels, rows / %u", (unsigned)info.plane_group_bytes[1],
          (unsigned)info.plane_group_pixels[1], (unsigned)info.plane_vertical_subsampling[1]);
    plane_size_is(CAMCORE_FOURCC_I420, 640, 480, 0, 640, 480);
    plane_size_is(CAMCORE_FOURCC_I420, 640, 480, 1, 320, 240);
    plane_size_is(CAMCORE_FOURCC_I420, 640, 480, 2, 320, 240);
    plane_size_is(CAMCORE_FOURCC_I420, 641, 481, 2, 321, 241);
    CHECK_STATUS(camcore_pixel_format_frame_size(CAMCORE_FOURCC_I420, 640, 480, &bytes), CAMCORE_OK,
                 "frame_size(I420)");
    CHECK(bytes == 460800, "I420 640x480 frame: %u bytes, expected 460800", (unsigned)bytes);
    CHECK_STATUS(camcore_pixel_format_plane_size(CAMCORE_FOURCC_I420, 640, 480, 3, &row, &rows),
                 CAMCORE_E_INVALID_ARG, "plane_size(I420, plane 3)");
    CHECK(row == 0 && rows == 0, "plane 3: outputs %u, %u, expected 0", (unsigned)row, (unsigned)rows);

    info = format_info(CAMCORE_FOURCC_NV12, &rc);
    CHECK(rc == CAMCORE_OK && info.plane_count == 2 && info.plane_group_bytes[1] == 2,
          "NV12: rc %d, %u planes, plane 1 group %u bytes", rc, (unsigned)info.plane_count,
          (unsigned)info.plane_group_bytes[1]);
    plane_size_is(CAMCORE_FOURCC_NV12, 640, 480, 1, 640, 240);
    CHECK_STATUS(camcore_pixel_format_frame_size(CAMCORE_FOURCC_NV12, 640, 480, &bytes), CAMCORE_OK,
                 "frame_size(NV12)");
    CHECK(bytes == 460800, "NV12 frame: %u bytes", (unsigned)bytes);

    info = format_info(CAMCORE_FOURCC_YUYV, &rc);
    CHECK(rc == CAMCORE_OK && info.plane_count == 1 && info.bytes_per_pixel == 2 &&
              info.horizontal_subsampling == 2 && info.vertical_subsampling == 1,
          "YUYV: rc %d, %u planes, bpp %u", rc, (unsigned)info.plane_count, (unsigned)info.bytes_per_pixel);
    plane_size_is(CAMCORE_FOURCC_YUYV, 640, 480, 0, 1280, 480);
    plane_size_is(CAMCORE_FOURCC_YUYV, 641, 480, 0, 1284, 480);

    info = format_info(CAMCORE_FOURCC_RGB24, &rc);
    CHECK(rc == CAMCORE_OK && info.bytes_per_pixel == 3 && strcmp(info.name, "RGB3") == 0 &&
              strcmp(info.description, "24-bit RGB 8-8-8") == 0,
          "RGB24: rc %d, bpp %u, '%s' '%s'", rc, (unsigned)info.bytes_per_pixel, info.name, info.description);
    plane_size_is(CAMCORE_FOURCC_RGB24, 640, 480, 0, 1920, 480);

    info = format_info(CAMCORE_FOURCC_MJPEG, &rc);
    CHECK(rc == CAMCORE_OK && info.flags == CAMCORE_FORMAT_COMPRESSED && info.plane_count == 1 &&
              info.bytes_per_pixel == 0 && strcmp(info.description, "Motion-JPEG") == 0,
          "MJPEG: rc %d, flags %u, bpp %u, '%s'", rc, (unsigned)info.flags, (unsigned)info.bytes_per_pixel,
          info.description);
    CHECK_STATUS(camcore_pixel_format_plane_size(CAMCORE_FOURCC_MJPEG, 640, 480, 0, &row, &rows),
                 CAMCORE_E_NOT_SUPPORTED, "plane_size(MJPEG)");
    CHECK_STATUS(camcore_pixel_format_frame_size(CAMCORE_FOURCC_MJPEG, 640, 480, &bytes),
                 CAMCORE_E_NOT_SUPPORTED, "frame_size(MJPEG)");
    CHECK(bytes == 0, "frame_size(MJPEG) left %u", (unsigned)bytes);

    info = format_info(y16_be, &rc);
    CHECK(rc == CAMCORE_OK && strcmp(info.name, "Y16 -BE") == 0 &&
              strcmp(info.description, "16-bit Greyscale BE") == 0 && info.bytes_per_pixel == 2,
          "Y16-BE: rc %d, '%s' '%s', bpp %u", rc, info.name, info.description, (unsigned)info.bytes_per_pixel);

    info = format_info(CAMCORE_FOURCC('Z', 'Z', 'Z', 'Z'), &rc);
    CHECK_STATUS(rc, CAMCORE_E_NOT_SUPPORTED, "get_info(ZZZZ)");
    CHECK(strcmp(info.name, "ZZZZ") == 0 && info.plane_count == 0 && info.description[0] == 0,
          "ZZZZ: name '%s', %u planes", info.name, (unsigned)info.plane_count);
    CHECK_STATUS(camcore_pixel_format_plane_size(CAMCORE_FOURCC('Z', 'Z', 'Z', 'Z'), 640, 480, 0, NULL, NULL),
                 CAMCORE_E_NOT_SUPPORTED, "plane_size(ZZZZ)");

    /* Bad arguments. */
    CHECK_STATUS(camcore_pixel_format_get_info(CAMCORE_FOURCC_I420, NULL), CAMCORE_E_INVALID_ARG,
                 "get_info(out NULL)");
    info.struct_size = 4;
    CHECK_STATUS(camcore_pixel_format_get_info(CAMCORE_FOURCC_I420, &info), CAMCORE_E_INVALID_ARG,
                 "get_info(struct_size 4)");
    CHECK_STATUS(camcore_pixel_format_frame_size(CAMCORE_FOURCC_I420, 640, 480, NULL), CAMCORE_E_INVALID_ARG,
                 "frame_size(bytes NULL)");
    CHECK_STATUS(camcore_pixel_format_frame_size(CAMCORE_FOURCC_RGBA, 0xFFFFFFFFu, 0xFFFFFFFFu, &bytes),
                 CAMCORE_E_INVALID_ARG, "frame_size(2^32-1 squared)");
    CHECK_STATUS(camcore_pixel_format_plane_size(CAMCORE_FOURCC_RGBA, 0xFFFFFFFFu, 1, 0, &row, &rows),
                 CAMCORE_E_INVALID_ARG, "plane_size(row over 32 bits)");
}

static int fraction_is(camcore_fraction f, uint32_t fps)
{
    return f.denominator != 0 && (uint64_t)f.numerator == (uint64_t)fps * f.denominator;
}

static void test_S5_synthetic_formats(void)
{
    static const uint32_t wanted[3] = { CAMCORE_FOURCC_YUYV, CAMCORE_FOURCC_I420,
                                        CAMCORE_FOURCC_NV12 };
    camcore_format_list *list = NULL, *bad = (camcore_format_list *)&list;
    size_t i, k, seen;
    char buf[5];

    CHECK_STATUS(camcore_manager_list_formats(g_manager, g_synth_id, &list), CAMCORE_OK,
                 "list_formats(synthetic)");
    if (list == NULL)
        return;
    CHECK(list->count >= 3, "synthetic has %zu formats, expected >= 3", list->count);
    for (k = 0; k < 3; k++) {
        seen = 0;
        for (i = 0; i < list->count; i++) {
            const camcore_format *f = &list->formats[i];
            if (f->fourcc != wanted[k])
                continue;
            seen++;
            fourcc_str(f->fourcc, buf);
            CHECK(f->size_kind == CAMCORE_RANGE_STEPWISE, "%s size_kind %d, expected STEPWISE", buf,
                  (int)f->size_kind);
            CHECK(f->min_width == 16 && f->max_width == 3840 && f->step_width == 2,
                  "%s widths %" PRIu32 "..%" PRIu32 " step %" PRIu32 ", expected 16..3840 step 2",
                  buf, f->min_width, f->max_width, f->step_width);
            CHECK(f->min_height == 16 && f->max_height == 2160 && f->step_height == 2,
                  "%s heights %" PRIu32 "..%" PRIu32 " step %" PRIu32 ", expected 16..2160 step 2",
                  buf, f->min_height, f->max_height, f->step_height);
            CHECK(f->width == 3840 && f->height == 2160,
                  "%s width/height %" PRIu32 "x%" PRIu32 ", expected the largest 3840x2160", buf,
                  f->width, f->height);
            CHECK(f->rate_kind == CAMCORE_RANGE_CONTINUOUS, "%s rate_kind %d, expected CONTINUOUS",
                  buf, (int)f->rate_kind);
            CHECK(f->rate_count == 0, "%s rate_count %zu, expected 0 for continuous", buf,
                  f->rate_count);
            CHECK(fraction_is(f->min_fps, 1) && fraction_is(f->max_fps, 120),
                  "%s rates %" PRIu32 "/%" PRIu32 "..%" PRIu32 "/%" PRIu32 ", expected 1..120 fps",
                  buf, f->min_fps.numerator, f->min_fps.denominator, f->max_fps.numerator,
                  f->max_fps.denominator);
            CHECK(!(f->flags & CAMCORE_FORMAT_COMPRESSED), "%s flagged compressed", buf);
            CHECK(memchr(f->description, '\0', sizeof f->description) != NULL &&
                      f->description[0] != '\0',
                  "%s description empty or not NUL-terminated", buf);
        }
        CHECK(seen == 1, "format %s listed %zu times, expected once",
              fourcc_str(wanted[k], buf), seen);
    }
    camcore_format_list_free(list);

    CHECK_STATUS(camcore_manager_list_formats(g_manager, "no-such-camera", &bad),
                 CAMCORE_E_NO_DEVICE, "list_formats(unknown id)");
    CHECK(bad == NULL, "list_formats failure did not set *out to NULL");
}

/* ------------------------------------------------------------------ */
/* S22: captures                                                       */
/* ------------------------------------------------------------------ */

/* Checks the format read back after start. */
static void check_format(const camcore_capture_format *f, uint32_t fourcc, uint32_t w, uint32_t h,
                         uint32_t planes, uint32_t s0, uint32_t s1, uint32_t s2, uint32_t bytes,
                         uint32_t fps)
{
    char a[5], b[5];

    CHECK(f->fourcc == fourcc, "get_format fourcc %s, expected %s", fourcc_str(f->fourcc, a),
          fourcc_str(fourcc, b));
    CHECK(f->width == w && f->height == h, "get_format size %" PRIu32 "x%" PRIu32 ", expected %" PRIu32
          "x%" PRIu32, f->width, f->height, w, h);
    CHECK(f->plane_count == planes, "get_format plane_count %" PRIu32 ", expected %" PRIu32,
          f->plane_count, planes);
    CHECK(f->strides[0] == s0 && f->strides[1] == s1 && f->strides[2] == s2,
          "get_format strides %" PRIu32 "/%" PRIu32 "/%" PRIu32 ", expected %" PRIu32 "/%" PRIu32
          "/%" PRIu32, f->strides[0], f->strides[1], f->strides[2], s0, s1, s2);
    CHECK(f->frame_bytes == bytes, "get_format frame_bytes %" PRIu32 ", expected %" PRIu32,
          f->frame_bytes, bytes);
    CHECK(fraction_is(f->fps, fps), "get_format fps %" PRIu32 "/%" PRIu32 ", expected %" PRIu32,
          f->fps.numerator, f->fps.denominator, fps);
    CHECK(f->buffer_count >= 2 && f->buffer_count <= 32, "get_format buffer_count %" PRIu32,
          f->buffer_count);
    CHECK(f->source_fourcc == fourcc, "get_format source_fourcc %s, expected %s (native output)",
          fourcc_str(f->source_fourcc, a), fourcc_str(fourcc, b));
    CHECK(f->adjusted == 0, "get_format adjusted 0x%" PRIx32 " for an exact request", f->adjusted);
}

static void check_common_frame(const struct rec *r, unsigned i, uint32_t fourcc, uint32_t w,
                               uint32_t h, uint32_t planes)
{
    char a[5], b[5];

    CHECK(r->struct_size == sizeof(camcore_frame), "frame %u struct_size %" PRIu32 ", expected %zu",
          i, r->struct_size, sizeof(camcore_frame));
    CHECK(r->fourcc == fourcc, "frame %u fourcc %s, expected %s", i, fourcc_str(r->fourcc, a),
          fourcc_str(fourcc, b));
    CHECK(r->width == w && r->height == h,
          "frame %u size %" PRIu32 "x%" PRIu32 ", expected %" PRIu32 "x%" PRIu32, i, r->width,
          r->height, w, h);
    CHECK(r->plane_count == planes, "frame %u plane_count %" PRIu32 ", expected %" PRIu32, i,
          r->plane_count, planes);
}

/* Every recorded frame passed ctx->inspect. */
static void check_content(struct ctx *c, unsigned n, const char *what)
{
    unsigned i, bad = 0, first_bad = 0;

    for (i = 0; i < n; i++)
        if (c->recs[i].content != 1 && bad++ == 0)
            first_bad = i;
    CHECK(bad == 0, "%s: %u of %u frames have wrong pixel values (first: frame %u)", what, bad, n,
          first_bad);
}

/* The pattern is a real picture: not one flat value, and it moves. */
static void check_pattern(struct ctx *c, unsigned n)
{
    unsigned i, changes = 0;

    CHECK(c->recs[0].max0 > c->recs[0].min0, "frame 0 plane 0 is flat (all bytes %u)",
          c->recs[0].min0);
    for (i = 1; i < n; i++)
        if (c->recs[i].hash != c->recs[i - 1].hash)
            changes++;
    CHECK(changes >= (n - 1) / 2, "the test pattern does not move: %u of %u frames differ", changes,
          n - 1);
}

static void test_S22_capture_yuyv_640x480(void)
{
    struct ctx *c = malloc(sizeof *c);
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC_YUYV, 640, 480, 30);
    camcore_capture_format fmt;
    camcore_capture_stats st;
    uint64_t t0;
    unsigned i;

    ctx_init(c);
    c->inspect = inspect_yuv;
    memset(&fmt, 0, sizeof fmt);
    memset(&st, 0, sizeof st);
    if (capture_frames(c, &cfg, 30, &fmt, &st, &t0)) {
        check_format(&fmt, CAMCORE_FOURCC_YUYV, 640, 480, 1, 1280, 0, 0, 614400, 30);
        CHECK(fmt.buffer_count == 4, "buffer_count %" PRIu32 ", expected the default 4",
              fmt.buffer_count);
        for (i = 0; i < 30; i++) {
            const struct rec *r = &c->recs[i];
            check_common_frame(r, i, CAMCORE_FOURCC_YUYV, 640, 480, 1);
            check_plane(r, i, 0, 1280, 614400);
            check_plane_unused(r, i, 1);
            check_plane_unused(r, i, 2);
        }
        check_sequence_and_time(c, 30, t0, 30.0);
        check_pattern(c, 30);
        check_content(c, 30, "YUYV Y/U/V bytes");
        CHECK(st.measured_fps > 25.5 && st.measured_fps < 34.5,
              "stats measured_fps %.2f, expected about 30", st.measured_fps);
        CHECK(st.frames_delivered >= 30 && st.frames_delivered == c->total,
              "stats delivered %" PRIu64 ", callbacks %u", st.frames_delivered, c->total);
        CHECK(st.frames_dropped == 0 && st.frames_corrupted == 0,
              "stats dropped %" PRIu64 " corrupted %" PRIu64 ", expected 0", st.frames_dropped,
              st.frames_corrupted);
    }
    ctx_destroy(c);
    free(c);
}

static void test_S22_capture_yuyv_1280x720_at_15(void)
{
    struct ctx *c = malloc(sizeof *c);
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC_YUYV, 1280, 720, 15);
    camcore_capture_format fmt;
    camcore_capture_stats st;
    uint64_t t0;
    unsigned i;

    ctx_init(c);
    memset(&fmt, 0, sizeof fmt);
    cfg.buffer_count = 3;
    if (capture_frames(c, &cfg, 12, &fmt, &st, &t0)) {
        check_format(&fmt, CAMCORE_FOURCC_YUYV, 1280, 720, 1, 2560, 0, 0, 1843200, 15);
        CHECK(fmt.buffer_count == 3, "buffer_count %" PRIu32 ", asked 3", fmt.buffer_count);
        for (i = 0; i < 12; i++) {
            check_common_frame(&c->recs[i], i, CAMCORE_FOURCC_YUYV, 1280, 720, 1);
            check_plane(&c->recs[i], i, 0, 2560, 1843200);
        }
        check_sequence_and_time(c, 12, t0, 15.0);
    }
    ctx_destroy(c);
    free(c);
}

static void test_S22_capture_i420(void)
{
    static const struct {
        uint32_t w, h;
    } sizes[] = { { 640, 480 }, { 320, 240 } };
    size_t s;

    for (s = 0; s < 2; s++) {
        struct ctx *c = malloc(sizeof *c);
        uint32_t w = sizes[s].w, h = sizes[s].h;
        camcore_capture_config cfg = config_for(CAMCORE_FOURCC_I420, w, h, 30);
        camcore_capture_format fmt;
        camcore_capture_stats st;
        uint64_t t0;
        unsigned i;

        ctx_init(c);
        c->inspect = inspect_yuv;
        memset(&fmt, 0, sizeof fmt);
        if (capture_frames(c, &cfg, 10, &fmt, &st, &t0)) {
            check_format(&fmt, CAMCORE_FOURCC_I420, w, h, 3, w, w / 2, w / 2, w * h * 3 / 2, 30);
            for (i = 0; i < 10; i++) {
                const struct rec *r = &c->recs[i];
                check_common_frame(r, i, CAMCORE_FOURCC_I420, w, h, 3);
                check_plane(r, i, 0, w, w * h);
                check_plane(r, i, 1, w / 2, w * h / 4);
                check_plane(r, i, 2, w / 2, w * h / 4);
                check_planes_disjoint(r, i);
            }
            check_sequence_and_time(c, 10, t0, 30.0);
            check_pattern(c, 10);
            check_content(c, 10, "I420 Y, U and V planes");
        }
        ctx_destroy(c);
        free(c);
    }
}

static void test_S22_capture_nv12(void)
{
    struct ctx *c = malloc(sizeof *c);
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC_NV12, 640, 480, 30);
    camcore_capture_format fmt;
    camcore_capture_stats st;
    uint64_t t0;
    unsigned i;

    ctx_init(c);
    c->inspect = inspect_yuv;
    memset(&fmt, 0, sizeof fmt);
    if (capture_frames(c, &cfg, 10, &fmt, &st, &t0)) {
        check_format(&fmt, CAMCORE_FOURCC_NV12, 640, 480, 2, 640, 640, 0, 460800, 30);
        for (i = 0; i < 10; i++) {
            const struct rec *r = &c->recs[i];
            check_common_frame(r, i, CAMCORE_FOURCC_NV12, 640, 480, 2);
            check_plane(r, i, 0, 640, 307200);
            check_plane(r, i, 1, 640, 153600);
            CHECK(r->planes[1].stride == r->planes[0].stride,
                  "frame %u: UV stride %" PRIu32 " != Y stride %" PRIu32, i, r->planes[1].stride,
                  r->planes[0].stride);
            check_plane_unused(r, i, 2);
            check_planes_disjoint(r, i);
        }
        check_sequence_and_time(c, 10, t0, 30.0);
        check_content(c, 10, "NV12 Y and interleaved UV planes");
    }
    ctx_destroy(c);
    free(c);
}

/* S6: what is reported after start is what was applied, and frames match it. */
static void test_S6_reported_format_matches_frames(void)
{
    static const struct {
        uint32_t w, h, fps, adjusted;
    } asks[] = { { 641, 479, 30, CAMCORE_ADJUSTED_SIZE },
                 { 5000, 3000, 30, CAMCORE_ADJUSTED_SIZE },
                 { 320, 240, 1000, CAMCORE_ADJUSTED_RATE } };
    size_t a;

    for (a = 0; a < sizeof asks / sizeof asks[0]; a++) {
        struct ctx *c = malloc(sizeof *c);
        camcore_capture_config cfg = config_for(CAMCORE_FOURCC_YUYV, asks[a].w, asks[a].h, asks[a].fps);
        camcore_capture_format fmt;
        camcore_capture_stats st;
        uint64_t t0;
        unsigned i;

        ctx_init(c);
        memset(&fmt, 0, sizeof fmt);
        if (capture_frames(c, &cfg, 3, &fmt, &st, &t0)) {
            CHECK(fmt.width >= 16 && fmt.width <= 3840 && fmt.width % 2 == 0 && fmt.height >= 16 &&
                      fmt.height <= 2160 && fmt.height % 2 == 0,
                  "asked %" PRIu32 "x%" PRIu32 ": applied %" PRIu32 "x%" PRIu32
                  " is not a valid synthetic size",
                  asks[a].w, asks[a].h, fmt.width, fmt.height);
            CHECK(fmt.fps.denominator != 0 && fmt.fps.numerator <= 120u * fmt.fps.denominator &&
                      fmt.fps.numerator >= fmt.fps.denominator,
                  "asked %" PRIu32 " fps: applied %" PRIu32 "/%" PRIu32 " is outside 1..120",
                  asks[a].fps, fmt.fps.numerator, fmt.fps.denominator);
            CHECK(fmt.strides[0] == fmt.width * 2, "YUYV stride %" PRIu32 " for width %" PRIu32,
                  fmt.strides[0], fmt.width);
            CHECK(fmt.adjusted == asks[a].adjusted,
                  "asked %" PRIu32 "x%" PRIu32 " at %" PRIu32 ": adjusted 0x%" PRIx32
                  ", expected 0x%" PRIx32, asks[a].w, asks[a].h, asks[a].fps, fmt.adjusted,
                  asks[a].adjusted);
            if (asks[a].fps == 1000)
                CHECK(fraction_is(fmt.fps, 120), "1000 fps clamped to %" PRIu32 "/%" PRIu32
                      ", expected the maximum 120 (S7)", fmt.fps.numerator, fmt.fps.denominator);
            for (i = 0; i < 3; i++) {
                const struct rec *r = &c->recs[i];
                CHECK(r->width == fmt.width && r->height == fmt.height &&
                          r->planes[0].stride == fmt.strides[0] &&
                          r->planes[0].length == fmt.strides[0] * fmt.height,
                      "frame %u: %" PRIu32 "x%" PRIu32 " stride %" PRIu32 " length %" PRIu32
                      " does not match the reported format",
                      i, r->width, r->height, r->planes[0].stride, r->planes[0].length);
            }
        }
        ctx_destroy(c);
        free(c);
    }
}

static void check_still_works(camcore_capturer *cap, const char *after);

/* ------------------------------------------------------------------ */
/* S8: output formats converted by camcore                             */
/* ------------------------------------------------------------------ */

static void test_S8_output_conversion(void)
{
    static const struct {
        uint32_t source, output, planes, s0, s1, s2, l0, l1, l2;
        int (*inspect)(const camcore_frame *);
        const char *what;
    } cases[] = {
        { CAMCORE_FOURCC_YUYV, CAMCORE_FOURCC_I420, 3, 640, 320, 320, 307200, 76800, 76800,
          inspect_yuv, "YUYV -> I420" },
        { CAMCORE_FOURCC_I420, CAMCORE_FOURCC_NV12, 2, 640, 640, 0, 307200, 153600, 0, inspect_yuv,
          "I420 -> NV12" },
        { CAMCORE_FOURCC_NV12, CAMCORE_FOURCC_YUYV, 1, 1280, 0, 0, 614400, 0, 0, inspect_yuv,
          "NV12 -> YUYV" },
        { CAMCORE_FOURCC_NV12, CAMCORE_FOURCC_RGB24, 1, 1920, 0, 0, 921600, 0, 0, inspect_rgb24,
          "NV12 -> RGB24" },
        { CAMCORE_FOURCC_I420, CAMCORE_FOURCC_BGR24, 1, 1920, 0, 0, 921600, 0, 0, inspect_bgr24,
          "I420 -> BGR24" },
        { CAMCORE_FOURCC_YUYV, CAMCORE_FOURCC_RGBA, 1, 2560, 0, 0, 1228800, 0, 0, inspect_rgba,
          "YUYV -> RGBA" },
    };
    size_t k;
    unsigned i;
    char a[5], b[5];

    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct ctx *c = malloc(sizeof *c);
        camcore_capture_config cfg = config_for(cases[k].source, 640, 480, 30);
        camcore_capture_format fmt;
        camcore_capture_stats st;
        uint64_t t0;

        ctx_init(c);
        c->inspect = cases[k].inspect;
        cfg.output_fourcc = cases[k].output;
        memset(&fmt, 0, sizeof fmt);
        if (capture_frames(c, &cfg, 6, &fmt, &st, &t0)) {
            CHECK(fmt.fourcc == cases[k].output && fmt.source_fourcc == cases[k].source,
                  "%s: get_format fourcc %s source %s", cases[k].what, fourcc_str(fmt.fourcc, a),
                  fourcc_str(fmt.source_fourcc, b));
            CHECK(fmt.plane_count == cases[k].planes && fmt.strides[0] == cases[k].s0 &&
                      fmt.strides[1] == cases[k].s1 && fmt.strides[2] == cases[k].s2,
                  "%s: get_format %" PRIu32 " planes, strides %" PRIu32 "/%" PRIu32 "/%" PRIu32,
                  cases[k].what, fmt.plane_count, fmt.strides[0], fmt.strides[1], fmt.strides[2]);
            CHECK(fmt.adjusted == 0, "%s: adjusted 0x%" PRIx32, cases[k].what, fmt.adjusted);
            for (i = 0; i < 6; i++) {
                const struct rec *r = &c->recs[i];
                check_common_frame(r, i, cases[k].output, 640, 480, cases[k].planes);
                check_plane(r, i, 0, cases[k].s0, cases[k].l0);
                if (cases[k].planes > 1)
                    check_plane(r, i, 1, cases[k].s1, cases[k].l1);
                if (cases[k].planes > 2)
                    check_plane(r, i, 2, cases[k].s2, cases[k].l2);
                if (cases[k].planes < 3)
                    check_plane_unused(r, i, 2);
            }
            check_sequence_and_time(c, 6, t0, 30.0);
            check_content(c, 6, cases[k].what);
        }
        ctx_destroy(c);
        free(c);
    }
}

static void test_S8_unsupported_output(void)
{
    camcore_capturer *cap = open_synthetic();
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC_YUYV, 320, 240, 30);

    if (cap == NULL)
        return;
    cfg.output_fourcc = CAMCORE_FOURCC_MJPEG;
    CHECK_STATUS(camcore_capturer_start(cap, &cfg, NULL), CAMCORE_E_NOT_SUPPORTED,
                 "start(output MJPG)");
    cfg.output_fourcc = CAMCORE_FOURCC('X', 'X', 'X', 'X');
    CHECK_STATUS(camcore_capturer_start(cap, &cfg, NULL), CAMCORE_E_NOT_SUPPORTED,
                 "start(output XXXX)");
    CHECK(camcore_capturer_is_streaming(cap) == 0, "streaming after a refused output format");
    check_still_works(cap, "unsupported output formats");
    camcore_capturer_close(cap);
}

/* ------------------------------------------------------------------ */
/* S6, S7: negotiation on the synthetic camera                         */
/* ------------------------------------------------------------------ */

static int is_raw_synthetic(uint32_t fourcc)
{
    return fourcc == CAMCORE_FOURCC_YUYV || fourcc == CAMCORE_FOURCC_I420 ||
           fourcc == CAMCORE_FOURCC_NV12;
}

static camcore_setting empty_setting(void)
{
    camcore_setting out;

    memset(&out, 0, sizeof out);
    out.struct_size = sizeof out;
    return out;
}

static void test_S6_S7_negotiation(void)
{
    camcore_preference pref;
    camcore_setting out;
    camcore_fraction fps, rate;
    char a[5];

    camcore_preference_init(&pref);
    CHECK(pref.struct_size == sizeof pref && pref.width == 1280 && pref.height == 720 &&
              fraction_is(pref.min_fps, 15) && fraction_is(pref.max_fps, 30) &&
              pref.output_fourcc == CAMCORE_FOURCC_NATIVE,
          "preference_init: %" PRIu32 "x%" PRIu32 " %" PRIu32 "/%" PRIu32 "..%" PRIu32 "/%" PRIu32
          " output 0x%" PRIx32 ", expected 1280x720 15..30 native",
          pref.width, pref.height, pref.min_fps.numerator, pref.min_fps.denominator,
          pref.max_fps.numerator, pref.max_fps.denominator, pref.output_fourcc);

    /* The default preference is met exactly: any size, 1..120 fps. */
    out = empty_setting();
    CHECK_STATUS(camcore_manager_negotiate(g_manager, g_synth_id, NULL, &out), CAMCORE_OK,
                 "negotiate(default)");
    CHECK(is_raw_synthetic(out.fourcc) && out.width == 1280 && out.height == 720 &&
              fraction_is(out.fps, 30) && out.adjusted == 0,
          "negotiate(default): %s %" PRIu32 "x%" PRIu32 " %" PRIu32 "/%" PRIu32 " adjusted 0x%" PRIx32
          ", expected 1280x720 at 30 fps, valid",
          fourcc_str(out.fourcc, a), out.width, out.height, out.fps.numerator, out.fps.denominator,
          out.adjusted);

    /* The asked output format is the one needing least work (S6 (4)). */
    pref.output_fourcc = CAMCORE_FOURCC_NV12;
    out = empty_setting();
    CHECK_STATUS(camcore_manager_negotiate(g_manager, g_synth_id, &pref, &out), CAMCORE_OK,
                 "negotiate(output NV12)");
    CHECK(out.fourcc == CAMCORE_FOURCC_NV12 && out.adjusted == 0,
          "negotiate(output NV12) chose %s, adjusted 0x%" PRIx32, fourcc_str(out.fourcc, a),
          out.adjusted);

    /* An odd size snaps to the step of 2, at or above the request. */
    camcore_preference_init(&pref);
    pref.width = 641;
    pref.height = 481;
    out = empty_setting();
    CHECK_STATUS(camcore_manager_negotiate(g_manager, g_synth_id, &pref, &out), CAMCORE_OK,
                 "negotiate(641x481)");
    CHECK(out.width == 642 && out.height == 482 && (out.adjusted & CAMCORE_ADJUSTED_SIZE),
          "negotiate(641x481): %" PRIu32 "x%" PRIu32 " adjusted 0x%" PRIx32
          ", expected 642x482 with ADJUSTED_SIZE",
          out.width, out.height, out.adjusted);

    /* Rates above the maximum: the highest there is, flagged. */
    camcore_preference_init(&pref);
    pref.min_fps.numerator = 150;
    pref.max_fps.numerator = 200;
    out = empty_setting();
    CHECK_STATUS(camcore_manager_negotiate(g_manager, g_synth_id, &pref, &out), CAMCORE_OK,
                 "negotiate(150..200 fps)");
    CHECK(fraction_is(out.fps, 120) && (out.adjusted & CAMCORE_ADJUSTED_RATE),
          "negotiate(150..200 fps): %" PRIu32 "/%" PRIu32 " adjusted 0x%" PRIx32
          ", expected 120 with ADJUSTED_RATE",
          out.fps.numerator, out.fps.denominator, out.adjusted);

    /* S7 format_for. */
    fps.numerator = 30;
    fps.denominator = 1;
    out = empty_setting();
    CHECK_STATUS(camcore_manager_format_for(g_manager, g_synth_id, 640, 480, fps, &out), CAMCORE_OK,
                 "format_for(640, 480, 30)");
    CHECK(is_raw_synthetic(out.fourcc) && out.width == 640 && out.height == 480 &&
              fraction_is(out.fps, 30),
          "format_for(640, 480, 30): %s %" PRIu32 "x%" PRIu32 " %" PRIu32 "/%" PRIu32,
          fourcc_str(out.fourcc, a), out.width, out.height, out.fps.numerator, out.fps.denominator);
    fps.numerator = 200;
    out = empty_setting();
    CHECK_STATUS(camcore_manager_format_for(g_manager, g_synth_id, 640, 480, fps, &out),
                 CAMCORE_E_NOT_SUPPORTED, "format_for(640, 480, 200)");

    /* S7 max_frame_rate: ask 40 of 1..120 -> 40; ask 200 -> 120. */
    fps.numerator = 40;
    memset(&rate, 0, sizeof rate);
    CHECK_STATUS(camcore_manager_max_frame_rate(g_manager, g_synth_id, CAMCORE_FOURCC_YUYV, 640, 480,
                                                fps, &rate),
                 CAMCORE_OK, "max_frame_rate(YUYV 640x480, 40)");
    CHECK(fraction_is(rate, 40), "max_frame_rate(40) = %" PRIu32 "/%" PRIu32 ", expected 40",
          rate.numerator, rate.denominator);
    fps.numerator = 200;
    CHECK_STATUS(camcore_manager_max_frame_rate(g_manager, g_synth_id, CAMCORE_FOURCC_NV12, 320, 240,
                                                fps, &rate),
                 CAMCORE_OK, "max_frame_rate(NV12 320x240, 200)");
    CHECK(fraction_is(rate, 120), "max_frame_rate(200) = %" PRIu32 "/%" PRIu32 ", expected 120",
          rate.numerator, rate.denominator);
    CHECK_STATUS(camcore_manager_max_frame_rate(g_manager, g_synth_id, CAMCORE_FOURCC_MJPEG, 640,
                                                480, fps, &rate),
                 CAMCORE_E_NOT_SUPPORTED, "max_frame_rate(MJPG on synthetic)");

    /* Bad input. */
    out = empty_setting();
    CHECK_STATUS(camcore_manager_negotiate(NULL, g_synth_id, NULL, &out), CAMCORE_E_INVALID_ARG,
                 "negotiate(NULL manager)");
    CHECK_STATUS(camcore_manager_negotiate(g_manager, NULL, NULL, &out), CAMCORE_E_INVALID_ARG,
                 "negotiate(NULL id)");
    CHECK_STATUS(camcore_manager_negotiate(g_manager, g_synth_id, NULL, NULL),
                 CAMCORE_E_INVALID_ARG, "negotiate(NULL out)");
    CHECK_STATUS(camcore_manager_negotiate(g_manager, "no-such-camera", NULL, &out),
                 CAMCORE_E_NO_DEVICE, "negotiate(unknown id)");
    out.struct_size = 0;
    CHECK_STATUS(camcore_manager_negotiate(g_manager, g_synth_id, NULL, &out),
                 CAMCORE_E_INVALID_ARG, "negotiate(out struct_size 0)");
    camcore_preference_init(&pref);
    pref.struct_size = 0;
    out = empty_setting();
    CHECK_STATUS(camcore_manager_negotiate(g_manager, g_synth_id, &pref, &out),
                 CAMCORE_E_INVALID_ARG, "negotiate(preference struct_size 0)");
    camcore_preference_init(NULL);
    fps.numerator = 30;
    CHECK_STATUS(camcore_manager_format_for(NULL, g_synth_id, 640, 480, fps, &out),
                 CAMCORE_E_INVALID_ARG, "format_for(NULL manager)");
    CHECK_STATUS(camcore_manager_format_for(g_manager, NULL, 640, 480, fps, &out),
                 CAMCORE_E_INVALID_ARG, "format_for(NULL id)");
    CHECK_STATUS(camcore_manager_format_for(g_manager, g_synth_id, 640, 480, fps, NULL),
                 CAMCORE_E_INVALID_ARG, "format_for(NULL out)");
    CHECK_STATUS(camcore_manager_format_for(g_manager, "no-such-camera", 640, 480, fps, &out),
                 CAMCORE_E_NO_DEVICE, "format_for(unknown id)");
    CHECK_STATUS(camcore_manager_max_frame_rate(NULL, g_synth_id, CAMCORE_FOURCC_YUYV, 640, 480,
                                                fps, &rate),
                 CAMCORE_E_INVALID_ARG, "max_frame_rate(NULL manager)");
    CHECK_STATUS(camcore_manager_max_frame_rate(g_manager, NULL, CAMCORE_FOURCC_YUYV, 640, 480,
                                                fps, &rate),
                 CAMCORE_E_INVALID_ARG, "max_frame_rate(NULL id)");
    CHECK_STATUS(camcore_manager_max_frame_rate(g_manager, g_synth_id, CAMCORE_FOURCC_YUYV, 640, 480,
                                                fps, NULL),
                 CAMCORE_E_INVALID_ARG, "max_frame_rate(NULL out)");
    CHECK_STATUS(camcore_manager_max_frame_rate(g_manager, "no-such-camera", CAMCORE_FOURCC_YUYV,
                                                640, 480, fps, &rate),
                 CAMCORE_E_NO_DEVICE, "max_frame_rate(unknown id)");
}

/* ------------------------------------------------------------------ */
/* S29: structs grow by appending; older callers keep working           */
/* ------------------------------------------------------------------ */

#define V1_CONFIG offsetof(camcore_capture_config, output_fourcc)
#define V1_FORMAT offsetof(camcore_capture_format, source_fourcc)
#define V1_STATS offsetof(camcore_capture_stats, measured_fps)

/* Bytes from `from` to `to` of p are all 0xA5 (untouched). */
static int canary_intact(const void *p, size_t from, size_t to)
{
    const uint8_t *b = p;
    size_t i;

    for (i = from; i < to; i++)
        if (b[i] != 0xA5)
            return 0;
    return 1;
}

static void test_S29_versioned_structs(void)
{
    camcore_capturer *cap = open_synthetic();
    union {
        camcore_capture_config cfg;
        camcore_capture_format fmt;
        camcore_capture_stats st;
        uint8_t bytes[256];
    } u;
    camcore_capture_config cfg;
    camcore_capture_format full;
    int rc, round;

    if (cap == NULL)
        return;
    /* A 0.1.0-era config without output_fourcc: garbage after it is ignored
     * and output is native. */
    memset(&u, 0xA5, sizeof u);
    cfg = config_for(CAMCORE_FOURCC_I420, 320, 240, 30);
    memcpy(&u.cfg, &cfg, V1_CONFIG);
    u.cfg.struct_size = (uint32_t)V1_CONFIG;
    CHECK_STATUS(camcore_capturer_start(cap, &u.cfg, NULL), CAMCORE_OK,
                 "start(config struct_size without output_fourcc)");
    full = get_format(cap, &rc);
    CHECK(rc == CAMCORE_OK && full.fourcc == CAMCORE_FOURCC_I420 &&
              full.source_fourcc == CAMCORE_FOURCC_I420,
          "short config: format %08" PRIx32 " source %08" PRIx32 ", expected native I420",
          full.fourcc, full.source_fourcc);

    /* Short out-structs: nothing written past the caller's struct_size,
     * and struct_size not grown, so a second call with the same struct is
     * just as safe. */
    for (round = 0; round < 2; round++) {
        if (round == 0) {
            memset(&u, 0xA5, sizeof u);
            u.fmt.struct_size = (uint32_t)V1_FORMAT;
        }
        CHECK_STATUS(camcore_capturer_get_format(cap, &u.fmt), CAMCORE_OK, "get_format(short)");
        CHECK(u.fmt.struct_size <= V1_FORMAT, "get_format grew struct_size to %" PRIu32,
              u.fmt.struct_size);
        CHECK(canary_intact(&u, V1_FORMAT, sizeof u), "get_format wrote past a short struct_size");
        CHECK(u.fmt.width == 320 && u.fmt.fourcc == CAMCORE_FOURCC_I420,
              "get_format(short) did not fill the known fields");
    }
    for (round = 0; round < 2; round++) {
        if (round == 0) {
            memset(&u, 0xA5, sizeof u);
            u.st.struct_size = (uint32_t)V1_STATS;
        }
        CHECK_STATUS(camcore_capturer_get_stats(cap, &u.st), CAMCORE_OK, "get_stats(short)");
        CHECK(u.st.struct_size <= V1_STATS, "get_stats grew struct_size to %" PRIu32,
              u.st.struct_size);
        CHECK(canary_intact(&u, V1_STATS, sizeof u), "get_stats wrote past a short struct_size");
    }
    /* Bigger than the library knows (a newer header): accepted, and the
     * unknown tail is left alone. */
    memset(&u, 0xA5, sizeof u);
    u.fmt.struct_size = sizeof(camcore_capture_format) + 16;
    CHECK_STATUS(camcore_capturer_get_format(cap, &u.fmt), CAMCORE_OK, "get_format(larger)");
    CHECK(canary_intact(&u, sizeof(camcore_capture_format), sizeof(camcore_capture_format) + 16),
          "get_format wrote past the struct it knows");
    /* Too short for the fields every version has. */
    memset(&u, 0, sizeof u);
    u.fmt.struct_size = 8;
    CHECK_STATUS(camcore_capturer_get_format(cap, &u.fmt), CAMCORE_E_INVALID_ARG,
                 "get_format(struct_size 8)");
    CHECK_STATUS(camcore_capturer_stop(cap), CAMCORE_OK, "stop");
    camcore_capturer_close(cap);
}

/* ------------------------------------------------------------------ */
/* Threads: stop/close end callbacks; calls from inside callbacks       */
/* ------------------------------------------------------------------ */

static void test_S16_no_callback_after_stop_or_close(void)
{
    struct ctx *c = malloc(sizeof *c);
    camcore_capturer *cap;
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC_YUYV, 320, 240, 60);
    camcore_frame_callbacks cb;
    int round, in_cb;
    unsigned entered, seq0;

    ctx_init(c);
    c->sleep_ms = 25; /* slow callbacks: stop usually lands inside one */
    cb = callbacks_for(c);
    cap = open_synthetic();
    if (cap == NULL)
        goto out;
    for (round = 0; round < 4; round++) {
        unsigned first = read_counter(c, &c->entered);
        CHECK_STATUS(camcore_capturer_start(cap, &cfg, &cb), CAMCORE_OK, "start (restart)");
        CHECK(wait_for(c, &c->entered, first + 3, 5000), "round %d: no frames", round);
        CHECK_STATUS(camcore_capturer_stop(cap), CAMCORE_OK, "stop while a callback runs");
        pthread_mutex_lock(&c->lock);
        in_cb = c->in_callback;
        entered = c->entered;
        seq0 = first < MAX_REC ? c->recs[first].sequence : 0;
        pthread_mutex_unlock(&c->lock);
        CHECK(in_cb == 0, "round %d: a callback was still running when stop returned", round);
        CHECK(seq0 == 0, "round %d: sequence restarts at %u, expected 0", round, seq0);
        sleep_ms(150);
        CHECK(read_counter(c, &c->entered) == entered,
              "round %d: %u callback(s) ran after stop returned", round,
              read_counter(c, &c->entered) - entered);
        CHECK_STATUS(camcore_capturer_stop(cap), CAMCORE_OK, "stop when stopped");
    }

    /* Close while streaming: also stops, and no callback afterwards. */
    CHECK_STATUS(camcore_capturer_start(cap, &cfg, &cb), CAMCORE_OK, "start before close");
    CHECK(wait_for(c, &c->entered, read_counter(c, &c->entered) + 2, 5000), "no frames");
    camcore_capturer_close(cap);
    pthread_mutex_lock(&c->lock);
    in_cb = c->in_callback;
    entered = c->entered;
    pthread_mutex_unlock(&c->lock);
    CHECK(in_cb == 0, "a callback was still running when close returned");
    sleep_ms(150);
    CHECK(read_counter(c, &c->entered) == entered, "callbacks ran after close returned");
out:
    ctx_destroy(c);
    free(c); /* user_data may be freed once stop/close returned */
}

static void test_S31_stop_close_inside_callback(void)
{
    struct ctx *c = malloc(sizeof *c);
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC_YUYV, 320, 240, 30);
    camcore_frame_callbacks cb;
    camcore_capturer *cap;

    ctx_init(c);
    cb = callbacks_for(c);
    cap = open_synthetic();
    if (cap == NULL)
        goto out;
    c->cap = cap;
    c->inside_test = 1;
    CHECK_STATUS(camcore_capturer_start(cap, &cfg, &cb), CAMCORE_OK, "start");
    if (!wait_for(c, NULL, 0, 5000)) {
        CHECK(0, "stop/close from inside on_frame did not return within 5 s (deadlock)");
        testlib_summary();
        exit(1); /* the capture thread is stuck; nothing after this is meaningful */
    }
    CHECK(c->inside_stop_rc == CAMCORE_E_WOULD_DEADLOCK,
          "stop inside on_frame returned %d (%s), expected CAMCORE_E_WOULD_DEADLOCK",
          c->inside_stop_rc, camcore_strerror(c->inside_stop_rc));
    CHECK(c->inside_stop_msg[0] != '\0', "no last error message after stop inside on_frame");
    /* Close cannot fail: from inside it closed (the handle is gone at once)
     * and no callback followed the one that closed. */
    CHECK(strstr(c->inside_close_msg, "DEADLOCK") == NULL, "close inside on_frame was refused: %s",
          c->inside_close_msg);
    CHECK(c->inside_start_rc == CAMCORE_E_INVALID_ARG,
          "start inside on_frame after close returned %d (%s), expected INVALID_ARG (handle gone)",
          c->inside_start_rc, camcore_strerror(c->inside_start_rc));
    {
        unsigned frozen = read_counter(c, &c->total);
        sleep_ms(200); /* a frame every 33 ms would show */
        CHECK(read_counter(c, &c->total) == frozen && frozen == 1,
              "%u callback(s) in all after close inside on_frame, expected 1", read_counter(c, &c->total));
    }
    CHECK(camcore_capturer_is_streaming(cap) == 0, "the closed capturer still streams");
    camcore_capturer_close(cap); /* a forgotten handle: ignored */
out:
    ctx_destroy(c);
    free(c);
}

/* Several capturers and listings at once, from several threads: each
 * capturer's callbacks get only its own frames, in its own format. */
struct worker {
    pthread_t thread;
    uint32_t fourcc, width, height, fps;
    int open_rc, start_rc, stop_rc, got_all, wrong_format, lists_ok;
    struct ctx ctx;
};

static void *capture_worker(void *arg)
{
    struct worker *w = arg;
    camcore_capture_config cfg = config_for(w->fourcc, w->width, w->height, w->fps);
    camcore_frame_callbacks cb = callbacks_for(&w->ctx);
    camcore_capturer *cap = NULL;
    unsigned i;

    w->open_rc = camcore_capturer_open(g_manager, g_synth_id, &cap);
    if (w->open_rc != CAMCORE_OK)
        return NULL;
    w->start_rc = camcore_capturer_start(cap, &cfg, &cb);
    if (w->start_rc == CAMCORE_OK) {
        w->got_all = wait_for(&w->ctx, &w->ctx.total, 10, 10000);
        w->stop_rc = camcore_capturer_stop(cap);
        for (i = 0; i < 10 && i < w->ctx.total; i++)
            if (w->ctx.recs[i].fourcc != w->fourcc || w->ctx.recs[i].width != w->width ||
                w->ctx.recs[i].height != w->height)
                w->wrong_format++;
    }
    camcore_capturer_close(cap);
    return NULL;
}

static void *listing_worker(void *arg)
{
    struct worker *w = arg;
    int i;

    w->lists_ok = 1;
    for (i = 0; i < 30; i++) {
        camcore_device_list *dl = NULL;
        camcore_format_list *fl = NULL;
        if (camcore_manager_list_devices(g_manager, &dl) != CAMCORE_OK || dl == NULL ||
            find_synthetic(dl, NULL) == NULL)
            w->lists_ok = 0;
        camcore_device_list_free(dl);
        if (camcore_manager_list_formats(g_manager, g_synth_id, &fl) != CAMCORE_OK || fl == NULL ||
            fl->count < 3)
            w->lists_ok = 0;
        camcore_format_list_free(fl);
    }
    return NULL;
}

static void test_S16_concurrent_capturers(void)
{
    static const uint32_t spec[3][4] = {
        { CAMCORE_FOURCC_YUYV, 320, 240, 30 },
        { CAMCORE_FOURCC_I420, 640, 360, 60 },
        { CAMCORE_FOURCC_NV12, 160, 120, 25 },
    };
    struct worker *w = calloc(4, sizeof *w);
    char buf[5];
    unsigned j;
    int i;

    for (i = 0; i < 4; i++) {
        ctx_init(&w[i].ctx);
        if (i < 3) {
            w[i].fourcc = spec[i][0];
            w[i].width = spec[i][1];
            w[i].height = spec[i][2];
            w[i].fps = spec[i][3];
        }
    }
    for (i = 0; i < 4; i++)
        pthread_create(&w[i].thread, NULL, i < 3 ? capture_worker : listing_worker, &w[i]);
    for (i = 0; i < 4; i++)
        pthread_join(w[i].thread, NULL);
    for (i = 0; i < 3; i++) {
        fourcc_str(w[i].fourcc, buf);
        CHECK(w[i].open_rc == CAMCORE_OK && w[i].start_rc == CAMCORE_OK && w[i].stop_rc == CAMCORE_OK,
              "capturer %d (%s): open %d, start %d, stop %d", i, buf, w[i].open_rc, w[i].start_rc,
              w[i].stop_rc);
        CHECK(w[i].got_all, "capturer %d (%s): only %u of 10 frames", i, buf, w[i].ctx.total);
        CHECK(w[i].wrong_format == 0, "capturer %d (%s): %d frames of another capturer's format", i,
              buf, w[i].wrong_format);
        /* Not "from 0" here: under this much load the synthetic camera may
         * start late and count the missed periods as drops. */
        for (j = 1; j < 10 && j < w[i].ctx.total; j++) {
            const struct rec *r = &w[i].ctx.recs[j], *q = &w[i].ctx.recs[j - 1];
            CHECK(r->sequence > q->sequence && r->sequence - q->sequence - 1 == r->dropped_before,
                  "capturer %d frame %u: sequence %" PRIu32 " after %" PRIu32
                  " with dropped_before %" PRIu32, i, j, r->sequence, q->sequence,
                  r->dropped_before);
        }
    }
    CHECK(w[3].lists_ok, "listing devices/formats failed while capturers ran");
    for (i = 0; i < 4; i++)
        ctx_destroy(&w[i].ctx);
    free(w);
}

/* ------------------------------------------------------------------ */
/* S23: retain and release                                             */
/* ------------------------------------------------------------------ */

static void test_S23_retained_frame_unchanged(void)
{
    struct ctx *c = malloc(sizeof *c);
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC_YUYV, 640, 480, 30);
    camcore_frame_callbacks cb;
    camcore_capturer *cap;
    const camcore_frame *kept;
    camcore_capture_stats st;
    int rc;

    ctx_init(c);
    c->retain_index = 2;
    cb = callbacks_for(c);
    cap = open_synthetic();
    if (cap == NULL)
        goto out;
    CHECK_STATUS(camcore_capturer_start(cap, &cfg, &cb), CAMCORE_OK, "start");
    CHECK(wait_for(c, &c->total, 13, 5000), "fewer than 13 frames");
    pthread_mutex_lock(&c->lock);
    kept = c->retained_count ? c->retained[0] : NULL;
    pthread_mutex_unlock(&c->lock);
    CHECK(kept != NULL, "camcore_frame_retain returned NULL");
    if (kept != NULL && c->copy != NULL) {
        /* 10 more frames went through the 3 other buffers meanwhile. */
        CHECK(c->recs[12].hash != c->recs[2].hash, "frames 2 and 12 are identical: test is moot");
        CHECK(kept->sequence == c->recs[2].sequence && kept->timestamp_ns == c->recs[2].timestamp_ns,
              "retained frame's metadata changed (seq %" PRIu32 ", was %" PRIu32 ")", kept->sequence,
              c->recs[2].sequence);
        CHECK(kept->planes[0].length == c->copy_len &&
                  memcmp(kept->planes[0].data, c->copy, c->copy_len) == 0,
              "retained frame's bytes changed after 10 more frames: buffer reused");
        /* Retains nest: each retain returns its own pointer to release
         * once (header); releasing the second leaves `kept` valid. */
        {
            const camcore_frame *again = camcore_frame_retain(kept);
            CHECK(again != NULL, "retain of a retained frame returned NULL");
            CHECK(again != kept, "retain of a retained frame returned the same pointer: one release would end both");
            CHECK(again && again->sequence == kept->sequence && again->planes[0].data == kept->planes[0].data,
                  "the second retain describes another frame");
            camcore_frame_release(again);
        }
        CHECK(wait_for(c, &c->total, 18, 5000), "frames stopped");
        CHECK(memcmp(kept->planes[0].data, c->copy, c->copy_len) == 0,
              "bytes changed after a nested retain/release pair");
        camcore_frame_release(kept);
        /* The buffer goes back to the queue; capture keeps going. */
        CHECK(wait_for(c, &c->total, read_counter(c, &c->total) + 5, 5000),
              "no frames after the release");
    }
    CHECK_STATUS(camcore_capturer_stop(cap), CAMCORE_OK, "stop");
    st = get_stats(cap, &rc);
    CHECK(rc == CAMCORE_OK && st.frames_dropped == 0,
          "one retained frame of 4 buffers caused %" PRIu64 " drops", st.frames_dropped);
    camcore_capturer_close(cap);
out:
    ctx_destroy(c);
    free(c);
}

static void test_S23_retained_frame_survives_close(void)
{
    struct ctx *c = malloc(sizeof *c);
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC_I420, 320, 240, 30);
    camcore_frame_callbacks cb;
    camcore_capturer *cap;
    const camcore_frame *kept;

    ctx_init(c);
    c->retain_index = 1;
    cb = callbacks_for(c);
    cap = open_synthetic();
    if (cap == NULL)
        goto out;
    CHECK_STATUS(camcore_capturer_start(cap, &cfg, &cb), CAMCORE_OK, "start");
    CHECK(wait_for(c, &c->total, 4, 5000), "fewer than 4 frames");
    camcore_capturer_close(cap);
    kept = c->retained_count ? c->retained[0] : NULL;
    CHECK(kept != NULL && c->copy != NULL, "nothing retained");
    if (kept != NULL && c->copy != NULL) {
        CHECK(kept->fourcc == CAMCORE_FOURCC_I420 && kept->plane_count == 3 && kept->width == 320,
              "retained frame's fields changed after close");
        CHECK(memcmp(kept->planes[0].data, c->copy, c->copy_len) == 0,
              "retained frame's bytes changed after close");
        camcore_frame_release(kept); /* allowed after close */
    }
out:
    ctx_destroy(c);
    free(c);
}

static void test_S23_all_buffers_retained(void)
{
    struct ctx *c = malloc(sizeof *c);
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC_YUYV, 320, 240, 60);
    camcore_frame_callbacks cb;
    camcore_capturer *cap;
    camcore_capture_stats st;
    uint64_t t, dropped;
    unsigned i, n;
    int rc;

    ctx_init(c);
    c->retain_first = 4; /* = buffer_count */
    cb = callbacks_for(c);
    cap = open_synthetic();
    if (cap == NULL)
        goto out;
    CHECK_STATUS(camcore_capturer_start(cap, &cfg, &cb), CAMCORE_OK, "start");
    CHECK(wait_for(c, &c->total, 4, 5000), "fewer than 4 frames");
    sleep_ms(400); /* 24 frame periods with no free buffer */
    n = read_counter(c, &c->total);
    CHECK(n == 4, "%u frames delivered while all 4 buffers were retained, expected 4", n);
    /* Releasing one lets capture continue; the next frame reports the gap. */
    pthread_mutex_lock(&c->lock);
    camcore_frame_release(c->retained[0]);
    c->retained[0] = NULL;
    pthread_mutex_unlock(&c->lock);
    CHECK(wait_for(c, &c->total, 5, 3000), "no frame after releasing one buffer");
    if (read_counter(c, &c->total) >= 5)
        CHECK(c->recs[4].dropped_before > 0 && c->recs[4].sequence > 4,
              "frame after the stall: sequence %" PRIu32 " dropped_before %" PRIu32
              ", expected a gap",
              c->recs[4].sequence, c->recs[4].dropped_before);
    /* Stop does not wait for retained frames. */
    t = now_ns();
    CHECK_STATUS(camcore_capturer_stop(cap), CAMCORE_OK, "stop with retained frames");
    CHECK(now_ns() - t < 2000000000u, "stop took %.1f s with retained frames",
          (double)(now_ns() - t) / 1e9);
    /* The gap is counted in the statistics (S22), like dropped_before. */
    st = get_stats(cap, &rc);
    n = read_counter(c, &c->total);
    dropped = 0;
    for (i = 0; i < n && i < MAX_REC; i++)
        dropped += c->recs[i].dropped_before;
    CHECK(rc == CAMCORE_OK && st.frames_dropped > 0 && st.frames_dropped == dropped,
          "stats: %" PRIu64 " dropped, frames' dropped_before add up to %" PRIu64,
          st.frames_dropped, dropped);
    CHECK(st.frames_delivered == n, "stats: %" PRIu64 " delivered, %u callbacks",
          st.frames_delivered, n);
    camcore_capturer_close(cap);
    for (i = 0; i < c->retained_count; i++)
        camcore_frame_release(c->retained[i]);
out:
    ctx_destroy(c);
    free(c);
}

/* ------------------------------------------------------------------ */
/* S31: bad input                                                      */
/* ------------------------------------------------------------------ */

/* The library still works: 3 frames from cap (or from a fresh capturer). */
static void check_still_works(camcore_capturer *cap, const char *after)
{
    struct ctx *c = malloc(sizeof *c);
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC_YUYV, 160, 120, 60);
    camcore_frame_callbacks cb;
    int own = cap == NULL;

    ctx_init(c);
    cb = callbacks_for(c);
    if (own)
        cap = open_synthetic();
    if (cap != NULL) {
        CHECK_STATUS(camcore_capturer_start(cap, &cfg, &cb), CAMCORE_OK, after);
        CHECK(wait_for(c, &c->total, 3, 5000), "no frames after %s", after);
        CHECK_STATUS(camcore_capturer_stop(cap), CAMCORE_OK, after);
        if (own)
            camcore_capturer_close(cap);
    }
    ctx_destroy(c);
    free(c);
}

static void test_S31_null_arguments(void)
{
    camcore_manager_config mcfg;
    camcore_manager *m = (camcore_manager *)&mcfg;
    camcore_device_list *dl = (camcore_device_list *)&mcfg;
    camcore_format_list *fl = (camcore_format_list *)&mcfg;
    camcore_capturer *cap = (camcore_capturer *)&mcfg;
    camcore_capture_format fmt;
    camcore_capture_stats st;
    camcore_capture_config cfg;
    camcore_frame_callbacks cb;

    /* Init helpers and free functions ignore NULL. */
    camcore_manager_config_init(NULL);
    camcore_capture_config_init(NULL);
    camcore_frame_callbacks_init(NULL);
    camcore_manager_free(NULL);
    camcore_device_list_free(NULL);
    camcore_format_list_free(NULL);
    camcore_capturer_close(NULL);
    camcore_frame_release(NULL);
    CHECK(camcore_frame_retain(NULL) == NULL, "frame_retain(NULL) != NULL");
    CHECK(camcore_strerror(CAMCORE_E_IO) != NULL, "strerror NULL");

    /* Manager. */
    camcore_manager_config_init(&mcfg);
    CHECK_STATUS(camcore_manager_new(&mcfg, NULL), CAMCORE_E_INVALID_ARG, "manager_new(cfg, NULL)");
    mcfg.struct_size = 0;
    CHECK_STATUS(camcore_manager_new(&mcfg, &m), CAMCORE_E_INVALID_ARG,
                 "manager_new(struct_size 0)");
    CHECK(m == NULL, "manager_new failure left *out non-NULL");
    mcfg.struct_size = 3;
    m = (camcore_manager *)&mcfg;
    CHECK_STATUS(camcore_manager_new(&mcfg, &m), CAMCORE_E_INVALID_ARG,
                 "manager_new(struct_size 3)");
    CHECK(m == NULL, "manager_new failure left *out non-NULL");

    CHECK_STATUS(camcore_manager_list_devices(NULL, &dl), CAMCORE_E_INVALID_ARG,
                 "list_devices(NULL, out)");
    CHECK(dl == NULL, "list_devices failure left *out non-NULL");
    CHECK_STATUS(camcore_manager_list_devices(g_manager, NULL), CAMCORE_E_INVALID_ARG,
                 "list_devices(m, NULL)");

    CHECK_STATUS(camcore_manager_list_formats(NULL, g_synth_id, &fl), CAMCORE_E_INVALID_ARG,
                 "list_formats(NULL, id, out)");
    CHECK(fl == NULL, "list_formats failure left *out non-NULL");
    CHECK_STATUS(camcore_manager_list_formats(g_manager, NULL, &fl), CAMCORE_E_INVALID_ARG,
                 "list_formats(m, NULL, out)");
    CHECK_STATUS(camcore_manager_list_formats(g_manager, g_synth_id, NULL), CAMCORE_E_INVALID_ARG,
                 "list_formats(m, id, NULL)");
    CHECK_STATUS(camcore_manager_list_formats(g_manager, "", &fl), CAMCORE_E_NO_DEVICE,
                 "list_formats(m, \"\", out)");

    /* Capturer open. */
    CHECK_STATUS(camcore_capturer_open(NULL, g_synth_id, &cap), CAMCORE_E_INVALID_ARG,
                 "capturer_open(NULL, id, out)");
    CHECK(cap == NULL, "capturer_open failure left *out non-NULL");
    CHECK_STATUS(camcore_capturer_open(g_manager, NULL, &cap), CAMCORE_E_INVALID_ARG,
                 "capturer_open(m, NULL, out)");
    CHECK_STATUS(camcore_capturer_open(g_manager, g_synth_id, NULL), CAMCORE_E_INVALID_ARG,
                 "capturer_open(m, id, NULL)");
    cap = (camcore_capturer *)&mcfg;
    CHECK_STATUS(camcore_capturer_open(g_manager, "no-such-camera", &cap), CAMCORE_E_NO_DEVICE,
                 "capturer_open(unknown id)");
    CHECK(cap == NULL, "capturer_open failure left *out non-NULL");
    CHECK_STATUS(camcore_capturer_open(g_manager, "/dev/video-none", &cap), CAMCORE_E_NO_DEVICE,
                 "capturer_open(node-like unknown id)");

    /* Capturer calls with NULL. */
    camcore_capture_config_init(&cfg);
    camcore_frame_callbacks_init(&cb);
    CHECK_STATUS(camcore_capturer_start(NULL, &cfg, &cb), CAMCORE_E_INVALID_ARG, "start(NULL)");
    CHECK_STATUS(camcore_capturer_start(NULL, NULL, NULL), CAMCORE_E_INVALID_ARG,
                 "start(NULL, NULL, NULL)");
    CHECK_STATUS(camcore_capturer_stop(NULL), CAMCORE_E_INVALID_ARG, "stop(NULL)");
    CHECK(camcore_capturer_is_streaming(NULL) == 0, "is_streaming(NULL) != 0");
    memset(&fmt, 0, sizeof fmt);
    fmt.struct_size = sizeof fmt;
    CHECK_STATUS(camcore_capturer_get_format(NULL, &fmt), CAMCORE_E_INVALID_ARG,
                 "get_format(NULL)");
    st.struct_size = sizeof st;
    CHECK_STATUS(camcore_capturer_get_stats(NULL, &st), CAMCORE_E_INVALID_ARG, "get_stats(NULL)");
    CHECK_STATUS(camcore_capturer_fd(NULL), CAMCORE_E_INVALID_ARG, "fd(NULL)");
    CHECK(camcore_capturer_device_id(NULL) == NULL, "device_id(NULL) != NULL");

    check_still_works(NULL, "NULL arguments");
}

static void test_S31_bad_sizes_and_states(void)
{
    struct ctx *c = malloc(sizeof *c);
    camcore_capture_config cfg, good = config_for(CAMCORE_FOURCC_YUYV, 320, 240, 30);
    camcore_frame_callbacks cb, badcb;
    camcore_capture_format fmt;
    camcore_capture_stats st;
    camcore_capturer *cap;
    int rc;

    ctx_init(c);
    cb = callbacks_for(c);
    cap = open_synthetic();
    if (cap == NULL)
        goto out;

    CHECK(camcore_capturer_device_id(cap) != NULL &&
              strcmp(camcore_capturer_device_id(cap), g_synth_id) == 0,
          "device_id '%s', expected '%s'",
          camcore_capturer_device_id(cap) ? camcore_capturer_device_id(cap) : "(null)", g_synth_id);
    CHECK_STATUS(camcore_capturer_fd(cap), CAMCORE_E_NOT_SUPPORTED, "fd(synthetic)");
    CHECK(camcore_capturer_is_streaming(cap) == 0, "streaming before start");

    /* Never started. */
    fmt = get_format(cap, &rc);
    CHECK_STATUS(rc, CAMCORE_E_STATE, "get_format before start");
    CHECK_STATUS(camcore_capturer_get_format(cap, NULL), CAMCORE_E_INVALID_ARG,
                 "get_format(cap, NULL)");
    CHECK_STATUS(camcore_capturer_get_stats(cap, NULL), CAMCORE_E_INVALID_ARG,
                 "get_stats(cap, NULL)");
    memset(&st, 0, sizeof st);
    CHECK_STATUS(camcore_capturer_get_stats(cap, &st), CAMCORE_E_INVALID_ARG,
                 "get_stats(struct_size 0)");
    CHECK_STATUS(camcore_capturer_stop(cap), CAMCORE_OK, "stop before start");

    /* Bad configs: INVALID_ARG, and the capturer stays stopped. */
    cfg = good;
    cfg.struct_size = 0;
    CHECK_STATUS(camcore_capturer_start(cap, &cfg, &cb), CAMCORE_E_INVALID_ARG,
                 "start(config struct_size 0)");
    cfg.struct_size = 4;
    CHECK_STATUS(camcore_capturer_start(cap, &cfg, &cb), CAMCORE_E_INVALID_ARG,
                 "start(config struct_size 4)");
    cfg = good;
    cfg.width = 0;
    CHECK_STATUS(camcore_capturer_start(cap, &cfg, &cb), CAMCORE_E_INVALID_ARG, "start(width 0)");
    cfg = good;
    cfg.height = 0;
    CHECK_STATUS(camcore_capturer_start(cap, &cfg, &cb), CAMCORE_E_INVALID_ARG, "start(height 0)");
    cfg = good;
    cfg.buffer_count = 1;
    CHECK_STATUS(camcore_capturer_start(cap, &cfg, &cb), CAMCORE_E_INVALID_ARG,
                 "start(buffer_count 1)");
    cfg.buffer_count = 33;
    CHECK_STATUS(camcore_capturer_start(cap, &cfg, &cb), CAMCORE_E_INVALID_ARG,
                 "start(buffer_count 33)");
    badcb = cb;
    badcb.struct_size = 0;
    CHECK_STATUS(camcore_capturer_start(cap, &good, &badcb), CAMCORE_E_INVALID_ARG,
                 "start(callbacks struct_size 0)");
    cfg = good;
    cfg.fourcc = CAMCORE_FOURCC_MJPEG;
    CHECK_STATUS(camcore_capturer_start(cap, &cfg, &cb), CAMCORE_E_NOT_SUPPORTED,
                 "start(MJPG on synthetic)");
    cfg.fourcc = CAMCORE_FOURCC('X', 'X', 'X', 'X');
    CHECK_STATUS(camcore_capturer_start(cap, &cfg, &cb), CAMCORE_E_NOT_SUPPORTED,
                 "start(unknown FourCC XXXX)");
    CHECK(camcore_capturer_is_streaming(cap) == 0, "streaming after failed starts");
    CHECK(read_counter(c, &c->entered) == 0, "callbacks ran after failed starts");

    /* Start twice: STATE, the first capture continues untouched. */
    CHECK_STATUS(camcore_capturer_start(cap, &good, &cb), CAMCORE_OK, "start");
    cfg = config_for(CAMCORE_FOURCC_NV12, 640, 480, 15);
    CHECK_STATUS(camcore_capturer_start(cap, &cfg, &cb), CAMCORE_E_STATE, "start while streaming");
    CHECK(camcore_capturer_is_streaming(cap) != 0, "second start stopped the stream");
    fmt = get_format(cap, &rc);
    CHECK(rc == CAMCORE_OK && fmt.fourcc == CAMCORE_FOURCC_YUYV && fmt.width == 320,
          "second start changed the format");
    memset(&fmt, 0, sizeof fmt);
    CHECK_STATUS(camcore_capturer_get_format(cap, &fmt), CAMCORE_E_INVALID_ARG,
                 "get_format(struct_size 0)");
    CHECK(wait_for(c, &c->total, 5, 5000), "frames stopped after a second start");
    CHECK_STATUS(camcore_capturer_stop(cap), CAMCORE_OK, "stop");
    CHECK_STATUS(camcore_capturer_stop(cap), CAMCORE_OK, "stop twice");

    /* NULL config and callbacks: defaults, delivered nowhere. */
    CHECK_STATUS(camcore_capturer_start(cap, NULL, NULL), CAMCORE_OK, "start(cap, NULL, NULL)");
    fmt = get_format(cap, &rc);
    CHECK(rc == CAMCORE_OK && fmt.fourcc == CAMCORE_FOURCC_YUYV && fmt.width == 640 &&
              fmt.height == 480 && fraction_is(fmt.fps, 30),
          "start with NULL config: %" PRIu32 "x%" PRIu32 " %" PRIu32 "/%" PRIu32
          ", expected YUYV 640x480 30 fps",
          fmt.width, fmt.height, fmt.fps.numerator, fmt.fps.denominator);
    sleep_ms(100);
    CHECK_STATUS(camcore_capturer_stop(cap), CAMCORE_OK, "stop");

    /* 0/0 keeps the driver's rate. */
    cfg = good;
    cfg.fps.numerator = 0;
    cfg.fps.denominator = 0;
    CHECK_STATUS(camcore_capturer_start(cap, &cfg, &cb), CAMCORE_OK, "start(fps 0/0)");
    fmt = get_format(cap, &rc);
    CHECK(rc == CAMCORE_OK && fmt.fps.denominator != 0 && fmt.fps.numerator != 0,
          "fps 0/0: applied rate %" PRIu32 "/%" PRIu32 " should be the (known) driver rate",
          fmt.fps.numerator, fmt.fps.denominator);
    CHECK_STATUS(camcore_capturer_stop(cap), CAMCORE_OK, "stop");

    check_still_works(cap, "bad sizes and states");
    camcore_capturer_close(cap);
out:
    ctx_destroy(c);
    free(c);
}

/* S31: freeing the manager closes its capturers (camcore_manager_free);
 * their handles then take only camcore_capturer_close(). */
static void test_S31_manager_free_closes_its_capturers(void)
{
    camcore_manager_config mcfg;
    camcore_manager *m = NULL;
    camcore_capturer *cap = NULL;
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC_YUYV, 160, 120, 60);

    camcore_manager_config_init(&mcfg);
    mcfg.include_synthetic = 1;
    CHECK_STATUS(camcore_manager_new(&mcfg, &m), CAMCORE_OK, "manager_new");
    CHECK_STATUS(camcore_capturer_open(m, g_synth_id, &cap), CAMCORE_OK, "open");
    camcore_manager_free(m);
    if (cap != NULL) {
        CHECK_STATUS(camcore_capturer_start(cap, &cfg, NULL), CAMCORE_E_STATE, "start after manager_free");
        camcore_capturer_close(cap);
        CHECK_STATUS(camcore_capturer_start(cap, &cfg, NULL), CAMCORE_E_INVALID_ARG, "start after close");
    }
    check_still_works(NULL, "a manager freed with a capturer open");
}

/* ------------------------------------------------------------------ */
/* S23, S31: hostile and careless callers of the frame API             */
/* ------------------------------------------------------------------ */

/* Frame pointers seen by a callback, kept past it (what a careless app does). */
#define MAX_SAVED 8
struct saved {
    pthread_mutex_t lock;
    const camcore_frame *ptr[MAX_SAVED];
    unsigned count;
};

static void save_frame(void *user_data, const camcore_frame *f)
{
    struct saved *s = user_data;

    pthread_mutex_lock(&s->lock);
    if (s->count < MAX_SAVED)
        s->ptr[s->count] = f;
    s->count++;
    pthread_mutex_unlock(&s->lock);
}

static unsigned saved_count(struct saved *s)
{
    unsigned n;

    pthread_mutex_lock(&s->lock);
    n = s->count;
    pthread_mutex_unlock(&s->lock);
    return n;
}

static int wait_saved(struct saved *s, unsigned n, unsigned timeout_ms)
{
    uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000u;

    while (saved_count(s) < n && now_ns() < end)
        sleep_ms(2);
    return saved_count(s) >= n;
}

/* S23 + S31: a borrowed frame pointer kept after its callback is refused by
 * camcore_frame_retain (NULL, a message) and ignored by release, between
 * callbacks and after the capturer is gone; never a crash. In a child: the
 * library before the fix crashed here (stale stack memory, freed pool). */
static int child_stale_borrowed_frame(void)
{
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC_YUYV, 160, 120, 60);
    unsigned round, i;

    for (round = 0; round < 3; round++) {
        struct saved s;
        camcore_frame_callbacks cb;
        camcore_capturer *cap = open_synthetic();
        const camcore_frame *r;

        memset(&s, 0, sizeof s);
        pthread_mutex_init(&s.lock, NULL);
        if (cap == NULL)
            return 1;
        camcore_frame_callbacks_init(&cb);
        cb.user_data = &s;
        cb.on_frame = save_frame;
        CHECK_STATUS(camcore_capturer_start(cap, &cfg, &cb), CAMCORE_OK, "start");
        CHECK(wait_saved(&s, 6, 5000), "round %u: fewer than 6 frames", round);
        /* While capture goes on: frame 0's callback returned long ago. */
        r = camcore_frame_retain(s.ptr[0]);
        CHECK(r == NULL, "round %u: retain of frame 0's pointer during capture returned %p, expected NULL",
              round, (const void *)r);
        CHECK(strstr(camcore_last_error_message(), "callback") != NULL,
              "round %u: retain of a stale frame: message '%s' does not say its callback returned", round,
              camcore_last_error_message());
        if (r != NULL)
            camcore_frame_release(r);
        CHECK_STATUS(camcore_capturer_stop(cap), CAMCORE_OK, "stop");
        camcore_capturer_close(cap);
        /* The capture thread, its stack and its buffer pool are gone. */
        for (i = 0; i < 6 && i < MAX_SAVED; i++) {
            r = camcore_frame_retain(s.ptr[i]);
            CHECK(r == NULL, "round %u: retain of frame %u's pointer after close returned %p, expected NULL",
                  round, i, (const void *)r);
            CHECK(camcore_last_error_message()[0] != '\0', "round %u: retain of a stale frame set no message",
                  round);
            if (r != NULL)
                camcore_frame_release(r);
            camcore_frame_release(s.ptr[i]); /* ignored, with a message */
            CHECK(strstr(camcore_last_error_message(), "camcore_frame_release") != NULL,
                  "round %u: release of a stale borrowed frame: message '%s'", round,
                  camcore_last_error_message());
        }
        pthread_mutex_destroy(&s.lock);
    }
    return 0;
}

/* S23 + S31: a retained frame released twice, or retained after its
 * release: refused with a message; camcore reads no memory it freed (the
 * ASan build of the library checks that). */
static int child_released_frame_pointer(void)
{
    struct ctx *c = malloc(sizeof *c);
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC_YUYV, 160, 120, 60);
    camcore_frame_callbacks cb;
    camcore_capturer *cap;
    const camcore_frame *kept, *again;

    ctx_init(c);
    c->retain_index = 0;
    cb = callbacks_for(c);
    cap = open_synthetic();
    if (cap == NULL)
        return 1;
    CHECK_STATUS(camcore_capturer_start(cap, &cfg, &cb), CAMCORE_OK, "start");
    CHECK(wait_for(c, &c->total, 3, 5000), "fewer than 3 frames");
    CHECK_STATUS(camcore_capturer_stop(cap), CAMCORE_OK, "stop");
    camcore_capturer_close(cap);
    kept = c->retained_count ? c->retained[0] : NULL;
    CHECK(kept != NULL, "camcore_frame_retain in the callback returned NULL");
    if (kept != NULL) {
        camcore_frame_release(kept);
        camcore_frame_release(kept); /* again: ignored, with a message */
        CHECK(strstr(camcore_last_error_message(), "not a retained frame") != NULL,
              "second release: message '%s'", camcore_last_error_message());
        again = camcore_frame_retain(kept);
        CHECK(again == NULL, "retain of a released frame returned %p, expected NULL", (const void *)again);
        CHECK(camcore_last_error_message()[0] != '\0', "retain of a released frame set no message");
    }
    ctx_destroy(c);
    free(c);
    return 0;
}

/* S31: retain/release of a frame the app built in its own memory (as for
 * push_frame) read camcore's marker past the end of the app's struct: with
 * the struct at the end of a page followed by a PROT_NONE page, that was a
 * SIGSEGV. Now: NULL and a message, nothing read past sizeof(camcore_frame);
 * no pointer is dereferenced before camcore knows it is its own. */
static int child_app_frame_at_page_end(void)
{
    long page = sysconf(_SC_PAGESIZE);
    uint8_t *map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    camcore_frame *f;
    const camcore_frame *r;
    static uint8_t pixels[32 * 2 * 16];

    if (map == MAP_FAILED || mprotect(map + page, (size_t)page, PROT_NONE) != 0) {
        printf("     child: mmap/mprotect failed\n");
        return 1;
    }
    f = (camcore_frame *)(void *)(map + page - sizeof *f);
    memset(f, 0, sizeof *f);
    f->struct_size = sizeof *f;
    f->fourcc = CAMCORE_FOURCC_YUYV;
    f->width = 32;
    f->height = 16;
    f->plane_count = 1;
    f->planes[0].data = pixels;
    f->planes[0].stride = 64;
    f->planes[0].length = sizeof pixels;

    r = camcore_frame_retain(f);
    CHECK(r == NULL, "retain of an app-built frame returned %p, expected NULL", (const void *)r);
    CHECK(strstr(camcore_last_error_message(), "not a frame") != NULL,
          "retain of an app-built frame: message '%s'", camcore_last_error_message());
    camcore_frame_release(f);
    CHECK(strstr(camcore_last_error_message(), "camcore_frame_release") != NULL,
          "release of an app-built frame: message '%s'", camcore_last_error_message());

    /* Not even a readable pointer: the guard page itself, and a tiny address. */
    r = camcore_frame_retain((const camcore_frame *)(const void *)(map + page));
    CHECK(r == NULL, "retain of an unreadable address returned %p", (const void *)r);
    camcore_frame_release((const camcore_frame *)(const void *)(map + page));
    r = camcore_frame_retain((const camcore_frame *)(uintptr_t)16);
    CHECK(r == NULL, "retain of address 16 returned %p", (const void *)r);

    /* push_frame reads the same struct, at the page end, and no further. */
    {
        camcore_session_config scfg;
        camcore_session *s = NULL;

        camcore_session_config_init(&scfg);
        scfg.device_id = g_synth_id;
        CHECK_STATUS(camcore_session_new(g_manager, &scfg, &s), CAMCORE_OK, "session_new");
        if (s != NULL) {
            CHECK_STATUS(camcore_session_set_custom_source(s, 1), CAMCORE_OK, "custom source on");
            CHECK_STATUS(camcore_session_push_frame(s, f), CAMCORE_OK, "push_frame of a frame at a page end");
            camcore_session_free(s);
        }
    }
    munmap(map, (size_t)page * 2);
    return 0;
}

/* A transmission/preview sink that counts frames and remembers the largest width. */
struct tally {
    pthread_mutex_t lock;
    unsigned frames;
    uint32_t max_width, max_height;
};

static void tally_frame(void *user_data, const camcore_frame *f)
{
    struct tally *t = user_data;

    pthread_mutex_lock(&t->lock);
    t->frames++;
    if (f->width > t->max_width)
        t->max_width = f->width;
    if (f->height > t->max_height)
        t->max_height = f->height;
    pthread_mutex_unlock(&t->lock);
}

static camcore_frame app_frame(uint32_t fourcc, uint32_t w, uint32_t h, uint32_t planes)
{
    camcore_frame f;

    memset(&f, 0, sizeof f);
    f.struct_size = sizeof f;
    f.fourcc = fourcc;
    f.width = w;
    f.height = h;
    f.plane_count = planes;
    return f;
}

static void set_plane(camcore_frame *f, unsigned p, uint8_t *data, uint32_t stride, uint32_t length)
{
    f->planes[p].data = data;
    f->planes[p].stride = stride;
    f->planes[p].length = length;
}

/* Pushes f; expects want, and for a refusal a message holding each needle. */
static void check_push(camcore_session *s, const camcore_frame *f, int want, const char *what,
                       const char *needle1, const char *needle2)
{
    int rc = camcore_session_push_frame(s, f);
    const char *msg = camcore_last_error_message();

    CHECK(rc == want, "%s: push_frame returned %d (%s), expected %d [%s]", what, rc, camcore_strerror(rc),
          want, msg);
    if (want != CAMCORE_OK && rc == want) {
        CHECK(needle1 == NULL || strstr(msg, needle1) != NULL, "%s: message '%s' lacks '%s'", what, msg,
              needle1);
        CHECK(needle2 == NULL || strstr(msg, needle2) != NULL, "%s: message '%s' lacks '%s'", what, msg,
              needle2);
    }
}

/* S21 + S31: push_frame checks plane count, strides and lengths against the
 * FourCC and size (the pixel-format table): each plane's length >=
 * stride * (rows - 1) + row bytes, stride >= row bytes; compressed formats
 * need a non-empty plane; an unknown FourCC is refused. */
static void test_S31_push_frame_checked_against_format(void)
{
    static uint8_t buf[64 * 1024];
    camcore_session_config scfg;
    camcore_session *s = NULL;
    camcore_frame_callbacks cb;
    struct tally t;
    camcore_frame f;
    unsigned accepted = 0;

    memset(&t, 0, sizeof t);
    pthread_mutex_init(&t.lock, NULL);
    camcore_session_config_init(&scfg);
    scfg.device_id = g_synth_id;
    CHECK_STATUS(camcore_session_new(g_manager, &scfg, &s), CAMCORE_OK, "session_new");
    if (s == NULL)
        return;
    camcore_frame_callbacks_init(&cb);
    cb.user_data = &t;
    cb.on_frame = tally_frame;
    CHECK_STATUS(camcore_session_set_transmission_sink(s, &cb), CAMCORE_OK, "set_transmission_sink");
    CHECK_STATUS(camcore_session_set_custom_source(s, 1), CAMCORE_OK, "custom source on");
    CHECK_STATUS(camcore_session_start_transmission(s, CAMCORE_VIDEO_RESUME, 0), CAMCORE_OK,
                 "start_transmission");

    /* The issue's frame: 65535 x 65535 YUYV in a 1-byte plane. */
    f = app_frame(CAMCORE_FOURCC_YUYV, 65535, 65535, 1);
    set_plane(&f, 0, buf, 131072, 1);
    check_push(s, &f, CAMCORE_E_INVALID_ARG, "YUYV 65535x65535, 1 byte", "plane 0", "length 1");

    /* YUYV 32x16: rows of 64 bytes. */
    f = app_frame(CAMCORE_FOURCC_YUYV, 32, 16, 1);
    set_plane(&f, 0, buf, 63, 63 * 16);
    check_push(s, &f, CAMCORE_E_INVALID_ARG, "YUYV stride 63 < 64", "plane 0", "stride 63");
    set_plane(&f, 0, buf, 64, 64 * 15 + 63);
    check_push(s, &f, CAMCORE_E_INVALID_ARG, "YUYV one byte short", "plane 0", "1023");
    set_plane(&f, 0, buf, 64, 64 * 15 + 64);
    check_push(s, &f, CAMCORE_OK, "YUYV exactly stride*(rows-1)+row bytes", NULL, NULL);
    accepted++;
    set_plane(&f, 0, buf, 80, 80 * 15 + 64);
    check_push(s, &f, CAMCORE_OK, "YUYV padded rows", NULL, NULL);
    accepted++;
    f.plane_count = 2;
    set_plane(&f, 1, buf, 64, 1024);
    check_push(s, &f, CAMCORE_E_INVALID_ARG, "YUYV with 2 planes", "2 planes", "1");

    /* I420 32x16: Y 32 x 16, U and V 16 x 8. */
    f = app_frame(CAMCORE_FOURCC_I420, 32, 16, 3);
    set_plane(&f, 0, buf, 32, 512);
    set_plane(&f, 1, buf + 512, 16, 128);
    set_plane(&f, 2, buf + 640, 16, 128);
    check_push(s, &f, CAMCORE_OK, "I420 32x16, 3 planes", NULL, NULL);
    accepted++;
    set_plane(&f, 2, buf + 640, 16, 127);
    check_push(s, &f, CAMCORE_E_INVALID_ARG, "I420 V plane one byte short", "plane 2", "127");
    set_plane(&f, 2, buf + 640, 15, 128);
    check_push(s, &f, CAMCORE_E_INVALID_ARG, "I420 V stride 15 < 16", "plane 2", "stride 15");
    set_plane(&f, 2, NULL, 16, 128);
    check_push(s, &f, CAMCORE_E_INVALID_ARG, "I420 V plane without data", "plane 2", NULL);
    f.plane_count = 1;
    set_plane(&f, 0, buf, 32, 768);
    check_push(s, &f, CAMCORE_E_INVALID_ARG, "I420 as 1 plane", "3 planes", NULL);

    /* NV12 32x16: Y 32 x 16, CbCr 32 x 8. */
    f = app_frame(CAMCORE_FOURCC_NV12, 32, 16, 2);
    set_plane(&f, 0, buf, 32, 512);
    set_plane(&f, 1, buf + 512, 32, 256);
    check_push(s, &f, CAMCORE_OK, "NV12 32x16, 2 planes", NULL, NULL);
    accepted++;
    set_plane(&f, 1, buf + 512, 32, 255);
    check_push(s, &f, CAMCORE_E_INVALID_ARG, "NV12 CbCr plane one byte short", "plane 1", "255");

    /* Compressed: one non-empty plane; its size is the data's. */
    f = app_frame(CAMCORE_FOURCC_MJPEG, 640, 480, 1);
    set_plane(&f, 0, buf, 0, 0);
    check_push(s, &f, CAMCORE_E_INVALID_ARG, "MJPEG with an empty plane", "plane 0", "length 0");
    set_plane(&f, 0, buf, 0, 1234);
    check_push(s, &f, CAMCORE_OK, "MJPEG 1234 bytes", NULL, NULL);
    accepted++;
    f.plane_count = 2;
    set_plane(&f, 1, buf, 0, 10);
    check_push(s, &f, CAMCORE_E_INVALID_ARG, "MJPEG with 2 planes", "2 planes", NULL);

    /* A FourCC camcore does not know: no geometry to check it against. */
    f = app_frame(CAMCORE_FOURCC('Z', 'Z', 'Z', 'Z'), 32, 16, 1);
    set_plane(&f, 0, buf, 64, 1024);
    check_push(s, &f, CAMCORE_E_INVALID_ARG, "unknown FourCC", "ZZZZ", NULL);

    pthread_mutex_lock(&t.lock);
    CHECK(t.frames == accepted, "the sink got %u frames, expected the %u accepted ones", t.frames, accepted);
    CHECK(t.max_width <= 640 && t.max_height <= 480, "the sink got a %" PRIu32 "x%" PRIu32 " frame",
          t.max_width, t.max_height);
    pthread_mutex_unlock(&t.lock);
    camcore_session_free(s);
    pthread_mutex_destroy(&t.lock);
}

/* The capture hook of the next test: replaces frames with `bad` (or `good`). */
struct hook_state {
    pthread_mutex_t lock;
    int use_bad;
    unsigned calls, bad_calls;
    char message[512]; /* last error message seen in the call after a bad replacement */
    uint8_t pixels[32 * 2 * 16];
};

static int replacing_hook(void *user_data, const camcore_frame *frame, camcore_frame *replacement)
{
    struct hook_state *h = user_data;
    int bad;

    (void)frame;
    pthread_mutex_lock(&h->lock);
    if (h->bad_calls > 0 && h->message[0] == '\0')
        snprintf(h->message, sizeof h->message, "%s", camcore_last_error_message());
    h->calls++;
    bad = h->use_bad;
    if (bad)
        h->bad_calls++;
    pthread_mutex_unlock(&h->lock);
    replacement->fourcc = CAMCORE_FOURCC_YUYV;
    replacement->plane_count = 1;
    replacement->planes[0].data = h->pixels;
    if (bad) { /* the issue's frame */
        replacement->width = 65535;
        replacement->height = 65535;
        replacement->planes[0].stride = 131072;
        replacement->planes[0].length = 1;
    } else {
        replacement->width = 32;
        replacement->height = 16;
        replacement->planes[0].stride = 64;
        replacement->planes[0].length = sizeof h->pixels;
    }
    return CAMCORE_HOOK_REPLACE;
}

/* S20 + S31: a hook replacement is checked like a pushed frame; a refused
 * one drops the frame (previews never see it) and leaves the reason, naming
 * the plane and the sizes, as the capture thread's last error message. */
static void test_S31_hook_replacement_checked_against_format(void)
{
    camcore_session_config scfg;
    camcore_session *s = NULL;
    camcore_frame_callbacks cb;
    camcore_capture_hook hook;
    struct tally t;
    struct hook_state *h = calloc(1, sizeof *h);
    uint32_t id = 0;
    uint64_t end;
    unsigned n;

    memset(&t, 0, sizeof t);
    pthread_mutex_init(&t.lock, NULL);
    pthread_mutex_init(&h->lock, NULL);
    h->use_bad = 1;
    camcore_session_config_init(&scfg);
    scfg.device_id = g_synth_id;
    scfg.preference.width = 160;
    scfg.preference.height = 120;
    CHECK_STATUS(camcore_session_new(g_manager, &scfg, &s), CAMCORE_OK, "session_new");
    if (s == NULL)
        goto out;
    memset(&hook, 0, sizeof hook);
    hook.struct_size = sizeof hook;
    hook.user_data = h;
    hook.on_capture = replacing_hook;
    CHECK_STATUS(camcore_session_set_capture_hook(s, &hook), CAMCORE_OK, "set_capture_hook");
    camcore_frame_callbacks_init(&cb);
    cb.user_data = &t;
    cb.on_frame = tally_frame;
    CHECK_STATUS(camcore_session_add_preview(s, &cb, &id), CAMCORE_OK, "add_preview");
    end = now_ns() + 5000000000ull;
    do {
        sleep_ms(10);
        pthread_mutex_lock(&h->lock);
        n = h->calls;
        pthread_mutex_unlock(&h->lock);
    } while (n < 5 && now_ns() < end);
    CHECK(n >= 5, "the hook ran %u times in 5 s", n);
    pthread_mutex_lock(&h->lock);
    h->use_bad = 0;
    pthread_mutex_unlock(&h->lock);
    pthread_mutex_lock(&t.lock);
    CHECK(t.frames == 0 && t.max_width == 0, "the preview got %u frames (widest %" PRIu32
          ") of refused replacements", t.frames, t.max_width);
    pthread_mutex_unlock(&t.lock);
    pthread_mutex_lock(&h->lock);
    CHECK(strstr(h->message, "plane 0") != NULL && strstr(h->message, "length 1") != NULL,
          "after a refused replacement the capture thread's message is '%s'", h->message);
    pthread_mutex_unlock(&h->lock);
    /* Valid replacements go through. */
    end = now_ns() + 5000000000ull;
    do {
        sleep_ms(10);
        pthread_mutex_lock(&t.lock);
        n = t.frames;
        pthread_mutex_unlock(&t.lock);
    } while (n < 3 && now_ns() < end);
    pthread_mutex_lock(&t.lock);
    CHECK(t.frames >= 3 && t.max_width == 32, "valid replacements: the preview got %u frames, widest %" PRIu32,
          t.frames, t.max_width);
    pthread_mutex_unlock(&t.lock);
    camcore_session_free(s);
out:
    pthread_mutex_destroy(&h->lock);
    pthread_mutex_destroy(&t.lock);
    free(h);
}

/* ------------------------------------------------------------------ */

static const char *setup(void)
{
    static char why[512];
    camcore_manager_config mcfg;
    camcore_device_list *list = NULL;
    const camcore_device_info *synth;

    unsetenv("CAMCORE_SYNTHETIC_CAMERA");
    camcore_manager_config_init(&mcfg);
    mcfg.include_synthetic = 1;
    if (camcore_manager_new(&mcfg, &g_manager) != CAMCORE_OK ||
        camcore_manager_list_devices(g_manager, &list) != CAMCORE_OK ||
        (synth = find_synthetic(list, NULL)) == NULL) {
        snprintf(why, sizeof why, "no manager or no synthetic camera: %s",
                 camcore_last_error_message());
        return why;
    }
    snprintf(g_synth_id, sizeof g_synth_id, "%s", synth->id);
    camcore_device_list_free(list);
    printf("synthetic camera id: %s\n", g_synth_id);
    return NULL;
}

static void teardown(void)
{
    camcore_manager_free(g_manager);
}

/* S43: the frame note is empty while frames fit; snprintf-style length;
 * bad arguments refused. */
static void test_S43_frame_note(void)
{
    camcore_capturer *cap = open_synthetic();
    char buf[8] = "xxxxxxx";

    if (!cap)
        return;
    CHECK_STATUS(camcore_capturer_get_frame_note(NULL, buf, sizeof buf), CAMCORE_E_INVALID_ARG, "note(NULL)");
    CHECK_STATUS(camcore_capturer_get_frame_note(cap, NULL, 4), CAMCORE_E_INVALID_ARG, "note(buffer NULL, size 4)");
    CHECK(camcore_capturer_get_frame_note(cap, NULL, 0) == 0, "a never started capturer has a note");
    CHECK(camcore_capturer_get_frame_note(cap, buf, sizeof buf) == 0 && buf[0] == '\0',
          "empty note: got '%s'", buf);
    camcore_capturer_close(cap);
}

static const struct testlib_test tests[] = {
    TESTLIB_TEST(test_S29_version),
    TESTLIB_TEST(test_S29_strerror_names),
    TESTLIB_TEST(test_S29_last_error_per_thread),
    TESTLIB_TEST(test_S4_synthetic_listed_only_when_asked),
    TESTLIB_TEST(test_S5_synthetic_formats),
    TESTLIB_TEST(test_S5_pixel_format_table),
    TESTLIB_TEST(test_S43_frame_note),
    TESTLIB_TEST(test_S22_capture_yuyv_640x480),
    TESTLIB_TEST(test_S22_capture_yuyv_1280x720_at_15),
    TESTLIB_TEST(test_S22_capture_i420),
    TESTLIB_TEST(test_S22_capture_nv12),
    TESTLIB_TEST(test_S6_reported_format_matches_frames),
    TESTLIB_TEST(test_S8_output_conversion),
    TESTLIB_TEST(test_S8_unsupported_output),
    TESTLIB_TEST(test_S6_S7_negotiation),
    TESTLIB_TEST(test_S29_versioned_structs),
    TESTLIB_TEST(test_S16_no_callback_after_stop_or_close),
    TESTLIB_TEST(test_S16_concurrent_capturers),
    TESTLIB_TEST(test_S31_stop_close_inside_callback),
    TESTLIB_TEST(test_S23_retained_frame_unchanged),
    TESTLIB_TEST(test_S23_retained_frame_survives_close),
    TESTLIB_TEST(test_S23_all_buffers_retained),
    TESTLIB_TEST(test_S31_null_arguments),
    TESTLIB_TEST(test_S31_bad_sizes_and_states),
    TESTLIB_TEST(test_S31_manager_free_closes_its_capturers),
    TESTLIB_CHILD("S23_stale_borrowed_frame", child_stale_borrowed_frame,
                  "S23/S31 retain/release of a borrowed frame kept after its callback"),
    TESTLIB_CHILD("S23_released_frame_pointer", child_released_frame_pointer,
                  "S23/S31 release twice, retain after release"),
    TESTLIB_CHILD("S31_app_frame_at_page_end", child_app_frame_at_page_end,
                  "S31 retain/release of an app-built frame ending at a guard page"),
    TESTLIB_TEST(test_S31_push_frame_checked_against_format),
    TESTLIB_TEST(test_S31_hook_replacement_checked_against_format),
};

static const struct testlib_suite suite = {
    tests, TESTLIB_COUNT(tests), 240, setup, teardown, 20, 30,
};

int main(int argc, char **argv)
{
    return testlib_main(argc, argv, &suite);
}
