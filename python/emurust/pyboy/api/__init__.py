"""``emurust.pyboy.api``: PyBoy's ``pyboy.api`` (screen, tile map, sprite, tile, memory scanner,
GameShark, constants) for ``emurust.PyBoy``."""

from emurust.pyboy.api import constants
from emurust.pyboy.api.gameshark import GameShark
from emurust.pyboy.api.screen import Screen
from emurust.pyboy.api.sound import Sound
from emurust.pyboy.api.sprite import Sprite
from emurust.pyboy.api.tile import Tile
from emurust.pyboy.api.tilemap import TileMap

__all__ = ["GameShark", "Screen", "Sound", "Sprite", "Tile", "TileMap", "constants"]
