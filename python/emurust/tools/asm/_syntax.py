"""The assembler's language: its errors, the SM83 instruction set's tables and the reserved
words."""

from __future__ import annotations


class AsmError(Exception):
    """An error in the assembly source. The message starts with ``file:line: ``."""


class LineError(Exception):
    """An error without a location: the code handling the statement adds ``file:line: ``."""


class UndefinedError(LineError):
    """A symbol that is not (yet) defined."""


# Register orders of the opcode space: index 6 of the r8 order is [hl].
R8 = {"b": 0, "c": 1, "d": 2, "e": 3, "h": 4, "l": 5, "a": 7}
R16 = {"bc": 0, "de": 1, "hl": 2, "sp": 3}
R16_STACK = {"bc": 0, "de": 1, "hl": 2, "af": 3}
CONDITIONS = {"nz": 0, "z": 1, "nc": 2, "c": 3}
ALU = {"add": 0, "adc": 1, "sub": 2, "sbc": 3, "and": 4, "xor": 5, "or": 6, "cp": 7}
CB_SHIFTS = {"rlc": 0, "rrc": 1, "rl": 2, "rr": 3, "sla": 4, "sra": 5, "swap": 6, "srl": 7}
CB_BITS = {"bit": 0x40, "res": 0x80, "set": 0xC0}
NO_OPERANDS = {
    "nop": b"\x00",
    "rlca": b"\x07",
    "rrca": b"\x0f",
    "stop": b"\x10\x00",
    "rla": b"\x17",
    "rra": b"\x1f",
    "daa": b"\x27",
    "cpl": b"\x2f",
    "scf": b"\x37",
    "ccf": b"\x3f",
    "halt": b"\x76",
    "reti": b"\xd9",
    "di": b"\xf3",
    "ei": b"\xfb",
}
# Loads between A and memory addressed by a register (or by an n16, key "").
LD_A_FROM_MEM = {"bc": 0x0A, "de": 0x1A, "hl+": 0x2A, "hl-": 0x3A, "c": 0xF2, "": 0xFA}
LD_MEM_FROM_A = {"bc": 0x02, "de": 0x12, "hl+": 0x22, "hl-": 0x32, "c": 0xE2, "": 0xEA}
# The text inside [...] of register memory operands.
MEM_REGISTERS = {
    ("hl",): "hl",
    ("hl", "+"): "hl+",
    ("hli",): "hl+",
    ("hl", "-"): "hl-",
    ("hld",): "hl-",
    ("bc",): "bc",
    ("de",): "de",
    ("c",): "c",
}

MNEMONICS = frozenset(
    ["ld", "ldh", "push", "pop", "inc", "dec", "jr", "jp", "call", "ret", "rst"]
).union(NO_OPERANDS, ALU, CB_SHIFTS, CB_BITS)
DIRECTIVES = frozenset(["section", "db", "dw", "ds", "include", "assert", "def", "equ"])
REGISTER_WORDS = frozenset([*R8, *R16, *R16_STACK, *CONDITIONS])
# Section types and their address ranges (inclusive).
SECTION_TYPES = {
    "rom0": ("ROM0", 0x0000, 0x3FFF),
    "romx": ("ROMX", 0x4000, 0x7FFF),
    "wram0": ("WRAM0", 0xC000, 0xCFFF),
    "wramx": ("WRAMX", 0xD000, 0xDFFF),
    "hram": ("HRAM", 0xFF80, 0xFFFE),
    "vram": ("VRAM", 0x8000, 0x9FFF),
    "sram": ("SRAM", 0xA000, 0xBFFF),
    "oam": ("OAM", 0xFE00, 0xFE9F),
}
RESERVED = (
    MNEMONICS
    | DIRECTIVES
    | REGISTER_WORDS
    | frozenset(SECTION_TYPES)
    | frozenset(["hli", "hld", "high", "low"])
)
