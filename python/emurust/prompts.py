"""The translation and repair prompts, filled from the module map and from verify reports.

The recipe: a generic prompt translates ONE module of a reference environment (PyBoy 2.8.1)
into a high-performance backend module (emurust's Rust), and a repair prompt is filled from
the first failure of an ``emurust verify`` report. The inputs are three files:

* ``prompts/translate.md`` and ``prompts/repair.md``: templates with ``{placeholder}`` fields
  (lower-case identifiers; write ``{{name}}`` for a literal ``{name}``);
* ``references/modules.json``: the module map (PyBoy source paths pinned by SHA-256, emurust
  target paths, interface contract, invariants, hardware facts with their sources,
  verification commands, known PyBoy deviations). See ``references/README.md``.

Where they are found: in a source checkout (``maturin develop``, editable) the top-level
``prompts/`` and ``references/`` folders are used; an installed wheel carries copies under
``emurust/data/`` (``emurust prompts sync`` refreshes them; ``tests/test_prompts.py`` fails
while they differ).

Every placeholder must get a non-empty value: :class:`PromptError` otherwise. Nothing here
imports PyBoy; its source files are read from the installed distribution and must match the
pinned hashes.

Command line (``emurust prompts ...`` or ``python -m emurust.prompts ...``)::

    emurust prompts list
    emurust prompts render --module timer [--target-language Rust] [--no-source] [--out F]
    emurust prompts render --report out/report.json [--module M] [--result NAME] [--out F]
    emurust prompts sync [--check]

Exit status: 0 prompt written; 1 the report has nothing to repair (no failing result);
2 bad arguments or input (unknown module, malformed report, missing PyBoy...).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

from emurust._core import EmuRustError

__all__ = [
    "DATA_FILES",
    "KINDS",
    "LEVELS",
    "Fact",
    "ModuleMap",
    "ModuleSpec",
    "NothingToRepairError",
    "PromptError",
    "Reference",
    "VerifyCommand",
    "cli_main",
    "fill",
    "load_module_map",
    "load_report",
    "load_template",
    "module_names",
    "placeholders",
    "render_repair",
    "render_translate",
    "resource_path",
    "sync_package_data",
]

ReportLike = Union[Mapping[str, Any], str, os.PathLike[str]]

# The files a wheel must carry, relative to the repository root (and to emurust/data/).
DATA_FILES = ("prompts/translate.md", "prompts/repair.md", "references/modules.json")

KINDS = ("translate", "repair")

_PACKAGE_DIR = Path(__file__).resolve().parent
_PACKAGE_DATA = _PACKAGE_DIR / "data"

LEVELS = {
    1: "L1 property tests: opcodes against an independent model of flags and results, "
    "memory-map invariants, save/load round trip, rendering on/off leaves state identical",
    2: "L2 interaction tests: joypad interrupts, timer overflow and reload, OAM DMA, MBC bank "
    "switching, serial transfer, LCD off/on, against the reference",
    3: "L3 rollouts: seeded random-input runs in lockstep with the reference, RAM, registers "
    "and screen compared every frame",
}

# At most this many memory differences and other failures are listed in a repair prompt.
MAX_DIFFS = 48
MAX_OTHER_FAILURES = 20

_TOKEN = re.compile(r"\{\{([a-z][a-z0-9_]*)\}\}|\{([a-z][a-z0-9_]*)\}")


class PromptError(EmuRustError, ValueError):
    """A prompt cannot be rendered: unknown module, unfilled placeholder, malformed report or
    module map, reference source missing or not the pinned version."""


class NothingToRepairError(PromptError):
    """The report has no failing result (or the selected result did not fail)."""


# --------------------------------------------------------------------------------------------
# Finding the data files


def _checkout_root() -> Path | None:
    """The repository root when this package runs from a source checkout (python/emurust)."""
    root = _PACKAGE_DIR.parent.parent
    if (
        _PACKAGE_DIR.parent.name == "python"
        and (root / "pyproject.toml").is_file()
        and (root / "Cargo.toml").is_file()
        and all((root / rel).is_file() for rel in DATA_FILES)
    ):
        return root
    return None


def resource_path(rel: str, *, source: str = "auto") -> Path:
    """Path of one of :data:`DATA_FILES`. ``source``: ``"checkout"`` (the repository's top-level
    folders), ``"package"`` (the copy inside the installed package) or ``"auto"`` (the checkout
    when running from one, else the package copy)."""
    if rel not in DATA_FILES:
        raise PromptError(f"unknown data file {rel!r}; known: {', '.join(DATA_FILES)}")
    if source not in ("auto", "checkout", "package"):
        raise PromptError(f"source must be 'auto', 'checkout' or 'package', got {source!r}")
    root = _checkout_root() if source in ("auto", "checkout") else None
    if root is not None:
        return root / rel
    if source == "checkout":
        raise PromptError("not running from a source checkout (no top-level prompts/)")
    path = _PACKAGE_DATA / rel
    if not path.is_file():
        raise PromptError(f"{path} is missing: the emurust installation is incomplete")
    return path


def sync_package_data(*, check: bool = False) -> list[str]:
    """Copy the checkout's top-level prompts/ and references/ files into emurust/data/ (what a
    wheel ships). Returns the files that differed; with ``check`` nothing is written."""
    root = _checkout_root()
    if root is None:
        raise PromptError("sync needs a source checkout (top-level prompts/ and references/)")
    changed = []
    for rel in DATA_FILES:
        src, dst = root / rel, _PACKAGE_DATA / rel
        if not dst.is_file() or src.read_bytes() != dst.read_bytes():
            changed.append(rel)
            if not check:
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dst)
    return changed


def load_template(kind: str, *, source: str = "auto") -> str:
    """The text of ``prompts/<kind>.md`` (``kind`` is ``translate`` or ``repair``)."""
    if kind not in KINDS:
        raise PromptError(f"kind must be 'translate' or 'repair', got {kind!r}")
    return resource_path(f"prompts/{kind}.md", source=source).read_text(encoding="utf-8")


# --------------------------------------------------------------------------------------------
# Placeholders


def placeholders(template: str) -> set[str]:
    """The placeholder names a template uses (escaped ``{{name}}`` excluded)."""
    return {m.group(2) for m in _TOKEN.finditer(template) if m.group(2)}


def fill(template: str, values: Mapping[str, str], *, name: str = "template") -> str:
    """Replace every ``{placeholder}`` by its value in one pass (values are not rescanned, so
    source code in a value may contain braces). A placeholder with no value, or with an
    empty one, is a :class:`PromptError`; ``{{name}}`` becomes a literal ``{name}``."""
    needed = placeholders(template)
    missing = sorted(needed - values.keys())
    if missing:
        raise PromptError(
            f"{name}: no value for placeholder(s) " + ", ".join(f"{{{m}}}" for m in missing)
        )
    empty = sorted(k for k in needed if not values[k].strip())
    if empty:
        raise PromptError(
            f"{name}: empty value for placeholder(s) " + ", ".join(f"{{{m}}}" for m in empty)
        )

    def sub(m: re.Match[str]) -> str:
        if m.group(1):
            return "{" + m.group(1) + "}"
        return values[m.group(2)]

    return _TOKEN.sub(sub, template)


# --------------------------------------------------------------------------------------------
# The module map


@dataclass(frozen=True)
class Fact:
    fact: str
    source: str


@dataclass(frozen=True)
class VerifyCommand:
    cmd: str
    checks: str


@dataclass(frozen=True)
class Deviation:
    what: str
    evidence: str


@dataclass(frozen=True)
class Reference:
    name: str
    distribution: str
    version: str


@dataclass(frozen=True)
class ModuleSpec:
    name: str
    aliases: tuple[str, ...]
    summary: str
    pyboy: tuple[str, ...]
    pyboy_sha256: Mapping[str, str]
    emurust: tuple[str, ...]
    related: tuple[str, ...]
    interface: tuple[str, ...]
    invariants: tuple[str, ...]
    facts: tuple[Fact, ...]
    verify: tuple[VerifyCommand, ...]
    deviations: tuple[Deviation, ...]
    no_reference: str | None
    status: str


@dataclass(frozen=True)
class ModuleMap:
    reference: Reference
    target_name: str
    target_language: str
    design_rules: tuple[str, ...]
    standards: tuple[str, ...]
    modules: tuple[ModuleSpec, ...]

    def names(self) -> list[str]:
        return [m.name for m in self.modules]

    def get(self, name: str) -> ModuleSpec:
        """A module by name, alias, PyBoy module name or file path (case-insensitive)."""
        key = name.strip().lower()
        for m in self.modules:
            if key == m.name or key in m.aliases:
                return m
        for m in self.modules:
            paths = {p.lower() for p in m.emurust} | {f"pyboy/{p}".lower() for p in m.pyboy}
            if key in paths:
                return m
        raise PromptError(f"unknown module {name!r}; known modules: {', '.join(self.names())}")


def _field(obj: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in obj:
        raise PromptError(f"module map: {where} lacks {key!r}")
    value = obj[key]
    if not isinstance(value, kind):
        raise PromptError(f"module map: {where}.{key} should be a {kind.__name__}")
    return value


def _strings(obj: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    items = _field(obj, key, list, where)
    if not all(isinstance(s, str) and s.strip() for s in items):
        raise PromptError(f"module map: {where}.{key} should be a list of non-empty strings")
    return tuple(items)


def _pairs(obj: Mapping[str, Any], key: str, a: str, b: str, where: str) -> list[tuple[str, str]]:
    out = []
    for i, item in enumerate(_field(obj, key, list, where)):
        w = f"{where}.{key}[{i}]"
        if not isinstance(item, dict):
            raise PromptError(f"module map: {w} should be an object")
        out.append((_field(item, a, str, w), _field(item, b, str, w)))
    return out


def _parse_module(obj: Any, i: int) -> ModuleSpec:
    if not isinstance(obj, dict):
        raise PromptError(f"module map: modules[{i}] should be an object")
    where = f"modules[{i}]"
    name = _field(obj, "name", str, where)
    where = f"module {name!r}"
    pyboy = _strings(obj, "pyboy", where)
    hashes = _field(obj, "pyboy_sha256", dict, where)
    if set(hashes) != set(pyboy):
        raise PromptError(f"module map: {where}: pyboy_sha256 must pin exactly the pyboy files")
    no_ref = obj.get("no_reference")
    if not pyboy and not (isinstance(no_ref, str) and no_ref.strip()):
        raise PromptError(f"module map: {where} has no pyboy files and no 'no_reference' reason")
    return ModuleSpec(
        name=name,
        aliases=tuple(a.lower() for a in _strings(obj, "aliases", where)),
        summary=_field(obj, "summary", str, where),
        pyboy=pyboy,
        pyboy_sha256=dict(hashes),
        emurust=_strings(obj, "emurust", where),
        related=_strings(obj, "related", where),
        interface=_strings(obj, "interface", where),
        invariants=_strings(obj, "invariants", where),
        facts=tuple(Fact(f, s) for f, s in _pairs(obj, "facts", "fact", "source", where)),
        verify=tuple(VerifyCommand(c, w) for c, w in _pairs(obj, "verify", "cmd", "checks", where)),
        deviations=tuple(
            Deviation(w, e) for w, e in _pairs(obj, "deviations", "what", "evidence", where)
        ),
        no_reference=no_ref if isinstance(no_ref, str) else None,
        status=str(obj.get("status", "stable")),
    )


def load_module_map(path: str | os.PathLike[str] | None = None) -> ModuleMap:
    """Parse and check ``references/modules.json`` (or the file at ``path``)."""
    file = Path(path) if path is not None else resource_path("references/modules.json")
    try:
        doc = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise PromptError(f"cannot read the module map {file}: {e}") from e
    if not isinstance(doc, dict):
        raise PromptError(f"module map {file}: top level should be an object")
    ref = _field(doc, "reference", dict, "top level")
    target = _field(doc, "target", dict, "top level")
    modules = tuple(
        _parse_module(m, i) for i, m in enumerate(_field(doc, "modules", list, "top level"))
    )
    names = [m.name for m in modules]
    if len(set(names)) != len(names):
        raise PromptError("module map: duplicate module names")
    keys = names + [a for m in modules for a in m.aliases]
    if len(set(keys)) != len(keys):
        raise PromptError("module map: an alias repeats a module name or another alias")
    for m in modules:
        for r in m.related:
            if r not in names:
                raise PromptError(f"module map: module {m.name!r} relates to unknown {r!r}")
    return ModuleMap(
        reference=Reference(
            name=_field(ref, "name", str, "reference"),
            distribution=_field(ref, "distribution", str, "reference"),
            version=_field(ref, "version", str, "reference"),
        ),
        target_name=_field(target, "name", str, "target"),
        target_language=_field(target, "language", str, "target"),
        design_rules=_strings(doc, "design_rules", "top level"),
        standards=_strings(doc, "standards", "top level"),
        modules=modules,
    )


def module_names() -> list[str]:
    """The module names of the map (what a verify report's ``module`` field should be)."""
    return load_module_map().names()


# --------------------------------------------------------------------------------------------
# The reference source (PyBoy, read from its installed files; never imported)


def _reference_dir(ref: Reference) -> Path | None:
    spec = importlib.util.find_spec(ref.distribution)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _fence(text: str, lang: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def _reference_source(mm: ModuleMap, spec: ModuleSpec, root: Path | None) -> str:
    ref = mm.reference
    if root is None:
        raise PromptError(
            f"{ref.name} {ref.version} is not installed, so the reference source of "
            f"{spec.name!r} cannot be included (pip install {ref.distribution}=={ref.version}, "
            "or render without the source: include_source=False / --no-source)"
        )
    try:
        installed = importlib.metadata.version(ref.distribution)
    except importlib.metadata.PackageNotFoundError:
        installed = None
    if installed is not None and installed != ref.version:
        raise PromptError(
            f"{ref.name} {installed} is installed but the module map is pinned to "
            f"{ref.version} (pip install {ref.distribution}=={ref.version})"
        )
    parts = []
    for rel in spec.pyboy:
        path = root / rel
        try:
            data = path.read_bytes()
        except OSError as e:
            raise PromptError(f"cannot read the reference file {path}: {e}") from e
        digest = hashlib.sha256(data).hexdigest()
        if digest != spec.pyboy_sha256[rel]:
            raise PromptError(
                f"{path} does not match the pinned {ref.name} {ref.version} file "
                f"(sha256 {digest}, expected {spec.pyboy_sha256[rel]})"
            )
        text = data.decode("utf-8")
        lang = "cython" if rel.endswith(".pxd") else "python"
        header = (
            f"### `{ref.distribution}/{rel}` ({ref.name} {ref.version}, "
            f"{text.count(chr(10))} lines, sha256 {digest[:16]})"
        )
        parts.append(header + "\n\n" + _fence(text, lang))
    return "\n\n".join(parts)


# --------------------------------------------------------------------------------------------
# Rendering helpers


def _bullets(items: Sequence[str]) -> str:
    return "\n".join(f"- {s}" for s in items)


def _reference_paths(mm: ModuleMap, spec: ModuleSpec) -> str:
    if not spec.pyboy:
        return f"none ({spec.no_reference})"
    return ", ".join(f"`{mm.reference.distribution}/{p}`" for p in spec.pyboy)


def _target_paths(mm: ModuleMap, spec: ModuleSpec, language: str) -> str:
    text = ", ".join(f"`{p}`" for p in spec.emurust)
    if spec.status != "stable":
        text += f" (status: {spec.status}; some of these files may not exist yet)"
    if language.lower() != mm.target_language.lower():
        text += (
            f". These are {mm.target_name}'s {mm.target_language} files for this module; for a "
            f"{language} backend write the equivalent {language} module with the same interface, "
            f"and use them as a second behavioural reference"
        )
    return text


def _related(mm: ModuleMap, spec: ModuleSpec) -> str:
    if not spec.related:
        return "  - none"
    lines = []
    for r in spec.related:
        other = mm.get(r)
        files = ", ".join(f"`{p}`" for p in other.emurust)
        lines.append(f"  - `{other.name}` ({files}): {other.summary}")
    return "\n".join(lines)


def _facts(spec: ModuleSpec) -> str:
    return "\n".join(f"- {f.fact} (source: {f.source})" for f in spec.facts) or "- none recorded"


def _deviations(mm: ModuleMap, spec: ModuleSpec) -> str:
    if not spec.deviations:
        return f"- none known for this module in {mm.reference.name} {mm.reference.version}"
    return "\n".join(f"- {d.what} (evidence: {d.evidence})" for d in spec.deviations)


def _commands(spec: ModuleSpec) -> str:
    return "\n".join(f"- `{c.cmd}`: {c.checks}" for c in spec.verify)


def _module_values(mm: ModuleMap, spec: ModuleSpec, language: str) -> dict[str, str]:
    return {
        "module": spec.name,
        "module_summary": spec.summary,
        "reference_name": mm.reference.name,
        "reference_version": mm.reference.version,
        "reference_path": _reference_paths(mm, spec),
        "target_language": language,
        "target_project": mm.target_name,
        "target_module": _target_paths(mm, spec, language),
        "related_modules": _related(mm, spec),
        "interface_contract": _bullets(spec.interface),
        "invariants": _bullets(spec.invariants),
        "reference_facts": _facts(spec),
        "known_deviations": _deviations(mm, spec),
        "design_rules": _bullets(mm.design_rules),
        "project_standards": _bullets(mm.standards),
        "verification_commands": _commands(spec),
    }


def render_translate(
    module: str,
    *,
    target_language: str = "Rust",
    include_source: bool = True,
    module_map: ModuleMap | None = None,
) -> str:
    """The translation prompt for one module (name, alias or file path, see
    :meth:`ModuleMap.get`). With ``include_source`` the pinned PyBoy source files are embedded
    (PyBoy must be installed, at the pinned version, unmodified)."""
    if not isinstance(target_language, str) or not target_language.strip():
        raise PromptError("target_language must be a non-empty string")
    mm = module_map if module_map is not None else load_module_map()
    spec = mm.get(module)
    values = _module_values(mm, spec, target_language.strip())
    if not spec.pyboy:
        source = f"No reference module: {spec.no_reference}"
    elif include_source:
        source = _reference_source(mm, spec, _reference_dir(mm.reference))
    else:
        source = (
            f"Not included in this prompt. Read {_reference_paths(mm, spec)} from "
            f"{mm.reference.name} {mm.reference.version} (`pip install "
            f"{mm.reference.distribution}=={mm.reference.version}`; the files are in the "
            f"installed `{mm.reference.distribution}` package folder)."
        )
    values["reference_module_source"] = source
    return fill(load_template("translate"), values, name="prompts/translate.md")


# --------------------------------------------------------------------------------------------
# Verify reports


def load_report(report: ReportLike) -> dict[str, Any]:
    """A verify report: a mapping, or the path of a ``report.json`` (or of the folder holding
    it). Checked for the fields the repair prompt uses."""
    if isinstance(report, Mapping):
        doc: Any = dict(report)
        origin = "report"
    elif isinstance(report, (str, os.PathLike)):
        path = Path(report)
        if path.is_dir():
            path = path / "report.json"
        origin = str(path)
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise PromptError(f"cannot read the verify report {path}: {e}") from e
    else:
        raise TypeError(f"report must be a mapping or a path, not {type(report).__name__}")
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        raise PromptError(f"{origin}: not a verify report (no 'results' list)")
    for i, r in enumerate(doc["results"]):
        if not isinstance(r, dict):
            raise PromptError(f"{origin}: results[{i}] should be an object")
        for key, kind in (("name", str), ("status", str), ("level", int)):
            if not isinstance(r.get(key), kind):
                raise PromptError(f"{origin}: results[{i}].{key} should be a {kind.__name__}")
    return doc


def _failing(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [r for r in doc["results"] if r["status"] == "fail"]


def _summary_counts(doc: Mapping[str, Any]) -> str:
    s = doc.get("summary")
    if isinstance(s, dict):
        keys = ("passed", "failed", "skipped", "allowlisted", "frames_compared")
        return ", ".join(f"{k} {s[k]}" for k in keys if k in s)
    counts: dict[str, int] = {}
    for r in doc["results"]:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))


def _hex(key: str, value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int):
        return str(value)
    wide = key.lower() in ("sp", "pc") or value > 0xFF
    text = f"0x{value:04X}" if wide else f"0x{value:02X}"
    if key.lower() == "f" and 0 <= value <= 0xFF:
        text += " (" + "".join(c if value & b else "-" for c, b in zip("ZNHC", (128, 64, 32, 16)))
        text += ")"
    return text


def _int(d: Mapping[str, Any], key: str, where: str) -> int:
    v = d.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise PromptError(f"report: {where}.{key} should be an int")
    return v


def _divergence(div: Any, mm: ModuleMap, name: str) -> tuple[str, str]:
    """(divergence section, trace section)."""
    ref = mm.reference.name
    if div is None:
        return (
            "None recorded (this check does not run in lockstep with the reference; see the "
            "detail and the falsifying example above).",
            "No trace recorded for this check.",
        )
    if not isinstance(div, dict):
        raise PromptError(f"report: result {name!r}: divergence should be an object or null")
    where = f"result {name!r} divergence"
    frame, pc = _int(div, "frame", where), _int(div, "pc", where)
    lines = [f"- Frame: {frame}", f"- PC: 0x{pc:04X}"]
    regs = div.get("registers") or {}
    if not isinstance(regs, dict):
        raise PromptError(f"report: {where}.registers should be an object")
    ours, theirs = regs.get("emurust") or {}, regs.get("pyboy") or {}
    if not isinstance(ours, dict) or not isinstance(theirs, dict):
        raise PromptError(f"report: {where}.registers.emurust/pyboy should be objects")
    if ours or theirs:
        keys = list(ours) + [k for k in theirs if k not in ours]
        differing = [k for k in keys if ours.get(k) != theirs.get(k)]
        lines += [
            "",
            "Registers" + (f" (differ: {', '.join(differing)})" if differing else " (all equal)"),
            "",
            f"| register | {mm.target_name} | {ref} | |",
            "| --- | --- | --- | --- |",
        ]
        for k in keys:
            mark = "differs" if k in differing else ""
            lines.append(
                f"| {k} | {_hex(k, ours.get(k, '-'))} | {_hex(k, theirs.get(k, '-'))} | {mark} |"
            )
    diffs = div.get("diffs") or []
    if not isinstance(diffs, list):
        raise PromptError(f"report: {where}.diffs should be a list")
    if diffs:
        shown = diffs[:MAX_DIFFS]
        more = f", first {len(shown)} shown" if len(diffs) > len(shown) else ""
        lines += [
            "",
            f"Memory differences ({len(diffs)}{more}):",
            "",
            f"| region | address | {mm.target_name} | {ref} | differing bits |",
            "| --- | --- | --- | --- | --- |",
        ]
        for i, d in enumerate(shown):
            if not isinstance(d, dict):
                raise PromptError(f"report: {where}.diffs[{i}] should be an object")
            w = f"{where}.diffs[{i}]"
            addr, a, b = _int(d, "addr", w), _int(d, "emurust", w), _int(d, "pyboy", w)
            lines.append(
                f"| {d.get('region', '?')} | 0x{addr:04X} | 0x{a:02X} | 0x{b:02X} | 0x{a ^ b:02X} |"
            )
    else:
        lines += ["", "No memory differences (registers or screen only)."]
    trace = div.get("trace") or []
    if not isinstance(trace, list) or not all(isinstance(t, str) for t in trace):
        raise PromptError(f"report: {where}.trace should be a list of strings")
    trace_text = _fence("\n".join(trace), "text") if trace else "No trace recorded."
    return "\n".join(lines), trace_text


def _rerun(result: Mapping[str, Any]) -> str:
    parts = ["emurust verify", f"--level {result['level']}"]
    rom = result.get("rom")
    if isinstance(rom, str) and rom:
        parts.append(f"--rom {_shell_quote(rom)}")
    frames = result.get("frames")
    if isinstance(frames, int) and not isinstance(frames, bool) and frames > 0:
        parts.append(f"--frames {frames}")
    parts.append("--report repair-check")
    return " ".join(parts)


def _shell_quote(s: str) -> str:
    return s if re.fullmatch(r"[\w@%+=:,./-]+", s) else "'" + s.replace("'", "'\"'\"'") + "'"


def _allowlist(doc: Mapping[str, Any]) -> str:
    entries = doc.get("allowlist") or []
    if not isinstance(entries, list) or not entries:
        return "- none"
    out = []
    for e in entries:
        if isinstance(e, dict):
            out.append(
                f"- `{e.get('name', '?')}` masks {e.get('masks', '?')} "
                f"(proof: {e.get('proof', '?')})"
            )
    return "\n".join(out) or "- none"


def render_repair(
    report: ReportLike,
    *,
    module: str | None = None,
    result: str | None = None,
    module_map: ModuleMap | None = None,
) -> str:
    """The repair prompt for the first failing result of a verify report (or the failing
    result named ``result``). ``module`` overrides the result's ``module`` field. Raises
    :class:`NothingToRepairError` when there is no failing result."""
    doc = load_report(report)
    failing = _failing(doc)
    if result is not None:
        chosen = [r for r in doc["results"] if r["name"] == result]
        if not chosen:
            raise PromptError(f"the report has no result named {result!r}")
        res = chosen[0]
        if res["status"] != "fail":
            raise NothingToRepairError(
                f"result {result!r} has status {res['status']!r}: nothing to repair"
            )
    elif not failing:
        raise NothingToRepairError(
            f"nothing to repair: the report has no failing result ({_summary_counts(doc)})"
        )
    else:
        res = failing[0]
    mm = module_map if module_map is not None else load_module_map()
    mod_name = module if module is not None else res.get("module")
    if not isinstance(mod_name, str) or not mod_name:
        raise PromptError(
            f"result {res['name']!r} names no module; pass module=... (--module); known "
            f"modules: {', '.join(mm.names())}"
        )
    spec = mm.get(mod_name)
    name = res["name"]
    divergence, trace = _divergence(res.get("divergence"), mm, name)
    level = res["level"]
    values = _module_values(mm, spec, mm.target_language)

    def text(key: str, default: str) -> str:
        v = res.get(key)
        return str(v) if v not in (None, "") else default

    others = [r for r in failing if r is not res]
    other_text = (
        "\n".join(
            f"- `{r['name']}` (level {r['level']}, module {r.get('module', '?')}): "
            f"{r.get('detail', '')}"
            for r in others[:MAX_OTHER_FAILURES]
        )
        or "- none"
    )
    if len(others) > MAX_OTHER_FAILURES:
        other_text += f"\n- ... and {len(others) - MAX_OTHER_FAILURES} more"
    argv = doc.get("argv")
    argv_text = " ".join(str(a) for a in argv) if isinstance(argv, list) and argv else "unknown"
    report_summary = _bullets(
        [
            f"Tool: {doc.get('tool', 'emurust verify')} {doc.get('emurust_version', '')}".rstrip(),
            f"{mm.reference.name} version in the run: {doc.get('pyboy_version') or 'not used'}",
            f"Created: {doc.get('created', 'unknown')}",
            f"Command: `{argv_text}`",
            f"Levels run: {doc.get('levels', 'unknown')}",
            f"Totals: {_summary_counts(doc)}",
        ]
    )
    values.update(
        {
            "result_name": name,
            "failing_level": str(level),
            "level_meaning": LEVELS.get(level, "unknown level"),
            "result_detail": text("detail", "(no detail in the report)"),
            "rom": text("rom", "none (no ROM: a generated or unit-level check)"),
            "frames": text("frames", "not applicable"),
            "counterexample": text("counterexample", "none"),
            "divergence": divergence,
            "trace": trace,
            "allowlist": _allowlist(doc),
            "rerun_command": _rerun(res),
            "report_summary": report_summary,
            "other_failures": other_text,
        }
    )
    return fill(load_template("repair"), values, name="prompts/repair.md")


# --------------------------------------------------------------------------------------------
# Command line


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="emurust prompts",
        description="Render the translation and repair prompts (prompts/, references/).",
    )
    sub = p.add_subparsers(dest="command", required=True)
    ls = sub.add_parser("list", help="list the modules of the module map")
    ls.add_argument("--json", action="store_true", help="machine-readable output")
    r = sub.add_parser("render", help="print a filled prompt")
    r.add_argument("--module", help="module name, alias or file path (see `list`)")
    r.add_argument("--report", help="verify report.json (or its folder): renders a repair prompt")
    r.add_argument("--kind", choices=KINDS, help="default: repair with --report")
    r.add_argument("--result", help="repair this failing result (default: the first failure)")
    r.add_argument("--target-language", default="Rust", help="translate: target language")
    r.add_argument("--no-source", action="store_true", help="translate: omit the PyBoy source")
    r.add_argument("--out", help="write the prompt to this file instead of stdout")
    s = sub.add_parser("sync", help="copy prompts/ and references/ into emurust/data/ (checkout)")
    s.add_argument("--check", action="store_true", help="only report differences (exit 1)")
    return p


