"""The batched engine ``emurust.VecGameBoy``: observation shapes, zero-copy read-only
views, caller-owned buffers, equivalence with a lone ``GameBoy``, determinism across
thread counts, per-env states and snapshots, bad input, and use from a forked child.

Most tests use generated ROMs: ``JOYPAD_ROM`` counts, at 0xC000, the frames in which a
direction key is held, so it shows what each env was given. The game tests (2048, Tobu
Tobu Girl) skip when the shared ROM folder is absent.
"""

from __future__ import annotations

import os
import re
import select
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

import emurust
from emurust.tools.asm.program import serial_rom
from emurust.tools.asm.rom import build_rom

Array = npt.NDArray[np.uint8]
HEIGHT, WIDTH = 144, 160
PRESSED_FRAMES = 0xC000
GREYS = np.array([255, 170, 85, 0], dtype=np.uint8)
DEFAULT_ACTIONS = (
    ("down",),
    ("left",),
    ("right",),
    ("up",),
    ("a",),
    ("b",),
    ("start",),
    (),
)
# Bits of a button bitmask (``action_table=None``), as the core numbers the buttons.
BIT = {"right": 0, "left": 1, "up": 2, "down": 3, "a": 4, "b": 5, "select": 6, "start": 7}

# Once per frame (when LY reaches 144, where a frame starts) reads the direction keys
# and increments the byte at 0xC000 if any is held.
JOYPAD_PROGRAM = bytes(
    [
        0xF3,  # di
        0x3E, 0x20, 0xE0, 0x00,  # ld a,0x20; ldh [P1],a: select the direction keys
        0xF0, 0x44, 0xFE, 0x90, 0x20, 0xFA,  # wait: ldh a,[LY]; cp 144; jr nz,wait
        0xF0, 0x00, 0xE6, 0x0F, 0xFE, 0x0F, 0x28, 0x07,  # ldh a,[P1]; and 15; cp 15; jr z,done
        0xFA, 0x00, 0xC0, 0x3C, 0xEA, 0x00, 0xC0,  # ld a,[0xC000]; inc a; ld [0xC000],a
        0xF0, 0x44, 0xFE, 0x90, 0x28, 0xFA,  # done: ldh a,[LY]; cp 144; jr z,done
        0x18, 0xE3,  # jr wait
    ]
)  # fmt: skip
JOYPAD_ROM = build_rom(JOYPAD_PROGRAM, title="VEC JOYPAD")


def data_address(array: Array) -> int:
    address: int = array.__array_interface__["data"][0]
    return address


