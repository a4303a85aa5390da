"""Envs in Ray actors (:class:`emurust.envs.ray.RayVectorEnv`) against one local VecGameBoy on the
same cores: env steps/s, same run, on a local Ray cluster.

For one game (default Tobu Tobu Girl from the test-ROM folder, else the bundled Starcatch),
random actions, every observation copied out to the caller:

* ``vec``: one :class:`emurust.VecGameBoy` of ``A * M`` envs on ``A`` threads, observations
  copied by its threads (``step(obs=...)``): the baseline of the issue (its envs never
  reset: after a death they emulate whatever the game shows then);
* ``local_env``: :class:`emurust.GameBoyVectorEnv`, the same envs and threads: the environment
  logic that the actors run too (rewards, episode ends, autoreset), in one process;
* ``vec_same_work``: the same run's time inside ``VecGameBoy`` (its step, reset and memory
  calls, as ``bench/envs.py`` times them): the rate VecGameBoy reaches on exactly the
  emulation the env does (the same episodes, resets and all);
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from envs import Timed  # bench/envs.py: the same timing wrapper

RESULTS = Path(__file__).resolve().parent / "results"


TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds (user + system) used so far by process ``root`` and all its descendants:
    with a local Ray cluster, the driver, the Ray services and every actor."""
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        parent[int(entry)] = int(fields[1])
        cpu[int(entry)] = (int(fields[11]) + int(fields[12])) / TICK
    children: dict[int, list[int]] = {}
    for pid, ppid in parent.items():
        children.setdefault(ppid, []).append(pid)
    total, stack = 0.0, [root]
    while stack:
        pid = stack.pop()
        total += cpu.get(pid, 0.0)
        stack.extend(children.get(pid, []))
    return total


def _rate(
    step: Callable[[int], int], seconds: float, clock: list[float]
) -> tuple[float, float, float]:
    """Env steps/s of ``step(i)`` (which returns the env steps it made) called until
    ``seconds`` have passed, after one warm-up call; the CPU time per env step of this
    process and its descendants meanwhile (µs); and the env steps per second of the time
    ``clock[0]`` collected meanwhile."""
    step(0)
    me = os.getpid()
    clock[0] = 0.0
    steps, calls, cpu, start = 0, 0, tree_cpu_seconds(me), time.perf_counter()
    while True:
        steps += step(calls)
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            cpu_us = (tree_cpu_seconds(me) - cpu) / steps * 1e6
            return steps / elapsed, cpu_us, steps / clock[0] if clock[0] else 0.0


class Local:
    """``vec`` and ``local_env`` with ``n`` envs on ``threads`` threads."""

    def __init__(
        self, game: str, n: int, threads: int, actions: np.ndarray, settings: dict[str, Any]
    ) -> None:
        self.env = GameBoyVectorEnv(game, n, num_threads=threads, **settings)
        self.env.reset(seed=0)
        engine: Any = self.env.engine
        # The time local_env spends inside VecGameBoy (its step, reset_envs and set_memory
        # calls): the rate VecGameBoy alone reaches on exactly that work, resets and all.
        self.clock = [0.0]
        for name in ("step", "reset_envs", "set_memory"):
            setattr(engine, name, Timed(getattr(engine, name), self.clock))
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

    def __init__(
        self,
        game: str,
        actors: int,
        m: int,
        actions: np.ndarray,
        settings: dict[str, Any],
        shared_memory: bool = False,
    ) -> None:
        from emurust.envs.ray import INLINE, RayVectorEnv

        # The env starts the local cluster (one CPU per actor), as a user's would, with its
        # settings (results inline: docs/ray.md), and shuts it down on close.
        init: dict[str, Any] = {
            "num_cpus": actors,
            "include_dashboard": False,
            "log_to_driver": False,
        }
        if shared_memory:  # Ray's default: results over 100 KiB go through shared memory
            init["_system_config"] = {
                "max_direct_call_object_size": INLINE,
                "worker_niceness": os.nice(0),
            }
        self.env = RayVectorEnv(game, actors, m, ray_init=init, **settings)
        self.env.reset(seed=0)
        self.actions = actions[:, : actors * m]
        self.n, self.m = actors * m, m
        self.depth = 0

    def synchronous(self) -> Callable[[int], int]:
        """The synchronous loop (after receiving what a pipelined run left in flight)."""
        self.drain()
        return self.sync_step

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
    settings = {"frame_skip": args.frame_skip, "hold_frames": args.hold_frames}
    spec = emurust.games.get(game).replace(**settings)
    actions = rng.integers(0, len(spec.actions), (256, cores * m))
    samples: dict[str, dict[str, list[float]]] = {}
    cpu_samples: dict[str, dict[str, list[float]]] = {}
    overhead: dict[str, Any] = {}
    try:
        for a in actor_counts:
            local = Local(game, a * m, a, actions, settings)
            remote = Remote(game, a, m, actions, settings, args.shared_memory)
            tests: dict[str, Callable[[], Callable[[int], int]]] = {
                "vec": lambda local=local: local.vec_step,
                "local_env": lambda local=local: local.env_step,
                "ray_sync": lambda remote=remote: remote.synchronous(),
            }
            for d in depths:
                tests[f"ray_pipe{d}"] = lambda remote=remote, d=d: remote.pipelined(d)
            got: dict[str, list[float]] = {k: [] for k in tests}
            got["vec_same_work"] = []
            cpu: dict[str, list[float]] = {k: [] for k in tests}
            for r in range(args.repeat):
                order = list(tests) if r % 2 == 0 else list(reversed(tests))
                for name in order:
                    rate, us, inside = _rate(tests[name](), args.seconds, local.clock)
                    got[name].append(rate)
                    cpu[name].append(us)
                    if name == "local_env":  # the same run's rate inside VecGameBoy
                        got["vec_same_work"].append(inside)
            if a == 1:
                overhead["one_actor_sync_call"] = remote.round_trip_overhead(args.overhead_calls)
            samples[str(a)] = got
            cpu_samples[str(a)] = cpu
            remote.close()
            local.close()
    finally:
        ray.shutdown()  # if an error left it running
    med = {a: {k: statistics.median(v) for k, v in s.items()} for a, s in samples.items()}
    cpu_med = {a: {k: statistics.median(v) for k, v in s.items()} for a, s in cpu_samples.items()}
    return {
        "game": game,
        "envs_per_actor": m,
        "obs": spec.obs,
        "frame_skip": spec.frame_skip,
        "hold_frames": spec.hold,
        "results_through": "shared memory" if args.shared_memory else "inline",
        "samples": samples,
        "cpu_us_per_env_step_samples": cpu_samples,
        "median_steps_per_s": med,
        "ratio_vs_vec": {a: {k: v / s["vec"] for k, v in s.items()} for a, s in med.items()},
        # Ratios within each repeat (the contenders ran one after another, seconds apart):
        # on a shared machine they move less than ratios of medians. Median, min, max.
        "paired_ratio_vs_vec": _paired(samples, "vec"),
        "paired_ratio_vs_local_env": _paired(samples, "local_env"),
        "ratio_vs_vec_same_work": {
            a: {k: v / s["vec_same_work"] for k, v in s.items()} for a, s in med.items()
        },
        # Time per env step beyond local_env's (the same work in one process), µs of wall.
        "cost_per_env_step_us_vs_local_env": {
            a: {k: 1e6 / s[k] - 1e6 / s["local_env"] for k in s if k.startswith("ray")}
            for a, s in med.items()
        },
        # CPU per env step of the whole process tree (driver, Ray services, actors): less
        # sensitive to other load than the rates. local_env's over each one's is the share
        # of the CPU that does the envs' work: the rate ratio to local_env that dedicated
        # cores would give.
        "median_cpu_us_per_env_step": cpu_med,
        "cpu_ratio_vs_local_env": {
            a: {k: s["local_env"] / v for k, v in s.items()} for a, s in cpu_med.items()
        },
        # The CPU Ray adds per actor call (every process together), µs: the CPU per env
        # step beyond local_env's, times the envs of a call.
        "cpu_overhead_us_per_call": {
            a: {
                k: (v - s["local_env"]) * _per_call(k, m)
                for k, v in s.items()
                if k.startswith("ray")
            }
            for a, s in cpu_med.items()
        },
        "overhead": overhead,
    }


