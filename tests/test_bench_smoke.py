"""Smoke tests of the benchmark scripts: they parse their arguments and a tiny run writes
results of the documented shape. No timing is asserted (speed is measured in bench/)."""

from __future__ import annotations

import importlib
import importlib.util
import json
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


def _script(name: str, *args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCH / name), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )


def _run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return _script("batch.py", *args, timeout=timeout)


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
        "--pyboy-workers",
        "3",
        "--seconds",
        "0.05",
        "--repeat",
        "2",
        "--no-memory",
        "--no-pufferlib",
        "--out",
        str(tmp_path),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads((tmp_path / "batch.json").read_text())
    assert data["cores"] == [1]
    assert data["pyboy_workers_beyond_cores"] == [3]
    assert data["skipped"]["pyboy_puffer"] == "--no-pufferlib"
    (result,) = data["results"]
    assert result["rom"] == "2048"
    # One start state for both (PyBoy's after its boot ROM, loaded into emurust, checked).
    assert result["start"]["boot_frames"] > 0
    assert result["start"]["check"].startswith("same clock, registers")
    sps = result["steps_per_s"]
    for key in ("emurust", "pyboy_async", "pyboy_ideal"):
        assert sps[key]["1"] > 0, key
    # Both measured in every round, and the same statistic (the median of the rounds) kept.
    samples = result["samples"]
    for key in ("emurust", "pyboy_async", "pyboy_serial"):
        assert len(samples[key]["1"]) == 2, key
        assert sps[key]["1"] == pytest.approx(statistics.median(samples[key]["1"])), key
    assert sps["pyboy_async"]["3"] > 0  # the worker count beyond the cores
    assert "3" not in sps["emurust"]
    assert result["pyboy_best"]["pyboy_async"][0] in (1, 3)
    assert result["ratio"]["pyboy_async"]["1"] == pytest.approx(
        sps["emurust"]["1"] / sps["pyboy_async"]["1"]
    )
    assert "memory" not in result
    assert "PyBoy AsyncVectorEnv" in proc.stdout


def _bench_module(name: str) -> Any:
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    return importlib.import_module(name)


def test_benchmarks_start_both_emulators_from_one_state(shared_roms: Path) -> None:
    """bench/compare_pyboy.py and bench/batch.py time both emulators from one state: PyBoy's
    after its boot ROM and the warm-up, loaded into emurust. Loaded afresh into each, the two
    stand at the same clock with the same registers and memory. The old warm-up (120 frames
    from power-on in each) is caught: PyBoy spends about 64 of them in its boot ROM."""
    if importlib.util.find_spec("pyboy") is None:
        pytest.skip("PyBoy is needed (the test extra)")
    import io

    import emurust

    bench = _bench_module("compare_pyboy")
    path = shared_roms / "homebrew" / "2048" / "2048.gb"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    start = bench.common_start(path, 120)
    assert 30 < start["boot_frames"] < 120
    gb = emurust.GameBoy(path)
    gb.load_state(start["emurust"])
    pb = bench.new_pyboy(path)
    try:
        pb.load_state(io.BytesIO(start["pyboy"]))
        assert bench.start_state_differences(gb, pb) == []
        pb.tick(1, False, False)  # one frame apart: caught
        assert any(d.startswith("clock") for d in bench.start_state_differences(gb, pb))
    finally:
        pb.stop(save=False)
    old_gb = emurust.GameBoy(path)
    old_gb.tick(120, render=False)
    old_pb = bench.new_pyboy(path)
    try:
        old_pb.tick(120, False, False)
        differences = bench.start_state_differences(old_gb, old_pb)
    finally:
        old_pb.stop(save=False)
    assert any(d.startswith("clock") for d in differences), differences
    assert any(d.startswith("WRAM") for d in differences), differences


