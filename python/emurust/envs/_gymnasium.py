"""Gymnasium environments: :class:`GameBoyEnv` (one game) and :class:`GameBoyVectorEnv` (a
native vector env on :class:`emurust.VecGameBoy`, with EnvPool-style ``send``/``recv``)."""

from __future__ import annotations

import os
import sys
import threading
import weakref
from collections import deque
from collections.abc import Sequence
from typing import Any, Union

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.error import ClosedEnvironmentError
from gymnasium.vector import AutoresetMode, VectorEnv

from emurust._core import InvalidArgumentError, Snapshot
from emurust._gameboy import RomSource
from emurust.envs._batch import EnvBatch
from emurust.envs._engine import Bools, Engine, compose_obs, convert_shades, make_engine
from emurust.games import GameSpec, get

__all__ = ["GameBoyEnv", "GameBoyVectorEnv", "register_gymnasium"]

Obs = Union[npt.NDArray[np.uint8], dict[str, npt.NDArray[np.uint8]]]
InitialState = Union[bytes, Snapshot, str, "os.PathLike[str]", None]

_OVERRIDES = ("frame_skip", "hold_frames", "obs", "frame_stack", "max_episode_steps", "model")


def spec_with(game: str | GameSpec, overrides: dict[str, Any]) -> GameSpec:
    """The registered spec ``game`` with the env constructors' spec ``overrides`` applied
    (also used by the PufferLib and Ray envs)."""
    spec = get(game)
    unknown = set(overrides) - set(_OVERRIDES)
    if unknown:
        raise TypeError(
            f"unexpected keyword arguments {sorted(unknown)}; a spec setting can be changed "
            f"with {', '.join(_OVERRIDES)}"
        )
    return spec.replace(**overrides) if overrides else spec


def env_spaces(spec: GameSpec, shape: tuple[int, ...]) -> tuple[spaces.Space[Any], spaces.Discrete]:
    """The observation and action spaces of one env (``shape``: the engine's observation)."""
    ram_only = spaces.Box(0, 255, (len(spec.obs_addresses),), np.uint8)
    if spec.obs == "ram":
        return ram_only, spaces.Discrete(len(spec.actions))
    screen = spaces.Box(0, 3 if spec.obs == "shades" else 255, shape, np.uint8)
    obs: spaces.Space[Any] = screen
    if spec.obs_fields:
        ram = spaces.Box(0, 255, (len(spec.obs_addresses),), np.uint8)
        obs = spaces.Dict({"screen": screen, "ram": ram})
    return obs, spaces.Discrete(len(spec.actions))


