// SPDX-License-Identifier: MIT
/*
 * camcore capture [DEVICE] [...]: capture with a live progress line, a
 * summary, a PNG snapshot (camcore_frame_convert to RGB) and the frames,
 * raw or as a Y4M stream, to a file or stdout.
 */
#include "camcore_tool.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct capture {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    uint64_t frames;            /* frames counted (up to limit) */
    uint64_t limit;             /* 0 = no frame limit */
    int done;                   /* limit reached */
    int error_status;           /* on_error */
    char error_message[512];
    double last_frame_s;
    const camcore_frame *kept;  /* the last frame, retained, for --snapshot */
    int keep;
    FILE *out;                  /* --output */
    uint64_t out_bytes;
    int out_error;              /* errno of a failed write (EPIPE: the reader went away) */
    int y4m;                    /* --container y4m: a header, then FRAME + planes */
    int y4m_started;            /* the header is written */
    int full_range;             /* Y4M from MJPEG: JFIF full-range values */
    const camcore_capturer *cap;/* for the format, read on the first frame */
};

/* Bytes of each row and rows of plane p for a raw format (the table's
 * tight sizes); 0 if not raw. */
static int plane_rows(uint32_t fourcc, uint32_t w, uint32_t h, uint32_t p, uint32_t *row_bytes,
                      uint32_t *rows)
{
    return camcore_pixel_format_plane_size(fourcc, w, h, p, row_bytes, rows) == CAMCORE_OK;
}

/* Writes one frame to --output: raw formats row by row without padding,
 * anything else (MJPEG, or a frame whose planes are not the table's, such
 * as NV24 in one plane) as its bytes. */
static void put(struct capture *c, const void *data, size_t n)
{
    if (!c->out_error && fwrite(data, 1, n, c->out) != n)
        c->out_error = errno ? errno : EIO;
    c->out_bytes += n;
}

/* The YUV4MPEG2 stream header (what ffmpeg and mpv read from a pipe):
 * size, rate, progressive, square pixels, 4:2:0 with JPEG chroma siting,
 * and the value range (camcore's conversions give limited range, an MJPEG
 * camera's decoded frames full range). */
static void write_y4m_header(struct capture *c, const camcore_frame *f)
{
    camcore_capture_format fmt;
    char header[160];
    int n;

    memset(&fmt, 0, sizeof fmt);
    fmt.struct_size = sizeof fmt;
    if (camcore_capturer_get_format(c->cap, &fmt) != CAMCORE_OK || !fmt.fps.numerator || !fmt.fps.denominator)
        fmt.fps.numerator = 30, fmt.fps.denominator = 1;
    n = snprintf(header, sizeof header, "YUV4MPEG2 W%" PRIu32 " H%" PRIu32 " F%" PRIu32 ":%" PRIu32
                 " Ip A1:1 C420jpeg XCOLORRANGE=%s\n", f->width, f->height, fmt.fps.numerator,
                 fmt.fps.denominator, c->full_range ? "FULL" : "LIMITED");
    put(c, header, (size_t)n);
    c->y4m_started = 1;
}

static void write_frame(struct capture *c, const camcore_frame *f)
{
    uint32_t p, r, row_bytes, rows;
    camcore_pixel_format_info info;
    int tight;

    if (c->y4m) {
        if (!c->y4m_started)
            write_y4m_header(c, f);
        put(c, "FRAME\n", 6);
    }

    info.struct_size = sizeof info;
    tight = camcore_pixel_format_get_info(f->fourcc, &info) == CAMCORE_OK &&
            info.plane_count == f->plane_count;
    for (p = 0; p < f->plane_count && p < 3 && !c->out_error; p++) {
        const camcore_plane *pl = &f->planes[p];
        if (tight && plane_rows(f->fourcc, f->width, f->height, p, &row_bytes, &rows) && pl->stride &&
            pl->stride >= row_bytes && (uint64_t)pl->stride * (rows - 1) + row_bytes <= pl->length) {
            for (r = 0; r < rows; r++)
                put(c, pl->data + (size_t)r * pl->stride, row_bytes);
        } else {
            put(c, pl->data, pl->length);
        }
    }
}

