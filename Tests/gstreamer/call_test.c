/* SPDX-License-Identifier: MIT */
/* Tests/gstreamer/call_test.c — a WebRTC call through camcoresrc, in one
 * process, on camcore's two synthetic cameras:
 *
 *   camcoresrc synthetic=2 ! 640x480 ! videoconvert ! vp8enc ! rtpvp8pay ! webrtcbin (send)
 *   webrtcbin (recv) ! rtpvp8depay ! vp8dec ! videoconvert ! RGB ! appsink
 *
 * signalled in the process (examples/gstreamer/webrtc_loopback.c), ICE
 * over 127.0.0.1 through libnice. Checks, printing what was seen on a
 * failure:
 *   1. the call connects and the receiver decodes the colour bars
 *   2. paused=true: the session's camera is off (camcore_session_get_state
 *      camera_on == 0, S9/S12), no frame is sent or received for 1.5 s, the
 *      call stays connected
 *   3. paused=false: frames again (resume -> first frame sent / received)
 *   4. flip: the back camera (synthetic:1) is selected and its frames
 *      arrive: its bars run the other way (black first), so the receiver
 *      must see them reversed, and after a second flip in order again;
 *      select by id likewise, and select of an unknown id gives a
 *      camcore-error element message while the call goes on
 *   5. hold=true / false (S11): camera off, then frames again
 *   6. an element started with paused=true (S10) reaches PLAYING with no
 *      buffer (its GAP event prerolls the sinks) and the camera off; frames
 *      camcore cannot retain (a capture hook's copies, set through the
 *      element's `session`) are copied into buffers
 *   7. camcoredeviceprovider: a GstDeviceMonitor lists both cameras with
 *      id, position, type and caps; gst_device_create_element gives a
 *      camcoresrc for the back camera that streams
 * and prints MEASURED lines. Needs CAMCORE_SYNTHETIC_CAMERA=2 (for the
 * device monitor) and GST_PLUGIN_PATH with libgstcamcore.so. Prints
 * "N passed, M failed" last.
 */
#define GST_USE_UNSTABLE_API
#include <camcore.h>
#include <gst/app/gstappsink.h>
#include <gst/base/gstbasesrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/webrtc/webrtc.h>
#include <stdio.h>
#include <string.h>

#include "webrtc_loopback.h"

#define RING 16384

typedef struct
{
  GMutex lock;
  guint received, sent;
  gint64 recv_us[RING], sent_us[RING];
  GstSample *last;              /* the newest decoded frame */
  GstElement *pipeline, *cam, *send, *recv;
  GString *messages;            /* element, warning and error messages seen */
  gboolean error;
  gchar *selected;              /* device-id of the last camcore-selected */
} Call;

static int passed, failed;

static void
result (gboolean ok, const char *what, const char *seen)
{
  if (ok) {
    passed++;
    g_print ("PASS %s\n", what);
  } else {
    failed++;
    g_print ("FAIL %s\n      seen: %s\n", what, seen ? seen : "");
  }
}

/* ------------------------------------------------------------------ */
/* The colour bars (as Tests/gstreamer/bars.py)                        */
/* ------------------------------------------------------------------ */

static const int BARS_YUV[8][3] = {
  {235, 128, 128}, {210, 16, 146}, {170, 166, 16}, {145, 54, 34},
  {106, 202, 222}, {81, 90, 240}, {41, 240, 110}, {16, 128, 128}
};

static const char *BAR_NAMES[8] =
    { "white", "yellow", "cyan", "green", "magenta", "red", "blue", "black" };

static void
bar_rgb (int i, double rgb[3])
{
  double y = BARS_YUV[i][0] - 16, u = BARS_YUV[i][1] - 128, v = BARS_YUV[i][2] - 128;
  double r = 1.164 * y + 1.596 * v, g = 1.164 * y - 0.392 * u - 0.813 * v,
      b = 1.164 * y + 2.017 * u;
  rgb[0] = CLAMP (r, 0, 255);
  rgb[1] = CLAMP (g, 0, 255);
  rgb[2] = CLAMP (b, 0, 255);
}

/* The bars in an RGB sample: each column's median over the rows, named by
 * the nearest bar colour; >= 90% of the columns near one, all eight, in
 * cyclic order (white, yellow, ... black from the left; the back camera's
 * the other way: black, blue, ... white). */
