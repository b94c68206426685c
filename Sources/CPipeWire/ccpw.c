// SPDX-License-Identifier: MIT
/*
 * ccpw.c — see include/ccpw.h. Every libpipewire function goes through the
 * table `pw` (dlsym); the pw_core/pw_registry/pw_node methods and all of
 * SPA are the headers' inline code, which calls no library symbol.
 */
#define _GNU_SOURCE
#include "ccpw.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <pipewire/pipewire.h>
#include <spa/param/video/format-utils.h>
#include <spa/param/buffers.h>
#include <spa/param/props.h>
#include <spa/pod/parser.h>
#include <spa/pod/builder.h>
#include <spa/pod/iter.h>
#include <spa/buffer/meta.h>
#include <spa/utils/result.h>

/* ------------------------------------------------------------------ */
/* The library                                                          */
/* ------------------------------------------------------------------ */

#define CCPW_SYMBOLS(X)                  \
    X(pw_init)                           \
    X(pw_get_library_version)            \
    X(pw_thread_loop_new)                \
    X(pw_thread_loop_destroy)            \
    X(pw_thread_loop_start)              \
    X(pw_thread_loop_stop)               \
    X(pw_thread_loop_lock)               \
    X(pw_thread_loop_unlock)             \
    X(pw_thread_loop_signal)             \
    X(pw_thread_loop_wait)               \
    X(pw_thread_loop_timed_wait)         \
    X(pw_thread_loop_get_loop)           \
    X(pw_context_new)                    \
    X(pw_context_destroy)                \
    X(pw_context_connect)                \
    X(pw_context_connect_fd)             \
    X(pw_core_disconnect)                \
    X(pw_proxy_destroy)                  \
    X(pw_properties_new)                 \
    X(pw_stream_new)                     \
    X(pw_stream_add_listener)            \
    X(pw_stream_connect)                 \
    X(pw_stream_disconnect)              \
    X(pw_stream_destroy)                 \
    X(pw_stream_update_params)           \
    X(pw_stream_dequeue_buffer)          \
    X(pw_stream_queue_buffer)            \
    X(pw_stream_state_as_string)

static struct {
#define CCPW_FIELD(name) __typeof__(&name) name;
    CCPW_SYMBOLS(CCPW_FIELD)
#undef CCPW_FIELD
} pw;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];
static int load_status = -1;

static void load(void)
{
    const char *file = getenv("CAMCORE_PIPEWIRE_LIBRARY");
    void *h;

    if (!file || !*file)
        file = "libpipewire-0.3.so.0";
    h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(load_error, sizeof load_error, "PipeWire is not available (dlopen %s: %s)", file, dlerror());
        return;
    }
