"""Lockstep differential testing of emurust against PyBoy 2.8.1.

:func:`run_lockstep` runs a ROM on both emulators side by side with the same boot ROM and
the same input script and compares them frame by frame until the first difference that no
:data:`DEFAULT_ALLOWLIST` entry explains; it then reports that divergence with the last
instructions emurust executed before it (:class:`Divergence`).

Method
======

* **Same power-on.** Both emulators run the same DMG boot ROM from cycle 0: by default
  PyBoy's own open-source ``bootrom_dmg.bin`` (read from the installed package), the one
  PyBoy always runs. emurust without a boot ROM would start in the post-boot state while
  PyBoy does not, and every timing-dependent value (DIV, the PPU's phase) would differ from
  the start. PyBoy runs headless (``window="null"``), with ``cgb=False`` (CGB-enhanced
  DMG games would otherwise run in CGB mode) and ``sound_emulated=False``.
* **Frames paired by the emulated clock.** emurust ends a frame at the start of VBlank (LY
  144), PyBoy when LY wraps from 153 to 0, ten lines later (and also whenever the LCD is
  switched on). Both count T-cycles since power-on (``GameBoy.cycles`` and PyBoy's
  ``_cycles()``, private, hence the pinned version). emurust frame *k* ends at ``E``; PyBoy
  runs frames until one ends at ``P >= E``.
* **Screens** are compared at that pairing: emurust's frame *k* (``screen_shades``) against
  PyBoy's frame ending at ``P`` (the same LCD frame, lines 0-143), PyBoy's "Grey" RGBA
  palette mapped back to shades 0..3. PyBoy renders every frame when screens are compared
  (its window rendering depends on earlier frames having been rendered).
* **State** is compared at the *same clock*: emurust then runs single CPU steps (reference
  path, exact halts) until its clock reaches ``P`` (``GameBoy._step_to_cycle``), the
  instruction boundary where PyBoy stopped, and the CPU registers, WRAM, HRAM, VRAM, OAM
  and the deterministic I/O registers (:data:`IO_REGISTERS`) must be equal. The next emurust
  frame continues from there (it still ends at VBlank start).
* **Input** is applied at that same clock in both emulators (PyBoy takes queued input at
  the start of its next ``tick``, before any instruction runs). While the LCD is off the
  two frame grids drift apart and the clocks cannot be matched; inputs then wait.
* **Divergence.** The first frame with a difference that no allowlist entry explains ends
  the run. emurust is re-run from the last matching point (a save state) with the trace
  ring buffer on (``trace_enable``, reference path; the fast path stays untouched), so the
  report shows the last ``trace_length`` instructions up to the divergence.

The allowlist
=============

Each :class:`AllowlistEntry` masks one documented difference, says exactly what it masks,
and names the evidence: the hardware test ROM that proves PyBoy wrong (or, for an emurust
gap, the test ROM emurust is known to fail). Nothing else is skipped; the entries applied in
a run are listed in :attr:`LockstepResult.allowlisted`.

Fault injection
===============

``fault="adc_half_carry"`` (or ``"daa_ignore_h"``) breaks emurust's CPU on purpose
(``GameBoy._inject_fault``, a test-only verification aid) to show that the harness finds a
CPU bug; emurust then runs on the reference path.
"""

from __future__ import annotations

import os
import random
import tempfile
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from emurust._gameboy import BUTTONS, GameBoy, RomSource
from emurust._pyboy_adapter import LockstepPyBoy, packed_rgb
from emurust.verify.allowlist import (
    DEFAULT_ALLOWLIST,
    IO_REGISTERS,
    REGIONS,
    REGISTERS,
    AllowlistEntry,
    Diff,
    LineState,
    Point,
)
from emurust.verify.disasm import format_trace_entry

if TYPE_CHECKING:
    from emurust._core import _TraceEntry

__all__ = [
    "Divergence",
    "InputScript",
    "LockstepResult",
    "Resync",
    "random_inputs",
    "run_lockstep",
    "sync_boot_rom",
]

InputScript = Mapping[int, Sequence[tuple[str, str]]]
"""Frame number -> ``("press" | "release", button)`` actions applied after that frame."""

MAX_DIFFS_PER_REGION = 32  # listed in a report; the count is always complete

