/* SPDX-License-Identifier: MIT */
/**
 * camcoresrc: a camcore video session (the camera switch, SPEC S9-S25) as a
 * live GStreamer source.
 *
 * The element owns one camcore_manager and one camcore_session from
 * READY->PAUSED to PAUSED->READY. PLAYING means transmitting
 * (camcore_session_start_transmission): the session turns the camera on,
 * its transmission sink receives every frame on camcore's capture thread,
 * retains it (camcore_frame_retain) and queues it; create() wraps the
 * retained frame's planes in GstMemory whose destroy notify calls
 * camcore_frame_release, so the pixels travel downstream without a copy.
 * Leaving PLAYING ends the transmission: the camera turns off.
 *
 * `paused` (S12: camcore_session_pause_video) and `hold` (S11:
 * camcore_session_hold) turn the camera off while the element stays in
 * PLAYING: the stream stays live, no buffers flow, the device is closed
 * (S9). `flip` and `select` switch cameras (S18, S19); when the camera in
 * use is unplugged the session falls back to another one and returns to it
 * when it comes back (S25): the element posts element messages
 * (camcore-selected, camcore-disconnected, camcore-connected, camcore-stall,
 * camcore-restart, camcore-error) and never a pipeline error for it. When a
 * new camera delivers another format the caps follow the frames.
 *
 * Caps come from the camera's formats (camcore_manager_list_formats), the
 * camera's own formats first, then the output formats camcore converts
 * into (I420, NV12, YUY2, RGB, BGR, RGBA). The choice is camcore's
 * negotiation (S6, camcore_manager_negotiate) on a preference taken from
 * what downstream fixes or limits (size, rate), 1280x720 at 15-30 fps
 * otherwise: first with the camera's own format, then with the output
 * formats downstream accepts, in downstream's order. The result becomes the
 * session's preference (camcore_session_set_preference), so flip, select
 * and hot-plug keep it.
 *
 * Timestamps: a frame's capture time is CLOCK_MONOTONIC ns
 * (camcore_frame.timestamp_ns). When the pipeline clock is a GstSystemClock
 * of type MONOTONIC (GStreamer's default clock) that is the clock's own time
 * base, and PTS = timestamp_ns - base_time exactly. With any other clock the
 * capture time is carried over by reading both clocks when the frame is
 * taken: PTS = (clock_now - (monotonic_now - timestamp_ns)) - base_time.
 * Frames captured before base_time (none in practice: the camera turns on
 * at PLAYING) are dropped.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcamcoresrc.h"
#include "gstcamcoreformats.h"

#include <camcore.h>
#include <gst/video/video.h>
#include <string.h>
#include <time.h>

GST_DEBUG_CATEGORY_STATIC (gst_camcore_src_debug);
#define GST_CAT_DEFAULT gst_camcore_src_debug

/* Frames waiting for create(): a live source hands on the newest ones. */
#define QUEUE_MAX 2

enum
{
  PROP_0,
  PROP_DEVICE,
  PROP_SYNTHETIC,
  PROP_PAUSED,
  PROP_HOLD,
  PROP_CAMERA_ON,
  PROP_CURRENT_DEVICE,
  PROP_SESSION,
  PROP_STATS,
};

enum
{
  SIGNAL_FLIP,
  SIGNAL_SELECT,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* Counts the wrapped frames still alive downstream; outlives the element
 * (a buffer may be freed after it). */
typedef struct
{
  gint in_flight;
} SharedCount;

/* One frame in the queue: retained from camcore, or already copied (a frame
 * camcore does not own, e.g. a capture hook's replacement, cannot be
 * retained). */
typedef struct
{
  const camcore_frame *frame;
  GstBuffer *buffer;
  uint32_t fourcc, width, height, plane_count;
  uint32_t strides[3];
  guint64 timestamp_ns;
  uint32_t sequence, dropped_before;
} QueuedFrame;

struct _GstCamcoreSrc
{
  GstPushSrc parent;

  /* Properties (object lock). */
  gchar *device;
  gint synthetic;
  gboolean paused, hold;

  /* Session operations are serialized by ops_lock (never held by camcore's
   * threads, so waiting on the camera queue under it cannot deadlock). */
  GMutex ops_lock;
  camcore_manager *manager;
  camcore_session *session;
  gboolean playing;              /* between PAUSED->PLAYING and PLAYING->PAUSED */
  gboolean transmitting;
  camcore_preference pref;
  gboolean pref_set;             /* pref is the session's */
  gboolean caps_set;             /* negotiated: the camera may turn on */

  /* The frame queue (lock, cond). */
  GMutex lock;
  GCond cond;
  GQueue queue;
  gboolean flushing;
  gboolean need_gap;            /* camera off before the first buffer: tell sinks */
  gboolean pushed_any;          /* a buffer went out since start() */

  /* Streaming thread. */
  GstVideoInfo info;
  gboolean info_raw;
  uint32_t caps_fourcc;
  guint caps_width, caps_height;
  gint fps_n, fps_d;
  gboolean following;           /* set_caps called by the caps following frames */
  uint32_t pending_output;      /* an output format asked for, not yet seen */
  gboolean video_meta;          /* downstream takes GstVideoMeta */
  gboolean discont;
  GstClockTime last_pts;
  GstClock *cached_clock;
  gboolean clock_is_monotonic;
  SharedCount *shared;

  /* Object lock. */
  gchar *caps_device;
  GstCaps *device_caps;
  gchar *current_device;
  guint buffer_count;