static gboolean
bars_check (GstSample * sample, gboolean reversed, GString * seen)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  if (!sample || !gst_video_info_from_caps (&info, gst_sample_get_caps (sample))
      || !gst_video_frame_map (&frame, &info, gst_sample_get_buffer (sample), GST_MAP_READ)) {
    g_string_append (seen, "no frame");
    return FALSE;
  }
  int w = GST_VIDEO_INFO_WIDTH (&info), h = GST_VIDEO_INFO_HEIGHT (&info);
  const guint8 *px = GST_VIDEO_FRAME_PLANE_DATA (&frame, 0);
  int stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
  double exp[8][3];
  for (int i = 0; i < 8; i++)
    bar_rgb (i, exp[i]);
  int *label = g_new0 (int, w);
  int near = 0;
  double (*med)[3] = g_malloc0_n (w, sizeof *med);
  for (int x = 0; x < w; x++) {
    for (int c = 0; c < 3; c++) {
      guint hist[256] = { 0 };
      for (int y = 0; y < h; y++)
        hist[px[y * stride + x * 3 + c]]++;
      guint acc = 0;
      int m = 0;
      for (; m < 256; m++)
        if ((acc += hist[m]) * 2 >= (guint) h)
          break;
      med[x][c] = m;
    }
    double best = 1e9;
    for (int i = 0; i < 8; i++) {
      double d = 0;
      for (int c = 0; c < 3; c++)
        d += (med[x][c] - exp[i][c]) * (med[x][c] - exp[i][c]);
      if (d < best) {
        best = d;
        label[x] = i;
      }
    }
    if (best <= 48.0 * 48.0)
      near++;
  }
  gst_video_frame_unmap (&frame);
  int seq[64], nseq = 0, present = 0;
  g_string_append_printf (seen, "%dx%d, %d%% of columns near a bar colour, bars:", w, h,
      near * 100 / w);
  for (int x = 0; x < w;) {
    int e = x;
    while (e < w && label[e] == label[x])
      e++;
    if (e - x >= MAX (2, w / 32) && nseq < 64) {
      seq[nseq++] = label[x];
      present |= 1 << label[x];
      int mid = (x + e) / 2;
      g_string_append_printf (seen, " %s(%dpx %d,%d,%d)", BAR_NAMES[label[x]], e - x,
          (int) med[mid][0], (int) med[mid][1], (int) med[mid][2]);
    }
    x = e;
  }
  gboolean ordered = TRUE;
  for (int i = 1; i < nseq; i++)
    if ((seq[i] - seq[i - 1] + 8) % 8 != (reversed ? 7 : 1))
      ordered = FALSE;
  g_free (label);
  g_free (med);
  return near * 10 >= w * 9 && present == 0xff && ordered;
}

/* ------------------------------------------------------------------ */
/* The call                                                            */
/* ------------------------------------------------------------------ */

static GstFlowReturn
on_sample (GstAppSink * sink, gpointer data)
{
  Call *c = data;
  GstSample *s = gst_app_sink_pull_sample (sink);
  if (!s)
    return GST_FLOW_OK;
  g_mutex_lock (&c->lock);
  c->recv_us[c->received % RING] = g_get_monotonic_time ();
  c->received++;
  if (c->last)
    gst_sample_unref (c->last);
  c->last = s;
  g_mutex_unlock (&c->lock);
  return GST_FLOW_OK;
}

static GstPadProbeReturn
on_sent (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Call *c = data;
  g_mutex_lock (&c->lock);
  c->sent_us[c->sent % RING] = g_get_monotonic_time ();
  c->sent++;
  g_mutex_unlock (&c->lock);
  return GST_PAD_PROBE_OK;
}

static void
on_receiver_pad (GstElement * recv, GstPad * pad, gpointer data)
{
  Call *c = data;
  GError *err = NULL;
  GstElement *bin = gst_parse_bin_from_description ("rtpvp8depay ! vp8dec ! videoconvert ! "
      "video/x-raw,format=RGB ! appsink name=sink sync=false max-buffers=2 drop=true", TRUE, &err);
  if (!bin) {
    g_printerr ("receiver branch: %s\n", err->message);
    g_error_free (err);
    return;
  }
  GstElement *sink = gst_bin_get_by_name (GST_BIN (bin), "sink");
  GstAppSinkCallbacks cb = { 0 };
  cb.new_sample = on_sample;
  gst_app_sink_set_callbacks (GST_APP_SINK (sink), &cb, c, NULL);
  gst_object_unref (sink);
  gst_bin_add (GST_BIN (c->pipeline), bin);
  gst_element_sync_state_with_parent (bin);
  GstPad *sinkpad = gst_element_get_static_pad (bin, "sink");
  if (gst_pad_link (pad, sinkpad) != GST_PAD_LINK_OK)
    g_printerr ("cannot link the receiver's pad\n");
  gst_object_unref (sinkpad);
}

