"""Cartridge images: the header every ROM carries (the Nintendo logo, the checksums) and
small ROMs built in memory, so that the tests and the verification levels need no ROM files.

:func:`build_rom` lays out a cartridge: the entry point ``nop; jp 0x0150``, the Nintendo
logo, a header with correct checksums, ``program`` (machine code) at 0x0150, optional code
at the interrupt vectors (0x40 VBlank, 0x48 STAT, 0x50 timer, 0x58 serial, 0x60 joypad)
and, for banked cartridges, a 2-byte bank number at offset 0x3FF0 of every 16 KiB bank.
:func:`fix_header` writes the logo and checksums into any image (``--fix`` of the
assembler); :func:`random_rom` makes fuzzing images.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

__all__ = [
    "BANK",
    "BANK_ID_OFFSET",
    "NINTENDO_LOGO",
    "PROGRAM_START",
    "ROM_SIZE",
    "ROM_SIZE_CODES",
    "VERIFY_TITLE",
    "build_rom",
    "fix_header",
    "header_checksum",
    "random_rom",
    "write_checksums",
]

BANK = 0x4000
ROM_SIZE = 2 * BANK
PROGRAM_START = 0x0150
BANK_ID_OFFSET = 0x3FF0

VERIFY_TITLE = "EMURUST VERIFY"
"""The title of the ROMs the verification levels generate."""

# Header ROM-size codes (0x148): 32 KiB << code.
ROM_SIZE_CODES = {2 << n: n for n in range(9)}

NINTENDO_LOGO = bytes.fromhex(
    "CEED6666CC0D000B03730083000C000D0008111F8889000E"
    "DCCC6EE6DDDDD999BBBB67636E0EECCCDDDC999FBBB9333E"
)
"""The logo every cartridge carries at 0x104-0x133 (the boot ROM checks it)."""


def header_checksum(rom: bytes | bytearray) -> int:
    """The header checksum (byte 0x14D) over bytes 0x134-0x14C, as the boot ROM checks it."""
    x = 0
    for b in rom[0x134:0x14D]:
        x = (x - b - 1) & 0xFF
    return x


def fix_header(rom: bytearray) -> None:
    """Writes the Nintendo logo (0x104-0x133), the header checksum (0x14D) and the global
    checksum (0x14E-0x14F, big-endian), as ``rgbfix -v`` does."""
    if len(rom) < 0x150:
        raise ValueError(f"a ROM of {len(rom)} bytes has no header")
    rom[0x104:0x134] = NINTENDO_LOGO
    write_checksums(rom)


def write_checksums(rom: bytearray) -> None:
    """Writes the header checksum (0x14D) and the global checksum (0x14E-0x14F, big-endian:
    every byte but those two, modulo 2**16)."""
    rom[0x14D] = header_checksum(rom)
    total = (sum(rom) - rom[0x14E] - rom[0x14F]) & 0xFFFF
    rom[0x14E] = total >> 8
    rom[0x14F] = total & 0xFF


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
    write_checksums(rom)
    return bytes(rom)


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
