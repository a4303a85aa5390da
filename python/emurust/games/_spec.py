"""Game specs: what an RL environment needs to know about a game, as data.

A :class:`GameSpec` names the ROM, the actions, how observations are made, how the start state
is reached, and the reward and episode end as vectorized functions of named RAM
:class:`Field`\\ s. The environments (:mod:`emurust.envs`) read the fields of a whole batch of
envs at once (NumPy arrays whose first axis is the envs) and call the spec's functions once
per step for the batch: there is no Python loop over envs on the hot path.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, Union

import numpy as np
import numpy.typing as npt

from emurust import _core
from emurust._core import InvalidArgumentError

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = [
    "MODELS",
    "OBS_MODES",
    "OBS_SHAPES",
    "Action",
    "Driver",
    "Field",
    "GameSpec",
    "GameSpecError",
    "Novelty",
    "RamState",
    "RewardFn",
    "StartFn",
    "TerminatedFn",
    "UnknownGameError",
]

BUTTON_NAMES = ("a", "b", "start", "select", "up", "down", "left", "right")
OBS_SHAPES: Mapping[str, tuple[int, ...]] = {
    **{mode: shape for mode, shape in sorted(_core.OBS_SHAPES.items()) if mode != "none"},
    "ram": _core.OBS_SHAPES["none"],
}
"""One observation frame's shape for each spec ``obs`` mode: the screen modes of the Rust
engine (``VecGameBoy(obs=...)``; ``ObsMode`` in rust/src/vec.rs, the one definition, read
through ``emurust._core.OBS_SHAPES``) and ``"ram"``, no screen (the engine's ``"none"``)."""
OBS_MODES = tuple(OBS_SHAPES)
"""The valid ``GameSpec.obs`` values."""
MODELS = ("dmg", "cgb", "auto")

# The regions fields may live in: work RAM and high RAM are read straight from the
# emulators' memory (zero-copy views in emurust).
WRAM = range(0xC000, 0xE000)
HRAM = range(0xFF80, 0xFFFF)

# A byte of binary-coded decimal as the number its two digits make.
_BCD = np.array([(b >> 4) * 10 + (b & 0x0F) for b in range(256)], dtype=np.int64)

Action = tuple[str, ...]
"""Buttons pressed together for one action (``()`` is the no-op)."""

FieldKind = Literal["uint", "bcd", "bytes"]
RomLike = Union[str, "os.PathLike[str]", bytes]


class GameSpecError(InvalidArgumentError):
    """A game spec that cannot work: a bad field, an unknown button, a reward or termination
    function that returns the wrong shape or dtype."""


class UnknownGameError(InvalidArgumentError, KeyError):
    """A game id that no spec is registered under (the message lists the known ones)."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class Field:
    """Bytes of the address space with a meaning: ``size`` bytes from ``address``, decoded as
    an unsigned integer (``"uint"``, ``byteorder``), binary-coded decimal (``"bcd"``: each
    byte two digits, ``byteorder`` says which byte holds the lowest two) or left as bytes
    (``"bytes"``: a ``(num_envs, size)`` uint8 array). A ``uint`` field has 1 to 8 bytes and
    decodes as int64, or as uint64 when it has 8 (its values reach 2**64 - 1); a ``bcd``
    field has 1 to 8 bytes (int64), a ``bytes`` field 1 to 8192. Fields live in work RAM
    (0xC000-0xDFFF) or high RAM (0xFF80-0xFFFE)."""

    address: int
    size: int = 1
    kind: FieldKind = "uint"
    byteorder: Literal["little", "big"] = "little"

    def __post_init__(self) -> None:
        for what, value in (("address", self.address), ("size", self.size)):
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
                raise GameSpecError(f"a field's {what} must be an int, not {value!r}")
        if self.kind not in ("uint", "bcd", "bytes"):
            raise GameSpecError(f"field kind must be 'uint', 'bcd' or 'bytes', not {self.kind!r}")
        if self.byteorder not in ("little", "big"):
            raise GameSpecError(f"byteorder must be 'little' or 'big', not {self.byteorder!r}")
        most = 8 if self.kind != "bytes" else 0x2000
        if not 1 <= self.size <= most:
            raise GameSpecError(f"a {self.kind} field has 1 to {most} bytes, not {self.size}")
        end = self.address + self.size - 1
        if not any(self.address in r and end in r for r in (WRAM, HRAM)):
            raise GameSpecError(
                f"field at {self.address:#06x} ({self.size} bytes) must lie in work RAM "
                "(0xC000-0xDFFF) or high RAM (0xFF80-0xFFFE)"
            )

    def decode(self, raw: npt.NDArray[np.uint8]) -> npt.NDArray[Any]:
        """The field's values from its raw bytes, ``raw`` of shape ``(num_envs, size)``."""
        if self.kind == "bytes":
            return raw
        data = raw if self.byteorder == "little" else raw[:, ::-1]
        if self.kind == "uint" and self.size <= 2:  # the common cases, in fewer steps
            value = data[:, 0].astype(np.int64)
            if self.size == 2:
                value |= data[:, 1].astype(np.int64) << 8
            return value
        if self.kind == "uint":
            weights = np.left_shift(np.uint64(1), np.arange(self.size, dtype=np.uint64) * 8)
            value = (data.astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)
            # Up to 7 bytes fit int64; 8 bytes need uint64 (0xFF..FF is 2**64 - 1, not -1).
            return np.asarray(value, dtype=np.uint64 if self.size == 8 else np.int64)
        digits = _BCD[data]  # each byte's two digits as a number 0..99
        if self.size <= 2:
            return digits[:, 0] + 100 * digits[:, 1] if self.size == 2 else digits[:, 0]
        return np.asarray((digits * 100 ** np.arange(self.size)).sum(axis=1), dtype=np.int64)

    def encode(self, values: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.uint8]:
        """The bytes that hold ``values`` (a ``uint`` field; shape ``(n, size)``)."""
        if self.kind != "uint":
            raise GameSpecError(f"only uint fields can be written, not {self.kind}")
        v = values.astype(np.uint64)
        shifts = np.arange(self.size, dtype=np.uint64) * np.uint64(8)
        raw = np.asarray((v[:, None] >> shifts) & np.uint64(0xFF), dtype=np.uint8)
        return raw if self.byteorder == "little" else np.ascontiguousarray(raw[:, ::-1])


class RamState(Mapping[str, npt.NDArray[Any]]):
    """The decoded fields of a batch of envs: ``state.score`` (or ``state["score"]``) is an
    array with one entry (a row for ``"bytes"`` fields) per env. What reward and termination
    functions receive.

    Built from decoded ``values`` (a mapping of name to array), or, as the environments do,
    from the raw gathered bytes of a batch (``raw``, one row per env) and the ``columns``
    where each field's bytes start: a field is then decoded on first use.
    """

    __slots__ = ("_columns", "_raw", "_values")

    def __init__(
        self,
        values: Mapping[str, npt.NDArray[Any]] | None = None,
        *,
        raw: npt.NDArray[np.uint8] | None = None,
        columns: Mapping[str, tuple[int, Field]] | None = None,
    ) -> None:
        self._values = dict(values or {})
        self._raw = raw
        self._columns = columns or {}

    def __getitem__(self, name: str) -> npt.NDArray[Any]:
        value = self._values.get(name)
        if value is None:
            start, field = self._columns[name]  # KeyError for an unknown name
            assert self._raw is not None
            value = self._values[name] = field.decode(self._raw[:, start : start + field.size])
        return value

    def __getattr__(self, name: str) -> npt.NDArray[Any]:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(
                f"no field {name!r}; the spec's fields are {sorted(self)}"
            ) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._columns or self._values)

    def __len__(self) -> int:
        return len(self._columns or self._values)

    def __repr__(self) -> str:
        return f"RamState({', '.join(sorted(self))})"


