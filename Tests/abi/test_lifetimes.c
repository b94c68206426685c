// SPDX-License-Identifier: MIT
/*
 * test_lifetimes.c — handle lifetimes and the checks made at the call
 * (SPEC S14, S17, S31; issue 12 items 3, 7 and 9), through camcore.h only,
 * against two synthetic cameras.
 *
 * What it asserts:
 *   S31  a freed capturer, session or manager handle is refused with
 *        CAMCORE_E_INVALID_ARG however many objects are made after it,
 *        and never reaches one of them (a new capturer keeps streaming
 *        while the old handle is stopped and closed again)
 *   S17  fps with one zero part (0/1, 30/0) is refused at
 *        camcore_capturer_start, camcore_session_start and _change; 0/0
 *        (the driver's rate) is taken; a zero size is refused at
 *        camcore_session_start itself and the completion is not called
 *   S14  CAMCORE_MAX_PREVIEWS previews are taken, one more is refused with
 *        CAMCORE_E_NO_MEMORY (id 0), a removal frees a place
 *   S31  camcore_manager_free stops what was made from it: no preview,
 *        frame or hot-plug callback after it returns, capturer and session
 *        handles then refuse every call with CAMCORE_E_STATE except their
 *        own close/free; from inside a callback of one of them it returns
 *        at once, no callback follows that one, and the free finishes on a
 *        library thread (close cannot fail)
 *
 * The last line is "N passed, M failed"; exit 0 only if M is 0.
 *
 * Build:  cc -std=c99 test_lifetimes.c testlib.c $(pkg-config --cflags --libs camcore) -pthread
 */
#define _POSIX_C_SOURCE 200809L

#include "testlib.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* A frame counter shared with camcore's threads                       */
/* ------------------------------------------------------------------ */

struct counter {
    pthread_mutex_t lock;
    unsigned frames;
    unsigned completions;
    int last_status;
};

static void counter_init(struct counter *c)
{
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->lock, NULL);
    c->last_status = 1;
}

/* One of c's counts, read under its lock. */
static unsigned counter_read(struct counter *c, const unsigned *count)
{
    unsigned n;

    pthread_mutex_lock(&c->lock);
    n = *count;
    pthread_mutex_unlock(&c->lock);
    return n;
}

#define counter_frames(c) counter_read((c), &(c)->frames)
#define counter_completions(c) counter_read((c), &(c)->completions)

static void count_frame(void *user_data, const camcore_frame *f)
{
    struct counter *c = user_data;

    (void)f;
    pthread_mutex_lock(&c->lock);
    c->frames++;
    pthread_mutex_unlock(&c->lock);
}

static void count_completion(void *user_data, int status)
{
    struct counter *c = user_data;

    pthread_mutex_lock(&c->lock);
    c->completions++;
    c->last_status = status;
    pthread_mutex_unlock(&c->lock);
}

static camcore_frame_callbacks counting(struct counter *c)
{
    camcore_frame_callbacks cb;

    camcore_frame_callbacks_init(&cb);
    cb.user_data = c;
    cb.on_frame = count_frame;
    return cb;
}

/* Waits up to 5 s until c has counted more than `than` frames. */
static int frames_after(struct counter *c, unsigned than)
{
    uint64_t end = now_ns() + 5000000000ull;

    while (counter_frames(c) <= than && now_ns() < end)
        sleep_ms(5);
    return counter_frames(c) > than;
}

static camcore_manager *new_manager(void)
{
    camcore_manager_config cfg;
    camcore_manager *m = NULL;

    camcore_manager_config_init(&cfg);
    cfg.include_synthetic = 2;
    if (camcore_manager_new(&cfg, &m) != CAMCORE_OK)
        return NULL;
    return m;
}

static camcore_session *new_session(camcore_manager *m, const char *id)
{
    camcore_session_config cfg;
    camcore_session *s = NULL;

    camcore_session_config_init(&cfg);
    cfg.device_id = id;
    cfg.preference.width = 320;
    cfg.preference.height = 240;
    cfg.preference.max_fps.numerator = 60;
    if (camcore_session_new(m, &cfg, &s) != CAMCORE_OK)
        return NULL;
    return s;
}

static camcore_manager *g_manager;

/* ------------------------------------------------------------------ */
/* S31: a freed handle never reaches a new object                      */
/* ------------------------------------------------------------------ */

