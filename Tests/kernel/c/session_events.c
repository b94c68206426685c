// SPDX-License-Identifier: MIT
/*
 * session_events — drives one camcore video session for the kernel hot-plug
 * and fault tests (Tests/kernel/test_hotplug.py, test_faults.py).
 *
 * It creates a manager and a session, adds one preview (the camera turns on,
 * S9) and then reports, one line each on stdout (CLOCK_MONOTONIC ns, the
 * clock of Python's time.monotonic_ns(), so the test can compare with its
 * own trigger times):
 *
 *   READY <ns> <device id or ->              the preview is added (or failed: see ADD)
 *   ADD <ns> <status> <message>              status of camcore_session_add_preview
 *   EV <ns> connected <id> <node>            session device callbacks (camera queue)
 *   EV <ns> disconnected <id> <node>
 *   EV <ns> selected <id> <node> <FOURCC> <w> <h>
 *   EV <ns> error <id> <status> <message>
 *   F <ns> <seq> <ts_ns> <w> <h> <flags> <y0> <y7>   one per preview frame; y0/y7:
 *                                            luma at the centres of the first and
 *                                            last of 8 vertical bars, next-to-last row
 *   STATE <ns> <camera_on> <preview_count> <device id or -> <FOURCC> <w> <h>
 *   DONE <ns> <what> <status>                completion of stop/restart
 *   BYE <session_free_us> <manager_free_us>  after "quit"
 *
 * Commands on stdin, one per line: state | stop | restart | quit.
 *
 * Options: --synthetic N (list N synthetic cameras), --device ID,
 *          --no-return (return_to_reconnected_device = 0), --size WxH
 *          (the preference; default 320x180), --no-preview.
 */
#define _GNU_SOURCE

#include <camcore.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&out_lock);
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
    pthread_mutex_unlock(&out_lock);
}

static const char *str(const char *s) { return s && *s ? s : "-"; }

/* One token: spaces in messages would break the line format only at the end. */
static void fourcc_text(uint32_t f, char out[5])
{
    if (f == 0) {
        strcpy(out, "-");
        return;
    }
    camcore_fourcc_to_string(f, out);
    for (int i = 0; i < 4; i++)
        if (out[i] == ' ' || out[i] == 0) out[i] = '_';
    out[4] = 0;
}

static uint8_t sample(const camcore_frame *f, uint32_t x)
{
    const camcore_plane *p = &f->planes[0];
    uint32_t row = f->height > 2 ? f->height - 2 : 0; /* below any OSD text */
    size_t off = (size_t)row * p->stride + (f->fourcc == CAMCORE_FOURCC_YUYV ? 2u * x : x);
    if (!p->data || p->stride == 0 || off >= p->length) return 0;
    return p->data[off];
}

static void on_frame(void *ud, const camcore_frame *f)
{
    (void)ud;
    uint32_t x0 = f->width / 16, x7 = 15 * f->width / 16;
    say("F %" PRIu64 " %u %" PRIu64 " %u %u %u %u %u", now_ns(), f->sequence, f->timestamp_ns,
        f->width, f->height, f->flags, sample(f, x0), sample(f, x7));
}

static void on_connected(void *ud, const camcore_device_info *d)
{
    (void)ud;
    say("EV %" PRIu64 " connected %s %s", now_ns(), str(d->id), str(d->node));
}

static void on_disconnected(void *ud, const camcore_device_info *d)
{
    (void)ud;
    say("EV %" PRIu64 " disconnected %s %s", now_ns(), str(d->id), str(d->node));
}

static void on_selected(void *ud, const camcore_device_info *d, const camcore_capture_format *f)
{
    (void)ud;
    char fc[5];
    fourcc_text(f ? f->fourcc : 0, fc);
    say("EV %" PRIu64 " selected %s %s %s %u %u", now_ns(), str(d->id), str(d->node), fc,
        f ? f->width : 0, f ? f->height : 0);
}

static void on_error(void *ud, const camcore_device_info *d, int status, const char *message)
{
    (void)ud;
    say("EV %" PRIu64 " error %s %d %s", now_ns(), d ? str(d->id) : "-", status, str(message));
}

static void completion(void *ud, int status)
{
    say("DONE %" PRIu64 " %s %d", now_ns(), (const char *)ud, status);
}

