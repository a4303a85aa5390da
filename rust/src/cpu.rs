//! SM83 CPU (the Game Boy DMG core): an M-cycle accurate interpreter.
//!
//! Every memory access of an instruction is a separate [`CpuBus::read`] /
//! [`CpuBus::write`] call made in hardware order, and every internal cycle is a
//! [`CpuBus::idle`] call, so the bus can advance timers, the PPU, DMA... between
//! accesses. [`Cpu::step`] runs one instruction, one interrupt dispatch or one
//! halted/stopped idle period.
//!
//! Layout: this file holds the bus trait, the register file, the CPU state
//! machine (interrupts, HALT, STOP, EI delay) and save states;
//! `cpu/execute.rs` holds the opcode `match`, `cpu/alu.rs` the flag
//! arithmetic and `cpu/cb.rs` the CB-prefixed opcodes.

mod alu;
mod cb;
mod execute;
mod run_table;
#[cfg(test)]
mod tests;
mod trace;

#[cfg(test)]
use run_table::RunTable;
#[cfg(any(test, feature = "jit"))]
pub(crate) use run_table::{max_cycles, run_role, RunRole};
pub(crate) use run_table::{
    Code, Countdown, IdleLoop, PollLoop, MAX_CHAIN_CYCLES, POLL_CYCLES, POLL_TURN_CYCLES,
};
pub use trace::{instruction_length, Diagnostics, Fault, StepKind, TraceEntry};

use crate::error::{Error, Result};
use crate::state::{StateReader, StateWriter, Stateful};

/// What the CPU sees of the rest of the machine. Every `read`/`write`/`idle`
/// call is exactly one M-cycle (4 T-cycles); the bus advances the machine.
///
/// The core trait: memory accesses (three required, three refinements with
/// defaults) and interrupts, HALT and STOP (five required, one refinement).
/// A bus the CPU runs on also implements the two extension traits,
/// [`RunHooks`] (fast-path hooks) and [`DebugHooks`] (breakpoints and
/// diagnostics), whose defaults are always correct: a plain bus implements
/// them empty (see [`CpuHost`]).
pub trait CpuBus {
    /// One M-cycle memory read.
    fn read(&mut self, addr: u16) -> u8;
    /// One M-cycle memory write.
    fn write(&mut self, addr: u16, value: u8);
    /// One internal M-cycle with no memory access.
    fn idle(&mut self);
    /// One internal M-cycle in which the 16-bit increment/decrement unit
    /// drives `addr` onto the address bus without a read or write (INC rr,
    /// DEC rr, the SP decrement before a push). On the DMG an address in
    /// 0xFE00..=0xFEFF during the OAM scan corrupts OAM like a write (the
    /// OAM bug, see `oam_bug.rs`). Buses that do not model it just idle.
    #[inline(always)]
    fn idle_idu(&mut self, addr: u16) {
        let _ = addr;
        self.idle();
    }
    /// One M-cycle read of `addr` while the increment/decrement unit also
    /// steps that same address (opcode and immediate fetches, LD A,(HL+/-),
    /// the first byte of POP/RET): for the OAM bug a read and a write in the
    /// same cycle. Buses that do not model it just read.
    #[inline(always)]
    fn read_idu(&mut self, addr: u16) -> u8 {
        self.read(addr)
    }
    /// One M-cycle opcode or immediate fetch at PC: `read_idu` (kept
    /// separate so a bus can serve fetches from a window over the code).
    #[inline(always)]
    fn fetch(&mut self, addr: u16) -> u8 {
        self.read_idu(addr)
    }
    /// `IE & IF & 0x1F`: interrupts requested and enabled (no side effects, no time).
    fn pending_interrupts(&mut self) -> u8;
    /// The pending interrupts as the dispatch sees them when it picks the
    /// vector, in the M-cycle of the PC high push (no side effects, no time):
    /// a request raised at the very end of that M-cycle is not among them.
    /// Default: `pending_interrupts`.
    #[inline]
    fn pending_at_dispatch(&mut self) -> u8 {
        self.pending_interrupts()
    }
    /// Clear one IF bit (`mask` has exactly one bit set) when dispatching.
    fn acknowledge_interrupt(&mut self, mask: u8);
    /// The dispatched IF bit (`mask`, one bit) once more, after the PC low
    /// byte has been pushed: a DMG clears it in that M-cycle, after the
    /// pushed byte lands (so a push into IF keeps only its other bits) and
    /// after requests of the same source raised early in it, which are
    /// lost. The bus decides which requests of that M-cycle came later and
    /// survive. Default: nothing (the bit was cleared at the vector choice).
    #[inline(always)]
    fn acknowledge_after_low_push(&mut self, mask: u8) {
        let _ = mask;
    }
    /// The CPU is halted (or stopped/locked) with nothing pending: advance at
    /// least one M-cycle, or fast-forward to the next moment something could
    /// change (the bus decides; the reference path advances exactly one).
    fn halt_idle(&mut self);
    /// STOP was executed (resets DIV on DMG). Returns immediately.
    fn stop(&mut self);
    /// STOP is about to run: a CGB with a speed switch armed (KEY1) switches
    /// speed here, holding the CPU meanwhile, and returns `true`; STOP then
    /// ends as a 2-byte instruction and the CPU runs on. Everything else
    /// returns `false` (the default: a DMG has no speed switch). The CGB's
    /// one hook into the CPU (docs/design.md, "The Game Boy Color").
    #[inline(always)]
    fn speed_switch(&mut self) -> bool {
        false
    }
    /// True while any joypad button is held (wakes the CPU from STOP).
    fn joypad_pressed(&mut self) -> bool;
}

