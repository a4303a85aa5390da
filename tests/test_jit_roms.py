"""The compiled path's targeted test programs (``tests/jit_targeted.rs`` and
``tests/jit_events.rs``, feature ``jit``) are committed as source and as the ROM assembled from
it; each ROM must be exactly what the project's assembler makes of its source, so that the
binary cannot drift from it.

Rebuild one after editing its source with
``python -m emurust.tools.asm tests/data/NAME.asm -o tests/data/NAME.gb --fix --pad PAD``
(PAD as in ``PROGRAMS``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from emurust.tools.asm import assemble_file

DATA = Path(__file__).parent / "data"

# Each program, the byte it is padded with (jit_smc: RET, so its bank 1 is all RET) and its
# size (jit_banks: four banks).
PROGRAMS = {
    "jit_offsets": (0x00, 0x8000),
    "jit_smc": (0xC9, 0x8000),
    "jit_irqs": (0x00, 0x8000),
    "jit_speed": (0x00, 0x8000),
    "jit_banks": (0x00, 0x10000),
}


@pytest.mark.parametrize(("name", "pad", "size"), [(n, *p) for n, p in sorted(PROGRAMS.items())])
def test_committed_rom_is_its_source_assembled(name: str, pad: int, size: int) -> None:
    built = assemble_file(DATA / f"{name}.asm", fix=True, pad=pad).rom
    committed = (DATA / f"{name}.gb").read_bytes()
    assert len(committed) == len(built) == size
    first = next((i for i, (a, b) in enumerate(zip(built, committed, strict=True)) if a != b), None)
    assert first is None, f"{name}.gb differs from its source from offset {first:#06x}: rebuild it"
