"""Training (emurust.rl): GAE with NEXT_STEP autoreset, a short PPO run and its outputs
(CleanRL metric names, checkpoints, summary, curve, GIF), ``emurust play``, seeded
evaluation, and the cheap deterministic form of cross-backend policy transfer (L4): a fixed
policy gives the same episodes, returns included, on emurust and on PyBoy.

Needs torch (the ``rl`` extra); skipped, with the reason, without it.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="training needs torch: pip install 'emurust[rl]'")

from emurust.cli import main as emurust_main  # noqa: E402
from emurust.rl import ppo  # noqa: E402
from emurust.rl.ppo import Agent, PPOConfig, evaluate, gae, load_agent, train  # noqa: E402


def test_gae_cuts_at_terminations_and_bootstraps_truncations() -> None:
    g, lam = 0.9, 0.5
    # One env, 4 steps: reward 1 each; terminated at t=1; truncated at t=3.
    rewards = torch.ones(4, 1)
    values = torch.tensor([[0.5], [0.4], [0.3], [0.2], [2.0]])  # values[4]: the final obs
    terms = torch.tensor([[0.0], [1.0], [0.0], [0.0]])
    truncs = torch.tensor([[0.0], [0.0], [0.0], [1.0]])
    adv = gae(rewards, values, terms, truncs, g, lam)[:, 0].tolist()
    d3 = 1 + g * 2.0 - 0.2  # truncation: bootstrap from the final observation's value
    d2 = 1 + g * 0.2 - 0.3
    d1 = 1 - 0.4  # termination: nothing after
    d0 = 1 + g * 0.4 - 0.5
    want = [d0 + g * lam * d1, d1, d2 + g * lam * d3, d3]
    assert adv == pytest.approx(want)


def test_training_leaves_torchs_thread_count_as_it_found_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The policy acts on one thread and the update on ``torch_threads``; the caller's
    count comes back after training, and also when training stops on an exception."""
    seen: list[int] = []
    real_update = ppo._update

    def update(*args: object, **kwargs: object) -> dict[str, float]:
        seen.append(torch.get_num_threads())
        return real_update(*args, **kwargs)  # type: ignore[arg-type]

    def failing(*args: object, **kwargs: object) -> dict[str, float]:
        seen.append(torch.get_num_threads())
        raise KeyboardInterrupt

    config = PPOConfig(total_timesteps=8 * 32, num_envs=8, num_steps=32, torch_threads=2)
    caller = torch.get_num_threads()
    # One thread to start with, so that a count left at torch_threads=2 shows on any machine.
    torch.set_num_threads(1)
    try:
        monkeypatch.setattr(ppo, "_update", update)
        train(config, tmp_path / "ok", progress=False)
        assert torch.get_num_threads() == 1
        monkeypatch.setattr(ppo, "_update", failing)
        with pytest.raises(KeyboardInterrupt):
            train(config, tmp_path / "stopped", progress=False)
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(caller)
    assert seen == [2, 2]


