"""emurust.PyBoy (the PyBoy 2.x drop-in API) and PyBoy save states loaded into emurust.

Most tests run on the bundled game, Starcatch, and need nothing else; the comparisons with
PyBoy itself skip without PyBoy 2.8.1 (the test extra), those on the homebrew games without
the shared test-ROM folder."""

from __future__ import annotations

import io
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import emurust
from emurust import InvalidStateError, PyBoy, WindowEvent
from emurust._pyboy_adapter import import_pyboy, new_pyboy
from emurust.games.starcatch import ROM_PATH as STARCATCH
from emurust.verify.lockstep import sync_boot_rom

SYM = Path(STARCATCH).with_suffix(".sym")
# Homebrew games on which none of PyBoy's known deviations shows in the first frames of
# the scripts below (on 2048, Pandora's Blocks and libbet they do: see
# bench/pyboy_api.py and emurust verify --level 3).
HOMEBREW = (
    "homebrew/tobutobugirl/tobu.gb",
    "homebrew/ucity/ucity.gbc",
)


def pyboy_module() -> Any:
    try:
        return import_pyboy(exact=True, purpose="the PyBoy drop-in tests")
    except ImportError as e:
        pytest.skip(str(e))


@pytest.fixture(scope="module")
def boot_path() -> Path:
    path = Path(tempfile.mkdtemp()) / "boot.bin"
    path.write_bytes(sync_boot_rom())
    return path


def test_import_emurust_stays_light() -> None:
    code = (
        "import sys, emurust; print('pyboy' in sys.modules, 'emurust.pyboy_compat' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
    code = "import sys, emurust; emurust.PyBoy; print('pyboy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"]


def test_construct_tick_screen_and_memory() -> None:
    with PyBoy(STARCATCH, window="null") as pb:
        assert pb.cartridge_title == "STARCATCH"
        assert pb.tick() is True
        assert pb.tick(0) is False  # as PyBoy: no frame run
        assert pb.frame_count == 1
        arr = pb.screen.ndarray
        assert arr.shape == (144, 160, 4)
        assert arr.dtype == np.uint8
        assert set(np.unique(arr[..., 3])) == {255}
        pb.tick(30, render=False)
        before = arr.copy()
        pb.tick(60, render=True)
        assert pb.screen.ndarray is arr  # the same array, updated in place
        assert not np.array_equal(before, arr)
        greys = {(0xFF,) * 3, (0x99,) * 3, (0x55,) * 3, (0,) * 3}
        assert {tuple(c) for c in arr[..., :3].reshape(-1, 3)} <= greys
        # Frames end as PyBoy's do: LY has just wrapped to 0, STAT in mode 2.
        assert pb.memory[0xFF44] == 0
        assert pb.memory[0xFF41] & 3 == 2
        assert pb.frame_count == 91
        # Memory: ints, PyBoy-style lists for slices, banked reads, writes.
        pb.memory[0xC200] = 0x42
        assert pb.memory[0xC200] == 0x42
        assert pb.memory[0, 0xC200] == 0x42
        pb.memory[0xC201:0xC204] = [1, 2, 3]
        assert pb.memory[0xC200:0xC204] == [0x42, 1, 2, 3]
        assert pb.memory[0, 0x0100:0x0104] == list(Path(STARCATCH).read_bytes()[0x100:0x104])
        with pytest.raises(emurust.InvalidArgumentError):
            pb.memory[1, 0x8000]  # VRAM bank 1 is CGB only
        pb.memory[0, 0x0100] = 0  # a ROM patch (tests/test_pyboy_api.py)
        assert pb.memory[0x0100] == 0
        # Registers, readable and writable.
        pb.register_file.A = 0x1FF
        assert pb.register_file.A == 0xFF
        pb.register_file.HL = 0xBEEF
        assert pb.register_file.HL == 0xBEEF


