"""RL environments on emurust: Gymnasium (:class:`GameBoyEnv`, :class:`GameBoyVectorEnv` with
EnvPool-style ``send``/``recv``) and PufferLib (:mod:`emurust.envs.puffer`), built from the
game specs of :mod:`emurust.games`. Needs Gymnasium (``pip install emurust[gym]``).

Importing this module registers every known game with Gymnasium as ``emurust/<name>-v0``, so
``gymnasium.make_vec("emurust/Starcatch-v0", num_envs=8)`` works after ``import
emurust.envs`` (``import emurust`` alone stays light: it does not import Gymnasium).
"""

from __future__ import annotations

from emurust import games
from emurust.envs._batch import AUTORESET_MODES, EnvBatch
from emurust.envs._engine import EmurustEngine, Engine, GameBoyDriver, make_engine
from emurust.envs._gymnasium import GameBoyEnv, GameBoyVectorEnv, register_gymnasium

__all__ = [
    "AUTORESET_MODES",
    "EmurustEngine",
    "Engine",
    "EnvBatch",
    "GameBoyDriver",
    "GameBoyEnv",
    "GameBoyVectorEnv",
    "make_engine",
    "register_gymnasium",
]

# Every game, registered now or later, gets its Gymnasium id.
games.on_register(register_gymnasium)
