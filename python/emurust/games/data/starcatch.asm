; Starcatch: a catch-and-dodge game for the Game Boy (DMG), written for emurust's RL
; environments (emurust.games.STARCATCH). MIT licence, like the rest of emurust.
;
; Stars and rocks fall in five lanes. Move the basket left and right: a caught star scores a
; point, a rock that lands in the basket costs one of three lives. Objects fall faster as more
; stars are caught. After the last life, START plays again.
;
; Build (byte-identical to the committed starcatch.gb; tests/test_starcatch.py checks it):
;   python -m emurust.tools.asm starcatch.asm -o starcatch.gb --sym starcatch.sym --fix
;
; How it is written, and why:
; - Everything is driven by the VBlank interrupt; the CPU sleeps in HALT between frames. The
;   game never reads LY or STAT and never switches the LCD off (the LCD-enable and line-153
;   timings are where emulators disagree), so it runs the same on any faithful emulator.
; - The game logic runs at 30 Hz, on even VBlanks only (wFrame even), and everything on screen
;   changes at the start of those VBlanks: OAM (by DMA from wShadowOAM), the HUD row of the
;   window and the background text. Odd VBlanks change nothing but wFrame. A frame drawn after
;   an odd VBlank is therefore the same as the one before it, which is what makes emurust
;   (frames end at VBlank start) and PyBoy (frames end ten lines later) return the same
;   observation after a step of an even number of frames.
; - VRAM is written only during VBlank: the tiles and the map are loaded a slice per VBlank at
;   power-on, and text changes are queued and applied one per logic tick.
; - The random numbers come from a 16-bit xorshift whose state is wRng (never 0): an RL
;   environment seeds an episode by writing wRng. The title screen stirs it for people.
; - Score (BCD), lives and the game-over flag are at fixed addresses, published in
;   starcatch.sym.

; ---------------------------------------------------------------------------------------------
; Hardware

DEF rP1   EQU $FF00
DEF rIF   EQU $FF0F
DEF rNR52 EQU $FF26
DEF rLCDC EQU $FF40
DEF rSCY  EQU $FF42
DEF rSCX  EQU $FF43
DEF rDMA  EQU $FF46
DEF rBGP  EQU $FF47
DEF rOBP0 EQU $FF48
DEF rOBP1 EQU $FF49
DEF rWY   EQU $FF4A
DEF rWX   EQU $FF4B
DEF rIE   EQU $FFFF

DEF VRAM_TILES EQU $8000
DEF BG_MAP     EQU $9800
DEF WIN_MAP    EQU $9C00

; LCD on, window map $9C00, window on, tiles at $8000, BG map $9800, 8x16 objects, objects on,
; background on.
DEF LCDC_GAME EQU %11110111

DEF OAM_XFLIP EQU $20
DEF OAM_PAL1  EQU $10

; Buttons as ReadJoypad leaves them in wJoy (1 = pressed).
DEF PAD_A      EQU $01
DEF PAD_B      EQU $02
DEF PAD_SELECT EQU $04
DEF PAD_START  EQU $08
DEF PAD_RIGHT  EQU $10
DEF PAD_LEFT   EQU $20
DEF PAD_UP     EQU $40
DEF PAD_DOWN   EQU $80

; ---------------------------------------------------------------------------------------------
; The game

DEF STATE_LOADING EQU 0
DEF STATE_TITLE   EQU 1
DEF STATE_PLAYING EQU 2
DEF STATE_OVER    EQU 3

DEF NUM_LANES   EQU 5
DEF LANE0_X     EQU 8     ; screen x of lane 0's left edge
DEF LANE_WIDTH  EQU 32
DEF START_LANE  EQU 2
DEF PLAYER_STEP EQU 8     ; pixels the basket moves per logic tick (4 ticks per lane)
DEF PLAYER_Y    EQU 112   ; screen y of the basket's top row
DEF START_LIVES EQU 3
DEF START_SPEED EQU 2     ; pixels an object falls per logic tick
DEF MAX_SPEED   EQU 6
DEF FIRST_SPAWN EQU 16    ; logic ticks before the first object of a game
DEF HIT_TICKS   EQU 16    ; logic ticks the basket blinks after a rock
DEF ROCK_CHANCE EQU 6     ; in 16: how many objects are rocks

DEF NUM_OBJECTS EQU 6
DEF OBJ_TYPE    EQU 0     ; offsets in an object record
DEF OBJ_X       EQU 1     ; screen x of the left edge
DEF OBJ_Y       EQU 2     ; OAM y (screen y + 16; 0 is just above the screen)
DEF OBJ_SIZE    EQU 4
DEF OBJ_NONE    EQU 0
DEF OBJ_STAR    EQU 1
DEF OBJ_ROCK    EQU 2
DEF CATCH_Y     EQU 116   ; OAM y from which an object is in the basket (4 rows of overlap)
DEF CATCH_DX    EQU 12    ; and |x - basket x| below this
DEF GROUND_Y    EQU 144   ; OAM y at which an object reaches the ground (screen y 128)

