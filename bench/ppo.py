"""End-to-end PPO throughput: the same trainer, model and hyperparameters on the emurust
backend and on the PyBoy backend, same run, same machine.

Contenders (``emurust train``'s PPO, :mod:`emurust.rl.ppo`, on Starcatch), for each policy of
``--policy`` (``pixel``: the screen network; ``ram``: the MLP over RAM, no screen drawn):

* ``emurust``: :class:`emurust.GameBoyVectorEnv` (Rust threads, ``send``/``recv`` on two half
  batches) for each count of ``--emurust-envs`` (default: ``emurust train``'s automatic
  count), the best kept;
* ``pyboy``: the same spec on PyBoy 2.x at its fastest (``sound_emulated=False``...), one
  :class:`emurust.GameBoyEnv` per worker process behind Gymnasium ``AsyncVectorEnv`` (two of
  them, one per half batch, so stepping overlaps inference as for emurust), for each count
  of ``--pyboy-envs`` (default 8,16,32), the best kept: "each at its best number of envs";
* ``--null-env``: the trainer with no emulator at all (constant observations returned at
  once, :class:`emurust.envs.vector.NullVectorEnv`): its ceiling on this machine.

Each run trains ``--steps`` env steps and reports env steps/s and where the wall time went
(emulators, inference, copies, update). ``--repeat R`` runs every contender R times,
interleaved (A B C A B C ...), and keeps each one's median. ``--busy N`` runs N CPU-bound
processes at the same priority beside all of it (a busy machine). ``--threads-grid 1x1,2x1``
adds emurust runs with hand-set emulator x torch-update thread counts beside the defaults,
``:0`` or ``:1`` after a cell sets the update lag too (``taskset``/cgroup-quota checks: do
the defaults match the best hand-set settings?); ``--update-lag 0|1`` sets it for every run.
Writes ``bench/results/ppo.json`` (with the machine: CPU model, CPUs the process may use,
load) and ``ppo.png``.

    python bench/ppo.py [--policy pixel,ram] [--steps 65536] [--emurust-envs 64,256]
                        [--pyboy-envs 8,16,32] [--null-env] [--busy N] [--repeat R]
                        [--threads-grid 1x1,2x1,1x1:0] [--update-lag auto|0|1]
                        [--device cpu] [--no-pyboy]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def run_one(
    policy: str,
    backend: str,
    vectorization: str,
    num_envs: int | None,
    args: argparse.Namespace,
    threads: tuple[int, int, int | None] | None = None,
) -> dict[str, Any]:
    from emurust.rl.ppo import PPOConfig, train

    config = PPOConfig(
        policy=policy,
        total_timesteps=args.steps,
        num_envs=num_envs,
        backend=backend,
        vectorization=vectorization,
        device=args.device,
        checkpoints=1,
        seed=args.seed,
        num_threads=threads[0] if threads else None,
        torch_threads=threads[1] if threads else args.torch_threads,
        update_lag=threads[2] if threads and threads[2] is not None else args.update_lag,
    ).resolved()
    with tempfile.TemporaryDirectory() as out:
        r = train(config, out, progress=False)
    return {
        "policy": policy,
        "backend": backend,
        "vectorization": vectorization,
        "num_envs": config.num_envs,
        "num_steps": config.num_steps,
        "threads": r.threads,
        "hand_set_threads": threads is not None,
        "env_steps": r.global_step,
        "seconds": round(r.seconds, 2),
        "sps": r.sps,
        "shares": {k: round(v, 4) for k, v in r.shares.items()},
        "update_lag": r.update_lag,
        "update_on_thread": r.update_on_thread,
        "update_busy_share": round(r.update_seconds / r.seconds, 4) if r.seconds else 0.0,
    }


def _busy() -> None:  # pragma: no cover - runs in a child process
    x = 0
    while True:
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _label(r: dict[str, Any]) -> str:
    if r["vectorization"] == "null":
        who = "trainer alone (null env)"
    elif r["backend"] == "emurust":
        who = "emurust"
    else:
        who = "PyBoy, AsyncVectorEnv"
    extra = ""
    if r["hand_set_threads"]:
        extra = (
            f", threads {r['threads']['emulator']}x{r['threads']['update']}, lag {r['update_lag']}"
        )
    return f"{r['policy']}: {who}, {r['num_envs']} envs{extra}"


def _plot(result: dict[str, Any], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    runs = result["runs"]
    colours = {"emurust": "#4c72b0", "pyboy": "#dd8452"}
    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(runs)), 4.5))
    bars = ax.bar(
        [_label(r).replace(": ", "\n").replace(", ", "\n", 1) for r in runs],
        [r["sps"] for r in runs],
        color=["#55a868" if r["vectorization"] == "null" else colours[r["backend"]] for r in runs],
    )
    ax.bar_label(
        bars,
        labels=[f"{r['sps']:.0f}\n(update {100 * r['shares']['update']:.0f}%)" for r in runs],
        fontsize=7,
    )
    ax.set_ylabel("PPO env steps/s (end to end)")
    ratios = ", ".join(f"{p} {v:.1f}x" for p, v in result["ratio"].items())
    ax.set_title(
        f"PPO on {result['game']}, learner on {result['device']}: emurust vs PyBoy {ratios}",
        fontsize=9,
    )
    ax.tick_params(axis="x", labelsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _counts(text: str | None) -> list[int | None]:
    if text is None:
        return [None]
    return [None if x == "auto" else int(x) for x in text.split(",")]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--policy", default="pixel", help="pixel, ram or both: pixel,ram")
    p.add_argument("--steps", type=int, default=65_536, help="env steps per run (65536)")
    p.add_argument(
        "--emurust-envs",
        default=None,
        help="GameBoyVectorEnv env counts to try (default: emurust train's auto count)",
    )
    p.add_argument("--pyboy-envs", default="8,16,32", help="AsyncVectorEnv worker counts")
    p.add_argument("--no-pyboy", action="store_true", help="emurust (and --null-env) only")
    p.add_argument("--null-env", action="store_true", help="also the trainer with no emulator")
    p.add_argument("--busy", type=int, default=0, metavar="N", help="N CPU-bound processes")
    p.add_argument("--repeat", type=int, default=1, metavar="R", help="interleaved repeats")
    p.add_argument(
        "--threads-grid",
        default=None,
        metavar="ExT[:L],...",
        help="also emurust with these emulator x update-torch thread counts, and update lag "
        "L if given (e.g. 1x1,2x1,1x1:0,2x1:0)",
    )
    p.add_argument(
        "--update-lag",
        type=lambda x: None if x == "auto" else int(x),
        default=None,
        help="PPOConfig.update_lag for every run: 0, 1 or auto (default)",
    )
    p.add_argument("--device", default="cpu")
    p.add_argument(
        "--torch-threads", type=int, help="torch threads for the PPO update (default: auto)"
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default=str(RESULTS))
    args = p.parse_args(argv)

    from emurust import available_cpus

    policies = args.policy.split(",")
    plan: list[tuple[str, str, str, int | None, tuple[int, int, int | None] | None]] = []
    for policy in policies:
        for n in _counts(args.emurust_envs):
            plan.append((policy, "emurust", "native", n, None))
        if args.threads_grid:
            for cell in args.threads_grid.split(","):
                size, _, lag = cell.partition(":")
                e, t = (int(x) for x in size.split("x"))
                hand = (e, t, int(lag) if lag else None)
                plan.append((policy, "emurust", "native", _counts(args.emurust_envs)[0], hand))
        if args.null_env:
            plan.append((policy, "emurust", "null", _counts(args.emurust_envs)[0], None))
        if not args.no_pyboy:
            for n in _counts(args.pyboy_envs):
                plan.append((policy, "pyboy", "async", n, None))

    load_before = os.getloadavg()
    busy = [multiprocessing.Process(target=_busy, daemon=True) for _ in range(args.busy)]
    for proc in busy:
        proc.start()
    if busy:
        time.sleep(1.0)
    samples: dict[int, list[dict[str, Any]]] = {i: [] for i in range(len(plan))}
    try:
        for rep in range(args.repeat):
            for i, (policy, backend, vectorization, n, threads) in enumerate(plan):
                r = run_one(policy, backend, vectorization, n, args, threads)
                samples[i].append(r)
                shares = ", ".join(f"{k} {100 * v:.0f}%" for k, v in r["shares"].items())
                print(
                    f"[{rep + 1}/{args.repeat}] {_label(r)}: {r['sps']:,.0f} steps/s ({shares})",
                    flush=True,
                )
    finally:
        for proc in busy:
            proc.terminate()
    runs = []
    for i in range(len(plan)):
        rs = samples[i]
        median = statistics.median(r["sps"] for r in rs)
        best = min(rs, key=lambda r: abs(r["sps"] - median))
        runs.append({**best, "sps": median, "sps_samples": [round(r["sps"], 1) for r in rs]})

    ratio: dict[str, float] = {}
    summary: dict[str, Any] = {}
    for policy in policies:
        ours = [r for r in runs if r["policy"] == policy and r["vectorization"] == "native"]
        auto = [r for r in ours if not r["hand_set_threads"]]
        best_ours = max(auto, key=lambda r: r["sps"])
        entry: dict[str, Any] = {
            "emurust_best_envs": best_ours["num_envs"],
            "emurust_sps": best_ours["sps"],
        }
        theirs = [r for r in runs if r["policy"] == policy and r["backend"] == "pyboy"]
        if theirs:
            best = max(theirs, key=lambda r: r["sps"])
            ratio[policy] = best_ours["sps"] / best["sps"]
            entry.update(pyboy_best_envs=best["num_envs"], pyboy_sps=best["sps"])
            entry["ratio"] = ratio[policy]
            print(
                f"{policy}: emurust at its best ({best_ours['num_envs']} envs) "
                f"{ratio[policy]:.2f}x PyBoy at its best ({best['num_envs']} workers)"
            )
        hand = [r for r in ours if r["hand_set_threads"]]
        if hand:
            top = max(hand, key=lambda r: r["sps"])
            default = next(r for r in auto if r["num_envs"] == top["num_envs"])
            entry["defaults_vs_best_hand_set"] = default["sps"] / top["sps"]
            print(
                f"{policy}: default threads {default['threads']} reach "
                f"{100 * default['sps'] / top['sps']:.0f}% of the best hand-set "
                f"({top['threads']['emulator']}x{top['threads']['update']}, "
                f"lag {top['update_lag']})"
            )
        null = [r for r in runs if r["policy"] == policy and r["vectorization"] == "null"]
        if null:
            entry["null_env_sps"] = null[0]["sps"]
            print(
                f"{policy}: the trainer alone reaches {null[0]['sps']:,.0f} env steps/s; "
                f"emurust runs at {100 * best_ours['sps'] / null[0]['sps']:.0f}% of that"
            )
        summary[policy] = entry
    result = {
        "game": "Starcatch",
        "device": args.device,
        "steps": args.steps,
        "repeat": args.repeat,
        "busy_processes": args.busy,
        "runs": runs,
        "summary": summary,
        "ratio": ratio,
        "machine": {
            "cpu": _cpu_model(),
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "cpus_in_affinity": len(os.sched_getaffinity(0)),
            "available_cpus": available_cpus(),
            "load_average_before": [round(x, 2) for x in load_before],
            "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
        },
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "ppo.json").write_text(json.dumps(result, indent=2))
    plotted = _plot(result, out / "ppo.png")
    print(f"wrote {out / 'ppo.json'}" + (" and ppo.png" if plotted else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
