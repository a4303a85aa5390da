"""The allowlist's entries as data: :data:`DEFAULT_ALLOWLIST`, each entry a documented
difference between emurust and PyBoy 2.8.1 with what it masks, the evidence, its rule
(:mod:`~emurust.verify.allowlist.rules`) and, for a terminal entry, its proof
(:mod:`~emurust.verify.allowlist.proofs`, :mod:`~emurust.verify.allowlist.line153`). The
order matters: rules apply in turn and terminal entries are tried in this order."""

from __future__ import annotations

from emurust.verify.allowlist.line153 import ly153_dead_stack_proof
from emurust.verify.allowlist.point import AllowlistEntry
from emurust.verify.allowlist.proofs import (
    ei_halt_proof,
    first_vblank_early_proof,
    lcd_enable_late_proof,
    line153_replay_proof,
    read_lag_irq_proof,
    read_lag_lcd_off_proof,
    read_lag_proof,
    vblank_late_proof,
    window_late_proof,
)
from emurust.verify.allowlist.rules import (
    boot_logo_rule,
    boot_ly_loop_rule,
    first_frame_after_lcd_enable_rule,
    halt_pc_rule,
    joypad_irq_rule,
    late_interrupt_rule,
    never,
    object_priority_rule,
    p1_select_irq_rule,
    power_on_rule,
    sb_rule,
    serial_busy_rule,
)

__all__ = ["DEFAULT_ALLOWLIST"]


