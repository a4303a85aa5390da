"""Battery-backed cartridge RAM can be read and written as bytes (a `.sav` file)."""

from __future__ import annotations

import pytest

import emurust
from emurust.tools.asm.rom import build_rom

# ld a,$0A; ld ($0000),a  (enable RAM); ld a,$5A; ld ($A123),a; loop: jr loop
PROGRAM = bytes([0x3E, 0x0A, 0xEA, 0x00, 0x00, 0x3E, 0x5A, 0xEA, 0x23, 0xA1, 0x18, 0xFE])


def _mbc1_battery_rom() -> bytes:
    return build_rom(PROGRAM, cartridge_type=0x03, ram_size_code=0x02)  # MBC1+RAM+BATTERY, 8 KiB


def test_game_writes_show_up_in_cartridge_ram() -> None:
    gb = emurust.GameBoy(_mbc1_battery_rom())
    assert gb.cartridge_ram == bytes(8192)
    gb.tick(2, render=False)
    ram = gb.cartridge_ram
    assert len(ram) == 8192
    assert ram[0x123] == 0x5A
    assert gb.memory[0xA123] == 0x5A


def test_load_cartridge_ram_round_trip() -> None:
    gb = emurust.GameBoy(_mbc1_battery_rom())
    save = bytes(range(256)) * 32
    gb.load_cartridge_ram(save)
    assert gb.cartridge_ram == save
    gb.tick(2, render=False)  # the program enables RAM and writes one byte
    assert gb.memory[0xA000] == 0x00
    assert gb.memory[0xA001] == 0x01
    expected = bytearray(save)
    expected[0x123] = 0x5A
    assert gb.cartridge_ram == bytes(expected)


def test_wrong_length_or_type_is_rejected() -> None:
    gb = emurust.GameBoy(_mbc1_battery_rom())
    with pytest.raises(emurust.InvalidArgumentError, match="8192"):
        gb.load_cartridge_ram(b"\x00" * 100)
    with pytest.raises(TypeError):
        gb.load_cartridge_ram("not bytes")  # type: ignore[arg-type]
    assert gb.cartridge_ram == bytes(8192)


def test_no_ram_cartridge_has_empty_ram() -> None:
    gb = emurust.GameBoy(build_rom(PROGRAM))
    assert gb.cartridge_ram == b""
