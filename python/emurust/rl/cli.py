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

from emurust._core import InvalidArgumentError, available_cpus
from emurust.games import GameSpec, get, names, register
from emurust.games._spec import MODELS

__all__ = ["learning_curve", "play", "play_main", "resolve_game", "train_main"]

_TITLES = {"STARCATCH": "Starcatch", "2048": "2048", "TOBU": "TobuTobuGirl"}

RL_EXTRA = "install the rl extra: pip install 'emurust[rl]'"


def _without_torch(command: str, error: ModuleNotFoundError) -> int:
    """``emurust train``/``play`` without torch: say what to install (exit status 2)."""
    if error.name is None or error.name.split(".")[0] != "torch":
        raise error
    print(f"emurust {command} needs torch, which is not installed: {RL_EXTRA}", file=sys.stderr)
    return 2


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
    from emurust.rl.ppo import load_agent, policy_spec, split_obs

    agent = load_agent(checkpoint)[0] if checkpoint is not None else None
    spec = policy_spec(get(game), agent.kind if agent is not None else "pixel")
    env = GameBoyEnv(spec, backend=backend, rom=rom, render_mode="rgb_array")
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    frames = [env.render()]
    total, steps = 0.0, 0
    for steps in range(1, max_steps + 1):  # noqa: B007 (steps is the count after the loop)
        if agent is None:
            action = int(rng.integers(len(spec.actions)))
        else:
            screen, ram = split_obs(obs, spec)
            act = agent.observe(
                None if screen is None else torch.as_tensor(screen[None]),
                None if ram is None else torch.as_tensor(ram[None]),
                greedy=greedy,
            )
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


def _shares(result: Any) -> str:
    """Where the wall time went. When the update ran beside the rollouts (``update_lag=1``
    with 2 CPUs or more), its share is the time training waited for it, and its own length
    is said beside."""
    names = {
        "env": "emulators (recv/send)",
        "inference": "policy inference",
        "copies": "copies",
        "update": "PPO update",
        "other": "other",
    }
    text = ", ".join(f"{names[k]} {100 * v:.0f}%" for k, v in result.shares.items())
    if result.update_on_thread:
        busy = result.update_seconds / result.seconds if result.seconds else 0.0
        text = text.replace(
            "PPO update",
            f"waiting for the PPO update (which ran {100 * busy:.0f}% of the time"
            ", beside the rollouts)",
        )
    return text


def add_config_arguments(p: argparse.ArgumentParser, skip: Sequence[str] = ()) -> None:
    """One flag per :class:`~emurust.rl.config.PPOConfig` field (``--num-envs`` for
    ``num_envs``, with the aliases and help of the field's metadata): the option names have
    one source."""
    from emurust.rl.config import PPOConfig

    for f in dataclasses.fields(PPOConfig):
        if f.name in skip:
            continue
        meta = f.metadata
        flags = [f"--{f.name.replace('_', '-')}", *meta.get("aliases", ())]
        default = f.default
        kind = {"int": int, "float": float, "str": str, "bool": bool}[
            str(f.type).split(" ")[0].replace("| None", "").strip()
        ]
        help = meta.get("help", "")
        if kind is bool:
            p.add_argument(
                *flags,
                dest=f.name,
                action=argparse.BooleanOptionalAction,
                default=default,
                help=f"{help} (default: {'yes' if default else 'no'})",
            )
            continue
        auto = meta.get("auto", False)
        if auto and default is None:
            help += " (default: auto)"
        elif default is not None and "default" not in help:
            help += f" (default: {default})"

        def convert(text: str, kind: Any = kind, auto: bool = auto, name: str = flags[0]) -> Any:
            if auto and text == "auto":
                return None
            try:
                return kind(text)
            except ValueError:
                raise argparse.ArgumentTypeError(
                    f"{name} takes {'auto or ' if auto else ''}a {kind.__name__}, not {text!r}"
                ) from None

        p.add_argument(
            *flags,
            dest=f.name,
            type=convert,
            default=default,
            choices=meta.get("choices"),
            metavar={int: "N", float: "X", str: None}[kind] if not meta.get("choices") else None,
            help=help,
        )