RewardFn = Callable[[RamState, RamState], npt.ArrayLike]
"""``reward(before, after)``: one reward per env of the batch, from its fields before and
after the step (shape ``(n,)``, a real number type)."""

TerminatedFn = Callable[[RamState], npt.ArrayLike]
"""``terminated(after)``: whether each env's episode ended in the game (shape ``(n,)``,
bool)."""


class Driver(Protocol):
    """What a spec's start function drives: one emulator, from power-on, frame by frame. The
    same function runs on every backend (emurust, PyBoy), so the start state is the same game
    situation on both."""

    def run(self, frames: int) -> None:
        """Run ``frames`` frames with the buttons as they are."""

    def hold(self, buttons: Sequence[str], frames: int) -> None:
        """Press ``buttons``, run ``frames`` frames, release them."""

    def read(self, address: int) -> int:
        """The byte at ``address`` (no side effects)."""

    def run_until(self, predicate: Callable[[], bool], max_frames: int, what: str) -> None:
        """Run frame by frame until ``predicate()`` is true after a frame; after
        ``max_frames`` frames without it, raise :class:`GameSpecError` naming ``what``."""


StartFn = Callable[[Driver], None]
"""Brings a freshly powered-on machine to the start state of every episode."""


@dataclass(frozen=True)
class Novelty:
    """A bonus for reaching a new value of the ``fields`` key in an episode (exploration, as
    in the Pokémon RL projects: a new (map, x, y) tile). Keys are hashed into a per-env
    table of ``2**bits`` bits, cleared at each reset, so the check is vectorized; distinct
    keys that share a hash count once."""

    fields: tuple[str, ...]
    bonus: float
    bits: int = 20

    def __post_init__(self) -> None:
        if not 10 <= self.bits <= 28:
            raise GameSpecError(f"novelty bits must be between 10 and 28, not {self.bits}")
        if not self.fields:
            raise GameSpecError("a novelty bonus needs at least one field")


