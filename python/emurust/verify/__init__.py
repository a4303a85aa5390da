"""Verification of emurust against an independent model and against PyBoy: ``emurust
verify`` and the lockstep harness.

Modules, one job each:

* :mod:`emurust.verify.lockstep`: :func:`run_lockstep`, emurust and PyBoy 2.8.1 side by side
  frame by frame; :mod:`emurust.verify.allowlist`: the documented differences it tolerates
  (rules and proofs); :mod:`emurust.verify.disasm`: the disassembler of its traces;
  :mod:`emurust.verify.pyboy_adapter`: the project's one PyBoy adapter.
* :mod:`emurust.verify.romgen`: the ROM builder of the verification levels and the tests.
* :mod:`emurust.verify.report`: ``report.json`` / ``report.md``;
  :mod:`emurust.verify.cli`: ``emurust verify`` and ``python -m emurust.verify.cli``.

Levels
======

1. **Properties** (:mod:`emurust.verify.level1`): every ALU, rotate, shift and BCD opcode
   family (ADD ADC SUB SBC AND XOR OR CP INC DEC, RLCA RRCA RLA RRA, CB RLC RRC RL RR SLA
   SRA SRL SWAP BIT, DAA CPL SCF CCF, ADD HL,rr, ADD SP,e / LD HL,SP+e) run on emurust in
   generated ROMs and compared with an independent Python reference model (itself
   cross-checked against the SingleStepTests SM83 vectors when the test-ROM folder is
   present); memory-map invariants (echo RAM, FEA0-FEFF, unused I/O bits); save/load
   round trips and rendering on/off leave the machine identical.
2. **Interactions** (:mod:`emurust.verify.level2`): joypad interrupt and P1, timer
   overflow/reload, OAM DMA, MBC1/MBC3/MBC5 banking, serial transfer, LCD off/on.
3. **Rollouts** (:mod:`emurust.verify.level3`): seeded random-input rollouts in lockstep
   with PyBoy (:mod:`emurust.verify.lockstep`), one long and many short per ROM.
4. **Policy transfer** (:mod:`emurust.verify.level4`, only when asked for: it trains two
   agents): a PPO agent trained on emurust and one trained on PyBoy, each evaluated on both
   backends over the same seeded episodes; TOST decides whether the mean returns are
   equivalent.

:func:`run` returns a :class:`Report`; :func:`write_report` writes ``report.json`` (the
schema in ``REPORT_SCHEMA``) and ``report.md``.
"""

from __future__ import annotations

import fnmatch
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import emurust
from emurust.verify.allowlist import DEFAULT_ALLOWLIST, AllowlistEntry
from emurust.verify.disasm import disassemble
from emurust.verify.lockstep import (
    Divergence,
    LockstepResult,
    random_inputs,
    run_lockstep,
    sync_boot_rom,
)
from emurust.verify.pyboy_adapter import PYBOY_VERSION, pyboy_boot_rom
from emurust.verify.report import (
    REPORT_SCHEMA,
    Report,
    print_summary,
    render_markdown,
    write_report,
)
from emurust.verify.result import Progress, Result, Status

__all__ = [
    "DEFAULT_ALLOWLIST",
    "DEFAULT_LEVELS",
    "FAULTS",
    "LEVELS",
    "PYBOY_VERSION",
    "REPORT_SCHEMA",
    "AllowlistEntry",
    "Config",
    "Divergence",
    "LockstepResult",
    "Report",
    "Result",
    "Status",
    "disassemble",
    "print_summary",
    "pyboy_boot_rom",
    "random_inputs",
    "render_markdown",
    "run",
    "run_lockstep",
    "sync_boot_rom",
    "write_report",
]

LEVELS = (1, 2, 3, 4)
DEFAULT_LEVELS = (1, 2, 3)  # level 4 trains two agents: only when asked for
FAULTS = ("adc_half_carry", "daa_ignore_h")
"""Test-only faults ``--inject-fault`` accepts (``GameBoy._inject_fault``, reference path)."""


