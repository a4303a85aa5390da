"""One PyBoy-style script run with ``pyboy.PyBoy`` and with ``emurust.PyBoy``: outputs
compared step by step, and the script's speed with both, in the same run.

    python bench/pyboy_api.py [--steps 300] [--frames 4] [--roms DIR] [--rom LABEL ...]
                              [--out DIR]

The script is what RL code does with PyBoy 2.x: construct it (``window="null"``,
``sound_emulated=False``, a boot ROM, the game's ``.sym`` file when it has one),
``set_emulation_speed(0)``, register a hook (the VBlank vector, or a symbol), then per step:
``button(name, delay)``, ``tick(frames, render)`` with rendering every other step, and read
``frame_count``, WRAM (``memory[0xC000:0xE000]``), banked memory (``memory[0, 0xC000:...]``,
a ROM bank), the screen (``screen.ndarray``) on rendered steps and the hook count; it saves a
state a third of the way and loads it back two thirds of the way. Both emulators start from
the same boot ROM (``emurust.verify.sync_boot_rom``) so that they start in step; every
other input is the same (a seeded button sequence).

A third run starts ``emurust.PyBoy`` from the state PyBoy saved (``PyBoy.save_state``) at
the middle step and compares it with PyBoy from there on: PyBoy states load into emurust and
continue in step.

Outputs differ where PyBoy deviates from the hardware: emurust's level-3 lockstep
(``emurust verify --level 3``, docs/verification.md) proves which deviation it is; this
script reports the first differing step and what differs. Results:
``bench/results/pyboy_api.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import platform
import random
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import emurust
from emurust.games.starcatch import ROM_PATH as STARCATCH
from emurust.verify.lockstep import sync_boot_rom

HERE = Path(__file__).resolve().parent
GAMES = (
    ("2048", "homebrew/2048/2048.gb"),
    ("tobutobugirl", "homebrew/tobutobugirl/tobu.gb"),
    ("libbet", "homebrew/libbet/libbet.gb"),
    ("pandoras_blocks", "homebrew/pandoras-blocks/PandorasBlocks.gbc"),
    ("ucity", "homebrew/ucity/ucity.gbc"),
)
BUTTONS = ("a", "b", "start", "select", "up", "down", "left", "right")


def run_script(
    make: Callable[..., Any],
    rom: Path,
    boot: Path,
    steps: int,
    frames: int,
    seed: int,
    *,
    start_state: bytes | None = None,
    first_step: int = 0,
) -> tuple[list[dict[str, Any]], float]:
    """The PyBoy-style script; returns one output dict per step and the seconds the steps
    took (construction excluded)."""
    sym = rom.with_suffix(".sym")
    kwargs: dict[str, Any] = {"window": "null", "sound_emulated": False, "cgb": False}
    kwargs["bootrom"] = str(boot)
    if sym.is_file():
        kwargs["symbols"] = str(sym)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pb = make(str(rom), **kwargs)
    pb.set_emulation_speed(0)
    if pb.cartridge_title == "2048":
        from emurust._pyboy_adapter import quiet_2048_wrapper

        quiet_2048_wrapper(pb)
    if start_state is not None:
        pb.load_state(io.BytesIO(start_state))
    hits: list[int] = []
    if "VBlankISR" in pb.rom_symbols_inverse:
        pb.hook_register(None, "VBlankISR", lambda ctx: ctx.append(1), hits)
    else:
        pb.hook_register(0, 0x0040, lambda ctx: ctx.append(1), hits)
    rom_banks = max(1, rom.stat().st_size // 0x4000)
    rng = random.Random(seed)
    plan = [(rng.choice(BUTTONS), rng.randint(1, frames)) for _ in range(steps)]
    saved = io.BytesIO()
    out: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    for step in range(first_step, steps):
        button, hold = plan[step]
        pb.button(button, hold)
        render = step % 2 == 0
        pb.tick(frames, render)
        o: dict[str, Any] = {
            "step": step,
            "frame_count": pb.frame_count,
            "wram": hashlib.sha1(bytes(pb.memory[0xC000:0xE000])).hexdigest()[:12],
            "banked_wram": pb.memory[0, 0xC000:0xC008],
            "rom_bank": pb.memory[rom_banks - 1, 0x4000:0x4004],
            "hooks": len(hits),
        }
        if "score" in pb.rom_symbols_inverse:
            o["score"] = pb.memory[pb.symbol_lookup("score")[1]]
        if render:
            o["screen"] = hashlib.sha1(pb.screen.ndarray.tobytes()).hexdigest()[:12]
        out.append(o)
        if step == steps // 3:
            saved = io.BytesIO()
            pb.save_state(saved)
        if step == 2 * steps // 3 and first_step <= steps // 3:
            saved.seek(0)
            pb.load_state(saved)
    seconds = time.perf_counter() - t0
    pb.stop(save=False)
    return out, seconds


def tick_speed(make: Callable[..., Any], rom: Path, boot: Path, frames: int, ticks: int) -> float:
    """Frames per second of a plain ``tick(frames, render=False)`` loop with a button
    every tick and no hook (the part of an RL step the emulator itself costs)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pb = make(str(rom), window="null", sound_emulated=False, cgb=False, bootrom=str(boot))
    pb.set_emulation_speed(0)
    if pb.cartridge_title == "2048":
        from emurust._pyboy_adapter import quiet_2048_wrapper

        quiet_2048_wrapper(pb)
    pb.tick(120, False)
    t0 = time.perf_counter()
    for i in range(ticks):
        pb.button(BUTTONS[i % 8], 2)
        pb.tick(frames, False)
    seconds = time.perf_counter() - t0
    pb.stop(save=False)
    return ticks * frames / seconds


