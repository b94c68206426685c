// SPDX-License-Identifier: MIT
/*
 * test_pull.c — pull mode (SPEC S36) through camcore.h only, on the
 * synthetic camera.
 *
 * What it asserts:
 *   S36  camcore_capturer_start_pull + camcore_capturer_acquire_frame give
 *        YUYV 160x120 frames with rising sequence numbers and timestamps;
 *        each is released with camcore_frame_release
 *   S36  the frame fd polls readable while a frame waits and not once the
 *        queue is empty
 *   S36  a reader that sleeps loses the oldest frames: the two it gets
 *        then are consecutive and recent, and frames_dropped counts the rest
 *   S36  more acquired frames than queue_depth: CAMCORE_E_STATE, one
 *        release lets the next through; a pulled frame can be retained
 *   S36  a pull preview of a session turns the camera on, its fd becomes
 *        readable, its frames rise; after removal acquire is INVALID_ARG
 *   S37  frames carry no DMA-BUF fd (-1) unless asked; asking on the
 *        synthetic camera is CAMCORE_E_NOT_SUPPORTED
 *   S36  camcore_capturer_next_frame: a loop holding one frame at a time
 *        gets rising sequences; a pointer that is no frame is refused with
 *        nothing taken; on failure *frame is NULL and the old one released
 *   S36  camcore_session_next_preview_frame: the same loop on a session's
 *        pull preview at depth 1 (rising sequences, refusals as above)
 *   S36  refusals: acquire on a callback capturer, before start and after
 *        stop (CAMCORE_E_STATE), depth 0 and 9, NULL out (INVALID_ARG),
 *        acquire with 0 timeout and nothing ready (CAMCORE_E_TIMEOUT)
 *
 * The last line is "N passed, M failed"; exit 0 only if M is 0.
 *
 * Build:  cc -std=c99 test_pull.c testlib.c $(pkg-config --cflags --libs camcore) -pthread
 */
#define _POSIX_C_SOURCE 200809L

#include "testlib.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static camcore_manager *g_manager;
static char g_id[64];

static camcore_capturer *open_synthetic(void)
{
    camcore_capturer *c = NULL;

    CHECK_STATUS(camcore_capturer_open(g_manager, g_id, &c), CAMCORE_OK, "camcore_capturer_open");
    return c;
}

static int readable(int fd, int timeout_ms)
{
    struct pollfd p = { fd, POLLIN, 0 };
    return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

static void test_S36_acquire_gives_rising_frames(void)
{
    camcore_capturer *c = open_synthetic();
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC('Y', 'U', 'Y', 'V'), 160, 120, 60);
    uint32_t last_seq = 0;
    uint64_t last_ts = 0;
    int i;

    if (!c)
        return;
    CHECK_STATUS(camcore_capturer_start_pull(c, &cfg, 2), CAMCORE_OK, "start_pull depth 2");
    for (i = 0; i < 10; i++) {
        const camcore_frame *f = NULL;
        CHECK_STATUS(camcore_capturer_acquire_frame(c, 2000, &f), CAMCORE_OK, "acquire");
        if (!f)
            break;
        CHECK(f->fourcc == CAMCORE_FOURCC('Y', 'U', 'Y', 'V') && f->width == 160 && f->height == 120,
              "frame %d: fourcc 0x%08x %ux%u", i, f->fourcc, f->width, f->height);
        CHECK(f->planes[0].data != NULL && f->planes[0].length >= 160 * 2 * 120, "frame %d: plane 0", i);
        CHECK(f->dmabuf_fd[0] == -1 && f->dmabuf_fd[1] == -1 && f->dmabuf_fd[2] == -1,
              "frame %d: no DMA-BUF unless asked (S37): %d", i, f->dmabuf_fd[0]);
        if (i > 0)
            CHECK(f->sequence > last_seq && f->timestamp_ns > last_ts, "frame %d: sequence %u after %u", i,
                  f->sequence, last_seq);
        last_seq = f->sequence;
        last_ts = f->timestamp_ns;
        camcore_frame_release(f);
    }
    CHECK_STATUS(camcore_capturer_stop(c), CAMCORE_OK, "stop");
    camcore_capturer_close(c);
}

