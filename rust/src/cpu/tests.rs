//! Unit tests for the CPU state machine (interrupts, EI delay, HALT, STOP,
//! locking, save states) on a tiny flat-memory bus with IE/IF registers.

use super::*;

const IF: u16 = 0xFF0F;
const IE: u16 = 0xFFFF;

struct TestBus {
    mem: Vec<u8>,
    cycles: u64,
    halt_idles: u64,
    stops: u32,
    joypad: bool,
    /// Reading this address ORs the value into IF.
    raise_on_read: Option<(u16, u8)>,
}

impl TestBus {
    /// Memory with `program` at 0x0100.
    fn with_program(program: &[u8]) -> Self {
        let mut mem = vec![0u8; 0x10000];
        mem[0x100..0x100 + program.len()].copy_from_slice(program);
        TestBus {
            mem,
            cycles: 0,
            halt_idles: 0,
            stops: 0,
            joypad: false,
            raise_on_read: None,
        }
    }
    fn request(&mut self, ie: u8, iflag: u8) {
        self.mem[IE as usize] = ie;
        self.mem[IF as usize] = iflag;
    }
}

impl CpuBus for TestBus {
    fn read(&mut self, addr: u16) -> u8 {
        self.cycles += 1;
        if let Some((a, bits)) = self.raise_on_read {
            if a == addr {
                self.mem[IF as usize] |= bits;
            }
        }
        self.mem[addr as usize]
    }
    fn write(&mut self, addr: u16, value: u8) {
        self.cycles += 1;
        self.mem[addr as usize] = value;
    }
    fn idle(&mut self) {
        self.cycles += 1;
    }
    fn pending_interrupts(&mut self) -> u8 {
        self.mem[IE as usize] & self.mem[IF as usize] & 0x1F
    }
    fn acknowledge_interrupt(&mut self, mask: u8) {
        self.mem[IF as usize] &= !mask;
    }
    fn halt_idle(&mut self) {
        self.cycles += 1;
        self.halt_idles += 1;
    }
    fn stop(&mut self) {
        self.stops += 1;
    }
    fn joypad_pressed(&mut self) -> bool {
        self.joypad
    }
}

impl RunHooks for TestBus {}

impl DebugHooks for TestBus {}

fn cpu_at(pc: u16) -> Cpu {
    Cpu::new(Registers {
        sp: 0xDFF0,
        pc,
        ..Registers::default()
    })
}

fn stacked_word(bus: &TestBus, sp: u16) -> u16 {
    u16::from_le_bytes([bus.mem[sp as usize], bus.mem[sp as usize + 1]])
}

#[test]
fn registers_round_trip_and_f_low_nibble_masked() {
    let mut r = Registers::post_boot_dmg();
    r.f = 0xFF;
    let cpu = Cpu::new(r);
    assert_eq!(cpu.registers().f, 0xF0);
    assert_eq!(cpu.registers().pc, 0x0100);
    assert_eq!(cpu.pc(), 0x0100);
}

#[test]
fn pop_af_masks_low_nibble() {
    // LD BC,$12FF; PUSH BC; POP AF
    let mut bus = TestBus::with_program(&[0x01, 0xFF, 0x12, 0xC5, 0xF1]);
    let mut cpu = cpu_at(0x100);
    for _ in 0..3 {
        cpu.step(&mut bus);
    }
    assert_eq!(cpu.registers().a, 0x12);
    assert_eq!(cpu.registers().f, 0xF0);
}

#[test]
fn ei_then_nop_takes_interrupt_after_the_nop() {
    // EI; NOP; NOP
    let mut bus = TestBus::with_program(&[0xFB, 0x00, 0x00]);
    bus.request(0x01, 0x01);
    let mut cpu = cpu_at(0x100);
    cpu.step(&mut bus); // EI
    assert!(!cpu.ime());
    assert!(cpu.ime_pending());
    cpu.step(&mut bus); // NOP runs; IME on
    assert_eq!(cpu.pc(), 0x102);
    assert!(cpu.ime());
    let before = bus.cycles;
    cpu.step(&mut bus); // dispatch
    assert_eq!(bus.cycles - before, 5);
    assert_eq!(cpu.pc(), 0x0040);
    assert!(!cpu.ime());
    assert_eq!(bus.mem[IF as usize], 0x00);
    let sp = cpu.registers().sp;
    assert_eq!(sp, 0xDFEE);
    assert_eq!(stacked_word(&bus, sp), 0x0102);
}

