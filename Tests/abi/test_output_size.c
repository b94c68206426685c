// SPDX-License-Identifier: MIT
/*
 * test_output_size.c — an output size (SPEC S38) through camcore.h only,
 * on the synthetic camera (it offers YUYV, I420 and NV12, no MJPEG: the
 * MJPEG DCT-scale path is checked in the Swift tests and the bench).
 *
 * What it asserts:
 *   S38  YUYV 640x480 captured, I420 320x240 delivered by callbacks: every
 *        frame's width, height, strides and plane lengths are the output
 *        size's, sequence numbers rise; camcore_capturer_get_format() says
 *        320x240 with those strides and frame_bytes, source_fourcc YUYV
 *   S38  pull mode, NV12 640x480 to NV12 160x90 (stretched, same format
 *        scaled): the same for acquired frames; no DMA-BUF fd on them
 *   S38  bad configs are CAMCORE_E_INVALID_ARG with a last-error message,
 *        and the capturer captures afterwards: no output_fourcc, one side
 *        0, an odd side for I420/NV12, a side above 16384, more than 4x
 *        the captured size (refused at start)
 *   S38  an older struct_size (ending before output_width) ignores the
 *        bytes there: the negotiated size is delivered
 *   S38  a session with preference.output_fourcc I420 and an output size:
 *        a pull preview's frames are that size; a session config with a
 *        size but no output format is refused by camcore_session_new
 *
 * The last line is "N passed, M failed"; exit 0 only if M is 0.
 *
 * Build:  cc -std=c99 test_output_size.c testlib.c $(pkg-config --cflags --libs camcore) -pthread
 */
#define _POSIX_C_SOURCE 200809L

#include "testlib.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define YUYV CAMCORE_FOURCC('Y', 'U', 'Y', 'V')
#define I420 CAMCORE_FOURCC('Y', 'U', '1', '2')
#define NV12 CAMCORE_FOURCC('N', 'V', '1', '2')

static camcore_manager *g_manager;
static char g_id[64];

struct seen {
    pthread_mutex_t lock;
    int frames, bad;
    uint32_t last_seq;
    int rising;
    char why[200];
};

static void on_frame(void *user_data, const camcore_frame *f)
{
    struct seen *s = user_data;
    int ok = f->fourcc == I420 && f->width == 320 && f->height == 240 && f->plane_count == 3 &&
             f->planes[0].stride == 320 && f->planes[0].length == 320 * 240 && f->planes[1].stride == 160 &&
             f->planes[1].length == 160 * 120 && f->planes[2].stride == 160 && f->planes[2].length == 160 * 120 &&
             f->planes[0].data != NULL && f->dmabuf_fd[0] == -1;
    pthread_mutex_lock(&s->lock);
    if (!ok && !s->bad) {
        snprintf(s->why, sizeof s->why, "0x%08x %ux%u planes %u strides %u/%u lengths %u/%u", f->fourcc, f->width,
                 f->height, f->plane_count, f->planes[0].stride, f->planes[1].stride, f->planes[0].length,
                 f->planes[1].length);
        s->bad = 1;
    }
    if (s->frames > 0 && f->sequence <= s->last_seq)
        s->rising = 0;
    s->last_seq = f->sequence;
    s->frames++;
    pthread_mutex_unlock(&s->lock);
}

static camcore_capturer *open_synthetic(void)
{
    camcore_capturer *c = NULL;

    CHECK_STATUS(camcore_capturer_open(g_manager, g_id, &c), CAMCORE_OK, "camcore_capturer_open");
    return c;
}

