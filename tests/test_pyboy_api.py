"""``emurust.pyboy``: PyBoy's module layout, exceptions and observation APIs (game area,
sprites, tiles, tile maps, memory scanner, GameShark), ROM patching through ``memory``,
states from another cartridge and ``frame_count`` inside hooks (issue 39).

The comparisons run emurust.PyBoy and PyBoy 2.8.1 side by side from the lockstep harness's
boot ROM (so both start in step) and skip without PyBoy; those on the homebrew games skip
without the shared test-ROM folder. Docs: docs/pyboy.md."""

from __future__ import annotations

import io
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import emurust
import emurust.pyboy
from emurust._pyboy_adapter import import_pyboy
from emurust.games.starcatch import ROM_PATH as STARCATCH
from emurust.pyboy import utils as eutils
from emurust.tools.asm.program import Program
from emurust.tools.asm.rom import build_rom
from emurust.verify.lockstep import sync_boot_rom

HOMEBREW = ("homebrew/tobutobugirl/tobu.gb", "homebrew/ucity/ucity.gbc")


def pyboy_module() -> Any:
    try:
        return import_pyboy(exact=True, purpose="the emurust.pyboy comparisons")
    except ImportError as e:
        pytest.skip(str(e))


@pytest.fixture(scope="module")
def boot_path() -> Path:
    path = Path(tempfile.mkdtemp()) / "boot.bin"
    path.write_bytes(sync_boot_rom())
    return path


def _pair(rom: Path | str, boot: Path) -> tuple[Any, Any]:
    pyboy = pyboy_module()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = emurust.pyboy.PyBoy(str(rom), window="null", bootrom=str(boot), cgb=False)
        theirs = pyboy.PyBoy(
            str(rom), window="null", bootrom=str(boot), cgb=False, sound_emulated=False
        )
    return ours, theirs


def _roms(shared: Path | None) -> Iterator[Path]:
    yield Path(STARCATCH)
    if shared is not None:
        for rel in HOMEBREW:
            if (shared / rel).is_file():
                yield shared / rel


@pytest.fixture(scope="module")
def comparison_roms() -> list[Path]:
    shared = emurust.roms_dir()
    return list(_roms(shared if shared.is_dir() else None))


def _steps(pbs: tuple[Any, ...], n: int) -> Iterator[int]:
    """Drives both machines with the same inputs, yielding after each step."""
    for step in range(n):
        for pb in pbs:
            pb.button(("start", "a", "right", "b", "left")[step % 5], 1 + step % 4)
            pb.tick(7 + step % 5, render=step % 3 != 0)
        yield step


# ---- layout ------------------------------------------------------------------------


def test_module_layout_mirrors_pyboys() -> None:
    from emurust.pyboy import PyBoy, PyBoyMemoryView, PyBoyRegisterFile
    from emurust.pyboy.api import Screen, Sprite, Tile, TileMap, constants
    from emurust.pyboy.api.memory_scanner import (
        DynamicComparisonType,
        MemoryScanner,
        ScanMode,
        StandardComparisonType,
    )
    from emurust.pyboy.plugins.base_plugin import PyBoyGameWrapper
    from emurust.pyboy.utils import WindowEvent

    assert PyBoy is emurust.PyBoy
    assert WindowEvent is emurust.WindowEvent
    assert constants.TILES == 384
    assert constants.SPRITES == 40
    assert {c.__name__ for c in (Screen, Sprite, Tile, TileMap, MemoryScanner)} == {
        "Screen",
        "Sprite",
        "Tile",
        "TileMap",
        "MemoryScanner",
    }
    assert PyBoyMemoryView.__name__ == "PyBoyMemoryView"
    assert PyBoyRegisterFile.__name__ == "PyBoyRegisterFile"
    assert PyBoyGameWrapper.__name__ == "PyBoyGameWrapper"
    assert [m.name for m in DynamicComparisonType] == [
        "UNCHANGED",
        "CHANGED",
        "INCREASED",
        "DECREASED",
        "MATCH",
    ]
    assert [m.value for m in StandardComparisonType] == [1, 2, 3, 4, 5]
    assert [m.name for m in ScanMode] == ["INT", "BCD"]


def test_importing_emurust_pyboy_does_not_import_pyboy() -> None:
    code = (
        "import sys; from emurust.pyboy import PyBoy; from emurust.pyboy.utils import "
        "WindowEvent; import emurust.pyboy.api; print('pyboy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"]