CGB_IO_REGISTERS: dict[int, int] = {
    **IO_REGISTERS,
    0xFF4F: 0x01,  # VBK
    0xFF55: 0xFF,  # HDMA5
    0xFF68: 0xBF,  # BCPS
    0xFF6A: 0xBF,  # OCPS
    0xFF70: 0x07,  # SVBK
}
"""The I/O registers compared on a CGB: the DMG's and the CGB's own. Left out: KEY1 (PyBoy
reads back the byte written, bit 7 flipped by a switch; the speed itself shows in the clock),
the palette data registers (the palettes show in the screen), HDMA1-4 (write-only)."""


@dataclass
class Divergence:
    """The first unexplained difference of a lockstep run."""

    #: emurust frame number (0-based) whose comparison failed.
    frame: int
    #: emurust's PC at the comparison point.
    pc: int
    #: Both emulators' registers at the comparison point (``{"emurust": {...}, "pyboy": {...}}``).
    registers: dict[str, dict[str, int]]
    #: The differences, at most 32 listed per region (``counts`` has the totals).
    diffs: list[Diff]
    #: emurust's last instructions up to the comparison point, oldest first.
    trace: list[str]
    #: T-cycles since power-on of the comparison point.
    cycles: int = 0
    #: Number of differences per region.
    counts: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "frame": self.frame,
            "pc": self.pc,
            "cycles": self.cycles,
            "registers": {k: dict(v) for k, v in self.registers.items()},
            "counts": dict(self.counts),
            "diffs": [dict(d) for d in self.diffs],
            "trace": list(self.trace),
        }

    def summary(self) -> str:
        regions = ", ".join(f"{r}: {n}" for r, n in self.counts.items())
        lines = [
            f"diverged at frame {self.frame} (cycle {self.cycles}, emurust PC "
            f"0x{self.pc:04X}): {regions}"
        ]
        for d in self.diffs[:12]:
            addr = d["addr"]
            where = f"0x{addr:04X}" if isinstance(addr, int) else addr
            lines.append(f"  {d['region']} {where}: emurust {d['emurust']}, PyBoy {d['pyboy']}")
        if self.trace:
            lines.append(f"  last {len(self.trace)} emurust steps:")
            lines += [f"    {t}" for t in self.trace]
        return "\n".join(lines)


@dataclass(frozen=True)
class Resync:
    """A divergence after which the lockstep run loaded PyBoy's state into emurust
    (:meth:`GameBoy.load_pyboy_state`, at PyBoy's frame end where the comparison stood) and
    went on comparing."""

    #: emurust frame of the divergence.
    frame: int
    #: ``"pyboy-deviation"`` (a terminal allowlist entry proved it) or ``"failure"``.
    kind: str
    #: The allowlist entry, or ``"unexplained"``.
    name: str
    #: The entry's proof, or the divergence's summary.
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"frame": self.frame, "kind": self.kind, "name": self.name, "detail": self.detail}


@dataclass
class LockstepResult:
    """The outcome of :func:`run_lockstep`."""

    rom: str
    #: Frames compared (screen and/or state) before the divergence, or in all.
    frames_compared: int
    divergence: Divergence | None
    #: Names of the allowlist entries that masked at least one difference.
    allowlisted: list[str] = field(default_factory=list)
    #: Frames run in all (compared or not: LCD off, clocks not matched).
    frames_run: int = 0
    #: How often each applied allowlist entry masked something, and its first frame.
    allowlist_counts: dict[str, int] = field(default_factory=dict)
    allowlist_first_frame: dict[str, int] = field(default_factory=dict)
    inputs_applied: int = 0
    #: Set when a terminal allowlist entry stopped the run: (frame, entry name, proof).
    stopped: tuple[int, str, str] | None = None
    #: With ``resync``: every divergence after which emurust took over PyBoy's state and
    #: the comparison went on, classified (see :class:`Resync`).
    resyncs: list[Resync] = field(default_factory=list)
    #: With ``resync``: every unexplained divergence (the first is also ``divergence``).
    failures: list[Divergence] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.divergence is None

    def stop_text(self) -> str | None:
        """ "stopped at frame F: PyBoy deviation NAME (proof: ...); N frames compared"."""
        if self.stopped is None:
            return None
        frame, name, proof = self.stopped
        return (
            f"stopped at frame {frame}: PyBoy deviation {name} (proof: {proof}); "
            f"{self.frames_compared} frames compared"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "rom": self.rom,
            "frames_run": self.frames_run,
            "frames_compared": self.frames_compared,
            "inputs_applied": self.inputs_applied,
            "allowlisted": list(self.allowlisted),
            "allowlist_counts": dict(self.allowlist_counts),
            "allowlist_first_frame": dict(self.allowlist_first_frame),
            "divergence": None if self.divergence is None else self.divergence.to_dict(),
            "stopped": None if self.stopped is None else self.stop_text(),
            "resyncs": [r.to_dict() for r in self.resyncs],
            "failures": len(self.failures),
        }

    def summary(self) -> str:
        head = (
            f"{self.rom}: {self.frames_run} frames run, {self.frames_compared} compared, "
            f"{self.inputs_applied} inputs"
        )
        lines = [head]
        for name in self.allowlisted:
            lines.append(
                f"  allowlisted {name}: {self.allowlist_counts[name]} frames, first frame "
                f"{self.allowlist_first_frame[name]}"
            )
        for r in self.resyncs:
            lines.append(f"  resync at frame {r.frame}: {r.kind} {r.name}")
        if self.stopped is not None:
            lines.append(f"  {self.stop_text()}")
        elif self.divergence is None:
            lines.append("  no divergence")
        else:
            lines.append(self.divergence.summary())
        return "\n".join(lines)


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------


