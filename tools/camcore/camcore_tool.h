/*
 * camcore — the command-line tool's internal header: what its files share.
 *
 *   main.c          usage, global options, command dispatch
 *   cmd_<name>.c    one command each (list, formats, capture, monitor, controls)
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

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define PROGRAM "camcore"

/* Exit codes (documented in --help). */
enum {
    EXIT_OK = 0,
    EXIT_FAILED = 1,    /* the operation failed (I/O, not supported, ...) */
    EXIT_USAGE = 2,     /* bad command line or value */
    EXIT_NO_DEVICE = 3, /* no such camera, or it went away */
    EXIT_BUSY = 4       /* camera busy or permission denied */
};

/* --json was given (main.c). */
extern int g_json;
/* --backend: a camcore_backend value for every manager the tool makes. */
extern int g_backend;
extern int g_portal;
/* Asks the camera portal for access when the manager goes through it and
 * access is not granted yet (waits up to 120 s). Returns an exit code. */
int ensure_camera_access(camcore_manager *m);
/* SIGINT or SIGTERM came, once catch_signals() is called (tool.c). */
extern volatile sig_atomic_t g_interrupted;

/* The commands: argv holds the command's arguments (global options taken
 * out); each returns an exit code. */
int cmd_list(int argc, char **argv);
int cmd_formats(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
int cmd_controls(int argc, char **argv);

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

/* json.c */
void json_str(const char *s);
void json_kv_str(int *first, const char *key, const char *value);
void json_kv_int(int *first, const char *key, long long value);
void json_kv_bool(int *first, const char *key, int value);
void json_kv_fps(int *first, const char *key, camcore_fraction f);
void json_device_fields(int *first, const camcore_device_info *dev);
void json_device(const camcore_device_info *dev);

#endif
