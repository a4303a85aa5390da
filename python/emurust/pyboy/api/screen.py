"""``emurust.pyboy.api.screen``: ``Screen`` (``PyBoy.screen``), the last drawn frame as PyBoy
shows it, and where the tile maps were on each line."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt

from emurust.pyboy._errors import DependencyMissingError

if TYPE_CHECKING:
    from PIL import Image as _PILImage

    from emurust.pyboy_compat import PyBoy

__all__ = ["Screen"]


class Screen:
    """``PyBoy.screen``: ``ndarray`` is a (144, 160, 4) RGBA uint8 array in the palette's
    colours (PyBoy's greys FF/99/55/00 by default), the same array updated in place by every
    rendering ``tick``; ``image`` a PIL image over it (needs Pillow); ``raw_buffer`` the same
    bytes; ``get_tilemap_position()`` and ``tilemap_position_list`` where the background and
    window were."""

    raw_buffer_dims = (144, 160)
    raw_buffer_format = "RGBA"

    def __init__(self, owner: PyBoy) -> None:
        self._owner = owner
        self.ndarray: npt.NDArray[np.uint8] = np.zeros((144, 160, 4), dtype=np.uint8)
        self.ndarray[..., 3] = 0xFF
        self.raw_buffer = self.ndarray.data.cast("B")
        self._lut = np.zeros((4, 4), dtype=np.uint8)
        self._cgb_mode = False
        self._follow_mode = False
        self._image: Any = None

    def _set_palette(self, palette: Sequence[int]) -> None:
        for i, c in enumerate(palette):
            self._lut[i] = ((c >> 16) & 0xFF, (c >> 8) & 0xFF, c & 0xFF, 0xFF)

    def _set_cgb_palettes(
        self, palettes: Sequence[Sequence[int]], cgb_mode: bool, follow: bool = False
    ) -> None:
        """A CGB's screen: in CGB mode the core's RGB (15-bit colours as ``x << 3``, PyBoy's
        conversion); in DMG compatibility mode PyBoy's ``cgb_color_palette`` (background,
        object 0, object 1), which colours the frame's palette slots 0-3, 32-35 and 36-39.
        ``follow``: the mode may change (a CGB boot ROM selects it when it ends), so each
        update reads it from the machine."""
        self._cgb_mode = cgb_mode
        self._follow_mode = follow
        self._lut = np.zeros((64, 4), dtype=np.uint8)
        self._lut[:, 3] = 0xFF
        for base, pal in zip((0, 32, 36), palettes):
            for i, c in enumerate(pal):
                self._lut[base + i] = ((c >> 16) & 0xFF, (c >> 8) & 0xFF, c & 0xFF, 0xFF)

    def _update(self) -> None:
        if self._follow_mode:
            self._cgb_mode = self._owner._gb.cgb_mode
        if self._cgb_mode:
            self.ndarray[..., :3] = self._owner._gb.screen
            return
        np.take(self._lut, self._owner._gb.screen_shades, axis=0, out=self.ndarray)

    @property
    def image(self) -> _PILImage.Image:
        """A PIL image over :attr:`ndarray` (the same memory; needs Pillow)."""
        if self._image is None:
            try:
                from PIL import Image
            except ImportError as e:
                raise DependencyMissingError(
                    f"PyBoy.screen.image needs Pillow: pip install pillow ({e})"
                ) from e
            self._image = Image.frombuffer("RGBA", (160, 144), self.ndarray, "raw", "RGBA", 0, 1)
        return cast("_PILImage.Image", self._image)

    def get_tilemap_position(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """``((SCX, SCY), (WX - 7, WY))`` now, as PyBoy gives it."""
        m = self._owner._mem
        return (m[0xFF43], m[0xFF42]), (m[0xFF4B] - 7, m[0xFF4A])

    @property
    def tilemap_position_list(self) -> list[list[int]]:
        """``[SCX, SCY, WX - 7, WY]`` of each of the 144 lines of the last frame, as they were
        when the line was drawn (PyBoy's list; all zeros while the LCD is off)."""
        gb = self._owner._gb
        if not gb.memory[0xFF40] & 0x80:
            return [[0, 0, 0, 0] for _ in range(144)]
        lines = gb._line_registers()
        if lines is None:  # not recorded: the registers now, for every line
            (scx, scy), (wx, wy) = self.get_tilemap_position()
            return [[scx, scy, wx, wy] for _ in range(144)]
        return [[r[0], r[1], r[2] - 7, r[3]] for r in lines]