#define CCPW_LOAD(name)                                                                         \
    if (!(*(void **)&pw.name = dlsym(h, #name))) {                                              \
        snprintf(load_error, sizeof load_error, "%s lacks %s (PipeWire older than 0.3.65?)", file, \
                 #name);                                                                        \
        dlclose(h);                                                                             \
        return;                                                                                 \
    }
    CCPW_SYMBOLS(CCPW_LOAD)
#undef CCPW_LOAD
    pw.pw_init(NULL, NULL);
    load_status = 0;
}

static volatile int g_debug;

void ccpw_set_debug(int on)
{
    g_debug = on;
}

int ccpw_load(char *err, size_t errlen)
{
    pthread_once(&load_once, load);
    if (load_status != 0 && err && errlen)
        snprintf(err, errlen, "%s", load_error);
    return load_status;
}

static void say(char *err, size_t n, const char *fmt, const char *a, int e)
{
    if (err && n)
        snprintf(err, n, fmt, a ? a : "", e ? spa_strerror(e) : "");
}

/* ------------------------------------------------------------------ */
/* Formats: SPA video formats <-> V4L2 FourCCs                          */
/* ------------------------------------------------------------------ */

#define FCC(a, b, c, d) ((uint32_t)(a) | ((uint32_t)(b) << 8) | ((uint32_t)(c) << 16) | ((uint32_t)(d) << 24))

/* The pairs PipeWire's own V4L2 plugin uses (spa/plugins/v4l2/v4l2-utils.c). */
static const struct { uint32_t spa, fourcc; } raw_formats[] = {
    { SPA_VIDEO_FORMAT_YUY2, FCC('Y', 'U', 'Y', 'V') },
    { SPA_VIDEO_FORMAT_UYVY, FCC('U', 'Y', 'V', 'Y') },
    { SPA_VIDEO_FORMAT_YVYU, FCC('Y', 'V', 'Y', 'U') },
    { SPA_VIDEO_FORMAT_VYUY, FCC('V', 'Y', 'U', 'Y') },
    { SPA_VIDEO_FORMAT_I420, FCC('Y', 'U', '1', '2') },
    { SPA_VIDEO_FORMAT_YV12, FCC('Y', 'V', '1', '2') },
    { SPA_VIDEO_FORMAT_NV12, FCC('N', 'V', '1', '2') },
    { SPA_VIDEO_FORMAT_NV21, FCC('N', 'V', '2', '1') },
    { SPA_VIDEO_FORMAT_NV16, FCC('N', 'V', '1', '6') },
    { SPA_VIDEO_FORMAT_NV61, FCC('N', 'V', '6', '1') },
    { SPA_VIDEO_FORMAT_Y42B, FCC('4', '2', '2', 'P') },
    { SPA_VIDEO_FORMAT_RGB, FCC('R', 'G', 'B', '3') },
    { SPA_VIDEO_FORMAT_BGR, FCC('B', 'G', 'R', '3') },
    { SPA_VIDEO_FORMAT_BGRx, FCC('X', 'R', '2', '4') },
    { SPA_VIDEO_FORMAT_BGRA, FCC('A', 'R', '2', '4') },
    { SPA_VIDEO_FORMAT_xRGB, FCC('B', 'X', '2', '4') },
    { SPA_VIDEO_FORMAT_ARGB, FCC('B', 'A', '2', '4') },
    { SPA_VIDEO_FORMAT_RGBx, FCC('X', 'B', '2', '4') },
    { SPA_VIDEO_FORMAT_RGBA, FCC('A', 'B', '2', '4') },
    { SPA_VIDEO_FORMAT_GRAY8, FCC('G', 'R', 'E', 'Y') },
    { SPA_VIDEO_FORMAT_GRAY16_LE, FCC('Y', '1', '6', ' ') },
    { SPA_VIDEO_FORMAT_RGB16, FCC('R', 'G', 'B', 'P') },
};
#define MJPG FCC('M', 'J', 'P', 'G')

static uint32_t fourcc_of(uint32_t spa)
{
    size_t i;
    for (i = 0; i < sizeof raw_formats / sizeof raw_formats[0]; i++)
        if (raw_formats[i].spa == spa)
            return raw_formats[i].fourcc;
    return 0;
}

static uint32_t spa_of(uint32_t fourcc)
{
    size_t i;
    for (i = 0; i < sizeof raw_formats / sizeof raw_formats[0]; i++)
        if (raw_formats[i].fourcc == fourcc)
            return raw_formats[i].spa;
    return SPA_VIDEO_FORMAT_UNKNOWN;
}

/* ------------------------------------------------------------------ */
/* The connection and its registry                                     */
/* ------------------------------------------------------------------ */

#define MAX_NODES 64

struct ccpw_core {
    struct pw_thread_loop *loop;
    struct pw_context *context;
    struct pw_core *core;
    struct pw_registry *registry;
    struct spa_hook core_listener, registry_listener;
    ccpw_node_fn on_node;
    void *user_data;
    pthread_mutex_t lock; /* nodes */
    ccpw_node nodes[MAX_NODES];
    size_t n_nodes;
    struct ccpw_stream *streams; /* open streams (under lock): failed when their node goes */
    int alive;
    int version[3];       /* the daemon's (core info), 0.0.0 until told */
    int sync_seq, synced; /* the round trip that ends a wait */
    /* The node request in progress (node_request, under the loop lock): the
     * param it collects (EnumFormat into ccpw_format, PropInfo into
     * ccpw_control; 0 for none) and where. */
    uint32_t got_param;
    uint32_t got_node;
    void *got;
    size_t got_cap;
    int got_count;
};

/* PipeWire before 1.1.81 named the RGB formats of its libcamera nodes in
 * the wrong byte order (libcamera's formats are DRM-order, little-endian;
 * SPA's are byte order: its RGB888, bytes B, G, R, was announced as SPA RGB;
 * fixed by "spa: libcamera: fix RGB mappings"). On such a node the SPA name
 * of an RGB format is the byte reverse of what its buffers hold (S43). */
static uint32_t reversed_rgb(uint32_t spa)
{
    switch (spa) {
    case SPA_VIDEO_FORMAT_RGB: return SPA_VIDEO_FORMAT_BGR;
    case SPA_VIDEO_FORMAT_BGR: return SPA_VIDEO_FORMAT_RGB;
    case SPA_VIDEO_FORMAT_xRGB: return SPA_VIDEO_FORMAT_BGRx;
    case SPA_VIDEO_FORMAT_BGRx: return SPA_VIDEO_FORMAT_xRGB;
    case SPA_VIDEO_FORMAT_RGBx: return SPA_VIDEO_FORMAT_xBGR;
    case SPA_VIDEO_FORMAT_xBGR: return SPA_VIDEO_FORMAT_RGBx;
    case SPA_VIDEO_FORMAT_ARGB: return SPA_VIDEO_FORMAT_BGRA;
    case SPA_VIDEO_FORMAT_BGRA: return SPA_VIDEO_FORMAT_ARGB;
    case SPA_VIDEO_FORMAT_RGBA: return SPA_VIDEO_FORMAT_ABGR;
    case SPA_VIDEO_FORMAT_ABGR: return SPA_VIDEO_FORMAT_RGBA;
    default: return spa;
    }
}

/* True when node_id is a libcamera node of a daemon older than 1.1.81 (the
 * library's version when the daemon did not say its own). */
static int swaps_rgb(struct ccpw_core *c, uint32_t node_id)
{
    int v[3] = { c->version[0], c->version[1], c->version[2] }, found = 0;
    size_t i;

    if (v[0] == 0 && v[1] == 0 && v[2] == 0)
        sscanf(pw.pw_get_library_version(), "%d.%d.%d", &v[0], &v[1], &v[2]);
    if (v[0] > 1 || (v[0] == 1 && (v[1] > 1 || (v[1] == 1 && v[2] >= 81))))
        return 0;
    pthread_mutex_lock(&c->lock);
    for (i = 0; i < c->n_nodes; i++)
        if (c->nodes[i].id == node_id)
            found = c->nodes[i].libcamera_id[0] != 0;
    pthread_mutex_unlock(&c->lock);
    return found;
}

static void copy_prop(char *dst, size_t n, const struct spa_dict *props, const char *key)
{
    const char *v = props ? spa_dict_lookup(props, key) : NULL;
    snprintf(dst, n, "%s", v ? v : "");
}

static void on_global(void *data, uint32_t id, uint32_t permissions, const char *type, uint32_t version,
                      const struct spa_dict *props)
{
    struct ccpw_core *c = data;
    const char *cls, *role, *s;
    ccpw_node n;

    (void)permissions;
    (void)version;
    if (strcmp(type, PW_TYPE_INTERFACE_Node) != 0 || !props)
        return;
    cls = spa_dict_lookup(props, PW_KEY_MEDIA_CLASS);
    role = spa_dict_lookup(props, PW_KEY_MEDIA_ROLE);
    if (!cls || strcmp(cls, "Video/Source") != 0 || !role || strcmp(role, "Camera") != 0)
        return;
    memset(&n, 0, sizeof n);
    n.id = id;
    s = spa_dict_lookup(props, "object.serial");
    n.serial = s ? strtoull(s, NULL, 10) : 0;
    copy_prop(n.name, sizeof n.name, props, PW_KEY_NODE_NAME);
    copy_prop(n.description, sizeof n.description, props, PW_KEY_NODE_DESCRIPTION);
    if (!n.description[0])
        copy_prop(n.description, sizeof n.description, props, PW_KEY_NODE_NICK);
    copy_prop(n.object_path, sizeof n.object_path, props, PW_KEY_OBJECT_PATH);
    copy_prop(n.device_path, sizeof n.device_path, props, "api.v4l2.path");
    if (!n.device_path[0] && strncmp(n.object_path, "v4l2:", 5) == 0)
        snprintf(n.device_path, sizeof n.device_path, "%s", n.object_path + 5);
    copy_prop(n.libcamera_id, sizeof n.libcamera_id, props, "api.libcamera.path");
    if (!n.libcamera_id[0] && strncmp(n.object_path, "libcamera:", 10) == 0)
        snprintf(n.libcamera_id, sizeof n.libcamera_id, "%s", n.object_path + 10);
    copy_prop(n.bus_path, sizeof n.bus_path, props, "device.bus-path");
    if (!n.bus_path[0])
        copy_prop(n.bus_path, sizeof n.bus_path, props, "api.v4l2.cap.bus_info");
    copy_prop(n.driver, sizeof n.driver, props, "api.v4l2.cap.driver");
    if (!n.driver[0])
        copy_prop(n.driver, sizeof n.driver, props, PW_KEY_FACTORY_NAME);
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < c->n_nodes; i++)
        if (strcmp(c->nodes[i].name, n.name) == 0)
            n.duplicate = 1;
    if (c->n_nodes < MAX_NODES)
        c->nodes[c->n_nodes++] = n;
    pthread_mutex_unlock(&c->lock);
    if (c->on_node)
        c->on_node(c->user_data, 1, &n);
}

static void streams_lost(struct ccpw_core *c, uint32_t node_id);

static void on_global_remove(void *data, uint32_t id)
{
    struct ccpw_core *c = data;
    ccpw_node gone;
    size_t i;
    int found = 0;

    pthread_mutex_lock(&c->lock);
    for (i = 0; i < c->n_nodes; i++) {
        if (c->nodes[i].id == id) {
            gone = c->nodes[i];
            memmove(&c->nodes[i], &c->nodes[i + 1], (c->n_nodes - i - 1) * sizeof c->nodes[0]);
            c->n_nodes--;
            found = 1;
            break;
        }
    }
    pthread_mutex_unlock(&c->lock);
    /* A stream on a removed node may stay linked to nothing without a state
     * change (WirePlumber re-making nodes): it fails here instead. */
    if (found)
        streams_lost(c, id);
    if (found && c->on_node)
        c->on_node(c->user_data, 0, &gone);
}

static const struct pw_registry_events registry_events = {
    PW_VERSION_REGISTRY_EVENTS,
    .global = on_global,
    .global_remove = on_global_remove,
};

static void on_core_done(void *data, uint32_t id, int seq)
{
    struct ccpw_core *c = data;
    if (id == PW_ID_CORE && seq == c->sync_seq) {
        c->synced = 1;
        pw.pw_thread_loop_signal(c->loop, false);
    }
}

static void on_core_error(void *data, uint32_t id, int seq, int res, const char *message)
{
    struct ccpw_core *c = data;
    ccpw_node all[MAX_NODES];
    size_t i, n;

    (void)seq;
    (void)message;
    if (id != PW_ID_CORE || res != -EPIPE)
        return;
    /* The daemon went away: every camera of it is gone. */
    c->alive = 0;
    pthread_mutex_lock(&c->lock);
    n = c->n_nodes;
    memcpy(all, c->nodes, n * sizeof all[0]);
    c->n_nodes = 0;
    pthread_mutex_unlock(&c->lock);
    if (c->on_node)
        for (i = 0; i < n; i++)
            c->on_node(c->user_data, 0, &all[i]);
    pw.pw_thread_loop_signal(c->loop, false);
}

static void on_core_info(void *data, const struct pw_core_info *info)
{
    struct ccpw_core *c = data;

    if (info && info->version)
        sscanf(info->version, "%d.%d.%d", &c->version[0], &c->version[1], &c->version[2]);
}

static const struct pw_core_events core_events = {
    PW_VERSION_CORE_EVENTS,
    .info = on_core_info,
    .done = on_core_done,
    .error = on_core_error,
};

/* Milliseconds on the monotonic clock: the waits below are bounded by it,
 * not by how often the loop was signalled (every connection shares it). */
static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* With the loop locked: a round trip, waiting up to timeout_ms. 0 when done. */
static int roundtrip(struct ccpw_core *c, int timeout_ms)
{
    int64_t end = now_ms() + timeout_ms;

    c->synced = 0;
    c->sync_seq = pw_core_sync(c->core, PW_ID_CORE, 0);
    while (!c->synced && c->alive) {
        if (now_ms() >= end)
            return -ETIMEDOUT;
        pw.pw_thread_loop_timed_wait(c->loop, 1);
    }
    return c->alive ? 0 : -EPIPE;
}

/* One loop thread and one pw_context for the whole process, PipeWire's own
 * model; each connection is a pw_core on it. They are made with the first
 * connection and destroyed with the last, under shared_lock, so two
 * contexts never live at once: a context loads module-rt, which sets the
 * process-wide thread hooks (pw_thread_utils_set) and resets them when its
 * context goes, under the threads of any other context. */
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    struct pw_thread_loop *loop;
    struct pw_context *context;
    int users;
} shared;

