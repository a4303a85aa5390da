"""The exceptions ``emurust.PyBoy`` raises: each is both PyBoy's class (``pyboy.utils``) and
emurust's own, so code written for either catches it.

- a bad argument: ``InvalidInputError``, a ``PyBoyInvalidInputException``, an
  ``emurust.InvalidArgumentError`` and a ``ValueError`` (``InvalidInputTypeError``, for an
  argument of the wrong type, also a ``TypeError``);
- an address, bank or index out of range: ``OutOfBoundsError``, a
  ``PyBoyOutOfBoundsException``, an ``emurust.InvalidAddressError`` and an ``IndexError``;
- an operation not possible now (``tick`` after ``stop``): ``InvalidOperationError``, a
  ``PyBoyInvalidOperationException`` and a ``RuntimeError``; ``len(memory)`` and
  ``iter(memory)``: ``InvalidMemoryOperationError``, the same and a ``TypeError``;
- a state that cannot be loaded: ``PyBoyStateError``, a ``PyBoyException`` and an
  ``emurust.InvalidStateError``;
- sound read with ``sound_emulated=False``: ``SoundDisabledError``, a
  ``PyBoyFeatureDisabledError`` and an ``emurust.SoundOffError``;
- a PyBoy feature emurust does not have: ``NotSupportedError``, a
  ``PyBoyNotImplementedException`` and a ``NotImplementedError``;
- Pillow missing: ``DependencyMissingError``, a ``PyBoyDependencyError`` and an
  ``ImportError``.
"""

from __future__ import annotations

from emurust._core import (
    EmuRustError,
    InvalidAddressError,
    InvalidArgumentError,
    InvalidStateError,
    SoundOffError,
)
from emurust.pyboy.utils import (
    PyBoyDependencyError,
    PyBoyException,
    PyBoyFeatureDisabledError,
    PyBoyInvalidInputException,
    PyBoyInvalidOperationException,
    PyBoyNotImplementedException,
    PyBoyOutOfBoundsException,
)

__all__ = [
    "DependencyMissingError",
    "InvalidInputError",
    "InvalidInputTypeError",
    "InvalidMemoryOperationError",
    "InvalidOperationError",
    "NotSupportedError",
    "OutOfBoundsError",
    "PyBoyStateError",
    "SoundDisabledError",
    "translate",
]


class InvalidInputError(InvalidArgumentError, PyBoyInvalidInputException):
    """A bad argument to ``emurust.PyBoy``."""


class InvalidInputTypeError(InvalidInputError, TypeError):
    """An argument of the wrong type (also a ``TypeError``, as emurust raised before)."""


class OutOfBoundsError(InvalidAddressError, PyBoyOutOfBoundsException):
    """An address, bank or index out of range."""


class InvalidOperationError(PyBoyInvalidOperationException, RuntimeError):
    """An operation that cannot be done now (``tick`` on a stopped emulator...)."""


class InvalidMemoryOperationError(PyBoyInvalidOperationException, TypeError):
    """``len()`` or iteration over ``PyBoy.memory`` (the address space has no length)."""


class PyBoyStateError(InvalidStateError, PyBoyException):
    """A save state that cannot be loaded into this machine."""


class SoundDisabledError(SoundOffError, PyBoyFeatureDisabledError):
    """Sound read from a machine built with ``sound_emulated=False``."""


class NotSupportedError(PyBoyNotImplementedException, NotImplementedError):
    """A PyBoy feature that emurust.PyBoy does not have (the message names it)."""


class DependencyMissingError(PyBoyDependencyError, ImportError):
    """An optional dependency (Pillow) is missing."""


_NATIVE: tuple[tuple[type[Exception], type[Exception]], ...] = (
    (InvalidArgumentError, InvalidInputError),
    (InvalidAddressError, OutOfBoundsError),
    (InvalidStateError, PyBoyStateError),
    (SoundOffError, SoundDisabledError),
)


def translate(e: BaseException) -> BaseException:
    """The PyBoy-compatible twin of a native emurust error (same message), or ``e``."""
    if isinstance(e, PyBoyException) or not isinstance(e, EmuRustError):
        return e
    for native, twin in _NATIVE:
        if isinstance(e, native):
            return twin(*e.args)
    return e