def random_inputs(seed: int, frames: int, *, start: int = 0) -> dict[int, list[tuple[str, str]]]:
    """A seeded input script for ``frames`` frames: presses of START, A, B, SELECT and the
    directions held for 2-8 frames with 4-40 idle frames between them, from frame
    ``start``. The same seed always gives the same script."""
    rng = random.Random(seed)
    buttons = ["start", "a", "a", "b", "select", "up", "down", "left", "right"]
    script: dict[int, list[tuple[str, str]]] = {}
    frame = start
    while frame < frames:
        button = rng.choice(buttons)
        hold = rng.randint(2, 8)
        script.setdefault(frame, []).append(("press", button))
        script.setdefault(frame + hold, []).append(("release", button))
        frame += hold + rng.randint(4, 40)
    return script


def _check_script(inputs: InputScript) -> None:
    for frame, actions in inputs.items():
        for action, button in actions:
            if action not in ("press", "release") or button not in BUTTONS:
                raise ValueError(f"bad input at frame {frame}: {(action, button)!r}")


def sync_boot_rom() -> bytes:
    """The harness's default boot ROM (256 bytes): it sets the documented post-boot DMG
    registers (AF=01B0, BC=0013, DE=00D8, HL=014D, SP=FFFE), BGP=0xFC and LCDC=0x91 and
    jumps to 0x0100 at once, unmapping itself at 0x00FE as the DMG boot ROM does.

    Why not PyBoy's boot ROM: its logo loop polls LY, which PyBoy gets wrong (LY reads 153
    during all of line 153; gbmicrotest line_153_ly_c/_d), so the two emulators leave it
    at different cycles (8 T-cycles apart on 2048) and every game would start with its
    CPU shifted against the PPU and DIV. Without timing-dependent code the boot ends at the
    same cycle in both, and a difference found later is the game's own."""
    code = bytes(
        [
            0x31, 0xFE, 0xFF,  # ld sp,$fffe
            0x21, 0xB0, 0x01,  # ld hl,$01b0
            0xE5,  # push hl
            0xF1,  # pop af        (A=$01, F=$b0)
            0x3E, 0xFC, 0xE0, 0x47,  # ld a,$fc; ldh (BGP),a
            0x3E, 0x91, 0xE0, 0x40,  # ld a,$91; ldh (LCDC),a   (LCD on)
            0x3E, 0x01,  # ld a,$01      (flags kept)
            0x01, 0x13, 0x00,  # ld bc,$0013
            0x11, 0xD8, 0x00,  # ld de,$00d8
            0x21, 0x4D, 0x01,  # ld hl,$014d
            0xC3, 0xFE, 0x00,  # jp $00fe
        ]
    )  # fmt: skip
    boot = bytearray(256)
    boot[: len(code)] = code
    boot[0xFE:0x100] = bytes([0xE0, 0x50])  # ldh ($50),a: unmap, continue at 0x0100
    return bytes(boot)