/// Fast-path hooks of a bus: how it lets [`Cpu::run_until`] skip work (the
/// interrupt and end checks between rechecks, straight-line runs). The
/// defaults (check every step, no runs) are always correct.
pub trait RunHooks: CpuBus {
    /// Whether the CPU must look again, before its next step, at what
    /// [`Cpu::run_until`] otherwise assumes unchanged since it last looked:
    /// the `done` condition, pending interrupts (IE, IF) and its own mode
    /// and IME. Returns true at most once per [`RunHooks::recheck`] (or per
    /// change the bus itself made); the default, true every time, is always
    /// correct.
    #[inline(always)]
    fn take_recheck(&mut self) -> bool {
        true
    }
    /// Ask for the next [`RunHooks::take_recheck`] to be true (the CPU changed
    /// its mode or IME, or has stepped a non-running state).
    #[inline(always)]
    fn recheck(&mut self) {}

    /// A conditional jump, call or return was taken. Straight runs of ROM
    /// code chain through them as not taken (`RunTable::chain`): the run
    /// ends after this one.
    #[inline(always)]
    fn branch_taken(&mut self) {}
    /// `CALL nn` pushed the return address `ret`: a straight run of ROM code
    /// remembers it, to check the matching `RET` against it.
    #[inline(always)]
    fn called(&mut self, ret: u16) {
        let _ = ret;
    }
    /// `RET` popped `to` (PC now): a straight run of ROM code goes on only
    /// if that is the address its matching `CALL nn` pushed (the run was
    /// chained through the return, `RunTable::chain`).
    #[inline(always)]
    fn returned(&mut self, to: u16) {
        let _ = to;
    }

    /// Whether [`RunHooks::run_straight`] can run straight-line runs of ROM
    /// and work-RAM code (`cpu/run_table.rs`); a compile-time constant.
    const STRAIGHT_RUNS: bool = false;
    /// Run straight-line runs from PC (only called when
    /// [`RunHooks::STRAIGHT_RUNS`], with the CPU running and no interrupt to
    /// take); by value, like `Cpu::outlined_step`.
    #[inline(always)]
    fn run_straight(
        cpu: Cpu,
        bus: Self,
        done: &mut impl FnMut(&mut Self) -> bool,
    ) -> (Cpu, Self, Straight)
    where
        Self: Sized,
    {
        let _ = done;
        (cpu, bus, Straight::Step)
    }
}

