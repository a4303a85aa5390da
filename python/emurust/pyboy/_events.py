"""PyBoy's ``WindowEvent`` (``pyboy.utils.WindowEvent``) for ``emurust.PyBoy``."""

from __future__ import annotations

__all__ = ["WindowEvent"]


class WindowEvent(int):
    """PyBoy's ``WindowEvent`` names and numbers (``pyboy.utils.WindowEvent``), for
    :meth:`PyBoy.send_input`; an ``int``, whose ``str`` is the event's name. Supported: the
    button events, ``QUIT``, ``PASS``, ``PAUSE``, ``UNPAUSE``, ``PAUSE_TOGGLE``,
    ``RELEASE_SPEED_UP``, ``STATE_SAVE``, ``STATE_LOAD``, ``CYCLE_PALETTE``,
    ``SCREENSHOT_RECORD`` and ``SCREEN_RECORDING_TOGGLE``; the others (window, debugger, MP4
    recording and rewind events) raise ``NotImplementedError``."""

    (
        QUIT,
        PRESS_ARROW_UP,
        PRESS_ARROW_DOWN,
        PRESS_ARROW_RIGHT,
        PRESS_ARROW_LEFT,
        PRESS_BUTTON_A,
        PRESS_BUTTON_B,
        PRESS_BUTTON_SELECT,
        PRESS_BUTTON_START,
        RELEASE_ARROW_UP,
        RELEASE_ARROW_DOWN,
        RELEASE_ARROW_RIGHT,
        RELEASE_ARROW_LEFT,
        RELEASE_BUTTON_A,
        RELEASE_BUTTON_B,
        RELEASE_BUTTON_SELECT,
        RELEASE_BUTTON_START,
        _INTERNAL_TOGGLE_DEBUG,
        PRESS_SPEED_UP,
        RELEASE_SPEED_UP,
        STATE_SAVE,
        STATE_LOAD,
        PASS,
        SCREEN_RECORDING_TOGGLE,
        PAUSE,
        UNPAUSE,
        PAUSE_TOGGLE,
        PRESS_REWIND_BACK,
        PRESS_REWIND_FORWARD,
        RELEASE_REWIND_BACK,
        RELEASE_REWIND_FORWARD,
        WINDOW_FOCUS,
        WINDOW_UNFOCUS,
        _INTERNAL_RENDERER_FLUSH,
        _INTERNAL_MOUSE,
        _INTERNAL_MARK_TILE,
        SCREENSHOT_RECORD,
        DEBUG_MEMORY_SCROLL_DOWN,
        DEBUG_MEMORY_SCROLL_UP,
        MOD_SHIFT_ON,
        MOD_SHIFT_OFF,
        FULL_SCREEN_TOGGLE,
        CYCLE_PALETTE,
        SCREEN_RECORDING_TOGGLE_MP4,
        DEBUG_GAME_AREA_TOGGLE,
    ) = range(45)

    def __str__(self) -> str:
        for name, value in vars(WindowEvent).items():
            if name.isupper() and value == int(self):
                return name
        return f"WindowEvent({int(self)})"
