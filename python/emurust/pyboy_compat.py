"""``emurust.PyBoy``: PyBoy 2.x's API on the emurust core, for RL code written against PyBoy.

Replace ``from pyboy import PyBoy`` with ``from emurust import PyBoy``. The class follows
PyBoy 2.8.1's behaviour: frames end where PyBoy's ``tick()`` ends them (LY 153 -> 0), buttons
and ``send_input`` events are queued and applied at the start of a frame as PyBoy does,
``screen.ndarray`` is a (144, 160, 4) RGBA array in PyBoy's default colours updated in place,
``memory`` reads and writes the address space and its banks, hooks run a callback before the
instruction at a ``(bank, address)``, and ``load_state`` reads PyBoy's own save states. What
differs, and what is not supported (it raises ``NotImplementedError`` naming the feature), is
listed in docs/pyboy.md. This module does not import PyBoy.
"""

from __future__ import annotations

import heapq
import io
import os
import random
import re
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, SupportsIndex, Union, cast

import numpy as np
import numpy.typing as npt
from typing_extensions import Self

from emurust._core import EmuRustWarning
from emurust._gameboy import GameBoy, read_state
from emurust._pyboy_adapter import PYBOY_GREYS
from emurust.pyboy._boot import boot_rom

# emurust.PyBoy raises exceptions that are both PyBoy's (pyboy.utils) and emurust's own:
# the names InvalidArgumentError and InvalidAddressError are bound here to those twins
# (InvalidInputError is a PyBoyInvalidInputException and an emurust.InvalidArgumentError,
# OutOfBoundsError a PyBoyOutOfBoundsException and an emurust.InvalidAddressError).
from emurust.pyboy._errors import InvalidInputError as InvalidArgumentError
from emurust.pyboy._errors import (
    InvalidInputTypeError,
    InvalidMemoryOperationError,
    InvalidOperationError,
    NotSupportedError,
    PyBoyStateError,
    translate,
)
from emurust.pyboy._errors import OutOfBoundsError as InvalidAddressError
from emurust.pyboy._events import WindowEvent
from emurust.pyboy._log import Log
from emurust.pyboy.api.gameshark import GameShark
from emurust.pyboy.api.memory_scanner import MemoryScanner
from emurust.pyboy.api.screen import Screen
from emurust.pyboy.api.sound import Sound
from emurust.pyboy.api.sprite import Sprite
from emurust.pyboy.api.tile import Tile
from emurust.pyboy.api.tilemap import TileMap
from emurust.pyboy.utils import PyBoyException

if TYPE_CHECKING:
    from emurust.pyboy.plugins.base_plugin import PyBoyGameWrapper

__all__ = ["PyBoy", "PyBoyMemoryView", "PyBoyRegisterFile", "WindowEvent"]

_EMURUST_STATE_MAGIC = b"EMURUST\0"
_DEFAULT_PALETTE = tuple(g << 16 | g << 8 | g for g in PYBOY_GREYS)
_WINDOWS = ("SDL2", "OpenGL", "GLFW", "null", "headless", "dummy")
_HEADLESS = ("null", "headless", "dummy")
# PyBoy's plugin keyword arguments (pyboy --help); truthy values are not supported here.
_PLUGIN_KWARGS = (
    "autopause",
    "breakpoints",
    "printer",
    "printer_output",
    "record_input",
    "rewind",
    "game_wrapper",
    "debug",
    "sound",
)
# PyBoy's cartridge classes by type byte, and its RAM banks by header byte 0x149
# (pyboy/core/cartridge/cartridge.py); used for .ram files in PyBoy's layout.
_BATTERY_TYPES = frozenset({0x03, 0x06, 0x09, 0x0F, 0x10, 0x13, 0x1B, 0x1E})
_RTC_TYPES = frozenset({0x0F, 0x10})
_RAM_BANKS = {0: 1, 1: 1, 2: 1, 3: 4, 4: 16, 5: 8}
_MBC2_TYPES = frozenset({0x05, 0x06})

Memoryish = Union[int, slice]


# Button name -> (press event, release event, emurust button).
_BUTTON_EVENTS = {
    "up": (WindowEvent.PRESS_ARROW_UP, WindowEvent.RELEASE_ARROW_UP),
    "down": (WindowEvent.PRESS_ARROW_DOWN, WindowEvent.RELEASE_ARROW_DOWN),
    "right": (WindowEvent.PRESS_ARROW_RIGHT, WindowEvent.RELEASE_ARROW_RIGHT),
    "left": (WindowEvent.PRESS_ARROW_LEFT, WindowEvent.RELEASE_ARROW_LEFT),
    "a": (WindowEvent.PRESS_BUTTON_A, WindowEvent.RELEASE_BUTTON_A),
    "b": (WindowEvent.PRESS_BUTTON_B, WindowEvent.RELEASE_BUTTON_B),
    "select": (WindowEvent.PRESS_BUTTON_SELECT, WindowEvent.RELEASE_BUTTON_SELECT),
    "start": (WindowEvent.PRESS_BUTTON_START, WindowEvent.RELEASE_BUTTON_START),
}
_EVENT_BUTTON: dict[int, tuple[str, bool]] = {}
for _name, (_press, _release) in _BUTTON_EVENTS.items():
    _EVENT_BUTTON[_press] = (_name, True)
    _EVENT_BUTTON[_release] = (_name, False)
