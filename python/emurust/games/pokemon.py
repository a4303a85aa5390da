"""Pokémon Red, for those who own the ROM (it cannot ship with emurust).

The RAM map is the one the pokered disassembly publishes (``pokered.sym``) and the Pokémon RL
projects use (PWhiddy/PokemonRedExperiments, pokegym, pokemonred_puffer): map id and
coordinates, party levels, badges and event flags. The reward adds the components those
projects use, each as the increase in this step:

=========================  ===================================================  ======
component                  what                                                 weight
=========================  ===================================================  ======
events                     event flags set (bits of 0xD747-0xD87D)              1.0
levels                     sum of the party's levels                            1.0
badges                     badges (bits of 0xD356)                             10.0
exploration                a (map, x, y) tile not yet visited this episode      0.1
=========================  ===================================================  ======

Decreases (a Pokémon left in the PC, an event flag cleared) are not penalized. Episodes are
long and only truncated (``max_episode_steps``), as in those projects. A step holds the
button 8 frames and lasts 24; observations are 72x80 grey, three frames stacked, plus the
RAM vector of ``obs_fields``.

Start state: the power-on state unless the environment is given ``initial_state=`` (a save
state of emurust after the intro, as the RL projects start from theirs).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import numpy.typing as npt

from emurust._paths import roms_dir
from emurust.games._spec import Field, GameSpec, Novelty, RamState

__all__ = ["EVENT_FLAGS", "POKEMON_RED", "ROM_ENV", "find_rom"]

ROM_ENV = "EMURUST_POKEMON_RED"
"""The environment variable naming your Pokémon Red ROM file."""

EVENT_FLAGS = range(0xD747, 0xD87E)
PARTY_LEVELS = tuple(0xD18C + 0x2C * i for i in range(6))

FIELDS = {
    "map": Field(0xD35E),
    "y": Field(0xD361),
    "x": Field(0xD362),
    "badges": Field(0xD356),
    "party_count": Field(0xD163),
    "in_battle": Field(0xD057),
    "money": Field(0xD347, 3, "bcd", "big"),
    "events": Field(EVENT_FLAGS.start, len(EVENT_FLAGS), "bytes"),
    **{f"level_{i + 1}": Field(a) for i, a in enumerate(PARTY_LEVELS)},
}

WEIGHTS = {"events": 1.0, "levels": 1.0, "badges": 10.0}
EXPLORATION_BONUS = 0.1


def find_rom() -> Path:
    """Your Pokémon Red ROM: ``$EMURUST_POKEMON_RED``, else ``pokemon_red.gb`` in the test-ROM
    folder. It is not part of emurust (copyright): :class:`FileNotFoundError` says how to
    give it."""
    env = os.environ.get(ROM_ENV, "").strip()
    path = Path(env).expanduser() if env else roms_dir() / "pokemon_red.gb"
    if not path.is_file():
        raise FileNotFoundError(
            f"Pokémon Red's ROM is not shipped with emurust; no file at {path}. Pass "
            f"rom='path/to/red.gb' to the environment or set {ROM_ENV}"
        )
    return path


def _set_bits(raw: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
    """Bits set in each row of bytes."""
    return np.asarray(np.unpackbits(raw, axis=1).sum(axis=1), dtype=np.int64)


def _levels(state: RamState) -> npt.NDArray[np.int64]:
    """The party's level sum (slots beyond the party count hold stale data: not counted)."""
    count = np.minimum(state.party_count, 6)
    levels = np.stack([state[f"level_{i + 1}"] for i in range(6)], axis=1)
    in_party = np.arange(6)[None, :] < count[:, None]
    return np.asarray(np.where(in_party, levels, 0).sum(axis=1), dtype=np.int64)


def reward_components(before: RamState, after: RamState) -> dict[str, npt.NDArray[np.float64]]:
    """Each reward component's increase in the step (unweighted), one per env."""
    return {
        "events": np.maximum(_set_bits(after.events) - _set_bits(before.events), 0).astype(
            np.float64
        ),
        "levels": np.maximum(_levels(after) - _levels(before), 0).astype(np.float64),
        "badges": np.maximum(
            _set_bits(after.badges[:, None].astype(np.uint8))
            - _set_bits(before.badges[:, None].astype(np.uint8)),
            0,
        ).astype(np.float64),
    }


def _reward(before: RamState, after: RamState) -> npt.NDArray[np.float32]:
    parts = reward_components(before, after)
    total = sum(WEIGHTS[name] * value for name, value in parts.items())
    return np.asarray(total, dtype=np.float32)


POKEMON_RED = GameSpec(
    name="PokemonRed",
    rom=find_rom,
    actions=(("down",), ("left",), ("right",), ("up",), ("a",), ("b",), ("start",)),
    fields=FIELDS,
    reward=_reward,
    terminated=None,
    max_episode_steps=20480,
    frame_skip=24,
    hold_frames=8,
    obs="gray_half",
    frame_stack=3,
    obs_fields=("map", "y", "x", "badges", "party_count", "in_battle"),
    novelty=Novelty(("map", "x", "y"), EXPLORATION_BONUS),
    description=(
        "Pokémon Red (your own ROM): events, party levels, badges and exploration, as the "
        "Pokémon RL projects reward them."
    ),
)
