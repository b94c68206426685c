// SPDX-License-Identifier: MIT
/*
 * camcore view --serve PORT: the session's frames as MJPEG over HTTP,
 * served by libmicrohttpd (libmicrohttpd-dev). Needs no SDL2 and no display.
 *
 *   /, /index.html            a page that shows the stream
 *   /stream, /stream.mjpg     multipart/x-mixed-replace, one JPEG per part
 *   /snapshot.jpg             the newest frame as one JPEG
 *
 * GET and HEAD on every route (HEAD: the same headers, no body); anything
 * else 405. Query strings are ignored, absolute-form request targets
 * (GET http://host:port/snapshot.jpg) are taken as their path.
 *
 * Threads: the caller's thread (serve_http) takes the session's newest
 * frame when the source's eventfd says one waits, encodes it (TurboJPEG)
 * and publishes it as the hub's latest JPEG: reference counted, with a
 * generation number, and a condition variable broadcast. libmicrohttpd runs
 * one thread per connection (thread stacks of SERVE_STACK bytes); a /stream
 * connection's content callback waits for the next generation, takes a
 * reference to that JPEG and copies it out in blocks of SERVE_BLOCK bytes,
 * so a connection holds at most one frame (shared, not copied) and its
 * block, and a slow client skips frames instead of queueing them (its
 * socket's send buffer is SERVE_SNDBUF).
 *
 * Hostile clients: at most SERVE_CONNECTIONS connections (more wait in the
 * listen backlog); a request's line and headers may have SERVE_HEADER_LIMIT
 * bytes: longer ones are answered 431 with a body, malformed ones 400 (by
 * libmicrohttpd). libmicrohttpd holds a request in a memory pool of
 * SERVE_POOL bytes a connection: one too large for it gets libmicrohttpd's
 * own 431 (414 for a long request line); one that fits but leaves too
 * little room for any reply (libmicrohttpd 0.9.75 would close such a
 * connection without a word) is over SERVE_HEADER_LIMIT and answered 431 by
 * too_large(), below. A connection with nothing to do for SERVE_TIMEOUT
 * seconds is closed (libmicrohttpd's connection timeout), and so is one
 * whose request is not complete SERVE_TIMEOUT seconds after it connected
 * or after its previous reply (slowloris: a byte now and then keeps the
 * connection active; serve_http's loop shuts such sockets down). SIGPIPE
 * is ignored and libmicrohttpd sends with MSG_NOSIGNAL, so a client that
 * resets its connection costs that connection only.
 */
#include "camcore_tool.h"

#ifdef CAMCORE_TOOL_MHD

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <turbojpeg.h>
#include <unistd.h>

#include <microhttpd.h>

#define SERVE_BOUNDARY "camcoreframe"
#define SERVE_TIMEOUT 10                /* seconds: idle connection, incomplete request */
#define SERVE_CONNECTIONS 512           /* at once; more wait in the backlog */
#define SERVE_HEADER_LIMIT (8 * 1024)   /* bytes: a request's line and headers */
#define SERVE_POOL (16 * 1024)          /* libmicrohttpd's memory per connection (the request in it) */
#define SERVE_BLOCK (16 * 1024)         /* a /stream connection's copy buffer */
#define SERVE_STACK (256 * 1024)        /* a connection thread's stack */
#define SERVE_SNDBUF (128 * 1024)       /* a connection's socket send buffer (the kernel doubles it) */
#define SERVE_FIRST_FRAME_WAIT 5.0      /* seconds /snapshot.jpg waits for a first frame */
#define SERVE_RESEND 2.0                /* seconds without a new frame: /stream sends the last one again */

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------------ */
/* The latest JPEG, shared                                            */
/* ------------------------------------------------------------------ */

struct jpeg {
    unsigned refs;              /* under hub.lock */
    uint64_t gen;
    size_t len;
    unsigned char data[];
};

