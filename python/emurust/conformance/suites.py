"""What the conformance runner runs: the suites' ROMs, rules and frame budgets
(:data:`SUITES`, :class:`RomSpec`) and :func:`catalogue`, the ROMs of every suite found under
the ROM folder."""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import Path

from emurust import _core

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
