"""``emurust.pyboy.plugins``: the game wrappers (``PyBoy.game_wrapper``). The generic wrapper
(:class:`~emurust.pyboy.plugins.base_plugin.PyBoyGameWrapper`) works with every game;
PyBoy's game-specific wrappers and its window, recording, rewind and debugger plugins are not
part of emurust.PyBoy (docs/pyboy.md)."""

__all__ = ["base_plugin"]
