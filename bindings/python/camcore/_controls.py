# SPDX-License-Identifier: MIT
"""Camera controls (SPEC S27): brightness, focus, zoom, exposure, ... of an open camera.

Every V4L2 control is listed with its type, range, step, default, value,
flags and menu items; values are read and set by id (``CID_*``) or by name.

    with m.open(device_id) as cap:
        for c in cap.controls():              # list[Control]
            print(c.key, c.value, c.range, c.flags_names, c.menu)
        cap.control("brightness").value = 200 # or cap.control(camcore.CID_BRIGHTNESS)
        applied = cap.control("exposure_time_absolute").set(333)  # driver-rounded value
        cap.on_control_changed(lambda ch: print(ch))            # ControlChange events
"""
from __future__ import annotations

import dataclasses
import operator
from typing import TYPE_CHECKING, List, Tuple, Union

from . import _raw
from ._args import u32
from ._errors import InvalidArgError, _s
from ._raw import CONTROL_FLAG_NAMES, CONTROL_TYPE_NAMES, camcore_control_info

if TYPE_CHECKING:
    from ._capturer import Capturer

#: The longest string-control text read (bytes).
STRING_CONTROL_MAX = 1 << 20


def control_key(name: str) -> str:
    """The short name of a control, as v4l2-ctl and `camcore controls` print it:
    lower case, other characters as one '_' ("Gain, Automatic" -> "gain_automatic")."""
    out: List[str] = []
    pending = False
    for ch in name:
        if ch.isascii() and ch.isalnum():
            if pending and out:
                out.append("_")
            pending = False
            out.append(ch.lower())
        else:
            pending = True
    return "".join(out)


@dataclasses.dataclass(frozen=True)
class MenuItem:
    """One item of a menu control: set ``index`` to choose it. ``value`` is the
    number an integer-menu item stands for (equal to index for menus)."""
    index: int
    name: str
    value: int


@dataclasses.dataclass(frozen=True)
class ControlChange:
    """A control-change event (V4L2_EVENT_CTRL), as on_control_changed receives it."""
    id: int
    value: int
    flags: int
    changes: int

    @property
    def value_changed(self) -> bool:
        """The value changed (``value`` is the new one)."""
        return bool(self.changes & _raw.CONTROL_CHANGED_VALUE)

    @property
    def flags_changed(self) -> bool:
        """The flags changed (for example the control became inactive)."""
        return bool(self.changes & _raw.CONTROL_CHANGED_FLAGS)

    @property
    def range_changed(self) -> bool:
        """The range, step or default changed: list the controls again."""
        return bool(self.changes & _raw.CONTROL_CHANGED_RANGE)

    @property
    def inactive(self) -> bool:
        """The control is inactive now (for example exposure while auto-exposure is on)."""
        return bool(self.flags & _raw.CONTROL_FLAG_INACTIVE)


