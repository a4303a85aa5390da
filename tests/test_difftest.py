"""The lockstep differential harness (emurust.verify.lockstep) against PyBoy 2.8.1.

* A ROM built here (emurust.tools.asm) runs in step with PyBoy, and so does Tobu Tobu Girl up to the
  frame where it is known to match.
* The harness catches a deliberately broken CPU: with ``fault="adc_half_carry"`` (ADC
  computes H without the carry-in) the divergence is reported at the frame in which the
  program executes that ADC, with the ADC's PC in the trace; likewise ``daa_ignore_h``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import emurust
from emurust import _pyboy_adapter as pyboy_adapter
from emurust.tools.asm.program import Program
from emurust.tools.asm.rom import build_rom
from emurust.verify import allowlist, disasm, lockstep
from emurust.verify.allowlist import line153, proofs, replays

# The test program's WRAM: frame counter, running sum, the fault section's results.
COUNTER = 0xC000
SUM = 0xC001
ADC_FLAGS = 0xC100
DAA_RESULT = 0xC101
TRIGGER_FRAME = 20  # the program frame (VBlank count) that runs the fault section


pytestmark = pytest.mark.usefixtures("pyboy_available")


def program() -> tuple[bytes, int, int]:
    """A VBlank-paced program: every frame it counts, adds, and writes the count into the
    BG map (visible on screen) and OAM; at frame ``TRIGGER_FRAME`` it runs ADC with a
    carry-in that alone makes the half carry, and DAA after an ADD with half carry.
    Returns the code and the addresses of that ADC and that DAA."""
    asm = Program().di().ld_sp(0xFFFE)
    asm.ld_a(0x01).ldh_mem_a(0xFF)  # IE = VBlank (IME stays 0: HALT just waits)
    asm.emit(0xAF).ld_mem_a(COUNTER).ld_mem_a(SUM)  # xor a
    main = asm.here()
    asm.emit(0xAF).ldh_mem_a(0x0F)  # IF = 0
    asm.emit(0x76, 0x00)  # halt; nop: wait for VBlank
    asm.ld_hl(COUNTER).inc_hl_mem()  # count the frame
    asm.emit(0x7E)  # ld a,(hl)
    asm.emit(0x47)  # ld b,a
    asm.emit(0xFA, SUM & 0xFF, SUM >> 8)  # ld a,(SUM)
    asm.emit(0x80)  # add a,b
    asm.emit(0x07)  # rlca
    asm.ld_mem_a(SUM)
    asm.emit(0x78)  # ld a,b
    asm.emit(0xE6, 0x07)  # and 7: a BG tile number, tile data at 0x8000 is blank but
    asm.ld_mem_a(0x9800 + 0x21)  # the boot ROM's BGP makes its colour 0 visible anyway
    asm.emit(0x78).ld_mem_a(0x8010)  # tile 1, row 0: the counter's bits as pixels
    asm.emit(0x78).ld_mem_a(0xFE00)  # OAM byte
    asm.emit(0x78).emit(0xFE, TRIGGER_FRAME)  # ld a,b; cp TRIGGER_FRAME
    asm.jr(main, condition="nz")
    # Fault section (runs once).
    asm.emit(0x37)  # scf
    asm.ld_a(0x0F)
    adc_pc = asm.here()
    asm.emit(0xCE, 0x00)  # adc a,$00: 0x0F + 0 + carry -> 0x10, H only through the carry
    asm.emit(0xF5, 0xC1, 0x79)  # push af; pop bc; ld a,c  (A = the flags)
    asm.ld_mem_a(ADC_FLAGS)
    asm.ld_a(0x09).emit(0xC6, 0x09)  # add a,$09 -> 0x12 with H
    daa_pc = asm.here()
    asm.emit(0x27)  # daa -> 0x18 (0x12 if DAA ignored H)
    asm.ld_mem_a(DAA_RESULT)
    asm.jr(main)
    return asm.bytes(), adc_pc, daa_pc


def rom() -> tuple[bytes, int, int]:
    code, adc_pc, daa_pc = program()
    return build_rom(code, title="DIFFTEST"), adc_pc, daa_pc


def fault_frame(data: bytes) -> int:
    """The harness frame in which the fault section runs, found from emurust alone: the
    section runs right after the VBlank that starts it, i.e. after frame k's end (VBlank
    start) and before frame k's comparison point (PyBoy's frame end, ten lines later), so
    the byte it writes is visible at the end of frame k + 1 but not of frame k."""
    gb = emurust.GameBoy(data, boot_rom=lockstep.sync_boot_rom())
    for frame in range(200):
        gb.tick(1, render=False)
        if gb.memory[ADC_FLAGS] != 0:
            return frame - 1
    raise AssertionError("the fault section never ran")


def test_generated_rom_runs_in_step() -> None:
    data, _, _ = rom()
    frames = 60
    result = lockstep.run_lockstep(data, frames=frames, seed=1)
    assert result.divergence is None, result.summary()
    assert result.frames_compared == frames
    assert result.inputs_applied > 0
    # The program halts every frame and PyBoy keeps PC on the HALT: the one expected,
    # named difference, reported as applied.
    assert "pyboy-halt-pc" in result.allowlisted
    # What the program computed is really there (the comparison is not vacuous).
    gb = emurust.GameBoy(data, boot_rom=lockstep.sync_boot_rom())
    gb.tick(frames, render=False)
    assert gb.memory[COUNTER] > 30


@pytest.mark.parametrize(
    ("fault", "address"), [("adc_half_carry", ADC_FLAGS), ("daa_ignore_h", DAA_RESULT)]
)
def test_injected_fault_is_caught_at_the_right_frame(fault: str, address: int) -> None:
    data, adc_pc, daa_pc = rom()
    pc = adc_pc if fault == "adc_half_carry" else daa_pc
    expected = fault_frame(data)
    assert expected > 0
    result = lockstep.run_lockstep(data, frames=expected + 10, fault=fault, inputs={})
    divergence = result.divergence
    assert divergence is not None, result.summary()
    assert divergence.frame == expected, divergence.summary()
    assert result.frames_compared == expected  # every frame before it matched
    wram = [d for d in divergence.diffs if d["region"] == "wram"]
    assert [d["addr"] for d in wram] == [address], divergence.summary()
    assert wram[0]["emurust"] != wram[0]["pyboy"]
    assert any(f" {pc:04X}: " in line for line in divergence.trace), divergence.summary()
    faulty = next(line for line in divergence.trace if f" {pc:04X}: " in line)
    assert ("adc a,$00" if fault == "adc_half_carry" else "daa") in faulty
    report = divergence.to_dict()
    assert report["frame"] == expected
    assert report["registers"]["emurust"]["pc"] == divergence.pc


def test_no_fault_same_rom_does_not_diverge_at_that_frame() -> None:
    """The control for the test above: without the fault the same run is clean."""
    data, _, _ = rom()
    expected = fault_frame(data)
    result = lockstep.run_lockstep(data, frames=expected + 10, inputs={})
    assert result.divergence is None, result.summary()


def test_tobu_tobu_girl_in_step(shared_roms: Path) -> None:
    path = shared_roms / "homebrew" / "tobutobugirl" / "tobu.gb"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    # No input: the intro and title screen, compared every frame. PyBoy services each
    # interrupt 4 T-cycles late (allowlisted: pyboy-late-interrupt-4-cycles, from frame
    # 51). At frame 293 the game polls LY for line 145 and PyBoy reads 153 in line 153,
    # where a DMG reads 0 (gbmicrotest line_153_ly_c/_d): PyBoy leaves the loop a frame
    # early. The terminal entry pyboy-line-153-ly-terminal proves it and stops the run.
    result = lockstep.run_lockstep(path, frames=300, inputs={})
    assert result.divergence is None, result.summary()
    assert result.stopped is not None
    frame, name, proof = result.stopped
    assert (frame, name) == (293, "pyboy-line-153-ly-terminal")
    assert "0x34D5" in proof
    assert "STAT mode was 1" in proof
    assert result.frames_compared == 293
    assert "pyboy-late-interrupt-4-cycles" in result.allowlisted
    assert "stopped at frame 293: PyBoy deviation pyboy-line-153-ly-terminal" in result.summary()
    # Without the terminal entry the same point is a divergence.
    others = [e for e in allowlist.DEFAULT_ALLOWLIST if e.name != "pyboy-line-153-ly-terminal"]
    result = lockstep.run_lockstep(path, frames=300, inputs={}, allowlist=others)
    divergence = result.divergence
    assert divergence is not None, result.summary()
    assert result.stopped is None
    assert divergence.frame == 293, divergence.summary()
    assert divergence.registers["pyboy"]["a"] == 153  # LY as PyBoy read it
    assert divergence.registers["emurust"]["a"] == 0  # LY as a DMG reads it
    assert any("ldh a,($ff44)" in line for line in divergence.trace)


def test_random_inputs_are_seeded() -> None:
    a = lockstep.random_inputs(7, 500)
    assert a == lockstep.random_inputs(7, 500)
    assert a != lockstep.random_inputs(8, 500)
    actions = [act for acts in a.values() for act in acts]
    assert {button for _, button in actions} <= set(emurust.BUTTONS)
    presses = sum(1 for action, _ in actions if action == "press")
    assert presses == sum(1 for action, _ in actions if action == "release") > 5


def test_disassembler() -> None:
    assert disasm.disassemble(bytes([0xCE, 0x00])) == "adc a,$00"
    assert disasm.disassemble(bytes([0x18, 0xFE]), pc=0x150) == "jr $0150"
    assert disasm.disassemble(bytes([0xCB, 0x7C])) == "bit 7,h"
    assert disasm.disassemble(bytes([0xEA, 0x00, 0xC1])) == "ld ($c100),a"
    assert disasm.disassemble(bytes([0x27])) == "daa"


def test_allowlist_entries_are_documented() -> None:
    names = [entry.name for entry in allowlist.DEFAULT_ALLOWLIST]
    assert len(names) == len(set(names))
    for entry in allowlist.DEFAULT_ALLOWLIST:
        assert entry.masks
        assert entry.evidence


def test_fault_injection_api(rom: bytes) -> None:
    gb = emurust.GameBoy(rom)
    assert not gb.reference_mode
    gb._inject_fault("adc_half_carry")
    assert gb._fault == "adc_half_carry"
    assert gb.reference_mode  # faults exist only on the reference path
    gb._inject_fault(None)
    assert gb._fault is None
    assert not gb.reference_mode
    with pytest.raises(emurust.InvalidArgumentError, match="daa_ignore_h"):
        gb._inject_fault("nope")


def test_state_edit_aids_follow_the_state_layout(rom: bytes) -> None:
    """The proofs' test-only aids edit a save state in place: they must find the PPU
    section (they silently found nothing when the section grew, and the proofs failed)."""
    gb = emurust.GameBoy(rom)
    gb.tick(3, render=False)
    now = gb.cycles
    ly = gb.memory[0xFF44]
    assert gb._test_shift_ppu(4, now)
    assert gb._test_shift_ppu(-4, now)
    assert gb.cycles == now
    assert gb.memory[0xFF44] == ly
    had = gb._test_set_wy_latch(True)
    assert had is not None
    assert gb._test_set_wy_latch(False) is True
    assert gb._test_set_wy_latch(had) is False
    assert gb.cycles == now


def test_trace_api(rom: bytes) -> None:
    gb = emurust.GameBoy(rom)
    gb.trace_enable(16)
    gb.tick(1, render=False)
    trace = gb.trace()
    assert len(trace) == 16
    cycles = [entry["cycles"] for entry in trace]
    assert cycles == sorted(cycles)
    assert all(len(entry["opcode"]) >= 1 for entry in trace if entry["kind"] == "instruction")
    gb.trace_disable()
    assert gb.trace() == []
    assert not gb.reference_mode
    with pytest.raises(emurust.InvalidArgumentError):
        gb.trace_enable(0)


def object_priority_rom() -> bytes:
    """A still scene for the BG-over-OBJ priority rule: BG colour 2 everywhere (tile 0,
    BG map all 0), object 0 (X=48: screen x 40-47, rows 40-47, tile 0: colour 2, flags
    0x80 = BG over OBJ) overlapping object 1 (X=52: x 44-51, tile 1: colour 1, flags 0).
    Object 0 has the smaller X, hence priority; where they overlap (x 44-47) a DMG shows
    the BG (object 0 wins, then loses to BG colour 2), PyBoy shows object 1."""
    asm = Program().di().ld_sp(0xFFFE)
    wait = asm.here()
    asm.ldh_a_mem(0x44).emit(0xFE, 144).jr(wait, condition="nz")  # VBlank: VRAM/OAM free
    asm.ld_hl(0x8000)
    for _ in range(8):  # tile 0: every pixel colour 2 (low plane 0x00, high plane 0xFF)
        asm.emit(0xAF, 0x22, 0x3E, 0xFF, 0x22)  # xor a; ld (hl+),a; ld a,$ff; ld (hl+),a
    for _ in range(8):  # tile 1: every pixel colour 1
        asm.emit(0x3E, 0xFF, 0x22, 0xAF, 0x22)
    asm.ld_hl(0xFE00)
    for byte in (56, 48, 0, 0x80, 56, 52, 1, 0x00):  # OAM entries 0 and 1
        asm.emit(0x3E, byte, 0x22)  # ld a,byte; ld (hl+),a
    asm.ld_a(0xE4).ldh_mem_a(0x47).ldh_mem_a(0x48).ldh_mem_a(0x49)  # identity palettes
    asm.ld_a(0x93).ldh_mem_a(0x40)  # LCD, BG and objects on, tile data at 0x8000
    asm.emit(0xAF).ldh_mem_a(0xFF)  # IE = 0: the HALT below never ends
    halt = asm.here()
    asm.emit(0x76, 0x00).jr(halt)
    return build_rom(asm.bytes(), title="OBJPRIO")


def test_object_priority_rule_masks_exactly_the_overlap() -> None:
    data = object_priority_rom()
    gb = emurust.GameBoy(data, boot_rom=lockstep.sync_boot_rom())
    gb.tick(3)
    # emurust draws the DMG rule: BG (shade 2) over the whole of object 0, object 1's
    # shade 1 only where object 0 does not cover it.
    assert list(gb.screen_shades[40, 40:52]) == [2] * 8 + [1] * 4
    assert list(gb.screen_shades[48, 40:52]) == [2] * 12  # below the objects

    without = tuple(
        e for e in allowlist.DEFAULT_ALLOWLIST if e.name != "pyboy-object-priority-bg-over-obj"
    )
    control = lockstep.run_lockstep(data, frames=5, inputs={}, allowlist=without)
    divergence = control.divergence
    assert divergence is not None, control.summary()
    # Exactly the overlap (rows 40-47, x 44-47) differs: emurust BG shade 2, PyBoy object 1.
    assert divergence.counts == {"screen": 32}, divergence.summary()
    assert {int(d["addr"]) for d in divergence.diffs} == {
        row * 160 + x for row in range(40, 48) for x in range(44, 48)
    }
    assert {(d["emurust"], d["pyboy"]) for d in divergence.diffs} == {(2, 1)}

    result = lockstep.run_lockstep(data, frames=5, inputs={})
    assert result.divergence is None, result.summary()
    assert "pyboy-object-priority-bg-over-obj" in result.allowlisted


def test_object_priority_pixel_models() -> None:
    vram = bytearray(0x2000)
    vram[0:16] = bytes([0x00, 0xFF] * 8)  # tile 0: colour 2
    vram[16:32] = bytes([0xFF, 0x00] * 8)  # tile 1: colour 1
    oam = bytearray(0xA0)
    oam[0:8] = bytes([56, 48, 0, 0x80, 56, 52, 1, 0x00])
    state = allowlist.LineState(bytes(vram), bytes(oam), 0x93, 0, 0, 0, 0, 0xE4, 0xE4, 0xE4)
    assert allowlist.hardware_pixel(state, 40, 45) == 2  # object 0 wins, the BG shows
    assert allowlist.pyboy_pixel(state, 40, 45) == 1  # object 1 shows through
    assert allowlist.hardware_pixel(state, 40, 50) == allowlist.pyboy_pixel(state, 40, 50) == 1
    # BG colour 0 under the overlap: object 0 shows in both models.
    vram[0x1800] = 2  # BG map entry of x 0-7, row 0-7 -> blank tile 2
    state0 = allowlist.LineState(bytes(vram), bytes(oam), 0x93, 0, 0, 0, 0, 0xE4, 0xE4, 0xE4)
    assert allowlist.hardware_pixel(state0, 4, 4) == 0
    oam[0:4] = bytes([20, 8, 0, 0x80])  # object 0 over that BG colour 0
    state1 = allowlist.LineState(bytes(vram), bytes(oam), 0x93, 0, 0, 0, 0, 0xE4, 0xE4, 0xE4)
    assert allowlist.hardware_pixel(state1, 4, 4) == allowlist.pyboy_pixel(state1, 4, 4) == 2


def test_joypad_irq_rule_on_libbet(shared_roms: Path) -> None:
    path = shared_roms / "homebrew" / "libbet" / "libbet.gb"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    # Seed 0 presses DOWN at frame 0 while Libbet has neither P1 row selected: PyBoy
    # raises IF bit 4 anyway, a DMG does not (no P1 line falls).
    without = tuple(
        e for e in allowlist.DEFAULT_ALLOWLIST if e.name != "pyboy-joypad-irq-unselected-row"
    )
    control = lockstep.run_lockstep(path, frames=20, seed=0, allowlist=without)
    divergence = control.divergence
    assert divergence is not None, control.summary()
    assert divergence.frame == 1
    assert [(d["region"], d["addr"]) for d in divergence.diffs] == [("io", 0xFF0F)]
    assert int(divergence.diffs[0]["pyboy"]) ^ int(divergence.diffs[0]["emurust"]) == 0x10
    result = lockstep.run_lockstep(path, frames=20, seed=0)
    assert result.divergence is None, result.summary()
    assert "pyboy-joypad-irq-unselected-row" in result.allowlisted


def test_activity_rom_object_priority_frame() -> None:
    """The generated activity ROM first draws overlapping objects with the BG-over-OBJ bit
    over BG colour 1-3 at frame 1478 (seed 0): without the rule the run stops there, with
    it the run goes on."""
    from emurust.verify.programs import activity_rom

    data = activity_rom()
    without = tuple(
        e for e in allowlist.DEFAULT_ALLOWLIST if e.name != "pyboy-object-priority-bg-over-obj"
    )
    control = lockstep.run_lockstep(data, frames=1500, seed=0, allowlist=without)
    assert control.divergence is not None, control.summary()
    assert control.divergence.frame == 1478
    assert set(control.divergence.counts) == {"screen"}
    result = lockstep.run_lockstep(data, frames=1500, seed=0)
    assert result.divergence is None, result.summary()
    assert result.allowlist_first_frame["pyboy-object-priority-bg-over-obj"] == 1478


def test_serial_transfer_rule_on_cpu_instrs(shared_roms: Path) -> None:
    path = shared_roms / "blargg" / "cpu_instrs" / "individual" / "01-special.gb"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    # The test prints through the serial port (SC = 0x81); at frame 5's comparison point
    # emurust's transfer is still running (SC bit 7 set), PyBoy's is over.
    result = lockstep.run_lockstep(path, frames=10, inputs={})
    assert result.divergence is None, result.summary()
    assert result.allowlist_first_frame["pyboy-serial-transfer-instant"] == 5
    others = [e for e in allowlist.DEFAULT_ALLOWLIST if e.name != "pyboy-serial-transfer-instant"]
    result = lockstep.run_lockstep(path, frames=10, inputs={}, allowlist=others)
    assert result.divergence is not None
    assert result.divergence.frame == 5
    assert {"region": "io", "addr": 0xFF02, "emurust": 0x81, "pyboy": 0x01} in (
        result.divergence.diffs
    )


def _rom(shared_roms: Path, *parts: str) -> Path:
    path = shared_roms.joinpath(*parts)
    if not path.is_file():
        pytest.skip(f"{path} not found")
    return path


def _without(name: str) -> list[allowlist.AllowlistEntry]:
    return [e for e in allowlist.DEFAULT_ALLOWLIST if e.name != name]


def _capturing(
    name: str, seen: list[tuple[allowlist.Point, list[allowlist.Diff]]]
) -> list[allowlist.AllowlistEntry]:
    """The default allowlist with entry ``name``'s proof recording what it was shown."""
    entries = []
    for e in allowlist.DEFAULT_ALLOWLIST:
        if e.name == name:
            assert e.prove is not None
            e = allowlist.AllowlistEntry(
                e.name, e.masks, e.evidence, e.rule, _Recorder(e.prove, seen)
            )
        entries.append(e)
    return entries


