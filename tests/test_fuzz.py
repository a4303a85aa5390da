"""Seeded fuzzing of ROMs, memory writes and save states: only typed exceptions, no crash,
no hang. ``EMURUST_FUZZ_SEED`` changes the seed (the default keeps runs repeatable);
``EMURUST_FUZZ_SCALE`` multiplies the case counts."""

from __future__ import annotations

import os
import random
import time

import pytest

import emurust
from emurust._core import _reseal_state
from emurust.tools.asm.program import serial_rom
from emurust.tools.asm.rom import random_rom

SEED = int(os.environ.get("EMURUST_FUZZ_SEED", "20240521"))
SCALE = float(os.environ.get("EMURUST_FUZZ_SCALE", "1"))
TIME_BUDGET_S = 120.0  # per test; the hang_guard fixture kills a run stuck inside Rust

pytestmark = [
    pytest.mark.usefixtures("hang_guard"),
    # Random headers make the loader warn a lot; the warnings are tested in test_api.py.
    pytest.mark.filterwarnings("ignore::emurust.EmuRustWarning"),
]


def count(n: int) -> int:
    return max(1, int(n * SCALE))


class Budget:
    """A simple per-test time limit checked between cases."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.start = time.monotonic()

    def check(self) -> None:
        elapsed = time.monotonic() - self.start
        assert elapsed < TIME_BUDGET_S, f"{self.what}: over {TIME_BUDGET_S} s ({elapsed:.0f} s)"


def expect_only(exc: BaseException, *allowed: type[BaseException]) -> None:
    """Fails on an ``InternalError`` (a Rust panic: a bug) or any unexpected type."""
    if isinstance(exc, emurust.InternalError) or not isinstance(exc, allowed):
        raise AssertionError(f"unexpected {type(exc).__name__}: {exc} (seed {SEED})") from exc


def test_random_roms_run_or_are_rejected() -> None:
    rng = random.Random(SEED)
    budget = Budget("random ROMs")
    loaded = rejected = 0
    for case in range(count(200)):
        rom = random_rom(rng)
        try:
            gb = emurust.GameBoy(rom)
        except Exception as e:
            expect_only(e, emurust.InvalidRomError)
            rejected += 1
            continue
        loaded += 1
        try:
            gb.button_press(rng.choice(emurust.BUTTONS))
            gb.tick(5, render=rng.random() < 0.5)
            assert gb.frame_count == 5
            _ = gb.registers, gb.memory[:], gb.serial_output, gb.cartridge_title
            state = gb.save_state()
            gb.tick(1)
            gb.load_state(state)
            assert gb.frame_count == 5
        except Exception as e:
            raise AssertionError(f"ROM case {case} (seed {SEED}): {type(e).__name__}: {e}") from e
        budget.check()
    assert loaded > 0, "no random ROM was accepted: the generator is too hostile"
    assert loaded + rejected == count(200)


def test_random_writes_to_the_whole_address_space() -> None:
    """Writes to IO registers, MBC registers, OAM... then runs: no panic, no hang."""
    rng = random.Random(SEED + 1)
    budget = Budget("random writes")
    for _ in range(count(40)):
        gb = emurust.GameBoy(serial_rom())
        for _ in range(200):
            addr = rng.choice([rng.randrange(0x10000), rng.randrange(0xFF00, 0x10000)])
            gb.memory[addr] = rng.getrandbits(8)
            if rng.random() < 0.05:
                gb.tick(1, render=rng.random() < 0.5)
        gb.tick(3)
        assert gb.frame_count >= 3
        budget.check()


def test_random_bytes_are_not_states(gb: emurust.GameBoy) -> None:
    rng = random.Random(SEED + 2)
    budget = Budget("random states")
    real_size = len(gb.save_state())
    before = gb.save_state()
    for _ in range(count(300)):
        size = rng.choice([0, 1, 4, 16, 256, real_size, rng.randrange(real_size * 2)])
        data = rng.randbytes(size)
        try:
            gb.load_state(data)
        except Exception as e:
            expect_only(e, emurust.InvalidStateError)
        else:
            raise AssertionError(f"random bytes of size {size} loaded as a state (seed {SEED})")
        budget.check()
    assert gb.save_state() == before


def test_truncated_states_are_rejected(gb: emurust.GameBoy) -> None:
    rng = random.Random(SEED + 3)
    budget = Budget("truncated states")
    gb.tick(3)
    gb.button("a", 4)
    state = gb.save_state()
    n = len(state)
    cuts = set(range(min(n, 80))) | {n - i for i in range(1, min(n, 40))}
    cuts |= {rng.randrange(n) for _ in range(count(300))}
    for cut in sorted(cuts):
        with pytest.raises(emurust.InvalidStateError):
            gb.load_state(state[:cut])
        budget.check()
    assert gb.save_state() == state  # every rejected load left the machine alone
    gb.load_state(state)


def test_corrupted_states_load_or_are_rejected(rom: bytes) -> None:
    """A corrupted state is refused by its checksum. Sealed again after the damage (as a
    deliberate edit would be), it reaches the field checks: a flipped byte may then be caught
    or may load (e.g. a RAM byte); either way the machine keeps running without a panic."""
    rng = random.Random(SEED + 4)
    budget = Budget("corrupted states")
    source = emurust.GameBoy(rom)
    source.tick(4)
    source.button_press("start")
    state = source.save_state()
    loaded = rejected = 0
    for _ in range(count(300)):
        data = bytearray(state)
        for _ in range(rng.choice([1, 1, 2, 8])):
            pos = rng.randrange(len(data))
            data[pos] ^= 1 << rng.randrange(8) if rng.random() < 0.7 else rng.randrange(1, 256)
        gb = emurust.GameBoy(rom)
        with pytest.raises(emurust.InvalidStateError):
            gb.load_state(bytes(data))
        try:
            gb.load_state(_reseal_state(bytes(data)))
        except Exception as e:
            expect_only(e, emurust.InvalidStateError)
            rejected += 1
            continue
        loaded += 1
        try:
            gb.tick(2, render=True)
            _ = gb.registers, gb.memory[:], gb.save_state()
        except Exception as e:
            expect_only(e, emurust.EmuRustError)
        budget.check()
    assert loaded + rejected == count(300)
    assert loaded > 0, "no resealed state loaded: the field checks were never passed"
