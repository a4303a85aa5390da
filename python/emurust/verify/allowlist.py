"""The allowlist of the lockstep harness: what one comparison point looks like
(:class:`Point`, :data:`Diff`), the documented differences between emurust and PyBoy that a
run tolerates (:data:`DEFAULT_ALLOWLIST`), the rules that mask them and the proofs of the
terminal entries.

Each :class:`AllowlistEntry` masks one documented difference, says exactly what it masks,
and names the evidence: the hardware test ROM that proves PyBoy wrong (or, for an emurust
gap, the test ROM emurust is known to fail). Nothing else is skipped; the entries applied in
a run are listed in :attr:`emurust.verify.lockstep.LockstepResult.allowlisted`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Union

import numpy as np
import numpy.typing as npt

from emurust._gameboy import GameBoy

if TYPE_CHECKING:
    from emurust._core import _TraceEntry

__all__ = [
    "DEFAULT_ALLOWLIST",
    "IO_REGISTERS",
    "REGIONS",
    "REGISTERS",
    "AllowlistEntry",
    "Diff",
    "LineState",
    "Point",
    "hardware_pixel",
    "pyboy_pixel",
]

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

#: Whether this build has the native test aids that the replay proofs use (see
#: :func:`_require_test_aids`).
_HAS_TEST_AIDS = hasattr(GameBoy, "_test_shift_ppu")


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
    #: emurust's IF bit 4 was set at a P1 write (:func:`_p1_select_irq_rule` masked it)
    #: at an earlier comparison point and has stayed set in emurust since.
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


def _power_on_rule(point: Point, diffs: list[Diff]) -> list[Diff]:
    # (address, emurust power-on value, PyBoy power-on value)
    unset = {(0xFF47, 0x00, 0xFC), (0xFF48, 0x00, 0xFF), (0xFF49, 0x00, 0xFF)}
    return [
        d for d in diffs if d["region"] == "io" and (d["addr"], d["emurust"], d["pyboy"]) in unset
    ]


def _boot_ly_loop_rule(point: Point, diffs: list[Diff]) -> list[Diff]:
    # The logo loop of PyBoy's DMG boot ROM (0x0059-0x006F) polls LY; only the registers
    # it computes from LY (A, F, E) and the loop position (PC) can differ.
    pcs = (point.pyboy_registers["pc"], point.emurust_registers["pc"])
    if not point.boot_rom_mapped or not all(0x0059 <= pc <= 0x006F for pc in pcs):
        return []
    return [
        d
        for d in diffs
        if (d["region"] == "registers" and d["addr"] in ("a", "f", "e", "pc"))
        or d["region"] == "clock"
    ]


def _sb_rule(point: Point, diffs: list[Diff]) -> list[Diff]:
    return [d for d in diffs if d["region"] == "io" and d["addr"] == 0xFF01 and d["pyboy"] == 0xFF]


# I/O registers that count time (timer, PPU line and mode, IF): two moments 4 T-cycles
# apart can read differently without any emulation difference.
TIME_DRIVEN_IO = frozenset({0xFF04, 0xFF05, 0xFF0F, 0xFF41, 0xFF44})


def _late_interrupt_rule(point: Point, diffs: list[Diff]) -> list[Diff]:
    regions = {str(d["region"]) for d in diffs}
    if not regions & {"clock", "registers"}:
        return []
    if not regions <= {"clock", "registers", "wram", "hram", "vram", "oam", "io"}:
        return []
    # At the same clock the I/O registers must agree, except the time-driven ones when
    # emurust could not stop exactly at PyBoy's clock (it stopped up to one instruction
    # later: the clock difference).
    for d in diffs:
        if d["region"] == "io" and ("clock" not in regions or d["addr"] not in TIME_DRIVEN_IO):
            return []
    if point.lagged_diffs is None:
        return []
    # emurust's CPU and memory 4 T-cycles earlier equal PyBoy's now: PyBoy runs the same
    # instructions 4 T-cycles later.
    lagged = point.lagged_diffs()
    return list(diffs) if lagged == [] else []


def _halt_pc_rule(point: Point, diffs: list[Diff]) -> list[Diff]:
    pb, ours = point.pyboy_registers["pc"], point.emurust_registers["pc"]
    if point.pyboy_opcode == 0x76 and ours == (pb + 1) & 0xFFFF:
        return [d for d in diffs if d["region"] == "registers" and d["addr"] == "pc"]
    return []


def _first_frame_after_lcd_enable_rule(point: Point, diffs: list[Diff]) -> list[Diff]:
    screen = [d for d in diffs if d["region"] == "screen"]
    if not screen or not point.after_lcd_enable:
        return []
    # PyBoy shows the frame in which the LCD was switched on filled with BG colour 0; emurust
    # must show it blank (all shade 0), as a DMG does: anything else is not this difference.
    if (point.pyboy_screen == (point.bgp & 3)).all() and not point.emurust_screen.any():
        return screen
    return []


@dataclass(frozen=True)
class LineState:
    """What the PPU draws one screen row from: VRAM, OAM and the LCD registers, read at
    the start of that row's mode 3 (emurust re-run from the last matching point)."""

    vram: bytes
    oam: bytes
    lcdc: int
    scy: int
    scx: int
    wy: int
    wx: int
    bgp: int
    obp0: int
    obp1: int


