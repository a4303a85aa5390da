"""Cross-backend policy transfer (verification level 4) and the TOST equivalence test.

A policy trained on one backend is evaluated on both, on the same seeded episodes; the two
mean returns are declared equivalent when two one-sided t-tests on the paired differences
reject a difference of ``margin`` or more in either direction (TOST) at level ``alpha``.
With emurust faithful to PyBoy on the game, a policy sees the same observations on both and
the returns match episode for episode (a zero sim-to-sim gap); TOST states how far that holds
in the returns.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["TostResult", "student_t_cdf", "tost", "transfer"]


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny, eps = 1e-300, 3e-16
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < eps:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def student_t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


@dataclass
class TostResult:
    mean_a: float
    mean_b: float
    difference: float
    margin: float
    p_value: float  # the larger of the two one-sided p-values
    alpha: float
    df: float

    @property
    def equivalent(self) -> bool:
        return self.p_value < self.alpha

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "equivalent": self.equivalent}


def tost(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    margin: float,
    alpha: float = 0.05,
    *,
    paired: bool = False,
) -> TostResult:
    """Two one-sided t-tests of H0: |mean(a) - mean(b)| >= margin; equivalent when the larger
    p-value is below ``alpha``. Welch's test for independent samples; ``paired=True`` tests
    the mean of the differences ``a[i] - b[i]`` (the same seeded episodes on two backends).
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if len(x) < 2 or len(y) < 2 or margin <= 0:
        raise ValueError("tost needs at least two samples on each side and a positive margin")
    d = float(x.mean() - y.mean())
    if paired:
        if len(x) != len(y):
            raise ValueError("a paired test needs samples of the same length")
        diff = x - y
        se = float(diff.std(ddof=1)) / math.sqrt(len(diff))
        df = float(len(diff) - 1)
    else:
        vx, vy = x.var(ddof=1) / len(x), y.var(ddof=1) / len(y)
        se = math.sqrt(vx + vy)
        denominator = vx**2 / (len(x) - 1) + vy**2 / (len(y) - 1)
        df = (vx + vy) ** 2 / denominator if denominator else float(len(x) + len(y) - 2)
    if se == 0.0:  # no spread: decided by the difference alone
        p = 0.0 if abs(d) < margin else 1.0
    else:
        p_lower = 1.0 - student_t_cdf((d + margin) / se, df)  # H0: d <= -margin
        p_upper = student_t_cdf((d - margin) / se, df)  # H0: d >= margin
        p = max(p_lower, p_upper)
    return TostResult(float(x.mean()), float(y.mean()), d, margin, p, alpha, df)


def transfer(
    trained_on: str,
    out: str | Path,
    *,
    game: str = "Starcatch",
    total_timesteps: int | None = None,
    episodes: int = 100,
    seed: int = 1,
    margin_fraction: float = 0.1,
    alpha: float = 0.05,
    progress: bool = False,
) -> dict[str, Any]:
    """Train PPO on ``trained_on`` ("emurust" or "pyboy"), evaluate the agent on both
    backends over ``episodes`` seeded episodes each (sampling its actions with the same
    torch seed), and decide with TOST whether the mean returns are equivalent within
    ``margin_fraction`` of their mean (at least 1)."""
    import torch

    from emurust.rl.ppo import PPOConfig, evaluate, load_agent, train

    config = PPOConfig(game=game, backend=trained_on, seed=seed)
    if total_timesteps is not None:
        config.total_timesteps = total_timesteps
    run = Path(out) / f"trained_on_{trained_on}"
    started = time.perf_counter()
    result = train(config, run, progress=progress)
    agent, _ = load_agent(run / "agent.pt")
    returns: dict[str, npt.NDArray[np.float64]] = {}
    for backend in ("emurust", "pyboy"):
        torch.manual_seed(seed)
        returns[backend] = evaluate(agent, game, episodes, backend=backend)
    pooled = float(np.mean([returns["emurust"].mean(), returns["pyboy"].mean()]))
    margin = max(1.0, margin_fraction * abs(pooled))
    # Paired: episode i is the same seeded episode on both backends.
    test = tost(returns["emurust"], returns["pyboy"], margin, alpha, paired=True)
    return {
        "trained_on": trained_on,
        "game": game,
        "train_steps": result.global_step,
        "train_seconds": round(result.seconds, 1),
        "episodes": episodes,
        "mean_return": {k: float(v.mean()) for k, v in returns.items()},
        "std_return": {k: float(v.std(ddof=1)) for k, v in returns.items()},
        "identical_episodes": int((returns["emurust"] == returns["pyboy"]).sum()),
        "tost": test.to_dict(),
        "seconds": round(time.perf_counter() - started, 1),
    }
