"""Speed, memory and save-state comparison of emurust and PyBoy, side by side in one run.

Both emulators run the SAME ROMs in the SAME process, pinned to ONE core, in alternating
timed runs (emurust, PyBoy, emurust, PyBoy, ...) so that machine noise hits both alike;
the median of the repetitions is reported. Every timed run of both starts from the same
state: PyBoy's after its boot ROM and `--warmup` frames, loaded into emurust
(`load_pyboy_state`), checked equal (clock, registers, memory) before timing. Modes:
headless, rendering every frame, and an RL step (button held 8 frames, 24 frames run, grey
screen and 8 RAM bytes read; also for `emurust.VecGameBoy` with one env on one thread when
the build has it). PyBoy runs at its fastest (`sound_emulated=False`, what RL code uses: the
headline ratios) and, in the same alternating runs, in its default configuration (sound
emulated; extra columns). See bench/README.md.

    python bench/compare_pyboy.py [--frames 3000] [--repeat 5] [--warmup 120] [--cpu N]
                                  [--no-pyboy-default]

Writes bench/results/compare_pyboy.json and, when matplotlib is importable,
bench/results/compare_pyboy.png.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import io
import json
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"

# (label, path under the ROM folder; an absolute path for the game emurust ships, which
# is always there)
ROMS = (
    ("cpu_instrs", "blargg/cpu_instrs/cpu_instrs.gb"),
    ("Tobu Tobu Girl", "homebrew/tobutobugirl/tobu.gb"),
    ("2048", "homebrew/2048/2048.gb"),
    (
        "Starcatch",
        str(Path(__file__).resolve().parents[1] / "python/emurust/games/data/starcatch.gb"),
    ),
)
RSS_INSTANCES = 16
RL_FRAME_SKIP = 24  # RL step: frames per step ...
RL_HOLD = 8  # ... the first RL_HOLD of them with the action's button held
RL_SEED = 1234
# (mode, emurust key, PyBoy key) in the fps results
MODES = (
    ("headless", "emurust", "pyboy"),
    ("render every frame", "emurust_render", "pyboy_render"),
    ("RL step", "emurust_rl", "pyboy_rl"),
    ("RL step, VecGameBoy 1 env", "vec_rl", "pyboy_rl"),
)
# The VecGameBoy default action table (rust/src/vec.rs DEFAULT_ACTIONS), as PyBoy button names.
ACTIONS: tuple[tuple[str, ...], ...] = (
    ("down",),
    ("left",),
    ("right",),
    ("up",),
    ("a",),
    ("b",),
    ("start",),
    (),
)
# RL step: eight RAM bytes read after every step (work RAM and high RAM, where RL setups
# read game state).
RAM_ADDRESSES: tuple[int, ...] = (0xC000, 0xC0A0, 0xC100, 0xCFFF, 0xD000, 0xDF00, 0xFF80, 0xFFA0)


def _pin(cpu: int | None) -> str:
    """Pins this process to one CPU (and caps any thread pool at one thread)."""
    os.environ["RAYON_NUM_THREADS"] = "1"
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (os.sched_setaffinity unavailable)"
    allowed = sorted(os.sched_getaffinity(0))
    chosen = allowed[-1] if cpu is None else cpu
    os.sched_setaffinity(0, {chosen})
    return f"pinned to CPU {chosen} (of {len(allowed)} allowed)"


def available_roms(roms: Path, only: Collection[str] = ()) -> Iterator[tuple[str, Path]]:
    """(label, path) of each benchmark ROM found under `roms` (only those labelled in `only`
    when it is not empty), with a note on stdout for each one missing."""
    for label, rel in ROMS:
        if only and label not in only:
            continue
        path = roms / rel
        if not path.is_file():
            print(f"note: {rel} not found, skipped")
            continue
        yield label, path


def import_pyboy() -> Any:
    """The ``pyboy`` module (the project's PyBoy adapter; emurust is imported only here, so
    that a PyBoy-only child process stays free of it)."""
    from emurust._pyboy_adapter import import_pyboy as adapter_import_pyboy

    return adapter_import_pyboy()


# PyBoy at its fastest, as RL code runs it: no sound emulation. The same run also measures
# PyBoy's default configuration, which emulates the APU even when nothing is sampled, beside
# it (`--no-pyboy-default` leaves that out).
PYBOY_SOUND_EMULATED = False


def new_pyboy(path: Path | str, sound_emulated: bool = PYBOY_SOUND_EMULATED) -> Any:
    """A PyBoy instance with no window, no frame limiter, DMG mode, and no sound emulation
    unless ``sound_emulated`` (PyBoy's default) is asked for (the project's PyBoy adapter,
    :func:`emurust._pyboy_adapter.new_pyboy`)."""
    from emurust._pyboy_adapter import new_pyboy as adapter_new_pyboy

    return adapter_new_pyboy(path, sound_emulated=sound_emulated)


def _new_emurust(path: Path) -> Any:
    import emurust

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", emurust.EmuRustWarning)
        return emurust.GameBoy(path)


# The most frames PyBoy's boot ROM may take before it hands over (it takes about 64).
MAX_BOOT_FRAMES = 600


def run_past_boot(pb: Any, rom: bytes, warmup: int) -> int:
    """Runs PyBoy (headless) until its boot ROM has handed over to the cartridge (0x0000-0x00FF
    reads the ROM's own bytes), then ``warmup`` more frames. Returns the frames its boot ROM
    took. emurust starts after the boot ROM, so counting frames from power-on in both would
    time different stretches of the game."""
    for frame in range(1, MAX_BOOT_FRAMES + 1):
        pb.tick(1, False, False)
        if bytes(pb.memory[0:0x100]) == rom[:0x100]:
            pb.tick(warmup, False, False)
            return frame
    raise RuntimeError(f"PyBoy's boot ROM did not hand over within {MAX_BOOT_FRAMES} frames")


def start_state_differences(gb: Any, pb: Any) -> list[str]:
    """Where an emurust machine and a PyBoy one differ: the clock (T-cycles since power-on),
    the CPU registers, VRAM, WRAM, OAM, HRAM and IE; an empty list when they stand at the same
    point in the same state."""
    out = []
    if gb.cycles != pb._cycles():
        out.append(f"clock: emurust {gb.cycles}, PyBoy {pb._cycles()}")
    rf = pb.register_file
    theirs = {
        "a": rf.A,
        "f": rf.F & 0xF0,
        "b": rf.B,
        "c": rf.C,
        "d": rf.D,
        "e": rf.E,
        "h": (rf.HL >> 8) & 0xFF,
        "l": rf.HL & 0xFF,
        "sp": rf.SP,
        "pc": rf.PC,
    }
    ours = dict(gb.registers)
    if pb.memory[rf.PC] == 0x76 and ours["pc"] == (rf.PC + 1) & 0xFFFF:
        # Halted: PyBoy keeps PC on the HALT opcode, emurust (as a DMG) past it; the same
        # machine state (the lockstep allowlist's pyboy-halt-pc).
        theirs["pc"] = ours["pc"]
    for name, value in theirs.items():
        if ours[name] != value:
            out.append(f"register {name}: emurust {ours[name]:#x}, PyBoy {value:#x}")
    for region, (start, end) in {
        "VRAM": (0x8000, 0xA000),
        "WRAM": (0xC000, 0xE000),
        "OAM": (0xFE00, 0xFEA0),
        "HRAM+IE": (0xFF80, 0x10000),
    }.items():
        a, b = bytes(gb.memory[start:end]), bytes(pb.memory[start:end])
        if a != b:
            n = sum(x != y for x, y in zip(a, b))
            first = next(i for i, (x, y) in enumerate(zip(a, b)) if x != y)
            out.append(f"{region}: {n} bytes differ, first at {start + first:#06x}")
    return out


def common_start(path: Path, warmup: int) -> dict[str, Any]:
    """One starting point for both emulators: PyBoy (at its fastest) runs its boot ROM and
    ``warmup`` more frames and saves its state; emurust loads that state
    (``GameBoy.load_pyboy_state``) and saves its own. Raises RuntimeError unless the two
    then stand at the same clock with the same registers and memory
    (:func:`start_state_differences`). Returns ``pyboy`` and ``emurust`` (the states),
    ``boot_frames``, ``cycles`` and ``check`` (what was compared)."""
    rom = path.read_bytes()
    pb = new_pyboy(path)
    try:
        boot_frames = run_past_boot(pb, rom, warmup)
        buf = io.BytesIO()
        pb.save_state(buf)
        pb_state = buf.getvalue()
        gb = _new_emurust(path)
        gb.load_pyboy_state(pb_state)
        differences = start_state_differences(gb, pb)
        if differences:
            raise RuntimeError(f"{path.name}: the start states differ: {'; '.join(differences)}")
        return {
            "pyboy": pb_state,
            "emurust": gb.save_state(),
            "boot_frames": boot_frames,
            "cycles": gb.cycles,
            "check": "same clock, registers, VRAM, WRAM, OAM, HRAM and IE",
        }
    finally:
        pb.stop(save=False)


def _new_vec(path: Path, initial_state: bytes) -> Any:
    """A one-env, one-thread `emurust.VecGameBoy` stepping like the RL step, or None when
    this build of emurust has no VecGameBoy."""
    import emurust

    if not hasattr(emurust, "VecGameBoy"):
        return None
    vec = emurust.VecGameBoy(
        path,
        1,
        frame_skip=RL_FRAME_SKIP,
        hold_frames=RL_HOLD,
        num_threads=1,
        obs="gray",
        ram_addresses=list(RAM_ADDRESSES),
        initial_state=initial_state,
    )
    table = tuple(tuple(b.lower() for b in action) for action in vec.action_table)
    if table != ACTIONS:
        raise RuntimeError(f"VecGameBoy default action table {table} != bench ACTIONS {ACTIONS}")
    return vec


def _timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def _median_us(run: Callable[[], object], count: int) -> float:
    return statistics.median(_timed(run) for _ in range(count)) * 1e6


def _rss_kib() -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _rss_child(emulator: str, rom: str, count: int) -> None:
    """Child process: RSS growth per instance for ``count`` live instances, each run 60 frames
    (so lazily touched buffers count). Prints bytes per instance."""
    path = Path(rom)
    make = _new_emurust if emulator == "emurust" else new_pyboy

    def run(gb: Any) -> Any:
        if emulator == "emurust":
            gb.tick(60, render=False)
        else:
            gb.tick(60, False, False)
        return gb

    keep = [run(make(path))]  # load the libraries and warm the allocator before the baseline
    before = _rss_kib()
    keep += [run(make(path)) for _ in range(count)]
    after = _rss_kib()
    if before is None or after is None:
        print("null")
    else:
        print(json.dumps((after - before) * 1024 // count))


def _rss_per_instance(emulator: str, path: Path) -> int | None:
    """RSS growth per live instance, measured in a fresh process (None where unsupported)."""
    if _rss_kib() is None:
        return None
    cmd = [sys.executable, __file__, "--rss-child", emulator, str(path), str(RSS_INSTANCES)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=300)
    if proc.returncode != 0:
        print(f"  (RSS measurement for {emulator} failed: {proc.stderr.strip()[-200:]})")
        return None
    value = json.loads(proc.stdout.strip().splitlines()[-1])
    return None if value is None else int(value)


def _fmt_fps(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f}"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], first_right: int = 2) -> str:
    """A Markdown table; columns from ``first_right`` on are right-aligned."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    right = set(range(first_right, len(headers)))

    def line(cells: Sequence[str]) -> str:
        parts = [
            c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))
        ]
        return "| " + " | ".join(parts) + " |"

    sep = "|" + "|".join(
        ("-" * (w + 1) + ":") if i in right else "-" * (w + 2) for i, w in enumerate(widths)
    )
    return "\n".join([line(headers), sep + "|", *(line(r) for r in rows)])


