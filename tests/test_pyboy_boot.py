"""emurust's boot ROM (``python/emurust/data/boot/dmg_boot.asm``), which ``emurust.PyBoy``
runs when no ``bootrom=`` is given, against PyBoy 2.8.1 running its own from power-on: the
same frames, the game starting at the same cycle in the same state (issue 39).

The comparisons skip without PyBoy 2.8.1, the homebrew games without the shared test-ROM
folder."""

from __future__ import annotations

import io
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import emurust
from emurust._pyboy_adapter import import_pyboy
from emurust.games.starcatch import ROM_PATH as STARCATCH
from emurust.pyboy._boot import BOOT_ROM_SOURCE, HANDOVER_CYCLE, boot_rom
from emurust.tools.asm import assemble_file

HOMEBREW = ("homebrew/tobutobugirl/tobu.gb", "homebrew/ucity/ucity.gbc")
# How long each game runs in step with PyBoy from power-on: then one of PyBoy's known
# deviations from the hardware (docs/verification.md) moves the two apart by a few cycles,
# as it does from the lockstep harness's boot ROM (tobu.gb at frame 117, ucity.gbc at 65).
IN_STEP_UNTIL = {"starcatch.gb": 300, "tobu.gb": 115, "ucity.gbc": 75}
# Frame ends at which emurust writes a PyBoy-format state (within IN_STEP_UNTIL).
STATE_POINTS = {"starcatch.gb": (104, 224, 290), "tobu.gb": (95, 110)}
BOOT_FRAMES = 64  # PyBoy 2.8.1's boot ROM hands over during frame 65
MARK = range(0x8010, 0x8070)  # the six tiles of the boot ROM's mark (emurust's own)
# Registers that differ between the two at power-on and that a boot ROM cannot set: P1
# (PyBoy reads 0x00 before a game selects a group) and DMA (0x00 on PyBoy; writing it
# would start a transfer).
UNSETTABLE_IO = (0xFF00, 0xFF46)
# SB after a transfer with the external clock and no partner: it keeps the written byte on
# emurust, as on a DMG, and reads 0xFF on PyBoy (Tobu Tobu Girl writes 0x66 there).
SERIAL_DATA = 0xFF01


def _pyboy(rom: Path | str) -> Any:
    try:
        pyboy = import_pyboy(exact=True, purpose="the boot ROM comparisons")
    except ImportError as e:
        pytest.skip(str(e))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # Sound emulated, so that PyBoy's sound registers read what the APU holds.
        return pyboy.PyBoy(str(rom), window="null", cgb=False, sound_emulated=True)


def _roms() -> list[Path]:
    roms = [Path(STARCATCH)]
    shared = emurust.roms_dir()
    roms += [shared / r for r in HOMEBREW if (shared / r).is_file()]
    return roms


def test_binary_is_built_from_the_source() -> None:
    assert assemble_file(BOOT_ROM_SOURCE).rom[:256] == boot_rom()
    assert len(boot_rom()) == 256


def _state(pb: Any) -> dict[str, Any]:
    r = pb.register_file
    io = bytearray(pb.memory[0xFF00:0xFF4C])
    for addr in (*UNSETTABLE_IO, SERIAL_DATA):
        io[addr - 0xFF00] = 0
    return {
        "cycles": pb._cycles(),
        "regs": (r.A, r.F, r.B, r.C, r.D, r.E, r.HL, r.SP),
        "io": bytes(io),
        "ie": pb.memory[0xFFFF],
        "wram": bytes(pb.memory[0xC000:0xE000]),
        "hram": bytes(pb.memory[0xFF80:0xFFFF]),
        "oam": bytes(pb.memory[0xFE00:0xFEA0]),
    }


