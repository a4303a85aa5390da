#!/usr/bin/env bash
# The release wheel as a user gets it: builds the sdist and the wheel (scripts/build_wheel.sh),
# installs the wheel with its `rl` extra into a fresh venv whose PATH has no cargo or rustc,
# and runs there every ```python block of README.md's "Quick start" section and a short
# `emurust train`. It also checks that the wheel is the release build: abi3, manylinux2014,
# none of the native test aids of the cargo feature `testing`.
#
# torch: the `rl` extra's torch is the CUDA build, about 5 GB installed; copying it from
# pip's cache into every fresh venv took 4 minutes here. So the fresh venv sees the torch that
# the development venv already has: a folder of links to exactly the distributions of torch's
# dependency closure (torch, triton, nvidia-*, sympy, ...; not emurust, not the dev tools),
# put on the venv's path by a .pth file, after its own site-packages. pip sees them as
# installed, so `pip install "WHEEL[rl]"` still resolves the whole extra from the wheel's
# metadata (and installs gymnasium, tensorboard, matplotlib, ... from pip's cache), and
# `pip check` checks the result. emurust itself comes from the wheel only (checked).
#
# Usage: bash scripts/test_wheel.sh   (work folder: target/wheel-check, recreated each run)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
DEV_VENV="${EMURUST_VENV:-$ROOT/.venv}"
WORK="$ROOT/target/wheel-check"
FRESH="$WORK/venv"

log() { printf '[test_wheel] %s\n' "$*"; }
t0=$SECONDS
phase() { log "$1 ($((SECONDS - t0)) s so far)"; }

rm -rf "$WORK"
mkdir -p "$WORK/run"

# 1. The sdist and the release wheel, built from it.
bash scripts/build_wheel.sh "$WORK/dist"
WHEEL="$(ls "$WORK"/dist/emurust-*.whl)"
case "$(basename "$WHEEL")" in
*-cp39-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl) ;;
*)
    log "FAIL: unexpected wheel tags: $(basename "$WHEEL")"
    exit 1
    ;;
esac
# auditwheel's own reading of the symbols the extension needs (glibc 2.17 at most).
if ! "$DEV_VENV/bin/auditwheel" show "$WHEEL" | tr -s ' \n' ' ' |
    grep -q 'is consistent with the following platform tag: "manylinux_2_17_x86_64"'; then
    log "FAIL: auditwheel does not find the wheel manylinux_2_17 (manylinux2014)"
    exit 1
fi
phase "built $(basename "$WHEEL"): $(du -k "$WHEEL" | cut -f1) KiB"

# 2. A PATH without cargo, rustc or the development venv.
clean=()
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
    if [[ -z "$d" || "$d" == "$DEV_VENV/bin" || -e "$d/cargo" || -e "$d/rustc" ]]; then
        continue
    fi
    clean+=("$d")
done
NO_RUST_PATH="$(
    IFS=:
    echo "${clean[*]}"
)"
if PATH="$NO_RUST_PATH" command -v cargo >/dev/null || PATH="$NO_RUST_PATH" command -v rustc >/dev/null; then
    log "FAIL: cargo or rustc still on PATH"
    exit 1
fi
log "cargo on the fresh venv's PATH: $(PATH="$NO_RUST_PATH" command -v cargo || echo 'not found')"

# 3. The fresh venv, from the development venv's base interpreter.
BASE_PYTHON="$("$DEV_VENV/bin/python" -c 'import sys; print(sys._base_executable)')"
"$BASE_PYTHON" -m venv "$FRESH"
# torch's closure, linked from the development venv (see the header); without torch there
# (EMURUST_EXTRAS without rl), pip installs it from PyPI or its cache: minutes, 5 GB.
if ! "$DEV_VENV/bin/python" -c 'import importlib.metadata as m; m.distribution("torch")' 2>/dev/null; then
    log "torch is not in $DEV_VENV: the fresh venv gets its own (slow)"
