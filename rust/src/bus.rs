//! The machine around the CPU: memory map, interrupt registers, OAM DMA and
//! the event scheduler that keeps every component lazily up to date.
//!
//! Time is counted in T-cycles (`now`). A CPU memory access is one M-cycle:
//! the bus first advances time by 4 ("tick"), processing any component event
//! that became due, then performs the access, bringing the touched component
//! up to date first. In the fast path a tick is one add and one compare
//! (inside a straight run of code that ends before the next event, see
//! `cpu/run_table.rs`, just the add); the reference path (`Hardware::reference`)
//! instead steps every component on every M-cycle, and tests assert both
//! paths give identical results.
//!
//! RAM that a batched engine wants to expose to NumPy (WRAM + HRAM) is not
//! part of [`Hardware`]: it is passed in as a separate `&mut Ram` so many
//! instances can keep theirs in one contiguous buffer.
//!
//! This file holds [`Hardware`] itself: its state, the memory map (CPU
//! reads and writes, I/O registers, the OAM bug's trigger, debugger
//! peeks and pokes) and save states. The rest, one file per job:
//!
//! - `scheduler.rs`: the event scheduler (next event, `process_events`,
//!   catch-up, `tick`, `halt_idle`, deadlines, frame ends, the reference
//!   switch);
//! - `dma.rs`: OAM DMA (the copy, OAM blocking, bus conflicts);
//! - `interrupts.rs`: IE & IF, and the requests latched late in an M-cycle
//!   (PPU, timer, LYC write);
//! - `cpu_bus.rs`: [`Bus`], the CPU's view of the machine (`CpuBus`);
//! - `run_engine.rs`: the run engine on that bus: the straight runs and loop
//!   skips that `cpu/run_table.rs` finds in the code.

use crate::apu::Apu;
use crate::cartridge::{fnv1a64, Cartridge};
use crate::cgb::{CgbHw, WRAM_BANK};
use crate::error::{Error, Result};
use crate::joypad::Joypad;
use crate::oam_bug::{self, Access};
use crate::ppu::{Ppu, DOTS_PER_FRAME, IRQ_STAT};
use crate::serial::Serial;
use crate::state::{StateReader, StateWriter, Stateful};
use crate::timer::Timer;
use std::sync::Arc;

pub const WRAM_SIZE: usize = 0x2000;
pub const HRAM_SIZE: usize = 0x7F;
/// One instance's WRAM (0xC000-0xDFFF) followed by HRAM (0xFF80-0xFFFE).
pub const RAM_SIZE: usize = WRAM_SIZE + HRAM_SIZE;
pub type Ram = [u8; RAM_SIZE];

const HRAM_BASE: usize = WRAM_SIZE;
/// The DMG's system counter when the boot ROM hands over at 0x0100.
pub const POST_BOOT_COUNTER: u16 = 0xABC8;

mod cgb;
mod cpu_bus;
mod dma;
mod interrupts;
#[cfg(feature = "jit")]
mod jit;
mod run_engine;
mod scheduler;

pub use cpu_bus::{Bus, MachineBus, BANKED, DMA_BUS, NORMAL, ROM_RUN, WRAM_RUN};
use dma::{Dma, DMA_IDLE};

