"""PPO, CleanRL style, on :class:`emurust.GameBoyVectorEnv` (torch).

One file of training logic in the manner of CleanRL's ``ppo_atari_envpool.py``: a clipped
surrogate objective, generalized advantage estimation, an annealed learning rate, minibatches
over several epochs, value and entropy terms, gradient clipping. The differences:

- Rollouts use ``send``/``recv`` on two half batches (or one batch per Ray actor), so that
  the Rust threads emulate one batch while the policy runs on the other.
- Episode ends follow Gymnasium's ``NEXT_STEP`` autoreset: the step after an episode ended
  only resets its env. Its transition is kept out of the losses, a termination cuts the
  return, and a truncation bootstraps from the value of the episode's final observation.
- The network is small, for CPUs: one strided convolution over the 72x80 screen (8x8 patches)
  and a hidden layer, plus a small layer for the spec's RAM observations when it has them.

:func:`train` writes, under ``out``: ``progress.csv`` and TensorBoard events with CleanRL's
metric names (``charts/episodic_return``, ``charts/SPS``, ``losses/...``), checkpoints, the
final ``agent.pt`` and ``summary.json``.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import sys
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from torch import nn
from torch.distributions import Categorical

from emurust.envs import GameBoyVectorEnv
from emurust.games import GameSpec, get
from emurust.rl.vector import make_vector

__all__ = ["Agent", "PPOConfig", "TrainResult", "evaluate", "gae", "load_agent", "train"]


@dataclass
class PPOConfig:
    """PPO settings (CleanRL's names). The defaults train Starcatch on 2 CPU cores in
    a few minutes."""

    game: str = "Starcatch"
    total_timesteps: int = 1_500_000
    num_envs: int = 64
    num_steps: int = 32
    learning_rate: float = 5e-4
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 4
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    seed: int = 1
    backend: str = "emurust"
    vectorization: str = "native"  # "async": AsyncVectorEnv workers; "ray": Ray actors
    device: str = "cpu"
    num_threads: int | None = None  # emulator threads (with "ray": per actor, default 1)
    ray_address: str | None = None  # with "ray": the cluster to join (None: start one)
    ray_actors: int = 2  # with "ray": actors, num_envs / ray_actors envs each
    torch_threads: int | None = None
    checkpoints: int = 4

    @property
    def batch_size(self) -> int:
        return self.num_envs * self.num_steps

    @property
    def minibatch_size(self) -> int:
        return self.batch_size // self.num_minibatches

    @property
    def num_iterations(self) -> int:
        return max(1, self.total_timesteps // self.batch_size)


def _layer(layer: nn.Module, std: float = math.sqrt(2), bias: float = 0.0) -> nn.Module:
    """CleanRL's orthogonal initialization."""
    assert isinstance(layer, (nn.Linear, nn.Conv2d))
    nn.init.orthogonal_(layer.weight, std)
    assert layer.bias is not None
    nn.init.constant_(layer.bias, bias)
    return layer


class Agent(nn.Module):
    """Actor-critic for a screen of shape ``screen_shape`` ((H, W) or (stack, H, W), uint8)
    and ``ram_size`` RAM bytes (0: none), with ``num_actions`` discrete actions."""

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
        stack = screen_shape[0] if len(screen_shape) == 3 else 1
        h, w = screen_shape[-2:]
        self.conv = nn.Sequential(
            _layer(nn.Conv2d(stack, channels, 8, stride=8)), nn.ReLU(), nn.Flatten()
        )
        features = channels * (h // 8) * (w // 8)
        self.ram = nn.Sequential(_layer(nn.Linear(ram_size, 64)), nn.ReLU()) if ram_size else None
        self.body = nn.Sequential(
            _layer(nn.Linear(features + (64 if ram_size else 0), hidden)), nn.ReLU()
        )
        self.actor = _layer(nn.Linear(hidden, num_actions), std=0.01)
        self.critic = _layer(nn.Linear(hidden, 1), std=1.0)

    def features(self, screen: torch.Tensor, ram: torch.Tensor | None) -> torch.Tensor:
        x = screen.float() / 255.0
        if x.dim() == 3:
            x = x.unsqueeze(1)
        h = self.conv(x)
        if self.ram is not None and ram is not None:
            h = torch.cat([h, self.ram(ram.float() / 255.0)], dim=1)
        out: torch.Tensor = self.body(h)
        return out

    def value(self, screen: torch.Tensor, ram: torch.Tensor | None) -> torch.Tensor:
        out: torch.Tensor = self.critic(self.features(screen, ram)).squeeze(-1)
        return out

    def act(
        self,
        screen: torch.Tensor,
        ram: torch.Tensor | None,
        action: torch.Tensor | None = None,
        greedy: bool = False,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """(action, log-probability, entropy, value); samples an action unless given
        (``greedy``: the most likely one)."""
        h = self.features(screen, ram)
        # No argument validation: the logits come from a linear layer, and each check is an
        # `if tensor.all()` that makes the host wait for the GPU (twice per call, with the
        # sample's check in log_prob).
        dist = Categorical(logits=self.actor(h), validate_args=False)
        if action is None:
            action = dist.probs.argmax(-1) if greedy else dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(h).squeeze(-1)

    def checkpoint(self, **extra: Any) -> dict[str, Any]:
        return {
            "screen_shape": self.screen_shape,
            "ram_size": self.ram_size,
            "num_actions": self.num_actions,
            "sizes": self.sizes,
            "state_dict": self.state_dict(),
            **extra,
        }


def load_agent(path: str | Path, device: str = "cpu") -> tuple[Agent, dict[str, Any]]:
    """An agent saved by :func:`train` (``agent.pt`` or a checkpoint) and its metadata."""
    data = torch.load(path, map_location=device, weights_only=False)
    agent = Agent(
        tuple(data["screen_shape"]), data["ram_size"], data["num_actions"], *data["sizes"]
    )
    agent.load_state_dict(data["state_dict"])
    agent.to(device).eval()
    return agent, data


def _split(obs: Any) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8] | None]:
    if isinstance(obs, dict):
        return obs["screen"], obs["ram"]
    return obs, None


@dataclass
class TrainResult:
    out: Path
    global_step: int
    seconds: float
    env_seconds: float
    episodes: int
    #: Wall time in the PPO epochs (GAE, minibatch gradient steps); the rest of ``seconds``
    #: beyond ``env_seconds`` is policy inference and the rollout buffers.
    update_seconds: float
    final_mean_return: float
    sps: float


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


def train(
    config: PPOConfig,
    out: str | Path,
    *,
    progress: bool = True,
) -> TrainResult:
    """Train a PPO agent on ``config.game``; write logs, checkpoints, ``agent.pt`` and
    ``summary.json`` under ``out``."""
    out = Path(out)
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    spec = get(config.game)
    if config.batch_size % config.num_minibatches:
        raise ValueError("num_envs * num_steps must be a multiple of num_minibatches")
    # The policy runs while the emulator threads step the other half batch: torch's own
    # thread pool beside them oversubscribes the cores, and its threads then wait on each
    # other (measured on 2 busy cores: 125-188 env steps/s against 1,791-2,040 with one
    # thread). So a CPU learner acts on one thread and uses its pool (``torch_threads``,
    # default torch's) only for the update, when no emulator runs.
    device = torch.device(config.device)
    update_threads = config.torch_threads or torch.get_num_threads()
    rollout_threads = 1 if device.type == "cpu" else update_threads
    torch.manual_seed(config.seed)
    rng = np.random.default_rng(config.seed)
    n = config.num_envs
    envs = make_vector(
        spec,
        n,
        backend=config.backend,
        vectorization=config.vectorization,
        num_threads=config.num_threads,
        ray_address=config.ray_address,
        ray_actors=config.ray_actors,
    )
    # The envs are stepped in `groups` batches (two halves, or one per Ray actor): each
    # recv() returns the envs of one earlier send(), so a batch's envs move in step.
    groups = envs.num_envs // envs.batch_size
    ram_size = len(spec.obs_addresses)
    space: Any = envs.single_observation_space
    screen_space = space["screen"] if ram_size else space
    assert screen_space.shape is not None
    screen_shape = tuple(screen_space.shape)
    agent = Agent(screen_shape, ram_size, len(spec.actions)).to(device)
    # On a GPU the fused Adam is one kernel per step instead of several per parameter: the
    # model is small, so the learner is bound by kernel launches, not arithmetic.
    optimizer = torch.optim.Adam(
        agent.parameters(),
        lr=config.learning_rate,
        eps=1e-5,
        fused=True if device.type == "cuda" else None,
    )

    steps, batch = config.num_steps, config.batch_size
    screens = torch.zeros((steps, n, *screen_shape), dtype=torch.uint8, device=device)
    rams = torch.zeros((steps, n, max(ram_size, 1)), dtype=torch.uint8, device=device)
    actions = torch.zeros((steps, n), dtype=torch.long, device=device)
    logprobs = torch.zeros((steps, n), device=device)
    values = torch.zeros((steps + 1, n), device=device)
    rewards = torch.zeros((steps, n), device=device)
    terms = torch.zeros((steps, n), device=device)
    truncs = torch.zeros((steps, n), device=device)
    valid = torch.zeros((steps, n), dtype=torch.bool, device=device)
    # Per env: its position in this rollout, and whether its last result ended an episode
    # (then its next transition is the autoreset step, kept out of the losses).
    t_of = np.zeros(n, dtype=np.int64)
    ended = np.zeros(n, dtype=bool)
    # The observation each env acts on first in the next rollout.
    carry_screen = np.zeros((n, *screen_shape), dtype=np.uint8)
    carry_ram = np.zeros((n, ram_size), dtype=np.uint8)

    returns: deque[float] = deque(maxlen=100)
    lengths: deque[float] = deque(maxlen=100)
    episodes = 0
    logger = _Logger(out, config)
    global_step = 0
    start = time.perf_counter()
    env_seconds = 0.0
    update_seconds = 0.0
    bar: Any = None
    if progress:
        from tqdm import tqdm

        # In a log file (no terminal) a line every 10 s rather than one per update.
        interval = 0.5 if sys.stderr.isatty() else 10.0
        bar = tqdm(
            total=config.num_iterations * batch,
            unit="step",
            unit_scale=True,
            mininterval=interval,
        )
    checkpoint_every = max(1, config.num_iterations // max(1, config.checkpoints))

    def tensors(screen: Any, ram: Any) -> tuple[torch.Tensor, torch.Tensor | None]:
        return (
            torch.as_tensor(screen, device=device),
            torch.as_tensor(ram, device=device) if ram_size else None,
        )

    def receive() -> tuple[Any, Any, npt.NDArray[np.intp]]:
        """The next batch; files the results of its envs' last transitions."""
        nonlocal env_seconds, episodes
        t0 = time.perf_counter()
        obs, rew, term, trunc, info, ids = envs.recv()
        env_seconds += time.perf_counter() - t0
        done_at = t_of[ids] - 1
        had = done_at >= 0
        if had.any():
            # Two uploads (indices, then reward/termination/truncation) rather than five.
            where = torch.as_tensor(np.stack([done_at[had], ids[had]]), device=device)
            got = np.stack([rew[had], term[had], trunc[had]]).astype(np.float32)
            results = torch.as_tensor(got, device=device)
            rewards[where[0], where[1]] = results[0]
            terms[where[0], where[1]] = results[1]
            truncs[where[0], where[1]] = results[2]
        ended[ids] = term | trunc
        if "episode" in info:
            done = info["_episode"]
            returns.extend(float(r) for r in info["episode"]["r"][done])
            lengths.extend(float(x) for x in info["episode"]["l"][done])
            episodes += int(done.sum())
        screen, ram = _split(obs)
        return screen, ram, ids

    def act_and_send(screen: Any, ram: Any, ids: npt.NDArray[np.intp]) -> None:
        nonlocal env_seconds, global_step
        s, r = tensors(screen, ram)
        with torch.no_grad():
            action, logprob, _, value = agent.act(s, r)
        # Rollout rows, env columns and validity in one upload (one copy to a GPU, not three).
        where = torch.as_tensor(np.stack([t_of[ids], ids, ~ended[ids]]), device=device)
        at, cols = where[0], where[1]
        screens[at, cols] = s
        if r is not None:
            rams[at, cols] = r
        actions[at, cols] = action
        logprobs[at, cols] = logprob
        values[at, cols] = value
        valid[at, cols] = where[2].bool()
        t0 = time.perf_counter()
        envs.send(action.cpu().numpy(), ids)
        env_seconds += time.perf_counter() - t0
        t_of[ids] += 1
        global_step += len(ids)

    t0 = time.perf_counter()
    envs.async_reset(seed=config.seed)
    env_seconds += time.perf_counter() - t0
    batches = []
    for _ in range(groups):
        screen, ram, ids = receive()
        carry_screen[ids] = screen
        if ram is not None:
            carry_ram[ids] = ram
        batches.append(ids)
    stats: dict[str, float] = {}

    for iteration in range(1, config.num_iterations + 1):
        if config.anneal_lr:
            frac = 1.0 - (iteration - 1.0) / config.num_iterations
            optimizer.param_groups[0]["lr"] = frac * config.learning_rate
        t_of[:] = 0
        with _torch_threads(rollout_threads):
            # Each env makes `steps` transitions; while the Rust threads (or actors) step one
            # batch, the policy runs on another.
            for ids in batches:
                act_and_send(carry_screen[ids], carry_ram[ids], ids)
            for _ in range(groups * steps):
                screen, ram, ids = receive()
                if t_of[ids[0]] < steps:
                    act_and_send(screen, ram, ids)
                    continue
                # This batch is done: the value of what comes next, and carry it over.
                s, r = tensors(screen, ram)
                with torch.no_grad():
                    values[steps, torch.as_tensor(ids, device=device)] = agent.value(s, r)
                carry_screen[ids] = screen
                if ram is not None:
                    carry_ram[ids] = ram
        t_update = time.perf_counter()
        with _torch_threads(update_threads):
            advantages = gae(rewards, values, terms, truncs, config.gamma, config.gae_lambda)
            targets = advantages + values[:-1]
            keep = valid.reshape(-1)  # not the autoreset steps
            stats = _update(
                agent,
                optimizer,
                config,
                screens.reshape(-1, *screen_shape)[keep],
                rams.reshape(-1, rams.shape[-1])[keep] if ram_size else None,
                actions.reshape(-1)[keep],
                logprobs.reshape(-1)[keep],
                advantages.reshape(-1)[keep],
                targets.reshape(-1)[keep],
                values[:-1].reshape(-1)[keep],
                rng,
            )
        # _update ends in .item() calls, which wait for the device: the time is the update's.
        update_seconds += time.perf_counter() - t_update
        elapsed = time.perf_counter() - start
        row = {
            "seconds": elapsed,
            "charts/episodic_return": float(np.mean(returns)) if returns else float("nan"),
            "charts/episodic_length": float(np.mean(lengths)) if lengths else float("nan"),
            "charts/SPS": global_step / elapsed,
            "charts/learning_rate": optimizer.param_groups[0]["lr"],
            **stats,
        }
        logger.log(global_step, row)
        if bar is not None:
            bar.update(batch)
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
    if bar is not None:
        bar.close()
    envs.close()
    logger.close()
    seconds = time.perf_counter() - start
    torch.save(agent.checkpoint(game=spec.name, global_step=global_step), out / "agent.pt")
    result = TrainResult(
        out=out,
        global_step=global_step,
        seconds=seconds,
        env_seconds=env_seconds,
        episodes=episodes,
        update_seconds=update_seconds,
        final_mean_return=float(np.mean(returns)) if returns else float("nan"),
        sps=global_step / seconds,
    )
    summary = {
        "config": dataclasses.asdict(config),
        "global_step": global_step,
        "seconds": round(seconds, 2),
        "env_seconds": round(env_seconds, 2),
        "update_seconds": round(update_seconds, 2),
        "episodes": episodes,
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
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _update(
    agent: Agent,
    optimizer: torch.optim.Optimizer,
    config: PPOConfig,
    screens: torch.Tensor,
    rams: torch.Tensor | None,
    actions: torch.Tensor,
    logprobs: torch.Tensor,
    advantages: torch.Tensor,
    targets: torch.Tensor,
    old_values: torch.Tensor,
    rng: np.random.Generator,
) -> dict[str, float]:
    """The PPO epochs over one rollout; returns the ``losses/...`` metrics."""
    b = len(actions)
    c = config.clip_coef
    # Kept on the device and read once at the end: an .item() per minibatch would make the
    # host wait for the GPU 16 times an update.
    clipfracs: list[torch.Tensor] = []
    pg_loss = v_loss = entropy_loss = old_approx_kl = approx_kl = torch.zeros(())
    for _ in range(config.update_epochs):
        # num_minibatches parts of (almost) equal size: the autoreset steps left out make
        # the batch a little smaller than num_envs * num_steps.
        for part in np.array_split(rng.permutation(b), config.num_minibatches):
            idx = torch.as_tensor(part, device=actions.device)
            _, newlogprob, entropy, newvalue = agent.act(
                screens[idx], rams[idx] if rams is not None else None, actions[idx]
            )
            logratio = newlogprob - logprobs[idx]
            ratio = logratio.exp()
            with torch.no_grad():
                old_approx_kl = (-logratio).mean()
                approx_kl = ((ratio - 1) - logratio).mean()
                clipfracs.append(((ratio - 1.0).abs() > c).float().mean())
            adv = advantages[idx]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            pg_loss = torch.max(-adv * ratio, -adv * torch.clamp(ratio, 1 - c, 1 + c)).mean()
            old = old_values[idx]
            clipped = old + torch.clamp(newvalue - old, -c, c)
            v_loss = (
                0.5
                * torch.max((newvalue - targets[idx]) ** 2, (clipped - targets[idx]) ** 2).mean()
            )
            entropy_loss = entropy.mean()
            loss = pg_loss - config.ent_coef * entropy_loss + config.vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), config.max_grad_norm)
            optimizer.step()
        if config.target_kl is not None and approx_kl.item() > config.target_kl:
            break
    var_y = targets.var().item()
    explained = float("nan") if var_y == 0 else 1 - (targets - old_values).var().item() / var_y
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
    agent: Agent | None,
    game: str | GameSpec,
    episodes: int = 100,
    *,
    seed: int = 10_000,
    backend: str = "emurust",
    greedy: bool = False,
    device: str = "cpu",
    num_threads: int | None = None,
) -> npt.NDArray[np.float64]:
    """The returns of ``episodes`` episodes, the first of envs seeded ``seed``,
    ``seed + 1``, ...: the same episodes whatever the backend. ``agent=None`` plays uniformly
    random actions (seeded too)."""
    spec = get(game)
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
            screen, ram = _split(obs)
            with torch.no_grad():
                act, _, _, _ = agent.act(
                    torch.as_tensor(screen, device=device),
                    torch.as_tensor(ram, device=device) if ram is not None else None,
                    greedy=greedy,
                )
            action = act.cpu().numpy()
        obs, reward, term, trunc, _ = envs.step(action)
        totals += np.where(finished, 0.0, reward)
        finished |= term | trunc
    envs.close()
    return totals