def test_utils_names_and_hierarchy_match_pyboys() -> None:
    pyboy = pyboy_module()
    import pyboy.utils as putils

    for name in putils.__all__:
        assert hasattr(eutils, name), name
        ours, theirs = getattr(eutils, name), getattr(putils, name)
        if isinstance(theirs, type) and issubclass(theirs, BaseException):
            assert [c.__name__ for c in ours.__mro__] == [c.__name__ for c in theirs.__mro__]
    assert pyboy is not None
    for value in (0, 7, 42, 99, 1234, 9999):
        for width in (1, 2):
            for order in ("little", "big"):
                assert eutils.dec_to_bcd(value, width, order) == putils.dec_to_bcd(
                    value, width, order
                )
                bcd = putils.dec_to_bcd(value, width, order)
                assert eutils.bcd_to_dec(bcd, width, order) == putils.bcd_to_dec(bcd, width, order)
    for event in range(45):
        assert str(eutils.WindowEvent(event)) == str(putils.WindowEvent(event))


def test_clock_constants_are_pyboys() -> None:
    """The clock's numbers (rust/src/clock.rs, exported as ``_core.CLOCK_HZ`` and
    ``_core.FRAME_CYCLES``) and ``emurust.pyboy.utils``'s constants are PyBoy's values."""
    pyboy_module()
    import pyboy.utils as putils

    from emurust import _core

    assert (_core.CLOCK_HZ, _core.FRAME_CYCLES) == (putils.CLOCK_RATE, putils.FRAME_CYCLES)
    for name in ("CLOCK_RATE", "FRAME_CYCLES", "STATE_VERSION", "INTR_VBLANK", "INTR_LCDC"):
        assert getattr(eutils, name) == getattr(putils, name), name
    for name in ("INTR_TIMER", "INTR_SERIAL", "INTR_HIGHTOLOW"):
        assert getattr(eutils, name) == getattr(putils, name), name


# ---- exceptions ----------------------------------------------------------------------


def _raisers(stopped: Any) -> list[tuple[str, Callable[[Any], object]]]:
    return [
        ("PyBoyInvalidOperationException", lambda pb: len(pb.memory)),
        ("PyBoyInvalidInputException", lambda pb: pb.button("turbo")),
        ("PyBoyInvalidInputException", lambda pb: pb.tick(-1)),
        ("PyBoyInvalidInputException", lambda pb: pb.memory[0xC000:0xC003:-1]),
        ("PyBoyInvalidInputException", lambda pb: pb.memory[1, 0x8000]),
        ("PyBoyOutOfBoundsException", lambda pb: pb.memory[0x10000:0x10001]),
        ("PyBoyOutOfBoundsException", lambda pb: pb.memory[0, 0x3FFF:0x4001]),
        ("PyBoyOutOfBoundsException", lambda pb: pb.get_sprite(40)),
        ("PyBoyOutOfBoundsException", lambda pb: pb.get_tile(384)),
        ("PyBoyInvalidInputException", lambda pb: pb.save_state("state.bin")),
        ("PyBoyException", lambda pb: pb.load_state(io.BytesIO(bytes([30]) + bytes(64)))),
        ("PyBoyFeatureDisabledError", lambda pb: pb.sound.ndarray),
        ("PyBoyException", lambda pb: pb.rtc_lock_experimental(True)),
        ("PyBoyException", lambda pb: pb.game_wrapper.reset_game()),
        ("PyBoyInvalidOperationException", lambda pb: stopped.tick()),
    ]