def _new_emurust(rom: bytes, boot: bytes | None, fault: str | None) -> GameBoy:
    """A DMG started from ``boot``, or with ``boot=None`` a CGB (post-boot: the CGB
    lockstep loads PyBoy's state into it)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # header warnings are the ROM's business here
        gb = GameBoy(rom, model="cgb") if boot is None else GameBoy(rom, boot_rom=boot)
    if fault is not None:
        gb._inject_fault(fault)
    return gb


# ---------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------


def _diff_arrays(
    region: str, base: int, ours: npt.NDArray[np.uint8], theirs: npt.NDArray[np.uint8]
) -> list[Diff]:
    where = np.flatnonzero(ours != theirs)
    return [
        {"region": region, "addr": base + int(i), "emurust": int(ours[i]), "pyboy": int(theirs[i])}
        for i in where.tolist()
    ]


def _state_diffs(
    gb: GameBoy, pb: LockstepPyBoy, ours_regs: dict[str, int], pb_regs: dict[str, int]
) -> list[Diff]:
    diffs: list[Diff] = [
        {"region": "registers", "addr": name, "emurust": ours_regs[name], "pyboy": pb_regs[name]}
        for name in REGISTERS
        if ours_regs[name] != pb_regs[name]
    ]
    for region, (start, end) in REGIONS.items():
        ours = np.frombuffer(gb.memory[start:end], dtype=np.uint8)
        diffs += _diff_arrays(region, start, ours, pb.memory(start, end))
    cgb = gb.model == "cgb"
    if cgb:
        # Every bank, whatever VBK and SVBK map (addresses: bank << 16 | address).
        for region, banks, start, end in (("vram", 2, 0x8000, 0xA000), ("wram", 8, 0xD000, 0xE000)):
            for bank in range(banks):
                offset = start & 0xFFF if region == "wram" else 0
                ours = np.frombuffer(gb._read_bank(region, bank, offset, end - start), np.uint8)
                theirs = pb.bank(region, bank, start, end)
                diffs += _diff_arrays(region, bank << 16 | start, ours, theirs)
    for addr, mask in (CGB_IO_REGISTERS if cgb else IO_REGISTERS).items():
        a, b = gb.memory[addr] & mask, pb.byte(addr) & mask
        if a != b:
            diffs.append({"region": "io", "addr": addr, "emurust": a, "pyboy": b})
    return diffs


def _screen_diffs(ours: npt.NDArray[np.uint8], theirs: npt.NDArray[np.uint8]) -> list[Diff]:
    return _diff_arrays("screen", 0, ours.reshape(-1), theirs.reshape(-1))


def _trim(diffs: list[Diff]) -> tuple[list[Diff], dict[str, int]]:
    counts: dict[str, int] = {}
    shown: list[Diff] = []
    for d in diffs:
        region = str(d["region"])
        counts[region] = counts.get(region, 0) + 1
        if counts[region] <= MAX_DIFFS_PER_REGION:
            shown.append(d)
    return shown, counts


def _rom_bytes(rom: RomSource) -> tuple[bytes, str]:
    if isinstance(rom, (bytes, bytearray, memoryview)):
        return bytes(rom), f"<{len(rom)}-byte ROM>"
    path = Path(os.fspath(rom))
    return path.read_bytes(), str(path)


def run_lockstep(
    rom: RomSource,
    *,
    frames: int,
    seed: int = 0,
    inputs: InputScript | None = None,
    compare_screen: bool = True,
    boot_rom: RomSource | None = None,
    trace_length: int = 64,
    fault: str | None = None,
    allowlist: Sequence[AllowlistEntry] = DEFAULT_ALLOWLIST,
    resync: bool = False,
    max_failures: int = 8,
    plant: Mapping[int, Mapping[int, int]] | None = None,
    cgb_from_frame: int | None = None,
) -> LockstepResult:
    """Runs ``rom`` on emurust and PyBoy in lockstep for ``frames`` emurust frames and
    reports the first unexplained difference (see the module docstring).

    ``resync=True`` goes on past divergences: after a terminal allowlist entry's proof (a
    PyBoy deviation that changes the program flow) or an unexplained difference (a failure,
    recorded in :attr:`LockstepResult.failures`; at most ``max_failures``), PyBoy's state is
    loaded into emurust (:meth:`GameBoy.load_pyboy_state`) at the frame end where the two
    stand, and the comparison continues from there; :attr:`LockstepResult.resyncs` lists
    them, classified.

    ``inputs`` is the input script (default: ``random_inputs(seed, frames)``; ``{}`` for
    none). ``boot_rom`` is the boot ROM both emulators run, a path or 256 bytes (default:
    :func:`sync_boot_rom`; ``pyboy_boot_rom()`` is PyBoy's own). ``compare_screen=False``
    compares the machine state only (faster: neither emulator draws). ``trace_length`` is
    the number of emurust steps in a divergence's trace. ``fault`` injects a deliberate
    emurust CPU bug (``"adc_half_carry"``, ``"daa_ignore_h"``; a test of the harness).
    ``allowlist`` lists the tolerated differences. ``plant`` (frame -> {address: byte})
    writes bytes into emurust's memory alone at the start of those frames, a deliberate
    divergence at any point of a run (a test of the harness, as ``fault`` is); the harness's
    re-runs start from the planted state too, so no proof can explain it away.

    ``cgb_from_frame=N`` runs the Game Boy Color: PyBoy (``cgb=True``) runs its own CGB boot
    ROM and the game to the end of its frame ``N``, and emurust (a CGB, ``model="cgb"``)
    starts from PyBoy's state there (:meth:`GameBoy.load_pyboy_state`); screens are then
    compared as colours (PyBoy's ``x << 3`` conversion, emurust's default), memory in every
    VRAM and WRAM bank, and the CGB's registers beside the DMG's (:data:`CGB_IO_REGISTERS`).
    ``boot_rom`` must then be None.

    Raises ``ImportError`` without PyBoy 2.8.1, ``ValueError`` for a bad argument.
    """
    if frames < 0:
        raise ValueError(f"frames must be >= 0, got {frames}")
    if trace_length < 1:
        raise ValueError(f"trace_length must be >= 1, got {trace_length}")
    data, name = _rom_bytes(rom)
    script: InputScript = random_inputs(seed, frames) if inputs is None else inputs
    _check_script(script)
    boot: bytes | None
    if cgb_from_frame is not None:
        if boot_rom is not None or cgb_from_frame < 0:
            raise ValueError("cgb_from_frame needs no boot_rom and a frame >= 0")
        boot = None
    elif boot_rom is None:
        boot = sync_boot_rom()
    elif isinstance(boot_rom, (bytes, bytearray, memoryview)):
        boot = bytes(boot_rom)
    else:
        boot = Path(os.fspath(boot_rom)).read_bytes()
    if boot is not None and len(boot) != 256:
        raise ValueError(f"a DMG boot ROM is 256 bytes, got {len(boot)}")
    planted = {int(f): dict(writes) for f, writes in (plant or {}).items()}
    for f, writes in planted.items():
        if f < 0 or any(not 0 <= a <= 0xFFFF or not 0 <= v <= 0xFF for a, v in writes.items()):
            raise ValueError(f"bad plant at frame {f}: {writes!r} (addresses 0-0xFFFF, bytes)")

    gb = _new_emurust(data, boot, fault)
    if boot is None:
        pb = LockstepPyBoy(data, None, compare_screen, cgb=True)
        pb.start_at_frame(cgb_from_frame or 0)
        gb.load_pyboy_state(pb.state())
    else:
        with tempfile.TemporaryDirectory(prefix="emurust-difftest-") as tmp:
            boot_path = Path(tmp) / "boot.bin"  # PyBoy loads its boot ROM from a file
            boot_path.write_bytes(boot)
            pb = LockstepPyBoy(data, boot_path, compare_screen)
    result = _lockstep(
        gb,
        pb,
        data,
        boot,
        script,
        frames,
        compare_screen,
        trace_length,
        fault,
        allowlist,
        name,
        max_failures if resync else 0,
        planted,
    )
    return result


def _lockstep(
    gb: GameBoy,
    pb: LockstepPyBoy,
    data: bytes,
    boot: bytes | None,
    script: InputScript,
    frames: int,
    compare_screen: bool,
    trace_length: int,
    fault: str | None,
    allowlist: Sequence[AllowlistEntry],
    name: str,
    max_failures: int = 0,
    plant: Mapping[int, Mapping[int, int]] | None = None,
) -> LockstepResult:
    """The lockstep loop; ``max_failures`` > 0 resynchronizes, ``plant`` plants differences
    (see :func:`run_lockstep`)."""
    result = LockstepResult(rom=name, frames_compared=0, divergence=None)
    resync = max_failures > 0
    cgb = gb.model == "cgb"
    last_good = gb.save_state()
    boot_mapped = True
    pending: list[tuple[str, str]] = []
    unselected_press = False
    p1_select_irq = False  # pyboy-joypad-irq-p1-select masked emurust's IF bit 4
    try:
        for frame in range(frames):
            if plant and frame in plant:
                for addr, value in plant[frame].items():
                    gb.memory[addr] = value
                last_good = gb.save_state()  # the re-runs start from the planted state
            gb.tick(1, render=compare_screen)
            result.frames_run = frame + 1
            pb.run_until(gb.cycles)
            ours_screen: npt.NDArray[Any] | None = None
            if compare_screen:
                ours_screen = packed_rgb(gb.screen) if cgb else np.array(gb.screen_shades)
            # Same clock: emurust steps to PyBoy's frame end (unless a frame ends first,
            # which happens only while the LCD is off and the grids have drifted apart).
            aligned = gb._step_to_cycle(pb.now)
            if boot_mapped:
                boot_mapped = gb.memory[0x0000:0x0100] != data[:0x100]
            diffs: list[Diff] = []
            lcd_on = bool(gb.memory[0xFF40] & 0x80) and bool(pb.byte(0xFF40) & 0x80)
            theirs_screen = pb.screen() if compare_screen else np.zeros((144, 160), np.uint8)
            if ours_screen is not None and lcd_on:
                diffs += _screen_diffs(ours_screen, theirs_screen)
            ours_regs = dict(gb.registers)
            pb_regs = pb.registers()
            if aligned:
                diffs += _state_diffs(gb, pb, ours_regs, pb_regs)
                if gb.cycles != pb.now and pb.byte(pb_regs["pc"]) != 0x76:
                    # PyBoy stopped at an instruction boundary (it was not halted) that
                    # emurust's instruction stream does not have: their timing differs.
                    diffs.append(
                        {"region": "clock", "addr": "cycles", "emurust": gb.cycles, "pyboy": pb.now}
                    )
            compared = aligned or (ours_screen is not None and lcd_on)
            resynced = False
            if diffs:
                point = Point(
                    frame=frame,
                    cycles=gb.cycles,
                    boot_rom_mapped=boot_mapped,
                    after_lcd_enable=pb.after_lcd_enable(),
                    pyboy_screen=theirs_screen,
                    emurust_screen=(
                        ours_screen if ours_screen is not None else np.zeros((144, 160), np.uint8)
                    ),
                    bgp=gb.memory[0xFF47],
                    pyboy_opcode=pb.byte(pb_regs["pc"]),
                    pyboy_registers=pb_regs,
                    emurust_registers=ours_regs,
                    lagged_diffs=_lagged(data, boot, fault, last_good, pb, pb_regs),
                    line_state=_LineStates(data, boot, fault, last_good),
                    unselected_press=unselected_press,
                    p1_select_irq_carried=p1_select_irq,
                    pyboy_byte=pb.byte,
                    frame_trace=_frame_trace(data, boot, fault, last_good, pb.now),
                    emurust_at=_emurust_at(data, boot, fault, last_good),
                    pyboy_diffs=_pyboy_diffs(pb, pb_regs),
                    pyboy_cycles=pb.now,
                    emurust_start=_emurust_start(data, boot, fault, last_good),
                )
                used: list[str] = []
                remaining = _apply_allowlist(allowlist, point, diffs, result, used)
                kept = {id(d) for d in remaining}
                point.masked = [d for d in diffs if id(d) not in kept]
                if "pyboy-joypad-irq-p1-select" in used:
                    p1_select_irq = True
                diffs = remaining
                if diffs:
                    stop = None
                    for entry in allowlist:
                        proof = None if entry.prove is None else entry.prove(point, diffs)
                        if proof is not None:
                            stop = (frame, entry.name, proof)
                            if entry.name not in result.allowlisted:
                                result.allowlisted.append(entry.name)
                                result.allowlist_first_frame[entry.name] = frame
                            result.allowlist_counts[entry.name] = (
                                result.allowlist_counts.get(entry.name, 0) + 1
                            )
                            break
                    if stop is not None and resync:
                        result.resyncs.append(Resync(frame, "pyboy-deviation", stop[1], stop[2]))
                        diffs = []
                        resynced = True
                    elif stop is not None:
                        result.stopped = stop
                        break
            if diffs:
                div = _divergence(
                    data,
                    boot,
                    fault,
                    last_good,
                    frame,
                    pb.now,
                    ours_regs,
                    pb_regs,
                    diffs,
                    trace_length,
                    compare_screen,
                )
                if result.divergence is None:
                    result.divergence = div
                if not resync or len(result.failures) >= max_failures:
                    break
                result.failures.append(div)
                result.resyncs.append(
                    Resync(frame, "failure", "unexplained", div.summary().splitlines()[0])
                )
                resynced = True
            if resynced:
                # Take over PyBoy's state at its frame end, where the comparison stands.
                gb.load_pyboy_state(pb.state())
                aligned = True
            elif compared:
                result.frames_compared += 1
            if aligned and not pb.byte(0xFF0F) & 0x10:
                unselected_press = False
            if resynced or (aligned and not gb.memory[0xFF0F] & 0x10):
                p1_select_irq = False
            pending += script.get(frame, ())
            if pending and aligned and gb.cycles == pb.now:
                for action, button in pending:
                    if action == "press" and not _row_selected(gb.memory[0xFF00], button):
                        unselected_press = True
                    getattr(gb, f"button_{action}")(button)
                    pb.press(action, button)
                result.inputs_applied += len(pending)
                pending = []
            last_good = gb.save_state()
    finally:
        pb.stop()
    return result


def _row_selected(p1: int, button: str) -> bool:
    """Whether ``button``'s row is selected in P1 (0 selects: bit 4 directions, bit 5
    actions)."""
    directions = button.lower() in ("right", "left", "up", "down")
    return not p1 & (0x10 if directions else 0x20)


class _LineStates:
    """:class:`LineState` of the rows of the compared frame, read from a scratch emurust
    loaded with the last matching point (the start of the frame, PyBoy's previous frame
    end) and run to each requested row's mode 3; rows are best asked in increasing order."""

    def __init__(self, rom: bytes, boot: bytes | None, fault: str | None, last_good: bytes) -> None:
        self._args = (rom, boot, fault, last_good)
        self._gb: GameBoy | None = None
        self._cache: dict[int, LineState | None] = {}

    def __call__(self, row: int) -> LineState | None:
        if row not in self._cache:
            self._cache[row] = self._read(row)
        return self._cache[row]

    def _read(self, row: int) -> LineState | None:
        rom, boot, fault, last_good = self._args
        gb = self._gb
        if gb is None or gb.memory[0xFF44] > row:
            gb = self._gb = _new_emurust(rom, boot, fault)
            gb.load_state(last_good)
        for _ in range(4000):
            ly, mode = gb.memory[0xFF44], gb.memory[0xFF41] & 3
            if not gb.memory[0xFF40] & 0x80 or (row < ly < 144):
                return None
            if ly == row and mode == 3:
                m = gb.memory
                return LineState(
                    m[0x8000:0xA000], m[0xFE00:0xFEA0], m[0xFF40], m[0xFF42], m[0xFF43],
                    m[0xFF4A], m[0xFF4B], m[0xFF47], m[0xFF48], m[0xFF49],
                )  # fmt: skip
            lines = (row - ly) % 154
            step = max(4, (lines - 1) * 456) if lines > 1 else 4
            if not gb._step_to_cycle(gb.cycles + step):
                return None  # a frame ended: this is not the compared frame any more
        return None


