"""emurust against PyBoy 2.8.1 on the DMG-compatible homebrew games, through the lockstep
harness with resynchronization (the machinery of ``emurust verify --level 3``).

Method
======

Each game runs in :func:`emurust.verify.lockstep.run_lockstep` (its module docstring gives the
method): both emulators start from the same boot ROM at cycle 0, their frames are paired by
the emulated clock, emurust steps to PyBoy's frame end so that the CPU registers, WRAM, HRAM,
VRAM, OAM and the deterministic I/O registers are compared at the same clock, the screens are
compared shade for shade, and the seeded input script reaches both at the same clock.
With ``resync=True`` the comparison goes on past every divergence: after a difference that a
terminal allowlist entry *proves* to be PyBoy's (a deviation that changes the program flow,
each proven by re-running emurust with PyBoy's documented error and reaching PyBoy's state
exactly, and backed by a hardware test ROM that PyBoy fails), or after an unexplained one (a
failure), PyBoy's state is loaded into emurust and the comparison continues. The other
allowlist entries mask single documented differences, each recomputed or checked where it
applies (see :mod:`emurust.verify.allowlist`).

A game passes only if every divergence of the whole run was proven, to its last frame: no
failure, wherever it falls. ``test_a_late_planted_divergence_is_caught`` shows a divergence
planted late in a run (after frame 100) fails the check.

What the runs see (``python tests/test_games_vs_pyboy.py`` prints a report per game): PyBoy's
lines start 4 T-cycles late after an LCD enable, it reads LY = 153 for the whole of line 153,
services interrupts 4 T-cycles late and reads DIV/TIMA 8 T-cycles late; every such divergence
is one of the allowlist's proven entries and the run resynchronizes there.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import emurust
from emurust._pyboy_adapter import cgb_banks
from emurust.verify import lockstep

PYBOY_VERSION = "2.8.1"
# The rollouts of `emurust verify --level 3`: seed 0, 1000 frames (docs/verification.md).
SEED = 0
FRAMES = 1000
# Pandora's Blocks polls LY for 0 nearly every frame, which PyBoy reads late (line 153), so
# nearly every frame of it ends in a proven resync, each costing a PyBoy save state (about
# 0.2 s) and a traced re-run (about 0.2 s): its runs are kept short (docs/verification.md has
# 1000 frames of it, seed 0: 929 resyncs, no failure).
PANDORA_FRAMES = 100
# Failures recorded before a run stops (each would fail the test anyway).
MAX_FAILURES = 8
PANDORA = "homebrew/pandoras-blocks/PandorasBlocks.gbc"


@dataclass(frozen=True)
class Game:
    name: str
    path: str
    #: Seed of the input script (``lockstep.random_inputs``); None: no input.
    seed: int | None
    frames: int = FRAMES


GAMES = (
    Game("2048", "homebrew/2048/2048.gb", SEED),
    Game("Tobu Tobu Girl", "homebrew/tobutobugirl/tobu.gb", SEED),
    Game("Libbet", "homebrew/libbet/libbet.gb", SEED),
    Game("Pandora's Blocks", PANDORA, SEED, PANDORA_FRAMES),
    # Without input Pandora's Blocks cycles through its title and demo screens.
    Game("Pandora's Blocks, no input", PANDORA, None, PANDORA_FRAMES),
)
# ucity (homebrew/ucity/ucity.gbc) is CGB-only (header 0x143 = 0xC0): not a DMG game.


def run_game(
    path: Path, game: Game, frames: int, plant: dict[int, dict[int, int]] | None = None
) -> lockstep.LockstepResult:
    inputs: lockstep.InputScript | None = {} if game.seed is None else None
    return lockstep.run_lockstep(
        path,
        frames=frames,
        seed=game.seed or 0,
        inputs=inputs,
        resync=True,
        max_failures=MAX_FAILURES,
        plant=plant,
    )


def assert_every_divergence_proven(result: lockstep.LockstepResult) -> None:
    """Every divergence of a resynchronizing run was a proven PyBoy deviation."""
    assert not result.failures, result.summary()
    assert result.divergence is None, result.summary()
    assert all(r.kind == "pyboy-deviation" for r in result.resyncs), result.summary()


def report(result: lockstep.LockstepResult) -> str:
    """The run's summary with the resyncs counted by entry instead of listed."""
    lines = [line for line in result.summary().splitlines() if "resync at frame" not in line]
    proven: dict[str, int] = {}
    for r in result.resyncs:
        proven[r.name] = proven.get(r.name, 0) + 1
    lines.insert(1, f"  {len(result.resyncs)} resyncs: {proven}")
    return "\n".join(lines)