static int shared_acquire(char *err, size_t errlen)
{
    pthread_mutex_lock(&shared_lock);
    if (shared.users == 0) {
        shared.loop = pw.pw_thread_loop_new("camcore-pipewire", NULL);
        shared.context = shared.loop ? pw.pw_context_new(pw.pw_thread_loop_get_loop(shared.loop), NULL, 0) : NULL;
        if (!shared.context || pw.pw_thread_loop_start(shared.loop) < 0) {
            if (shared.context)
                pw.pw_context_destroy(shared.context);
            if (shared.loop)
                pw.pw_thread_loop_destroy(shared.loop);
            shared.loop = NULL;
            shared.context = NULL;
            pthread_mutex_unlock(&shared_lock);
            say(err, errlen, "cannot start a PipeWire loop%s%s", NULL, 0);
            return -1;
        }
    }
    shared.users++;
    pthread_mutex_unlock(&shared_lock);
    return 0;
}

/* Not on the loop thread (it stops and joins it). */
static void shared_release(void)
{
    pthread_mutex_lock(&shared_lock);
    if (--shared.users == 0) {
        pw.pw_thread_loop_stop(shared.loop);
        pw.pw_context_destroy(shared.context);
        pw.pw_thread_loop_destroy(shared.loop);
        shared.loop = NULL;
        shared.context = NULL;
    }
    pthread_mutex_unlock(&shared_lock);
}

ccpw_core *ccpw_connect(int fd, int timeout_ms, ccpw_node_fn on_node, void *user_data, char *err,
                        size_t errlen)
{
    struct ccpw_core *c;
    int r;

    if (ccpw_load(err, errlen) != 0)
        return NULL;
    c = calloc(1, sizeof *c);
    if (!c) {
        say(err, errlen, "out of memory%s%s", NULL, 0);
        return NULL;
    }
    if (shared_acquire(err, errlen) != 0) {
        free(c);
        return NULL;
    }
    pthread_mutex_init(&c->lock, NULL);
    c->on_node = on_node;
    c->user_data = user_data;
    c->loop = shared.loop;
    c->context = shared.context;
    pw.pw_thread_loop_lock(c->loop);
    c->core = fd >= 0 ? pw.pw_context_connect_fd(c->context, fd, NULL, 0)
                      : pw.pw_context_connect(c->context, NULL, 0);
    if (!c->core) {
        r = -errno;
        pw.pw_thread_loop_unlock(c->loop);
        say(err, errlen, "cannot connect to the PipeWire daemon%s: %s", NULL, r);
        shared_release();
        pthread_mutex_destroy(&c->lock);
        free(c);
        return NULL;
    }
    c->alive = 1;
    pw_core_add_listener(c->core, &c->core_listener, &core_events, c);
    c->registry = pw_core_get_registry(c->core, PW_VERSION_REGISTRY, 0);
    pw_registry_add_listener(c->registry, &c->registry_listener, &registry_events, c);
    r = roundtrip(c, timeout_ms);
    pw.pw_thread_loop_unlock(c->loop);
    if (r < 0) {
        say(err, errlen, "the PipeWire daemon did not answer%s: %s", NULL, r);
        ccpw_core_destroy(c);
        return NULL;
    }
    return c;
}

