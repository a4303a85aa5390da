"""Level 1's memory-map invariants: unused and write-only I/O bits, echo RAM, the unusable
region FEA0-FEFF."""

from __future__ import annotations

import random
import time

from emurust.tools.asm import ops as asm
from emurust.tools.asm.rom import VERIFY_TITLE, build_rom
from emurust.verify.machine import new_gameboy, run_until_done
from emurust.verify.result import Result

# Bits that read back as 1 whatever is written (unused, or write-only), per Pan Docs'
# register descriptions for the DMG; addresses with no register read 0xFF.
IO_READ_ONES: dict[int, tuple[str, int, str]] = {
    0xFF00: ("P1", 0xC0, "joypad"),
    0xFF02: ("SC", 0x7E, "serial"),
    0xFF03: ("unused", 0xFF, "bus"),
    0xFF07: ("TAC", 0xF8, "timer"),
    **dict.fromkeys(range(65288, 65295), ("unused", 255, "bus")),
    0xFF0F: ("IF", 0xE0, "bus"),
    0xFF10: ("NR10", 0x80, "apu"),
    0xFF11: ("NR11", 0x3F, "apu"),
    0xFF13: ("NR13", 0xFF, "apu"),
    0xFF14: ("NR14", 0xBF, "apu"),
    0xFF15: ("unused", 0xFF, "apu"),
    0xFF16: ("NR21", 0x3F, "apu"),
    0xFF18: ("NR23", 0xFF, "apu"),
    0xFF19: ("NR24", 0xBF, "apu"),
    0xFF1A: ("NR30", 0x7F, "apu"),
    0xFF1B: ("NR31", 0xFF, "apu"),
    0xFF1C: ("NR32", 0x9F, "apu"),
    0xFF1D: ("NR33", 0xFF, "apu"),
    0xFF1E: ("NR34", 0xBF, "apu"),
    0xFF1F: ("unused", 0xFF, "apu"),
    0xFF20: ("NR41", 0xFF, "apu"),
    0xFF23: ("NR44", 0xBF, "apu"),
    0xFF26: ("NR52", 0x70, "apu"),
    **dict.fromkeys(range(65319, 65328), ("unused", 255, "apu")),
    0xFF41: ("STAT", 0x80, "ppu"),
    **dict.fromkeys(range(65356, 65408), ("unused", 255, "bus")),
}


def _idle_rom() -> bytes:
    return build_rom(asm.DI + asm.HALT + asm.jr(-3), title=VERIFY_TITLE)


def check_io_masks() -> Result:
    """Unused and write-only I/O bits read 1 after writing 0x00 and 0xFF."""
    start = time.perf_counter()
    gb = new_gameboy(_idle_rom())
    gb.tick(1, render=False)
    bad: list[str] = []
    for value in (0x00, 0xFF):
        for addr, (name, ones, _module) in IO_READ_ONES.items():
            gb.memory[addr] = value
            got = gb.memory[addr]
            if got & ones != ones:
                bad.append(
                    f"{name} ({addr:#06x}) after writing {value:#04x} reads {got:#04x}, "
                    f"bits {ones:#04x} must read 1"
                )
    # LY is read-only: a write leaves it (0 with the LCD off).
    gb.memory[0xFF40] = 0x00
    gb.memory[0xFF44] = 0x55
    if gb.memory[0xFF44] != 0:
        bad.append(f"LY (0xff44) with the LCD off reads {gb.memory[0xFF44]:#04x} after a write")
    modules = sorted({m for _, _, m in IO_READ_ONES.values()})
    detail = (
        f"{len(IO_READ_ONES)} I/O addresses ({', '.join(modules)}): unused/write-only bits read "
        "back as 1 after writing 0x00 and 0xFF; LY ignores writes"
    )
    if bad:
        first_addr = int(bad[0].split("(")[1][:6], 16) if "(" in bad[0] else 0
        module = IO_READ_ONES.get(first_addr, ("", 0, "bus"))[2]
        return Result(
            1,
            "memory.io_unused_bits",
            "fail",
            module,
            f"{detail}: {len(bad)} violations",
            counterexample=bad[0],
            stats={"violations": bad[:10]},
            seconds=time.perf_counter() - start,
        )
    return Result(
        1, "memory.io_unused_bits", "pass", "bus", detail, seconds=time.perf_counter() - start
    )


