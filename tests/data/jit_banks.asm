; Issue 41: code in switchable ROM banks under the compiled path (tests/jit_events.rs). A DMG
; program on an MBC5 cartridge of four banks (64 KiB); banks 1-3 hold different code at the
; same addresses, each bank's number at $4000. With the timer interrupt on (every 512 M-cycles,
; its handler in bank 0 counting the bank mapped and whether it interrupted code at
; $4000-$7FFF), the main loop, over and over:
;
;   1. maps banks 1, 2, 3 in turn and calls Callee ($4100) in each (calls from bank 0 into
;      bank n);
;   2. calls BankBlock ($1000, bank 0): a straight run that switches the bank at $4000 in its
;      middle (to wNext: 1, 2, 3 in turn), reads $4000 again and jumps to Entry ($4010) in the
;      bank it mapped (a different routine in each bank at the same address), which returns;
;   3. calls Switcher ($4200) in bank wNext: it maps its own bank again (and goes on), then
;      bank wOther (the next one): the instruction after that write (Cont, $4211) is the other
;      bank's, a different routine in each bank, which jumps to Restore in bank 0; Restore
;      maps wBank again and returns to the loop.
;
; What ran is counted in work RAM (8-bit counters per bank, index 1-3): wCallee, wEntry, wCont,
; wIrqBanks (the bank mapped when the timer interrupt came), and wIter (2 bytes), wIrqs
; (2 bytes), wIrqRomx (2 bytes: interrupts of code at $4000-$7FFF), wSum. Fixed addresses (the
; Rust test reads them): BankBlock $1000, Entry $4010, Callee $4100, Switcher $4200, Cont
; $4211, the variables from $D000 in the order below.

DEF rTIMA EQU $FF05
DEF rTMA EQU $FF06
DEF rTAC EQU $FF07
DEF rIF EQU $FF0F
DEF rIE EQU $FFFF
DEF rROMB EQU $2000

DEF Entry EQU $4010
DEF Callee EQU $4100
DEF Switcher EQU $4200
DEF Cont EQU $4211

SECTION "timer", ROM0[$50]
    jp TimerHandler

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "header", ROM0[$134]
    db "JITBANKS"
    ds 7, 0
    ; $143: DMG; licensee; no SGB; MBC5; 64 KiB; no RAM
    db $00, $00, $00, $00, $19, $01, $00

SECTION "vars", WRAMX[$D000]
wIter: ds 2
wIrqs: ds 2
wIrqRomx: ds 2
wBank: ds 1
wNext: ds 1
wOther: ds 1
wSum: ds 1
wCallee: ds 4
wEntry: ds 4
wCont: ds 4
wIrqBanks: ds 4
wVarsEnd:

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $DFFE
    ld hl, wIter
    ld c, wVarsEnd - wIter
    xor a
.clear:
    ld [hl+], a
    dec c
    jr nz, .clear
    ld a, 1
    ld [wNext], a
    ; the timer: a TIMA step per 4 M-cycles, an overflow every 128 steps
    ld a, $80
    ldh [rTMA], a
    ldh [rTIMA], a
    ld a, $05
    ldh [rTAC], a
    ld a, $04
    ldh [rIE], a
    xor a
    ldh [rIF], a
    ei
MainLoop:
    ; 1. Callee in banks 1, 2, 3
    ld a, 1
.calls:
    ld [wBank], a
    ld [rROMB], a
    call Callee
    ld a, [wBank]
    inc a
    cp 4
    jr nz, .calls
    ; 2. a switch inside BankBlock, then Entry in the bank it mapped
    call BankBlock
    ; 3. Switcher in bank wNext, switching to wOther (the next bank)
    ld a, [wNext]
    ld [wBank], a
    ld [rROMB], a
    call NextBank
    ld [wOther], a
    call Switcher
    ld a, [wNext]
    call NextBank
    ld [wNext], a
    ld hl, wIter
    inc [hl]
    jr nz, MainLoop
    inc hl
    inc [hl]
    jr MainLoop

; A % 3 + 1 (for A in 1-3).
NextBank:
    inc a
    cp 4
    ret nz
    ld a, 1
    ret

