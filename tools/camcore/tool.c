// SPDX-License-Identifier: MIT
/*
 * What the commands share: messages and exit codes, signals, names,
 * number parsing, and finding the camera a DEVICE argument names.
 */
#include "camcore_tool.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <strings.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------ */
/* Messages, signals                                                  */
/* ------------------------------------------------------------------ */

volatile sig_atomic_t g_interrupted;

static void on_signal(int sig)
{
    (void)sig;
    g_interrupted = 1;
}

void catch_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* "camcore: <message><tail>" on stderr. */
static void report(const char *tail, const char *fmt, va_list ap)
{
    fprintf(stderr, PROGRAM ": ");
    vfprintf(stderr, fmt, ap);
    fputs(tail, stderr);
}

void errorf(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    report("\n", fmt, ap);
    va_end(ap);
}

const char *g_command;

int usage_error(const char *fmt, ...)
{
    char tail[64];
    va_list ap;

    snprintf(tail, sizeof tail, "\nTry '" PROGRAM "%s%s --help'.\n", g_command ? " " : "", g_command ? g_command : "");
    va_start(ap, fmt);
    report(tail, fmt, ap);
    va_end(ap);
    return EXIT_USAGE;
}

void command_usage(const char *usage, FILE *out)
{
    fputs(usage, out);
}

int common_option(const char *command, const char *usage, int c, char **argv)
{
    static const char *const backends[] = {"auto", "v4l2", "pipewire", "both", "libcamera"};
    static const char *const portals[] = {"auto", "never", "always"};
    int k;

    switch (c) {
    case 'h':
        command_usage(usage, stdout);
        return EXIT_OK;
    case OPT_JSON:
        g_json = 1;
        return OPTION_NEXT;
    case OPT_BACKEND:
        for (k = 0; k < 5 && strcmp(optarg, backends[k]) != 0; k++)
            ;
        if (k < 5) {
            g_backend = k;
            g_backend_names = NULL;
            return OPTION_NEXT;
        }
        if (strchr(optarg, ',')) {
            /* A set of backend names (S33): each one of the three, once. */
            const char *p = optarg;
            int seen = 0;
            while (1) {
                size_t n = strcspn(p, ",");
                int b;
                for (b = 1; b <= 4; b++)
                    if (b != 3 && strlen(backends[b]) == n && strncmp(p, backends[b], n) == 0)
                        break;
                if (b > 4 || (seen & (1 << b)))
                    return usage_error("--backend '%s': auto, both, or backend names (v4l2, pipewire, libcamera) "
                                       "alone or comma-separated, each once", optarg);
                seen |= 1 << b;
                if (!p[n])
                    break;
                p += n + 1;
            }
            g_backend = 0;
            g_backend_names = optarg;
            return OPTION_NEXT;
        }
        return usage_error("--backend '%s': auto, v4l2, pipewire, libcamera, both, or names comma-separated "
                           "(v4l2,libcamera)", optarg);
    case OPT_PORTAL:
        for (k = 0; k < 3 && strcmp(optarg, portals[k]) != 0; k++)
            ;
        if (k == 3)
            return usage_error("--portal '%s': one of auto, never, always", optarg);
        g_portal = k;
        return OPTION_NEXT;
    case ':':
        return usage_error("%s%s%s needs a value", command ? command : "", command ? ": " : "",
                           argv[optind - 1]);
    case '?':
        if (optopt && optopt < 0x100)
            return usage_error("%s%sunknown option '-%c'", command ? command : "", command ? ": " : "", optopt);
        return usage_error("%s%sunknown option '%s'", command ? command : "", command ? ": " : "",
                           argv[optind - 1]);
    default:
        return OPTION_MINE;
    }
}

int exit_code(int status)
{
    switch (status) {
    case CAMCORE_OK: return EXIT_OK;
    case CAMCORE_E_INVALID_ARG: return EXIT_USAGE;
    case CAMCORE_E_NO_DEVICE: return EXIT_NO_DEVICE;
    case CAMCORE_E_BUSY:
    case CAMCORE_E_ACCESS: return EXIT_BUSY;
    case CAMCORE_E_BANDWIDTH: return EXIT_BANDWIDTH;
    default: return EXIT_FAILED;
    }
}

/* Reports a failed call in words a user can act on, then the library's
 * detail on its own line; returns its exit code. */