class _Recorder:
    def __init__(
        self,
        prove: Callable[[allowlist.Point, list[allowlist.Diff]], str | None],
        seen: list[tuple[allowlist.Point, list[allowlist.Diff]]],
    ) -> None:
        self.prove, self.seen = prove, seen

    def __call__(self, point: allowlist.Point, diffs: list[allowlist.Diff]) -> str | None:
        self.seen.append((point, list(diffs)))
        return self.prove(point, diffs)


LY153 = "pyboy-line-153-ly-terminal"
LCD_ON = "pyboy-lcd-enable-4-cycles-terminal"
WINDOW = "pyboy-window-ly-ge-wy-terminal"


def test_line_153_proof_blargg_wait_loop(shared_roms: Path) -> None:
    path = _rom(shared_roms, "blargg", "cpu_instrs", "individual", "01-special.gb")
    # 0xC365 ldh a,($ff44); 0xC367 cp $90; 0xC369 jr nz: PyBoy's frame ends in line 153
    # right after the cp, with the 153 it read in A; emurust read 0 (a DMG's LY there).
    seen: list[tuple[allowlist.Point, list[allowlist.Diff]]] = []
    result = lockstep.run_lockstep(path, frames=150, allowlist=_capturing(LY153, seen))
    assert result.divergence is None, result.summary()
    assert result.stopped is not None
    frame, name, proof = result.stopped
    assert (frame, name) == (139, LY153)
    assert "0xC365" in proof
    assert "PC 0xC369" in proof
    assert "A still 0" in proof
    assert result.frames_compared == 139
    # Strict: an unrelated difference next to the same registers is not proven.
    point, diffs = seen[-1]
    extra: allowlist.Diff = {"region": "wram", "addr": 0xC000, "emurust": 1, "pyboy": 2}
    assert line153.ly153_proof(point, diffs) is not None
    assert line153.ly153_proof(point, [*diffs, extra]) is None
    other_b: allowlist.Diff = {"region": "registers", "addr": "b", "emurust": 1, "pyboy": 2}
    point.pyboy_registers = {**point.pyboy_registers, "b": (point.emurust_registers["b"] + 1)}
    assert line153.ly153_proof(point, [*diffs, other_b]) is None
    # Without the entry the same point is a divergence.
    result = lockstep.run_lockstep(path, frames=150, allowlist=_without(LY153))
    divergence = result.divergence
    assert divergence is not None
    assert result.stopped is None
    assert divergence.frame == 139, divergence.summary()
    assert divergence.registers["pyboy"]["a"] == 153
    assert divergence.registers["emurust"]["a"] == 0


