"""The two emulators as :class:`~emurust.conformance.rules.Probe` objects
(:func:`emurust_probe`, :func:`pyboy_probe`) and :func:`run_one`, one ROM through the rules."""

from __future__ import annotations

import contextlib
import os
import time
import warnings
from pathlib import Path
from typing import Any, Callable

import emurust
from emurust._pyboy_adapter import import_pyboy
from emurust.conformance.rules import Probe, Verdict, cgb_cells, run_rules, short
from emurust.conformance.suites import FRAME_CYCLES, GAMBATTE_SOUND_RATE, RomSpec


def emurust_probe(rom: str | os.PathLike[str] | bytes, model: str = "dmg") -> Probe:
    """A :class:`Probe` over a fresh :class:`emurust.GameBoy` of ``model`` (frames run with
    render=False). A CGB's screen is read through :func:`cgb_cells`."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", emurust.EmuRustWarning)
        gb = emurust.GameBoy(rom, model=model)
    cgb = model == "cgb"

    def step(n: int) -> None:
        gb.tick(n, render=False)

    def registers() -> tuple[int, ...]:
        r = gb.registers
        return (r["b"], r["c"], r["d"], r["e"], r["h"], r["l"])

    def screenshot(n: int) -> Any:
        gb.tick(n, render=True)  # draws only the last frame
        return gb.screen_shades.copy()

    def run_cycles(cycles: int, sound: bool) -> tuple[int, Any, Any]:
        if sound and gb.sound_sample_rate is None:
            gb.sound_sample_rate = GAMBATTE_SOUND_RATE
        start, frames = gb.cycles, 0
        while gb.cycles - start <= cycles:
            gb.tick(1, render=True)
            frames += 1
        shades = cgb_cells(gb.screen) if cgb else gb.screen_shades.copy()
        return frames, shades, gb.sound.copy() if sound else None

    return Probe(
        step=step,
        registers=registers,
        peek=lambda addr: gb.memory[addr],
        serial=lambda: gb.serial_output,
        screenshot=screenshot,
        run_cycles=run_cycles,
    )


def pyboy_available() -> bool:
    """Whether PyBoy can be imported."""
    try:
        import_pyboy()
    except Exception:
        return False
    return True


PYBOY_BOOT_FRAMES_MAX = 600  # PyBoy's DMG boot ROM hands over after about 2.5 s


def pyboy_probe(rom: str | os.PathLike[str], model: str = "dmg") -> Probe:
    """A :class:`Probe` over a headless PyBoy in DMG mode (``cgb=False``; ``cgb=True`` for
    ``model="cgb"``), its built-in boot ROM, no frame limiter, log level ERROR.

    Serial: PyBoy 2.8.1 has no public serial API; ``PyBoy._serial()`` returns (and clears)
    the bytes the game wrote to SB (0xFF01) since the last call, in a 1024-byte ring, so it
    is drained after every frame. Battery RAM is never written back (``stop(save=False)``)."""
    pyboy = import_pyboy()
    cgb = model == "cgb"
    pb = pyboy.PyBoy(os.fspath(rom), window="null", cgb=cgb, log_level="ERROR")
    pb.set_emulation_speed(0)
    out = bytearray()

    def drain() -> None:
        data = pb._serial()
        if isinstance(data, str):
            out.extend(data.encode("latin-1", errors="replace"))
        else:
            out.extend(bytes(data))

    def step(n: int) -> None:
        for _ in range(n):
            pb.tick(1, False, False)
            drain()

    # Run PyBoy's boot ROM first (until it unmaps itself), so that frame budgets count from
    # the cartridge's start as they do for emurust; fixed-budget rules (gbmicrotest) would
    # otherwise stop PyBoy inside its boot animation.
    head = Path(os.fspath(rom)).read_bytes()[:0x100]
    for _ in range(PYBOY_BOOT_FRAMES_MAX):
        if len(head) < 0x100 or bytes(pb.memory[0x0000:0x0100]) == head:
            break
        step(1)

    def registers() -> tuple[int, ...]:
        r = pb.register_file
        hl = int(r.HL)
        return (int(r.B), int(r.C), int(r.D), int(r.E), hl >> 8, hl & 0xFF)

    def screenshot(n: int) -> Any:
        import numpy as np

        for _ in range(n):
            pb.tick(1, True, False)  # every frame rendered: PyBoy's best case
            drain()
        if cgb:
            return cgb_cells(np.asarray(pb.screen.ndarray))
        rgb = np.asarray(pb.screen.ndarray)[..., :3].astype(np.int32)
        # PyBoy's default DMG palette: FFFFFF, 999999, 555555, 000000 (shades 0..3).
        levels = np.array([0xFF, 0x99, 0x55, 0x00])
        return np.abs(rgb.mean(axis=2)[..., None] - levels).argmin(axis=2).astype(np.uint8)

    def run_cycles(cycles: int, sound: bool) -> tuple[int, Any, Any]:
        # PyBoy's frames are 70,224 T-cycles each once its boot ROM has handed over.
        frames = cycles // FRAME_CYCLES + 1
        shades = screenshot(frames)
        return frames, shades, pb.sound.ndarray.copy() if sound else None

    return Probe(
        step=step,
        registers=registers,
        peek=lambda addr: int(pb.memory[addr]),
        serial=lambda: bytes(out),
        close=lambda: pb.stop(save=False),
        screenshot=screenshot,
        run_cycles=run_cycles,
    )


def run_one(make: Callable[[], Probe], spec: RomSpec) -> Verdict:
    """Builds a probe and runs the rules; any exception becomes an ``error`` verdict."""
    start = time.perf_counter()
    try:
        probe = make()
    except Exception as e:
        return Verdict("error", 0, time.perf_counter() - start, short(f"{type(e).__name__}: {e}"))
    try:
        return run_rules(probe, spec)
    except Exception as e:
        return Verdict("error", 0, time.perf_counter() - start, short(f"{type(e).__name__}: {e}"))
    finally:
        with contextlib.suppress(Exception):
            probe.close()