def _paired(
    samples: dict[str, dict[str, list[float]]], base: str
) -> dict[str, dict[str, tuple[float, float, float]]]:
    out = {}
    for a, s in samples.items():
        out[a] = {}
        for k, v in s.items():
            r = [x / y for x, y in zip(v, s[base])]
            out[a][k] = (statistics.median(r), min(r), max(r))
    return out


def _per_call(contender: str, m: int) -> int:
    """Envs per actor call: all of an actor's (ray_sync), or M / depth (ray_pipe<depth>)."""
    return m // int(contender[len("ray_pipe") :]) if contender.startswith("ray_pipe") else m


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
    ax.set_title(
        f"{result['game']}: {result['envs_per_actor']} envs per actor, "
        f"{result['frame_skip']} frames per step (same run)"
    )
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="TobuTobuGirl", help="(TobuTobuGirl; Starcatch without it)")
    p.add_argument("--envs-per-actor", type=int, default=32, help="(32)")
    p.add_argument(
        "--frame-skip",
        type=int,
        default=24,
        help="frames per step (24, with --hold-frames 8: bench/batch.py's RL step)",
    )
    p.add_argument("--hold-frames", type=int, default=8, help="(8)")
    p.add_argument(
        "--shared-memory",
        action="store_true",
        help="keep Ray's default 100 KiB limit for inline results (larger ones then go "
        "through the shared-memory object store) instead of the env's raised limit",
    )
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
    print(
        f"{game}: {m} envs per actor, steps of {args.frame_skip} frames (held "
        f"{args.hold_frames}), results {result['results_through']}; env steps/s and CPU per "
        f"env step (median of {args.repeat})"
    )
    for a, s in result["median_steps_per_s"].items():
        vec, same = result["ratio_vs_vec"][a], result["ratio_vs_vec_same_work"][a]
        cpu, cpu_ratio = (
            result["median_cpu_us_per_env_step"][a],
            result["cpu_ratio_vs_local_env"][a],
        )
        print(f"  {a} actor(s) vs {a} thread(s), {int(a) * m} envs:")
        print(
            f"    {'':13s} {'steps/s':>8s} {'/vec':>5s} {'/same':>5s} {'CPU us':>7s} {'/local':>6s}"
        )
        for k, v in s.items():
            c = f"{cpu[k]:7.1f} {cpu_ratio[k]:6.2f}" if k in cpu else ""
            print(f"    {k:13s} {v:8.0f} {vec[k]:5.2f} {same[k]:5.2f} {c}")
        for base in ("vec", "local_env"):
            paired = result[f"paired_ratio_vs_{base}"][a]
            print(
                f"    paired ratios vs {base} (median, min-max of the repeats): "
                + ", ".join(
                    f"{k} {v[0]:.2f} ({v[1]:.2f}-{v[2]:.2f})"
                    for k, v in paired.items()
                    if k.startswith("ray")
                )
            )
        per_call = result["cpu_overhead_us_per_call"][a]
        print(
            "    CPU Ray adds per actor call: "
            + ", ".join(f"{k} {v:.0f} us ({_per_call(k, m)} envs)" for k, v in per_call.items())
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