static void print_state(camcore_session *s)
{
    camcore_session_state st;
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    st.format.struct_size = sizeof st.format;
    int rc = camcore_session_get_state(s, &st);
    if (rc != CAMCORE_OK) {
        say("STATE %" PRIu64 " error %d %s", now_ns(), rc, camcore_last_error_message());
        return;
    }
    char fc[5];
    fourcc_text(st.format.fourcc, fc);
    say("STATE %" PRIu64 " %d %u %s %s %u %u", now_ns(), st.camera_on, st.preview_count,
        str(st.device_id), fc, st.format.width, st.format.height);
}

int main(int argc, char **argv)
{
    int synthetic = 0, no_return = 0, preview = 1;
    const char *device = NULL;
    uint32_t width = 320, height = 180;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--synthetic") && i + 1 < argc) synthetic = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--device") && i + 1 < argc) device = argv[++i];
        else if (!strcmp(argv[i], "--no-return")) no_return = 1;
        else if (!strcmp(argv[i], "--no-preview")) preview = 0;
        else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            if (sscanf(argv[++i], "%ux%u", &width, &height) != 2) return 2;
        } else {
            fprintf(stderr, "usage: %s [--synthetic N] [--device ID] [--no-return] [--size WxH] [--no-preview]\n",
                    argv[0]);
            return 2;
        }
    }

    camcore_manager_config mc;
    camcore_manager_config_init(&mc);
    mc.include_synthetic = synthetic;
    camcore_manager *m = NULL;
    int rc = camcore_manager_new(&mc, &m);
    if (rc != CAMCORE_OK) {
        say("FAIL manager_new %d %s", rc, camcore_last_error_message());
        return 1;
    }

    camcore_session_config sc;
    camcore_session_config_init(&sc);
    sc.device_id = device;
    sc.preference.width = width;
    sc.preference.height = height;
    sc.return_to_reconnected_device = no_return ? 0 : 1;
    camcore_session *s = NULL;
    rc = camcore_session_new(m, &sc, &s);
    if (rc != CAMCORE_OK) {
        say("FAIL session_new %d %s", rc, camcore_last_error_message());
        return 1;
    }

    camcore_device_callbacks dc;
    memset(&dc, 0, sizeof dc);
    dc.struct_size = sizeof dc;
    dc.on_connected = on_connected;
    dc.on_disconnected = on_disconnected;
    dc.on_selected = on_selected;
    dc.on_error = on_error;
    rc = camcore_session_set_device_callbacks(s, &dc);
    if (rc != CAMCORE_OK) {
        say("FAIL set_device_callbacks %d %s", rc, camcore_last_error_message());
        return 1;
    }

    if (preview) {
        camcore_frame_callbacks fc;
        camcore_frame_callbacks_init(&fc);
        fc.on_frame = on_frame;
        uint32_t id = 0;
        rc = camcore_session_add_preview(s, &fc, &id);
        say("ADD %" PRIu64 " %d %s", now_ns(), rc, rc ? camcore_last_error_message() : "ok");
    }
    {
        camcore_session_state st;
        memset(&st, 0, sizeof st);
        st.struct_size = sizeof st;
        st.format.struct_size = sizeof st.format;
        camcore_session_get_state(s, &st);
        say("READY %" PRIu64 " %s", now_ns(), str(st.device_id));
    }

    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, stdin) > 0) {
        line[strcspn(line, "\r\n")] = 0;
        if (!strcmp(line, "state")) {
            print_state(s);
        } else if (!strcmp(line, "stop")) {
            camcore_session_stop(s, completion, "stop");
        } else if (!strcmp(line, "restart")) {
            camcore_session_restart(s, completion, "restart");
        } else if (!strcmp(line, "quit")) {
            break;
        } else if (*line) {
            say("UNKNOWN %s", line);
        }
    }
    free(line);
    uint64_t t0 = now_ns();
    camcore_session_free(s);
    uint64_t t1 = now_ns();
    camcore_manager_free(m);
    uint64_t t2 = now_ns();
    say("BYE %" PRIu64 " %" PRIu64, (t1 - t0) / 1000, (t2 - t1) / 1000);
    return 0;
}
