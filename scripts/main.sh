#!/usr/bin/env bash
# The main job: set up (first run: .venv + release build of the extension), then
#   1. the conformance suites on emurust and PyBoy side by side (python -m emurust.conformance),
#   2. the speed / memory / save-state comparison with PyBoy (bench/compare_pyboy.py).
# Needs only python3 and cargo (PyPI and crates.io reachable on the first run).
# Results: bench/results/conformance.json, bench/results/compare_pyboy.{json,png}.
# Extra arguments go to the conformance runner (e.g. --strict, --no-pyboy, --suite mooneye).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

EMURUST_EXTRAS="${EMURUST_EXTRAS:-test,bench}" bash scripts/setup_env.sh
# shellcheck disable=SC1091
source "${EMURUST_VENV:-$ROOT/.venv}/bin/activate"

printf '\n==== conformance suites (emurust vs PyBoy)\n'
python -m emurust.conformance --json bench/results/conformance.json "$@"

printf '\n==== speed vs PyBoy (one core)\n'
python bench/compare_pyboy.py
