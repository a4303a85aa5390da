//! The machine around the CPU: memory map, interrupt registers, OAM DMA and
//! the event scheduler that keeps every component lazily up to date.
//!
//! Time is counted in T-cycles (`now`). A CPU memory access is one M-cycle:
//! the bus first advances time by 4 ("tick"), processing any component event
//! that became due, then performs the access, bringing the touched component
//! up to date first. In the fast path a tick is one add and one compare
//! (inside a straight run of code that ends before the next event, see
//! `cpu/runs.rs`, just the add); the reference path (`Hardware::reference`)
//! instead steps every component on every M-cycle, and tests assert both
//! paths give identical results.
//!
//! RAM that a batched engine wants to expose to NumPy (WRAM + HRAM) is not
//! part of [`Hardware`]: it is passed in as a separate `&mut Ram` so many
//! instances can keep theirs in one contiguous buffer.

use crate::apu::Apu;
use crate::cartridge::{fnv1a64, Cartridge};
use crate::cpu::{
    Code, Countdown, Cpu, CpuBus, IdleLoop, PollLoop, Straight, POLL_CYCLES, POLL_TURN_CYCLES,
};
use crate::error::{Error, Result};
use crate::joypad::Joypad;
use crate::oam_bug::{self, Access};
use crate::ppu::{Ppu, DOTS_PER_FRAME, IRQ_STAT};
use crate::serial::Serial;
use crate::state::{StateReader, StateWriter, Stateful};
use crate::timer::{Timer, IRQ_TIMER};
use std::sync::Arc;

pub const WRAM_SIZE: usize = 0x2000;
pub const HRAM_SIZE: usize = 0x7F;
/// One instance's WRAM (0xC000-0xDFFF) followed by HRAM (0xFF80-0xFFFE).
pub const RAM_SIZE: usize = WRAM_SIZE + HRAM_SIZE;
pub type Ram = [u8; RAM_SIZE];

const HRAM_BASE: usize = WRAM_SIZE;
/// The DMG's system counter when the boot ROM hands over at 0x0100.
pub const POST_BOOT_COUNTER: u16 = 0xABC8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Dma {
    /// Source page (high byte of the source address).
    source: u8,
    /// Time of the M-cycle in which byte 0 is copied.
    start: u64,
    /// Bytes copied so far (160 = done).
    copied: u8,
    /// A DMA restarted while another runs keeps OAM blocked until the new
    /// one starts.
    block_from: u64,
    /// The end of the M-cycle after the last byte's (`start + 640`; 0 when
    /// no DMA ever ran): until then the CPU runs on the [`DMA_BUS`].
    end: u64,
}

const DMA_IDLE: Dma = Dma {
    source: 0,
    start: u64::MAX,
    copied: 160,
    block_from: u64::MAX,
    end: 0,
};

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
    boot_rom: Option<Arc<[u8; 256]>>,
    boot_rom_active: bool,
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
    /// (`crate::hooks`). Transient: not part of save states.
    deadline: u64,
    pub deadline_hit: bool,
}