/// Debugging hooks of a bus: PC breakpoints and the diagnostic trace. The
/// defaults are compile-time constants that remove the hooks' code from
/// every other bus.
pub trait DebugHooks: CpuBus {
    /// Whether this bus stops at PC breakpoints (`crate::debug::HookBus`):
    /// only then does [`Cpu::run_until`] ask [`DebugHooks::breakpoint`] before
    /// each instruction. A compile-time constant, so the other buses carry
    /// no breakpoint code at all.
    const BREAKPOINTS: bool = false;
    /// Whether the instruction at `pc`, about to run, is a breakpoint: the
    /// run then stops before it (breakpoint buses only).
    #[inline(always)]
    fn breakpoint(&mut self, pc: u16) -> bool {
        let _ = pc;
        false
    }

    /// Whether this bus is the diagnostic one (`crate::debug::DiagBus`): only then
    /// does the CPU call the two hooks below. A compile-time constant, so the
    /// fast and reference buses carry no trace or fault code at all.
    const DIAGNOSTIC: bool = false;
    /// The injected fault, if any (diagnostic bus only).
    #[inline(always)]
    fn fault(&self) -> Option<Fault> {
        None
    }
    /// Record the step about to run (diagnostic bus only).
    #[inline(always)]
    fn trace_step(&mut self, kind: StepKind, registers: Registers, ime: bool) {
        let _ = (kind, registers, ime);
    }
}

/// A bus the CPU can run on: the core trait and both extension traits.
pub trait CpuHost: RunHooks + DebugHooks {}

impl<B: RunHooks + DebugHooks> CpuHost for B {}

/// Where [`RunHooks::run_straight`] left off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Straight {
    /// No run starts at PC (code outside ROM and work RAM, the boot ROM,
    /// STOP or an undefined opcode): step one instruction normally.
    Step,
    /// The run at PC does not end before the next event: step normally
    /// until the event has been processed.
    Wait,
    /// A slow access (I/O, a bank switch...) happened: the interrupt and
    /// end checks must run before the next instruction.
    Recheck,
}

/// The programmer-visible registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Registers {
    pub a: u8,
    pub f: u8,
    pub b: u8,
    pub c: u8,
    pub d: u8,
    pub e: u8,
    pub h: u8,
    pub l: u8,
    pub sp: u16,
    pub pc: u16,
}

impl Registers {
    /// The documented register values after the DMG (ABC) boot ROM.
    /// What the CGB boot ROM leaves for `rom`: in CGB mode (header byte
    /// 0x143 bit 7) or in DMG compatibility mode, where B is the title's
    /// checksum for a Nintendo cartridge (the boot ROM's palette lookup)
    /// and 0 otherwise (Mooneye misc/boot_regs-cgb: a non-Nintendo ROM).
    pub fn post_boot_cgb(rom: &[u8]) -> Self {
        let (b, d, e, l) = if crate::cgb::cgb_mode_for(rom) {
            (0x00, 0xFF, 0x56, 0x0D)
        } else {
            let b = if crate::cgb::nintendo_licensed(rom) {
                crate::cgb::title_checksum(rom)
            } else {
                0
            };
            (b, 0x00, 0x08, 0x7C)
        };
        Registers {
            a: 0x11,
            f: 0x80,
            b,
            c: 0x00,
            d,
            e,
            h: 0x00,
            l,
            sp: 0xFFFE,
            pc: 0x0100,
        }
    }

    pub fn post_boot_dmg() -> Self {
        Registers {
            a: 0x01,
            f: 0xB0,
            b: 0x00,
            c: 0x13,
            d: 0x00,
            e: 0xD8,
            h: 0x01,
            l: 0x4D,
            sp: 0xFFFE,
            pc: 0x0100,
        }
    }
}

/// Zero flag (bit 7 of F).
pub const FLAG_Z: u8 = 0x80;
/// Subtract flag (bit 6 of F).
pub const FLAG_N: u8 = 0x40;
/// Half-carry flag (bit 5 of F).
pub const FLAG_H: u8 = 0x20;
/// Carry flag (bit 4 of F).
pub const FLAG_C: u8 = 0x10;

