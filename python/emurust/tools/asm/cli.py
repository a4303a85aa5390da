"""The assembler's command line: ``python -m emurust.tools.asm SOURCE -o OUT [--sym F] [--fix]``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from emurust.tools.asm._assembler import assemble_file
from emurust.tools.asm._syntax import AsmError


def _byte(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text}") from None
    if not 0 <= value <= 0xFF:
        raise argparse.ArgumentTypeError(f"not a byte: {text}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: ``python -m emurust.tools.asm SOURCE -o OUT [--sym F] [--fix]``."""
    parser = argparse.ArgumentParser(
        prog="python -m emurust.tools.asm", description="Assemble an SM83 (RGBDS syntax) ROM."
    )
    parser.add_argument("source", help="the assembly source file")
    parser.add_argument("-o", "--output", required=True, help="the ROM file to write")
    parser.add_argument("--sym", help="also write the labels to this .sym file")
    parser.add_argument("--fix", action="store_true", help="write the logo and checksums")
    parser.add_argument("--pad", type=_byte, default=0, help="the byte for unused ROM")
    args = parser.parse_args(argv)
    try:
        result = assemble_file(args.source, fix=args.fix, pad=args.pad)
    except AsmError as exc:
        print(exc, file=sys.stderr)
        return 1
    except (OSError, UnicodeDecodeError) as exc:
        print(f"{args.source}: {exc}", file=sys.stderr)
        return 1
    Path(args.output).write_bytes(result.rom)
    if args.sym:
        with open(args.sym, "w", encoding="ascii", newline="\n") as file:
            file.write(result.sym_text())
    return 0
