"""What PyBoy 2.8.1 makes of a cartridge and of its constructor's arguments: the ROM read
from a path or a file, the cartridge RAM it gives each type, the machine it picks (DMG or
CGB), the CGB palettes and the title."""

from __future__ import annotations

import os
from typing import Any

from emurust.pyboy._args import as_index
from emurust.pyboy._errors import InvalidInputError as InvalidArgumentError
from emurust.pyboy._errors import InvalidInputTypeError, InvalidOperationError

# PyBoy's cartridge classes by type byte, and its RAM banks by header byte 0x149
# (pyboy/core/cartridge/cartridge.py); used for .ram files in PyBoy's layout.
BATTERY_TYPES = frozenset({0x03, 0x06, 0x09, 0x0F, 0x10, 0x13, 0x1B, 0x1E})
RTC_TYPES = frozenset({0x0F, 0x10})
RAM_BANKS = {0: 1, 1: 1, 2: 1, 3: 4, 4: 16, 5: 8}
MBC2_TYPES = frozenset({0x05, 0x06})


def rom_bytes(gamerom: object) -> tuple[bytes, str | None]:
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
WITH_RAM = {0x01: 0x02, 0x0F: 0x10, 0x11: 0x12, 0x19: 0x1A, 0x1C: 0x1D}
RAM_TYPES = frozenset({0x02, 0x03, 0x10, 0x12, 0x13, 0x1A, 0x1B, 0x1D, 0x1E})


def with_pyboys_ram(rom: bytes) -> bytes:
    """``rom`` with the header bytes that make emurust give it the cartridge RAM PyBoy
    gives it (``rom`` itself when they already agree)."""
    if len(rom) <= 0x149:
        return rom
    kind, size = rom[0x147], rom[0x149]
    if kind not in WITH_RAM and not (kind in RAM_TYPES and size == 1):
        return rom
    patched = bytearray(rom)
    patched[0x147] = WITH_RAM.get(kind, kind)
    if size in (0, 1):
        patched[0x149] = 2  # one 8 KiB bank, as PyBoy's table gives codes 0 to 2
    return bytes(patched)


# PyBoy 2.8.1's default cgb_color_palette: background, object palette 0, object palette 1.
DEFAULT_CGB_PALETTES = (
    (0xFFFFFF, 0x7BFF31, 0x0063C5, 0x000000),
    (0xFFFFFF, 0xFF8484, 0x943A3A, 0x000000),
    (0xFFFFFF, 0xFF8484, 0x943A3A, 0x000000),
)


def pick_cgb(cgb: object, rom: bytes, boot: bytes | None) -> bool:
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


def cgb_palettes(palettes: Any) -> tuple[tuple[int, ...], ...]:
    """``cgb_color_palette``: three palettes (background, object 0, object 1) of four
    0xRRGGBB colours, PyBoy's default for ``None``."""
    if palettes is None:
        return DEFAULT_CGB_PALETTES
    try:
        out = tuple(tuple(as_index(c, "cgb_color_palette colour") for c in p) for p in palettes)
    except TypeError:
        raise InvalidArgumentError(
            "cgb_color_palette must be three palettes of four 0xRRGGBB colours"
        ) from None
    if len(out) != 3 or any(len(p) != 4 or not all(0 <= c <= 0xFFFFFF for c in p) for p in out):
        raise InvalidArgumentError(
            "cgb_color_palette must be three palettes of four 0xRRGGBB colours"
        )
    return out


def cartridge_title(rom: bytes) -> str:
    """The title as PyBoy reads it: 0x134 up to 0x143 (0x142 for CGB-flagged ROMs), up to
    the first NUL."""
    end = 0x142 if len(rom) > 0x143 and rom[0x143] >> 7 else 0x143
    return "".join(chr(b) for b in rom[0x134:end]).split("\0")[0]
