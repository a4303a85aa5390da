"""The README's RL quick start runs as written, on the bundled game (nothing beside the clone)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parent.parent / "README.md"
MARKER = "<!-- tested: tests/test_readme.py runs this block -->"


def test_the_rl_quick_start_runs() -> None:
    text = README.read_text()
    assert MARKER in text
    block = re.search(r"```python\n(.*?)```", text[text.index(MARKER) :], re.S)
    assert block is not None
    assert len(block.group(1).strip().splitlines()) <= 7
    scope: dict[str, object] = {}
    exec(compile(block.group(1), "README.md", "exec"), scope)
    obs, reward = scope["obs"], scope["reward"]
    assert isinstance(obs, np.ndarray)
    assert obs.shape == (64, 72, 80)
    assert isinstance(reward, np.ndarray)
    assert reward.shape == (64,)
