"""Host instructions emurust executes per workload, counted by valgrind (cachegrind).

Timings on a shared machine move by 5-30 % from run to run; the number of instructions a
build executes for a fixed workload does not. This script counts them for the workloads of
`compare_pyboy.py` (headless frames and RL steps on cpu_instrs, Tobu Tobu Girl and 2048, from
the same post-warm-up state), for A/B comparisons of builds of the Python extension:

    python bench/count_instructions.py [--frames 1500] [--steps 125] [--label NAME]
                                       [--roms DIR] [--out DIR]

Each workload runs in its own `valgrind --tool=cachegrind --cache-sim=no` child process,
and so does a baseline that only starts Python, loads the ROM and runs the warm-up; the
table reports the difference (the workload alone) in millions, and per emulated frame.
Child processes get PYTHONHASHSEED=0 and single-threaded BLAS/rayon (idle BLAS threads made
counts vary by millions), after which counts repeat to within a few hundred instructions
(start-up: addresses, the environment). Results: bench/results/count_instructions[_LABEL].json.

Fewer instructions is not always faster (the Python extension and the example binaries can
lay out the interpreter differently, see bench/README.md), so confirm a change that wins
here with `compare_pyboy.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
sys.path.insert(0, str(HERE))

from compare_pyboy import (  # noqa: E402
    ACTIONS,
    RL_FRAME_SKIP,
    RL_SEED,
    _new_emurust,
    _new_vec,
    available_roms,
)

WARMUP = 120
WORKLOADS = ("headless", "rl")
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def run_workload(workload: str, rom: Path, frames: int, steps: int) -> None:
    """The child: warm up, then run one workload (or nothing, for the baseline)."""
    import numpy as np

    gb = _new_emurust(rom)
    gb.tick(WARMUP, render=False)
    if workload == "headless":
        gb.tick(frames, render=False)
    elif workload == "rl":
        vec = _new_vec(rom, gb.save_state())
        if vec is None:
            raise SystemExit("this build of emurust has no VecGameBoy")
        rng = random.Random(RL_SEED)
        actions = np.zeros(1, np.uint8)
        vec.reset()
        for _ in range(steps):
            actions[0] = rng.randrange(len(ACTIONS))
            vec.step(actions)
    elif workload != "baseline":
        raise SystemExit(f"unknown workload {workload!r}")


def count(workload: str, rom: Path, frames: int, steps: int) -> int:
    """Instructions of one child process under cachegrind."""
    env = dict(os.environ)
    env.update(
        PYTHONHASHSEED="0",
        OPENBLAS_NUM_THREADS="1",
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        RAYON_NUM_THREADS="1",
    )
    cmd = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        workload,
        str(rom),
        "--frames",
        str(frames),
        "--steps",
        str(steps),
    ]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    match = _REFS.search(out.stderr)
    if out.returncode != 0 or match is None:
        raise RuntimeError(f"valgrind run failed ({' '.join(cmd)}):\n{out.stderr[-2000:]}")
    return int(match.group(1).replace(",", ""))


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--frames", type=int, default=1500, help="headless frames (1500)")
    p.add_argument("--steps", type=int, default=125, help="RL steps of 24 frames (125)")
    p.add_argument("--label", default="", help="name for this build in the output file")
    p.add_argument("--roms", type=Path, default=None, help="ROM folder (emurust.roms_dir())")
    p.add_argument("--rom", action="append", help="ROM label (repeatable; default: all)")
    p.add_argument("--out", type=Path, default=RESULTS, help="output folder (bench/results)")
    p.add_argument("--child", nargs=2, metavar=("WORKLOAD", "ROM"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        run_workload(args.child[0], Path(args.child[1]), args.frames, args.steps)
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (Debian: apt-get install valgrind); nothing counted")
        return 0
    import emurust

    roms_dir = args.roms or Path(emurust.roms_dir())
    frames_of = {"headless": args.frames, "rl": args.steps * RL_FRAME_SKIP}
    results: list[dict[str, Any]] = []
    for label, path in available_roms(roms_dir, args.rom or ()):
        base = count("baseline", path, args.frames, args.steps)
        row: dict[str, Any] = {"rom": label, "baseline": base}
        for workload in WORKLOADS:
            net = count(workload, path, args.frames, args.steps) - base
            row[workload] = net
            row[f"{workload}_per_frame"] = net / frames_of[workload]
        results.append(row)
        print(
            f"{label:15} headless {row['headless'] / 1e6:9.1f} M ({row['headless_per_frame']:9,.0f}"
            f"/frame)   RL {row['rl'] / 1e6:9.1f} M ({row['rl_per_frame']:9,.0f}/frame)",
            flush=True,
        )
    args.out.mkdir(parents=True, exist_ok=True)
    name = f"count_instructions_{args.label}.json" if args.label else "count_instructions.json"
    out = args.out / name
    meta = {"frames": args.frames, "steps": args.steps, "warmup": WARMUP, "label": args.label}
    out.write_text(json.dumps({"settings": meta, "results": results}, indent=2))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
