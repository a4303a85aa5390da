"""The emurust machine the generated-ROM checks run (levels 1 and 2): :class:`Mode` (fast
or reference path, optionally with a test-only fault), :func:`new_gameboy`,
:func:`run_until_done` (a generated program marks itself done) and :func:`modes_for`."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import emurust
from emurust.tools.asm import ops as asm


@dataclass(frozen=True)
class Mode:
    """How emurust runs a batch: the fast path, or the reference path (every component
    stepped every M-cycle), optionally with a test-only fault injected."""

    reference: bool
    fault: str | None = None

    @property
    def label(self) -> str:
        path = "reference path" if self.reference else "fast path"
        return f"{path}, fault {self.fault!r}" if self.fault else path


def supports_reference_mode() -> bool:
    return hasattr(emurust.GameBoy, "reference_mode")


def supports_faults() -> bool:
    return hasattr(emurust.GameBoy, "_inject_fault")


def new_gameboy(rom: bytes, mode: Mode | None = None) -> emurust.GameBoy:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", emurust.EmuRustWarning)
        gb = emurust.GameBoy(rom)
    if mode is not None and mode.reference:
        gb.reference_mode = True
    if mode is not None and mode.fault:
        gb._inject_fault(mode.fault)
    return gb


def run_until_done(gb: emurust.GameBoy, max_frames: int = 120) -> int:
    """Ticks frame by frame until the program's done flag is set; returns frames run."""
    for frame in range(1, max_frames + 1):
        gb.tick(1, render=False)
        if gb.memory[asm.DONE_FLAG] == asm.DONE_VALUE:
            return frame
    raise RuntimeError(f"generated program did not finish within {max_frames} frames")


def modes_for(fault: str | None) -> list[Mode]:
    """The fast path always; the reference path too where the build exposes it (with the
    injected fault, if any: faults act only on the reference path)."""
    modes = [Mode(reference=False)]
    if supports_reference_mode():
        modes.append(Mode(reference=True, fault=fault))
    elif fault is not None:
        raise RuntimeError("this emurust build has no reference mode: cannot inject faults")
    if fault is not None and not supports_faults():
        raise RuntimeError("this emurust build has no GameBoy._inject_fault")
    return modes
