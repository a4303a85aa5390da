"""emurust's DMG boot ROM, which ``emurust.PyBoy`` runs when no ``bootrom=`` is given (as
PyBoy runs its own): an original program (``data/boot/dmg_boot.asm``, MIT, built with
``emurust.tools.asm``) that takes PyBoy 2.8.1's boot ROM's cycles and leaves its state."""

from __future__ import annotations

from functools import cache
from pathlib import Path

__all__ = ["BOOT_ROM_SOURCE", "HANDOVER_CYCLE", "boot_rom"]

BOOT_ROM_SOURCE = Path(__file__).resolve().parent.parent / "data" / "boot" / "dmg_boot.asm"
HANDOVER_CYCLE = 4_507_360
"""The T-cycle at which the boot ROM unmaps itself (PyBoy 2.8.1's, from power-on)."""


@cache
def boot_rom() -> bytes:
    """The 256 bytes (``dmg_boot.bin``, built from ``dmg_boot.asm``)."""
    return BOOT_ROM_SOURCE.with_suffix(".bin").read_bytes()
