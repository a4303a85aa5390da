"""Running through a boot ROM (PyBoy's open-source DMG boot ROM, LGPL, read from
the installed pyboy package; skipped when pyboy is absent)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import emurust


def _pyboy_boot_rom() -> bytes:
    spec = importlib.util.find_spec("pyboy")
    if spec is None or spec.origin is None:
        pytest.skip("pyboy is not installed (its open-source boot ROM is used here)")
    path = Path(spec.origin).parent / "core" / "bootrom_dmg.bin"
    if not path.is_file():
        pytest.skip(f"{path} not found in the installed pyboy")
    return path.read_bytes()


def test_boot_rom_runs_and_hands_over(blargg_special: Path) -> None:
    boot = _pyboy_boot_rom()
    rom = blargg_special.read_bytes()
    gb = emurust.GameBoy(rom, boot_rom=boot)
    # Power-on: the boot ROM is mapped over 0x0000-0x00FF and runs from PC=0.
    assert gb.registers["pc"] == 0
    assert gb.memory[0x0000:0x0100] == boot
    assert gb.memory[0x0100:0x0150] == rom[0x100:0x150]
    for _ in range(600):
        gb.tick(1, render=False)
        if gb.memory[0x0000:0x0100] == rom[:0x100]:
            break
    else:
        pytest.fail("the boot ROM never unmapped itself (write to 0xFF50)")
    # After hand-over the game runs normally and passes its own test.
    for _ in range(1500):
        gb.tick(10, render=False)
        if b"Passed" in gb.serial_output or b"Failed" in gb.serial_output:
            break
    assert b"Passed" in gb.serial_output, gb.serial_output


def test_boot_rom_must_be_256_bytes(rom: bytes) -> None:
    with pytest.raises(emurust.InvalidRomError, match="256"):
        emurust.GameBoy(rom, boot_rom=b"\x00" * 255)
