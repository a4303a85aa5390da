"""Level 4: cross-backend policy transfer (:mod:`emurust.rl.transfer`).

A PPO agent trained on emurust is evaluated on emurust and on PyBoy over the same seeded
episodes; so is one trained on PyBoy. Each check passes when TOST finds the two mean returns
equivalent within the stated margin (10% of their mean, at least 1; alpha 0.05). Needs torch
(the ``rl`` extra) and PyBoy; skipped, with the reason, without them. Slow: two trainings.
"""

from __future__ import annotations

import importlib.util
import tempfile
from collections.abc import Callable
from pathlib import Path

from emurust.verify.result import Result

GAME = "Starcatch"


def transfer_checks(
    *, steps: int | None, episodes: int, seed: int, out: Path | None
) -> list[tuple[str, Callable[[], Result]]]:
    def check(trained_on: str) -> Callable[[], Result]:
        def run() -> Result:
            name = f"transfer.trained_on_{trained_on}"
            for module in ("torch", "pyboy"):
                if importlib.util.find_spec(module) is None:
                    return Result(4, name, "skip", "rl", f"{module} is not installed")
            from emurust.rl.transfer import transfer

            where = out if out is not None else Path(tempfile.mkdtemp(prefix="emurust-l4-"))
            stats = transfer(
                trained_on,
                where,
                game=GAME,
                total_timesteps=steps,
                episodes=episodes,
                seed=seed + 1,
            )
            t = stats["tost"]
            means = stats["mean_return"]
            detail = (
                f"trained {stats['train_steps']:,} steps on {trained_on}; mean return over "
                f"{episodes} episodes: emurust {means['emurust']:.2f}, PyBoy {means['pyboy']:.2f} "
                f"({stats['identical_episodes']}/{episodes} episodes identical); TOST margin "
                f"{t['margin']:.2f}: p = {t['p_value']:.3g} "
                f"({'equivalent' if t['equivalent'] else 'NOT equivalent'} at alpha {t['alpha']})"
            )
            if t["equivalent"]:
                return Result(4, name, "pass", "rl", detail, rom=GAME, stats=stats)
            return Result(4, name, "fail", "rl", detail, rom=GAME, stats=stats)

        return run

    return [(f"transfer.trained_on_{b}", check(b)) for b in ("emurust", "pyboy")]
