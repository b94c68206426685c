# SPDX-License-Identifier: MIT
"""The raw ctypes layer of camcore: libcamcore's C ABI (include/camcore.h) as it is.

Everything here mirrors the header one to one: the status codes and enum
values, every struct field for field (``camcore_frame``, ...), the callback
types, and the argument and result types of every function, declared once
on the loaded library, ``lib``. The objects of the package (Manager,
Capturer, Session, Frame, ...) are built on this module; use it directly
only for what they do not cover, and read include/camcore.h for the rules of
each call.

Finding the library, first that applies:

1. the environment variable ``CAMCORE_LIBRARY`` (a path to the .so; if set
   and it does not load, the import fails rather than trying elsewhere);
2. the copy bundled inside the package (``camcore/_libs/``, present only
   in the self-contained wheel);
3. ``pkg-config --variable=libdir camcore`` (honours ``PKG_CONFIG_PATH``);
4. the dynamic loader's path (``ctypes.util.find_library("camcore")``,
   then ``libcamcore.so.0``; honours ``LD_LIBRARY_PATH``).

The import fails with ``ImportError`` when the library is missing or its
major/minor version does not match the header version mirrored here.
"""
from __future__ import annotations

import ctypes
import os
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char,
    c_char_p,
    c_int,
    c_int32,
    c_int64,
    c_size_t,
    c_uint16,
    c_uint32,
    c_uint64,
    c_void_p,
)
from typing import Any, List, Optional, Tuple

from ._version import VERSION_MAJOR, VERSION_MINOR, VERSION_PATCH

VERSION: Tuple[int, int, int] = (VERSION_MAJOR, VERSION_MINOR, VERSION_PATCH)
#: VERSION packed as CAMCORE_VERSION_NUM does: (major << 16) | (minor << 8) | patch.
VERSION_NUM = (VERSION_MAJOR << 16) | (VERSION_MINOR << 8) | VERSION_PATCH

# --------------------------------------------------------------------------
# Status codes (camcore_status)
# --------------------------------------------------------------------------

OK = 0
E_INVALID_ARG = -1
E_NO_DEVICE = -2
E_BUSY = -3
E_ACCESS = -4
E_NOT_SUPPORTED = -5
E_TIMEOUT = -6
E_IO = -7
E_STATE = -8
E_CUSTOM_SOURCE_ACTIVE = -9
E_WOULD_DEADLOCK = -10
E_NO_MEMORY = -11
E_INTERNAL = -12
E_BANDWIDTH = -13

# Range kinds, device types, positions, flags.
RANGE_DISCRETE, RANGE_STEPWISE, RANGE_CONTINUOUS, RANGE_UNKNOWN = 0, 1, 2, 3
DEVICE_TYPE_BUILTIN, DEVICE_TYPE_EXTERNAL, DEVICE_TYPE_VIRTUAL, DEVICE_TYPE_INFRARED = 0, 1, 2, 3
POSITION_UNKNOWN, POSITION_FRONT, POSITION_BACK, POSITION_EXTERNAL = 0, 1, 2, 3
DEVICE_MULTIPLANAR = 0x1
DEVICE_SYNTHETIC = 0x2
DEVICE_UNAVAILABLE = 0x4
DEVICE_HIDDEN = 0x8
LIST_HIDDEN = 0x1
FORMAT_COMPRESSED = 0x1
FORMAT_EMULATED = 0x2
FRAME_CORRUPTED = 0x1
ADJUSTED_SIZE = 0x1
ADJUSTED_RATE = 0x2
ADJUSTED_FORMAT = 0x4
FOURCC_NATIVE = 0

RANGE_NAMES = {0: "discrete", 1: "stepwise", 2: "continuous", 3: "unknown"}
TYPE_NAMES = {0: "builtin", 1: "external", 2: "virtual", 3: "infrared"}
POSITION_NAMES = {0: "unknown", 1: "front", 2: "back", 3: "external"}

U32_MAX = 0xFFFFFFFF

# --------------------------------------------------------------------------
# C structs (field for field as in include/camcore.h)
# --------------------------------------------------------------------------


class camcore_fraction(Structure):
    """A rational number, frames per second (camcore_fraction)."""

    _fields_ = [("numerator", c_uint32), ("denominator", c_uint32)]


