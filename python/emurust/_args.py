"""Argument conversion of the public classes: the friendly forms Python callers may pass
(palettes as ``(r, g, b)`` or ``0xRRGGBB``, action tables of button names, RAM address
lists from any iterable of integer-likes) checked and turned into the strict types the
native module takes, with the error messages the tests pin (``tests/test_screen.py``,
``tests/test_vec.py``, ``tests/test_bad_input.py``)."""

from __future__ import annotations

import operator
from typing import Any

from emurust._core import InvalidAddressError, InvalidArgumentError

__all__ = [
    "Palette",
    "action_table_arg",
    "as_int",
    "palette_arg",
    "ram_addresses_arg",
]

# The limits of the batched engine (rust/src/vec.rs MAX_ACTIONS, MAX_RAM_ADDRESSES; the core
# checks them again).
MAX_ACTIONS = 256
MAX_RAM_ADDRESSES = 0x1_0000

BUTTON_NAMES = ("a", "b", "start", "select", "up", "down", "left", "right")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def type_name(obj: object) -> str:
    return type(obj).__name__


def rust_repr(text: str) -> str:
    """``text`` quoted as the native module shows a string in its messages (Rust's
    ``{:?}``)."""
    escapes = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\0": "\\0"}
    out = []
    for ch in text:
        if ch in escapes:
            out.append(escapes[ch])
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(f"\\u{{{ord(ch):x}}}")
    return '"' + "".join(out) + '"'


Colour = tuple[int, int, int]
Palette = tuple[Colour, Colour, Colour, Colour]


def as_int(obj: object) -> int | None:
    """``obj`` as an int (``int``, ``bool``, or anything with ``__index__``, such as NumPy
    integers), or None when it is not integer-like."""
    if isinstance(obj, int):
        return int(obj)
    if hasattr(type(obj), "__index__"):
        return operator.index(obj)  # type: ignore[arg-type]
    return None


def _iterable(obj: object) -> bool:
    try:
        iter(obj)  # type: ignore[call-overload]
    except Exception:
        return False
    return True


def short_sequence(obj: object, most: int, what: str) -> list[Any]:
    """At most ``most + 1`` items of an iterable other than ``str`` (so that an endless
    iterator cannot hang us); TypeError with ``what`` otherwise."""
    if isinstance(obj, str):
        raise TypeError(what)
    try:
        it = iter(obj)  # type: ignore[call-overload]
    except Exception:
        raise TypeError(what) from None
    items = []
    for item in it:
        items.append(item)
        if len(items) > most:
            break
    return items


def _count(n: int, most: int) -> str:
    return "more" if n > most else str(n)


def colour_arg(obj: object, index: int) -> Colour:
    """One palette colour: an ``(r, g, b)`` sequence of ints 0..=255, or an int 0xRRGGBB
    (PyBoy's ``color_palette`` form)."""
    # A 1-D NumPy array has ``__index__`` (which raises), so iterables first.
    value = None if not isinstance(obj, int) and _iterable(obj) else as_int(obj)
    if value is not None:
        if not 0 <= value <= 0xFFFFFF:
            raise InvalidArgumentError(
                f"palette colour {index} is {value}; an int colour must be 0x000000..=0xFFFFFF"
            )
        return (value >> 16, (value >> 8) & 0xFF, value & 0xFF)
    items = short_sequence(
        obj,
        3,
        f"palette colour {index} must be an (r, g, b) sequence or an int 0xRRGGBB, "
        f"not {type_name(obj)}",
    )
    if len(items) != 3:
        raise InvalidArgumentError(
            f"palette colour {index} needs exactly 3 components (r, g, b), "
            f"got {_count(len(items), 3)}"
        )
    rgb = []
    for item in items:
        component = as_int(item)
        if component is None:
            raise TypeError(
                f"palette colour {index} components must be ints, not {type_name(item)}"
            )
        if not 0 <= component <= 255:
            raise InvalidArgumentError(
                f"palette colour {index} has component {component}, outside 0..=255"
            )
        rgb.append(component)
    return (rgb[0], rgb[1], rgb[2])


def palette_arg(obj: object) -> Palette:
    """A palette: 4 colours, lightest (shade 0) first. (``bytes`` is refused: its items
    would read as 0xRRGGBB ints.)"""
    what = f"palette must be a sequence of 4 colours ((r, g, b) or 0xRRGGBB), not {type_name(obj)}"
    if isinstance(obj, (bytes, bytearray)):
        raise TypeError(what)
    items = short_sequence(obj, 4, what)
    if len(items) != 4:
        raise InvalidArgumentError(
            "palette needs exactly 4 colours (shade 0, the lightest, first), "
            f"got {_count(len(items), 4)}"
        )
    c = [colour_arg(item, i) for i, item in enumerate(items)]
    return (c[0], c[1], c[2], c[3])


def button_name(obj: object, action: int) -> str:
    """The canonical (lower-case) name of a button named in action ``action`` of an action
    table (ASCII case-insensitive)."""
    if not isinstance(obj, str):
        raise TypeError(
            f"action {action} of action_table: button names must be str, not {type_name(obj)}"
        )
    name = obj.translate(_ASCII_LOWER)
    if name not in BUTTON_NAMES:
        raise InvalidArgumentError(
            f"action {action} of action_table: unknown button {rust_repr(obj)}; valid names "
            "are: a, b, start, select, up, down, left, right (case-insensitive)"
        )
    return name


def action_table_arg(obj: object) -> list[tuple[str, ...]] | None:
    """An action table other than ``"default"``: None (actions are bitmasks) or a sequence
    of actions, each a button name or a sequence of names (pressed together; empty =
    no-op), as lists of canonical names."""
    if obj is None:
        return None
    if isinstance(obj, str):
        raise InvalidArgumentError(
            'action_table must be "default", None or a sequence of actions, got the str '
            f"{rust_repr(obj)}"
        )
    entries = short_sequence(
        obj,
        MAX_ACTIONS,
        'action_table must be "default", None or a sequence of actions (each a button name '
        f"or a tuple of names), not {type_name(obj)}",
    )
    if not entries or len(entries) > MAX_ACTIONS:
        raise InvalidArgumentError(
            f"action_table needs 1 to {MAX_ACTIONS} actions, got "
            f"{'none' if not entries else 'more'}"
        )
    table: list[tuple[str, ...]] = []
    for i, entry in enumerate(entries):
        if isinstance(entry, str):
            table.append((button_name(entry, i),))
            continue
        names = short_sequence(
            entry,
            8,
            f"action {i} of action_table must be a button name or a tuple of names, "
            f"not {type_name(entry)}",
        )
        table.append(tuple(button_name(name, i) for name in names))
    return table


def ram_addresses_arg(obj: object) -> list[int]:
    """RAM addresses to gather: any iterable of integer-likes 0..=0xFFFF."""
    items = short_sequence(
        obj,
        MAX_RAM_ADDRESSES,
        "ram_addresses must be a sequence of ints (addresses 0x0000..=0xFFFF), "
        f"not {type_name(obj)}",
    )
    if len(items) > MAX_RAM_ADDRESSES:
        raise InvalidArgumentError(f"at most {MAX_RAM_ADDRESSES} ram_addresses")
    addresses = []
    for item in items:
        value = as_int(item)
        if value is None:
            raise TypeError(f"ram_addresses must hold ints, not {type_name(item)}")
        if not 0 <= value <= 0xFFFF:
            raise InvalidAddressError(f"ram address {value} is outside 0x0000..=0xFFFF")
        addresses.append(value)
    return addresses
