"""Level 2: interaction checks, each a small generated ROM driving one piece of hardware
through the CPU and the bus (joypad, timer, OAM DMA, MBC1/3/5 banking, serial, LCD)."""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable
from typing import Any

from emurust._core import FRAME_CYCLES
from emurust.tools.asm import ops as asm
from emurust.tools.asm.program import Program
from emurust.tools.asm.rom import VERIFY_TITLE, build_rom
from emurust.verify.machine import new_gameboy, run_until_done
from emurust.verify.result import Result, Status


def _result(
    name: str, module: str, detail: str, problems: list[str], t0: float, **kw: Any
) -> Result:
    status: Status = "fail" if problems else "pass"
    text = detail + (f": {len(problems)} problem(s); first: {problems[0]}" if problems else "")
    return Result(
        2,
        name,
        status,
        module,
        text,
        counterexample=problems[0] if problems else None,
        seconds=time.perf_counter() - t0,
        **kw,
    )


def _irq_rom(setup: bytes, vector: int, isr: bytes, *, ei: bool = True) -> bytes:
    """``setup`` then sleep in a ``halt`` loop; ``isr`` (ending in ``reti``) at ``vector``
    via a jump."""
    p = Program()
    p(asm.DI, asm.ld_sp(0xFFFE), setup, b"\xaf", asm.ldh_a_to(0x0F))
    if ei:
        p(asm.EI)
    p.label("loop")
    p(asm.HALT, asm.NOP)
    p.jr("loop")
    p.label("isr")
    p(isr)
    code = p.bytes()
    return build_rom(code, vectors={vector: asm.jp(p.labels["isr"])}, title=VERIFY_TITLE)


def check_joypad() -> Result:
    """A press of a selected button raises the joypad interrupt (IF bit 4, handler runs)
    and shows as 0 in P1; a press of an unselected button does neither."""
    t0 = time.perf_counter()
    problems: list[str] = []
    count_isr = (
        asm.PUSH_AF
        + asm.ld_a_mem(0xC000)
        + b"\x3c"
        + asm.ld_mem_a(0xC000)
        + asm.ldh_a_from(0x00)
        + asm.ld_mem_a(0xC001)
        + asm.POP_AF
        + asm.RETI
    )
    setup = asm.ld_a(0x10) + asm.ldh_a_to(0x00) + asm.ld_a(0x10) + asm.ldh_a_to(0xFF)
    gb = new_gameboy(_irq_rom(setup, 0x60, count_isr))
    gb.tick(2, render=False)
    if gb.memory[0xC000] != 0:
        problems.append(f"joypad interrupt without a press ({gb.memory[0xC000]} times)")
    gb.button_press("up")  # d-pad not selected (P1 bit 4 = 1)
    gb.tick(1, render=False)
    if gb.memory[0xC000] != 0:
        problems.append("pressing UP while only the buttons are selected raised the interrupt")
    if gb.memory[0xFF00] != 0xDF:
        problems.append(f"P1 with UP held, buttons selected: {gb.memory[0xFF00]:#04x}, want 0xdf")
    gb.button_release("up")
    gb.button_press("a")
    gb.tick(1, render=False)
    if gb.memory[0xC000] != 1:
        problems.append(f"A press: handler ran {gb.memory[0xC000]} times, want 1")
    if gb.memory[0xC001] != 0xDE or gb.memory[0xFF00] != 0xDE:
        problems.append(
            f"P1 with A held: handler read {gb.memory[0xC001]:#04x}, now "
            f"{gb.memory[0xFF00]:#04x}, want 0xde"
        )
    gb.button_release("a")
    # Interrupts off: the request stays in IF.
    gb2 = new_gameboy(_irq_rom(setup, 0x60, count_isr, ei=False))
    gb2.tick(2, render=False)
    before = gb2.memory[0xFF0F] & 0x10
    gb2.button_press("start")
    gb2.tick(1, render=False)
    if before or not gb2.memory[0xFF0F] & 0x10:
        problems.append(
            f"IF bit 4 before/after START press: {before >> 4}/{gb2.memory[0xFF0F] >> 4 & 1}"
        )
    if gb2.memory[0xFF00] != 0xD7:
        problems.append(f"P1 with START held: {gb2.memory[0xFF00]:#04x}, want 0xd7")
    return _result(
        "joypad.press_interrupt",
        "joypad",
        "P1=0x10 (buttons selected): UP changes nothing; A raises the joypad interrupt once "
        "and reads P1=0xDE; with IME=0 a START press sets IF bit 4 and P1=0xD7",
        problems,
        t0,
    )


