"""The report of ``emurust verify``: :class:`Report` (``report.json``, its schema in
:data:`REPORT_SCHEMA`), :func:`render_markdown` (``report.md``), :func:`write_report` and
:func:`print_summary` (the terminal summary)."""

from __future__ import annotations

import datetime as _dt
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import emurust
from emurust.verify.result import STATUSES, Result, Status, fmt_addr

__all__ = ["REPORT_SCHEMA", "Report", "print_summary", "render_markdown", "write_report"]

REPORT_SCHEMA = (
    "tool, emurust_version, pyboy_version, created, argv, levels, verdict (PASS, FAIL, SKIP), "
    "summary{passed, failed, skipped, allowlisted, frames_compared}, "
    "results[{level, name, status, module, detail, rom, frames, divergence, counterexample}], "
    "allowlist[{name, masks, proof}]"
)


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
        """No check failed (see :attr:`verdict`: it may still be that none ran)."""
        return self.count("fail") == 0

    @property
    def verdict(self) -> str:
        """``FAIL`` when a check failed; ``SKIP`` when none failed and none passed (every
        check skipped, or none selected): nothing was verified; else ``PASS``."""
        if not self.ok:
            return "FAIL"
        if self.count("pass") + self.count("allowlisted") == 0:
            return "SKIP"
        return "PASS"

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
            "verdict": self.verdict,
            "summary": self.summary(),
            "results": [r.to_dict() for r in self.results],
            "allowlist": list(self.allowlist),
            "seconds": round(self.seconds, 2),
        }


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
        f"**{report.verdict}**: {s['passed']} passed, {s['failed']} failed, "
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
        f"{report.verdict}: {s['passed']} passed, {s['failed']} failed, "
        f"{s['skipped']} skipped, {s['allowlisted']} allowlisted, "
        f"{s['frames_compared']} frames compared ({report.seconds:.1f} s)",
        file=out,
    )
