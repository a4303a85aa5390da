"""Speed of emurust's Game Boy Color against PyBoy 2.8.1 with ``cgb=True`` at its fastest
(``window="null"``, ``sound_emulated=False``, ``set_emulation_speed(0)``), one core, in
alternating timed runs (emurust, PyBoy, emurust, ...) in one process, so that machine noise
hits both alike; the median of the repetitions is reported.

Both start from one state, as in ``bench/compare_pyboy.py``: PyBoy runs µCity (CGB-enhanced,
double speed) from its power-on past ``--warmup`` frames (through PyBoy's own CGB boot ROM),
then a button script (Random Map, seed 00, into the city, whose simulation then runs); it
saves its state there, and emurust starts from that state (``GameBoy.from_pyboy_state``: the
CGB's banks, palettes, HDMA and speed are taken over). The share of equal screen pixels and
WRAM bytes (every bank) at the end of timing is printed: the two run the same city, so a low
share means they did not do the same work (µCity's random events, such as "A fire has
started somewhere!", stop the game for a message; a city that stopped idles and measures
little). Every timed run starts from that state (each emulator reloads it), so the runs time
the same stretch.

``--warm N`` runs the stretch N times untimed per emulator before timing: with the feature
``jit`` (compiled ROM code, issue 41), emurust compiles the code it runs during its first runs,
which the median of a few short runs then includes; ``--warm`` measures the state a long
training run is in.

    python bench/compare_pyboy_cgb.py [--rom PATH] [--frames 200] [--repeat 5] [--warm 0] [--cpu N]

Writes bench/results/compare_pyboy_cgb.json.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from compare_pyboy import _pin  # noqa: E402

# (button, frames after it): from µCity's title to a random map's city, simulation running.
SCRIPT = (
    ("start", 60), ("down", 30), ("a", 60), ("a", 60), ("start", 120), ("a", 600), ("start", 600),
    ("b", 300),
)  # fmt: skip


def _timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def _same_wram(gb: Any, pb: Any) -> float:
    """The share of equal bytes over the CGB's eight WRAM banks."""
    from emurust._pyboy_adapter import cgb_banks

    theirs = cgb_banks(pb)[:8]
    equal = total = 0
    for bank, data in enumerate(theirs):
        mine = gb._read_bank("wram", bank, 0, len(data))
        equal += sum(a == b for a, b in zip(mine, data))
        total += len(data)
    return equal / total


def main(argv: Sequence[str] | None = None) -> int:
    import emurust
    from emurust._pyboy_adapter import import_pyboy, new_pyboy

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rom", default=str(emurust.roms_dir() / "homebrew/ucity/ucity.gbc"))
    p.add_argument("--frames", type=int, default=200, help="frames per timed run (200)")
    p.add_argument("--repeat", type=int, default=5, help="timed runs per emulator (5)")
    p.add_argument("--warmup", type=int, default=300, help="frames before timing (300)")
    p.add_argument(
        "--warm",
        type=int,
        default=0,
        help="untimed runs of the stretch per emulator before the timed ones (0): with an "
        "emurust built with the feature jit, the code the stretch runs is compiled by then",
    )
    p.add_argument("--cpu", type=int, help="CPU to pin to (default: the last allowed one)")
    p.add_argument("--out", default=str(HERE / "results"))
    args = p.parse_args(argv)
    rom = Path(args.rom)
    if not rom.is_file():
        print(f"{rom} not found: nothing to measure")
        return 0
    pinned = _pin(args.cpu)
    pyboy = import_pyboy()
    pb = new_pyboy(rom, cgb=True, pyboy=pyboy)
    pb.tick(args.warmup, False)
    for button, wait in SCRIPT:
        pb.button(button)
        pb.tick(wait, True)
    # Each timed run starts here: the same stretch of the game every time, whatever phase of
    # the city's simulation a longer run would reach.
    theirs_start = io.BytesIO()
    pb.save_state(theirs_start)
    gb = emurust.GameBoy.from_pyboy_state(rom, theirs_start.getvalue())
    ours_start = gb.save_state()
    results: dict[str, Any] = {}
    for mode, render in (("headless", False), ("render every frame", True)):
        runs: dict[str, list[float]] = {"emurust": [], "pyboy": []}

        def ours(render: bool = render) -> None:
            if render:
                for _ in range(args.frames):
                    gb.tick(1, render=True)
            else:
                gb.tick(args.frames, render=False)

        def theirs(render: bool = render) -> None:
            if render:
                for _ in range(args.frames):
                    pb.tick(1, True)
            else:
                pb.tick(args.frames, False)

        for i in range(args.warm + args.repeat):
            # Every run from the start of timing (each emulator its own state).
            gb.load_state(ours_start)
            t_ours = _timed(ours)
            theirs_start.seek(0)
            pb.load_state(theirs_start)
            t_theirs = _timed(theirs)
            if i >= args.warm:
                runs["emurust"].append(t_ours)
                runs["pyboy"].append(t_theirs)
        fps = {k: args.frames / statistics.median(v) for k, v in runs.items()}
        results[mode] = {"fps": fps, "ratio": fps["emurust"] / fps["pyboy"], "runs_s": runs}
        print(
            f"{mode}: emurust {fps['emurust']:,.0f} fps, PyBoy(cgb=True) {fps['pyboy']:,.0f} "
            f"fps: {fps['emurust'] / fps['pyboy']:.1f}x"
        )
    gb.tick(1)
    pb.tick(1, True)
    same_end = float((gb.screen == pb.screen.ndarray[..., :3]).all(axis=2).mean())
    wram_same = _same_wram(gb, pb)
    print(
        f"at the end of the last run: {same_end:.3f} of the screen pixels and {wram_same:.3f} "
        "of the WRAM bytes (every bank) are the same"
        + ("" if same_end > 0.9 else " (NOT the same work: one game stopped, e.g. for a message)")
    )
    assert gb.model == "cgb"
    assert gb.cgb_mode
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    meta = {
        "rom": rom.name,
        "frames": args.frames,
        "repeat": args.repeat,
        "warmup": args.warmup,
        "warm_runs": args.warm,
        "script": SCRIPT,
        "start": "PyBoy's state after the warm-up and the script, loaded by both",
        "same_pixels_at_end": same_end,
        "same_wram_at_end": wram_same,
        "pinned": pinned,
        "python": platform.python_version(),
        "machine": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "emurust": emurust.__version__,
        "pyboy": pyboy.__version__ if hasattr(pyboy, "__version__") else "2.8.1",
    }
    (out / "compare_pyboy_cgb.json").write_text(json.dumps({"meta": meta, **results}, indent=1))
    print(f"{pinned}; wrote {out / 'compare_pyboy_cgb.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
