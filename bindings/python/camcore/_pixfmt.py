# SPDX-License-Identifier: MIT
"""FourCC codes and camcore's pixel-format table.

A V4L2 pixel format is a 32-bit FourCC: four ASCII characters, the first in
the lowest byte, with bit 31 marking a big-endian variant of a format.
Names are written as v4l2-ctl writes them: ``"YUYV"``, ``"Y16 "``, and for
a big-endian format the four characters then ``"-BE"`` (``"Y16 -BE"``).
fourcc() parses every such name back.
"""
from __future__ import annotations

import dataclasses
import operator
from ctypes import byref, c_uint32, sizeof
from typing import Dict, Optional, Tuple, Union

from . import _raw
from ._args import u32
from ._errors import InvalidArgTypeError, InvalidArgValueError, check
from ._errors import _s
from ._raw import U32_MAX, camcore_pixel_format_info
from ._raw import lib as _lib

#: Bit 31 of a FourCC: the big-endian variant of the format (V4L2's
#: V4L2_PIX_FMT_FLAG_BE, written "-BE" after the four characters).
FOURCC_BIG_ENDIAN = 1 << 31

#: A pixel format as the API takes it: a name ("YUYV", "Y16 -BE", or one of
#: PIXEL_FORMAT_ALIASES) or its 32-bit FourCC.
FourCC = Union[str, bytes, int]


def fourcc(code: FourCC) -> int:
    """The V4L2 FourCC integer of a name of 1–4 characters (``"YUYV"``); shorter names
    are space-padded (``"Y16"`` -> ``"Y16 "``), and a ``"-BE"`` suffix, as v4l2-ctl
    prints big-endian formats (``"Y16 -BE"``, also ``"Y16-BE"``), sets bit 31.
    An int is returned as is.

    Raises InvalidArgValueError (a ValueError) for an int past 32 bits or a name of
    0 or 5+ characters or not ASCII, InvalidArgTypeError (also a TypeError) for
    anything but str, bytes or int."""
    if isinstance(code, bool) or not isinstance(code, (int, str, bytes, bytearray)):
        if hasattr(code, "__index__") and not isinstance(code, bool):
            code = operator.index(code)          # numpy integers
        else:
            raise InvalidArgTypeError(f"a FourCC is a str, bytes or int, not {type(code).__name__}")
    if isinstance(code, int):
        if not 0 <= code <= U32_MAX:
            raise InvalidArgValueError(f"fourcc {code} out of range (0..2**32-1)")
        return code
    try:
        b = code.encode("ascii") if isinstance(code, str) else bytes(code)
    except UnicodeEncodeError:
        raise InvalidArgValueError(f"a FourCC is ASCII, not {code!r}") from None
    be = 0
    if len(b) > 3 and b.upper().endswith(b"-BE"):
        b, be = b[:-3], FOURCC_BIG_ENDIAN
    if not 1 <= len(b) <= 4:
        raise InvalidArgValueError(f"a FourCC has 1 to 4 characters (and maybe -BE), not {code!r}")
    b = b.ljust(4, b" ")
    return (b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)) | be


#: Common names accepted wherever a pixel format is, for the V4L2 FourCC they mean.
PIXEL_FORMAT_ALIASES: Dict[str, str] = {"I420": "YU12", "MJPEG": "MJPG", "RGB24": "RGB3",
                                        "BGR24": "BGR3", "RGBA": "AB24"}


def parse_fourcc(code: FourCC) -> int:
    """fourcc() that also takes the PIXEL_FORMAT_ALIASES names (I420 -> YU12)."""
    if isinstance(code, str):
        code = PIXEL_FORMAT_ALIASES.get(code.upper(), code)
    return fourcc(code)


_FOURCC_STRS: Dict[int, str] = {}


