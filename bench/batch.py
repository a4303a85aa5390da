"""Batch throughput, memory per env and save/restore cost: emurust.VecGameBoy vs PyBoy.

For each core count k (1..the CPUs this process may use) the whole process tree is pinned to
k CPUs and each contender steps environments for `--seconds`:

* emurust: one `VecGameBoy(num_envs=--num-envs, num_threads=k)`;
* PyBoy behind gymnasium `AsyncVectorEnv`: k worker processes, one env each;
* PyBoy behind PufferLib `pufferlib.vector.Multiprocessing`: k workers,
  `--puffer-envs-per-worker` envs each (skipped, with the reason, when PufferLib cannot be
  imported; bench/README.md says how to install it);
* "PyBoy ideal": k x the steps/s of one PyBoy env stepped in this process on one core, the
  most any PyBoy vectorisation could reach on k cores.

Every contender is measured in each of `--repeat` rounds, the rounds alternating contenders
and core counts (emurust, PyBoy AsyncVectorEnv, PyBoy PufferLib on 1 core, then on 2, ...),
and the median of the rounds is kept for every contender alike: a noisy moment then cannot
land on one contender or one count only. `--pyboy-workers` adds PyBoy worker counts beyond
the cores (more processes than cores; e.g. 48,64 on 16 cores), timed on all the allowed CPUs.

Every step has the same meaning everywhere (bench/pyboy_env.py): the action (an index into
the VecGameBoy default table, drawn from a seeded RNG, different per env) is held 8 frames,
24 frames are run, only the last is rendered, and the grey screen plus 8 RAM bytes are
observed. All environments of all contenders start from one state: PyBoy's after its boot ROM
and 120 frames, loaded into emurust (`compare_pyboy.common_start`, which checks that both then
stand at the same clock with the same registers and memory).

Then, per ROM: memory per env (VecGameBoy.bytes_per_env, and the resident-memory growth per
env in a fresh child process, for VecGameBoy and for PyBoy), save-state size and the cost of
save_state / load_state / snapshot / restore, against PyBoy's state size and save/load time.

    python bench/batch.py [--quick] [--threads 1,2] [--seconds 3] [--repeat 3] [--rom 2048] ...

Writes bench/results/batch.json and (with matplotlib) bench/results/batch.png.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import importlib.metadata
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import traceback
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Callable

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from compare_pyboy import (  # noqa: E402 - after the sys.path line, for `python bench/batch.py`
    ACTIONS,
    RAM_ADDRESSES,
    RESULTS,
    ROMS,
    _rss_kib,
    _table,
    available_roms,
    common_start,
    new_pyboy,
)

FRAME_SKIP = 24
HOLD_FRAMES = 8
WARMUP_FRAMES = 120  # frames PyBoy runs after its boot ROM before the common initial state
SEED = 1234
# Every contender goes back to its initial state every EPISODE_STEPS steps, so that all of
# them emulate the same stretch of each game (frames WARMUP_FRAMES .. +EPISODE_STEPS x 24)
# whatever their speed; a faster one would otherwise get further into a ROM (cpu_instrs:
# into cheaper or dearer tests) than a slower one. The reset costs are part of the rates.
EPISODE_STEPS = 40
MEM_ENVS = 256  # envs created in the memory child (VecGameBoy)
MEM_PYBOY = 16  # PyBoy instances created in the memory child


def _allowed_cpus() -> list[int]:
    if hasattr(os, "sched_getaffinity"):
        return sorted(os.sched_getaffinity(0))
    return list(range(os.cpu_count() or 1))


@contextlib.contextmanager
def _pinned(cpus: Sequence[int]) -> Iterator[None]:
    """Restricts this process (and the processes it starts) to ``cpus`` for the block."""
    if not hasattr(os, "sched_setaffinity"):
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, set(cpus))
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def _initial_states(path: Path) -> dict[str, Any]:
    """The common start (``compare_pyboy.common_start``): ``emurust`` and ``pyboy`` states
    of the same machine, after PyBoy's boot ROM and ``WARMUP_FRAMES`` frames."""
    return common_start(path, WARMUP_FRAMES)


def _actions(num_envs: int, count: int = 64) -> np.ndarray:
    """``count`` rows of per-env actions, cycled through by every contender."""
    rng = np.random.default_rng(SEED)
    return rng.integers(0, len(ACTIONS), size=(count, num_envs), dtype=np.uint8)


