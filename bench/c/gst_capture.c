// SPDX-License-Identifier: MIT
/*
 * gst_capture — the GStreamer rows of the benchmark (row 10, issue 33): runs
 * a pipeline written as for gst-launch-1.0 whose sink is named "sink" and
 * measures the CPU the whole process spends per buffer that reaches it.
 *
 *   gst_capture [--frames 300] [--warmup 25] [--timeout 300] [--perf-ctl FIFO] PIPELINE...
 *
 *   gst_capture --frames 300 -- camcoresrc name=src device=/dev/video0 \
 *       ! video/x-raw,format=YUY2,width=640,height=480,framerate=25/1 ! fakesink name=sink
 *
 * A buffer probe on the sink's pad counts buffers. At the --warmup-th buffer
 * it takes getrusage(RUSAGE_SELF) (user+sys of every thread of the process:
 * the source's threads, camcore's capture thread, the streaming thread, the
 * main thread) and the clock, at the (--warmup + --frames)-th again, and
 * tells the main thread (an application message on the bus), which stops
 * the pipeline. The probe costs the same few instructions on every pipeline.
 * The main thread sleeps on the bus meanwhile (no polling), as
 * gst-launch-1.0 does.
 *
 * Prints one JSON line: cpu_ns_per_frame (and user/sys apart), context
 * switches per frame (voluntary + involuntary, all threads), the measured
 * rate, the CPU of the whole process up to the first buffer and up to the
 * end (after the pipeline went to NULL), VmHWM, the caps on the pads of the
 * elements named "src" and "sink", and from camcoresrc (when the source is
 * one, named "src") its stats and, from its session's state
 * (camcore_session_get_state, looked up in the libcamcore the plugin
 * loaded: the program itself does not link libcamcore), the driver's format,
 * the delivered one and the buffer count. Exit status 0 when the frames were measured, 1 otherwise (an
 * error on the bus, EOS or the timeout first).
 */
#define _GNU_SOURCE
#include "bench_util.h"

#include <camcore.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>
#include <gst/gst.h>

typedef struct {
    guint64 cpu_ns, user_ns, sys_ns, csw, wall_ns;
} sample;

static struct {
    guint warmup, frames;
    int perf_ctl;                /* fd of perf's control FIFO, or -1 */
    guint count;                 /* buffers seen by the probe */
    sample first, start, end;    /* at the 1st, the warmup-th and the last buffer */
    GstElement *pipeline;
} g;

static void take(sample *s)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    s->user_ns = (guint64)ru.ru_utime.tv_sec * 1000000000u + (guint64)ru.ru_utime.tv_usec * 1000u;
    s->sys_ns = (guint64)ru.ru_stime.tv_sec * 1000000000u + (guint64)ru.ru_stime.tv_usec * 1000u;
    s->cpu_ns = s->user_ns + s->sys_ns;
    s->csw = (guint64)ru.ru_nvcsw + (guint64)ru.ru_nivcsw;
    s->wall_ns = bench_now_ns();
}

static GstPadProbeReturn on_buffer(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
    (void)pad; (void)info; (void)data;
    guint n = ++g.count;   /* one streaming thread pushes into the sink */
    if (n == 1) take(&g.first);
    if (n == g.warmup) {
        if (g.perf_ctl >= 0 && write(g.perf_ctl, "enable\n", 7) < 0) perror("gst_capture: perf-ctl");
        take(&g.start);
    }
    if (n == g.warmup + g.frames) {
        take(&g.end);
        if (g.perf_ctl >= 0 && write(g.perf_ctl, "disable\n", 8) < 0) perror("gst_capture: perf-ctl");
        gst_element_post_message(g.pipeline, gst_message_new_application(
            GST_OBJECT(g.pipeline), gst_structure_new_empty("gst-capture-done")));
    }
    return GST_PAD_PROBE_OK;
}

/* s as a JSON string body: quotes and backslashes escaped, control characters dropped. */
static char *json_str(const char *s)
{
    GString *o = g_string_new(NULL);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\') g_string_append_c(o, '\\');
        if ((unsigned char)*s >= 0x20) g_string_append_c(o, *s);
    }
    return g_string_free(o, FALSE);
}

