//! The fast path (event scheduler, lazy catch-up, HALT fast-forward) must be
//! indistinguishable from the slow reference path (every component stepped
//! every M-cycle): same registers, cycle counts, RAM, VRAM, OAM, I/O and
//! serial output at every frame, on test ROMs and games with scripted input.
mod common;

use emurust::{Button, GameBoy};

fn snapshot(gb: &GameBoy) -> (emurust::Registers, u64, Vec<u8>, Vec<u8>) {
    let hw = gb.hardware();
    let mut mem = gb.ram().to_vec();
    mem.extend_from_slice(&hw.ppu.vram()[..]);
    mem.extend_from_slice(hw.ppu.oam());
    let io: Vec<u8> = (0xFF00..=0xFF7Fu16).map(|a| gb.peek(a)).collect();
    mem.extend_from_slice(&io);
    mem.push(gb.peek(0xFFFF));
    (
        gb.registers(),
        gb.cycles(),
        mem,
        gb.serial_output().to_vec(),
    )
}

/// Deterministic input script: a different button every 7 frames, held 3.
fn script(frame: u64, gb: &mut GameBoy) {
    if frame % 7 == 0 {
        let b = Button::ALL[((frame / 7) * 5 % 8) as usize];
        gb.press_for(b, 3);
    }
}

fn compare(rel: &str, frames: u64, with_input: bool) {
    let Some(rom) = common::load(rel) else { return };
    let input = if with_input {
        script
    } else {
        |_: u64, _: &mut GameBoy| {}
    };
    compare_rom(rel, &rom, frames, input);
}

/// Run `rom` on the fast and the reference path side by side, `input`
/// applied to both before each frame, and panic at the first frame whose
/// state differs.
fn compare_rom(name: &str, rom: &[u8], frames: u64, input: fn(u64, &mut GameBoy)) -> GameBoy {
    let mut fast = GameBoy::new(rom, None).unwrap();
    let mut slow = GameBoy::new(rom, None).unwrap();
    slow.set_reference_mode(true);
    for f in 0..frames {
        input(f, &mut fast);
        input(f, &mut slow);
        fast.run_frame(false);
        slow.run_frame(false);
        let (a, b) = (snapshot(&fast), snapshot(&slow));
        if a != b {
            let (ra, ca, ma, _) = &a;
            let (rb, cb, mb, _) = &b;
            let first = ma.iter().zip(mb.iter()).position(|(x, y)| x != y);
            panic!(
                "{name}: fast and reference paths diverge at frame {f}:\n fast {ra:?} @{ca}\n ref  {rb:?} @{cb}\n first differing state byte index: {first:?}"
            );
        }
    }
    fast
}

#[test]
fn cpu_instrs() {
    compare("blargg/cpu_instrs/cpu_instrs.gb", 400, false);
}

#[test]
fn halt_bug_and_timing_roms() {
    compare("blargg/halt_bug.gb", 120, false);
    compare("blargg/mem_timing-2/mem_timing.gb", 250, false);
    compare("mooneye/acceptance/timer/tim00_div_trigger.gb", 30, false);
    compare("mooneye/acceptance/timer/tma_write_reloading.gb", 30, false);
    compare("mooneye/acceptance/oam_dma_restart.gb", 30, false);
    compare("mooneye/acceptance/ppu/stat_irq_blocking.gb", 30, false);
    compare("mooneye/acceptance/halt_ime1_timing2-GS.gb", 30, false);
    compare(
        "mooneye/acceptance/serial/boot_sclk_align-dmgABCmgb.gb",
        30,
        false,
    );
}

#[test]
fn game_2048_with_input() {
    compare("homebrew/2048/2048.gb", 600, true);
}

#[test]
fn tobu_tobu_girl_with_input() {
    compare("homebrew/tobutobugirl/tobu.gb", 600, true);
}

#[test]
fn libbet_with_input() {
    compare("homebrew/libbet/libbet.gb", 600, true);
}

/// Saving, loading into a fresh instance and continuing gives bit-identical
/// results to never having stopped.
#[test]
fn save_state_continuation_is_identical() {
    for rel in [
        "homebrew/tobutobugirl/tobu.gb",
        "blargg/cpu_instrs/cpu_instrs.gb",
    ] {
        let Some(rom) = common::load(rel) else {
            continue;
        };
        let mut a = GameBoy::new(&rom, None).unwrap();
        for f in 0..300 {
            script(f, &mut a);
            a.run_frame(false);
        }
        let state = a.save_state();
        let mut b = GameBoy::new(&rom, None).unwrap();
        b.load_state(&state).unwrap();
        assert_eq!(snapshot(&a), snapshot(&b), "{rel}: state right after load");
        for f in 300..600 {
            script(f, &mut a);
            script(f, &mut b);
            a.run_frame(false);
            b.run_frame(false);
        }
        assert_eq!(snapshot(&a), snapshot(&b), "{rel}: after 300 more frames");
        assert_eq!(
            a.save_state(),
            b.save_state(),
            "{rel}: states after continuing"
        );
    }
}

