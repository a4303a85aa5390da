"""Game specs for the RL environments, and the registry of known games.

``emurust.games.get("Starcatch")`` (or ``"emurust/Starcatch-v0"``) returns a
:class:`GameSpec`; :func:`register` adds your own. Specs ship for the project's own game
(:data:`STARCATCH`, the default), two open-licensed homebrew games found in the test-ROM
folder (:data:`TOBU`, :data:`GAME_2048`) and Pokémon Red for those who own the ROM
(:data:`POKEMON_RED`). Writing a spec for a new game is shown in ``docs/envs.md``.
"""

from __future__ import annotations

from collections.abc import Callable

from emurust.games._spec import (
    OBS_MODES,
    OBS_SHAPES,
    Action,
    Driver,
    Field,
    GameSpec,
    GameSpecError,
    Novelty,
    RamState,
    RewardFn,
    StartFn,
    TerminatedFn,
    UnknownGameError,
)
from emurust.games.homebrew import GAME_2048, TOBU
from emurust.games.pokemon import POKEMON_RED
from emurust.games.starcatch import STARCATCH

__all__ = [
    "GAME_2048",
    "OBS_MODES",
    "OBS_SHAPES",
    "POKEMON_RED",
    "STARCATCH",
    "TOBU",
    "Action",
    "Driver",
    "Field",
    "GameSpec",
    "GameSpecError",
    "Novelty",
    "RamState",
    "RewardFn",
    "StartFn",
    "TerminatedFn",
    "UnknownGameError",
    "get",
    "names",
    "on_register",
    "register",
]

_REGISTRY: dict[str, GameSpec] = {}
_LISTENERS: list[Callable[[GameSpec], None]] = []


def register(spec: GameSpec, *, replace: bool = False) -> GameSpec:
    """Add ``spec`` under its name, and tell the listeners (:func:`on_register`: once
    :mod:`emurust.envs` is imported, it registers the spec's Gymnasium id). A name taken by
    another spec is an error unless ``replace``."""
    if not isinstance(spec, GameSpec):
        raise TypeError(f"register() takes a GameSpec, not {type(spec).__name__}")
    key = spec.name.lower()
    if key in _REGISTRY and not replace and _REGISTRY[key] is not spec:
        raise GameSpecError(f"a game named {spec.name!r} is already registered")
    _REGISTRY[key] = spec
    for listener in _LISTENERS:
        listener(spec)
    return spec


def on_register(listener: Callable[[GameSpec], None]) -> None:
    """Call ``listener`` with every registered spec: those registered so far at once, the
    others as :func:`register` adds them. :mod:`emurust.envs` uses it to give every game its
    Gymnasium id, so that the registry does not import the envs (they import it)."""
    _LISTENERS.append(listener)
    for spec in list(_REGISTRY.values()):
        listener(spec)


def get(game: str | GameSpec) -> GameSpec:
    """The spec registered as ``game`` (its name, any case, or its Gymnasium id
    ``emurust/<name>-v0``); a spec is returned as it is. Unknown names raise
    :class:`UnknownGameError`, which lists the known ones."""
    if isinstance(game, GameSpec):
        return game
    if not isinstance(game, str):
        raise TypeError(f"a game is a name or a GameSpec, not {type(game).__name__}")
    key = game.lower()
    if key.startswith("emurust/") and key.endswith("-v0"):
        key = key[len("emurust/") : -len("-v0")]
    try:
        return _REGISTRY[key]
    except KeyError:
        raise UnknownGameError(
            f"unknown game {game!r}; known games: {', '.join(names())}"
        ) from None


def names() -> list[str]:
    """The names of the registered games."""
    return sorted(spec.name for spec in _REGISTRY.values())


for _spec in (STARCATCH, TOBU, GAME_2048, POKEMON_RED):
    _REGISTRY[_spec.name.lower()] = _spec