static void test_S36_frame_fd_follows_the_queue(void)
{
    camcore_capturer *c = open_synthetic();
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC('Y', 'U', 'Y', 'V'), 160, 120, 5);
    const camcore_frame *f = NULL, *held[2] = { NULL, NULL };
    int32_t fd = -1;
    int n = 0;

    if (!c)
        return;
    CHECK_STATUS(camcore_capturer_start_pull(c, &cfg, 2), CAMCORE_OK, "start_pull at 5 fps");
    CHECK_STATUS(camcore_capturer_get_frame_fd(c, &fd), CAMCORE_OK, "get_frame_fd");
    CHECK(fd >= 0 && readable(fd, 3000), "fd %d readable within 3 s", fd);
    while (n < 2 && camcore_capturer_acquire_frame(c, 0, &f) == CAMCORE_OK)
        held[n++] = f;
    CHECK(n >= 1, "a frame was ready when the fd said so");
    if (n < 2) {
        CHECK(!readable(fd, 0), "not readable once the queue is empty");
    }
    while (n > 0)
        camcore_frame_release(held[--n]);
    CHECK(readable(fd, 3000), "readable again with the next frame");
    camcore_capturer_close(c);
}

static void test_S36_a_slow_reader_loses_the_oldest(void)
{
    camcore_capturer *c = open_synthetic();
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC('Y', 'U', 'Y', 'V'), 160, 120, 60);
    const camcore_frame *a = NULL, *b = NULL;
    camcore_capture_stats st;

    if (!c)
        return;
    CHECK_STATUS(camcore_capturer_start_pull(c, &cfg, 2), CAMCORE_OK, "start_pull");
    sleep_ms(600);
    CHECK_STATUS(camcore_capturer_acquire_frame(c, 1000, &a), CAMCORE_OK, "acquire a");
    CHECK_STATUS(camcore_capturer_acquire_frame(c, 1000, &b), CAMCORE_OK, "acquire b");
    if (a && b) {
        CHECK(b->sequence == a->sequence + 1, "the newest two in order: %u then %u", a->sequence, b->sequence);
        CHECK(a->sequence >= 20, "old frames given up (first kept: %u)", a->sequence);
        memset(&st, 0, sizeof st);
        st.struct_size = sizeof st;
        CHECK_STATUS(camcore_capturer_get_stats(c, &st), CAMCORE_OK, "get_stats");
        CHECK(st.frames_dropped + 2 >= a->sequence, "frames_dropped %llu for first kept %u",
              (unsigned long long)st.frames_dropped, a->sequence);
    }
    camcore_frame_release(a);
    camcore_frame_release(b);
    camcore_capturer_close(c);
}

static void test_S36_held_limit_and_retain(void)
{
    camcore_capturer *c = open_synthetic();
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC('Y', 'U', 'Y', 'V'), 160, 120, 60);
    const camcore_frame *a = NULL, *b = NULL, *extra = NULL, *kept = NULL;

    if (!c)
        return;
    CHECK_STATUS(camcore_capturer_start_pull(c, &cfg, 1), CAMCORE_OK, "start_pull depth 1");
    CHECK_STATUS(camcore_capturer_acquire_frame(c, 2000, &a), CAMCORE_OK, "acquire a");
    CHECK_STATUS(camcore_capturer_acquire_frame(c, 200, &extra), CAMCORE_E_STATE, "a second held frame, depth 1");
    CHECK(extra == NULL, "no frame on failure");
    kept = a ? camcore_frame_retain(a) : NULL;
    CHECK(kept != NULL, "a pulled frame can be retained: %s", camcore_last_error_message());
    camcore_frame_release(a);
    CHECK_STATUS(camcore_capturer_acquire_frame(c, 200, &b), CAMCORE_E_STATE, "still held through the retain");
    camcore_frame_release(kept);
    CHECK_STATUS(camcore_capturer_acquire_frame(c, 2000, &b), CAMCORE_OK, "released: the next comes");
    camcore_frame_release(b);
    camcore_capturer_close(c);
}

static void test_S36_next_frame_loop(void)
{
    camcore_capturer *c = open_synthetic();
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC('Y', 'U', 'Y', 'V'), 160, 120, 60);
    const camcore_frame *f = NULL;
    const camcore_frame *bogus = (const camcore_frame *)&cfg;
    uint32_t last_seq = 0;
    int n = 0;

    if (!c)
        return;
    CHECK_STATUS(camcore_capturer_next_frame(c, 0, &f), CAMCORE_E_STATE, "next_frame before start");
    CHECK(f == NULL, "no frame before start");
    CHECK_STATUS(camcore_capturer_start_pull(c, &cfg, 1), CAMCORE_OK, "start_pull depth 1");
    CHECK_STATUS(camcore_capturer_next_frame(c, 1000, NULL), CAMCORE_E_INVALID_ARG, "NULL frame pointer");
    /* depth 1: each call must release the previous frame or the next is refused */
    while (n < 12 && camcore_capturer_next_frame(c, 2000, &f) == CAMCORE_OK) {
        CHECK(f != NULL && f->fourcc == CAMCORE_FOURCC('Y', 'U', 'Y', 'V') && f->width == 160,
              "loop frame %d", n);
        if (n > 0)
            CHECK(f->sequence > last_seq, "loop frame %d: sequence %u after %u", n, f->sequence, last_seq);
        last_seq = f->sequence;
        n++;
    }
    CHECK(n == 12, "12 frames through next_frame at depth 1, got %d", n);
    {
        const camcore_frame *kept = f;
        CHECK_STATUS(camcore_capturer_next_frame(c, 1000, &bogus), CAMCORE_E_INVALID_ARG, "a pointer that is no frame");
        CHECK(bogus == (const camcore_frame *)&cfg, "a refused pointer is left as it was");
        /* nothing was taken: the held frame is still the one allowed */
        CHECK_STATUS(camcore_capturer_acquire_frame(c, 0, &bogus), CAMCORE_E_STATE, "still one frame held");
        CHECK(kept->sequence == last_seq, "the held frame is intact");
    }
    CHECK_STATUS(camcore_capturer_stop(c), CAMCORE_OK, "stop");
    CHECK_STATUS(camcore_capturer_next_frame(c, 0, &f), CAMCORE_E_STATE, "next_frame after stop");
    CHECK(f == NULL, "the old frame was released and *frame cleared");
    camcore_capturer_close(c);
}