#[test]
fn ei_then_di_never_takes_interrupt() {
    // EI; DI; NOP; NOP
    let mut bus = TestBus::with_program(&[0xFB, 0xF3, 0x00, 0x00]);
    bus.request(0x1F, 0x1F);
    let mut cpu = cpu_at(0x100);
    for _ in 0..4 {
        cpu.step(&mut bus);
    }
    assert_eq!(cpu.pc(), 0x104);
    assert!(!cpu.ime());
    assert!(!cpu.ime_pending());
    assert_eq!(bus.mem[IF as usize], 0x1F);
}

#[test]
fn interrupt_priority_lowest_bit_first() {
    let mut bus = TestBus::with_program(&[0x00]);
    bus.request(0x1F, 0x14); // timer and joypad
    let mut cpu = cpu_at(0x100);
    cpu.set_ime(true);
    cpu.step(&mut bus);
    assert_eq!(cpu.pc(), 0x0050);
    assert_eq!(bus.mem[IF as usize], 0x10);
}

#[test]
fn halt_bug_reads_next_byte_twice() {
    // HALT; INC A; NOP  with IME=0 and an interrupt pending.
    let mut bus = TestBus::with_program(&[0x76, 0x3C, 0x00]);
    bus.request(0x04, 0x04);
    let mut cpu = cpu_at(0x100);
    cpu.step(&mut bus); // HALT (does not halt)
    assert!(!cpu.halted());
    assert_eq!(cpu.pc(), 0x101);
    cpu.step(&mut bus); // INC A, PC not incremented by the fetch
    assert_eq!(cpu.pc(), 0x101);
    cpu.step(&mut bus); // INC A again
    assert_eq!(cpu.pc(), 0x102);
    assert_eq!(cpu.registers().a, 2);
    assert_eq!(bus.mem[IF as usize], 0x04, "no interrupt was serviced");
}

#[test]
fn halt_with_ime0_wakes_without_dispatch() {
    // HALT; INC A
    let mut bus = TestBus::with_program(&[0x76, 0x3C]);
    let mut cpu = cpu_at(0x100);
    cpu.step(&mut bus);
    assert!(cpu.halted());
    for _ in 0..10 {
        cpu.step(&mut bus);
    }
    assert_eq!(bus.halt_idles, 10);
    assert!(cpu.halted());
    bus.request(0x01, 0x01);
    let before = bus.cycles;
    cpu.step(&mut bus); // wakes and runs INC A in the same step
    assert!(!cpu.halted());
    assert_eq!(bus.cycles - before, 1);
    assert_eq!(cpu.registers().a, 1);
    assert_eq!(cpu.pc(), 0x102);
    assert_eq!(bus.mem[IF as usize], 0x01);
}

#[test]
fn halt_with_ime1_wakes_and_dispatches() {
    // HALT; NOP
    let mut bus = TestBus::with_program(&[0x76, 0x00]);
    let mut cpu = cpu_at(0x100);
    cpu.set_ime(true);
    cpu.step(&mut bus);
    assert!(cpu.halted());
    cpu.step(&mut bus);
    assert!(cpu.halted());
    bus.request(0x02, 0x02);
    let before = bus.cycles;
    cpu.step(&mut bus);
    assert_eq!(
        bus.cycles - before,
        5,
        "dispatch only, no extra halt-exit cycle"
    );
    assert_eq!(cpu.pc(), 0x0048);
    assert_eq!(stacked_word(&bus, cpu.registers().sp), 0x0101);
}

