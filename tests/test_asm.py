"""The SM83 assembler in emurust.tools.asm: every opcode round-trips through the project's
disassembler, the expression and directive syntax, the errors, the header fix-up, the .sym
file and the command line; and the package's other program builders (ops, Program,
build_rom) agree with it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import emurust
from emurust.tools.asm import AsmError, Assembly, assemble, assemble_file, fix_header, main, ops
from emurust.tools.asm.program import Program, serial_rom
from emurust.tools.asm.rom import build_rom, header_checksum
from emurust.verify.disasm import disassemble

ORG = 0x0150
HEADER = f'SECTION "code", ROM0[${ORG:04X}]\n'

# Instruction lengths from the Pan Docs opcode table: every other base opcode is 1 byte.
TWO_BYTES = {
    *range(0x06, 0x40, 8),  # ld r8,n8 and ld [hl],n8
    0x10,  # stop (10 00)
    0x18, 0x20, 0x28, 0x30, 0x38,  # jr
    *range(0xC6, 0x100, 8),  # ALU a,n8
    0xE0, 0xF0, 0xE8, 0xF8,  # ldh, add sp,e8, ld hl,sp+e8
    0xCB,  # the prefix and its opcode
}  # fmt: skip
THREE_BYTES = {
    0x01, 0x11, 0x21, 0x31, 0x08,  # ld r16,n16 and ld [n16],sp
    0xC2, 0xCA, 0xD2, 0xDA, 0xC3,  # jp
    0xC4, 0xCC, 0xD4, 0xDC, 0xCD,  # call
    0xEA, 0xFA,  # ld [n16],a and ld a,[n16]
}  # fmt: skip
LOGO_HEX = (
    "CEED6666CC0D000B03730083000C000D0008111F8889000E"
    "DCCC6EE6DDDDD999BBBB67636E0EECCCDDDC999FBBB9333E"
)


def code_of(body: str, *, pad: int = 0x00) -> bytes:
    """The bytes ``body`` assembles to at ``ORG`` (up to the ``End`` label added after it)."""
    result = assemble(HEADER + body + "\nEnd:\n", pad=pad)
    return result.rom[ORG : result.symbols["End"]]


def error_of(source: str) -> str:
    with pytest.raises(AsmError) as info:
        assemble(source)
    return str(info.value)


def length_of(opcode: int) -> int:
    return 2 if opcode in TWO_BYTES else 3 if opcode in THREE_BYTES else 1


def to_rgbds(text: str) -> str:
    """The disassembler's syntax, e.g. ``ld a,(hl+)``, in RGBDS syntax: ``ld a,[hl+]``."""
    return text.replace("(", "[").replace(")", "]")


# --- every opcode --------------------------------------------------------------------------


@pytest.mark.parametrize("operands", [b"\x12\x34", b"\xfd\xff", b"\x80\x00"])
def test_every_base_opcode_round_trips(operands: bytes) -> None:
    covered = 0
    for opcode in range(0x100):
        code = bytes([opcode]) + (b"\x00\x00" if opcode == 0x10 else operands)
        text = disassemble(code, ORG)
        if text.startswith("db "):
            continue
        covered += 1
        expected = code[: length_of(opcode)]
        assert code_of(to_rgbds(text)) == expected, (hex(opcode), text)
    # 256 minus the 11 undefined opcodes; 0xCB counts with the CB opcode it disassembles as.
    assert covered == 245