static void on_frame(void *user_data, const camcore_frame *frame)
{
    struct capture *c = user_data;

    pthread_mutex_lock(&c->lock);
    if (c->done) {
        pthread_mutex_unlock(&c->lock);
        return;
    }
    c->frames++;
    c->last_frame_s = now_s();
    if (c->keep) {
        const camcore_frame *kept = camcore_frame_retain(frame);
        if (kept) {
            camcore_frame_release(c->kept);
            c->kept = kept;
        }
    }
    if (c->out && !c->out_error) {
        write_frame(c, frame);
        if (c->out_error) /* a full disk, or the reader of a pipe went away: stop */
            pthread_cond_broadcast(&c->cond);
    }
    if (c->limit && c->frames >= c->limit) {
        c->done = 1;
        pthread_cond_broadcast(&c->cond);
    }
    pthread_mutex_unlock(&c->lock);
}

static void on_capture_error(void *user_data, int status, const char *message)
{
    struct capture *c = user_data;

    pthread_mutex_lock(&c->lock);
    c->error_status = status;
    snprintf(c->error_message, sizeof c->error_message, "%s", message ? message : "");
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

/* The ffmpeg name of a raw format, for the --output hint. */
static const char *ffmpeg_pixfmt(uint32_t fourcc)
{
    switch (fourcc) {
    case CAMCORE_FOURCC_YUYV: return "yuyv422";
    case CAMCORE_FOURCC_I420: return "yuv420p";
    case CAMCORE_FOURCC_NV12: return "nv12";
    case CAMCORE_FOURCC_RGB24: return "rgb24";
    case CAMCORE_FOURCC_BGR24: return "bgr24";
    case CAMCORE_FOURCC_RGBA: return "rgba";
    case CAMCORE_FOURCC('G', 'R', 'E', 'Y'): return "gray";
    default: return NULL;
    }
}

static void print_progress(const camcore_capturer *cap, double elapsed)
{
    camcore_capture_stats s;

    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    if (camcore_capturer_get_stats(cap, &s) != CAMCORE_OK)
        return;
    fprintf(stderr, "\r  %6.1f s  frames %-7" PRIu64 " fps %-7.2f dropped %-5" PRIu64 " corrupted %-5" PRIu64,
            elapsed, s.frames_delivered, s.measured_fps, s.frames_dropped, s.frames_corrupted);
    fflush(stderr);
}

const char capture_usage[] =
    "usage: " PROGRAM " capture [DEVICE] [OPTIONS]\n"
    "\n"
    "Captures frames with a live progress line (on a terminal) and prints a\n"
    "summary. Without --frames/--seconds it runs until Ctrl-C (30 frames when only\n"
    "--snapshot is given). Settings not given are negotiated: the camera's format\n"
    "nearest to 1280x720 at 15-30 fps (S6: nearest aspect ratio, then size, then\n"
    "the format needing least work, then the highest rate).\n"
    "DEVICE: an index from `" PROGRAM " list`, an id or a node; default: the first camera.\n"
    "\n"
    "Options:\n"
    "  --size WxH          frame size, e.g. 640x480\n"
    "  --fps N[/D]         frame rate, e.g. 30 or 30000/1001\n"
    "  --format FOURCC     pixel format to capture: YUYV, I420 (YU12), NV12, MJPG,\n"
    "                      'Y16 -BE', ... (" PROGRAM " formats lists them); --format y4m\n"
    "                      means --container y4m\n"
    "  -n, --frames N      stop after N frames\n"
    "  --seconds S         stop after S seconds\n"
    "  --snapshot FILE     write the last frame as an RGB PNG (any format camcore\n"
    "                      converts, MJPEG included)\n"
    "  -o, --output FILE   write the frames to FILE; '-' writes them to stdout (the\n"
    "                      summary then goes to stderr):\n"
    "                        " PROGRAM " capture --output - | ffplay -\n"
    "  --container C       raw: the frames' bytes one after the other, rows\n"
    "                      unpadded (MJPEG: the JPEGs); y4m: a YUV4MPEG2 stream\n"
    "                      (I420, converted by camcore when the camera gives\n"
    "                      another format), which ffplay, mpv and ffmpeg read as it\n"
    "                      is. Default: y4m for '-' and FILE.y4m, else raw\n"
    "  --output-size WxH   have camcore scale the frames (S38: stretched, never\n"
    "                      cropped; in the captured format, I420 from MJPEG)\n"
    "  --json              the summary as one JSON document (rates as a number\n"
    "                      and an exact fraction, \"fps_exact\": {\"num\": .., \"den\": ..})\n"
    "  --backend B, --portal P   as for every command (" PROGRAM " --help)\n"
    "  -h, --help          this help\n";

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcasecmp(s + n - t, tail) == 0;
}

