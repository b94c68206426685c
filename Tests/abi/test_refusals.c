// SPDX-License-Identifier: MIT
/*
 * test_refusals.c — what a careless or hostile caller meets (SPEC S31,
 * S33, S36, S37; issue 29 items 2-5), through camcore.h only, on the
 * synthetic camera.
 *
 * What it asserts:
 *   S36  a capturer closed while another thread waits on its frame fd:
 *        the waiter wakes promptly (epoll and poll both; and an epoll set
 *        on the closing thread itself, as asyncio has it), the fd is
 *        still open and readable then, and the first call on the handle
 *        returns CAMCORE_E_STATE "closed"; after it the handle is unknown
 *        (CAMCORE_E_INVALID_ARG) and the fd is closed
 *   S37  camcore_session_start/_change with dmabuf = 1 are refused
 *        (CAMCORE_E_NOT_SUPPORTED, "dmabuf is for capturers"), the session
 *        still starts without it
 *   S33  environment spellings: CAMCORE_BACKEND=xyz, "v4l2 " and a 70,000
 *        character value, CAMCORE_PORTAL=sometimes, CAMCORE_SYNTHETIC_CAMERA=3
 *        and CAMCORE_CAPTURE_DMABUF=junk are refused by the call that reads
 *        them with CAMCORE_E_INVALID_ARG naming the variable (the message
 *        stays short); CAMCORE_CAPTURE_DMABUF=false/no/off/0 mean off (the
 *        synthetic camera starts), =yes/on/true are on (refused on the
 *        synthetic camera with a message naming the variable);
 *        CAMCORE_SYNTHETIC_CAMERA=2/yes give two/one cameras
 *   S33  backend_names: sets of named backends ("v4l2,libcamera") taken,
 *        unknown or repeated names, spaces, empty parts refused; a struct
 *        that ends before the field reads it as NULL; CAMCORE_BACKEND the same
 *   S31  include_synthetic 3 and -1 are refused; a pipewire_fd that is a
 *        pipe, or no open fd, is refused at once (not a 5 s listing)
 *   S31  a struct_size that ends inside a field (capture config 42) is
 *        refused; one at a field boundary (40) is taken
 *   S40  camcore_manager_list_devices_with: unknown flag bits refused; with
 *        CAMCORE_LIST_HIDDEN the cameras come first, as list_devices has
 *        them, and hidden entries are unavailable with a reason (the
 *        media-pipeline nodes themselves: Tests/kernel/test_media_pipeline.py)
 *
 * The last line is "N passed, M failed"; exit 0 only if M is 0.
 *
 * Build:  cc -std=c99 test_refusals.c testlib.c $(pkg-config --cflags --libs camcore) -pthread
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE

#include "testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

static camcore_manager *g_manager;
static char g_id[64];

#define YUYV CAMCORE_FOURCC('Y', 'U', 'Y', 'V')

static int fd_open(int fd)
{
    return fcntl(fd, F_GETFD) != -1 || errno != EBADF;
}

/* ------------------------------------------------------------------ */
/* Closed while a waiter waits on the frame fd (item 2)                */
/* ------------------------------------------------------------------ */

struct waiter {
    camcore_capturer *capturer;
    int fd;
    int use_epoll;
    pthread_mutex_t lock;
    int waiting;       /* set (under lock) just before the first wait */
    int closing;       /* set (under lock) just before the close */
    int woke;          /* 1: readable, 0: timed out, -1: error */
    int still_open;    /* the fd was open when the waiter looked */
    uint64_t woke_ns;
};

/* One wait on w->fd: 1 readable, 0 timed out (5 s), -1 error. */
static int wait_once(struct waiter *w, int ep)
{
    int n;

    if (ep >= 0) {
        struct epoll_event got;
        n = epoll_wait(ep, &got, 1, 5000);
        return n == 1 && (got.events & EPOLLIN) ? 1 : n < 0 ? -1 : 0;
    } else {
        struct pollfd p = { w->fd, POLLIN, 0 };
        n = poll(&p, 1, 5000);
        return n == 1 && (p.revents & POLLIN) ? 1 : n < 0 ? -1 : 0;
    }
}

