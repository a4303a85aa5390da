"""The proofs of the terminal entries that re-run emurust as PyBoy behaves
(:mod:`emurust.verify.allowlist.replays`): each ``prove(point, diffs)`` returns a sentence
when the remaining differences provably come from its deviation, else None."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from emurust._gameboy import GameBoy
from emurust.verify.allowlist.line153 import ly153_dead_stack_proof
from emurust.verify.allowlist.point import MEMORY_REGIONS, TIME_DRIVEN_IO, Diff, Point, dead_stack
from emurust.verify.allowlist.replays import (
    FIRST_VBLANK_EARLY,
    PYBOY_READ_LAG,
    PyBoyLine153,
    ei_halt_replay,
    first_vblank_early_replay,
    late_line_replay,
    ppu_dots,
    read_lag_irq_replay,
    read_lag_lcd_off_replay,
    read_lag_replay,
)

if TYPE_CHECKING:
    from emurust._core import _TraceEntry


def lcd_enable_late_proof(point: Point, diffs: list[Diff]) -> str | None:
    return _late_replay_proof(point, diffs, pyboy_window=False)


def window_late_proof(point: Point, diffs: list[Diff]) -> str | None:
    return _late_replay_proof(point, diffs, pyboy_window=True)


def vblank_late_proof(point: Point, diffs: list[Diff]) -> str | None:
    # Only what the late lines alone (pyboy-lcd-enable-4-cycles-terminal) do not explain.
    if _late_replay_proof(point, diffs, pyboy_window=False) is not None:
        return None
    return _late_replay_proof(point, diffs, pyboy_window=False, vblank_lag=4)


def _late_replay_proof(
    point: Point,
    diffs: list[Diff],
    *,
    pyboy_window: bool,
    vblank_lag: int = 0,
    line153: bool = False,
) -> str | None:
    regions = {str(d["region"]) for d in diffs}
    if not regions <= {"registers", "clock", "io"} | MEMORY_REGIONS:
        return None
    if point.emurust_start is None or point.pyboy_diffs is None or not point.pyboy_cycles:
        return None
    # At PyBoy's clock, or 4 T-cycles before it when PyBoy has also serviced an interrupt
    # 4 T-cycles late (pyboy-late-interrupt-4-cycles) since the last matching point.
    for lag in (0, 4):
        answers = PyBoyLine153() if line153 else None
        replay = late_line_replay(
            point.emurust_start(),
            point.pyboy_cycles - lag,
            pyboy_window=pyboy_window,
            vblank_lag=vblank_lag,
            line153=answers,
        )
        if (
            replay is None
            or not replay.delayed
            or (pyboy_window and not replay.forced)
            or (vblank_lag and not replay.vblank_delayed)
            or (answers is not None and not answers.rewritten)
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
        if answers is not None:
            window += (
                f" and {answers.rewritten} STAT/LY read(s) made where PyBoy is still in line "
                f"153 answered as PyBoy answers them (LY 153, mode 1),"
            )
        return (
            f"emurust re-run from the last matching point with each line start (and mode 0 "
            f"start on plain lines) seen 4 T-cycles late, as PyBoy's after an LCD enable,"
            f"{window} reaches PyBoy's state at {when}: registers, VRAM, OAM and memory equal "
            f"(stack bytes below SP and LY/STAT aside); {len(delayed)} line start(s) "
            f"delayed, which changed the outcome of the step(s) at cycle {steps}"
        )
    return None


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


def first_vblank_early_proof(point: Point, diffs: list[Diff]) -> str | None:
    regions = {str(d["region"]) for d in diffs}
    if not regions <= {"registers", "clock", "io"} | MEMORY_REGIONS:
        return None
    if point.emurust_start is None or point.pyboy_diffs is None or not point.pyboy_cycles:
        return None
    replay = first_vblank_early_replay(point.emurust_start(), point.pyboy_cycles)
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
        f"after its LCD enable starting {FIRST_VBLANK_EARLY} T-cycles early, as PyBoy's "
        f"(the line timing moved from the step at cycle {moved} to the end of VBlank), "
        f"reaches PyBoy's state at PyBoy's clock {point.pyboy_cycles}: registers, VRAM, "
        f"OAM, memory and I/O equal (LY/STAT aside)"
    )


def ei_halt_proof(point: Point, diffs: list[Diff]) -> str | None:
    regions = {str(d["region"]) for d in diffs}
    if not regions <= {"registers", "clock", "io"} | MEMORY_REGIONS:
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
    replay = ei_halt_replay(point.emurust_start(), point.pyboy_cycles)
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
        if dead_stack(d, sp):
            continue
        return False
    return True


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
        if dead_stack(d, sp):
            continue
        return False
    return True


def read_lag_proof(point: Point, diffs: list[Diff], read_lag: int = PYBOY_READ_LAG) -> str | None:
    regions = {str(d["region"]) for d in diffs}
    if not regions <= {"registers", "clock", "io"} | MEMORY_REGIONS:
        return None
    if point.emurust_start is None or point.pyboy_diffs is None or not point.pyboy_cycles:
        return None
    found = _read_lag_search(
        point,
        lambda start, target, vblank_lag: read_lag_replay(start, target, read_lag, vblank_lag),
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


def line153_replay_proof(
    point: Point, diffs: list[Diff], read_lag: int = PYBOY_READ_LAG
) -> str | None:
    """The re-runs of pyboy-reads-8-cycles-late-terminal and then of
    pyboy-lcd-enable-4-cycles-terminal with PyBoy's answers to the STAT and LY reads made
    where PyBoy is still in line 153 (:class:`PyBoyLine153`, at least one read answered
    so); not where pyboy-line-153-ly-terminal's own proof explains the point."""
    regions = {str(d["region"]) for d in diffs}
    if not regions <= {"registers", "clock", "io"} | MEMORY_REGIONS:
        return None
    if point.emurust_start is None or point.pyboy_diffs is None or not point.pyboy_cycles:
        return None
    if ly153_dead_stack_proof(point, diffs) is not None:
        return None  # the line-153 deviation alone explains it: pyboy-line-153-ly-terminal's
    answered: list[int] = []

    def replay(start: GameBoy, target: int, vblank_lag: int) -> tuple[GameBoy, int] | None:
        answers = PyBoyLine153()
        result = read_lag_replay(start, target, read_lag, vblank_lag, answers)
        answered.append(answers.rewritten)
        return None if result is None or not answers.rewritten else result

    found = _read_lag_search(point, replay)
    if found is not None:
        when, vblank_lag, delayed = found
        dots = ppu_dots(point.emurust_start(), read_lag)
        vblank = (
            f", the starts of lines 144-153 {vblank_lag} T-cycles later still, as in "
            f"pyboy-vblank-ly-late-terminal ({delayed} of them delayed so),"
            if vblank_lag
            else ""
        )
        return (
            f"emurust re-run from the last matching point with its PPU {dots} dots and its "
            f"timer's system counter {read_lag} T-cycles late, as PyBoy's program sees them "
            f"(it reads {read_lag} CPU T-cycles early){vblank} and {answered[-1]} STAT/LY "
            f"read(s) made where PyBoy is still in line 153 answered as PyBoy answers them "
            f"(LY 153, mode 1) reaches PyBoy's state at {when}: registers, VRAM, OAM and "
            f"memory equal (stack bytes below SP and LY/STAT aside, DIV one step behind at "
            f"most)"
        )
    return _late_replay_proof(point, diffs, pyboy_window=False, line153=True)


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


def read_lag_irq_proof(
    point: Point, diffs: list[Diff], read_lag: int = PYBOY_READ_LAG, irq_lead: int = 4
) -> str | None:
    regions = {str(d["region"]) for d in diffs}
    if not regions <= {"registers", "clock", "io"} | MEMORY_REGIONS:
        return None
    if point.emurust_start is None or point.pyboy_diffs is None or not point.pyboy_cycles:
        return None
    if read_lag_proof(point, diffs, read_lag) is not None:
        return None  # pyboy-reads-8-cycles-late-terminal's own
    for lag in (0, 4):
        if lag and not _serviced_interrupt(point):
            continue
        target = point.pyboy_cycles - lag
        replay = read_lag_irq_replay(
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


def read_lag_lcd_off_proof(
    point: Point, diffs: list[Diff], read_lag: int = PYBOY_READ_LAG
) -> str | None:
    regions = {str(d["region"]) for d in diffs}
    if not regions <= {"registers", "clock", "io"} | MEMORY_REGIONS:
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
        lambda start, target, vblank_lag: read_lag_lcd_off_replay(
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