/// A ROM made of the polling loops games wait in: an HRAM flag set by the
/// VBlank handler (AND A), STAT mode waits (BIT 1,A and AND 2), LY waits
/// (CP with JR C and JR NZ) and a joypad wait (BIT 0,A), between busy
/// countdowns. A timer interrupt every 2,048 T-cycles logs the countdown
/// register D to WRAM, so an exit from any loop one iteration early or late
/// moves what it logs. The STAT and LY loops are the shapes whose turns the
/// fast path skips (`PollLoop` in `cpu/run_table.rs`); the first ones are entered
/// by falling into them, the others by a jump (`JR +0`), with the condition
/// they wait for met or not yet met on entry. Two countdowns in HRAM (`DEC A;
/// JR NZ`, as OAM DMA routines wait in; the fast path skips their turns
/// too, `Countdown` in `cpu/run_table.rs`), one long enough for timer interrupts
/// to land in it. Needs no ROM files.
fn polling_rom() -> Vec<u8> {
    let mut rom = vec![0u8; 0x8000];
    let mut put = |at: usize, bytes: &[u8]| rom[at..at + bytes.len()].copy_from_slice(bytes);
    put(0x40, &[0xC3, 0x00, 0x03]); // VBlank: JP 0x0300
    put(0x50, &[0xC3, 0x10, 0x03]); // Timer: JP 0x0310
    put(0x100, &[0x00, 0xC3, 0xC0, 0x02]); // Entry: NOP; JP 0x02C0

    // Two countdowns, as OAM DMA routines wait in, for HRAM 0xFFA0 and
    // 0xFFA6: LD A,n; DEC A; JR NZ,-3; RET, with n = 0 (256 turns, through
    // a timer interrupt or two) and n = 5.
    put(0x2B0, &[0x3E, 0x00, 0x3D, 0x20, 0xFD, 0xC9]);
    put(0x2B6, &[0x3E, 0x05, 0x3D, 0x20, 0xFD, 0xC9]);
    // 0x02C0: copy them to HRAM, then JP 0x0150.
    put(
        0x2C0,
        &[
            0x21, 0xB0, 0x02, // LD HL,0x02B0
            0x0E, 0xA0, // LD C,0xA0
            0x06, 0x0C, // LD B,12
            0x2A, 0xE2, 0x0C, 0x05, 0x20, 0xFA, // LD A,(HL+); LD (C),A; INC C; DEC B; JR NZ
            0xC3, 0x50, 0x01, // JP 0x0150
        ],
    );
    // VBlank handler: HRAM flag 0xFF90 = 1.
    put(0x300, &[0xF5, 0x3E, 0x01, 0xE0, 0x90, 0xF1, 0xD9]);
    // Timer handler: WRAM 0xC100[HRAM 0xFF92++] = D.
    put(
        0x310,
        &[
            0xF5, 0xE5, 0xF0, 0x92, 0x6F, 0x26, 0xC1, 0x72, 0x3C, 0xE0, 0x92, 0xE1, 0xF1, 0xD9,
        ],
    );
    let mut main: Vec<u8> = vec![
        0x31, 0xFE, 0xDF, // LD SP,0xDFFE
        0x3E, 0x05, 0xE0, 0x07, // TAC = 5: 262,144 Hz
        0x3E, 0x80, 0xE0, 0x06, // TMA = 0x80: overflow every 2,048 T-cycles
        0x3E, 0x05, 0xE0, 0xFF, // IE = VBlank | timer
        0x3E, 0x20, 0xE0, 0x00, // select the direction keys
        0x21, 0x00, 0xC0, // LD HL,0xC000
        0xFB, // EI
        // loop:
        0x03, // INC BC
        0xF0, 0x90, 0xA7, 0x28, 0xFB, // wait for the VBlank flag
        0xAF, 0xE0, 0x90, // clear it
        0xF0, 0x41, 0xCB, 0x4F, 0x28, 0xFA, // wait for mode 2 or 3
        0xF0, 0x41, 0xE6, 0x02, 0x20, 0xFA, // wait for mode 0 or 1
        0x16, 0x25, 0x15, 0x20, 0xFD, // busy: D = 0x25 down to 0
        0xF0, 0x44, 0xFE, 0x40, 0x38, 0xFA, // wait for LY >= 0x40
        0xF0, 0x44, 0xFE, 0x41, 0x20, 0xFA, // wait for LY == 0x41
    ];
    // Entered by a jump (JR +0), each after a delay of 0-7 M-cycles (so that
    // the loops start at every phase of their 8-M-cycle turn against the
    // PPU) and followed by a log of TIMA at (HL+) (it counts every 16
    // T-cycles: an exit a turn early or late shows). A wait for:
    let jumped_in: [[u8; 4]; 10] = [
        [0x41, 0xE6, 0x02, 0x20], // mode 0 or 1 (not yet)
        [0x41, 0xE6, 0x02, 0x20], // mode 0 or 1 (met)
        [0x41, 0xCB, 0x4F, 0x28], // mode 2 or 3 (not yet)
        [0x41, 0xCB, 0x4F, 0x28], // mode 2 or 3 (met)
        [0x44, 0xFE, 0x40, 0x30], // LY < 0x40 (not yet)
        [0x44, 0xFE, 0x10, 0x38], // LY >= 0x10 (not yet)
        [0x44, 0xFE, 0x10, 0x38], // LY >= 0x10 (met)
        [0x44, 0xFE, 0x20, 0x30], // LY < 0x20 (met)
        [0x44, 0xFE, 0x11, 0x20], // LY == 0x11
        [0x44, 0xFE, 0x11, 0x28], // LY != 0x11
    ];
    for [register, test, operand, jump] in jumped_in {
        main.extend([0xCD, 0x80, 0x02, 0x18, 0x00]); // CALL delay; JR +0
        main.extend([0xF0, register, test, operand, jump, 0xFA]);
        main.extend([0xF0, 0x05, 0x22]); // log TIMA
    }
    main.extend([
        // The HRAM countdowns, each followed by a log of TIMA.
        0xCD, 0xA0, 0xFF, 0xF0, 0x05, 0x22, // CALL 0xFFA0
        0xCD, 0xA6, 0xFF, 0xF0, 0x05, 0x22, // CALL 0xFFA6
        0xF0, 0x00, 0xCB, 0x47, 0x20, 0xFA, // wait for Right
        0x16, 0xFF, 0x15, 0x20, 0xFD, // busy: D = 0xFF down to 0
        0xF0, 0x04, 0x22, // log DIV at (HL+)
        0x7D, 0xE6, 0x7F, 0x6F, // keep HL in 0xC000..0xC07F
        0xC3, 0x67, 0x01, // JP loop (0x150 + 23)
    ]);
    assert!(0x150 + main.len() <= 0x280);
    put(0x150, &main);
    // The delay: C & 7 NOPs, through a jump into a sled of seven (0x291 to
    // 0x297; the ROM is zero-filled).
    put(
        0x280,
        &[
            0xE5, // PUSH HL
            // Read STAT, which brings the PPU up to date: a loop entered
            // soon after finds no transition pending, so its first turns
            // can be skipped, or not, with the wait over or not.
            0xF0, 0x41, // LDH A,(STAT)
            0x79, 0xE6, 0x07, 0x2F, 0x3C, // A = -(C & 7)
            0xC6, 0x98, 0x6F, 0x26, 0x02, // HL = 0x0298 + A
            0xE9, // JP (HL)
        ],
    );
    put(0x298, &[0xE1, 0xC9]); // POP HL; RET
    rom
}

#[test]
fn polling_loops_match_the_reference_path() {
    // Right held on two frames of every five: the joypad wait ends there.
    let input = |f: u64, gb: &mut GameBoy| {
        gb.set_buttons(if f % 5 < 2 {
            1 << Button::Right as u8
        } else {
            0
        });
    };
    let fast = compare_rom("polling ROM", &polling_rom(), 600, input);
    // The loops ran: the timer interrupts of the last frames (the log is a
    // ring of 256) caught the countdowns at several values, and the DIV log
    // filled.
    let mut seen = [false; 256];
    for a in 0xC100..=0xC1FFu16 {
        seen[fast.peek(a) as usize] = true;
    }
    let distinct = seen[1..].iter().filter(|&&s| s).count();
    assert!(
        distinct >= 4,
        "only {distinct} non-zero countdown values logged"
    );
    assert_ne!(fast.peek(0xC07F), 0);
}

/// A 64 KiB MBC1 cartridge whose entry point jumps to 0x0150, with
/// interrupt handlers that count STAT interrupts in E and timer interrupts
/// in D (VBlank returns at once); the program is the caller's.
fn interrupt_counting_cart() -> Vec<u8> {
    let mut rom = vec![0u8; 4 * 0x4000];
    rom[0x147] = 0x01; // MBC1
    rom[0x148] = 0x01; // 4 banks
    let mut put = |at: usize, bytes: &[u8]| rom[at..at + bytes.len()].copy_from_slice(bytes);
    put(0x40, &[0xD9]); // VBlank: RETI
    put(0x48, &[0x1C, 0xD9]); // STAT: INC E; RETI
    put(0x50, &[0x14, 0xD9]); // Timer: INC D; RETI
    put(0x100, &[0x00, 0xC3, 0x50, 0x01]); // NOP; JP 0x0150
    rom
}