_SUPPORTED_EVENTS = frozenset(
    set(_EVENT_BUTTON)
    | {
        WindowEvent.QUIT,
        WindowEvent.PASS,
        WindowEvent.PAUSE,
        WindowEvent.UNPAUSE,
        WindowEvent.PAUSE_TOGGLE,
        WindowEvent.RELEASE_SPEED_UP,
        WindowEvent.STATE_LOAD,
        WindowEvent.STATE_SAVE,
        WindowEvent.CYCLE_PALETTE,
        WindowEvent.SCREENSHOT_RECORD,
        WindowEvent.SCREEN_RECORDING_TOGGLE,
    }
)
# PyBoy 2.8.1's named DMG palettes, in the order WindowEvent.CYCLE_PALETTE goes through them.
_DMG_PALETTES = (
    ("SameBoy DMG", (0xC6DE8C, 0x84A563, 0x396139, 0x081810)),
    ("Classic Green", (0x9BBC0F, 0x8BAC0F, 0x306230, 0x0F380F)),
    ("Parchment", (0xE0DBCD, 0xA89F94, 0x706B64, 0x2B2B26)),
    ("Mossy", (0xC4CFA1, 0x8B956D, 0x4D533C, 0x1F1F1C)),
    ("Grey", (0xFFFFFF, 0x999999, 0x555555, 0x000000)),
)


def _index(value: object, what: str) -> int:
    try:
        return int(cast(SupportsIndex, value).__index__())
    except (AttributeError, TypeError):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}") from None


def _rom_bytes(gamerom: object) -> tuple[bytes, str | None]:
    if isinstance(gamerom, (str, os.PathLike)):
        path = os.fspath(gamerom)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"ROM file {path} was not found!")
        with open(path, "rb") as f:
            return f.read(), str(path)
    read = getattr(gamerom, "read", None)
    if read is None:
        raise InvalidInputTypeError(
            "gamerom must be a path (str or os.PathLike) or a binary file-like object, not "
            f"{type(gamerom).__name__}"
        )
    data = read()
    if not isinstance(data, (bytes, bytearray)):
        raise InvalidInputTypeError("gamerom's read() must return bytes (open the file with 'rb')")
    return bytes(data), None


# PyBoy gives MBC1, MBC3 and MBC5 cartridges the RAM banks of the header's RAM size code
# (at least one 8 KiB bank), whether or not the cartridge type has RAM: the type with RAM
# of each, for building the machine (the ROM then gets its own header bytes back).
_WITH_RAM = {0x01: 0x02, 0x0F: 0x10, 0x11: 0x12, 0x19: 0x1A, 0x1C: 0x1D}
_RAM_TYPES = frozenset({0x02, 0x03, 0x10, 0x12, 0x13, 0x1A, 0x1B, 0x1D, 0x1E})


def _with_pyboys_ram(rom: bytes) -> bytes:
    """``rom`` with the header bytes that make emurust give it the cartridge RAM PyBoy
    gives it (``rom`` itself when they already agree)."""
    if len(rom) <= 0x149:
        return rom
    kind, size = rom[0x147], rom[0x149]
    if kind not in _WITH_RAM and not (kind in _RAM_TYPES and size == 1):
        return rom
    patched = bytearray(rom)
    patched[0x147] = _WITH_RAM.get(kind, kind)
    if size in (0, 1):
        patched[0x149] = 2  # one 8 KiB bank, as PyBoy's table gives codes 0 to 2
    return bytes(patched)


# PyBoy 2.8.1's default cgb_color_palette: background, object palette 0, object palette 1.
_DEFAULT_CGB_PALETTES = (
    (0xFFFFFF, 0x7BFF31, 0x0063C5, 0x000000),
    (0xFFFFFF, 0xFF8484, 0x943A3A, 0x000000),
    (0xFFFFFF, 0xFF8484, 0x943A3A, 0x000000),
)


def _pick_cgb(cgb: object, rom: bytes, boot: bytes | None) -> bool:
    """Whether PyBoy 2.8.1 builds a CGB: ``cgb=None`` follows the cartridge's header byte
    0x143 (bit 7), or with a boot ROM given, whether that boot ROM is a CGB's (longer than
    256 bytes); ``True``/``False`` force it, and a given boot ROM must then be of that
    machine (``InvalidOperationError`` otherwise, as in PyBoy)."""
    if cgb is None:
        if boot is not None:
            return len(boot) > 0x100
        return len(rom) > 0x143 and bool(rom[0x143] & 0x80)
    chosen = bool(cgb)
    if boot is not None and (len(boot) > 0x100) != chosen:
        raise InvalidOperationError("Invalid bootrom for emulation-mode")
    return chosen


def _cgb_palettes(palettes: Any) -> tuple[tuple[int, ...], ...]:
    """``cgb_color_palette``: three palettes (background, object 0, object 1) of four
    0xRRGGBB colours, PyBoy's default for ``None``."""
    if palettes is None:
        return _DEFAULT_CGB_PALETTES
    try:
        out = tuple(tuple(_index(c, "cgb_color_palette colour") for c in p) for p in palettes)
    except TypeError:
        raise InvalidArgumentError(
            "cgb_color_palette must be three palettes of four 0xRRGGBB colours"
        ) from None
    if len(out) != 3 or any(len(p) != 4 or not all(0 <= c <= 0xFFFFFF for c in p) for p in out):
        raise InvalidArgumentError(
            "cgb_color_palette must be three palettes of four 0xRRGGBB colours"
        )
    return out