static void on_frame(void *user, const camcore_frame *f)
{
    (void)user;
    (void)f;
}

static void test_S36_refusals(void)
{
    camcore_capturer *c = open_synthetic();
    camcore_capture_config cfg = config_for(CAMCORE_FOURCC('Y', 'U', 'Y', 'V'), 160, 120, 60);
    camcore_frame_callbacks cb;
    const camcore_frame *f = NULL;
    int32_t fd;

    if (!c)
        return;
    CHECK_STATUS(camcore_capturer_acquire_frame(c, 0, &f), CAMCORE_E_STATE, "acquire before start");
    CHECK_STATUS(camcore_capturer_start_pull(c, &cfg, 0), CAMCORE_E_INVALID_ARG, "depth 0");
    CHECK_STATUS(camcore_capturer_start_pull(c, &cfg, 9), CAMCORE_E_INVALID_ARG, "depth 9");
    cfg.dmabuf = 1;
    CHECK_STATUS(camcore_capturer_start_pull(c, &cfg, 2), CAMCORE_E_NOT_SUPPORTED,
                 "S37 DMA-BUF on the synthetic camera");
    cfg.dmabuf = 0;
    camcore_frame_callbacks_init(&cb);
    cb.on_frame = on_frame;
    CHECK_STATUS(camcore_capturer_start(c, &cfg, &cb), CAMCORE_OK, "start with callbacks");
    CHECK_STATUS(camcore_capturer_acquire_frame(c, 0, &f), CAMCORE_E_STATE, "acquire with callbacks");
    CHECK_STATUS(camcore_capturer_get_frame_fd(c, &fd), CAMCORE_E_STATE, "frame fd with callbacks");
    CHECK_STATUS(camcore_capturer_stop(c), CAMCORE_OK, "stop");
    cfg.fps.numerator = 1; /* one frame a second: nothing ready at once */
    CHECK_STATUS(camcore_capturer_start_pull(c, &cfg, 2), CAMCORE_OK, "start_pull at 1 fps");
    CHECK_STATUS(camcore_capturer_acquire_frame(c, 0, NULL), CAMCORE_E_INVALID_ARG, "NULL out");
    CHECK_STATUS(camcore_capturer_stop(c), CAMCORE_OK, "stop pull");
    CHECK_STATUS(camcore_capturer_acquire_frame(c, 0, &f), CAMCORE_E_STATE, "acquire after stop");
    CHECK_STATUS(camcore_capturer_start_pull(c, &cfg, 2), CAMCORE_OK, "start_pull again");
    CHECK_STATUS(camcore_capturer_acquire_frame(c, 2000, &f), CAMCORE_OK, "usable after the refusals");
    camcore_frame_release(f);
    camcore_capturer_close(c);
}

/* A session on the synthetic camera preferring 160x120 at up to 60 fps. */
static camcore_session *small_session(camcore_session_config *sc)
{
    camcore_session *s = NULL;

    camcore_session_config_init(sc);
    sc->device_id = g_id;
    sc->preference.width = 160;
    sc->preference.height = 120;
    sc->preference.max_fps.numerator = 60;
    CHECK_STATUS(camcore_session_new(g_manager, sc, &s), CAMCORE_OK, "camcore_session_new");
    return s;
}