def native_tick_speed(rom: Path, boot: Path, frames: int, ticks: int) -> float:
    """The same loop on emurust's own ``GameBoy`` (frames ending at VBlank start)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gb = emurust.GameBoy(rom, boot_rom=boot.read_bytes())
    gb.tick(120, False)
    t0 = time.perf_counter()
    for i in range(ticks):
        gb.button(BUTTONS[i % 8], 2)
        gb.tick(frames, False)
    return ticks * frames / (time.perf_counter() - t0)


def pyboy_state_at(rom: Path, boot: Path, steps: int, frames: int, seed: int, at: int) -> bytes:
    """PyBoy's state after the script's first ``at`` steps (no save/load on the way)."""
    import pyboy

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pb = pyboy.PyBoy(
            str(rom), window="null", sound_emulated=False, cgb=False, bootrom=str(boot)
        )
    if pb.cartridge_title == "2048":
        from emurust._pyboy_adapter import quiet_2048_wrapper

        quiet_2048_wrapper(pb)
    rng = random.Random(seed)
    plan = [(rng.choice(BUTTONS), rng.randint(1, frames)) for _ in range(steps)]
    for step in range(at):
        pb.button(*plan[step])
        pb.tick(frames, step % 2 == 0)
    f = io.BytesIO()
    pb.save_state(f)
    pb.stop(save=False)
    return f.getvalue()


def compare(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> dict[str, Any]:
    same = sum(x == y for x, y in zip(a, b))
    first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), None)
    res: dict[str, Any] = {"steps": len(a), "identical_steps": same}
    if first is not None:
        x, y = a[first], b[first]
        res["first_difference"] = {
            "step": x["step"],
            "fields": sorted(k for k in x if x.get(k) != y.get(k)),
        }
    return res


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--frames", type=int, default=4, help="frames per tick (4)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ticks", type=int, default=200, help="ticks of 24 frames timed (200)")
    p.add_argument("--repeat", type=int, default=3, help="timing rounds, alternating (3)")
    p.add_argument("--roms", type=Path, default=None)
    p.add_argument("--rom", action="append", help="game label (repeatable; default: all)")
    p.add_argument("--out", type=Path, default=HERE / "results")
    args = p.parse_args()
    try:
        import pyboy
    except ImportError:
        sys.exit("PyBoy is needed: pip install pyboy==2.8.1 (the test extra)")
    roms_dir = args.roms or emurust.roms_dir()
    games = [("starcatch", STARCATCH)] + [
        (label, roms_dir / rel) for label, rel in GAMES if roms_dir and (roms_dir / rel).is_file()
    ]
    if args.rom:
        games = [g for g in games if g[0] in args.rom]
    boot = Path(tempfile.mkdtemp()) / "boot.bin"
    boot.write_bytes(sync_boot_rom())
    results: dict[str, Any] = {}
    print(
        f"{'game':16} {'steps':>5} {'same':>5}  {'PyBoy s':>8} {'emurust s':>9} {'ratio':>6} "
        f"{'tick fps PyBoy':>14} {'emurust':>8} {'ratio':>6} {'GameBoy':>8}  from PyBoy state"
    )
    for label, rom in games:
        rom = Path(rom)
        # Timings alternate between the two, `--repeat` rounds, median of each (the
        # machine is shared: load moves between rounds, not within one).
        t_pbs, t_ers, fps_pbs, fps_ers, fps_nat = [], [], [], [], []
        for _ in range(args.repeat):
            theirs, t = run_script(pyboy.PyBoy, rom, boot, args.steps, args.frames, args.seed)
            t_pbs.append(t)
            ours, t = run_script(emurust.PyBoy, rom, boot, args.steps, args.frames, args.seed)
            t_ers.append(t)
            fps_pbs.append(tick_speed(pyboy.PyBoy, rom, boot, 24, args.ticks))
            fps_ers.append(tick_speed(emurust.PyBoy, rom, boot, 24, args.ticks))
            fps_nat.append(native_tick_speed(rom, boot, 24, args.ticks))
        t_pb, t_er = statistics.median(t_pbs), statistics.median(t_ers)
        fps_pb, fps_er = statistics.median(fps_pbs), statistics.median(fps_ers)
        middle = args.steps // 2
        state = pyboy_state_at(rom, boot, args.steps, args.frames, args.seed, middle)
        # From the middle on, without the script's own save/load (already behind).
        cont, _ = run_script(
            emurust.PyBoy,
            rom,
            boot,
            args.steps,
            args.frames,
            args.seed,
            start_state=state,
            first_step=middle,
        )
        ref = [o for o in theirs if o["step"] >= middle]
        for o, r in zip(cont, ref):  # frame counts restart with the new machine; hooks too
            o["frame_count"], o["hooks"] = r["frame_count"], r["hooks"]
        same = compare(theirs, ours)
        from_state = compare(
            ref[: 2 * args.steps // 3 - middle], cont[: 2 * args.steps // 3 - middle]
        )
        results[label] = {
            "rom": str(rom),
            "pyboy_seconds": t_pb,
            "emurust_seconds": t_er,
            "samples": {
                "pyboy_s": t_pbs,
                "emurust_s": t_ers,
                "pyboy_fps": fps_pbs,
                "gameboy_fps": fps_nat,
                "emurust_fps": fps_ers,
            },
            "speedup": t_pb / t_er,
            "tick_fps": {
                "pyboy": fps_pb,
                "emurust": fps_er,
                "speedup": fps_er / fps_pb,
                "emurust_gameboy": statistics.median(fps_nat),
            },
            "same_script": same,
            "from_pyboy_state": from_state,
        }
        fs = from_state
        print(
            f"{label:16} {same['steps']:>5} {same['identical_steps']:>5}  {t_pb:>8.2f} "
            f"{t_er:>9.3f} {t_pb / t_er:>5.1f}x {fps_pb:>14.0f} {fps_er:>8.0f} "
            f"{fps_er / fps_pb:>5.1f}x {statistics.median(fps_nat):>8.0f}  "
            f"{fs['identical_steps']}/{fs['steps']} steps"
            + (
                f"; first difference {same['first_difference']}"
                if "first_difference" in same
                else ""
            )
            + (
                f"; from state: first difference {fs['first_difference']}"
                if "first_difference" in fs
                else ""
            )
        )
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / "pyboy_api.json"
    payload = {
        "settings": vars(args) | {"roms": str(roms_dir), "out": str(args.out)},
        "versions": {
            "emurust": emurust.__version__,
            "pyboy": pyboy.__version__ if hasattr(pyboy, "__version__") else "2.8.1",
        },
        "machine": platform.platform(),
        "results": results,
    }
    out.write_text(json.dumps(payload, indent=1, default=str))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