/// What the CPU does at the next [`Cpu::step`] besides the plain
/// "check interrupts, fetch, execute" path. Keeping every unusual state in one
/// byte lets the hot path test a single field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Mode {
    /// Normal execution.
    Running = 0,
    /// EI was just executed while IME was 0: IME becomes 1 after the
    /// interrupt check of the next step (so one more instruction always runs).
    EiPending = 1,
    /// HALT was executed with IME=0 and an interrupt pending: the next opcode
    /// fetch does not increment PC (the HALT bug).
    HaltBug = 2,
    /// Halted until `IE & IF != 0`.
    Halted = 3,
    /// STOP mode until a joypad button is pressed.
    Stopped = 4,
    /// An unused opcode hung the CPU; only a reset leaves this state.
    Locked = 5,
}

impl Mode {
    fn from_u8(v: u8) -> Option<Mode> {
        Some(match v {
            0 => Mode::Running,
            1 => Mode::EiPending,
            2 => Mode::HaltBug,
            3 => Mode::Halted,
            4 => Mode::Stopped,
            5 => Mode::Locked,
            _ => return None,
        })
    }
}

/// The SM83 CPU state. Registers are plain bytes; `f` always has its low
/// nibble clear.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cpu {
    a: u8,
    f: u8,
    b: u8,
    c: u8,
    d: u8,
    e: u8,
    h: u8,
    l: u8,
    sp: u16,
    pc: u16,
    ime: bool,
    mode: Mode,
}

/// The registers a compiled block (feature `jit`) runs on.
#[cfg(feature = "jit")]
impl Cpu {
    pub(crate) fn jit_regs(&self) -> crate::jit::Regs {
        crate::jit::Regs {
            r: [
                self.a, self.f, self.b, self.c, self.d, self.e, self.h, self.l,
            ],
            sp: self.sp,
            pc: self.pc,
        }
    }

    pub(crate) fn set_jit_regs(&mut self, r: &crate::jit::Regs) {
        [
            self.a, self.f, self.b, self.c, self.d, self.e, self.h, self.l,
        ] = r.r;
        self.sp = r.sp;
        self.pc = r.pc;
    }
}

impl Cpu {
    /// A running CPU with the given registers, IME=0.
    pub fn new(regs: Registers) -> Cpu {
        let mut cpu = Cpu {
            a: 0,
            f: 0,
            b: 0,
            c: 0,
            d: 0,
            e: 0,
            h: 0,
            l: 0,
            sp: 0,
            pc: 0,
            ime: false,
            mode: Mode::Running,
        };
        cpu.set_registers(regs);
        cpu
    }

    /// The programmer-visible registers (F with its low nibble 0).
    pub fn registers(&self) -> Registers {
        Registers {
            a: self.a,
            f: self.f,
            b: self.b,
            c: self.c,
            d: self.d,
            e: self.e,
            h: self.h,
            l: self.l,
            sp: self.sp,
            pc: self.pc,
        }
    }

    /// Overwrite every register (the low nibble of F is discarded, as on hardware).
    pub fn set_registers(&mut self, r: Registers) {
        self.a = r.a;
        self.f = r.f & 0xF0;
        self.b = r.b;
        self.c = r.c;
        self.d = r.d;
        self.e = r.e;
        self.h = r.h;
        self.l = r.l;
        self.sp = r.sp;
        self.pc = r.pc;
    }

    /// The program counter (address of the next opcode to fetch).
    #[inline]
    pub fn pc(&self) -> u16 {
        self.pc
    }

    /// The interrupt master enable flag.
    #[inline]
    pub fn ime(&self) -> bool {
        self.ime
    }

    /// Set IME directly (does not touch a pending EI).
    pub fn set_ime(&mut self, ime: bool) {
        self.ime = ime;
    }