def _lagged(
    rom: bytes,
    boot: bytes | None,
    fault: str | None,
    last_good: bytes,
    pb: LockstepPyBoy,
    pb_regs: dict[str, int],
) -> Callable[[], list[Diff] | None]:
    """The differences between emurust 4 T-cycles before PyBoy's clock (re-run from the
    last matching point) and PyBoy now; None without an emurust instruction boundary there."""

    def compute() -> list[Diff] | None:
        gb = _scratch_at(rom, boot, fault, last_good, pb.now - 4)
        if gb is None:
            return None
        diffs = _state_diffs(gb, pb, dict(gb.registers), pb_regs)
        # I/O registers: compared at the same clock (_late_interrupt_rule).
        return [d for d in diffs if d["region"] != "io"]

    return compute


def _emurust_start(
    rom: bytes, boot: bytes | None, fault: str | None, last_good: bytes
) -> Callable[[], GameBoy]:
    """A fresh scratch emurust loaded with the last matching point."""

    def compute() -> GameBoy:
        gb = _new_emurust(rom, boot, fault)
        gb.load_state(last_good)
        return gb

    return compute


def _pyboy_diffs(pb: LockstepPyBoy, pb_regs: dict[str, int]) -> Callable[[GameBoy], list[Diff]]:
    """The differences between a scratch emurust and PyBoy as it is now."""

    def compute(gb: GameBoy) -> list[Diff]:
        return _state_diffs(gb, pb, dict(gb.registers), pb_regs)

    return compute


