"""PPO's settings (:class:`PPOConfig`) and how they are decided when left automatic: the
number of envs (:func:`auto_num_envs`) and the threads of each phase (:func:`thread_plan`).

No torch here: ``emurust train --help`` builds its parser from :class:`PPOConfig`'s fields
(name, default, help) without importing it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from emurust._core import available_cpus

__all__ = ["POLICIES", "PPOConfig", "ThreadPlan", "auto_num_envs", "thread_plan"]


def _is_cuda(device: str) -> bool:
    return device.split(":")[0] == "cuda"


POLICIES = ("pixel", "ram")


def _opt(help: str, *aliases: str, **extra: Any) -> dict[str, Any]:
    """A config field's command-line metadata: its help, other flag names it answers to."""
    return {"help": help, "aliases": aliases, **extra}


@dataclass
class PPOConfig:
    """PPO settings. The field names are CleanRL's and, with ``-`` for ``_``, the flags of
    ``emurust train`` (:mod:`emurust.rl.cli` builds its parser from these fields). The
    defaults train Starcatch on 2 CPU cores in a few minutes."""

    game: str = field(default="Starcatch", metadata=_opt("the game (a registered name)"))
    policy: str = field(
        default="pixel",
        metadata=_opt(
            "pixel: a small network over the screen (and the spec's RAM observations); "
            "ram: an MLP over the spec's RAM-only observation, no screen drawn (much faster)",
            choices=POLICIES,
        ),
    )
    total_timesteps: int | None = field(
        default=None,
        metadata=_opt(
            "env steps to train for (auto: 1,500,000 for the pixel policy, 5,000,000 for the "
            "RAM policy, which learns Starcatch more slowly per step but runs several times "
            "faster)",
            "--total-steps",
            auto=True,
        ),
    )
    num_envs: int | None = field(
        default=None,
        metadata=_opt(
            "envs stepped in parallel (auto: sized to the policy, the CPUs and the device; "
            "see auto_num_envs)",
            auto=True,
        ),
    )
    num_steps: int | None = field(
        default=None,
        metadata=_opt(
            "steps per env per rollout (auto: rollouts of about 2,048 transitions, at least 8 "
            "steps: 32 with 64 envs)",
            auto=True,
        ),
    )
    learning_rate: float | None = field(
        default=None,
        metadata=_opt(
            "Adam's learning rate, annealed (auto: 5e-4 for the pixel policy, 2.5e-3 for the "
            "RAM policy)",
            auto=True,
        ),
    )
    anneal_lr: bool = field(default=True, metadata=_opt("anneal the learning rate to 0"))
    gamma: float = field(default=0.99, metadata=_opt("discount factor"))
    gae_lambda: float = field(default=0.95, metadata=_opt("GAE's lambda"))
    num_minibatches: int = field(default=4, metadata=_opt("minibatches per epoch"))
    update_epochs: int = field(default=4, metadata=_opt("epochs over each rollout"))
    clip_coef: float = field(default=0.2, metadata=_opt("surrogate and value clipping"))
    ent_coef: float = field(default=0.01, metadata=_opt("entropy bonus coefficient"))
    vf_coef: float = field(default=0.5, metadata=_opt("value loss coefficient"))
    max_grad_norm: float = field(default=0.5, metadata=_opt("gradient clipping norm"))
    target_kl: float | None = field(
        default=None, metadata=_opt("stop an update's epochs above this approximate KL")
    )
    seed: int = field(default=1, metadata=_opt("seed of torch, the envs and the minibatches"))
    backend: str = field(
        default="emurust", metadata=_opt("the emulator", choices=("emurust", "pyboy"))
    )
    vectorization: str = field(
        default="native",
        metadata=_opt(
            "native: GameBoyVectorEnv; async: AsyncVectorEnv worker processes; ray: Ray "
            "actors; null: no emulator (constant observations: the trainer alone)",
            choices=("native", "async", "ray", "null"),
        ),
    )
    device: str = field(default="cpu", metadata=_opt("torch device: cpu or cuda"))
    num_threads: int | None = field(
        default=None,
        metadata=_opt(
            "emulator threads (default: one per CPU the process may use, affinity and cgroup "
            "quota; with ray: per actor, default 1)",
            "--threads",
        ),
    )
    ray_address: str | None = field(
        default=None, metadata=_opt("with ray: the cluster to join (default: start one)")
    )
    ray_actors: int = field(
        default=2, metadata=_opt("with ray: actors, num_envs / ray_actors envs each", "--actors")
    )
    torch_threads: int | None = field(
        default=None,
        metadata=_opt(
            "torch threads for the PPO update (default 1: see thread_plan; the policy acts on "
            "one thread beside the emulators)"
        ),
    )
    update_lag: int | None = field(
        default=None,
        metadata=_opt(
            "0: each rollout is collected by the policy its previous rollout trained "
            "(CleanRL's schedule); 1: the update of one rollout runs on a thread of its own "
            "while the next rollout is collected, by the policy from one update earlier, so "
            "the update and the rollout use two cores at once (auto: 1 for the pixel policy "
            "on a CPU with one torch thread per phase, 0 otherwise; see thread_plan)",
            auto=True,
        ),
    )
    update_shards: int | None = field(
        default=None,
        metadata=_opt(
            "1: each minibatch's gradient in one pass; 2: in two fixed halves, on two threads "
            "when the process may use 2 CPUs or more (the same results on one thread or two; "
            "auto: 2 for the pixel policy on a CPU with one torch thread per phase, else 1)",
            auto=True,
        ),
    )
    checkpoints: int = field(default=4, metadata=_opt("checkpoints written during training"))

    def resolved(self) -> PPOConfig:
        """This config with its automatic settings decided: ``num_envs``
        (:func:`auto_num_envs`), ``num_steps`` (rollouts of about 2,048 transitions, at
        least 8 steps) and ``learning_rate`` (per policy: the RAM network is small and its
        inputs standardized; at 5e-4 it learned Starcatch several times slower) and
        ``total_timesteps`` (per policy)."""
        n = self.num_envs
        if n is None:
            n = auto_num_envs(self.policy, self.device, available_cpus())
            if self.vectorization == "ray":
                n -= n % (2 * max(1, self.ray_actors))
            n = max(2, n)
        steps = self.num_steps
        if steps is None:
            steps = max(8, 2048 // n)
            while (n * steps) % self.num_minibatches:  # whole minibatches
                steps += 1
        lr = self.learning_rate
        if lr is None:
            lr = 2.5e-3 if self.policy == "ram" else 5e-4
        total = self.total_timesteps
        if total is None:
            total = 5_000_000 if self.policy == "ram" else 1_500_000
        lag = self.update_lag
        if lag is None:
            lag = _auto_lag(self)
        elif lag not in (0, 1):
            raise ValueError(f"update_lag must be 0 or 1, got {lag!r}")
        elif lag and (self.torch_threads or 1) != 1:
            raise ValueError(
                "update_lag=1 runs the update beside the rollout on one torch thread each; "
                f"it cannot be combined with torch_threads={self.torch_threads}"
            )
        shards = self.update_shards
        if shards is None:
            shards = 1 + _auto_lag(self)  # the same condition: pixel, CPU, one torch thread
        elif shards not in (1, 2):
            raise ValueError(f"update_shards must be 1 or 2, got {shards!r}")
        elif shards == 2 and (self.torch_threads or 1) != 1:
            raise ValueError(
                "update_shards=2 computes each half of a minibatch on one torch thread; it "
                f"cannot be combined with torch_threads={self.torch_threads}"
            )
        return dataclasses.replace(
            self,
            num_envs=n,
            num_steps=steps,
            learning_rate=lr,
            total_timesteps=total,
            update_lag=lag,
            update_shards=shards,
        )

    @property
    def batch_size(self) -> int:
        if self.num_steps is None:
            raise ValueError("num_steps is automatic: use config.resolved() first")
        return self._envs * self.num_steps

    @property
    def minibatch_size(self) -> int:
        return self.batch_size // self.num_minibatches

    @property
    def num_iterations(self) -> int:
        if self.total_timesteps is None:
            raise ValueError("total_timesteps is automatic: use config.resolved() first")
        return max(1, self.total_timesteps // self.batch_size)

    @property
    def _envs(self) -> int:
        if self.num_envs is None:
            raise ValueError("num_envs is automatic: use config.resolved() first")
        return self.num_envs


def _auto_lag(config: PPOConfig) -> int:
    """``update_lag`` when left automatic: 1 for the pixel policy on a CPU with one torch
    thread per phase, else 0. Measured on 2 quiet cores (bench/README.md): the pixel
    policy's default run took 245 s instead of 321 s and its agent scored 49.9 instead of
    45.7; the RAM policy, whose learning rate is 5 times higher, ran no faster by default
    (its emulators then have one thread) and its agent scored 17.9 instead of 34.5."""
    return int(
        config.policy == "pixel"
        and not _is_cuda(config.device)
        and (config.torch_threads or 1) == 1
    )


def auto_num_envs(policy: str, device: str, cpus: int) -> int:
    """The number of envs ``emurust train`` runs when none is given.

    On a CPU the learner sets the pace, and more envs only make each rollout longer: the
    pixel network runs 64 envs (2,048 transitions a rollout), the RAM policy, whose network
    costs a few microseconds a transition, 128 per CPU, at least 512: the per-batch overhead
    of the Python loop is spread over many envs and the update's matrices are larger (on 2
    quiet cores 256 / 512 / 1,024 envs ran at 31,190 / 46,001 / 59,188 env steps/s, and 512
    envs trained a better agent than 256 in the default 5M steps: bench/README.md). On a
    GPU the update costs little per transition, so the envs are sized to keep the emulator
    threads busy: 64 per CPU, at least 512 (not measured on a GPU yet: see bench/README.md).
    """
    if _is_cuda(device):
        return max(512, 64 * cpus)
    if policy == "ram":
        return max(512, 128 * cpus)
    return 64


class ThreadPlan(NamedTuple):
    """The emulator threads, and torch's thread count in each phase."""

    emulator: int
    rollout: int
    update: int


def thread_plan(config: PPOConfig, cpus: int | None = None) -> ThreadPlan:
    """Threads per phase. The emulators get one thread per CPU the process may use (``cpus``,
    default :func:`emurust.available_cpus`: the affinity mask capped by a cgroup quota;
    ``num_threads`` sets it); torch gets one thread in both phases unless ``torch_threads``
    sets the update's.

    - The rollout: the emulator threads step one half batch while the policy acts on the
      other. torch's pool beside them oversubscribes the cores and its OpenMP threads then
      wait for each other at every barrier (2 busy cores: 125-188 env steps/s against
      1,791-2,040 on one thread).
    - The update runs with the emulators idle, on one thread by default. On 2 quiet cores
      (the pixel network, bench/README.md) a second OpenMP thread made it 1.5 times faster
      with OpenMP's default spinning waits, and not at all faster with passive ones
      (``OMP_WAIT_POLICY=PASSIVE``); beside other busy processes the spinning threads made it
      up to 7 times slower than one thread. One thread is also what makes a seeded run train
      the same weights on every machine: torch's CPU results depend on its thread count.
    - With ``update_lag=1`` (the default on a CPU) the update runs on a thread of its own,
      beside the next rollout, each on one torch thread: the second core works through the
      update's whole length without OpenMP's barriers, and the schedule (rollout k+1 by the
      weights of update k-1) does not depend on the CPUs, so the weights do not either. The
      emulators then get one CPU less (at least one thread): the learner's.
    """
    cpus = available_cpus() if cpus is None else cpus
    lag = config.update_lag if config.update_lag is not None else _auto_lag(config)
    # With the update on a thread of its own, one CPU is the learner's (2 quiet cores, the
    # pixel network: 8,054 env steps/s with one emulator thread against 7,389 with two).
    emulator = config.num_threads if config.num_threads is not None else max(1, cpus - lag)
    if config.vectorization == "ray":  # per actor, each on a CPU of its own by default
        emulator = config.num_threads or 1
    update = config.torch_threads or 1
    return ThreadPlan(emulator, 1, update)