DEF TILE_PLAYER EQU $02   ; 8x16 objects: tiles $02/$03, and so on
DEF TILE_STAR   EQU $04
DEF TILE_ROCK   EQU $06
DEF TILE_HEART  EQU $0D
DEF NUM_TILES   EQU $60   ; tiles $00-$5F are loaded; text uses ASCII codes as tile numbers

DEF MAP_ROWS    EQU 18
DEF TITLE_ROW   EQU 6     ; background rows of the title and game-over texts
DEF PRESS_ROW   EQU 10
DEF OVER_ROW    EQU 8
DEF HUD_DIGITS  EQU 6     ; first score digit in the HUD row
DEF HUD_HEARTS  EQU 17    ; first heart in the HUD row

DEF TEXT_QUEUE_LEN EQU 4  ; pending VRAM text writes
DEF TEXT_ENTRY     EQU 5  ; destination (2), source (2), length (1)
DEF DMA_ROUTINE_SIZE EQU 8

; ---------------------------------------------------------------------------------------------
; Memory

SECTION "Shadow OAM", WRAM0[$C000]
wShadowOAM:   ds 160

SECTION "Game variables", WRAM0[$C100]
; Read by the RL environment (emurust.games): keep these addresses.
wScore::      ds 2    ; BCD, low byte first: 0000-9999
wLives::      ds 1    ; 3 at the start of a game, 0 at game over
wGameOver::   ds 1    ; 1 once the last life is lost, 0 while playing
wRng::        ds 2    ; xorshift state, never 0 (an environment seeds an episode here)
wState::      ds 1    ; STATE_*
wFrame::      ds 1    ; VBlanks since power-on, modulo 256 (logic runs when it turns even)
wTicks::      ds 2    ; logic ticks of the current game
wCaught::     ds 1    ; stars caught in the current game (stops at 255)
wPlayerX::    ds 1    ; screen x of the basket's left edge
wPlayerLane:: ds 1    ; the lane the basket is in or moving to
wSpeed::      ds 1    ; pixels an object falls per logic tick
wHitTimer::   ds 1
wSpawnTimer:: ds 1
wJoy::        ds 1
wJoyPrev::    ds 1
wVBlankDone:  ds 1
wHudDirty:    ds 1
wTextCount:   ds 1
wOamX:        ds 1
wOamY:        ds 1

SECTION "Objects", WRAM0[$C120]
wObjects::    ds NUM_OBJECTS * OBJ_SIZE

SECTION "HUD and text queue", WRAM0[$C140]
wHud:         ds 20
wTextQueue:   ds TEXT_QUEUE_LEN * TEXT_ENTRY

SECTION "HRAM", HRAM[$FF80]
hDMA:         ds DMA_ROUTINE_SIZE

; ---------------------------------------------------------------------------------------------
; Vectors and header

SECTION "VBlank vector", ROM0[$0040]
    jp VBlankISR

SECTION "Header", ROM0[$0100]
    nop
    jp Start
    ds $30, 0               ; $0104: the logo (written by --fix)
    db "STARCATCH"          ; $0134: title
    ds 6, 0
    db $00                  ; $0143: DMG only
    db 0, 0                 ; $0144: no new licensee code
    db $00                  ; $0146: no SGB functions
    db $00                  ; $0147: ROM only
    db $00                  ; $0148: 32 KiB
    db $00                  ; $0149: no cartridge RAM
    db $01                  ; $014A: not for Japan
    db $00                  ; $014B: no old licensee code
    db $00                  ; $014C: version 0
    ds 3, 0                 ; $014D: checksums (written by --fix)

; ---------------------------------------------------------------------------------------------
; Start-up

SECTION "Code", ROM0[$0150]
Start:
    di
    ld sp, $E000
    xor a
    ldh [rNR52], a          ; the game is silent: sound off
    ld hl, $C000            ; work RAM starts random on hardware: clear it all
    ld bc, $2000
.clearWram:
    xor a
    ld [hl+], a
    dec bc
    ld a, b
    or c
    jr nz, .clearWram
    ld hl, DMARoutine       ; the OAM DMA routine runs from HRAM
    ld de, hDMA
    ld b, DMA_ROUTINE_SIZE