  /* Statistics (atomic). */
  gint n_frames, n_zero_copy, n_copied, n_queue_drops, n_camera_drops,
      n_corrupted, n_stale;
};

#define gst_camcore_src_parent_class parent_class
G_DEFINE_TYPE (GstCamcoreSrc, gst_camcore_src, GST_TYPE_PUSH_SRC);
GST_ELEMENT_REGISTER_DEFINE (camcoresrc, "camcoresrc", GST_RANK_NONE,
    GST_TYPE_CAMCORE_SRC);

static guint64
monotonic_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * 1000000000ull + (guint64) ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* Wrapping frames                                                     */
/* ------------------------------------------------------------------ */

typedef struct
{
  const camcore_frame *frame;
  SharedCount *shared;
  gint refs;                    /* memories of one buffer sharing the frame */
} WrappedFrame;

static void
wrapped_frame_unref (gpointer data)
{
  WrappedFrame *w = data;
  if (!g_atomic_int_dec_and_test (&w->refs))
    return;
  camcore_frame_release (w->frame);
  g_atomic_int_add (&w->shared->in_flight, -1);
  g_atomic_rc_box_release (w->shared);
  g_free (w);
}

static void
queued_frame_free (QueuedFrame * q)
{
  if (q->frame)
    camcore_frame_release (q->frame);
  if (q->buffer)
    gst_buffer_unref (q->buffer);
  g_free (q);
}

/* A buffer with the frame's pixels copied into GStreamer's default layout
 * for its format (one plane as it is for compressed formats). */
static GstBuffer *
copy_frame (const camcore_frame * f)
{
  GstVideoFormat vf = gst_camcore_fourcc_to_video_format (f->fourcc);
  if (vf == GST_VIDEO_FORMAT_UNKNOWN)
    return gst_buffer_new_memdup (f->planes[0].data, f->planes[0].length);
  GstVideoInfo info;
  if (!gst_video_info_set_format (&info, vf, f->width, f->height))
    return NULL;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  GstMapInfo map;
  if (!gst_buffer_map (buf, &map, GST_MAP_WRITE)) {
    gst_buffer_unref (buf);
    return NULL;
  }
  guint n = MIN (f->plane_count, GST_VIDEO_INFO_N_PLANES (&info));
  for (guint p = 0; p < n; p++) {
    uint32_t row_bytes = 0, rows = 0;
    if (camcore_pixel_format_plane_size (f->fourcc, f->width, f->height, p,
            &row_bytes, &rows) != CAMCORE_OK)
      continue;
    gsize dstride = GST_VIDEO_INFO_PLANE_STRIDE (&info, p);
    guint8 *dst = map.data + GST_VIDEO_INFO_PLANE_OFFSET (&info, p);
    const guint8 *src = f->planes[p].data;
    gsize copy = MIN (row_bytes, dstride);
    if (f->planes[p].stride)
      copy = MIN (copy, f->planes[p].stride);
    for (uint32_t r = 0; r < rows; r++) {
      if ((gsize) r * f->planes[p].stride + copy > f->planes[p].length)
        break;
      memcpy (dst + r * dstride, src + (gsize) r * f->planes[p].stride, copy);
    }
  }
  gst_buffer_unmap (buf, &map);
  return buf;
}

/* Wraps a retained frame without copying: one GstMemory over the planes
 * when they lie in one block (camcore's single-buffer formats), else one
 * per plane; a GstVideoMeta gives the offsets and strides. Takes the
 * frame's reference. NULL when the layout cannot be described to a
 * downstream that does not take GstVideoMeta (then the caller copies). */
static GstBuffer *
wrap_frame (GstCamcoreSrc * self, const camcore_frame * f)
{
  GstVideoFormat vf = gst_camcore_fourcc_to_video_format (f->fourcc);
  guint n = f->plane_count;
  if (n < 1 || n > 3)
    return NULL;
  if (vf != GST_VIDEO_FORMAT_UNKNOWN) {
    GstVideoInfo def;
    if (!gst_video_info_set_format (&def, vf, f->width, f->height)
        || GST_VIDEO_INFO_N_PLANES (&def) != n)
      return NULL;
  } else if (n != 1) {
    return NULL;
  }
  const guint8 *base = f->planes[0].data;
  const guint8 *end = base;
  gboolean one_block = TRUE;
  for (guint p = 0; p < n; p++) {
    const guint8 *d = f->planes[p].data;
    if (!d)
      return NULL;
    if (d < base)
      one_block = FALSE;
    if (d + f->planes[p].length > end)
      end = d + f->planes[p].length;
  }
  gsize offsets[GST_VIDEO_MAX_PLANES] = { 0 };
  gint strides[GST_VIDEO_MAX_PLANES] = { 0 };
  WrappedFrame *w = g_new0 (WrappedFrame, 1);
  w->frame = f;
  w->shared = g_atomic_rc_box_acquire (self->shared);
  g_atomic_int_add (&self->shared->in_flight, 1);
  GstBuffer *buf = gst_buffer_new ();
  if (one_block) {
    w->refs = 1;
    gst_buffer_append_memory (buf, gst_memory_new_wrapped (GST_MEMORY_FLAG_READONLY,
            (gpointer) base, end - base, 0, end - base, w, wrapped_frame_unref));
    for (guint p = 0; p < n; p++)
      offsets[p] = f->planes[p].data - base;
  } else {
    w->refs = n;
    gsize at = 0;
    for (guint p = 0; p < n; p++) {
      gst_buffer_append_memory (buf, gst_memory_new_wrapped (GST_MEMORY_FLAG_READONLY,
              (gpointer) f->planes[p].data, f->planes[p].length, 0,
              f->planes[p].length, w, wrapped_frame_unref));
      offsets[p] = at;
      at += f->planes[p].length;
    }
  }
  if (vf != GST_VIDEO_FORMAT_UNKNOWN) {
    for (guint p = 0; p < n; p++)
      strides[p] = f->planes[p].stride;
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, vf,
        f->width, f->height, n, offsets, strides);
  }
  return buf;
}

/* True when a wrapped frame has GStreamer's default layout, so a
 * downstream without GstVideoMeta reads it right. */
