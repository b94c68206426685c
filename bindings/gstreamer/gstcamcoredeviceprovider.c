/* SPDX-License-Identifier: MIT */
/**
 * camcoredeviceprovider: camcore's cameras as GstDevices (class
 * "Video/Source"), with hot-plug from camcore_manager_set_hotplug_callbacks
 * (libudev's monitor, S24). Each device carries its caps (the camera's
 * formats, then camcore's converted outputs, as camcoresrc offers them) and
 * properties: device.api "camcore", device.path (the node), camcore.id,
 * camcore.node, camcore.position, camcore.type, camcore.backend,
 * camcore.driver, camcore.bus-info, camcore.usb-vendor-id/-product-id,
 * camcore.rotation, camcore.synthetic, camcore.unavailable-reason.
 * gst_device_create_element() gives a camcoresrc with `device` set to the
 * camera's id (and `synthetic` for the synthetic cameras).
 *
 * The synthetic cameras are listed when the environment asks for them
 * (CAMCORE_SYNTHETIC_CAMERA=1 or 2), as every camcore manager lists them.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcamcoredeviceprovider.h"
#include "gstcamcoreformats.h"

#include <camcore.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_camcore_device_provider_debug);
#define GST_CAT_DEFAULT gst_camcore_device_provider_debug

/* ------------------------------------------------------------------ */
/* GstCamcoreDevice                                                    */
/* ------------------------------------------------------------------ */

struct _GstCamcoreDevice
{
  GstDevice parent;
  gchar *id;
  gint synthetic;               /* the count to give camcoresrc, 0 for real cameras */
};

G_DEFINE_TYPE (GstCamcoreDevice, gst_camcore_device, GST_TYPE_DEVICE);

enum
{
  PROP_DEV_0,
  PROP_DEV_ID,
};

static GstElement *
gst_camcore_device_create_element (GstDevice * device, const gchar * name)
{
  GstCamcoreDevice *self = GST_CAMCORE_DEVICE (device);
  GstElement *e = gst_element_factory_make ("camcoresrc", name);
  if (e)
    g_object_set (e, "device", self->id, "synthetic", self->synthetic, NULL);
  return e;
}

static gboolean
gst_camcore_device_reconfigure_element (GstDevice * device, GstElement * element)
{
  GstCamcoreDevice *self = GST_CAMCORE_DEVICE (device);
  if (g_strcmp0 (G_OBJECT_TYPE_NAME (element), "GstCamcoreSrc") != 0)
    return FALSE;
  g_object_set (element, "device", self->id, NULL);
  if (self->synthetic)
    g_object_set (element, "synthetic", self->synthetic, NULL);
  return TRUE;
}

static void
gst_camcore_device_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCamcoreDevice *self = GST_CAMCORE_DEVICE (object);
  if (prop_id == PROP_DEV_ID)
    g_value_set_string (value, self->id);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_camcore_device_finalize (GObject * object)
{
  g_free (GST_CAMCORE_DEVICE (object)->id);
  G_OBJECT_CLASS (gst_camcore_device_parent_class)->finalize (object);
}

static void
gst_camcore_device_init (GstCamcoreDevice * self)
{
  (void) self;
}