else
    "$DEV_VENV/bin/python" - "$WORK/torch-site" "$FRESH" <<'PY'
import sys
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

links, fresh = Path(sys.argv[1]), Path(sys.argv[2])
links.mkdir()
# Every distribution that installing torch installs: requirements whose markers hold, with
# the extras asked for (torch asks for some of its CUDA libraries as extras of another).
seen: dict[str, metadata.Distribution] = {}
done: set[tuple[str, str]] = set()
todo: list[tuple[str, str]] = [("torch", "")]
while todo:
    name, extra = todo.pop()
    name = canonicalize_name(name)
    if (name, extra) in done:
        continue
    done.add((name, extra))
    dist = seen.setdefault(name, metadata.distribution(name))
    for spec in dist.requires or []:
        req = Requirement(spec)
        if req.marker is None or req.marker.evaluate({"extra": extra}):
            todo += [(req.name, "")] + [(req.name, e) for e in req.extras]
assert "emurust" not in seen, "emurust in torch's closure"
for dist in seen.values():
    site = Path(str(dist.locate_file("")))
    tops = {Path(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}
    for top in sorted(tops):
        if (site / top).exists() and not (links / top).exists():
            (links / top).symlink_to(site / top)
(site_packages,) = fresh.glob("lib/python3*/site-packages")
(site_packages / "zz_dev_torch.pth").write_text(f"{links}\n")
print(f"[test_wheel] linked {len(seen)} distributions of torch's closure from {site}")
PY
fi

cd "$WORK/run"
export PATH="$FRESH/bin:$NO_RUST_PATH" PIP_DISABLE_PIP_VERSION_CHECK=1
unset VIRTUAL_ENV PYTHONPATH
python -m pip install -q "$WHEEL[rl]"
python -m pip check
phase "installed the wheel with its rl extra"

# 4. It is the wheel's emurust, the release build.
python - "$FRESH" <<'PY'
import sys
from pathlib import Path

import emurust
from emurust import _core

fresh = Path(sys.argv[1]).resolve()
for path in (emurust.__file__, _core.__file__):
    assert Path(path).resolve().is_relative_to(fresh), f"{path} is not from the fresh venv"
assert _core.__file__.endswith(".abi3.so"), _core.__file__
aids = [n for n in ("_test_shift_ppu", "_test_shift_timer", "_test_set_wy_latch")
        if hasattr(_core.GameBoy, n)] + [n for n in ("_reseal_state",) if hasattr(_core, n)]
assert not aids, f"the release build has the test aids {aids}"
print(f"[test_wheel] emurust {emurust.__version__} from {_core.__file__}; no test aids")
PY

# 5. The README's quick starts, each block in a fresh namespace, as tests/test_readme.py runs
# them in the development venv.
python - "$ROOT/README.md" <<'PY'
import re
import sys
from pathlib import Path

text = Path(sys.argv[1]).read_text()
start = text.index("\n## Quick start\n")
end = text.find("\n## ", start + 1)
section = text[start : end if end >= 0 else len(text)]
offset = text.count("\n", 0, start)
blocks = list(re.finditer(r"^```python\n(.*?)^```", section, re.S | re.M))
assert len(blocks) >= 3, f"only {len(blocks)} python blocks in the Quick start"
for m in blocks:
    line = offset + section.count("\n", 0, m.start()) + 1
    code = compile("\n" * line + m.group(1), sys.argv[1], "exec")
    exec(code, {"__name__": f"README_block_line_{line}"})
    print(f"[test_wheel] README.md:{line}: ran")
PY
phase "ran the README's quick starts"

# 6. A short training run.
emurust train --total-steps 2048 --num-envs 8 --out "$WORK/run/train" --no-progress
python - "$WORK/run/train/summary.json" <<'PY'
import json
import sys

summary = json.load(open(sys.argv[1]))
assert summary["global_step"] == 2048, summary["global_step"]
print(f"[test_wheel] trained {summary['global_step']} steps; summary.json written")
PY
phase "trained"
log "ok"