def test_every_cb_opcode_round_trips() -> None:
    texts = set()
    for opcode in range(0x100):
        text = disassemble(bytes([0xCB, opcode]), ORG)
        texts.add(text)
        assert code_of(to_rgbds(text).upper()) == bytes([0xCB, opcode]), text
    assert len(texts) == 256


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("ld a, [c]", "f2"),
        ("ld [c], a", "e2"),
        ("ld [$FF00 + C], a", "e2"),
        ("ldh a, [c]", "f2"),
        ("ldh [c], a", "e2"),
        ("ld a, [hli]", "2a"),
        ("ld [hld], a", "32"),
        ("ld [hl+], a", "22"),
        ("ld a, [hl-]", "3a"),
        ("jp [hl]", "e9"),
        ("jp hl", "e9"),
        ("sub a, b", "90"),
        ("sub b", "90"),
        ("add b", "80"),
        ("cp [hl]", "be"),
        ("xor a", "af"),
        ("and a, $0f", "e60f"),
        ("adc 1", "ce01"),
        ("ld hl, sp + 4", "f804"),
        ("ld hl, sp - 4", "f8fc"),
        ("add sp, -128", "e880"),
        ("ld a, -1", "3eff"),
        ("ld bc, -1", "01ffff"),
        ("ldh a, [$44]", "f044"),
        ("ldh [$FF44], a", "e044"),
        ("ld [$FF44], a", "ea44ff"),
        ("jr c, @", "38fe"),
        ("jp c, $1234", "da3412"),
        ("call c, $1234", "dc3412"),
        ("ret c", "d8"),
        ("ret", "c9"),
        ("rst $38", "ff"),
        ("rst 8", "cf"),
        ("stop", "1000"),
        ("halt", "76"),
        ("LD A, B", "78"),
        ("Ld [Hl], 5", "3605"),
        ("push af", "f5"),
        ("pop bc", "c1"),
        ("inc sp", "33"),
        ("dec [hl]", "35"),
        ("add hl, sp", "39"),
        ("ld [$C000], sp", "0800c0"),
        ("ld sp, hl", "f9"),
        ("res 0, [hl]", "cb86"),
        ("set 7, a", "cbff"),
        ("swap a", "cb37"),
    ],
)
def test_alternative_operand_syntax(source: str, expected: str) -> None:
    assert code_of(source).hex() == expected


def test_jr_reaches_exactly_minus_128_to_127() -> None:
    assert code_of("jr Ahead\nds 127\nAhead:")[:2] == bytes([0x18, 0x7F])
    assert code_of("Back: ds 126\njr Back")[126:] == bytes([0x18, 0x80])


# --- expressions and directives -----------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("2 + 3 * 4", 14),
        ("(2 + 3) * 4", 20),
        ("1 << 2 + 1", 8),
        ("7 & 3 == 3", 1),
        ("1 | 2 ^ 3 & 1", 3),
        ("10 - 2 - 3", 5),
        ("100 / 10 / 5", 2),
        ("-7 / 2", -3),
        ("-7 % 2", -1),
        ("7%3", 1),
        ("7 % %11", 1),
        ("-1", -1),
        ("~0 & $FF", 0xFF),
        ("!0 + !5", 1),
        ("1 < 2", 1),
        ("2 <= 1", 0),
        ("3 > 2", 1),
        ("3 >= 4", 0),
        ("1 == 1", 1),
        ("1 != 1", 0),
        ("0 || 5", 1),
        ("0 && 5", 0),
        ("1 + 2 == 3 && 4 > 3 || 0", 1),
        ("$1F + 0x1F + %1010 + 0b1010", 31 + 31 + 10 + 10),
        ("1_000 + $F_F", 1000 + 0xFF),
        ("'A'", 65),
        ("';'", 59),
        ("HIGH($1234)", 0x12),
        ("low($1234)", 0x34),
        ("HIGH(-1)", 0xFF),
        ("-HIGH($0100)", -1),
        ("256 >> 4", 16),
    ],
)
def test_expressions(expression: str, value: int) -> None:
    assert code_of(f"dw {expression}") == (value & 0xFFFF).to_bytes(2, "little")


def test_graphics_literal_is_one_2bpp_tile_row() -> None:
    digits = [0, 1, 2, 3, 3, 2, 1, 0]
    lo = sum((d & 1) << (7 - i) for i, d in enumerate(digits))
    hi = sum((d >> 1) << (7 - i) for i, d in enumerate(digits))
    assert (lo, hi) == (0b01011010, 0b00111100)
    assert code_of("dw `01233210") == bytes([lo, hi])
    assert code_of("ld bc, `33333333\ndb HIGH(`30000000), LOW(`10000001)") == bytes(
        [0x01, 0xFF, 0xFF, 0x80, 0x81]
    )


def test_at_is_the_address_where_the_statement_starts() -> None:
    assert code_of("nop\ndw @, @ + 2\njp @\njr @ + 2") == bytes(
        [0x00, 0x51, 0x01, 0x53, 0x01, 0xC3, 0x55, 0x01, 0x18, 0x00]
    )
    assert code_of("ds $158 - @, $EE\ndb 1") == bytes([0xEE] * 8 + [1])