.copyDma:
    ld a, [hl+]
    ld [de], a
    inc de
    dec b
    jr nz, .copyDma
    ld a, %11100100         ; shades 0-3 in order
    ldh [rBGP], a
    ldh [rOBP0], a
    ld a, %11110100         ; rocks: colours 2 and 3 both black
    ldh [rOBP1], a
    ld a, $E1               ; the generator's start for people (stirred on the title screen)
    ld [wRng], a
    ld a, $AC
    ld [wRng + 1], a
    ld a, START_LIVES
    ld [wLives], a
    xor a
    ldh [rIF], a
    inc a                   ; VBlank interrupt only
    ldh [rIE], a
    ei
    ; Tiles, 64 bytes per VBlank, then the background map, two rows per VBlank.
    ld hl, TileData
    ld de, VRAM_TILES
    ld c, NUM_TILES * 16 / 64
.loadTiles:
    call WaitVBlank
    ld b, 64
    call CopyBytes
    dec c
    jr nz, .loadTiles
    ld hl, SkyMap
    ld de, BG_MAP
    ld c, MAP_ROWS / 2
.loadMap:
    call WaitVBlank
    call CopyRow
    call CopyRow
    dec c
    jr nz, .loadMap
    call WaitVBlank
    ld a, HIGH(wShadowOAM)  ; blank OAM before objects are switched on
    call hDMA
    xor a
    ldh [rSCX], a
    ldh [rSCY], a
    ld a, 136               ; the window is the HUD: the bottom row
    ldh [rWY], a
    ld a, 7
    ldh [rWX], a
    ld a, LCDC_GAME
    ldh [rLCDC], a
    call DrawHud
    ld de, BG_MAP + TITLE_ROW * 32 + 5
    ld hl, TitleText
    ld b, TitleText.end - TitleText
    call QueueText
    ld de, BG_MAP + PRESS_ROW * 32 + 4
    ld hl, PressStartText
    ld b, PressStartText.end - PressStartText
    call QueueText
    ld a, STATE_TITLE
    ld [wState], a

; ---------------------------------------------------------------------------------------------
; The main loop: one logic tick per even VBlank

MainLoop:
    call WaitVBlank
    ld a, [wFrame]
    rra
    jr c, MainLoop          ; odd VBlank: nothing happens
    call DisplayUpdate      ; first, while VBlank lasts
    call ReadJoypad
    ld a, [wState]
    cp STATE_PLAYING
    jr z, .playing
    cp STATE_TITLE
    jr z, .title
    call GameOverTick
    jr MainLoop
.playing:
    call PlayTick
    jr MainLoop
.title:
    call TitleTick
    jr MainLoop

VBlankISR:
    push af
    ld a, [wFrame]
    inc a
    ld [wFrame], a
    ld a, 1
    ld [wVBlankDone], a
    pop af
    reti

; Sleeps until the next VBlank interrupt has been handled.
WaitVBlank:
    xor a
    ld [wVBlankDone], a
.wait:
    halt
    ld a, [wVBlankDone]
    and a
    jr z, .wait
    ret

; Copies b bytes from hl to de (both advanced). 10 M-cycles a byte.
CopyBytes:
    ld a, [hl+]
    ld [de], a
    inc de
    dec b
    jr nz, CopyBytes
    ret

; Copies one 20-tile map row from hl to de and moves de to the next row (32 tiles on).
CopyRow:
    ld b, 20
    call CopyBytes
    ld a, e
    add a, 32 - 20
    ld e, a
    ret nc
    inc d
    ret

; Copied to HRAM (hDMA): starts an OAM DMA from page a and waits the 160 M-cycles it takes.
DMARoutine:
    ldh [rDMA], a
    ld a, 40
.wait:
    dec a
    jr nz, .wait
    ret
.end:
    ASSERT DMARoutine.end - DMARoutine == DMA_ROUTINE_SIZE

; At the start of an even VBlank: OAM, the HUD row and the oldest queued text, all from the
; state the previous logic tick left.
DisplayUpdate:
    ld a, HIGH(wShadowOAM)
    call hDMA
    ld a, [wHudDirty]
    and a
    jr z, .text
    xor a
    ld [wHudDirty], a
    ld hl, wHud
    ld de, WIN_MAP
    ld b, 20
    call CopyBytes
.text:
    ld a, [wTextCount]
    and a
    ret z
    ld hl, wTextQueue       ; the oldest entry
    ld a, [hl+]             ; destination
    ld e, a
    ld a, [hl+]
    ld d, a
    ld a, [hl+]             ; source
    ld c, a
    ld a, [hl+]
    ld b, [hl]              ; length
    ld h, a
    ld l, c
    call CopyBytes
    ld hl, wTextCount       ; done: the others move up (in WRAM, after the VRAM work)
    dec [hl]
    ld a, [hl]
    and a
    ret z
    ld b, a
    add a, a
    add a, a
    add a, b                ; entries left * 5 bytes
    ld b, a
    ld hl, wTextQueue + TEXT_ENTRY
    ld de, wTextQueue
    jp CopyBytes

