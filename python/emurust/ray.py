"""The Ray backend's import path of docs/ray.md: :class:`RayVectorEnv` and its helpers, which
live in :mod:`emurust.envs.ray` with the other vectorization backends (``pip install
'emurust[ray]'``; importing ``emurust`` alone does not import Ray)."""

from __future__ import annotations

from emurust.envs.ray import (
    ActorLostError,
    ClusterResourcesError,
    EnvActor,
    RayVectorEnv,
    portable_spec,
)

__all__ = ["ActorLostError", "ClusterResourcesError", "EnvActor", "RayVectorEnv", "portable_spec"]