def test_screen_image_views_the_array() -> None:
    pytest.importorskip("PIL")
    with PyBoy(STARCATCH) as pb:
        pb.tick(60)
        image = pb.screen.image
        assert image.size == (160, 144)
        arr = pb.screen.ndarray
        assert image.getpixel((80, 72)) == tuple(int(v) for v in arr[72, 80])
        pb.button("start")
        pb.tick(60)
        assert image.getpixel((80, 72)) == tuple(int(v) for v in arr[72, 80])


def test_buttons_follow_pyboys_event_queue() -> None:
    with PyBoy(STARCATCH) as pb:
        pb.tick(5)
        pb.button("start", 3)  # pressed at the start of the next frame, released 3 later
        joy = pb._gb  # the machine: its pressed buttons show in P1 with a group selected
        pb.tick()
        pb.memory[0xFF00] = 0x10  # select the action buttons
        assert pb.memory[0xFF00] & 0x08 == 0  # START held
        pb.tick(2)
        pb.memory[0xFF00] = 0x10
        assert pb.memory[0xFF00] & 0x08 == 0
        pb.tick()
        pb.memory[0xFF00] = 0x10
        assert pb.memory[0xFF00] & 0x08 == 0x08  # released at the third frame's start
        assert joy is pb._gb
        pb.send_input(WindowEvent.PRESS_BUTTON_A)
        pb.send_input(WindowEvent.RELEASE_BUTTON_A, 2)
        pb.tick()
        pb.memory[0xFF00] = 0x10
        assert pb.memory[0xFF00] & 0x01 == 0
        with pytest.raises(NotImplementedError, match="SCREEN_RECORDING_TOGGLE_MP4"):
            pb.send_input(WindowEvent.SCREEN_RECORDING_TOGGLE_MP4)
        with pytest.raises(emurust.InvalidArgumentError):
            pb.button("turbo")
        pb.send_input(WindowEvent.QUIT)
        assert pb.tick() is False


def test_hooks_and_symbols() -> None:
    with PyBoy(STARCATCH, symbols=SYM) as pb:
        bank, addr = pb.symbol_lookup("VBlankISR")
        assert (bank, addr) == (0, 0x0219)
        with pytest.raises(ValueError, match="Symbol not found"):
            pb.symbol_lookup("NoSuchLabel")
        seen: list[int] = []
        pb.tick(64, render=False)  # the boot ROM's frames (emurust's takes PyBoy's 64)
        pb.hook_register(None, "VBlankISR", lambda ctx: ctx.append(pb.register_file.PC), seen)
        pb.tick(60, render=False)
        assert len(seen) >= 55
        assert set(seen) == {0x0219}
        with pytest.raises(ValueError, match="already registered"):
            pb.hook_register(0, 0x0219, print, None)
        pb.hook_deregister(None, "VBlankISR")
        n = len(seen)
        pb.tick(10, render=False)
        assert len(seen) == n
        with pytest.raises(ValueError, match="not found"):
            pb.hook_deregister(0, 0x0219)
        # Memory is not patched (PyBoy writes 0xDB at a hooked address).
        assert pb.memory[0x0219] == Path(STARCATCH).read_bytes()[0x0219]


def test_hooks_do_not_change_emulation() -> None:
    plain, hooked = PyBoy(STARCATCH, symbols=SYM), PyBoy(STARCATCH, symbols=SYM)
    hooked.hook_register(None, "MainLoop", lambda ctx: None, None)
    for pb in (plain, hooked):
        pb.button("start", 4)
        pb.tick(120, render=True)
    assert plain._cycles() == hooked._cycles()
    assert plain.memory[0xC000:0xE000] == hooked.memory[0xC000:0xE000]
    assert np.array_equal(plain.screen.ndarray, hooked.screen.ndarray)


