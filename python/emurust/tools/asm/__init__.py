"""A small, deterministic two-pass SM83 (Game Boy CPU) assembler for a subset of RGBDS syntax.

Run it as ``python -m emurust.tools.asm SOURCE -o OUT.gb [--sym OUT.sym] [--fix] [--pad N]``
or call :func:`assemble` / :func:`assemble_file`. Pass 1 reads the source and gives every
statement its address (no instruction's size depends on its operands' values); pass 2
evaluates the expressions and encodes the bytes. The same source always gives the same ROM.

Supported syntax. Mnemonics, registers, conditions, directives and the functions HIGH and LOW
are case-insensitive; labels and constants are case-sensitive and may not be reserved words.

* ``; comment`` runs to the end of the line (not inside strings or character literals).
* ``Name:`` or ``Name::`` defines a global label, ``.name:`` a local label of the last global
  label (full name ``Name.name``; ``Name.name:`` also works inside ``Name``'s scope). A label
  may be followed by an instruction or a directive on the same line. ``.name`` refers to the
  local label of the current scope, ``Name.name`` to one anywhere.
* ``DEF NAME EQU expr`` and ``NAME EQU expr`` define a constant; redefinitions and names
  clashing with labels are errors. A constant may refer to symbols defined later.
* ``SECTION "name", TYPE[$addr]``, TYPE one of ROM0 ($0000-$3FFF) or the RAM-like WRAM0
  ($C000-$CFFF), WRAMX ($D000-$DFFF), HRAM ($FF80-$FFFE), VRAM ($8000-$9FFF), SRAM
  ($A000-$BFFF), OAM ($FE00-$FE9F); or ``SECTION "name", ROMX[$addr], BANK[n]``: code and
  data in switchable bank n (1-511) at $4000-$7FFF, file offset ``n * $4000 + addr -
  $4000`` (its labels are CPU addresses; :attr:`Assembly.banks` and the ``.sym`` file give
  their banks). The address (and a ROMX section's bank) is required, section names are
  unique, a section may not run past its range nor overlap another in the same bank.
  RAM-like sections hold only labels and ``ds``. The ROM is 32 KiB, or the power of two that
  holds its last bank; the header's size and cartridge type bytes are the source's.
* ``db`` bytes (-128..255) and "strings" (ASCII; escapes ``\\n \\t \\r \\0 \\\\ \\" \\'``),
  ``dw`` little-endian words (-32768..65535), ``ds count`` / ``ds count, fill`` (the count
  must be known when it is reached; in ROM the fill defaults to the pad byte; RAM sections
  take no fill).
* ``INCLUDE "file"`` (relative to the including file's folder; include cycles are errors) and
  ``ASSERT expr`` / ``ASSERT expr, "message"`` (checked in pass 2).
* Expressions: ``123 $1F 0x1F %1010 0b1010`` (``_`` may separate digits), ``'A'``, the 2bpp
  graphics literal `` `01233210 `` (``(hi << 8) | lo``, so ``dw`` emits the tile row's two
  bytes), ``@`` (the address where the statement starts), symbols, ``HIGH(x)``, ``LOW(x)``,
  parentheses, unary ``- + ~ !`` and binary ``* / %  + -  << >>  < <= > >=  == !=  &  ^  |
  &&  ||`` with C precedence (``/`` and ``%`` truncate toward zero). Values are unbounded
  integers checked where they are encoded.
* Every SM83 instruction (245 base opcodes, 256 CB-prefixed) with RGBDS operands: ``[hl]``,
  ``[bc]``, ``[de]``, ``[hl+]``/``[hli]``, ``[hl-]``/``[hld]``, ``[c]``/``[$ff00+c]``,
  ``[n16]``; ``ldh [n8], a`` / ``ldh a, [n8]`` (n8 in $00-$FF or $FF00-$FFFF) and
  ``ldh [c], a`` / ``ldh a, [c]``; ``ld hl, sp+e8`` / ``sp-e8``; ``add sp, e8``; ``jr``
  (relative, -128..127 bytes from the next instruction); ``jp hl`` / ``jp [hl]``; the ALU
  ops as ``add a, x`` or ``add x``; ``stop`` emits ``10 00``. Conditions: nz z nc c.

The package is the project's one home for building Game Boy programs in Python:

* this module: the assembler (:func:`assemble`, :func:`assemble_file`, the command line in
  :mod:`.cli`), in five private parts: ``_syntax`` (errors, instruction-set tables, reserved
  words), ``_lexer`` (tokens), ``_expr`` (symbols and expressions), ``_encoder`` (operands and
  encodings) and ``_assembler`` (the two passes);
* :mod:`.rom`: cartridge images (the header, its checksums, :func:`~.rom.build_rom`,
  :func:`~.rom.random_rom`);
* :mod:`.ops` and :mod:`.program`: machine code written in Python, one instruction's bytes at
  a time (:mod:`.ops`) or as a :class:`~.program.Program` with labels, and the tests' default
  serial program.
"""

from __future__ import annotations

from emurust.tools.asm._assembler import Assembly, assemble, assemble_file
from emurust.tools.asm._syntax import AsmError
from emurust.tools.asm.cli import main
from emurust.tools.asm.rom import fix_header

__all__ = ["AsmError", "Assembly", "assemble", "assemble_file", "fix_header", "main"]
