; emurust's DMG boot ROM (MIT, like the rest of emurust): build it with
;     python -m emurust.tools.asm python/emurust/data/boot/dmg_boot.asm -o boot.gb
; and keep the first 256 bytes (emurust.pyboy_boot.boot_rom() does this).
;
; What it is for: `emurust.PyBoy` runs it by default, as PyBoy runs its own boot ROM, so
; that a script ticking from power-on reaches the game on the same frame as on PyBoy. It
; is an original program, not a copy of PyBoy's: it does not scroll or animate anything.
; What it matches is the outcome, measured on PyBoy 2.8.1 (`tests/test_pyboy_boot.py`
; checks every figure below in lockstep against PyBoy):
;
;   * the LCD is switched on (LCDC = $91) by an instruction that ends at T-cycle 297,912;
;   * BGP and the sound registers are written right after, at the same cycles;
;   * channel 1 is triggered twice, the triggering NR14 writes ending at T-cycles
;     2,400,672 (NR10 = $19) and 2,681,548 (NR10 = $13, NR13 = $48);
;   * the boot ROM unmaps itself with the instruction that ends at T-cycle 4,507,360,
;     leaving A=$01 F=$D0 B=$00 C=$13 D=$00 E=$8F H=$00 L=$87 SP=$FFFE, $B1 $00 at
;     $FFFC-$FFFD, VRAM cleared but for six tiles ($8010-$806F) and their eight map
;     entries (the positions PyBoy's logo uses; the tiles are emurust's own mark),
;     SB, OBP0, OBP1 and wave RAM reading $FF as on PyBoy.
;
; Waits are counted loops (`Wait`: BC turns of 28 T-cycles); none reads LY, so the
; timing does not depend on how an emulator models the PPU.

DEF WAIT_CALL EQU 48      ; ld bc,n (12) + call (24) + ret (16) - the last jr's 4
DEF TURN EQU 28           ; dec bc (8) + ld a,b (4) + or c (4) + jr nz taken (12)

; Filled in by measurement (see the header): the nops and turns of each wait.
DEF PAD_1 EQU 5
DEF WAIT_1 EQU 2339
DEF PAD_2 EQU 0
DEF WAIT_2A EQU 37545
DEF WAIT_2B EQU 37545
DEF PAD_3 EQU 3
DEF WAIT_3 EQU 10027
DEF PAD_4 EQU 4
DEF WAIT_4 EQU 65197

SECTION "boot", ROM0[$0000]
Boot:
    ld sp, $fffe
    ld hl, $8000          ; VRAM cleared
    xor a
.clear:
    ld [hl+], a
    bit 5, h              ; until HL = $a000
    jr z, .clear

    ld de, Mark           ; six tiles, each row in both bit planes (colour 3)
    ld hl, $8010
    ld c, 48
.copy:
    ld a, [de]
    inc de
    ld [hl+], a
    ld [hl+], a
    dec c
    jr nz, .copy

    ld a, $ff             ; SB, OBP0, OBP1 and wave RAM as PyBoy powers them on
    ldh [$01], a
    ldh [$48], a
    ldh [$49], a
    ld hl, $ff30
    ld c, 16
.wave:
    ld [hl+], a
    dec c
    jr nz, .wave

    ld a, 1               ; the map entries
    ld [$9908], a
    ld [$990a], a
    ld hl, $9928
    inc a
    ld [hl+], a
    inc a
    ld [hl+], a
    inc a
    ld [hl+], a
    inc a
    ld [hl+], a
    ld a, 3
    ld [hl], a
    ld a, 6
    ld [$9949], a
    ld [$994c], a

    ds PAD_1, 0           ; nops
    ld bc, WAIT_1
    call Wait
    ld a, $91             ; LCD on: this instruction ends at T-cycle 297,912
    ldh [$40], a
    ld a, $fc
    ldh [$47], a
    ld a, $80             ; sound on, channel 1's duty and envelope, panning, volume
    ldh [$26], a
    ldh [$11], a
    ld a, $f3
    ldh [$12], a
    ldh [$25], a
    ld a, $77
    ldh [$24], a

    ds PAD_2, 0
    ld bc, WAIT_2A
    call Wait
    ld bc, WAIT_2B
    call Wait
    ld a, $19             ; the first tone
    ldh [$10], a
    ld a, $81
    ldh [$14], a          ; ends at T-cycle 2,400,672

    ds PAD_3, 0
    ld bc, WAIT_3
    call Wait
    ld a, $13             ; the second tone
    ldh [$10], a
    ld a, $48
    ldh [$13], a
    ld a, $81
    ldh [$14], a          ; ends at T-cycle 2,681,548

    ds PAD_4, $03         ; inc bc: 8 T-cycles a byte (a nop more would only move the
                          ; last nops below, which fill the space up to $fe)
    ld bc, WAIT_4
    call Wait
    jr Handover

; Waits 28 * BC - 4 T-cycles plus the call and return (BC >= 1; A and flags change).
Wait:
    dec bc
    ld a, b
    or c
    jr nz, Wait
    ret

; emurust's mark: six 8x8 tiles, one byte a row.
Mark:
    db %00000000, %01111110, %01000000, %01111100, %01000000, %01111110, %00000000, %00000000
    db %00000000, %01100110, %01111110, %01011010, %01000010, %01000010, %00000000, %00000000
    db %00000000, %01000010, %01000010, %01000010, %01000010, %00111100, %00000000, %00000000
    db %00000000, %01111100, %01000010, %01111100, %01001000, %01000110, %00000000, %00000000
    db %00000000, %00111110, %01000000, %00111100, %00000010, %01111100, %00000000, %00000000
    db %00000000, %01111110, %00011000, %00011000, %00011000, %00011000, %00000000, %00000000

Handover:
    ld hl, $01d0          ; A=$01 F=$D0
    push hl
    pop af
    ld hl, $00b1          ; $b1 $00 left at $fffc-$fffd
    push hl
    pop hl
    ld bc, $0013
    ld de, $008f
    ld hl, $0087
    ds $fe - @, 0         ; nops up to the last instruction
    ldh [$50], a          ; unmapped: ends at T-cycle 4,507,360, the game starts at $0100
