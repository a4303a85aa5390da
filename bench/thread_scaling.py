"""Why does VecGameBoy scale worse on some ROMs? Threads against processes, and batch sizes.

For each ROM: env steps/s of ``VecGameBoy`` (frame_skip 24, grey observations, random
actions) with 1, 2, 4, ... threads and ``--envs-per-thread`` envs per thread, against the
same number of *processes*, each with its own single-threaded ``VecGameBoy`` of the same
envs per process (forked, started together, summed). Processes share nothing of ours (no
pool, no ``Arc``-shared ROM tables, no common observation buffer), so:

* if processes scale like threads, the limit is the machine (memory bandwidth, clocks that
  drop as more cores run, shared caches);
* if processes scale clearly better, something in our threaded engine costs (false sharing,
  the pool, the shared buffers).

Then, at the largest thread count, the batch size is varied (1, 4 and ``--envs-per-thread``
envs per thread): per-env machines (about 64 KiB each) that stop fitting in the caches show
as a lower rate per env with more envs. Each figure is the median of ``--repeat`` runs of
``--seconds``.

    python bench/thread_scaling.py ROM [ROM...] [--threads 1,2,4,8,16] [--seconds 3]

Writes bench/results/thread_scaling.json.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import emurust

RESULTS = Path(__file__).resolve().parent / "results"


def run_engine(rom: bytes, envs: int, threads: int, seconds: float, seed: int) -> float:
    """Env steps/s of one VecGameBoy stepped for ``seconds`` (after a warm-up step)."""
    vec = emurust.VecGameBoy(rom, envs, num_threads=threads)
    rng = np.random.default_rng(seed)
    actions = rng.integers(0, 8, (64, envs), dtype=np.uint8)
    vec.step(actions[0])
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        vec.step(actions[steps % 64])
        steps += 1
    return steps * envs / (time.perf_counter() - start)


def _worker(rom: bytes, envs: int, seconds: float, seed: int, barrier: Any, out: Any) -> None:
    vec = emurust.VecGameBoy(rom, envs, num_threads=1)
    rng = np.random.default_rng(seed)
    actions = rng.integers(0, 8, (64, envs), dtype=np.uint8)
    vec.step(actions[0])
    barrier.wait()
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        vec.step(actions[steps % 64])
        steps += 1
    out.put(steps * envs / (time.perf_counter() - start))


def run_processes(rom: bytes, envs: int, procs: int, seconds: float, seed: int) -> float:
    """Summed env steps/s of ``procs`` forked processes, each one single-threaded engine."""
    ctx = mp.get_context("fork")
    barrier, out = ctx.Barrier(procs), ctx.Queue()
    ps = [
        ctx.Process(target=_worker, args=(rom, envs, seconds, seed + i, barrier, out))
        for i in range(procs)
    ]
    for p in ps:
        p.start()
    total = sum(out.get() for _ in ps)
    for p in ps:
        p.join()
    return total


def median_of(repeat: int, fn: Any, *args: Any) -> float:
    return statistics.median(fn(*args) for _ in range(repeat))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("roms", nargs="+", type=Path)
    p.add_argument("--threads", default="1,2,4,8,16")
    p.add_argument("--envs-per-thread", type=int, default=32)
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--out", type=Path, default=RESULTS / "thread_scaling.json")
    args = p.parse_args(argv)
    counts = [int(t) for t in args.threads.split(",")]
    result: dict[str, Any] = {
        "machine": platform.platform(),
        "cpus": os.cpu_count(),
        "emurust": emurust.__version__,
        "python": sys.version.split()[0],
        "envs_per_thread": args.envs_per_thread,
        "seconds": args.seconds,
        "roms": {},
    }
    for path in args.roms:
        rom = path.read_bytes()
        per = args.envs_per_thread
        rows: dict[str, Any] = {"threads": {}, "processes": {}, "batch": {}}
        for n in counts:
            t = median_of(args.repeat, run_engine, rom, per * n, n, args.seconds, 0)
            q = median_of(args.repeat, run_processes, rom, per, n, args.seconds, 0)
            rows["threads"][n] = t
            rows["processes"][n] = q
            base_t, base_q = rows["threads"][counts[0]], rows["processes"][counts[0]]
            print(
                f"{path.name:>24} {n:3d}: threads {t:9.0f} (eff {t / base_t / n * counts[0]:.2f})"
                f"  processes {q:9.0f} (eff {q / base_q / n * counts[0]:.2f})",
                flush=True,
            )
        top = counts[-1]
        for k in sorted({1, 4, per}):
            r = median_of(args.repeat, run_engine, rom, k * top, top, args.seconds, 0)
            rows["batch"][k * top] = r
            print(f"{path.name:>24} {top} threads, {k * top:5d} envs: {r:9.0f} env steps/s")
        result["roms"][path.name] = rows
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