def _frame_trace(
    rom: bytes, boot: bytes | None, fault: str | None, last_good: bytes, target: int
) -> Callable[[], list[_TraceEntry]]:
    """emurust's steps from the last matching point to ``target`` (traced re-run)."""

    def compute() -> list[_TraceEntry]:
        gb = _new_emurust(rom, boot, fault)
        gb.load_state(last_good)
        gb.trace_enable(40000)
        gb.tick(1, render=False)
        gb._step_to_cycle(target)
        return list(gb.trace())

    return compute


def _emurust_at(
    rom: bytes, boot: bytes | None, fault: str | None, last_good: bytes
) -> Callable[[int], GameBoy | None]:
    """A scratch emurust run from the last matching point to exactly ``cycles``."""

    def compute(cycles: int) -> GameBoy | None:
        return _scratch_at(rom, boot, fault, last_good, cycles)

    return compute


def _scratch_at(
    rom: bytes, boot: bytes | None, fault: str | None, last_good: bytes, target: int
) -> GameBoy | None:
    """A scratch emurust loaded with ``last_good`` and stepped to exactly ``target``;
    None if it has no instruction boundary there (or ``target`` is before the state)."""
    gb = _new_emurust(rom, boot, fault)
    gb.load_state(last_good)
    gb.tick(1, render=False)  # the fast path up to the frame end, when that is not too far
    if gb.cycles > target:
        # The frame ended past the target: with the LCD off a frame ends by time, up to an
        # instruction after PyBoy's clock. Step from the last matching point instead.
        gb = _new_emurust(rom, boot, fault)
        gb.load_state(last_good)
    for _ in range(12):
        if gb.cycles >= target or gb._step_to_cycle(target):
            break
    return gb if gb.cycles == target else None