def _cartridge_title(rom: bytes) -> str:
    """The title as PyBoy reads it: 0x134 up to 0x143 (0x142 for CGB-flagged ROMs), up to
    the first NUL."""
    end = 0x142 if len(rom) > 0x143 and rom[0x143] >> 7 else 0x143
    return "".join(chr(b) for b in rom[0x134:end]).split("\0")[0]


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
        value = _index(value, f"register {name}")
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
        start, stop = _index(key.start, "slice start"), _index(key.stop, "slice stop")
        step = 1 if key.step is None else _index(key.step, "slice step")
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
        return self._gb.memory[_index(key, "address")]

    def __setitem__(self, key: Any, value: Any) -> None:
        if isinstance(key, tuple):
            bank, addr = key
            self._banked(bank, addr, value)
            return
        mem = self._gb.memory
        if isinstance(key, slice):
            r = self._range(key)
            if isinstance(value, Iterable):
                values = [_index(v, "memory value") for v in value]
                if len(values) != len(r):
                    raise InvalidArgumentError("slice does not match length of data")
            else:
                values = [_index(value, "memory value")] * len(r)
            for a, v in zip(r, values):
                mem[a] = v
            return
        mem[_index(key, "address")] = _index(value, "memory value")

    @staticmethod
    def _values(value: Any, n: int) -> list[int]:
        if isinstance(value, Iterable):
            values = [_index(v, "memory value") for v in value]
            if len(values) != n:
                raise InvalidArgumentError("slice does not match length of data")
        else:
            values = [_index(value, "memory value")] * n
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
            first = _index(addr, "address")
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
                    [_index(v, "memory value") for v in value]
                    if isinstance(value, Iterable)
                    else [_index(value, "memory value")] * len(offsets)
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