def _list(as_json: bool) -> int:
    mm = load_module_map()
    if as_json:
        rows = [
            {
                "name": m.name,
                "aliases": list(m.aliases),
                "pyboy": [f"{mm.reference.distribution}/{p}" for p in m.pyboy],
                "emurust": list(m.emurust),
                "status": m.status,
            }
            for m in mm.modules
        ]
        print(json.dumps(rows, indent=2))
        return 0
    print(f"Reference: {mm.reference.name} {mm.reference.version}; target: {mm.target_name}")
    for m in mm.modules:
        pyboy = ", ".join(m.pyboy) or "(no reference module)"
        status = "" if m.status == "stable" else f"  [{m.status}]"
        print(f"{m.name:10} {', '.join(m.emurust)}{status}")
        print(f"{'':10} PyBoy: {pyboy}")
        print(f"{'':10} aliases: {', '.join(m.aliases) or '-'}")
    return 0


def _render(args: argparse.Namespace) -> int:
    kind = args.kind or ("repair" if args.report else "translate")
    if kind == "repair":
        if not args.report:
            raise PromptError("--kind repair needs --report report.json")
        text = render_repair(args.report, module=args.module, result=args.result)
    else:
        if args.report or args.result:
            raise PromptError("--report/--result go with --kind repair")
        if not args.module:
            raise PromptError("--module is required for a translate prompt (see `list`)")
        text = render_translate(
            args.module, target_language=args.target_language, include_source=not args.no_source
        )
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {args.out} ({len(text)} characters)", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def cli_main(argv: list[str]) -> int:
    """``emurust prompts ...``: returns the exit status (0 ok, 1 nothing to repair / out of
    sync, 2 error)."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:  # --help (0) or a usage error (2)
        return e.code if isinstance(e.code, int) else 2
    try:
        if args.command == "list":
            return _list(args.json)
        if args.command == "sync":
            changed = sync_package_data(check=args.check)
            verb = "differ" if args.check else "updated"
            for rel in changed:
                print(f"{verb}: python/emurust/data/{rel}")
            if not changed:
                print("package data in sync")
            return 1 if args.check and changed else 0
        return _render(args)
    except NothingToRepairError as e:
        print(f"emurust prompts: {e}", file=sys.stderr)
        return 1
    except (PromptError, OSError) as e:
        print(f"emurust prompts: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(cli_main(sys.argv[1:]))
