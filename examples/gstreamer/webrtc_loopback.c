/* SPDX-License-Identifier: MIT */
/* Two webrtcbins in one process, signalled directly (see webrtc_loopback.h).
 * The order is the usual WebRTC one: sender on-negotiation-needed ->
 * create-offer -> set-local-description (sender) and
 * set-remote-description (receiver) -> create-answer -> set-local-description
 * (receiver) and set-remote-description (sender); on-ice-candidate of either
 * side -> add-ice-candidate on the other. */
#define GST_USE_UNSTABLE_API
#include "webrtc_loopback.h"

#include <gst/webrtc/webrtc.h>
#include <string.h>

typedef struct
{
  GstElement *sender, *receiver;
  WebrtcLoopbackPadFn on_pad;
  gpointer user_data;
} Loopback;

static void
count_candidate (GstElement * webrtc)
{
  guint n = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (webrtc), "loopback-candidates"));
  g_object_set_data (G_OBJECT (webrtc), "loopback-candidates", GUINT_TO_POINTER (n + 1));
}

guint
webrtc_loopback_candidates (GstElement * webrtc)
{
  return GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (webrtc), "loopback-candidates"));
}

static void
on_ice_candidate (GstElement * webrtc, guint mline, gchar * candidate, gpointer other)
{
  if (!candidate || !*candidate)
    return;                     /* end of candidates */
  count_candidate (webrtc);
  g_signal_emit_by_name (other, "add-ice-candidate", mline, candidate);
}

static void
on_answer_created (GstPromise * promise, gpointer data)
{
  Loopback *l = data;
  GstWebRTCSessionDescription *answer = NULL;
  const GstStructure *reply = gst_promise_get_reply (promise);
  if (reply)
    gst_structure_get (reply, "answer", GST_TYPE_WEBRTC_SESSION_DESCRIPTION, &answer, NULL);
  gst_promise_unref (promise);
  if (!answer) {
    GST_ERROR ("the receiver made no answer");
    return;
  }
  g_signal_emit_by_name (l->receiver, "set-local-description", answer, NULL);
  g_signal_emit_by_name (l->sender, "set-remote-description", answer, NULL);
  gst_webrtc_session_description_free (answer);
}

static void
on_remote_offer_set (GstPromise * promise, gpointer data)
{
  Loopback *l = data;
  gst_promise_unref (promise);
  g_signal_emit_by_name (l->receiver, "create-answer", NULL,
      gst_promise_new_with_change_func (on_answer_created, l, NULL));
}

static void
on_offer_created (GstPromise * promise, gpointer data)
{
  Loopback *l = data;
  GstWebRTCSessionDescription *offer = NULL;
  const GstStructure *reply = gst_promise_get_reply (promise);
  if (reply)
    gst_structure_get (reply, "offer", GST_TYPE_WEBRTC_SESSION_DESCRIPTION, &offer, NULL);
  gst_promise_unref (promise);
  if (!offer) {
    GST_ERROR ("the sender made no offer");
    return;
  }
  g_signal_emit_by_name (l->sender, "set-local-description", offer, NULL);
  g_signal_emit_by_name (l->receiver, "set-remote-description", offer,
      gst_promise_new_with_change_func (on_remote_offer_set, l, NULL));
  gst_webrtc_session_description_free (offer);
}

static void
on_negotiation_needed (GstElement * sender, gpointer data)
{
  Loopback *l = data;
  /* The sender only sends. */
  GstWebRTCRTPTransceiver *t = NULL;
  g_signal_emit_by_name (sender, "get-transceiver", 0, &t);
  if (t) {
    g_object_set (t, "direction", GST_WEBRTC_RTP_TRANSCEIVER_DIRECTION_SENDONLY, NULL);
    gst_object_unref (t);
  }
  g_signal_emit_by_name (sender, "create-offer", NULL,
      gst_promise_new_with_change_func (on_offer_created, l, NULL));
}

static void
on_pad_added (GstElement * receiver, GstPad * pad, gpointer data)
{
  Loopback *l = data;
  if (GST_PAD_DIRECTION (pad) == GST_PAD_SRC && l->on_pad)
    l->on_pad (receiver, pad, l->user_data);
}

static gboolean
only_address (GstElement * webrtc, const char *address, gchar ** error)
{
  GObject *ice = NULL;
  gboolean ok = FALSE;
  g_object_get (webrtc, "ice-agent", &ice, NULL);
  if (ice) {
    /* GstWebRTCNice: gather on this address only, not every interface. */
    g_signal_emit_by_name (ice, "add-local-ip-address", address, &ok);
    g_object_unref (ice);
  }
  if (!ok && error)
    *error = g_strdup_printf ("%s: the ICE agent refuses local address %s",
        GST_ELEMENT_NAME (webrtc), address);
  return ok;
}

gboolean
webrtc_loopback_connect (GstElement * sender, GstElement * receiver,
    const char *ice_address, WebrtcLoopbackPadFn on_pad, gpointer user_data, gchar ** error)
{
  if (ice_address && (!only_address (sender, ice_address, error)
          || !only_address (receiver, ice_address, error)))
    return FALSE;
  Loopback *l = g_new0 (Loopback, 1);
  l->sender = sender;
  l->receiver = receiver;
  l->on_pad = on_pad;
  l->user_data = user_data;
  g_object_set_data_full (G_OBJECT (sender), "webrtc-loopback", l, g_free);
  g_signal_connect (sender, "on-negotiation-needed", G_CALLBACK (on_negotiation_needed), l);
  g_signal_connect (sender, "on-ice-candidate", G_CALLBACK (on_ice_candidate), receiver);
  g_signal_connect (receiver, "on-ice-candidate", G_CALLBACK (on_ice_candidate), sender);
  g_signal_connect (receiver, "pad-added", G_CALLBACK (on_pad_added), l);
  return TRUE;
}
