"""The PyBoy backend: the same spec, actions, observations and rewards on PyBoy 2.x.

PyBoy runs at its fastest configuration (``window="null"``, ``sound_emulated=False``,
``set_emulation_speed(0)``, DMG mode), one instance per env, stepped one after another in the
calling thread. A step is what :class:`emurust.VecGameBoy` does: the action's buttons are held
``hold_frames`` frames (until the next step when that is the whole step), released for the
rest, and only the last frame is drawn. Observations come from PyBoy's screen, its default
grey palette mapped back to shades and converted as emurust converts them.

One difference remains that no backend can hide: PyBoy ends a frame when LY wraps from 153 to
0, emurust at the start of VBlank (LY 144), ten lines earlier. RAM read after a step is the
same; the picture is the same for games that change the screen only on every second VBlank
(Starcatch, with an even ``frame_skip``), and one frame older on PyBoy for other games.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from emurust._gameboy import RomSource
from emurust._pyboy_adapter import PYBOY_GREYS, new_pyboy, save_state, shades_of
from emurust.envs._engine import Bools, Bytes, FrameDriver, convert_shades, frame_shape, rom_bytes
from emurust.games._spec import GameSpec, GameSpecError

__all__ = ["PYBOY_GREYS", "PyBoyDriver", "PyBoyEngine", "new_pyboy"]


class PyBoyDriver(FrameDriver):
    """Drives one PyBoy for a spec's start function (every frame drawn)."""

    def __init__(self, pb: Any) -> None:
        self.pb = pb

    def run(self, frames: int) -> None:
        self.pb.tick(frames, True, False)

    def hold(self, buttons: Sequence[str], frames: int) -> None:
        for b in buttons:
            self.pb.button_press(b.lower())
        self.run(frames)
        for b in buttons:
            self.pb.button_release(b.lower())

    def read(self, address: int) -> int:
        return int(self.pb.memory[address])


class PyBoyEngine:
    """``num_envs`` PyBoy instances behind the :class:`~emurust.envs._engine.Engine` API."""

    def __init__(
        self, spec: GameSpec, num_envs: int, *, rom: RomSource | None = None, draw: bool = False
    ) -> None:
        image = rom_bytes(spec, rom)
        cgb_flag = len(image) > 0x143 and image[0x143] & 0x80
        if spec.model == "cgb" or (spec.model == "auto" and cgb_flag):
            raise GameSpecError(
                f"{spec.name}: the PyBoy backend runs the DMG only (model={spec.model!r} picks "
                'the CGB here); use the emurust backend, or model="dmg"'
            )
        self.spec = spec
        # A RAM-only spec draws no frame (as emurust's "none" mode), unless asked to.
        self._draw = spec.obs != "ram" or draw
        self.num_envs = num_envs
        # Every instance runs the start function itself rather than loading the first one's
        # state: PyBoy draws the window from renderer state that its save states do not
        # hold (its window line counter), and an instance that loaded a state without that
        # history draws the window one line off in the next frame.
        self.pbs = [new_pyboy(image) for _ in range(num_envs)]
        for pb in self.pbs:
            if spec.start is not None:
                spec.start(PyBoyDriver(pb))
        self._initial = save_state(self.pbs[0])
        self._initial_frame = shades_of(self.pbs[0])
        frame = frame_shape(spec.obs)
        stack = (spec.frame_stack,) if spec.frame_stack > 1 else ()
        self.observation_shape = (*stack, *frame)
        self._obs = np.zeros((num_envs, *self.observation_shape), np.uint8)
        self._frames = np.zeros((num_envs, 144, 160), np.uint8)
        self._addresses = spec.gathered_addresses
        self._ram = np.zeros((num_envs, len(self._addresses)), np.uint8)
        self._held: list[tuple[str, ...]] = [() for _ in range(num_envs)]
        self._buttons = [tuple(b.lower() for b in action) for action in spec.actions]
        self.reset_envs(np.ones(num_envs, dtype=bool))

    @property
    def obs(self) -> Bytes:
        return self._obs

    @property
    def ram(self) -> Bytes:
        return self._ram

    def _observe(self, i: int, shades: Bytes | None, *, fill: bool) -> None:
        if shades is not None:
            self._frames[i] = shades
        if self.spec.obs == "ram":
            pass
        elif self.spec.frame_stack == 1:
            self._obs[i] = convert_shades(self._frames[i], self.spec.obs)
        elif fill:
            self._obs[i] = convert_shades(self._frames[i], self.spec.obs)[None]
        else:
            self._obs[i, :-1] = self._obs[i, 1:]
            self._obs[i, -1] = convert_shades(self._frames[i], self.spec.obs)
        memory = self.pbs[i].memory
        for j, a in enumerate(self._addresses):
            self._ram[i, j] = memory[a]

    def step(self, actions: Bytes, mask: Bools | None, obs_out: Bytes | None = None) -> None:
        skip, hold = self.spec.frame_skip, self.spec.hold
        for i, pb in enumerate(self.pbs):
            if mask is not None and not mask[i]:
                continue
            for b in self._held[i]:
                pb.button_release(b)
            buttons = self._buttons[int(actions[i])] if hold > 0 else ()
            for b in buttons:
                pb.button_press(b)
            draw = self._draw
            if hold == skip:
                pb.tick(skip, draw, False)  # held until the next step
                self._held[i] = buttons
            else:
                if hold:
                    pb.tick(hold, False, False)
                for b in buttons:
                    pb.button_release(b)
                pb.tick(skip - hold, draw, False)  # only the last frame is drawn
                self._held[i] = ()
            self._observe(i, shades_of(pb) if draw else None, fill=False)
        if obs_out is not None:
            np.copyto(obs_out, self._obs)

    def reset_envs(self, mask: Bools) -> None:
        for i in np.flatnonzero(mask):
            pb = self.pbs[i]
            for b in self._held[i]:
                pb.button_release(b)
            self._held[i] = ()
            pb.load_state(io.BytesIO(self._initial))
            self._observe(int(i), self._initial_frame, fill=True)

    def set_memory(self, address: int, values: Bytes, mask: Bools) -> None:
        for i in np.flatnonzero(mask):
            memory = self.pbs[i].memory
            for j, v in enumerate(values[i]):
                memory[address + j] = int(v)
            for j, a in enumerate(self._addresses):
                self._ram[i, j] = memory[a]

    def read(self, address: int, size: int) -> Bytes:
        rows = [self.pbs[i].memory[address : address + size] for i in range(self.num_envs)]
        out: npt.NDArray[np.uint8] = np.array(rows, dtype=np.uint8).reshape(self.num_envs, size)
        return out

    def frame(self, i: int) -> Bytes:
        out: Bytes = self._frames[i].copy()
        return out

    def close(self) -> None:
        for pb in self.pbs:
            pb.stop(save=False)
        self.pbs = []