impl Hardware {
    pub fn new(cart: Cartridge, boot_rom: Option<Arc<[u8; 256]>>) -> Hardware {
        let booting = boot_rom.is_some();
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
            boot_rom_active: booting,
            frame_done: false,
            run_break: false,
            frame_start: 0,
            deadline: u64::MAX,
            deadline_hit: false,
        };
        hw.reschedule();
        hw
    }

    /// Recompute every component's next event and the earliest of them.
    #[inline]
    fn reschedule(&mut self) {
        // The timer's event comes one M-cycle before its reload, when its
        // interrupt request is raised (`timer_irq_edge`).
        let ev = self.timer.next_event();
        self.ev_timer = if ev == u64::MAX { ev } else { ev - 4 };
        self.ev_ppu = if self.ppu.lcd_on() {
            self.ppu.next_event()
        } else {
            // With the LCD off, frames are counted by time.
            self.frame_start.saturating_add(DOTS_PER_FRAME)
        }
        // A deadline is handled with the PPU's event (frame ends are its).
        .min(self.deadline);
        self.ev_serial = self.serial.next_event();
        self.ev_dma = if self.dma.copied < 160 {
            self.dma.start.saturating_add(4 * 159)
        } else {
            u64::MAX
        };
        self.next_event = self
            .ev_timer
            .min(self.ev_ppu)
            .min(self.ev_serial)
            .min(self.ev_dma);
    }

    /// Stop at T-cycle `at` (see `deadline`); `u64::MAX` removes it.
    pub fn set_deadline(&mut self, at: u64) {
        self.deadline = at;
        self.deadline_hit = false;
        self.reschedule();
    }

    /// Note a deadline that `now` has reached.
    #[inline]
    fn check_deadline(&mut self, now: u64) {
        if now >= self.deadline {
            self.deadline = u64::MAX;
            self.deadline_hit = true;
        }
    }

    /// Start over at time `now` with nothing in flight (no OAM DMA, no late
    /// interrupt requests, no frame ended, no deadline), before the
    /// components are set from another emulator's save state
    /// (`crate::pyboy_state`). `boot_rom` says whether the boot ROM is
    /// still mapped (ignored when there is none); `dma_reg` is what 0xFF46
    /// reads.
    pub(crate) fn import_reset(&mut self, now: u64, boot_rom: bool, dma_reg: u8) {
        self.now = now;
        self.dma = DMA_IDLE;
        self.dma_reg = dma_reg;
        self.if_late = 0;
        self.if_late_at = u64::MAX;
        self.halt_late = 0;
        self.boot_rom_active = boot_rom && self.boot_rom.is_some();
        self.frame_done = false;
        self.run_break = false;
        self.frame_start = now;
        self.deadline = u64::MAX;
        self.deadline_hit = false;
    }

    /// Whether the boot ROM still covers 0x0000-0x00FF.
    pub fn boot_rom_mapped(&self) -> bool {
        self.boot_rom_active && self.boot_rom.is_some()
    }

    /// Handle the end of a frame (VBlank start, or a frame's worth of time
    /// with the LCD off).
    #[inline]
    fn check_frame(&mut self, now: u64) {
        if self.ppu.frame_ready {
            self.ppu.frame_ready = false;
            self.frame_done = true;
            self.run_break = true;
            self.frame_start = now;
        } else if !self.ppu.lcd_on() && now >= self.frame_start + DOTS_PER_FRAME {
            self.frame_done = true;
            self.run_break = true;
            self.frame_start += DOTS_PER_FRAME;
        }
    }

    /// OAM belongs to the DMA unit from `block_from` until the M-cycle after
    /// the last byte is copied.
    #[inline]
    fn dma_blocking(&self) -> bool {
        self.now >= self.dma.block_from && self.now < self.dma.start.saturating_add(4 * 160)
    }

    /// Whether an OAM DMA is pending or running: the CPU then runs on the
    /// [`DMA_BUS`], whose accesses go through [`Hardware::cpu_read_dma`].
    /// (Until the end of the M-cycle of its last byte, which the DMA's
    /// event may have copied already when the CPU's access comes.)
    #[inline(always)]
    pub(crate) fn dma_pending(&self) -> bool {
        self.now < self.dma.end
    }

    /// The index of the byte the OAM DMA reads in the current M-cycle, if
    /// it reads one and `addr` lies on the same bus. The DMG has two: the
    /// external bus (cartridge ROM and RAM, work RAM and its echo up to
    /// 0xFDFF) and the video bus (VRAM); OAM, I/O and HRAM are on neither.
    /// A source page of 0xE0 and up reads work RAM through the echo.
    #[inline]
    ///
    /// A DMA restarted while another runs takes the new source's bus at
    /// once, in the set-up M-cycles before its first byte too (then the
    /// index is 0: gambatte hwtests oamdma_src8000_srcchange0000_busyinc,
    /// where the opcodes fetched from ROM just after the restart from
    /// 0x0000 are the DMA's zeros, not the program's).
    #[inline]
    fn dma_conflict(&self, addr: u16) -> Option<u8> {
        if self.now < self.dma.block_from || addr >= 0xFE00 {
            return None;
        }
        let i = self.now.saturating_sub(self.dma.start) / 4;
        let video = |a: u16| (0x8000..0xA000).contains(&a);
        (i < 160 && video(addr) == video((self.dma.source as u16) << 8)).then_some(i as u8)
    }

    /// A CPU read while an OAM DMA may run. On the bus the DMA uses, the
    /// DMA drives the address lines: the CPU reads the byte the DMA reads
    /// in that M-cycle, wherever it pointed (gambatte hwtests
    /// oamdma_src*_busyread*, oamdma_src*_busypop*).
    #[inline(never)]
    fn cpu_read_dma<const IDU: bool>(&mut self, ram: &Ram, addr: u16) -> u8 {
        let Some(i) = self.dma_conflict(addr) else {
            return self.cpu_read_idu::<IDU>(ram, addr);
        };
        self.dma_catch_up(ram, self.now);
        self.dma_source_byte(ram, (self.dma.source as u16) << 8 | i as u16)
    }

    /// A CPU write while an OAM DMA may run. On the bus the DMA uses, the
    /// write reaches no memory (the stack bytes a PUSH colliding with the
    /// DMA writes are not there afterwards, and cartridge RAM stays
    /// enabled although the DMA's address selects the RAM-enable register:
    /// gambatte hwtests oamdma_src*_busypush*, oamdma_src0000_srambankchange)
    /// and the DMA copies the CPU's byte into OAM instead of its own; from
    /// work RAM, which drives the bus too, it copies the AND of both
    /// (0x55 written while the DMA reads 0x65 from work RAM lands as 0x45:
    /// oamdma_srcC000_busypushC001 and the other work RAM sources).
    #[inline(never)]
    fn cpu_write_dma(&mut self, ram: &mut Ram, addr: u16, value: u8) {
        let Some(i) = self.dma_conflict(addr) else {
            return self.cpu_write(ram, addr, value);
        };
        if self.now < self.dma.start {
            // A restart's set-up: the write is lost, nothing is copied yet.
            return;
        }
        // The bytes before this M-cycle's.
        self.dma_catch_up(ram, self.now - 4);
        let src = (self.dma.source as u16) << 8 | i as u16;
        let byte = match src {
            0xC000.. => value & ram[(src & 0x1FFF) as usize],
            _ => value,
        };
        self.ppu.write_oam(i as usize, byte);
        self.dma.copied = i + 1;
        self.reschedule();
    }

    /// `IE & IF` for the five interrupt sources.
    #[inline]
    pub fn pending(&self) -> u8 {
        self.ie & self.intf & 0x1F
    }

    /// Side-effect-free read of any address (everything must be caught up).
    pub fn peek(&self, ram: &Ram, addr: u16) -> u8 {
        match addr {
            0x0000..=0x7FFF => self.read_rom(addr),
            0x8000..=0x9FFF => self.ppu.vram()[(addr & 0x1FFF) as usize],
            0xA000..=0xBFFF => self.cart.read_ram(addr, self.now),
            0xC000..=0xFDFF => ram[(addr & 0x1FFF) as usize],
            0xFE00..=0xFE9F => self.ppu.oam()[(addr - 0xFE00) as usize],
            0xFEA0..=0xFEFF => 0x00,
            0xFF80..=0xFFFE => ram[HRAM_BASE + (addr - 0xFF80) as usize],
            0xFFFF => self.ie,
            _ => self.read_io(addr),
        }
    }

    #[inline(always)]
    fn read_rom(&self, addr: u16) -> u8 {
        if addr < 0x100 && self.boot_rom_active {
            if let Some(b) = &self.boot_rom {
                return b[addr as usize];
            }
        }
        self.cart.read_rom(addr)
    }

    /// I/O register read; the component has been brought up to date.
    fn read_io(&self, addr: u16) -> u8 {
        match addr {
            0xFF00 => self.joypad.read(),
            0xFF01 | 0xFF02 => self.serial.read(addr),
            0xFF04..=0xFF07 => self.timer.read(addr, self.now),
            0xFF0F => (self.intf & !self.late_if()) | 0xE0,
            0xFF10..=0xFF3F => {
                let counter = self.timer.system_counter(self.now);
                self.apu.read(addr, self.now, counter)
            }
            0xFF46 => self.dma_reg,
            0xFF40..=0xFF4B => self.ppu.read(addr),
            _ => 0xFF,
        }
    }

    /// Bring the component behind an I/O address up to date.
    #[inline]
    fn catch_up_io(&mut self, addr: u16, ram: &Ram) {
        let now = self.now;
        match addr {
            0xFF01 | 0xFF02 => self.intf |= self.serial.catch_up(now),
            0xFF04..=0xFF07 => self.intf |= self.timer.catch_up(now),
            0xFF10..=0xFF3F => {
                let counter = self.timer.system_counter(now);
                self.apu.catch_up(now, counter);
            }
            0xFF40..=0xFF4B => self.catch_up_ppu(ram),
            0xFF0F => self.catch_up_all(ram),
            _ => {}
        }
    }

    /// Bring the components whose event is due up to `now`.
    fn process_events(&mut self, ram: &Ram) {
        let now = self.now;
        // DMA first: the PPU reads the OAM it fills.
        if now >= self.ev_dma {
            self.dma_catch_up(ram, now);
        }
        if now >= self.ev_timer {
            self.intf |= self.timer.catch_up(now);
            self.timer_irq_edge();
        }
        if now >= self.ev_ppu {
            self.catch_up_ppu(ram);
            self.check_frame(now);
            self.check_deadline(now);
        }
        if now >= self.ev_serial {
            self.intf |= self.serial.catch_up(now);
        }
        self.reschedule();
    }

    /// Bring every component up to `now` (between frames, before peeking,
    /// after IF is read).
    fn catch_up_all(&mut self, ram: &Ram) {
        let now = self.now;
        if self.apu.sound_on() {
            let counter = self.timer.system_counter(now);
            self.apu.catch_up(now, counter);
        }
        self.intf |= self.timer.catch_up(now);
        self.catch_up_ppu(ram);
        self.intf |= self.serial.catch_up(now);
        self.check_frame(now);
        self.reschedule();
    }

    /// Bring the PPU (and the OAM DMA feeding it) up to `now`. Most calls
    /// (a game polling STAT or LY, VRAM accesses) fall between two PPU
    /// transitions with no DMA running and no late request to note, where
    /// there is nothing to do, and the call returns at once.
    #[inline]
    fn catch_up_ppu(&mut self, ram: &Ram) {
        if self.dma.copied >= 160
            && self.ppu.next_transition() > self.now
            && !(self.ppu.late_irq_at == self.now && self.ppu.late_irq != 0)
        {
            return;
        }
        let before = self.intf;
        // While a DMA runs, interleave it with the PPU's transitions so the
        // OAM scan and the pixels see the bytes copied by then, no later.
        if self.dma.copied < 160 {
            self.ppu.flush_line();
        }
        while self.dma.copied < 160 && self.ppu.next_transition() <= self.now {
            let t = self.ppu.next_transition();
            self.dma_catch_up(ram, t);
            self.intf |= self.ppu.catch_up(t);
        }
        if self.dma.copied < 160 {
            self.dma_catch_up(ram, self.now);
        }
        self.intf |= self.ppu.catch_up(self.now);
        if self.ppu.late_irq_at == self.now && self.ppu.late_irq != 0 {
            self.note_late_ppu_irq(before);
        }
    }

    /// The PPU raises its interrupt requests late in the M-cycle: a CPU read
    /// or write of IF in the same M-cycle neither sees nor clears the bits
    /// that became set in it, though the next interrupt check dispatches
    /// them (GBMicrotest *_int_if_*, oam_int_if_*, stat_write_glitch_*).
    #[cold]
    fn note_late_ppu_irq(&mut self, before: u8) {
        if self.if_late_at != self.now {
            self.if_late_at = self.now;
            self.if_late = 0;
            self.halt_late = 0;
        }
        self.if_late |= self.ppu.late_irq & !before;
        self.halt_late |= self.ppu.late_halt_irq & !before;
        self.ppu.late_irq = 0;
        self.ppu.late_halt_irq = 0;
    }

    /// The PPU samples its STAT line at the end of the M-cycle: an LYC write
    /// in the M-cycle in which the line rose, that lowers it again, leaves
    /// no edge, so the request raised late in that cycle is withdrawn, like
    /// a TIMA write cancelling the timer's (GBMicrotest line_153_lyc_int_b,
    /// verified on a DMG: LYC=0xFF written in the M-cycle of line 153's
    /// LY=0 match raises no interrupt).
    #[cold]
    fn lyc_write_cancel(&mut self) {
        if self.if_late_at == self.now && self.if_late & IRQ_STAT != 0 && !self.ppu.stat_line() {
            self.intf &= !IRQ_STAT;
            self.if_late &= !IRQ_STAT;
            self.halt_late &= !IRQ_STAT;
        }
    }

    /// IF bits the PPU raised in the current M-cycle (hidden from IF accesses).
    #[inline]
    fn late_if(&self) -> u8 {
        if self.if_late_at == self.now {
            self.if_late
        } else {
            0
        }
    }

    /// The slow path: every component stepped on every M-cycle.
    fn reference_step(&mut self, ram: &Ram) {
        let now = self.now;
        self.intf |= self.timer.tick_mcycle(now);
        self.timer_irq_edge();
        self.catch_up_ppu(ram);
        self.intf |= self.serial.catch_up(now);
        self.check_frame(now);
        self.check_deadline(now);
        self.reschedule();
    }

    /// Advance one M-cycle. `REF` selects the reference path at compile
    /// time, so the fast path pays nothing for its existence.
    #[inline(always)]
    pub fn tick<const REF: bool>(&mut self, ram: &Ram) {
        self.now += 4;
        if REF {
            self.reference_step(ram);
        } else if self.now >= self.next_event {
            self.process_events(ram);
        }
    }

    /// Fast-forward a halted CPU to the M-cycle in which the next event is due.
    #[inline]
    pub fn halt_idle<const REF: bool>(&mut self, ram: &Ram) {
        if !REF && self.next_event != u64::MAX && self.next_event > self.now + 4 {
            // Land on the last M-cycle boundary before the event, then tick.
            let skip = (self.next_event - self.now - 1) & !3;
            self.now += skip;
        }
        self.tick::<REF>(ram);
        if self.if_late_at == self.now
            && self.pending() != 0
            && self.pending() & !self.halt_late == 0
        {
            // Requested too late in this M-cycle for the halted CPU to
            // latch (`Ppu::catch_up`): it wakes one M-cycle later.
            self.tick::<REF>(ram);
        }
    }

    /// Whether the machine runs on the reference path.
    #[inline]
    pub fn reference(&self) -> bool {
        self.reference
    }

    /// The one reference switch: the bus (`Bus<true>`), the PPU renderer
    /// (the FIFO on every line) and the APU catch-up (one T-cycle at a time)
    /// all follow it from the next access on. See `rust/src/README.md`.
    pub fn set_reference(&mut self, on: bool) {
        self.reference = on;
        self.ppu.set_reference(on);
        self.apu.set_reference(on);
    }

    /// Bring everything up to date (between frames, before peeking).
    pub fn sync(&mut self, ram: &Ram) {
        self.catch_up_all(ram);
    }

    // ---- OAM DMA -------------------------------------------------------

    fn dma_catch_up(&mut self, ram: &Ram, now: u64) {
        if self.dma.copied >= 160 || now < self.dma.start {
            return;
        }
        let due = (((now - self.dma.start) / 4) + 1).min(160) as u8;
        while self.dma.copied < due {
            let i = self.dma.copied;
            let src = (self.dma.source as u16) << 8 | i as u16;
            let v = self.dma_source_byte(ram, src);
            self.ppu.write_oam(i as usize, v);
            self.dma.copied += 1;
        }
    }

    /// What the DMA unit reads at `addr`. Sources at and above 0xE000 reach
    /// WRAM through the echo mirror on the DMG.
    #[inline]
    fn dma_source_byte(&self, ram: &Ram, addr: u16) -> u8 {
        match addr {
            0x0000..=0x7FFF => self.read_rom(addr),
            0x8000..=0x9FFF => self.ppu.vram()[(addr & 0x1FFF) as usize],
            0xA000..=0xBFFF => self.cart.read_ram(addr, self.now),
            _ => ram[(addr & 0x1FFF) as usize],
        }
    }

    fn start_dma(&mut self, ram: &Ram, value: u8) {
        self.dma_catch_up(ram, self.now);
        let restarting = self.dma.copied < 160 && self.now >= self.dma.start;
        self.dma_reg = value;
        // One M-cycle of set-up, then one byte per M-cycle.
        self.dma = Dma {
            source: value,
            start: self.now + 8,
            copied: 0,
            block_from: if restarting { self.now } else { self.now + 8 },
            end: self.now + 8 + 4 * 160,
        };
        self.run_break = true;
        self.reschedule();
    }

    /// The timer raises IF.2 at the very end of the overflow M-cycle, on the
    /// boundary with the reload cycle: the running CPU's interrupt check
    /// after the overflow cycle already takes it (GBMicrotest int_timer_nops,
    /// int_timer_incs, int_timer_nops_div_a; Mooneye timer/rapid_toggle),
    /// but IF reads and writes in that cycle do not see it and a halted CPU
    /// wakes one cycle later (int_timer_halt*), like the PPU's late requests
    /// (`note_late_ppu_irq`). So the request is raised during the overflow
    /// cycle as a late bit of it; a TIMA write in that cycle, which cancels
    /// the reload, takes it back. Runs after every change of the timer's
    /// state: its event (scheduled one cycle early for this), each reference
    /// path M-cycle and timer register writes.
    #[inline(never)]
    fn timer_irq_edge(&mut self) {
        let now = self.now;
        if self.timer.next_irq() == now.wrapping_add(4) {
            let new = IRQ_TIMER & !self.intf;
            if new != 0 {
                if self.if_late_at != now {
                    self.if_late_at = now;
                    self.if_late = 0;
                    self.halt_late = 0;
                }
                self.intf |= new;
                self.if_late |= new;
                self.halt_late |= new;
            }
        } else if self.if_late_at == now && self.if_late & IRQ_TIMER != 0 {
            self.intf &= !IRQ_TIMER;
            self.if_late &= !IRQ_TIMER;
            self.halt_late &= !IRQ_TIMER;
        }
    }

    /// IF.2 when it is the timer's request raised late in the current
    /// M-cycle (`timer_irq_edge`).
    #[inline]
    fn timer_irq_late(&self) -> u8 {
        self.late_if() & IRQ_TIMER
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
        let Some(row) = self.ppu.oam_scan_row(self.now) else {
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
            0xC000..=0xFDFF => ram[(addr & 0x1FFF) as usize],
            0xFF80..=0xFFFE => ram[HRAM_BASE + (addr - 0xFF80) as usize],
            0x8000..=0x9FFF => {
                self.catch_up_ppu(ram);
                if self.ppu.vram_read_blocked(self.now) {
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
                    0x00
                }
            }
            0xFFFF => self.ie,
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
            0xC000..=0xFDFF => ram[(addr & 0x1FFF) as usize] = value,
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
                if !self.ppu.oam_write_blocked(self.now) && !self.dma_blocking() {
                    self.ppu.write_oam((addr - 0xFE00) as usize, value);
                }
            }
            0xFEA0..=0xFEFF => {
                self.catch_up_ppu(ram);
                if self.ppu.mode() == 2 {
                    self.oam_bug(ram, Access::Write);
                }
            }
            0xFFFF => self.ie = value,
            _ => self.write_io(ram, addr, value),
        }
    }

    fn write_io(&mut self, ram: &Ram, addr: u16, value: u8) {
        self.catch_up_io(addr, ram);
        let now = self.now;
        match addr {
            0xFF00 => self.intf |= self.joypad.write(value),
            0xFF01 | 0xFF02 => {
                self.intf |= self.timer.catch_up(now);
                let counter = self.timer.system_counter(now);
                self.serial.write(addr, value, now, counter);
                self.reschedule();
            }
            0xFF04..=0xFF07 => {
                if addr == 0xFF04 {
                    // The DIV reset can clock the APU's frame sequencer
                    // and the serial port.
                    let counter = self.timer.system_counter(now);
                    self.intf |= self.serial.catch_up(now);
                    self.serial.div_reset(now, counter);
                    self.apu.div_reset(now, counter);
                }
                self.timer.write(addr, value, now);
                self.timer_irq_edge();
                self.reschedule();
            }
            0xFF0F => self.intf = (value & 0x1F) | self.late_if(),
            0xFF10..=0xFF3F => self.apu.write(addr, value, now),
            0xFF46 => self.start_dma(ram, value),
            0xFF40..=0xFF4B => {
                let was_on = self.ppu.lcd_on();
                self.intf |= self.ppu.write(addr, value, now);
                if addr == 0xFF45 {
                    self.lyc_write_cancel();
                }
                if was_on && !self.ppu.lcd_on() {
                    // With the LCD off, frames are counted by time.
                    self.frame_start = now;
                }
                // STAT/LYC/LCDC change which transitions can interrupt.
                self.reschedule();
            }
            // Writing a 1 to BANK unmaps the boot ROM for good.
            0xFF50 if value & 1 != 0 => self.boot_rom_active = false,
            _ => {}
        }
    }

    /// Debugger-style write with no time passing (the Python `memory[a] = v`).
    pub fn poke(&mut self, ram: &mut Ram, addr: u16, value: u8) {
        match addr {
            // Writes that would be ignored while the PPU owns VRAM/OAM go
            // through anyway: a debugger write must take effect.
            0x8000..=0x9FFF => self.ppu.write_vram((addr & 0x1FFF) as usize, value),
            0xFE00..=0xFE9F => self.ppu.write_oam((addr - 0xFE00) as usize, value),
            // Unusable area: nothing to write, and no OAM bug for a debugger.
            0xFEA0..=0xFEFF => {}
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
        check("PPU", self.ppu.next_transition(), self.now)?;
        check("serial", self.serial.next_event(), self.now)?;
        check("timer", self.timer.next_event(), self.now)?;
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
        if !other.boot_rom_active {
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
        if !self.boot_rom_active {
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
        w.bool(self.boot_rom_active);
        if self.boot_rom_active {
            // Which boot ROM is running: a state saved mid-boot only loads
            // into a machine with the same one.
            w.u64(self.boot_rom.as_deref().map_or(0, |b| fnv1a64(b)));
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
                Some(b) if fnv1a64(b) != saved => {
                    return Err(Error::InvalidState(
                        "state was saved while a boot ROM was running, and this machine has a \
                         different boot ROM"
                            .into(),
                    ))
                }
                Some(_) => {}
            }
        }
        self.boot_rom_active = boot_active;
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
        self.validate()?;
        self.reschedule();
        Ok(())
    }
}

/// The CPU's view of one machine: its hardware plus its RAM block. `REF`
/// selects the slow reference path (every component stepped every M-cycle).
///
/// The bus keeps its own copy of the clock (`now`) and of the next event
/// time, so the per-M-cycle `now += 4; if now >= next_event` of the fast
/// path touches the bus struct directly instead of going through the
/// `hw` pointer to `Hardware`'s fields (the clock update was the largest
/// single cost of the interpreter; bench/README.md, "Figures moved out of
/// the code"). The copy is written back to
/// `hw.now` before every call that can look at the time (the slow arms of
/// reads and writes, events, HALT, STOP) and when the bus is dropped; on
/// the reference path `hw.now` is current after every tick.
///
/// `STRAIGHT` is [`NORMAL`] except on the buses of straight runs (see
/// `cpu/runs.rs`): [`ROM_RUN`] runs a precomputed run of ROM code,
/// fetching from its bank directly; [`WRAM_RUN`] runs code in work RAM,
/// checking before each instruction that all of its M-cycles come before
/// the next event. Both skip the per-M-cycle event check.
pub struct Bus<'a, const REF: bool, const STRAIGHT: u8 = NORMAL> {
    pub hw: &'a mut Hardware,
    pub ram: &'a mut Ram,
    /// The ROM's bytes and runs (shared by every machine running it).
    code: &'a Code,
    now: u64,
    next_event: u64,
    /// Raised whenever the hardware ran (events, slow accesses) or the CPU
    /// asked (`CpuBus::recheck`): see `Cpu::run_until`.
    recheck: bool,
    /// Fetch window: the eight ROM bytes from `win_start` as mapped when
    /// they were read. The mapping only changes through a slow access (a
    /// bank-switch write, the boot ROM unmapping), and every slow access
    /// empties the window, so reads that fall in it (sequential opcode and
    /// immediate fetches, mostly) skip the address decode and bank lookup.
    win: u64,
    /// Address of `win`'s first byte, or [`NO_WINDOW`].
    win_start: u32,
    /// Straight runs only: the ROM bank the run's code lies in.
    bank: &'a [u8; 0x4000],
    /// [`WRAM_RUN`]: an opcode or immediate was fetched from outside work
    /// RAM.
    strayed: bool,
    /// Straight runs only: the run stops before an instruction that
    /// starts at or after this time ([`ROM_RUN`]: just after the start of
    /// its last instruction; [`WRAM_RUN`]: 24 T-cycles, the longest
    /// instruction, before the next event). A slow access sets it to 0:
    /// the run ends after the current instruction.
    limit: u64,
    /// Straight runs only: a slow access happened. It may have moved the
    /// next event before a later M-cycle of its instruction, which a normal
    /// tick would process right there. Straight runs process it before the
    /// next slow access of the instruction, or after the instruction: the
    /// fast accesses in between (ROM, work RAM, HRAM) do not touch the
    /// hardware, and every component catches up lazily, so the outcome is
    /// the same.
    slow: bool,
}