class camcore_manager_config(Structure):
    """Manager settings (camcore_manager_config); fill with camcore_manager_config_init."""

    _fields_ = [("struct_size", c_uint32), ("include_synthetic", c_int32), ("backend", c_int32),
                ("pipewire_fd", c_int32), ("portal", c_int32), ("backend_names", c_char_p)]


class camcore_device_info(Structure):
    """One camera (camcore_device_info); strings owned by the list."""

    _fields_ = [
        ("id", c_char_p),
        ("name", c_char_p),
        ("node", c_char_p),
        ("bus_info", c_char_p),
        ("driver", c_char_p),
        ("usb_vendor_id", c_uint16),
        ("usb_product_id", c_uint16),
        ("flags", c_uint32),
        ("device_caps", c_uint32),
        ("type", c_int32),
        ("position", c_int32),
        ("unavailable_reason", c_char_p),
        ("backend", c_char_p),
        ("v4l2_id", c_char_p),
    ]


class camcore_holder(Structure):
    """A process holding a device node open (camcore_holder, since 0.2)."""

    _fields_ = [("pid", c_int32), ("command", c_char * 64)]


class camcore_device_details(Structure):
    """More of one device (camcore_device_details, since 0.2); owned by the list."""

    _fields_ = [("struct_size", c_uint32), ("other_id_count", c_uint32), ("other_ids", POINTER(c_char_p)),
                ("rotation", c_int32)]


class camcore_device_list(Structure):
    """A device list (camcore_device_list); one allocation, freed with camcore_device_list_free."""

    _fields_ = [("count", c_size_t), ("devices", POINTER(camcore_device_info)),
                ("details", POINTER(POINTER(camcore_device_details)))]


class camcore_format(Structure):
    """One format at one size or size range (camcore_format); rates owned by the list."""

    _fields_ = [
        ("fourcc", c_uint32),
        ("flags", c_uint32),
        ("description", c_char * 32),
        ("size_kind", c_int32),
        ("width", c_uint32),
        ("height", c_uint32),
        ("min_width", c_uint32),
        ("max_width", c_uint32),
        ("step_width", c_uint32),
        ("min_height", c_uint32),
        ("max_height", c_uint32),
        ("step_height", c_uint32),
        ("rate_kind", c_int32),
        ("rates", POINTER(camcore_fraction)),
        ("rate_count", c_size_t),
        ("min_fps", camcore_fraction),
        ("max_fps", camcore_fraction),
        ("interval_step", camcore_fraction),
    ]


class camcore_format_list(Structure):
    """A format list (camcore_format_list); freed with camcore_format_list_free."""

    _fields_ = [("count", c_size_t), ("formats", POINTER(camcore_format))]


class camcore_plane(Structure):
    """One plane of a frame (camcore_plane): borrowed data address, stride and length in bytes."""

    # data is `uint8_t *` in C; c_void_p has the same ABI and reads as an int address.
    _fields_ = [("data", c_void_p), ("stride", c_uint32), ("length", c_uint32)]


class camcore_frame(Structure):
    """A captured frame (camcore_frame); borrowed for the callback unless retained."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("fourcc", c_uint32),
        ("width", c_uint32),
        ("height", c_uint32),
        ("plane_count", c_uint32),
        ("flags", c_uint32),
        ("planes", camcore_plane * 3),
        ("timestamp_ns", c_uint64),
        ("sequence", c_uint32),
        ("dropped_before", c_uint32),
        ("dmabuf_fd", c_int32 * 3),
        ("dmabuf_offset", c_uint32 * 3),
    ]


ON_FRAME = CFUNCTYPE(None, c_void_p, POINTER(camcore_frame))
ON_ERROR = CFUNCTYPE(None, c_void_p, c_int, c_char_p)
ON_STALL = CFUNCTYPE(None, c_void_p, c_int, c_uint64)
ON_RESTART = CFUNCTYPE(None, c_void_p, c_int, c_uint32)
#: `camcore_frame *`.
frame_p = POINTER(camcore_frame)


class camcore_frame_callbacks(Structure):
    """Frame and error callbacks (camcore_frame_callbacks); copied at start."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("user_data", c_void_p),
        ("on_frame", ON_FRAME),
        ("on_error", ON_ERROR),
        ("on_stall", ON_STALL),
        ("on_restart", ON_RESTART),
    ]