def _run_for(step: Callable[[np.ndarray], object], actions: np.ndarray, seconds: float) -> float:
    """Steps (after 2 warm-up steps) until ``seconds`` have passed; returns env steps/s."""
    step(actions[0])
    step(actions[1])
    done = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        step(actions[done % len(actions)])
        done += 1
        elapsed = time.perf_counter() - start
    return done * actions.shape[1] / elapsed


# ---------------------------------------------------------------------------- contenders


def vec_available() -> str | None:
    """None when emurust.VecGameBoy exists, else why not."""
    import emurust

    if hasattr(emurust, "VecGameBoy"):
        return None
    return "emurust.VecGameBoy is not in this build of emurust"


def bench_vec(path: Path, state: bytes, num_envs: int, threads: int, seconds: float) -> float:
    import emurust

    vec = emurust.VecGameBoy(
        path,
        num_envs,
        frame_skip=FRAME_SKIP,
        hold_frames=HOLD_FRAMES,
        num_threads=threads,
        obs="gray",
        ram_addresses=list(RAM_ADDRESSES),
        initial_state=state,
    )
    vec.reset(seed=0)
    everyone = np.ones(num_envs, dtype=bool)
    t = 0

    def step(actions: np.ndarray) -> object:
        nonlocal t
        if t == EPISODE_STEPS:
            vec.reset_envs(everyone)
            t = 0
        t += 1
        return vec.step(actions)

    return _run_for(step, _actions(num_envs), seconds)


def _pyboy_env_maker(path: Path, state: bytes) -> Callable[[], Any]:
    """The PyBoy env of every PyBoy contender: one ROM, the RL step, the common start."""
    from pyboy_env import PyBoyEnv

    return functools.partial(
        PyBoyEnv,
        str(path),
        FRAME_SKIP,
        HOLD_FRAMES,
        RAM_ADDRESSES,
        episode_steps=EPISODE_STEPS,
        initial_state=state,
    )


def bench_pyboy_serial(path: Path, state: bytes, seconds: float) -> float:
    env = _pyboy_env_maker(path, state)()
    try:
        env.reset(seed=0)
        return _run_for(lambda a: env.step(int(a[0])), _actions(1), seconds)
    finally:
        env.close()


def bench_async(path: Path, state: bytes, workers: int, seconds: float) -> float:
    from gymnasium.vector import AsyncVectorEnv

    make = _pyboy_env_maker(path, state)
    envs = AsyncVectorEnv([make] * workers, shared_memory=True, context="fork")
    try:
        envs.reset(seed=0)
        return _run_for(envs.step, _actions(workers), seconds)
    finally:
        envs.close()


def pufferlib_available() -> str | None:
    """None when pufferlib.vector imports, else why not (the exception, last line)."""
    try:
        quiet = io.StringIO()
        with contextlib.ExitStack() as stack:
            stack.enter_context(contextlib.redirect_stdout(quiet))
            stack.enter_context(contextlib.redirect_stderr(quiet))
            stack.enter_context(warnings.catch_warnings())
            warnings.simplefilter("ignore")
            importlib.import_module("pufferlib.vector")
            importlib.import_module("pufferlib.emulation")
    except Exception as e:  # any failure to import is a reason to skip, reported as such
        return f"cannot import pufferlib.vector: {type(e).__name__}: {e}"
    return None


def _puffer_env(path: str, state: bytes, buf: Any = None, seed: int | None = None) -> Any:
    import pufferlib.emulation
    from pyboy_env import PyBoyEnv

    return pufferlib.emulation.GymnasiumPufferEnv(
        env_creator=PyBoyEnv,
        env_kwargs={
            "rom": path,
            "frame_skip": FRAME_SKIP,
            "hold_frames": HOLD_FRAMES,
            "ram_addresses": RAM_ADDRESSES,
            "episode_steps": EPISODE_STEPS,
            "initial_state": state,
        },
    )


