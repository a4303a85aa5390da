"""The Game Boy Color against PyBoy 2.8.1 (``cgb=True``) on a program of our own, and the
HBlank DMA's behaviour around HALT that the program found.

``tests/data/cgb_lockstep.asm`` (built with the project's assembler) switches to double
speed, then every frame, driven by the buttons, uses what the CGB adds: colour palettes
through BCPD/OCPD with auto-increment, VRAM bank 1's tiles and attributes, WRAM banks 1-7
(SVBK), general-purpose DMA, an HBlank DMA (at line 4, on Select), OAM DMA, the STAT (LYC)
and VBlank interrupts, 8x16 objects (Start) and scrolling (the d-pad). The lockstep
harness compares the screens (as colours), every VRAM and WRAM bank, OAM, HRAM, the I/O
registers and the CPU at every PyBoy frame end.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import emurust
from emurust.tools.asm import assemble
from emurust.verify import lockstep

PROGRAM = Path(__file__).parent / "data" / "cgb_lockstep.asm"
FRAMES = 1000
# PyBoy runs its own CGB boot ROM and the program's set-up; emurust starts from its state.
START = 120


@pytest.fixture(scope="module")
def program() -> bytes:
    return assemble(PROGRAM.read_text(), path=PROGRAM, fix=True).rom


def test_the_program_is_a_cgb_program(program: bytes) -> None:
    gb = emurust.GameBoy(program, model="auto")  # by its header (0x143 = 0x80)
    assert gb.model == "cgb"
    assert gb.cgb_mode
    gb.tick(10, render=False)
    assert gb.memory[0xFF4D] & 0x80, "the program runs in double speed"


@pytest.mark.usefixtures("pyboy_available", "hang_guard")
@pytest.mark.parametrize("seed", [0, 1])
def test_cgb_program_in_step_with_pyboy(program: bytes, seed: int) -> None:
    inputs = lockstep.random_inputs(seed, FRAMES)
    pressed = {button for events in inputs.values() for _, button in events}
    # The buttons that reach the program's CGB paths were pressed (HBlank DMA, 8x16
    # objects, moving objects, scrolling).
    assert {"select", "start", "a"} <= pressed
    assert pressed & {"up", "down", "left", "right"}
    result = lockstep.run_lockstep(
        program, frames=FRAMES, seed=seed, inputs=inputs, cgb_from_frame=START
    )
    assert result.divergence is None, result.summary()
    assert result.frames_run == FRAMES
    # Only the known PyBoy deviation of every halting program (its PC during HALT).
    assert set(result.allowlist_counts) <= {"pyboy-halt-pc"}, result.allowlist_counts


# Starts an HBlank DMA of 2 blocks ($C200 -> $8100) in VBlank, then halts with IE as given:
# VBlank only (halted through a whole frame's HBlanks) or STAT with the mode-0 source (it
# wakes in the HBlank of line 0). After waking it stores HDMA5 and the first byte of each
# destination block at $C000-$C002.
HALT_HDMA = """
SECTION "vblank", ROM0[$40]
    reti
SECTION "stat", ROM0[$48]
    reti
SECTION "entry", ROM0[$100]
    nop
    jp Start
SECTION "cgbflag", ROM0[$143]
    db $80
SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $FFFE
    ld hl, $C200
    ld a, $11
    ld c, 32
.fill:
    ld [hl+], a
    add a, $11
    dec c
    jr nz, .fill
.vblank:
    ldh a, [$44]
    cp 144
    jr nz, .vblank
    ld a, $C2
    ldh [$51], a
    xor a
    ldh [$52], a
    ld a, $81
    ldh [$53], a
    xor a
    ldh [$54], a
    ld a, {ie}
    ldh [$FF], a
    ld a, $08
    ldh [$41], a
    xor a
    ldh [$0F], a
    ld a, $81
    ldh [$55], a
    ei
    halt
    nop
    di
    ldh a, [$55]
    ld [$C000], a
    ld a, [$8100]
    ld [$C001], a
    ld a, [$8110]
    ld [$C002], a
.done:
    jr .done
"""


@pytest.mark.parametrize("reference", [False, True])
@pytest.mark.parametrize(
    ("ie", "expected"),
    [
        # Halted through every HBlank: no block went (HDMA5 bit 7 clear: still running, 2
        # blocks left).
        (0x01, [0x01, 0x00, 0x00]),
        # Woken by the HBlank of line 0: its block goes as the CPU wakes, the next waits for
        # line 1.
        (0x02, [0x00, 0x11, 0x00]),
    ],
    ids=["vblank-wake", "hblank-wake"],
)
def test_hblank_dma_is_inactive_while_halted(ie: int, expected: list[int], reference: bool) -> None:
    # gambatte's hardware findings (commit 35d2db5, "hdma halt/speed change re work"): HDMA
    # is inactive during HALT; it triggers on unhalt when the CPU wakes in mode 0. Found by
    # the lockstep program above, where emurust copied blocks while halted.
    rom = assemble(HALT_HDMA.format(ie=f"${ie:02X}"), fix=True).rom
    gb = emurust.GameBoy(rom, model="cgb")
    gb.reference_mode = reference
    gb.tick(3, render=False)
    assert list(gb.memory[0xC000:0xC003]) == expected
    # Awake from here on: the blocks left go at the next HBlanks.
    state = gb.save_state()
    gb2 = emurust.GameBoy(rom, model="cgb")
    gb2.load_state(state)
    assert list(gb2.memory[0xC000:0xC003]) == expected
