# SPDX-License-Identifier: MIT
"""The lifetime trio every camcore handle object shares (Manager, Capturer,
Session): ``with`` closes it at the end of the block, and one dropped while
still open is closed by the garbage collector. close() never fails, also
from inside the object's own callback (the teardown then finishes on a
camcore thread once that callback returns), so the finaliser needs no
guard."""
from __future__ import annotations

from typing import Any, TypeVar

_T = TypeVar("_T", bound="Closing")


class Closing:
    """Base of the handle objects: ``__enter__``/``__exit__``/``__del__``
    in terms of the subclass's ``close()`` and its ``_handle`` (None once
    closed)."""

    _handle: Any

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self: _T) -> _T:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            if getattr(self, "_handle", None) is not None:
                self.close()
        except Exception:
            pass
