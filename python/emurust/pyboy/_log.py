"""The log lines ``emurust.PyBoy`` prints where PyBoy prints one (to stdout, in PyBoy's
layout: the logger name padded to 30 characters, the level to 8, the message), with
PyBoy's ``log_level`` rule: a line is printed when its level is at or above the threshold
in PyBoy's order DEBUG < WARNING < ERROR < CRITICAL < INFO ("DISABLE" is CRITICAL)."""

from __future__ import annotations

__all__ = ["LEVELS", "Log"]

LEVELS = {"DEBUG": 0, "WARNING": 1, "ERROR": 2, "CRITICAL": 3, "INFO": 4, "DISABLE": 3}


class Log:
    """A threshold and the ``log(name, level, message)`` that honours it."""

    def __init__(self, level: str | int) -> None:
        if isinstance(level, int) and not isinstance(level, bool):
            self.threshold = level
        elif isinstance(level, str) and level in LEVELS:
            self.threshold = LEVELS[level]
        else:
            raise ValueError(f"Invalid log level: {level}")

    def log(self, name: str, level: str, message: str) -> None:
        if self.threshold > LEVELS[level]:
            return
        print(name.ljust(30) + " " + level.ljust(8) + " " + message)
