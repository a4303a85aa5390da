; Issue 41: code that changes under the compiled path (tests/jit_targeted.rs). A DMG program on
; an MBC5 cartridge of two banks (32 KiB), padded with $C9 (RET), so bank 1 at $4000-$7FFF is
; all RET. The main loop calls, 40 times per pass and over and over, with the VBlank interrupt on:
;
;   WSmc     ($C000) a routine in work RAM that rewrites its own next instruction: first its
;            immediate (LD C, n with n = B), then its opcode (INC D <-> DEC D);
;   WFrameA  ($C100) a routine in work RAM whose operand and opcode the VBlank handler patches
;            every frame (ADD A, n / SUB n, n = frame & 3: eight versions, over and over);
;   WFrameB  ($C200) the same with the frame counter as operand (a new version every frame);
;   BankBlock ($1000, bank 0) a straight run that reads $4000-$7FFF, switches the bank at
;            $4000 in its middle (bank 0 and 1 in turn), reads the same addresses again and calls
;            $5100: BankRoutine when bank 0 is mapped there, a RET when bank 1 is;
;   BankRoutine ($1100) the same code called at its own address (through JP HL).
;
; What ran is kept in work RAM: the counters wCalls (loop iterations), wBankCalls (BankRoutine
; runs), the sums wAccA, wAccB, wBankSum, wSmcOut, wWhere (the high bytes of the addresses
; BankRoutine ran at), and per frame (wLog + (frame & 63) * 8):
; B C D E wAccA wAccB wBankSum frame. Fixed addresses (the Rust test reads them): the variables
; from $D000 in the order below.

DEF rIF EQU $FF0F
DEF rIE EQU $FFFF

DEF WSmc EQU $C000
DEF WFrameA EQU $C100
DEF WFrameB EQU $C200

SECTION "vblank", ROM0[$40]
    jp VBlank

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "header", ROM0[$134]
    db "JITSMC"
    ds 9, 0
    ; $143: DMG; licensee; no SGB; MBC5; 32 KiB; no RAM; overseas; old licensee; version
    db $00, $00, $00, $00, $19, $00, $00, $01, $00, $00

SECTION "vars", WRAMX[$D000]
wCalls: ds 2
wBankCalls: ds 2
wBankSel: ds 1
wAccA: ds 1
wAccB: ds 1
wBankSum: ds 1
wSmcOut: ds 1
wLog: ds 64 * 8
wWhere: ds 1

SECTION "hram", HRAM[$FF80]
hFrame: ds 1
hLoop: ds 1
hScratch: ds 1

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $DFFE
    ; the routines into work RAM
    ld hl, SmcSrc
    ld de, WSmc
    ld c, SmcEnd - SmcSrc
    call Copy
    ld hl, FrameASrc
    ld de, WFrameA
    ld c, FrameAEnd - FrameASrc
    call Copy
    ld hl, FrameBSrc
    ld de, WFrameB
    ld c, FrameBEnd - FrameBSrc
    call Copy
    ; the variables
    ld hl, wCalls
    ld bc, wWhere + 1 - wCalls
.clear:
    xor a
    ld [hl+], a
    dec bc
    ld a, b
    or c
    jr nz, .clear
    ldh [hFrame], a
    ld a, 1
    ld [$2000], a
    ldh [rIE], a
    xor a
    ldh [rIF], a
    ei
MainLoop:
    ld bc, 0
    ld de, 0
    ld a, 40
    ldh [hLoop], a
.inner:
    call WSmc
    call WFrameA
    call WFrameB
    call BankBlock
    ; BankRoutine through a computed jump: the run engine enters it at $1100 itself
    ld hl, BankRoutine
    call CallHL
    ld hl, wCalls
    inc [hl]
    jr nz, .counted
    inc hl
    inc [hl]
.counted:
    ldh a, [hLoop]
    dec a
    ldh [hLoop], a
    jr nz, .inner
    jr MainLoop

CallHL:
    jp hl

