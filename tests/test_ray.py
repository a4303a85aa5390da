"""emurust.envs.ray (also importable as emurust.ray): the vector env whose envs live in Ray
actors, on a local 2-CPU Ray cluster.

It must give exactly the trajectories of the local GameBoyVectorEnv (same seeds, same
actions), through step() and through pipelined send()/recv(); survive an actor killed
mid-run (Ray restarts it, its envs come back as truncated episodes, stepping goes on);
refuse a cluster that is too small; and serve `emurust train --ray` and RLlib.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

pytest.importorskip("gymnasium", reason="the RL environments need Gymnasium (emurust[gym])")
ray = pytest.importorskip("ray", reason="emurust.ray needs Ray: pip install 'emurust[ray]'")

from gymnasium.error import ClosedEnvironmentError  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402

import emurust  # noqa: E402
from emurust.envs import GameBoyVectorEnv  # noqa: E402
from emurust.ray import ClusterResourcesError, RayVectorEnv  # noqa: E402

STEPS = 60  # steps per env of the reference trajectories


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    """One local Ray cluster with 2 CPUs for the whole module (starting one takes seconds)."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def policy(obs: Any, t: int) -> npt.NDArray[np.int64]:
    """A deterministic policy of the observation and the step number: each env's actions
    depend on its own trajectory only, whatever order the envs are stepped in."""
    flat = obs.reshape(len(obs), -1)[:, ::97].astype(np.int64)
    return np.asarray((flat.sum(axis=1) + t) % 3, dtype=np.int64)


def reference(num_envs: int, seed: int) -> tuple[list[Any], npt.NDArray[np.float32]]:
    """``policy``'s trajectories on the local env: observations (STEPS + 1, first the reset's)
    and rewards (STEPS, num_envs)."""
    env = GameBoyVectorEnv("Starcatch", num_envs)
    obs, _ = env.reset(seed=seed)
    seen, rewards = [obs], []
    for t in range(STEPS):
        obs, r, _, _, _ = env.step(policy(obs, t))
        seen.append(obs)
        rewards.append(r)
    env.close()
    return seen, np.array(rewards)


def test_emurust_ray_is_the_backend_of_emurust_envs_ray() -> None:
    """The documented import path (docs/ray.md) re-exports the backend's home, emurust.envs."""
    import emurust.envs.ray as home
    import emurust.ray as old

    assert old.__all__ == home.__all__
    for name in old.__all__:
        assert getattr(old, name) is getattr(home, name), name


def test_step_gives_the_local_envs_trajectories(cluster: None) -> None:
    local = GameBoyVectorEnv("Starcatch", 8)
    rng = np.random.default_rng(1)
    episodes = 0
    for actors, per_actor in ((2, 4), (1, 8)):  # the actor count does not matter either
        env = RayVectorEnv("Starcatch", actors, per_actor)
        assert env.num_envs == 8
        assert env.single_observation_space == local.single_observation_space
        assert env.single_action_space == local.single_action_space
        obs, _ = env.reset(seed=7)
        want, _ = local.reset(seed=7)
        np.testing.assert_array_equal(obs, want)
        for _ in range(300):
            actions = rng.integers(0, 3, 8)
            got = env.step(actions)
            exp = local.step(actions)
            for a, b in zip(got[:4], exp[:4]):
                np.testing.assert_array_equal(a, b)
            assert got[4].keys() == exp[4].keys()
            if exp[4]:
                np.testing.assert_array_equal(got[4]["_episode"], exp[4]["_episode"])
                for k in ("r", "l"):
                    np.testing.assert_array_equal(got[4]["episode"][k], exp[4]["episode"][k])
                episodes += int(exp[4]["_episode"].sum())
        env.close()
    assert episodes > 8  # NEXT_STEP autoresets were compared too


