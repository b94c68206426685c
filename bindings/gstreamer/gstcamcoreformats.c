/* SPDX-License-Identifier: MIT */
/* camcore <-> GStreamer: pixel formats and caps. The table names each V4L2
 * FourCC camcore hands out by the GstVideoFormat whose bytes mean the same
 * (as v4l2src names them: V4L2's RGBA32 "AB24" is bytes R,G,B,A = RGBA,
 * its ABGR32 "AR24" bytes B,G,R,A = BGRA). */
#include "gstcamcoreformats.h"

#include <string.h>

static const struct
{
  uint32_t fourcc;
  GstVideoFormat format;
  gboolean converts;            /* camcore converts it into its outputs */
} format_table[] = {
  {CAMCORE_FOURCC ('Y', 'U', 'Y', 'V'), GST_VIDEO_FORMAT_YUY2, TRUE},
  {CAMCORE_FOURCC ('U', 'Y', 'V', 'Y'), GST_VIDEO_FORMAT_UYVY, TRUE},
  {CAMCORE_FOURCC ('Y', 'V', 'Y', 'U'), GST_VIDEO_FORMAT_YVYU, TRUE},
  {CAMCORE_FOURCC ('Y', 'U', '1', '2'), GST_VIDEO_FORMAT_I420, TRUE},
  {CAMCORE_FOURCC ('Y', 'M', '1', '2'), GST_VIDEO_FORMAT_I420, TRUE},
  {CAMCORE_FOURCC ('Y', 'V', '1', '2'), GST_VIDEO_FORMAT_YV12, TRUE},
  {CAMCORE_FOURCC ('N', 'V', '1', '2'), GST_VIDEO_FORMAT_NV12, TRUE},
  {CAMCORE_FOURCC ('N', 'M', '1', '2'), GST_VIDEO_FORMAT_NV12, TRUE},
  {CAMCORE_FOURCC ('N', 'V', '2', '1'), GST_VIDEO_FORMAT_NV21, TRUE},
  {CAMCORE_FOURCC ('N', 'M', '2', '1'), GST_VIDEO_FORMAT_NV21, TRUE},
  {CAMCORE_FOURCC ('N', 'V', '1', '6'), GST_VIDEO_FORMAT_NV16, FALSE},
  {CAMCORE_FOURCC ('N', 'V', '6', '1'), GST_VIDEO_FORMAT_NV61, FALSE},
  {CAMCORE_FOURCC ('N', 'V', '2', '4'), GST_VIDEO_FORMAT_NV24, FALSE},
  {CAMCORE_FOURCC ('4', '2', '2', 'P'), GST_VIDEO_FORMAT_Y42B, FALSE},
  {CAMCORE_FOURCC ('4', '1', '1', 'P'), GST_VIDEO_FORMAT_Y41B, FALSE},
  {CAMCORE_FOURCC ('R', 'G', 'B', '3'), GST_VIDEO_FORMAT_RGB, TRUE},
  {CAMCORE_FOURCC ('B', 'G', 'R', '3'), GST_VIDEO_FORMAT_BGR, TRUE},
  {CAMCORE_FOURCC ('A', 'B', '2', '4'), GST_VIDEO_FORMAT_RGBA, TRUE},
  {CAMCORE_FOURCC ('X', 'B', '2', '4'), GST_VIDEO_FORMAT_RGBx, FALSE},
  {CAMCORE_FOURCC ('A', 'R', '2', '4'), GST_VIDEO_FORMAT_BGRA, FALSE},
  {CAMCORE_FOURCC ('X', 'R', '2', '4'), GST_VIDEO_FORMAT_BGRx, FALSE},
  {CAMCORE_FOURCC ('B', 'A', '2', '4'), GST_VIDEO_FORMAT_ARGB, FALSE},
  {CAMCORE_FOURCC ('B', 'X', '2', '4'), GST_VIDEO_FORMAT_xRGB, FALSE},
  {CAMCORE_FOURCC ('R', 'G', 'B', 'P'), GST_VIDEO_FORMAT_RGB16, FALSE},
  {CAMCORE_FOURCC ('G', 'R', 'E', 'Y'), GST_VIDEO_FORMAT_GRAY8, TRUE},
  {CAMCORE_FOURCC ('Y', '1', '6', ' '), GST_VIDEO_FORMAT_GRAY16_LE, FALSE},
};

