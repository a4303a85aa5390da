"""The rules that judge a conformance ROM, shared by both emulators: :func:`run_rules` over a
:class:`Probe` of callables gives a :class:`Verdict` (Mooneye registers, Blargg text, a
screenshot against a reference image, gbmicrotest's result byte, gambatte's digits and
sound), so a difference in verdict is a difference in emulation."""

from __future__ import annotations

import importlib
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from emurust.conformance.suites import (
    BLARGG_POLL,
    FRAME_CYCLES,
    GAMBATTE_FONT,
    MOONEYE_FAIL,
    MOONEYE_FIB,
    RomSpec,
)


def reference_shades(path: Path) -> Any:
    """A reference screenshot as a (144, 160) array of shades 0..3 (0 = white): each pixel's
    grey level (RGB averaged) mapped to the nearest of FF, AA, 55, 00."""
    import numpy as np

    image = importlib.import_module("PIL.Image")
    with image.open(path) as im:
        grey = np.asarray(im.convert("RGB"), dtype=np.int32).mean(axis=2)
    levels = np.array([0xFF, 0xAA, 0x55, 0x00])
    return np.abs(grey[..., None] - levels).argmin(axis=2).astype(np.uint8)


@dataclass
class Probe:
    """What the rules need from an emulator: run frames, read B,C,D,E,H,L, peek a byte and
    read the serial output so far. ``close`` releases the emulator."""

    step: Callable[[int], None]
    registers: Callable[[], Sequence[int]]
    peek: Callable[[int], int]
    serial: Callable[[], bytes]
    close: Callable[[], None] = lambda: None
    #: Run ``n`` frames and return the last frame's screen as (144, 160) shades 0..3.
    screenshot: Callable[[int], Any] | None = None
    #: Run whole frames, drawing them, until more than ``cycles`` T-cycles have passed; return
    #: the frames run, the last frame's shades and (with ``sound``) its sound samples.
    run_cycles: Callable[[int, bool], tuple[int, Any, Any]] | None = None


@dataclass
class Verdict:
    """One emulator's result on one ROM.

    ``status``: ``pass``, ``fail``, ``timeout``, ``error`` (the emulator could not run the
    ROM) or ``n/a`` (not run). ``frames``: frames run when the verdict was read (the time to
    verdict; the whole budget for a timeout). ``dmg_result``: passed by matching the DMG
    hardware's own (failing) output, see
    :data:`~emurust.conformance.suites.DMG_CHECKSUM_INTERRUPT_TIME`.
    """

    status: str
    frames: int = 0
    seconds: float = 0.0
    detail: str = ""
    dmg_result: bool = False

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    def label(self) -> str:
        return "pass (DMG result)\u2020" if self.dmg_result else self.status


def mooneye_verdict(registers: Sequence[int]) -> bool | None:
    """Mooneye / SameSuite: B,C,D,E,H,L = 3,5,8,13,21,34 passed, all 0x42 failed, else
    not finished (None)."""
    regs = tuple(registers)
    if regs == MOONEYE_FIB:
        return True
    if regs == MOONEYE_FAIL:
        return False
    return None


def blargg_verdict(peek: Callable[[int], int], serial: bytes) -> tuple[bool, str] | None:
    """Blargg: (passed, text) from the serial text ("Passed" / "Failed") or from the $A000
    block (signature DE B0 61 at $A001, status at $A000 != 0x80, 0 = passed, text at $A004);
    None while the test runs."""
    text = serial.decode("latin-1")
    if "Passed" in text:
        return True, text
    if "Failed" in text:
        return False, text
    if (peek(0xA001), peek(0xA002), peek(0xA003)) == (0xDE, 0xB0, 0x61):
        status = peek(0xA000)
        if status != 0x80:
            out = bytearray()
            for addr in range(0xA004, 0xC000):
                byte = peek(addr)
                if byte == 0:
                    break
                out.append(byte)
            return status == 0, out.decode("latin-1")
    return None