/* Waits on the fd; a wake before the close is a frame: taken, and the wait
 * goes on. After the close nothing but the close can wake it (no frame
 * comes once the capturer is closed). */
static void *wait_main(void *arg)
{
    struct waiter *w = arg;
    int ep = -1;

    if (w->use_epoll) {
        struct epoll_event ev;
        memset(&ev, 0, sizeof ev);
        ev.events = EPOLLIN;
        ev.data.fd = w->fd;
        ep = epoll_create1(0);
        if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, w->fd, &ev) != 0) {
            w->woke = -1;
            return NULL;
        }
    }
    pthread_mutex_lock(&w->lock);
    w->waiting = 1;
    pthread_mutex_unlock(&w->lock);
    for (;;) {
        int r = wait_once(w, ep), closing;
        pthread_mutex_lock(&w->lock);
        closing = w->closing;
        if (closing || r != 1) {
            w->woke = r;
            w->woke_ns = now_ns();
            w->still_open = fd_open(w->fd);
        } else {
            const camcore_frame *f = NULL;
            while (camcore_capturer_acquire_frame(w->capturer, 0, &f) == CAMCORE_OK)
                camcore_frame_release(f);
        }
        pthread_mutex_unlock(&w->lock);
        if (closing || r != 1)
            break;
    }
    if (ep >= 0)
        close(ep);
    return NULL;
}

static void close_while_waiting(int use_epoll)
{
    const char *how = use_epoll ? "epoll" : "poll";
    camcore_capturer *c = NULL;
    camcore_capture_config cfg = config_for(YUYV, 160, 120, 1);
    struct waiter w;
    pthread_t th;
    const camcore_frame *f = NULL;
    int32_t fd = -1;
    uint64_t closed_ns;
    int st;

    CHECK_STATUS(camcore_capturer_open(g_manager, g_id, &c), CAMCORE_OK, "open");
    if (!c)
        return;
    CHECK_STATUS(camcore_capturer_start_pull(c, &cfg, 2), CAMCORE_OK, "start_pull at 1 fps");
    CHECK_STATUS(camcore_capturer_get_frame_fd(c, &fd), CAMCORE_OK, "get_frame_fd");
    memset(&w, 0, sizeof w);
    pthread_mutex_init(&w.lock, NULL);
    w.capturer = c;
    w.fd = fd;
    w.use_epoll = use_epoll;
    pthread_create(&th, NULL, wait_main, &w);
    {
        /* Until the waiter is at its wait (within 5 s); closing earlier would
         * only test a readable fd found at once, not a wake. */
        uint64_t end = now_ns() + 5000000000ull;
        int at_wait = 0;
        while (!at_wait && now_ns() < end) {
            pthread_mutex_lock(&w.lock);
            at_wait = w.waiting || w.woke != 0;
            pthread_mutex_unlock(&w.lock);
            if (!at_wait)
                sleep_ms(1);
        }
        CHECK(at_wait, "%s: the waiter reached its wait", how);
    }
    pthread_mutex_lock(&w.lock);
    w.closing = 1;
    pthread_mutex_unlock(&w.lock);
    closed_ns = now_ns();
    camcore_capturer_close(c);
    pthread_join(th, NULL);
    pthread_mutex_destroy(&w.lock);
    CHECK(w.woke == 1, "%s: the waiter woke readable after close (woke %d: 0 = still waiting after 5 s)", how, w.woke);
    CHECK(w.woke == 1 && (int64_t)(w.woke_ns - closed_ns) < 1000000000, "%s: promptly: %.0f ms after close", how,
          (double)(int64_t)(w.woke_ns - closed_ns) / 1e6);
    CHECK(w.still_open, "%s: the fd was still open when the waiter looked", how);
    f = (const camcore_frame *)&w; /* any non-NULL: must come back NULL */
    st = camcore_capturer_acquire_frame(c, 0, &f);
    CHECK(st == CAMCORE_E_STATE && strstr(camcore_last_error_message(), "closed") != NULL,
          "%s: acquire after close: CAMCORE_E_STATE 'closed', got %d (%s)", how, st, camcore_last_error_message());
    CHECK(f == NULL, "%s: *frame set to NULL", how);
    CHECK(!fd_open(fd), "%s: the fd is closed once the waiter has looked", how);
    CHECK_STATUS(camcore_capturer_acquire_frame(c, 0, &f), CAMCORE_E_INVALID_ARG, "then the handle is unknown");
    camcore_capturer_close(c); /* a second close of a forgotten handle is harmless */
}

