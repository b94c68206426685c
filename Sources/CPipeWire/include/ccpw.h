// SPDX-License-Identifier: MIT
/*
 * ccpw.h — camcore's thin C shim over libpipewire-0.3 (SPEC S32–S34).
 *
 * libpipewire is loaded at run time (dlopen of libpipewire-0.3.so.0), so
 * libcamcore.so has no link-time dependency on it: without PipeWire only
 * ccpw_load() fails and the V4L2 backend works as before. The SPA pod
 * building and parsing below is the headers' inline code; every libpipewire
 * function is called through the table ccpw_load() fills.
 *
 * The camera logic (ids, negotiation, frames, hot-plug policy) is Swift
 * (Sources/CamCore/Backends/PipeWire); this shim only speaks PipeWire:
 * a connection with its registry of camera nodes, EnumFormat of one node,
 * and a capture stream that offers one fixed format and hands out buffers.
 *
 * Threads: each ccpw_core runs a pw_thread_loop. Node callbacks run on that
 * loop's thread. Streams signal an eventfd of the caller's; the caller's
 * thread then takes buffers with ccpw_stream_next().
 */
#ifndef CCPW_H
#define CCPW_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Loads libpipewire-0.3.so.0 and initialises it, once per process.
 * 0 when PipeWire is usable; -1 with the reason in err otherwise. Set
 * CAMCORE_PIPEWIRE_LIBRARY to load another file (tests hide the library
 * by pointing it at a missing one). */
int ccpw_load(char *err, size_t errlen);

/* Turns the buffer log on stderr on or off (CAMCORE_PIPEWIRE_DEBUG, read
 * by camcore's environment parser, not here). */
void ccpw_set_debug(int on);

/* One camera node of the registry (media.class Video/Source, media.role
 * Camera), its properties copied. */
typedef struct ccpw_node {
    uint32_t id;               /* registry id (changes across daemon restarts) */
    uint64_t serial;           /* object.serial, 0 when absent */
    char name[256];            /* node.name (stable) */
    char description[256];     /* node.description or node.nick */
    char object_path[256];     /* object.path, e.g. "v4l2:/dev/video0" */
    char device_path[128];     /* api.v4l2.path, or the /dev path from object.path */
    char bus_path[256];        /* device.bus-path or api.v4l2.cap.bus_info */
    char driver[64];           /* api.v4l2.cap.driver, or the factory */
    char libcamera_id[256];    /* api.libcamera.path, or the camera id from object.path
                                  "libcamera:<id>": the libcamera camera it wraps */
    uint32_t duplicate;        /* 0, or 1 when a node listed before it has the same
                                  node.name (the session manager can race on names) */
} ccpw_node;

/* Node added (added 1) or removed (added 0); on the loop thread. */
typedef void (*ccpw_node_fn)(void *user_data, int added, const ccpw_node *node);

typedef struct ccpw_core ccpw_core;

/* Connects to the daemon (fd >= 0: a remote fd, e.g. from the camera portal,
 * taken over) and waits (up to timeout_ms) until the registry's first
 * round trip is done. on_node may be NULL. NULL on failure, err says why. */
ccpw_core *ccpw_connect(int fd, int timeout_ms, ccpw_node_fn on_node, void *user_data, char *err,
                        size_t errlen);

/* Disconnects and frees; no node callback runs after it returns. */
void ccpw_core_destroy(ccpw_core *core);

/* Replaces the node callback and its user data (NULL: none); no call of the
 * old one runs after it returns. */
void ccpw_core_set_listener(ccpw_core *core, ccpw_node_fn on_node, void *user_data);

/* 1 while connected; 0 once the daemon went away or the connection failed. */
int ccpw_core_alive(ccpw_core *core);

/* Copies up to cap camera nodes present now into out; returns how many there are. */
size_t ccpw_core_nodes(ccpw_core *core, ccpw_node *out, size_t cap);

/* Frame rates and sizes of one EnumFormat entry. */
#define CCPW_MAX_RATES 32
typedef struct ccpw_format {
    uint32_t fourcc;           /* V4L2 FourCC (MJPG for image/jpeg) */
    uint32_t size_range;       /* 0: width x height; 1: min..max by step */
    uint32_t width, height;
    uint32_t min_width, max_width, step_width, min_height, max_height, step_height;
    uint32_t rate_kind;        /* 0: the rates list; 1: min..max; 2: unknown */
    uint32_t rate_count;
    uint32_t rates[CCPW_MAX_RATES][2];   /* fps as num/den */
    uint32_t min_rate[2], max_rate[2];
} ccpw_format;