static gboolean
frame_has_default_layout (const camcore_frame * f)
{
  GstVideoFormat vf = gst_camcore_fourcc_to_video_format (f->fourcc);
  if (vf == GST_VIDEO_FORMAT_UNKNOWN)
    return TRUE;
  GstVideoInfo def;
  if (!gst_video_info_set_format (&def, vf, f->width, f->height)
      || GST_VIDEO_INFO_N_PLANES (&def) != f->plane_count)
    return FALSE;
  for (guint p = 0; p < f->plane_count; p++) {
    if ((gsize) (f->planes[p].data - f->planes[0].data) != GST_VIDEO_INFO_PLANE_OFFSET (&def, p)
        || (gint) f->planes[p].stride != GST_VIDEO_INFO_PLANE_STRIDE (&def, p))
      return FALSE;
  }
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* camcore callbacks                                                   */
/* ------------------------------------------------------------------ */

/* The transmission sink: camcore's capture thread, once per frame. Never
 * blocks: retains the frame (or copies one camcore does not own) and
 * queues it; a full queue gives up its oldest frame. */
static void
on_frame (void *user_data, const camcore_frame * frame)
{
  GstCamcoreSrc *self = user_data;
  if (frame->flags & CAMCORE_FRAME_CORRUPTED) {
    g_atomic_int_add (&self->n_corrupted, 1);
    return;
  }
  QueuedFrame *q = g_new0 (QueuedFrame, 1);
  q->fourcc = frame->fourcc;
  q->width = frame->width;
  q->height = frame->height;
  q->plane_count = frame->plane_count;
  for (int i = 0; i < 3; i++)
    q->strides[i] = frame->planes[i].stride;
  q->timestamp_ns = frame->timestamp_ns;
  q->sequence = frame->sequence;
  q->dropped_before = frame->dropped_before;
  q->frame = camcore_frame_retain (frame);
  if (!q->frame) {
    q->buffer = copy_frame (frame);
    if (!q->buffer) {
      g_free (q);
      return;
    }
  }
  QueuedFrame *old = NULL;
  g_mutex_lock (&self->lock);
  if (g_queue_get_length (&self->queue) >= QUEUE_MAX)
    old = g_queue_pop_head (&self->queue);
  g_queue_push_tail (&self->queue, q);
  g_cond_signal (&self->cond);
  g_mutex_unlock (&self->lock);
  if (old) {
    g_atomic_int_add (&self->n_queue_drops, 1);
    queued_frame_free (old);
  }
}

static void
post_element_message (GstCamcoreSrc * self, GstStructure * s)
{
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

static GstStructure *
device_structure (const char *name, const camcore_device_info * d)
{
  return gst_structure_new (name,
      "device-id", G_TYPE_STRING, d && d->id ? d->id : "",
      "device-name", G_TYPE_STRING, d && d->name ? d->name : "",
      "node", G_TYPE_STRING, d && d->node ? d->node : "",
      "position", G_TYPE_STRING, gst_camcore_position_name (d ? d->position : 0),
      "type", G_TYPE_STRING, gst_camcore_type_name (d ? d->type : 1), NULL);
}

static void
on_connected (void *user_data, const camcore_device_info * device)
{
  post_element_message (user_data, device_structure ("camcore-connected", device));
}

static void
on_disconnected (void *user_data, const camcore_device_info * device)
{
  GstCamcoreSrc *self = user_data;
  GstStructure *s = device_structure ("camcore-disconnected", device);
  GST_OBJECT_LOCK (self);
  gboolean in_use = self->current_device && device && device->id
      && strcmp (self->current_device, device->id) == 0;
  GST_OBJECT_UNLOCK (self);
  gst_structure_set (s, "in-use", G_TYPE_BOOLEAN, in_use, NULL);
  GST_INFO_OBJECT (self, "camera %s disconnected%s", device ? device->id : "?",
      in_use ? " (in use: the session falls back)" : "");
  post_element_message (self, s);
}

static void
on_selected (void *user_data, const camcore_device_info * device,
    const camcore_capture_format * format)
{
  GstCamcoreSrc *self = user_data;
  GstStructure *s = device_structure ("camcore-selected", device);
  char fcc[5] = "";
  if (format) {
    camcore_fourcc_to_string (format->fourcc, fcc);
    gst_structure_set (s, "format", G_TYPE_STRING, fcc,
        "width", G_TYPE_UINT, format->width, "height", G_TYPE_UINT, format->height,
        "framerate", GST_TYPE_FRACTION, (int) format->fps.numerator,
        format->fps.denominator ? (int) format->fps.denominator : 1,
        "adjusted", G_TYPE_UINT, format->adjusted, NULL);
  }
  GST_OBJECT_LOCK (self);
  g_free (self->current_device);
  self->current_device = g_strdup (device && device->id ? device->id : "");
  if (format && format->buffer_count)
    self->buffer_count = format->buffer_count;
  GST_OBJECT_UNLOCK (self);
  GST_INFO_OBJECT (self, "selected %s (%s %ux%u)", device ? device->id : "?",
      fcc, format ? format->width : 0, format ? format->height : 0);
  post_element_message (self, s);
}

static void
on_device_error (void *user_data, const camcore_device_info * device, int status,
    const char *message)
{
  GstCamcoreSrc *self = user_data;
  GstStructure *s = device_structure ("camcore-error", device);
  gst_structure_set (s, "status", G_TYPE_INT, status, "message", G_TYPE_STRING,
      message ? message : camcore_strerror (status), NULL);
  GST_WARNING_OBJECT (self, "capture stopped: %s", message ? message : camcore_strerror (status));
  post_element_message (self, s);
}

static void
on_stall (void *user_data, const camcore_device_info * device, int stalled,
    uint64_t since_ns)
{
  GstCamcoreSrc *self = user_data;
  GstStructure *s = device_structure ("camcore-stall", device);
  gst_structure_set (s, "stalled", G_TYPE_BOOLEAN, stalled != 0,
      "since", G_TYPE_UINT64, since_ns, NULL);
  post_element_message (self, s);
}

static void
on_restart (void *user_data, const camcore_device_info * device, int restarted,
    uint32_t attempt)
{
  GstCamcoreSrc *self = user_data;
  GstStructure *s = device_structure ("camcore-restart", device);
  gst_structure_set (s, "restarted", G_TYPE_BOOLEAN, restarted != 0,
      "attempt", G_TYPE_UINT, attempt, NULL);
  post_element_message (self, s);
}

/* Completions of queued session operations: wait for one, or post its
 * failure. */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean done;
  int status;
} Waiter;

static void
waiter_done (void *user_data, int status)
{
  Waiter *w = user_data;
  g_mutex_lock (&w->lock);
  w->status = status;
  w->done = TRUE;
  g_cond_signal (&w->cond);
  g_mutex_unlock (&w->lock);
}

static int
waiter_wait (Waiter * w)
{
  g_mutex_lock (&w->lock);
  while (!w->done)
    g_cond_wait (&w->cond, &w->lock);
  g_mutex_unlock (&w->lock);
  g_mutex_clear (&w->lock);
  g_cond_clear (&w->cond);
  return w->status;
}

typedef struct
{
  GstCamcoreSrc *self;
  gchar *operation;
  gchar *target;
} AsyncOp;

static void
async_done (void *user_data, int status)
{
  AsyncOp *op = user_data;
  if (status != CAMCORE_OK) {
    GST_WARNING_OBJECT (op->self, "%s %s failed: %s", op->operation,
        op->target ? op->target : "", camcore_strerror (status));
    GstStructure *s = gst_structure_new ("camcore-error",
        "operation", G_TYPE_STRING, op->operation,
        "device-id", G_TYPE_STRING, op->target ? op->target : "",
        "status", G_TYPE_INT, status,
        "message", G_TYPE_STRING, camcore_strerror (status), NULL);
    post_element_message (op->self, s);
  }
  gst_object_unref (op->self);
  g_free (op->operation);
  g_free (op->target);
  g_free (op);
}

/* ------------------------------------------------------------------ */
/* Devices                                                             */
/* ------------------------------------------------------------------ */

/* The camcore id of a device given as an id or a node (/dev/videoN). */
static gchar *
resolve_device (camcore_manager * m, const char *device)
{
  camcore_device_list *list = NULL;
  if (camcore_manager_list_devices (m, &list) != CAMCORE_OK)
    return NULL;
  gchar *id = NULL;
  for (size_t i = 0; i < list->count && !id; i++)
    if (g_strcmp0 (list->devices[i].id, device) == 0)
      id = g_strdup (list->devices[i].id);
  for (size_t i = 0; i < list->count && !id; i++)
    if (g_strcmp0 (list->devices[i].node, device) == 0
        && !(list->devices[i].flags & CAMCORE_DEVICE_SYNTHETIC))
      id = g_strdup (list->devices[i].id);
  camcore_device_list_free (list);
  return id;
}

static void
drain_queue (GstCamcoreSrc * self)
{
  g_mutex_lock (&self->lock);
  GQueue q = self->queue;
  g_queue_init (&self->queue);
  g_mutex_unlock (&self->lock);
  g_queue_clear_full (&q, (GDestroyNotify) queued_frame_free);
}

/* ------------------------------------------------------------------ */
/* Transmission (PLAYING), pause and hold                              */
/* ------------------------------------------------------------------ */

static void
warn_status (GstCamcoreSrc * self, const char *what, int rc, const char *detail)
{
  GST_ELEMENT_WARNING (self, RESOURCE, FAILED, ("%s: %s", what, camcore_strerror (rc)),
      ("%s", detail && *detail ? detail : camcore_strerror (rc)));
  post_element_message (self, gst_structure_new ("camcore-error",
          "operation", G_TYPE_STRING, what, "status", G_TYPE_INT, rc,
          "message", G_TYPE_STRING, detail && *detail ? detail : camcore_strerror (rc), NULL));
}

/* The camera is off (paused, held, no camera) and no buffer has gone out
 * yet: create() sends a GAP event, so sinks preroll and a pipeline started
 * with the video paused (S10) reaches PLAYING without a frame. */
static void
request_gap (GstCamcoreSrc * self)
{
  g_mutex_lock (&self->lock);
  if (!self->pushed_any) {
    self->need_gap = TRUE;
    g_cond_signal (&self->cond);
  }
  g_mutex_unlock (&self->lock);
}

/* Starts the transmission once the element is PLAYING and the caps are
 * set (so the camera turns on once, with the negotiated setting); ops_lock
 * held. Returns the status and, on failure, camcore's message. */
static int
start_transmission_locked (GstCamcoreSrc * self, gchar ** detail)
{
  if (!self->session || self->transmitting || !self->playing || !self->caps_set)
    return CAMCORE_OK;
  GST_OBJECT_LOCK (self);
  gboolean paused = self->paused, hold = self->hold;
  GST_OBJECT_UNLOCK (self);
  self->discont = TRUE;
  int rc = camcore_session_start_transmission (self->session,
      paused ? CAMCORE_VIDEO_PAUSE : CAMCORE_VIDEO_RESUME, 0);
  if (rc != CAMCORE_OK)
    *detail = g_strdup (camcore_last_error_message ());
  /* The camera's error leaves the transmission started (the next change
   * retries), so the element stays live and waits for a camera. */
  self->transmitting = rc == CAMCORE_OK || rc != CAMCORE_E_INVALID_ARG;
  if (hold && self->transmitting)
    camcore_session_hold (self->session);
  if (paused || hold || rc != CAMCORE_OK)
    request_gap (self);
  GST_INFO_OBJECT (self, "transmission started (%s%s): %s", paused ? "paused" : "resumed",
      hold ? ", held" : "", camcore_strerror (rc));
  return rc;
}

static void
start_transmission (GstCamcoreSrc * self)
{
  gchar *detail = NULL;
  g_mutex_lock (&self->ops_lock);
  self->playing = TRUE;
  int rc = start_transmission_locked (self, &detail);
  g_mutex_unlock (&self->ops_lock);
  if (rc != CAMCORE_OK)
    warn_status (self, "start transmission", rc, detail);
  g_free (detail);
}

static void
stop_transmission (GstCamcoreSrc * self)
{
  g_mutex_lock (&self->ops_lock);
  self->playing = FALSE;
  if (self->session && self->transmitting) {
    camcore_session_end_transmission (self->session);
    self->transmitting = FALSE;
    GST_INFO_OBJECT (self, "transmission ended: camera off");
  }
  g_mutex_unlock (&self->ops_lock);
  drain_queue (self);
}

/* Turns video off (`off` true: pause or hold) or back on through the
 * session call for each (S11, S12); while off no buffer is pushed and a
 * GAP keeps the stream live. off_name/on_name name the calls in a warning. */
static void
apply_off (GstCamcoreSrc * self, gboolean off, int (*off_call) (camcore_session *),
    int (*on_call) (camcore_session *), const gchar * off_name, const gchar * on_name)
{
  g_mutex_lock (&self->ops_lock);
  int rc = CAMCORE_OK;
  gchar *detail = NULL;
  if (self->session && self->transmitting) {
    rc = off ? off_call (self->session) : on_call (self->session);
    if (rc)
      detail = g_strdup (camcore_last_error_message ());
    if (!off)
      self->discont = TRUE;
  }
  g_mutex_unlock (&self->ops_lock);
  if (off) {
    drain_queue (self);
    request_gap (self);
  }
  if (rc != CAMCORE_OK)
    warn_status (self, off ? off_name : on_name, rc, detail);
  g_free (detail);
}

static void
apply_paused (GstCamcoreSrc * self, gboolean paused)
{
  apply_off (self, paused, camcore_session_pause_video, camcore_session_resume_video,
      "pause video", "resume video");
}

static void
apply_hold (GstCamcoreSrc * self, gboolean hold)
{
  apply_off (self, hold, camcore_session_hold, camcore_session_unhold, "hold", "unhold");
}

/* Action signals: queue the switch; its failure comes as a camcore-error
 * element message, its success as camcore-selected. */
static gboolean
do_select (GstCamcoreSrc * self, const gchar * device)
{
  gboolean ok = FALSE;
  g_mutex_lock (&self->ops_lock);
  if (self->session && device) {
    gchar *id = resolve_device (self->manager, device);
    AsyncOp *op = g_new0 (AsyncOp, 1);
    op->self = gst_object_ref (self);
    op->operation = g_strdup ("select");
    op->target = g_strdup (id ? id : device);
    ok = camcore_session_select (self->session, op->target, async_done, op) == CAMCORE_OK;
    if (!ok)
      async_done (op, CAMCORE_E_INVALID_ARG);
    g_free (id);
  }
  g_mutex_unlock (&self->ops_lock);
  return ok;
}

static gboolean
gst_camcore_src_flip (GstCamcoreSrc * self)
{
  gboolean ok = FALSE;
  g_mutex_lock (&self->ops_lock);
  if (self->session) {
    AsyncOp *op = g_new0 (AsyncOp, 1);
    op->self = gst_object_ref (self);
    op->operation = g_strdup ("flip");
    ok = camcore_session_flip (self->session, async_done, op) == CAMCORE_OK;
    if (!ok)
      async_done (op, CAMCORE_E_INVALID_ARG);
  }
  g_mutex_unlock (&self->ops_lock);
  GST_INFO_OBJECT (self, "flip %s", ok ? "queued" : "refused (not started)");
  return ok;
}

static gboolean
gst_camcore_src_select (GstCamcoreSrc * self, const gchar * device)
{
  gboolean ok = do_select (self, device);
  GST_INFO_OBJECT (self, "select %s %s", device, ok ? "queued" : "refused");
  return ok;
}

/* ------------------------------------------------------------------ */
/* GstBaseSrc: start / stop                                            */
/* ------------------------------------------------------------------ */

static gboolean
gst_camcore_src_start (GstBaseSrc * bsrc)
{
  GstCamcoreSrc *self = GST_CAMCORE_SRC (bsrc);
  GST_OBJECT_LOCK (self);
  gchar *device = g_strdup (self->device);
  gint synthetic = self->synthetic;
  GST_OBJECT_UNLOCK (self);

  camcore_manager_config mc;
  camcore_manager_config_init (&mc);
  mc.include_synthetic = synthetic;
  camcore_manager *m = NULL;
  int rc = camcore_manager_new (&mc, &m);
  if (rc != CAMCORE_OK) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("camcore_manager_new: %s", camcore_strerror (rc)),
        ("%s", camcore_last_error_message ()));
    g_free (device);
    return FALSE;
  }
  gchar *id = NULL;
  if (device && *device) {
    id = resolve_device (m, device);
    if (!id) {
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("no camera \"%s\"", device),
          ("camcore lists no camera with that id or node (synthetic=%d)", synthetic));
      camcore_manager_free (m);
      g_free (device);
      return FALSE;
    }
  }
  g_free (device);
  camcore_session_config sc;
  camcore_session_config_init (&sc);
  sc.device_id = id;
  camcore_session *s = NULL;
  rc = camcore_session_new (m, &sc, &s);
  if (rc != CAMCORE_OK) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ, ("camcore_session_new: %s", camcore_strerror (rc)),
        ("%s", camcore_last_error_message ()));
    camcore_manager_free (m);
    g_free (id);
    return FALSE;
  }
  g_free (id);

  camcore_device_callbacks dc;
  memset (&dc, 0, sizeof dc);
  dc.struct_size = sizeof dc;
  dc.user_data = self;
  dc.on_connected = on_connected;
  dc.on_disconnected = on_disconnected;
  dc.on_selected = on_selected;
  dc.on_error = on_device_error;
  dc.on_stall = on_stall;
  dc.on_restart = on_restart;
  camcore_session_set_device_callbacks (s, &dc);
  camcore_frame_callbacks fc;
  camcore_frame_callbacks_init (&fc);
  fc.user_data = self;
  fc.on_frame = on_frame;
  camcore_session_set_transmission_sink (s, &fc);

  camcore_session_state st;
  memset (&st, 0, sizeof st);
  st.struct_size = sizeof st;
  camcore_session_get_state (s, &st);

  g_mutex_lock (&self->ops_lock);
  self->manager = m;
  self->session = s;
  self->transmitting = FALSE;
  self->pref_set = FALSE;
  self->caps_set = FALSE;
  g_mutex_unlock (&self->ops_lock);
  GST_OBJECT_LOCK (self);
  g_free (self->current_device);
  self->current_device = g_strdup (st.device_id);
  self->buffer_count = 4;
  GST_OBJECT_UNLOCK (self);
  self->shared = g_atomic_rc_box_new0 (SharedCount);
  self->caps_fourcc = 0;
  self->caps_width = self->caps_height = 0;
  self->pending_output = 0;
  self->video_meta = FALSE;
  self->last_pts = GST_CLOCK_TIME_NONE;
  self->discont = TRUE;
  g_mutex_lock (&self->lock);
  self->pushed_any = FALSE;
  self->need_gap = FALSE;
  g_mutex_unlock (&self->lock);
  g_atomic_int_set (&self->n_frames, 0);
  g_atomic_int_set (&self->n_zero_copy, 0);
  g_atomic_int_set (&self->n_copied, 0);
  g_atomic_int_set (&self->n_queue_drops, 0);
  g_atomic_int_set (&self->n_camera_drops, 0);
  g_atomic_int_set (&self->n_corrupted, 0);
  g_atomic_int_set (&self->n_stale, 0);
  GST_INFO_OBJECT (self, "session on camera \"%s\" (camera off until PLAYING)", st.device_id);
  return TRUE;
}