#[derive(Clone)]
pub struct Hardware {
    /// Emulated time in T-cycles since power-on.
    pub now: u64,
    /// Earliest of the per-component event times below.
    next_event: u64,
    ev_timer: u64,
    ev_ppu: u64,
    ev_serial: u64,
    ev_dma: u64,
    /// Step every component every M-cycle (slow reference path): the one
    /// reference switch, written only by [`Hardware::set_reference`].
    reference: bool,
    pub cart: Cartridge,
    pub timer: Timer,
    pub ppu: Ppu,
    pub apu: Apu,
    pub serial: Serial,
    pub joypad: Joypad,
    dma: Dma,
    dma_reg: u8,
    pub intf: u8,
    /// IF bits the PPU raised in the M-cycle ending at `if_late_at`
    /// (transient timing detail, not saved), and the part of them a halted
    /// CPU only latches one M-cycle later.
    if_late: u8,
    if_late_at: u64,
    halt_late: u8,
    pub ie: u8,
    /// Shared by the machines of one engine and their snapshots (a restore
    /// copies a pointer, not 256 bytes).
    boot_rom: Option<Arc<BootRom>>,
    /// Where the fetch window must not be used for the boot ROM: 0 when no
    /// boot ROM is mapped, else the end of the region it covers (0x100 for
    /// a DMG's, 0x900 for a CGB's, whose bytes 0x100-0x1FF are the
    /// cartridge's). Unmapped for good by a write to FF50.
    boot_end: u16,
    /// Set when a frame ends (VBlank start, or 70,224 T-cycles with the LCD off).
    pub frame_done: bool,
    /// Set with `frame_done` and when an OAM DMA starts: the fast path's
    /// run loop leaves its bus then (`GameBoy::run_fast`), at the cost of
    /// the one flag it looked at before.
    pub(crate) run_break: bool,
    /// When the current frame began (used while the LCD is off).
    pub frame_start: u64,
    /// A caller's stopping point in T-cycles (`u64::MAX`: none), scheduled
    /// like a component event; when it is reached `deadline_hit` is set and
    /// the deadline cleared. Used to end frames where PyBoy ends them
    /// (`crate::pyboy::hooks`). Transient: not part of save states.
    deadline: u64,
    pub deadline_hit: bool,
    /// The return addresses of the `CALL nn`s of a straight ROM run, a
    /// ring indexed by `Bus::depth` (mod its length), so that a `RET` the
    /// run was chained through (`RunTable::chain`) is checked against the
    /// `CALL` it returns from. A run holds fewer calls than the ring, so the
    /// entry a chained `RET` reads is always one its own run wrote. Here
    /// rather than in the bus, whose size its moves by value are sensitive
    /// to. Transient: not part of save states.
    pub(crate) rets: [u16; RET_RING],
    /// Feature `jit`: this machine runs no compiled blocks (the fast
    /// interpreter alone; `GameBoy::set_jit`). Transient.
    #[cfg(feature = "jit")]
    pub(crate) no_jit: bool,
    /// The CGB's own state (`crate::cgb`); `None` on a DMG. Its registers
    /// are reached through the I/O arms a DMG reads as 0xFF (`bus/cgb.rs`).
    pub cgb: Option<Box<CgbHw>>,
    /// The CGB's work RAM bank mapped at 0xD000 when it is one of banks
    /// 2-7, which live in `CgbHw::wram`. 0 when the bank is 1 (and on a
    /// DMG): then 0xD000-0xDFFF is the RAM block's, where bank 1 always
    /// lives, so a bank switch moves no bytes. Derived from SVBK
    /// ([`Hardware::map_wram_bank`]). A byte: it fits in the struct's
    /// padding, and a DMG's memory per env stays under 64 KiB.
    pub(crate) wramx: u8,
    /// The PPU and APU count time on a clock of their own (`CgbHw::dots`):
    /// set from the first CGB speed switch on, never on a DMG.
    pub(crate) speed_mapped: bool,
}

/// A boot ROM's bytes: a DMG's 256 (mapped over 0x0000-0x00FF) or a
/// CGB's 2,304 (over 0x0000-0x00FF and 0x0200-0x08FF; its bytes
/// 0x100-0x1FF are never seen: the cartridge header shows there).
#[derive(Clone, PartialEq, Eq)]
pub struct BootRom(pub(crate) Vec<u8>);

/// Bytes of a DMG boot ROM.
pub const DMG_BOOT_ROM_SIZE: usize = 0x100;
/// Bytes of a CGB boot ROM.
pub const CGB_BOOT_ROM_SIZE: usize = 0x900;

impl BootRom {
    /// The end of the region it is mapped over (see `Hardware::boot_end`).
    fn end(&self) -> u16 {
        self.0.len() as u16
    }
}

/// Entries of `Hardware::rets`: more than the `CALL nn`s (6 M-cycles each)
/// a chained run holds before its last instruction.
pub(crate) const RET_RING: usize = 32;
const _: () = assert!(crate::cpu::MAX_CHAIN_CYCLES as usize / 6 < RET_RING);

