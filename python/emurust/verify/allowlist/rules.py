"""The masking rules of the allowlist entries: each ``rule(point, diffs)`` returns the
differences of one comparison point that its entry explains (see
:class:`~emurust.verify.allowlist.point.AllowlistEntry`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from emurust.verify.allowlist.pixels import bg_row, hardware_pixel, pyboy_pixel
from emurust.verify.allowlist.point import TIME_DRIVEN_IO, Diff, Point

if TYPE_CHECKING:
    from emurust._core import _TraceEntry


def power_on_rule(point: Point, diffs: list[Diff]) -> list[Diff]:
    # (address, emurust power-on value, PyBoy power-on value)
    unset = {(0xFF47, 0x00, 0xFC), (0xFF48, 0x00, 0xFF), (0xFF49, 0x00, 0xFF)}
    return [
        d for d in diffs if d["region"] == "io" and (d["addr"], d["emurust"], d["pyboy"]) in unset
    ]


def boot_ly_loop_rule(point: Point, diffs: list[Diff]) -> list[Diff]:
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


def sb_rule(point: Point, diffs: list[Diff]) -> list[Diff]:
    return [d for d in diffs if d["region"] == "io" and d["addr"] == 0xFF01 and d["pyboy"] == 0xFF]


def late_interrupt_rule(point: Point, diffs: list[Diff]) -> list[Diff]:
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


def halt_pc_rule(point: Point, diffs: list[Diff]) -> list[Diff]:
    pb, ours = point.pyboy_registers["pc"], point.emurust_registers["pc"]
    if point.pyboy_opcode == 0x76 and ours == (pb + 1) & 0xFFFF:
        return [d for d in diffs if d["region"] == "registers" and d["addr"] == "pc"]
    return []


def first_frame_after_lcd_enable_rule(point: Point, diffs: list[Diff]) -> list[Diff]:
    screen = [d for d in diffs if d["region"] == "screen"]
    if not screen or not point.after_lcd_enable:
        return []
    # PyBoy shows the frame in which the LCD was switched on filled with BG colour 0; emurust
    # must show it blank (all shade 0), as a DMG does: anything else is not this difference.
    if (point.pyboy_screen == (point.bgp & 3)).all() and not point.emurust_screen.any():
        return screen
    return []


def object_priority_rule(point: Point, diffs: list[Diff]) -> list[Diff]:
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


def joypad_irq_rule(point: Point, diffs: list[Diff]) -> list[Diff]:
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


def p1_select_irq_rule(point: Point, diffs: list[Diff]) -> list[Diff]:
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


def serial_busy_rule(point: Point, diffs: list[Diff]) -> list[Diff]:
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


def never(point: Point, diffs: list[Diff]) -> list[Diff]:
    return []


def boot_logo_rule(point: Point, diffs: list[Diff]) -> list[Diff]:
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
        if ours == bg_row(now, row, now.scx) and theirs == bg_row(now, row, after.scx):
            masked += row_diffs
    return masked
