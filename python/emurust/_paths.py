"""Where the test ROMs live."""

from __future__ import annotations

import os
from pathlib import Path

ROMS_ENV = "EMURUST_ROMS"


def project_root() -> Path:
    """The source checkout this package runs from (the folder holding ``pyproject.toml``
    and ``Cargo.toml``), or the current directory for an installed wheel."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "pyproject.toml").is_file() and (parent / "Cargo.toml").is_file():
            return parent
    return Path.cwd()


def roms_dir() -> Path:
    """The folder of test ROMs: ``$EMURUST_ROMS`` if set and non-empty, else
    ``<project root>/../shared/roms``. The folder may not exist; check before use."""
    env = os.environ.get(ROMS_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    return project_root().parent / "shared" / "roms"
