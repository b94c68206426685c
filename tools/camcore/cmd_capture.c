/*
 * camcore capture [DEVICE] [...]: capture with a live progress line, a
 * summary, a PNG snapshot and the raw frames.
 */
#include "camcore_tool.h"

#include <png.h>
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

static int parse_fourcc(const char *text, uint32_t *out)
{
    static const struct {
        const char *alias, *code;
    } aliases[] = {{"I420", "YU12"}, {"MJPEG", "MJPG"}, {"RGB24", "RGB3"}, {"BGR24", "BGR3"},
                   {"RGBA", "AB24"}};
    char c[4] = {' ', ' ', ' ', ' '};
    size_t i, n = strlen(text);

    for (i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcasecmp(text, aliases[i].alias) == 0)
            text = aliases[i].code, n = 4;
    if (n == 0 || n > 4)
        return -1;
    for (i = 0; i < n; i++)
        c[i] = (char)toupper((unsigned char)text[i]);
    *out = CAMCORE_FOURCC(c[0], c[1], c[2], c[3]);
    return 0;
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
    int out_error;
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
static void write_frame(struct capture *c, const camcore_frame *f)
{
    uint32_t p, r, row_bytes, rows;
    camcore_pixel_format_info info;
    int tight;

    info.struct_size = sizeof info;
    tight = camcore_pixel_format_get_info(f->fourcc, &info) == CAMCORE_OK &&
            info.plane_count == f->plane_count;
    for (p = 0; p < f->plane_count && p < 3 && !c->out_error; p++) {
        const camcore_plane *pl = &f->planes[p];
        if (tight && plane_rows(f->fourcc, f->width, f->height, p, &row_bytes, &rows) && pl->stride &&
            pl->stride >= row_bytes && (uint64_t)pl->stride * (rows - 1) + row_bytes <= pl->length) {
            for (r = 0; r < rows; r++)
                if (fwrite(pl->data + (size_t)r * pl->stride, 1, row_bytes, c->out) != row_bytes)
                    c->out_error = errno ? errno : EIO;
            c->out_bytes += (uint64_t)row_bytes * rows;
        } else {
            if (fwrite(pl->data, 1, pl->length, c->out) != pl->length)
                c->out_error = errno ? errno : EIO;
            c->out_bytes += pl->length;
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
    if (c->out && !c->out_error)
        write_frame(c, frame);
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

/* BT.601 limited range to RGB, 8.8 fixed point. */
static uint8_t clamp_fixed(int v)
{
    return v < 0 ? 0 : v > 255 * 256 ? 255 : (uint8_t)(v >> 8);
}

static void yuv_to_rgb(int y, int u, int v, uint8_t rgb[3])
{
    int c = 298 * (y - 16), d = u - 128, e = v - 128;

    rgb[0] = clamp_fixed(c + 409 * e + 128);
    rgb[1] = clamp_fixed(c - 100 * d - 208 * e + 128);
    rgb[2] = clamp_fixed(c + 516 * d + 128);
}

/* Plane i of f holds its rows (sizes from the table) at its stride. */
static int plane_ok(const camcore_frame *f, uint32_t i)
{
    const camcore_plane *p = &f->planes[i];
    uint32_t row_bytes, rows;

    return i < f->plane_count && plane_rows(f->fourcc, f->width, f->height, i, &row_bytes, &rows) &&
           p->data != NULL && p->stride >= row_bytes &&
           (uint64_t)p->stride * (rows - 1) + row_bytes <= p->length;
}

/* Packed RGB from a YUYV, I420, NV12, RGB3, BGR3 or GREY frame; -1 otherwise. */
static int frame_to_rgb(const camcore_frame *f, uint8_t *rgb)
{
    uint32_t w = f->width, h = f->height, x, y;
    const camcore_plane *p0 = &f->planes[0], *p1 = &f->planes[1], *p2 = &f->planes[2];

    switch (f->fourcc) {
    case CAMCORE_FOURCC_YUYV:
        if (!plane_ok(f, 0))
            return -1;
        for (y = 0; y < h; y++) {
            const uint8_t *row = p0->data + (size_t)y * p0->stride;
            for (x = 0; x < w; x++) {
                const uint8_t *pair = row + (x / 2) * 4;
                yuv_to_rgb(pair[(x & 1) * 2], pair[1], pair[3], rgb + ((size_t)y * w + x) * 3);
            }
        }
        return 0;
    case CAMCORE_FOURCC_I420:
        if (!plane_ok(f, 0) || !plane_ok(f, 1) || !plane_ok(f, 2))
            return -1;
        for (y = 0; y < h; y++)
            for (x = 0; x < w; x++)
                yuv_to_rgb(p0->data[(size_t)y * p0->stride + x],
                           p1->data[(size_t)(y / 2) * p1->stride + x / 2],
                           p2->data[(size_t)(y / 2) * p2->stride + x / 2],
                           rgb + ((size_t)y * w + x) * 3);
        return 0;
    case CAMCORE_FOURCC_NV12:
        if (!plane_ok(f, 0) || !plane_ok(f, 1))
            return -1;
        for (y = 0; y < h; y++)
            for (x = 0; x < w; x++) {
                const uint8_t *uv = p1->data + (size_t)(y / 2) * p1->stride + (x / 2) * 2;
                yuv_to_rgb(p0->data[(size_t)y * p0->stride + x], uv[0], uv[1],
                           rgb + ((size_t)y * w + x) * 3);
            }
        return 0;
    case CAMCORE_FOURCC_RGB24:
    case CAMCORE_FOURCC_BGR24:
        if (!plane_ok(f, 0))
            return -1;
        for (y = 0; y < h; y++) {
            const uint8_t *row = p0->data + (size_t)y * p0->stride;
            for (x = 0; x < w; x++) {
                uint8_t *o = rgb + ((size_t)y * w + x) * 3;
                int bgr = f->fourcc == CAMCORE_FOURCC_BGR24;
                o[0] = row[x * 3 + (bgr ? 2 : 0)];
                o[1] = row[x * 3 + 1];
                o[2] = row[x * 3 + (bgr ? 0 : 2)];
            }
        }
        return 0;
    case CAMCORE_FOURCC('G', 'R', 'E', 'Y'):
        if (!plane_ok(f, 0))
            return -1;
        for (y = 0; y < h; y++)
            for (x = 0; x < w; x++)
                memset(rgb + ((size_t)y * w + x) * 3, p0->data[(size_t)y * p0->stride + x], 3);
        return 0;
    default:
        return -1;
    }
}

static int write_png(const char *path, uint32_t width, uint32_t height, const uint8_t *rgb)
{
    FILE *file = fopen(path, "wb");
    png_structp png;
    png_infop info;
    uint32_t y;

    if (file == NULL) {
        errorf("cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    info = png ? png_create_info_struct(png) : NULL;
    if (png == NULL || info == NULL) {
        errorf("libpng: out of memory");
        png_destroy_write_struct(&png, NULL);
        fclose(file);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        errorf("libpng could not write %s", path);
        png_destroy_write_struct(&png, &info);
        fclose(file);
        return -1;
    }
    png_init_io(png, file);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (y = 0; y < height; y++)
        png_write_row(png, rgb + (size_t)y * width * 3);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    if (fclose(file) != 0) {
        errorf("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
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

int cmd_capture(int argc, char **argv)
{
    struct devices d;
    const camcore_device_info *dev;
    camcore_capturer *cap = NULL;
    camcore_preference pref;
    camcore_setting set;
    camcore_capture_config cfg;
    camcore_frame_callbacks cb;
    camcore_capture_format fmt;
    camcore_capture_stats stats;
    struct capture c;
    const char *spec = NULL, *snapshot = NULL, *output = NULL;
    uint32_t width = 0, height = 0, fps = 0, fourcc = 0, frames = 0, out_w = 0, out_h = 0;
    double seconds = 0, start_s, elapsed;
    int rc = EXIT_OK, st, i, progress, have_frames = 0, have_seconds = 0, interrupted = 0;
    char code[8], code2[8], a[32];

    for (i = 0; i < argc; i++) {
        const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (opt[0] != '-' || !opt[1]) {
            if (spec)
                return usage_error("capture: more than one DEVICE ('%s', '%s')", spec, opt);
            spec = opt;
            continue;
        }
        if (strcmp(opt, "--size") && strcmp(opt, "--fps") && strcmp(opt, "--format") &&
            strcmp(opt, "--frames") && strcmp(opt, "--seconds") && strcmp(opt, "--snapshot") &&
            strcmp(opt, "--output") && strcmp(opt, "--output-size"))
            return usage_error("capture: unknown option '%s'", opt);
        if (val == NULL)
            return usage_error("capture: %s needs a value", opt);
        i++;
        if (!strcmp(opt, "--output-size")) {
            /* S38: frames scaled by camcore to WxH (in the captured format, or I420 from MJPEG). */
            char *x = strchr(val, 'x');
            char wbuf[16];
            if (!x || (size_t)(x - val) >= sizeof wbuf)
                return usage_error("capture: --output-size '%s' is not WIDTHxHEIGHT (e.g. 640x360)", val);
            memcpy(wbuf, val, (size_t)(x - val));
            wbuf[x - val] = 0;
            if (parse_u32(wbuf, &out_w) || parse_u32(x + 1, &out_h) || !out_w || !out_h)
                return usage_error("capture: --output-size '%s' is not WIDTHxHEIGHT (e.g. 640x360)", val);
        } else if (!strcmp(opt, "--size")) {
            char *x = strchr(val, 'x');
            char wbuf[16];
            if (!x || (size_t)(x - val) >= sizeof wbuf)
                return usage_error("capture: --size '%s' is not WIDTHxHEIGHT (e.g. 640x480)", val);
            memcpy(wbuf, val, (size_t)(x - val));
            wbuf[x - val] = 0;
            if (parse_u32(wbuf, &width) || parse_u32(x + 1, &height) || !width || !height)
                return usage_error("capture: --size '%s' is not WIDTHxHEIGHT (e.g. 640x480)", val);
        } else if (!strcmp(opt, "--fps")) {
            if (parse_u32(val, &fps) || fps == 0 || fps > 1000)
                return usage_error("capture: --fps '%s' is not a frame rate (1..1000)", val);
        } else if (!strcmp(opt, "--format")) {
            if (parse_fourcc(val, &fourcc))
                return usage_error("capture: --format '%s' is not a FourCC (e.g. YUYV, NV12, MJPG)", val);
        } else if (!strcmp(opt, "--frames")) {
            if (parse_u32(val, &frames) || frames == 0)
                return usage_error("capture: --frames '%s' is not a number from 1 to 4294967295", val);
            have_frames = 1;
        } else if (!strcmp(opt, "--seconds")) {
            char *end;
            seconds = strtod(val, &end);
            if (*end || !(seconds > 0) || seconds > 1e6)
                return usage_error("capture: --seconds '%s' is not a number of seconds above 0 (at most 1000000)", val);
            have_seconds = 1;
        } else if (!strcmp(opt, "--snapshot")) {
            snapshot = val;
        } else {
            output = val;
        }
    }
    if (have_frames && have_seconds)
        return usage_error("capture: give --frames or --seconds, not both");
    if ((snapshot && !*snapshot) || (output && !*output))
        return usage_error("capture: %s needs a file name", snapshot && !*snapshot ? "--snapshot" : "--output");
    if (snapshot && output && !strcmp(snapshot, output))
        return usage_error("capture: --snapshot and --output name the same file '%s'", output);
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
    if (fps)
        pref.min_fps.numerator = pref.max_fps.numerator = fps, pref.min_fps.denominator =
            pref.max_fps.denominator = 1;
    pref.output_fourcc = fourcc;
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
    cfg.fps = set.fps;
    if (fps)
        cfg.fps.numerator = fps, cfg.fps.denominator = 1;
    /* A compressed stream (MJPEG) has no pixels to write a PNG from: when
     * only the picture is wanted, camcore decodes it (S8, TurboJPEG). With
     * --output the raw stream is kept as captured instead. */
    if (snapshot && !output && (cfg.fourcc == CAMCORE_FOURCC_MJPEG || cfg.fourcc == CAMCORE_FOURCC('J', 'P', 'E', 'G')))
        cfg.output_fourcc = CAMCORE_FOURCC_RGB24;
    if (out_w) {
        /* An output size needs an output format (S38): the captured one, or
         * I420 from a compressed stream. Bad sizes are refused at start. */
        if (!cfg.output_fourcc)
            cfg.output_fourcc = cfg.fourcc == CAMCORE_FOURCC_MJPEG || cfg.fourcc == CAMCORE_FOURCC('J', 'P', 'E', 'G')
                                    ? CAMCORE_FOURCC_I420 : cfg.fourcc;
        cfg.output_width = out_w;
        cfg.output_height = out_h;
    }

    memset(&c, 0, sizeof c);
    pthread_mutex_init(&c.lock, NULL);
    pthread_cond_init(&c.cond, NULL);
    c.limit = have_frames ? frames : 0;
    c.keep = snapshot != NULL;
    /* The file is opened without truncating it: a capture that fails to
     * start leaves an existing file as it was (and removes one it created);
     * one that ran cuts the file to what it wrote. */
    int out_existed = output && access(output, F_OK) == 0;
    if (output) {
        int fd = open(output, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0 || (c.out = fdopen(fd, "wb")) == NULL) {
            errorf("cannot create %s: %s", output, strerror(errno));
            if (fd >= 0)
                close(fd);
            free_devices(&d);
            return EXIT_FAILED;
        }
    }

    st = camcore_capturer_open(d.manager, dev->id, &cap);
    if (st == CAMCORE_OK) {
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
            if (!out_existed)
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
    progress = isatty(STDERR_FILENO) && !g_json;
    start_s = now_s();
    c.last_frame_s = start_s;
    for (;;) {
        struct timespec until;
        int done, error_status;
        double last, wait_s = 0.2;

        /* Wake every 200 ms for the progress line, or when --seconds ends. */
        if (have_seconds && seconds - (now_s() - start_s) < wait_s)
            wait_s = seconds - (now_s() - start_s) > 0.001 ? seconds - (now_s() - start_s) : 0.001;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += (long)(wait_s * 1e9);
        while (until.tv_nsec >= 1000000000L)
            until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_mutex_lock(&c.lock);
        if (!c.done && !c.error_status)
            pthread_cond_timedwait(&c.cond, &c.lock, &until);
        done = c.done;
        error_status = c.error_status;
        last = c.last_frame_s;
        pthread_mutex_unlock(&c.lock);
        elapsed = now_s() - start_s;
        if (progress)
            print_progress(cap, elapsed);
        if (done || error_status)
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
            errorf("the camera went away: %s (%s)", dev->node, msg);
        else
            errorf("capture from %s stopped: %s: %s", dev->node, camcore_strerror(c.error_status), msg);
        rc = exit_code(c.error_status);
        if (rc == EXIT_USAGE)
            rc = EXIT_FAILED;
    }
    if (c.out) {
        if ((fflush(c.out) != 0 || ftruncate(fileno(c.out), ftello(c.out)) != 0) && !c.out_error)
            c.out_error = errno;
        if (fclose(c.out) != 0 && !c.out_error)
            c.out_error = errno;
        if (c.out_error) {
            errorf("cannot write %s: %s", output, strerror(c.out_error));
            rc = EXIT_FAILED;
        }
    }
    if (snapshot) {
        if (c.kept == NULL) {
            errorf("no frame to write to %s", snapshot);
            rc = rc ? rc : EXIT_FAILED;
        } else {
            uint8_t *rgb = malloc((size_t)c.kept->width * c.kept->height * 3);
            if (rgb == NULL || frame_to_rgb(c.kept, rgb) != 0) {
                errorf("cannot convert %s frames to PNG for --snapshot (capture with --format "
                    "YUYV, I420, NV12, RGB3, BGR3 or GREY; an MJPEG snapshot works without --output)",
                    fourcc_text(c.kept->fourcc, code));
                rc = EXIT_FAILED;
            } else if (write_png(snapshot, c.kept->width, c.kept->height, rgb) != 0) {
                rc = EXIT_FAILED;
            }
            free(rgb);
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
            json_kv_int(&first, "output_bytes", (long long)c.out_bytes);
        }
        json_kv_int(&first, "exit_code", rc);
        printf("}\n");
    } else {
        printf("Captured %" PRIu64 " frames from %s (%s) in %.2f s%s\n", c.frames,
               dev->name, dev->node, elapsed, interrupted ? " (interrupted)" : "");
        printf("  format    %s %" PRIu32 "x%" PRIu32 " at %s fps",
               fourcc_text(fmt.source_fourcc ? fmt.source_fourcc : fmt.fourcc, code),
               fmt.width, fmt.height, fps_text(fmt.fps, a, sizeof a));
        if (fmt.source_fourcc && fmt.source_fourcc != fmt.fourcc)
            printf(" (decoded to %s)", fourcc_text(fmt.fourcc, code2));
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
            printf("  output    %s (%" PRIu64 " bytes)\n", output, c.out_bytes);
            if (pf)
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
