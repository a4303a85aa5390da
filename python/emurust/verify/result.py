"""The records the verification levels produce (one per check), shared by all levels."""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

Status = Literal["pass", "fail", "skip", "allowlisted"]
STATUSES: tuple[Status, ...] = ("pass", "fail", "skip", "allowlisted")

T = TypeVar("T")


def fmt_addr(addr: Any) -> str:
    """A divergence's diff address (rollout details, report tables): an int (memory, screen
    pixel index) or a register name."""
    return f"{addr:#06x}" if isinstance(addr, int) else str(addr)


@dataclass
class Result:
    """One check of one level, as it appears in ``report.json`` under ``results``."""

    level: int
    name: str
    status: Status
    module: str
    detail: str
    rom: str | None = None
    frames: int | None = None
    divergence: dict[str, Any] | None = None
    counterexample: str | None = None
    # Not in the report schema's required keys but written too: extra numbers of a check
    # (L3 statistics, case counts) for readers that want them.
    stats: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "level": self.level,
            "name": self.name,
            "status": self.status,
            "module": self.module,
            "detail": self.detail,
            "rom": self.rom,
            "frames": self.frames,
            "divergence": self.divergence,
            "counterexample": self.counterexample,
        }
        if self.stats:
            out["stats"] = self.stats
        out["seconds"] = round(self.seconds, 3)
        return out


class Progress:
    """A progress bar over a known number of steps: tqdm when installed, else one plain
    line per step on stderr (or nothing when ``enabled`` is false)."""

    def __init__(self, total: int, description: str, *, enabled: bool = True) -> None:
        self.total = total
        self.description = description
        self.enabled = enabled
        self.count = 0
        self.started = time.perf_counter()
        self._bar: Any = None
        if enabled:
            try:
                tqdm = importlib.import_module("tqdm").tqdm
            except ImportError:
                self._bar = None
            else:
                self._bar = tqdm(total=total, desc=description, unit="check", leave=False)

    def step(self, what: str) -> None:
        self.count += 1
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.set_postfix_str(what[:40])
            self._bar.update(1)
        else:
            elapsed = time.perf_counter() - self.started
            print(
                f"[{self.description}] {self.count}/{self.total} {what} ({elapsed:.1f} s)",
                file=sys.stderr,
                flush=True,
            )

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()

    def wrap(self, items: Iterable[T], label: Any = str) -> Iterator[T]:
        """Yields ``items``, stepping after each one."""
        try:
            for item in items:
                yield item
                self.step(label(item))
        finally:
            self.close()
