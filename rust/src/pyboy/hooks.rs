//! PC hooks and PyBoy-aligned frames, for `emurust.PyBoy` (the PyBoy 2.x
//! drop-in API).
//!
//! * **Hooks** (`PyBoy.hook_register`): a set of `(bank, address)` pairs.
//!   While one is set, frames run on [`crate::debug::HookBus`], a wrapper of
//!   the bus that asks before each instruction whether its address is hooked
//!   ([`HookTable`]'s [`Breakpoints`]) and stops the CPU before it. The
//!   wrapper runs no straight runs (every instruction goes through the
//!   check); the ordinary buses have no breakpoint code at all, so a machine
//!   without hooks runs exactly as before. Unlike PyBoy, which writes an
//!   opcode (0xDB) into memory at the hooked address, memory is untouched.
//! * **PyBoy-aligned frames**: PyBoy's `tick()` ends a frame when LY wraps
//!   from 153 to 0 (at the start of line 0's OAM scan), when the LCD is
//!   switched on or off, and every 70,224 T-cycles while it is off; emurust's
//!   own frames end at VBlank start. [`GameBoy::run_pyboy_frame`] runs to
//!   PyBoy's boundary on the fast path: a scheduler deadline
//!   (`Hardware::set_deadline`) at the next line-0 OAM scan, and a check of
//!   LCDC.7 where the CPU loop looks at its stop condition (after every I/O
//!   write).

use std::collections::HashSet;

use crate::bus::Hardware;
use crate::clock::FRAME_CYCLES as DOTS_PER_FRAME;
use crate::debug::Breakpoints;
use crate::gameboy::GameBoy;

/// The bank PyBoy gives the boot ROM's addresses.
pub const BOOT_ROM_BANK: i32 = -1;

/// Hooked `(bank, address)` pairs. Banks as PyBoy numbers them: -1 for the
/// boot ROM, 0 for 0x0000-0x3FFF, the mapped ROM bank for 0x4000-0x7FFF, the
/// mapped RAM bank for 0xA000-0xBFFF, and 0 elsewhere.
#[derive(Clone, Debug, Default)]
pub struct HookTable {
    pairs: HashSet<(i32, u16)>,
    /// One bit per address that has a hook in some bank (a quick filter).
    addrs: Vec<u64>,
    /// The hook the CPU stopped at (set through [`Breakpoints::breaks_at`]).
    pub(crate) hit: Option<(i32, u16)>,
    /// The address the CPU stopped at, passed once when it resumes there.
    resume: Option<u16>,
    /// A PyBoy frame is under way (stopped at a hook), and whether the LCD
    /// was on when it began.
    in_frame: bool,
    lcd_on_at_start: bool,
}

impl HookTable {
    pub fn new() -> HookTable {
        HookTable {
            addrs: vec![0; 1024],
            ..HookTable::default()
        }
    }

    /// Add a hook; false if it was already there.
    pub fn insert(&mut self, bank: i32, addr: u16) -> bool {
        self.addrs[addr as usize >> 6] |= 1 << (addr & 63);
        self.pairs.insert((bank, addr))
    }

    /// Remove a hook; false if it was not there.
    pub fn remove(&mut self, bank: i32, addr: u16) -> bool {
        let removed = self.pairs.remove(&(bank, addr));
        if !self.pairs.iter().any(|&(_, a)| a == addr) {
            self.addrs[addr as usize >> 6] &= !(1 << (addr & 63));
        }
        removed
    }

