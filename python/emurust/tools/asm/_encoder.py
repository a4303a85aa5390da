"""Instruction operands and their encodings: every SM83 instruction as a size known in pass 1
and a function that emits its bytes in pass 2."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from emurust.tools.asm._expr import Ctx, Expr, parse_expr
from emurust.tools.asm._lexer import Tok
from emurust.tools.asm._syntax import (
    ALU,
    CB_BITS,
    CB_SHIFTS,
    CONDITIONS,
    LD_A_FROM_MEM,
    LD_MEM_FROM_A,
    MEM_REGISTERS,
    NO_OPERANDS,
    R8,
    R16,
    R16_STACK,
    REGISTER_WORDS,
    LineError,
)


def show_hex(value: int) -> str:
    return f"-${-value:X}" if value < 0 else f"${value:X}"


def n8(value: int) -> int:
    if not -128 <= value <= 0xFF:
        raise LineError(f"value {value} ({show_hex(value)}) does not fit in 8 bits (-128..255)")
    return value & 0xFF


def n16(value: int) -> bytes:
    if not -32768 <= value <= 0xFFFF:
        raise LineError(
            f"value {value} ({show_hex(value)}) does not fit in 16 bits (-32768..65535)"
        )
    return bytes((value & 0xFF, (value >> 8) & 0xFF))


def _e8(value: int) -> int:
    if not -128 <= value <= 127:
        raise LineError(f"signed offset {value} is out of range -128..127")
    return value & 0xFF


@dataclass(frozen=True)
class _Operand:
    kind: str  # "reg" (register or condition), "mem" ([...]), "imm" (value), "sp+" (sp+e8)
    name: str = ""  # the register, or in [...] one of hl hl+ hl- bc de c ("" for [n16])
    expr: Expr | None = None

    def value(self) -> Expr:
        assert self.expr is not None
        return self.expr


def operand(toks: Sequence[Tok], scope: str | None) -> _Operand:
    if not toks:
        raise LineError("missing operand")
    words = tuple(t.text.lower() for t in toks)
    plain = all(t.kind in ("id", "op") for t in toks)
    if plain and len(toks) == 1 and words[0] in REGISTER_WORDS:
        return _Operand("reg", words[0])
    if toks[0].kind == "id" and words[0] == "sp" and len(toks) > 1 and words[1] in ("+", "-"):
        return _Operand("sp+", expr=parse_expr(toks[1:], scope))
    if toks[0].text == "[" and toks[-1].text == "]" and toks[0].kind == toks[-1].kind == "op":
        inner = toks[1:-1]
        if all(t.kind in ("id", "op") for t in inner):
            register = MEM_REGISTERS.get(tuple(t.text.lower() for t in inner))
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
        return _Operand("mem", expr=parse_expr(inner, scope))
    return _Operand("imm", expr=parse_expr(toks, scope))


def _r8(op: _Operand) -> int | None:
    """The r8 index of a register operand or [hl] (6)."""
    if op.kind == "reg":
        return R8.get(op.name)
    return 6 if op.kind == "mem" and op.name == "hl" else None


def _reg(op: _Operand, table: dict[str, int]) -> int | None:
    return table.get(op.name) if op.kind == "reg" else None


def _is_reg(op: _Operand, name: str) -> bool:
    return op.kind == "reg" and op.name == name


@dataclass(frozen=True)
class _Enc:
    """An encoded instruction: its size (known in pass 1) and how to emit its bytes."""

    size: int
    emit: Callable[[Ctx], bytes]


def _fixed(*code: int) -> _Enc:
    data = bytes(code)
    return _Enc(len(data), lambda ctx: data)


def _with_n8(opcode: int, expr: Expr) -> _Enc:
    return _Enc(2, lambda ctx: bytes((opcode, n8(expr(ctx)))))


def _with_n16(opcode: int, expr: Expr) -> _Enc:
    return _Enc(3, lambda ctx: bytes((opcode,)) + n16(expr(ctx)))


def _with_e8(opcode: int, expr: Expr) -> _Enc:
    return _Enc(2, lambda ctx: bytes((opcode, _e8(expr(ctx)))))


def _relative(opcode: int, expr: Expr) -> _Enc:
    def emit(ctx: Ctx) -> bytes:
        target = expr(ctx)
        distance = target - (ctx.here() + 2)
        if not -128 <= distance <= 127:
            raise LineError(
                f"jr target {show_hex(target)} is out of range: it is {distance} bytes from the "
                "next instruction (must be -128..127)"
            )
        return bytes((opcode, distance & 0xFF))

    return _Enc(2, emit)


def _high_page(opcode: int, expr: Expr) -> _Enc:
    def emit(ctx: Ctx) -> bytes:
        address = expr(ctx)
        if not (0 <= address <= 0xFF or 0xFF00 <= address <= 0xFFFF):
            raise LineError(f"ldh address {show_hex(address)} is not in $FF00-$FFFF (or $00-$FF)")
        return bytes((opcode, address & 0xFF))

    return _Enc(2, emit)


def _rst(expr: Expr) -> _Enc:
    def emit(ctx: Ctx) -> bytes:
        vector = expr(ctx)
        if vector not in range(0, 0x40, 8):
            raise LineError(f"rst vector {show_hex(vector)} is not one of $00, $08, ..., $38")
        return bytes((0xC7 + vector,))

    return _Enc(1, emit)


def _bit_op(base: int, bit: Expr, reg: int) -> _Enc:
    def emit(ctx: Ctx) -> bytes:
        number = bit(ctx)
        if not 0 <= number <= 7:
            raise LineError(f"bit number {number} is out of range 0..7")
        return bytes((0xCB, base + 8 * number + reg))

    return _Enc(2, emit)


def _encode_ld(dst: _Operand, src: _Operand) -> _Enc | None:
    d, s = _r8(dst), _r8(src)
    if d is not None and s is not None:
        return None if d == s == 6 else _fixed(0x40 + 8 * d + s)  # ld [hl],[hl] is halt
    if d is not None and src.kind == "imm":
        return _with_n8(0x06 + 8 * d, src.value())
    pair = _reg(dst, R16)
    if pair is not None and src.kind == "imm":
        return _with_n16(0x01 + 16 * pair, src.value())
    if _is_reg(dst, "sp") and _is_reg(src, "hl"):
        return _fixed(0xF9)
    if _is_reg(dst, "hl") and src.kind == "sp+":
        return _with_e8(0xF8, src.value())
    for a, mem, table in ((dst, src, LD_A_FROM_MEM), (src, dst, LD_MEM_FROM_A)):
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
        cond = _reg(ops[0], CONDITIONS) if len(ops) == 1 else None
        return None if cond is None else _fixed(0xC0 + 8 * cond)
    if len(ops) == 1 and mnemonic == "jp" and (_is_reg(ops[0], "hl") or _r8(ops[0]) == 6):
        return _fixed(0xE9)
    if len(ops) not in (1, 2) or ops[-1].kind != "imm":
        return None
    cond = _reg(ops[0], CONDITIONS) if len(ops) == 2 else None
    if len(ops) == 2 and cond is None:
        return None
    target = ops[-1].value()
    if mnemonic == "jr":
        return _relative(0x18 if cond is None else 0x20 + 8 * cond, target)
    if mnemonic == "jp":
        return _with_n16(0xC3 if cond is None else 0xC2 + 8 * cond, target)
    return _with_n16(0xCD if cond is None else 0xC4 + 8 * cond, target)


def encode(mnemonic: str, ops: Sequence[_Operand]) -> _Enc | None:
    """The encoding of an instruction, or None for an operand combination that does not exist."""
    count = len(ops)
    if mnemonic in NO_OPERANDS:
        return _fixed(*NO_OPERANDS[mnemonic]) if count == 0 else None
    if mnemonic in ("ld", "ldh"):
        if count != 2:
            return None
        return (_encode_ld if mnemonic == "ld" else _encode_ldh)(ops[0], ops[1])
    if mnemonic in ("jr", "jp", "call", "ret"):
        return _encode_flow(mnemonic, ops)
    if mnemonic in ("push", "pop"):
        pair = _reg(ops[0], R16_STACK) if count == 1 else None
        base = 0xC5 if mnemonic == "push" else 0xC1
        return None if pair is None else _fixed(base + 16 * pair)
    if mnemonic in ("inc", "dec"):
        if count != 1:
            return None
        reg, pair = _r8(ops[0]), _reg(ops[0], R16)
        if reg is not None:
            return _fixed((0x04 if mnemonic == "inc" else 0x05) + 8 * reg)
        if pair is not None:
            return _fixed((0x03 if mnemonic == "inc" else 0x0B) + 16 * pair)
        return None
    if mnemonic == "add" and count == 2 and _is_reg(ops[0], "hl"):
        pair = _reg(ops[1], R16)
        return None if pair is None else _fixed(0x09 + 16 * pair)
    if mnemonic == "add" and count == 2 and _is_reg(ops[0], "sp"):
        return _with_e8(0xE8, ops[1].value()) if ops[1].kind == "imm" else None
    if mnemonic in ALU:
        if count == 2 and _is_reg(ops[0], "a"):
            src = ops[1]
        elif count == 1:
            src = ops[0]
        else:
            return None
        reg = _r8(src)
        if reg is not None:
            return _fixed(0x80 + 8 * ALU[mnemonic] + reg)
        return _with_n8(0xC6 + 8 * ALU[mnemonic], src.value()) if src.kind == "imm" else None
    if mnemonic == "rst":
        return _rst(ops[0].value()) if count == 1 and ops[0].kind == "imm" else None
    if mnemonic in CB_SHIFTS:
        reg = _r8(ops[0]) if count == 1 else None
        return None if reg is None else _fixed(0xCB, 8 * CB_SHIFTS[mnemonic] + reg)
    if mnemonic in CB_BITS and count == 2 and ops[0].kind == "imm":
        reg = _r8(ops[1])
        return None if reg is None else _bit_op(CB_BITS[mnemonic], ops[0].value(), reg)
    return None
