//! Verification aids: an instruction trace ring buffer and test-only fault
//! injection. Both exist only on the diagnostic path, `crate::debug::DiagBus`,
//! a third instantiation of the interpreter that wraps the reference bus
//! (`Bus<true>`); the fast and the plain reference path are compiled without
//! a single extra instruction (`DebugHooks::DIAGNOSTIC` is `false` for them, so
//! every hook below is removed at compile time).
//!
//! * The trace records one [`TraceEntry`] before every CPU step: the PC, the
//!   opcode bytes, the registers, IME, IE, IF and the T-cycle count. A run of
//!   halted M-cycles at one PC is folded into one entry (`repeat`).
//! * A [`Fault`] deliberately breaks one instruction, so that a verification
//!   harness can prove that it catches a CPU bug. Never enable one outside
//!   tests: it makes the emulator wrong on purpose.

use std::collections::VecDeque;

use super::{Cpu, CpuHost, Mode, Registers, FLAG_C, FLAG_H, FLAG_N, FLAG_Z};

/// A deliberate CPU bug for testing verification tools (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// ADC (all 9 opcodes) computes the half-carry flag ignoring the carry-in.
    AdcHalfCarry,
    /// DAA ignores the H flag (it adjusts only on the nibble value).
    DaaIgnoreH,
}

impl Fault {
    /// Every fault, in the order of [`Fault::name`].
    pub const ALL: [Fault; 2] = [Fault::AdcHalfCarry, Fault::DaaIgnoreH];

    /// The fault's name: `"adc_half_carry"` or `"daa_ignore_h"`.
    pub fn name(self) -> &'static str {
        match self {
            Fault::AdcHalfCarry => "adc_half_carry",
            Fault::DaaIgnoreH => "daa_ignore_h",
        }
    }

    /// The fault called `name` (see [`Fault::name`]).
    pub fn from_name(name: &str) -> Option<Fault> {
        Fault::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// What a traced CPU step did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// Executed the instruction at `pc`.
    Instruction,
    /// Dispatched an interrupt (`pc` is the address pushed as return address).
    Interrupt,
    /// Halted with nothing pending (`repeat` consecutive steps).
    Halted,
    /// In STOP mode with no button held (`repeat` consecutive steps).
    Stopped,
    /// Hung by an unused opcode (`repeat` consecutive steps).
    Locked,
}

impl StepKind {
    pub fn name(self) -> &'static str {
        match self {
            StepKind::Instruction => "instruction",
            StepKind::Interrupt => "interrupt",
            StepKind::Halted => "halted",
            StepKind::Stopped => "stopped",
            StepKind::Locked => "locked",
        }
    }
}

/// One traced CPU step, as the machine stood just before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceEntry {
    pub kind: StepKind,
    /// The registers before the step (`registers.pc` is the instruction's address).
    pub registers: Registers,
    /// The bytes at PC (read without side effects); the first `length` are the instruction.
    pub bytes: [u8; 3],
    /// The instruction's length in bytes (1 to 3; CB-prefixed ones are 2).
    pub length: u8,
    pub ime: bool,
    pub ie: u8,
    pub intf: u8,
    /// T-cycles since power-on when the step began.
    pub cycles: u64,
    /// Consecutive identical halted/stopped/locked steps folded into this entry (1 otherwise).
    pub repeat: u32,
}

impl TraceEntry {
    /// The instruction bytes (`bytes[..length]`).
    pub fn opcode(&self) -> &[u8] {
        &self.bytes[..self.length as usize]
    }
}

