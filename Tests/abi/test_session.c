// SPDX-License-Identifier: MIT
/*
 * test_session.c — the video session of libcamcore (SPEC S9–S21, S31)
 * through its C ABI, against two synthetic cameras ("synthetic:0" front,
 * "synthetic:1" back; camcore_manager_config.include_synthetic = 2).
 *
 * What it asserts, through include/camcore.h only:
 *   S9   the four rows of the truth table (camera_on and who gets frames)
 *   S10–S12  pause -> add preview -> hold -> remove preview -> unhold ->
 *        resume, checking camera_on and the receivers after each step
 *   S13  responder preparation: camera on, nothing transmitted until it ends
 *   S14  two previews get the same frames; a removed one is never called again
 *   S15  a NULL sink keeps the camera on and drops frames; hard mute
 *   S16  24 queued operations complete exactly once, in order, after they
 *        took effect; 8 threads at once leave a state that obeys S9
 *   S17  start / change / stop / restart apply their settings
 *   S18, S19  select and flip, on_selected events in order, and
 *        CAMCORE_E_CUSTOM_SOURCE_ACTIVE while a custom source is on
 *   S20  the capture hook passes, drops and replaces frames
 *   S21  push_frame reaches the sink on the pushing thread
 *   S31  NULL and freed handles, bad struct sizes, unknown preview ids,
 *        free from inside callbacks (returns, nothing follows, the session goes),
 *        session calls from inside frame callbacks (queued, no deadlock)
 *
 * Scenarios that might hang (calls from inside callbacks) run in a child
 * process (this program re-run with --child NAME) under a time limit, so
 * a deadlock is reported as a failure and the other tests still run.
 *
 * Every check prints on failure; the last line is "N passed, M failed".
 * Exit 0 only if M is 0.
 *
 * Build:  cc -std=c99 test_session.c testlib.c $(pkg-config --cflags --libs camcore) -pthread
 */
#define _POSIX_C_SOURCE 200809L

#include "testlib.h"

#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Shared state (the harness is testlib.h)                             */
/* ------------------------------------------------------------------ */

static camcore_manager *g_manager;
static pthread_t g_main_thread;

/* ------------------------------------------------------------------ */
/* Receivers: count frames and remember what they saw                  */
/* ------------------------------------------------------------------ */

#define MAX_SEQ 512
#define WINDOW_MS 150

struct recv;
typedef void (*recv_action)(struct recv *r, const camcore_frame *f);

struct recv {
    const char *name;
    pthread_mutex_t lock;
    unsigned count;           /* frames since the last reset */
    unsigned total;           /* frames ever */
    uint32_t seqs[MAX_SEQ];   /* sequence numbers since the last reset */
    unsigned nseq;
    uint32_t fourcc, width, height, plane_count, sequence; /* the last frame */
    uint32_t hash;            /* FNV-1a of the last frame's plane 0 */
    unsigned on_main_thread;  /* frames delivered on the main thread */
    unsigned wrong_thread;    /* frames not on `expect_thread` (when set) */
    pthread_t expect_thread;
    int expect_thread_set;
    pthread_t last_thread;
    /* A one-shot call made from inside the callback (first frame only). */
    recv_action action;
    int acted;
    void *arg;
};

