#!/usr/bin/env bash
# The main job: set up (first run: .venv + release build of the extension), then
#   1. train PPO on the bundled game, Starcatch, with the default settings (emurust train):
#      progress bar, CSV + TensorBoard logs, checkpoints, then a seeded evaluation of the agent
#      against a random policy, the learning curve (PNG), a GIF of the agent and a summary;
#   2. the RL environments on Starcatch: env steps/s of GameBoyVectorEnv against VecGameBoy
#      alone, send/recv with inference, the same spec on PyBoy behind AsyncVectorEnv
#      (bench/envs.py); end-to-end PPO steps/s on emurust and on PyBoy (bench/ppo.py);
#   3. the speed / memory / save-state comparison with PyBoy on one core (bench/compare_pyboy.py);
#   4. batch throughput vs cores, memory per env and save/restore cost: emurust.VecGameBoy vs
#      PyBoy behind gymnasium AsyncVectorEnv and PufferLib (bench/batch.py);
#   5. the conformance suites on emurust and PyBoy side by side (python -m emurust.conformance).
# Steps 3-4 run on Starcatch always and on the test ROMs (Blargg, Tobu Tobu Girl, 2048) when the
# test-ROM folder is found (EMURUST_ROMS, default ../shared/roms); step 5 needs that folder and
# says so when it is missing. So on a fresh clone with nothing beside it, all of this works.
# Needs only python3 and cargo (PyPI and crates.io reachable on the first run).
# Results: runs/main/ (training: summary.md, learning_curve.png, agent.gif, agent.pt, logs),
# bench/results/{envs,ppo,compare_pyboy,batch}.{json,png}, bench/results/conformance.json.
# `cargo bench` (criterion) is separate: see bench/README.md.
# Extra arguments go to the conformance runner (e.g. --strict, --no-pyboy, --suite mooneye).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

EMURUST_EXTRAS="${EMURUST_EXTRAS:-test,bench,rl}" bash scripts/setup_env.sh
# shellcheck disable=SC1091
source "${EMURUST_VENV:-$ROOT/.venv}/bin/activate"

printf '\n==== training PPO on the bundled game (Starcatch)\n'
emurust train --game bundled --out runs/main

printf '\n==== RL environments on the bundled game (Starcatch)\n'
python bench/envs.py

printf '\n==== end-to-end PPO: emurust vs the PyBoy backend behind AsyncVectorEnv\n'
python bench/ppo.py

printf '\n==== speed vs PyBoy (one core)\n'
python bench/compare_pyboy.py

printf '\n==== batch throughput, memory and states vs PyBoy (all allowed cores)\n'
# PufferLib's only wheel for this platform pins old dependencies: bench/install_pufferlib.sh
# installs it without them. If that fails, batch.py reports PufferLib as skipped, with the reason.
bash bench/install_pufferlib.sh >/dev/null 2>&1 || echo "note: PufferLib could not be installed"
python bench/batch.py

printf '\n==== conformance suites (emurust vs PyBoy)\n'
python -m emurust.conformance --json bench/results/conformance.json --skip-suite gambatte \
    --skip-suite gambatte-cgb "$@"
# gambatte's 872 hardware tests and their CGB column (847): emurust only here (PyBoy spends
# seconds per ROM on them; for the side-by-side table run: python -m emurust.conformance
# --suite gambatte, or --suite gambatte-cgb).
printf '\n==== gambatte hardware tests (emurust)\n'
python -m emurust.conformance --json bench/results/conformance_gambatte.json --suite gambatte \
    --no-pyboy
printf '\n==== gambatte hardware tests, CGB column (emurust)\n'
python -m emurust.conformance --json bench/results/conformance_gambatte_cgb.json \
    --suite gambatte-cgb --no-pyboy