class Control:
    """One control of an open capturer (S27), from Capturer.controls() or .control().

    The description (name, type, range, flags, menu) is what it was when listed;
    ``.value`` reads and writes the device each time. Setting a read-only control
    raises NotSupportedError, an inactive or grabbed one StateError, a value out of
    range (or a skipped menu index, or foreign bitmask bits) InvalidArgError whose
    message gives the valid range. Off-step values are rounded by the driver: use
    set() to learn the value applied.
    """

    def __init__(self, capturer: "Capturer", c: camcore_control_info) -> None:
        self._capturer = capturer
        self.id: int = c.id
        self.name: str = _s(c.name)
        self.key: str = control_key(self.name)
        self.type_code: int = c.type
        self.type: str = CONTROL_TYPE_NAMES.get(c.type, f"unknown({c.type})")
        self.minimum: int = c.minimum
        self.maximum: int = c.maximum
        self.step: int = c.step
        self.default: int = c.default_value
        #: The value when listed (0 for buttons, write-only and string controls;
        #: read a string control's text with .value).
        self.listed_value: int = c.value
        self.flags: int = c.flags
        self.menu: List[MenuItem] = [
            MenuItem(c.menu[i].index, _s(c.menu[i].name), c.menu[i].value)
            for i in range(c.menu_count)] if c.menu_count else []

    @property
    def _string_room(self) -> int:
        return max(1, min(self.maximum, STRING_CONTROL_MAX))

    @property
    def range(self) -> Tuple[int, int, int]:
        """(minimum, maximum, step). Bitmask: maximum holds the settable bits."""
        return (self.minimum, self.maximum, self.step)

    @property
    def flags_names(self) -> List[str]:
        """The names of the set flags: 'read-only', 'inactive', 'volatile', ..."""
        return [n for bit, n in CONTROL_FLAG_NAMES if self.flags & bit]

    @property
    def read_only(self) -> bool:
        """The control can be read but not set."""
        return bool(self.flags & _raw.CONTROL_FLAG_READ_ONLY)

    @property
    def write_only(self) -> bool:
        """The control can be set but not read (buttons, relative moves)."""
        return bool(self.flags & _raw.CONTROL_FLAG_WRITE_ONLY)

    @property
    def inactive(self) -> bool:
        """Setting it has no effect now (another control, e.g. an auto mode, overrides it)."""
        return bool(self.flags & _raw.CONTROL_FLAG_INACTIVE)

    @property
    def volatile(self) -> bool:
        """The device changes the value on its own (read it again rather than caching it)."""
        return bool(self.flags & _raw.CONTROL_FLAG_VOLATILE)

    @property
    def grabbed(self) -> bool:
        """Cannot be changed now: a stream in use holds it (e.g. a format-related control while streaming)."""
        return bool(self.flags & _raw.CONTROL_FLAG_GRABBED)

    @property
    def value(self) -> Union[int, str]:
        """The current value (camcore_capturer_get_control); the text of a string
        control (camcore_capturer_get_control_string). Raises NotSupportedError for
        buttons and write-only controls."""
        if self.type_code == _raw.CONTROL_TYPE_STRING:
            return self._capturer.get_control_string(self.id, self._string_room)
        return self._capturer.get_control(self.id)

    @value.setter
    def value(self, v: Union[int, bool, str]) -> None:
        self.set(v)

    def set(self, v: Union[int, bool, str]) -> Union[int, str]:
        """Sets the control and returns the value the driver applied. ``v`` is an
        int, a bool, for menus an item's name, for string controls a str (its
        UTF-8 length within minimum..maximum; the text read back is returned)."""
        if self.type_code == _raw.CONTROL_TYPE_STRING:
            self._capturer.set_control_string(self.id, v)  # type: ignore[arg-type]  # checked there
            return v if self.write_only else self._capturer.get_control_string(self.id, self._string_room)
        if isinstance(v, str):
            want = control_key(v)
            for item in self.menu:
                if item.name.lower() == v.lower() or control_key(item.name) == want:
                    v = item.index
                    break
            else:
                raise InvalidArgError(
                    f"{v!r} is not an item of {self.name!r}; items: "
                    + ", ".join(f"{i.index}: {i.name}" for i in self.menu), status=_raw.E_INVALID_ARG)
        return self._capturer.set_control(self.id, int(v))

    def press(self) -> None:
        """Presses a button control."""
        self._capturer.set_control(self.id, 1)

    def refresh(self) -> "Control":
        """A fresh description (flags and range may have changed)."""
        return self._capturer.control(self.id)

    def __repr__(self) -> str:
        flags = ",".join(self.flags_names)
        return (f"<camcore.Control {self.key} 0x{self.id:08x} {self.type} "
                f"range={self.range} default={self.default}"
                + (f" flags={flags}" if flags else "") + ">")



def control_id(value: object) -> int:
    """A control id for every control call: an integer (int, numpy integer) in
    0..2**32-1, else InvalidArgError."""
    if isinstance(value, bool):
        raise InvalidArgError("a control id is an int, not bool", status=_raw.E_INVALID_ARG)
    try:
        v = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise InvalidArgError(f"a control id is an int, not {type(value).__name__}",
                              status=_raw.E_INVALID_ARG) from None
    return u32("control_id", v)
