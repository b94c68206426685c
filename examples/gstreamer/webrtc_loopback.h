/* SPDX-License-Identifier: MIT */
/* A WebRTC call between two webrtcbins of one pipeline, signalled in the
 * process: `sender` makes the offer, `receiver` the answer, and each one's
 * ICE candidates go straight to the other. ICE gathers only on one local
 * address (libnice's host candidates there), e.g. "127.0.0.1", so the
 * call needs no network. Used by camcore-call.c and Tests/gstreamer. */
#ifndef WEBRTC_LOOPBACK_H
#define WEBRTC_LOOPBACK_H

#include <gst/gst.h>

G_BEGIN_DECLS

/* Called on a streaming thread for each stream the receiver gets: link the
 * pad (RTP, e.g. VP8) to a depayloader and a decoder. */
typedef void (*WebrtcLoopbackPadFn) (GstElement * receiver, GstPad * pad, gpointer user_data);

/* Wires the two webrtcbins (both already in the pipeline, the sender's
 * sink pad linked) before the pipeline goes to PLAYING. The sender only
 * sends, the receiver only receives. Returns FALSE with a message in
 * *error when the ICE agent refuses the address. */
gboolean webrtc_loopback_connect (GstElement * sender, GstElement * receiver,
    const char *ice_address, WebrtcLoopbackPadFn on_pad, gpointer user_data, gchar ** error);

/* Candidates each side handed over so far (a "candidate:" line each). */
guint webrtc_loopback_candidates (GstElement * webrtcbin);

G_END_DECLS
#endif
