"""An independent reference model of the SM83 ALU: results and flags, written from the
documented opcode tables (Pan Docs "CPU Instruction Set", the RGBDS ``gbz80(7)`` manual),
not from emurust's Rust code.

Every function takes plain ints and returns ``(result, flags)`` where ``flags`` is the F
register (Z=0x80, N=0x40, H=0x20, C=0x10, low nibble 0). ``f`` arguments are the F
register before the instruction. The verification runner (:mod:`emurust.verify`, level 1)
executes the same inputs on emurust and compares.
"""

from __future__ import annotations

from typing import Callable

Z = 0x80
N = 0x40
H = 0x20
C = 0x10


def _flags(z: bool, n: bool, h: bool, c: bool) -> int:
    return (Z if z else 0) | (N if n else 0) | (H if h else 0) | (C if c else 0)


def _carry(f: int) -> int:
    return 1 if f & C else 0


# 8-bit arithmetic and logic: A op value -> (A', F').
def add(a: int, v: int, f: int) -> tuple[int, int]:
    """ADD A,v: Z * / N 0 / H carry from bit 3 / C carry from bit 7."""
    total = a + v
    return total & 0xFF, _flags(total & 0xFF == 0, False, (a & 0xF) + (v & 0xF) > 0xF, total > 0xFF)


def adc(a: int, v: int, f: int) -> tuple[int, int]:
    """ADC A,v: as ADD with the carry flag added in; H and C include the carry-in."""
    cy = _carry(f)
    total = a + v + cy
    half = (a & 0xF) + (v & 0xF) + cy > 0xF
    return total & 0xFF, _flags(total & 0xFF == 0, False, half, total > 0xFF)


def sub(a: int, v: int, f: int) -> tuple[int, int]:
    """SUB A,v: Z * / N 1 / H borrow from bit 4 / C borrow (v > A)."""
    r = (a - v) & 0xFF
    return r, _flags(r == 0, True, (a & 0xF) < (v & 0xF), a < v)


def sbc(a: int, v: int, f: int) -> tuple[int, int]:
    """SBC A,v: A - v - carry; H and C are borrows including the carry-in."""
    cy = _carry(f)
    r = (a - v - cy) & 0xFF
    return r, _flags(r == 0, True, (a & 0xF) < (v & 0xF) + cy, a < v + cy)


def and_(a: int, v: int, f: int) -> tuple[int, int]:
    """AND A,v: Z * / N 0 / H 1 / C 0."""
    r = a & v
    return r, _flags(r == 0, False, True, False)


def xor(a: int, v: int, f: int) -> tuple[int, int]:
    """XOR A,v: Z * / N 0 / H 0 / C 0."""
    r = a ^ v
    return r, _flags(r == 0, False, False, False)


def or_(a: int, v: int, f: int) -> tuple[int, int]:
    """OR A,v: Z * / N 0 / H 0 / C 0."""
    r = a | v
    return r, _flags(r == 0, False, False, False)


def cp(a: int, v: int, f: int) -> tuple[int, int]:
    """CP A,v: the flags of SUB A,v; A is unchanged."""
    return a, sub(a, v, f)[1]


# 8-bit unary operations on a register or (HL): value -> (value', F').
def inc(v: int, f: int) -> tuple[int, int]:
    """INC r: Z * / N 0 / H carry from bit 3 / C unchanged."""
    r = (v + 1) & 0xFF
    return r, _flags(r == 0, False, v & 0xF == 0xF, bool(f & C))


def dec(v: int, f: int) -> tuple[int, int]:
    """DEC r: Z * / N 1 / H borrow from bit 4 / C unchanged."""
    r = (v - 1) & 0xFF
    return r, _flags(r == 0, True, v & 0xF == 0, bool(f & C))


def rlc(v: int, f: int) -> tuple[int, int]:
    """RLC r: rotate left, bit 7 to carry and bit 0. Z * / N 0 / H 0 / C old bit 7."""
    r = ((v << 1) | (v >> 7)) & 0xFF
    return r, _flags(r == 0, False, False, bool(v & 0x80))


def rrc(v: int, f: int) -> tuple[int, int]:
    """RRC r: rotate right, bit 0 to carry and bit 7."""
    r = ((v >> 1) | (v << 7)) & 0xFF
    return r, _flags(r == 0, False, False, bool(v & 1))


def rl(v: int, f: int) -> tuple[int, int]:
    """RL r: rotate left through carry."""
    r = ((v << 1) | _carry(f)) & 0xFF
    return r, _flags(r == 0, False, False, bool(v & 0x80))


def rr(v: int, f: int) -> tuple[int, int]:
    """RR r: rotate right through carry."""
    r = (v >> 1) | (_carry(f) << 7)
    return r, _flags(r == 0, False, False, bool(v & 1))


def sla(v: int, f: int) -> tuple[int, int]:
    """SLA r: shift left arithmetic, bit 0 = 0."""
    r = (v << 1) & 0xFF
    return r, _flags(r == 0, False, False, bool(v & 0x80))


def sra(v: int, f: int) -> tuple[int, int]:
    """SRA r: shift right arithmetic, bit 7 unchanged."""
    r = (v >> 1) | (v & 0x80)
    return r, _flags(r == 0, False, False, bool(v & 1))


