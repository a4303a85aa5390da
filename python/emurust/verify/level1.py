"""Level 1: property checks of single instructions and of whole-machine invariants.

ALU checks run generated ROMs on emurust: every case is a few instructions that pop the
inputs from a work-RAM slot into registers, execute the opcode under test and push the
registers back into the same slot. Python fills work RAM with the inputs before the first
frame, runs until the program marks itself done, and compares work RAM with what the
reference model (:mod:`emurust.verify.model`) predicts. Thousands of cases run per ROM,
so the primary encoding of each operation is checked exhaustively over its 8-bit inputs
(and all flag combinations that matter) and the other encodings on a seeded sample biased
to boundary values.
"""

from __future__ import annotations

import functools
import random
import time
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

import emurust
from emurust.tools.asm import ops as asm
from emurust.tools.asm.rom import VERIFY_TITLE, build_rom
from emurust.verify import model
from emurust.verify.result import Result, Status

Case = tuple[int, ...]
WRAM = 0xC000
WRAM_LIMIT = 0xDF00  # slots stay below; DF00-DFFF is scratch (done flag)
CODE_LIMIT = 0x8000 - 0x20
EDGES = (0x00, 0x01, 0x0F, 0x10, 0x7F, 0x80, 0x8F, 0x99, 0x9A, 0xF0, 0xFE, 0xFF)
EDGES16 = (0x0000, 0x0001, 0x00FF, 0x0F00, 0x0FFF, 0x1000, 0x7FFF, 0x8000, 0xF000, 0xFFFF)
R8 = ("B", "C", "D", "E", "H", "L", "(HL)", "A")
FLAG_NAMES = (("Z", 0x80), ("N", 0x40), ("H", 0x20), ("C", 0x10))


@dataclass(frozen=True)
class Mode:
    """How emurust runs a batch: the fast path, or the reference path (every component
    stepped every M-cycle), optionally with a test-only fault injected."""

    reference: bool
    fault: str | None = None

    @property
    def label(self) -> str:
        path = "reference path" if self.reference else "fast path"
        return f"{path}, fault {self.fault!r}" if self.fault else path


def supports_reference_mode() -> bool:
    return hasattr(emurust.GameBoy, "reference_mode")


def supports_faults() -> bool:
    return hasattr(emurust.GameBoy, "_inject_fault")


def new_gameboy(rom: bytes, mode: Mode | None = None) -> emurust.GameBoy:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", emurust.EmuRustWarning)
        gb = emurust.GameBoy(rom)
    if mode is not None and mode.reference:
        gb.reference_mode = True
    if mode is not None and mode.fault:
        gb._inject_fault(mode.fault)
    return gb


def run_until_done(gb: emurust.GameBoy, max_frames: int = 120) -> int:
    """Ticks frame by frame until the program's done flag is set; returns frames run."""
    for frame in range(1, max_frames + 1):
        gb.tick(1, render=False)
        if gb.memory[asm.DONE_FLAG] == asm.DONE_VALUE:
            return frame
    raise RuntimeError(f"generated program did not finish within {max_frames} frames")


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


def _rom_for(enc: Encoding, base: int, chunk: Sequence[Case]) -> bytes:
    parts = [asm.DI, asm.ld_sp(WRAM)]
    if enc.block is not None:
        parts.append(enc.block * len(chunk))
    else:
        assert enc.code is not None
        parts += [enc.code(base + i * enc.slot, case) for i, case in enumerate(chunk)]
    parts.append(asm.finish())
    return build_rom(b"".join(parts), title=VERIFY_TITLE)


