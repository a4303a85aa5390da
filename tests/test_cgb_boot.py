"""A DMG cartridge on a CGB (the compatibility palettes the CGB boot ROM picks from the
header) and the optional CGB boot ROM (issue 38).

Every program here is built with the project's assembler: a cartridge that shows all four
background colours and the three visible colours of both object palettes, and a small
CGB boot ROM (2,304 bytes, mapped over 0x0000-0x00FF and 0x0200-0x08FF) that loads palettes,
writes KEY0 as Nintendo's does (the header's CGB flag, or 0x04 for a DMG cartridge), sets
some registers and hands over by writing FF50. No Nintendo boot ROM is used."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import emurust
from emurust.tools.asm import assemble, fix_header

# What the test boot ROM leaves for the cartridge, which stores it at 0xC000: SP (low, high),
# A, B, C, D, E, H, L (then F, which depends on the mode).
HANDED_OVER = [0xFE, 0xFF, 0x11, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC]


def _tile(colour: int) -> str:
    row = str(colour) * 8
    return "\n".join(f"    dw `{row}" for _ in range(8))


# Stores the registers it starts with at $C000 (SP, A, B, C, D, E, H, L, F), then with the
# LCD off: tiles 0-3 of colours 0-3 on the first map row (x 0-31), three objects of
# colours 1-3 through OBP0 (screen y 16-23, x 0-23) and three through OBP1 (y 32-39),
# BGP = OBP0 = OBP1 = $E4 (colour k shows shade k), LCD on, and an idle loop.
CART_SOURCE = f"""
SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "main", ROM0[$150]
Start:
    ld [$C000], sp
    ld [$C002], a
    ld a, b
    ld [$C003], a
    ld a, c
    ld [$C004], a
    ld a, d
    ld [$C005], a
    ld a, e
    ld [$C006], a
    ld a, h
    ld [$C007], a
    ld a, l
    ld [$C008], a
    push af
    pop bc
    ld a, c
    ld [$C009], a
    di
    ldh a, [$40]
    bit 7, a
    jr z, .off
.vblank:
    ldh a, [$44]
    cp 144
    jr nz, .vblank
    xor a
    ldh [$40], a
.off:
    ld hl, $8000
    ld de, Tiles
    ld b, TilesEnd - Tiles
.tiles:
    ld a, [de]
    ld [hl+], a
    inc de
    dec b
    jr nz, .tiles
    ld hl, $9800
    ld bc, $0400
.map:
    xor a
    ld [hl+], a
    dec bc
    ld a, b
    or c
    jr nz, .map
    ld hl, $9800
    ld a, 0
    ld [hl+], a
    inc a
    ld [hl+], a
    inc a
    ld [hl+], a
    inc a
    ld [hl+], a
    ld hl, $FE00
    ld b, 160
.oam:
    xor a
    ld [hl+], a
    dec b
    jr nz, .oam
    ld hl, $FE00
    ld de, Objects
    ld b, ObjectsEnd - Objects
.objects:
    ld a, [de]
    ld [hl+], a
    inc de
    dec b
    jr nz, .objects
    ld a, $E4
    ldh [$47], a
    ldh [$48], a
    ldh [$49], a
    ld a, $93
    ldh [$40], a
.idle:
    jr .idle

Tiles:
{_tile(0)}
{_tile(1)}
{_tile(2)}
{_tile(3)}
TilesEnd:

Objects:
    db 32, 8, 1, $00
    db 32, 16, 2, $00
    db 32, 24, 3, $00
    db 48, 8, 1, $10
    db 48, 16, 2, $10
    db 48, 24, 3, $10