static void
pump_bus (Call * c)
{
  GstBus *bus = gst_element_get_bus (c->pipeline);
  GstMessage *m;
  while ((m = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR || GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING) {
      GError *e = NULL;
      gchar *dbg = NULL;
      if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
        gst_message_parse_error (m, &e, &dbg);
        c->error = TRUE;
      } else {
        gst_message_parse_warning (m, &e, &dbg);
      }
      g_string_append_printf (c->messages, "[%s from %s: %s (%s)] ",
          GST_MESSAGE_TYPE_NAME (m), GST_MESSAGE_SRC_NAME (m), e->message, dbg ? dbg : "");
      g_printerr ("%s from %s: %s (%s)\n", GST_MESSAGE_TYPE_NAME (m), GST_MESSAGE_SRC_NAME (m),
          e->message, dbg ? dbg : "");
      g_error_free (e);
      g_free (dbg);
    } else if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT
        && GST_MESSAGE_SRC (m) == GST_OBJECT (c->cam)) {
      const GstStructure *s = gst_message_get_structure (m);
      gchar *str = gst_structure_to_string (s);
      g_string_append_printf (c->messages, "[%s] ", str);
      g_free (str);
      if (gst_structure_has_name (s, "camcore-selected")) {
        g_free (c->selected);
        c->selected = g_strdup (gst_structure_get_string (s, "device-id"));
      }
    }
    gst_message_unref (m);
  }
  gst_object_unref (bus);
}

typedef gboolean (*CondFn) (Call * c, gpointer data);

/* Polls cond (and the bus) every millisecond for at most timeout_ms. */
static gboolean
wait_for (Call * c, CondFn cond, gpointer data, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  for (;;) {
    pump_bus (c);
    if (cond (c, data))
      return TRUE;
    if (c->error || g_get_monotonic_time () > deadline)
      return FALSE;
    g_usleep (1000);
  }
}

static guint
received (Call * c)
{
  g_mutex_lock (&c->lock);
  guint n = c->received;
  g_mutex_unlock (&c->lock);
  return n;
}

static guint
sent (Call * c)
{
  g_mutex_lock (&c->lock);
  guint n = c->sent;
  g_mutex_unlock (&c->lock);
  return n;
}

static gboolean
received_more_than (Call * c, gpointer n)
{
  return received (c) > GPOINTER_TO_UINT (n);
}

static gboolean
sent_more_than (Call * c, gpointer n)
{
  return sent (c) > GPOINTER_TO_UINT (n);
}

static gboolean
connected (Call * c, gpointer data)
{
  GstWebRTCPeerConnectionState a, b;
  g_object_get (c->send, "connection-state", &a, NULL);
  g_object_get (c->recv, "connection-state", &b, NULL);
  return a == GST_WEBRTC_PEER_CONNECTION_STATE_CONNECTED
      && b == GST_WEBRTC_PEER_CONNECTION_STATE_CONNECTED;
}

static gboolean
camera_off (Call * c, gpointer data)
{
  camcore_session *s = NULL;
  g_object_get (c->cam, "session", &s, NULL);
  camcore_session_state st;
  memset (&st, 0, sizeof st);
  st.struct_size = sizeof st;
  return s && camcore_session_get_state (s, &st) == CAMCORE_OK && st.camera_on == 0;
}

static gboolean
message_seen (Call * c, gpointer text)
{
  return strstr (c->messages->str, text) != NULL;
}

static gboolean
selected_is (Call * c, gpointer id)
{
  return c->selected && strcmp (c->selected, id) == 0;
}

static GstSample *
last_sample (Call * c)
{
  g_mutex_lock (&c->lock);
  GstSample *s = c->last ? gst_sample_ref (c->last) : NULL;
  g_mutex_unlock (&c->lock);
  return s;
}

/* The first new frame (after `after` frames) that shows the bars. */
typedef struct
{
  guint after;
  gboolean reversed;
  guint checked;
  gint64 at_us;
  GString *seen;
} BarsWait;

/* Writes an RGB sample as a PPM into $CALL_TEST_DUMP (for a failure). */
static void
dump_sample (GstSample * s, const char *name)
{
  const char *dir = g_getenv ("CALL_TEST_DUMP");
  GstVideoInfo info;
  GstVideoFrame f;
  if (!dir || !s || !gst_video_info_from_caps (&info, gst_sample_get_caps (s))
      || !gst_video_frame_map (&f, &info, gst_sample_get_buffer (s), GST_MAP_READ))
    return;
  gchar *path = g_strdup_printf ("%s/%s.ppm", dir, name);
  FILE *fp = fopen (path, "wb");
  if (fp) {
    fprintf (fp, "P6\n%d %d\n255\n", GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info));
    for (int y = 0; y < GST_VIDEO_INFO_HEIGHT (&info); y++)
      fwrite ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0),
          1, GST_VIDEO_INFO_WIDTH (&info) * 3, fp);
    fclose (fp);
    g_print ("      (frame written to %s)\n", path);
  }
  g_free (path);
  gst_video_frame_unmap (&f);
}

