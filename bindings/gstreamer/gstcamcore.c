/* SPDX-License-Identifier: MIT */
/* The camcore GStreamer plugin: camcoresrc and camcoredeviceprovider. */
#include "gstcamcoresrc.h"
#include "gstcamcoredeviceprovider.h"

#include <camcore.h>

#ifndef PACKAGE
#define PACKAGE "camcore"
#endif
#ifndef GST_CAMCORE_VERSION
#define GST_CAMCORE_VERSION CAMCORE_VERSION_STRING
#endif

static gboolean
plugin_init (GstPlugin * plugin)
{
  /* Built against one camcore.h, run with the libcamcore the loader finds:
   * the major number must agree (before 1.0, the minor too). */
  uint32_t v = camcore_version ();
  if ((v >> 16) != CAMCORE_VERSION_MAJOR || (CAMCORE_VERSION_MAJOR == 0
          && ((v >> 8) & 0xff) < CAMCORE_VERSION_MINOR)) {
    GST_WARNING ("libcamcore %s is older than the camcore.h (%s) this plugin was built with",
        camcore_version_string (), CAMCORE_VERSION_STRING);
    return FALSE;
  }
  gboolean ok = GST_ELEMENT_REGISTER (camcoresrc, plugin);
  ok &= GST_DEVICE_PROVIDER_REGISTER (camcoredeviceprovider, plugin);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, camcore,
    "camcore cameras: a video session as a live source (camcoresrc) and a device provider",
    plugin_init, GST_CAMCORE_VERSION, "MIT/X11", "camcore", "camcore (bindings/gstreamer)")
