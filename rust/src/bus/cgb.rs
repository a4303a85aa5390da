//! The CGB's I/O registers on the machine (KEY1, HDMA1-5, RP, SVBK,
//! FF72-FF77; the PPU's VBK, palettes and OPRI are in `ppu/cgb.rs`), the
//! VRAM DMA (HDMA), the speed switch and the clock the PPU and APU count
//! in after one.
//!
//! Reached only through the I/O arms where a DMG reads 0xFF and ignores
//! writes (`Hardware::read_io`, `write_io`), 0xFEA0-0xFEFF (memory on a
//! CGB, `Hardware::read_unusable`), the STOP instruction
//! (`Hardware::stop`) and the HBlank DMA's flag in `process_events`: a DMG
//! runs none of this.

use super::{Hardware, Ram};
use crate::cgb::{unusable_index, CgbHw, Model, NO_LINE};

/// M-cycles the CPU waits for one 16-byte HDMA block in normal speed (the
/// copy takes the same real time in double speed: twice the M-cycles).
const HDMA_BLOCK_MCYCLES: u64 = 8;
/// M-cycles a speed switch keeps the CPU stopped (Pan Docs, KEY1: "about
/// 2050 M-cycles").
const SPEED_SWITCH_MCYCLES: u64 = 2050;

impl Hardware {
    /// Make this a CGB as its boot ROM leaves it for `rom` (CGB mode or DMG
    /// compatibility mode, with the compatibility palettes the boot ROM
    /// picks for `rom`), or, when it runs a boot ROM, as it powers on (in
    /// CGB mode until the boot ROM selects the mode, `Hardware::end_boot`).
    pub(crate) fn make_cgb(&mut self, rom: &[u8]) {
        let mut cgb = CgbHw::post_boot(rom);
        if self.boot_end != 0 {
            cgb.cgb_mode = true;
        }
        let compat = crate::cgb::compat_palettes(rom);
        self.ppu.make_cgb(cgb.cgb_mode, &compat);
        self.apu.make_cgb();
        self.cgb = Some(Box::new(cgb));
    }

    /// A read of 0xFEA0-0xFEFF where OAM is accessible: 0x00 on a DMG, the
    /// memory there on a CGB ([`CgbHw::unusable`]).
    pub(super) fn read_unusable(&self, addr: u16) -> u8 {
        self.cgb
            .as_ref()
            .map_or(0, |c| c.unusable[unusable_index(addr)])
    }

    /// A write to 0xFEA0-0xFEFF where OAM is accessible (lost on a DMG).
    pub(super) fn write_unusable(&mut self, addr: u16, value: u8) {
        if let Some(c) = &mut self.cgb {
            c.unusable[unusable_index(addr)] = value;
        }
    }

    /// Heap bytes of a CGB's own state (its work RAM banks); 0 on a DMG.
    pub fn cgb_heap_bytes(&self) -> usize {
        self.cgb
            .as_ref()
            .map_or(0, |c| std::mem::size_of::<CgbHw>() + c.wram.len())
    }

    /// The model this machine is.
    pub fn model(&self) -> Model {
        if self.cgb.is_some() {
            Model::Cgb
        } else {
            Model::Dmg
        }
    }

    /// Whether this is a CGB running in CGB mode (not in DMG compatibility
    /// mode, not a DMG).
    pub fn cgb_mode(&self) -> bool {
        self.cgb.as_ref().is_some_and(|c| c.cgb_mode)
    }

    /// The dot clock of the PPU and APU at CPU time `t`: the same clock
    /// until a CGB switches speed (`CgbHw::dots`).
    #[inline(always)]
    pub(crate) fn dots_at(&self, t: u64) -> u64 {
        if self.speed_mapped {
            self.mapped_dots(t)
        } else {
            t
        }
    }

    #[cold]
    #[inline(never)]
    fn mapped_dots(&self, t: u64) -> u64 {
        self.cgb.as_ref().map_or(t, |c| c.dots(t))
    }

