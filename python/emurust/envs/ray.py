"""Envs beyond one machine: :class:`RayVectorEnv`, a Gymnasium vector env whose emulators live
in Ray actors (``pip install 'emurust[ray]'``).

Each of ``num_actors`` actors hosts one :class:`emurust.VecGameBoy` of ``envs_per_actor`` envs
with its own Rust threads, and the environment logic of :class:`emurust.GameBoyVectorEnv`
(rewards, episode ends, ``NEXT_STEP`` autoreset, seeds, episode statistics) beside it. The
driver sees one vector env of ``num_actors * envs_per_actor`` envs, env ``i`` in actor
``i // envs_per_actor``, with the local env's two interfaces:

- Gymnasium's ``reset``/``step`` (every actor steps, ``ray.get`` on all of them);
- EnvPool's ``async_reset``/``send``/``recv``: ``send`` hands each actor its envs' actions and
  returns at once; ``recv`` returns the first ``batch_size`` envs to finish, taking actors'
  results as ``ray.wait`` reports them done, so while the learner works on one batch the
  actors step the next (see docs/ray.md).

Observations, rewards and episode ends come back as NumPy arrays through Ray's object
store. An actor that dies is restarted by Ray (``max_restarts``) and the steps it had in
flight are retried on the new one (``max_task_retries``); its envs come back from the start
state, each reported once as a truncated episode (``info["restarted"]``), and stepping goes
on. See docs/ray.md for the design and the figures.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Union

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium.error import ClosedEnvironmentError
from gymnasium.vector import AutoresetMode, VectorEnv

try:
    import ray
    from ray.exceptions import RayActorError
except ImportError as e:  # ray is an optional dependency
    raise ImportError(f"emurust.envs.ray needs Ray: pip install 'emurust[ray]' ({e})") from e

from emurust._core import InvalidArgumentError, Snapshot
from emurust._gameboy import RomSource
from emurust.envs._batch import EnvBatch, check_actions, check_ids, reset_ids
from emurust.envs._engine import (
    Bools,
    Bytes,
    Obs,
    compose_obs,
    frame_shape,
    make_engine,
    rom_bytes,
)
from emurust.envs._gymnasium import InitialState, env_spaces, spec_with
from emurust.games import GameSpec

__all__ = ["ActorLostError", "ClusterResourcesError", "EnvActor", "RayVectorEnv", "portable_spec"]

Ids = npt.NDArray[np.intp]


# Ray's default limit for results returned inline, in the gRPC reply, rather than through
# the shared-memory object store (100 KiB): one actor's results exceed it from about 17 envs
# of 72x80 screens, and the shared-memory path costs twice the CPU per call (docs/ray.md).
INLINE = 100 * 1024


class ClusterResourcesError(InvalidArgumentError):
    """The Ray cluster cannot host the actors asked for (too few CPUs, or they did not start
    in time)."""


class ActorLostError(RuntimeError):
    """An env actor died and Ray could not restart it (its ``max_restarts`` were used up)."""


def portable_spec(
    spec: GameSpec, rom: RomSource | None = None, initial_state: InitialState = None
) -> GameSpec:
    """``spec`` with its ROM image and start state (if any) as bytes, so that actors on any
    node need no file (a :class:`emurust.Snapshot` becomes its save state). A spec with a
    ``start`` function keeps it: each actor reaches the start state itself, picture
    included (a save state does not hold the last drawn frame)."""
    image = rom_bytes(spec, rom)
    state: Any = spec.initial_state if initial_state is None else initial_state
    if isinstance(state, (str, os.PathLike)):
        with open(state, "rb") as f:
            state = f.read()
    elif isinstance(state, Snapshot):
        state = state.save_state()
    if state is None:
        return spec.replace(rom=image)
    return spec.replace(rom=image, start=None, initial_state=state)


# The finished episodes' statistics of a result: return, length, seconds and mask.
Episode = tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.float64], Bools]
# What an actor returns for k envs: one buffer of bytes (see `_pack`), or, when episodes
# ended or envs came back from a restart, the buffer, the episodes' statistics (or None) and
# the mask of the envs that came back from a restart (or None).
Result = Union[Bytes, tuple[Bytes, "Episode | None", "Bools | None"]]


def _pack(
    out: Bytes,
    screen: Bytes,
    ram: Bytes,
    rewards: npt.NDArray[np.float32],
    terminated: Bools,
    truncated: Bools,
) -> Bytes:
    """The results of ``k`` envs as one buffer (``out``, at least ``_size`` bytes): rewards
    (float32, first, so aligned), terminated, truncated, observations, RAM observations. One
    array costs Ray a fraction of what a tuple of arrays does, at both ends."""
    k = len(rewards)
    buf = out[: _size(k, screen[0].size if k else 0, ram.shape[1])]
    buf[: 4 * k] = rewards.view(np.uint8)
    buf[4 * k : 5 * k] = terminated.view(np.uint8)
    buf[5 * k : 6 * k] = truncated.view(np.uint8)
    end = 6 * k + screen.size
    buf[6 * k : end].reshape(screen.shape)[...] = screen
    buf[end:].reshape(ram.shape)[...] = ram
    return buf


def _size(k: int, screen_size: int, ram_size: int) -> int:
    return k * (6 + screen_size + ram_size)


def _unpack(
    buf: Bytes, k: int, shape: tuple[int, ...], ram_size: int
) -> tuple[Bytes, Bytes, npt.NDArray[np.float32], Bools, Bools]:
    """Views of ``_pack``'s buffer: observations, RAM observations, rewards, terminated,
    truncated."""
    end = 6 * k + k * int(np.prod(shape))
    return (
        buf[6 * k : end].reshape(k, *shape),
        buf[end : end + k * ram_size].reshape(k, ram_size),
        buf[: 4 * k].view(np.float32),
        buf[4 * k : 5 * k].view(np.bool_),
        buf[5 * k : 6 * k].view(np.bool_),
    )


class EnvActor:
    """The envs of one actor: ``num_envs`` envs of ``spec`` on a :class:`emurust.VecGameBoy`
    with ``num_threads`` threads (made a Ray actor by :class:`RayVectorEnv`).

    Every env starts *lost*: a step of a lost env does not run it but starts a new episode
    and reports the step as a truncation, so that the envs of an actor that Ray restarted
    (a new process: everything is back at the start state) end their lost episodes cleanly.
    :meth:`reset` clears it: a fresh actor is reset by the driver before its first step.
    """

    def __init__(self, spec: GameSpec, num_envs: int, num_threads: int, autoreset: str) -> None:
        engine = make_engine(spec, num_envs, num_threads=num_threads)
        self.batch = EnvBatch(spec, engine, autoreset)
        self.k = len(spec.obs_addresses)
        self.lost = np.ones(num_envs, dtype=bool)
        self.out = np.empty(
            _size(num_envs, int(np.prod(engine.observation_shape)), self.k), dtype=np.uint8
        )
        self.steps = 0  # step calls, and the seconds spent inside them
        self.step_seconds = 0.0

    def info(self) -> dict[str, Any]:
        """The observation shape, the process id and node of this actor, its threads, and
        its step calls so far with the seconds spent inside them (for the benchmark)."""
        engine: Any = self.batch.engine
        return {
            "observation_shape": tuple(engine.observation_shape),
            "pid": os.getpid(),
            "node": ray.get_runtime_context().get_node_id(),
            "num_threads": engine.num_threads,
            "steps": self.steps,
            "step_seconds": self.step_seconds,
        }

    def _result(
        self,
        ids: Ids | None,
        rewards: npt.NDArray[np.float32],
        terminated: Bools,
        truncated: Bools,
        episode: Episode | None = None,
        restarted: Bools | None = None,
    ) -> Result:
        """The envs ``ids``' (all when None) observations and these outcomes, packed (the
        buffer is reused: Ray copies a result when the method returns)."""
        engine = self.batch.engine
        if ids is None:
            screen, ram = engine.obs, engine.ram[:, : self.k]
        else:
            screen, ram = engine.obs[ids], engine.ram[ids, : self.k]
        buf = _pack(self.out, screen, ram, rewards, terminated, truncated)
        if episode is None and restarted is None:
            return buf
        return buf, episode, restarted

    def reset(self, seed: int | Sequence[int] | None, ids: Ids | None = None) -> Result:
        """Reset the envs ``ids`` (all when None; maybe none) with ``seed`` (see
        ``EnvBatch.seed``); returns the observations of all the actor's envs (rewards 0)."""
        batch = self.batch
        which = batch.all_ids if ids is None else ids
        batch.seed(seed, which)
        batch.reset(which)
        self.lost[which] = False
        no = np.zeros(batch.num_envs, dtype=bool)
        return self._result(None, np.zeros(batch.num_envs, dtype=np.float32), no, no)

    # Without task events (Ray's task table, the dashboard's timeline): they cost about a
    # tenth of the CPU of a call, and a step is too small to be worth a row.
    @ray.method(enable_task_events=False)  # type: ignore[untyped-decorator,unused-ignore]
    def step(self, actions: bytes, ids: bytes | None = None) -> Result:
        """Step the envs ``ids`` (all when None) with ``actions`` (checked by the driver).
        Both come as bytes (uint8 actions, int32 ids): Ray sends bytes for a fraction of
        what it spends on small NumPy arrays."""
        t = time.perf_counter()
        try:
            acts = np.frombuffer(actions, dtype=np.uint8)
            which = None if ids is None else np.frombuffer(ids, dtype=np.int32).astype(np.intp)
            return self._step(acts, which)
        finally:
            self.steps += 1
            self.step_seconds += time.perf_counter() - t

    def _step(self, actions: npt.NDArray[np.uint8], ids: Ids | None) -> Result:
        batch = self.batch
        which = batch.all_ids if ids is None else ids
        lost = self.lost[which]
        if not lost.any():
            rewards, terminated, truncated, info = batch.step(actions, which)
            return self._result(ids, rewards, terminated, truncated, _episode(info))
        # After a restart: the lost envs start new episodes (the step ends the old ones as
        # truncations), and their next step is the NEXT_STEP reset that follows any end.
        k = len(which)
        rewards = np.zeros(k, dtype=np.float32)
        terminated = np.zeros(k, dtype=bool)
        truncated = lost.copy()
        ep: Episode | None = None
        live = ~lost
        if live.any():
            r, te, tr, info = batch.step(actions[live], which[live])
            rewards[live], terminated[live], truncated[live] = r, te, tr
            got = _episode(info)
            if got is not None:
                ep = (np.zeros(k), np.zeros(k, dtype=np.int64), np.zeros(k), np.zeros(k, bool))
                for full, part in zip(ep, got):
                    full[live] = part
        gone = which[lost]
        batch.reset(gone)
        if batch.autoreset == "next_step":
            batch.needs_reset[gone] = True
        self.lost[gone] = False
        return self._result(which, rewards, terminated, truncated, ep, lost)