def schedule(step: int, num_envs: int, actions: int = 8) -> Array:
    """A deterministic, varied action per env."""
    env = np.arange(num_envs)
    return ((env * 7 + step * 5 + (step // 3) * env) % actions).astype(np.uint8)


@pytest.fixture
def joypad() -> emurust.VecGameBoy:
    return emurust.VecGameBoy(
        JOYPAD_ROM, 3, frame_skip=6, hold_frames=2, num_threads=1, ram_addresses=[PRESSED_FRAMES]
    )


def game(shared_roms: Path, rel: str) -> Path:
    path = shared_roms / rel
    if not path.is_file():
        pytest.skip(f"{path} not found")
    return path


@pytest.fixture
def game_2048(shared_roms: Path) -> Path:
    return game(shared_roms, "homebrew/2048/2048.gb")


# --- construction, shapes, attributes -----------------------------------------------


@pytest.mark.parametrize(
    ("mode", "frame", "values"),
    [
        ("gray", (HEIGHT, WIDTH), {0, 85, 170, 255}),
        ("rgb", (HEIGHT, WIDTH, 3), {0, 85, 170, 255}),
        ("shades", (HEIGHT, WIDTH), {0, 1, 2, 3}),
        ("gray_half", (HEIGHT // 2, WIDTH // 2), set(range(256))),
    ],
)
@pytest.mark.parametrize("frame_stack", [1, 3])
def test_shapes_and_dtypes(
    rom: bytes, mode: str, frame: tuple[int, ...], values: set[int], frame_stack: int
) -> None:
    vec = emurust.VecGameBoy(rom, 2, obs=mode, frame_stack=frame_stack, frame_skip=2)
    shape = (frame_stack, *frame) if frame_stack > 1 else frame
    assert vec.observation_shape == shape
    assert vec.obs_mode == mode
    assert vec.frame_stack == frame_stack
    for obs in (vec.reset(), vec.step(np.zeros(2, np.uint8)), vec.obs):
        assert obs.shape == (2, *shape)
        assert obs.dtype == np.uint8
        assert obs.flags.c_contiguous
        assert set(np.unique(obs).tolist()) <= values
    assert vec.ram.shape == (2, 0)
    assert vec.wram.shape == (2, 0x2000)
    assert vec.hram.shape == (2, 0x7F)


def test_attributes(rom: bytes) -> None:
    vec = emurust.VecGameBoy(rom, 5, num_threads=2, ram_addresses=np.array([0xC000, 0xFF44]))
    assert (len(vec), vec.num_envs, vec.num_threads) == (5, 5, 2)
    assert (vec.frame_skip, vec.hold_frames, vec.frame_stack) == (24, 8, 1)
    assert vec.ram_addresses == (0xC000, 0xFF44)
    assert vec.action_table == DEFAULT_ACTIONS
    assert vec.observation_shape == (HEIGHT, WIDTH)
    # Machine state + VRAM + frame + WRAM/HRAM + a grey frame + 2 RAM bytes: under the
    # 64 KiB goal for the grey observation.
    assert 40_000 < vec.bytes_per_env <= 64 * 1024
    rgb = emurust.VecGameBoy(rom, 1, obs="rgb", frame_stack=2)
    assert rgb.bytes_per_env - vec.bytes_per_env == 2 * HEIGHT * WIDTH * 3 - HEIGHT * WIDTH - 2
    assert "num_envs=5" in repr(vec)
    auto = emurust.VecGameBoy(rom, 1)
    assert auto.num_threads >= 1
    short = emurust.VecGameBoy(rom, 1, frame_skip=4)
    assert short.hold_frames == 4, "the default hold is cut to frame_skip"


def test_rom_from_path_and_bytes_like(tmp_path: Path, rom: bytes) -> None:
    path = tmp_path / "test.gb"
    path.write_bytes(rom)
    a = emurust.VecGameBoy(path, 1, ram_addresses=[0xC000, 0xC001])
    b = emurust.VecGameBoy(str(path), 1, ram_addresses=[0xC000, 0xC001])
    c = emurust.VecGameBoy(memoryview(rom), 1, ram_addresses=[0xC000, 0xC001])
    d = emurust.VecGameBoy(bytearray(rom), 1, ram_addresses=[0xC000, 0xC001])
    for vec in (a, b, c, d):
        vec.step([7])
        assert vec.ram.tolist() == [[0x42, 0x99]]


# --- zero-copy views ----------------------------------------------------------------


def test_views_are_the_same_memory_every_step(joypad: emurust.VecGameBoy) -> None:
    first = joypad.reset()
    views = {name: getattr(joypad, name) for name in ("obs", "ram", "wram", "hram")}
    addresses = {name: data_address(v) for name, v in views.items()}
    assert first is views["obs"]
    for s in range(4):
        returned = joypad.step(schedule(s, 3))
        assert returned is first
        for name, view in views.items():
            again = getattr(joypad, name)
            assert again is view, name
            assert data_address(again) == addresses[name]
    assert joypad.ram[:, 0].tolist() == joypad.wram[:, 0].tolist()
    assert joypad.ram.any(), "the views were updated in place"
    # Also after the arrays were dropped: a new array, the same memory.
    del views, first, returned, again
    assert data_address(joypad.wram) == addresses["wram"]
    assert data_address(joypad.obs) == addresses["obs"]


def test_wram_and_hram_are_strided_views_of_one_block(joypad: emurust.VecGameBoy) -> None:
    wram, hram = joypad.wram, joypad.hram
    stride = 0x2000 + 0x7F  # each env's WRAM then HRAM, envs back to back
    assert wram.strides == (stride, 1)
    assert hram.strides == (stride, 1)
    assert data_address(hram) == data_address(wram) + 0x2000
    assert not wram.flags.owndata
    assert not wram.flags.c_contiguous  # a view, not a gather


@pytest.mark.parametrize("name", ["obs", "ram", "wram", "hram"])
def test_views_are_read_only(joypad: emurust.VecGameBoy, name: str) -> None:
    array = getattr(joypad, name)
    assert not array.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        array[...] = 1
    with pytest.raises(ValueError, match="WRITEABLE"):
        array.flags.writeable = True
    with pytest.raises(ValueError, match="WRITEABLE"):
        array.view().setflags(write=True)


def test_views_keep_the_engine_alive(rom: bytes) -> None:
    vec = emurust.VecGameBoy(rom, 2, ram_addresses=[0xC000])
    vec.step([0, 0])
    wram = vec.wram
    del vec
    assert wram[:, 0].tolist() == [0x42, 0x42]


# --- stepping semantics -------------------------------------------------------------


def test_default_actions_hold_then_release(joypad: emurust.VecGameBoy) -> None:
    joypad.step([7, 7, 7])  # warm up: the program waits for the first frame start
    counts = joypad.ram[:, 0].copy()
    assert counts.tolist() == [0, 0, 0]
    joypad.step([0, 4, 7])  # down (a direction), A (not in the read group), no-op
    assert (joypad.ram[:, 0] - counts).tolist() == [2, 0, 0]  # hold_frames = 2
    for action in range(4):  # every direction counts
        joypad.step([action, 7, 7])
    assert joypad.ram[:, 0].tolist() == [10, 0, 0]


def test_custom_action_table_and_bitmasks() -> None:
    table = [("down",), (), ("A", "left"), "up"]
    vec = emurust.VecGameBoy(
        JOYPAD_ROM, 4, frame_skip=5, hold_frames=3, action_table=table, ram_addresses=[0xC000]
    )
    assert vec.action_table == (("down",), (), ("a", "left"), ("up",))
    vec.step([1, 1, 1, 1])
    vec.step([0, 1, 2, 3])
    assert vec.ram[:, 0].tolist() == [3, 0, 3, 3]
    with pytest.raises(emurust.InvalidArgumentError, match=r"0\.\.=3"):
        vec.step([0, 0, 4, 0])

    raw = emurust.VecGameBoy(
        JOYPAD_ROM, 3, frame_skip=5, hold_frames=5, action_table=None, ram_addresses=[0xC000]
    )
    assert raw.action_table is None
    raw.step([0, 0, 0])
    raw.step([1 << BIT["down"], 1 << BIT["a"], (1 << BIT["right"]) | (1 << BIT["start"])])
    assert raw.ram[:, 0].tolist() == [5, 0, 5]
    raw.step(np.array([255, 0, 0], dtype=np.int64))  # any byte is a mask


def test_obs_matches_a_lone_gameboy(game_2048: Path) -> None:
    """Env i, stepped with action a, equals a GameBoy pressing a's button for
    hold_frames frames, then ticking the rest of frame_skip and drawing the last."""
    skip, hold, n = 12, 4, 3
    vec = emurust.VecGameBoy(game_2048, n, frame_skip=skip, hold_frames=hold, num_threads=2)
    gbs = [emurust.GameBoy(game_2048) for _ in range(n)]
    for s in range(25):
        actions = schedule(s, n)
        vec.step(actions)
        for i, gb in enumerate(gbs):
            for name in DEFAULT_ACTIONS[actions[i]]:
                gb.button(name, frames=hold)
            gb.tick(skip - 1, render=False)
            gb.tick(1, render=True)
            np.testing.assert_array_equal(vec.obs[i], gb.screen_gray, err_msg=f"step {s}")
            assert vec.wram[i].tobytes() == gb.memory[0xC000:0xE000], f"env {i} step {s}"
            assert vec.hram[i].tobytes() == gb.memory[0xFF80:0xFFFF], f"env {i} step {s}"
    for i, gb in enumerate(gbs):
        assert vec.save_state(i) == gb.save_state()
    assert len({vec.wram[i].tobytes() for i in range(n)}) > 1, "envs did different things"


def test_observation_modes_agree(game_2048: Path) -> None:
    modes = {m: emurust.VecGameBoy(game_2048, 2, obs=m) for m in ("gray", "rgb", "shades")}
    half = emurust.VecGameBoy(game_2048, 2, obs="gray_half")
    stacked = emurust.VecGameBoy(game_2048, 2, frame_stack=3)
    history: list[Array] = []
    for s in range(6):
        for vec in (*modes.values(), half, stacked):
            vec.step(schedule(s, 2))
        gray = modes["gray"].obs
        np.testing.assert_array_equal(GREYS[modes["shades"].obs], gray)
        np.testing.assert_array_equal(modes["rgb"].obs, np.repeat(gray[..., None], 3, axis=-1))
        blocks = gray.reshape(2, 72, 2, 80, 2).astype(np.uint32).sum(axis=(2, 4))
        np.testing.assert_array_equal(half.obs, (blocks + 2) // 4)
        history.append(gray.copy())
        np.testing.assert_array_equal(stacked.obs[:, 2], history[-1])
        if s >= 2:
            np.testing.assert_array_equal(stacked.obs[:, 0], history[-3])
    assert (history[-1] != 255).any(), "the game drew something"


# --- caller-owned buffers -------------------------------------------------------------


def test_caller_owned_buffers(joypad: emurust.VecGameBoy) -> None:
    obs = np.full((3, HEIGHT, WIDTH), 7, dtype=np.uint8)
    ram = np.full((3, 1), 7, dtype=np.uint8)
    for s in range(3):
        returned = joypad.step(schedule(s, 3), obs=obs, ram=ram)
        assert returned is obs
        np.testing.assert_array_equal(obs, joypad.obs)
        np.testing.assert_array_equal(ram, joypad.ram)
    assert not np.shares_memory(obs, joypad.obs)
    assert (ram[:, 0] > 0).any()
    obs[:] = 7
    assert joypad.reset(obs=obs) is obs
    np.testing.assert_array_equal(obs, joypad.obs)
    assert (obs == 255).all(), "power-on screen is blank"


BadBuffer = Callable[[], object]


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda: np.zeros((3, HEIGHT, WIDTH), np.float32), TypeError, "dtype float32"),
        (lambda: np.zeros((3, HEIGHT, WIDTH), np.int8), TypeError, "dtype int8"),
        (lambda: np.zeros((2, HEIGHT, WIDTH), np.uint8), ValueError, "got shape"),
        (lambda: np.zeros((3 * HEIGHT * WIDTH,), np.uint8), ValueError, "got shape"),
        (lambda: np.zeros((3, HEIGHT, 2 * WIDTH), np.uint8)[:, :, ::2], ValueError, "contig"),
        (lambda: np.zeros((3, WIDTH, HEIGHT), np.uint8).T.T.swapaxes(1, 2), ValueError, "contig"),
        (lambda: np.zeros((3, HEIGHT, WIDTH), np.uint8).tolist(), TypeError, "NumPy array"),
        (lambda: bytearray(3 * HEIGHT * WIDTH), TypeError, "NumPy array"),
    ],
)
def test_bad_obs_buffer(
    joypad: emurust.VecGameBoy, make: BadBuffer, error: type[Exception], message: str
) -> None:
    before = [joypad.save_state(i) for i in range(3)]
    with pytest.raises(error, match=message) as info:
        joypad.step([0, 0, 0], obs=make())  # type: ignore[arg-type]
    assert "(3, 144, 160)" in str(info.value)
    assert "uint8" in str(info.value)
    with pytest.raises(error, match=message):
        joypad.reset(obs=make())  # type: ignore[arg-type]
    assert [joypad.save_state(i) for i in range(3)] == before, "nothing stepped"


def test_bad_ram_buffer_and_read_only_buffers(joypad: emurust.VecGameBoy) -> None:
    obs = np.full((3, HEIGHT, WIDTH), 7, np.uint8)
    with pytest.raises(ValueError, match=r"\(3, 1\).*got shape \(3,\)"):
        joypad.step([0, 0, 0], obs=obs, ram=np.zeros(3, np.uint8))
    with pytest.raises(TypeError, match=r"uint8.*dtype int64"):
        joypad.step([0, 0, 0], ram=np.zeros((3, 1), np.int64))
    frozen = np.zeros((3, HEIGHT, WIDTH), np.uint8)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        joypad.step([0, 0, 0], obs=frozen)
    with pytest.raises(ValueError, match="read-only"):
        joypad.step([0, 0, 0], obs=joypad.obs)  # the engine's own view
    assert (obs == 7).all(), "nothing written"
    assert joypad.ram[:, 0].tolist() == [0, 0, 0]


# --- bad input ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("actions", "error", "message"),
    [
        ([0, 8, 0], emurust.InvalidArgumentError, r"action 8 of env 1 .*0\.\.=7"),
        (np.array([0, 0, 255], np.uint8), emurust.InvalidArgumentError, "action 255 of env 2"),
        (np.array([0, -1, 0]), emurust.InvalidArgumentError, "action -1 of env 1"),
        (np.array([0, 0, 256], np.uint16), emurust.InvalidArgumentError, "outside 0..=255"),
        ([0, 0], ValueError, r"shape \(3,\).*got shape \(2,\)"),
        (np.zeros((3, 1), np.uint8), ValueError, r"shape \(3,\)"),
        (np.uint8(0), ValueError, r"got shape \(\)"),
        (np.zeros(3, np.float64), TypeError, "integer array.*dtype float64"),
        (np.zeros(3, bool), TypeError, "dtype bool"),
        (["a", "b", "c"], TypeError, "dtype <U1"),
    ],
)
def test_bad_actions_step_nothing(
    joypad: emurust.VecGameBoy, actions: object, error: type[Exception], message: str
) -> None:
    obs = np.full((3, HEIGHT, WIDTH), 7, np.uint8)
    before = [joypad.save_state(i) for i in range(3)]
    with pytest.raises(error, match=message):
        joypad.step(actions, obs=obs)  # type: ignore[arg-type]
    assert [joypad.save_state(i) for i in range(3)] == before
    assert (obs == 7).all()


def test_non_contiguous_actions_are_read_correctly(joypad: emurust.VecGameBoy) -> None:
    joypad.step([7, 7, 7])
    joypad.step(np.array([0, 9, 7, 9, 2, 9], np.uint8)[::2])
    assert joypad.ram[:, 0].tolist() == [2, 0, 2]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"num_envs": 0}, emurust.InvalidArgumentError, "num_envs must be between 1 and 65536"),
        ({"num_envs": -3}, emurust.InvalidArgumentError, "num_envs"),
        ({"num_envs": 10**9}, emurust.InvalidArgumentError, "num_envs"),
        ({"num_envs": 2**80}, emurust.InvalidArgumentError, "huge"),
        ({"num_envs": 2.0}, TypeError, "num_envs must be an int"),
        ({"frame_skip": 0}, emurust.InvalidArgumentError, "frame_skip"),
        ({"frame_skip": 10**6}, emurust.InvalidArgumentError, "frame_skip"),
        ({"hold_frames": 25}, emurust.InvalidArgumentError, r"frame_skip \(24\)"),
        ({"hold_frames": -1}, emurust.InvalidArgumentError, "hold_frames"),
        ({"num_threads": 0}, emurust.InvalidArgumentError, "num_threads"),
        ({"num_threads": "2"}, TypeError, "num_threads"),
        ({"obs": "grey"}, emurust.InvalidArgumentError, "'gray', 'rgb'|\"gray\", \"rgb\""),
        ({"obs": 1}, TypeError, "obs must be a str"),
        ({"frame_stack": 0}, emurust.InvalidArgumentError, "frame_stack"),
        ({"ram_addresses": [0x10000]}, emurust.InvalidAddressError, "0x0000..=0xFFFF"),
        ({"ram_addresses": [-1]}, emurust.InvalidAddressError, "0x0000..=0xFFFF"),
        ({"ram_addresses": ["0xC000"]}, TypeError, "ints"),
        ({"ram_addresses": 0xC000}, TypeError, "sequence of ints"),
        ({"action_table": []}, emurust.InvalidArgumentError, "1 to 256 actions"),
        ({"action_table": [()] * 257}, emurust.InvalidArgumentError, "1 to 256 actions"),
        ({"action_table": [("jump",)]}, emurust.InvalidArgumentError, 'unknown button "jump"'),
        ({"action_table": "pokemon"}, emurust.InvalidArgumentError, "default"),
        ({"action_table": [1]}, TypeError, "action 0"),
        ({"initial_state": "state"}, TypeError, "initial_state must be bytes"),
        ({"initial_state": b"junk"}, emurust.InvalidStateError, "not an emurust state"),
        ({"boot_rom": b"\x00" * 10}, emurust.InvalidRomError, "256 bytes"),
    ],
)
def test_bad_construction(
    rom: bytes, kwargs: dict[str, object], error: type[Exception], message: str
) -> None:
    args: dict[str, object] = {"num_envs": 2, **kwargs}
    with pytest.raises(error, match=message):
        emurust.VecGameBoy(rom, **args)  # type: ignore[arg-type]


