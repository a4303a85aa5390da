"""``emurust verify``'s runner: :class:`Config` says what to check, :func:`run` runs the
levels and returns the :class:`~emurust.verify.report.Report`."""

from __future__ import annotations

import fnmatch
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import emurust
from emurust.verify.report import Report
from emurust.verify.result import Progress, Result

__all__ = ["DEFAULT_LEVELS", "FAULTS", "LEVELS", "Config", "run"]

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
        from emurust.verify.properties import property_checks

        return property_checks(
            seed=config.seed, samples=config.samples, roms=roms_dir, fault=config.fault
        )
    if level == 2:
        from emurust.verify.interactions import interaction_checks

        return interaction_checks(seed=config.seed)
    if level == 4:
        from emurust.verify.policy_transfer import transfer_checks

        return transfer_checks(
            steps=config.l4_steps,
            episodes=config.l4_episodes,
            seed=config.seed,
            out=config.l4_out,
        )
    from emurust.verify.rollouts import rollout_checks

    return rollout_checks(
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
        from emurust.verify.machine import modes_for

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
    from emurust.verify import rollouts

    allowlist = rollouts.allowlist_entries() if 3 in config.levels else []
    report = Report(
        levels=sorted(set(config.levels)),
        results=results,
        allowlist=allowlist,
        argv=list(config.argv),
        pyboy_version=rollouts.pyboy_version(),
    )
    report.seconds = time.perf_counter() - t0
    return report
