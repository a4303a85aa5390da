"""Gymnasium environments: :class:`GameBoyEnv` (one game) and :class:`GameBoyVectorEnv` (a
native vector env on :class:`emurust.VecGameBoy`, with EnvPool-style ``send``/``recv``)."""

from __future__ import annotations

import os
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
from emurust.envs._batch import EnvBatch, reset_ids
from emurust.envs._engine import Bools, Engine, Obs, compose_obs, convert_shades, make_engine
from emurust.envs._stepper import AsyncStepper
from emurust.games import GameSpec, get

__all__ = ["GameBoyEnv", "GameBoyVectorEnv", "register_gymnasium"]

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
        self._async = AsyncStepper(self._batch)

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
        ids = reset_ids(options, batch.all_ids, self.num_envs)
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
        return self._async.recv(self.batch_size, self._gather, self._episode_stats)


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