static void test_S36_close_wakes_an_epoll_waiter(void) { close_while_waiting(1); }

/* What an event loop (asyncio) does: the fd is in its epoll set, a handler
 * on the loop's own thread closes the capturer, then the loop waits. */
static void test_S36_close_then_epoll_wait_on_the_same_thread(void)
{
    camcore_capturer *c = NULL;
    camcore_capture_config cfg = config_for(YUYV, 160, 120, 1);
    struct epoll_event ev, got;
    const camcore_frame *f = NULL;
    int32_t fd = -1;
    int ep, n;

    CHECK_STATUS(camcore_capturer_open(g_manager, g_id, &c), CAMCORE_OK, "open");
    if (!c)
        return;
    CHECK_STATUS(camcore_capturer_start_pull(c, &cfg, 2), CAMCORE_OK, "start_pull at 1 fps");
    CHECK_STATUS(camcore_capturer_get_frame_fd(c, &fd), CAMCORE_OK, "get_frame_fd");
    ep = epoll_create1(0);
    memset(&ev, 0, sizeof ev);
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    CHECK(ep >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0, "epoll_ctl ADD");
    camcore_capturer_close(c);
    n = epoll_wait(ep, &got, 1, 3000);
    CHECK(n == 1 && (got.events & EPOLLIN), "epoll_wait after the close: readable (n %d; 0 = the set forgot the fd)", n);
    CHECK_STATUS(camcore_capturer_acquire_frame(c, 0, &f), CAMCORE_E_STATE, "acquire after close: 'closed'");
    close(ep);
}
static void test_S36_close_wakes_a_poll_waiter(void) { close_while_waiting(0); }

static void test_S36_closed_handles_kept_for_waiters_are_bounded(void)
{
    /* Each capturer closed with its fd handed out is kept until looked at;
     * at most 16 are: closing 40 leaves the fd count flat. */
    int i, before, after, probe;
    camcore_capture_config cfg = config_for(YUYV, 64, 48, 30);

    probe = dup(0);
    before = probe;
    close(probe);
    for (i = 0; i < 40; i++) {
        camcore_capturer *c = NULL;
        int32_t fd;
        if (camcore_capturer_open(g_manager, g_id, &c) != CAMCORE_OK)
            break;
        camcore_capturer_start_pull(c, &cfg, 1);
        camcore_capturer_get_frame_fd(c, &fd);
        camcore_capturer_close(c);
    }
    CHECK(i == 40, "40 capturers opened (%d)", i);
    probe = dup(0);
    after = probe;
    close(probe);
    CHECK(after - before <= 20, "lowest free fd %d before, %d after 40 closes (at most 16 kept)", before, after);
}

/* ------------------------------------------------------------------ */
/* dmabuf on a session (item 3)                                        */
/* ------------------------------------------------------------------ */

static void test_S37_session_start_refuses_dmabuf(void)
{
    camcore_session_config sc;
    camcore_session *s = NULL;
    camcore_capture_config cfg = config_for(YUYV, 160, 120, 30);

    camcore_session_config_init(&sc);
    sc.device_id = g_id;
    CHECK_STATUS(camcore_session_new(g_manager, &sc, &s), CAMCORE_OK, "session_new");
    if (!s)
        return;
    cfg.dmabuf = 1;
    CHECK_STATUS(camcore_session_start(s, &cfg, NULL, NULL), CAMCORE_E_NOT_SUPPORTED, "session_start dmabuf=1");
    CHECK(strstr(camcore_last_error_message(), "dmabuf is for capturers") != NULL, "message: %s",
          camcore_last_error_message());
    CHECK_STATUS(camcore_session_change(s, &cfg, NULL, NULL), CAMCORE_E_NOT_SUPPORTED, "session_change dmabuf=1");
    cfg.dmabuf = 0;
    CHECK_STATUS(camcore_session_start(s, &cfg, NULL, NULL), CAMCORE_OK, "session_start dmabuf=0 still works");
    camcore_session_free(s);
}