/// The encoded length of the instruction starting with `op` (1 to 3 bytes;
/// STOP counts as 2, CB-prefixed opcodes as 2).
pub fn instruction_length(op: u8) -> u8 {
    match op {
        0x01 | 0x08 | 0x11 | 0x21 | 0x31 | 0xC2 | 0xC3 | 0xC4 | 0xCA | 0xCC | 0xCD | 0xD2
        | 0xD4 | 0xDA | 0xDC | 0xEA | 0xFA => 3,
        0x06 | 0x0E | 0x10 | 0x16 | 0x18 | 0x1E | 0x20 | 0x26 | 0x28 | 0x2E | 0x30 | 0x36
        | 0x38 | 0x3E | 0xC6 | 0xCB | 0xCE | 0xD6 | 0xDE | 0xE0 | 0xE6 | 0xE8 | 0xEE | 0xF0
        | 0xF6 | 0xF8 | 0xFE => 2,
        _ => 1,
    }
}

/// The diagnostic state of one machine: the trace ring buffer and the fault.
#[derive(Debug, Clone, Default)]
pub struct Diagnostics {
    entries: VecDeque<TraceEntry>,
    capacity: usize,
    fault: Option<Fault>,
    /// The reference-mode setting to restore when diagnostics are switched off.
    pub saved_reference: bool,
}

impl Diagnostics {
    pub fn new(saved_reference: bool) -> Diagnostics {
        Diagnostics {
            saved_reference,
            ..Diagnostics::default()
        }
    }

    /// Keep the last `capacity` steps (0: no tracing); drops older entries.
    pub fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity;
        while self.entries.len() > capacity {
            self.entries.pop_front();
        }
        self.entries.shrink_to(capacity);
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn fault(&self) -> Option<Fault> {
        self.fault
    }

    pub fn set_fault(&mut self, fault: Option<Fault>) {
        self.fault = fault;
    }

    /// Neither tracing nor a fault: the diagnostic path is not needed.
    pub fn idle(&self) -> bool {
        self.capacity == 0 && self.fault.is_none()
    }

    /// The recorded steps, oldest first.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = &TraceEntry> {
        self.entries.iter()
    }

    /// Forget the recorded steps (e.g. after loading a state).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Record a step (the diagnostic bus, `crate::debug::DiagBus`, before each
    /// one); a run of halted or stopped steps in one state is one entry.
    pub fn push(&mut self, entry: TraceEntry) {
        if self.capacity == 0 {
            return;
        }
        if entry.kind != StepKind::Instruction && entry.kind != StepKind::Interrupt {
            if let Some(last) = self.entries.back_mut() {
                if last.kind == entry.kind && last.registers == entry.registers {
                    last.repeat = last.repeat.saturating_add(1);
                    return;
                }
            }
        }
        if self.entries.len() == self.capacity {
            self.entries.pop_front();
        }
        self.entries.push_back(entry);
    }
}

impl Cpu {
    /// Record the step about to run (diagnostic path only).
    #[inline(never)]
    pub(super) fn trace_before_step<B: CpuHost>(&mut self, bus: &mut B) {
        let pending = bus.pending_interrupts() != 0;
        let kind = match self.mode {
            Mode::Running if self.ime && pending => StepKind::Interrupt,
            Mode::Running | Mode::EiPending | Mode::HaltBug => StepKind::Instruction,
            Mode::Halted if !pending => StepKind::Halted,
            Mode::Halted if self.ime => StepKind::Interrupt,
            Mode::Halted => StepKind::Instruction,
            Mode::Stopped if !bus.joypad_pressed() => StepKind::Stopped,
            Mode::Stopped if self.ime && pending => StepKind::Interrupt,
            Mode::Stopped => StepKind::Instruction,
            Mode::Locked => StepKind::Locked,
        };
        let ime = self.ime;
        bus.trace_step(kind, self.registers(), ime);
    }