@dataclass(frozen=True)
class GameSpec:
    """Everything an environment needs to know about a game.

    ``name`` is the game's id (``emurust.games.get(name)``; Gymnasium id
    ``emurust/<name>-v0``). ``rom`` is the image, a path, or a function that finds it (ROMs
    that cannot ship: it raises :class:`FileNotFoundError` with a message that says where
    to put the file). ``actions`` lists the buttons of each action. ``fields`` names the RAM
    the reward, termination, RAM observations and seeding read. ``reward(before, after)``
    and ``terminated(after)`` are vectorized over the envs (see :class:`RamState`);
    ``truncated(after)`` (same form) and ``max_episode_steps`` truncate episodes. ``start``
    brings a powered-on machine to the start state (``None``: power-on itself), or
    ``initial_state`` is one (emurust save-state bytes or a path to them; emurust backend
    only); ``seed_field`` names a ``uint`` field that
    holds the game's random state: each episode writes a value derived from the env's seed
    there, never 0. An action holds its buttons ``hold_frames`` frames (default: the whole
    step), a step lasts ``frame_skip`` frames and only the last is drawn; ``obs`` is the
    screen mode (``"gray"`` 144x160, ``"gray_half"`` 72x80, ``"rgb"``, ``"shades"``) or
    ``"ram"``: no screen at all (no frame is drawn), the observation is the bytes of
    ``ram_obs_fields`` (default: ``obs_fields``) as a uint8 vector, for policies that read
    RAM only. ``frame_stack`` is the number of frames per observation (screen modes),
    ``obs_fields`` the fields shown to the policy as a RAM vector beside the screen.
    ``model`` is the machine: ``"dmg"`` (the default), ``"cgb"`` (the Game Boy Color) or
    ``"auto"`` (the CGB when header byte 0x143 has bit 7 set), as ``GameBoy(model=...)``;
    the PyBoy backend runs the DMG only.
    """

    name: str
    rom: RomLike | Callable[[], RomLike]
    actions: tuple[Action, ...]
    fields: Mapping[str, Field]
    reward: RewardFn
    terminated: TerminatedFn | None = None
    max_episode_steps: int | None = None
    start: StartFn | None = None
    seed_field: str | None = None
    truncated: TerminatedFn | None = None
    initial_state: bytes | str | os.PathLike[str] | None = None
    frame_skip: int = 4
    hold_frames: int | None = None
    obs: str = "gray_half"
    frame_stack: int = 1
    obs_fields: tuple[str, ...] = ()
    ram_obs_fields: tuple[str, ...] = ()
    novelty: Novelty | None = None
    description: str = ""
    reward_range: tuple[float, float] = (-float("inf"), float("inf"))
    extra: Mapping[str, Any] = field(default_factory=dict)
    model: str = "dmg"

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_]*", self.name):
            raise GameSpecError(f"a game name is a word (letters, digits, _), not {self.name!r}")
        if not self.actions:
            raise GameSpecError("a game needs at least one action")
        if len(self.actions) > 256:
            raise GameSpecError(f"at most 256 actions, got {len(self.actions)}")
        for i, action in enumerate(self.actions):
            if isinstance(action, str) or not all(isinstance(b, str) for b in action):
                raise GameSpecError(
                    f"action {i} must be a tuple of button names (() for no-op), not {action!r}"
                )
            for b in action:
                if b.lower() not in BUTTON_NAMES:
                    raise GameSpecError(
                        f"action {i}: unknown button {b!r}; valid names are "
                        f"{', '.join(BUTTON_NAMES)}"
                    )
        for name, f in self.fields.items():
            if not isinstance(f, Field):
                raise GameSpecError(f"field {name!r} must be a Field, not {type(f).__name__}")
            if not isinstance(name, str) or not name:
                raise GameSpecError(f"a field name is a non-empty str, not {name!r}")
            if hasattr(RamState, name):
                # state.values would be the method, not the field: refused here rather
                # than failing oddly inside a reward function.
                raise GameSpecError(
                    f"field name {name!r} clashes with RamState.{name} (reward functions "
                    f"read fields as state.<name>); rename the field"
                )
        if self.model not in MODELS:
            raise GameSpecError(f"unknown model {self.model!r}; valid models are {MODELS}")
        if self.obs not in OBS_MODES:
            raise GameSpecError(f"unknown obs mode {self.obs!r}; valid modes are {OBS_MODES}")
        if not 1 <= self.frame_skip <= 3600:
            raise GameSpecError(f"frame_skip must be between 1 and 3600, got {self.frame_skip}")
        if self.hold_frames is not None and not 0 <= self.hold_frames <= self.frame_skip:
            raise GameSpecError(
                f"hold_frames must be between 0 and frame_skip ({self.frame_skip}), "
                f"got {self.hold_frames}"
            )
        if not 1 <= self.frame_stack <= 64:
            raise GameSpecError(f"frame_stack must be between 1 and 64, got {self.frame_stack}")
        if self.start is not None and self.initial_state is not None:
            raise GameSpecError("give a start function or an initial state, not both")
        if self.max_episode_steps is not None and self.max_episode_steps < 1:
            raise GameSpecError(
                f"max_episode_steps must be at least 1 (or None), got {self.max_episode_steps}"
            )
        for name in self.obs_fields:
            self._field(name, "obs_fields")
        for name in self.ram_obs_fields:
            self._field(name, "ram_obs_fields")
        if self.obs == "ram" and not (self.ram_obs_fields or self.obs_fields):
            raise GameSpecError(
                f'obs="ram" observes RAM only, but {self.name} names no fields to observe: '
                "give ram_obs_fields (or obs_fields)"
            )
        if self.obs == "ram" and self.frame_stack != 1:
            raise GameSpecError(
                f'obs="ram" draws no frames to stack: frame_stack must be 1, got {self.frame_stack}'
            )
        if (
            self.seed_field is not None
            and self._field(self.seed_field, "seed_field").kind != "uint"
        ):
            raise GameSpecError(f"seed_field {self.seed_field!r} must be a uint field")
        if self.novelty is not None:
            for name in self.novelty.fields:
                if self._field(name, "novelty").kind != "uint":
                    raise GameSpecError(f"novelty field {name!r} must be a uint field")

    def _field(self, name: str, where: str) -> Field:
        try:
            return self.fields[name]
        except KeyError:
            raise GameSpecError(
                f"{where} names {name!r}, which is not one of the fields {sorted(self.fields)}"
            ) from None

    @property
    def id(self) -> str:
        """The Gymnasium id: ``emurust/<name>-v0``."""
        return f"emurust/{self.name}-v0"

    @property
    def hold(self) -> int:
        """Frames an action's buttons are held (``hold_frames``, default ``frame_skip``)."""
        return self.frame_skip if self.hold_frames is None else self.hold_frames

    @property
    def observed_fields(self) -> tuple[str, ...]:
        """The fields of the RAM observation: ``obs_fields`` beside a screen; with
        ``obs="ram"``, ``ram_obs_fields`` (or ``obs_fields`` when that is empty)."""
        if self.obs == "ram":
            return self.ram_obs_fields or self.obs_fields
        return self.obs_fields

    @property
    def obs_addresses(self) -> tuple[int, ...]:
        """The bytes of :attr:`observed_fields`, in order: the RAM observation."""
        return tuple(
            a
            for name in self.observed_fields
            for a in range(
                self.fields[name].address, self.fields[name].address + self.fields[name].size
            )
        )

    @property
    def gathered_addresses(self) -> tuple[int, ...]:
        """The bytes an engine gathers after every step: ``obs_addresses``, then each
        field's bytes in the order of ``fields`` (see :attr:`field_columns`)."""
        spans = self.fields.values()
        return self.obs_addresses + tuple(
            a for f in spans for a in range(f.address, f.address + f.size)
        )

    @property
    def field_columns(self) -> dict[str, tuple[int, Field]]:
        """Where each field's bytes start in :attr:`gathered_addresses`, and the field."""
        columns, at = {}, len(self.obs_addresses)
        for name, f in self.fields.items():
            columns[name] = (at, f)
            at += f.size
        return columns

    def rom_source(self) -> RomLike:
        """The ROM (resolving a finder function)."""
        return self.rom() if callable(self.rom) else self.rom

    def replace(self, **changes: Any) -> Self:
        """A copy with ``changes`` (checked again)."""
        return dataclasses.replace(self, **changes)