/* ------------------------------------------------------------------ */
/* Environment spellings (item 4)                                      */
/* ------------------------------------------------------------------ */

/* camcore_manager_new with `name`=`value` set; the status, and the message in msg. */
static int manager_with_env(const char *name, const char *value, int include_synthetic, size_t *count, char *msg,
                            size_t n)
{
    camcore_manager_config mc;
    camcore_manager *m = NULL;
    int st;

    setenv(name, value, 1);
    camcore_manager_config_init(&mc);
    mc.include_synthetic = include_synthetic;
    st = camcore_manager_new(&mc, &m);
    snprintf(msg, n, "%s", st == CAMCORE_OK ? "" : camcore_last_error_message());
    if (count)
        *count = 0;
    if (m && count) {
        camcore_device_list *list = NULL;
        if (camcore_manager_list_devices(m, &list) == CAMCORE_OK) {
            *count = list->count;
            camcore_device_list_free(list);
        }
    }
    camcore_manager_free(m);
    unsetenv(name);
    return st;
}

static void refused(const char *name, const char *value, const char *shown)
{
    char msg[1024];
    int st = manager_with_env(name, value, 0, NULL, msg, sizeof msg);

    CHECK(st == CAMCORE_E_INVALID_ARG, "%s=%s: CAMCORE_E_INVALID_ARG, got %d", name, shown, st);
    CHECK(strstr(msg, name) != NULL, "%s=%s: the message names the variable: %s", name, shown, msg);
    CHECK(strlen(msg) < 400, "%s=%s: the message stays short (%zu bytes)", name, shown, strlen(msg));
}

static void test_S33_environment_junk_is_refused_by_manager_new(void)
{
    static char big[70001];
    size_t count = 0;
    char msg[1024];

    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    refused("CAMCORE_BACKEND", "xyz", "xyz");
    refused("CAMCORE_BACKEND", "v4l2 ", "'v4l2 '");
    refused("CAMCORE_BACKEND", big, "<70,000 x>");
    refused("CAMCORE_PORTAL", "sometimes", "sometimes");
    refused("CAMCORE_SYNTHETIC_CAMERA", "3", "3");
    refused("CAMCORE_SYNTHETIC_CAMERA", "junk", "junk");
    refused("CAMCORE_CAPTURE_DMABUF", "junk", "junk");
    refused("CAMCORE_LIBV4L2", "maybe", "maybe");

    {
        /* Shown byte by byte, 40 at most: a right-to-left override
         * (U+202E), a CSI (U+009B) and 100,000 combining accents reach
         * the message as \xNN escapes, never raw. */
        static char accents[200003];
        size_t k;
        CHECK(manager_with_env("CAMCORE_BACKEND", "v4l2\xe2\x80\xae\xc2\x9b", 0, NULL, msg, sizeof msg) ==
                  CAMCORE_E_INVALID_ARG && strstr(msg, "v4l2\\xe2\\x80\\xae\\xc2\\x9b") &&
                  !strstr(msg, "\xe2\x80\xae"),
              "control characters escaped: %s", msg);
        accents[0] = 'a';
        for (k = 1; k + 1 < sizeof accents; k += 2) {
            accents[k] = (char)0xcc;
            accents[k + 1] = (char)0x81;
        }
        accents[sizeof accents - 1] = 0;
        k = (size_t)manager_with_env("CAMCORE_SYNTHETIC_CAMERA", accents, 0, NULL, msg, sizeof msg);
        CHECK((int)k == CAMCORE_E_INVALID_ARG && strlen(msg) < 400 && strstr(msg, "(cut; 2000"),
              "100,000 combining accents: a short message (%zu bytes): %s", strlen(msg), msg);
    }
    CHECK_STATUS(manager_with_env("CAMCORE_BACKEND", "V4L2", 0, NULL, msg, sizeof msg), CAMCORE_OK,
                 "CAMCORE_BACKEND=V4L2 (any case)");
    CHECK_STATUS(manager_with_env("CAMCORE_BACKEND", "", 0, NULL, msg, sizeof msg), CAMCORE_OK,
                 "CAMCORE_BACKEND= (empty: unset)");
    CHECK_STATUS(manager_with_env("CAMCORE_SYNTHETIC_CAMERA", "2", 0, &count, msg, sizeof msg), CAMCORE_OK, "=2");
    CHECK(count >= 2, "CAMCORE_SYNTHETIC_CAMERA=2 lists two synthetic cameras (%zu devices)", count);
    CHECK_STATUS(manager_with_env("CAMCORE_SYNTHETIC_CAMERA", "yes", 0, &count, msg, sizeof msg), CAMCORE_OK, "=yes");
    CHECK(count >= 1, "CAMCORE_SYNTHETIC_CAMERA=yes lists one (%zu devices)", count);
}

