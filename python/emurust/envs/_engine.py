"""The emulators behind the environments: one interface, two backends.

:class:`Engine` is what the environment layer needs from a batch of emulators: step some envs
(a mask), put some back in the start state, write bytes into their memory, read their RAM
and their observations. :class:`EmurustEngine` is a :class:`emurust.VecGameBoy` (Rust threads,
zero-copy views); :class:`PyBoyEngine` (in ``_pyboy.py``) runs PyBoy instances one after
another, with the same stepping, observations and start state, for comparisons.

Both bring a freshly powered-on machine to the spec's start state by running the spec's
``start`` function on a :class:`~emurust.games.Driver` of their own.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Sequence
from typing import Protocol, Union

import numpy as np
import numpy.typing as npt

from emurust._core import MAX_ROM_SIZE, EmuRustWarning, Snapshot
from emurust._gameboy import GameBoy, RomSource, read_image
from emurust._vec import VecGameBoy
from emurust.games._spec import OBS_MODES, OBS_SHAPES, WRAM, GameSpec, GameSpecError

__all__ = [
    "EmurustEngine",
    "Engine",
    "GameBoyDriver",
    "compose_obs",
    "convert_shades",
    "frame_shape",
    "screen_mode",
]

Bools = npt.NDArray[np.bool_]
Bytes = npt.NDArray[np.uint8]
# An observation: the screen, or a dict of the screen and the RAM fields (compose_obs).
Obs = Union[Bytes, dict[str, Bytes]]

# What each shade (0 = lightest) becomes in the observation modes (emurust's DMG greys).
GRAY = np.array([255, 170, 85, 0], dtype=np.uint8)
RGB = np.repeat(GRAY[:, None], 3, axis=1)


def frame_shape(mode: str) -> tuple[int, ...]:
    """One observation frame's shape in ``mode`` (a spec's ``obs``; :data:`OBS_SHAPES`)."""
    try:
        return OBS_SHAPES[mode]
    except KeyError:
        raise GameSpecError(f"unknown obs mode {mode!r}; valid modes are {OBS_MODES}") from None


def screen_mode(spec: GameSpec, draw: bool) -> str:
    """The :class:`emurust.VecGameBoy` ``obs`` mode for ``spec``: its own, or for a RAM-only
    spec ``"none"`` (no frame drawn), ``"shades"`` when frames must be drawn anyway
    (``draw``: someone renders them)."""
    if spec.obs == "ram":
        return "shades" if draw else "none"
    return spec.obs


def compose_obs(spec: GameSpec, screen: Bytes, ram: Bytes) -> Bytes | dict[str, Bytes]:
    """An observation of ``spec`` from a screen part and the RAM observation bytes: the RAM
    alone (``obs="ram"``), both in a dict (``obs_fields``), or the screen alone."""
    if spec.obs == "ram":
        return ram
    if spec.obs_fields:
        return {"screen": screen, "ram": ram}
    return screen


def convert_shades(shades: Bytes, mode: str) -> Bytes:
    """A (144, 160) frame of shades as an observation frame of ``mode``, exactly as the Rust
    engine converts it (grey = 255 - 85 * shade; ``gray_half`` the rounded mean of 2x2)."""
    s = shades & 3
    if mode == "shades":
        return np.asarray(s, dtype=np.uint8)
    if mode == "gray":
        return np.asarray(GRAY[s], dtype=np.uint8)
    if mode == "rgb":
        return np.asarray(RGB[s], dtype=np.uint8)
    if mode == "gray_half":
        grey = GRAY[s].astype(np.uint16)
        quads = grey[0::2, 0::2] + grey[0::2, 1::2] + grey[1::2, 0::2] + grey[1::2, 1::2]
        return np.asarray((quads + 2) // 4, dtype=np.uint8)
    screens = ", ".join(repr(m) for m in OBS_MODES if m != "ram")
    raise GameSpecError(f"obs mode {mode!r} has no screen to convert (screen modes: {screens})")


class Engine(Protocol):
    """A batch of emulators of one game, as the environments use them."""

    num_envs: int
    observation_shape: tuple[int, ...]

    @property
    def obs(self) -> Bytes:
        """(num_envs, *observation_shape): every env's observation (the engine's buffer)."""

    @property
    def ram(self) -> Bytes:
        """(num_envs, len(spec.gathered_addresses)): the bytes gathered after each step and
        reset: the RAM observation, then the fields."""

    def step(self, actions: Bytes, mask: Bools | None, obs_out: Bytes | None = None) -> None:
        """Step the envs of ``mask`` (all when None); ``actions`` are action indices. With
        ``obs_out``, every env's observation is also copied there."""

    def reset_envs(self, mask: Bools) -> None:
        """Put the envs of ``mask`` back in the start state (observation included)."""

    def set_memory(self, address: int, values: Bytes, mask: Bools) -> None:
        """Write ``values`` ((num_envs, k) bytes) from ``address`` into the envs of ``mask``."""

    def read(self, address: int, size: int) -> Bytes:
        """(num_envs, size): the bytes at ``address`` (work or high RAM) of every env."""

    def frame(self, i: int) -> Bytes:
        """Env ``i``'s last drawn frame, (144, 160) shades."""

    def close(self) -> None: ...