; Queues a write of b bytes from hl to VRAM address de for a coming DisplayUpdate.
QueueText:
    ld a, [wTextCount]
    cp TEXT_QUEUE_LEN
    ret nc                  ; full (never: at most three are pending)
    push hl
    ld c, a
    add a, a
    add a, a
    add a, c
    ld hl, wTextQueue
    add a, l
    ld l, a
    ld a, e
    ld [hl+], a
    ld a, d
    ld [hl+], a
    pop de
    ld a, e
    ld [hl+], a
    ld a, d
    ld [hl+], a
    ld [hl], b
    ld hl, wTextCount
    inc [hl]
    ret
    ASSERT LOW(wTextQueue) + TEXT_QUEUE_LEN * TEXT_ENTRY <= $100

; wJoy: directions in the high nibble, buttons in the low one, 1 = pressed.
ReadJoypad:
    ld a, $20               ; select the direction keys
    ldh [rP1], a
    ldh a, [rP1]
    ldh a, [rP1]
    cpl
    and $0F
    swap a
    ld b, a
    ld a, $10               ; select the buttons
    ldh [rP1], a
    ldh a, [rP1]
    ldh a, [rP1]
    ldh a, [rP1]
    ldh a, [rP1]
    cpl
    and $0F
    or b
    ld b, a
    ld a, $30               ; deselect both
    ldh [rP1], a
    ld a, [wJoy]
    ld [wJoyPrev], a
    ld a, b
    ld [wJoy], a
    ret

; 16-bit xorshift (x ^= x << 7; x ^= x >> 9; x ^= x << 8), period 65535: steps wRng and
; returns it in hl (h = high byte).
Rand:
    ld a, [wRng]
    ld l, a
    ld a, [wRng + 1]
    ld h, a
    rra                     ; carry = bit 0 of h
    ld a, l
    rra
    xor h
    ld h, a
    ld a, l
    rra
    ld a, h
    rra
    xor l
    ld l, a
    xor h
    ld h, a
    ld [wRng + 1], a
    ld a, l
    ld [wRng], a
    ret

; ---------------------------------------------------------------------------------------------
; States

TitleTick:
    call Rand               ; the game a person gets depends on when START is pressed
    ld a, [wJoy]
    and PAD_START
    ret z
    ld de, BG_MAP + TITLE_ROW * 32
    ld hl, SkyMap + TITLE_ROW * 20
    ld b, 20
    call QueueText
    ld de, BG_MAP + PRESS_ROW * 32
    ld hl, SkyMap + PRESS_ROW * 20
    ld b, 20
    call QueueText
    jp StartGame

GameOverTick:
    ld a, [wJoyPrev]
    cpl
    ld b, a
    ld a, [wJoy]
    and b                   ; just pressed
    and PAD_START
    ret z
    ld de, BG_MAP + OVER_ROW * 32
    ld hl, SkyMap + OVER_ROW * 20
    ld b, 20
    call QueueText
    ; fall through

StartGame:
    xor a
    ld [wScore], a
    ld [wScore + 1], a
    ld [wGameOver], a
    ld [wTicks], a
    ld [wTicks + 1], a
    ld [wCaught], a
    ld [wHitTimer], a
    call ClearObjects
    ld a, START_LIVES
    ld [wLives], a
    ld a, START_SPEED
    ld [wSpeed], a
    ld a, FIRST_SPAWN
    ld [wSpawnTimer], a
    ld a, START_LANE
    ld [wPlayerLane], a
    ld a, LANE0_X + START_LANE * LANE_WIDTH
    ld [wPlayerX], a
    ld a, STATE_PLAYING
    ld [wState], a
    call DrawHud
    jp BuildOam

PlayTick:
    ld hl, wTicks
    inc [hl]
    jr nz, .counted
    inc hl
    inc [hl]
.counted:
    call MovePlayer
    call MoveObjects        ; may end the game
    ld a, [wState]
    cp STATE_PLAYING
    call z, Spawn
    ld hl, wHitTimer
    ld a, [hl]
    and a
    jr z, .noBlink
    dec [hl]
.noBlink:
    jp BuildOam

; The basket takes a new lane from the joypad once it has arrived in the last one.
MovePlayer:
    ld a, [wPlayerLane]
    swap a
    add a, a                ; lane * 32
    add a, LANE0_X
    ld b, a                 ; the lane's x
    ld a, [wPlayerX]
    cp b
    jr nz, .move            ; still on its way
    ld a, [wJoy]
    bit 5, a                ; PAD_LEFT
    jr z, .notLeft
    ld a, [wPlayerLane]
    and a
    ret z
    dec a
    ld [wPlayerLane], a
    jr MovePlayer
