; Issue 41: events arriving at every M-cycle offset of a compiled block (tests/jit_targeted.rs).
; A DMG program (no MBC), LCD off. Each sweep runs iteration k = 0..K-1: an event is armed, then
; k NOPs (a computed jump into a sled), then a straight block of ordinary instructions in ROM
; (loads, ALU, WRAM/HRAM stores, PUSH/POP, a CALL/RET), so the event lands k M-cycles earlier in
; the block each time: after it, at every instruction boundary inside it, before it.
;
;   phase 1  timer interrupt (IME=1) into Block
;   phase 2  timer interrupt waking a HALT at the end of HaltBlock (IME=1)
;   phase 3  the same with IME=0 (HALT exits without a handler; the HALT bug when the request
;            came before the HALT: the INC B after it runs twice)
;   phase 4  OAM DMA (source VRAM, so the CPU keeps ROM and work RAM) started k M-cycles
;            before six calls of DmaBlock: the DMA ends at every offset of one; then DmaMid,
;            which starts a DMA itself in its middle and reads OAM, work RAM and ROM under it
;
; Every timer interrupt and every iteration of phases 3-4 stores a 16-byte record at wTable
; (wRec: the count so far): C B E D L H F A, the interrupted (or Record's return) address,
; DIV, TIMA, IF, k, the phase. At the end wDone = 1 and "OK" goes out on serial.
; Fixed addresses (the Rust test reads them): Block $1000, HaltBlock $1100, DmaBlock $1200,
; DmaMid $1300, the records $C000-$DDFF (480), the variables from $DE00
; (wK, wRec (2 bytes), wHit, wPhase, wDone, wHits (2 bytes), wWork).

DEF rSB EQU $FF01
DEF rSC EQU $FF02
DEF rDIV EQU $FF04
DEF rTIMA EQU $FF05
DEF rTMA EQU $FF06
DEF rTAC EQU $FF07
DEF rIF EQU $FF0F
DEF rLCDC EQU $FF40
DEF rDMA EQU $FF46
DEF rIE EQU $FFFF

DEF K_TIMER EQU 100
DEF K_DMA EQU 96
; the records kept: $C000-$DDFF
DEF REC_MAX EQU $1E0

SECTION "timer", ROM0[$50]
    jp TimerHandler

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "title", ROM0[$134]
    db "JITOFFSETS"

SECTION "records", WRAM0[$C000]
wTable: ds $1000

SECTION "records2", WRAMX[$D000]
wTable2: ds $0E00

SECTION "vars", WRAMX[$DE00]
wK: ds 1
wRec: ds 2
wHit: ds 1
wPhase: ds 1
wDone: ds 1
wHits: ds 2
wWork: ds 16

SECTION "hram", HRAM[$FF80]
hScratch: ds 4

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $DFFE
    xor a
    ldh [rLCDC], a
    ldh [rIF], a
    ld [wRec], a
    ld [wRec + 1], a
    ld [wHit], a
    ld [wPhase], a
    ld [wDone], a
    ld [wHits], a
    ld [wHits + 1], a
    ; the DMA source: 160 bytes of VRAM (i * 7 + 3)
    ld hl, $8000
    ld a, 3
    ld c, 160
.vram:
    ld [hl+], a
    add a, 7
    dec c
    jr nz, .vram
    ; the timer: 16384 Hz (one TIMA step per 64 M-cycles), only its interrupt enabled
    ld a, $07
    ldh [rTAC], a
    ld a, $04
    ldh [rIE], a
    ; warm-up: the blocks are compiled only once hot
    ld c, 40
.warm:
    push bc
    call Block
    pop bc
    dec c
    jr nz, .warm

    ; phase 1: the timer interrupt at every offset of Block
    ld a, 1
    ld [wPhase], a
    xor a
    ld [wK], a
.timer:
    di
    ld bc, 0
    ld de, 0
    call Arm
    ei
    call SledJump
    call Block
    call WaitHit
    ld a, [wK]
    inc a
    ld [wK], a
    cp K_TIMER
    jr nz, .timer

    ; phase 2: the timer interrupt around the HALT ending HaltBlock, IME=1
    ld a, 2
    ld [wPhase], a
    xor a
    ld [wK], a
.halt1:
    di
    ld bc, 0
    ld de, 0
    call Arm
    ei
    call SledJump
    call HaltBlock
    call WaitHit
    ld a, [wK]
    inc a
    ld [wK], a
    cp K_TIMER
    jr nz, .halt1

    ; phase 3: the same with IME=0: HALT ends without a handler (or does not halt: the bug)
    ld a, 3
    ld [wPhase], a
    xor a
    ld [wK], a
.halt0:
    di
    ld bc, 0
    ld de, 0
    call Arm
    call SledJump
    call HaltBlock
    call Record
    ld a, [wK]
    inc a
    ld [wK], a
    cp K_TIMER
    jr nz, .halt0

    ; phase 4: OAM DMA ending at every offset of DmaBlock, then a DMA from inside a block
    ld a, 4
    ld [wPhase], a
    xor a
    ld [wK], a
    ldh [rIE], a
.dma:
    ld bc, 0
    ld de, 0
    ld a, $80
    ldh [rDMA], a
    call SledJump
    call DmaBlock
    call DmaBlock
    call DmaBlock
    call DmaBlock
    call DmaBlock
    call DmaBlock
    call DmaMid
    call Record
    ld a, [wK]
    inc a
    ld [wK], a
    cp K_DMA
    jr nz, .dma

    ; done: wait for the last DMA, then the verdict on serial
    ld c, 200
.drain:
    dec c
    jr nz, .drain
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

; The timer overflows 2 TIMA steps (128 M-cycles) after the DIV reset, and every 2 steps after.
Arm:
    ldh [rDIV], a
    ld a, $FE
    ldh [rTIMA], a
    ldh [rTMA], a
    xor a
    ldh [rIF], a
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

; Runs [wK] NOPs, then returns (a jump into the sled, whose RET ends this call). Keeps BC, DE.
SledJump:
    ld a, [wK]
    cpl
    ld l, a
    ld h, HIGH(Sled)
    jp hl

TimerHandler:
    push af
    ; the next overflow 16 steps (1024 M-cycles) away: longer than the handler
    ld a, $F0
    ldh [rTIMA], a
    push hl
    push de
    push bc
    call Store
    ld a, 1
    ld [wHit], a
    pop bc
    pop de
    pop hl
    pop af
    reti

; A record of the registers as they are, with Record's return address.
Record:
    push af
    push hl
    push de
    push bc
    call Store
    pop bc
    pop de
    pop hl
    pop af
    ret

; Called with C B E D L H F A and the caller's return address on the stack above its own.
Store:
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
    ; records past REC_MAX are counted (wHits) but not kept
    ld a, h
    cp HIGH(REC_MAX)
    jr c, .keep
    jr nz, .skip
    ld a, l
    cp LOW(REC_MAX)
    jr nc, .skip
.keep:
    add hl, hl
    add hl, hl
    add hl, hl
    add hl, hl
    ld de, wTable
    add hl, de
    ld d, h
    ld e, l
    ld hl, sp + 2
    ld c, 10
.copy:
    ld a, [hl+]
    ld [de], a
    inc de
    dec c
    jr nz, .copy
    ldh a, [rDIV]
    ld [de], a
    inc de
    ldh a, [rTIMA]
    ld [de], a
    inc de
    ldh a, [rIF]
    ld [de], a
    inc de
    ld a, [wK]
    ld [de], a
    inc de
    ld a, [wPhase]
    ld [de], a
.skip:
    ld hl, wHits
    inc [hl]
    jr nz, .done
    inc hl
    inc [hl]
.done:
    ret

RomData:
    db $3C, $A5, $0F, $77

SECTION "block", ROM0[$1000]
; The straight block: every instruction moves B, C, D or E on, so a record shows how far it got.
Block:
    ld a, [wWork]
    add a, b
    ld [wWork], a
    inc b
    push bc
    ld hl, wWork + 1
    ld [hl+], a
    xor c
    ld [hl+], a
    inc c
    ldh [hScratch], a
    pop de
    ld a, [RomData]
    add a, e
    inc d
    call BlockSub
    ld [hl+], a
    inc e
    ldh a, [hScratch + 1]
    adc a, d
    ldh [hScratch + 1], a
    inc b
    ld a, d
    ret
BlockSub:
    ld a, [hl]
    adc a, c
    inc l
    swap a
    inc c
    ret

SECTION "haltblock", ROM0[$1100]
HaltBlock:
    ld a, [wWork + 4]
    add a, b
    ld [wWork + 4], a
    inc b
    push bc
    ld hl, wWork + 5
    ld [hl+], a
    inc c
    ldh [hScratch + 2], a
    pop de
    inc d
    ld a, [RomData + 1]
    xor e
    inc e
    ld [hl], a
    inc c
    halt
    inc b
    ret

SECTION "dmablock", ROM0[$1200]
; Reads OAM ($FF under a DMA) eight times, work RAM, HRAM and ROM; BC, DE and wWork sum what
; it read.
DmaBlock:
    ld a, [$FE00]
    add a, b
    ld b, a
    ld a, [$FE10]
    xor c
    ld c, a
    ld hl, wWork + 8
    ld a, [hl]
    add a, c
    ld [hl+], a
    ld a, [$FE20]
    add a, d
    ld d, a
    ldh a, [hScratch + 3]
    xor b
    ldh [hScratch + 3], a
    ld a, [$FE30]
    add a, e
    ld e, a
    ld a, [RomData + 2]
    add a, b
    ld b, a
    push de
    ld a, [$FE40]
    xor [hl]
    ld [hl+], a
    pop de
    ld a, [$FE50]
    add a, c
    ld c, a
    ld a, [$FE60]
    xor d
    ld d, a
    ld a, [$FE9F]
    add a, e
    ld e, a
    ret

SECTION "dmamid", ROM0[$1300]
; Starts an OAM DMA half-way through, then reads OAM, work RAM and ROM under it.
DmaMid:
    ld a, [$FE02]
    add a, b
    ld b, a
    inc c
    ld a, [wWork + 12]
    add a, c
    ld [wWork + 12], a
    ld a, $80
    ldh [rDMA], a
    inc e
    ld a, [$FE03]
    add a, d
    ld d, a
    ld a, [wWork + 13]
    xor b
    ld [wWork + 13], a
    ld a, [RomData + 3]
    add a, e
    ld e, a
    ld a, [$FE04]
    add a, c
    ld c, a
    ret

SECTION "sled", ROM0[$3000]
; Entered at Sled + 255 - k: k NOPs, then the RET.
Sled:
    ds 255, 0
SledEnd:
    ret
