// SPDX-License-Identifier: MIT
/*
 * camcore_capture — the camcore side of the benchmark: receives frames
 * through libcamcore's public C API (include/camcore.h) and measures what
 * that costs.
 *
 *   camcore_capture --device /dev/video0|ID|synthetic [--device ...]
 *                   [--fourcc YUYV] [--size 640x480] [--fps 120|0]
 *                   [--frames 300] [--warmup 10] [--buffers 4]
 *                   [--output I420|NV12|RGB24]   camcore converts (S8)
 *                   [--app-convert I420|RGB24]   native frames, and the app
 *                                                calls libyuv / TurboJPEG
 *                                                itself (the reference)
 *                   [--app-route NAME]           which libyuv route it calls
 *                                                (bench_util.h bench_routes;
 *                                                default: the first listed)
 *                   [--first-frame] [--callgrind] [--timeout 120]
 *                   [--pull]   frames taken with camcore_capturer_acquire_frame()
 *                              on the main thread (S36), one device
 *
 * Each frame is touched (one byte read) in the callback, as bare_capture
 * does. CPU (getrusage user+sys, all threads) and wall time are taken from
 * the moment every device has delivered --warmup frames (so opening and
 * starting the later devices is not counted) over the next --frames per
 * device, counted across devices. --fps 0 keeps the
 * driver's rate; a rate above the format's maximum is clamped by camcore
 * (S7), so --fps 120 means "the fastest the device does".
 * --first-frame measures camcore_capturer_open() -> first on_frame and
 * exits. --callgrind zeroes callgrind's counters where the measurement
 * starts and dumps them at its last frame, so a run under valgrind --tool=callgrind
 * counts exactly the measured frames.
 * Prints one JSON line.
 */
#define _GNU_SOURCE
#include "bench_util.h"

#include <camcore.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <valgrind/callgrind.h>

#define MAX_DEVS 8

struct cap {
    camcore_capturer *c;
    char id[512];
    bench_refconv conv;
    int have_conv;
    uint64_t dropped;   /* summed dropped_before of measured frames */
    uint64_t frames;    /* delivered, this device (its capture thread only) */
};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    atomic_ullong total;
    atomic_ullong start_total;  /* total when the measurement began; 0 before */
    atomic_int ready;           /* devices past their warm-up */
    int ndev;
    uint64_t warmup, want;      /* per device; measured frames in all */
    uint64_t cpu0, wall0, cpu1, wall1;
    int callgrind;
    int first_frame;
    uint64_t t_first, cpu_first;
    uint32_t app_convert;
    const char *app_route;
    volatile uint32_t sink;
} g = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static void finish(void)
{
    pthread_mutex_lock(&g.lock);
    g.done = 1;
    pthread_cond_broadcast(&g.cond);
    pthread_mutex_unlock(&g.lock);
}

static void on_frame(void *user_data, const camcore_frame *f)
{
    struct cap *cap = user_data;
    if (g.first_frame) {
        if (!g.t_first) { g.t_first = bench_now_ns(); g.cpu_first = bench_cpu_ns(); finish(); }
        return;
    }
    g.sink += f->planes[0].data[0];
    uint64_t n = atomic_fetch_add(&g.total, 1) + 1;
    cap->frames++;
    uint64_t start = atomic_load(&g.start_total);
    if (!start) {
        /* Warm-up: the measurement starts once every device has delivered
         * its warm-up frames, so that opening and starting the later
         * devices is not counted as frame-path CPU. */
        if (cap->frames == g.warmup && atomic_fetch_add(&g.ready, 1) + 1 == g.ndev) {
            if (g.callgrind) CALLGRIND_ZERO_STATS;
            g.cpu0 = bench_cpu_ns();
            g.wall0 = bench_now_ns();
            atomic_store(&g.start_total, n);
        }
        return;
    }
    uint64_t m = n - start;   /* measured frames so far, this one included */
    if (m > g.want) return;   /* past the measurement: ignore */
    if (cap->have_conv)
        bench_refconv_run(&cap->conv, f->planes[0].data, (int)f->planes[0].stride, f->planes[1].data,
                          (int)f->planes[1].stride, f->planes[0].length);
    cap->dropped += f->dropped_before;
    if (m == g.want) {
        g.cpu1 = bench_cpu_ns();
        g.wall1 = bench_now_ns();
        if (g.callgrind) CALLGRIND_DUMP_STATS_AT("measured frames");
        finish();
    }
}