def check_timer() -> Result:
    """TIMA overflow reloads from TMA and raises the timer interrupt at the rate TAC and
    TMA give (TAC=0x05: +1 every 16 T-cycles)."""
    t0 = time.perf_counter()
    problems: list[str] = []
    # Handler: read TIMA first, count (16-bit, C000), keep the first 32 TIMA values.
    isr_code = bytes.fromhex(
        "F5 E5 C5 F005 47"  # push af; push hl; push bc; ldh a,(tima); ld b,a
        "2100C0 34 2002 23 34"  # ld hl,0xc000; inc (hl); jr nz,+2; inc hl; inc (hl)
        "FA02C0 FE20 300A"  # ld a,(0xc002); cp 32; jr nc,+10
        "3C EA02C0 C60F 6F 26C0 70"  # inc a; ld (0xc002),a; add 15; ld l,a; ld h,0xc0; ld (hl),b
        "C1 E1 F1 D9"  # pop bc; pop hl; pop af; reti
    )
    setup = (
        asm.ld_a(0xE0)
        + asm.ldh_a_to(0x06)
        + asm.ldh_a_to(0x05)  # TMA = TIMA = 0xE0
        + asm.ld_a(0x04)
        + asm.ldh_a_to(0xFF)
        + asm.ld_a(0x05)
        + asm.ldh_a_to(0x07)
    )
    gb = new_gameboy(_irq_rom(setup, 0x50, isr_code))
    gb.tick(1, render=False)

    def count() -> int:
        return gb.memory[0xC000] | gb.memory[0xC001] << 8

    rates = []
    for tma, frames in ((0xE0, 3), (0x00, 6)):
        gb.memory[0xFF06] = tma
        gb.tick(1, render=False)  # let the new period settle
        c0, t_start = count(), gb.cycles
        gb.tick(frames, render=False)
        overflows, cycles = (count() - c0) & 0xFFFF, gb.cycles - t_start
        period = (0x100 - tma) * 16
        rates.append(f"TMA={tma:#04x}: {overflows} interrupts in {cycles} T-cycles")
        if abs(overflows - cycles / period) > 1.0:
            problems.append(
                f"TMA={tma:#04x}: {overflows} timer interrupts in {cycles} T-cycles, "
                f"want {cycles / period:.1f} (one per {period})"
            )
    seen = list(gb.memory[0xC010 : 0xC010 + min(32, gb.memory[0xC002])])
    if not seen:
        problems.append("no TIMA value recorded in the handler")
    elif any(not 0xE0 <= v <= 0xEB for v in seen):
        problems.append(
            f"TIMA early in the handler (TMA=0xE0) should be 0xE0..0xEB, saw {seen[:8]}"
        )
    return _result(
        "timer.overflow_reload",
        "timer",
        f"TAC=0x05 timer interrupt rate for TMA 0xE0 and 0x00 ({'; '.join(rates)}); TIMA "
        "just after the overflow was reloaded from TMA (0xE0..0xEB early in the handler, "
        f"seen {sorted(set(seen))})",
        problems,
        t0,
    )


def check_oam_dma(rng: random.Random) -> Result:
    """OAM DMA copies 160 bytes: started by the CPU from HRAM with a ROM source, and by a
    bus write with a work-RAM source."""
    t0 = time.perf_counter()
    problems: list[str] = []
    pattern = bytes(rng.getrandbits(8) for _ in range(160))
    routine = bytes([0x3E, 0x10, 0xE0, 0x46, 0x3E, 0x28, 0x3D, 0x20, 0xFD, 0xC9])
    code = bytearray(asm.DI + asm.ld_sp(0xFFFE))
    for i, b in enumerate(routine):  # copy the wait routine to HRAM (the CPU can run only there)
        code += asm.ld_a(b) + asm.ldh_a_to(0x80 + i)
    code += b"\xcd\x80\xff" + asm.finish()  # call 0xff80
    gb = new_gameboy(build_rom(bytes(code), data={0x1000: pattern}, title=VERIFY_TITLE))
    run_until_done(gb)
    got = gb.memory[0xFE00:0xFEA0]
    if got != pattern:
        bad = [i for i in range(160) if got[i] != pattern[i]]
        problems.append(
            f"DMA from ROM 0x1000: {len(bad)} of 160 bytes differ, first OAM "
            f"{0xFE00 + bad[0]:#06x}: "
            f"{got[bad[0]]:#04x} != {pattern[bad[0]]:#04x}"
        )
    second = bytes(rng.getrandbits(8) for _ in range(160))
    gb.memory[0xC200:0xC2A0] = second
    gb.memory[0xFF46] = 0xC2
    gb.tick(1, render=False)
    got = gb.memory[0xFE00:0xFEA0]
    if got != second:
        bad = [i for i in range(160) if got[i] != second[i]]
        problems.append(f"DMA from WRAM 0xC200: {len(bad)} of 160 bytes differ")
    if gb.memory[0xFF46] != 0xC2:
        problems.append(f"DMA register reads {gb.memory[0xFF46]:#04x} after writing 0xc2")
    return _result(
        "dma.oam_160_bytes",
        "bus",
        "CPU-started DMA (routine in HRAM) from ROM 0x1000, and a bus write to FF46 from "
        "WRAM 0xC200: OAM FE00-FE9F equals the 160 source bytes",
        problems,
        t0,
    )


