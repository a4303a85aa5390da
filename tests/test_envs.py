"""The RL environments (emurust.envs) and game specs (emurust.games).

- GameBoyEnv passes Gymnasium's env checker.
- GameBoyVectorEnv, driven by a hand-written NEXT_STEP loop, gives each env the
  observations, rewards, terminations and resets of a single GameBoyEnv seeded like it;
  DISABLED autoreset with reset masks; episode statistics as RecordEpisodeStatistics adds
  them; registered ids for gymnasium.make / make_vec.
- send/recv (batch_size < num_envs) gives every env the same trajectory as synchronous
  stepping with the same per-env actions.
- Bad input: typed errors, nothing stepped.
- The PufferLib native env protocol (with and without PufferLib installed).
- Specs: Pokémon Red's rewards on synthetic RAM (the ROM cannot ship); Tobu Tobu Girl and
  2048 on their ROMs when the shared folder is present.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode

import emurust
from emurust import _core
from emurust.envs import EnvBatch, GameBoyEnv, GameBoyVectorEnv
from emurust.envs._engine import convert_shades, frame_shape
from emurust.envs.puffer import HAVE_PUFFERLIB, GameBoyPufferEnv
from emurust.games import (
    OBS_MODES,
    OBS_SHAPES,
    POKEMON_RED,
    STARCATCH,
    Field,
    GameSpec,
    GameSpecError,
    Novelty,
    RamState,
    UnknownGameError,
)

Array = npt.NDArray[Any]
SHORT = 50  # max_episode_steps: episodes end often, resets get exercised


def screen(obs: object) -> Array:
    assert isinstance(obs, np.ndarray)
    return obs


# ---- Gymnasium ------------------------------------------------------------------------


def test_the_single_env_passes_gymnasiums_checker() -> None:
    env = gym.make("emurust/Starcatch-v0", render_mode="rgb_array").unwrapped
    assert isinstance(env, GameBoyEnv)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker warns about what it dislikes
        check_env(env, skip_render_check=False)
    assert env.observation_space.shape == (72, 80)
    assert isinstance(env.action_space, gym.spaces.Discrete)
    assert env.action_space.n == 3


def test_rendering_and_spaces() -> None:
    env = GameBoyEnv("Starcatch", render_mode="rgb_array", obs="gray", frame_stack=2)
    obs, _ = env.reset(seed=1)
    assert screen(obs).shape == (2, 144, 160)
    assert env.observation_space.contains(obs)
    frame = env.render()
    assert frame is not None
    assert frame.shape == (144, 160, 3)
    # The rendered frame is the observation's newest frame in colour (grey here).
    assert np.array_equal(frame[..., 0], screen(obs)[-1])
    vec = GameBoyVectorEnv("Starcatch", 2, render_mode="rgb_array")
    vec.reset(seed=0)
    frames = vec.render()
    assert frames is not None
    assert frames.shape == (2, 144, 160, 3)


def single_rollout(seed: int, actions: Array, **kw: Any) -> list[tuple[Array, float, bool, bool]]:
    """A hand-written NEXT_STEP loop on a GameBoyEnv: after an episode ends, the next step
    resets instead (reward 0, no flags)."""
    env = GameBoyEnv("Starcatch", **kw)
    obs, _ = env.reset(seed=seed)
    out = [(screen(obs), 0.0, False, False)]
    ended = False
    for a in actions:
        if ended:
            obs, _ = env.reset()
            out.append((screen(obs), 0.0, False, False))
            ended = False
            continue
        obs, r, term, trunc, _ = env.step(a)
        out.append((screen(obs), r, term, trunc))
        ended = term or trunc
    return out


def test_the_vector_env_is_the_single_env_with_next_step_autoreset() -> None:
    n, steps, seed = 3, 260, 40
    rng = np.random.default_rng(0)
    actions = rng.integers(0, 3, (steps, n))
    vec = GameBoyVectorEnv("Starcatch", n, num_threads=2, max_episode_steps=SHORT)
    assert vec.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, _ = vec.reset(seed=seed)
    got = [[(screen(obs)[i], 0.0, False, False)] for i in range(n)]
    returns: list[list[float]] = [[] for _ in range(n)]
    running = np.zeros(n)
    for t in range(steps):
        obs, r, term, trunc, info = vec.step(actions[t])
        running += r
        for i in range(n):
            got[i].append((screen(obs)[i], float(r[i]), bool(term[i]), bool(trunc[i])))
        if "episode" in info:
            for j in np.flatnonzero(info["_episode"]):
                assert info["episode"]["r"][j] == pytest.approx(running[j])
                returns[j].append(float(info["episode"]["r"][j]))
        running[term | trunc] = 0
    for i in range(n):
        want = single_rollout(seed + i, actions[:, i], max_episode_steps=SHORT)
        assert len(want) == len(got[i])
        for t, (w, g) in enumerate(zip(want, got[i])):
            assert np.array_equal(w[0], g[0]), f"env {i} obs at step {t}"
            assert w[1:] == g[1:], f"env {i} at step {t}"
        assert len(returns[i]) >= 4, "several episodes ended (and were reset)"
    # After an episode end, the next step is the reset: reward 0, no flags.
    flags = [g[2] or g[3] for g in got[0]]
    after = [t + 1 for t, f in enumerate(flags) if f and t + 1 < len(flags)]
    assert after
    assert all(got[0][t][1:] == (0.0, False, False) for t in after)


def test_disabled_autoreset_resets_only_the_masked_envs() -> None:
    vec = GameBoyVectorEnv(
        "Starcatch",
        3,
        autoreset_mode=AutoresetMode.DISABLED,
        num_threads=1,
        max_episode_steps=SHORT,
    )
    assert vec.metadata["autoreset_mode"] == AutoresetMode.DISABLED
    first, _ = vec.reset(seed=5)
    first = screen(first).copy()
    for _ in range(50):
        obs, _, _, trunc, _ = vec.step(np.array([1, 2, 1]))
    assert trunc.all()
    obs, _, _, trunc, _ = vec.step(np.array([2, 2, 2]))  # not reset: the game goes on
    assert trunc.all()  # and the step count is past the limit
    obs, _ = vec.reset(options={"reset_mask": np.array([True, False, True])})
    assert np.array_equal(screen(obs)[0], first[0])
    assert not np.array_equal(screen(obs)[1], first[1])
    obs, _, _, trunc, _ = vec.step(np.array([0, 0, 0]))
    assert trunc.tolist() == [False, True, False]
    with pytest.raises(emurust.InvalidArgumentError, match="reset_mask"):
        vec.reset(options={"reset_mask": np.ones(2, bool)})


def test_registered_ids_make_and_make_vec() -> None:
    assert "emurust/Starcatch-v0" in gym.registry
    envs = gym.make_vec(
        "emurust/Starcatch-v0", num_envs=2, vectorization_mode="vector_entry_point", num_threads=1
    )
    assert isinstance(envs, GameBoyVectorEnv)
    assert envs.num_envs == 2
    obs, _ = envs.reset(seed=0)
    assert screen(obs).shape == (2, 72, 80)
    env = gym.make("emurust/Starcatch-v0", frame_stack=4)
    obs, _ = env.reset(seed=0)
    assert screen(obs).shape == (4, 72, 80)
    for name in emurust.games.names():
        assert f"emurust/{name}-v0" in gym.registry


# ---- send / recv ----------------------------------------------------------------------


def test_send_recv_matches_synchronous_stepping() -> None:
    n, per_env = 4, 120
    rng = np.random.default_rng(1)
    plan = rng.integers(0, 3, (n, per_env))  # env i's k-th action
    sync = GameBoyVectorEnv("Starcatch", n, num_threads=2, max_episode_steps=SHORT)
    obs, _ = sync.reset(seed=9)
    want: list[list[tuple[Array, float, bool, bool]]] = [
        [(screen(obs)[i], 0.0, False, False)] for i in range(n)
    ]
    for k in range(per_env):
        obs, r, term, trunc, _ = sync.step(plan[:, k])
        for i in range(n):
            want[i].append((screen(obs)[i], float(r[i]), bool(term[i]), bool(trunc[i])))

    env = GameBoyVectorEnv("Starcatch", n, batch_size=2, num_threads=2, max_episode_steps=SHORT)
    env.async_reset(seed=9)
    got: list[list[tuple[Array, float, bool, bool]]] = [[] for _ in range(n)]
    sent = np.zeros(n, dtype=int)
    while any(len(g) <= per_env for g in got):
        obs, r, term, trunc, info, ids = env.recv()
        assert len(ids) == 2
        assert np.array_equal(info["env_id"], ids)
        for j, i in enumerate(ids):
            got[i].append((screen(obs)[j], float(r[j]), bool(term[j]), bool(trunc[j])))
        todo = ids[sent[ids] < per_env]
        if len(todo):
            env.send(plan[todo, sent[todo]], todo)
            sent[todo] += 1
    for i in range(n):
        assert len(got[i]) == per_env + 1
        for k, (w, g) in enumerate(zip(want[i], got[i])):
            assert np.array_equal(w[0], g[0]), f"env {i} obs at step {k}"
            assert w[1:] == g[1:], f"env {i} step {k}"


def test_send_recv_misuse_is_refused() -> None:
    env = GameBoyVectorEnv("Starcatch", 4, batch_size=2, num_threads=1)
    with pytest.raises(emurust.InvalidArgumentError, match="nothing sent"):
        env.recv()
    env.async_reset(seed=0)
    _, _, _, _, _, ids = env.recv()
    with pytest.raises(emurust.InvalidArgumentError, match="in flight or whose results"):
        env.send(np.zeros(4, np.int64), np.arange(4))
    with pytest.raises(emurust.InvalidArgumentError, match="step\\(\\) while envs"):
        env.step(np.zeros(4, np.int64))
    with pytest.raises(emurust.InvalidArgumentError, match="outside the action space"):
        env.send(np.array([0, 7]), ids)
    env.send(np.array([0, 1]), ids)
    env.recv()
    env.recv()  # the two left from the reset, then the two sent
    env.close()


# ---- bad input ------------------------------------------------------------------------


def _bad_spec(**changes: Any) -> GameSpec:
    return STARCATCH.replace(**changes)


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"reward": lambda b, a: np.zeros(3)}, r"reward .* shape \(1,\), got shape \(3,\)"),
        ({"reward": lambda b, a: np.array(["x"])}, "one real number per env"),
        ({"reward": lambda b, a: a.score - b.score + 0j}, "one real number per env"),
        ({"terminated": lambda a: a.game_over}, r"bool array .* dtype int64"),
        ({"terminated": lambda a: np.array(True)}, r"shape \(1,\), got shape \(\)"),
        ({"truncated": lambda a: a.ticks}, r"truncated function must return a bool array"),
    ],
)
def test_a_spec_function_of_the_wrong_shape_or_dtype_is_refused_up_front(
    changes: dict[str, Any], match: str
) -> None:
    with pytest.raises(GameSpecError, match=match):
        GameBoyVectorEnv(_bad_spec(**changes), 2, num_threads=1)


def test_bad_actions_step_nothing() -> None:
    env = GameBoyVectorEnv("Starcatch", 2, num_threads=1)
    env.reset(seed=0)
    vec = env.engine.vec  # type: ignore[attr-defined]
    before = [vec.save_state(i) for i in range(2)]
    for actions, error, match in [
        (np.array([0, 3]), emurust.InvalidArgumentError, "action 3 .* 3 actions"),
        (np.array([-1, 0]), emurust.InvalidArgumentError, "outside the action space"),
        (np.array([0, 0, 0]), emurust.InvalidArgumentError, "expected 2 actions"),
        (np.array([0.5, 1.0]), TypeError, "integers"),
    ]:
        with pytest.raises(error, match=match):
            env.step(actions)
    assert [vec.save_state(i) for i in range(2)] == before
    single = GameBoyEnv("Starcatch")
    single.reset(seed=0)
    with pytest.raises(emurust.InvalidArgumentError, match="outside the action space"):
        single.step(5)


def test_unknown_games_and_bad_specs() -> None:
    with pytest.raises(UnknownGameError, match=r"unknown game 'Tetris'; known games: .*Starcatch"):
        emurust.games.get("Tetris")
    with pytest.raises(UnknownGameError):
        GameBoyVectorEnv("Tetris", 2)
    assert emurust.games.get("emurust/starcatch-v0") is STARCATCH
    with pytest.raises(gym.error.Error):
        gym.make_vec("emurust/Tetris-v0", num_envs=2)
    with pytest.raises(GameSpecError, match="work RAM"):
        Field(0x8000)
    with pytest.raises(GameSpecError, match="unknown button 'jump'"):
        _bad_spec(actions=(("jump",),))
    with pytest.raises(GameSpecError, match="unknown obs mode"):
        _bad_spec(obs="grey")
    with pytest.raises(GameSpecError, match="not one of the fields"):
        _bad_spec(obs_fields=("height",))
    with pytest.raises(GameSpecError, match="hold_frames"):
        _bad_spec(hold_frames=9)
    with pytest.raises(TypeError, match="unexpected keyword arguments \\['frameskip'\\]"):
        GameBoyEnv("Starcatch", frameskip=4)
    with pytest.raises(GameSpecError, match="already registered"):
        emurust.games.register(_bad_spec(description="another"))


def test_ram_observations_and_a_game_of_ones_own() -> None:
    """A spec written by a user: Starcatch with its score and lives as RAM observations."""
    spec = STARCATCH.replace(name="StarcatchRam", obs_fields=("score", "lives"))
    emurust.games.register(spec, replace=True)
    env = gym.make_vec("emurust/StarcatchRam-v0", num_envs=2, num_threads=1)
    assert isinstance(env.single_observation_space, gym.spaces.Dict)
    obs, _ = env.reset(seed=0)
    assert isinstance(obs, dict)
    assert obs["ram"].tolist() == [[0, 0, 3], [0, 0, 3]]  # score BCD (2 bytes), lives
    assert obs["screen"].shape == (2, 72, 80)
    assert env.single_observation_space.contains({k: v[0] for k, v in obs.items()})


@pytest.mark.parametrize("mode", OBS_MODES)
def test_obs_shapes_are_defined_once_and_every_backend_reports_them(mode: str) -> None:
    """``emurust.games.OBS_SHAPES`` (read from the Rust engine's ``ObsMode`` through
    ``_core.OBS_SHAPES``) is the one definition of the observation modes' frame shapes: the
    emurust and PyBoy engines, the Gymnasium spaces and the Python conversion that the PyBoy
    backend uses all report it; an unknown mode is an error, never a fallback shape."""
    shape = OBS_SHAPES[mode]
    assert frame_shape(mode) == shape
    stack = 1 if mode == "ram" else 2
    spec = STARCATCH.replace(obs=mode, frame_stack=stack)
    expected = shape if stack == 1 else (stack, *shape)
    for backend in ("emurust", "pyboy"):
        env = GameBoyVectorEnv(spec, 2, backend=backend, num_threads=1)
        obs, _ = env.reset(seed=0)
        assert env.engine.observation_shape == expected, backend
        assert env.engine.obs.shape == (2, *expected), backend
        if mode != "ram":
            assert screen(obs).shape == (2, *expected), backend
            assert env.single_observation_space.shape == expected, backend
            assert convert_shades(env.engine.frame(0), mode).shape == shape
        env.close()
    with pytest.raises(GameSpecError, match="unknown obs mode"):
        frame_shape(mode.upper() + "x")
    with pytest.raises(GameSpecError, match="no screen"):
        convert_shades(np.zeros((144, 160), np.uint8), "grey")


def test_the_engines_obs_modes_are_the_specs() -> None:
    """The spec modes are the Rust engine's screen modes plus "ram" (the engine's "none"), and
    ``VecGameBoy`` gives each engine mode the shape ``_core.OBS_SHAPES`` says."""
    engine_modes = set(_core.OBS_SHAPES)
    assert set(OBS_MODES) == engine_modes - {"none"} | {"ram"}
    assert OBS_SHAPES["ram"] == _core.OBS_SHAPES["none"] == (0,)
    rom = STARCATCH.rom_source()
    for mode, shape in _core.OBS_SHAPES.items():
        vec = emurust.VecGameBoy(rom, 2, obs=mode)
        assert vec.observation_shape == shape, mode
        assert vec.obs.shape == (2, *shape), mode
        if mode != "none":
            stacked = emurust.VecGameBoy(rom, 1, obs=mode, frame_stack=3)
            assert stacked.observation_shape == (3, *shape), mode


def test_ram_only_observations_draw_no_screen_and_match_both_backends() -> None:
    """obs="ram": the observation is the bytes of the spec's ram_obs_fields, nothing else; no
    frame is drawn (the engine's screen is empty) unless someone renders; PyBoy and emurust
    give the same observations and rewards step for step; the Gymnasium checker passes."""
    spec = STARCATCH.replace(obs="ram")
    fields = spec.ram_obs_fields
    assert fields
    assert spec.obs_addresses[0] == spec.fields[fields[0]].address
    k = len(spec.obs_addresses)
    rng = np.random.default_rng(3)
    actions = rng.integers(0, 3, (60, 3))
    runs = []
    for backend in ("emurust", "pyboy"):
        env = GameBoyVectorEnv(spec, 3, backend=backend, num_threads=1)
        assert env.single_observation_space == gym.spaces.Box(0, 255, (k,), np.uint8)
        assert env.engine.obs.size == 0  # no screen
        first, _ = env.reset(seed=7)
        assert isinstance(first, np.ndarray)
        trace = [first.copy()]
        for a in actions:
            obs, reward, term, _trunc, _ = env.step(a)
            assert isinstance(obs, np.ndarray)
            assert obs.shape == (3, k)
            # The observation is the RAM: the fields' bytes, as the engine reads them.
            at = 0
            for name in fields:
                f = spec.fields[name]
                assert np.array_equal(obs[:, at : at + f.size], env.engine.read(f.address, f.size))
                at += f.size
            trace += [obs.copy(), reward.copy(), term.copy()]
        env.close()
        runs.append(trace)
    for a, b in zip(*runs):
        assert np.array_equal(a, b)
    # Not vacuous: the basket moved and objects fell.
    assert len({bytes(o) for o in runs[0][1::3]}) > 20
    check_env(GameBoyEnv("Starcatch", obs="ram").unwrapped, skip_render_check=True)
    # Rendering still works: frames are drawn for it.
    single = GameBoyEnv("Starcatch", obs="ram", render_mode="rgb_array")
    single.reset(seed=0)
    for _ in range(30):
        single.step(1)
    frame = single.render()
    assert frame is not None
    assert frame.shape == (144, 160, 3)
    assert frame.min() < 255
    puffer = GameBoyPufferEnv("Starcatch", num_envs=2, num_threads=1, obs="ram")
    assert puffer.single_observation_space.shape == (k,)
    flat, _ = puffer.reset(seed=7)
    assert np.array_equal(flat[0], runs[0][0][0])


def test_ram_only_specs_need_fields_and_no_stack() -> None:
    with pytest.raises(GameSpecError, match="names no fields"):
        STARCATCH.replace(obs="ram", ram_obs_fields=())
    with pytest.raises(GameSpecError, match="frame_stack must be 1"):
        STARCATCH.replace(obs="ram", frame_stack=4)
    with pytest.raises(GameSpecError, match="ram_obs_fields names 'nope'"):
        STARCATCH.replace(ram_obs_fields=("nope",))
    # obs_fields serve when ram_obs_fields is empty.
    spec = STARCATCH.replace(obs="ram", ram_obs_fields=(), obs_fields=("lives",))
    assert spec.obs_addresses == (spec.fields["lives"].address,)


# ---- PufferLib ------------------------------------------------------------------------


def test_the_puffer_env_writes_its_buffers_and_resets_in_the_same_step() -> None:
    env = GameBoyPufferEnv("Starcatch", num_envs=3, num_threads=1, max_episode_steps=20)
    assert env.num_agents == 3
    assert env.single_observation_space.shape == (72, 80)
    obs, infos = env.reset(seed=4)
    assert obs is env.observations
    assert infos == []
    first = obs.copy()
    for _ in range(20):
        obs, rew, term, trunc, infos = env.step(np.zeros(3, np.int32))
        assert obs is env.observations
        assert rew is env.rewards
        assert rew.dtype == np.float32
        assert term is env.terminals
        assert trunc is env.truncations
    assert trunc.all()
    assert infos
    assert infos[0]["episodes"] == 3
    assert infos[0]["episode_length"] == 20
    # Same step reset: the observation is the next episode's first (seeds 4, 5, 6 -> their
    # second episode starts from the same start state).
    assert np.array_equal(obs, first)
    obs, rew, term, trunc, infos = env.step(np.zeros(3, np.int32))
    assert not trunc.any()


def test_the_puffer_env_writes_into_given_buffers() -> None:
    class Buf:
        observations = np.zeros((2, 72, 80), np.uint8)
        rewards = np.zeros(2, np.float32)
        terminals = np.zeros(2, bool)
        truncations = np.zeros(2, bool)
        masks = np.ones(2, bool)
        actions = np.zeros(2, np.int32)

    env = GameBoyPufferEnv("Starcatch", num_envs=2, buf=Buf, num_threads=1)
    env.reset()
    assert env.observations is Buf.observations
    assert Buf.observations.any()
    env.step(Buf.actions)
    assert env.rewards is Buf.rewards


@pytest.mark.skipif(not HAVE_PUFFERLIB, reason="PufferLib is not installed (optional)")
def test_pufferlib_vector_make_runs_the_native_env() -> None:
    import pufferlib
    import pufferlib.vector

    vecenv = pufferlib.vector.make(
        GameBoyPufferEnv,
        env_kwargs={"num_envs": 4, "num_threads": 1},
        backend=pufferlib.vector.PufferEnv,
    )
    assert isinstance(vecenv, pufferlib.PufferEnv)
    vecenv.async_reset(seed=0)
    obs, rew, term, trunc, infos, ids, masks = vecenv.recv()
    assert obs.shape == (4, 72, 80)
    vecenv.send(np.zeros(4, np.int32))
    obs, rew, term, trunc, infos, ids, masks = vecenv.recv()
    assert rew.shape == (4,)
    assert term.shape == trunc.shape == masks.shape == (4,)
    assert isinstance(infos, list)
    assert len(ids) == 4


# ---- specs ----------------------------------------------------------------------------


class FakeEngine:
    """An Engine over plain RAM arrays, for specs whose ROM cannot ship: a step applies the
    writes queued in ``pending``."""

    def __init__(self, spec: GameSpec, num_envs: int) -> None:
        self.num_envs = num_envs
        self.observation_shape = (72, 80)
        self.mem = np.zeros((num_envs, 0x10000), np.uint8)
        self.start = self.mem.copy()
        self.pending: list[dict[int, int]] = [{} for _ in range(num_envs)]
        self.obs = np.zeros((num_envs, 72, 80), np.uint8)
        self.addresses = np.array(spec.gathered_addresses, dtype=np.intp)

    @property
    def ram(self) -> Array:
        return self.mem[:, self.addresses]

    def step(self, actions: Array, mask: Array | None, obs_out: Array | None = None) -> None:
        for i in range(self.num_envs):
            if mask is None or mask[i]:
                for a, v in self.pending[i].items():
                    self.mem[i, a] = v
                self.pending[i] = {}

    def reset_envs(self, mask: Array) -> None:
        self.mem[mask] = self.start[mask]

    def set_memory(self, address: int, values: Array, mask: Array) -> None:
        self.mem[mask, address : address + values.shape[1]] = values[mask]

    def read(self, address: int, size: int) -> Array:
        return self.mem[:, address : address + size]

    def frame(self, i: int) -> Array:
        return np.zeros((144, 160), np.uint8)

    def close(self) -> None:
        pass


def test_pokemon_rewards_on_synthetic_ram() -> None:
    engine = FakeEngine(POKEMON_RED, 2)
    party = 0xD163
    engine.start[:, party] = 1  # one Pokémon, level 5, in Pallet Town (map 0) at (3, 4)
    engine.start[:, 0xD18C] = 5
    engine.start[:, 0xD361], engine.start[:, 0xD362] = 4, 3
    batch = EnvBatch(POKEMON_RED, engine, autoreset="disabled")  # type: ignore[arg-type]
    batch.reset(np.arange(2))
    ids = np.arange(2)

    def step(*changes: dict[int, int]) -> list[float]:
        for i, c in enumerate(changes):
            engine.pending[i] = c
        rewards, _, _, _ = batch.step(np.zeros(2, np.int64), ids)
        return [float(r) for r in rewards]

    # Standing still on the start tile: its first visit in this episode counts.
    assert step({}, {}) == pytest.approx([0.1, 0.1])
    assert step({}, {}) == [0.0, 0.0]  # same tile again: nothing
    # Env 0 walks one tile; env 1 sets two event flags (and stays).
    assert step({0xD362: 4}, {0xD747: 0b11}) == pytest.approx([0.1, 2.0])
    # A level up, a badge and a second Pokémon (level 3) caught.
    assert step({0xD18C: 6}, {0xD356: 0b1, party: 2, 0xD1B8: 3}) == pytest.approx([1.0, 13.0])
    # Walking back to a visited tile, a flag cleared and a Pokémon deposited: no penalty.
    assert step({0xD362: 3}, {0xD747: 0b01, party: 1}) == [0.0, 0.0]
    # Each episode explores afresh.
    batch.reset(ids)
    assert step({}, {}) == pytest.approx([0.1, 0.1])
    state = RamState({k: v[:1] for k, v in batch.prev.items()})
    assert state.level_1.tolist() == [5]
    components = emurust.games.pokemon.reward_components(state, state)
    assert components == {"events": [0.0], "levels": [0.0], "badges": [0.0]}
    assert POKEMON_RED.obs_addresses == (0xD35E, 0xD361, 0xD362, 0xD356, 0xD163, 0xD057)


def test_pokemon_without_its_rom_says_how_to_give_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMURUST_POKEMON_RED", "/nonexistent/red.gb")
    with pytest.raises(FileNotFoundError, match=r"not shipped with emurust.*EMURUST_POKEMON_RED"):
        GameBoyVectorEnv("PokemonRed", 1)


def test_novelty_counts_each_key_once_per_episode() -> None:
    spec = GameSpec(
        name="Novel",
        rom=b"",
        actions=((),),
        fields={"x": Field(0xC000), "y": Field(0xC001)},
        reward=lambda b, a: np.zeros(len(a.x)),
        novelty=Novelty(("x", "y"), 0.5),  # 64 keys, 2**20 slots: no collision here
    )
    engine = FakeEngine(spec, 1)
    batch = EnvBatch(spec, engine, autoreset="disabled")  # type: ignore[arg-type]
    batch.reset(np.arange(1))
    seen = 0.0
    rng = np.random.default_rng(0)
    visited = set()
    for _ in range(300):
        x, y = (int(v) for v in rng.integers(0, 8, 2))
        engine.pending[0] = {0xC000: x, 0xC001: y}
        seen += float(batch.step(np.zeros(1, np.int64), np.arange(1))[0][0])
        visited.add((x, y))
    assert seen == 0.5 * len(visited)


def test_tobu_and_2048_specs_on_their_roms(shared_roms: Path) -> None:
    for rel in ("homebrew/2048/2048.gb", "homebrew/tobutobugirl/tobu.gb"):
        if not (shared_roms / rel).is_file():
            pytest.skip(f"{shared_roms / rel} not found")
    # 2048: the reward is the score's increase; random moves fill the board: game over.
    env = GameBoyVectorEnv("2048", 4, num_threads=2)
    env.reset(seed=0)
    score = emurust.games.GAME_2048.fields["score"]
    total = np.zeros(4)
    done = np.zeros(4, bool)
    rng = np.random.default_rng(0)
    for _ in range(1500):
        _, r, term, _, info = env.step(rng.integers(0, 4, 4))
        total += np.where(done, 0, r)
        if "episode" in info:
            ended = info["_episode"] & ~done
            scores = score.decode(env.engine.read(score.address, 2))
            assert np.allclose(info["episode"]["r"][ended], total[ended])
            assert (scores[ended] == total[ended]).all()
        done |= term
        if done.all():
            break
    assert done.all(), "random play fills a 2048 board"
    assert (total > 0).all()
    # Tobu Tobu Girl: standing still, the clock runs out (32 s): the episode ends.
    tobu = GameBoyVectorEnv("TobuTobuGirl", 2, num_threads=2)
    tobu.reset(seed=0)
    steps = 0
    term = np.zeros(2, bool)
    while not term.all() and steps < 700:
        _, _, term, _, _ = tobu.step(np.zeros(2, np.int64))
        steps += 1
    assert term.all()
    assert 32 * 60 / 4 - 40 < steps < 32 * 60 / 4 + 40


def test_a_spec_can_truncate_by_ram_and_start_from_a_state(tmp_path: Path) -> None:
    # Truncated when the game's tick counter passes 30 (2 ticks a step: after 15 steps).
    spec = STARCATCH.replace(truncated=lambda a: a.ticks >= 30, max_episode_steps=None)
    env = GameBoyVectorEnv(spec, 2, num_threads=1)
    env.reset(seed=0)
    ends = []
    for t in range(40):
        _, _, term, trunc, _ = env.step(np.zeros(2, np.int64))
        assert not term.any()
        if trunc.any():
            ends.append(t)
    assert ends == [14, 30]  # (a step to reset in between, then 15 more)
    # A start state given as a save state (a path): a game 50 steps in.
    gb = emurust.GameBoy(emurust.games.starcatch.ROM_PATH)
    emurust.games.starcatch._start(emurust.envs.GameBoyDriver(gb))
    gb.tick(200)
    (tmp_path / "start.state").write_bytes(gb.save_state())
    ticks = STARCATCH.fields["ticks"].address
    from_state = STARCATCH.replace(start=None, initial_state=tmp_path / "start.state")
    env = GameBoyVectorEnv(from_state, 1, num_threads=1)
    env.reset(seed=0)
    assert env.engine.read(ticks, 1)[0, 0] == gb.memory[ticks] > 90
    with pytest.raises(GameSpecError, match="not both"):
        STARCATCH.replace(initial_state=b"state")
    with pytest.raises(GameSpecError, match="emurust save state"):
        GameBoyVectorEnv(from_state, 1, backend="pyboy")