/// [`Bus`] modes: the normal fast bus, and those of straight runs.
pub const NORMAL: u8 = 0;
pub const ROM_RUN: u8 = 1;
pub const WRAM_RUN: u8 = 2;
/// The bus while an OAM DMA is pending or running: every access goes
/// through the hardware, which resolves the DMA's bus conflicts
/// (`Hardware::cpu_read_dma`); only HRAM countdowns are skipped.
pub const DMA_BUS: u8 = 3;

/// Whether `STRAIGHT` is the mode of a straight run's bus.
const fn is_run(straight: u8) -> bool {
    straight == ROM_RUN || straight == WRAM_RUN
}
/// The longest instruction (CALL), in T-cycles.
const LONGEST_INSTRUCTION: u64 = 24;

/// The bank a bus outside a straight run points at (never read).
static NO_BANK: [u8; 0x4000] = [0; 0x4000];

/// `Bus::win_start` of an empty window: no 16-bit address is within 8 of it.
const NO_WINDOW: u32 = 0x1_0000;

impl<'a, const REF: bool> Bus<'a, REF> {
    #[inline(always)]
    pub fn new(hw: &'a mut Hardware, ram: &'a mut Ram, code: &'a Code) -> Self {
        let (now, next_event) = (hw.now, hw.next_event);
        Bus {
            hw,
            ram,
            code,
            now,
            next_event,
            recheck: true,
            win: 0,
            win_start: NO_WINDOW,
            bank: &NO_BANK,
            strayed: false,
            limit: 0,
            slow: false,
        }
    }
}