void ccpw_core_destroy(ccpw_core *c)
{
    if (!c)
        return;
    pw.pw_thread_loop_lock(c->loop);
    spa_hook_remove(&c->registry_listener);
    spa_hook_remove(&c->core_listener);
    if (c->registry)
        pw.pw_proxy_destroy((struct pw_proxy *)c->registry);
    pw.pw_core_disconnect(c->core);
    pw.pw_thread_loop_unlock(c->loop);
    shared_release();
    pthread_mutex_destroy(&c->lock);
    free(c);
}

int ccpw_core_alive(ccpw_core *c) { return c && c->alive; }

void ccpw_core_set_listener(ccpw_core *c, ccpw_node_fn on_node, void *user_data)
{
    if (!c)
        return;
    /* Under the loop lock: the registry callbacks run holding it. */
    pw.pw_thread_loop_lock(c->loop);
    c->on_node = on_node;
    c->user_data = user_data;
    pw.pw_thread_loop_unlock(c->loop);
}

size_t ccpw_core_nodes(ccpw_core *c, ccpw_node *out, size_t cap)
{
    size_t n;

    pthread_mutex_lock(&c->lock);
    n = c->n_nodes;
    memcpy(out, c->nodes, (n < cap ? n : cap) * sizeof *out);
    pthread_mutex_unlock(&c->lock);
    return n;
}

/* ------------------------------------------------------------------ */
/* EnumFormat of one node                                               */
/* ------------------------------------------------------------------ */

/* The values of a property: its choice type and n values of `size` bytes. */
static const void *values_of(const struct spa_pod_object *obj, uint32_t key, uint32_t type, uint32_t *n,
                             uint32_t *choice)
{
    const struct spa_pod_prop *p = spa_pod_object_find_prop(obj, NULL, key);
    const struct spa_pod *v;

    if (!p)
        return NULL;
    v = spa_pod_get_values(&p->value, n, choice);
    if (!v || v->type != type || *n == 0)
        return NULL;
    return SPA_POD_BODY_CONST(v);
}

static void add_format(struct ccpw_core *c, uint32_t fourcc, const struct spa_pod_object *obj)
{
    uint32_t n, choice, i;
    const struct spa_rectangle *sz;
    const struct spa_fraction *fr;
    ccpw_format f;

    memset(&f, 0, sizeof f);
    f.fourcc = fourcc;
    sz = values_of(obj, SPA_FORMAT_VIDEO_size, SPA_TYPE_Rectangle, &n, &choice);
    if (!sz)
        return;
    if (choice == SPA_CHOICE_Range || choice == SPA_CHOICE_Step) {
        if (n < 3)
            return;
        f.size_range = 1;
        f.width = sz[0].width;
        f.height = sz[0].height;
        f.min_width = sz[1].width;
        f.min_height = sz[1].height;
        f.max_width = sz[2].width;
        f.max_height = sz[2].height;
        f.step_width = n > 3 && choice == SPA_CHOICE_Step ? sz[3].width : 1;
        f.step_height = n > 3 && choice == SPA_CHOICE_Step ? sz[3].height : 1;
    } else {
        f.width = sz[0].width;
        f.height = sz[0].height;
    }
    fr = values_of(obj, SPA_FORMAT_VIDEO_framerate, SPA_TYPE_Fraction, &n, &choice);
    if (!fr) {
        f.rate_kind = 2;
    } else if (choice == SPA_CHOICE_Range || choice == SPA_CHOICE_Step) {
        f.rate_kind = n >= 3 ? 1 : 2;
        if (n >= 3) {
            f.min_rate[0] = fr[1].num;
            f.min_rate[1] = fr[1].denom;
            f.max_rate[0] = fr[2].num;
            f.max_rate[1] = fr[2].denom;
        }
    } else {
        /* None: one value; Enum: the default, then the alternatives. */
        for (i = choice == SPA_CHOICE_Enum && n > 1 ? 1 : 0; i < n && f.rate_count < CCPW_MAX_RATES; i++) {
            uint32_t k, dup = 0;
            for (k = 0; k < f.rate_count; k++)
                if ((uint64_t)f.rates[k][0] * fr[i].denom == (uint64_t)fr[i].num * f.rates[k][1])
                    dup = 1;
            if (!dup && fr[i].denom) {
                f.rates[f.rate_count][0] = fr[i].num;
                f.rates[f.rate_count][1] = fr[i].denom;
                f.rate_count++;
            }
        }
    }
    if ((size_t)c->got_count < c->got_cap)
        ((ccpw_format *)c->got)[c->got_count] = f;
    c->got_count++;
}

/* The V4L2 control a SPA prop key of PipeWire's V4L2 source stands for
 * (spa/plugins/v4l2: eight named keys, else SPA_PROP_START_CUSTOM + the
 * control id); 0 for keys that are not controls (device, deviceFd, ...). */
static uint32_t cid_of_prop(uint32_t key)
{
    static const uint32_t map[][2] = {
        {SPA_PROP_brightness, 0x00980900}, {SPA_PROP_contrast, 0x00980901},
        {SPA_PROP_saturation, 0x00980902}, {SPA_PROP_hue, 0x00980903},
        {SPA_PROP_gamma, 0x00980910},      {SPA_PROP_exposure, 0x00980911},
        {SPA_PROP_gain, 0x00980913},       {SPA_PROP_sharpness, 0x0098091b},
    };
    size_t i;

    for (i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i][0] == key)
            return map[i][1];
    return key > SPA_PROP_START_CUSTOM ? key - SPA_PROP_START_CUSTOM : 0;
}

