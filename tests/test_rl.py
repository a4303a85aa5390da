"""Training (emurust.rl): GAE with NEXT_STEP autoreset, a short PPO run and its outputs
(CleanRL metric names, checkpoints, summary, curve, GIF), ``emurust play``, seeded
evaluation, and the cheap deterministic form of cross-backend policy transfer (L4): a fixed
policy gives the same episodes, returns included, on emurust and on PyBoy.

Needs torch (the ``rl`` extra); skipped, with the reason, without it.
"""

from __future__ import annotations

import copy
import csv
import json
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="training needs torch: pip install 'emurust[rl]'")

import emurust  # noqa: E402
from emurust.cli import main as emurust_main  # noqa: E402
from emurust.rl import ppo  # noqa: E402
from emurust.rl.ppo import (  # noqa: E402
    Agent,
    PixelAgent,
    PPOConfig,
    RamAgent,
    evaluate,
    gae,
    load_agent,
    thread_plan,
    train,
)


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
    real_update = ppo.ppo_update

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
        monkeypatch.setattr(ppo, "ppo_update", update)
        train(config, tmp_path / "ok", progress=False)
        assert torch.get_num_threads() == 1
        monkeypatch.setattr(ppo, "ppo_update", failing)
        with pytest.raises(KeyboardInterrupt):
            train(config, tmp_path / "stopped", progress=False)
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(caller)
    assert seen == [2, 2]


@pytest.mark.parametrize(
    ("shape", "ram_size"), [((72, 80), 0), ((72, 80), 5), ((4, 72, 80), 0), ((70, 87), 3)]
)
def test_the_pixel_network_computes_its_convolution_as_one_over_patches(
    shape: tuple[int, ...], ram_size: int
) -> None:
    """PixelAgent's patch form (prepare once, then one matrix product) gives what
    nn.Conv2d gives on the raw screens, from the same parameters, with gradients; the screen
    is cropped to whole 8x8 patches, as the convolution does."""
    torch.manual_seed(3)
    agent = PixelAgent(shape, ram_size, 3)
    screens = torch.randint(0, 256, (6, *shape), dtype=torch.uint8)
    ram = torch.randint(0, 256, (6, ram_size), dtype=torch.uint8) if ram_size else None
    fast = agent.features(agent.prepare(screens), ram)
    slow = agent.conv_features(screens, ram)
    assert torch.allclose(fast, slow, atol=1e-5)
    assert float(slow.detach().abs().max()) > 0.1  # not vacuous
    fast.sum().backward()  # type: ignore[no-untyped-call]
    grads = [p.grad.clone() for p in agent.parameters() if p.grad is not None]
    agent.zero_grad()
    slow.sum().backward()  # type: ignore[no-untyped-call]
    for g, p in zip(grads, [p for p in agent.parameters() if p.grad is not None]):
        assert torch.allclose(g, p.grad, atol=1e-4)
    # A planted fault shows: a different screen gives different features.
    screens[0, ..., 5, 5] ^= 0xFF
    assert not torch.allclose(agent.features(agent.prepare(screens), ram)[0], fast[0])


def test_the_ram_network_standardizes_bytes_with_running_statistics() -> None:
    agent = RamAgent(3, 2)
    rng = np.random.default_rng(0)
    a = torch.as_tensor(rng.integers(0, 4, (100, 3)), dtype=torch.uint8)
    b = torch.as_tensor(rng.integers(100, 200, (50, 3)), dtype=torch.uint8)
    agent.learn_from(a)
    agent.learn_from(b)
    both = torch.cat([a, b]).float()
    assert torch.allclose(agent.mean, both.mean(0), atol=1e-4)
    assert torch.allclose(agent.var, both.var(0, unbiased=False), rtol=1e-4)
    assert float(agent.count) == 150