def bench_puffer(path: Path, state: bytes, workers: int, per_worker: int, seconds: float) -> float:
    import pufferlib.vector

    num_envs = workers * per_worker
    envs = pufferlib.vector.make(
        _puffer_env,
        env_kwargs={"path": str(path), "state": state},
        backend=pufferlib.vector.Multiprocessing,
        num_envs=num_envs,
        num_workers=workers,
        batch_size=num_envs,
        overwork=True,  # its physical-core check miscounts on VMs; we never exceed k CPUs
    )
    try:
        envs.reset(seed=0)
        return _run_for(envs.step, _actions(num_envs), seconds)
    finally:
        envs.close()


# ---------------------------------------------------------------------------- memory


def _mem_child(kind: str, rom: str) -> None:
    """Child process: resident-memory growth per env, printed as JSON bytes (or null)."""
    if kind == "vec":
        import emurust

        state = _initial_states(Path(rom))["emurust"]
        data = Path(rom).read_bytes()

        def make(n: int) -> Any:
            vec = emurust.VecGameBoy(
                data,
                n,
                num_threads=1,
                ram_addresses=list(RAM_ADDRESSES),
                initial_state=state,
            )
            vec.reset()
            vec.step(np.zeros(n, np.uint8))  # every buffer touched
            return vec

        keep = [make(1)]  # libraries loaded, allocator warm
        before = _rss_kib()
        keep.append(make(MEM_ENVS))
        after = _rss_kib()
        count = MEM_ENVS
    else:
        from pyboy_env import PyBoyEnv

        pb_state = _initial_states(Path(rom))["pyboy"]

        def make_pb() -> Any:
            env = PyBoyEnv(rom, FRAME_SKIP, HOLD_FRAMES, RAM_ADDRESSES, initial_state=pb_state)
            env.reset()
            env.step(0)
            return env

        keep = [make_pb()]
        before = _rss_kib()
        keep += [make_pb() for _ in range(MEM_PYBOY)]
        after = _rss_kib()
        count = MEM_PYBOY
    del keep
    print("null" if before is None or after is None else (after - before) * 1024 // count)


def _rss_per_env(kind: str, path: Path) -> int | None:
    cmd = [sys.executable, __file__, "--mem-child", kind, str(path)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=300)
    if proc.returncode != 0:
        print(f"  (RSS measurement for {kind} failed: {proc.stderr.strip()[-300:]})")
        return None
    value = json.loads(proc.stdout.strip().splitlines()[-1])
    return None if value is None else int(value)


def _per_call_us(call: Callable[[], object], calls: int = 200, batches: int = 15) -> float:
    """Median over ``batches`` of the mean time of ``calls`` back-to-back calls, in us."""
    samples = []
    for _ in range(batches):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        samples.append((time.perf_counter() - start) / calls)
    return statistics.median(samples) * 1e6


def bench_memory(path: Path, states: dict[str, Any], with_vec: bool) -> dict[str, Any]:
    from pyboy_env import pyboy_state

    out: dict[str, Any] = {}
    if with_vec:
        import emurust

        vec = emurust.VecGameBoy(
            path,
            4,
            num_threads=1,
            ram_addresses=list(RAM_ADDRESSES),
            initial_state=states["emurust"],
        )
        vec.reset()
        for row in _actions(4, 8):
            vec.step(row)
        saved = vec.save_state(1)
        snap = vec.snapshot(1)
        out["emurust"] = {
            "bytes_per_env": vec.bytes_per_env,
            "rss_per_env": _rss_per_env("vec", path),
            "state_bytes": len(saved),
            "save_state_us": _per_call_us(lambda: vec.save_state(1)),
            "load_state_us": _per_call_us(lambda: vec.load_state(1, saved)),
            "snapshot_us": _per_call_us(lambda: vec.snapshot(1)),
            "restore_us": _per_call_us(lambda: vec.restore(1, snap)),
        }
    pb = new_pyboy(path)
    try:
        pb.load_state(io.BytesIO(states["pyboy"]))
        pb_saved = pyboy_state(pb)
        out["pyboy"] = {
            "rss_per_env": _rss_per_env("pyboy", path),
            "state_bytes": len(pb_saved),
            "save_state_us": _per_call_us(lambda: pyboy_state(pb), calls=5, batches=7),
            "load_state_us": _per_call_us(
                lambda: pb.load_state(io.BytesIO(pb_saved)), calls=5, batches=7
            ),
        }
    finally:
        pb.stop(save=False)
    return out


# ---------------------------------------------------------------------------- report


def bench_rom(
    label: str,
    path: Path,
    ks: Sequence[int],
    cpus: Sequence[int],
    args: argparse.Namespace,
    skipped: dict[str, str],
    with_vec: bool,
) -> dict[str, Any]:
    """All contenders on one ROM for each core count in ``ks`` (and PyBoy for each worker
    count in ``args.pyboy_workers`` beyond them, on all of ``cpus``), in ``args.repeat``
    alternating rounds, the median of the rounds kept for each; then the memory section."""
    states = _initial_states(path)
    state, pb_state = states["emurust"], states["pyboy"]
    samples: dict[str, dict[int, list[float]]] = {}
    errors: dict[str, str] = {}

    def measure(key: str, k: int, run: Callable[[], float], cores: int | None = None) -> None:
        if key in skipped or key.split("_")[0] in skipped:
            return
        try:
            with _pinned(cpus[: k if cores is None else cores]):
                samples.setdefault(key, {}).setdefault(k, []).append(run())
        except Exception as e:  # one failing contender must not sink the others
            errors[f"{key}@{k}"] = f"{type(e).__name__}: {e}"
            print(f"  {key} on {k} cores failed: {errors[f'{key}@{k}']}")
            traceback.print_exc(file=sys.stderr)

    seconds = args.seconds
    per_worker = args.puffer_envs_per_worker
    extra = [w for w in args.pyboy_workers if w not in ks]
    # Rounds alternate every contender and core count, and every contender gets the median of
    # its rounds, so that drift and noise hit all alike (a noisy moment cannot land on one
    # contender, or on one core count only and fake the per-core gain).
    for _ in range(args.repeat):
        measure("pyboy_serial", 1, functools.partial(bench_pyboy_serial, path, pb_state, seconds))
        for k in ks:
            run = functools.partial(bench_vec, path, state, args.num_envs, k, seconds)
            measure("emurust", k, run)
            measure("pyboy_async", k, functools.partial(bench_async, path, pb_state, k, seconds))
            puffer = functools.partial(bench_puffer, path, pb_state, k, per_worker, seconds)
            measure("pyboy_puffer", k, puffer)
        for w in extra:  # more PyBoy worker processes than cores, on every allowed CPU
            run = functools.partial(bench_async, path, pb_state, w, seconds)
            measure("pyboy_async", w, run, cores=len(cpus))
            puffer = functools.partial(bench_puffer, path, pb_state, w, per_worker, seconds)
            measure("pyboy_puffer", w, puffer, cores=len(cpus))
    sps: dict[str, dict[int, float]] = {
        key: {k: statistics.median(v) for k, v in by_k.items()} for key, by_k in samples.items()
    }
    serial = sps.get("pyboy_serial", {}).get(1)
    if serial:
        sps["pyboy_ideal"] = {k: k * serial for k in ks}
    r: dict[str, Any] = {"rom": label, "path": str(path), "steps_per_s": sps}
    r["start"] = {k: states[k] for k in ("boot_frames", "cycles", "check")}
    r["samples"] = samples
    r["scaling"] = {
        key: _scaling({k: v[k] for k in v if k in ks})
        for key, v in sps.items()
        if key != "pyboy_ideal"
    }
    # PyBoy at its best: the worker count with the highest rate, for each PyBoy contender.
    r["pyboy_best"] = {
        key: max(v.items(), key=lambda kv: kv[1])
        for key, v in sps.items()
        if key in ("pyboy_async", "pyboy_puffer") and v
    }
    ours = sps.get("emurust", {})
    r["ratio"] = {
        other: {k: ours[k] / v[k] for k in v if k in ours and v[k]}
        for other, v in sps.items()
        if other.startswith("pyboy") and other != "pyboy_serial"
    }
    if errors:
        r["errors"] = errors
    if not args.no_memory:
        print(f"  memory/state {label} ...", file=sys.stderr, flush=True)
        r["memory"] = bench_memory(path, states, with_vec=with_vec)
    return r


def _scaling(sps: dict[int, float]) -> dict[str, dict[int, float]]:
    """Efficiency vs k x (1-core rate), and the gain of each added core in 1-core units."""
    base = sps.get(1)
    if not base:
        return {"efficiency": {}, "per_added_core": {}}
    ks = sorted(sps)
    eff = {k: sps[k] / (k * base) for k in ks}
    added = {k: (sps[k] - sps[p]) / ((k - p) * base) for p, k in zip(ks, ks[1:])}
    return {"efficiency": eff, "per_added_core": added}


def _plot(results: list[dict[str, Any]], out: Path) -> bool:
    try:
        matplotlib = importlib.import_module("matplotlib")
    except ImportError:
        return False
    matplotlib.use("Agg")
    plt = importlib.import_module("matplotlib.pyplot")
    n = len(results)
    fig, axes = plt.subplots(1, n + 1, figsize=(4.2 * (n + 1), 4.4), dpi=110)
    styles = {
        "emurust": ("emurust VecGameBoy", "#d95f02", "o-"),
        "pyboy_async": ("PyBoy + gymnasium AsyncVectorEnv", "#1b9e77", "s-"),
        "pyboy_puffer": ("PyBoy + PufferLib Multiprocessing", "#7570b3", "^-"),
        "pyboy_ideal": ("PyBoy ideal (k x 1 env serial)", "#999999", "--"),
    }
    for ax, r in zip(axes, results):
        for key, (label, color, style) in styles.items():
            sps = r["steps_per_s"].get(key)
            if not sps:
                continue
            ks = sorted(int(k) for k in sps)
            ax.plot(ks, [sps[k] for k in ks], style, color=color, label=label, markersize=5)
        ax.set_yscale("log")
        ax.set_xlabel("cores (threads / worker processes)")
        ax.set_title(r["rom"], fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.xaxis.get_major_locator().set_params(integer=True)
    axes[0].set_ylabel("env steps / s (24 frames per step, log)")
    axes[0].legend(fontsize=7, loc="lower right")
    ax = axes[-1]
    mem = [r for r in results if "emurust" in r.get("memory", {})]
    if mem:
        names = ["RSS / env", "state", "save+load us"]
        width = 0.8 / (2 * len(mem))
        for i, r in enumerate(mem):
            m = r["memory"]
            for j, (who, color) in enumerate((("emurust", "#d95f02"), ("pyboy", "#1b9e77"))):
                d = m[who]
                vals = [
                    (d["rss_per_env"] or 0) / 1024,
                    d["state_bytes"] / 1024,
                    d["save_state_us"] + d["load_state_us"],
                ]
                xs = [x + (j * len(mem) + i - len(mem) + 0.5) * width for x in range(3)]
                ax.bar(xs, vals, width, color=color, alpha=0.5 + 0.5 * (i + 1) / len(mem))
        ax.set_xticks(range(3), [f"{x}\n(KiB)" if x != names[2] else x for x in names])
        ax.set_yscale("log")
        ax.set_title(
            "per env: emurust (orange) vs PyBoy (green)\none bar per ROM, in the order above",
            fontsize=9,
        )
        ax.grid(True, axis="y", which="both", alpha=0.3)
    else:
        ax.set_axis_off()
    fig.suptitle("emurust VecGameBoy vs PyBoy: batch env steps/s (higher is better)")
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return True


def _fmt(v: float | None) -> str:
    return "n/a" if v is None else f"{v:,.0f}"


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rom", action="append", help="ROM label (repeatable; default: all)")
    p.add_argument("--roms", help="the ROM folder (default: emurust.roms_dir())")
    p.add_argument("--threads", help="core counts, e.g. 1,2,4 (default: 1..allowed CPUs)")
    p.add_argument("--num-envs", type=int, default=64, help="VecGameBoy envs (64)")
    p.add_argument("--puffer-envs-per-worker", type=int, default=2, help="(2)")
    p.add_argument("--seconds", type=float, default=3.0, help="timed seconds per point (3)")
    p.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="alternating rounds over all contenders and core counts; median of each (3)",
    )
    p.add_argument(
        "--pyboy-workers",
        default="",
        help="PyBoy worker counts beyond the core counts, e.g. 48,64 (timed on all allowed CPUs)",
    )
    p.add_argument("--quick", action="store_true", help="2048 only, 1.5 s per point")
    p.add_argument("--no-pyboy", action="store_true", help="emurust only")
    p.add_argument("--no-pufferlib", action="store_true", help="skip PufferLib")
    p.add_argument("--no-memory", action="store_true", help="skip the memory/state section")
    p.add_argument("--out", default=str(RESULTS), help="results folder (bench/results)")
    p.add_argument("--mem-child", nargs=2, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.mem_child:
        _mem_child(args.mem_child[0], args.mem_child[1])
        return 0
    args.pyboy_workers = sorted({int(x) for x in args.pyboy_workers.split(",") if x.strip()})
    if any(w < 1 for w in args.pyboy_workers):
        p.error("--pyboy-workers must be positive")
    if args.quick:
        args.rom = args.rom or ["2048"]
        args.seconds = min(args.seconds, 1.5)
        args.repeat = 1

    import emurust

    roms = Path(args.roms) if args.roms else emurust.roms_dir()
    cpus = _allowed_cpus()
    if args.threads:
        ks = sorted({int(x) for x in args.threads.split(",")})
        if ks[0] < 1 or ks[-1] > len(cpus):
            p.error(f"--threads must be within 1..{len(cpus)} (the CPUs this process may use)")
    else:
        ks = list(range(1, len(cpus) + 1))
    labels = {label for label, _ in ROMS}
    for r in args.rom or []:
        if r not in labels:
            p.error(f"unknown ROM {r!r}; one of {sorted(labels)}")

    skipped: dict[str, str] = {}
    no_vec = vec_available()
    if no_vec:
        skipped["emurust"] = no_vec
    if args.no_pyboy:
        skipped["pyboy"] = "--no-pyboy"
    else:
        try:
            importlib.import_module("gymnasium")
        except ImportError:
            skipped["pyboy_async"] = "gymnasium is not installed (pip install gymnasium)"
    if args.no_pufferlib or args.no_pyboy:
        skipped["pyboy_puffer"] = "--no-pufferlib" if args.no_pufferlib else "--no-pyboy"
    else:
        why = pufferlib_available()
        if why:
            skipped["pyboy_puffer"] = why
    versions = {}
    for pkg in ("emurust", "pyboy", "gymnasium", "pufferlib", "numpy"):
        try:
            versions[pkg] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            versions[pkg] = None

    print(
        f"batch env steps/s, {len(cpus)} CPUs allowed, cores {ks}"
        + (f", PyBoy also with {args.pyboy_workers} workers" if args.pyboy_workers else "")
        + f"; {args.seconds} s per point, median of {args.repeat} alternating rounds; "
        f"VecGameBoy num_envs={args.num_envs}; AsyncVectorEnv 1 env per worker; PufferLib "
        f"{args.puffer_envs_per_worker} envs per worker; step = hold {HOLD_FRAMES}, run "
        f"{FRAME_SKIP} frames, grey screen + {len(RAM_ADDRESSES)} RAM bytes; every env back to "
        f"its initial state every {EPISODE_STEPS} steps"
    )
    for who, why in skipped.items():
        print(f"skipped {who}: {why}")

    results: list[dict[str, Any]] = []
    for label, path in available_roms(roms, args.rom or ()):
        print(f"  running {label} ...", file=sys.stderr, flush=True)
        r = bench_rom(label, path, ks, cpus, args, skipped, with_vec=no_vec is None)
        results.append(r)
    if not results:
        print("no ROMs found; set EMURUST_ROMS")
        return 1

    for r in results:
        sps = r["steps_per_s"]
        print(f"\n{r['rom']}: env steps/s (24 frames each) by cores")
        cols = [c for c in ("emurust", "pyboy_async", "pyboy_puffer", "pyboy_ideal") if c in sps]
        rows = []
        for k in sorted({*ks, *args.pyboy_workers}):
            row = [str(k)] + [_fmt(sps[c].get(k)) for c in cols]
            for other in ("pyboy_async", "pyboy_puffer", "pyboy_ideal"):
                if other in r["ratio"] and k in r["ratio"][other]:
                    row.append(f"{r['ratio'][other][k]:.1f}x")
                elif other in cols and "emurust" in cols:
                    row.append("n/a")
            eff = r["scaling"].get("emurust", {}).get("efficiency", {}).get(k)
            add = r["scaling"].get("emurust", {}).get("per_added_core", {}).get(k)
            if "emurust" in cols:
                row.append("n/a" if eff is None else f"{eff:.2f}")
                row.append("-" if add is None else f"{add:.2f}")
            rows.append(row)
        names = {
            "emurust": "emurust",
            "pyboy_async": "PyBoy AsyncVectorEnv",
            "pyboy_puffer": "PyBoy PufferLib",
            "pyboy_ideal": "PyBoy ideal",
        }
        headers = ["cores"] + [names[c] for c in cols]
        if "emurust" in cols:
            headers += [f"vs {names[c]}" for c in cols if c != "emurust"]
            headers += ["emurust efficiency", "per added core"]
        print(_table(headers, rows, first_right=1))
    for r in results:
        for key, (k, v) in r["pyboy_best"].items():
            print(f"{r['rom']}: {key} at its best with {k} workers: {_fmt(v)} env steps/s")
    print(
        "\nrows beyond the core counts (--pyboy-workers): PyBoy worker processes on all "
        f"{len(cpus)} allowed CPUs.\n"
        "efficiency: steps/s on k cores / (k x steps/s on 1 core); per added core: the gain "
        "of each added core in units of the 1-core rate (1.00 = linear). PyBoy ideal: k x one "
        "PyBoy env stepped serially in this process on one core."
    )
    for who, why in skipped.items():
        print(f"skipped {who}: {why}")

    mem_rows = []
    for r in results:
        m = r.get("memory")
        if not m:
            continue
        e = m.get("emurust", {})
        pb = m["pyboy"]

        def kib(v: int | None) -> str:
            return "n/a" if v is None else f"{v / 1024:,.1f} KiB"

        def us(v: float | None) -> str:
            return "n/a" if v is None else f"{v:,.2f}"

        mem_rows.append(
            [
                r["rom"],
                kib(e.get("bytes_per_env")),
                kib(e.get("rss_per_env")),
                kib(pb["rss_per_env"]),
                kib(e.get("state_bytes")),
                kib(pb["state_bytes"]),
                us(e.get("save_state_us")),
                us(e.get("load_state_us")),
                us(e.get("snapshot_us")),
                us(e.get("restore_us")),
                f"{pb['save_state_us'] / 1000:,.1f}",
                f"{pb['load_state_us'] / 1000:,.1f}",
            ]
        )
    if mem_rows:
        print()
        print(
            _table(
                [
                    "ROM",
                    "emurust bytes_per_env",
                    "emurust RSS/env",
                    "PyBoy RSS/env",
                    "emurust state",
                    "PyBoy state",
                    "save us",
                    "load us",
                    "snapshot us",
                    "restore us",
                    "PyBoy save ms",
                    "PyBoy load ms",
                ],
                mem_rows,
                first_right=1,
            )
        )
        print(
            f"RSS/env: resident-memory growth per env in a fresh process ({MEM_ENVS} VecGameBoy "
            f"envs sharing one ROM; {MEM_PYBOY} PyBoy instances), after a step. Times: per call "
            "from Python, median of batches (emurust: VecGameBoy.save_state(i) / load_state(i, "
            "bytes) / snapshot(i) / restore(i, snap); PyBoy: save_state / load_state on BytesIO)."
        )

    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    payload = {
        "versions": versions,
        "python": sys.version.split()[0],
        "machine": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus_allowed": len(cpus),
        "cores": ks,
        "seconds_per_point": args.seconds,
        "repeat": args.repeat,
        "pyboy_workers_beyond_cores": args.pyboy_workers,
        "num_envs_emurust": args.num_envs,
        "envs_per_worker": {"pyboy_async": 1, "pyboy_puffer": args.puffer_envs_per_worker},
        "step": {
            "frame_skip": FRAME_SKIP,
            "hold_frames": HOLD_FRAMES,
            "obs": "gray (144, 160) uint8",
            "ram_addresses": list(RAM_ADDRESSES),
            "actions": [list(a) for a in ACTIONS],
            "warmup_frames": WARMUP_FRAMES,
            "episode_steps": EPISODE_STEPS,
        },
        "skipped": skipped,
        "results": results,
    }
    json_path = out_dir / "batch.json"
    json_path.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"\nwrote {json_path}")
    png = out_dir / "batch.png"
    if _plot(results, png):
        print(f"wrote {png}")
    else:
        print("matplotlib not installed: no plot (pip install matplotlib)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
