//! Straight-line runs of ROM code, found once per ROM.
//!
//! The fast bus (`Bus<false>`) checks after every M-cycle whether an event
//! (timer overflow, a PPU transition that can interrupt, DMA, serial) is
//! due. Most of those checks find nothing: events are hundreds of M-cycles
//! apart while an instruction takes one to six. A *run* is a sequence of
//! instructions that starts at some ROM address and ends with the first
//! jump, call, restart, return, HALT or EI (included; HALT and EI change
//! the CPU's mode) or before STOP or an undefined opcode. Every instruction
//! but the last never branches, so the run's length in M-cycles is known
//! in advance up to its last instruction, which takes at most six. When
//! the clock plus that length is still before the next event, and the ROM
//! code cannot change under the run (ROM is read-only, and a bank switch
//! is a slow write that ends the run after its instruction), the
//! interpreter runs the whole run with no per-M-cycle event check and reads
//! its opcodes and immediates straight from the mapped bank
//! (`Bus::straight_runs` in `bus/run_engine.rs`; code in work RAM gets a variant with
//! one event check per instruction).
//!
//! [`RunTable`] holds one byte per ROM byte: the M-cycles of the run
//! starting there without its last instruction, or [`NO_RUN`] where no run
//! starts (STOP, an undefined opcode, or an instruction that crosses the
//! end of its 16 KiB bank). It is computed once per ROM and shared by all
//! machines that run it, like the ROM bytes.
//!
//! The table also marks where a [`PollLoop`] starts: a three-instruction
//! loop that polls STAT or LY. When a jump lands there, the fast bus first
//! skips the turns that cannot see a new value (`Bus::skip_poll_turns`),
//! then runs the loop as a run of [`POLL_CYCLES`] plus its jump.

use std::sync::{Arc, Mutex, Weak};

use super::{instruction_length, Cpu};

/// Longest run, in M-cycles, its last instruction left out. Longer
/// straight-line code is cut into runs of at most this length; a shorter
/// cap fits more runs before the next event.
pub const MAX_RUN_CYCLES: u32 = 96;

/// Bytes per ROM bank (the unit a run stays within).
const BANK: usize = 0x4000;

/// Longest chained run (see [`RunTable::chain`]), in M-cycles, its last
/// instruction left out. A run that does not fit before the next event
/// runs up to it (`Bus::rom_runs`). The calls such a run holds (6 M-cycles
/// each) bound `Hardware::rets`, whose 64 bytes per machine keep
/// `VecGameBoy`'s state per env under 64 KiB.
pub const MAX_CHAIN_CYCLES: u32 = 186;

/// Passes of [`RunTable::chain`] (each carries chains on through one more
/// jump, at least).
const CHAIN_PASSES: usize = 8;

const _: () = assert!(MAX_CHAIN_CYCLES < IDLE as u32);

/// M-cycles of `CALL nn` and of `RET`.
const CALL_CYCLES: u32 = 6;
const RET_CYCLES: u32 = 4;

/// What a run does with an opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunRole {
    /// Runs inside a run.
    Plain,
    /// Ends a run (included in it): jumps, calls, restarts, returns, and
    /// HALT and EI, which change the CPU's mode.
    Last,
    /// Never in a run: STOP and the undefined opcodes. The normal
    /// interpreter loop runs them.
    Excluded,
}

/// The role of unprefixed opcode `op` in a run.
pub fn run_role(op: u8) -> RunRole {
    match op {
        // STOP and the undefined opcodes (which lock the CPU).
        0x10 | 0xD3 | 0xDB | 0xDD | 0xE3 | 0xE4 | 0xEB | 0xEC | 0xED | 0xF4 | 0xFC | 0xFD => {
            RunRole::Excluded
        }
        // RET cc, RET, RETI; HALT and EI, which change the CPU's mode.
        0xC0 | 0xC8 | 0xC9 | 0xD0 | 0xD8 | 0xD9 | 0x76 | 0xFB => RunRole::Last,
        // JR, JR cc, JP, JP cc, JP HL, CALL, CALL cc, RST.
        0x18 | 0x20 | 0x28 | 0x30 | 0x38 => RunRole::Last,
        0xC2 | 0xC3 | 0xCA | 0xD2 | 0xDA | 0xE9 => RunRole::Last,
        0xC4 | 0xCC | 0xCD | 0xD4 | 0xDC => RunRole::Last,
        0xC7 | 0xCF | 0xD7 | 0xDF | 0xE7 | 0xEF | 0xF7 | 0xFF => RunRole::Last,
        _ => RunRole::Plain,
    }
}