    /// The CPU time at which the dot clock reaches `dots`.
    #[inline(always)]
    pub(crate) fn cpu_time_of(&self, dots: u64) -> u64 {
        if self.speed_mapped {
            self.mapped_cpu_time(dots)
        } else {
            dots
        }
    }

    #[cold]
    #[inline(never)]
    fn mapped_cpu_time(&self, dots: u64) -> u64 {
        self.cgb.as_ref().map_or(dots, |c| c.cpu_time(dots))
    }

    /// Bring the components behind a CGB register up to date (PPU: VBK,
    /// palettes, HDMA; APU: PCM12/34).
    #[cold]
    #[inline(never)]
    pub(super) fn catch_up_cgb_io(&mut self, addr: u16, ram: &Ram) {
        self.catch_up_ppu(ram);
        if let 0xFF76 | 0xFF77 = addr {
            let (t, counter) = self.apu_clock(self.now);
            self.apu.catch_up(t, counter);
        }
    }

    /// A read of an I/O register a DMG does not have (0xFF on a DMG, and
    /// for the registers a CGB lacks too). The caller has caught up.
    #[cold]
    #[inline(never)]
    pub(super) fn read_cgb_io(&self, addr: u16) -> u8 {
        let Some(c) = self.cgb.as_deref() else {
            return 0xFF;
        };
        if let Some(v) = self.ppu.read_cgb(addr) {
            if matches!(addr, 0xFF4F | 0xFF68..=0xFF6C) {
                return v;
            }
        }
        let cgb = c.cgb_mode;
        match addr {
            0xFF4D if cgb => 0x7E | (c.double as u8) << 7 | c.key1_armed as u8,
            // Bit 7 clear while an HBlank DMA runs; the blocks left less one.
            0xFF55 if cgb => (!c.hdma.hblank as u8) << 7 | c.hdma.blocks,
            // Bit 1: no infrared light seen (with reading enabled).
            0xFF56 if cgb => 0x3C | c.rp | if c.rp & 0xC0 == 0xC0 { 2 } else { 0 },
            0xFF70 if cgb => 0xF8 | c.svbk,
            0xFF72 => c.ff72,
            0xFF73 => c.ff73,
            0xFF74 if cgb => c.ff74,
            0xFF75 => 0x8F | c.ff75,
            0xFF76 | 0xFF77 => self.apu.pcm(addr == 0xFF77, self.apu_clock(self.now).0),
            _ => 0xFF,
        }
    }

    /// SVBK written in CGB mode: the work RAM bank at 0xD000 (`value & 7`,
    /// 0 meaning 1).
    pub(crate) fn set_svbk(&mut self, value: u8) {
        if let Some(c) = self.cgb.as_deref_mut() {
            c.svbk = value & 7;
        }
        self.map_wram_bank();
    }

    /// A write to an I/O register a DMG does not have (ignored on a DMG).
    #[cold]
    #[inline(never)]
    pub(super) fn write_cgb_io(&mut self, ram: &mut Ram, addr: u16, value: u8) {
        if self.cgb.is_none() || self.ppu.write_cgb(addr, value) {
            return;
        }
        let Some(c) = self.cgb.as_deref_mut() else {
            return;
        };
        if !c.cgb_mode {
            // DMG compatibility mode: only these stay writable.
            match addr {
                0xFF72 => c.ff72 = value,
                0xFF73 => c.ff73 = value,
                0xFF75 => c.ff75 = value & 0x70,
                _ => {}
            }
            return;
        }
        match addr {
            // KEY0: writable while the boot ROM is mapped; it selects the
            // mode at the write to FF50 (`Hardware::end_boot`).
            0xFF4C if self.boot_end != 0 => c.key0 = value,
            0xFF4D => c.key1_armed = value & 1 != 0,
            0xFF51 => c.hdma.src = (c.hdma.src & 0x00F0) | (value as u16) << 8,
            0xFF52 => c.hdma.src = (c.hdma.src & 0xFF00) | (value & 0xF0) as u16,
            0xFF53 => c.hdma.dst = (c.hdma.dst & 0x00F0) | ((value & 0x1F) as u16) << 8,
            0xFF54 => c.hdma.dst = (c.hdma.dst & 0x1F00) | (value & 0xF0) as u16,
            0xFF55 => self.hdma_write(ram, value),
            0xFF56 => c.rp = value & 0xC1,
            0xFF70 => self.set_svbk(value),
            0xFF72 => c.ff72 = value,
            0xFF73 => c.ff73 = value,
            0xFF74 => c.ff74 = value,
            0xFF75 => c.ff75 = value & 0x70,
            _ => {}
        }
    }

