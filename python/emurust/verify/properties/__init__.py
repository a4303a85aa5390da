"""Level 1: property checks of single instructions and of whole-machine invariants
(``emurust verify --level 1``).

* :mod:`~emurust.verify.properties.alu`: every ALU, rotate, shift and BCD opcode family run
  on emurust in generated ROMs and compared with the independent reference model
  (:mod:`emurust.verify.model`); thousands of cases run per ROM, so the primary encoding of
  each operation is checked exhaustively over its 8-bit inputs (and all flag combinations
  that matter) and the other encodings on a seeded sample biased to boundary values
  (:mod:`~emurust.verify.properties.encodings`). The model itself is cross-checked against
  the SingleStepTests SM83 vectors when the test-ROM folder is present.
* :mod:`~emurust.verify.properties.memory`: memory-map invariants (unused I/O bits, echo RAM,
  FEA0-FEFF).
* :mod:`~emurust.verify.properties.state`: save/load round trips and rendering on/off leave
  the machine identical.

:func:`property_checks` lists the level's checks.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from pathlib import Path

from emurust.verify.machine import modes_for
from emurust.verify.properties.alu import alu_families, check_family, check_model_vectors
from emurust.verify.properties.memory import check_echo_ram, check_io_masks, check_unusable_region
from emurust.verify.properties.state import GAMES, check_render_independence, check_save_load
from emurust.verify.result import Result

__all__ = ["property_checks"]


def property_checks(
    *, seed: int, samples: int, roms: Path | None, fault: str | None
) -> list[tuple[str, Callable[[], Result]]]:
    """The level's checks as (name, thunk) pairs, so the caller can show progress."""
    modes = modes_for(fault)
    checks: list[tuple[str, Callable[[], Result]]] = []
    for family in alu_families(seed, samples):
        checks.append((family.name, functools.partial(check_family, family, modes)))
    if roms is not None:
        checks.append(("model.sm83_vectors", lambda: check_model_vectors(roms)))
    checks.append(("memory.io_unused_bits", check_io_masks))
    checks.append(("memory.echo_ram", lambda: check_echo_ram(random.Random(seed), 2000)))
    checks.append(("memory.unusable_fea0", check_unusable_region))
    from emurust.verify.programs import activity_rom

    active = activity_rom()
    checks.append(
        ("state.save_load.activity", lambda: check_save_load(active, "activity", seed, 60, 120))
    )
    checks.append(
        (
            "state.render_independent.activity",
            lambda: check_render_independence(active, "activity", seed, 120),
        )
    )
    if roms is not None:
        for name, rel in GAMES.items():
            path = roms / rel
            if not path.is_file():
                continue
            data = path.read_bytes()
            checks.append(
                (
                    f"state.save_load.{name}",
                    functools.partial(check_save_load, data, name, seed, 200, 120),
                )
            )
            checks.append(
                (
                    f"state.render_independent.{name}",
                    functools.partial(check_render_independence, data, name, seed, 150),
                )
            )
    return checks
