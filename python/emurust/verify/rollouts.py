"""Level 3: seeded random-input rollouts in lockstep with PyBoy (:mod:`emurust.verify.lockstep`).

For every target ROM: one long rollout (RAM and screen compared at every frame) and many
short rollouts with different seeds, summarised as frames until the first divergence
(min / median / max). A divergence is a failure and is reported with its first
difference and the instruction trace; deviations the harness allowlists (PyBoy wrong on
hardware, each backed by a hardware test ROM) are counted as ``allowlisted``.

The long rollout resynchronizes (``run_lockstep(..., resync=True)``): after a divergence
that a terminal allowlist entry proves to be PyBoy's (a deviation that changes the program
flow, so that no mask can keep the two in step), or after an unexplained one, PyBoy's state
at the frame end where the two stand is loaded into emurust (``GameBoy.load_pyboy_state``)
and the comparison goes on. It reports the frames compared, the resyncs and every
divergence classified: a proven PyBoy deviation (named) or a failure.
"""

from __future__ import annotations

import functools
import importlib
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from emurust.verify.result import Result, Status, fmt_addr

# Default targets (relative to the test-ROM folder) besides the generated activity ROM.
DEFAULT_TARGETS = (
    ("2048", "homebrew/2048/2048.gb"),
    ("tobutobugirl", "homebrew/tobutobugirl/tobu.gb"),
    ("libbet", "homebrew/libbet/libbet.gb"),
    ("pandoras_blocks", "homebrew/pandoras-blocks/PandorasBlocks.gbc"),
    ("ucity", "homebrew/ucity/ucity.gbc"),
    ("dmg_acid2", "acid2/dmg-acid2.gb"),
    ("blargg_cpu_instrs_01", "blargg/cpu_instrs/individual/01-special.gb"),
)


@dataclass(frozen=True)
class Target:
    label: str
    rom: bytes | str  # bytes for generated ROMs, a path otherwise
    shown: str  # what the report shows as "rom"


def _module(diffs: Sequence[dict[str, Any]]) -> str:
    """The emurust module most likely at fault, from the first differing region."""
    if not diffs:
        return "cpu"
    region = str(diffs[0].get("region", "")).lower()
    raw = diffs[0].get("addr", 0)
    addr = raw if isinstance(raw, int) else -1
    if any(k in region for k in ("screen", "vram", "oam", "ppu", "lcd")):
        return "ppu"
    if "reg" in region or "cpu" in region:
        return "cpu"
    if "io" in region or 0xFF00 <= addr < 0xFF80:
        if 0xFF04 <= addr <= 0xFF07:
            return "timer"
        if 0xFF10 <= addr <= 0xFF3F:
            return "apu"
        if 0xFF40 <= addr <= 0xFF4B:
            return "ppu"
        if addr in (0xFF01, 0xFF02):
            return "serial"
        if addr == 0xFF00:
            return "joypad"
        return "bus"
    if 0xA000 <= addr < 0xC000 or "cart" in region:
        return "cartridge"
    return "cpu"


def import_lockstep() -> Any:
    """emurust.verify.lockstep, or raises ImportError with the reason."""
    return importlib.import_module("emurust.verify.lockstep")


def pyboy_version() -> str | None:
    from emurust._pyboy_adapter import pyboy_version as version

    return version()


def allowlist_entries() -> list[dict[str, str]]:
    """The harness's allowlist as report entries (name, masks, proof)."""
    try:
        lockstep = import_lockstep()
    except ImportError:
        return []
    return [
        {"name": e.name, "masks": e.masks, "proof": e.evidence} for e in lockstep.DEFAULT_ALLOWLIST
    ]


def _lockstep(
    target: Target, frames: int, seed: int, fault: str | None, resync: bool = False
) -> Any:
    lockstep = import_lockstep()
    kwargs: dict[str, Any] = {"frames": frames, "seed": seed}
    if resync:
        kwargs["resync"] = True
    if fault is not None:
        kwargs["fault"] = fault
    return lockstep.run_lockstep(target.rom, **kwargs)


def _status(result: Any) -> Status:
    if result.divergence is not None:
        return "fail"
    return "allowlisted" if result.allowlisted else "pass"


def check_long(target: Target, frames: int, seed: int, fault: str | None) -> Result:
    t0 = time.perf_counter()
    res = _lockstep(target, frames, seed, fault, resync=True)
    div = None if res.divergence is None else res.divergence.to_dict()
    status = _status(res)
    proven = [r for r in res.resyncs if r.kind == "pyboy-deviation"]
    what = (
        f"{target.label}: {frames}-frame rollout, seeded random input (seed {seed}), RAM and "
        f"screen compared with PyBoy every frame; {res.frames_compared} frames compared, "
        f"{len(res.resyncs)} resyncs ({len(proven)} after a proven PyBoy deviation, "
        f"{len(res.failures)} after a failure)"
    )
    if proven:
        names = sorted({r.name for r in proven})
        what += "; proven PyBoy deviations: " + ", ".join(
            f"{n} x{sum(r.name == n for r in proven)}" for n in names
        )
    if fault:
        what += f"; fault {fault!r} injected"
    if div is not None:
        first = div["diffs"][0] if div.get("diffs") else {}
        what += f"; first divergence at frame {div['frame']}, PC {div['pc']:#06x}" + (
            f", {first.get('region')} {fmt_addr(first.get('addr'))}: emurust "
            f"{first.get('emurust')} vs PyBoy {first.get('pyboy')}"
            if first
            else ""
        )
    stop = res.stop_text()
    if stop:
        what += f"; {stop}"
    if res.allowlisted:
        what += f"; allowlisted: {', '.join(sorted(set(res.allowlisted)))[:300]}"
    return Result(
        3,
        f"rollout.{target.label}.seed{seed}",
        status,
        _module(div["diffs"]) if div else "gameboy",
        what,
        rom=target.shown,
        frames=res.frames_compared,
        divergence=div,
        stats={
            "allowlisted": sorted(set(res.allowlisted)),
            "resyncs": [r.to_dict() for r in res.resyncs],
            "failures": [d.to_dict() for d in res.failures],
        },
        seconds=time.perf_counter() - t0,
    )