impl Hardware {
    pub fn new(cart: Cartridge, boot_rom: Option<Arc<BootRom>>) -> Hardware {
        let booting = boot_rom.is_some();
        let boot_end = boot_rom.as_deref().map_or(0, |b| b.end());
        let mut hw = Hardware {
            now: 0,
            next_event: 0,
            ev_timer: 0,
            ev_ppu: 0,
            ev_serial: 0,
            ev_dma: 0,
            reference: false,
            cart,
            timer: Timer::new(if booting { 0 } else { POST_BOOT_COUNTER }),
            ppu: if booting {
                Ppu::power_on()
            } else {
                Ppu::post_boot()
            },
            apu: if booting {
                Apu::power_on()
            } else {
                Apu::post_boot()
            },
            serial: Serial::new(),
            joypad: Joypad::new(),
            dma: DMA_IDLE,
            dma_reg: 0xFF,
            intf: if booting { 0 } else { 0x01 },
            if_late: 0,
            if_late_at: u64::MAX,
            halt_late: 0,
            ie: 0,
            boot_rom,
            boot_end,
            frame_done: false,
            run_break: false,
            frame_start: 0,
            deadline: u64::MAX,
            deadline_hit: false,
            rets: [0; RET_RING],
            #[cfg(feature = "jit")]
            no_jit: false,
            cgb: None,
            wramx: 0,
            speed_mapped: false,
        };
        hw.reschedule();
        hw
    }

    /// Start over at time `now` with nothing in flight (no OAM DMA, no late
    /// interrupt requests, no frame ended, no deadline), before the
    /// components are set from another emulator's save state
    /// (`crate::pyboy::state`). `boot_rom` says whether the boot ROM is
    /// still mapped (ignored when there is none); `dma_reg` is what 0xFF46
    /// reads.
    pub(crate) fn import_reset(&mut self, now: u64, boot_rom: bool, dma_reg: u8) {
        self.now = now;
        self.dma = DMA_IDLE;
        self.dma_reg = dma_reg;
        self.if_late = 0;
        self.if_late_at = u64::MAX;
        self.halt_late = 0;
        self.boot_end = match &self.boot_rom {
            Some(b) if boot_rom => b.end(),
            _ => 0,
        };
        self.frame_done = false;
        self.run_break = false;
        self.frame_start = now;
        self.deadline = u64::MAX;
        self.deadline_hit = false;
    }

    /// Overwrite boot ROM bytes from `offset` (this machine's copy only);
    /// false if there is no boot ROM or the bytes do not fit in it.
    pub(crate) fn patch_boot_rom(&mut self, offset: usize, data: &[u8]) -> bool {
        let Some(boot) = self.boot_rom.as_mut() else {
            return false;
        };
        let Some(end) = offset
            .checked_add(data.len())
            .filter(|&e| e <= boot.0.len())
        else {
            return false;
        };
        Arc::make_mut(boot).0[offset..end].copy_from_slice(data);
        true
    }

    /// The boot ROM's bytes, if the machine has one (256 for a DMG's,
    /// 2,304 for a CGB's).
    pub fn boot_rom(&self) -> Option<&[u8]> {
        self.boot_rom.as_deref().map(|b| &b.0[..])
    }

    /// Set the timer's system counter (DIV is its high byte) to `counter`
    /// now, as a debugger would: the timer, APU and serial port are brought
    /// up to now first, and the jump itself clocks nothing (PyBoy's game
    /// wrappers set DIV this way).
    pub(crate) fn set_system_counter(&mut self, counter: u16) {
        let now = self.now;
        self.intf |= self.timer.catch_up(now);
        self.apu.catch_up(now, self.timer.system_counter(now));
        self.intf |= self.serial.catch_up(now);
        self.timer.set_system_counter(counter, now);
        self.reschedule();
    }

    /// Bring every component up to the clock (so that side-effect-free
    /// reads see the registers as of now, e.g. inside a hook callback).
    pub fn catch_up(&mut self, ram: &Ram) {
        self.catch_up_all(ram);
    }

    /// SCX, SCY, WX, WY of each visible line as last drawn (see
    /// `Ppu::line_registers`), the components caught up first; `None`
    /// unless `ppu.record_line_registers(true)` was called.
    pub fn line_registers(&mut self, ram: &Ram) -> Option<Vec<[u8; 4]>> {
        self.catch_up_all(ram);
        self.ppu.line_registers()
    }

    /// Recompute what depends on the components after the post-boot state
    /// was changed (a CGB's boot state).
    pub(crate) fn sync_after_boot_change(&mut self) {
        self.reschedule();
    }

    /// Whether the boot ROM is still mapped (over 0x0000-0x00FF, and on a
    /// CGB over 0x0200-0x08FF).
    pub fn boot_rom_mapped(&self) -> bool {
        self.boot_end != 0 && self.boot_rom.is_some()
    }

