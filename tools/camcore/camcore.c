/*
 * camcore — the command-line tool of libcamcore.
 *
 *   camcore list                      cameras: index, id, name, type, position, node
 *   camcore formats [DEVICE]          pixel formats, sizes and frame rates
 *   camcore capture [DEVICE] [...]    capture with a live progress line
 *   camcore monitor                   print cameras as they come and go
 *   camcore controls [DEVICE] [--set NAME=VALUE ...]
 *
 * Written only against the public C API (include/camcore.h): it is
 * libcamcore's first user. `camcore --help` says everything; exit codes
 * are listed there too.
 *
 * Build: make (pkg-config finds camcore and libpng).
 */
#define _DEFAULT_SOURCE /* realpath, strcasecmp */
#define _POSIX_C_SOURCE 200809L

#include <camcore.h>

#include <png.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROGRAM "camcore"

/* Exit codes (documented in --help). */
enum {
    EXIT_OK = 0,
    EXIT_FAILED = 1,    /* the operation failed (I/O, not supported, ...) */
    EXIT_USAGE = 2,     /* bad command line or value */
    EXIT_NO_DEVICE = 3, /* no such camera, or it went away */
    EXIT_BUSY = 4       /* camera busy or permission denied */
};

static void usage(FILE *out)
{
    fprintf(out,
        "usage: " PROGRAM " [--json] COMMAND [ARGS]\n"
        "\n"
        "Commands:\n"
        "  list                       cameras: index, id, name, type, position, node\n"
        "  formats [DEVICE]           pixel formats, frame sizes and frame rates\n"
        "  capture [DEVICE] [--size WxH] [--fps N] [--format FOURCC]\n"
        "          [--frames N | --seconds S] [--snapshot FILE.png] [--output FILE]\n"
        "                             capture frames with a live progress line on a\n"
        "                             terminal and a summary at the end. Without\n"
        "                             --frames/--seconds it runs until Ctrl-C (30 frames\n"
        "                             when only --snapshot is given). Unset settings are\n"
        "                             negotiated (1280x720, 15-30 fps by default).\n"
        "                             --snapshot writes the last frame as PNG (an MJPEG\n"
        "                             camera's frames are decoded for it unless --output\n"
        "                             is given); --output writes the raw frames, rows\n"
        "                             unpadded.\n"
        "  monitor                    print the cameras present, then each camera\n"
        "                             connected or disconnected (udev hot-plug events;\n"
        "                             polling every 500 ms where udev has no monitor),\n"
        "                             until Ctrl-C\n"
        "  controls [DEVICE] [--set NAME=VALUE ...]\n"
        "                             list the controls with values and ranges, or set\n"
        "                             some. NAME: the short name shown (brightness), the\n"
        "                             full name, or the id (0x00980900). VALUE: a number,\n"
        "                             0x... hex, true/false, a menu item's name, or for\n"
        "                             a string control its text.\n"
        "\n"
        "DEVICE is a camera id, a device node (/dev/video0) or an index from `list`.\n"
        "Default: the first camera, or camcore's synthetic camera (a test pattern)\n"
        "when there is none.\n"
        "\n"
        "Options:\n"
        "  --json       machine-readable output (one JSON document; `monitor` prints\n"
        "               one JSON object per line)\n"
        "  -h, --help   this help\n"
        "  --version    the tool's and the library's version\n"
        "\n"
        "Exit codes: 0 ok, 1 operation failed, 2 bad command line or value,\n"
        "            3 no such camera (or it went away), 4 camera busy or no permission.\n");
}

/* ------------------------------------------------------------------ */
/* Messages, signals                                                   */
/* ------------------------------------------------------------------ */

static int g_json;
static volatile sig_atomic_t g_interrupted;

static void on_signal(int sig)
{
    (void)sig;
    g_interrupted = 1;
}

static void catch_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts;

    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (long)(ms % 1000) * 1000000L;
    nanosleep(&ts, NULL); /* a signal ends it early: callers check g_interrupted */
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void err(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, PROGRAM ": ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
}

static int usage_error(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, PROGRAM ": ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '" PROGRAM " --help'.\n");
    return EXIT_USAGE;
}

static int exit_code(int status)
{
    switch (status) {
    case CAMCORE_OK: return EXIT_OK;
    case CAMCORE_E_INVALID_ARG: return EXIT_USAGE;
    case CAMCORE_E_NO_DEVICE: return EXIT_NO_DEVICE;
    case CAMCORE_E_BUSY:
    case CAMCORE_E_ACCESS: return EXIT_BUSY;
    default: return EXIT_FAILED;
    }
}

/* Reports a failed call in words a user can act on, then the library's
 * detail on its own line; returns its exit code. */
static int fail(int status, const char *what, const camcore_device_info *dev)
{
    const char *detail = camcore_last_error_message();
    const char *node = dev ? dev->node : "the camera";

    switch (status) {
    case CAMCORE_E_BUSY:
        err("device busy: %s is used by another process. Close the other program, or pick "
            "another camera (" PROGRAM " list).", node);
        break;
    case CAMCORE_E_ACCESS:
        err("permission denied: cannot open %s. Add yourself to the 'video' group "
            "(sudo usermod -aG video $USER, then log in again).", node);
        break;
    case CAMCORE_E_NO_DEVICE:
        err("no device: %s is gone. Is the camera still plugged in? See " PROGRAM " list.",
            dev ? dev->node : what);
        break;
    default:
        err("%s failed: %s", what, camcore_strerror(status));
        break;
    }
    if (*detail)
        fprintf(stderr, "  (%s)\n", detail);
    return exit_code(status);
}

/* ------------------------------------------------------------------ */
/* JSON output                                                         */
/* ------------------------------------------------------------------ */

static void json_str(const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");

    putchar('"');
    for (; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", stdout); break;
        case '\\': fputs("\\\\", stdout); break;
        case '\n': fputs("\\n", stdout); break;
        case '\r': fputs("\\r", stdout); break;
        case '\t': fputs("\\t", stdout); break;
        default:
            if (*p < 0x20)
                printf("\\u%04x", *p);
            else
                putchar(*p);
        }
    }
    putchar('"');
}

