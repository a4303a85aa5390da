"""The conformance runner's output: one :class:`Row` per ROM, the progress bar and
:func:`report`, one table per suite with the totals and footnotes."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from emurust._pyboy_adapter import pyboy_version
from emurust.conformance.rules import Verdict
from emurust.conformance.suites import DMG_CHECKSUM_INTERRUPT_TIME, SUITES, RomSpec


class Progress:
    """tqdm when installed, else a one-line counter on stderr (when it is a terminal)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.bar: Any = None
        self.tty = sys.stderr.isatty()
        try:
            tqdm = importlib.import_module("tqdm")
        except ImportError:
            return
        self.bar = tqdm.tqdm(total=total, unit="run", dynamic_ncols=True, disable=None)

    def update(self, what: str) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.set_postfix_str(what[-40:], refresh=False)
            self.bar.update(1)
        elif self.tty:
            sys.stderr.write(f"\r\x1b[K[{self.done}/{self.total}] {what[-60:]}")
            sys.stderr.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.tty and self.total:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


@dataclass
class Row:
    spec: RomSpec
    emurust: Verdict
    pyboy: Verdict | None = None
    known_failure: str | None = field(default=None)


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: set[int]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        parts = [
            c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))
        ]
        return ("| " + " | ".join(parts) + " |").rstrip()

    sep = (
        "|"
        + "|".join(
            ("-" * (w + 1) + ":") if i in right else "-" * (w + 2) for i, w in enumerate(widths)
        )
        + "|"
    )
    return [line(headers), sep, *(line(r) for r in rows)]


def count(rows: Sequence[Row], pyboy: bool) -> tuple[int, int]:
    verdicts = [r.pyboy if pyboy else r.emurust for r in rows]
    return sum(1 for v in verdicts if v is not None and v.passed), len(rows)


def _by_folder(rows: Sequence[Row], with_pyboy: bool, out: TextIO) -> None:
    """Passes per test folder (the gambatte suite's folders are its topics)."""
    folders: dict[str, list[Row]] = {}
    for r in rows:
        parts = r.spec.rel.split("/")
        folders.setdefault(parts[1] if len(parts) > 2 else parts[0], []).append(r)
    headers = ["folder", "ROMs", "emurust"] + (["PyBoy"] if with_pyboy else [])
    cells = []
    for name in sorted(folders, key=str.lower):
        frows = folders[name]
        row = [name, str(len(frows)), str(count(frows, False)[0])]
        if with_pyboy:
            row.append(str(count(frows, True)[0]))
        cells.append(row)
    print("", file=out)
    for text in _table(headers, cells, right={1, 2, 3}):
        print(text, file=out)


def report(rows: Sequence[Row], with_pyboy: bool, out: TextIO) -> None:
    """Prints one table per suite, then the totals and footnotes."""
    marks = {"known": "*", "dmg": "\u2020"}
    for suite in SUITES:
        srows = [r for r in rows if r.spec.suite == suite]
        if not srows:
            continue
        headers = ["ROM", "emurust", "frames"] + (["PyBoy", "frames"] if with_pyboy else [])
        cells = []
        for r in srows:
            name = r.spec.rel.split("/", 1)[1] if "/" in r.spec.rel else r.spec.rel
            emu = r.emurust.label() + (f" {marks['known']}" if r.known_failure else "")
            row_cells = [name, emu, str(r.emurust.frames)]
            if with_pyboy:
                pv = r.pyboy or Verdict("n/a")
                row_cells += [pv.label(), str(pv.frames) if pv.status != "n/a" else ""]
            cells.append(row_cells)
        print(f"\n## {suite}\n", file=out)
        for text in _table(headers, cells, right={2, 4}):
            print(text, file=out)
        e_pass, n = count(srows, False)
        total = f"\n{suite}: emurust {e_pass}/{n}"
        if with_pyboy:
            p_pass, _ = count(srows, True)
            total += f", PyBoy {p_pass}/{n}"
        print(total, file=out)
        if suite in ("gambatte", "gambatte-cgb"):
            _by_folder(srows, with_pyboy, out)

    e_pass, n = count(rows, False)
    known = sum(1 for r in rows if r.known_failure and not r.emurust.passed)
    line = f"\nTOTAL: emurust {e_pass}/{n}"
    if with_pyboy:
        p_pass, _ = count(rows, True)
        line += f", PyBoy {p_pass}/{n}"
    print(line, file=out)
    e_time = sum(r.emurust.seconds for r in rows)
    times = f"wall time: emurust {e_time:.1f} s"
    if with_pyboy:
        times += f", PyBoy {sum(r.pyboy.seconds for r in rows if r.pyboy):.1f} s"
    print(times, file=out)

    notes: list[str] = []
    for r in rows:
        if r.known_failure and not r.emurust.passed:
            notes.append(f"* {r.spec.rel}: known emurust failure: {r.known_failure}")
        elif r.known_failure:
            notes.append(f"* {r.spec.rel}: listed as a known failure but passes now")
    if known:
        notes.append(
            f"* {known} emurust failure(s) are known (KNOWN_FAILURES in emurust.conformance)."
        )
    bad = [
        r
        for r in rows
        if not r.emurust.passed and not (r.known_failure and r.emurust.status != "error")
    ]
    for r in bad:
        notes.append(f"! {r.spec.rel}: emurust {r.emurust.status}: {r.emurust.detail}")
    if any(r.emurust.dmg_result or (r.pyboy and r.pyboy.dmg_result) for r in rows):
        notes.append(
            "\u2020 interrupt_time is a CGB test (it measures double speed); real DMG hardware "
            f'prints "Failed" with checksum {DMG_CHECKSUM_INTERRUPT_TIME}. An output holding '
            'that checksum is counted as "pass (DMG result)".'
        )
    if with_pyboy:
        notes.append(
            f"PyBoy {pyboy_version()}: headless, cgb=False, its own boot ROM, run to its "
            "hand-over before frames are counted (emurust starts in the post-boot state). "
            "Serial text via PyBoy._serial() (bytes written to SB), drained every frame."
        )
    if notes:
        print("", file=out)
        for note in notes:
            print(note, file=out)