.notLeft:
    bit 4, a                ; PAD_RIGHT
    ret z
    ld a, [wPlayerLane]
    cp NUM_LANES - 1
    ret nc
    inc a
    ld [wPlayerLane], a
    jr MovePlayer
.move:
    jr c, .right            ; x < the lane's x
    sub PLAYER_STEP
    ld [wPlayerX], a
    ret
.right:
    add a, PLAYER_STEP
    ld [wPlayerX], a
    ret
    ASSERT PAD_LEFT == 1 << 5 && PAD_RIGHT == 1 << 4

; Objects fall; those in the basket are caught (stars) or hit (rocks), those on the ground go.
MoveObjects:
    ld hl, wObjects
    ld c, NUM_OBJECTS
.loop:
    ld a, [hl]
    and a
    jr z, .next
    push hl
    inc hl
    ld d, [hl]              ; x
    inc hl
    ld a, [wSpeed]
    add a, [hl]
    ld [hl], a              ; y += speed
    cp GROUND_Y
    jr nc, .remove
    cp CATCH_Y
    jr c, .keep
    ld a, [wPlayerX]
    sub d
    jr nc, .positive
    cpl
    inc a
.positive:
    cp CATCH_DX
    jr nc, .keep
    pop hl
    push hl
    ld a, [hl]
    cp OBJ_STAR
    jr nz, .rock
    call CatchStar
    jr .remove
.rock:
    call HitRock
.remove:
    pop hl
    ld [hl], OBJ_NONE
    ld a, [wState]          ; that was the last life
    cp STATE_PLAYING
    ret nz
    jr .next
.keep:
    pop hl
.next:
    ld a, l
    add a, OBJ_SIZE
    ld l, a
    dec c
    jr nz, .loop
    ret
    ASSERT LOW(wObjects) + NUM_OBJECTS * OBJ_SIZE <= $100

; One point (BCD, stops at 9999); the fall speed grows by one every 16 stars.
CatchStar:
    push bc
    ld a, [wScore]
    add a, 1
    daa
    ld [wScore], a
    ld a, [wScore + 1]
    adc a, 0
    daa
    jr nc, .noCap
    ld a, $99
    ld [wScore], a
.noCap:
    ld [wScore + 1], a
    ld hl, wCaught
    inc [hl]
    jr nz, .counted
    dec [hl]
.counted:
    ld a, [hl]
    swap a
    and $0F
    add a, START_SPEED
    cp MAX_SPEED + 1
    jr c, .speed
    ld a, MAX_SPEED
.speed:
    ld [wSpeed], a
    call DrawHud
    pop bc
    ret

HitRock:
    push bc
    ld a, HIT_TICKS
    ld [wHitTimer], a
    ld hl, wLives
    dec [hl]
    call z, GameOver
    call DrawHud
    pop bc
    ret

GameOver:
    ld a, STATE_OVER
    ld [wState], a
    ld a, 1
    ld [wGameOver], a
    xor a
    ld [wHitTimer], a
    call ClearObjects
    ld de, BG_MAP + OVER_ROW * 32 + 5
    ld hl, GameOverText
    ld b, GameOverText.end - GameOverText
    jp QueueText

; Empties every object slot.
ClearObjects:
    xor a
    ld hl, wObjects
    ld b, NUM_OBJECTS * OBJ_SIZE
.clear:
    ld [hl+], a
    dec b
    jr nz, .clear
    ret

; A new object in a free slot when the spawn timer runs out: a random lane, a rock in
; ROCK_CHANCE of 16, and a gap before the next one that keeps objects at least 20 pixels
; apart (so that at most one object shares a line with the basket: 4 of the 10 objects a
; line can show).
Spawn:
    ld hl, wSpawnTimer
    dec [hl]
    ret nz
    ld hl, wObjects
    ld b, NUM_OBJECTS
.find:
    ld a, [hl]
    and a
    jr z, .found
    ld a, l
    add a, OBJ_SIZE
    ld l, a
    dec b
    jr nz, .find
    ld a, 1                 ; every slot is taken: try again next tick
    ld [wSpawnTimer], a
    ret
.found:
    push hl
    call Rand
    ld d, h
    ld e, l
    pop hl
    ld a, d
    and $0F
    cp ROCK_CHANCE
    ld a, OBJ_STAR
    jr nc, .type
    ld a, OBJ_ROCK