def srl(v: int, f: int) -> tuple[int, int]:
    """SRL r: shift right logical, bit 7 = 0."""
    r = v >> 1
    return r, _flags(r == 0, False, False, bool(v & 1))


def swap(v: int, f: int) -> tuple[int, int]:
    """SWAP r: exchange nibbles. Z * / N 0 / H 0 / C 0."""
    r = ((v & 0xF) << 4) | (v >> 4)
    return r, _flags(r == 0, False, False, False)


def bit(n: int) -> Callable[[int, int], tuple[int, int]]:
    """BIT n,r: Z = !bit n / N 0 / H 1 / C unchanged; r unchanged."""

    def op(v: int, f: int) -> tuple[int, int]:
        return v, _flags(not (v >> n) & 1, False, True, bool(f & C))

    return op


# Accumulator-only operations: (A, F) -> (A', F').
def rlca(a: int, f: int) -> tuple[int, int]:
    """RLCA: as RLC A but Z is always 0."""
    return rlc(a, f)[0], rlc(a, f)[1] & ~Z


def rrca(a: int, f: int) -> tuple[int, int]:
    """RRCA: as RRC A but Z is always 0."""
    return rrc(a, f)[0], rrc(a, f)[1] & ~Z


def rla(a: int, f: int) -> tuple[int, int]:
    """RLA: as RL A but Z is always 0."""
    return rl(a, f)[0], rl(a, f)[1] & ~Z


def rra(a: int, f: int) -> tuple[int, int]:
    """RRA: as RR A but Z is always 0."""
    return rr(a, f)[0], rr(a, f)[1] & ~Z


def daa(a: int, f: int) -> tuple[int, int]:
    """DAA: decimal-adjust A after a BCD addition (N=0) or subtraction (N=1).

    After an addition the correction is +0x06 when H is set or the low digit is above 9,
    and +0x60 when C is set or A is above 0x99 (C is then set). After a subtraction the
    correction is -0x06 when H is set and -0x60 when C is set (C unchanged).
    Z * / N unchanged / H 0 / C as described.
    """
    subtract = bool(f & N)
    carry = bool(f & C)
    if subtract:
        adjust = (0x06 if f & H else 0) + (0x60 if carry else 0)
        r = (a - adjust) & 0xFF
    else:
        adjust = 0
        if f & H or a & 0xF > 9:
            adjust += 0x06
        if carry or a > 0x99:
            adjust += 0x60
            carry = True
        r = (a + adjust) & 0xFF
    return r, _flags(r == 0, subtract, False, carry)


def cpl(a: int, f: int) -> tuple[int, int]:
    """CPL: A = ~A. Z unchanged / N 1 / H 1 / C unchanged."""
    return a ^ 0xFF, (f & (Z | C)) | N | H


def scf(a: int, f: int) -> tuple[int, int]:
    """SCF: Z unchanged / N 0 / H 0 / C 1."""
    return a, (f & Z) | C


def ccf(a: int, f: int) -> tuple[int, int]:
    """CCF: Z unchanged / N 0 / H 0 / C complemented."""
    return a, (f & Z) | (0 if f & C else C)


# 16-bit arithmetic.
def add_hl(hl: int, v: int, f: int) -> tuple[int, int]:
    """ADD HL,rr: Z unchanged / N 0 / H carry from bit 11 / C carry from bit 15."""
    total = hl + v
    half = (hl & 0xFFF) + (v & 0xFFF) > 0xFFF
    return total & 0xFFFF, (f & Z) | _flags(False, False, half, total > 0xFFFF)


def add_sp_e(sp: int, e: int, f: int) -> tuple[int, int]:
    """ADD SP,e and LD HL,SP+e (``e`` the unsigned operand byte, added as signed):
    Z 0 / N 0 / H carry from bit 3 / C carry from bit 7 of the unsigned low-byte sum."""
    signed = e - 0x100 if e & 0x80 else e
    half = (sp & 0xF) + (e & 0xF) > 0xF
    carry = (sp & 0xFF) + e > 0xFF
    return (sp + signed) & 0xFFFF, _flags(False, False, half, carry)


BINARY: dict[str, Callable[[int, int, int], tuple[int, int]]] = {
    "add": add,
    "adc": adc,
    "sub": sub,
    "sbc": sbc,
    "and": and_,
    "xor": xor,
    "or": or_,
    "cp": cp,
}
"""The eight ``A op v`` operations in opcode order (0x80 + 8*i + r, immediate 0xC6 + 8*i)."""

UNARY: dict[str, Callable[[int, int], tuple[int, int]]] = {
    "rlc": rlc,
    "rrc": rrc,
    "rl": rl,
    "rr": rr,
    "sla": sla,
    "sra": sra,
    "swap": swap,
    "srl": srl,
}
"""The eight CB-prefixed shifts and rotates in opcode order (0xCB, 8*i + r)."""

ACCUMULATOR: dict[str, tuple[int, Callable[[int, int], tuple[int, int]]]] = {
    "rlca": (0x07, rlca),
    "rrca": (0x0F, rrca),
    "rla": (0x17, rla),
    "rra": (0x1F, rra),
    "daa": (0x27, daa),
    "cpl": (0x2F, cpl),
    "scf": (0x37, scf),
    "ccf": (0x3F, ccf),
}
"""One-byte accumulator/flag operations: name -> (opcode, model)."""