static gboolean
bars_arrived (Call * c, gpointer data)
{
  BarsWait *b = data;
  guint n = received (c);
  if (n <= b->after || n == b->checked)
    return FALSE;
  b->checked = n;
  GstSample *s = last_sample (c);
  g_string_truncate (b->seen, 0);
  gboolean ok = bars_check (s, b->reversed, b->seen);
  if (!ok) {
    static int dumps;
    gchar *name = g_strdup_printf ("frame-%d-%s", dumps++, b->reversed ? "back" : "front");
    if (dumps < 20)
      dump_sample (s, name);
    g_free (name);
  }
  if (s)
    gst_sample_unref (s);
  if (ok)
    b->at_us = g_get_monotonic_time ();
  return ok;
}

static double
ms_since (gint64 t0, gint64 t1)
{
  return (t1 - t0) / 1000.0;
}

static GString *
describe (Call * c)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "sent %u, received %u, selected %s; messages: %s",
      sent (c), received (c), c->selected ? c->selected : "-", c->messages->str);
  return s;
}

static void
run_call (void)
{
  Call c;
  memset (&c, 0, sizeof c);
  g_mutex_init (&c.lock);
  c.messages = g_string_new (NULL);
  GError *err = NULL;
  c.pipeline = gst_parse_launch ("camcoresrc name=cam synthetic=2 ! "
      "video/x-raw,width=640,height=480,framerate=30/1 ! videoconvert ! queue ! "
      "vp8enc deadline=1 cpu-used=8 keyframe-max-dist=30 target-bitrate=2000000 ! "
      "rtpvp8pay pt=96 ! application/x-rtp,media=video,encoding-name=VP8,payload=96,clock-rate=90000 ! "
      "webrtcbin name=send bundle-policy=max-bundle "
      "webrtcbin name=recv bundle-policy=max-bundle latency=50", &err);
  if (!c.pipeline) {
    result (FALSE, "the call's pipeline builds", err->message);
    g_error_free (err);
    return;
  }
  c.cam = gst_bin_get_by_name (GST_BIN (c.pipeline), "cam");
  c.send = gst_bin_get_by_name (GST_BIN (c.pipeline), "send");
  c.recv = gst_bin_get_by_name (GST_BIN (c.pipeline), "recv");
  GstPad *campad = gst_element_get_static_pad (c.cam, "src");
  gst_pad_add_probe (campad, GST_PAD_PROBE_TYPE_BUFFER, on_sent, &c, NULL);
  gst_object_unref (campad);
  gchar *why = NULL;
  gboolean ok = webrtc_loopback_connect (c.send, c.recv, "127.0.0.1", on_receiver_pad, &c, &why);
  result (ok, "ICE restricted to 127.0.0.1 (GstWebRTCNice add-local-ip-address)", why);
  g_free (why);

  /* 1. The call connects; the bars arrive. */
  gint64 t_play = g_get_monotonic_time ();
  gst_element_set_state (c.pipeline, GST_STATE_PLAYING);
  ok = wait_for (&c, connected, NULL, 20000);
  gint64 t_conn = g_get_monotonic_time ();
  GString *d = describe (&c);
  result (ok, "the call connects (both webrtcbins CONNECTED)", d->str);
  g_string_free (d, TRUE);
  ok = ok && wait_for (&c, received_more_than, GUINT_TO_POINTER (0), 15000);
  gint64 t_first = ok ? c.recv_us[0] : 0;
  BarsWait bw = { 15, FALSE, 0, 0, g_string_new (NULL) };
  ok = ok && wait_for (&c, bars_arrived, &bw, 15000);
  d = describe (&c);
  g_string_prepend (d, bw.seen->str), g_string_prepend (d, "last frame: ");
  result (ok, "the receiver decodes the colour bars (VP8 over webrtcbin, 15+ frames)", d->str);
  g_string_free (d, TRUE);
  camcore_session *session = NULL;
  g_object_get (c.cam, "session", &session, NULL);
  g_print ("MEASURED call setup: connected %.1f ms after PLAYING, first frame received %.1f ms after PLAYING\n",
      ms_since (t_play, t_conn), t_first ? ms_since (t_play, t_first) : -1.0);

  /* The steady call: 90 more frames (3 s at 30 fps). */
  guint r0 = received (&c), s0 = sent (&c);
  gint64 ts0 = g_get_monotonic_time ();
  ok = wait_for (&c, received_more_than, GUINT_TO_POINTER (r0 + 89), 10000);
  double secs = ms_since (ts0, g_get_monotonic_time ()) / 1000.0;
  double fps = (received (&c) - r0) / secs;
  bw.after = received (&c);
  bw.checked = 0;
  ok = ok && wait_for (&c, bars_arrived, &bw, 5000);
  d = describe (&c);
  g_string_prepend (d, bw.seen->str);
  result (ok && fps > 20, "the steady call: 90 frames at the camera's rate (30 fps), still the bars", d->str);
  g_string_free (d, TRUE);
  g_print ("MEASURED steady call: %u frames sent, %u received in %.2f s (%.1f fps received)\n",
      sent (&c) - s0, received (&c) - r0, secs, fps);

  result (session != NULL, "the `session` property gives the element's camcore_session", NULL);

  /* 2. Pause: camera off, nothing sent or received, the call stays up. */
  guint n_sent = sent (&c), n_recv0 = received (&c);
  gint64 t0 = g_get_monotonic_time ();
  g_object_set (c.cam, "paused", TRUE, NULL);
  gint64 t_set = g_get_monotonic_time ();
  ok = wait_for (&c, camera_off, NULL, 5000);
  gint64 t_off = g_get_monotonic_time ();
  gboolean cam_prop = TRUE;
  g_object_get (c.cam, "camera-on", &cam_prop, NULL);
  d = describe (&c);
  result (ok && !cam_prop, "paused=true: camcore_session_get_state camera_on == 0 (and camera-on FALSE)", d->str);
  g_string_free (d, TRUE);
  guint sent_at_pause = sent (&c);
  /* Frames already on the way (encoder, network, jitter buffer) land in the
   * first 500 ms; from then on nothing may arrive. */
  gint64 end = t_off + 1500 * 1000;
  guint recv_mid = 0;
  gboolean quiet = TRUE;
  while (g_get_monotonic_time () < end) {
    pump_bus (&c);
    if (!recv_mid && g_get_monotonic_time () > t_off + 500 * 1000)
      recv_mid = received (&c);
    if (sent (&c) > sent_at_pause + 1 || (recv_mid && received (&c) != recv_mid))
      quiet = FALSE;
    g_usleep (1000);
  }
  guint sent_paused = sent (&c) - n_sent, recv_paused = received (&c) - n_recv0;
  gboolean still = connected (&c, NULL);
  d = describe (&c);
  gchar *pre = g_strdup_printf ("sent after the pause returned: %u, received after +500 ms: %u; ",
      sent (&c) - sent_at_pause, recv_mid ? received (&c) - recv_mid : 0);
  g_string_prepend (d, pre);
  g_free (pre);
  result (quiet && !c.error, "paused: no frame sent or received for 1.5 s", d->str);
  g_string_free (d, TRUE);
  result (still, "paused: the call stays connected", NULL);
  g_print ("MEASURED pause: paused=true returned in %.1f ms, camera off (camera_on == 0) %.1f ms after it; "
      "frames while paused: %u sent (in flight at the pause), %u received\n",
      ms_since (t0, t_set), ms_since (t0, t_off), sent_paused, recv_paused);

  /* 3. Resume: frames again. */
  n_sent = sent (&c);
  guint n_recv = received (&c);
  t0 = g_get_monotonic_time ();
  g_object_set (c.cam, "paused", FALSE, NULL);
  t_set = g_get_monotonic_time ();
  ok = wait_for (&c, sent_more_than, GUINT_TO_POINTER (n_sent), 5000);
  ok = wait_for (&c, received_more_than, GUINT_TO_POINTER (n_recv), 5000) && ok;
  gint64 t_sent = sent (&c) > n_sent ? c.sent_us[n_sent % RING] : 0;
  gint64 t_recv = received (&c) > n_recv ? c.recv_us[n_recv % RING] : 0;
  bw.after = received (&c);
  bw.checked = 0;
  ok = ok && wait_for (&c, bars_arrived, &bw, 10000);
  d = describe (&c);
  g_string_prepend (d, bw.seen->str);
  result (ok, "paused=false: frames again, with the bars", d->str);
  g_string_free (d, TRUE);
  g_print ("MEASURED resume: paused=false returned in %.1f ms; first frame sent %.1f ms, first frame received %.1f ms after it\n",
      ms_since (t0, t_set), t_sent ? ms_since (t0, t_sent) : -1.0, t_recv ? ms_since (t0, t_recv) : -1.0);

  /* 4. Flip to the back camera and back. */
  for (int back = 1; back >= 0; back--) {
    const char *want = back ? "synthetic:1" : "synthetic:0";
    n_recv = received (&c);
    gboolean queued = FALSE;
    g_free (c.selected);
    c.selected = NULL;
    t0 = g_get_monotonic_time ();
    g_signal_emit_by_name (c.cam, "flip", &queued);
    ok = queued && wait_for (&c, selected_is, (gpointer) want, 5000);
    gint64 t_sel = g_get_monotonic_time ();
    bw.after = n_recv;
    bw.checked = 0;
    bw.reversed = back;
    bw.at_us = 0;
    ok = ok && wait_for (&c, bars_arrived, &bw, 10000);
    gint64 t_bars = bw.at_us;
    /* And still that camera's bars 30 frames later. */
    bw.after = received (&c) + 30;
    bw.checked = 0;
    ok = ok && wait_for (&c, bars_arrived, &bw, 10000);
    bw.at_us = t_bars;
    gchar *cur = NULL;
    g_object_get (c.cam, "current-device", &cur, NULL);
    d = describe (&c);
    g_string_prepend (d, bw.seen->str);
    gchar *what = g_strdup_printf ("flip: %s selected, current-device %s, the receiver sees its bars %s (and 30 frames on)",
        want, want, back ? "reversed (black first)" : "in order (white first)");
    result (ok && g_strcmp0 (cur, want) == 0, what, d->str);
    g_free (what);
    g_free (cur);
    g_string_free (d, TRUE);
    g_print ("MEASURED flip to %s: selected %.1f ms after flip, its first recognised frame received %.1f ms after flip\n",
        want, ms_since (t0, t_sel), bw.at_us ? ms_since (t0, bw.at_us) : -1.0);
  }
  /* 4b. select by id, and an unknown id: an element message, no error. */
  n_recv = received (&c);
  gboolean queued = FALSE;
  t0 = g_get_monotonic_time ();
  g_signal_emit_by_name (c.cam, "select", "synthetic:1", &queued);
  ok = queued && wait_for (&c, selected_is, (gpointer) "synthetic:1", 5000);
  bw.after = n_recv;
  bw.checked = 0;
  bw.reversed = TRUE;
  ok = ok && wait_for (&c, bars_arrived, &bw, 10000);
  d = describe (&c);
  g_string_prepend (d, bw.seen->str);
  result (ok, "select synthetic:1: selected, its reversed bars arrive", d->str);
  g_string_free (d, TRUE);
  g_print ("MEASURED select synthetic:1: its first recognised frame received %.1f ms after select\n",
      bw.at_us ? ms_since (t0, bw.at_us) : -1.0);
  g_string_truncate (c.messages, 0);
  g_signal_emit_by_name (c.cam, "select", "no-such-camera", &queued);
  ok = wait_for (&c, message_seen, (gpointer) "camcore-error, operation=(string)select", 5000);
  n_recv = received (&c);
  ok = ok && wait_for (&c, received_more_than, GUINT_TO_POINTER (n_recv + 5), 5000);
  d = describe (&c);
  result (ok && !c.error && g_strcmp0 (c.selected, "synthetic:1") == 0,
      "select of an unknown camera: a camcore-error element message, the call goes on", d->str);
  g_string_free (d, TRUE);
  g_signal_emit_by_name (c.cam, "select", "synthetic:0", &queued);
  wait_for (&c, selected_is, (gpointer) "synthetic:0", 5000);

  /* 5. Hold and unhold (S11). */
  t0 = g_get_monotonic_time ();
  g_object_set (c.cam, "hold", TRUE, NULL);
  ok = wait_for (&c, camera_off, NULL, 5000);
  gint64 t_hold = g_get_monotonic_time ();
  n_recv = received (&c);
  n_sent = sent (&c);
  gint64 t_unhold = g_get_monotonic_time ();
  g_object_set (c.cam, "hold", FALSE, NULL);
  ok = ok && wait_for (&c, received_more_than, GUINT_TO_POINTER (n_recv + 5), 5000);
  d = describe (&c);
  result (ok, "hold=true: camera off; hold=false: frames again", d->str);
  g_string_free (d, TRUE);
  g_print ("MEASURED hold: camera off %.1f ms after hold=true; first frame received %.1f ms after hold=false\n",
      ms_since (t0, t_hold), received (&c) > n_recv ? ms_since (t_unhold, c.recv_us[n_recv % RING]) : -1.0);
  (void) n_sent;

  GstStructure *stats = NULL;
  g_object_get (c.cam, "stats", &stats, NULL);
  gchar *st = stats ? gst_structure_to_string (stats) : g_strdup ("?");
  guint64 zc = 0;
  if (stats)
    gst_structure_get_uint64 (stats, "zero-copy", &zc);
  result (zc > 0, "camcoresrc hands on wrapped camcore frames (stats zero-copy > 0)", st);
  g_print ("MEASURED frames: sent %u, received %u in the call; camcoresrc %s\n", sent (&c), received (&c), st);
  g_free (st);
  if (stats)
    gst_structure_free (stats);
  pump_bus (&c);
  result (!c.error, "no pipeline error during the call", c.messages->str);

  gst_element_set_state (c.pipeline, GST_STATE_NULL);
  if (c.last)
    gst_sample_unref (c.last);
  g_string_free (bw.seen, TRUE);
  g_free (c.selected);
  g_string_free (c.messages, TRUE);
  gst_object_unref (c.cam);
  gst_object_unref (c.send);
  gst_object_unref (c.recv);
  gst_object_unref (c.pipeline);
}

