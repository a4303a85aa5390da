"""The conformance runner's command line (:func:`main`: ``emurust conformance``,
``python -m emurust.conformance``) and :func:`run_all`."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import emurust
from emurust._pyboy_adapter import pyboy_version
from emurust.conformance.known_failures import KNOWN_CGB_FAILURES, KNOWN_FAILURES
from emurust.conformance.output import Progress, Row, count, report
from emurust.conformance.probes import emurust_probe, pyboy_available, pyboy_probe, run_one
from emurust.conformance.suites import SUITES, RomSpec, catalogue


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m emurust.conformance",
        description="Run the conformance test ROMs on emurust (and PyBoy) and print a table.",
    )
    p.add_argument(
        "--suite",
        action="append",
        metavar="NAME",
        help=f"only this suite ({', '.join(SUITES)}) or ROM path prefix "
        "(e.g. mooneye/acceptance/timer); repeatable",
    )
    p.add_argument(
        "--skip-suite",
        action="append",
        default=[],
        metavar="NAME",
        help="leave out this suite; repeatable (scripts/main.sh runs gambatte's 872 ROMs on "
        "their own, emurust only: PyBoy takes seconds per ROM there)",
    )
    p.add_argument(
        "--rom",
        action="append",
        metavar="PATH",
        help="run this ROM (a path, or relative to the ROM folder); repeatable",
    )
    p.add_argument(
        "--pyboy",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also run PyBoy (default: when it is importable)",
    )
    p.add_argument("--json", metavar="PATH", help="write the results as JSON")
    p.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 when emurust fails a ROM that is not a known failure",
    )
    p.add_argument("--frames", type=int, metavar="N", help="override every frame budget")
    p.add_argument("--roms", metavar="DIR", help="the ROM folder (default: emurust.roms_dir())")
    return p.parse_args(argv)


def _selected(args: argparse.Namespace, roms: Path) -> tuple[list[RomSpec], list[str]]:
    specs, notes = catalogue(roms)
    if args.rom:
        by_path = {(roms / s.rel).resolve(): s for s in specs}
        chosen: list[RomSpec] = []
        for given in args.rom:
            path = Path(given)
            if not path.is_file() and (roms / given).is_file():
                path = roms / given
            if not path.is_file():
                notes.append(f"--rom {given}: not found, skipped")
                continue
            spec = by_path.get(path.resolve())
            if spec is None:  # not a catalogued ROM: check both rules
                spec = RomSpec("other", str(path), "auto", 3000)
            chosen.append(spec)
        specs = chosen
    if args.rom:
        notes = [n for n in notes if n.startswith("--rom")]
    if args.suite:
        wanted = [w.strip("/") for w in args.suite]
        notes = [n for n in notes if any(n.split(":", 1)[0] == w.split("/")[0] for w in wanted)]
        specs = [
            s
            for s in specs
            if any(s.suite == w or s.rel.startswith(w + "/") or s.rel == w for w in wanted)
        ]
    if args.skip_suite:
        skipped = set(args.skip_suite)
        notes = [n for n in notes if n.split(":", 1)[0] not in skipped]
        specs = [s for s in specs if s.suite not in skipped]
    if args.frames is not None:
        specs = [
            RomSpec(
                s.suite,
                s.rel,
                s.protocol,
                max(1, args.frames),
                s.dmg_checksum,
                s.reference,
                s.model,
            )
            for s in specs
        ]
    return specs, notes


def _path(roms: Path, spec: RomSpec) -> Path:
    path = Path(spec.rel)
    return path if path.is_absolute() or spec.suite == "other" else roms / spec.rel


def run_all(
    specs: Sequence[RomSpec], roms: Path, with_pyboy: bool, progress: bool = True
) -> list[Row]:
    """Runs every ROM on emurust (and PyBoy) and returns one :class:`Row` each."""
    bar = Progress(len(specs) * (2 if with_pyboy else 1)) if progress else None
    rows: list[Row] = []
    try:
        for spec in specs:
            path = _path(roms, spec)
            emu = run_one(functools.partial(emurust_probe, path, spec.model), spec)
            if bar:
                bar.update(f"emurust {spec.rel}")
            pyb = None
            if with_pyboy:
                pyb = run_one(functools.partial(pyboy_probe, path, spec.model), spec)
                if bar:
                    bar.update(f"PyBoy {spec.rel}")
            known = (KNOWN_CGB_FAILURES if spec.model == "cgb" else KNOWN_FAILURES).get(spec.rel)
            rows.append(Row(spec, emu, pyb, known))
    finally:
        if bar:
            bar.close()
    return rows


def unexpected_failures(rows: Sequence[Row]) -> list[Row]:
    """The rows emurust fails that are not known failures of their model's list
    (:data:`KNOWN_FAILURES`, or :data:`KNOWN_CGB_FAILURES` for the CGB column)."""
    return [r for r in rows if not r.emurust.passed and r.known_failure is None]


def _json(
    rows: Sequence[Row], roms: Path, with_pyboy: bool, notes: Sequence[str]
) -> dict[str, Any]:
    e_pass, n = count(rows, False)
    totals: dict[str, Any] = {"roms": n, "emurust_passed": e_pass}
    if with_pyboy:
        totals["pyboy_passed"] = count(rows, True)[0]
    return {
        "roms_dir": str(roms),
        "emurust_version": emurust.__version__,
        "pyboy_version": pyboy_version() if with_pyboy else None,
        "notes": list(notes),
        "totals": totals,
        "results": [
            {
                **asdict(r.spec),
                "known_failure": r.known_failure,
                "emurust": asdict(r.emurust),
                "pyboy": asdict(r.pyboy) if r.pyboy else None,
            }
            for r in rows
        ],
    }


def _usage_error(args: argparse.Namespace, roms: Path) -> str | None:
    """What is wrong with ``--rom`` or ``--suite`` (a ROM that does not exist, a suite name
    that selects nothing), or None."""
    for given in args.rom or []:
        if not Path(given).is_file() and not (roms / given).is_file():
            return f"--rom {given}: no such ROM file (a path, or a path relative to {roms})"
    if args.suite and roms.is_dir():
        specs, _ = catalogue(roms)
        for w in (w.strip("/") for w in args.suite):
            known = w.split("/")[0] in SUITES
            if w in SUITES or (
                known and any(s.rel.startswith(w + "/") or s.rel == w for s in specs)
            ):
                continue
            return (
                f"--suite {w}: "
                + ("no ROM of that suite has this path prefix" if known else "not a suite")
                + f" (suites: {', '.join(SUITES)}; or a ROM path prefix such as "
                "mooneye/acceptance/timer)"
            )
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit status: 2 for a ``--rom`` that does not exist or a
    ``--suite`` that names nothing, 1 with ``--strict`` and an unexpected emurust failure
    (or nothing to run), else 0."""
    args = _parse(argv)
    roms = Path(args.roms) if args.roms else emurust.roms_dir()
    problem = _usage_error(args, roms)
    if problem is not None:
        print(f"emurust conformance: {problem}", file=sys.stderr)
        return 2
    if not roms.is_dir() and not args.rom:
        print(f"test ROM folder {roms} not found (set EMURUST_ROMS); nothing to run")
        return 1 if args.strict else 0
    with_pyboy = pyboy_available() if args.pyboy is None else bool(args.pyboy)
    if with_pyboy and not pyboy_available():
        print("PyBoy is not importable (pip install pyboy); running emurust only")
        with_pyboy = False
    specs, notes = _selected(args, roms)
    print(f"emurust {emurust.__version__} conformance run; ROMs from {roms}")
    if with_pyboy:
        print(f"PyBoy {pyboy_version()} side by side (same ROMs, same rules)")
    for note in notes:
        print(f"note: {note}")
    if not specs:
        print("no ROMs selected")
        return 1 if args.strict else 0

    rows = run_all(specs, roms, with_pyboy)
    report(rows, with_pyboy, sys.stdout)
    if args.json:
        out = Path(args.json)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(_json(rows, roms, with_pyboy, notes), indent=2) + "\n")
        print(f"\nresults written to {out}")

    unexpected = unexpected_failures(rows)
    if args.strict and unexpected:
        print(f"\n--strict: {len(unexpected)} unexpected emurust failure(s)", file=sys.stderr)
        return 1
    return 0
