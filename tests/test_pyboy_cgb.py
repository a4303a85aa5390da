"""``emurust.PyBoy`` on a Game Boy Color: ``cgb=`` as PyBoy 2.8.1 takes it, ``memory[bank,
addr]`` on VRAM and WRAM banks, ``cgb_color_palette`` and the screen of CGB games and of DMG
games in compatibility mode, each compared with PyBoy itself where it is installed.

The ROMs are built here: a CGB program that leaves a known byte in every WRAM bank and both
VRAM banks, and a DMG program that shows background and objects of both object palettes.
Both end in an idle loop, so that PyBoy (which runs its own CGB boot ROM for 64 frames
first) and emurust (which starts the CGB after its boot) show the same still picture and
memory once both have run past that boot.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import emurust
from emurust import PyBoy
from emurust._pyboy_adapter import cgb_banks, import_pyboy
from emurust.pyboy.utils import (
    PyBoyInvalidInputException,
    PyBoyInvalidOperationException,
    PyBoyOutOfBoundsException,
)
from emurust.tools.asm.rom import build_rom

# LCD off; for b in 1..7: SVBK = b, [0xD000] = b; VBK = 1, [0x8000] = 0x5A; VBK = 0,
# [0x8000] = 0xA5; SVBK = 3; [0xC000] = 0x77; idle.
BANKS_PROGRAM = bytes(
    [
        0xF3,  # di
        0xAF, 0xE0, 0x40,  # xor a; ldh [LCDC],a
        0x06, 0x01,  # ld b,1
        0x78,  # loop: ld a,b
        0xE0, 0x70,  # ldh [SVBK],a
        0xEA, 0x00, 0xD0,  # ld [0xD000],a
        0x04,  # inc b
        0x78,  # ld a,b
        0xFE, 0x08,  # cp 8
        0x20, 0xF4,  # jr nz,loop
        0x3E, 0x01, 0xE0, 0x4F,  # ld a,1; ldh [VBK],a
        0x3E, 0x5A, 0xEA, 0x00, 0x80,  # ld a,0x5A; ld [0x8000],a
        0xAF, 0xE0, 0x4F,  # xor a; ldh [VBK],a
        0x3E, 0xA5, 0xEA, 0x00, 0x80,  # ld a,0xA5; ld [0x8000],a
        0x3E, 0x03, 0xE0, 0x70,  # ld a,3; ldh [SVBK],a
        0x3E, 0x77, 0xEA, 0x00, 0xC0,  # ld a,0x77; ld [0xC000],a
        0x18, 0xFE,  # jr -2
    ]
)  # fmt: skip

# A DMG program: the map cleared (PyBoy's CGB boot ROM leaves its logo there), tile 1 all
# colour 3, the first map row of tile 1 (BG colour 3, shade 3
# through BGP 0xE4), object 0 (OBP0 0x40: colour 3 -> shade 1) at screen (40, 40), object 1
# (OBP1 0x80: colour 3 -> shade 2) at screen (80, 40); LCD on with objects; idle.
OBJECTS_PROGRAM = bytes(
    [
        0xF3,  # di
        0xAF, 0xE0, 0x40,  # xor a; ldh [LCDC],a
        0x21, 0x00, 0x98, 0xAF, 0x0E, 0x00, 0x06, 0x04,  # ld hl,0x9800; xor a; ld c,0; ld b,4
        0x22, 0x0D, 0x20, 0xFC, 0x05, 0x20, 0xF9,  # clear the map (the boot logo's too)
        0x21, 0x10, 0x80, 0x3E, 0xFF, 0x0E, 0x10,  # ld hl,0x8010; ld a,0xFF; ld c,16
        0x22, 0x0D, 0x20, 0xFC,  # ld [hl+],a; dec c; jr nz,-4
        0x21, 0x00, 0x98, 0x3E, 0x01, 0x0E, 0x14,  # ld hl,0x9800; ld a,1; ld c,20
        0x22, 0x0D, 0x20, 0xFC,  # ld [hl+],a; dec c; jr nz,-4
        0x21, 0x00, 0xFE,  # ld hl,0xFE00
        0x3E, 0x38, 0x22, 0x3E, 0x30, 0x22, 0x3E, 0x01, 0x22, 0xAF, 0x22,  # y, x, tile, attr 0
        0x3E, 0x38, 0x22, 0x3E, 0x58, 0x22, 0x3E, 0x01, 0x22, 0x3E, 0x10, 0x22,  # attr 0x10
        0x3E, 0xE4, 0xE0, 0x47,  # BGP
        0x3E, 0x40, 0xE0, 0x48,  # OBP0
        0x3E, 0x80, 0xE0, 0x49,  # OBP1
        0x3E, 0x93, 0xE0, 0x40,  # LCDC: on, tiles at 0x8000, objects, BG
        0x18, 0xFE,  # jr -2
    ]
)  # fmt: skip
# Screen pixels: BG colour 3 (row 0), BG colour 0, object 0 (OBP0), object 1 (OBP1).
BG3, BG0, OBJ0, OBJ1 = (0, 0), (100, 100), (44, 44), (44, 84)


def cgb_rom(program: bytes, flag: int = 0x80) -> bytes:
    rom = bytearray(build_rom(program, title="CGB TEST"))
    rom[0x143] = flag
    rom[0x14D] = (-sum(b + 1 for b in rom[0x134:0x14D])) & 0xFF
    return bytes(rom)


def pyboy_module() -> Any:
    try:
        return import_pyboy(exact=True, purpose="the CGB PyBoy drop-in tests")
    except ImportError as e:
        pytest.skip(str(e))


def real_pyboy(path: Path, **kwargs: Any) -> Any:
    pyboy = pyboy_module()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pyboy.PyBoy(str(path), window="null", sound_emulated=False, **kwargs)


def write(tmp_path: Path, name: str, rom: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(rom)
    return path


def test_cgb_argument_picks_the_machine_as_pyboy(tmp_path: Path) -> None:
    color = write(tmp_path, "color.gbc", cgb_rom(BANKS_PROGRAM))
    plain = write(tmp_path, "plain.gb", build_rom(OBJECTS_PROGRAM))
    for path, cgb, model, cgb_mode in [
        (color, None, "cgb", True),  # header byte 0x143 bit 7
        (plain, None, "dmg", False),
        (color, False, "dmg", False),
        (plain, True, "cgb", False),  # a DMG cartridge on a CGB: compatibility mode
        (color, True, "cgb", True),
    ]:
        pb = PyBoy(path, cgb=cgb)
        assert (pb._gb.model, pb._gb.cgb_mode) == (model, cgb_mode), (path.name, cgb)
    boot = write(tmp_path, "boot.bin", bytes(256))
    with pytest.raises(PyBoyInvalidOperationException, match="Invalid bootrom"):
        PyBoy(color, cgb=True, bootrom=boot)
    # cgb=None with a boot ROM follows the boot ROM (256 bytes: a DMG's), as in PyBoy.
    assert PyBoy(color, bootrom=boot)._gb.model == "dmg"
    # A CGB boot ROM (2,304 bytes) picks the CGB and runs from 0x0000.
    long_boot = write(tmp_path, "cgb_boot.bin", bytes(0x900))
    booting = PyBoy(color, bootrom=long_boot)
    assert (booting._gb.model, booting._gb._boot_rom) == ("cgb", bytes(0x900))
    assert booting._gb.registers["pc"] == 0
    with pytest.raises(PyBoyInvalidOperationException, match="only available in DMG mode"):
        PyBoy(color).set_color_palette((0, 0, 0, 0))
    with pytest.raises(PyBoyInvalidInputException, match="three palettes"):
        PyBoy(plain, cgb=True, cgb_color_palette=((0, 0, 0, 0),))


def test_cgb_arguments_as_pyboy_decides(tmp_path: Path) -> None:
    color = write(tmp_path, "color.gbc", cgb_rom(BANKS_PROGRAM))
    plain = write(tmp_path, "plain.gb", build_rom(OBJECTS_PROGRAM))
    for path, cgb in [(color, None), (plain, None), (color, False), (plain, True)]:
        theirs = real_pyboy(path, cgb=cgb)
        # PyBoy's VRAM bank 1 is there exactly when it emulates a CGB.
        try:
            theirs.memory[1, 0x8000]
            refusal = ""
        except Exception as e:  # PyBoy's own exception class, not emurust's twin
            refusal = str(e)
        their_cgb = refusal == ""
        assert their_cgb or "only supported for CGB mode" in refusal
        assert (PyBoy(path, cgb=cgb)._gb.model == "cgb") == their_cgb, (path.name, cgb)


def test_banked_memory_matches_pyboy(tmp_path: Path) -> None:
    path = write(tmp_path, "banks.gbc", cgb_rom(BANKS_PROGRAM))
    ours = PyBoy(path)
    ours.tick(100)
    expected = {
        (1, 0x8000): 0x5A,
        (0, 0x8000): 0xA5,
        (0, 0xC000): 0x77,
        (0, 0xD000): 0x77,  # bank 0 at 0xD000: bank 0's first byte, as in PyBoy
        (3, 0xC000): 3,
        **{(b, 0xD000): b for b in range(1, 8)},
    }
    for key, value in expected.items():
        assert ours.memory[key] == value, key
    assert ours.memory[0xD000] == 3, "SVBK 3 is mapped"
    assert ours.memory[1, 0x8000:0x8004] == [0x5A, 0, 0, 0]
    assert ours.memory[5, 0xD000:0xD004:2] == [5, 0]
    # Out-of-range banks and ranges: PyBoy's errors (its exception classes, and emurust's).
    errors: list[tuple[tuple[int, Any], str]] = [
        ((2, 0x8000), "VRAM Bank out of range"),
        ((8, 0xD000), "WRAM Bank out of range"),
        ((-1, 0xD000), "WRAM Bank out of range"),
        ((1, slice(0xCFFF, 0xD001)), "Out of bounds for reading WRAM bank"),
    ]
    for key, message in errors:
        with pytest.raises(PyBoyOutOfBoundsException, match=message):
            ours.memory[key]
        with pytest.raises(emurust.InvalidAddressError):
            ours.memory[key] = 1
    # Writes reach the bank whatever SVBK/VBK select.
    ours.memory[6, 0xD010:0xD013] = [7, 8, 9]
    ours.memory[1, 0x9FFF] = 0x42
    ours.memory[0xFF70] = 6
    assert ours.memory[0xD010:0xD013] == [7, 8, 9]
    ours.memory[0xFF4F] = 1
    assert ours.memory[0x9FFF] == 0x42

    theirs = real_pyboy(path)
    theirs.tick(100)
    for bank in range(8):
        assert ours.memory[bank, 0xC000:0xC010] == theirs.memory[bank, 0xC000:0xC010]
    ours = PyBoy(path)
    ours.tick(100)
    for bank in range(8):
        assert ours.memory[bank, 0xD000:0xD010] == theirs.memory[bank, 0xD000:0xD010], bank
    for bank in range(2):
        assert ours.memory[bank, 0x8000:0x8010] == theirs.memory[bank, 0x8000:0x8010], bank


def test_dmg_cartridge_on_a_cgb_uses_the_object_palettes(tmp_path: Path) -> None:
    path = write(tmp_path, "objects.gb", build_rom(OBJECTS_PROGRAM))
    palettes = (
        (0xFFFFFF, 0x7BFF31, 0x0063C5, 0x000000),
        (0xFFFFFF, 0xFF8484, 0x943A3A, 0x000000),
        (0xFFFFFF, 0x112233, 0x445566, 0x000000),
    )
    ours = PyBoy(path, cgb=True, cgb_color_palette=palettes)
    ours.tick(100)
    screen = ours.screen.ndarray
    for (y, x), colour in [(BG3, 0x000000), (BG0, 0xFFFFFF), (OBJ0, 0xFF8484), (OBJ1, 0x445566)]:
        rgb = (colour >> 16, (colour >> 8) & 0xFF, colour & 0xFF, 0xFF)
        assert tuple(screen[y, x]) == rgb, (y, x)
    # The core draws the objects through OBJ palettes 0 and 1 (the boot ROM's default
    # compatibility palettes), on the fast path and on the reference path alike.
    for reference in (False, True):
        gb = emurust.GameBoy(path.read_bytes(), model="cgb")
        gb.reference_mode = reference
        gb.tick(10)
        assert tuple(gb.screen[OBJ0]) == (248, 128, 128)  # OBJ 0 colour 1: 0x421F
        assert tuple(gb.screen[OBJ1]) == (144, 56, 56)  # OBJ 1 colour 2: 0x1CF2
        assert tuple(gb.screen[BG3]) == (0, 0, 0)
        assert tuple(gb.screen[BG0]) == (248, 248, 248)
    theirs = real_pyboy(path, cgb=True, cgb_color_palette=palettes)
    theirs.tick(100)
    assert np.array_equal(screen, theirs.screen.ndarray)


def test_cgb_game_frames_and_colours_as_pyboy(shared_roms: Path) -> None:
    """µCity (CGB-enhanced, double speed): emurust.PyBoy's frames end where PyBoy's do
    (LY 153 -> 0, in CPU time: 70,224 T-cycles a frame, twice that in double speed) and the
    screen holds PyBoy's colours (``x << 3``)."""
    rom = shared_roms / "homebrew/ucity/ucity.gbc"
    if not rom.exists():
        pytest.skip(f"{rom} not found")
    ours = PyBoy(rom)
    ours.tick(120)
    start = ours._cycles()
    ours.tick(60)
    assert ours._cycles() - start == 60 * 2 * 70224, "60 double-speed frames"
    assert ours.frame_count == 180
    colours = {tuple(c) for c in ours.screen.ndarray.reshape(-1, 4).tolist()}
    assert len(colours) > 4
    assert all(v % 8 == 0 for c in colours for v in c[:3]), "PyBoy's x << 3 conversion"
    theirs = real_pyboy(rom)
    theirs.tick(180)
    assert theirs._cycles() - 4_511_356 < ours._cycles(), "PyBoy's boot: 4,511,356 T-cycles"