/* A connection (libmicrohttpd's socket context). */
struct conn {
    struct conn *prev, *next;   /* in hub.waiting while its request is incomplete */
    int fd;
    int listed;                 /* in hub.waiting */
    double since;               /* connected, or its previous reply ended */
};

struct hub {
    pthread_mutex_t lock;
    pthread_cond_t changed;     /* a new latest JPEG, or stopping (CLOCK_MONOTONIC) */
    struct jpeg *latest;        /* one reference held here; NULL: no frame yet */
    uint64_t gen;
    int stopping;
    struct conn *waiting;       /* connections whose request is not complete yet */
    char page[2048];            /* the / page */
    size_t page_len;
};

static void jpeg_put_locked(struct jpeg *j)
{
    if (j && --j->refs == 0)
        free(j);
}

static void jpeg_put(struct hub *h, struct jpeg *j)
{
    if (j == NULL)
        return;
    pthread_mutex_lock(&h->lock);
    jpeg_put_locked(j);
    pthread_mutex_unlock(&h->lock);
}

static void deadline_in(struct timespec *ts, double seconds)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += (time_t)seconds;
    ts->tv_nsec += (long)((seconds - (double)(time_t)seconds) * 1e9);
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

/* A reference to the latest JPEG newer than generation after (0: any),
 * waiting up to seconds for one; NULL if none came, or when stopping. */
static struct jpeg *jpeg_next(struct hub *h, uint64_t after, double seconds)
{
    struct timespec until;
    struct jpeg *j = NULL;

    deadline_in(&until, seconds);
    pthread_mutex_lock(&h->lock);
    while (!h->stopping && (h->latest == NULL || h->latest->gen <= after))
        if (pthread_cond_timedwait(&h->changed, &h->lock, &until) == ETIMEDOUT)
            break;
    if (!h->stopping && h->latest && h->latest->gen > after) {
        j = h->latest;
        j->refs++;
    }
    pthread_mutex_unlock(&h->lock);
    return j;
}

/* The latest JPEG, whatever its generation (NULL: none yet). */
static struct jpeg *jpeg_latest(struct hub *h)
{
    struct jpeg *j;

    pthread_mutex_lock(&h->lock);
    if ((j = h->latest) != NULL)
        j->refs++;
    pthread_mutex_unlock(&h->lock);
    return j;
}

static void publish(struct hub *h, const unsigned char *data, size_t len)
{
    struct jpeg *j = malloc(sizeof *j + len), *old;

    if (j == NULL)
        return;
    j->refs = 1;
    j->len = len;
    memcpy(j->data, data, len);
    pthread_mutex_lock(&h->lock);
    old = h->latest;
    h->latest = j;
    j->gen = ++h->gen;
    jpeg_put_locked(old);
    pthread_cond_broadcast(&h->changed);
    pthread_mutex_unlock(&h->lock);
}

/* ------------------------------------------------------------------ */
/* Connections whose request is late                                  */
/* ------------------------------------------------------------------ */

static void waiting_add_locked(struct hub *h, struct conn *c)
{
    if (c->listed)
        return;
    c->since = now_s();
    c->prev = NULL;
    c->next = h->waiting;
    if (h->waiting)
        h->waiting->prev = c;
    h->waiting = c;
    c->listed = 1;
}

static void waiting_remove_locked(struct hub *h, struct conn *c)
{
    if (!c->listed)
        return;
    if (c->prev)
        c->prev->next = c->next;
    else
        h->waiting = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
    c->listed = 0;
}

/* Shuts down the sockets of connections whose request is not complete
 * SERVE_TIMEOUT seconds on (libmicrohttpd then reads their end and closes
 * them). Under the lock: libmicrohttpd tells a connection closed
 * (on_connection, below) before it closes its socket, so every fd here is
 * still that connection's. */