#define FOURCC_MJPG CAMCORE_FOURCC ('M', 'J', 'P', 'G')
#define FOURCC_JPEG CAMCORE_FOURCC ('J', 'P', 'E', 'G')
#define FOURCC_H264 CAMCORE_FOURCC ('H', '2', '6', '4')

/* camcore's output formats (camcore_capture_config.output_fourcc). */
static const struct
{
  GstVideoFormat format;
  uint32_t fourcc;
} output_table[] = {
  {GST_VIDEO_FORMAT_I420, CAMCORE_FOURCC_I420},
  {GST_VIDEO_FORMAT_NV12, CAMCORE_FOURCC_NV12},
  {GST_VIDEO_FORMAT_YUY2, CAMCORE_FOURCC_YUYV},
  {GST_VIDEO_FORMAT_RGB, CAMCORE_FOURCC_RGB24},
  {GST_VIDEO_FORMAT_BGR, CAMCORE_FOURCC_BGR24},
  {GST_VIDEO_FORMAT_RGBA, CAMCORE_FOURCC_RGBA},
};

GstCaps *
gst_camcore_template_caps (void)
{
  return gst_caps_from_string ("video/x-raw, format = (string) "
      GST_CAMCORE_RAW_FORMATS ", width = (int) [ 1, 65536 ], "
      "height = (int) [ 1, 65536 ], framerate = (fraction) [ 0/1, 2147483647/1 ]; "
      "image/jpeg, width = (int) [ 1, 65536 ], height = (int) [ 1, 65536 ], "
      "framerate = (fraction) [ 0/1, 2147483647/1 ]; "
      "video/x-h264, stream-format = (string) byte-stream, alignment = (string) au, "
      "width = (int) [ 1, 65536 ], height = (int) [ 1, 65536 ], "
      "framerate = (fraction) [ 0/1, 2147483647/1 ]");
}

GstVideoFormat
gst_camcore_fourcc_to_video_format (uint32_t fourcc)
{
  for (gsize i = 0; i < G_N_ELEMENTS (format_table); i++)
    if (format_table[i].fourcc == fourcc)
      return format_table[i].format;
  return GST_VIDEO_FORMAT_UNKNOWN;
}

uint32_t
gst_camcore_output_fourcc (GstVideoFormat format)
{
  for (gsize i = 0; i < G_N_ELEMENTS (output_table); i++)
    if (output_table[i].format == format)
      return output_table[i].fourcc;
  return 0;
}

gboolean
gst_camcore_fourcc_converts (uint32_t fourcc)
{
  if (fourcc == FOURCC_MJPG || fourcc == FOURCC_JPEG)
    return TRUE;
  for (gsize i = 0; i < G_N_ELEMENTS (format_table); i++)
    if (format_table[i].fourcc == fourcc)
      return format_table[i].converts;
  return FALSE;
}

GstStructure *
gst_camcore_structure_for_fourcc (uint32_t fourcc)
{
  if (fourcc == FOURCC_MJPG || fourcc == FOURCC_JPEG)
    return gst_structure_new_empty ("image/jpeg");
  if (fourcc == FOURCC_H264)
    return gst_structure_new ("video/x-h264", "stream-format", G_TYPE_STRING,
        "byte-stream", "alignment", G_TYPE_STRING, "au", NULL);
  GstVideoFormat f = gst_camcore_fourcc_to_video_format (fourcc);
  if (f == GST_VIDEO_FORMAT_UNKNOWN)
    return NULL;
  return gst_structure_new ("video/x-raw", "format", G_TYPE_STRING,
      gst_video_format_to_string (f), NULL);
}

uint32_t
gst_camcore_fourcc_from_structure (const GstStructure * s)
{
  if (gst_structure_has_name (s, "image/jpeg"))
    return FOURCC_MJPG;
  if (gst_structure_has_name (s, "video/x-h264"))
    return FOURCC_H264;
  const char *name = gst_structure_get_string (s, "format");
  if (!name)
    return 0;
  GstVideoFormat f = gst_video_format_from_string (name);
  /* The first table entry is the single-buffer FourCC (YU12 before YM12). */
  for (gsize i = 0; i < G_N_ELEMENTS (format_table); i++)
    if (format_table[i].format == f)
      return format_table[i].fourcc;
  return 0;
}