impl<'a, const REF: bool> Bus<'a, REF, DMA_BUS> {
    /// The bus for the time an OAM DMA is pending or running (see [`DMA_BUS`]).
    #[inline(always)]
    pub fn new_dma(hw: &'a mut Hardware, ram: &'a mut Ram, code: &'a Code) -> Self {
        let (now, next_event) = (hw.now, hw.next_event);
        Bus {
            hw,
            ram,
            code,
            now,
            next_event,
            recheck: true,
            win: 0,
            win_start: NO_WINDOW,
            bank: &NO_BANK,
            strayed: false,
            limit: 0,
            slow: false,
        }
    }
}

impl<'a, const REF: bool, const STRAIGHT: u8> Bus<'a, REF, STRAIGHT> {
    /// Run the straight-line runs (`cpu/runs.rs`) from PC, one after the
    /// other, while each ends before the next event and no slow access
    /// happens. The caller has checked that the CPU is running with no
    /// interrupt to take. Called on the fast bus only (`Bus<false>`).
    #[inline(never)]
    fn straight_runs(
        mut cpu: Cpu,
        mut bus: Self,
        done: &mut impl FnMut(&mut Self) -> bool,
    ) -> (Cpu, Self, Straight) {
        if bus.hw.boot_rom_active {
            return (cpu, bus, Straight::Step);
        }
        if STRAIGHT == DMA_BUS {
            // No runs while the DMA owns a bus; HRAM is not on either.
            if cpu.pc() >= 0xFF80 {
                bus.skip_countdown(&mut cpu);
            }
            return (cpu, bus, Straight::Step);
        }
        loop {
            let pc = cpu.pc();
            let outcome;
            if pc < 0x8000 {
                (cpu, bus, outcome) = Self::rom_runs(cpu, bus, done);
            } else if (pc.wrapping_sub(0xC000) as usize) < WRAM_SIZE {
                (cpu, bus, outcome) = Self::wram_runs(cpu, bus, done);
            } else {
                if pc >= 0xFF80 {
                    bus.skip_countdown(&mut cpu);
                }
                return (cpu, bus, Straight::Step);
            }
            if let Some(outcome) = outcome {
                return (cpu, bus, outcome);
            }
        }
    }

