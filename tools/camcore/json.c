// SPDX-License-Identifier: MIT
/*
 * JSON output: a string, "key": value pairs, a camera's fields.
 */
#include "camcore_tool.h"

#include <inttypes.h>
#include <stdio.h>

void json_str(const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");

    putchar('"');
    for (; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", stdout); break;
        case '\\': fputs("\\\\", stdout); break;
        case '\n': fputs("\\n", stdout); break;
        case '\r': fputs("\\r", stdout); break;
        case '\t': fputs("\\t", stdout); break;
        default:
            if (*p < 0x20)
                printf("\\u%04x", *p);
            else
                putchar(*p);
        }
    }
    putchar('"');
}

/* "key": "value" with a leading comma unless first. */
void json_kv_str(int *first, const char *key, const char *value)
{
    printf("%s\"%s\": ", *first ? "" : ", ", key);
    json_str(value);
    *first = 0;
}

void json_kv_int(int *first, const char *key, long long value)
{
    printf("%s\"%s\": %lld", *first ? "" : ", ", key, value);
    *first = 0;
}

void json_kv_bool(int *first, const char *key, int value)
{
    printf("%s\"%s\": %s", *first ? "" : ", ", key, value ? "true" : "false");
    *first = 0;
}

void json_fps_number(camcore_fraction f)
{
    if (f.denominator == 0 || f.numerator == 0)
        printf("null");
    else if (f.numerator % f.denominator == 0)
        printf("%" PRIu32, f.numerator / f.denominator);
    else
        printf("%.6g", (double)f.numerator / f.denominator);
}

void json_fraction(camcore_fraction f)
{
    if (f.denominator == 0)
        printf("null");
    else
        printf("{\"num\": %" PRIu32 ", \"den\": %" PRIu32 "}", f.numerator, f.denominator);
}

/* The decimal for people and plots, the exact fraction beside it: 30000/1001
 * is not 29.97, and a program comparing rates needs the fraction. */
void json_kv_fps(int *first, const char *key, camcore_fraction f)
{
    printf("%s\"%s\": ", *first ? "" : ", ", key);
    json_fps_number(f);
    printf(", \"%s_exact\": ", key);
    json_fraction(f);
    *first = 0;
}

void json_device_fields(int *first, const camcore_device_info *dev)
{
    json_kv_str(first, "id", dev->id);
    json_kv_str(first, "name", dev->name);
    json_kv_str(first, "node", dev->node);
    json_kv_str(first, "backend", dev->backend);
    if (dev->v4l2_id && dev->v4l2_id[0])
        json_kv_str(first, "v4l2_id", dev->v4l2_id);
    json_kv_str(first, "type", type_name(dev->type));
    json_kv_str(first, "position", position_name(dev->position));
    json_kv_str(first, "driver", dev->driver);
    json_kv_str(first, "bus_info", dev->bus_info);
    json_kv_int(first, "usb_vendor_id", dev->usb_vendor_id);
    json_kv_int(first, "usb_product_id", dev->usb_product_id);
    json_kv_bool(first, "multiplanar", (dev->flags & CAMCORE_DEVICE_MULTIPLANAR) != 0);
    json_kv_bool(first, "synthetic", (dev->flags & CAMCORE_DEVICE_SYNTHETIC) != 0);
    json_kv_bool(first, "unavailable", (dev->flags & CAMCORE_DEVICE_UNAVAILABLE) != 0);
    if (dev->flags & CAMCORE_DEVICE_HIDDEN)
        json_kv_bool(first, "hidden", 1);
    if (dev->flags & CAMCORE_DEVICE_UNAVAILABLE)
        json_kv_str(first, "unavailable_reason", dev->unavailable_reason);
}

void json_details(int *first, const camcore_device_details *details)
{
    uint32_t i;

    if (details && details->rotation >= 0)
        json_kv_int(first, "rotation", details->rotation);
    if (!details || details->other_id_count == 0)
        return;
    printf("%s\"other_ids\": [", *first ? "" : ", ");
    for (i = 0; i < details->other_id_count; i++) {
        printf("%s", i ? ", " : "");
        json_str(details->other_ids[i]);
    }
    putchar(']');
    *first = 0;
}

const camcore_device_details *device_details(const camcore_device_list *list, const camcore_device_info *dev)
{
    if (!list || !list->details || dev < list->devices || dev >= list->devices + list->count)
        return NULL;
    return list->details[dev - list->devices];
}

void json_device(const camcore_device_info *dev)
{
    int first = 1;

    putchar('{');
    json_device_fields(&first, dev);
    putchar('}');
}
