"""``emurust.pyboy``: PyBoy 2.8.1's public module layout on the emurust core.

Replacing the package name ``pyboy`` with ``emurust.pyboy`` in import lines is the migration::

    from emurust.pyboy import PyBoy                      # from pyboy import PyBoy
    from emurust.pyboy.utils import WindowEvent          # from pyboy.utils import WindowEvent
    from emurust.pyboy.api.memory_scanner import DynamicComparisonType

``emurust.pyboy.PyBoy`` is ``emurust.PyBoy``; what it supports and every difference from
PyBoy is listed in docs/pyboy.md. Nothing here imports PyBoy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from emurust.pyboy_compat import PyBoy, PyBoyMemoryView, PyBoyRegisterFile

__all__ = ["PyBoy", "PyBoyMemoryView", "PyBoyRegisterFile"]


def __getattr__(name: str) -> object:
    # emurust.pyboy_compat imports emurust.pyboy.utils and emurust.pyboy.api, so the
    # classes are looked up on first use rather than imported here.
    if name in __all__:
        import emurust.pyboy_compat as compat

        return getattr(compat, name)
    raise AttributeError(f"module 'emurust.pyboy' has no attribute {name!r}")