static gboolean
gst_camcore_src_stop (GstBaseSrc * bsrc)
{
  GstCamcoreSrc *self = GST_CAMCORE_SRC (bsrc);
  g_mutex_lock (&self->ops_lock);
  camcore_session *s = self->session;
  camcore_manager *m = self->manager;
  self->session = NULL;
  self->manager = NULL;
  self->transmitting = FALSE;
  g_mutex_unlock (&self->ops_lock);
  /* When it returns no callback of the session runs again; frames
   * retained downstream stay valid until released. */
  camcore_session_free (s);
  camcore_manager_free (m);
  drain_queue (self);
  if (self->shared) {
    g_atomic_rc_box_release (self->shared);
    self->shared = NULL;
  }
  GST_OBJECT_LOCK (self);
  g_clear_pointer (&self->caps_device, g_free);
  gst_clear_caps (&self->device_caps);
  GST_OBJECT_UNLOCK (self);
  gst_clear_object (&self->cached_clock);
  return TRUE;
}

static GstStateChangeReturn
gst_camcore_src_change_state (GstElement * element, GstStateChange transition)
{
  GstCamcoreSrc *self = GST_CAMCORE_SRC (element);
  if (transition == GST_STATE_CHANGE_PLAYING_TO_PAUSED)
    stop_transmission (self);
  GstStateChangeReturn ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (ret == GST_STATE_CHANGE_FAILURE)
    return ret;
  if (transition == GST_STATE_CHANGE_PAUSED_TO_PLAYING)
    start_transmission (self);
  return ret;
}

/* ------------------------------------------------------------------ */
/* Caps                                                                */
/* ------------------------------------------------------------------ */

/* The selected camera's id (a copy), or NULL. */
static gchar *
selected_device (GstCamcoreSrc * self)
{
  GST_OBJECT_LOCK (self);
  gchar *id = self->current_device && *self->current_device ? g_strdup (self->current_device) : NULL;
  GST_OBJECT_UNLOCK (self);
  return id;
}