.type:
    ld [hl+], a
    push hl
    ld h, 0                 ; lane = e * 5 / 256
    ld l, e
    ld b, h
    ld c, l
    add hl, hl
    add hl, hl
    add hl, bc
    ld a, h
    swap a
    add a, a
    add a, LANE0_X
    pop hl
    ld [hl+], a             ; x
    ld [hl], 0              ; y: just above the screen
    ld a, [wSpeed]
    ld c, a
    ld b, 0
    ld hl, SpawnGap
    add hl, bc
    ld a, d                 ; gap: SpawnGap[speed] + (d >> 5)
    swap a
    rra
    and $07
    add a, [hl]
    ld [wSpawnTimer], a
    ret

; Logic ticks between objects at each fall speed (index = speed; 0 and 1 are not used).
SpawnGap:
    db 0, 0, 10, 7, 5, 4, 4
.end:
    ASSERT SpawnGap.end - SpawnGap == MAX_SPEED + 1

; ---------------------------------------------------------------------------------------------
; Drawing (into WRAM; DisplayUpdate copies it during VBlank)

; The HUD row: "SCORE 0000" and a heart per life.
DrawHud:
    ld hl, wHud
    ld de, HudTemplate
    ld b, 20
.copy:
    ld a, [de]
    ld [hl+], a
    inc de
    dec b
    jr nz, .copy
    ld hl, wHud + HUD_DIGITS
    ld a, [wScore + 1]
    call PutBcd
    ld a, [wScore]
    call PutBcd
    ld a, [wLives]
    and a
    jr z, .done
    ld b, a
    ld hl, wHud + HUD_HEARTS
.heart:
    ld [hl], TILE_HEART
    inc hl
    dec b
    jr nz, .heart
.done:
    ld a, 1
    ld [wHudDirty], a
    ret

; The two BCD digits in a as tiles at hl, hl + 1 (hl advanced by 2).
PutBcd:
    ld b, a
    swap a
    and $0F
    add a, '0'
    ld [hl+], a
    ld a, b
    and $0F
    add a, '0'
    ld [hl+], a
    ret

; wShadowOAM: the basket (two 8x16 objects, the right one mirrored; hidden every other tick
; pair while it blinks after a hit), then two objects per falling object.
BuildOam:
    ld hl, wShadowOAM
    ld a, [wHitTimer]
    and 2
    ld a, 0                 ; y 0: hidden
    jr nz, .basketY
    ld a, PLAYER_Y + 16
.basketY:
    ld d, a
    ld a, [wPlayerX]
    add a, 8
    ld e, a
    ld a, d
    ld [hl+], a
    ld a, e
    ld [hl+], a
    ld a, TILE_PLAYER
    ld [hl+], a
    xor a
    ld [hl+], a
    ld a, d
    ld [hl+], a
    ld a, e
    add a, 8
    ld [hl+], a
    ld a, TILE_PLAYER
    ld [hl+], a
    ld a, OAM_XFLIP
    ld [hl+], a
    ld de, wObjects
    ld c, NUM_OBJECTS
.object:
    push bc
    ld a, [de]
    and a
    jr z, .hidden
    ld bc, TILE_STAR << 8
    cp OBJ_STAR
    jr z, .kind
    ld bc, TILE_ROCK << 8 | OAM_PAL1
.kind:
    inc de
    ld a, [de]              ; x
    add a, 8
    ld [wOamX], a
    inc de
    ld a, [de]              ; y
    ld [wOamY], a
    inc de
    inc de
    ld [hl+], a             ; left half
    ld a, [wOamX]
    ld [hl+], a
    ld a, b
    ld [hl+], a
    ld a, c
    ld [hl+], a
    ld a, [wOamY]           ; right half, mirrored
    ld [hl+], a
    ld a, [wOamX]
    add a, 8
    ld [hl+], a
    ld a, b
    ld [hl+], a
    ld a, c
    or OAM_XFLIP
    ld [hl+], a
    jr .nextObject
.hidden:
    ld b, 8                 ; a = 0
.zero:
    ld [hl+], a
    dec b
    jr nz, .zero
    inc de
    inc de
    inc de
    inc de
.nextObject:
    pop bc
    dec c
    jr nz, .object
    ret
    ASSERT OBJ_SIZE == 4

; ---------------------------------------------------------------------------------------------
; Data

TitleText:
    db "STARCATCH"
.end:
PressStartText:
    db "PRESS START"
.end:
GameOverText:
    db "GAME OVER"
.end:
HudTemplate:
    db "SCORE 0000          "
.end:
    ASSERT HudTemplate.end - HudTemplate == 20