def test_bad_rom(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        emurust.VecGameBoy(tmp_path / "missing.gb", 1)
    with pytest.raises(emurust.InvalidRomError):
        emurust.VecGameBoy(b"\x00" * 16, 1)
    with pytest.raises(TypeError, match="rom must be a path"):
        emurust.VecGameBoy(12, 1)  # type: ignore[arg-type]


def test_native_class_takes_only_bytes(tmp_path: Path, rom: bytes) -> None:
    """The Rust bindings take the ROM as bytes (strict input); paths and other bytes-like
    data are read in Python (``emurust.VecGameBoy``), so Rust never calls into the package."""
    from emurust import _core

    path = tmp_path / "test.gb"
    path.write_bytes(rom)
    for bad in (str(path), path, bytearray(rom), memoryview(rom)):
        with pytest.raises(TypeError, match="rom must be bytes"):
            _core.VecGameBoy(bad, 1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="boot_rom must be bytes"):
        _core.VecGameBoy(rom, 1, boot_rom=bytearray(256))  # type: ignore[arg-type]
    with pytest.raises(emurust.InvalidRomError, match="at most"):
        _core.VecGameBoy(bytes(emurust.MAX_ROM_SIZE + 1), 1)
    assert _core.VecGameBoy(rom, 1).num_envs == 1


def test_bindings_never_import_the_package() -> None:
    """No Rust binding imports a module of the ``emurust`` package (the arrow points from
    Python to Rust only)."""
    bindings = Path(__file__).resolve().parents[1] / "rust" / "src"
    sources = [bindings / "python.rs", *sorted((bindings / "python").glob("*.rs"))]
    assert len(sources) > 1
    imports = re.compile(r'import\((?:intern!\(py, )?"emurust')
    for source in sources:
        assert not imports.search(source.read_text()), source.name
    assert imports.search('py.import("emurust._gameboy")?')


def test_initial_state_from_another_rom_is_refused(rom: bytes) -> None:
    other = emurust.GameBoy(JOYPAD_ROM).save_state()
    with pytest.raises(emurust.InvalidStateError, match="different ROM"):
        emurust.VecGameBoy(rom, 2, initial_state=other)
    vec = emurust.VecGameBoy(rom, 2)
    before = vec.save_state(1)
    with pytest.raises(emurust.InvalidStateError, match="different ROM"):
        vec.load_state(1, other)
    with pytest.raises(emurust.InvalidStateError, match="different ROM"):
        vec.restore(1, emurust.VecGameBoy(JOYPAD_ROM, 1).snapshot(0))
    assert vec.save_state(1) == before


def test_bad_env_indices_and_arguments(joypad: emurust.VecGameBoy) -> None:
    for i in (3, -1, 10**30):
        with pytest.raises(emurust.InvalidArgumentError, match=r"3 envs \(0\.\.=2\)"):
            joypad.save_state(i)
        with pytest.raises(emurust.InvalidArgumentError, match="out of range"):
            joypad.snapshot(i)
    with pytest.raises(TypeError, match="env index must be an int"):
        joypad.save_state("0")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Snapshot"):
        joypad.restore(0, joypad.save_state(0))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="bytes or bytearray"):
        joypad.load_state(0, "state")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"bool array.*dtype int64"):
        joypad.reset_envs(np.array([1, 0, 1]))
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        joypad.reset_envs([True, False])
    with pytest.raises(TypeError, match="seed must be an int"):
        joypad.reset(seed="x")  # type: ignore[arg-type]