    /// Straight runs of ROM code while PC stays in ROM (`None`: it left).
    #[inline(never)]
    fn rom_runs(
        mut cpu: Cpu,
        mut bus: Self,
        done: &mut impl FnMut(&mut Self) -> bool,
    ) -> (Cpu, Self, Option<Straight>) {
        loop {
            // One run bus for the runs up to the next slow access: only
            // then may the mapping, the next event or the CPU's state have
            // changed.
            let mut run = bus.run_bus::<ROM_RUN>(&NO_BANK);
            let mut bank_start = usize::MAX;
            let outcome = loop {
                let pc = cpu.pc();
                if pc >= 0x8000 {
                    break None;
                }
                let off = run.hw.cart.rom_offset(pc);
                let cycles = match run.code.runs.at(off) {
                    Some(cycles) => cycles,
                    None if run.code.runs.poll_at(off) => {
                        run.skip_poll_turns(&mut cpu, off);
                        POLL_CYCLES
                    }
                    None if run.code.runs.idle_at(off) => {
                        run.skip_idle_turns(&cpu, off);
                        // Then the jump itself, as a run of one.
                        0
                    }
                    None => break Some(Straight::Step),
                };
                // Every tick of the run, its last instruction at its
                // longest, must come before the next event.
                let end = run.now + 4 * cycles as u64;
                if end + LONGEST_INSTRUCTION >= run.next_event {
                    break Some(Straight::Wait);
                }
                if off & !0x3FFF != bank_start {
                    let Some(bank) = run.code.bank(off) else {
                        break Some(Straight::Step);
                    };
                    run.bank = bank;
                    bank_start = off & !0x3FFF;
                }
                // All instructions but the last end by `end`; the last
                // after it.
                run.limit = end + 1;
                loop {
                    let op = cpu.fetch8(&mut run);
                    cpu.execute(op, &mut run);
                    if run.now >= run.limit {
                        break;
                    }
                }
                if run.slow {
                    break Some(Straight::Recheck);
                }
            };
            let now = run.now;
            drop(run);
            bus.now = now;
            match outcome {
                Some(Straight::Recheck) => {
                    if !bus.after_slow_run(&cpu, done) {
                        return (cpu, bus, outcome);
                    }
                }
                _ => return (cpu, bus, outcome),
            }
        }
    }