; The background: a sky with stars, the ground (row 16) and a row under the HUD.
SkyMap:
    db $00, $00, $00, $0C, $00, $00, $01, $00, $01, $00, $0C, $0C, $00, $00, $0C, $00, $00, $00, $00, $00 ; row 0
    db $00, $01, $00, $00, $00, $0C, $00, $00, $00, $00, $00, $00, $00, $0C, $01, $00, $00, $00, $00, $00 ; row 1
    db $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $0C, $00, $00, $00, $00, $01, $00, $00, $00 ; row 2
    db $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $0C, $00, $00, $00, $00, $00, $00, $00, $01, $00 ; row 3
    db $00, $0C, $01, $00, $0C, $00, $00, $00, $0C, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00 ; row 4
    db $00, $00, $00, $00, $00, $00, $01, $00, $00, $00, $00, $00, $00, $00, $00, $01, $00, $00, $00, $00 ; row 5
    db $00, $00, $0C, $00, $0C, $0C, $00, $00, $00, $01, $01, $00, $0C, $00, $01, $00, $00, $00, $00, $00 ; row 6
    db $00, $0C, $00, $00, $00, $00, $0C, $0C, $00, $00, $00, $00, $01, $00, $00, $00, $00, $01, $00, $00 ; row 7
    db $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $01 ; row 8
    db $01, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00 ; row 9
    db $0C, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $0C, $00, $00, $00 ; row 10
    db $00, $00, $00, $00, $00, $00, $0C, $01, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00 ; row 11
    db $00, $00, $0C, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $01, $00, $00, $01, $00, $00, $00 ; row 12
    db $00, $00, $00, $00, $00, $00, $0C, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00 ; row 13
    db $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $0C, $0C, $00, $0C, $00, $0C, $00, $00, $00 ; row 14
    db $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $01 ; row 15
    db $0A, $0A, $0A, $0A, $0A, $0A, $0A, $0A, $0A, $0A, $0A, $0A, $0A, $0A, $0A, $0A, $0A, $0A, $0A, $0A ; row 16
    db $0B, $0B, $0B, $0B, $0B, $0B, $0B, $0B, $0B, $0B, $0B, $0B, $0B, $0B, $0B, $0B, $0B, $0B, $0B, $0B ; row 17
.end:
    ASSERT SkyMap.end - SkyMap == MAP_ROWS * 20

