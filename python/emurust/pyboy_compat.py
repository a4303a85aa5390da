"""``emurust.PyBoy``: PyBoy 2.x's API on the emurust core, for RL code written against PyBoy.

Replace ``from pyboy import PyBoy`` with ``from emurust import PyBoy``. The class follows
PyBoy 2.8.1's behaviour: frames end where PyBoy's ``tick()`` ends them (LY 153 -> 0), buttons
and ``send_input`` events are queued and applied at the start of a frame as PyBoy does,
``screen.ndarray`` is a (144, 160, 4) RGBA array in PyBoy's default colours updated in place,
``memory`` reads and writes the address space and its banks, hooks run a callback before the
instruction at a ``(bank, address)``, and ``load_state`` reads PyBoy's own save states. What
differs, and what is not supported (it raises ``NotImplementedError`` naming the feature), is
listed in docs/pyboy.md. This module does not import PyBoy.
"""

from __future__ import annotations

import heapq
import os
import random
import re
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from typing_extensions import Self

from emurust._core import EmuRustWarning
from emurust._gameboy import GameBoy, read_state
from emurust._pyboy_adapter import PYBOY_GREYS
from emurust.pyboy._args import as_index, check_binary
from emurust.pyboy._boot import boot_rom
from emurust.pyboy._cartridge import (
    BATTERY_TYPES,
    MBC2_TYPES,
    RAM_BANKS,
    RTC_TYPES,
    cartridge_title,
    cgb_palettes,
    pick_cgb,
    rom_bytes,
    with_pyboys_ram,
)

# emurust.PyBoy raises exceptions that are both PyBoy's (pyboy.utils) and emurust's own:
# the names InvalidArgumentError and InvalidAddressError are bound here to those twins
# (InvalidInputError is a PyBoyInvalidInputException and an emurust.InvalidArgumentError,
# OutOfBoundsError a PyBoyOutOfBoundsException and an emurust.InvalidAddressError).
from emurust.pyboy._errors import InvalidInputError as InvalidArgumentError
from emurust.pyboy._errors import (
    InvalidOperationError,
    NotSupportedError,
    PyBoyStateError,
    translate,
)
from emurust.pyboy._errors import OutOfBoundsError as InvalidAddressError
from emurust.pyboy._events import WindowEvent
from emurust.pyboy._log import Log
from emurust.pyboy._memory import PyBoyMemoryView, PyBoyRegisterFile
from emurust.pyboy.api.gameshark import GameShark
from emurust.pyboy.api.memory_scanner import MemoryScanner
from emurust.pyboy.api.screen import Screen
from emurust.pyboy.api.sound import Sound
from emurust.pyboy.api.sprite import Sprite
from emurust.pyboy.api.tile import Tile
from emurust.pyboy.api.tilemap import TileMap
from emurust.pyboy.utils import PyBoyException

if TYPE_CHECKING:
    from emurust.pyboy.plugins.base_plugin import PyBoyGameWrapper

__all__ = ["PyBoy", "PyBoyMemoryView", "PyBoyRegisterFile", "WindowEvent"]

_EMURUST_STATE_MAGIC = b"EMURUST\0"
_DEFAULT_PALETTE = tuple(g << 16 | g << 8 | g for g in PYBOY_GREYS)
_WINDOWS = ("SDL2", "OpenGL", "GLFW", "null", "headless", "dummy")
_HEADLESS = ("null", "headless", "dummy")
# PyBoy's plugin keyword arguments (pyboy --help); truthy values are not supported here.
_PLUGIN_KWARGS = (
    "autopause",
    "breakpoints",
    "printer",
    "printer_output",
    "record_input",
    "rewind",
    "game_wrapper",
    "debug",
    "sound",
)


# Button name -> (press event, release event, emurust button).
_BUTTON_EVENTS = {
    "up": (WindowEvent.PRESS_ARROW_UP, WindowEvent.RELEASE_ARROW_UP),
    "down": (WindowEvent.PRESS_ARROW_DOWN, WindowEvent.RELEASE_ARROW_DOWN),
    "right": (WindowEvent.PRESS_ARROW_RIGHT, WindowEvent.RELEASE_ARROW_RIGHT),
    "left": (WindowEvent.PRESS_ARROW_LEFT, WindowEvent.RELEASE_ARROW_LEFT),
    "a": (WindowEvent.PRESS_BUTTON_A, WindowEvent.RELEASE_BUTTON_A),
    "b": (WindowEvent.PRESS_BUTTON_B, WindowEvent.RELEASE_BUTTON_B),
    "select": (WindowEvent.PRESS_BUTTON_SELECT, WindowEvent.RELEASE_BUTTON_SELECT),
    "start": (WindowEvent.PRESS_BUTTON_START, WindowEvent.RELEASE_BUTTON_START),
}
_EVENT_BUTTON: dict[int, tuple[str, bool]] = {}
for _name, (_press, _release) in _BUTTON_EVENTS.items():
    _EVENT_BUTTON[_press] = (_name, True)
    _EVENT_BUTTON[_release] = (_name, False)