def test_reset_mask_and_disabled_autoreset(cluster: None) -> None:
    env = RayVectorEnv("Starcatch", 2, 2, autoreset_mode=AutoresetMode.DISABLED)
    local = GameBoyVectorEnv("Starcatch", 4, autoreset_mode=AutoresetMode.DISABLED)
    env.reset(seed=3)
    local.reset(seed=3)
    for t in range(20):
        a = np.full(4, t % 3)
        np.testing.assert_array_equal(env.step(a)[0], local.step(a)[0])
    mask = np.array([False, True, True, False])
    obs, _ = env.reset(seed=[5, 6], options={"reset_mask": mask})
    want, _ = local.reset(seed=[5, 6], options={"reset_mask": mask})
    np.testing.assert_array_equal(obs, want)  # every env's observation, reset or not
    env.close()


def test_pipelined_send_recv_gives_the_same_trajectories(cluster: None) -> None:
    seen, rewards = reference(8, seed=5)
    env = RayVectorEnv("Starcatch", 2, 4)
    assert env.batch_size == 4
    env.async_reset(seed=5)
    t = np.zeros(8, dtype=np.int64)
    while t.min() <= STEPS:
        obs, r, _, _, info, ids = env.recv()
        assert len(ids) == 4
        assert ids[0] % 4 == 0
        np.testing.assert_array_equal(info["env_id"], ids)
        step = int(t[ids[0]])
        assert (t[ids] == step).all()
        np.testing.assert_array_equal(obs, seen[step][ids])
        if step:
            np.testing.assert_array_equal(r, rewards[step - 1, ids])
        if step < STEPS:
            env.send(policy(obs, step), ids)
        t[ids] += 1
    env.close()


def test_a_killed_actor_is_restarted_and_stepping_goes_on(cluster: None) -> None:
    """The CI test of the issue: 2 actors, 100 pipelined batches, one actor killed, and the
    stepping goes on: its envs end their episodes as truncations, the other actor's are
    untouched."""
    seen, rewards = reference(8, seed=11)
    env = RayVectorEnv("Starcatch", 2, 4)
    pids = env.actor_pids()
    env.async_reset(seed=11)
    t = np.zeros(8, dtype=np.int64)
    restarted = np.zeros(8, dtype=bool)
    after = np.zeros(8, dtype=np.int64)  # results received after the restart
    batch, deadline = 0, 0.0
    while after[4:].min() < 5:  # until the restarted actor has stepped its envs 5 times
        if batch == 100:
            os.kill(pids[1], signal.SIGKILL)  # its envs are in flight or awaiting recv
            deadline = time.monotonic() + 60
        assert batch < 100 or time.monotonic() < deadline, "the actor did not come back"
        obs, r, term, trunc, info, ids = env.recv()
        step = int(t[ids[0]])
        if ids[0] == 0:  # actor 0 is untouched: still the reference trajectories
            if step <= STEPS:
                np.testing.assert_array_equal(obs, seen[step][ids])
                if step:
                    np.testing.assert_array_equal(r, rewards[step - 1, ids])
        elif "restarted" in info:
            assert batch >= 100
            assert not restarted[ids].any()
            np.testing.assert_array_equal(info["restarted"], np.ones(4, bool))
            np.testing.assert_array_equal(trunc, np.ones(4, bool))
            np.testing.assert_array_equal(r, np.zeros(4))
            assert not term.any()
            restarted[ids] = True
        elif restarted[ids].all():
            if after[ids[0]] == 0:  # the NEXT_STEP reset that follows any episode end
                assert not (term | trunc).any()
                assert not r.any()
            after[ids] += 1
        else:  # actor 1 before the kill: the reference trajectories too
            if step <= STEPS:
                np.testing.assert_array_equal(obs, seen[step][ids])
        env.send(policy(obs, step) if step <= STEPS else np.zeros(4, np.int64), ids)
        t[ids] += 1
        batch += 1
    assert restarted.tolist() == [False] * 4 + [True] * 4
    assert env.restarts == 4
    assert t[:4].min() > 50  # actor 0's envs stepped all along
    new_pids = env.actor_pids()
    assert new_pids[0] == pids[0]
    assert new_pids[1] != pids[1]
    env.close()