int cmd_capture(int argc, char **argv)
{
    enum { OPT_SIZE = OPT_COMMAND, OPT_FPS, OPT_FORMAT, OPT_SECONDS, OPT_SNAPSHOT, OPT_OUTPUT_SIZE, OPT_CONTAINER };
    static const struct option options[] = {
        {"size", required_argument, NULL, OPT_SIZE},
        {"fps", required_argument, NULL, OPT_FPS},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"frames", required_argument, NULL, 'n'},
        {"seconds", required_argument, NULL, OPT_SECONDS},
        {"snapshot", required_argument, NULL, OPT_SNAPSHOT},
        {"output", required_argument, NULL, 'o'},
        {"output-size", required_argument, NULL, OPT_OUTPUT_SIZE},
        {"container", required_argument, NULL, OPT_CONTAINER},
        COMMON_OPTIONS,
        {0, 0, 0, 0},
    };
    struct devices d;
    const camcore_device_info *dev;
    camcore_capturer *cap = NULL;
    camcore_preference pref;
    camcore_setting set;
    camcore_capture_config cfg;
    camcore_frame_callbacks cb;
    camcore_capture_format fmt;
    camcore_capture_stats stats;
    camcore_fraction fps = {0, 0};
    struct capture c;
    const char *spec = NULL, *snapshot = NULL, *output = NULL;
    uint32_t width = 0, height = 0, fourcc = 0, frames = 0, out_w = 0, out_h = 0;
    double seconds = 0, start_s, elapsed;
    int rc = EXIT_OK, st, opt, progress, have_frames = 0, have_seconds = 0, interrupted = 0;
    int container = -1; /* 0 raw, 1 y4m; -1: from the output name */
    int to_stdout, out_existed = 0, reader_gone = 0;
    char code[8], code2[8], a[32];

    while ((opt = getopt_long(argc, argv, COMMON_SHORT "n:o:", options, NULL)) != -1) {
        const char *val = optarg;
        switch (opt) {
        case OPT_OUTPUT_SIZE:
            if (parse_size(val, &out_w, &out_h))
                return usage_error("capture: --output-size '%s' is not WIDTHxHEIGHT (e.g. 640x360)", val);
            break;
        case OPT_SIZE:
            if (parse_size(val, &width, &height))
                return usage_error("capture: --size '%s' is not WIDTHxHEIGHT (e.g. 640x480)", val);
            break;
        case OPT_FPS:
            if (parse_fps(val, &fps))
                return usage_error("capture: --fps '%s' is not a frame rate (N or N/D, up to 1000)", val);
            break;
        case OPT_FORMAT:
            if (!strcasecmp(val, "y4m")) {
                container = 1;
                break;
            }
            if (parse_fourcc(val, &fourcc))
                return usage_error("capture: --format '%s' is not a FourCC (e.g. YUYV, NV12, MJPG) or y4m", val);
            break;
        case 'n':
            if (parse_u32(val, &frames) || frames == 0)
                return usage_error("capture: --frames '%s' is not a number from 1 to 4294967295", val);
            have_frames = 1;
            break;
        case OPT_SECONDS: {
            char *end;
            seconds = strtod(val, &end);
            if (*end || !(seconds > 0) || seconds > 1e6)
                return usage_error("capture: --seconds '%s' is not a number of seconds above 0 (at most 1000000)", val);
            have_seconds = 1;
            break;
        }
        case OPT_SNAPSHOT:
            snapshot = val;
            break;
        case 'o':
            output = val;
            break;
        case OPT_CONTAINER:
            if (!strcmp(val, "raw"))
                container = 0;
            else if (!strcmp(val, "y4m"))
                container = 1;
            else
                return usage_error("capture: --container '%s': raw or y4m", val);
            break;
        default:
            if ((rc = common_option("capture", capture_usage, opt, argv)) != OPTION_NEXT)
                return rc == OPTION_MINE ? EXIT_USAGE : rc;
            rc = EXIT_OK;
        }
    }
    for (; optind < argc; optind++) {
        if (spec)
            return usage_error("capture: more than one DEVICE ('%s', '%s')", spec, argv[optind]);
        spec = argv[optind];
    }
    if (have_frames && have_seconds)
        return usage_error("capture: give --frames or --seconds, not both");
    if ((snapshot && !*snapshot) || (output && !*output))
        return usage_error("capture: %s needs a file name", snapshot && !*snapshot ? "--snapshot" : "--output");
    if (snapshot && output && !strcmp(snapshot, output))
        return usage_error("capture: --snapshot and --output name the same file '%s'", output);
    if (snapshot && !strcmp(snapshot, "-"))
        return usage_error("capture: --snapshot - is not supported: give a file name");
    to_stdout = output && !strcmp(output, "-");
    if (container < 0)
        container = output && (to_stdout || ends_with(output, ".y4m"));
    if (container == 1 && !output)
        return usage_error("capture: a y4m container needs --output FILE or --output -");
    if (to_stdout && isatty(STDOUT_FILENO))
        return usage_error("capture: --output - writes video to stdout, which is a terminal; "
                           "pipe it (| ffplay -) or redirect it (> file.y4m)");
    if (snapshot) {
        /* Find out now, not after the capture, that the picture cannot be saved. */
        int existed = access(snapshot, F_OK) == 0;
        FILE *probe = fopen(snapshot, "ab");
        if (probe == NULL) {
            errorf("cannot create %s: %s", snapshot, strerror(errno));
            return EXIT_FAILED;
        }
        fclose(probe);
        if (!existed)
            remove(snapshot);
    }
    if (snapshot && !have_frames && !have_seconds)
        frames = 30, have_frames = 1; /* let auto-exposure settle, then take the picture */

    if ((rc = load_devices(&d, 1)) != EXIT_OK)
        return rc;
    if ((dev = resolve_device(&d, spec)) == NULL) {
        free_devices(&d);
        return EXIT_NO_DEVICE;
    }

    /* Negotiate what was not given (S6); what was given wins. */
    camcore_preference_init(&pref);
    if (width)
        pref.width = width, pref.height = height;
    if (fps.numerator)
        pref.min_fps = pref.max_fps = fps;
    pref.output_fourcc = fourcc ? fourcc : container == 1 ? CAMCORE_FOURCC_I420 : 0;
    memset(&set, 0, sizeof set);
    set.struct_size = sizeof set;
    st = camcore_manager_negotiate(d.manager, dev->id, &pref, &set);
    if (st != CAMCORE_OK) {
        rc = fail(st, "choosing a capture format", dev);
        free_devices(&d);
        return rc;
    }
    camcore_capture_config_init(&cfg);
    cfg.fourcc = fourcc ? fourcc : set.fourcc;
    cfg.width = width ? width : set.width;
    cfg.height = height ? height : set.height;
    cfg.fps = fps.numerator ? fps : set.fps;
    if (out_w) {
        /* An output size needs an output format (S38): the captured one, or
         * I420 from a compressed stream. Bad sizes are refused at start. */
        cfg.output_fourcc = cfg.fourcc == CAMCORE_FOURCC_MJPEG || cfg.fourcc == CAMCORE_FOURCC('J', 'P', 'E', 'G')
                                ? CAMCORE_FOURCC_I420 : cfg.fourcc;
        cfg.output_width = out_w;
        cfg.output_height = out_h;
    }
    /* Y4M carries planar 4:2:0 here: camcore converts anything else (S8). */
    if (container == 1 && (cfg.output_fourcc ? cfg.output_fourcc : cfg.fourcc) != CAMCORE_FOURCC_I420)
        cfg.output_fourcc = CAMCORE_FOURCC_I420;

    memset(&c, 0, sizeof c);
    pthread_mutex_init(&c.lock, NULL);
    pthread_cond_init(&c.cond, NULL);
    c.limit = have_frames ? frames : 0;
    c.keep = snapshot != NULL;
    c.y4m = container == 1;
    c.full_range = cfg.fourcc == CAMCORE_FOURCC_MJPEG || cfg.fourcc == CAMCORE_FOURCC('J', 'P', 'E', 'G');
    if (to_stdout) {
        /* The video keeps the real stdout; everything the tool prints
         * (summary, JSON) goes to stderr from now on. A reader that goes
         * away (EPIPE) ends the capture. */
        int fd = dup(STDOUT_FILENO);
        if (fd < 0 || (c.out = fdopen(fd, "wb")) == NULL || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
            errorf("cannot write to stdout: %s", strerror(errno));
            free_devices(&d);
            return EXIT_FAILED;
        }
        signal(SIGPIPE, SIG_IGN);
    } else if (output) {
        /* The file is opened without truncating it: a capture that fails to
         * start leaves an existing file as it was (and removes one it created);
         * one that ran cuts the file to what it wrote. */
        int fd;
        out_existed = access(output, F_OK) == 0;
        fd = open(output, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0 || (c.out = fdopen(fd, "wb")) == NULL) {
            errorf("cannot create %s: %s", output, strerror(errno));
            if (fd >= 0)
                close(fd);
            free_devices(&d);
            return EXIT_FAILED;
        }
    }
    if (c.out)
        setvbuf(c.out, NULL, _IOFBF, 1 << 20);

    st = camcore_capturer_open(d.manager, dev->id, &cap);
    if (st == CAMCORE_OK) {
        c.cap = cap;
        camcore_frame_callbacks_init(&cb);
        cb.user_data = &c;
        cb.on_frame = on_frame;
        cb.on_error = on_capture_error;
        st = camcore_capturer_start(cap, &cfg, &cb);
    }
    if (st != CAMCORE_OK) {
        if (st == CAMCORE_E_NOT_SUPPORTED && fourcc) {
            /* Copy the message first: fourcc_text() calls camcore, which
             * replaces the thread's last error message (camcore.h). */
            char why[512];
            snprintf(why, sizeof why, "%s", camcore_last_error_message());
            errorf("%s cannot capture %s: %s. See: " PROGRAM " formats%s%s", dev->node,
                fourcc_text(fourcc, code), why, spec ? " " : "", spec ? spec : "");
            rc = EXIT_FAILED;
        } else {
            rc = fail(st, "starting the capture", dev);
        }
        camcore_capturer_close(cap);
        if (c.out) {
            fclose(c.out);
            if (!to_stdout && !out_existed)
                unlink(output);
        }
        free_devices(&d);
        return rc;
    }
    memset(&fmt, 0, sizeof fmt);
    fmt.struct_size = sizeof fmt;
    camcore_capturer_get_format(cap, &fmt);
    if (!g_json)
        fprintf(stderr, "Capturing from %s (%s): %s %" PRIu32 "x%" PRIu32 " at %s fps%s\n", dev->name,
                dev->node, fourcc_text(fmt.fourcc, code), fmt.width, fmt.height,
                fps_text(fmt.fps, a, sizeof a),
                have_frames ? "" : have_seconds ? "" : " (Ctrl-C to stop)");

    catch_signals();
    progress = isatty(STDERR_FILENO) && !g_json && !to_stdout;
    start_s = now_s();
    c.last_frame_s = start_s;
    for (;;) {
        struct timespec until;
        int done, error_status, out_error;
        double last, wait_s = 0.2;

        /* Wake every 200 ms for the progress line, or when --seconds ends. */
        if (have_seconds && seconds - (now_s() - start_s) < wait_s)
            wait_s = seconds - (now_s() - start_s) > 0.001 ? seconds - (now_s() - start_s) : 0.001;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += (long)(wait_s * 1e9);
        while (until.tv_nsec >= 1000000000L)
            until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_mutex_lock(&c.lock);
        if (!c.done && !c.error_status && !c.out_error)
            pthread_cond_timedwait(&c.cond, &c.lock, &until);
        done = c.done;
        error_status = c.error_status;
        out_error = c.out_error;
        last = c.last_frame_s;
        pthread_mutex_unlock(&c.lock);
        elapsed = now_s() - start_s;
        if (progress)
            print_progress(cap, elapsed);
        if (done || error_status || out_error)
            break;
        if (have_seconds && elapsed >= seconds)
            break;
        if (g_interrupted) {
            interrupted = 1;
            break;
        }
        if (now_s() - last > 5.0) {
            pthread_mutex_lock(&c.lock);
            c.error_status = CAMCORE_E_TIMEOUT;
            snprintf(c.error_message, sizeof c.error_message, "no frame from %s for 5 s", dev->node);
            pthread_mutex_unlock(&c.lock);
            break;
        }
    }
    elapsed = now_s() - start_s;
    if (progress)
        fprintf(stderr, "\n");
    camcore_capturer_stop(cap);
    memset(&stats, 0, sizeof stats);
    stats.struct_size = sizeof stats;
    camcore_capturer_get_stats(cap, &stats);

    if (c.error_status) {
        const char *msg = c.error_message;
        if (c.error_status == CAMCORE_E_NO_DEVICE)
            errorf("the camera was disconnected: %s (%s)", dev->node, msg);
        else
            errorf("capture from %s stopped: %s: %s", dev->node, camcore_strerror(c.error_status), msg);
        rc = exit_code(c.error_status);
        if (rc == EXIT_USAGE)
            rc = EXIT_FAILED;
    }
    if (c.out) {
        /* A file is cut to what this capture wrote; a pipe has no length. */
        if (fflush(c.out) != 0 && !c.out_error)
            c.out_error = errno;
        if (!to_stdout && ftruncate(fileno(c.out), ftello(c.out)) != 0 && !c.out_error)
            c.out_error = errno;
        if (fclose(c.out) != 0 && !c.out_error)
            c.out_error = errno;
        if (to_stdout && c.out_error == EPIPE) {
            reader_gone = 1; /* the player was closed: the end, not a failure */
            c.out_error = 0;
        }
        if (c.out_error) {
            errorf("cannot write %s: %s", to_stdout ? "to stdout" : output, strerror(c.out_error));
            rc = EXIT_FAILED;
        }
    }
    if (snapshot) {
        if (c.kept == NULL) {
            errorf("no frame to write to %s", snapshot);
            rc = rc ? rc : EXIT_FAILED;
        } else {
            if (write_snapshot(c.kept, snapshot) != 0)
                rc = EXIT_FAILED;
        }
    }

    if (g_json) {
        int first = 1;
        printf("{\"device\": ");
        json_device(dev);
        printf(", \"format\": {");
        json_kv_str(&first, "fourcc", fourcc_text(fmt.fourcc, code));
        json_kv_int(&first, "width", fmt.width);
        json_kv_int(&first, "height", fmt.height);
        json_kv_fps(&first, "fps", fmt.fps);
        json_kv_int(&first, "adjusted", fmt.adjusted);
        printf("}");
        first = 0;
        json_kv_int(&first, "frames", (long long)c.frames);
        json_kv_int(&first, "dropped", (long long)stats.frames_dropped);
        json_kv_int(&first, "corrupted", (long long)stats.frames_corrupted);
        printf(", \"measured_fps\": %.3f, \"seconds\": %.3f", stats.measured_fps, elapsed);
        json_kv_bool(&first, "interrupted", interrupted);
        if (snapshot)
            json_kv_str(&first, "snapshot", snapshot);
        if (output) {
            json_kv_str(&first, "output", output);
            json_kv_str(&first, "container", container == 1 ? "y4m" : "raw");
            json_kv_int(&first, "output_bytes", (long long)c.out_bytes);
            if (to_stdout)
                json_kv_bool(&first, "reader_closed", reader_gone);
        }
        json_kv_int(&first, "exit_code", rc);
        printf("}\n");
    } else {
        printf("Captured %" PRIu64 " frames from %s (%s) in %.2f s%s\n", c.frames,
               dev->name, dev->node, elapsed, interrupted ? " (interrupted)" : reader_gone ? " (the reader closed the pipe)" : "");
        printf("  format    %s %" PRIu32 "x%" PRIu32 " at %s fps",
               fourcc_text(fmt.source_fourcc ? fmt.source_fourcc : fmt.fourcc, code),
               fmt.width, fmt.height, fps_text(fmt.fps, a, sizeof a));
        if (fmt.source_fourcc && fmt.source_fourcc != fmt.fourcc)
            printf(" (%s to %s)", c.full_range ? "decoded" : "converted", fourcc_text(fmt.fourcc, code2));
        if (fmt.adjusted)
            printf(" (adjusted from %s %" PRIu32 "x%" PRIu32 ":%s%s%s)",
                   fourcc_text(cfg.fourcc, code2), cfg.width, cfg.height,
                   (fmt.adjusted & CAMCORE_ADJUSTED_SIZE) ? " size" : "",
                   (fmt.adjusted & CAMCORE_ADJUSTED_RATE) ? " rate" : "",
                   (fmt.adjusted & CAMCORE_ADJUSTED_FORMAT) ? " format" : "");
        printf("\n  measured  %.2f fps, dropped %" PRIu64 ", corrupted %" PRIu64 "\n", stats.measured_fps,
               stats.frames_dropped, stats.frames_corrupted);
        if (snapshot && rc == EXIT_OK)
            printf("  snapshot  %s (%" PRIu32 "x%" PRIu32 " PNG)\n", snapshot, c.kept->width,
                   c.kept->height);
        if (output && !c.out_error) {
            const char *pf = ffmpeg_pixfmt(fmt.fourcc);
            printf("  output    %s (%" PRIu64 " bytes%s)\n", to_stdout ? "stdout" : output, c.out_bytes,
                   container == 1 ? ", Y4M" : "");
            if (to_stdout)
                ;
            else if (container == 1)
                printf("  play it   ffplay %s\n", output);
            else if (pf)
                printf("  play it   ffplay -f rawvideo -pixel_format %s -video_size %" PRIu32 "x%" PRIu32
                       " -framerate %s %s\n", pf, fmt.width, fmt.height, fps_text(fmt.fps, a, sizeof a),
                       output);
            else if (fmt.fourcc == CAMCORE_FOURCC_MJPEG)
                printf("  play it   ffplay -f mjpeg %s\n", output);
        }
    }
    camcore_frame_release(c.kept);
    camcore_capturer_close(cap);
    free_devices(&d);
    pthread_cond_destroy(&c.cond);
    pthread_mutex_destroy(&c.lock);
    return rc;
}