    pub fn contains(&self, bank: i32, addr: u16) -> bool {
        self.pairs.contains(&(bank, addr))
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Forget a frame stopped at a hook (the machine was replaced, by a
    /// state load): the next frame starts afresh.
    pub fn clear_stop(&mut self) {
        self.hit = None;
        self.resume = None;
        self.in_frame = false;
    }

    #[inline]
    fn may_hook(&self, addr: u16) -> bool {
        self.addrs[addr as usize >> 6] & (1 << (addr & 63)) != 0
    }

    /// Whether the instruction at `pc` is hooked, in the bank mapped there.
    fn check(&mut self, hw: &Hardware, pc: u16) -> bool {
        if let Some(at) = self.resume.take() {
            if at == pc {
                return false; // the hook just reported: run the instruction
            }
        }
        if !self.may_hook(pc) {
            return false;
        }
        let bank = bank_at(hw, pc);
        if self.pairs.contains(&(bank, pc)) {
            self.hit = Some((bank, pc));
            self.resume = Some(pc);
            return true;
        }
        false
    }
}

/// The bank PyBoy reports for code at `pc` (see [`HookTable`]).
pub fn bank_at(hw: &Hardware, pc: u16) -> i32 {
    match pc {
        0x0000..=0x08FF if hw.boot_rom_covers(pc) => BOOT_ROM_BANK,
        0x4000..=0x7FFF => hw.cart.rom_bank_numbers().1 as i32,
        0xA000..=0xBFFF => hw.cart.ram_bank() as i32,
        _ => 0,
    }
}

impl Breakpoints for HookTable {
    #[inline(always)]
    fn breaks_at(&mut self, hw: &Hardware, pc: u16) -> bool {
        (self.resume.is_some() || self.may_hook(pc)) && self.check(hw, pc)
    }

    fn stopped(&self) -> bool {
        self.hit.is_some()
    }

    fn start_run(&mut self) {
        self.hit = None;
    }
}

/// How [`GameBoy::run_pyboy_frame`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PyBoyFrame {
    /// The frame ended where PyBoy's `tick()` ends one.
    Done,
    /// The CPU stopped before the hooked instruction at `(bank, addr)`; call
    /// again to finish the frame.
    Hook(i32, u16),
}

/// PyBoy writes a register 8 T-cycles before the end of the M-cycle in
/// which emurust writes it (its `LDH (a8),A`, `LD (C),A`, `LD (a16),A` and
/// `LD (HL),A` all do), and its blank frames with the LCD off count from its
/// LCDC write.
const PYBOY_WRITE_EARLY: u64 = 8;

/// When the PyBoy frame under way at `hw.now` ends: with the LCD on, at
/// line 0's OAM scan, 4 dots after the line starts (PyBoy's LY 153 -> 0
/// wrap; one M-cycle in normal speed, two in a CGB's double speed, where
/// emurust started from PyBoy's state then ends its frames where PyBoy does
/// most often: tests/test_games_vs_pyboy.py, µCity); with the LCD off, every 70,224 T-cycles from the LCDC
/// write that switched it off as PyBoy times that write (`frame_start` is
/// emurust's time of it; 0 at power-on). The CPU stops at the first
/// instruction boundary from there, as PyBoy's does. (With the LCD off in
/// a CGB's double speed the frames are counted in CPU T-cycles still.)
fn pyboy_frame_end(hw: &Hardware) -> u64 {
    if let Some(line0) = hw.ppu.next_frame_start() {
        // The PPU counts dots; a CGB in double speed runs the CPU's clock
        // twice as fast (`Hardware::cpu_time_of`; the identity otherwise).
        return hw.cpu_time_of(line0 + 4);
    }
    let origin = hw.frame_start.saturating_sub(PYBOY_WRITE_EARLY);
    if origin > hw.now {
        return origin;
    }
    origin + ((hw.now - origin) / DOTS_PER_FRAME + 1) * DOTS_PER_FRAME
}

impl GameBoy {
    /// Run to the end of the current PyBoy frame (see the module docs), or
    /// until an instruction at a hook of `hooks` is about to run. After
    /// [`PyBoyFrame::Hook`] the next call continues the same frame (pass the
    /// same `render`); the frame is drawn only when `render` is set, and the
    /// screen buffers then hold it. Emulation is the same as with
    /// [`GameBoy::run_frame`]: only the stopping points differ. With no
    /// hooks, the plain fast path runs.
    pub fn run_pyboy_frame(&mut self, render: bool, hooks: &mut HookTable) -> PyBoyFrame {
        let (core, ram, screen) = self.parts_mut();
        if !hooks.in_frame {
            core.begin_frame(render);
            core.hw.sync(ram);
            let deadline = pyboy_frame_end(&core.hw);
            core.hw.set_deadline(deadline);
            hooks.lcd_on_at_start = core.hw.ppu.lcd_on();
            hooks.in_frame = true;
        }
        let was_on = hooks.lcd_on_at_start;
        let table = if hooks.is_empty() {
            None
        } else {
            Some(&mut *hooks)
        };
        let stopped = core.run_cpu(ram, table, |hw| {
            hw.deadline_hit || hw.ppu.lcd_on() != was_on
        });
        if stopped {
            if let Some((bank, addr)) = hooks.hit {
                return PyBoyFrame::Hook(bank, addr);
            }
        }
        hooks.in_frame = false;
        hooks.resume = None;
        core.hw.set_deadline(u64::MAX);
        core.end_frame(ram, render);
        if render {
            screen.show(&core.hw.ppu);
        }
        PyBoyFrame::Done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ROM-only cartridge: 0x0100 JP 0x0150; 0x0150 INC B; INC C; JR -4.
    fn loop_rom() -> Vec<u8> {
        let mut rom = vec![0u8; 0x8000];
        rom[0x100..0x103].copy_from_slice(&[0xC3, 0x50, 0x01]);
        rom[0x150..0x154].copy_from_slice(&[0x04, 0x0C, 0x18, 0xFC]);
        rom
    }

    #[test]
    fn a_pyboy_frame_ends_at_line_0_oam_scan() {
        let mut gb = GameBoy::new(&loop_rom(), None).unwrap();
        let mut hooks = HookTable::new();
        let mut ends = Vec::new();
        for _ in 0..4 {
            assert_eq!(gb.run_pyboy_frame(false, &mut hooks), PyBoyFrame::Done);
            // LY 0 and STAT mode 2: PyBoy's LY 153 -> 0 wrap has just happened.
            assert_eq!(gb.peek(0xFF44), 0);
            assert_eq!(gb.peek(0xFF41) & 3, 2);
            ends.push(gb.cycles());
        }
        for w in ends.windows(2) {
            // One frame apart, give or take the instruction the deadline falls in.
            assert!((w[1] as i64 - w[0] as i64 - DOTS_PER_FRAME as i64).abs() <= 12);
        }
        assert_eq!(gb.frame_count(), 4);
    }

    #[test]
    fn hooks_stop_before_the_instruction_and_change_nothing() {
        let mut plain = GameBoy::new(&loop_rom(), None).unwrap();
        let mut none = HookTable::new();
        let mut hooked = plain.clone();
        let mut hooks = HookTable::new();
        assert!(hooks.insert(0, 0x0151));
        assert!(!hooks.insert(0, 0x0151));
        let mut stops = 0u32;
        for _ in 0..3 {
            assert_eq!(plain.run_pyboy_frame(false, &mut none), PyBoyFrame::Done);
            loop {
                match hooked.run_pyboy_frame(false, &mut hooks) {
                    PyBoyFrame::Done => break,
                    PyBoyFrame::Hook(bank, addr) => {
                        assert_eq!((bank, addr), (0, 0x0151));
                        // Stopped before INC C: INC B has run once more than INC C
                        // (from the post-boot B = 0x00, C = 0x13).
                        let r = hooked.registers();
                        assert_eq!(r.pc, 0x0151);
                        assert_eq!(
                            r.b.wrapping_sub(r.c),
                            0u8.wrapping_sub(0x13).wrapping_add(1)
                        );
                        stops += 1;
                    }
                }
            }
            assert_eq!(hooked.registers(), plain.registers());
            assert_eq!(hooked.cycles(), plain.cycles());
        }
        // One stop per loop turn (INC B, INC C, JR: 20 T-cycles) after the JP (16).
        let turns = (plain.cycles() - 16).div_ceil(20);
        assert!(
            stops as u64 + 1 >= turns && stops as u64 <= turns,
            "{stops} vs {turns}"
        );
        // A hook in another bank of the same address does not fire.
        let mut other = HookTable::new();
        other.insert(1, 0x0151);
        assert_eq!(hooked.run_pyboy_frame(false, &mut other), PyBoyFrame::Done);
        assert!(other.remove(1, 0x0151));
        assert!(!other.remove(1, 0x0151));
    }
}