def test_save_and_load_state() -> None:
    with PyBoy(STARCATCH) as pb:
        pb.tick(100)
        f = io.BytesIO()
        pb.save_state(f)
        wram = pb.memory[0xC000:0xE000]
        pb.button("start")
        pb.tick(50)
        f.seek(0)
        pb.load_state(f)
        assert pb.memory[0xC000:0xE000] == wram
        with pytest.raises(TypeError, match="file-like"):
            pb.save_state("state.bin")  # type: ignore[arg-type]
        with pytest.raises(InvalidStateError, match="version 7"):
            pb.load_state(io.BytesIO(bytes([7]) + bytes(100)))


def test_unsupported_features_say_so() -> None:
    with pytest.raises(NotImplementedError, match="window='SDL2'"):
        PyBoy(STARCATCH, window="SDL2")
    with pytest.raises(KeyError, match="Unknown keyword"):
        PyBoy(STARCATCH, no_such_option=1)
    pb = PyBoy(STARCATCH)
    with pytest.raises(NotImplementedError, match="rumble"):
        _ = pb.rumble


def test_stop_writes_ram_in_pyboys_layout(tmp_path: Path) -> None:
    # A tiny MBC1+RAM+BATTERY cartridge (8 KiB of RAM) that loops.
    rom = bytearray(0x8000)
    rom[0x147], rom[0x149] = 0x03, 0x02
    rom[0x100:0x103] = bytes([0xC3, 0x50, 0x01])
    rom[0x150:0x152] = bytes([0x18, 0xFE])
    path = tmp_path / "game.gb"
    path.write_bytes(bytes(rom))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with PyBoy(path) as pb:
            pb.memory[0x0000] = 0x0A  # enable cartridge RAM
            pb.memory[0xA123] = 0x5A
            assert pb.memory[0, 0xA123] == 0x5A
        ram = (tmp_path / "game.gb.ram").read_bytes()
        assert len(ram) == 0x2000
        assert ram[0x123] == 0x5A
        with PyBoy(path) as again:  # read back from game.gb.ram
            assert again.memory[0, 0xA123] == 0x5A


def _script(make: Any, rom: Path, boot: Path, steps: int = 40) -> list[tuple[Any, ...]]:
    """A PyBoy-style script's outputs (the subset bench/pyboy_api.py records)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pb = make(str(rom), window="null", sound_emulated=False, cgb=False, bootrom=str(boot))
    pb.set_emulation_speed(0)
    hooks: list[int] = []
    pb.hook_register(0, 0x0040, lambda ctx: ctx.append(1), hooks)
    out = []
    for step in range(steps):
        pb.button(("start", "a", "right", "b")[step % 4], 1 + step % 3)
        pb.tick(4, step % 2 == 0)
        out.append(
            (
                pb.frame_count,
                pb.memory[0xC000:0xE000],
                pb.memory[0, 0xC000:0xC010],
                len(hooks),
                pb.screen.ndarray.tobytes() if step % 2 == 0 else None,
            )
        )
    pb.stop(save=False)
    return out


def test_same_script_same_outputs_as_pyboy(boot_path: Path) -> None:
    pyboy = pyboy_module()
    theirs = _script(pyboy.PyBoy, Path(STARCATCH), boot_path)
    ours = _script(PyBoy, Path(STARCATCH), boot_path)
    assert len(ours) == len(theirs) == 40
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert a == b, f"step {i} differs"


@pytest.mark.parametrize("rel", HOMEBREW)
def test_same_script_on_homebrew_games(rel: str, shared_roms: Path, boot_path: Path) -> None:
    """Games on which PyBoy's known deviations do not show in the first 160 frames."""
    pyboy = pyboy_module()
    rom = shared_roms / rel
    if not rom.is_file():
        pytest.skip(f"{rom} not found")
    assert _script(PyBoy, rom, boot_path) == _script(pyboy.PyBoy, rom, boot_path)


PYBOY_POWER_ON = {0xFF01, 0xFF46, 0xFF48, 0xFF49, *range(0xFF30, 0xFF40)}


