"""The translation and repair prompts (emurust.prompts, prompts/, references/).

Every module of the map must render a complete translate prompt with its pinned PyBoy source;
the map's paths and verification commands must point at things that exist; a failing verify
report's first divergence must show up in the repair prompt; the CLI must behave.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.metadata
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from emurust import EmuRustError, prompts
from emurust.prompts import NothingToRepairError, PromptError

ROOT = Path(__file__).resolve().parent.parent
MAP = prompts.load_module_map()
MODULES = MAP.names()
IN_CHECKOUT = prompts._checkout_root() is not None


def pyboy_dir() -> Path | None:
    spec = importlib.util.find_spec("pyboy")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


needs_pyboy = pytest.mark.skipif(pyboy_dir() is None, reason="PyBoy is not installed")
needs_checkout = pytest.mark.skipif(not IN_CHECKOUT, reason="not running from a source checkout")


# --------------------------------------------------------------------------------------------
# The module map


def unmapped_core_files(root: Path, module_map: prompts.ModuleMap) -> list[str]:
    """The ``rust/src`` files under ``root`` (subfolders too) that no module of the map lists."""
    targets = {p for m in module_map.modules for p in m.emurust}
    src = root / "rust" / "src"
    unmapped = []
    for module_file in sorted(src.rglob("*.rs")):  # files in subfolders (cpu/run_table.rs) too
        rel = module_file.relative_to(root).as_posix()
        inner = module_file.relative_to(src).as_posix()
        if inner in ("lib.rs", "error.rs", "python.rs") or inner.startswith("python/"):
            continue  # crate root, error enum and bindings: not translated modules
        if rel not in targets:
            unmapped.append(rel)
    return unmapped


def what_to_do(rel: str, module_map: prompts.ModuleMap) -> str:
    """The failure message for a core file that no module lists: the steps that fix it, and
    the module that probably owns it (the one listing the parent file: cpu.rs for cpu/x.rs)."""
    owner = None
    parts = rel.split("/")
    for depth in range(len(parts) - 1, 2, -1):  # rust/src/a/b/c.rs: a/b.rs, then a.rs
        parent = "/".join(parts[:depth]) + ".rs"
        owner = next((m.name for m in module_map.modules if parent in m.emurust), None)
        if owner is not None:
            break
    where = (
        f'the "emurust" list of module "{owner}" (which lists its parent file)'
        if owner is not None
        else 'the "emurust" list of the module it belongs to (or a new module entry with '
        "every field, see references/README.md)"
    )
    return (
        f'{rel} is in no module of references/modules.json. To fix: (1) add "{rel}" to '
        f"{where} in references/modules.json, and to that module's row of the table in "
        "references/README.md; (2) run `emurust prompts sync` (or `python -m emurust.prompts "
        "sync`), which copies references/ and prompts/ into python/emurust/data/ (the copy "
        "the wheel ships; test_package_copy_is_in_sync fails until then), and commit both; "
        "(3) list the file in rust/src/README.md's map. See docs/design.md, 'Where things go'."
    )


def test_module_map_covers_the_reference_and_the_core() -> None:
    pyboy_files = {p for m in MAP.modules for p in m.pyboy}
    for required in (
        "core/cpu.py",
        "core/opcodes.py",
        "core/mb.py",
        "core/lcd.py",
        "core/timer.py",
        "core/sound.py",
        "core/interaction.py",
        "core/serial.py",
        "core/ram.py",
        "core/cartridge/mbc1.py",
        "core/cartridge/rtc.py",
    ):
        assert required in pyboy_files, required
    unmapped = unmapped_core_files(ROOT, MAP)
    assert not unmapped, "\n".join(what_to_do(rel, MAP) for rel in unmapped)
    assert MAP.reference.version == "2.8.1"
    for m in MAP.modules:
        for part in (m.facts, m.verify, m.interface, m.invariants):
            assert part, m.name
        assert all(f.source.strip() for f in m.facts), m.name


def test_an_unmapped_core_file_fails_with_the_steps_that_fix_it(tmp_path: Path) -> None:
    src = tmp_path / "rust" / "src"
    (src / "cpu").mkdir(parents=True)
    (src / "python").mkdir()
    for rel in ("cpu.rs", "cpu/new_part.rs", "brand_new.rs", "lib.rs", "python/x.rs"):
        (src / rel).write_text("", encoding="utf-8")
    unmapped = unmapped_core_files(tmp_path, MAP)
    assert unmapped == ["rust/src/brand_new.rs", "rust/src/cpu/new_part.rs"]
    part = what_to_do("rust/src/cpu/new_part.rs", MAP)
    assert 'module "cpu"' in part
    new = what_to_do("rust/src/brand_new.rs", MAP)
    assert "new module entry" in new
    for text in (part, new):
        assert "references/modules.json" in text
        assert "emurust prompts sync" in text
        assert "rust/src/README.md" in text


@needs_checkout
@pytest.mark.parametrize("name", MODULES)
def test_target_paths_exist(name: str) -> None:
    missing = [p for p in MAP.get(name).emurust if not (ROOT / p).is_file()]
    assert not missing, f"{name}: {missing} not in the repository"


@needs_pyboy
def test_pyboy_files_match_the_pinned_version() -> None:
    assert importlib.metadata.version("pyboy") == MAP.reference.version
    root = pyboy_dir()
    assert root is not None
    for m in MAP.modules:
        for rel in m.pyboy:
            digest = hashlib.sha256((root / rel).read_bytes()).hexdigest()
            assert digest == m.pyboy_sha256[rel], f"{rel}: sha256 {digest}"


_CARGO_TEST = re.compile(r"cargo test --test (\w+)( [\w:]+)?")
_CARGO_LIB = re.compile(r"cargo test --lib (\w+)::(\w+)?")
_PYTEST = re.compile(r"python -m pytest((?: tests/\w+\.py)+)")
_VERIFY = re.compile(r"emurust verify --level ([1-9])")


@needs_checkout
def test_verification_commands_name_existing_tests() -> None:
    for m in MAP.modules:
        for v in m.verify:
            cmd = v.cmd
            if mt := _CARGO_TEST.fullmatch(cmd):
                assert (ROOT / "tests" / f"{mt.group(1)}.rs").is_file(), cmd
            elif ml := _CARGO_LIB.fullmatch(cmd):
                assert (ROOT / "rust" / "src" / f"{ml.group(1)}.rs").is_file(), cmd
            elif mp := _PYTEST.fullmatch(cmd):
                for f in mp.group(1).split():
                    assert (ROOT / f).is_file(), cmd
            elif mv := _VERIFY.fullmatch(cmd):
                assert int(mv.group(1)) in prompts.LEVELS, cmd
            else:
                pytest.fail(f"{m.name}: unrecognised verification command {cmd!r}")


def test_module_lookup_by_alias_and_path() -> None:
    assert MAP.get("lcd").name == "ppu"
    assert MAP.get("Sound").name == "apu"
    assert MAP.get("mb").name == "bus"
    assert MAP.get("rust/src/timer.rs").name == "timer"
    assert MAP.get("pyboy/core/cartridge/mbc3.py").name == "cartridge"
    with pytest.raises(PromptError, match="known modules: cpu, opcodes"):
        MAP.get("gpu")


def test_malformed_module_map_is_rejected(tmp_path: Path) -> None:
    doc = json.loads(prompts.resource_path("references/modules.json").read_text("utf-8"))
    broken = copy.deepcopy(doc)
    del broken["modules"][0]["invariants"]
    (tmp_path / "a.json").write_text(json.dumps(broken))
    with pytest.raises(PromptError, match="lacks 'invariants'"):
        prompts.load_module_map(tmp_path / "a.json")
    broken = copy.deepcopy(doc)
    broken["modules"][0]["related"].append("gpu")
    (tmp_path / "b.json").write_text(json.dumps(broken))
    with pytest.raises(PromptError, match="unknown 'gpu'"):
        prompts.load_module_map(tmp_path / "b.json")


# --------------------------------------------------------------------------------------------
# Placeholders


def test_fill_is_strict() -> None:
    assert prompts.fill("a {x} b {{x}} c", {"x": "{y} }{"}) == "a {y} }{ b {x} c"
    with pytest.raises(PromptError, match=r"no value for placeholder\(s\) \{x\}"):
        prompts.fill("a {x}", {})
    with pytest.raises(PromptError, match=r"empty value .*\{x\}"):
        prompts.fill("a {x}", {"x": "  "})
    # Code-like braces are not placeholders.
    code = 'fn f() { g("{:02X}", {"k": 1}) }'
    assert prompts.fill(code, {}) == code


def test_unfilled_template_placeholder_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    real = prompts.load_template

    def extra(kind: str, *, source: str = "auto") -> str:
        return real(kind, source=source) + "\n{reviewer_notes}\n"

    monkeypatch.setattr(prompts, "load_template", extra)
    with pytest.raises(PromptError, match=r"\{reviewer_notes\}"):
        prompts.render_translate("timer", include_source=False)
    with pytest.raises(PromptError, match=r"\{reviewer_notes\}"):
        prompts.render_repair(failing_report())


@needs_checkout
def test_placeholders_are_documented() -> None:
    readme = (ROOT / "prompts" / "README.md").read_text("utf-8")
    rows = [line.split("|")[1] for line in readme.splitlines() if line.startswith("| `{")]
    documented = {name for row in rows for name in re.findall(r"`\{(\w+)\}`", row)}
    used = set().union(*(prompts.placeholders(prompts.load_template(k)) for k in prompts.KINDS))
    assert used == documented


def assert_complete(text: str, kind: str) -> None:
    left = [p for p in prompts.placeholders(prompts.load_template(kind)) if f"{{{p}}}" in text]
    assert not left, f"unfilled placeholders: {left}"


# --------------------------------------------------------------------------------------------
# Translate prompts


@needs_pyboy
@pytest.mark.parametrize("name", MODULES)
def test_translate_prompt_is_complete(name: str) -> None:
    spec = MAP.get(name)
    text = prompts.render_translate(name)
    assert_complete(text, "translate")
    assert f"Translate `{spec.name}` from PyBoy 2.8.1 into a Rust backend" in text
    root = pyboy_dir()
    assert root is not None
    for rel in spec.pyboy:
        source = (root / rel).read_text("utf-8").rstrip()
        assert source in text, f"{rel} not embedded"
    if not spec.pyboy:
        assert f"No reference module: {spec.no_reference}" in text
    for path in spec.emurust:
        assert f"`{path}`" in text
    for f in spec.facts:
        assert f"{f.fact} (source: {f.source})" in text
    for v in spec.verify:
        assert f"`{v.cmd}`" in text
    for d in spec.deviations:
        assert d.what in text


def test_translate_without_source_and_other_language() -> None:
    text = prompts.render_translate("apu", target_language="C++", include_source=False)
    assert_complete(text, "translate")
    assert "into a C++ backend module" in text
    assert "for a C++ backend write the equivalent C++ module" in text
    assert "Not included in this prompt. Read `pyboy/core/sound.py`" in text
    with pytest.raises(PromptError, match="target_language"):
        prompts.render_translate("apu", target_language=" ")


def test_reference_source_must_be_the_pinned_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for rel in MAP.get("timer").pyboy:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("# not PyBoy 2.8.1\n")
    monkeypatch.setattr(prompts, "_reference_dir", lambda ref: tmp_path)
    with pytest.raises(PromptError, match=r"does not match the pinned PyBoy 2\.8\.1"):
        prompts.render_translate("timer")
    monkeypatch.setattr(prompts, "_reference_dir", lambda ref: None)
    with pytest.raises(PromptError, match="--no-source"):
        prompts.render_translate("timer")
    # A module without reference source renders without PyBoy.
    assert "No reference module" in prompts.render_translate("oam_bug")


def test_prompt_error_is_an_emurust_error() -> None:
    assert issubclass(PromptError, EmuRustError)
    assert issubclass(PromptError, ValueError)
    assert issubclass(NothingToRepairError, PromptError)


# --------------------------------------------------------------------------------------------
# Shipping: the wheel carries emurust/data/, a checkout uses the top-level folders


@needs_checkout
def test_package_copy_is_in_sync() -> None:
    changed = prompts.sync_package_data(check=True)
    assert changed == [], (
        f"python/emurust/data/ (the copy of prompts/ and references/ that the wheel ships) "
        f"differs from the checkout in {changed}: run `emurust prompts sync` (or `python -m "
        "emurust.prompts sync`) and commit python/emurust/data/"
    )
    for rel in prompts.DATA_FILES:
        assert prompts.resource_path(rel) == ROOT / rel


def test_package_copy_alone_renders(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prompts, "_checkout_root", lambda: None)
    for rel in prompts.DATA_FILES:
        assert prompts.resource_path(rel).is_relative_to(Path(prompts.__file__).parent / "data")
    text = prompts.render_translate("serial", include_source=False)
    assert_complete(text, "translate")
    with pytest.raises(PromptError, match="source checkout"):
        prompts.sync_package_data()


# --------------------------------------------------------------------------------------------
# Repair prompts: fake reports following helper-notes/REPORT_SCHEMA.md

TRACE = [
    "frame 1233 pc=0x014C op=0xF0 LDH A,(0x05)  a=0x00 f=0x80 cycles=86410220",
    "frame 1233 pc=0x014E op=0xFE CP 0x00       a=0x00 f=0xC0 cycles=86410232",
    "frame 1234 pc=0x0150 op=0x20 JR NZ,-6      a=0x00 f=0xC0 cycles=86410240",
]


def result(name: str, status: str, level: int = 3, module: str = "timer") -> dict[str, Any]:
    return {
        "level": level,
        "name": name,
        "status": status,
        "module": module,
        "detail": f"{name}: {status}",
        "rom": None,
        "frames": None,
        "divergence": None,
        "counterexample": None,
    }


def failing_report() -> dict[str, Any]:
    bad = result("rollout.timer_irq.seed7", "fail")
    bad.update(
        rom="homebrew/2048.gb",
        frames=3000,
        detail="WRAM differs from PyBoy at frame 1234",
        divergence={
            "frame": 1234,
            "pc": 0x0150,
            "registers": {
                "emurust": {"a": 0x00, "f": 0xC0, "sp": 0xDFF0, "pc": 0x0150},
                "pyboy": {"a": 0x00, "f": 0x80, "sp": 0xDFF0, "pc": 0x0150},
            },
            "diffs": [
                {"region": "WRAM", "addr": 0xC0A5, "emurust": 0x10, "pyboy": 0x11},
                {"region": "HRAM", "addr": 0xFF85, "emurust": 0x01, "pyboy": 0x00},
            ],
            "trace": TRACE,
        },
    )
    second = result("interaction.serial_transfer", "fail", level=2, module="serial")
    return {
        "tool": "emurust verify",
        "emurust_version": "0.1.0",
        "pyboy_version": "2.8.1",
        "created": "2025-01-01T00:00:00+00:00",
        "argv": ["emurust", "verify", "--level", "3", "--report", "out"],
        "levels": [1, 2, 3],
        "summary": {
            "passed": 40,
            "failed": 2,
            "skipped": 1,
            "allowlisted": 1,
            "frames_compared": 96000,
        },
        "results": [
            result("alu.adc", "pass", level=1, module="cpu"),
            result("rollout.halt_bug", "allowlisted", module="cpu"),
            bad,
            second,
        ],
        "allowlist": [
            {
                "name": "rollout.halt_bug",
                "masks": "registers after HALT with IME=0",
                "proof": "blargg/halt_bug.gb (PyBoy fails)",
            }
        ],
    }


def test_repair_prompt_shows_the_first_divergence() -> None:
    text = prompts.render_repair(failing_report())
    assert_complete(text, "repair")
    assert "# Repair `timer`: `rollout.timer_irq.seed7` fails (verification level 3)" in text
    assert "- Frame: 1234" in text
    assert "- PC: 0x0150" in text
    assert "| f | 0xC0 (ZN--) | 0x80 (Z---) | differs |" in text
    assert "| a | 0x00 | 0x00 |  |" in text
    assert "| WRAM | 0xC0A5 | 0x10 | 0x11 | 0x01 |" in text
    assert "| HRAM | 0xFF85 | 0x01 | 0x00 | 0x01 |" in text
    for line in TRACE:
        assert line in text
    assert "`rust/src/timer.rs`" in text
    assert "emurust verify --level 3 --rom homebrew/2048.gb --frames 3000" in text
    assert "`cargo test --lib timer::tests`" in text
    assert "blargg/halt_bug.gb (PyBoy fails)" in text
    assert "frames_compared 96000" in text
    # The second failure is listed as context, not repaired.
    assert "- `interaction.serial_transfer` (level 2, module serial)" in text


def test_repair_selects_result_and_module() -> None:
    report = failing_report()
    text = prompts.render_repair(report, result="interaction.serial_transfer")
    assert "# Repair `serial`: `interaction.serial_transfer` fails (verification level 2)" in text
    assert "None recorded" in text
    assert "`rust/src/serial.rs`" in text
    text = prompts.render_repair(report, module="lcd")
    assert "# Repair `ppu`: `rollout.timer_irq.seed7`" in text
    assert "`rust/src/ppu.rs`" in text
    with pytest.raises(NothingToRepairError, match="status 'pass'"):
        prompts.render_repair(report, result="alu.adc")
    with pytest.raises(PromptError, match="no result named"):
        prompts.render_repair(report, result="nope")


def test_repair_level1_counterexample() -> None:
    bad = result("alu.adc", "fail", level=1, module="opcodes")
    bad["counterexample"] = "ADC A=0x0F B=0x00 carry=1: H emurust=0 reference=1"
    text = prompts.render_repair({"results": [bad]})
    assert_complete(text, "repair")
    assert "ADC A=0x0F B=0x00 carry=1: H emurust=0 reference=1" in text
    assert "`rust/src/cpu/alu.rs`" in text
    assert "emurust verify --level 1 --report" in text


def test_passing_report_has_nothing_to_repair() -> None:
    report = failing_report()
    for r in report["results"]:
        if r["status"] == "fail":
            r["status"] = "pass"
    with pytest.raises(NothingToRepairError, match=r"nothing to repair.*failed 2"):
        prompts.render_repair(report)


def test_bad_reports_are_rejected(tmp_path: Path) -> None:
    with pytest.raises(PromptError, match="not a verify report"):
        prompts.render_repair({"summary": {}})
    with pytest.raises(PromptError, match=r"results\[0\].level"):
        prompts.render_repair({"results": [{"name": "x", "status": "fail"}]})
    bad = result("x", "fail", module="gpu")
    with pytest.raises(PromptError, match="unknown module 'gpu'"):
        prompts.render_repair({"results": [bad]})
    bad = result("x", "fail")
    bad["divergence"] = {"frame": "one", "pc": 0}
    with pytest.raises(PromptError, match=r"divergence\.frame"):
        prompts.render_repair({"results": [bad]})
    (tmp_path / "report.json").write_text("{")
    with pytest.raises(PromptError, match="cannot read the verify report"):
        prompts.render_repair(tmp_path)
    with pytest.raises(TypeError):
        prompts.render_repair(42)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# Command line


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert prompts.cli_main(["list"]) == 0
    out = capsys.readouterr().out
    for name in MODULES:
        assert re.search(rf"^{name} ", out, re.M), name

    assert prompts.cli_main(["list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == MODULES

    out_file = tmp_path / "timer.md"
    assert (
        prompts.cli_main(["render", "--module", "timer", "--no-source", "--out", str(out_file)])
        == 0
    )
    assert out_file.read_text("utf-8") == prompts.render_translate("timer", include_source=False)
    capsys.readouterr()

    report_dir = tmp_path / "report"
    report_dir.mkdir()
    (report_dir / "report.json").write_text(json.dumps(failing_report()))
    assert prompts.cli_main(["render", "--report", str(report_dir / "report.json")]) == 0
    out = capsys.readouterr().out
    assert "- PC: 0x0150" in out
    assert "| WRAM | 0xC0A5 |" in out
    assert prompts.cli_main(["render", "--report", str(report_dir), "--module", "ppu"]) == 0
    assert "# Repair `ppu`" in capsys.readouterr().out

    passing = failing_report()
    passing["results"] = [r for r in passing["results"] if r["status"] != "fail"]
    (tmp_path / "ok.json").write_text(json.dumps(passing))
    assert prompts.cli_main(["render", "--report", str(tmp_path / "ok.json")]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "nothing to repair" in captured.err

    assert prompts.cli_main(["render"]) == 2
    assert "--module is required" in capsys.readouterr().err
    assert prompts.cli_main(["render", "--module", "gpu"]) == 2
    assert "unknown module 'gpu'" in capsys.readouterr().err
    assert prompts.cli_main(["render", "--kind", "repair", "--module", "cpu"]) == 2
    assert prompts.cli_main(["render", "--kind", "banana"]) == 2
    assert prompts.cli_main(["--help"]) == 0
    capsys.readouterr()


def test_python_dash_m() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "emurust.prompts", "render", "--module", "joypad", "--no-source"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == prompts.render_translate("joypad", include_source=False)
