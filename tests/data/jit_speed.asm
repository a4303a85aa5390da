; Issue 41: the CGB's speed switch (KEY1 prepare, then STOP) around compiled blocks
; (tests/jit_events.rs). A CGB program (header $143 = $80: the machine runs in CGB mode), no
; MBC, the LCD on. Block (a straight block in ROM, as in jit_irqs.asm) is compiled while hot;
; then, each iteration k = 0..K-1 of a sweep running k NOPs (a computed jump into a sled)
; before the block or the STOP:
;
;   phase 1  single speed: the timer interrupt at every M-cycle offset of Block
;   phase 2  speed switches right after Block, k M-cycles later each time, with a timer
;            overflow due 128 M-cycles after a DIV reset (IE=0: no interrupt taken; the
;            overflow lands before, at and after the STOP); every iteration switches speed
;            (and K is even)
;   phase 3  speed switches k M-cycles after a delay from the start of line 143 (LYC=LY,
;            IME=0, HALT): the VBlank one line later lands before, at and after the STOP (in
;            both speeds: the delay is longer in double speed); every iteration switches
;   phase 4  one switch to double speed, then the timer interrupt at every offset of Block
;   phase 5  one switch back to single speed, then the same
;
; Records (8 bytes each at wTable, wRec: the count so far): per timer interrupt the
; interrupted address, k, the phase, B C D, KEY1; per switch of phases 2-3 KEY1 and STAT after
; it, k, the phase, DIV, TIMA, LY, and IF as read just before the STOP. At the end wDone = 1
; and "OK" goes out on serial.
; Fixed addresses (the Rust test reads them): Block $1000 (to BlockEnd), the records
; $C000-$CFFF (512), the variables from $D000 (wK, wRec (2 bytes), wHit, wPhase, wDone,
; wWork).

DEF rSB EQU $FF01
DEF rSC EQU $FF02
DEF rDIV EQU $FF04
DEF rTIMA EQU $FF05
DEF rTMA EQU $FF06
DEF rTAC EQU $FF07
DEF rIF EQU $FF0F
DEF rSTAT EQU $FF41
DEF rLY EQU $FF44
DEF rLYC EQU $FF45
DEF rKEY1 EQU $FF4D
DEF rIE EQU $FFFF

DEF K_TIMER EQU 100
DEF K_SWITCH EQU 80
DEF REC_MAX EQU $200

SECTION "timer", ROM0[$50]
    jp TimerHandler

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "header", ROM0[$134]
    db "JITSPEED"
    ds 7, 0
    ; $143: CGB; licensee; no SGB; ROM only; 32 KiB; no RAM
    db $80, $00, $00, $00, $00, $00, $00

SECTION "records", WRAM0[$C000]
wTable: ds $1000

SECTION "vars", WRAMX[$D000]
wK: ds 1
wRec: ds 2
wHit: ds 1
wPhase: ds 1
wDone: ds 1
wWork: ds 16

SECTION "hram", HRAM[$FF80]
hScratch: ds 4

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $DFFE
    xor a
    ldh [rIF], a
    ldh [rIE], a
    ld hl, wK
    ld c, wWork + 16 - wK
.clear:
    ld [hl+], a
    dec c
    jr nz, .clear
    ; the timer: 16384 Hz (one TIMA step per 64 M-cycles in either speed)
    ld a, $07
    ldh [rTAC], a
    ; warm-up: the blocks are compiled only once hot
    ld c, 40
.warm:
    push bc
    call Block
    pop bc
    dec c
    jr nz, .warm

    ; phase 1: the timer interrupt across Block, single speed
    ld a, 1
    ld [wPhase], a
    call TimerSweep

    ; phase 2: switches right after Block, around a timer overflow
    ld a, 2
    ld [wPhase], a
    xor a
    ld [wK], a
.after_block:
    call SledEntry
    call Arm
    call CallHL
    call Block
    ld a, 1
    ldh [rKEY1], a
    ldh a, [rIF]
    ld e, a
    stop
    call SwitchRecord
    ld a, [wK]
    inc a
    ld [wK], a
    cp K_SWITCH
    jr nz, .after_block

    ; phase 3: switches around the VBlank
    ld a, 3
    ld [wPhase], a
    xor a
    ld [wK], a
.near_vblank:
    call SledEntry
    ld a, $40
    ldh [rSTAT], a
    ld a, 143
    ldh [rLYC], a
    ld a, $02
    ldh [rIE], a
    xor a
    ldh [rIF], a
    halt
    ldh [rIE], a
    ; then about 60 M-cycles (a line is 114 in single speed), or 176 (228 in double speed)
    ldh a, [rKEY1]
    rlca
    ld a, 15
    jr nc, .delay
    ld a, 44
.delay:
    dec a
    jr nz, .delay
    inc a
    ldh [rKEY1], a
    call CallHL
    ldh a, [rIF]
    ld e, a
    stop
    call SwitchRecord
    ld a, [wK]
    inc a
    ld [wK], a
    cp K_SWITCH
    jr nz, .near_vblank

    ; phase 4: double speed, the timer interrupt across Block
    ld a, 4
    ld [wPhase], a
    call Switch
    call TimerSweep

    ; phase 5: back to single speed, the same
    ld a, 5
    ld [wPhase], a
    call Switch
    call TimerSweep

    ; done: the verdict on serial
    ld a, 1
    ld [wDone], a
    ld a, 'O'
    call Serial
    ld a, 'K'
    call Serial
    ld a, 10
    call Serial
