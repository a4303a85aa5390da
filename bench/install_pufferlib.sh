#!/usr/bin/env bash
# Installs PufferLib into the active virtual environment for bench/batch.py.
#
# Only pufferlib 2.0.2 ships a wheel for CPython 3.11 on x86_64 Linux; every other release is
# an sdist, and 3.0.0's build downloads raylib from GitHub at build time (fails offline). The
# 2.0.2 wheel pins numpy==1.23.3, gymnasium==0.29.1, opencv-python 3.4 and more, which would
# downgrade this project's environment, so it is installed with --no-deps plus the few modules
# that pufferlib.vector and pufferlib.emulation import (gym for pufferlib.spaces, psutil).
set -euo pipefail
python -m pip install -q --no-deps "pufferlib==2.0.2" "gym==0.23.0" "gym-notices" "psutil"
python - <<'PY'
import contextlib, io
with contextlib.redirect_stdout(io.StringIO()):
    import pufferlib.vector  # noqa: F401
print("pufferlib.vector imports")
PY
