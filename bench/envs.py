"""What the RL layer costs and what it gains: env steps/s of one game spec, same run.

For one game (default: the bundled Starcatch, so it needs nothing beside the clone), with the
spec's own step (Starcatch: 4 frames, actions held the whole step, 72x80 grey):

* ``rl``: :class:`emurust.envs.GameBoyVectorEnv`, ``--num-envs`` envs on ``--threads``
  threads: rewards and terminations from RAM, autoreset, seeds, episode statistics,
  observations copied out;
* ``vec``: the same run's time inside :class:`emurust.VecGameBoy` (its ``step``,
  ``reset_envs`` and ``set_memory`` calls, timed as the env makes them): the rate
  ``VecGameBoy`` alone would reach on exactly that work (the same episodes, resets and all).
  The RL layer's cost is ``1 - rl / vec``, its share of the wall time (goal: under 10%);
* ``pyboy_async``: the same spec on the PyBoy backend, one :class:`GameBoyEnv` per worker
  process behind Gymnasium's ``AsyncVectorEnv`` (``--pyboy-workers``, default: the threads);
* ``sync_inference`` / ``async_inference``: a training loop that spends a fixed time per
  env in "inference" for every batch (``--inference``: ``sleep``, time in which the CPU is
  free, as with a GPU policy; or ``matmul``, a NumPy matrix product that uses the CPU), once
  with ``step`` and once with ``send``/``recv`` on two half batches, so that emulating one
  half overlaps the inference of the other. The inference time per step of all envs is set
  to the measured synchronous step time (``--inference-ms`` to choose it), where perfect
  overlap would approach 2x.

Each figure is the median of ``--repeat`` timed runs of ``--seconds`` that alternate the
contenders. Writes ``bench/results/envs.json`` and, with matplotlib, ``envs.png``.

    python bench/envs.py [--game Starcatch] [--num-envs 64] [--threads 2] [--seconds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import emurust
from emurust.envs import GameBoyEnv, GameBoyVectorEnv
from emurust.envs._engine import EmurustEngine

RESULTS = Path(__file__).resolve().parent / "results"


def _rate(
    step: Callable[[int], None], envs_per_call: int, seconds: float, clock: list[float]
) -> tuple[float, float]:
    """Env steps/s of ``step(i)`` called until ``seconds`` have passed (after one warm-up
    call), and the rate of the time ``clock[0]`` collected meanwhile (reset after the
    warm-up)."""
    step(0)
    clock[0] = 0.0
    calls, start = 0, time.perf_counter()
    while True:
        step(calls)
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            steps = calls * envs_per_call
            return steps / elapsed, steps / clock[0] if clock[0] else 0.0


class Timed:
    """Wraps a bound method and adds the time spent in it to ``clock[0]``."""

    def __init__(self, fn: Callable[..., Any], clock: list[float]) -> None:
        self.fn, self.clock = fn, clock

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        try:
            return self.fn(*args, **kwargs)
        finally:
            self.clock[0] += time.perf_counter() - t


class Contenders:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        n = args.num_envs
        spec = emurust.games.get(args.game)
        self.spec = spec
        rng = np.random.default_rng(0)
        self.actions = rng.integers(0, len(spec.actions), (256, n)).astype(np.uint8)
        self.rl = GameBoyVectorEnv(spec, n, num_threads=args.threads)
        self.rl.reset(seed=0)
        engine = self.rl.engine
        assert isinstance(engine, EmurustEngine)
        self.engine_clock = [0.0]
        for name in ("step", "reset_envs", "set_memory"):
            setattr(engine, name, Timed(getattr(engine, name), self.engine_clock))
        self.half = GameBoyVectorEnv(spec, n, num_threads=args.threads, batch_size=max(1, n // 2))
        self.pyboy: Any = None
        if not args.no_pyboy:
            import gymnasium

            workers = args.pyboy_workers or args.threads
            fns = [lambda: GameBoyEnv(spec, backend="pyboy") for _ in range(workers)]
            self.pyboy = gymnasium.vector.AsyncVectorEnv(fns)
            self.pyboy.reset(seed=0)
            self.pyboy_workers = workers
            self.pyboy_actions = rng.integers(0, len(spec.actions), (256, workers))
        self.inference_s = 0.0
        weights = rng.standard_normal((5760, 128)).astype(np.float32)
        self.weights = weights

    def rl_step(self, i: int) -> None:
        self.rl.step(self.actions[i % 256])

    def pyboy_step(self, i: int) -> None:
        self.pyboy.step(self.pyboy_actions[i % 256])

    def infer(self, obs: np.ndarray) -> None:
        """The policy's cost for a batch: proportional to its size."""
        share = len(obs) / self.args.num_envs
        if self.args.inference == "sleep":
            time.sleep(self.inference_s * share)
        else:
            x = obs.reshape(len(obs), -1)[:, :5760].astype(np.float32)
            reps = max(1, round(self.inference_s * share / self.matmul_s))
            for _ in range(reps):
                x @ self.weights

    def sync_loop(self, i: int) -> None:
        obs, *_ = self.rl.step(self.actions[i % 256])
        self.infer(np.asarray(obs))

    def async_loop(self, i: int) -> None:
        """One full step of all envs: two half batches received and sent."""
        env = self.half
        for _ in range(2):
            obs, _, _, _, _, ids = env.recv()
            self.infer(np.asarray(obs))
            env.send(self.actions[i % 256][ids], ids)

    def calibrate(self) -> None:
        n = self.args.num_envs
        step_s = 1.0 / _rate(self.rl_step, 1, 1.0, [0.0])[0]
        self.inference_s = self.args.inference_ms / 1000 if self.args.inference_ms else step_s
        x = np.zeros((n, 5760), np.float32)
        t = time.perf_counter()
        for _ in range(20):
            x @ self.weights
        self.matmul_s = (time.perf_counter() - t) / 20
        self.half.async_reset(seed=0)

    def close(self) -> None:
        self.rl.close()
        self.half.close()
        if self.pyboy is not None:
            self.pyboy.close()


