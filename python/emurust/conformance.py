"""Runs the conformance test ROMs on emurust (and on PyBoy, side by side) and prints a table.

Usage::

    python -m emurust.conformance                 # every suite present, emurust + PyBoy
    python -m emurust.conformance --no-pyboy      # emurust only
    python -m emurust.conformance --suite mooneye --json out.json
    python -m emurust.conformance --rom path/to/test.gb --frames 600
    python -m emurust.conformance --strict        # exit 1 on an unexpected emurust failure

Suites (DMG only; ROMs missing from ``emurust.roms_dir()`` are skipped with a note):

* ``blargg``: cpu_instrs (combined + 11 singles), instr_timing, mem_timing (+3 singles),
  mem_timing-2 (+3 singles), halt_bug, interrupt_time. Verdict from the serial text
  ("Passed" / "Failed") or the $A000 block (signature DE B0 61 at $A001, status at $A000
  other than 0x80, 0 = passed, text at $A004), polled every 10 frames.
* ``mooneye``: every ROM under ``mooneye/acceptance`` and ``mooneye/emulator-only/{mbc1,mbc2,mbc5}``
  meant for a DMG (unsuffixed, ``-G``, ``-GS``, ``-dmgABC``, ``-dmgABCmgb``). Verdict after
  every frame: B,C,D,E,H,L = 3,5,8,13,21,34 passes, all 0x42 fails; 1200 frames, else timeout.
* ``samesuite``: ``interrupt/ei_delay_halt.gb`` and the two DMG ``apu/channel_3`` ROMs
  (Mooneye rule).
* ``sound``: Blargg dmg_sound (combined + 12 singles), $A000 rule.
* ``oam_bug``: Blargg oam_bug (combined + 8 singles), $A000 rule.
* ``acid2``: dmg-acid2, screenshot rule: the screen after ``budget`` frames must equal the DMG
  reference image pixel for pixel (shades). emurust renders only the last frame
  (``tick(budget, render=True)``); PyBoy renders every frame, its best case (its window
  rendering depends on earlier frames having been rendered).
* ``mealybug``: mealybug-tearoom-tests with a DMG-blob expected image, screenshot rule.
* ``gbmicrotest``: every ROM in ``gbmicrotest/bin/``; passes iff 0xFF82 == 0x01 after 30 frames
  (its README: 0x01 pass, 0xFF fail; HOWTO-c-sp: check only 0xFF82).
* ``gambatte``: gambatte's hardware tests with a DMG expectation (``gambatte-hwtests/``, see its
  README), read as gambatte's own runner reads them: whole frames are run until more than
  1,053,360 T-cycles (15 x 70,224) have passed, then the last frame is judged. Hex tests
  (``_dmg08_out<HEX>``, ``_dmg08_cgb04c_out<HEX>``): the 8x8 cells at the top left of the screen
  show the digits in gambatte's test font (dark on light, exactly); ``_outaudio0``/``1``: the
  last frame's sound is constant / not; ``_dmg08_cgb_blank``: an all-light screen. PyBoy runs
  16 frames after its boot ROM hands over. Known failures come from
  ``emurust/data/gambatte_failures.tsv`` (shared with ``tests/gambatte.rs``).
* ``gambatte-cgb``: the same ROMs' CGB column (``_cgb04c_out<HEX>``, ``_cgb04c_outaudio0/1``),
  run on a CGB (emurust ``model="cgb"``, PyBoy ``cgb=True``), the screen read in PyBoy's colour
  conversion: white as light, black as dark (:func:`cgb_cells`). Known failures come from
  ``emurust/data/gambatte_cgb_failures.tsv``.

Both emulators are judged by the same functions (:func:`run_rules`, over a :class:`Probe`
of callables), so a difference in verdict is a difference in emulation.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import importlib.metadata
import json
import os
import re
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, TextIO

import emurust
from emurust import _core
from emurust._pyboy_adapter import import_pyboy, pyboy_version

__all__ = [
    "BLARGG_ROMS",
    "DMG_CHECKSUM_INTERRUPT_TIME",
    "KNOWN_FAILURES",
    "MOONEYE_FIB",
    "Probe",
    "RomSpec",
    "Verdict",
    "blargg_verdict",
    "catalogue",
    "emurust_probe",
    "gambatte_cells",
    "gambatte_expectation",
    "gambatte_known_failures",
    "gambatte_verdict",
    "is_dmg_mooneye_rom",
    "main",
    "mooneye_verdict",
    "pyboy_available",
    "pyboy_probe",
    "run_rules",
    "unexpected_failures",
]

# --------------------------------------------------------------------------------------------
# What to run

MOONEYE_FIB = (3, 5, 8, 13, 21, 34)
MOONEYE_FAIL = (0x42,) * 6
MOONEYE_BUDGET = 1200
BLARGG_POLL = 10
DMG_CHECKSUM_INTERRUPT_TIME = "7F8F4AAF"

# Blargg ROMs (path under the ROM folder, frame budget, expected DMG checksum or None).
# interrupt_time measures CGB double speed; a DMG prints "Failed" with checksum 7F8F4AAF.
BLARGG_ROMS: tuple[tuple[str, int, str | None], ...] = (
    ("blargg/cpu_instrs/cpu_instrs.gb", 6000, None),
    *(
        (f"blargg/cpu_instrs/individual/{name}.gb", 3000, None)
        for name in (
            "01-special",
            "02-interrupts",
            "03-op sp,hl",
            "04-op r,imm",
            "05-op rp",
            "06-ld r,r",
            "07-jr,jp,call,ret,rst",
            "08-misc instrs",
            "09-op r,r",
            "10-bit ops",
            "11-op a,(hl)",
        )
    ),
    ("blargg/instr_timing/instr_timing.gb", 1000, None),
    ("blargg/mem_timing/mem_timing.gb", 1000, None),
    ("blargg/mem_timing/individual/01-read_timing.gb", 1000, None),
    ("blargg/mem_timing/individual/02-write_timing.gb", 1000, None),
    ("blargg/mem_timing/individual/03-modify_timing.gb", 1000, None),
    ("blargg/mem_timing-2/mem_timing.gb", 1000, None),
    ("blargg/mem_timing-2/rom_singles/01-read_timing.gb", 1000, None),
    ("blargg/mem_timing-2/rom_singles/02-write_timing.gb", 1000, None),
    ("blargg/mem_timing-2/rom_singles/03-modify_timing.gb", 1000, None),
    ("blargg/halt_bug.gb", 1000, None),
    ("blargg/interrupt_time/interrupt_time.gb", 1000, DMG_CHECKSUM_INTERRUPT_TIME),
)

# Blargg's sound and OAM-bug suites ($A000 rule): suite, path, frame budget. Run lengths on
# a DMG per HOWTO-c-sp.md: dmg_sound 36 s (2150 frames), oam_bug 21 s (1250 frames).
BLARGG_EXTRA_ROMS: tuple[tuple[str, str, int], ...] = (
    ("sound", "blargg/dmg_sound/dmg_sound.gb", 2600),
    *(
        ("sound", f"blargg/dmg_sound/rom_singles/{name}.gb", 1200)
        for name in (
            "01-registers",
            "02-len ctr",
            "03-trigger",
            "04-sweep",
            "05-sweep details",
            "06-overflow on trigger",
            "07-len sweep period sync",
            "08-len ctr during power",
            "09-wave read while on",
            "10-wave trigger while on",
            "11-regs after power",
            "12-wave write while on",
        )
    ),
    ("oam_bug", "blargg/oam_bug/oam_bug.gb", 1600),
    *(
        ("oam_bug", f"blargg/oam_bug/rom_singles/{name}.gb", 800)
        for name in (
            "1-lcd_sync",
            "2-causes",
            "3-non_causes",
            "4-scanline_timing",
            "5-timing_bug",
            "6-timing_no_bug",
            "7-timing_effect",
            "8-instr_effect",
        )
    ),
)

ACID2 = ("acid2/dmg-acid2.gb", "acid2/dmg-acid2-reference-dmg.png")
ACID2_FRAMES = 120
MEALYBUG_DIR = "mealybug-tearoom-tests"
MEALYBUG_EXPECTED = "mealybug-tearoom-tests/expected/DMG-blob"
MEALYBUG_FRAMES = 60
GBMICROTEST_DIR = "gbmicrotest/bin"
GBMICROTEST_FRAMES = 30

MOONEYE_DIRS = (
    "mooneye/acceptance",
    "mooneye/emulator-only/mbc1",
    "mooneye/emulator-only/mbc2",
    "mooneye/emulator-only/mbc5",
)
SAMESUITE_ROMS = (
    "samesuite/interrupt/ei_delay_halt.gb",
    "samesuite/apu/channel_3/channel_3_wave_ram_dac_on_rw.gb",
    "samesuite/apu/channel_3/channel_3_wave_ram_locked_write.gb",
)
SUITES = (
    "blargg",
    "mooneye",
    "samesuite",
    "sound",
    "oam_bug",
    "acid2",
    "mealybug",
    "gbmicrotest",
    "gambatte",
    "gambatte-cgb",
)

GAMBATTE_DIR = "gambatte-hwtests"
GAMBATTE_FRAMES = 15  # gambatte's runner: more than 15 x 70,224 T-cycles
FRAME_CYCLES = _core.FRAME_CYCLES
GAMBATTE_SOUND_RATE = 192_000  # emurust's highest, so that no short pulse is missed
# gambatte's test-runner digit font (test/testrunner.cpp), 0..F: one byte per row, bit 7 =
# leftmost pixel, 1 = dark (shade 3), 0 = light (shade 0).
GAMBATTE_FONT: tuple[tuple[int, ...], ...] = (
    (0x00, 0x7F, 0x41, 0x41, 0x41, 0x41, 0x41, 0x7F),
    (0x00, 0x08, 0x08, 0x08, 0x08, 0x08, 0x08, 0x08),
    (0x00, 0x7F, 0x01, 0x01, 0x7F, 0x40, 0x40, 0x7F),
    (0x00, 0x7F, 0x01, 0x01, 0x3F, 0x01, 0x01, 0x7F),
    (0x00, 0x41, 0x41, 0x41, 0x7F, 0x01, 0x01, 0x01),
    (0x00, 0x7F, 0x40, 0x40, 0x7E, 0x01, 0x01, 0x7E),
    (0x00, 0x7F, 0x40, 0x40, 0x7F, 0x41, 0x41, 0x7F),
    (0x00, 0x7F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x10),
    (0x00, 0x3E, 0x41, 0x41, 0x3E, 0x41, 0x41, 0x3E),
    (0x00, 0x7F, 0x41, 0x41, 0x7F, 0x01, 0x01, 0x7F),
    (0x00, 0x08, 0x22, 0x41, 0x7F, 0x41, 0x41, 0x41),
    (0x00, 0x7E, 0x41, 0x41, 0x7E, 0x41, 0x41, 0x7E),
    (0x00, 0x3E, 0x41, 0x40, 0x40, 0x40, 0x41, 0x3E),
    (0x00, 0x7E, 0x41, 0x41, 0x41, 0x41, 0x41, 0x7E),
    (0x00, 0x7F, 0x40, 0x40, 0x7F, 0x40, 0x40, 0x7F),
    (0x00, 0x7F, 0x40, 0x40, 0x7F, 0x40, 0x40, 0x40),
)

# Mooneye name suffixes (after the last "-") that include a DMG rev A/B/C; other model tags
# (S, A, C, dmg0, mgb, sgb, sgb2, cgb..., agb..., ags...) target other hardware.
_DMG_SUFFIXES = frozenset({"G", "GS", "dmgABC", "dmgABCmgb"})
_MODEL_SUFFIX = re.compile(r"^(?:[GSCA]+|dmg\w*|mgb\w*|sgb\w*|cgb\w*|agb\w*|ags\w*)$")

# emurust's known failures, with the reason: the `#[ignore = ...]` entries of tests/mooneye.rs,
# tests/ppu_screens.rs, tests/oam_bug.rs and the KNOWN_FAILURES of tests/gbmicrotest.rs
# (tests/test_conformance_runner.py checks that every one of them is listed here).
KNOWN_FAILURES: dict[str, str] = {}

# The KNOWN_FAILURES of tests/gbmicrotest.rs, by reason (see that file for details).
_GBMICROTEST_FAILURES: dict[str, tuple[str, ...]] = {
    "no verdict: not a self-checking ROM": (
        "000-oam_lock.gb",
        "000-write_to_x8000.gb",
        "001-vram_unlocked.gb",
        "002-vram_locked.gb",
        "004-tima_boot_phase.gb",
        "004-tima_cycle_timer.gb",
        "007-lcd_on_stat.gb",
        "400-dma.gb",
        "500-scx-timing.gb",
        "800-ppu-latch-scx.gb",
        "801-ppu-latch-scy.gb",
        "802-ppu-latch-tileselect.gb",
        "803-ppu-latch-bgdisplay.gb",
        "audio_testbench.gb",
        "cpu_bus_1.gb",
        "dma_basic.gb",
        "flood_vram.gb",
        "lcdon_write_timing.gb",
        "ly_while_lcd_off.gb",
        "minimal.gb",
        "mode2_stat_int_to_oam_unlock.gb",
        "oam_sprite_trashing.gb",
        "poweron.gb",
        "ppu_scx_vs_bgp.gb",
        "ppu_sprite_testbench.gb",
        "ppu_spritex_vs_scx.gb",
        "ppu_win_vs_wx.gb",
        "ppu_wx_early.gb",
        "temp.gb",
        "toggle_lcdc.gb",
        "wave_write_to_0xC003.gb",
    ),
    "rom defect: expects an unreachable DIV value": ("halt_op_dupe_delay.gb",),
    "rom defect: the same program as line_153_lyc_a/_c (which pass) expecting another value": (
        "line_153_lyc_b.gb",
    ),
    "rom defect: never clears IF yet expects it clear": ("stat_write_glitch_l154_d.gb",),
}
KNOWN_FAILURES.update(
    {f"gbmicrotest/bin/{rom}": why for why, roms in _GBMICROTEST_FAILURES.items() for rom in roms}
)


def gambatte_known_failures() -> dict[str, str]:
    """The gambatte hardware tests emurust fails today (path under the ROM folder -> reason),
    from ``emurust/data/gambatte_failures.tsv``, which ``tests/gambatte.rs`` reads too."""
    text = (Path(__file__).parent / "data" / "gambatte_failures.tsv").read_text()
    return _failures_from_tsv(text, "gambatte_failures.tsv")


def _failures_from_tsv(text: str, name: str) -> dict[str, str]:
    """A failures list (``[reasons]``, then ``[failures]``: ROM path, tab, reason key) as
    ROM path under the ROM folder -> reason."""
    reasons: dict[str, str] = {}
    failures: dict[str, str] = {}
    section = ""
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line
            continue
        if section == "[reasons]":
            key, value = line.split("\t", 1)
            reasons[key] = value
        else:  # ROM, reason key[, what emurust shows (checked by tests/gambatte.rs)]
            key, value = line.split("\t")[:2]
            if value not in reasons:
                raise ValueError(f"{name}: unknown reason {value!r}")
            failures[f"{GAMBATTE_DIR}/{key}"] = reasons[value]
    return failures


KNOWN_FAILURES.update(gambatte_known_failures())


def gambatte_cgb_known_failures() -> dict[str, str]:
    """The gambatte hardware tests emurust fails on a CGB (the ``_cgb04c_out`` column), from
    ``emurust/data/gambatte_cgb_failures.tsv``, which ``tests/gambatte.rs`` reads too."""
    text = (Path(__file__).parent / "data" / "gambatte_cgb_failures.tsv").read_text()
    return _failures_from_tsv(text, "gambatte_cgb_failures.tsv")


#: Known failures of the CGB column (``gambatte-cgb``), by ROM path: the same files as the
#: DMG column, so kept apart from :data:`KNOWN_FAILURES`.
KNOWN_CGB_FAILURES: dict[str, str] = gambatte_cgb_known_failures()
KNOWN_FAILURES["blargg/oam_bug/rom_singles/7-timing_effect.gb"] = (
    "ROM defect: its text log overruns the 8 KB of cartridge RAM it declares and overwrites its"
    " own code, so it never gives a verdict; the combined oam_bug.gb covers it and passes"
)


@dataclass(frozen=True)
class RomSpec:
    """One ROM to run: its suite, path under the ROM folder, rule and frame budget.

    ``protocol`` is ``"blargg"``, ``"mooneye"``, ``"auto"`` (both rules, for an unknown
    ROM), ``"screenshot"`` (the screen after ``budget`` frames against the image
    ``reference``, a path), ``"gbmicrotest"`` (0xFF82 == 0x01 after ``budget`` frames) or
    ``"gambatte"`` (the last frame once more than ``budget`` x 70,224 T-cycles have run).
    ``dmg_checksum``: a Blargg "Failed" whose text holds this checksum is the DMG hardware's
    own result and counts as a pass.
    """

    suite: str
    rel: str
    protocol: str
    budget: int
    dmg_checksum: str | None = None
    reference: str | None = None
    #: The machine: ``"dmg"``, or ``"cgb"`` for the CGB column of gambatte's tests.
    model: str = "dmg"


def is_dmg_mooneye_rom(name: str) -> bool:
    """Whether a Mooneye ROM file name targets a DMG rev A/B/C: unsuffixed (``tim00.gb``),
    or suffixed with a model group that includes it (``-G``, ``-GS``, ``-dmgABC``,
    ``-dmgABCmgb``). ``-S``, ``-A``, ``-C``, ``-dmg0``, ``-mgb``, ``-sgb``, ``-sgb2``,
    ``-cgb...`` target other models."""
    stem = Path(name).stem
    if "-" not in stem:
        return True
    suffix = stem.rsplit("-", 1)[1]
    if suffix in _DMG_SUFFIXES:
        return True
    return not _MODEL_SUFFIX.match(suffix)


def catalogue(roms: Path) -> tuple[list[RomSpec], list[str]]:
    """The ROMs of every suite found under ``roms``, and notes about what was skipped."""
    specs: list[RomSpec] = []
    notes: list[str] = []
    missing = [rel for rel, _, _ in BLARGG_ROMS if not (roms / rel).is_file()]
    specs.extend(
        RomSpec("blargg", rel, "blargg", budget, checksum)
        for rel, budget, checksum in BLARGG_ROMS
        if (roms / rel).is_file()
    )
    if missing:
        notes.append(f"blargg: {len(missing)} ROM(s) not found, skipped: {', '.join(missing)}")
    other_models: list[str] = []
    for folder in MOONEYE_DIRS:
        base = roms / folder
        if not base.is_dir():
            notes.append(f"mooneye: folder {folder} not found, skipped")
            continue
        for path in sorted(base.rglob("*.gb")):
            rel = path.relative_to(roms).as_posix()
            if is_dmg_mooneye_rom(path.name):
                specs.append(RomSpec("mooneye", rel, "mooneye", MOONEYE_BUDGET))
            else:
                other_models.append(path.name)
    if other_models:
        notes.append(
            f"mooneye: {len(other_models)} ROM(s) for other models (not DMG rev ABC) skipped: "
            + ", ".join(other_models)
        )
    for rel in SAMESUITE_ROMS:
        if (roms / rel).is_file():
            specs.append(RomSpec("samesuite", rel, "mooneye", MOONEYE_BUDGET))
        else:
            notes.append(f"samesuite: {rel} not found, skipped")
    for suite, rel, budget in BLARGG_EXTRA_ROMS:
        if (roms / rel).is_file():
            specs.append(RomSpec(suite, rel, "blargg", budget))
        else:
            notes.append(f"{suite}: {rel} not found, skipped")
    screenshots = _pillow_available()
    if not screenshots:
        notes.append("acid2, mealybug: Pillow is not installed (pip install pillow), skipped")
    elif (roms / ACID2[0]).is_file() and (roms / ACID2[1]).is_file():
        specs.append(
            RomSpec("acid2", ACID2[0], "screenshot", ACID2_FRAMES, reference=str(roms / ACID2[1]))
        )
    else:
        notes.append(f"acid2: {ACID2[0]} or its reference image not found, skipped")
    expected = roms / MEALYBUG_EXPECTED
    if screenshots and expected.is_dir():
        for png in sorted(expected.glob("*.png")):
            rel = f"{MEALYBUG_DIR}/{png.stem}.gb"
            if (roms / rel).is_file():
                ref = str(png)
                specs.append(RomSpec("mealybug", rel, "screenshot", MEALYBUG_FRAMES, reference=ref))
    elif screenshots:
        notes.append(f"mealybug: {MEALYBUG_EXPECTED} not found, skipped")
    micro = roms / GBMICROTEST_DIR
    if micro.is_dir():
        specs.extend(
            RomSpec(
                "gbmicrotest", p.relative_to(roms).as_posix(), "gbmicrotest", GBMICROTEST_FRAMES
            )
            for p in sorted(micro.glob("*.gb"))
        )
    else:
        notes.append(f"gbmicrotest: {GBMICROTEST_DIR} not found, skipped")
    gambatte = roms / GAMBATTE_DIR
    if gambatte.is_dir():
        paths = [p for p in sorted(gambatte.rglob("*.gb*")) if p.suffix in (".gb", ".gbc")]
        specs.extend(
            RomSpec("gambatte", p.relative_to(roms).as_posix(), "gambatte", GAMBATTE_FRAMES)
            for p in paths
        )
        # The CGB column: the ROMs whose name holds a CGB result, run on a CGB.
        specs.extend(
            RomSpec(
                "gambatte-cgb",
                p.relative_to(roms).as_posix(),
                "gambatte-cgb",
                GAMBATTE_FRAMES,
                model="cgb",
            )
            for p in paths
            if "_cgb04c_out" in p.stem
        )
    else:
        notes.append(f"gambatte: {GAMBATTE_DIR} not found, skipped")
    return specs, notes


def _pillow_available() -> bool:
    try:
        importlib.import_module("PIL.Image")
    except ImportError:
        return False
    return True


def reference_shades(path: Path) -> Any:
    """A reference screenshot as a (144, 160) array of shades 0..3 (0 = white): each pixel's
    grey level (RGB averaged) mapped to the nearest of FF, AA, 55, 00."""
    import numpy as np

    image = importlib.import_module("PIL.Image")
    with image.open(path) as im:
        grey = np.asarray(im.convert("RGB"), dtype=np.int32).mean(axis=2)
    levels = np.array([0xFF, 0xAA, 0x55, 0x00])
    return np.abs(grey[..., None] - levels).argmin(axis=2).astype(np.uint8)


# --------------------------------------------------------------------------------------------
# The rules, shared by both emulators


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
    hardware's own (failing) output, see :data:`DMG_CHECKSUM_INTERRUPT_TIME`.
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


def _short(text: str, limit: int = 160) -> str:
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
                    _short(text),
                    dmg_result=dmg,
                )
    regs = " ".join(f"{r:02X}" for r in probe.registers())
    serial = probe.serial().decode("latin-1")
    return Verdict(
        "timeout",
        frames,
        time.perf_counter() - start,
        _short(f"no verdict after {frames} frames; B C D E H L = {regs}; serial {serial!r}"),
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


# --------------------------------------------------------------------------------------------
# The emulators


def emurust_probe(rom: str | os.PathLike[str] | bytes, model: str = "dmg") -> Probe:
    """A :class:`Probe` over a fresh :class:`emurust.GameBoy` of ``model`` (frames run with
    render=False). A CGB's screen is read through :func:`cgb_cells`."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", emurust.EmuRustWarning)
        gb = emurust.GameBoy(rom, model=model)
    cgb = model == "cgb"

    def step(n: int) -> None:
        gb.tick(n, render=False)

    def registers() -> tuple[int, ...]:
        r = gb.registers
        return (r["b"], r["c"], r["d"], r["e"], r["h"], r["l"])

    def screenshot(n: int) -> Any:
        gb.tick(n, render=True)  # draws only the last frame
        return gb.screen_shades.copy()

    def run_cycles(cycles: int, sound: bool) -> tuple[int, Any, Any]:
        if sound and gb.sound_sample_rate is None:
            gb.sound_sample_rate = GAMBATTE_SOUND_RATE
        start, frames = gb.cycles, 0
        while gb.cycles - start <= cycles:
            gb.tick(1, render=True)
            frames += 1
        shades = cgb_cells(gb.screen) if cgb else gb.screen_shades.copy()
        return frames, shades, gb.sound.copy() if sound else None

    return Probe(
        step=step,
        registers=registers,
        peek=lambda addr: gb.memory[addr],
        serial=lambda: gb.serial_output,
        screenshot=screenshot,
        run_cycles=run_cycles,
    )