static uint32_t fnv1a(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;
    size_t i;

    for (i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

static void recv_init(struct recv *r, const char *name)
{
    memset(r, 0, sizeof *r);
    r->name = name;
    pthread_mutex_init(&r->lock, NULL);
}

static void recv_destroy(struct recv *r)
{
    pthread_mutex_destroy(&r->lock);
}

static void recv_on_frame(void *user_data, const camcore_frame *f)
{
    struct recv *r = user_data;
    pthread_t self = pthread_self();
    uint32_t h = f->planes[0].data ? fnv1a(f->planes[0].data, f->planes[0].length) : 0;
    recv_action act = NULL;

    pthread_mutex_lock(&r->lock);
    r->count++;
    r->total++;
    if (r->nseq < MAX_SEQ)
        r->seqs[r->nseq++] = f->sequence;
    r->fourcc = f->fourcc;
    r->width = f->width;
    r->height = f->height;
    r->plane_count = f->plane_count;
    r->sequence = f->sequence;
    r->hash = h;
    r->last_thread = self;
    if (pthread_equal(self, g_main_thread))
        r->on_main_thread++;
    if (r->expect_thread_set && !pthread_equal(self, r->expect_thread))
        r->wrong_thread++;
    if (r->action && !r->acted) {
        r->acted = 1;
        act = r->action;
    }
    pthread_mutex_unlock(&r->lock);
    if (act)
        act(r, f);
}

static void recv_reset(struct recv *r)
{
    pthread_mutex_lock(&r->lock);
    r->count = 0;
    r->nseq = 0;
    pthread_mutex_unlock(&r->lock);
}

static unsigned recv_count(struct recv *r)
{
    unsigned n;

    pthread_mutex_lock(&r->lock);
    n = r->count;
    pthread_mutex_unlock(&r->lock);
    return n;
}

static unsigned recv_total(struct recv *r)
{
    unsigned n;

    pthread_mutex_lock(&r->lock);
    n = r->total;
    pthread_mutex_unlock(&r->lock);
    return n;
}

/* Resets the receivers, waits `ms`, and leaves the counts in r->count. */
static void window(unsigned ms, struct recv *a, struct recv *b, struct recv *c)
{
    struct recv *all[3];
    int i;

    all[0] = a;
    all[1] = b;
    all[2] = c;
    for (i = 0; i < 3; i++)
        if (all[i])
            recv_reset(all[i]);
    sleep_ms(ms);
}

/* Waits until r->total >= n; returns 1 if reached within timeout_ms. */
static int wait_total(struct recv *r, unsigned n, unsigned timeout_ms)
{
    uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000u;

    while (recv_total(r) < n) {
        if (now_ns() > end)
            return 0;
        sleep_ms(2);
    }
    return 1;
}

static camcore_frame_callbacks recv_callbacks(struct recv *r)
{
    camcore_frame_callbacks cb;

    camcore_frame_callbacks_init(&cb);
    cb.user_data = r;
    cb.on_frame = recv_on_frame;
    return cb;
}

/* ------------------------------------------------------------------ */
/* Sessions and their state                                            */
/* ------------------------------------------------------------------ */

/* 64x48 at up to 120 fps: many small frames, so a 150 ms window sees ~18. */
static camcore_session *new_session(const char *device_id)
{
    camcore_session_config cfg;
    camcore_session *s = NULL;
    int rc;

    camcore_session_config_init(&cfg);
    cfg.device_id = device_id;
    cfg.preference.width = 64;
    cfg.preference.height = 48;
    cfg.preference.min_fps.numerator = 60;
    cfg.preference.min_fps.denominator = 1;
    cfg.preference.max_fps.numerator = 120;
    cfg.preference.max_fps.denominator = 1;
    rc = camcore_session_new(g_manager, &cfg, &s);
    CHECK_STATUS(rc, CAMCORE_OK, "camcore_session_new");
    CHECK(rc != CAMCORE_OK || s != NULL, "session_new returned OK but no session");
    return rc == CAMCORE_OK ? s : NULL;
}

static camcore_session_state get_state(camcore_session *s)
{
    camcore_session_state st;
    int rc;

    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    st.format.struct_size = sizeof st.format;
    rc = camcore_session_get_state(s, &st);
    CHECK_STATUS(rc, CAMCORE_OK, "camcore_session_get_state");
    return st;
}

/* What S9 says the camera should be, from the state's own inputs. */
static int s9_wants_camera(const camcore_session_state *st)
{
    int tx = st->transmitting && !st->paused && !st->held && !st->hard_muted && !st->custom_source;

    return (tx || st->preview_count > 0) && !st->stopped_by_app && st->device_id[0] != '\0';
}

/* Checks camera_on after a step, and that it agrees with S9. */
#define CHECK_CAMERA(s, want, step)                                                          \
    do {                                                                                     \
        camcore_session_state st_ = get_state(s);                                            \
        CHECK(st_.camera_on == (want), "%s: camera_on %d, expected %d", step,                \
              (int)st_.camera_on, (int)(want));                                              \
        CHECK(st_.camera_on == s9_wants_camera(&st_),                                        \
              "%s: camera_on %d disagrees with S9 (tx %d paused %d held %d muted %d "        \
              "custom %d previews %u stopped %d)",                                           \
              step, (int)st_.camera_on, (int)st_.transmitting, (int)st_.paused,              \
              (int)st_.held, (int)st_.hard_muted, (int)st_.custom_source,                    \
              (unsigned)st_.preview_count, (int)st_.stopped_by_app);                         \
    } while (0)

/* Checks over one window: frames (> 3) or none (0) for each receiver. A
 * receiver that should get frames may take up to 2 s more on a loaded
 * machine (sanitizers, a busy CPU); one that should not must stay at 0. */
static unsigned frames_or_wait(struct recv *r, int yes)
{
    uint64_t end = now_ns() + 2000000000ull;
    unsigned n = recv_count(r);

    while (yes && n <= 3 && now_ns() < end) {
        sleep_ms(5);
        n = recv_count(r);
    }
    return n;
}

#define EXPECT_FRAMES(r, yes, step)                                                          \
    do {                                                                                     \
        unsigned n_ = frames_or_wait(r, yes);                                                \
        if (yes)                                                                             \
            CHECK(n_ > 3, "%s: %s got %u frames in %d ms (+2 s), expected > 3", step,        \
                  (r)->name, n_, WINDOW_MS);                                                 \
        else                                                                                 \
            CHECK(n_ == 0, "%s: %s got %u frames in %d ms, expected none", step, (r)->name,  \
                  n_, WINDOW_MS);                                                            \
    } while (0)

static const char *fcc(uint32_t code, char buf[5])
{
    return camcore_fourcc_to_string(code, buf);
}

/* ------------------------------------------------------------------ */
/* Completions and events: one ordered log                             */
/* ------------------------------------------------------------------ */

#define MAX_LOG 128

struct log_entry {
    char kind;              /* 'C' completion, 'S' selected, 'E' error */
    int tag;                /* completions: the call's index */
    int status;
    char device_id[64];
    uint32_t fourcc, width, height;
    camcore_fraction fps;
    /* The session's state when the completion ran. */
    int camera_on, stopped_by_app;
    uint32_t state_width, state_height, state_fourcc;
    char state_device[256];
    pthread_t thread;
};

struct oplog {
    pthread_mutex_t lock;
    struct log_entry e[MAX_LOG];
    int n;
    int calls[MAX_LOG];     /* completions per tag */
    camcore_session *session;
};

struct comp_arg {
    struct oplog *log;
    int tag;
};

static void oplog_init(struct oplog *l, camcore_session *s)
{
    memset(l, 0, sizeof *l);
    pthread_mutex_init(&l->lock, NULL);
    l->session = s;
}

static void on_completion(void *user_data, int status)
{
    struct comp_arg *a = user_data;
    struct oplog *l = a->log;
    camcore_session_state st;
    struct log_entry e;

    memset(&e, 0, sizeof e);
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    st.format.struct_size = sizeof st.format;
    /* Reading the state from the completion is allowed (camera queue). */
    if (l->session && camcore_session_get_state(l->session, &st) == CAMCORE_OK) {
        e.camera_on = st.camera_on;
        e.stopped_by_app = st.stopped_by_app;
        e.state_width = st.format.width;
        e.state_height = st.format.height;
        e.state_fourcc = st.format.fourcc;
        snprintf(e.state_device, sizeof e.state_device, "%s", st.device_id);
    }
    e.kind = 'C';
    e.tag = a->tag;
    e.status = status;
    e.thread = pthread_self();
    pthread_mutex_lock(&l->lock);
    if (l->n < MAX_LOG)
        l->e[l->n++] = e;
    if (a->tag >= 0 && a->tag < MAX_LOG)
        l->calls[a->tag]++;
    pthread_mutex_unlock(&l->lock);
}

static void on_selected(void *user_data, const camcore_device_info *device,
                        const camcore_capture_format *format)
{
    struct oplog *l = user_data;
    struct log_entry e;

    memset(&e, 0, sizeof e);
    e.kind = 'S';
    e.tag = -1;
    snprintf(e.device_id, sizeof e.device_id, "%s", device ? device->id : "(null)");
    if (format) {
        e.fourcc = format->fourcc;
        e.width = format->width;
        e.height = format->height;
        e.fps = format->fps;
    }
    e.thread = pthread_self();
    pthread_mutex_lock(&l->lock);
    if (l->n < MAX_LOG)
        l->e[l->n++] = e;
    pthread_mutex_unlock(&l->lock);
}

static void on_device_error(void *user_data, const camcore_device_info *device, int status,
                            const char *message)
{
    struct oplog *l = user_data;
    struct log_entry e;

    (void)message;
    memset(&e, 0, sizeof e);
    e.kind = 'E';
    e.tag = -1;
    e.status = status;
    snprintf(e.device_id, sizeof e.device_id, "%s", device ? device->id : "(null)");
    pthread_mutex_lock(&l->lock);
    if (l->n < MAX_LOG)
        l->e[l->n++] = e;
    pthread_mutex_unlock(&l->lock);
}

static int oplog_count(struct oplog *l, char kind)
{
    int i, n = 0;

    pthread_mutex_lock(&l->lock);
    for (i = 0; i < l->n; i++)
        if (l->e[i].kind == kind)
            n++;
    pthread_mutex_unlock(&l->lock);
    return n;
}

/* Waits until `n` entries of `kind` are logged. */
static int oplog_wait(struct oplog *l, char kind, int n, unsigned timeout_ms)
{
    uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000u;

    while (oplog_count(l, kind) < n) {
        if (now_ns() > end)
            return 0;
        sleep_ms(2);
    }
    return 1;
}

/* The last completion with `tag`, or NULL. */
static const struct log_entry *oplog_completion(struct oplog *l, int tag)
{
    int i;

    for (i = l->n - 1; i >= 0; i--)
        if (l->e[i].kind == 'C' && l->e[i].tag == tag)
            return &l->e[i];
    return NULL;
}

static camcore_device_callbacks device_callbacks(struct oplog *l)
{
    camcore_device_callbacks cb;

    memset(&cb, 0, sizeof cb);
    cb.struct_size = sizeof cb;
    cb.user_data = l;
    cb.on_selected = on_selected;
    cb.on_error = on_device_error;
    return cb;
}

/* ------------------------------------------------------------------ */
/* S9: the truth table                                                 */
/* ------------------------------------------------------------------ */

static void test_S9_truth_table(void)
{
    struct recv tx, p;
    camcore_frame_callbacks cb_tx, cb_p;
    camcore_session *s = new_session("synthetic:0");
    camcore_session_state st;
    uint32_t id = 0;
    char b[5];

    if (!s)
        return;
    recv_init(&tx, "transmission");
    recv_init(&p, "preview");
    cb_tx = recv_callbacks(&tx);
    cb_p = recv_callbacks(&p);
    CHECK_STATUS(camcore_session_set_transmission_sink(s, &cb_tx), CAMCORE_OK, "set sink");

    /* no preview, no transmit -> off */
    st = get_state(s);
    CHECK(strcmp(st.device_id, "synthetic:0") == 0, "device_id '%s', expected synthetic:0",
          st.device_id);
    CHECK(st.format.width == 0 && st.format.fourcc == 0, "format %ux%u while off, expected zeros",
          (unsigned)st.format.width, (unsigned)st.format.height);
    CHECK_CAMERA(s, 0, "row 1 (no preview, no transmit)");
    window(WINDOW_MS, &tx, &p, NULL);
    EXPECT_FRAMES(&tx, 0, "row 1");

    /* preview only -> on */
    CHECK_STATUS(camcore_session_add_preview(s, &cb_p, &id), CAMCORE_OK, "add_preview");
    CHECK(id != 0, "preview id 0");
    CHECK_CAMERA(s, 1, "row 2 (preview only)");
    st = get_state(s);
    CHECK(st.preview_count == 1 && st.transmitting == 0, "preview_count %u transmitting %d",
          (unsigned)st.preview_count, (int)st.transmitting);
    CHECK(st.format.width == 64 && st.format.height == 48 && st.format.fps.numerator == 120 &&
              st.format.fps.denominator == 1,
          "format while on: %s %ux%u @ %u/%u, expected 64x48 @ 120/1 (the preference)",
          fcc(st.format.fourcc, b), (unsigned)st.format.width, (unsigned)st.format.height,
          (unsigned)st.format.fps.numerator, (unsigned)st.format.fps.denominator);
    window(WINDOW_MS, &tx, &p, NULL);
    EXPECT_FRAMES(&p, 1, "row 2");
    EXPECT_FRAMES(&tx, 0, "row 2");
    CHECK(p.width == 64 && p.height == 48 && p.fourcc == st.format.fourcc,
          "preview frames %s %ux%u, expected the state's format", fcc(p.fourcc, b),
          (unsigned)p.width, (unsigned)p.height);
    CHECK(p.on_main_thread == 0, "preview frames delivered on the main thread");

    /* both -> on */
    CHECK_STATUS(camcore_session_start_transmission(s, CAMCORE_VIDEO_RESUME, 0), CAMCORE_OK,
                 "start_transmission(RESUME)");
    CHECK_CAMERA(s, 1, "row 4 (preview and transmit)");
    window(WINDOW_MS, &tx, &p, NULL);
    EXPECT_FRAMES(&p, 1, "row 4");
    EXPECT_FRAMES(&tx, 1, "row 4");

    /* transmit only -> on */
    CHECK_STATUS(camcore_session_remove_preview(s, id), CAMCORE_OK, "remove_preview");
    CHECK_CAMERA(s, 1, "row 3 (transmit only)");
    window(WINDOW_MS, &tx, &p, NULL);
    EXPECT_FRAMES(&p, 0, "row 3");
    EXPECT_FRAMES(&tx, 1, "row 3");

    /* neither -> off */
    CHECK_STATUS(camcore_session_end_transmission(s), CAMCORE_OK, "end_transmission");
    CHECK_CAMERA(s, 0, "row 1 again (ended)");
    window(WINDOW_MS, &tx, &p, NULL);
    EXPECT_FRAMES(&p, 0, "row 1 again");
    EXPECT_FRAMES(&tx, 0, "row 1 again");
    st = get_state(s);
    CHECK(st.transmitting == 0 && st.preview_count == 0 && st.format.width == 0,
          "after end: transmitting %d previews %u format width %u", (int)st.transmitting,
          (unsigned)st.preview_count, (unsigned)st.format.width);
    /* Ending again is OK. */
    CHECK_STATUS(camcore_session_end_transmission(s), CAMCORE_OK, "end_transmission twice");

    camcore_session_free(s);
    recv_destroy(&tx);
    recv_destroy(&p);
}

/* ------------------------------------------------------------------ */
/* S10, S11, S12: a sequence of transitions                            */
/* ------------------------------------------------------------------ */

static void test_S10_S11_S12_pause_preview_hold_remove_unhold_resume(void)
{
    struct recv tx, p;
    camcore_frame_callbacks cb_tx, cb_p;
    camcore_session *s = new_session("synthetic:0");
    camcore_session_state st;
    uint32_t id = 0;

    if (!s)
        return;
    recv_init(&tx, "transmission");
    recv_init(&p, "preview");
    cb_tx = recv_callbacks(&tx);
    cb_p = recv_callbacks(&p);
    CHECK_STATUS(camcore_session_set_transmission_sink(s, &cb_tx), CAMCORE_OK, "set sink");

    /* S10: start paused: the camera stays off. */
    CHECK_STATUS(camcore_session_start_transmission(s, CAMCORE_VIDEO_PAUSE, 0), CAMCORE_OK,
                 "start_transmission(PAUSE)");
    st = get_state(s);
    CHECK(st.transmitting == 1 && st.paused == 1, "after PAUSE start: transmitting %d paused %d",
          (int)st.transmitting, (int)st.paused);
    CHECK_CAMERA(s, 0, "1 start paused");
    window(WINDOW_MS, &tx, &p, NULL);
    EXPECT_FRAMES(&tx, 0, "1 start paused");

    /* A preview turns it on; only the preview gets frames. */
    CHECK_STATUS(camcore_session_add_preview(s, &cb_p, &id), CAMCORE_OK, "add_preview");
    CHECK_CAMERA(s, 1, "2 add preview");
    window(WINDOW_MS, &tx, &p, NULL);
    EXPECT_FRAMES(&p, 1, "2 add preview");
    EXPECT_FRAMES(&tx, 0, "2 add preview");

    /* S11 hold with a preview: stays on for the preview. */
    CHECK_STATUS(camcore_session_hold(s), CAMCORE_OK, "hold");
    st = get_state(s);
    CHECK(st.held == 1 && st.paused == 1, "after hold: held %d paused %d", (int)st.held,
          (int)st.paused);
    CHECK_CAMERA(s, 1, "3 hold");
    window(WINDOW_MS, &tx, &p, NULL);
    EXPECT_FRAMES(&p, 1, "3 hold");
    EXPECT_FRAMES(&tx, 0, "3 hold");

    /* Nothing needs the camera any more: off. */
    CHECK_STATUS(camcore_session_remove_preview(s, id), CAMCORE_OK, "remove_preview");
    CHECK_CAMERA(s, 0, "4 remove preview");
    window(WINDOW_MS, &tx, &p, NULL);
    EXPECT_FRAMES(&p, 0, "4 remove preview");
    EXPECT_FRAMES(&tx, 0, "4 remove preview");

    /* S11 unhold restores the state before the hold: still paused, off. */
    CHECK_STATUS(camcore_session_unhold(s), CAMCORE_OK, "unhold");
    st = get_state(s);
    CHECK(st.held == 0 && st.paused == 1, "after unhold: held %d paused %d", (int)st.held,
          (int)st.paused);
    CHECK_CAMERA(s, 0, "5 unhold (still paused)");
    window(WINDOW_MS, &tx, &p, NULL);
    EXPECT_FRAMES(&tx, 0, "5 unhold");

    /* S12 resume: on, transmitting. */
    CHECK_STATUS(camcore_session_resume_video(s), CAMCORE_OK, "resume_video");
    CHECK_CAMERA(s, 1, "6 resume");
    window(WINDOW_MS, &tx, &p, NULL);
    EXPECT_FRAMES(&tx, 1, "6 resume");
    EXPECT_FRAMES(&p, 0, "6 resume");

    /* S12 pause without a preview: off. */
    CHECK_STATUS(camcore_session_pause_video(s), CAMCORE_OK, "pause_video");
    CHECK_CAMERA(s, 0, "7 pause");
    window(WINDOW_MS, &tx, &p, NULL);
    EXPECT_FRAMES(&tx, 0, "7 pause");
    CHECK_STATUS(camcore_session_resume_video(s), CAMCORE_OK, "resume_video");
    CHECK_CAMERA(s, 1, "8 resume again");

    /* S11 hold while transmitting, no preview: off; unhold: on and transmitting. */
    CHECK_STATUS(camcore_session_hold(s), CAMCORE_OK, "hold");
    CHECK_CAMERA(s, 0, "9 hold (resumed, no preview)");
    window(WINDOW_MS, &tx, &p, NULL);
    EXPECT_FRAMES(&tx, 0, "9 hold");
    CHECK_STATUS(camcore_session_unhold(s), CAMCORE_OK, "unhold");
    CHECK_CAMERA(s, 1, "10 unhold (resumed)");
    window(WINDOW_MS, &tx, &p, NULL);
    EXPECT_FRAMES(&tx, 1, "10 unhold");

    /* Pause and hold together: both must be undone. */
    CHECK_STATUS(camcore_session_pause_video(s), CAMCORE_OK, "pause_video");
    CHECK_STATUS(camcore_session_hold(s), CAMCORE_OK, "hold");
    CHECK_STATUS(camcore_session_resume_video(s), CAMCORE_OK, "resume while held");
    CHECK_CAMERA(s, 0, "11 resumed but held");
    CHECK_STATUS(camcore_session_unhold(s), CAMCORE_OK, "unhold");
    CHECK_CAMERA(s, 1, "12 resumed and unheld");

    /* A new transmission after the end starts from its own initial state. */
    CHECK_STATUS(camcore_session_end_transmission(s), CAMCORE_OK, "end_transmission");
    CHECK_CAMERA(s, 0, "13 ended");
    CHECK_STATUS(camcore_session_start_transmission(s, CAMCORE_VIDEO_RESUME, 0), CAMCORE_OK,
                 "start_transmission(RESUME)");
    CHECK_CAMERA(s, 1, "14 restarted with RESUME");
    st = get_state(s);
    CHECK(st.paused == 0 && st.held == 0, "new transmission: paused %d held %d", (int)st.paused,
          (int)st.held);
    CHECK_STATUS(camcore_session_start_transmission(s, CAMCORE_VIDEO_RESUME, 0), CAMCORE_E_STATE,
                 "start_transmission while transmitting");

    camcore_session_free(s);
    recv_destroy(&tx);
    recv_destroy(&p);
}

/* ------------------------------------------------------------------ */
/* S13: responder preparation                                          */
/* ------------------------------------------------------------------ */

static void test_S13_preparation(void)
{
    struct recv tx;
    camcore_frame_callbacks cb_tx;
    camcore_session *s = new_session("synthetic:0");
    camcore_session_state st;

    if (!s)
        return;
    recv_init(&tx, "transmission");
    cb_tx = recv_callbacks(&tx);
    CHECK_STATUS(camcore_session_set_transmission_sink(s, &cb_tx), CAMCORE_OK, "set sink");
    CHECK_STATUS(camcore_session_end_preparation(s), CAMCORE_E_STATE,
                 "end_preparation without a transmission");

    CHECK_STATUS(camcore_session_start_transmission(s, CAMCORE_VIDEO_RESUME, 1), CAMCORE_OK,
                 "start_transmission(RESUME, preparing)");
    st = get_state(s);
    CHECK(st.preparing == 1 && st.transmitting == 1, "preparing %d transmitting %d",
          (int)st.preparing, (int)st.transmitting);
    CHECK_CAMERA(s, 1, "preparing: camera may run");
    window(WINDOW_MS, &tx, NULL, NULL);
    EXPECT_FRAMES(&tx, 0, "preparing: nothing transmitted");

    /* pause / resume toggle the camera normally during preparation. */
    CHECK_STATUS(camcore_session_pause_video(s), CAMCORE_OK, "pause during preparation");
    CHECK_CAMERA(s, 0, "preparing, paused");
    CHECK_STATUS(camcore_session_resume_video(s), CAMCORE_OK, "resume during preparation");
    CHECK_CAMERA(s, 1, "preparing, resumed");
    window(WINDOW_MS, &tx, NULL, NULL);
    EXPECT_FRAMES(&tx, 0, "preparing, resumed: still nothing transmitted");

    CHECK_STATUS(camcore_session_end_preparation(s), CAMCORE_OK, "end_preparation");
    st = get_state(s);
    CHECK(st.preparing == 0, "preparing %d after end_preparation", (int)st.preparing);
    CHECK_CAMERA(s, 1, "connected");
    window(WINDOW_MS, &tx, NULL, NULL);
    EXPECT_FRAMES(&tx, 1, "connected: frames transmitted");

    /* Preparation that starts paused: off, and pause/resume toggle. */
    CHECK_STATUS(camcore_session_end_transmission(s), CAMCORE_OK, "end_transmission");
    CHECK_STATUS(camcore_session_start_transmission(s, CAMCORE_VIDEO_PAUSE, 1), CAMCORE_OK,
                 "start_transmission(PAUSE, preparing)");
    CHECK_CAMERA(s, 0, "preparing paused");
    CHECK_STATUS(camcore_session_resume_video(s), CAMCORE_OK, "resume");
    CHECK_CAMERA(s, 1, "preparing resumed");
    window(WINDOW_MS, &tx, NULL, NULL);
    EXPECT_FRAMES(&tx, 0, "preparing resumed");
    CHECK_STATUS(camcore_session_end_preparation(s), CAMCORE_OK, "end_preparation");
    window(WINDOW_MS, &tx, NULL, NULL);
    EXPECT_FRAMES(&tx, 1, "connected after paused preparation");

    camcore_session_free(s);
    recv_destroy(&tx);
}

/* ------------------------------------------------------------------ */
/* S15: sink cleared, hard mute                                        */
/* ------------------------------------------------------------------ */

static void test_S15_null_sink_and_hard_mute(void)
{
    struct recv tx, p;
    camcore_frame_callbacks cb_tx, cb_p, cb_empty;
    camcore_session *s = new_session("synthetic:0");
    camcore_session_state st;
    unsigned frozen;
    uint32_t id = 0;

    if (!s)
        return;
    recv_init(&tx, "transmission");
    recv_init(&p, "preview");
    cb_tx = recv_callbacks(&tx);
    cb_p = recv_callbacks(&p);
    CHECK_STATUS(camcore_session_set_transmission_sink(s, &cb_tx), CAMCORE_OK, "set sink");
    CHECK_STATUS(camcore_session_start_transmission(s, CAMCORE_VIDEO_RESUME, 0), CAMCORE_OK,
                 "start_transmission");
    window(WINDOW_MS, &tx, NULL, NULL);
    EXPECT_FRAMES(&tx, 1, "sink set");

    /* NULL sink: the camera keeps running, frames go nowhere, and the old
     * sink is not called after the call returned. */
    CHECK_STATUS(camcore_session_set_transmission_sink(s, NULL), CAMCORE_OK, "set sink NULL");
    frozen = recv_total(&tx);
    CHECK_CAMERA(s, 1, "NULL sink");
    sleep_ms(WINDOW_MS);
    CHECK(recv_total(&tx) == frozen, "old sink called %u times after set_transmission_sink(NULL)",
          recv_total(&tx) - frozen);

    /* A sink with on_frame NULL is the same. */
    camcore_frame_callbacks_init(&cb_empty);
    CHECK_STATUS(camcore_session_set_transmission_sink(s, &cb_tx), CAMCORE_OK, "set sink again");
    window(WINDOW_MS, &tx, NULL, NULL);
    EXPECT_FRAMES(&tx, 1, "sink set again");
    CHECK_STATUS(camcore_session_set_transmission_sink(s, &cb_empty), CAMCORE_OK,
                 "set sink with on_frame NULL");
    frozen = recv_total(&tx);
    CHECK_CAMERA(s, 1, "on_frame NULL sink");
    sleep_ms(WINDOW_MS);
    CHECK(recv_total(&tx) == frozen, "old sink called %u times after an empty sink was set",
          recv_total(&tx) - frozen);
    CHECK_STATUS(camcore_session_set_transmission_sink(s, &cb_tx), CAMCORE_OK, "set sink back");

    /* Hard mute: camera off, the other transmission state kept. */
    CHECK_STATUS(camcore_session_set_hard_mute(s, 1), CAMCORE_OK, "hard mute");
    st = get_state(s);
    CHECK(st.hard_muted == 1 && st.transmitting == 1 && st.paused == 0 && st.held == 0,
          "muted: hard_muted %d transmitting %d paused %d held %d", (int)st.hard_muted,
          (int)st.transmitting, (int)st.paused, (int)st.held);
    CHECK_CAMERA(s, 0, "hard muted");
    window(WINDOW_MS, &tx, NULL, NULL);
    EXPECT_FRAMES(&tx, 0, "hard muted");

    /* Muted with a preview: the camera runs for the preview only. */
    CHECK_STATUS(camcore_session_add_preview(s, &cb_p, &id), CAMCORE_OK, "add_preview");
    CHECK_CAMERA(s, 1, "hard muted with a preview");
    window(WINDOW_MS, &tx, &p, NULL);
    EXPECT_FRAMES(&p, 1, "hard muted with a preview");
    EXPECT_FRAMES(&tx, 0, "hard muted with a preview");
    CHECK_STATUS(camcore_session_remove_preview(s, id), CAMCORE_OK, "remove_preview");
    CHECK_CAMERA(s, 0, "hard muted, preview removed");

    /* Pausing while muted, then unmuting: still paused (state kept). */
    CHECK_STATUS(camcore_session_pause_video(s), CAMCORE_OK, "pause while muted");
    CHECK_STATUS(camcore_session_set_hard_mute(s, 0), CAMCORE_OK, "unmute");
    st = get_state(s);
    CHECK(st.hard_muted == 0 && st.paused == 1, "unmuted: hard_muted %d paused %d",
          (int)st.hard_muted, (int)st.paused);
    CHECK_CAMERA(s, 0, "unmuted but paused");
    CHECK_STATUS(camcore_session_resume_video(s), CAMCORE_OK, "resume");
    CHECK_CAMERA(s, 1, "unmuted and resumed");
    window(WINDOW_MS, &tx, NULL, NULL);
    EXPECT_FRAMES(&tx, 1, "unmuted and resumed");

    /* Mute, unmute: restored at once. */
    CHECK_STATUS(camcore_session_set_hard_mute(s, 1), CAMCORE_OK, "hard mute");
    CHECK_CAMERA(s, 0, "muted again");
    CHECK_STATUS(camcore_session_set_hard_mute(s, 0), CAMCORE_OK, "unmute");
    CHECK_CAMERA(s, 1, "unmuted");
    window(WINDOW_MS, &tx, NULL, NULL);
    EXPECT_FRAMES(&tx, 1, "unmuted");

    CHECK_STATUS(camcore_session_end_transmission(s), CAMCORE_OK, "end");
    CHECK_STATUS(camcore_session_set_hard_mute(s, 1), CAMCORE_E_STATE,
                 "hard mute without a transmission");
    camcore_session_free(s);
    recv_destroy(&tx);
    recv_destroy(&p);
}

/* ------------------------------------------------------------------ */
/* S14: several previews                                               */
/* ------------------------------------------------------------------ */

/* The sequence numbers both receivers saw in the part of the window
 * where both were receiving; 1 if they are the same list. */
static int same_frames(struct recv *a, struct recv *b, unsigned *common)
{
    uint32_t lo, hi;
    unsigned i, j, na = 0, nb = 0;
    uint32_t sa[MAX_SEQ], sb[MAX_SEQ];

    pthread_mutex_lock(&a->lock);
    pthread_mutex_lock(&b->lock);
    if (a->nseq == 0 || b->nseq == 0) {
        pthread_mutex_unlock(&b->lock);
        pthread_mutex_unlock(&a->lock);
        *common = 0;
        return 0;
    }
    lo = a->seqs[0] > b->seqs[0] ? a->seqs[0] : b->seqs[0];
    hi = a->seqs[a->nseq - 1] < b->seqs[b->nseq - 1] ? a->seqs[a->nseq - 1] : b->seqs[b->nseq - 1];
    for (i = 0; i < a->nseq; i++)
        if (a->seqs[i] >= lo && a->seqs[i] <= hi)
            sa[na++] = a->seqs[i];
    for (j = 0; j < b->nseq; j++)
        if (b->seqs[j] >= lo && b->seqs[j] <= hi)
            sb[nb++] = b->seqs[j];
    pthread_mutex_unlock(&b->lock);
    pthread_mutex_unlock(&a->lock);
    *common = na;
    return na == nb && memcmp(sa, sb, na * sizeof sa[0]) == 0;
}

static void test_S14_two_previews_same_frames(void)
{
    struct recv a, b;
    camcore_frame_callbacks cb_a, cb_b;
    camcore_session *s = new_session("synthetic:1");
    uint32_t ida = 0, idb = 0;
    unsigned frozen_a, frozen_b, common = 0;
    unsigned i;
    int rising = 1;

    if (!s)
        return;
    recv_init(&a, "preview A");
    recv_init(&b, "preview B");
    cb_a = recv_callbacks(&a);
    cb_b = recv_callbacks(&b);
    CHECK_STATUS(camcore_session_add_preview(s, &cb_a, &ida), CAMCORE_OK, "add preview A");
    CHECK_STATUS(camcore_session_add_preview(s, &cb_b, &idb), CAMCORE_OK, "add preview B");
    CHECK(ida != 0 && idb != 0 && ida != idb, "preview ids %u and %u", (unsigned)ida,
          (unsigned)idb);
    CHECK(get_state(s).preview_count == 2, "preview_count %u, expected 2",
          (unsigned)get_state(s).preview_count);
    CHECK_CAMERA(s, 1, "two previews");
    window(300, &a, &b, NULL);
    EXPECT_FRAMES(&a, 1, "two previews");
    EXPECT_FRAMES(&b, 1, "two previews");
    CHECK(same_frames(&a, &b, &common) && common > 5,
          "previews A (%u frames) and B (%u frames) did not get the same frames (%u in common)",
          recv_count(&a), recv_count(&b), common);
    for (i = 1; i < a.nseq; i++)
        if (a.seqs[i] <= a.seqs[i - 1])
            rising = 0;
    CHECK(rising, "preview A's sequence numbers do not rise");

    /* Removing A: it is never called again; B keeps the camera on. */
    CHECK_STATUS(camcore_session_remove_preview(s, ida), CAMCORE_OK, "remove preview A");
    frozen_a = recv_total(&a);
    CHECK_CAMERA(s, 1, "one preview left");
    window(WINDOW_MS, &b, NULL, NULL);
    CHECK(recv_total(&a) == frozen_a, "removed preview A called %u more times",
          recv_total(&a) - frozen_a);
    EXPECT_FRAMES(&b, 1, "after removing A");

    /* Removing the last one: off. */
    CHECK_STATUS(camcore_session_remove_preview(s, idb), CAMCORE_OK, "remove preview B");
    frozen_b = recv_total(&b);
    CHECK_CAMERA(s, 0, "no previews");
    sleep_ms(WINDOW_MS);
    CHECK(recv_total(&b) == frozen_b, "removed preview B called %u more times",
          recv_total(&b) - frozen_b);
    CHECK_STATUS(camcore_session_remove_preview(s, idb), CAMCORE_E_INVALID_ARG,
                 "remove preview B twice");

    /* The same callbacks may be added again: a new id. */
    CHECK_STATUS(camcore_session_add_preview(s, &cb_a, &ida), CAMCORE_OK, "add A again");
    CHECK(ida != 0 && ida != idb, "re-added preview id %u", (unsigned)ida);
    CHECK_CAMERA(s, 1, "A again");
    camcore_session_free(s);
    frozen_a = recv_total(&a);
    sleep_ms(50);
    CHECK(recv_total(&a) == frozen_a, "preview called after camcore_session_free returned");
    recv_destroy(&a);
    recv_destroy(&b);
}

/* A camera that fails to turn on: the call reports the camera's error,
 * the state is kept (the preview stays added, with its id), and the next
 * change retries. */
static void test_S9_camera_error_keeps_state(void)
{
    struct recv p;
    camcore_frame_callbacks cb_p;
    camcore_session *s = new_session("synthetic:0");
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC_MJPEG, 64, 48, 60);
    camcore_session_state st;
    uint32_t id = 0;

    if (!s)
        return;
    recv_init(&p, "preview");
    cb_p = recv_callbacks(&p);
    /* The synthetic camera has no MJPG: every turn-on fails. */
    CHECK_STATUS(camcore_session_start(s, &cfg, NULL, NULL), CAMCORE_OK, "queue start(MJPG)");
    CHECK_STATUS(camcore_session_start_transmission(s, CAMCORE_VIDEO_RESUME, 0),
                 CAMCORE_E_NOT_SUPPORTED, "start_transmission when the camera cannot start");
    st = get_state(s);
    CHECK(st.transmitting == 1 && st.camera_on == 0, "after the failure: transmitting %d on %d",
          (int)st.transmitting, (int)st.camera_on);
    CHECK_STATUS(camcore_session_add_preview(s, &cb_p, &id), CAMCORE_E_NOT_SUPPORTED,
                 "add_preview when the camera cannot start");
    CHECK(id != 0, "add_preview failed to turn the camera on but gave no preview id");
    CHECK(get_state(s).preview_count == 1, "the preview was not kept (count %u)",
          (unsigned)get_state(s).preview_count);
    /* A good setting: the next change turns it on. */
    cfg = config_for(CAMCORE_FOURCC_YUYV, 64, 48, 60);
    CHECK_STATUS(camcore_session_start(s, &cfg, NULL, NULL), CAMCORE_OK, "queue start(YUYV)");
    CHECK_STATUS(camcore_session_pause_video(s), CAMCORE_OK, "pause (after the queued start)");
    CHECK_CAMERA(s, 1, "good setting, preview");
    window(WINDOW_MS, &p, NULL, NULL);
    EXPECT_FRAMES(&p, 1, "good setting");
    if (id != 0) {
        CHECK_STATUS(camcore_session_remove_preview(s, id), CAMCORE_OK, "remove that preview");
        CHECK_CAMERA(s, 0, "paused, no preview");
    }
    camcore_session_free(s);
    recv_destroy(&p);
}

/* ------------------------------------------------------------------ */
/* S16, S17: completions exactly once, in order, after taking effect   */
/* ------------------------------------------------------------------ */

enum op_kind { OP_START, OP_CHANGE, OP_STOP, OP_RESTART };

struct op {
    enum op_kind kind;
    uint32_t fourcc, width, height;
};

static void test_S16_S17_completions_once_in_order(void)
{
    static const struct op ops[20] = {
        { OP_START, CAMCORE_FOURCC_YUYV, 64, 48 },    { OP_CHANGE, CAMCORE_FOURCC_I420, 96, 64 },
        { OP_STOP, 0, 0, 0 },                         { OP_RESTART, 0, 0, 0 },
        { OP_CHANGE, CAMCORE_FOURCC_NV12, 128, 96 },  { OP_STOP, 0, 0, 0 },
        { OP_CHANGE, CAMCORE_FOURCC_YUYV, 80, 60 },   { OP_RESTART, 0, 0, 0 },
        { OP_START, CAMCORE_FOURCC_I420, 160, 120 },  { OP_STOP, 0, 0, 0 },
        { OP_STOP, 0, 0, 0 },                         { OP_RESTART, 0, 0, 0 },
        { OP_RESTART, 0, 0, 0 },                      { OP_CHANGE, CAMCORE_FOURCC_NV12, 64, 64 },
        { OP_START, CAMCORE_FOURCC_YUYV, 96, 96 },    { OP_CHANGE, CAMCORE_FOURCC_YUYV, 112, 80 },
        { OP_STOP, 0, 0, 0 },                         { OP_START, CAMCORE_FOURCC_NV12, 48, 32 },
        { OP_CHANGE, CAMCORE_FOURCC_I420, 176, 144 }, { OP_RESTART, 0, 0, 0 },
    };
    static struct oplog log;
    static struct comp_arg args[24];
    struct recv p;
    camcore_frame_callbacks cb_p;
    camcore_session *s = new_session("synthetic:0");
    camcore_capture_config cfg;
    uint32_t id = 0, cur_fourcc = 0, cur_w = 0, cur_h = 0;
    int stopped = 0, i, rc, in_order = 1, once = 1, on_queue = 1, all_off_main = 1;
    pthread_t queue_thread;
    char b1[5], b2[5];

    if (!s)
        return;
    oplog_init(&log, s);
    recv_init(&p, "preview");
    cb_p = recv_callbacks(&p);
    CHECK_STATUS(camcore_session_add_preview(s, &cb_p, &id), CAMCORE_OK, "add_preview");
    CHECK_CAMERA(s, 1, "preview");

    for (i = 0; i < 24; i++) {
        args[i].log = &log;
        args[i].tag = i;
    }
    for (i = 0; i < 20; i++) {
        cfg = config_for(ops[i].fourcc, ops[i].width, ops[i].height, 60);
        switch (ops[i].kind) {
        case OP_START:
            rc = camcore_session_start(s, &cfg, on_completion, &args[i]);
            break;
        case OP_CHANGE:
            rc = camcore_session_change(s, &cfg, on_completion, &args[i]);
            break;
        case OP_STOP:
            rc = camcore_session_stop(s, on_completion, &args[i]);
            break;
        default:
            rc = camcore_session_restart(s, on_completion, &args[i]);
            break;
        }
        CHECK_STATUS(rc, CAMCORE_OK, "queueing an operation");
    }
    /* A zero size is refused at the call (no completion); a restart keeps
     * the setting; then a format the camera lacks, a restart (retries
     * MJPG: fails again), then a good start. */
    cfg = config_for(CAMCORE_FOURCC_YUYV, 0, 48, 60);
    CHECK_STATUS(camcore_session_change(s, &cfg, on_completion, &args[20]), CAMCORE_E_INVALID_ARG,
                 "change(0x48) refused at the call");
    CHECK_STATUS(camcore_session_restart(s, on_completion, &args[20]), CAMCORE_OK,
                 "queue restart");
    cfg = config_for(CAMCORE_FOURCC_MJPEG, 64, 48, 60);
    CHECK_STATUS(camcore_session_start(s, &cfg, on_completion, &args[21]), CAMCORE_OK,
                 "queue start(MJPG)");
    CHECK_STATUS(camcore_session_restart(s, on_completion, &args[22]), CAMCORE_OK,
                 "queue restart after MJPG");
    cfg = config_for(CAMCORE_FOURCC_YUYV, 64, 48, 60);
    CHECK_STATUS(camcore_session_start(s, &cfg, on_completion, &args[23]), CAMCORE_OK,
                 "queue start(YUYV 64x48)");

    CHECK(oplog_wait(&log, 'C', 24, 10000), "only %d of 24 completions arrived within 10 s",
          oplog_count(&log, 'C'));
    sleep_ms(100); /* a second call of any completion would show now */

    pthread_mutex_lock(&log.lock);
    CHECK(log.n == 24, "%d log entries, expected 24 completions", log.n);
    queue_thread = log.e[0].thread;
    for (i = 0; i < 24; i++) {
        if (log.calls[i] != 1)
            once = 0;
        if (i < log.n && log.e[i].tag != i)
            in_order = 0;
        if (i < log.n && !pthread_equal(log.e[i].thread, queue_thread))
            on_queue = 0;
        if (i < log.n && pthread_equal(log.e[i].thread, g_main_thread))
            all_off_main = 0;
    }
    CHECK(once, "a completion was not called exactly once");
    CHECK(in_order, "completions not in call order");
    CHECK(on_queue, "completions ran on more than one thread (expected the camera queue)");
    CHECK(all_off_main, "a completion ran on the calling (main) thread");

    /* Each of the 20 took effect before its completion ran. */
    for (i = 0; i < 20 && i < log.n; i++) {
        const struct log_entry *e = &log.e[i];
        char what[96];

        snprintf(what, sizeof what, "op %d (%s)", i,
                 ops[i].kind == OP_START    ? "start"
                 : ops[i].kind == OP_CHANGE ? "change"
                 : ops[i].kind == OP_STOP   ? "stop"
                                            : "restart");
        CHECK(e->status == CAMCORE_OK, "%s: completion status %d (%s)", what, e->status,
              camcore_strerror(e->status));
        if (ops[i].kind == OP_START || ops[i].kind == OP_CHANGE) {
            cur_fourcc = ops[i].fourcc;
            cur_w = ops[i].width;
            cur_h = ops[i].height;
        }
        if (ops[i].kind == OP_STOP)
            stopped = 1;
        else if (ops[i].kind != OP_CHANGE)
            stopped = 0;
        CHECK(e->stopped_by_app == stopped, "%s: stopped_by_app %d, expected %d", what,
              e->stopped_by_app, stopped);
        CHECK(e->camera_on == !stopped, "%s: camera_on %d in the completion, expected %d", what,
              e->camera_on, !stopped);
        if (!stopped)
            CHECK(e->state_fourcc == cur_fourcc && e->state_width == cur_w &&
                      e->state_height == cur_h,
                  "%s: the completion saw %s %ux%u, expected %s %ux%u", what,
                  fcc(e->state_fourcc, b1), (unsigned)e->state_width, (unsigned)e->state_height,
                  fcc(cur_fourcc, b2), (unsigned)cur_w, (unsigned)cur_h);
    }
    if (log.n >= 24) {
        CHECK(log.e[20].status == CAMCORE_OK,
              "restart: completion status %d (%s), expected CAMCORE_OK",
              log.e[20].status, camcore_strerror(log.e[20].status));
        CHECK(log.e[20].camera_on == 1 && log.e[20].state_width == 176,
              "the refused change or the restart altered the setting: on %d width %u",
              log.e[20].camera_on, (unsigned)log.e[20].state_width);
        CHECK(log.e[21].status == CAMCORE_E_NOT_SUPPORTED,
              "start(MJPG): completion status %d (%s), expected CAMCORE_E_NOT_SUPPORTED",
              log.e[21].status, camcore_strerror(log.e[21].status));
        CHECK(log.e[21].camera_on == 0, "start(MJPG) failed but camera_on is %d",
              log.e[21].camera_on);
        CHECK(log.e[22].status == CAMCORE_E_NOT_SUPPORTED,
              "restart after MJPG: status %d (%s), expected CAMCORE_E_NOT_SUPPORTED (same settings)",
              log.e[22].status, camcore_strerror(log.e[22].status));
        CHECK(log.e[23].status == CAMCORE_OK && log.e[23].camera_on == 1 &&
                  log.e[23].state_width == 64,
              "good start after the bad ones: status %d on %d width %u", log.e[23].status,
              log.e[23].camera_on, (unsigned)log.e[23].state_width);
    }
    pthread_mutex_unlock(&log.lock);

    window(WINDOW_MS, &p, NULL, NULL);
    EXPECT_FRAMES(&p, 1, "after the operations");
    CHECK(p.width == 64 && p.height == 48 && p.fourcc == CAMCORE_FOURCC_YUYV,
          "preview frames %s %ux%u after start(YUYV 64x48)", fcc(p.fourcc, b1),
          (unsigned)p.width, (unsigned)p.height);

    /* S17 stop holds the camera off even with a preview; restart brings it back. */
    args[0].tag = 40;
    CHECK_STATUS(camcore_session_stop(s, on_completion, &args[0]), CAMCORE_OK, "stop");
    CHECK(oplog_wait(&log, 'C', 25, 5000), "stop completion missing");
    CHECK_CAMERA(s, 0, "stopped by the app with a preview");
    window(WINDOW_MS, &p, NULL, NULL);
    EXPECT_FRAMES(&p, 0, "stopped");
    args[1].tag = 41;
    CHECK_STATUS(camcore_session_restart(s, on_completion, &args[1]), CAMCORE_OK, "restart");
    CHECK(oplog_wait(&log, 'C', 26, 5000), "restart completion missing");
    CHECK_CAMERA(s, 1, "restarted");
    window(WINDOW_MS, &p, NULL, NULL);
    EXPECT_FRAMES(&p, 1, "restarted");
    CHECK(p.width == 64 && p.height == 48, "restart changed the settings: %ux%u",
          (unsigned)p.width, (unsigned)p.height);

    /* NULL completions are allowed. */
    CHECK_STATUS(camcore_session_stop(s, NULL, NULL), CAMCORE_OK, "stop without completion");
    CHECK_STATUS(camcore_session_restart(s, NULL, NULL), CAMCORE_OK, "restart without completion");
    sleep_ms(100);
    CHECK_CAMERA(s, 1, "stop+restart without completions");

    camcore_session_free(s);
    recv_destroy(&p);
    pthread_mutex_destroy(&log.lock);
}

/* ------------------------------------------------------------------ */
/* S18, S19: select and flip                                           */
/* ------------------------------------------------------------------ */

/* Queues `op` (select to `id`, or flip when id is NULL) and waits for its
 * completion; returns the completion's status. */
static int switch_and_wait(camcore_session *s, struct oplog *log, struct comp_arg *arg,
                           const char *id)
{
    int want = oplog_count(log, 'C') + 1;
    int rc = id ? camcore_session_select(s, id, on_completion, arg)
                : camcore_session_flip(s, on_completion, arg);
    const struct log_entry *e;
    int status;

    CHECK_STATUS(rc, CAMCORE_OK, id ? "queue select" : "queue flip");
    if (rc != CAMCORE_OK)
        return rc;
    CHECK(oplog_wait(log, 'C', want, 5000), "%s completion did not arrive", id ? "select" : "flip");
    pthread_mutex_lock(&log->lock);
    e = oplog_completion(log, arg->tag);
    status = e ? e->status : 1;
    pthread_mutex_unlock(&log->lock);
    return status;
}

/* The device ids of the 'S' events, in order, comma-separated. */
static void selected_ids(struct oplog *log, char *out, size_t size)
{
    int i;

    out[0] = '\0';
    pthread_mutex_lock(&log->lock);
    for (i = 0; i < log->n; i++)
        if (log->e[i].kind == 'S') {
            size_t len = strlen(out);
            snprintf(out + len, size - len, "%s%s", len ? "," : "", log->e[i].device_id);
        }
    pthread_mutex_unlock(&log->lock);
}

/* 1 if every 'S' event comes right before the completion of its operation. */
static int events_precede_completions(struct oplog *log)
{
    int i, ok = 1;

    pthread_mutex_lock(&log->lock);
    for (i = 0; i < log->n; i++)
        if (log->e[i].kind == 'S' && (i + 1 >= log->n || log->e[i + 1].kind != 'C'))
            ok = 0;
    pthread_mutex_unlock(&log->lock);
    return ok;
}

static void test_S18_S19_select_flip_custom_source(void)
{
    static struct oplog log;
    static struct comp_arg args[16];
    struct recv tx;
    camcore_frame_callbacks cb_tx;
    camcore_device_callbacks dcb;
    camcore_session *s = new_session("synthetic:0");
    camcore_session_state st;
    camcore_capture_config cfg;
    char ids[512], b[5];
    int i, status, n_selected;

    if (!s)
        return;
    oplog_init(&log, s);
    for (i = 0; i < 16; i++) {
        args[i].log = &log;
        args[i].tag = i;
    }
    recv_init(&tx, "transmission");
    cb_tx = recv_callbacks(&tx);
    dcb = device_callbacks(&log);
    CHECK_STATUS(camcore_session_set_device_callbacks(s, &dcb), CAMCORE_OK, "device callbacks");
    CHECK_STATUS(camcore_session_set_transmission_sink(s, &cb_tx), CAMCORE_OK, "sink");
    CHECK_STATUS(camcore_session_start_transmission(s, CAMCORE_VIDEO_RESUME, 0), CAMCORE_OK,
                 "start_transmission");
    CHECK_CAMERA(s, 1, "transmitting on synthetic:0");

    /* S18 select the back camera while transmitting. */
    status = switch_and_wait(s, &log, &args[0], "synthetic:1");
    CHECK_STATUS(status, CAMCORE_OK, "select synthetic:1");
    st = get_state(s);
    CHECK(strcmp(st.device_id, "synthetic:1") == 0, "device after select: '%s'", st.device_id);
    CHECK_CAMERA(s, 1, "after select");
    CHECK(st.format.width == 64 && st.format.height == 48 && st.format.fps.numerator == 120,
          "select kept the preference? format %ux%u @ %u/%u", (unsigned)st.format.width,
          (unsigned)st.format.height, (unsigned)st.format.fps.numerator,
          (unsigned)st.format.fps.denominator);
    window(WINDOW_MS, &tx, NULL, NULL);
    EXPECT_FRAMES(&tx, 1, "transmitting after select");
    pthread_mutex_lock(&log.lock);
    for (i = 0; i < log.n && log.e[i].kind != 'S'; i++) {
    }
    if (i < log.n)
        CHECK(log.e[i].width == 64 && log.e[i].height == 48 && log.e[i].fourcc == st.format.fourcc,
              "on_selected format %s %ux%u, expected the one in use", fcc(log.e[i].fourcc, b),
              (unsigned)log.e[i].width, (unsigned)log.e[i].height);
    pthread_mutex_unlock(&log.lock);

    /* S19 flip: back -> front -> back. */
    status = switch_and_wait(s, &log, &args[1], NULL);
    CHECK_STATUS(status, CAMCORE_OK, "flip 1");
    st = get_state(s);
    CHECK(strcmp(st.device_id, "synthetic:0") == 0, "flip from back went to '%s', expected "
          "synthetic:0 (front)", st.device_id);
    CHECK_CAMERA(s, 1, "after flip 1");
    status = switch_and_wait(s, &log, &args[2], NULL);
    CHECK_STATUS(status, CAMCORE_OK, "flip 2");
    st = get_state(s);
    CHECK(strcmp(st.device_id, "synthetic:1") == 0, "flip from front went to '%s', expected "
          "synthetic:1 (back)", st.device_id);
    window(WINDOW_MS, &tx, NULL, NULL);
    EXPECT_FRAMES(&tx, 1, "transmitting after two flips");

    /* Flip keeps the current format and rate (nearest on the new camera). */
    cfg = config_for(CAMCORE_FOURCC_I420, 160, 120, 30);
    args[3].tag = 3;
    CHECK_STATUS(camcore_session_change(s, &cfg, on_completion, &args[3]), CAMCORE_OK, "change");
    CHECK(oplog_wait(&log, 'C', 4, 5000), "change completion missing");
    status = switch_and_wait(s, &log, &args[4], NULL);
    CHECK_STATUS(status, CAMCORE_OK, "flip 3 (after change to 160x120@30)");
    st = get_state(s);
    CHECK(strcmp(st.device_id, "synthetic:0") == 0 && st.format.width == 160 &&
              st.format.height == 120 && st.format.fps.numerator == 30 &&
              st.format.fps.denominator == 1,
          "flip 3: %s %ux%u @ %u/%u, expected synthetic:0 160x120 @ 30/1", st.device_id,
          (unsigned)st.format.width, (unsigned)st.format.height,
          (unsigned)st.format.fps.numerator, (unsigned)st.format.fps.denominator);

    /* Unknown device: NO_DEVICE, nothing changes, no event. */
    n_selected = oplog_count(&log, 'S');
    status = switch_and_wait(s, &log, &args[5], "no-such-camera");
    CHECK_STATUS(status, CAMCORE_E_NO_DEVICE, "select no-such-camera");
    st = get_state(s);
    CHECK(strcmp(st.device_id, "synthetic:0") == 0, "failed select moved to '%s'", st.device_id);
    CHECK_CAMERA(s, 1, "after failed select");
    CHECK(oplog_count(&log, 'S') == n_selected, "a failed select emitted on_selected");

    /* S18/S21: while a custom source feeds transmission, select and flip fail. */
    CHECK_STATUS(camcore_session_set_custom_source(s, 1), CAMCORE_OK, "custom source on");
    st = get_state(s);
    CHECK(st.custom_source == 1, "custom_source %d", (int)st.custom_source);
    CHECK_CAMERA(s, 0, "custom source, no preview");
    status = switch_and_wait(s, &log, &args[6], "synthetic:1");
    CHECK_STATUS(status, CAMCORE_E_CUSTOM_SOURCE_ACTIVE, "select with a custom source");
    status = switch_and_wait(s, &log, &args[7], NULL);
    CHECK_STATUS(status, CAMCORE_E_CUSTOM_SOURCE_ACTIVE, "flip with a custom source");
    st = get_state(s);
    CHECK(strcmp(st.device_id, "synthetic:0") == 0, "device changed to '%s' with a custom source",
          st.device_id);
    CHECK(oplog_count(&log, 'S') == n_selected, "on_selected emitted although the switch failed");
    CHECK_STATUS(camcore_session_set_custom_source(s, 0), CAMCORE_OK, "custom source off");
    CHECK_CAMERA(s, 1, "custom source off");

    status = switch_and_wait(s, &log, &args[8], NULL);
    CHECK_STATUS(status, CAMCORE_OK, "flip after the custom source");

    /* Select while the camera is off: the event still comes, the camera stays off. */
    CHECK_STATUS(camcore_session_end_transmission(s), CAMCORE_OK, "end_transmission");
    CHECK_CAMERA(s, 0, "ended");
    status = switch_and_wait(s, &log, &args[9], "synthetic:0");
    CHECK_STATUS(status, CAMCORE_OK, "select while off");
    CHECK_CAMERA(s, 0, "selected while off");
    CHECK(strcmp(get_state(s).device_id, "synthetic:0") == 0, "select while off did not select");

    selected_ids(&log, ids, sizeof ids);
    CHECK(strcmp(ids, "synthetic:1,synthetic:0,synthetic:1,synthetic:0,synthetic:1,synthetic:0") ==
              0,
          "on_selected events: '%s', expected synthetic:1,0,1,0,1,0", ids);
    CHECK(events_precede_completions(&log),
          "an on_selected event did not come right before its operation's completion");
    pthread_mutex_lock(&log.lock);
    for (i = 0; i < log.n; i++)
        if (log.e[i].kind == 'E')
            CHECK(0, "unexpected on_error(%s, %d)", log.e[i].device_id, log.e[i].status);
    pthread_mutex_unlock(&log.lock);

    /* Removing the device callbacks: no more events. */
    CHECK_STATUS(camcore_session_set_device_callbacks(s, NULL), CAMCORE_OK, "callbacks NULL");
    n_selected = oplog_count(&log, 'S');
    status = switch_and_wait(s, &log, &args[10], NULL);
    CHECK_STATUS(status, CAMCORE_OK, "flip without callbacks");
    CHECK(oplog_count(&log, 'S') == n_selected, "on_selected called after it was removed");

    camcore_session_free(s);
    recv_destroy(&tx);
    pthread_mutex_destroy(&log.lock);
}

/* ------------------------------------------------------------------ */
/* S21: custom video source                                            */
/* ------------------------------------------------------------------ */

#define PUSH_W 32
#define PUSH_H 16
static uint8_t g_push_pixels[PUSH_W * 2 * PUSH_H];

static camcore_frame push_frame_desc(uint32_t seq)
{
    camcore_frame f;

    memset(&f, 0, sizeof f);
    f.struct_size = sizeof f;
    f.fourcc = CAMCORE_FOURCC_YUYV;
    f.width = PUSH_W;
    f.height = PUSH_H;
    f.plane_count = 1;
    f.planes[0].data = g_push_pixels;
    f.planes[0].stride = PUSH_W * 2;
    f.planes[0].length = sizeof g_push_pixels;
    f.sequence = seq;
    f.timestamp_ns = now_ns();
    return f;
}

struct pusher {
    pthread_t thread;
    camcore_session *s;
    struct recv *sink;
    int rc;
    unsigned delivered_here; /* sink calls on this thread during the push */
};

static void *push_worker(void *arg)
{
    struct pusher *w = arg;
    camcore_frame f = push_frame_desc(1000);
    unsigned before;

    pthread_mutex_lock(&w->sink->lock);
    before = w->sink->total;
    pthread_mutex_unlock(&w->sink->lock);
    w->rc = camcore_session_push_frame(w->s, &f);
    pthread_mutex_lock(&w->sink->lock);
    if (w->sink->total > before && pthread_equal(w->sink->last_thread, pthread_self()))
        w->delivered_here = 1;
    pthread_mutex_unlock(&w->sink->lock);
    return NULL;
}

static void test_S21_custom_source_push_frame(void)
{
    struct recv tx, p;
    camcore_frame_callbacks cb_tx, cb_p;
    camcore_session *s = new_session("synthetic:0");
    camcore_frame f, bad;
    struct pusher w;
    uint32_t id = 0, want_hash;
    unsigned before, i;
    char b[5];

    if (!s)
        return;
    for (i = 0; i < sizeof g_push_pixels; i++)
        g_push_pixels[i] = (uint8_t)(i * 7 + 3);
    want_hash = fnv1a(g_push_pixels, sizeof g_push_pixels);
    recv_init(&tx, "transmission");
    recv_init(&p, "preview");
    cb_tx = recv_callbacks(&tx);
    cb_p = recv_callbacks(&p);
    CHECK_STATUS(camcore_session_set_transmission_sink(s, &cb_tx), CAMCORE_OK, "sink");

    f = push_frame_desc(7);
    CHECK_STATUS(camcore_session_push_frame(s, &f), CAMCORE_E_STATE,
                 "push_frame without a custom source");

    CHECK_STATUS(camcore_session_start_transmission(s, CAMCORE_VIDEO_RESUME, 0), CAMCORE_OK,
                 "start_transmission");
    CHECK_STATUS(camcore_session_set_custom_source(s, 1), CAMCORE_OK, "custom source on");
    CHECK_CAMERA(s, 0, "custom source feeds transmission, no preview");
    window(WINDOW_MS, &tx, NULL, NULL);
    EXPECT_FRAMES(&tx, 0, "custom source, nothing pushed");

    /* Pushed on the main thread: delivered during the call, on this thread. */
    before = recv_total(&tx);
    CHECK_STATUS(camcore_session_push_frame(s, &f), CAMCORE_OK, "push_frame");
    CHECK(recv_total(&tx) == before + 1, "push_frame delivered %u frames during the call",
          recv_total(&tx) - before);
    CHECK(pthread_equal(tx.last_thread, g_main_thread), "pushed frame not delivered on the "
          "pushing thread");
    CHECK(tx.fourcc == CAMCORE_FOURCC_YUYV && tx.width == PUSH_W && tx.height == PUSH_H &&
              tx.sequence == 7 && tx.hash == want_hash,
          "pushed frame arrived as %s %ux%u seq %u hash %08x (expected YUYV %ux%u seq 7 %08x)",
          fcc(tx.fourcc, b), (unsigned)tx.width, (unsigned)tx.height, (unsigned)tx.sequence,
          (unsigned)tx.hash, PUSH_W, PUSH_H, (unsigned)want_hash);

    /* From another thread: delivered on that thread. */
    memset(&w, 0, sizeof w);
    w.s = s;
    w.sink = &tx;
    pthread_create(&w.thread, NULL, push_worker, &w);
    pthread_join(w.thread, NULL);
    CHECK_STATUS(w.rc, CAMCORE_OK, "push_frame from another thread");
    CHECK(w.delivered_here, "frame pushed from another thread not delivered on that thread");

    /* A preview runs the camera; the sink still gets only pushed frames. */
    CHECK_STATUS(camcore_session_add_preview(s, &cb_p, &id), CAMCORE_OK, "add_preview");
    CHECK_CAMERA(s, 1, "custom source with a preview");
    window(WINDOW_MS, &tx, &p, NULL);
    EXPECT_FRAMES(&p, 1, "custom source with a preview");
    EXPECT_FRAMES(&tx, 0, "camera frames must not reach transmission with a custom source");
    CHECK(p.width == 64 && p.height == 48, "preview shows %ux%u, expected the camera's 64x48",
          (unsigned)p.width, (unsigned)p.height);
    before = recv_total(&p);
    CHECK_STATUS(camcore_session_push_frame(s, &f), CAMCORE_OK, "push with a preview");
    CHECK(tx.width == PUSH_W && tx.hash == want_hash, "sink got %ux%u after a push",
          (unsigned)tx.width, (unsigned)tx.height);
    CHECK_STATUS(camcore_session_remove_preview(s, id), CAMCORE_OK, "remove_preview");

    /* Paused: push is accepted but the frame goes nowhere. */
    CHECK_STATUS(camcore_session_pause_video(s), CAMCORE_OK, "pause");
    before = recv_total(&tx);
    CHECK_STATUS(camcore_session_push_frame(s, &f), CAMCORE_OK, "push while paused");
    CHECK(recv_total(&tx) == before, "a frame pushed while paused was transmitted");
    CHECK_STATUS(camcore_session_resume_video(s), CAMCORE_OK, "resume");
    CHECK_CAMERA(s, 0, "resumed, custom source");

    /* Bad frames. */
    CHECK_STATUS(camcore_session_push_frame(s, NULL), CAMCORE_E_INVALID_ARG, "push NULL");
    bad = f;
    bad.plane_count = 0;
    CHECK_STATUS(camcore_session_push_frame(s, &bad), CAMCORE_E_INVALID_ARG, "push 0 planes");
    bad = f;
    bad.plane_count = 4;
    CHECK_STATUS(camcore_session_push_frame(s, &bad), CAMCORE_E_INVALID_ARG, "push 4 planes");
    bad = f;
    bad.width = 0;
    CHECK_STATUS(camcore_session_push_frame(s, &bad), CAMCORE_E_INVALID_ARG, "push width 0");
    bad = f;
    bad.planes[0].data = NULL;
    CHECK_STATUS(camcore_session_push_frame(s, &bad), CAMCORE_E_INVALID_ARG, "push data NULL");
    bad = f;
    bad.struct_size = 8;
    CHECK_STATUS(camcore_session_push_frame(s, &bad), CAMCORE_E_INVALID_ARG, "push struct_size 8");
    CHECK_STATUS(camcore_session_push_frame(NULL, &f), CAMCORE_E_INVALID_ARG, "push to NULL");

    /* Custom source off: the camera feeds transmission again; push is a state error. */
    CHECK_STATUS(camcore_session_set_custom_source(s, 0), CAMCORE_OK, "custom source off");
    CHECK_CAMERA(s, 1, "custom source off");
    window(WINDOW_MS, &tx, NULL, NULL);
    EXPECT_FRAMES(&tx, 1, "camera transmits again");
    CHECK(tx.width == 64 && tx.height == 48, "transmission shows %ux%u, expected the camera's",
          (unsigned)tx.width, (unsigned)tx.height);
    CHECK_STATUS(camcore_session_push_frame(s, &f), CAMCORE_E_STATE, "push after custom off");

    camcore_session_free(s);
    recv_destroy(&tx);
    recv_destroy(&p);
}

/* ------------------------------------------------------------------ */
/* S20: capture hook                                                   */
/* ------------------------------------------------------------------ */

struct hook_ctx {
    pthread_mutex_t lock;
    int mode;        /* CAMCORE_HOOK_* */
    unsigned calls;
    uint32_t last_width;
    uint8_t pixels[PUSH_W * 2 * PUSH_H];
};

static int hook_fn(void *user_data, const camcore_frame *frame, camcore_frame *replacement)
{
    struct hook_ctx *h = user_data;
    int mode;

    pthread_mutex_lock(&h->lock);
    h->calls++;
    h->last_width = frame->width;
    mode = h->mode;
    pthread_mutex_unlock(&h->lock);
    if (mode == CAMCORE_HOOK_REPLACE) {
        replacement->fourcc = CAMCORE_FOURCC_YUYV;
        replacement->width = PUSH_W;
        replacement->height = PUSH_H;
        replacement->plane_count = 1;
        replacement->planes[0].data = h->pixels;
        replacement->planes[0].stride = PUSH_W * 2;
        replacement->planes[0].length = sizeof h->pixels;
        replacement->sequence = frame->sequence;
        replacement->timestamp_ns = frame->timestamp_ns;
    }
    return mode;
}

static unsigned hook_calls(struct hook_ctx *h)
{
    unsigned n;

    pthread_mutex_lock(&h->lock);
    n = h->calls;
    pthread_mutex_unlock(&h->lock);
    return n;
}

static void test_S20_capture_hook(void)
{
    static struct hook_ctx h;
    struct recv tx, p;
    camcore_frame_callbacks cb_tx, cb_p;
    camcore_capture_hook hook;
    camcore_session *s = new_session("synthetic:0");
    uint32_t id = 0, want_hash;
    unsigned before, i;

    if (!s)
        return;
    memset(&h, 0, sizeof h);
    pthread_mutex_init(&h.lock, NULL);
    for (i = 0; i < sizeof h.pixels; i++)
        h.pixels[i] = (uint8_t)(255 - i);
    want_hash = fnv1a(h.pixels, sizeof h.pixels);
    recv_init(&tx, "transmission");
    recv_init(&p, "preview");
    cb_tx = recv_callbacks(&tx);
    cb_p = recv_callbacks(&p);
    CHECK_STATUS(camcore_session_set_transmission_sink(s, &cb_tx), CAMCORE_OK, "sink");
    CHECK_STATUS(camcore_session_start_transmission(s, CAMCORE_VIDEO_RESUME, 0), CAMCORE_OK,
                 "start_transmission");
    CHECK_STATUS(camcore_session_add_preview(s, &cb_p, &id), CAMCORE_OK, "add_preview");

    memset(&hook, 0, sizeof hook);
    hook.struct_size = sizeof hook;
    hook.user_data = &h;
    hook.on_capture = hook_fn;

    /* PASS: everyone gets the camera's frames. */
    h.mode = CAMCORE_HOOK_PASS;
    CHECK_STATUS(camcore_session_set_capture_hook(s, &hook), CAMCORE_OK, "set hook (pass)");
    before = hook_calls(&h);
    window(WINDOW_MS, &tx, &p, NULL);
    CHECK(hook_calls(&h) - before > 3, "hook called %u times", hook_calls(&h) - before);
    EXPECT_FRAMES(&tx, 1, "hook PASS");
    EXPECT_FRAMES(&p, 1, "hook PASS");
    CHECK(tx.width == 64 && p.width == 64 && h.last_width == 64, "PASS widths tx %u p %u hook %u",
          (unsigned)tx.width, (unsigned)p.width, (unsigned)h.last_width);

    /* DROP: nobody gets a frame, the hook still sees them. */
    pthread_mutex_lock(&h.lock);
    h.mode = CAMCORE_HOOK_DROP;
    pthread_mutex_unlock(&h.lock);
    sleep_ms(20);
    before = hook_calls(&h);
    window(WINDOW_MS, &tx, &p, NULL);
    CHECK(hook_calls(&h) - before > 3, "hook called %u times while dropping",
          hook_calls(&h) - before);
    EXPECT_FRAMES(&tx, 0, "hook DROP");
    EXPECT_FRAMES(&p, 0, "hook DROP");
    CHECK_CAMERA(s, 1, "hook DROP keeps the camera on");

    /* REPLACE: transmission and previews get the app's frame. */
    pthread_mutex_lock(&h.lock);
    h.mode = CAMCORE_HOOK_REPLACE;
    pthread_mutex_unlock(&h.lock);
    sleep_ms(20);
    window(WINDOW_MS, &tx, &p, NULL);
    EXPECT_FRAMES(&tx, 1, "hook REPLACE");
    EXPECT_FRAMES(&p, 1, "hook REPLACE");
    CHECK(tx.width == PUSH_W && tx.height == PUSH_H && tx.hash == want_hash,
          "transmission got %ux%u hash %08x, expected the replacement %ux%u %08x",
          (unsigned)tx.width, (unsigned)tx.height, (unsigned)tx.hash, PUSH_W, PUSH_H,
          (unsigned)want_hash);
    CHECK(p.width == PUSH_W && p.hash == want_hash, "preview got %ux%u hash %08x",
          (unsigned)p.width, (unsigned)p.height, (unsigned)p.hash);

    /* Removed: not called again after the call returns; frames flow as captured. */
    CHECK_STATUS(camcore_session_set_capture_hook(s, NULL), CAMCORE_OK, "remove hook");
    before = hook_calls(&h);
    window(WINDOW_MS, &tx, &p, NULL);
    CHECK(hook_calls(&h) == before, "hook called %u times after removal", hook_calls(&h) - before);
    EXPECT_FRAMES(&tx, 1, "hook removed");
    CHECK(tx.width == 64 && p.width == 64, "after removal widths tx %u p %u", (unsigned)tx.width,
          (unsigned)p.width);

    /* A hook struct with on_capture NULL is no hook; a short struct is rejected. */
    hook.on_capture = NULL;
    CHECK_STATUS(camcore_session_set_capture_hook(s, &hook), CAMCORE_OK, "hook with NULL fn");
    hook.struct_size = 4;
    CHECK_STATUS(camcore_session_set_capture_hook(s, &hook), CAMCORE_E_INVALID_ARG,
                 "hook struct_size 4");

    camcore_session_free(s);
    recv_destroy(&tx);
    recv_destroy(&p);
    pthread_mutex_destroy(&h.lock);
}

/* ------------------------------------------------------------------ */
/* S16: eight threads at once                                          */
/* ------------------------------------------------------------------ */

#define N_THREADS 8
#define N_OPS 200

struct storm {
    pthread_t thread;
    camcore_session *s;
    unsigned seed;
    struct recv preview;
    uint32_t preview_id;
    int has_preview;
    int unexpected;         /* statuses other than OK / STATE */
    int last_unexpected;
    int inconsistent;       /* snapshots whose camera_on disagreed with S9 */
    int ok, snapshots, on_snapshots;
};

static pthread_barrier_t g_storm_barrier;

static void *storm_worker(void *arg)
{
    struct storm *w = arg;
    camcore_frame_callbacks cb = recv_callbacks(&w->preview);
    int i, rc = 0;

    pthread_barrier_wait(&g_storm_barrier);
    for (i = 0; i < N_OPS; i++) {
        unsigned r = (unsigned)rand_r(&w->seed) % 12;
        camcore_session_state st;

        rc = CAMCORE_OK;

        switch (r) {
        case 0: rc = camcore_session_start_transmission(w->s, (int)(rand_r(&w->seed) % 2), 0); break;
        case 1: rc = camcore_session_end_transmission(w->s); break;
        case 2: rc = camcore_session_pause_video(w->s); break;
        case 3: rc = camcore_session_resume_video(w->s); break;
        case 4: rc = camcore_session_hold(w->s); break;
        case 5: rc = camcore_session_unhold(w->s); break;
        case 6: rc = camcore_session_set_hard_mute(w->s, (int)(rand_r(&w->seed) % 2)); break;
        case 7:
        case 8:
            if (w->has_preview) {
                rc = camcore_session_remove_preview(w->s, w->preview_id);
                w->has_preview = 0;
            } else if (rand_r(&w->seed) % 3 == 0) { /* previews come and go, mostly gone */
                rc = camcore_session_add_preview(w->s, &cb, &w->preview_id);
                w->has_preview = rc == CAMCORE_OK;
            }
            break;
        case 9: rc = camcore_session_set_custom_source(w->s, (int)(rand_r(&w->seed) % 4 == 0)); break;
        case 10: rc = camcore_session_end_preparation(w->s); break;
        default:
            memset(&st, 0, sizeof st);
            st.struct_size = sizeof st;
            st.format.struct_size = sizeof st.format;
            rc = camcore_session_get_state(w->s, &st);
            if (rc == CAMCORE_OK && st.camera_on != s9_wants_camera(&st))
                w->inconsistent++;
            w->snapshots++;
            w->on_snapshots += st.camera_on != 0;
            break;
        }
        w->ok += rc == CAMCORE_OK;
        if (rc != CAMCORE_OK && rc != CAMCORE_E_STATE) {
            w->unexpected++;
            w->last_unexpected = rc;
        }
    }
    return NULL;
}

static void test_S16_eight_threads_consistent(void)
{
    static struct storm w[N_THREADS];
    struct recv tx;
    camcore_frame_callbacks cb_tx;
    camcore_session *s = new_session("synthetic:0");
    camcore_session_state st;
    int i, unexpected = 0, inconsistent = 0, last = 0, ok = 0, snaps = 0, on_snaps = 0;
    unsigned previews = 0;
    uint64_t t0;

    if (!s)
        return;
    recv_init(&tx, "transmission");
    cb_tx = recv_callbacks(&tx);
    CHECK_STATUS(camcore_session_set_transmission_sink(s, &cb_tx), CAMCORE_OK, "sink");
    pthread_barrier_init(&g_storm_barrier, NULL, N_THREADS);
    t0 = now_ns();
    for (i = 0; i < N_THREADS; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].s = s;
        w[i].seed = 12345u + (unsigned)i * 7919u;
        recv_init(&w[i].preview, "thread preview");
        pthread_create(&w[i].thread, NULL, storm_worker, &w[i]);
    }
    for (i = 0; i < N_THREADS; i++) {
        pthread_join(w[i].thread, NULL);
        unexpected += w[i].unexpected;
        inconsistent += w[i].inconsistent;
        if (w[i].unexpected)
            last = w[i].last_unexpected;
        previews += (unsigned)w[i].has_preview;
        ok += w[i].ok;
        snaps += w[i].snapshots;
        on_snaps += w[i].on_snapshots;
    }
    pthread_barrier_destroy(&g_storm_barrier);
    printf("     %d threads x %d operations in %.0f ms: %d OK, %d snapshots (%d with the camera "
           "on)\n",
           N_THREADS, N_OPS, (double)(now_ns() - t0) / 1e6, ok, snaps, on_snaps);

    CHECK(unexpected == 0, "%d calls failed with something other than OK/STATE (last %d: %s)",
          unexpected, last, camcore_strerror(last));
    CHECK(inconsistent == 0, "%d snapshots had camera_on disagreeing with S9", inconsistent);

    st = get_state(s);
    CHECK(st.preview_count == previews, "preview_count %u, but the threads hold %u previews",
          (unsigned)st.preview_count, previews);
    CHECK(st.camera_on == s9_wants_camera(&st),
          "after the storm camera_on %d, S9 says %d (tx %d paused %d held %d muted %d custom %d "
          "previews %u)",
          (int)st.camera_on, s9_wants_camera(&st), (int)st.transmitting, (int)st.paused,
          (int)st.held, (int)st.hard_muted, (int)st.custom_source, (unsigned)st.preview_count);

    /* Frames flow iff on. */
    for (i = 0; i < N_THREADS; i++)
        recv_reset(&w[i].preview);
    window(WINDOW_MS, &tx, NULL, NULL);
    {
        unsigned got = recv_count(&tx);
        for (i = 0; i < N_THREADS; i++)
            got += recv_count(&w[i].preview);
        if (st.camera_on)
            CHECK(got > 3, "camera on after the storm but only %u frames arrived", got);
        else
            CHECK(got == 0, "camera off after the storm but %u frames arrived", got);
    }

    /* Undo everything: off. */
    for (i = 0; i < N_THREADS; i++)
        if (w[i].has_preview)
            CHECK_STATUS(camcore_session_remove_preview(s, w[i].preview_id), CAMCORE_OK,
                         "remove a thread's preview");
    CHECK_STATUS(camcore_session_set_custom_source(s, 0), CAMCORE_OK, "custom off");
    CHECK_STATUS(camcore_session_end_transmission(s), CAMCORE_OK, "end");
    CHECK_CAMERA(s, 0, "after undoing the storm");
    st = get_state(s);
    CHECK(st.preview_count == 0, "preview_count %u after removing all", (unsigned)st.preview_count);
    CHECK_STATUS(camcore_session_start_transmission(s, CAMCORE_VIDEO_RESUME, 0), CAMCORE_OK,
                 "start after the storm");
    CHECK_CAMERA(s, 1, "transmitting after the storm");
    window(WINDOW_MS, &tx, NULL, NULL);
    EXPECT_FRAMES(&tx, 1, "transmitting after the storm");

    camcore_session_free(s);
    recv_destroy(&tx);
    for (i = 0; i < N_THREADS; i++)
        recv_destroy(&w[i].preview);
}

