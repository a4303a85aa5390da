#!/usr/bin/env bash
# The whole check: environment, Rust format/lint/tests, Python lint/types/tests, the release
# wheel in a fresh venv.
# Every step runs even when an earlier one failed; the script exits non-zero if any did.
# Usage: bash scripts/test.sh
# The ROM suites read the test ROMs from $EMURUST_ROMS (default ../shared/roms). Without them
# they skip, and the summary reports SKIP; with EMURUST_REQUIRE_ROMS=1 (CI: .ci/run) a missing
# ROM fails its test instead.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# The rl extra brings torch (about 5 GB from PyPI, the CUDA build: there is no CPU-only torch
# on PyPI) for tests/test_rl.py.
EMURUST_EXTRAS="${EMURUST_EXTRAS:-test,rl}" bash scripts/setup_env.sh || {
    echo "[test] setup_env.sh failed"
    exit 1
}
# shellcheck disable=SC1091
source "${EMURUST_VENV:-$ROOT/.venv}/bin/activate"
# Ray (the ray extra: emurust.ray, tests/test_ray.py) is large (79 MB to download, 240 MB
# installed; 12 s here), so it is not in the test extra but installed here, before mypy reads
# it; without it the Ray tests skip with the reason.
python -m pip install -q "ray>=2.40" >/dev/null 2>&1 || echo "[test] note: Ray not installed"

failed=()
passed=()
skipped=()

# Where the test ROMs are, said up front: without them about 1,500 conformance checks skip.
ROMS="${EMURUST_ROMS:-$ROOT/../shared/roms}"
if [[ -f "$ROMS/MANIFEST.md" ]]; then
    echo "[test] ROM folder found: $ROMS"
elif [[ "${EMURUST_REQUIRE_ROMS:-}" == "1" ]]; then
    echo "[test] ROM folder NOT found: $ROMS (no MANIFEST.md); EMURUST_REQUIRE_ROMS=1, so the ROM suites will fail"
else
    echo "[test] ROM folder NOT found: $ROMS (no MANIFEST.md); the ROM suites will skip (set EMURUST_ROMS)"
fi
if [[ "${EMURUST_REQUIRE_ROMS:-}" == "1" ]]; then
    echo "[test] EMURUST_REQUIRE_ROMS=1: a missing test ROM fails its test"
fi
# The Rust ROM tests append a line here for each skip (cargo test shows a skipped test as ok).
EMURUST_SKIP_LOG="$(mktemp "${TMPDIR:-/tmp}/emurust-skips.XXXXXX")"
export EMURUST_SKIP_LOG
trap 'rm -f "$EMURUST_SKIP_LOG"' EXIT

step() {
    local name="$1"
    shift
    printf '\n==== %s: %s\n' "$name" "$*"
    local start=$SECONDS
    if "$@"; then
        passed+=("$name ($((SECONDS - start)) s)")
    else
        echo "[test] step '$name' FAILED (exit $?)"
        failed+=("$name ($((SECONDS - start)) s)")
    fi
}

step "cargo fmt" cargo fmt --all -- --check
step "clippy" cargo clippy --all-targets -- -D warnings
step "clippy (python feature)" cargo clippy --features python --all-targets -- -D warnings
# The development build's bindings: python plus the native test aids.
step "clippy (testing feature)" cargo clippy --features testing --all-targets -- -D warnings
# Issue 41's block compiler (feature jit, off by default; Cranelift needs Rust 1.95).
step "clippy (jit feature)" cargo clippy --features jit --all-targets -- -D warnings
# The Rust tests run on a build with feature jit: every suite (the interpreter does almost
# all of their short runs: code compiles after 65,536 looks) and the jit's own tests
# (tests/jit.rs compares compiled code, interpreter and reference path on ROMs and games,
# jit_targeted and jit_events on our programs in tests/data, jit_vectors on the SM83
# single-step vectors). Without the feature the crate differs only by what the feature
# adds (no code is cfg'd out by it), and clippy above compiles every target without it; the
# Python tests and the release wheel run the default build. The test profile keeps debug
# assertions, Cranelift's checks of how its IR is built among them. Every suite on compiled
# code by hand: EMURUST_JIT_HOT=32 cargo test --features jit (about 3 min once built).
# --no-fail-fast: a failing unit test must not hide the conformance suites' results.
step "cargo test (feature jit)" cargo test --features jit --no-fail-fast
if [[ -s "$EMURUST_SKIP_LOG" ]]; then
    n=$(wc -l <"$EMURUST_SKIP_LOG")
    echo "[test] cargo test: $n ROM checks skipped, their tests shown as ok:"
    sort "$EMURUST_SKIP_LOG" | head -n 20
    skipped+=("cargo test ROM suites: $n checks skipped (test ROMs not found in $ROMS)")
fi
step "ruff check" ruff check .
step "ruff format" ruff format --check .
step "mypy" mypy
step "stubtest" python -m mypy.stubtest emurust._core
# PufferLib is optional; its only wheel here (2.0.2) pins old dependencies, so it is installed
# without them. If it cannot be installed, the test against it is skipped (with the reason).
bash bench/install_pufferlib.sh >/dev/null 2>&1 || echo "[test] note: PufferLib not installed"
step "pytest" python -m pytest -q tests
# The release wheel (sdist, then the abi3 manylinux2014 wheel from it) installed into a fresh
# venv without cargo, running the README's quick starts and a short `emurust train`.
step "release wheel" bash scripts/test_wheel.sh

printf '\n==== summary\n'
echo "(whole script: $SECONDS s, the environment's set-up included)"
for s in "${passed[@]}"; do echo "ok      $s"; done
for s in "${skipped[@]}"; do echo "SKIP    $s"; done
for s in "${failed[@]}"; do echo "FAILED  $s"; done
if ((${#failed[@]})); then
    exit 1
fi
if ((${#skipped[@]})); then
    echo "all steps ok, some checks skipped (see SKIP above)"
else
    echo "all steps ok"
fi