/// The most M-cycles the instruction `op` (followed by `next`, which
/// matters only after the 0xCB prefix) can take, the opcode fetch included:
/// a conditional jump, call or return counts as taken. `None` for the
/// opcodes a run leaves out.
pub fn max_cycles(op: u8, next: u8) -> Option<u8> {
    if run_role(op) == RunRole::Excluded {
        return None;
    }
    let hl_operand = |r: u8| r & 7 == 6;
    Some(match op {
        0xCB => {
            if !hl_operand(next) {
                2
            } else if (0x40..0x80).contains(&next) {
                // BIT n,(HL): no write-back.
                3
            } else {
                4
            }
        }
        // HALT (its halted time is not part of the run).
        0x76 => 1,
        // LD r,(HL) / LD (HL),r; ALU A,(HL).
        0x40..=0x7F if hl_operand(op) || hl_operand(op >> 3) => 2,
        0x80..=0xBF if hl_operand(op) => 2,
        // LD r,r'; ALU A,r.
        0x40..=0xBF => 1,
        0x08 => 5,
        0xC0 | 0xC8 | 0xD0 | 0xD8 => 5,
        0xC9 | 0xD9 => 4,
        0xC4 | 0xCC | 0xCD | 0xD4 | 0xDC => 6,
        0xC2 | 0xC3 | 0xCA | 0xD2 | 0xDA => 4,
        0xC5 | 0xD5 | 0xE5 | 0xF5 => 4,
        0xC7 | 0xCF | 0xD7 | 0xDF | 0xE7 | 0xEF | 0xF7 | 0xFF => 4,
        0xE8 | 0xEA | 0xFA => 4,
        0x01 | 0x11 | 0x21 | 0x31 => 3,
        0x18 | 0x20 | 0x28 | 0x30 | 0x38 => 3,
        0x34..=0x36 => 3,
        0xC1 | 0xD1 | 0xE1 | 0xF1 => 3,
        0xE0 | 0xF0 | 0xF8 => 3,
        // LD (rr),A / LD A,(rr), INC/DEC rr, ADD HL,rr, LD r,n, ALU A,n,
        // LD (C),A / LD A,(C), LD SP,HL.
        0x02 | 0x12 | 0x22 | 0x32 | 0x0A | 0x1A | 0x2A | 0x3A => 2,
        0x03 | 0x13 | 0x23 | 0x33 | 0x0B | 0x1B | 0x2B | 0x3B => 2,
        0x09 | 0x19 | 0x29 | 0x39 => 2,
        0x06 | 0x0E | 0x16 | 0x1E | 0x26 | 0x2E | 0x3E => 2,
        0xC6 | 0xCE | 0xD6 | 0xDE | 0xE6 | 0xEE | 0xF6 | 0xFE => 2,
        0xE2 | 0xF2 | 0xF9 => 2,
        _ => 1,
    })
}

/// Per ROM offset: the M-cycles of the run starting there, its last
/// instruction left out (those instructions never branch, so this is
/// exact), or [`NO_RUN`].
///
/// A second table, `chained`, holds the same runs carried on through
/// unconditional jumps and calls to a fixed address in the same 16 KiB bank
/// (`JR e`, `JP nn`, `CALL nn`), through conditional ones as not taken and
/// through returns to their run's call (see [`RunTable::chain`]), so that
/// one admission (the event check before a run) covers what took several.
/// A chained run's entry is a lower bound of the M-cycles its predicted
/// path takes before its last instruction: every instruction that starts
/// by then lies on that path, in the bank, and a branch that leaves the
/// path ends the run after it. Both tables are shared like the ROM.
#[derive(Debug)]
pub struct RunTable {
    entries: Box<[u8]>,
    chained: Box<[u8]>,
}

/// A [`RunTable`] entry where no run starts.
const NO_RUN: u8 = 0xFF;

/// A [`RunTable`] entry where a [`PollLoop`] starts (its run: the loop's
/// three instructions, [`POLL_CYCLES`] M-cycles before the jump back).
const POLL: u8 = 0xFE;

/// A [`RunTable`] entry where a jump to itself may start (see
/// [`IdleLoop`]); the lowest special entry.
const IDLE: u8 = 0xFD;