static char *pad_caps(GstElement *pipeline, const char *element, const char *pad)
{
    GstElement *e = gst_bin_get_by_name(GST_BIN(pipeline), element);
    char *out = NULL;
    if (e) {
        GstPad *p = gst_element_get_static_pad(e, pad);
        GstCaps *c = p ? gst_pad_get_current_caps(p) : NULL;
        if (c) { char *t = gst_caps_to_string(c); out = json_str(t); g_free(t); gst_caps_unref(c); }
        if (p) gst_object_unref(p);
        gst_object_unref(e);
    }
    return out ? out : g_strdup("");
}

/* "YUYV>I420 4 buffers": camcoresrc's session format (driver's > delivered), or "". */
static char *session_format(GstElement *src)
{
    GParamSpec *ps = g_object_class_find_property(G_OBJECT_GET_CLASS(src), "session");
    void *lib = ps ? dlopen("libcamcore.so.0", RTLD_NOW | RTLD_NOLOAD) : NULL;
    int (*get_state)(camcore_session *, camcore_session_state *) =
        lib ? (int (*)(camcore_session *, camcore_session_state *))dlsym(lib, "camcore_session_get_state") : NULL;
    char *out = NULL;
    if (get_state) {
        gpointer session = NULL;
        g_object_get(src, "session", &session, NULL);
        camcore_session_state st;
        memset(&st, 0, sizeof st);
        st.struct_size = sizeof st;
        st.format.struct_size = sizeof st.format;
        if (session && get_state(session, &st) == CAMCORE_OK && st.camera_on) {
            char a[5], b[5];
            out = g_strdup_printf("%s>%s %u buffers", bench_fourcc_str(st.format.source_fourcc, a),
                                  bench_fourcc_str(st.format.fourcc, b), st.format.buffer_count);
        }
    }
    if (lib) dlclose(lib);
    return out ? out : g_strdup("");
}

static double per_frame(guint64 a, guint64 b, guint n) { return n ? (double)(b - a) / n : 0; }