static void add_control(struct ccpw_core *c, const struct spa_pod_object *obj)
{
    const struct spa_pod_prop *p;
    const struct spa_pod *v;
    const char *name = NULL;
    uint32_t key = 0, n = 0, choice = 0;
    ccpw_control k;

    memset(&k, 0, sizeof k);
    p = spa_pod_object_find_prop(obj, NULL, SPA_PROP_INFO_id);
    if (!p || spa_pod_get_id(&p->value, &key) < 0 || !(k.cid = cid_of_prop(key)))
        return;
    k.prop_id = key;
    p = spa_pod_object_find_prop(obj, NULL, SPA_PROP_INFO_description);
    if (!p)
        p = spa_pod_object_find_prop(obj, NULL, SPA_PROP_INFO_name);
    if (p)
        spa_pod_get_string(&p->value, &name);
    snprintf(k.name, sizeof k.name, "%s", name ? name : "");
    p = spa_pod_object_find_prop(obj, NULL, SPA_PROP_INFO_type);
    if (!p || !(v = spa_pod_get_values(&p->value, &n, &choice)) || n == 0)
        return;
    if (v->type == SPA_TYPE_Bool) {
        const int32_t *b = SPA_POD_BODY_CONST(v);
        k.type = 2;
        k.minimum = 0;
        k.maximum = 1;
        k.step = 1;
        k.default_value = b[0] ? 1 : 0;
    } else if (v->type == SPA_TYPE_Int) {
        const int32_t *i = SPA_POD_BODY_CONST(v);
        k.default_value = i[0];
        if (choice == SPA_CHOICE_Step && n >= 4) {
            k.type = 1;
            k.minimum = i[1];
            k.maximum = i[2];
            k.step = i[3] > 0 ? i[3] : 1;
        } else if (choice == SPA_CHOICE_Range && n >= 3) {
            k.type = 1;
            k.minimum = i[1];
            k.maximum = i[2];
            k.step = 1;
        } else {
            k.type = 3; /* a menu: its items are the labels */
        }
    } else {
        return;
    }
    p = spa_pod_object_find_prop(obj, NULL, SPA_PROP_INFO_labels);
    if (p && spa_pod_is_struct(&p->value)) {
        struct spa_pod_parser prs;
        struct spa_pod_frame f;
        int32_t index;
        const char *label;

        spa_pod_parser_pod(&prs, &p->value);
        if (spa_pod_parser_push_struct(&prs, &f) == 0) {
            while (k.item_count < CCPW_MAX_MENU && spa_pod_parser_get_int(&prs, &index) == 0 &&
                   spa_pod_parser_get_string(&prs, &label) == 0) {
                k.item_index[k.item_count] = index;
                snprintf(k.item_name[k.item_count], sizeof k.item_name[0], "%s", label);
                k.item_count++;
            }
        }
        if (k.type == 3 && k.item_count) {
            uint32_t j;
            k.minimum = k.maximum = k.item_index[0];
            for (j = 1; j < k.item_count; j++) {
                if (k.item_index[j] < k.minimum)
                    k.minimum = k.item_index[j];
                if (k.item_index[j] > k.maximum)
                    k.maximum = k.item_index[j];
            }
            k.step = 1;
        }
    }
    if (k.type == 3 && k.item_count == 0)
        return;
    if ((size_t)c->got_count < c->got_cap)
        ((ccpw_control *)c->got)[c->got_count] = k;
    c->got_count++;
}

static void on_node_param(void *data, int seq, uint32_t id, uint32_t index, uint32_t next,
                          const struct spa_pod *param)
{
    struct ccpw_core *c = data;
    uint32_t media_type, media_subtype, n, choice, i;
    int swapped;
    const uint32_t *ids;
    const struct spa_pod_object *obj = (const struct spa_pod_object *)param;

    (void)seq;
    (void)index;
    (void)next;
    if (id != c->got_param)
        return;
    if (id == SPA_PARAM_PropInfo && param && spa_pod_is_object(param)) {
        add_control(c, obj);
        return;
    }
    if (id != SPA_PARAM_EnumFormat || !param || !spa_pod_is_object(param))
        return;
    if (spa_format_parse(param, &media_type, &media_subtype) < 0 || media_type != SPA_MEDIA_TYPE_video)
        return;
    if (media_subtype == SPA_MEDIA_SUBTYPE_mjpg) {
        add_format(c, MJPG, obj);
        return;
    }
    if (media_subtype != SPA_MEDIA_SUBTYPE_raw)
        return;
    ids = values_of(obj, SPA_FORMAT_VIDEO_format, SPA_TYPE_Id, &n, &choice);
    if (!ids)
        return;
    swapped = swaps_rgb(c, c->got_node);
    for (i = choice == SPA_CHOICE_Enum && n > 1 ? 1 : 0; i < n; i++) {
        uint32_t fcc = fourcc_of(swapped ? reversed_rgb(ids[i]) : ids[i]);
        if (fcc)
            add_format(c, fcc, obj);
    }
}

static const struct pw_node_events node_events = {
    PW_VERSION_NODE_EVENTS,
    .param = on_node_param,
};

/* One request to a node and the round trip that ends it: EnumParams of
 * param_id collected into out (cap entries; set NULL), or SetParam of
 * param_id (set). Binds a proxy of the node for it, all under the loop
 * lock. Returns how many params came (also past cap), or -1 with err
 * naming `what`. */
static int node_request(struct ccpw_core *c, uint32_t node_id, uint32_t param_id, const struct spa_pod *set,
                        void *out, size_t cap, int timeout_ms, const char *what, char *err, size_t errlen)
{
    struct pw_node *node;
    struct spa_hook listener;
    int r, count;

    pw.pw_thread_loop_lock(c->loop);
    if (!c->alive) {
        pw.pw_thread_loop_unlock(c->loop);
        say(err, errlen, "the PipeWire daemon went away%s%s", NULL, 0);
        return -1;
    }
    node = pw_registry_bind(c->registry, node_id, PW_TYPE_INTERFACE_Node, PW_VERSION_NODE, 0);
    if (!node) {
        r = -errno;
        pw.pw_thread_loop_unlock(c->loop);
        say(err, errlen, "cannot bind PipeWire node%s: %s", NULL, r);
        return -1;
    }
    spa_zero(listener);
    pw_node_add_listener(node, &listener, &node_events, c);
    c->got_param = set ? 0 : param_id;
    c->got_node = node_id;
    c->got = out;
    c->got_cap = cap;
    c->got_count = 0;
    r = set ? pw_node_set_param(node, param_id, 0, set) : pw_node_enum_params(node, 0, param_id, 0, UINT32_MAX, NULL);
    if (r >= 0)
        r = roundtrip(c, timeout_ms);
    spa_hook_remove(&listener);
    pw.pw_proxy_destroy((struct pw_proxy *)node);
    count = c->got_count;
    c->got_param = 0;
    c->got = NULL;
    c->got_cap = 0;
    pw.pw_thread_loop_unlock(c->loop);
    if (r < 0) {
        say(err, errlen, "%s of a PipeWire node: %s", what, r);
        return -1;
    }
    return count;
}

int ccpw_enum_controls(ccpw_core *c, uint32_t node_id, int timeout_ms, ccpw_control *out, size_t cap,
                       char *err, size_t errlen)
{
    return node_request(c, node_id, SPA_PARAM_PropInfo, NULL, out, cap, timeout_ms, "PropInfo", err, errlen);
}

