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
  ($A000-$BFFF), OAM ($FE00-$FE9F). The address is required, section names are unique, a
  section may not run past its range nor overlap another. RAM-like sections hold only labels
  and ``ds``. ROMX is not supported.
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
"""

from __future__ import annotations

import argparse
import contextlib
import operator
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["AsmError", "Assembly", "assemble", "assemble_file", "fix_header", "main"]

NINTENDO_LOGO = bytes.fromhex(
    "CEED6666CC0D000B03730083000C000D0008111F8889000E"
    "DCCC6EE6DDDDD999BBBB67636E0EECCCDDDC999FBBB9333E"
)
"""The logo every cartridge carries at 0x104-0x133 (the boot ROM checks it)."""

MIN_ROM_SIZE = 0x8000


class AsmError(Exception):
    """An error in the assembly source. The message starts with ``file:line: ``."""


class _Error(Exception):
    """An error without a location: the code handling the statement adds ``file:line: ``."""


class _UndefinedError(_Error):
    """A symbol that is not (yet) defined."""


# ---------------------------------------------------------------------------
# Instruction set tables
# ---------------------------------------------------------------------------

# Register orders of the opcode space: index 6 of the r8 order is [hl].
_R8 = {"b": 0, "c": 1, "d": 2, "e": 3, "h": 4, "l": 5, "a": 7}
_R16 = {"bc": 0, "de": 1, "hl": 2, "sp": 3}
_R16_STACK = {"bc": 0, "de": 1, "hl": 2, "af": 3}
_CONDITIONS = {"nz": 0, "z": 1, "nc": 2, "c": 3}
_ALU = {"add": 0, "adc": 1, "sub": 2, "sbc": 3, "and": 4, "xor": 5, "or": 6, "cp": 7}
_CB_SHIFTS = {"rlc": 0, "rrc": 1, "rl": 2, "rr": 3, "sla": 4, "sra": 5, "swap": 6, "srl": 7}
_CB_BITS = {"bit": 0x40, "res": 0x80, "set": 0xC0}
_NO_OPERANDS = {
    "nop": b"\x00",
    "rlca": b"\x07",
    "rrca": b"\x0f",
    "stop": b"\x10\x00",
    "rla": b"\x17",
    "rra": b"\x1f",
    "daa": b"\x27",
    "cpl": b"\x2f",
    "scf": b"\x37",
    "ccf": b"\x3f",
    "halt": b"\x76",
    "reti": b"\xd9",
    "di": b"\xf3",
    "ei": b"\xfb",
}
# Loads between A and memory addressed by a register (or by an n16, key "").
_LD_A_FROM_MEM = {"bc": 0x0A, "de": 0x1A, "hl+": 0x2A, "hl-": 0x3A, "c": 0xF2, "": 0xFA}
_LD_MEM_FROM_A = {"bc": 0x02, "de": 0x12, "hl+": 0x22, "hl-": 0x32, "c": 0xE2, "": 0xEA}
# The text inside [...] of register memory operands.
_MEM_REGISTERS = {
    ("hl",): "hl",
    ("hl", "+"): "hl+",
    ("hli",): "hl+",
    ("hl", "-"): "hl-",
    ("hld",): "hl-",
    ("bc",): "bc",
    ("de",): "de",
    ("c",): "c",
}

_MNEMONICS = frozenset(
    ["ld", "ldh", "push", "pop", "inc", "dec", "jr", "jp", "call", "ret", "rst"]
).union(_NO_OPERANDS, _ALU, _CB_SHIFTS, _CB_BITS)
_DIRECTIVES = frozenset(["section", "db", "dw", "ds", "include", "assert", "def", "equ"])
_REGISTER_WORDS = frozenset([*_R8, *_R16, *_R16_STACK, *_CONDITIONS])
# Section types and their address ranges (inclusive).
_SECTION_TYPES = {
    "rom0": ("ROM0", 0x0000, 0x3FFF),
    "wram0": ("WRAM0", 0xC000, 0xCFFF),
    "wramx": ("WRAMX", 0xD000, 0xDFFF),
    "hram": ("HRAM", 0xFF80, 0xFFFE),
    "vram": ("VRAM", 0x8000, 0x9FFF),
    "sram": ("SRAM", 0xA000, 0xBFFF),
    "oam": ("OAM", 0xFE00, 0xFE9F),
}
_RESERVED = (
    _MNEMONICS
    | _DIRECTIVES
    | _REGISTER_WORDS
    | frozenset(_SECTION_TYPES)
    | frozenset(["romx", "hli", "hld", "high", "low"])
)

# ---------------------------------------------------------------------------
# Tokens
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Tok:
    kind: str  # "num", "str", "id" or "op"
    text: str  # the source text; for "str" the decoded string
    pos: int  # column where the token starts
    value: int = 0  # for "num"


_OPERATOR = re.compile(r"<<|>>|<=|>=|==|!=|&&|\|\||::|[-+*/%&|^~!<>()\[\],:@]")
_NUMBER = re.compile(r"\$[0-9A-Fa-f_]+|0[xX][0-9A-Fa-f_]+|%[01_]+|0[bB][01_]+|[0-9][0-9_]*")
_IDENT = re.compile(r"[A-Za-z_.][A-Za-z0-9_.]*")
_WORD = re.compile(r"[0-9A-Za-z_]*")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}


def _tokenize(line: str) -> tuple[list[_Tok], int]:
    """The tokens of one line and the column where its comment (or the line) ends."""
    toks: list[_Tok] = []
    i = 0
    while i < len(line):
        ch = line[i]
        if ch in " \t\r\f\v":
            i += 1
        elif ch == ";":
            break
        elif ch in "\"'":
            text, end = _read_quoted(line, i)
            if ch == '"':
                toks.append(_Tok("str", text, i))
            elif len(text) != 1:
                raise _Error(f"a character literal holds one character: {line[i:end]}")
            else:
                toks.append(_Tok("num", line[i:end], i, ord(text)))
            i = end
        elif ch == "`":
            end = _WORD.match(line, i + 1).end()  # type: ignore[union-attr]
            digits = line[i + 1 : end]
            if len(digits) != 8 or any(d not in "0123" for d in digits):
                raise _Error(f"a graphics literal is ` and 8 digits 0-3: {line[i:end]}")
            toks.append(_Tok("num", line[i:end], i, _gfx_row(digits)))
            i = end
        elif (number := _NUMBER.match(line, i)) and (ch != "%" or not _ends_value(toks)):
            end = number.end()
            digits = number.group().replace("_", "")
            if end < len(line) and (line[end].isalnum() or line[end] in "_."):
                raise _Error(f"bad number {line[i : end + 1]}...")
            toks.append(_Tok("num", number.group(), i, _parse_int(digits)))
            i = end
        elif ident := _IDENT.match(line, i):
            toks.append(_Tok("id", ident.group(), i))
            i = ident.end()
        else:
            op = _OPERATOR.match(line, i)
            if op is None:
                raise _Error(f"unexpected character {ch!r}")
            toks.append(_Tok("op", op.group(), i))
            i = op.end()
    return toks, i


def _ends_value(toks: list[_Tok]) -> bool:
    """Whether the last token ends a value (so a following % is the modulo operator)."""
    if not toks:
        return False
    last = toks[-1]
    if last.kind == "id":
        return last.text.lower() not in _RESERVED
    return last.kind == "num" or last.text in (")", "]", "@")


def _parse_int(digits: str) -> int:
    for prefix, base in (("$", 16), ("0x", 16), ("0X", 16), ("%", 2), ("0b", 2), ("0B", 2)):
        if digits.startswith(prefix) and len(digits) > len(prefix):
            return int(digits[len(prefix) :], base)
    if not digits[-1].isdigit():
        raise _Error(f"bad number {digits}")
    return int(digits, 10)


def _read_quoted(line: str, start: int) -> tuple[str, int]:
    """The decoded text of the quoted string at ``start`` and the column after it."""
    quote = line[start]
    out: list[str] = []
    i = start + 1
    while i < len(line) and line[i] != quote:
        ch = line[i]
        if ch == "\\":
            if i + 1 >= len(line) or line[i + 1] not in _ESCAPES:
                raise _Error(f"bad escape sequence {line[i : i + 2]!r}")
            ch = _ESCAPES[line[i + 1]]
            i += 1
        if ord(ch) > 0x7F:
            raise _Error(f"non-ASCII character {ch!r} in {quote}...{quote}")
        out.append(ch)
        i += 1
    if i >= len(line):
        raise _Error(f"unterminated {quote}...{quote}")
    return "".join(out), i + 1


def _gfx_row(digits: str) -> int:
    """The graphics literal's value: bit 7-i of the low byte is bit 0 of digit i, bit 7-i
    of the high byte is bit 1 of digit i."""
    lo = hi = 0
    for i, digit in enumerate(digits):
        lo |= (int(digit) & 1) << (7 - i)
        hi |= (int(digit) >> 1) << (7 - i)
    return (hi << 8) | lo


def _split_commas(toks: Sequence[_Tok]) -> list[list[_Tok]]:
    """``toks`` split at the commas outside parentheses and brackets ([] for none)."""
    if not toks:
        return []
    parts: list[list[_Tok]] = [[]]
    depth = 0
    for tok in toks:
        if tok.kind == "op" and tok.text in "([":
            depth += 1
        elif tok.kind == "op" and tok.text in ")]":
            depth -= 1
        if tok.kind == "op" and tok.text == "," and depth == 0:
            parts.append([])
        else:
            parts[-1].append(tok)
    return parts


# ---------------------------------------------------------------------------
# Symbols and expressions
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Ctx:
    """What an expression is evaluated against: the symbols and ``@``."""

    symbols: _Symbols
    pc: int | None

    def here(self) -> int:
        if self.pc is None:
            raise _Error("@ used outside of a section")
        return self.pc


Expr = Callable[[_Ctx], int]


@dataclass
class _Const:
    name: str
    expr: Expr
    pc: int | None
    loc: str
    value: int | None = None
    busy: bool = False

    def evaluate(self, symbols: _Symbols) -> int:
        if self.value is None:
            if self.busy:
                raise _Error(f"constant '{self.name}' is defined in terms of itself")
            self.busy = True
            try:
                self.value = self.expr(_Ctx(symbols, self.pc))
            finally:
                self.busy = False
        return self.value


class _Symbols:
    """Labels and constants: one namespace."""

    def __init__(self) -> None:
        self.labels: dict[str, int] = {}
        self.consts: dict[str, _Const] = {}
        self.defined_at: dict[str, str] = {}

    def claim(self, name: str, loc: str) -> None:
        if name in self.defined_at:
            raise _Error(f"'{name}' is already defined at {self.defined_at[name]}")
        self.defined_at[name] = loc

    def value(self, name: str) -> int:
        if name in self.labels:
            return self.labels[name]
        if name in self.consts:
            return self.consts[name].evaluate(self)
        raise _UndefinedError(f"undefined symbol '{name}'")


def _full_name(name: str, scope: str | None) -> str:
    """The full name of a symbol reference or definition: ``.x`` becomes ``Scope.x``."""
    if name.startswith("."):
        if scope is None:
            raise _Error(f"local label '{name}' outside of a global label's scope")
        name = scope + name
    if name.count(".") > 1 or name.endswith(".") or name.startswith("."):
        raise _Error(f"bad symbol name '{name}'")
    return name


def _division(a: int, b: int) -> int:
    if b == 0:
        raise _Error("division by zero")
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


def _modulo(a: int, b: int) -> int:
    return a - b * _division(a, b)


def _shift(op: Callable[[int, int], int]) -> Callable[[int, int], int]:
    def shift(a: int, b: int) -> int:
        if not 0 <= b <= 63:
            raise _Error(f"shift count {b} is out of range 0..63")
        return op(a, b)

    return shift


# Binary operators: precedence (higher binds tighter) and function.
_BINARY: dict[str, tuple[int, Callable[[int, int], int]]] = {
    "||": (1, lambda a, b: int(bool(a) or bool(b))),
    "&&": (2, lambda a, b: int(bool(a) and bool(b))),
    "|": (3, operator.or_),
    "^": (4, operator.xor),
    "&": (5, operator.and_),
    "==": (6, lambda a, b: int(a == b)),
    "!=": (6, lambda a, b: int(a != b)),
    "<": (7, lambda a, b: int(a < b)),
    "<=": (7, lambda a, b: int(a <= b)),
    ">": (7, lambda a, b: int(a > b)),
    ">=": (7, lambda a, b: int(a >= b)),
    "<<": (8, _shift(operator.lshift)),
    ">>": (8, _shift(operator.rshift)),
    "+": (9, operator.add),
    "-": (9, operator.sub),
    "*": (10, operator.mul),
    "/": (10, _division),
    "%": (10, _modulo),
}
_UNARY: dict[str, Callable[[int], int]] = {
    "-": operator.neg,
    "+": operator.pos,
    "~": operator.invert,
    "!": lambda a: int(not a),
}
_FUNCTIONS: dict[str, Callable[[int], int]] = {
    "high": lambda a: (a >> 8) & 0xFF,
    "low": lambda a: a & 0xFF,
}


class _ExprParser:
    """Precedence climbing over a token list; builds closures ``_Ctx -> int``."""

    def __init__(self, toks: Sequence[_Tok], scope: str | None) -> None:
        self.toks = toks
        self.pos = 0
        self.scope = scope

    def peek(self) -> _Tok | None:
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def take(self, text: str) -> bool:
        tok = self.peek()
        if tok is not None and tok.kind == "op" and tok.text == text:
            self.pos += 1
            return True
        return False

    def parse(self) -> Expr:
        expr = self.binary(1)
        tok = self.peek()
        if tok is not None:
            raise _Error(f"unexpected '{tok.text}' in expression")
        return expr

    def binary(self, min_prec: int) -> Expr:
        left = self.unary()
        while True:
            tok = self.peek()
            if tok is None or tok.kind != "op" or tok.text not in _BINARY:
                return left
            prec, fn = _BINARY[tok.text]
            if prec < min_prec:
                return left
            self.pos += 1
            left = _apply2(fn, left, self.binary(prec + 1))

    def unary(self) -> Expr:
        tok = self.peek()
        if tok is not None and tok.kind == "op" and tok.text in _UNARY:
            self.pos += 1
            return _apply1(_UNARY[tok.text], self.unary())
        return self.primary()

    def primary(self) -> Expr:
        tok = self.peek()
        if tok is None:
            raise _Error("missing value in expression")
        self.pos += 1
        if tok.kind == "num":
            value = tok.value
            return lambda ctx: value
        if tok.kind == "op" and tok.text == "@":
            return lambda ctx: ctx.here()
        if tok.kind == "op" and tok.text == "(":
            inner = self.binary(1)
            if not self.take(")"):
                raise _Error("missing ')' in expression")
            return inner
        if tok.kind == "id":
            word = tok.text.lower()
            if word in _FUNCTIONS and self.take("("):
                inner = self.binary(1)
                if not self.take(")"):
                    raise _Error(f"missing ')' after {tok.text}(")
                return _apply1(_FUNCTIONS[word], inner)
            if word in _RESERVED:
                raise _Error(f"'{tok.text}' cannot be used in an expression")
            name = _full_name(tok.text, self.scope)
            return lambda ctx: ctx.symbols.value(name)
        if tok.kind == "str":
            raise _Error(f'string "{tok.text}" used as a number')
        raise _Error(f"unexpected '{tok.text}' in expression")


def _apply1(fn: Callable[[int], int], a: Expr) -> Expr:
    return lambda ctx: fn(a(ctx))


def _apply2(fn: Callable[[int, int], int], a: Expr, b: Expr) -> Expr:
    return lambda ctx: fn(a(ctx), b(ctx))


def _parse_expr(toks: Sequence[_Tok], scope: str | None) -> Expr:
    if not toks:
        raise _Error("missing expression")
    return _ExprParser(toks, scope).parse()


# ---------------------------------------------------------------------------
# Operands and encoding
# ---------------------------------------------------------------------------


def _hex(value: int) -> str:
    return f"-${-value:X}" if value < 0 else f"${value:X}"


def _n8(value: int) -> int:
    if not -128 <= value <= 0xFF:
        raise _Error(f"value {value} ({_hex(value)}) does not fit in 8 bits (-128..255)")
    return value & 0xFF


def _n16(value: int) -> bytes:
    if not -32768 <= value <= 0xFFFF:
        raise _Error(f"value {value} ({_hex(value)}) does not fit in 16 bits (-32768..65535)")
    return bytes((value & 0xFF, (value >> 8) & 0xFF))


def _e8(value: int) -> int:
    if not -128 <= value <= 127:
        raise _Error(f"signed offset {value} is out of range -128..127")
    return value & 0xFF


@dataclass(frozen=True)
class _Operand:
    kind: str  # "reg" (register or condition), "mem" ([...]), "imm" (value), "sp+" (sp+e8)
    name: str = ""  # the register, or in [...] one of hl hl+ hl- bc de c ("" for [n16])
    expr: Expr | None = None

    def value(self) -> Expr:
        assert self.expr is not None
        return self.expr


def _operand(toks: Sequence[_Tok], scope: str | None) -> _Operand:
    if not toks:
        raise _Error("missing operand")
    words = tuple(t.text.lower() for t in toks)
    plain = all(t.kind in ("id", "op") for t in toks)
    if plain and len(toks) == 1 and words[0] in _REGISTER_WORDS:
        return _Operand("reg", words[0])
    if toks[0].kind == "id" and words[0] == "sp" and len(toks) > 1 and words[1] in ("+", "-"):
        return _Operand("sp+", expr=_parse_expr(toks[1:], scope))
    if toks[0].text == "[" and toks[-1].text == "]" and toks[0].kind == toks[-1].kind == "op":
        inner = toks[1:-1]
        if all(t.kind in ("id", "op") for t in inner):
            register = _MEM_REGISTERS.get(tuple(t.text.lower() for t in inner))
            if register is not None:
                return _Operand("mem", register)
        if (
            len(inner) == 3
            and inner[0].kind == "num"
            and inner[0].value == 0xFF00
            and inner[1].text == "+"
            and inner[2].text.lower() == "c"
        ):
            return _Operand("mem", "c")
        return _Operand("mem", expr=_parse_expr(inner, scope))
    return _Operand("imm", expr=_parse_expr(toks, scope))


def _r8(op: _Operand) -> int | None:
    """The r8 index of a register operand or [hl] (6)."""
    if op.kind == "reg":
        return _R8.get(op.name)
    return 6 if op.kind == "mem" and op.name == "hl" else None


def _reg(op: _Operand, table: dict[str, int]) -> int | None:
    return table.get(op.name) if op.kind == "reg" else None


def _is_reg(op: _Operand, name: str) -> bool:
    return op.kind == "reg" and op.name == name


@dataclass(frozen=True)
class _Enc:
    """An encoded instruction: its size (known in pass 1) and how to emit its bytes."""

    size: int
    emit: Callable[[_Ctx], bytes]


def _fixed(*code: int) -> _Enc:
    data = bytes(code)
    return _Enc(len(data), lambda ctx: data)


def _with_n8(opcode: int, expr: Expr) -> _Enc:
    return _Enc(2, lambda ctx: bytes((opcode, _n8(expr(ctx)))))


def _with_n16(opcode: int, expr: Expr) -> _Enc:
    return _Enc(3, lambda ctx: bytes((opcode,)) + _n16(expr(ctx)))


def _with_e8(opcode: int, expr: Expr) -> _Enc:
    return _Enc(2, lambda ctx: bytes((opcode, _e8(expr(ctx)))))


def _relative(opcode: int, expr: Expr) -> _Enc:
    def emit(ctx: _Ctx) -> bytes:
        target = expr(ctx)
        distance = target - (ctx.here() + 2)
        if not -128 <= distance <= 127:
            raise _Error(
                f"jr target {_hex(target)} is out of range: it is {distance} bytes from the "
                "next instruction (must be -128..127)"
            )
        return bytes((opcode, distance & 0xFF))

    return _Enc(2, emit)


def _high_page(opcode: int, expr: Expr) -> _Enc:
    def emit(ctx: _Ctx) -> bytes:
        address = expr(ctx)
        if not (0 <= address <= 0xFF or 0xFF00 <= address <= 0xFFFF):
            raise _Error(f"ldh address {_hex(address)} is not in $FF00-$FFFF (or $00-$FF)")
        return bytes((opcode, address & 0xFF))

    return _Enc(2, emit)


def _rst(expr: Expr) -> _Enc:
    def emit(ctx: _Ctx) -> bytes:
        vector = expr(ctx)
        if vector not in range(0, 0x40, 8):
            raise _Error(f"rst vector {_hex(vector)} is not one of $00, $08, ..., $38")
        return bytes((0xC7 + vector,))

    return _Enc(1, emit)


def _bit_op(base: int, bit: Expr, reg: int) -> _Enc:
    def emit(ctx: _Ctx) -> bytes:
        number = bit(ctx)
        if not 0 <= number <= 7:
            raise _Error(f"bit number {number} is out of range 0..7")
        return bytes((0xCB, base + 8 * number + reg))

    return _Enc(2, emit)


def _encode_ld(dst: _Operand, src: _Operand) -> _Enc | None:
    d, s = _r8(dst), _r8(src)
    if d is not None and s is not None:
        return None if d == s == 6 else _fixed(0x40 + 8 * d + s)  # ld [hl],[hl] is halt
    if d is not None and src.kind == "imm":
        return _with_n8(0x06 + 8 * d, src.value())
    pair = _reg(dst, _R16)
    if pair is not None and src.kind == "imm":
        return _with_n16(0x01 + 16 * pair, src.value())
    if _is_reg(dst, "sp") and _is_reg(src, "hl"):
        return _fixed(0xF9)
    if _is_reg(dst, "hl") and src.kind == "sp+":
        return _with_e8(0xF8, src.value())
    for a, mem, table in ((dst, src, _LD_A_FROM_MEM), (src, dst, _LD_MEM_FROM_A)):
        if _is_reg(a, "a") and mem.kind == "mem" and mem.name in table:
            opcode = table[mem.name]
            return _with_n16(opcode, mem.value()) if mem.name == "" else _fixed(opcode)
    if dst.kind == "mem" and dst.name == "" and _is_reg(src, "sp"):
        return _with_n16(0x08, dst.value())
    return None


def _encode_ldh(dst: _Operand, src: _Operand) -> _Enc | None:
    for a, mem, opcode in ((dst, src, 0xF0), (src, dst, 0xE0)):
        if _is_reg(a, "a") and mem.kind == "mem":
            if mem.name == "c":
                return _fixed(opcode + 2)
            if mem.name == "":
                return _high_page(opcode, mem.value())
    return None


def _encode_flow(mnemonic: str, ops: Sequence[_Operand]) -> _Enc | None:
    """jr, jp, call and ret."""
    if mnemonic == "ret":
        if not ops:
            return _fixed(0xC9)
        cond = _reg(ops[0], _CONDITIONS) if len(ops) == 1 else None
        return None if cond is None else _fixed(0xC0 + 8 * cond)
    if len(ops) == 1 and mnemonic == "jp" and (_is_reg(ops[0], "hl") or _r8(ops[0]) == 6):
        return _fixed(0xE9)
    if len(ops) not in (1, 2) or ops[-1].kind != "imm":
        return None
    cond = _reg(ops[0], _CONDITIONS) if len(ops) == 2 else None
    if len(ops) == 2 and cond is None:
        return None
    target = ops[-1].value()
    if mnemonic == "jr":
        return _relative(0x18 if cond is None else 0x20 + 8 * cond, target)
    if mnemonic == "jp":
        return _with_n16(0xC3 if cond is None else 0xC2 + 8 * cond, target)
    return _with_n16(0xCD if cond is None else 0xC4 + 8 * cond, target)


def _encode(mnemonic: str, ops: Sequence[_Operand]) -> _Enc | None:
    """The encoding of an instruction, or None for an operand combination that does not exist."""
    count = len(ops)
    if mnemonic in _NO_OPERANDS:
        return _fixed(*_NO_OPERANDS[mnemonic]) if count == 0 else None
    if mnemonic in ("ld", "ldh"):
        if count != 2:
            return None
        return (_encode_ld if mnemonic == "ld" else _encode_ldh)(ops[0], ops[1])
    if mnemonic in ("jr", "jp", "call", "ret"):
        return _encode_flow(mnemonic, ops)
    if mnemonic in ("push", "pop"):
        pair = _reg(ops[0], _R16_STACK) if count == 1 else None
        base = 0xC5 if mnemonic == "push" else 0xC1
        return None if pair is None else _fixed(base + 16 * pair)
    if mnemonic in ("inc", "dec"):
        if count != 1:
            return None
        reg, pair = _r8(ops[0]), _reg(ops[0], _R16)
        if reg is not None:
            return _fixed((0x04 if mnemonic == "inc" else 0x05) + 8 * reg)
        if pair is not None:
            return _fixed((0x03 if mnemonic == "inc" else 0x0B) + 16 * pair)
        return None
    if mnemonic == "add" and count == 2 and _is_reg(ops[0], "hl"):
        pair = _reg(ops[1], _R16)
        return None if pair is None else _fixed(0x09 + 16 * pair)
    if mnemonic == "add" and count == 2 and _is_reg(ops[0], "sp"):
        return _with_e8(0xE8, ops[1].value()) if ops[1].kind == "imm" else None
    if mnemonic in _ALU:
        if count == 2 and _is_reg(ops[0], "a"):
            src = ops[1]
        elif count == 1:
            src = ops[0]
        else:
            return None
        reg = _r8(src)
        if reg is not None:
            return _fixed(0x80 + 8 * _ALU[mnemonic] + reg)
        return _with_n8(0xC6 + 8 * _ALU[mnemonic], src.value()) if src.kind == "imm" else None
    if mnemonic == "rst":
        return _rst(ops[0].value()) if count == 1 and ops[0].kind == "imm" else None
    if mnemonic in _CB_SHIFTS:
        reg = _r8(ops[0]) if count == 1 else None
        return None if reg is None else _fixed(0xCB, 8 * _CB_SHIFTS[mnemonic] + reg)
    if mnemonic in _CB_BITS and count == 2 and ops[0].kind == "imm":
        reg = _r8(ops[1])
        return None if reg is None else _bit_op(_CB_BITS[mnemonic], ops[0].value(), reg)
    return None


# ---------------------------------------------------------------------------
# The assembler
# ---------------------------------------------------------------------------


@dataclass
class _Section:
    name: str
    kind: str  # "ROM0", "WRAM0", ...
    start: int
    last: int  # the last address of the section type's range
    loc: str
    size: int = 0

    @property
    def rom(self) -> bool:
        return self.kind == "ROM0"

    @property
    def here(self) -> int:
        return self.start + self.size

    def span(self) -> str:
        end = f"{self.start + self.size - 1:04X}" if self.size else "(empty)"
        return f'section "{self.name}" (${self.start:04X}-${end})'


@dataclass(frozen=True)
class _Stmt:
    loc: str
    section: _Section | None
    addr: int | None
    size: int
    emit: Callable[[_Ctx], bytes]


@dataclass(frozen=True)
class Assembly:
    """The result of :func:`assemble`: the ROM image and every label's address."""

    rom: bytes
    symbols: dict[str, int]

    def sym_text(self) -> str:
        """The labels as an RGBDS/BGB ``.sym`` file (``BB:AAAA Name`` lines, sorted)."""
        # ROM0 and every RAM section type supported here are bank 0.
        lines = ["; File generated by emurust.tools.asm"]
        for address, name in sorted((address, name) for name, address in self.symbols.items()):
            lines.append(f"00:{address:04X} {name}")
        return "\n".join(lines) + "\n"


