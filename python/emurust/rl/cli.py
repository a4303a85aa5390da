"""``emurust train`` and ``emurust play``.

``emurust train`` trains PPO (:mod:`emurust.rl.ppo`) on a game, with a progress bar (env
steps/s, mean episodic return), CSV and TensorBoard logs and checkpoints; at the end it
evaluates the trained agent and a random policy on the same seeded episodes, and writes a
learning-curve PNG, a GIF of the agent playing and a summary (``summary.json``,
``summary.md``). ``emurust play CHECKPOINT --gif out.gif`` plays an episode with a saved agent.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from emurust._core import InvalidArgumentError
from emurust.games import GameSpec, get, names, register

__all__ = ["learning_curve", "play", "play_main", "resolve_game", "train_main"]

_TITLES = {"STARCATCH": "Starcatch", "2048": "2048", "TOBU": "TobuTobuGirl"}

RL_EXTRA = "install the rl extra: pip install 'emurust[rl]'"


def _without_torch(command: str, error: ModuleNotFoundError) -> int:
    """``emurust train``/``play`` without torch: say what to install (exit status 2)."""
    if error.name is None or error.name.split(".")[0] != "torch":
        raise error
    print(f"emurust {command} needs torch, which is not installed: {RL_EXTRA}", file=sys.stderr)
    return 2


class _NoTorchDefaults:
    """Stands in for PPOConfig() so that ``emurust train --help`` works without torch
    (the help never shows the defaults it would read)."""

    def __getattr__(self, name: str) -> None:
        return None


def resolve_game(game: str) -> tuple[GameSpec, str | None]:
    """``bundled`` (Starcatch), a registered name or id, a ``.py`` file that defines a
    ``GameSpec`` (registered on load), or a ROM file of a known game (by its header title;
    Pokémon Red too). Returns the spec and the ROM path to use (None: the spec's)."""
    if game == "bundled":
        return get("Starcatch"), None
    path = Path(game)
    if path.suffix == ".py" and path.is_file():
        module_spec = importlib.util.spec_from_file_location(path.stem, path)
        if module_spec is None or module_spec.loader is None:
            raise ValueError(f"{path} cannot be imported")
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
        specs = [v for v in vars(module).values() if isinstance(v, GameSpec)]
        if len(specs) != 1:
            raise ValueError(f"{path} must define exactly one GameSpec, found {len(specs)}")
        return register(specs[0], replace=True), None
    if path.suffix.lower() in (".gb", ".gbc") and path.is_file():
        title = path.read_bytes()[0x134:0x143].split(b"\0")[0].decode("ascii", "replace")
        if title.startswith("POKEMON RED"):
            return get("PokemonRed"), str(path)
        for prefix, name in _TITLES.items():
            if title.startswith(prefix):
                return get(name), str(path)
        raise ValueError(
            f"{path}: no spec for a game titled {title!r}; write one (docs/envs.md) and pass "
            "its .py file"
        )
    return get(game), None


def play(
    checkpoint: str | Path | None,
    game: str | GameSpec,
    *,
    gif: str | Path | None = None,
    max_steps: int = 1000,
    seed: int = 0,
    backend: str = "emurust",
    greedy: bool = False,
    rom: str | None = None,
) -> tuple[float, int]:
    """One episode (at most ``max_steps`` steps) with the agent of ``checkpoint`` (None: random
    actions); writes a GIF of it when ``gif`` is given. Returns (return, steps)."""
    import torch

    from emurust.envs import GameBoyEnv
    from emurust.rl.ppo import load_agent

    spec = get(game)
    env = GameBoyEnv(spec, backend=backend, rom=rom, render_mode="rgb_array")
    agent = load_agent(checkpoint)[0] if checkpoint is not None else None
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    frames = [env.render()]
    total, steps = 0.0, 0
    for steps in range(1, max_steps + 1):  # noqa: B007 (steps is the count after the loop)
        if agent is None:
            action = int(rng.integers(len(spec.actions)))
        else:
            screen = obs["screen"] if isinstance(obs, dict) else obs
            ram = torch.as_tensor(obs["ram"][None]) if isinstance(obs, dict) else None
            with torch.no_grad():
                act, _, _, _ = agent.act(torch.as_tensor(screen[None]), ram, greedy=greedy)
            action = int(act[0])
        obs, reward, term, trunc, _ = env.step(action)
        total += reward
        frames.append(env.render())
        if term or trunc:
            break
    env.close()
    if gif is not None:
        from PIL import Image

        images = [Image.fromarray(f) for f in frames if f is not None]
        ms = 10 * max(2, round(100 * spec.frame_skip / 60))  # GIFs count in 1/100 s
        images[0].save(gif, save_all=True, append_images=images[1:], duration=ms, loop=0)
    return total, steps


def learning_curve(out: Path, random_return: float | None, trained_return: float | None) -> bool:
    """``learning_curve.png`` from ``progress.csv``: mean episodic return against env steps,
    with the random policy's and the final evaluation's returns as lines."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    import csv

    with open(out / "progress.csv") as f:
        rows = [r for r in csv.DictReader(f) if r["charts/episodic_return"] not in ("", "nan")]
    if not rows:
        return False
    steps = [int(r["global_step"]) for r in rows]
    ret = [float(r["charts/episodic_return"]) for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(steps, ret, label="PPO: mean return of the last 100 episodes")
    if random_return is not None:
        ax.axhline(random_return, color="grey", ls="--", label="random policy (evaluation)")
    if trained_return is not None:
        ax.axhline(trained_return, color="green", ls=":", label="trained agent (evaluation)")
    ax.set_xlabel("env steps")
    ax.set_ylabel("episodic return")
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "learning_curve.png", dpi=110)
    plt.close(fig)
    return True


def train_main(argv: Sequence[str] | None = None) -> int:
    defaults: Any
    try:
        from emurust.rl.ppo import PPOConfig, evaluate, load_agent, train

        defaults = PPOConfig()
    except ModuleNotFoundError as e:
        if not {"-h", "--help"} & set(sys.argv[1:] if argv is None else argv):
            return _without_torch("train", e)
        defaults = _NoTorchDefaults()  # --help: argparse prints it and exits
    p = argparse.ArgumentParser(
        prog="emurust train",
        description="Train PPO on a game; write logs, checkpoints, a learning curve, a GIF "
        f"and a summary. Needs torch: {RL_EXTRA}.",
    )
    p.add_argument(
        "--game",
        default="bundled",
        help=f"bundled (Starcatch), a game name ({', '.join(names())}), a spec .py file or a "
        "ROM of a known game (default: bundled)",
    )
    p.add_argument("--total-steps", type=int, default=defaults.total_timesteps, metavar="N")
    p.add_argument("--num-envs", type=int, default=defaults.num_envs, metavar="N")
    p.add_argument(
        "--num-steps",
        type=int,
        default=defaults.num_steps,
        metavar="N",
        help="steps per env per rollout",
    )
    p.add_argument("--backend", choices=("emurust", "pyboy"), default="emurust")
    p.add_argument("--device", default="cpu", help="cpu or cuda (default cpu)")
    p.add_argument("--seed", type=int, default=defaults.seed)
    p.add_argument("--learning-rate", type=float, default=defaults.learning_rate)
    p.add_argument(
        "--threads",
        type=int,
        default=None,
        help="emulator threads (default: all cores; with --ray: per actor, default 1)",
    )
    p.add_argument(
        "--torch-threads",
        type=int,
        default=None,
        metavar="N",
        help="torch threads for the PPO update (default: torch's; the policy acts on one "
        "thread beside the emulators). 1 is fastest where other work shares the cores",
    )
    p.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="step the envs in Ray actors (pip install 'emurust[ray]'): join the cluster at "
        "ADDRESS, or start a local one when none is given",
    )
    p.add_argument("--actors", type=int, default=2, metavar="N", help="Ray actors (2)")
    p.add_argument(
        "--envs-per-actor",
        type=int,
        default=None,
        metavar="M",
        help="envs per Ray actor (default: --num-envs / --actors)",
    )
    p.add_argument("--out", default="runs/train", help="output folder (runs/train)")
    p.add_argument(
        "--eval-episodes",
        type=int,
        default=32,
        metavar="N",
        help="seeded episodes to evaluate the agent and a random policy on (32)",
    )
    p.add_argument(
        "--gif-steps",
        type=int,
        default=600,
        metavar="N",
        help="steps of the GIF episode (600; 0: no GIF)",
    )
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    try:
        spec, rom = resolve_game(args.game)
    except (ValueError, KeyError, FileNotFoundError) as e:
        print(f"emurust train: {e}", file=sys.stderr)
        return 2
    if rom is not None:
        spec = register(spec.replace(rom=rom), replace=True)
    num_envs = args.num_envs
    if args.ray is not None:
        if args.backend != "emurust":
            print("emurust train: --ray runs the emurust backend", file=sys.stderr)
            return 2
        if args.actors < 1:
            print(f"emurust train: --actors must be at least 1, got {args.actors}", file=sys.stderr)
            return 2
        if args.envs_per_actor is not None:
            num_envs = args.actors * args.envs_per_actor
        if num_envs < args.actors or num_envs % args.actors:
            print(
                f"emurust train: --num-envs ({num_envs}) must be a multiple of --actors "
                f"({args.actors})",
                file=sys.stderr,
            )
            return 2
    config = dataclasses.replace(
        defaults,
        game=spec.name,
        total_timesteps=args.total_steps,
        num_envs=num_envs,
        num_steps=args.num_steps,
        backend=args.backend,
        device=args.device,
        seed=args.seed,
        learning_rate=args.learning_rate,
        num_threads=args.threads,
        torch_threads=args.torch_threads,
        vectorization="ray" if args.ray is not None else defaults.vectorization,
        ray_address=args.ray or None,
        ray_actors=args.actors,
    )
    out = Path(args.out)
    where = ""
    if args.ray is not None:
        cluster = args.ray or "a local cluster"
        where = f" in {args.actors} Ray actors of {num_envs // args.actors} ({cluster})"
    print(
        f"training PPO on {spec.name} ({config.backend}): {config.total_timesteps:,} steps, "
        f"{config.num_envs} envs{where} -> {out}"
    )
    try:
        result = train(config, out, progress=not args.no_progress)
    except (ImportError, InvalidArgumentError, ValueError) as e:  # no Ray, too few CPUs...
        print(f"emurust train: {e}", file=sys.stderr)
        return 2
    print(
        f"trained {result.global_step:,} steps in {result.seconds:.0f} s "
        f"({result.sps:,.0f} steps/s; {100 * result.env_seconds / result.seconds:.0f}% "
        "of the time waiting for or handing work to the emulators, "
        f"{100 * result.update_seconds / result.seconds:.0f}% in the PPO update)"
    )
    agent, _ = load_agent(out / "agent.pt", args.device)
    n = args.eval_episodes
    t = time.perf_counter()
    trained = evaluate(agent, spec, n, backend=config.backend, device=args.device)
    random = evaluate(None, spec, n, backend=config.backend)
    summary: dict[str, Any] = json.loads((out / "summary.json").read_text())
    summary["evaluation"] = {
        "episodes": n,
        "seeds": f"10000..{10000 + n - 1}",
        "trained_mean_return": float(trained.mean()),
        "trained_std_return": float(trained.std()),
        "random_mean_return": float(random.mean()),
        "random_std_return": float(random.std()),
        "seconds": round(time.perf_counter() - t, 1),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    lines = [
        f"# PPO on {spec.name}",
        "",
        f"- {result.global_step:,} env steps in {result.seconds:.0f} s of training "
        f"({result.sps:,.0f} steps/s), backend {config.backend}, {config.num_envs} envs, "
        f"seed {config.seed}",
        f"- evaluation on {n} seeded episodes: trained agent {trained.mean():.1f} "
        f"(std {trained.std():.1f}), random policy {random.mean():.1f} (std {random.std():.1f})",
    ]
    if learning_curve(out, float(random.mean()), float(trained.mean())):
        lines.append("- learning curve: learning_curve.png")
    if args.gif_steps:
        ret, steps = play(
            out / "agent.pt",
            spec,
            gif=out / "agent.gif",
            max_steps=args.gif_steps,
            backend=config.backend,
        )
        lines.append(f"- agent.gif: {steps} steps of the agent playing (return {ret:.0f})")
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines[2:]))
    return 0


def play_main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="emurust play",
        description=f"Play an episode with a trained agent (agent.pt). Needs torch: {RL_EXTRA}.",
    )
    p.add_argument("checkpoint", help="agent.pt or a checkpoint from emurust train")
    p.add_argument("--game", default=None, help="default: the game the agent was trained on")
    p.add_argument("--gif", default=None, metavar="PATH", help="write the episode as a GIF")
    p.add_argument("--steps", type=int, default=1000, help="at most this many steps (1000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--backend", choices=("emurust", "pyboy"), default="emurust")
    p.add_argument("--greedy", action="store_true", help="the most likely action, not a sample")
    args = p.parse_args(argv)
    try:
        from emurust.rl.ppo import load_agent
    except ModuleNotFoundError as e:
        return _without_torch("play", e)
    try:
        _, meta = load_agent(args.checkpoint)
        spec, rom = resolve_game(args.game or meta["game"])
    except (OSError, ValueError, KeyError) as e:
        print(f"emurust play: {e}", file=sys.stderr)
        return 2
    ret, steps = play(
        args.checkpoint,
        spec,
        gif=args.gif,
        max_steps=args.steps,
        seed=args.seed,
        backend=args.backend,
        greedy=args.greedy,
        rom=rom,
    )
    print(
        f"{spec.name}: return {ret:.1f} in {steps} steps"
        + (f"; wrote {args.gif}" if args.gif else "")
    )
    return 0
