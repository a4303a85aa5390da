; Issue 41: interrupts of every source but the timer (jit_offsets.asm has it) arriving at every
; M-cycle offset of a compiled block (tests/jit_events.rs). A DMG program (no MBC), the
; LCD on. Each sweep runs iteration k = 0..K-1: the CPU synchronises with the event's source,
; then runs k NOPs (a computed jump into a sled) and a straight block of ordinary instructions
; in ROM (loads, ALU, WRAM/HRAM stores, PUSH/POP, a CALL/RET, a read of STAT), so that the
; event lands k M-cycles earlier in the block each time: after it, at every instruction
; boundary inside it, before it.
;
;   phase 1  VBlank: synchronised on line 143's start (LYC=LY, IME=0, HALT); the VBlank
;            interrupt comes one line later
;   phase 2  STAT, LYC=LY: synchronised on line 60's start, LYC moved to 61
;   phase 3  STAT, mode 0 (HBlank): synchronised on line 60's start, then on its HBlank; the
;            interrupt comes at line 61's
;   phase 4  serial: a transfer on the internal clock started right after a DIV reset, the
;            interrupt at its end about 1024 M-cycles later (a delay loop, then the sled)
;   phase 5  joypad: synchronised as phase 1; the test's input callback presses a button
;            before every frame (a frame ends where VBlank starts), so the interrupt comes
;            where the VBlank interrupt of phase 1 comes
;
; Every interrupt stores an 8-byte record at wTable (wRec: the count so far): the interrupted
; address, k, the phase, B C D E. The handler clears IE, so one interrupt per iteration. At
; the end wDone = 1 and "OK" goes out on serial.
; Fixed addresses (the Rust test reads them): Block $1000 (to BlockEnd), the records
; $C000-$CFFF (512), the variables from $D000 (wK, wRec (2 bytes), wHit, wPhase, wDone, wWork).

DEF rP1 EQU $FF00
DEF rSB EQU $FF01
DEF rSC EQU $FF02
DEF rDIV EQU $FF04
DEF rIF EQU $FF0F
DEF rLCDC EQU $FF40
DEF rSTAT EQU $FF41
DEF rLY EQU $FF44
DEF rLYC EQU $FF45
DEF rIE EQU $FFFF

DEF K_SWEEP EQU 100
DEF REC_MAX EQU $200
; phase 4: 4 M-cycles per turn of the delay loop
DEF SERIAL_DELAY EQU 232

SECTION "vblank", ROM0[$40]
    jp IrqHandler
SECTION "stat", ROM0[$48]
    jp IrqHandler
SECTION "serial", ROM0[$58]
    jp IrqHandler
SECTION "joypad", ROM0[$60]
    jp IrqHandler

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "title", ROM0[$134]
    db "JITIRQS"

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
; the sweep's parameters: the line it synchronises on, LYC after that, the interrupt it
; enables, whether it then waits for the line's HBlank
hLine: ds 1
hNext: ds 1
hSrc: ds 1
hMode0: ds 1

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
    ; the joypad's action buttons selected (phase 5)
    ld a, $10
    ldh [rP1], a
    ; warm-up: the blocks are compiled only once hot
    ld c, 40
.warm:
    push bc
    call Block
    pop bc
    dec c
    jr nz, .warm

    ; phase 1: VBlank
    ld a, 1
    ld [wPhase], a
    ld a, 143
    ldh [hLine], a
    ldh [hNext], a
    ld a, $01
    ldh [hSrc], a
    xor a
    ldh [hMode0], a
    call Sweep

    ; phase 2: STAT, LYC=LY
    ld a, 2
    ld [wPhase], a
    ld a, 60
    ldh [hLine], a
    inc a
    ldh [hNext], a
    ld a, $02
    ldh [hSrc], a
    call Sweep

    ; phase 3: STAT, mode 0
    ld a, 3
    ld [wPhase], a
    ld a, 60
    ldh [hLine], a
    ld a, $FF
    ldh [hNext], a
    ldh [hMode0], a
    call Sweep

    ; phase 4: serial
    ld a, 4
    ld [wPhase], a
    xor a
    ld [wK], a
.serial:
    di
    call SledEntry
    ld a, [wK]
    ldh [rSB], a
    ldh [rDIV], a
    ld a, $81
    ldh [rSC], a
    ld a, $08
    ldh [rIE], a
    xor a
    ldh [rIF], a
    ld a, SERIAL_DELAY
.delay:
    dec a
    jr nz, .delay
    ei
    call CallHL
    call Block
    call WaitHit
    ld a, [wK]
    inc a
    ld [wK], a
    cp K_SWEEP
    jr nz, .serial

    ; phase 5: joypad
    ld a, 5
    ld [wPhase], a
    ld a, 143
    ldh [hLine], a
    ldh [hNext], a
    ld a, $10
    ldh [hSrc], a
    xor a
    ldh [hMode0], a
    call Sweep

    ; done: the verdict on serial
    di
    xor a
    ldh [rIE], a
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

; One sweep of K_SWEEP iterations with the parameters in hLine, hNext, hSrc, hMode0.
Sweep:
    xor a
    ld [wK], a
.loop:
    di
    call SledEntry
    ; the start of line hLine (IME=0: HALT just waits for it)
    ld a, $40
    ldh [rSTAT], a
    ldh a, [hLine]
    ldh [rLYC], a
    ld a, $02
    ldh [rIE], a
    xor a
    ldh [rIF], a
    halt
    ldh a, [hNext]
    ldh [rLYC], a
    ldh a, [hMode0]
    and a
    jr z, .go
    ; then its HBlank (STAT written in mode 2, LY != LYC: no spurious interrupt)
    ld a, $08
    ldh [rSTAT], a
    xor a
    ldh [rIF], a
    halt
.go:
    ldh a, [hSrc]
    ldh [rIE], a
    xor a
    ldh [rIF], a
    ei
    call CallHL
    call Block
    call WaitHit
    ld a, [wK]
    inc a
    ld [wK], a
    cp K_SWEEP
    jr nz, .loop
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

IrqHandler:
    push af
    ; one interrupt per iteration
    xor a
    ldh [rIE], a
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

; Called from the handler: C B E D L H F A and the interrupted address on the stack above its
; return address. Stores the address, k, the phase, B C D E.
Store:
    ld hl, wRec
    ld a, [hl+]
    ld h, [hl]
    ld l, a
    ; records past REC_MAX are counted but not kept
    ld a, h
    cp HIGH(REC_MAX)
    jr nc, .skip
    add hl, hl
    add hl, hl
    add hl, hl
    ld de, wTable
    add hl, de
    ld d, h
    ld e, l
    ; the interrupted address
    ld hl, sp + 10
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
    ; B C D E
    ld hl, sp + 3
    ld a, [hl-]
    ld [de], a
    inc de
    ld a, [hl+]
    ld [de], a
    inc de
    inc hl
    inc hl
    ld a, [hl-]
    ld [de], a
    inc de
    ld a, [hl]
    ld [de], a
.skip:
    ld hl, wRec
    inc [hl]
    jr nz, .done
    inc hl
    inc [hl]
.done:
    ret

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