/// A jump to itself: `JR -2`, or `JP nn` whose target is its own address
/// (checked against PC when it runs: a ROM offset can be mapped at more
/// than one address). Nothing but an interrupt can leave it, and it touches
/// nothing but PC (which stays put): turns that end before the next event,
/// the only thing that can raise an interrupt, are skipped at once
/// (`Bus::skip_idle_turns`). Games that do their work in interrupt handlers
/// wait in one; cpu_instrs ends in one with interrupts off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdleLoop {
    /// M-cycles of one turn: 3 (JR) or 4 (JP).
    pub turn_cycles: u64,
}

impl IdleLoop {
    /// The jump to itself made of the bytes `b` (up to three) at address
    /// `pc`, if they are one.
    pub fn decode(b: &[u8], pc: u16) -> Option<IdleLoop> {
        match *b {
            [0x18, 0xFE, ..] => Some(IdleLoop { turn_cycles: 3 }),
            [0xC3, lo, hi, ..] if u16::from_le_bytes([lo, hi]) == pc => {
                Some(IdleLoop { turn_cycles: 4 })
            }
            _ => None,
        }
    }
}

/// M-cycles of a poll loop's instructions before its jump back:
/// `LDH A,(n)` (3) and the test (2).
pub const POLL_CYCLES: u32 = 5;

/// M-cycles of one turn of a poll loop, the jump back taken.
pub const POLL_TURN_CYCLES: u64 = 8;

/// A loop that polls a PPU register until its value changes:
///
/// ```text
/// loop: LDH A,(n)      ; n = 0x41 (STAT) or 0x44 (LY)
///       AND d8 | CP d8 | BIT b,A
///       JR NZ/Z/NC/C,loop
/// ```
///
/// (the classic wait for VRAM access, or for a line). One turn writes
/// nothing but A and F, and reads a value that changes only at a PPU
/// transition, so turns before the next transition and the next event all
/// read the same value and leave the same A and F: `Bus::skip_poll_turns`
/// skips them at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PollLoop {
    /// The register polled (0xFF41 or 0xFF44).
    pub register: u16,
    /// The test: 0xE6 (AND d8), 0xFE (CP d8) or 0xCB (BIT b,A).
    pub test: u8,
    /// Its operand: the immediate, or the BIT opcode after 0xCB.
    pub operand: u8,
    /// The jump back: 0x20 (JR NZ), 0x28 (JR Z), 0x30 (JR NC) or 0x38 (JR C).
    pub jump: u8,
}

impl PollLoop {
    /// The poll loop made of the six bytes `b`, if they are one.
    pub fn decode(b: &[u8]) -> Option<PollLoop> {
        let &[0xF0, n @ (0x41 | 0x44), test, operand, jump @ (0x20 | 0x28 | 0x30 | 0x38), 0xFA] = b
        else {
            return None;
        };
        let bit_a = test == 0xCB && operand & 0xC7 == 0x47;
        if !(test == 0xE6 || test == 0xFE || bit_a) {
            return None;
        }
        Some(PollLoop {
            register: 0xFF00 | n as u16,
            test,
            operand,
            jump,
        })
    }

    /// One turn of the loop on `cpu`, its read returning `v`: sets A and F
    /// as the turn does (PC aside) and answers whether it jumps back.
    #[inline]
    pub(crate) fn turn(&self, cpu: &mut Cpu, v: u8) -> bool {
        cpu.a = v;
        match self.test {
            0xE6 => cpu.alu_and(self.operand),
            0xFE => cpu.alu_cp(self.operand),
            _ => cpu.bit((self.operand >> 3) & 7, v),
        }
        match self.jump {
            0x20 => !cpu.flag_z(),
            0x28 => cpu.flag_z(),
            0x30 => !cpu.flag_c(),
            _ => cpu.flag_c(),
        }
    }
}

/// The countdown a game's OAM DMA routine waits in, in HRAM (the only
/// memory the CPU can read while the DMA runs):
///
/// ```text
///       LD A,n         ; optional
/// loop: DEC A
///       JR NZ,loop
/// ```
///
/// A turn writes nothing but A and F and reads nothing but its code, so the
/// turns before the next event can be skipped at once (`Bus::skip_countdown`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Countdown {
    /// `n` of the `LD A,n` before the loop, where PC is on it.
    pub load: Option<u8>,
}

impl Countdown {
    /// The countdown starting with the bytes `b` (from PC on), if they are one.
    pub fn decode(b: &[u8]) -> Option<Countdown> {
        match b {
            [0x3E, n, 0x3D, 0x20, 0xFD, ..] => Some(Countdown { load: Some(*n) }),
            [0x3D, 0x20, 0xFD, ..] => Some(Countdown { load: None }),
            _ => None,
        }
    }