def _chunks(enc: Encoding) -> Iterator[tuple[int, Sequence[Case]]]:
    per_case_code = len(enc.block) if enc.block is not None else 24
    cap = min((WRAM_LIMIT - WRAM) // enc.slot, (CODE_LIMIT - 0x160) // per_case_code)
    for start in range(0, len(enc.cases), cap):
        yield start, enc.cases[start : start + cap]


def _flags_diff(got: int, want: int) -> str:
    parts = [
        f"{name} emurust={int(bool(got & bit))} reference={int(bool(want & bit))}"
        for name, bit in FLAG_NAMES
        if (got ^ want) & bit
    ]
    if (got ^ want) & 0x0F:
        parts.append(f"low nibble emurust={got & 0xF:#x} reference=0x0")
    return ", ".join(parts)


def _diff(enc: Encoding, got: bytes, want: bytes) -> str:
    parts = []
    for name, g, w in zip(enc.fields, got, want):
        if g == w or name == "-":
            continue
        text = f"{name} emurust={g:#04x} reference={w:#04x}"
        if name == "F":
            text += f" ({_flags_diff(g, w)})"
        parts.append(text)
    return "; ".join(parts)


@dataclass
class EncodingOutcome:
    cases: int
    failures: list[tuple[Case, bytes, bytes]]


def run_encoding(enc: Encoding, mode: Mode) -> EncodingOutcome:
    """Runs every case of ``enc`` on emurust and collects (case, got, want) failures."""
    failures: list[tuple[Case, bytes, bytes]] = []
    for _start, chunk in _chunks(enc):
        rom = _rom_for(enc, WRAM, chunk)
        inputs = b"".join(enc.pack(WRAM + i * enc.slot, c) for i, c in enumerate(chunk))
        want = b"".join(enc.expect(WRAM + i * enc.slot, c) for i, c in enumerate(chunk))
        gb = new_gameboy(rom, mode)
        gb.memory[WRAM : WRAM + len(inputs)] = inputs
        run_until_done(gb)
        got = gb.memory[WRAM : WRAM + len(inputs)]
        if got == want:
            continue
        g = np.frombuffer(got, dtype=np.uint8).reshape(-1, enc.slot)
        w = np.frombuffer(want, dtype=np.uint8).reshape(-1, enc.slot)
        bad = np.flatnonzero((g != w).any(axis=1))
        for i in bad.tolist():
            failures.append((chunk[i], g[i].tobytes(), w[i].tobytes()))
    return EncodingOutcome(len(enc.cases), failures)


def _simplicity(case: Case) -> tuple[int, int]:
    """Orders failing cases simplest first: fewest set bits in the inputs that matter
    (the operands and F's flag nibble; not the untouched register beside the operand)."""
    vals = [case[0], case[1] & 0xF0] if len(case) == 2 else [case[0], case[1], case[2] & 0xF0]
    return (sum(bin(v).count("1") for v in vals), sum(vals))


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


@dataclass
class Family:
    name: str
    encodings: list[Encoding]


def alu_families(seed: int, samples: int) -> list[Family]:
    """Every ALU family with its encodings and cases (deterministic for a seed)."""
    rng = random.Random(seed)
    families = [
        Family(f"alu.{name}", binary_family(name, i, rng, samples))
        for i, name in enumerate(model.BINARY)
    ]
    families.append(
        Family(
            "alu.inc",
            unary_family("INC", lambda r: bytes([0x04 + 8 * r]), model.inc, rng, samples),
        )
    )
    families.append(
        Family(
            "alu.dec",
            unary_family("DEC", lambda r: bytes([0x05 + 8 * r]), model.dec, rng, samples),
        )
    )
    for name in ("rlca", "rrca", "rla", "rra"):
        families.append(Family(f"rotate.{name}", [accumulator_encoding(name, rng)]))
    for i, (name, fn) in enumerate(model.UNARY.items()):

        def op(r: int, i: int = i) -> bytes:
            return bytes([0xCB, 8 * i + r])

        kind = "shift" if name in ("sla", "sra", "srl", "swap") else "rotate"
        families.append(
            Family(f"{kind}.cb_{name}", unary_family(name.upper(), op, fn, rng, samples))
        )
    bit_encs: list[Encoding] = []
    for n in range(8):

        def op_bit(r: int, n: int = n) -> bytes:
            return bytes([0xCB, 0x40 + 8 * n + r])

        bit_encs += unary_family(f"BIT {n},", op_bit, model.bit(n), rng, max(64, samples // 4))
    families.append(Family("bit.cb_bit", bit_encs))
    for name in ("daa", "cpl", "scf", "ccf"):
        families.append(Family(f"bcd.{name}", [accumulator_encoding(name, rng)]))
    families.append(Family("alu16.add_hl_rr", add_hl_encodings(rng, samples)))
    families.append(Family("alu16.sp_e", sp_e_encodings(rng, max(4, samples // 64))))
    return families


def check_family(family: Family, modes: Sequence[Mode]) -> Result:
    start = time.perf_counter()
    total = 0
    failing: list[tuple[Encoding, Mode, Case, bytes, bytes]] = []
    per_encoding: list[str] = []
    for mode in modes:
        for enc in family.encodings:
            outcome = run_encoding(enc, mode)
            total += outcome.cases
            if outcome.failures:
                per_encoding.append(
                    f"{enc.label} ({mode.label}): {len(outcome.failures)}/{outcome.cases} fail"
                )
                failing += [(enc, mode, *f) for f in outcome.failures]
    cases_per_mode = sum(len(e.cases) for e in family.encodings)
    what = (
        f"{len(family.encodings)} encodings "
        f"({', '.join(e.label for e in family.encodings[:9])}"
        f"{', ...' if len(family.encodings) > 9 else ''}), {cases_per_mode} cases per path, "
        f"paths: {', '.join(m.label for m in modes)}"
    )
    stats = {"cases": total, "encodings": len(family.encodings), "failures": len(failing)}
    if not failing:
        return Result(
            1,
            family.name,
            "pass",
            "cpu",
            f"{what}: all agree with the reference model",
            stats=stats,
            seconds=time.perf_counter() - start,
        )
    enc, mode, case, got, want = min(failing, key=lambda f: _simplicity(f[2]))
    counterexample = (
        f"{enc.label} ({enc.opcode}) {enc.describe(case)} [{mode.label}]: {_diff(enc, got, want)}"
    )
    return Result(
        1,
        family.name,
        "fail",
        "cpu",
        f"{what}. {len(failing)} of {total} cases disagree: {'; '.join(per_encoding[:6])}",
        counterexample=counterexample,
        stats=stats,
        seconds=time.perf_counter() - start,
    )


def check_model_vectors(roms: Path) -> Result:
    """The reference model itself against SingleStepTests' recorded vectors."""
    from emurust.verify.vectors import check_model

    start = time.perf_counter()
    vector_dir = roms / "sm83-json" / "v1"
    if not vector_dir.is_dir():
        return Result(
            1,
            "model.sm83_vectors",
            "skip",
            "cpu",
            f"{vector_dir} not found: the reference model is not cross-checked",
        )
    files, vectors, problems = check_model(vector_dir)
    detail = (
        f"the reference ALU model against {vectors} SingleStepTests SM83 vectors "
        f"({files} opcode files)"
    )
    if problems:
        return Result(
            1,
            "model.sm83_vectors",
            "fail",
            "cpu",
            f"{detail}: the MODEL disagrees with {len(problems)}+ vectors",
            counterexample=problems[0],
            seconds=time.perf_counter() - start,
        )
    return Result(
        1,
        "model.sm83_vectors",
        "pass",
        "cpu",
        f"{detail}: all agree",
        stats={"vectors": vectors},
        seconds=time.perf_counter() - start,
    )


# ---------------------------------------------------------------------------------------
# Memory-map invariants.

# Bits that read back as 1 whatever is written (unused, or write-only), per Pan Docs'
# register descriptions for the DMG; addresses with no register read 0xFF.
IO_READ_ONES: dict[int, tuple[str, int, str]] = {
    0xFF00: ("P1", 0xC0, "joypad"),
    0xFF02: ("SC", 0x7E, "serial"),
    0xFF03: ("unused", 0xFF, "bus"),
    0xFF07: ("TAC", 0xF8, "timer"),
    **dict.fromkeys(range(65288, 65295), ("unused", 255, "bus")),
    0xFF0F: ("IF", 0xE0, "bus"),
    0xFF10: ("NR10", 0x80, "apu"),
    0xFF11: ("NR11", 0x3F, "apu"),
    0xFF13: ("NR13", 0xFF, "apu"),
    0xFF14: ("NR14", 0xBF, "apu"),
    0xFF15: ("unused", 0xFF, "apu"),
    0xFF16: ("NR21", 0x3F, "apu"),
    0xFF18: ("NR23", 0xFF, "apu"),
    0xFF19: ("NR24", 0xBF, "apu"),
    0xFF1A: ("NR30", 0x7F, "apu"),
    0xFF1B: ("NR31", 0xFF, "apu"),
    0xFF1C: ("NR32", 0x9F, "apu"),
    0xFF1D: ("NR33", 0xFF, "apu"),
    0xFF1E: ("NR34", 0xBF, "apu"),
    0xFF1F: ("unused", 0xFF, "apu"),
    0xFF20: ("NR41", 0xFF, "apu"),
    0xFF23: ("NR44", 0xBF, "apu"),
    0xFF26: ("NR52", 0x70, "apu"),
    **dict.fromkeys(range(65319, 65328), ("unused", 255, "apu")),
    0xFF41: ("STAT", 0x80, "ppu"),
    **dict.fromkeys(range(65356, 65408), ("unused", 255, "bus")),
}


def _idle_rom() -> bytes:
    return build_rom(asm.DI + asm.HALT + asm.jr(-3), title=VERIFY_TITLE)


def check_io_masks() -> Result:
    """Unused and write-only I/O bits read 1 after writing 0x00 and 0xFF."""
    start = time.perf_counter()
    gb = new_gameboy(_idle_rom())
    gb.tick(1, render=False)
    bad: list[str] = []
    for value in (0x00, 0xFF):
        for addr, (name, ones, _module) in IO_READ_ONES.items():
            gb.memory[addr] = value
            got = gb.memory[addr]
            if got & ones != ones:
                bad.append(
                    f"{name} ({addr:#06x}) after writing {value:#04x} reads {got:#04x}, "
                    f"bits {ones:#04x} must read 1"
                )
    # LY is read-only: a write leaves it (0 with the LCD off).
    gb.memory[0xFF40] = 0x00
    gb.memory[0xFF44] = 0x55
    if gb.memory[0xFF44] != 0:
        bad.append(f"LY (0xff44) with the LCD off reads {gb.memory[0xFF44]:#04x} after a write")
    modules = sorted({m for _, _, m in IO_READ_ONES.values()})
    detail = (
        f"{len(IO_READ_ONES)} I/O addresses ({', '.join(modules)}): unused/write-only bits read "
        "back as 1 after writing 0x00 and 0xFF; LY ignores writes"
    )
    if bad:
        first_addr = int(bad[0].split("(")[1][:6], 16) if "(" in bad[0] else 0
        module = IO_READ_ONES.get(first_addr, ("", 0, "bus"))[2]
        return Result(
            1,
            "memory.io_unused_bits",
            "fail",
            module,
            f"{detail}: {len(bad)} violations",
            counterexample=bad[0],
            stats={"violations": bad[:10]},
            seconds=time.perf_counter() - start,
        )
    return Result(
        1, "memory.io_unused_bits", "pass", "bus", detail, seconds=time.perf_counter() - start
    )


def check_echo_ram(rng: random.Random, samples: int) -> Result:
    """Echo RAM (E000-FDFF) mirrors C000-DDFF both ways: through the Python memory view
    and through CPU loads and stores in a generated program."""
    start = time.perf_counter()
    bad: list[str] = []
    gb = new_gameboy(_idle_rom())
    gb.tick(1, render=False)
    for _ in range(samples):
        offset = rng.randrange(0x1E00)
        value = rng.getrandbits(8)
        if rng.random() < 0.5:
            gb.memory[0xC000 + offset] = value
            got = gb.memory[0xE000 + offset]
            where = f"wrote {0xC000 + offset:#06x}, read {0xE000 + offset:#06x}"
        else:
            gb.memory[0xE000 + offset] = value
            got = gb.memory[0xC000 + offset]
            where = f"wrote {0xE000 + offset:#06x}, read {0xC000 + offset:#06x}"
        if got != value:
            bad.append(f"memory view: {where}: {value:#04x} -> {got:#04x}")
    # CPU: 120 stores into one half and loads from the other, results kept in HRAM.
    code = bytearray(asm.DI)
    expected: list[int] = []
    for k in range(120):
        offset = rng.randrange(0x1E00)
        value = rng.getrandbits(8)
        src, dst = (0xC000, 0xE000) if k % 2 else (0xE000, 0xC000)
        code += asm.ld_a(value) + asm.ld_mem_a(src + offset) + asm.ld_a_mem(dst + offset)
        code += asm.ldh_a_to(0x80 + k)
        expected.append(value)
    code += asm.finish()
    gb = new_gameboy(build_rom(bytes(code), title=VERIFY_TITLE))
    run_until_done(gb)
    got_cpu = gb.memory[0xFF80 : 0xFF80 + len(expected)]
    # Later stores can overwrite earlier ones at the same offset; only the CPU's own
    # loads (taken right after each store) are compared.
    for k, (want, got) in enumerate(zip(expected, got_cpu)):
        if want != got:
            bad.append(f"CPU store/load pair {k}: stored {want:#04x}, mirror read {got:#04x}")
    detail = f"{samples} memory-view writes and 120 CPU store/load pairs across C000-DDFF/E000-FDFF"
    if bad:
        return Result(
            1,
            "memory.echo_ram",
            "fail",
            "bus",
            f"{detail}: {len(bad)} mismatches",
            counterexample=bad[0],
            seconds=time.perf_counter() - start,
        )
    return Result(1, "memory.echo_ram", "pass", "bus", detail, seconds=time.perf_counter() - start)


def check_unusable_region() -> Result:
    """FEA0-FEFF: with the LCD off (OAM not blocked) reads return 0x00 on the DMG and
    writes are ignored, through CPU loads and through the memory view."""
    start = time.perf_counter()
    p = bytearray(asm.DI)
    # Wait for VBlank (LY = 144), switch the LCD off, then write and read back FEA0-FEFF.
    wait = len(p)
    p += asm.ldh_a_from(0x44) + b"\xfe\x90"  # cp 144
    p += asm.jr(wait - (len(p) + 2), "nz")
    p += b"\xaf" + asm.ldh_a_to(0x40)
    for i in range(0x60):
        p += asm.ld_a(0xA5) + asm.ld_mem_a(0xFEA0 + i) + asm.ld_a_mem(0xFEA0 + i)
        p += asm.ld_mem_a(0xC000 + i)
    p += asm.finish()
    gb = new_gameboy(build_rom(bytes(p), title=VERIFY_TITLE))
    run_until_done(gb)
    cpu = gb.memory[0xC000:0xC060]
    view = gb.memory[0xFEA0:0xFF00]
    bad = [f"CPU read {0xFEA0 + i:#06x} = {v:#04x}" for i, v in enumerate(cpu) if v != 0]
    bad += [f"memory view {0xFEA0 + i:#06x} = {v:#04x}" for i, v in enumerate(view) if v != 0]
    detail = "FEA0-FEFF with the LCD off: 96 CPU write+read pairs and the memory view read 0x00"
    if bad:
        return Result(
            1,
            "memory.unusable_fea0",
            "fail",
            "bus",
            f"{detail}: {len(bad)} non-zero reads",
            counterexample=bad[0],
            seconds=time.perf_counter() - start,
        )
    return Result(
        1, "memory.unusable_fea0", "pass", "bus", detail, seconds=time.perf_counter() - start
    )


# ---------------------------------------------------------------------------------------
# Save states and rendering.


def input_script(seed: int, frames: int, start: int = 0) -> dict[int, list[tuple[str, str]]]:
    """Frame -> [("press" | "release", button)]: seeded short presses."""
    rng = random.Random(seed)
    buttons = ("a", "b", "start", "select", "up", "down", "left", "right")
    script: dict[int, list[tuple[str, str]]] = {}
    frame = start + rng.randint(0, 10)
    while frame < start + frames:
        button = rng.choice(buttons)
        hold = rng.randint(1, 8)
        script.setdefault(frame, []).append(("press", button))
        script.setdefault(frame + hold, []).append(("release", button))
        frame += hold + rng.randint(1, 20)
    return script


def _apply(gb: emurust.GameBoy, actions: Sequence[tuple[str, str]]) -> None:
    for action, button in actions:
        if action == "press":
            gb.button_press(button)
        else:
            gb.button_release(button)


def _digest(gb: emurust.GameBoy) -> tuple[bytes, bytes, int, int]:
    regs = gb.registers
    reg_bytes = bytes(v & 0xFF for k in sorted(regs) for v in (regs[k], regs[k] >> 8))
    return (
        gb.memory[0x8000:0x10000] + reg_bytes,
        gb.screen_shades.tobytes(),
        gb.cycles,
        gb.frame_count,
    )


def _first_digest_diff(a: tuple[bytes, bytes, int, int], b: tuple[bytes, bytes, int, int]) -> str:
    if a[2:] != b[2:]:
        return f"cycles/frame_count {a[2:]} vs {b[2:]}"
    if a[0] != b[0]:
        i = next(k for k, (x, y) in enumerate(zip(a[0], b[0])) if x != y)
        where = f"address {0x8000 + i:#06x}" if i < 0x8000 else "registers"
        return f"{where}: {a[0][i]:#04x} vs {b[0][i]:#04x}"
    return "screen differs"


def check_save_load(rom: bytes, label: str, seed: int, warmup: int, frames: int) -> Result:
    """save_state -> load_state into a fresh machine is bit-identical (the state bytes),
    and the next ``frames`` frames (memory 8000-FFFF, registers, screen) match, with the
    same scripted input; loading back into the machine that ran on rewinds it too."""
    start = time.perf_counter()
    script = input_script(seed, warmup + frames)
    gb = new_gameboy(rom)
    for f in range(warmup):
        _apply(gb, script.get(f, ()))
        gb.tick(1, render=False)
    state = gb.save_state()
    held = gb.save_state()
    problems: list[str] = []
    if held != state:
        problems.append("two save_state() calls without running differ")

    def run(machine: emurust.GameBoy) -> list[tuple[bytes, bytes, int, int]]:
        out = []
        for f in range(warmup, warmup + frames):
            _apply(machine, script.get(f, ()))
            machine.tick(1, render=True)
            out.append(_digest(machine))
        return out

    # Buttons held at the save point are part of the state; the script's releases for
    # them come later and apply equally to all runs.
    first = run(gb)
    fresh = new_gameboy(rom)
    fresh.load_state(state)
    if fresh.save_state() != state:
        problems.append("save_state() right after load_state() differs from the loaded bytes")
    second = run(fresh)
    gb.load_state(state)
    third = run(gb)
    for name, other in (("fresh machine", second), ("rewound machine", third)):
        for f, (x, y) in enumerate(zip(first, other)):
            if x != y:
                problems.append(
                    f"{name}, frame {warmup + f} after load: {_first_digest_diff(x, y)}"
                )
                break
    detail = (
        f"{label}: state saved after {warmup} frames ({len(state)} bytes), reloaded into a fresh "
        f"and into the same machine; {frames} following frames compared (memory, registers, "
        "screen) with scripted input"
    )
    status: Status = "fail" if problems else "pass"
    return Result(
        1,
        f"state.save_load.{label}",
        status,
        "state",
        detail + (f": {problems[0]}" if problems else ""),
        frames=frames,
        counterexample=problems[0] if problems else None,
        seconds=time.perf_counter() - start,
    )


def check_render_independence(rom: bytes, label: str, seed: int, frames: int) -> Result:
    """Rendering on, off, or now and then leaves the machine state (the save-state bytes
    but for the picture, which is what rendering draws) identical at every frame."""
    start = time.perf_counter()
    script = input_script(seed, frames)
    machines = [new_gameboy(rom) for _ in range(3)]
    problem = None
    for f in range(frames):
        states = []
        for k, gb in enumerate(machines):
            _apply(gb, script.get(f, ()))
            render = (True, False, f % 7 == 0)[k]
            gb.tick(1, render=render)
            states.append(gb._machine_state())
        if not states[0] == states[1] == states[2]:
            which = "off" if states[0] != states[1] else "every 7th frame"
            problem = f"frame {f}: state with rendering on differs from rendering {which}"
            break
    detail = (
        f"{label}: {frames} frames with rendering on / off / every 7th frame, the machine "
        "state (save_state() but for its picture) compared every frame"
    )
    return Result(
        1,
        f"state.render_independent.{label}",
        "fail" if problem else "pass",
        "ppu",
        detail + (f": {problem}" if problem else ""),
        frames=frames,
        counterexample=problem,
        seconds=time.perf_counter() - start,
    )


# Shared games used by the whole-machine checks when the test-ROM folder is present.
GAMES = {
    "2048": "homebrew/2048/2048.gb",
    "tobutobugirl": "homebrew/tobutobugirl/tobu.gb",
    "libbet": "homebrew/libbet/libbet.gb",
    "pandoras_blocks": "homebrew/pandoras-blocks/PandorasBlocks.gbc",
}


def modes_for(fault: str | None) -> list[Mode]:
    """The fast path always; the reference path too where the build exposes it (with the
    injected fault, if any: faults act only on the reference path)."""
    modes = [Mode(reference=False)]
    if supports_reference_mode():
        modes.append(Mode(reference=True, fault=fault))
    elif fault is not None:
        raise RuntimeError("this emurust build has no reference mode: cannot inject faults")
    if fault is not None and not supports_faults():
        raise RuntimeError("this emurust build has no GameBoy._inject_fault")
    return modes


def level1_checks(
    *, seed: int, samples: int, roms: Path | None, fault: str | None
) -> list[tuple[str, Callable[[], Result]]]:
    """The level's checks as (name, thunk) pairs, so the caller can show progress."""
    modes = modes_for(fault)
    checks: list[tuple[str, Callable[[], Result]]] = []
    for family in alu_families(seed, samples):
        checks.append((family.name, functools.partial(check_family, family, modes)))
    if roms is not None:
        checks.append(("model.sm83_vectors", lambda: check_model_vectors(roms)))
    checks.append(("memory.io_unused_bits", check_io_masks))
    checks.append(("memory.echo_ram", lambda: check_echo_ram(random.Random(seed), 2000)))
    checks.append(("memory.unusable_fea0", check_unusable_region))
    from emurust.verify.programs import activity_rom

    active = activity_rom()
    checks.append(
        ("state.save_load.activity", lambda: check_save_load(active, "activity", seed, 60, 120))
    )
    checks.append(
        (
            "state.render_independent.activity",
            lambda: check_render_independence(active, "activity", seed, 120),
        )
    )
    if roms is not None:
        for name, rel in GAMES.items():
            path = roms / rel
            if not path.is_file():
                continue
            data = path.read_bytes()
            checks.append(
                (
                    f"state.save_load.{name}",
                    functools.partial(check_save_load, data, name, seed, 200, 120),
                )
            )
            checks.append(
                (
                    f"state.render_independent.{name}",
                    functools.partial(check_render_independence, data, name, seed, 150),
                )
            )
    return checks