/* ------------------------------------------------------------------ */
/* S31: bad input                                                      */
/* ------------------------------------------------------------------ */

static void test_S31_null_freed_and_bad_sizes(void)
{
    camcore_session *s = NULL, *dead;
    camcore_session_config cfg;
    camcore_session_state st;
    camcore_frame_callbacks cb;
    camcore_device_callbacks dcb;
    camcore_capture_hook hook;
    camcore_capture_config cc;
    camcore_preference pref;
    camcore_frame f = push_frame_desc(0);
    uint32_t id = 77;
    struct recv r;

    recv_init(&r, "preview");
    cb = recv_callbacks(&r);
    camcore_capture_config_init(&cc);
    camcore_preference_init(&pref);

    /* camcore_session_config_init */
    camcore_session_config_init(NULL);
    memset(&cfg, 0xff, sizeof cfg);
    camcore_session_config_init(&cfg);
    CHECK(cfg.struct_size == sizeof cfg && cfg.device_id == NULL &&
              cfg.preference.struct_size == sizeof cfg.preference &&
              cfg.preference.width == 1280 && cfg.preference.height == 720 &&
              cfg.preference.min_fps.numerator == 15 && cfg.preference.max_fps.numerator == 30 &&
              cfg.preference.output_fourcc == CAMCORE_FOURCC_NATIVE,
          "session_config_init defaults: size %u dev %p %ux%u %u..%u fps",
          (unsigned)cfg.struct_size, (const void *)cfg.device_id,
          (unsigned)cfg.preference.width, (unsigned)cfg.preference.height,
          (unsigned)cfg.preference.min_fps.numerator, (unsigned)cfg.preference.max_fps.numerator);

    /* session_new */
    CHECK_STATUS(camcore_session_new(NULL, NULL, &s), CAMCORE_E_INVALID_ARG, "new(NULL manager)");
    CHECK(s == NULL, "out not NULL after a failure");
    CHECK_STATUS(camcore_session_new(g_manager, NULL, NULL), CAMCORE_E_INVALID_ARG, "new(out NULL)");
    cfg.struct_size = 4;
    s = (camcore_session *)&cfg;
    CHECK_STATUS(camcore_session_new(g_manager, &cfg, &s), CAMCORE_E_INVALID_ARG,
                 "new(struct_size 4)");
    CHECK(s == NULL, "out not set to NULL after a failure");
    camcore_session_config_init(&cfg);
    cfg.device_id = "no-such-camera";
    CHECK_STATUS(camcore_session_new(g_manager, &cfg, &s), CAMCORE_E_NO_DEVICE,
                 "new(unknown device)");
    CHECK(s == NULL, "out not NULL after NO_DEVICE");
    camcore_session_config_init(&cfg);
    cfg.preference.width = 0;
    CHECK_STATUS(camcore_session_new(g_manager, &cfg, &s), CAMCORE_E_INVALID_ARG,
                 "new(preference width 0)");
    camcore_session_config_init(&cfg);
    cfg.preference.min_fps.numerator = 60;
    cfg.preference.max_fps.numerator = 30;
    CHECK_STATUS(camcore_session_new(g_manager, &cfg, &s), CAMCORE_E_INVALID_ARG,
                 "new(min_fps > max_fps)");
    /* NULL config: the first listed device (synthetic:0 here), camera off. */
    CHECK_STATUS(camcore_session_new(g_manager, NULL, &s), CAMCORE_OK, "new(NULL config)");
    if (s) {
        st = get_state(s);
        CHECK(st.camera_on == 0 && strcmp(st.device_id, "synthetic:0") == 0,
              "default session: camera_on %d device '%s'", (int)st.camera_on, st.device_id);
        camcore_session_free(s);
    }

    /* NULL session everywhere. */
    camcore_session_free(NULL);
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    CHECK_STATUS(camcore_session_get_state(NULL, &st), CAMCORE_E_INVALID_ARG, "get_state(NULL)");
    CHECK_STATUS(camcore_session_start_transmission(NULL, 0, 0), CAMCORE_E_INVALID_ARG,
                 "start_transmission(NULL)");
    CHECK_STATUS(camcore_session_end_preparation(NULL), CAMCORE_E_INVALID_ARG, "end_preparation(NULL)");
    CHECK_STATUS(camcore_session_pause_video(NULL), CAMCORE_E_INVALID_ARG, "pause(NULL)");
    CHECK_STATUS(camcore_session_resume_video(NULL), CAMCORE_E_INVALID_ARG, "resume(NULL)");
    CHECK_STATUS(camcore_session_hold(NULL), CAMCORE_E_INVALID_ARG, "hold(NULL)");
    CHECK_STATUS(camcore_session_unhold(NULL), CAMCORE_E_INVALID_ARG, "unhold(NULL)");
    CHECK_STATUS(camcore_session_set_hard_mute(NULL, 1), CAMCORE_E_INVALID_ARG, "mute(NULL)");
    CHECK_STATUS(camcore_session_end_transmission(NULL), CAMCORE_E_INVALID_ARG, "end(NULL)");
    CHECK_STATUS(camcore_session_set_transmission_sink(NULL, &cb), CAMCORE_E_INVALID_ARG,
                 "sink(NULL)");
    CHECK_STATUS(camcore_session_add_preview(NULL, &cb, &id), CAMCORE_E_INVALID_ARG,
                 "add_preview(NULL)");
    CHECK_STATUS(camcore_session_remove_preview(NULL, 1), CAMCORE_E_INVALID_ARG,
                 "remove_preview(NULL)");
    CHECK_STATUS(camcore_session_start(NULL, &cc, NULL, NULL), CAMCORE_E_INVALID_ARG, "start(NULL)");
    CHECK_STATUS(camcore_session_stop(NULL, NULL, NULL), CAMCORE_E_INVALID_ARG, "stop(NULL)");
    CHECK_STATUS(camcore_session_restart(NULL, NULL, NULL), CAMCORE_E_INVALID_ARG, "restart(NULL)");
    CHECK_STATUS(camcore_session_change(NULL, &cc, NULL, NULL), CAMCORE_E_INVALID_ARG,
                 "change(NULL)");
    CHECK_STATUS(camcore_session_select(NULL, "synthetic:1", NULL, NULL), CAMCORE_E_INVALID_ARG,
                 "select(NULL)");
    CHECK_STATUS(camcore_session_flip(NULL, NULL, NULL), CAMCORE_E_INVALID_ARG, "flip(NULL)");
    CHECK_STATUS(camcore_session_set_preference(NULL, &pref, NULL, NULL), CAMCORE_E_INVALID_ARG,
                 "set_preference(NULL)");
    CHECK_STATUS(camcore_session_set_capture_hook(NULL, NULL), CAMCORE_E_INVALID_ARG,
                 "hook(NULL)");
    CHECK_STATUS(camcore_session_set_custom_source(NULL, 1), CAMCORE_E_INVALID_ARG,
                 "custom_source(NULL)");
    CHECK_STATUS(camcore_session_push_frame(NULL, &f), CAMCORE_E_INVALID_ARG, "push(NULL)");
    CHECK_STATUS(camcore_session_set_device_callbacks(NULL, NULL), CAMCORE_E_INVALID_ARG,
                 "device_callbacks(NULL)");

    /* A freed session: every call is INVALID_ARG, free again is ignored. */
    dead = new_session("synthetic:0");
    if (dead) {
        CHECK_STATUS(camcore_session_add_preview(dead, &cb, &id), CAMCORE_OK, "add_preview");
        camcore_session_free(dead);
        CHECK_STATUS(camcore_session_get_state(dead, &st), CAMCORE_E_INVALID_ARG,
                     "get_state(freed)");
        CHECK_STATUS(camcore_session_pause_video(dead), CAMCORE_E_INVALID_ARG, "pause(freed)");
        CHECK_STATUS(camcore_session_start_transmission(dead, 0, 0), CAMCORE_E_INVALID_ARG,
                     "start_transmission(freed)");
        CHECK_STATUS(camcore_session_add_preview(dead, &cb, &id), CAMCORE_E_INVALID_ARG,
                     "add_preview(freed)");
        CHECK_STATUS(camcore_session_flip(dead, NULL, NULL), CAMCORE_E_INVALID_ARG, "flip(freed)");
        CHECK_STATUS(camcore_session_push_frame(dead, &f), CAMCORE_E_INVALID_ARG, "push(freed)");
        camcore_session_free(dead); /* ignored */
        /* A capturer handle is not a session. */
    }

    /* Bad arguments on a live session. */
    s = new_session("synthetic:0");
    if (s) {
        st.struct_size = 0;
        CHECK_STATUS(camcore_session_get_state(s, &st), CAMCORE_E_INVALID_ARG,
                     "get_state(struct_size 0)");
        CHECK_STATUS(camcore_session_get_state(s, NULL), CAMCORE_E_INVALID_ARG, "get_state(out NULL)");
        CHECK_STATUS(camcore_session_start_transmission(s, 7, 0), CAMCORE_E_INVALID_ARG,
                     "start_transmission(initial 7)");
        CHECK_STATUS(camcore_session_pause_video(s), CAMCORE_E_STATE, "pause without transmission");
        CHECK_STATUS(camcore_session_resume_video(s), CAMCORE_E_STATE, "resume without transmission");
        CHECK_STATUS(camcore_session_hold(s), CAMCORE_E_STATE, "hold without transmission");
        CHECK_STATUS(camcore_session_unhold(s), CAMCORE_E_STATE, "unhold without transmission");
        cb.struct_size = 3;
        CHECK_STATUS(camcore_session_set_transmission_sink(s, &cb), CAMCORE_E_INVALID_ARG,
                     "sink(struct_size 3)");
        CHECK_STATUS(camcore_session_add_preview(s, &cb, &id), CAMCORE_E_INVALID_ARG,
                     "add_preview(struct_size 3)");
        cb = recv_callbacks(&r);
        CHECK_STATUS(camcore_session_add_preview(s, NULL, &id), CAMCORE_E_INVALID_ARG,
                     "add_preview(callbacks NULL)");
        CHECK_STATUS(camcore_session_add_preview(s, &cb, NULL), CAMCORE_E_INVALID_ARG,
                     "add_preview(id NULL)");
        CHECK(get_state(s).preview_count == 0, "a rejected add_preview added a preview");
        CHECK_STATUS(camcore_session_remove_preview(s, 0), CAMCORE_E_INVALID_ARG,
                     "remove_preview(0)");
        CHECK_STATUS(camcore_session_remove_preview(s, 4242), CAMCORE_E_INVALID_ARG,
                     "remove_preview(unknown id)");
        memset(&dcb, 0, sizeof dcb);
        dcb.struct_size = 2;
        CHECK_STATUS(camcore_session_set_device_callbacks(s, &dcb), CAMCORE_E_INVALID_ARG,
                     "device_callbacks(struct_size 2)");
        memset(&hook, 0, sizeof hook);
        hook.struct_size = 1;
        CHECK_STATUS(camcore_session_set_capture_hook(s, &hook), CAMCORE_E_INVALID_ARG,
                     "hook(struct_size 1)");
        CHECK_STATUS(camcore_session_start(s, NULL, NULL, NULL), CAMCORE_E_INVALID_ARG,
                     "start(config NULL)");
        cc.struct_size = 2;
        CHECK_STATUS(camcore_session_start(s, &cc, NULL, NULL), CAMCORE_E_INVALID_ARG,
                     "start(struct_size 2)");
        CHECK_STATUS(camcore_session_change(s, &cc, NULL, NULL), CAMCORE_E_INVALID_ARG,
                     "change(struct_size 2)");
        camcore_capture_config_init(&cc);
        cc.fps.numerator = 30;
        cc.fps.denominator = 0;
        CHECK_STATUS(camcore_session_start(s, &cc, NULL, NULL), CAMCORE_E_INVALID_ARG,
                     "start(fps 30/0)");
        CHECK_STATUS(camcore_session_select(s, NULL, NULL, NULL), CAMCORE_E_INVALID_ARG,
                     "select(id NULL)");
        CHECK_STATUS(camcore_session_set_preference(s, NULL, NULL, NULL), CAMCORE_E_INVALID_ARG,
                     "set_preference(NULL)");
        pref.struct_size = 1;
        CHECK_STATUS(camcore_session_set_preference(s, &pref, NULL, NULL), CAMCORE_E_INVALID_ARG,
                     "set_preference(struct_size 1)");
        /* Nothing of that changed the session. */
        CHECK_CAMERA(s, 0, "after the bad calls");
        CHECK_STATUS(camcore_session_add_preview(s, &cb, &id), CAMCORE_OK, "a good add_preview");
        CHECK_CAMERA(s, 1, "the session still works");
        camcore_session_free(s);
    }
    recv_destroy(&r);
}

