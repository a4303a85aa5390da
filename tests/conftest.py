"""Shared fixtures: generated ROMs, the shared test-ROM folder and a hang guard."""

from __future__ import annotations

import faulthandler
from collections.abc import Iterator
from pathlib import Path

import pytest

import emurust
from emurust.verify.romgen import serial_rom

BLARGG_SPECIAL = Path("blargg") / "cpu_instrs" / "individual" / "01-special.gb"


@pytest.fixture(scope="session")
def rom() -> bytes:
    """The default generated test ROM (writes WRAM, sends b"OK" over serial, loops)."""
    return serial_rom()


@pytest.fixture
def gb(rom: bytes) -> emurust.GameBoy:
    """A fresh GameBoy running the default generated ROM."""
    return emurust.GameBoy(rom)


@pytest.fixture(scope="session")
def shared_roms() -> Path:
    """``$EMURUST_ROMS`` (default ``../shared/roms``); skips the test if it is absent."""
    path = emurust.roms_dir()
    if not path.is_dir():
        pytest.skip(f"test ROM folder {path} not found (set EMURUST_ROMS to the shared/roms path)")
    return path


@pytest.fixture
def blargg_special(shared_roms: Path) -> Path:
    """Blargg's cpu_instrs 01-special.gb; skips the test if it is absent."""
    path = shared_roms / BLARGG_SPECIAL
    if not path.is_file():
        pytest.skip(f"{path} not found")
    return path


@pytest.fixture
def hang_guard() -> Iterator[None]:
    """Kills the test process with a traceback if the test hangs for 5 minutes: a hang
    inside the Rust core cannot be interrupted from Python, and a dead run fails CI
    faster than a stuck one."""
    faulthandler.dump_traceback_later(300, exit=True)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