def test_errors_are_pyboys_and_emurusts() -> None:
    pyboy = pyboy_module()
    import pyboy.utils as putils

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = pyboy.PyBoy(STARCATCH, window="null", sound_emulated=False)
        their_stopped = pyboy.PyBoy(STARCATCH, window="null", sound_emulated=False)
    ours = emurust.PyBoy(STARCATCH, sound_emulated=False)
    our_stopped = emurust.PyBoy(STARCATCH)
    their_stopped.stop(save=False)
    our_stopped.stop(save=False)
    for (name, call), (_, their_call) in zip(_raisers(our_stopped), _raisers(their_stopped)):
        with pytest.raises(getattr(putils, name)):
            their_call(theirs)  # PyBoy raises this class...
        with pytest.raises(getattr(eutils, name)) as info:
            call(ours)  # ... and so does emurust.PyBoy
        assert isinstance(info.value, emurust.EmuRustError) or not isinstance(
            info.value, (emurust.InvalidArgumentError, emurust.InvalidAddressError)
        )
    # emurust's own classes (and the builtins they were) catch the same errors.
    with pytest.raises(emurust.InvalidArgumentError):
        ours.button("turbo")
    with pytest.raises(ValueError, match="non-negative"):
        ours.tick(-1)
    with pytest.raises(emurust.InvalidAddressError):
        ours.get_sprite(40)
    with pytest.raises(IndexError):
        ours.memory[0x10000:0x10001]
    with pytest.raises(emurust.InvalidStateError):
        ours.load_state(io.BytesIO(bytes([30]) + bytes(64)))
    with pytest.raises(TypeError):
        len(ours.memory)
    with pytest.raises(RuntimeError):
        our_stopped.tick()
    with pytest.raises(emurust.SoundOffError):
        _ = ours.sound.ndarray
    with pytest.raises(NotImplementedError, match="headless"):
        emurust.PyBoy(STARCATCH, window="SDL2")


# ---- observation APIs against PyBoy ---------------------------------------------------


def test_game_area_sprites_and_tiles_match_pyboy(
    boot_path: Path, comparison_roms: list[Path]
) -> None:
    for rom in comparison_roms:
        ours, theirs = _pair(rom, boot_path)
        mapping = np.arange(768)[::-1].copy()
        ids = list(range(0, 384, 3))
        for step in _steps((ours, theirs), 36):
            if step == 12:  # a section, a mapping and a sprite offset
                for pb in (ours, theirs):
                    pb.game_area_dimensions(2, 1, 16, 14, False)
                    pb.game_area_mapping(mapping, 1000)
                    pb.tick()
            if step == 24:  # follows each tile row's SCX/SCY
                for pb in (ours, theirs):
                    pb.game_area_dimensions(0, 0, 20, 18, True)
                    pb.game_area_mapping(None, 0)
                    pb.tick()
            a, b = ours.game_area(), theirs.game_area()
            assert a.dtype == b.dtype == np.uint32
            assert np.array_equal(a, b), (rom.name, step)
            assert ours.game_wrapper.shape == theirs.game_wrapper.shape
            assert ours.screen.tilemap_position_list == theirs.screen.tilemap_position_list
            for i in range(40):
                s, t = ours.get_sprite(i), theirs.get_sprite(i)
                assert repr(s) == repr(t)
                assert (s.x, s.y, s.on_screen, s.shape) == (t.x, t.y, t.on_screen, t.shape)
                assert (s.attr_obj_bg_priority, s.attr_x_flip, s.attr_y_flip) == (
                    t.attr_obj_bg_priority,
                    t.attr_x_flip,
                    t.attr_y_flip,
                )
                assert s.attr_palette_number == t.attr_palette_number
            assert ours.get_sprite_by_tile_identifier(ids) == theirs.get_sprite_by_tile_identifier(
                ids
            )
            assert ours.get_sprite_by_tile_identifier(
                ids, on_screen=False
            ) == theirs.get_sprite_by_tile_identifier(ids, on_screen=False)
            for tile in (0, 1, 2, 17, 128, 255, 256, 300, 383):
                assert np.array_equal(
                    ours.get_tile(tile).ndarray(), theirs.get_tile(tile).ndarray()
                )
            for tm in ("tilemap_background", "tilemap_window"):
                mine, yours = getattr(ours, tm), getattr(theirs, tm)
                assert mine[:, :] == yours[:, :]
                assert mine[3:20:2, 7] == yours[3:20:2, 7]
                assert mine[5, 2:30] == yours[5, 2:30]
                assert mine.tile_identifier(31, 31) == yours.tile_identifier(31, 31)
                assert mine.search_for_identifiers([0, 1, 256]) == yours.search_for_identifiers(
                    [0, 1, 256]
                )
        ours.stop(save=False)
        theirs.stop(save=False)


