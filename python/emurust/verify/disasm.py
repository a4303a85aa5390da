"""The SM83 disassembler of the lockstep harness's traces: :func:`disassemble` (one
instruction) and :func:`format_trace_entry` (one line of ``GameBoy.trace()``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from emurust._core import _TraceEntry

__all__ = ["disassemble", "format_trace_entry"]

_R8 = ("b", "c", "d", "e", "h", "l", "(hl)", "a")
_ALU = ("add a,", "adc a,", "sub ", "sbc a,", "and ", "xor ", "or ", "cp ")
_CB = ("rlc", "rrc", "rl", "rr", "sla", "sra", "swap", "srl")
_CC = ("nz", "z", "nc", "c")
_RP = ("bc", "de", "hl", "sp")
_FIXED = {
    0x00: "nop",
    0x02: "ld (bc),a",
    0x07: "rlca",
    0x08: "ld (${w:04x}),sp",
    0x0A: "ld a,(bc)",
    0x0F: "rrca",
    0x10: "stop",
    0x12: "ld (de),a",
    0x17: "rla",
    0x18: "jr ${j:04x}",
    0x1A: "ld a,(de)",
    0x1F: "rra",
    0x22: "ld (hl+),a",
    0x27: "daa",
    0x2A: "ld a,(hl+)",
    0x2F: "cpl",
    0x32: "ld (hl-),a",
    0x37: "scf",
    0x3A: "ld a,(hl-)",
    0x3F: "ccf",
    0x76: "halt",
    0xC3: "jp ${w:04x}",
    0xC9: "ret",
    0xCD: "call ${w:04x}",
    0xD9: "reti",
    0xE0: "ldh ($ff{b:02x}),a",
    0xE2: "ld ($ff00+c),a",
    0xE8: "add sp,{s}",
    0xE9: "jp hl",
    0xEA: "ld (${w:04x}),a",
    0xF0: "ldh a,($ff{b:02x})",
    0xF2: "ld a,($ff00+c)",
    0xF3: "di",
    0xF8: "ld hl,sp{s:+d}",
    0xF9: "ld sp,hl",
    0xFA: "ld a,(${w:04x})",
    0xFB: "ei",
}


def _template(op: int) -> str:
    if op in _FIXED:
        return _FIXED[op]
    hi, mid, lo = op >> 6, (op >> 3) & 7, op & 7
    if hi == 1:
        return f"ld {_R8[mid]},{_R8[lo]}"
    if hi == 2:
        return f"{_ALU[mid]}{_R8[lo]}"
    if hi == 0:
        if lo == 0 and mid >= 4:
            return f"jr {_CC[mid - 4]},${{j:04x}}"
        if lo == 1:
            return f"ld {_RP[mid >> 1]},${{w:04x}}" if mid % 2 == 0 else f"add hl,{_RP[mid >> 1]}"
        if lo == 3:
            return f"{'inc' if mid % 2 == 0 else 'dec'} {_RP[mid >> 1]}"
        if lo in (4, 5):
            return f"{'inc' if lo == 4 else 'dec'} {_R8[mid]}"
        if lo == 6:
            return f"ld {_R8[mid]},${{b:02x}}"
    else:
        if lo == 0 and mid < 4:
            return f"ret {_CC[mid]}"
        if lo == 1 and mid % 2 == 0:
            return f"pop {('bc', 'de', 'hl', 'af')[mid >> 1]}"
        if lo == 2 and mid < 4:
            return f"jp {_CC[mid]},${{w:04x}}"
        if lo == 4 and mid < 4:
            return f"call {_CC[mid]},${{w:04x}}"
        if lo == 5 and mid % 2 == 0:
            return f"push {('bc', 'de', 'hl', 'af')[mid >> 1]}"
        if lo == 6:
            return f"{_ALU[mid]}${{b:02x}}"
        if lo == 7:
            return f"rst ${mid * 8:02x}"
    return f"db ${op:02x}"


def disassemble(code: bytes, pc: int = 0) -> str:
    """The SM83 instruction at the start of ``code`` (its address ``pc`` gives JR
    targets), e.g. ``disassemble(b"\\xce\\x00") == "adc a,$00"``."""
    if not code:
        return "?"
    op = code[0]
    b = code[1] if len(code) > 1 else 0
    w = b | (code[2] << 8 if len(code) > 2 else 0)
    if op == 0xCB:
        hi, bit, reg = b >> 6, (b >> 3) & 7, _R8[b & 7]
        if hi == 0:
            return f"{_CB[bit]} {reg}"
        return f"{('bit', 'res', 'set')[hi - 1]} {bit},{reg}"
    s = b - 256 if b >= 128 else b
    return _template(op).format(b=b, w=w, s=s, j=(pc + 2 + s) & 0xFFFF)


def format_trace_entry(entry: _TraceEntry) -> str:
    """One line of a trace: clock, PC, bytes, instruction and the registers before it."""
    kind = entry["kind"]
    regs = (
        f"A={entry['a']:02X} F={entry['f']:02X} BC={entry['b']:02X}{entry['c']:02X} "
        f"DE={entry['d']:02X}{entry['e']:02X} HL={entry['h']:02X}{entry['l']:02X} "
        f"SP={entry['sp']:04X} IME={int(entry['ime'])} IE={entry['ie']:02X} "
        f"IF={entry['if']:02X}"
    )
    if kind == "instruction":
        code = entry["opcode"]
        text = f"{code.hex(' '):8} {disassemble(code, entry['pc'])}"
    elif kind == "interrupt":
        text = "<interrupt dispatch>"
    else:
        text = f"<{kind} x{entry['repeat']}>"
    return f"@{entry['cycles']:>10} {entry['pc']:04X}: {text:28} {regs}"