#[test]
fn halt_with_ime1_and_pending_does_not_halt() {
    // The interrupt is requested during HALT's own opcode fetch, so the
    // interrupt check before it saw nothing and HALT sees it pending.
    let mut bus = TestBus::with_program(&[0x76, 0x00]);
    bus.mem[IE as usize] = 0x01;
    bus.raise_on_read = Some((0x100, 0x01));
    let mut cpu = cpu_at(0x100);
    cpu.set_ime(true);
    cpu.step(&mut bus);
    assert!(!cpu.halted());
    assert_eq!(cpu.pc(), 0x101);
    let before = bus.cycles;
    cpu.step(&mut bus);
    assert_eq!(bus.cycles - before, 5);
    assert_eq!(cpu.pc(), 0x0040);
    assert_eq!(stacked_word(&bus, cpu.registers().sp), 0x0101);
}

#[test]
fn ei_then_halt_with_pending_returns_to_the_halt() {
    // EI; HALT; INC A
    let mut bus = TestBus::with_program(&[0xFB, 0x76, 0x3C]);
    bus.request(0x01, 0x01);
    let mut cpu = cpu_at(0x100);
    cpu.step(&mut bus); // EI
    cpu.step(&mut bus); // HALT: IME on now, interrupt pending -> no halt
    assert!(!cpu.halted());
    assert_eq!(cpu.pc(), 0x101);
    cpu.step(&mut bus); // dispatch, return address is the HALT
    assert_eq!(cpu.pc(), 0x0040);
    assert_eq!(stacked_word(&bus, cpu.registers().sp), 0x0101);
}

#[test]
fn dispatch_jumps_to_0000_when_push_overwrites_ie() {
    // SP=0x0000: the PC high byte is pushed to 0xFFFF (IE).
    let mut bus = TestBus::with_program(&[]);
    bus.request(0x01, 0x01);
    let mut cpu = Cpu::new(Registers {
        sp: 0x0000,
        pc: 0x0200, // high byte 0x02 disables VBlank in IE
        ..Registers::default()
    });
    cpu.set_ime(true);
    let before = bus.cycles;
    cpu.step(&mut bus);
    assert_eq!(bus.cycles - before, 5);
    assert_eq!(cpu.pc(), 0x0000);
    assert_eq!(bus.mem[IF as usize], 0x01, "IF must not be cleared");
    assert_eq!(bus.mem[IE as usize], 0x02);
    assert_eq!(bus.mem[0xFFFE], 0x00);
    assert!(!cpu.ime());

    // Same, but the pushed high byte keeps the interrupt enabled.
    let mut bus = TestBus::with_program(&[]);
    bus.request(0x01, 0x01);
    let mut cpu = Cpu::new(Registers {
        sp: 0x0000,
        pc: 0x0100,
        ..Registers::default()
    });
    cpu.set_ime(true);
    cpu.step(&mut bus);
    assert_eq!(cpu.pc(), 0x0040);
    assert_eq!(bus.mem[IF as usize], 0x00);
}

#[test]
fn unused_opcodes_lock_the_cpu() {
    for op in [
        0xD3u8, 0xDB, 0xDD, 0xE3, 0xE4, 0xEB, 0xEC, 0xED, 0xF4, 0xFC, 0xFD,
    ] {
        let mut bus = TestBus::with_program(&[op, 0x3C]);
        let mut cpu = cpu_at(0x100);
        cpu.set_ime(true);
        cpu.step(&mut bus);
        assert!(cpu.locked(), "opcode {op:#04x}");
        bus.request(0x1F, 0x1F);
        bus.joypad = true;
        for _ in 0..100 {
            cpu.step(&mut bus);
        }
        assert!(cpu.locked());
        assert_eq!(cpu.pc(), 0x101);
        assert_eq!(cpu.registers().a, 0);
        assert_eq!(bus.halt_idles, 100);
    }
}

#[test]
fn stop_skips_a_byte_and_waits_for_joypad() {
    // STOP; (skipped byte); INC A
    let mut bus = TestBus::with_program(&[0x10, 0x3C, 0x3C]);
    let mut cpu = cpu_at(0x100);
    cpu.step(&mut bus);
    assert!(cpu.stopped());
    assert_eq!(bus.stops, 1);
    assert_eq!(cpu.pc(), 0x102);
    for _ in 0..5 {
        cpu.step(&mut bus);
    }
    assert!(cpu.stopped());
    assert_eq!(bus.halt_idles, 5);
    bus.joypad = true;
    cpu.step(&mut bus);
    assert!(!cpu.stopped());
    assert_eq!(cpu.registers().a, 1);
    assert_eq!(cpu.pc(), 0x103);
}