/* The node's EnumFormat entries (raw formats camcore knows and MJPEG), one
 * per FourCC and size. Returns how many there are (also past cap), -1 on
 * failure (err says why). */
int ccpw_enum_formats(ccpw_core *core, uint32_t node_id, int timeout_ms, ccpw_format *out, size_t cap,
                      char *err, size_t errlen);

#define CCPW_MAX_MENU 64

/* One control of a node, from its PropInfo params (PipeWire's V4L2 source
 * lists the device's integer, boolean and menu controls there). */
typedef struct ccpw_control {
    uint32_t prop_id;          /* the SPA Props key that sets it */
    uint32_t cid;              /* the V4L2 control id it maps to */
    uint32_t type;             /* 1 integer, 2 boolean, 3 menu */
    int32_t minimum, maximum, step, default_value;
    char name[64];             /* SPA_PROP_INFO_description */
    uint32_t item_count;       /* menu items (labels) */
    int32_t item_index[CCPW_MAX_MENU];
    char item_name[CCPW_MAX_MENU][32];
} ccpw_control;

/* The node's controls (PropInfo entries that map to a V4L2 control id).
 * Returns how many there are (also past cap), -1 on failure. */
int ccpw_enum_controls(ccpw_core *core, uint32_t node_id, int timeout_ms, ccpw_control *out, size_t cap,
                       char *err, size_t errlen);

/* Sets one control through the node's Props param (an Int, or a Bool when
 * boolean is 1) and waits for the daemon to have handled it. The daemon
 * reports no result of its own: 0 means delivered. -1 on failure. */
int ccpw_set_control(ccpw_core *core, uint32_t node_id, uint32_t prop_id, int boolean, int32_t value,
                     int timeout_ms, char *err, size_t errlen);

typedef struct ccpw_stream ccpw_stream;

/* What ccpw_stream_next() hands out: one buffer, mapped by the shim. */
typedef struct ccpw_buffer {
    int slot;                  /* give back with ccpw_stream_release() */
    const uint8_t *data;       /* first byte of the chunk */
    uint32_t size;             /* bytes in the chunk */
    int32_t stride;            /* bytes per row; 0 when the node says none */
    uint64_t pts_ns;           /* spa_meta_header pts; 0 when absent */
    uint64_t seq;              /* spa_meta_header seq */
    int has_header;            /* the buffer had a spa_meta_header */
    int corrupted;             /* SPA_CHUNK_FLAG_CORRUPTED or header flag */
    uint32_t data_type;        /* 1 MemPtr, 2 MemFd, 3 DmaBuf */
} ccpw_buffer;

/* Opens a capture stream on the node (target.object = target: the node's
 * object.serial as decimal, or its node.name) that
 * offers exactly fourcc at width x height and rate_num/rate_den (0/0: no
 * rate), nbuffers buffers; waits up to timeout_ms for the format to be
 * agreed. event_fd (an eventfd of the caller's) gets a write for each
 * buffer ready. node_id is the node's registry id: when the registry
 * removes that node the stream fails ("went away"), even if PipeWire leaves
 * it linked to nothing. The core must outlive the stream (ccpw_stream_free).
 * NULL on failure with the reason in err. */
ccpw_stream *ccpw_stream_open(ccpw_core *core, const char *target, uint32_t node_id, uint32_t fourcc, uint32_t width,
                              uint32_t height, uint32_t rate_num, uint32_t rate_den, uint32_t nbuffers,
                              int event_fd, int timeout_ms, char *err, size_t errlen);

/* The agreed format: fourcc, size, rate (0/0 when none). */
void ccpw_stream_format(ccpw_stream *s, uint32_t *fourcc, uint32_t *width, uint32_t *height,
                        uint32_t *rate_num, uint32_t *rate_den);

/* Buffers the stream has now (slots are 0..n-1). */
int ccpw_stream_buffer_count(ccpw_stream *s);

/* Takes the oldest ready buffer: 1 and *out filled; 0 none ready; -1 the
 * stream failed (err says why: the node went away, the daemon stopped). */
int ccpw_stream_next(ccpw_stream *s, ccpw_buffer *out, char *err, size_t errlen);

/* Gives a buffer back to the stream (queue_buffer). Any thread. */
void ccpw_stream_release(ccpw_stream *s, int slot);

/* Disconnects and destroys the PipeWire stream; the shim's own mappings
 * of buffers stay until ccpw_stream_free (frames the app retained). */
void ccpw_stream_close(ccpw_stream *s);

/* Frees what ccpw_stream_close kept (munmaps). */
void ccpw_stream_free(ccpw_stream *s);

#ifdef __cplusplus
}
#endif
#endif
