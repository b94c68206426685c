// SPDX-License-Identifier: MIT
/*
 * camcore — the command-line tool's internal header: what its files share.
 *
 *   main.c          usage, global options, command dispatch
 *   cmd_<name>.c    one command each (list, formats, capture, monitor, controls,
 *                   view)
 *   view_window.c   `view`'s SDL2 window (view.h: what it shares with cmd_view.c)
 *   serve.c         `view --serve`: MJPEG over HTTP (libmicrohttpd)
 *   snapshot.c      PNG snapshots of frames (libpng)
 *   json.c          the JSON writer
 *   tool.c          messages and exit codes, signals, names, parsing, devices
 *
 * Include it first: it sets the feature-test macros the system headers read.
 */
#ifndef CAMCORE_TOOL_H
#define CAMCORE_TOOL_H

#define _DEFAULT_SOURCE /* realpath, strcasecmp */
#define _POSIX_C_SOURCE 200809L

#include <camcore.h>

#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PROGRAM "camcore"

/* Exit codes (documented in --help). */
enum {
    EXIT_OK = 0,
    EXIT_FAILED = 1,    /* the operation failed (I/O, not supported, ...) */
    EXIT_USAGE = 2,     /* bad command line or value */
    EXIT_NO_DEVICE = 3, /* no such camera, or it went away */
    EXIT_BUSY = 4,      /* camera busy or permission denied */
    EXIT_BANDWIDTH = 5  /* the USB bus cannot carry the setting (S47) */
};

/* The command running (main.c), named in usage errors; NULL before one. */
extern const char *g_command;
/* --json was given (main.c). */
extern int g_json;
/* --backend: a camcore_backend value for every manager the tool makes. */
extern int g_backend;
extern const char *g_backend_names;
extern int g_portal;
/* Asks the camera portal for access when the manager goes through it and
 * access is not granted yet (waits up to 120 s). Returns an exit code. */
int ensure_camera_access(camcore_manager *m);
/* SIGINT or SIGTERM came, once catch_signals() is called (tool.c). */
extern volatile sig_atomic_t g_interrupted;

/* The commands: argv[0] is the command's name, the rest its arguments
 * (global options before the command already taken out); each scans them
 * with getopt_long and returns an exit code. Their --help texts: */
int cmd_list(int argc, char **argv);
int cmd_formats(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
int cmd_controls(int argc, char **argv);
int cmd_view(int argc, char **argv);
extern const char list_usage[], formats_usage[], capture_usage[], monitor_usage[], controls_usage[],
    view_usage[];

/* The options every command takes besides its own: the global ones may
 * also come after the command. Put COMMON_OPTIONS last in a command's
 * getopt_long table, before the {0} end. */
enum { OPT_JSON = 0x100, OPT_BACKEND, OPT_PORTAL, OPT_VERSION, OPT_COMMAND = 0x200 };
#define COMMON_OPTIONS                                                                       \
    {"json", no_argument, NULL, OPT_JSON}, {"backend", required_argument, NULL, OPT_BACKEND}, \
        {"portal", required_argument, NULL, OPT_PORTAL}, {"help", no_argument, NULL, 'h'}
/* The short options every command takes (":" first: missing values come
 * back as ':'). */
#define COMMON_SHORT ":h"
/* Handles what getopt_long returned for a command: a common option, an
 * unknown option or a missing value. Returns OPTION_MINE when c is the
 * command's own option, OPTION_NEXT when handled (scan on), else the exit
 * code to return now (--help: EXIT_OK; errors: EXIT_USAGE). */
enum { OPTION_MINE = -1, OPTION_NEXT = -2 };
int common_option(const char *command, const char *usage, int c, char **argv);
/* Prints "usage: ..." of a command (its --help) to out. */
void command_usage(const char *usage, FILE *out);

/* tool.c: messages, signals */
void catch_signals(void);
/* "camcore: <message>" on stderr. */
void errorf(const char *fmt, ...);
/* errorf(), then a pointer to --help; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...);
/* The exit code for a camcore status. */
int exit_code(int status);
/* Reports a failed call in words a user can act on, then the library's
 * detail on its own line; returns its exit code. */
int fail(int status, const char *what, const camcore_device_info *dev);

/* tool.c: names, parsing */
const char *type_name(int32_t type);
const char *position_name(int32_t position);
const char *fourcc_text(uint32_t fourcc, char out[8]);
const char *fps_text(camcore_fraction f, char *buf, size_t size);
int parse_u32(const char *text, uint32_t *out);
/* "640x480" -> width, height (both non-zero); 0, or -1 if not WxH. */
int parse_size(const char *text, uint32_t *width, uint32_t *height);
/* "YUYV", "I420", "mjpeg", "Y16 -BE" or "Y16-BE" (big-endian, as v4l2-ctl
 * names it) -> a FourCC; 0, or -1 if not one. */
int parse_fourcc(const char *text, uint32_t *out);
/* "30" or "30000/1001" -> a fraction; 0, or -1 if not a rate. */
int parse_fps(const char *text, camcore_fraction *out);

/* tool.c: devices */
struct devices {
    camcore_manager *manager;
    camcore_device_list *all; /* real cameras and the synthetic one */
    /* What `list` shows and indices count: the real cameras, or the
     * synthetic camera when there is none (or CAMCORE_SYNTHETIC_CAMERA=1). */
    const camcore_device_info *shown[256];
    size_t count;
    int synthetic_only;
};

int load_devices(struct devices *d, int include_fallback);
void free_devices(struct devices *d);
const camcore_device_info *resolve_device(struct devices *d, const char *spec);

/* snapshot.c: the frame as an RGB PNG at path (converted by camcore,
 * MJPEG included); 0, or -1 after printing why. */
int write_snapshot(const camcore_frame *frame, const char *path);

/* serve.c: `view --serve` (built with libmicrohttpd when pkg-config finds
 * it; serve_available() says whether it was). The frames come from src:
 * its eventfd is readable when one waits, take() returns the newest one
 * (retained, released by the server; NULL: none) and clears the wake. */
struct serve_source {
    int wake_fd;
    const camcore_frame *(*take)(void *user);
    void *user;
    int quiet; /* no messages on stderr (the "serving" line is always printed) */
};
int serve_available(void);
/* Serves http://address:port/ (port 0: a free one, printed) until SIGINT,
 * SIGTERM or seconds (0: no limit) pass. Returns an exit code. */
int serve_http(const struct serve_source *src, const char *title, const char *address, uint32_t port,
               double seconds);

/* json.c */
void json_str(const char *s);
void json_kv_str(int *first, const char *key, const char *value);
void json_kv_int(int *first, const char *key, long long value);
void json_kv_bool(int *first, const char *key, int value);
/* "key": 29.97, "key_exact": {"num": 30000, "den": 1001} (both null if unknown). */
void json_kv_fps(int *first, const char *key, camcore_fraction f);
/* {"num": 30000, "den": 1001}, or null for 0/0. */
void json_fraction(camcore_fraction f);
/* A frame rate as a JSON number (30, 29.97) or null. */
void json_fps_number(camcore_fraction f);
void json_device_fields(int *first, const camcore_device_info *dev);
void json_device(const camcore_device_info *dev);
/* "rotation" (S45) and "other_ids": [...] (S42) of a listed device, when known. */
void json_details(int *first, const camcore_device_details *details);
/* The details of an entry of list (NULL when dev is not one of its entries). */
const camcore_device_details *device_details(const camcore_device_list *list, const camcore_device_info *dev);

#endif
