"""``emurust.pyboy.plugins.base_plugin``: ``PyBoyGameWrapper``, the generic game wrapper that
``PyBoy.game_wrapper`` gives for every game: the game area (tile maps and objects as one
small matrix, the classic compact RL observation), its mapping and dimensions, and
``start_game`` / ``reset_game`` through a save state."""

from __future__ import annotations

import io
import random
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from emurust.pyboy.api.constants import HIGH_TILEMAP, LOW_TILEMAP, TILES_CGB
from emurust.pyboy.utils import PyBoyException

if TYPE_CHECKING:
    from emurust.pyboy.api.sprite import Sprite
    from emurust.pyboy_compat import PyBoy

__all__ = ["PyBoyGameWrapper"]


class PyBoyGameWrapper:
    """The generic game wrapper (PyBoy's ``PyBoyGameWrapper``, which PyBoy uses for games it
    has no specific wrapper for). ``game_area()`` is the background (or window, after
    ``use_background(False)``) tile map's section ``game_area_section`` (default: the whole
    32x32 map) through ``mapping``, with the objects on screen drawn over it as
    ``mapping[tile] + sprite_offset``, as PyBoy computes it; ``shape`` is (width, height)."""

    cartridge_title: str | None = None
    mapping_one_to_one = np.arange(TILES_CGB, dtype=np.uint8)
    """PyBoy's example 1:1 mapping (as PyBoy defines it: uint8, so identifiers wrap at 256)."""

    def __init__(
        self,
        pyboy: PyBoy,
        game_area_section: tuple[int, int, int, int] = (0, 0, 32, 32),
        game_area_follow_scxy: bool = False,
    ) -> None:
        self.pyboy = pyboy
        self.tilemap_background = pyboy.tilemap_background
        self.tilemap_window = pyboy.tilemap_window
        self.tilemap_use_background = True
        self.mapping: npt.NDArray[np.uint32] = np.arange(TILES_CGB, dtype=np.uint32)
        self.sprite_offset = 0
        self.game_has_started = False
        self.shape: tuple[int, int] = (0, 0)
        self.game_area_section: tuple[int, int, int, int] = (0, 0, 0, 0)
        self.game_area_follow_scxy = False
        self._set_dimensions(*game_area_section, game_area_follow_scxy)
        self.saved_state = io.BytesIO()

    def enabled(self) -> bool:
        return self.cartridge_title is None or self.pyboy.cartridge_title == self.cartridge_title

    def post_tick(self) -> None:
        """Nothing is cached between frames here (PyBoy invalidates its caches)."""

    # ---- start and reset ----------------------------------------------------------

    def _set_timer_div(self, timer_div: int | None) -> None:
        value = random.getrandbits(8) if timer_div is None else timer_div & 0xFF
        self.pyboy._set_div(value)

    def start_game(self, timer_div: int | None = None) -> None:
        """Saves the machine's state (``reset_game`` returns to it) and sets DIV to
        ``timer_div`` (random if None), as PyBoy's generic ``start_game`` does."""
        self.game_has_started = True
        self.saved_state.seek(0)
        self.saved_state.truncate()
        self.pyboy.save_state(self.saved_state)
        self._set_timer_div(timer_div)

    def reset_game(self, timer_div: int | None = None) -> None:
        """Loads the state ``start_game`` saved and sets DIV (random if None)."""
        if not self.game_has_started:
            raise PyBoyException("Tried to reset game, but it hasn't been started yet!")
        self.saved_state.seek(0)
        self.pyboy.load_state(self.saved_state)
        self._set_timer_div(timer_div)

    def game_over(self) -> bool:
        raise NotImplementedError("game_over not implemented in game wrapper")

    # ---- the game area ------------------------------------------------------------

    def use_background(self, value: bool) -> None:
        """``False``: the game area comes from the window's tile map."""
        self.tilemap_use_background = value

    def _set_dimensions(
        self, x: int, y: int, width: int, height: int, follow_scrolling: bool = True
    ) -> None:
        self.shape = (width, height)
        self.game_area_section = (x, y, width, height)
        self.game_area_follow_scxy = follow_scrolling

    def game_area_mapping(self, mapping: Any, sprite_offset: int) -> None:
        self.mapping = np.asarray(mapping, dtype=np.uint32)
        self.sprite_offset = sprite_offset

    def _tile_map(self) -> npt.NDArray[np.intp]:
        """The selected tile map's identifiers (0..383), (32 rows, 32 columns)."""
        gb = self.pyboy._mem
        lcdc = int(gb[0xFF40])
        bit = 0x08 if self.tilemap_use_background else 0x40
        base = HIGH_TILEMAP if lcdc & bit else LOW_TILEMAP
        ids = np.frombuffer(gb[base : base + 0x400], dtype=np.uint8).astype(np.intp)
        if not lcdc & 0x10:
            ids ^= 0x80
            ids += 128
        return ids.reshape(32, 32)

    def _game_area_tiles(self) -> npt.NDArray[np.intp]:
        xx, yy, width, height = self.game_area_section
        ids = self._tile_map()
        if not self.game_area_follow_scxy:
            if xx < 0 or yy < 0 or xx + width > 32 or yy + height > 32:
                raise IndexError("game area section is outside the 32x32 tile map")
            return ids[yy : yy + height, xx : xx + width]
        lines = self.pyboy.screen.tilemap_position_list
        rows = np.arange(height)
        cols = np.arange(width)
        scroll = np.array([lines[(yy + y) * 8][:2] for y in range(height)], dtype=np.intp) // 8
        r = (yy + rows + scroll[:, 1]) % 32
        c = (xx + cols[None, :] + scroll[:, 0:1]) % 32
        out: npt.NDArray[np.intp] = ids[r[:, None], c]
        return out

    def _sprites_on_screen(self) -> list[Sprite]:
        from emurust.pyboy.api.sprite import Sprite

        gb = self.pyboy._mem
        oam = gb[0xFE00:0xFEA0] + bytes([gb[0xFF40]])
        out = []
        for i in range(40):
            y, x = oam[4 * i], oam[4 * i + 1]
            height = 16 if oam[160] & 0x04 else 8
            if -height < y - 16 < 144 and -8 < x - 8 < 160:
                out.append(Sprite(self.pyboy, i, oam))
        return out

    def game_area(self) -> npt.NDArray[np.uint32]:
        """The game area as a (height, width) uint32 matrix of mapped identifiers."""
        mapping = self.mapping
        tiles = mapping[self._game_area_tiles()]
        xx, yy, width, height = self.game_area_section
        gb = self.pyboy._mem
        oam = gb[0xFE00:0xFEA0]
        tall = bool(gb[0xFF40] & 0x04)
        h = 16 if tall else 8
        offset = self.sprite_offset
        for i in range(0, 160, 4):
            sy, sx = oam[i] - 16, oam[i + 1] - 8
            if not (-h < sy < 144 and -8 < sx < 160):
                continue
            gx, gy = sx // 8 - xx, sy // 8 - yy
            if 0 <= gx < width:
                tile = oam[i + 2]
                if 0 <= gy < height:
                    tiles[gy, gx] = mapping[tile] + offset
                if tall and 0 <= gy + 1 < height:
                    tiles[gy + 1, gx] = mapping[tile + 1] + offset
        return tiles

    def game_area_collision(self) -> npt.NDArray[np.uint32]:
        raise AttributeError("game_area_collision is not implemented by the generic game wrapper")

    def game_area_annotations(self) -> list[tuple[int, int, str]]:
        return []

    def _sum_number_on_screen(
        self, x: int, y: int, length: int, blank_tile_identifier: int, tile_identifier_offset: int
    ) -> int:
        number = 0
        for i, t in enumerate(self.tilemap_background[x : x + length, y]):
            if t != blank_tile_identifier:
                number += (t + tile_identifier_offset) * (10 ** (length - 1 - i))
        return number

    def __repr__(self) -> str:
        sprites = "\n".join(str(s) for s in self._sprites_on_screen())
        width = self.shape[0]
        header = " " * 4 + "".join(f"{i: >4}" for i in range(width)) + "\n" + "_" * (4 * width + 4)
        tiles = "\n".join(
            (f"{i: <3}|" + "".join(str(t).rjust(4) for t in line)).strip()
            for i, line in enumerate(self.game_area().tolist())
        )
        return (
            "Sprites on screen:\n" + sprites + "\n" + "Tiles on screen:\n" + header + "\n" + tiles
        )
