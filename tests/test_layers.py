"""The package's layers: the product (emurust, its envs, games, PyBoy API, trainer) never
imports the project's tooling (emurust.verify, emurust.tools, emurust.prompts,
emurust.conformance); the tooling imports the product. The command line routes its
commands to their modules by name (emurust.cli.DELEGATED) and imports one only when it
runs."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import emurust

PACKAGE = Path(emurust.__file__).resolve().parent
TOOLING = ("emurust.verify", "emurust.tools", "emurust.prompts", "emurust.conformance")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_tooling(name: str) -> bool:
    return any(name == t or name.startswith(t + ".") for t in TOOLING)


def _imports(path: Path) -> list[str]:
    """The absolute names of the modules ``path`` imports (relative imports resolved)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            names.append(stem)
            names += [f"{stem}.{alias.name}" for alias in node.names]
    return names


def test_no_product_module_imports_the_tooling() -> None:
    product = [p for p in PACKAGE.rglob("*.py") if not _is_tooling(_module_name(p))]
    assert len(product) > 30, "the scan must see the product's modules"
    offenders = {_module_name(p): sorted(n for n in _imports(p) if _is_tooling(n)) for p in product}
    offenders = {m: names for m, names in offenders.items() if names}
    assert not offenders, f"product modules importing the tooling: {offenders}"


def test_the_scan_sees_relative_and_absolute_imports(tmp_path: Path) -> None:
    """The scan above would catch the usual spellings (checked on a planted file)."""
    planted = PACKAGE / "envs" / "_planted_for_test_layers.py"
    planted.write_text(
        "from ..verify import lockstep\nimport emurust.tools.asm\nfrom emurust import prompts\n",
        encoding="utf-8",
    )
    try:
        found = [n for n in _imports(planted) if _is_tooling(n)]
    finally:
        planted.unlink()
    assert "emurust.verify" in found
    assert "emurust.tools.asm" in found
    assert "emurust.prompts" in found


def test_importing_and_asking_for_help_loads_no_tooling() -> None:
    code = (
        "import sys, contextlib, io\n"
        "import emurust, emurust.cli, emurust.envs, emurust.games, emurust.pyboy\n"
        "emurust.PyBoy\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert emurust.cli.main([]) == 2\n"
        "    try:\n"
        "        emurust.cli.main(['--help'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        f"print(sorted(m for m in sys.modules if m.startswith({TOOLING!r})))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]", out


def test_the_game_registry_does_not_import_the_envs() -> None:
    """The envs import the registry (emurust.games), not the other way round: the envs
    listen to it (games.on_register) for the Gymnasium ids."""
    imports = {
        _module_name(p): [n for n in _imports(p) if n.startswith("emurust.envs")]
        for p in (PACKAGE / "games").rglob("*.py")
    }
    assert len(imports) >= 4
    assert not any(imports.values()), imports


def test_games_registered_before_and_after_the_envs_get_gymnasium_ids() -> None:
    code = (
        "import emurust.games as g\n"
        "g.register(g.STARCATCH.replace(name='Before'))\n"
        "import gymnasium, emurust.envs\n"
        "g.register(g.STARCATCH.replace(name='After'))\n"
        "ids = [i for i in gymnasium.registry if i.startswith('emurust/')]\n"
        "print(sorted(ids))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    ids = ast.literal_eval(out)
    assert "emurust/Before-v0" in ids
    assert "emurust/After-v0" in ids
    assert "emurust/Starcatch-v0" in ids


def _send_recv_classes(path: Path) -> list[str]:
    """The classes of ``path`` that step envs: a ``send`` and a ``recv`` method, or a
    Gymnasium ``VectorEnv`` base."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ClassDef):
            continue
        methods = {f.name for f in node.body if isinstance(f, ast.FunctionDef)}
        bases = {ast.unparse(b) for b in node.bases}
        if {"send", "recv"} <= methods or any("VectorEnv" in b for b in bases):
            found.append(node.name)
    return found


def test_the_vectorization_backends_live_in_emurust_envs() -> None:
    """Every vector env (the Gymnasium one and its send/recv thread, the trainer's worker
    processes and null env, the Ray actors) is defined under emurust.envs; emurust.ray only
    re-exports the Ray backend."""
    found = {_module_name(p): _send_recv_classes(p) for p in PACKAGE.rglob("*.py")}
    found = {m: classes for m, classes in found.items() if classes}
    assert {"emurust.envs._gymnasium", "emurust.envs.ray", "emurust.envs.vector"} <= set(found)
    outside = {m: c for m, c in found.items() if not m.startswith("emurust.envs.")}
    assert not outside, f"vector envs outside emurust.envs: {outside}"


def test_importing_emurust_and_its_envs_does_not_import_ray() -> None:
    # emurust.rl.ppo needs torch (the rl extra); without it the rest is still checked.
    ppo = ", emurust.rl.ppo" if importlib.util.find_spec("torch") is not None else ""
    code = (
        "import sys\n"
        f"import emurust, emurust.envs, emurust.envs.vector{ppo}\n"
        "emurust.GameBoyVectorEnv\n"
        "print(sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]", out