static void test_S33_backend_names(void)
{
    static const char *good[] = { "v4l2,libcamera", "LIBCAMERA,v4l2", "pipewire", "both", "auto", "v4l2,pipewire,libcamera" };
    static const char *bad[] = { "v4l2,xyz", "v4l2,v4l2", "v4l2 ,libcamera", "v4l2,", ",v4l2", "", "synthetic" };
    camcore_manager_config mc;
    camcore_manager *m = NULL;
    size_t i;

    for (i = 0; i < sizeof good / sizeof good[0]; i++) {
        camcore_manager_config_init(&mc);
        mc.include_synthetic = 1;
        mc.backend_names = good[i];
        CHECK_STATUS(camcore_manager_new(&mc, &m), CAMCORE_OK, good[i]);
        camcore_manager_free(m);
        m = NULL;
    }
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        camcore_manager_config_init(&mc);
        mc.backend_names = bad[i];
        CHECK(camcore_manager_new(&mc, &m) == CAMCORE_E_INVALID_ARG && m == NULL &&
                  strstr(camcore_last_error_message(), "backend_names"),
              "backend_names '%s' refused: %s", bad[i], camcore_last_error_message());
    }
    /* A 0.1 caller's struct ends before backend_names: read as NULL. */
    camcore_manager_config_init(&mc);
    mc.include_synthetic = 1;
    mc.backend_names = "junk-not-read";
    mc.struct_size = (uint32_t)offsetof(camcore_manager_config, backend_names);
    CHECK_STATUS(camcore_manager_new(&mc, &m), CAMCORE_OK, "struct_size before backend_names");
    camcore_manager_free(m);
    /* The environment takes the same sets. */
    setenv("CAMCORE_BACKEND", "libcamera,v4l2", 1);
    CHECK_STATUS(camcore_manager_new(NULL, &m), CAMCORE_OK, "CAMCORE_BACKEND=libcamera,v4l2");
    camcore_manager_free(m);
    setenv("CAMCORE_BACKEND", "v4l2,bogus", 1);
    CHECK_STATUS(camcore_manager_new(NULL, &m), CAMCORE_E_INVALID_ARG, "CAMCORE_BACKEND=v4l2,bogus");
    unsetenv("CAMCORE_BACKEND");
}

static void test_S31_include_synthetic_and_pipewire_fd_checked(void)
{
    camcore_manager_config mc;
    camcore_manager *m = NULL;
    int p[2];
    uint64_t t0;

    camcore_manager_config_init(&mc);
    mc.include_synthetic = 3;
    CHECK_STATUS(camcore_manager_new(&mc, &m), CAMCORE_E_INVALID_ARG, "include_synthetic 3");
    CHECK(strstr(camcore_last_error_message(), "include_synthetic") != NULL, "message: %s",
          camcore_last_error_message());
    mc.include_synthetic = -1;
    CHECK_STATUS(camcore_manager_new(&mc, &m), CAMCORE_E_INVALID_ARG, "include_synthetic -1");
    mc.include_synthetic = 2;
    CHECK_STATUS(camcore_manager_new(&mc, &m), CAMCORE_OK, "include_synthetic 2");
    camcore_manager_free(m);
    m = NULL;

    CHECK(pipe(p) == 0, "pipe");
    camcore_manager_config_init(&mc);
    mc.backend = CAMCORE_BACKEND_PIPEWIRE;
    mc.pipewire_fd = p[1];
    t0 = now_ns();
    CHECK_STATUS(camcore_manager_new(&mc, &m), CAMCORE_E_INVALID_ARG, "pipewire_fd = a pipe");
    CHECK(now_ns() - t0 < 1000000000ull, "refused at once (%.0f ms)", (double)(now_ns() - t0) / 1e6);
    CHECK(strstr(camcore_last_error_message(), "not a socket") != NULL, "message: %s", camcore_last_error_message());
    close(p[0]);
    close(p[1]);
    mc.pipewire_fd = p[1]; /* closed now */
    CHECK_STATUS(camcore_manager_new(&mc, &m), CAMCORE_E_INVALID_ARG, "pipewire_fd not open");
    mc.pipewire_fd = -2;
    CHECK_STATUS(camcore_manager_new(&mc, &m), CAMCORE_E_INVALID_ARG, "pipewire_fd -2 (only -1 means none)");
}