class GameBoyEnv(gymnasium.Env[Obs, np.int64]):
    """One game as a :class:`gymnasium.Env` (``emurust.GameBoyEnv("Starcatch")``).

    ``game`` is a registered name (``emurust.games.names()``) or a
    :class:`~emurust.games.GameSpec`. ``backend="pyboy"`` runs the same spec on PyBoy.
    ``rom`` and ``initial_state`` (emurust state bytes, a path to them, or a
    :class:`emurust.Snapshot`) replace the spec's; spec settings can be changed with
    ``frame_skip``, ``hold_frames``, ``obs``, ``frame_stack``, ``max_episode_steps``.
    Observations are copies (nothing returned is changed by a later step).
    ``render_mode="rgb_array"`` makes :meth:`render` return the last frame in RGB. The spec
    is ``env.game``.
    """

    metadata: dict[str, Any] = {"render_modes": ["rgb_array"], "render_fps": 60}  # noqa: RUF012

    def __init__(
        self,
        game: str | GameSpec = "Starcatch",
        *,
        backend: str = "emurust",
        rom: RomSource | None = None,
        initial_state: InitialState = None,
        render_mode: str | None = None,
        **overrides: Any,
    ) -> None:
        self.game = spec_with(game, overrides)
        if render_mode not in (None, "rgb_array"):
            raise InvalidArgumentError(
                f"render_mode must be None or 'rgb_array', not {render_mode!r}"
            )
        self.render_mode = render_mode
        engine = make_engine(
            self.game,
            1,
            backend=backend,
            rom=rom,
            initial_state=initial_state,
            num_threads=1,
            draw=render_mode is not None,
        )
        self._batch = EnvBatch(self.game, engine, autoreset="disabled")
        self.observation_space, self.action_space = env_spaces(self.game, engine.observation_shape)
        self.metadata = {**self.metadata, "render_fps": 60 / self.game.frame_skip}
        self._ids = self._batch.all_ids  # env 0: the batch's fast path for "every env"
        self.closed = False

    def _check_open(self, what: str) -> None:
        if self.closed:
            raise ClosedEnvironmentError(f"{what}() on a GameBoyEnv that was closed")

    def _obs(self) -> Obs:
        engine = self._batch.engine
        k = len(self.game.obs_addresses)
        return compose_obs(self.game, engine.obs[0].copy(), engine.ram[0, :k].copy())

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        self._check_open("reset")
        super().reset(seed=seed)
        self._batch.seed(seed, self._ids)
        self._batch.reset(self._ids)
        return self._obs(), {}

    def step(self, action: Any) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        self._check_open("step")
        a = np.asarray(action)
        if a.shape != ():
            raise InvalidArgumentError(
                f"step() takes one action (an int below {len(self.game.actions)}), got an "
                f"array of shape {a.shape}"
            )
        rewards, terminated, truncated, info = self._batch.step(a.reshape(1), self._ids)
        if info:
            info = {"episode": {k: v[0] for k, v in info["episode"].items()}}
        return self._obs(), float(rewards[0]), bool(terminated[0]), bool(truncated[0]), info

    def render(self) -> npt.NDArray[np.uint8] | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() needs render_mode='rgb_array' (set at construction)")
            return None
        return convert_shades(self._batch.engine.frame(0), "rgb")

    def close(self) -> None:
        self.closed = True
        self._batch.engine.close()
        super().close()