static GstCaps *
gst_camcore_src_get_caps (GstBaseSrc * bsrc, GstCaps * filter)
{
  GstCamcoreSrc *self = GST_CAMCORE_SRC (bsrc);
  GstCaps *caps = NULL;
  gchar *id = selected_device (self);
  g_mutex_lock (&self->ops_lock);
  camcore_manager *m = self->manager;
  if (m && id) {
    GST_OBJECT_LOCK (self);
    if (self->device_caps && g_strcmp0 (self->caps_device, id) == 0)
      caps = gst_caps_ref (self->device_caps);
    GST_OBJECT_UNLOCK (self);
    if (!caps) {
      int rc = 0;
      caps = gst_camcore_caps_for_device (m, id, &rc);
      if (caps) {
        GST_OBJECT_LOCK (self);
        gst_caps_replace (&self->device_caps, caps);
        g_free (self->caps_device);
        self->caps_device = g_strdup (id);
        GST_OBJECT_UNLOCK (self);
        GST_DEBUG_OBJECT (self, "caps of %s: %" GST_PTR_FORMAT, id, caps);
      } else {
        GST_WARNING_OBJECT (self, "formats of %s: %s", id, camcore_strerror (rc));
      }
    }
  }
  g_mutex_unlock (&self->ops_lock);
  g_free (id);
  if (!caps)
    caps = gst_pad_get_pad_template_caps (GST_BASE_SRC_PAD (bsrc));
  if (filter) {
    GstCaps *c = gst_caps_intersect_full (filter, caps, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (caps);
    caps = c;
  }
  return caps;
}

/* Narrows a preference to what a caps structure fixes or limits. */
static void
preference_from_structure (camcore_preference * p, const GstStructure * s)
{
  const char *names[2] = { "width", "height" };
  uint32_t *fields[2] = { &p->width, &p->height };
  for (int i = 0; i < 2; i++) {
    const GValue *v = gst_structure_get_value (s, names[i]);
    if (!v)
      continue;
    if (G_VALUE_HOLDS_INT (v))
      *fields[i] = (uint32_t) g_value_get_int (v);
    else if (GST_VALUE_HOLDS_INT_RANGE (v))
      *fields[i] = CLAMP (*fields[i], (uint32_t) gst_value_get_int_range_min (v),
          (uint32_t) gst_value_get_int_range_max (v));
  }
  const GValue *r = gst_structure_get_value (s, "framerate");
  if (r && GST_VALUE_HOLDS_FRACTION (r) && gst_value_get_fraction_numerator (r) > 0) {
    p->min_fps.numerator = p->max_fps.numerator = gst_value_get_fraction_numerator (r);
    p->min_fps.denominator = p->max_fps.denominator = gst_value_get_fraction_denominator (r);
  } else if (r && GST_VALUE_HOLDS_FRACTION_RANGE (r)) {
    const GValue *lo = gst_value_get_fraction_range_min (r);
    const GValue *hi = gst_value_get_fraction_range_max (r);
    /* Keep 15-30 where the range allows it, else the range's ends. */
    GValue v = G_VALUE_INIT;
    g_value_init (&v, GST_TYPE_FRACTION);
    gst_value_set_fraction (&v, p->max_fps.numerator, p->max_fps.denominator);
    if (gst_value_compare (&v, hi) == GST_VALUE_GREATER_THAN) {
      p->max_fps.numerator = gst_value_get_fraction_numerator (hi);
      p->max_fps.denominator = gst_value_get_fraction_denominator (hi);
    }
    gst_value_set_fraction (&v, p->min_fps.numerator, p->min_fps.denominator);
    if (gst_value_compare (&v, lo) == GST_VALUE_LESS_THAN
        && gst_value_get_fraction_numerator (lo) > 0) {
      p->min_fps.numerator = gst_value_get_fraction_numerator (lo);
      p->min_fps.denominator = gst_value_get_fraction_denominator (lo);
    }
    gst_value_set_fraction (&v, p->min_fps.numerator, p->min_fps.denominator);
    GValue w = G_VALUE_INIT;
    g_value_init (&w, GST_TYPE_FRACTION);
    gst_value_set_fraction (&w, p->max_fps.numerator, p->max_fps.denominator);
    if (gst_value_compare (&v, &w) == GST_VALUE_GREATER_THAN)
      p->min_fps = p->max_fps;
    g_value_unset (&v);
    g_value_unset (&w);
  }
}

static GstCaps *
setting_caps (const camcore_setting * s, GstVideoFormat output)
{
  if (output == GST_VIDEO_FORMAT_UNKNOWN)
    return gst_camcore_caps_for_setting (s->fourcc, 0, s->width, s->height,
        s->fps.numerator, s->fps.denominator);
  return gst_camcore_caps_for_setting (gst_camcore_output_fourcc (output), s->fourcc,
      s->width, s->height, s->fps.numerator, s->fps.denominator);
}

/* Fixed caps of camcore's negotiation that downstream accepts, or NULL. */
static GstCaps *
try_setting (GstCamcoreSrc * self, const char *id, camcore_preference * p,
    GstVideoFormat output, GstCaps * peer)
{
  camcore_setting s;
  memset (&s, 0, sizeof s);
  s.struct_size = sizeof s;
  p->output_fourcc = output == GST_VIDEO_FORMAT_UNKNOWN ? CAMCORE_FOURCC_NATIVE
      : gst_camcore_output_fourcc (output);
  if (camcore_manager_negotiate (self->manager, id, p, &s) != CAMCORE_OK)
    return NULL;
  GstCaps *cand = setting_caps (&s, output);
  if (!cand)
    return NULL;
  GstCaps *res = gst_caps_intersect (cand, peer);
  gst_caps_unref (cand);
  if (gst_caps_is_empty (res)) {
    gst_caps_unref (res);
    return NULL;
  }
  return gst_caps_fixate (res);
}

static gboolean
gst_camcore_src_negotiate (GstBaseSrc * bsrc)
{
  GstCamcoreSrc *self = GST_CAMCORE_SRC (bsrc);
  GstCaps *mine = gst_pad_query_caps (GST_BASE_SRC_PAD (bsrc), NULL);
  GstCaps *peer = gst_pad_peer_query_caps (GST_BASE_SRC_PAD (bsrc), mine);
  gst_caps_unref (mine);
  if (!peer || gst_caps_is_empty (peer)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("downstream takes none of the camera's formats"),
        ("peer caps: %" GST_PTR_FORMAT, peer));
    gst_clear_caps (&peer);
    return FALSE;
  }
  GstCaps *fixed = NULL;
  gchar *id = selected_device (self);
  camcore_preference p;
  camcore_preference_init (&p);
  if (!gst_caps_is_any (peer))
    preference_from_structure (&p, gst_caps_get_structure (peer, 0));
  g_mutex_lock (&self->ops_lock);
  if (self->manager && id && !gst_caps_is_any (peer)) {
    /* 1. The camera's own format (no conversion, no copy). */
    fixed = try_setting (self, id, &p, GST_VIDEO_FORMAT_UNKNOWN, peer);
    /* 2. A format camcore converts into, in downstream's order. */
    for (guint i = 0; !fixed && i < gst_caps_get_size (peer); i++) {
      const GstStructure *s = gst_caps_get_structure (peer, i);
      if (!gst_structure_has_name (s, "video/x-raw"))
        continue;
      const GValue *f = gst_structure_get_value (s, "format");
      guint n = f && GST_VALUE_HOLDS_LIST (f) ? gst_value_list_get_size (f) : 1;
      for (guint k = 0; f && !fixed && k < n; k++) {
        const GValue *v = GST_VALUE_HOLDS_LIST (f) ? gst_value_list_get_value (f, k) : f;
        if (!G_VALUE_HOLDS_STRING (v))
          continue;
        GstVideoFormat vf = gst_video_format_from_string (g_value_get_string (v));
        if (gst_camcore_output_fourcc (vf))
          fixed = try_setting (self, id, &p, vf, peer);
      }
    }
  }
  g_mutex_unlock (&self->ops_lock);
  g_free (id);
  if (!fixed) {
    /* No camera yet, or downstream fixes what negotiation would not pick:
     * the caps nearest to the preference. */
    fixed = gst_caps_truncate (gst_caps_copy (peer));
    fixed = gst_caps_make_writable (fixed);
    GstStructure *s = gst_caps_get_structure (fixed, 0);
    gst_structure_fixate_field_nearest_int (s, "width", (int) p.width);
    gst_structure_fixate_field_nearest_int (s, "height", (int) p.height);
    gst_structure_fixate_field_nearest_fraction (s, "framerate",
        (int) p.max_fps.numerator, (int) p.max_fps.denominator);
    fixed = gst_caps_fixate (fixed);
  }
  gst_caps_unref (peer);
  GST_INFO_OBJECT (self, "negotiated %" GST_PTR_FORMAT, fixed);
  gboolean ok = gst_base_src_set_caps (bsrc, fixed);
  gst_caps_unref (fixed);
  return ok;
}

