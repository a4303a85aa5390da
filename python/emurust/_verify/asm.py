"""Small ROM images built in memory for the verification runner (no ROM files needed).

:func:`build_rom` lays out a cartridge: the entry point ``nop; jp 0x0150``, the Nintendo
logo, a header with correct checksums, ``program`` at 0x0150, optional code at the
interrupt vectors (0x40 VBlank, 0x48 STAT, 0x50 timer, 0x58 serial, 0x60 joypad) and, for
banked cartridges, a 2-byte bank number at offset 0x3FF0 of every 16 KiB bank.
"""

from __future__ import annotations

from collections.abc import Mapping

BANK = 0x4000
PROGRAM_START = 0x0150
BANK_ID_OFFSET = 0x3FF0

NINTENDO_LOGO = bytes.fromhex(
    "CEED6666CC0D000B03730083000C000D0008111F8889000E"
    "DCCC6EE6DDDDD999BBBB67636E0EECCCDDDC999FBBB9333E"
)

# Header ROM-size codes (0x148): 32 KiB << code.
ROM_SIZE_CODES = {2 << n: n for n in range(9)}


def build_rom(
    program: bytes,
    *,
    banks: int = 2,
    cartridge_type: int = 0x00,
    ram_size_code: int = 0x00,
    vectors: Mapping[int, bytes] | None = None,
    data: Mapping[int, bytes] | None = None,
    bank_ids: bool = False,
    title: str = "EMURUST VERIFY",
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
    rom[0x14A] = 0x01
    rom[PROGRAM_START : PROGRAM_START + len(program)] = program
    for offset, blob in (data or {}).items():
        rom[offset : offset + len(blob)] = blob
    if bank_ids:
        for bank in range(banks):
            at = bank * BANK + BANK_ID_OFFSET
            rom[at : at + 2] = bank.to_bytes(2, "little")
    x = 0
    for b in rom[0x134:0x14D]:
        x = (x - b - 1) & 0xFF
    rom[0x14D] = x
    total = (sum(rom) - rom[0x14E] - rom[0x14F]) & 0xFFFF
    rom[0x14E:0x150] = total.to_bytes(2, "big")
    return bytes(rom)


def u16(value: int) -> bytes:
    """A little-endian 16-bit operand."""
    return (value & 0xFFFF).to_bytes(2, "little")


# A few encodings used by the generated programs (SM83 opcode table).
DI = b"\xf3"
EI = b"\xfb"
HALT = b"\x76"
NOP = b"\x00"
RETI = b"\xd9"
PUSH_AF = b"\xf5"
POP_AF = b"\xf1"
PUSH_HL = b"\xe5"
POP_HL = b"\xe1"
INC_SP = b"\x33"


def ld_sp(value: int) -> bytes:
    """ld sp, nn"""
    return b"\x31" + u16(value)


def ld_a(value: int) -> bytes:
    """ld a, n"""
    return bytes([0x3E, value & 0xFF])


def ld_hl(value: int) -> bytes:
    """ld hl, nn"""
    return b"\x21" + u16(value)


def ldh_a_to(offset: int) -> bytes:
    """ldh (0xFF00+offset), a"""
    return bytes([0xE0, offset & 0xFF])


def ldh_a_from(offset: int) -> bytes:
    """ldh a, (0xFF00+offset)"""
    return bytes([0xF0, offset & 0xFF])


def ld_mem_a(addr: int) -> bytes:
    """ld (nn), a"""
    return b"\xea" + u16(addr)


def ld_a_mem(addr: int) -> bytes:
    """ld a, (nn)"""
    return b"\xfa" + u16(addr)


def ld_mem_sp(addr: int) -> bytes:
    """ld (nn), sp"""
    return b"\x08" + u16(addr)


def add_sp(e: int) -> bytes:
    """add sp, e (e as an unsigned byte)"""
    return bytes([0xE8, e & 0xFF])


def jp(addr: int) -> bytes:
    """jp nn"""
    return b"\xc3" + u16(addr)


def jr(offset: int, condition: str = "") -> bytes:
    """jr [cc,] e with the offset relative to the next instruction."""
    opcode = {"": 0x18, "nz": 0x20, "z": 0x28, "nc": 0x30, "c": 0x38}[condition]
    if not -128 <= offset <= 127:
        raise ValueError("jr offset out of range")
    return bytes([opcode, offset & 0xFF])


DONE_FLAG = 0xDF80
DONE_VALUE = 0xD0


def finish() -> bytes:
    """Marks the program finished (``DONE_VALUE`` at ``DONE_FLAG``) and stops: ``halt``
    with interrupts off and IE clear never wakes, and the ``jr`` catches a wake-up."""
    return ld_a(DONE_VALUE) + ld_mem_a(DONE_FLAG) + DI + HALT + jr(-3)
