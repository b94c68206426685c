// SPDX-License-Identifier: MIT
/*
 * camcore view [DEVICE]: a live camera window (SDL2) that runs a video
 * session (S9–S19), so the camera switch is seen at work: pause and hold
 * turn the camera off (its LED goes out, the window shows a "camera off"
 * frame), flip and next switch cameras, size and rate change the capture
 * (S17), hot-plug is told in the window (S24, S25).
 *
 * This file: the command (its options, the session and its callbacks) and
 * what the window's keys do. The window itself, with SDL2 and SDL2_ttf
 * loaded at run time, is view_window.c; view.h is what the two share.
 *
 * Threads: the session's transmission sink runs on the capture thread; it
 * keeps the newest frame (retained) in a one-frame mailbox and wakes the
 * main thread with an SDL user event. Device callbacks and completions run
 * on the session's camera queue; they post text messages the same way.
 * Everything SDL happens on the main thread.
 *
 * --serve PORT: no window and no SDL; the mailbox wakes the HTTP server
 * (serve.c) through an eventfd instead. A tool built without SDL2's headers
 * has this part only: the window then says it needs SDL2.
 */
#include "camcore_tool.h"
#include "view.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* State shared with the camera's threads                             */
/* ------------------------------------------------------------------ */

#define MESSAGE_SECONDS 5.0

double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* With the lock held: wakes the main thread (once until it takes the wake). */
static void wake(struct view *v)
{
    if (v->wake_posted)
        return;
    if (v->wake_fd >= 0) {
        uint64_t one = 1;
        if (write(v->wake_fd, &one, sizeof one) == (ssize_t)sizeof one)
            v->wake_posted = 1;
        return;
    }
    if (push_wake_event(v->wake_event))
        v->wake_posted = 1;
}

/* A message shown in the window for a few seconds and printed on stderr
 * ("camcore: view: ..."); from any thread. */