static void
remember_caps (GstCamcoreSrc * self, const GstStructure * s, uint32_t fourcc)
{
  gint w = 0, h = 0;
  gst_structure_get_int (s, "width", &w);
  gst_structure_get_int (s, "height", &h);
  self->caps_fourcc = fourcc;
  self->caps_width = w;
  self->caps_height = h;
  if (!gst_structure_get_fraction (s, "framerate", &self->fps_n, &self->fps_d)) {
    self->fps_n = 0;
    self->fps_d = 1;
  }
}

/* The set caps become the session's preference: camcore's negotiation on
 * the camera picks exactly them when the camera turns on, and keeps the
 * nearest across flip, select and hot-plug. */
static gboolean
gst_camcore_src_set_caps (GstBaseSrc * bsrc, GstCaps * caps)
{
  GstCamcoreSrc *self = GST_CAMCORE_SRC (bsrc);
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  uint32_t fourcc = gst_camcore_fourcc_from_structure (s);
  self->info_raw = gst_structure_has_name (s, "video/x-raw")
      && gst_video_info_from_caps (&self->info, caps);
  if (self->following) {
    remember_caps (self, s, self->caps_fourcc);
    return TRUE;
  }
  if (!fourcc) {
    GST_ERROR_OBJECT (self, "caps %" GST_PTR_FORMAT " name no format camcore knows", caps);
    return FALSE;
  }
  remember_caps (self, s, fourcc);
  camcore_preference p;
  camcore_preference_init (&p);
  p.width = self->caps_width;
  p.height = self->caps_height;
  if (self->fps_n > 0) {
    p.min_fps.numerator = p.max_fps.numerator = self->fps_n;
    p.min_fps.denominator = p.max_fps.denominator = self->fps_d;
  }
  /* An output format keeps these caps whatever camera the session moves
   * to (camcore converts); the camera's own format costs nothing. */
  GstVideoFormat vf = self->info_raw ? GST_VIDEO_INFO_FORMAT (&self->info) : GST_VIDEO_FORMAT_UNKNOWN;
  p.output_fourcc = gst_camcore_output_fourcc (vf);
  /* Frames come in the camera's FourCC name: I420 may be YM12, NV12 NM12. */
  self->caps_fourcc = p.output_fourcc ? p.output_fourcc : fourcc;
  self->pending_output = 0;
  int rc = CAMCORE_OK;
  g_mutex_lock (&self->ops_lock);
  if (self->session && (!self->pref_set || memcmp (&p, &self->pref, sizeof p) != 0)) {
    Waiter w;
    memset (&w, 0, sizeof w);
    g_mutex_init (&w.lock);
    g_cond_init (&w.cond);
    rc = camcore_session_set_preference (self->session, &p, waiter_done, &w);
    if (rc == CAMCORE_OK)
      rc = waiter_wait (&w);
    else {
      g_mutex_clear (&w.lock);
      g_cond_clear (&w.cond);
    }
    if (rc == CAMCORE_OK) {
      self->pref = p;
      self->pref_set = TRUE;
    }
  }
  self->caps_set = TRUE;
  gchar *detail = NULL;
  int trc = start_transmission_locked (self, &detail);
  g_mutex_unlock (&self->ops_lock);
  if (trc != CAMCORE_OK)
    warn_status (self, "start transmission", trc, detail);
  g_free (detail);
  char fcc[5];
  GST_INFO_OBJECT (self, "caps %" GST_PTR_FORMAT ": preference %ux%u at %u/%u output %s: %s",
      caps, p.width, p.height, p.max_fps.numerator, p.max_fps.denominator,
      p.output_fourcc ? camcore_fourcc_to_string (p.output_fourcc, fcc) : "native",
      camcore_strerror (rc));
  if (rc != CAMCORE_OK)
    warn_status (self, "set preference", rc, NULL);
  return TRUE;
}

static gboolean
gst_camcore_src_decide_allocation (GstBaseSrc * bsrc, GstQuery * query)
{
  GstCamcoreSrc *self = GST_CAMCORE_SRC (bsrc);
  self->video_meta = gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  GST_DEBUG_OBJECT (self, "downstream %s GstVideoMeta", self->video_meta ? "takes" : "does not take");
  return GST_BASE_SRC_CLASS (parent_class)->decide_allocation (bsrc, query);
}

/* A frame in another format or size than the caps (the session moved to
 * another camera, S18/S19/S25, that delivers differently): new caps when
 * downstream takes them, else an output format it takes (camcore converts;
 * frames are dropped until they come converted). TRUE: push the frame. */
static gboolean
follow_frame (GstCamcoreSrc * self, const QueuedFrame * q)
{
  camcore_session_state st;
  memset (&st, 0, sizeof st);
  st.struct_size = sizeof st;
  g_mutex_lock (&self->ops_lock);
  if (self->session)
    camcore_session_get_state (self->session, &st);
  g_mutex_unlock (&self->ops_lock);
  guint fn = st.format.fps.numerator, fd = st.format.fps.denominator;
  GstCaps *caps = gst_camcore_caps_for_setting (q->fourcc, st.format.source_fourcc,
      q->width, q->height, fn, fd);
  GstPad *pad = GST_BASE_SRC_PAD (self);
  char fcc[5];
  camcore_fourcc_to_string (q->fourcc, fcc);
  if (caps && gst_pad_peer_query_accept_caps (pad, caps)) {
    GST_INFO_OBJECT (self, "frames are now %s %ux%u: caps follow: %" GST_PTR_FORMAT,
        fcc, q->width, q->height, caps);
    self->following = TRUE;
    gboolean ok = gst_base_src_set_caps (GST_BASE_SRC (self), caps);
    self->following = FALSE;
    gst_caps_unref (caps);
    if (ok) {
      self->caps_fourcc = q->fourcc;
      self->caps_width = q->width;
      self->caps_height = q->height;
      self->discont = TRUE;
    }
    return ok;
  }
  gst_clear_caps (&caps);
  if (self->pending_output)
    return FALSE;               /* asked already; wait for converted frames */
  static const GstVideoFormat outs[] = { GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_RGBA
  };
  for (gsize i = 0; i < G_N_ELEMENTS (outs); i++) {
    GstCaps *c = gst_camcore_caps_for_setting (gst_camcore_output_fourcc (outs[i]),
        st.format.source_fourcc, q->width, q->height, fn, fd);
    gboolean ok = gst_pad_peer_query_accept_caps (pad, c);
    gst_caps_unref (c);
    if (!ok)
      continue;
    g_mutex_lock (&self->ops_lock);
    if (self->session) {
      camcore_preference p;
      if (self->pref_set)
        p = self->pref;
      else
        camcore_preference_init (&p);
      p.output_fourcc = gst_camcore_output_fourcc (outs[i]);
      self->pending_output = p.output_fourcc;
      if (camcore_session_set_preference (self->session, &p, NULL, NULL) == CAMCORE_OK) {
        self->pref = p;
        self->pref_set = TRUE;
      }
    }
    g_mutex_unlock (&self->ops_lock);
    GST_INFO_OBJECT (self, "downstream refuses %s %ux%u: asking camcore for %s",
        fcc, q->width, q->height, gst_video_format_to_string (outs[i]));
    return FALSE;
  }
  GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("downstream takes no format of the new camera"),
      ("frames are %s %ux%u; dropped", fcc, q->width, q->height));
  self->pending_output = 1;     /* do not ask again for every frame */
  return FALSE;
}

/* ------------------------------------------------------------------ */
/* Streaming                                                           */
/* ------------------------------------------------------------------ */