static int start_with_dmabuf_env(const char *value, char *msg, size_t n)
{
    camcore_capturer *c = NULL;
    camcore_capture_config cfg = config_for(YUYV, 160, 120, 30);
    int st;

    setenv("CAMCORE_CAPTURE_DMABUF", value, 1);
    if (camcore_capturer_open(g_manager, g_id, &c) != CAMCORE_OK) {
        unsetenv("CAMCORE_CAPTURE_DMABUF");
        return -1000;
    }
    st = camcore_capturer_start_pull(c, &cfg, 2);
    snprintf(msg, n, "%s", st == CAMCORE_OK ? "" : camcore_last_error_message());
    camcore_capturer_close(c);
    unsetenv("CAMCORE_CAPTURE_DMABUF");
    return st;
}

static void test_S37_capture_dmabuf_spellings(void)
{
    static const char *off[] = { "0", "false", "no", "off", "FALSE", "" };
    static const char *on[] = { "1", "yes", "on", "true" };
    char msg[1024];
    size_t i;

    for (i = 0; i < sizeof off / sizeof off[0]; i++)
        CHECK(start_with_dmabuf_env(off[i], msg, sizeof msg) == CAMCORE_OK,
              "CAMCORE_CAPTURE_DMABUF='%s' is off: the synthetic camera starts (%s)", off[i], msg);
    for (i = 0; i < sizeof on / sizeof on[0]; i++) {
        int st = start_with_dmabuf_env(on[i], msg, sizeof msg);
        CHECK(st == CAMCORE_E_NOT_SUPPORTED && strstr(msg, "CAMCORE_CAPTURE_DMABUF") != NULL,
              "CAMCORE_CAPTURE_DMABUF='%s' is on: refused on the synthetic camera naming the variable: %d %s", on[i],
              st, msg);
    }
    i = (size_t)start_with_dmabuf_env("junk", msg, sizeof msg);
    CHECK((int)i == CAMCORE_E_INVALID_ARG && strstr(msg, "CAMCORE_CAPTURE_DMABUF='junk'") != NULL,
          "CAMCORE_CAPTURE_DMABUF=junk: INVALID_ARG naming variable and value: %d %s", (int)i, msg);
}

/* ------------------------------------------------------------------ */
/* A struct_size that ends inside a field (item 5)                     */
/* ------------------------------------------------------------------ */

static void test_S31_struct_size_inside_a_field_is_refused(void)
{
    camcore_capturer *c = NULL;
    camcore_capture_config cfg = config_for(YUYV, 160, 120, 30);
    camcore_capture_format fmt;

    CHECK_STATUS(camcore_capturer_open(g_manager, g_id, &c), CAMCORE_OK, "open");
    if (!c)
        return;
    cfg.output_width = 80;
    cfg.output_height = 60;
    cfg.output_fourcc = YUYV;
    cfg.struct_size = 42; /* inside output_height */
    CHECK_STATUS(camcore_capturer_start_pull(c, &cfg, 2), CAMCORE_E_INVALID_ARG, "struct_size 42");
    CHECK(strstr(camcore_last_error_message(), "inside a field") != NULL, "message: %s", camcore_last_error_message());
    cfg.struct_size = 37; /* inside output_width */
    CHECK_STATUS(camcore_capturer_start(c, &cfg, NULL), CAMCORE_E_INVALID_ARG, "struct_size 37");
    cfg.struct_size = (uint32_t)offsetof(camcore_capture_config, output_width);
    CHECK_STATUS(camcore_capturer_start_pull(c, &cfg, 2), CAMCORE_OK, "struct_size at output_width (a 0.1 caller)");
    memset(&fmt, 0, sizeof fmt);
    fmt.struct_size = sizeof fmt;
    CHECK_STATUS(camcore_capturer_get_format(c, &fmt), CAMCORE_OK, "get_format");
    CHECK(fmt.width == 160 && fmt.height == 120, "no output size read past struct_size: %ux%u", fmt.width, fmt.height);
    fmt.struct_size = (uint32_t)offsetof(camcore_capture_format, source_fourcc) + 2;
    CHECK_STATUS(camcore_capturer_get_format(c, &fmt), CAMCORE_E_INVALID_ARG, "out struct_size inside a field");
    camcore_capturer_close(c);
}