static void reap_late(struct hub *h)
{
    double now = now_s();
    struct conn *c, *next;

    pthread_mutex_lock(&h->lock);
    for (c = h->waiting; c; c = next) {
        next = c->next;
        if (now - c->since >= SERVE_TIMEOUT) {
            shutdown(c->fd, SHUT_RDWR);
            waiting_remove_locked(h, c);
        }
    }
    pthread_mutex_unlock(&h->lock);
}

static void on_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    struct hub *h = cls;
    struct conn *c = *socket_context;

    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (info == NULL || (c = calloc(1, sizeof *c)) == NULL)
            return;
        c->fd = info->connect_fd;
        {
            /* A client that stops reading: what the kernel holds for it
             * stays bounded (no send-buffer autotuning up to megabytes). */
            int bytes = SERVE_SNDBUF;
            setsockopt(c->fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
        }
        pthread_mutex_lock(&h->lock);
        waiting_add_locked(h, c);
        pthread_mutex_unlock(&h->lock);
        *socket_context = c;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED && c) {
        pthread_mutex_lock(&h->lock);
        waiting_remove_locked(h, c);
        pthread_mutex_unlock(&h->lock);
        free(c);
        *socket_context = NULL;
    }
}

static struct conn *conn_of(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

    return info ? info->socket_context : NULL;
}

/* A reply ended: the connection (kept alive) waits for its next request. */
static void on_completed(void *cls, struct MHD_Connection *connection, void **request_context,
                         enum MHD_RequestTerminationCode code)
{
    struct hub *h = cls;
    struct conn *c = conn_of(connection);

    (void)request_context;
    if (c && code == MHD_REQUEST_TERMINATED_COMPLETED_OK) {
        pthread_mutex_lock(&h->lock);
        waiting_add_locked(h, c);
        pthread_mutex_unlock(&h->lock);
    }
}

/* ------------------------------------------------------------------ */
/* Replies                                                            */
/* ------------------------------------------------------------------ */

static enum MHD_Result reply(struct MHD_Connection *connection, unsigned status, const char *type, const void *body,
                             size_t len, const char *allow)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    enum MHD_Result ret;

    if (r == NULL)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    if (allow)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
    ret = MHD_queue_response(connection, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *connection, unsigned status, const char *text)
{
    return reply(connection, status, "text/plain", text, strlen(text), NULL);
}

/* /stream: the multipart stream of one connection. */
struct stream {
    struct hub *hub;
    struct jpeg *cur;           /* the frame being sent (a reference); NULL between parts */
    uint64_t last_gen;          /* the generation of the last part */
    char head[128];             /* the part's header */
    size_t head_len, off;       /* off: bytes of head + JPEG + CRLF sent */
};

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct stream *s = cls;
    size_t n = 0, total;

    (void)pos;
    if (s->cur == NULL) {
        /* The next frame; with none for SERVE_RESEND seconds (a stalled
         * camera) the last one again, so the connection stays active. */
        int stopping;
        if ((s->cur = jpeg_next(s->hub, s->last_gen, SERVE_RESEND)) == NULL)
            s->cur = jpeg_latest(s->hub);
        pthread_mutex_lock(&s->hub->lock);
        stopping = s->hub->stopping;
        pthread_mutex_unlock(&s->hub->lock);
        if (stopping || s->cur == NULL) {
            jpeg_put(s->hub, s->cur);
            s->cur = NULL;
            /* 0: no frame yet (libmicrohttpd asks again; its timeout runs) */
            return stopping ? MHD_CONTENT_READER_END_OF_STREAM : 0;
        }
        s->last_gen = s->cur->gen;
        s->head_len = (size_t)snprintf(s->head, sizeof s->head,
                                       "--" SERVE_BOUNDARY "\r\nContent-Type: image/jpeg\r\nContent-Length: %zu\r\n\r\n",
                                       s->cur->len);
        s->off = 0;
    }
    total = s->head_len + s->cur->len + 2;
    while (n < max && s->off < total) {
        const unsigned char *from;
        size_t left, k;
        if (s->off < s->head_len)
            from = (const unsigned char *)s->head + s->off, left = s->head_len - s->off;
        else if (s->off < s->head_len + s->cur->len)
            from = s->cur->data + (s->off - s->head_len), left = s->head_len + s->cur->len - s->off;
        else
            from = (const unsigned char *)"\r\n" + (s->off - s->head_len - s->cur->len), left = total - s->off;
        k = left < max - n ? left : max - n;
        memcpy(buf + n, from, k);
        n += k;
        s->off += k;
    }
    if (s->off == total) {
        jpeg_put(s->hub, s->cur);
        s->cur = NULL;
    }
    return (ssize_t)n;
}