    /// The write to FF50 that unmaps the boot ROM for good. A CGB then
    /// runs in the mode KEY0 selects: DMG compatibility mode when the boot
    /// ROM wrote 0x04 there (bits 2-3 = 1), CGB mode otherwise (the PGB
    /// modes, bit 3, are not emulated). In compatibility mode the CGB's
    /// registers lock, with VRAM bank 0 and work RAM bank 1 mapped.
    #[cold]
    #[inline(never)]
    fn end_boot(&mut self) {
        self.boot_end = 0;
        let Some(c) = self.cgb.as_deref_mut() else {
            return;
        };
        if c.cgb_mode && c.key0 & 0x0C == 0x04 {
            c.cgb_mode = false;
            c.svbk = 0;
            self.map_wram_bank();
            self.ppu.enter_compat_mode();
        }
    }

    /// Whether the boot ROM covers `addr` now.
    pub fn boot_rom_covers(&self, addr: u16) -> bool {
        addr < self.boot_end && !(0x100..0x200).contains(&addr) && self.boot_rom.is_some()
    }

    /// The boot ROM's end while it is mapped (see [`Hardware::boot_end`]).
    #[inline(always)]
    pub(crate) fn boot_end(&self) -> u16 {
        self.boot_end
    }

    /// Work RAM at `addr` (0xC000-0xFDFF, echo included): banks 0 and 1
    /// are the RAM block's, a CGB's banks 2-7 are `CgbHw::wram`'s
    /// ([`Hardware::wramx`]).
    #[inline(always)]
    pub(crate) fn wram_read(&self, ram: &Ram, addr: u16) -> u8 {
        let i = (addr & 0x1FFF) as usize;
        if self.wramx != 0 && i >= WRAM_BANK {
            return self.banked_wram_read(i);
        }
        ram[i]
    }

    /// [`Hardware::wram_read`] for a write.
    #[inline(always)]
    pub(crate) fn wram_write(&mut self, ram: &mut Ram, addr: u16, value: u8) {
        let i = (addr & 0x1FFF) as usize;
        if self.wramx != 0 && i >= WRAM_BANK {
            return self.banked_wram_write(i, value);
        }
        ram[i] = value;
    }

    /// 0xD000-0xDFFF while a CGB maps one of banks 2-7 there.
    #[inline(never)]
    fn banked_wram_read(&self, i: usize) -> u8 {
        match self.cgb.as_deref() {
            Some(c) => c.wram[self.wramx as usize * WRAM_BANK + (i & (WRAM_BANK - 1))],
            None => 0xFF,
        }
    }

    #[inline(never)]
    fn banked_wram_write(&mut self, i: usize, value: u8) {
        if let Some(c) = self.cgb.as_deref_mut() {
            c.wram[self.wramx as usize * WRAM_BANK + (i & (WRAM_BANK - 1))] = value;
        }
    }

    /// Whether the straight runs' buses look for a work RAM bank at 0xD000
    /// ([`BANKED`]): where one of banks 2-7 is mapped or SVBK can map one
    /// (a CGB in CGB mode, whose runs then go on across SVBK writes).
    #[inline(always)]
    pub(crate) fn banked_runs(&self) -> bool {
        self.wramx != 0 || self.cgb.as_deref().is_some_and(|c| c.cgb_mode)
    }

    /// Map SVBK's work RAM bank at 0xD000 (see [`Hardware::wramx`]): after
    /// every change of `CgbHw::svbk`, and after a load.
    pub(crate) fn map_wram_bank(&mut self) {
        self.wramx = match self.cgb.as_deref() {
            Some(c) if c.wram_bank() != 1 => c.wram_bank() as u8,
            _ => 0,
        };
    }

    /// Side-effect-free read of any address (everything must be caught up).
    pub fn peek(&self, ram: &Ram, addr: u16) -> u8 {
        match addr {
            0x0000..=0x7FFF => self.read_rom(addr),
            0x8000..=0x9FFF => self.ppu.vram()[(addr & 0x1FFF) as usize],
            0xA000..=0xBFFF => self.cart.read_ram(addr, self.now),
            0xC000..=0xFDFF => self.wram_read(ram, addr),
            0xFE00..=0xFE9F => self.ppu.oam()[(addr - 0xFE00) as usize],
            0xFEA0..=0xFEFF => self.read_unusable(addr),
            0xFF80..=0xFFFE => ram[HRAM_BASE + (addr - 0xFF80) as usize],
            0xFFFF => self.ie,
            _ => self.read_io(addr),
        }
    }