static GstClockTime
frame_pts (GstCamcoreSrc * self, guint64 timestamp_ns)
{
  GstClock *clock = gst_element_get_clock (GST_ELEMENT (self));
  if (!clock)
    return GST_CLOCK_TIME_NONE;
  if (clock != self->cached_clock) {
    gst_object_replace ((GstObject **) & self->cached_clock, GST_OBJECT (clock));
    GstClockType type = GST_CLOCK_TYPE_REALTIME;
    if (GST_IS_SYSTEM_CLOCK (clock))
      g_object_get (clock, "clock-type", &type, NULL);
    self->clock_is_monotonic = GST_IS_SYSTEM_CLOCK (clock) && type == GST_CLOCK_TYPE_MONOTONIC;
    GST_INFO_OBJECT (self, "clock %" GST_PTR_FORMAT ": %s", clock,
        self->clock_is_monotonic ? "CLOCK_MONOTONIC, frame times used as they are"
        : "other time base, frame times carried over by reading both clocks");
  }
  GstClockTime capture;
  if (self->clock_is_monotonic) {
    capture = timestamp_ns;
  } else {
    GstClockTime now = gst_clock_get_time (clock);
    guint64 mono = monotonic_ns ();
    guint64 age = mono > timestamp_ns ? mono - timestamp_ns : 0;
    capture = now > age ? now - age : 0;
  }
  gst_object_unref (clock);
  GstClockTime base = gst_element_get_base_time (GST_ELEMENT (self));
  if (capture < base)
    return GST_CLOCK_TIME_NONE;
  return capture - base;
}

/* On the streaming thread (create(), stream lock held): the segment and a
 * GAP from now on, before any buffer. basesrc sends its segment again before
 * the first buffer, which changes nothing. */
static void
push_gap (GstCamcoreSrc * self)
{
  GstBaseSrc *bsrc = GST_BASE_SRC (self);
  GstClock *clock = gst_element_get_clock (GST_ELEMENT (self));
  GstClockTime now = GST_CLOCK_TIME_NONE;
  if (clock) {
    GstClockTime t = gst_clock_get_time (clock), base = gst_element_get_base_time (GST_ELEMENT (self));
    now = t > base ? t - base : 0;
    gst_object_unref (clock);
  }
  if (!GST_CLOCK_TIME_IS_VALID (now))
    return;
  GST_OBJECT_LOCK (self);
  GstSegment seg = bsrc->segment;
  GST_OBJECT_UNLOCK (self);
  GST_INFO_OBJECT (self, "camera off before the first frame: GAP from %" GST_TIME_FORMAT,
      GST_TIME_ARGS (now));
  gst_pad_push_event (GST_BASE_SRC_PAD (self), gst_event_new_segment (&seg));
  gst_pad_push_event (GST_BASE_SRC_PAD (self), gst_event_new_gap (now, GST_CLOCK_TIME_NONE));
}

static GstFlowReturn
gst_camcore_src_create (GstPushSrc * psrc, GstBuffer ** out)
{
  GstCamcoreSrc *self = GST_CAMCORE_SRC (psrc);
  for (;;) {
    g_mutex_lock (&self->lock);
    while (g_queue_is_empty (&self->queue) && !self->flushing && !self->need_gap)
      g_cond_wait (&self->cond, &self->lock);
    if (self->flushing) {
      g_mutex_unlock (&self->lock);
      return GST_FLOW_FLUSHING;
    }
    if (g_queue_is_empty (&self->queue)) {
      self->need_gap = FALSE;
      g_mutex_unlock (&self->lock);
      push_gap (self);
      continue;
    }
    QueuedFrame *q = g_queue_pop_head (&self->queue);
    guint queued = g_queue_get_length (&self->queue);
    g_mutex_unlock (&self->lock);

    if (q->fourcc != self->caps_fourcc || q->width != self->caps_width
        || q->height != self->caps_height) {
      if (!follow_frame (self, q)) {
        queued_frame_free (q);
        continue;
      }
    }
    self->pending_output = 0;
    if (q->dropped_before)
      g_atomic_int_add (&self->n_camera_drops, q->dropped_before);
    GstClockTime pts = frame_pts (self, q->timestamp_ns);
    if (pts == GST_CLOCK_TIME_NONE && self->cached_clock) {
      g_atomic_int_add (&self->n_stale, 1);
      queued_frame_free (q);
      continue;
    }
    if (GST_CLOCK_TIME_IS_VALID (self->last_pts) && GST_CLOCK_TIME_IS_VALID (pts)
        && pts <= self->last_pts)
      pts = self->last_pts + 1;

    GstBuffer *buf = NULL;
    if (q->buffer) {
      buf = g_steal_pointer (&q->buffer);
      g_atomic_int_add (&self->n_copied, 1);
    } else {
      /* Zero-copy while the camera keeps buffers to fill: each retained
       * frame holds one of its buffers (S23), so past buffer_count - 2
       * frames alive downstream (or a layout downstream cannot read) the
       * frame is copied and given back at once. */
      GST_OBJECT_LOCK (self);
      guint limit = self->buffer_count > 3 ? self->buffer_count - 2 : 1;
      GST_OBJECT_UNLOCK (self);
      guint held = g_atomic_int_get (&self->shared->in_flight) + queued;
      gboolean layout_ok = self->video_meta || frame_has_default_layout (q->frame);
      if (held < limit && layout_ok)
        buf = wrap_frame (self, q->frame);
      if (buf) {
        q->frame = NULL;        /* the buffer owns the reference now */
        g_atomic_int_add (&self->n_zero_copy, 1);
      } else {
        buf = copy_frame (q->frame);
        g_atomic_int_add (&self->n_copied, 1);
      }
    }
    if (!buf) {
      queued_frame_free (q);
      continue;
    }
    GST_BUFFER_PTS (buf) = pts;
    GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
    GST_BUFFER_DURATION (buf) = self->fps_n > 0
        ? gst_util_uint64_scale_int (GST_SECOND, self->fps_d, self->fps_n) : GST_CLOCK_TIME_NONE;
    guint64 n = (guint) g_atomic_int_add (&self->n_frames, 1);
    GST_BUFFER_OFFSET (buf) = n;
    GST_BUFFER_OFFSET_END (buf) = n + 1;
    if (self->discont || q->dropped_before) {
      GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
      self->discont = FALSE;
    }
    if (GST_CLOCK_TIME_IS_VALID (pts))
      self->last_pts = pts;
    g_mutex_lock (&self->lock);
    self->pushed_any = TRUE;
    self->need_gap = FALSE;
    g_mutex_unlock (&self->lock);
    queued_frame_free (q);
    *out = buf;
    return GST_FLOW_OK;
  }
}

