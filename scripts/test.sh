#!/usr/bin/env bash
# The whole check: environment, Rust format/lint/tests, Python lint/types/tests, the release
# wheel in a fresh venv.
# Every step runs even when an earlier one failed; the script exits non-zero if any did.
# Usage: bash scripts/test.sh
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
step() {
    local name="$1"
    shift
    printf '\n==== %s: %s\n' "$name" "$*"
    if "$@"; then
        passed+=("$name")
    else
        echo "[test] step '$name' FAILED (exit $?)"
        failed+=("$name")
    fi
}

step "cargo fmt" cargo fmt --all -- --check
step "clippy" cargo clippy --all-targets -- -D warnings
step "clippy (python feature)" cargo clippy --features python --all-targets -- -D warnings
# The development build's bindings: python plus the native test aids.
step "clippy (testing feature)" cargo clippy --features testing --all-targets -- -D warnings
# --no-fail-fast: a failing unit test must not hide the conformance suites' results.
step "cargo test" cargo test --no-fail-fast
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
for s in "${passed[@]}"; do echo "ok      $s"; done
for s in "${failed[@]}"; do echo "FAILED  $s"; done
if ((${#failed[@]})); then
    exit 1
fi
echo "all steps ok"