# --- states, snapshots, resets ------------------------------------------------------


def test_snapshot_restore_round_trip(joypad: emurust.VecGameBoy) -> None:
    for s in range(4):
        joypad.step(schedule(s, 3))
    snap = joypad.snapshot(0)
    assert isinstance(snap, emurust.Snapshot)
    assert snap.frame_count == 24
    assert snap.save_state() == joypad.save_state(0)
    assert snap.nbytes > 0x2000
    obs_then, count_then = joypad.obs[0].copy(), int(joypad.ram[0, 0])
    later = []
    for s in range(4, 8):
        joypad.step(schedule(s, 3))
        later.append(joypad.save_state(0))
    joypad.restore(0, snap)
    assert joypad.save_state(0) == snap.save_state()
    np.testing.assert_array_equal(joypad.obs[0], obs_then)
    assert joypad.ram[0, 0] == count_then, "gathered RAM refreshed"
    for k, s in enumerate(range(4, 8)):
        joypad.step(schedule(s, 3))
        assert joypad.save_state(0) == later[k], "replay after restore"
    joypad.restore(2, snap)  # into another env
    assert joypad.save_state(2) == snap.save_state()


def test_save_load_and_reset_envs(joypad: emurust.VecGameBoy) -> None:
    initial = joypad.save_state(0)
    for s in range(3):
        joypad.step(schedule(s, 3))
    states = [joypad.save_state(i) for i in range(3)]
    assert len(set(states)) == 3
    joypad.load_state(0, bytearray(states[2]))
    assert joypad.save_state(0) == states[2]
    assert np.array_equal(joypad.obs[0], joypad.obs[2]), "the loaded state's picture"
    with pytest.raises(emurust.InvalidStateError):
        joypad.load_state(1, states[1][:-1])
    assert joypad.save_state(1) == states[1]
    # A state from a lone GameBoy of the same ROM loads too.
    gb = emurust.GameBoy(JOYPAD_ROM)
    gb.load_state(joypad.save_state(1))
    gb.tick(3, render=False)
    joypad.load_state(2, gb.save_state())
    assert joypad.save_state(2) == gb.save_state()

    joypad.reset_envs(np.array([True, False, True]))
    assert joypad.save_state(0) == initial
    assert joypad.save_state(1) == states[1]
    assert joypad.save_state(2) == initial
    assert joypad.ram[:, 0].tolist() == [0, states_count(states[1]), 0]
    joypad.reset(seed=123)
    assert [joypad.save_state(i) for i in range(3)] == [initial] * 3