/* Sets width and height of s from one camcore_format entry. */
static void
set_size (GstStructure * s, const camcore_format * f)
{
  if (f->size_kind == CAMCORE_RANGE_DISCRETE) {
    gst_structure_set (s, "width", G_TYPE_INT, (int) f->width, "height",
        G_TYPE_INT, (int) f->height, NULL);
    return;
  }
  GValue w = G_VALUE_INIT, h = G_VALUE_INIT;
  g_value_init (&w, GST_TYPE_INT_RANGE);
  g_value_init (&h, GST_TYPE_INT_RANGE);
  int sw = f->size_kind == CAMCORE_RANGE_STEPWISE && f->step_width > 1 ? (int) f->step_width : 1;
  int sh = f->size_kind == CAMCORE_RANGE_STEPWISE && f->step_height > 1 ? (int) f->step_height : 1;
  /* GStreamer wants the range's ends on the step. */
  int maxw = (int) f->max_width - (int) ((f->max_width - f->min_width) % sw);
  int maxh = (int) f->max_height - (int) ((f->max_height - f->min_height) % sh);
  if ((int) f->min_width == maxw)
    gst_structure_set (s, "width", G_TYPE_INT, maxw, NULL);
  else {
    gst_value_set_int_range_step (&w, (int) f->min_width, maxw, sw);
    gst_structure_set_value (s, "width", &w);
  }
  if ((int) f->min_height == maxh)
    gst_structure_set (s, "height", G_TYPE_INT, maxh, NULL);
  else {
    gst_value_set_int_range_step (&h, (int) f->min_height, maxh, sh);
    gst_structure_set_value (s, "height", &h);
  }
  g_value_unset (&w);
  g_value_unset (&h);
}

/* Sets framerate of s from one camcore_format entry. */
static void
set_rates (GstStructure * s, const camcore_format * f)
{
  if (f->rate_kind == CAMCORE_RANGE_DISCRETE && f->rate_count > 0) {
    if (f->rate_count == 1) {
      gst_structure_set (s, "framerate", GST_TYPE_FRACTION,
          (int) f->rates[0].numerator, (int) f->rates[0].denominator, NULL);
      return;
    }
    GValue list = G_VALUE_INIT, v = G_VALUE_INIT;
    g_value_init (&list, GST_TYPE_LIST);
    g_value_init (&v, GST_TYPE_FRACTION);
    for (size_t i = 0; i < f->rate_count; i++) {
      if (f->rates[i].numerator == 0 || f->rates[i].denominator == 0)
        continue;
      gst_value_set_fraction (&v, (int) f->rates[i].numerator,
          (int) f->rates[i].denominator);
      gst_value_list_append_value (&list, &v);
    }
    gst_structure_set_value (s, "framerate", &list);
    g_value_unset (&v);
    g_value_unset (&list);
    return;
  }
  if ((f->rate_kind == CAMCORE_RANGE_STEPWISE || f->rate_kind == CAMCORE_RANGE_CONTINUOUS)
      && f->max_fps.numerator > 0 && f->max_fps.denominator > 0) {
    int lo_n = (int) f->min_fps.numerator, lo_d = (int) f->min_fps.denominator;
    if (lo_n == 0 || lo_d == 0) {
      lo_n = 0;
      lo_d = 1;
    }
    if ((guint64) lo_n * f->max_fps.denominator == (guint64) f->max_fps.numerator * lo_d)
      gst_structure_set (s, "framerate", GST_TYPE_FRACTION,
          (int) f->max_fps.numerator, (int) f->max_fps.denominator, NULL);
    else
      gst_structure_set (s, "framerate", GST_TYPE_FRACTION_RANGE, lo_n, lo_d,
          (int) f->max_fps.numerator, (int) f->max_fps.denominator, NULL);
    return;
  }
  gst_structure_set (s, "framerate", GST_TYPE_FRACTION_RANGE, 0, 1, G_MAXINT, 1, NULL);
}