def check_echo_ram(rng: random.Random, samples: int) -> Result:
    """Echo RAM (E000-FDFF) mirrors C000-DDFF both ways: through the Python memory view
    and through CPU loads and stores in a generated program."""
    start = time.perf_counter()
    bad: list[str] = []
    gb = new_gameboy(_idle_rom())
    gb.tick(1, render=False)
    for _ in range(samples):
        offset = rng.randrange(0x1E00)
        value = rng.getrandbits(8)
        if rng.random() < 0.5:
            gb.memory[0xC000 + offset] = value
            got = gb.memory[0xE000 + offset]
            where = f"wrote {0xC000 + offset:#06x}, read {0xE000 + offset:#06x}"
        else:
            gb.memory[0xE000 + offset] = value
            got = gb.memory[0xC000 + offset]
            where = f"wrote {0xE000 + offset:#06x}, read {0xC000 + offset:#06x}"
        if got != value:
            bad.append(f"memory view: {where}: {value:#04x} -> {got:#04x}")
    # CPU: 120 stores into one half and loads from the other, results kept in HRAM.
    code = bytearray(asm.DI)
    expected: list[int] = []
    for k in range(120):
        offset = rng.randrange(0x1E00)
        value = rng.getrandbits(8)
        src, dst = (0xC000, 0xE000) if k % 2 else (0xE000, 0xC000)
        code += asm.ld_a(value) + asm.ld_mem_a(src + offset) + asm.ld_a_mem(dst + offset)
        code += asm.ldh_a_to(0x80 + k)
        expected.append(value)
    code += asm.finish()
    gb = new_gameboy(build_rom(bytes(code), title=VERIFY_TITLE))
    run_until_done(gb)
    got_cpu = gb.memory[0xFF80 : 0xFF80 + len(expected)]
    # Later stores can overwrite earlier ones at the same offset; only the CPU's own
    # loads (taken right after each store) are compared.
    for k, (want, got) in enumerate(zip(expected, got_cpu)):
        if want != got:
            bad.append(f"CPU store/load pair {k}: stored {want:#04x}, mirror read {got:#04x}")
    detail = f"{samples} memory-view writes and 120 CPU store/load pairs across C000-DDFF/E000-FDFF"
    if bad:
        return Result(
            1,
            "memory.echo_ram",
            "fail",
            "bus",
            f"{detail}: {len(bad)} mismatches",
            counterexample=bad[0],
            seconds=time.perf_counter() - start,
        )
    return Result(1, "memory.echo_ram", "pass", "bus", detail, seconds=time.perf_counter() - start)


def check_unusable_region() -> Result:
    """FEA0-FEFF: with the LCD off (OAM not blocked) reads return 0x00 on the DMG and
    writes are ignored, through CPU loads and through the memory view."""
    start = time.perf_counter()
    p = bytearray(asm.DI)
    # Wait for VBlank (LY = 144), switch the LCD off, then write and read back FEA0-FEFF.
    wait = len(p)
    p += asm.ldh_a_from(0x44) + b"\xfe\x90"  # cp 144
    p += asm.jr(wait - (len(p) + 2), "nz")
    p += b"\xaf" + asm.ldh_a_to(0x40)
    for i in range(0x60):
        p += asm.ld_a(0xA5) + asm.ld_mem_a(0xFEA0 + i) + asm.ld_a_mem(0xFEA0 + i)
        p += asm.ld_mem_a(0xC000 + i)
    p += asm.finish()
    gb = new_gameboy(build_rom(bytes(p), title=VERIFY_TITLE))
    run_until_done(gb)
    cpu = gb.memory[0xC000:0xC060]
    view = gb.memory[0xFEA0:0xFF00]
    bad = [f"CPU read {0xFEA0 + i:#06x} = {v:#04x}" for i, v in enumerate(cpu) if v != 0]
    bad += [f"memory view {0xFEA0 + i:#06x} = {v:#04x}" for i, v in enumerate(view) if v != 0]
    detail = "FEA0-FEFF with the LCD off: 96 CPU write+read pairs and the memory view read 0x00"
    if bad:
        return Result(
            1,
            "memory.unusable_fea0",
            "fail",
            "bus",
            f"{detail}: {len(bad)} non-zero reads",
            counterexample=bad[0],
            seconds=time.perf_counter() - start,
        )
    return Result(
        1, "memory.unusable_fea0", "pass", "bus", detail, seconds=time.perf_counter() - start
    )