@pytest.mark.parametrize(("seed", "pyboy_a"), [(0, 0), (2, 153)])
def test_line_153_proof_pandoras_blocks(shared_roms: Path, seed: int, pyboy_a: int) -> None:
    path = _rom(shared_roms, "homebrew", "pandoras-blocks", "PandorasBlocks.gbc")
    # 0x6B9D waits for LY = 0. emurust leaves the loop early in line 153 (a DMG reads LY 0
    # there); PyBoy reads 153 and is still at the read at its frame end: with A = 153
    # (seed 2: its frame ends inside line 153) or with the 0 it read when LY wrapped
    # (seed 0), in the very state emurust had right after its read.
    result = lockstep.run_lockstep(path, frames=10, seed=seed)
    assert result.divergence is None, result.summary()
    assert result.stopped is not None
    frame, name, proof = result.stopped
    assert (frame, name) == (5, LY153)
    assert "0x6B9D" in proof
    assert f"A = {pyboy_a} " in proof
    result = lockstep.run_lockstep(path, frames=10, seed=seed, allowlist=_without(LY153))
    divergence = result.divergence
    assert divergence is not None
    assert result.stopped is None
    assert divergence.frame == 5, divergence.summary()
    assert divergence.registers["pyboy"]["pc"] == 0x6B9F
    assert divergence.registers["pyboy"]["a"] == pyboy_a


@pytest.mark.parametrize(
    ("parts", "seed", "frame", "read", "entry"),
    [
        # 2048's VRAM copy (0x172F: ldh a,($ff41); and $02; jr nz) reads STAT at a line
        # start: emurust mode 2 (wait), PyBoy still mode 0 (copy one more byte). 2048 also
        # turns its window on (WY = 0) after LY passed WY: PyBoy times mode 3 with the
        # window on the rest of the frame, a DMG does not (the late-line re-run alone does
        # not reach PyBoy's state).
        (("homebrew", "2048", "2048.gb"), 0, 1, "90188", WINDOW),
        # Pandora's Blocks (seed 1) polls STAT at 0x3845 for mode 0 on a plain line:
        # PyBoy sees mode 3 once more and runs 32 T-cycles behind.
        (("homebrew", "pandoras-blocks", "PandorasBlocks.gbc"), 1, 5, "370604", LCD_ON),
    ],
)
def test_lcd_enable_late_line_proof(
    shared_roms: Path, parts: tuple[str, ...], seed: int, frame: int, read: str, entry: str
) -> None:
    path = _rom(shared_roms, *parts)
    seen: list[tuple[allowlist.Point, list[allowlist.Diff]]] = []
    result = lockstep.run_lockstep(
        path, frames=frame + 3, seed=seed, allowlist=_capturing(entry, seen)
    )
    assert result.divergence is None, result.summary()
    assert result.stopped is not None
    stop, name, proof = result.stopped
    assert (stop, name) == (frame, entry)
    assert f"at cycle {read}" in proof
    assert ("LY >= WY" in proof) == (entry == WINDOW)
    point, diffs = seen[-1]
    if entry == WINDOW:
        # The late-line proof alone did not explain it (it was tried first).
        assert proofs.lcd_enable_late_proof(point, diffs) is None
    # Strict: a memory difference the replay does not reproduce is not proven.
    wrong: allowlist.Diff = {"region": "vram", "addr": 0x8000, "emurust": 0, "pyboy": 1}
    real = point.pyboy_diffs
    assert real is not None
    point.pyboy_diffs = lambda gb: [*real(gb), wrong]
    assert proofs.window_late_proof(point, diffs) is None
    assert proofs.lcd_enable_late_proof(point, diffs) is None
    # Without the entry the same point is a divergence.
    result = lockstep.run_lockstep(path, frames=frame + 3, seed=seed, allowlist=_without(entry))
    divergence = result.divergence
    assert divergence is not None
    assert result.stopped is None
    assert divergence.frame == frame, divergence.summary()


def test_late_interrupt_rule_with_the_lcd_off(shared_roms: Path) -> None:
    path = _rom(shared_roms, "homebrew", "libbet", "libbet.gb")
    # From frame 276 libbet runs with the LCD off, 4 T-cycles later in PyBoy (an earlier
    # interrupt, pyboy-late-interrupt-4-cycles). With the LCD off emurust's frame ends by
    # time, up to an instruction past PyBoy's clock: the lagged machine must still be found
    # (it was not, and frame 276 was reported as a divergence).
    result = lockstep.run_lockstep(path, frames=300)
    assert result.divergence is None, result.summary()
    assert result.allowlist_counts["pyboy-late-interrupt-4-cycles"] >= 72