def _pyboy_states(pyboy: Any, rom: Path, boot: Path, at: list[int]) -> dict[int, bytes]:
    pb = new_pyboy(rom, boot_rom=boot, sound_emulated=True, unlimited_speed=False, pyboy=pyboy)
    states = {}
    for frame in range(max(at) + 1):
        if frame in at:
            f = io.BytesIO()
            pb.save_state(f)
            states[frame] = f.getvalue()
        pb.tick(1, False)
    pb.stop(save=False)
    return states


def test_pyboy_states_continue_like_emurust(boot_path: Path) -> None:
    """A state PyBoy saved loads into emurust, which then runs exactly as emurust itself
    run from power-on does (same cycles, registers, memory and screen every frame)."""
    pyboy = pyboy_module()
    rom = Path(STARCATCH)
    states = _pyboy_states(pyboy, rom, boot_path, [30, 90])
    native = emurust.GameBoy(rom, boot_rom=sync_boot_rom())
    for frame in range(91):
        if frame in states:
            imported = emurust.GameBoy.from_pyboy_state(rom, states[frame])
            assert imported.cycles == native.cycles
            twin = native.save_state()
            for _ in range(120):
                native._pyboy_tick(1, True)
                imported._pyboy_tick(1, True)
                assert imported.cycles == native.cycles
                assert imported.registers == native.registers
                assert imported.memory[0x8000:0xFF00] == native.memory[0x8000:0xFF00]
                assert imported.memory[0xFF80:] == native.memory[0xFF80:]
                # I/O too, but for the values PyBoy's state holds where emurust's power-on
                # differs (SB, wave RAM, OBP0/1: PyBoy's power-on values, which the game
                # has not overwritten) and DMA's source register.
                io_regs = [a for a in range(0xFF00, 0xFF80) if a not in PYBOY_POWER_ON]
                assert [imported.memory[a] for a in io_regs] == [native.memory[a] for a in io_regs]
                assert np.array_equal(imported.screen_shades, native.screen_shades)
            native.load_state(twin)
        native._pyboy_tick(1, False)


def test_pyboy_state_errors_name_the_problem(boot_path: Path) -> None:
    pyboy = pyboy_module()
    rom = Path(STARCATCH)
    state = _pyboy_states(pyboy, rom, boot_path, [10])[10]
    gb = emurust.GameBoy(rom)
    with pytest.raises(InvalidStateError, match="version 28 is not supported"):
        gb.load_pyboy_state(bytes([28]) + state[1:])
    with pytest.raises(InvalidStateError, match="truncated"):
        gb.load_pyboy_state(state[:5000])
    with pytest.raises(InvalidStateError, match="not from this ROM"):
        gb.load_pyboy_state(state + b"\0")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cgb = pyboy.PyBoy(str(rom), window="null", sound_emulated=False, cgb=True)
    cgb.tick(5, False)
    f = io.BytesIO()
    cgb.save_state(f)
    cgb.stop(save=False)
    with pytest.raises(InvalidStateError, match='model="cgb"'):
        gb.load_pyboy_state(f.getvalue())
    # Saved while PyBoy's boot ROM ran: needs a machine with that boot ROM.
    early = _pyboy_states(pyboy, rom, boot_path, [0])[0]
    with pytest.raises(InvalidStateError, match="boot ROM"):
        gb.load_pyboy_state(early)
    emurust.GameBoy(rom, boot_rom=sync_boot_rom()).load_pyboy_state(early)