class camcore_capture_config(Structure):
    """Capture settings (camcore_capture_config); fill with camcore_capture_config_init."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("fourcc", c_uint32),
        ("width", c_uint32),
        ("height", c_uint32),
        ("fps", camcore_fraction),
        ("buffer_count", c_uint32),
        ("output_fourcc", c_uint32),
        ("dmabuf", c_int32),
        ("output_width", c_uint32),
        ("output_height", c_uint32),
        ("stall_restart_ms", c_uint32),
        ("stall_restart_tries", c_uint32),
        ("output_rotation", c_uint32),
    ]


class camcore_capture_format(Structure):
    """What a started capturer uses (camcore_capture_format); set struct_size first."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("fourcc", c_uint32),
        ("width", c_uint32),
        ("height", c_uint32),
        ("plane_count", c_uint32),
        ("strides", c_uint32 * 3),
        ("frame_bytes", c_uint32),
        ("fps", camcore_fraction),
        ("buffer_count", c_uint32),
        ("source_fourcc", c_uint32),
        ("adjusted", c_uint32),
    ]


class camcore_capture_stats(Structure):
    """Counters since the last start (camcore_capture_stats); set struct_size first."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("frames_delivered", c_uint64),
        ("frames_dropped", c_uint64),
        ("frames_corrupted", c_uint64),
        ("measured_fps", ctypes.c_double),
        ("stalls", c_uint64),
        ("restarts", c_uint64),
    ]


class camcore_preference(Structure):
    """What an app would like to capture (camcore_preference); fill with camcore_preference_init."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("width", c_uint32),
        ("height", c_uint32),
        ("min_fps", camcore_fraction),
        ("max_fps", camcore_fraction),
        ("output_fourcc", c_uint32),
    ]


class camcore_setting(Structure):
    """A capture setting chosen by negotiation (camcore_setting); set struct_size first."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("fourcc", c_uint32),
        ("width", c_uint32),
        ("height", c_uint32),
        ("fps", camcore_fraction),
        ("adjusted", c_uint32),
    ]


class camcore_pixel_format_info(Structure):
    """One pixel format of camcore's table (camcore_pixel_format_info); set struct_size first."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("fourcc", c_uint32),
        ("name", c_char * 8),
        ("description", c_char * 32),
        ("flags", c_uint32),
        ("plane_count", c_uint32),
        ("memory_plane_count", c_uint32),
        ("bytes_per_pixel", c_uint32),
        ("horizontal_subsampling", c_uint32),
        ("vertical_subsampling", c_uint32),
        ("plane_group_bytes", c_uint32 * 3),
        ("plane_group_pixels", c_uint32 * 3),
        ("plane_vertical_subsampling", c_uint32 * 3),
    ]


class camcore_thread_hooks(Structure):
    """Hooks run on each thread camcore starts (camcore_thread_hooks)."""

    _fields_ = [("struct_size", c_uint32), ("user_data", c_void_p),
                ("on_thread_start", CFUNCTYPE(None, c_void_p, c_char_p)),
                ("on_thread_stop", CFUNCTYPE(None, c_void_p, c_char_p))]


THREAD_HOOK = CFUNCTYPE(None, c_void_p, c_char_p)

# --------------------------------------------------------------------------
# Controls (S27, S28): the "Controls" section of camcore.h
# --------------------------------------------------------------------------

#: Control types (camcore_control_type; equal to V4L2_CTRL_TYPE_*).
CONTROL_TYPE_INTEGER = 1
CONTROL_TYPE_BOOLEAN = 2
CONTROL_TYPE_MENU = 3
CONTROL_TYPE_BUTTON = 4
CONTROL_TYPE_INTEGER64 = 5
CONTROL_TYPE_STRING = 7
CONTROL_TYPE_BITMASK = 8
CONTROL_TYPE_INTEGER_MENU = 9
CONTROL_TYPE_NAMES = {1: "int", 2: "bool", 3: "menu", 4: "button", 5: "int64", 7: "string",
                       8: "bitmask", 9: "intmenu"}

