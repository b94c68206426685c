/* SPDX-License-Identifier: MIT */
#ifndef GST_CAMCORE_DEVICE_PROVIDER_H
#define GST_CAMCORE_DEVICE_PROVIDER_H

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_CAMCORE_DEVICE_PROVIDER (gst_camcore_device_provider_get_type ())
G_DECLARE_FINAL_TYPE (GstCamcoreDeviceProvider, gst_camcore_device_provider, GST,
    CAMCORE_DEVICE_PROVIDER, GstDeviceProvider)

#define GST_TYPE_CAMCORE_DEVICE (gst_camcore_device_get_type ())
G_DECLARE_FINAL_TYPE (GstCamcoreDevice, gst_camcore_device, GST, CAMCORE_DEVICE, GstDevice)

GST_DEVICE_PROVIDER_REGISTER_DECLARE (camcoredeviceprovider);

G_END_DECLS
#endif
