/* SPDX-License-Identifier: MIT */
/*
 * cclc.h: the C interface of camcore's libcamera plugin (SPEC S41).
 *
 * libcamera's API is C++ and changes with every release (its soname is its
 * version), so libcamcore never links it. The glue is a small C++ plugin,
 * libcamcore-libcamera.so (plugin/cclc_plugin.cpp), built against the
 * system's libcamera and dlopen'ed at run time by cclc_load(); it exports
 * one function, camcore_libcamera_plugin(), that returns the table below.
 * Everything crosses as plain C: opaque handles, fixed-size structs, error
 * text written into caller buffers. Model: libcamera-rs's libcamera-sys.
 *
 * Threads: libcamera completes requests on its own thread; the plugin
 * queues them and makes the stream's eventfd readable; camcore's capture
 * thread takes them with next(). Hot-plug is called on libcamera's thread.
 */
#ifndef CCLC_H
#define CCLC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CCLC_API_VERSION 1
#define CCLC_MAX_SIZES 32
#define CCLC_MAX_PLANES 3

typedef struct cclc_ctx cclc_ctx;       /* the process's libcamera CameraManager (shared) */
typedef struct cclc_cam cclc_cam;       /* one acquired camera */
typedef struct cclc_maps cclc_maps;     /* the mappings of one stream's buffers */

typedef struct cclc_camera_desc {
    char id[256];
    char model[128];
    int32_t location;  /* properties::Location: 0 front, 1 back, 2 external; -1 none */
    int32_t rotation;  /* properties::Rotation in degrees; -1 none */
} cclc_camera_desc;

/* One pixel format of a video configuration's stream formats. */
typedef struct cclc_format {
    uint32_t drm_fourcc;         /* libcamera's PixelFormat::fourcc() (DRM order) */
    uint64_t modifier;
    uint32_t n_sizes;            /* discrete sizes (StreamFormats::sizes), at most CCLC_MAX_SIZES */
    uint32_t sizes[CCLC_MAX_SIZES][2];
    uint32_t min_w, min_h, max_w, max_h, step_w, step_h; /* StreamFormats::range */
} cclc_format;

/* A configured stream, as libcamera adjusted it. */
typedef struct cclc_stream {
    uint32_t drm_fourcc, width, height, stride, frame_size, buffer_count;
    int32_t adjusted;            /* validate() said Adjusted */
} cclc_stream;

typedef struct cclc_buffer {
    int32_t slot;
    uint32_t n_planes;
    const uint8_t *data[CCLC_MAX_PLANES];
    uint32_t bytesused[CCLC_MAX_PLANES];
    uint32_t length[CCLC_MAX_PLANES];
    uint64_t timestamp_ns;       /* FrameMetadata::timestamp: CLOCK_MONOTONIC */
    uint32_t sequence;
    int32_t status;              /* 0 success, 1 error, 2 cancelled */
} cclc_buffer;

/* A control of the camera (Camera::controls()) of a scalar type. */
typedef struct cclc_control {
    uint32_t id;                 /* libcamera's control id */
    char name[64];
    int32_t type;                /* 1 bool, 2 int32, 3 int64, 4 float */
    double min, max, def;
} cclc_control;

typedef void (*cclc_hotplug_fn)(void *user_data, int added, const char *camera_id);

typedef struct cclc_api {
    uint32_t version;            /* CCLC_API_VERSION */
    const char *(*libcamera_version)(void);
    /* The shared CameraManager, started on first use; NULL with err set. */
    cclc_ctx *(*ctx_open)(char *err, size_t errlen);
    void (*ctx_close)(cclc_ctx *ctx);
    /* Cameras now: fills up to max, returns how many there are. */
    int (*cameras)(cclc_ctx *ctx, cclc_camera_desc *out, int max);
    /* The stream formats of a VideoRecording configuration; how many (>= 0),
     * or -1 (no such camera; err set). Frame duration limits in ns, 0 unknown. */
    int (*formats)(cclc_ctx *ctx, const char *id, cclc_format *out, int max, int64_t *min_frame_ns,
                   int64_t *max_frame_ns, char *err, size_t errlen);
    /* One hot-plug observer per context (NULL: none). */
    void (*set_hotplug)(cclc_ctx *ctx, cclc_hotplug_fn fn, void *user_data);
    /* Camera::acquire; NULL with err ("busy", "gone"). *busy set when another holds it. */
    cclc_cam *(*acquire)(cclc_ctx *ctx, const char *id, int *busy, char *err, size_t errlen);
    /* Generates, adjusts (validate) and applies a configuration. 0, or -1 with err. */
    int (*configure)(cclc_cam *cam, uint32_t drm_fourcc, uint32_t width, uint32_t height, uint32_t buffers,
                     cclc_stream *out, char *err, size_t errlen);
    /* Allocates and maps the buffers, queues a request on each and starts;
     * frame_ns > 0 asks that frame duration. The maps outlive stop(): free
     * them with maps_free() once no frame points into them. */
    cclc_maps *(*start)(cclc_cam *cam, int64_t frame_ns, int event_fd, char *err, size_t errlen);
    /* A completed request: 1 (into *out), 0 none, -1 the camera is gone. */
    int (*next)(cclc_cam *cam, cclc_buffer *out);
    /* Gives slot's request back to the camera (reuse + queue). */
    int (*requeue)(cclc_cam *cam, int slot);
    /* Camera::stop; requests and the allocator freed, the maps kept. */
    void (*stop)(cclc_cam *cam);
    /* Camera::release, and the handle freed. */
    void (*release)(cclc_cam *cam);
    void (*maps_free)(cclc_maps *maps);
    /* Scalar controls of a camera (by id, no acquire needed); how many. */
    int (*controls)(cclc_ctx *ctx, const char *id, cclc_control *out, int max);
    /* Sets a control: before start it goes to Camera::start's list, after
     * into the next queued request. 0, or -1 with err. */
    int (*set_control)(cclc_cam *cam, uint32_t id, double value, char *err, size_t errlen);
} cclc_api;

/* The plugin's one export. NULL when it cannot serve `version`. */
typedef const cclc_api *(*cclc_plugin_fn)(uint32_t version);

/* In libcamcore (cclc.c): loads the plugin once per process. The table, or
 * NULL with the reason in err. The plugin is $CAMCORE_LIBCAMERA_PLUGIN if
 * set, else camcore/libcamcore-libcamera.so next to libcamcore, else the
 * loader's search path. */
const cclc_api *cclc_load(char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
