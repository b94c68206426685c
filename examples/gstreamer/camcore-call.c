/* SPDX-License-Identifier: MIT */
/* camcore-call: a WebRTC video sender built on camcoresrc, calling a
 * receiver in the same process (two webrtcbins, VP8, ICE over 127.0.0.1),
 * so the whole call runs on one machine without a signalling server.
 *
 *   camcoresrc ! videoconvert ! vp8enc ! rtpvp8pay ! webrtcbin (sender)
 *   webrtcbin (receiver) ! rtpvp8depay ! vp8dec ! videoconvert ! autovideosink
 *
 * Keys (then Enter): p pause/resume the video (the camera turns off and on),
 * h hold/unhold, f flip to the other camera, q quit.
 *
 *   GST_PLUGIN_PATH=build/prefix/lib/gstreamer-1.0 ./camcore-call --synthetic 2
 *   ./camcore-call --device /dev/video0 --size 1280x720 --fps 30
 *   ./camcore-call --synthetic 1 --seconds 3 --sink fakesink     (no window)
 *
 * A real sender would hand the offer and its ICE candidates to a remote
 * peer over its signalling channel instead (webrtc_loopback.c shows which
 * signals carry them).
 */
#include <gst/gst.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "webrtc_loopback.h"

typedef struct
{
  GstElement *pipeline, *cam;
  GMainLoop *loop;
  const char *sink;
  guint received;
  int status;
} App;

static GstPadProbeReturn
count_frame (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  App *app = data;
  g_atomic_int_inc (&app->received);
  return GST_PAD_PROBE_OK;
}

/* The receiver's decoded branch for each incoming stream. */
static void
on_receiver_pad (GstElement * receiver, GstPad * pad, gpointer data)
{
  App *app = data;
  gchar *desc = g_strdup_printf ("rtpvp8depay ! vp8dec ! videoconvert ! %s sync=false", app->sink);
  GError *err = NULL;
  GstElement *bin = gst_parse_bin_from_description (desc, TRUE, &err);
  g_free (desc);
  if (!bin) {
    g_printerr ("receiver: %s\n", err->message);
    g_error_free (err);
    return;
  }
  gst_bin_add (GST_BIN (app->pipeline), bin);
  gst_element_sync_state_with_parent (bin);
  GstPad *sinkpad = gst_element_get_static_pad (bin, "sink");
  gst_pad_link (pad, sinkpad);
  gst_pad_add_probe (sinkpad, GST_PAD_PROBE_TYPE_BUFFER, count_frame, app, NULL);
  gst_object_unref (sinkpad);
}

static gboolean
on_bus (GstBus * bus, GstMessage * m, gpointer data)
{
  App *app = data;
  switch (GST_MESSAGE_TYPE (m)) {
    case GST_MESSAGE_ERROR:{
      GError *e = NULL;
      gchar *dbg = NULL;
      gst_message_parse_error (m, &e, &dbg);
      g_printerr ("error from %s: %s (%s)\n", GST_MESSAGE_SRC_NAME (m), e->message, dbg ? dbg : "");
      g_error_free (e);
      g_free (dbg);
      app->status = 1;
      g_main_loop_quit (app->loop);
      break;
    }
    case GST_MESSAGE_ELEMENT:
      /* camcoresrc's camcore-selected, -disconnected, -connected, -stall, -error. */
      if (GST_MESSAGE_SRC (m) == GST_OBJECT (app->cam)) {
        gchar *s = gst_structure_to_string (gst_message_get_structure (m));
        g_print ("%s\n", s);
        g_free (s);
      }
      break;
    default:
      break;
  }
  return G_SOURCE_CONTINUE;
}