def _count(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return _script("count_instructions.py", *args, timeout=timeout)


def test_count_instructions_child_runs_the_workloads(shared_roms: Path) -> None:
    game = str(shared_roms / "homebrew" / "2048" / "2048.gb")
    for workload in ("baseline", "headless", "rl"):
        proc = _count("--child", workload, game, "--frames", "2", "--steps", "2", timeout=60)
        assert proc.returncode == 0, proc.stderr[-2000:]
    bad = _count("--child", "bogus", game, timeout=60)
    assert bad.returncode != 0
    assert "unknown workload 'bogus'" in bad.stderr


def test_count_instructions_repeats_exactly(shared_roms: Path, tmp_path: Path) -> None:
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed (it is a profiling tool, not a dependency)")
    roms = tmp_path / "roms"
    (roms / "homebrew" / "2048").mkdir(parents=True)
    (roms / "homebrew" / "2048" / "2048.gb").symlink_to(shared_roms / "homebrew/2048/2048.gb")
    runs = []
    for label in ("a", "b"):
        proc = _count(
            "--roms",
            str(roms),
            "--frames",
            "10",
            "--steps",
            "2",
            "--label",
            label,
            "--rom",
            "2048",
            "--out",
            str(tmp_path),
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        runs.append(json.loads((tmp_path / f"count_instructions_{label}.json").read_text()))
    (first,) = runs[0]["results"]
    assert first["rom"] == "2048"
    assert first["headless"] > 0
    assert first["rl"] > first["headless"]
    # Start-up differs by a few hundred instructions from run to run (addresses, the
    # environment); the workloads themselves count the same.
    (second,) = runs[1]["results"]
    for key in ("baseline", "headless", "rl"):
        assert abs(first[key] - second[key]) < 10_000, (key, first[key], second[key])


def test_envs_benchmark_tiny_run_writes_json(tmp_path: Path) -> None:
    """bench/envs.py needs nothing beside the clone (the bundled game)."""
    if importlib.util.find_spec("pyboy") is None:
        pytest.skip("PyBoy is needed (pip install -e .[bench])")
    proc = _script(
        "envs.py",
        "--num-envs",
        "4",
        "--threads",
        "1",
        "--seconds",
        "0.1",
        "--repeat",
        "1",
        "--pyboy-workers",
        "1",
        "--out",
        str(tmp_path),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads((tmp_path / "envs.json").read_text())
    assert data["game"] == "Starcatch"
    rates = data["median_steps_per_s"]
    assert set(rates) == {"rl", "vec", "sync_inference", "async_inference", "pyboy_async"}
    assert all(v > 0 for v in rates.values())
    assert rates["vec"] >= rates["rl"], "time in VecGameBoy is part of the env's time"
    assert "RL layer cost" in proc.stdout


def test_ppo_benchmark_tiny_run_writes_json(tmp_path: Path) -> None:
    for module in ("torch", "pyboy"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is needed (the rl and test extras)")
    proc = _script(
        "ppo.py",
        "--policy",
        "pixel,ram",
        "--steps",
        "256",
        "--emurust-envs",
        "8,16",
        "--pyboy-envs",
        "4",
        "--null-env",
        "--threads-grid",
        "1x1",
        "--busy",
        "1",
        "--out",
        str(tmp_path),
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads((tmp_path / "ppo.json").read_text())
    per_policy = [
        (r["backend"], r["vectorization"], r["num_envs"], r["hand_set_threads"])
        for r in data["runs"]
        if r["policy"] == "pixel"
    ]
    assert per_policy == [
        ("emurust", "native", 8, False),
        ("emurust", "native", 16, False),
        ("emurust", "native", 8, True),
        ("emurust", "null", 8, False),
        ("pyboy", "async", 4, False),
    ]
    assert len(data["runs"]) == 10
    for r in data["runs"]:
        assert r["env_steps"] >= 256
        assert r["sps"] > 0
        assert sum(r["shares"].values()) == pytest.approx(1.0, abs=1e-3)
        assert r["shares"]["update"] > 0
    assert set(data["ratio"]) == {"pixel", "ram"}
    assert data["busy_processes"] == 1
    assert data["machine"]["available_cpus"] >= 1
    assert "null_env_sps" in data["summary"]["ram"]
    assert "defaults_vs_best_hand_set" in data["summary"]["pixel"]


def test_pyboy_api_script_on_the_bundled_game(tmp_path: Path) -> None:
    """bench/pyboy_api.py: the same PyBoy-style script gives the same outputs on PyBoy and
    emurust.PyBoy on Starcatch (no PyBoy deviation shows there), and the run from PyBoy's
    state too."""
    if importlib.util.find_spec("pyboy") is None:
        pytest.skip("PyBoy is not installed (the test extra)")
    args = ("--rom", "starcatch", "--steps", "12", "--ticks", "5", "--repeat", "1")
    done = _script("pyboy_api.py", *args, "--out", str(tmp_path), timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "pyboy_api.json").read_text())["results"]["starcatch"]
    assert result["same_script"] == {"steps": 12, "identical_steps": 12}
    assert result["from_pyboy_state"]["identical_steps"] == result["from_pyboy_state"]["steps"]
    assert result["tick_fps"]["emurust"] > 0


def test_ray_benchmark_tiny_run_writes_json(tmp_path: Path) -> None:
    """bench/ray_envs.py on the bundled game, one actor (it starts a local Ray cluster)."""
    if importlib.util.find_spec("ray") is None:
        pytest.skip("Ray is needed (pip install 'emurust[ray]')")
    proc = _script(
        "ray_envs.py",
        "--game",
        "Starcatch",
        "--actors",
        "1",
        "--depth",
        "1,2",
        "--envs-per-actor",
        "2",
        "--frame-skip",
        "4",
        "--hold-frames",
        "4",
        "--seconds",
        "0.1",
        "--repeat",
        "1",
        "--overhead-calls",
        "5",
        "--out",
        str(tmp_path),
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads((tmp_path / "ray.json").read_text())
    assert data["game"] == "Starcatch"
    assert data["frame_skip"] == 4
    rates = data["median_steps_per_s"]["1"]
    names = {"vec", "local_env", "vec_same_work", "ray_sync", "ray_pipe1", "ray_pipe2"}
    assert set(rates) == names
    assert all(v > 0 for v in rates.values())
    assert rates["vec_same_work"] >= rates["local_env"], "time in VecGameBoy is part of it"
    overhead = data["overhead"]["one_actor_sync_call"]
    assert overhead["wall_us"] > overhead["inside_us"] > 0
    assert "1 actor(s) vs 1 thread(s)" in proc.stdout


def test_pyboy_game_area_benchmark_runs_on_the_bundled_game() -> None:
    """bench/pyboy_game_area.py: a few alternating rounds on Starcatch print both rows."""
    out = subprocess.run(
        [sys.executable, str(BENCH / "pyboy_game_area.py"), "--rounds", "3"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    assert "emurust.PyBoy: tick(1) headless us" in out.stdout
