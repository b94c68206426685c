// SPDX-License-Identifier: MIT
/*
 * camcore-capture — list the cameras, capture frames, save a PNG snapshot.
 *
 * A small, complete user of libcamcore's C API (include/camcore.h):
 *
 *   1. create a manager and list the cameras (id, name, node, type, position);
 *   2. open one camera and start capturing with a frame callback;
 *   3. wait on a condition variable until N frames have arrived (with a
 *      timeout, so a silent camera never hangs the program);
 *   4. stop, print the measured frame rate and the capture statistics;
 *   5. have camcore convert one retained frame to RGB (camcore_frame_convert)
 *      and write it as a PNG.
 *
 * On a machine without a camera it uses camcore's built-in synthetic camera
 * (a moving test pattern), and says so.
 *
 * Build:  make                      (pkg-config finds camcore and libpng)
 * Run:    ./camcore-capture --frames 60 --snapshot snapshot.png
 *         ./camcore-capture --list
 *
 * Copy freely; this file is meant as a starting point.
 */
#define _POSIX_C_SOURCE 200809L

#include <camcore.h>

#include <png.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROGRAM "camcore-capture"

/* ------------------------------------------------------------------ */
/* Command line                                                        */
/* ------------------------------------------------------------------ */

struct options {
    uint32_t frames;          /* --frames N */
    const char *device;       /* --device ID (or node path); NULL = pick one */
    uint32_t width, height;   /* --size WxH */
    camcore_fraction fps;     /* --fps N or N/D; 0 keeps the driver's rate */
    uint32_t fourcc;          /* --format FOURCC */
    const char *snapshot;     /* --snapshot FILE.png; NULL = none */
    int list_only;            /* --list */
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: " PROGRAM " [options]\n"
            "  --list             list the cameras and their formats, then exit\n"
            "  --device ID        camera id (or node, e.g. /dev/video0); default: the\n"
            "                     first camera, else the synthetic camera\n"
            "  --frames N         frames to capture (default 30)\n"
            "  --size WxH         frame size (default 640x480)\n"
            "  --fps N[/D]        frame rate (default 30; 0 keeps the driver's)\n"
            "  --format FOURCC    pixel format: YUYV, I420 (YU12), NV12, RGB3, BGR3,\n"
            "                     MJPG... (default YUYV)\n"
            "  --snapshot FILE    write the last good frame as a PNG (camcore\n"
            "                     converts it to RGB, MJPEG included)\n"
            "  --help             this text\n");
}

/* Parses an unsigned decimal number; returns 0 on success. */
static int parse_uint(const char *text, unsigned long max, uint32_t *out)
{
    char *end = NULL;
    unsigned long value;

    if (text == NULL || *text == '\0' || *text == '-')
        return -1;
    errno = 0;
    value = strtoul(text, &end, 10);
    if (errno != 0 || *end != '\0' || value > max)
        return -1;
    *out = (uint32_t)value;
    return 0;
}

/* "YUYV" -> CAMCORE_FOURCC_YUYV. Shorter codes are padded with spaces as
 * V4L2 does ("Y8" -> "Y8  "); "I420" is accepted as the usual name of YU12. */
static int parse_fourcc(const char *text, uint32_t *out)
{
    char code[4] = { ' ', ' ', ' ', ' ' };
    size_t len = strlen(text);

    if (len == 0 || len > 4)
        return -1;
    if (strcmp(text, "I420") == 0 || strcmp(text, "i420") == 0) {
        *out = CAMCORE_FOURCC_I420;
        return 0;
    }
    memcpy(code, text, len);
    *out = CAMCORE_FOURCC(code[0], code[1], code[2], code[3]);
    return 0;
}