int ccpw_set_control(ccpw_core *c, uint32_t node_id, uint32_t prop_id, int boolean, int32_t value,
                     int timeout_ms, char *err, size_t errlen)
{
    uint8_t buffer[256];
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof buffer);
    struct spa_pod_frame f;
    struct spa_pod *props;

    spa_pod_builder_push_object(&b, &f, SPA_TYPE_OBJECT_Props, SPA_PARAM_Props);
    spa_pod_builder_prop(&b, prop_id, 0);
    if (boolean)
        spa_pod_builder_bool(&b, value != 0);
    else
        spa_pod_builder_int(&b, value);
    props = spa_pod_builder_pop(&b, &f);
    return node_request(c, node_id, SPA_PARAM_Props, props, NULL, 0, timeout_ms, "setting a control", err, errlen) < 0
               ? -1 : 0;
}

int ccpw_enum_formats(ccpw_core *c, uint32_t node_id, int timeout_ms, ccpw_format *out, size_t cap,
                      char *err, size_t errlen)
{
    return node_request(c, node_id, SPA_PARAM_EnumFormat, NULL, out, cap, timeout_ms, "EnumFormat", err, errlen);
}

/* ------------------------------------------------------------------ */
/* Capture streams                                                      */
/* ------------------------------------------------------------------ */

#define MAX_BUFFERS 32
#define MAX_MAPS 128

struct mapping {
    void *base;
    size_t length;
};

struct slot {
    struct pw_buffer *buf; /* NULL once the stream removed it */
    const uint8_t *data;   /* mapped (MemFd, DmaBuf) or the copy (MemPtr) */
    uint8_t *copy;         /* camcore's copy of a MemPtr buffer */
    size_t copy_len;
    uint32_t data_type;
};

struct ccpw_stream {
    struct ccpw_core *core;
    struct ccpw_stream *next; /* in core->streams */
    uint32_t node_id;         /* the registry id of the node it captures from */
    struct pw_stream *stream; /* NULL once closed (under lock) */
    struct pw_stream *pws;    /* the same, for the process callback (set once) */
    struct spa_hook listener;
    int event_fd;
    uint32_t nbuffers;
    /* the agreed format */
    int format_set;
    uint32_t fourcc, width, height, rate_num, rate_den;
    /* buffers (slot table and mappings: loop thread adds, any thread reads under lock) */
    pthread_mutex_t lock;
    struct slot slots[MAX_BUFFERS];
    struct mapping maps[MAX_MAPS];
    int n_maps;
    int ready[MAX_BUFFERS]; /* ring of ready slots */
    int head, count;
    int failed;
    char error[256];
};

static void stream_fail(struct ccpw_stream *s, const char *why)
{
    uint64_t one = 1;
    ssize_t w;

    pthread_mutex_lock(&s->lock);
    if (!s->failed) {
        s->failed = 1;
        snprintf(s->error, sizeof s->error, "%s", why);
    }
    pthread_mutex_unlock(&s->lock);
    w = write(s->event_fd, &one, sizeof one);
    (void)w;
    pw.pw_thread_loop_signal(s->core->loop, false);
}

/* On the loop thread: every open stream on the node that is gone fails. */
static void streams_lost(struct ccpw_core *c, uint32_t node_id)
{
    struct ccpw_stream *s;

    pthread_mutex_lock(&c->lock);
    for (s = c->streams; s; s = s->next)
        if (s->node_id == node_id)
            stream_fail(s, "the PipeWire camera went away (node removed)");
    pthread_mutex_unlock(&c->lock);
}

static void on_state_changed(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error)
{
    struct ccpw_stream *s = data;
    char why[256];

    (void)old;
    if (state == PW_STREAM_STATE_ERROR) {
        snprintf(why, sizeof why, "the PipeWire stream failed: %s", error ? error : "unknown error");
        stream_fail(s, why);
    } else if (state == PW_STREAM_STATE_UNCONNECTED && s->format_set) {
        stream_fail(s, "the PipeWire camera went away (stream unconnected)");
    }
}

static void on_param_changed(void *data, uint32_t id, const struct spa_pod *param)
{
    struct ccpw_stream *s = data;
    uint32_t media_type, media_subtype;
    struct spa_video_info info;
    uint8_t buffer[1024];
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof buffer);
    const struct spa_pod *params[2];

    if (id != SPA_PARAM_Format || !param)
        return;
    if (spa_format_parse(param, &media_type, &media_subtype) < 0 || media_type != SPA_MEDIA_TYPE_video)
        return;
    spa_zero(info);
    if (media_subtype == SPA_MEDIA_SUBTYPE_raw) {
        if (spa_format_video_raw_parse(param, &info.info.raw) < 0)
            return;
        s->fourcc = fourcc_of(swaps_rgb(s->core, s->node_id) ? reversed_rgb(info.info.raw.format)
                                                             : info.info.raw.format);
        s->width = info.info.raw.size.width;
        s->height = info.info.raw.size.height;
        s->rate_num = info.info.raw.framerate.num;
        s->rate_den = info.info.raw.framerate.denom;
    } else if (media_subtype == SPA_MEDIA_SUBTYPE_mjpg) {
        if (spa_format_video_mjpg_parse(param, &info.info.mjpg) < 0)
            return;
        s->fourcc = MJPG;
        s->width = info.info.mjpg.size.width;
        s->height = info.info.mjpg.size.height;
        s->rate_num = info.info.mjpg.framerate.num;
        s->rate_den = info.info.mjpg.framerate.denom;
    } else {
        return;
    }
    params[0] = spa_pod_builder_add_object(
        &b, SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers,
        SPA_PARAM_BUFFERS_buffers, SPA_POD_CHOICE_RANGE_Int(s->nbuffers, 2, MAX_BUFFERS),
        SPA_PARAM_BUFFERS_dataType,
        SPA_POD_CHOICE_FLAGS_Int((1 << SPA_DATA_MemPtr) | (1 << SPA_DATA_MemFd) | (1 << SPA_DATA_DmaBuf)));
    params[1] = spa_pod_builder_add_object(
        &b, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
        SPA_PARAM_META_type, SPA_POD_Id(SPA_META_Header),
        SPA_PARAM_META_size, SPA_POD_Int(sizeof(struct spa_meta_header)));
    pw.pw_stream_update_params(s->pws, params, 2);
    s->format_set = 1;
    pw.pw_thread_loop_signal(s->core->loop, false);
}