    /// Code in work RAM, run while PC stays there and each instruction ends
    /// before the next event (`None`: PC left work RAM).
    #[inline(never)]
    fn wram_runs(
        mut cpu: Cpu,
        mut bus: Self,
        done: &mut impl FnMut(&mut Self) -> bool,
    ) -> (Cpu, Self, Option<Straight>) {
        loop {
            let limit = bus.next_event.saturating_sub(LONGEST_INSTRUCTION);
            if bus.now >= limit {
                return (cpu, bus, Some(Straight::Wait));
            }
            let mut run = bus.run_bus::<WRAM_RUN>(&NO_BANK);
            run.limit = limit;
            // The loop runs on a copy of the CPU: `cpu` is part of the
            // returned tuple, which the optimizer otherwise works on in
            // place (in memory, through a pointer). On the copy it keeps PC
            // in a machine register, which pays for code in work RAM
            // (bench/README.md, "A copy of the CPU in work-RAM runs").
            let mut c = cpu;
            loop {
                let op = c.fetch8(&mut run);
                c.execute(op, &mut run);
                if run.now >= run.limit {
                    break;
                }
            }
            cpu = c;
            let (now, slow, strayed) = (run.now, run.slow, run.strayed);
            drop(run);
            bus.now = now;
            if slow {
                if !bus.after_slow_run(&cpu, done) {
                    return (cpu, bus, Some(Straight::Recheck));
                }
            } else if !strayed {
                // Stopped before the next event, still in work RAM.
                return (cpu, bus, Some(Straight::Wait));
            }
            if (cpu.pc().wrapping_sub(0xC000) as usize) >= WRAM_SIZE {
                return (cpu, bus, None);
            }
        }
    }

    /// After a run that made a slow access: take the new event time, and
    /// make the checks the interpreter loop makes after one. `false`: the
    /// loop must take over (the frame is done, or the CPU halts or has an
    /// interrupt to take).
    #[inline(always)]
    fn after_slow_run(&mut self, cpu: &Cpu, done: &mut impl FnMut(&mut Self) -> bool) -> bool {
        if self.now >= self.hw.next_event {
            // The access moved an event into the rest of its instruction.
            self.hw.now = self.now;
            self.hw.process_events(self.ram);
        }
        self.next_event = self.hw.next_event;
        // A bank switch or the boot ROM unmapping moved the window.
        self.win_start = NO_WINDOW;
        if done(self) || !cpu.runs_plainly(self.hw.pending()) {
            self.recheck = true;
            return false;
        }
        true
    }

    /// The bus of a straight run (see `straight_runs`), on this bus's
    /// machine and clock.
    #[inline(always)]
    fn run_bus<const MODE: u8>(&mut self, bank: &'a [u8; 0x4000]) -> Bus<'_, REF, MODE> {
        Bus {
            hw: &mut *self.hw,
            ram: &mut *self.ram,
            code: self.code,
            now: self.now,
            next_event: self.next_event,
            recheck: false,
            win: 0,
            win_start: NO_WINDOW,
            bank,
            strayed: false,
            limit: 0,
            slow: false,
        }
    }
}

impl<'a, const REF: bool, const STRAIGHT: u8> Bus<'a, REF, STRAIGHT> {
    /// A ROM read (0x0000-0x7FFF) through the fetch window.
    #[inline(always)]
    fn read_rom(&mut self, addr: u16) -> u8 {
        let d = (addr as u32).wrapping_sub(self.win_start);
        if d < 8 {
            return (self.win >> (d * 8)) as u8;
        }
        self.refill_window(addr)
    }

    /// Read `addr` and make the fetch window start there (when its eight
    /// bytes lie in one bank and no boot ROM covers them).
    #[inline(always)]
    fn refill_window(&mut self, addr: u16) -> u8 {
        if addr >= 0x100 || !self.hw.boot_rom_active {
            if let Some(w) = self.hw.cart.rom_window(addr) {
                self.win = w;
                self.win_start = addr as u32;
                return w as u8;
            }
        }
        self.hw.read_rom(addr)
    }

    /// Advance one M-cycle.
    #[inline(always)]
    fn tick(&mut self) {
        if is_run(STRAIGHT) {
            // The run's admission checked every tick against the event.
            self.now += 4;
        } else if REF {
            self.hw.tick::<true>(self.ram);
            self.now = self.hw.now;
            self.recheck = true;
        } else {
            self.now += 4;
            if self.now >= self.next_event {
                self.hw.now = self.now;
                self.hw.process_events(self.ram);
                self.next_event = self.hw.next_event;
                self.recheck = true;
            }
        }
    }