int main(int argc, char **argv)
{
    g.frames = 300;
    g.warmup = 25;
    double timeout_s = 300;
    g.perf_ctl = -1;
    int i = 1;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) g.frames = (guint)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) g.warmup = (guint)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) timeout_s = atof(argv[++i]);
        else if (!strcmp(argv[i], "--perf-ctl") && i + 1 < argc) {
            if ((g.perf_ctl = open(argv[++i], O_WRONLY)) < 0) { perror("gst_capture: --perf-ctl"); return 2; }
        }
        else if (!strcmp(argv[i], "--")) { i++; break; }
        else if (argv[i][0] == '-' && argv[i][1] == '-') { fprintf(stderr, "gst_capture: unknown option %s\n", argv[i]); return 2; }
        else break;
    }
    if (i >= argc || !g.frames) {
        fprintf(stderr, "usage: gst_capture [--frames N] [--warmup W] [--timeout S] PIPELINE...\n");
        return 2;
    }
    if (g.warmup < 1) g.warmup = 1;
    gst_init(NULL, NULL);

    GError *err = NULL;
    g.pipeline = gst_parse_launchv((const gchar **)(argv + i), &err);
    if (!g.pipeline || err) {
        fprintf(stderr, "gst_capture: pipeline: %s\n", err ? err->message : "?");
        return 1;
    }
    GstElement *sink = gst_bin_get_by_name(GST_BIN(g.pipeline), "sink");
    GstPad *sinkpad = sink ? gst_element_get_static_pad(sink, "sink") : NULL;
    if (!sinkpad) { fprintf(stderr, "gst_capture: no element named \"sink\" with a sink pad\n"); return 2; }
    gst_pad_add_probe(sinkpad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, NULL, NULL);
    gst_object_unref(sinkpad);
    gst_object_unref(sink);

    GstBus *bus = gst_element_get_bus(g.pipeline);
    if (gst_element_set_state(g.pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
        fprintf(stderr, "gst_capture: the pipeline would not start\n");
    guint64 deadline = bench_now_ns() + (guint64)(timeout_s * 1e9);
    int ok = 0;
    char *camera_format = g_strdup(""), *stats = g_strdup("");
    for (;;) {
        guint64 now = bench_now_ns();
        if (now >= deadline) { fprintf(stderr, "gst_capture: timeout after %u buffers\n", g.count); break; }
        GstMessage *m = gst_bus_timed_pop_filtered(bus, deadline - now,
            GST_MESSAGE_ERROR | GST_MESSAGE_EOS | GST_MESSAGE_APPLICATION);
        if (!m) continue;
        const GstStructure *s = gst_message_get_structure(m);
        int stop = 0;
        if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) {
            GError *e = NULL; gchar *dbg = NULL;
            gst_message_parse_error(m, &e, &dbg);
            fprintf(stderr, "gst_capture: ERROR from %s: %s (%s)\n", GST_OBJECT_NAME(GST_MESSAGE_SRC(m)),
                    e ? e->message : "?", dbg ? dbg : "");
            g_clear_error(&e); g_free(dbg);
            stop = 1;
        } else if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS) {
            fprintf(stderr, "gst_capture: EOS after %u buffers\n", g.count);
            stop = 1;
        } else if (s && gst_structure_has_name(s, "gst-capture-done")) {
            ok = 1;
            stop = 1;
        }
        gst_message_unref(m);
        if (stop) break;
    }
    char *src_caps = pad_caps(g.pipeline, "src", "src"), *sink_caps = pad_caps(g.pipeline, "sink", "sink");
    GstElement *src = gst_bin_get_by_name(GST_BIN(g.pipeline), "src");
    if (src) { g_free(camera_format); camera_format = session_format(src); }
    if (src && g_object_class_find_property(G_OBJECT_GET_CLASS(src), "stats")
        && G_PARAM_SPEC_VALUE_TYPE(g_object_class_find_property(G_OBJECT_GET_CLASS(src), "stats")) == GST_TYPE_STRUCTURE) {
        GstStructure *st = NULL;
        g_object_get(src, "stats", &st, NULL);
        if (st) { char *t = gst_structure_to_string(st); g_free(stats); stats = json_str(t); g_free(t); gst_structure_free(st); }
    }
    if (src) gst_object_unref(src);
    gst_element_set_state(g.pipeline, GST_STATE_NULL);
    gst_object_unref(bus);
    gst_object_unref(g.pipeline);
    sample last;
    take(&last);
    if (!ok) { fprintf(stderr, "gst_capture: %u of %u buffers\n", g.count, g.warmup + g.frames); return 1; }

    double win_s = (double)(g.end.wall_ns - g.start.wall_ns) / 1e9;
    bench_json j;
    bench_json_begin(&j);
    bench_json_addf(&j, "frames", "%u", g.frames);
    bench_json_addf(&j, "warmup", "%u", g.warmup);
    bench_json_addf(&j, "cpu_ns_per_frame", "%.1f", per_frame(g.start.cpu_ns, g.end.cpu_ns, g.frames));
    bench_json_addf(&j, "user_ns_per_frame", "%.1f", per_frame(g.start.user_ns, g.end.user_ns, g.frames));
    bench_json_addf(&j, "sys_ns_per_frame", "%.1f", per_frame(g.start.sys_ns, g.end.sys_ns, g.frames));
    bench_json_addf(&j, "csw_per_frame", "%.2f", per_frame(g.start.csw, g.end.csw, g.frames));
    bench_json_addf(&j, "measured_fps", "%.2f", win_s > 0 ? g.frames / win_s : 0);
    bench_json_addf(&j, "window_s", "%.3f", win_s);
    bench_json_addf(&j, "first_buffer_cpu_ms", "%.3f", g.first.cpu_ns / 1e6);
    bench_json_addf(&j, "process_cpu_ms", "%.3f", last.cpu_ns / 1e6);
    bench_json_addf(&j, "vm_hwm_kb", "%ld", bench_status_kb("VmHWM"));
    bench_json_addf(&j, "src_caps", "\"%s\"", src_caps);
    bench_json_addf(&j, "sink_caps", "\"%s\"", sink_caps);
    bench_json_addf(&j, "camera_format", "\"%s\"", camera_format);
    bench_json_addf(&j, "src_stats", "\"%s\"", stats);
    bench_json_end(&j);
    g_free(src_caps); g_free(sink_caps); g_free(camera_format); g_free(stats);
    return 0;
}
