"""Hierarchical verification of emurust: ``emurust verify``.

Levels
======

1. **Properties** (:mod:`emurust._verify.level1`): every ALU, rotate, shift and BCD opcode
   family (ADD ADC SUB SBC AND XOR OR CP INC DEC, RLCA RRCA RLA RRA, CB RLC RRC RL RR SLA
   SRA SRL SWAP BIT, DAA CPL SCF CCF, ADD HL,rr, ADD SP,e / LD HL,SP+e) run on emurust in
   generated ROMs and compared with an independent Python reference model (itself
   cross-checked against the SingleStepTests SM83 vectors when the test-ROM folder is
   present); memory-map invariants (echo RAM, FEA0-FEFF, unused I/O bits); save/load
   round trips and rendering on/off leave the machine identical.
2. **Interactions** (:mod:`emurust._verify.level2`): joypad interrupt and P1, timer
   overflow/reload, OAM DMA, MBC1/MBC3/MBC5 banking, serial transfer, LCD off/on.
3. **Rollouts** (:mod:`emurust._verify.level3`): seeded random-input rollouts in lockstep
   with PyBoy (:mod:`emurust.difftest`), one long and many short per ROM.
4. **Policy transfer** (:mod:`emurust._verify.level4`, only when asked for: it trains two
   agents): a PPO agent trained on emurust and one trained on PyBoy, each evaluated on both
   backends over the same seeded episodes; TOST decides whether the mean returns are
   equivalent.

:func:`run` returns a :class:`Report`; :func:`write_report` writes ``report.json`` (the
schema in ``REPORT_SCHEMA``) and ``report.md``.
"""

from __future__ import annotations

import datetime as _dt
import fnmatch
import json
import os
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import emurust
from emurust._verify.level3 import fmt_addr
from emurust._verify.result import STATUSES, Progress, Result, Status

__all__ = [
    "DEFAULT_LEVELS",
    "FAULTS",
    "LEVELS",
    "Config",
    "Report",
    "Result",
    "Status",
    "render_markdown",
    "run",
    "write_report",
]

LEVELS = (1, 2, 3, 4)
DEFAULT_LEVELS = (1, 2, 3)  # level 4 trains two agents: only when asked for
FAULTS = ("adc_half_carry", "daa_ignore_h")
"""Test-only faults ``--inject-fault`` accepts (``GameBoy._inject_fault``, reference path)."""

REPORT_SCHEMA = (
    "tool, emurust_version, pyboy_version, created, argv, levels, "
    "summary{passed, failed, skipped, allowlisted, frames_compared}, "
    "results[{level, name, status, module, detail, rom, frames, divergence, counterexample}], "
    "allowlist[{name, masks, proof}]"
)


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


@dataclass
class Report:
    """The outcome of a :func:`run`; :meth:`to_dict` is ``report.json``."""

    levels: list[int]
    results: list[Result]
    allowlist: list[dict[str, str]]
    argv: list[str]
    pyboy_version: str | None
    created: str = field(
        default_factory=lambda: _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    )
    emurust_version: str = emurust.__version__
    seconds: float = 0.0

    def count(self, status: Status, level: int | None = None) -> int:
        return sum(
            1 for r in self.results if r.status == status and (level is None or r.level == level)
        )

    @property
    def frames_compared(self) -> int:
        """Frames compared against PyBoy in lockstep (level 3)."""
        return sum(r.frames or 0 for r in self.results if r.level == 3)

    @property
    def ok(self) -> bool:
        return self.count("fail") == 0

    def summary(self) -> dict[str, int]:
        return {
            "passed": self.count("pass"),
            "failed": self.count("fail"),
            "skipped": self.count("skip"),
            "allowlisted": self.count("allowlisted"),
            "frames_compared": self.frames_compared,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": "emurust verify",
            "emurust_version": self.emurust_version,
            "pyboy_version": self.pyboy_version,
            "created": self.created,
            "argv": list(self.argv),
            "levels": list(self.levels),
            "summary": self.summary(),
            "results": [r.to_dict() for r in self.results],
            "allowlist": list(self.allowlist),
            "seconds": round(self.seconds, 2),
        }


def _checks(config: Config, level: int) -> list[tuple[str, Callable[[], Result]]]:
    roms_dir = config.roms_dir
    if level == 1:
        from emurust._verify.level1 import level1_checks

        return level1_checks(
            seed=config.seed, samples=config.samples, roms=roms_dir, fault=config.fault
        )
    if level == 2:
        from emurust._verify.level2 import level2_checks

        return level2_checks(seed=config.seed)
    if level == 4:
        from emurust._verify.level4 import level4_checks

        return level4_checks(
            steps=config.l4_steps,
            episodes=config.l4_episodes,
            seed=config.seed,
            out=config.l4_out,
        )
    from emurust._verify.level3 import level3_checks

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
        from emurust._verify.level1 import modes_for

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
    from emurust._verify import level3

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


