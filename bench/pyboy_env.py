"""PyBoy set up for the benchmarks, and a minimal gymnasium environment around it.

`PyBoyEnv` steps like `emurust.VecGameBoy` does by default, so that the batch benchmark
(bench/batch.py) compares like with like: an action (an index into `ACTIONS`, the
`VecGameBoy` default table: the four directions, A, B, START and a no-op) is held for
`hold_frames` frames, released for the rest of `frame_skip` frames, and only the last frame
is rendered. With `episode_steps`, the env goes back to its initial state every
`episode_steps` steps (inside `step`, no gymnasium autoreset). The observation is the
grey screen (144, 160) uint8 plus the bytes at `ram_addresses`. No reward, never done:
it exists to be timed. `initial_state` (a PyBoy state, e.g. `compare_pyboy.common_start`'s,
which emurust loads too) is where it starts and goes back to; without it PyBoy runs its boot
ROM and `warmup` frames more.

PyBoy's default DMG palette is grey (R = G = B), so channel 0 of its RGBA screen is the grey
level, as in the usual PyBoy RL wrappers.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from compare_pyboy import ACTIONS, RAM_ADDRESSES, import_pyboy, new_pyboy, run_past_boot
from gymnasium import spaces

__all__ = ["ACTIONS", "RAM_ADDRESSES", "PyBoyEnv", "import_pyboy", "new_pyboy", "pyboy_state"]

WARMUP_FRAMES = 120  # run after PyBoy's boot ROM before the initial state is saved


def pyboy_state(pb: Any) -> bytes:
    buf = io.BytesIO()
    pb.save_state(buf)
    return buf.getvalue()


class PyBoyEnv(gymnasium.Env):  # type: ignore[misc]
    """One PyBoy behind the gymnasium API, stepping as `VecGameBoy` does (see the module doc)."""

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        rom: str,
        frame_skip: int = 24,
        hold_frames: int = 8,
        ram_addresses: Sequence[int] = RAM_ADDRESSES,
        warmup: int = WARMUP_FRAMES,
        episode_steps: int | None = None,
        initial_state: bytes | None = None,
    ) -> None:
        if not 0 <= hold_frames <= frame_skip or frame_skip < 1:
            raise ValueError("need 0 <= hold_frames <= frame_skip and frame_skip >= 1")
        self.pyboy = new_pyboy(rom)
        self.frame_skip = frame_skip
        self.hold_frames = hold_frames
        self.ram_addresses = tuple(ram_addresses)
        self.observation_space = spaces.Dict(
            {
                "screen": spaces.Box(0, 255, (144, 160), np.uint8),
                "ram": spaces.Box(0, 255, (len(self.ram_addresses),), np.uint8),
            }
        )
        self.action_space = spaces.Discrete(len(ACTIONS))
        if initial_state is None:
            with open(rom, "rb") as f:
                run_past_boot(self.pyboy, f.read(), warmup)
            initial_state = pyboy_state(self.pyboy)
        self._initial = initial_state
        self._screen = np.zeros((144, 160), np.uint8)
        self._ram = np.zeros(len(self.ram_addresses), np.uint8)
        self._held: tuple[str, ...] = ()
        self.episode_steps = episode_steps
        self._t = 0

    def _observe(self) -> dict[str, np.ndarray]:
        np.copyto(self._screen, self.pyboy.screen.ndarray[:, :, 0])
        memory = self.pyboy.memory
        for i, addr in enumerate(self.ram_addresses):
            self._ram[i] = memory[addr]
        return {"screen": self._screen, "ram": self._ram}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        self.pyboy.load_state(io.BytesIO(self._initial))
        self._t = 0
        self.pyboy.tick(1, True, False)  # draw a frame so the first observation is a picture
        return self._observe(), {}

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        pb = self.pyboy
        if self.episode_steps is not None and self._t >= self.episode_steps:
            # Episodic run: back to the initial state (as VecGameBoy.reset_envs does), so
            # that every contender emulates the same stretch of the game.
            pb.load_state(io.BytesIO(self._initial))
            self._t = 0
        self._t += 1
        buttons = ACTIONS[int(action)]
        rest = self.frame_skip - self.hold_frames
        for name in self._held:  # held over from a step with hold_frames == frame_skip
            pb.button_release(name)
        self._held = ()
        for name in buttons:
            pb.button_press(name)
        if rest == 0:
            pb.tick(self.frame_skip, True, False)
            self._held = buttons  # stay held until the next step, as VecGameBoy does
        else:
            if self.hold_frames:
                pb.tick(self.hold_frames, False, False)
            for name in buttons:
                pb.button_release(name)
            pb.tick(rest, True, False)  # renders only the last frame
        return self._observe(), 0.0, False, False, {}

    def close(self) -> None:
        self.pyboy.stop(save=False)
