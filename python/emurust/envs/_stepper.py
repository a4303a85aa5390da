"""The ``send``/``recv`` worker of :class:`emurust.GameBoyVectorEnv`: a thread that steps the
envs sent, one job after another, on an :class:`~emurust.envs._batch.EnvBatch` (the Rust
threads with the GIL released), and the queue of finished envs that ``recv`` takes from.
Fork-safe, and freed with its env (see docs/envs.md, "Asynchronous stepping")."""

from __future__ import annotations

import os
import sys
import threading
import weakref
from collections import deque
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium.error import ClosedEnvironmentError

from emurust._core import InvalidArgumentError
from emurust.envs._batch import EnvBatch
from emurust.envs._engine import Bools, Obs

__all__ = ["AsyncStepper"]

Ids = npt.NDArray[np.intp]


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


def _serve(chan: _Channel, stepper_ref: weakref.ref[AsyncStepper]) -> None:
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
_STEPPERS: weakref.WeakSet[AsyncStepper] = weakref.WeakSet()


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


class AsyncStepper:
    """A worker thread that steps queued jobs (``send``) one after another, each on the Rust
    threads with the GIL released, and a queue of finished envs that ``recv`` takes from.

    The thread holds the stepper only through a weak reference (and the env not at all), so
    an env dropped without ``close()`` is freed and its thread ends. It is started on the
    first ``send``, and again in a forked child. An exception raised while stepping (by a
    spec's reward function, say) is raised, once, by the env's next call, with its
    traceback; the envs then need a reset."""

    def __init__(self, batch: EnvBatch) -> None:
        self.batch = batch
        n = batch.num_envs
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
        self, batch_size: int, gather: Callable[[Ids], Obs], episode_stats: bool
    ) -> tuple[Obs, npt.NDArray[np.float32], Bools, Bools, dict[str, Any], Ids]:
        """The first ``batch_size`` envs to finish: their observations (``gather(ids)``,
        called with the lock held, before the envs can be sent again), rewards, ends, infos
        (episode statistics if ``episode_stats``) and ids."""
        k = batch_size
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
            obs = gather(ids)
            rewards = self.rewards[ids]
            terminated = self.terminated[ids]
            truncated = self.truncated[ids]
            done = self.ep_done[ids]
            info: dict[str, Any] = {"env_id": ids}
            if episode_stats and done.any():
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
