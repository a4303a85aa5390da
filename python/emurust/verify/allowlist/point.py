"""What an allowlist rule sees and what an entry is: one comparison point of the lockstep
harness (:class:`Point`), a difference (:data:`Diff`), what is compared (:data:`REGIONS`,
:data:`IO_REGISTERS`, :data:`REGISTERS`) and :class:`AllowlistEntry`; with the few facts
the rules and proofs share (:data:`TIME_DRIVEN_IO`, :data:`MEMORY_REGIONS`,
:func:`dead_stack`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Union

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from emurust._core import _TraceEntry
    from emurust._gameboy import GameBoy
    from emurust.verify.allowlist.pixels import LineState


Diff = dict[str, Union[str, int]]
"""One difference: ``{"region", "addr", "emurust", "pyboy"}`` (``addr`` is an int, or a
register name for the ``registers`` region; screen addresses are ``row * 160 + column``)."""

REGIONS: dict[str, tuple[int, int]] = {
    "vram": (0x8000, 0xA000),
    "wram": (0xC000, 0xE000),
    "oam": (0xFE00, 0xFEA0),
    "hram": (0xFF80, 0xFFFF),
}
"""Memory compared byte for byte: name -> (start, end) addresses."""

IO_REGISTERS: dict[int, int] = {
    0xFF01: 0xFF,  # SB
    0xFF02: 0x81,  # SC (transfer start, clock select; other bits read as 1 on a DMG)
    0xFF04: 0xFF,  # DIV
    0xFF05: 0xFF,  # TIMA
    0xFF06: 0xFF,  # TMA
    0xFF07: 0x07,  # TAC
    0xFF0F: 0x1F,  # IF
    0xFF40: 0xFF,  # LCDC
    0xFF41: 0x7F,  # STAT (bit 7 reads 1)
    0xFF42: 0xFF,  # SCY
    0xFF43: 0xFF,  # SCX
    0xFF44: 0xFF,  # LY
    0xFF45: 0xFF,  # LYC
    0xFF47: 0xFF,  # BGP
    0xFF48: 0xFF,  # OBP0
    0xFF49: 0xFF,  # OBP1
    0xFF4A: 0xFF,  # WY
    0xFF4B: 0xFF,  # WX
    0xFFFF: 0xFF,  # IE
}
"""The deterministic I/O registers compared (address -> mask of the bits compared). Left
out: the joypad (P1 reflects the input script in both), the sound registers (PyBoy runs
with sound emulation off) and DMA's write-only source register."""

REGISTERS = ("a", "f", "b", "c", "d", "e", "h", "l", "sp", "pc")


@dataclass
class Point:
    """What one allowlist rule sees about the current comparison point."""

    frame: int
    cycles: int
    #: The boot ROM is still mapped at 0x0000 in emurust.
    boot_rom_mapped: bool
    #: PyBoy's frame before the paired one ended early (the LCD was switched on in it).
    after_lcd_enable: bool
    #: PyBoy's screen (shades) and emurust's, for screen rules.
    pyboy_screen: npt.NDArray[np.uint8]
    emurust_screen: npt.NDArray[np.uint8]
    #: BGP at the comparison point (emurust).
    bgp: int
    #: The byte at PyBoy's PC.
    pyboy_opcode: int
    pyboy_registers: dict[str, int]
    emurust_registers: dict[str, int]
    #: Computes (on demand) the differences between emurust 4 T-cycles before the
    #: comparison point and PyBoy at it; None if emurust has no instruction boundary there.
    lagged_diffs: Callable[[], list[Diff] | None] | None = None
    #: The drawing state of one screen row of the compared frame (see :class:`LineState`),
    #: read from emurust re-run from the last matching point; None where it cannot be had.
    line_state: Callable[[int], LineState | None] | None = None
    #: A button was pressed (since PyBoy's IF bit 4 last read 0) while its P1 row was not
    #: selected: on a DMG no P1 line falls, so no joypad interrupt is requested.
    unselected_press: bool = False
    #: emurust's IF bit 4 was set at a P1 write (masked there by
    #: :func:`~emurust.verify.allowlist.rules.p1_select_irq_rule`) at an earlier comparison
    #: point and has stayed set in emurust since.
    p1_select_irq_carried: bool = False
    #: PyBoy's memory (for code bytes around its PC).
    pyboy_byte: Callable[[int], int] | None = None
    #: emurust's trace of the compared frame (re-run from the last matching point).
    frame_trace: Callable[[], list[_TraceEntry]] | None = None
    #: A scratch emurust at a given clock (re-run from the last matching point); None if
    #: no instruction boundary is there.
    emurust_at: Callable[[int], GameBoy | None] | None = None
    #: The differences between a (scratch) emurust and PyBoy at the comparison point:
    #: registers, WRAM, HRAM, VRAM, OAM and the compared I/O registers.
    pyboy_diffs: Callable[[GameBoy], list[Diff]] | None = None
    #: PyBoy's clock at the comparison point (emurust's, ``cycles``, can be up to an
    #: instruction later); 0 if not known.
    pyboy_cycles: int = 0
    #: A fresh scratch emurust loaded with the last matching point (not run).
    emurust_start: Callable[[], GameBoy] | None = None
    #: The differences of this point that allowlist rules masked (set before the
    #: terminal entries' proofs run).
    masked: list[Diff] = field(default_factory=list)


@dataclass(frozen=True)
class AllowlistEntry:
    """One known, documented difference between the two emulators.

    ``rule(point, diffs)`` returns the diffs of one comparison that this entry explains
    (a subset of ``diffs``); they are then not counted as a divergence.
    """

    name: str
    #: What is masked, precisely.
    masks: str
    #: Which emulator is right and the test ROM / document that shows it.
    evidence: str
    rule: Callable[[Point, list[Diff]], list[Diff]] = field(repr=False, compare=False)
    #: A terminal entry: the deviation changes the program flow, so nothing can be masked
    #: and the run stops. ``prove(point, diffs)`` returns the proof (a sentence) when the
    #: remaining differences provably come from this deviation, else None.
    prove: Callable[[Point, list[Diff]], str | None] | None = field(
        default=None, repr=False, compare=False
    )


# I/O registers that count time (timer, PPU line and mode, IF): two moments 4 T-cycles
# apart can read differently without any emulation difference.
TIME_DRIVEN_IO = frozenset({0xFF04, 0xFF05, 0xFF0F, 0xFF41, 0xFF44})

#: The memory regions compared byte for byte (the keys of :data:`REGIONS`).
MEMORY_REGIONS = frozenset({"wram", "hram", "vram", "oam"})


def dead_stack(d: Diff, sp: int) -> bool:
    """Whether ``d`` is a WRAM/HRAM byte up to 32 below SP: dead stack, written by an
    interrupt entry (and its handler's pushes) that came at another point of the poll loop
    in the two emulators."""
    return d["region"] in ("wram", "hram") and sp - 32 <= int(d["addr"]) < sp
