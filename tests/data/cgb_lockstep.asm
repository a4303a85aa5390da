; A CGB program for the lockstep against PyBoy(cgb=True). It switches to double speed, then
; every frame, driven by the buttons, uses what the CGB adds: palettes through BCPD/OCPD,
; VRAM bank 1's tiles and attributes, WRAM banks 1-7, general-purpose and HBlank DMA.

SECTION "vblank", ROM0[$40]
    push af
    ldh a, [hFrame]
    inc a
    ldh [hFrame], a
    pop af
    reti

SECTION "stat", ROM0[$48]
    reti

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "title", ROM0[$134]
    db "CGBLOCKSTEP"

SECTION "cgbflag", ROM0[$143]
    db $80

SECTION "hram", HRAM[$FF80]
hFrame: ds 1
hJoy: ds 1
hPrev: ds 1
hSelect: ds 1
hDma: ds 16

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $FFFE
.wait:
    ldh a, [$44]
    cp 144
    jr c, .wait
    xor a
    ldh [$40], a
    ; double speed, switched with the LCD off (as games do)
    ld a, 1
    ldh [$4D], a
    stop
    ; 16 tiles in each VRAM bank, from two formulas
    ld hl, $8000
    ld c, 0
.tiles0:
    ld a, c
    swap a
    xor c
    ld [hl+], a
    inc c
    jr nz, .tiles0
    ld a, 1
    ldh [$4F], a
    ld hl, $8000
    ld c, 0
.tiles1:
    ld a, c
    rlca
    xor $5A
    ld [hl+], a
    inc c
    jr nz, .tiles1
    ; the attribute map (VRAM bank 1): palette, bank, flips
    ld hl, $9800
    ld bc, $0400
.attr:
    ld a, l
    add a, h
    and $6F
    ld [hl+], a
    dec bc
    ld a, b
    or c
    jr nz, .attr
    xor a
    ldh [$4F], a
    ; the tile map (VRAM bank 0): tiles 0-15
    ld hl, $9800
    ld bc, $0400
.map:
    ld a, l
    xor h
    and $0F
    ld [hl+], a
    dec bc
    ld a, b
    or c
    jr nz, .map
    ; all 8 BG and 8 OBJ palettes, auto-increment
    ld a, $80
    ldh [$68], a
    ld c, 64
    ld a, 11
.bgpal:
    ldh [$69], a
    add a, 37
    dec c
    jr nz, .bgpal
    ld a, $80
    ldh [$6A], a
    ld c, 64
    ld a, 5
.obpal:
    ldh [$6B], a
    add a, 53
    dec c
    jr nz, .obpal
    ; 40 objects in the shadow OAM at $C100
    ld hl, $C100
    ld b, 0
.oam:
    ld a, b
    add a, a
    add a, b
    add a, 16
    ld [hl+], a
    ld a, b
    add a, a
    add a, a
    add a, 8
    ld [hl+], a
    ld a, b
    and $0F
    ld [hl+], a
    ld a, b
    and $2F
    ld [hl+], a
    inc b
    ld a, b
    cp 40
    jr nz, .oam
    ; the OAM DMA routine runs from HRAM
    ld hl, DmaRoutine
    ld de, hDma
    ld c, DmaEnd - DmaRoutine
.copy:
    ld a, [hl+]
    ld [de], a
    inc de
    dec c
    jr nz, .copy
    ; WRAM banks 1-7: $D000-$D0FF of bank k hold k * 16 + i
    ld b, 1
.banks:
    ld a, b
    ldh [$70], a
    ld hl, $D000
    ld c, 0
.bfill:
    ld a, b
    swap a
    add a, c
    ld [hl+], a
    inc c
    jr nz, .bfill
    inc b
    ld a, b
    cp 8
    jr nz, .banks
    xor a
    ldh [hFrame], a
    ldh [hJoy], a
    ldh [hPrev], a
    ldh [hSelect], a
    ldh [$42], a
    ldh [$43], a
    ld a, $93
    ldh [$40], a
    ; VBlank, and the STAT interrupt at LY = LYC = 4
    ld a, 4
    ldh [$45], a
    ld a, $40
    ldh [$41], a
    ld a, $03
    ldh [$FF], a
    xor a
    ldh [$0F], a
    ei
Main:
    halt
    nop
    call Line4
    halt
    nop
    call Frame
    jr Main

