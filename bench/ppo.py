"""End-to-end PPO throughput: the same trainer, model and hyperparameters on the emurust
backend and on the PyBoy backend, same run, same machine.

Contenders (``emurust train``'s PPO, :mod:`emurust.rl.ppo`, on Starcatch):

* ``emurust``: :class:`emurust.GameBoyVectorEnv` (Rust threads, ``send``/``recv`` on two half
  batches) for each count of ``--emurust-envs`` (default 64), the best kept;
* ``pyboy``: the same spec on PyBoy 2.x at its fastest (``sound_emulated=False``...), one
  :class:`emurust.GameBoyEnv` per worker process behind Gymnasium ``AsyncVectorEnv`` (two of
  them, one per half batch, so stepping overlaps inference as for emurust), for each count
  of ``--pyboy-envs`` (default 4,8,16), the best kept: "each at its best number of envs".

Each trains ``--steps`` env steps (default 65,536) and reports env steps/s and the share of
the wall time spent in the environment (waiting in ``recv`` and handing work over in
``send``) and in the PPO update (GAE and the minibatch epochs; the rest is policy inference
and the rollout buffers), learner on ``--device`` (cpu). Writes ``bench/results/ppo.json``
and ``ppo.png``.

    python bench/ppo.py [--steps 65536] [--emurust-envs 64] [--pyboy-envs 4,8,16] [--device cpu]
                        [--torch-threads N]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def run_one(
    backend: str, vectorization: str, num_envs: int, args: argparse.Namespace
) -> dict[str, Any]:
    from emurust.rl.ppo import PPOConfig, train

    steps_per_rollout = max(8, 2048 // num_envs)  # about 2048 transitions per update
    config = PPOConfig(
        total_timesteps=args.steps,
        num_envs=num_envs,
        num_steps=steps_per_rollout,
        backend=backend,
        vectorization=vectorization,
        device=args.device,
        checkpoints=1,
        seed=args.seed,
        torch_threads=args.torch_threads,
    )
    with tempfile.TemporaryDirectory() as out:
        r = train(config, out, progress=False)
    return {
        "backend": backend,
        "vectorization": vectorization,
        "num_envs": num_envs,
        "num_steps": steps_per_rollout,
        "env_steps": r.global_step,
        "seconds": round(r.seconds, 2),
        "sps": r.sps,
        "env_share": r.env_seconds / r.seconds,
        "update_share": r.update_seconds / r.seconds,
    }


def _plot(result: dict[str, Any], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    runs = result["runs"]
    labels = [f"{r['backend']}\n{r['vectorization']}, {r['num_envs']} envs" for r in runs]
    fig, ax = plt.subplots(figsize=(8, 4))
    bars = ax.bar(
        labels,
        [r["sps"] for r in runs],
        color=["#4c72b0" if r["backend"] == "emurust" else "#dd8452" for r in runs],
    )
    ax.bar_label(
        bars,
        labels=[f"{r['sps']:.0f}\n(env {100 * r['env_share']:.0f}%)" for r in runs],
        fontsize=8,
    )
    ax.set_ylabel("PPO env steps/s (end to end)")
    ax.set_title(
        f"PPO on {result['game']}, learner on {result['device']}: "
        f"emurust {result['ratio']:.1f}x PyBoy"
    )
    ax.tick_params(axis="x", labelsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=65_536, help="env steps per run (65536)")
    p.add_argument("--emurust-envs", default="64", help="VecGameBoy env counts to try (64)")
    p.add_argument("--pyboy-envs", default="4,8,16", help="AsyncVectorEnv worker counts to try")
    p.add_argument("--device", default="cpu")
    p.add_argument(
        "--torch-threads", type=int, help="torch threads for the PPO update (default: torch's)"
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default=str(RESULTS))
    args = p.parse_args(argv)
    runs = []
    for backend, vectorization, counts in (
        ("emurust", "native", args.emurust_envs),
        ("pyboy", "async", args.pyboy_envs),
    ):
        for n in (int(x) for x in counts.split(",")):
            r = run_one(backend, vectorization, n, args)
            name = "emurust" if backend == "emurust" else "PyBoy, AsyncVectorEnv"
            print(
                f"{name}, {n} envs: {r['sps']:.0f} steps/s (env {100 * r['env_share']:.0f}%, "
                f"update {100 * r['update_share']:.0f}% of the time)"
            )
            runs.append(r)
    ours = max((r for r in runs if r["backend"] == "emurust"), key=lambda r: r["sps"])
    best = max((r for r in runs if r["backend"] == "pyboy"), key=lambda r: r["sps"])
    result = {
        "game": "Starcatch",
        "device": args.device,
        "runs": runs,
        "torch_threads": args.torch_threads,
        "best_emurust_envs": ours["num_envs"],
        "best_pyboy_envs": best["num_envs"],
        "ratio": ours["sps"] / best["sps"],
        "machine": {
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "cpus_allowed": len(os.sched_getaffinity(0)),
        },
    }
    print(
        f"end-to-end PPO: emurust at its best ({ours['num_envs']} envs) {result['ratio']:.2f}x "
        f"PyBoy at its best ({best['num_envs']} workers)"
    )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "ppo.json").write_text(json.dumps(result, indent=2))
    wrote = "ppo.json and ppo.png" if _plot(result, out / "ppo.png") else "ppo.json"
    print(f"wrote {out / wrote.split()[0]}" + (" and ppo.png" if "png" in wrote else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
