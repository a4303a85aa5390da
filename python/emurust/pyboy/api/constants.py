"""``emurust.pyboy.api.constants``: the memory constants of ``pyboy.api.constants``."""

VRAM_OFFSET = 0x8000
"""Start address of VRAM."""
LCDC_OFFSET = 0xFF40
"""The LCDC register."""
OAM_OFFSET = 0xFE00
"""Start address of the object attribute memory (OAM)."""
LOW_TILEMAP = 0x1800 + VRAM_OFFSET
"""Start address of the lower tile map."""
HIGH_TILEMAP = 0x1C00 + VRAM_OFFSET
"""Start address of the higher tile map."""
LOW_TILEDATA = VRAM_OFFSET
"""Start address of the lower tile data."""
LOW_TILEDATA_NTILES = 0x100
"""Number of tiles in the lower tile data."""
HIGH_TILEDATA = 0x800 + VRAM_OFFSET
"""Start address of the higher tile data."""
TILES = 384
"""Tiles on a DMG."""
TILES_CGB = 768
"""Tiles on a Game Boy Color."""
SPRITES = 40
"""Objects (sprites) in OAM."""
ROWS = 144
"""Lines on the screen."""
COLS = 160
"""Columns on the screen."""