.end:
    jr .end

; K_TIMER iterations: the timer interrupt k M-cycles earlier in Block each time.
TimerSweep:
    xor a
    ld [wK], a
.loop:
    di
    call SledEntry
    call Arm
    ld a, $04
    ldh [rIE], a
    ei
    call CallHL
    call Block
    call WaitHit
    ld a, [wK]
    inc a
    ld [wK], a
    cp K_TIMER
    jr nz, .loop
    ret

; Switch speed (IE=0).
Switch:
    di
    xor a
    ldh [rIE], a
    ld a, 1
    ldh [rKEY1], a
    stop
    ret

; HL: the sled's entry for wK NOPs; BC, DE: 0 (the block counts in them).
SledEntry:
    ld a, [wK]
    cpl
    ld l, a
    ld h, HIGH(Sled)
    ld bc, 0
    ld de, 0
    ret

CallHL:
    jp hl

; The timer overflows 2 TIMA steps (128 M-cycles) after the DIV reset, and every 2 steps after.
Arm:
    ldh [rDIV], a
    ld a, $FE
    ldh [rTIMA], a
    ldh [rTMA], a
    xor a
    ldh [rIF], a
    ret

; Send A on serial (internal clock) and wait for the transfer's end.
Serial:
    ldh [rSB], a
    ld a, $81
    ldh [rSC], a
.wait:
    ldh a, [rSC]
    bit 7, a
    jr nz, .wait
    ret

; Wait for the handler (wHit), then interrupts off again.
WaitHit:
    ld a, [wHit]
    and a
    jr z, WaitHit
    di
    xor a
    ld [wHit], a
    ret

; The record's address in HL (and the count moved on), or carry set when past REC_MAX.
NextRecord:
    ld hl, wRec
    ld a, [hl+]
    ld h, [hl]
    ld l, a
    inc hl
    ld a, l
    ld [wRec], a
    ld a, h
    ld [wRec + 1], a
    dec hl
    ld a, h
    cp HIGH(REC_MAX)
    ccf
    ret c
    add hl, hl
    add hl, hl
    add hl, hl
    ld a, h
    add a, HIGH(wTable)
    ld h, a
    and a
    ret

; After a switch: KEY1, STAT, k, the phase, DIV, TIMA, LY, then E (IF read just before the
; STOP).
SwitchRecord:
    ldh a, [rDIV]
    ld b, a
    ldh a, [rTIMA]
    ld c, a
    ldh a, [rLY]
    ld d, a
    call NextRecord
    ret c
    ldh a, [rKEY1]
    ld [hl+], a
    ldh a, [rSTAT]
    ld [hl+], a
    ld a, [wK]
    ld [hl+], a
    ld a, [wPhase]
    ld [hl+], a
    ld a, b
    ld [hl+], a
    ld a, c
    ld [hl+], a
    ld a, d
    ld [hl+], a
    ld [hl], e
    ret

TimerHandler:
    push af
    ; one interrupt per iteration
    xor a
    ldh [rIE], a
    push hl
    push de
    push bc
    call NextRecord
    jr c, .full
    ; the interrupted address (above AF HL DE BC and this handler's own)
    ld d, h
    ld e, l
    ld hl, sp + 8
    ld a, [hl+]
    ld [de], a
    inc de
    ld a, [hl]
    ld [de], a
    inc de
    ld a, [wK]
    ld [de], a
    inc de
    ld a, [wPhase]
    ld [de], a
    inc de
    ; B C D, KEY1 (the speed)
    ld hl, sp + 1
    ld a, [hl-]
    ld [de], a
    inc de
    ld a, [hl+]
    ld [de], a
    inc de
    inc hl
    inc hl
    ld a, [hl]
    ld [de], a
    inc de
    ldh a, [rKEY1]
    ld [de], a
.full:
    ld a, 1
    ld [wHit], a
    pop bc
    pop de
    pop hl
    pop af
    reti

SECTION "block", ROM0[$1000]
; The straight block: every instruction moves B, C, D or E on, so a record shows how far it
; got; the read of STAT goes through the bus at its M-cycle.
Block:
    ld a, [wWork]
    add a, b
    ld [wWork], a
    inc b
    push bc
    ld hl, wWork + 1
    ld [hl+], a
    xor c
    inc c
    ldh [hScratch], a
    pop de
    ldh a, [rSTAT]
    add a, e
    inc d
    call BlockSub
    ld [hl+], a
    inc e
    ldh a, [hScratch + 1]
    adc a, d
    ldh [hScratch + 1], a
    inc b
    ret
BlockSub:
    ld a, [hl]
    adc a, c
    inc l
    inc c
    ret
BlockEnd:

SECTION "sled", ROM0[$3000]
; Entered at Sled + 255 - k: k NOPs, then the RET.
Sled:
    ds 255, 0
SledEnd:
    ret