/* ------------------------------------------------------------------ */
/* S31: free and session calls from inside callbacks                   */
/* ------------------------------------------------------------------ */

struct inside {
    camcore_session *s;
    pthread_mutex_t lock;
    int done;
    char msg[256];
    /* deferred calls */
    int rc_pause, rc_hold, rc_add, rc_remove, rc_sink, rc_state, rc_stop, rc_bad_remove;
    uint32_t added_id;
    int state_on_inside;
    struct recv *extra;
};

static void free_from_frame(struct recv *r, const camcore_frame *f)
{
    struct inside *in = r->arg;

    (void)f;
    camcore_session_free(in->s);
    pthread_mutex_lock(&in->lock);
    snprintf(in->msg, sizeof in->msg, "%s", camcore_last_error_message());
    in->done = 1;
    pthread_mutex_unlock(&in->lock);
}

static int inside_done(struct inside *in, unsigned timeout_ms)
{
    uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000u;
    int done;

    for (;;) {
        pthread_mutex_lock(&in->lock);
        done = in->done;
        pthread_mutex_unlock(&in->lock);
        if (done || now_ns() > end)
            return done;
        sleep_ms(2);
    }
}

static struct inside g_in_selected;

static void free_from_selected(void *user_data, const camcore_device_info *d,
                               const camcore_capture_format *fmt)
{
    struct inside *in = user_data;

    (void)d;
    (void)fmt;
    camcore_session_free(in->s);
    pthread_mutex_lock(&in->lock);
    snprintf(in->msg, sizeof in->msg, "%s", camcore_last_error_message());
    in->done = 1;
    pthread_mutex_unlock(&in->lock);
}

