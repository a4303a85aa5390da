"""Starcatch, the project's own game (``data/starcatch.asm``): the default RL environment.

Stars and rocks fall in five lanes; the basket moves left and right. A caught star scores a
point, a rock in the basket costs one of three lives, and objects fall faster as stars are
caught. Reward: the points scored minus the lives lost in the step. An episode ends at game
over or after ``max_episode_steps`` steps. Each episode's objects come from the env's seed
(written into the game's random state, ``wRng``).

The game logic runs on every second VBlank and the screen only changes at those, so a step
of an even number of frames observes the same picture on emurust and on PyBoy (whose frames
end ten lines later); ``frame_skip`` must stay even for that.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

from emurust.games._spec import Driver, Field, GameSpec, RamState

__all__ = ["ROM_PATH", "SOURCE_PATH", "STARCATCH", "SYMBOLS_PATH", "symbols"]

DATA = Path(__file__).resolve().parent / "data"
ROM_PATH = DATA / "starcatch.gb"
SOURCE_PATH = DATA / "starcatch.asm"
SYMBOLS_PATH = DATA / "starcatch.sym"

# wState values (starcatch.asm)
TITLE = 1
PLAYING = 2


def symbols(path: Path = SYMBOLS_PATH) -> dict[str, int]:
    """The addresses of an RGBDS/BGB ``.sym`` file's labels (``BB:AAAA name`` lines)."""
    table: dict[str, int] = {}
    for line in path.read_text().splitlines():
        line = line.split(";", 1)[0].strip()
        if line:
            where, name = line.split()
            table[name] = int(where.split(":")[1], 16)
    return table


_SYM = symbols()

FIELDS = {
    "score": Field(_SYM["wScore"], 2, "bcd"),
    "lives": Field(_SYM["wLives"]),
    "game_over": Field(_SYM["wGameOver"]),
    "rng": Field(_SYM["wRng"], 2),
    "state": Field(_SYM["wState"]),
    "frame": Field(_SYM["wFrame"]),
    "player_x": Field(_SYM["wPlayerX"]),
    "caught": Field(_SYM["wCaught"]),
    "ticks": Field(_SYM["wTicks"], 2),
    "objects": Field(_SYM["wObjects"], 24, "bytes"),
}


def _start(gb: Driver) -> None:
    """Power-on -> title screen -> START -> the first frame of a game whose next VBlank runs
    the game logic (wFrame odd), before any object has appeared."""
    state, frame = _SYM["wState"], _SYM["wFrame"]
    gb.run_until(lambda: gb.read(state) == TITLE, 600, "Starcatch's title screen")
    gb.hold(("start",), 2)
    gb.run_until(
        lambda: gb.read(state) == PLAYING and gb.read(frame) % 2 == 1,
        60,
        "the first logic tick of a game",
    )


def _reward(before: RamState, after: RamState) -> npt.NDArray[np.float32]:
    scored = after.score - before.score
    return np.asarray(scored + (after.lives - before.lives), dtype=np.float32)


def _terminated(after: RamState) -> npt.NDArray[np.bool_]:
    return np.asarray(after.game_over == 1)


STARCATCH = GameSpec(
    name="Starcatch",
    rom=ROM_PATH,
    actions=((), ("left",), ("right",)),
    fields=FIELDS,
    reward=_reward,
    terminated=_terminated,
    max_episode_steps=2000,
    start=_start,
    seed_field="rng",
    frame_skip=4,
    obs="gray_half",
    # What a policy that reads no screen needs (obs="ram", emurust train --policy ram): the
    # basket, the six falling objects (type, x, y, spare byte each), the lives left and the
    # stars caught (objects fall faster as they grow).
    ram_obs_fields=("player_x", "objects", "lives", "caught"),
    description=(
        "The project's own catch-and-dodge game: +1 per star caught, -1 per life lost, "
        "3 lives; actions no-op, left, right."
    ),
    reward_range=(-3.0, float("inf")),
)