    /// Run on `cpu` (PC on the countdown) the `LD A,n`, if any, and as many
    /// turns that jump back as fit in `max_cycles` M-cycles, all or nothing
    /// of the load with at least one turn; A, F and PC as they leave them.
    /// Returns the M-cycles run (0: nothing).
    pub(crate) fn skip(&self, cpu: &mut Cpu, max_cycles: u64) -> u64 {
        let load_cycles = if self.load.is_some() { 2 } else { 0 };
        let a = self.load.unwrap_or(cpu.a);
        // Turns that jump back: all but the one that reaches zero.
        let back = a.wrapping_sub(1) as u64;
        let turns = back.min(max_cycles.saturating_sub(load_cycles) / COUNTDOWN_TURN_CYCLES);
        if turns == 0 {
            return 0;
        }
        if self.load.is_some() {
            cpu.pc = cpu.pc.wrapping_add(2);
        }
        // The last of them leaves A and F as its DEC A does.
        cpu.a = cpu.dec8(a.wrapping_sub(turns as u8 - 1));
        load_cycles + COUNTDOWN_TURN_CYCLES * turns
    }
}

/// M-cycles of one turn of a [`Countdown`], the jump back taken.
pub const COUNTDOWN_TURN_CYCLES: u64 = 4;

impl RunTable {
    /// Find the run at every offset of `rom` (a whole number of banks).
    pub fn new(rom: &[u8]) -> RunTable {
        let mut entries = vec![NO_RUN; rom.len()].into_boxed_slice();
        for bank in (0..rom.len()).step_by(BANK) {
            let end = (bank + BANK).min(rom.len());
            // Backwards, so that the run after each instruction is known.
            for off in (bank..end).rev() {
                entries[off] = Self::entry(rom, &entries, off, end);
            }
            // After the pass: code falling into a poll loop keeps its run
            // through the loop's first turn (which mostly ends the loop: a
            // mark there cost more than it saved on 2048); the jump back
            // lands on the mark.
            for off in bank..end.saturating_sub(5) {
                if PollLoop::decode(&rom[off..off + 6]).is_some() {
                    entries[off] = POLL;
                }
            }
            // Jumps to themselves, at the address this bank is usually
            // mapped at (the skip checks the real PC).
            for off in bank..end.saturating_sub(1) {
                let usual = if off < BANK { off } else { BANK | (off % BANK) };
                let b = &rom[off..(off + 3).min(end)];
                if IdleLoop::decode(b, usual as u16).is_some() {
                    entries[off] = IDLE;
                }
            }
        }
        let chained = Self::chain(rom, &entries);
        RunTable { entries, chained }
    }

