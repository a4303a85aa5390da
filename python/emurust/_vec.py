"""The public :class:`VecGameBoy`: the native batched engine, with its friendly arguments
(ROM paths, action tables of button names, RAM address lists from any iterable) converted in
Python."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, SupportsIndex, Union

from emurust import _core
from emurust._args import action_table_arg, ram_addresses_arg
from emurust._core import MAX_ROM_SIZE
from emurust._gameboy import RomSource, boot_rom_limit, read_image

if TYPE_CHECKING:
    from typing_extensions import Self

    from emurust._core import Snapshot

ActionTable = Union[str, Sequence[Union[str, Sequence[str]]], None]
"""``"default"``, None (actions are button bitmasks) or a sequence of actions, each a button
name or a sequence of names pressed together."""


class VecGameBoy(_core.VecGameBoy):
    """N Game Boys of one ROM, stepped in parallel by Rust threads: see docs/api.md
    (``VecGameBoy``) and the methods of :class:`emurust._core.VecGameBoy`.

    ``rom`` and ``boot_rom`` are paths or bytes-like data, as for :class:`GameBoy`;
    ``ram_addresses`` is any iterable of integer addresses 0..=0xFFFF (NumPy arrays
    included); ``action_table`` is ``"default"`` (the four directions, A, B, START and a
    no-op), None (actions are button bitmasks) or a sequence of actions, each a button name
    or a sequence of names (case-insensitive; empty = no-op). ``model`` is ``"dmg"`` (the
    default), ``"cgb"`` or ``"auto"``, as for :class:`GameBoy`."""

    __slots__ = ()

    def __new__(
        cls,
        rom: RomSource,
        num_envs: SupportsIndex,
        *,
        frame_skip: SupportsIndex | None = None,
        hold_frames: SupportsIndex | None = None,
        num_threads: SupportsIndex | None = None,
        obs: str | None = None,
        ram_addresses: Iterable[SupportsIndex] | None = None,
        initial_state: bytes | bytearray | Snapshot | None = None,
        action_table: ActionTable = "default",
        frame_stack: SupportsIndex | None = None,
        boot_rom: RomSource | None = None,
        model: str = "dmg",
    ) -> Self:
        kwargs: dict[str, Any] = {}
        if ram_addresses is not None:
            kwargs["ram_addresses"] = ram_addresses_arg(ram_addresses)
        if not (isinstance(action_table, str) and action_table == "default"):
            kwargs["action_table"] = action_table_arg(action_table)
        if boot_rom is not None:
            kwargs["boot_rom"] = read_image(boot_rom, "boot_rom", boot_rom_limit(model))
        return super().__new__(
            cls,
            read_image(rom, "rom", MAX_ROM_SIZE),
            num_envs,
            frame_skip=frame_skip,
            hold_frames=hold_frames,
            num_threads=num_threads,
            obs=obs,
            initial_state=initial_state,
            frame_stack=frame_stack,
            model=model,
            **kwargs,
        )
