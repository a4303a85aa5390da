"""Hypothesis-driven level-1 properties: the reference ALU model against decimal and
two's-complement arithmetic, and emurust against the model on drawn cases (each drawn
case runs as its own generated ROM)."""

from __future__ import annotations

import functools

import pytest

hypothesis = pytest.importorskip("hypothesis")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from emurust.verify import machine, model  # noqa: E402
from emurust.verify.properties import alu, encodings  # noqa: E402

byte = st.integers(0, 255)
word = st.integers(0, 0xFFFF)
digit2 = st.integers(0, 99)


def bcd(n: int) -> int:
    return (n // 10) << 4 | n % 10


@given(digit2, digit2, st.booleans())
def test_model_daa_after_add_is_decimal_addition(x: int, y: int, carry: bool) -> None:
    f = model.C if carry else 0
    a, f = model.adc(bcd(x), bcd(y), f)
    a, f = model.daa(a, f)
    total = x + y + int(carry)
    assert a == bcd(total % 100)
    assert bool(f & model.C) == (total >= 100)
    assert bool(f & model.Z) == (total % 100 == 0)


@given(digit2, digit2)
def test_model_daa_after_sub_is_decimal_subtraction(x: int, y: int) -> None:
    a, f = model.daa(*model.sub(bcd(x), bcd(y), 0))
    assert a == bcd((x - y) % 100)
    assert bool(f & model.C) == (x < y)
    assert f & model.N


@given(byte, byte, st.booleans())
def test_model_sbc_undoes_adc(a: int, v: int, carry: bool) -> None:
    f = model.C if carry else 0
    s, _ = model.adc(a, v, f)
    back, _ = model.sbc(s, v, f)
    assert back == a


@given(word, byte)
def test_model_sp_e_is_signed_addition(sp: int, e: int) -> None:
    r, f = model.add_sp_e(sp, e, 0xF0)
    assert r == (sp + (e if e < 128 else e - 256)) % 0x10000
    assert not f & (model.Z | model.N)


@functools.cache
def _families() -> dict[str, alu.Family]:
    return {f.name: f for f in alu.alu_families(0, 1)}


def _run_one(name: str, case: tuple[int, ...]) -> str | None:
    """Runs one case of ``name``'s primary encoding on emurust; a mismatch in words."""
    enc = _families()[name].encodings[0]
    one = encodings.Encoding(
        enc.label,
        enc.opcode,
        enc.fields,
        enc.block,
        enc.pack,
        enc.expect,
        enc.describe,
        [case],
        code=enc.code,
    )
    outcome = alu.run_encoding(one, machine.Mode(reference=False))
    if not outcome.failures:
        return None
    _, got, want = outcome.failures[0]
    return f"{enc.label} {enc.describe(case)}: {alu.describe_diff(enc, got, want)}"


PROPERTY_SETTINGS = settings(max_examples=100, deadline=None)


@PROPERTY_SETTINGS
@given(byte, byte, byte, byte)
def test_emurust_sbc_matches_model(a: int, v: int, f: int, other: int) -> None:
    assert _run_one("alu.sbc", (a, v, f, other)) is None


@PROPERTY_SETTINGS
@given(byte, byte)
def test_emurust_daa_matches_model(a: int, f: int) -> None:
    assert _run_one("bcd.daa", (a, f)) is None


@PROPERTY_SETTINGS
@given(word, byte, byte)
def test_emurust_add_sp_e_matches_model(sp: int, e: int, f: int) -> None:
    assert _run_one("alu16.sp_e", (sp, e, f)) is None