#define REOPENS 64

static void test_S31_stale_capturer_handle_never_reaches_a_new_one(void)
{
    camcore_capturer *old = NULL, *cur = NULL;
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC_YUYV, 160, 120, 60);
    camcore_frame_callbacks cb;
    struct counter c;
    int i, reused = -1;
    unsigned before;

    counter_init(&c);
    cb = counting(&c);
    CHECK_STATUS(camcore_capturer_open(g_manager, "synthetic:0", &old), CAMCORE_OK, "open the first capturer");
    camcore_capturer_close(old);
    /* The allocator hands the freed memory to the next object of the same
     * size at once: a handle that is the object's address comes back. */
    for (i = 0; i < REOPENS / 4; i++) {
        CHECK_STATUS(camcore_capturer_open(g_manager, "synthetic:0", &cur), CAMCORE_OK, "reopen");
        if (cur == NULL)
            break;
        if (cur == old && reused < 0)
            reused = i;
        CHECK_STATUS(camcore_capturer_start(cur, &cfg, &cb), CAMCORE_OK, "start the new capturer");
        CHECK(frames_after(&c, counter_frames(&c)), "the new capturer (open %d) delivers frames", i);
        CHECK_STATUS(camcore_capturer_stop(old), CAMCORE_E_INVALID_ARG, "stop through the freed handle");
        camcore_capturer_close(old); /* a freed handle: ignored */
        CHECK(camcore_capturer_is_streaming(cur) == 1,
              "the new capturer (open %d) still streams after stop/close of the freed handle", i);
        before = counter_frames(&c);
        CHECK(frames_after(&c, before), "the new capturer (open %d) keeps delivering", i);
        camcore_capturer_close(cur);
    }
    CHECK(reused < 0, "a new capturer got the freed capturer's handle value (open %d)", reused);
    CHECK_STATUS(camcore_capturer_start(old, &cfg, &cb), CAMCORE_E_INVALID_ARG, "start through the freed handle");
    CHECK(camcore_capturer_device_id(old) == NULL, "device_id of a freed handle is NULL");
}

static void test_S31_stale_manager_handle_never_reaches_a_new_one(void)
{
    camcore_manager *old = new_manager(), *cur;
    camcore_device_list *list = NULL;
    camcore_capturer *cap = NULL;
    int i, reused = -1;

    CHECK(old != NULL, "manager_new");
    camcore_manager_free(old);
    for (i = 0; i < REOPENS; i++) {
        cur = new_manager();
        CHECK(cur != NULL, "manager_new (%d)", i);
        if (cur == old && reused < 0)
            reused = i;
        CHECK_STATUS(camcore_manager_list_devices(old, &list), CAMCORE_E_INVALID_ARG,
                     "list_devices through the freed manager");
        CHECK(list == NULL, "no list through the freed manager");
        camcore_manager_free(old); /* ignored: it would free the new one */
        CHECK_STATUS(camcore_capturer_open(cur, "synthetic:1", &cap), CAMCORE_OK,
                     "the new manager still opens a camera");
        camcore_capturer_close(cap);
        camcore_manager_free(cur);
    }
    CHECK(reused < 0, "a new manager got the freed manager's handle value (new %d)", reused);
}

static void test_S31_stale_session_handle_never_reaches_a_new_one(void)
{
    camcore_session *old = new_session(g_manager, "synthetic:0"), *cur;
    camcore_session_state st;
    int i, reused = -1;
    uint32_t id = 0;
    camcore_frame_callbacks cb;
    struct counter c;

    counter_init(&c);
    cb = counting(&c);
    CHECK(old != NULL, "session_new");
    camcore_session_free(old);
    for (i = 0; i < REOPENS / 4; i++) {
        cur = new_session(g_manager, "synthetic:0");
        CHECK(cur != NULL, "session_new (%d)", i);
        if (cur == NULL)
            break;
        if (cur == old && reused < 0)
            reused = i;
        CHECK_STATUS(camcore_session_add_preview(cur, &cb, &id), CAMCORE_OK, "add a preview to the new session");
        CHECK_STATUS(camcore_session_remove_preview(old, id), CAMCORE_E_INVALID_ARG,
                     "remove_preview through the freed session");
        camcore_session_free(old); /* ignored */
        memset(&st, 0, sizeof st);
        st.struct_size = sizeof st;
        CHECK_STATUS(camcore_session_get_state(cur, &st), CAMCORE_OK, "state of the new session");
        CHECK(st.camera_on == 1 && st.preview_count == 1,
              "the new session keeps its preview and camera (on %u, previews %u)", st.camera_on,
              st.preview_count);
        camcore_session_free(cur);
    }
    CHECK(reused < 0, "a new session got the freed session's handle value (new %d)", reused);
}