def test_data_directives() -> None:
    assert code_of('db "SCORE", 0, -1, 255, "a;b", \'"\'') == b"SCORE\x00\xff\xffa;b\x22"
    assert code_of('db "\\n\\t\\\\\\"\\0"') == b'\n\t\\"\x00'
    assert code_of("dw $1234, -1, 65535") == bytes([0x34, 0x12, 0xFF, 0xFF, 0xFF, 0xFF])
    assert code_of("ds 3, $AA\nds 2\nds 0") == bytes([0xAA] * 3 + [0x00] * 2)
    assert code_of("ds 2\nds 1, 7", pad=0xFF) == bytes([0xFF, 0xFF, 7])


def test_labels_locals_constants_and_forward_references() -> None:
    source = (
        HEADER
        + """
DEF WIDTH EQU 3
HEIGHT equ WIDTH * 2 ; a comment
LAST EQU Later + 1   ; a forward reference
Main::
.loop: dec a
    jr nz, .loop
    jp Other.loop
Other: ld a, HEIGHT
.loop:
    jr .loop
    dw Main.loop, LAST
Later: ld a, [Later]
"""
    )
    result = assemble(source)
    assert result.symbols == {
        "Main": 0x150,
        "Main.loop": 0x150,
        "Other": 0x156,
        "Other.loop": 0x158,
        "Later": 0x15E,
    }
    assert result.rom[0x150:0x161].hex(" ") == (
        "3d 20 fd c3 58 01 3e 06 18 fe 50 01 5f 01 fa 5e 01"
    )


def test_ram_sections_and_their_labels() -> None:
    source = """
SECTION "vars", WRAM0[$C000]
wScore: ds 2
.hi: ds 1
SECTION "fast", HRAM[$FF80]
hFlag: ds 1
SECTION "tiles", VRAM[$8000]
vTiles: ds 16
SECTION "main", ROM0[$150]
Main: ld a, [wScore.hi]
    ldh a, [hFlag]
    ld hl, vTiles + 16
    ASSERT wScore.hi == $C002, "labels in RAM"
"""
    result = assemble(source)
    assert result.symbols == {
        "wScore": 0xC000,
        "wScore.hi": 0xC002,
        "hFlag": 0xFF80,
        "vTiles": 0x8000,
        "Main": 0x150,
    }
    assert result.rom[0x150:0x158] == bytes([0xFA, 0x02, 0xC0, 0xF0, 0x80, 0x21, 0x10, 0x80])
    assert len(result.rom) == 0x8000
    assert result.rom[0x158:] == bytes(0x8000 - 0x158)


def test_include_is_relative_to_the_including_file(tmp_path: Path) -> None:
    (tmp_path / "inc").mkdir()
    (tmp_path / "main.asm").write_text(
        'INCLUDE "inc/defs.asm"\nSECTION "a", ROM0[$150]\n ld a, VALUE\n INCLUDE "inc/code.asm"\n'
    )
    (tmp_path / "inc" / "defs.asm").write_text('DEF VALUE EQU 7\nINCLUDE "more.asm"\n')
    (tmp_path / "inc" / "more.asm").write_text("DEF OTHER EQU VALUE + 1\n")
    (tmp_path / "inc" / "code.asm").write_text("Helper: ld b, OTHER\n ret\n")
    result = assemble_file(tmp_path / "main.asm")
    assert result.rom[0x150:0x155] == bytes([0x3E, 7, 0x06, 8, 0xC9])
    assert result.symbols == {"Helper": 0x152}

    (tmp_path / "inc" / "code.asm").write_text("Helper: ld b, OTHER\n bad\n")
    with pytest.raises(AsmError, match=r"code\.asm:2: unknown instruction 'bad'"):
        assemble_file(tmp_path / "main.asm")

    (tmp_path / "inc" / "more.asm").write_text('INCLUDE "defs.asm"\n')
    with pytest.raises(AsmError, match=r"more\.asm:1: include cycle"):
        assemble_file(tmp_path / "main.asm")

    absolute = tmp_path / "inc" / "code.asm"
    absolute.write_text("ld b, 1\n")
    assert code_of(f'INCLUDE "{absolute.as_posix()}"') == bytes([0x06, 1])
    assert "<source>:2: cannot INCLUDE" in error_of(HEADER + 'INCLUDE "x.asm"')
    assert "cannot read" in error_of(f'INCLUDE "{(tmp_path / "missing.asm").as_posix()}"')