@pytest.mark.parametrize("rel", HOMEBREW)
def test_pyboy_states_of_homebrew_games(rel: str, shared_roms: Path, boot_path: Path) -> None:
    """States PyBoy wrote at several points load into emurust.PyBoy and continue in step
    with PyBoy (the same WRAM and screen at every frame end) for 60 frames."""
    pyboy = pyboy_module()
    rom = shared_roms / rel
    if not rom.is_file():
        pytest.skip(f"{rom} not found")
    for at in (20, 60):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pb = pyboy.PyBoy(
                str(rom), window="null", sound_emulated=False, cgb=False, bootrom=str(boot_path)
            )
            ours = PyBoy(rom, cgb=False)
        pb.tick(at, False)
        f = io.BytesIO()
        pb.save_state(f)
        f.seek(0)
        ours.load_state(f)
        for _ in range(60):
            pb.tick(1, True)
            ours.tick(1, True)
            # Frame ends can fall an instruction apart where PyBoy's timing deviates (its
            # late interrupts: see docs/verification.md); memory and screen agree.
            assert abs(ours._cycles() - pb._cycles()) <= 24
            assert ours.memory[0xC000:0xE000] == pb.memory[0xC000:0xE000]
            assert np.array_equal(ours.screen.ndarray, pb.screen.ndarray)
        pb.stop(save=False)


def _timer_ring_rom() -> bytes:
    """di; ldh (DIV),a; TAC=5 (TIMA every 16 T-cycles); then forever: ld a,(hl) on TIMA,
    stored into a 256-byte WRAM ring at 0xC000."""
    from emurust.tools.asm.rom import build_rom

    code = bytes([0xF3, 0xE0, 0x04, 0x3E, 0x05, 0xE0, 0x07, 0x21, 0x05, 0xFF, 0x11, 0x00, 0xC0])
    loop = 0x150 + len(code)
    code += bytes([0x7E, 0x12, 0x1C, 0x00])  # ld a,(hl); ld (de),a; inc e; nop
    code += bytes([0x18, (loop - (0x150 + len(code) + 2)) & 0xFF])  # jr loop
    return build_rom(code)


def test_pyboy_state_takes_pyboys_timer_phase(boot_path: Path) -> None:
    """PyBoy writes DIV and reads TIMA 8 T-cycles before a DMG does in the instruction
    (docs/verification.md, pyboy-reads-8-cycles-late-terminal): from power-on the two
    shifts cancel and a program that writes DIV reads the same TIMA values in both, while
    PyBoy's system counter runs 8 T-cycles ahead of emurust's. A PyBoy state carries the
    whole timer (16-bit counter, TIMA, TMA, TAC, reload state), and load_pyboy_state
    takes the counter as PyBoy has it: afterwards emurust reads TIMA at the DMG's point
    of the instruction and sees other values than PyBoy's program does; with its counter
    moved 8 T-cycles late (what pyboy-reads-8-cycles-late-*-terminal re-run) it sees
    exactly PyBoy's."""
    pyboy = pyboy_module()
    rom = _timer_ring_rom()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pb = pyboy.PyBoy(
            io.BytesIO(rom), window="null", sound_emulated=False, cgb=False,
            bootrom=str(boot_path),
        )  # fmt: skip
    native = emurust.GameBoy(rom, boot_rom=sync_boot_rom())
    for _ in range(5):
        pb.tick(1, False)
        native._pyboy_tick(1, False)
        assert native.cycles == pb._cycles()
        assert list(native.memory[0xC000:0xC100]) == pb.memory[0xC000:0xC100]
    state = io.BytesIO()
    pb.save_state(state)
    as_is = emurust.GameBoy(rom, boot_rom=sync_boot_rom())
    as_is.load_pyboy_state(state.getvalue())
    late = emurust.GameBoy(rom, boot_rom=sync_boot_rom())
    late.load_pyboy_state(state.getvalue())
    assert late._test_shift_timer(8)
    pb.tick(1, False)
    for gb in (native, as_is, late):
        gb._pyboy_tick(1, False)
        assert gb.cycles == pb._cycles()
    theirs = pb.memory[0xC000:0xC100]
    assert list(native.memory[0xC000:0xC100]) == theirs
    assert list(late.memory[0xC000:0xC100]) == theirs
    # Half the reads differ: an edge every 16 T-cycles, 8 of them read differently.
    assert sum(a != b for a, b in zip(as_is.memory[0xC000:0xC100], theirs)) == 128
    pb.stop(save=False)
