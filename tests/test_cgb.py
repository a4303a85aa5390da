"""The Game Boy Color from Python: ``model=`` on ``GameBoy`` and ``VecGameBoy``, colour screens
and their grey observations, CGB states and snapshots, memory per env, and bad input.

The ROMs are built here (a CGB program that fills the screen with one colour from its own
palette) or taken from the shared folder (cgb-acid2, skipped when it is absent).
"""

from __future__ import annotations

import functools
import warnings
from pathlib import Path

import numpy as np
import pytest

import emurust
from emurust.envs import GameBoyVectorEnv
from emurust.games import Field, GameSpec, GameSpecError
from emurust.tools.asm.rom import build_rom

HEIGHT, WIDTH = 144, 160

# LCD off; background palette 0, colour 0 = 0x7C1F (red 31, green 0, blue 31: magenta) through
# BCPS/BCPD with auto-increment; LCD on (BG on, tiles at 0x8000: all zero, so every pixel is
# colour 0); then an idle loop. The 0x143 byte is set to 0x80 below (CGB-enhanced).
COLOR_PROGRAM = bytes(
    [
        0xF3,  # di
        0xAF, 0xE0, 0x40,  # xor a; ldh [LCDC],a
        0x3E, 0x80, 0xE0, 0x68,  # ld a,0x80; ldh [BCPS],a: index 0, auto-increment
        0x3E, 0x1F, 0xE0, 0x69,  # ld a,0x1F; ldh [BCPD],a
        0x3E, 0x7C, 0xE0, 0x69,  # ld a,0x7C; ldh [BCPD],a
        0x3E, 0x91, 0xE0, 0x40,  # ld a,0x91; ldh [LCDC],a
        0x18, 0xFE,  # jr -2
    ]
)  # fmt: skip
MAGENTA_PYBOY = (31 << 3, 0, 31 << 3)
MAGENTA_FULL = (255, 0, 255)


def cgb_rom(program: bytes, flag: int = 0x80) -> bytes:
    """``build_rom(program)`` with header byte 0x143 = ``flag`` and the header checksum
    fixed."""
    rom = bytearray(build_rom(program, title="CGB TEST"))
    rom[0x143] = flag
    rom[0x14D] = (-sum(b + 1 for b in rom[0x134:0x14D])) & 0xFF
    return bytes(rom)


def luma(rgb: tuple[int, int, int]) -> int:
    r, g, b = rgb
    return (r * 299 + g * 587 + b * 114 + 500) // 1000


def test_model_choice_follows_the_header_for_auto() -> None:
    color, plain = cgb_rom(COLOR_PROGRAM), build_rom(COLOR_PROGRAM)
    assert emurust.GameBoy(color).model == "dmg", "the default is the DMG"
    assert emurust.GameBoy(color, model="auto").model == "cgb"
    assert emurust.GameBoy(plain, model="auto").model == "dmg"
    gb = emurust.GameBoy(plain, model="cgb")
    assert (gb.model, gb.cgb_mode) == ("cgb", False), "a DMG cartridge: compatibility mode"
    assert emurust.GameBoy(color, model="CGB").cgb_mode
    with pytest.raises(emurust.InvalidArgumentError, match='model must be "auto", "dmg"'):
        emurust.GameBoy(color, model="gbc")
    with pytest.raises(emurust.InvalidRomError, match=r"2304 bytes .*a DMG's boot ROM"):
        emurust.GameBoy(color, model="cgb", boot_rom=bytes(256))


def test_cgb_only_warning_only_on_a_dmg() -> None:
    only = cgb_rom(COLOR_PROGRAM, 0xC0)
    with pytest.warns(emurust.EmuRustWarning, match="Game Boy Color only"):
        emurust.GameBoy(only)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert emurust.GameBoy(only, model="auto").warnings == []


def test_colour_screen_rgb_and_grey() -> None:
    gb = emurust.GameBoy(cgb_rom(COLOR_PROGRAM), model="auto")
    gb.tick(4)
    assert gb.color_conversion == "pyboy"
    assert {tuple(p) for p in gb.screen.reshape(-1, 3)} == {MAGENTA_PYBOY}
    assert set(np.unique(gb.screen_gray)) == {luma(MAGENTA_PYBOY)}
    gb.color_conversion = "full"
    assert tuple(gb.screen[0, 0]) == MAGENTA_FULL, "re-converted at once"
    gb.color_conversion = "corrected"
    assert tuple(gb.screen[0, 0]) == ((31 * 13 + 31) >> 1, 31 << 1, (31 * 3 + 31 * 11) >> 1)
    with pytest.raises(emurust.InvalidArgumentError, match="color_conversion must be"):
        gb.color_conversion = "srgb"