def test_assert() -> None:
    assert code_of('ASSERT 1 + 1 == 2\nASSERT @ == $150, "at the start"\nnop') == b"\x00"
    assert code_of("ASSERT Later - @ == 1\nnop\nLater:") == b"\x00"
    message = error_of(HEADER + 'nop\nASSERT @ == $150, "not at the start"\n')
    assert message == "<source>:3: assertion failed: not at the start"
    assert error_of("ASSERT 0") == "<source>:1: assertion failed"


# --- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "line", "text"),
    [
        ("jr Far\nds 200\nFar:", 2, "out of range: it is 200 bytes"),
        ("Back: ds 127\njr Back", 3, "-129 bytes"),
        ("nop\nfoo a, b", 3, "unknown instruction 'foo a, b'"),
        ("ld bc, a", 2, "invalid operands in 'ld bc, a'"),
        ("ld [hl], [hl]", 2, "invalid operands in 'ld [hl], [hl]'"),
        ("push sp", 2, "invalid operands"),
        ("jp nz", 2, "invalid operands"),
        ("add a, hl", 2, "invalid operands"),
        ("ld a, [hl + 1]", 2, "'hl' cannot be used in an expression"),
        ("rst $09", 2, "rst vector $9"),
        ("ldh a, [$1234]", 2, "ldh address $1234"),
        ("ldh [$FEFF], a", 2, "ldh address $FEFF"),
        ("X: nop\nX: nop", 3, "'X' is already defined at <source>:2"),
        ("DEF X EQU 1\nX EQU 2", 3, "'X' is already defined"),
        ("X EQU 1\nX: nop", 3, "'X' is already defined"),
        ("jp Nowhere", 2, "undefined symbol 'Nowhere'"),
        ("X EQU Y\nY EQU X", 3, "defined in terms of itself"),
        ("db 1 / 0", 2, "division by zero"),
        ("db 1 % (2 - 2)", 2, "division by zero"),
        ("db 256", 2, "does not fit in 8 bits"),
        ("db -129", 2, "does not fit in 8 bits"),
        ("dw 65536", 2, "does not fit in 16 bits"),
        ("ld a, 300", 2, "does not fit in 8 bits"),
        ("add sp, 128", 2, "out of range -128..127"),
        ("bit 8, a", 2, "bit number 8"),
        ("ds Later\nLater:", 2, "forward references"),
        ("db `0123", 2, "graphics literal"),
        ("db `01234567", 2, "graphics literal"),
        ('db "abc', 2, "unterminated"),
        ("db 'ab'", 2, "one character"),
        ("db 12ab", 2, "bad number"),
        ("db 1 << 99", 2, "shift count"),
        ("ld: nop", 2, "reserved word"),
        (".local: nop", 2, "outside of a global label's scope"),
        ("Other.x: nop", 2, "inside the scope"),
        ('db "é"', 2, "non-ASCII"),
        ("ld a, (1", 2, "missing ')'"),
        ("db 1 +", 2, "missing value"),
        ("db 1 2", 2, "unexpected '2'"),
        ("ds 1, 2, 3", 2, "ds count"),
        ("ASSERT @ == 1, 2", 2, "ASSERT expr"),
    ],
)
def test_errors_name_their_line(body: str, line: int, text: str) -> None:
    message = error_of(HEADER + body)
    assert message.startswith(f"<source>:{line}: "), message
    assert text in message, message