int fail(int status, const char *what, const camcore_device_info *dev)
{
    const char *detail = camcore_last_error_message();
    const char *node = dev ? dev->node : "the camera";

    switch (status) {
    case CAMCORE_E_BUSY:
        errorf("device busy: %s is used by another process. Close the other program, or pick "
            "another camera (" PROGRAM " list).", node);
        break;
    case CAMCORE_E_ACCESS:
        if (strstr(detail, "portal"))
            errorf("camera access was not allowed (camera portal). Allow this program to use the "
                "camera in your desktop's privacy settings, then try again.");
        else
            errorf("permission denied: cannot open %s. Add yourself to the 'video' group "
                "(sudo usermod -aG video $USER, then log in again).", node);
        break;
    case CAMCORE_E_BANDWIDTH:
        errorf("not enough USB bandwidth: %s cannot stream this setting. Pick MJPEG (--format MJPG), a lower "
            "--size or --fps, or move other cameras to another USB port.", node);
        break;
    case CAMCORE_E_NO_DEVICE:
        errorf("no device: %s is gone. Is the camera still plugged in? See " PROGRAM " list.",
            dev ? dev->node : what);
        break;
    default:
        errorf("%s failed: %s", what, camcore_strerror(status));
        break;
    }
    if (*detail)
        fprintf(stderr, "  (%s)\n", detail);
    return exit_code(status);
}

/* ------------------------------------------------------------------ */
/* Names                                                              */
/* ------------------------------------------------------------------ */

const char *type_name(int32_t type)
{
    switch (type) {
    case CAMCORE_DEVICE_TYPE_BUILTIN: return "builtin";
    case CAMCORE_DEVICE_TYPE_EXTERNAL: return "external";
    case CAMCORE_DEVICE_TYPE_VIRTUAL: return "virtual";
    case CAMCORE_DEVICE_TYPE_INFRARED: return "infrared";
    default: return "unknown";
    }
}

const char *position_name(int32_t position)
{
    switch (position) {
    case CAMCORE_POSITION_FRONT: return "front";
    case CAMCORE_POSITION_BACK: return "back";
    case CAMCORE_POSITION_EXTERNAL: return "external";
    default: return "unknown";
    }
}

/* A FourCC as v4l2-ctl writes it: "YUYV", "Y16 -BE" (bit 31: big-endian);
 * the table's name, which it gives for unknown FourCCs too. */
const char *fourcc_text(uint32_t fourcc, char out[8])
{
    camcore_pixel_format_info info;

    info.struct_size = sizeof info;
    info.name[0] = 0;
    camcore_pixel_format_get_info(fourcc, &info);
    snprintf(out, 8, "%s", info.name);
    return out;
}

/* An fps fraction for humans: "30", "29.97", "12.5". */
const char *fps_text(camcore_fraction f, char *buf, size_t size)
{
    if (f.denominator == 0 || f.numerator == 0)
        snprintf(buf, size, "?");
    else if (f.numerator % f.denominator == 0)
        snprintf(buf, size, "%" PRIu32, f.numerator / f.denominator);
    else
        snprintf(buf, size, "%.3g", (double)f.numerator / f.denominator);
    return buf;
}

int parse_fourcc(const char *text, uint32_t *out)
{
    static const struct {
        const char *alias, *code;
    } aliases[] = {{"I420", "YU12"}, {"MJPEG", "MJPG"}, {"RGB24", "RGB3"}, {"BGR24", "BGR3"},
                   {"RGBA", "AB24"}};
    char c[4] = {' ', ' ', ' ', ' '};
    size_t i, n = strlen(text);
    uint32_t big_endian = 0;

    /* v4l2-ctl's name of a big-endian format: the code, then "-BE" ("Y16 -BE"). */
    if (n > 3 && strcasecmp(text + n - 3, "-BE") == 0) {
        big_endian = 1u << 31;
        n -= 3;
        while (n > 0 && text[n - 1] == ' ')
            n--;
    }
    for (i = 0; i < sizeof aliases / sizeof aliases[0] && !big_endian; i++)
        if (strcasecmp(text, aliases[i].alias) == 0)
            text = aliases[i].code, n = 4;
    if (n == 0 || n > 4)
        return -1;
    for (i = 0; i < n; i++) {
        if (!isprint((unsigned char)text[i]))
            return -1;
        c[i] = (char)toupper((unsigned char)text[i]);
    }
    *out = CAMCORE_FOURCC(c[0], c[1], c[2], c[3]) | big_endian;
    return 0;
}

int parse_fps(const char *text, camcore_fraction *out)
{
    char num[16];
    const char *slash = strchr(text, '/');
    size_t n = slash ? (size_t)(slash - text) : strlen(text);
    uint32_t a, b = 1;

    if (n == 0 || n >= sizeof num)
        return -1;
    memcpy(num, text, n);
    num[n] = 0;
    if (parse_u32(num, &a) || (slash && parse_u32(slash + 1, &b)) || a == 0 || b == 0)
        return -1;
    if ((double)a / b > 1000.0)
        return -1;
    out->numerator = a;
    out->denominator = b;
    return 0;
}

