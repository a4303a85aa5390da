"""``emurust.pyboy.api.tilemap``: ``TileMap`` (``PyBoy.tilemap_background`` and
``PyBoy.tilemap_window``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from emurust.pyboy.api.constants import HIGH_TILEMAP, LOW_TILEMAP
from emurust.pyboy.api.tile import Tile

if TYPE_CHECKING:
    from emurust.pyboy_compat import PyBoy

__all__ = ["TileMap"]


class TileMap:
    """A 32x32 tile map: ``tilemap[x, y]`` (column, row; ints or slices, lists as in PyBoy)
    is the tile identifier there (0..383: PyBoy's numbering, signed tile data mapped to
    128..383), or a :class:`Tile` after ``use_tile_objects(True)``; ``tile(x, y)``,
    ``tile_identifier(x, y)``, ``search_for_identifiers``, ``map_offset`` and
    ``signed_tile_data`` (from LCDC now) as in PyBoy."""

    shape = (32, 32)

    def __init__(self, owner: PyBoy, select: str) -> None:
        if select not in ("WINDOW", "BACKGROUND"):
            raise KeyError(f"Invalid tilemap selected: {select}")
        self._owner = owner
        self._select = select
        self._use_tile_objects = False

    def _lcdc(self) -> int:
        return int(self._owner._mem[0xFF40])

    @property
    def map_offset(self) -> int:
        bit = 0x40 if self._select == "WINDOW" else 0x08
        return HIGH_TILEMAP if self._lcdc() & bit else LOW_TILEMAP

    @property
    def signed_tile_data(self) -> bool:
        return not self._lcdc() & 0x10

    def _identifiers(self) -> npt.NDArray[np.int32]:
        """The whole map's identifiers, (32 rows, 32 columns)."""
        lcdc = self._lcdc()
        bit = 0x40 if self._select == "WINDOW" else 0x08
        base = HIGH_TILEMAP if lcdc & bit else LOW_TILEMAP
        raw = np.frombuffer(self._owner._mem[base : base + 0x400], dtype=np.uint8)
        ids = raw.astype(np.int32).reshape(32, 32)
        if not lcdc & 0x10:
            ids = (ids ^ 0x80) + 128
        return ids

    def tile_identifier(self, column: int, row: int) -> int:
        if not 0 <= column < 32:
            raise IndexError("column is out of bounds. Value of 0 to 31 is allowed")
        if not 0 <= row < 32:
            raise IndexError("row is out of bounds. Value of 0 to 31 is allowed")
        tile = int(self._owner._mem[self.map_offset + 32 * row + column])
        if self.signed_tile_data:
            return ((tile ^ 0x80) - 128) + 0x100
        return tile

    def tile(self, column: int, row: int) -> Tile:
        """The :class:`Tile` at (column, row)."""
        return Tile(self._owner, self.tile_identifier(column, row))

    def use_tile_objects(self, switch: bool) -> None:
        """``True``: indexing gives :class:`Tile` objects instead of identifiers."""
        self._use_tile_objects = switch

    @staticmethod
    def _span(s: slice) -> range:
        step = 1 if s.step is None else s.step
        start = 0 if s.start is None else s.start
        stop = 32 if s.stop is None else s.stop
        if step < 0:
            raise ValueError("Reversed ranges are unsupported")
        if start > stop:
            raise ValueError("Invalid range")
        return range(start, stop, step)

    def __getitem__(self, xy: Any) -> Any:
        x: Any
        y: Any
        x, y = (xy, slice(None)) if isinstance(xy, (int, slice)) else xy
        if not isinstance(x, slice) and not isinstance(y, slice):
            ident = self.tile_identifier(x, y)
            return Tile(self._owner, ident) if self._use_tile_objects else ident
        xs = self._span(x) if isinstance(x, slice) else None
        ys = self._span(y) if isinstance(y, slice) else None
        for r in (xs, ys):
            if r is not None and (r.start < 0 or (len(r) and r[-1] > 31)):
                raise IndexError("column or row is out of bounds. Value of 0 to 31 is allowed")
        if xs is None and not 0 <= x < 32:
            raise IndexError("column is out of bounds. Value of 0 to 31 is allowed")
        if ys is None and not 0 <= y < 32:
            raise IndexError("row is out of bounds. Value of 0 to 31 is allowed")
        ids = self._identifiers()
        wrap: Any = (lambda i: Tile(self._owner, int(i))) if self._use_tile_objects else int
        if xs is not None and ys is not None:
            block = ids[ys.start : ys.stop : ys.step, xs.start : xs.stop : xs.step]
            return [[wrap(v) for v in row] for row in block.tolist()]
        if xs is not None:
            return [wrap(v) for v in ids[y, xs.start : xs.stop : xs.step].tolist()]
        assert ys is not None
        return [wrap(v) for v in ids[ys.start : ys.stop : ys.step, x].tolist()]

    def search_for_identifiers(self, identifiers: Iterable[int]) -> list[list[list[int]]]:
        """For each identifier, the ``[row, column]`` pairs where the map holds it."""
        ids = self._identifiers()
        return [[[int(v) for v in m] for m in np.argwhere(ids == i)] for i in identifiers]

    def __repr__(self) -> str:
        ids = self._identifiers()
        head = (
            f"Tile Map Address: {self.map_offset:#06x}, Signed Tile Data: "
            f"{'Yes' if self.signed_tile_data else 'No'}\n"
        )
        cols = " " * 5 + "".join(f"{i: <4}" for i in range(32)) + "\n" + "_" * (4 * 32 + 2)
        rows = "\n".join(
            f"{i: <3}| " + "".join(str(t).ljust(4) for t in line)
            for i, line in enumerate(ids.tolist())
        )
        return head + cols + "\n" + rows
