"""What every PyBoy user in this project needs to know about PyBoy 2.x, in one place: its
default DMG palette and the 2048 game-wrapper workaround. Used by the lockstep harness
(:mod:`emurust.difftest`), the PyBoy backend of the environments, the benchmarks and tests.
Imports nothing from PyBoy itself."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["PYBOY_GREYS", "quiet_2048_wrapper", "shade_table"]

PYBOY_GREYS = (0xFF, 0x99, 0x55, 0x00)
"""PyBoy's default DMG palette, shades 0..3 (the red channel of its RGBA screen)."""


def shade_table(unknown: int = 0) -> npt.NDArray[np.uint8]:
    """A 256-entry table from the red channel of PyBoy's screen to shades 0..3 (values that
    are not one of its greys map to ``unknown``)."""
    table = np.full(256, unknown, dtype=np.uint8)
    for shade, grey in enumerate(PYBOY_GREYS):
        table[grey] = shade
    return table


def quiet_2048_wrapper(pb: Any) -> None:
    """PyBoy turns its 2048 game wrapper on by cartridge title and, without the game's
    symbol file, raises (and prints a traceback) at every tick. Placeholder symbols in high
    WRAM (it only reads them) make the wrapper cost what it costs with the real symbols,
    without the exception."""
    if pb.cartridge_title == "2048" and "_board" not in pb.rom_symbols_inverse:
        for i, name in enumerate(("_board", "_score", "_winner", "_state")):
            pb.rom_symbols_inverse[name] = (0, 0xDF00 + 0x40 * i)
