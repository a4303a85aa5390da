"""The public :class:`GameBoy`: the native emulator plus ROM loading from paths."""

from __future__ import annotations

import os
import stat
import warnings
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any, SupportsIndex, Union, cast

from emurust import _core
from emurust._args import Palette, palette_arg
from emurust._core import (
    BOOT_ROM_SIZE,
    CGB_BOOT_ROM_SIZE,
    MAX_ROM_SIZE,
    EmuRustWarning,
    InvalidRomError,
)

if TYPE_CHECKING:
    from typing_extensions import Self

RomSource = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]
"""A ROM given as a file path or as the image itself."""

ColourLike = Union[Sequence[SupportsIndex], SupportsIndex]
"""A palette colour: ``(r, g, b)`` ints 0..=255, or an int ``0xRRGGBB``."""

PaletteLike = Sequence[ColourLike]
"""Four colours for shades 0..=3, lightest first (see :attr:`GameBoy.palette`)."""

BUTTONS: tuple[str, ...] = ("a", "b", "start", "select", "up", "down", "left", "right")
"""Valid button names (case-insensitive) for :meth:`GameBoy.button` and friends."""


def boot_rom_limit(model: object) -> int:
    """The most boot ROM bytes read for ``model``: a DMG's 256, else a CGB's 2,304 (the core
    checks the exact size for the model the machine turns out to be)."""
    if isinstance(model, str) and model.lower() == "dmg":
        return BOOT_ROM_SIZE
    return CGB_BOOT_ROM_SIZE


def read_image(source: RomSource, what: str, limit: int) -> bytes:
    """The bytes of a ROM given as bytes-like data or as a path (at most ``limit`` bytes)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        if len(data) > limit:
            raise InvalidRomError(f"{what} is {len(data)} bytes; at most {limit} are accepted")
        return data
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(
            f"{what} must be a path (str or os.PathLike) or bytes-like, not {type(source).__name__}"
        )
    path = os.fspath(source)
    info = os.stat(path)  # FileNotFoundError for a missing file
    if stat.S_ISREG(info.st_mode) and info.st_size > limit:
        raise InvalidRomError(
            f"{what} file {path!r} is {info.st_size} bytes; at most {limit} are accepted"
        )
    with open(path, "rb") as f:
        data = f.read(limit + 1)  # bounded even if the file grew or is not a regular file
    if len(data) > limit:
        raise InvalidRomError(f"{what} file {path!r} is larger than {limit} bytes")
    return data


MAX_STATE_FILE = 16 << 20
"""The most bytes read from a state file or file object (16 MiB): PyBoy's and emurust's
states are far smaller (cartridge RAM included), so a longer input is not a state."""


def read_state(
    source: str | os.PathLike[str] | bytes | bytearray | memoryview | IO[bytes], what: str
) -> bytes:
    """A save state's bytes from bytes-like data, a path or a binary file object (read from
    its position), reading at most :data:`MAX_STATE_FILE` + 1 bytes; TypeError for anything
    else, :class:`InvalidStateError` for an input longer than any state."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    if isinstance(source, (str, os.PathLike)):
        with open(os.fspath(source), "rb") as f:
            data = f.read(MAX_STATE_FILE + 1)
    elif callable(getattr(source, "read", None)):
        data = source.read(MAX_STATE_FILE + 1)
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(
                f"{what}: the file object returned {type(data).__name__}, not bytes (open it "
                "in binary mode, 'rb')"
            )
        data = bytes(data)
    else:
        raise TypeError(
            f"{what} must be a path, bytes or a binary file object, not {type(source).__name__}"
        )
    if len(data) > MAX_STATE_FILE:
        raise _core.InvalidStateError(
            f"{what} is larger than {MAX_STATE_FILE >> 20} MiB: not a save state (emurust's and "
            "PyBoy's are far smaller)"
        )
    return data


