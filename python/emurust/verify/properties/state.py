"""Level 1's whole-machine checks: save/load round trips and rendering on/off leave the
machine identical."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

import emurust
from emurust.verify.machine import new_gameboy
from emurust.verify.result import Result, Status


def input_script(seed: int, frames: int, start: int = 0) -> dict[int, list[tuple[str, str]]]:
    """Frame -> [("press" | "release", button)]: seeded short presses."""
    rng = random.Random(seed)
    buttons = ("a", "b", "start", "select", "up", "down", "left", "right")
    script: dict[int, list[tuple[str, str]]] = {}
    frame = start + rng.randint(0, 10)
    while frame < start + frames:
        button = rng.choice(buttons)
        hold = rng.randint(1, 8)
        script.setdefault(frame, []).append(("press", button))
        script.setdefault(frame + hold, []).append(("release", button))
        frame += hold + rng.randint(1, 20)
    return script


def _apply(gb: emurust.GameBoy, actions: Sequence[tuple[str, str]]) -> None:
    for action, button in actions:
        if action == "press":
            gb.button_press(button)
        else:
            gb.button_release(button)


def _digest(gb: emurust.GameBoy) -> tuple[bytes, bytes, int, int]:
    regs = gb.registers
    reg_bytes = bytes(v & 0xFF for k in sorted(regs) for v in (regs[k], regs[k] >> 8))
    return (
        gb.memory[0x8000:0x10000] + reg_bytes,
        gb.screen_shades.tobytes(),
        gb.cycles,
        gb.frame_count,
    )


def _first_digest_diff(a: tuple[bytes, bytes, int, int], b: tuple[bytes, bytes, int, int]) -> str:
    if a[2:] != b[2:]:
        return f"cycles/frame_count {a[2:]} vs {b[2:]}"
    if a[0] != b[0]:
        i = next(k for k, (x, y) in enumerate(zip(a[0], b[0])) if x != y)
        where = f"address {0x8000 + i:#06x}" if i < 0x8000 else "registers"
        return f"{where}: {a[0][i]:#04x} vs {b[0][i]:#04x}"
    return "screen differs"


def check_save_load(rom: bytes, label: str, seed: int, warmup: int, frames: int) -> Result:
    """save_state -> load_state into a fresh machine is bit-identical (the state bytes),
    and the next ``frames`` frames (memory 8000-FFFF, registers, screen) match, with the
    same scripted input; loading back into the machine that ran on rewinds it too."""
    start = time.perf_counter()
    script = input_script(seed, warmup + frames)
    gb = new_gameboy(rom)
    for f in range(warmup):
        _apply(gb, script.get(f, ()))
        gb.tick(1, render=False)
    state = gb.save_state()
    held = gb.save_state()
    problems: list[str] = []
    if held != state:
        problems.append("two save_state() calls without running differ")

    def run(machine: emurust.GameBoy) -> list[tuple[bytes, bytes, int, int]]:
        out = []
        for f in range(warmup, warmup + frames):
            _apply(machine, script.get(f, ()))
            machine.tick(1, render=True)
            out.append(_digest(machine))
        return out

    # Buttons held at the save point are part of the state; the script's releases for
    # them come later and apply equally to all runs.
    first = run(gb)
    fresh = new_gameboy(rom)
    fresh.load_state(state)
    if fresh.save_state() != state:
        problems.append("save_state() right after load_state() differs from the loaded bytes")
    second = run(fresh)
    gb.load_state(state)
    third = run(gb)
    for name, other in (("fresh machine", second), ("rewound machine", third)):
        for f, (x, y) in enumerate(zip(first, other)):
            if x != y:
                problems.append(
                    f"{name}, frame {warmup + f} after load: {_first_digest_diff(x, y)}"
                )
                break
    detail = (
        f"{label}: state saved after {warmup} frames ({len(state)} bytes), reloaded into a fresh "
        f"and into the same machine; {frames} following frames compared (memory, registers, "
        "screen) with scripted input"
    )
    status: Status = "fail" if problems else "pass"
    return Result(
        1,
        f"state.save_load.{label}",
        status,
        "state",
        detail + (f": {problems[0]}" if problems else ""),
        frames=frames,
        counterexample=problems[0] if problems else None,
        seconds=time.perf_counter() - start,
    )


def check_render_independence(rom: bytes, label: str, seed: int, frames: int) -> Result:
    """Rendering on, off, or now and then leaves the machine state (the save-state bytes
    but for the picture, which is what rendering draws) identical at every frame."""
    start = time.perf_counter()
    script = input_script(seed, frames)
    machines = [new_gameboy(rom) for _ in range(3)]
    problem = None
    for f in range(frames):
        states = []
        for k, gb in enumerate(machines):
            _apply(gb, script.get(f, ()))
            render = (True, False, f % 7 == 0)[k]
            gb.tick(1, render=render)
            states.append(gb._machine_state())
        if not states[0] == states[1] == states[2]:
            which = "off" if states[0] != states[1] else "every 7th frame"
            problem = f"frame {f}: state with rendering on differs from rendering {which}"
            break
    detail = (
        f"{label}: {frames} frames with rendering on / off / every 7th frame, the machine "
        "state (save_state() but for its picture) compared every frame"
    )
    return Result(
        1,
        f"state.render_independent.{label}",
        "fail" if problem else "pass",
        "ppu",
        detail + (f": {problem}" if problem else ""),
        frames=frames,
        counterexample=problem,
        seconds=time.perf_counter() - start,
    )


# Shared games used by the whole-machine checks when the test-ROM folder is present.
GAMES = {
    "2048": "homebrew/2048/2048.gb",
    "tobutobugirl": "homebrew/tobutobugirl/tobu.gb",
    "libbet": "homebrew/libbet/libbet.gb",
    "pandoras_blocks": "homebrew/pandoras-blocks/PandorasBlocks.gbc",
}