def test_threads_are_planned_per_phase_from_the_cpus_the_process_may_use() -> None:
    assert emurust.available_cpus() >= 1
    cfg = PPOConfig()  # the update beside the rollout (update_lag=1): it keeps a CPU
    assert thread_plan(cfg) == (max(1, emurust.available_cpus() - 1), 1, 1)
    assert thread_plan(cfg, cpus=1) == (1, 1, 1)
    assert thread_plan(cfg, cpus=2) == (1, 1, 1)
    assert thread_plan(cfg, cpus=16) == (15, 1, 1)
    assert thread_plan(PPOConfig(update_lag=0), cpus=16) == (16, 1, 1)
    assert thread_plan(PPOConfig(torch_threads=3, num_threads=5), cpus=2) == (5, 1, 3)
    assert thread_plan(PPOConfig(torch_threads=3), cpus=2) == (2, 1, 3)
    assert thread_plan(PPOConfig(device="cuda"), cpus=8) == (8, 1, 1)
    assert thread_plan(PPOConfig(vectorization="ray"), cpus=8) == (1, 1, 1)


def test_num_envs_auto_follows_the_policy_and_the_device() -> None:
    from emurust.rl.config import auto_num_envs

    assert PPOConfig().num_envs is None
    assert PPOConfig().resolved().num_envs == auto_num_envs(
        "pixel", "cpu", emurust.available_cpus()
    )
    assert auto_num_envs("pixel", "cpu", 2) == 64
    assert auto_num_envs("ram", "cpu", 2) == 512
    assert auto_num_envs("ram", "cpu", 16) == 2048
    assert auto_num_envs("pixel", "cuda:0", 16) == 1024
    assert PPOConfig(num_envs=10).resolved().num_envs == 10
    resolved = PPOConfig(num_envs=64).resolved()
    assert (resolved.num_steps, resolved.learning_rate) == (32, 5e-4)
    assert resolved.total_timesteps == 1_500_000
    resolved = PPOConfig(policy="ram", num_envs=256).resolved()
    assert (resolved.num_steps, resolved.learning_rate) == (8, 2.5e-3)
    assert resolved.total_timesteps == 5_000_000
    assert PPOConfig(num_envs=4096, num_steps=3, learning_rate=1.0).resolved().num_steps == 3
    odd = PPOConfig(num_envs=6).resolved()  # 2048 // 6 = 341: rounded to whole minibatches
    assert odd.num_steps is not None
    assert odd.num_steps >= 341
    assert (6 * odd.num_steps) % odd.num_minibatches == 0
    with pytest.raises(ValueError, match="automatic"):
        _ = PPOConfig().batch_size


def test_a_ram_policy_trains_plays_and_draws_no_screen(tmp_path: Path) -> None:
    """--policy ram: an MLP over the spec's RAM observation; the envs draw no screen (the
    emulator's observation buffer is empty), the checkpoint loads as a RamAgent, and play
    draws frames for its GIF."""
    config = PPOConfig(policy="ram", total_timesteps=8 * 32 * 2, num_envs=8, num_steps=32)
    result = train(config, tmp_path, progress=False)
    assert result.global_step == 512
    agent, meta = load_agent(tmp_path / "agent.pt")
    assert isinstance(agent, RamAgent)
    assert meta["policy"] == "ram"
    assert float(agent.count) > 0  # the byte statistics were learned
    returns = evaluate(agent, "Starcatch", 2, seed=3)
    assert returns.shape == (2,)
    from emurust.rl.cli import play

    pytest.importorskip("PIL")
    _ret, steps = play(tmp_path / "agent.pt", "Starcatch", gif=tmp_path / "a.gif", max_steps=20)
    assert steps == 20
    assert (tmp_path / "a.gif").is_file()
    from PIL import Image

    with Image.open(tmp_path / "a.gif") as im:
        im.seek(im.n_frames - 1)
        assert len(im.convert("L").getcolors() or []) > 1  # a drawn frame, not a blank one


def test_the_same_seed_trains_the_same_agent_whatever_the_emulator_threads(
    tmp_path: Path,
) -> None:
    weights = []
    for threads in (1, 2):
        config = PPOConfig(
            total_timesteps=8 * 32 * 2, num_envs=8, num_steps=32, num_threads=threads
        )
        train(config, tmp_path / str(threads), progress=False)
        agent, _ = load_agent(tmp_path / str(threads) / "agent.pt")
        weights.append(torch.cat([p.flatten() for p in agent.parameters()]))
    assert torch.equal(weights[0], weights[1])
    assert not torch.equal(
        weights[0], torch.cat([p.flatten() for p in Agent((72, 80), 0, 3).parameters()])
    )