/* ------------------------------------------------------------------ */
/* S40: the listing of hidden nodes                                    */
/* ------------------------------------------------------------------ */

static void test_S40_list_devices_with_flags(void)
{
    camcore_device_list *a = NULL, *b = NULL;
    size_t i;

    CHECK_STATUS(camcore_manager_list_devices_with(g_manager, 0x2, &a), CAMCORE_E_INVALID_ARG, "unknown flag bit");
    CHECK(a == NULL, "no list on failure");
    CHECK_STATUS(camcore_manager_list_devices_with(g_manager, CAMCORE_LIST_HIDDEN, NULL), CAMCORE_E_INVALID_ARG,
                 "out NULL");
    CHECK_STATUS(camcore_manager_list_devices(g_manager, &a), CAMCORE_OK, "list_devices");
    CHECK_STATUS(camcore_manager_list_devices_with(g_manager, CAMCORE_LIST_HIDDEN, &b), CAMCORE_OK,
                 "list_devices_with HIDDEN");
    if (a && b) {
        size_t cameras = 0;
        for (i = 0; i < b->count; i++)
            if (!(b->devices[i].flags & CAMCORE_DEVICE_HIDDEN)) {
                CHECK(i == cameras && i < a->count && strcmp(b->devices[i].id, a->devices[i].id) == 0,
                      "camera %zu (%s) in the same place as in list_devices", i, b->devices[i].id);
                cameras++;
            } else {
                CHECK(b->devices[i].flags & CAMCORE_DEVICE_UNAVAILABLE && b->devices[i].unavailable_reason[0],
                      "hidden %s is also unavailable with a reason", b->devices[i].id);
            }
        CHECK(cameras == a->count, "every camera of list_devices (%zu of %zu)", cameras, a->count);
    }
    camcore_device_list_free(a);
    camcore_device_list_free(b);
}

static const char *setup(void)
{
    unsetenv("CAMCORE_BACKEND");
    unsetenv("CAMCORE_PORTAL");
    unsetenv("CAMCORE_CAPTURE_DMABUF");
    unsetenv("CAMCORE_LIBV4L2");
    return testlib_synthetic_manager(&g_manager, g_id, sizeof g_id);
}

static void teardown(void)
{
    camcore_manager_free(g_manager);
}

static const struct testlib_test tests[] = {
    TESTLIB_TEST(test_S36_close_wakes_an_epoll_waiter),
    TESTLIB_TEST(test_S36_close_wakes_a_poll_waiter),
    TESTLIB_TEST(test_S36_close_then_epoll_wait_on_the_same_thread),
    TESTLIB_TEST(test_S36_closed_handles_kept_for_waiters_are_bounded),
    TESTLIB_TEST(test_S37_session_start_refuses_dmabuf),
    TESTLIB_TEST(test_S33_environment_junk_is_refused_by_manager_new),
    TESTLIB_TEST(test_S33_backend_names),
    TESTLIB_TEST(test_S31_include_synthetic_and_pipewire_fd_checked),
    TESTLIB_TEST(test_S37_capture_dmabuf_spellings),
    TESTLIB_TEST(test_S31_struct_size_inside_a_field_is_refused),
    TESTLIB_TEST(test_S40_list_devices_with_flags),
};

static const struct testlib_suite suite = {
    tests, TESTLIB_COUNT(tests), 120, setup, teardown, 20, 30,
};

int main(int argc, char **argv)
{
    return testlib_main(argc, argv, &suite);
}
