//! The event scheduler: each component's next event, the earliest of them
//! (`next_event`), and what happens when time reaches it; catch-up of the
//! components, the per-M-cycle tick (fast and reference path), HALT
//! fast-forward, deadlines and frame ends.

use super::{Hardware, Ram};
use crate::clock::FRAME_CYCLES as DOTS_PER_FRAME;

impl Hardware {
    /// Recompute every component's next event and the earliest of them.
    #[inline]
    pub(super) fn reschedule(&mut self) {
        // The timer's event comes one M-cycle before its reload, when its
        // interrupt request is raised (`timer_irq_edge`).
        let ev = self.timer.next_event();
        self.ev_timer = if ev == u64::MAX { ev } else { ev - 4 };
        self.ev_ppu = if self.ppu.lcd_on() {
            // The PPU counts dots: its time on the CPU's clock (the same
            // clock until a CGB switches speed).
            self.cpu_time_of(self.ppu.next_event())
        } else {
            // With the LCD off, frames are counted by time.
            self.frame_start.saturating_add(self.frame_cycles())
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

    /// A frame's length on the CPU clock: 70,224 T-cycles, twice that in a
    /// CGB's double speed.
    #[inline(always)]
    pub(super) fn frame_cycles(&self) -> u64 {
        if self.speed_mapped && self.cgb.as_ref().is_some_and(|c| c.double) {
            2 * DOTS_PER_FRAME
        } else {
            DOTS_PER_FRAME
        }
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
        } else if !self.ppu.lcd_on() && now >= self.frame_start + self.frame_cycles() {
            self.frame_done = true;
            self.run_break = true;
            self.frame_start += self.frame_cycles();
        }
    }

    /// The APU's clock and the system counter as it sees it: in a CGB's
    /// double speed the counter runs twice as fast and the frame sequencer
    /// follows its bit 13 instead of 12, so the APU gets it halved.
    #[inline(always)]
    pub(super) fn apu_clock(&self, now: u64) -> (u64, u16) {
        let counter = self.timer.system_counter(now);
        if self.speed_mapped {
            let double = self.cgb.as_ref().is_some_and(|c| c.double);
            (self.dots_at(now), counter >> double as u32)
        } else {
            (now, counter)
        }
    }

    /// Bring the component behind an I/O address up to date.
    #[inline]
    pub(super) fn catch_up_io(&mut self, addr: u16, ram: &Ram) {
        let now = self.now;
        match addr {
            0xFF01 | 0xFF02 => self.intf |= self.serial.catch_up(now),
            0xFF04..=0xFF07 => self.intf |= self.timer.catch_up(now),
            0xFF10..=0xFF3F => {
                let (t, counter) = self.apu_clock(now);
                self.apu.catch_up(t, counter);
            }
            0xFF40..=0xFF4B => self.catch_up_ppu(ram),
            0xFF0F => self.catch_up_all(ram),
            // A CGB's registers (VBK, HDMA, palettes, PCM12/34...).
            _ if self.cgb.is_some() => self.catch_up_cgb_io(addr, ram),
            _ => {}
        }
    }

    /// Bring the components whose event is due up to `now`.
    pub(super) fn process_events(&mut self, ram: &Ram) {
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
        if self.ppu.hdma_hit {
            self.hdma_hblank_block(ram);
        }
    }

    /// Bring every component up to `now` (between frames, before peeking,
    /// after IF is read).
    pub(super) fn catch_up_all(&mut self, ram: &Ram) {
        let now = self.now;
        if self.apu.sound_on() {
            let (t, counter) = self.apu_clock(now);
            self.apu.catch_up(t, counter);
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
    pub(super) fn catch_up_ppu(&mut self, ram: &Ram) {
        self.catch_up_ppu_with::<false>(ram);
    }

    /// `catch_up_ppu`, the PPU noting the STAT inputs before the transitions
    /// of the current M-cycle (`Ppu::catch_up_with`), for a STAT or LYC
    /// write in it.
    #[inline(never)]
    pub(super) fn catch_up_ppu_noting(&mut self, ram: &Ram) {
        self.catch_up_ppu_with::<true>(ram);
    }

    #[inline]
    fn catch_up_ppu_with<const NOTE: bool>(&mut self, ram: &Ram) {
        // The quick exit is inlined into the callers; the work is not.
        if self.dma.copied >= 160
            && self.cpu_time_of(self.ppu.next_transition()) > self.now
            && !(self.ppu.late_irq != 0 && self.ppu.late_irq_at == self.dots_at(self.now))
        {
            return;
        }
        self.catch_up_ppu_work::<NOTE>(ram);
    }

    #[inline(never)]
    fn catch_up_ppu_work<const NOTE: bool>(&mut self, ram: &Ram) {
        // The PPU's clock (the CPU's, until a CGB switches speed).
        let dots = self.dots_at(self.now);
        let before = self.intf;
        // While a DMA runs, interleave it with the PPU's transitions so the
        // OAM scan and the pixels see the bytes copied by then, no later.
        if self.dma.copied < 160 {
            self.ppu.flush_line();
        }
        while self.dma.copied < 160 && self.ppu.next_transition() <= dots {
            let t = self.ppu.next_transition();
            self.dma_catch_up(ram, self.cpu_time_of(t));
            self.intf |= self.ppu.catch_up_with::<NOTE>(t);
        }
        if self.dma.copied < 160 {
            self.dma_catch_up(ram, self.now);
        }
        self.intf |= self.ppu.catch_up_with::<NOTE>(dots);
        if self.ppu.late_irq_at == dots && self.ppu.late_irq != 0 {
            self.note_late_ppu_irq(before);
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
        if self.ppu.hdma_hit {
            self.hdma_hblank_block(ram);
        }
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
        let cgb = self.cgb.is_some();
        if cgb {
            self.hdma_halted(true);
        }
        self.halt_ticks::<REF>(ram);
        if cgb {
            self.hdma_halted(false);
            if self.pending() != 0 {
                self.hdma_unhalt(ram);
            }
        }
    }

    /// [`Hardware::halt_idle`]'s ticks.
    #[inline]
    fn halt_ticks<const REF: bool>(&mut self, ram: &Ram) {
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
}