    /// Run `f` on the hardware with its clock up to date, then take back
    /// the event time it may have rescheduled (and the clock, which HALT
    /// moves).
    #[inline(always)]
    fn synced<R>(&mut self, f: impl FnOnce(&mut Hardware, &mut Ram) -> R) -> R {
        self.hw.now = self.now;
        if is_run(STRAIGHT) && self.now >= self.next_event {
            // An earlier slow access of this instruction moved the next
            // event before this M-cycle (see `Bus::slow`).
            self.hw.process_events(self.ram);
        }
        let r = f(self.hw, self.ram);
        self.now = self.hw.now;
        self.next_event = self.hw.next_event;
        self.recheck = true;
        // The access may have switched ROM banks or unmapped the boot ROM.
        self.win_start = NO_WINDOW;
        if is_run(STRAIGHT) {
            self.limit = 0;
            self.slow = true;
        }
        r
    }

    #[inline(always)]
    fn read_at<const IDU: bool>(&mut self, addr: u16) -> u8 {
        // While an OAM DMA runs, every access may collide with it. (The fast
        // path switches to the DMA bus for that time; the reference path
        // asks at every access.)
        if STRAIGHT == DMA_BUS || (REF && self.hw.dma_pending()) {
            // HRAM is on neither bus: the DMA routine's wait loop runs there.
            if let 0xFF80..=0xFFFE = addr {
                return self.ram[HRAM_BASE + (addr - 0xFF80) as usize];
            }
            return self.synced(|hw, ram| hw.cpu_read_dma::<IDU>(ram, addr));
        }
        // The common targets need no clock: ROM, WRAM (and echo), HRAM.
        match addr {
            0x0000..=0x7FFF => self.hw.read_rom(addr),
            0xC000..=0xFDFF => self.ram[(addr & 0x1FFF) as usize],
            0xFF80..=0xFFFE => self.ram[HRAM_BASE + (addr - 0xFF80) as usize],
            _ if is_run(STRAIGHT) => self.straight_io_read::<IDU>(addr),
            _ => self.synced(|hw, ram| hw.cpu_read_idu::<IDU>(ram, addr)),
        }
    }

    /// At the start of the poll loop at ROM offset `off` (see
    /// [`PollLoop`]): if the value the register holds now sends the loop
    /// back, skip the turns that would all read it: those whose reads come
    /// before the PPU's next transition (the only thing that changes STAT
    /// or LY while the loop runs: it writes nothing) and that end before
    /// the next event, so nothing else happens meanwhile; every component
    /// catches up lazily. Leaves PC at the loop, and A and F as the last
    /// skipped turn leaves them. The reference path runs every turn.
    #[inline(never)]
    fn skip_poll_turns(&mut self, cpu: &mut Cpu, off: usize) {
        let Some(poll) = self.code.rom.get(off..off + 6).and_then(PollLoop::decode) else {
            return;
        };
        let hw = &*self.hw;
        // The turn's read comes in its third M-cycle, after three ticks.
        let read = self.now + 12;
        let next = hw.ppu.next_transition();
        // Otherwise `catch_up_ppu` would have work to do at the first read.
        // (Its late-request note needs a transition in the M-cycle of the
        // read; those caught up so far all came by `now`.)
        if next <= read || hw.dma.copied < 160 {
            return;
        }
        let turn = 4 * POLL_TURN_CYCLES;
        // Turns whose reads come before the transition...
        let by_ppu = (next - 1 - read) / turn + 1;
        // ...and that end before the next event.
        let turns = by_ppu.min(self.time_to_skip() / turn);
        if turns == 0 {
            return;
        }
        let v = hw.ppu.read(poll.register);
        let mut after = *cpu;
        if poll.turn(&mut after, v) {
            *cpu = after;
            self.now += turns * turn;
        }
    }

    /// A jump to itself at ROM byte offset `off` (an [`IdleLoop`], with the
    /// CPU running and no interrupt to take): skip its turns that end, with
    /// an instruction's margin, before the next event, the only thing that
    /// can raise an interrupt to leave it. A turn only fetches its own ROM
    /// bytes, so nothing else happens meanwhile; every component catches up
    /// lazily. Not while an OAM DMA runs (its bus conflict changes what
    /// the fetches read). The reference path runs every turn.
    #[inline(never)]
    fn skip_idle_turns(&mut self, cpu: &Cpu, off: usize) {
        let rom = &self.code.rom;
        let Some(idle) = rom
            .get(off..(off + 3).min(rom.len()))
            .and_then(|b| IdleLoop::decode(b, cpu.pc()))
        else {
            return;
        };
        if self.hw.dma.copied < 160 {
            return;
        }
        let turn = 4 * idle.turn_cycles;
        self.now += self.time_to_skip() / turn * turn;
    }

    /// HRAM code where the interpreter rechecks (after a jump or call into
    /// HRAM from a run, or after an event): if it is a [`Countdown`], run
    /// its turns that end, with an instruction's margin, before the next
    /// event at once. They touch nothing but A, F and PC, so nothing else happens
    /// meanwhile; every component catches up lazily. The reference path
    /// runs every turn.
    #[inline(never)]
    fn skip_countdown(&mut self, cpu: &mut Cpu) {
        let at = HRAM_BASE + (cpu.pc() - 0xFF80) as usize;
        let Some(countdown) = Countdown::decode(&self.ram[at..HRAM_BASE + HRAM_SIZE]) else {
            return;
        };
        self.now += 4 * countdown.skip(cpu, self.time_to_skip() / 4);
    }

    /// T-cycles that skipped loop turns may take: up to the next event,
    /// less an instruction's margin (as a run keeps).
    fn time_to_skip(&self) -> u64 {
        self.next_event
            .saturating_sub(self.now + LONGEST_INSTRUCTION + 1)
    }

    /// A slow read inside a straight run. A read switches no bank and
    /// changes neither IE nor the CPU, so the run goes on unless it raised
    /// an interrupt request, ended the frame (reading IF catches every
    /// component up) or moved the next event earlier. Games polling STAT or
    /// LY would otherwise end a run at every poll.
    #[inline(never)]
    fn straight_io_read<const IDU: bool>(&mut self, addr: u16) -> u8 {
        let (intf, next_event, limit, slow) =
            (self.hw.intf, self.next_event, self.limit, self.slow);
        let v = self.synced(|hw, ram| hw.cpu_read_idu::<IDU>(ram, addr));
        if self.hw.intf == intf && self.next_event >= next_event && !self.hw.frame_done {
            self.limit = limit;
            self.slow = slow;
        }
        v
    }

    /// `synced`, out of line, for the slow writes and the OAM-bug cycle of
    /// a straight ROM run: it keeps the run's loop small. Work-RAM runs
    /// keep `synced` inline, which measured better there (bench/README.md,
    /// "Slow writes out of line in ROM runs").
    #[cold]
    #[inline(never)]
    fn synced_out_of_line<R>(&mut self, f: impl FnOnce(&mut Hardware, &mut Ram) -> R) -> R {
        self.synced(f)
    }
}

impl<const REF: bool, const STRAIGHT: u8> Drop for Bus<'_, REF, STRAIGHT> {
    #[inline(always)]
    fn drop(&mut self) {
        self.hw.now = self.now;
    }
}