/// A ROM (MBC1, four banks) that walks the edges of straight runs
/// (`cpu/run_table.rs`): self-modifying code in work RAM, code in HRAM and echo
/// RAM, a routine in bank 1 that switches itself out for bank 2 mid-run, an
/// instruction whose immediate lies across the 0x3FFF/0x4000 boundary,
/// read-modify-writes of TIMA, a PUSH and a POP onto the timer registers
/// (slow accesses that move the next event inside their instruction), and
/// DI, EI and HALT, all under STAT and timer interrupts every few hundred
/// T-cycles. Needs no ROM files.
fn straight_run_edges_rom() -> Vec<u8> {
    let mut rom = interrupt_counting_cart();
    let mut put = |at: usize, bytes: &[u8]| rom[at..at + bytes.len()].copy_from_slice(bytes);
    // Work RAM routine, copied to 0xC200: it rewrites the immediate of
    // its own LD B,n two instructions before running it.
    let wram: &[u8] = &[
        0xFA, 0x0A, 0xC2, // LD A,(0xC20A)
        0x3C, // INC A
        0xEA, 0x0A, 0xC2, // LD (0xC20A),A
        0x00, 0x00, // NOP; NOP
        0x06, 0x00, // 0xC209: LD B,n (n at 0xC20A)
        0x78, // LD A,B
        0xEA, 0x80, 0xC3, // LD (0xC380),A
        0xC9, // RET
        0xC9, // 0xC210: RET (called through echo RAM at 0xE210)
    ];
    put(0x600, wram);
    // Bank 1 at 0x4010: switch to bank 2, then (from bank 2) INC C; RET.
    put(0x4010, &[0x3E, 0x02, 0xEA, 0x00, 0x20, 0x0D, 0xC9]);
    put(0x8015, &[0x0C, 0xC9]);
    // 0x3FFC: NOP x3; LD A,n whose n is the first byte of the bank at
    // 0x4000 (bank 2: 0x77, bank 1: 0x11); then JP back to main.
    put(0x3FFC, &[0x00, 0x00, 0x00, 0x3E]);
    let back = 0x0200u16.to_le_bytes();
    put(0x4000, &[0x11, 0xC3, back[0], back[1]]);
    put(0x8000, &[0x77, 0xC3, back[0], back[1]]);
    let main: &[u8] = &[
        0x31, 0xF0, 0xDF, // LD SP,0xDFF0
        0x3E, 0x05, 0xE0, 0x07, // TAC = 5: 262,144 Hz
        0x3E, 0xF0, 0xE0, 0x06, // TMA = 0xF0: overflow every 256 T-cycles
        0x3E, 0x20, 0xE0, 0x41, // STAT: mode 2 interrupt
        0x3E, 0x07, 0xE0, 0xFF, // IE = VBlank | STAT | timer
        0x3E, 0xC9, 0xE0, 0x80, // HRAM 0xFF80: RET
        0x21, 0x00, 0x06, // LD HL,0x0600
        0x11, 0x00, 0xC2, // LD DE,0xC200
        0x06, 0x11, // LD B,17
        0x2A, 0x12, 0x13, 0x05, 0x20,
        0xFA, // copy: LD A,(HL+); LD (DE),A; INC DE; DEC B; JR NZ
        0xFB, // EI
    ];
    let body: &[u8] = &[
        0xCD, 0x00, 0xC2, // CALL 0xC200 (work RAM)
        0xCD, 0x80, 0xFF, // CALL 0xFF80 (HRAM)
        0xCD, 0x10, 0xE2, // CALL 0xE210 (echo RAM)
        0x21, 0x05, 0xFF, 0x34, 0x34, // LD HL,TIMA; INC (HL) twice
        0x01, 0xF0, 0x05, // LD BC,0x05F0
        0xF3, // DI: no interrupt may push onto the timer registers
        0x31, 0x08, 0xFF, // LD SP,0xFF08
        0xC5, // PUSH BC: TAC = 5, TMA = 0xF0
        0xC1, // POP BC: B = TAC (0xFD), C = TMA
        0x31, 0xF0, 0xDF, // LD SP,0xDFF0
        0xFB, // EI
        0x3E, 0x01, 0xEA, 0x00, 0x20, // bank 1
        0xCD, 0x10, 0x40, // CALL 0x4010 (switches to bank 2 mid-routine)
        0xC3, 0xFC, 0x3F, // JP 0x3FFC (comes back at 0x0200)
    ];
    put(0x150, main);
    let loop_at = (0x150 + main.len()) as u16;
    put(loop_at as usize, body);
    let [lo, hi] = loop_at.to_le_bytes();
    let after: &[u8] = &[
        0xEA, 0x81, 0xC3, // 0x0200: LD (0xC381),A
        0x79, 0xEA, 0x82, 0xC3, // LD A,C; LD (0xC382),A
        0xF3, // DI
        0x00, 0x3C, // NOP; INC A
        0xFB, // EI
        0x76, // HALT (until the next STAT or timer interrupt)
        0x00, // NOP
        0xC3, lo, hi, // JP loop
    ];
    put(0x200, after);
    rom
}

#[test]
fn straight_run_edges_match_the_reference_path() {
    let fast = compare_rom(
        "straight-run edges",
        &straight_run_edges_rom(),
        60,
        |_, _| {},
    );
    // The program went round: the rewritten immediate counts the loops,
    // the straddling LD read bank 2's byte, and bank 2's INC C ran.
    let loops = fast.peek(0xC20A);
    assert!(loops > 10, "only {loops} loops");
    assert_eq!(fast.peek(0xC380), loops);
    assert_eq!(fast.peek(0xC381), 0x77);
    assert_eq!(fast.peek(0xC382), 0xF1);
}

/// `LD (0xFF07),SP` writes TAC (starting the timer with TIMA = 0xFF) and
/// then the unmapped 0xFF08: when the overflow's interrupt request falls
/// on the M-cycle of the second write, the normal bus raises it at that
/// write's tick, and the interrupt is taken right after the instruction.
/// A straight run (no per-M-cycle event checks) must do the same after a
/// slow access. The store is repeated after 0 to 7 NOPs so that some of
/// the timer phases hit; `LD A,D` right after it logs whether the handler
/// (INC D) ran first.
fn slow_access_event_rom() -> Vec<u8> {
    let mut rom = vec![0u8; 0x8000];
    let mut put = |at: usize, bytes: &[u8]| rom[at..at + bytes.len()].copy_from_slice(bytes);
    put(0x50, &[0x14, 0xD9]); // Timer: INC D; RETI
    put(0x100, &[0x00, 0xC3, 0x50, 0x01]); // NOP; JP 0x0150
    let mut main = vec![
        0x31, 0x05, 0xDF, // LD SP,0xDF05 (low byte 5: TAC on, 262,144 Hz)
        0x3E, 0x04, 0xE0, 0xFF, // IE = timer
        0x21, 0x00, 0xC0, // LD HL,0xC000
        0xFB, // EI
    ];
    let loop_at = 0x150 + main.len();
    for nops in 0..8 {
        main.extend([0xAF, 0xE0, 0x07]); // TAC = 0 (stopped)
        main.extend([0x3E, 0xFF, 0xE0, 0x05]); // TIMA = 0xFF
        main.extend(std::iter::repeat_n(0x00, nops));
        main.extend([0x08, 0x07, 0xFF, 0x7A, 0x22]); // LD (0xFF07),SP; LD A,D; LD (HL+),A
    }
    main.extend([0x7D, 0xE6, 0x7F, 0x6F]); // keep HL in 0xC000..0xC07F
    let [lo, hi] = (loop_at as u16).to_le_bytes();
    main.extend([0xC3, lo, hi]); // JP loop
    put(0x150, &main);
    rom
}

#[test]
fn events_moved_by_a_slow_access_match_the_reference_path() {
    let fast = compare_rom("slow-access event", &slow_access_event_rom(), 30, |_, _| {});
    // The handler ran (D counts the timer interrupts) and the log filled.
    assert!(fast.registers().d > 10);
    assert_ne!(fast.peek(0xC07F), 0);
}

