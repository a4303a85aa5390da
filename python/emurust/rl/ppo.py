"""PPO, CleanRL style, on :class:`emurust.GameBoyVectorEnv` (torch).

One file of training logic in the manner of CleanRL's ``ppo_atari_envpool.py``: a clipped
surrogate objective, generalized advantage estimation, an annealed learning rate, minibatches
over several epochs, value and entropy terms, gradient clipping. :func:`train` reads top to
bottom as one loop: collect a rollout (:class:`Rollout`), compute advantages, run the epochs
(:func:`ppo_update`), log. The differences from CleanRL:

- Rollouts use ``send``/``recv`` on two half batches (or one batch per Ray actor), so that
  the Rust threads emulate one batch while the policy runs on the other.
- Episode ends follow Gymnasium's ``NEXT_STEP`` autoreset: the step after an episode ended
  only resets its env. Its transition is kept out of the losses, a termination cuts the
  return, and a truncation bootstraps from the value of the episode's final observation.
- Two small networks, for CPUs: ``policy="pixel"`` (:class:`PixelAgent`: one 8x8 stride-8
  convolution over the 72x80 screen, computed as one matrix product over the screen's 8x8
  patches, and a hidden layer, plus a small layer for the spec's RAM observations when it
  has them) and ``policy="ram"`` (:class:`RamAgent`: an MLP over the spec's RAM-only
  observation, ``obs="ram"``: no screen is drawn or copied).
- Threads per phase: the policy acts on one torch thread beside the emulator threads, the
  update on ``torch_threads``; both sized from the CPUs the process may use
  (:func:`emurust.available_cpus`: affinity and cgroup quota).
- ``update_lag=1`` (the pixel policy's default on a CPU): the update of rollout k runs on a
  thread of its own while rollout k+1 is collected by a copy of the policy one update
  behind (the weights of update k-1), so that the learner, which sets the pace on a CPU,
  has a core of its own instead of waiting for the rollout, and the rollout for it. The
  stored log-probabilities are the collecting policy's, so PPO's ratio and clipping are
  taken against the policy that acted, as always. ``update_lag=0`` is CleanRL's schedule.
- ``update_shards=2`` (the pixel policy's default on a CPU): each minibatch's gradient as the
  sum of its two fixed halves', the second on a replica of the network and a thread of its
  own (:class:`Shard`), so that the update uses two cores without OpenMP's threads, with the
  same results on one thread or two.
- The wall time is split into phases (envs, inference, copies, update, other), printed at
  the end of :func:`emurust.rl.cli.train_main` and written to ``summary.json``.

:func:`train` writes, under ``out``: ``progress.csv`` and TensorBoard events with CleanRL's
metric names (``charts/episodic_return``, ``charts/SPS``, ``losses/...``), checkpoints, the
final ``agent.pt`` and ``summary.json``.
"""

from __future__ import annotations

import copy
import csv
import dataclasses
import json
import math
import sys
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Union

import numpy as np
import numpy.typing as npt
import torch
from torch import nn
from torch.distributions import Categorical

from emurust._core import available_cpus
from emurust.envs import GameBoyVectorEnv
from emurust.envs.vector import make_vector
from emurust.games import GameSpec, get
from emurust.rl.config import POLICIES, PPOConfig, auto_num_envs, thread_plan

__all__ = [
    "POLICIES",
    "Agent",
    "PPOConfig",
    "PhaseTimes",
    "PixelAgent",
    "RamAgent",
    "Rollout",
    "Shard",
    "TrainResult",
    "auto_num_envs",
    "evaluate",
    "gae",
    "load_agent",
    "policy_spec",
    "ppo_update",
    "thread_plan",
    "train",
]

# ---- the networks -------------------------------------------------------------------------


def _layer(layer: nn.Module, std: float = math.sqrt(2), bias: float = 0.0) -> nn.Module:
    """CleanRL's orthogonal initialization."""
    assert isinstance(layer, (nn.Linear, nn.Conv2d))
    nn.init.orthogonal_(layer.weight, std)
    assert layer.bias is not None
    nn.init.constant_(layer.bias, bias)
    return layer