def short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def run_rules(probe: Probe, spec: RomSpec) -> Verdict:
    """Runs ``probe`` under ``spec``'s rule for at most ``spec.budget`` frames.

    Mooneye registers are read after every frame; the Blargg text every 10 frames and at the
    end of the budget. ``auto`` checks both."""
    if spec.protocol == "screenshot":
        return _screenshot_rule(probe, spec)
    if spec.protocol in ("gambatte", "gambatte-cgb"):
        return _gambatte_rule(probe, spec)
    if spec.protocol == "gbmicrotest":
        start = time.perf_counter()
        probe.step(spec.budget)
        ff82 = probe.peek(0xFF82)
        detail = f"FF80..FF82 = {probe.peek(0xFF80):02X} {probe.peek(0xFF81):02X} {ff82:02X}"
        status = "pass" if ff82 == 0x01 else "fail"
        return Verdict(status, spec.budget, time.perf_counter() - start, detail)
    mooneye = spec.protocol in ("mooneye", "auto")
    blargg = spec.protocol in ("blargg", "auto")
    if not (mooneye or blargg):
        raise ValueError(f"unknown protocol {spec.protocol!r}")
    start = time.perf_counter()
    frames = 0
    chunk = 1 if mooneye else BLARGG_POLL
    while frames < spec.budget:
        n = min(chunk, spec.budget - frames)
        probe.step(n)
        frames += n
        if mooneye:
            ok = mooneye_verdict(probe.registers())
            if ok is not None:
                regs = " ".join(f"{r:02X}" for r in probe.registers())
                return Verdict(
                    "pass" if ok else "fail",
                    frames,
                    time.perf_counter() - start,
                    f"B C D E H L = {regs}",
                )
        if blargg and (frames % BLARGG_POLL == 0 or frames == spec.budget):
            result = blargg_verdict(probe.peek, probe.serial())
            if result is not None:
                ok, text = result
                dmg = not ok and spec.dmg_checksum is not None and spec.dmg_checksum in text
                return Verdict(
                    "pass" if ok or dmg else "fail",
                    frames,
                    time.perf_counter() - start,
                    short(text),
                    dmg_result=dmg,
                )
    regs = " ".join(f"{r:02X}" for r in probe.registers())
    serial = probe.serial().decode("latin-1")
    return Verdict(
        "timeout",
        frames,
        time.perf_counter() - start,
        short(f"no verdict after {frames} frames; B C D E H L = {regs}; serial {serial!r}"),
    )


def _screenshot_rule(probe: Probe, spec: RomSpec) -> Verdict:
    """The screen after ``spec.budget`` frames against ``spec.reference``: 0 differing pixels
    passes (the tests' pictures are static once they reach their ``LD B,B`` breakpoint)."""
    import numpy as np

    if probe.screenshot is None or spec.reference is None:
        return Verdict("n/a", 0, 0.0, "this emulator gives no screenshots")
    start = time.perf_counter()
    shades = np.asarray(probe.screenshot(spec.budget))
    expected = reference_shades(Path(spec.reference))
    diff = int((shades != expected).sum())
    detail = "pixel-exact" if diff == 0 else f"{diff} pixels differ"
    if diff:
        rows = np.nonzero((shades != expected).any(axis=1))[0]
        detail += f" (rows {rows.min()}..{rows.max()})"
    return Verdict(
        "pass" if diff == 0 else "fail", spec.budget, time.perf_counter() - start, detail
    )


def _out_expectation(stem: str, tag: str) -> tuple[str, str] | None:
    """What follows ``tag`` (``..._out``) in a gambatte test's file name: ``("hex", digits)``,
    ``("audio", "0" or "1")``, or None when the tag is absent or followed by neither."""
    at = stem.find(tag)
    if at < 0:
        return None
    rest = stem[at + len(tag) :]
    if rest.startswith(("audio0", "audio1")):
        return "audio", rest[5]
    digits = re.match(r"[0-9A-Fa-f]*", rest)
    if digits and digits.group(0):
        return "hex", digits.group(0).upper()
    return None