ObjectsEnd:
"""

# Where each colour shows: background colour k at (4, 8k + 4); object colour k (1-3) of
# OBP0 at (20, 8(k - 1) + 4), of OBP1 at (36, 8(k - 1) + 4).
BG_AT = [(4, 8 * k + 4) for k in range(4)]
OBJ0_AT = [(20, 8 * (k - 1) + 4) for k in range(1, 4)]
OBJ1_AT = [(36, 8 * (k - 1) + 4) for k in range(1, 4)]


def cart(
    title: bytes = b"EMURUST",
    old_licensee: int = 0x00,
    new_licensee: bytes = b"\0\0",
    cgb_flag: int = 0x00,
) -> bytes:
    rom = bytearray(assemble(CART_SOURCE).rom)
    rom[0x134:0x143] = title.ljust(15, b"\0")[:15]
    rom[0x143] = cgb_flag
    rom[0x144:0x146] = new_licensee
    rom[0x14B] = old_licensee
    fix_header(rom)
    return bytes(rom)


def rgb(colour: int) -> tuple[int, int, int]:
    """A 15-bit colour as the screen shows it by default (each channel ``x << 3``)."""
    return ((colour & 31) << 3, ((colour >> 5) & 31) << 3, ((colour >> 10) & 31) << 3)


Palette = tuple[int, int, int, int]

# The boot ROM's compatibility palettes (15-bit colours; background palette 0, object
# palettes 0 and 1), as Pan Docs ("Compatibility palettes") and the public boot ROM
# disassemblies give them: the default (palettes ID 0) and the palettes of a few titles.
DEFAULT = (
    (0x7FFF, 0x1BEF, 0x6180, 0x0000),
    (0x7FFF, 0x421F, 0x1CF2, 0x0000),
    (0x7FFF, 0x421F, 0x1CF2, 0x0000),
)
TITLES: dict[bytes, tuple[Palette, Palette, Palette]] = {
    # checksum 0xDB, ID 5
    b"TETRIS": ((0x7FFF, 0x03FF, 0x001F, 0x0000),) * 3,
    # checksum 0x70, ID 15: three different palettes
    b"ZELDA": (
        (0x7FFF, 0x421F, 0x1CF2, 0x0000),
        (0x7FFF, 0x03E0, 0x0206, 0x0120),
        (0x7FFF, 0x7E8C, 0x7C00, 0x0000),
    ),
    # checksum 0x46, shared: fourth letter 'E' gives ID 66 (objects from a palette's last
    # colour on: colour 0, which objects never show, is black)
    b"SUPER MARIOLAND": (
        (0x7ED6, 0x4BFF, 0x2175, 0x0000),
        (0x0000, 0x7FFF, 0x421F, 0x1CF2),
        (0x0000, 0x7FFF, 0x421F, 0x1CF2),
    ),
    # the same checksum with fourth letter 'R': ID 80
    b"SUPRE MARIOLAND": (
        (0x7FFF, 0x7E8C, 0x7C00, 0x0000),
        (0x03FF, 0x001F, 0x000C, 0x0000),
        (0x7FFF, 0x1BEF, 0x0200, 0x0000),
    ),
}


def shown(gb: emurust.GameBoy) -> tuple[list[tuple[int, ...]], ...]:
    """The background's four colours and each object palette's colours 1-3, as shown."""
    return tuple(
        [tuple(int(v) for v in gb.screen[at]) for at in where]
        for where in (BG_AT, OBJ0_AT, OBJ1_AT)
    )


def expected(palettes: tuple[Palette, Palette, Palette]) -> tuple[list[tuple[int, ...]], ...]:
    bg, obj0, obj1 = palettes
    return ([rgb(c) for c in bg], [rgb(c) for c in obj0[1:]], [rgb(c) for c in obj1[1:]])


def run(rom: bytes, frames: int = 10, **kwargs: object) -> emurust.GameBoy:
    gb = emurust.GameBoy(rom, model="cgb", **kwargs)  # type: ignore[arg-type]
    gb.tick(frames)
    return gb


# ---- compatibility palettes ----------------------------------------------------------


@pytest.mark.parametrize("reference", [False, True])
def test_a_non_nintendo_cartridge_gets_the_default_palettes(reference: bool) -> None:
    gb = emurust.GameBoy(cart(b"TETRIS"), model="cgb")  # a known title, but not Nintendo's
    gb.reference_mode = reference
    gb.tick(10)
    assert not gb.cgb_mode
    assert shown(gb) == expected(DEFAULT)
    assert gb.memory[0xC003] == 0, "B: 0 for a cartridge not licensed by Nintendo"


@pytest.mark.parametrize("title", list(TITLES))
def test_a_nintendo_title_gets_its_palettes(title: bytes) -> None:
    rom = cart(title, old_licensee=0x01)
    gb = run(rom)
    assert shown(gb) == expected(TITLES[title]), title
    # B holds the title checksum, as the boot ROM leaves it.
    assert gb.memory[0xC003] == sum(rom[0x134:0x144]) & 0xFF


def test_licensee_rule() -> None:
    """Nintendo's old licensee code 0x01, or 0x33 with the new code "01"; anything else
    (and an unknown title, or a shared checksum with another fourth letter) gets the
    default."""
    assert shown(run(cart(b"TETRIS", 0x33, b"01"))) == expected(TITLES[b"TETRIS"])
    assert shown(run(cart(b"TETRIS", 0x33, b"00"))) == expected(DEFAULT)
    assert shown(run(cart(b"TETRIS", 0x33, b"10"))) == expected(DEFAULT)
    assert shown(run(cart(b"NO SUCH GAME", 0x01))) == expected(DEFAULT)
    # 'D' + 'S' keeps SUPER MARIOLAND's checksum, but no title of it has a fourth 'D'.
    other = cart(b"SUPDS MARIOLAND", 0x01)
    assert sum(other[0x134:0x144]) & 0xFF == 0x46
    assert shown(run(other)) == expected(DEFAULT)


def test_dmg_model_is_unchanged_by_the_header() -> None:
    """The DMG shows its four greys whatever the title and licensee."""
    greys = [(0xFF,) * 3, (0xAA,) * 3, (0x55,) * 3, (0x00,) * 3]
    for rom in (cart(b"ZELDA", 0x01), cart()):
        gb = emurust.GameBoy(rom)
        gb.tick(10)
        assert [tuple(int(v) for v in gb.screen[at]) for at in BG_AT] == greys


@pytest.mark.parametrize(
    "name", ["homebrew/2048/2048.gb", "homebrew/tobutobugirl/tobu.gb", "acid2/dmg-acid2.gb"]
)
def test_dmg_games_get_the_default_palettes(shared_roms: Path, name: str) -> None:
    """Homebrew and test cartridges are not Nintendo's: on a CGB every pixel shows its
    palette slot (background 0-3, OBJ 0 32-35, OBJ 1 36-39) in the default palettes."""
    path = shared_roms / name
    if not path.exists():
        pytest.skip(f"{path} not found")
    rom = path.read_bytes()
    assert rom[0x143] & 0x80 == 0, "a DMG cartridge"
    gb = emurust.GameBoy(rom, model="cgb")
    lut = np.zeros((64, 3), dtype=np.uint8)
    for base, palette in zip((0, 32, 36), DEFAULT):
        for i, colour in enumerate(palette):
            lut[base + i] = rgb(colour)
    for _ in range(6):
        gb.tick(50)
        slots = np.array(gb.screen_shades)
        assert np.array_equal(np.array(gb.screen), lut[slots]), name


# ---- the CGB boot ROM ------------------------------------------------------------------

# BG palette 0, OBJ palettes 0 and 1 that the test boot ROM loads (distinct colours).
BOOT_PALETTES = (
    (0x7FFF, 0x001F, 0x03E0, 0x0000),
    (0x7FFF, 0x7C00, 0x03FF, 0x0010),
    (0x7FFF, 0x7C1F, 0x4210, 0x0200),
)


def _words(palette: Palette) -> str:
    return ", ".join(f"${c:04X}" for c in palette)


BOOT_SOURCE = f"""
SECTION "start", ROM0[$0000]
    ld sp, $FFFE
    jp Setup