@pytest.mark.parametrize(
    ("source", "line", "text"),
    [
        ("nop", 1, "outside of a section"),
        ("Start: nop", 1, "outside of a section"),
        ('SECTION "a", ROM0[$0]\nds 8\nSECTION "b", ROM0[$4]\nnop', 3, 'section "b"'),
        ('SECTION "a", ROM0[$0]\nds 8\nSECTION "b", ROM0[$4]\nnop', 3, 'overlaps section "a"'),
        ('SECTION "w", WRAM0[$C000]\ndb 1', 2, 'WRAM0 section "w" can only hold labels and ds'),
        ('SECTION "w", WRAM0[$C000]\nnop', 2, "can only hold labels and ds"),
        ('SECTION "w", WRAM0[$C000]\nds 2, 0', 2, "no ds fill"),
        ('SECTION "h", HRAM[$FFFE]\nds 1\nds 1', 3, "grows past the end of HRAM ($FFFE)"),
        ('SECTION "r", ROM0[$3FFF]\nnop\nnop', 3, "grows past the end of ROM0"),
        ('SECTION "r", ROM0[$4000]', 1, "not in $0000-$3FFF"),
        ('SECTION "w", WRAM0[$D000]', 1, "not in $C000-$CFFF"),
        ('SECTION "x", ROMX[$4000]', 1, "needs its bank"),
        ('SECTION "x", ROMX[$4000], BANK[0]', 1, "ROMX bank 0 is not in 1-511"),
        ('SECTION "x", ROMX[$4000], BANK[512]', 1, "ROMX bank 512 is not in 1-511"),
        ('SECTION "x", ROMX[$4000], BANK[Later]\nLater:', 1, "forward references"),
        ('SECTION "x", ROMX[$4000], WRAM[1]', 1, "needs its bank"),
        ('SECTION "x", ROMX[$3FFF], BANK[1]', 1, "not in $4000-$7FFF"),
        ('SECTION "x", ROM0[$0], BANK[1]', 1, "options after the address are not supported"),
        ('SECTION "x", ROMX[$7FFF], BANK[1]\nnop\nnop', 3, "grows past the end of ROMX"),
        (
            'SECTION "a", ROMX[$4000], BANK[2]\nds 8\nSECTION "b", ROMX[$4004], BANK[2]\nnop',
            3,
            'section "b" (bank 2 $4004-$4004) overlaps section "a" (bank 2 $4000-$4007)',
        ),
        ('SECTION "x", ROM0', 1, "needs its address"),
        ('SECTION "x", ROM0[Later]\nLater:', 1, "forward references"),
        ('SECTION "x", ROM0[$0]\nSECTION "x", ROM0[$10]', 2, "already defined"),
        ('SECTION "x", FOO[$0]', 1, "unknown section type"),
    ],
)
def test_section_errors(source: str, line: int, text: str) -> None:
    message = error_of(source)
    assert message.startswith(f"<source>:{line}: "), message
    assert text in message, message


ROMX_SOURCE = """
SECTION "main", ROM0[$150]
Main:
    ld a, 3
    ld [$2000], a
    call Far
    jp Far.back
SECTION "one", ROMX[$4000], BANK[1]
    db 1
Far:
    ld a, [@ - 1]
.back:
    ret
SECTION "three", ROMX[$4000], BANK[3]
    db 3
Three:
    jp Main
SECTION "five", ROMX[$7FFE], BANK[5]
Five:
    dw Three
"""


def test_romx_sections_are_laid_out_in_their_banks() -> None:
    result = assemble(ROMX_SOURCE, pad=0xFF)
    rom = result.rom
    # Bank 5 is the last: the ROM grows to the power of two holding it (8 banks).
    assert len(rom) == 8 * 0x4000
    assert rom[0x150:0x15B] == bytes(
        [0x3E, 3, 0xEA, 0x00, 0x20, 0xCD, 0x01, 0x40, 0xC3, 0x04, 0x40]
    )
    # Sections in different banks at the same addresses; labels are CPU addresses.
    assert rom[0x4000:0x4006] == bytes([1, 0xFA, 0x00, 0x40, 0xC9, 0xFF])
    assert rom[0xC000:0xC005] == bytes([3, 0xC3, 0x50, 0x01, 0xFF])
    assert rom[0x17FFE:0x18000] == bytes([0x01, 0x40])
    assert rom[0x8000:0xC000] == bytes([0xFF]) * 0x4000  # bank 2: nothing there
    assert result.symbols == {
        "Main": 0x150,
        "Far": 0x4001,
        "Far.back": 0x4004,
        "Three": 0x4001,
        "Five": 0x7FFE,
    }
    assert result.banks == {"Far": 1, "Far.back": 1, "Three": 3, "Five": 5}
    assert result.sym_text().splitlines()[1:] == [
        "00:0150 Main",
        "01:4001 Far",
        "01:4004 Far.back",
        "03:4001 Three",
        "05:7FFE Five",
    ]


