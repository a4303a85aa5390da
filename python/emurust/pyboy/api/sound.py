"""``emurust.pyboy.api.sound``: ``Sound`` (``PyBoy.sound``), the samples of the last frame."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from emurust.pyboy._errors import SoundDisabledError

if TYPE_CHECKING:
    from emurust.pyboy_compat import PyBoy

__all__ = ["Sound"]


class Sound:
    """``PyBoy.sound``: ``ndarray`` holds the samples of the last frame of the last ``tick``
    that asked for sound (``tick(..., sound=True)``, the default), (n, 2) int8 (left,
    right), at ``sample_rate`` Hz; ``raw_buffer`` the same bytes. With
    ``sound_emulated=False`` both raise ``PyBoyFeatureDisabledError``, as in PyBoy."""

    raw_buffer_format = "b"

    def __init__(self, owner: PyBoy) -> None:
        self._owner = owner
        self.sample_rate: int = owner._sample_rate

    @property
    def ndarray(self) -> npt.NDArray[np.int8]:
        owner = self._owner
        if not owner._sound_emulated:
            raise SoundDisabledError("Sound is not enabled!")
        if not owner._sound_last:
            return np.zeros((0, 2), dtype=np.int8)  # the last tick did not sample
        return owner._gb.sound

    @property
    def raw_buffer(self) -> memoryview:
        return memoryview(np.ascontiguousarray(self.ndarray).tobytes())

    @property
    def raw_buffer_head(self) -> int:
        """Bytes of samples in :attr:`raw_buffer` (two per sample)."""
        return int(self.ndarray.size)