def _episode(info: dict[str, Any]) -> Episode | None:
    if not info:
        return None
    e = info["episode"]
    return e["r"], e["l"], e["t"], info["_episode"]


@dataclass
class _Chunk:
    """Results of some envs, received and not yet returned by ``recv``."""

    ids: Ids
    obs: Bytes
    ram: Bytes
    rewards: npt.NDArray[np.float32]
    terminated: Bools
    truncated: Bools
    episode: Episode | None
    restarted: Bools | None

    def __len__(self) -> int:
        return len(self.ids)

    def split(self, n: int) -> tuple[_Chunk, _Chunk]:
        def cut(x: Any, part: slice) -> Any:
            if x is None:
                return None
            if isinstance(x, tuple):
                return tuple(v[part] for v in x)
            return x[part]

        a, b = slice(None, n), slice(n, None)
        return (
            _Chunk(*(cut(getattr(self, f), a) for f in _FIELDS)),
            _Chunk(*(cut(getattr(self, f), b) for f in _FIELDS)),
        )


_FIELDS = ("ids", "obs", "ram", "rewards", "terminated", "truncated", "episode", "restarted")


class RayVectorEnv(VectorEnv[Obs, npt.NDArray[np.int64], npt.NDArray[Any]]):
    """``num_actors * envs_per_actor`` copies of a game as one Gymnasium vector env, stepped
    by Ray actors that each host a :class:`emurust.VecGameBoy` (see the module doc).

    ``address`` is the Ray cluster to join (``"auto"``, ``"ray://host:10001"``...); without it
    a Ray already initialized in this process is used, else a local cluster is started
    (``ray_init`` are ``ray.init``'s keyword arguments) and shut down by :meth:`close`. Each
    actor runs ``threads_per_actor`` emulator threads and asks Ray for ``cpus_per_actor``
    CPUs (default: its threads); a cluster with fewer CPUs than all actors ask for is a
    :class:`ClusterResourcesError`, and so are actors that are not all running after
    ``startup_timeout`` seconds. ``actor_options`` go to Ray's ``.options()`` (resources,
    ``runtime_env``, scheduling). Ray restarts a dead actor up to ``max_restarts`` times.

    ``batch_size`` is the number of envs ``recv`` returns (default ``envs_per_actor``: one
    actor's envs when each ``send`` covers an actor). The game and its settings are given as
    to :class:`emurust.GameBoyVectorEnv`; the ROM and the start state travel to the actors as
    bytes (:func:`portable_spec`), so the nodes need emurust but no game files.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012

    def __init__(
        self,
        game: str | GameSpec = "Starcatch",
        num_actors: int = 2,
        envs_per_actor: int = 32,
        *,
        batch_size: int | None = None,
        threads_per_actor: int = 1,
        cpus_per_actor: float | None = None,
        address: str | None = None,
        ray_init: dict[str, Any] | None = None,
        actor_options: dict[str, Any] | None = None,
        max_restarts: int = 5,
        startup_timeout: float = 120.0,
        rom: RomSource | None = None,
        initial_state: InitialState = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        episode_stats: bool = True,
        **overrides: Any,
    ) -> None:
        for name, value in (
            ("num_actors", num_actors),
            ("envs_per_actor", envs_per_actor),
            ("threads_per_actor", threads_per_actor),
        ):
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
                raise InvalidArgumentError(f"{name} must be a positive int, got {value!r}")
        mode = AutoresetMode(autoreset_mode)
        if mode == AutoresetMode.SAME_STEP:
            raise InvalidArgumentError(
                "RayVectorEnv supports AutoresetMode.NEXT_STEP and DISABLED, as "
                "GameBoyVectorEnv does"
            )
        self.game = spec_with(game, overrides)
        self.num_actors = int(num_actors)
        self.envs_per_actor = m = int(envs_per_actor)
        self.num_envs = self.num_actors * m
        self.batch_size = m if batch_size is None else int(batch_size)
        if not 1 <= self.batch_size <= self.num_envs:
            raise InvalidArgumentError(
                f"batch_size must be between 1 and num_envs ({self.num_envs}), got {batch_size}"
            )
        cpus = float(threads_per_actor if cpus_per_actor is None else cpus_per_actor)
        spec = portable_spec(self.game, rom, initial_state)

        self._owns_ray = False
        self.actors: list[Any] = []
        if not ray.is_initialized():
            init = dict(ray_init or {})
            if address is None and not os.environ.get("RAY_ADDRESS"):
                # A new local cluster: one actor's results travel inline, and the actors run
                # at this process's priority, as local emulation threads would (Ray's
                # default is nice 15 for its workers). See docs/ray.md.
                screen = int(np.prod(frame_shape(self.game.obs))) * self.game.frame_stack
                size = _size(m, screen, len(self.game.obs_addresses))
                init.setdefault(
                    "_system_config",
                    {
                        "max_direct_call_object_size": max(INLINE, size + 4096),
                        "worker_niceness": os.nice(0),
                    },
                )
            ray.init(address=address, **init)
            self._owns_ray = True
        try:
            self._check_cpus(cpus)
            remote = ray.remote(EnvActor).options(
                num_cpus=cpus,
                max_restarts=max_restarts,
                max_task_retries=-1,  # a step in flight when the actor died runs again
                **(actor_options or {}),
            )
            autoreset = "next_step" if mode == AutoresetMode.NEXT_STEP else "disabled"
            # One copy of the spec (ROM included) in the object store, kept alive by this
            # reference: a restarted actor is built from it again.
            self._spec_ref = ray.put(spec)
            self.actors = [
                remote.remote(self._spec_ref, m, int(threads_per_actor), autoreset)
                for _ in range(self.num_actors)
            ]
            self.actor_info = self._wait_ready(startup_timeout, cpus)
        except BaseException:
            self._shutdown()
            raise
        shape = tuple(self.actor_info[0]["observation_shape"])
        self._screen_shape = shape
        self._ram_size = len(self.game.obs_addresses)
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self.single_observation_space, self.single_action_space = env_spaces(self.game, shape)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, self.num_envs
        )
        self.action_space = gymnasium.vector.utils.batch_space(
            self.single_action_space, self.num_envs
        )
        self.max_restarts = max_restarts
        self.restarts = 0  # envs reported back from an actor restart so far
        self._episode_stats = episode_stats
        self._num_actions = len(self.game.actions)
        self._all = np.arange(self.num_envs)
        self._busy = np.zeros(self.num_envs, dtype=bool)  # sent or ready, not yet received
        self._pending: dict[Any, Ids] = {}  # object ref of a step -> its (global) env ids
        self._ready: deque[_Chunk] = deque()
        self._n_ready = 0

    # ---- the cluster ------------------------------------------------------------------

    def _check_cpus(self, cpus: float) -> None:
        need = self.num_actors * cpus
        have = ray.cluster_resources().get("CPU", 0.0)
        if need > have:
            raise ClusterResourcesError(
                f"{self.num_actors} actors of {cpus:g} CPU each need {need:g} CPUs; the Ray "
                f"cluster has {have:g}. Ask for fewer actors or threads per actor, give "
                "cpus_per_actor (a fraction shares a CPU), or add nodes"
            )

    def _wait_ready(self, timeout: float, cpus: float) -> list[dict[str, Any]]:
        refs = [a.info.remote() for a in self.actors]
        done, _ = ray.wait(refs, num_returns=len(refs), timeout=timeout)
        if len(done) < len(refs):
            raise ClusterResourcesError(
                f"{len(refs) - len(done)} of {len(refs)} actors ({cpus:g} CPU each) were not "
                f"running after {timeout:g} s; the cluster has "
                f"{ray.available_resources().get('CPU', 0.0):g} CPUs free of "
                f"{ray.cluster_resources().get('CPU', 0.0):g}"
            )
        info: list[dict[str, Any]] = ray.get(refs)
        return info

    def _get(self, refs: list[Any], actors: list[int]) -> list[Any]:
        try:
            return list(ray.get(refs))
        except RayActorError as e:
            raise ActorLostError(
                f"an env actor of {[self._span(a) for a in actors]} died and could not be "
                f"restarted (max_restarts={self.max_restarts}): {e}"
            ) from e

    def _span(self, actor: int) -> str:
        m = self.envs_per_actor
        return f"actor {actor} (envs {actor * m}..{actor * m + m - 1})"

    def _shutdown(self) -> None:
        for a in self.actors:
            ray.kill(a)
        self.actors = []
        if self._owns_ray:
            ray.shutdown()
            self._owns_ray = False

    def close_extras(self, **kwargs: Any) -> None:
        self._shutdown()

    def _check_open(self, what: str) -> None:
        if self.closed:
            raise ClosedEnvironmentError(f"{what}() on a RayVectorEnv that was closed")

    def actor_pids(self) -> list[int]:
        """Each actor's process id now (for tests and monitoring)."""
        return [int(i["pid"]) for i in ray.get([a.info.remote() for a in self.actors])]

    # ---- splitting across actors -------------------------------------------------------

    def _by_actor(self, ids: Ids) -> list[tuple[int, Ids, npt.NDArray[np.intp] | None]]:
        """(actor, positions in ``ids``, local ids or None for all of the actor's envs) for
        each actor that ``ids`` touches, in actor order."""
        m = self.envs_per_actor
        if not len(ids):
            return []
        first = int(ids.min()) // m
        if int(ids.max()) // m == first:  # one actor's envs: the usual case
            local = ids - first * m
            every = len(local) == m and bool((local == np.arange(m)).all())
            return [(first, np.arange(len(ids)), None if every else local)]
        owner = ids // m
        out = []
        for a in np.unique(owner):
            pos = np.flatnonzero(owner == a)
            local = ids[pos] - a * m
            every = len(local) == m and bool((local == np.arange(m)).all())
            out.append((int(a), pos, None if every else local))
        return out

    def _reset_refs(self, seed: int | Sequence[int] | None, ids: Ids) -> list[Any]:
        """Each actor's reset of its envs among ``ids`` (every actor is called: its reset
        returns the observations of all its envs). ``seed`` (an int) gives env ``i`` the
        seed ``seed + i``; a sequence gives each env of ``ids`` its own."""
        if seed is not None and not (
            (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool))
            or (isinstance(seed, Sequence) and len(seed) == len(ids))
        ):
            raise InvalidArgumentError(
                f"seed must be an int or a sequence of {len(ids)} ints, got {seed!r}"
            )
        if isinstance(seed, (int, np.integer)) and seed < 0:
            raise InvalidArgumentError(f"seeds must be non-negative ints, got {seed!r}")
        m = self.envs_per_actor
        owner = ids // m
        refs = []
        for a, actor in enumerate(self.actors):
            pos = np.flatnonzero(owner == a)
            local = ids[pos] - a * m
            every = len(local) == m and bool((local == np.arange(m)).all())
            s: Any = None
            if isinstance(seed, (int, np.integer)):
                s = int(seed) + a * m if every else [int(seed) + int(i) for i in ids[pos]]
            elif seed is not None:
                s = [seed[int(p)] for p in pos]
            refs.append(actor.reset.remote(s, None if every else local))
        return refs

    def _obs(self, screen: Bytes, ram: Bytes) -> Obs:
        return compose_obs(self.game, screen, ram)

    # ---- synchronous API --------------------------------------------------------------

    def _require_idle(self, what: str) -> None:
        self._check_open(what)
        if self._busy.any():
            raise InvalidArgumentError(
                f"{what}() while envs sent with send() have not all been received with "
                f"recv(): {int(self._busy.sum())} envs are pending"
            )

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        """Resets every env (or the envs of ``options={"reset_mask": mask}``) and returns
        every env's observation. ``seed`` (an int) seeds env ``i`` with ``seed + i``; a
        sequence gives each (reset) env its own."""
        self._require_idle("reset")
        ids = reset_ids(options, self._all, self.num_envs)
        results = self._get(self._reset_refs(seed, ids), list(range(self.num_actors)))
        m = self.envs_per_actor
        chunk = self._merge(
            [self._chunk(np.arange(i * m, (i + 1) * m), r) for i, r in enumerate(results)]
        )
        return self._obs(chunk.obs, chunk.ram), {}

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[Obs, npt.NDArray[np.float32], Bools, Bools, dict[str, Any]]:
        """Steps every env (each actor its own, in parallel) and returns the results."""
        self._require_idle("step")
        acts = check_actions(actions, self.num_envs, self._num_actions, self.game.name)
        m = self.envs_per_actor
        packed = acts.astype(np.uint8).tobytes()
        refs = [a.step.remote(packed[i * m : (i + 1) * m]) for i, a in enumerate(self.actors)]
        results = self._get(refs, list(range(self.num_actors)))
        chunk = self._merge(
            [self._chunk(np.arange(i * m, (i + 1) * m), r) for i, r in enumerate(results)]
        )
        return (
            self._obs(chunk.obs, chunk.ram),
            chunk.rewards,
            chunk.terminated,
            chunk.truncated,
            self._info(chunk),
        )

    def _chunk(self, ids: Ids, result: Result) -> _Chunk:
        """An actor's result for the envs ``ids`` (views of the received buffer)."""
        episode = restarted = None
        if isinstance(result, tuple):
            result, episode, restarted = result
            if restarted is not None:
                self.restarts += int(restarted.sum())
        parts = _unpack(result, len(ids), self._screen_shape, self._ram_size)
        return _Chunk(ids, *parts, episode, restarted)

    @staticmethod
    def _merge(chunks: list[_Chunk]) -> _Chunk:
        """One chunk of fresh arrays (the caller keeps them) from ``chunks``."""
        if len(chunks) == 1:
            c = chunks[0]
            return _Chunk(
                c.ids,
                np.array(c.obs),
                np.array(c.ram),
                np.array(c.rewards),
                np.array(c.terminated),
                np.array(c.truncated),
                c.episode,
                c.restarted,
            )
        k = sum(len(c) for c in chunks)
        episode: Episode | None = None
        if any(c.episode is not None for c in chunks):
            zeros: Episode = (
                np.zeros(k),
                np.zeros(k, dtype=np.int64),
                np.zeros(k),
                np.zeros(k, dtype=bool),
            )
            at = 0
            for c in chunks:
                if c.episode is not None:
                    for full, part in zip(zeros, c.episode):
                        full[at : at + len(c)] = part
                at += len(c)
            episode = zeros
        restarted: Bools | None = None
        if any(c.restarted is not None for c in chunks):
            restarted = np.concatenate(
                [c.restarted if c.restarted is not None else np.zeros(len(c), bool) for c in chunks]
            )
        return _Chunk(
            np.concatenate([c.ids for c in chunks]),
            np.concatenate([c.obs for c in chunks]),
            np.concatenate([c.ram for c in chunks]),
            np.concatenate([c.rewards for c in chunks]),
            np.concatenate([c.terminated for c in chunks]),
            np.concatenate([c.truncated for c in chunks]),
            episode,
            restarted,
        )

    def _info(self, chunk: _Chunk) -> dict[str, Any]:
        info: dict[str, Any] = {}
        if self._episode_stats and chunk.episode is not None:
            r, length, t, done = chunk.episode
            info["episode"] = {"r": r, "l": length, "t": t}
            info["_episode"] = done
        if chunk.restarted is not None:
            info["restarted"] = chunk.restarted
            info["_restarted"] = chunk.restarted
        return info

    # ---- EnvPool-style asynchronous API ------------------------------------------------

    def async_reset(self, seed: int | Sequence[int] | None = None) -> None:
        """Resets every env; each then counts as finished, so :meth:`recv` returns them
        (one actor's envs at a time, as the actors finish)."""
        self._require_idle("async_reset")
        m = self.envs_per_actor
        for i, ref in enumerate(self._reset_refs(seed, self._all)):
            self._pending[ref] = np.arange(i * m, (i + 1) * m)
        self._busy[:] = True

    def send(self, actions: npt.ArrayLike, env_ids: npt.ArrayLike | None = None) -> None:
        """Start stepping ``env_ids`` (default: all) with ``actions`` (one each): each actor
        gets its envs' actions, and this returns at once. Envs in flight or with results not
        yet received cannot be sent."""
        self._check_open("send")
        ids = self._all if env_ids is None else check_ids(env_ids, self.num_envs)
        acts = check_actions(actions, len(ids), self._num_actions, self.game.name)
        if self._busy[ids].any():
            raise InvalidArgumentError(
                "send() of envs that are in flight or whose results were not received: "
                f"{ids[self._busy[ids]].tolist()} (recv() them first; after reset(), use "
                "async_reset() and recv())"
            )
        self._busy[ids] = True
        packed = acts.astype(np.uint8)
        for a, pos, local in self._by_actor(ids):
            ref = self.actors[a].step.remote(
                packed[pos].tobytes(), None if local is None else local.astype(np.int32).tobytes()
            )
            self._pending[ref] = ids[pos]

    def _collect(self) -> None:
        """Wait for the first pending actor call to finish (whichever it is) and file it."""
        done, _ = ray.wait(list(self._pending), num_returns=1)
        owners = [int(self._pending[r][0]) // self.envs_per_actor for r in done]
        for ref, result in zip(done, self._get(done, owners)):
            chunk = self._chunk(self._pending.pop(ref), result)
            self._ready.append(chunk)
            self._n_ready += len(chunk)

    def recv(
        self,
    ) -> tuple[Obs, npt.NDArray[np.float32], Bools, Bools, dict[str, Any], Ids]:
        """Wait until ``batch_size`` envs have finished and return their observations,
        rewards, terminations, truncations, infos (with ``info["env_id"]``) and ids, the
        envs in the order their actors finished. Arrays are fresh (the caller keeps them)."""
        self._check_open("recv")
        busy = int(self._busy.sum())
        if not busy:
            raise InvalidArgumentError("recv() with nothing sent: call async_reset() or send()")
        k = min(self.batch_size, busy)
        while self._n_ready < k:
            self._collect()
        taken: list[_Chunk] = []
        need = k
        while need:
            head = self._ready[0]
            if len(head) <= need:
                taken.append(self._ready.popleft())
                need -= len(head)
            else:
                first, rest = head.split(need)
                taken.append(first)
                self._ready[0] = rest
                need = 0
        self._n_ready -= k
        chunk = self._merge(taken)
        self._busy[chunk.ids] = False
        info = self._info(chunk)
        info["env_id"] = chunk.ids
        return (
            self._obs(chunk.obs, chunk.ram),
            chunk.rewards,
            chunk.terminated,
            chunk.truncated,
            info,
            chunk.ids,
        )
