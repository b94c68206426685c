/* SPDX-License-Identifier: MIT */
/* camcore <-> GStreamer: pixel formats and caps (shared by camcoresrc and
 * camcoredeviceprovider). */
#ifndef GST_CAMCORE_FORMATS_H
#define GST_CAMCORE_FORMATS_H

#include <camcore.h>
#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* The raw formats camcore converts any camera format into (an output
 * format, camcore_preference.output_fourcc), in GStreamer's names. */
#define GST_CAMCORE_OUTPUT_FORMATS "{ I420, NV12, YUY2, RGB, BGR, RGBA }"

/* Every format camcoresrc may produce, for its pad template. */
#define GST_CAMCORE_RAW_FORMATS \
  "{ YUY2, UYVY, YVYU, I420, YV12, NV12, NV21, NV16, NV61, NV24, Y42B, Y41B, " \
  "RGB, BGR, RGBA, RGBx, BGRA, BGRx, ARGB, xRGB, RGB16, GRAY8, GRAY16_LE }"

GstCaps *gst_camcore_template_caps (void);

/* The GstVideoFormat of a camcore (V4L2) FourCC; GST_VIDEO_FORMAT_UNKNOWN
 * when GStreamer has no raw name for it (compressed formats, Bayer...). */
GstVideoFormat gst_camcore_fourcc_to_video_format (uint32_t fourcc);

/* The camcore FourCC camcore_preference.output_fourcc takes for a
 * GstVideoFormat, or 0 when camcore cannot convert into it. */
uint32_t gst_camcore_output_fourcc (GstVideoFormat format);

/* A structure for frames of this FourCC ("video/x-raw" with its format,
 * "image/jpeg", "video/x-h264"), without size or rate; NULL for a FourCC
 * GStreamer cannot name. */
GstStructure *gst_camcore_structure_for_fourcc (uint32_t fourcc);

/* The FourCC a fixed caps structure describes (the camera's own name:
 * I420 is YU12), or 0. */
uint32_t gst_camcore_fourcc_from_structure (const GstStructure * s);

/* True when camcore can convert frames of this FourCC into its outputs. */
gboolean gst_camcore_fourcc_converts (uint32_t fourcc);

/* A device's caps: its own formats first (in the driver's order), then the
 * output formats camcore converts them into at the same sizes and rates.
 * NULL with the camcore status in *status when the formats cannot be read. */
GstCaps *gst_camcore_caps_for_device (camcore_manager * manager,
    const char *device_id, int *status);

/* Fixed caps for one setting: the delivered FourCC, the camera's FourCC it
 * comes from (0: the same), size and rate (0/0: none known). */
GstCaps *gst_camcore_caps_for_setting (uint32_t fourcc, uint32_t source_fourcc,
    guint width, guint height, guint fps_n, guint fps_d);

/* Sets "colorimetry" on a raw YUV structure: BT.601 limited range, as
 * camcore's frames and conversions are, or full range for YUV decoded
 * from MJPEG (source_fourcc). */
void gst_camcore_structure_set_colorimetry (GstStructure * s, uint32_t source_fourcc);

/* "front", "back", "external", "unknown"; "builtin", "external", "virtual", "infrared". */
const char *gst_camcore_position_name (int32_t position);
const char *gst_camcore_type_name (int32_t type);

G_END_DECLS
#endif
