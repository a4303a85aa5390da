"""``emurust.pyboy.api.gameshark``: ``GameShark`` (``PyBoy.gameshark``), cheat codes written to
memory before every frame, as PyBoy's ``GameShark`` does."""

from __future__ import annotations

from typing import Any

from emurust.pyboy._errors import InvalidInputError

__all__ = ["GameShark"]


class GameShark:
    """GameShark codes ``TTVVLLHH`` (type 01, value, address low and high byte; the address
    must be 0x8000 or above): ``add`` remembers the byte there and writes the value before
    every frame, ``remove`` (optionally restoring the byte) and ``clear_all`` undo it."""

    def __init__(self, memory: Any) -> None:
        self.memory = memory
        self.cheats: dict[str, tuple[int, tuple[int, int, int]]] = {}
        self.enabled = False

    @staticmethod
    def _convert_cheat(code: str) -> tuple[int, int, int]:
        if len(code) != 8:
            raise ValueError("Invalid cheat code length. Cheat code must be 8 characters long.")
        kind = int(code[:2], 16)
        value = int(code[2:4], 16)
        address = int(code[6:8] + code[4:6], 16)
        if address < 0x8000:
            raise ValueError("Invalid GameShark code provided. Address not in the RAM range")
        return kind, value, address

    @staticmethod
    def _check_type(kind: int) -> None:
        if kind != 0x01:
            raise ValueError("Invalid GameShark type", kind)

    def add(self, code: str) -> None:
        """Applies ``code`` from the next frame on (``InvalidInputError`` if already applied)."""
        self.enabled = True
        kind, value, address = self._convert_cheat(code)
        self._check_type(kind)
        if code in self.cheats:
            raise InvalidInputError("GameShark code already applied!")
        self.cheats[code] = (self.memory[address], (kind, value, address))

    def remove(self, code: str, restore_value: bool = True) -> None:
        """Stops applying ``code``; writes back the byte it replaced if ``restore_value``."""
        if code not in self.cheats:
            raise ValueError("GameShark code cannot be removed. Hasn't been applied.")
        original, (_, _, address) = self.cheats.pop(code)
        if restore_value:
            self.memory[address] = original
        if not self.cheats:
            self.enabled = False

    def clear_all(self, restore_value: bool = True) -> None:
        """Removes every code."""
        for code in list(self.cheats):
            self.remove(code, restore_value)

    def tick(self) -> int:
        """Writes every code's value (PyBoy does this before each frame)."""
        if not self.enabled:
            return 0
        for _, (_, value, address) in self.cheats.values():
            self.memory[address] = value
        return 0