; Switcher returns through here: map wBank again, return to the loop.
Restore:
    ld a, [wBank]
    ld [rROMB], a
    ret

TimerHandler:
    push af
    push hl
    ; the bank mapped at $4000
    ld a, [$4000]
    add a, LOW(wIrqBanks)
    ld l, a
    ld h, HIGH(wIrqBanks)
    inc [hl]
    ld hl, wIrqs
    inc [hl]
    jr nz, .counted
    inc hl
    inc [hl]
.counted:
    ; the interrupted address's high byte (above HL, AF)
    ld hl, sp + 5
    ld a, [hl]
    cp $40
    jr c, .rom0
    cp $80
    jr nc, .rom0
    ld hl, wIrqRomx
    inc [hl]
    jr nz, .rom0
    inc hl
    inc [hl]
.rom0:
    pop hl
    pop af
    reti

SECTION "bankblock", ROM0[$1000]
BankBlock:
    ld a, [$4000]
    add a, b
    ld b, a
    inc c
    ld a, [wNext]
    ld [rROMB], a
    ld a, [$4000]
    add a, c
    ld c, a
    ld hl, wSum
    add a, [hl]
    ld [hl], a
    inc d
    jp Entry

; ---- bank 1 -------------------------------------------------------------------------------
SECTION "bank1", ROMX[$4000], BANK[1]
    db 1
SECTION "bank1 entry", ROMX[Entry], BANK[1]
    ld hl, wEntry + 1
    inc [hl]
    ld a, b
    add a, 1
    ld b, a
    ret
SECTION "bank1 callee", ROMX[Callee], BANK[1]
    ld hl, wCallee + 1
    inc [hl]
    ld a, [$4000]
    add a, e
    ld e, a
    ret
SECTION "bank1 switcher", ROMX[Switcher], BANK[1]
    inc e
    ld a, 1
    ld [rROMB], a
    ld a, [$4000]
    add a, e
    ld e, a
    ld a, [wOther]
    ld [rROMB], a
    ASSERT @ == Cont
    ; (Cont in bank 1: reached from bank 3's Switcher)
    ld hl, wCont + 1
    inc [hl]
    inc d
    jp Restore

; ---- bank 2 -------------------------------------------------------------------------------
SECTION "bank2", ROMX[$4000], BANK[2]
    db 2
SECTION "bank2 entry", ROMX[Entry], BANK[2]
    ld hl, wEntry + 2
    inc [hl]
    ld a, c
    xor $55
    ld c, a
    inc d
    ret
SECTION "bank2 callee", ROMX[Callee], BANK[2]
    ld hl, wCallee + 2
    inc [hl]
    ld a, [$4000]
    xor e
    ld e, a
    ret
SECTION "bank2 switcher", ROMX[Switcher], BANK[2]
    inc e
    ld a, 2
    ld [rROMB], a
    ld a, [$4000]
    add a, e
    ld e, a
    ld a, [wOther]
    ld [rROMB], a
    ASSERT @ == Cont
    ; (Cont in bank 2: reached from bank 1's Switcher)
    ld hl, wCont + 2
    inc [hl]
    dec d
    dec d
    jp Restore

; ---- bank 3 -------------------------------------------------------------------------------
SECTION "bank3", ROMX[$4000], BANK[3]
    db 3
SECTION "bank3 entry", ROMX[Entry], BANK[3]
    ld hl, wEntry + 3
    inc [hl]
    swap b
    dec e
    ret
SECTION "bank3 callee", ROMX[Callee], BANK[3]
    ld hl, wCallee + 3
    inc [hl]
    ld a, [$4000]
    sub e
    ld e, a
    ret
SECTION "bank3 switcher", ROMX[Switcher], BANK[3]
    inc e
    ld a, 3
    ld [rROMB], a
    ld a, [$4000]
    add a, e
    ld e, a
    ld a, [wOther]
    ld [rROMB], a
    ASSERT @ == Cont
    ; (Cont in bank 3: reached from bank 2's Switcher)
    ld hl, wCont + 3
    inc [hl]
    swap d
    jp Restore