    // ---- HDMA ---------------------------------------------------------------

    /// A write to HDMA5 (FF55): bit 7 clear starts a general-purpose DMA
    /// (every block at once, the CPU waiting) or stops a running HBlank
    /// DMA; bit 7 set starts an HBlank DMA (a block each HBlank).
    fn hdma_write(&mut self, ram: &mut Ram, value: u8) {
        let Some(c) = self.cgb.as_deref_mut() else {
            return;
        };
        if value & 0x80 == 0 {
            if c.hdma.hblank {
                // Stopped: FF55 reads the blocks left with bit 7 set.
                c.hdma.hblank = false;
                self.ppu.set_hdma_wake(false);
                self.reschedule();
                return;
            }
            c.hdma.blocks = value & 0x7F;
            let blocks = c.hdma.blocks as u64 + 1;
            for _ in 0..blocks {
                self.hdma_copy_block(ram);
            }
            self.hdma_stall(ram, blocks);
            return;
        }
        c.hdma.blocks = value & 0x7F;
        c.hdma.hblank = true;
        self.ppu.set_hdma_wake(true);
        self.reschedule();
        // Started in HBlank or with the LCD off: a block goes at once.
        if !self.ppu.lcd_on() || (self.ppu.mode() == 0 && self.ppu.ly() < 144) {
            self.hdma_hblank_block(ram);
        }
    }

    /// Copy one 16-byte block from the HDMA source into VRAM (the bank VBK
    /// selects) and advance the addresses and the count (`blocks` wrapping
    /// past 0 ends the transfer: FF55 then reads 0xFF).
    fn hdma_copy_block(&mut self, ram: &Ram) {
        let Some(c) = self.cgb.as_deref() else {
            return;
        };
        let (src, dst) = (c.hdma.src, c.hdma.dst);
        self.ppu.flush_line();
        for i in 0..16u16 {
            let a = src.wrapping_add(i);
            let v = match a {
                // VRAM as a source reads garbage on hardware; 0xFF here.
                0x8000..=0x9FFF => 0xFF,
                0xE000..=0xFFFF => self.cart.read_ram(a - 0x4000, self.now),
                _ => self.peek(ram, a),
            };
            let index = ((dst + i) & 0x1FFF) as usize;
            let bank = self.ppu.vram_bank();
            self.ppu.write_vram_bank(bank, index, v);
        }
        if let Some(c) = self.cgb.as_deref_mut() {
            c.hdma.src = src.wrapping_add(16);
            c.hdma.dst = (dst + 16) & 0x1FF0;
            let (left, done) = c.hdma.blocks.overflowing_sub(1);
            c.hdma.blocks = left & 0x7F;
            if done {
                c.hdma.hblank = false;
            }
        }
    }

    /// The CPU waits while `blocks` blocks are copied: the machine runs on
    /// for that long (8 M-cycles a block in normal speed, 16 in double).
    fn hdma_stall(&mut self, ram: &Ram, blocks: u64) {
        let double = self.cgb.as_ref().is_some_and(|c| c.double);
        let mcycles = blocks * (HDMA_BLOCK_MCYCLES << double as u32);
        self.stall(ram, mcycles);
    }

