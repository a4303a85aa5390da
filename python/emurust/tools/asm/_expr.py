"""Symbols (labels and constants) and expressions, parsed into functions of the
assembly context."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from emurust.tools.asm._lexer import Tok
from emurust.tools.asm._syntax import RESERVED, LineError, UndefinedError


@dataclass(frozen=True)
class Ctx:
    """What an expression is evaluated against: the symbols and ``@``."""

    symbols: Symbols
    pc: int | None

    def here(self) -> int:
        if self.pc is None:
            raise LineError("@ used outside of a section")
        return self.pc


Expr = Callable[[Ctx], int]


@dataclass
class Const:
    name: str
    expr: Expr
    pc: int | None
    loc: str
    value: int | None = None
    busy: bool = False

    def evaluate(self, symbols: Symbols) -> int:
        if self.value is None:
            if self.busy:
                raise LineError(f"constant '{self.name}' is defined in terms of itself")
            self.busy = True
            try:
                self.value = self.expr(Ctx(symbols, self.pc))
            finally:
                self.busy = False
        return self.value


class Symbols:
    """Labels and constants: one namespace."""

    def __init__(self) -> None:
        self.labels: dict[str, int] = {}
        self.consts: dict[str, Const] = {}
        self.defined_at: dict[str, str] = {}

    def claim(self, name: str, loc: str) -> None:
        if name in self.defined_at:
            raise LineError(f"'{name}' is already defined at {self.defined_at[name]}")
        self.defined_at[name] = loc

    def value(self, name: str) -> int:
        if name in self.labels:
            return self.labels[name]
        if name in self.consts:
            return self.consts[name].evaluate(self)
        raise UndefinedError(f"undefined symbol '{name}'")


def full_name(name: str, scope: str | None) -> str:
    """The full name of a symbol reference or definition: ``.x`` becomes ``Scope.x``."""
    if name.startswith("."):
        if scope is None:
            raise LineError(f"local label '{name}' outside of a global label's scope")
        name = scope + name
    if name.count(".") > 1 or name.endswith(".") or name.startswith("."):
        raise LineError(f"bad symbol name '{name}'")
    return name


def _division(a: int, b: int) -> int:
    if b == 0:
        raise LineError("division by zero")
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


def _modulo(a: int, b: int) -> int:
    return a - b * _division(a, b)


def _shift(op: Callable[[int, int], int]) -> Callable[[int, int], int]:
    def shift(a: int, b: int) -> int:
        if not 0 <= b <= 63:
            raise LineError(f"shift count {b} is out of range 0..63")
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
    """Precedence climbing over a token list; builds closures ``Ctx -> int``."""

    def __init__(self, toks: Sequence[Tok], scope: str | None) -> None:
        self.toks = toks
        self.pos = 0
        self.scope = scope

    def peek(self) -> Tok | None:
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
            raise LineError(f"unexpected '{tok.text}' in expression")
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
            raise LineError("missing value in expression")
        self.pos += 1
        if tok.kind == "num":
            value = tok.value
            return lambda ctx: value
        if tok.kind == "op" and tok.text == "@":
            return lambda ctx: ctx.here()
        if tok.kind == "op" and tok.text == "(":
            inner = self.binary(1)
            if not self.take(")"):
                raise LineError("missing ')' in expression")
            return inner
        if tok.kind == "id":
            word = tok.text.lower()
            if word in _FUNCTIONS and self.take("("):
                inner = self.binary(1)
                if not self.take(")"):
                    raise LineError(f"missing ')' after {tok.text}(")
                return _apply1(_FUNCTIONS[word], inner)
            if word in RESERVED:
                raise LineError(f"'{tok.text}' cannot be used in an expression")
            name = full_name(tok.text, self.scope)
            return lambda ctx: ctx.symbols.value(name)
        if tok.kind == "str":
            raise LineError(f'string "{tok.text}" used as a number')
        raise LineError(f"unexpected '{tok.text}' in expression")


def _apply1(fn: Callable[[int], int], a: Expr) -> Expr:
    return lambda ctx: fn(a(ctx))


def _apply2(fn: Callable[[int, int], int], a: Expr, b: Expr) -> Expr:
    return lambda ctx: fn(a(ctx), b(ctx))


def parse_expr(toks: Sequence[Tok], scope: str | None) -> Expr:
    if not toks:
        raise LineError("missing expression")
    return _ExprParser(toks, scope).parse()