    /// Set the CPU's mode from another emulator's save state: halted,
    /// stopped, or running with an EI waiting to take effect (all false:
    /// running). For `crate::pyboy::state`.
    pub(crate) fn import_mode(&mut self, halted: bool, stopped: bool, ei_pending: bool) {
        self.mode = if stopped {
            Mode::Stopped
        } else if halted {
            Mode::Halted
        } else if ei_pending && !self.ime {
            Mode::EiPending
        } else {
            Mode::Running
        };
    }

    /// True between an EI executed with IME=0 and the moment IME turns on.
    pub fn ime_pending(&self) -> bool {
        self.mode == Mode::EiPending
    }

    /// True while halted (HALT, or STOP with a button held) waiting for an interrupt.
    #[inline]
    pub fn halted(&self) -> bool {
        self.mode == Mode::Halted
    }

    /// True while in STOP mode waiting for a joypad press.
    #[inline]
    pub fn stopped(&self) -> bool {
        self.mode == Mode::Stopped
    }

    /// True once an unused opcode has hung the CPU.
    #[inline]
    pub fn locked(&self) -> bool {
        self.mode == Mode::Locked
    }

    /// Run one instruction, one interrupt dispatch, or (halted, stopped or
    /// locked with nothing to do) one [`CpuBus::halt_idle`].
    #[inline]
    pub fn step<B: CpuHost>(&mut self, bus: &mut B) {
        self.step_inline(bus);
    }

    /// Step until `done(bus)` is true (checked before every step). The loop
    /// lives inside one function so the big opcode `match` is entered and
    /// left once per batch, not once per instruction.
    ///
    /// `done`, the mode, IME and the pending interrupts can only change in
    /// the bus's slow paths (event processing, I/O accesses) or when the
    /// CPU changes its mode or IME, and both then raise the bus's recheck
    /// flag ([`RunHooks::take_recheck`]): while it is down, the step is a
    /// plain fetch and execute, exactly what [`Cpu::step`] would do then.
    /// So `done` must look only at hardware state that such slow paths
    /// change (like `frame_done`), never at the clock.
    #[inline(never)]
    pub fn run_until<B: CpuHost>(&mut self, bus: B, mut done: impl FnMut(&mut B) -> bool) -> B {
        // The loop works on local copies of the CPU and the bus. Their
        // addresses never leave this function (the out-of-line calls below
        // get a temporary copy, swapped back afterwards), so the optimizer
        // keeps PC, the registers and the bus clock in machine registers
        // instead of storing and reloading them through `self`/`bus` at
        // every M-cycle.
        let mut cpu = *self;
        let mut bus = bus;
        loop {
            if bus.take_recheck() {
                if done(&mut bus) {
                    bus.recheck();
                    break;
                }
                if cpu.mode != Mode::Running || (cpu.ime && bus.pending_interrupts() != 0) {
                    if B::BREAKPOINTS && cpu.executes_at_pc(&mut bus) && bus.breakpoint(cpu.pc) {
                        bus.recheck();
                        break;
                    }
                    (cpu, bus) = Self::outlined_step(cpu, bus);
                    bus.recheck();
                    continue;
                }
                // Straight runs (`cpu/run_table.rs`) are tried only here, where
                // something changed, so that the hot loop below stays as
                // it is. After `Step` or `Wait` the loop steps normally
                // until the next recheck (the next event, I/O access...).
                if B::STRAIGHT_RUNS {
                    let outcome;
                    (cpu, bus, outcome) = B::run_straight(cpu, bus, &mut done);
                    if outcome == Straight::Recheck {
                        continue;
                    }
                }
            }
            // A plain step: the instruction at PC runs.
            if B::BREAKPOINTS && bus.breakpoint(cpu.pc) {
                bus.recheck();
                break;
            }
            if B::DIAGNOSTIC {
                cpu.trace_before_step(&mut bus);
            }
            let op = cpu.fetch8(&mut bus);
            cpu.execute(op, &mut bus);
        }
        *self = cpu;
        bus
    }

