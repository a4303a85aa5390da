"""Envs in Ray actors (:class:`emurust.ray.RayVectorEnv`) against one local VecGameBoy on the
same cores: env steps/s, same run, on a local Ray cluster.

For one game (default Tobu Tobu Girl from the test-ROM folder, else the bundled Starcatch),
random actions, every observation copied out to the caller:

* ``vec``: one :class:`emurust.VecGameBoy` of ``A * M`` envs on ``A`` threads, observations
  copied by its threads (``step(obs=...)``): the baseline of the issue;
* ``local_env``: :class:`emurust.GameBoyVectorEnv`, the same envs and threads: the environment
  logic that the actors run too (rewards, episode ends, autoreset);
* ``ray_sync``: ``A`` actors of ``M`` envs (one thread, one CPU each), ``step()``: each actor
  steps, ``ray.get`` on all, every step;
* ``ray_pipe<D>``: the same actors through ``send``/``recv`` with ``batch_size = M / D``: ``D``
  batches queued on each actor; ``recv`` takes the first batch done (``ray.wait``) and its
  actions go back at once, so an actor always has its next batch while a result travels.

Scaling: the pipelined env with 1, 2, ... ``--actors`` actors of ``M`` envs against ``vec`` with
as many threads and envs. Overhead: the wall time of one actor's synchronous ``step()`` minus
the time spent inside the actor's step (the round trip Ray adds, in µs per call), and the
pipelined env's cost per env step against ``vec`` (``1 / ray - 1 / vec``, µs).

Each figure is the median of ``--repeat`` timed runs of ``--seconds`` that alternate the
contenders. Writes ``bench/results/ray.json`` and, with matplotlib, ``ray.png`` (the file is not
named ray.py: it would shadow the ray package when run as a script).

    python bench/ray_envs.py [--game TobuTobuGirl] [--envs-per-actor 32] [--actors 1,2]
                        [--depth 1,2] [--seconds 3] [--repeat 3]
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
from emurust.envs import GameBoyVectorEnv

RESULTS = Path(__file__).resolve().parent / "results"


def _rate(step: Callable[[int], int], seconds: float) -> float:
    """Env steps/s of ``step(i)`` (which returns the env steps it made) called until
    ``seconds`` have passed, after one warm-up call."""
    step(0)
    steps, calls, start = 0, 0, time.perf_counter()
    while True:
        steps += step(calls)
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps / elapsed


class Local:
    """``vec`` and ``local_env`` with ``n`` envs on ``threads`` threads."""

    def __init__(self, game: str, n: int, threads: int, actions: np.ndarray) -> None:
        self.env = GameBoyVectorEnv(game, n, num_threads=threads)
        self.env.reset(seed=0)
        engine: Any = self.env.engine
        self.vec = engine.vec
        self.out = np.empty((n, *engine.observation_shape), np.uint8)
        self.actions = actions[:, :n]
        self.actions8 = self.actions.astype(np.uint8)
        self.n = n

    def vec_step(self, i: int) -> int:
        self.vec.step(self.actions8[i % len(self.actions8)], obs=self.out)
        return self.n

    def env_step(self, i: int) -> int:
        self.env.step(self.actions[i % len(self.actions)])
        return self.n

    def close(self) -> None:
        self.env.close()


class Remote:
    """A :class:`RayVectorEnv` of ``actors`` actors of ``m`` envs, stepped synchronously or
    pipelined ``depth`` batches deep per actor."""

    def __init__(self, game: str, actors: int, m: int, actions: np.ndarray) -> None:
        from emurust.ray import RayVectorEnv

        self.env = RayVectorEnv(game, actors, m)
        self.env.reset(seed=0)
        self.actions = actions[:, : actors * m]
        self.n, self.m = actors * m, m
        self.depth = 0

    def sync_step(self, i: int) -> int:
        self.env.step(self.actions[i % len(self.actions)])
        return self.n

    def pipelined(self, depth: int) -> Callable[[int], int]:
        """The pipelined loop with ``depth`` batches per actor (started here)."""
        env = self.env
        self.drain()
        env.batch_size = self.m // depth
        env.async_reset(seed=0)
        self.depth = depth

        def step(i: int) -> int:
            _, _, _, _, _, ids = env.recv()
            env.send(self.actions[i % len(self.actions)][ids], ids)
            return len(ids)

        return step

    def drain(self) -> None:
        """Receive every result in flight, so that the env is idle."""
        while self.env._busy.any():
            self.env.recv()

    def round_trip_overhead(self, calls: int) -> dict[str, float]:
        """Per synchronous call: wall time, time inside the actors' step, and the rest."""
        import ray

        self.drain()
        before = ray.get([a.info.remote() for a in self.env.actors])
        t = time.perf_counter()
        for i in range(calls):
            self.sync_step(i)
        wall = (time.perf_counter() - t) / calls
        after = ray.get([a.info.remote() for a in self.env.actors])
        inside = statistics.mean(
            (a["step_seconds"] - b["step_seconds"]) / (a["steps"] - b["steps"])
            for a, b in zip(after, before)
        )
        return {
            "wall_us": wall * 1e6,
            "inside_us": inside * 1e6,
            "overhead_us": (wall - inside) * 1e6,
        }

    def close(self) -> None:
        self.drain()
        self.env.close()