class PyBoy:
    """PyBoy 2.x's ``PyBoy`` class on the emurust core (see the module docstring and
    docs/pyboy.md). Arguments as PyBoy's; headless only (``window="null"``, the default).
    ``cgb`` as in PyBoy: ``None`` picks the Game Boy Color for a cartridge whose header byte
    0x143 has bit 7 set (or, with ``bootrom=``, when the boot ROM is longer than 256 bytes),
    ``True`` / ``False`` force the CGB / the DMG; a CGB starts from its post-boot state (no
    boot ROM runs)."""

    def __init__(
        self,
        gamerom: str | os.PathLike[str] | IO[bytes],
        *,
        ram_file: IO[bytes] | None = None,
        rtc_file: IO[bytes] | None = None,
        window: str = "null",
        scale: int = 3,
        symbols: str | os.PathLike[str] | None = None,
        bootrom: str | os.PathLike[str] | None = None,
        sound_volume: int = 100,
        sound_emulated: bool = False,
        sound_sample_rate: int | None = None,
        cgb: bool | None = None,
        gameshark: str | None = None,
        no_input: bool = False,
        log_level: str = "WARNING",
        color_palette: Sequence[int] = _DEFAULT_PALETTE,
        cgb_color_palette: Sequence[Sequence[int]] | None = None,
        title_status: bool = False,
        serial_shared_memory: Any = None,
        serial_interrupt_based: bool = False,
        sgb_border: bool = False,
        **kwargs: Any,
    ) -> None:
        self.stopped = False
        self.initialized = False
        if window not in _WINDOWS:
            raise KeyError(
                f'Unknown window type: {window}. Use "SDL2", "OpenGL", "GLFW", or "null"'
            )
        if window not in _HEADLESS:
            raise NotSupportedError(f"window={window!r}: emurust.PyBoy runs headless only")
        self._log = Log(log_level)
        if window in ("headless", "dummy"):
            self._log.log(
                "pyboy.plugins.window_null",
                "ERROR",
                'Deprecated use of "headless" or "dummy" window. Change to "null" window '
                "instead. https://github.com/Baekalfen/PyBoy/wiki/Migrating-from-v1.x.x-to-v2.0.0",
            )
        randomize = bool(kwargs.pop("randomize", False))  # PyBoy's undocumented option
        for name, value in kwargs.items():
            if name not in _PLUGIN_KWARGS:
                raise KeyError(f"Unknown keyword argument: {name}")
            if value:
                raise NotSupportedError(f"{name}={value!r} (a PyBoy plugin) is not supported")
        if serial_shared_memory is not None:
            raise NotSupportedError("serial_shared_memory (link cable) is not supported")
        if sgb_border:
            raise NotSupportedError("sgb_border=True: SGB features are not emulated")
        if rtc_file is not None:
            raise NotSupportedError("rtc_file: PyBoy's .rtc files are not read")
        if not 0 <= sound_volume <= 100:
            raise InvalidArgumentError("Sound volume has to be between 0 and 100.")

        data, path = _rom_bytes(gamerom)
        self.gamerom: str | None = path
        self._rom = data
        self._rom_banks = max(1, len(data) // 0x4000)
        user_boot = None if bootrom is None else Path(os.fspath(bootrom)).read_bytes()
        self._cgb = _pick_cgb(cgb, data, user_boot)
        self._cgb_palettes = _cgb_palettes(cgb_color_palette)
        # Without bootrom=, emurust's own DMG boot ROM runs (PyBoy runs its own): the game
        # starts at PyBoy's cycle, in PyBoy's post-boot state (emurust/pyboy/_boot.py). A
        # CGB starts from its post-boot state: emurust has no CGB boot ROM of PyBoy's timing;
        # a CGB boot ROM given as bootrom= (2,304 bytes) runs.
        self._default_boot = bootrom is None
        if self._cgb:
            self._boot_rom: bytes | None = user_boot
        elif user_boot is None:
            self._boot_rom = boot_rom()
        else:
            self._boot_rom = user_boot
        self._sound_emulated = bool(sound_emulated)
        self._sound_last = True
        self._sample_rate = 48000 if sound_sample_rate is None else int(sound_sample_rate)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EmuRustWarning)  # header warnings: PyBoy's too
            self._gb = GameBoy(
                _with_pyboys_ram(data),
                boot_rom=self._boot_rom,
                sound_sample_rate=self._sample_rate if self._sound_emulated else None,
                model="cgb" if self._cgb else "dmg",
            )
        if len(data) > 0x149 and _with_pyboys_ram(data) is not data:
            self._gb._patch_rom(0x147, data[0x147:0x14A])  # the header as the game reads it
        cart_type = data[0x147] if len(data) > 0x147 else 0
        self._battery = cart_type in _BATTERY_TYPES
        self._rtc = cart_type in _RTC_TYPES
        self._mbc2 = cart_type in _MBC2_TYPES
        self._cart_ram_size = len(self._gb.cartridge_ram) - (48 if self._rtc else 0)
        ram_size_code = data[0x149] if len(data) > 0x149 else 0
        self._pyboy_ram_bytes = _RAM_BANKS.get(ram_size_code, 1) * 0x2000
        # As PyBoy: RAM files are read for battery-backed cartridges only.
        if ram_file is None and path is not None and os.path.isfile(path + ".ram"):
            if self._battery:
                with open(path + ".ram", "rb") as f:
                    self._load_ram(f.read())
        elif ram_file is not None and self._battery:
            self._load_ram(ram_file.read())
        if self._rtc and path is not None and os.path.isfile(path + ".rtc"):
            warnings.warn(
                f"{path}.rtc (PyBoy's clock file) is not read: the clock starts at 0",
                EmuRustWarning,
                stacklevel=2,
            )

        if randomize:  # random WRAM and HRAM at power-on, as PyBoy's randomize=True
            rng = random.Random()
            self._gb.memory[0xC000:0xE000] = bytes(rng.getrandbits(8) for _ in range(0x2000))
            self._gb.memory[0xFF80:0xFFFF] = bytes(rng.getrandbits(8) for _ in range(0x7F))

        self.rom_symbols: dict[int, dict[int, list[str]]] = {}
        self.rom_symbols_inverse: dict[str, tuple[int, int]] = {}
        if symbols is not None and not os.path.isfile(os.fspath(symbols)):
            raise FileNotFoundError(f"Symbols file {os.fspath(symbols)} was not found!")
        self.symbols_file = None if symbols is None else os.fspath(symbols)
        self._load_symbols()

        self.frame_count = 0
        self.target_emulationspeed = 0
        self.paused = False
        self.quitting = False
        self.events: list[int] = []
        self.queued_input: list[tuple[int, int]] = []
        self._hooks: dict[tuple[int, int], tuple[Callable[[Any], Any], Any]] = {}
        self._serial_read = 0
        self.cartridge_title = _cartridge_title(data)
        self._mem = self._gb.memory  # the native view, kept (each access makes a new one)
        self.screen = Screen(self)
        self._gb._record_line_registers(True)  # for screen.tilemap_position_list
        if self._cgb:
            self.screen._set_cgb_palettes(
                self._cgb_palettes, self._gb.cgb_mode, follow=self._boot_rom is not None
            )
            self.screen._update()
        else:
            self.set_color_palette(color_palette)
        self.register_file = PyBoyRegisterFile(self._gb)
        self.memory = PyBoyMemoryView(self)
        self.tilemap_background = TileMap(self, "BACKGROUND")
        self.tilemap_window = TileMap(self, "WINDOW")
        self.sound = Sound(self)
        self._game_wrapper: PyBoyGameWrapper | None = None
        self._palette_index = 0
        self._recording: list[Any] | None = None
        self.memory_scanner = MemoryScanner(self)
        self.gameshark = GameShark(self.memory)
        if gameshark:
            for code in gameshark.split(","):
                self.gameshark.add(code.strip())
        self.initialized = True

    # ---- emulation ------------------------------------------------------------------

    def tick(self, count: int = 1, render: bool = True, sound: bool = True) -> bool:
        """Runs ``count`` frames (PyBoy's frames: each ends as LY wraps from 153 to 0),
        drawing the last one if ``render``; queued inputs are applied at the start of the
        frame they are due in, hooks run their callbacks. Returns False once a ``QUIT`` event
        was handled, as PyBoy does (and False for ``count=0``)."""
        if self.stopped:
            raise InvalidOperationError("Emulator is stopped")
        try:
            left = _index(count, "count")
        except TypeError:
            raise InvalidArgumentError("count must be a non-negative integer") from None
        if left < 0:
            raise InvalidArgumentError("count must be a non-negative integer")
        running = False
        rendered = False
        while left > 0:
            self._handle_events()
            if self.paused:
                n = 1
            else:
                # Frames up to the next queued input run in one call.
                n = left
                if self.queued_input:
                    n = max(1, min(n, self.queued_input[0][0] - self.frame_count))
                self._run(n, render and n == left, sound and n == left)  # counts frames
                rendered = rendered or (render and n == left)
            left -= n
            running = not self.quitting
            self._post_handle_events()
        if rendered:
            self.screen._update()
        self._post_tick()
        return running

    def _run(self, frames: int, render: bool, sound: bool = False) -> None:
        """Runs ``frames`` frames, drawing the last if ``render`` and calling the hooks they
        hit; ``frame_count`` counts each frame as it ends (so a hook sees the frames
        completed before its own, and the frames before a hook that raised or a Ctrl-C
        count). As in PyBoy, sound is sampled in the last frame only, when ``sound``;
        GameShark codes are written before every frame."""
        gb = self._gb
        sampled = self._sound_emulated and sound
        if self._sound_emulated and gb.sound_sample_rate is not None:
            gb.sound_sample_rate = None  # frames before the last are not sampled
        self._sound_last = sampled
        per_frame = self.gameshark.enabled
        while frames > 0:
            n = 1 if per_frame else frames
            if sampled and n == frames > 1:
                n -= 1  # the last frame runs on its own, sampled
            if sampled and n == frames:
                gb.sound_sample_rate = self._sample_rate
            if per_frame:
                self.gameshark.tick()
            last = n == frames
            while n > 0:
                before = gb.frame_count
                try:
                    done, hit = gb._pyboy_tick(n, render and last)
                except BaseException:  # Ctrl-C: the frames that ran before it still count
                    self.frame_count += gb.frame_count - before
                    raise
                n -= done
                frames -= done
                self.frame_count += done
                if hit is not None:
                    callback, context = self._hooks[hit]
                    callback(context)

    def _handle_events(self) -> None:
        for event in self.events:
            button = _EVENT_BUTTON.get(event)
            if button is not None:
                name, press = button
                if press:
                    self._gb.button_press(name)
                else:
                    self._gb.button_release(name)
            elif event == WindowEvent.QUIT:
                self.quitting = True
            elif event == WindowEvent.RELEASE_SPEED_UP:
                self.target_emulationspeed = int(bool(self.target_emulationspeed) ^ True)
            elif event == WindowEvent.PAUSE:
                self.paused = True
            elif event == WindowEvent.UNPAUSE:
                self.paused = False
            elif event == WindowEvent.PAUSE_TOGGLE:
                self.paused = not self.paused
            elif event == WindowEvent.STATE_LOAD:
                self._state_load_event()
            elif event == WindowEvent.STATE_SAVE:
                self._state_save_event()
            elif event == WindowEvent.CYCLE_PALETTE:
                name, palette = _DMG_PALETTES[self._palette_index % len(_DMG_PALETTES)]
                self._palette_index += 1
                self.set_color_palette(palette)
                self._log.log("pyboy.pyboy", "INFO", f"Palette: {name}")
            elif event == WindowEvent.SCREENSHOT_RECORD:
                self._screenshot()
            elif event == WindowEvent.SCREEN_RECORDING_TOGGLE:
                self._toggle_recording()

    def _state_save_event(self) -> None:
        """``WindowEvent.STATE_SAVE``: PyBoy writes ``<gamerom>.state`` in its format."""
        if self.gamerom is None:
            self._log.log(
                "pyboy.pyboy",
                "ERROR",
                "Failed to save game state. PyBoy is loaded without a filepath.",
            )
            return
        with open(self.gamerom + ".state", "wb") as f:
            self.save_state(f, state_format="pyboy")

    def _screenshot(self) -> None:
        """``WindowEvent.SCREENSHOT_RECORD``: the screen as a PNG in ``screenshots/``."""
        directory = os.path.join(os.path.curdir, "screenshots")
        os.makedirs(directory, mode=0o755, exist_ok=True)
        path = os.path.join(
            directory, time.strftime(f"{self.cartridge_title}-%Y.%m.%d-%H.%M.%S.png")
        )
        self.screen.image.save(path)
        self._log.log("pyboy.plugins.screenshot_recorder", "INFO", f"Screenshot saved in {path}")

    def _toggle_recording(self) -> None:
        """``WindowEvent.SCREEN_RECORDING_TOGGLE``: the screen after every ``tick`` until
        the next toggle, then saved as a GIF in ``recordings/``."""
        name = "pyboy.plugins.screen_recorder"
        if self._recording is None:
            self._recording = []
            return
        frames, self._recording = self._recording, None
        self._log.log(name, "INFO", "ScreenRecorder saving...")
        if not frames:
            self._log.log(name, "ERROR", "Screen recording failed: no frames")
            return
        directory = os.path.join(os.path.curdir, "recordings")
        os.makedirs(directory, mode=0o755, exist_ok=True)
        path = os.path.join(
            directory, time.strftime(f"{self.cartridge_title}-%Y.%m.%d-%H.%M.%S.gif")
        )
        frames[0].save(
            path,
            save_all=True,
            interlace=False,
            loop=0,
            optimize=True,
            append_images=frames[1:],
            duration=20,
        )
        self._log.log(name, "INFO", f"Screen recording saved in {path}")

    def _post_tick(self) -> None:
        if self._recording is not None:
            self._recording.append(self.screen.image.copy())

    def _state_load_event(self) -> None:
        """``WindowEvent.STATE_LOAD``: PyBoy loads ``<gamerom>.state``."""
        path = None if self.gamerom is None else self.gamerom + ".state"
        if path is None or not os.path.isfile(path):
            warnings.warn(
                f"STATE_LOAD: no state file {path or '(the ROM was not given by path)'}",
                EmuRustWarning,
                stacklevel=3,
            )
            return
        with open(path, "rb") as f:
            self.load_state(f)

    def _post_handle_events(self) -> None:
        self.events = []
        while self.queued_input and self.frame_count == self.queued_input[0][0]:
            _, event = heapq.heappop(self.queued_input)
            self.events.append(event)

    def set_emulation_speed(self, target_speed: int) -> None:
        """Stored as PyBoy stores it; like PyBoy's null window, emurust.PyBoy never sleeps."""
        self.target_emulationspeed = target_speed

    # ---- input ----------------------------------------------------------------------

    def _button_events(self, input: str) -> tuple[int, int]:
        if not isinstance(input, str):
            raise TypeError(f"button name must be a str, not {type(input).__name__}")
        events = _BUTTON_EVENTS.get(input.lower())
        if events is None:
            raise InvalidArgumentError(f"Unrecognized input: {input}")
        return events

    def button(self, input: str, delay: int = 1) -> None:
        """Presses ``input`` at the start of the next frame and releases it ``delay`` frames
        later (PyBoy's ``button``)."""
        press, release = self._button_events(input)
        delay = _index(delay, "delay")  # checked now: a bad delay never leaves A held
        if delay < 0:
            raise InvalidArgumentError(f"delay must be a non-negative int (frames), not {delay}")
        self.send_input(press)
        self.send_input(release, delay)

    def button_press(self, input: str) -> None:
        self.send_input(self._button_events(input)[0])

    def button_release(self, input: str) -> None:
        self.send_input(self._button_events(input)[1])

    def send_input(self, event: int, delay: int = 0) -> None:
        """Queues a ``WindowEvent`` for the start of the next frame, or ``delay`` frames
        later."""
        event = _index(event, "event")
        if event not in _SUPPORTED_EVENTS:
            raise NotSupportedError(
                f"send_input({WindowEvent(event)}): only button, QUIT, PASS, pause, speed, "
                "state, palette, screenshot and GIF recording events are supported"
            )
        if delay:
            if not delay > 0:
                raise InvalidArgumentError("Only positive integers allowed")
            heapq.heappush(self.queued_input, (self.frame_count + delay, event))
        else:
            self.events.append(event)

    # ---- state ----------------------------------------------------------------------

    def save_state(self, file_like_object: IO[bytes], *, state_format: str = "emurust") -> None:
        """Writes the machine's state to a binary file-like object: emurust's own format
        (the default; ``load_state`` reads it, PyBoy cannot), or with
        ``state_format="pyboy"`` PyBoy 2.8.1's, which PyBoy loads and continues from as it
        would from its own (written at a frame end, as ``tick`` leaves the machine; the
        sound section is a ``sound_emulated=False`` PyBoy's: docs/pyboy.md)."""
        _check_binary(file_like_object, "save_state")
        if state_format == "pyboy":
            try:
                data = self._gb.save_pyboy_state()
            except Exception as e:
                twin = translate(e)
                if twin is e:
                    raise
                raise twin from None
        elif state_format == "emurust":
            data = self._gb.save_state()
        else:
            raise InvalidArgumentError(
                f"state_format must be 'emurust' or 'pyboy', not {state_format!r}"
            )
        file_like_object.write(data)

    def load_state(self, file_like_object: IO[bytes]) -> None:
        """Reads a state from a binary file-like object: one written by :meth:`save_state`,
        or one written by PyBoy 2.8.1's ``save_state`` (``InvalidStateError`` names the
        problem with any other). As in PyBoy, a state saved while another ROM was running
        loads too, provided the cartridges have the same memory bank controller and RAM
        size (the usual way to start many ROMs from one point)."""
        _check_binary(file_like_object, "load_state")
        data = read_state(file_like_object, "load_state")  # bounded: not /dev/zero
        try:
            if data.startswith(_EMURUST_STATE_MAGIC):
                self._gb.load_state(data, check_rom=False)
            else:
                if self._default_boot and len(data) > 1 and data[1]:
                    raise PyBoyStateError(
                        "this PyBoy state was saved while PyBoy's boot ROM was running; "
                        "emurust's boot ROM is another program and cannot continue it "
                        "(save the state after the boot, or pass PyBoy's boot ROM as bootrom=)"
                    )
                self._gb.load_pyboy_state(data)
        except Exception as e:
            twin = translate(e)
            if twin is e:
                raise
            raise twin from None
        self.screen._update()

    def _set_div(self, value: int) -> None:
        """Sets DIV (the timer's system counter's high byte), keeping its low byte, with no
        side effect of the jump (PyBoy's game wrappers set DIV so)."""
        self._gb._set_div(value & 0xFF)

    def stop(
        self, save: bool = True, ram_file: IO[bytes] | None = None, rtc_file: Any = None
    ) -> None:
        """Stops the emulator; with ``save`` and a battery-backed cartridge, writes the
        cartridge RAM as PyBoy does (to ``ram_file``, or ``<gamerom>.ram`` next to a ROM given
        by path), in PyBoy's layout."""
        if not self.initialized or self.stopped:
            return
        if save and self._battery:
            data = self._ram_file_bytes()
            if ram_file is not None:
                ram_file.write(data)
            elif self.gamerom is not None:
                with open(self.gamerom + ".ram", "wb") as f:
                    f.write(data)
            else:
                warnings.warn(
                    "stop(save=True): the ROM was given as a file object; pass ram_file= to "
                    "save the cartridge RAM",
                    EmuRustWarning,
                    stacklevel=2,
                )
            if self._rtc:
                warnings.warn(
                    "the cartridge clock is not saved (PyBoy's .rtc format is not written)",
                    EmuRustWarning,
                    stacklevel=2,
                )
        self.stopped = True

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _ram_file_bytes(self) -> bytes:
        """The cartridge RAM in PyBoy's .ram layout: every RAM bank PyBoy allocates for the
        header's size, 8 KiB each (MBC2: its 512 nibbles as 0xF0 | value)."""
        ram = self._gb.cartridge_ram[: self._cart_ram_size]
        if self._mbc2:
            ram = bytes(0xF0 | b for b in ram)
        return ram + bytes(max(0, self._pyboy_ram_bytes - len(ram)))

    def _load_ram(self, data: bytes) -> None:
        size = self._cart_ram_size
        if size == 0:
            return
        if len(data) < self._pyboy_ram_bytes:  # PyBoy fails reading past the end too
            raise InvalidArgumentError(
                f"the .ram file has {len(data)} bytes; this cartridge's RAM in PyBoy's layout "
                f"is {self._pyboy_ram_bytes} bytes"
            )
        ram = bytearray(data[:size].ljust(size, b"\0"))
        if self._mbc2:
            ram = bytearray(b & 0x0F for b in ram)
        if self._rtc:
            ram += self._gb.cartridge_ram[size:]
        self._gb.load_cartridge_ram(bytes(ram))

    # ---- hooks and symbols ----------------------------------------------------------

    def _load_symbols(self) -> None:
        paths: list[str] = []
        if self.gamerom:
            stem, ext = os.path.splitext(self.gamerom)
            paths = [stem + ".sym", stem + ext + ".sym", stem + ".map", stem + ext + ".map"]
        for p in [self.symbols_file, *paths]:
            if p and os.path.isfile(p):
                if p.endswith(".map"):
                    self._load_map_file(p)
                else:
                    self._load_sym_file(p)

    def _add_symbol(self, bank: int, addr: int, label: str) -> None:
        self.rom_symbols.setdefault(bank, {}).setdefault(addr, []).append(label)
        self.rom_symbols_inverse[label] = (bank, addr)

    def _load_sym_file(self, path: str) -> None:
        group = "labels"
        with open(path) as f:
            for raw in f:
                line = raw.strip()
                if not line or line.startswith(";"):
                    continue
                if line.startswith("["):
                    group = line[1:-1]
                    continue
                if group != "labels":
                    continue
                parts = re.split(":| ", line)
                if len(parts) != 3:
                    continue
                try:
                    bank, addr = int(parts[0], 16), int(parts[1], 16)
                except ValueError:
                    continue
                self._add_symbol(bank, addr, parts[2])

    _MAP_SYMBOL = re.compile(r"^\s*([0-9A-Fa-f]{8})\s+(\S+)\s+\S*\s*$")

    def _load_map_file(self, path: str) -> None:
        with open(path) as f:
            for line in f:
                m = self._MAP_SYMBOL.match(line)
                if m is None or m.group(2) in self.rom_symbols_inverse:
                    continue
                self._add_symbol(0, int(m.group(1), 16), m.group(2))

    def symbol_lookup(self, symbol: str) -> tuple[int, int]:
        """``(bank, address)`` of a label of the loaded ``.sym``/``.map`` file (ValueError if
        unknown)."""
        found = self.rom_symbols_inverse.get(symbol)
        if found is None:
            raise ValueError(f"Symbol not found: {symbol}")
        return found

    def hook_register(
        self, bank: int | None, addr: int | str, callback: Callable[[Any], Any], context: Any
    ) -> None:
        """Calls ``callback(context)`` each time the CPU is about to execute the instruction
        at ``addr`` in ``bank`` (``bank=None`` and a symbol name for ``addr`` look it up).
        Memory is not modified (PyBoy writes opcode 0xDB there)."""
        bank, addr = self._hook_target(bank, addr)
        if (bank, addr) in self._hooks:
            raise ValueError("Hook already registered for this bank and address.")
        self.memory[bank, addr]  # the bank and address must exist, as in PyBoy
        self._gb._hook_add(bank, addr)
        self._hooks[(bank, addr)] = (callback, context)

    def hook_deregister(self, bank: int | None, addr: int | str) -> None:
        bank, addr = self._hook_target(bank, addr)
        if self._hooks.pop((bank, addr), None) is None:
            raise ValueError("Breakpoint not found for bank and addr")
        self._gb._hook_remove(bank, addr)

    def _hook_target(self, bank: int | None, addr: int | str) -> tuple[int, int]:
        if bank is None and isinstance(addr, str):
            return self.symbol_lookup(addr)
        if bank is None or isinstance(addr, str):
            raise InvalidArgumentError("give a bank and an address, or None and a symbol name")
        b, a = _index(bank, "bank"), _index(addr, "address")
        if not 0 <= a <= 0xFFFF:
            raise InvalidAddressError(f"address {a:#x} is outside 0x0000..=0xFFFF")
        return b, a

    # ---- the rest of PyBoy's API ----------------------------------------------------

    def set_color_palette(self, palette: Sequence[int]) -> None:
        """Four 0xRRGGBB colours, lightest first (PyBoy's ``set_color_palette``; DMG only,
        ``InvalidOperationError`` on a CGB as in PyBoy)."""
        if self._cgb:
            raise InvalidOperationError("Palette change is only available in DMG mode")
        colours = [_index(c, "palette colour") for c in palette]
        if len(colours) != 4 or not all(0 <= c <= 0xFFFFFF for c in colours):
            raise InvalidArgumentError("palette must be four 0xRRGGBB colours")
        self._gb.palette = colours
        self.screen._set_palette(colours)
        self.screen._update()

    def _serial(self) -> str:
        """The bytes sent out of the serial port since the last call, as a str."""
        out = self._gb.serial_output
        new, self._serial_read = out[self._serial_read :], len(out)
        return "".join(chr(b) for b in new)

    def _cycles(self) -> int:
        """T-cycles since power-on (PyBoy's ``mb.cpu.cycles``)."""
        return self._gb.cycles

    def printer_image(self) -> None:
        return None

    # ---- observations: game area, sprites, tiles ------------------------------------

    @property
    def game_wrapper(self) -> PyBoyGameWrapper:
        """The game wrapper: PyBoy's generic one (``PyBoyGameWrapper``), for every game."""
        wrapper = self._game_wrapper
        if wrapper is None:
            from emurust.pyboy.plugins.base_plugin import PyBoyGameWrapper

            wrapper = self._game_wrapper = PyBoyGameWrapper(self)
        return wrapper

    def game_area_dimensions(
        self, x: int, y: int, width: int, height: int, follow_scrolling: bool = True
    ) -> None:
        """The section of the tile map that :meth:`game_area` shows: ``width`` x ``height``
        tiles from column ``x``, row ``y``; with ``follow_scrolling``, shifted by each tile
        row's SCX/SCY (taken from :attr:`Screen.tilemap_position_list`, as PyBoy does)."""
        self.game_wrapper._set_dimensions(x, y, width, height, follow_scrolling)

    def game_area_collision(self) -> Any:
        """Only PyBoy's game-specific wrappers have a collision map (AttributeError here)."""
        return self.game_wrapper.game_area_collision()

    def game_area_mapping(self, mapping: Any, sprite_offset: int = 0) -> None:
        """Maps tile identifiers through ``mapping`` (384 or 768 entries; None: identity)
        in :meth:`game_area`, objects' tiles to ``mapping[tile] + sprite_offset``."""
        if mapping is None:
            mapping = list(range(768))
        if not isinstance(sprite_offset, int):
            raise AssertionError("sprite_offset must be an int")
        if not isinstance(mapping, (np.ndarray, list)) or len(mapping) not in (384, 768):
            raise AssertionError("mapping must be a list or ndarray of 384 or 768 entries")
        self.game_wrapper.game_area_mapping(mapping, sprite_offset)

    def game_area(self) -> npt.NDArray[np.uint32]:
        """The game area: a (height, width) uint32 matrix of mapped tile identifiers with the
        objects on screen drawn over it, as PyBoy's ``game_area()`` (the whole 32x32
        background map unless :meth:`game_area_dimensions` says otherwise)."""
        return self.game_wrapper.game_area()

    def get_sprite(self, sprite_index: int) -> Sprite:
        """Object ``sprite_index`` (0..39) as OAM holds it now."""
        return Sprite(self, _index(sprite_index, "sprite_index"))

    def get_sprite_by_tile_identifier(
        self, tile_identifiers: Iterable[int], on_screen: bool = True
    ) -> list[list[int]]:
        """For each tile identifier, the indexes of the objects that use it (in either tile
        of an 8x16 object), only those on screen if ``on_screen``."""
        oam = self._mem[0xFE00:0xFEA0] + bytes([self._mem[0xFF40]])
        sprites = [Sprite(self, i, oam) for i in range(40)]
        matches = []
        for ident in tile_identifiers:
            found = []
            for i, sprite in enumerate(sprites):
                for t in sprite.tiles:
                    if t.tile_identifier == ident and (not on_screen or sprite.on_screen):
                        found.append(i)
            matches.append(found)
        return matches

    def get_tile(self, identifier: int) -> Tile:
        """Tile ``identifier`` (0..383) of VRAM's tile data."""
        return Tile(self, _index(identifier, "identifier"))

    def rtc_lock_experimental(self, enable: bool) -> None:
        """Not supported for clock cartridges (emurust's clock counts emulated time, not
        wall-clock time); ``PyBoyException`` for the others, as in PyBoy."""
        if not self._rtc:
            raise PyBoyException("There's no RTC for this cartridge type")
        raise NotSupportedError(
            "PyBoy.rtc_lock_experimental: emurust's cartridge clock counts emulated time "
            "(never wall-clock time) and cannot be locked"
        )

    def __getattr__(self, name: str) -> Any:
        if name in ("rumble", "sgb"):
            raise NotSupportedError(f"PyBoy.{name} is not supported by emurust.PyBoy")
        raise AttributeError(f"'PyBoy' object has no attribute {name!r}")

    def __repr__(self) -> str:
        return f"<emurust.PyBoy {self.cartridge_title!r} frame={self.frame_count}>"


def _check_binary(f: object, what: str) -> None:
    if isinstance(f, (str, os.PathLike)):
        raise InvalidInputTypeError(
            f"{what} takes a file-like object, not a path (open(path, 'rb'/'wb') first)"
        )
    if isinstance(f, io.TextIOBase):
        raise InvalidInputTypeError(
            f"{what}: text file not allowed, open it in binary mode ('rb'/'wb')"
        )
    method = "write" if what == "save_state" else "read"
    if not callable(getattr(f, method, None)):
        raise InvalidInputTypeError(
            f"{what} takes a binary file-like object (with .{method}()), not {type(f).__name__}"
        )
