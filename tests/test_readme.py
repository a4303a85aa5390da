"""Every Python block of the README runs as written, on the bundled game (nothing beside the clone).

Each ```python block of README.md is executed in order, each in a fresh namespace; a block that
raises fails the test. The RL quick start (the block after the marker) is also checked for what
it returns. ```sh and other blocks are not run.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
MARKER = "<!-- tested: tests/test_readme.py runs this block -->"
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _python_blocks() -> list[tuple[int, str]]:
    """(line number, source) of every ```python block of the README, in order."""
    text = README.read_text()
    return [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in PYTHON_BLOCK.finditer(text)]


def _run(line: int, source: str) -> dict[str, object]:
    scope: dict[str, object] = {"__name__": f"README_block_line_{line}"}
    # The file name and blank lines put tracebacks at the block's own lines of README.md.
    exec(compile("\n" * line + source, str(README), "exec"), scope)
    return scope


def test_the_readme_has_its_python_blocks() -> None:
    blocks = _python_blocks()
    # The GameBoy, VecGameBoy and RL quick starts at least; a broken pattern finds none.
    assert len(blocks) >= 3
    for line, source in blocks:
        assert "game.gb" not in source, f"README.md:{line}: use a ROM the project ships"


@pytest.mark.parametrize(
    ("line", "source"), [pytest.param(n, src, id=f"line{n}") for n, src in _python_blocks()]
)
def test_every_python_block_runs(line: int, source: str) -> None:
    _run(line, source)


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