/// A ROM that waits in jumps to themselves (`IdleLoop` in `cpu/run_table.rs`,
/// whose turns the fast path skips up to the next event): `JP self` in bank
/// 0 and in bank 1 and `JR -2`, each with interrupts on, left only through a
/// timer interrupt every 131,072 T-cycles whose handler logs DIV and moves
/// the return address on to the next loop after 60, 120 and 180 interrupts;
/// then `DI; JR -2`, which nothing leaves. VBlank interrupts are counted
/// too. An interrupt taken a turn early or late shows in the cycle count
/// and registers that `compare_rom` checks every frame.
fn idle_loops_rom() -> Vec<u8> {
    let mut rom = vec![0u8; 0x8000];
    let mut put = |at: usize, bytes: &[u8]| rom[at..at + bytes.len()].copy_from_slice(bytes);
    put(0x40, &[0xC3, 0x00, 0x03]); // VBlank: JP 0x0300
    put(0x50, &[0xC3, 0x10, 0x03]); // Timer: JP 0x0310
    put(0x100, &[0x00, 0xC3, 0x50, 0x01]); // Entry: NOP; JP 0x0150
    put(
        0x150,
        &[
            0x31, 0xFE, 0xDF, // LD SP,0xDFFE
            0x3E, 0x04, 0xE0, 0x07, // TAC = 4: 4,096 Hz
            0x3E, 0x80, 0xE0, 0x06, // TMA = 0x80: overflow every 131,072 T-cycles
            0x3E, 0x05, 0xE0, 0xFF, // IE = VBlank | timer
            0xFB, // EI
            0xC3, 0x00, 0x02, // JP 0x0200
        ],
    );
    put(0x200, &[0xC3, 0x00, 0x02]); // 1: JP 0x0200 (itself)
    put(0x4100, &[0xC3, 0x00, 0x41]); // 2: JP 0x4100 (itself, bank 1)
    put(0x220, &[0x18, 0xFE]); // 3: JR -2
    put(0x230, &[0xF3, 0x18, 0xFE]); // 4: DI; JR -2
                                     // VBlank handler: WRAM 0xC001 += 1.
    put(0x300, &[0xFA, 0x01, 0xC0, 0x3C, 0xEA, 0x01, 0xC0, 0xD9]);
    // Timer handler: count at 0xC000, DIV logged at 0xC100 + count; at
    // counts 60, 120 and 180 it returns to the next loop instead.
    put(
        0x310,
        &[
            0xFA, 0x00, 0xC0, 0x3C, 0xEA, 0x00, 0xC0, // count += 1
            0x6F, 0x26, 0xC1, 0xF0, 0x04, 0x77, // (0xC100 + count) = DIV
            0x7D, // LD A,L
            0xFE, 60, 0x28, 0x09, // CP 60; JR Z,0x032B
            0xFE, 120, 0x28, 0x0A, // CP 120; JR Z,0x0330
            0xFE, 180, 0x28, 0x0B, // CP 180; JR Z,0x0335
            0xD9, // RETI
            0x21, 0x00, 0x41, 0x18, 0x08, // 0x032B: LD HL,0x4100; JR 0x0338
            0x21, 0x20, 0x02, 0x18, 0x03, // 0x0330: LD HL,0x0220; JR 0x0338
            0x21, 0x30, 0x02, // 0x0335: LD HL,0x0230
            0xD1, 0xE5, 0xD9, // 0x0338: POP DE; PUSH HL; RETI
        ],
    );
    rom
}

#[test]
fn idle_loops_match_the_reference_path() {
    let fast = compare_rom("idle-loop ROM", &idle_loops_rom(), 420, |_, _| {});
    // Every phase ran: 180 timer interrupts, then none (DI).
    assert_eq!(fast.peek(0xC000), 180);
    assert_ne!(fast.peek(0xC001), 0, "no VBlank interrupt taken");
    assert_eq!(fast.registers().pc, 0x231);
}

/// Work-RAM code on the fast path (its straight work-RAM runs, with their
/// per-instruction event checks) against the reference path: a routine
/// copied to 0xC200 that switches ROM banks between two reads of 0x4000,
/// rewrites an opcode a few bytes ahead of itself (directly and through echo
/// RAM, so every call runs code that differs from the last), runs long
/// straight stretches under timer and STAT interrupts every few hundred
/// T-cycles, and every 16 calls starts an OAM DMA from work RAM (reading
/// work RAM during it, then waiting in HRAM), waits in HALT with IME=1, and
/// in HALT with IME=0 (the HALT bug when an interrupt is already pending);
/// every 256 calls it executes STOP, which the input script's buttons
/// leave. Written for decoded work-RAM blocks (bench/README.md, "Work-RAM
/// code decoded into blocks"), whose in-block code check it catches when
/// broken. Needs no ROM files.
fn work_ram_code_rom() -> Vec<u8> {
    let mut rom = interrupt_counting_cart();
    let mut put = |at: usize, bytes: &[u8]| rom[at..at + bytes.len()].copy_from_slice(bytes);
    put(0x60, &[0xD9]); // Joypad: RETI
    put(0x4000, &[0x11]);
    put(0x8000, &[0x22]);
    let mut wram: Vec<u8> = vec![
        0x3E, 0x01, 0xEA, 0x00, 0x20, // LD A,1; LD (0x2000),A: bank 1
        0xFA, 0x00, 0x40, // LD A,(0x4000)
        0x4F, // LD C,A
        0x3E, 0x02, 0xEA, 0x00, 0x20, // bank 2
        0xFA, 0x00, 0x40, // LD A,(0x4000)
        0x81, 0xEA, 0x02, 0xC3, // ADD C; LD (0xC302),A: 0x33
        0x21, 0x1F, 0xC2, // 0xC215: LD HL,0xC21F
        0x7E, 0xEE, 0x01, 0x77, // LD A,(HL); XOR 1; LD (HL),A
        0x00, 0x00, 0x00, // NOPs
        0x0C, // 0xC21F: INC C / DEC C
        0x79, 0xEA, 0x03, 0xC3, // LD A,C; LD (0xC303),A
        0xFA, 0x2E, 0xE2, // LD A,(0xE22E) (echo of 0xC22E)
        0xEE, 0x01, 0xEA, 0x2E, 0xE2, // XOR 1; LD (0xE22E),A
        0x3E, 0x10, // LD A,0x10
        0x3C, // 0xC22E: INC A / DEC A
        0xEA, 0x00, 0xC3, // LD (0xC300),A
    ];
    // A long straight stretch: interrupts land in it.
    for _ in 0..12 {
        wram.extend([0x23, 0x2B, 0x00, 0x04]); // INC HL; DEC HL; NOP; INC B
    }
    wram.extend([
        0x21, 0x40, 0xC3, // LD HL,0xC340
        0x34, 0x7E, 0xE6, 0x0F, // INC (HL); LD A,(HL); AND 0x0F
        0x20, 0x15, // JR NZ,+21 (to the STOP test)
        0x3E, 0xC1, 0xE0, 0x46, // OAM DMA from 0xC100
        0x00, 0x00, // NOP; NOP (in work RAM, during the DMA)
        0xFA, 0x00, 0xC1, 0xEA, 0x01, 0xC3, // LD A,(0xC100); LD (0xC301),A
        0xCD, 0x80, 0xFF, // CALL 0xFF80 (wait in HRAM)
        0x76, 0x00, // HALT; NOP
        0xF3, 0x76, 0x04, 0xFB, // DI; HALT; INC B; EI
        0x7E, 0xE6, 0xFF, // LD A,(HL); AND 0xFF
        0x20, 0x02, // JR NZ,+2
        0x10, 0x00, // STOP
        0xC9, // RET
    ]);
    put(0x600, &wram);
    let len = wram.len() as u8;
    let main: &[u8] = &[
        0x31, 0xF0, 0xDF, // LD SP,0xDFF0
        0x3E, 0x05, 0xE0, 0x07, // TAC = 5: 262,144 Hz
        0x3E, 0xF0, 0xE0, 0x06, // TMA = 0xF0: overflow every 256 T-cycles
        0x3E, 0x20, 0xE0, 0x41, // STAT: mode 2 interrupt
        0x3E, 0x17, 0xE0, 0xFF, // IE = VBlank | STAT | timer | joypad
        0x3E, 0x28, 0xE0, 0x80, // HRAM 0xFF80: LD A,40
        0x3E, 0x3D, 0xE0, 0x82, // DEC A
        0x3E, 0x20, 0xE0, 0x83, // JR NZ,
        0x3E, 0xFD, 0xE0, 0x84, // -3
        0x3E, 0xC9, 0xE0, 0x85, // RET
        0x21, 0x00, 0x06, // LD HL,0x0600
        0x11, 0x00, 0xC2, // LD DE,0xC200
        0x06, len, // LD B,len
        0x2A, 0x12, 0x13, 0x05, 0x20, 0xFA, // copy
        0xFB, // EI
        0xCD, 0x00, 0xC2, // loop: CALL 0xC200
        0x18, 0xFB, // JR loop
    ];
    put(0x150, main);
    rom
}