static void on_error(void *user_data, int status, const char *message)
{
    (void)user_data;
    fprintf(stderr, "camcore_capture: capture ended: %s: %s\n", camcore_strerror(status), message);
    finish();
}

static int wait_done(int seconds)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += seconds;
    pthread_mutex_lock(&g.lock);
    int rc = 0;
    while (!g.done && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&g.cond, &g.lock, &ts);
    int done = g.done;
    pthread_mutex_unlock(&g.lock);
    return done ? 0 : -1;
}

static int find_device(const camcore_device_list *l, const char *want, char *id, size_t n)
{
    for (size_t i = 0; i < l->count; i++) {
        const camcore_device_info *d = &l->devices[i];
        int synth = (d->flags & CAMCORE_DEVICE_SYNTHETIC) != 0;
        if (!strcmp(d->id, want) || !strcmp(d->node, want) || (synth && !strcmp(want, "synthetic"))) {
            snprintf(id, n, "%s", d->id);
            return 0;
        }
    }
    return -1;
}

static void fail(const char *what, int rc)
{
    fprintf(stderr, "camcore_capture: %s: %s (%s)\n", what, camcore_strerror(rc), camcore_last_error_message());
    exit(1);
}

int main(int argc, char **argv)
{
    int pull = 0;
    const char *want[MAX_DEVS];
    int ndev = 0;
    uint32_t fourcc = BENCH_YUYV, w = 640, h = 480, fps = 120, frames = 300, warmup = 10, nbufs = 4;
    uint32_t output = CAMCORE_FOURCC_NATIVE;
    int synthetic = 0, timeout_s = 120;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--device") && v && ndev < MAX_DEVS) {
            want[ndev++] = v; i++;
            if (!strcmp(v, "synthetic") || !strncmp(v, "synthetic:", 10)) synthetic = 1;
        }
        else if (!strcmp(a, "--fourcc") && v) { fourcc = bench_parse_fourcc(v); i++; }
        else if (!strcmp(a, "--size") && v) { if (bench_parse_size(v, &w, &h)) return 2; i++; }
        else if (!strcmp(a, "--fps") && v) { fps = (uint32_t)atoi(v); i++; }
        else if (!strcmp(a, "--frames") && v) { frames = (uint32_t)atoi(v); i++; }
        else if (!strcmp(a, "--warmup") && v) { warmup = (uint32_t)atoi(v); i++; }
        else if (!strcmp(a, "--buffers") && v) { nbufs = (uint32_t)atoi(v); i++; }
        else if (!strcmp(a, "--output") && v) { output = bench_parse_fourcc(v); i++; }
        else if (!strcmp(a, "--app-convert") && v) { g.app_convert = bench_parse_fourcc(v); i++; }
        else if (!strcmp(a, "--app-route") && v) { g.app_route = v; i++; }
        else if (!strcmp(a, "--first-frame")) g.first_frame = 1;
        else if (!strcmp(a, "--callgrind")) g.callgrind = 1;
        else if (!strcmp(a, "--pull")) pull = 1;
        else if (!strcmp(a, "--timeout") && v) { timeout_s = atoi(v); i++; }
        else { fprintf(stderr, "camcore_capture: bad argument %s\n", a); return 2; }
    }
    if (!ndev || !fourcc || !frames || !warmup) { fprintf(stderr, "camcore_capture: need --device, --warmup >= 1\n"); return 2; }
    g.ndev = ndev;
    g.warmup = warmup;
    g.want = (uint64_t)frames * (uint64_t)ndev;

    uint64_t t_mgr = bench_now_ns(), cpu_mgr = bench_cpu_ns();
    camcore_manager_config mc;
    camcore_manager_config_init(&mc);
    mc.include_synthetic = synthetic;
    camcore_manager *m = NULL;
    int rc = camcore_manager_new(&mc, &m);
    if (rc) fail("camcore_manager_new", rc);
    camcore_device_list *list = NULL;
    if ((rc = camcore_manager_list_devices(m, &list))) fail("camcore_manager_list_devices", rc);

    static struct cap caps[MAX_DEVS];
    for (int i = 0; i < ndev; i++) {
        if (find_device(list, want[i], caps[i].id, sizeof caps[i].id)) {
            fprintf(stderr, "camcore_capture: no device %s among %zu\n", want[i], list->count);
            return 1;
        }
    }
    camcore_capture_config cfg;
    camcore_capture_config_init(&cfg);
    cfg.fourcc = fourcc;
    cfg.width = w;
    cfg.height = h;
    cfg.fps.numerator = fps;
    cfg.fps.denominator = fps ? 1 : 0;
    cfg.buffer_count = nbufs;
    cfg.output_fourcc = output;

    uint64_t t_open = bench_now_ns(), cpu_open = bench_cpu_ns(), cpu_opened = 0, cpu_started = 0;
    long flt_open = bench_minflt(), flt_opened = 0, flt_started = 0;
    for (int i = 0; i < ndev; i++) {
        if ((rc = camcore_capturer_open(m, caps[i].id, &caps[i].c))) fail("camcore_capturer_open", rc);
        if (!i) { cpu_opened = bench_cpu_ns(); flt_opened = bench_minflt(); }
        if (g.app_convert) {
            if (bench_refconv_init(&caps[i].conv, fourcc, g.app_convert, (int)w, (int)h, g.app_route)) {
                fprintf(stderr, "camcore_capture: no reference conversion for that pair\n");
                return 2;
            }
            caps[i].have_conv = 1;
        }
        if (pull) {
            if (ndev != 1 || g.first_frame) { fprintf(stderr, "camcore_capture: --pull takes one device\n"); return 2; }
            if ((rc = camcore_capturer_start_pull(caps[i].c, &cfg, 2))) fail("camcore_capturer_start_pull", rc);
            break;
        }
        camcore_frame_callbacks cb;
        camcore_frame_callbacks_init(&cb);
        cb.user_data = &caps[i];
        cb.on_frame = on_frame;
        cb.on_error = on_error;
        if ((rc = camcore_capturer_start(caps[i].c, &cfg, &cb))) fail("camcore_capturer_start", rc);
        if (!i) { cpu_started = bench_cpu_ns(); flt_started = bench_minflt(); }
    }
    int ok;
    if (pull) {
        /* The same per-frame work as on_frame, on this thread. */
        ok = 1;
        for (uint64_t k = 0; k < g.warmup + g.want; k++) {
            const camcore_frame *f = NULL;
            if ((rc = camcore_capturer_acquire_frame(caps[0].c, timeout_s * 1000, &f))) {
                fprintf(stderr, "camcore_capture: acquire: %s\n", camcore_strerror(rc));
                ok = 0;
                break;
            }
            on_frame(&caps[0], f);
            camcore_frame_release(f);
        }
    } else {
        ok = wait_done(timeout_s) == 0;
    }
    uint64_t t_done = bench_now_ns();
    long hwm = bench_status_kb("VmHWM"), rss = bench_status_kb("VmRSS");

    camcore_capture_format fmt;
    memset(&fmt, 0, sizeof fmt);
    fmt.struct_size = sizeof fmt;
    camcore_capturer_get_format(caps[0].c, &fmt);
    uint64_t corrupted = 0, dropped = 0;
    for (int i = 0; i < ndev; i++) {
        camcore_capture_stats st;
        memset(&st, 0, sizeof st);
        st.struct_size = sizeof st;
        camcore_capturer_stop(caps[i].c);
        camcore_capturer_get_stats(caps[i].c, &st);
        corrupted += st.frames_corrupted;
        dropped += caps[i].dropped;
        camcore_capturer_close(caps[i].c);
    }
    camcore_device_list_free(list);
    camcore_manager_free(m);
    if (!ok) { fprintf(stderr, "camcore_capture: timed out waiting for frames\n"); return 1; }

    char f4[5];
    bench_json j;
    bench_json_begin(&j);
    bench_json_addf(&j, "prog", "\"camcore\"");
    if (g.first_frame) {
        bench_json_addf(&j, "open_to_first_frame_ms", "%.3f", (double)(g.t_first - t_open) / 1e6);
        bench_json_addf(&j, "manager_to_first_frame_ms", "%.3f", (double)(g.t_first - t_mgr) / 1e6);
        bench_json_addf(&j, "open_to_first_frame_cpu_ms", "%.3f", (double)(g.cpu_first - cpu_open) / 1e6);
        /* Where it goes: camcore_capturer_open, camcore_capturer_start, the wait for the frame. */
        bench_json_addf(&j, "open_cpu_ms", "%.3f", (double)(cpu_opened - cpu_open) / 1e6);
        bench_json_addf(&j, "start_cpu_ms", "%.3f", (double)(cpu_started - cpu_opened) / 1e6);
        /* Minor page faults in each (library code and data touched for the first time). */
        bench_json_addf(&j, "open_minflt", "%ld", flt_opened - flt_open);
        bench_json_addf(&j, "start_minflt", "%ld", flt_started - flt_opened);
        bench_json_addf(&j, "to_first_frame_minflt", "%ld", bench_minflt() - flt_open);
        bench_json_addf(&j, "manager_to_first_frame_cpu_ms", "%.3f", (double)(g.cpu_first - cpu_mgr) / 1e6);
        bench_json_end(&j);
        return 0;
    }
    (void)t_done;
    uint64_t want_frames = g.want;
    bench_json_addf(&j, "devices", "%d", ndev);
    bench_json_addf(&j, "fourcc", "\"%s\"", bench_fourcc_str(fmt.source_fourcc ? fmt.source_fourcc : fmt.fourcc, f4));
    bench_json_addf(&j, "output", "\"%s\"", output ? bench_fourcc_str(fmt.fourcc, f4) : "");
    bench_json_addf(&j, "app_convert", "\"%s\"", g.app_convert ? bench_fourcc_str(g.app_convert, f4) : "");
    bench_json_addf(&j, "app_route", "\"%s\"", caps[0].have_conv && caps[0].conv.route ? caps[0].conv.route->name : "");
    bench_json_addf(&j, "width", "%u", fmt.width);
    bench_json_addf(&j, "height", "%u", fmt.height);
    bench_json_addf(&j, "fps", "%.3f", fmt.fps.denominator ? (double)fmt.fps.numerator / fmt.fps.denominator : 0.0);
    bench_json_addf(&j, "buffers", "%u", fmt.buffer_count);
    bench_json_addf(&j, "frames", "%llu", (unsigned long long)want_frames);
    bench_json_addf(&j, "cpu_ns_per_frame", "%.1f", (double)(g.cpu1 - g.cpu0) / (double)want_frames);
    bench_json_addf(&j, "wall_s", "%.3f", (double)(g.wall1 - g.wall0) / 1e9);
    bench_json_addf(&j, "measured_fps", "%.2f", (double)want_frames * 1e9 / (double)(g.wall1 - g.wall0 + 1));
    bench_json_addf(&j, "dropped", "%llu", (unsigned long long)dropped);
    bench_json_addf(&j, "corrupted", "%llu", (unsigned long long)corrupted);
    bench_json_addf(&j, "vm_hwm_kb", "%ld", hwm);
    bench_json_addf(&j, "vm_rss_kb", "%ld", rss);
    bench_json_end(&j);
    for (int i = 0; i < ndev; i++) if (caps[i].have_conv) bench_refconv_free(&caps[i].conv);
    return 0;
}