def test_handover_at_pyboys_cycle_in_pyboys_state() -> None:
    ours, theirs = emurust.PyBoy(STARCATCH), _pyboy(STARCATCH)
    seen: dict[str, dict[str, Any]] = {}
    for name, pb in (("ours", ours), ("theirs", theirs)):
        pb.hook_register(
            0, 0x0100, lambda ctx: seen.__setitem__(ctx[0], _state(ctx[1])), (name, pb)
        )
        while name not in seen:
            pb.tick(1, render=False)
        pb.hook_deregister(0, 0x0100)
    assert seen["ours"]["cycles"] == HANDOVER_CYCLE == seen["theirs"]["cycles"]
    assert seen["ours"] == seen["theirs"]
    assert ours.frame_count == theirs.frame_count == BOOT_FRAMES + 1
    vram_ours, vram_theirs = ours.memory[0x8000:0xA000], theirs.memory[0x8000:0xA000]
    differ = {0x8000 + i for i, (a, b) in enumerate(zip(vram_ours, vram_theirs)) if a != b}
    assert differ <= set(MARK)  # only the mark's tiles (the map entries are PyBoy's)


@pytest.mark.parametrize("rom", _roms(), ids=lambda p: p.name)
def test_lockstep_from_power_on(rom: Path) -> None:
    """Frame by frame from power-on: the same frame ends during the boot (within one
    instruction: the two boot ROMs run different code), then the same cycles, registers,
    RAM, I/O, VRAM and screen once the game has replaced the boot ROM's tiles."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = emurust.PyBoy(str(rom), cgb=False)
    theirs = _pyboy(rom)
    vram_same_since = None
    for frame in range(1, IN_STEP_UNTIL[rom.name] + 1):
        for pb in (ours, theirs):
            pb.tick(1, render=True)
        assert ours.frame_count == theirs.frame_count == frame
        if frame <= BOOT_FRAMES:
            assert abs(ours._cycles() - theirs._cycles()) <= 24, frame
            continue
        a, b = _state(ours), _state(theirs)
        assert a == b, (rom.name, frame, [k for k in a if a[k] != b[k]])
        vram_ours, vram_theirs = ours.memory[0x8000:0xA000], theirs.memory[0x8000:0xA000]
        differ = {0x8000 + i for i, (x, y) in enumerate(zip(vram_ours, vram_theirs)) if x != y}
        assert differ <= set(MARK), (rom.name, frame)
        if not differ and vram_same_since is None:
            vram_same_since = frame
        if vram_same_since is not None and frame > vram_same_since:  # a whole frame drawn
            assert np.array_equal(ours.screen.ndarray, theirs.screen.ndarray), (rom.name, frame)
    if rom.name == "starcatch.gb":  # its title screen replaces every tile of the mark
        assert vram_same_since is not None


def test_ticks_from_power_on_reach_the_game_on_pyboys_frame() -> None:
    ours, theirs = emurust.PyBoy(STARCATCH), _pyboy(STARCATCH)
    for pb in (ours, theirs):
        pb.tick(91, render=False)
    # The example: at frame 91 WY and the game's state are PyBoy's.
    assert ours.memory[0xFF4A] == theirs.memory[0xFF4A]
    assert ours.memory[0xC000:0xE000] == theirs.memory[0xC000:0xE000]


def test_gameboy_keeps_its_post_boot_start() -> None:
    gb = emurust.GameBoy(STARCATCH)
    assert gb.registers["pc"] == 0x0100
    assert emurust.PyBoy(STARCATCH).register_file.PC == 0x0000
    with emurust.PyBoy(STARCATCH) as pb:
        assert pb.memory[-1, 0:256] == list(boot_rom())  # PyBoy's memory[-1, ...]


# ---- PyBoy-format states written by emurust ---------------------------------------------


def _snapshot(pb: Any) -> tuple[Any, ...]:
    r = pb.register_file
    return (
        pb._cycles(),
        (r.A, r.F, r.B, r.C, r.D, r.E, r.HL, r.SP, r.PC),
        bytes(pb.memory[0x8000 : MARK.start]),
        bytes(pb.memory[MARK.stop : 0xA000]),
        bytes(pb.memory[0xC000:0xE000]),
        bytes(pb.memory[0xFF80:0x10000]),
        bytes(pb.memory[0xFE00:0xFEA0]),
        pb.screen.ndarray.tobytes(),
    )


def _pyboy_module() -> Any:
    try:
        return import_pyboy(exact=True, purpose="the PyBoy state comparisons")
    except ImportError as e:
        pytest.skip(str(e))


# A DMG PyBoy state (sound off, 48 kHz): VRAM at offset 45, the screen (144 x 160 pixels
# of RGBA and an attribute byte) at 11193, the 36-byte serial section before the SGB's.
VRAM_AT, SCREEN_AT, SGB_LEN = 45, 11193, 11 + 0x2000 + 0x800 + 0x80


def _masked(state: bytes) -> bytes:
    """A PyBoy state without what emurust cannot know or differs in on purpose: the boot
    ROM's mark tiles in VRAM (some games never overwrite them), the renderer's per-pixel
    attribute byte (whether the background pixel had colour 0, which only the drawing of
    that same line reads; emurust keeps shades, not colour numbers) and SB
    (SERIAL_DATA)."""
    out = bytearray(state)
    out[VRAM_AT + MARK.start - 0x8000 : VRAM_AT + MARK.stop - 0x8000] = bytes(len(MARK))
    out[SCREEN_AT + 4 : SCREEN_AT + 144 * 160 * 5 : 5] = bytes(144 * 160)
    out[len(out) - SGB_LEN - 36] = 0
    return bytes(out)


@pytest.mark.parametrize(
    "rom", [r for r in _roms() if r.name in STATE_POINTS], ids=lambda p: p.name
)
def test_pyboy_states_written_by_emurust(rom: Path) -> None:
    """emurust.PyBoy and PyBoy (sound off) run in step from power-on. At three frame ends
    emurust writes a PyBoy-format state: it is PyBoy's own state at that point byte for
    byte, and a fresh PyBoy that loads it runs 150 frames (with buttons) exactly as one
    that loads PyBoy's own: the same cycles, registers, memory and screen every frame."""
    pyboy = _pyboy_module()

    def new() -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return pyboy.PyBoy(str(rom), window="null", cgb=False, sound_emulated=False)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = emurust.PyBoy(str(rom), cgb=False)
    theirs = new()
    inputs = ("start", "a", "right", "left", "b", "up")
    frame = 0
    for point in STATE_POINTS[rom.name]:
        while frame < point:
            frame += 1
            for pb in (ours, theirs):
                pb.tick(1, render=True)
        assert ours._cycles() == theirs._cycles()
        mine, yours = io.BytesIO(), io.BytesIO()
        ours.save_state(mine, state_format="pyboy")
        theirs.save_state(yours)
        assert _masked(mine.getvalue()) == _masked(yours.getvalue()), (rom.name, frame)
        loaded, reference = new(), new()
        mine.seek(0)
        yours.seek(0)
        loaded.load_state(mine)
        reference.load_state(yours)
        for step in range(150):
            for pb in (loaded, reference):
                if step % 20 == 5:
                    pb.button(inputs[(step // 20) % len(inputs)], 2)
                pb.tick(1, render=True)
            assert _snapshot(loaded) == _snapshot(reference), (rom.name, frame, step)
        loaded.stop(save=False)
        reference.stop(save=False)


def test_pyboy_states_only_at_frame_ends() -> None:
    with emurust.PyBoy(STARCATCH) as pb:
        pb.tick(80)
        pb._gb.tick(1, render=False)  # the native frame ends at VBlank, not at LY 0
        with pytest.raises(emurust.InvalidStateError, match="frame end"):
            pb.save_state(io.BytesIO(), state_format="pyboy")
        with pytest.raises(ValueError, match="state_format"):
            pb.save_state(io.BytesIO(), state_format="json")
    with emurust.PyBoy(STARCATCH) as pb:
        pb.tick(2)  # the LCD is still off in the boot ROM's first frames
        with pytest.raises(emurust.InvalidStateError, match="LCD is off"):
            pb.save_state(io.BytesIO(), state_format="pyboy")