/* ------------------------------------------------------------------ */
/* S17: what a config cannot be is refused at the call                 */
/* ------------------------------------------------------------------ */

static void test_S17_zero_rate_and_size_refused_at_the_call(void)
{
    camcore_capturer *cap = NULL;
    camcore_capture_config cfg;
    camcore_capture_format fmt;
    camcore_session *s = new_session(g_manager, "synthetic:1");
    struct counter c;
    static const struct { uint32_t num, den; } bad[] = { { 0, 1 }, { 30, 0 }, { 0, 30 } };
    size_t i;

    counter_init(&c);
    CHECK_STATUS(camcore_capturer_open(g_manager, "synthetic:1", &cap), CAMCORE_OK, "open");
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cfg = config_for(CAMCORE_FOURCC_YUYV, 160, 120, 30);
        cfg.fps.numerator = bad[i].num;
        cfg.fps.denominator = bad[i].den;
        CHECK_STATUS(camcore_capturer_start(cap, &cfg, NULL), CAMCORE_E_INVALID_ARG, "capturer_start with fps n/0 or 0/n");
        CHECK(camcore_capturer_is_streaming(cap) == 0, "fps %u/%u: not streaming", bad[i].num, bad[i].den);
        CHECK(strstr(camcore_last_error_message(), "fps") != NULL, "the message names fps: %s",
              camcore_last_error_message());
        if (s) {
            CHECK_STATUS(camcore_session_start(s, &cfg, count_completion, &c), CAMCORE_E_INVALID_ARG,
                         "session_start with fps n/0 or 0/n");
            CHECK_STATUS(camcore_session_change(s, &cfg, count_completion, &c), CAMCORE_E_INVALID_ARG,
                         "session_change with fps n/0 or 0/n");
        }
    }
    /* 0/0: the driver's rate. */
    cfg = config_for(CAMCORE_FOURCC_YUYV, 160, 120, 0);
    CHECK_STATUS(camcore_capturer_start(cap, &cfg, NULL), CAMCORE_OK, "capturer_start with fps 0/0");
    memset(&fmt, 0, sizeof fmt);
    fmt.struct_size = sizeof fmt;
    CHECK_STATUS(camcore_capturer_get_format(cap, &fmt), CAMCORE_OK, "get_format");
    CHECK(fmt.fps.numerator > 0 && fmt.fps.denominator > 0, "0/0 runs at the driver's rate (%u/%u)",
          fmt.fps.numerator, fmt.fps.denominator);
    camcore_capturer_close(cap);

    if (s) {
        cfg = config_for(CAMCORE_FOURCC_YUYV, 0, 120, 30);
        CHECK_STATUS(camcore_session_start(s, &cfg, count_completion, &c), CAMCORE_E_INVALID_ARG,
                     "session_start with width 0");
        cfg = config_for(CAMCORE_FOURCC_YUYV, 160, 70000, 30);
        CHECK_STATUS(camcore_session_change(s, &cfg, count_completion, &c), CAMCORE_E_INVALID_ARG,
                     "session_change with height 70000");
        cfg = config_for(CAMCORE_FOURCC_YUYV, 160, 120, 30);
        cfg.buffer_count = 1;
        CHECK_STATUS(camcore_session_start(s, &cfg, count_completion, &c), CAMCORE_E_INVALID_ARG,
                     "session_start with buffer_count 1");
        cfg = config_for(CAMCORE_FOURCC_YUYV, 160, 120, 0);
        CHECK_STATUS(camcore_session_start(s, &cfg, count_completion, &c), CAMCORE_OK, "session_start with fps 0/0");
        camcore_session_free(s); /* runs the queued start first */
        CHECK(counter_completions(&c) == 1, "only the accepted start completed (%u completions)",
              counter_completions(&c));
    }
}