def test_tile_objects_match_pyboy(boot_path: Path) -> None:
    ours, theirs = _pair(STARCATCH, boot_path)
    for pb in (ours, theirs):
        pb.tick(90)
        pb.tilemap_background.use_tile_objects(True)
    mine, yours = ours.tilemap_background, theirs.tilemap_background
    block_a, block_b = mine[0:20, 0:18], yours[0:20, 0:18]
    assert [[t.tile_identifier for t in row] for row in block_a] == [
        [t.tile_identifier for t in row] for row in block_b
    ]
    tile_a, tile_b = mine.tile(3, 4), yours.tile(3, 4)
    assert (tile_a.tile_identifier, tile_a.data_address, tile_a.shape) == (
        tile_b.tile_identifier,
        tile_b.data_address,
        tile_b.shape,
    )
    assert repr(tile_a) == repr(tile_b)
    assert tile_a == ours.get_tile(tile_a.tile_identifier)
    assert np.array_equal(tile_a.ndarray(), tile_b.ndarray())
    pytest.importorskip("PIL")
    # The image is the ndarray's pixels (PyBoy 2.8.1's compiled build converts a 32-bit
    # integer image instead, which loses the colours: docs/pyboy.md).
    assert tile_a.image().mode == "RGBA"
    assert tile_a.image().tobytes() == tile_b.ndarray().tobytes()
    mine.use_tile_objects(False)
    assert isinstance(mine[0, 0], int)


def test_generic_game_wrapper_start_and_reset(boot_path: Path) -> None:
    with emurust.PyBoy(STARCATCH, bootrom=str(boot_path)) as pb:
        pb.tick(60)
        wrapper = pb.game_wrapper
        assert wrapper is pb.game_wrapper
        assert wrapper.shape == (32, 32)
        wrapper.start_game(timer_div=0x5A)
        assert pb.memory[0xFF04] == 0x5A  # DIV set, as PyBoy's start_game does
        wram = pb.memory[0xC000:0xE000]
        pb.button("start")
        pb.tick(30)
        wrapper.reset_game(timer_div=0x21)
        assert pb.memory[0xC000:0xE000] == wram
        assert pb.memory[0xFF04] == 0x21
        with pytest.raises(NotImplementedError):
            wrapper.game_over()


def test_memory_scanner_matches_pyboy(boot_path: Path) -> None:
    from emurust.pyboy.api import memory_scanner as ems

    pyboy_module()
    from pyboy.api import memory_scanner as pms

    ours, theirs = _pair(STARCATCH, boot_path)
    for pb in (ours, theirs):
        pb.tick(100)
    ms, ps = ours.memory_scanner, theirs.memory_scanner
    assert ms.scan_memory(3, start_addr=0xC000, end_addr=0xC1FF) == ps.scan_memory(
        3, start_addr=0xC000, end_addr=0xC1FF
    )
    assert ms.scan_memory(
        10, 0xC000, 0xCFFF, ems.StandardComparisonType.GREATER_THAN, ems.ScanMode.BCD, 2, "big"
    ) == ps.scan_memory(
        10, 0xC000, 0xCFFF, pms.StandardComparisonType.GREATER_THAN, pms.ScanMode.BCD, 2, "big"
    )
    assert ms.scan_memory(None, 0xC000, 0xC0FF) == ps.scan_memory(None, 0xC000, 0xC0FF)
    for step in _steps((ours, theirs), 6):
        kind = list(ems.DynamicComparisonType)[step % 4]
        assert ms.rescan_memory(None, kind) == ps.rescan_memory(
            None, list(pms.DynamicComparisonType)[step % 4]
        )
    assert ms.rescan_memory(0, ems.DynamicComparisonType.MATCH) == ps.rescan_memory(
        0, pms.DynamicComparisonType.MATCH
    )


def test_gameshark_matches_pyboy(boot_path: Path) -> None:
    ours, theirs = _pair(STARCATCH, boot_path)
    for pb in (ours, theirs):
        pb.gameshark.add("010902C1")  # 0x09 at 0xC102 (Starcatch's lives) before each frame
    for _ in _steps((ours, theirs), 12):
        assert ours.memory[0xC100:0xC110] == theirs.memory[0xC100:0xC110]
        assert ours.memory[0xC102] == 0x09 or ours.memory[0xC102] == theirs.memory[0xC102]
    for pb in (ours, theirs):
        pb.gameshark.remove("010902C1")
    assert ours.memory[0xC102] == theirs.memory[0xC102]
    with emurust.PyBoy(STARCATCH, gameshark="010502C1") as pb:
        pb.tick(3)
        assert pb.gameshark.cheats
        with pytest.raises(eutils.PyBoyInvalidInputException):
            pb.gameshark.add("010502C1")