def pyboy_available() -> bool:
    """Whether PyBoy can be imported."""
    try:
        import_pyboy()
    except Exception:
        return False
    return True


PYBOY_BOOT_FRAMES_MAX = 600  # PyBoy's DMG boot ROM hands over after about 2.5 s


def pyboy_probe(rom: str | os.PathLike[str], model: str = "dmg") -> Probe:
    """A :class:`Probe` over a headless PyBoy in DMG mode (``cgb=False``; ``cgb=True`` for
    ``model="cgb"``), its built-in boot ROM, no frame limiter, log level ERROR.

    Serial: PyBoy 2.8.1 has no public serial API; ``PyBoy._serial()`` returns (and clears)
    the bytes the game wrote to SB (0xFF01) since the last call, in a 1024-byte ring, so it
    is drained after every frame. Battery RAM is never written back (``stop(save=False)``)."""
    pyboy = import_pyboy()
    cgb = model == "cgb"
    pb = pyboy.PyBoy(os.fspath(rom), window="null", cgb=cgb, log_level="ERROR")
    pb.set_emulation_speed(0)
    out = bytearray()

    def drain() -> None:
        data = pb._serial()
        if isinstance(data, str):
            out.extend(data.encode("latin-1", errors="replace"))
        else:
            out.extend(bytes(data))

    def step(n: int) -> None:
        for _ in range(n):
            pb.tick(1, False, False)
            drain()

    # Run PyBoy's boot ROM first (until it unmaps itself), so that frame budgets count from
    # the cartridge's start as they do for emurust; fixed-budget rules (gbmicrotest) would
    # otherwise stop PyBoy inside its boot animation.
    head = Path(os.fspath(rom)).read_bytes()[:0x100]
    for _ in range(PYBOY_BOOT_FRAMES_MAX):
        if len(head) < 0x100 or bytes(pb.memory[0x0000:0x0100]) == head:
            break
        step(1)

    def registers() -> tuple[int, ...]:
        r = pb.register_file
        hl = int(r.HL)
        return (int(r.B), int(r.C), int(r.D), int(r.E), hl >> 8, hl & 0xFF)

    def screenshot(n: int) -> Any:
        import numpy as np

        for _ in range(n):
            pb.tick(1, True, False)  # every frame rendered: PyBoy's best case
            drain()
        if cgb:
            return cgb_cells(np.asarray(pb.screen.ndarray))
        rgb = np.asarray(pb.screen.ndarray)[..., :3].astype(np.int32)
        # PyBoy's default DMG palette: FFFFFF, 999999, 555555, 000000 (shades 0..3).
        levels = np.array([0xFF, 0x99, 0x55, 0x00])
        return np.abs(rgb.mean(axis=2)[..., None] - levels).argmin(axis=2).astype(np.uint8)

    def run_cycles(cycles: int, sound: bool) -> tuple[int, Any, Any]:
        # PyBoy's frames are 70,224 T-cycles each once its boot ROM has handed over.
        frames = cycles // FRAME_CYCLES + 1
        shades = screenshot(frames)
        return frames, shades, pb.sound.ndarray.copy() if sound else None

    return Probe(
        step=step,
        registers=registers,
        peek=lambda addr: int(pb.memory[addr]),
        serial=lambda: bytes(out),
        close=lambda: pb.stop(save=False),
        screenshot=screenshot,
        run_cycles=run_cycles,
    )