void post(struct view *v, const char *fmt, ...)
{
    char text[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (!v->quiet)
        fprintf(stderr, PROGRAM ": view: %s\n", text);
    pthread_mutex_lock(&v->lock);
    snprintf(v->messages[v->message_next].text, sizeof v->messages[0].text, "%s", text);
    v->messages[v->message_next].until = now_s() + MESSAGE_SECONDS;
    v->message_next = (v->message_next + 1) % MESSAGES;
    v->messages_changed = 1;
    wake(v);
    pthread_mutex_unlock(&v->lock);
}

/* The transmission sink, on the capture thread: count, keep the newest. */
static void on_frame(void *user_data, const camcore_frame *frame)
{
    struct view *v = user_data;
    const camcore_frame *kept = camcore_frame_retain(frame);

    pthread_mutex_lock(&v->lock);
    v->frames++;
    v->last_ts = frame->timestamp_ns;
    v->dropped += frame->dropped_before;
    if (frame->flags & CAMCORE_FRAME_CORRUPTED)
        v->corrupted++;
    if (kept) {
        camcore_frame_release(v->pending); /* not shown: the main thread was busy */
        v->pending = kept;
        wake(v);
    }
    pthread_mutex_unlock(&v->lock);
}

static const char *format_text(const camcore_capture_format *f, char *buf, size_t size)
{
    char code[8], rate[16];

    snprintf(buf, size, "%s %" PRIu32 "x%" PRIu32 " @ %s fps", fourcc_text(f->fourcc, code), f->width,
             f->height, fps_text(f->fps, rate, sizeof rate));
    return buf;
}

static void on_connected(void *user_data, const camcore_device_info *dev)
{
    post(user_data, "camera connected: %s (%s)", dev->name, dev->node);
}

static void on_disconnected(void *user_data, const camcore_device_info *dev)
{
    post(user_data, "camera disconnected: %s (%s)", dev->name, dev->node);
}

static void on_selected(void *user_data, const camcore_device_info *dev, const camcore_capture_format *format)
{
    char text[64];

    if (format && format->width)
        post(user_data, "showing %s (%s), %s", dev->name, dev->node, format_text(format, text, sizeof text));
    else
        post(user_data, "showing %s (%s)", dev->name, dev->node);
}

static void on_device_error(void *user_data, const camcore_device_info *dev, int status, const char *message)
{
    post(user_data, "%s: %s (%s)", dev ? dev->name : "camera", camcore_strerror(status), message ? message : "");
}

static void on_stall(void *user_data, const camcore_device_info *dev, int stalled, uint64_t since_ns)
{
    (void)since_ns;
    post(user_data, stalled ? "%s sends no frames (stalled)" : "%s sends frames again", dev->name);
}

/* --serve: the newest frame for the server (serve.c), retained; NULL: none. */
static const camcore_frame *take_frame(void *user_data)
{
    struct view *v = user_data;
    const camcore_frame *f;
    uint64_t count;

    (void)!read(v->wake_fd, &count, sizeof count);
    pthread_mutex_lock(&v->lock);
    v->wake_posted = 0;
    f = v->pending;
    v->pending = NULL;
    pthread_mutex_unlock(&v->lock);
    return f;
}

#ifdef CAMCORE_TOOL_SDL2

/* The keys' actions (view_window.c's loop calls them): only a tool with the
 * window has them. */

struct completion {
    struct view *view;
    char what[64];
};

/* Completion of flip, select and change: tells a failure. */
void on_done(void *user_data, int status)
{
    struct completion *c = user_data;

    if (status == CAMCORE_E_NO_DEVICE && strcmp(c->what, "flip") == 0)
        post(c->view, "flip: no other camera");
    else if (status != CAMCORE_OK)
        post(c->view, "%s failed: %s", c->what, camcore_strerror(status));
    free(c);
}

struct completion *completion(struct view *v, const char *what)
{
    struct completion *c = calloc(1, sizeof *c);

    if (c) {
        c->view = v;
        snprintf(c->what, sizeof c->what, "%s", what);
    }
    return c;
}

/* ------------------------------------------------------------------ */
/* Keys: size and rate ladders (S17 change)                           */
/* ------------------------------------------------------------------ */

/* Sizes offered for stepwise and continuous formats (the synthetic camera). */
static const uint32_t ladder_sizes[][2] = {{320, 240}, {640, 360}, {640, 480}, {1280, 720}, {1920, 1080}};
/* Rates offered for continuous rate ranges, fps, highest first. */
static const uint32_t ladder_rates[] = {60, 30, 25, 15, 10, 5};

static int size_fits(const camcore_format *f, uint32_t w, uint32_t h)
{
    if (f->size_kind == CAMCORE_RANGE_DISCRETE)
        return f->width == w && f->height == h;
    return w >= f->min_width && w <= f->max_width && h >= f->min_height && h <= f->max_height &&
           (!f->step_width || (w - f->min_width) % f->step_width == 0) &&
           (!f->step_height || (h - f->min_height) % f->step_height == 0);
}

static int rate_fits(const camcore_format *f, camcore_fraction r)
{
    size_t i;
    double x = (double)r.numerator / r.denominator;

    if (f->rate_kind == CAMCORE_RANGE_DISCRETE) {
        for (i = 0; i < f->rate_count; i++)
            if ((uint64_t)f->rates[i].numerator * r.denominator == (uint64_t)r.numerator * f->rates[i].denominator)
                return 1;
        return 0;
    }
    if (f->rate_kind == CAMCORE_RANGE_UNKNOWN || !f->min_fps.denominator || !f->max_fps.denominator)
        return 1;
    return x >= (double)f->min_fps.numerator / f->min_fps.denominator - 1e-9 &&
           x <= (double)f->max_fps.numerator / f->max_fps.denominator + 1e-9;
}

/* The highest rate of f that is not above want (want itself when f takes
 * it and exact is set; for rate ranges else the ladder's); else f's highest. */
static camcore_fraction best_rate(const camcore_format *f, camcore_fraction want, int exact)
{
    camcore_fraction none = {0, 0};
    size_t i;
    double w = want.denominator ? (double)want.numerator / want.denominator : 1e9;

    if (f->rate_kind == CAMCORE_RANGE_DISCRETE) {
        for (i = 0; i < f->rate_count; i++) /* highest first */
            if ((double)f->rates[i].numerator / f->rates[i].denominator <= w + 1e-9)
                return f->rates[i];
        return f->rate_count ? f->rates[0] : none;
    }
    if (exact && want.denominator && rate_fits(f, want))
        return want;
    for (i = 0; i < sizeof ladder_rates / sizeof ladder_rates[0]; i++) {
        camcore_fraction r = {ladder_rates[i], 1};
        if (ladder_rates[i] <= w + 1e-9 && rate_fits(f, r))
            return r;
    }
    return f->max_fps.denominator ? f->max_fps : none;
}

/* Sizes of the current pixel format, in list order; returns the count. */
static size_t sizes_of(const camcore_format_list *list, uint32_t fourcc, uint32_t out[][2], size_t max)
{
    size_t i, j, n = 0;

    for (i = 0; i < list->count && n < max; i++) {
        const camcore_format *f = &list->formats[i];
        if (f->fourcc != fourcc)
            continue;
        if (f->size_kind == CAMCORE_RANGE_DISCRETE) {
            out[n][0] = f->width, out[n][1] = f->height, n++;
            continue;
        }
        for (j = 0; j < sizeof ladder_sizes / sizeof ladder_sizes[0] && n < max; j++)
            if (size_fits(f, ladder_sizes[j][0], ladder_sizes[j][1]))
                out[n][0] = ladder_sizes[j][0], out[n][1] = ladder_sizes[j][1], n++;
    }
    return n;
}

static const camcore_format *format_entry(const camcore_format_list *list, uint32_t fourcc, uint32_t w,
                                          uint32_t h)
{
    size_t i;

    for (i = 0; i < list->count; i++)
        if (list->formats[i].fourcc == fourcc && size_fits(&list->formats[i], w, h))
            return &list->formats[i];
    return NULL;
}

/* 'z' (next size) and 'r' (next lower rate, then the highest again):
 * camcore_session_change() with the current pixel format (S17). */
void change_setting(struct view *v, camcore_manager *m, camcore_session *s, int what_size)
{
    camcore_session_state st;
    camcore_format_list *list = NULL;
    camcore_capture_config cfg;
    const camcore_format *f;
    uint32_t sizes[64][2], w, h;
    camcore_fraction rate;
    size_t n, i;
    char code[8], text[32];

    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    if (camcore_session_get_state(s, &st) != CAMCORE_OK || !st.camera_on) {
        post(v, "the camera is off: resume first to change its %s", what_size ? "size" : "rate");
        return;
    }
    if (camcore_manager_list_formats(m, st.device_id, &list) != CAMCORE_OK) {
        post(v, "cannot list the formats: %s", camcore_last_error_message());
        return;
    }
    w = st.format.width, h = st.format.height, rate = st.format.fps;
    if (what_size) {
        n = sizes_of(list, st.format.fourcc, sizes, 64);
        for (i = 0; i < n && !(sizes[i][0] == w && sizes[i][1] == h); i++)
            ;
        if (n < 2) {
            post(v, "%s has no other size", fourcc_text(st.format.fourcc, code));
            goto out;
        }
        i = i < n ? (i + 1) % n : 0;
        w = sizes[i][0], h = sizes[i][1];
        f = format_entry(list, st.format.fourcc, w, h);
        rate = f ? best_rate(f, rate, 1) : rate;
    } else {
        camcore_fraction lower = rate;
        f = format_entry(list, st.format.fourcc, w, h);
        if (f == NULL) {
            post(v, "no rates listed for %s %ux%u", fourcc_text(st.format.fourcc, code), w, h);
            goto out;
        }
        /* Just below the current rate; from the lowest back to the highest. */
        if (rate.numerator && rate.denominator) {
            lower.numerator = rate.numerator * 1000u / rate.denominator;
            lower.denominator = 1000u;
            lower.numerator = lower.numerator > 1 ? lower.numerator - 1 : 1;
        }
        rate = best_rate(f, lower, 0);
        if (rate.numerator == 0 || (uint64_t)rate.numerator * st.format.fps.denominator >=
                                       (uint64_t)st.format.fps.numerator * rate.denominator) {
            camcore_fraction top = {1000000, 1};
            rate = best_rate(f, top, 0);
        }
        if ((uint64_t)rate.numerator * st.format.fps.denominator ==
            (uint64_t)st.format.fps.numerator * rate.denominator) {
            post(v, "%s %ux%u has no other rate", fourcc_text(st.format.fourcc, code), w, h);
            goto out;
        }
    }
    camcore_capture_config_init(&cfg);
    cfg.fourcc = st.format.fourcc;
    cfg.width = w;
    cfg.height = h;
    cfg.fps = rate;
    post(v, "changing to %s %ux%u @ %s fps", fourcc_text(cfg.fourcc, code), w, h,
         fps_text(rate, text, sizeof text));
    {
        struct completion *c = completion(v, what_size ? "size change" : "rate change");
        if (camcore_session_change(s, &cfg, c ? on_done : NULL, c) != CAMCORE_OK) {
            post(v, "cannot change: %s", camcore_last_error_message());
            free(c);
        }
    }
out:
    camcore_format_list_free(list);
}

/* 'n': the next listed camera after the one in use (S18 select). */
void next_camera(struct view *v, camcore_manager *m, camcore_session *s)
{
    camcore_session_state st;
    camcore_device_list *list = NULL;
    size_t i;

    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    camcore_session_get_state(s, &st);
    if (camcore_manager_list_devices(m, &list) != CAMCORE_OK || list->count == 0) {
        post(v, "no camera to switch to");
        camcore_device_list_free(list);
        return;
    }
    for (i = 0; i < list->count && strcmp(list->devices[i].id, st.device_id) != 0; i++)
        ;
    i = i < list->count ? (i + 1) % list->count : 0;
    if (strcmp(list->devices[i].id, st.device_id) == 0) {
        post(v, "no other camera");
    } else {
        struct completion *c = completion(v, "switching cameras");
        post(v, "switching to %s", list->devices[i].name);
        if (camcore_session_select(s, list->devices[i].id, c ? on_done : NULL, c) != CAMCORE_OK) {
            post(v, "cannot switch: %s", camcore_last_error_message());
            free(c);
        }
    }
    camcore_device_list_free(list);
}

/* 's': the frame on screen as a PNG in the snapshot directory. */
void snapshot(struct view *v, const camcore_frame *shown, const char *dir, unsigned *count)
{
    char path[4096];
    struct stat sb;

    if (shown == NULL) {
        post(v, "no frame to save");
        return;
    }
    do
        snprintf(path, sizeof path, "%s/camcore-view-%03u.png", dir, ++*count);
    while (lstat(path, &sb) == 0 && *count < 100000); /* any name there, links too, is skipped */
    if (write_snapshot(shown, path) == 0)
        post(v, "snapshot saved: %s (%ux%u)", path, shown->width, shown->height);
    else
        post(v, "snapshot failed: %s", path);
}

#endif /* CAMCORE_TOOL_SDL2 */

/* ------------------------------------------------------------------ */
/* The command                                                        */
/* ------------------------------------------------------------------ */

const char view_usage[] =
    "usage: " PROGRAM " view [DEVICE] [OPTIONS]\n"
    "\n"
    "Shows the camera live in a window (SDL2) through a video session: the\n"
    "camera is on while the video runs and off (LED off) while it is paused or\n"
    "held, as in a video call. Cameras that come and go are told in the window;\n"
    "when the camera in use goes away the session switches to another one (or\n"
    "camcore's synthetic camera) and back when it returns.\n"
    "DEVICE: an index from `" PROGRAM " list`, an id or a node; default: the first camera\n"
    "(camcore's synthetic camera when there is none).\n"
    "\n"
    "Keys:\n"
    "  space, p    pause / resume the video (the camera turns off / on)\n"
    "  h           hold / unhold (camera off while held)\n"
    "  f           flip: the camera facing the other way, or the next one\n"
    "  n           next camera\n"
    "  z           next frame size of the pixel format in use\n"
    "  r           next lower frame rate (after the lowest: the highest)\n"
    "  m           mirror the picture (left-right)\n"
    "  s           save the picture as a PNG (camcore-view-NNN.png)\n"
    "  q, Escape   quit (so does closing the window)\n"
    "\n"
    "The title shows the camera, its pixel format, size and the measured rate;\n"
    "the line at the bottom the frames the camera dropped and the corrupted ones.\n"
    "\n"
    "Options:\n"
    "  --size WxH          the preferred frame size (default: nearest to 1280x720)\n"
    "  --fps N[/D]         the preferred frame rate\n"
    "  --format FOURCC     capture this pixel format (with --size and --fps)\n"
    "  --seconds S         close the window after S seconds\n"
    "  --snapshot-dir DIR  where 's' saves pictures (default: the current directory)\n"
    "  --mirror            start mirrored\n"
    "  --quiet             no messages on stderr\n"
    "  --serve PORT        no window: serve the video as MJPEG over HTTP instead, for a\n"
    "                      browser: http://127.0.0.1:PORT/ (the page), /stream (the\n"
    "                      multipart MJPEG stream), /snapshot.jpg (one frame); PORT 0\n"
    "                      takes a free port (the URL is printed on stderr). GET and\n"
    "                      HEAD; idle connections and requests not complete within\n"
    "                      10 s are closed, requests over 8 KiB answered 431; up to\n"
    "                      512 clients at once. Runs until Ctrl-C or --seconds;\n"
    "                      needs libmicrohttpd, no SDL2 and no display\n"
    "  --bind ADDR         the IPv4 address to serve on (default 127.0.0.1: this\n"
    "                      machine only)\n"
    "  --backend B, --portal P   as for every command (" PROGRAM " --help)\n"
    "  -h, --help          this help\n"
    "\n"
    "Needs SDL2 (Debian: libsdl2-2.0-0) and a display; the on-screen text needs\n"
    "SDL2_ttf (libsdl2-ttf-2.0-0) and DejaVu Sans Mono (fonts-dejavu-core) or\n"
    "the font file in CAMCORE_VIEW_FONT. Exit codes as for every command: 3 no\n"
    "such camera, 4 camera busy or no permission, 1 no display or no SDL2.\n"
#ifndef CAMCORE_TOOL_SDL2
    "\nThis " PROGRAM " was built without SDL2 (libsdl2-dev): it has no window, only --serve.\n"
#endif
    ;

int cmd_view(int argc, char **argv)
{
    enum { OPT_SIZE = OPT_COMMAND, OPT_FPS, OPT_FORMAT, OPT_SECONDS, OPT_SNAPDIR, OPT_MIRROR, OPT_QUIET, OPT_SERVE,
           OPT_BIND };
    static const struct option options[] = {
        {"serve", required_argument, NULL, OPT_SERVE},
        {"bind", required_argument, NULL, OPT_BIND},
        {"size", required_argument, NULL, OPT_SIZE},
        {"fps", required_argument, NULL, OPT_FPS},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"seconds", required_argument, NULL, OPT_SECONDS},
        {"snapshot-dir", required_argument, NULL, OPT_SNAPDIR},
        {"mirror", no_argument, NULL, OPT_MIRROR},
        {"quiet", no_argument, NULL, OPT_QUIET},
        COMMON_OPTIONS,
        {0, 0, 0, 0},
    };
    struct devices d;
    const camcore_device_info *dev;
    camcore_session *session = NULL;
    camcore_session_config scfg;
    camcore_frame_callbacks sink;
    camcore_device_callbacks dcb;
    struct view v;
    const char *spec = NULL, *snapdir = ".";
    uint32_t width = 0, height = 0, fourcc = 0;
    camcore_fraction fps = {0, 0};
    double seconds = 0;
    int opt, rc = EXIT_OK, status, mirror = 0, quiet = 0, serve_port = -1;
    const char *bind_addr = "127.0.0.1";

    while ((opt = getopt_long(argc, argv, COMMON_SHORT, options, NULL)) != -1) {
        const char *val = optarg;
        switch (opt) {
        case OPT_SIZE:
            if (parse_size(val, &width, &height))
                return usage_error("view: --size '%s' is not WIDTHxHEIGHT (e.g. 640x480)", val);
            break;
        case OPT_FPS:
            if (parse_fps(val, &fps))
                return usage_error("view: --fps '%s' is not a frame rate (30, 30000/1001)", val);
            break;
        case OPT_FORMAT:
            if (parse_fourcc(val, &fourcc) || fourcc == 0)
                return usage_error("view: --format '%s' is not a FourCC (YUYV, MJPG, ...)", val);
            break;
        case OPT_SECONDS: {
            char *end;
            errno = 0;
            seconds = strtod(val, &end);
            if (errno || *end || !(seconds > 0) || seconds > 1e7)
                return usage_error("view: --seconds '%s' is not a positive number of seconds", val);
            break;
        }
        case OPT_SNAPDIR: {
            struct stat sb;
            if (stat(val, &sb) != 0 || !S_ISDIR(sb.st_mode))
                return usage_error("view: --snapshot-dir '%s' is not a directory", val);
            snapdir = val;
            break;
        }
        case OPT_MIRROR:
            mirror = 1;
            break;
        case OPT_SERVE: {
            uint32_t p;
            if (parse_u32(val, &p) || p > 65535)
                return usage_error("view: --serve '%s' is not a TCP port (0-65535; 0: any free one)", val);
            serve_port = (int)p;
            break;
        }
        case OPT_BIND: {
            struct in_addr a;
            if (inet_pton(AF_INET, val, &a) != 1)
                return usage_error("view: --bind '%s' is not an IPv4 address (e.g. 127.0.0.1)", val);
            bind_addr = val;
            break;
        }
        case OPT_QUIET:
            quiet = 1;
            break;
        default: {
            int r = common_option("view", view_usage, opt, argv);
            if (r == OPTION_MINE)
                r = usage_error("view: unknown option '%s'", argv[optind - 1]);
            if (r != OPTION_NEXT)
                return r;
        }
        }
    }
    if (optind < argc)
        spec = argv[optind++];
    if (optind < argc)
        return usage_error("view: unexpected argument '%s'", argv[optind]);
    if (g_json)
        return usage_error("view: --json has no meaning for a window");

    memset(&v, 0, sizeof v);
    v.quiet = quiet;
    v.wake_fd = -1;
    if (serve_port >= 0) {
        /* --serve: no window, no SDL; frames wake the server through an eventfd. */
        if (!serve_available()) {
            errorf("view: --serve: this " PROGRAM " was built without libmicrohttpd; install libmicrohttpd-dev "
                   "and rebuild it");
            return EXIT_FAILED;
        }
        if ((v.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
            errorf("view: eventfd: %s", strerror(errno));
            return EXIT_FAILED;
        }
    } else if ((rc = open_sdl(&v)) != EXIT_OK) {
        return rc;
    }
    pthread_mutex_init(&v.lock, NULL);

    if ((rc = load_devices(&d, 1)) != EXIT_OK)
        goto out_sdl;
    if ((dev = resolve_device(&d, spec)) == NULL) {
        rc = EXIT_NO_DEVICE;
        goto out_devices;
    }

    /* The session: the window is its transmission sink. */
    camcore_session_config_init(&scfg);
    scfg.device_id = dev->id;
    if (width)
        scfg.preference.width = width, scfg.preference.height = height;
    if (fps.denominator)
        scfg.preference.min_fps = fps, scfg.preference.max_fps = fps;
    if ((status = camcore_session_new(d.manager, &scfg, &session)) != CAMCORE_OK) {
        rc = fail(status, "starting the session", dev);
        goto out_devices;
    }
    memset(&dcb, 0, sizeof dcb);
    dcb.struct_size = sizeof dcb;
    dcb.user_data = &v;
    dcb.on_connected = on_connected;
    dcb.on_disconnected = on_disconnected;
    dcb.on_selected = on_selected;
    dcb.on_error = on_device_error;
    dcb.on_stall = on_stall;
    camcore_session_set_device_callbacks(session, &dcb);
    memset(&sink, 0, sizeof sink);
    sink.struct_size = sizeof sink;
    sink.user_data = &v;
    sink.on_frame = on_frame;
    camcore_session_set_transmission_sink(session, &sink);
    if (fourcc) {
        camcore_capture_config cfg;
        camcore_capture_config_init(&cfg);
        cfg.fourcc = fourcc;
        /* Without --size: the preference's size (1280x720), as --help says. */
        cfg.width = width ? width : scfg.preference.width;
        cfg.height = width ? height : scfg.preference.height;
        cfg.fps = fps;
        if ((status = camcore_session_start(session, &cfg, NULL, NULL)) != CAMCORE_OK) {
            rc = fail(status, "setting the capture format", dev);
            goto out_session;
        }
    }
    if ((status = camcore_session_start_transmission(session, CAMCORE_VIDEO_RESUME, 0)) != CAMCORE_OK) {
        rc = fail(status, "turning the camera on", dev);
        goto out_session;
    }

    if (serve_port >= 0) {
        struct serve_source src;
        src.wake_fd = v.wake_fd;
        src.take = take_frame;
        src.user = &v;
        src.quiet = quiet;
        catch_signals();
        rc = serve_http(&src, dev->name, bind_addr, (uint32_t)serve_port, seconds);
    } else {
        rc = run_window(&v, &d, session, mirror, snapdir, seconds);
    }

out_session:
    camcore_session_free(session); /* the camera off; no callback after this */
    camcore_frame_release(v.pending);
out_devices:
    free_devices(&d);
out_sdl:
    close_sdl();
    if (v.wake_fd >= 0)
        close(v.wake_fd);
    pthread_mutex_destroy(&v.lock);
    return rc;
}