def test_a_cluster_too_small_is_a_clear_error(cluster: None) -> None:
    with pytest.raises(
        ClusterResourcesError, match=r"3 actors .* need 3 CPUs; the Ray cluster has 2"
    ):
        RayVectorEnv("Starcatch", 3, 2)
    with pytest.raises(ClusterResourcesError, match="need 4 CPUs"):
        RayVectorEnv("Starcatch", 2, 2, threads_per_actor=2)


def test_bad_input(cluster: None) -> None:
    with pytest.raises(emurust.InvalidArgumentError, match="num_actors must be a positive int"):
        RayVectorEnv("Starcatch", 0, 2)
    env = RayVectorEnv("Starcatch", 2, 2)
    env.reset(seed=0)
    with pytest.raises(emurust.InvalidArgumentError, match="outside the action space"):
        env.step([0, 1, 2, 3])
    with pytest.raises(emurust.InvalidArgumentError, match="expected 4 actions"):
        env.step([0, 1])
    with pytest.raises(emurust.InvalidArgumentError, match="recv\\(\\) with nothing sent"):
        env.recv()
    env.send([0, 0], [0, 1])
    with pytest.raises(emurust.InvalidArgumentError, match="in flight"):
        env.send([0], [1])
    with pytest.raises(emurust.InvalidArgumentError, match="2 envs are pending"):
        env.step([0, 0, 0, 0])
    _, _, _, _, _, ids = env.recv()
    assert ids.tolist() == [0, 1]
    env.close()
    # After close(), a clear error (it was "need at least one array to concatenate").
    for call in (
        lambda: env.step([0, 0, 0, 0]),
        lambda: env.reset(),
        lambda: env.async_reset(),
        lambda: env.send([0, 0], [0, 1]),
        lambda: env.recv(),
    ):
        with pytest.raises(ClosedEnvironmentError, match="RayVectorEnv that was closed"):
            call()


def test_emurust_train_with_ray(
    cluster: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("torch", reason="emurust train needs torch (the rl extra)")
    from emurust.rl.cli import train_main

    out = tmp_path / "run"
    argv = ["--ray", "--actors", "2", "--envs-per-actor", "4", "--total-steps", "256"]
    argv += ["--num-steps", "16", "--eval-episodes", "2", "--gif-steps", "0", "--no-progress"]
    assert train_main([*argv, "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["global_step"] == 256
    assert summary["config"]["vectorization"] == "ray"
    assert summary["config"]["num_envs"] == 8
    assert (out / "agent.pt").is_file()
    # Three actors on two CPUs: the clear error, not a hang.
    assert train_main(["--ray", "--actors", "3", "--num-envs", "6", "--out", str(out)]) == 2
    assert "3 actors of 1 CPU each need 3 CPUs" in capsys.readouterr().err


def test_rllib_builds_and_steps_the_registered_vector_env(cluster: None) -> None:
    pytest.importorskip("torch", reason="RLlib's PPO needs torch")
    pytest.importorskip("ray.rllib", reason="RLlib is not installed (pip install 'ray[rllib]')")
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.connectors.env_to_module import FlattenObservations

    def flatten(env: Any, spaces: Any = None, device: Any = None) -> Any:
        return FlattenObservations()

    def env_class(runner: Any) -> str:
        return type(runner.env.unwrapped).__name__

    config = (
        PPOConfig()
        # "module:id": the env runner imports emurust.envs, which registers the id.
        .environment("emurust.envs:emurust/Starcatch-v0")
        .env_runners(
            num_env_runners=1,
            num_envs_per_env_runner=8,
            gym_env_vectorize_mode="vector_entry_point",
            rollout_fragment_length=32,
            # RLlib's default models take 1-D or 3-D boxes; the screen is (72, 80).
            env_to_module_connector=flatten,
        )
        .training(train_batch_size_per_learner=256, minibatch_size=64, num_epochs=1)
    )
    algo = config.build_algo()
    try:
        assert algo.env_runner_group is not None
        kinds = algo.env_runner_group.foreach_env_runner(env_class, local_env_runner=False)
        assert kinds == ["GameBoyVectorEnv"]
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 256
    finally:
        algo.stop()