; Tiles $00-$5F (2 bits a pixel, ` rows: 0 lightest .. 3 darkest). Text is written with ASCII
; codes as tile numbers: $20 is blank, $30-$39 the digits, $41-$5A the letters used.
TileData:
    ds (1-0) * 16, 0 ; $00-$00: blank
    ; $01: sky: small star
    dw `00000000
    dw `00000000
    dw `00010000
    dw `00111000
    dw `00010000
    dw `00000000
    dw `00000000
    dw `00000000
    ; $02: player, left half, top (8x16 objects: $02/$03)
    dw `00000000
    dw `00000000
    dw `00000000
    dw `00000000
    dw `30000000
    dw `33000000
    dw `31300000
    dw `31130000
    ; $03: player, left half, bottom
    dw `31113333
    dw `31111111
    dw `31212121
    dw `31121212
    dw `03111111
    dw `00311111
    dw `00033333
    dw `00000000
    ; $04: star object, left half, top
    dw `00000003
    dw `00000003
    dw `00000031
    dw `00000031
    dw `00000311
    dw `33333111
    dw `03111111
    dw `00311112
    ; $05: star object, left half, bottom
    dw `00031112
    dw `00031111
    dw `00311111
    dw `00311133
    dw `03113300
    dw `03330000
    dw `03000000
    dw `00000000
    ; $06: rock object, left half, top
    dw `00000202
    dw `00000020
    dw `00002020
    dw `00000202
    dw `00003333
    dw `00333222
    dw `03322222
    dw `03222322
    ; $07: rock object, left half, bottom
    dw `32223332
    dw `32222322
    dw `32222222
    dw `32222222
    dw `03222222
    dw `03322222
    dw `00333222
    dw `00003333
    ds (10-8) * 16, 0 ; $08-$09: blank
    ; $0A: ground, grass top
    dw `00000000
    dw `00300030
    dw `03230323
    dw `32223222
    dw `22222222
    dw `22222222
    dw `21222122
    dw `22222222
    ; $0B: ground fill
    dw `22222222
    dw `22122222
    dw `22222212
    dw `22222222
    dw `21222222
    dw `22222122
    dw `22222222
    dw `12222222
    ; $0C: sky: faint dot
    dw `00000000
    dw `00000000
    dw `00000000
    dw `00000000
    dw `00000010
    dw `00000000
    dw `00000000
    dw `00000000
    ; $0D: HUD: heart (a life)
    dw `00000000
    dw `03300330
    dw `31133113
    dw `31111113
    dw `31111113
    dw `03111130
    dw `00311300
    dw `00033000
    ds (48-14) * 16, 0 ; $0E-$2F: blank
    ; $30: font "0"
    dw `00333000
    dw `03000300
    dw `03003300
    dw `03030300
    dw `03300300
    dw `03000300
    dw `00333000
    dw `00000000
    ; $31: font "1"
    dw `00030000
    dw `00330000
    dw `00030000
    dw `00030000
    dw `00030000
    dw `00030000
    dw `00333000
    dw `00000000
    ; $32: font "2"
    dw `00333000
    dw `03000300
    dw `00000300
    dw `00003000
    dw `00030000
    dw `00300000
    dw `03333300
    dw `00000000
    ; $33: font "3"
    dw `03333300
    dw `00003000
    dw `00030000
    dw `00003000
    dw `00000300
    dw `03000300
    dw `00333000
    dw `00000000
    ; $34: font "4"
    dw `00003000
    dw `00033000
    dw `00303000
    dw `03003000
    dw `03333300
    dw `00003000
    dw `00003000
    dw `00000000
    ; $35: font "5"
    dw `03333300
    dw `03000000
    dw `03333000
    dw `00000300
    dw `00000300
    dw `03000300
    dw `00333000
    dw `00000000
    ; $36: font "6"
    dw `00033000
    dw `00300000
    dw `03000000
    dw `03333000
    dw `03000300
    dw `03000300
    dw `00333000
    dw `00000000
    ; $37: font "7"
    dw `03333300
    dw `00000300
    dw `00003000
    dw `00030000
    dw `00300000
    dw `00300000
    dw `00300000
    dw `00000000
    ; $38: font "8"
    dw `00333000
    dw `03000300
    dw `03000300
    dw `00333000
    dw `03000300
    dw `03000300
    dw `00333000
    dw `00000000
    ; $39: font "9"
    dw `00333000
    dw `03000300
    dw `03000300
    dw `00333300
    dw `00000300
    dw `00003000
    dw `00330000
    dw `00000000
    ds (65-58) * 16, 0 ; $3A-$40: blank
    ; $41: font "A"
    dw `00333000
    dw `03000300
    dw `03000300
    dw `03333300
    dw `03000300
    dw `03000300
    dw `03000300
    dw `00000000
    ds (67-66) * 16, 0 ; $42-$42: blank
    ; $43: font "C"
    dw `00333000
    dw `03000300
    dw `03000000
    dw `03000000
    dw `03000000
    dw `03000300
    dw `00333000
    dw `00000000
    ds (69-68) * 16, 0 ; $44-$44: blank
    ; $45: font "E"
    dw `03333300
    dw `03000000
    dw `03000000
    dw `03333000
    dw `03000000
    dw `03000000
    dw `03333300
    dw `00000000
    ds (71-70) * 16, 0 ; $46-$46: blank
    ; $47: font "G"
    dw `00333000
    dw `03000300
    dw `03000000
    dw `03033300
    dw `03000300
    dw `03000300
    dw `00333300
    dw `00000000
    ; $48: font "H"
    dw `03000300
    dw `03000300
    dw `03000300
    dw `03333300
    dw `03000300
    dw `03000300
    dw `03000300
    dw `00000000
    ds (77-73) * 16, 0 ; $49-$4C: blank
    ; $4D: font "M"
    dw `03000300
    dw `03303300
    dw `03030300
    dw `03030300
    dw `03000300
    dw `03000300
    dw `03000300
    dw `00000000
    ds (79-78) * 16, 0 ; $4E-$4E: blank
    ; $4F: font "O"
    dw `00333000
    dw `03000300
    dw `03000300
    dw `03000300
    dw `03000300
    dw `03000300
    dw `00333000
    dw `00000000
    ; $50: font "P"
    dw `03333000
    dw `03000300
    dw `03000300
    dw `03333000
    dw `03000000
    dw `03000000
    dw `03000000
    dw `00000000
    ds (82-81) * 16, 0 ; $51-$51: blank
    ; $52: font "R"
    dw `03333000
    dw `03000300
    dw `03000300
    dw `03333000
    dw `03030000
    dw `03003000
    dw `03000300
    dw `00000000
    ; $53: font "S"
    dw `00333300
    dw `03000000
    dw `03000000
    dw `00333000
    dw `00000300
    dw `00000300
    dw `03333000
    dw `00000000
    ; $54: font "T"
    dw `03333300
    dw `00030000
    dw `00030000
    dw `00030000
    dw `00030000
    dw `00030000
    dw `00030000
    dw `00000000
    ds (86-85) * 16, 0 ; $55-$55: blank
    ; $56: font "V"
    dw `03000300
    dw `03000300
    dw `03000300
    dw `03000300
    dw `03000300
    dw `00303000
    dw `00030000
    dw `00000000
    ds (96-87) * 16, 0 ; $57-$5F: blank
.end:
    ASSERT TileData.end - TileData == NUM_TILES * 16
