"""The one PyBoy adapter of the project: how to import PyBoy, start it headless in DMG
mode, read its screen as shades, save its state, and the 2048 game-wrapper workaround.
Used by the lockstep harness (:mod:`emurust.verify.lockstep`), the PyBoy backend of the
environments, the PyBoy drop-in's palette, the conformance runner, the benchmarks and the
tests. Importing this module does not import PyBoy."""

from __future__ import annotations

import importlib
import importlib.metadata
import io
import os
import warnings
from pathlib import Path
from typing import Any, Union

import numpy as np
import numpy.typing as npt

from emurust._core import FRAME_CYCLES

__all__ = [
    "FULL_FRAME",
    "PYBOY_GREYS",
    "PYBOY_VERSION",
    "LockstepPyBoy",
    "bank_bytes",
    "cgb_banks",
    "import_pyboy",
    "new_pyboy",
    "pyboy_boot_rom",
    "quiet_2048_wrapper",
    "save_state",
    "shade_table",
    "shades_of",
]

PYBOY_VERSION = "2.8.1"
"""The PyBoy version the lockstep harness is written against (it reads PyBoy's private
clock)."""

PYBOY_GREYS = (0xFF, 0x99, 0x55, 0x00)
"""PyBoy's default DMG palette, shades 0..3 (the red channel of its RGBA screen)."""

FULL_FRAME = FRAME_CYCLES
"""T-cycles in a whole frame (154 lines of 456 dots; ``emurust._core.FRAME_CYCLES``)."""

PathLike = Union[str, "os.PathLike[str]"]


def shade_table(unknown: int = 0) -> npt.NDArray[np.uint8]:
    """A 256-entry table from the red channel of PyBoy's screen to shades 0..3 (values that
    are not one of its greys map to ``unknown``)."""
    table = np.full(256, unknown, dtype=np.uint8)
    for shade, grey in enumerate(PYBOY_GREYS):
        table[grey] = shade
    return table


_SHADE_OF = shade_table()


def quiet_2048_wrapper(pb: Any) -> None:
    """PyBoy turns its 2048 game wrapper on by cartridge title and, without the game's
    symbol file, raises (and prints a traceback) at every tick. Placeholder symbols in high
    WRAM (it only reads them) make the wrapper cost what it costs with the real symbols,
    without the exception."""
    if pb.cartridge_title == "2048" and "_board" not in pb.rom_symbols_inverse:
        for i, name in enumerate(("_board", "_score", "_winner", "_state")):
            pb.rom_symbols_inverse[name] = (0, 0xDF00 + 0x40 * i)


def import_pyboy(*, exact: bool = False, purpose: str = "the PyBoy backend") -> Any:
    """The ``pyboy`` module (its SDL2 banner silenced), or ImportError saying how to install
    it. ``exact=True`` also requires :data:`PYBOY_VERSION` (the lockstep harness reads
    PyBoy's private clock and relies on its timing)."""
    if exact:
        try:
            version = importlib.metadata.version("pyboy")
        except importlib.metadata.PackageNotFoundError:
            raise ImportError(
                f"{purpose} needs PyBoy (pip install pyboy=={PYBOY_VERSION})"
            ) from None
        if version != PYBOY_VERSION:
            raise ImportError(
                f"{purpose} needs PyBoy {PYBOY_VERSION} (it reads PyBoy's private clock "
                f"and relies on its timing), found {version}"
            )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Using SDL2 binaries from pysdl2-dll ..."
            return importlib.import_module("pyboy")
    except ImportError as e:
        if exact:
            raise
        raise ImportError(f"{purpose} needs PyBoy 2.x (pip install pyboy): {e}") from None


def pyboy_version() -> str | None:
    """The installed PyBoy's version, or None."""
    try:
        return importlib.metadata.version("pyboy")
    except importlib.metadata.PackageNotFoundError:
        return None


def pyboy_boot_rom() -> Path:
    """PyBoy's open-source DMG boot ROM (shipped in the installed ``pyboy`` package)."""
    pyboy = import_pyboy(exact=True, purpose="the lockstep harness")
    return Path(pyboy.__file__).parent / "core" / "bootrom_dmg.bin"


def new_pyboy(
    rom: bytes | PathLike,
    *,
    boot_rom: PathLike | None = None,
    sound_emulated: bool = False,
    unlimited_speed: bool = True,
    pyboy: Any = None,
    cgb: bool | None = False,
) -> Any:
    """PyBoy headless (``window="null"``), in DMG mode (``cgb`` passed on: ``True`` for the
    Game Boy Color, ``None`` PyBoy's choice by the header), log level ERROR, with no sound
    emulation unless asked for, no frame limiter unless ``unlimited_speed=False``, and the
    2048 workaround applied. ``rom`` is the image or a path; ``pyboy`` the module (default:
    :func:`import_pyboy`)."""
    pyboy = pyboy if pyboy is not None else import_pyboy()
    kwargs: dict[str, Any] = {}
    if boot_rom is not None:
        kwargs["bootrom"] = os.fspath(boot_rom)
    source = io.BytesIO(bytes(rom)) if isinstance(rom, (bytes, bytearray)) else os.fspath(rom)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pb = pyboy.PyBoy(
            source,
            window="null",
            sound_emulated=sound_emulated,
            cgb=cgb,
            log_level="ERROR",
            **kwargs,
        )
    if unlimited_speed:
        pb.set_emulation_speed(0)
    quiet_2048_wrapper(pb)
    return pb


