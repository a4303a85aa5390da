"""Level 1's ALU checks: every opcode family run on emurust in generated ROMs, its cases
in work RAM, and compared with the reference model (:mod:`emurust.verify.model`); and the
model itself against the SingleStepTests SM83 vectors.

Every case is a few instructions that pop the inputs from a work-RAM slot into registers,
execute the opcode under test and push the registers back into the same slot. Python fills
work RAM with the inputs before the first frame, runs until the program marks itself done,
and compares work RAM with what the reference model predicts."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from emurust.tools.asm import ops as asm
from emurust.tools.asm.rom import VERIFY_TITLE, build_rom
from emurust.verify import model
from emurust.verify.machine import Mode, new_gameboy, run_until_done
from emurust.verify.properties.encodings import (
    FLAG_NAMES,
    Case,
    Encoding,
    accumulator_encoding,
    add_hl_encodings,
    binary_family,
    sp_e_encodings,
    unary_family,
)
from emurust.verify.result import Result

WRAM = 0xC000
WRAM_LIMIT = 0xDF00  # slots stay below; DF00-DFFF is scratch (done flag)
CODE_LIMIT = 0x8000 - 0x20


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


def describe_diff(enc: Encoding, got: bytes, want: bytes) -> str:
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
        f"{enc.label} ({enc.opcode}) {enc.describe(case)} [{mode.label}]: "
        f"{describe_diff(enc, got, want)}"
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