static void on_add_buffer(void *data, struct pw_buffer *buf)
{
    struct ccpw_stream *s = data;
    struct spa_data *d = &buf->buffer->datas[0];
    int i, slot = -1;

    pthread_mutex_lock(&s->lock);
    for (i = 0; i < MAX_BUFFERS; i++) {
        if (!s->slots[i].buf && !s->slots[i].data) {
            slot = i;
            break;
        }
    }
    if (slot < 0) {
        pthread_mutex_unlock(&s->lock);
        return;
    }
    s->slots[slot].buf = buf;
    s->slots[slot].data_type = d->type;
    buf->user_data = (void *)(intptr_t)(slot + 1);
    if (g_debug)
        fprintf(stderr, "camcore: PipeWire buffer %d: %s, %u bytes\n", slot,
                d->type == SPA_DATA_MemPtr ? "MemPtr" : d->type == SPA_DATA_MemFd ? "MemFd"
                : d->type == SPA_DATA_DmaBuf ? "DmaBuf" : "other", d->maxsize);
    if ((d->type == SPA_DATA_MemFd || d->type == SPA_DATA_DmaBuf) && d->fd >= 0 && s->n_maps < MAX_MAPS) {
        /* Our own read-only mapping: PW_STREAM_FLAG_MAP_BUFFERS does not map
         * DmaBuf on 0.3.65, and ours outlives the stream (retained frames). */
        size_t len = (size_t)d->mapoffset + d->maxsize;
        void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, (int)d->fd, 0);
        if (p != MAP_FAILED) {
            s->maps[s->n_maps].base = p;
            s->maps[s->n_maps].length = len;
            s->n_maps++;
            s->slots[slot].data = (const uint8_t *)p + d->mapoffset;
        }
    }
    pthread_mutex_unlock(&s->lock);
}

static void on_remove_buffer(void *data, struct pw_buffer *buf)
{
    struct ccpw_stream *s = data;
    int slot = (int)(intptr_t)buf->user_data - 1;

    pthread_mutex_lock(&s->lock);
    if (slot >= 0 && slot < MAX_BUFFERS && s->slots[slot].buf == buf)
        s->slots[slot].buf = NULL; /* the mapping or copy stays for frames still held */
    pthread_mutex_unlock(&s->lock);
}

static void on_process(void *data)
{
    struct ccpw_stream *s = data;
    struct pw_buffer *b;
    uint64_t one = 1;
    int any = 0;
    ssize_t w;

    /* On PipeWire's data thread (RT_PROCESS); close() waits for it in
     * pw_stream_disconnect, so the stream itself (s->pws) is alive here. */
    while ((b = pw.pw_stream_dequeue_buffer(s->pws)) != NULL) {
        int slot = (int)(intptr_t)b->user_data - 1;
        pthread_mutex_lock(&s->lock);
        if (slot < 0 || slot >= MAX_BUFFERS || s->count >= MAX_BUFFERS) {
            pw.pw_stream_queue_buffer(s->pws, b);   /* under the lock: one producer at a time */
            pthread_mutex_unlock(&s->lock);
            continue;
        }
        s->ready[(s->head + s->count) % MAX_BUFFERS] = slot;
        s->count++;
        pthread_mutex_unlock(&s->lock);
        any = 1;
    }
    if (any) {
        w = write(s->event_fd, &one, sizeof one);
        (void)w;
    }
}

static const struct pw_stream_events stream_events = {
    PW_VERSION_STREAM_EVENTS,
    .state_changed = on_state_changed,
    .param_changed = on_param_changed,
    .add_buffer = on_add_buffer,
    .remove_buffer = on_remove_buffer,
    .process = on_process,
};

ccpw_stream *ccpw_stream_open(ccpw_core *c, const char *target, uint32_t node_id, uint32_t fourcc, uint32_t width,
                              uint32_t height, uint32_t rate_num, uint32_t rate_den, uint32_t nbuffers,
                              int event_fd, int timeout_ms, char *err, size_t errlen)
{
    struct ccpw_stream *s;
    uint8_t buffer[1024];
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof buffer);
    const struct spa_pod *params[1];
    struct spa_pod_frame f;
    struct pw_properties *props;
    int64_t end = now_ms() + timeout_ms;
    int r;
    uint32_t spa = spa_of(fourcc);

    if (swaps_rgb(c, node_id))
        spa = reversed_rgb(spa);
    if (fourcc != MJPG && spa == SPA_VIDEO_FORMAT_UNKNOWN) {
        say(err, errlen, "PipeWire has no video format for this FourCC%s%s", NULL, 0);
        return NULL;
    }
    s = calloc(1, sizeof *s);
    if (!s) {
        say(err, errlen, "out of memory%s%s", NULL, 0);
        return NULL;
    }
    s->core = c;
    s->node_id = node_id;
    s->event_fd = event_fd;
    s->nbuffers = nbuffers < 2 ? 2 : nbuffers > MAX_BUFFERS ? MAX_BUFFERS : nbuffers;
    pthread_mutex_init(&s->lock, NULL);

    /* One fixed format: a client offering ranges gets the node's first
     * entry (TESTBED: 320x180 at 1 fps on vivid). */
    spa_pod_builder_push_object(&b, &f, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat);
    spa_pod_builder_add(&b, SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video), 0);
    if (fourcc == MJPG) {
        spa_pod_builder_add(&b, SPA_FORMAT_mediaSubtype, SPA_POD_Id(SPA_MEDIA_SUBTYPE_mjpg), 0);
    } else {
        spa_pod_builder_add(&b, SPA_FORMAT_mediaSubtype, SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw), 0);
        spa_pod_builder_add(&b, SPA_FORMAT_VIDEO_format, SPA_POD_Id(spa), 0);
    }
    spa_pod_builder_add(&b, SPA_FORMAT_VIDEO_size, SPA_POD_Rectangle(&SPA_RECTANGLE(width, height)), 0);
    if (rate_num && rate_den)
        spa_pod_builder_add(&b, SPA_FORMAT_VIDEO_framerate,
                            SPA_POD_Fraction(&SPA_FRACTION(rate_num, rate_den)), 0);
    params[0] = spa_pod_builder_pop(&b, &f);

    pw.pw_thread_loop_lock(c->loop);
    if (!c->alive) {
        pw.pw_thread_loop_unlock(c->loop);
        say(err, errlen, "the PipeWire daemon went away%s%s", NULL, 0);
        goto fail;
    }
    props = pw.pw_properties_new(PW_KEY_MEDIA_TYPE, "Video", PW_KEY_MEDIA_CATEGORY, "Capture",
                                 PW_KEY_MEDIA_ROLE, "Camera", PW_KEY_TARGET_OBJECT, target,
                                 PW_KEY_NODE_NAME, "camcore", NULL);
    s->stream = s->pws = pw.pw_stream_new(c->core, "camcore capture", props);
    if (!s->stream) {
        r = -errno;
        pw.pw_thread_loop_unlock(c->loop);
        say(err, errlen, "pw_stream_new%s: %s", NULL, r);
        goto fail;
    }
    pw.pw_stream_add_listener(s->stream, &s->listener, &stream_events, s);
    pthread_mutex_lock(&c->lock);
    s->next = c->streams;
    c->streams = s;
    pthread_mutex_unlock(&c->lock);
    r = pw.pw_stream_connect(s->stream, PW_DIRECTION_INPUT, PW_ID_ANY,
                             PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_DONT_RECONNECT |
                                 PW_STREAM_FLAG_RT_PROCESS, params, 1);
    if (r < 0) {
        pw.pw_thread_loop_unlock(c->loop);
        say(err, errlen, "pw_stream_connect%s: %s", NULL, r);
        ccpw_stream_close(s);
        ccpw_stream_free(s);
        return NULL;
    }
    while (!s->format_set && !s->failed && c->alive && now_ms() < end)
        pw.pw_thread_loop_timed_wait(c->loop, 1);
    pw.pw_thread_loop_unlock(c->loop);
    if (!s->format_set) {
        if (s->failed)
            say(err, errlen, "%s%s", s->error, 0);
        else if (!c->alive)
            say(err, errlen, "the PipeWire daemon went away%s%s", NULL, 0);
        else
            say(err, errlen, "the PipeWire camera agreed no format within the time limit (does it offer "
                             "this setting?)%s%s", NULL, 0);
        ccpw_stream_close(s);
        ccpw_stream_free(s);
        return NULL;
    }
    return s;