    #[inline(always)]
    fn read_rom(&self, addr: u16) -> u8 {
        if addr < self.boot_end {
            return self.boot_region_read(addr);
        }
        self.cart.read_rom(addr)
    }

    /// A read below `boot_end` while a boot ROM is mapped: its byte, or the
    /// cartridge's in the CGB boot ROM's hole at 0x0100-0x01FF. Out of
    /// line: only the boot ROM's own run comes here.
    #[cold]
    #[inline(never)]
    fn boot_region_read(&self, addr: u16) -> u8 {
        match &self.boot_rom {
            Some(b) if !(0x100..0x200).contains(&addr) => b.0[addr as usize],
            _ => self.cart.read_rom(addr),
        }
    }

    /// I/O register read; the component has been brought up to date.
    fn read_io(&self, addr: u16) -> u8 {
        match addr {
            0xFF00 => self.joypad.read(),
            0xFF01 | 0xFF02 => self.serial.read(addr, self.cgb_mode()),
            0xFF04..=0xFF07 => self.timer.read(addr, self.now),
            0xFF0F => (self.intf & !self.late_if()) | 0xE0,
            0xFF10..=0xFF3F => {
                let (t, counter) = self.apu_clock(self.now);
                self.apu.read(addr, t, counter)
            }
            0xFF46 => self.dma_reg,
            0xFF40..=0xFF4B => self.ppu.read(addr),
            _ => self.read_cgb_io(addr),
        }
    }

    // ---- OAM corruption bug -----------------------------------------------

    /// The CPU put an OAM address (0xFE00..=0xFEFF) on the bus in the
    /// M-cycle ending now: during the OAM scan this corrupts the row being
    /// scanned (`oam_bug.rs`). Only reached for 0xFExx addresses (the 0xFExx
    /// arms of `cpu_read_idu`/`cpu_write`, in mode 2, or one compare in
    /// `idle_idu`), so other accesses pay nothing; the work lives out of
    /// line.
    #[cold]
    #[inline(never)]
    fn oam_bug(&mut self, ram: &Ram, access: Access) {
        self.catch_up_ppu(ram);
        // While OAM DMA owns OAM the CPU's accesses do not reach it.
        if self.dma_blocking() {
            return;
        }
        let Some(row) = self.ppu.oam_scan_row(self.dots_at(self.now)) else {
            return;
        };
        let mut oam = *self.ppu.oam();
        oam_bug::corrupt(&mut oam, row, access);
        for (i, &v) in oam.iter().enumerate() {
            self.ppu.write_oam(i, v);
        }
    }

    /// `oam_bug` for the increment/decrement unit alone (`CpuBus::idle_idu`).
    #[cold]
    #[inline(never)]
    fn oam_bug_idu(&mut self, ram: &Ram) {
        self.oam_bug(ram, Access::Write);
    }

    // ---- CPU-visible accesses (time already advanced) -------------------

    /// A CPU read; with `IDU` the increment/decrement unit also steps `addr`
    /// in the same M-cycle, which only matters to the OAM bug (0xFExx arm),
    /// so the other addresses cost exactly what a plain read does.
    #[inline(always)]
    fn cpu_read_idu<const IDU: bool>(&mut self, ram: &Ram, addr: u16) -> u8 {
        match addr {
            0x0000..=0x7FFF => self.read_rom(addr),
            0xC000..=0xFDFF => self.wram_read(ram, addr),
            0xFF80..=0xFFFE => ram[HRAM_BASE + (addr - 0xFF80) as usize],
            0x8000..=0x9FFF => {
                self.catch_up_ppu(ram);
                if self.ppu.vram_read_blocked(self.dots_at(self.now)) {
                    0xFF
                } else {
                    self.ppu.vram()[(addr & 0x1FFF) as usize]
                }
            }
            0xA000..=0xBFFF => self.cart.read_ram(addr, self.now),
            0xFE00..=0xFEFF => {
                self.catch_up_ppu(ram);
                // The OAM bug exists only during the OAM scan (mode 2).
                if self.ppu.mode() == 2 {
                    if IDU {
                        self.oam_bug(ram, Access::IncDecDuringRead);
                    }
                    self.oam_bug(ram, Access::Read);
                }
                if self.ppu.oam_read_blocked() || self.dma_blocking() {
                    0xFF
                } else if addr < 0xFEA0 {
                    self.ppu.oam()[(addr - 0xFE00) as usize]
                } else {
                    self.read_unusable(addr)
                }
            }
            0xFFFF => self.ie,
            // The joypad needs no catch-up (games poll it).
            0xFF00 => self.joypad.read(),
            // The PPU's registers (not 0xFF46, DMA) in one call: games poll
            // STAT and LY in tight loops.
            0xFF40..=0xFF45 | 0xFF47..=0xFF4B => self.read_ppu_register(ram, addr),
            _ => {
                self.catch_up_io(addr, ram);
                self.read_io(addr)
            }
        }
    }