# ---- PyBoy 2.8.1 save states on a CGB -------------------------------------------------------

UCITY = "homebrew/ucity/ucity.gbc"
# PyBoy's frame (its CGB boot ROM's 64 frames, then µCity's title and menus) at which the
# state is taken; the inputs then move through µCity's menus.
STATE_FRAME = 200
INPUTS = ("start", "a", "right", "down", "a", "left", "b", "up")


def _ucity(shared_roms: Path) -> Path:
    rom = shared_roms / UCITY
    if not rom.is_file():
        pytest.skip(f"{rom} not found")
    return rom


def _pyboy_state(pb: Any) -> bytes:
    import io

    f = io.BytesIO()
    pb.save_state(f)
    return f.getvalue()


def test_pyboy_cgb_states_load_and_continue_as_pyboy(shared_roms: Path) -> None:
    """A state PyBoy (cgb=True) saved in µCity (double speed, HDMA, VRAM bank 1, colour
    palettes, WRAM banks) loads into emurust.PyBoy(cgb=True) and into
    GameBoy.from_pyboy_state (a CGB), and emurust.PyBoy then runs 90 frames with buttons as
    PyBoy does: the same screen (PyBoy's colours), every WRAM and VRAM bank, OAM and HRAM at
    every frame end; the frame ends fall at most an instruction apart (PyBoy's late
    interrupts, docs/verification.md)."""
    rom = _ucity(shared_roms)
    pb = real_pyboy(rom, cgb=True)
    pb.tick(STATE_FRAME, False)
    state = _pyboy_state(pb)
    gb = emurust.GameBoy.from_pyboy_state(rom, state)
    assert (gb.model, gb.cycles) == ("cgb", pb._cycles())
    ours = PyBoy(rom, cgb=True)
    import io

    ours.load_state(io.BytesIO(state))
    assert ours._cycles() == pb._cycles()
    assert np.array_equal(ours.screen.ndarray, pb.screen.ndarray), "PyBoy's last frame"
    for step in range(90):
        if step % 15 == 3:
            for p in (ours, pb):
                p.button(INPUTS[(step // 15) % len(INPUTS)], 3)
        ours.tick(1, True)
        pb.tick(1, True)
        assert abs(ours._cycles() - pb._cycles()) <= 24, step
        assert np.array_equal(ours.screen.ndarray, pb.screen.ndarray), step
        assert cgb_banks(ours) == cgb_banks(pb), step
        assert ours.memory[0xFE00:0xFEA0] == pb.memory[0xFE00:0xFEA0], step
        assert ours.memory[0xFF80:0xFFFF] == pb.memory[0xFF80:0xFFFF], step
    pb.stop(save=False)


def test_cgb_states_written_by_emurust_continue_in_pyboy(shared_roms: Path) -> None:
    """emurust.PyBoy(cgb=True), started from PyBoy's state and run in step with it, writes a
    PyBoy-format state at a frame end: a fresh PyBoy(cgb=True) that loads it runs 120 frames
    with buttons exactly as one that loads PyBoy's own state there (cycles, registers,
    every bank, screen), and it reads back into emurust as the same machine."""
    import io

    rom = _ucity(shared_roms)
    pb = real_pyboy(rom, cgb=True)
    pb.tick(STATE_FRAME, False)
    ours = PyBoy(rom, cgb=True)
    ours.load_state(io.BytesIO(_pyboy_state(pb)))
    for _ in range(10):
        ours.tick(1, True)
        pb.tick(1, True)
    assert ours._cycles() == pb._cycles()
    mine = io.BytesIO()
    ours.save_state(mine, state_format="pyboy")
    yours = _pyboy_state(pb)
    assert len(mine.getvalue()) == len(yours)
    loaded, reference = real_pyboy(rom, cgb=True), real_pyboy(rom, cgb=True)
    loaded.load_state(io.BytesIO(mine.getvalue()))
    reference.load_state(io.BytesIO(yours))
    for step in range(120):
        for p in (loaded, reference):
            if step % 20 == 5:
                p.button(INPUTS[(step // 20) % len(INPUTS)], 2)
            p.tick(1, True)
        assert loaded._cycles() == reference._cycles(), step
        assert loaded.register_file.PC == reference.register_file.PC, step
        assert np.array_equal(loaded.screen.ndarray, reference.screen.ndarray), step
        if step % 10 == 9:
            assert cgb_banks(loaded) == cgb_banks(reference), step
    # Read back: the same machine, which writes the same bytes but for the last OAM DMA's
    # source and start (bytes 43-54, kept for PyBoy's sake; a load does not restore them).
    again = PyBoy(rom, cgb=True)
    again.load_state(io.BytesIO(mine.getvalue()))
    twice = io.BytesIO()
    again.save_state(twice, state_format="pyboy")
    a, b = twice.getvalue(), mine.getvalue()
    assert a[:43] + a[55:] == b[:43] + b[55:]
    for p in (pb, loaded, reference):
        p.stop(save=False)


def test_cgb_pyboy_state_errors_name_the_problem(tmp_path: Path) -> None:
    """PyBoy's CGB states go into a CGB, its DMG states into a DMG, a CGB-mode state not
    into a CGB running the cartridge in compatibility mode; truncated states are refused:
    each with InvalidStateError naming the problem, the machine unchanged."""
    color = write(tmp_path, "color.gbc", cgb_rom(BANKS_PROGRAM))
    pb = real_pyboy(color, cgb=True)
    pb.tick(80, False)
    cgb_state = _pyboy_state(pb)
    pb.stop(save=False)
    dmg = real_pyboy(color, cgb=False)
    dmg.tick(80, False)
    dmg_state = _pyboy_state(dmg)
    dmg.stop(save=False)
    machine = emurust.GameBoy(color, model="cgb")
    before = machine.save_state()
    with pytest.raises(emurust.InvalidStateError, match='model="dmg"'):
        machine.load_pyboy_state(dmg_state)
    with pytest.raises(emurust.InvalidStateError, match="truncated"):
        machine.load_pyboy_state(cgb_state[:9000])
    assert machine.save_state() == before
    with pytest.raises(emurust.InvalidStateError, match='model="cgb"'):
        emurust.GameBoy(color, model="dmg").load_pyboy_state(cgb_state)
    # The same state on a DMG cartridge's CGB (compatibility mode): refused by name.
    plain = emurust.GameBoy(build_rom(BANKS_PROGRAM), model="cgb")
    with pytest.raises(emurust.InvalidStateError, match="DMG compatibility mode"):
        plain.load_pyboy_state(cgb_state)
    machine.load_pyboy_state(cgb_state)
    assert machine.memory[0xD000] == 3
    assert machine.memory[0xC000] == 0x77
    assert machine._read_bank("vram", 1, 0, 1) == b"\x5a"