static void test_S38_callbacks_get_the_output_size(void)
{
    camcore_capturer *c = open_synthetic();
    camcore_capture_config cfg = config_for(YUYV, 640, 480, 60);
    camcore_frame_callbacks cb;
    camcore_capture_format fmt;
    struct seen s;
    int i, n = 0;

    if (!c)
        return;
    memset(&s, 0, sizeof s);
    pthread_mutex_init(&s.lock, NULL);
    s.rising = 1;
    cfg.output_fourcc = I420;
    cfg.output_width = 320;
    cfg.output_height = 240;
    camcore_frame_callbacks_init(&cb);
    cb.user_data = &s;
    cb.on_frame = on_frame;
    CHECK_STATUS(camcore_capturer_start(c, &cfg, &cb), CAMCORE_OK, "start YUYV 640x480 -> I420 320x240");
    memset(&fmt, 0, sizeof fmt);
    fmt.struct_size = sizeof fmt;
    CHECK_STATUS(camcore_capturer_get_format(c, &fmt), CAMCORE_OK, "get_format");
    CHECK(fmt.fourcc == I420 && fmt.source_fourcc == YUYV && fmt.width == 320 && fmt.height == 240 &&
              fmt.plane_count == 3 && fmt.strides[0] == 320 && fmt.strides[1] == 160 && fmt.strides[2] == 160 &&
              fmt.frame_bytes == 320 * 240 * 3 / 2 && fmt.adjusted == 0,
          "format: 0x%08x from 0x%08x %ux%u strides %u/%u/%u bytes %u adjusted %u", fmt.fourcc, fmt.source_fourcc,
          fmt.width, fmt.height, fmt.strides[0], fmt.strides[1], fmt.strides[2], fmt.frame_bytes, fmt.adjusted);
    for (i = 0; i < 300 && n < 6; i++) {
        sleep_ms(10);
        pthread_mutex_lock(&s.lock);
        n = s.frames;
        pthread_mutex_unlock(&s.lock);
    }
    CHECK_STATUS(camcore_capturer_stop(c), CAMCORE_OK, "stop");
    CHECK(s.frames >= 6, "frames delivered: %d", s.frames);
    CHECK(!s.bad, "every frame I420 320x240 with its strides and lengths: first bad %s", s.why);
    CHECK(s.rising, "sequence numbers rise");
    camcore_capturer_close(c);
    pthread_mutex_destroy(&s.lock);
}

static void test_S38_pull_gets_the_output_size(void)
{
    camcore_capturer *c = open_synthetic();
    camcore_capture_config cfg = config_for(NV12, 640, 480, 60);
    uint32_t last = 0;
    int i;

    if (!c)
        return;
    cfg.output_fourcc = NV12;
    cfg.output_width = 160;
    cfg.output_height = 90;
    CHECK_STATUS(camcore_capturer_start_pull(c, &cfg, 2), CAMCORE_OK, "start_pull NV12 640x480 -> 160x90");
    for (i = 0; i < 5; i++) {
        const camcore_frame *f = NULL;
        CHECK_STATUS(camcore_capturer_acquire_frame(c, 2000, &f), CAMCORE_OK, "acquire");
        if (!f)
            break;
        CHECK(f->fourcc == NV12 && f->width == 160 && f->height == 90 && f->plane_count == 2 &&
                  f->planes[0].stride == 160 && f->planes[0].length == 160 * 90 && f->planes[1].stride == 160 &&
                  f->planes[1].length == 160 * 45 && f->dmabuf_fd[0] == -1,
              "frame %d: 0x%08x %ux%u planes %u strides %u/%u lengths %u/%u", i, f->fourcc, f->width, f->height,
              f->plane_count, f->planes[0].stride, f->planes[1].stride, f->planes[0].length, f->planes[1].length);
        if (i > 0)
            CHECK(f->sequence > last, "frame %d: sequence %u after %u", i, f->sequence, last);
        last = f->sequence;
        camcore_frame_release(f);
    }
    CHECK_STATUS(camcore_capturer_stop(c), CAMCORE_OK, "stop");
    camcore_capturer_close(c);
}

static int refused(camcore_capturer *c, uint32_t out_fourcc, uint32_t ow, uint32_t oh, uint32_t w, uint32_t h,
                   const char *what)
{
    camcore_capture_config cfg = config_for(YUYV, w, h, 60);
    int rc;

    cfg.output_fourcc = out_fourcc;
    cfg.output_width = ow;
    cfg.output_height = oh;
    rc = camcore_capturer_start(c, &cfg, NULL);
    CHECK(rc == CAMCORE_E_INVALID_ARG && strstr(camcore_last_error_message(), "output size") != NULL,
          "%s: expected CAMCORE_E_INVALID_ARG with a message, got %d (%s)", what, rc, camcore_last_error_message());
    if (rc == CAMCORE_OK)
        camcore_capturer_stop(c);
    return rc;
}