# ---- speed ---------------------------------------------------------------------------


def test_game_area_is_cheap_next_to_a_frame() -> None:
    """A generous bound so the test holds on a busy machine; the measured ratio is in
    docs/pyboy.md (bench/pyboy_api.py --observations)."""
    import time

    with emurust.PyBoy(STARCATCH) as pb:
        pb.game_area()
        best_area = best_tick = float("inf")
        for _ in range(20):
            t0 = time.perf_counter()
            pb.game_area()
            t1 = time.perf_counter()
            pb.tick(1, render=False)
            t2 = time.perf_counter()
            best_area, best_tick = min(best_area, t1 - t0), min(best_tick, t2 - t1)
        assert best_area < 2e-3


# ---- ROM patching --------------------------------------------------------------------


def _store_loop_rom() -> bytes:
    """``ld a,$42; ld [$C000],a; jr`` back, forever (the $42 at ROM offset 0x151)."""
    a = Program()
    loop = a.here()
    a.ld_a(0x42).ld_mem_a(0xC000).jr(loop)
    return build_rom(a.bytes())


def test_rom_patch_is_what_the_cpu_reads(tmp_path: Path) -> None:
    rom = _store_loop_rom()
    offset = rom.index(bytes([0x3E, 0x42]), 0x150) + 1
    path = tmp_path / "loop.gb"
    path.write_bytes(rom)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        patched, plain, reference = emurust.PyBoy(path), emurust.PyBoy(path), emurust.PyBoy(path)
    reference._gb.reference_mode = True  # the slow reference path reads the patch too
    for pb in (patched, plain, reference):
        pb.tick(66)  # past the boot ROM
        assert pb.memory[0xC000] == 0x42
    for pb in (patched, reference):
        pb.memory[0, offset] = 0x99
        assert pb.memory[0, offset] == 0x99
        assert pb.memory[offset] == 0x99
    for pb in (patched, plain, reference):
        pb.tick(2)
    assert patched.memory[0xC000] == 0x99
    assert reference.memory[0xC000] == 0x99
    assert plain.memory[0xC000] == 0x42  # other machines on the same ROM keep its bytes
    assert plain.memory[offset] == 0x42
    patched.memory[0, offset : offset + 1] = [0x17]
    patched.tick()
    assert patched.memory[0xC000] == 0x17
    with pytest.raises(eutils.PyBoyOutOfBoundsException):
        patched.memory[2, 0x4000] = 0  # a 32 KiB ROM has banks 0 and 1
    with pytest.raises(eutils.PyBoyInvalidInputException):
        patched.memory[0, offset] = 0x100


def test_boot_rom_patch(tmp_path: Path) -> None:
    boot = sync_boot_rom()
    bgp_at = boot.index(bytes([0x3E, 0xFC, 0xE0, 0x47])) + 1  # ld a,$fc; ldh (BGP),a
    path = tmp_path / "boot.bin"
    path.write_bytes(boot)
    with emurust.PyBoy(STARCATCH, bootrom=str(path)) as pb:
        assert pb.memory[-1, bgp_at] == 0xFC
        pb.memory[-1, bgp_at] = 0xE4
        assert pb.memory[-1, bgp_at] == 0xE4
        assert pb.memory[bgp_at] == 0xE4  # mapped over 0x0000-0x00FF
        pb._gb._step_to_cycle(200)  # the boot ROM has set BGP, the game not yet
        assert pb.memory[0xFF47] == 0xE4
    with emurust.PyBoy(STARCATCH, bootrom=str(path)) as pb:
        pb.memory[-1, 0:3] = [0x31, 0xFE, 0xFF]  # a slice, the same bytes: nothing changes
        assert pb.memory[-1, 0:4] == list(boot[:4])
        with pytest.raises(eutils.PyBoyOutOfBoundsException):
            pb.memory[-1, 0x100] = 0


# ---- states from another cartridge, frame_count in hooks ------------------------------