    /// Passes over `entries` that carry runs on through jumps, calls and
    /// returns whose outcome is fixed or checked when they run, in the bank
    /// of the jump (as the bank is usually mapped: offsets below 0x4000 at
    /// 0x0000-0x3FFF, the others at 0x4000-0x7FFF; `Bus::rom_runs` takes no
    /// run where the mapping is otherwise):
    ///
    /// * `JR e`, `JP nn` and `CALL nn` to a fixed address in the bank;
    /// * conditional jumps, calls and returns, as not taken (a taken one
    ///   ends the run after it: `RunHooks::branch_taken`);
    /// * `RET` back to the instruction after a `CALL nn` of the same run
    ///   (the callee's run ends with a `RET` that returns from it, none of
    ///   its own calls outstanding), as checked when it runs against the
    ///   address that `CALL` pushed (`RunHooks::returned`; any other
    ///   address ends the run after the `RET`).
    ///
    /// An entry only grows from one pass to the next, each value the
    /// M-cycles of a prefix of the code's one predicted path, all its
    /// instructions but the last, or [`MAX_CHAIN_CYCLES`] where the path is
    /// longer (the run then stops after the instruction running at the
    /// cap); a poll loop, an idle loop or a missing run ends the chain.
    /// Loops chain around up to the cap.
    fn chain(rom: &[u8], entries: &[u8]) -> Box<[u8]> {
        let mut chained = entries.to_vec().into_boxed_slice();
        // Per offset: whether its chained run ends with a `RET` that
        // returns from the code it starts in (no call of the run
        // outstanding).
        let mut returns = vec![false; rom.len()];
        for bank in (0..rom.len()).step_by(BANK) {
            let end = (bank + BANK).min(rom.len());
            for _pass in 0..CHAIN_PASSES {
                let mut changed = false;
                for off in (bank..end).rev() {
                    if chained[off] >= IDLE {
                        continue;
                    }
                    let op = rom[off];
                    let len = instruction_length(op) as usize;
                    if off + len > end {
                        continue;
                    }
                    // The run after `next` (when it starts one), `cycles`
                    // M-cycles later.
                    let then = |next: usize, cycles: u32| {
                        (next < end && chained[next] < IDLE)
                            .then(|| (cycles + chained[next] as u32, returns[next]))
                    };
                    let found = match (run_role(op), op) {
                        (RunRole::Plain, _) => {
                            let next_byte = rom.get(off + 1).copied().unwrap_or(0);
                            then(off + len, max_cycles(op, next_byte).unwrap_or(0) as u32)
                        }
                        (_, 0xC9) => Some((0, true)),
                        (_, 0x18 | 0xC3) => Self::jump_target(rom, off, bank)
                            .and_then(|t| then(t, max_cycles(op, 0).unwrap_or(0) as u32)),
                        (_, 0xCD) => Self::jump_target(rom, off, bank).and_then(|t| {
                            // Through the callee and its return (RET: 4
                            // M-cycles), or into it.
                            let into = then(t, CALL_CYCLES);
                            match into {
                                Some((c, true)) => then(off + len, c + RET_CYCLES).or(into),
                                _ => into.map(|(c, _)| (c, false)),
                            }
                        }),
                        // Not taken: JR cc, JP cc, CALL cc, RET cc.
                        (_, 0x20 | 0x28 | 0x30 | 0x38) => then(off + len, 2),
                        (_, 0xC2 | 0xCA | 0xD2 | 0xDA | 0xC4 | 0xCC | 0xD4 | 0xDC) => {
                            then(off + len, 3)
                        }
                        (_, 0xC0 | 0xC8 | 0xD0 | 0xD8) => then(off + len, 2),
                        _ => None,
                    };
                    let Some((mut cycles, mut ret)) = found else {
                        continue;
                    };
                    if cycles > MAX_CHAIN_CYCLES {
                        // Cut at the cap: the run stops after the
                        // instruction running at it, somewhere on the path.
                        (cycles, ret) = (MAX_CHAIN_CYCLES, false);
                    }
                    let now = chained[off] as u32;
                    if cycles > now || (cycles == now && ret && !returns[off]) {
                        chained[off] = cycles as u8;
                        returns[off] = ret;
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
        }
        chained
    }

    /// The ROM offset an unconditional `JR e`, `JP nn` or `CALL nn` at
    /// offset `off` (in the bank starting at `bank`) goes to, if it stays in
    /// that bank as usually mapped.
    fn jump_target(rom: &[u8], off: usize, bank: usize) -> Option<usize> {
        if rom[off] == 0x18 {
            let t = off as isize + 2 + rom[off + 1] as i8 as isize;
            return (t >= bank as isize && (t as usize) < bank + BANK).then_some(t as usize);
        }
        let to = u16::from_le_bytes([rom[off + 1], rom[off + 2]]) as usize;
        match (bank, to) {
            (0, 0..=0x3FFF) => Some(to),
            (1.., 0x4000..=0x7FFF) => Some(bank + (to & 0x3FFF)),
            _ => None,
        }
    }

    fn entry(rom: &[u8], entries: &[u8], off: usize, end: usize) -> u8 {
        let op = rom[off];
        let len = instruction_length(op) as usize;
        if off + len > end {
            return NO_RUN;
        }
        let next_byte = rom.get(off + 1).copied().unwrap_or(0);
        let Some(cycles) = max_cycles(op, next_byte) else {
            return NO_RUN;
        };
        if run_role(op) == RunRole::Plain && off + len < end {
            let after = entries[off + len];
            if after < IDLE && (cycles + after) as u32 <= MAX_RUN_CYCLES {
                // This instruction, then the run after it.
                return cycles + after;
            }
        }
        // The run's only instruction.
        0
    }

    /// The run starting at ROM byte offset `off`: the M-cycles of all its
    /// instructions but the last; `None` where no run starts.
    #[inline(always)]
    pub fn at(&self, off: usize) -> Option<u32> {
        match self.entries.get(off) {
            Some(&e) if e < IDLE => Some(e as u32),
            _ => None,
        }
    }

    /// The chained run starting at ROM byte offset `off` (see
    /// [`RunTable`]): `at` carried on through fixed jumps and calls in its
    /// bank; `None` exactly where `at` answers `None`.
    #[inline(always)]
    pub fn chained_at(&self, off: usize) -> Option<u32> {
        match self.chained.get(off) {
            Some(&e) if e < IDLE => Some(e as u32),
            _ => None,
        }
    }

    /// Whether a jump to itself may start at ROM byte offset `off` (where
    /// `at` answers `None`; [`IdleLoop::decode`] with PC decides).
    #[inline]
    pub fn idle_at(&self, off: usize) -> bool {
        self.entries.get(off) == Some(&IDLE)
    }

    /// Whether a [`PollLoop`] starts at ROM byte offset `off` (where `at`
    /// answers `None`).
    #[inline]
    pub fn poll_at(&self, off: usize) -> bool {
        self.entries.get(off) == Some(&POLL)
    }
}

/// What `Bus::straight_runs` needs of a ROM: its bytes and its runs, shared
/// by every machine running it.
#[derive(Debug)]
pub struct Code {
    pub rom: Arc<[u8]>,
    pub runs: RunTable,
    /// The ROM's compiled blocks (feature `jit`; `None` where the host has
    /// no Cranelift backend or `EMURUST_JIT=0`).
    #[cfg(feature = "jit")]
    pub jit: Option<crate::jit::JitCode>,
    /// The process that made it (a forked process makes its own for new
    /// machines: `jit::JitCode` compiles only in its own process).
    pid: u32,
}

/// Every live [`Code`], so that machines built separately from the same ROM
/// bytes (one `GameBoy` each) share one copy of the bytes and the runs.
static LIVE: Mutex<Vec<Weak<Code>>> = Mutex::new(Vec::new());

impl Code {
    /// The code of `rom` (a whole number of banks): a live one with the same
    /// bytes if there is one, else a new one.
    pub fn shared(rom: &Arc<[u8]>) -> Arc<Code> {
        if let Some(code) = Self::find(rom) {
            return code;
        }
        // Found outside the lock: two threads may both build one, which
        // only costs the time.
        let code = Arc::new_cyclic(|_me| Code {
            rom: rom.clone(),
            runs: RunTable::new(rom),
            #[cfg(feature = "jit")]
            jit: crate::jit::JitCode::new(rom.len()).inspect(|j| j.set_source(_me.clone())),
            pid: std::process::id(),
        });
        let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
        live.retain(|w| w.strong_count() > 0);
        live.push(Arc::downgrade(&code));
        code
    }

    fn find(rom: &Arc<[u8]>) -> Option<Arc<Code>> {
        let live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
        live.iter().filter_map(Weak::upgrade).find(|c| {
            c.pid == std::process::id() && (Arc::ptr_eq(&c.rom, rom) || c.rom[..] == rom[..])
        })
    }

    /// Whether the run engine would run code at `pc` of the bank that
    /// starts at ROM offset `bank_start` (mapped at its usual address): where
    /// a compiled region may go on without the engine (`jit::compile`).
    #[cfg(feature = "jit")]
    #[inline]
    pub fn enterable(&self, bank_start: usize, pc: u16) -> bool {
        self.runs
            .chained_at(bank_start + (pc & 0x3FFF) as usize)
            .is_some()
    }

    /// The 16 KiB bank holding ROM offset `off`.
    #[inline(always)]
    pub fn bank(&self, off: usize) -> Option<&[u8; BANK]> {
        let start = off & !(BANK - 1);
        self.rom.get(start..start + BANK)?.try_into().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_is_shared_between_copies_of_the_same_rom() {
        let bytes: Vec<u8> = (0..0x8000u32).map(|i| (i * 7 + 3) as u8).collect();
        let a = Code::shared(&Arc::from(&bytes[..]));
        let b = Code::shared(&Arc::from(&bytes[..]));
        assert!(Arc::ptr_eq(&a, &b));
        let mut other = bytes.clone();
        other[0x1234] ^= 1;
        let c = Code::shared(&Arc::from(&other[..]));
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(c.rom[0x1234], other[0x1234]);
        // Once every user is gone, the next one builds it anew.
        let weak = Arc::downgrade(&a);
        drop((a, b));
        assert!(weak.upgrade().is_none());
        let d = Code::shared(&Arc::from(&bytes[..]));
        assert_eq!(d.rom[..], bytes[..]);
    }
}