def run(args: argparse.Namespace) -> dict[str, Any]:
    c = Contenders(args)
    c.calibrate()
    n = args.num_envs
    tests: dict[str, tuple[Callable[[int], None], int]] = {
        "rl": (c.rl_step, n),
        "sync_inference": (c.sync_loop, n),
        "async_inference": (c.async_loop, n),
    }
    if c.pyboy is not None:
        tests["pyboy_async"] = (c.pyboy_step, c.pyboy_workers)
    samples: dict[str, list[float]] = {k: [] for k in tests}
    samples["vec"] = []
    for r in range(args.repeat):
        order = list(tests) if r % 2 == 0 else list(reversed(tests))
        for name in order:
            fn, per_call = tests[name]
            rate, engine_rate = _rate(fn, per_call, args.seconds, c.engine_clock)
            samples[name].append(rate)
            if name == "rl":  # the same run's rate inside VecGameBoy
                samples["vec"].append(engine_rate)
    c.close()
    med = {k: statistics.median(v) for k, v in samples.items()}
    out: dict[str, Any] = {
        "game": c.spec.name,
        "frame_skip": c.spec.frame_skip,
        "hold_frames": c.spec.hold,
        "obs": c.spec.obs,
        "num_envs": n,
        "threads": args.threads,
        "inference": args.inference,
        "inference_ms_per_full_step": round(c.inference_s * 1000, 3),
        "samples": samples,
        "median_steps_per_s": med,
        "rl_layer_cost": 1 - med["rl"] / med["vec"],
        "async_speedup": med["async_inference"] / med["sync_inference"],
    }
    if "pyboy_async" in med:
        out["pyboy_workers"] = c.pyboy_workers
        out["rl_vs_pyboy_async"] = med["rl"] / med["pyboy_async"]
    return out


def _plot(result: dict[str, Any], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    med = result["median_steps_per_s"]
    labels = {
        "vec": "VecGameBoy alone",
        "rl": "GameBoyVectorEnv",
        "pyboy_async": f"PyBoy backend,\nAsyncVectorEnv x{result.get('pyboy_workers')}",
        "sync_inference": "step + inference",
        "async_inference": "send/recv + inference",
    }
    names = [k for k in labels if k in med]
    fig, ax = plt.subplots(figsize=(8, 4))
    bars = ax.bar([labels[k] for k in names], [med[k] for k in names], color="#4c72b0")
    ax.bar_label(bars, fmt="%.0f", fontsize=8)
    ax.set_ylabel("env steps/s")
    ax.set_title(
        f"{result['game']}: {result['num_envs']} envs, {result['threads']} threads, "
        f"{result['frame_skip']} frames/step (same run)"
    )
    ax.tick_params(axis="x", labelsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="Starcatch", help="a registered game (Starcatch)")
    p.add_argument("--num-envs", type=int, default=64, help="(64)")
    p.add_argument(
        "--threads", type=int, default=len(os.sched_getaffinity(0)), help="(allowed CPUs)"
    )
    p.add_argument("--seconds", type=float, default=3.0, help="per timed run (3)")
    p.add_argument("--repeat", type=int, default=3, help="timed runs per contender (3)")
    p.add_argument("--pyboy-workers", type=int, default=0, help="(the threads)")
    p.add_argument("--inference", choices=("sleep", "matmul"), default="sleep")
    p.add_argument("--inference-ms", type=float, default=0.0, help="per full step (measured)")
    p.add_argument("--no-pyboy", action="store_true")
    p.add_argument("--quick", action="store_true", help="1 s runs, 1 repeat")
    p.add_argument("--out", default=str(RESULTS))
    args = p.parse_args(argv)
    if args.quick:
        args.seconds, args.repeat = 1.0, 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", emurust.EmuRustWarning)
        result = run(args)
    result["machine"] = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpus_allowed": len(os.sched_getaffinity(0)),
        "emurust": emurust.__version__,
    }
    med = result["median_steps_per_s"]
    print(f"{result['game']}: {args.num_envs} envs, {args.threads} threads (env steps/s, median)")
    for k, v in med.items():
        print(f"  {k:16s} {v:10.0f}")
    print(f"  RL layer cost: {100 * result['rl_layer_cost']:.1f}% of VecGameBoy's rate")
    print(
        f"  send/recv with {result['inference']} inference "
        f"({result['inference_ms_per_full_step']} ms per full step): "
        f"{result['async_speedup']:.2f}x the synchronous loop"
    )
    if "rl_vs_pyboy_async" in result:
        print(
            f"  GameBoyVectorEnv vs PyBoy backend behind AsyncVectorEnv "
            f"({result['pyboy_workers']} workers): {result['rl_vs_pyboy_async']:.1f}x"
        )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "envs.json").write_text(json.dumps(result, indent=2))
    if _plot(result, out / "envs.png"):
        print(f"wrote {out / 'envs.json'} and {out / 'envs.png'}")
    else:
        print(f"wrote {out / 'envs.json'} (no plot: matplotlib missing)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
