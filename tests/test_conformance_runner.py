"""The conformance runner (`python -m emurust.conformance`): its verdict rules on small generated
ROMs and fake probes, its ROM selection, and one short run on real test ROMs when present."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from emurust import conformance as conf
from emurust.tools.asm.program import Program, serial_rom
from emurust.tools.asm.rom import build_rom

FIB = conf.MOONEYE_FIB
ROOT = Path(__file__).resolve().parent.parent


def mooneye_rom(values: tuple[int, ...]) -> bytes:
    """Loads ``values`` into B,C,D,E,H,L, executes ``ld b,b`` and loops forever."""
    asm = Program().di().ld_sp(0xFFFE)
    for opcode, value in zip((0x06, 0x0E, 0x16, 0x1E, 0x26, 0x2E), values):
        asm.emit(opcode, value)  # ld r, n
    asm.emit(0x40)  # ld b, b
    loop = asm.here()
    asm.jr(loop)
    return build_rom(asm.bytes())


def endless_rom() -> bytes:
    """Never reports anything: registers stay at their post-boot values."""
    asm = Program().di()
    loop = asm.here()
    asm.jr(loop)
    return build_rom(asm.bytes())


def a000_rom(status: int, text: bytes) -> bytes:
    """An MBC1+RAM cartridge that writes a Blargg $A000 result block (signature, text, then
    the status) and loops."""
    asm = Program().di().ld_sp(0xFFFE)
    asm.ld_a(0x0A).ld_mem_a(0x0000)  # RAMG: enable cartridge RAM
    asm.ld_a(0x80).ld_mem_a(0xA000)  # running
    for i, byte in enumerate(bytes([0xDE, 0xB0, 0x61])):
        asm.ld_a(byte).ld_mem_a(0xA001 + i)
    for i, byte in enumerate(text + b"\0"):
        asm.ld_a(byte).ld_mem_a(0xA004 + i)
    asm.ld_a(status).ld_mem_a(0xA000)
    loop = asm.here()
    asm.jr(loop)
    return build_rom(asm.bytes(), cartridge_type=0x02, ram_size_code=0x02)


def spec(protocol: str, budget: int = 60, checksum: str | None = None) -> conf.RomSpec:
    return conf.RomSpec("test", "generated.gb", protocol, budget, checksum)


# --- the shared rules on fake probes -----------------------------------------------------


def test_mooneye_verdict() -> None:
    assert conf.mooneye_verdict(FIB) is True
    assert conf.mooneye_verdict([0x42] * 6) is False
    assert conf.mooneye_verdict([3, 5, 8, 13, 21, 0]) is None


def test_blargg_verdict_serial_and_a000() -> None:
    ram = {0xA000: 0x80, 0xA001: 0xDE, 0xA002: 0xB0, 0xA003: 0x61}
    ram.update({0xA004 + i: b for i, b in enumerate(b"Passed")})

    def peek(addr: int) -> int:
        return ram.get(addr, 0)

    assert conf.blargg_verdict(peek, b"cpu_instrs\n\nPassed all tests\n") == (
        True,
        "cpu_instrs\n\nPassed all tests\n",
    )
    assert conf.blargg_verdict(peek, b"Failed #2\n") == (False, "Failed #2\n")
    assert conf.blargg_verdict(peek, b"") is None  # status 0x80: still running
    ram[0xA000] = 0
    assert conf.blargg_verdict(peek, b"") == (True, "Passed")
    ram[0xA000] = 1
    assert conf.blargg_verdict(peek, b"") == (False, "Passed")
    ram[0xA001] = 0
    assert conf.blargg_verdict(peek, b"") is None  # no signature


def fake_probe(registers: list[int], finish_at: int) -> tuple[conf.Probe, list[int]]:
    """A probe whose registers become ``registers`` once ``finish_at`` frames have run."""
    frames = [0]

    def step(n: int) -> None:
        frames[0] += n

    return (
        conf.Probe(
            step=step,
            registers=lambda: registers if frames[0] >= finish_at else [0] * 6,
            peek=lambda addr: 0,
            serial=lambda: b"",
        ),
        frames,
    )


def test_run_rules_reports_frames_to_verdict() -> None:
    probe, frames = fake_probe(list(FIB), 7)
    verdict = conf.run_rules(probe, spec("mooneye", 100))
    assert (verdict.status, verdict.frames, frames[0]) == ("pass", 7, 7)
    probe, _ = fake_probe([0x42] * 6, 3)
    assert conf.run_rules(probe, spec("mooneye", 100)).status == "fail"
    probe, frames = fake_probe(list(FIB), 1000)
    verdict = conf.run_rules(probe, spec("mooneye", 25))
    assert (verdict.status, verdict.frames, frames[0]) == ("timeout", 25, 25)
    with pytest.raises(ValueError, match="protocol"):
        conf.run_rules(probe, spec("nonsense"))


# --- the rules on emurust, generated ROMs ---------------------------------------------------


@pytest.mark.parametrize(
    ("rom", "protocol", "status"),
    [
        (mooneye_rom(FIB), "mooneye", "pass"),
        (mooneye_rom((0x42,) * 6), "mooneye", "fail"),
        (endless_rom(), "mooneye", "timeout"),
        (serial_rom(b"01-test\n\nPassed\n"), "blargg", "pass"),
        (serial_rom(b"01-test\n\nFailed #3\n"), "blargg", "fail"),
        (endless_rom(), "blargg", "timeout"),
        (a000_rom(0, b"mem_timing\n\nPassed\n"), "blargg", "pass"),
        (a000_rom(1, b"mem_timing\n\nFailed\n"), "blargg", "fail"),
        (mooneye_rom(FIB), "auto", "pass"),
        (serial_rom(b"Passed\n"), "auto", "pass"),
    ],
)
def test_emurust_verdicts(rom: bytes, protocol: str, status: str) -> None:
    verdict = conf.run_one(lambda: conf.emurust_probe(rom), spec(protocol, 40))
    assert verdict.status == status, verdict
    assert 0 < verdict.frames <= 40
    if status == "timeout":
        assert verdict.frames == 40


def test_dmg_checksum_counts_as_pass() -> None:
    rom = serial_rom(b"interrupt_time\n\n7F8F4AAF\nFailed\n")
    verdict = conf.run_one(lambda: conf.emurust_probe(rom), spec("blargg", 40, "7F8F4AAF"))
    assert (verdict.status, verdict.dmg_result) == ("pass", True)
    assert verdict.label().startswith("pass (DMG result)")
    other = conf.run_one(lambda: conf.emurust_probe(rom), spec("blargg", 40, "01234567"))
    assert (other.status, other.dmg_result) == ("fail", False)


def test_unloadable_rom_is_an_error_verdict() -> None:
    verdict = conf.run_one(lambda: conf.emurust_probe(b"\0" * 16), spec("mooneye"))
    assert verdict.status == "error"
    assert "InvalidRomError" in verdict.detail


# --- the same rules on PyBoy --------------------------------------------------------------


@pytest.mark.skipif(not conf.pyboy_available(), reason="PyBoy is not installed")
@pytest.mark.parametrize(
    ("rom", "protocol", "status"),
    [
        (mooneye_rom(FIB), "mooneye", "pass"),
        (mooneye_rom((0x42,) * 6), "mooneye", "fail"),
        (serial_rom(b"Passed\n"), "blargg", "pass"),
    ],
)
def test_pyboy_verdicts(tmp_path: Path, rom: bytes, protocol: str, status: str) -> None:
    path = tmp_path / "generated.gb"
    path.write_bytes(rom)
    verdict = conf.run_one(lambda: conf.pyboy_probe(path), spec(protocol, 300))
    assert verdict.status == status, verdict
    assert sorted(p.name for p in tmp_path.iterdir()) == ["generated.gb"]  # no .ram written


# --- ROM selection --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "dmg"),
    [
        ("tim00.gb", True),
        ("di_timing-GS.gb", True),
        ("boot_regs-dmgABC.gb", True),
        ("boot_div-dmgABCmgb.gb", True),
        ("rom_16Mb.gb", True),
        ("boot_div-S.gb", False),
        ("boot_div-dmg0.gb", False),
        ("boot_regs-mgb.gb", False),
        ("boot_regs-sgb.gb", False),
        ("boot_regs-sgb2.gb", False),
        ("boot_regs-A.gb", False),
        ("boot_regs-C.gb", False),
        ("boot_regs-cgb.gb", False),
        ("boot_regs-cgbABCDE.gb", False),
    ],
)
def test_mooneye_model_filter(name: str, dmg: bool) -> None:
    assert conf.is_dmg_mooneye_rom(name) is dmg


def _rust_ignored_roms() -> list[str]:
    """ROM paths (under the ROM folder) of every `#[ignore]`d suite test in tests/*.rs that
    the conformance runner also runs."""
    roms: list[str] = []
    mooneye = (ROOT / "tests" / "mooneye.rs").read_text()
    roms += re.findall(r'#\[ignore[^\]]*\]\s*\w+:\s*"([^"]+)"', mooneye)
    screens = (ROOT / "tests" / "ppu_screens.rs").read_text()
    roms += [
        f"mealybug-tearoom-tests/{name}.gb"
        for name in re.findall(r"#\[ignore[^\]]*\]\s*(m\d_\w+);", screens)
    ]
    micro = (ROOT / "tests" / "gbmicrotest.rs").read_text()
    known = micro[micro.index("const KNOWN_FAILURES") :]
    known = known[: known.index("];")]
    # Entries: ("name.gb", REASON, how it fails), the last spread over lines by rustfmt.
    roms += [f"gbmicrotest/bin/{name}" for name in re.findall(r'\(\s*"([^"]+\.gb)",\s*\w+,', known)]
    oam = (ROOT / "tests" / "oam_bug.rs").read_text()
    roms += re.findall(r'#\[ignore[^\]]*\]\s*\w+:\s*"([^"]+)"', oam)
    return roms


def test_known_failures_cover_the_rust_suite_ignores() -> None:
    """Every ROM that the Rust suites ignore is a known failure here (with a reason), and
    every known failure is ignored there (a fix must update both)."""
    if not (ROOT / "tests" / "mooneye.rs").is_file():
        pytest.skip("tests/*.rs not found")
    ignored = set(_rust_ignored_roms())
    assert ignored, "no known failures parsed from tests/*.rs"
    missing = sorted(ignored - set(conf.KNOWN_FAILURES))
    assert not missing, f"add these to emurust.conformance.KNOWN_FAILURES: {missing}"
    stale = sorted(
        rel
        for rel in conf.KNOWN_FAILURES
        if rel.startswith(("mooneye/", "mealybug-tearoom-tests/", "gbmicrotest/"))
        and rel not in ignored
    )
    assert not stale, f"no longer ignored in the Rust suites, drop from KNOWN_FAILURES: {stale}"
    assert all(conf.KNOWN_FAILURES.values())


def test_catalogue_of_an_empty_folder(tmp_path: Path) -> None:
    specs, notes = conf.catalogue(tmp_path)
    assert specs == []
    assert any(n.startswith("blargg:") for n in notes)
    assert any(n.startswith("mooneye:") for n in notes)


def test_strict_exit_code_on_generated_roms(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.gb"
    good.write_bytes(mooneye_rom(FIB))
    bad = tmp_path / "bad.gb"
    bad.write_bytes(mooneye_rom((0x42,) * 6))
    base = ["--no-pyboy", "--roms", str(tmp_path), "--frames", "30"]
    assert conf.main([*base, "--strict", "--rom", str(good)]) == 0
    assert conf.main([*base, "--rom", str(bad)]) == 0  # not strict: always 0
    assert conf.main([*base, "--strict", "--rom", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "TOTAL: emurust 0/1" in out


def test_strict_judges_each_model_by_its_own_list() -> None:
    """--strict: a CGB failure listed in gambatte_cgb_failures.tsv (not in the DMG's list)
    is known; the same ROM failing on the DMG column is not."""
    rel = next(r for r in conf.KNOWN_CGB_FAILURES if r not in conf.KNOWN_FAILURES)
    rows = []
    for model, known in (("cgb", conf.KNOWN_CGB_FAILURES), ("dmg", conf.KNOWN_FAILURES)):
        spec = conf.RomSpec(f"gambatte-{model}", rel, "gambatte", 20, model=model)
        rows.append(conf.Row(spec, conf.Verdict("fail"), None, known.get(rel)))
    rows.append(conf.Row(conf.RomSpec("blargg", "x.gb", "blargg", 20), conf.Verdict("pass")))
    assert [r.spec.model for r in conf.unexpected_failures(rows)] == ["dmg"]


# --- the real runner on a few shared ROMs ---------------------------------------------------

SHARED = {
    "blargg/cpu_instrs/individual/01-special.gb": "serial text",
    "blargg/mem_timing-2/rom_singles/01-read_timing.gb": "$A000 block",
    "mooneye/acceptance/timer/tim00.gb": "registers",
}


def test_runner_on_shared_roms(shared_roms: Path, tmp_path: Path) -> None:
    present = [rel for rel in SHARED if (shared_roms / rel).is_file()]
    if not present:
        pytest.skip(f"none of the shared ROMs used here are in {shared_roms}")
    out = tmp_path / "results.json"
    argv = ["--roms", str(shared_roms), "--json", str(out)]
    for rel in present:
        argv += ["--rom", rel]
    assert conf.main(argv) == 0
    data = json.loads(out.read_text())
    results = {r["rel"]: r for r in data["results"]}
    assert sorted(results) == sorted(present)
    for rel, r in results.items():
        assert r["emurust"]["status"] == "pass", (rel, r["emurust"])
        assert 0 < r["emurust"]["frames"] < r["budget"]
        if r["pyboy"] is not None:  # PyBoy 2.8.1 passes these three too (shared/roms/MANIFEST.md)
            assert r["pyboy"]["status"] == "pass", (rel, r["pyboy"])
    assert data["totals"]["emurust_passed"] == len(present)


# --- gambatte's hardware tests -------------------------------------------------------------


def _font_screen(digits: str) -> list[list[int]]:
    """A 144x160 screen of shades with ``digits`` drawn in gambatte's font at the top left."""
    screen = [[0] * 160 for _ in range(144)]
    for cell, ch in enumerate(digits):
        rows = conf.GAMBATTE_FONT[int(ch, 16)]
        for y, row in enumerate(rows):
            for x in range(8):
                if row & (0x80 >> x):
                    screen[y][cell * 8 + x] = 3
    return screen


def test_gambatte_expectation_from_names() -> None:
    assert conf.gambatte_expectation("x/a_dmg08_cgb04c_out0A.gbc") == ("hex", "0A")
    assert conf.gambatte_expectation("x/a_dmg08_out3_cgb04c_out1.gb") == ("hex", "3")
    assert conf.gambatte_expectation("x/a_dmg08_outaudio1_cgb04c_outaudio0.gb") == ("audio", "1")
    assert conf.gambatte_expectation("x/a_dmg08_cgb_blank.gb") == ("blank", "")
    with pytest.raises(ValueError, match="no DMG expectation"):
        conf.gambatte_expectation("x/a_cgb04c_out1.gb")


def test_gambatte_verdicts() -> None:
    screen = _font_screen("5A")
    assert conf.gambatte_cells(screen, 2) == "5A"
    assert conf.gambatte_verdict(("hex", "5A"), screen, None)[0]
    assert not conf.gambatte_verdict(("hex", "5B"), screen, None)[0]
    screen[3][9] = 2  # one pixel off in the second cell
    assert conf.gambatte_cells(screen, 2) == "5?"
    assert conf.gambatte_verdict(("audio", "0"), screen, [[3, 3], [3, 3]])[0]
    assert not conf.gambatte_verdict(("audio", "0"), screen, [[3, 3], [3, 4]])[0]
    assert conf.gambatte_verdict(("audio", "1"), screen, [[3, 3], [3, 4]])[0]
    assert conf.gambatte_verdict(("blank", ""), [[0] * 160] * 144, None)[0]
    assert not conf.gambatte_verdict(("blank", ""), screen, None)[0]


def test_gambatte_known_failures_have_reasons() -> None:
    known = conf.gambatte_known_failures()
    assert known
    assert all(rel.startswith("gambatte-hwtests/") for rel in known)
    assert all(known.values())
    assert set(known) <= set(conf.KNOWN_FAILURES)


def test_gambatte_rule_on_a_shared_rom(shared_roms: Path) -> None:
    base = shared_roms / conf.GAMBATTE_DIR
    roms = sorted(base.rglob("*_out*.gb*")) if base.is_dir() else []
    rel = next(
        (
            p.relative_to(shared_roms).as_posix()
            for p in roms
            if p.relative_to(shared_roms).as_posix() not in conf.KNOWN_FAILURES
        ),
        None,
    )
    if rel is None:
        pytest.skip(f"{shared_roms / 'gambatte-hwtests'} not present")
    spec = conf.RomSpec("gambatte", rel, "gambatte", conf.GAMBATTE_FRAMES)
    verdict = conf.run_one(lambda: conf.emurust_probe(shared_roms / rel), spec)
    assert verdict.status == "pass", (rel, verdict)
    assert verdict.frames >= conf.GAMBATTE_FRAMES