static gboolean
gst_camcore_src_unlock (GstBaseSrc * bsrc)
{
  GstCamcoreSrc *self = GST_CAMCORE_SRC (bsrc);
  g_mutex_lock (&self->lock);
  self->flushing = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static gboolean
gst_camcore_src_unlock_stop (GstBaseSrc * bsrc)
{
  GstCamcoreSrc *self = GST_CAMCORE_SRC (bsrc);
  g_mutex_lock (&self->lock);
  self->flushing = FALSE;
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static gboolean
gst_camcore_src_query (GstBaseSrc * bsrc, GstQuery * query)
{
  GstCamcoreSrc *self = GST_CAMCORE_SRC (bsrc);
  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    if (self->fps_n <= 0) {
      /* No rate known yet: live, no latency of its own to add. */
      gst_query_set_latency (query, TRUE, 0, GST_CLOCK_TIME_NONE);
      return TRUE;
    }
    /* A frame is handed on at the end of its capture interval; the camera
     * holds up to buffer_count of them. */
    GstClockTime frame = gst_util_uint64_scale_int (GST_SECOND, self->fps_d, self->fps_n);
    GST_OBJECT_LOCK (self);
    guint buffers = self->buffer_count ? self->buffer_count : 4;
    GST_OBJECT_UNLOCK (self);
    gst_query_set_latency (query, TRUE, frame, frame * buffers);
    return TRUE;
  }
  return GST_BASE_SRC_CLASS (parent_class)->query (bsrc, query);
}

/* ------------------------------------------------------------------ */
/* Properties                                                          */
/* ------------------------------------------------------------------ */

static void
gst_camcore_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCamcoreSrc *self = GST_CAMCORE_SRC (object);
  switch (prop_id) {
    case PROP_DEVICE:{
      GST_OBJECT_LOCK (self);
      g_free (self->device);
      self->device = g_value_dup_string (value);
      gchar *d = g_strdup (self->device);
      GST_OBJECT_UNLOCK (self);
      /* While running, a new device is a switch (S18). */
      if (d && *d && self->session)
        do_select (self, d);
      g_free (d);
      break;
    }
    case PROP_SYNTHETIC:
      GST_OBJECT_LOCK (self);
      self->synthetic = g_value_get_int (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_PAUSED:{
      gboolean v = g_value_get_boolean (value);
      GST_OBJECT_LOCK (self);
      gboolean changed = v != self->paused;
      self->paused = v;
      GST_OBJECT_UNLOCK (self);
      if (changed)
        apply_paused (self, v);
      break;
    }
    case PROP_HOLD:{
      gboolean v = g_value_get_boolean (value);
      GST_OBJECT_LOCK (self);
      gboolean changed = v != self->hold;
      self->hold = v;
      GST_OBJECT_UNLOCK (self);
      if (changed)
        apply_hold (self, v);
      break;
    }
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_camcore_src_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCamcoreSrc *self = GST_CAMCORE_SRC (object);
  switch (prop_id) {
    case PROP_DEVICE:
      GST_OBJECT_LOCK (self);
      g_value_set_string (value, self->device);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_SYNTHETIC:
      GST_OBJECT_LOCK (self);
      g_value_set_int (value, self->synthetic);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_PAUSED:
      GST_OBJECT_LOCK (self);
      g_value_set_boolean (value, self->paused);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_HOLD:
      GST_OBJECT_LOCK (self);
      g_value_set_boolean (value, self->hold);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_CAMERA_ON:{
      camcore_session_state st;
      memset (&st, 0, sizeof st);
      st.struct_size = sizeof st;
      g_mutex_lock (&self->ops_lock);
      if (self->session)
        camcore_session_get_state (self->session, &st);
      g_mutex_unlock (&self->ops_lock);
      g_value_set_boolean (value, st.camera_on != 0);
      break;
    }
    case PROP_CURRENT_DEVICE:
      GST_OBJECT_LOCK (self);
      g_value_set_string (value, self->current_device);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_SESSION:
      g_value_set_pointer (value, self->session);
      break;
    case PROP_STATS:
      g_value_take_boxed (value, gst_structure_new ("camcoresrc-stats",
              "frames", G_TYPE_UINT64, (guint64) g_atomic_int_get (&self->n_frames),
              "zero-copy", G_TYPE_UINT64, (guint64) g_atomic_int_get (&self->n_zero_copy),
              "copied", G_TYPE_UINT64, (guint64) g_atomic_int_get (&self->n_copied),
              "dropped-queue", G_TYPE_UINT64, (guint64) g_atomic_int_get (&self->n_queue_drops),
              "dropped-camera", G_TYPE_UINT64, (guint64) g_atomic_int_get (&self->n_camera_drops),
              "corrupted", G_TYPE_UINT64, (guint64) g_atomic_int_get (&self->n_corrupted),
              "stale", G_TYPE_UINT64, (guint64) g_atomic_int_get (&self->n_stale), NULL));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_camcore_src_finalize (GObject * object)
{
  GstCamcoreSrc *self = GST_CAMCORE_SRC (object);
  g_free (self->device);
  g_free (self->current_device);
  g_free (self->caps_device);
  gst_clear_caps (&self->device_caps);
  g_mutex_clear (&self->ops_lock);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_camcore_src_init (GstCamcoreSrc * self)
{
  g_mutex_init (&self->ops_lock);
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  g_queue_init (&self->queue);
  self->buffer_count = 4;
  gst_base_src_set_live (GST_BASE_SRC (self), TRUE);
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
}

static void
gst_camcore_src_class_init (GstCamcoreSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *basesrc_class = GST_BASE_SRC_CLASS (klass);
  GstPushSrcClass *pushsrc_class = GST_PUSH_SRC_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_camcore_src_debug, "camcoresrc", 0, "camcore camera source");

  gobject_class->set_property = gst_camcore_src_set_property;
  gobject_class->get_property = gst_camcore_src_get_property;
  gobject_class->finalize = gst_camcore_src_finalize;

  g_object_class_install_property (gobject_class, PROP_DEVICE,
      g_param_spec_string ("device", "Device",
          "The camera: a camcore id (camcore list) or a node (/dev/video0); NULL: the "
          "session's own choice, the first camera that is not infrared. Set while "
          "running, it switches cameras (as select)", NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_SYNTHETIC,
      g_param_spec_int ("synthetic", "Synthetic cameras",
          "List camcore's synthetic cameras (S4): 0 none, 1 \"synthetic:0\", 2 a front "
          "\"synthetic:0\" and a back \"synthetic:1\" (the environment's "
          "CAMCORE_SYNTHETIC_CAMERA counts too: the larger wins)", 0, 2, 0,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_PAUSED,
      g_param_spec_boolean ("paused", "Video paused",
          "Pause the video (S12): no frames and the camera off (device closed) while "
          "the element stays PLAYING and the stream stays live; FALSE turns it back on",
          FALSE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_HOLD,
      g_param_spec_boolean ("hold", "Call held",
          "Hold the call (S11): no frames and the camera off; FALSE restores the state "
          "before the hold (a paused video stays paused)",
          FALSE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_CAMERA_ON,
      g_param_spec_boolean ("camera-on", "Camera on",
          "The session's camera is open and streaming (camcore_session_state.camera_on, S9)",
          FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_CURRENT_DEVICE,
      g_param_spec_string ("current-device", "Current device",
          "The id of the camera the session uses now (after flip, select, hot-plug)",
          NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_SESSION,
      g_param_spec_pointer ("session", "camcore session",
          "The camcore_session * (camcore.h) from READY->PAUSED to PAUSED->READY, NULL "
          "otherwise: for what the element does not wrap (a capture hook, controls, "
          "camcore_session_get_state). Do not free it or set its transmission sink",
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "frames, zero-copy (wrapped camcore frames), copied, dropped-queue (a slow "
          "streaming thread), dropped-camera (the camera's sequence gaps), corrupted, stale",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  /**
   * GstCamcoreSrc::flip:
   * Switches to the camera facing the other way (S19), at the nearest
   * format. Returns TRUE when queued; camcore-selected tells the result,
   * camcore-error a failure (no other camera).
   */
  signals[SIGNAL_FLIP] = g_signal_new_class_handler ("flip", G_TYPE_FROM_CLASS (klass),
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION, G_CALLBACK (gst_camcore_src_flip),
      NULL, NULL, NULL, G_TYPE_BOOLEAN, 0);
  /**
   * GstCamcoreSrc::select:
   * @device: a camcore id or node.
   * Switches to that camera (S18), keeping the negotiated setting. Returns
   * TRUE when queued; camcore-selected or camcore-error tell the result.
   */
  signals[SIGNAL_SELECT] = g_signal_new_class_handler ("select", G_TYPE_FROM_CLASS (klass),
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION, G_CALLBACK (gst_camcore_src_select),
      NULL, NULL, NULL, G_TYPE_BOOLEAN, 1, G_TYPE_STRING);

  gst_element_class_set_static_metadata (element_class, "camcore camera source",
      "Source/Video", "A camcore video session: the camera on exactly while transmitting "
      "(PLAYING and not paused or held), flip, select, hot-plug fallback, zero-copy frames",
      "camcore maintainers");
  GstCaps *caps = gst_camcore_template_caps ();
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  element_class->change_state = GST_DEBUG_FUNCPTR (gst_camcore_src_change_state);
  basesrc_class->start = GST_DEBUG_FUNCPTR (gst_camcore_src_start);
  basesrc_class->stop = GST_DEBUG_FUNCPTR (gst_camcore_src_stop);
  basesrc_class->get_caps = GST_DEBUG_FUNCPTR (gst_camcore_src_get_caps);
  basesrc_class->negotiate = GST_DEBUG_FUNCPTR (gst_camcore_src_negotiate);
  basesrc_class->set_caps = GST_DEBUG_FUNCPTR (gst_camcore_src_set_caps);
  basesrc_class->decide_allocation = GST_DEBUG_FUNCPTR (gst_camcore_src_decide_allocation);
  basesrc_class->unlock = GST_DEBUG_FUNCPTR (gst_camcore_src_unlock);
  basesrc_class->unlock_stop = GST_DEBUG_FUNCPTR (gst_camcore_src_unlock_stop);
  basesrc_class->query = GST_DEBUG_FUNCPTR (gst_camcore_src_query);
  pushsrc_class->create = GST_DEBUG_FUNCPTR (gst_camcore_src_create);
}
