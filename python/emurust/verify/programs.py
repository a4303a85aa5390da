"""Generated test programs shared by the levels: the "activity" ROM that keeps every part of
the machine busy (CPU, interrupts, joypad, VRAM, OAM, scrolling) so whole-machine checks and
rollouts have something to compare (built with :class:`emurust.tools.asm.program.Program`)."""

from __future__ import annotations

from emurust.tools.asm import ops as asm
from emurust.tools.asm.program import Program
from emurust.tools.asm.rom import build_rom

# Work RAM used by the activity program.
BUTTONS = 0xC100  # buttons held (1 = pressed): high nibble d-pad, low nibble A/B/select/start
FRAMES = 0xC101  # frames handled
VBLANK_SEEN = 0xC102  # set by the VBlank handler
BCD = 0xC103  # a BCD counter (ADD + DAA), then ADC + DAA results and flags


def activity_rom() -> bytes:
    """A ROM that keeps the machine busy in a way that does not depend on cycle timing.

    Set-up: sets all three palettes and enables objects (the LCD stays on). Each frame the main
    loop sleeps (``halt``) until VBlank, then runs a 16-bit LFSR 16 steps (noise into C000-C0FF),
    does some BCD arithmetic (ADD/ADC + DAA), writes noise into tile data, the BG map and
    OAM, and scrolls (SCY only while a button is held). The joypad is read by the LY=72
    STAT interrupt, mid-frame, so an input applied at any frame boundary is seen at the
    same point by every emulator. Nothing
    reads DIV, LY or counts cycles, so a few cycles of PPU phase difference (for example
    after the LCD enable) do not change the program's state.
    """
    p = Program()
    p(asm.DI, asm.ld_sp(0xFFFE))
    # The LCD stays on (as the boot ROM leaves it): no LCD enable, no work while it is
    # off, so the frame grids of the two emulators stay aligned.
    p(asm.ld_a(0xE4), asm.ldh_a_to(0x47), asm.ldh_a_to(0x48))  # BGP, OBP0
    # OBP1 too: the boot ROM leaves it unset (random on hardware, 0xFF in PyBoy).
    p(asm.ld_a(0x1B), asm.ldh_a_to(0x49))
    p(asm.ld_a(0x48), asm.ldh_a_to(0x45))  # LYC = 72
    p(asm.ld_a(0x40), asm.ldh_a_to(0x41))  # STAT: LYC interrupt
    p(asm.ld_a(0x03), asm.ldh_a_to(0xFF))  # IE: VBlank + STAT
    p(b"\xaf", asm.ldh_a_to(0x0F), asm.ld_mem_a(VBLANK_SEEN), asm.ld_mem_a(BUTTONS))
    p(asm.ld_mem_a(FRAMES))
    p(asm.ld_a(0x93), asm.ldh_a_to(0x40))  # LCD on: BG + OBJ, tile data at 0x8000
    p(asm.ld_hl(0xACE1), asm.EI)
    p.label("main")
    p(asm.HALT, asm.NOP, asm.ld_a_mem(VBLANK_SEEN), b"\xa7")  # and a
    p.jr("main", "z")
    p(b"\xaf", asm.ld_mem_a(VBLANK_SEEN))
    p(b"\x0e\x10")  # ld c, 16
    p.label("lfsr")  # Galois LFSR on HL (taps 0xB400), noise into C000-C0FF
    p(b"\xcb\x3c\xcb\x1d")  # srl h; rr l
    p.jr("no_tap", "nc")
    p(b"\x7c\xee\xb4\x67")  # ld a, h; xor 0xb4; ld h, a
    p.label("no_tap")
    p(b"\x16\xc0\x5d", asm.ld_a_mem(BUTTONS), b"\xac\x12")  # ld d,0xc0; ld e,l; ...^h; ld (de),a
    p(b"\x0d")  # dec c
    p.jr("lfsr", "nz")
    # BCD arithmetic: DAA after ADD (with and without half carry) and after ADC.
    p(asm.ld_a_mem(BCD), b"\xc6\x19\x27", asm.ld_mem_a(BCD))  # add a,0x19; daa
    p(b"\x7d\x8c\x27", asm.ld_mem_a(BCD + 1))  # ld a,l; adc a,h; daa
    p(asm.PUSH_AF, b"\xc1\x79", asm.ld_mem_a(BCD + 2))  # push af; pop bc; ld a,c
    # Tile data byte 0x8000 | (hl & 0x0fff) = l ^ buttons.
    p(b"\x7c\xe6\x0f\xf6\x80\x57\x5d", asm.ld_a_mem(BUTTONS), b"\xad\x12")
    # BG map byte 0x9800 | ((h >> 4) & 3) << 8 | (l ^ h) = h.
    p(b"\x7c\xcb\x37\xe6\x03\xf6\x98\x57\x7d\xac\x5f\x7c\x12")
    # OAM byte 0xfe00 | (l & 0x7f) = h.
    p(b"\x7d\xe6\x7f\x5f\x16\xfe\x7c\x12")
    p(asm.ldh_a_from(0x43), b"\x3c", asm.ldh_a_to(0x43))  # SCX += 1
    p(asm.ld_a_mem(BUTTONS), b"\xa7")  # and a
    p.jr("no_scroll", "z")
    p(asm.ldh_a_from(0x42), b"\x3c", asm.ldh_a_to(0x42))  # SCY += 1 while a button is held
    p.label("no_scroll")
    p(asm.ld_a_mem(FRAMES), b"\x3c", asm.ld_mem_a(FRAMES))
    p.jr("main")
    p.label("vblank")
    p(asm.PUSH_AF, asm.ld_a(1), asm.ld_mem_a(VBLANK_SEEN), asm.POP_AF, asm.RETI)
    p.label("stat")  # joypad: d-pad into the high nibble, buttons into the low one
    p(asm.PUSH_AF, b"\xc5")  # push bc
    p(asm.ld_a(0x20), asm.ldh_a_to(0x00), asm.ldh_a_from(0x00), asm.ldh_a_from(0x00))
    p(b"\x2f\xe6\x0f\xcb\x37\x47")  # cpl; and 0x0f; swap a; ld b, a
    p(asm.ld_a(0x10), asm.ldh_a_to(0x00), asm.ldh_a_from(0x00), asm.ldh_a_from(0x00))
    p(b"\x2f\xe6\x0f\xb0")  # cpl; and 0x0f; or b
    p(asm.ld_mem_a(BUTTONS), asm.ld_a(0x30), asm.ldh_a_to(0x00))
    p(b"\xc1", asm.POP_AF, asm.RETI)  # pop bc
    code = p.bytes()
    vectors = {0x40: asm.jp(p.labels["vblank"]), 0x48: asm.jp(p.labels["stat"])}
    return build_rom(code, vectors=vectors, title="EMURUST ACTIVE")