#: Control flags (CAMCORE_CONTROL_FLAG_*; equal to V4L2_CTRL_FLAG_*).
CONTROL_FLAG_DISABLED = 0x0001
CONTROL_FLAG_GRABBED = 0x0002
CONTROL_FLAG_READ_ONLY = 0x0004
CONTROL_FLAG_UPDATE = 0x0008
CONTROL_FLAG_INACTIVE = 0x0010
CONTROL_FLAG_SLIDER = 0x0020
CONTROL_FLAG_WRITE_ONLY = 0x0040
CONTROL_FLAG_VOLATILE = 0x0080
CONTROL_FLAG_HAS_PAYLOAD = 0x0100
CONTROL_FLAG_EXECUTE_ON_WRITE = 0x0200
CONTROL_FLAG_MODIFY_LAYOUT = 0x0400
CONTROL_FLAG_DYNAMIC_ARRAY = 0x0800
CONTROL_FLAG_NAMES = [
    (CONTROL_FLAG_DISABLED, "disabled"), (CONTROL_FLAG_GRABBED, "grabbed"),
    (CONTROL_FLAG_READ_ONLY, "read-only"), (CONTROL_FLAG_UPDATE, "update"),
    (CONTROL_FLAG_INACTIVE, "inactive"), (CONTROL_FLAG_SLIDER, "slider"),
    (CONTROL_FLAG_WRITE_ONLY, "write-only"), (CONTROL_FLAG_VOLATILE, "volatile"),
    (CONTROL_FLAG_HAS_PAYLOAD, "has-payload"), (CONTROL_FLAG_EXECUTE_ON_WRITE, "execute-on-write"),
    (CONTROL_FLAG_MODIFY_LAYOUT, "modify-layout"), (CONTROL_FLAG_DYNAMIC_ARRAY, "dynamic-array")]

#: What changed in a ControlChange (CAMCORE_CONTROL_CHANGED_*; V4L2_EVENT_CTRL_CH_*).
CONTROL_CHANGED_VALUE = 0x1
CONTROL_CHANGED_FLAGS = 0x2
CONTROL_CHANGED_RANGE = 0x4

#: Ids of common camera controls (CAMCORE_CID_*; equal to V4L2_CID_*).
CID_BRIGHTNESS = 0x00980900
CID_CONTRAST = 0x00980901
CID_SATURATION = 0x00980902
CID_WHITE_BALANCE_AUTO = 0x0098090C
CID_AUTOGAIN = 0x00980912
CID_GAIN = 0x00980913
CID_POWER_LINE_FREQUENCY = 0x00980918
CID_WHITE_BALANCE_TEMPERATURE = 0x0098091A
CID_SHARPNESS = 0x0098091B
CID_BACKLIGHT_COMPENSATION = 0x0098091C
CID_EXPOSURE_AUTO = 0x009A0901
CID_EXPOSURE_ABSOLUTE = 0x009A0902
CID_PAN_ABSOLUTE = 0x009A0908
CID_TILT_ABSOLUTE = 0x009A0909
CID_FOCUS_ABSOLUTE = 0x009A090A
CID_FOCUS_AUTO = 0x009A090C
CID_ZOOM_ABSOLUTE = 0x009A090D


class camcore_menu_item(Structure):
    _fields_ = [("index", c_uint32), ("name", c_char_p), ("value", c_int64)]


class camcore_control_info(Structure):
    _fields_ = [
        ("id", c_uint32),
        ("type", c_int32),
        ("name", c_char_p),
        ("minimum", c_int64),
        ("maximum", c_int64),
        ("step", c_int64),
        ("default_value", c_int64),
        ("value", c_int64),
        ("flags", c_uint32),
        ("menu_count", c_uint32),
        ("menu", POINTER(camcore_menu_item)),
    ]


class camcore_control_list(Structure):
    _fields_ = [("count", c_size_t), ("controls", POINTER(camcore_control_info))]


ON_CONTROL_CHANGED = CFUNCTYPE(None, c_void_p, c_uint32, c_int64, c_uint32, c_uint32)


class camcore_control_callbacks(Structure):
    _fields_ = [
        ("struct_size", c_uint32),
        ("user_data", c_void_p),
        ("on_control_changed", ON_CONTROL_CHANGED),
    ]


# --------------------------------------------------------------------------
# Pull (S36), hot-plug (S24), camera portal (S35)
# --------------------------------------------------------------------------

#: Queue depths start_pull() accepts (CAMCORE_PULL_DEPTH_MIN...MAX).
PULL_DEPTH_MIN, PULL_DEPTH_MAX = 1, 8

ON_DEVICE = CFUNCTYPE(None, c_void_p, POINTER(camcore_device_info))
ON_PERMISSION = CFUNCTYPE(None, c_void_p, c_int32, c_char_p)