    /// Run `op` with the injected `fault` if the fault concerns it; returns
    /// false (nothing done) otherwise. Diagnostic path only.
    #[inline(never)]
    pub(super) fn execute_faulty<B: CpuHost>(&mut self, fault: Fault, op: u8, bus: &mut B) -> bool {
        match (fault, op) {
            (Fault::AdcHalfCarry, 0x88..=0x8F | 0xCE) => {
                let v = match op {
                    0x88 => self.b,
                    0x89 => self.c,
                    0x8A => self.d,
                    0x8B => self.e,
                    0x8C => self.h,
                    0x8D => self.l,
                    0x8E => self.read_hl(bus),
                    0x8F => self.a,
                    _ => self.fetch8(bus),
                };
                let a = self.a;
                let cin = (self.f >> 4) & 1;
                let sum = a as u16 + v as u16 + cin as u16;
                let r = sum as u8;
                // The bug: the carry-in is left out of the nibble sum.
                let h = if (a & 0x0F) + (v & 0x0F) > 0x0F {
                    FLAG_H
                } else {
                    0
                };
                let c = if sum > 0xFF { FLAG_C } else { 0 };
                self.a = r;
                self.f = if r == 0 { FLAG_Z } else { 0 } | h | c;
                true
            }
            (Fault::DaaIgnoreH, 0x27) => {
                // DAA as in `alu.rs`, with the H flag taken as clear.
                let mut a = self.a;
                let mut carry = self.f & FLAG_C != 0;
                if self.f & FLAG_N == 0 {
                    if carry || a > 0x99 {
                        a = a.wrapping_add(0x60);
                        carry = true;
                    }
                    if (a & 0x0F) > 0x09 {
                        a = a.wrapping_add(0x06);
                    }
                } else if carry {
                    a = a.wrapping_sub(0x60);
                }
                self.a = a;
                self.f = if a == 0 { FLAG_Z } else { 0 }
                    | (self.f & FLAG_N)
                    | if carry { FLAG_C } else { 0 };
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_of_a_few_opcodes() {
        assert_eq!(instruction_length(0x00), 1);
        assert_eq!(instruction_length(0x3E), 2);
        assert_eq!(instruction_length(0xCB), 2);
        assert_eq!(instruction_length(0xCD), 3);
        assert_eq!(instruction_length(0xE0), 2);
        assert_eq!(instruction_length(0xEA), 3);
        assert_eq!(instruction_length(0xE9), 1);
    }

    #[test]
    fn fault_names_round_trip() {
        for f in Fault::ALL {
            assert_eq!(Fault::from_name(f.name()), Some(f));
        }
        assert_eq!(Fault::from_name("nope"), None);
    }

    fn entry(kind: StepKind, pc: u16) -> TraceEntry {
        TraceEntry {
            kind,
            registers: Registers {
                pc,
                ..Registers::default()
            },
            bytes: [0; 3],
            length: 1,
            ime: false,
            ie: 0,
            intf: 0,
            cycles: 0,
            repeat: 1,
        }
    }

    #[test]
    fn ring_keeps_the_last_entries_and_folds_halts() {
        let mut d = Diagnostics::new(false);
        d.push(entry(StepKind::Instruction, 1));
        assert_eq!(d.entries().len(), 0, "capacity 0 records nothing");
        d.set_capacity(3);
        for pc in 0..5 {
            d.push(entry(StepKind::Instruction, pc));
        }
        let pcs: Vec<u16> = d.entries().map(|e| e.registers.pc).collect();
        assert_eq!(pcs, [2, 3, 4]);
        d.push(entry(StepKind::Halted, 9));
        d.push(entry(StepKind::Halted, 9));
        d.push(entry(StepKind::Halted, 9));
        let last = d.entries().last().copied();
        assert_eq!(
            last.map(|e| (e.kind, e.repeat)),
            Some((StepKind::Halted, 3))
        );
        d.set_capacity(1);
        assert_eq!(d.entries().len(), 1);
    }
}

#[cfg(test)]
mod machine_tests {
    use super::*;
    use crate::GameBoy;

    /// A 32 KiB ROM-only image running `program` from 0x0100.
    fn rom(program: &[u8]) -> Vec<u8> {
        let mut rom = vec![0u8; 0x8000];
        rom[0x100..0x100 + program.len()].copy_from_slice(program);
        rom
    }

    // ld a,0x0F; scf; adc a,0x00 (H=1 only through the carry-in);
    // ld a,0x09; add a,0x09 (A=0x12, H=1); daa (A=0x18); jr -2
    const PROGRAM: [u8; 11] = [
        0x3E, 0x0F, 0x37, 0xCE, 0x00, 0x3E, 0x09, 0xC6, 0x09, 0x27, 0x18,
    ];

    fn machine() -> GameBoy {
        let mut program = PROGRAM.to_vec();
        program.push(0xFE);
        GameBoy::new(&rom(&program), None).expect("ROM loads")
    }

    fn run(gb: &mut GameBoy, steps: usize) {
        for _ in 0..steps {
            gb.step_instruction();
        }
    }

    #[test]
    fn adc_fault_drops_the_half_carry_from_the_carry_in() {
        let mut gb = machine();
        run(&mut gb, 3);
        assert_eq!((gb.registers().a, gb.registers().f), (0x10, FLAG_H));
        let mut gb = machine();
        gb.inject_fault(Some(Fault::AdcHalfCarry));
        run(&mut gb, 3);
        assert_eq!((gb.registers().a, gb.registers().f), (0x10, 0));
        assert_eq!(gb.fault(), Some(Fault::AdcHalfCarry));
    }

    #[test]
    fn daa_fault_ignores_h() {
        let mut gb = machine();
        run(&mut gb, 6);
        assert_eq!(gb.registers().a, 0x18);
        let mut gb = machine();
        gb.inject_fault(Some(Fault::DaaIgnoreH));
        run(&mut gb, 6);
        assert_eq!(gb.registers().a, 0x12);
    }

    #[test]
    fn trace_records_the_last_steps_with_registers_before() {
        let mut gb = machine();
        assert!(gb.trace().is_empty());
        gb.set_trace(4);
        assert!(gb.reference_mode());
        run(&mut gb, 6);
        let trace = gb.trace();
        let pcs: Vec<u16> = trace.iter().map(|e| e.registers.pc).collect();
        assert_eq!(pcs, [0x103, 0x105, 0x107, 0x109]);
        assert_eq!(trace[0].opcode(), [0xCE, 0x00]);
        assert_eq!(trace[0].registers.f & FLAG_C, FLAG_C, "SCF ran before");
        assert_eq!(trace[3].opcode(), [0x27]);
        assert_eq!(
            trace[1].cycles - trace[0].cycles,
            8,
            "ADC a,n takes 2 M-cycles"
        );
        assert!(trace.iter().all(|e| e.kind == StepKind::Instruction));
        gb.set_trace(0);
        assert!(
            !gb.reference_mode(),
            "turning the trace off restores the fast path"
        );
        assert!(gb.trace().is_empty());
    }

    #[test]
    fn reference_setting_made_while_tracing_applies_afterwards() {
        let mut gb = machine();
        gb.set_reference_mode(true);
        gb.set_trace(8);
        gb.inject_fault(Some(Fault::DaaIgnoreH));
        gb.set_trace(0);
        assert!(gb.reference_mode(), "the fault keeps the reference path");
        gb.set_reference_mode(false);
        assert!(gb.reference_mode());
        gb.inject_fault(None);
        assert!(!gb.reference_mode());
    }

    #[test]
    fn tracing_does_not_change_the_machine() {
        // Frames with interrupts, halts and the PPU: the traced run must end in
        // the same state as the fast path.
        let mut fast = GameBoy::new(&rom(&[0x18, 0xFE]), None).expect("ROM loads");
        let mut traced = fast.clone();
        traced.set_trace(16);
        fast.run_frames(5, false);
        traced.run_frames(5, false);
        assert_eq!(fast.save_state(), traced.save_state());
        assert_eq!(traced.trace().len(), 16);
    }
}
