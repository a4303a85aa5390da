"""The command lines of verification: ``emurust verify`` (:func:`verify_main`, which
:mod:`emurust.cli` routes the command to by name) and the lockstep harness on its own,
``python -m emurust.verify.cli ROM... [--frames N] [--resync] [--json]``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from emurust.verify.lockstep import run_lockstep

__all__ = ["add_verify_parser", "lockstep_main", "run_verify", "verify_main"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NOTHING_VERIFIED = 3


def verify_main(argv: Sequence[str] | None = None) -> int:
    """``emurust verify [options]``: parse ``argv`` (default: the command line after
    ``verify``) and run; returns the exit status (see the parser's description)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="emurust")
    add_verify_parser(parser.add_subparsers(dest="command", required=True))
    try:
        args = parser.parse_args(["verify", *args_list])
    except SystemExit as exc:  # argparse exits 2 on bad usage, 0 for --help
        return int(exc.code or 0)
    return run_verify(args, args_list)


def add_verify_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from emurust.verify import FAULTS, LEVELS

    p = sub.add_parser(
        "verify",
        description=(
            "Level 1, properties: ALU opcodes vs a reference model, memory-map invariants, "
            "save/load and render independence. Level 2, interactions: joypad, timer, OAM DMA, "
            "MBC1/3/5, serial, LCD. Level 3, rollouts: seeded random-input rollouts in lockstep "
            "with PyBoy. Level 4, policy transfer: PPO on Starcatch, TOST. "
            "Exit status: 0 when the checks that ran pass (or are allowlisted) and at least "
            "one ran, 1 when one fails, 2 for bad usage, 3 when nothing was verified (every "
            "check skipped, e.g. level 4 without torch, or none selected): SKIP."
        ),
    )
    p.add_argument(
        "--level",
        type=int,
        action="append",
        choices=LEVELS,
        metavar="N",
        help="level to run (1-4; repeat for several; default 1, 2 and 3: level 4 trains two "
        "PPO agents, one on PyBoy, and takes tens of minutes)",
    )
    p.add_argument(
        "--rom",
        action="append",
        default=[],
        metavar="PATH",
        help="ROM for the level-3 rollouts (repeatable; default: a generated ROM plus the "
        "shared games and test ROMs found)",
    )
    p.add_argument(
        "--frames",
        type=int,
        default=1000,
        metavar="N",
        help="frames of each long level-3 rollout (default 1000)",
    )
    p.add_argument(
        "--short-frames",
        type=int,
        default=300,
        metavar="N",
        help="frames of each short level-3 rollout (default 300)",
    )
    p.add_argument(
        "--short-runs",
        type=int,
        default=8,
        metavar="N",
        help="short level-3 rollouts per ROM, for the divergence statistics (default 8)",
    )
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    p.add_argument(
        "--samples",
        type=int,
        default=512,
        metavar="N",
        help="level-1 cases per secondary opcode encoding (primary encodings are exhaustive)",
    )
    p.add_argument(
        "--report",
        type=Path,
        default=None,
        metavar="DIR",
        help="write report.json and report.md into DIR",
    )
    p.add_argument(
        "--inject-fault",
        choices=FAULTS,
        default=None,
        metavar="NAME",
        help=f"test only: inject a CPU fault on the reference path ({', '.join(FAULTS)}); "
        "level 1 and level 3 should then fail",
    )
    p.add_argument(
        "--roms-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="shared test-ROM folder (default $EMURUST_ROMS or ../shared/roms)",
    )
    p.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="PATTERN",
        help="run only the checks whose name matches this shell pattern (repeatable), "
        "e.g. 'alu.*' or 'rollout*'",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--l4-steps",
        type=int,
        default=None,
        metavar="N",
        help="level 4: PPO steps of each training (default: emurust train's)",
    )
    p.add_argument(
        "--l4-episodes",
        type=int,
        default=100,
        metavar="N",
        help="level 4: seeded evaluation episodes per backend (default 100)",
    )
    p.add_argument(
        "--l4-out",
        type=Path,
        default=None,
        metavar="DIR",
        help="level 4: keep the trainings' logs and agents in DIR",
    )


def run_verify(args: argparse.Namespace, argv: Sequence[str]) -> int:
    from emurust.verify import DEFAULT_LEVELS, Config, print_summary, run, write_report

    try:
        config = Config(
            levels=args.level or DEFAULT_LEVELS,
            roms=args.rom,
            frames=args.frames,
            short_frames=args.short_frames,
            short_runs=args.short_runs,
            seed=args.seed,
            samples=args.samples,
            fault=args.inject_fault,
            roms_dir=args.roms_dir,
            only=args.only,
            progress=not args.no_progress,
            l4_steps=args.l4_steps,
            l4_episodes=args.l4_episodes,
            l4_out=args.l4_out,
            argv=list(argv),
        )
        for rom in config.roms:
            if not Path(rom).is_file():
                raise ValueError(f"ROM {rom} not found")
        if args.report is not None:
            # Made before the (long) run, so that a bad path is said at once.
            try:
                args.report.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ValueError(
                    f"--report {args.report}: cannot make that directory "
                    f"({exc.strerror or exc}{'; it is a file' if args.report.is_file() else ''})"
                ) from None
        report = run(config)
    except (ValueError, RuntimeError) as exc:
        print(f"emurust verify: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print_summary(report)
    if args.report is not None:
        try:
            json_path, md_path = write_report(report, args.report)
        except OSError as exc:
            print(f"emurust verify: cannot write the report: {exc}", file=sys.stderr)
            return EXIT_USAGE
        print(f"wrote {json_path} and {md_path}")
    return {"PASS": EXIT_OK, "FAIL": EXIT_FAILED}.get(report.verdict, EXIT_NOTHING_VERIFIED)


def lockstep_main(argv: Sequence[str] | None = None) -> int:
    """``python -m emurust.verify.cli ROM... [--frames N] [--resync] [--json]``: lockstep
    runs against PyBoy, one summary (or JSON object) per ROM."""
    parser = argparse.ArgumentParser(
        prog="python -m emurust.verify.cli", description="emurust vs PyBoy in lockstep"
    )
    parser.add_argument("rom", nargs="+")
    parser.add_argument("--frames", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-input", action="store_true")
    parser.add_argument("--no-screen", action="store_true")
    parser.add_argument("--trace-length", type=int, default=64)
    parser.add_argument("--fault", default=None)
    parser.add_argument("--resync", action="store_true", help="go on past divergences")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    for rom in args.rom:
        result = run_lockstep(
            rom,
            frames=args.frames,
            seed=args.seed,
            inputs={} if args.no_input else None,
            compare_screen=not args.no_screen,
            trace_length=args.trace_length,
            fault=args.fault,
            resync=args.resync,
        )
        print(json.dumps(result.to_dict(), indent=1) if args.json else result.summary())
    return 0


if __name__ == "__main__":
    sys.exit(lockstep_main())