; At line 4, if Select was newly pressed: an HBlank DMA of 2 blocks into tiles 16-17 (not
; shown), the CPU awake (HDMA is inactive during HALT) until both went, at lines 4 and 5.
Line4:
    ldh a, [hSelect]
    and a
    ret z
    ld a, $C2
    ldh [$51], a
    xor a
    ldh [$52], a
    ld a, $81
    ldh [$53], a
    xor a
    ldh [$54], a
    ld a, $81
    ldh [$55], a
.wait:
    ldh a, [$55]
    cp $FF
    jr nz, .wait
    xor a
    ldh [hSelect], a
    ret

; One frame's work, at the start of VBlank: b = the buttons held (bits 7-4 down, up,
; left, right; 3-0 start, select, B, A), c = those newly pressed.
Frame:
    ld a, $20
    ldh [$00], a
    ldh a, [$00]
    ldh a, [$00]
    cpl
    and $0F
    swap a
    ld b, a
    ld a, $10
    ldh [$00], a
    ldh a, [$00]
    ldh a, [$00]
    ldh a, [$00]
    cpl
    and $0F
    or b
    ld b, a
    ld a, $30
    ldh [$00], a
    ldh a, [hJoy]
    ldh [hPrev], a
    cpl
    and b
    ld c, a
    ld a, b
    ldh [hJoy], a
    ; OAM DMA from the shadow OAM
    ld a, $C1
    call hDma
    ; one BG palette a frame, 8 bytes from the frame count and the buttons
    ldh a, [hFrame]
    and 7
    add a, a
    add a, a
    add a, a
    or $80
    ldh [$68], a
    ldh a, [hFrame]
    ld d, 8
.pal:
    ldh [$69], a
    add a, b
    add a, 29
    dec d
    jr nz, .pal
    ; 16 bytes at $C200 from the frame count and the buttons, copied by general-purpose
    ; DMA to one of the shown tiles, in VRAM bank (frame >> 6) & 1
    ld hl, $C200
    ldh a, [hFrame]
    ld d, 16
.src:
    ld [hl+], a
    add a, b
    inc a
    dec d
    jr nz, .src
    ldh a, [hFrame]
    rlca
    rlca
    and 1
    ldh [$4F], a
    ld a, $C2
    ldh [$51], a
    xor a
    ldh [$52], a
    ld a, $80
    ldh [$53], a
    ldh a, [hFrame]
    swap a
    and $F0
    ldh [$54], a
    xor a
    ldh [$55], a
    ; one attribute byte a frame
    ld a, 1
    ldh [$4F], a
    ldh a, [hFrame]
    ld l, a
    ld h, $98
    xor b
    and $6F
    ld [hl], a
    xor a
    ldh [$4F], a
    ; Select: an HBlank DMA at line 4 (Line4)
    ld a, c
    and $04
    ldh [hSelect], a
    ; the d-pad scrolls
    bit 4, b
    jr z, .noright
    ldh a, [$43]
    inc a
    ldh [$43], a
.noright:
    bit 5, b
    jr z, .noleft
    ldh a, [$43]
    dec a
    ldh [$43], a
.noleft:
    bit 6, b
    jr z, .noup
    ldh a, [$42]
    dec a
    ldh [$42], a
.noup:
    bit 7, b
    jr z, .nodown
    ldh a, [$42]
    inc a
    ldh [$42], a
.nodown:
    ; A moves the first 10 objects right
    bit 0, b
    jr z, .noA
    ld hl, $C101
    ld d, 10
.movex:
    inc [hl]
    ld a, l
    add a, 4
    ld l, a
    dec d
    jr nz, .movex
.noA:
    ; every WRAM bank 1-7: a byte changed, their sum kept in bank 0
    ld e, 0
    ld d, 1
.wbank:
    ld a, d
    ldh [$70], a
    ld h, $D0
    ldh a, [hFrame]
    ld l, a
    ld a, [hl]
    add a, d
    add a, b
    ld [hl], a
    add a, e
    ld e, a
    inc d
    ld a, d
    cp 8
    jr nz, .wbank
    ld a, e
    ld [$C000], a
    ldh a, [$70]
    ld [$C001], a
    ; BCD arithmetic and its flags
    ldh a, [hFrame]
    add a, b
    daa
    push af
    pop hl
    ld a, h
    ld [$C002], a
    ld a, l
    ld [$C003], a
    ; Start: 8x16 objects on or off
    bit 3, c
    ret z
    ldh a, [$40]
    xor $04
    ldh [$40], a
    ret

DmaRoutine:
    ldh [$46], a
    ld a, 40
.w:
    dec a
    jr nz, .w
    ret
DmaEnd:
