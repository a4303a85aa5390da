"""The environment logic every front end shares: rewards, episode ends, autoreset, seeds and
episode statistics over a batch of envs, vectorized (NumPy over all the envs of a call).

:class:`EnvBatch` steps any subset of its envs (``env_ids``), which is what the Gymnasium
vector env, its ``send``/``recv`` and the PufferLib env are built from. Episode ends are
handled in one of three ways (Gymnasium's names):

- ``"next_step"``: an env whose episode ended is reset at its next step, which ignores its
  action and returns its first observation with reward 0 and both flags False;
- ``"same_step"``: it is reset at once, in the step that ended the episode, which returns the
  first observation of the next episode (PufferLib's native envs do this);
- ``"disabled"``: the caller resets envs (:meth:`EnvBatch.reset` with ``env_ids``).

Seeds: env ``i`` reset with seed ``s`` gets the episode seeds of ``s + i`` (Gymnasium's vector
convention), one per episode, each a hash of (seed, episode number): the same whatever the
order envs are stepped in, so stepping in batches (``send``/``recv``) gives the same episodes
as stepping all envs together.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from emurust._core import InvalidArgumentError
from emurust.envs._engine import Bools, Bytes, Engine
from emurust.games._spec import GameSpec, GameSpecError, RamState, TerminatedFn

__all__ = ["AUTORESET_MODES", "EnvBatch", "Step", "check_actions", "check_ids"]

AUTORESET_MODES = ("next_step", "same_step", "disabled")

Ids = npt.NDArray[np.intp]
Step = tuple[npt.NDArray[Any], npt.NDArray[np.float32], Bools, Bools, dict[str, Any]]

_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xBF58476D1CE4E5B9)
_M3 = np.uint64(0x94D049BB133111EB)


def _splitmix(x: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """SplitMix64's output function, vectorized (uint64 arithmetic wraps)."""
    with np.errstate(over="ignore"):
        z = x + _M1
        z = (z ^ (z >> np.uint64(30))) * _M2
        z = (z ^ (z >> np.uint64(27))) * _M3
        return np.asarray(z ^ (z >> np.uint64(31)), dtype=np.uint64)


def episode_seeds(
    base: npt.NDArray[np.uint64], episode: npt.NDArray[np.int64]
) -> npt.NDArray[np.uint64]:
    """The seed of episode ``episode`` of envs seeded with ``base`` (vectorized)."""
    return _splitmix(base ^ _splitmix(episode.astype(np.uint64)))


def check_actions(
    actions: npt.ArrayLike, k: int, num_actions: int, game: str
) -> npt.NDArray[np.int64]:
    """``actions`` as an int array of shape (k,), each an action index below
    ``num_actions``; else a TypeError or InvalidArgumentError naming the problem."""
    a = np.asarray(actions)
    if a.shape == () and k == 1:
        a = a.reshape(1)
    if a.dtype.kind not in "iu":
        if a.dtype.kind == "f" and np.all(np.mod(a, 1) == 0):
            a = a.astype(np.int64)
        else:
            raise TypeError(f"actions must be integers (action indices), got dtype {a.dtype}")
    if a.shape != (k,):
        raise InvalidArgumentError(f"expected {k} actions (one per env), got shape {a.shape}")
    # One comparison: negative values become huge as unsigned.
    if k and (a.astype(np.uint64, copy=False) >= num_actions).any():
        bad = np.flatnonzero((a < 0) | (a >= num_actions))
        raise InvalidArgumentError(
            f"action {a[bad[0]]} (position {bad[0]}) is outside the action space: "
            f"{game} has {num_actions} actions (0..{num_actions - 1})"
        )
    return a


def check_ids(env_ids: npt.ArrayLike, num_envs: int) -> Ids:
    """``env_ids`` as a 1-D index array of distinct envs below ``num_envs``; else an
    InvalidArgumentError naming the problem."""
    ids = np.asarray(env_ids)
    if ids.ndim != 1 or not np.issubdtype(ids.dtype, np.integer):
        raise InvalidArgumentError(f"env_ids must be a 1-D integer array, got {ids!r}")
    if ids.size and (ids.min() < 0 or ids.max() >= num_envs):
        raise InvalidArgumentError(
            f"env_ids must be between 0 and {num_envs - 1}, got {ids.tolist()}"
        )
    ids = ids.astype(np.intp, copy=False)
    if np.count_nonzero(np.bincount(ids, minlength=num_envs)) != ids.size:
        raise InvalidArgumentError(f"env_ids must not repeat an env: {ids.tolist()}")
    return ids