#[test]
fn work_ram_code_matches_the_reference_path() {
    let fast = compare_rom("work-RAM code", &work_ram_code_rom(), 240, script);
    assert_eq!(fast.peek(0xC200), 0x3E, "the routine is in work RAM");
    assert_ne!(fast.peek(0xC340), 0, "the routine never ran");
    // Both banks were read, and the rewritten opcodes alternate.
    assert_eq!(fast.peek(0xC302), 0x33);
    assert!([0x11, 0x0F].contains(&fast.peek(0xC300)));
    assert!([0x12, 0x10].contains(&fast.peek(0xC303)));
    assert!(fast.registers().d > 10, "no timer interrupt");
}

/// A ROM that reads every PPU register but DMA (`LDH A,(n)`, `LD A,(C)` and
/// `LD A,(nn)`) from straight runs in ROM and in work RAM, the clock-free
/// registers without the PPU's catch-up and STAT and LY with it
/// (`Bus::straight_ppu_read`), logging each value; between passes it
/// changes the STAT interrupt sources (all sixteen combinations of bits
/// 3-6), LYC and SCX (which moves the end of mode 3), toggles the window
/// and object enables, and starts the reads after 0 to 7 NOPs, so that they
/// land at every phase of the PPU's lines with and without STAT interrupts
/// (counted in E) and timer interrupts (D) pending. Needs no ROM files.
fn ppu_register_reads_rom() -> Vec<u8> {
    let mut rom = interrupt_counting_cart();
    let mut put = |at: usize, bytes: &[u8]| rom[at..at + bytes.len()].copy_from_slice(bytes);
    let reads: &[u8] = &[
        0xF0, 0x40, 0x22, // LDH A,(LCDC); LD (HL+),A
        0xF0, 0x41, 0x22, // STAT
        0xF0, 0x44, 0x22, // LY
        0xF0, 0x42, 0x22, // SCY
        0xF0, 0x41, 0x22, // STAT
        0xF0, 0x45, 0x22, // LYC
        0xF0, 0x47, 0x22, // BGP
        0xF0, 0x48, 0x22, // OBP0
        0xF0, 0x41, 0x22, // STAT
        0x0E, 0x41, 0xF2, 0x22, // LD C,0x41; LD A,(C): STAT
        0xFA, 0x44, 0xFF, 0x22, // LD A,(0xFF44): LY
        0xF0, 0x49, 0x22, // OBP1
        0xF0, 0x4A, 0x22, // WY
        0xF0, 0x4B, 0x22, // WX
        0xF0, 0x43, 0x22, // SCX
        0xF0, 0x44, 0x22, // LY
        0xF0, 0x41, 0x22, // STAT
        0xC9, // RET
    ];
    put(0x200, reads);
    // The NOP delay of `polling_rom`: C & 7 NOPs through a jump into a
    // sled (0x291 to 0x297; the ROM is zero-filled).
    put(
        0x280,
        &[
            0xE5, // PUSH HL
            0x79, 0xE6, 0x07, 0x2F, 0x3C, // A = -(C & 7)
            0xC6, 0x98, 0x6F, 0x26, 0x02, // HL = 0x0298 + A
            0xE9, // JP (HL)
        ],
    );
    put(0x298, &[0xE1, 0xC9]); // POP HL; RET
    let n = reads.len() as u8;
    let main: &[u8] = &[
        0x31, 0xFE, 0xDF, // LD SP,0xDFFE
        0x3E, 0x05, 0xE0, 0x07, // TAC = 5: 262,144 Hz
        0x3E, 0x80, 0xE0, 0x06, // TMA = 0x80: overflow every 2,048 T-cycles
        0x3E, 0x07, 0xE0, 0xFF, // IE = VBlank | STAT | timer
        0x3E, 0x20, 0xE0, 0x4A, // WY = 0x20
        0x3E, 0x30, 0xE0, 0x4B, // WX = 0x30
        0x21, 0x00, 0x02, // LD HL,0x0200
        0x11, 0x00, 0xD0, // LD DE,0xD000
        0x06, n, // LD B,n
        0x2A, 0x12, 0x13, 0x05, 0x20,
        0xFA, // copy: LD A,(HL+); LD (DE),A; INC DE; DEC B; JR NZ
        0x21, 0x00, 0xC0, // LD HL,0xC000
        0xFB, // EI
    ];
    let body: &[u8] = &[
        0xF0, 0x90, 0x3C, 0xE0, 0x90, // HRAM 0xFF90 += 1: the pass
        0x47, // LD B,A
        0xE6, 0x78, 0xE0, 0x41, // STAT sources = pass & 0x78
        0x78, 0xE0, 0x45, // LYC = pass
        0xE0, 0x43, // SCX = pass
        0x48, 0xCD, 0x80, 0x02, // LD C,B; CALL delay
        0xCD, 0x00, 0x02, // CALL reads (ROM)
        0x78, 0x0F, 0x4F, 0xCD, 0x80, 0x02, // LD A,B; RRCA; LD C,A; CALL delay
        0xCD, 0x00, 0xD0, // CALL reads (work RAM)
        0xF0, 0x40, 0xEE, 0x22, 0xE0, 0x40, // LCDC ^= window and objects
        0x7C, 0xE6, 0xC7, 0x67, // keep HL in 0xC000..0xC7FF
    ];
    put(0x150, main);
    let loop_at = (0x150 + main.len()) as u16;
    put(loop_at as usize, body);
    let [lo, hi] = loop_at.to_le_bytes();
    put(loop_at as usize + body.len(), &[0xC3, lo, hi]); // JP loop
    rom
}

#[test]
fn ppu_register_reads_match_the_reference_path() {
    let fast = compare_rom(
        "PPU register reads",
        &ppu_register_reads_rom(),
        120,
        |_, _| {},
    );
    // The log went round and STAT and timer interrupts were taken.
    assert_ne!(fast.peek(0xC7FF), 0);
    let r = fast.registers();
    assert!(
        r.e > 0 && r.d > 0,
        "no STAT ({}) or timer ({}) interrupts",
        r.e,
        r.d
    );
}

