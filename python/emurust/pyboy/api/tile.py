"""``emurust.pyboy.api.tile``: ``Tile``, one 8x8 tile of VRAM's tile data (PyBoy's
``pyboy.api.tile.Tile``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from emurust.pyboy._errors import DependencyMissingError, OutOfBoundsError
from emurust.pyboy.api.constants import LOW_TILEDATA, TILES

if TYPE_CHECKING:
    from PIL import Image as _PILImage

    from emurust.pyboy_compat import PyBoy

__all__ = ["Tile"]

# Bit x of a tile row's two bytes -> column 7 - x.
_BITS = np.array([7, 6, 5, 4, 3, 2, 1, 0], dtype=np.uint8)


class Tile:
    """Tile ``identifier`` (0..383: 0..255 at 0x8000, 256..383 at 0x9000-0x97FF) as PyBoy
    numbers tiles. ``data_address``, ``vram_bank`` (always 0 on the DMG),
    ``tile_identifier``, ``shape`` (8, 8); ``image()`` and ``ndarray()`` read VRAM now and
    give the tile in the background palette's colours (BGP through the screen palette), as
    an (8, 8, 4) RGBA array or a PIL image."""

    raw_buffer_format = "RGBA"

    def __init__(self, owner: PyBoy, identifier: int) -> None:
        if not 0 <= identifier < TILES:
            raise OutOfBoundsError("Identifier out of range")
        self._owner = owner
        self.data_address = LOW_TILEDATA + 16 * identifier
        self.vram_bank = 0
        self.tile_identifier = identifier
        self.shape = (8, 8)

    def _shades(self) -> npt.NDArray[np.uint8]:
        """The tile's colour numbers 0..3, (8, 8)."""
        raw = np.frombuffer(
            self._owner._mem[self.data_address : self.data_address + 16], dtype=np.uint8
        ).reshape(8, 2)
        lo = (raw[:, 0:1] >> _BITS) & 1
        hi = (raw[:, 1:2] >> _BITS) & 1
        return (lo | hi << 1).astype(np.uint8)

    def ndarray(self) -> npt.NDArray[np.uint8]:
        """The tile as an (8, 8, 4) RGBA uint8 array, through BGP and the screen palette."""
        owner = self._owner
        bgp = int(owner._mem[0xFF47])
        shade = np.array([(bgp >> (2 * i)) & 3 for i in range(4)], dtype=np.uint8)
        return owner.screen._lut[shade[self._shades()]]

    def image(self) -> _PILImage.Image:
        """The tile as an 8x8 RGBA PIL image (needs Pillow)."""
        try:
            from PIL import Image
        except ImportError as e:
            raise DependencyMissingError("Missing dependency Pillow!") from e
        return Image.fromarray(self.ndarray(), "RGBA")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tile):
            return NotImplemented
        return self.data_address == other.data_address and self.vram_bank == other.vram_bank

    def __hash__(self) -> int:
        return hash((self.data_address, self.vram_bank))

    def __repr__(self) -> str:
        return f"Tile: {self.tile_identifier}"
