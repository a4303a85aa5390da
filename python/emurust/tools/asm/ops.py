"""SM83 instructions as bytes, for machine code written in Python (the verification levels'
generated programs, :class:`emurust.tools.asm.program.Program`): each function or constant
is one instruction's encoding, as :func:`emurust.tools.asm.assemble` encodes it
(``tests/test_asm.py`` checks that they agree). The ROM around the code comes from
:func:`emurust.tools.asm.rom.build_rom`."""

from __future__ import annotations


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