def check_short(target: Target, frames: int, seeds: Sequence[int], fault: str | None) -> Result:
    """Many short rollouts: frames until the first divergence (``frames`` if none)."""
    t0 = time.perf_counter()
    until: list[int] = []
    compared = 0
    first_div: dict[str, Any] | None = None
    allow: set[str] = set()
    diverged = 0
    stopped: list[str] = []
    for seed in seeds:
        res = _lockstep(target, frames, seed, fault)
        compared += res.frames_compared
        allow.update(res.allowlisted)
        if res.stopped is not None:
            # A proven PyBoy deviation ended the comparison: in step up to there.
            stopped.append(f"seed {seed}: frame {res.stopped[0]} ({res.stopped[1]})")
            until.append(res.stopped[0])
        elif res.divergence is None:
            until.append(frames)
        else:
            diverged += 1
            d = res.divergence.to_dict()
            until.append(int(d["frame"]))
            if first_div is None or d["frame"] < first_div["frame"]:
                first_div = d
    stats = {
        "rollouts": len(seeds),
        "frames_each": frames,
        "diverged": diverged,
        "frames_in_step": {
            "min": min(until),
            "median": statistics.median(until),
            "max": max(until),
        },
        "allowlisted": sorted(allow),
        "stopped": stopped,
    }
    status: Status = "fail" if diverged else ("allowlisted" if allow else "pass")
    what = (
        f"{target.label}: {len(seeds)} rollouts of {frames} frames (seeds {seeds[0]}.."
        f"{seeds[-1]}), {diverged} diverged; frames in step (until the first divergence "
        f"or a proven PyBoy deviation) min {min(until)} / median "
        f"{statistics.median(until):g} / max {max(until)} ({frames} = whole rollout)"
    )
    if stopped:
        what += f"; {len(stopped)} stopped at a proven PyBoy deviation: {'; '.join(stopped)[:300]}"
    if fault:
        what += f"; fault {fault!r} injected"
    return Result(
        3,
        f"rollouts.{target.label}.stats",
        status,
        _module(first_div["diffs"]) if first_div else "gameboy",
        what,
        rom=target.shown,
        frames=compared,
        divergence=first_div,
        stats=stats,
        seconds=time.perf_counter() - t0,
    )


def targets(roms_dir: Path | None, paths: Sequence[str]) -> list[Target]:
    """The ROMs to roll out: ``paths`` if given, else the generated activity ROM and the
    default shared ROMs that are present."""
    if paths:
        return [Target(Path(p).stem, str(p), str(p)) for p in paths]
    from emurust.verify.programs import activity_rom

    out = [Target("activity", activity_rom(), "generated: activity ROM (emurust.verify.programs)")]
    if roms_dir is not None:
        for label, rel in DEFAULT_TARGETS:
            path = roms_dir / rel
            if path.is_file():
                out.append(Target(label, str(path), rel))
    return out


def rollout_checks(
    *,
    roms_dir: Path | None,
    paths: Sequence[str],
    frames: int,
    short_frames: int,
    short_runs: int,
    seed: int,
    fault: str | None,
) -> list[tuple[str, Callable[[], Result]]]:
    chosen = targets(roms_dir, paths)
    try:
        import_lockstep()
    except ImportError as exc:
        reason = f"emurust.verify.lockstep is not available ({exc})"
        return [(t.label, functools.partial(_skip, t, reason)) for t in chosen]
    if pyboy_version() is None:
        reason = "PyBoy is not installed (pip install pyboy==2.8.1, the test extra)"
        return [(t.label, functools.partial(_skip, t, reason)) for t in chosen]
    checks: list[tuple[str, Callable[[], Result]]] = []
    seeds = [seed + 1 + k for k in range(short_runs)]
    for t in chosen:
        checks.append((f"rollout.{t.label}", functools.partial(check_long, t, frames, seed, fault)))
        if short_runs > 0:
            checks.append(
                (
                    f"rollouts.{t.label}",
                    functools.partial(check_short, t, short_frames, seeds, fault),
                )
            )
    return checks


def _skip(target: Target, reason: str) -> Result:
    return Result(3, f"rollout.{target.label}", "skip", "gameboy", reason, rom=target.shown)
