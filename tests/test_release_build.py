"""The development build against the release wheel: what differs and what guards the
difference. (The release wheel itself is checked by scripts/test_wheel.sh, a step of
scripts/test.sh: built, installed into a fresh venv with no cargo, and run.)

* Both builds are the stable ABI (``_core.abi3.so``). An older, version-specific
  ``_core.cpython-*.so`` left in the source tree would shadow it; setup_env.sh removes it.
* The development build has the native test aids (cargo feature ``testing``); the release
  wheel has none, and the lockstep proofs that need them refuse to run there with a message
  that says so, instead of reporting a PyBoy deviation as a divergence.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import emurust
from emurust import _core
from emurust.verify.allowlist import replays


@pytest.mark.skipif(sys.platform != "linux", reason="the extension's file name is Linux's")
def test_the_extension_is_the_stable_abi_build() -> None:
    path = Path(_core.__file__)
    assert path.name == "_core.abi3.so", f"{path} shadows the abi3 build: rerun setup_env.sh"
    stale = sorted(p.name for p in path.parent.glob("_core.cpython-*.so"))
    assert not stale


def test_the_development_build_has_the_test_aids() -> None:
    for name in ("_test_shift_ppu", "_test_shift_timer", "_test_set_wy_latch"):
        assert callable(getattr(_core.GameBoy, name, None)), name
    assert callable(getattr(_core, "_reseal_state", None))
    assert replays.HAS_TEST_AIDS


@pytest.mark.parametrize(
    "replay",
    [
        lambda gb: replays.late_line_replay(gb, gb.cycles + 4),
        lambda gb: replays.late_line_replay(gb, gb.cycles + 4, pyboy_window=True),
        lambda gb: replays.first_vblank_early_replay(gb, gb.cycles + 4),
        lambda gb: replays.read_lag_replay(gb, gb.cycles + 4, 8),
        lambda gb: replays.read_lag_irq_replay(gb, gb, gb.cycles + 4, 8, 4),
        lambda gb: replays.read_lag_lcd_off_replay(gb, gb.cycles + 4, 8, 0),
    ],
    ids=["late_line", "late_line_window", "first_vblank", "read_lag", "read_lag_irq", "lcd_off"],
)
def test_the_replay_proofs_refuse_to_run_without_the_test_aids(
    monkeypatch: pytest.MonkeyPatch, rom: bytes, replay: Callable[[emurust.GameBoy], object]
) -> None:
    """As in the release wheel: a proof that cannot edit the machine says why."""
    monkeypatch.setattr(replays, "HAS_TEST_AIDS", False)
    gb = emurust.GameBoy(rom)
    gb.tick(3, render=False)
    with pytest.raises(RuntimeError, match=r"cargo feature `testing`.*scripts/setup_env\.sh"):
        replay(gb)