def run(args: argparse.Namespace, game: str) -> dict[str, Any]:
    import ray

    m, actor_counts, depths = args.envs_per_actor, args.actors, args.depth
    cores = max(actor_counts)
    rng = np.random.default_rng(0)
    spec = emurust.games.get(game)
    actions = rng.integers(0, len(spec.actions), (256, cores * m))
    ray.init(num_cpus=cores, include_dashboard=False, log_to_driver=False)
    samples: dict[str, dict[str, list[float]]] = {}
    overhead: dict[str, Any] = {}
    try:
        for a in actor_counts:
            local = Local(game, a * m, a, actions)
            remote = Remote(game, a, m, actions)
            tests: dict[str, Callable[[], Callable[[int], int]]] = {
                "vec": lambda local=local: local.vec_step,
                "local_env": lambda local=local: local.env_step,
                "ray_sync": lambda remote=remote: remote.sync_step,
            }
            for d in depths:
                tests[f"ray_pipe{d}"] = lambda remote=remote, d=d: remote.pipelined(d)
            got: dict[str, list[float]] = {k: [] for k in tests}
            for r in range(args.repeat):
                order = list(tests) if r % 2 == 0 else list(reversed(tests))
                for name in order:
                    got[name].append(_rate(tests[name](), args.seconds))
            if a == 1:
                overhead["one_actor_sync_call"] = remote.round_trip_overhead(args.overhead_calls)
            samples[str(a)] = got
            remote.close()
            local.close()
    finally:
        ray.shutdown()
    med = {a: {k: statistics.median(v) for k, v in s.items()} for a, s in samples.items()}
    best = {
        a: max((k for k in s if k.startswith("ray_pipe")), key=s.__getitem__)
        for a, s in med.items()
    }
    per_step = {
        a: {k: 1e6 / s[k] - 1e6 / s["vec"] for k in s if k.startswith("ray")}
        for a, s in med.items()
    }
    return {
        "game": game,
        "envs_per_actor": m,
        "obs": spec.obs,
        "frame_skip": spec.frame_skip,
        "samples": samples,
        "median_steps_per_s": med,
        "ratio_vs_vec": {a: {k: v / s["vec"] for k, v in s.items()} for a, s in med.items()},
        "best_pipeline": best,
        "cost_per_env_step_us_vs_vec": per_step,
        "overhead": overhead,
    }


def _plot(result: dict[str, Any], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    med = result["median_steps_per_s"]
    actors = sorted(med, key=int)
    names = list(med[actors[0]])
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / len(names)
    for j, name in enumerate(names):
        xs = [i + j * width for i in range(len(actors))]
        ax.bar(xs, [med[a][name] for a in actors], width, label=name)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(actors))])
    ax.set_xticklabels([f"{a} actor(s) / thread(s)" for a in actors])
    ax.set_ylabel("env steps/s")
    ax.set_title(f"{result['game']}: {result['envs_per_actor']} envs per actor (same run)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="TobuTobuGirl", help="(TobuTobuGirl; Starcatch without it)")
    p.add_argument("--envs-per-actor", type=int, default=32, help="(32)")
    cores = len(os.sched_getaffinity(0))
    p.add_argument(
        "--actors",
        default=",".join(str(a) for a in (1, 2, 4, 8, 16) if a <= cores),
        help="actor counts, comma-separated (1, 2, 4, ... up to the allowed CPUs)",
    )
    p.add_argument("--depth", default="1,2", help="batches in flight per actor (1,2)")
    p.add_argument("--seconds", type=float, default=3.0, help="per timed run (3)")
    p.add_argument("--repeat", type=int, default=3, help="timed runs per contender (3)")
    p.add_argument("--overhead-calls", type=int, default=500, help="(500)")
    p.add_argument("--quick", action="store_true", help="1 s runs, 1 repeat")
    p.add_argument("--out", default=str(RESULTS))
    args = p.parse_args(argv)
    args.actors = [int(a) for a in args.actors.split(",")]
    args.depth = [int(d) for d in args.depth.split(",")]
    if args.quick:
        args.seconds, args.repeat, args.overhead_calls = 1.0, 1, 100
    if any(args.envs_per_actor % d for d in args.depth):
        p.error("--envs-per-actor must be a multiple of every --depth")
    game = args.game
    try:
        emurust.games.get(game).rom_source()
    except FileNotFoundError as e:
        print(f"note: {e}; measuring Starcatch instead", file=sys.stderr)
        game = "Starcatch"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", emurust.EmuRustWarning)
        result = run(args, game)
    import ray

    result["machine"] = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpus_allowed": cores,
        "emurust": emurust.__version__,
        "ray": ray.__version__,
        "load_average_at_end": os.getloadavg(),
    }
    m = args.envs_per_actor
    print(f"{game}: {m} envs per actor, env steps/s (median of {args.repeat})")
    for a, s in result["median_steps_per_s"].items():
        ratios = result["ratio_vs_vec"][a]
        print(f"  {a} actor(s) vs VecGameBoy with {a} thread(s), {int(a) * m} envs:")
        for k, v in s.items():
            print(f"    {k:10s} {v:9.0f}  ({ratios[k]:.2f} of vec)")
        costs = result["cost_per_env_step_us_vs_vec"][a]
        print(
            "    cost per env step vs vec: "
            + ", ".join(f"{k} {v:+.1f} us" for k, v in costs.items())
        )
    if "one_actor_sync_call" in result["overhead"]:
        o = result["overhead"]["one_actor_sync_call"]
        print(
            f"  one actor, step() of {m} envs: {o['wall_us']:.0f} us a call, "
            f"{o['inside_us']:.0f} us inside the actor: Ray adds {o['overhead_us']:.0f} us "
            f"({o['overhead_us'] / m:.1f} us per env step)"
        )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "ray.json").write_text(json.dumps(result, indent=2))
    if _plot(result, out / "ray.png"):
        print(f"wrote {out / 'ray.json'} and {out / 'ray.png'}")
    else:
        print(f"wrote {out / 'ray.json'} (no plot: matplotlib missing)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