class camcore_hotplug_callbacks(Structure):
    """Hot-plug callbacks of a manager (camcore_hotplug_callbacks)."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("user_data", c_void_p),
        ("on_connected", ON_DEVICE),
        ("on_disconnected", ON_DEVICE),
        ("on_permission", ON_PERMISSION),
    ]

#: Where cameras come from (camcore_backend values in this order, S33, S41): "auto"
#: (PipeWire inside a sandbox, else V4L2, and libcamera when a media-pipeline
#: camera is there), "v4l2", "pipewire", "both" (every backend) or "libcamera".
BACKENDS = ("auto", "v4l2", "pipewire", "both", "libcamera")
BACKEND_AUTO, BACKEND_V4L2, BACKEND_PIPEWIRE, BACKEND_BOTH, BACKEND_LIBCAMERA = range(5)
#: When PipeWire is reached through the camera portal (camcore_portal values in
#: this order, S35: a sandboxed app asks the portal for camera access).
PORTALS = ("auto", "never", "always")
PORTAL_AUTO, PORTAL_NEVER, PORTAL_ALWAYS = range(3)
#: Camera permission states (camcore_permission values in this order, S35).
PERMISSIONS = ("unknown", "pending", "granted", "denied")
PERMISSION_UNKNOWN, PERMISSION_PENDING, PERMISSION_GRANTED, PERMISSION_DENIED = range(4)


# --------------------------------------------------------------------------
# Video session (S9–S21): the "Video session" section of camcore.h
# --------------------------------------------------------------------------

#: Initial video state of a transmission (S10): sending at once, or paused.
VIDEO_RESUME = 0
VIDEO_PAUSE = 1
#: Capture hook results (S20: a hook sees each camera frame first): pass it on,
#: drop it, or replace it.
HOOK_PASS = 0
HOOK_DROP = 1
HOOK_REPLACE = 2
#: The most previews one session takes (CAMCORE_MAX_PREVIEWS); one more
#: raises NoMemoryError.
MAX_PREVIEWS = 64


class camcore_session_config(Structure):
    """Session settings (camcore_session_config)."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("device_id", c_char_p),
        ("preference", camcore_preference),
        ("return_to_reconnected_device", c_int32),
        ("output_width", c_uint32),
        ("output_height", c_uint32),
        ("stall_restart_ms", c_uint32),
        ("stall_restart_tries", c_uint32),
    ]


class camcore_session_state(Structure):
    """A snapshot of a session (camcore_session_state)."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("camera_on", c_int32),
        ("transmitting", c_int32),
        ("paused", c_int32),
        ("held", c_int32),
        ("preparing", c_int32),
        ("hard_muted", c_int32),
        ("custom_source", c_int32),
        ("stopped_by_app", c_int32),
        ("preview_count", c_uint32),
        ("device_id", c_char * 256),
        ("format", camcore_capture_format),
        ("adjusted", c_uint32),
    ]


ON_COMPLETION = CFUNCTYPE(None, c_void_p, c_int)
ON_CAPTURE = CFUNCTYPE(c_int, c_void_p, frame_p, frame_p)
ON_SESSION_DEVICE = CFUNCTYPE(None, c_void_p, POINTER(camcore_device_info))
ON_SELECTED = CFUNCTYPE(None, c_void_p, POINTER(camcore_device_info),
                         POINTER(camcore_capture_format))
ON_DEVICE_ERROR = CFUNCTYPE(None, c_void_p, POINTER(camcore_device_info), c_int, c_char_p)
ON_DEVICE_STALL = CFUNCTYPE(None, c_void_p, POINTER(camcore_device_info), c_int, c_uint64)
ON_DEVICE_RESTART = CFUNCTYPE(None, c_void_p, POINTER(camcore_device_info), c_int, c_uint32)


class camcore_capture_hook(Structure):
    """A capture hook (camcore_capture_hook, S20)."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("user_data", c_void_p),
        ("on_capture", ON_CAPTURE),
    ]


