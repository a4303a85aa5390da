"""Soak: does a long-running batch stay flat in memory and keep its speed?

Steps ``--num-envs`` envs of one ROM (default: the bundled Starcatch) for ``--minutes``
minutes with everything an RL run does between steps: random actions, resets of some envs
(``reset_envs``), a snapshot of one env every step and a restore of another, a save state
and a load now and then, and reads of the zero-copy views. Every ``--every`` seconds it
records the process's resident memory (RSS, from ``/proc/self/status``) and the env steps/s
of the last interval. At the end it checks that memory after the first interval grew by
less than ``--max-growth-mib`` and exits non-zero if not.

Not part of CI (it runs for minutes); the issue's run is 64 envs for 10 minutes::

    python bench/soak.py [--minutes 10] [--num-envs 64] [--threads 2] [--rom PATH]

Writes ``bench/results/soak.json`` and, with matplotlib, ``soak.png``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import emurust
from emurust.games.starcatch import ROM_PATH

RESULTS = Path(__file__).resolve().parent / "results"


def rss_mib() -> float:
    """Resident memory of this process in MiB (Linux; NaN elsewhere)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def soak(args: argparse.Namespace) -> dict[str, Any]:
    rom = Path(args.rom) if args.rom else ROM_PATH
    vec = emurust.VecGameBoy(
        rom,
        args.num_envs,
        frame_skip=args.frame_skip,
        num_threads=args.threads or None,
        obs="gray",
    )
    n = vec.num_envs
    rng = np.random.default_rng(args.seed)
    actions = np.zeros(n, np.uint8)
    obs = np.empty((n, *vec.observation_shape), np.uint8)
    snapshot = vec.snapshot(0)
    samples: list[dict[str, float]] = []
    start = last = time.perf_counter()
    steps_at_last = steps = 0
    counts = {"resets": 0, "snapshots": 0, "restores": 0, "saves": 0, "loads": 0}
    samples.append({"seconds": 0.0, "rss_mib": rss_mib(), "steps_per_s": float("nan")})
    end = start + args.minutes * 60
    while True:
        actions[:] = rng.integers(0, 8, n, dtype=np.uint8)
        vec.step(actions, obs=obs)
        steps += 1
        _ = vec.wram[:, 0].sum(), vec.obs[0, 0, 0]
        i, j = (int(x) for x in rng.integers(0, n, 2))
        snapshot = vec.snapshot(i)
        counts["snapshots"] += 1
        vec.restore(j, snapshot)
        counts["restores"] += 1
        if steps % 50 == 0:
            done = rng.random(n) < 0.05
            vec.reset_envs(done)
            counts["resets"] += int(done.sum())
        if steps % 200 == 0:
            state = vec.save_state(i)
            vec.load_state(j, state)
            counts["saves"] += 1
            counts["loads"] += 1
        now = time.perf_counter()
        if now - last >= args.every or now >= end:
            samples.append(
                {
                    "seconds": now - start,
                    "rss_mib": rss_mib(),
                    "steps_per_s": (steps - steps_at_last) * n / (now - last),
                }
            )
            print(
                f"[soak] {now - start:7.1f} s  RSS {samples[-1]['rss_mib']:7.1f} MiB  "
                f"{samples[-1]['steps_per_s']:9.0f} env steps/s",
                flush=True,
            )
            last, steps_at_last = now, steps
            if now >= end:
                break
    after_first = samples[1]["rss_mib"] if len(samples) > 1 else samples[0]["rss_mib"]
    growth = samples[-1]["rss_mib"] - after_first
    return {
        "rom": str(rom),
        "num_envs": n,
        "threads": vec.num_threads,
        "frame_skip": args.frame_skip,
        "minutes": args.minutes,
        "steps": steps,
        "env_steps": steps * n,
        "counts": counts,
        "samples": samples,
        "rss_growth_after_first_interval_mib": growth,
        "emurust": emurust.__version__,
        "python": sys.version.split()[0],
        "machine": platform.platform(),
    }


def plot(result: dict[str, Any], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    s = result["samples"]
    minutes = [x["seconds"] / 60 for x in s]
    fig, (a, b) = plt.subplots(2, 1, figsize=(7, 5), sharex=True)
    a.plot(minutes, [x["rss_mib"] for x in s], marker="o")
    a.set_ylabel("RSS (MiB)")
    a.set_title(f"Soak: {result['num_envs']} envs, {result['threads']} threads")
    b.plot(minutes[1:], [x["steps_per_s"] for x in s[1:]], marker="o")
    b.set_ylabel("env steps/s")
    b.set_xlabel("minutes")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=10.0)
    p.add_argument("--every", type=float, default=60.0, help="seconds between samples")
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--threads", type=int, default=0, help="0: one per core")
    p.add_argument("--frame-skip", type=int, default=4)
    p.add_argument("--rom", help="a ROM file (default: the bundled Starcatch)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-growth-mib", type=float, default=16.0)
    p.add_argument("--out", type=Path, default=RESULTS / "soak.json")
    args = p.parse_args(argv)
    result = soak(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    plot(result, args.out.with_suffix(".png"))
    growth = result["rss_growth_after_first_interval_mib"]
    print(
        f"[soak] {result['env_steps']} env steps; RSS growth after the first interval "
        f"{growth:+.1f} MiB (limit {args.max_growth_mib}); wrote {args.out}"
    )
    return 0 if growth < args.max_growth_mib else 1


if __name__ == "__main__":
    sys.exit(main())