# ---------------------------------------------------------------------------------------
# report.md


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _divergence_md(div: dict[str, Any]) -> list[str]:
    lines = [f"- frame {div.get('frame')}, PC {int(div.get('pc', 0)):#06x}"]
    regs = div.get("registers") or {}
    ours, theirs = regs.get("emurust") or {}, regs.get("pyboy") or {}
    names = [k for k in ours if k in theirs] or list(ours)
    if names:
        lines += ["", "| register | emurust | PyBoy |", "| --- | --- | --- |"]
        for k in names:
            a, b = ours.get(k), theirs.get(k)
            mark = " **≠**" if a != b else ""
            fa = f"{a:#x}" if isinstance(a, int) else str(a)
            fb = f"{b:#x}" if isinstance(b, int) else str(b)
            lines.append(f"| {k}{mark} | {fa} | {fb} |")
    diffs = div.get("diffs") or []
    if diffs:
        lines += ["", f"Differences ({len(diffs)}, first 16):", ""]
        lines += ["| region | address | emurust | PyBoy |", "| --- | --- | --- | --- |"]
        for d in diffs[:16]:
            lines.append(
                f"| {_cell(d.get('region'))} | {_cell(fmt_addr(d.get('addr')))} | "
                f"{d.get('emurust')} | {d.get('pyboy')} |"
            )
    trace = div.get("trace") or []
    if trace:
        lines += ["", f"Last {len(trace)} instructions executed by emurust:", "", "```"]
        lines += [str(t) for t in trace]
        lines.append("```")
    return lines


def render_markdown(report: Report) -> str:
    """``report.md``: the human view of :meth:`Report.to_dict`."""
    s = report.summary()
    out = [
        "# emurust verify report",
        "",
        f"- emurust {report.emurust_version}, PyBoy {report.pyboy_version or 'not installed'}",
        f"- created {report.created}, {report.seconds:.1f} s",
        f"- command: `{' '.join(['emurust', 'verify', *report.argv]).strip()}`",
        f"- levels: {', '.join(map(str, report.levels))}",
        "",
        f"**{'PASS' if report.ok else 'FAIL'}**: {s['passed']} passed, {s['failed']} failed, "
        f"{s['skipped']} skipped, {s['allowlisted']} allowlisted; "
        f"{s['frames_compared']} frames compared with PyBoy in lockstep.",
        "",
        "## Counts per level",
        "",
        "| level | what | pass | fail | skip | allowlisted |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    what = {
        1: "properties (ALU vs reference model, memory map, state)",
        2: "interactions (joypad, timer, DMA, MBC, serial, LCD)",
        3: "rollouts in lockstep with PyBoy",
        4: "policy transfer across backends (TOST)",
    }
    for level in report.levels:
        counts = " | ".join(str(report.count(st, level)) for st in STATUSES)
        out.append(f"| L{level} | {what[level]} | {counts} |")
    failures = [r for r in report.results if r.status == "fail"]
    if failures:
        out += ["", "## Failures (first divergence / counterexample)", ""]
        for r in failures:
            out += [f"### L{r.level} `{r.name}` (module under suspicion: {r.module})", ""]
            if r.rom:
                out.append(f"ROM: `{r.rom}`")
                out.append("")
            out.append(r.detail)
            if r.counterexample:
                out += ["", f"Counterexample: `{r.counterexample}`"]
            if r.divergence:
                out += ["", *_divergence_md(r.divergence)]
            out.append("")
    out += ["", "## Allowlist", ""]
    if report.allowlist:
        out += ["| name | masks | proof (hardware test ROM) |", "| --- | --- | --- |"]
        out += [
            f"| {_cell(a['name'])} | {_cell(a['masks'])} | {_cell(a['proof'])} |"
            for a in report.allowlist
        ]
    else:
        out.append("(no allowlist entries" + (")" if 3 in report.levels else "; level 3 not run)"))
    used = sorted({r.name for r in report.results if r.status == "allowlisted"})
    if used:
        out += ["", f"Checks that passed only thanks to allowlist entries: {', '.join(used)}"]
    out += [
        "",
        "## All checks",
        "",
        "| level | check | status | module | frames | detail |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for r in report.results:
        out.append(
            f"| L{r.level} | `{r.name}` | {r.status} | {r.module} | "
            f"{'' if r.frames is None else r.frames} | {_cell(r.detail)} |"
        )
    return "\n".join(out) + "\n"


def write_report(report: Report, directory: str | os.PathLike[str]) -> tuple[Path, Path]:
    """Writes ``report.json`` and ``report.md`` into ``directory`` (created if needed)."""
    path = Path(directory)
    path.mkdir(parents=True, exist_ok=True)
    json_path, md_path = path / "report.json", path / "report.md"
    json_path.write_text(json.dumps(report.to_dict(), indent=2) + "\n", encoding="utf-8")
    md_path.write_text(render_markdown(report), encoding="utf-8")
    return json_path, md_path


def print_summary(report: Report, file: Any = None) -> None:
    """A few lines for the terminal: counts per level and the failures."""
    out = file or sys.stdout
    for level in report.levels:
        counts = ", ".join(f"{report.count(st, level)} {st}" for st in STATUSES)
        print(f"L{level}: {counts}", file=out)
    for r in report.results:
        if r.status == "fail":
            why = r.counterexample or r.detail
            print(f"  FAIL L{r.level} {r.name} [{r.module}]: {why[:200]}", file=out)
    s = report.summary()
    print(
        f"{'PASS' if report.ok else 'FAIL'}: {s['passed']} passed, {s['failed']} failed, "
        f"{s['skipped']} skipped, {s['allowlisted']} allowlisted, "
        f"{s['frames_compared']} frames compared ({report.seconds:.1f} s)",
        file=out,
    )
