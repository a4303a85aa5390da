"""Cost of emurust.PyBoy's per-step observations next to a plain frame (issue 39).

Alternates, in one run: ``tick(1, render=False)``, ``game_area()`` and the 40
``get_sprite(i)`` calls, and reports the median of each (and the same calls on PyBoy 2.8.1
when it is installed); then ``tick(n)`` with ``sound_emulated=True`` against ``False``
(the last frame of each tick sampled, as PyBoy does). Ratios measured alternating hold
better than absolute figures on a busy machine.

    python bench/pyboy_game_area.py [--rounds 400] [ROM ...]
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import emurust
from emurust.games.starcatch import ROM_PATH as STARCATCH


def _median_us(fn: Callable[[], Any], samples: list[float]) -> None:
    t0 = time.perf_counter()
    fn()
    samples.append((time.perf_counter() - t0) * 1e6)


def measure(make: Callable[[], Any], rounds: int) -> dict[str, float]:
    pb = make()
    pb.tick(120, render=False)
    tick: list[float] = []
    area: list[float] = []
    sprites: list[float] = []
    for _ in range(rounds):
        _median_us(lambda: pb.tick(1, render=False), tick)
        _median_us(pb.game_area, area)
        _median_us(lambda: [pb.get_sprite(i) for i in range(40)], sprites)
    pb.stop(save=False)
    return {
        "tick(1) headless us": statistics.median(tick),
        "game_area() us": statistics.median(area),
        "40 x get_sprite us": statistics.median(sprites),
    }


def sound_cost(rom: Path, rounds: int) -> list[str]:
    """``tick(n, render=False)`` with sound sampled against without, alternating."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        on = emurust.PyBoy(str(rom), sound_emulated=True)
        off = emurust.PyBoy(str(rom), sound_emulated=False)
    for pb in (on, off):
        pb.tick(200, render=False)
    lines = []
    for n in (1, 24):
        t_on: list[float] = []
        t_off: list[float] = []
        for _ in range(rounds):
            _median_us(lambda n=n: on.tick(n, render=False), t_on)
            _median_us(lambda n=n: off.tick(n, render=False), t_off)
        a, b = statistics.median(t_on), statistics.median(t_off)
        lines.append(f"  tick({n}): sound on {a:.1f} us, off {b:.1f} us: x{a / b:.2f}")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("roms", nargs="*", type=Path)
    ap.add_argument("--rounds", type=int, default=400)
    args = ap.parse_args()
    roms = args.roms or [Path(STARCATCH)]
    try:
        from emurust._pyboy_adapter import import_pyboy

        pyboy: Any = import_pyboy(exact=True)
    except ImportError:
        pyboy = None
    for rom in roms:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rows = {"emurust.PyBoy": measure(lambda r=rom: emurust.PyBoy(str(r)), args.rounds)}
            if pyboy is not None:
                rows["PyBoy 2.8.1"] = measure(
                    lambda r=rom: pyboy.PyBoy(str(r), window="null", sound_emulated=False),
                    args.rounds,
                )
        print(f"{rom.name}:")
        for name, r in rows.items():
            t = r["tick(1) headless us"]
            cells = ", ".join(f"{k} {v:.1f}" for k, v in r.items())
            print(f"  {name}: {cells}; game_area/tick {r['game_area() us'] / t:.2f}")
        print("\n".join(sound_cost(rom, args.rounds)))


if __name__ == "__main__":
    main()