static void free_from_completion(void *user_data, int status)
{
    struct inside *in = user_data;

    (void)status;
    camcore_session_free(in->s);
    pthread_mutex_lock(&in->lock);
    snprintf(in->msg, sizeof in->msg, "%s", camcore_last_error_message());
    in->done = 2;
    pthread_mutex_unlock(&in->lock);
}

/* No call of `p` after the free inside a callback: counts frozen for 150 ms
 * (a frame every ~33 ms would show). */
static void expect_no_more(struct recv *p, const char *what)
{
    unsigned frozen = recv_total(p);

    sleep_ms(150);
    CHECK(recv_total(p) == frozen, "%s: %u call(s) after the free", what, recv_total(p) - frozen);
}

static int handle_gone(camcore_session *s)
{
    camcore_session_state st;

    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    return camcore_session_get_state(s, &st) == CAMCORE_E_INVALID_ARG;
}

/* A new session on synthetic:0 with a counting preview `q` named `name`. */
static camcore_session *session_with_preview(struct recv *q, const char *name)
{
    camcore_session *s = new_session("synthetic:0");
    camcore_frame_callbacks cb;
    uint32_t id = 0;

    if (!s)
        return NULL;
    recv_init(q, name);
    cb = recv_callbacks(q);
    CHECK_STATUS(camcore_session_add_preview(s, &cb, &id), CAMCORE_OK, "add_preview");
    return s;
}

