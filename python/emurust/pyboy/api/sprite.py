"""``emurust.pyboy.api.sprite``: ``Sprite``, one of the 40 objects in OAM (PyBoy's
``pyboy.api.sprite.Sprite``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from emurust.pyboy._errors import OutOfBoundsError
from emurust.pyboy.api.constants import OAM_OFFSET, SPRITES
from emurust.pyboy.api.tile import Tile

if TYPE_CHECKING:
    from emurust.pyboy_compat import PyBoy

__all__ = ["Sprite"]


class Sprite:
    """Object ``sprite_index`` (0..39) as OAM holds it when the object is made: ``x``, ``y``
    (screen coordinates: OAM's X - 8 and Y - 16), ``tile_identifier``, the attribute bits
    ``attr_obj_bg_priority``, ``attr_y_flip``, ``attr_x_flip``, ``attr_palette_number``
    (0 or 1) and ``attr_cgb_bank_number`` (0 on the DMG), ``shape`` ((8, 8) or (8, 16) per
    LCDC bit 2), ``tiles`` (one or two :class:`Tile`) and ``on_screen``, as PyBoy computes
    them."""

    def __init__(self, owner: PyBoy, sprite_index: int, _oam: bytes | None = None) -> None:
        if not 0 <= sprite_index < SPRITES:
            raise OutOfBoundsError(f"Sprite index of {sprite_index} is out of range (0-{SPRITES})")
        mem = owner._mem
        off = sprite_index * 4
        if _oam is None:
            y, x, tile, attr = mem[OAM_OFFSET + off : OAM_OFFSET + off + 4]
            lcdc = int(mem[0xFF40])
        else:
            y, x, tile, attr = _oam[off : off + 4]
            lcdc = _oam[160]
        self._offset = off
        self._sprite_index = sprite_index
        self.y = y - 16
        self.x = x - 8
        self.tile_identifier = tile
        self.attr_obj_bg_priority = attr >> 7 & 1
        self.attr_y_flip = attr >> 6 & 1
        self.attr_x_flip = attr >> 5 & 1
        self.attr_palette_number = attr >> 4 & 1
        self.attr_cgb_bank_number = 0
        height = 16 if lcdc & 0x04 else 8
        self.shape = (8, height)
        self.tiles = [Tile(owner, tile)]
        if height == 16:
            self.tiles.append(Tile(owner, tile + 1))
        self.on_screen = -height < self.y < 144 and -8 < self.x < 160

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sprite):
            return NotImplemented
        return self._offset == other._offset

    def __hash__(self) -> int:
        return hash(self._offset)

    def __repr__(self) -> str:
        tiles = ", ".join(str(t) for t in self.tiles)
        return (
            f"Sprite [{self._sprite_index}]: Position: ({self.x}, {self.y}), Shape: "
            f"{self.shape}, Tiles: ({tiles}), On screen: {self.on_screen}"
        )