/* ------------------------------------------------------------------ */
/* S14: previews are capped                                             */
/* ------------------------------------------------------------------ */

static void test_S14_previews_capped_at_max(void)
{
    camcore_session *s = new_session(g_manager, "synthetic:0");
    camcore_frame_callbacks cb;
    camcore_session_state st;
    struct counter c;
    uint32_t ids[CAMCORE_MAX_PREVIEWS], extra = 99;
    unsigned i, added = 0;

    CHECK(s != NULL, "session_new");
    if (!s)
        return;
    counter_init(&c);
    cb = counting(&c);
    for (i = 0; i < CAMCORE_MAX_PREVIEWS; i++)
        if (camcore_session_add_preview(s, &cb, &ids[i]) == CAMCORE_OK)
            added++;
    CHECK(added == CAMCORE_MAX_PREVIEWS, "%u of %d previews added", added, CAMCORE_MAX_PREVIEWS);
    CHECK_STATUS(camcore_session_add_preview(s, &cb, &extra), CAMCORE_E_NO_MEMORY, "one preview past the cap");
    CHECK(extra == 0, "the refused preview's id is 0 (got %u)", extra);
    CHECK(strstr(camcore_last_error_message(), "64") != NULL, "the message gives the limit: %s",
          camcore_last_error_message());
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    CHECK_STATUS(camcore_session_get_state(s, &st), CAMCORE_OK, "state");
    CHECK(st.preview_count == CAMCORE_MAX_PREVIEWS, "preview_count %u", st.preview_count);
    CHECK_STATUS(camcore_session_remove_preview(s, ids[7]), CAMCORE_OK, "remove one");
    CHECK_STATUS(camcore_session_add_preview(s, &cb, &extra), CAMCORE_OK, "a removal frees a place");
    CHECK(extra != 0 && extra != ids[7], "the new preview has a new id (%u)", extra);
    CHECK_STATUS(camcore_session_add_preview(s, &cb, &extra), CAMCORE_E_NO_MEMORY, "full again");
    camcore_session_free(s);
}

/* ------------------------------------------------------------------ */
/* S31: freeing the manager stops what it made                          */
/* ------------------------------------------------------------------ */

static void on_device(void *user_data, const camcore_device_info *d)
{
    (void)user_data;
    (void)d;
}