class GameBoy(_core.GameBoy):
    """A Game Boy (DMG) or Game Boy Color (CGB) running one cartridge.

    ``rom`` is a path (``str`` or ``os.PathLike``) or the ROM image as bytes-like data;
    ``boot_rom`` likewise: a DMG's 256 bytes, or a CGB's 2,304 with ``model="cgb"`` (mapped
    over 0x0000-0x00FF and 0x0200-0x08FF until it writes FF50; the mode it writes to KEY0
    then selects CGB mode or DMG compatibility mode); another size raises
    :class:`InvalidRomError`. Without a boot ROM the machine starts in the documented
    post-boot state (on a CGB, for a DMG cartridge, with the compatibility palettes the CGB
    boot ROM picks from the header: see docs/api.md).

    ``model`` is ``"dmg"`` (the default), ``"cgb"`` or ``"auto"``: the CGB for a cartridge
    whose header byte 0x143 has bit 7 set, as PyBoy's ``cgb=None``. A CGB runs such a
    cartridge in CGB mode and any other in DMG compatibility mode; :attr:`model` and
    :attr:`cgb_mode` say which.

    ``palette`` (optional) sets the four screen colours, lightest first, as
    :attr:`palette` does (default: the DMG greys ``FF``/``AA``/``55``/``00``).
    ``sound_sample_rate`` (optional, in Hz; PyBoy uses 48000) switches sound output on:
    :attr:`sound` then holds the samples of the last :meth:`tick`. Off by default.

    Raises :class:`FileNotFoundError` for a missing file, :class:`InvalidRomError` for an
    image that cannot be loaded (ROM larger than 8 MiB, shorter than its header...) and
    :class:`UnsupportedCartridgeError` (an ``InvalidRomError``) for a cartridge type that is
    not emulated; :class:`InvalidArgumentError` (or :class:`TypeError`) for a bad
    ``palette`` or ``sound_sample_rate``. Problems that do not stop loading (a bad header
    checksum...) are emitted as :class:`EmuRustWarning` and kept in :attr:`warnings`.
    """

    __slots__ = ()

    def __new__(
        cls,
        rom: RomSource,
        *,
        boot_rom: RomSource | None = None,
        palette: PaletteLike | None = None,
        sound_sample_rate: int | None = None,
        model: str = "dmg",
    ) -> Self:
        data = read_image(rom, "rom", MAX_ROM_SIZE)
        boot = None if boot_rom is None else read_image(boot_rom, "boot_rom", boot_rom_limit(model))
        self = super().__new__(cls, data, boot, model)
        if palette is not None:
            self.palette = palette
        if sound_sample_rate is not None:
            self.sound_sample_rate = sound_sample_rate
        for message in self.warnings:
            warnings.warn(message, EmuRustWarning, stacklevel=2)
        return self

    @property
    def palette(self) -> Palette:
        """The colours of shades 0..=3 as four (r, g, b) tuples, lightest first. Set it to
        four (r, g, b) sequences (ints 0..=255) or 0xRRGGBB ints, lightest first: the screen
        arrays are re-converted at once."""
        return super().palette

    @palette.setter
    def palette(self, value: PaletteLike) -> None:
        # The native setter takes the strict form (four (r, g, b) tuples).
        cast(Any, _core.GameBoy).palette.__set__(self, palette_arg(value))

    @classmethod
    def from_pyboy_state(
        cls,
        rom: RomSource,
        state: str | os.PathLike[str] | bytes | bytearray | IO[bytes],
        *,
        boot_rom: RomSource | None = None,
        palette: PaletteLike | None = None,
        sound_sample_rate: int | None = None,
    ) -> Self:
        """A machine running ``rom`` from a state that PyBoy 2.8.1 saved for it
        (``PyBoy.save_state``): ``state`` is a path, the bytes, or a binary file object read
        from its current position. See :meth:`load_pyboy_state` and docs/pyboy.md.

        The machine is the one PyBoy emulated when it saved the state: a Game Boy Color
        (``model="cgb"``) for a state of ``PyBoy(..., cgb=True)`` (or of a CGB game with
        ``cgb=None``), else a DMG.

        Raises :class:`InvalidStateError` naming the problem for a state from another PyBoy
        version or from another ROM."""
        data = read_state(state, "state")
        # Byte 5 of a PyBoy 2.8.1 state: PyBoy emulated a CGB (load_pyboy_state checks it).
        model = "cgb" if len(data) > 5 and data[5] else "dmg"
        gb = cls(
            rom,
            boot_rom=boot_rom,
            palette=palette,
            sound_sample_rate=sound_sample_rate,
            model=model,
        )
        gb.load_pyboy_state(data)
        return gb