/* After a free inside a callback of `q`'s session: it returned without a
 * refusal, no call of `q` follows, the handle is gone. */
static void expect_freed(camcore_session *s, struct recv *q, const char *msg, const char *what)
{
    CHECK(strstr(msg, "DEADLOCK") == NULL, "%s left an error: '%s'", what, msg);
    expect_no_more(q, what);
    CHECK(handle_gone(s), "the session handle still answers after %s", what);
    recv_destroy(q);
}

/* Close cannot fail: camcore_session_free from inside the session's own
 * callbacks returns at once, sets no error, no callback follows that one,
 * and the session is gone (its handle refused). */
static void test_S31_free_inside_callbacks(void)
{
    static struct inside in;
    struct recv p, q;
    camcore_frame_callbacks cb_p;
    camcore_device_callbacks dcb;
    camcore_session *s = new_session("synthetic:0");
    uint32_t id = 0;

    if (!s)
        return;
    memset(&in, 0, sizeof in);
    pthread_mutex_init(&in.lock, NULL);
    in.s = s;
    recv_init(&p, "preview");
    p.action = free_from_frame;
    p.arg = &in;
    cb_p = recv_callbacks(&p);

    /* From a frame callback (capture thread). */
    CHECK_STATUS(camcore_session_add_preview(s, &cb_p, &id), CAMCORE_OK, "add_preview");
    CHECK(inside_done(&in, 5000), "camcore_session_free inside on_frame did not return (deadlock)");
    printf("     free inside on_frame: last error '%s'\n", in.msg);
    CHECK(strstr(in.msg, "DEADLOCK") == NULL, "free inside on_frame left an error: '%s'", in.msg);
    CHECK(recv_total(&p) == 1, "on_frame ran %u times", recv_total(&p));
    expect_no_more(&p, "free inside on_frame");
    CHECK(handle_gone(s), "the session handle still answers after free inside on_frame");

    /* From on_selected (camera queue). */
    s = session_with_preview(&q, "preview 2");
    if (!s)
        return;
    memset(&g_in_selected, 0, sizeof g_in_selected);
    pthread_mutex_init(&g_in_selected.lock, NULL);
    g_in_selected.s = s;
    memset(&dcb, 0, sizeof dcb);
    dcb.struct_size = sizeof dcb;
    dcb.user_data = &g_in_selected;
    dcb.on_selected = free_from_selected;
    CHECK_STATUS(camcore_session_set_device_callbacks(s, &dcb), CAMCORE_OK, "device callbacks");
    CHECK_STATUS(camcore_session_flip(s, NULL, NULL), CAMCORE_OK, "flip");
    CHECK(inside_done(&g_in_selected, 5000),
          "camcore_session_free inside on_selected did not return (deadlock)");
    expect_freed(s, &q, g_in_selected.msg, "free inside on_selected");

    /* From a completion (camera queue). */
    s = session_with_preview(&q, "preview 3");
    if (!s)
        return;
    g_in_selected.done = 0;
    g_in_selected.msg[0] = '\0';
    g_in_selected.s = s;
    CHECK_STATUS(camcore_session_restart(s, free_from_completion, &g_in_selected), CAMCORE_OK,
                 "restart");
    CHECK(inside_done(&g_in_selected, 5000),
          "camcore_session_free inside a completion did not return (deadlock)");
    expect_freed(s, &q, g_in_selected.msg, "free inside a completion");
    recv_destroy(&p);
    pthread_mutex_destroy(&in.lock);
    pthread_mutex_destroy(&g_in_selected.lock);
}