fail:
    pthread_mutex_destroy(&s->lock);
    free(s);
    return NULL;
}

void ccpw_stream_format(ccpw_stream *s, uint32_t *fourcc, uint32_t *width, uint32_t *height,
                        uint32_t *rate_num, uint32_t *rate_den)
{
    *fourcc = s->fourcc;
    *width = s->width;
    *height = s->height;
    *rate_num = s->rate_num;
    *rate_den = s->rate_den;
}

int ccpw_stream_buffer_count(ccpw_stream *s)
{
    int i, n = 0;

    pthread_mutex_lock(&s->lock);
    for (i = 0; i < MAX_BUFFERS; i++)
        if (s->slots[i].buf || s->slots[i].data)
            n = i + 1;
    pthread_mutex_unlock(&s->lock);
    return n > 0 ? n : (int)s->nbuffers;
}

int ccpw_stream_next(ccpw_stream *s, ccpw_buffer *out, char *err, size_t errlen)
{
    struct slot *sl;
    struct spa_buffer *buf;
    struct spa_data *d;
    struct spa_meta_header *h;
    int slot;
    uint32_t off, size;

    pthread_mutex_lock(&s->lock);
    if (s->count == 0) {
        int failed = s->failed;
        if (failed)
            say(err, errlen, "%s%s", s->error, 0);
        pthread_mutex_unlock(&s->lock);
        return failed ? -1 : 0;
    }
    slot = s->ready[s->head];
    s->head = (s->head + 1) % MAX_BUFFERS;
    s->count--;
    sl = &s->slots[slot];
    if (!sl->buf) {
        pthread_mutex_unlock(&s->lock);
        return 0;
    }
    buf = sl->buf->buffer;
    d = &buf->datas[0];
    off = d->chunk->offset;
    size = d->chunk->size;
    if (off > d->maxsize)
        off = d->maxsize;
    if (size > d->maxsize - off)
        size = d->maxsize - off;
    memset(out, 0, sizeof *out);
    out->slot = slot;
    out->data_type = d->type;
    if (d->type == SPA_DATA_MemPtr && d->data) {
        /* PipeWire's memory, unmapped with the stream: camcore's copy, so a
         * retained frame outlives the stream. */
        if (sl->copy_len < size) {
            uint8_t *p = realloc(sl->copy, size);
            if (p) {
                sl->copy = p;
                sl->copy_len = size;
            }
        }
        if (sl->copy && sl->copy_len >= size) {
            memcpy(sl->copy, (const uint8_t *)d->data + off, size);
            out->data = sl->copy;
        }
    } else if (sl->data) {
        out->data = sl->data + off;
    }
    out->size = out->data ? size : 0;
    out->stride = d->chunk->stride;
    out->corrupted = (d->chunk->flags & SPA_CHUNK_FLAG_CORRUPTED) != 0;
    h = spa_buffer_find_meta_data(buf, SPA_META_Header, sizeof *h);
    if (h) {
        out->has_header = 1;
        out->pts_ns = h->pts > 0 ? (uint64_t)h->pts : 0;
        out->seq = h->seq;
        if (h->flags & SPA_META_HEADER_FLAG_CORRUPTED)
            out->corrupted = 1;
    }
    pthread_mutex_unlock(&s->lock);
    return 1;
}

void ccpw_stream_release(ccpw_stream *s, int slot)
{
    struct pw_buffer *b = NULL;

    if (slot < 0 || slot >= MAX_BUFFERS)
        return;
    /* The stream processes on PipeWire's data thread (RT_PROCESS), whose
     * queue of returned buffers takes one producer at a time: the stream's
     * lock, not the loop's (a frame's release stays off the main loop). */
    pthread_mutex_lock(&s->lock);
    if (s->stream && (b = s->slots[slot].buf) != NULL)
        pw.pw_stream_queue_buffer(s->stream, b);
    pthread_mutex_unlock(&s->lock);
}

void ccpw_stream_close(ccpw_stream *s)
{
    struct pw_stream *stream;

    if (!s || !s->stream)
        return;
    pw.pw_thread_loop_lock(s->core->loop);
    pthread_mutex_lock(&s->core->lock);
    for (struct ccpw_stream **p = &s->core->streams; *p; p = &(*p)->next) {
        if (*p == s) {
            *p = s->next;
            break;
        }
    }
    pthread_mutex_unlock(&s->core->lock);
    /* No release queues a buffer from now on. */
    pthread_mutex_lock(&s->lock);
    stream = s->stream;
    s->stream = NULL;
    pthread_mutex_unlock(&s->lock);
    pw.pw_stream_disconnect(stream);
    spa_hook_remove(&s->listener);
    pw.pw_stream_destroy(stream);
    pthread_mutex_lock(&s->lock);
    s->count = 0;
    pthread_mutex_unlock(&s->lock);
    pw.pw_thread_loop_unlock(s->core->loop);
}

void ccpw_stream_free(ccpw_stream *s)
{
    int i;

    if (!s)
        return;
    ccpw_stream_close(s);
    for (i = 0; i < s->n_maps; i++)
        munmap(s->maps[i].base, s->maps[i].length);
    for (i = 0; i < MAX_BUFFERS; i++)
        free(s->slots[i].copy);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
