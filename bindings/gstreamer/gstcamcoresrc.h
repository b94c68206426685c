/* SPDX-License-Identifier: MIT */
#ifndef GST_CAMCORE_SRC_H
#define GST_CAMCORE_SRC_H

#include <gst/gst.h>
#include <gst/base/gstpushsrc.h>

G_BEGIN_DECLS

#define GST_TYPE_CAMCORE_SRC (gst_camcore_src_get_type ())
G_DECLARE_FINAL_TYPE (GstCamcoreSrc, gst_camcore_src, GST, CAMCORE_SRC, GstPushSrc)

GST_ELEMENT_REGISTER_DECLARE (camcoresrc);

G_END_DECLS
#endif