class FrameDriver:
    """:class:`~emurust.games.Driver` on top of ``run`` / ``hold`` / ``read``: ``run_until``."""

    def run(self, frames: int) -> None:
        raise NotImplementedError

    def read(self, address: int) -> int:
        raise NotImplementedError

    def run_until(self, predicate: Callable[[], bool], max_frames: int, what: str) -> None:
        for _ in range(max_frames):
            self.run(1)
            if predicate():
                return
        raise GameSpecError(f"the start function did not reach {what} in {max_frames} frames")


class GameBoyDriver(FrameDriver):
    """Drives an :class:`emurust.GameBoy` (frames drawn: the start state keeps its picture)."""

    def __init__(self, gb: GameBoy) -> None:
        self.gb = gb

    def run(self, frames: int) -> None:
        self.gb.tick(frames, render=True)

    def hold(self, buttons: Sequence[str], frames: int) -> None:
        for b in buttons:
            self.gb.button_press(b)
        self.run(frames)
        for b in buttons:
            self.gb.button_release(b)

    def read(self, address: int) -> int:
        return self.gb.memory[address]


def rom_bytes(spec: GameSpec, rom: RomSource | None) -> bytes:
    """The ROM image: ``rom`` if given, else the spec's."""
    return read_image(spec.rom_source() if rom is None else rom, "rom", MAX_ROM_SIZE)


class EmurustEngine:
    """The Rust batched engine (:class:`emurust.VecGameBoy`) set up from a spec."""

    def __init__(
        self,
        spec: GameSpec,
        num_envs: int,
        *,
        rom: RomSource | None = None,
        initial_state: bytes | Snapshot | None = None,
        num_threads: int | None = None,
        draw: bool = False,
    ) -> None:
        image = rom_bytes(spec, rom)
        if initial_state is None and spec.start is not None:
            with warnings.catch_warnings():
                # The VecGameBoy below emits the ROM's warnings; they are named here only
                # when the start function fails, which they may explain.
                warnings.simplefilter("ignore", EmuRustWarning)
                gb = GameBoy(image, model=spec.model)
            try:
                spec.start(GameBoyDriver(gb))
            except GameSpecError as e:
                if not gb.warnings:
                    raise
                raise GameSpecError(
                    f"{e}; this ROM has warnings that may be why: {' / '.join(gb.warnings)}"
                ) from e
            initial_state = gb.snapshot()
        self.vec = VecGameBoy(
            image,
            num_envs,
            frame_skip=spec.frame_skip,
            hold_frames=spec.hold,
            num_threads=num_threads,
            obs=screen_mode(spec, draw),
            frame_stack=spec.frame_stack,
            ram_addresses=list(spec.gathered_addresses),
            initial_state=initial_state,
            action_table=list(spec.actions),
            model=spec.model,
        )
        self.num_envs = num_envs
        self.observation_shape = tuple(self.vec.observation_shape)
        # Views taken once: reading them does not touch the VecGameBoy object, so another
        # thread may read the rows of envs that are not being stepped while it steps.
        self._obs = self.vec.obs
        self._ram = self.vec.ram
        self._wram = self.vec.wram
        self._hram = self.vec.hram

    @property
    def obs(self) -> Bytes:
        return self._obs

    @property
    def ram(self) -> Bytes:
        return self._ram

    @property
    def num_threads(self) -> int:
        return self.vec.num_threads

    def step(self, actions: Bytes, mask: Bools | None, obs_out: Bytes | None = None) -> None:
        self.vec.step(actions, mask=mask, obs=obs_out)  # the copy is made by the threads

    def reset_envs(self, mask: Bools) -> None:
        self.vec.reset_envs(mask)

    def set_memory(self, address: int, values: Bytes, mask: Bools) -> None:
        self.vec.set_memory(address, values, mask=mask)

    def read(self, address: int, size: int) -> Bytes:
        if address in WRAM:
            return self._wram[:, address - WRAM.start : address - WRAM.start + size]
        return self._hram[:, address - 0xFF80 : address - 0xFF80 + size]

    def frame(self, i: int) -> Bytes:
        return self.vec.frame(i)

    def close(self) -> None:
        pass


def make_engine(
    spec: GameSpec,
    num_envs: int,
    *,
    backend: str = "emurust",
    rom: RomSource | None = None,
    initial_state: bytes | Snapshot | str | os.PathLike[str] | None = None,
    num_threads: int | None = None,
    draw: bool = False,
) -> Engine:
    """The engine of ``backend`` ("emurust" or "pyboy") for ``spec``; ``initial_state`` is
    emurust state bytes, a path to them, or a :class:`emurust.Snapshot`. ``draw``: frames are
    drawn even for a RAM-only spec (``obs="ram"``), for :meth:`Engine.frame`."""
    if initial_state is None:
        initial_state = spec.initial_state
    if isinstance(initial_state, (str, os.PathLike)):
        with open(initial_state, "rb") as f:
            initial_state = f.read()
    if backend == "emurust":
        return EmurustEngine(
            spec,
            num_envs,
            rom=rom,
            initial_state=initial_state,
            num_threads=num_threads,
            draw=draw,
        )
    if backend == "pyboy":
        from emurust.envs._pyboy import PyBoyEngine

        if initial_state is not None:
            raise GameSpecError(
                "an initial state is an emurust save state; the PyBoy backend reaches the "
                "start state with the spec's start function"
            )
        return PyBoyEngine(spec, num_envs, rom=rom, draw=draw)
    raise GameSpecError(f"backend must be 'emurust' or 'pyboy', not {backend!r}")