static void test_S31_manager_free_stops_its_capturers_and_sessions(void)
{
    camcore_manager *m = new_manager();
    camcore_session *s, *s_idle;
    camcore_capturer *cap = NULL, *cap_closed = NULL;
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC_YUYV, 160, 120, 60);
    camcore_frame_callbacks cb_p, cb_c;
    camcore_hotplug_callbacks hp;
    camcore_session_state st;
    camcore_capture_stats stats;
    struct counter preview, frames;
    uint32_t id = 0;
    unsigned p_at_free, c_at_free;
    int64_t v = 0;
    uint64_t t0, free_us;

    CHECK(m != NULL, "manager_new");
    if (!m)
        return;
    counter_init(&preview);
    counter_init(&frames);
    cb_p = counting(&preview);
    cb_c = counting(&frames);
    s = new_session(m, "synthetic:0");
    s_idle = new_session(m, "synthetic:1");
    CHECK(s != NULL && s_idle != NULL, "two sessions");
    CHECK_STATUS(camcore_capturer_open(m, "synthetic:1", &cap), CAMCORE_OK, "open a capturer");
    CHECK_STATUS(camcore_capturer_open(m, "synthetic:1", &cap_closed), CAMCORE_OK, "open another");
    camcore_capturer_close(cap_closed); /* closed by the app before the free: stays unknown */
    memset(&hp, 0, sizeof hp);
    hp.struct_size = sizeof hp;
    hp.on_connected = on_device;
    hp.on_disconnected = on_device;
    CHECK_STATUS(camcore_manager_set_hotplug_callbacks(m, &hp), CAMCORE_OK, "hot-plug callbacks");
    CHECK_STATUS(camcore_session_add_preview(s, &cb_p, &id), CAMCORE_OK, "preview");
    CHECK_STATUS(camcore_capturer_start(cap, &cfg, &cb_c), CAMCORE_OK, "capturer_start");
    CHECK(frames_after(&preview, 3) && frames_after(&frames, 3), "both deliver before the free");

    t0 = now_ns();
    camcore_manager_free(m);
    free_us = (now_ns() - t0) / 1000;
    p_at_free = counter_frames(&preview);
    c_at_free = counter_frames(&frames);
    printf("     manager_free took %llu us; preview had %u frames, capturer %u\n",
           (unsigned long long)free_us, p_at_free, c_at_free);
    sleep_ms(300);
    CHECK(counter_frames(&preview) == p_at_free, "no preview callback after manager_free (%u more)",
          counter_frames(&preview) - p_at_free);
    CHECK(counter_frames(&frames) == c_at_free, "no frame callback after manager_free (%u more)",
          counter_frames(&frames) - c_at_free);

    /* The children's handles: STATE for everything but their own close/free. */
    CHECK(camcore_capturer_is_streaming(cap) == 0, "the capturer is not streaming");
    CHECK(strstr(camcore_last_error_message(), "camcore_manager_free") != NULL,
          "is_streaming's message says why: %s", camcore_last_error_message());
    CHECK_STATUS(camcore_capturer_stop(cap), CAMCORE_E_STATE, "capturer_stop after manager_free");
    CHECK_STATUS(camcore_capturer_start(cap, &cfg, &cb_c), CAMCORE_E_STATE, "capturer_start after manager_free");
    memset(&stats, 0, sizeof stats);
    stats.struct_size = sizeof stats;
    CHECK_STATUS(camcore_capturer_get_stats(cap, &stats), CAMCORE_E_STATE, "get_stats after manager_free");
    CHECK_STATUS(camcore_capturer_get_control(cap, 0x00980900u, &v), CAMCORE_E_STATE,
                 "get_control after manager_free");
    CHECK(camcore_capturer_device_id(cap) == NULL, "device_id after manager_free is NULL");
    CHECK_STATUS(camcore_capturer_stop(cap_closed), CAMCORE_E_INVALID_ARG,
                 "a capturer closed before the free stays a freed handle");
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    CHECK_STATUS(camcore_session_get_state(s, &st), CAMCORE_E_STATE, "session_get_state after manager_free");
    CHECK_STATUS(camcore_session_add_preview(s, &cb_p, &id), CAMCORE_E_STATE, "add_preview after manager_free");
    CHECK_STATUS(camcore_session_start_transmission(s_idle, CAMCORE_VIDEO_RESUME, 0), CAMCORE_E_STATE,
                 "start_transmission of the idle session after manager_free");
    CHECK_STATUS(camcore_manager_set_hotplug_callbacks(m, &hp), CAMCORE_E_INVALID_ARG,
                 "the freed manager itself is a freed handle");

    camcore_capturer_close(cap);
    camcore_session_free(s);
    camcore_session_free(s_idle);
    CHECK_STATUS(camcore_capturer_stop(cap), CAMCORE_E_INVALID_ARG, "after close: a freed handle");
    CHECK_STATUS(camcore_session_get_state(s, &st), CAMCORE_E_INVALID_ARG, "after free: a freed handle");
    CHECK(counter_frames(&preview) == p_at_free && counter_frames(&frames) == c_at_free,
          "still no callback after close/free");
}

/* A child: manager_free from inside a preview callback of its session. */
static struct {
    camcore_manager *m;
    pthread_mutex_t lock;
    int called;
    char msg[256];
} g_inside = { NULL, PTHREAD_MUTEX_INITIALIZER, 0, "" };

static void free_manager_inside(void *user_data, const camcore_frame *f)
{
    struct counter *c = user_data;
    int first;

    count_frame(c, f);
    pthread_mutex_lock(&g_inside.lock);
    first = !g_inside.called;
    g_inside.called = 1;
    pthread_mutex_unlock(&g_inside.lock);
    if (!first)
        return;
    camcore_manager_free(g_inside.m);
    snprintf(g_inside.msg, sizeof g_inside.msg, "%s", camcore_last_error_message());
}

/* Polls up to 5 s until the session handle refuses calls (CAMCORE_E_STATE):
 * the manager's free, deferred out of a callback, has run. */
static int session_retired(camcore_session *s)
{
    camcore_session_state st;
    uint64_t end = now_ns() + 5000000000ull;

    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;

    while (camcore_session_get_state(s, &st) != CAMCORE_E_STATE && now_ns() < end)
        sleep_ms(5);
    return camcore_session_get_state(s, &st) == CAMCORE_E_STATE;
}

/* The same for a capturer, asked with a call that changes nothing (a stop
 * here would end the stream itself and hide a capturer that was not muted). */
static int capturer_retired(camcore_capturer *cap)
{
    camcore_capture_stats st;
    uint64_t end = now_ns() + 5000000000ull;

    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    while (camcore_capturer_get_stats(cap, &st) != CAMCORE_E_STATE && now_ns() < end)
        sleep_ms(5);
    return camcore_capturer_get_stats(cap, &st) == CAMCORE_E_STATE && camcore_capturer_is_streaming(cap) == 0;
}

static int child_manager_free_inside_callbacks(void)
{
    camcore_session *s;
    camcore_capturer *cap = NULL;
    camcore_frame_callbacks cb;
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC_YUYV, 160, 120, 60);
    struct counter c;
    uint32_t id;
    unsigned n;
    int ok = 1;

    counter_init(&c);
    g_inside.m = new_manager();
    s = g_inside.m ? new_session(g_inside.m, "synthetic:0") : NULL;
    if (!s)
        return 1;
    cb = counting(&c);
    cb.on_frame = free_manager_inside;
    /* 1. From a session's preview callback: it returns, no frame follows
     * the one that freed, and the free finishes by itself. */
    camcore_session_add_preview(s, &cb, &id);
    if (!frames_after(&c, 0)) {
        printf("     child: no preview frames\n");
        return 1;
    }
    if (!session_retired(s)) {
        printf("     child: the session handle still answers 5 s after the free inside its preview (%s)\n",
               camcore_last_error_message());
        ok = 0;
    }
    n = counter_frames(&c);
    sleep_ms(200);
    printf("     child: manager_free inside a preview callback: %u frame(s), then %u\n", n, counter_frames(&c));
    ok &= n == 1 && counter_frames(&c) == n;
    camcore_session_free(s);
    /* 2. From a capturer's frame callback, on a new manager. */
    g_inside.called = 0;
    g_inside.m = new_manager();
    if (!g_inside.m || camcore_capturer_open(g_inside.m, "synthetic:1", &cap) != CAMCORE_OK)
        return 1;
    n = counter_frames(&c);
    camcore_capturer_start(cap, &cfg, &cb);
    ok &= frames_after(&c, n);
    if (!capturer_retired(cap)) {
        printf("     child: the capturer handle still answers 5 s after the free inside its callback (%s)\n",
               camcore_last_error_message());
        ok = 0;
    }
    sleep_ms(200);
    printf("     child: manager_free inside a capturer callback: %u frame(s)\n", counter_frames(&c) - n);
    ok &= counter_frames(&c) == n + 1;
    camcore_capturer_close(cap);
    printf("     child: %s\n", ok ? "freed from inside, nothing after" : "FAILED");
    return ok ? 0 : 1;
}

/* ------------------------------------------------------------------ */

static const char *setup(void)
{
    static char why[256];

    unsetenv("CAMCORE_SYNTHETIC_CAMERA");
    g_manager = new_manager();
    if (!g_manager) {
        snprintf(why, sizeof why, "no manager: %s", camcore_last_error_message());
        return why;
    }
    return NULL;
}

static void teardown(void)
{
    camcore_manager_free(g_manager);
}

static const struct testlib_test tests[] = {
    TESTLIB_TEST(test_S31_stale_capturer_handle_never_reaches_a_new_one),
    TESTLIB_TEST(test_S31_stale_manager_handle_never_reaches_a_new_one),
    TESTLIB_TEST(test_S31_stale_session_handle_never_reaches_a_new_one),
    TESTLIB_TEST(test_S17_zero_rate_and_size_refused_at_the_call),
    TESTLIB_TEST(test_S14_previews_capped_at_max),
    TESTLIB_TEST(test_S31_manager_free_stops_its_capturers_and_sessions),
    TESTLIB_CHILD("S31_manager_free_inside_callbacks", child_manager_free_inside_callbacks,
                  "S31 manager_free inside a child's callback returns, nothing follows, it finishes"),
};

static const struct testlib_suite suite = {
    tests, TESTLIB_COUNT(tests), 180, setup, teardown, 20, 30,
};

int main(int argc, char **argv)
{
    return testlib_main(argc, argv, &suite);
}