    /// The machine runs `mcycles` M-cycles with the CPU held.
    fn stall(&mut self, ram: &Ram, mcycles: u64) {
        for _ in 0..mcycles {
            if self.reference() {
                self.tick::<true>(ram);
            } else {
                self.tick::<false>(ram);
            }
        }
    }

    /// An HBlank of lines 0-143 began while an HBlank DMA runs
    /// (`Ppu::hdma_hit`): one block, the CPU waiting for it.
    /// While the CPU is halted the block does not go (HDMA is inactive
    /// during HALT: gambatte's hardware findings, commit 35d2db5 "hdma
    /// halt/speed change re work"); it is marked missed instead.
    #[cold]
    #[inline(never)]
    pub(super) fn hdma_hblank_block(&mut self, ram: &Ram) {
        self.ppu.hdma_hit = false;
        match self.cgb.as_deref_mut() {
            Some(c) if c.hdma.hblank => {
                if c.hdma.halted {
                    c.hdma.missed = self.ppu.ly();
                    return;
                }
                c.hdma.missed = NO_LINE;
            }
            _ => return,
        }
        self.hdma_copy_block(ram);
        if !self.cgb.as_ref().is_some_and(|c| c.hdma.hblank) {
            self.ppu.set_hdma_wake(false);
        }
        self.reschedule();
        self.hdma_stall(ram, 1);
    }

    /// The CPU halts (`on`) or stops halting (a span of `halt_idle`).
    #[inline]
    pub(super) fn hdma_halted(&mut self, on: bool) {
        if let Some(c) = self.cgb.as_deref_mut() {
            c.hdma.halted = on;
        }
    }

    /// The CPU is about to wake from HALT (an interrupt is pending): an
    /// HBlank that began while it was halted gives its block now if the
    /// PPU is still in that HBlank, on the same line (gambatte's findings:
    /// HDMA triggers on unhalt when HALT began outside mode 0 and the CPU
    /// wakes in mode 0; a mode-0 STAT interrupt wakes it at the HBlank's
    /// start, when STAT still reads mode 3 for a few dots).
    #[cold]
    #[inline(never)]
    pub(super) fn hdma_unhalt(&mut self, ram: &Ram) {
        let Some(c) = self.cgb.as_deref_mut() else {
            return;
        };
        let missed = std::mem::replace(&mut c.hdma.missed, NO_LINE);
        if missed != NO_LINE && c.hdma.hblank && self.ppu.lcd_on() && self.ppu.ly() == missed {
            self.hdma_hblank_block(ram);
        }
    }

    // ---- Speed switch -------------------------------------------------------

    /// STOP is about to run (`CpuBus::speed_switch`): on a CGB in CGB mode
    /// with a switch armed (KEY1 bit 0) the speed changes, the CPU waiting
    /// meanwhile, and `true` is returned; otherwise nothing happens.
    pub(crate) fn speed_switch(&mut self, ram: &Ram) -> bool {
        let armed = self
            .cgb
            .as_ref()
            .is_some_and(|c| c.cgb_mode && c.key1_armed);
        if armed {
            self.switch_speed(ram);
        }
        armed
    }

    #[cold]
    #[inline(never)]
    fn switch_speed(&mut self, ram: &Ram) {
        // Everything on the dot clock is brought up to now on the old speed.
        self.catch_up_all(ram);
        self.reset_div();
        let now = self.now;
        let dots = self.dots_at(now);
        if let Some(c) = self.cgb.as_deref_mut() {
            c.key1_armed = false;
            c.double = !c.double;
            c.cpu_base = now;
            c.dot_base = dots;
        }
        self.speed_mapped = true;
        self.reschedule();
        self.stall(ram, SPEED_SWITCH_MCYCLES);
    }
}