def reset_ids(options: dict[str, Any] | None, all_ids: Ids, num_envs: int) -> Ids:
    """The envs a vector env's ``reset(options=...)`` resets: those of
    ``options["reset_mask"]`` (a bool array of shape ``(num_envs,)``), else ``all_ids``;
    InvalidArgumentError for another mask."""
    if not options or "reset_mask" not in options:
        return all_ids
    mask = np.asarray(options["reset_mask"])
    if mask.shape != (num_envs,) or mask.dtype != np.bool_:
        raise InvalidArgumentError(
            f"reset_mask must be a bool array of shape ({num_envs},), got {mask.dtype} {mask.shape}"
        )
    return np.flatnonzero(mask)


class EnvBatch:
    """``num_envs`` envs of ``spec`` on ``engine`` (see the module documentation)."""

    def __init__(self, spec: GameSpec, engine: Engine, autoreset: str = "next_step") -> None:
        if autoreset not in AUTORESET_MODES:
            raise InvalidArgumentError(
                f"autoreset must be one of {AUTORESET_MODES}, not {autoreset!r}"
            )
        self.spec = spec
        self.engine = engine
        self.autoreset = autoreset
        n = self.num_envs = engine.num_envs
        self.num_actions = len(spec.actions)
        self.needs_reset = np.zeros(n, dtype=bool)
        self.episode_return = np.zeros(n, dtype=np.float64)
        self.episode_length = np.zeros(n, dtype=np.int64)
        self.episode_start = np.zeros(n, dtype=np.float64)
        self.episode_index = np.zeros(n, dtype=np.int64)
        self.seed_base = self._entropy_seeds(n)
        self._actions = np.zeros(n, dtype=np.uint8)
        self._mask = np.zeros(n, dtype=bool)
        #: Every env's id, 0..n-1: passing this very array is the batch's fast path for
        #: "every env" (no index arrays on the way).
        self.all_ids = np.arange(n)
        self.max_steps = spec.max_episode_steps
        self.novelty = spec.novelty
        if self.novelty is not None:
            self._seen = np.zeros((n, 1 << (self.novelty.bits - 3)), dtype=np.uint8)
        self._columns = spec.field_columns
        self._prev_raw = engine.ram.copy()  # the gathered bytes after each env's last step
        # The decoded state of _prev_raw as the last whole-batch step left it (its fields
        # decoded then are reused as the next step's "before"); None once rows changed.
        self._prev_state: RamState | None = None
        self._check_functions()

    # ---- fields, rewards and checks -------------------------------------------------

    @staticmethod
    def _entropy_seeds(n: int) -> npt.NDArray[np.uint64]:
        base = np.random.SeedSequence().generate_state(1, np.uint64)[0]
        return np.asarray(base + np.arange(n, dtype=np.uint64), dtype=np.uint64)

    def _state(self, raw: Bytes) -> RamState:
        return RamState(raw=raw, columns=self._columns)

    @property
    def prev(self) -> RamState:
        """Every env's fields as its last step (or reset) left them."""
        return self._state(self._prev_raw)

    def _check_functions(self) -> None:
        """Call the reward and termination functions once on the start state, so a spec
        that returns the wrong shape or dtype fails before anything is stepped."""
        state = self._state(self._prev_raw[:1])
        self._reward(state, state)
        self._flags(self.spec.terminated, "terminated", state)
        self._flags(self.spec.truncated, "truncated", state)

    def _reward(self, before: RamState, after: RamState, k: int = 1) -> npt.NDArray[np.float32]:
        """The spec's rewards, checked: one finite float32 per env. NaN, infinities and
        values beyond float32's range (about 3.4e38) raise :class:`GameSpecError`."""
        out = np.asarray(self.spec.reward(before, after))
        if out.shape != (k,) or out.dtype.kind not in "biuf":  # bool, int, uint, float
            raise GameSpecError(
                f"{self.spec.name}'s reward function must return one real number per env: "
                f"shape ({k},), got shape {out.shape} and dtype {out.dtype}"
            )
        if out.dtype.kind != "f":  # bools and 64-bit ints are all within float32's range
            return out.astype(np.float32)
        with np.errstate(over="ignore"):  # too large for float32: inf, refused below
            rewards = out.astype(np.float32, copy=False)
        if not np.isfinite(rewards).all():
            bad = int(np.flatnonzero(~np.isfinite(rewards))[0])
            raise GameSpecError(
                f"{self.spec.name}'s reward function returned {out[bad].item()!r} (position "
                f"{bad} of the batch): rewards must be finite float32 numbers (NaN, infinities "
                f"and magnitudes beyond {float(np.finfo(np.float32).max):.3g} are refused)"
            )
        return rewards

    def _flags(self, fn: TerminatedFn | None, what: str, after: RamState, k: int = 1) -> Bools:
        """``fn(after)`` (the spec's terminated or truncated), checked: bool, shape (k,)."""
        if fn is None:
            return np.zeros(k, dtype=bool)
        out = np.asarray(fn(after))
        if out.shape != (k,) or out.dtype != np.bool_:
            raise GameSpecError(
                f"{self.spec.name}'s {what} function must return a bool array of shape "
                f"({k},), got shape {out.shape} and dtype {out.dtype} (compare, e.g. `== 1`)"
            )
        return out

    def _novelty(self, ids: Ids, after: RamState) -> npt.NDArray[np.float32]:
        assert self.novelty is not None
        key = np.zeros(len(ids), dtype=np.uint64)
        for name in self.novelty.fields:
            key = key * np.uint64(0x100000001B3) ^ after[name].astype(np.uint64)
        h = (_splitmix(key) >> np.uint64(64 - self.novelty.bits)).astype(np.int64)
        byte, bit = h >> 3, (h & 7).astype(np.uint8)
        rows = self._seen[ids, byte]
        new = (rows >> bit) & 1 == 0
        self._seen[ids, byte] = rows | (np.uint8(1) << bit)
        return np.asarray(np.where(new, self.novelty.bonus, 0.0), dtype=np.float32)

    # ---- actions ------------------------------------------------------------------------

    def check_actions(self, actions: npt.ArrayLike, k: int) -> npt.NDArray[np.int64]:
        """``actions`` as an int array of shape (k,), each a valid action index; else a
        TypeError or InvalidArgumentError naming the problem (nothing is stepped)."""
        return check_actions(actions, k, self.num_actions, self.spec.name)

    def check_ids(self, env_ids: npt.ArrayLike | None) -> Ids:
        """``env_ids`` as an index array (all envs when None), checked."""
        return self.all_ids if env_ids is None else check_ids(env_ids, self.num_envs)

    # ---- reset and step -----------------------------------------------------------------

    def seed(self, seed: int | Sequence[int] | None, ids: Ids) -> None:
        """Envs ``ids`` take their episode seeds from ``seed + i`` (an int: env ``i`` of the
        batch), or each from its own entry of ``seed`` (a sequence, one per env of ``ids``),
        from their next reset on. ``None`` changes nothing."""
        if seed is None:
            return
        if isinstance(seed, (int, np.integer)):
            seeds = [int(seed)]
        elif isinstance(seed, Sequence) and len(seed) == len(ids):
            seeds = list(seed)
        else:
            raise InvalidArgumentError(
                f"seed must be an int or a sequence of {len(ids)} ints, got {seed!r}"
            )
        for s in seeds:
            if not isinstance(s, (int, np.integer)) or isinstance(s, bool) or s < 0:
                raise InvalidArgumentError(f"seeds must be non-negative ints, got {s!r}")
        if len(seeds) == 1 and isinstance(seed, (int, np.integer)):
            with np.errstate(over="ignore"):
                base = np.uint64(seeds[0] & (2**64 - 1)) + ids.astype(np.uint64)
        else:
            base = np.array([s & (2**64 - 1) for s in seeds], dtype=np.uint64)
        self.seed_base[ids] = base
        self.episode_index[ids] = 0

    def reset(self, ids: Ids) -> None:
        """Put the envs ``ids`` in the start state of a new episode (their next seed)."""
        mask = self._mask
        mask[:] = False
        mask[ids] = True
        self.engine.reset_envs(mask)
        name = self.spec.seed_field
        if name is not None:
            field = self.spec.fields[name]
            values = np.zeros(self.num_envs, dtype=np.uint64)
            span = np.uint64((1 << (8 * field.size)) - 1)  # 1 .. 2**bits - 1: never 0
            values[ids] = episode_seeds(self.seed_base[ids], self.episode_index[ids]) % span + 1
            self.engine.set_memory(field.address, field.encode(values), mask)
        self.episode_index[ids] += 1
        self._prev_raw[ids] = self.engine.ram[ids]
        self._prev_state = None
        self.episode_return[ids] = 0.0
        self.episode_length[ids] = 0
        self.episode_start[ids] = time.perf_counter()
        self.needs_reset[ids] = False
        if self.novelty is not None:
            self._seen[ids] = 0

    def step(
        self, actions: npt.ArrayLike, ids: Ids, obs_out: Bytes | None = None
    ) -> tuple[npt.NDArray[np.float32], Bools, Bools, dict[str, Any]]:
        """Step the envs ``ids`` with ``actions`` (one each). Returns rewards, terminated,
        truncated and the episode statistics of the envs whose episode ended. Observations
        are then in ``engine.obs[ids]``, and all of them in ``obs_out`` if given."""
        k = len(ids)
        acts = self.check_actions(actions, k)
        everyone = ids is self.all_ids  # the synchronous case: no index arrays on the way
        resetting = None
        if self.autoreset == "next_step":
            pending = self.needs_reset if everyone else self.needs_reset[ids]
            if pending.any():
                resetting = pending.copy()
                self.reset(ids[resetting])
        if resetting is None and everyone:
            return self._step_all(acts, obs_out)
        rewards = np.zeros(k, dtype=np.float32)
        terminated = np.zeros(k, dtype=bool)
        truncated = np.zeros(k, dtype=bool)
        stepping = np.ones(k, dtype=bool) if resetting is None else ~resetting
        step_ids = ids[stepping]
        mask = self._mask
        mask[:] = False
        mask[step_ids] = True
        self._actions[step_ids] = acts[stepping]
        self.engine.step(self._actions, mask, obs_out)
        before = self._state(self._prev_raw[step_ids])
        after_raw = self.engine.ram[step_ids]
        self._prev_raw[step_ids] = after_raw
        self._prev_state = None
        after = self._state(after_raw)
        r, term, lengths = self._outcome(before, after, step_ids)
        self.episode_return[step_ids] += r
        self.episode_length[step_ids] = lengths
        rewards[stepping], terminated[stepping] = r, term
        truncated[stepping] = self._truncated(after, lengths)
        return self._finish(ids, rewards, terminated, truncated)

    def _step_all(
        self, acts: npt.NDArray[np.integer[Any]], obs_out: Bytes | None
    ) -> tuple[npt.NDArray[np.float32], Bools, Bools, dict[str, Any]]:
        """:meth:`step` of every env with none to reset: whole arrays, no index arrays."""
        self._actions[:] = acts
        self.engine.step(self._actions, None, obs_out)
        before = self._prev_state or self._state(self._prev_raw)
        self._prev_raw = self.engine.ram.copy()
        after = self._prev_state = self._state(self._prev_raw)
        rewards, terminated, lengths = self._outcome(before, after, self.all_ids)
        self.episode_return += rewards
        self.episode_length = lengths
        truncated = self._truncated(after, lengths)
        return self._finish(self.all_ids, rewards, terminated, truncated)

    def _truncated(self, after: RamState, lengths: npt.NDArray[np.int64]) -> Bools:
        """The step limit, and the spec's truncated function if it has one."""
        k = len(lengths)
        out = self._flags(self.spec.truncated, "truncated", after, k)
        if self.max_steps is not None:
            out = out | (lengths >= self.max_steps)
        return out

    def _outcome(
        self, before: RamState, after: RamState, ids: Ids
    ) -> tuple[npt.NDArray[np.float32], Bools, npt.NDArray[np.int64]]:
        """Rewards, terminations and new episode lengths of the envs ``ids`` that stepped."""
        k = len(ids)
        r = self._reward(before, after, k)
        if self.novelty is not None:
            r = r + self._novelty(ids, after)
        term = self._flags(self.spec.terminated, "terminated", after, k)
        return r, term, self.episode_length[ids] + 1

    def _finish(
        self, ids: Ids, rewards: npt.NDArray[np.float32], terminated: Bools, truncated: Bools
    ) -> tuple[npt.NDArray[np.float32], Bools, Bools, dict[str, Any]]:
        """Episode statistics and autoreset bookkeeping of the envs that ended."""
        done = terminated | truncated
        if not done.any():
            return rewards, terminated, truncated, {}
        info = self._episode_info(ids, done)
        if self.autoreset != "disabled":
            ended = ids[done]
            if self.autoreset == "same_step":
                self.reset(ended)
            else:
                self.needs_reset[ended] = True
        return rewards, terminated, truncated, info

    def _episode_info(self, ids: Ids, done: Bools) -> dict[str, Any]:
        """RecordEpisodeStatistics' infos for the envs that ended (``episode`` with ``r``,
        ``l``, ``t`` and its ``_episode`` mask)."""
        now = time.perf_counter()
        r = np.where(done, self.episode_return[ids], 0.0)
        l_ = np.where(done, self.episode_length[ids], 0)
        t = np.where(done, np.round(now - self.episode_start[ids], 6), 0.0)
        return {"episode": {"r": r, "l": l_, "t": t}, "_episode": done.copy()}