    /// `catch_up_io` then `read_io` for a PPU register, in one call.
    #[inline(never)]
    fn read_ppu_register(&mut self, ram: &Ram, addr: u16) -> u8 {
        self.catch_up_ppu(ram);
        self.ppu.read(addr)
    }

    #[inline(always)]
    fn cpu_write(&mut self, ram: &mut Ram, addr: u16, value: u8) {
        match addr {
            0xC000..=0xFDFF => self.wram_write(ram, addr, value),
            0xFF80..=0xFFFE => ram[HRAM_BASE + (addr - 0xFF80) as usize] = value,
            0x0000..=0x7FFF => self.cart.write_rom(addr, value, self.now),
            0x8000..=0x9FFF => {
                self.catch_up_ppu(ram);
                self.ppu.flush_line();
                if !self.ppu.vram_write_blocked() {
                    self.ppu.write_vram((addr & 0x1FFF) as usize, value);
                }
            }
            0xA000..=0xBFFF => self.cart.write_ram(addr, value, self.now),
            0xFE00..=0xFE9F => {
                self.catch_up_ppu(ram);
                self.ppu.flush_line();
                if self.ppu.mode() == 2 {
                    self.oam_bug(ram, Access::Write);
                }
                if !self.ppu.oam_write_blocked(self.dots_at(self.now)) && !self.dma_blocking() {
                    self.ppu.write_oam((addr - 0xFE00) as usize, value);
                }
            }
            0xFEA0..=0xFEFF => {
                self.catch_up_ppu(ram);
                if self.ppu.mode() == 2 {
                    self.oam_bug(ram, Access::Write);
                }
                if !self.ppu.oam_write_blocked(self.dots_at(self.now)) && !self.dma_blocking() {
                    self.write_unusable(addr, value);
                }
            }
            0xFFFF => self.ie = value,
            _ => self.write_io(ram, addr, value),
        }
    }

    /// A reset of the system counter (a write to DIV, or STOP), at `now`:
    /// it can clock the APU's frame sequencer and the serial port, and the
    /// timer (a falling edge of its bit). Rare, so out of line (also for
    /// the interpreter's STOP).
    #[inline(never)]
    pub(crate) fn reset_div(&mut self) {
        let now = self.now;
        self.intf |= self.timer.catch_up(now);
        let (t, counter) = self.apu_clock(now);
        self.apu.div_reset(t, counter);
        let counter = self.timer.system_counter(now);
        self.intf |= self.serial.catch_up(now);
        let cgb_mode = self.cgb_mode();
        self.serial.div_reset(now, counter, cgb_mode);
        self.timer.write(0xFF04, 0, now);
        self.timer_irq_edge();
        self.reschedule();
    }

    fn write_io(&mut self, ram: &mut Ram, addr: u16, value: u8) {
        if addr | 4 == 0xFF45 {
            // STAT or LYC: the write lands among the PPU's transitions of
            // its M-cycle, so their STAT inputs are noted as they run
            // (unless the write's tick ran them: `Bus::tick_for_write`).
            self.catch_up_ppu_noting(ram);
        } else {
            self.catch_up_io(addr, ram);
        }
        let now = self.now;
        match addr {
            0xFF00 => self.intf |= self.joypad.write(value),
            0xFF01 | 0xFF02 => {
                self.intf |= self.timer.catch_up(now);
                let counter = self.timer.system_counter(now);
                let cgb_mode = self.cgb_mode();
                self.serial.write(addr, value, now, counter, cgb_mode);
                self.reschedule();
            }
            0xFF04 => self.reset_div(),
            0xFF05..=0xFF07 => {
                self.timer.write(addr, value, now);
                self.timer_irq_edge();
                self.reschedule();
            }
            0xFF0F => self.intf = (value & 0x1F) | self.late_if(),
            0xFF10..=0xFF3F => {
                let dots = self.dots_at(now);
                self.apu.write(addr, value, dots)
            }
            0xFF46 => self.start_dma(ram, value),
            0xFF40..=0xFF4B => {
                let was_on = self.ppu.lcd_on();
                let dots = self.dots_at(now);
                let bits = self.ppu.write(addr, value, dots);
                self.intf |= bits;
                if (addr == 0xFF41 || addr == 0xFF45)
                    && bits & IRQ_STAT == 0
                    && self.ppu.transitions_after_write(dots, addr == 0xFF45)
                {
                    self.stat_write_cancel();
                }
                if was_on && !self.ppu.lcd_on() {
                    // With the LCD off, frames are counted by time.
                    self.frame_start = now;
                }
                // STAT/LYC/LCDC change which transitions can interrupt.
                self.reschedule();
            }
            // Writing a 1 to BANK unmaps the boot ROM for good.
            0xFF50 if value & 1 != 0 && self.boot_end != 0 => self.end_boot(),
            _ => self.write_cgb_io(ram, addr, value),
        }
    }