def _bg_colour(state: LineState, row: int, x: int) -> int | None:
    """The BG colour index (0-3) under pixel (row, x); None where the window covers it
    (the window's line counter is not modelled here) or BG/window are off."""
    lcdc = state.lcdc
    if not lcdc & 0x01:
        return None
    if lcdc & 0x20 and state.wy <= row and x >= state.wx - 7:
        return None
    y, xx = (row + state.scy) & 0xFF, (x + state.scx) & 0xFF
    tile = state.vram[(0x1C00 if lcdc & 0x08 else 0x1800) + (y // 8) * 32 + xx // 8]
    base = tile * 16 if lcdc & 0x10 else 0x1000 + ((tile ^ 0x80) - 0x80) * 16
    lo, hi = state.vram[base + (y % 8) * 2], state.vram[base + (y % 8) * 2 + 1]
    bit = 7 - xx % 8
    return ((lo >> bit) & 1) | (((hi >> bit) & 1) << 1)


def _objects_at(state: LineState, row: int, x: int) -> list[tuple[int, int]]:
    """The objects of ``row`` covering pixel ``x`` in drawing priority (smaller X first,
    then OAM order), each as (colour index 0-3, attribute flags)."""
    height = 16 if state.lcdc & 0x04 else 8
    selected = [n for n in range(40) if 0 <= row - (state.oam[4 * n] - 16) < height][:10]
    out = []
    for n in sorted(selected, key=lambda n: (state.oam[4 * n + 1], n)):
        oy, ox, tile, flags = state.oam[4 * n : 4 * n + 4]
        dx = x - (ox - 8)
        if not 0 <= dx < 8:
            continue
        dy = row - (oy - 16)
        if flags & 0x40:
            dy = height - 1 - dy
        if height == 16:
            tile &= 0xFE
        addr = tile * 16 + dy * 2
        bit = dx if flags & 0x20 else 7 - dx
        lo, hi = state.vram[addr], state.vram[addr + 1]
        out.append((((lo >> bit) & 1) | (((hi >> bit) & 1) << 1), flags))
    return out


def _shade(palette: int, colour: int) -> int:
    return (palette >> (2 * colour)) & 3


def _obj_shade(state: LineState, colour: int, flags: int) -> int:
    return _shade(state.obp1 if flags & 0x10 else state.obp0, colour)


def hardware_pixel(state: LineState, row: int, x: int) -> int | None:
    """A DMG pixel's shade (Pan Docs, OAM 'Drawing priority'): the first opaque object
    pixel in drawing priority wins over the others; only then is its BG-over-OBJ bit
    checked against the BG colour. None where :func:`_bg_colour` is None."""
    bg = _bg_colour(state, row, x)
    if bg is None:
        return None
    if state.lcdc & 0x02:
        for colour, flags in _objects_at(state, row, x):
            if colour:
                if flags & 0x80 and bg:
                    break
                return _obj_shade(state, colour, flags)
    return _shade(state.bgp, bg)


def pyboy_pixel(state: LineState, row: int, x: int) -> int | None:
    """The same pixel as PyBoy 2.8.1 draws it (pyboy/core/lcd.py,
    ``Renderer.scanline_sprites``): objects are drawn from the lowest priority to the
    highest, each opaque pixel overwriting the pixel unless its BG-over-OBJ bit is set and
    the BG colour is not 0; so the highest-priority object that is opaque *and not masked
    by the BG* wins, and a masked object does not hide the objects below it."""
    bg = _bg_colour(state, row, x)
    if bg is None:
        return None
    if state.lcdc & 0x02:
        for colour, flags in _objects_at(state, row, x):
            if colour and not (flags & 0x80 and bg):
                return _obj_shade(state, colour, flags)
    return _shade(state.bgp, bg)


def _object_priority_rule(point: Point, diffs: list[Diff]) -> list[Diff]:
    screen = [d for d in diffs if d["region"] == "screen"]
    if not screen or point.line_state is None:
        return []
    masked = []
    for d in screen:
        row, x = divmod(int(d["addr"]), 160)
        state = point.line_state(row)
        if state is None:
            continue
        hardware, pyboy = hardware_pixel(state, row, x), pyboy_pixel(state, row, x)
        if hardware != pyboy and hardware == d["emurust"] and pyboy == d["pyboy"]:
            masked.append(d)
    return masked


def _joypad_irq_rule(point: Point, diffs: list[Diff]) -> list[Diff]:
    if not point.unselected_press:
        return []
    return [
        d
        for d in diffs
        if d["region"] == "io"
        and d["addr"] == 0xFF0F
        and int(d["pyboy"]) ^ int(d["emurust"]) == 0x10
        and int(d["pyboy"]) & 0x10
    ]


def _writes_p1(entry: _TraceEntry) -> bool:
    """Whether the traced instruction writes P1 (0xFF00): ldh ($00),a, ld ($ff00),a,
    ld ($ff00+c),a with C = 0, or ld (hl),r with HL = 0xFF00."""
    if entry["kind"] != "instruction":
        return False
    code = bytes(entry["opcode"])
    hl = entry["h"] << 8 | entry["l"]
    return (
        code[:2] == b"\xe0\x00"
        or code[:3] == b"\xea\x00\xff"
        or (code[0] == 0xE2 and entry["c"] == 0)
        or (0x70 <= code[0] <= 0x77 and code[0] != 0x76 and hl == 0xFF00)
    )


def _p1_select_irq_rule(point: Point, diffs: list[Diff]) -> list[Diff]:
    flag = [
        d
        for d in diffs
        if d["region"] == "io"
        and d["addr"] == 0xFF0F
        and int(d["pyboy"]) ^ int(d["emurust"]) == 0x10
        and int(d["emurust"]) & 0x10
    ]
    if not flag or point.frame_trace is None:
        return []
    # The last step of emurust's traced frame after which IF bit 4 was set while it was
    # clear before (the trace shows IF before each step; the end is the compared point).
    trace = list(point.frame_trace())
    ends = [int(e["if"]) for e in trace[1:]] + [int(flag[0]["emurust"])]
    steps = enumerate(zip(trace, ends))
    raised = [i for i, (e, after) in steps if after & 0x10 and not e["if"] & 0x10]
    if raised:
        return flag if _writes_p1(trace[raised[-1]]) else []
    # Set before the traced frame and not cleared in it: only if this rule explained it
    # at an earlier point and emurust's bit has stayed set since.
    return flag if point.p1_select_irq_carried and all(e["if"] & 0x10 for e in trace) else []


def _serial_busy_rule(point: Point, diffs: list[Diff]) -> list[Diff]:
    sc = [
        d
        for d in diffs
        if d["region"] == "io"
        and d["addr"] == 0xFF02
        and int(d["emurust"]) == int(d["pyboy"]) | 0x80
        and not int(d["pyboy"]) & 0x80
        and int(d["pyboy"]) & 1
    ]
    if not sc or point.frame_trace is None:
        return []
    # emurust's program started an internal-clock transfer (wrote SC with bits 7 and 0
    # set) less than 8 bits x 512 T-cycles before the comparison point.
    for entry in point.frame_trace():
        if (
            entry["kind"] == "instruction"
            and bytes(entry["opcode"][:2]) == b"\xe0\x02"
            and entry["a"] & 0x81 == 0x81
            and point.cycles - entry["cycles"] < 8 * 512
        ):
            return sc
    return []


def _never(point: Point, diffs: list[Diff]) -> list[Diff]:
    return []


_LY_READS = {0xF0: (2, b"\xf0\x44"), 0xFA: (3, b"\xfa\x44\xff")}

# Instructions that leave A alone (they may set F from it, or branch on F): cp r / cp n,
# jr / jp (conditional or not), inc / dec of a register other than A (8 and 16 bits), nop.
_KEEPS_A = frozenset(
    {0x00, 0x18, 0x20, 0x28, 0x30, 0x38, 0xC2, 0xC3, 0xCA, 0xD2, 0xDA, 0xFE}
    | set(range(0xB8, 0xC0))
    | {0x04, 0x05, 0x0C, 0x0D, 0x14, 0x15, 0x1C, 0x1D, 0x24, 0x25, 0x2C, 0x2D}
    | {0x03, 0x0B, 0x13, 0x1B, 0x23, 0x2B, 0x33, 0x3B}
)
_MEMORY_REGIONS = frozenset({"wram", "hram", "vram", "oam"})


def _is_ly_read(entry: _TraceEntry) -> bool:
    if entry["kind"] != "instruction":
        return False
    read = _LY_READS.get(entry["opcode"][0])
    return read is not None and bytes(entry["opcode"][: read[0]]) == read[1]


def _line153_reads(point: Point) -> list[tuple[int, list[_TraceEntry]]]:
    """The LY reads of emurust's traced frame that returned 0 in line 153: (index of the
    read in the trace, the trace), the trace ending with a pseudo-entry for emurust's
    state at the comparison point. A read is in line 153 when emurust shows LY 0 in STAT
    mode 1 at the start or at the end of the read instruction (LY 0 is otherwise mode 2,
    3 or 0; the read itself falls between the two)."""
    if point.frame_trace is None or point.emurust_at is None:
        return []
    trace = list(point.frame_trace())
    if not trace:
        return []
    end: Any = {**trace[-1], **point.emurust_registers, "kind": "end", "cycles": point.cycles}
    trace.append(end)
    found = []
    for i, (before, after) in enumerate(zip(trace, trace[1:])):
        if not _is_ly_read(before) or after["a"] != 0:
            continue
        for cycles in (before["cycles"], after["cycles"]):
            gb = point.emurust_at(cycles)
            if gb is not None and gb.memory[0xFF44] == 0 and gb.memory[0xFF41] & 3 == 1:
                found.append((i, trace))
                break
    return found


def _ly153_proof(point: Point, diffs: list[Diff]) -> str | None:
    if any(d["region"] == "screen" for d in diffs):
        return None
    regions = {str(d["region"]) for d in diffs}
    if not regions <= {"registers", "clock"} | _MEMORY_REGIONS | {"io"}:
        return None
    pb = point.pyboy_registers
    if pb["a"] == 153 and regions <= {"registers", "clock"}:
        proof = _ly153_still_153(point)
        if proof is not None:
            return proof
    if pb["a"] in (0, 153):
        proof = _ly153_at_read(point)
        if proof is not None:
            return proof
    if pb["a"] == 153:
        return _ly153_still_polling(point)
    return None


# Conditional jumps (jr cc, jp cc) that close an LY poll loop.
_COND_JUMPS = frozenset({0x20, 0x28, 0x30, 0x38, 0xC2, 0xCA, 0xD2, 0xDA})


def _jump_target(entry: _TraceEntry) -> int:
    code = bytes(entry["opcode"])
    if code[0] in (0x20, 0x28, 0x30, 0x38):
        return (entry["pc"] + 2 + ((code[1] ^ 0x80) - 0x80)) & 0xFFFF
    return code[1] | code[2] << 8


def _ly153_still_polling(point: Point) -> str | None:
    """PyBoy is still in the LY poll loop that emurust left: emurust's LY read returned 0
    in line 153 and it went on, PyBoy read 153 there and turned back (its A is 153, its PC
    one of the loop's instructions, from the read to the conditional jump back to it), and
    PyBoy's registers other than A, F and PC, WRAM, HRAM, VRAM and OAM equal emurust's at
    that read (the loop writes nothing), bytes up to 32 below SP aside (dead stack: an
    interrupt taken at another turn of the loop pushes other values there)."""
    if point.pyboy_diffs is None or point.emurust_at is None:
        return None
    pb = point.pyboy_registers
    for i, trace in _line153_reads(point):
        read = trace[i]
        loop: set[int] = {read["pc"]}
        closed = False
        for entry in trace[i + 1 :]:
            if entry["kind"] != "instruction" or len(loop) > 8:
                break
            loop.add(entry["pc"])
            if entry["opcode"][0] in _COND_JUMPS:
                closed = _jump_target(entry) == read["pc"]
                break
        if not closed or pb["pc"] not in loop:
            continue
        gb = point.emurust_at(read["cycles"])
        if gb is None:
            continue
        sp = pb["sp"]
        rest = [
            d
            for d in point.pyboy_diffs(gb)
            if d["region"] not in ("io", "clock")
            and not (d["region"] == "registers" and d["addr"] in ("a", "f", "pc"))
            and not _dead_stack(d, sp)
        ]
        if rest:
            continue
        now = point.pyboy_cycles or point.cycles
        return (
            f"PyBoy is still in the LY poll loop at 0x{read['pc']:04X} (PC 0x{pb['pc']:04X}, "
            f"A = 153) at its frame end (cycle {now}); emurust's read there returned 0 at "
            f"cycle {read['cycles']} in line 153 (LY 0 while its STAT mode was 1) and it left "
            f"the loop; PyBoy's registers other than A, F and PC, WRAM, HRAM, VRAM and OAM "
            f"(up to 32 bytes below SP aside) equal emurust's at that read: PyBoy read 153 for "
            f"the rest of line 153"
        )
    return None


def _dead_stack(d: Diff, sp: int) -> bool:
    """Whether ``d`` is a WRAM/HRAM byte up to 32 below SP: dead stack, written by an
    interrupt entry (and its handler's pushes) that came at another point of the poll loop
    in the two emulators."""
    return d["region"] in ("wram", "hram") and sp - 32 <= int(d["addr"]) < sp


def _ly153_still_153(point: Point) -> str | None:
    """PyBoy has read 153 in line 153 and holds it; emurust read 0 there. Proven when
    emurust, from its line-153 read on, ran only instructions that keep A (compare,
    branch, inc/dec of other registers) up to PyBoy's PC, and its registers at that PC
    equal PyBoy's except A (0 there, 153 in PyBoy) and F (computed from A)."""
    pb = point.pyboy_registers
    for i, trace in _line153_reads(point):
        for entry in trace[i + 1 :]:
            if entry["a"] != 0:
                break
            if entry["pc"] == pb["pc"]:
                values: dict[str, Any] = dict(entry)
                others = [r for r in REGISTERS if r not in ("a", "f") and values[r] != pb[r]]
                if others:
                    break
                read = trace[i]
                return (
                    f"PyBoy's A holds 153 at its frame end (cycle "
                    f"{point.pyboy_cycles or point.cycles}, line "
                    f"153) at PC 0x{pb['pc']:04X}; emurust's LY read at 0x{read['pc']:04X} "
                    f"(cycle {read['cycles']}) returned 0 in line 153 (LY 0 while its STAT "
                    f"mode was 1), and emurust then reached 0x{pb['pc']:04X} with "
                    f"A still 0 through instructions that keep A, its other registers "
                    f"except F equal to PyBoy's; no other difference (memory, I/O)"
                )
            if entry["kind"] != "instruction" or entry["opcode"][0] not in _KEEPS_A:
                break
    return None


def _ly153_at_read(point: Point) -> str | None:
    """PyBoy is where emurust was right after its line-153 LY read: either it has just
    read 153 there (A = 153, emurust read 0 and went on), or it stayed in the LY loop for
    the rest of line 153 and read 0 only when LY wrapped (A = 0)."""
    if point.pyboy_diffs is None or point.emurust_at is None:
        return None
    pb = point.pyboy_registers
    for i, trace in reversed(_line153_reads(point)):
        read, after = trace[i], trace[i + 1]
        if after["pc"] != pb["pc"] or after["kind"] == "end":
            continue
        gb = point.emurust_at(after["cycles"])
        if gb is None:
            continue
        # Registers and memory equal (A aside when PyBoy read 153); I/O registers that
        # count time (DIV, LY, STAT, IF ...) are left out: the states are from different
        # moments.
        rest = [d for d in point.pyboy_diffs(gb) if d["region"] != "io"]
        if rest == [{"region": "registers", "addr": "a", "emurust": 0, "pyboy": 153}]:
            now = point.pyboy_cycles or point.cycles
            return (
                f"PyBoy's PC 0x{pb['pc']:04X} follows the LY read at 0x{read['pc']:04X} "
                f"with A = 153 at its frame end (cycle {now}, line 153); emurust's same "
                f"read returned 0 at cycle {after['cycles']} in line 153 (LY 0 while its "
                f"STAT mode was 1), and PyBoy's registers except A, WRAM, HRAM, VRAM and "
                f"OAM now equal emurust's right after that read: PyBoy read 153 where "
                f"emurust read 0 and stayed in the loop"
            )
        if rest:
            continue
        now = point.pyboy_cycles or point.cycles
        return (
            f"PyBoy's PC 0x{pb['pc']:04X} follows the LY read at 0x{read['pc']:04X} with A "
            f"= 0 at its frame end (cycle {now}, where LY wraps from 153 to 0); "
            f"emurust's same read returned 0 at cycle {after['cycles']} in line 153 (LY 0 "
            f"while its STAT mode was 1), and PyBoy's registers, WRAM, HRAM, VRAM and OAM "
            f"now equal emurust's right after that read: PyBoy read a non-zero LY for the "
            f"rest of line 153 and left the loop {now - after['cycles']} T-cycles later"
        )
    return None


def _plain_line(gb: GameBoy) -> bool:
    """Whether mode 3 of the current line has its minimum length: SCX a multiple of 8, no
    window on the line and no object on the line (enabled or not)."""
    m = gb.memory
    ly, lcdc = m[0xFF44], m[0xFF40]
    if m[0xFF43] & 7 or (lcdc & 0x21 == 0x21 and m[0xFF4A] <= ly and m[0xFF4B] <= 166):
        return False
    height = 16 if lcdc & 0x04 else 8
    oam = m[0xFE00:0xFEA0]
    return not any(0 <= ly - (oam[4 * n] - 16) < height for n in range(40))


def _require_test_aids() -> None:
    """The replay proofs edit a machine's PPU and timer through the native test aids
    (``GameBoy._test_shift_ppu``, ``_test_shift_timer``, ``_test_set_wy_latch``), which only
    a build with the cargo feature ``testing`` has: scripts/setup_env.sh's development build,
    not the release wheel. Without them a proof could not tell a PyBoy deviation from a
    divergence, so it refuses to run instead of reporting one."""
    if not _HAS_TEST_AIDS:
        raise RuntimeError(
            "this lockstep proof replays emurust with its PPU or timer shifted, through the "
            "native test aids of the cargo feature `testing`, which this build of emurust (the "
            "release wheel) leaves out: run it from a development build (scripts/setup_env.sh)"
        )


@dataclass
class _Replay:
    """What :func:`_late_line_replay` did."""

    #: The machine at the target clock.
    gb: GameBoy
    #: Clocks of the steps whose line event was delayed.
    delayed: list[int]
    #: Clocks of the steps whose outcome (clock, registers) the delay changed.
    changed: list[int]
    #: Steps before which PyBoy's window rule changed the WY latch.
    forced: int
    #: VBlank line starts delayed by ``vblank_lag`` more.
    vblank_delayed: int


def _late_line_replay(
    gb: GameBoy, target: int, *, pyboy_window: bool = False, vblank_lag: int = 0
) -> _Replay | None:
    """Runs ``gb`` to ``target`` as PyBoy's PPU behaves after an LCD enable: a step
    (instruction, interrupt dispatch or halted step) during which a line starts (LY
    changes, or STAT enters mode 2, or mode 1 from mode 0), or mode 0 starts on a line
    whose mode 3 has its minimum length (:func:`_plain_line`), is re-run with the PPU's
    line timing 4 T-cycles later (``GameBoy._test_shift_ppu``); the timing is put back as
    soon as that event has happened (in that step or a later one). With ``pyboy_window``
    the window's WY latch is also set before every step to PyBoy's rule, LCDC.5 set and
    LY >= WY (``GameBoy._test_set_wy_latch``). Returns the machine, the clocks of the
    steps whose event was delayed and of those whose outcome (clock, registers) the delay
    changed, the number of steps before which PyBoy's window rule changed the latch and the
    number of VBlank line starts delayed by more (:class:`_Replay`); None if the machine
    has no instruction boundary at ``target`` or its state cannot be edited.
    ``vblank_lag`` delays the starts of lines 144-153 (LY changes to 144..153) that many
    T-cycles more, as PyBoy's LY advances with its mode-1 transition there."""
    _require_test_aids()
    delayed: list[int] = []
    changed: list[int] = []
    forced = 0
    vblank_delayed = 0
    late = 0  # the PPU runs this many T-cycles late until the delayed event has happened
    while gb.cycles < target:
        ly, mode = gb.memory[0xFF44], gb.memory[0xFF41] & 3
        on = gb.memory[0xFF40] & 0x80
        if pyboy_window:
            want = bool(on and gb.memory[0xFF40] & 0x20 and ly >= gb.memory[0xFF4A])
            had = gb._test_set_wy_latch(want)
            if had is None:
                return None
            forced += had != want
        before = gb.save_state()
        start = gb.cycles
        gb._step_to_cycle(start + 1)
        if gb.cycles == start:
            return None
        if not _line_event(gb, on, ly, mode):
            continue
        if not late:
            ly1 = gb.memory[0xFF44]
            late = 4 + (vblank_lag if ly1 != ly and 144 <= ly1 <= 153 else 0)
            outcome = (gb.cycles, dict(gb.registers))
            gb.load_state(before)
            if not gb._test_shift_ppu(late, start):
                return None
            gb._step_to_cycle(start + 1)
            delayed.append(start)
            vblank_delayed += late > 4
            if (gb.cycles, dict(gb.registers)) != outcome:
                changed.append(start)
            if not _line_event(gb, on, ly, mode):
                continue
        if not gb._test_shift_ppu(-late, gb.cycles):
            return None
        late = 0
    if gb.cycles != target:
        return None
    return _Replay(gb, delayed, changed, forced, vblank_delayed)


def _line_event(gb: GameBoy, on: int, ly: int, mode: int) -> bool:
    """Whether, since LY ``ly`` and STAT mode ``mode`` were read with the LCD ``on``, a
    line has started or mode 0 has started on a plain line (the LCD on throughout)."""
    ly1, mode1 = gb.memory[0xFF44], gb.memory[0xFF41] & 3
    if not (on and gb.memory[0xFF40] & 0x80):
        return False
    if ly1 != ly or (mode1 == 2 and mode != 2) or (mode1 == 1 and mode == 0):
        return True
    return mode1 == 0 and mode == 3 and _plain_line(gb)


def _lcd_enable_late_proof(point: Point, diffs: list[Diff]) -> str | None:
    return _late_replay_proof(point, diffs, pyboy_window=False)


def _window_late_proof(point: Point, diffs: list[Diff]) -> str | None:
    return _late_replay_proof(point, diffs, pyboy_window=True)


def _vblank_late_proof(point: Point, diffs: list[Diff]) -> str | None:
    # Only what the late lines alone (pyboy-lcd-enable-4-cycles-terminal) do not explain.
    if _late_replay_proof(point, diffs, pyboy_window=False) is not None:
        return None
    return _late_replay_proof(point, diffs, pyboy_window=False, vblank_lag=4)


def _late_replay_proof(
    point: Point, diffs: list[Diff], *, pyboy_window: bool, vblank_lag: int = 0
) -> str | None:
    regions = {str(d["region"]) for d in diffs}
    if not regions <= {"registers", "clock", "io"} | _MEMORY_REGIONS:
        return None
    if point.emurust_start is None or point.pyboy_diffs is None or not point.pyboy_cycles:
        return None
    # At PyBoy's clock, or 4 T-cycles before it when PyBoy has also serviced an interrupt
    # 4 T-cycles late (pyboy-late-interrupt-4-cycles) since the last matching point.
    for lag in (0, 4):
        replay = _late_line_replay(
            point.emurust_start(),
            point.pyboy_cycles - lag,
            pyboy_window=pyboy_window,
            vblank_lag=vblank_lag,
        )
        if (
            replay is None
            or not replay.delayed
            or (pyboy_window and not replay.forced)
            or (vblank_lag and not replay.vblank_delayed)
        ):
            continue
        gb, delayed, changed = replay.gb, replay.delayed, replay.changed
        if lag and not _serviced_interrupt(point):
            continue
        if not _same_as_pyboy(point, gb, lag):
            continue
        steps = ", ".join(str(c) for c in changed[:4]) or "none"
        when = (
            f"PyBoy's clock {point.pyboy_cycles}"
            if not lag
            else f"4 T-cycles before PyBoy's clock {point.pyboy_cycles} (PyBoy also "
            f"serviced an interrupt 4 T-cycles late, as in pyboy-late-interrupt-4-cycles)"
        )
        window = (
            f" and its window's WY latch set to PyBoy's rule (LCDC.5 and LY >= WY), which "
            f"changed it before {replay.forced} step(s),"
            if pyboy_window
            else f" and the starts of lines 144-153 {vblank_lag} T-cycles later still "
            f"({replay.vblank_delayed} "
            f"of them delayed so),"
            if vblank_lag
            else ""
        )
        return (
            f"emurust re-run from the last matching point with each line start (and mode 0 "
            f"start on plain lines) seen 4 T-cycles late, as PyBoy's after an LCD enable,"
            f"{window} reaches PyBoy's state at {when}: registers, VRAM, OAM and memory equal "
            f"(stack bytes below SP and LY/STAT aside); {len(delayed)} line start(s) "
            f"delayed, which changed the outcome of the step(s) at cycle {steps}"
        )
    return None


# T-cycles by which PyBoy 2.8.1 starts line 144 (and the VBlank interrupt) too early in the
# first frame after an LCD enable (pyboy-lcd-enable-vblank-early-terminal).
_FIRST_VBLANK_EARLY = 4


def _first_vblank_early_replay(gb: GameBoy, target: int) -> tuple[GameBoy, int] | None:
    """Runs ``gb`` to ``target`` with line 144 of the first frame after an LCD enable (an
    enable that happens during the run) starting :data:`_FIRST_VBLANK_EARLY` T-cycles
    early, as PyBoy's does: when a step (instruction, interrupt dispatch or halted step)
    shows LY change from 143 to 144 in that frame, the step before it is re-run with the
    PPU's line timing moved that much earlier (``GameBoy._test_shift_ppu``), and the timing
    stays moved for the rest of that frame's VBlank (lines 144-153, put back when line 0 of
    the next frame starts). Returns the machine at ``target`` and the clock of the step
    from which the timing was moved; None if no such line 144 start comes before
    ``target``, if the LCD goes off after it, if the machine has no instruction boundary at
    ``target`` or its state cannot be edited."""
    _require_test_aids()
    fresh = False  # the LCD was switched on during the run; line 144 has not started since
    moved: int | None = None
    in_vblank = False  # the moved line 144 has started (STAT mode 1)
    back = False  # the timing was put back when the next frame started
    prev: tuple[bytes, int] | None = None
    while gb.cycles < target:
        lcd_on, ly = gb.memory[0xFF40] & 0x80, gb.memory[0xFF44]
        before, start = gb.save_state(), gb.cycles
        gb._step_to_cycle(start + 1)
        if gb.cycles == start:
            return None
        now_on, ly1 = gb.memory[0xFF40] & 0x80, gb.memory[0xFF44]
        if back:
            pass
        elif moved is not None:
            if not now_on:
                return None
            if gb.memory[0xFF41] & 3 == 1:
                in_vblank = True
            elif in_vblank:
                # Line 0 of the next frame has started: PyBoy's early VBlank is over.
                if not gb._test_shift_ppu(_FIRST_VBLANK_EARLY, gb.cycles):
                    return None
                back = True
        elif now_on and not lcd_on:
            fresh = True
        elif not now_on:
            fresh = False
        elif fresh and ly == 143 and ly1 == 144:
            if prev is None:
                return None
            state, at = prev
            gb.load_state(state)
            if not gb._test_shift_ppu(-_FIRST_VBLANK_EARLY, at):
                return None
            moved, fresh = at, False
        prev = (before, start)
    if moved is None or gb.cycles != target:
        return None
    return gb, moved


def _exactly_pyboy(point: Point, gb: GameBoy, *, lag: bool) -> bool:
    """Whether ``gb`` has PyBoy's state at this point: registers, WRAM, HRAM, VRAM, OAM and
    the compared I/O registers, except differences that emurust itself has here and an
    allowlist entry masked and LY/STAT; with ``lag`` (``gb`` at another clock) the I/O
    registers that count time are left out too. No dead stack bytes are let through."""
    assert point.pyboy_diffs is not None
    masked = {(d["region"], d["addr"], d["emurust"], d["pyboy"]) for d in point.masked}
    for d in point.pyboy_diffs(gb):
        if (d["region"], d["addr"], d["emurust"], d["pyboy"]) in masked:
            continue
        if d["region"] == "io" and d["addr"] in (TIME_DRIVEN_IO if lag else (0xFF41, 0xFF44)):
            continue
        return False
    return True


def _first_vblank_early_proof(point: Point, diffs: list[Diff]) -> str | None:
    regions = {str(d["region"]) for d in diffs}
    if not regions <= {"registers", "clock", "io"} | _MEMORY_REGIONS:
        return None
    if point.emurust_start is None or point.pyboy_diffs is None or not point.pyboy_cycles:
        return None
    replay = _first_vblank_early_replay(point.emurust_start(), point.pyboy_cycles)
    if replay is None:
        return None
    gb, moved = replay
    # Exactly PyBoy's state: unlike the late-line proofs, no dead stack bytes are let
    # through (a frame whose code ran differently earlier can end with only those).
    if not _exactly_pyboy(point, gb, lag=False):
        return None
    # And the deviation is the only one: emurust as it ran (nothing moved) has PyBoy's
    # state 4 T-cycles after PyBoy's clock, i.e. it ran the same code, just that late.
    plain = None if point.emurust_at is None else point.emurust_at(point.pyboy_cycles + 4)
    if plain is None or not _exactly_pyboy(point, plain, lag=True):
        return None
    return (
        f"emurust re-run from the last matching point with line 144 of the first frame "
        f"after its LCD enable starting {_FIRST_VBLANK_EARLY} T-cycles early, as PyBoy's "
        f"(the line timing moved from the step at cycle {moved} to the end of VBlank), "
        f"reaches PyBoy's state at PyBoy's clock {point.pyboy_cycles}: registers, VRAM, "
        f"OAM, memory and I/O equal (LY/STAT aside)"
    )


_INTERRUPT_VECTORS = frozenset({0x40, 0x48, 0x50, 0x58, 0x60})


def _ei_halt_replay(gb: GameBoy, target: int) -> tuple[GameBoy, int] | None:
    """Runs ``gb`` to ``target`` as PyBoy 2.8.1 runs a HALT that directly follows EI while
    no enabled interrupt is pending (IE & IF = 0 as the HALT executes): the interrupt that
    ends the HALT is dispatched, but with the HALT's own address as the return address
    (PyBoy's CPU.check_interrupts does not step PC past a HALT run in EI's delay slot), so
    the handler's RETI comes back to the HALT, which halts again. Each such dispatch is
    re-written here: the pushed return address (the byte after the HALT) is set to the
    HALT's address. Returns the machine at ``target`` and the number of dispatches
    re-written; None if there is none, or the machine has no instruction boundary at
    ``target``."""
    rewritten = 0
    halt: tuple[int, int] | None = None  # (HALT's address, SP) while waiting after EI; HALT
    after_ei = False
    while gb.cycles < target:
        regs = gb.registers
        pc, sp = regs["pc"], regs["sp"]
        opcode = gb.memory[pc]
        pending = gb.memory[0xFF0F] & gb.memory[0xFFFF] & 0x1F
        start = gb.cycles
        gb._step_to_cycle(start + 1)
        if gb.cycles == start:
            return None
        now = gb.registers
        if halt is not None:
            at, halt_sp = halt
            if now["pc"] in _INTERRUPT_VECTORS and now["sp"] == (halt_sp - 2) & 0xFFFF:
                ret = gb.memory[now["sp"]] | gb.memory[(now["sp"] + 1) & 0xFFFF] << 8
                if ret == (at + 1) & 0xFFFF:
                    gb.memory[now["sp"]] = at & 0xFF
                    gb.memory[(now["sp"] + 1) & 0xFFFF] = at >> 8
                    rewritten += 1
                halt = None
            elif now["pc"] != (at + 1) & 0xFFFF or now["sp"] != halt_sp:
                halt = None
        elif after_ei and opcode == 0x76 and not pending and now["pc"] == (pc + 1) & 0xFFFF:
            halt = (pc, sp)
        after_ei = opcode == 0xFB and now["pc"] == (pc + 1) & 0xFFFF
    if not rewritten or gb.cycles != target:
        return None
    return gb, rewritten


def _ei_halt_proof(point: Point, diffs: list[Diff]) -> str | None:
    regions = {str(d["region"]) for d in diffs}
    if not regions <= {"registers", "clock", "io"} | _MEMORY_REGIONS:
        return None
    if point.emurust_start is None or point.pyboy_diffs is None or not point.pyboy_cycles:
        return None
    real = point.pyboy_diffs
    pb_pc = point.pyboy_registers["pc"]

    def halted_pc(d: Diff) -> bool:
        # PyBoy keeps PC on a HALT while halted, emurust past it (pyboy-halt-pc).
        return (
            d["region"] == "registers"
            and d["addr"] == "pc"
            and point.pyboy_opcode == 0x76
            and d["pyboy"] == pb_pc
            and d["emurust"] == (pb_pc + 1) & 0xFFFF
        )

    seen = replace(point, pyboy_diffs=lambda gb: [d for d in real(gb) if not halted_pc(d)])
    replay = _ei_halt_replay(point.emurust_start(), point.pyboy_cycles)
    if replay is None:
        return None
    gb, rewritten = replay
    if not _exactly_pyboy(seen, gb, lag=False):
        return None
    return (
        f"emurust re-run from the last matching point with the return address of "
        f"{rewritten} interrupt dispatch(es) that ended a HALT run right after EI (no "
        f"enabled interrupt pending at the HALT) set to the HALT itself, as PyBoy's, "
        f"reaches PyBoy's state at PyBoy's clock {point.pyboy_cycles}: registers, VRAM, OAM "
        f"and memory equal (LY/STAT and PyBoy's PC on the HALT aside)"
    )


def _serviced_interrupt(point: Point) -> bool:
    """Whether emurust serviced an interrupt in the compared frame (traced re-run)."""
    trace = point.frame_trace() if point.frame_trace is not None else []
    return any(e["kind"] == "interrupt" for e in trace)


def _same_as_pyboy(point: Point, gb: GameBoy, lag: int) -> bool:
    """Whether the replay machine ``gb`` has PyBoy's state: its differences from PyBoy are
    only those that emurust itself has at this point and an allowlist entry masked, LY
    and STAT (PyBoy's line position: the deviation itself), WRAM/HRAM bytes up to 32
    below SP (dead stack written by interrupt entries), and, for a machine ``lag``
    T-cycles before PyBoy's clock, the I/O registers that count time."""
    assert point.pyboy_diffs is not None
    sp = point.pyboy_registers["sp"]
    masked = {(d["region"], d["addr"], d["emurust"], d["pyboy"]) for d in point.masked}
    for d in point.pyboy_diffs(gb):
        if (d["region"], d["addr"], d["emurust"], d["pyboy"]) in masked:
            continue
        if d["region"] == "io" and d["addr"] in (0xFF41, 0xFF44):
            continue
        if d["region"] == "io" and lag and d["addr"] in TIME_DRIVEN_IO:
            continue
        if _dead_stack(d, sp):
            continue
        return False
    return True


#: How many T-cycles later than a DMG PyBoy 2.8.1's program sees the PPU and DIV, in a
#: frame that is not the first after an LCD enable (pyboy-reads-8-cycles-late-terminal).
PYBOY_READ_LAG = 8


def _read_lag_replay(
    gb: GameBoy, target: int, read_lag: int, vblank_lag: int = 0
) -> tuple[GameBoy, int] | None:
    """``gb`` (a scratch machine at the last matching point, LCD on) with its PPU's line
    timing and its timer's system counter moved ``read_lag`` T-cycles late
    (``GameBoy._test_shift_ppu``, ``GameBoy._test_shift_timer``), run by single steps to
    ``target``, with the starts of lines 144-153 ``vblank_lag`` T-cycles later still
    (:func:`_read_lag_vblank_replay`); with the number of line starts so delayed. None
    when the LCD is off at any step (a switch-on restarts the PPU: the first frame after
    it is pyboy-lcd-enable-4-cycles-terminal's), the state cannot be edited or the
    machine has no instruction boundary at ``target``."""
    _require_test_aids()
    if not gb.memory[0xFF40] & 0x80:
        return None
    if not gb._test_shift_ppu(read_lag, gb.cycles) or not gb._test_shift_timer(read_lag):
        return None
    if vblank_lag:
        delayed = _read_lag_vblank_replay(gb, target, vblank_lag)
        return None if delayed is None else (gb, delayed)
    while gb.cycles < target:
        start = gb.cycles
        gb._step_to_cycle(start + 1)
        if gb.cycles == start or not gb.memory[0xFF40] & 0x80:
            return None
    return (gb, 0) if gb.cycles == target else None


def _read_lag_vblank_replay(gb: GameBoy, target: int, vblank_lag: int) -> int | None:
    """Runs ``gb`` to ``target`` by single steps, re-running each step in which LY changes
    to 144..153 with the PPU's line timing ``vblank_lag`` T-cycles later (put back once LY
    has changed), as PyBoy advances LY with its mode-1 transition there
    (pyboy-vblank-ly-late-terminal). Returns how many line starts were delayed; None if
    the LCD is off after a step, ``gb`` has no instruction boundary at ``target`` or its
    state cannot be edited."""
    delayed = 0
    late = False
    while gb.cycles < target:
        ly = gb.memory[0xFF44]
        before = gb.save_state()
        start = gb.cycles
        gb._step_to_cycle(start + 1)
        if gb.cycles == start or not gb.memory[0xFF40] & 0x80:
            return None
        ly1 = gb.memory[0xFF44]
        if not late and ly1 != ly and 144 <= ly1 <= 153:
            gb.load_state(before)
            if not gb._test_shift_ppu(vblank_lag, start):
                return None
            late = True
            delayed += 1
            gb._step_to_cycle(start + 1)
            ly1 = gb.memory[0xFF44]
        if late and ly1 != ly:
            if not gb._test_shift_ppu(-vblank_lag, gb.cycles):
                return None
            late = False
    return delayed if gb.cycles == target else None


def _read_lag_same(point: Point, gb: GameBoy, lag: int) -> bool:
    """:func:`_same_as_pyboy` for a replay whose timer runs late: DIV may also read one
    step less than PyBoy's (the late counter has not reached PyBoy's next DIV step); 4
    T-cycles before PyBoy's clock only DIV and TIMA are left out, not IF."""
    assert point.pyboy_diffs is not None
    sp = point.pyboy_registers["sp"]
    masked = {(d["region"], d["addr"], d["emurust"], d["pyboy"]) for d in point.masked}
    for d in point.pyboy_diffs(gb):
        if (d["region"], d["addr"], d["emurust"], d["pyboy"]) in masked:
            continue
        if d["region"] == "io" and d["addr"] in (0xFF41, 0xFF44):
            continue
        if d["region"] == "io" and lag and d["addr"] in (0xFF04, 0xFF05):
            continue  # the counters; IF must agree (an interrupt flag is a program input)
        div_step = (int(d["pyboy"]) - int(d["emurust"])) & 0xFF == 1
        if d["region"] == "io" and d["addr"] == 0xFF04 and div_step:
            continue
        if _dead_stack(d, sp):
            continue
        return False
    return True


def _read_lag_proof(point: Point, diffs: list[Diff], read_lag: int = PYBOY_READ_LAG) -> str | None:
    regions = {str(d["region"]) for d in diffs}
    if not regions <= {"registers", "clock", "io"} | _MEMORY_REGIONS:
        return None
    if point.emurust_start is None or point.pyboy_diffs is None or not point.pyboy_cycles:
        return None
    found = _read_lag_search(
        point,
        lambda start, target, vblank_lag: _read_lag_replay(start, target, read_lag, vblank_lag),
    )
    if found is None:
        return None
    when, vblank_lag, delayed = found
    vblank = (
        f" and the starts of lines 144-153 {vblank_lag} T-cycles later still, as in "
        f"pyboy-vblank-ly-late-terminal ({delayed} of them delayed so),"
        if vblank_lag
        else ""
    )
    return (
        f"emurust re-run from the last matching point with its PPU and its timer's "
        f"system counter {read_lag} T-cycles late, as PyBoy's program sees them,"
        f"{vblank} reaches PyBoy's state at {when}: registers, VRAM, OAM and memory "
        f"equal (stack bytes below SP and LY/STAT aside, DIV one step behind at most)"
    )


def _read_lag_search(
    point: Point, replay: Callable[[GameBoy, int, int], tuple[GameBoy, int] | None]
) -> tuple[str, int, int] | None:
    """The re-runs of the read-lag proofs, in order: the read lag alone, then with PyBoy's
    late VBlank lines (pyboy-vblank-ly-late-terminal) on top (``vblank_lag`` 4, which must
    delay at least one line start); each at PyBoy's clock, or 4 T-cycles before it when
    PyBoy has also serviced an interrupt 4 T-cycles late (pyboy-late-interrupt-4-cycles).
    ``replay(start, target, vblank_lag)`` re-runs emurust from the last matching point to
    ``target`` and returns the machine and the number of line starts delayed. Returns how
    PyBoy's clock was reached (for the detail), the VBlank lag and that number for the first
    re-run that reaches PyBoy's state (:func:`_read_lag_same`), or None."""
    if point.emurust_start is None or not point.pyboy_cycles:
        return None
    for vblank_lag, lag in ((0, 0), (0, 4), (4, 0), (4, 4)):
        if lag and not _serviced_interrupt(point):
            continue
        result = replay(point.emurust_start(), point.pyboy_cycles - lag, vblank_lag)
        if result is None or (vblank_lag and not result[1]):
            continue
        if not _read_lag_same(point, result[0], lag):
            continue
        when = (
            f"PyBoy's clock {point.pyboy_cycles}"
            if not lag
            else f"4 T-cycles before PyBoy's clock {point.pyboy_cycles} (PyBoy also "
            f"serviced an interrupt 4 T-cycles late, as in pyboy-late-interrupt-4-cycles)"
        )
        return when, vblank_lag, result[1]
    return None


def _read_lag_irq_replay(
    gb: GameBoy, probe: GameBoy, target: int, read_lag: int, irq_lead: int
) -> tuple[GameBoy, int] | None:
    """:func:`_read_lag_replay` (no late VBlank lines) with the PPU's interrupt requests
    served as if made ``irq_lead`` T-cycles before the late PPU makes them: before each
    step the scratch machine ``probe`` is loaded with ``gb``'s state, its PPU moved
    ``irq_lead`` T-cycles back (``read_lag - irq_lead`` late), and both are stepped; when
    the probe's step dispatched the VBlank or STAT interrupt (its PC is now 0x0040 or
    0x0048) and ``gb``'s did not, ``gb`` takes the probe's state with its PPU moved
    ``irq_lead`` T-cycles late again (a dispatch reads no I/O register: only the request's
    time differs). Returns the machine and the number of dispatches so moved; None when
    the two steps end at different clocks otherwise, or as :func:`_read_lag_replay`."""
    _require_test_aids()
    if not gb.memory[0xFF40] & 0x80:
        return None
    if not gb._test_shift_ppu(read_lag, gb.cycles) or not gb._test_shift_timer(read_lag):
        return None
    moved = 0
    while gb.cycles < target:
        start = gb.cycles
        probe.load_state(gb.save_state())
        if not probe._test_shift_ppu(-irq_lead, start):
            return None
        probe._step_to_cycle(start + 1)
        gb._step_to_cycle(start + 1)
        if gb.cycles == start or not gb.memory[0xFF40] & 0x80:
            return None
        pc = probe.registers["pc"]
        if pc in (0x40, 0x48) and gb.registers["pc"] != pc:
            gb.load_state(probe.save_state())
            if not gb._test_shift_ppu(irq_lead, gb.cycles):
                return None
            moved += 1
        elif probe.cycles != gb.cycles:
            return None
    return (gb, moved) if gb.cycles == target else None


def _read_lag_irq_proof(
    point: Point, diffs: list[Diff], read_lag: int = PYBOY_READ_LAG, irq_lead: int = 4
) -> str | None:
    regions = {str(d["region"]) for d in diffs}
    if not regions <= {"registers", "clock", "io"} | _MEMORY_REGIONS:
        return None
    if point.emurust_start is None or point.pyboy_diffs is None or not point.pyboy_cycles:
        return None
    if _read_lag_proof(point, diffs, read_lag) is not None:
        return None  # pyboy-reads-8-cycles-late-terminal's own
    for lag in (0, 4):
        if lag and not _serviced_interrupt(point):
            continue
        target = point.pyboy_cycles - lag
        replay = _read_lag_irq_replay(
            point.emurust_start(), point.emurust_start(), target, read_lag, irq_lead
        )
        if replay is None or not replay[1] or not _read_lag_same(point, replay[0], lag):
            continue
        when = (
            f"PyBoy's clock {point.pyboy_cycles}"
            if not lag
            else f"4 T-cycles before PyBoy's clock {point.pyboy_cycles}"
        )
        return (
            f"emurust re-run from the last matching point with its PPU and its timer's "
            f"system counter {read_lag} T-cycles late, as PyBoy's program sees them, and "
            f"the PPU's interrupt requests {irq_lead} T-cycles before that late PPU makes "
            f"them ({read_lag - irq_lead} T-cycles late, as PyBoy services them: "
            f"pyboy-late-interrupt-4-cycles; {replay[1]} dispatch(es) so moved) reaches "
            f"PyBoy's state at {when}: registers, VRAM, OAM and memory equal (stack bytes "
            f"below SP and LY/STAT aside, DIV one step behind at most)"
        )
    return None


def _bg_row(state: LineState, row: int, scx: int) -> list[int | None]:
    """Row ``row`` of the background drawn from ``state`` with SCX = ``scx`` (shades; None
    where :func:`_bg_colour` is None)."""
    st = replace(state, scx=scx)
    out: list[int | None] = []
    for x in range(160):
        bg = _bg_colour(st, row, x)
        out.append(None if bg is None else _shade(st.bgp, bg))
    return out


def _boot_logo_rule(point: Point, diffs: list[Diff]) -> list[Diff]:
    if not point.boot_rom_mapped or point.line_state is None:
        return []
    by_row: dict[int, list[Diff]] = {}
    for d in diffs:
        if d["region"] == "screen":
            by_row.setdefault(int(d["addr"]) // 160, []).append(d)
    masked: list[Diff] = []
    for row, row_diffs in sorted(by_row.items()):
        if row >= 143:
            continue
        now, after = point.line_state(row), point.line_state(row + 1)
        if now is None or after is None or now.scx == after.scx:
            continue
        ours = point.emurust_screen.reshape(144, 160)[row].tolist()
        theirs = point.pyboy_screen.reshape(144, 160)[row].tolist()
        if ours == _bg_row(now, row, now.scx) and theirs == _bg_row(now, row, after.scx):
            masked += row_diffs
    return masked


DEFAULT_ALLOWLIST: tuple[AllowlistEntry, ...] = (
    AllowlistEntry(
        name="power-on-register-values",
        masks=(
            "BGP, OBP0 and OBP1 while they still hold each emulator's power-on value "
            "(emurust 0x00; PyBoy 0xFC, 0xFF, 0xFF), i.e. before the program writes them"
        ),
        evidence=(
            "values nobody has written: Pan Docs 'Power Up Sequence' leaves OBP0/OBP1 "
            "uninitialised after the boot ROM, which writes BGP itself"
        ),
        rule=_power_on_rule,
    ),
    AllowlistEntry(
        name="pyboy-sb-reads-ff",
        masks="the SB register (0xFF01) when PyBoy reads 0xFF and emurust another value",
        evidence=(
            "PyBoy ignores writes to SB without a link partner ('Always 0xFF when cable is "
            "disconnected', pyboy/core/serial.py); on a DMG SB is read/write and only a "
            "completed transfer shifts 1s into it (Pan Docs 'Serial Data Transfer'). "
            "Mooneye acceptance/boot_hwio-dmgABCmgb expects SB = $00 after the boot ROM: "
            "emurust passes, PyBoy fails. Only the register is masked: a game that reads "
            "it and acts on it still diverges elsewhere"
        ),
        rule=_sb_rule,
    ),
    AllowlistEntry(
        name="pyboy-joypad-irq-unselected-row",
        masks=(
            "bit 4 (joypad) of IF (0xFF0F) when PyBoy has it set and emurust not, all other "
            "IF bits equal, after the input script pressed a button whose P1 row (P14 "
            "directions, P15 actions) was not selected, until PyBoy's bit reads 0 again"
        ),
        evidence=(
            "Pan Docs, 'Interrupt Sources', INT $60: the joypad interrupt is requested when "
            "one of P1 bits 0-3 goes from high to low, which a press does only while its row "
            "is selected (Pan Docs 'Joypad Input'). PyBoy 2.8.1 requests it on every press "
            "(pyboy/core/mb.py, Motherboard.buttonevent). No test ROM in the shared set "
            "covers the joypad interrupt. Only the flag is masked: a game that enables the "
            "interrupt still diverges"
        ),
        rule=_joypad_irq_rule,
    ),
    AllowlistEntry(
        name="pyboy-joypad-irq-p1-select",
        masks=(
            "bit 4 (joypad) of IF (0xFF0F) when emurust has it set and PyBoy not, all other "
            "IF bits equal, and emurust's traced re-run of the frame (from the last matching "
            "point) set it in a write to P1 (ldh ($00),a, ld ($ff00),a, ld ($ff00+c),a with "
            "C = 0, ld (hl),r with HL = 0xFF00), the last step of the frame that set it; or "
            "it was set so at an earlier point, masked there by this entry, and has stayed "
            "set in emurust through the whole traced frame"
        ),
        evidence=(
            "Pan Docs, 'Interrupt Sources', INT $60: the joypad interrupt is requested when "
            "one of P1 bits 0-3 goes from high to low; selecting a row (P14/P15 low) while "
            "one of its buttons is held pulls its line low (Pan Docs 'Joypad Input': the "
            "lines are the button matrix seen through the selected rows), so the write "
            "requests it. PyBoy 2.8.1 requests it only on a button event "
            "(pyboy/core/mb.py, Motherboard.buttonevent; a P1 write only stores the select "
            "bits, pyboy/core/interaction.py). No test ROM in the shared set covers the "
            "joypad interrupt. Only the flag is masked: a game that enables the interrupt "
            "still diverges. Seen in 2048 (seed 0, frame 7: DOWN held, the game's joypad "
            "read selects the direction row after deselecting both)"
        ),
        rule=_p1_select_irq_rule,
    ),
    AllowlistEntry(
        name="pyboy-line-153-ly-boot-loop",
        masks=(
            "registers A, F, E and PC, and the clock offset of the instruction boundaries, "
            "while both emulators are in the logo loop of PyBoy's boot ROM (0x0059-0x006F), "
            "which polls LY (only with boot_rom=pyboy_boot_rom())"
        ),
        evidence=(
            "PyBoy reads LY = 153 for the whole of line 153; a DMG reads 0 after its first "
            "M-cycle (Pan Docs 'LY'; gbmicrotest line_153_ly_c and line_153_ly_d, verified on "
            "a DMG: emurust passes, PyBoy reads 0x99). The loop leaves no trace in memory"
        ),
        rule=_boot_ly_loop_rule,
    ),
    AllowlistEntry(
        name="pyboy-halt-pc",
        masks=(
            "register PC while the CPU is halted, when PyBoy's PC points at the HALT opcode "
            "(0x76) and emurust's at the byte after it"
        ),
        evidence=(
            "representation only, not a behaviour difference: PyBoy keeps PC on the HALT "
            "instruction while halted and adds 1 when it wakes (pyboy/core/cpu.py, "
            "check_interrupts); the DMG has fetched the next opcode already (Pan Docs, "
            "'halt'). Both then continue at the same address."
        ),
        rule=_halt_pc_rule,
    ),
    AllowlistEntry(
        name="pyboy-late-interrupt-4-cycles",
        masks=(
            "a comparison point whose differences are in the clock, the CPU registers, "
            "memory, and (when emurust stopped past PyBoy's clock) the time-driven I/O "
            "registers DIV/TIMA/IF/STAT/LY, when emurust's machine 4 T-cycles earlier "
            "(re-run from the last matching point) equals PyBoy's in registers, WRAM, HRAM, "
            "VRAM and OAM: PyBoy runs the same instructions 4 T-cycles later"
        ),
        evidence=(
            "PyBoy services interrupts 4 T-cycles late, from HALT and from running code "
            "(gbmicrotest int_vblank1_halt, int_vblank2_halt, vblank_int_halt_b, "
            "vblank2_int_halt_b, vblank_int_nops_b, int_timer_halt, verified on a DMG: "
            "emurust passes, PyBoy fails); the game code after the interrupt then runs "
            "4 T-cycles later in PyBoy until both halt again"
        ),
        rule=_late_interrupt_rule,
    ),
    AllowlistEntry(
        name="pyboy-lcd-enable-frame",
        masks=(
            "the screen of the PyBoy frame that follows a frame cut short by an LCD enable, "
            "when PyBoy shows it as one flat BG colour 0 (through BGP) and emurust shows it "
            "blank (every pixel shade 0)"
        ),
        evidence=(
            "Pan Docs (LCDC.7: the screen stays blank during the first frame after the LCD "
            "is switched on; a blank DMG LCD is white, shade 0). PyBoy ends a frame at every "
            "LCD enable, so its frame grid is shifted against emurust's (frames end at VBlank "
            "start) from there on, and the paired PyBoy frame is that blank first frame, which "
            "PyBoy fills with BG colour 0 through BGP: black in Pandora's Blocks (BGP colour 0 "
            "= shade 3, seed 0, frame 46). A pairing and blank-colour difference, not a proven "
            "emulation error (PyBoy 2.8.1 passes Mooneye acceptance/ppu/lcdon_timing-GS)"
        ),
        rule=_first_frame_after_lcd_enable_rule,
    ),
    AllowlistEntry(
        name="boot-logo-scx-wobble",
        masks=(
            "while the boot ROM is mapped (only with boot_rom=pyboy_boot_rom(): the default "
            "boot ROM draws no logo), the differing pixels of a screen row whose SCX changes "
            "before the next row, when emurust's whole row is the background drawn from VRAM "
            "with the SCX in force at the start of the row's mode 3 and PyBoy's whole row the "
            "same background drawn with the next row's SCX (both recomputed from emurust's "
            "VRAM and registers, re-run from the last matching point to each row's mode 3)"
        ),
        evidence=(
            "The scrolling logo of PyBoy's boot ROM writes SCX once a line, after polling LY. "
            "PyBoy samples SCX once per line at the end of mode 3, where a DMG's fetcher reads "
            "it tile by tile: mealybug-tearoom-tests m3_scx_low_3_bits and m3_scx_high_5_bits "
            "(DMG screenshots), which emurust passes (tests/ppu_screens.rs) and PyBoy fails. "
            "PyBoy also leaves the LY-polling loop at other cycles (it reads LY = 153 for all "
            "of line 153: pyboy-line-153-ly-boot-loop) and its PPU runs 4 T-cycles late after "
            "the boot ROM's LCD enable (pyboy-lcd-enable-4-cycles-terminal), so the next "
            "line's write lands before PyBoy's sample and after emurust's fetches. Seen on "
            "rows 67-82 from frame 24 (2048 with PyBoy's boot ROM, no input)"
        ),
        rule=_boot_logo_rule,
    ),
    AllowlistEntry(
        name="pyboy-object-priority-bg-over-obj",
        masks=(
            "screen pixels where two objects overlap and the higher-priority one (smaller X, "
            "then OAM order) has an opaque pixel with its BG-over-OBJ bit (attribute bit 7) "
            "set over BG colour 1-3: each masked pixel is recomputed from VRAM, OAM and the "
            "LCD registers of its row (emurust re-run from the last matching point to that "
            "row's mode 3) under the DMG rule and under PyBoy's, and masked only where the "
            "two rules differ, emurust shows the DMG rule's shade and PyBoy its own (pixels "
            "under the window are never masked)"
        ),
        evidence=(
            "Pan Docs, 'OAM', 'Drawing priority' (tip 'Interaction with \"BG over OBJ\" "
            "flag'): the PPU first picks the highest-priority opaque object pixel, and only "
            "then checks that object's BG-over-OBJ bit, so such an object masks the objects "
            "below it and the BG shows. PyBoy 2.8.1 draws objects from the lowest priority up "
            "and skips masked pixels (pyboy/core/lcd.py, Renderer.scanline_sprites), so the "
            "lower-priority object shows. No test ROM in the shared set isolates this: "
            "dmg-acid2, the mealybug ROMs and mooneye manual-only/sprite_priority do not "
            "combine overlapping objects with the BG-over-OBJ bit over BG colour 1-3"
        ),
        rule=_object_priority_rule,
    ),
    AllowlistEntry(
        name="pyboy-serial-transfer-instant",
        masks=(
            "bit 7 of SC (0xFF02) when emurust reads it set and PyBoy clear (other compared "
            "bit, 0, equal and set), and emurust's traced re-run of the frame executed "
            "ldh ($ff02),a with bits 7 and 0 set less than 4096 T-cycles (8 bits at 8192 Hz) "
            "before the comparison point"
        ),
        evidence=(
            "Pan Docs 'Serial Data Transfer': with the internal clock a transfer shifts one "
            "bit per 512 T-cycles and SC bit 7 stays set until the 8th bit; PyBoy 2.8.1 "
            "without a link partner clears it earlier. Not checked against a hardware test "
            "ROM (none in the shared set isolates the transfer length). Only the bit is "
            "masked: a program that polls it still diverges"
        ),
        rule=_serial_busy_rule,
    ),
    AllowlistEntry(
        name="pyboy-line-153-ly-terminal",
        masks=(
            "nothing: a terminal entry. The run stops (status allowlisted) when emurust's "
            "traced re-run of the frame (from the last matching point) has an LY read "
            "(ldh a,($ff44) / ld a,($ff44)) that returned 0 in line 153 (emurust shows LY 0 "
            "in STAT mode 1 at the start or end of the read) and either (a) PyBoy's A is "
            "153, the only differences are registers and the clock, and emurust went from "
            "that read to PyBoy's PC through instructions that keep A (cp, jr/jp, inc/dec "
            "of other registers, nop) with A still 0 and its registers at PC equal to "
            "PyBoy's except A and F; or (b) PyBoy's registers, WRAM, HRAM, VRAM and OAM "
            "equal emurust's right after that read, A aside when PyBoy's is 153 (PyBoy has "
            "just read 153 there, or it left the LY loop when LY wrapped to 0, a line "
            "later, with A = 0); or (c) PyBoy's A is 153 and its PC is in the poll loop "
            "emurust left (from the read to the conditional jump back to it), and PyBoy's "
            "registers other than A, F and PC, WRAM, HRAM, VRAM and OAM equal emurust's at "
            "the read (bytes up to 32 below SP aside: dead stack); no screen differences in "
            "any case"
        ),
        evidence=(
            "PyBoy reads LY = 153 for the whole of line 153; a DMG reads 0 from about 4 "
            "T-cycles into line 153 (Pan Docs 'LY'; gbmicrotest line_153_ly_b/c/d/f: "
            "emurust passes, PyBoy fails). The program then takes another branch, so no "
            "mask can keep the two in step"
        ),
        rule=_never,
        prove=_ly153_proof,
    ),
    AllowlistEntry(
        name="pyboy-lcd-enable-4-cycles-terminal",
        masks=(
            "nothing: a terminal entry. The run stops (status allowlisted) when the only "
            "differences are registers, the clock, memory and I/O, and emurust re-run from "
            "the last matching point with its line starts seen 4 T-cycles late reaches "
            "PyBoy's state: a step (instruction, interrupt dispatch, halted step) in which "
            "a line starts (LY changes, STAT enters mode 2, or mode 1 from mode 0), or mode "
            "0 starts on a line with a minimum-length mode 3 (SCX a multiple of 8, no "
            "window, no object on the line), is re-run with the PPU's line-start and "
            "next-event clocks 4 T-cycles later in a save state, put back once that event "
            "has happened; at least one line start must have been delayed, and the re-run "
            "must stop at PyBoy's clock exactly (or 4 T-cycles before it when emurust's "
            "traced frame serviced an interrupt: PyBoy's late interrupt, "
            "pyboy-late-interrupt-4-cycles; then DIV/TIMA/IF are not compared) with its "
            "registers, WRAM, HRAM, VRAM, OAM and I/O registers equal to PyBoy's, except "
            "differences that emurust itself has there and an allowlist entry masked, LY "
            "and STAT (PyBoy's line position), and WRAM/HRAM bytes up to 32 below SP (dead "
            "stack written by interrupt entries)"
        ),
        evidence=(
            "PyBoy's lines start 4 T-cycles later than a DMG's after an LCD enable: "
            "gbmicrotest lcdon_to_ly1_b, lcdon_to_ly2_b, lcdon_to_ly3_b (LY increments), "
            "lcdon_to_stat2_a/b/d (mode 2), lcdon_to_stat0_b/d (mode 0 on a plain line), "
            "lcdon_to_oam_int_l0/l1/l2 and lcdon_to_if_oam_b (the mode 2 interrupt), "
            "verified on a DMG: emurust passes, PyBoy fails. Its VBlank interrupt timing "
            "is wrong too (vblank_int_if_b/d, "
            "vblank_int_nops_b, vblank_int_halt_b, vblank2_int_halt_b: emurust passes, "
            "PyBoy fails), hence the dead stack bytes and the extra 4 T-cycles after an "
            "interrupt. "
            "A polling loop that reads STAT/LY at a line start takes another branch, so no "
            "mask can keep the two in step"
        ),
        rule=_never,
        prove=_lcd_enable_late_proof,
    ),
    AllowlistEntry(
        name="pyboy-window-ly-ge-wy-terminal",
        masks=(
            "nothing: a terminal entry, tried after pyboy-lcd-enable-4-cycles-terminal. The "
            "run stops (status allowlisted) when emurust re-run as that entry's proof does "
            "(line starts seen 4 T-cycles late, the same comparison at PyBoy's clock) and, "
            "before every step, with its window's WY latch set to PyBoy's rule (LCDC.5 set "
            "and LY >= WY) reaches PyBoy's state, and the rule changed the latch before at "
            "least one step"
        ),
        evidence=(
            "A DMG starts the window on a line only after LY = WY was seen with LCDC.5 set "
            "in this frame: gambatte window/arg/late_enable_afterVblank_3 (LCDC.5 set before "
            "line 1's LY = WY comparison, WY = 1: the window lengthens mode 3, out3) and "
            "_5 (set 2 M-cycles later, after it: no window on the line, out0), verified on "
            "a DMG; emurust passes both, PyBoy 2.8.1 passes _3 and fails _5: it times mode "
            "3 with the window on every line with LY >= WY while LCDC.5 is set. Seen in "
            "2048, which turns its window on (LCDC 0x91 -> 0xE3, WY = 0) after LY passed "
            "WY: PyBoy lengthens mode 3 on the rest of the frame, emurust does not, and its "
            "STAT-polled VRAM copy copies a different number of bytes per line"
        ),
        rule=_never,
        prove=_window_late_proof,
    ),
    AllowlistEntry(
        name="pyboy-vblank-ly-late-terminal",
        masks=(
            "nothing: a terminal entry, tried after pyboy-lcd-enable-4-cycles-terminal. The "
            "run stops (status allowlisted) when emurust re-run as that entry's proof does "
            "(line starts seen 4 T-cycles late, the same comparison at PyBoy's clock), with "
            "the starts of lines 144-153 (LY changes to 144..153, and with line 144 the "
            "VBlank interrupt) seen 4 T-cycles later still, reaches PyBoy's state, at least "
            "one such VBlank line start was delayed, and the late lines alone (that entry's "
            "proof) do not reach it"
        ),
        evidence=(
            "PyBoy 2.8.1 advances LY on lines 1-143 200 T-cycles after mode 0 starts and "
            "then 4 T-cycles more to mode 2, but from line 143 on it stays in mode 0 for "
            "204 T-cycles and advances LY with the mode 1 transition (pyboy/core/lcd.py, "
            "LCD.tick), so LY changes to 144..153 4 T-cycles later than its other lines, "
            "and it raises the VBlank interrupt in that same transition. A DMG advances LY "
            "at the same point of every line (Pan Docs 'LY'), and its VBlank interrupt "
            "comes earlier than PyBoy's: gbmicrotest vblank_int_if_b/d and vblank2_int_if_b/"
            "d, verified on a DMG: emurust passes, PyBoy fails. Seen in Pandora's Blocks "
            "(seed 0, frame 47 on): its loop waiting for LY = 144 leaves one turn (28 "
            "T-cycles) later in PyBoy"
        ),
        rule=_never,
        prove=_vblank_late_proof,
    ),
    AllowlistEntry(
        name="pyboy-reads-8-cycles-late-terminal",
        masks=(
            "nothing: a terminal entry, tried after the other terminal entries. The run "
            "stops (status allowlisted) when the only differences are registers, the clock, "
            "memory and I/O, and emurust re-run from the last matching point, its LCD on "
            "at every step, with "
            "its PPU's line timing and its timer's system counter moved 8 T-cycles late "
            "(GameBoy._test_shift_ppu, GameBoy._test_shift_timer), and failing that with the "
            "starts of lines 144-153 (LY changes to 144..153) 4 T-cycles later still, at "
            "least one of them delayed so (as pyboy-vblank-ly-late-terminal), reaches "
            "PyBoy's state at "
            "PyBoy's clock exactly (or 4 T-cycles before it when emurust's traced frame "
            "serviced an interrupt: pyboy-late-interrupt-4-cycles; then DIV and TIMA are not "
            "compared): registers, WRAM, HRAM, VRAM, OAM and I/O registers equal, except "
            "differences that emurust itself has there and an allowlist entry masked, LY "
            "and STAT (the shifted line position), DIV one step below PyBoy's (the shifted "
            "counter), and WRAM/HRAM bytes up to 32 below SP (dead stack)"
        ),
        evidence=(
            "PyBoy 2.8.1 reads I/O registers early in an instruction (pyboy/core/"
            "opcodes.py): ldh a,(n) after 4 T-cycles (LDH_F0 adds 4 and reads), ld a,(nn) "
            "after 8, ld a,(c) at once, where the DMG reads in the instruction's last "
            "M-cycle: 8 T-cycles before the point where emurust samples the PPU and DIV "
            "(the end of that M-cycle; 4 for ld a,(hl), which this entry does not model). "
            "From the second frame after an LCD enable PyBoy's PPU and its timer's counter "
            "run at emurust's clock (a resync reproduces emurust's own line start and "
            "counter), so PyBoy's program sees STAT, LY and DIV as a DMG does 8 T-cycles "
            "later; in the first frame PyBoy's lines start 4 T-cycles early, which leaves "
            "the 4 T-cycles of "
            "pyboy-lcd-enable-4-cycles-terminal. emurust reads what a DMG reads: "
            "gbmicrotest poweron_stat_*, poweron_ly_* and poweron_div_* (STAT, LY and DIV "
            "read at exact cycles in the frames after the boot ROM's LCD enable), "
            "div_inc_timing_a/b and lcdon_to_stat0_a-d, verified on a DMG: emurust passes "
            "all. Seen in 2048 (seed 0, frames 7, 198, 368, 984: a STAT-polled VRAM copy "
            "leaves its poll one turn later in PyBoy, and the DIV-seeded random number "
            "differs), ucity (frame 15) and Pandora's Blocks (seed 0, 14 frames from 48 "
            "to 151: its wait loop at 0x0011-0x0017 leaves one turn later in PyBoy, "
            "with the late VBlank lines)"
        ),
        rule=_never,
        prove=_read_lag_proof,
    ),
    AllowlistEntry(
        name="pyboy-lcd-enable-vblank-early-terminal",
        masks=(
            "nothing: a terminal entry, tried after the other late-line entries. The run "
            "stops (status allowlisted) when the only differences are registers, the "
            "clock, memory and I/O, the LCD was switched on in the compared frame, and "
            "emurust re-run from the last matching point with line 144 of that first frame "
            "(LY 143 -> 144, STAT mode 1, the VBlank interrupt) starting 4 T-cycles early "
            "(the step before the one where LY changed to 144 re-run with the PPU's line "
            "timing 4 T-cycles earlier, kept so until the end of that VBlank) reaches PyBoy's "
            "clock exactly with its registers, WRAM, HRAM, VRAM, OAM and I/O registers "
            "equal to PyBoy's, except differences that emurust itself has there and an "
            "allowlist entry masked, and LY and STAT (no dead stack bytes: a frame whose "
            "code ran differently earlier can end with only those); and emurust as it ran "
            "(nothing moved) has that same state 4 T-cycles after PyBoy's clock (DIV, TIMA, "
            "IF, STAT and LY aside): the same code, only 4 T-cycles later"
        ),
        evidence=(
            "In the first frame after an LCD enable PyBoy 2.8.1 stays in mode 0 of line 143 "
            "for 200 T-cycles instead of its usual 204 (pyboy/core/lcd.py, LCD.tick: "
            "first_frame), so line 144 and its VBlank interrupt come 4 T-cycles earlier "
            "than in its later frames and than on a DMG: gbmicrotest "
            "lcdon_halt_to_vblank_int_b and lcdon_nops_to_vblank_int_b (LCD on, then the "
            "VBlank interrupt from HALT or from a NOP sled, timed with DIV), verified on a "
            "DMG: emurust passes both, PyBoy fails both (and passes the _a variants, one "
            "M-cycle earlier). Seen in libbet (seed 0, frame 450): halted from line 16, the "
            "game's VBlank handler starts 4 T-cycles earlier in PyBoy and the whole frame "
            "then runs 4 T-cycles ahead of emurust"
        ),
        rule=_never,
        prove=_first_vblank_early_proof,
    ),
    AllowlistEntry(
        name="pyboy-ei-halt-returns-to-halt-terminal",
        masks=(
            "nothing: a terminal entry. The run stops (status allowlisted) when the only "
            "differences are registers, the clock, memory and I/O, and emurust re-run from "
            "the last matching point with the return address of every interrupt dispatch "
            "that ends a HALT executed directly after EI while IE & IF was 0 set to the "
            "HALT's own address (so the handler's RETI comes back to the HALT, which halts "
            "again), at least one such dispatch, reaches PyBoy's clock exactly with its "
            "registers, WRAM, HRAM, VRAM, OAM and I/O registers equal to PyBoy's, "
            "except differences that emurust itself has there and an allowlist entry "
            "masked, LY and STAT, and PyBoy's PC on a HALT where emurust's is past it "
            "(pyboy-halt-pc)"
        ),
        evidence=(
            "Pan Docs 'halt' ('halt bug'): the HALT after EI returns to itself only when "
            "an interrupt is pending as it executes ([IE] & [IF] != 0); otherwise the CPU "
            "halts, IME is set, and the interrupt that wakes it returns after the HALT, as "
            "on any HALT with IME = 1. PyBoy 2.8.1 marks every HALT run in EI's delay slot "
            "(pyboy/core/opcodes.py HALT_76: halted_during_ei), pending interrupt or not, "
            "and then does not step PC past it when an interrupt wakes it "
            "(pyboy/core/cpu.py, CPU.check_interrupts), so the common 'ei; halt' wait "
            "takes a second interrupt. No test ROM in the shared set isolates it: 30 of "
            "them (mooneye, gbmicrotest, gambatte halt and irq_precedence) run such a "
            "HALT in PyBoy, with the same verdict either way (their handlers do not "
            "return, or another interrupt follows at once). Seen in Tobu Tobu Girl (seed "
            "0, frame 965: its VBlank handler returns to the HALT at 0x34C4 and PyBoy "
            "sleeps to the frame end while the game runs on in emurust)"
        ),
        rule=_never,
        prove=_ei_halt_proof,
    ),
    AllowlistEntry(
        name="pyboy-reads-8-cycles-late-irq-4-terminal",
        masks=(
            "nothing: a terminal entry, tried last, only where "
            "pyboy-reads-8-cycles-late-terminal's re-run does not reach PyBoy's state. The "
            "run stops (status allowlisted) when the only differences are registers, the "
            "clock, memory and I/O, and emurust re-run from the last matching point as in "
            "pyboy-reads-8-cycles-late-terminal (LCD on at every step, PPU line timing and "
            "timer system counter 8 T-cycles late, no late VBlank lines), except that each "
            "interrupt request of the PPU (VBlank, STAT) is served as if made 4 T-cycles "
            "before the late PPU makes it (a probe machine with the PPU 4 T-cycles late is "
            "stepped alongside; where its step dispatches the interrupt and the re-run's "
            "does not, the re-run takes the probe's state with its PPU put 8 T-cycles late "
            "again; at least one dispatch moved so), reaches PyBoy's state at PyBoy's "
            "clock (or 4 T-cycles before it when emurust's traced frame serviced an "
            "interrupt, then DIV and TIMA not compared), with the same exceptions as "
            "pyboy-reads-8-cycles-late-terminal"
        ),
        evidence=(
            "PyBoy 2.8.1's program reads the PPU 8 T-cycles early "
            "(pyboy-reads-8-cycles-late-terminal's evidence), but it services the PPU's "
            "interrupts only 4 T-cycles late (pyboy-late-interrupt-4-cycles; its CPU "
            "checks IF at the start of CPU.tick, pyboy/core/cpu.py, after the instruction "
            "in which the request fell): with the whole PPU 8 T-cycles late a re-run takes the "
            "VBlank interrupt one 4-cycle instruction after PyBoy does. emurust's "
            "interrupt timing is a DMG's: Mooneye acceptance/intr_timing, "
            "di_timing-GS, halt_ime0_nointr_timing, halt_ime1_timing2-GS, ppu/intr_2_* and "
            "vblank_stat_intr-GS pass. Seen in 2048 (seed 0, frame 365): PyBoy takes "
            "VBlank after ld l,c at 0x05AD, the 8-cycle re-run after ld h,b at 0x05AE, and "
            "the pushed H (1 in PyBoy, 5 in the re-run) stays at 0xDFEB, which the "
            "function at 0x05E7 then allocates as a local (add sp,-6): the only "
            "difference left"
        ),
        rule=_never,
        prove=_read_lag_irq_proof,
    ),
)
"""The documented differences the harness tolerates (see :class:`AllowlistEntry`)."""


# ---------------------------------------------------------------------------
# pyboy-reads-8-cycles-late-lcd-off-terminal: the read lag in frames with the LCD off
# ---------------------------------------------------------------------------


def _read_lag_lcd_off_replay(
    gb: GameBoy, target: int, read_lag: int, vblank_lag: int = 0
) -> tuple[GameBoy, int] | None:
    """``gb`` (a scratch machine at the last matching point) with its timer's system
    counter moved ``read_lag`` T-cycles late (``GameBoy._test_shift_timer``), and its PPU's
    line timing too while the LCD is on (``GameBoy._test_shift_ppu``), run by single steps
    to ``target``, each step in which LY changes to 144..153 re-run with the line timing
    ``vblank_lag`` T-cycles later still (as :func:`_read_lag_vblank_replay`); with the
    number of line starts so delayed. None unless the LCD is off at the start or after
    some step, when the LCD is switched on on the way (the first frame after a switch-on
    is pyboy-lcd-enable-4-cycles-terminal's), the state cannot be edited or the machine
    has no instruction boundary at ``target``."""
    _require_test_aids()
    on = bool(gb.memory[0xFF40] & 0x80)
    if on and not gb._test_shift_ppu(read_lag, gb.cycles):
        return None
    if not gb._test_shift_timer(read_lag):
        return None
    was_off = not on
    delayed = 0
    late = False
    while gb.cycles < target:
        ly = gb.memory[0xFF44]
        before = gb.save_state() if vblank_lag and on else None
        start = gb.cycles
        gb._step_to_cycle(start + 1)
        if gb.cycles == start:
            return None
        now_on = bool(gb.memory[0xFF40] & 0x80)
        if now_on and not on:
            return None
        ly1 = gb.memory[0xFF44]
        if before is not None and now_on and not late and ly1 != ly and 144 <= ly1 <= 153:
            gb.load_state(before)
            if not gb._test_shift_ppu(vblank_lag, start):
                return None
            late = True
            delayed += 1
            gb._step_to_cycle(start + 1)
            now_on = bool(gb.memory[0xFF40] & 0x80)
            ly1 = gb.memory[0xFF44]
        if late and now_on and ly1 != ly:
            if not gb._test_shift_ppu(-vblank_lag, gb.cycles):
                return None
            late = False
        if not now_on:
            late = False
        on = now_on
        was_off = was_off or not on
    return (gb, delayed) if gb.cycles == target and was_off else None


_TIME_IO = frozenset({0xFF04, 0xFF05, 0xFF41, 0xFF44})
# Opcodes that read (HL): ld r,(hl), the ALU ops on (hl), ld a,(hl+) / (hl-).
_HL_READS = frozenset({0x46, 0x4E, 0x56, 0x5E, 0x66, 0x6E, 0x7E, 0x2A, 0x3A}) | frozenset(
    range(0x86, 0xBF, 8)
)


def _reads_time_io(entry: _TraceEntry) -> bool:
    """Whether the traced instruction reads DIV, TIMA, STAT or LY (ldh a,(n), ld a,(nn),
    ld a,(c) or a read of (hl))."""
    if entry["kind"] != "instruction":
        return False
    code = bytes(entry["opcode"])
    if code[0] == 0xF0 and len(code) >= 2:
        addr = 0xFF00 | code[1]
    elif code[0] == 0xFA and len(code) >= 3:
        addr = code[1] | code[2] << 8
    elif code[0] == 0xF2:
        addr = 0xFF00 | entry["c"]
    elif code[0] in _HL_READS:
        addr = entry["h"] << 8 | entry["l"]
    else:
        return False
    return addr in _TIME_IO


def _read_lag_lcd_off_proof(
    point: Point, diffs: list[Diff], read_lag: int = PYBOY_READ_LAG
) -> str | None:
    regions = {str(d["region"]) for d in diffs}
    if not regions <= {"registers", "clock", "io"} | _MEMORY_REGIONS:
        return None
    if point.emurust_start is None or point.pyboy_diffs is None or not point.pyboy_cycles:
        return None
    if point.after_lcd_enable:
        return None  # PyBoy's lines start 4 T-cycles early: pyboy-lcd-enable-4-cycles-terminal
    if point.frame_trace is None:
        return None
    trace = point.frame_trace()
    if not any(_reads_time_io(e) for e in trace):
        return None  # nothing read the timer, LY or STAT: no read to be early
    if any(e["kind"] != "instruction" for e in trace):
        # An interrupt dispatch or a HALT wake: their timing is the late-interrupt and
        # late-line entries' business, which a shifted PPU would mimic.
        return None
    found = _read_lag_search(
        point,
        lambda start, target, vblank_lag: _read_lag_lcd_off_replay(
            start, target, read_lag, vblank_lag
        ),
    )
    if found is None:
        return None
    when, vblank_lag, delayed = found
    vblank = (
        f", the starts of lines 144-153 {vblank_lag} T-cycles later still, as in "
        f"pyboy-vblank-ly-late-terminal ({delayed} of them delayed so)"
        if vblank_lag
        else ""
    )
    return (
        f"emurust re-run from the last matching point with its timer's system counter "
        f"(and its PPU while the LCD is on) {read_lag} T-cycles late, as PyBoy's program "
        f"sees them{vblank}, the LCD off for part or all of the frame, reaches PyBoy's "
        f"state at {when}: registers, VRAM, OAM and memory equal (stack bytes below SP and "
        f"LY/STAT aside, DIV one step behind at most)"
    )


_READ_LAG_LCD_OFF = AllowlistEntry(
    name="pyboy-reads-8-cycles-late-lcd-off-terminal",
    masks=(
        "nothing: a terminal entry, tried last. pyboy-reads-8-cycles-late-terminal for a "
        "frame in which the LCD is off at the start or is switched off (never on): the run "
        "stops (status allowlisted) when the only differences are registers, the clock, "
        "memory and I/O, the frame is not the first after an LCD enable, emurust's traced "
        "frame reads DIV, TIMA, STAT or LY (ldh a,(n), ld a,(nn), ld a,(c), (hl)) and has no "
        "interrupt dispatch and no HALT, and emurust "
        "re-run from the last matching point with its timer's "
        "system counter 8 T-cycles late (GameBoy._test_shift_timer), and its PPU's line "
        "timing too while the LCD is on (GameBoy._test_shift_ppu), no LCD switch-on on "
        "the way, reaches PyBoy's state at PyBoy's clock exactly (or 4 T-cycles before it "
        "when emurust's traced frame serviced an interrupt; then DIV and TIMA are not "
        "compared), with the same exceptions as pyboy-reads-8-cycles-late-terminal"
    ),
    evidence=(
        "As pyboy-reads-8-cycles-late-terminal: PyBoy 2.8.1 reads I/O registers 8 "
        "T-cycles before a DMG does in the instruction (pyboy/core/opcodes.py; its timer "
        "is ticked to the CPU clock of the instruction, pyboy/core/mb.py getitem 0xFF04-"
        "0xFF07, without the memory access offset), with the LCD off as well (the timer "
        "runs on). emurust reads what a DMG reads: gbmicrotest div_inc_timing_a/b, "
        "mooneye timer tests. Seen in Pandora's Blocks (seed 0, frame 156: xor (hl) on "
        "TIMA with the LCD off reads 0x54 in emurust, 0x53 in PyBoy) and Tobu Tobu Girl "
        "(seed 0, frame 633: a poll of LY for 0x91 leaves one turn later in PyBoy, then "
        "switches the LCD off)"
    ),
    rule=_never,
    prove=_read_lag_lcd_off_proof,
)

DEFAULT_ALLOWLIST = (*DEFAULT_ALLOWLIST, _READ_LAG_LCD_OFF)


# ---------------------------------------------------------------------------
# pyboy-line-153-ly-terminal, case (b) with dead stack
# ---------------------------------------------------------------------------


def _ly153_dead_stack_proof(point: Point, diffs: list[Diff]) -> str | None:
    """:func:`_ly153_proof`, and failing that its case (b) (:func:`_ly153_at_read`) with
    WRAM/HRAM bytes up to 32 below PyBoy's SP left out of the comparison (dead stack: an
    interrupt entry that came at another point of the frame in the two emulators, e.g.
    during the longer poll in PyBoy or with PyBoy's lines 4 T-cycles early after an LCD
    enable, pushed other values there). At least one such byte must differ."""
    proof = _ly153_proof(point, diffs)
    if proof is not None or point.pyboy_diffs is None:
        return proof
    if any(d["region"] == "screen" for d in diffs):
        return None
    regions = {str(d["region"]) for d in diffs}
    if not regions <= {"registers", "clock", "io"} | _MEMORY_REGIONS:
        return None
    sp = point.pyboy_registers["sp"]
    dead = [d for d in diffs if _dead_stack(d, sp)]
    if not dead:
        return None
    real = point.pyboy_diffs
    relaxed = replace(point, pyboy_diffs=lambda gb: [d for d in real(gb) if not _dead_stack(d, sp)])
    proof = _ly153_at_read(relaxed)
    if proof is None:
        return None
    return (
        f"{proof}; {len(dead)} WRAM/HRAM bytes up to 32 below SP left out (dead stack: an "
        f"interrupt entry at another point of the frame pushed other values there)"
    )


DEFAULT_ALLOWLIST = tuple(
    replace(
        e,
        prove=_ly153_dead_stack_proof,
        masks=e.masks + "; in case (b) WRAM/HRAM bytes up to 32 below SP (dead stack) aside, "
        "at least one of them differing, when nothing else explains the frame",
    )
    if e.name == "pyboy-line-153-ly-terminal"
    else e
    for e in DEFAULT_ALLOWLIST
)
