"""``emurust.pyboy.api.memory_scanner``: ``MemoryScanner`` (``PyBoy.memory_scanner``), to find
the addresses that hold a value and narrow them down as the game runs, with PyBoy's
comparison types."""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING

from emurust.pyboy.utils import bcd_to_dec

if TYPE_CHECKING:
    from emurust.pyboy_compat import PyBoy

__all__ = ["DynamicComparisonType", "MemoryScanner", "ScanMode", "StandardComparisonType"]


class StandardComparisonType(Enum):
    """How :meth:`MemoryScanner.scan_memory` compares a value with the target."""

    EXACT = 1
    LESS_THAN = 2
    GREATER_THAN = 3
    LESS_THAN_OR_EQUAL = 4
    GREATER_THAN_OR_EQUAL = 5


class DynamicComparisonType(Enum):
    """How :meth:`MemoryScanner.rescan_memory` compares a value with the last scan's."""

    UNCHANGED = 1
    CHANGED = 2
    INCREASED = 3
    DECREASED = 4
    MATCH = 5


class ScanMode(Enum):
    """How bytes are read as a value: a plain integer or binary-coded decimal."""

    INT = 1
    BCD = 2


_STANDARD = {
    StandardComparisonType.EXACT: lambda v, t: v == t,
    StandardComparisonType.LESS_THAN: lambda v, t: v < t,
    StandardComparisonType.GREATER_THAN: lambda v, t: v > t,
    StandardComparisonType.LESS_THAN_OR_EQUAL: lambda v, t: v <= t,
    StandardComparisonType.GREATER_THAN_OR_EQUAL: lambda v, t: v >= t,
}

_DYNAMIC = {
    DynamicComparisonType.UNCHANGED: lambda now, old, new: now == old,
    DynamicComparisonType.CHANGED: lambda now, old, new: now != old,
    DynamicComparisonType.INCREASED: lambda now, old, new: now > old,
    DynamicComparisonType.DECREASED: lambda now, old, new: now < old,
    DynamicComparisonType.MATCH: lambda now, old, new: now == new,
}


class MemoryScanner:
    """Scans the address space for values (``scan_memory``) and keeps the matching
    addresses, which ``rescan_memory`` narrows down (as PyBoy's ``MemoryScanner``). The
    address space is read once per scan, as side-effect-free reads."""

    def __init__(self, pyboy: PyBoy) -> None:
        self.pyboy = pyboy
        self._memory_cache: dict[int, int] = {}
        self._memory_cache_byte_width = 1
        self._memory_cache_value_type = ScanMode.INT
        self._memory_cache_byteorder = "little"

    def _value(self, data: bytes, addr: int, width: int, byteorder: str, mode: ScanMode) -> int:
        value = int.from_bytes(data[addr : addr + width], byteorder)  # type: ignore[arg-type]
        if mode == ScanMode.BCD:
            value = bcd_to_dec(value, width, byteorder)
        return value

    def scan_memory(
        self,
        target_value: int | None = None,
        start_addr: int = 0x0000,
        end_addr: int = 0xFFFF,
        standard_comparison_type: StandardComparisonType = StandardComparisonType.EXACT,
        value_type: ScanMode = ScanMode.INT,
        byte_width: int = 1,
        byteorder: str = "little",
    ) -> list[int]:
        """The addresses from ``start_addr`` to ``end_addr`` (inclusive, the value's last
        byte included) whose ``byte_width``-byte value compares with ``target_value`` as
        ``standard_comparison_type`` says (every address if ``target_value`` is None)."""
        if byte_width <= 0:
            raise ValueError("byte_width must be positive")
        compare = _STANDARD.get(standard_comparison_type)
        if compare is None:
            raise ValueError("Invalid comparison type")
        self._memory_cache = {}
        self._memory_cache_byte_width = byte_width
        self._memory_cache_value_type = value_type
        self._memory_cache_byteorder = byteorder
        data = bytes(self.pyboy._mem[:])
        for addr in range(start_addr, end_addr - (byte_width - 1) + 1):
            value = self._value(data, addr, byte_width, byteorder, value_type)
            if target_value is None or compare(value, target_value):
                self._memory_cache[addr] = value
        return list(self._memory_cache)

    def rescan_memory(
        self,
        new_value: int | None = None,
        dynamic_comparison_type: DynamicComparisonType = DynamicComparisonType.UNCHANGED,
        byteorder: str | None = None,
    ) -> list[int]:
        """Keeps the addresses of the last scan whose value now compares with the value
        recorded then (or with ``new_value`` for ``MATCH``) as ``dynamic_comparison_type``
        says, and records the new values."""
        if byteorder is None:
            byteorder = self._memory_cache_byteorder
        t = dynamic_comparison_type
        if self._memory_cache:
            if t not in _DYNAMIC:
                raise ValueError("Invalid comparison type")
            if t == DynamicComparisonType.MATCH and new_value is None:
                raise ValueError(
                    "new_value must be specified when using DynamicComparisonType.MATCH"
                )
        data = bytes(self.pyboy._mem[:])
        width = self._memory_cache_byte_width
        kept: dict[int, int] = {}
        for addr, old in self._memory_cache.items():
            now = self._value(data, addr, width, byteorder, self._memory_cache_value_type)
            if _DYNAMIC[t](now, old, new_value):
                kept[addr] = now
        self._memory_cache = kept
        return list(kept)