def _apply_allowlist(
    allowlist: Sequence[AllowlistEntry],
    point: Point,
    diffs: list[Diff],
    result: LockstepResult,
    used: list[str] | None = None,
) -> list[Diff]:
    """``diffs`` less what the entries' rules mask; the names of the entries that masked
    something are appended to ``used``."""
    for entry in allowlist:
        masked = entry.rule(point, diffs)
        if not masked:
            continue
        if used is not None:
            used.append(entry.name)
        ids = {id(d) for d in masked}
        diffs = [d for d in diffs if id(d) not in ids]
        if entry.name not in result.allowlist_counts:
            result.allowlisted.append(entry.name)
            result.allowlist_first_frame[entry.name] = point.frame
        result.allowlist_counts[entry.name] = result.allowlist_counts.get(entry.name, 0) + 1
        if not diffs:
            break
    return diffs


def _divergence(
    rom: bytes,
    boot: bytes | None,
    fault: str | None,
    last_good: bytes,
    frame: int,
    target: int,
    ours_regs: dict[str, int],
    pb_regs: dict[str, int],
    diffs: list[Diff],
    trace_length: int,
    render: bool,
) -> Divergence:
    """The divergence report; emurust re-runs the last frame from ``last_good`` with the
    trace on to record the steps that led to the comparison point."""
    gb = _new_emurust(rom, boot, fault)
    gb.load_state(last_good)
    gb.trace_enable(trace_length)
    gb.tick(1, render=render)
    gb._step_to_cycle(target)
    trace = [format_trace_entry(e) for e in gb.trace()]
    if dict(gb.registers) != ours_regs:
        trace.append("(warning: the traced re-run ended with other registers than the run)")
    shown, counts = _trim(diffs)
    return Divergence(
        frame=frame,
        pc=ours_regs["pc"],
        registers={"emurust": ours_regs, "pyboy": pb_regs},
        diffs=shown,
        trace=trace,
        cycles=target,
        counts=counts,
    )
