"""A PufferLib native environment: :class:`GameBoyPufferEnv`.

It follows PufferLib's ``PufferEnv`` protocol: the spaces and ``num_agents`` (here: the
number of envs) are set before ``super().__init__(buf)``; the env writes observations,
rewards, terminals and truncations straight into the buffers PufferLib hands it (``buf=``) or
allocates; episodes reset themselves in the step that ends them; ``reset(seed)`` returns
``(observations, infos)`` and ``step(actions)`` ``(observations, rewards, terminals,
truncations, infos)``, ``infos`` a list with one dict of episode means whenever episodes
ended. Use it directly (it is already vectorized) or through ``pufferlib.vector.make``:

    import pufferlib.vector
    from emurust.envs.puffer import GameBoyPufferEnv
    vecenv = pufferlib.vector.make(GameBoyPufferEnv, env_kwargs={"num_envs": 64},
                                   backend=pufferlib.vector.PufferEnv)

When PufferLib is not installed the class is built on a stand-in base class with the same
protocol (buffer allocation and the attribute checks), so the env can be used and tested
without it.

Observations are a uint8 Box of the screen's shape; a spec with RAM observations
(``obs_fields``) gets a flat Box: the screen's bytes, then the RAM bytes; a RAM-only spec
(``obs="ram"``) the RAM bytes alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from emurust._gameboy import RomSource
from emurust.envs._batch import EnvBatch
from emurust.envs._engine import make_engine
from emurust.games import GameSpec, get

__all__ = ["HAVE_PUFFERLIB", "GameBoyPufferEnv"]

try:
    from pufferlib import PufferEnv as _Base

    HAVE_PUFFERLIB = True
except ImportError:  # pufferlib is optional
    HAVE_PUFFERLIB = False

    class _Base:  # type: ignore[no-redef]
        """PufferLib's ``PufferEnv`` protocol, for use without PufferLib."""

        single_observation_space: spaces.Box
        single_action_space: spaces.Discrete
        num_agents: int

        def __init__(self, buf: Any = None) -> None:
            for name in ("single_observation_space", "single_action_space", "num_agents"):
                if not hasattr(self, name):
                    raise TypeError(f"a PufferEnv must set {name} before __init__")
            n, space = self.num_agents, self.single_observation_space
            if buf is None:
                self.observations = np.zeros((n, *space.shape), dtype=space.dtype)
                self.rewards = np.zeros(n, dtype=np.float32)
                self.terminals = np.zeros(n, dtype=bool)
                self.truncations = np.zeros(n, dtype=bool)
                self.masks = np.ones(n, dtype=bool)
                self.actions = np.zeros(n, dtype=np.int32)
            else:
                self.observations = buf.observations
                self.rewards = buf.rewards
                self.terminals = buf.terminals
                self.truncations = buf.truncations
                self.masks = buf.masks
                self.actions = buf.actions
            self.agent_ids = np.arange(n)


class GameBoyPufferEnv(_Base):  # type: ignore[misc]
    """``num_envs`` copies of a game as one PufferLib native env (see the module doc).
    ``seed`` seeds env ``i`` with ``seed + i`` at the first reset; other keywords are the
    :class:`~emurust.envs.GameBoyVectorEnv`'s (``num_threads``, ``backend``, ``rom``,
    ``initial_state`` and the spec settings)."""

    def __init__(
        self,
        game: str | GameSpec = "Starcatch",
        num_envs: int = 64,
        *,
        buf: Any = None,
        seed: int | None = 0,
        num_threads: int | None = None,
        backend: str = "emurust",
        rom: RomSource | None = None,
        initial_state: Any = None,
        **overrides: Any,
    ) -> None:
        from emurust.envs._gymnasium import spec_with

        self.game = spec_with(get(game), overrides)
        engine = make_engine(
            self.game,
            num_envs,
            backend=backend,
            rom=rom,
            initial_state=initial_state,
            num_threads=num_threads,
        )
        self._batch = EnvBatch(self.game, engine, autoreset="same_step")
        self._screen_len = int(np.prod(engine.observation_shape))
        shape = engine.observation_shape
        if self.game.obs == "ram":
            self._screen_len = 0
            shape = (len(self.game.obs_addresses),)
        elif self.game.obs_fields:
            shape = (self._screen_len + len(self.game.obs_addresses),)
        self.single_observation_space = spaces.Box(0, 255, shape, np.uint8)
        self.single_action_space = spaces.Discrete(len(self.game.actions))
        self.num_agents = num_envs
        self._seed = seed
        super().__init__(buf)

    def _write_obs(self) -> None:
        engine = self._batch.engine
        if self.game.obs == "ram":
            self.observations[:] = engine.ram[:, : len(self.game.obs_addresses)]
        elif self.game.obs_fields:
            n = self.num_agents
            self.observations[:, : self._screen_len] = engine.obs.reshape(n, -1)
            self.observations[:, self._screen_len :] = engine.ram[:, : len(self.game.obs_addresses)]
        else:
            np.copyto(self.observations, engine.obs)

    def reset(self, seed: int | None = None) -> tuple[npt.NDArray[np.uint8], list[dict[str, Any]]]:
        batch = self._batch
        batch.seed(self._seed if seed is None else seed, batch.all_ids)
        self._seed = None  # later resets continue the seeded episode sequence
        batch.reset(batch.all_ids)
        self._write_obs()
        self.rewards[:] = 0
        self.terminals[:] = False
        self.truncations[:] = False
        return self.observations, []

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        npt.NDArray[np.uint8],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        list[dict[str, Any]],
    ]:
        batch = self._batch
        rewards, terminated, truncated, info = batch.step(
            np.asarray(actions).reshape(-1), batch.all_ids
        )
        self._write_obs()
        self.rewards[:] = rewards
        self.terminals[:] = terminated
        self.truncations[:] = truncated
        infos: list[dict[str, Any]] = []
        if info:
            done = info["_episode"]
            infos.append(
                {
                    "episode_return": float(info["episode"]["r"][done].mean()),
                    "episode_length": float(info["episode"]["l"][done].mean()),
                    "episodes": int(done.sum()),
                }
            )
        return self.observations, self.rewards, self.terminals, self.truncations, infos

    def close(self) -> None:
        self._batch.engine.close()