static void stream_free(void *cls)
{
    struct stream *s = cls;

    jpeg_put(s->hub, s->cur);
    free(s);
}

static enum MHD_Result reply_stream(struct hub *h, struct MHD_Connection *connection)
{
    struct stream *s = calloc(1, sizeof *s);
    struct MHD_Response *r;
    enum MHD_Result ret;

    if (s == NULL)
        return MHD_NO;
    s->hub = h;
    if ((r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, SERVE_BLOCK, stream_read, s, stream_free)) == NULL) {
        free(s);
        return MHD_NO;
    }
    /* Not chunked: the parts as they are, the end is the connection's. */
    MHD_set_response_options(r, MHD_RF_HTTP_1_0_COMPATIBLE_STRICT, MHD_RO_END);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "multipart/x-mixed-replace; boundary=" SERVE_BOUNDARY);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    ret = MHD_queue_response(connection, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

struct held {
    struct hub *hub;
    struct jpeg *jpeg;
};

static void held_free(void *cls)
{
    struct held *k = cls;

    jpeg_put(k->hub, k->jpeg);
    free(k);
}

/* /snapshot.jpg: the latest JPEG as it is (the response holds a
 * reference); before the first frame, the first one. */
static enum MHD_Result reply_snapshot(struct hub *h, struct MHD_Connection *connection)
{
    struct held *k = malloc(sizeof *k);
    struct MHD_Response *r;
    enum MHD_Result ret;

    if (k == NULL)
        return MHD_NO;
    k->hub = h;
    if ((k->jpeg = jpeg_latest(h)) == NULL)
        k->jpeg = jpeg_next(h, 0, SERVE_FIRST_FRAME_WAIT);
    if (k->jpeg == NULL) {
        free(k);
        return reply_text(connection, MHD_HTTP_SERVICE_UNAVAILABLE, "no frame from the camera yet\n");
    }
    r = MHD_create_response_from_buffer_with_free_callback_cls(k->jpeg->len, k->jpeg->data, held_free, k);
    if (r == NULL) {
        held_free(k);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "image/jpeg");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    ret = MHD_queue_response(connection, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

/* A request over SERVE_HEADER_LIMIT: 431, written to the socket here (the
 * reply's headers would not fit in the connection's memory pool when the
 * request nearly fills it), and the connection closed (MHD_NO). Nothing
 * else was written for this request; a few hundred bytes fit in any
 * socket's send buffer. */
static enum MHD_Result too_large(struct conn *c, const char *method)
{
    static const char body[] = "request line and headers over 8 KiB\n";
    char text[256];
    int n = snprintf(text, sizeof text,
                     "HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n"
                     "Content-Type: text/plain\r\nContent-Length: %zu\r\n\r\n%s",
                     sizeof body - 1, strcmp(method, MHD_HTTP_METHOD_HEAD) == 0 ? "" : body);

    if (c && n > 0)
        (void)!send(c->fd, text, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
    return MHD_NO;
}

/* The path of a request target: absolute form (http://host:port/path)
 * taken as its path; libmicrohttpd has already cut the query off. */
static const char *target_path(const char *url)
{
    const char *p;

    if (strncasecmp(url, "http://", 7) == 0 || strncasecmp(url, "https://", 8) == 0) {
        p = strstr(url, "://") + 3;
        p = strchr(p, '/');
        return p ? p : "/";
    }
    return url;
}

/* libmicrohttpd calls this once the headers are in (request_context still
 * NULL), then with any body in pieces, then a last time with no data: the
 * reply comes then, so the connection can be kept alive (a reply queued at
 * the first call makes libmicrohttpd close it). Oversized requests and
 * methods other than GET and HEAD are answered at the first call, their
 * body unread, and closed. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **request_context)
{
    static int first_call_seen;
    struct hub *h = cls;
    struct conn *c = conn_of(connection);
    const char *path = target_path(url);

    (void)version;
    (void)upload_data;
    if (*request_context == NULL) {
        const union MHD_ConnectionInfo *size =
            MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
        if (size && size->header_size > SERVE_HEADER_LIMIT)
            return too_large(c, method);
        if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
            return reply(connection, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", "only GET and HEAD\n", 18,
                         "GET, HEAD");
        *request_context = &first_call_seen;
        return MHD_YES;
    }
    if (*upload_data_size != 0) {
        *upload_data_size = 0; /* a GET's body: ignored */
        return MHD_YES;
    }
    /* The whole request is here: no longer late. */
    if (c) {
        pthread_mutex_lock(&h->lock);
        waiting_remove_locked(h, c);
        pthread_mutex_unlock(&h->lock);
    }
    if (strcmp(path, "/") == 0 || strcmp(path, "/index.html") == 0)
        return reply(connection, MHD_HTTP_OK, "text/html; charset=utf-8", h->page, h->page_len, NULL);
    if (strcmp(path, "/stream") == 0 || strcmp(path, "/stream.mjpg") == 0)
        return reply_stream(h, connection);
    if (strcmp(path, "/snapshot.jpg") == 0)
        return reply_snapshot(h, connection);
    return reply_text(connection, MHD_HTTP_NOT_FOUND, "not found: try / or /stream or /snapshot.jpg\n");
}

/* The / page: the camera's name (as HTML text) and the stream. */
static void make_page(struct hub *h, const char *title)
{
    static const char page[] =
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>%s</title></head>"
        "<body style=\"margin:0;background:#000\"><img src=\"/stream\" alt=\"camera\" "
        "style=\"display:block;margin:auto;max-width:100vw;max-height:100vh\"></body></html>\n";
    char safe[512];
    size_t j = 0;
    int n;

    for (const char *t = title; *t && j + 7 < sizeof safe; t++) {
        const char *e = *t == '<' ? "&lt;" : *t == '>' ? "&gt;" : *t == '&' ? "&amp;" : *t == '"' ? "&quot;" : NULL;
        if (e) {
            memcpy(safe + j, e, strlen(e));
            j += strlen(e);
        } else {
            safe[j++] = *t;
        }
    }
    safe[j] = 0;
    n = snprintf(h->page, sizeof h->page, page, safe);
    h->page_len = n < 0 ? 0 : (size_t)n < sizeof h->page ? (size_t)n : sizeof h->page - 1;
}

/* ------------------------------------------------------------------ */
/* Frames to JPEG                                                     */
/* ------------------------------------------------------------------ */

/* Makes *buf (a tjAlloc() buffer of *cap bytes) at least n bytes. */
static int jpeg_room(uint8_t **buf, unsigned long *cap, unsigned long n)
{
    if (*buf && *cap >= n)
        return 0;
    tjFree(*buf);
    *cap = 0;
    if ((*buf = tjAlloc((int)n)) == NULL)
        return -1;
    *cap = n;
    return 0;
}

/* The frame as a JPEG in *jpeg (*cap bytes, grown as needed), its size in
 * *jpeg_len: MJPEG frames as they are, I420 compressed directly, anything
 * else converted to I420 by camcore first. */
static int frame_jpeg(tjhandle tj, const camcore_frame *f, uint8_t **i420, size_t *i420_size, uint8_t **jpeg,
                      unsigned long *cap, unsigned long *jpeg_len, char *why, size_t why_size)
{
    const unsigned char *planes[3];
    int strides[3];
    uint32_t bytes = 0;

    if (f->fourcc == CAMCORE_FOURCC_MJPEG || f->fourcc == CAMCORE_FOURCC('J', 'P', 'E', 'G')) {
        if (jpeg_room(jpeg, cap, f->planes[0].length) != 0) {
            snprintf(why, why_size, "out of memory");
            return -1;
        }
        memcpy(*jpeg, f->planes[0].data, f->planes[0].length);
        *jpeg_len = f->planes[0].length;
        return 0;
    }
    if (f->fourcc == CAMCORE_FOURCC_I420 && f->plane_count == 3) {
        for (int p = 0; p < 3; p++)
            planes[p] = f->planes[p].data, strides[p] = (int)f->planes[p].stride;
    } else {
        if (camcore_pixel_format_frame_size(CAMCORE_FOURCC_I420, f->width, f->height, &bytes) != CAMCORE_OK) {
            snprintf(why, why_size, "%s", camcore_last_error_message());
            return -1;
        }
        if (*i420_size < bytes) {
            uint8_t *p = realloc(*i420, bytes);
            if (p == NULL) {
                snprintf(why, why_size, "out of memory");
                return -1;
            }
            *i420 = p;
            *i420_size = bytes;
        }
        if (camcore_frame_convert(f, CAMCORE_FOURCC_I420, 0, 0, *i420, bytes) != CAMCORE_OK) {
            snprintf(why, why_size, "%s", camcore_last_error_message());
            return -1;
        }
        planes[0] = *i420;
        planes[1] = planes[0] + (size_t)f->width * f->height;
        planes[2] = planes[1] + (size_t)((f->width + 1) / 2) * ((f->height + 1) / 2);
        strides[0] = (int)f->width;
        strides[1] = strides[2] = (int)((f->width + 1) / 2);
    }
    /* The worst-case size up front: TurboJPEG never reallocates our buffer. */
    if (jpeg_room(jpeg, cap, tjBufSize((int)f->width, (int)f->height, TJSAMP_420)) != 0) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    *jpeg_len = *cap;
    if (tjCompressFromYUVPlanes(tj, planes, (int)f->width, strides, (int)f->height, TJSAMP_420, jpeg, jpeg_len, 85,
                                TJFLAG_NOREALLOC) != 0) {
        snprintf(why, why_size, "TurboJPEG: %s", tjGetErrorStr2(tj));
        *jpeg_len = 0;
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* The server                                                         */
/* ------------------------------------------------------------------ */

int serve_available(void)
{
    return 1;
}

int serve_http(const struct serve_source *src, const char *title, const char *address, uint32_t port, double seconds)
{
    struct hub hub;
    struct sockaddr_in sa;
    socklen_t sl = sizeof sa;
    pthread_condattr_t ca;
    sigset_t block, old;
    struct MHD_Daemon *daemon;
    int lfd, one = 1, rc = EXIT_OK;
    tjhandle tj = NULL;
    uint8_t *i420 = NULL, *jpeg = NULL;
    size_t i420_size = 0;
    unsigned long jpeg_len = 0, jpeg_cap = 0;
    double start = now_s();
    char why[512], last_why[512] = "";

    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, address, &sa.sin_addr) != 1)
        return usage_error("view: --bind '%s' is not an IPv4 address", address);
    lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(lfd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(lfd, SOMAXCONN) != 0 ||
        getsockname(lfd, (struct sockaddr *)&sa, &sl) != 0) {
        errorf("view: cannot serve on %s:%u: %s", address, port, strerror(errno));
        if (lfd >= 0)
            close(lfd);
        return EXIT_FAILED;
    }
    if ((tj = tjInitCompress()) == NULL) {
        errorf("view: TurboJPEG: %s", tjGetErrorStr2(NULL));
        close(lfd);
        return EXIT_FAILED;
    }

    memset(&hub, 0, sizeof hub);
    pthread_mutex_init(&hub.lock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&hub.changed, &ca);
    pthread_condattr_destroy(&ca);
    make_page(&hub, title);

    /* A client gone mid-reply must cost its connection only (libmicrohttpd
     * sends with MSG_NOSIGNAL; this covers anything else). The server's
     * threads leave SIGINT and SIGTERM to this one. */
    signal(SIGPIPE, SIG_IGN);
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    daemon = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
                                  MHD_USE_ITC,
                              0, NULL, NULL, on_request, &hub,
                              MHD_OPTION_LISTEN_SOCKET, (MHD_socket)lfd,
                              MHD_OPTION_CONNECTION_LIMIT, (unsigned int)SERVE_CONNECTIONS,
                              MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)SERVE_TIMEOUT,
                              MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_POOL,
                              MHD_OPTION_THREAD_STACK_SIZE, (size_t)SERVE_STACK,
                              MHD_OPTION_NOTIFY_CONNECTION, on_connection, &hub,
                              MHD_OPTION_NOTIFY_COMPLETED, on_completed, &hub,
                              MHD_OPTION_END);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (daemon == NULL) {
        errorf("view: cannot serve on %s:%u: libmicrohttpd did not start", address, port);
        rc = EXIT_FAILED;
        goto out;
    }
    /* The one line a script waits for (port 0: the port the kernel chose). */
    fprintf(stderr, PROGRAM ": view: serving http://%s:%u/ (MJPEG at /stream, one frame at /snapshot.jpg)\n",
            address, ntohs(sa.sin_port));

    while (!g_interrupted && !(seconds > 0 && now_s() - start >= seconds)) {
        struct pollfd pfd = {src->wake_fd, POLLIN, 0};
        const camcore_frame *f;

        if (poll(&pfd, 1, 200) < 0 && errno != EINTR) {
            errorf("view: poll: %s", strerror(errno));
            rc = EXIT_FAILED;
            break;
        }
        reap_late(&hub);
        if (!(pfd.revents & POLLIN))
            continue;
        f = src->take(src->user);
        if (f == NULL || (f->flags & CAMCORE_FRAME_CORRUPTED)) {
            camcore_frame_release(f);
            continue;
        }
        if (frame_jpeg(tj, f, &i420, &i420_size, &jpeg, &jpeg_cap, &jpeg_len, why, sizeof why) != 0) {
            if (strcmp(why, last_why) != 0) {
                snprintf(last_why, sizeof last_why, "%s", why);
                if (!src->quiet)
                    fprintf(stderr, PROGRAM ": view: cannot encode a frame: %s\n", why);
            }
        } else {
            publish(&hub, jpeg, jpeg_len);
        }
        camcore_frame_release(f);
    }

    /* Waiting streams and snapshots end; then the server (it joins its threads). */
    pthread_mutex_lock(&hub.lock);
    hub.stopping = 1;
    pthread_cond_broadcast(&hub.changed);
    pthread_mutex_unlock(&hub.lock);
    MHD_stop_daemon(daemon); /* closes the listening socket */
out:
    jpeg_put(&hub, hub.latest);
    pthread_cond_destroy(&hub.changed);
    pthread_mutex_destroy(&hub.lock);
    free(i420);
    tjFree(jpeg);
    tjDestroy(tj);
    return rc;
}

#else /* no libmicrohttpd at build time */

int serve_available(void)
{
    return 0;
}

int serve_http(const struct serve_source *src, const char *title, const char *address, uint32_t port, double seconds)
{
    (void)src;
    (void)title;
    (void)address;
    (void)port;
    (void)seconds;
    errorf("view: --serve: this " PROGRAM " was built without libmicrohttpd; install libmicrohttpd-dev and rebuild it");
    return EXIT_FAILED;
}

#endif