_SUPPORTED_EVENTS = frozenset(
    set(_EVENT_BUTTON)
    | {
        WindowEvent.QUIT,
        WindowEvent.PASS,
        WindowEvent.PAUSE,
        WindowEvent.UNPAUSE,
        WindowEvent.PAUSE_TOGGLE,
        WindowEvent.RELEASE_SPEED_UP,
        WindowEvent.STATE_LOAD,
        WindowEvent.STATE_SAVE,
        WindowEvent.CYCLE_PALETTE,
        WindowEvent.SCREENSHOT_RECORD,
        WindowEvent.SCREEN_RECORDING_TOGGLE,
    }
)
# PyBoy 2.8.1's named DMG palettes, in the order WindowEvent.CYCLE_PALETTE goes through them.
_DMG_PALETTES = (
    ("SameBoy DMG", (0xC6DE8C, 0x84A563, 0x396139, 0x081810)),
    ("Classic Green", (0x9BBC0F, 0x8BAC0F, 0x306230, 0x0F380F)),
    ("Parchment", (0xE0DBCD, 0xA89F94, 0x706B64, 0x2B2B26)),
    ("Mossy", (0xC4CFA1, 0x8B956D, 0x4D533C, 0x1F1F1C)),
    ("Grey", (0xFFFFFF, 0x999999, 0x555555, 0x000000)),
)


