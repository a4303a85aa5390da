"""``PyBoy.register_file`` and ``PyBoy.memory``: the CPU registers, and the address space
with PyBoy's banked views (ROM, VRAM, WRAM and cartridge RAM banks, the boot ROM)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Union

from emurust._gameboy import GameBoy
from emurust.pyboy._args import as_index
from emurust.pyboy._errors import InvalidInputError as InvalidArgumentError
from emurust.pyboy._errors import InvalidMemoryOperationError, NotSupportedError
from emurust.pyboy._errors import OutOfBoundsError as InvalidAddressError

if TYPE_CHECKING:
    from emurust.pyboy_compat import PyBoy

__all__ = ["Memoryish", "PyBoyMemoryView", "PyBoyRegisterFile"]

Memoryish = Union[int, slice]


class PyBoyRegisterFile:
    """``PyBoy.register_file``: the CPU registers ``A F B C D E HL SP PC``, readable and
    writable (writes are masked to the register's width; ``F`` keeps its high nibble)."""

    _BYTES = ("A", "F", "B", "C", "D", "E")
    _gb: GameBoy

    def __init__(self, gb: GameBoy) -> None:
        object.__setattr__(self, "_gb", gb)

    def __getattr__(self, name: str) -> int:
        regs: dict[str, int] = self._gb.registers
        if name in self._BYTES or name in ("SP", "PC"):
            return regs[name.lower()]
        if name == "HL":
            return regs["h"] << 8 | regs["l"]
        raise AttributeError(f"register file has no register {name!r}")

    def __setattr__(self, name: str, value: int) -> None:
        value = as_index(value, f"register {name}")
        if name in self._BYTES:
            mask = 0xF0 if name == "F" else 0xFF
            self._gb._set_register(name.lower(), value & mask)
        elif name == "HL":
            self._gb._set_register("h", (value >> 8) & 0xFF)
            self._gb._set_register("l", value & 0xFF)
        elif name in ("SP", "PC"):
            self._gb._set_register(name.lower(), value & 0xFFFF)
        else:
            raise AttributeError(f"register file has no register {name!r}")


class PyBoyMemoryView:
    """``PyBoy.memory``: ``memory[addr]``, ``memory[start:stop:step]`` (a list, as in PyBoy),
    ``memory[bank, addr]`` and ``memory[bank, start:stop]`` for the banked regions as PyBoy
    defines them (ROM banks at 0x0000-0x7FFF, ``-1`` the boot ROM, VRAM bank 0, cartridge RAM
    banks at 0xA000-0xBFFF, WRAM at 0xC000-0xDFFF), and writes. Unbanked writes go through the
    bus (MBC registers, I/O side effects); ROM and boot-ROM overrides are not supported."""

    def __init__(self, owner: PyBoy) -> None:
        self._owner = owner
        self._gb = owner._gb

    def __len__(self) -> int:
        raise InvalidMemoryOperationError(
            "It's not possible to define the length of the memory space (as in PyBoy)"
        )

    def __iter__(self) -> Any:
        raise InvalidMemoryOperationError(
            "It's not possible to iterate over the memory space (as in PyBoy)"
        )

    @staticmethod
    def _range(key: slice) -> range:
        if key.start is None:
            raise InvalidArgumentError("Start address required")
        if key.stop is None:
            raise InvalidArgumentError("End address required")
        start, stop = as_index(key.start, "slice start"), as_index(key.stop, "slice stop")
        step = 1 if key.step is None else as_index(key.step, "slice step")
        if step <= 0:
            raise InvalidArgumentError("Slice step must be a positive integer")
        if not 0 <= start <= 0xFFFF:
            raise InvalidAddressError("Start address out of bounds")
        if not 0 <= stop <= 0x10000:
            raise InvalidAddressError("End address out of bounds")
        if not start < stop:
            raise InvalidArgumentError("Start address has to come before end address")
        return range(start, stop, step)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, tuple):
            bank, addr = key
            return self._banked(bank, addr, None)
        if isinstance(key, slice):
            r = self._range(key)
            data = self._gb.memory[r.start : r.stop : r.step]
            return list(data)
        return self._gb.memory[as_index(key, "address")]

    def __setitem__(self, key: Any, value: Any) -> None:
        if isinstance(key, tuple):
            bank, addr = key
            self._banked(bank, addr, value)
            return
        mem = self._gb.memory
        if isinstance(key, slice):
            r = self._range(key)
            if isinstance(value, Iterable):
                values = [as_index(v, "memory value") for v in value]
                if len(values) != len(r):
                    raise InvalidArgumentError("slice does not match length of data")
            else:
                values = [as_index(value, "memory value")] * len(r)
            for a, v in zip(r, values):
                mem[a] = v
            return
        mem[as_index(key, "address")] = as_index(value, "memory value")

    @staticmethod
    def _values(value: Any, n: int) -> list[int]:
        if isinstance(value, Iterable):
            values = [as_index(v, "memory value") for v in value]
            if len(values) != n:
                raise InvalidArgumentError("slice does not match length of data")
        else:
            values = [as_index(value, "memory value")] * n
        if not all(0 <= v <= 0xFF for v in values):
            raise InvalidArgumentError("a byte value must be in 0..=255")
        return values

    def _patch(self, bank: int, r: range, value: Any) -> None:
        """``memory[bank, addr] = v`` at 0x0000-0x7FFF: PyBoy's ROM override (``bank`` -1:
        the boot ROM). The byte is what the CPU then reads there (this machine's copy of
        the ROM is patched); like PyBoy's overrides, patches are not part of save states."""
        owner = self._owner
        first, last = r[0], r[-1]
        values = self._values(value, len(r))
        if bank == -1:
            boot = self._gb._boot_rom
            if boot is None:
                raise NotSupportedError(
                    "memory[-1, addr] = v: this emurust.PyBoy has no boot ROM (pass bootrom=)"
                )
            if last > 0xFF:
                raise InvalidAddressError("Start address out of range for bootrom")
            patched = bytearray(boot)
            for a, v in zip(r, values):
                patched[a] = v
            self._gb._patch_boot_rom(0, bytes(patched))
            owner._boot_rom = bytes(patched)
            return
        start = self._rom_offset(bank, first, last)
        rom = bytearray(owner._rom)
        for a, v in zip(r, values):
            rom[start + a - first] = v
        self._gb._patch_rom(start, bytes(rom[start : start + last - first + 1]))
        owner._rom = bytes(rom)

    def _rom_offset(self, bank: int, first: int, last: int) -> int:
        """Where ``memory[bank, first..=last]`` (0x0000-0x7FFF) starts in the ROM image,
        with PyBoy's errors for a bank the ROM lacks or a range that leaves the bank."""
        banks = self._owner._rom_banks
        if bank < 0 or bank >= banks:
            raise InvalidAddressError(f"ROM bank {bank} out of range (the ROM has {banks} banks)")
        base = 0x4000 if first >= 0x4000 else 0
        if last - base >= 0x4000:
            raise InvalidAddressError("Out of bounds for reading ROM bank")
        return bank * 0x4000 + first - base

    def _cgb_bank(self, region: str, bank: int, r: range, addr: Memoryish, value: Any) -> Any:
        """``memory[bank, addr]`` on a CGB at 0x8000-0x9FFF (VRAM banks 0-1) or 0xC000-0xDFFF
        (WRAM banks 0-7; as in PyBoy, 0xC000-0xCFFF and 0xD000-0xDFFF both address the
        bank's 4 KiB, so ``memory[0, 0xD000]`` is bank 0's first byte, the one at 0xC000),
        whatever VBK/SVBK select; the range stays within one bank."""
        base, size, banks = (0x8000, 0x2000, 2) if region == "vram" else (0xC000, 0x1000, 8)
        if not 0 <= bank < banks:
            raise InvalidAddressError(f"{region.upper()} Bank out of range")
        first = (r.start - base) % size
        end = first + (r[-1] - r.start) + 1
        if end > size:
            raise InvalidAddressError(f"Out of bounds for reading {region.upper()} bank")
        if value is None:
            data = self._gb._read_bank(region, bank, first, end - first)
            out = list(data[:: r.step])
            return out if isinstance(addr, slice) else out[0]
        values = self._values(value, len(r))
        if r.step == 1:
            self._gb._write_bank(region, bank, first, bytes(values))
        else:
            for a, v in zip(r, values):
                self._gb._write_bank(region, bank, (a - base) % size, bytes([v]))
        return None

    def _banked(self, bank: object, addr: Memoryish, value: Any) -> Any:
        if not isinstance(bank, int):
            raise InvalidArgumentError("Bank has to be integer. Slicing is not supported.")
        if isinstance(addr, slice):
            r = self._range(addr)
            first = r.start
        else:
            first = as_index(addr, "address")
            r = range(first, first + 1)
        if not 0 <= first <= 0xFFFF:
            raise InvalidAddressError(f"address {first:#06x} is outside 0x0000..=0xFFFF")
        last = r[-1]
        owner = self._owner
        if first < 0x8000:
            if value is not None:
                self._patch(bank, r, value)
                return None
            if bank == -1:
                boot = owner._boot_rom
                if boot is None:
                    raise NotSupportedError(
                        "memory[-1, addr]: this emurust.PyBoy has no boot ROM (pass bootrom=)"
                    )
                if last > 0xFF:
                    raise InvalidAddressError("Start address out of range for bootrom")
                out = [boot[a] for a in r]
            else:
                start = self._rom_offset(bank, first, last)
                out = [owner._rom[start + a - first] for a in r]
        elif first < 0xA000:
            if owner._cgb:
                return self._cgb_bank("vram", bank, r, addr, value)
            if bank != 0:
                raise InvalidArgumentError("Selecting bank of VRAM is only supported for CGB mode")
            if last >= 0xA000:
                raise InvalidAddressError("Out of bounds for reading VRAM bank")
            if value is not None:
                self[r.start : r.stop : r.step] = value
                return None
            out = self[r.start : r.stop : r.step]
        elif first < 0xC000:
            if last >= 0xC000:
                raise InvalidAddressError("Out of bounds for reading cartridge RAM bank")
            ram = bytearray(self._gb.cartridge_ram)
            size = owner._cart_ram_size
            offsets = [bank * 0x2000 + a - 0xA000 for a in r]
            if bank < 0 or not offsets or offsets[-1] >= size:
                raise InvalidAddressError(
                    f"cartridge RAM bank {bank}, address {last:#06x} is outside the "
                    f"cartridge's {size} bytes of RAM"
                )
            if value is None:
                out = [ram[o] for o in offsets]
            else:
                values = (
                    [as_index(v, "memory value") for v in value]
                    if isinstance(value, Iterable)
                    else [as_index(value, "memory value")] * len(offsets)
                )
                if len(values) != len(offsets):
                    raise InvalidArgumentError("slice does not match length of data")
                for o, v in zip(offsets, values):
                    if not 0 <= v <= 0xFF:
                        raise InvalidArgumentError(f"byte value {v} is outside 0..=255")
                    ram[o] = v
                self._gb.load_cartridge_ram(bytes(ram))
                return None
        elif first < 0xE000 and owner._cgb:
            return self._cgb_bank("wram", bank, r, addr, value)
        elif first < 0xE000:
            # The DMG's WRAM: bank 0 (and bank 1 for 0xD000-0xDFFF, its fixed second bank).
            if last >= 0xE000:
                raise InvalidAddressError("Out of bounds for reading WRAM bank")
            if not (bank == 0 or (bank == 1 and first >= 0xD000)):
                raise InvalidArgumentError("Selecting bank of WRAM is only supported for CGB mode")
            if value is not None:
                self[r.start : r.stop : r.step] = value
                return None
            out = self[r.start : r.stop : r.step]
        else:
            raise InvalidAddressError("Invalid memory address for bank")
        return out if isinstance(addr, slice) else out[0]