/* "key": "value" with a leading comma unless first. */
static void json_kv_str(int *first, const char *key, const char *value)
{
    printf("%s\"%s\": ", *first ? "" : ", ", key);
    json_str(value);
    *first = 0;
}

static void json_kv_int(int *first, const char *key, long long value)
{
    printf("%s\"%s\": %lld", *first ? "" : ", ", key, value);
    *first = 0;
}

static void json_kv_bool(int *first, const char *key, int value)
{
    printf("%s\"%s\": %s", *first ? "" : ", ", key, value ? "true" : "false");
    *first = 0;
}

/* A frame rate as a JSON number (30, 29.97) or null. */
static void json_kv_fps(int *first, const char *key, camcore_fraction f)
{
    printf("%s\"%s\": ", *first ? "" : ", ", key);
    if (f.denominator == 0 || f.numerator == 0)
        printf("null");
    else if (f.numerator % f.denominator == 0)
        printf("%" PRIu32, f.numerator / f.denominator);
    else
        printf("%.6g", (double)f.numerator / f.denominator);
    *first = 0;
}

/* ------------------------------------------------------------------ */
/* Names                                                               */
/* ------------------------------------------------------------------ */

static const char *type_name(int32_t type)
{
    switch (type) {
    case CAMCORE_DEVICE_TYPE_BUILTIN: return "builtin";
    case CAMCORE_DEVICE_TYPE_EXTERNAL: return "external";
    case CAMCORE_DEVICE_TYPE_VIRTUAL: return "virtual";
    default: return "unknown";
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

static const char *range_name(int32_t kind)
{
    switch (kind) {
    case CAMCORE_RANGE_DISCRETE: return "discrete";
    case CAMCORE_RANGE_STEPWISE: return "stepwise";
    case CAMCORE_RANGE_CONTINUOUS: return "continuous";
    default: return "unknown";
    }
}

static const char *control_type_name(int32_t type)
{
    switch (type) {
    case CAMCORE_CONTROL_TYPE_INTEGER: return "int";
    case CAMCORE_CONTROL_TYPE_BOOLEAN: return "bool";
    case CAMCORE_CONTROL_TYPE_MENU: return "menu";
    case CAMCORE_CONTROL_TYPE_BUTTON: return "button";
    case CAMCORE_CONTROL_TYPE_INTEGER64: return "int64";
    case CAMCORE_CONTROL_TYPE_STRING: return "string";
    case CAMCORE_CONTROL_TYPE_BITMASK: return "bitmask";
    case CAMCORE_CONTROL_TYPE_INTEGER_MENU: return "intmenu";
    default: return "unknown";
    }
}

static const struct {
    uint32_t bit;
    const char *name;
} control_flags[] = {
    {CAMCORE_CONTROL_FLAG_DISABLED, "disabled"},
    {CAMCORE_CONTROL_FLAG_GRABBED, "grabbed"},
    {CAMCORE_CONTROL_FLAG_READ_ONLY, "read-only"},
    {CAMCORE_CONTROL_FLAG_UPDATE, "update"},
    {CAMCORE_CONTROL_FLAG_INACTIVE, "inactive"},
    {CAMCORE_CONTROL_FLAG_SLIDER, "slider"},
    {CAMCORE_CONTROL_FLAG_WRITE_ONLY, "write-only"},
    {CAMCORE_CONTROL_FLAG_VOLATILE, "volatile"},
    {CAMCORE_CONTROL_FLAG_HAS_PAYLOAD, "has-payload"},
    {CAMCORE_CONTROL_FLAG_EXECUTE_ON_WRITE, "execute-on-write"},
    {CAMCORE_CONTROL_FLAG_MODIFY_LAYOUT, "modify-layout"},
    {CAMCORE_CONTROL_FLAG_DYNAMIC_ARRAY, "dynamic-array"},
};

/* The short name of a control, as v4l2-ctl prints it: lower case, runs of
 * other characters as one '_' ("Gain, Automatic" -> "gain_automatic"). */
static void control_key(const char *name, char *out, size_t size)
{
    size_t n = 0;
    int pending = 0;

    for (; *name && n + 2 < size; name++) {
        unsigned char c = (unsigned char)*name;
        if (isalnum(c)) {
            if (pending && n > 0)
                out[n++] = '_';
            pending = 0;
            out[n++] = (char)tolower(c);
        } else {
            pending = 1;
        }
    }
    out[n] = 0;
}

/* A FourCC as v4l2-ctl writes it: "YUYV", "Y16 -BE" (bit 31: big-endian);
 * the table's name, which it gives for unknown FourCCs too. */
static const char *fourcc_text(uint32_t fourcc, char out[8])
{
    camcore_pixel_format_info info;

    info.struct_size = sizeof info;
    info.name[0] = 0;
    camcore_pixel_format_get_info(fourcc, &info);
    snprintf(out, 8, "%s", info.name);
    return out;
}

/* An fps fraction for humans: "30", "29.97", "12.5". */
static const char *fps_text(camcore_fraction f, char *buf, size_t size)
{
    if (f.denominator == 0 || f.numerator == 0)
        snprintf(buf, size, "?");
    else if (f.numerator % f.denominator == 0)
        snprintf(buf, size, "%" PRIu32, f.numerator / f.denominator);
    else
        snprintf(buf, size, "%.3g", (double)f.numerator / f.denominator);
    return buf;
}

static int parse_u32(const char *text, uint32_t *out)
{
    char *end;
    unsigned long v;

    if (text == NULL || !isdigit((unsigned char)text[0]))
        return -1;
    errno = 0;
    v = strtoul(text, &end, 10);
    if (errno || *end || v > 0xffffffffUL)
        return -1;
    *out = (uint32_t)v;
    return 0;
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

/* ------------------------------------------------------------------ */
/* Devices                                                             */
/* ------------------------------------------------------------------ */

struct devices {
    camcore_manager *manager;
    camcore_device_list *all; /* real cameras and the synthetic one */
    /* What `list` shows and indices count: the real cameras, or the
     * synthetic camera when there is none (or CAMCORE_SYNTHETIC_CAMERA=1). */
    const camcore_device_info *shown[256];
    size_t count;
    int synthetic_only;
};

static int env_synthetic(void)
{
    const char *v = getenv("CAMCORE_SYNTHETIC_CAMERA");
    return v && *v && strcmp(v, "0") != 0 && strcasecmp(v, "false") != 0 && strcasecmp(v, "no") != 0;
}

/* Lists the cameras. include_fallback: list the synthetic camera when
 * there is no real one. Returns an exit code. */
static int load_devices(struct devices *d, int include_fallback)
{
    camcore_manager_config cfg;
    size_t i, real = 0;
    int st;

    memset(d, 0, sizeof *d);
    camcore_manager_config_init(&cfg);
    cfg.include_synthetic = 1;
    st = camcore_manager_new(&cfg, &d->manager);
    if (st == CAMCORE_OK)
        st = camcore_manager_list_devices(d->manager, &d->all);
    if (st != CAMCORE_OK)
        return fail(st, "listing the cameras", NULL);
    for (i = 0; i < d->all->count; i++)
        if (!(d->all->devices[i].flags & CAMCORE_DEVICE_SYNTHETIC))
            real++;
    for (i = 0; i < d->all->count && d->count < 256; i++) {
        const camcore_device_info *dev = &d->all->devices[i];
        int synthetic = (dev->flags & CAMCORE_DEVICE_SYNTHETIC) != 0;
        if (!synthetic || env_synthetic() || (real == 0 && include_fallback))
            d->shown[d->count++] = dev;
    }
    d->synthetic_only = real == 0;
    return EXIT_OK;
}

static void free_devices(struct devices *d)
{
    camcore_device_list_free(d->all);
    camcore_manager_free(d->manager);
    memset(d, 0, sizeof *d);
}

/* DEVICE -> a camera: an index into what `list` shows, a node path (links
 * followed), or an id. NULL: the first camera, else the synthetic one
 * (with a note). Prints why on failure. */
static const camcore_device_info *resolve_device(struct devices *d, const char *spec)
{
    size_t i;
    uint32_t index;

    if (spec == NULL) {
        if (d->count == 0) {
            err("no camera found");
            return NULL;
        }
        if (d->synthetic_only && !g_json)
            fprintf(stderr, PROGRAM ": no camera found; using camcore's synthetic camera "
                            "(a test pattern)\n");
        return d->shown[0];
    }
    if (parse_u32(spec, &index) == 0) {
        if (index < d->count)
            return d->shown[index];
        if (d->count == 0)
            err("no camera with index %s: no camera found", spec);
        else
            err("no camera with index %s: there %s %zu (0..%zu); see " PROGRAM " list", spec,
                d->count == 1 ? "is" : "are", d->count, d->count - 1);
        return NULL;
    }
    for (i = 0; i < d->all->count; i++)
        if (strcmp(d->all->devices[i].id, spec) == 0)
            return &d->all->devices[i];
    if (spec[0] == '/') {
        char want[PATH_MAX], have[PATH_MAX];
        struct stat sb;
        if (realpath(spec, want) == NULL) {
            err("no such device node: %s (%s); see " PROGRAM " list", spec, strerror(errno));
            return NULL;
        }
        for (i = 0; i < d->all->count; i++) {
            const char *node = d->all->devices[i].node;
            if (strcmp(node, spec) == 0 ||
                (realpath(node, have) != NULL && strcmp(have, want) == 0))
                return &d->all->devices[i];
        }
        if (stat(want, &sb) == 0 && S_ISCHR(sb.st_mode))
            err("%s is not a camera camcore can capture from (a metadata, output or other "
                "non-capture node?); see " PROGRAM " list", spec);
        else
            err("%s is not a video device; see " PROGRAM " list", spec);
        return NULL;
    }
    err("no camera with id '%s'; see " PROGRAM " list", spec);
    return NULL;
}

static void json_device_fields(int *first, const camcore_device_info *dev)
{
    json_kv_str(first, "id", dev->id);
    json_kv_str(first, "name", dev->name);
    json_kv_str(first, "node", dev->node);
    json_kv_str(first, "type", type_name(dev->type));
    json_kv_str(first, "position", position_name(dev->position));
    json_kv_str(first, "driver", dev->driver);
    json_kv_str(first, "bus_info", dev->bus_info);
    json_kv_int(first, "usb_vendor_id", dev->usb_vendor_id);
    json_kv_int(first, "usb_product_id", dev->usb_product_id);
    json_kv_bool(first, "multiplanar", (dev->flags & CAMCORE_DEVICE_MULTIPLANAR) != 0);
    json_kv_bool(first, "synthetic", (dev->flags & CAMCORE_DEVICE_SYNTHETIC) != 0);
    json_kv_bool(first, "unavailable", (dev->flags & CAMCORE_DEVICE_UNAVAILABLE) != 0);
    if (dev->flags & CAMCORE_DEVICE_UNAVAILABLE)
        json_kv_str(first, "unavailable_reason", dev->unavailable_reason);
}

static void json_device(const camcore_device_info *dev)
{
    int first = 1;

    putchar('{');
    json_device_fields(&first, dev);
    putchar('}');
}

/* ------------------------------------------------------------------ */
/* list                                                                */
/* ------------------------------------------------------------------ */

static int cmd_list(int argc, char **argv)
{
    struct devices d;
    size_t i;
    int rc, wid = 2, wname = 4, wnode = 4;

    if (argc > 0)
        return usage_error("list: unexpected argument '%s'", argv[0]);
    if ((rc = load_devices(&d, 1)) != EXIT_OK)
        return rc;
    if (g_json) {
        printf("{\"devices\": [");
        for (i = 0; i < d.count; i++) {
            int first = 1;
            printf("%s{", i ? ", " : "");
            json_kv_int(&first, "index", (long long)i);
            json_device_fields(&first, d.shown[i]);
            putchar('}');
        }
        printf("]}\n");
    } else {
        for (i = 0; i < d.count; i++) {
            int a = (int)strlen(d.shown[i]->id), b = (int)strlen(d.shown[i]->name),
                c = (int)strlen(d.shown[i]->node);
            wid = a > wid ? a : wid;
            wname = b > wname ? b : wname;
            wnode = c > wnode ? c : wnode;
        }
        if (d.synthetic_only && d.count > 0)
            printf("No camera found; camcore's synthetic camera stands in for one.\n");
        printf("%-3s %-*s  %-*s  %-8s  %-8s  %s\n", "#", wid, "ID", wname, "NAME", "TYPE",
               "POSITION", "NODE");
        for (i = 0; i < d.count; i++) {
            printf("%-3zu %-*s  %-*s  %-8s  %-8s  %s\n", i, wid, d.shown[i]->id, wname,
                   d.shown[i]->name, type_name(d.shown[i]->type),
                   position_name(d.shown[i]->position), d.shown[i]->node);
            if (d.shown[i]->flags & CAMCORE_DEVICE_UNAVAILABLE)
                printf("    unavailable: %s\n", d.shown[i]->unavailable_reason);
        }
    }
    free_devices(&d);
    return EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* formats                                                             */
/* ------------------------------------------------------------------ */

static void print_rates(const camcore_format *f)
{
    char a[32], b[32];
    uint32_t i;

    switch (f->rate_kind) {
    case CAMCORE_RANGE_DISCRETE:
        for (i = 0; i < f->rate_count; i++)
            printf("%s%s", i ? ", " : "", fps_text(f->rates[i], a, sizeof a));
        printf(" fps");
        break;
    case CAMCORE_RANGE_STEPWISE:
        printf("%s - %s fps (stepwise)", fps_text(f->min_fps, a, sizeof a),
               fps_text(f->max_fps, b, sizeof b));
        break;
    case CAMCORE_RANGE_CONTINUOUS:
        printf("%s - %s fps (continuous)", fps_text(f->min_fps, a, sizeof a),
               fps_text(f->max_fps, b, sizeof b));
        break;
    default:
        printf("rates not listed by the driver");
    }
}

static int cmd_formats(int argc, char **argv)
{
    struct devices d;
    const camcore_device_info *dev;
    camcore_format_list *fl = NULL;
    const char *spec = NULL;
    size_t i;
    uint32_t j;
    int rc, st;
    char code[8];

    for (i = 0; i < (size_t)argc; i++) {
        if (argv[i][0] == '-' && argv[i][1])
            return usage_error("formats: unknown option '%s'", argv[i]);
        if (spec)
            return usage_error("formats: more than one DEVICE ('%s', '%s')", spec, argv[i]);
        spec = argv[i];
    }
    if ((rc = load_devices(&d, 1)) != EXIT_OK)
        return rc;
    if ((dev = resolve_device(&d, spec)) == NULL) {
        free_devices(&d);
        return EXIT_NO_DEVICE;
    }
    st = camcore_manager_list_formats(d.manager, dev->id, &fl);
    if (st != CAMCORE_OK) {
        rc = fail(st, "listing the formats", dev);
        free_devices(&d);
        return rc;
    }
    if (g_json) {
        printf("{\"device\": ");
        json_device(dev);
        printf(", \"formats\": [");
        for (i = 0; i < fl->count; i++) {
            const camcore_format *f = &fl->formats[i];
            int first = 1;
            printf("%s{", i ? ", " : "");
            json_kv_str(&first, "fourcc", fourcc_text(f->fourcc, code));
            json_kv_str(&first, "description", f->description);
            json_kv_bool(&first, "compressed", (f->flags & CAMCORE_FORMAT_COMPRESSED) != 0);
            json_kv_str(&first, "size_kind", range_name(f->size_kind));
            json_kv_int(&first, "width", f->width);
            json_kv_int(&first, "height", f->height);
            json_kv_int(&first, "min_width", f->min_width);
            json_kv_int(&first, "max_width", f->max_width);
            json_kv_int(&first, "step_width", f->step_width);
            json_kv_int(&first, "min_height", f->min_height);
            json_kv_int(&first, "max_height", f->max_height);
            json_kv_int(&first, "step_height", f->step_height);
            json_kv_str(&first, "rate_kind", range_name(f->rate_kind));
            printf(", \"fps\": [");
            for (j = 0; j < f->rate_count; j++) {
                printf("%s", j ? ", " : "");
                if (f->rates[j].denominator && f->rates[j].numerator % f->rates[j].denominator == 0)
                    printf("%" PRIu32, f->rates[j].numerator / f->rates[j].denominator);
                else if (f->rates[j].denominator)
                    printf("%.6g", (double)f->rates[j].numerator / f->rates[j].denominator);
                else
                    printf("null");
            }
            printf("]");
            json_kv_fps(&first, "min_fps", f->min_fps);
            json_kv_fps(&first, "max_fps", f->max_fps);
            putchar('}');
        }
        printf("]}\n");
    } else {
        uint32_t last = 0;
        printf("Formats of %s (%s, id %s):\n", dev->name, dev->node, dev->id);
        for (i = 0; i < fl->count; i++) {
            const camcore_format *f = &fl->formats[i];
            if (i == 0 || f->fourcc != last) {
                printf("  %s  %s%s\n", fourcc_text(f->fourcc, code), f->description,
                       (f->flags & CAMCORE_FORMAT_COMPRESSED) ? " (compressed)" : "");
                last = f->fourcc;
            }
            if (f->size_kind == CAMCORE_RANGE_DISCRETE)
                printf("        %" PRIu32 "x%" PRIu32 "  ", f->width, f->height);
            else
                printf("        %" PRIu32 "x%" PRIu32 " - %" PRIu32 "x%" PRIu32
                       " (step %" PRIu32 "x%" PRIu32 ")  ",
                       f->min_width, f->min_height, f->max_width, f->max_height, f->step_width,
                       f->step_height);
            print_rates(f);
            putchar('\n');
        }
        if (fl->count == 0)
            printf("  (none)\n");
    }
    camcore_format_list_free(fl);
    free_devices(&d);
    return EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* capture                                                             */
/* ------------------------------------------------------------------ */

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
        err("cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    info = png ? png_create_info_struct(png) : NULL;
    if (png == NULL || info == NULL) {
        err("libpng: out of memory");
        png_destroy_write_struct(&png, NULL);
        fclose(file);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        err("libpng could not write %s", path);
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
        err("cannot write %s: %s", path, strerror(errno));
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

static int cmd_capture(int argc, char **argv)
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
    uint32_t width = 0, height = 0, fps = 0, fourcc = 0, frames = 0;
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
            strcmp(opt, "--output"))
            return usage_error("capture: unknown option '%s'", opt);
        if (val == NULL)
            return usage_error("capture: %s needs a value", opt);
        i++;
        if (!strcmp(opt, "--size")) {
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
            err("cannot create %s: %s", snapshot, strerror(errno));
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

    memset(&c, 0, sizeof c);
    pthread_mutex_init(&c.lock, NULL);
    pthread_cond_init(&c.cond, NULL);
    c.limit = have_frames ? frames : 0;
    c.keep = snapshot != NULL;
    if (output && (c.out = fopen(output, "wb")) == NULL) {
        err("cannot create %s: %s", output, strerror(errno));
        free_devices(&d);
        return EXIT_FAILED;
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
            err("%s cannot capture %s: %s. See: " PROGRAM " formats%s%s", dev->node,
                fourcc_text(fourcc, code), camcore_last_error_message(),
                spec ? " " : "", spec ? spec : "");
            rc = EXIT_FAILED;
        } else {
            rc = fail(st, "starting the capture", dev);
        }
        camcore_capturer_close(cap);
        if (c.out)
            fclose(c.out);
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
            err("the camera went away: %s (%s)", dev->node, msg);
        else
            err("capture from %s stopped: %s: %s", dev->node, camcore_strerror(c.error_status), msg);
        rc = exit_code(c.error_status);
        if (rc == EXIT_USAGE)
            rc = EXIT_FAILED;
    }
    if (c.out) {
        if (fclose(c.out) != 0 && !c.out_error)
            c.out_error = errno;
        if (c.out_error) {
            err("cannot write %s: %s", output, strerror(c.out_error));
            rc = EXIT_FAILED;
        }
    }
    if (snapshot) {
        if (c.kept == NULL) {
            err("no frame to write to %s", snapshot);
            rc = rc ? rc : EXIT_FAILED;
        } else {
            uint8_t *rgb = malloc((size_t)c.kept->width * c.kept->height * 3);
            if (rgb == NULL || frame_to_rgb(c.kept, rgb) != 0) {
                err("cannot convert %s frames to PNG for --snapshot (capture with --format "
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

/* ------------------------------------------------------------------ */
/* monitor                                                             */
/* ------------------------------------------------------------------ */

static void monitor_event(const char *event, const camcore_device_info *dev)
{
    struct timespec ts;
    struct tm tm;
    char when[32];

    clock_gettime(CLOCK_REALTIME, &ts);
    localtime_r(&ts.tv_sec, &tm);
    strftime(when, sizeof when, "%H:%M:%S", &tm);
    if (g_json) {
        int first = 1;
        char iso[40];
        strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(iso + strlen(iso), sizeof iso - strlen(iso), ".%03ld", ts.tv_nsec / 1000000L);
        putchar('{');
        json_kv_str(&first, "event", event);
        json_kv_str(&first, "time", iso);
        printf(", \"device\": ");
        json_device(dev);
        printf("}\n");
    } else {
        printf("%s.%03ld  %-12s %s  %s  %s\n", when, ts.tv_nsec / 1000000L, event, dev->node,
               dev->name, dev->id);
    }
    fflush(stdout);
}

static int in_list(const camcore_device_list *l, const char *id)
{
    size_t i;

    for (i = 0; l && i < l->count; i++)
        if (strcmp(l->devices[i].id, id) == 0)
            return 1;
    return 0;
}

/* The ids reported as present, guarded by g_monitor_lock: hot-plug events
 * come on camcore's hot-plug thread while main prints the initial list. */
static pthread_mutex_t g_monitor_lock = PTHREAD_MUTEX_INITIALIZER;
static char **g_known;
static size_t g_known_count;

static int known_index(const char *id)
{
    size_t i;

    for (i = 0; i < g_known_count; i++)
        if (strcmp(g_known[i], id) == 0)
            return (int)i;
    return -1;
}

static void known_add(const char *id)
{
    char **grown = realloc(g_known, (g_known_count + 1) * sizeof *g_known);
    char *copy = strdup(id);

    if (grown == NULL || copy == NULL) {
        free(copy);
        if (grown)
            g_known = grown;
        return;
    }
    g_known = grown;
    g_known[g_known_count++] = copy;
}

static void known_remove(int i)
{
    free(g_known[i]);
    g_known[i] = g_known[--g_known_count];
}

static void on_hotplug_connected(void *user_data, const camcore_device_info *device)
{
    (void)user_data;
    pthread_mutex_lock(&g_monitor_lock);
    if (known_index(device->id) < 0) {
        known_add(device->id);
        monitor_event("connected", device);
    }
    pthread_mutex_unlock(&g_monitor_lock);
}

static void on_hotplug_disconnected(void *user_data, const camcore_device_info *device)
{
    int i;

    (void)user_data;
    pthread_mutex_lock(&g_monitor_lock);
    if ((i = known_index(device->id)) >= 0) {
        known_remove(i);
        monitor_event("disconnected", device);
    }
    pthread_mutex_unlock(&g_monitor_lock);
}

/* Without udev's monitor: compare the device list every 500 ms. */
static void monitor_by_polling(camcore_manager *m, camcore_device_list *prev)
{
    camcore_device_list *cur = NULL;
    size_t i;

    while (!g_interrupted) {
        sleep_ms(500);
        if (g_interrupted || camcore_manager_list_devices(m, &cur) != CAMCORE_OK)
            continue;
        for (i = 0; i < prev->count; i++)
            if (!in_list(cur, prev->devices[i].id))
                monitor_event("disconnected", &prev->devices[i]);
        for (i = 0; i < cur->count; i++)
            if (!in_list(prev, cur->devices[i].id))
                monitor_event("connected", &cur->devices[i]);
        camcore_device_list_free(prev);
        prev = cur;
        cur = NULL;
    }
    camcore_device_list_free(prev);
}

static int cmd_monitor(int argc, char **argv)
{
    camcore_manager *m = NULL;
    camcore_device_list *list = NULL;
    camcore_hotplug_callbacks cb;
    size_t i;
    int st, hotplug;

    if (argc > 0)
        return usage_error("monitor: unexpected argument '%s'", argv[0]);
    catch_signals();
    st = camcore_manager_new(NULL, &m); /* real cameras (the synthetic one only if the env asks) */
    if (st != CAMCORE_OK)
        return fail(st, "creating a manager", NULL);
    /* Events first (held back by the lock), then the list: nothing falls between. */
    memset(&cb, 0, sizeof cb);
    cb.struct_size = sizeof cb;
    cb.on_connected = on_hotplug_connected;
    cb.on_disconnected = on_hotplug_disconnected;
    pthread_mutex_lock(&g_monitor_lock);
    hotplug = camcore_manager_set_hotplug_callbacks(m, &cb) == CAMCORE_OK;
    st = camcore_manager_list_devices(m, &list);
    if (st != CAMCORE_OK) {
        pthread_mutex_unlock(&g_monitor_lock);
        camcore_manager_free(m);
        return fail(st, "listing the cameras", NULL);
    }
    for (i = 0; i < list->count; i++) {
        known_add(list->devices[i].id);
        monitor_event("present", &list->devices[i]);
    }
    if (!g_json) {
        fprintf(stderr, "Watching for cameras (%s; Ctrl-C to stop)...\n",
                hotplug ? "udev hot-plug events" : "polling every 500 ms");
        if (list->count == 0)
            fprintf(stderr, "No camera present.\n");
    }
    pthread_mutex_unlock(&g_monitor_lock);
    if (hotplug) {
        camcore_device_list_free(list);
        while (!g_interrupted)
            sleep_ms(200);
        camcore_manager_set_hotplug_callbacks(m, NULL);
    } else {
        monitor_by_polling(m, list);
    }
    camcore_manager_free(m);
    while (g_known_count)
        known_remove(0);
    free(g_known);
    return EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* controls                                                            */
/* ------------------------------------------------------------------ */

static const camcore_control_info *find_control(const camcore_control_list *l, const char *name)
{
    char key[64], want[64];
    size_t i;
    char *end;
    unsigned long id;

    errno = 0;
    id = strtoul(name, &end, 0);
    if (*name && !*end && !errno) {
        for (i = 0; i < l->count; i++)
            if (l->controls[i].id == id)
                return &l->controls[i];
        return NULL;
    }
    control_key(name, want, sizeof want);
    for (i = 0; i < l->count; i++) {
        control_key(l->controls[i].name, key, sizeof key);
        if (strcmp(key, want) == 0 || strcasecmp(l->controls[i].name, name) == 0)
            return &l->controls[i];
    }
    return NULL;
}

/* VALUE -> a number for this control. Returns 0 or -1 (message printed). */
static int parse_control_value(const camcore_control_info *c, const char *text, int64_t *out)
{
    char *end;
    long long v;
    uint32_t i;
    char key[64], want[64];

    if (c->type == CAMCORE_CONTROL_TYPE_BOOLEAN || c->type == CAMCORE_CONTROL_TYPE_BUTTON) {
        if (!strcasecmp(text, "true") || !strcasecmp(text, "on") || !strcasecmp(text, "yes")) {
            *out = 1;
            return 0;
        }
        if (!strcasecmp(text, "false") || !strcasecmp(text, "off") || !strcasecmp(text, "no")) {
            *out = 0;
            return 0;
        }
    }
    errno = 0;
    v = strtoll(text, &end, 0);
    if (*text && !*end && !errno) {
        *out = v;
        return 0;
    }
    if (c->type == CAMCORE_CONTROL_TYPE_BITMASK) {
        errno = 0;
        v = (long long)strtoull(text, &end, 0);
        if (*text && !*end && !errno) {
            *out = v;
            return 0;
        }
    }
    if (c->type == CAMCORE_CONTROL_TYPE_MENU || c->type == CAMCORE_CONTROL_TYPE_INTEGER_MENU) {
        control_key(text, want, sizeof want);
        for (i = 0; i < c->menu_count; i++) {
            control_key(c->menu[i].name, key, sizeof key);
            if (strcasecmp(c->menu[i].name, text) == 0 || (want[0] && strcmp(key, want) == 0)) {
                *out = c->menu[i].index;
                return 0;
            }
        }
        err("'%s' is not an item of menu '%s'; its items are:", text, c->name);
        for (i = 0; i < c->menu_count; i++)
            fprintf(stderr, "    %" PRIu32 ": %s\n", c->menu[i].index, c->menu[i].name);
        return -1;
    }
    err("'%s' is not a value for '%s' (%s): give a number%s", text, c->name,
        control_type_name(c->type),
        c->type == CAMCORE_CONTROL_TYPE_BOOLEAN ? ", true or false" : "");
    return -1;
}

static const char *menu_label(const camcore_control_info *c, int64_t value)
{
    uint32_t i;

    for (i = 0; i < c->menu_count; i++)
        if ((int64_t)c->menu[i].index == value)
            return c->menu[i].name;
    return NULL;
}

/* The text of a string control, malloc'd (free it); NULL if it cannot be read. */
static char *control_text(camcore_capturer *cap, const camcore_control_info *c)
{
    size_t size = (size_t)(c->maximum > 0 && c->maximum < (1 << 20) ? c->maximum : 0) + 1;
    char *text = malloc(size);
    if (text != NULL && camcore_capturer_get_control_string(cap, c->id, text, size) != CAMCORE_OK) {
        free(text);
        text = NULL;
    }
    return text;
}

static void print_control_text(camcore_capturer *cap, const camcore_control_info *c)
{
    char key[64];
    const char *label;
    size_t f;
    int any = 0;
    uint32_t i;

    control_key(c->name, key, sizeof key);
    printf("  %-30s 0x%08" PRIx32 " %-8s", key, c->id, control_type_name(c->type));
    switch (c->type) {
    case CAMCORE_CONTROL_TYPE_BUTTON:
        printf(" (button)");
        break;
    case CAMCORE_CONTROL_TYPE_STRING: {
        char *text = control_text(cap, c);
        if (text != NULL)
            printf(" value=\"%s\"", text);
        printf(" length %lld..%lld", (long long)c->minimum, (long long)c->maximum);
        free(text);
        break;
    }
    case CAMCORE_CONTROL_TYPE_BITMASK:
        printf(" value=0x%08llx mask=0x%08llx default=0x%08llx", (unsigned long long)c->value,
               (unsigned long long)c->maximum, (unsigned long long)c->default_value);
        break;
    case CAMCORE_CONTROL_TYPE_BOOLEAN:
        printf(" value=%lld default=%lld", (long long)c->value, (long long)c->default_value);
        break;
    case CAMCORE_CONTROL_TYPE_MENU:
    case CAMCORE_CONTROL_TYPE_INTEGER_MENU:
        label = menu_label(c, c->value);
        printf(" value=%lld%s%s%s min=%lld max=%lld default=%lld", (long long)c->value,
               label ? " (" : "", label ? label : "", label ? ")" : "", (long long)c->minimum,
               (long long)c->maximum, (long long)c->default_value);
        break;
    default:
        printf(" value=%lld min=%lld max=%lld step=%lld default=%lld", (long long)c->value,
               (long long)c->minimum, (long long)c->maximum, (long long)c->step,
               (long long)c->default_value);
    }
    for (f = 0; f < sizeof control_flags / sizeof control_flags[0]; f++)
        if (c->flags & control_flags[f].bit) {
            printf("%s%s", any ? "," : " flags=", control_flags[f].name);
            any = 1;
        }
    putchar('\n');
    for (i = 0; i < c->menu_count; i++)
        printf("      %" PRIu32 ": %s\n", c->menu[i].index, c->menu[i].name);
}

static void print_control_json(camcore_capturer *cap, const camcore_control_info *c)
{
    char key[64];
    size_t f;
    uint32_t i;
    int first = 1, any = 0;

    control_key(c->name, key, sizeof key);
    putchar('{');
    json_kv_int(&first, "id", c->id);
    json_kv_str(&first, "name", c->name);
    json_kv_str(&first, "key", key);
    json_kv_str(&first, "type", control_type_name(c->type));
    json_kv_int(&first, "minimum", c->minimum);
    json_kv_int(&first, "maximum", c->maximum);
    json_kv_int(&first, "step", c->step);
    json_kv_int(&first, "default", c->default_value);
    json_kv_int(&first, "value", c->value);
    if (c->type == CAMCORE_CONTROL_TYPE_STRING) {
        char *text = control_text(cap, c);
        if (text != NULL)
            json_kv_str(&first, "text", text);
        free(text);
    }
    json_kv_int(&first, "flags_raw", c->flags);
    printf(", \"flags\": [");
    for (f = 0; f < sizeof control_flags / sizeof control_flags[0]; f++)
        if (c->flags & control_flags[f].bit) {
            printf("%s", any ? ", " : "");
            json_str(control_flags[f].name);
            any = 1;
        }
    printf("], \"menu\": [");
    for (i = 0; i < c->menu_count; i++) {
        int one = 1;
        printf("%s{", i ? ", " : "");
        json_kv_int(&one, "index", c->menu[i].index);
        json_kv_str(&one, "name", c->menu[i].name);
        json_kv_int(&one, "value", c->menu[i].value);
        putchar('}');
    }
    printf("]}");
}

static int cmd_controls(int argc, char **argv)
{
    struct devices d;
    const camcore_device_info *dev;
    camcore_capturer *cap = NULL;
    camcore_control_list *list = NULL;
    const char *spec = NULL;
    const char **sets = NULL;
    int nsets = 0, i, rc = EXIT_OK, st;
    size_t k;

    sets = calloc((size_t)argc + 1, sizeof *sets);
    if (sets == NULL) {
        err("out of memory");
        return EXIT_FAILED;
    }
    for (i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--set")) {
            if (i + 1 >= argc || !strchr(argv[i + 1], '=')) {
                free(sets);
                return usage_error("controls: --set needs NAME=VALUE (e.g. --set brightness=200)");
            }
            sets[nsets++] = argv[++i];
        } else if (!strncmp(argv[i], "--set=", 6) && strchr(argv[i] + 6, '=')) {
            sets[nsets++] = argv[i] + 6;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            free(sets);
            return usage_error("controls: unknown option '%s'", argv[i]);
        } else if (spec) {
            free(sets);
            return usage_error("controls: more than one DEVICE ('%s', '%s')", spec, argv[i]);
        } else {
            spec = argv[i];
        }
    }
    if ((rc = load_devices(&d, 1)) != EXIT_OK) {
        free(sets);
        return rc;
    }
    if ((dev = resolve_device(&d, spec)) == NULL) {
        free(sets);
        free_devices(&d);
        return EXIT_NO_DEVICE;
    }
    st = camcore_capturer_open(d.manager, dev->id, &cap);
    if (st == CAMCORE_OK)
        st = camcore_capturer_list_controls(cap, &list);
    if (st != CAMCORE_OK) {
        rc = fail(st, "reading the controls", dev);
        goto out;
    }

    if (nsets == 0) {
        if (g_json) {
            printf("{\"device\": ");
            json_device(dev);
            printf(", \"controls\": [");
            for (k = 0; k < list->count; k++) {
                printf("%s", k ? ", " : "");
                print_control_json(cap, &list->controls[k]);
            }
            printf("]}\n");
        } else {
            printf("Controls of %s (%s):\n", dev->name, dev->node);
            for (k = 0; k < list->count; k++)
                print_control_text(cap, &list->controls[k]);
            if (list->count == 0)
                printf("  (none)\n");
        }
        goto out;
    }

    if (g_json)
        printf("{\"device\": "), json_device(dev), printf(", \"set\": [");
    for (i = 0; i < nsets; i++) {
        const char *eq = strchr(sets[i], '=');
        char name[128];
        const camcore_control_info *c;
        int64_t value = 0, applied = 0;
        size_t n = (size_t)(eq - sets[i]);

        if (n >= sizeof name)
            n = sizeof name - 1;
        memcpy(name, sets[i], n);
        name[n] = 0;
        c = find_control(list, name);
        if (c == NULL && list->count == 0) {
            err("%s (%s) has no controls", dev->name, dev->node);
            rc = EXIT_USAGE;
            break;
        }
        if (c == NULL) {
            err("%s has no control '%s'; see " PROGRAM " controls%s%s", dev->node, name,
                spec ? " " : "", spec ? spec : "");
            rc = EXIT_USAGE;
            break;
        }
        if (c->type == CAMCORE_CONTROL_TYPE_STRING) {
            char *text;
            char key[64];
            st = camcore_capturer_set_control_string(cap, c->id, eq + 1);
            if (st != CAMCORE_OK) {
                err("cannot set %s to \"%s\": %s", c->name, eq + 1, camcore_last_error_message());
                rc = exit_code(st);
                break;
            }
            text = control_text(cap, c);
            control_key(c->name, key, sizeof key);
            if (g_json) {
                int first = 1;
                printf("%s{", i ? ", " : "");
                json_kv_int(&first, "id", c->id);
                json_kv_str(&first, "name", c->name);
                json_kv_str(&first, "key", key);
                json_kv_str(&first, "requested", eq + 1);
                json_kv_str(&first, "applied", text ? text : eq + 1);
                putchar('}');
            } else {
                printf("%s: \"%s\"\n", key, text ? text : eq + 1);
            }
            free(text);
            continue;
        }
        if (parse_control_value(c, eq + 1, &value) != 0) {
            rc = EXIT_USAGE;
            break;
        }
        st = camcore_capturer_set_control(cap, c->id, value, &applied);
        if (st != CAMCORE_OK) {
            err("cannot set %s to %s: %s", c->name, eq + 1, camcore_last_error_message());
            rc = exit_code(st);
            break;
        }
        if (g_json) {
            int first = 1;
            char key[64];
            control_key(c->name, key, sizeof key);
            printf("%s{", i ? ", " : "");
            json_kv_int(&first, "id", c->id);
            json_kv_str(&first, "name", c->name);
            json_kv_str(&first, "key", key);
            json_kv_int(&first, "requested", value);
            json_kv_int(&first, "applied", applied);
            putchar('}');
        } else {
            char key[64];
            const char *label = menu_label(c, applied);
            control_key(c->name, key, sizeof key);
            if (c->type == CAMCORE_CONTROL_TYPE_BUTTON)
                printf("%s: pressed\n", key);
            else if (applied != value)
                printf("%s: %lld (asked %lld; the driver rounded it to its step of %lld)\n", key,
                       (long long)applied, (long long)value, (long long)c->step);
            else
                printf("%s: %lld%s%s%s\n", key, (long long)applied, label ? " (" : "",
                       label ? label : "", label ? ")" : "");
        }
    }
    if (g_json) {
        int first = 0;
        printf("]");
        json_kv_int(&first, "exit_code", rc);
        printf("}\n");
    }
out:
    camcore_control_list_free(list);
    camcore_capturer_close(cap);
    free_devices(&d);
    free(sets);
    return rc;
}

/* ------------------------------------------------------------------ */
/* main                                                                */
/* ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    const char *command = NULL;
    char **args;
    int nargs = 0, i, rc;

    args = calloc((size_t)argc + 1, sizeof *args);
    if (args == NULL)
        return EXIT_FAILED;
    /* Global options may come anywhere; the first other word is the command. */
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            g_json = 1;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") || !strcmp(argv[i], "help")) {
            usage(stdout);
            free(args);
            return EXIT_OK;
        } else if (!strcmp(argv[i], "--version")) {
            printf(PROGRAM " %d.%d.%d, libcamcore %s\n", CAMCORE_VERSION_MAJOR, CAMCORE_VERSION_MINOR,
                   CAMCORE_VERSION_PATCH, camcore_version_string());
            free(args);
            return EXIT_OK;
        } else if (command == NULL && argv[i][0] != '-') {
            command = argv[i];
        } else if (command == NULL) {
            free(args);
            return usage_error("unknown option '%s' (a COMMAND comes first)", argv[i]);
        } else {
            args[nargs++] = argv[i];
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (command == NULL) {
        usage(stderr);
        rc = EXIT_USAGE;
    } else if (!strcmp(command, "list")) {
        rc = cmd_list(nargs, args);
    } else if (!strcmp(command, "formats")) {
        rc = cmd_formats(nargs, args);
    } else if (!strcmp(command, "capture")) {
        rc = cmd_capture(nargs, args);
    } else if (!strcmp(command, "monitor")) {
        rc = cmd_monitor(nargs, args);
    } else if (!strcmp(command, "controls")) {
        rc = cmd_controls(nargs, args);
    } else {
        rc = usage_error("unknown command '%s' (list, formats, capture, monitor, controls)", command);
    }
    free(args);
    return rc;
}
