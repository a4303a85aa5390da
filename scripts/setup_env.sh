#!/usr/bin/env bash
# Creates .venv (if missing), installs maturin and the test extras, and builds the
# emurust extension in release mode into it. Idempotent: a re-run only rebuilds what
# changed (cargo is incremental) and reinstalls packages only when pyproject.toml changed.
# This is the development build: it enables the cargo feature `testing` (the native test aids
# that the tests and the lockstep allowlist's replay proofs use), which the release wheel
# (scripts/build_wheel.sh) leaves out.
#
# Needs: python3 (>= 3.9) and cargo (rustup). PyPI and crates.io must be reachable on the
# first run. Usage: bash scripts/setup_env.sh   (then: source .venv/bin/activate)
# EMURUST_EXTRAS picks the pyproject extras to install (default: test; test.sh: test,rl;
# main.sh: test,bench,rl).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="${EMURUST_VENV:-$ROOT/.venv}"
PYTHON="${PYTHON:-python3}"

log() { printf '[setup_env] %s\n' "$*"; }

command -v cargo >/dev/null || { log "cargo not found: install Rust with rustup first"; exit 1; }
command -v "$PYTHON" >/dev/null || { log "$PYTHON not found"; exit 1; }

if [[ ! -x "$VENV/bin/python" ]]; then
    # Debian's python3 ships without venv/ensurepip; install python3-venv when we can.
    if ! "$PYTHON" -c 'import ensurepip, venv' >/dev/null 2>&1; then
        if command -v apt-get >/dev/null && [[ "$(id -u)" == 0 ]]; then
            log "installing python3-venv (Debian splits venv out of python3)"
            apt-get update -qq
            py_ver="$("$PYTHON" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "python${py_ver}-venv" \
                || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv
        else
            log "python's venv module is missing: install python3-venv (apt-get install python3-venv)"
            exit 1
        fi
    fi
    log "creating $VENV"
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
fi

# shellcheck disable=SC1091
source "$VENV/bin/activate"
export PIP_DISABLE_PIP_VERSION_CHECK=1

# The extension is built for the stable ABI (`_core.abi3.so`, Cargo.toml's pyo3 feature
# abi3-py39). A version-specific `_core.cpython-*.so` left by an older build would shadow it
# (Python tries that suffix first) and the tests would run stale code: remove it.
rm -f "$ROOT"/python/emurust/_core.cpython-*.so

# Disk: no copy of the downloads in pip's cache. torch's CUDA wheels are about 3.5 GB to download
# and 5 GB installed; pip keeps a second copy of each wheel in its cache, and it downloads every
# wheel before it installs the first: a CI machine failed there with "No space left on device".
export PIP_NO_CACHE_DIR=1
df -h "$ROOT" | awk 'NR == 2 { print "[setup_env] free disk: " $4 " of " $2 }'

# torch (the rl extra) one distribution at a time: pip resolves torch's closure (torch, triton,
# nvidia-*, sympy, ...) without downloading it, then installs each pinned distribution on its own,
# so the disk holds at most one downloaded wheel beside what is installed.
install_torch() {
    if python -c 'import importlib.metadata as m; m.distribution("torch")' 2>/dev/null; then
        return
    fi
    local report
    report="$(mktemp "${TMPDIR:-/tmp}/emurust-torch.XXXXXX.json")"
    python -m pip install -q --dry-run --ignore-installed --report "$report" "torch>=2.1"
    local pins
    pins="$(python - "$report" <<'PY'
import json
import sys

with open(sys.argv[1]) as f:
    report = json.load(f)
for item in report["install"]:
    meta = item["metadata"]
    print(f"{meta['name']}=={meta['version']}")
PY
)"
    rm -f "$report"
    local n
    n="$(wc -w <<<"$pins")"
    log "installing torch and its $n distributions one at a time"
    local pin
    for pin in $pins; do
        python -m pip install -q --no-deps "$pin"
    done
}

# Reinstall the Python dependencies only when pyproject.toml changed.
# One stamp per extras set, so alternating test.sh (test) and main.sh (test,bench) re-runs
# do not reinstall.
EXTRAS="${EMURUST_EXTRAS:-test}"
STAMP="$VENV/.emurust-deps"
[[ "$EXTRAS" == test ]] || STAMP="$STAMP-${EXTRAS//[^a-z0-9]/-}"
WANT="$(sha256sum pyproject.toml | cut -d' ' -f1) $(python -c 'import sys; print(sys.version)' | head -1)"
# (Also when the editable install itself is gone, e.g. after `pip uninstall emurust`:
# `--skip-install` below only rebuilds the extension in place.)
if [[ ! -f "$STAMP" || "$(cat "$STAMP")" != "$WANT" ]] || ! command -v maturin >/dev/null ||
    ! python -m pip show -q emurust >/dev/null 2>&1; then
    log "installing maturin and the extras: $EXTRAS"
    python -m pip install -q --upgrade pip
    python -m pip install -q "maturin>=1.8,<2"
    if [[ ",$EXTRAS," == *,rl,* ]]; then
        install_torch
    fi
    # `maturin develop -E test` installs the package's dependencies and the test extras.
    maturin develop --release --features testing -E "$EXTRAS"
    echo "$WANT" >"$STAMP"
else
    log "dependencies up to date; rebuilding the extension in place"
    maturin develop --release --features testing --skip-install
fi

python -c 'import emurust; print(f"[setup_env] emurust {emurust.__version__} ready in '"$VENV"'")'