def train_main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="emurust train",
        description="Train PPO on a game; write logs, checkpoints, a learning curve, a GIF "
        "and a summary. Every PPOConfig field is a flag (its name with - for _). Needs torch: "
        f"{RL_EXTRA}.",
    )
    p.add_argument(
        "--game",
        default="bundled",
        help=f"bundled (Starcatch), a game name ({', '.join(names())}), a spec .py file or a "
        "ROM of a known game (default: bundled)",
    )
    add_config_arguments(p, skip=("game",))
    p.add_argument(
        "--model",
        choices=MODELS,
        default=None,
        help="the machine: dmg, cgb (Game Boy Color) or auto (CGB for a CGB-flagged ROM) "
        "(default: the game spec's, dmg unless the spec says otherwise)",
    )
    p.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="step the envs in Ray actors (pip install 'emurust[ray]'): join the cluster at "
        "ADDRESS, or start a local one when none is given (--vectorization ray "
        "--ray-address ADDRESS)",
    )
    p.add_argument(
        "--envs-per-actor",
        type=int,
        default=None,
        metavar="M",
        help="envs per Ray actor (default: --num-envs / --ray-actors)",
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
    # torch is needed from here on (the parser above works without it).
    from emurust.rl.config import PPOConfig

    try:
        from emurust.rl.ppo import evaluate, load_agent, train
    except ModuleNotFoundError as e:
        return _without_torch("train", e)

    try:
        spec, rom = resolve_game(args.game)
    except (ValueError, KeyError, FileNotFoundError) as e:
        print(f"emurust train: {e}", file=sys.stderr)
        return 2
    if rom is not None:
        spec = register(spec.replace(rom=rom), replace=True)
    if args.model is not None and args.model != spec.model:
        spec = register(spec.replace(model=args.model), replace=True)
    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(PPOConfig)}
    values["game"] = spec.name
    if args.ray is not None:
        values["vectorization"] = "ray"
        values["ray_address"] = args.ray or None
    if values["vectorization"] == "ray":
        if args.backend != "emurust":
            print("emurust train: --ray runs the emurust backend", file=sys.stderr)
            return 2
        actors = values["ray_actors"]
        if actors < 1:
            print(f"emurust train: --ray-actors must be at least 1, got {actors}", file=sys.stderr)
            return 2
        if args.envs_per_actor is not None:
            values["num_envs"] = actors * args.envs_per_actor
    config = PPOConfig(**values).resolved()
    num_envs = config.num_envs
    assert num_envs is not None
    if config.vectorization == "ray" and (
        num_envs < config.ray_actors or num_envs % config.ray_actors
    ):
        print(
            f"emurust train: --num-envs ({num_envs}) must be a multiple of --ray-actors "
            f"({config.ray_actors})",
            file=sys.stderr,
        )
        return 2
    out = Path(args.out)
    where = ""
    if config.vectorization == "ray":
        cluster = config.ray_address or "a local cluster"
        where = f" in {config.ray_actors} Ray actors of {num_envs // config.ray_actors} ({cluster})"
    print(
        f"training PPO ({config.policy} policy) on {spec.name} ({config.backend}): "
        f"{config.total_timesteps:,} steps, {num_envs} envs{where} -> {out}"
    )
    try:
        result = train(config, out, progress=not args.no_progress)
    except (ImportError, InvalidArgumentError, ValueError) as e:  # no Ray, too few CPUs...
        print(f"emurust train: {e}", file=sys.stderr)
        return 2
    threads = result.threads
    print(
        f"trained {result.global_step:,} steps in {result.seconds:.0f} s "
        f"({result.sps:,.0f} steps/s). Where the time went: {_shares(result)}. "
        f"Threads: emulators {threads['emulator'] or 'auto'}, policy {threads['rollout']}, "
        f"update {threads['update']} (of {available_cpus()} CPUs this process may use)"
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
        f"({result.sps:,.0f} steps/s), {config.policy} policy, backend {config.backend}, "
        f"{config.num_envs} envs, seed {config.seed}",
        f"- where the time went: {_shares(result)}",
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
    p.add_argument(
        "--model", choices=MODELS, default=None, help="the machine (default: the spec's)"
    )
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
    if args.model is not None:
        spec = spec.replace(model=args.model)
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