/* ------------------------------------------------------------------ */
/* Started paused (S10)                                                */
/* ------------------------------------------------------------------ */

/* PLAYING with paused=true: the stream is live, no buffer comes and the
 * camera stays off; paused=false brings frames. */
static void
run_started_paused (void)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch ("camcoresrc name=cam synthetic=1 paused=true ! "
      "appsink name=sink sync=false", &err);
  if (!pipe) {
    result (FALSE, "the paused pipeline builds", err->message);
    g_error_free (err);
    return;
  }
  GstElement *cam = gst_bin_get_by_name (GST_BIN (pipe), "cam");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstStateChangeReturn r = gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstState state = GST_STATE_NULL;
  gst_element_get_state (pipe, &state, NULL, 5 * GST_SECOND);
  GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), GST_SECOND / 2);
  gboolean on = TRUE;
  g_object_get (cam, "camera-on", &on, NULL);
  gchar *seen = g_strdup_printf ("set_state %s, state %s, sample after 0.5 s: %s, camera-on %d",
      gst_element_state_change_return_get_name (r), gst_element_state_get_name (state),
      s ? "yes" : "no", on);
  result (r != GST_STATE_CHANGE_FAILURE && state == GST_STATE_PLAYING
      && gst_base_src_is_live (GST_BASE_SRC (cam)) && !s && !on,
      "started with paused=true: live, PLAYING (a GAP prerolled the sink), no buffer, camera off", seen);
  g_free (seen);
  if (s)
    gst_sample_unref (s);
  gint64 t0 = g_get_monotonic_time ();
  g_object_set (cam, "paused", FALSE, NULL);
  s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 5 * GST_SECOND);
  gint64 t1 = g_get_monotonic_time ();
  g_object_get (cam, "camera-on", &on, NULL);
  result (s && on, "then paused=false: camera on, frames", NULL);
  g_print ("MEASURED started paused: first frame %.1f ms after paused=false\n", ms_since (t0, t1));
  if (s)
    gst_sample_unref (s);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (cam);
  gst_object_unref (sink);
  gst_object_unref (pipe);
}