def test_lcd_enable_late_line_proof_after_a_late_interrupt(shared_roms: Path) -> None:
    path = _rom(shared_roms, "homebrew", "libbet", "libbet.gb")
    # Seed 5, frame 242: both wake from HALT at VBlank; PyBoy's line 144 starts 4 T-cycles
    # late and it services the interrupt 4 T-cycles late on top, so at the LCD switch-off
    # that ends PyBoy's frame it runs 8 T-cycles behind emurust: the late-line re-run,
    # 4 T-cycles before PyBoy's clock, has PyBoy's state.
    result = lockstep.run_lockstep(path, frames=245, seed=5)
    assert result.divergence is None, result.summary()
    assert result.stopped is not None
    frame, name, proof = result.stopped
    assert (frame, name) == (242, LCD_ON)
    assert "4 T-cycles before PyBoy's clock" in proof
    # The same on the reference path (an injected fault libbet never triggers), where a
    # halted CPU steps a few T-cycles at a time: the delayed line start outlives the step.
    faulted = lockstep.run_lockstep(path, frames=245, seed=5, fault="adc_half_carry")
    assert faulted.stopped is not None, faulted.summary()
    assert faulted.stopped[:2] == (242, LCD_ON)
    result = lockstep.run_lockstep(path, frames=245, seed=5, allowlist=_without(LCD_ON))
    divergence = result.divergence
    assert divergence is not None
    assert divergence.frame == 242, divergence.summary()
    assert {d["region"] for d in divergence.diffs} == {"registers", "clock"}


def test_resync_goes_on_past_a_failure() -> None:
    """With resync, the injected fault's divergence is recorded as a failure, PyBoy's state
    is loaded into emurust and the comparison goes on to the end of the run."""
    data, _, _ = rom()
    expected = fault_frame(data)
    frames = expected + 10
    result = lockstep.run_lockstep(
        data, frames=frames, fault="adc_half_carry", inputs={}, resync=True
    )
    assert result.frames_run == frames
    assert result.failures, result.summary()
    assert result.divergence is result.failures[0]
    assert result.failures[0].frame == expected
    assert result.resyncs[0].kind == "failure"
    assert result.resyncs[0].frame == expected
    # Every frame is either compared clean or ends in a resync.
    assert result.frames_compared + len(result.resyncs) == frames
    assert result.to_dict()["failures"] == len(result.failures)


def test_resync_past_proven_pyboy_deviations(shared_roms: Path) -> None:
    """2048 enables the LCD at frame 1, where PyBoy's lines start 4 T-cycles late (and it
    turns its window on after LY passed WY, which PyBoy times as a window): a plain run
    stops there; a resynchronizing one classifies it and keeps comparing."""
    path = shared_roms / "homebrew" / "2048" / "2048.gb"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    plain = lockstep.run_lockstep(path, frames=120, seed=0)
    assert plain.stopped is not None
    result = lockstep.run_lockstep(path, frames=120, seed=0, resync=True)
    assert_every_divergence_proven(result)
    proven = [r for r in result.resyncs if r.kind == "pyboy-deviation"]
    assert proven, result.summary()
    assert proven[0].name == WINDOW
    assert result.frames_compared > plain.frames_compared + 100


def assert_every_divergence_proven(result: lockstep.LockstepResult) -> None:
    """A resynchronizing run passes only if every divergence in it was proven to be PyBoy's
    (no unexplained failure); frames compared alone say nothing about that."""
    assert not result.failures, result.summary()
    assert result.divergence is None, result.summary()
    assert all(r.kind == "pyboy-deviation" for r in result.resyncs), result.summary()


def test_resync_check_fails_on_an_unexplained_failure() -> None:
    """The check above on a resynchronizing run with one planted failure (the injected ADC
    fault): the run goes on to the end and compares almost every frame, and the check fails."""
    data, _, _ = rom()
    frames = fault_frame(data) + 10
    result = lockstep.run_lockstep(
        data, frames=frames, fault="adc_half_carry", inputs={}, resync=True
    )
    assert result.frames_compared == frames - 1
    with pytest.raises(AssertionError, match="diverged at frame"):
        assert_every_divergence_proven(result)


VBLANK = "pyboy-vblank-ly-late-terminal"
P1_SELECT = "pyboy-joypad-irq-p1-select"


def test_vblank_ly_late_proof_pandoras_blocks(shared_roms: Path) -> None:
    """Pandora's Blocks (seed 0, resynchronizing) waits at 0x3899 for LY = 144 at frame 47:
    PyBoy's LY changes to 144 4 T-cycles later than its other lines (on top of the late
    lines after an LCD enable), so it leaves the loop one turn (28 T-cycles) later. The
    late-line re-run alone does not reach PyBoy's clock; with the VBlank line starts 4
    T-cycles later still it has PyBoy's state exactly."""
    path = _rom(shared_roms, "homebrew", "pandoras-blocks", "PandorasBlocks.gbc")
    seen: list[tuple[allowlist.Point, list[allowlist.Diff]]] = []
    result = lockstep.run_lockstep(
        path, frames=48, seed=0, resync=True, max_failures=50, allowlist=_capturing(VBLANK, seen)
    )
    at47 = [r for r in result.resyncs if r.frame == 47]
    assert [(r.kind, r.name) for r in at47] == [("pyboy-deviation", VBLANK)], result.summary()
    assert "lines 144-153 4 T-cycles later still" in at47[0].detail
    point, diffs = next((p, d) for p, d in seen if p.frame == 47)
    assert {d["region"] for d in diffs} == {"registers", "clock"}
    # The late-line proof alone (tried first) does not explain it.
    assert proofs.lcd_enable_late_proof(point, diffs) is None
    assert proofs.vblank_late_proof(point, diffs) is not None
    # Strict: a memory difference the re-run does not reproduce is not proven.
    wrong: allowlist.Diff = {"region": "wram", "addr": 0xC000, "emurust": 0, "pyboy": 1}
    real = point.pyboy_diffs
    assert real is not None
    point.pyboy_diffs = lambda gb: [*real(gb), wrong]
    assert proofs.vblank_late_proof(point, diffs) is None
    # Without the entry the same frame is a failure.
    # (pyboy-reads-8-cycles-late-terminal, tried after it, also explains this frame: PyBoy's
    # reads 8 T-cycles late with the same late VBlank lines on top.)
    others = [e for e in _without(VBLANK) if e.name != READ_LAG]
    result = lockstep.run_lockstep(
        path, frames=48, seed=0, resync=True, max_failures=50, allowlist=others
    )
    at47 = [r for r in result.resyncs if r.frame == 47]
    assert [(r.kind, r.name) for r in at47] == [("failure", "unexplained")], result.summary()


VBLANK_EARLY = "pyboy-lcd-enable-vblank-early-terminal"


