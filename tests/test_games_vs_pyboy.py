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

import importlib.metadata
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import emurust
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


@pytest.fixture(scope="module")
def pyboy_available() -> None:
    try:
        version = importlib.metadata.version("pyboy")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(f"PyBoy is not installed (pip install pyboy=={PYBOY_VERSION})")
    if version != PYBOY_VERSION:
        pytest.skip(f"needs PyBoy {PYBOY_VERSION} (private _cycles() and timing), found {version}")


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