/* ------------------------------------------------------------------ */
/* Frames camcore cannot retain: copied                                */
/* ------------------------------------------------------------------ */

/* A capture hook (set through the element's `session`) that hands on a
 * copy of each one-plane frame: memory of the app's, which camcore cannot
 * retain, so camcoresrc must copy it. */
typedef struct
{
  guint8 *buf;
  size_t size;
  gint replaced;
} CopyHook;

static int
copy_hook (void *user_data, const camcore_frame * f, camcore_frame * rep)
{
  CopyHook *h = user_data;
  if (f->plane_count != 1)
    return CAMCORE_HOOK_PASS;
  if (f->planes[0].length > h->size) {
    g_free (h->buf);
    h->buf = g_malloc (f->planes[0].length);
    h->size = f->planes[0].length;
  }
  memcpy (h->buf, f->planes[0].data, f->planes[0].length);
  *rep = *f;
  rep->planes[0].data = h->buf;
  g_atomic_int_inc (&h->replaced);
  return CAMCORE_HOOK_REPLACE;
}

static void
run_copied_frames (void)
{
  GstElement *pipe = gst_parse_launch ("camcoresrc name=cam synthetic=1 ! "
      "video/x-raw,format=RGB,width=320,height=240 ! appsink name=sink sync=false", NULL);
  GstElement *cam = gst_bin_get_by_name (GST_BIN (pipe), "cam");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  gst_element_set_state (pipe, GST_STATE_PAUSED);
  gst_element_get_state (pipe, NULL, NULL, 5 * GST_SECOND);
  camcore_session *session = NULL;
  g_object_get (cam, "session", &session, NULL);
  CopyHook h = { NULL, 0, 0 };
  camcore_capture_hook hook = { sizeof hook, &h, copy_hook };
  gboolean ok = session && camcore_session_set_capture_hook (session, &hook) == CAMCORE_OK;
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstSample *last = NULL;
  for (int i = 0; ok && i < 5; i++) {
    GstSample *smp = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 5 * GST_SECOND);
    if (last)
      gst_sample_unref (last);
    last = smp;
    ok = smp != NULL;
  }
  GString *seen = g_string_new (NULL);
  ok = ok && bars_check (last, FALSE, seen);
  GstStructure *stats = NULL;
  g_object_get (cam, "stats", &stats, NULL);
  guint64 copied = 0, zero = 0;
  gst_structure_get_uint64 (stats, "copied", &copied);
  gst_structure_get_uint64 (stats, "zero-copy", &zero);
  g_string_append_printf (seen, "; hook replaced %d, stats copied %" G_GUINT64_FORMAT
      " zero-copy %" G_GUINT64_FORMAT, g_atomic_int_get (&h.replaced), copied, zero);
  result (ok && copied >= 5 && zero == 0,
      "frames camcore does not own (a capture hook's copies) are copied into buffers, bars intact", seen->str);
  g_string_free (seen, TRUE);
  gst_structure_free (stats);
  if (last)
    gst_sample_unref (last);
  gst_element_set_state (pipe, GST_STATE_NULL);
  g_free (h.buf);
  gst_object_unref (cam);
  gst_object_unref (sink);
  gst_object_unref (pipe);
}

