// SPDX-License-Identifier: MIT
/*
 * test_threads.c — thread hooks (camcore_set_thread_hooks) through
 * camcore.h only, on the synthetic camera.
 *
 * What it asserts:
 *   - a capturer started with callbacks runs on_thread_start once on its
 *     capture thread, named "camcore-capture" (the hook's name and the
 *     thread's own PR_GET_NAME), before the first on_frame on that same
 *     thread, and on_thread_stop once on it after the last on_frame, by
 *     the time camcore_capturer_stop returns
 *   - a pull capturer's thread is "camcore-pull" and calls no on_frame
 *   - hooks replaced while a capture runs: that thread still ends with the
 *     hooks it started with; the new ones see only threads started later;
 *     NULL removes them (no hook runs for a later capture)
 *   - a struct_size below the first version's is CAMCORE_E_INVALID_ARG
 *     naming camcore_thread_hooks_init, and the hooks in place stay
 *
 * The last line is "N passed, M failed"; exit 0 only if M is 0.
 *
 * Build:  cc -std=c99 test_threads.c testlib.c $(pkg-config --cflags --libs camcore) -pthread
 */
#define _GNU_SOURCE

#include "testlib.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

static camcore_manager *g_manager;
static char g_id[64];

/* What one set of hooks saw. */
struct seen {
    pthread_mutex_t lock;
    int starts, stops;
    char start_name[32], stop_name[32], own_name[32];
    pthread_t start_thread, stop_thread;
    int frames_after_stop;     /* on_frame calls seen after on_thread_stop */
    int others;                /* starts of threads that deliver no frames (queue, hot-plug, ...) */
};

static struct seen g_a = { .lock = PTHREAD_MUTEX_INITIALIZER }, g_b = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void reset(struct seen *s)
{
    pthread_mutex_lock(&s->lock);
    s->starts = s->stops = s->frames_after_stop = s->others = 0;
    s->start_name[0] = s->stop_name[0] = s->own_name[0] = 0;
    pthread_mutex_unlock(&s->lock);
}

/* The threads a capturer starts; others (the camera queue, hot-plug) are
 * counted apart: when they start is not this test's business. */
static int is_capture(const char *name)
{
    return name && (!strcmp(name, "camcore-capture") || !strcmp(name, "camcore-pull"));
}

static void on_start(void *user_data, const char *name)
{
    struct seen *s = user_data;
    pthread_mutex_lock(&s->lock);
    if (!is_capture(name)) {
        s->others++;
        pthread_mutex_unlock(&s->lock);
        return;
    }
    s->starts++;
    snprintf(s->start_name, sizeof s->start_name, "%s", name ? name : "(null)");
    prctl(PR_GET_NAME, (unsigned long)s->own_name, 0, 0, 0);
    s->start_thread = pthread_self();
    pthread_mutex_unlock(&s->lock);
}

static void on_stop(void *user_data, const char *name)
{
    struct seen *s = user_data;
    pthread_mutex_lock(&s->lock);
    if (!is_capture(name)) {
        pthread_mutex_unlock(&s->lock);
        return;
    }
    s->stops++;
    snprintf(s->stop_name, sizeof s->stop_name, "%s", name ? name : "(null)");
    s->stop_thread = pthread_self();
    pthread_mutex_unlock(&s->lock);
}

/* on_frame's view: which hooks' thread it runs on. */
struct frames {
    struct seen *hooks;
    atomic_int count;
    pthread_t thread;
    int same_thread;   /* every frame on the start hook's thread */
};

static void on_frame(void *user_data, const camcore_frame *f)
{
    struct frames *fr = user_data;
    struct seen *s = fr->hooks;
    (void)f;
    pthread_mutex_lock(&s->lock);
    if (s->stops > 0)
        s->frames_after_stop++;
    if (s->starts == 0 || !pthread_equal(s->start_thread, pthread_self()))
        fr->same_thread = 0;
    pthread_mutex_unlock(&s->lock);
    fr->thread = pthread_self();
    atomic_fetch_add(&fr->count, 1);
}

static camcore_thread_hooks hooks_for(struct seen *s)
{
    camcore_thread_hooks h;
    camcore_thread_hooks_init(&h);
    h.user_data = s;
    h.on_thread_start = on_start;
    h.on_thread_stop = on_stop;
    return h;
}