static void ops_from_frame(struct recv *r, const camcore_frame *f)
{
    struct inside *in = r->arg;
    camcore_frame_callbacks cb = recv_callbacks(in->extra);
    camcore_session_state st;

    (void)f;
    in->rc_pause = camcore_session_pause_video(in->s);
    in->rc_hold = camcore_session_hold(in->s);
    in->rc_add = camcore_session_add_preview(in->s, &cb, &in->added_id);
    in->rc_sink = camcore_session_set_transmission_sink(in->s, NULL);
    in->rc_bad_remove = camcore_session_remove_preview(in->s, 4242);
    in->rc_stop = camcore_session_restart(in->s, NULL, NULL);
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    st.format.struct_size = sizeof st.format;
    in->rc_state = camcore_session_get_state(in->s, &st);
    in->state_on_inside = st.camera_on;
    pthread_mutex_lock(&in->lock);
    in->done = 1;
    pthread_mutex_unlock(&in->lock);
}

static void test_S31_session_calls_inside_frame_callback(void)
{
    static struct inside in;
    struct recv p, extra, tx;
    camcore_frame_callbacks cb_p, cb_tx;
    camcore_session *s = new_session("synthetic:0");
    camcore_session_state st;
    uint32_t id = 0;

    if (!s)
        return;
    memset(&in, 0, sizeof in);
    pthread_mutex_init(&in.lock, NULL);
    in.s = s;
    recv_init(&p, "preview");
    recv_init(&extra, "preview added inside");
    recv_init(&tx, "transmission");
    in.extra = &extra;
    p.action = ops_from_frame;
    p.arg = &in;
    cb_p = recv_callbacks(&p);
    cb_tx = recv_callbacks(&tx);
    CHECK_STATUS(camcore_session_set_transmission_sink(s, &cb_tx), CAMCORE_OK, "sink");
    CHECK_STATUS(camcore_session_start_transmission(s, CAMCORE_VIDEO_RESUME, 0), CAMCORE_OK,
                 "start_transmission");
    CHECK_STATUS(camcore_session_add_preview(s, &cb_p, &id), CAMCORE_OK, "add_preview");
    CHECK(inside_done(&in, 5000), "session calls inside on_frame did not return (deadlock)");
    CHECK_STATUS(in.rc_pause, CAMCORE_OK, "pause_video inside on_frame");
    CHECK_STATUS(in.rc_hold, CAMCORE_OK, "hold inside on_frame");
    CHECK_STATUS(in.rc_add, CAMCORE_OK, "add_preview inside on_frame");
    CHECK_STATUS(in.rc_sink, CAMCORE_OK, "set_transmission_sink inside on_frame");
    CHECK_STATUS(in.rc_bad_remove, CAMCORE_OK, "remove_preview(unknown) inside on_frame (queued)");
    CHECK_STATUS(in.rc_stop, CAMCORE_OK, "restart inside on_frame");
    CHECK_STATUS(in.rc_state, CAMCORE_OK, "get_state inside on_frame");
    CHECK(in.state_on_inside == 1, "get_state inside on_frame: camera_on %d", in.state_on_inside);
    CHECK(in.added_id != 0,
          "add_preview inside on_frame returned OK but preview_id %u: the app cannot remove "
          "that preview",
          (unsigned)in.added_id);

    sleep_ms(100); /* the queued calls take effect after the callback */
    st = get_state(s);
    CHECK(st.paused == 1 && st.held == 1 && st.preview_count == 2,
          "after the queued calls: paused %d held %d previews %u (expected 1 1 2)", (int)st.paused,
          (int)st.held, (unsigned)st.preview_count);
    CHECK_CAMERA(s, 1, "previews keep it on");
    window(WINDOW_MS, &tx, &extra, NULL);
    EXPECT_FRAMES(&extra, 1, "preview added inside on_frame");
    EXPECT_FRAMES(&tx, 0, "paused + held + sink NULL");
    if (in.added_id != 0)
        CHECK_STATUS(camcore_session_remove_preview(s, in.added_id), CAMCORE_OK,
                     "remove the preview added inside");
    CHECK_STATUS(camcore_session_remove_preview(s, id), CAMCORE_OK, "remove the first preview");
    camcore_session_free(s);
    recv_destroy(&p);
    recv_destroy(&extra);
    recv_destroy(&tx);
    pthread_mutex_destroy(&in.lock);
}