DEFAULT_ALLOWLIST: tuple[AllowlistEntry, ...] = (
    AllowlistEntry(
        name="power-on-register-values",
        masks=(
            "BGP, OBP0 and OBP1 while they still hold each emulator's power-on value "
            "(emurust 0x00; PyBoy 0xFC, 0xFF, 0xFF), i.e. before the program writes them"
        ),
        evidence=(
            "values nobody has written: Pan Docs 'Power Up Sequence' leaves OBP0/OBP1 "
            "uninitialised after the boot ROM, which writes BGP itself"
        ),
        rule=power_on_rule,
    ),
    AllowlistEntry(
        name="pyboy-sb-reads-ff",
        masks="the SB register (0xFF01) when PyBoy reads 0xFF and emurust another value",
        evidence=(
            "PyBoy ignores writes to SB without a link partner ('Always 0xFF when cable is "
            "disconnected', pyboy/core/serial.py); on a DMG SB is read/write and only a "
            "completed transfer shifts 1s into it (Pan Docs 'Serial Data Transfer'). "
            "Mooneye acceptance/boot_hwio-dmgABCmgb expects SB = $00 after the boot ROM: "
            "emurust passes, PyBoy fails. Only the register is masked: a game that reads "
            "it and acts on it still diverges elsewhere"
        ),
        rule=sb_rule,
    ),
    AllowlistEntry(
        name="pyboy-joypad-irq-unselected-row",
        masks=(
            "bit 4 (joypad) of IF (0xFF0F) when PyBoy has it set and emurust not, all other "
            "IF bits equal, after the input script pressed a button whose P1 row (P14 "
            "directions, P15 actions) was not selected, until PyBoy's bit reads 0 again"
        ),
        evidence=(
            "Pan Docs, 'Interrupt Sources', INT $60: the joypad interrupt is requested when "
            "one of P1 bits 0-3 goes from high to low, which a press does only while its row "
            "is selected (Pan Docs 'Joypad Input'). PyBoy 2.8.1 requests it on every press "
            "(pyboy/core/mb.py, Motherboard.buttonevent). No test ROM in the shared set "
            "covers the joypad interrupt. Only the flag is masked: a game that enables the "
            "interrupt still diverges"
        ),
        rule=joypad_irq_rule,
    ),
    AllowlistEntry(
        name="pyboy-joypad-irq-p1-select",
        masks=(
            "bit 4 (joypad) of IF (0xFF0F) when emurust has it set and PyBoy not, all other "
            "IF bits equal, and emurust's traced re-run of the frame (from the last matching "
            "point) set it in a write to P1 (ldh ($00),a, ld ($ff00),a, ld ($ff00+c),a with "
            "C = 0, ld (hl),r with HL = 0xFF00), the last step of the frame that set it; or "
            "it was set so at an earlier point, masked there by this entry, and has stayed "
            "set in emurust through the whole traced frame"
        ),
        evidence=(
            "Pan Docs, 'Interrupt Sources', INT $60: the joypad interrupt is requested when "
            "one of P1 bits 0-3 goes from high to low; selecting a row (P14/P15 low) while "
            "one of its buttons is held pulls its line low (Pan Docs 'Joypad Input': the "
            "lines are the button matrix seen through the selected rows), so the write "
            "requests it. PyBoy 2.8.1 requests it only on a button event "
            "(pyboy/core/mb.py, Motherboard.buttonevent; a P1 write only stores the select "
            "bits, pyboy/core/interaction.py). No test ROM in the shared set covers the "
            "joypad interrupt. Only the flag is masked: a game that enables the interrupt "
            "still diverges. Seen in 2048 (seed 0, frame 7: DOWN held, the game's joypad "
            "read selects the direction row after deselecting both)"
        ),
        rule=p1_select_irq_rule,
    ),
    AllowlistEntry(
        name="pyboy-line-153-ly-boot-loop",
        masks=(
            "registers A, F, E and PC, and the clock offset of the instruction boundaries, "
            "while both emulators are in the logo loop of PyBoy's boot ROM (0x0059-0x006F), "
            "which polls LY (only with boot_rom=pyboy_boot_rom())"
        ),
        evidence=(
            "PyBoy reads LY = 153 for the whole of line 153; a DMG reads 0 after its first "
            "M-cycle (Pan Docs 'LY'; gbmicrotest line_153_ly_c and line_153_ly_d, verified on "
            "a DMG: emurust passes, PyBoy reads 0x99). The loop leaves no trace in memory"
        ),
        rule=boot_ly_loop_rule,
    ),
    AllowlistEntry(
        name="pyboy-halt-pc",
        masks=(
            "register PC while the CPU is halted, when PyBoy's PC points at the HALT opcode "
            "(0x76) and emurust's at the byte after it"
        ),
        evidence=(
            "representation only, not a behaviour difference: PyBoy keeps PC on the HALT "
            "instruction while halted and adds 1 when it wakes (pyboy/core/cpu.py, "
            "check_interrupts); the DMG has fetched the next opcode already (Pan Docs, "
            "'halt'). Both then continue at the same address."
        ),
        rule=halt_pc_rule,
    ),
    AllowlistEntry(
        name="pyboy-late-interrupt-4-cycles",
        masks=(
            "a comparison point whose differences are in the clock, the CPU registers, "
            "memory, and (when emurust stopped past PyBoy's clock) the time-driven I/O "
            "registers DIV/TIMA/IF/STAT/LY, when emurust's machine 4 T-cycles earlier "
            "(re-run from the last matching point) equals PyBoy's in registers, WRAM, HRAM, "
            "VRAM and OAM: PyBoy runs the same instructions 4 T-cycles later"
        ),
        evidence=(
            "PyBoy services interrupts 4 T-cycles late, from HALT and from running code "
            "(gbmicrotest int_vblank1_halt, int_vblank2_halt, vblank_int_halt_b, "
            "vblank2_int_halt_b, vblank_int_nops_b, int_timer_halt, verified on a DMG: "
            "emurust passes, PyBoy fails); the game code after the interrupt then runs "
            "4 T-cycles later in PyBoy until both halt again"
        ),
        rule=late_interrupt_rule,
    ),
    AllowlistEntry(
        name="pyboy-lcd-enable-frame",
        masks=(
            "the screen of the PyBoy frame that follows a frame cut short by an LCD enable, "
            "when PyBoy shows it as one flat BG colour 0 (through BGP) and emurust shows it "
            "blank (every pixel shade 0)"
        ),
        evidence=(
            "Pan Docs (LCDC.7: the screen stays blank during the first frame after the LCD "
            "is switched on; a blank DMG LCD is white, shade 0). PyBoy ends a frame at every "
            "LCD enable, so its frame grid is shifted against emurust's (frames end at VBlank "
            "start) from there on, and the paired PyBoy frame is that blank first frame, which "
            "PyBoy fills with BG colour 0 through BGP: black in Pandora's Blocks (BGP colour 0 "
            "= shade 3, seed 0, frame 46). A pairing and blank-colour difference, not a proven "
            "emulation error (PyBoy 2.8.1 passes Mooneye acceptance/ppu/lcdon_timing-GS)"
        ),
        rule=first_frame_after_lcd_enable_rule,
    ),
    AllowlistEntry(
        name="boot-logo-scx-wobble",
        masks=(
            "while the boot ROM is mapped (only with boot_rom=pyboy_boot_rom(): the default "
            "boot ROM draws no logo), the differing pixels of a screen row whose SCX changes "
            "before the next row, when emurust's whole row is the background drawn from VRAM "
            "with the SCX in force at the start of the row's mode 3 and PyBoy's whole row the "
            "same background drawn with the next row's SCX (both recomputed from emurust's "
            "VRAM and registers, re-run from the last matching point to each row's mode 3)"
        ),
        evidence=(
            "The scrolling logo of PyBoy's boot ROM writes SCX once a line, after polling LY. "
            "PyBoy samples SCX once per line at the end of mode 3, where a DMG's fetcher reads "
            "it tile by tile: mealybug-tearoom-tests m3_scx_low_3_bits and m3_scx_high_5_bits "
            "(DMG screenshots), which emurust passes (tests/ppu_screens.rs) and PyBoy fails. "
            "PyBoy also leaves the LY-polling loop at other cycles (it reads LY = 153 for all "
            "of line 153: pyboy-line-153-ly-boot-loop) and its PPU runs 4 T-cycles late after "
            "the boot ROM's LCD enable (pyboy-lcd-enable-4-cycles-terminal), so the next "
            "line's write lands before PyBoy's sample and after emurust's fetches. Seen on "
            "rows 67-82 from frame 24 (2048 with PyBoy's boot ROM, no input)"
        ),
        rule=boot_logo_rule,
    ),
    AllowlistEntry(
        name="pyboy-object-priority-bg-over-obj",
        masks=(
            "screen pixels where two objects overlap and the higher-priority one (smaller X, "
            "then OAM order) has an opaque pixel with its BG-over-OBJ bit (attribute bit 7) "
            "set over BG colour 1-3: each masked pixel is recomputed from VRAM, OAM and the "
            "LCD registers of its row (emurust re-run from the last matching point to that "
            "row's mode 3) under the DMG rule and under PyBoy's, and masked only where the "
            "two rules differ, emurust shows the DMG rule's shade and PyBoy its own (pixels "
            "under the window are never masked)"
        ),
        evidence=(
            "Pan Docs, 'OAM', 'Drawing priority' (tip 'Interaction with \"BG over OBJ\" "
            "flag'): the PPU first picks the highest-priority opaque object pixel, and only "
            "then checks that object's BG-over-OBJ bit, so such an object masks the objects "
            "below it and the BG shows. PyBoy 2.8.1 draws objects from the lowest priority up "
            "and skips masked pixels (pyboy/core/lcd.py, Renderer.scanline_sprites), so the "
            "lower-priority object shows. No test ROM in the shared set isolates this: "
            "dmg-acid2, the mealybug ROMs and mooneye manual-only/sprite_priority do not "
            "combine overlapping objects with the BG-over-OBJ bit over BG colour 1-3"
        ),
        rule=object_priority_rule,
    ),
    AllowlistEntry(
        name="pyboy-serial-transfer-instant",
        masks=(
            "bit 7 of SC (0xFF02) when emurust reads it set and PyBoy clear (other compared "
            "bit, 0, equal and set), and emurust's traced re-run of the frame executed "
            "ldh ($ff02),a with bits 7 and 0 set less than 4096 T-cycles (8 bits at 8192 Hz) "
            "before the comparison point"
        ),
        evidence=(
            "Pan Docs 'Serial Data Transfer': with the internal clock a transfer shifts one "
            "bit per 512 T-cycles and SC bit 7 stays set until the 8th bit; PyBoy 2.8.1 "
            "without a link partner clears it earlier. Not checked against a hardware test "
            "ROM (none in the shared set isolates the transfer length). Only the bit is "
            "masked: a program that polls it still diverges"
        ),
        rule=serial_busy_rule,
    ),
    AllowlistEntry(
        name="pyboy-line-153-ly-terminal",
        masks=(
            "nothing: a terminal entry. The run stops (status allowlisted) when emurust's "
            "traced re-run of the frame (from the last matching point) has an LY read "
            "(ldh a,($ff44) / ld a,($ff44) / ld a,($ff00+c) with C = $44) that returned 0 "
            "in line 153 (emurust shows LY 0 "
            "in STAT mode 1 at the start or end of the read) and either (a) PyBoy's A is "
            "153, the only differences are registers and the clock, and emurust went from "
            "that read to PyBoy's PC through instructions that keep A (cp, jr/jp, "
            "conditional ret, inc/dec "
            "of other registers, nop) with A still 0 and its registers at PC equal to "
            "PyBoy's except A and F; or (b) PyBoy's registers, WRAM, HRAM, VRAM and OAM "
            "equal emurust's right after that read, A aside when PyBoy's is 153 (PyBoy has "
            "just read 153 there, or it left the LY loop when LY wrapped to 0, a line "
            "later, with A = 0); or (c) PyBoy's A is 153 and its PC is in the poll loop "
            "emurust left (from the read to the conditional jump back to it), and PyBoy's "
            "registers other than A, F and PC, WRAM, HRAM, VRAM and OAM equal emurust's at "
            "the read (bytes up to 32 below SP aside: dead stack); no screen differences in "
            "any case"
            "; in case (b) WRAM/HRAM bytes up to 32 below SP (dead stack) aside, "
            "at least one of them differing, when nothing else explains the frame"
        ),
        evidence=(
            "PyBoy reads LY = 153 for the whole of line 153; a DMG reads 0 from about 4 "
            "T-cycles into line 153 (Pan Docs 'LY'; gbmicrotest line_153_ly_b/c/d/f: "
            "emurust passes, PyBoy fails). The program then takes another branch, so no "
            "mask can keep the two in step"
        ),
        rule=never,
        prove=ly153_dead_stack_proof,
    ),
    AllowlistEntry(
        name="pyboy-lcd-enable-4-cycles-terminal",
        masks=(
            "nothing: a terminal entry. The run stops (status allowlisted) when the only "
            "differences are registers, the clock, memory and I/O, and emurust re-run from "
            "the last matching point with its line starts seen 4 T-cycles late reaches "
            "PyBoy's state: a step (instruction, interrupt dispatch, halted step) in which "
            "a line starts (LY changes, STAT enters mode 2, or mode 1 from mode 0), or mode "
            "0 starts on a line with a minimum-length mode 3 (SCX a multiple of 8, no "
            "window, no object on the line), is re-run with the PPU's line-start and "
            "next-event clocks 4 T-cycles later in a save state, put back once that event "
            "has happened; at least one line start must have been delayed, and the re-run "
            "must stop at PyBoy's clock exactly (or 4 T-cycles before it when emurust's "
            "traced frame serviced an interrupt: PyBoy's late interrupt, "
            "pyboy-late-interrupt-4-cycles; then DIV/TIMA/IF are not compared) with its "
            "registers, WRAM, HRAM, VRAM, OAM and I/O registers equal to PyBoy's, except "
            "differences that emurust itself has there and an allowlist entry masked, LY "
            "and STAT (PyBoy's line position), and WRAM/HRAM bytes up to 32 below SP (dead "
            "stack written by interrupt entries)"
        ),
        evidence=(
            "PyBoy's lines start 4 T-cycles later than a DMG's after an LCD enable: "
            "gbmicrotest lcdon_to_ly1_b, lcdon_to_ly2_b, lcdon_to_ly3_b (LY increments), "
            "lcdon_to_stat2_a/b/d (mode 2), lcdon_to_stat0_b/d (mode 0 on a plain line), "
            "lcdon_to_oam_int_l0/l1/l2 and lcdon_to_if_oam_b (the mode 2 interrupt), "
            "verified on a DMG: emurust passes, PyBoy fails. Its VBlank interrupt timing "
            "is wrong too (vblank_int_if_b/d, "
            "vblank_int_nops_b, vblank_int_halt_b, vblank2_int_halt_b: emurust passes, "
            "PyBoy fails), hence the dead stack bytes and the extra 4 T-cycles after an "
            "interrupt. "
            "A polling loop that reads STAT/LY at a line start takes another branch, so no "
            "mask can keep the two in step"
        ),
        rule=never,
        prove=lcd_enable_late_proof,
    ),
    AllowlistEntry(
        name="pyboy-window-ly-ge-wy-terminal",
        masks=(
            "nothing: a terminal entry, tried after pyboy-lcd-enable-4-cycles-terminal. The "
            "run stops (status allowlisted) when emurust re-run as that entry's proof does "
            "(line starts seen 4 T-cycles late, the same comparison at PyBoy's clock) and, "
            "before every step, with its window's WY latch set to PyBoy's rule (LCDC.5 set "
            "and LY >= WY) reaches PyBoy's state, and the rule changed the latch before at "
            "least one step"
        ),
        evidence=(
            "A DMG starts the window on a line only after LY = WY was seen with LCDC.5 set "
            "in this frame: gambatte window/arg/late_enable_afterVblank_3 (LCDC.5 set before "
            "line 1's LY = WY comparison, WY = 1: the window lengthens mode 3, out3) and "
            "_5 (set 2 M-cycles later, after it: no window on the line, out0), verified on "
            "a DMG; emurust passes both, PyBoy 2.8.1 passes _3 and fails _5: it times mode "
            "3 with the window on every line with LY >= WY while LCDC.5 is set. Seen in "
            "2048, which turns its window on (LCDC 0x91 -> 0xE3, WY = 0) after LY passed "
            "WY: PyBoy lengthens mode 3 on the rest of the frame, emurust does not, and its "
            "STAT-polled VRAM copy copies a different number of bytes per line"
        ),
        rule=never,
        prove=window_late_proof,
    ),
    AllowlistEntry(
        name="pyboy-vblank-ly-late-terminal",
        masks=(
            "nothing: a terminal entry, tried after pyboy-lcd-enable-4-cycles-terminal. The "
            "run stops (status allowlisted) when emurust re-run as that entry's proof does "
            "(line starts seen 4 T-cycles late, the same comparison at PyBoy's clock), with "
            "the starts of lines 144-153 (LY changes to 144..153, and with line 144 the "
            "VBlank interrupt) seen 4 T-cycles later still, reaches PyBoy's state, at least "
            "one such VBlank line start was delayed, and the late lines alone (that entry's "
            "proof) do not reach it"
        ),
        evidence=(
            "PyBoy 2.8.1 advances LY on lines 1-143 200 T-cycles after mode 0 starts and "
            "then 4 T-cycles more to mode 2, but from line 143 on it stays in mode 0 for "
            "204 T-cycles and advances LY with the mode 1 transition (pyboy/core/lcd.py, "
            "LCD.tick), so LY changes to 144..153 4 T-cycles later than its other lines, "
            "and it raises the VBlank interrupt in that same transition. A DMG advances LY "
            "at the same point of every line (Pan Docs 'LY'), and its VBlank interrupt "
            "comes earlier than PyBoy's: gbmicrotest vblank_int_if_b/d and vblank2_int_if_b/"
            "d, verified on a DMG: emurust passes, PyBoy fails. Seen in Pandora's Blocks "
            "(seed 0, frame 47 on): its loop waiting for LY = 144 leaves one turn (28 "
            "T-cycles) later in PyBoy"
        ),
        rule=never,
        prove=vblank_late_proof,
    ),
    AllowlistEntry(
        name="pyboy-reads-8-cycles-late-terminal",
        masks=(
            "nothing: a terminal entry, tried after the other terminal entries. The run "
            "stops (status allowlisted) when the only differences are registers, the clock, "
            "memory and I/O, and emurust re-run from the last matching point, its LCD on "
            "at every step, with "
            "its PPU's line timing and its timer's system counter moved 8 T-cycles late "
            "(GameBoy._test_shift_ppu, GameBoy._test_shift_timer; 8 CPU T-cycles, so the "
            "PPU 4 dots, on a CGB in double speed), and failing that with the "
            "starts of lines 144-153 (LY changes to 144..153) 4 T-cycles later still, at "
            "least one of them delayed so (as pyboy-vblank-ly-late-terminal), reaches "
            "PyBoy's state at "
            "PyBoy's clock exactly (or 4 T-cycles before it when emurust's traced frame "
            "serviced an interrupt: pyboy-late-interrupt-4-cycles; then DIV and TIMA are not "
            "compared): registers, WRAM, HRAM, VRAM, OAM and I/O registers equal, except "
            "differences that emurust itself has there and an allowlist entry masked, LY "
            "and STAT (the shifted line position), DIV one step below PyBoy's (the shifted "
            "counter), and WRAM/HRAM bytes up to 32 below SP (dead stack)"
        ),
        evidence=(
            "PyBoy 2.8.1 reads I/O registers early in an instruction (pyboy/core/"
            "opcodes.py): ldh a,(n) after 4 T-cycles (LDH_F0 adds 4 and reads), ld a,(nn) "
            "after 8, ld a,(c) at once, where the DMG reads in the instruction's last "
            "M-cycle: 8 T-cycles before the point where emurust samples the PPU and DIV "
            "(the end of that M-cycle; 4 for ld a,(hl), which this entry does not model). "
            "From the second frame after an LCD enable PyBoy's PPU and its timer's counter "
            "run at emurust's clock (a resync reproduces emurust's own line start and "
            "counter), so PyBoy's program sees STAT, LY and DIV as a DMG does 8 T-cycles "
            "later; in the first frame PyBoy's lines start 4 T-cycles early, which leaves "
            "the 4 T-cycles of "
            "pyboy-lcd-enable-4-cycles-terminal. emurust reads what a DMG reads: "
            "gbmicrotest poweron_stat_*, poweron_ly_* and poweron_div_* (STAT, LY and DIV "
            "read at exact cycles in the frames after the boot ROM's LCD enable), "
            "div_inc_timing_a/b and lcdon_to_stat0_a-d, verified on a DMG: emurust passes "
            "all. Seen in 2048 (seed 0, frames 7, 198, 368, 984: a STAT-polled VRAM copy "
            "leaves its poll one turn later in PyBoy, and the DIV-seeded random number "
            "differs), ucity (frame 15) and Pandora's Blocks (seed 0, 14 frames from 48 "
            "to 151: its wait loop at 0x0011-0x0017 leaves one turn later in PyBoy, "
            "with the late VBlank lines)"
        ),
        rule=never,
        prove=read_lag_proof,
    ),
    AllowlistEntry(
        name="pyboy-line-153-reads-replayed-terminal",
        masks=(
            "nothing: a terminal entry, tried after pyboy-reads-8-cycles-late-terminal. The "
            "run stops (status allowlisted) when the only differences are registers, the "
            "clock, memory and I/O, and emurust re-run from the last matching point as "
            "pyboy-reads-8-cycles-late-terminal's proof re-runs it (PPU line timing and "
            "timer system counter 8 T-cycles late, the PPU 4 dots in double speed; then "
            "with the late VBlank lines), or failing that as "
            "pyboy-lcd-enable-4-cycles-terminal's (line starts seen 4 dots late), with "
            "every STAT or LY read into A (ldh a,(n), ld a,($ff00+c), ld a,(nn)) made after "
            "emurust's LY wrapped to 0 in line 153 and before its mode 2 of line 0 answered "
            "as PyBoy answers it (LY: 153; STAT: mode 1 and the LY=LYC flag of LY = 153, "
            "the other bits as read; at least one read answered so), reaches PyBoy's state "
            "with the comparison and the exceptions of the re-run's own entry; not where "
            "pyboy-line-153-ly-terminal's proof explains the point (the line-153 deviation "
            "alone)"
        ),
        evidence=(
            "The two deviations the re-runs combine are each shown on their own: PyBoy "
            "2.8.1 reads I/O registers 8 T-cycles early (pyboy-reads-8-cycles-late-"
            "terminal's evidence; in double speed 8 CPU T-cycles are 4 dots: its LDH_F0 "
            "reads after 4 T-cycles and LD_F2 at once, pyboy/core/opcodes.py, and its LCD "
            "counts the CPU's cycles halved, pyboy/core/lcd.py LCD.tick) or starts its lines "
            "4 dots late after an LCD enable (pyboy-lcd-enable-4-cycles-terminal's), and it "
            "holds LY = 153 and mode 1 for the whole of line 153, its LY=LYC flag computed "
            "from 153, until its line 0 starts with mode 2 (pyboy/core/lcd.py, LCD.tick; "
            "pyboy-line-153-ly-terminal's evidence, gbmicrotest line_153_ly_b/c/d/f). "
            "Seen in µCity (cgb_from_frame=200, seed 0, double speed): at frame 5 its "
            "STAT-polled VRAM copy (ldh a,($41); bit 1,a; jr nz) takes the VBlank interrupt "
            "in another instruction and ends the frame one poll turn behind in PyBoy; the "
            "read-lag re-run makes every STAT read of the frame at PyBoy's clock and PC "
            "with PyBoy's mode, and its reads after LY wrapped in line 153 differ only in "
            "the LY=LYC flag (0x85, PyBoy 0x81) and the last, before line 0's mode 2, in "
            "the mode (0x84); frames 413 and 483 (the first frames after an LCD enable) "
            "end the same way, frames 156 and 512 with an LY poll that reads 0 where PyBoy "
            "reads 153"
        ),
        rule=never,
        prove=line153_replay_proof,
    ),
    AllowlistEntry(
        name="pyboy-lcd-enable-vblank-early-terminal",
        masks=(
            "nothing: a terminal entry, tried after the other late-line entries. The run "
            "stops (status allowlisted) when the only differences are registers, the "
            "clock, memory and I/O, the LCD was switched on in the compared frame, and "
            "emurust re-run from the last matching point with line 144 of that first frame "
            "(LY 143 -> 144, STAT mode 1, the VBlank interrupt) starting 4 T-cycles early "
            "(the step before the one where LY changed to 144 re-run with the PPU's line "
            "timing 4 T-cycles earlier, kept so until the end of that VBlank) reaches PyBoy's "
            "clock exactly with its registers, WRAM, HRAM, VRAM, OAM and I/O registers "
            "equal to PyBoy's, except differences that emurust itself has there and an "
            "allowlist entry masked, and LY and STAT (no dead stack bytes: a frame whose "
            "code ran differently earlier can end with only those); and emurust as it ran "
            "(nothing moved) has that same state 4 T-cycles after PyBoy's clock (DIV, TIMA, "
            "IF, STAT and LY aside): the same code, only 4 T-cycles later"
        ),
        evidence=(
            "In the first frame after an LCD enable PyBoy 2.8.1 stays in mode 0 of line 143 "
            "for 200 T-cycles instead of its usual 204 (pyboy/core/lcd.py, LCD.tick: "
            "first_frame), so line 144 and its VBlank interrupt come 4 T-cycles earlier "
            "than in its later frames and than on a DMG: gbmicrotest "
            "lcdon_halt_to_vblank_int_b and lcdon_nops_to_vblank_int_b (LCD on, then the "
            "VBlank interrupt from HALT or from a NOP sled, timed with DIV), verified on a "
            "DMG: emurust passes both, PyBoy fails both (and passes the _a variants, one "
            "M-cycle earlier). Seen in libbet (seed 0, frame 450): halted from line 16, the "
            "game's VBlank handler starts 4 T-cycles earlier in PyBoy and the whole frame "
            "then runs 4 T-cycles ahead of emurust"
        ),
        rule=never,
        prove=first_vblank_early_proof,
    ),
    AllowlistEntry(
        name="pyboy-ei-halt-returns-to-halt-terminal",
        masks=(
            "nothing: a terminal entry. The run stops (status allowlisted) when the only "
            "differences are registers, the clock, memory and I/O, and emurust re-run from "
            "the last matching point with the return address of every interrupt dispatch "
            "that ends a HALT executed directly after EI while IE & IF was 0 set to the "
            "HALT's own address (so the handler's RETI comes back to the HALT, which halts "
            "again), at least one such dispatch, reaches PyBoy's clock exactly with its "
            "registers, WRAM, HRAM, VRAM, OAM and I/O registers equal to PyBoy's, "
            "except differences that emurust itself has there and an allowlist entry "
            "masked, LY and STAT, and PyBoy's PC on a HALT where emurust's is past it "
            "(pyboy-halt-pc)"
        ),
        evidence=(
            "Pan Docs 'halt' ('halt bug'): the HALT after EI returns to itself only when "
            "an interrupt is pending as it executes ([IE] & [IF] != 0); otherwise the CPU "
            "halts, IME is set, and the interrupt that wakes it returns after the HALT, as "
            "on any HALT with IME = 1. PyBoy 2.8.1 marks every HALT run in EI's delay slot "
            "(pyboy/core/opcodes.py HALT_76: halted_during_ei), pending interrupt or not, "
            "and then does not step PC past it when an interrupt wakes it "
            "(pyboy/core/cpu.py, CPU.check_interrupts), so the common 'ei; halt' wait "
            "takes a second interrupt. No test ROM in the shared set isolates it: 30 of "
            "them (mooneye, gbmicrotest, gambatte halt and irq_precedence) run such a "
            "HALT in PyBoy, with the same verdict either way (their handlers do not "
            "return, or another interrupt follows at once). Seen in Tobu Tobu Girl (seed "
            "0, frame 965: its VBlank handler returns to the HALT at 0x34C4 and PyBoy "
            "sleeps to the frame end while the game runs on in emurust)"
        ),
        rule=never,
        prove=ei_halt_proof,
    ),
    AllowlistEntry(
        name="pyboy-reads-8-cycles-late-irq-4-terminal",
        masks=(
            "nothing: a terminal entry, tried last, only where "
            "pyboy-reads-8-cycles-late-terminal's re-run does not reach PyBoy's state. The "
            "run stops (status allowlisted) when the only differences are registers, the "
            "clock, memory and I/O, and emurust re-run from the last matching point as in "
            "pyboy-reads-8-cycles-late-terminal (LCD on at every step, PPU line timing and "
            "timer system counter 8 T-cycles late, no late VBlank lines), except that each "
            "interrupt request of the PPU (VBlank, STAT) is served as if made 4 T-cycles "
            "before the late PPU makes it (a probe machine with the PPU 4 T-cycles late is "
            "stepped alongside; where its step dispatches the interrupt and the re-run's "
            "does not, the re-run takes the probe's state with its PPU put 8 T-cycles late "
            "again; at least one dispatch moved so), reaches PyBoy's state at PyBoy's "
            "clock (or 4 T-cycles before it when emurust's traced frame serviced an "
            "interrupt, then DIV and TIMA not compared), with the same exceptions as "
            "pyboy-reads-8-cycles-late-terminal"
        ),
        evidence=(
            "PyBoy 2.8.1's program reads the PPU 8 T-cycles early "
            "(pyboy-reads-8-cycles-late-terminal's evidence), but it services the PPU's "
            "interrupts only 4 T-cycles late (pyboy-late-interrupt-4-cycles; its CPU "
            "checks IF at the start of CPU.tick, pyboy/core/cpu.py, after the instruction "
            "in which the request fell): with the whole PPU 8 T-cycles late a re-run takes the "
            "VBlank interrupt one 4-cycle instruction after PyBoy does. emurust's "
            "interrupt timing is a DMG's: Mooneye acceptance/intr_timing, "
            "di_timing-GS, halt_ime0_nointr_timing, halt_ime1_timing2-GS, ppu/intr_2_* and "
            "vblank_stat_intr-GS pass. Seen in 2048 (seed 0, frame 365): PyBoy takes "
            "VBlank after ld l,c at 0x05AD, the 8-cycle re-run after ld h,b at 0x05AE, and "
            "the pushed H (1 in PyBoy, 5 in the re-run) stays at 0xDFEB, which the "
            "function at 0x05E7 then allocates as a local (add sp,-6): the only "
            "difference left"
        ),
        rule=never,
        prove=read_lag_irq_proof,
    ),
    AllowlistEntry(
        name="pyboy-reads-8-cycles-late-lcd-off-terminal",
        masks=(
            "nothing: a terminal entry, tried last. pyboy-reads-8-cycles-late-terminal for a "
            "frame in which the LCD is off at the start or is switched off (never on): the run "
            "stops (status allowlisted) when the only differences are registers, the clock, "
            "memory and I/O, the frame is not the first after an LCD enable, emurust's traced "
            "frame reads DIV, TIMA, STAT or LY (ldh a,(n), ld a,(nn), ld a,(c), (hl)) and has no "
            "interrupt dispatch and no HALT, and emurust "
            "re-run from the last matching point with its timer's "
            "system counter 8 T-cycles late (GameBoy._test_shift_timer), and its PPU's line "
            "timing too while the LCD is on (GameBoy._test_shift_ppu), no LCD switch-on on "
            "the way, reaches PyBoy's state at PyBoy's clock exactly (or 4 T-cycles before it "
            "when emurust's traced frame serviced an interrupt; then DIV and TIMA are not "
            "compared), with the same exceptions as pyboy-reads-8-cycles-late-terminal"
        ),
        evidence=(
            "As pyboy-reads-8-cycles-late-terminal: PyBoy 2.8.1 reads I/O registers 8 "
            "T-cycles before a DMG does in the instruction (pyboy/core/opcodes.py; its timer "
            "is ticked to the CPU clock of the instruction, pyboy/core/mb.py getitem 0xFF04-"
            "0xFF07, without the memory access offset), with the LCD off as well (the timer "
            "runs on). emurust reads what a DMG reads: gbmicrotest div_inc_timing_a/b, "
            "mooneye timer tests. Seen in Pandora's Blocks (seed 0, frame 156: xor (hl) on "
            "TIMA with the LCD off reads 0x54 in emurust, 0x53 in PyBoy) and Tobu Tobu Girl "
            "(seed 0, frame 633: a poll of LY for 0x91 leaves one turn later in PyBoy, then "
            "switches the LCD off)"
        ),
        rule=never,
        prove=read_lag_lcd_off_proof,
    ),
)
"""The documented differences the harness tolerates (see :class:`AllowlistEntry`)."""