def gambatte_expectation(rel: str) -> tuple[str, str]:
    """What a gambatte test's file name says a DMG shows: ``("hex", digits)``,
    ``("audio", "0" or "1")`` or ``("blank", "")``. ValueError when it says nothing."""
    stem = Path(rel).stem
    for tag in ("_dmg08_cgb04c_out", "_dmg08_out"):
        if tag in stem:
            found = _out_expectation(stem, tag)
            if found is not None:
                return found
            break
    if stem.endswith("_dmg08_cgb_blank"):
        return "blank", ""
    raise ValueError(f"{rel}: no DMG expectation in the file name")


def gambatte_cgb_expectation(rel: str) -> tuple[str, str]:
    """What a gambatte test's file name says a CGB shows (``_cgb04c_out<HEX>`` or
    ``_cgb04c_outaudio0/1``): ``("hex", digits)`` or ``("audio", "0" or "1")``. ValueError
    when it says nothing."""
    found = _out_expectation(Path(rel).stem, "_cgb04c_out")
    if found is None:
        raise ValueError(f"{rel}: no CGB expectation in the file name")
    return found


def cgb_cells(rgb: Any) -> Any:
    """A CGB screen (144, 160, 3) in PyBoy's colour conversion (``x << 3``) as the shades the
    digit rule reads: white (0xF8F8F8) as 0, black as 3, anything else as 1 (which no digit
    cell holds). The tests draw dark digits on a light background in a palette of their own."""
    import numpy as np

    screen = np.asarray(rgb)[..., :3]
    shades = np.ones(screen.shape[:2], dtype=np.uint8)
    shades[(screen == 0xF8).all(axis=2)] = 0
    shades[(screen == 0).all(axis=2)] = 3
    return shades


def gambatte_cells(shades: Any, count: int) -> str:
    """The digits the first ``count`` 8x8 cells of the top row show in gambatte's font
    (``?`` for a cell that is not exactly one of them)."""
    import numpy as np

    screen = np.asarray(shades)
    out = []
    for cell in range(count):
        block = screen[0:8, cell * 8 : cell * 8 + 8]
        found = "?"
        for digit, rows in enumerate(GAMBATTE_FONT):
            want = np.array([[3 if row & (0x80 >> x) else 0 for x in range(8)] for row in rows])
            if block.shape == want.shape and (block == want).all():
                found = f"{digit:X}"
                break
        out.append(found)
    return "".join(out)


def gambatte_verdict(expect: tuple[str, str], shades: Any, sound: Any) -> tuple[bool, str]:
    """(passed, detail) of one gambatte test's last frame (see :func:`gambatte_expectation`)."""
    import numpy as np

    kind, value = expect
    if kind == "hex":
        shown = gambatte_cells(shades, len(value))
        return shown == value, f"shows {shown}, expected {value}"
    if kind == "audio":
        samples = np.asarray(sound).ravel()
        constant = samples.size == 0 or bool((samples == samples[0]).all())
        want_constant = value == "0"
        what = "constant" if constant else "changing"
        return constant == want_constant, f"last frame's sound {what}"
    lit = int((np.asarray(shades) != 0).sum())
    return lit == 0, "blank" if lit == 0 else f"{lit} pixels not blank"


def _gambatte_rule(probe: Probe, spec: RomSpec) -> Verdict:
    if probe.run_cycles is None:
        return Verdict("n/a", 0, 0.0, "this emulator cannot run by T-cycles")
    if spec.model == "cgb":
        expect = gambatte_cgb_expectation(spec.rel)
    else:
        expect = gambatte_expectation(spec.rel)
    start = time.perf_counter()
    frames, shades, sound = probe.run_cycles(spec.budget * FRAME_CYCLES, expect[0] == "audio")
    ok, detail = gambatte_verdict(expect, shades, sound)
    return Verdict("pass" if ok else "fail", frames, time.perf_counter() - start, detail)