# Bank-switching: the program reads a table of (address, value) writes from ROM 0x1000
# (terminated by an address with high byte 0xFF), performs each write and records the
# bank numbers visible at 0x3FF0 (low byte) and 0x7FF0/0x7FF1 in WRAM.
def _bank_program() -> bytes:
    p = Program()
    p(asm.DI, asm.ld_sp(0xFFFE), asm.ld_hl(0x1000), b"\x11\x00\xc0")  # ld de, 0xc000
    p.label("loop")
    p(b"\x2a\x4f\x2a\x47\xfe\xff")  # ld a,(hl+); ld c,a; ld a,(hl+); ld b,a; cp 0xff
    p.jr("done", "z")
    p(b"\x2a\x02")  # ld a,(hl+); ld (bc),a
    for addr in (0x3FF0, 0x7FF0, 0x7FF1):
        p(asm.ld_a_mem(addr), b"\x12\x13")  # ld (de),a; inc de
    p.jr("loop")
    p.label("done")
    p(asm.finish())
    return p.bytes()


def _mbc_model(kind: str, banks: int) -> Callable[[int, int], tuple[int, int]]:
    """Returns write(addr, value) -> (bank at 0000-3FFF, bank at 4000-7FFF), per Pan Docs."""
    state = {"bank1": 1, "bank2": 0, "mode": 0, "low": 1, "high": 0}

    def write(addr: int, value: int) -> tuple[int, int]:
        if kind == "mbc1":
            if 0x2000 <= addr < 0x4000:
                state["bank1"] = value & 0x1F or 1
            elif 0x4000 <= addr < 0x6000:
                state["bank2"] = value & 3
            elif 0x6000 <= addr < 0x8000:
                state["mode"] = value & 1
            low = (state["bank2"] << 5) % banks if state["mode"] else 0
            return low, ((state["bank2"] << 5) | state["bank1"]) % banks
        if kind == "mbc3":
            if 0x2000 <= addr < 0x4000:
                state["low"] = value & 0x7F or 1
            return 0, state["low"] % banks
        if 0x2000 <= addr < 0x3000:
            state["low"] = value
        elif 0x3000 <= addr < 0x4000:
            state["high"] = value & 1
        return 0, ((state["high"] << 8) | state["low"]) % banks

    return write


MBC = {
    # kind: (cartridge type, banks, RAM size code, RAM banks, register ranges)
    "mbc1": (0x03, 128, 0x00, 0, ((0x2000, 0x4000), (0x4000, 0x6000), (0x6000, 0x8000))),
    "mbc3": (0x13, 128, 0x03, 4, ((0x2000, 0x4000),)),
    "mbc5": (0x1B, 512, 0x04, 16, ((0x2000, 0x3000), (0x3000, 0x4000))),
}


