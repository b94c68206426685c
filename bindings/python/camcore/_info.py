# SPDX-License-Identifier: MIT
"""Descriptions: plain, frozen copies of what the library reports.

Lists and descriptions are copied out of the C structs into these
dataclasses and the C lists freed at once, so they stay valid forever and
never touch library memory. Sizes are in pixels, rates are exact
``fractions.Fraction`` frames per second (NTSC's 30000/1001 stays exact).
"""
from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import List, Optional, Sequence, Tuple

from . import _raw
from ._args import frac
from ._errors import _s
from ._pixfmt import fourcc_str


def _adjustment_names(adjusted: int) -> List[str]:
    return [n for bit, n in ((_raw.ADJUSTED_SIZE, "size"), (_raw.ADJUSTED_RATE, "rate"),
                             (_raw.ADJUSTED_FORMAT, "format")) if adjusted & bit]


@dataclasses.dataclass(frozen=True)
class DeviceInfo:
    """One camera (camcore_device_info; SPEC S2, what a device reports).

    Only video *capture* nodes are listed (S1): never metadata, output, m2m
    or radio nodes. ``id`` is stable (S3): built from udev's serial or bus
    path, the same across reboots, replugs and users, and never the
    ``/dev/videoN`` number (which changes); pass it to Manager.open().

    name: display name; node: "/dev/videoN" or "synthetic"; bus_info, driver:
    as V4L2 reports; usb_vendor_id/usb_product_id: 0 where unknown; flags:
    DEVICE_* bits; device_caps: V4L2_CAP_* bits (0 for synthetic); type:
    'builtin' | 'external' | 'virtual' | 'infrared' (S44: an IR camera beside
    a colour one, listed after the colour cameras and never picked by
    default); position: 'unknown' | 'front' | 'back' | 'external'.
    """
    id: str
    name: str
    node: str
    bus_info: str
    driver: str
    usb_vendor_id: int
    usb_product_id: int
    flags: int
    device_caps: int
    type: str
    position: str
    multiplanar: bool
    synthetic: bool
    #: Why the device cannot be opened (e.g. permission denied); "" when usable.
    unavailable_reason: str = ""
    #: Where the camera comes from (S32): "v4l2" (a /dev/video node), "pipewire"
    #: (a PipeWire camera node) or "synthetic".
    backend: str = ""
    #: For a PipeWire camera over a V4L2 device: that device's V4L2 id; "" otherwise.
    v4l2_id: str = ""
    #: Not a camera of its own (S40: a capture node of a media pipeline), listed
    #: only by Manager.devices(hidden=True); unavailable_reason says why.
    hidden: bool = False
    #: The ids this camera has in the other backends (S42): what it reaches the
    #: camera through (a PipeWire node's V4L2 device or libcamera camera), and
    #: the entries of other backends in use that the listing folded into this
    #: one (a camera several backends reach is listed once).
    other_ids: Tuple[str, ...] = ()
    #: How far the sensor is mounted rotated, clockwise, in degrees (S45): 0, 90,
    #: 180, 270; None when the camera does not say.
    rotation: Optional[int] = None


@dataclasses.dataclass(frozen=True)
class Holder:
    """A process holding a camera's device node open (S46, camcore_holder)."""
    pid: int
    command: str


class Holders(List[Holder]):
    """The holders of a device node (Manager.holders), in pid order;
    ``unseen``: processes /proc did not let this one look at."""

    def __init__(self, items: "Sequence[Holder]", unseen: int = 0) -> None:
        super().__init__(items)
        self.unseen = unseen