def test_state_from_another_rom_loads_as_in_pyboy(tmp_path: Path) -> None:
    other = bytearray(Path(STARCATCH).read_bytes())
    other[0x150:0x160] = bytes(range(16))  # another ROM, same cartridge type and RAM
    other_path = tmp_path / "other.gb"
    other_path.write_bytes(bytes(other))
    with emurust.PyBoy(STARCATCH) as src:
        src.tick(80)
        f = io.BytesIO()
        src.save_state(f)
        wram = src.memory[0xC000:0xE000]
        regs = src._gb.registers
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dst = emurust.PyBoy(other_path)
    f.seek(0)
    dst.load_state(f)
    assert dst.memory[0xC000:0xE000] == wram
    assert dst._gb.registers == regs
    native = emurust.GameBoy(bytes(other))
    with pytest.raises(emurust.InvalidStateError, match="different ROM"):
        native.load_state(f.getvalue())
    native.load_state(f.getvalue(), check_rom=False)  # the explicit opt-out
    assert native.memory[0xC000:0xE000] == bytes(wram)


def test_frame_count_is_current_inside_hooks(boot_path: Path) -> None:
    ours, theirs = _pair(STARCATCH, boot_path)
    seen: dict[str, list[int]] = {"ours": [], "theirs": []}
    for name, pb in (("ours", ours), ("theirs", theirs)):
        pb.hook_register(0, 0x0040, lambda ctx: ctx[0].append(ctx[1].frame_count), (seen[name], pb))
        pb.tick(40, render=False)  # one long tick
    assert seen["ours"] == seen["theirs"]
    assert len(set(seen["ours"])) > 30  # not one stale value


def _raster_rom() -> bytes:
    """Sets SCX=8 on line 40, SCY=16 and WX=20 on line 100, and resets them in VBlank:
    three per-line settings a frame for ``screen.tilemap_position_list``."""
    a = Program()
    loop = a.here()

    def wait_ly(line: int) -> None:
        top = a.here()
        a.ldh_a_mem(0x44).emit(0xFE, line)  # ldh a,(LY); cp line
        a.jr(top, condition="nz")

    wait_ly(40)
    a.ld_a(8).ldh_mem_a(0x43)
    wait_ly(100)
    a.ld_a(16).ldh_mem_a(0x42).ld_a(20).ldh_mem_a(0x4B)
    wait_ly(144)
    a.ld_a(0).ldh_mem_a(0x43).ldh_mem_a(0x42).ld_a(7).ldh_mem_a(0x4B)
    a.jr(loop)
    return build_rom(a.bytes())


def test_tilemap_position_list_records_each_line(tmp_path: Path, boot_path: Path) -> None:
    path = tmp_path / "raster.gb"
    path.write_bytes(_raster_rom())
    ours, theirs = _pair(path, boot_path)
    for n in (3, 1, 5):
        for pb in (ours, theirs):
            pb.tick(n, render=n != 1)
        lines = ours.screen.tilemap_position_list
        assert lines == theirs.screen.tilemap_position_list
        assert lines[39] == [0, 0, 0, 0]
        assert lines[40] == [8, 0, 0, 0]
        assert lines[99] == [8, 0, 0, 0]
        assert lines[100] == [8, 16, 13, 0]
        assert lines[143] == [8, 16, 13, 0]
        # follow_scrolling reads them: row 5 (line 40) is shifted by SCX // 8 = 1 tile.
        for pb in (ours, theirs):
            pb.game_area_dimensions(0, 0, 20, 18, True)
        assert np.array_equal(ours.game_area(), theirs.game_area())


# ---- events, log lines, cartridge RAM, sound, randomize --------------------------------


