"""The ALU encodings level 1 checks and their cases: :class:`Encoding` (how one opcode
encoding's cases are laid out in work RAM and what the reference model predicts), the
seeded case generation (biased to boundary values) and the encodings of each family.
Register operands use the pair that holds them: B,C -> BC; D,E -> DE; H,L -> HL. Slots for
a pair are [lo, hi, F, A]; for (HL) [L, H, F, A, value, -] with HL pointing at the value
byte; for A-only operations [F, A]."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

from emurust.tools.asm import ops as asm
from emurust.verify import model

Case = tuple[int, ...]


EDGES = (0x00, 0x01, 0x0F, 0x10, 0x7F, 0x80, 0x8F, 0x99, 0x9A, 0xF0, 0xFE, 0xFF)
EDGES16 = (0x0000, 0x0001, 0x00FF, 0x0F00, 0x0FFF, 0x1000, 0x7FFF, 0x8000, 0xF000, 0xFFFF)
R8 = ("B", "C", "D", "E", "H", "L", "(HL)", "A")
FLAG_NAMES = (("Z", 0x80), ("N", 0x40), ("H", 0x20), ("C", 0x10))


@dataclass
class Encoding:
    """One opcode encoding under test and how its cases are laid out in work RAM.

    ``fields`` names the slot bytes (low address first); ``code(addr, case)`` is the code
    for one case whose slot is at ``addr`` (``None`` when it is the same for every case:
    ``block``); ``pack(addr, case)`` and ``expect(addr, case)`` give the slot before and
    (per the model) after; ``describe(case)`` the inputs in words.
    """

    label: str
    opcode: str
    fields: tuple[str, ...]
    block: bytes | None
    pack: Callable[[int, Case], bytes]
    expect: Callable[[int, Case], bytes]
    describe: Callable[[Case], str]
    cases: list[Case]
    code: Callable[[int, Case], bytes] | None = None

    @property
    def slot(self) -> int:
        return len(self.fields)


# ---------------------------------------------------------------------------------------
# Case generation.


def _byte(rng: random.Random) -> int:
    return rng.choice(EDGES) if rng.random() < 0.3 else rng.getrandbits(8)


def _word(rng: random.Random) -> int:
    return rng.choice(EDGES16) if rng.random() < 0.3 else rng.getrandbits(16)


def _sample(rng: random.Random, n: int, arity: int) -> list[Case]:
    return [tuple(_byte(rng) for _ in range(arity)) for _ in range(n)]


# ---------------------------------------------------------------------------------------
# Encodings. Register operands use the pair that holds them: B,C -> BC; D,E -> DE;
# H,L -> HL. Slots for a pair are [lo, hi, F, A]; for (HL) [L, H, F, A, value, -] with HL
# pointing at the value byte; for A-only operations [F, A].

PAIR_POP = {0: 0xC1, 1: 0xC1, 2: 0xD1, 3: 0xD1, 4: 0xE1, 5: 0xE1}
PAIR_PUSH = {0: 0xC5, 1: 0xC5, 2: 0xD5, 3: 0xD5, 4: 0xE5, 5: 0xE5}
PAIR_NAMES = {0: ("C", "B"), 2: ("E", "D"), 4: ("L", "H")}


def _f_in(f: int) -> int:
    return f & 0xF0


def _reg_encoding(
    label: str,
    opcode_bytes: bytes,
    r: int,
    cases: list[Case],
    run: Callable[[Case], tuple[int, int, int]],
    describe: Callable[[Case], str],
) -> Encoding:
    """An encoding whose operand/target is register ``r`` (0..7 as in the opcode table).

    ``cases`` are (a, v, f, other) tuples: A, the value of r (ignored for r = A), F
    (any byte; the CPU keeps only its high nibble) and the other half of r's pair.
    ``run(case)`` gives (A', r', F') from the model.
    """
    op = opcode_bytes
    if r == 7:
        fields: tuple[str, ...] = ("F", "A")

        def pack(addr: int, c: Case) -> bytes:
            return bytes([c[2], c[0]])

        def expect(addr: int, c: Case) -> bytes:
            a, _, f = run(c)
            return bytes([f, a])

        block = bytes([0xF1]) + op + bytes([0xF5, 0x33, 0x33])
    elif r == 6:
        fields = ("L", "H", "F", "A", "(HL)", "-")

        def pack(addr: int, c: Case) -> bytes:
            p = addr + 4
            return bytes([p & 0xFF, p >> 8, c[2], c[0], c[1], 0])

        def expect(addr: int, c: Case) -> bytes:
            a, v, f = run(c)
            p = addr + 4
            return bytes([p & 0xFF, p >> 8, f, a, v, 0])

        block = bytes([0xE1, 0xF1]) + op + bytes([0xF5, 0xE5, 0xE8, 0x06])
    else:
        lo_name, hi_name = PAIR_NAMES[r & ~1]
        fields = (lo_name, hi_name, "F", "A")
        high = r % 2 == 0  # B, D, H are the high byte of their pair

        def pack(addr: int, c: Case) -> bytes:
            hi, lo = (c[1], c[3]) if high else (c[3], c[1])
            return bytes([lo, hi, c[2], c[0]])

        def expect(addr: int, c: Case) -> bytes:
            a, v, f = run(c)
            hi, lo = (v, c[3]) if high else (c[3], v)
            return bytes([lo, hi, f, a])

        block = bytes([PAIR_POP[r], 0xF1]) + op + bytes([0xF5, PAIR_PUSH[r], 0xE8, 0x04])
    return Encoding(label, op.hex(" "), fields, block, pack, expect, describe, cases)


def binary_family(name: str, index: int, rng: random.Random, samples: int) -> list[Encoding]:
    fn = model.BINARY[name]
    uses_carry = name in ("adc", "sbc")
    mnemonic = name.upper()

    def run_r(r: int) -> Callable[[Case], tuple[int, int, int]]:
        def run(c: Case) -> tuple[int, int, int]:
            a, v, f = c[0], c[1], _f_in(c[2])
            if r == 7:
                v = a
            res, flags = fn(a, v, f)
            return res, v, flags

        return run

    def describe(c: Case) -> str:
        carry = f" carry={1 if c[2] & 0x10 else 0}" if uses_carry else ""
        return f"A={c[0]:#04x} v={c[1]:#04x} F={c[2] & 0xF0:#04x}{carry}"

    encs = []
    for r in range(8):
        if r == 0:  # exhaustive: every A, every B, carry in and out (other flags random)
            carries = (0x00, 0x10) if uses_carry else (None,)
            cases: list[Case] = []
            for a in range(256):
                for v in range(256):
                    for cy in carries:
                        f = rng.getrandbits(8)
                        f = (f & ~0x10) | cy if cy is not None else f
                        cases.append((a, v, f, rng.getrandbits(8)))
        else:
            cases = _sample(rng, samples, 4)
        encs.append(
            _reg_encoding(
                f"{mnemonic} A,{R8[r]}",
                bytes([0x80 + 8 * index + r]),
                r,
                cases,
                run_r(r),
                describe,
            )
        )
    # The immediate form: the operand is in the code, so the code differs per case.
    imm_cases = _sample(rng, samples, 3)
    imm_op = 0xC6 + 8 * index

    def imm_expect(addr: int, c: Case) -> bytes:
        res, flags = fn(c[0], c[1], _f_in(c[2]))
        return bytes([flags, res])

    encs.append(
        Encoding(
            f"{mnemonic} A,d8",
            f"{imm_op:02x} nn",
            ("F", "A"),
            None,
            lambda addr, c: bytes([c[2], c[0]]),
            imm_expect,
            describe,
            imm_cases,
            code=lambda addr, c: bytes([0xF1, imm_op, c[1], 0xF5, 0x33, 0x33]),
        )
    )
    return encs


def _unary_cases(rng: random.Random, exhaustive: bool, samples: int) -> list[Case]:
    if exhaustive:  # every value with every flag combination
        return [
            (rng.getrandbits(8), v, (f << 4) | rng.getrandbits(4), rng.getrandbits(8))
            for v in range(256)
            for f in range(16)
        ]
    return _sample(rng, samples, 4)


def unary_family(
    mnemonic: str,
    opcode_of: Callable[[int], bytes],
    fn: Callable[[int, int], tuple[int, int]],
    rng: random.Random,
    samples: int,
    primary: int = 0,
) -> list[Encoding]:
    """INC/DEC/CB operations on each of the eight register operands."""

    def run_r(r: int) -> Callable[[Case], tuple[int, int, int]]:
        def run(c: Case) -> tuple[int, int, int]:
            if r == 7:
                res, flags = fn(c[0], _f_in(c[2]))
                return res, res, flags
            res, flags = fn(c[1], _f_in(c[2]))
            return c[0], res, flags

        return run

    def describe_r(r: int) -> Callable[[Case], str]:
        def describe(c: Case) -> str:
            v = c[0] if r == 7 else c[1]
            return f"{R8[r]}={v:#04x} F={c[2] & 0xF0:#04x}"

        return describe

    encs = []
    for r in range(8):
        cases = _unary_cases(rng, r == primary, samples)
        label = f"{mnemonic} {R8[r]}" if "," not in mnemonic else f"{mnemonic}{R8[r]}"
        encs.append(_reg_encoding(label, opcode_of(r), r, cases, run_r(r), describe_r(r)))
    return encs


def accumulator_encoding(name: str, rng: random.Random) -> Encoding:
    opcode, fn = model.ACCUMULATOR[name]
    # Every A with every flag combination; the low nibble of F is random (the CPU drops it).
    cases: list[Case] = [(a, (f << 4) | rng.getrandbits(4)) for a in range(256) for f in range(16)]

    def expect(addr: int, c: Case) -> bytes:
        a, f = fn(c[0], _f_in(c[1]))
        return bytes([f, a])

    def describe(c: Case) -> str:
        f = c[1] & 0xF0
        flags = "".join(n if f & b else "-" for n, b in FLAG_NAMES)
        return f"A={c[0]:#04x} F={f:#04x} ({flags})"

    return Encoding(
        name.upper(),
        f"{opcode:02x}",
        ("F", "A"),
        bytes([0xF1, opcode, 0xF5, 0x33, 0x33]),
        lambda addr, c: bytes([c[1], c[0]]),
        expect,
        describe,
        cases,
    )


def _word_cases(rng: random.Random, n: int) -> list[Case]:
    cases: list[Case] = [(x, y, 0) for x in EDGES16 for y in EDGES16]
    cases += [(_word(rng), _word(rng), 0) for _ in range(n)]
    return [(x, y, rng.getrandbits(8)) for x, y, _ in cases]


def add_hl_encodings(rng: random.Random, samples: int) -> list[Encoding]:
    encs = []
    for rr, op, pop, push in (("BC", 0x09, 0xC1, 0xC5), ("DE", 0x19, 0xD1, 0xD5)):

        def pack(addr: int, c: Case) -> bytes:
            return asm.u16(c[0]) + asm.u16(c[1]) + bytes([c[2], 0x5A])

        def expect(addr: int, c: Case) -> bytes:
            hl, f = model.add_hl(c[0], c[1], _f_in(c[2]))
            return asm.u16(hl) + asm.u16(c[1]) + bytes([f, 0x5A])

        def describe(c: Case, rr: str = rr) -> str:
            return f"HL={c[0]:#06x} {rr}={c[1]:#06x} F={c[2] & 0xF0:#04x}"

        block = bytes([0xE1, pop, 0xF1, op, 0xF5, push, 0xE5, 0xE8, 0x06])
        encs.append(
            Encoding(
                f"ADD HL,{rr}",
                f"{op:02x}",
                ("L", "H", rr[1], rr[0], "F", "A"),
                block,
                pack,
                expect,
                describe,
                _word_cases(rng, samples * 4),
            )
        )

    def pack_hl(addr: int, c: Case) -> bytes:
        return asm.u16(c[0]) + bytes([c[2], 0x5A])

    def expect_hl(addr: int, c: Case) -> bytes:
        hl, f = model.add_hl(c[0], c[0], _f_in(c[2]))
        return asm.u16(hl) + bytes([f, 0x5A])

    encs.append(
        Encoding(
            "ADD HL,HL",
            "29",
            ("L", "H", "F", "A"),
            bytes([0xE1, 0xF1, 0x29, 0xF5, 0xE5, 0xE8, 0x04]),
            pack_hl,
            expect_hl,
            lambda c: f"HL={c[0]:#06x} F={c[2] & 0xF0:#04x}",
            _word_cases(rng, samples),
        )
    )

    def expect_sp(addr: int, c: Case) -> bytes:
        hl, f = model.add_hl(c[0], c[1], _f_in(c[2]))
        return asm.u16(hl) + bytes([f, 0x5A])

    def code_sp(addr: int, c: Case) -> bytes:
        return (
            bytes([0xE1, 0xF1])
            + asm.ld_sp(c[1])
            + b"\x39"
            + asm.ld_sp(addr + 4)
            + bytes([0xF5, 0xE5])
            + asm.ld_sp(addr + 4)
        )

    encs.append(
        Encoding(
            "ADD HL,SP",
            "39",
            ("L", "H", "F", "A"),
            None,
            pack_hl,
            expect_sp,
            lambda c: f"HL={c[0]:#06x} SP={c[1]:#06x} F={c[2] & 0xF0:#04x}",
            _word_cases(rng, samples),
            code=code_sp,
        )
    )
    return encs


def sp_e_encodings(rng: random.Random, per_e: int) -> list[Encoding]:
    """ADD SP,e and LD HL,SP+e: every e with ``per_e`` SP values (boundaries included)."""
    cases: list[Case] = []
    for e in range(256):
        sps = list(EDGES16) + [_word(rng) for _ in range(per_e)]
        cases += [(sp, e, rng.getrandbits(8)) for sp in sps]

    def describe(c: Case) -> str:
        e = c[1] - 0x100 if c[1] & 0x80 else c[1]
        return f"SP={c[0]:#06x} e={e:+d} F={c[2] & 0xF0:#04x}"

    def expect_add(addr: int, c: Case) -> bytes:
        sp, f = model.add_sp_e(c[0], c[1], _f_in(c[2]))
        return bytes([f, 0x5A]) + asm.u16(sp)

    def code_add(addr: int, c: Case) -> bytes:
        return (
            b"\xf1"
            + asm.ld_sp(c[0])
            + asm.add_sp(c[1])
            + asm.ld_mem_sp(addr + 2)
            + asm.ld_sp(addr + 2)
            + asm.PUSH_AF
            + asm.ld_sp(addr + 4)
        )

    def code_ld(addr: int, c: Case) -> bytes:
        return (
            b"\xf1"
            + asm.ld_sp(c[0])
            + bytes([0xF8, c[1]])
            + asm.ld_sp(addr + 4)
            + asm.PUSH_HL
            + asm.PUSH_AF
            + asm.ld_sp(addr + 4)
        )

    def pack(addr: int, c: Case) -> bytes:
        return bytes([c[2], 0x5A, 0, 0])

    return [
        Encoding(
            "ADD SP,e",
            "e8 nn",
            ("F", "A", "SP lo", "SP hi"),
            None,
            pack,
            expect_add,
            describe,
            cases,
            code=code_add,
        ),
        Encoding(
            "LD HL,SP+e",
            "f8 nn",
            ("F", "A", "L", "H"),
            None,
            pack,
            expect_add,
            describe,
            cases,
            code=code_ld,
        ),
    ]