GstCaps *
gst_camcore_caps_for_device (camcore_manager * manager, const char *device_id,
    int *status)
{
  camcore_format_list *list = NULL;
  int rc = camcore_manager_list_formats (manager, device_id, &list);
  if (status)
    *status = rc;
  if (rc != CAMCORE_OK)
    return NULL;
  GstCaps *native = gst_caps_new_empty ();
  GstCaps *converted = gst_caps_new_empty ();
  for (size_t i = 0; i < list->count; i++) {
    const camcore_format *f = &list->formats[i];
    GstStructure *s = gst_camcore_structure_for_fourcc (f->fourcc);
    if (s) {
      gst_camcore_structure_set_colorimetry (s, f->fourcc);
      set_size (s, f);
      set_rates (s, f);
      native = gst_caps_merge_structure (native, s);
    }
    if (gst_camcore_fourcc_converts (f->fourcc)) {
      GstStructure *yuv = gst_structure_from_string ("video/x-raw, format=(string)"
          "{ I420, NV12, YUY2 }", NULL);
      GstStructure *rgb = gst_structure_from_string ("video/x-raw, format=(string)"
          "{ RGB, BGR, RGBA }", NULL);
      gst_camcore_structure_set_colorimetry (yuv, f->fourcc);
      set_size (yuv, f);
      set_rates (yuv, f);
      set_size (rgb, f);
      set_rates (rgb, f);
      converted = gst_caps_merge_structure (converted, yuv);
      converted = gst_caps_merge_structure (converted, rgb);
    }
  }
  camcore_format_list_free (list);
  /* Native first: a format the camera has is delivered without a copy. */
  return gst_caps_merge (native, converted);
}

void
gst_camcore_structure_set_colorimetry (GstStructure * s, uint32_t source_fourcc)
{
  if (!gst_structure_has_name (s, "video/x-raw"))
    return;
  const GValue *f = gst_structure_get_value (s, "format");
  const GValue *first = f && GST_VALUE_HOLDS_LIST (f) ? gst_value_list_get_value (f, 0) : f;
  if (!first || !G_VALUE_HOLDS_STRING (first))
    return;
  GstVideoFormat vf = gst_video_format_from_string (g_value_get_string (first));
  if (!GST_VIDEO_FORMAT_INFO_IS_YUV (gst_video_format_get_info (vf)))
    return;
  /* camcore's frames and conversions are BT.601 limited range; YUV decoded
   * from MJPEG keeps the JPEG's full range. */
  gboolean jpeg = source_fourcc == FOURCC_MJPG || source_fourcc == FOURCC_JPEG;
  gst_structure_set (s, "colorimetry", G_TYPE_STRING, jpeg ? "1:4:0:0" : "bt601", NULL);
}

GstCaps *
gst_camcore_caps_for_setting (uint32_t fourcc, uint32_t source_fourcc, guint width,
    guint height, guint fps_n, guint fps_d)
{
  GstStructure *s = gst_camcore_structure_for_fourcc (fourcc);
  if (!s)
    return NULL;
  gst_camcore_structure_set_colorimetry (s, source_fourcc ? source_fourcc : fourcc);
  gst_structure_set (s, "width", G_TYPE_INT, (int) width, "height", G_TYPE_INT,
      (int) height, NULL);
  if (fps_n > 0 && fps_d > 0)
    gst_structure_set (s, "framerate", GST_TYPE_FRACTION, (int) fps_n, (int) fps_d, NULL);
  else
    gst_structure_set (s, "framerate", GST_TYPE_FRACTION, 0, 1, NULL);
  if (gst_structure_has_name (s, "video/x-raw"))
    gst_structure_set (s, "pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1, NULL);
  return gst_caps_new_full (s, NULL);
}

const char *
gst_camcore_position_name (int32_t position)
{
  switch (position) {
    case CAMCORE_POSITION_FRONT:
      return "front";
    case CAMCORE_POSITION_BACK:
      return "back";
    case CAMCORE_POSITION_EXTERNAL:
      return "external";
    default:
      return "unknown";
  }
}

const char *
gst_camcore_type_name (int32_t type)
{
  switch (type) {
    case CAMCORE_DEVICE_TYPE_BUILTIN:
      return "builtin";
    case CAMCORE_DEVICE_TYPE_VIRTUAL:
      return "virtual";
    case CAMCORE_DEVICE_TYPE_INFRARED:
      return "infrared";
    default:
      return "external";
  }
}