/* ------------------------------------------------------------------ */
/* Child scenarios: calls from callbacks that could hang               */
/* ------------------------------------------------------------------ */

/* Each returns 0 when the scenario behaved (and did not hang). */

static struct {
    camcore_session *s;
    int rc;
    volatile int done;
    unsigned sink_calls;
} g_child;

static void child_push_from_preview(struct recv *r, const camcore_frame *f)
{
    camcore_frame mine = push_frame_desc(99);

    (void)r;
    (void)f;
    g_child.rc = camcore_session_push_frame(g_child.s, &mine);
    g_child.done = 1;
}

/* A preview's frame callback pushes a custom frame (S21 inside S14). */
static int child_push_inside_frame_callback(void)
{
    struct recv p, tx;
    camcore_frame_callbacks cb_p, cb_tx;
    uint32_t id;
    uint64_t end;

    g_child.s = new_session("synthetic:0");
    if (!g_child.s)
        return 1;
    recv_init(&p, "preview");
    recv_init(&tx, "transmission");
    p.action = child_push_from_preview;
    cb_p = recv_callbacks(&p);
    cb_tx = recv_callbacks(&tx);
    camcore_session_set_transmission_sink(g_child.s, &cb_tx);
    camcore_session_set_custom_source(g_child.s, 1);
    camcore_session_start_transmission(g_child.s, CAMCORE_VIDEO_RESUME, 0);
    camcore_session_add_preview(g_child.s, &cb_p, &id);
    end = now_ns() + 5000000000ull;
    while (!g_child.done && now_ns() < end)
        sleep_ms(5);
    if (!g_child.done) {
        printf("     child: no preview frame\n");
        return 1;
    }
    printf("     child: push_frame inside on_frame returned %d (%s); sink got %u frames\n",
           g_child.rc, camcore_strerror(g_child.rc), recv_total(&tx));
    camcore_session_free(g_child.s);
    return g_child.rc == CAMCORE_OK && recv_total(&tx) == 1 ? 0 : 1;
}

static void child_sink_calls_pause(void *user_data, const camcore_frame *f)
{
    (void)user_data;
    (void)f;
    if (!pthread_equal(pthread_self(), g_main_thread))
        printf("     child: the sink ran on another thread than the pusher\n");
    g_child.sink_calls++;
    g_child.rc = camcore_session_pause_video(g_child.s);
    g_child.done = 1;
}

/* The sink of a pushed frame (a frame callback on the pushing thread)
 * calls a session operation: the header says it is queued, returns OK. */
static int child_op_inside_pushed_sink(void)
{
    camcore_frame_callbacks cb;
    camcore_frame f = push_frame_desc(1);
    int rc;
    camcore_session_state st;

    g_child.s = new_session("synthetic:0");
    if (!g_child.s)
        return 1;
    camcore_frame_callbacks_init(&cb);
    cb.on_frame = child_sink_calls_pause;
    camcore_session_set_transmission_sink(g_child.s, &cb);
    /* Custom source first, so no camera frame ever reaches the sink. */
    camcore_session_set_custom_source(g_child.s, 1);
    camcore_session_start_transmission(g_child.s, CAMCORE_VIDEO_RESUME, 0);
    rc = camcore_session_push_frame(g_child.s, &f);
    sleep_ms(100);
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    camcore_session_get_state(g_child.s, &st);
    printf("     child: push returned %d; sink called %u times; pause_video inside it returned %d "
           "(%s); paused %d\n",
           rc, g_child.sink_calls, g_child.rc, camcore_strerror(g_child.rc), (int)st.paused);
    camcore_session_free(g_child.s);
    return rc == CAMCORE_OK && g_child.sink_calls == 1 && g_child.rc == CAMCORE_OK &&
                   st.paused == 1
               ? 0
               : 1;
}

static char g_child_msg[256];

static void child_sink_calls_free(void *user_data, const camcore_frame *f)
{
    (void)user_data;
    (void)f;
    camcore_session_free(g_child.s);
    snprintf(g_child_msg, sizeof g_child_msg, "%s", camcore_last_error_message());
    g_child.done = 1;
}

/* The sink of a pushed frame frees the session: it returns, the session is gone. */
static int child_free_inside_pushed_sink(void)
{
    camcore_frame_callbacks cb;
    camcore_frame f = push_frame_desc(1);
    camcore_session_state st;
    int rc, rc_state;

    g_child.s = new_session("synthetic:0");
    if (!g_child.s)
        return 1;
    camcore_frame_callbacks_init(&cb);
    cb.on_frame = child_sink_calls_free;
    camcore_session_set_transmission_sink(g_child.s, &cb);
    /* Custom source first, so no camera frame ever reaches the sink. */
    camcore_session_set_custom_source(g_child.s, 1);
    camcore_session_start_transmission(g_child.s, CAMCORE_VIDEO_RESUME, 0);
    rc = camcore_session_push_frame(g_child.s, &f);
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    rc_state = camcore_session_get_state(g_child.s, &st);
    printf("     child: push returned %d; free inside the pushed frame's sink left '%s'; "
           "get_state afterwards %d\n",
           rc, g_child_msg, rc_state);
    return g_child.done && strstr(g_child_msg, "DEADLOCK") == NULL && rc_state == CAMCORE_E_INVALID_ARG ? 0 : 1;
}

static unsigned g_hook_inside_calls;

static int hook_removes_itself(void *user_data, const camcore_frame *frame, camcore_frame *r)
{
    (void)frame;
    (void)r;
    g_hook_inside_calls++;
    if (!g_child.done) {
        g_child.rc = camcore_session_set_capture_hook((camcore_session *)user_data, NULL);
        g_child.done = 1;
    }
    return CAMCORE_HOOK_PASS;
}

/* The capture hook removes itself from inside (deferred, then gone). */
static int child_hook_removes_itself(void)
{
    camcore_capture_hook hook;
    struct recv p;
    camcore_frame_callbacks cb_p;
    uint32_t id;
    unsigned calls;

    g_child.s = new_session("synthetic:0");
    if (!g_child.s)
        return 1;
    recv_init(&p, "preview");
    cb_p = recv_callbacks(&p);
    memset(&hook, 0, sizeof hook);
    hook.struct_size = sizeof hook;
    hook.user_data = g_child.s;
    hook.on_capture = hook_removes_itself;
    camcore_session_set_capture_hook(g_child.s, &hook);
    camcore_session_add_preview(g_child.s, &cb_p, &id);
    sleep_ms(200);
    calls = g_hook_inside_calls;
    sleep_ms(150);
    printf("     child: set_capture_hook(NULL) inside the hook returned %d; hook calls %u then %u; "
           "preview frames %u\n",
           g_child.rc, calls, g_hook_inside_calls, recv_total(&p));
    camcore_session_free(g_child.s);
    return g_child.rc == CAMCORE_OK && calls == g_hook_inside_calls && calls <= 3 &&
                   recv_total(&p) > 10
               ? 0
               : 1;
}

/* After all of the above, the library still works. */
static void test_S31_library_still_usable(void)
{
    struct recv p;
    camcore_frame_callbacks cb;
    camcore_session *s = new_session("synthetic:1");
    uint32_t id;

    if (!s)
        return;
    recv_init(&p, "preview");
    cb = recv_callbacks(&p);
    CHECK_STATUS(camcore_session_add_preview(s, &cb, &id), CAMCORE_OK, "add_preview");
    CHECK(wait_total(&p, 5, 3000), "only %u frames", recv_total(&p));
    CHECK_CAMERA(s, 1, "fresh session");
    camcore_session_free(s);
    recv_destroy(&p);
}

static const char *setup(void)
{
    static char why[512];
    camcore_manager_config mcfg;
    camcore_device_list *list = NULL;
    int ok = 0;

    unsetenv("CAMCORE_SYNTHETIC_CAMERA");
    g_main_thread = pthread_self();
    camcore_manager_config_init(&mcfg);
    mcfg.include_synthetic = 2;
    if (camcore_manager_new(&mcfg, &g_manager) == CAMCORE_OK &&
        camcore_manager_list_devices(g_manager, &list) == CAMCORE_OK) {
        size_t i;
        int front = 0, back = 0;
        for (i = 0; i < list->count; i++) {
            if (strcmp(list->devices[i].id, "synthetic:0") == 0 &&
                list->devices[i].position == CAMCORE_POSITION_FRONT)
                front = 1;
            if (strcmp(list->devices[i].id, "synthetic:1") == 0 &&
                list->devices[i].position == CAMCORE_POSITION_BACK)
                back = 1;
        }
        ok = front && back;
    }
    camcore_device_list_free(list);
    if (ok)
        return NULL;
    snprintf(why, sizeof why, "no manager, or no front synthetic:0 and back synthetic:1: %s",
             camcore_last_error_message());
    return why;
}

static void teardown(void)
{
    camcore_manager_free(g_manager);
}

static const struct testlib_test tests[] = {
    TESTLIB_TEST(test_S9_truth_table),
    TESTLIB_TEST(test_S10_S11_S12_pause_preview_hold_remove_unhold_resume),
    TESTLIB_TEST(test_S9_camera_error_keeps_state),
    TESTLIB_TEST(test_S13_preparation),
    TESTLIB_TEST(test_S15_null_sink_and_hard_mute),
    TESTLIB_TEST(test_S14_two_previews_same_frames),
    TESTLIB_TEST(test_S16_S17_completions_once_in_order),
    TESTLIB_TEST(test_S18_S19_select_flip_custom_source),
    TESTLIB_TEST(test_S21_custom_source_push_frame),
    TESTLIB_TEST(test_S20_capture_hook),
    TESTLIB_TEST(test_S16_eight_threads_consistent),
    TESTLIB_TEST(test_S31_null_freed_and_bad_sizes),
    TESTLIB_TEST(test_S31_free_inside_callbacks),
    TESTLIB_TEST(test_S31_session_calls_inside_frame_callback),
    TESTLIB_CHILD("push_inside_frame_callback", child_push_inside_frame_callback,
                  "push_frame from inside a preview's on_frame (custom source) returns OK, "
                  "reaches the sink"),
    TESTLIB_CHILD("op_inside_pushed_sink", child_op_inside_pushed_sink,
                  "pause_video from inside the sink of a pushed frame is queued (OK), no deadlock"),
    TESTLIB_CHILD("free_inside_pushed_sink", child_free_inside_pushed_sink,
                  "camcore_session_free from inside the sink of a pushed frame returns, "
                  "the session is gone"),
    TESTLIB_CHILD("hook_removes_itself", child_hook_removes_itself,
                  "set_capture_hook(NULL) from inside the hook: queued, then never called again"),
    TESTLIB_TEST(test_S31_library_still_usable),
};

/* Child scenarios: their own watchdog after 8 s, killed by the parent after 20 s. */
static const struct testlib_suite suite = {
    tests, TESTLIB_COUNT(tests), 300, setup, teardown, 8, 20,
};

int main(int argc, char **argv)
{
    return testlib_main(argc, argv, &suite);
}
