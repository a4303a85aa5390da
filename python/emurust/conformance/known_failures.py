"""emurust's known failures of the conformance suites, each with its reason
(:data:`KNOWN_FAILURES`; :data:`KNOWN_CGB_FAILURES` for gambatte's CGB column): the
``#[ignore = ...]`` entries of the Rust ROM tests and the failure lists in ``emurust/data/``
that ``tests/gambatte.rs`` reads too."""

from __future__ import annotations

from pathlib import Path

from emurust.conformance.suites import GAMBATTE_DIR

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
    text = (Path(__file__).parents[1] / "data" / "gambatte_failures.tsv").read_text()
    return failures_from_tsv(text, "gambatte_failures.tsv")


def failures_from_tsv(text: str, name: str) -> dict[str, str]:
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
    text = (Path(__file__).parents[1] / "data" / "gambatte_cgb_failures.tsv").read_text()
    return failures_from_tsv(text, "gambatte_cgb_failures.tsv")


#: Known failures of the CGB column (``gambatte-cgb``), by ROM path: the same files as the
#: DMG column, so kept apart from :data:`KNOWN_FAILURES`.
KNOWN_CGB_FAILURES: dict[str, str] = gambatte_cgb_known_failures()
KNOWN_FAILURES["blargg/oam_bug/rom_singles/7-timing_effect.gb"] = (
    "ROM defect: its text log overruns the 8 KB of cartridge RAM it declares and overwrites its"
    " own code, so it never gives a verdict; the combined oam_bug.gb covers it and passes"
)