/// A 1 MiB MBC1 ROM whose runs chain through unconditional jumps and
/// calls (`RunTable::chain` in `cpu/run_table.rs`): `CALL`, `JP` and `JR` chains
/// in bank 0 and in bank 2 at 0x4000, under timer interrupts (counted in
/// D); and, from a work-RAM routine, bank 32 mapped at 0x0000 (MBC1 mode 1)
/// running a `JP 0x4300` that the table, which assumes a bank at its usual
/// place, would chain into bank 32's own 0x4300 (writing 0x32 to 0xC300)
/// while it lands in bank 34 (writing 0x34): the fast path must take no
/// run there. The chains log B and C at (HL+). Needs no ROM files.
fn chained_runs_rom() -> Vec<u8> {
    let mut rom = vec![0u8; 64 * 0x4000];
    rom[0x147] = 0x01; // MBC1
    rom[0x148] = 0x05; // 64 banks
    let mut put = |at: usize, bytes: &[u8]| rom[at..at + bytes.len()].copy_from_slice(bytes);
    put(0x50, &[0x14, 0xD9]); // Timer: INC D; RETI
    put(0x80050, &[0x14, 0xD9]); // the same in bank 32, mapped at 0x0000 for a while
    put(0x100, &[0x00, 0xC3, 0x50, 0x01]); // NOP; JP 0x0150
                                           // Bank 0: INC B; JP 0x0310 / INC C; CALL 0x0320; RET /
                                           // LD A,B; ADD A,C; JR +1; NOP; LD (HL+),A; RET.
    put(0x300, &[0x04, 0xC3, 0x10, 0x03]);
    put(0x310, &[0x0C, 0xCD, 0x20, 0x03, 0xC9]);
    put(0x320, &[0x78, 0x81, 0x18, 0x01, 0x00, 0x22, 0xC9]);
    // Bank 2 at 0x4400: INC B; JP 0x4410 / LD A,B; LD (HL+),A; CALL 0x4420;
    // RET / INC C; RET.
    put(2 * 0x4000 + 0x400, &[0x04, 0xC3, 0x10, 0x44]);
    put(2 * 0x4000 + 0x410, &[0x78, 0x22, 0xCD, 0x20, 0x44, 0xC9]);
    put(2 * 0x4000 + 0x420, &[0x0C, 0xC9]);
    // Bank 32 at 0x0200 (mapped at 0x0000): LD A,0x11; JP 0x4300. Its own
    // 0x4300 logs 0x32; bank 34's, where the jump lands, logs 0x34.
    put(32 * 0x4000 + 0x200, &[0x3E, 0x11, 0xC3, 0x00, 0x43]);
    put(32 * 0x4000 + 0x300, &[0x3E, 0x32, 0xEA, 0x00, 0xC3, 0xC9]);
    put(34 * 0x4000 + 0x300, &[0x3E, 0x34, 0xEA, 0x00, 0xC3, 0xC9]);
    // Work RAM routine (copied to 0xC200): mode 1, upper bank bits 1 (bank
    // 32 at 0x0000, 34 at 0x4000 with bank 2 selected), CALL 0x0200, back
    // to mode 0 and upper bits 0, RET.
    let wram: &[u8] = &[
        0x3E, 0x01, 0xEA, 0x00, 0x60, // LD A,1; LD (0x6000),A
        0xEA, 0x00, 0x40, // LD (0x4000),A
        0xCD, 0x00, 0x02, // CALL 0x0200
        0xAF, 0xEA, 0x00, 0x40, // XOR A; LD (0x4000),A
        0xEA, 0x00, 0x60, // LD (0x6000),A
        0xC9, // RET
    ];
    put(0x600, wram);
    let n = wram.len() as u8;
    let main: &[u8] = &[
        0x31, 0xFE, 0xDF, // LD SP,0xDFFE
        0x3E, 0x05, 0xE0, 0x07, // TAC = 5: 262,144 Hz
        0x3E, 0xC0, 0xE0, 0x06, // TMA = 0xC0: overflow every 1,024 T-cycles
        0x3E, 0x04, 0xE0, 0xFF, // IE = timer
        0x21, 0x00, 0x06, // LD HL,0x0600
        0x11, 0x00, 0xC2, // LD DE,0xC200
        0x06, n, // LD B,n
        0x2A, 0x12, 0x13, 0x05, 0x20,
        0xFA, // copy: LD A,(HL+); LD (DE),A; INC DE; DEC B; JR NZ
        0x21, 0x00, 0xC0, // LD HL,0xC000
        0xFB, // EI
    ];
    let body: &[u8] = &[
        0xCD, 0x00, 0x03, // CALL 0x0300 (bank 0 chains)
        0x3E, 0x02, 0xEA, 0x00, 0x20, // bank 2 at 0x4000
        0xCD, 0x00, 0x44, // CALL 0x4400 (bank 2 chains)
        0xCD, 0x00, 0xC2, // CALL 0xC200 (bank 32 at 0x0000)
        0x7C, 0xE6, 0xC1, 0x67, // keep HL in 0xC000..0xC1FF
    ];
    put(0x150, main);
    let loop_at = (0x150 + main.len()) as u16;
    put(loop_at as usize, body);
    let [lo, hi] = loop_at.to_le_bytes();
    put(loop_at as usize + body.len(), &[0xC3, lo, hi]); // JP loop
    rom
}

#[test]
fn chained_runs_match_the_reference_path() {
    let fast = compare_rom("chained runs", &chained_runs_rom(), 30, |_, _| {});
    // The program went round, taking timer interrupts, and the jump from
    // bank 32 reached bank 34.
    assert!(fast.registers().d > 0);
    let logged = (0xC000..=0xC1FFu16).filter(|&a| fast.peek(a) != 0).count();
    assert!(logged > 400, "{logged} bytes logged");
    assert_eq!(fast.peek(0xC300), 0x34);
}

