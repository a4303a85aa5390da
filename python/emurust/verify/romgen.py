"""The one ROM builder of the project: small Game Boy ROM images built in memory for the
verification levels and the tests, so neither needs ROM files.

:func:`build_rom` lays out a cartridge: the entry point ``nop; jp 0x0150``, the Nintendo
logo, a header with correct checksums, ``program`` (machine code) at 0x0150, optional code
at the interrupt vectors (0x40 VBlank, 0x48 STAT, 0x50 timer, 0x58 serial, 0x60 joypad)
and, for banked cartridges, a 2-byte bank number at offset 0x3FF0 of every 16 KiB bank.
:func:`serial_program` / :func:`serial_rom` assemble the tests' default program,
:func:`random_rom` makes fuzzing images.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

BANK = 0x4000
ROM_SIZE = 2 * BANK
PROGRAM_START = 0x0150
BANK_ID_OFFSET = 0x3FF0

VERIFY_TITLE = "EMURUST VERIFY"
"""The title of the ROMs the verification levels generate."""

# Header ROM-size codes (0x148): 32 KiB << code.
ROM_SIZE_CODES = {2 << n: n for n in range(9)}

# The logo the boot ROM checks (header bytes 0x104-0x133); every cartridge carries it.
NINTENDO_LOGO = bytes.fromhex(
    "CEED6666CC0D000B03730083000C000D0008111F8889000E"
    "DCCC6EE6DDDDD999BBBB67636E0EECCCDDDC999FBBB9333E"
)

# Work RAM bytes written by ``serial_program`` and where its loop counts.
WRAM_PATTERN = {0xC000: 0x42, 0xC001: 0x99, 0xC002: 0x5A}
COUNTER_ADDR = 0xC010


def header_checksum(rom: bytes | bytearray) -> int:
    """The header checksum (byte 0x14D) over bytes 0x134-0x14C, as the boot ROM checks it."""
    x = 0
    for b in rom[0x134:0x14D]:
        x = (x - b - 1) & 0xFF
    return x


def build_rom(
    program: bytes = b"",
    *,
    banks: int = 2,
    cartridge_type: int = 0x00,
    ram_size_code: int = 0x00,
    vectors: Mapping[int, bytes] | None = None,
    data: Mapping[int, bytes] | None = None,
    bank_ids: bool = False,
    title: str = "EMURUST TEST",
) -> bytes:
    """A ROM of ``banks`` 16 KiB banks with ``program`` at 0x0150 and a valid header.

    ``vectors`` maps an address below 0x100 (RST/interrupt vector) to code; ``data`` maps a
    ROM offset to bytes; ``bank_ids`` writes each bank's number (little-endian) at offset
    0x3FF0 of the bank.
    """
    if banks not in ROM_SIZE_CODES:
        raise ValueError(f"banks must be a power of two from 2 to 512, not {banks}")
    if PROGRAM_START + len(program) > (BANK_ID_OFFSET if bank_ids else 2 * BANK):
        raise ValueError(f"program of {len(program)} bytes does not fit")
    rom = bytearray(banks * BANK)
    for addr, code in (vectors or {}).items():
        if addr + len(code) > 0x100:
            raise ValueError(f"vector code at {addr:#x} runs past 0x100")
        rom[addr : addr + len(code)] = code
    rom[0x100:0x104] = bytes([0x00, 0xC3, PROGRAM_START & 0xFF, PROGRAM_START >> 8])
    rom[0x104:0x134] = NINTENDO_LOGO
    encoded = title.encode("ascii")[:15]
    rom[0x134 : 0x134 + len(encoded)] = encoded
    rom[0x147] = cartridge_type
    rom[0x148] = ROM_SIZE_CODES[banks]
    rom[0x149] = ram_size_code
    rom[0x14A] = 0x01  # overseas
    rom[PROGRAM_START : PROGRAM_START + len(program)] = program
    for offset, blob in (data or {}).items():
        rom[offset : offset + len(blob)] = blob
    if bank_ids:
        for bank in range(banks):
            at = bank * BANK + BANK_ID_OFFSET
            rom[at : at + 2] = bank.to_bytes(2, "little")
    rom[0x14D] = header_checksum(rom)
    total = (sum(rom) - rom[0x14E] - rom[0x14F]) & 0xFFFF
    rom[0x14E:0x150] = total.to_bytes(2, "big")
    return bytes(rom)


class Asm:
    """A tiny SM83 assembler: only the instructions the test programs use."""

    def __init__(self) -> None:
        self.code = bytearray()

    def here(self) -> int:
        return PROGRAM_START + len(self.code)

    def emit(self, *data: int) -> Asm:
        self.code.extend(data)
        return self

    def di(self) -> Asm:
        return self.emit(0xF3)

    def ld_sp(self, value: int) -> Asm:
        return self.emit(0x31, value & 0xFF, value >> 8)

    def ld_a(self, value: int) -> Asm:
        return self.emit(0x3E, value)

    def ld_hl(self, value: int) -> Asm:
        return self.emit(0x21, value & 0xFF, value >> 8)

    def ld_mem_a(self, addr: int) -> Asm:
        """ld (addr), a"""
        return self.emit(0xEA, addr & 0xFF, addr >> 8)

    def ldh_mem_a(self, offset: int) -> Asm:
        """ldh (0xFF00+offset), a"""
        return self.emit(0xE0, offset)

    def ldh_a_mem(self, offset: int) -> Asm:
        """ldh a, (0xFF00+offset)"""
        return self.emit(0xF0, offset)

    def bit7_a(self) -> Asm:
        return self.emit(0xCB, 0x7F)

    def inc_hl_mem(self) -> Asm:
        """inc (hl)"""
        return self.emit(0x34)

    def jr(self, target: int, *, condition: str = "") -> Asm:
        opcode = {"": 0x18, "nz": 0x20, "z": 0x28}[condition]
        offset = target - (self.here() + 2)
        if not -128 <= offset <= 127:
            raise ValueError("jr target out of range")
        return self.emit(opcode, offset & 0xFF)

    def send_serial(self, byte: int) -> Asm:
        """Send one byte with the internal clock and wait until the transfer ends."""
        self.ld_a(byte).ldh_mem_a(0x01)  # SB
        self.ld_a(0x81).ldh_mem_a(0x02)  # SC: start, internal clock
        wait = self.here()
        self.ldh_a_mem(0x02).bit7_a().jr(wait, condition="nz")
        return self

    def bytes(self) -> bytes:
        return bytes(self.code)


def serial_program(message: bytes = b"OK") -> bytes:
    """Writes ``WRAM_PATTERN``, sends ``message`` out of the serial port, then loops
    forever incrementing the byte at ``COUNTER_ADDR``."""
    asm = Asm().di().ld_sp(0xFFFE)
    for addr, value in WRAM_PATTERN.items():
        asm.ld_a(value).ld_mem_a(addr)
    for byte in message:
        asm.send_serial(byte)
    asm.ld_hl(COUNTER_ADDR)
    loop = asm.here()
    asm.inc_hl_mem().jr(loop)
    return asm.bytes()


def serial_rom(message: bytes = b"OK", *, title: str = "EMURUST TEST") -> bytes:
    """The default test ROM: ``serial_program(message)`` in a valid 32 KiB image."""
    return build_rom(serial_program(message), title=title)


def random_rom(rng: random.Random) -> bytes:
    """A ROM-sized random image with a random but plausible header, for fuzzing.

    Half of the images get a fixed entry point and logo so the CPU runs into random code
    quickly; the cartridge type and size bytes are random, so many are rejected.
    """
    size = rng.choice([0x150, 0x4000, 0x8000, 0x8000, 0x10000, 0x20000])
    rom = bytearray(rng.randbytes(size))
    if rng.random() < 0.5:
        rom[0x100:0x104] = bytes([0x00, 0xC3, 0x50, 0x01])
        rom[0x104:0x134] = NINTENDO_LOGO
    if rng.random() < 0.7:
        rom[0x147] = rng.choice([0x00, 0x01, 0x02, 0x03, 0x05, 0x06, 0x0F, 0x11, 0x13, 0x19])
        rom[0x148] = rng.choice([0x00, 0x01, 0x02, 0x03, rng.getrandbits(8)])
        rom[0x149] = rng.choice([0x00, 0x02, 0x03, rng.getrandbits(8)])
    if rng.random() < 0.5:
        rom[0x14D] = header_checksum(rom)
    return bytes(rom)
