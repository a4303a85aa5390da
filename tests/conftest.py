"""Shared fixtures: generated ROMs, the shared test-ROM folder and a hang guard."""

from __future__ import annotations

import faulthandler
import importlib.metadata
import os
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

import emurust
from emurust._pyboy_adapter import PYBOY_VERSION
from emurust.tools.asm.program import serial_rom

BLARGG_SPECIAL = Path("blargg") / "cpu_instrs" / "individual" / "01-special.gb"
# Set where the ROM folder is expected (CI: .ci/run): a test that skips for want of a file
# in it fails instead (as the Rust ROM suites do, tests/common/mod.rs).
ROMS_REQUIRED = os.environ.get("EMURUST_REQUIRE_ROMS") == "1"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """With ``EMURUST_REQUIRE_ROMS=1``, a skip whose reason names the ROM folder (every
    "ROM not found" skip here does) is reported as a failure."""
    report = yield
    skip = call.excinfo is not None and call.excinfo.errisinstance(pytest.skip.Exception)
    if ROMS_REQUIRED and report.skipped and skip and not hasattr(report, "wasxfail"):
        assert call.excinfo is not None
        reason = str(call.excinfo.value)
        if str(emurust.roms_dir()) in reason:
            report.outcome = "failed"
            report.longrepr = f"EMURUST_REQUIRE_ROMS=1, but the test skipped: {reason}"
    return report


@pytest.fixture(scope="session")
def pyboy_available() -> None:
    """Skips unless PyBoy :data:`~emurust._pyboy_adapter.PYBOY_VERSION` is installed (the
    lockstep harness reads its private ``_cycles()`` and relies on its timing)."""
    try:
        version = importlib.metadata.version("pyboy")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(f"PyBoy is not installed (pip install pyboy=={PYBOY_VERSION})")
    if version != PYBOY_VERSION:
        pytest.skip(f"needs PyBoy {PYBOY_VERSION} (private _cycles() and timing), found {version}")


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
