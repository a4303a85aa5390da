"""Argument checks shared by :class:`emurust.PyBoy` and its memory views."""

from __future__ import annotations

import io
import os
from typing import SupportsIndex, cast

from emurust.pyboy._errors import InvalidInputTypeError


def as_index(value: object, what: str) -> int:
    try:
        return int(cast(SupportsIndex, value).__index__())
    except (AttributeError, TypeError):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}") from None


def check_binary(f: object, what: str) -> None:
    if isinstance(f, (str, os.PathLike)):
        raise InvalidInputTypeError(
            f"{what} takes a file-like object, not a path (open(path, 'rb'/'wb') first)"
        )
    if isinstance(f, io.TextIOBase):
        raise InvalidInputTypeError(
            f"{what}: text file not allowed, open it in binary mode ('rb'/'wb')"
        )
    method = "write" if what == "save_state" else "read"
    if not callable(getattr(f, method, None)):
        raise InvalidInputTypeError(
            f"{what} takes a binary file-like object (with .{method}()), not {type(f).__name__}"
        )