    /// Debugger-style write with no time passing (the Python `memory[a] = v`).
    pub fn poke(&mut self, ram: &mut Ram, addr: u16, value: u8) {
        match addr {
            // Writes that would be ignored while the PPU owns VRAM/OAM go
            // through anyway: a debugger write must take effect.
            0x8000..=0x9FFF => self.ppu.write_vram((addr & 0x1FFF) as usize, value),
            0xFE00..=0xFE9F => self.ppu.write_oam((addr - 0xFE00) as usize, value),
            // Unusable area: memory on a CGB only, and no OAM bug for a
            // debugger.
            0xFEA0..=0xFEFF => self.write_unusable(addr, value),
            _ => self.cpu_write(ram, addr, value),
        }
        self.catch_up_all(ram);
    }

    pub fn set_buttons(&mut self, pressed: u8) {
        self.intf |= self.joypad.set_pressed(pressed);
    }

    /// Consistency checks after loading a state, so a corrupted state cannot
    /// make catch-up loops run for ages.
    fn validate(&self) -> Result<()> {
        // 2^60 T-cycles is over 8,000 years of emulated time.
        if self.now > 1 << 60 {
            return Err(Error::InvalidState(format!(
                "corrupted state: emulated time {} is implausible",
                self.now
            )));
        }
        self.timer.check(self.now)?;
        self.ppu.check()?;
        let horizon = self.now.saturating_add(4 * DOTS_PER_FRAME);
        let check = |what: &str, t: u64, lo: u64| -> Result<()> {
            if t != u64::MAX && (t > horizon || t.saturating_add(4 * DOTS_PER_FRAME) < lo) {
                return Err(Error::InvalidState(format!(
                    "corrupted state: {what} event at {t} is out of range for time {}",
                    self.now
                )));
            }
            Ok(())
        };
        check(
            "PPU",
            self.cpu_time_of(self.ppu.next_transition()),
            self.now,
        )?;
        check("serial", self.serial.next_event(), self.now)?;
        check("timer", self.timer.next_event(), self.now)?;
        // Unlike the events above, a frame always has a start (u64::MAX
        // would be a frame with the LCD off that never ends).
        if self.frame_start == u64::MAX {
            return Err(Error::InvalidState(
                "corrupted state: the current frame has no start time".into(),
            ));
        }
        check("frame", self.frame_start, self.now)?;
        if self.dma.copied > 160 {
            return Err(Error::InvalidState(
                "corrupted state: OAM DMA progress beyond 160 bytes".into(),
            ));
        }
        if self.dma.copied < 160 {
            check("OAM DMA", self.dma.start, self.now)?;
        }
        Ok(())
    }
}

impl Hardware {
    /// Whether a machine in the state of `other` may continue as this one:
    /// one that is still running its boot ROM needs this machine's boot ROM
    /// (the check `load` makes for state bytes, for in-memory snapshots).
    pub fn check_boot_rom(&self, other: &Hardware) -> Result<()> {
        if other.boot_end == 0 {
            return Ok(());
        }
        match (self.boot_rom.as_deref(), other.boot_rom.as_deref()) {
            (Some(a), Some(b)) if a == b => Ok(()),
            (None, _) => Err(Error::InvalidState(
                "the snapshot was taken while a boot ROM was running, but this machine has no \
                 boot ROM (give the same boot_rom when creating it)"
                    .into(),
            )),
            _ => Err(Error::InvalidState(
                "the snapshot was taken while a boot ROM was running, and this machine has a \
                 different boot ROM"
                    .into(),
            )),
        }
    }