/* ------------------------------------------------------------------ */
/* The device provider                                                 */
/* ------------------------------------------------------------------ */

static void
run_device_monitor (void)
{
  GstDeviceMonitor *mon = gst_device_monitor_new ();
  gst_device_monitor_add_filter (mon, "Video/Source", NULL);
  gboolean started = gst_device_monitor_start (mon);
  result (started, "a GstDeviceMonitor for Video/Source starts", NULL);
  GList *devices = gst_device_monitor_get_devices (mon);
  GString *seen = g_string_new (NULL);
  GstDevice *back = NULL;
  gboolean front_ok = FALSE, back_ok = FALSE;
  for (GList * l = devices; l; l = l->next) {
    GstDevice *dev = l->data;
    GstStructure *p = gst_device_get_properties (dev);
    GstCaps *caps = gst_device_get_caps (dev);
    gchar *name = gst_device_get_display_name (dev);
    const char *api = p ? gst_structure_get_string (p, "device.api") : NULL;
    const char *id = p ? gst_structure_get_string (p, "camcore.id") : NULL;
    const char *pos = p ? gst_structure_get_string (p, "camcore.position") : NULL;
    const char *type = p ? gst_structure_get_string (p, "camcore.type") : NULL;
    g_string_append_printf (seen, "[%s: api %s id %s position %s type %s, %u caps structures] ",
        name, api ? api : "-", id ? id : "-", pos ? pos : "-", type ? type : "-",
        caps ? gst_caps_get_size (caps) : 0);
    gboolean good = g_strcmp0 (api, "camcore") == 0 && caps && gst_caps_get_size (caps) > 0
        && g_strcmp0 (type, "virtual") == 0;
    if (good && g_strcmp0 (id, "synthetic:0") == 0 && g_strcmp0 (pos, "front") == 0)
      front_ok = TRUE;
    if (good && g_strcmp0 (id, "synthetic:1") == 0 && g_strcmp0 (pos, "back") == 0) {
      back_ok = TRUE;
      back = gst_object_ref (dev);
    }
    g_free (name);
    if (caps)
      gst_caps_unref (caps);
    if (p)
      gst_structure_free (p);
  }
  g_list_free_full (devices, gst_object_unref);
  result (front_ok && back_ok, "the device monitor lists synthetic:0 (front) and synthetic:1 (back) "
      "with camcore.id, position, type and caps", seen->str);
  g_print ("MEASURED device monitor: %s\n", seen->str);
  g_string_free (seen, TRUE);
  gst_device_monitor_stop (mon);
  gst_object_unref (mon);
  if (!back)
    return;

  GstElement *src = gst_device_create_element (back, "devsrc");
  gchar *dev = NULL;
  if (src)
    g_object_get (src, "device", &dev, NULL);
  result (src && g_strcmp0 (G_OBJECT_TYPE_NAME (src), "GstCamcoreSrc") == 0
      && g_strcmp0 (dev, "synthetic:1") == 0,
      "gst_device_create_element gives a camcoresrc with device=synthetic:1", dev);
  g_free (dev);
  if (src) {
    GstElement *pipe = gst_pipeline_new (NULL);
    GstElement *sink = gst_element_factory_make ("appsink", NULL);
    g_object_set (sink, "sync", FALSE, NULL);
    gst_bin_add_many (GST_BIN (pipe), src, sink, NULL);
    gst_element_link (src, sink);
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    int got = 0;
    for (int i = 0; i < 3; i++) {
      GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 5 * GST_SECOND);
      if (s) {
        got++;
        gst_sample_unref (s);
      }
    }
    gchar *cur = NULL;
    g_object_get (src, "current-device", &cur, NULL);
    gchar *what = g_strdup_printf ("%d frames, current-device %s", got, cur);
    result (got == 3 && g_strcmp0 (cur, "synthetic:1") == 0,
        "the created element streams from synthetic:1", what);
    g_free (what);
    g_free (cur);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (pipe);
  }
  gst_object_unref (back);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  if (!gst_element_factory_find ("camcoresrc")) {
    g_print ("FAIL camcoresrc not found (GST_PLUGIN_PATH=%s)\n0 passed, 1 failed\n",
        g_getenv ("GST_PLUGIN_PATH"));
    return 1;
  }
  gboolean only_monitor = argc > 1 && strcmp (argv[1], "--monitor") == 0;
  if (!only_monitor) {
    run_call ();
    run_started_paused ();
    run_copied_frames ();
  }
  run_device_monitor ();
  g_print ("%d passed, %d failed\n", passed, failed);
  gst_deinit ();
  return failed ? 1 : 0;
}
