#!/usr/bin/env bash
# Builds the release artifacts: the sdist, and from it the one release wheel for Linux x86_64.
#
#   abi3            one wheel for CPython 3.9 and later (pyo3's abi3-py39, Cargo.toml)
#   manylinux2014   glibc 2.17 or later: zig (PyPI's `ziglang`) links against glibc 2.17's
#                   symbols, so no old-glibc container is needed
#   stripped        no symbol table
#   no `testing`    the native test aids (cargo feature `testing`) are left out
#
# The wheel is built from the unpacked sdist, which proves that the sdist builds. The build
# command itself, the same in the repository or in an unpacked sdist:
#
#   maturin build --release --locked --strip --zig --compatibility manylinux2014
#
# Needs cargo and the development venv (scripts/setup_env.sh; its maturin); installs the
# pinned ziglang and auditwheel into that venv on first use (about 100 MB from PyPI).
# Usage: bash scripts/build_wheel.sh [OUT_DIR]   (default: dist/; earlier emurust-* files
# there are removed). Prints the wheel's tags, size and contents.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUT="$(mkdir -p "${1:-$ROOT/dist}" && cd "${1:-$ROOT/dist}" && pwd)"
VENV="${EMURUST_VENV:-$ROOT/.venv}"
ZIGLANG="ziglang==0.17.0"
AUDITWHEEL="auditwheel==6.8.2"

log() { printf '[build_wheel] %s\n' "$*"; }

# shellcheck disable=SC1091
source "$VENV/bin/activate"
export PIP_DISABLE_PIP_VERSION_CHECK=1
command -v maturin >/dev/null || { log "maturin not found: run scripts/setup_env.sh first"; exit 1; }
if ! python -m pip show -q ziglang auditwheel >/dev/null 2>&1; then
    log "installing $ZIGLANG and $AUDITWHEEL into $VENV"
    python -m pip install -q "$ZIGLANG" "$AUDITWHEEL"
fi

rm -f "$OUT"/emurust-*.whl "$OUT"/emurust-*.tar.gz
maturin sdist --out "$OUT"
SDIST="$(ls "$OUT"/emurust-*.tar.gz)"

# Unpacked at a fixed place, and built into the repository's target/ (a folder of its own,
# target/x86_64-unknown-linux-gnu, as zig builds for an explicit target): re-runs with
# unchanged sources only relink.
SRC="$ROOT/target/sdist"
rm -rf "$SRC"
mkdir -p "$SRC"
tar -xzf "$SDIST" -C "$SRC"
PKG="$(ls -d "$SRC"/emurust-*)"
CARGO_TARGET_DIR="$ROOT/target" maturin build --release --locked --strip --zig \
    --compatibility manylinux2014 --out "$OUT" --manifest-path "$PKG/Cargo.toml"

WHEEL="$(ls "$OUT"/emurust-*.whl)"
log "sdist: $SDIST ($(du -k "$SDIST" | cut -f1) KiB)"
log "wheel: $WHEEL ($(du -k "$WHEEL" | cut -f1) KiB)"
auditwheel show "$WHEEL"
unzip -l "$WHEEL" 2>/dev/null || python -m zipfile -l "$WHEEL"