class _Assembler:
    def __init__(self, pad: int) -> None:
        self.pad = pad
        self.symbols = _Symbols()
        self.sections: list[_Section] = []
        self.section: _Section | None = None
        self.scope: str | None = None
        self.stmts: list[_Stmt] = []
        self.include_stack: list[str] = []

    # --- pass 1 ------------------------------------------------------------------------

    def run_file(self, text: str, path: str | None) -> None:
        display = "<source>" if path is None else path
        if path is not None:
            self.include_stack.append(os.path.realpath(path))
        for number, line in enumerate(text.split("\n"), 1):
            loc = f"{display}:{number}"
            try:
                self.line(line, loc, path)
            except _Error as exc:
                raise AsmError(f"{loc}: {exc}") from None
        if path is not None:
            self.include_stack.pop()

    def line(self, line: str, loc: str, path: str | None) -> None:
        toks, end = _tokenize(line)
        if len(toks) >= 2 and toks[0].kind == "id" and toks[1].text in (":", "::"):
            self.define_label(toks[0].text, loc)
            toks = toks[2:]
        if not toks:
            return
        text = line[toks[0].pos : end].strip()
        head = toks[0]
        word = head.text.lower() if head.kind == "id" else ""
        if word == "def":
            self.define_const(toks[1:], loc, text)
        elif len(toks) >= 2 and toks[1].kind == "id" and toks[1].text.lower() == "equ":
            self.define_const(toks, loc, text)
        elif word == "section":
            self.open_section(toks[1:], loc)
        elif word in ("db", "dw"):
            self.data(word, toks[1:], loc)
        elif word == "ds":
            self.space(toks[1:], loc)
        elif word == "include":
            self.include(toks[1:], path)
        elif word == "assert":
            self.assertion(toks[1:], loc)
        elif word in _MNEMONICS:
            self.instruction(word, toks[1:], loc, text)
        else:
            raise _Error(f"unknown instruction '{text}'")

    def check_name(self, name: str) -> None:
        if name.lower() in _RESERVED:
            raise _Error(f"'{name}' is a reserved word, not a symbol name")

    def define_label(self, name: str, loc: str) -> None:
        self.check_name(name)
        if name.startswith("."):
            full = _full_name(name, self.scope)
        elif "." in name:
            full = _full_name(name, None)
            if full.split(".")[0] != self.scope:
                raise _Error(f"'{name}' can only be defined inside the scope of its label")
        else:
            full = name
        if self.section is None:
            raise _Error(f"label '{name}' outside of a section (use SECTION first)")
        self.symbols.claim(full, loc)
        self.symbols.labels[full] = self.section.here
        if "." not in name:
            self.scope = name

    def define_const(self, toks: Sequence[_Tok], loc: str, text: str) -> None:
        if len(toks) < 3 or toks[0].kind != "id" or toks[1].text.lower() != "equ":
            raise _Error(f"expected 'DEF NAME EQU value', got '{text}'")
        name = toks[0].text
        self.check_name(name)
        if "." in name:
            raise _Error(f"constant name '{name}' may not contain '.'")
        expr = _parse_expr(toks[2:], self.scope)
        self.symbols.claim(name, loc)
        pc = self.section.here if self.section else None
        const = _Const(name, expr, pc, loc)
        self.symbols.consts[name] = const
        with contextlib.suppress(_UndefinedError):  # a forward reference: see finish()
            const.evaluate(self.symbols)

    def known_now(self, toks: Sequence[_Tok], what: str) -> int:
        """Evaluates an expression in pass 1 (no forward references)."""
        pc = self.section.here if self.section else None
        try:
            return _parse_expr(toks, self.scope)(_Ctx(self.symbols, pc))
        except _UndefinedError as exc:
            raise _Error(f"{what} must be known here (no forward references): {exc}") from None

    def open_section(self, toks: Sequence[_Tok], loc: str) -> None:
        parts = _split_commas(toks)
        if len(parts) < 2 or len(parts[0]) != 1 or parts[0][0].kind != "str" or not parts[1]:
            raise _Error('expected SECTION "name", TYPE[$address]')
        name, spec = parts[0][0].text, parts[1]
        kind = spec[0].text.lower() if spec[0].kind == "id" else ""
        if kind == "romx":
            raise _Error("ROMX sections are not supported")
        if kind not in _SECTION_TYPES:
            raise _Error(f"unknown section type '{spec[0].text}'")
        if len(parts) > 2:
            raise _Error("section options after the address are not supported")
        type_name, first, last = _SECTION_TYPES[kind]
        if len(spec) < 3 or spec[1].text != "[" or spec[-1].text != "]":
            raise _Error(f'a section needs its address: SECTION "{name}", {type_name}[$addr]')
        start = self.known_now(spec[2:-1], "a section address")
        if not first <= start <= last:
            raise _Error(
                f"{type_name} section address {_hex(start)} is not in ${first:04X}-${last:04X}"
            )
        if any(s.name == name for s in self.sections):
            raise _Error(f'section "{name}" is already defined')
        self.section = _Section(name, type_name, start, last, loc)
        self.sections.append(self.section)

    def add(self, loc: str, size: int, emit: Callable[[_Ctx], bytes], *, data: bool) -> None:
        section = self.section
        if section is None:
            raise _Error("code or data outside of a section (use SECTION first)")
        if data and not section.rom:
            raise _Error(
                f'{section.kind} section "{section.name}" can only hold labels and ds, not bytes'
            )
        if section.here + size > section.last + 1:
            raise _Error(
                f'section "{section.name}" grows past the end of {section.kind} '
                f"(${section.last:04X})"
            )
        self.stmts.append(_Stmt(loc, section, section.here, size, emit))
        section.size += size

    def data(self, word: str, toks: Sequence[_Tok], loc: str) -> None:
        items = _split_commas(toks)
        if not items:
            raise _Error(f"{word} needs at least one value")
        pieces: list[bytes | Expr] = []
        for item in items:
            if word == "db" and len(item) == 1 and item[0].kind == "str":
                pieces.append(item[0].text.encode("ascii"))
            else:
                pieces.append(_parse_expr(item, self.scope))
        width = 1 if word == "db" else 2

        def emit(ctx: _Ctx) -> bytes:
            out = bytearray()
            for piece in pieces:
                if isinstance(piece, bytes):
                    out += piece
                elif width == 1:
                    out.append(_n8(piece(ctx)))
                else:
                    out += _n16(piece(ctx))
            return bytes(out)

        size = sum(len(p) if isinstance(p, bytes) else width for p in pieces)
        self.add(loc, size, emit, data=True)

    def space(self, toks: Sequence[_Tok], loc: str) -> None:
        items = _split_commas(toks)
        if len(items) not in (1, 2):
            raise _Error("expected 'ds count' or 'ds count, fill'")
        count = self.known_now(items[0], "a ds count")
        if count < 0:
            raise _Error(f"negative ds count {count}")
        if self.section is not None and not self.section.rom:
            if len(items) == 2:
                raise _Error(f"a {self.section.kind} section takes no ds fill value")
            self.add(loc, count, lambda ctx: b"", data=False)
            return
        fill = _parse_expr(items[1], self.scope) if len(items) == 2 else None
        pad = self.pad
        self.add(
            loc,
            count,
            lambda ctx: bytes([pad if fill is None else _n8(fill(ctx))]) * count,
            data=False,
        )

    def include(self, toks: Sequence[_Tok], path: str | None) -> None:
        if len(toks) != 1 or toks[0].kind != "str":
            raise _Error('expected INCLUDE "file"')
        name = toks[0].text
        if path is None and not os.path.isabs(name):
            raise _Error(
                f'cannot INCLUDE "{name}": the source has no path (pass path=) and the '
                "include path is not absolute"
            )
        target = os.path.join(os.path.dirname(path), name) if path is not None else name
        if os.path.realpath(target) in self.include_stack:
            raise _Error(f'include cycle: "{target}" is already being assembled')
        try:
            with open(target, encoding="utf-8") as file:
                text = file.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise _Error(f'cannot read included file "{target}": {exc}') from None
        self.run_file(text, target)

    def assertion(self, toks: Sequence[_Tok], loc: str) -> None:
        items = _split_commas(toks)
        if len(items) not in (1, 2) or (
            len(items) == 2 and (len(items[1]) != 1 or items[1][0].kind != "str")
        ):
            raise _Error('expected ASSERT expr or ASSERT expr, "message"')
        condition = _parse_expr(items[0], self.scope)
        message = items[1][0].text if len(items) == 2 else ""

        def emit(ctx: _Ctx) -> bytes:
            if not condition(ctx):
                raise _Error(f"assertion failed: {message}" if message else "assertion failed")
            return b""

        pc = self.section.here if self.section else None
        self.stmts.append(_Stmt(loc, self.section, pc, 0, emit))

    def instruction(self, mnemonic: str, toks: Sequence[_Tok], loc: str, text: str) -> None:
        try:
            ops = [_operand(part, self.scope) for part in _split_commas(toks)]
        except _Error as exc:
            raise _Error(f"{exc} in '{text}'") from None
        encoding = _encode(mnemonic, ops)
        if encoding is None:
            raise _Error(f"invalid operands in '{text}'")
        self.add(loc, encoding.size, encoding.emit, data=True)

    # --- pass 2 ------------------------------------------------------------------------

    def finish(self, fix: bool) -> Assembly:
        for const in self.symbols.consts.values():
            try:
                const.evaluate(self.symbols)
            except _Error as exc:
                raise AsmError(f"{const.loc}: {exc}") from None
        for i, later in enumerate(self.sections):
            for earlier in self.sections[:i]:
                if (
                    later.size
                    and earlier.size
                    and later.start < earlier.here
                    and earlier.start < later.here
                ):
                    raise AsmError(f"{later.loc}: {later.span()} overlaps {earlier.span()}")
        rom_end = max((s.here for s in self.sections if s.rom), default=0)
        size = MIN_ROM_SIZE
        while size < rom_end:
            size *= 2
        rom = bytearray([self.pad]) * size
        for stmt in self.stmts:
            try:
                data = stmt.emit(_Ctx(self.symbols, stmt.addr))
            except _Error as exc:
                raise AsmError(f"{stmt.loc}: {exc}") from None
            if stmt.section is not None and stmt.section.rom and stmt.addr is not None:
                assert len(data) == stmt.size, stmt
                rom[stmt.addr : stmt.addr + len(data)] = data
        if fix:
            fix_header(rom)
        return Assembly(bytes(rom), dict(self.symbols.labels))


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------