def states_count(state: bytes) -> int:
    gb = emurust.GameBoy(JOYPAD_ROM)
    gb.load_state(state)
    return gb.memory[PRESSED_FRAMES]


def test_initial_state_is_where_every_env_starts(rom: bytes) -> None:
    gb = emurust.GameBoy(rom)
    gb.tick(5, render=False)
    state = gb.save_state()
    vec = emurust.VecGameBoy(rom, 3, initial_state=state, ram_addresses=[0xC010])
    assert all(vec.save_state(i) == state for i in range(3))
    assert vec.ram[:, 0].tolist() == [gb.memory[0xC010]] * 3
    vec.step([0, 0, 0])
    vec.reset()
    assert all(vec.save_state(i) == state for i in range(3))


# --- determinism and threads --------------------------------------------------------


def run(rom: object, num_threads: int, steps: int = 12) -> tuple[bytes, ...]:
    vec = emurust.VecGameBoy(
        rom,  # type: ignore[arg-type]
        6,
        num_threads=num_threads,
        frame_skip=8,
        hold_frames=3,
        ram_addresses=[0xC000, 0xFF44],
    )
    for s in range(steps):
        vec.step(schedule(s, 6))
    return (
        vec.obs.tobytes(),
        vec.ram.tobytes(),
        vec.wram.tobytes(),
        *(vec.save_state(i) for i in range(6)),
    )


