"""The ``emurust`` command line: ``emurust train``, ``emurust play``, ``emurust verify``,
``emurust prompts``, ``emurust conformance`` (``python -m emurust ...`` is the same)."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2

# Every subcommand: its arguments are handed, unparsed, to an entry point of the module
# named here, imported only when the command runs (so the product never imports the
# tooling: verify, prompts and conformance import the product, not the other way round).
DELEGATED = {
    "verify": (
        "emurust.verify.cli",
        "verify_main",
        "run the verification levels and write report.json / report.md",
    ),
    "prompts": ("emurust.prompts", "cli_main", "render the translation and repair prompts"),
    "conformance": ("emurust.conformance", "main", "run the conformance test-ROM suites"),
    "train": ("emurust.rl.cli", "train_main", "train PPO on a game (needs the rl extra: torch)"),
    "play": ("emurust.rl.cli", "play_main", "play an episode with a trained agent, as a GIF"),
}


def _delegate(command: str, rest: list[str]) -> int:
    module_name, function, _ = DELEGATED[command]
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        print(f"emurust {command}: {module_name} is not available ({exc})", file=sys.stderr)
        return EXIT_USAGE
    entry = getattr(module, function, None)
    if entry is None:
        print(f"emurust {command}: {module_name} has no {function}()", file=sys.stderr)
        return EXIT_USAGE
    code = entry(rest)
    return int(code or 0)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``emurust`` script; returns the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] in DELEGATED:
        return _delegate(args_list[0], args_list[1:])
    parser = argparse.ArgumentParser(prog="emurust", description="EmuRust Game Boy emulator tools.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, _, help_text) in DELEGATED.items():
        sub.add_parser(name, help=f"{help_text} (options: emurust {name} --help)")
    try:
        parser.parse_args(args_list)
    except SystemExit as exc:  # argparse exits 2 on bad usage, 0 for --help
        return int(exc.code or 0)
    parser.print_help()  # no command
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
