"""Smoke tests of the benchmark scripts: they parse their arguments and a tiny run writes
results of the documented shape. No timing is asserted (speed is measured in bench/)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


def _run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCH / "batch.py"), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )


def test_batch_rejects_bad_arguments() -> None:
    bad_threads = _run("--threads", "0")
    assert bad_threads.returncode == 2
    assert "--threads must be within 1.." in bad_threads.stderr
    bad_rom = _run("--rom", "no such game")
    assert bad_rom.returncode == 2
    assert "unknown ROM 'no such game'" in bad_rom.stderr


def test_batch_tiny_run_writes_json(shared_roms: Path, tmp_path: Path) -> None:
    if importlib.util.find_spec("pyboy") is None or importlib.util.find_spec("gymnasium") is None:
        pytest.skip("PyBoy and gymnasium are needed (pip install -e .[bench])")
    proc = _run(
        "--roms",
        str(shared_roms),
        "--rom",
        "2048",
        "--threads",
        "1",
        "--seconds",
        "0.05",
        "--no-memory",
        "--no-pufferlib",
        "--out",
        str(tmp_path),
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads((tmp_path / "batch.json").read_text())
    assert data["cores"] == [1]
    assert data["skipped"]["pyboy_puffer"] == "--no-pufferlib"
    (result,) = data["results"]
    assert result["rom"] == "2048"
    sps = result["steps_per_s"]
    for key in ("emurust", "pyboy_async", "pyboy_ideal"):
        assert sps[key]["1"] > 0, key
    assert result["ratio"]["pyboy_async"]["1"] == pytest.approx(
        sps["emurust"]["1"] / sps["pyboy_async"]["1"]
    )
    assert "memory" not in result
    assert "PyBoy AsyncVectorEnv" in proc.stdout