impl<const REF: bool, const STRAIGHT: u8> CpuBus for Bus<'_, REF, STRAIGHT> {
    const STRAIGHT_RUNS: bool = !REF && (STRAIGHT == NORMAL || STRAIGHT == DMA_BUS);

    #[inline(always)]
    fn run_straight(
        cpu: Cpu,
        bus: Self,
        done: &mut impl FnMut(&mut Self) -> bool,
    ) -> (Cpu, Self, Straight) {
        if Self::STRAIGHT_RUNS {
            return Self::straight_runs(cpu, bus, done);
        }
        (cpu, bus, Straight::Step)
    }

    #[inline(always)]
    fn take_recheck(&mut self) -> bool {
        if self.recheck {
            self.recheck = false;
            true
        } else {
            false
        }
    }

    #[inline(always)]
    fn recheck(&mut self) {
        self.recheck = true;
        if is_run(STRAIGHT) {
            // The CPU changed its mode or IME: the run ends here.
            self.limit = 0;
            self.slow = true;
        }
    }

    #[inline(always)]
    fn read(&mut self, addr: u16) -> u8 {
        self.tick();
        self.read_at::<false>(addr)
    }

    #[inline(always)]
    fn write(&mut self, addr: u16, value: u8) {
        self.tick();
        if STRAIGHT == DMA_BUS || (REF && self.hw.dma_pending()) {
            if let 0xFF80..=0xFFFE = addr {
                self.ram[HRAM_BASE + (addr - 0xFF80) as usize] = value;
                return;
            }
            return self.synced(|hw, ram| hw.cpu_write_dma(ram, addr, value));
        }
        match addr {
            0xC000..=0xFDFF => self.ram[(addr & 0x1FFF) as usize] = value,
            0xFF80..=0xFFFE => self.ram[HRAM_BASE + (addr - 0xFF80) as usize] = value,
            _ if STRAIGHT == ROM_RUN => {
                self.synced_out_of_line(|hw, ram| hw.cpu_write(ram, addr, value))
            }
            _ => self.synced(|hw, ram| hw.cpu_write(ram, addr, value)),
        }
    }

    #[inline(always)]
    fn idle(&mut self) {
        self.tick();
    }

    #[inline(always)]
    fn idle_idu(&mut self, addr: u16) {
        // Test the address before the tick: the same cost, but it measurably
        // keeps the hot opcode arms tighter (bench/README.md, "Figures moved
        // out of the code").
        let oam = addr >> 8 == 0xFE;
        self.tick();
        if oam {
            if STRAIGHT == ROM_RUN {
                self.synced_out_of_line(|hw, ram| hw.oam_bug_idu(ram));
            } else {
                self.synced(|hw, ram| hw.oam_bug_idu(ram));
            }
        }
    }

    #[inline(always)]
    fn read_idu(&mut self, addr: u16) -> u8 {
        self.tick();
        self.read_at::<true>(addr)
    }

    #[inline(always)]
    fn fetch(&mut self, addr: u16) -> u8 {
        self.tick();
        if STRAIGHT == ROM_RUN {
            // A run lies in one bank, mapped for all of it.
            return self.bank[(addr & 0x3FFF) as usize];
        }
        if STRAIGHT == WRAM_RUN {
            let i = addr.wrapping_sub(0xC000) as usize;
            if i < WRAM_SIZE {
                return self.ram[i];
            }
            // The code left work RAM: end after this instruction.
            self.strayed = true;
            self.limit = 0;
            return self.read_at::<true>(addr);
        }
        // The reference path reads every byte through the address decode.
        if !REF && STRAIGHT == NORMAL && addr < 0x8000 {
            self.read_rom(addr)
        } else {
            self.read_at::<true>(addr)
        }
    }

    #[inline(always)]
    fn pending_interrupts(&mut self) -> u8 {
        self.hw.pending()
    }

    #[inline]
    fn pending_at_dispatch(&mut self) -> u8 {
        // The timer's request raised at the end of this M-cycle comes too
        // late for the vector choice made in it.
        self.synced(|hw, _| hw.pending() & !hw.timer_irq_late())
    }

    #[inline(always)]
    fn acknowledge_interrupt(&mut self, mask: u8) {
        self.hw.intf &= !mask;
    }

    #[inline]
    fn halt_idle(&mut self) {
        self.synced(|hw, ram| hw.halt_idle::<REF>(ram));
    }

    #[inline(always)]
    fn stop(&mut self) {
        self.synced(|hw, _| {
            let now = hw.now;
            hw.intf |= hw.timer.catch_up(now);
            let counter = hw.timer.system_counter(now);
            hw.apu.div_reset(now, counter);
            hw.intf |= hw.serial.catch_up(now);
            hw.serial.div_reset(now, counter);
            hw.timer.write(0xFF04, 0, now);
            hw.timer_irq_edge();
            hw.reschedule();
        });
    }

    #[inline(always)]
    fn joypad_pressed(&mut self) -> bool {
        self.hw.joypad.pressed != 0
    }
}

#[cfg(test)]
mod tests {
    use crate::GameBoy;

    /// An MBC1 ROM whose code in bank 1 switches itself out: the opcode
    /// right after the bank-switch write must come from the new bank, even
    /// though the fetch window read it from the old one.
    fn self_switching_rom() -> Vec<u8> {
        let mut rom = vec![0u8; 4 * 0x4000];
        // Header: MBC1, 64 KiB (4 banks).
        rom[0x147] = 0x01;
        rom[0x148] = 0x01;
        // 0x0100: JP 0x4100.
        rom[0x100..0x103].copy_from_slice(&[0xC3, 0x00, 0x41]);
        // Bank 1 at 0x4100: LD A,2; LD (0x2000),A; LD B,0x11; JR -2.
        rom[0x4100..0x410A]
            .copy_from_slice(&[0x3E, 0x02, 0xEA, 0x00, 0x20, 0x06, 0x11, 0x18, 0xFE, 0x00]);
        // Bank 2 at 0x4105: LD B,0x22; JR -2.
        rom[0x8105..0x8109].copy_from_slice(&[0x06, 0x22, 0x18, 0xFE]);
        rom
    }

    #[test]
    fn fetch_window_follows_a_bank_switch() {
        for reference in [false, true] {
            let mut gb = GameBoy::new(&self_switching_rom(), None).unwrap();
            gb.set_reference_mode(reference);
            gb.run_frame(false);
            assert_eq!(gb.registers().b, 0x22, "reference path: {reference}");
        }
    }
}