def test_first_vblank_early_proof_libbet(
    shared_roms: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """libbet (seed 0, resynchronizing) switches the LCD on in frame 450 and halts until
    VBlank: PyBoy starts line 144 of that first frame 4 T-cycles early, so its VBlank
    handler and the rest of the frame run 4 T-cycles ahead of emurust (only the clock
    differs at the frame end). emurust re-run with that line start 4 T-cycles early has
    PyBoy's state exactly; without the move it does not."""
    path = _rom(shared_roms, "homebrew", "libbet", "libbet.gb")
    seen: list[tuple[allowlist.Point, list[allowlist.Diff]]] = []
    result = lockstep.run_lockstep(
        path, frames=451, resync=True, max_failures=50, allowlist=_capturing(VBLANK_EARLY, seen)
    )
    at450 = [r for r in result.resyncs if r.frame == 450]
    assert [(r.kind, r.name) for r in at450] == [("pyboy-deviation", VBLANK_EARLY)], (
        result.summary()
    )
    assert "line 144 of the first frame after its LCD enable" in at450[0].detail
    point, diffs = next((p, d) for p, d in seen if p.frame == 450)
    assert {d["region"] for d in diffs} == {"clock"}
    # The late-line proofs (tried first) do not explain it.
    assert proofs.lcd_enable_late_proof(point, diffs) is None
    assert proofs.vblank_late_proof(point, diffs) is None
    assert proofs.first_vblank_early_proof(point, diffs) is not None
    # The move is what reaches PyBoy's state: the same re-run without it does not.
    with monkeypatch.context() as m:
        m.setattr(replays, "FIRST_VBLANK_EARLY", 0)
        assert proofs.first_vblank_early_proof(point, diffs) is None
    # Strict: a memory difference the re-run does not reproduce is not proven.
    wrong: allowlist.Diff = {"region": "wram", "addr": 0xC000, "emurust": 0, "pyboy": 1}
    real = point.pyboy_diffs
    assert real is not None
    point.pyboy_diffs = lambda gb: [*real(gb), wrong]
    assert proofs.first_vblank_early_proof(point, diffs) is None
    # Without the entry the same frame is a failure.
    result = lockstep.run_lockstep(
        path, frames=451, resync=True, max_failures=50, allowlist=_without(VBLANK_EARLY)
    )
    at450 = [r for r in result.resyncs if r.frame == 450]
    assert [(r.kind, r.name) for r in at450] == [("failure", "unexplained")], result.summary()
    # It does not take a frame whose code ran differently before line 144: 2048's frame 1
    # (its window, pyboy-window-ly-ge-wy-terminal) ends in PyBoy's state when line 144 is
    # moved, but emurust as it ran is not PyBoy's machine 4 T-cycles late there.
    game = _rom(shared_roms, "homebrew", "2048", "2048.gb")
    result = lockstep.run_lockstep(game, frames=3, allowlist=_without(WINDOW))
    assert result.stopped is None
    assert result.divergence is not None
    assert result.divergence.frame == 1, result.divergence.summary()


EI_HALT = "pyboy-ei-halt-returns-to-halt-terminal"


def test_ei_halt_proof_tobu(shared_roms: Path) -> None:
    """Tobu Tobu Girl waits for VBlank with 'ei; halt' at 0x34C3 (no interrupt pending).
    In frame 965 (seed 0, resynchronizing) PyBoy's VBlank handler returns to the HALT,
    which sleeps to the frame end, while emurust returns past it and the game runs on.
    emurust re-run with that dispatch's return address set to the HALT has PyBoy's
    state."""
    path = _rom(shared_roms, "homebrew", "tobutobugirl", "tobu.gb")
    seen: list[tuple[allowlist.Point, list[allowlist.Diff]]] = []
    result = lockstep.run_lockstep(
        path, frames=966, resync=True, max_failures=50, allowlist=_capturing(EI_HALT, seen)
    )
    at965 = [r for r in result.resyncs if r.frame == 965]
    assert [(r.kind, r.name) for r in at965] == [("pyboy-deviation", EI_HALT)], result.summary()
    assert "1 interrupt dispatch(es)" in at965[0].detail
    point, diffs = next((p, d) for p, d in seen if p.frame == 965)
    assert point.pyboy_registers["pc"] == 0x34C4
    assert point.pyboy_opcode == 0x76
    assert proofs.ei_halt_proof(point, diffs) is not None
    # Strict: a memory difference the re-run does not reproduce is not proven.
    wrong: allowlist.Diff = {"region": "hram", "addr": 0xFF90, "emurust": 0, "pyboy": 1}
    real = point.pyboy_diffs
    assert real is not None
    point.pyboy_diffs = lambda gb: [*real(gb), wrong]
    assert proofs.ei_halt_proof(point, diffs) is None
    # Without the entry the same frame is a failure.
    result = lockstep.run_lockstep(
        path, frames=966, resync=True, max_failures=50, allowlist=_without(EI_HALT)
    )
    at965 = [r for r in result.resyncs if r.frame == 965]
    assert [(r.kind, r.name) for r in at965] == [("failure", "unexplained")], result.summary()


@pytest.mark.parametrize(("wait", "rewritten"), [(b"\xfb\x76", True), (b"\xfb\x00\x76", False)])
def test_ei_halt_replay_rewrites_only_a_halt_right_after_ei(wait: bytes, rewritten: bool) -> None:
    """A loop waiting for VBlank with 'ei; halt' (IE = VBlank, nothing pending at the
    HALT): every VBlank dispatch of the re-run returns to the HALT. With a NOP between EI
    and HALT nothing is rewritten and the re-run proves nothing."""
    # ld a,1; ldh (IE),a; xor a; ldh (IF),a; loop: <wait>; nop; jr loop
    program = b"\x3e\x01\xe0\xff\xaf\xe0\x0f" + wait + b"\x00"
    program += bytes([0x18, (-(len(wait) + 3)) & 0xFF])
    gb = emurust.GameBoy(build_rom(program, vectors={0x40: b"\xd9"}))
    replay = replays.ei_halt_replay(gb, gb.cycles + 3 * 70224)
    assert (replay is not None) == rewritten
    if replay is not None:
        assert replay[1] >= 2
        # Each VBlank returned to the HALT: it halted again with PC past it.
        assert replay[0].registers["pc"] == 0x0150 + 7 + 2


def _p1_point(trace: list[dict[str, object]], *, carried: bool = False) -> allowlist.Point:
    blank = np.zeros((144, 160), np.uint8)
    regs = dict.fromkeys(allowlist.REGISTERS, 0)
    return allowlist.Point(
        frame=1,
        cycles=100,
        boot_rom_mapped=False,
        after_lcd_enable=False,
        pyboy_screen=blank,
        emurust_screen=blank,
        bgp=0xE4,
        pyboy_opcode=0,
        pyboy_registers=regs,
        emurust_registers=regs,
        frame_trace=lambda: trace,  # type: ignore[arg-type, return-value]
        p1_select_irq_carried=carried,
    )


def _step(opcode: bytes, if_: int, **regs: int) -> dict[str, object]:
    entry: dict[str, object] = {"kind": "instruction", "pc": 0x200, "opcode": list(opcode)}
    entry.update(dict.fromkeys(("a", "f", "b", "c", "d", "e", "h", "l"), 0))
    entry.update({"sp": 0xFFFE, "ime": 0, "ie": 0, "if": if_, "cycles": 0, "repeat": 1})
    entry.update(regs)
    return entry


def test_p1_select_irq_rule_is_strict() -> None:
    rule = next(e.rule for e in allowlist.DEFAULT_ALLOWLIST if e.name == P1_SELECT)
    flag: allowlist.Diff = {"region": "io", "addr": 0xFF0F, "emurust": 0x11, "pyboy": 0x01}
    nop = _step(b"\x00\x00\x00", 0x01)
    # IF bit 4 rose in emurust at ldh ($00),a: masked.
    write = _step(b"\xe0\x00\x00", 0x01, a=0x20)
    assert rule(_p1_point([nop, write, _step(b"\x00\x00\x00", 0x11)]), [flag]) == [flag]
    # ... and at ld ($ff00+c),a only with C = 0.
    ldc = _step(b"\xe2\x00\x00", 0x01, c=0)
    assert rule(_p1_point([ldc, _step(b"\x00\x00\x00", 0x11)]), [flag]) == [flag]
    ldc1 = _step(b"\xe2\x00\x00", 0x01, c=1)
    assert rule(_p1_point([ldc1, _step(b"\x00\x00\x00", 0x11)]), [flag]) == []
    # Raised by something else (a write to IF itself): not masked.
    to_if = _step(b"\xe0\x0f\x00", 0x01, a=0x11)
    assert rule(_p1_point([to_if, _step(b"\x00\x00\x00", 0x11)]), [flag]) == []
    # Set before the traced frame: only when carried over from an earlier masked point.
    held = [_step(b"\x00\x00\x00", 0x11), _step(b"\x00\x00\x00", 0x11)]
    assert rule(_p1_point(held), [flag]) == []
    assert rule(_p1_point(held, carried=True), [flag]) == [flag]
    # Another IF bit differing too, or PyBoy with the bit set and emurust not: not masked.
    two: allowlist.Diff = {"region": "io", "addr": 0xFF0F, "emurust": 0x11, "pyboy": 0x00}
    assert rule(_p1_point([nop, write, _step(b"\x00\x00\x00", 0x11)]), [two]) == []
    rev: allowlist.Diff = {"region": "io", "addr": 0xFF0F, "emurust": 0x01, "pyboy": 0x11}
    assert rule(_p1_point([nop, write, _step(b"\x00\x00\x00", 0x01)]), [rev]) == []


def test_p1_select_irq_rule_on_2048(shared_roms: Path) -> None:
    """2048 (seed 0) holds DOWN from frame 0; at frame 7 its joypad read selects the
    direction row after deselecting both, which pulls the DOWN line low: a DMG requests
    the joypad interrupt, PyBoy (which requests it only on a button event) does not."""
    path = _rom(shared_roms, "homebrew", "2048", "2048.gb")
    without = lockstep.run_lockstep(
        path, frames=8, seed=0, resync=True, allowlist=_without(P1_SELECT)
    )
    divergence = without.divergence
    assert divergence is not None, without.summary()
    assert divergence.frame == 7, without.summary()
    iflag = [d for d in divergence.diffs if d["region"] == "io" and d["addr"] == 0xFF0F]
    assert len(iflag) == 1
    assert int(iflag[0]["emurust"]) ^ int(iflag[0]["pyboy"]) == 0x10
    assert int(iflag[0]["emurust"]) & 0x10
    result = lockstep.run_lockstep(path, frames=8, seed=0, resync=True)
    assert P1_SELECT in result.allowlisted
    assert result.allowlist_first_frame[P1_SELECT] == 7
    # What remains at frame 7 (if anything) is not the flag.
    for failure in result.failures:
        assert not [d for d in failure.diffs if d["region"] == "io"], failure.summary()


@pytest.fixture(scope="module")
def pandora_161(
    shared_roms: Path,
) -> tuple[lockstep.LockstepResult, list[tuple[allowlist.Point, list[allowlist.Diff]]]]:
    """Pandora's Blocks, seed 0, resynchronizing, 161 frames under the default allowlist
    (its line-153 proof recording what it was shown): one run (about 90 s) for the two
    tests that read it. Each test reads the points it needs and changes none it shares."""
    path = _rom(shared_roms, "homebrew", "pandoras-blocks", "PandorasBlocks.gbc")
    seen: list[tuple[allowlist.Point, list[allowlist.Diff]]] = []
    result = lockstep.run_lockstep(
        path, frames=161, seed=0, resync=True, max_failures=50, allowlist=_capturing(LY153, seen)
    )
    return result, seen


def test_line_153_still_polling_proof_ignores_dead_stack(
    pandora_161: tuple[lockstep.LockstepResult, list[tuple[allowlist.Point, list[allowlist.Diff]]]],
) -> None:
    """From frame 159 Pandora's Blocks (seed 0, resynchronizing) waits at 0x1369 for
    LY = 0 every frame with the STAT interrupt enabled: emurust leaves the loop in line
    153, PyBoy is still in it, and the interrupt taken at another turn of the loop left
    other bytes just below SP. The proof ignores those (up to 32 below SP) and nothing
    else."""
    result, seen = pandora_161
    at160 = [r for r in result.resyncs if r.frame == 160]
    assert [(r.kind, r.name) for r in at160] == [("pyboy-deviation", LY153)], result.summary()
    assert "up to 32 bytes below SP aside" in at160[0].detail
    point, diffs = next((p, d) for p, d in seen if p.frame == 160)
    sp = point.pyboy_registers["sp"]
    stack = [d for d in diffs if d["region"] == "wram"]
    assert stack, diffs
    assert all(sp - 32 <= int(d["addr"]) < sp for d in stack)
    assert line153.ly153_proof(point, diffs) is not None
    # Strict: a WRAM difference above SP (live stack) or far below it is not proven.
    real = point.pyboy_diffs
    assert real is not None
    try:
        for addr in (sp, sp - 33):
            wrong: allowlist.Diff = {"region": "wram", "addr": addr, "emurust": 0, "pyboy": 1}
            point.pyboy_diffs = lambda gb, wrong=wrong: [*real(gb), wrong]
            assert line153.ly153_proof(point, diffs) is None
    finally:
        point.pyboy_diffs = real  # the point is the module fixture's


READ_LAG = "pyboy-reads-8-cycles-late-terminal"


def test_reads_8_cycles_late_proof_2048(shared_roms: Path) -> None:
    """2048 (seed 0, resynchronizing) loads PyBoy's state at frame 5 and copies to VRAM in
    frame 7 with a loop that polls STAT through ldh a,($ff41), then seeds its random
    numbers from ldh a,($ff04). PyBoy reads I/O registers 8 T-cycles before a DMG does in
    the instruction, so it leaves a poll one turn later and reads another DIV; the
    4-cycle late-line proofs do not reach its state, emurust with its PPU and timer 8
    T-cycles late does, exactly."""
    path = _rom(shared_roms, "homebrew", "2048", "2048.gb")
    seen: list[tuple[allowlist.Point, list[allowlist.Diff]]] = []

    def run(entries: list[allowlist.AllowlistEntry]) -> lockstep.LockstepResult:
        return lockstep.run_lockstep(
            path, frames=8, seed=0, resync=True, max_failures=50, allowlist=entries
        )

    result = run(_capturing(READ_LAG, seen))
    at7 = [r for r in result.resyncs if r.frame == 7]
    assert [(r.kind, r.name) for r in at7] == [("pyboy-deviation", READ_LAG)], result.summary()
    assert "8 T-cycles late" in at7[0].detail
    assert not result.failures
    point, diffs = next((p, d) for p, d in seen if p.frame == 7)
    assert {d["region"] for d in diffs} >= {"registers", "wram"}
    # The proofs tried before it do not explain it, nor does a lag of 4 T-cycles.
    assert proofs.lcd_enable_late_proof(point, diffs) is None
    assert proofs.vblank_late_proof(point, diffs) is None
    assert proofs.read_lag_proof(point, diffs, read_lag=4) is None
    assert proofs.read_lag_proof(point, diffs) is not None
    # Strict: a memory difference the re-run does not reproduce is not proven.
    wrong: allowlist.Diff = {"region": "wram", "addr": 0xC000, "emurust": 0, "pyboy": 1}
    real = point.pyboy_diffs
    assert real is not None
    point.pyboy_diffs = lambda gb: [*real(gb), wrong]
    assert proofs.read_lag_proof(point, diffs) is None
    # Without the entry the same frame is a failure.
    result = run(_without(READ_LAG))
    at7 = [r for r in result.resyncs if r.frame == 7]
    assert [(r.kind, r.name) for r in at7] == [("failure", "unexplained")], result.summary()


def test_reads_8_cycles_late_proof_with_late_vblank_lines(shared_roms: Path) -> None:
    """Pandora's Blocks (seed 0, resynchronizing) at frame 48: its wait loop at
    0x0011-0x0017 leaves one turn later in PyBoy. The read lag alone does not reach
    PyBoy's clock; with PyBoy's late VBlank lines (pyboy-vblank-ly-late-terminal) on top it
    has PyBoy's state exactly, TIMA included (the timer shift keeps TIMA's count)."""
    path = _rom(shared_roms, "homebrew", "pandoras-blocks", "PandorasBlocks.gbc")

    def run(entries: list[allowlist.AllowlistEntry]) -> lockstep.LockstepResult:
        return lockstep.run_lockstep(
            path, frames=49, seed=0, resync=True, max_failures=50, allowlist=entries
        )

    result = run(list(allowlist.DEFAULT_ALLOWLIST))
    at48 = [r for r in result.resyncs if r.frame == 48]
    assert [(r.kind, r.name) for r in at48] == [("pyboy-deviation", READ_LAG)], result.summary()
    assert "lines 144-153 4 T-cycles later still" in at48[0].detail
    result = run(_without(READ_LAG))
    at48 = [r for r in result.resyncs if r.frame == 48]
    assert [(r.kind, r.name) for r in at48] == [("failure", "unexplained")], result.summary()


READ_LAG_IRQ = "pyboy-reads-8-cycles-late-irq-4-terminal"


def test_reads_8_cycles_late_irq_4_proof_2048(shared_roms: Path) -> None:
    """2048 (seed 0, resynchronizing) at frame 365: PyBoy takes VBlank after ld l,c at
    0x05AD; emurust with its whole PPU 8 T-cycles late takes it one instruction later
    (after ld h,b), pushes another H to 0xDFEB, and the function at 0x05E7 then allocates
    that byte as a local: the 8-cycle re-run is off by that one byte. With the PPU's
    interrupts served 4 T-cycles late (as PyBoy services them) and its reads 8 late, the
    re-run has PyBoy's state exactly."""
    path = _rom(shared_roms, "homebrew", "2048", "2048.gb")
    seen: list[tuple[allowlist.Point, list[allowlist.Diff]]] = []

    def run(entries: list[allowlist.AllowlistEntry]) -> lockstep.LockstepResult:
        return lockstep.run_lockstep(
            path, frames=366, seed=0, resync=True, max_failures=50, allowlist=entries
        )

    result = run(_capturing(READ_LAG_IRQ, seen))
    at365 = [r for r in result.resyncs if r.frame == 365]
    assert [(r.kind, r.name) for r in at365] == [("pyboy-deviation", READ_LAG_IRQ)], (
        result.summary()
    )
    assert "1 dispatch(es) so moved" in at365[0].detail
    assert not result.failures, result.summary()
    point, diffs = next((p, d) for p, d in seen if p.frame == 365)
    assert {d["region"] for d in diffs} == {"registers", "wram"}
    # The 8-cycle re-run alone leaves the stack byte; moving the dispatch fixes exactly it.
    assert proofs.read_lag_proof(point, diffs) is None
    assert proofs.read_lag_irq_proof(point, diffs, read_lag=4) is None
    assert point.emurust_start is not None
    assert point.pyboy_diffs is not None
    replay = replays.read_lag_replay(point.emurust_start(), point.pyboy_cycles, 8)
    assert replay is not None
    left = point.pyboy_diffs(replay[0])
    assert [(d["region"], d["addr"], d["emurust"], d["pyboy"]) for d in left] == [
        ("wram", 0xDFEB, 5, 1)
    ]
    assert proofs.read_lag_irq_proof(point, diffs) is not None
    # Strict: a memory difference the re-run does not reproduce is not proven.
    wrong: allowlist.Diff = {"region": "wram", "addr": 0xC000, "emurust": 0, "pyboy": 1}
    real = point.pyboy_diffs
    point.pyboy_diffs = lambda gb: [*real(gb), wrong]
    assert proofs.read_lag_irq_proof(point, diffs) is None
    # Without the entry the same frame is a failure.
    result = run(_without(READ_LAG_IRQ))
    at365 = [r for r in result.resyncs if r.frame == 365]
    assert [(r.kind, r.name) for r in at365] == [("failure", "unexplained")], result.summary()


LINE153_REPLAYED = "pyboy-line-153-reads-replayed-terminal"


def test_line_153_reads_replayed_proof_ucity_frame_5(shared_roms: Path) -> None:
    """µCity (CGB, double speed) from PyBoy's state at its frame 200, seed 0,
    resynchronizing: at frame 5 its STAT-polled VRAM copy (ldh a,($41); bit 1,a; jr nz)
    ends the frame one poll turn behind in PyBoy, with the VBlank interrupt taken in
    another instruction of the copy (issue 38's frame-5 divergence). PyBoy reads STAT 8
    CPU T-cycles early, which in double speed are 4 dots: emurust re-run with its PPU 4
    dots and its timer 8 T-cycles late has PyBoy's state but for A, the last STAT read,
    made where PyBoy is still in line 153 (its LY 153, mode 1: 0x81; emurust 0x84). The
    PPU moved 8 dots (the DMG's figure taken as dots) does not reach PyBoy's state; PyBoy's
    answer to that read does. Before 2026-11-29 this frame was an unexplained failure."""
    path = _rom(shared_roms, "homebrew", "ucity", "ucity.gbc")
    seen: list[tuple[allowlist.Point, list[allowlist.Diff]]] = []

    def run(entries: list[allowlist.AllowlistEntry]) -> lockstep.LockstepResult:
        return lockstep.run_lockstep(
            path,
            frames=6,
            seed=0,
            resync=True,
            max_failures=5,
            allowlist=entries,
            cgb_from_frame=200,
        )

    result = run(_capturing(LINE153_REPLAYED, seen))
    at5 = [r for r in result.resyncs if r.frame == 5]
    assert [(r.kind, r.name) for r in at5] == [("pyboy-deviation", LINE153_REPLAYED)], (
        result.summary()
    )
    assert "its PPU 4 dots and its timer's system counter 8 T-cycles late" in at5[0].detail
    assert "17 STAT/LY read(s) made where PyBoy is still in line 153" in at5[0].detail
    assert not result.failures, result.summary()
    point, diffs = next((p, d) for p, d in seen if p.frame == 5)
    assert {d["region"] for d in diffs} >= {"registers", "vram", "wram"}
    assert {"region": "vram", "addr": 0x8438, "emurust": 0xE7, "pyboy": 0xFF} in diffs
    start, real = point.emurust_start, point.pyboy_diffs
    assert start is not None
    assert real is not None
    assert replays.double_speed(start())
    # The read lag alone (4 dots in double speed) leaves exactly A: the line-153 read.
    assert proofs.read_lag_proof(point, diffs) is None
    replay = replays.read_lag_replay(start(), point.pyboy_cycles, 8)
    assert replay is not None
    left = [d for d in real(replay[0]) if d["region"] != "io"]
    assert [(d["region"], d["addr"], d["emurust"], d["pyboy"]) for d in left] == [
        ("registers", "a", 0x84, 0x81)
    ]
    # The DMG's 8 T-cycles taken as 8 dots do not reach PyBoy's state.
    gb = start()
    assert gb._test_shift_ppu(8, gb.cycles)
    assert gb._test_shift_timer(8)
    while gb.cycles < point.pyboy_cycles:
        gb._step_to_cycle(gb.cycles + 1)
    assert gb.cycles != point.pyboy_cycles or any(
        d["region"] != "io" and d["addr"] != "a" for d in real(gb)
    )
    # Every STAT read after emurust's LY wrapped to 0 in line 153 (0x85: mode 1, LY = LYC
    # = 0; PyBoy 0x81, its LY 153) and the last one (0x84, emurust's mode 0 before line 0's
    # mode 2) is answered as PyBoy's.
    answers = replays.PyBoyLine153()
    answered = replays.read_lag_replay(start(), point.pyboy_cycles, 8, 0, answers)
    assert answered is not None
    assert answers.rewritten == 17
    assert not [d for d in real(answered[0]) if d["region"] != "io"]
    assert proofs.line153_replay_proof(point, diffs) is not None
    # Strict: a memory difference the re-run does not reproduce is not proven.
    wrong: allowlist.Diff = {"region": "wram", "addr": 0xC000, "emurust": 0, "pyboy": 1}
    point.pyboy_diffs = lambda gb: [*real(gb), wrong]
    assert proofs.line153_replay_proof(point, diffs) is None
    # Without the entry the same frame is a failure.
    result = run(_without(LINE153_REPLAYED))
    at5 = [r for r in result.resyncs if r.frame == 5]
    assert [(r.kind, r.name) for r in at5] == [("failure", "unexplained")], result.summary()


@pytest.mark.parametrize(
    "entry",
    [
        pytest.param(READ_LAG, id="read-lag"),
        pytest.param(READ_LAG_IRQ, id="read-lag-irq"),
        pytest.param(LINE153_REPLAYED, id="line-153-reads-replayed"),
    ],
)
def test_replay_proof_does_not_hide_a_cpu_fault(entry: str) -> None:
    """A broken CPU (ADC without the carry-in's half carry) is not explained away by a
    replay proof (moving the PPU, the timer and the PPU's interrupt dispatches, answering
    line-153 STAT reads as PyBoy does): the proof is tried at the fault's frame and proves
    nothing."""
    data, _, _ = rom()
    expected = fault_frame(data)
    seen: list[tuple[allowlist.Point, list[allowlist.Diff]]] = []
    result = lockstep.run_lockstep(
        data,
        frames=expected + 2,
        fault="adc_half_carry",
        inputs={},
        resync=True,
        max_failures=5,
        allowlist=_capturing(entry, seen),
    )
    assert [d.frame for d in result.failures][:1] == [expected], result.summary()
    assert any(p.frame == expected for p, _ in seen)  # tried there ...
    assert all(r.name != entry for r in result.resyncs)  # ... and proved nothing


def test_ppu_dots_follow_the_speed(shared_roms: Path) -> None:
    """The read-lag replays move the PPU by CPU T-cycles converted to dots: the same on a
    DMG and a CGB in single speed, half in double speed (µCity switches to double speed
    at its start)."""
    data, _, _ = rom()
    dmg = emurust.GameBoy(data)
    assert not replays.double_speed(dmg)
    assert replays.ppu_dots(dmg, 8) == 8
    path = _rom(shared_roms, "homebrew", "ucity", "ucity.gbc")
    gb = emurust.GameBoy(path, model="cgb")
    assert not replays.double_speed(gb)
    assert replays.ppu_dots(gb, 8) == 8
    gb.tick(60, render=False)
    assert replays.double_speed(gb)
    assert replays.ppu_dots(gb, 8) == 4


def test_ppu_shift_aid_in_double_speed(shared_roms: Path) -> None:
    """``_test_shift_ppu`` takes a CPU clock and moves the PPU by dots: on a CGB in double
    speed, where the PPU's dot clock falls behind the CPU's by a frame every frame, a shift
    60 frames after power-on is accepted (it was refused before 2026-11-29, which left the
    late-line and read-lag proofs unable to run there) and 40 dots move the next LY change
    80 CPU T-cycles later (to the instruction boundary after it)."""
    path = _rom(shared_roms, "homebrew", "ucity", "ucity.gbc")
    gb = emurust.GameBoy(path, model="cgb")
    gb.tick(60, render=False)
    assert replays.double_speed(gb)
    start = gb.save_state()

    def next_line(gb: emurust.GameBoy) -> int:
        ly = gb.memory[0xFF44]
        while gb.memory[0xFF44] == ly:
            gb._step_to_cycle(gb.cycles + 1)
        return gb.cycles

    plain = next_line(gb)
    gb.load_state(start)
    assert gb._test_shift_ppu(40, gb.cycles)
    assert 80 <= next_line(gb) - plain <= 80 + 24


def test_timer_shift_aid_follows_the_state_layout(rom: bytes) -> None:
    """``_test_shift_timer`` finds the timer section of a save state: a shift of 256
    T-cycles makes DIV read one step less; a shift outside 0..=256 is refused."""
    gb = emurust.GameBoy(rom)
    gb.tick(3, render=False)
    now, div = gb.cycles, gb.memory[0xFF04]
    assert not gb._test_shift_timer(-4)
    assert not gb._test_shift_timer(257)
    assert gb.memory[0xFF04] == div
    assert gb._test_shift_timer(256)
    assert gb.memory[0xFF04] == (div - 1) & 0xFF
    assert gb.cycles == now


READ_LAG_LCD_OFF = "pyboy-reads-8-cycles-late-lcd-off-terminal"


def test_reads_8_cycles_late_lcd_off_proof_tobu(shared_roms: Path) -> None:
    """Tobu Tobu Girl (seed 0, resynchronizing) at frame 633 polls LY for 0x91 and then
    switches the LCD off: PyBoy reads LY 8 T-cycles early and leaves the poll one turn
    later. The LCD-on read-lag proof refuses a frame that switches the LCD off; emurust
    re-run with its PPU (while on) and timer 8 T-cycles late and PyBoy's late VBlank lines
    has PyBoy's state exactly."""
    path = _rom(shared_roms, "homebrew", "tobutobugirl", "tobu.gb")
    seen: list[tuple[allowlist.Point, list[allowlist.Diff]]] = []

    def run(entries: list[allowlist.AllowlistEntry]) -> lockstep.LockstepResult:
        return lockstep.run_lockstep(
            path, frames=634, seed=0, resync=True, max_failures=50, allowlist=entries
        )

    result = run(_capturing(READ_LAG_LCD_OFF, seen))
    at633 = [r for r in result.resyncs if r.frame == 633]
    assert [(r.kind, r.name) for r in at633] == [("pyboy-deviation", READ_LAG_LCD_OFF)], (
        result.summary()
    )
    assert "8 T-cycles late" in at633[0].detail
    assert "LCD off" in at633[0].detail
    assert not result.failures
    point, diffs = next((p, d) for p, d in seen if p.frame == 633)
    assert proofs.read_lag_proof(point, diffs) is None
    assert proofs.read_lag_lcd_off_proof(point, diffs, read_lag=4) is None
    # Strict: a memory difference the re-run does not reproduce is not proven.
    wrong: allowlist.Diff = {"region": "wram", "addr": 0xC000, "emurust": 0, "pyboy": 1}
    real = point.pyboy_diffs
    assert real is not None
    point.pyboy_diffs = lambda gb: [*real(gb), wrong]
    assert proofs.read_lag_lcd_off_proof(point, diffs) is None
    result = run(_without(READ_LAG_LCD_OFF))
    at633 = [r for r in result.resyncs if r.frame == 633]
    assert [(r.kind, r.name) for r in at633] == [("failure", "unexplained")], result.summary()


def test_line_153_proof_with_dead_stack_pandora(
    shared_roms: Path,
    pandora_161: tuple[lockstep.LockstepResult, list[tuple[allowlist.Point, list[allowlist.Diff]]]],
) -> None:
    """Pandora's Blocks (seed 0, resynchronizing) at frames 157 and 159 polls LY for 0:
    emurust reads 0 in line 153 and goes on, PyBoy reads 153 for the rest of the line and
    stands right after the read with A = 0 at its frame end (pyboy-line-153-ly-terminal
    case (b)); only stack bytes below SP differ besides (an interrupt entry at another
    point). Without the dead-stack allowance both frames are failures."""
    path = _rom(shared_roms, "homebrew", "pandoras-blocks", "PandorasBlocks.gbc")

    def run(entries: list[allowlist.AllowlistEntry]) -> lockstep.LockstepResult:
        return lockstep.run_lockstep(
            path, frames=160, seed=0, resync=True, max_failures=50, allowlist=entries
        )

    # The default allowlist's run (161 frames: frame 160 is a proven deviation too, which
    # test_line_153_still_polling_proof_ignores_dead_stack checks).
    result, _ = pandora_161
    late = [(r.frame, r.kind, r.name) for r in result.resyncs if r.frame in (157, 159)]
    assert late == [
        (157, "pyboy-deviation", LY153),
        (159, "pyboy-deviation", LY153),
    ], result.summary()
    assert all("dead stack" in r.detail for r in result.resyncs if r.frame in (157, 159))
    assert not result.failures
    plain = [
        replace(e, prove=line153.ly153_proof) if e.name == LY153 else e
        for e in allowlist.DEFAULT_ALLOWLIST
    ]
    result = run(plain)
    kinds = [(r.frame, r.kind) for r in result.resyncs if r.frame in (157, 159)]
    assert kinds == [(157, "failure"), (159, "failure")], result.summary()


LCD_FRAME = "pyboy-lcd-enable-frame"
BOOT_LOGO = "boot-logo-scx-wobble"


def _screen_point(
    pyboy: np.ndarray,
    ours: np.ndarray,
    *,
    after_lcd_enable: bool = False,
    bgp: int = 0x1B,
    boot_rom_mapped: bool = False,
    line_state: Callable[[int], allowlist.LineState | None] | None = None,
) -> allowlist.Point:
    return allowlist.Point(
        frame=0,
        cycles=0,
        boot_rom_mapped=boot_rom_mapped,
        after_lcd_enable=after_lcd_enable,
        pyboy_screen=pyboy,
        emurust_screen=ours,
        bgp=bgp,
        pyboy_opcode=0,
        pyboy_registers={},
        emurust_registers={},
        line_state=line_state,
    )


def _entry_rule(name: str) -> Callable[[allowlist.Point, list[allowlist.Diff]], list[Any]]:
    return next(e.rule for e in allowlist.DEFAULT_ALLOWLIST if e.name == name)


def test_lcd_enable_frame_rule_checks_both_screens() -> None:
    """The first frame after an LCD enable is masked only when PyBoy shows it flat in BGP's
    colour 0 and emurust shows it blank (all shade 0), as the entry says: a picture in
    emurust's frame, a non-flat PyBoy frame or a frame not after an enable stays a
    difference."""
    rule = _entry_rule(LCD_FRAME)
    theirs = np.full((144, 160), 3, np.uint8)  # BGP 0x1B: colour 0 is shade 3
    blank = np.zeros((144, 160), np.uint8)
    diffs = lockstep._screen_diffs(blank, theirs)
    assert len(rule(_screen_point(theirs, blank, after_lcd_enable=True), diffs)) == 23040
    assert rule(_screen_point(theirs, blank), diffs) == []  # not after an LCD enable
    picture = blank.copy()
    picture[70, 80] = 1
    assert rule(_screen_point(theirs, picture, after_lcd_enable=True), diffs) == []
    uneven = theirs.copy()
    uneven[0, 0] = 0
    assert rule(_screen_point(uneven, blank, after_lcd_enable=True), diffs) == []
    assert rule(_screen_point(theirs, blank, after_lcd_enable=True, bgp=0x1A), diffs) == []


def test_lcd_enable_frame_on_pandoras_blocks(shared_roms: Path) -> None:
    """Pandora's Blocks (seed 0, resynchronizing) switches the LCD on in frame 45: at frame
    46 emurust shows the blank first frame (shade 0) and PyBoy fills it with BGP's colour 0
    (shade 3). The entry masks it; without the entry it is a failure."""
    path = _rom(shared_roms, "homebrew", "pandoras-blocks", "PandorasBlocks.gbc")

    def run(entries: list[allowlist.AllowlistEntry]) -> lockstep.LockstepResult:
        return lockstep.run_lockstep(
            path, frames=47, seed=0, resync=True, max_failures=50, allowlist=entries
        )

    result = run(list(allowlist.DEFAULT_ALLOWLIST))
    assert_every_divergence_proven(result)
    assert result.allowlist_first_frame.get(LCD_FRAME) == 46, result.summary()
    control = run(_without(LCD_FRAME))
    assert [f.frame for f in control.failures] == [46], control.summary()
    screen = [d for d in control.failures[0].diffs if d["region"] == "screen"]
    assert control.failures[0].counts["screen"] == 23040
    assert {(d["emurust"], d["pyboy"]) for d in screen} == {(0, 3)}


def _logo_state(scx: int) -> allowlist.LineState:
    """A background row 0 of alternating 4-pixel light/dark runs, scrolled by ``scx``."""
    vram = bytearray(0x2000)
    vram[16:32] = bytes([0xF0, 0xF0] * 8)  # tile 1: 4 pixels colour 3, 4 colour 0
    vram[0x1800:0x1820] = bytes([1] * 32)  # BG map row 0: tile 1
    return allowlist.LineState(bytes(vram), bytes(0xA0), 0x91, 0, scx, 0, 0, 0xE4, 0, 0)


def test_boot_logo_rule_recomputes_both_rows() -> None:
    """A row is masked only when emurust's row is the background drawn with the SCX at its
    mode 3 and PyBoy's the same background drawn with the next row's SCX."""
    rule = _entry_rule(BOOT_LOGO)
    states = {0: _logo_state(0), 1: _logo_state(2)}
    ours = np.zeros((144, 160), np.uint8)
    theirs = np.zeros((144, 160), np.uint8)
    ours[0] = [3 if x % 8 < 4 else 0 for x in range(160)]  # SCX 0
    theirs[0] = [3 if (x + 2) % 8 < 4 else 0 for x in range(160)]  # SCX 2
    diffs = lockstep._screen_diffs(ours, theirs)
    assert diffs

    def point(**kw: Any) -> allowlist.Point:
        return _screen_point(theirs, ours, line_state=states.get, **kw)

    assert rule(point(boot_rom_mapped=True), diffs) == diffs
    assert rule(point(boot_rom_mapped=False), diffs) == []
    wrong = ours.copy()
    wrong[0, 5] = 3  # one pixel that neither SCX draws (both draw colour 0 there)
    assert (
        rule(_screen_point(theirs, wrong, boot_rom_mapped=True, line_state=states.get), diffs) == []
    )
    swapped = _screen_point(ours, theirs, boot_rom_mapped=True, line_state=states.get)
    assert rule(swapped, lockstep._screen_diffs(theirs, ours)) == []  # the other way round
    states[1] = _logo_state(0)  # no SCX change before the next row: nothing to explain
    assert rule(point(boot_rom_mapped=True), diffs) == []


def test_boot_logo_wobble_with_pyboys_boot_rom(shared_roms: Path) -> None:
    """2048 with PyBoy's boot ROM (no input): from frame 24 the logo rows differ where the
    boot ROM's SCX write lands between emurust's fetches and PyBoy's per-line sample. The
    entry masks those rows; without it the run diverges there, on the logo rows only."""
    path = _rom(shared_roms, "homebrew", "2048", "2048.gb")
    boot = pyboy_adapter.pyboy_boot_rom()
    result = lockstep.run_lockstep(path, frames=40, inputs={}, boot_rom=boot)
    assert result.divergence is None, result.summary()
    assert result.allowlist_first_frame.get(BOOT_LOGO) == 24, result.summary()
    control = lockstep.run_lockstep(
        path, frames=40, inputs={}, boot_rom=boot, allowlist=_without(BOOT_LOGO)
    )
    divergence = control.divergence
    assert divergence is not None, control.summary()
    assert divergence.frame == 24, control.summary()
    assert set(divergence.counts) == {"screen"}
    assert {int(d["addr"]) // 160 for d in divergence.diffs} <= set(range(64, 88))


def test_plant_is_checked() -> None:
    """``plant`` takes frame -> {address: byte}; anything else is refused before a run."""
    data, _, _ = rom()
    for bad in ({0: {0x10000: 1}}, {0: {0xC000: 256}}, {-1: {0xC000: 1}}):
        with pytest.raises(ValueError, match="bad plant"):
            lockstep.run_lockstep(data, frames=1, inputs={}, plant=bad)