; Copy C bytes from HL to DE.
Copy:
    ld a, [hl+]
    ld [de], a
    inc de
    dec c
    jr nz, Copy
    ret

; Patches WFrameA and WFrameB for the new frame, and logs the frame.
VBlank:
    push af
    push hl
    ldh a, [hFrame]
    inc a
    ldh [hFrame], a
    ld [WFrameB + FrameBImm - FrameBSrc + 1], a
    ld l, a
    and 3
    ld [WFrameA + FrameAImm - FrameASrc + 1], a
    ld a, l
    and 4
    ld a, $C6 ; ADD A, n
    jr z, .add
    ld a, $D6 ; SUB n
.add:
    ld [WFrameA + FrameAImm - FrameASrc], a
    ; the log entry: wLog + (frame & 63) * 8
    push de
    ld a, l
    and 63
    ld l, a
    ld h, 0
    add hl, hl
    add hl, hl
    add hl, hl
    ld de, wLog
    add hl, de
    ld a, b
    ld [hl+], a
    ld a, c
    ld [hl+], a
    pop de
    ld a, d
    ld [hl+], a
    ld a, e
    ld [hl+], a
    ld a, [wAccA]
    ld [hl+], a
    ld a, [wAccB]
    ld [hl+], a
    ld a, [wBankSum]
    ld [hl+], a
    ldh a, [hFrame]
    ld [hl], a
    pop hl
    pop af
    reti

; Copied to WSmc. Rewrites the immediate of the instruction after the write, then the opcode
; of the instruction after that write.
SmcSrc:
    ld a, b
    ld [WSmc + SmcImm - SmcSrc + 1], a
SmcImm:
    ld c, $00
    ld a, c
    add a, e
    ld e, a
    ld hl, WSmc + SmcOp - SmcSrc
    ld a, [hl]
    xor $01 ; INC D ($14) <-> DEC D ($15)
    ld [hl], a
SmcOp:
    inc d
    inc b
    ld a, d
    xor e
    ld [wSmcOut], a
    ret
SmcEnd:

; Copied to WFrameA; the VBlank handler patches the opcode and operand at FrameAImm.
FrameASrc:
    ld a, c
FrameAImm:
    add a, $00
    ld c, a
    inc b
    ld a, [wAccA]
    add a, c
    ld [wAccA], a
    ret
FrameAEnd:

; Copied to WFrameB; the VBlank handler patches the operand at FrameBImm.
FrameBSrc:
FrameBImm:
    ld a, $00
    add a, d
    ld d, a
    ld hl, wAccB
    add a, [hl]
    ld [hl], a
    ret
FrameBEnd:

BankData:
    db $5A, $A7

SECTION "bankblock", ROM0[$1000]
; Bank 0 or 1 at $4000 in turn (MBC5), switched in the middle of the run.
BankBlock:
    ld a, [$4000 + BankData]
    add a, c
    ld c, a
    ld a, [wBankSel]
    xor 1
    ld [wBankSel], a
    ld [$2000], a
    ld a, [$4000 + BankData]
    add a, c
    ld c, a
    ld a, [$4000 + BankData + 1]
    xor d
    ld d, a
    push bc
    ld hl, wBankSum
    ld a, [hl]
    add a, c
    ld [hl], a
    pop bc
    call $4000 + BankRoutine
    inc e
    ld a, e
    ldh [hScratch], a
    ret

SECTION "bankroutine", ROM0[$1100]
; Runs at $1100, and at $5100 while bank 0 is mapped at $4000 (which wWhere sums).
BankRoutine:
    ; where it runs: the CALL pushes $11xx or $51xx (and goes on in bank 0 at .where)
    call .where
.where:
    pop hl
    ld a, [wWhere]
    add a, h
    ld [wWhere], a
    ld hl, wBankCalls
    inc [hl]
    jr nz, .counted
    inc hl
    inc [hl]
.counted:
    ld a, b
    add a, 3
    ld b, a
    ret