static int wait_frames(struct frames *fr, int n)
{
    uint64_t end = now_ns() + 5000000000ull;
    while (atomic_load(&fr->count) < n && now_ns() < end)
        sleep_ms(5);
    return atomic_load(&fr->count) >= n;
}

static camcore_capturer *start_callbacks(struct frames *fr)
{
    camcore_capturer *c = NULL;
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC('Y', 'U', 'Y', 'V'), 160, 120, 60);
    camcore_frame_callbacks cb;

    CHECK_STATUS(camcore_capturer_open(g_manager, g_id, &c), CAMCORE_OK, "camcore_capturer_open");
    camcore_frame_callbacks_init(&cb);
    cb.user_data = fr;
    cb.on_frame = on_frame;
    CHECK_STATUS(camcore_capturer_start(c, &cfg, &cb), CAMCORE_OK, "camcore_capturer_start");
    return c;
}

static void threads_capture_thread_runs_the_hooks_around_its_frames(void)
{
    camcore_thread_hooks h = hooks_for(&g_a);
    struct frames fr = { &g_a, 0, 0, 1 };
    camcore_capturer *c;

    reset(&g_a);
    CHECK_STATUS(camcore_set_thread_hooks(&h), CAMCORE_OK, "camcore_set_thread_hooks");
    c = start_callbacks(&fr);
    CHECK(wait_frames(&fr, 5), "5 frames arrive (got %d)", atomic_load(&fr.count));
    CHECK_STATUS(camcore_capturer_stop(c), CAMCORE_OK, "camcore_capturer_stop");
    pthread_mutex_lock(&g_a.lock);
    CHECK(g_a.starts == 1 && g_a.stops == 1, "one start and one stop for the capture thread (got %d, %d)",
          g_a.starts, g_a.stops);
    CHECK(!strcmp(g_a.start_name, "camcore-capture") && !strcmp(g_a.stop_name, "camcore-capture"),
          "the hooks are told \"camcore-capture\" (got \"%s\", \"%s\")", g_a.start_name, g_a.stop_name);
    CHECK(!strcmp(g_a.own_name, "camcore-capture"), "the thread itself is named camcore-capture (got \"%s\")",
          g_a.own_name);
    CHECK(fr.same_thread, "every on_frame ran on the thread the start hook ran on");
    CHECK(pthread_equal(g_a.stop_thread, fr.thread), "the stop hook ran on the capture thread");
    CHECK(g_a.frames_after_stop == 0, "no on_frame after the stop hook (got %d)", g_a.frames_after_stop);
    pthread_mutex_unlock(&g_a.lock);
    camcore_capturer_close(c);
}

static void threads_pull_thread_is_named_camcore_pull(void)
{
    camcore_thread_hooks h = hooks_for(&g_a);
    camcore_capturer *c = NULL;
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC('Y', 'U', 'Y', 'V'), 160, 120, 60);
    const camcore_frame *f = NULL;

    reset(&g_a);
    CHECK_STATUS(camcore_set_thread_hooks(&h), CAMCORE_OK, "camcore_set_thread_hooks");
    CHECK_STATUS(camcore_capturer_open(g_manager, g_id, &c), CAMCORE_OK, "camcore_capturer_open");
    CHECK_STATUS(camcore_capturer_start_pull(c, &cfg, 2), CAMCORE_OK, "camcore_capturer_start_pull");
    CHECK_STATUS(camcore_capturer_acquire_frame(c, 3000, &f), CAMCORE_OK, "acquire a frame");
    if (f)
        camcore_frame_release(f);
    CHECK_STATUS(camcore_capturer_stop(c), CAMCORE_OK, "camcore_capturer_stop");
    pthread_mutex_lock(&g_a.lock);
    CHECK(g_a.starts == 1 && g_a.stops == 1 && !strcmp(g_a.start_name, "camcore-pull") &&
              !strcmp(g_a.stop_name, "camcore-pull"),
          "one \"camcore-pull\" thread (got %d/%d \"%s\" \"%s\")", g_a.starts, g_a.stops, g_a.start_name,
          g_a.stop_name);
    pthread_mutex_unlock(&g_a.lock);
    camcore_capturer_close(c);
}

static void threads_replaced_hooks_still_end_their_threads(void)
{
    camcore_thread_hooks a = hooks_for(&g_a), b = hooks_for(&g_b);
    struct frames fa = { &g_a, 0, 0, 1 }, fb = { &g_b, 0, 0, 1 }, fn = { &g_b, 0, 0, 1 };
    camcore_capturer *c1, *c2, *c3;

    reset(&g_a);
    reset(&g_b);
    CHECK_STATUS(camcore_set_thread_hooks(&a), CAMCORE_OK, "install hooks A");
    c1 = start_callbacks(&fa);
    CHECK(wait_frames(&fa, 2), "capture 1 runs");
    CHECK_STATUS(camcore_set_thread_hooks(&b), CAMCORE_OK, "replace them with hooks B");
    c2 = start_callbacks(&fb);
    CHECK(wait_frames(&fb, 2), "capture 2 runs");
    camcore_capturer_stop(c1);
    camcore_capturer_stop(c2);
    pthread_mutex_lock(&g_a.lock);
    pthread_mutex_lock(&g_b.lock);
    CHECK(g_a.starts == 1 && g_a.stops == 1, "hooks A: the thread they began ended with them (%d, %d)",
          g_a.starts, g_a.stops);
    CHECK(g_b.starts == 1 && g_b.stops == 1, "hooks B: only the later thread (%d, %d)", g_b.starts, g_b.stops);
    pthread_mutex_unlock(&g_b.lock);
    pthread_mutex_unlock(&g_a.lock);

    /* Removed: a later capture runs no hook. */
    CHECK_STATUS(camcore_set_thread_hooks(NULL), CAMCORE_OK, "remove the hooks");
    reset(&g_b);
    c3 = start_callbacks(&fn);
    CHECK(wait_frames(&fn, 2), "capture 3 runs without hooks");
    camcore_capturer_stop(c3);
    pthread_mutex_lock(&g_b.lock);
    CHECK(g_b.starts == 0 && g_b.stops == 0, "no hook ran after removal (%d, %d)", g_b.starts, g_b.stops);
    pthread_mutex_unlock(&g_b.lock);
    camcore_capturer_close(c1);
    camcore_capturer_close(c2);
    camcore_capturer_close(c3);
}

static void threads_a_short_struct_is_refused_and_keeps_the_hooks(void)
{
    camcore_thread_hooks a = hooks_for(&g_a), bad = hooks_for(&g_b);
    struct frames fr = { &g_a, 0, 0, 1 };
    camcore_capturer *c;

    reset(&g_a);
    reset(&g_b);
    CHECK_STATUS(camcore_set_thread_hooks(&a), CAMCORE_OK, "install hooks A");
    bad.struct_size = 4;
    CHECK_STATUS(camcore_set_thread_hooks(&bad), CAMCORE_E_INVALID_ARG, "struct_size 4");
    CHECK(strstr(camcore_last_error_message(), "camcore_thread_hooks_init") != NULL,
          "the message names camcore_thread_hooks_init: \"%s\"", camcore_last_error_message());
    c = start_callbacks(&fr);
    CHECK(wait_frames(&fr, 2), "a capture still runs");
    camcore_capturer_stop(c);
    pthread_mutex_lock(&g_a.lock);
    CHECK(g_a.starts == 1 && g_a.stops == 1, "hooks A stayed in place (%d, %d)", g_a.starts, g_a.stops);
    pthread_mutex_unlock(&g_a.lock);
    CHECK(g_b.starts == 0, "the refused hooks never ran");
    camcore_capturer_close(c);
    camcore_set_thread_hooks(NULL);
}

static const char *setup(void)
{
    return testlib_synthetic_manager(&g_manager, g_id, sizeof g_id);
}

static void teardown(void)
{
    camcore_set_thread_hooks(NULL);
    camcore_manager_free(g_manager);
}

static const struct testlib_test tests[] = {
    TESTLIB_TEST(threads_capture_thread_runs_the_hooks_around_its_frames),
    TESTLIB_TEST(threads_pull_thread_is_named_camcore_pull),
    TESTLIB_TEST(threads_replaced_hooks_still_end_their_threads),
    TESTLIB_TEST(threads_a_short_struct_is_refused_and_keeps_the_hooks),
};

static const struct testlib_suite suite = {
    tests, TESTLIB_COUNT(tests), 60, setup, teardown, 20, 30,
};

int main(int argc, char **argv)
{
    return testlib_main(argc, argv, &suite);
}