def test_a_short_run_writes_clean_rl_logs_checkpoints_and_a_summary(tmp_path: Path) -> None:
    config = PPOConfig(total_timesteps=8 * 32 * 3, num_envs=8, num_steps=32, checkpoints=3)
    result = train(config, tmp_path, progress=False)
    assert result.global_step == 8 * 32 * 3
    with open(tmp_path / "progress.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 3
    for name in (
        "charts/episodic_return",
        "charts/SPS",
        "charts/learning_rate",
        "losses/value_loss",
        "losses/policy_loss",
        "losses/entropy",
        "losses/approx_kl",
        "losses/clipfrac",
        "losses/explained_variance",
    ):
        assert name in rows[0]
    assert all(np.isfinite(float(r["losses/policy_loss"])) for r in rows)
    lrs = [float(r["charts/learning_rate"]) for r in rows]
    assert lrs[0] > lrs[1] > lrs[2]  # annealed
    assert len(list((tmp_path / "checkpoints").glob("step_*.pt"))) == 3
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["global_step"] == result.global_step
    assert (tmp_path / "tensorboard").is_dir()
    agent, meta = load_agent(tmp_path / "agent.pt")
    assert meta["game"] == "Starcatch"
    assert agent.screen_shape == (72, 80)


def test_evaluation_is_seeded_and_a_fixed_policy_plays_alike_on_both_backends() -> None:
    """L4's deterministic form: the same (seeded random, then fixed-weight) policy plays the
    same whole episodes, returns included, on emurust and on PyBoy."""
    pytest.importorskip("pyboy")
    a = evaluate(None, "Starcatch", 3, seed=5)
    assert np.array_equal(a, evaluate(None, "Starcatch", 3, seed=5))
    assert np.array_equal(a, evaluate(None, "Starcatch", 3, seed=5, backend="pyboy"))
    torch.manual_seed(0)
    agent = Agent((72, 80), 0, 3).eval()
    ours = evaluate(agent, "Starcatch", 2, seed=7, greedy=True)
    theirs = evaluate(agent, "Starcatch", 2, seed=7, greedy=True, backend="pyboy")
    assert np.array_equal(ours, theirs)


def test_emurust_train_and_play_end_to_end(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    pytest.importorskip("PIL")
    out = tmp_path / "run"
    code = emurust_main(
        [
            "train",
            "--total-steps",
            "512",
            "--num-envs",
            "8",
            "--num-steps",
            "32",
            "--eval-episodes",
            "2",
            "--gif-steps",
            "12",
            "--no-progress",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    for name in ("agent.pt", "progress.csv", "summary.json", "summary.md", "agent.gif"):
        assert (out / name).is_file(), name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["evaluation"]["episodes"] == 2
    gif = tmp_path / "play.gif"
    assert emurust_main(["play", str(out / "agent.pt"), "--steps", "10", "--gif", str(gif)]) == 0
    from PIL import Image

    with Image.open(gif) as im:
        assert im.size == (160, 144)
        total = 0
        for i in range(im.n_frames):  # identical frames are merged, their durations summed
            im.seek(i)
            total += im.info["duration"]
    assert total == 11 * 70  # the start and 10 steps of 4 frames (67 ms, in 1/100 s)
    assert emurust_main(["train", "--game", "Tetris", "--out", str(out)]) == 2


def test_student_t_cdf_matches_the_integral_of_its_density() -> None:
    from math import gamma, pi, sqrt

    from emurust.rl.transfer import student_t_cdf

    def density(x: float, df: float) -> float:
        c = gamma((df + 1) / 2) / (sqrt(df * pi) * gamma(df / 2))
        return float(c * (1 + x * x / df) ** (-(df + 1) / 2))

    for df in (1.0, 3.0, 10.0, 57.3, 200.0):
        for t in (-3.0, -0.7, 0.0, 0.4, 1.96, 5.0):
            # Simpson's rule on [-60, t]; below -60 only the Cauchy (df=1) tail matters,
            # and it is added exactly: P(T < -60) = atan(-60)/pi + 1/2.
            lo, panels = -60.0, 2000
            xs = np.linspace(lo, t, panels + 1)
            ys = np.array([density(float(x), df) for x in xs])
            area = (
                (t - lo)
                / panels
                / 3
                * (ys[0] + ys[-1] + 4 * ys[1:-1:2].sum() + 2 * ys[2:-1:2].sum())
            )
            if df == 1.0:
                area += float(np.arctan(lo) / np.pi + 0.5)
            assert student_t_cdf(t, df) == pytest.approx(area, abs=2e-5), (t, df)


def test_tost_decides_equivalence_at_the_margin() -> None:
    from emurust.rl.transfer import tost

    rng = np.random.default_rng(0)
    a = rng.normal(10.0, 2.0, 200)
    same = tost(a, a.copy(), margin=1.0)
    assert same.equivalent
    assert same.p_value < 1e-6
    close = tost(a, rng.normal(10.1, 2.0, 200), margin=1.0)
    assert close.equivalent
    far = tost(a, rng.normal(12.0, 2.0, 200), margin=1.0)
    assert not far.equivalent
    assert far.p_value > 0.5
    noisy = tost(rng.normal(10, 20, 10), rng.normal(10, 20, 10), margin=1.0)
    assert not noisy.equivalent, "too few, too noisy samples cannot show equivalence"
    assert tost([3, 3, 3], [3, 3, 3], margin=0.5).equivalent
    # Paired: the same episodes on both sides, identical returns: equivalent even for a few
    # noisy episodes, which Welch's test cannot show.
    few = rng.normal(10, 2, 4)
    assert not tost(few, few.copy(), margin=1.0).equivalent
    assert tost(few, few.copy(), margin=1.0, paired=True).equivalent
    shifted = tost(few, few + 3.0, margin=1.0, paired=True)
    assert not shifted.equivalent
    assert shifted.difference == pytest.approx(-3.0)
    with pytest.raises(ValueError, match="at least two samples"):
        tost([1.0], [1.0, 2.0], margin=1.0)


def test_verify_level_4_runs_and_reports(tmp_path: Path) -> None:
    """A tiny level 4 (few steps, few episodes): the checks run, the report holds the
    TOST statistics, and identical backends give identical episodes."""
    pytest.importorskip("pyboy")
    from emurust.verify import Config, run, write_report

    report = run(Config(levels=(4,), l4_steps=512, l4_episodes=4, progress=False, l4_out=tmp_path))
    assert [r.name for r in report.results] == [
        "transfer.trained_on_emurust",
        "transfer.trained_on_pyboy",
    ]
    for r in report.results:
        assert r.stats["identical_episodes"] == 4, r.detail
        assert r.stats["tost"]["difference"] == 0.0
        assert r.status == "pass", r.detail
    json_path, md_path = write_report(report, tmp_path / "report")
    assert "policy transfer" in md_path.read_text()
    assert '"tost"' in json_path.read_text()


def test_training_on_pyboy_behind_async_vector_env(tmp_path: Path) -> None:
    """The trainer on the PyBoy backend in worker processes (how the benchmarks run PyBoy):
    the same episodes as emurust's for the same actions, so the same first rollout."""
    pytest.importorskip("pyboy")
    common = {"total_timesteps": 4 * 32, "num_envs": 4, "num_steps": 32, "checkpoints": 1}
    ours = train(PPOConfig(**common), tmp_path / "ours", progress=False)  # type: ignore[arg-type]
    theirs = train(
        PPOConfig(backend="pyboy", vectorization="async", **common),  # type: ignore[arg-type]
        tmp_path / "theirs",
        progress=False,
    )
    assert ours.global_step == theirs.global_step == 128
    rows = [
        next(csv.DictReader(open(p / "progress.csv")))  # noqa: SIM115
        for p in (tmp_path / "ours", tmp_path / "theirs")
    ]
    for key in ("losses/policy_loss", "losses/value_loss", "losses/entropy"):
        assert float(rows[0][key]) == pytest.approx(float(rows[1][key]), rel=1e-4), key