def test_events_palette_state_screenshot_and_gif(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("PIL")
    from emurust.pyboy.utils import WindowEvent

    rom = tmp_path / "game.gb"
    rom.write_bytes(Path(STARCATCH).read_bytes())
    monkeypatch.chdir(tmp_path)
    with emurust.PyBoy(str(rom)) as pb:
        pb.tick(90)
        pb.send_input(WindowEvent.CYCLE_PALETTE)
        pb.tick()
        assert "Palette: SameBoy DMG" in capsys.readouterr().out
        assert {tuple(c) for c in pb.screen.ndarray[..., :3].reshape(-1, 3)} <= {
            (0xC6, 0xDE, 0x8C),
            (0x84, 0xA5, 0x63),
            (0x39, 0x61, 0x39),
            (0x08, 0x18, 0x10),
        }
        pb.send_input(WindowEvent.STATE_SAVE)  # <rom>.state, in PyBoy's format
        pb.tick()  # saved as this frame starts
        assert (tmp_path / "game.gb.state").read_bytes()[0] == eutils.STATE_VERSION
        after = (pb._cycles(), pb.memory[0xC000:0xE000])
        pb.tick(30)
        pb.send_input(WindowEvent.STATE_LOAD)
        pb.tick()  # loaded as this frame starts: the same frame again
        assert (pb._cycles(), pb.memory[0xC000:0xE000]) == after
        pb.send_input(WindowEvent.SCREENSHOT_RECORD)
        pb.tick()
        assert len(list((tmp_path / "screenshots").glob("STARCATCH-*.png"))) == 1
        pb.send_input(WindowEvent.SCREEN_RECORDING_TOGGLE)
        for _ in range(3):  # a frame per tick, as PyBoy records
            pb.button("start")
            pb.tick(20)
        assert len(pb._recording or []) == 3
        pb.send_input(WindowEvent.SCREEN_RECORDING_TOGGLE)
        pb.tick()
        gifs = list((tmp_path / "recordings").glob("STARCATCH-*.gif"))
        assert len(gifs) == 1
        from PIL import Image

        assert Image.open(gifs[0]).format == "GIF"
        assert "Screen recording saved in" in capsys.readouterr().out


def test_log_lines_as_pyboy_prints_them(capsys: pytest.CaptureFixture[str]) -> None:
    pyboy = import_pyboy(exact=True) if _has_pyboy() else None
    for window in ("dummy", "null"):
        emurust.PyBoy(STARCATCH, window=window).stop(save=False)
        ours = capsys.readouterr().out
        if pyboy is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pyboy.PyBoy(STARCATCH, window=window).stop(save=False)
            assert ours == capsys.readouterr().out
        assert ("Deprecated use" in ours) == (window == "dummy")
    emurust.PyBoy(STARCATCH, window="dummy", log_level="CRITICAL").stop(save=False)
    assert capsys.readouterr().out == ""


def _has_pyboy() -> bool:
    try:
        import_pyboy(exact=True)
    except ImportError:
        return False
    return True


def test_cartridge_ram_follows_the_header_as_in_pyboy(tmp_path: Path, boot_path: Path) -> None:
    """An MBC1 cartridge without RAM in its type: PyBoy gives it the header's RAM (at least
    one 8 KiB bank); emurust.PyBoy too, while the native GameBoy has none."""
    a = Program()
    a.ld_a(0x0A).ld_mem_a(0x0000).ld_a(0x5A).ld_mem_a(0xA123)  # enable RAM, write it
    loop = a.here()
    a.jr(loop)
    rom = bytearray(build_rom(a.bytes(), cartridge_type=0x01))
    path = tmp_path / "noram.gb"
    path.write_bytes(bytes(rom))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        native = emurust.GameBoy(bytes(rom))
        pb = emurust.PyBoy(str(path), bootrom=str(boot_path))
    native.tick(2)
    assert native.memory[0xA123] == 0xFF
    pb.tick(3)
    assert pb.memory[0xA123] == 0x5A
    assert pb.memory[0x0147] == 0x01  # the game still reads its own header
    if _has_pyboy():
        theirs = import_pyboy(exact=True).PyBoy(
            str(path), window="null", bootrom=str(boot_path), sound_emulated=False
        )
        theirs.tick(3)
        assert theirs.memory[0xA123] == 0x5A


def test_sound_is_the_last_frame_of_a_tick() -> None:
    with emurust.PyBoy(STARCATCH, sound_emulated=True) as pb:
        pb.tick(120)
        one = pb.sound.ndarray
        assert one.ndim == 2
        assert one.shape[1] == 2
        assert 700 < one.shape[0] < 900  # one frame at 48 kHz, as PyBoy's buffer holds
        pb.tick(5, sound=False)
        assert pb.sound.ndarray.shape == (0, 2)
        assert len(pb.sound.raw_buffer) == 0


def test_randomize_fills_work_ram() -> None:
    a, b = emurust.PyBoy(STARCATCH, randomize=True), emurust.PyBoy(STARCATCH, randomize=True)
    assert a.memory[0xC000:0xE000] != b.memory[0xC000:0xE000]
    assert len(set(a.memory[0xC000:0xE000])) > 200
    assert set(emurust.PyBoy(STARCATCH).memory[0xC000:0xE000]) == {0}