/// A 64 KiB MBC1 ROM whose runs chain through returns and conditional
/// branches (`RunTable::chain` in `cpu/run_table.rs`: a `RET` back to its run's
/// `CALL`, checked when it runs; conditional jumps, calls and returns as not
/// taken), under timer interrupts every 976 T-cycles whose handler logs the
/// low byte of the interrupted PC at 0xC500 + D, so that an interrupt taken
/// one instruction early or late shows. Each turn of the main loop calls:
/// nested calls that return; conditional jumps, calls and returns taken or
/// not by the turn's count B; a callee that, every fourth turn, replaces
/// its return address (POP, PUSH) with code in bank 0 that jumps to 0x4500
/// in bank 1; one that, every eighth turn, overwrites it in memory with
/// 0xC300 (work RAM); one whose callee skips a level (`INC SP; INC SP;
/// RET`) on odd turns; and a far call that maps bank 2, chains calls there,
/// and calls a bank-0 routine that maps bank 3 before it returns into the
/// bank-2 caller's address; and conditional jumps that, taken, go to bank 1.
/// Where the returns and jumps go, the code in the bank or
/// at the address a wrong fetch would read (bank 0's 0x0300 and 0x0500,
/// bank 1's 0x4600) logs other bytes. Needs no ROM files.
fn returning_runs_rom() -> Vec<u8> {
    let mut rom = vec![0u8; 4 * 0x4000];
    rom[0x147] = 0x01; // MBC1
    rom[0x148] = 0x01; // 4 banks
    let mut put = |at: usize, bytes: &[u8]| rom[at..at + bytes.len()].copy_from_slice(bytes);
    put(0x40, &[0xD9]); // VBlank: RETI
    put(0x50, &[0xC3, 0x60, 0x00]); // Timer: JP 0x0060
                                    // PUSH AF; PUSH HL; LD HL,SP+4; LD A,(HL); INC D; LD L,D; LD H,0xC5;
                                    // LD (HL),A; POP HL; POP AF; RETI.
    put(
        0x60,
        &[
            0xF5, 0xE5, 0xF8, 0x04, 0x7E, 0x14, 0x6A, 0x26, 0xC5, 0x77, 0xE1, 0xF1, 0xD9,
        ],
    );
    put(0x100, &[0x00, 0xC3, 0x50, 0x01]); // NOP; JP 0x0150
    let wram_code_at = 0x0800;
    let main: &[u8] = &[
        0x31, 0xF0, 0xDF, // LD SP,0xDFF0
        0x3E, 0x05, 0xE0, 0x07, // TAC = 5: 262,144 Hz
        0x3E, 0xC3, 0xE0, 0x06, // TMA = 0xC3: overflow every 976 T-cycles
        0x3E, 0x04, 0xE0, 0xFF, // IE = timer
        0x21, 0x00, 0x08, // LD HL,0x0800
        0x11, 0x00, 0xC3, // LD DE,0xC300
        0x06, 0x08, // LD B,8
        0x2A, 0x12, 0x13, 0x05, 0x20,
        0xFA, // copy: LD A,(HL+); LD (DE),A; INC DE; DEC B; JR NZ
        0x21, 0x00, 0xC0, // LD HL,0xC000
        0x06, 0x00, 0x0E, 0x00, // LD B,0; LD C,0
        0xFB, // EI
    ];
    let loop_at = 0x150 + main.len();
    let back1 = loop_at + 1 + 3 * 3;
    let back2 = back1 + 3;
    let [l1, h1] = (back1 as u16).to_le_bytes();
    let [l2, h2] = (back2 as u16).to_le_bytes();
    let [ll, hl] = (loop_at as u16).to_le_bytes();
    let body: &[u8] = &[
        0x04, // INC B
        0xCD, 0x00, 0x02, // CALL f1
        0xCD, 0x20, 0x02, // CALL g
        0xCD, 0x40, 0x02, // CALL h (return rewritten: POP/PUSH)
        0xCD, 0x80, 0x02, // back1: CALL k (return overwritten in memory)
        0xCD, 0xA0, 0x02, // back2: CALL fskip
        0xCD, 0xC0, 0x02, // CALL far
        0xCD, 0x40, 0x03, // CALL m (conditional jumps into bank 1)
        0x7C, 0xE6, 0xC1, 0x67, // keep HL in 0xC000..0xC1FF
        0xC3, ll, hl, // JP loop
    ];
    put(0x150, main);
    put(loop_at, body);
    // f1: INC C; CALL f2; LD A,C; LD (HL+),A; RET. f2: LD A,B; ADD A,C;
    // LD (HL+),A; RET.
    put(0x200, &[0x0C, 0xCD, 0x10, 0x02, 0x79, 0x22, 0xC9]);
    put(0x210, &[0x78, 0x81, 0x22, 0xC9]);
    // g: LD A,B; AND 1; JR Z,+1; INC C; INC C; LD A,B; AND 2; CALL NZ,f2;
    // BIT 2,B; RET Z; LD A,C; LD (HL+),A; RET.
    put(
        0x220,
        &[
            0x78, 0xE6, 0x01, 0x28, 0x01, 0x0C, 0x0C, 0x78, 0xE6, 0x02, 0xC4, 0x10, 0x02, 0xCB,
            0x50, 0xC8, 0x79, 0x22, 0xC9,
        ],
    );
    // h: LD A,B; AND 3; RET NZ; POP AF; PUSH HL; LD HL,0x0260; PUSH HL;
    // RET.
    put(
        0x240,
        &[
            0x78, 0xE6, 0x03, 0xC0, 0xF1, 0xE5, 0x21, 0x60, 0x02, 0xE5, 0xC9,
        ],
    );
    // 0x0260: POP HL; LD A,0xAA; LD (HL+),A; JP 0x4500. Bank 1's 0x4500
    // logs 0x41 and goes back; bank 0's 0x0500 (what a fetch from the
    // wrong bank would read) logs 0x05.
    put(0x260, &[0xE1, 0x3E, 0xAA, 0x22, 0xC3, 0x00, 0x45]);
    put(0x4500, &[0x3E, 0x41, 0x22, 0xC3, l1, h1]);
    put(0x0500, &[0x3E, 0x05, 0x22, 0xC3, l1, h1]);
    // k: LD A,B; AND 7; RET NZ; PUSH HL; LD HL,SP+2; LD (HL),0x00; INC HL;
    // LD (HL),0xC3; POP HL; RET (to 0xC300: LD A,0xC3; LD (HL+),A; JP
    // back2). Bank 0's 0x0300 logs 0x03.
    put(
        0x280,
        &[
            0x78, 0xE6, 0x07, 0xC0, 0xE5, 0xF8, 0x02, 0x36, 0x00, 0x23, 0x36, 0xC3, 0xE1, 0xC9,
        ],
    );
    put(wram_code_at, &[0x3E, 0xC3, 0x22, 0xC3, l2, h2, 0x00, 0x00]);
    put(0x0300, &[0x3E, 0x03, 0x22, 0xC3, l2, h2]);
    // fskip: CALL fpop; LD A,0xDD; LD (HL+),A; RET. fpop: LD A,B; AND 1;
    // RET Z; INC SP; INC SP; RET (to fskip's caller).
    put(0x2A0, &[0xCD, 0xB0, 0x02, 0x3E, 0xDD, 0x22, 0xC9]);
    put(0x2B0, &[0x78, 0xE6, 0x01, 0xC8, 0x33, 0x33, 0xC9]);
    // far: LD A,2; LD (0x2000),A; CALL 0x4600; LD A,1; LD (0x2000),A; RET.
    put(
        0x2C0,
        &[
            0x3E, 0x02, 0xEA, 0x00, 0x20, 0xCD, 0x00, 0x46, 0x3E, 0x01, 0xEA, 0x00, 0x20, 0xC9,
        ],
    );
    // Bank 2 at 0x4600: LD A,0x22; LD (HL+),A; CALL 0x4610; CALL 0x0700;
    // LD A,0x23; LD (HL+),A; RET / 0x4610: INC C; RET. Bank 0's 0x0700
    // maps bank 3 and returns, to bank 3's 0x4609: LD A,0x33; LD (HL+),A;
    // RET. Bank 1's 0x4600 logs 0x11.
    put(
        2 * 0x4000 + 0x600,
        &[
            0x3E, 0x22, 0x22, 0xCD, 0x10, 0x46, 0xCD, 0x00, 0x07, 0x3E, 0x23, 0x22, 0xC9,
        ],
    );
    put(2 * 0x4000 + 0x610, &[0x0C, 0xC9]);
    put(0x0700, &[0x3E, 0x03, 0xEA, 0x00, 0x20, 0xC9]);
    put(3 * 0x4000 + 0x609, &[0x3E, 0x33, 0x22, 0xC9]);
    put(0x4600, &[0x3E, 0x11, 0x22, 0xC9]);
    // m: LD A,B; AND 1; JP NZ,0x4780; LD A,B; AND 2; JR NZ,+11; NOP (10
    // times); RET; JP 0x4780. Taken, the jumps leave the bank the run
    // reads its code from: bank 1's 0x4780 logs 0x47, bank 0's 0x0780
    // 0x07.
    put(
        0x340,
        &[
            0x78, 0xE6, 0x01, 0xC2, 0x80, 0x47, 0x78, 0xE6, 0x02, 0x20, 0x0B,
        ],
    );
    put(0x355, &[0xC9, 0xC3, 0x80, 0x47]);
    put(0x4780, &[0x3E, 0x47, 0x22, 0xC9]);
    put(0x0780, &[0x3E, 0x07, 0x22, 0xC9]);
    rom
}