static int parse_options(int argc, char **argv, struct options *opt)
{
    int i;

    opt->frames = 30;
    opt->device = NULL;
    opt->width = 640;
    opt->height = 480;
    opt->fps.numerator = 30;
    opt->fps.denominator = 1;
    opt->fourcc = CAMCORE_FOURCC_YUYV;
    opt->snapshot = NULL;
    opt->list_only = 0;

    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = (i + 1 < argc) ? argv[i + 1] : NULL;

        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(arg, "--list") == 0) {
            opt->list_only = 1;
            continue;
        }

        /* Every other option takes a value. */
        if (value == NULL) {
            fprintf(stderr, PROGRAM ": %s: missing value (see --help)\n", arg);
            return -1;
        }
        i++;

        if (strcmp(arg, "--frames") == 0) {
            if (parse_uint(value, 1000000, &opt->frames) != 0 || opt->frames == 0) {
                fprintf(stderr, PROGRAM ": --frames: expected a number >= 1, got '%s'\n", value);
                return -1;
            }
        } else if (strcmp(arg, "--device") == 0) {
            opt->device = value;
        } else if (strcmp(arg, "--size") == 0) {
            char buf[32];
            char *x;
            snprintf(buf, sizeof buf, "%s", value);
            x = strchr(buf, 'x');
            if (x == NULL) {
                fprintf(stderr, PROGRAM ": --size: expected WxH, got '%s'\n", value);
                return -1;
            }
            *x = '\0';
            if (parse_uint(buf, 65535, &opt->width) != 0 ||
                parse_uint(x + 1, 65535, &opt->height) != 0) {
                fprintf(stderr, PROGRAM ": --size: expected WxH, got '%s'\n", value);
                return -1;
            }
        } else if (strcmp(arg, "--fps") == 0) {
            char buf[32];
            char *slash;
            snprintf(buf, sizeof buf, "%s", value);
            slash = strchr(buf, '/');
            opt->fps.denominator = 1;
            if (slash != NULL) {
                *slash = '\0';
                if (parse_uint(slash + 1, 1000000, &opt->fps.denominator) != 0 ||
                    opt->fps.denominator == 0) {
                    fprintf(stderr, PROGRAM ": --fps: expected N or N/D, got '%s'\n", value);
                    return -1;
                }
            }
            if (parse_uint(buf, 1000000, &opt->fps.numerator) != 0) {
                fprintf(stderr, PROGRAM ": --fps: expected N or N/D, got '%s'\n", value);
                return -1;
            }
            if (opt->fps.numerator == 0) /* 0/0 = keep the driver's rate */
                opt->fps.denominator = 0;
        } else if (strcmp(arg, "--format") == 0) {
            if (parse_fourcc(value, &opt->fourcc) != 0) {
                fprintf(stderr, PROGRAM ": --format: expected a FourCC such as YUYV, got '%s'\n",
                        value);
                return -1;
            }
        } else if (strcmp(arg, "--snapshot") == 0) {
            opt->snapshot = value;
        } else {
            fprintf(stderr, PROGRAM ": unknown option '%s' (see --help)\n", arg);
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

/* Prints why a camcore call failed: the code's name and the detail of the
 * last failure on this thread. */
static void report(const char *call, int status)
{
    const char *detail = camcore_last_error_message();

    fprintf(stderr, PROGRAM ": %s failed: %s%s%s\n", call, camcore_strerror(status),
            *detail ? ": " : "", detail);
}

/* ------------------------------------------------------------------ */
/* Listing                                                             */
/* ------------------------------------------------------------------ */

static const char *type_name(int32_t type)
{
    switch (type) {
    case CAMCORE_DEVICE_TYPE_BUILTIN: return "builtin";
    case CAMCORE_DEVICE_TYPE_EXTERNAL: return "external";
    case CAMCORE_DEVICE_TYPE_VIRTUAL: return "virtual";
    case CAMCORE_DEVICE_TYPE_INFRARED: return "infrared";
    default: return "?";
    }
}

static const char *position_name(int32_t position)
{
    switch (position) {
    case CAMCORE_POSITION_FRONT: return "front";
    case CAMCORE_POSITION_BACK: return "back";
    case CAMCORE_POSITION_EXTERNAL: return "external";
    default: return "unknown";
    }
}

/* Prints a rate such as "30", "29.97" or "7.5" fps. */
static void print_fps(camcore_fraction fps)
{
    if (fps.denominator == 0)
        printf("?");
    else if (fps.numerator % fps.denominator == 0)
        printf("%" PRIu32, fps.numerator / fps.denominator);
    else
        printf("%.4g", (double)fps.numerator / fps.denominator);
}

static void print_format(const camcore_format *f)
{
    char code[5];
    size_t r;

    printf("        %s  ", camcore_fourcc_to_string(f->fourcc, code));
    if (f->size_kind == CAMCORE_RANGE_DISCRETE)
        printf("%" PRIu32 "x%" PRIu32, f->width, f->height);
    else
        printf("%" PRIu32 "..%" PRIu32 " x %" PRIu32 "..%" PRIu32 " (step %" PRIu32 "x%" PRIu32 ")",
               f->min_width, f->max_width, f->min_height, f->max_height, f->step_width,
               f->step_height);
    printf("  @ ");
    if (f->rate_kind == CAMCORE_RANGE_DISCRETE) {
        for (r = 0; r < f->rate_count; r++) {
            if (r > 0)
                printf(", ");
            print_fps(f->rates[r]);
        }
    } else if (f->rate_kind == CAMCORE_RANGE_UNKNOWN) {
        printf("?");
    } else {
        print_fps(f->min_fps);
        printf("..");
        print_fps(f->max_fps);
    }
    printf(" fps  (%s%s)\n", f->description,
           (f->flags & CAMCORE_FORMAT_COMPRESSED) ? ", compressed" : "");
}

static void print_devices(camcore_manager *manager, const camcore_device_list *list,
                          int with_formats)
{
    size_t i, j;

    printf("Cameras (%zu):\n", list->count);
    for (i = 0; i < list->count; i++) {
        const camcore_device_info *d = &list->devices[i];

        printf("  [%zu] %s%s\n", i, d->name,
               (d->flags & CAMCORE_DEVICE_SYNTHETIC) ? "  (synthetic test pattern)" : "");
        printf("      id        %s\n", d->id);
        printf("      node      %s\n", d->node);
        printf("      type      %s, position %s, driver %s%s\n", type_name(d->type),
               position_name(d->position), d->driver,
               (d->flags & CAMCORE_DEVICE_MULTIPLANAR) ? ", multi-planar" : "");

        if (with_formats) {
            camcore_format_list *formats = NULL;
            int status = camcore_manager_list_formats(manager, d->id, &formats);

            if (status != CAMCORE_OK) {
                report("camcore_manager_list_formats", status);
                continue;
            }
            printf("      formats:\n");
            for (j = 0; j < formats->count; j++)
                print_format(&formats->formats[j]);
            camcore_format_list_free(formats);
        }
    }
}

/* The camera to use: --device (matched by id or node), else the first real
 * camera that is not an infrared one (S44), else the synthetic one (listed
 * last). NULL if the list is empty. */
static const camcore_device_info *pick_device(const camcore_device_list *list,
                                              const char *wanted)
{
    size_t i;

    for (i = 0; i < list->count; i++) {
        const camcore_device_info *d = &list->devices[i];

        if (wanted != NULL) {
            if (strcmp(d->id, wanted) == 0 || strcmp(d->node, wanted) == 0)
                return d;
        } else if (!(d->flags & CAMCORE_DEVICE_SYNTHETIC) && d->type != CAMCORE_DEVICE_TYPE_INFRARED) {
            return d;
        }
    }
    if (wanted == NULL && list->count > 0)
        return &list->devices[list->count - 1]; /* only the synthetic camera */
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Capture                                                             */
/* ------------------------------------------------------------------ */

/* Shared between on_frame (the capture thread) and main; guarded by lock. */
struct capture_state {
    pthread_mutex_t lock;
    pthread_cond_t done;          /* signalled when finished becomes non-zero */
    unsigned wanted;              /* frames to capture */
    unsigned received;            /* frames seen so far */
    uint64_t first_ts, last_ts;   /* timestamps of the first and last frame, ns */
    int keep_snapshot;            /* retain frames for --snapshot? */
    const camcore_frame *snapshot;/* newest good frame, retained; or NULL */
    int finished;                 /* all frames received, or an error */
    int error_status;             /* set by on_error */
    char error_message[256];
};

/* One line per frame: sequence, size, FourCC, planes, timestamp. */
static void print_frame(unsigned index, const camcore_frame *frame, uint64_t previous_ts)
{
    char code[5];
    uint32_t p;

    printf("frame %4u  seq %6" PRIu32 "  %" PRIu32 "x%" PRIu32 "  %s ", index, frame->sequence,
           frame->width, frame->height, camcore_fourcc_to_string(frame->fourcc, code));
    for (p = 0; p < frame->plane_count && p < 3; p++)
        printf(" p%" PRIu32 " %" PRIu32 "/%" PRIu32, p, frame->planes[p].stride,
               frame->planes[p].length);
    printf("  t %" PRIu64 ".%06" PRIu64 " s", frame->timestamp_ns / 1000000000u,
           (frame->timestamp_ns % 1000000000u) / 1000u);
    if (index > 0)
        printf(" (+%.1f ms)", (double)(frame->timestamp_ns - previous_ts) / 1e6);
    if (frame->dropped_before > 0)
        printf("  [%" PRIu32 " dropped before]", frame->dropped_before);
    if (frame->flags & CAMCORE_FRAME_CORRUPTED)
        printf("  [CORRUPTED]");
    printf("\n");
}

/* Runs on the capturer's capture thread, once per frame, in order. The
 * frame is borrowed: to use it after returning, retain it (S23). Keep this
 * short: the driver's buffer is busy until it returns. */
static void on_frame(void *user_data, const camcore_frame *frame)
{
    struct capture_state *st = user_data;

    pthread_mutex_lock(&st->lock);
    if (st->received < st->wanted) {
        unsigned index = st->received++;

        print_frame(index, frame, st->last_ts);
        if (index == 0)
            st->first_ts = frame->timestamp_ns;
        st->last_ts = frame->timestamp_ns;

        /* Keep the newest frame with trustworthy pixels for the snapshot.
         * The last one is best: a real sensor's first frames may be dark
         * while its auto-exposure settles. */
        if (st->keep_snapshot && !(frame->flags & CAMCORE_FRAME_CORRUPTED)) {
            camcore_frame_release(st->snapshot); /* NULL is fine */
            st->snapshot = camcore_frame_retain(frame);
        }
        if (st->received == st->wanted) {
            st->finished = 1;
            pthread_cond_signal(&st->done);
        }
    }
    pthread_mutex_unlock(&st->lock);
}

/* Runs on the capture thread when streaming ends on its own (device
 * unplugged, I/O error). No frame follows. */
static void on_error(void *user_data, int status, const char *message)
{
    struct capture_state *st = user_data;

    pthread_mutex_lock(&st->lock);
    st->error_status = status;
    snprintf(st->error_message, sizeof st->error_message, "%s", message ? message : "");
    st->finished = 1;
    pthread_cond_signal(&st->done);
    pthread_mutex_unlock(&st->lock);
}

/* Waits until on_frame or on_error sets finished, at most timeout_s
 * seconds. Returns 0 when finished, ETIMEDOUT otherwise. */
static int wait_until_finished(struct capture_state *st, double timeout_s)
{
    struct timespec deadline;
    int rc = 0;

    /* The condition variable uses CLOCK_MONOTONIC (see main), so the
     * deadline is immune to wall-clock changes. */
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += (time_t)timeout_s;
    deadline.tv_nsec += (long)((timeout_s - (double)(time_t)timeout_s) * 1e9);
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }

    pthread_mutex_lock(&st->lock);
    while (!st->finished && rc == 0)
        rc = pthread_cond_timedwait(&st->done, &st->lock, &deadline);
    if (st->finished)
        rc = 0;
    pthread_mutex_unlock(&st->lock);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Snapshot: RGB from camcore, then PNG                                */
/* ------------------------------------------------------------------ */

/* Converts a frame into packed RGB (3 bytes per pixel, width * 3 per row).
 * camcore does it (camcore_frame_convert: libyuv, BT.601; MJPEG decoded
 * with TurboJPEG), reading rows by the frame's strides. Returns the camcore
 * status. To convert every frame instead, capture with
 * capture_config.output_fourcc = CAMCORE_FOURCC_RGB24. */
static int frame_to_rgb(const camcore_frame *f, uint8_t *rgb)
{
    return camcore_frame_convert(f, CAMCORE_FOURCC_RGB24, 0, 0, rgb, (size_t)f->width * f->height * 3);
}

/* Writes 8-bit RGB pixels as a PNG file. Returns 0 or -1 (message printed). */
static int write_png(const char *path, uint32_t width, uint32_t height, const uint8_t *rgb)
{
    FILE *file;
    png_structp png;
    png_infop info;
    uint32_t y;

    file = fopen(path, "wb");
    if (file == NULL) {
        fprintf(stderr, PROGRAM ": cannot create %s: %s\n", path, strerror(errno));
        return -1;
    }
    png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    info = png ? png_create_info_struct(png) : NULL;
    if (png == NULL || info == NULL) {
        fprintf(stderr, PROGRAM ": libpng: out of memory\n");
        png_destroy_write_struct(&png, NULL);
        fclose(file);
        return -1;
    }
    /* libpng reports errors by longjmp-ing back here. */
    if (setjmp(png_jmpbuf(png))) {
        fprintf(stderr, PROGRAM ": libpng could not write %s\n", path);
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
        fprintf(stderr, PROGRAM ": cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

static int save_snapshot(const char *path, const camcore_frame *frame)
{
    char code[5];
    uint8_t *rgb = malloc((size_t)frame->width * frame->height * 3);
    int rc = -1, status;

    if (rgb == NULL) {
        fprintf(stderr, PROGRAM ": out of memory for the snapshot\n");
        return -1;
    }
    if ((status = frame_to_rgb(frame, rgb)) != CAMCORE_OK)
        report("camcore_frame_convert (to RGB for --snapshot)", status);
    else if (write_png(path, frame->width, frame->height, rgb) == 0) {
        printf("Snapshot: frame seq %" PRIu32 " (%" PRIu32 "x%" PRIu32 " %s) written to %s\n",
               frame->sequence, frame->width, frame->height,
               camcore_fourcc_to_string(frame->fourcc, code), path);
        rc = 0;
    }
    free(rgb);
    return rc;
}

/* ------------------------------------------------------------------ */
/* main                                                                */
/* ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    struct options opt;
    camcore_manager_config manager_config;
    camcore_capture_config capture_config;
    camcore_frame_callbacks callbacks;
    camcore_capture_format format;
    camcore_capture_stats stats;
    camcore_manager *manager = NULL;
    camcore_device_list *devices = NULL;
    camcore_capturer *capturer = NULL;
    const camcore_device_info *device;
    const char *device_id;
    struct capture_state st;
    pthread_condattr_t cond_attr;
    char code[5], asked[5];
    double timeout_s;
    int status, exit_code = 1;

    if (parse_options(argc, argv, &opt) != 0)
        return 2;

    /* Header and library should agree on the major version. */
    printf("camcore %s (header %d.%d.%d)\n", camcore_version_string(), CAMCORE_VERSION_MAJOR,
           CAMCORE_VERSION_MINOR, CAMCORE_VERSION_PATCH);
    if ((camcore_version() >> 16) != CAMCORE_VERSION_MAJOR)
        fprintf(stderr, PROGRAM ": warning: library and header major versions differ\n");

    /* The state shared with the capture thread. The condition variable
     * waits on CLOCK_MONOTONIC, like camcore's timestamps. */
    memset(&st, 0, sizeof st);
    pthread_mutex_init(&st.lock, NULL);
    pthread_condattr_init(&cond_attr);
    pthread_condattr_setclock(&cond_attr, CLOCK_MONOTONIC);
    pthread_cond_init(&st.done, &cond_attr);
    pthread_condattr_destroy(&cond_attr);
    st.wanted = opt.frames;
    st.keep_snapshot = opt.snapshot != NULL;

    /* 1. A manager that also lists the synthetic camera (after the real
     *    ones), so the program works on machines without a camera. */
    camcore_manager_config_init(&manager_config);
    manager_config.include_synthetic = 1;
    status = camcore_manager_new(&manager_config, &manager);
    if (status != CAMCORE_OK) {
        report("camcore_manager_new", status);
        goto out;
    }

    status = camcore_manager_list_devices(manager, &devices);
    if (status != CAMCORE_OK) {
        report("camcore_manager_list_devices", status);
        goto out;
    }
    print_devices(manager, devices, opt.list_only);
    if (opt.list_only) {
        exit_code = 0;
        goto out;
    }

    /* 2. Choose and open a camera. An unknown --device is still passed to
     *    camcore_capturer_open(), which explains the failure. */
    device = pick_device(devices, opt.device);
    device_id = device ? device->id : opt.device;
    if (device_id == NULL) {
        fprintf(stderr, PROGRAM ": no camera found\n");
        goto out;
    }
    if (device != NULL && (device->flags & CAMCORE_DEVICE_SYNTHETIC))
        printf("%s: using camcore's synthetic camera (a moving test pattern)\n",
               opt.device ? "As asked" : "No camera found");
    else if (device != NULL)
        printf("Using camera [%zu] %s (%s)\n", (size_t)(device - devices->devices), device->name,
               device->node);

    status = camcore_capturer_open(manager, device_id, &capturer);
    if (status != CAMCORE_OK) {
        report("camcore_capturer_open", status);
        goto out;
    }

    /* 3. Start capturing. Configs are filled with their _init() helper,
     *    then changed; both structs are copied by the call. */
    camcore_capture_config_init(&capture_config);
    capture_config.fourcc = opt.fourcc;
    capture_config.width = opt.width;
    capture_config.height = opt.height;
    capture_config.fps = opt.fps;

    camcore_frame_callbacks_init(&callbacks);
    callbacks.user_data = &st;
    callbacks.on_frame = on_frame;
    callbacks.on_error = on_error;

    printf("Capturing %" PRIu32 " frames, asking for %" PRIu32 "x%" PRIu32 " %s at ", opt.frames,
           opt.width, opt.height, camcore_fourcc_to_string(opt.fourcc, asked));
    if (opt.fps.numerator == 0)
        printf("the driver's rate\n");
    else {
        print_fps(opt.fps);
        printf(" fps\n");
    }
    fflush(stdout);
    status = camcore_capturer_start(capturer, &capture_config, &callbacks);
    if (status != CAMCORE_OK) {
        report("camcore_capturer_start", status);
        goto out;
    }

    /* Drivers round sizes and rates: what was really applied. It is
     * printed after the frames, whose lines the capture thread is already
     * printing. */
    memset(&format, 0, sizeof format);
    format.struct_size = sizeof format;
    status = camcore_capturer_get_format(capturer, &format);
    if (status != CAMCORE_OK) {
        report("camcore_capturer_get_format", status);
        goto out;
    }

    /* 4. Wait for the frames: generously twice the expected time plus 5 s
     *    for the camera to wake up. Never wait forever. */
    timeout_s = 5.0 + 2.0 * opt.frames *
                          (format.fps.numerator ? (double)format.fps.denominator /
                                                      format.fps.numerator
                                                : 1.0);
    if (wait_until_finished(&st, timeout_s) != 0) {
        unsigned received;

        pthread_mutex_lock(&st.lock); /* the capture thread still runs */
        received = st.received;
        pthread_mutex_unlock(&st.lock);
        fprintf(stderr, PROGRAM ": timed out after %.0f s: %u of %u frames arrived\n",
                timeout_s, received, st.wanted);
        goto out;
    }

    /* After stop returns no callback runs, so st is ours alone again. */
    status = camcore_capturer_stop(capturer);
    if (status != CAMCORE_OK) {
        report("camcore_capturer_stop", status);
        goto out;
    }
    if (st.error_status != CAMCORE_OK) {
        fprintf(stderr, PROGRAM ": capture ended after %u frames: %s: %s\n", st.received,
                camcore_strerror(st.error_status), st.error_message);
        goto out;
    }

    /* 5. The format in use, the frame rate measured from the frames' own
     *    timestamps, and the counters (drops are sequence gaps). */
    printf("Format in use: %" PRIu32 "x%" PRIu32 " %s at ", format.width, format.height,
           camcore_fourcc_to_string(format.fourcc, code));
    print_fps(format.fps);
    printf(" fps, %" PRIu32 " plane(s), stride %" PRIu32 ", %" PRIu32 " bytes/frame, %" PRIu32
           " buffers%s\n",
           format.plane_count, format.strides[0], format.frame_bytes, format.buffer_count,
           (format.width != opt.width || format.height != opt.height ||
            format.fourcc != opt.fourcc)
               ? " (adjusted by the driver)"
               : "");
    memset(&stats, 0, sizeof stats);
    stats.struct_size = sizeof stats;
    status = camcore_capturer_get_stats(capturer, &stats);
    if (status != CAMCORE_OK) {
        report("camcore_capturer_get_stats", status);
        goto out;
    }
    if (st.received > 1 && st.last_ts > st.first_ts)
        printf("Measured %.2f fps over %u frames (camcore's own estimate: %.2f fps)\n",
               (st.received - 1) * 1e9 / (double)(st.last_ts - st.first_ts), st.received,
               stats.measured_fps);
    printf("Stats: %" PRIu64 " delivered, %" PRIu64 " dropped, %" PRIu64 " corrupted\n",
           stats.frames_delivered, stats.frames_dropped, stats.frames_corrupted);

    /* 6. The retained frame stays valid after stop until released. */
    if (opt.snapshot != NULL) {
        if (st.snapshot == NULL) {
            fprintf(stderr, PROGRAM ": no good frame for the snapshot (all were corrupted)\n");
            goto out;
        }
        if (save_snapshot(opt.snapshot, st.snapshot) != 0)
            goto out;
    }
    exit_code = 0;

out:
    camcore_capturer_close(capturer);   /* stops too; NULL is fine */
    camcore_frame_release(st.snapshot); /* valid even after close */
    camcore_device_list_free(devices);
    camcore_manager_free(manager);
    pthread_cond_destroy(&st.done);
    pthread_mutex_destroy(&st.lock);
    return exit_code;
}