class GameBoyVectorEnv(VectorEnv[Obs, npt.NDArray[np.int64], npt.NDArray[Any]]):
    """``num_envs`` copies of a game as a native :class:`gymnasium.vector.VectorEnv`, stepped
    in parallel by :class:`emurust.VecGameBoy`'s Rust threads.

    Autoreset is Gymnasium's ``NEXT_STEP`` (``autoreset_mode=AutoresetMode.DISABLED`` leaves
    resets to ``reset(options={"reset_mask": mask})``). Infos carry each finished episode's
    return, length and time the way :class:`gymnasium.wrappers.vector.RecordEpisodeStatistics`
    adds them (``info["episode"]``, ``info["_episode"]``); ``episode_stats=False`` leaves them
    out, for use under that wrapper.

    Observations of :meth:`step` and :meth:`reset` are fresh arrays (``copy=True``, as in
    Gymnasium's vector envs); ``copy=False`` returns the engine's own read-only buffer
    instead, zero-copy, rewritten in place by the next call. The spec is ``env.game``; the
    emulators are ``env.engine``.

    Asynchronous stepping (EnvPool's API): :meth:`send` starts stepping some envs on the Rust
    threads and returns at once; :meth:`recv` returns the first ``batch_size`` envs that have
    finished, with their ids, so inference on one batch overlaps emulation of the next.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": ["rgb_array"],
        "render_fps": 60,
    }

    def __init__(
        self,
        game: str | GameSpec = "Starcatch",
        num_envs: int = 8,
        *,
        batch_size: int | None = None,
        num_threads: int | None = None,
        backend: str = "emurust",
        rom: RomSource | None = None,
        initial_state: InitialState = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        episode_stats: bool = True,
        copy: bool = True,
        render_mode: str | None = None,
        **overrides: Any,
    ) -> None:
        if (
            not isinstance(num_envs, (int, np.integer))
            or isinstance(num_envs, bool)
            or num_envs < 1
        ):
            raise InvalidArgumentError(f"num_envs must be a positive int, got {num_envs!r}")
        self.game = spec_with(game, overrides)
        mode = AutoresetMode(autoreset_mode)
        if mode == AutoresetMode.SAME_STEP:
            raise InvalidArgumentError(
                "GameBoyVectorEnv supports AutoresetMode.NEXT_STEP and DISABLED (SAME_STEP "
                "would drop the final observation; the PufferLib env resets in the same step)"
            )
        if render_mode not in (None, "rgb_array"):
            raise InvalidArgumentError(
                f"render_mode must be None or 'rgb_array', not {render_mode!r}"
            )
        self.render_mode = render_mode
        self.num_envs = int(num_envs)
        self.batch_size = self.num_envs if batch_size is None else int(batch_size)
        if not 1 <= self.batch_size <= self.num_envs:
            raise InvalidArgumentError(
                f"batch_size must be between 1 and num_envs ({self.num_envs}), got {batch_size}"
            )
        engine = make_engine(
            self.game,
            self.num_envs,
            backend=backend,
            rom=rom,
            initial_state=initial_state,
            num_threads=num_threads,
            draw=render_mode is not None,
        )
        self._batch = EnvBatch(
            self.game, engine, "next_step" if mode == AutoresetMode.NEXT_STEP else "disabled"
        )
        self.metadata = {
            **self.metadata,
            "autoreset_mode": mode,
            "render_fps": 60 / self.game.frame_skip,
        }
        self.single_observation_space, self.single_action_space = env_spaces(
            self.game, engine.observation_shape
        )
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, self.num_envs
        )
        self.action_space = gymnasium.vector.utils.batch_space(
            self.single_action_space, self.num_envs
        )
        self._episode_stats = episode_stats
        self._copy = copy
        self._obs_shape = (self.num_envs, *engine.observation_shape)
        self._async = _AsyncStepper(self)

    # ---- synchronous API --------------------------------------------------------------

    @property
    def engine(self) -> Engine:
        """The emulators (an ``EmurustEngine`` holds the :class:`emurust.VecGameBoy` as
        ``.vec``)."""
        return self._batch.engine

    def _gather(
        self, ids: npt.NDArray[np.intp] | None = None, screen: npt.NDArray[np.uint8] | None = None
    ) -> Obs:
        """The observations of ``ids`` (copies), or of all envs when None (copies, unless
        ``copy=False``; ``screen``: already copied there)."""
        engine = self._batch.engine
        k = len(self.game.obs_addresses)
        if ids is not None:  # send/recv: gathered rows, always fresh
            screen, ram = engine.obs[ids], engine.ram[ids, :k]
        elif self._copy:
            screen = engine.obs.copy() if screen is None else screen
            ram = engine.ram[:, :k].copy()
        else:
            screen, ram = engine.obs, engine.ram[:, :k]
        return compose_obs(self.game, screen, ram)

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        """Resets every env (or, with ``options={"reset_mask": mask}``, the envs of the mask)
        and returns all observations. ``seed`` (an int) seeds env ``i`` with ``seed + i``; a
        list gives each (reset) env its own."""
        self._check_open("reset")
        self._async.require_idle("reset")
        batch = self._batch
        ids = batch.all_ids
        if options and "reset_mask" in options:
            mask = np.asarray(options["reset_mask"])
            if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
                raise InvalidArgumentError(
                    f"reset_mask must be a bool array of shape ({self.num_envs},), got "
                    f"{mask.dtype} {mask.shape}"
                )
            ids = np.flatnonzero(mask)
        batch.seed(seed, ids)
        batch.reset(ids)
        if len(ids) == self.num_envs:
            self._async.reset_done()
        return self._gather(), {}

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[Obs, npt.NDArray[np.float32], Bools, Bools, dict[str, Any]]:
        self._check_open("step")
        self._async.require_idle("step")
        batch = self._batch
        out = np.empty(self._obs_shape, np.uint8) if self._copy else None
        rewards, terminated, truncated, info = batch.step(actions, batch.all_ids, out)
        if not self._episode_stats:
            info = {}
        return self._gather(screen=out), rewards, terminated, truncated, info

    def render(self) -> npt.NDArray[np.uint8] | None:  # type: ignore[override]
        """Every env's last frame, (num_envs, 144, 160, 3) RGB."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() needs render_mode='rgb_array' (set at construction)")
            return None
        engine = self._batch.engine
        return np.stack([convert_shades(engine.frame(i), "rgb") for i in range(self.num_envs)])

    def close_extras(self, **kwargs: Any) -> None:
        self._async.stop()
        self._batch.engine.close()

    def _check_open(self, what: str) -> None:
        if self.closed:
            raise ClosedEnvironmentError(f"{what}() on a GameBoyVectorEnv that was closed")

    # ---- EnvPool-style asynchronous API ------------------------------------------------

    def async_reset(self, seed: int | None = None) -> None:
        """Resets every env; each then counts as finished, so :meth:`recv` returns them."""
        self._check_open("async_reset")
        self._async.require_idle("async_reset")
        self._batch.seed(seed, self._batch.all_ids)
        self._batch.reset(self._batch.all_ids)
        self._async.publish_reset()

    def send(self, actions: npt.ArrayLike, env_ids: npt.ArrayLike | None = None) -> None:
        """Start stepping ``env_ids`` (default: all) with ``actions`` (one each) on the Rust
        threads and return at once. Envs already in flight or with results not yet
        received cannot be sent."""
        self._check_open("send")
        self._async.send(actions, env_ids)

    def recv(
        self,
    ) -> tuple[Obs, npt.NDArray[np.float32], Bools, Bools, dict[str, Any], npt.NDArray[np.intp]]:
        """Wait for ``batch_size`` envs to finish and return their observations, rewards,
        terminations, truncations, infos (with ``info["env_id"]``) and ids. Arrays are
        fresh (the caller keeps them)."""
        self._check_open("recv")
        return self._async.recv()