def bench_rom(
    label: str, path: Path, frames: int, repeat: int, warmup: int, pyboy_default: bool = True
) -> dict[str, Any]:
    """Times both emulators on one ROM: headless, rendering every frame, and RL steps; PyBoy
    at its fastest and, with ``pyboy_default``, also in its default configuration (keys
    ``pyboy_default*``), in the same alternating runs."""
    import numpy as np

    start = common_start(path, warmup)
    gb = _new_emurust(path)
    gb_rl = _new_emurust(path)  # its own instance: `screen_gray` switches grey conversion on
    pb = new_pyboy(path)
    pb_def = new_pyboy(path, sound_emulated=True) if pyboy_default else None
    try:
        # Both emulators start every timed run from the same point of the game: PyBoy's state
        # after its boot ROM and `warmup` frames, loaded into emurust too (common_start), so
        # that each repetition of each emulator emulates the same frames (a test ROM that
        # finishes, or a game that changes screens, would otherwise mix different workloads
        # into the median, and counting frames from power-on would put PyBoy, which runs its
        # boot ROM, some 64 frames behind emurust).
        gb_start = start["emurust"]
        pb_start = start["pyboy"]
        gb.load_state(gb_start)
        pb.load_state(io.BytesIO(pb_start))

        def emurust_run() -> None:
            gb.tick(frames, render=False)

        def pyboy_run(pb: Any = pb) -> None:
            pb.tick(frames, False, False)

        # Render every frame and fetch the picture as a NumPy array each time, as an agent
        # that observes every frame does: emurust's `screen` is a zero-copy view of its RGB
        # buffer, PyBoy's `screen.ndarray` a view of its RGBA buffer.
        def emurust_render() -> None:
            for _ in range(frames):
                gb.tick(1, True)
                gb.screen  # noqa: B018 - the access is what is timed

        def pyboy_render(pb: Any = pb) -> None:
            for _ in range(frames):
                pb.tick(1, True, False)
                pb.screen.ndarray  # noqa: B018

        # RL step (what a gym-style env does per agent step): press the action's button
        # for RL_HOLD frames, run RL_FRAME_SKIP frames rendering only the last one, copy
        # the grey screen and 8 RAM bytes into the agent's arrays. The same action sequence
        # (seeded) for every emulator; each run is `frames // RL_FRAME_SKIP` steps.
        rl_steps = max(1, frames // RL_FRAME_SKIP)
        rng = random.Random(RL_SEED)
        rl_actions = [rng.randrange(len(ACTIONS)) for _ in range(rl_steps)]
        obs = np.zeros((144, 160), np.uint8)
        ram = np.zeros(len(RAM_ADDRESSES), np.uint8)
        gb_rl.load_state(gb_start)
        gb_rl.tick(1, True)
        gb_screen = gb_rl.screen_gray  # a live view (switches grey conversion on)
        gb_mem = gb_rl.memory

        def emurust_rl() -> None:
            for a in rl_actions:
                for name in ACTIONS[a]:
                    gb_rl.button(name, RL_HOLD)
                gb_rl.tick(RL_FRAME_SKIP, True)  # renders only the last frame
                np.copyto(obs, gb_screen)
                for i, addr in enumerate(RAM_ADDRESSES):
                    ram[i] = gb_mem[addr]

        def pyboy_rl(pb: Any = pb) -> None:
            pb_mem = pb.memory
            for a in rl_actions:
                for name in ACTIONS[a]:
                    pb.button(name, RL_HOLD)
                pb.tick(RL_FRAME_SKIP, True, False)  # renders only the last frame
                np.copyto(obs, pb.screen.ndarray[:, :, 0])  # grey palette: R = G = B
                for i, addr in enumerate(RAM_ADDRESSES):
                    ram[i] = pb_mem[addr]

        runs: list[tuple[str, Callable[[], None], Callable[[], None]]] = [
            ("emurust", lambda: gb.load_state(gb_start), emurust_run),
            ("pyboy", lambda: pb.load_state(io.BytesIO(pb_start)), pyboy_run),
            ("emurust_render", lambda: gb.load_state(gb_start), emurust_render),
            ("pyboy_render", lambda: pb.load_state(io.BytesIO(pb_start)), pyboy_render),
            ("emurust_rl", lambda: gb_rl.load_state(gb_start), emurust_rl),
            ("pyboy_rl", lambda: pb.load_state(io.BytesIO(pb_start)), pyboy_rl),
        ]
        if pb_def is not None:
            # Its own warm-up (the same frames, from power-on: its sound state differs), at
            # the same point as the others (checked against emurust's start state).
            run_past_boot(pb_def, path.read_bytes(), warmup)
            gb.load_state(gb_start)
            differences = start_state_differences(gb, pb_def)
            if differences:
                raise RuntimeError(f"PyBoy with sound starts elsewhere: {'; '.join(differences)}")
            buf = io.BytesIO()
            pb_def.save_state(buf)
            pb_def_start = buf.getvalue()

            def load_def() -> None:
                pb_def.load_state(io.BytesIO(pb_def_start))

            runs += [
                ("pyboy_default", load_def, lambda: pyboy_run(pb_def)),
                ("pyboy_default_render", load_def, lambda: pyboy_render(pb_def)),
                ("pyboy_default_rl", load_def, lambda: pyboy_rl(pb_def)),
            ]
        vec = _new_vec(path, gb_start)
        if vec is not None:
            # The batched engine with one env on one thread, stepping into caller-owned
            # arrays (obs=, ram=) as a PufferLib-style loop does.
            act = np.zeros(1, np.uint8)
            vec_obs = np.zeros((1, 144, 160), np.uint8)
            vec_ram = np.zeros((1, len(RAM_ADDRESSES)), np.uint8)

            def vec_rl() -> None:
                for a in rl_actions:
                    act[0] = a
                    vec.step(act, obs=vec_obs, ram=vec_ram)

            runs.append(("vec_rl", vec.reset, vec_rl))
        samples: dict[str, list[float]] = {key: [] for key, _, _ in runs}
        for _ in range(repeat):  # alternate, so drift and noise hit both
            for key, load, run in runs:
                load()  # not timed
                n = rl_steps * RL_FRAME_SKIP if key.endswith("_rl") else frames
                samples[key].append(n / _timed(run))

        state = gb.save_state()
        buf = io.BytesIO()
        pb.save_state(buf)
        pb_state = buf.getvalue()

        def pb_save() -> None:
            out = io.BytesIO()
            pb.save_state(out)

        def pb_load() -> None:
            pb.load_state(io.BytesIO(pb_state))

        reps = 200
        result: dict[str, Any] = {
            "rom": label,
            "path": str(path),
            "start": {k: start[k] for k in ("boot_frames", "cycles", "check")},
            "cartridge": gb.cartridge_type_name,
            "fps": {k: statistics.median(v) for k, v in samples.items()},
            "fps_samples": samples,
            "emurust_instance_bytes": gb.instance_bytes,
            "state_bytes": {"emurust": len(state), "pyboy": len(pb_state)},
            "save_us": {
                "emurust": _median_us(gb.save_state, reps),
                "pyboy": _median_us(pb_save, reps),
            },
            "load_us": {
                "emurust": _median_us(lambda: gb.load_state(state), reps),
                "pyboy": _median_us(pb_load, reps),
            },
        }
    finally:
        pb.stop(save=False)
        if pb_def is not None:
            pb_def.stop(save=False)
    return result


def _plot(results: Sequence[dict[str, Any]], out: Path) -> bool:
    try:
        matplotlib = importlib.import_module("matplotlib")
    except ImportError:
        return False
    matplotlib.use("Agg")
    plt = importlib.import_module("matplotlib.pyplot")
    labels = [r["rom"] for r in results]
    keys = [
        ("emurust", "emurust (headless)", "#d95f02"),
        ("pyboy", "PyBoy (headless)", "#1b9e77"),
        ("emurust_render", "emurust (render every frame)", "#e7298a"),
        ("pyboy_render", "PyBoy (render every frame)", "#7570b3"),
        ("emurust_rl", "emurust GameBoy (RL step)", "#e6ab02"),
        ("vec_rl", "emurust VecGameBoy 1 env (RL step)", "#a6761d"),
        ("pyboy_rl", "PyBoy (RL step)", "#66a61e"),
    ]
    series = [
        (name, [r["fps"][key] for r in results], color)
        for key, name, color in keys
        if all(key in r["fps"] for r in results)
    ]
    n = len(series)
    width = 0.8 / n
    fig, ax = plt.subplots(figsize=(11, 5.6), dpi=120)
    for i, (name, values, color) in enumerate(series):
        xs = [j + (i - (n - 1) / 2) * width for j in range(len(labels))]
        bars = ax.bar(xs, values, width, label=name, color=color)
        for bar, v in zip(bars, values):
            ax.annotate(
                f"{v / 1000:,.0f}k" if v >= 10_000 else f"{v:,.0f}",
                (bar.get_x() + bar.get_width() / 2, v),
                ha="center",
                va="bottom",
                fontsize=6.5,
                rotation=90,
                xytext=(0, 2),
                textcoords="offset points",
            )
    ax.set_yscale("log")
    ax.axhline(60, color="grey", linestyle=":", linewidth=1)
    ax.annotate("real time (60 fps)", (-0.45, 60), ha="left", va="bottom", fontsize=7.5)

    def tick(r: dict[str, Any]) -> str:
        short = {"headless": "headless", "render every frame": "render", "RL step": "RL"}
        parts = [f"{short[m]} {r['ratio'][m]:.1f}x" for m in short if m in r["ratio"]]
        return r["rom"] + "\n" + ", ".join(parts)

    ax.set_xticks(range(len(labels)), [tick(r) for r in results], fontsize=8)
    ax.set_xlim(-0.5, len(labels) - 0.5)
    ax.set_ylabel("emulated frames per second (log scale, one core)")
    ax.set_title("emurust vs PyBoy: frames per second on one core (higher is better)")
    top = max(max(v) for _, v, _ in series)
    ax.set_ylim(30, top * 8)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3, fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return True


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--frames", type=int, default=3000, help="frames per timed run (3000)")
    p.add_argument("--repeat", type=int, default=5, help="timed runs per emulator (5)")
    p.add_argument(
        "--warmup",
        type=int,
        default=120,
        help="frames PyBoy runs after its boot ROM before the start state both load (120)",
    )
    p.add_argument("--cpu", type=int, help="CPU to pin to (default: the last allowed one)")
    p.add_argument(
        "--no-pyboy-default",
        dest="pyboy_default",
        action="store_false",
        help="leave out PyBoy's default configuration (sound emulated), measured beside "
        "PyBoy at its fastest (sound_emulated=False, the headline) by default",
    )
    p.add_argument("--roms", help="the ROM folder (default: emurust.roms_dir())")
    p.add_argument("--out", default=str(RESULTS), help="results folder (bench/results)")
    p.add_argument("--rss-child", nargs=3, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.rss_child:
        _rss_child(args.rss_child[0], args.rss_child[1], int(args.rss_child[2]))
        return 0

    pin = _pin(args.cpu)
    import emurust

    try:
        import_pyboy()
    except ImportError:
        print("PyBoy is not installed (pip install pyboy==2.8.1); nothing to compare")
        return 1
    roms = Path(args.roms) if args.roms else emurust.roms_dir()
    pyboy_version = importlib.metadata.version("pyboy")
    also = "; also PyBoy's default, sound emulated" if args.pyboy_default else ""
    print(
        f"emurust {emurust.__version__} vs PyBoy {pyboy_version} (window='null', "
        f"set_emulation_speed(0), sound_emulated=False{also}); {pin}"
    )
    print(
        f"{args.frames} frames x {args.repeat} alternating runs per emulator, all from one "
        f"start state (PyBoy's after its boot ROM and {args.warmup} frames, loaded into "
        f"emurust); median fps; no input (title/attract screens); ROMs from {roms}"
    )

    results: list[dict[str, Any]] = []
    for label, path in available_roms(roms):
        print(f"  running {label} ...", file=sys.stderr, flush=True)
        r = bench_rom(label, path, args.frames, args.repeat, args.warmup, args.pyboy_default)
        r["rss_per_instance"] = {
            "emurust": _rss_per_instance("emurust", path),
            "pyboy": _rss_per_instance("pyboy", path),
        }
        results.append(r)
    if not results:
        print("no ROMs found; set EMURUST_ROMS")
        return 1

    rows = []
    ratios: dict[str, list[float]] = {mode: [] for mode, _, _ in MODES}
    ratios_default: dict[str, list[float]] = {mode: [] for mode, _, _ in MODES}
    for r in results:
        fps = r["fps"]
        r["ratio"] = {}
        r["ratio_pyboy_default"] = {}
        for mode, ours, theirs in MODES:
            if ours not in fps:
                continue
            ratio = fps[ours] / fps[theirs]
            ratios[mode].append(ratio)
            r["ratio"][mode] = ratio
            row = [r["rom"], mode, _fmt_fps(fps[ours]), _fmt_fps(fps[theirs]), f"{ratio:.2f}x"]
            theirs_default = theirs.replace("pyboy", "pyboy_default")
            if theirs_default in fps:
                ratio_default = fps[ours] / fps[theirs_default]
                ratios_default[mode].append(ratio_default)
                r["ratio_pyboy_default"][mode] = ratio_default
                row += [_fmt_fps(fps[theirs_default]), f"{ratio_default:.2f}x"]
            rows.append(row)

    def geometric(values_by_mode: dict[str, list[float]]) -> dict[str, float]:
        return {
            mode: math.exp(sum(math.log(x) for x in values) / len(values))
            for mode, values in values_by_mode.items()
            if values
        }

    geomean = geometric(ratios)
    geomean_default = geometric(ratios_default)
    headers = ["ROM", "mode", "emurust fps", "PyBoy fps", "ratio"]
    if geomean_default:
        headers += ["PyBoy default fps", "ratio vs default"]
    print()
    print("PyBoy fps: sound_emulated=False (its fastest, the headline); PyBoy default: sound")
    print("emulated (PyBoy's default configuration), measured in the same alternating runs")
    print(_table(headers, rows))
    print(
        f"RL step rows: frames/s (steps/s = fps / {RL_FRAME_SKIP}); one step = action held "
        f"{RL_HOLD} frames, {RL_FRAME_SKIP} frames run, last one rendered, grey screen and "
        f"{len(RAM_ADDRESSES)} RAM bytes copied out"
    )
    if not any("vec_rl" in r["fps"] for r in results):
        print("(no emurust.VecGameBoy in this build: its RL step row is left out)")
    print(
        "\ngeometric mean of ratios (emurust / PyBoy at its fastest): "
        + ", ".join(f"{mode} {g:.2f}x" for mode, g in geomean.items())
    )
    if geomean_default:
        print(
            "geometric mean of ratios (emurust / PyBoy's default): "
            + ", ".join(f"{mode} {g:.2f}x" for mode, g in geomean_default.items())
        )

    def kib(n: int | None) -> str:
        return "n/a" if n is None else f"{n / 1024:,.1f} KiB"

    mem_rows = [
        [
            r["rom"],
            r["cartridge"],
            kib(r["emurust_instance_bytes"]),
            kib(r["rss_per_instance"]["emurust"]),
            kib(r["rss_per_instance"]["pyboy"]),
            kib(r["state_bytes"]["emurust"]),
            kib(r["state_bytes"]["pyboy"]),
        ]
        for r in results
    ]
    print()
    print(
        _table(
            [
                "ROM",
                "cartridge",
                "emurust instance_bytes",
                "emurust RSS/instance",
                "PyBoy RSS/instance",
                "emurust state",
                "PyBoy state",
            ],
            mem_rows,
        )
    )
    time_rows = [
        [
            r["rom"],
            f"{r['save_us']['emurust']:.1f}",
            f"{r['save_us']['pyboy']:.1f}",
            f"{r['load_us']['emurust']:.1f}",
            f"{r['load_us']['pyboy']:.1f}",
        ]
        for r in results
    ]
    print()
    print(
        _table(
            ["ROM", "emurust save us", "PyBoy save us", "emurust load us", "PyBoy load us"],
            time_rows,
            first_right=1,
        )
    )
    print(
        "\ninstance_bytes: emurust's own count of one machine's memory, the ROM image (shared "
        f"between instances) excluded. RSS/instance: resident-memory growth per live instance over "
        f"{RSS_INSTANCES} instances in a fresh process, each loaded from the file (emurust "
        "instances built from the same bytes share one copy of the ROM and its run table; each "
        "PyBoy instance holds its own). "
        "State: len(gb.save_state()) and PyBoy.save_state(BytesIO) size. Save/load: median of "
        "200, in-memory."
    )

    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    payload = {
        "emurust_version": emurust.__version__,
        "pyboy_version": pyboy_version,
        "pyboy_sound_emulated": PYBOY_SOUND_EMULATED,
        "pyboy_default_measured": args.pyboy_default,
        "geomean_ratio_pyboy_default": geomean_default,
        "python": sys.version.split()[0],
        "machine": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "pinning": pin,
        "frames": args.frames,
        "repeat": args.repeat,
        "warmup": args.warmup,
        "geomean_ratio_headless": geomean["headless"],
        "geomean_ratio_render": geomean["render every frame"],
        "geomean_ratio": geomean,
        "render_mode": "tick(1, render) per frame + fetching the screen array "
        "(emurust gb.screen, PyBoy pyboy.screen.ndarray)",
        "rl_step": {
            "frame_skip": RL_FRAME_SKIP,
            "hold_frames": RL_HOLD,
            "ram_addresses": list(RAM_ADDRESSES),
            "actions": [list(a) for a in ACTIONS],
            "seed": RL_SEED,
            "fps_unit": f"frames/s; steps/s = fps / {RL_FRAME_SKIP}",
            "emurust": "gb.button(name, hold); gb.tick(frame_skip, True); copy gb.screen_gray "
            "and gb.memory[addr] x8",
            "pyboy": "pyboy.button(name, hold); pyboy.tick(frame_skip, True, False); copy "
            "pyboy.screen.ndarray[:, :, 0] and pyboy.memory[addr] x8",
            "vec": "VecGameBoy(num_envs=1, num_threads=1).step(actions, obs=, ram=)",
        },
        "results": results,
    }
    json_path = out_dir / "compare_pyboy.json"
    json_path.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"\nwrote {json_path}")
    png = out_dir / "compare_pyboy.png"
    if _plot(results, png):
        print(f"wrote {png}")
    else:
        print("matplotlib not installed: no plot (pip install matplotlib)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