static void
gst_camcore_device_class_init (GstCamcoreDeviceClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstDeviceClass *device_class = GST_DEVICE_CLASS (klass);
  gobject_class->get_property = gst_camcore_device_get_property;
  gobject_class->finalize = gst_camcore_device_finalize;
  device_class->create_element = gst_camcore_device_create_element;
  device_class->reconfigure_element = gst_camcore_device_reconfigure_element;
  g_object_class_install_property (gobject_class, PROP_DEV_ID,
      g_param_spec_string ("id", "camcore id", "The camera's camcore id", NULL,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
}

static GstDevice *
device_new (camcore_manager * m, const camcore_device_info * d,
    const camcore_device_details * details, gint synthetic_count)
{
  int rc = 0;
  GstCaps *caps = gst_camcore_caps_for_device (m, d->id, &rc);
  if (!caps) {
    GST_INFO ("formats of %s: %s (listed without caps)", d->id, camcore_strerror (rc));
    caps = gst_caps_new_empty ();
  }
  GstStructure *props = gst_structure_new ("camcore-proplist",
      "device.api", G_TYPE_STRING, "camcore",
      "device.path", G_TYPE_STRING, d->node ? d->node : "",
      "camcore.id", G_TYPE_STRING, d->id,
      "camcore.node", G_TYPE_STRING, d->node ? d->node : "",
      "camcore.position", G_TYPE_STRING, gst_camcore_position_name (d->position),
      "camcore.type", G_TYPE_STRING, gst_camcore_type_name (d->type),
      "camcore.backend", G_TYPE_STRING, d->backend ? d->backend : "",
      "camcore.driver", G_TYPE_STRING, d->driver ? d->driver : "",
      "camcore.bus-info", G_TYPE_STRING, d->bus_info ? d->bus_info : "",
      "camcore.usb-vendor-id", G_TYPE_UINT, (guint) d->usb_vendor_id,
      "camcore.usb-product-id", G_TYPE_UINT, (guint) d->usb_product_id,
      "camcore.synthetic", G_TYPE_BOOLEAN, (d->flags & CAMCORE_DEVICE_SYNTHETIC) != 0,
      "camcore.unavailable-reason", G_TYPE_STRING,
      d->unavailable_reason ? d->unavailable_reason : "", NULL);
  if (details && details->struct_size >= G_STRUCT_OFFSET (camcore_device_details, rotation)
      + sizeof (int32_t))
    gst_structure_set (props, "camcore.rotation", G_TYPE_INT, (int) details->rotation, NULL);
  GstCamcoreDevice *dev = g_object_new (GST_TYPE_CAMCORE_DEVICE,
      "display-name", d->name ? d->name : d->id, "caps", caps,
      "device-class", "Video/Source", "properties", props, NULL);
  dev->id = g_strdup (d->id);
  dev->synthetic = (d->flags & CAMCORE_DEVICE_SYNTHETIC) ? synthetic_count : 0;
  gst_caps_unref (caps);
  gst_structure_free (props);
  return GST_DEVICE (dev);
}

/* ------------------------------------------------------------------ */
/* GstCamcoreDeviceProvider                                            */
/* ------------------------------------------------------------------ */

struct _GstCamcoreDeviceProvider
{
  GstDeviceProvider parent;
  GMutex lock;
  camcore_manager *manager;     /* while started */
  gint synthetic_count;
  GHashTable *devices;          /* id -> GstDevice, while started */
};

G_DEFINE_TYPE (GstCamcoreDeviceProvider, gst_camcore_device_provider, GST_TYPE_DEVICE_PROVIDER);
GST_DEVICE_PROVIDER_REGISTER_DEFINE (camcoredeviceprovider, "camcoredeviceprovider",
    GST_RANK_SECONDARY, GST_TYPE_CAMCORE_DEVICE_PROVIDER);

static gint
count_synthetic (const camcore_device_list * list)
{
  gint n = 0;
  for (size_t i = 0; i < list->count; i++)
    if (list->devices[i].flags & CAMCORE_DEVICE_SYNTHETIC)
      n++;
  return n;
}

static GList *
devices_of (camcore_manager * m, gint * synthetic_count)
{
  camcore_device_list *list = NULL;
  int rc = camcore_manager_list_devices (m, &list);
  if (rc != CAMCORE_OK) {
    GST_WARNING ("camcore_manager_list_devices: %s", camcore_strerror (rc));
    return NULL;
  }
  gint n = count_synthetic (list);
  if (synthetic_count)
    *synthetic_count = n;
  GList *devices = NULL;
  for (size_t i = 0; i < list->count; i++)
    devices = g_list_append (devices, device_new (m, &list->devices[i],
            list->details ? list->details[i] : NULL, n));
  camcore_device_list_free (list);
  return devices;
}

static GList *
gst_camcore_device_provider_probe (GstDeviceProvider * provider)
{
  (void) provider;
  camcore_manager *m = NULL;
  int rc = camcore_manager_new (NULL, &m);
  if (rc != CAMCORE_OK) {
    GST_WARNING ("camcore_manager_new: %s: %s", camcore_strerror (rc), camcore_last_error_message ());
    return NULL;
  }
  GList *devices = devices_of (m, NULL);
  camcore_manager_free (m);
  return devices;
}

/* The provider's devices by id (its own table: GstDeviceProvider's list
 * cannot be read from start(), which holds the provider's lock). Adds dev
 * unless the id is listed; TRUE when added. Takes dev's reference. */
static gboolean
remember_device (GstCamcoreDeviceProvider * self, GstDevice * dev)
{
  const char *id = GST_CAMCORE_DEVICE (dev)->id;
  g_mutex_lock (&self->lock);
  gboolean fresh = !g_hash_table_contains (self->devices, id);
  if (fresh)
    g_hash_table_insert (self->devices, g_strdup (id), gst_object_ref (dev));
  g_mutex_unlock (&self->lock);
  if (fresh)
    gst_device_provider_device_add (GST_DEVICE_PROVIDER (self), dev);
  else
    gst_object_unref (gst_object_ref_sink (dev));
  return fresh;
}

/* Hot-plug callbacks: camcore's hot-plug thread. */
static void
on_hotplug_connected (void *user_data, const camcore_device_info * d)
{
  GstCamcoreDeviceProvider *self = user_data;
  g_mutex_lock (&self->lock);
  gboolean known = g_hash_table_contains (self->devices, d->id);
  camcore_manager *m = self->manager;
  gint n = self->synthetic_count;
  g_mutex_unlock (&self->lock);
  /* The manager stays valid until the callbacks are stopped (stop()). */
  if (known || !m)
    return;
  GST_INFO_OBJECT (self, "camera %s (%s) connected", d->id, d->name);
  remember_device (self, device_new (m, d, NULL, n));
}

static void
on_hotplug_disconnected (void *user_data, const camcore_device_info * d)
{
  GstCamcoreDeviceProvider *self = user_data;
  GstDevice *dev = NULL;
  g_mutex_lock (&self->lock);
  gpointer key = NULL;
  if (g_hash_table_steal_extended (self->devices, d->id, &key, (gpointer *) & dev))
    g_free (key);
  g_mutex_unlock (&self->lock);
  if (dev) {
    GST_INFO_OBJECT (self, "camera %s (%s) disconnected", d->id, d->name);
    gst_device_provider_device_remove (GST_DEVICE_PROVIDER (self), dev);
    gst_object_unref (dev);
  }
}

static gboolean
gst_camcore_device_provider_start (GstDeviceProvider * provider)
{
  GstCamcoreDeviceProvider *self = GST_CAMCORE_DEVICE_PROVIDER (provider);
  camcore_manager *m = NULL;
  int rc = camcore_manager_new (NULL, &m);
  if (rc != CAMCORE_OK) {
    GST_WARNING_OBJECT (self, "camcore_manager_new: %s: %s", camcore_strerror (rc),
        camcore_last_error_message ());
    return FALSE;
  }
  g_mutex_lock (&self->lock);
  self->manager = m;
  g_mutex_unlock (&self->lock);
  /* Callbacks first, then the listing: a camera plugged in between is
   * found by one of them, and the id table keeps it listed once. */
  camcore_hotplug_callbacks cb;
  memset (&cb, 0, sizeof cb);
  cb.struct_size = sizeof cb;
  cb.user_data = self;
  cb.on_connected = on_hotplug_connected;
  cb.on_disconnected = on_hotplug_disconnected;
  rc = camcore_manager_set_hotplug_callbacks (m, &cb);
  if (rc != CAMCORE_OK)
    GST_WARNING_OBJECT (self, "no hot-plug reports: %s", camcore_strerror (rc));
  gint n = 0;
  GList *devices = devices_of (m, &n);
  g_mutex_lock (&self->lock);
  self->synthetic_count = n;
  g_mutex_unlock (&self->lock);
  for (GList * l = devices; l; l = l->next)
    remember_device (self, l->data);
  g_list_free (devices);
  return TRUE;
}

static void
gst_camcore_device_provider_stop (GstDeviceProvider * provider)
{
  GstCamcoreDeviceProvider *self = GST_CAMCORE_DEVICE_PROVIDER (provider);
  g_mutex_lock (&self->lock);
  camcore_manager *m = self->manager;
  self->manager = NULL;
  g_mutex_unlock (&self->lock);
  if (m) {
    /* After it returns no hot-plug callback runs. */
    camcore_manager_set_hotplug_callbacks (m, NULL);
    camcore_manager_free (m);
  }
  g_mutex_lock (&self->lock);
  g_hash_table_remove_all (self->devices);
  g_mutex_unlock (&self->lock);
}

static void
gst_camcore_device_provider_finalize (GObject * object)
{
  GstCamcoreDeviceProvider *self = GST_CAMCORE_DEVICE_PROVIDER (object);
  g_hash_table_unref (self->devices);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (gst_camcore_device_provider_parent_class)->finalize (object);
}

static void
gst_camcore_device_provider_init (GstCamcoreDeviceProvider * self)
{
  g_mutex_init (&self->lock);
  self->devices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, gst_object_unref);
}

static void
gst_camcore_device_provider_class_init (GstCamcoreDeviceProviderClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstDeviceProviderClass *dm_class = GST_DEVICE_PROVIDER_CLASS (klass);
  GST_DEBUG_CATEGORY_INIT (gst_camcore_device_provider_debug, "camcoredeviceprovider", 0,
      "camcore device provider");
  gobject_class->finalize = gst_camcore_device_provider_finalize;
  dm_class->probe = gst_camcore_device_provider_probe;
  dm_class->start = gst_camcore_device_provider_start;
  dm_class->stop = gst_camcore_device_provider_stop;
  gst_device_provider_class_set_static_metadata (dm_class, "camcore camera provider",
      "Source/Video", "Lists camcore's cameras, with hot-plug", "camcore maintainers");
}