def device_from_c(d: _raw.camcore_device_info,
                  details: "Optional[_raw.camcore_device_details]" = None) -> DeviceInfo:
    """A DeviceInfo copied from a camcore_device_info (and its list's details)."""
    others: Tuple[str, ...] = ()
    rotation: Optional[int] = None
    if details is not None and details.struct_size >= _raw.camcore_device_details.other_ids.offset + 8:
        others = tuple(_s(details.other_ids[k]) for k in range(details.other_id_count))
    if details is not None and details.struct_size >= _raw.camcore_device_details.rotation.offset + 4:
        rotation = details.rotation if details.rotation >= 0 else None
    return DeviceInfo(
        id=_s(d.id), name=_s(d.name), node=_s(d.node), bus_info=_s(d.bus_info),
        driver=_s(d.driver), usb_vendor_id=d.usb_vendor_id, usb_product_id=d.usb_product_id,
        flags=d.flags, device_caps=d.device_caps,
        type=_raw.TYPE_NAMES.get(d.type, f"unknown({d.type})"),
        position=_raw.POSITION_NAMES.get(d.position, f"unknown({d.position})"),
        multiplanar=bool(d.flags & _raw.DEVICE_MULTIPLANAR),
        synthetic=bool(d.flags & _raw.DEVICE_SYNTHETIC),
        unavailable_reason=_s(d.unavailable_reason), backend=_s(d.backend), v4l2_id=_s(d.v4l2_id),
        hidden=bool(d.flags & _raw.DEVICE_HIDDEN), other_ids=others, rotation=rotation)


@dataclasses.dataclass(frozen=True)
class Format:
    """One pixel format at one size or size range, with its rates (camcore_format;
    S5: formats are FourCC x frame size x frame rates, and a driver's stepwise or
    continuous ranges stay ranges rather than being expanded).

    For a discrete size width/height is the size and the min/max equal it
    (steps 0); for ranges width/height is the largest size. rates: discrete
    rates in fps, highest first (empty for ranges); min_fps/max_fps: the rate
    bounds in fps (None if unknown); interval_step: a stepwise range's frame
    interval step in seconds, else None.
    """
    fourcc: str
    fourcc_code: int
    flags: int
    compressed: bool
    description: str
    size_kind: str
    width: int
    height: int
    min_width: int
    max_width: int
    step_width: int
    min_height: int
    max_height: int
    step_height: int
    rate_kind: str
    rates: List[Fraction]
    min_fps: Optional[Fraction]
    max_fps: Optional[Fraction]
    interval_step: Optional[Fraction] = None


def format_from_c(f: _raw.camcore_format) -> Format:
    """A Format copied from a camcore_format."""
    rates = [Fraction(f.rates[j].numerator, f.rates[j].denominator)
             for j in range(f.rate_count) if f.rates[j].denominator] if f.rates else []
    unknown = f.rate_kind == _raw.RANGE_UNKNOWN
    return Format(
        fourcc=fourcc_str(f.fourcc), fourcc_code=f.fourcc, flags=f.flags,
        compressed=bool(f.flags & _raw.FORMAT_COMPRESSED),
        description=f.description.decode("utf-8", errors="replace"),
        size_kind=_raw.RANGE_NAMES.get(f.size_kind, f"unknown({f.size_kind})"),
        width=f.width, height=f.height,
        min_width=f.min_width, max_width=f.max_width, step_width=f.step_width,
        min_height=f.min_height, max_height=f.max_height, step_height=f.step_height,
        rate_kind=_raw.RANGE_NAMES.get(f.rate_kind, f"unknown({f.rate_kind})"),
        rates=rates, min_fps=None if unknown else frac(f.min_fps),
        max_fps=None if unknown else frac(f.max_fps), interval_step=frac(f.interval_step))


@dataclasses.dataclass(frozen=True)
class CaptureFormat:
    """What a started capturer really uses, read back from the driver after it was
    set (S6: drivers round sizes and rates, so this, not the request, is the truth).

    strides: bytes per row of each plane; frame_bytes: bytes of one frame;
    fps: applied rate (None if the driver does not say); buffer_count: granted buffers.
    """
    fourcc: str
    width: int
    height: int
    plane_count: int
    strides: List[int]
    frame_bytes: int
    fps: Optional[Fraction]
    buffer_count: int
    #: The driver's pixel format; differs from fourcc when camcore converts the
    #: frames to an output format (S8: output="I420", "RGB24", ...).
    source_fourcc: str = ""
    #: ADJUSTED_* bits: how the applied setting differs from the request (a size or
    #: rate the driver rounded, a rate above the format's maximum clamped).
    adjusted: int = 0

    @property
    def adjustments(self) -> List[str]:
        """Names of what was adjusted: 'size', 'rate', 'format'."""
        return _adjustment_names(self.adjusted)