@pytest.mark.parametrize("lag", [0, 1])
def test_each_rollout_is_collected_by_the_policy_update_lag_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lag: int
) -> None:
    """update_lag=0: rollout k+1 is collected by the weights update k produced (CleanRL's
    schedule). update_lag=1: update k runs on a thread of its own while rollout k+1 is
    collected, by the weights from one update earlier; the learner's weights are the same
    whichever thread computes them, and the run ends with the last update's."""

    def fingerprint(agent: Any) -> bytes:
        return b"".join(p.detach().numpy().tobytes() for p in agent.state_dict().values())

    versions: list[bytes] = []  # the learner's weights before each update
    update_threads: list[str] = []
    collected_with: list[bytes] = []
    real_update, real_collect = ppo.ppo_update, ppo.Rollout.collect

    def update(agent: Any, *args: object, **kwargs: object) -> dict[str, float]:
        versions.append(fingerprint(agent))
        update_threads.append(threading.current_thread().name)
        return real_update(agent, *args, **kwargs)  # type: ignore[arg-type]

    def collect(self: ppo.Rollout) -> None:
        collected_with.append(fingerprint(self.agent))
        real_collect(self)

    monkeypatch.setattr(ppo, "ppo_update", update)
    monkeypatch.setattr(ppo.Rollout, "collect", collect)
    config = PPOConfig(total_timesteps=8 * 16 * 4, num_envs=8, num_steps=16, update_lag=lag)
    train(config, tmp_path, progress=False)
    assert len(versions) == 4
    assert len(collected_with) == 4
    assert len(set(versions)) == 4  # every update changed the weights
    if lag == 0:
        assert collected_with == versions
        assert all(name == threading.current_thread().name for name in update_threads)
    else:
        assert collected_with == [versions[0], versions[0], versions[1], versions[2]]
        if emurust.available_cpus() >= 2:
            assert all(name.startswith("ppo-update") for name in update_threads)
    agent, _ = load_agent(tmp_path / "agent.pt")
    assert fingerprint(agent) not in versions  # the last update's result was saved