static void test_S36_session_pull_preview(void)
{
    camcore_session_config sc;
    camcore_session *s = NULL;
    camcore_session_state st;
    const camcore_frame *f = NULL;
    uint32_t pid = 0, last = 0;
    int32_t fd = -1;
    int i;

    s = small_session(&sc);
    if (!s)
        return;
    CHECK_STATUS(camcore_session_add_preview_pull(s, 0, &pid), CAMCORE_E_INVALID_ARG, "depth 0");
    CHECK_STATUS(camcore_session_add_preview_pull(s, 2, &pid), CAMCORE_OK, "add_preview_pull");
    CHECK(pid != 0, "a preview id");
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    CHECK_STATUS(camcore_session_get_state(s, &st), CAMCORE_OK, "get_state");
    CHECK(st.camera_on == 1 && st.preview_count == 1, "a pull preview turns the camera on (S9): on %d previews %u",
          st.camera_on, st.preview_count);
    CHECK_STATUS(camcore_session_get_preview_fd(s, pid, &fd), CAMCORE_OK, "get_preview_fd");
    CHECK(fd >= 0 && readable(fd, 3000), "the preview fd becomes readable");
    for (i = 0; i < 3; i++) {
        CHECK_STATUS(camcore_session_acquire_preview_frame(s, pid, 2000, &f), CAMCORE_OK, "acquire preview frame");
        if (!f)
            break;
        CHECK(f->width == 160 && f->height == 120 && (i == 0 || f->sequence > last), "frame %d: %ux%u seq %u", i,
              f->width, f->height, f->sequence);
        last = f->sequence;
        camcore_frame_release(f);
    }
    CHECK_STATUS(camcore_session_remove_preview(s, pid), CAMCORE_OK, "remove the pull preview");
    CHECK_STATUS(camcore_session_acquire_preview_frame(s, pid, 0, &f), CAMCORE_E_INVALID_ARG, "acquire after removal");
    CHECK_STATUS(camcore_session_acquire_preview_frame(s, 12345, 0, &f), CAMCORE_E_INVALID_ARG, "unknown preview id");
    camcore_session_free(s);
}

/* S36: the same one-call loop for a session's pull preview as for a
 * capturer: next_preview_frame gives back the previous frame and takes the
 * next, at depth 1 too (each call must release or the next is refused). */
static void test_S36_session_next_preview_frame_loop(void)
{
    camcore_session_config sc;
    camcore_session *s = NULL;
    const camcore_frame *f = NULL;
    const camcore_frame *bogus;
    uint32_t pid = 0, last_seq = 0;
    int n = 0;

    s = small_session(&sc);
    if (!s)
        return;
    bogus = (const camcore_frame *)&sc;
    CHECK_STATUS(camcore_session_add_preview_pull(s, 1, &pid), CAMCORE_OK, "add_preview_pull depth 1");
    CHECK_STATUS(camcore_session_next_preview_frame(s, pid, 1000, NULL), CAMCORE_E_INVALID_ARG, "NULL frame pointer");
    while (n < 12 && camcore_session_next_preview_frame(s, pid, 2000, &f) == CAMCORE_OK) {
        CHECK(f != NULL && f->width == 160 && f->height == 120, "loop frame %d", n);
        if (n > 0)
            CHECK(f->sequence > last_seq, "loop frame %d: sequence %u after %u", n, f->sequence, last_seq);
        last_seq = f->sequence;
        n++;
    }
    CHECK(n == 12, "12 preview frames through next_preview_frame at depth 1, got %d", n);
    CHECK_STATUS(camcore_session_next_preview_frame(s, pid, 1000, &bogus), CAMCORE_E_INVALID_ARG,
                 "a pointer that is no frame");
    CHECK(bogus == (const camcore_frame *)&sc, "a refused pointer is left as it was");
    CHECK_STATUS(camcore_session_next_preview_frame(s, 12345, 0, &f), CAMCORE_E_INVALID_ARG, "unknown preview id");
    CHECK(f == NULL, "the held frame was released and *frame cleared");
    CHECK_STATUS(camcore_session_remove_preview(s, pid), CAMCORE_OK, "remove the pull preview");
    camcore_session_free(s);
}

static const char *setup(void)
{
    return testlib_synthetic_manager(&g_manager, g_id, sizeof g_id);
}

static void teardown(void)
{
    camcore_manager_free(g_manager);
}

static const struct testlib_test tests[] = {
    TESTLIB_TEST(test_S36_acquire_gives_rising_frames),
    TESTLIB_TEST(test_S36_frame_fd_follows_the_queue),
    TESTLIB_TEST(test_S36_a_slow_reader_loses_the_oldest),
    TESTLIB_TEST(test_S36_held_limit_and_retain),
    TESTLIB_TEST(test_S36_next_frame_loop),
    TESTLIB_TEST(test_S36_refusals),
    TESTLIB_TEST(test_S36_session_pull_preview),
    TESTLIB_TEST(test_S36_session_next_preview_frame_loop),
};

static const struct testlib_suite suite = {
    tests, TESTLIB_COUNT(tests), 120, setup, teardown, 20, 30,
};

int main(int argc, char **argv)
{
    return testlib_main(argc, argv, &suite);
}