@dataclass
class Config:
    """What :func:`run` checks. ``roms`` are ROM paths for level 3 (default: a generated
    ROM plus the shared games and test ROMs present in ``roms_dir``); ``only`` keeps the
    checks whose name matches one of these shell patterns (``"alu.*"``)."""

    levels: Sequence[int] = DEFAULT_LEVELS
    roms: Sequence[str] = ()
    frames: int = 1000
    short_frames: int = 300
    short_runs: int = 8
    seed: int = 0
    samples: int = 512
    fault: str | None = None
    roms_dir: Path | None = None
    only: Sequence[str] = ()
    progress: bool = True
    argv: Sequence[str] = ()
    l4_steps: int | None = None  # PPO steps per training (None: emurust train's default)
    l4_episodes: int = 100
    l4_out: Path | None = None

    def __post_init__(self) -> None:
        bad = [lv for lv in self.levels if lv not in LEVELS]
        if bad:
            raise ValueError(f"unknown level(s) {bad}; levels are {list(LEVELS)}")
        if self.fault is not None and self.fault not in FAULTS:
            raise ValueError(f"unknown fault {self.fault!r}; known: {', '.join(FAULTS)}")
        for name in ("frames", "short_frames", "short_runs", "samples"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0")


def _checks(config: Config, level: int) -> list[tuple[str, Callable[[], Result]]]:
    roms_dir = config.roms_dir
    if level == 1:
        from emurust.verify.level1 import level1_checks

        return level1_checks(
            seed=config.seed, samples=config.samples, roms=roms_dir, fault=config.fault
        )
    if level == 2:
        from emurust.verify.level2 import level2_checks

        return level2_checks(seed=config.seed)
    if level == 4:
        from emurust.verify.level4 import level4_checks

        return level4_checks(
            steps=config.l4_steps,
            episodes=config.l4_episodes,
            seed=config.seed,
            out=config.l4_out,
        )
    from emurust.verify.level3 import level3_checks

    return level3_checks(
        roms_dir=roms_dir,
        paths=config.roms,
        frames=config.frames,
        short_frames=config.short_frames,
        short_runs=config.short_runs,
        seed=config.seed,
        fault=config.fault,
    )


def _guarded(level: int, name: str, thunk: Callable[[], Result]) -> Result:
    """Runs one check; an exception becomes a failed result naming it (never a crash)."""
    t0 = time.perf_counter()
    try:
        return thunk()
    except Exception as exc:  # a check that cannot run is a failure, with the reason
        where = traceback.extract_tb(exc.__traceback__)[-1]
        return Result(
            level,
            name,
            "fail",
            "gameboy",
            f"the check raised {type(exc).__name__}: {exc} "
            f"(at {Path(where.filename).name}:{where.lineno})",
            seconds=time.perf_counter() - t0,
        )


def run(config: Config | None = None) -> Report:
    """Runs the configured levels and returns the report (nothing is written)."""
    config = config or Config()
    if config.roms_dir is None:
        candidate = emurust.roms_dir()
        config.roms_dir = candidate if candidate.is_dir() else None
    if config.fault is not None:
        from emurust.verify.level1 import modes_for

        modes_for(config.fault)  # raises if the build cannot inject faults
    t0 = time.perf_counter()
    results: list[Result] = []
    for level in sorted(set(config.levels)):
        checks = _checks(config, level)
        if config.only:
            checks = [c for c in checks if any(fnmatch.fnmatchcase(c[0], p) for p in config.only)]
        bar = Progress(len(checks), f"L{level}", enabled=config.progress)
        try:
            for name, thunk in checks:
                results.append(_guarded(level, name, thunk))
                bar.step(f"{name}: {results[-1].status}")
        finally:
            bar.close()
    from emurust.verify import level3

    allowlist = level3.allowlist_entries() if 3 in config.levels else []
    report = Report(
        levels=sorted(set(config.levels)),
        results=results,
        allowlist=allowlist,
        argv=list(config.argv),
        pyboy_version=level3.pyboy_version(),
    )
    report.seconds = time.perf_counter() - t0
    return report