def test_identical_whatever_num_threads() -> None:
    one = run(JOYPAD_ROM, 1)
    assert run(JOYPAD_ROM, 2) == one
    assert run(JOYPAD_ROM, 3) == one
    assert run(JOYPAD_ROM, 2) == one, "repeated runs are identical"


def test_identical_whatever_num_threads_on_a_game(game_2048: Path) -> None:
    one = run(game_2048, 1, steps=20)
    assert run(game_2048, 2, steps=20) == one
    assert run(game_2048, 4, steps=20) == one


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_usable_in_a_forked_child(hang_guard: None) -> None:
    """The parent's pool threads do not exist in a forked child: the engine starts a
    new pool there and gives the same results."""
    vec = emurust.VecGameBoy(JOYPAD_ROM, 4, num_threads=2, frame_skip=4, ram_addresses=[0xC000])
    vec.step(schedule(0, 4))  # the pool is running now
    read_end, write_end = os.pipe()
    with warnings.catch_warnings():
        # Python 3.12+ warns about forking a process that has threads.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # child
        try:
            for s in range(1, 4):
                vec.step(schedule(s, 4))
            os.write(write_end, vec.obs.tobytes()[:64] + vec.ram.tobytes())
        finally:
            os._exit(0)
    os.close(write_end)
    for s in range(1, 4):
        vec.step(schedule(s, 4))
    deadline = time.monotonic() + 60
    received = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([read_end], [], [], 1.0)
        if ready:
            chunk = os.read(read_end, 4096)
            if not chunk:
                break
            received += chunk
    os.close(read_end)
    if time.monotonic() >= deadline:
        os.kill(pid, 9)
    os.waitpid(pid, 0)
    assert received == vec.obs.tobytes()[:64] + vec.ram.tobytes()
    assert vec.ram.any()