def check_mbc(kind: str, rng: random.Random, writes: int = 60) -> Result:
    t0 = time.perf_counter()
    problems: list[str] = []
    cart_type, banks, ram_code, ram_banks, ranges = MBC[kind]
    program = _bank_program()
    table = bytearray()
    sequence = []
    for _ in range(writes):
        lo, hi = rng.choice(ranges)
        addr = rng.randrange(lo, hi)
        value = rng.choice((0x00, 0x01, 0x1F, 0x20, 0x7F, 0x80, 0xFF, rng.getrandbits(8)))
        sequence.append((addr, value))
        table += asm.u16(addr) + bytes([value])
    table += b"\x00\xff"
    data: dict[int, bytes] = {0x1000: bytes(table)}
    rom = bytearray(
        build_rom(
            program,
            banks=banks,
            cartridge_type=cart_type,
            ram_size_code=ram_code,
            data=data,
            bank_ids=True,
            title=f"VERIFY {kind.upper()}",
        )
    )
    if kind == "mbc1":  # mode 1 maps bank 0x20/0x40/0x60 at 0000: give them the program too
        for b in (0x20, 0x40, 0x60):
            assert b < banks
            rom[b * 0x4000 : b * 0x4000 + 0x3FF0] = rom[0:0x3FF0]
    gb = new_gameboy(bytes(rom))
    run_until_done(gb)
    model = _mbc_model(kind, banks)
    got = gb.memory[0xC000 : 0xC000 + 3 * writes]
    for k, (addr, value) in enumerate(sequence):
        low, high = model(addr, value)
        seen = (got[3 * k], got[3 * k + 1] | got[3 * k + 2] << 8)
        if seen != (low & 0xFF, high):
            problems.append(
                f"after write #{k} {value:#04x} -> {addr:#06x}: banks at 0000/4000 are "
                f"{seen[0]}/{seen[1]}, want {low & 0xFF}/{high}"
            )
            break
    # RAM banking through the bus (MBC1 gets its own small cartridge with 4 RAM banks).
    if ram_banks:
        ram_gb, nbanks, select = gb, ram_banks, 0x4000
    else:
        ram_gb = new_gameboy(
            build_rom(b"", banks=4, cartridge_type=0x03, ram_size_code=0x03, title=VERIFY_TITLE)
        )
        nbanks, select = 4, 0x4000
        ram_gb.memory[0x6000] = 1  # mode 1: BANK2 selects the RAM bank
    ram_gb.memory[0x0000] = 0x00
    if ram_gb.memory[0xA000] != 0xFF:
        problems.append(f"disabled cartridge RAM reads {ram_gb.memory[0xA000]:#04x}, want 0xff")
    ram_gb.memory[0x0000] = 0x0A
    for b in range(nbanks):
        ram_gb.memory[select] = b
        ram_gb.memory[0xA000] = 0x40 + b
        ram_gb.memory[0xBFFF] = 0x80 + b
    for b in range(nbanks):
        ram_gb.memory[select] = b
        got_ram = (ram_gb.memory[0xA000], ram_gb.memory[0xBFFF])
        if got_ram != (0x40 + b, 0x80 + b):
            problems.append(f"RAM bank {b}: A000/BFFF read {got_ram}, want {(0x40 + b, 0x80 + b)}")
            break
    return _result(
        f"cartridge.{kind}_banking",
        "cartridge",
        f"{kind.upper()} ({banks} ROM banks): {writes} random bank-register writes by the "
        f"CPU, banks visible at 0000-3FFF and 4000-7FFF after each checked against the "
        f"documented banking rules; {nbanks} RAM banks written and read back, disabled RAM "
        "reads 0xFF",
        problems,
        t0,
    )


def check_serial() -> Result:
    """A transfer with the internal clock takes 8 bits at 8192 Hz, clears SC bit 7,
    raises the serial interrupt (IF bit 3), shifts in 0xFF with nothing connected, and
    the byte sent appears in serial_output."""
    t0 = time.perf_counter()
    problems: list[str] = []
    p = Program()
    p(asm.DI, asm.ld_sp(0xFFFE), b"\xaf", asm.ldh_a_to(0x0F))
    p(asm.ld_a(0x55), asm.ldh_a_to(0x01), b"\x01\x00\x00", asm.ld_a(0x81), asm.ldh_a_to(0x02))
    p.label("wait")
    p(b"\x03", asm.ldh_a_from(0x02), b"\xcb\x7f")  # inc bc; ldh a,(sc); bit 7,a
    p.jr("wait", "nz")
    p(asm.ldh_a_from(0x0F), asm.ld_mem_a(0xC000), asm.ldh_a_from(0x01), asm.ld_mem_a(0xC001))
    p(b"\x79", asm.ld_mem_a(0xC002), b"\x78", asm.ld_mem_a(0xC003), asm.finish())
    gb = new_gameboy(build_rom(p.bytes(), title=VERIFY_TITLE))
    run_until_done(gb)
    iterations = gb.memory[0xC002] | gb.memory[0xC003] << 8
    # One wait iteration is 10 M-cycles (40 T); 8 bits take 8 * 512 T, the first bit
    # possibly up to 512 T sooner (the clock runs off the DIV counter).
    if not 7 * 512 // 40 - 1 <= iterations <= 8 * 512 // 40 + 2:
        problems.append(f"transfer took {iterations} wait iterations (40 T each), want 88..104")
    if not gb.memory[0xC000] & 0x08:
        problems.append(f"IF after the transfer is {gb.memory[0xC000]:#04x}: serial bit 3 not set")
    if gb.memory[0xC001] != 0xFF:
        problems.append(f"SB after the transfer is {gb.memory[0xC001]:#04x}, want 0xff")
    if gb.serial_output != b"\x55":
        problems.append(f"serial_output is {gb.serial_output!r}, want b'U'")
    return _result(
        "serial.internal_clock",
        "serial",
        f"SB=0x55, SC=0x81: transfer completed after {iterations} x 40 T-cycles, IF bit 3 set, "
        "SB=0xFF shifted in, 0x55 sent",
        problems,
        t0,
    )