#[test]
fn instruction_cycle_counts() {
    // (program, expected M-cycles of the first instruction)
    let cases: &[(&[u8], u64)] = &[
        (&[0x00], 1),
        (&[0xCD, 0x00, 0x20], 6), // CALL nn
        (&[0xC4, 0x00, 0x20], 3), // CALL NZ (Z set below -> not taken)
        (&[0xC3, 0x00, 0x20], 4), // JP nn
        (&[0xE9], 1),             // JP HL
        (&[0x18, 0x05], 3),       // JR e
        (&[0xC5], 4),             // PUSH BC
        (&[0xC1], 3),             // POP BC
        (&[0xC9], 4),             // RET
        (&[0xC0], 2),             // RET NZ not taken
        (&[0xC8], 5),             // RET Z taken
        (&[0xFF], 4),             // RST 38
        (&[0x08, 0x00, 0xC0], 5), // LD (nn),SP
        (&[0xE8, 0x01], 4),       // ADD SP,e
        (&[0xF8, 0x01], 3),       // LD HL,SP+e
        (&[0xF9], 2),             // LD SP,HL
        (&[0x34], 3),             // INC (HL)
        (&[0xCB, 0x46], 3),       // BIT 0,(HL)
        (&[0xCB, 0x06], 4),       // RLC (HL)
        (&[0xCB, 0x00], 2),       // RLC B
        (&[0xFA, 0x00, 0xC0], 4), // LD A,(nn)
        (&[0xF0, 0x80], 3),       // LDH A,(n)
        (&[0xE2], 2),             // LD (C),A
        (&[0x36, 0x12], 3),       // LD (HL),n
        (&[0x09], 2),             // ADD HL,BC
        (&[0x03], 2),             // INC BC
    ];
    for (prog, want) in cases {
        let mut bus = TestBus::with_program(prog);
        let mut cpu = Cpu::new(Registers {
            f: FLAG_Z,
            h: 0xC0,
            sp: 0xDFF0,
            pc: 0x100,
            ..Registers::default()
        });
        cpu.step(&mut bus);
        assert_eq!(bus.cycles, *want, "program {prog:02x?}");
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..20 {
        let mut bus = TestBus::with_program(&[]);
        for b in bus.mem.iter_mut() {
            *b = next() as u8;
        }
        let mut cpu = Cpu::new(Registers {
            sp: next() as u16,
            pc: next() as u16,
            ..Registers::default()
        });
        for i in 0..20_000u32 {
            if i % 1000 == 0 {
                bus.joypad = !bus.joypad;
            }
            cpu.step(&mut bus);
        }
    }
}

#[test]
fn save_state_round_trip_and_validation() {
    // EI leaves a pending enable; HALT bug leaves a mode too.
    let mut bus = TestBus::with_program(&[0xFB]);
    let mut cpu = Cpu::new(Registers::post_boot_dmg());
    cpu.step(&mut bus);
    assert!(cpu.ime_pending());

    let mut w = StateWriter::new();
    cpu.save(&mut w);
    let bytes = w.into_bytes();

    let mut restored = Cpu::new(Registers::default());
    restored.load(&mut StateReader::new(&bytes)).unwrap();
    assert_eq!(restored, cpu);

    // Corrupted IME boolean.
    let mut bad = bytes.clone();
    bad[12] = 7;
    assert!(restored.load(&mut StateReader::new(&bad)).is_err());
    // Corrupted mode.
    let mut bad = bytes.clone();
    bad[13] = 200;
    assert!(restored.load(&mut StateReader::new(&bad)).is_err());
    // Bad F low nibble.
    let mut bad = bytes.clone();
    bad[1] = 0x0F;
    assert!(restored.load(&mut StateReader::new(&bad)).is_err());
    // Truncated.
    assert!(restored
        .load(&mut StateReader::new(&bytes[..bytes.len() - 1]))
        .is_err());
    // A failed load leaves the CPU untouched.
    assert_eq!(restored, cpu);
}

/// `run_table::max_cycles` bounds every opcode's real M-cycles (taken and not
/// taken), and equals them for the opcodes that never branch; the opcodes
/// a run leaves out have no bound.
#[test]
fn run_cycle_bounds_match_execution() {
    for op in 0..=255u8 {
        for next in 0..=255u8 {
            if op != 0xCB && next != 0 {
                continue;
            }
            let Some(max) = max_cycles(op, next) else {
                assert_eq!(run_role(op), RunRole::Excluded);
                continue;
            };
            let mut seen = Vec::new();
            for f in [0, FLAG_Z | FLAG_C] {
                let mut bus = TestBus::with_program(&[op, next, 0x00]);
                let mut cpu = Cpu::new(Registers {
                    f,
                    h: 0xC0,
                    sp: 0xDFF0,
                    pc: 0x100,
                    ..Registers::default()
                });
                cpu.step(&mut bus);
                seen.push(bus.cycles);
            }
            let most = *seen.iter().max().unwrap();
            assert_eq!(most, max as u64, "opcode {op:02X} {next:02X}: {seen:?}");
            if run_role(op) == RunRole::Plain {
                assert_eq!(seen[0], seen[1], "opcode {op:02X} {next:02X}");
            }
        }
    }
}

/// The run table: runs end at (and include) jumps, stop before STOP and the
/// undefined opcodes, never cross a bank boundary, and are capped.
#[test]
fn run_table_entries() {
    let mut rom = vec![0u8; 0x8000];
    // 0x0000: NOP; LD A,5; JP 0x1234; NOP
    rom[..6].copy_from_slice(&[0x00, 0x3E, 0x05, 0xC3, 0x34, 0x12]);
    // 0x0010: INC A; STOP
    rom[0x10..0x12].copy_from_slice(&[0x3C, 0x10]);
    // 0x3FFE: LD A,n whose immediate would be in the next bank.
    rom[0x3FFE] = 0x00;
    rom[0x3FFF] = 0x3E;
    let table = RunTable::new(&rom);
    // NOP (1) and LD A,n (2) before the JP.
    assert_eq!(table.at(0), Some(3));
    assert_eq!(table.at(1), Some(2));
    assert_eq!(table.at(3), Some(0));
    // INC A alone (STOP is left out).
    assert_eq!(table.at(0x10), Some(0));
    assert_eq!(table.at(0x11), None);
    assert_eq!(table.at(0x3FFF), None);
    assert_eq!(table.at(0x3FFE), Some(0));
    assert_eq!(table.at(0x8000), None);
    // A long stretch of NOPs is cut into capped runs.
    let runs: Vec<u32> = (0x20..0x3000).map(|o| table.at(o).unwrap()).collect();
    assert_eq!(runs.iter().max(), Some(&(super::run_table::MAX_RUN_CYCLES)));
}

/// Chained runs carry on through `JR e`, `JP nn` and `CALL nn` to a fixed
/// address in the jump's bank, and nowhere else.
#[test]
fn chained_run_table_entries() {
    let mut rom = vec![0u8; 0x10000];
    // 0x0000: LD A,5 (2); JP 0x0010 (4) / 0x0010: INC A (1); CALL 0x0020 (6);
    // HALT / 0x0020: INC B (1); RET (4).
    rom[..5].copy_from_slice(&[0x3E, 0x05, 0xC3, 0x10, 0x00]);
    rom[0x10..0x15].copy_from_slice(&[0x3C, 0xCD, 0x20, 0x00, 0x76]);
    rom[0x20..0x22].copy_from_slice(&[0x04, 0xC9]);
    // 0x0030: INC A; JR +1 (3) / 0x0034: INC B; JP NZ,0x0000 (3 not
    // taken); EI.
    rom[0x30..0x33].copy_from_slice(&[0x3C, 0x18, 0x01]);
    rom[0x34..0x39].copy_from_slice(&[0x04, 0xC2, 0x00, 0x00, 0xFB]);
    // 0x0080: CALL 0x0090 (6); INC A (1); HALT / 0x0090: CALL 0x00A0 (6);
    // RET NZ (2 not taken); RET (4) / 0x00A0: INC B (1); RET (4).
    rom[0x80..0x85].copy_from_slice(&[0xCD, 0x90, 0x00, 0x3C, 0x76]);
    rom[0x90..0x95].copy_from_slice(&[0xCD, 0xA0, 0x00, 0xC0, 0xC9]);
    rom[0xA0..0xA2].copy_from_slice(&[0x04, 0xC9]);
    // 0x00B0: CALL 0x00C0 / 0x00C0: INC B; JP 0x4000 (the other half): the
    // callee does not return within the run, so the run ends in it.
    rom[0xB0..0xB4].copy_from_slice(&[0xCD, 0xC0, 0x00, 0x76]);
    rom[0xC0..0xC4].copy_from_slice(&[0x04, 0xC3, 0x00, 0x40]);
    // 0x0040: INC A; JP 0x4000 (the other half of the address space).
    rom[0x40..0x44].copy_from_slice(&[0x3C, 0xC3, 0x00, 0x40]);
    // 0x0050: INC A; JP 0x0060, a poll loop.
    rom[0x50..0x54].copy_from_slice(&[0x3C, 0xC3, 0x60, 0x00]);
    rom[0x60..0x66].copy_from_slice(&[0xF0, 0x41, 0xE6, 0x02, 0x20, 0xFA]);
    // Bank 1, 0x4100: INC A; JP 0x4200 / 0x4200: INC B; RET; and
    // 0x4300: INC A; JP 0x0000 (bank 0).
    rom[0x4100..0x4104].copy_from_slice(&[0x3C, 0xC3, 0x00, 0x42]);
    rom[0x4200..0x4202].copy_from_slice(&[0x04, 0xC9]);
    rom[0x4300..0x4304].copy_from_slice(&[0x3C, 0xC3, 0x00, 0x00]);
    // 0x0070: JR -2 (an idle loop).
    rom[0x70..0x72].copy_from_slice(&[0x18, 0xFE]);
    let table = RunTable::new(&rom);
    // The plain runs end at the jumps...
    assert_eq!(table.at(0), Some(2));
    assert_eq!(table.at(0x10), Some(1));
    assert_eq!(table.at(0x30), Some(1));
    // ...the chained ones go on, through the callee and its return to the
    // HALT: 2 + 4 + 1 + 6 + 1 + 4.
    assert_eq!(table.chained_at(0), Some(18));
    assert_eq!(table.chained_at(0x10), Some(12));
    // The callee alone ends at its RET.
    assert_eq!(table.chained_at(0x20), Some(1));
    // Through the conditional jump as not taken, to the EI: 1 + 3 + 1 + 3.
    assert_eq!(table.chained_at(0x30), Some(8));
    // Nested calls: 6 + (6 + 1 + 4 + 2) + 4 + 1 before the HALT.
    assert_eq!(table.chained_at(0x90), Some(6 + 1 + 4 + 2));
    assert_eq!(table.chained_at(0x80), Some(24));
    // A callee whose run ends elsewhere: into it, up to its jump.
    assert_eq!(table.chained_at(0xB0), Some(6 + 1));
    // A RET with no call of the run before it ends the run.
    assert_eq!(table.chained_at(0x4100), Some(6));
    // Not into the other half, a poll loop or an idle loop.
    assert_eq!(table.chained_at(0x40), Some(1));
    assert_eq!(table.chained_at(0x50), Some(1));
    assert_eq!(table.chained_at(0x4300), Some(1));
    assert!(table.idle_at(0x70));
    assert_eq!(table.chained_at(0x70), None);
    // Where no run starts, no chained run does.
    for off in 0..rom.len() {
        assert_eq!(
            table.at(off).is_none(),
            table.chained_at(off).is_none(),
            "{off:#x}"
        );
        assert!(table.chained_at(off) >= table.at(off), "{off:#x}");
        assert!(table.chained_at(off).unwrap_or(0) <= super::run_table::MAX_CHAIN_CYCLES);
    }
}

#[test]
fn poll_loops_in_the_run_table() {
    let mut rom = vec![0u8; 0x8000];
    // 0x0100: NOP; then LDH A,(0x41); AND 2; JR NZ,-6 (a poll loop).
    rom[0x100..0x107].copy_from_slice(&[0x00, 0xF0, 0x41, 0xE6, 0x02, 0x20, 0xFA]);
    // 0x0200: LDH A,(0x44); CP 0x90; JR C,-6 and LDH A,(0x41); BIT 1,A; JR Z,-6.
    rom[0x200..0x206].copy_from_slice(&[0xF0, 0x44, 0xFE, 0x90, 0x38, 0xFA]);
    rom[0x210..0x216].copy_from_slice(&[0xF0, 0x41, 0xCB, 0x4F, 0x28, 0xFA]);
    // Not poll loops: the joypad register; BIT 1,B; a jump elsewhere; OR.
    rom[0x300..0x306].copy_from_slice(&[0xF0, 0x00, 0xE6, 0x01, 0x20, 0xFA]);
    rom[0x310..0x316].copy_from_slice(&[0xF0, 0x41, 0xCB, 0x48, 0x28, 0xFA]);
    rom[0x320..0x326].copy_from_slice(&[0xF0, 0x41, 0xE6, 0x02, 0x20, 0xF9]);
    rom[0x330..0x336].copy_from_slice(&[0xF0, 0x41, 0xF6, 0x02, 0x20, 0xFA]);
    // Across the end of bank 0.
    rom[0x3FFC..0x4002].copy_from_slice(&[0xF0, 0x41, 0xE6, 0x02, 0x20, 0xFA]);
    let table = RunTable::new(&rom);
    for off in [0x101, 0x200, 0x210] {
        assert!(table.poll_at(off), "{off:#x}");
        assert_eq!(table.at(off), None, "{off:#x}");
    }
    // Code falling into the loop runs through its first turn.
    assert_eq!(table.at(0x100), Some(1 + super::run_table::POLL_CYCLES));
    for off in [0x300, 0x310, 0x320, 0x330, 0x3FFC] {
        assert!(!table.poll_at(off), "{off:#x}");
        assert!(table.at(off).is_some(), "{off:#x}");
    }
    // The loop's instructions but the jump take POLL_CYCLES, as the
    // table counts them for a run.
    for off in [0x101usize, 0x200, 0x210] {
        let mut cycles = 0;
        let mut at = off;
        for _ in 0..2 {
            cycles += max_cycles(rom[at], rom[at + 1]).unwrap() as u32;
            at += instruction_length(rom[at]) as usize;
        }
        assert_eq!(cycles, super::run_table::POLL_CYCLES);
    }
    let poll = PollLoop::decode(&rom[0x200..0x206]).unwrap();
    assert_eq!(
        (poll.register, poll.test, poll.operand, poll.jump),
        (0xFF44, 0xFE, 0x90, 0x38)
    );
}

#[test]
fn poll_loop_turns_match_execution() {
    // One turn through `PollLoop::turn` leaves A and F as executing it does,
    // and jumps back exactly when the JR does, after POLL_TURN_CYCLES.
    let loops: [[u8; 6]; 6] = [
        [0xF0, 0x41, 0xE6, 0x02, 0x20, 0xFA],
        [0xF0, 0x41, 0xE6, 0x03, 0x28, 0xFA],
        [0xF0, 0x44, 0xFE, 0x90, 0x38, 0xFA],
        [0xF0, 0x44, 0xFE, 0x40, 0x30, 0xFA],
        [0xF0, 0x41, 0xCB, 0x4F, 0x28, 0xFA],
        [0xF0, 0x41, 0xCB, 0x57, 0x20, 0xFA],
    ];
    for code in loops {
        let poll = PollLoop::decode(&code).unwrap();
        for v in 0..=255u8 {
            for f in [0x00, 0x10, 0xF0] {
                let mut bus = TestBus::with_program(&code);
                bus.mem[poll.register as usize] = v;
                let mut cpu = Cpu::new(Registers {
                    pc: 0x100,
                    f,
                    ..Registers::default()
                });
                for _ in 0..3 {
                    cpu.step(&mut bus);
                }
                let mut turned = Cpu::new(Registers {
                    pc: 0x100,
                    f,
                    ..Registers::default()
                });
                let back = poll.turn(&mut turned, v);
                assert_eq!(back, cpu.pc() == 0x100, "{code:02X?} v={v:#x} f={f:#x}");
                if back {
                    assert_eq!(bus.cycles, super::run_table::POLL_TURN_CYCLES);
                }
                let (r, t) = (cpu.registers(), turned.registers());
                assert_eq!((r.a, r.f), (t.a, t.f), "{code:02X?} v={v:#x} f={f:#x}");
            }
        }
    }
}

#[test]
fn countdown_skips_match_execution() {
    // `Countdown::skip` leaves A, F and PC as executing its M-cycles does,
    // and stops before the turn that reaches zero.
    for load in [None, Some(0x00), Some(0x01), Some(0x10), Some(0x28)] {
        let code: Vec<u8> = match load {
            Some(n) => vec![0x3E, n, 0x3D, 0x20, 0xFD],
            None => vec![0x3D, 0x20, 0xFD],
        };
        let countdown = Countdown::decode(&code).unwrap();
        assert_eq!(countdown.load, load);
        for a in [0x00, 0x01, 0x02, 0x10, 0x11, 0x80] {
            for max_cycles in [0, 1, 2, 5, 6, 9, 64, 2000] {
                let regs = Registers {
                    pc: 0x100,
                    a,
                    f: 0x10,
                    ..Registers::default()
                };
                let mut skipped = Cpu::new(regs);
                let m = countdown.skip(&mut skipped, max_cycles);
                assert!(m <= max_cycles);
                let mut bus = TestBus::with_program(&code);
                let mut cpu = Cpu::new(regs);
                while bus.cycles < m {
                    cpu.step(&mut bus);
                }
                assert_eq!(bus.cycles, m, "{load:?} a={a:#x} max={max_cycles}");
                assert_eq!(cpu.registers(), skipped.registers(), "{load:?} a={a:#x}");
                // Never past the last turn: the loop is still running.
                assert_eq!(
                    cpu.pc(),
                    if m == 0 {
                        0x100
                    } else {
                        0x100 + code.len() as u16 - 3
                    }
                );
            }
        }
    }
    assert_eq!(Countdown::decode(&[0x3D, 0x20, 0xFC]), None);
    assert_eq!(Countdown::decode(&[0x3E, 0x05, 0x3D, 0x20]), None);
}

#[test]
fn idle_loops_in_the_run_table() {
    use super::run_table::IdleLoop;
    let mut rom = vec![0u8; 0x8000];
    rom[0x200..0x202].copy_from_slice(&[0x18, 0xFE]); // JR -2
    rom[0x210..0x213].copy_from_slice(&[0xC3, 0x10, 0x02]); // JP 0x0210 (itself)
    rom[0x4100..0x4103].copy_from_slice(&[0xC3, 0x00, 0x41]); // JP 0x4100 in bank 1
                                                              // Not idle loops: JR -3, a JP elsewhere, JP to bank 1's address from bank 0.
    rom[0x300..0x302].copy_from_slice(&[0x18, 0xFD]);
    rom[0x310..0x313].copy_from_slice(&[0xC3, 0x00, 0x03]);
    rom[0x320..0x323].copy_from_slice(&[0xC3, 0x20, 0x43]);
    let table = RunTable::new(&rom);
    for off in [0x200, 0x210, 0x4100] {
        assert!(table.idle_at(off), "{off:#x}");
        assert_eq!(table.at(off), None, "{off:#x}");
    }
    for off in [0x300, 0x310, 0x320] {
        assert!(!table.idle_at(off), "{off:#x}");
        assert!(table.at(off).is_some(), "{off:#x}");
    }
    // Decided by PC when it runs: the same bytes mapped elsewhere are not one.
    assert_eq!(
        IdleLoop::decode(&rom[0x4100..0x4103], 0x4100),
        Some(IdleLoop { turn_cycles: 4 })
    );
    assert_eq!(IdleLoop::decode(&rom[0x4100..0x4103], 0x0100), None);
    assert_eq!(
        IdleLoop::decode(&rom[0x200..0x202], 0x1234),
        Some(IdleLoop { turn_cycles: 3 })
    );
}
