"""EmuRust: a fast, faithful Game Boy (DMG) emulator with a Rust core.

Quick start::

    import emurust

    gb = emurust.GameBoy("tetris.gb")
    gb.tick(60, render=False)          # one second of emulated time
    gb.button("start")                 # press START for one frame
    gb.tick()                          # run a frame and draw it
    pixels = gb.screen                 # (144, 160, 3) uint8, a read-only view updated in place
    print(gb.memory[0xC000], gb.registers["pc"])
    state = gb.save_state()

RL environments (with Gymnasium installed)::

    import gymnasium as gym
    import emurust.envs  # registers emurust/<Game>-v0 with Gymnasium
    envs = gym.make_vec("emurust/Starcatch-v0", num_envs=8)  # the bundled game

Every error is an :class:`EmuRustError`; see the exception classes below.
"""

from typing import TYPE_CHECKING

from emurust._core import (
    BOOT_ROM_SIZE,
    MAX_ROM_SIZE,
    EmuRustError,
    EmuRustWarning,
    InternalError,
    InvalidAddressError,
    InvalidArgumentError,
    InvalidRomError,
    InvalidStateError,
    Memory,
    Snapshot,
    SoundOffError,
    UnsupportedCartridgeError,
    available_cpus,
)
from emurust._core import __version__ as __version__
from emurust._gameboy import BUTTONS, ColourLike, GameBoy, PaletteLike, RomSource
from emurust._paths import roms_dir
from emurust._vec import VecGameBoy

if TYPE_CHECKING:
    from emurust.pyboy_compat import PyBoy as PyBoy
    from emurust.pyboy_compat import WindowEvent as WindowEvent

_ENVS = ("GameBoyEnv", "GameBoyVectorEnv")
_PYBOY_API = ("PyBoy", "WindowEvent")


def __getattr__(name: str) -> object:
    # The PyBoy drop-in (emurust.pyboy_compat) is imported on first use.
    if name in _PYBOY_API:
        import emurust.pyboy_compat as pyboy_compat

        return getattr(pyboy_compat, name)
    # The RL environments need Gymnasium, an optional dependency: imported on first use.
    if name in _ENVS:
        try:
            import emurust.envs as envs
        except ImportError as e:
            raise ImportError(
                f"emurust.{name} needs Gymnasium: pip install 'emurust[gym]' ({e})"
            ) from e
        return getattr(envs, name)
    raise AttributeError(f"module 'emurust' has no attribute {name!r}")


__all__ = [
    "BOOT_ROM_SIZE",
    "BUTTONS",
    "MAX_ROM_SIZE",
    "ColourLike",
    "EmuRustError",
    "EmuRustWarning",
    "GameBoy",
    "GameBoyEnv",
    "GameBoyVectorEnv",
    "InternalError",
    "InvalidAddressError",
    "InvalidArgumentError",
    "InvalidRomError",
    "InvalidStateError",
    "Memory",
    "PaletteLike",
    "PyBoy",
    "RomSource",
    "Snapshot",
    "SoundOffError",
    "UnsupportedCartridgeError",
    "VecGameBoy",
    "WindowEvent",
    "__version__",
    "available_cpus",
    "roms_dir",
]