class PyBoy:
    """PyBoy 2.x's ``PyBoy`` class on the emurust core (see the module docstring and
    docs/pyboy.md). Arguments as PyBoy's; headless only (``window="null"``, the default).
    ``cgb`` as in PyBoy: ``None`` picks the Game Boy Color for a cartridge whose header byte
    0x143 has bit 7 set (or, with ``bootrom=``, when the boot ROM is longer than 256 bytes),
    ``True`` / ``False`` force the CGB / the DMG; a CGB starts from its post-boot state (no
    boot ROM runs)."""

    def __init__(
        self,
        gamerom: str | os.PathLike[str] | IO[bytes],
        *,
        ram_file: IO[bytes] | None = None,
        rtc_file: IO[bytes] | None = None,
        window: str = "null",
        scale: int = 3,
        symbols: str | os.PathLike[str] | None = None,
        bootrom: str | os.PathLike[str] | None = None,
        sound_volume: int = 100,
        sound_emulated: bool = False,
        sound_sample_rate: int | None = None,
        cgb: bool | None = None,
        gameshark: str | None = None,
        no_input: bool = False,
        log_level: str = "WARNING",
        color_palette: Sequence[int] = _DEFAULT_PALETTE,
        cgb_color_palette: Sequence[Sequence[int]] | None = None,
        title_status: bool = False,
        serial_shared_memory: Any = None,
        serial_interrupt_based: bool = False,
        sgb_border: bool = False,
        **kwargs: Any,
    ) -> None:
        self.stopped = False
        self.initialized = False
        if window not in _WINDOWS:
            raise KeyError(
                f'Unknown window type: {window}. Use "SDL2", "OpenGL", "GLFW", or "null"'
            )
        if window not in _HEADLESS:
            raise NotSupportedError(f"window={window!r}: emurust.PyBoy runs headless only")
        self._log = Log(log_level)
        if window in ("headless", "dummy"):
            self._log.log(
                "pyboy.plugins.window_null",
                "ERROR",
                'Deprecated use of "headless" or "dummy" window. Change to "null" window '
                "instead. https://github.com/Baekalfen/PyBoy/wiki/Migrating-from-v1.x.x-to-v2.0.0",
            )
        randomize = bool(kwargs.pop("randomize", False))  # PyBoy's undocumented option
        for name, value in kwargs.items():
            if name not in _PLUGIN_KWARGS:
                raise KeyError(f"Unknown keyword argument: {name}")
            if value:
                raise NotSupportedError(f"{name}={value!r} (a PyBoy plugin) is not supported")
        if serial_shared_memory is not None:
            raise NotSupportedError("serial_shared_memory (link cable) is not supported")
        if sgb_border:
            raise NotSupportedError("sgb_border=True: SGB features are not emulated")
        if rtc_file is not None:
            raise NotSupportedError("rtc_file: PyBoy's .rtc files are not read")
        if not 0 <= sound_volume <= 100:
            raise InvalidArgumentError("Sound volume has to be between 0 and 100.")

        data, path = rom_bytes(gamerom)
        self.gamerom: str | None = path
        self._rom = data
        self._rom_banks = max(1, len(data) // 0x4000)
        user_boot = None if bootrom is None else Path(os.fspath(bootrom)).read_bytes()
        self._cgb = pick_cgb(cgb, data, user_boot)
        self._cgb_palettes = cgb_palettes(cgb_color_palette)
        # Without bootrom=, emurust's own DMG boot ROM runs (PyBoy runs its own): the game
        # starts at PyBoy's cycle, in PyBoy's post-boot state (emurust/pyboy/_boot.py). A
        # CGB starts from its post-boot state: emurust has no CGB boot ROM of PyBoy's timing;
        # a CGB boot ROM given as bootrom= (2,304 bytes) runs.
        self._default_boot = bootrom is None
        if self._cgb:
            self._boot_rom: bytes | None = user_boot
        elif user_boot is None:
            self._boot_rom = boot_rom()
        else:
            self._boot_rom = user_boot
        self._sound_emulated = bool(sound_emulated)
        self._sound_last = True
        self._sample_rate = 48000 if sound_sample_rate is None else int(sound_sample_rate)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EmuRustWarning)  # header warnings: PyBoy's too
            self._gb = GameBoy(
                with_pyboys_ram(data),
                boot_rom=self._boot_rom,
                sound_sample_rate=self._sample_rate if self._sound_emulated else None,
                model="cgb" if self._cgb else "dmg",
            )
        if len(data) > 0x149 and with_pyboys_ram(data) is not data:
            self._gb._patch_rom(0x147, data[0x147:0x14A])  # the header as the game reads it
        cart_type = data[0x147] if len(data) > 0x147 else 0
        self._battery = cart_type in BATTERY_TYPES
        self._rtc = cart_type in RTC_TYPES
        self._mbc2 = cart_type in MBC2_TYPES
        self._cart_ram_size = len(self._gb.cartridge_ram) - (48 if self._rtc else 0)
        ram_size_code = data[0x149] if len(data) > 0x149 else 0
        self._pyboy_ram_bytes = RAM_BANKS.get(ram_size_code, 1) * 0x2000
        # As PyBoy: RAM files are read for battery-backed cartridges only.
        if ram_file is None and path is not None and os.path.isfile(path + ".ram"):
            if self._battery:
                with open(path + ".ram", "rb") as f:
                    self._load_ram(f.read())
        elif ram_file is not None and self._battery:
            self._load_ram(ram_file.read())
        if self._rtc and path is not None and os.path.isfile(path + ".rtc"):
            warnings.warn(
                f"{path}.rtc (PyBoy's clock file) is not read: the clock starts at 0",
                EmuRustWarning,
                stacklevel=2,
            )

        if randomize:  # random WRAM and HRAM at power-on, as PyBoy's randomize=True
            rng = random.Random()
            self._gb.memory[0xC000:0xE000] = bytes(rng.getrandbits(8) for _ in range(0x2000))
            self._gb.memory[0xFF80:0xFFFF] = bytes(rng.getrandbits(8) for _ in range(0x7F))

        self.rom_symbols: dict[int, dict[int, list[str]]] = {}
        self.rom_symbols_inverse: dict[str, tuple[int, int]] = {}
        if symbols is not None and not os.path.isfile(os.fspath(symbols)):
            raise FileNotFoundError(f"Symbols file {os.fspath(symbols)} was not found!")
        self.symbols_file = None if symbols is None else os.fspath(symbols)
        self._load_symbols()

        self.frame_count = 0
        self.target_emulationspeed = 0
        self.paused = False
        self.quitting = False
        self.events: list[int] = []
        self.queued_input: list[tuple[int, int]] = []
        self._hooks: dict[tuple[int, int], tuple[Callable[[Any], Any], Any]] = {}
        self._serial_read = 0
        self.cartridge_title = cartridge_title(data)
        self._mem = self._gb.memory  # the native view, kept (each access makes a new one)
        self.screen = Screen(self)
        self._gb._record_line_registers(True)  # for screen.tilemap_position_list
        if self._cgb:
            self.screen._set_cgb_palettes(
                self._cgb_palettes, self._gb.cgb_mode, follow=self._boot_rom is not None
            )
            self.screen._update()
        else:
            self.set_color_palette(color_palette)
        self.register_file = PyBoyRegisterFile(self._gb)
        self.memory = PyBoyMemoryView(self)
        self.tilemap_background = TileMap(self, "BACKGROUND")
        self.tilemap_window = TileMap(self, "WINDOW")
        self.sound = Sound(self)
        self._game_wrapper: PyBoyGameWrapper | None = None
        self._palette_index = 0
        self._recording: list[Any] | None = None
        self.memory_scanner = MemoryScanner(self)
        self.gameshark = GameShark(self.memory)
        if gameshark:
            for code in gameshark.split(","):
                self.gameshark.add(code.strip())
        self.initialized = True

    # ---- emulation ------------------------------------------------------------------

    def tick(self, count: int = 1, render: bool = True, sound: bool = True) -> bool:
        """Runs ``count`` frames (PyBoy's frames: each ends as LY wraps from 153 to 0),
        drawing the last one if ``render``; queued inputs are applied at the start of the
        frame they are due in, hooks run their callbacks. Returns False once a ``QUIT`` event
        was handled, as PyBoy does (and False for ``count=0``)."""
        if self.stopped:
            raise InvalidOperationError("Emulator is stopped")
        try:
            left = as_index(count, "count")
        except TypeError:
            raise InvalidArgumentError("count must be a non-negative integer") from None
        if left < 0:
            raise InvalidArgumentError("count must be a non-negative integer")
        running = False
        rendered = False
        while left > 0:
            self._handle_events()
            if self.paused:
                n = 1
            else:
                # Frames up to the next queued input run in one call.
                n = left
                if self.queued_input:
                    n = max(1, min(n, self.queued_input[0][0] - self.frame_count))
                self._run(n, render and n == left, sound and n == left)  # counts frames
                rendered = rendered or (render and n == left)
            left -= n
            running = not self.quitting
            self._post_handle_events()
        if rendered:
            self.screen._update()
        self._post_tick()
        return running

    def _run(self, frames: int, render: bool, sound: bool = False) -> None:
        """Runs ``frames`` frames, drawing the last if ``render`` and calling the hooks they
        hit; ``frame_count`` counts each frame as it ends (so a hook sees the frames
        completed before its own, and the frames before a hook that raised or a Ctrl-C
        count). As in PyBoy, sound is sampled in the last frame only, when ``sound``;
        GameShark codes are written before every frame."""
        gb = self._gb
        sampled = self._sound_emulated and sound
        if self._sound_emulated and gb.sound_sample_rate is not None:
            gb.sound_sample_rate = None  # frames before the last are not sampled
        self._sound_last = sampled
        per_frame = self.gameshark.enabled
        while frames > 0:
            n = 1 if per_frame else frames
            if sampled and n == frames > 1:
                n -= 1  # the last frame runs on its own, sampled
            if sampled and n == frames:
                gb.sound_sample_rate = self._sample_rate
            if per_frame:
                self.gameshark.tick()
            last = n == frames
            while n > 0:
                before = gb.frame_count
                try:
                    done, hit = gb._pyboy_tick(n, render and last)
                except BaseException:  # Ctrl-C: the frames that ran before it still count
                    self.frame_count += gb.frame_count - before
                    raise
                n -= done
                frames -= done
                self.frame_count += done
                if hit is not None:
                    callback, context = self._hooks[hit]
                    callback(context)

    def _handle_events(self) -> None:
        for event in self.events:
            button = _EVENT_BUTTON.get(event)
            if button is not None:
                name, press = button
                if press:
                    self._gb.button_press(name)
                else:
                    self._gb.button_release(name)
            elif event == WindowEvent.QUIT:
                self.quitting = True
            elif event == WindowEvent.RELEASE_SPEED_UP:
                self.target_emulationspeed = int(bool(self.target_emulationspeed) ^ True)
            elif event == WindowEvent.PAUSE:
                self.paused = True
            elif event == WindowEvent.UNPAUSE:
                self.paused = False
            elif event == WindowEvent.PAUSE_TOGGLE:
                self.paused = not self.paused
            elif event == WindowEvent.STATE_LOAD:
                self._state_load_event()
            elif event == WindowEvent.STATE_SAVE:
                self._state_save_event()
            elif event == WindowEvent.CYCLE_PALETTE:
                name, palette = _DMG_PALETTES[self._palette_index % len(_DMG_PALETTES)]
                self._palette_index += 1
                self.set_color_palette(palette)
                self._log.log("pyboy.pyboy", "INFO", f"Palette: {name}")
            elif event == WindowEvent.SCREENSHOT_RECORD:
                self._screenshot()
            elif event == WindowEvent.SCREEN_RECORDING_TOGGLE:
                self._toggle_recording()

    def _state_save_event(self) -> None:
        """``WindowEvent.STATE_SAVE``: PyBoy writes ``<gamerom>.state`` in its format."""
        if self.gamerom is None:
            self._log.log(
                "pyboy.pyboy",
                "ERROR",
                "Failed to save game state. PyBoy is loaded without a filepath.",
            )
            return
        with open(self.gamerom + ".state", "wb") as f:
            self.save_state(f, state_format="pyboy")

    def _screenshot(self) -> None:
        """``WindowEvent.SCREENSHOT_RECORD``: the screen as a PNG in ``screenshots/``."""
        directory = os.path.join(os.path.curdir, "screenshots")
        os.makedirs(directory, mode=0o755, exist_ok=True)
        path = os.path.join(
            directory, time.strftime(f"{self.cartridge_title}-%Y.%m.%d-%H.%M.%S.png")
        )
        self.screen.image.save(path)
        self._log.log("pyboy.plugins.screenshot_recorder", "INFO", f"Screenshot saved in {path}")

    def _toggle_recording(self) -> None:
        """``WindowEvent.SCREEN_RECORDING_TOGGLE``: the screen after every ``tick`` until
        the next toggle, then saved as a GIF in ``recordings/``."""
        name = "pyboy.plugins.screen_recorder"
        if self._recording is None:
            self._recording = []
            return
        frames, self._recording = self._recording, None
        self._log.log(name, "INFO", "ScreenRecorder saving...")
        if not frames:
            self._log.log(name, "ERROR", "Screen recording failed: no frames")
            return
        directory = os.path.join(os.path.curdir, "recordings")
        os.makedirs(directory, mode=0o755, exist_ok=True)
        path = os.path.join(
            directory, time.strftime(f"{self.cartridge_title}-%Y.%m.%d-%H.%M.%S.gif")
        )
        frames[0].save(
            path,
            save_all=True,
            interlace=False,
            loop=0,
            optimize=True,
            append_images=frames[1:],
            duration=20,
        )
        self._log.log(name, "INFO", f"Screen recording saved in {path}")

    def _post_tick(self) -> None:
        if self._recording is not None:
            self._recording.append(self.screen.image.copy())

    def _state_load_event(self) -> None:
        """``WindowEvent.STATE_LOAD``: PyBoy loads ``<gamerom>.state``."""
        path = None if self.gamerom is None else self.gamerom + ".state"
        if path is None or not os.path.isfile(path):
            warnings.warn(
                f"STATE_LOAD: no state file {path or '(the ROM was not given by path)'}",
                EmuRustWarning,
                stacklevel=3,
            )
            return
        with open(path, "rb") as f:
            self.load_state(f)

    def _post_handle_events(self) -> None:
        self.events = []
        while self.queued_input and self.frame_count == self.queued_input[0][0]:
            _, event = heapq.heappop(self.queued_input)
            self.events.append(event)

    def set_emulation_speed(self, target_speed: int) -> None:
        """Stored as PyBoy stores it; like PyBoy's null window, emurust.PyBoy never sleeps."""
        self.target_emulationspeed = target_speed

    # ---- input ----------------------------------------------------------------------

    def _button_events(self, input: str) -> tuple[int, int]:
        if not isinstance(input, str):
            raise TypeError(f"button name must be a str, not {type(input).__name__}")
        events = _BUTTON_EVENTS.get(input.lower())
        if events is None:
            raise InvalidArgumentError(f"Unrecognized input: {input}")
        return events

    def button(self, input: str, delay: int = 1) -> None:
        """Presses ``input`` at the start of the next frame and releases it ``delay`` frames
        later (PyBoy's ``button``)."""
        press, release = self._button_events(input)
        delay = as_index(delay, "delay")  # checked now: a bad delay never leaves A held
        if delay < 0:
            raise InvalidArgumentError(f"delay must be a non-negative int (frames), not {delay}")
        self.send_input(press)
        self.send_input(release, delay)

    def button_press(self, input: str) -> None:
        self.send_input(self._button_events(input)[0])

    def button_release(self, input: str) -> None:
        self.send_input(self._button_events(input)[1])

    def send_input(self, event: int, delay: int = 0) -> None:
        """Queues a ``WindowEvent`` for the start of the next frame, or ``delay`` frames
        later."""
        event = as_index(event, "event")
        if event not in _SUPPORTED_EVENTS:
            raise NotSupportedError(
                f"send_input({WindowEvent(event)}): only button, QUIT, PASS, pause, speed, "
                "state, palette, screenshot and GIF recording events are supported"
            )
        if delay:
            if not delay > 0:
                raise InvalidArgumentError("Only positive integers allowed")
            heapq.heappush(self.queued_input, (self.frame_count + delay, event))
        else:
            self.events.append(event)

    # ---- state ----------------------------------------------------------------------

    def save_state(self, file_like_object: IO[bytes], *, state_format: str = "emurust") -> None:
        """Writes the machine's state to a binary file-like object: emurust's own format
        (the default; ``load_state`` reads it, PyBoy cannot), or with
        ``state_format="pyboy"`` PyBoy 2.8.1's, which PyBoy loads and continues from as it
        would from its own (written at a frame end, as ``tick`` leaves the machine; the
        sound section is a ``sound_emulated=False`` PyBoy's: docs/pyboy.md)."""
        check_binary(file_like_object, "save_state")
        if state_format == "pyboy":
            try:
                data = self._gb.save_pyboy_state()
            except Exception as e:
                twin = translate(e)
                if twin is e:
                    raise
                raise twin from None
        elif state_format == "emurust":
            data = self._gb.save_state()
        else:
            raise InvalidArgumentError(
                f"state_format must be 'emurust' or 'pyboy', not {state_format!r}"
            )
        file_like_object.write(data)

    def load_state(self, file_like_object: IO[bytes]) -> None:
        """Reads a state from a binary file-like object: one written by :meth:`save_state`,
        or one written by PyBoy 2.8.1's ``save_state`` (``InvalidStateError`` names the
        problem with any other). As in PyBoy, a state saved while another ROM was running
        loads too, provided the cartridges have the same memory bank controller and RAM
        size (the usual way to start many ROMs from one point)."""
        check_binary(file_like_object, "load_state")
        data = read_state(file_like_object, "load_state")  # bounded: not /dev/zero
        try:
            if data.startswith(_EMURUST_STATE_MAGIC):
                self._gb.load_state(data, check_rom=False)
            else:
                if self._default_boot and len(data) > 1 and data[1]:
                    raise PyBoyStateError(
                        "this PyBoy state was saved while PyBoy's boot ROM was running; "
                        "emurust's boot ROM is another program and cannot continue it "
                        "(save the state after the boot, or pass PyBoy's boot ROM as bootrom=)"
                    )
                self._gb.load_pyboy_state(data)
        except Exception as e:
            twin = translate(e)
            if twin is e:
                raise
            raise twin from None
        self.screen._update()

    def _set_div(self, value: int) -> None:
        """Sets DIV (the timer's system counter's high byte), keeping its low byte, with no
        side effect of the jump (PyBoy's game wrappers set DIV so)."""
        self._gb._set_div(value & 0xFF)

    def stop(
        self, save: bool = True, ram_file: IO[bytes] | None = None, rtc_file: Any = None
    ) -> None:
        """Stops the emulator; with ``save`` and a battery-backed cartridge, writes the
        cartridge RAM as PyBoy does (to ``ram_file``, or ``<gamerom>.ram`` next to a ROM given
        by path), in PyBoy's layout."""
        if not self.initialized or self.stopped:
            return
        if save and self._battery:
            data = self._ram_file_bytes()
            if ram_file is not None:
                ram_file.write(data)
            elif self.gamerom is not None:
                with open(self.gamerom + ".ram", "wb") as f:
                    f.write(data)
            else:
                warnings.warn(
                    "stop(save=True): the ROM was given as a file object; pass ram_file= to "
                    "save the cartridge RAM",
                    EmuRustWarning,
                    stacklevel=2,
                )
            if self._rtc:
                warnings.warn(
                    "the cartridge clock is not saved (PyBoy's .rtc format is not written)",
                    EmuRustWarning,
                    stacklevel=2,
                )
        self.stopped = True

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _ram_file_bytes(self) -> bytes:
        """The cartridge RAM in PyBoy's .ram layout: every RAM bank PyBoy allocates for the
        header's size, 8 KiB each (MBC2: its 512 nibbles as 0xF0 | value)."""
        ram = self._gb.cartridge_ram[: self._cart_ram_size]
        if self._mbc2:
            ram = bytes(0xF0 | b for b in ram)
        return ram + bytes(max(0, self._pyboy_ram_bytes - len(ram)))

    def _load_ram(self, data: bytes) -> None:
        size = self._cart_ram_size
        if size == 0:
            return
        if len(data) < self._pyboy_ram_bytes:  # PyBoy fails reading past the end too
            raise InvalidArgumentError(
                f"the .ram file has {len(data)} bytes; this cartridge's RAM in PyBoy's layout "
                f"is {self._pyboy_ram_bytes} bytes"
            )
        ram = bytearray(data[:size].ljust(size, b"\0"))
        if self._mbc2:
            ram = bytearray(b & 0x0F for b in ram)
        if self._rtc:
            ram += self._gb.cartridge_ram[size:]
        self._gb.load_cartridge_ram(bytes(ram))

    # ---- hooks and symbols ----------------------------------------------------------

    def _load_symbols(self) -> None:
        paths: list[str] = []
        if self.gamerom:
            stem, ext = os.path.splitext(self.gamerom)
            paths = [stem + ".sym", stem + ext + ".sym", stem + ".map", stem + ext + ".map"]
        for p in [self.symbols_file, *paths]:
            if p and os.path.isfile(p):
                if p.endswith(".map"):
                    self._load_map_file(p)
                else:
                    self._load_sym_file(p)

    def _add_symbol(self, bank: int, addr: int, label: str) -> None:
        self.rom_symbols.setdefault(bank, {}).setdefault(addr, []).append(label)
        self.rom_symbols_inverse[label] = (bank, addr)

    def _load_sym_file(self, path: str) -> None:
        group = "labels"
        with open(path) as f:
            for raw in f:
                line = raw.strip()
                if not line or line.startswith(";"):
                    continue
                if line.startswith("["):
                    group = line[1:-1]
                    continue
                if group != "labels":
                    continue
                parts = re.split(":| ", line)
                if len(parts) != 3:
                    continue
                try:
                    bank, addr = int(parts[0], 16), int(parts[1], 16)
                except ValueError:
                    continue
                self._add_symbol(bank, addr, parts[2])

    _MAP_SYMBOL = re.compile(r"^\s*([0-9A-Fa-f]{8})\s+(\S+)\s+\S*\s*$")

    def _load_map_file(self, path: str) -> None:
        with open(path) as f:
            for line in f:
                m = self._MAP_SYMBOL.match(line)
                if m is None or m.group(2) in self.rom_symbols_inverse:
                    continue
                self._add_symbol(0, int(m.group(1), 16), m.group(2))

    def symbol_lookup(self, symbol: str) -> tuple[int, int]:
        """``(bank, address)`` of a label of the loaded ``.sym``/``.map`` file (ValueError if
        unknown)."""
        found = self.rom_symbols_inverse.get(symbol)
        if found is None:
            raise ValueError(f"Symbol not found: {symbol}")
        return found

    def hook_register(
        self, bank: int | None, addr: int | str, callback: Callable[[Any], Any], context: Any
    ) -> None:
        """Calls ``callback(context)`` each time the CPU is about to execute the instruction
        at ``addr`` in ``bank`` (``bank=None`` and a symbol name for ``addr`` look it up).
        Memory is not modified (PyBoy writes opcode 0xDB there)."""
        bank, addr = self._hook_target(bank, addr)
        if (bank, addr) in self._hooks:
            raise ValueError("Hook already registered for this bank and address.")
        self.memory[bank, addr]  # the bank and address must exist, as in PyBoy
        self._gb._hook_add(bank, addr)
        self._hooks[(bank, addr)] = (callback, context)

    def hook_deregister(self, bank: int | None, addr: int | str) -> None:
        bank, addr = self._hook_target(bank, addr)
        if self._hooks.pop((bank, addr), None) is None:
            raise ValueError("Breakpoint not found for bank and addr")
        self._gb._hook_remove(bank, addr)

    def _hook_target(self, bank: int | None, addr: int | str) -> tuple[int, int]:
        if bank is None and isinstance(addr, str):
            return self.symbol_lookup(addr)
        if bank is None or isinstance(addr, str):
            raise InvalidArgumentError("give a bank and an address, or None and a symbol name")
        b, a = as_index(bank, "bank"), as_index(addr, "address")
        if not 0 <= a <= 0xFFFF:
            raise InvalidAddressError(f"address {a:#x} is outside 0x0000..=0xFFFF")
        return b, a

    # ---- the rest of PyBoy's API ----------------------------------------------------

    def set_color_palette(self, palette: Sequence[int]) -> None:
        """Four 0xRRGGBB colours, lightest first (PyBoy's ``set_color_palette``; DMG only,
        ``InvalidOperationError`` on a CGB as in PyBoy)."""
        if self._cgb:
            raise InvalidOperationError("Palette change is only available in DMG mode")
        colours = [as_index(c, "palette colour") for c in palette]
        if len(colours) != 4 or not all(0 <= c <= 0xFFFFFF for c in colours):
            raise InvalidArgumentError("palette must be four 0xRRGGBB colours")
        self._gb.palette = colours
        self.screen._set_palette(colours)
        self.screen._update()

    def _serial(self) -> str:
        """The bytes sent out of the serial port since the last call, as a str."""
        out = self._gb.serial_output
        new, self._serial_read = out[self._serial_read :], len(out)
        return "".join(chr(b) for b in new)

    def _cycles(self) -> int:
        """T-cycles since power-on (PyBoy's ``mb.cpu.cycles``)."""
        return self._gb.cycles

    def printer_image(self) -> None:
        return None

    # ---- observations: game area, sprites, tiles ------------------------------------

    @property
    def game_wrapper(self) -> PyBoyGameWrapper:
        """The game wrapper: PyBoy's generic one (``PyBoyGameWrapper``), for every game."""
        wrapper = self._game_wrapper
        if wrapper is None:
            from emurust.pyboy.plugins.base_plugin import PyBoyGameWrapper

            wrapper = self._game_wrapper = PyBoyGameWrapper(self)
        return wrapper

    def game_area_dimensions(
        self, x: int, y: int, width: int, height: int, follow_scrolling: bool = True
    ) -> None:
        """The section of the tile map that :meth:`game_area` shows: ``width`` x ``height``
        tiles from column ``x``, row ``y``; with ``follow_scrolling``, shifted by each tile
        row's SCX/SCY (taken from :attr:`Screen.tilemap_position_list`, as PyBoy does)."""
        self.game_wrapper._set_dimensions(x, y, width, height, follow_scrolling)

    def game_area_collision(self) -> Any:
        """Only PyBoy's game-specific wrappers have a collision map (AttributeError here)."""
        return self.game_wrapper.game_area_collision()

    def game_area_mapping(self, mapping: Any, sprite_offset: int = 0) -> None:
        """Maps tile identifiers through ``mapping`` (384 or 768 entries; None: identity)
        in :meth:`game_area`, objects' tiles to ``mapping[tile] + sprite_offset``."""
        if mapping is None:
            mapping = list(range(768))
        if not isinstance(sprite_offset, int):
            raise AssertionError("sprite_offset must be an int")
        if not isinstance(mapping, (np.ndarray, list)) or len(mapping) not in (384, 768):
            raise AssertionError("mapping must be a list or ndarray of 384 or 768 entries")
        self.game_wrapper.game_area_mapping(mapping, sprite_offset)

    def game_area(self) -> npt.NDArray[np.uint32]:
        """The game area: a (height, width) uint32 matrix of mapped tile identifiers with the
        objects on screen drawn over it, as PyBoy's ``game_area()`` (the whole 32x32
        background map unless :meth:`game_area_dimensions` says otherwise)."""
        return self.game_wrapper.game_area()

    def get_sprite(self, sprite_index: int) -> Sprite:
        """Object ``sprite_index`` (0..39) as OAM holds it now."""
        return Sprite(self, as_index(sprite_index, "sprite_index"))

    def get_sprite_by_tile_identifier(
        self, tile_identifiers: Iterable[int], on_screen: bool = True
    ) -> list[list[int]]:
        """For each tile identifier, the indexes of the objects that use it (in either tile
        of an 8x16 object), only those on screen if ``on_screen``."""
        oam = self._mem[0xFE00:0xFEA0] + bytes([self._mem[0xFF40]])
        sprites = [Sprite(self, i, oam) for i in range(40)]
        matches = []
        for ident in tile_identifiers:
            found = []
            for i, sprite in enumerate(sprites):
                for t in sprite.tiles:
                    if t.tile_identifier == ident and (not on_screen or sprite.on_screen):
                        found.append(i)
            matches.append(found)
        return matches

    def get_tile(self, identifier: int) -> Tile:
        """Tile ``identifier`` (0..383) of VRAM's tile data."""
        return Tile(self, as_index(identifier, "identifier"))

    def rtc_lock_experimental(self, enable: bool) -> None:
        """Not supported for clock cartridges (emurust's clock counts emulated time, not
        wall-clock time); ``PyBoyException`` for the others, as in PyBoy."""
        if not self._rtc:
            raise PyBoyException("There's no RTC for this cartridge type")
        raise NotSupportedError(
            "PyBoy.rtc_lock_experimental: emurust's cartridge clock counts emulated time "
            "(never wall-clock time) and cannot be locked"
        )

    def __getattr__(self, name: str) -> Any:
        if name in ("rumble", "sgb"):
            raise NotSupportedError(f"PyBoy.{name} is not supported by emurust.PyBoy")
        raise AttributeError(f"'PyBoy' object has no attribute {name!r}")

    def __repr__(self) -> str:
        return f"<emurust.PyBoy {self.cartridge_title!r} frame={self.frame_count}>"