def test_serial_rom_runs(rom: bytes) -> None:
    """The generated serial ROM reports through WRAM in every env (a smoke test of a
    ROM with no input at all)."""
    assert rom == serial_rom()
    vec = emurust.VecGameBoy(rom, 2, num_threads=2, ram_addresses=[0xC000, 0xC001, 0xC002])
    vec.step([7, 7])
    assert vec.ram.tolist() == [[0x42, 0x99, 0x5A]] * 2


def test_engines_step_in_parallel_threads(rom: bytes) -> None:
    """The interpreter lock is released during step: engines in different Python
    threads run at the same time and give the same results."""
    engines = [emurust.VecGameBoy(JOYPAD_ROM, 2, num_threads=1, frame_skip=4) for _ in range(3)]

    def work(vec: emurust.VecGameBoy) -> None:
        for s in range(10):
            vec.step(schedule(s, 2))

    threads = [threading.Thread(target=work, args=(vec,)) for vec in engines]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({vec.save_state(1) for vec in engines}) == 1
    assert engines[0].save_state(0) != engines[0].save_state(1)


def test_sharing_one_engine_between_threads_is_safe(rom: bytes) -> None:
    vec = emurust.VecGameBoy(rom, 2, num_threads=2, frame_skip=2, ram_addresses=[0xC010])
    errors: list[BaseException] = []

    def work() -> None:
        for _ in range(20):
            try:
                vec.step([0, 1])
                _ = vec.save_state(0)
                _ = int(vec.ram[0, 0])
            except RuntimeError as e:
                # "already borrowed": the other thread is inside step; any other
                # RuntimeError is a failure.
                if "borrowed" not in str(e):
                    errors.append(e)
            except BaseException as e:
                errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    gb = emurust.GameBoy(rom)
    gb.load_state(vec.save_state(0))
    assert 2 <= gb.frame_count <= 80