def assemble(
    source: str,
    *,
    path: str | os.PathLike[str] | None = None,
    fix: bool = False,
    pad: int = 0x00,
) -> Assembly:
    """Assembles ``source`` (whose file name ``path`` is used in messages and to resolve
    INCLUDE) into a ROM padded with ``pad``; ``fix`` runs :func:`fix_header` on it.
    Raises :class:`AsmError` for any error in the source."""
    if not 0 <= pad <= 0xFF:
        raise ValueError(f"pad must be a byte, not {pad}")
    assembler = _Assembler(pad)
    assembler.run_file(source, None if path is None else os.fspath(path))
    return assembler.finish(fix)


def assemble_file(path: str | os.PathLike[str], *, fix: bool = False, pad: int = 0x00) -> Assembly:
    """Assembles the source file at ``path`` (UTF-8 text)."""
    return assemble(Path(path).read_text(encoding="utf-8"), path=path, fix=fix, pad=pad)


def fix_header(rom: bytearray) -> None:
    """Writes the Nintendo logo (0x104-0x133), the header checksum (0x14D) and the global
    checksum (0x14E-0x14F, big-endian), as ``rgbfix -v`` does."""
    if len(rom) < 0x150:
        raise ValueError(f"a ROM of {len(rom)} bytes has no header")
    rom[0x104:0x134] = NINTENDO_LOGO
    check = 0
    for byte in rom[0x134:0x14D]:
        check = (check - byte - 1) & 0xFF
    rom[0x14D] = check
    total = (sum(rom) - rom[0x14E] - rom[0x14F]) & 0xFFFF
    rom[0x14E] = total >> 8
    rom[0x14F] = total & 0xFF


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


if __name__ == "__main__":
    sys.exit(main())