static gboolean
on_key (GIOChannel * ch, GIOCondition cond, gpointer data)
{
  App *app = data;
  gchar *line = NULL;
  if (g_io_channel_read_line (ch, &line, NULL, NULL, NULL) != G_IO_STATUS_NORMAL) {
    g_free (line);
    return G_SOURCE_REMOVE;     /* stdin closed: keep running until --seconds or q */
  }
  gboolean v;
  switch (line[0]) {
    case 'p':
      g_object_get (app->cam, "paused", &v, NULL);
      g_object_set (app->cam, "paused", !v, NULL);
      g_object_get (app->cam, "camera-on", &v, NULL);
      g_print ("video %s, camera %s\n", v ? "resumed" : "paused", v ? "on" : "off");
      break;
    case 'h':
      g_object_get (app->cam, "hold", &v, NULL);
      g_object_set (app->cam, "hold", !v, NULL);
      g_print ("call %s\n", v ? "resumed" : "held");
      break;
    case 'f':
      g_signal_emit_by_name (app->cam, "flip", &v);
      break;
    case 'q':
      g_main_loop_quit (app->loop);
      break;
    default:
      g_print ("keys: p pause/resume, h hold/unhold, f flip, q quit\n");
  }
  g_free (line);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_timeout (gpointer data)
{
  g_main_loop_quit (((App *) data)->loop);
  return G_SOURCE_REMOVE;
}

int
main (int argc, char **argv)
{
  gchar *device = NULL, *size = NULL, *sink = NULL;
  gint synthetic = 0, fps = 30, seconds = 0;
  GOptionEntry entries[] = {
    {"device", 'd', 0, G_OPTION_ARG_STRING, &device, "camcore id or /dev/videoN (default: the first camera)", "DEV"},
    {"synthetic", 0, 0, G_OPTION_ARG_INT, &synthetic, "list camcore's synthetic cameras (1 or 2)", "N"},
    {"size", 0, 0, G_OPTION_ARG_STRING, &size, "frame size (default 640x480)", "WxH"},
    {"fps", 0, 0, G_OPTION_ARG_INT, &fps, "frame rate (default 30)", "N"},
    {"seconds", 0, 0, G_OPTION_ARG_INT, &seconds, "end the call after N seconds (default: at q)", "N"},
    {"sink", 0, 0, G_OPTION_ARG_STRING, &sink, "the receiver's video sink (default autovideosink)", "ELEMENT"},
    {NULL}
  };
  GError *err = NULL;
  GOptionContext *ctx = g_option_context_new ("- a WebRTC call from camcoresrc to itself");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  guint w = 640, h = 480;
  if (size && sscanf (size, "%ux%u", &w, &h) != 2) {
    g_printerr ("--size wants WxH\n");
    return 2;
  }

  App app = { 0 };
  app.sink = sink ? sink : "autovideosink";
  gchar *desc = g_strdup_printf ("camcoresrc name=cam synthetic=%d %s%s ! "
      "video/x-raw,width=%u,height=%u,framerate=%d/1 ! videoconvert ! queue ! "
      "vp8enc deadline=1 cpu-used=8 keyframe-max-dist=30 target-bitrate=2000000 ! rtpvp8pay pt=96 ! "
      "application/x-rtp,media=video,encoding-name=VP8,payload=96,clock-rate=90000 ! "
      "webrtcbin name=send bundle-policy=max-bundle "
      "webrtcbin name=recv bundle-policy=max-bundle latency=50",
      synthetic, device ? "device=" : "", device ? device : "", w, h, fps);
  app.pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!app.pipeline) {
    g_printerr ("%s (is GST_PLUGIN_PATH set to build/prefix/lib/gstreamer-1.0?)\n", err->message);
    return 1;
  }
  app.cam = gst_bin_get_by_name (GST_BIN (app.pipeline), "cam");
  GstElement *send = gst_bin_get_by_name (GST_BIN (app.pipeline), "send");
  GstElement *recv = gst_bin_get_by_name (GST_BIN (app.pipeline), "recv");
  gchar *why = NULL;
  if (!webrtc_loopback_connect (send, recv, "127.0.0.1", on_receiver_pad, &app, &why)) {
    g_printerr ("%s\n", why);
    return 1;
  }
  app.loop = g_main_loop_new (NULL, FALSE);
  GstBus *bus = gst_element_get_bus (app.pipeline);
  gst_bus_add_watch (bus, on_bus, &app);
  gst_object_unref (bus);
  GIOChannel *in = g_io_channel_unix_new (0);
  g_io_add_watch (in, G_IO_IN | G_IO_HUP, on_key, &app);
  if (seconds > 0)
    g_timeout_add_seconds (seconds, on_timeout, &app);

  g_print ("keys: p pause/resume, h hold/unhold, f flip, q quit\n");
  gst_element_set_state (app.pipeline, GST_STATE_PLAYING);
  g_main_loop_run (app.loop);
  gst_element_set_state (app.pipeline, GST_STATE_NULL);

  g_print ("frames received: %u\n", g_atomic_int_get (&app.received));
  g_io_channel_unref (in);
  gst_object_unref (send);
  gst_object_unref (recv);
  gst_object_unref (app.cam);
  gst_object_unref (app.pipeline);
  g_main_loop_unref (app.loop);
  g_free (device);
  g_free (size);
  g_free (sink);
  return app.status;
}