def test_romx_code_runs_from_its_bank() -> None:
    # MBC5, 4 banks: bank 0 calls the same address in banks 1, 2 and 3 in turn; each
    # routine adds its own number to B.
    banks = "\n".join(
        f'SECTION "b{n}", ROMX[$4000], BANK[{n}]\n    ld a, b\n    add a, {n}\n    ld b, a\n    ret'
        for n in (1, 2, 3)
    )
    source = f"""
SECTION "entry", ROM0[$100]
    nop
    jp Main
SECTION "header", ROM0[$147]
    db $19, $01
SECTION "main", ROM0[$150]
Main:
    ld b, 0
    ld c, 1
.next:
    ld a, c
    ld [$2000], a
    call $4000
    inc c
    ld a, c
    cp 4
    jr nz, .next
    ld a, b
    ld [$C000], a
.halt:
    jr .halt
{banks}
"""
    rom = assemble(source, fix=True).rom
    assert len(rom) == 0x10000
    gb = emurust.GameBoy(rom)
    gb.tick(2, render=False)
    assert gb.memory[0xC000] == 1 + 2 + 3


def test_path_names_the_file_in_errors() -> None:
    with pytest.raises(AsmError, match=r"^game/main\.asm:2: unknown instruction 'oops'$"):
        assemble(HEADER + "oops", path="game/main.asm")


# --- header, symbols, determinism, command line -------------------------------------------

GAME = """
SECTION "entry", ROM0[$100]
    nop
    jp Main
    ds $134 - @, 0
    db "ASMTEST"
    ds $150 - @, 0
SECTION "main", ROM0[$150]
Main:
    ld a, $42
    ld [wResult], a
    ld hl, wResult + 1
    ld a, HIGH(Data)
    ld [hl+], a
    ld a, [Data]
    ld [hl], a
.halt:
    halt
    jr .halt
Data: db $5A
SECTION "wram", WRAM0[$C000]
wResult: ds 3
"""


def test_fix_writes_logo_and_checksums() -> None:
    plain = assemble(GAME, pad=0xFF).rom
    rom = assemble(GAME, fix=True, pad=0xFF).rom
    assert len(rom) == 0x8000
    assert rom[0x104:0x134] == bytes.fromhex(LOGO_HEX)
    assert rom[0x14D] == (-(sum(rom[0x134:0x14D]) + (0x14D - 0x134))) & 0xFF
    total = sum(rom[:0x14E]) + sum(rom[0x150:])
    assert rom[0x14E:0x150] == (total & 0xFFFF).to_bytes(2, "big")
    assert rom[0x134:0x13B] == b"ASMTEST"
    differing = [i for i in range(len(rom)) if rom[i] != plain[i]]
    assert min(differing) >= 0x104
    assert max(differing) <= 0x14F
    buffer = bytearray(plain)
    fix_header(buffer)
    assert bytes(buffer) == rom
    with pytest.raises(ValueError, match="header"):
        fix_header(bytearray(0x100))


def test_assembled_game_runs_in_the_emulator() -> None:
    gb = emurust.GameBoy(assemble(GAME, fix=True).rom)
    gb.tick(2, render=False)
    assert gb.memory[0xC000:0xC003] == bytes([0x42, 0x01, 0x5A])
    assert gb.cartridge_title == "ASMTEST"


def test_sym_text() -> None:
    result = assemble(GAME)
    assert result.sym_text() == (
        "; File generated by emurust.tools.asm\n"
        "00:0150 Main\n"
        "00:015F Main.halt\n"
        "00:0162 Data\n"
        "00:C000 wResult\n"
    )
    unsorted = Assembly(b"", {"b": 2, "a": 2, "c": 1})
    assert unsorted.sym_text().splitlines()[1:] == ["00:0001 c", "00:0002 a", "00:0002 b"]


def test_assembling_is_deterministic() -> None:
    first = assemble(GAME, fix=True)
    second = assemble(GAME, fix=True)
    assert first.rom == second.rom
    assert first.symbols == second.symbols
    assert first.sym_text() == second.sym_text()


def test_pad_must_be_a_byte() -> None:
    with pytest.raises(ValueError, match="pad"):
        assemble(GAME, pad=256)


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "game.asm"
    source.write_text(GAME)
    rom, sym = tmp_path / "game.gb", tmp_path / "game.sym"
    assert main([str(source), "-o", str(rom), "--sym", str(sym), "--fix", "--pad", "0xFF"]) == 0
    assert rom.read_bytes() == assemble_file(source, fix=True, pad=0xFF).rom
    assert sym.read_text() == assemble(GAME).sym_text()

    source.write_text(GAME + "    bogus\n")
    assert main([str(source), "-o", str(tmp_path / "other.gb")]) == 1
    line = GAME.count("\n") + 1
    assert f"{source}:{line}: unknown instruction 'bogus'" in capsys.readouterr().err
    assert not (tmp_path / "other.gb").exists()
    assert main([str(tmp_path / "missing.asm"), "-o", str(rom)]) == 1