class _Channel:
    """What the stepping thread shares with its env: the lock, the queue of sent jobs and
    the flags. It holds no reference to the env, so an env dropped without ``close()`` is
    freed and its thread ends (the stepper's finalizer stops it)."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.jobs: deque[tuple[npt.NDArray[np.int64], npt.NDArray[np.intp]]] = deque()
        self.stopping = False
        self.running = False  # the thread is stepping jobs[0] (outside the lock)
        self.thread: threading.Thread | None = None

    def stop(self) -> None:
        with self.cond:
            self.stopping = True
            self.cond.notify_all()


def _serve(chan: _Channel, stepper_ref: weakref.ref[_AsyncStepper]) -> None:
    """The stepping thread: runs the jobs of ``chan`` one after another until told to stop
    or until its stepper (the env) is gone. It holds the stepper only while a job runs."""
    while True:
        with chan.cond:
            while not chan.jobs and not chan.stopping:
                chan.cond.wait()
            if chan.stopping:
                return
            acts, ids = chan.jobs[0]
            chan.running = True
        stepper = stepper_ref()
        if stepper is None:
            return
        stepper._run_job(acts, ids)
        del stepper  # the last reference, if the env was dropped meanwhile


# Steppers whose thread may be running, for the fork handlers below.
_STEPPERS: weakref.WeakSet[_AsyncStepper] = weakref.WeakSet()


def _before_fork() -> None:
    # Wait until no job is being stepped, and hold each lock through the fork, so that the
    # child gets every env at a step boundary and every lock free.
    for stepper in list(_STEPPERS):
        stepper.chan_hold_for_fork()


def _after_fork_in_parent() -> None:
    for stepper in list(_STEPPERS):
        stepper.chan_release_after_fork()


def _after_fork_in_child() -> None:
    # The stepping thread does not exist in the child: a new one starts on demand.
    for stepper in list(_STEPPERS):
        stepper.chan_renew_in_child()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(
        before=_before_fork,
        after_in_parent=_after_fork_in_parent,
        after_in_child=_after_fork_in_child,
    )


class _AsyncStepper:
    """A worker thread that steps queued jobs (``send``) one after another, each on the Rust
    threads with the GIL released, and a queue of finished envs that ``recv`` takes from.

    The thread holds the stepper only through a weak reference (and the env not at all), so
    an env dropped without ``close()`` is freed and its thread ends. It is started on the
    first ``send``, and again in a forked child. An exception raised while stepping (by a
    spec's reward function, say) is raised, once, by the env's next call, with its
    traceback; the envs then need a reset."""

    def __init__(self, env: GameBoyVectorEnv) -> None:
        self.env = weakref.proxy(env)  # the env owns the stepper, not the reverse
        self.batch = env._batch
        n = env.num_envs
        self.chan = _Channel()
        self.ready: deque[npt.NDArray[np.intp]] = deque()
        self.n_ready = 0
        self.busy = np.zeros(n, dtype=bool)  # in flight or finished, not yet received
        self.rewards = np.zeros(n, dtype=np.float32)
        self.terminated = np.zeros(n, dtype=bool)
        self.truncated = np.zeros(n, dtype=bool)
        self.ep_r = np.zeros(n)
        self.ep_l = np.zeros(n, dtype=np.int64)
        self.ep_t = np.zeros(n)
        self.ep_done = np.zeros(n, dtype=bool)
        self.error: BaseException | None = None  # raised by the next call, then cleared
        self.failed: str | None = None  # what failed, until the next reset
        self._fork_held = False
        weakref.finalize(self, self.chan.stop)

    # ---- the env's side ---------------------------------------------------------------

    def check(self, what: str) -> None:
        """Raise the worker's pending exception (once), or refuse ``what`` while the envs
        need a reset after one. Called with the lock held."""
        error = self.error
        if error is not None:
            self.error = None
            self.failed = f"{type(error).__name__}: {error}"
            self.busy[:] = False
            self.ready.clear()
            self.n_ready = 0
            self.chan.jobs.clear()
            if sys.version_info >= (3, 11):
                error.add_note(
                    "(raised in GameBoyVectorEnv's stepping thread, while stepping envs sent "
                    "with send(); call reset() or async_reset() before stepping again)"
                )
            raise error
        if self.failed is not None and what not in ("reset", "async_reset"):
            raise InvalidArgumentError(
                f"{what}() after stepping failed in the stepping thread ({self.failed}); "
                "call reset() or async_reset() first"
            )

    def require_idle(self, what: str) -> None:
        with self.chan.cond:
            self.check(what)
            if self.busy.any():
                raise InvalidArgumentError(
                    f"{what}() while envs sent with send() have not all been received with "
                    f"recv(): {int(self.busy.sum())} envs are pending"
                )

    def reset_done(self) -> None:
        """A reset of every env (or of some, with no envs pending) succeeded."""
        with self.chan.cond:
            self.failed = None

    def publish_reset(self) -> None:
        with self.chan.cond:
            self.failed = None
            self.rewards[:] = 0
            self.terminated[:] = False
            self.truncated[:] = False
            self.ep_done[:] = False
            self.busy[:] = True
            self.ready.clear()
            ids = self.batch.all_ids
            self.ready.append(ids)
            self.n_ready = len(ids)

    def send(self, actions: npt.ArrayLike, env_ids: npt.ArrayLike | None) -> None:
        batch = self.batch
        chan = self.chan
        with chan.cond:
            self.check("send")
        ids = batch.check_ids(env_ids)
        acts = batch.check_actions(actions, len(ids))
        with chan.cond:
            self.check("send")
            if self.busy[ids].any():
                raise InvalidArgumentError(
                    "send() of envs that are in flight or whose results were not received: "
                    f"{ids[self.busy[ids]].tolist()} (recv() them first; after reset(), "
                    "use async_reset() and recv())"
                )
            self.busy[ids] = True
            chan.jobs.append((acts, ids))
            self._start_thread()
            chan.cond.notify_all()

    def _start_thread(self) -> None:
        """Start the stepping thread if there is none (first send, forked child). Called
        with the lock held."""
        chan = self.chan
        if chan.thread is None:
            chan.thread = threading.Thread(
                target=_serve, args=(chan, weakref.ref(self)), name="emurust-send", daemon=True
            )
            _STEPPERS.add(self)
            chan.thread.start()

    def _run_job(self, acts: npt.NDArray[np.int64], ids: npt.NDArray[np.intp]) -> None:
        """Step one job (in the stepping thread) and file its results."""
        chan = self.chan
        try:
            rewards, terminated, truncated, info = self.batch.step(acts, ids)
        except BaseException as e:  # raised by the env's next call
            with chan.cond:
                self.error = e
                chan.jobs.clear()
                chan.running = False
                chan.cond.notify_all()
            return
        with chan.cond:
            chan.jobs.popleft()
            chan.running = False
            self.rewards[ids] = rewards
            self.terminated[ids] = terminated
            self.truncated[ids] = truncated
            done = terminated | truncated
            self.ep_done[ids] = done
            if info:
                self.ep_r[ids] = info["episode"]["r"]
                self.ep_l[ids] = info["episode"]["l"]
                self.ep_t[ids] = info["episode"]["t"]
            self.ready.append(ids)
            self.n_ready += len(ids)
            chan.cond.notify_all()

    def recv(
        self,
    ) -> tuple[Obs, npt.NDArray[np.float32], Bools, Bools, dict[str, Any], npt.NDArray[np.intp]]:
        env = self.env
        k = env.batch_size
        chan = self.chan
        with chan.cond:
            self.check("recv")
            if not self.busy.any():
                raise InvalidArgumentError("recv() with nothing sent: call async_reset() or send()")
            if chan.jobs:
                self._start_thread()
            while (
                self.n_ready < min(k, int(self.busy.sum()))
                and self.error is None
                and not chan.stopping
            ):
                chan.cond.wait()
            if chan.stopping:
                raise ClosedEnvironmentError("recv() on a GameBoyVectorEnv that was closed")
            self.check("recv")
            k = min(k, self.n_ready)
            taken: list[npt.NDArray[np.intp]] = []
            need = k
            while need:
                head = self.ready[0]
                if len(head) <= need:
                    taken.append(self.ready.popleft())
                    need -= len(head)
                else:
                    taken.append(head[:need])
                    self.ready[0] = head[need:]
                    need = 0
            ids = np.concatenate(taken)
            self.n_ready -= k
            obs = env._gather(ids)
            rewards = self.rewards[ids]
            terminated = self.terminated[ids]
            truncated = self.truncated[ids]
            done = self.ep_done[ids]
            info: dict[str, Any] = {"env_id": ids}
            if env._episode_stats and done.any():
                info["episode"] = {
                    "r": np.where(done, self.ep_r[ids], 0.0),
                    "l": np.where(done, self.ep_l[ids], 0),
                    "t": np.where(done, self.ep_t[ids], 0.0),
                }
                info["_episode"] = done
            self.busy[ids] = False
        return obs, rewards, terminated, truncated, info, ids

    def stop(self) -> None:
        """Stop the thread after the job it is stepping (pending jobs are dropped)."""
        chan = self.chan
        chan.stop()
        thread = chan.thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        chan.thread = None
        _STEPPERS.discard(self)

    # ---- fork ---------------------------------------------------------------------------

    def chan_hold_for_fork(self) -> None:
        chan = self.chan
        chan.cond.acquire()
        if chan.thread is not threading.current_thread():
            while chan.running:
                chan.cond.wait()
        self._fork_held = True

    def chan_release_after_fork(self) -> None:
        if self._fork_held:
            self._fork_held = False
            self.chan.cond.release()

    def chan_renew_in_child(self) -> None:
        # Only the forking thread exists here: fresh lock, no thread (the queued jobs, all
        # at a step boundary, are stepped by a new thread started on demand).
        self._fork_held = False
        chan = self.chan
        chan.cond = threading.Condition()
        chan.thread = None
        chan.running = False


def register_gymnasium(spec: GameSpec) -> None:
    """Register ``spec`` as ``emurust/<name>-v0``: ``gymnasium.make`` builds a
    :class:`GameBoyEnv`, ``gymnasium.make_vec`` a :class:`GameBoyVectorEnv` (its
    ``vector_entry_point``, the default vectorization mode)."""
    gymnasium.register(
        id=spec.id,
        entry_point=GameBoyEnv,
        vector_entry_point=GameBoyVectorEnv,
        kwargs={"game": spec.name},
    )