# ---------------------------------------------------------------------------------------
# Masked steps, memory writes and snapshots of a GameBoy (what the RL envs build on)


def test_a_masked_step_runs_only_the_masked_envs(joypad: emurust.VecGameBoy) -> None:
    joypad.reset()
    right = np.full(3, 2, np.uint8)
    mask = np.array([True, False, True])
    before = joypad.save_state(1)
    # An out-of-range action of an env that is not stepped is ignored.
    obs = joypad.step(np.array([2, 200, 2], np.uint8), mask=mask).copy()
    assert joypad.save_state(1) == before
    pressed = int(joypad.ram[0, 0])
    assert pressed > 0
    assert joypad.ram[:, 0].tolist() == [pressed, 0, pressed]
    joypad.step(right, mask=~mask)
    assert joypad.ram[:, 0].tolist() == [pressed] * 3
    assert np.array_equal(joypad.obs[0], obs[0])  # env 0 did not move
    with pytest.raises(emurust.InvalidArgumentError, match="action 200 of env 1"):
        joypad.step(np.array([2, 200, 2], np.uint8), mask=np.ones(3, bool))
    with pytest.raises(TypeError, match="mask must be a bool array"):
        joypad.step(right, mask=np.ones(3, np.uint8))
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        joypad.step(right, mask=np.ones(2, bool))


def test_set_memory_writes_each_env(joypad: emurust.VecGameBoy) -> None:
    joypad.set_memory(0xC100, np.array([[1, 2], [3, 4], [5, 6]], np.uint8))
    assert joypad.wram[:, 0x100:0x102].tolist() == [[1, 2], [3, 4], [5, 6]]
    joypad.set_memory(0xFF80, np.array([7, 8, 9], np.uint8), mask=np.array([True, False, True]))
    assert joypad.hram[:, 0].tolist() == [7, 0, 9]
    joypad.set_memory(PRESSED_FRAMES, np.array([40, 41, 42], np.uint8))
    assert joypad.ram[:, 0].tolist() == [40, 41, 42]  # the gathered bytes follow
    with pytest.raises(TypeError, match="uint8"):
        joypad.set_memory(0xC000, np.array([1, 2, 3]))
    with pytest.raises(ValueError, match=r"shape \(3,\) or \(3, k\)"):
        joypad.set_memory(0xC000, np.zeros((2, 1), np.uint8))
    with pytest.raises(emurust.InvalidAddressError):
        joypad.set_memory(0x10000, np.zeros(3, np.uint8))
    with pytest.raises(emurust.InvalidArgumentError, match="past 0xFFFF"):
        joypad.set_memory(0xFFFF, np.zeros((3, 2), np.uint8))


def test_envs_start_from_a_gameboy_snapshot_or_state_with_its_frame() -> None:
    gb = emurust.GameBoy(serial_rom())
    gb.tick(20)
    snap = gb.snapshot()
    assert snap.frame_count == 20
    vec = emurust.VecGameBoy(serial_rom(), 2, initial_state=snap, obs="shades", num_threads=1)
    expected = gb.screen_shades
    assert expected.any()
    assert np.array_equal(vec.reset()[1], expected)
    from_bytes = emurust.VecGameBoy(serial_rom(), 1, initial_state=gb.save_state(), obs="shades")
    assert np.array_equal(from_bytes.reset()[0], expected)  # the state's picture
    other = build_rom(title="ANOTHER ROM")
    with pytest.raises(emurust.InvalidStateError, match="different ROM"):
        emurust.VecGameBoy(other, 1, initial_state=snap)
