"""``emurust.pyboy.utils``: what ``pyboy.utils`` exports, for code that imports from there.

PyBoy's exception classes under their names and in their hierarchy, ``WindowEvent``, and the
BCD helpers ``dec_to_bcd`` / ``bcd_to_dec``. ``emurust.PyBoy`` raises exceptions that are
instances of both the PyBoy-named class and emurust's own (see :mod:`emurust.pyboy._errors`),
so ``except PyBoyInvalidInputException`` and ``except emurust.InvalidArgumentError`` (or
``ValueError``) catch the same error. This module does not import PyBoy.
"""

from __future__ import annotations

from typing import Any, ClassVar, NoReturn

from emurust._core import CLOCK_HZ
from emurust._core import FRAME_CYCLES as _FRAME_CYCLES
from emurust.pyboy._events import WindowEvent

__all__ = [
    "AccessError",
    "PillowImportError",
    "PyBoyAssertException",
    "PyBoyDependencyError",
    "PyBoyException",
    "PyBoyFeatureDisabledError",
    "PyBoyInternalError",
    "PyBoyInvalidInputException",
    "PyBoyInvalidOperationException",
    "PyBoyNotImplementedException",
    "PyBoyOutOfBoundsException",
    "SoundEnabledError",
    "WindowEvent",
    "bcd_to_dec",
    "dec_to_bcd",
]

STATE_VERSION = 29
"""The PyBoy save-state format version that emurust reads and writes (PyBoy 2.8.1's)."""
INTR_VBLANK, INTR_LCDC, INTR_TIMER, INTR_SERIAL, INTR_HIGHTOLOW = (1 << x for x in range(5))
FRAME_CYCLES = _FRAME_CYCLES
CLOCK_RATE = CLOCK_HZ


class PyBoyException(Exception):  # noqa: N818
    """The base class of PyBoy's errors (``pyboy.utils.PyBoyException``)."""


class PyBoyInternalError(PyBoyException):
    """An error inside the emulator that a user should not meet."""


class PyBoyAssertException(PyBoyException):
    """An internal consistency check failed."""


class PyBoyOutOfBoundsException(PyBoyException):
    """An address, bank, index or value outside its range."""


class PyBoyNotImplementedException(PyBoyException):
    """A method or feature that is not implemented (emurust.PyBoy: one it does not support)."""


class PyBoyInvalidInputException(PyBoyException):
    """An invalid argument."""


class PyBoyInvalidOperationException(PyBoyException):
    """An operation that cannot be performed now (e.g. ``tick`` after ``stop``)."""


class PyBoyDependencyError(PyBoyException):
    """A missing optional dependency (Pillow)."""


class PyBoyFeatureDisabledError(PyBoyException):
    """A feature that was switched off (e.g. sound with ``sound_emulated=False``)."""


class AccessError(PyBoyException):
    """A stand-in for an unavailable feature: any use of the object raises
    ``_exception_type(_exception_message)``; the object itself is falsy (as in PyBoy)."""

    _exception_type: ClassVar[type[Exception]] = PyBoyException
    _exception_message: ClassVar[str] = "Access Error"

    def __bool__(self) -> bool:
        return False

    def _raise(self) -> NoReturn:
        cls = type(self)
        raise cls._exception_type(cls._exception_message)

    def __getattr__(self, name: str) -> Any:
        self._raise()

    def __getitem__(self, *args: Any) -> Any:
        self._raise()

    def __setitem__(self, *args: Any) -> None:
        self._raise()


class PillowImportError(AccessError, PyBoyDependencyError):
    """Pillow is not installed."""

    _exception_type = PyBoyDependencyError
    _exception_message = "Missing dependency Pillow!"


class SoundEnabledError(AccessError, PyBoyFeatureDisabledError):
    """Sound is not emulated (``sound_emulated=False``)."""

    _exception_type = PyBoyFeatureDisabledError
    _exception_message = "Sound is not enabled!"


def dec_to_bcd(value: int, byte_width: int = 1, byteorder: str = "little") -> int:
    """``value`` in binary-coded decimal, two digits a byte over ``byte_width`` bytes, least
    significant pair first before ``byteorder`` is applied (as PyBoy's ``dec_to_bcd``)."""
    pairs = []
    for _ in range(byte_width):
        pairs.append(((value % 100) // 10) << 4 | value % 10)
        value //= 100
    return int.from_bytes(bytes(pairs), byteorder)  # type: ignore[arg-type]


def bcd_to_dec(value: int, byte_width: int = 1, byteorder: str = "little") -> int:
    """The decimal value of a binary-coded-decimal ``value`` of ``byte_width`` bytes (as
    PyBoy's ``bcd_to_dec``)."""
    total, scale = 0, 1
    for b in value.to_bytes(byte_width, byteorder):  # type: ignore[arg-type]
        total += ((b >> 4) * 10 + (b & 0x0F)) * scale
        scale *= 100
    return total