SECTION "handover", ROM0[$00FC]
Handover:
    ld a, $11
    ldh [$50], a          ; unmaps the boot ROM: the next instruction is the cartridge's $0100

SECTION "setup", ROM0[$0200]
Setup:
    ld a, $80             ; BCPS: index 0, auto-increment
    ldh [$68], a
    ld hl, Palettes
    ld b, 8
.bg:
    ld a, [hl+]
    ldh [$69], a
    dec b
    jr nz, .bg
    ld a, $80
    ldh [$6A], a
    ld b, 16
.obj:
    ld a, [hl+]
    ldh [$6B], a
    dec b
    jr nz, .obj
    ld a, [$0143]         ; the cartridge header (not covered by the boot ROM)
    bit 7, a
    jr nz, .cgb
    ld a, $04             ; KEY0: DMG compatibility mode
    ldh [$4C], a
    ld a, $01             ; OPRI: objects by X
    ldh [$6C], a
    jr .registers
.cgb:
    ldh [$4C], a          ; KEY0: the header's CGB flag
.registers:
    ld bc, $1234
    ld de, $5678
    ld hl, $9ABC
    jp Handover

Palettes:
    dw {_words(BOOT_PALETTES[0])}
    dw {_words(BOOT_PALETTES[1])}
    dw {_words(BOOT_PALETTES[2])}