def shades_of(pb: Any) -> npt.NDArray[np.uint8]:
    """PyBoy's last drawn frame as (144, 160) shades."""
    shades: npt.NDArray[np.uint8] = _SHADE_OF[pb.screen.ndarray[:, :, 0]]
    return shades


def save_state(pb: Any) -> bytes:
    """PyBoy's save state now."""
    buf = io.BytesIO()
    pb.save_state(buf)
    return buf.getvalue()


def packed_rgb(rgb: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint32]:
    """An (..., 3) RGB array as 0xRRGGBB integers (one value a pixel)."""
    c = rgb.astype(np.uint32)
    packed: npt.NDArray[np.uint32] = np.asarray(
        (c[..., 0] << np.uint32(16)) | (c[..., 1] << np.uint32(8)) | c[..., 2], dtype=np.uint32
    )
    return packed


def bank_bytes(pb: Any, bank: int, start: int, end: int) -> list[int]:
    """Bytes ``start..end`` of VRAM or WRAM bank ``bank`` of a CGB, whatever VBK and SVBK
    select, through PyBoy's ``memory[bank, ...]`` (of PyBoy or of emurust.PyBoy). PyBoy
    refuses a bank slice that ends at the region's end: the last byte is read alone."""
    return [*pb.memory[bank, start : end - 1], pb.memory[bank, end - 1]]


def cgb_banks(pb: Any) -> list[list[int]]:
    """Every bank of a CGB through :func:`bank_bytes`: WRAM banks 0-7, then VRAM banks 0-1."""
    wram = [bank_bytes(pb, 0, 0xC000, 0xD000)]
    wram += [bank_bytes(pb, b, 0xD000, 0xE000) for b in range(1, 8)]
    return wram + [bank_bytes(pb, b, 0x8000, 0xA000) for b in range(2)]


class LockstepPyBoy:
    """PyBoy (:data:`PYBOY_VERSION`) advanced frame by frame, with its clock and the shade
    map of its screen: the lockstep harness's view of it."""

    def __init__(self, rom: bytes, boot_rom: Path | None, render: bool, cgb: bool = False) -> None:
        pyboy = import_pyboy(exact=True, purpose="the lockstep harness")
        self.pb = new_pyboy(
            rom, boot_rom=boot_rom, unlimited_speed=False, pyboy=pyboy, cgb=cgb or False
        )
        self.render = render
        self.cgb = cgb
        self.shade_of = shade_table(unknown=255)
        self.ends = [0]

    def start_at_frame(self, frames: int) -> None:
        """Runs ``frames`` frames (without drawing but the last) and starts the frame grid
        there (the CGB lockstep starts emurust from PyBoy's state at that point)."""
        if frames > 1:
            self.pb.tick(frames - 1, False, False)
        if frames > 0:
            self.pb.tick(1, self.render, False)
        self.ends = [int(self.pb._cycles())]

    @property
    def now(self) -> int:
        return self.ends[-1]

    def run_until(self, cycles: int) -> None:
        """Runs frames until one ends at or after ``cycles``."""
        while self.ends[-1] < cycles:
            self.pb.tick(1, self.render, False)
            self.ends.append(int(self.pb._cycles()))
            del self.ends[:-3]

    def after_lcd_enable(self) -> bool:
        """Whether the frame before the last one was cut short (an LCD enable ends one)."""
        return len(self.ends) >= 3 and self.ends[-2] - self.ends[-3] < FULL_FRAME - 456

    def screen(self) -> npt.NDArray[Any]:
        """The screen as shades (a DMG), or on a CGB as 0xRRGGBB integers (PyBoy's colours:
        :func:`packed_rgb` of emurust's screen in PyBoy's conversion compares equal)."""
        if self.cgb:
            return packed_rgb(self.pb.screen.ndarray[..., :3])
        shades: npt.NDArray[np.uint8] = self.shade_of[self.pb.screen.ndarray[..., 0]]
        return shades

    def bank(self, region: str, bank: int, start: int, end: int) -> npt.NDArray[np.uint8]:
        """Bytes ``start..end`` of VRAM or WRAM bank ``bank`` (:func:`bank_bytes`)."""
        del region  # the address says which
        return np.array(bank_bytes(self.pb, bank, start, end), dtype=np.uint8)

    def registers(self) -> dict[str, int]:
        r = self.pb.register_file
        hl = int(r.HL)
        return {
            "a": int(r.A),
            "f": int(r.F),
            "b": int(r.B),
            "c": int(r.C),
            "d": int(r.D),
            "e": int(r.E),
            "h": hl >> 8,
            "l": hl & 0xFF,
            "sp": int(r.SP),
            "pc": int(r.PC),
        }

    def memory(self, start: int, end: int) -> npt.NDArray[np.uint8]:
        return np.array(self.pb.memory[start:end], dtype=np.uint8)

    def byte(self, addr: int) -> int:
        return int(self.pb.memory[addr])

    def press(self, action: str, button: str) -> None:
        getattr(self.pb, f"button_{action}")(button)

    def state(self) -> bytes:
        """PyBoy's save state now."""
        return save_state(self.pb)

    def stop(self) -> None:
        self.pb.stop(save=False)