class camcore_device_callbacks(Structure):
    """Device events of a session (camcore_device_callbacks, S24)."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("user_data", c_void_p),
        ("on_connected", ON_SESSION_DEVICE),
        ("on_disconnected", ON_SESSION_DEVICE),
        ("on_selected", ON_SELECTED),
        ("on_error", ON_DEVICE_ERROR),
        ("on_stall", ON_DEVICE_STALL),
        ("on_restart", ON_DEVICE_RESTART),
    ]


# --------------------------------------------------------------------------
# Every function of camcore.h: (name, restype, argtypes)
# --------------------------------------------------------------------------
# Opaque handles (camcore_manager *, camcore_capturer *, camcore_session *)
# are passed as c_void_p: an int address, or None for NULL.
manager_p = c_void_p
capturer_p = c_void_p
session_p = c_void_p

PROTOTYPES: List[Tuple[str, Any, List[Any]]] = [
    ("camcore_version", c_uint32, []),
    ("camcore_version_string", c_char_p, []),
    ("camcore_strerror", c_char_p, [c_int]),
    ("camcore_last_error_message", c_char_p, []),
    ("camcore_fourcc_to_string", c_char_p, [c_uint32, POINTER(c_char)]),
    ("camcore_pixel_format_get_info", c_int, [c_uint32, POINTER(camcore_pixel_format_info)]),
    ("camcore_pixel_format_plane_size", c_int,
     [c_uint32, c_uint32, c_uint32, c_uint32, POINTER(c_uint32), POINTER(c_uint32)]),
    ("camcore_pixel_format_frame_size", c_int, [c_uint32, c_uint32, c_uint32, POINTER(c_uint32)]),
    ("camcore_thread_hooks_init", None, [POINTER(camcore_thread_hooks)]),
    ("camcore_set_thread_hooks", c_int, [POINTER(camcore_thread_hooks)]),
    # Manager, devices, formats, negotiation
    ("camcore_manager_config_init", None, [POINTER(camcore_manager_config)]),
    ("camcore_manager_new", c_int, [POINTER(camcore_manager_config), POINTER(manager_p)]),
    ("camcore_manager_free", None, [manager_p]),
    ("camcore_manager_list_devices", c_int, [manager_p, POINTER(POINTER(camcore_device_list))]),
    ("camcore_manager_list_devices_with", c_int, [manager_p, c_uint32, POINTER(POINTER(camcore_device_list))]),
    ("camcore_device_list_free", None, [POINTER(camcore_device_list)]),
    ("camcore_manager_list_formats", c_int,
     [manager_p, c_char_p, POINTER(POINTER(camcore_format_list))]),
    ("camcore_format_list_free", None, [POINTER(camcore_format_list)]),
    ("camcore_preference_init", None, [POINTER(camcore_preference)]),
    ("camcore_manager_negotiate", c_int,
     [manager_p, c_char_p, POINTER(camcore_preference), POINTER(camcore_setting)]),
    ("camcore_manager_format_for", c_int,
     [manager_p, c_char_p, c_uint32, c_uint32, camcore_fraction, POINTER(camcore_setting)]),
    ("camcore_manager_max_frame_rate", c_int,
     [manager_p, c_char_p, c_uint32, c_uint32, c_uint32, camcore_fraction,
      POINTER(camcore_fraction)]),
    # Hot-plug and the camera portal
    ("camcore_manager_set_hotplug_callbacks", c_int,
     [manager_p, POINTER(camcore_hotplug_callbacks)]),
    ("camcore_manager_get_camera_permission", c_int, [manager_p, POINTER(c_int32)]),
    ("camcore_manager_request_camera_access", c_int, [manager_p, c_int32, POINTER(c_int32)]),
    ("camcore_manager_camera_present", c_int, [manager_p]),
    ("camcore_manager_get_holders", c_int, [manager_p, c_char_p, POINTER(camcore_holder), c_size_t,
                                            POINTER(c_size_t), POINTER(c_uint32)]),
    # Frames and the capturer
    ("camcore_frame_retain", frame_p, [frame_p]),
    ("camcore_frame_release", None, [frame_p]),
    ("camcore_frame_convert", c_int, [frame_p, c_uint32, c_uint32, c_uint32, c_void_p, c_size_t]),
    ("camcore_frame_callbacks_init", None, [POINTER(camcore_frame_callbacks)]),
    ("camcore_capture_config_init", None, [POINTER(camcore_capture_config)]),
    ("camcore_capturer_open", c_int, [manager_p, c_char_p, POINTER(capturer_p)]),
    ("camcore_capturer_close", None, [capturer_p]),
    ("camcore_capturer_start", c_int,
     [capturer_p, POINTER(camcore_capture_config), POINTER(camcore_frame_callbacks)]),
    ("camcore_capturer_stop", c_int, [capturer_p]),
    ("camcore_capturer_is_streaming", c_int, [capturer_p]),
    ("camcore_capturer_get_format", c_int, [capturer_p, POINTER(camcore_capture_format)]),
    ("camcore_capturer_get_stats", c_int, [capturer_p, POINTER(camcore_capture_stats)]),
    ("camcore_capturer_get_frame_note", c_int, [capturer_p, c_char_p, c_size_t]),
    ("camcore_session_get_note", c_int, [session_p, c_char_p, c_size_t]),
    ("camcore_capturer_fd", c_int, [capturer_p]),
    ("camcore_capturer_device_id", c_char_p, [capturer_p]),
    ("camcore_capturer_start_pull", c_int, [capturer_p, POINTER(camcore_capture_config), c_uint32]),
    ("camcore_capturer_acquire_frame", c_int, [capturer_p, c_int32, POINTER(frame_p)]),
    ("camcore_capturer_next_frame", c_int, [capturer_p, c_int32, POINTER(frame_p)]),
    ("camcore_capturer_get_frame_fd", c_int, [capturer_p, POINTER(c_int32)]),
    # Controls
    ("camcore_capturer_list_controls", c_int,
     [capturer_p, POINTER(POINTER(camcore_control_list))]),
    ("camcore_control_list_free", None, [POINTER(camcore_control_list)]),
    ("camcore_capturer_get_control", c_int, [capturer_p, c_uint32, POINTER(c_int64)]),
    ("camcore_capturer_set_control", c_int, [capturer_p, c_uint32, c_int64, POINTER(c_int64)]),
    ("camcore_capturer_get_control_string", c_int, [capturer_p, c_uint32, c_void_p, c_size_t]),
    ("camcore_capturer_set_control_string", c_int, [capturer_p, c_uint32, c_char_p]),
    ("camcore_control_callbacks_init", None, [POINTER(camcore_control_callbacks)]),
    ("camcore_capturer_set_control_callbacks", c_int,
     [capturer_p, POINTER(camcore_control_callbacks)]),
    # Video session
    ("camcore_session_config_init", None, [POINTER(camcore_session_config)]),
    ("camcore_session_new", c_int,
     [manager_p, POINTER(camcore_session_config), POINTER(session_p)]),
    ("camcore_session_free", None, [session_p]),
    ("camcore_session_start_transmission", c_int, [session_p, c_int, c_int]),
    ("camcore_session_end_preparation", c_int, [session_p]),
    ("camcore_session_pause_video", c_int, [session_p]),
    ("camcore_session_resume_video", c_int, [session_p]),
    ("camcore_session_hold", c_int, [session_p]),
    ("camcore_session_unhold", c_int, [session_p]),
    ("camcore_session_set_hard_mute", c_int, [session_p, c_int]),
    ("camcore_session_end_transmission", c_int, [session_p]),
    ("camcore_session_set_transmission_sink", c_int,
     [session_p, POINTER(camcore_frame_callbacks)]),
    ("camcore_session_add_preview", c_int,
     [session_p, POINTER(camcore_frame_callbacks), POINTER(c_uint32)]),
    ("camcore_session_remove_preview", c_int, [session_p, c_uint32]),
    ("camcore_session_get_state", c_int, [session_p, POINTER(camcore_session_state)]),
    ("camcore_session_start", c_int,
     [session_p, POINTER(camcore_capture_config), ON_COMPLETION, c_void_p]),
    ("camcore_session_stop", c_int, [session_p, ON_COMPLETION, c_void_p]),
    ("camcore_session_restart", c_int, [session_p, ON_COMPLETION, c_void_p]),
    ("camcore_session_change", c_int,
     [session_p, POINTER(camcore_capture_config), ON_COMPLETION, c_void_p]),
    ("camcore_session_select", c_int, [session_p, c_char_p, ON_COMPLETION, c_void_p]),
    ("camcore_session_flip", c_int, [session_p, ON_COMPLETION, c_void_p]),
    ("camcore_session_set_preference", c_int,
     [session_p, POINTER(camcore_preference), ON_COMPLETION, c_void_p]),
    ("camcore_session_set_capture_hook", c_int, [session_p, POINTER(camcore_capture_hook)]),
    ("camcore_session_set_custom_source", c_int, [session_p, c_int]),
    ("camcore_session_push_frame", c_int, [session_p, frame_p]),
    ("camcore_session_set_device_callbacks", c_int,
     [session_p, POINTER(camcore_device_callbacks)]),
    ("camcore_session_add_preview_pull", c_int, [session_p, c_uint32, POINTER(c_uint32)]),
    ("camcore_session_acquire_preview_frame", c_int,
     [session_p, c_uint32, c_int32, POINTER(frame_p)]),
    ("camcore_session_get_preview_fd", c_int, [session_p, c_uint32, POINTER(c_int32)]),
    ("camcore_session_next_preview_frame", c_int,
     [session_p, c_uint32, c_int32, POINTER(frame_p)]),
]

# --------------------------------------------------------------------------
# Loading the library
# --------------------------------------------------------------------------

#: Where the self-contained wheel keeps libcamcore and the libraries it needs.
BUNDLED_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_libs")


def _pkg_config_libdir() -> Optional[str]:
    # Imported here, not at the top: only a lookup without CAMCORE_LIBRARY
    # pays for them (they are a good part of a bare `import camcore`).
    import shutil
    import subprocess

    exe = shutil.which("pkg-config")
    if not exe:
        return None
    try:
        out = subprocess.run([exe, "--variable=libdir", "camcore"], capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    libdir = out.stdout.strip()
    return libdir if out.returncode == 0 and libdir else None


def load() -> Tuple[ctypes.CDLL, str]:
    """Loads libcamcore as the module docstring says; returns (library, path or name)."""
    env = os.environ.get("CAMCORE_LIBRARY")
    if env:
        try:
            return ctypes.CDLL(env), env
        except OSError as e:
            raise ImportError(f"camcore: CAMCORE_LIBRARY={env!r} does not load: {e}") from e
    tried = []
    bundled = os.path.join(BUNDLED_DIR, "libcamcore.so.0")
    if os.path.exists(bundled):
        try:
            return ctypes.CDLL(bundled), bundled
        except OSError as e:
            tried.append(f"{bundled}: {e}")
    libdir = _pkg_config_libdir()
    if libdir:
        for name in ("libcamcore.so.0", "libcamcore.so"):
            path = os.path.join(libdir, name)
            if os.path.exists(path):
                try:
                    return ctypes.CDLL(path), path
                except OSError as e:
                    tried.append(f"{path}: {e}")
    from ctypes.util import find_library

    for candidate in (find_library("camcore"), "libcamcore.so.0", "libcamcore.so"):
        if not candidate:
            continue
        try:
            return ctypes.CDLL(candidate), candidate
        except OSError as e:
            tried.append(f"{candidate}: {e}")
    raise ImportError(
        "camcore: libcamcore.so not found; set CAMCORE_LIBRARY to its path, add its "
        "pkgconfig directory to PKG_CONFIG_PATH, or its directory to LD_LIBRARY_PATH "
        "(or install the self-contained camcore wheel, which carries its own copy)"
        + ("" if not tried else " (tried: " + "; ".join(tried) + ")"))


def declare(library: ctypes.CDLL) -> None:
    """Sets restype and argtypes of every function of PROTOTYPES on `library`."""
    for name, restype, argtypes in PROTOTYPES:
        try:
            fn = getattr(library, name)
        except AttributeError as e:
            raise ImportError(f"camcore: {library._name} lacks {name}; wrong or older library?") \
                from e
        fn.restype = restype
        fn.argtypes = argtypes


def check_version(library: ctypes.CDLL, path: str) -> None:
    """ImportError unless the library's version can serve this binding: the same
    major; before 1.0 every minor may change the ABI, so the minor must match
    too; from 1.0 on the library may be newer (minor >= ours) but not older."""
    packed = library.camcore_version()
    major, minor = packed >> 16, (packed >> 8) & 0xFF
    if major != VERSION_MAJOR or (major == 0 and minor != VERSION_MINOR) or minor < VERSION_MINOR:
        raise ImportError(
            f"camcore: library {path} is version {major}.{minor}.{packed & 0xFF}, "
            f"this package needs {VERSION_MAJOR}.{VERSION_MINOR}.x")


lib, lib_path = load()
declare(lib)
check_version(lib, lib_path)