/* WxH -> width, height (both non-zero); 0, or -1. */
int parse_size(const char *val, uint32_t *w, uint32_t *h)
{
    const char *x = strchr(val, 'x');
    char wbuf[16];

    if (!x || (size_t)(x - val) >= sizeof wbuf)
        return -1;
    memcpy(wbuf, val, (size_t)(x - val));
    wbuf[x - val] = 0;
    return parse_u32(wbuf, w) || parse_u32(x + 1, h) || !*w || !*h ? -1 : 0;
}

int parse_u32(const char *text, uint32_t *out)
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

/* ------------------------------------------------------------------ */
/* Devices                                                            */
/* ------------------------------------------------------------------ */

static int env_synthetic(void)
{
    const char *v = getenv("CAMCORE_SYNTHETIC_CAMERA");
    return v && *v && strcmp(v, "0") != 0 && strcasecmp(v, "false") != 0 && strcasecmp(v, "no") != 0;
}

/* Lists the cameras. include_fallback: list the synthetic camera when
 * there is no real one. Returns an exit code. */
int load_devices(struct devices *d, int include_fallback)
{
    camcore_manager_config cfg;
    size_t i, real = 0;
    int st;

    memset(d, 0, sizeof *d);
    camcore_manager_config_init(&cfg);
    cfg.include_synthetic = 1;
    cfg.backend = g_backend;
    cfg.backend_names = g_backend_names;
    cfg.portal = g_portal;
    st = camcore_manager_new(&cfg, &d->manager);
    if (st == CAMCORE_OK) {
        int rc = ensure_camera_access(d->manager);
        if (rc != EXIT_OK)
            return rc;
        st = camcore_manager_list_devices(d->manager, &d->all);
    }
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

void free_devices(struct devices *d)
{
    camcore_device_list_free(d->all);
    camcore_manager_free(d->manager);
    memset(d, 0, sizeof *d);
}

/* DEVICE -> a camera: an index into what `list` shows, a node path (links
 * followed), or an id. NULL: the first camera, else the synthetic one
 * (with a note). Prints why on failure. */
const camcore_device_info *resolve_device(struct devices *d, const char *spec)
{
    size_t i;
    uint32_t index;

    if (spec == NULL) {
        if (d->count == 0) {
            errorf("no camera found");
            return NULL;
        }
        if (d->synthetic_only && !g_json)
            fprintf(stderr, PROGRAM ": no camera found; using camcore's synthetic camera "
                            "(a test pattern)\n");
        /* Never an infrared camera (S44): those are listed after the
         * colour ones and opened by naming them. */
        for (i = 0; i < d->count; i++)
            if (d->shown[i]->type != CAMCORE_DEVICE_TYPE_INFRARED)
                return d->shown[i];
        errorf("only an infrared camera was found (%s); name it to use it", d->shown[0]->id);
        return NULL;
    }
    if (parse_u32(spec, &index) == 0) {
        if (index < d->count)
            return d->shown[index];
        if (d->count == 0)
            errorf("no camera with index %s: no camera found", spec);
        else
            errorf("no camera with index %s: there %s %zu (0..%zu); see " PROGRAM " list", spec,
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
            errorf("no such device node: %s (%s); see " PROGRAM " list", spec, strerror(errno));
            return NULL;
        }
        for (i = 0; i < d->all->count; i++) {
            const char *node = d->all->devices[i].node;
            if (strcmp(node, spec) == 0 ||
                (realpath(node, have) != NULL && strcmp(have, want) == 0))
                return &d->all->devices[i];
        }
        if (stat(want, &sb) == 0 && S_ISCHR(sb.st_mode))
            errorf("%s is not a camera camcore can capture from (a metadata, output or other "
                "non-capture node?); see " PROGRAM " list", spec);
        else
            errorf("%s is not a video device; see " PROGRAM " list", spec);
        return NULL;
    }
    errorf("no camera with id '%s'; see " PROGRAM " list", spec);
    return NULL;
}

int ensure_camera_access(camcore_manager *m)
{
    int32_t state = CAMCORE_PERMISSION_GRANTED;
    int st;

    if (camcore_manager_get_camera_permission(m, &state) != CAMCORE_OK || state == CAMCORE_PERMISSION_GRANTED)
        return EXIT_OK;
    if (!g_json && isatty(2))
        fprintf(stderr, PROGRAM ": asking the camera portal for camera access ...\n");
    st = camcore_manager_request_camera_access(m, 120000, &state);
    if (st != CAMCORE_OK)
        return fail(st, "asking for camera access", NULL);
    return EXIT_OK;
}
