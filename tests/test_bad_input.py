"""Bad input gives a typed exception that names the problem, never a crash."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import emurust
from emurust.tools.asm.program import serial_program
from emurust.tools.asm.rom import build_rom

MiB = 1024 * 1024


# --- ROMs -----------------------------------------------------------------------------


@pytest.mark.parametrize("size", [0, 1, 0x100, 0x14F])
def test_too_short_rom(size: int) -> None:
    with pytest.raises(emurust.InvalidRomError):
        emurust.GameBoy(bytes(size))


def test_rom_over_8_mib_bytes() -> None:
    with pytest.raises(emurust.InvalidRomError, match=r"8388608|8 MiB"):
        emurust.GameBoy(bytes(8 * MiB + 1))


def test_rom_over_8_mib_file_rejected_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "huge.gb"
    with open(path, "wb") as f:
        f.truncate(64 * MiB)  # sparse: costs no disk, and reading it would be slow
    with pytest.raises(emurust.InvalidRomError, match=str(64 * MiB)):
        emurust.GameBoy(path)
    with pytest.raises(emurust.InvalidRomError):
        emurust.GameBoy(build_rom(serial_program()), boot_rom=path)


@pytest.mark.parametrize("cartridge_type", [0xFC, 0x22, 0xFD, 0xFE, 0x04, 0x7F])
def test_unsupported_cartridge_type(cartridge_type: int) -> None:
    rom = build_rom(serial_program(), cartridge_type=cartridge_type)
    with pytest.raises(emurust.UnsupportedCartridgeError) as info:
        emurust.GameBoy(rom)
    assert isinstance(info.value, emurust.InvalidRomError)
    assert str(info.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        emurust.GameBoy(tmp_path / "nope.gb")
    with pytest.raises(FileNotFoundError):
        emurust.GameBoy(str(tmp_path / "nope.gb"))
    rom = tmp_path / "ok.gb"
    rom.write_bytes(build_rom(serial_program()))
    with pytest.raises(FileNotFoundError):
        emurust.GameBoy(rom, boot_rom=tmp_path / "no_boot.bin")


def test_directory_is_not_a_rom(tmp_path: Path) -> None:
    with pytest.raises(OSError, match=r"directory|denied"):  # IsADirectoryError on POSIX
        emurust.GameBoy(tmp_path)


@pytest.mark.parametrize("bad", [None, 123, 1.5, ["a"], object()])
def test_rom_of_wrong_type(bad: Any) -> None:
    with pytest.raises(TypeError, match="rom must be"):
        emurust.GameBoy(bad)


def test_native_class_takes_only_bytes() -> None:
    from emurust import _core

    with pytest.raises(TypeError, match="rom must be bytes"):
        _core.GameBoy(bytearray(build_rom(serial_program())))  # type: ignore[arg-type]


@pytest.mark.parametrize("size", [0, 1, 255, 257, 0x8000])
def test_boot_rom_must_be_256_bytes(size: int) -> None:
    rom = build_rom(serial_program())
    with pytest.raises(emurust.InvalidRomError, match="256"):
        emurust.GameBoy(rom, boot_rom=bytes(size))


def test_boot_rom_file_and_type(tmp_path: Path) -> None:
    rom = build_rom(serial_program())
    boot = tmp_path / "boot.bin"
    boot.write_bytes(bytes(300))
    with pytest.raises(emurust.InvalidRomError, match=r"256|300"):
        emurust.GameBoy(rom, boot_rom=boot)
    with pytest.raises(TypeError):
        emurust.GameBoy(rom, boot_rom=256)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        emurust.GameBoy(rom, bytes(256))  # type: ignore[call-arg]  # boot_rom is keyword-only


def test_boot_rom_runs_from_zero(tmp_path: Path) -> None:
    # A stand-in boot ROM: jump to 0x00FC, write 1 to 0xFF50 (unmap) and fall into 0x0100.
    boot = bytearray(256)
    boot[0:3] = bytes([0xC3, 0xFC, 0x00])  # jp 0x00FC
    boot[0xFC:0x100] = bytes([0x3E, 0x01, 0xE0, 0x50])  # ld a,1 ; ldh (0x50),a
    path = tmp_path / "boot.bin"
    path.write_bytes(bytes(boot))
    gb = emurust.GameBoy(build_rom(serial_program()), boot_rom=path)
    assert gb.registers["pc"] == 0x0000
    assert gb.memory[0x0000] == 0xC3  # the boot ROM is mapped over the cartridge
    gb.tick(3)
    assert gb.memory[0x0000] == 0x00  # ... until it writes 0xFF50
    assert b"OK" in gb.serial_output


# --- arguments ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["", "x", "A ", "enter", "aa", "up-left", "Ⓐ"])
def test_unknown_button_names(gb: emurust.GameBoy, name: str) -> None:
    for method in (gb.button_press, gb.button_release, gb.button):
        with pytest.raises(emurust.InvalidArgumentError) as info:
            method(name)
        message = str(info.value)
        for valid in emurust.BUTTONS:
            assert valid in message
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("name", [None, 1, b"a", ["a"]])
def test_button_name_of_wrong_type(gb: emurust.GameBoy, name: Any) -> None:
    with pytest.raises(TypeError):
        gb.button_press(name)
    with pytest.raises(TypeError):
        gb.button(name)


@pytest.mark.parametrize("frames", [0, -1, 2**32, 2**100])
def test_button_frames_out_of_range(gb: emurust.GameBoy, frames: int) -> None:
    with pytest.raises(emurust.InvalidArgumentError, match="frames"):
        gb.button("a", frames)
    gb.memory[0xFF00] = 0x10
    assert gb.memory[0xFF00] & 0x0F == 0x0F  # nothing was pressed


@pytest.mark.parametrize("frames", [1.0, "2", None, [1]])
def test_button_frames_of_wrong_type(gb: emurust.GameBoy, frames: Any) -> None:
    if frames is None:
        gb.button("a", None)  # type: ignore[arg-type]  # None means the default, one frame
        return
    with pytest.raises(TypeError):
        gb.button("a", frames)


@pytest.mark.parametrize("frames", [-1, -(2**70)])
def test_tick_negative_frames(gb: emurust.GameBoy, frames: int) -> None:
    with pytest.raises(emurust.InvalidArgumentError, match="frames"):
        gb.tick(frames)
    assert gb.frame_count == 0


def test_tick_huge_frames_is_rejected_before_running(gb: emurust.GameBoy) -> None:
    with pytest.raises(emurust.InvalidArgumentError):
        gb.tick(2**64)
    assert gb.frame_count == 0


@pytest.mark.parametrize("frames", [1.0, 2.5, "3", b"1", [1]])
def test_tick_frames_of_wrong_type(gb: emurust.GameBoy, frames: Any) -> None:
    with pytest.raises(TypeError):
        gb.tick(frames)
    assert gb.frame_count == 0


def test_tick_render_must_be_bool(gb: emurust.GameBoy) -> None:
    with pytest.raises(TypeError):
        gb.tick(1, render="yes")  # type: ignore[arg-type]


def test_bool_frames_are_ints(gb: emurust.GameBoy) -> None:
    gb.tick(True)
    assert gb.frame_count == 1


# --- memory ------------------------------------------------------------------------------------


@pytest.mark.parametrize("addr", [-1, -0x10000, 0x10000, 0x12345, 2**64, -(2**64)])
def test_memory_address_out_of_range(gb: emurust.GameBoy, addr: int) -> None:
    with pytest.raises(emurust.InvalidAddressError) as info:
        _ = gb.memory[addr]
    assert isinstance(info.value, IndexError)
    assert "0xFFFF" in str(info.value)
    with pytest.raises(emurust.InvalidAddressError):
        gb.memory[addr] = 0


@pytest.mark.parametrize("value", [256, -1, 1000, 2**64])
def test_memory_value_out_of_range(gb: emurust.GameBoy, value: int) -> None:
    gb.memory[0xC000] = 7
    with pytest.raises(emurust.InvalidArgumentError) as info:
        gb.memory[0xC000] = value
    assert isinstance(info.value, ValueError)
    assert str(value) in str(info.value)
    assert gb.memory[0xC000] == 7


@pytest.mark.parametrize("key", [1.0, "0xC000", None, (1, 2), b"\x00"])
def test_memory_index_of_wrong_type(gb: emurust.GameBoy, key: Any) -> None:
    with pytest.raises(TypeError):
        _ = gb.memory[key]
    with pytest.raises(TypeError):
        gb.memory[key] = 0


@pytest.mark.parametrize("value", [1.0, "1", None, b"\x01", [1]])
def test_memory_value_of_wrong_type(gb: emurust.GameBoy, value: Any) -> None:
    with pytest.raises(TypeError):
        gb.memory[0xC000] = value


def test_memory_slice_assignment_errors(gb: emurust.GameBoy) -> None:
    mem = gb.memory
    mem[0xC000:0xC004] = b"\x01\x02\x03\x04"
    with pytest.raises(emurust.InvalidArgumentError, match="exactly 4"):
        mem[0xC000:0xC004] = b"\x00\x00\x00"
    with pytest.raises(emurust.InvalidArgumentError):
        mem[0xC000:0xC004] = b"\x00" * 5
    with pytest.raises(emurust.InvalidArgumentError):
        mem[0xC000:0xC004] = [0, 1, 2, 300]
    with pytest.raises(TypeError):
        mem[0xC000:0xC004] = [0, 1, 2, 3.0]  # type: ignore[list-item]
    with pytest.raises(TypeError):
        mem[0xC000:0xC004] = "abcd"  # type: ignore[assignment]
    with pytest.raises(TypeError):
        mem[0xC000:0xC004] = 5  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="step"):
        mem[0xC000:0xC004:0] = b""
    with pytest.raises(ValueError, match="step"):
        _ = mem[0xC000:0xC004:0]
    with pytest.raises(emurust.InvalidArgumentError):
        mem[:] = iter(range(10**6))  # stops reading at 64 KiB + 1 values
    # Every failed assignment above left the bytes alone.
    assert mem[0xC000:0xC004] == b"\x01\x02\x03\x04"


def test_memory_delete_is_refused(gb: emurust.GameBoy) -> None:
    with pytest.raises((TypeError, NotImplementedError, AttributeError)):
        del gb.memory[0xC000]  # type: ignore[attr-defined]


# --- states -----------------------------------------------------------------------------------


@pytest.mark.parametrize("data", [b"", b"\x00", b"EMURUST", os.urandom(64), bytes(100_000)])
def test_garbage_state(gb: emurust.GameBoy, data: bytes) -> None:
    with pytest.raises(emurust.InvalidStateError):
        gb.load_state(data)


@pytest.mark.parametrize("data", [None, "state", 123, [1, 2, 3]])
def test_state_of_wrong_type(gb: emurust.GameBoy, data: Any) -> None:
    with pytest.raises(TypeError):
        gb.load_state(data)
