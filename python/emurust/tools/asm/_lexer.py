"""Lines of source as tokens."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from emurust.tools.asm._syntax import RESERVED, LineError


@dataclass(frozen=True)
class Tok:
    kind: str  # "num", "str", "id" or "op"
    text: str  # the source text; for "str" the decoded string
    pos: int  # column where the token starts
    value: int = 0  # for "num"


_OPERATOR = re.compile(r"<<|>>|<=|>=|==|!=|&&|\|\||::|[-+*/%&|^~!<>()\[\],:@]")
_NUMBER = re.compile(r"\$[0-9A-Fa-f_]+|0[xX][0-9A-Fa-f_]+|%[01_]+|0[bB][01_]+|[0-9][0-9_]*")
_IDENT = re.compile(r"[A-Za-z_.][A-Za-z0-9_.]*")
_WORD = re.compile(r"[0-9A-Za-z_]*")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}


def tokenize(line: str) -> tuple[list[Tok], int]:
    """The tokens of one line and the column where its comment (or the line) ends."""
    toks: list[Tok] = []
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
                toks.append(Tok("str", text, i))
            elif len(text) != 1:
                raise LineError(f"a character literal holds one character: {line[i:end]}")
            else:
                toks.append(Tok("num", line[i:end], i, ord(text)))
            i = end
        elif ch == "`":
            end = _WORD.match(line, i + 1).end()  # type: ignore[union-attr]
            digits = line[i + 1 : end]
            if len(digits) != 8 or any(d not in "0123" for d in digits):
                raise LineError(f"a graphics literal is ` and 8 digits 0-3: {line[i:end]}")
            toks.append(Tok("num", line[i:end], i, _gfx_row(digits)))
            i = end
        elif (number := _NUMBER.match(line, i)) and (ch != "%" or not _ends_value(toks)):
            end = number.end()
            digits = number.group().replace("_", "")
            if end < len(line) and (line[end].isalnum() or line[end] in "_."):
                raise LineError(f"bad number {line[i : end + 1]}...")
            toks.append(Tok("num", number.group(), i, _parse_int(digits)))
            i = end
        elif ident := _IDENT.match(line, i):
            toks.append(Tok("id", ident.group(), i))
            i = ident.end()
        else:
            op = _OPERATOR.match(line, i)
            if op is None:
                raise LineError(f"unexpected character {ch!r}")
            toks.append(Tok("op", op.group(), i))
            i = op.end()
    return toks, i


def _ends_value(toks: list[Tok]) -> bool:
    """Whether the last token ends a value (so a following % is the modulo operator)."""
    if not toks:
        return False
    last = toks[-1]
    if last.kind == "id":
        return last.text.lower() not in RESERVED
    return last.kind == "num" or last.text in (")", "]", "@")


def _parse_int(digits: str) -> int:
    for prefix, base in (("$", 16), ("0x", 16), ("0X", 16), ("%", 2), ("0b", 2), ("0B", 2)):
        if digits.startswith(prefix) and len(digits) > len(prefix):
            return int(digits[len(prefix) :], base)
    if not digits[-1].isdigit():
        raise LineError(f"bad number {digits}")
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
                raise LineError(f"bad escape sequence {line[i : i + 2]!r}")
            ch = _ESCAPES[line[i + 1]]
            i += 1
        if ord(ch) > 0x7F:
            raise LineError(f"non-ASCII character {ch!r} in {quote}...{quote}")
        out.append(ch)
        i += 1
    if i >= len(line):
        raise LineError(f"unterminated {quote}...{quote}")
    return "".join(out), i + 1


def _gfx_row(digits: str) -> int:
    """The graphics literal's value: bit 7-i of the low byte is bit 0 of digit i, bit 7-i
    of the high byte is bit 1 of digit i."""
    lo = hi = 0
    for i, digit in enumerate(digits):
        lo |= (int(digit) & 1) << (7 - i)
        hi |= (int(digit) >> 1) << (7 - i)
    return (hi << 8) | lo


def split_commas(toks: Sequence[Tok]) -> list[list[Tok]]:
    """``toks`` split at the commas outside parentheses and brackets ([] for none)."""
    if not toks:
        return []
    parts: list[list[Tok]] = [[]]
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