def check_lcd_off_on() -> Result:
    """Switching the LCD off (in VBlank) resets LY to 0 and STAT mode to 0 and keeps them
    there; frames still advance every 70224 T-cycles; switching it on restarts at LY 0 and
    the next frame ends at VBlank (LY 144, IF bit 0) 144 lines later."""
    t0 = time.perf_counter()
    problems: list[str] = []
    gb = new_gameboy(build_rom(asm.DI + asm.HALT + asm.jr(-3), title=VERIFY_TITLE))
    gb.tick(2, render=False)
    if gb.memory[0xFF44] != 144:
        problems.append(f"at a frame end with the LCD on, LY = {gb.memory[0xFF44]}, want 144")
    gb.memory[0xFF40] = 0x11
    if (gb.memory[0xFF44], gb.memory[0xFF41] & 3) != (0, 0):
        problems.append(
            f"right after LCD off LY/mode = {gb.memory[0xFF44]}/{gb.memory[0xFF41] & 3}, want 0/0"
        )
    c0 = gb.cycles
    gb.tick(2, render=False)
    if gb.cycles - c0 != 2 * FRAME_CYCLES:
        problems.append(f"two frames with the LCD off took {gb.cycles - c0} T-cycles")
    if (gb.memory[0xFF44], gb.memory[0xFF41] & 3) != (0, 0):
        problems.append(
            f"LCD off, 2 frames later LY/mode = {gb.memory[0xFF44]}/{gb.memory[0xFF41] & 3}"
        )
    gb.memory[0xFF0F] = 0x00
    gb.memory[0xFF40] = 0x91
    mode_after_on = gb.memory[0xFF41] & 3
    if gb.memory[0xFF44] != 0:
        problems.append(f"right after LCD on LY = {gb.memory[0xFF44]}, want 0")
    c1 = gb.cycles
    gb.tick(1, render=False)
    to_vblank = gb.cycles - c1
    if gb.memory[0xFF44] != 144:
        problems.append(f"first frame after LCD on ends with LY {gb.memory[0xFF44]}, want 144")
    gb.tick(1, render=False)  # the request comes with VBlank, at or just after the frame end
    if not gb.memory[0xFF0F] & 1:
        problems.append("no VBlank request (IF bit 0) after the LCD was switched on")
    if abs(to_vblank - 144 * 456) > 8:
        problems.append(f"LCD on to VBlank took {to_vblank} T-cycles, want 144*456 = 65664 (+-8)")
    return _result(
        "ppu.lcd_off_on",
        "ppu",
        f"LCD off: LY=0, mode 0, 70224 T-cycle frames; LCD on: LY=0 (STAT mode right after "
        f"on: {mode_after_on}), VBlank (LY 144, IF bit 0) {to_vblank} T-cycles later",
        problems,
        t0,
    )


def interaction_checks(*, seed: int) -> list[tuple[str, Callable[[], Result]]]:
    rng = random.Random(seed)
    checks: list[tuple[str, Callable[[], Result]]] = [
        ("joypad.press_interrupt", check_joypad),
        ("timer.overflow_reload", check_timer),
        ("dma.oam_160_bytes", lambda: check_oam_dma(random.Random(rng.random()))),
        ("serial.internal_clock", check_serial),
        ("ppu.lcd_off_on", check_lcd_off_on),
    ]
    for kind in MBC:
        mbc_seed = rng.random()
        checks.append(
            (
                f"cartridge.{kind}_banking",
                functools.partial(check_mbc, kind, random.Random(mbc_seed)),
            )
        )
    return checks