#[test]
fn returning_runs_match_the_reference_path() {
    let fast = compare_rom("returning runs", &returning_runs_rom(), 30, |_, _| {});
    // Timer interrupts came, and every way back was taken.
    let interrupted = (0xC500..=0xC5FFu16).filter(|&a| fast.peek(a) != 0).count();
    eprintln!(
        "{:?} log {:02x?}",
        fast.registers(),
        (0xC000..0xC040u16)
            .map(|a| fast.peek(a))
            .collect::<Vec<_>>()
    );
    eprintln!(
        "irq {:02x?}",
        (0xC500..0xC520u16)
            .map(|a| fast.peek(a))
            .collect::<Vec<_>>()
    );
    assert!(interrupted > 200, "{interrupted} interrupted PCs logged");
    let logged: Vec<u8> = (0xC000..=0xC1FFu16).map(|a| fast.peek(a)).collect();
    for marker in [0xAA, 0x41, 0xC3, 0xDD, 0x22, 0x33, 0x47] {
        assert!(logged.contains(&marker), "{marker:#04x} never logged");
    }
}

/// Random programs built from the instructions straight runs chain through
/// or stop at (`RunTable::chain`): calls and returns to and from random
/// instruction starts, conditional jumps, calls and returns, pushes, pops
/// and `INC SP`/`DEC SP`, bank switches and register arithmetic, under
/// timer interrupts whose handler sums the interrupted PC's low byte at
/// 0xC600. The fast path must match the reference path on all of them.
/// Needs no ROM files.
#[test]
fn random_calls_and_branches_match_the_reference_path() {
    let mut seed = 0x5EED_0001u64;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as u32
    };
    for n in 0..64 {
        let mut rom = vec![0u8; 4 * 0x4000];
        rom[0x147] = 0x01; // MBC1
        rom[0x148] = 0x01; // 4 banks
        let tma = 0xC0 | (next() as u8 & 0x3F);
        let put = |rom: &mut [u8], at: usize, bytes: &[u8]| {
            rom[at..at + bytes.len()].copy_from_slice(bytes)
        };
        put(&mut rom, 0x50, &[0xC3, 0x60, 0x00]);
        // PUSH AF; PUSH HL; LD HL,SP+4; LD A,(HL); LD HL,0xC600; ADD A,(HL);
        // LD (HL),A; POP HL; POP AF; RETI.
        put(
            &mut rom,
            0x60,
            &[
                0xF5, 0xE5, 0xF8, 0x04, 0x7E, 0x21, 0x00, 0xC6, 0x86, 0x77, 0xE1, 0xF1, 0xD9,
            ],
        );
        put(&mut rom, 0x100, &[0x00, 0xC3, 0x50, 0x01]);
        // LD SP,0xDFF0; TAC = 5; TMA; IE = timer; LD HL,0xC000; EI; JP 0x0200.
        put(
            &mut rom,
            0x150,
            &[
                0x31, 0xF0, 0xDF, 0x3E, 0x05, 0xE0, 0x07, 0x3E, tma, 0xE0, 0x06, 0x3E, 0x04, 0xE0,
                0xFF, 0x21, 0x00, 0xC0, 0xFB, 0xC3, 0x00, 0x02,
            ],
        );
        for bank in 0..4usize {
            // Instructions from 0x0200 (bank 0) or 0x4000, their starts
            // noted; jump targets filled in afterwards.
            let base = if bank == 0 { 0x200 } else { 0x4000 };
            let (lo, hi) = (bank * 0x4000 + (base & 0x3FFF), bank * 0x4000 + 0x3FF0);
            let mut at = lo;
            let mut starts = Vec::new();
            let mut targets = Vec::new();
            while at < hi {
                starts.push(at);
                let r = next();
                let op: Vec<u8> = match r % 32 {
                    0..=9 => {
                        // LD r,r' / ALU A,r (no (HL), no HALT).
                        let mut b = 0x40 + (next() % 0x80) as u8;
                        if b & 7 == 6 || (b < 0x80 && (b >> 3) & 7 == 6) {
                            b = 0x80 | (b & 0x38) | 0x07;
                        }
                        vec![b]
                    }
                    10..=11 => vec![[0x04, 0x05, 0x0C, 0x0D, 0x3C, 0x3D][(next() % 6) as usize]],
                    12..=13 => vec![[0x06, 0x0E, 0x3E][(next() % 3) as usize], next() as u8],
                    // LD (HL+),A with HL kept in work RAM: LD H,0xC0 first.
                    14 => vec![0x26, 0xC0 | (next() as u8 & 1), 0x22],
                    15..=17 => {
                        targets.push((at + 1, 0xCD));
                        vec![0xCD, 0, 0]
                    }
                    18..=19 => vec![0xC9],
                    20 => vec![[0xC0, 0xC8, 0xD0, 0xD8][(next() % 4) as usize]],
                    21..=22 => {
                        targets.push((at + 1, 0x20));
                        vec![[0x20, 0x28, 0x30, 0x38][(next() % 4) as usize], 0]
                    }
                    23 => {
                        targets.push((at + 1, 0xC2));
                        vec![
                            [0xC2, 0xCA, 0xD2, 0xDA, 0xC4, 0xCC, 0xD4, 0xDC][(next() % 8) as usize],
                            0,
                            0,
                        ]
                    }
                    24 => {
                        targets.push((at + 1, 0xC3));
                        vec![0xC3, 0, 0]
                    }
                    25 => {
                        targets.push((at + 1, 0x18));
                        vec![0x18, 0]
                    }
                    26 => vec![[0xC5, 0xD5, 0xE5, 0xF5][(next() % 4) as usize]],
                    27 => vec![[0xC1, 0xD1, 0xF1][(next() % 3) as usize]],
                    28 => vec![[0x33, 0x3B][(next() % 2) as usize]],
                    // Bank switch: LD A,n; LD (0x2000),A.
                    29 => vec![0x3E, (next() % 4) as u8, 0xEA, 0x00, 0x20],
                    _ => vec![0x00],
                };
                let end = (at + op.len()).min(hi);
                rom[at..end].copy_from_slice(&op[..end - at]);
                at += op.len();
            }
            for (imm, kind) in targets {
                if imm + 2 > hi {
                    continue;
                }
                let t = starts[(next() as usize) % starts.len()];
                let addr = if bank == 0 { t } else { 0x4000 | (t & 0x3FFF) };
                if kind == 0x20 || kind == 0x18 {
                    let rel = t as isize - (imm as isize + 1);
                    rom[imm] = rel.clamp(-128, 127) as i8 as u8;
                } else {
                    // Now and then into bank 0 from a high bank.
                    let addr = if bank > 0 && next() % 8 == 0 {
                        0x200 + next() as usize % 0x3000
                    } else {
                        addr
                    };
                    rom[imm..imm + 2].copy_from_slice(&(addr as u16).to_le_bytes());
                }
            }
        }
        compare_rom(&format!("random program {n}"), &rom, 4, |_, _| {});
    }
}