    /// Whether the next [`Cpu::step`] executes the instruction at PC (rather
    /// than dispatching an interrupt or idling halted, stopped or locked):
    /// what a PC breakpoint stops before.
    fn executes_at_pc<B: CpuHost>(&self, bus: &mut B) -> bool {
        let dispatch = self.ime && bus.pending_interrupts() != 0;
        match self.mode {
            Mode::Running | Mode::EiPending => !dispatch,
            Mode::HaltBug => true,
            Mode::Halted => bus.pending_interrupts() != 0 && !self.ime,
            Mode::Stopped => bus.joypad_pressed() && !dispatch,
            Mode::Locked => false,
        }
    }

    /// Whether the next step is a plain instruction: the CPU runs and has
    /// no interrupt to take (`pending`: the requested and enabled ones).
    #[inline(always)]
    pub(crate) fn runs_plainly(&self, pending: u8) -> bool {
        self.mode == Mode::Running && !(self.ime && pending != 0)
    }

    /// One step out of line, on values the caller swaps back (see `run_until`).
    #[inline(never)]
    fn outlined_step<B: CpuHost>(mut cpu: Cpu, mut bus: B) -> (Cpu, B) {
        cpu.step_inline(&mut bus);
        (cpu, bus)
    }

    #[inline(always)]
    fn step_inline<B: CpuHost>(&mut self, bus: &mut B) {
        if B::DIAGNOSTIC {
            self.trace_before_step(bus);
        }
        if self.mode != Mode::Running {
            self.step_special(bus);
            return;
        }
        if self.ime && bus.pending_interrupts() != 0 {
            self.dispatch(bus);
            return;
        }
        let op = self.fetch8(bus);
        self.execute(op, bus);
    }

    /// Everything that is not plain execution, kept out of the hot path.
    #[inline(never)]
    fn step_special<B: CpuHost>(&mut self, bus: &mut B) {
        match self.mode {
            Mode::Running => self.step_running(bus),
            Mode::EiPending => {
                self.mode = Mode::Running;
                if self.ime {
                    // IME was forced on from outside meanwhile: nothing to delay.
                    self.step_running(bus);
                    return;
                }
                // The interrupt check of this step saw IME=0; IME turns on now,
                // so the instruction after EI runs before any dispatch.
                self.ime = true;
                let op = self.fetch8(bus);
                if op == 0x76 && bus.pending_interrupts() != 0 {
                    // EI immediately followed by HALT with an interrupt pending:
                    // the HALT does not halt, and the interrupt taken at the next
                    // step returns to the HALT itself, which then runs again.
                    self.pc = self.pc.wrapping_sub(1);
                    return;
                }
                self.execute_outlined(op, bus);
            }
            Mode::HaltBug => {
                self.mode = Mode::Running;
                // HALT bug: the byte after HALT is fetched without
                // incrementing PC, so it is read again as the next opcode.
                let op = bus.read(self.pc);
                self.execute_outlined(op, bus);
            }
            Mode::Halted => {
                if bus.pending_interrupts() == 0 {
                    bus.halt_idle();
                    return;
                }
                self.mode = Mode::Running;
                if self.ime {
                    // Dispatch at once, with no extra halt-exit cycle: Mooneye's
                    // halt_ime1_timing2-GS (verified on DMG) requires the same
                    // timing as waiting for the interrupt with a run of NOPs,
                    // and each halted step above already spent one M-cycle.
                    self.dispatch(bus);
                } else {
                    // IME=0: just resume with the instruction after HALT.
                    let op = self.fetch8(bus);
                    self.execute_outlined(op, bus);
                }
            }
            Mode::Stopped => {
                if bus.joypad_pressed() {
                    self.mode = Mode::Running;
                    self.step_running(bus);
                } else {
                    bus.halt_idle();
                }
            }
            Mode::Locked => bus.halt_idle(),
        }
    }

    /// The normal step body (interrupt check, then one instruction), out of line.
    #[inline(never)]
    fn step_running<B: CpuHost>(&mut self, bus: &mut B) {
        if self.ime && bus.pending_interrupts() != 0 {
            self.dispatch(bus);
            return;
        }
        let op = self.fetch8(bus);
        self.execute(op, bus);
    }

