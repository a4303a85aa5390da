"""The vector envs the trainer steps, behind one ``send``/``recv`` interface.

- ``vectorization="native"``: :class:`emurust.GameBoyVectorEnv` (either backend), its own
  ``send``/``recv`` with ``batch_size = num_envs / 2``.
- ``vectorization="async"``: the spec's :class:`emurust.GameBoyEnv` in worker processes,
  Gymnasium's ``AsyncVectorEnv``, two of them (one per half batch, ``num_envs / 2``
  workers each) so that one half steps while the policy runs on the other: how PyBoy is
  usually vectorized, and how the benchmarks run the PyBoy backend "at its best".
- ``vectorization="ray"``: :class:`emurust.envs.ray.RayVectorEnv`, the envs in Ray actors
  (``ray_actors`` of ``num_envs / ray_actors`` envs each), one batch per actor (two halves
  with one actor), so that actors step while the policy runs.

- ``vectorization="null"``: :class:`NullVectorEnv`, no emulator at all: observations of the
  spec's shapes that never change, returned at once. What the trainer reaches with it is its
  own ceiling on the machine (``bench/ppo.py --null-env``).

All reset episodes the ``NEXT_STEP`` way and report episode statistics in the infos. Each
``recv`` returns the envs of one earlier ``send`` (``num_envs / batch_size`` batches), which
is what the trainer relies on.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt

from emurust.envs._gymnasium import GameBoyEnv, GameBoyVectorEnv
from emurust.games import GameSpec

__all__ = ["AsyncHalves", "NullVectorEnv", "make_vector"]

Ids = npt.NDArray[np.intp]


class AsyncHalves:
    """Two Gymnasium ``AsyncVectorEnv`` of ``num_envs / 2`` worker processes each, behind
    ``async_reset``/``send``/``recv`` (env ids 0..n/2-1 are the first, the rest the second)."""

    def __init__(self, spec: GameSpec, num_envs: int, backend: str) -> None:
        half = num_envs // 2
        self.num_envs = num_envs
        self.batch_size = half
        self.halves = [
            gymnasium.vector.AsyncVectorEnv(
                [lambda: GameBoyEnv(spec, backend=backend) for _ in range(half)],
                autoreset_mode=gymnasium.vector.AutoresetMode.NEXT_STEP,
            )
            for _ in range(2)
        ]
        self.ids = [np.arange(half), np.arange(half, num_envs)]
        self.single_observation_space = self.halves[0].single_observation_space
        self.single_action_space = self.halves[0].single_action_space
        self.queue: deque[int] = deque()
        self.ready: deque[tuple[Any, ...]] = deque()

    def async_reset(self, seed: int | None = None) -> None:
        for h, env in enumerate(self.halves):
            seeds: list[int | None] | None = None
            if seed is not None:
                seeds = [seed + int(i) for i in self.ids[h]]
            obs, _ = env.reset(seed=seeds)
            n = len(self.ids[h])
            zeros = np.zeros(n, dtype=np.float32)
            no = np.zeros(n, dtype=bool)
            self.ready.append((obs, zeros, no, no.copy(), {}, self.ids[h]))

    def send(self, actions: npt.ArrayLike, env_ids: Ids) -> None:
        h = 0 if env_ids[0] < len(self.ids[0]) else 1
        if len(env_ids) != len(self.ids[h]) or not np.array_equal(env_ids, self.ids[h]):
            raise ValueError("AsyncHalves steps whole halves: send the ids recv returned")
        self.halves[h].step_async(np.asarray(actions))
        self.queue.append(h)

    def recv(self) -> tuple[Any, ...]:
        if self.ready:
            return self.ready.popleft()
        h = self.queue.popleft()
        obs, rew, term, trunc, info = self.halves[h].step_wait()
        return obs, rew.astype(np.float32), term, trunc, info, self.ids[h]

    def close(self) -> None:
        for env in self.halves:
            env.close()


class NullVectorEnv:
    """The ``send``/``recv`` interface with no emulator behind it: ``num_envs`` envs in two
    half batches whose observations (of ``spec``'s spaces, a fixed pseudo-random picture)
    never change and come back at once, reward 0 except 1 every 16th step of an env, and
    episodes truncated every ``episode_steps`` steps. The trainer's ceiling: everything it
    does but the emulation."""

    def __init__(self, spec: GameSpec, num_envs: int, episode_steps: int = 500) -> None:
        probe = GameBoyEnv(spec)
        self.single_observation_space = probe.observation_space
        self.single_action_space = probe.action_space
        probe.close()
        self.num_envs = num_envs
        self.batch_size = num_envs // 2
        self.episode_steps = episode_steps
        rng = np.random.default_rng(0)

        def fill(space: Any) -> Any:
            if isinstance(space, gymnasium.spaces.Dict):
                return {k: fill(v) for k, v in space.spaces.items()}
            shape = (self.batch_size, *space.shape)
            return rng.integers(0, 256, shape, dtype=np.uint8)

        self.obs = fill(self.single_observation_space)
        self.steps = np.zeros(num_envs, dtype=np.int64)
        self.returns = np.zeros(num_envs)
        self.ids = [np.arange(self.batch_size), np.arange(self.batch_size, num_envs)]
        self.queue: deque[Ids] = deque()

    def async_reset(self, seed: int | None = None) -> None:
        self.steps[:] = 0
        self.returns[:] = 0
        self.queue.extend(self.ids)

    def send(self, actions: npt.ArrayLike, env_ids: Ids) -> None:
        ids = np.asarray(env_ids)
        if len(np.asarray(actions)) != len(ids):
            raise ValueError("one action per env id")
        self.queue.append(ids)

    def recv(self) -> tuple[Any, ...]:
        ids = self.queue.popleft()
        self.steps[ids] += 1
        n = len(ids)
        reward = (self.steps[ids] % 16 == 0).astype(np.float32)
        trunc = self.steps[ids] % self.episode_steps == 0
        self.returns[ids] += reward
        info: dict[str, Any] = {}
        if trunc.any():
            info = {
                "episode": {"r": np.where(trunc, self.returns[ids], 0.0), "l": self.steps[ids]},
                "_episode": trunc,
            }
            self.returns[ids[trunc]] = 0
        obs = self.obs
        if len(ids) != self.batch_size:
            raise ValueError("NullVectorEnv steps whole halves: send the ids recv returned")
        return obs, reward, np.zeros(n, dtype=bool), trunc, info, ids

    def close(self) -> None:
        self.queue.clear()


def make_vector(
    spec: GameSpec,
    num_envs: int,
    *,
    backend: str,
    vectorization: str,
    num_threads: int | None = None,
    ray_address: str | None = None,
    ray_actors: int = 2,
) -> Any:
    """The vector env of ``vectorization`` ("native", "async", "ray" or "null") for ``spec``: a
    ``send``/``recv`` env with ``num_envs`` and ``batch_size`` attributes. With "ray",
    ``num_threads`` is each actor's (default 1) and ``ray_address`` the cluster (None: a
    local one)."""
    if vectorization == "ray":
        from emurust.envs.ray import RayVectorEnv

        if backend != "emurust":
            raise ValueError("vectorization='ray' runs the emurust backend")
        if ray_actors < 1 or num_envs % ray_actors:
            raise ValueError(
                f"num_envs ({num_envs}) must be a multiple of the number of actors ({ray_actors})"
            )
        m = num_envs // ray_actors
        if ray_actors == 1 and m % 2:
            raise ValueError(
                f"one actor's envs are two half batches: num_envs must be even, got {m}"
            )
        return RayVectorEnv(
            spec,
            ray_actors,
            m,
            # One batch per actor: the policy runs on one actor's envs while the others
            # step; one actor steps one half while the policy runs on the other. (Each Ray
            # call costs milliseconds of CPU on a 2-core machine: fewer, larger calls leave
            # more of it to the learner; bench/ray_envs.py.)
            batch_size=m if ray_actors > 1 else m // 2,
            threads_per_actor=num_threads or 1,
            address=ray_address,
        )
    if num_envs % 2:
        raise ValueError(f"num_envs must be even (two half batches), got {num_envs}")
    if vectorization == "native":
        return GameBoyVectorEnv(
            spec, num_envs, batch_size=num_envs // 2, backend=backend, num_threads=num_threads
        )
    if vectorization == "async":
        return AsyncHalves(spec, num_envs, backend)
    if vectorization == "null":
        return NullVectorEnv(spec, num_envs)
    raise ValueError(
        f"vectorization must be 'native', 'async', 'ray' or 'null', not {vectorization!r}"
    )