def _game_path(shared_roms: Path, game: Game) -> Path:
    path = shared_roms / game.path
    if not path.is_file():
        pytest.skip(f"{path} not found")
    return path


@pytest.mark.parametrize("game", GAMES, ids=[g.name for g in GAMES])
@pytest.mark.usefixtures("pyboy_available", "hang_guard")
def test_game_matches_pyboy(game: Game, shared_roms: Path) -> None:
    result = run_game(_game_path(shared_roms, game), game, game.frames)
    print(report(result))
    assert result.frames_run == game.frames, report(result)
    assert_every_divergence_proven(result)
    # The comparison is not vacuous: every frame is compared (clean, or with differences
    # that end in a proven deviation's resync) but those run while the LCD is off, and the
    # input reached the game.
    assert result.frames_compared + len(result.resyncs) >= game.frames * 3 // 4, report(result)
    if game.seed is not None:
        assert result.inputs_applied > 0


def quiet_wram_byte(path: Path, frame: int, frames: int = 20) -> int:
    """A WRAM address that emurust, run alone, holds at one non-zero value from ``frame`` for
    ``frames`` frames (a byte the game keeps, not one it rewrites every frame), outside the
    256 bytes below the stack pointer (dead stack, which the harness's proofs may set aside)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", emurust.EmuRustWarning)
        gb = emurust.GameBoy(path, boot_rom=lockstep.sync_boot_rom())
    gb.tick(frame, render=False)
    start = np.frombuffer(gb.memory[0xC000:0xE000], np.uint8).copy()
    steady = start != 0
    for _ in range(frames):
        gb.tick(1, render=False)
        steady &= np.frombuffer(gb.memory[0xC000:0xE000], np.uint8) == start
    sp = gb.registers["sp"] - 0xC000
    if 0 < sp <= 0x2000:
        steady[max(0, sp - 256) : sp + 2] = False
    candidates = np.flatnonzero(steady)
    assert candidates.size, "no steady WRAM byte"
    return 0xC000 + int(candidates[0])


@pytest.mark.usefixtures("pyboy_available", "hang_guard")
def test_a_late_planted_divergence_is_caught(shared_roms: Path) -> None:
    """One WRAM byte of 2048 changed in emurust alone at frame 100, well after the 60
    frames the old comparison needed to pass, is a failure of the run: the check above
    fails. (The old test stopped at the first lasting WRAM difference and passed once 60
    frames had been compared.)"""
    game = GAMES[0]
    path = _game_path(shared_roms, game)
    addr = quiet_wram_byte(path, 100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", emurust.EmuRustWarning)
        gb = emurust.GameBoy(path, boot_rom=lockstep.sync_boot_rom())
    gb.tick(100, render=False)
    planted = gb.memory[addr] ^ 0xFF
    result = run_game(path, game, 130, plant={100: {addr: planted}})
    assert result.failures, report(result)
    first = result.failures[0]
    assert first.frame == 100, report(result)
    assert {"region": "wram", "addr": addr, "emurust": planted, "pyboy": planted ^ 0xFF} in (
        first.diffs
    )
    with pytest.raises(AssertionError):
        assert_every_divergence_proven(result)
    # The control: the same run without the planted byte passes.
    assert_every_divergence_proven(run_game(path, game, 130))


@pytest.mark.xfail(
    strict=True,
    reason="unexplained (found 2026-11-28): Pandora's Blocks under input seed 2024 diverges "
    "at frame 36, one frame after a resync proven by pyboy-vblank-ly-late-terminal: at "
    "PyBoy's frame end (PC 0x0011 in its RST $08 routine) emurust stands 28 T-cycles further "
    "(0x0017); no entry proves it (37 such failures in 300 frames; seed 0 has none in 1000)",
)
@pytest.mark.usefixtures("pyboy_available", "hang_guard")
def test_pandoras_blocks_seed_2024(shared_roms: Path) -> None:
    game = Game("Pandora's Blocks, seed 2024", PANDORA, 2024)
    assert_every_divergence_proven(run_game(_game_path(shared_roms, game), game, 37))


def test_dmg_compatible_headers(shared_roms: Path) -> None:
    """The games compared run on a DMG (header 0x143 is 0x00 or 0x80); ucity does not."""
    for game in GAMES:
        path = shared_roms / game.path
        if path.is_file():
            assert path.read_bytes()[0x143] in (0x00, 0x80), game.name
    ucity = shared_roms / "homebrew" / "ucity" / "ucity.gbc"
    if ucity.is_file():
        assert ucity.read_bytes()[0x143] == 0xC0  # CGB only


if __name__ == "__main__":
    import sys

    frames = int(sys.argv[1]) if len(sys.argv) > 1 else FRAMES
    for game in GAMES:
        path = emurust.roms_dir() / game.path
        if path.is_file():
            print(f"{game.name}:\n{report(run_game(path, game, min(frames, game.frames)))}")


# ---- The Game Boy Color: µCity against PyBoy(cgb=True) --------------------------------------

UCITY = "homebrew/ucity/ucity.gbc"
# PyBoy runs its own CGB boot ROM (64 frames) and the game to this frame; emurust (a CGB,
# which starts after its boot) takes PyBoy's state there and both go on in step.
UCITY_START = 200
UCITY_INPUTS = ("start", "a", "right", "down", "a", "left", "b", "up")


@pytest.mark.usefixtures("pyboy_available", "hang_guard")
def test_ucity_cgb_in_step_with_pyboy(shared_roms: Path) -> None:
    """1,000 frames of µCity (double speed, HDMA, VRAM bank 1, colour palettes, WRAM banks)
    with button presses every 15 frames, on emurust.PyBoy(cgb=True) started from PyBoy's
    state and on PyBoy(cgb=True), compared at every frame end: the screen (PyBoy's colours)
    at every frame, every VRAM and WRAM bank, OAM and HRAM at every frame but for dead
    stack bytes (below the stack pointers), and the frame ends at most 8 T-cycles apart.
    What differs, and why: PyBoy services interrupts 4 T-cycles late (the allowlist's
    pyboy-late-interrupt-4-cycles, gbmicrotest int_vblank1_halt and others), so where an
    interrupt meets a frame end the two stop an instruction apart (52 of the 1,000 frame
    ends, 4 or 8 T-cycles; one of them may have pushed an interrupt's return address
    already), and what an interrupt pushed below the stack pointer differs until the game's
    next push (0xCFE4-0xCFF0, SP 0xCFF4)."""
    import io

    rom = shared_roms / UCITY
    if not rom.is_file():
        pytest.skip(f"{rom} not found")
    pyboy = importlib.import_module("pyboy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pb = pyboy.PyBoy(str(rom), window="null", cgb=True, sound_emulated=False)
    pb.tick(UCITY_START, False)
    state = io.BytesIO()
    pb.save_state(state)
    state.seek(0)
    ours = emurust.PyBoy(rom, cgb=True)
    ours.load_state(state)
    apart = dead_stack = 0
    screens = set()
    for frame in range(FRAMES):
        if frame % 15 == 3:
            for p in (ours, pb):
                p.button(UCITY_INPUTS[(frame // 15) % len(UCITY_INPUTS)], 3)
        ours.tick(1, True)
        pb.tick(1, True)
        assert np.array_equal(ours.screen.ndarray, pb.screen.ndarray), frame
        screens.add(ours.screen.ndarray.tobytes())
        delta = ours._cycles() - pb._cycles()
        assert abs(delta) <= 8, (frame, delta)
        apart += delta != 0
        # Where the frame ends are apart, one of the two may have taken an interrupt
        # already (its return address pushed): the stack pointers differ by that push.
        sps = (ours.register_file.SP, pb.register_file.SP)
        assert sps[0] == sps[1] or (delta and abs(sps[0] - sps[1]) == 2), (frame, sps)
        ours_banks, their_banks = cgb_banks(ours), cgb_banks(pb)
        assert ours_banks[1:] == their_banks[1:], frame
        differ = [
            0xC000 + i for i, (a, b) in enumerate(zip(ours_banks[0], their_banks[0])) if a != b
        ]
        low, high = min(sps) - 32, max(sps)
        assert all(low <= a < high for a in differ), (frame, [hex(a) for a in differ], sps)
        dead_stack += bool(differ)
        assert ours.memory[0xFE00:0xFEA0] == pb.memory[0xFE00:0xFEA0], frame
        assert ours.memory[0xFF80:0xFFFF] == pb.memory[0xFF80:0xFFFF], frame
    pb.stop(save=False)
    # The comparison is not vacuous (the game moved through many screens under the inputs),
    # and the explained differences stay rare.
    assert len(screens) > 10, len(screens)  # 15 measured
    assert apart < FRAMES // 10, apart
    assert dead_stack < FRAMES // 20, dead_stack


def _ucity_harness(shared_roms: Path, frames: int) -> lockstep.LockstepResult:
    """The lockstep harness on µCity from PyBoy's CGB state at its frame UCITY_START,
    resynchronizing after each divergence; skips without the ROM."""
    rom = shared_roms / UCITY
    if not rom.is_file():
        pytest.skip(f"{rom} not found")
    result = lockstep.run_lockstep(
        rom, frames=frames, seed=SEED, resync=True, max_failures=2, cgb_from_frame=UCITY_START
    )
    assert result.frames_run == frames, report(result)
    return result


@pytest.mark.usefixtures("pyboy_available", "hang_guard")
def test_ucity_cgb_lockstep_harness_proves_line_153(shared_roms: Path) -> None:
    # µCity waits for a line with ld a,($ff00+c) (C = $44), cp b, ret z, jr: at PyBoy's
    # frame ends of frames 2 and 3 PyBoy has read LY = 153 where emurust read 0.
    result = _ucity_harness(shared_roms, frames=5)
    assert not result.failures, report(result)
    assert [(r.frame, r.name) for r in result.resyncs] == [
        (2, "pyboy-line-153-ly-terminal"),
        (3, "pyboy-line-153-ly-terminal"),
    ], report(result)


# The µCity harness run (seed 0 inputs): the 1,000 frames issue 38 asks for (about 75 s on
# the project's shared 2-core machine, 2026-11-29; docs/verification.md).
UCITY_HARNESS_FRAMES = 1000
# Resyncs measured in that run, by entry (2026-11-29): every one a proven PyBoy deviation
# (33; the first 500 frames hold 5, 5 and 11 of them).
UCITY_PROVEN = {
    "pyboy-line-153-ly-terminal": 7,
    "pyboy-line-153-reads-replayed-terminal": 7,
    "pyboy-lcd-enable-4-cycles-terminal": 19,
}


@pytest.mark.usefixtures("pyboy_available", "hang_guard")
def test_ucity_cgb_lockstep_harness(shared_roms: Path) -> None:
    """µCity in double speed for UCITY_HARNESS_FRAMES frames with seed 0's inputs: every
    divergence is a proven PyBoy deviation. Frame 5 (the STAT-polled VRAM copy one poll
    turn behind in PyBoy, unexplained until 2026-11-29) is PyBoy's read lag, 4 dots in
    double speed, with its line-153 STAT answer (pyboy-line-153-reads-replayed-terminal);
    the first frames after the game's LCD enables (its screen changes after a button
    press) are pyboy-lcd-enable-4-cycles-terminal, whose re-run could not move a double-
    speed PPU before 2026-11-29 (test_difftest.py, test_ppu_shift_aid_in_double_speed)."""
    result = _ucity_harness(shared_roms, frames=UCITY_HARNESS_FRAMES)
    assert_every_divergence_proven(result)
    proven: dict[str, int] = {}
    for r in result.resyncs:
        proven[r.name] = proven.get(r.name, 0) + 1
    assert proven == UCITY_PROVEN, report(result)
    assert result.frames_compared > UCITY_HARNESS_FRAMES * 9 // 10, report(result)


@pytest.mark.usefixtures("pyboy_available", "hang_guard")
def test_ucity_cgb_planted_divergence_is_caught(shared_roms: Path) -> None:
    """A WRAM byte changed in emurust alone at frame 5, the frame the line-153 replay
    proves, is a failure there: the replays start from the planted state, so no proof
    explains it."""
    rom = shared_roms / UCITY
    if not rom.is_file():
        pytest.skip(f"{rom} not found")
    result = lockstep.run_lockstep(
        rom,
        frames=6,
        seed=SEED,
        resync=True,
        max_failures=2,
        cgb_from_frame=UCITY_START,
        plant={5: {0xC000: 0xA5}},
    )
    assert result.failures, report(result)
    first = result.failures[0]
    assert first.frame == 5, report(result)
    planted = [d for d in first.diffs if d["region"] == "wram" and d["addr"] == 0xC000]
    assert [d["emurust"] for d in planted] == [0xA5], report(result)
    assert all(r.name != "pyboy-line-153-reads-replayed-terminal" for r in result.resyncs)