def run_one(make: Callable[[], Probe], spec: RomSpec) -> Verdict:
    """Builds a probe and runs the rules; any exception becomes an ``error`` verdict."""
    start = time.perf_counter()
    try:
        probe = make()
    except Exception as e:
        return Verdict("error", 0, time.perf_counter() - start, _short(f"{type(e).__name__}: {e}"))
    try:
        return run_rules(probe, spec)
    except Exception as e:
        return Verdict("error", 0, time.perf_counter() - start, _short(f"{type(e).__name__}: {e}"))
    finally:
        with contextlib.suppress(Exception):
            probe.close()


# --------------------------------------------------------------------------------------------
# Output


class _Progress:
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


def _count(rows: Sequence[Row], pyboy: bool) -> tuple[int, int]:
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
        row = [name, str(len(frows)), str(_count(frows, False)[0])]
        if with_pyboy:
            row.append(str(_count(frows, True)[0]))
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
        e_pass, n = _count(srows, False)
        total = f"\n{suite}: emurust {e_pass}/{n}"
        if with_pyboy:
            p_pass, _ = _count(srows, True)
            total += f", PyBoy {p_pass}/{n}"
        print(total, file=out)
        if suite in ("gambatte", "gambatte-cgb"):
            _by_folder(srows, with_pyboy, out)

    e_pass, n = _count(rows, False)
    known = sum(1 for r in rows if r.known_failure and not r.emurust.passed)
    line = f"\nTOTAL: emurust {e_pass}/{n}"
    if with_pyboy:
        p_pass, _ = _count(rows, True)
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
        notes.append(f"* {known} emurust failure(s) are known (KNOWN_FAILURES in this module).")
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


# --------------------------------------------------------------------------------------------
# Command line


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
    bar = _Progress(len(specs) * (2 if with_pyboy else 1)) if progress else None
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
    e_pass, n = _count(rows, False)
    totals: dict[str, Any] = {"roms": n, "emurust_passed": e_pass}
    if with_pyboy:
        totals["pyboy_passed"] = _count(rows, True)[0]
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


if __name__ == "__main__":
    raise SystemExit(main())