SECTION "last", ROM0[$08FE]
    db $5A, $A5           ; the boot ROM's last two bytes
"""


def boot_rom() -> bytes:
    image = assemble(BOOT_SOURCE).rom[: emurust._core.CGB_BOOT_ROM_SIZE]
    assert len(image) == 2304
    return image


def test_boot_rom_is_mapped_then_hands_over_in_compatibility_mode() -> None:
    boot, rom = boot_rom(), cart()
    gb = emurust.GameBoy(rom, model="cgb", boot_rom=boot)
    assert gb._boot_rom == boot
    assert gb.registers["pc"] == 0
    # 0x0000-0x00FF and 0x0200-0x08FF are the boot ROM's, 0x0100-0x01FF the cartridge's.
    assert gb.memory[0x0000:0x0100] == boot[:0x100]
    assert gb.memory[0x0100:0x0200] == rom[0x100:0x200]
    assert gb.memory[0x0200:0x0900] == boot[0x200:0x900]
    assert gb.memory[0x0900:0x1000] == rom[0x900:0x1000]
    assert gb.cgb_mode, "CGB mode until the boot ROM selects the mode"
    gb.tick(10)
    # Unmapped: the cartridge is visible at 0x0000-0x08FF.
    assert gb.memory[0x0000:0x0900] == rom[:0x900]
    assert not gb.cgb_mode, "KEY0 = 0x04: DMG compatibility mode"
    # The registers the cartridge found: SP, A, B, C, D, E, H, L, F.
    assert list(gb.memory[0xC000:0xC00A]) == [*HANDED_OVER, 0xA0]
    # The colours are the palettes the boot ROM loaded, not the built-in table's.
    assert shown(gb) == expected(BOOT_PALETTES)


def test_boot_rom_hands_over_in_cgb_mode_for_a_cgb_cartridge() -> None:
    boot, rom = boot_rom(), cart(cgb_flag=0x80)
    gb = emurust.GameBoy(rom, model="cgb", boot_rom=boot)
    gb.tick(10)
    assert gb.cgb_mode, "KEY0 = 0x80: CGB mode"
    assert gb.memory[0x0000:0x0900] == rom[:0x900]
    assert list(gb.memory[0xC000:0xC00A]) == [*HANDED_OVER, 0x20]
    # CGB mode: every object uses OBJ palette 0 (attribute bits 0-2), the palettes stay
    # readable through BCPD.
    bg, obj0, _ = expected(BOOT_PALETTES)
    assert shown(gb) == (bg, obj0, obj0)
    gb.memory[0xFF68] = 0x02
    assert gb.memory[0xFF69] == BOOT_PALETTES[0][1] & 0xFF


def test_fast_and_reference_paths_agree_through_the_boot_rom() -> None:
    boot, rom = boot_rom(), cart(b"ZELDA", 0x01)
    states = []
    for reference in (False, True):
        gb = emurust.GameBoy(rom, model="cgb", boot_rom=boot)
        gb.reference_mode = reference
        gb.tick(5)
        states.append((gb.registers, gb.cycles, bytes(gb.memory[0:0x10000]), np.array(gb.screen)))
    assert states[0][:3] == states[1][:3]
    assert np.array_equal(states[0][3], states[1][3])


def test_wrong_boot_rom_sizes_raise() -> None:
    rom = cart()
    with pytest.raises(
        emurust.InvalidRomError, match=r'exactly 2304 bytes for model="cgb", got 2303'
    ):
        emurust.GameBoy(rom, model="cgb", boot_rom=bytes(2303))
    with pytest.raises(emurust.InvalidRomError, match=r"got 256 \(256 bytes is a DMG's boot ROM"):
        emurust.GameBoy(rom, model="cgb", boot_rom=bytes(256))
    with pytest.raises(emurust.InvalidRomError, match="2304 bytes; at most 256"):
        emurust.GameBoy(rom, boot_rom=boot_rom())
    # model="auto" picks the DMG for this cartridge: the core names the other model.
    with pytest.raises(emurust.InvalidRomError, match=r"got 2304 \(2304 bytes is a CGB's boot ROM"):
        emurust.GameBoy(rom, boot_rom=boot_rom(), model="auto")
    with pytest.raises(emurust.InvalidRomError, match="at most 2304"):
        emurust.GameBoy(rom, model="cgb", boot_rom=bytes(2305))
    with pytest.raises(emurust.InvalidRomError, match="2304 bytes"):
        emurust.VecGameBoy(rom, 2, boot_rom=bytes(300), model="cgb")


def test_vec_engine_runs_the_cgb_boot_rom() -> None:
    boot, rom = boot_rom(), cart()
    vec = emurust.VecGameBoy(rom, 2, boot_rom=boot, model="cgb")
    vec.step(np.zeros(2, dtype=np.int64))
    lone = emurust.GameBoy(rom, model="cgb", boot_rom=boot)
    lone.tick(1)
    one = emurust.GameBoy(rom, model="cgb", boot_rom=boot)
    one.load_state(vec.save_state(1))
    assert not one.cgb_mode
    assert bytes(one.memory[0xC000:0xC00A]) == bytes(lone.memory[0xC000:0xC00A])


def test_states_saved_while_the_boot_rom_is_mapped_round_trip() -> None:
    boot, rom = boot_rom(), cart(b"ZELDA", 0x01)
    gb = emurust.GameBoy(rom, model="cgb", boot_rom=boot)
    assert gb._step_to_cycle(120)
    assert gb.memory[0x0200:0x0900] == boot[0x200:0x900], "still in the boot ROM"
    state = gb.save_state()
    again = emurust.GameBoy(rom, model="cgb", boot_rom=boot)
    again.load_state(state)
    assert again.save_state() == state
    assert again.memory[0x0200:0x0900] == boot[0x200:0x900]
    for g in (gb, again):
        g.tick(5)
    assert again.save_state() == gb.save_state()
    assert not again.cgb_mode
    assert shown(again) == expected(BOOT_PALETTES)
    # A state after the hand-over (compatibility mode) loads into a machine whose boot ROM
    # has not run yet: its mode is the state's.
    after = gb.save_state()
    fresh = emurust.GameBoy(rom, model="cgb", boot_rom=boot)
    assert fresh.cgb_mode
    fresh.load_state(after)
    assert not fresh.cgb_mode
    fresh.tick(3)
    gb.tick(3)
    assert fresh.save_state() == gb.save_state()
    assert np.array_equal(np.array(fresh.screen), np.array(gb.screen))
    # Mid-boot states need the same boot ROM.
    with pytest.raises(emurust.InvalidStateError, match="no boot ROM"):
        emurust.GameBoy(rom, model="cgb").load_state(state)
    other = bytearray(boot)
    other[0x8FF] ^= 0xFF
    with pytest.raises(emurust.InvalidStateError, match="different boot ROM"):
        emurust.GameBoy(rom, model="cgb", boot_rom=bytes(other)).load_state(state)


def test_pyboy_runs_a_cgb_boot_rom(tmp_path: Path) -> None:
    """``emurust.PyBoy(bootrom=<a CGB boot ROM>)`` runs it (``cgb=None`` picks the CGB for a
    boot ROM longer than 256 bytes, as PyBoy does); a DMG cartridge then shows PyBoy's
    ``cgb_color_palette`` colours in compatibility mode, as without a boot ROM."""
    rom_path, boot_path = tmp_path / "cart.gb", tmp_path / "cgb_boot.bin"
    rom_path.write_bytes(cart())
    boot_path.write_bytes(boot_rom())
    pb = emurust.PyBoy(str(rom_path), window="null", bootrom=str(boot_path))
    assert pb._gb.model == "cgb"
    assert pb._gb.registers["pc"] == 0
    pb.tick(10)
    assert not pb._gb.cgb_mode
    assert list(pb.memory[0xC000:0xC00A])[2:5] == [0x11, 0x12, 0x34]
    plain = emurust.PyBoy(str(rom_path), window="null", cgb=True)
    plain.tick(10)
    for at in BG_AT + OBJ0_AT + OBJ1_AT:
        assert tuple(pb.screen.ndarray[at]) == tuple(plain.screen.ndarray[at]), at