static void test_S38_bad_configs_are_refused_and_capture_goes_on(void)
{
    camcore_capturer *c = open_synthetic();
    camcore_capture_config cfg;
    const camcore_frame *f = NULL;

    if (!c)
        return;
    refused(c, 0, 320, 240, 640, 480, "an output size without output_fourcc");
    refused(c, I420, 320, 0, 640, 480, "height 0");
    refused(c, I420, 0, 240, 640, 480, "width 0");
    refused(c, I420, 321, 240, 640, 480, "an odd width for I420");
    refused(c, NV12, 320, 241, 640, 480, "an odd height for NV12");
    refused(c, I420, 16386, 240, 640, 480, "a side above 16384");
    refused(c, I420, 640, 480, 64, 48, "10x the captured size");
    /* Still usable: a good output size captures. */
    cfg = config_for(YUYV, 640, 480, 60);
    cfg.output_fourcc = I420;
    cfg.output_width = 64;
    cfg.output_height = 48;
    CHECK_STATUS(camcore_capturer_start_pull(c, &cfg, 2), CAMCORE_OK, "start after the refusals");
    CHECK_STATUS(camcore_capturer_acquire_frame(c, 2000, &f), CAMCORE_OK, "acquire after the refusals");
    if (f) {
        CHECK(f->width == 64 && f->height == 48, "frame after the refusals: %ux%u", f->width, f->height);
        camcore_frame_release(f);
    }
    CHECK_STATUS(camcore_capturer_stop(c), CAMCORE_OK, "stop");
    /* A caller built before output_width: the bytes after dmabuf are not read. */
    cfg = config_for(YUYV, 320, 240, 60);
    cfg.output_fourcc = I420;
    cfg.output_width = 12345;
    cfg.output_height = 7;
    cfg.struct_size = (uint32_t)offsetof(camcore_capture_config, output_width);
    CHECK_STATUS(camcore_capturer_start_pull(c, &cfg, 2), CAMCORE_OK, "start with the older struct_size");
    f = NULL;
    CHECK_STATUS(camcore_capturer_acquire_frame(c, 2000, &f), CAMCORE_OK, "acquire (older struct_size)");
    if (f) {
        CHECK(f->fourcc == I420 && f->width == 320 && f->height == 240, "older struct_size: 0x%08x %ux%u", f->fourcc,
              f->width, f->height);
        camcore_frame_release(f);
    }
    CHECK_STATUS(camcore_capturer_stop(c), CAMCORE_OK, "stop");
    camcore_capturer_close(c);
}

static void test_S38_session_previews_get_the_output_size(void)
{
    camcore_session_config sc;
    camcore_session *s = NULL;
    const camcore_frame *f = NULL;
    uint32_t pid = 0, last = 0;
    int i;

    camcore_session_config_init(&sc);
    CHECK(sc.output_width == 0 && sc.output_height == 0, "session config default 0x0: %ux%u", sc.output_width,
          sc.output_height);
    sc.device_id = g_id;
    sc.preference.width = 640;
    sc.preference.height = 360;
    sc.preference.max_fps.numerator = 60;
    sc.output_width = 320;
    sc.output_height = 180;
    CHECK_STATUS(camcore_session_new(g_manager, &sc, &s), CAMCORE_E_INVALID_ARG, "a session size without an output format");
    CHECK(s == NULL && strstr(camcore_last_error_message(), "output") != NULL, "refused with a message: %s",
          camcore_last_error_message());
    sc.preference.output_fourcc = I420;
    CHECK_STATUS(camcore_session_new(g_manager, &sc, &s), CAMCORE_OK, "camcore_session_new I420 320x180");
    if (!s)
        return;
    CHECK_STATUS(camcore_session_add_preview_pull(s, 2, &pid), CAMCORE_OK, "add_preview_pull");
    for (i = 0; i < 3; i++) {
        CHECK_STATUS(camcore_session_acquire_preview_frame(s, pid, 3000, &f), CAMCORE_OK, "acquire preview frame");
        if (!f)
            break;
        CHECK(f->fourcc == I420 && f->width == 320 && f->height == 180 && f->planes[0].stride == 320 &&
                  f->planes[1].length == 160 * 90 && (i == 0 || f->sequence > last),
              "preview frame %d: 0x%08x %ux%u stride %u seq %u", i, f->fourcc, f->width, f->height, f->planes[0].stride,
              f->sequence);
        last = f->sequence;
        camcore_frame_release(f);
    }
    CHECK_STATUS(camcore_session_remove_preview(s, pid), CAMCORE_OK, "remove_preview");
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
    TESTLIB_TEST(test_S38_callbacks_get_the_output_size),
    TESTLIB_TEST(test_S38_pull_gets_the_output_size),
    TESTLIB_TEST(test_S38_bad_configs_are_refused_and_capture_goes_on),
    TESTLIB_TEST(test_S38_session_previews_get_the_output_size),
};

static const struct testlib_suite suite = {
    tests, TESTLIB_COUNT(tests), 120, setup, teardown, 20, 30,
};

int main(int argc, char **argv)
{
    return testlib_main(argc, argv, &suite);
}