def test_a_lagged_run_trains_the_same_weights_on_one_cpu_as_on_two(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With one CPU the lagged schedule runs in turn, not on two threads: the same
    rollouts, updates and weights."""
    config = PPOConfig(total_timesteps=8 * 16 * 4, num_envs=8, num_steps=16, update_lag=1)
    results, weights = [], []
    for cpus in (2, 1):
        monkeypatch.setattr(ppo, "available_cpus", lambda cpus=cpus: cpus)
        results.append(train(config, tmp_path / str(cpus), progress=False))
        agent, _ = load_agent(tmp_path / str(cpus) / "agent.pt")
        weights.append(torch.cat([p.flatten() for p in agent.state_dict().values()]))
    assert [r.update_on_thread for r in results] == [True, False]
    assert torch.equal(weights[0], weights[1])


def test_a_minibatch_in_two_shards_takes_the_same_step_on_one_thread_or_two() -> None:
    """update_shards=2: each minibatch's gradient as the sum of its two halves' (each
    term a sum over the half divided by the minibatch's rows), the second half on a
    replica: the same step as in one pass up to rounding, and bit for bit the same whether
    the second half runs on a thread of its own or in turn."""
    from concurrent.futures import ThreadPoolExecutor

    torch.manual_seed(3)
    n = 96
    agent = PixelAgent((72, 80), 0, 3)
    screens = agent.prepare(torch.randint(0, 256, (n, 72, 80), dtype=torch.uint8))
    batch = ppo.Batch(
        screens=screens,
        rams=None,
        actions=torch.randint(0, 3, (n,)),
        logprobs=torch.full((n,), -1.1),
        advantages=torch.randn(n),
        returns=torch.randn(n),
        values=torch.randn(n),
    )
    config = PPOConfig(num_minibatches=2, update_epochs=2).resolved()
    results = []
    for mode in ("one pass", "in turn", "two threads"):
        a = copy.deepcopy(agent)
        opt = torch.optim.Adam(a.parameters(), lr=1e-3, eps=1e-5, foreach=True)
        pool = ThreadPoolExecutor(1) if mode == "two threads" else None
        shard = None if mode == "one pass" else ppo.Shard(copy.deepcopy(agent), pool)
        stats = ppo.ppo_update(a, opt, batch, config, np.random.default_rng(0), shard)
        if pool is not None:
            pool.shutdown()
        results.append((torch.cat([p.flatten() for p in a.parameters()]), stats))
    (one, one_stats), (turn, turn_stats), (two, two_stats) = results
    assert not torch.equal(one, torch.cat([p.flatten() for p in agent.parameters()]))
    assert torch.allclose(one, turn, atol=1e-6)
    assert one_stats == pytest.approx(turn_stats, rel=1e-4, abs=1e-6)
    assert torch.equal(turn, two)
    assert turn_stats == two_stats


def test_update_lag_is_checked() -> None:
    assert PPOConfig().resolved().update_lag == 1
    assert PPOConfig(policy="ram").resolved().update_lag == 0
    assert PPOConfig(device="cuda").resolved().update_lag == 0
    assert PPOConfig(torch_threads=2).resolved().update_lag == 0
    assert PPOConfig().resolved().update_shards == 2
    assert PPOConfig(policy="ram").resolved().update_shards == 1
    assert PPOConfig(device="cuda").resolved().update_shards == 1
    with pytest.raises(ValueError, match="update_shards must be 1 or 2"):
        PPOConfig(update_shards=3).resolved()
    with pytest.raises(ValueError, match="torch_threads=2"):
        PPOConfig(update_shards=2, torch_threads=2, update_lag=0).resolved()
    with pytest.raises(ValueError, match="update_lag must be 0 or 1"):
        PPOConfig(update_lag=2).resolved()
    with pytest.raises(ValueError, match="torch_threads=2"):
        PPOConfig(update_lag=1, torch_threads=2).resolved()


def test_the_null_env_measures_the_trainer_alone(tmp_path: Path) -> None:
    config = PPOConfig(total_timesteps=8 * 32 * 2, num_envs=8, num_steps=32, vectorization="null")
    result = train(config, tmp_path, progress=False)
    assert result.global_step == 512
    assert set(result.shares) == {"env", "inference", "copies", "update", "other"}
    assert sum(result.shares.values()) == pytest.approx(1.0)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["time_shares"]["update"] > 0


def test_emurust_train_flags_are_the_config_fields() -> None:
    """One source of option names: every PPOConfig field is a flag; --help needs no torch."""
    import argparse
    import dataclasses
    import subprocess
    import sys

    from emurust.rl.cli import add_config_arguments
    from emurust.rl.config import PPOConfig as Config

    p = argparse.ArgumentParser()
    add_config_arguments(p)
    flags = {a.dest for a in p._actions}
    assert {f.name for f in dataclasses.fields(Config)} <= flags
    args = p.parse_args(["--num-envs", "auto", "--total-steps", "9", "--no-anneal-lr"])
    assert args.num_envs is None
    assert args.total_timesteps == 9
    assert args.anneal_lr is False
    assert p.parse_args(["--num-envs", "12", "--policy", "ram"]).num_envs == 12
    with pytest.raises(SystemExit):
        p.parse_args(["--num-envs", "many"])
    code = (
        "import sys\nfrom emurust.rl.cli import train_main\n"
        "try:\n    train_main(['--help'])\nexcept SystemExit:\n    pass\n"
        "assert 'torch' not in sys.modules, 'torch imported for --help'\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "--policy {pixel,ram}" in out.stdout


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


def test_emurust_train_takes_the_model(tmp_path: Path) -> None:
    """``emurust train --model cgb``: the game runs on a Game Boy Color (Starcatch, a DMG
    cartridge, in compatibility mode); the spec's model otherwise (dmg)."""
    from emurust.games import get, register

    original = get("Starcatch")
    assert original.model == "dmg"
    argv = ["train", "--total-steps", "256", "--num-envs", "8", "--num-steps", "32"]
    argv += ["--eval-episodes", "1", "--gif-steps", "0", "--no-progress"]
    try:
        assert emurust_main([*argv, "--model", "cgb", "--out", str(tmp_path / "cgb")]) == 0
        assert get("Starcatch").model == "cgb"
    finally:
        register(original, replace=True)
    with pytest.raises(SystemExit):
        emurust_main([*argv, "--model", "gbc", "--out", str(tmp_path / "bad")])


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