class _ActorCritic(nn.Module):
    """What both agents share: the heads, sampling, and the checkpoint format. A subclass
    defines :meth:`prepare` (an observation batch as the network's input, done once per
    transition: its result is what the rollout stores) and :meth:`features`."""

    kind = ""
    actor: nn.Module
    critic: nn.Module

    def prepare(self, screen: torch.Tensor | None) -> torch.Tensor | None:
        return screen

    def features(self, screen: torch.Tensor | None, ram: torch.Tensor | None) -> torch.Tensor:
        raise NotImplementedError

    def value(self, screen: torch.Tensor | None, ram: torch.Tensor | None) -> torch.Tensor:
        """The value of prepared observations."""
        out: torch.Tensor = self.critic(self.features(screen, ram)).squeeze(-1)
        return out

    def act(
        self,
        screen: torch.Tensor | None,
        ram: torch.Tensor | None,
        action: torch.Tensor | None = None,
        greedy: bool = False,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """(action, log-probability, entropy, value) for prepared observations; samples an
        action unless given (``greedy``: the most likely one)."""
        h = self.features(screen, ram)
        # No argument validation: the logits come from a linear layer, and each check is an
        # `if tensor.all()` that makes the host wait for the GPU (twice per call, with the
        # sample's check in log_prob).
        dist = Categorical(logits=self.actor(h), validate_args=False)
        if action is None:
            action = dist.probs.argmax(-1) if greedy else dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(h).squeeze(-1)

    def sample(
        self, screen: torch.Tensor | None, ram: torch.Tensor | None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(action, log-probability, value) for prepared observations, an action sampled:
        what the rollout needs of :meth:`act`, without the distribution object and the
        entropy (the same arithmetic and random draws as ``act``'s sampling)."""
        h = self.features(screen, ram)
        logits = self.actor(h)
        logp = logits - logits.logsumexp(-1, keepdim=True)
        action = torch.multinomial(logp.softmax(-1), 1, True).squeeze(-1)
        return action, logp.gather(-1, action.unsqueeze(-1)).squeeze(-1), self.critic(h).squeeze(-1)

    def observe(
        self, screen: torch.Tensor | None, ram: torch.Tensor | None, greedy: bool = False
    ) -> torch.Tensor:
        """Actions for raw observations (screens as the env gives them), without gradients."""
        with torch.no_grad():
            action, _, _, _ = self.act(self.prepare(screen), ram, greedy=greedy)
        return action

    def learn_from(self, ram: torch.Tensor | None) -> None:
        """Called after each update with the rollout's RAM observations (no-op here)."""

    def _meta(self) -> dict[str, Any]:
        raise NotImplementedError

    def checkpoint(self, **extra: Any) -> dict[str, Any]:
        return {"policy": self.kind, **self._meta(), "state_dict": self.state_dict(), **extra}


class PixelAgent(_ActorCritic):
    """Actor-critic for a screen of shape ``screen_shape`` ((H, W) or (stack, H, W), uint8)
    and ``ram_size`` RAM bytes (0: none), with ``num_actions`` discrete actions: an 8x8
    stride-8 convolution (``channels``), a hidden layer (``hidden``), the heads.

    The convolution's windows do not overlap, so it is one matrix product over the screen's
    8x8 patches: :meth:`prepare` rearranges a screen's bytes into patches once (what the
    rollout stores), and :meth:`features` multiplies them by the convolution's weights. It
    computes what ``nn.Conv2d`` would, from the same parameters (checkpoints are
    interchangeable), in about half the time on a CPU (no uint8 to float pass over the whole
    screen per minibatch, no im2col, no convolution backward for an input that needs no
    gradient).
    """

    kind = "pixel"

    def __init__(
        self,
        screen_shape: tuple[int, ...],
        ram_size: int,
        num_actions: int,
        channels: int = 16,
        hidden: int = 128,
    ) -> None:
        super().__init__()
        self.screen_shape = tuple(screen_shape)
        self.ram_size = ram_size
        self.num_actions = num_actions
        self.sizes = (channels, hidden)
        self.stack = screen_shape[0] if len(screen_shape) == 3 else 1
        h, w = screen_shape[-2:]
        self.grid = (h // 8, w // 8)
        self.conv = nn.Sequential(
            _layer(nn.Conv2d(self.stack, channels, 8, stride=8)), nn.ReLU(), nn.Flatten()
        )
        features = channels * self.grid[0] * self.grid[1]
        self.ram = nn.Sequential(_layer(nn.Linear(ram_size, 64)), nn.ReLU()) if ram_size else None
        self.body = nn.Sequential(
            _layer(nn.Linear(features + (64 if ram_size else 0), hidden)), nn.ReLU()
        )
        self.actor = _layer(nn.Linear(hidden, num_actions), std=0.01)
        self.critic = _layer(nn.Linear(hidden, 1), std=1.0)

    def prepare(self, screen: torch.Tensor | None) -> torch.Tensor:
        """Screens (n, [stack,] H, W) uint8 as (n, patches, stack * 64) uint8: each patch's
        rows of 8 bytes moved as one 64-bit word (8 times fewer elements to move)."""
        assert screen is not None
        n = screen.shape[0]
        gh, gw = self.grid
        x = screen.reshape(n, self.stack, *screen.shape[-2:])[..., : gh * 8, : gw * 8]
        words = x.contiguous().view(torch.int64)  # (n, stack, 8 * gh, gw): 8 pixels a word
        words = words.reshape(n, self.stack, gh, 8, gw).permute(0, 2, 4, 1, 3)
        return words.contiguous().view(torch.uint8).reshape(n, gh * gw, self.stack * 64)

    def features(self, screen: torch.Tensor | None, ram: torch.Tensor | None) -> torch.Tensor:
        assert screen is not None
        n, patches, _ = screen.shape
        conv = self.conv[0]
        assert isinstance(conv, nn.Conv2d)
        assert conv.bias is not None
        channels = conv.out_channels
        # conv(x / 255) = (W . x) / 255 + b: the scale goes on the small output.
        h = torch.relu(
            torch.addmm(
                conv.bias,
                screen.reshape(n * patches, -1).float(),
                conv.weight.reshape(channels, -1).t(),
                alpha=1 / 255,
            )
        ).reshape(n, patches * channels)
        # The features come position by position; nn.Flatten gives them channel by channel:
        # permute whichever is smaller, the features (small batches: the rollout's steps) or
        # the first hidden layer's columns (the update's minibatches).
        body = self.body[0]
        assert isinstance(body, nn.Linear)
        w = body.weight
        if n * patches * channels < w.shape[0] * patches * channels:
            h = h.reshape(n, patches, channels).transpose(1, 2).reshape(n, -1)
            out = h @ w[:, : patches * channels].t()
        else:
            conv_w = w[:, : patches * channels].reshape(-1, channels, patches).transpose(1, 2)
            out = h @ conv_w.reshape(w.shape[0], -1).t()
        if self.ram is not None and ram is not None:
            out = out + self.ram(ram.float() / 255.0) @ w[:, patches * channels :].t()
        return torch.relu(out + body.bias)

    def conv_features(self, screen: torch.Tensor, ram: torch.Tensor | None) -> torch.Tensor:
        """:meth:`features` the plain way, with ``nn.Conv2d`` on raw screens: the reference
        the patch form is tested against."""
        x = screen.float() / 255.0
        if x.dim() == 3:
            x = x.unsqueeze(1)
        h = self.conv(x)
        if self.ram is not None and ram is not None:
            h = torch.cat([h, self.ram(ram.float() / 255.0)], dim=1)
        out: torch.Tensor = self.body(h)
        return out

    def _meta(self) -> dict[str, Any]:
        return {
            "screen_shape": self.screen_shape,
            "ram_size": self.ram_size,
            "num_actions": self.num_actions,
            "sizes": self.sizes,
        }


#: The pixel network under its earlier name.
Agent = PixelAgent


class RamAgent(_ActorCritic):
    """Actor-critic over ``ram_size`` RAM bytes (a spec's ``obs="ram"`` observation): two
    hidden layers of ``hidden`` units. Each byte is standardized by a running mean and
    variance of the bytes seen in training (CleanRL's observation normalization, kept in the
    checkpoint): a byte that holds an object type (0, 1, 2) and one that holds a pixel
    position (0-160) start on the same scale. The statistics change only after an update, so
    a rollout and the epochs over it see the same inputs."""

    kind = "ram"
    mean: torch.Tensor
    var: torch.Tensor
    count: torch.Tensor

    def __init__(self, ram_size: int, num_actions: int, hidden: int = 128) -> None:
        super().__init__()
        if ram_size < 1:
            raise ValueError("a RAM policy needs RAM observations (the spec's ram_obs_fields)")
        self.ram_size = ram_size
        self.num_actions = num_actions
        self.hidden = hidden
        self.body = nn.Sequential(
            _layer(nn.Linear(ram_size, hidden)),
            nn.Tanh(),
            _layer(nn.Linear(hidden, hidden)),
            nn.Tanh(),
        )
        self.actor = _layer(nn.Linear(hidden, num_actions), std=0.01)
        self.critic = _layer(nn.Linear(hidden, 1), std=1.0)
        self.register_buffer("mean", torch.zeros(ram_size))
        self.register_buffer("var", torch.ones(ram_size))
        self.register_buffer("count", torch.zeros(()))

    def features(self, screen: torch.Tensor | None, ram: torch.Tensor | None) -> torch.Tensor:
        assert ram is not None
        # The variance has a floor of one byte step: a byte seen constant so far does not
        # blow up the first time it changes.
        x = (ram.float() - self.mean) * torch.rsqrt(self.var + 1.0)
        out: torch.Tensor = self.body(x.clamp(-5.0, 5.0))
        return out

    def learn_from(self, ram: torch.Tensor | None) -> None:
        """Merge the batch's byte statistics into the running ones (Chan et al.)."""
        assert ram is not None
        x = ram.reshape(-1, self.ram_size).float()
        n = float(x.shape[0])
        if n == 0:
            return
        mean, var = x.mean(0), x.var(0, unbiased=False)
        total = self.count + n
        delta = mean - self.mean
        self.var.copy_(
            (self.var * self.count + var * n + delta**2 * self.count * n / total) / total
        )
        self.mean.add_(delta * n / total)
        self.count.copy_(total)

    def _meta(self) -> dict[str, Any]:
        return {"ram_size": self.ram_size, "num_actions": self.num_actions, "hidden": self.hidden}


AnyAgent = Union[PixelAgent, RamAgent]


def policy_spec(spec: GameSpec, policy: str) -> GameSpec:
    """The spec a ``policy`` plays: the game's own for ``pixel``, its RAM-only form
    (``obs="ram"``: no screen drawn) for ``ram``."""
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
    if policy == "ram":
        if not (spec.ram_obs_fields or spec.obs_fields):
            raise ValueError(
                f"{spec.name}'s spec names no RAM fields for a RAM policy: give it "
                "ram_obs_fields (docs/envs.md)"
            )
        return spec.replace(obs="ram", frame_stack=1) if spec.obs != "ram" else spec
    return spec


def make_agent(policy: str, spec: GameSpec, observation_space: Any) -> AnyAgent:
    """A fresh agent of ``policy`` for the envs of ``spec`` (their observation space)."""
    ram_size = len(spec.obs_addresses)
    if policy == "ram":
        return RamAgent(ram_size, len(spec.actions))
    screen = observation_space["screen"] if spec.obs_fields else observation_space
    assert screen.shape is not None
    return PixelAgent(tuple(screen.shape), ram_size, len(spec.actions))


def load_agent(path: str | Path, device: str = "cpu") -> tuple[AnyAgent, dict[str, Any]]:
    """An agent saved by :func:`train` (``agent.pt`` or a checkpoint) and its metadata
    (``policy``: ``"pixel"`` for checkpoints that predate the RAM policy)."""
    data = torch.load(path, map_location=device, weights_only=False)
    data.setdefault("policy", "pixel")
    agent: AnyAgent
    if data["policy"] == "ram":
        agent = RamAgent(data["ram_size"], data["num_actions"], data["hidden"])
    else:
        agent = PixelAgent(
            tuple(data["screen_shape"]), data["ram_size"], data["num_actions"], *data["sizes"]
        )
    agent.load_state_dict(data["state_dict"])
    agent.to(device).eval()
    return agent, data


def split_obs(obs: Any, spec: GameSpec) -> tuple[Any, Any]:
    """(screen, RAM) of an observation batch; either may be None."""
    if spec.obs == "ram":
        return None, obs
    if isinstance(obs, dict):
        return obs["screen"], obs["ram"]
    return obs, None


# ---- where the time goes -------------------------------------------------------------------

PHASES = ("env", "inference", "copies", "update", "other")


class PhaseTimes:
    """Wall time per phase of training: ``env`` (waiting for the emulators in ``recv`` and
    handing them work in ``send``), ``inference`` (the policy acting), ``copies``
    (observations and results into the rollout, uploads), ``update`` (advantages and the
    epochs), ``other`` (the rest: logs, checkpoints, the progress bar)."""

    def __init__(self) -> None:
        self.seconds = dict.fromkeys(PHASES, 0.0)
        self.start = time.perf_counter()

    @contextmanager
    def __call__(self, phase: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[phase] += time.perf_counter() - t0

    def shares(self) -> dict[str, float]:
        """Each phase's share of the wall time since the start (``other``: the rest)."""
        total = time.perf_counter() - self.start
        known = {k: v for k, v in self.seconds.items() if k != "other"}
        out = {k: v / total for k, v in known.items()}
        out["other"] = max(0.0, 1.0 - sum(out.values()))
        return out

    def table(self) -> str:
        """One line: each phase's share of the wall time."""
        return ", ".join(f"{k} {100 * v:.0f}%" for k, v in self.shares().items())


# ---- the rollout ---------------------------------------------------------------------------


class Batch(NamedTuple):
    """One rollout's transitions for the update, the autoreset steps left out."""

    screens: torch.Tensor | None
    rams: torch.Tensor | None
    actions: torch.Tensor
    logprobs: torch.Tensor
    advantages: torch.Tensor
    returns: torch.Tensor
    values: torch.Tensor


class Rollout:
    """Collects ``num_steps`` transitions of every env of ``envs`` (a ``send``/``recv`` vector
    env) with ``agent``, into preallocated tensors on ``device``.

    The envs are stepped in batches (two halves, or one per Ray actor): each ``recv``
    returns the envs of one earlier ``send``, so a batch's envs move in step. While the
    emulator threads step one batch the policy acts on another. Per env, ``t`` is its
    position in the rollout and ``ended`` whether its last result ended an episode: its next
    transition is then the ``NEXT_STEP`` autoreset step, stored but marked invalid.
    """

    def __init__(
        self,
        envs: Any,
        spec: GameSpec,
        agent: AnyAgent,
        num_steps: int,
        device: torch.device,
        times: PhaseTimes,
    ) -> None:
        self.envs, self.spec, self.agent = envs, spec, agent
        self.steps = num_steps
        self.device = device
        self.times = times
        n = self.n = envs.num_envs
        self.groups = n // envs.batch_size
        space = envs.single_observation_space
        screen_space = space["screen"] if spec.obs_fields else space
        self.has_screen = spec.obs != "ram"
        self.ram_size = len(spec.obs_addresses)
        shape = (num_steps, n)
        if self.has_screen:
            assert screen_space.shape is not None
            probe = agent.prepare(torch.zeros((1, *screen_space.shape), dtype=torch.uint8))
            assert probe is not None
            self.screens: torch.Tensor | None = torch.zeros(
                (*shape, *probe.shape[1:]), dtype=torch.uint8, device=device
            )
        else:
            self.screens = None
        self.rams = (
            torch.zeros((*shape, self.ram_size), dtype=torch.uint8, device=device)
            if self.ram_size
            else None
        )
        self.actions = torch.zeros(shape, dtype=torch.long, device=device)
        self.logprobs = torch.zeros(shape, device=device)
        self.values = torch.zeros((num_steps + 1, n), device=device)
        self.rewards = torch.zeros(shape, device=device)
        self.terms = torch.zeros(shape, device=device)
        self.truncs = torch.zeros(shape, device=device)
        self.valid = torch.zeros(shape, dtype=torch.bool, device=device)
        self.t = np.zeros(n, dtype=np.int64)
        self.ended = np.zeros(n, dtype=bool)
        # The observation each env acts on first in the next rollout (as received).
        self.carry: dict[int, tuple[Any, Any]] = {}
        self.batches: list[npt.NDArray[np.intp]] = []
        self.returns: deque[float] = deque(maxlen=100)
        self.lengths: deque[float] = deque(maxlen=100)
        self.episodes = 0
        self.global_step = 0
        # On a GPU, uploads go through page-locked host memory without blocking. A staging
        # buffer is reused only after the actions computed from it were read back (a sync).
        self.pinned = device.type == "cuda"
        self._staging: dict[tuple[int, str], torch.Tensor] = {}

    def _upload(self, array: Any, key: tuple[int, str]) -> torch.Tensor | None:
        if array is None:
            return None
        if not self.pinned:
            return torch.as_tensor(array, device=self.device)
        host = torch.from_numpy(np.ascontiguousarray(array))
        stage = self._staging.get(key)
        if stage is None or stage.shape != host.shape:
            stage = self._staging[key] = torch.empty_like(host).pin_memory()
        stage.copy_(host)
        return stage.to(self.device, non_blocking=True)

    def _columns(self, ids: npt.NDArray[np.intp]) -> slice | torch.Tensor:
        """The rollout's columns of a batch's envs: a slice when they are consecutive (the
        usual case: the vector envs hand out fixed batches of consecutive envs), so results
        go in with plain slice assignments; else an index tensor."""
        lo = int(ids[0])
        if int(ids[-1]) - lo == len(ids) - 1 and bool((np.diff(ids) == 1).all()):
            return slice(lo, lo + len(ids))
        return torch.as_tensor(ids, device=self.device)

    def start(self, seed: int) -> None:
        """Reset every env and take the first observation of each batch."""
        with self.times("env"):
            self.envs.async_reset(seed=seed)
        for _ in range(self.groups):
            screen, ram, ids = self._receive()
            self.carry[int(ids[0])] = (screen, ram)
            self.batches.append(ids)

    def _receive(self) -> tuple[Any, Any, npt.NDArray[np.intp]]:
        """The next batch; files the results of its envs' last transitions."""
        with self.times("env"):
            obs, rew, term, trunc, info, ids = self.envs.recv()
        with self.times("copies"):
            done_at = int(self.t[ids[0]]) - 1  # a batch's envs move in step
            if done_at >= 0:
                # One upload of reward, termination and truncation rather than three.
                got = np.stack([rew, term, trunc]).astype(np.float32)
                results = torch.as_tensor(got, device=self.device)
                cols = self._columns(ids)
                self.rewards[done_at, cols] = results[0]
                self.terms[done_at, cols] = results[1]
                self.truncs[done_at, cols] = results[2]
            self.ended[ids] = term | trunc
            if "episode" in info:
                done = info["_episode"]
                self.returns.extend(float(r) for r in info["episode"]["r"][done])
                self.lengths.extend(float(x) for x in info["episode"]["l"][done])
                self.episodes += int(done.sum())
        screen, ram = split_obs(obs, self.spec)
        return screen, ram, ids

    def _act_and_send(self, screen: Any, ram: Any, ids: npt.NDArray[np.intp]) -> None:
        key = int(ids[0])
        with self.times("copies"):
            s = self.agent.prepare(self._upload(screen, (key, "screen")))
            r = self._upload(ram, (key, "ram"))
        with self.times("inference"), torch.no_grad():
            action, logprob, value = self.agent.sample(s, r)
            chosen = action.cpu().numpy()  # waits for the device
        with self.times("copies"):
            at = int(self.t[ids[0]])  # a batch's envs move in step
            cols = self._columns(ids)
            if self.screens is not None and s is not None:
                self.screens[at, cols] = s
            if self.rams is not None and r is not None:
                self.rams[at, cols] = r
            self.actions[at, cols] = action
            self.logprobs[at, cols] = logprob
            self.values[at, cols] = value
            self.valid[at, cols] = torch.as_tensor(~self.ended[ids], device=self.device)
        with self.times("env"):
            self.envs.send(chosen, ids)
        self.t[ids] += 1
        self.global_step += len(ids)

    def collect(self) -> None:
        """One rollout: every env makes ``num_steps`` transitions; the value of what follows
        each env's last one goes in ``values[num_steps]``."""
        self.t[:] = 0
        for ids in self.batches:
            self._act_and_send(*self.carry.pop(int(ids[0])), ids)
        for _ in range(self.groups * self.steps):
            screen, ram, ids = self._receive()
            if self.t[ids[0]] < self.steps:
                self._act_and_send(screen, ram, ids)
                continue
            # This batch is done: the value of what comes next, and carry it over.
            key = int(ids[0])
            with self.times("copies"):
                s = self.agent.prepare(self._upload(screen, (key, "screen")))
                r = self._upload(ram, (key, "ram"))
                cols = self._columns(ids)
            with self.times("inference"), torch.no_grad():
                self.values[self.steps, cols] = self.agent.value(s, r)
            self.carry[key] = (screen, ram)

    def batch(self, gamma: float, gae_lambda: float) -> Batch:
        """The rollout's valid transitions, flattened, with advantages and returns."""
        advantages = gae(self.rewards, self.values, self.terms, self.truncs, gamma, gae_lambda)
        keep = self.valid.reshape(-1)  # not the autoreset steps
        flat = self.steps * self.n

        def rows(x: torch.Tensor | None) -> torch.Tensor | None:
            return None if x is None else x.reshape(flat, *x.shape[2:])[keep]

        values = self.values[:-1]
        return Batch(
            screens=rows(self.screens),
            rams=rows(self.rams),
            actions=self.actions.reshape(-1)[keep],
            logprobs=self.logprobs.reshape(-1)[keep],
            advantages=advantages.reshape(-1)[keep],
            returns=(advantages + values).reshape(-1)[keep],
            values=values.reshape(-1)[keep],
        )


# ---- training ------------------------------------------------------------------------------


@dataclass
class TrainResult:
    out: Path
    global_step: int
    seconds: float
    env_seconds: float
    episodes: int
    #: Time the PPO epochs took (minibatch gradient steps), on whichever thread ran them.
    update_seconds: float
    final_mean_return: float
    sps: float
    #: Each phase's share of the wall time (:class:`PhaseTimes`).
    shares: dict[str, float] = field(default_factory=dict)
    #: Threads used: emulator (None: VecGameBoy's default), rollout and update torch threads.
    threads: dict[str, int | None] = field(default_factory=dict)
    #: The schedule (:attr:`PPOConfig.update_lag`): 1, each rollout by the policy one
    #: update behind the learner.
    update_lag: int = 0
    #: Whether the updates ran on a thread of their own beside the rollouts (then
    #: ``shares["update"]`` is the time training waited for them, ``update_seconds`` their
    #: own length).
    update_on_thread: bool = False


class _Logger:
    """CSV rows and TensorBoard scalars under CleanRL's names."""

    FIELDS = (
        "global_step",
        "seconds",
        "charts/episodic_return",
        "charts/episodic_length",
        "charts/SPS",
        "charts/learning_rate",
        "losses/value_loss",
        "losses/policy_loss",
        "losses/entropy",
        "losses/old_approx_kl",
        "losses/approx_kl",
        "losses/clipfrac",
        "losses/explained_variance",
    )

    def __init__(self, out: Path, config: PPOConfig) -> None:
        self.csv_file = open(out / "progress.csv", "w", newline="")  # noqa: SIM115
        self.csv = csv.DictWriter(self.csv_file, fieldnames=self.FIELDS)
        self.csv.writeheader()
        self.tb: Any = None
        try:
            from torch.utils.tensorboard import SummaryWriter
        except ImportError:  # tensorboard is optional: the CSV has everything
            return
        self.tb = SummaryWriter(str(out / "tensorboard"))
        params = "\n".join(f"|{k}|{v}|" for k, v in dataclasses.asdict(config).items())
        self.tb.add_text("hyperparameters", f"|param|value|\n|-|-|\n{params}")

    def log(self, step: int, row: dict[str, float]) -> None:
        self.csv.writerow({"global_step": step, **row})
        self.csv_file.flush()
        if self.tb is not None:
            for k, v in row.items():
                if k != "seconds" and not math.isnan(v):
                    self.tb.add_scalar(k, v, step)

    def close(self) -> None:
        self.csv_file.close()
        if self.tb is not None:
            self.tb.close()


def _progress_bar(total: int, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm

    # In a log file (no terminal) a line every 10 s rather than one per update.
    interval = 0.5 if sys.stderr.isatty() else 10.0
    return tqdm(total=total, unit="step", unit_scale=True, mininterval=interval)


class _Learner:
    """Runs :func:`ppo_update` on one rollout's batch: in the caller's thread, or with
    ``on_thread`` on a thread of its own, so that the caller collects the next rollout
    meanwhile (one torch thread each: torch's thread count is one setting per process).
    Either way the results are the same: the update draws no torch random numbers, the
    rollout no numpy ones, and each computes on one torch thread. ``seconds`` is the time
    the updates took, wherever they ran."""

    def __init__(
        self,
        agent: AnyAgent,
        optimizer: torch.optim.Optimizer,
        config: PPOConfig,
        rng: np.random.Generator,
        threads: int,
        on_thread: bool,
    ) -> None:
        self.agent, self.optimizer, self.config, self.rng = agent, optimizer, config, rng
        self.threads = threads
        self.seconds = 0.0
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="ppo-update") if on_thread else None
        self.job: Future[dict[str, float]] | None = None
        self.stats: dict[str, float] = {}
        self.shard: Shard | None = None
        if config.update_shards == 2:
            two = available_cpus() >= 2
            pool = ThreadPoolExecutor(1, thread_name_prefix="ppo-shard") if two else None
            self.shard = Shard(copy.deepcopy(agent), pool)

    def _update(self, batch: Batch, lr_frac: float) -> dict[str, float]:
        t0 = time.perf_counter()
        assert self.config.learning_rate is not None
        if self.config.anneal_lr:
            self.optimizer.param_groups[0]["lr"] = lr_frac * self.config.learning_rate
        # On a thread of its own, the whole run is on one torch thread (train sets it):
        # torch's thread count is one setting per process, not to be changed under the
        # rollout's feet.
        with _torch_threads(self.threads) if self.pool is None else nullcontext():
            stats = ppo_update(self.agent, self.optimizer, batch, self.config, self.rng, self.shard)
            self.agent.learn_from(batch.rams)
        self.seconds += time.perf_counter() - t0
        return stats

    def start(self, batch: Batch, lr_frac: float) -> None:
        """Start the update on ``batch`` (``lr_frac``: the annealed fraction of the rate)."""
        if self.pool is None:
            self.stats = self._update(batch, lr_frac)
        else:
            self.job = self.pool.submit(self._update, batch, lr_frac)

    def finish(self) -> dict[str, float]:
        """Wait for the update started last; its ``losses/...`` metrics."""
        if self.job is not None:
            job, self.job = self.job, None
            self.stats = job.result()
        return self.stats

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
        if self.shard is not None and self.shard.pool is not None:
            self.shard.pool.shutdown(wait=True, cancel_futures=True)


def train(config: PPOConfig, out: str | Path, *, progress: bool = True) -> TrainResult:
    """Train a PPO agent on ``config.game``; write logs, checkpoints, ``agent.pt`` and
    ``summary.json`` under ``out``."""
    config = config.resolved()
    assert config.num_steps is not None
    assert config.learning_rate is not None
    out = Path(out)
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    if config.batch_size % config.num_minibatches:
        raise ValueError("num_envs * num_steps must be a multiple of num_minibatches")
    spec = policy_spec(get(config.game), config.policy)
    device = torch.device(config.device)
    threads = thread_plan(config)
    torch.manual_seed(config.seed)
    rng = np.random.default_rng(config.seed)
    envs = make_vector(
        spec,
        config._envs,
        backend=config.backend,
        vectorization=config.vectorization,
        num_threads=threads.emulator,
        ray_address=config.ray_address,
        ray_actors=config.ray_actors,
    )
    agent = make_agent(config.policy, spec, envs.single_observation_space).to(device)
    # On a GPU the fused Adam is one kernel per step instead of several per parameter: the
    # model is small, so the learner is bound by kernel launches, not arithmetic. On a CPU
    # the foreach form does each step's arithmetic in a few calls instead of per parameter.
    optimizer = torch.optim.Adam(
        agent.parameters(),
        lr=config.learning_rate,
        eps=1e-5,
        fused=True if device.type == "cuda" else None,
        foreach=True if device.type == "cpu" else None,
    )
    times = PhaseTimes()
    # With update_lag=1 the rollouts are collected by a copy of the agent that follows the
    # learner one update behind, while the learner trains on a thread of its own. On one
    # CPU the same schedule runs in turn (the same results; switching threads there cost
    # 6% of the pixel policy's speed).
    lagged = bool(config.update_lag)
    behaviour = copy.deepcopy(agent) if lagged else agent
    rollout = Rollout(envs, spec, behaviour, config.num_steps, device, times)
    logger = _Logger(out, config)
    bar = _progress_bar(config.num_iterations * config.batch_size, progress)
    checkpoint_every = max(1, config.num_iterations // max(1, config.checkpoints))
    on_thread = lagged and available_cpus() >= 2
    learner = _Learner(agent, optimizer, config, rng, threads.update, on_thread)
    stack = ExitStack()
    try:
        if lagged:  # one torch thread in each of the two threads, for the whole run
            stack.enter_context(_torch_threads(threads.rollout))
        rollout.start(config.seed)
        with _torch_threads(threads.rollout):
            rollout.collect()
        for iteration in range(1, config.num_iterations + 1):
            with times("update"):
                batch = rollout.batch(config.gamma, config.gae_lambda)
            global_step = rollout.global_step
            with times("update") if not on_thread else nullcontext():
                learner.start(batch, 1.0 - (iteration - 1.0) / config.num_iterations)
            if lagged and iteration < config.num_iterations:
                # The next rollout, by the policy from before this update, beside it.
                rollout.collect()
            with times("update"):
                stats = learner.finish()
            if lagged:
                behaviour.load_state_dict(agent.state_dict())
            elif iteration < config.num_iterations:
                with _torch_threads(threads.rollout):
                    rollout.collect()
            elapsed = time.perf_counter() - times.start
            returns = rollout.returns
            row = {
                "seconds": elapsed,
                "charts/episodic_return": float(np.mean(returns)) if returns else math.nan,
                "charts/episodic_length": (
                    float(np.mean(rollout.lengths)) if rollout.lengths else math.nan
                ),
                "charts/SPS": rollout.global_step / elapsed,
                "charts/learning_rate": optimizer.param_groups[0]["lr"],
                **stats,
            }
            logger.log(global_step, row)
            if bar is not None:
                bar.update(config.batch_size)
                bar.set_postfix(
                    SPS=f"{row['charts/SPS']:.0f}",
                    ret=f"{row['charts/episodic_return']:.1f}",
                    refresh=False,
                )
            if iteration % checkpoint_every == 0 or iteration == config.num_iterations:
                torch.save(
                    agent.checkpoint(game=spec.name, global_step=global_step),
                    out / "checkpoints" / f"step_{global_step:09d}.pt",
                )
    finally:
        learner.close()
        stack.close()
        if bar is not None:
            bar.close()
        envs.close()
        logger.close()
    seconds = time.perf_counter() - times.start
    torch.save(agent.checkpoint(game=spec.name, global_step=rollout.global_step), out / "agent.pt")
    result = TrainResult(
        out=out,
        global_step=rollout.global_step,
        seconds=seconds,
        env_seconds=times.seconds["env"],
        episodes=rollout.episodes,
        update_seconds=learner.seconds,
        final_mean_return=float(np.mean(rollout.returns)) if rollout.returns else math.nan,
        sps=rollout.global_step / seconds,
        shares=times.shares(),
        threads=threads._asdict(),
        update_lag=int(lagged),
        update_on_thread=on_thread,
    )
    summary = {
        "config": dataclasses.asdict(config),
        "global_step": result.global_step,
        "seconds": round(seconds, 2),
        "env_seconds": round(result.env_seconds, 2),
        "update_seconds": round(result.update_seconds, 2),
        "time_shares": {k: round(v, 4) for k, v in result.shares.items()},
        "update_lag": result.update_lag,
        "update_on_thread": result.update_on_thread,
        "update_shards": config.update_shards,
        "threads": result.threads,
        "available_cpus": available_cpus(),
        "episodes": result.episodes,
        "mean_return_last_100": result.final_mean_return,
        "SPS": round(result.sps, 1),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return result


def gae(
    rewards: torch.Tensor,
    values: torch.Tensor,
    terms: torch.Tensor,
    truncs: torch.Tensor,
    gamma: float,
    lam: float,
) -> torch.Tensor:
    """Generalized advantage estimates of a rollout: ``rewards``, ``terms`` and ``truncs`` are
    (steps, envs), ``values`` (steps + 1, envs), the last row the value of what follows.

    A termination at ``t`` cuts the return; a truncation bootstraps from ``values[t + 1]``,
    the value of the episode's final observation (with ``NEXT_STEP`` autoreset the env's next
    observation is that final one); no advantage flows back across either.
    """
    steps = rewards.shape[0]
    advantages = torch.zeros_like(rewards)
    last = torch.zeros_like(rewards[0])
    for t in reversed(range(steps)):
        done = torch.clamp(terms[t] + truncs[t], max=1.0)
        delta = rewards[t] + gamma * values[t + 1] * (1.0 - terms[t]) - values[t]
        last = delta + gamma * lam * (1.0 - done) * last
        advantages[t] = last
    return advantages


@contextmanager
def _torch_threads(n: int) -> Iterator[None]:
    """torch's thread count set to ``n`` inside the block, the caller's restored after it
    (also when training stops on an exception or Ctrl-C)."""
    before = torch.get_num_threads()
    if n != before:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)


def _minibatch_losses(
    agent: AnyAgent, batch: Batch, idx: torch.Tensor, adv: torch.Tensor, c: float, n: int | None
) -> tuple[torch.Tensor, ...]:
    """PPO's terms over the rows ``idx`` of ``batch`` (``adv``: their normalized
    advantages): (policy loss, value loss, entropy, old approximate KL, approximate KL,
    clipped fraction). ``n`` None: means over the rows; else sums divided by ``n``, the rows
    of the whole minibatch, so that the terms of its shards add up to the minibatch's."""

    def reduce(x: torch.Tensor) -> torch.Tensor:
        return x.mean() if n is None else x.sum() / n

    # index_select, not x[idx]: several times faster on a CPU for rows of bytes.
    screens = None if batch.screens is None else batch.screens.index_select(0, idx)
    rams = None if batch.rams is None else batch.rams.index_select(0, idx)
    _, newlogprob, entropy, newvalue = agent.act(screens, rams, batch.actions[idx])
    logratio = newlogprob - batch.logprobs[idx]
    ratio = logratio.exp()
    with torch.no_grad():
        old_approx_kl = reduce(-logratio)
        approx_kl = reduce((ratio - 1) - logratio)
        clipfrac = reduce(((ratio - 1.0).abs() > c).float())
    pg_loss = reduce(torch.max(-adv * ratio, -adv * torch.clamp(ratio, 1 - c, 1 + c)))
    old, target = batch.values[idx], batch.returns[idx]
    clipped = old + torch.clamp(newvalue - old, -c, c)
    v_loss = 0.5 * reduce(torch.max((newvalue - target) ** 2, (clipped - target) ** 2))
    return pg_loss, v_loss, reduce(entropy), old_approx_kl, approx_kl, clipfrac


class Shard(NamedTuple):
    """The second half of each minibatch in :func:`ppo_update`: a replica of the agent
    (its gradients are added to the agent's) and the executor that runs it (None: in
    turn, on the caller's thread; the same results either way)."""

    replica: AnyAgent
    pool: ThreadPoolExecutor | None


def ppo_update(
    agent: AnyAgent,
    optimizer: torch.optim.Optimizer,
    batch: Batch,
    config: PPOConfig,
    rng: np.random.Generator,
    shard: Shard | None = None,
) -> dict[str, float]:
    """The PPO epochs over one rollout; returns the ``losses/...`` metrics.

    With ``shard``, each minibatch is computed in two fixed halves, the second by
    ``shard.replica`` (on ``shard.pool``'s thread when given: two cores at once), their
    gradients added in a fixed order before the clipping and the optimizer's step: the same
    results on one thread or two."""
    b = len(batch.actions)
    c = config.clip_coef
    device = batch.actions.device
    # Kept on the device and read once at the end: an .item() per minibatch would make the
    # host wait for the GPU 16 times an update.
    clipfracs: list[torch.Tensor] = []
    pg_loss = v_loss = entropy_loss = old_approx_kl = approx_kl = torch.zeros(())
    params: list[torch.Tensor] = list(agent.parameters())
    if shard is not None:
        shard.replica.load_state_dict(agent.state_dict())  # buffers too (RAM statistics)
        shard_params: list[torch.Tensor] = list(shard.replica.parameters())

    def backward(terms: tuple[torch.Tensor, ...]) -> None:
        pg, v, ent = terms[:3]
        (pg - config.ent_coef * ent + config.vf_coef * v).backward()

    def half(idx: torch.Tensor, adv: torch.Tensor, n: int) -> tuple[torch.Tensor, ...]:
        assert shard is not None
        terms = _minibatch_losses(shard.replica, batch, idx, adv, c, n)
        backward(terms)
        return terms

    for _ in range(config.update_epochs):
        # num_minibatches parts of (almost) equal size: the autoreset steps left out make
        # the batch a little smaller than num_envs * num_steps.
        for part in np.array_split(rng.permutation(b), config.num_minibatches):
            idx = torch.as_tensor(part, device=device)
            adv = batch.advantages[idx]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            optimizer.zero_grad()
            if shard is None:
                terms = _minibatch_losses(agent, batch, idx, adv, c, None)
                backward(terms)
            else:
                n, h = len(part), len(part) // 2
                for p in shard_params:
                    p.grad = None
                if shard.pool is not None:
                    second = shard.pool.submit(half, idx[h:], adv[h:], n)
                    first = _minibatch_losses(agent, batch, idx[:h], adv[:h], c, n)
                    backward(first)
                    other = second.result()
                else:
                    first = _minibatch_losses(agent, batch, idx[:h], adv[:h], c, n)
                    backward(first)
                    other = half(idx[h:], adv[h:], n)
                terms = tuple(a + o for a, o in zip(first, other))
                mine = [p.grad for p in params if p.grad is not None]
                theirs = [p.grad for p in shard_params if p.grad is not None]
                assert len(mine) == len(theirs) == len(params)
                torch._foreach_add_(mine, theirs)
            pg_loss, v_loss, entropy_loss, old_approx_kl, approx_kl, clipfrac = terms
            clipfracs.append(clipfrac)
            nn.utils.clip_grad_norm_(params, config.max_grad_norm, foreach=True)
            optimizer.step()
            if shard is not None:
                with torch.no_grad():
                    torch._foreach_copy_(shard_params, params)
        if config.target_kl is not None and approx_kl.item() > config.target_kl:
            break
    targets, old_values = batch.returns, batch.values
    var_y = targets.var().item()
    explained = math.nan if var_y == 0 else 1 - (targets - old_values).var().item() / var_y
    return {
        "losses/value_loss": v_loss.item(),
        "losses/policy_loss": pg_loss.item(),
        "losses/entropy": entropy_loss.item(),
        "losses/old_approx_kl": old_approx_kl.item(),
        "losses/approx_kl": approx_kl.item(),
        "losses/clipfrac": torch.stack(clipfracs).mean().item() if clipfracs else 0.0,
        "losses/explained_variance": explained,
    }


def evaluate(
    agent: AnyAgent | None,
    game: str | GameSpec,
    episodes: int = 100,
    *,
    seed: int = 10_000,
    backend: str = "emurust",
    greedy: bool = False,
    device: str = "cpu",
    num_threads: int | None = None,
    policy: str | None = None,
) -> npt.NDArray[np.float64]:
    """The returns of ``episodes`` episodes, the first of envs seeded ``seed``,
    ``seed + 1``, ...: the same episodes whatever the backend. ``agent=None`` plays uniformly
    random actions (seeded too) on the observations of ``policy`` (default: the agent's
    kind, else ``pixel``; a RAM policy's envs draw no screen)."""
    kind = policy or (agent.kind if agent is not None else "pixel")
    spec = policy_spec(get(game), kind)
    envs = GameBoyVectorEnv(
        spec, episodes, backend=backend, num_threads=num_threads, episode_stats=False
    )
    rng = np.random.default_rng(seed)
    obs, _ = envs.reset(seed=seed)
    totals = np.zeros(episodes)
    finished = np.zeros(episodes, dtype=bool)
    while not finished.all():
        if agent is None:
            action = rng.integers(0, len(spec.actions), episodes)
        else:
            screen, ram = split_obs(obs, spec)
            action = (
                agent.observe(
                    None if screen is None else torch.as_tensor(screen, device=device),
                    None if ram is None else torch.as_tensor(ram, device=device),
                    greedy=greedy,
                )
                .cpu()
                .numpy()
            )
        obs, reward, term, trunc, _ = envs.step(action)
        totals += np.where(finished, 0.0, reward)
        finished |= term | trunc
    envs.close()
    return totals
