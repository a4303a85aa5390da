#!/usr/bin/env bash
# The main job: set up (first run: .venv + release build of the extension), then
#   1. the conformance suites on emurust and PyBoy side by side (python -m emurust.conformance),
#   2. the speed / memory / save-state comparison with PyBoy on one core (bench/compare_pyboy.py),
#   3. batch throughput vs cores, memory per env and save/restore cost: emurust.VecGameBoy vs
#      PyBoy behind gymnasium AsyncVectorEnv and PufferLib (bench/batch.py; ~100 s on 2 cores).
# Needs only python3 and cargo (PyPI and crates.io reachable on the first run).
# Results: bench/results/conformance.json, bench/results/compare_pyboy.{json,png},
# bench/results/batch.{json,png}. `cargo bench` (criterion) is separate: see bench/README.md.
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

printf '\n==== batch throughput, memory and states vs PyBoy (all allowed cores)\n'
# PufferLib's only wheel for this platform pins old dependencies: bench/install_pufferlib.sh
# installs it without them. If that fails, batch.py reports PufferLib as skipped, with the reason.
bash bench/install_pufferlib.sh >/dev/null 2>&1 || echo "note: PufferLib could not be installed"
python bench/batch.py