def capture_format_from_c(out: _raw.camcore_capture_format) -> CaptureFormat:
    """A CaptureFormat copied from a camcore_capture_format."""
    n = min(out.plane_count, 3)
    return CaptureFormat(
        fourcc=fourcc_str(out.fourcc), width=out.width, height=out.height,
        plane_count=out.plane_count, strides=[out.strides[i] for i in range(n)],
        frame_bytes=out.frame_bytes, fps=frac(out.fps), buffer_count=out.buffer_count,
        source_fourcc=fourcc_str(out.source_fourcc), adjusted=out.adjusted)


@dataclasses.dataclass(frozen=True)
class CaptureStats:
    """Counters since the last start; measured_fps from the last (up to 32) frames'
    timestamps, 0.0 before two frames."""
    frames_delivered: int
    frames_dropped: int
    frames_corrupted: int
    measured_fps: float = 0.0
    #: Times no frame came for longer than max(1 s, 5 frame intervals) (see on_stall).
    stalls: int = 0
    #: Stream restarts made because of stalls (S48; see on_restart).
    restarts: int = 0


@dataclasses.dataclass(frozen=True)
class Setting:
    """A capture setting the device really has, chosen by Manager.negotiate() or
    Manager.format_for().

    Pass it as it is to Capturer.start(), Capturer.capture(), frames() or
    Session.start(): ``cap.start(setting, on_frame=...)``; it brings its
    fourcc, size, rate and (for negotiate(output=...)) output format.

    negotiate() (S6) picks, in this order of importance: a rate at or above
    the minimum asked, the aspect ratio asked, the size nearest to it, the
    format that costs least to deliver, then a rate at most the maximum
    asked. ``adjusted`` (ADJUSTED_* bits, also as ``adjustments`` names) says
    what differs from the request; 0 means it is met exactly (``valid``).
    fps is None when the driver does not enumerate rates.
    """
    fourcc: str
    fourcc_code: int
    width: int
    height: int
    fps: Optional[Fraction]
    adjusted: int
    #: The output format asked of negotiate() (None: the driver's own).
    output: Optional[str] = None

    @property
    def valid(self) -> bool:
        """True when nothing was adjusted: the camera has exactly what was asked."""
        return self.adjusted == 0

    @property
    def adjustments(self) -> List[str]:
        """Names of what was adjusted: 'size', 'rate', 'format'."""
        return _adjustment_names(self.adjusted)


def setting_from_c(out: _raw.camcore_setting, output: Optional[str] = None) -> Setting:
    """A Setting copied from a camcore_setting."""
    return Setting(fourcc=fourcc_str(out.fourcc), fourcc_code=out.fourcc, width=out.width,
                   height=out.height, fps=frac(out.fps), adjusted=out.adjusted, output=output)


@dataclasses.dataclass(frozen=True)
class SessionState:
    """A snapshot of a session (camcore_session_get_state).

    camera_on: the device is open and streaming, which a session makes true
    exactly while video is transmitted (not paused, held or muted) or a
    preview is active (S9). format is what the camera captures while on
    (None while off). adjusted: ADJUSTED_* bits, how the setting in use
    differs from what the session asked for (its preference or the start
    setting); 0 while off.
    """
    camera_on: bool
    transmitting: bool
    paused: bool
    held: bool
    preparing: bool
    hard_muted: bool
    custom_source: bool
    stopped_by_app: bool
    preview_count: int
    device_id: str
    format: Optional[CaptureFormat]
    adjusted: int = 0

    @property
    def adjustments(self) -> List[str]:
        """Names of what was adjusted: 'size', 'rate', 'format'."""
        return _adjustment_names(self.adjusted)
