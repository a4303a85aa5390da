"""Specs for two open-licensed homebrew games of the test-ROM folder (``$EMURUST_ROMS`` or
``../shared/roms``): Tobu Tobu Girl and 2048. They are loaded by path (not shipped with
emurust); a missing file raises :class:`FileNotFoundError` saying where it was looked for.

Their RAM maps were found by running them and checking each value against the screen (no
symbol files are published for these builds):

- **2048** (Wyatt Ferguson; a 5x5 board): score at 0xC0E9 (16-bit, little-endian, the
  number shown), board at 0xC0B1 (25 little-endian words, row-major), state at 0xC0EE
  (1 playing, 2 won, 3 game over: the board is full), random state at 0xC0E5.
- **Tobu Tobu Girl** (Tangram Games; an arcade platformer, level 1 "Plains"): game state
  at 0xC0A4 (4 in a level), scene state at 0xC0A5 (0 playing, 1 dead, 2 level cleared),
  climb progress 0..112 at 0xC19E, seconds left at 0xC0B0, enemies stomped at 0xC0B1,
  random state at 0xC20E (big-endian).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt

from emurust._paths import roms_dir
from emurust.games._spec import Driver, Field, GameSpec, RamState

__all__ = ["GAME_2048", "TOBU", "shared_rom"]


def shared_rom(rel: str, name: str) -> Path:
    """``rel`` in the test-ROM folder, or FileNotFoundError naming where it was looked for."""
    path = roms_dir() / rel
    if not path.is_file():
        raise FileNotFoundError(
            f"{name}'s ROM was not found at {path}: set EMURUST_ROMS to the test-ROM folder "
            "(the one holding homebrew/), or pass rom='path/to/the.gb' to the environment"
        )
    return path


def _press_until(gb: Driver, done: Callable[[], bool], what: str, *, tries: int = 120) -> None:
    """Press START for 2 frames and wait 10, until ``done()``."""
    for _ in range(tries):
        if done():
            return
        gb.hold(("start",), 2)
        gb.run(10)
    gb.run_until(done, 1, what)  # raises with the standard message


# ---- 2048 --------------------------------------------------------------------------

_2048_STATE = 0xC0EE


def _start_2048(gb: Driver) -> None:
    gb.run(60)
    _press_until(gb, lambda: gb.read(_2048_STATE) == 1, "2048's board")
    gb.run(60)


def _reward_2048(before: RamState, after: RamState) -> npt.NDArray[np.float32]:
    return np.asarray(after.score - before.score, dtype=np.float32)


GAME_2048 = GameSpec(
    name="2048",
    rom=lambda: shared_rom("homebrew/2048/2048.gb", "2048"),
    actions=(("up",), ("down",), ("left",), ("right",)),
    fields={
        "score": Field(0xC0E9, 2),
        "board": Field(0xC0B1, 50, "bytes"),
        "state": Field(_2048_STATE),
        "rng": Field(0xC0E5, 2),
    },
    reward=_reward_2048,
    terminated=lambda after: np.asarray(after.state >= 2),
    max_episode_steps=10_000,
    start=_start_2048,
    seed_field="rng",
    # The game polls the pad every frame and repeats a held move: press one frame, and
    # give the slide time to finish (24 frames let every press register).
    frame_skip=24,
    hold_frames=1,
    obs="gray_half",
    description="2048 on a 5x5 board: reward = points scored; ends when the board is full.",
    reward_range=(0.0, float("inf")),
)


# ---- Tobu Tobu Girl -----------------------------------------------------------------

_TOBU_GAMESTATE = 0xC0A4
_IN_LEVEL = 4
CLEAR_BONUS = 50.0


def _start_tobu(gb: Driver) -> None:
    # Logos (not skippable), then START skips the intro, passes the title and picks the
    # first level; the level fades in and the girl warps in (190 frames) before control.
    gb.run_until(lambda: gb.read(_TOBU_GAMESTATE) == 1, 1500, "Tobu Tobu Girl's intro")
    for state in (2, 3, _IN_LEVEL):

        def reached(s: int = state) -> bool:
            return gb.read(_TOBU_GAMESTATE) == s

        _press_until(gb, reached, f"game state {state}")
    gb.run(190)


def _reward_tobu(before: RamState, after: RamState) -> npt.NDArray[np.float32]:
    climbed = after.progress - before.progress
    stomped = after.kills - before.kills
    cleared = (after.scene == 2) & (before.scene != 2)
    return np.asarray(climbed + stomped + CLEAR_BONUS * cleared, dtype=np.float32)


TOBU = GameSpec(
    name="TobuTobuGirl",
    rom=lambda: shared_rom("homebrew/tobutobugirl/tobu.gb", "Tobu Tobu Girl"),
    actions=(
        (),
        ("left",),
        ("right",),
        ("a",),
        ("b",),
        ("down",),
        ("left", "b"),
        ("right", "b"),
    ),
    fields={
        "gamestate": Field(_TOBU_GAMESTATE),
        "scene": Field(0xC0A5),
        "progress": Field(0xC19E),
        "remaining": Field(0xC0B0),
        "elapsed": Field(0xC0AE),
        "kills": Field(0xC0B1),
        "x": Field(0xC0BB),
        "y": Field(0xC0BC),
        "rng": Field(0xC20E, 2, byteorder="big"),
    },
    reward=_reward_tobu,
    terminated=lambda after: np.asarray(after.scene != 0),
    max_episode_steps=3000,
    start=_start_tobu,
    seed_field="rng",
    frame_skip=4,
    obs="gray_half",
    description=(
        "Tobu Tobu Girl, level 1: reward = climb progress + enemies stomped + 50 for "
        "clearing the level; ends at death (time out, fall, hit) or clear."
    ),
)
