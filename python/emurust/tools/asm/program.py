"""Machine code built in Python, a statement at a time: :class:`Program`, with labels, and the
tests' default program (:func:`serial_program`, :func:`serial_rom`). For anything longer
than a few dozen instructions, write RGBDS assembly and use :func:`emurust.tools.asm.assemble`
(Starcatch, the boot ROMs)."""

from __future__ import annotations

from emurust.tools.asm import ops
from emurust.tools.asm.rom import PROGRAM_START, build_rom

__all__ = ["COUNTER_ADDR", "WRAM_PATTERN", "Program", "serial_program", "serial_rom"]

_JR = {"": 0x18, "nz": 0x20, "z": 0x28, "nc": 0x30, "c": 0x38}


class Program:
    """Straight-line machine code from ``origin`` (default 0x0150, where
    :func:`~emurust.tools.asm.rom.build_rom` puts it): raw bytes and :mod:`ops` encodings
    (``p(ops.ld_a(1), 0x3C)``, or :meth:`emit` for bytes as ints), a few instructions as
    chained methods (``p.ld_a(0x81).ldh_mem_a(0x02)``), and ``jr``/``jp``/``call`` to an
    address or to a label defined before or after (:meth:`label`; resolved by :meth:`bytes`)."""

    def __init__(self, origin: int = PROGRAM_START) -> None:
        self.origin = origin
        self.code = bytearray()
        self.labels: dict[str, int] = {}
        self.fixups: list[tuple[int, str, str]] = []  # (offset, label, kind)

    def here(self) -> int:
        """The address of the next byte."""
        return self.origin + len(self.code)

    def __call__(self, *chunks: bytes | int) -> Program:
        for chunk in chunks:
            if isinstance(chunk, int):
                self.code.append(chunk)
            else:
                self.code += chunk
        return self

    def emit(self, *data: int) -> Program:
        self.code.extend(data)
        return self

    def label(self, name: str) -> Program:
        self.labels[name] = self.here()
        return self

    def jr(self, target: int | str, condition: str = "") -> Program:
        """``jr [cc,] target``: an address, or a label (resolved by :meth:`bytes`)."""
        opcode = _JR[condition]
        if isinstance(target, str):
            self.code.append(opcode)
            self.fixups.append((len(self.code), target, "jr"))
            self.code.append(0)
            return self
        offset = target - (self.here() + 2)
        if not -128 <= offset <= 127:
            raise ValueError("jr target out of range")
        return self.emit(opcode, offset & 0xFF)

    def jp(self, target: int | str) -> Program:
        return self._absolute(0xC3, target)

    def call(self, target: int | str) -> Program:
        return self._absolute(0xCD, target)

    def _absolute(self, opcode: int, target: int | str) -> Program:
        self.code.append(opcode)
        if isinstance(target, str):
            self.fixups.append((len(self.code), target, "abs"))
            self.code += b"\0\0"
        else:
            self.code += ops.u16(target)
        return self

    def di(self) -> Program:
        return self(ops.DI)

    def ld_sp(self, value: int) -> Program:
        return self(ops.ld_sp(value))

    def ld_a(self, value: int) -> Program:
        return self(ops.ld_a(value))

    def ld_hl(self, value: int) -> Program:
        return self(ops.ld_hl(value))

    def ld_mem_a(self, addr: int) -> Program:
        """ld (addr), a"""
        return self(ops.ld_mem_a(addr))

    def ldh_mem_a(self, offset: int) -> Program:
        """ldh (0xFF00+offset), a"""
        return self(ops.ldh_a_to(offset))

    def ldh_a_mem(self, offset: int) -> Program:
        """ldh a, (0xFF00+offset)"""
        return self(ops.ldh_a_from(offset))

    def bit7_a(self) -> Program:
        return self.emit(0xCB, 0x7F)

    def inc_hl_mem(self) -> Program:
        """inc (hl)"""
        return self.emit(0x34)

    def send_serial(self, byte: int) -> Program:
        """Send one byte with the internal clock and wait until the transfer ends."""
        self.ld_a(byte).ldh_mem_a(0x01)  # SB
        self.ld_a(0x81).ldh_mem_a(0x02)  # SC: start, internal clock
        wait = self.here()
        self.ldh_a_mem(0x02).bit7_a().jr(wait, "nz")
        return self

    def bytes(self) -> bytes:
        """The code, every label reference filled in."""
        for offset, name, kind in self.fixups:
            target = self.labels[name]
            if kind == "jr":
                rel = target - (self.origin + offset + 1)
                if not -128 <= rel <= 127:
                    raise ValueError(f"jr to {name} out of range")
                self.code[offset] = rel & 0xFF
            else:
                self.code[offset : offset + 2] = ops.u16(target)
        return bytes(self.code)


# Work RAM bytes written by ``serial_program`` and where its loop counts.
WRAM_PATTERN = {0xC000: 0x42, 0xC001: 0x99, 0xC002: 0x5A}
COUNTER_ADDR = 0xC010


def serial_program(message: bytes = b"OK") -> bytes:
    """Writes ``WRAM_PATTERN``, sends ``message`` out of the serial port, then loops
    forever incrementing the byte at ``COUNTER_ADDR``."""
    p = Program().di().ld_sp(0xFFFE)
    for addr, value in WRAM_PATTERN.items():
        p.ld_a(value).ld_mem_a(addr)
    for byte in message:
        p.send_serial(byte)
    p.ld_hl(COUNTER_ADDR)
    loop = p.here()
    p.inc_hl_mem().jr(loop)
    return p.bytes()


def serial_rom(message: bytes = b"OK", *, title: str = "EMURUST TEST") -> bytes:
    """The default test ROM: ``serial_program(message)`` in a valid 32 KiB image."""
    return build_rom(serial_program(message), title=title)