def test_vec_observations_match_a_lone_cgb() -> None:
    rom = cgb_rom(COLOR_PROGRAM)
    gb = emurust.GameBoy(rom, model="cgb")
    gb.tick(24)
    for obs, want in (
        ("rgb", gb.screen),
        ("gray", gb.screen_gray),
        ("shades", 3 - gb.screen_gray // 64),
    ):
        vec = emurust.VecGameBoy(rom, 2, obs=obs, model="cgb", num_threads=1)
        got = vec.step(np.array([7, 7], dtype=np.uint8))  # the no-op action
        assert (got[0] == want).all(), obs
        assert (got[1] == want).all(), obs


def test_cgb_state_and_snapshot_stay_on_their_model() -> None:
    rom = cgb_rom(COLOR_PROGRAM)
    gb = emurust.GameBoy(rom, model="cgb")
    gb.tick(3)
    state = gb.save_state()
    again = emurust.GameBoy(rom, model="cgb")
    again.load_state(state)
    assert again.save_state() == state
    with pytest.raises(emurust.InvalidStateError, match="saved on a Game Boy Color"):
        emurust.GameBoy(rom).load_state(state)
    with pytest.raises(emurust.InvalidStateError, match="saved on a DMG"):
        again.load_state(emurust.GameBoy(rom).save_state())
    vec = emurust.VecGameBoy(rom, 1, model="dmg")
    with pytest.raises(emurust.InvalidStateError, match="snapshot was taken on a cgb machine"):
        vec.restore(0, gb.snapshot())


def test_memory_per_env_by_model() -> None:
    rom = cgb_rom(COLOR_PROGRAM)
    dmg = emurust.VecGameBoy(rom, 2, model="dmg")
    cgb = emurust.VecGameBoy(rom, 2, model="cgb")
    assert dmg.bytes_per_env <= 64 * 1024
    assert dmg.bytes_per_env < cgb.bytes_per_env <= 128 * 1024


def test_cgb_acid2_through_python(shared_roms: Path) -> None:
    rom = shared_roms / "acid2" / "cgb-acid2.gbc"
    if not rom.is_file():
        pytest.skip(f"{rom} not found")
    pytest.importorskip("PIL")
    from PIL import Image

    gb = emurust.GameBoy(rom, model="auto")
    gb.color_conversion = "full"  # the reference image's conversion
    gb.tick(120)
    with Image.open(shared_roms / "acid2" / "cgb-acid2-reference.png") as image:
        reference = np.asarray(image.convert("RGB"))
    assert (gb.screen == reference).all()


def test_conformance_runner_cgb_column(shared_roms: Path) -> None:
    import emurust.conformance as conf

    assert conf.gambatte_cgb_expectation("x/a_dmg08_out3_cgb04c_out1.gbc") == ("hex", "1")
    assert conf.gambatte_cgb_expectation("x/a_dmg08_cgb04c_outaudio0.gbc") == ("audio", "0")
    with pytest.raises(ValueError, match="no CGB expectation"):
        conf.gambatte_cgb_expectation("x/a_dmg08_out3.gb")
    if not (shared_roms / conf.GAMBATTE_DIR).is_dir():
        pytest.skip("gambatte-hwtests not present")
    specs, _ = conf.catalogue(shared_roms)
    column = {s.rel: s for s in specs if s.suite == "gambatte-cgb"}
    assert all(s.model == "cgb" for s in column.values())
    assert set(conf.KNOWN_CGB_FAILURES) <= set(column)
    # One the CGB passes (its CGB result differs from the DMG's: a DMG fails the rule) and
    # one listed as a known CGB failure.
    passing = (
        f"{conf.GAMBATTE_DIR}/sound/ch3_reset_nr4init_freq7fd_read_ff30_2"
        "_dmg08_outFF_cgb04c_out10.gbc"
    )
    failing = f"{conf.GAMBATTE_DIR}/window/late_disable_scx2_1_dmg08_out3_cgb04c_out0.gbc"
    for rel, model, status in (
        (passing, "cgb", "pass"),
        (passing, "dmg", "fail"),
        (failing, "cgb", "fail"),
    ):
        if rel not in column:
            pytest.skip(f"{rel} not present")
        probe = functools.partial(conf.emurust_probe, shared_roms / rel, model)
        verdict = conf.run_one(probe, column[rel])
        assert verdict.status == status, (rel, model, verdict.detail)
    assert failing in conf.KNOWN_CGB_FAILURES


def _colour_spec(**changes: object) -> GameSpec:
    spec = GameSpec(
        name="ColourTest",
        rom=cgb_rom(COLOR_PROGRAM),
        actions=((), ("a",)),
        fields={"x": Field(0xC000)},
        reward=lambda before, after: np.zeros(len(after.x)),
        obs="rgb",
        frame_skip=4,
    )
    return spec.replace(**changes) if changes else spec


def test_game_specs_and_envs_take_the_model() -> None:
    """``GameSpec.model`` (default "dmg") reaches the envs; Gymnasium's keyword overrides
    it; the PyBoy backend refuses a CGB by name."""
    assert _colour_spec().model == "dmg"
    with pytest.raises(GameSpecError, match="unknown model 'gbc'"):
        _colour_spec(model="gbc")
    magenta = np.array(MAGENTA_PYBOY, np.uint8)
    for model, colour in (("dmg", None), ("cgb", magenta), ("auto", magenta)):
        env = GameBoyVectorEnv(_colour_spec(model=model), 2, num_threads=1)
        env.reset(seed=0)
        obs = np.asarray(env.step(np.zeros(2, np.int64))[0])
        if colour is None:  # a DMG shows this program's screen in greys
            assert (obs[..., 0] == obs[..., 1]).all(), model
        else:
            assert (obs == colour).all(), model
        env.close()
    env = GameBoyVectorEnv(_colour_spec(), 2, num_threads=1, model="cgb")
    assert env.game.model == "cgb"
    env.reset(seed=0)
    assert (np.asarray(env.step(np.zeros(2, np.int64))[0]) == magenta).all()
    env.close()
    pytest.importorskip("pyboy")
    with pytest.raises(GameSpecError, match="PyBoy backend runs the DMG only"):
        GameBoyVectorEnv(_colour_spec(model="auto"), 2, backend="pyboy")