    #[inline(never)]
    fn execute_outlined<B: CpuHost>(&mut self, op: u8, bus: &mut B) {
        self.execute(op, bus);
    }

    /// Interrupt dispatch, 5 M-cycles: three internal cycles (the discarded
    /// opcode fetch, the PC decrement and the SP decrement, which puts SP on
    /// the address bus), push PC high, re-check the pending interrupts (the
    /// push may have overwritten IE at 0xFFFF) and clear the chosen IF bit,
    /// push PC low, clear the bit again as far as the bus says the DMG does
    /// ([`CpuBus::acknowledge_after_low_push`]) and jump. With nothing left
    /// pending the CPU jumps to 0x0000 and no IF bit is cleared.
    #[inline(never)]
    fn dispatch<B: CpuHost>(&mut self, bus: &mut B) {
        self.ime = false;
        bus.idle();
        bus.idle();
        bus.idle_idu(self.sp);
        let pc = self.pc;
        self.sp = self.sp.wrapping_sub(1);
        bus.write(self.sp, (pc >> 8) as u8);
        let pending = bus.pending_at_dispatch() & 0x1F;
        let vector = if pending == 0 {
            0x0000
        } else {
            let bit = pending & pending.wrapping_neg();
            bus.acknowledge_interrupt(bit);
            0x0040 + 8 * bit.trailing_zeros() as u16
        };
        self.sp = self.sp.wrapping_sub(1);
        bus.write(self.sp, pc as u8);
        if pending != 0 {
            bus.acknowledge_after_low_push(pending & pending.wrapping_neg());
        }
        self.pc = vector;
    }

    /// STOP (0x10), following the Pan Docs flowchart for the DMG:
    /// * a button is held: with an interrupt pending STOP is a 1-byte NOP;
    ///   otherwise it is 2 bytes long and enters HALT mode (DIV not reset);
    /// * no button held: DIV is reset and STOP mode is entered; STOP is
    ///   1 byte long if an interrupt is pending, 2 bytes otherwise (the
    ///   second byte is skipped, not executed).
    #[inline(always)]
    fn stop_instr<B: CpuHost>(&mut self, bus: &mut B) {
        bus.recheck();
        if bus.speed_switch() {
            self.pc = self.pc.wrapping_add(1);
            return;
        }
        let pending = bus.pending_interrupts() != 0;
        if bus.joypad_pressed() {
            if !pending {
                self.pc = self.pc.wrapping_add(1);
                self.mode = Mode::Halted;
            }
        } else {
            bus.stop();
            if !pending {
                self.pc = self.pc.wrapping_add(1);
            }
            self.mode = Mode::Stopped;
        }
    }
}

impl Stateful for Cpu {
    fn save(&self, w: &mut StateWriter) {
        w.u8(self.a);
        w.u8(self.f);
        w.u8(self.b);
        w.u8(self.c);
        w.u8(self.d);
        w.u8(self.e);
        w.u8(self.h);
        w.u8(self.l);
        w.u16(self.sp);
        w.u16(self.pc);
        w.bool(self.ime);
        w.u8(self.mode as u8);
    }

    fn load(&mut self, r: &mut StateReader) -> Result<()> {
        let a = r.u8()?;
        let f = r.u8()?;
        if f & 0x0F != 0 {
            return Err(Error::InvalidState(format!(
                "corrupted state: CPU flag register holds {f:#04x}"
            )));
        }
        let b = r.u8()?;
        let c = r.u8()?;
        let d = r.u8()?;
        let e = r.u8()?;
        let h = r.u8()?;
        let l = r.u8()?;
        let sp = r.u16()?;
        let pc = r.u16()?;
        let ime = r.bool()?;
        let mode_byte = r.u8()?;
        let mode = Mode::from_u8(mode_byte).ok_or_else(|| {
            Error::InvalidState(format!("corrupted state: CPU mode holds {mode_byte}"))
        })?;
        *self = Cpu {
            a,
            f,
            b,
            c,
            d,
            e,
            h,
            l,
            sp,
            pc,
            ime,
            mode,
        };
        Ok(())
    }
}