def fourcc_str(code: int) -> str:
    """The name of a FourCC as v4l2-ctl prints it: its four characters (``"YUYV"``,
    ``"Y16 "``), then ``"-BE"`` when bit 31 marks the big-endian variant
    (``"Y16 -BE"``). A byte that is no printable character shows as ``"?"``.
    Cached: a frame's .fourcc costs a dict lookup."""
    code = int(code) & U32_MAX
    s = _FOURCC_STRS.get(code)
    if s is None:
        chars = [(code >> shift) & 0x7F for shift in (0, 8, 16, 24)]
        s = "".join(chr(c) if 0x20 <= c < 0x7F else "?" for c in chars)
        if code & FOURCC_BIG_ENDIAN:
            s += "-BE"
        if len(_FOURCC_STRS) < 4096:
            _FOURCC_STRS[code] = s
    return s


@dataclasses.dataclass(frozen=True)
class PixelFormat:
    """One pixel format of camcore's table (camcore_pixel_format_get_info).

    Sizes are the tight ones (rows without padding); captured frames may pad
    rows, so step them by the plane's stride."""

    fourcc_code: int
    #: The name v4l2-ctl prints: "YUYV", "Y16 -BE".
    name: str
    #: The kernel's description, e.g. "Planar YUV 4:2:0".
    description: str
    compressed: bool
    #: Logical planes (as frames carry them) and V4L2 memory planes.
    plane_count: int
    memory_plane_count: int
    #: Bytes per pixel of plane 0; 0 for compressed formats.
    bytes_per_pixel: int
    #: Chroma subsampling (horizontal, vertical): (2, 2) for 4:2:0; (0, 0) if compressed.
    subsampling: Tuple[int, int]

    def plane_size(self, width: int, height: int, plane: int = 0) -> Tuple[int, int]:
        """(bytes of one row, rows) of a plane at width x height pixels.
        Raises NotSupportedError for compressed formats, InvalidArgError past the planes."""
        row, rows = c_uint32(), c_uint32()
        check(_lib.camcore_pixel_format_plane_size(self.fourcc_code, u32("width", width),
                                                   u32("height", height), u32("plane", plane),
                                                   byref(row), byref(rows)),
              f"PixelFormat({self.name!r}).plane_size({width}, {height}, {plane})")
        return row.value, rows.value

    def frame_size(self, width: int, height: int) -> int:
        """Bytes of one tightly packed frame (planes one after the other)."""
        n = c_uint32()
        check(_lib.camcore_pixel_format_frame_size(self.fourcc_code, u32("width", width),
                                                   u32("height", height), byref(n)),
              f"PixelFormat({self.name!r}).frame_size({width}, {height})")
        return n.value


_PIXEL_FORMATS: Dict[int, Optional[PixelFormat]] = {}


def pixel_format(code: FourCC) -> Optional[PixelFormat]:
    """The table entry of a pixel format ('YU12', 'I420', 'Y16 -BE', 0x56595559), or
    None when camcore does not know the format. The table is static, so entries
    are cached."""
    c = parse_fourcc(code)
    if c not in _PIXEL_FORMATS:
        info = camcore_pixel_format_info()
        info.struct_size = sizeof(camcore_pixel_format_info)
        status = _lib.camcore_pixel_format_get_info(c, byref(info))
        if status == _raw.E_NOT_SUPPORTED:
            _PIXEL_FORMATS[c] = None
        else:
            check(status, f"pixel_format({code!r})")
            _PIXEL_FORMATS[c] = PixelFormat(
                fourcc_code=c, name=_s(info.name), description=_s(info.description),
                compressed=bool(info.flags & _raw.FORMAT_COMPRESSED), plane_count=info.plane_count,
                memory_plane_count=info.memory_plane_count, bytes_per_pixel=info.bytes_per_pixel,
                subsampling=(info.horizontal_subsampling, info.vertical_subsampling))
    return _PIXEL_FORMATS[c]


def output_fourcc(output: Optional[FourCC]) -> int:
    """Output format (S8: the format camcore converts frames to): None or 'native'
    -> FOURCC_NATIVE (0, the driver's buffers as they are), else a FourCC."""
    if output is None or (isinstance(output, str) and output.lower() == "native"):
        return _raw.FOURCC_NATIVE
    return parse_fourcc(output)