    /// Take `other`'s boot ROM (after `check_boot_rom`): a machine keeps its own.
    pub fn adopt_boot_rom(&mut self, other: &Hardware) {
        if self.boot_end == 0 {
            self.boot_rom.clone_from(&other.boot_rom);
        }
    }
}

impl Stateful for Hardware {
    fn save(&self, w: &mut StateWriter) {
        w.begin_section(b"HW  ");
        w.u64(self.now);
        w.u8(self.intf);
        w.u8(self.ie);
        w.u8(self.dma_reg);
        w.u8(self.dma.source);
        w.u64(self.dma.start);
        w.u8(self.dma.copied);
        w.u64(self.dma.block_from);
        w.bool(self.boot_end != 0);
        if self.boot_end != 0 {
            // Which boot ROM is running: a state saved mid-boot only loads
            // into a machine with the same one.
            w.u64(self.boot_rom.as_deref().map_or(0, |b| fnv1a64(&b.0)));
        }
        w.bool(self.frame_done);
        w.u64(self.frame_start);
        w.end_section();
        self.timer.save(w);
        self.ppu.save(w);
        self.apu.save(w);
        self.serial.save(w);
        self.joypad.save(w);
        self.cart.save(w);
        // A CGB's own sections, after everything a DMG saves (a DMG's state
        // has none): `CGB2` (machine; `CGB1` in older states) and `CGBP`
        // (PPU).
        if let Some(c) = &self.cgb {
            c.save(w);
            self.ppu.save_cgb(w);
        }
    }

    fn load(&mut self, r: &mut StateReader) -> Result<()> {
        r.begin_section(b"HW  ")?;
        self.now = r.u64()?;
        self.intf = r.u8()? & 0x1F;
        self.ie = r.u8()?;
        self.dma_reg = r.u8()?;
        self.dma.source = r.u8()?;
        self.dma.start = r.u64()?;
        self.dma.copied = r.u8()?;
        self.dma.block_from = r.u64()?;
        self.dma.end = if self.dma.start == u64::MAX {
            0
        } else {
            self.dma.start.saturating_add(4 * 160)
        };
        let boot_active = r.bool()?;
        if boot_active {
            let saved = r.u64()?;
            match self.boot_rom.as_deref() {
                None => {
                    return Err(Error::InvalidState(
                        "state was saved while a boot ROM was running, but this machine has no \
                         boot ROM (give the same boot_rom when creating it)"
                            .into(),
                    ))
                }
                Some(b) if fnv1a64(&b.0) != saved => {
                    return Err(Error::InvalidState(
                        "state was saved while a boot ROM was running, and this machine has a \
                         different boot ROM"
                            .into(),
                    ))
                }
                Some(_) => {}
            }
        }
        self.boot_end = match &self.boot_rom {
            Some(b) if boot_active => b.end(),
            _ => 0,
        };
        self.frame_done = r.bool()?;
        self.run_break = self.frame_done;
        self.frame_start = r.u64()?;
        r.end_section()?;
        self.timer.load(r)?;
        self.ppu.load(r)?;
        self.apu.load(r)?;
        self.serial.load(r)?;
        self.joypad.load(r)?;
        self.cart.load(r)?;
        let saved_on_cgb = matches!(r.peek_tag(), Some(t) if t == *b"CGB2" || t == *b"CGB1");
        match (self.cgb.as_deref_mut(), saved_on_cgb) {
            (Some(c), true) => {
                // A machine with a boot ROM takes the mode the state was
                // saved in (its boot ROM decides it, by KEY0); without
                // one the mode is the cartridge's, and must match.
                let any_mode = self.boot_rom.is_some();
                c.load(r, self.now, any_mode)?;
                self.ppu.load_cgb(r, any_mode)?;
                self.speed_mapped = c.double || c.cpu_base != 0;
                let hblank = c.hdma.hblank;
                self.ppu.set_hdma_wake(hblank);
            }
            (None, false) => {}
            (None, true) => {
                return Err(Error::InvalidState(
                    "state was saved on a Game Boy Color (model \"cgb\"); this machine is a DMG"
                        .into(),
                ))
            }
            (Some(_), false) => {
                return Err(Error::InvalidState(
                    "state was saved on a DMG (model \"dmg\"); this machine is a Game Boy Color"
                        .into(),
                ))
            }
        }
        self.map_wram_bank();
        self.validate()?;
        self.reschedule();
        Ok(())
    }
}