def test_module_runs_as_a_script(tmp_path: Path) -> None:
    source = tmp_path / "game.asm"
    source.write_text(GAME)
    out = tmp_path / "game.gb"
    subprocess.run(
        [sys.executable, "-m", "emurust.tools.asm", str(source), "-o", str(out)], check=True
    )
    assert out.read_bytes() == assemble(GAME).rom


# --------------------------------------------------------------------------------------------
# The other builders of the package: one encoding of each instruction, one header writer


@pytest.mark.parametrize(
    ("code", "source"),
    [
        (ops.DI, "di"),
        (ops.EI, "ei"),
        (ops.HALT, "halt"),
        (ops.NOP, "nop"),
        (ops.RETI, "reti"),
        (ops.PUSH_AF, "push af"),
        (ops.POP_AF, "pop af"),
        (ops.PUSH_HL, "push hl"),
        (ops.POP_HL, "pop hl"),
        (ops.INC_SP, "inc sp"),
        (ops.ld_sp(0xFFFE), "ld sp, $FFFE"),
        (ops.ld_a(0x42), "ld a, $42"),
        (ops.ld_hl(0xC010), "ld hl, $C010"),
        (ops.ldh_a_to(0x40), "ldh [$FF40], a"),
        (ops.ldh_a_from(0x44), "ldh a, [$FF44]"),
        (ops.ld_mem_a(0xC000), "ld [$C000], a"),
        (ops.ld_a_mem(0xC001), "ld a, [$C001]"),
        (ops.ld_mem_sp(0xC002), "ld [$C002], sp"),
        (ops.add_sp(-2), "add sp, -2"),
        (ops.jp(0x1234), "jp $1234"),
        (ops.jr(-3), "jr @ - 1"),
        (ops.jr(5, "nz"), "jr nz, @ + 7"),
        (ops.jr(-128, "c"), "jr c, @ - 126"),
        (
            ops.finish(),
            f"ld a, ${ops.DONE_VALUE:02X}\nld [${ops.DONE_FLAG:04X}], a\ndi\nhalt\njr @ - 1",
        ),
    ],
)
def test_ops_encode_as_the_assembler_does(code: bytes, source: str) -> None:
    built = assemble(HEADER + source + "\nend:\n")
    assert built.symbols["end"] - ORG == len(code)
    assert built.rom[ORG : ORG + len(code)] == code


def test_program_labels_and_addresses_match_the_assembler() -> None:
    p = Program()
    p.label("top").ld_a(1).jr("ahead", "z").jp("top").call("ahead").label("ahead")
    p.ld_sp(0xFFFE).ld_hl(0xC010).inc_hl_mem().ld_mem_a(0xC000).ldh_mem_a(0x01)
    p.ldh_a_mem(0x02).bit7_a().di().jr(0x0150, "nc").jp(0x0150).call(0x0150)
    source = (
        "top: ld a, 1\njr z, ahead\njp top\ncall ahead\nahead:\n"
        "ld sp, $FFFE\nld hl, $C010\ninc [hl]\nld [$C000], a\nldh [$FF01], a\n"
        "ldh a, [$FF02]\nbit 7, a\ndi\njr nc, $0150\njp $0150\ncall $0150\n"
    )
    code = p.bytes()
    assert code == assemble(HEADER + source).rom[ORG : ORG + len(code)]
    with pytest.raises(ValueError, match="out of range"):
        Program().jr(0x0150 + 200)


def test_build_rom_writes_the_header_fix_header_does() -> None:
    for rom in (serial_rom(), build_rom(b"\x00", banks=4, bank_ids=True, title="T")):
        fixed = bytearray(rom)
        fix_header(fixed)
        assert bytes(fixed) == rom
        assert rom[0x14D] == header_checksum(rom)
        assert rom[0x104:0x134] == bytes.fromhex(LOGO_HEX)
