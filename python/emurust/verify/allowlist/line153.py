"""The proof of pyboy-line-153-ly-terminal (PyBoy reads LY = 153 for the whole of line
153, a DMG 0), built from emurust's trace of the frame: :func:`ly153_proof` (cases a, b and c
of the entry) and :func:`ly153_dead_stack_proof`, the entry's proof (case b again with the
dead stack below SP left out)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from emurust.verify.allowlist.point import MEMORY_REGIONS, REGISTERS, Diff, Point, dead_stack

if TYPE_CHECKING:
    from emurust._core import _TraceEntry


_LY_READS = {0xF0: (2, b"\xf0\x44"), 0xFA: (3, b"\xfa\x44\xff")}

# Instructions that leave A alone (they may set F from it, or branch on F): cp r / cp n,
# jr / jp (conditional or not), conditional returns (µCity's LY wait: cp b / ret z / jr),
# inc / dec of a register other than A (8 and 16 bits), nop.
_KEEPS_A = frozenset(
    {0x00, 0x18, 0x20, 0x28, 0x30, 0x38, 0xC2, 0xC3, 0xCA, 0xD2, 0xDA, 0xFE}
    | {0xC0, 0xC8, 0xD0, 0xD8}
    | set(range(0xB8, 0xC0))
    | {0x04, 0x05, 0x0C, 0x0D, 0x14, 0x15, 0x1C, 0x1D, 0x24, 0x25, 0x2C, 0x2D}
    | {0x03, 0x0B, 0x13, 0x1B, 0x23, 0x2B, 0x33, 0x3B}
)


def _is_ly_read(entry: _TraceEntry) -> bool:
    if entry["kind"] != "instruction":
        return False
    if entry["opcode"][0] == 0xF2:  # ld a,($ff00+c) with C = $44 (µCity's wait for a line)
        return entry["c"] == 0x44
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


def ly153_proof(point: Point, diffs: list[Diff]) -> str | None:
    if any(d["region"] == "screen" for d in diffs):
        return None
    regions = {str(d["region"]) for d in diffs}
    if not regions <= {"registers", "clock"} | MEMORY_REGIONS | {"io"}:
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
            and not dead_stack(d, sp)
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


def ly153_dead_stack_proof(point: Point, diffs: list[Diff]) -> str | None:
    """:func:`ly153_proof`, and failing that its case (b) (:func:`_ly153_at_read`) with
    WRAM/HRAM bytes up to 32 below PyBoy's SP left out of the comparison (dead stack: an
    interrupt entry that came at another point of the frame in the two emulators, e.g.
    during the longer poll in PyBoy or with PyBoy's lines 4 T-cycles early after an LCD
    enable, pushed other values there). At least one such byte must differ."""
    proof = ly153_proof(point, diffs)
    if proof is not None or point.pyboy_diffs is None:
        return proof
    if any(d["region"] == "screen" for d in diffs):
        return None
    regions = {str(d["region"]) for d in diffs}
    if not regions <= {"registers", "clock", "io"} | MEMORY_REGIONS:
        return None
    sp = point.pyboy_registers["sp"]
    dead = [d for d in diffs if dead_stack(d, sp)]
    if not dead:
        return None
    real = point.pyboy_diffs
    relaxed = replace(point, pyboy_diffs=lambda gb: [d for d in real(gb) if not dead_stack(d, sp)])
    proof = _ly153_at_read(relaxed)
    if proof is None:
        return None
    return (
        f"{proof}; {len(dead)} WRAM/HRAM bytes up to 32 below SP left out (dead stack: an "
        f"interrupt entry at another point of the frame pushed other values there)"
    )
