//! OAM DMA: the byte-per-M-cycle copy into OAM, OAM blocked while it runs,
//! and its bus conflicts with the CPU (the CPU runs on the
//! [`DMA_BUS`](super::DMA_BUS) meanwhile).

use super::{Hardware, Ram};
use crate::cgb::WRAM_BANK;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Dma {
    /// Source page (high byte of the source address).
    pub(super) source: u8,
    /// Time of the M-cycle in which byte 0 is copied.
    pub(super) start: u64,
    /// Bytes copied so far (160 = done).
    pub(super) copied: u8,
    /// A DMA restarted while another runs keeps OAM blocked until the new
    /// one starts.
    pub(super) block_from: u64,
    /// The end of the M-cycle after the last byte's (`start + 640`; 0 when
    /// no DMA ever ran): until then the CPU runs on the
    /// [`DMA_BUS`](super::DMA_BUS).
    pub(super) end: u64,
}

pub(super) const DMA_IDLE: Dma = Dma {
    source: 0,
    start: u64::MAX,
    copied: 160,
    block_from: u64::MAX,
    end: 0,
};

impl Hardware {
    /// OAM belongs to the DMA unit from `block_from` until the M-cycle after
    /// the last byte is copied.
    #[inline]
    pub(super) fn dma_blocking(&self) -> bool {
        self.now >= self.dma.block_from && self.now < self.dma.start.saturating_add(4 * 160)
    }

    /// Whether an OAM DMA is pending or running: the CPU then runs on the
    /// [`DMA_BUS`](super::DMA_BUS), whose accesses go through
    /// [`Hardware::cpu_read_dma`].
    /// (Until the end of the M-cycle of its last byte, which the DMA's
    /// event may have copied already when the CPU's access comes.)
    /// Time of the M-cycle in which the last OAM DMA copied its byte 0
    /// (`u64::MAX` if none ran).
    pub(crate) fn dma_last_start(&self) -> u64 {
        self.dma.start
    }

    #[inline(always)]
    pub(crate) fn dma_pending(&self) -> bool {
        self.now < self.dma.end
    }

    /// The index of the byte the OAM DMA reads in the current M-cycle, if
    /// it reads one and `addr` lies on the same bus. The DMG has two: the
    /// external bus (cartridge ROM and RAM, work RAM and its echo up to
    /// 0xFDFF) and the video bus (VRAM); OAM, I/O and HRAM are on neither.
    /// A source page of 0xE0 and up reads work RAM through the echo.
    ///
    /// A DMA restarted while another runs takes the new source's bus at
    /// once, in the set-up M-cycles before its first byte too (then the
    /// index is 0: gambatte hwtests oamdma_src8000_srcchange0000_busyinc,
    /// where the opcodes fetched from ROM just after the restart from
    /// 0x0000 are the DMA's zeros, not the program's).
    #[inline]
    fn dma_conflict(&self, addr: u16) -> Option<u8> {
        let video = |a: u16| (0x8000..0xA000).contains(&a);
        if addr >= 0xFE00 || video(addr) != video((self.dma.source as u16) << 8) {
            return None;
        }
        self.dma_index()
    }

    /// The index of the byte the OAM DMA reads in the current M-cycle, if
    /// it reads one (index 0 in a restart's set-up, see
    /// [`Hardware::dma_conflict`]).
    #[inline]
    fn dma_index(&self) -> Option<u8> {
        if self.now < self.dma.block_from {
            return None;
        }
        let i = self.now.saturating_sub(self.dma.start) / 4;
        (i < 160).then_some(i as u8)
    }

    /// A CPU read while an OAM DMA may run. On the bus the DMA uses, the
    /// DMA drives the address lines: the CPU reads the byte the DMA reads
    /// in that M-cycle, wherever it pointed (gambatte hwtests
    /// oamdma_src*_busyread*, oamdma_src*_busypop*). A CGB has rules of its
    /// own ([`Hardware::cgb_read_dma`]).
    #[inline(never)]
    pub(super) fn cpu_read_dma<const IDU: bool>(&mut self, ram: &Ram, addr: u16) -> u8 {
        if self.cgb.is_some() {
            return self.cgb_read_dma::<IDU>(ram, addr);
        }
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
    /// oamdma_srcC000_busypushC001 and the other work RAM sources). A CGB
    /// has rules of its own ([`Hardware::cgb_write_dma`]).
    #[inline(never)]
    pub(super) fn cpu_write_dma(&mut self, ram: &mut Ram, addr: u16, value: u8) {
        if self.cgb.is_some() {
            return self.cgb_write_dma(ram, addr, value);
        }
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
            0xC000.. => value & self.wram_read(ram, src),
            _ => value,
        };
        self.ppu.write_oam(i as usize, byte);
        self.dma.copied = i + 1;
        self.reschedule();
    }

    // ---- OAM DMA -------------------------------------------------------

    pub(super) fn dma_catch_up(&mut self, ram: &Ram, now: u64) {
        if self.dma.copied >= 160 || now < self.dma.start {
            return;
        }
        let due = (((now - self.dma.start) / 4) + 1).min(160) as u8;
        if self.dma.source >= 0xC0 && !self.cgb_dma_blank() {
            // From work RAM (or its echo, up to 0xFF): one contiguous
            // block, copied at once.
            let base = (self.dma.source as usize & 0x1F) << 8;
            let (from, to) = (self.dma.copied as usize, due as usize);
            if from < to {
                // The page's bank: the RAM block's, or a CGB's bank 2-7.
                let page = match self.cgb.as_deref() {
                    Some(c) if self.wramx != 0 && base >= WRAM_BANK => {
                        &c.wram[self.wramx as usize * WRAM_BANK + (base & (WRAM_BANK - 1))..]
                            [..0x100]
                    }
                    _ => &ram[base..base + 0x100],
                };
                self.ppu.write_oam_bytes(from, &page[from..to]);
                self.dma.copied = due;
            }
            return;
        }
        while self.dma.copied < due {
            let i = self.dma.copied;
            let src = (self.dma.source as u16) << 8 | i as u16;
            let v = self.dma_source_byte(ram, src);
            self.ppu.write_oam(i as usize, v);
            self.dma.copied += 1;
        }
    }

    /// What the DMA unit reads at `addr`. Sources at and above 0xE000 reach
    /// WRAM through the echo mirror on the DMG; a CGB reads 0xFF there
    /// ([`Hardware::cgb_dma_blank`]).
    #[inline]
    fn dma_source_byte(&self, ram: &Ram, addr: u16) -> u8 {
        match addr {
            0x0000..=0x7FFF => self.read_rom(addr),
            0x8000..=0x9FFF => self.ppu.vram()[(addr & 0x1FFF) as usize],
            0xA000..=0xBFFF => self.cart.read_ram(addr, self.now),
            0xE000.. if self.cgb.is_some() => 0xFF,
            _ => self.wram_read(ram, addr),
        }
    }

    // ---- The CGB's buses ----------------------------------------------------
    //
    // A CGB's work RAM is on a bus of its own, and what a CPU access meets
    // while an OAM DMA runs depends on the source's region (gambatte
    // hwtests oamdma/*, the cgb04c column; the same rules as gambatte's
    // memory model). By the 4 KiB block of the CPU's address, below 0xFE00:
    //
    // | DMA source page | conflicts with | the CPU reads | the CPU's write |
    // | --- | --- | --- | --- |
    // | ROM, SRAM (0x00-0x7F, 0xA0-0xBF), none (0xE0-0xFF) | ROM, SRAM | the DMA's byte | lands in OAM instead of the DMA's byte; memory and MBC untouched |
    // | the same | WRAM, echo | WRAM at its offset in the bank the DMA's address selects | the same place |
    // | VRAM (0x80-0x9F) | VRAM | the DMA's byte; OAM gets 0 | lost; OAM gets 0 |
    // | WRAM (0xC0-0xDF) | WRAM, echo | the DMA's byte | lost |
    //
    // "None": the CGB's DMA reads 0xFF from 0xE000 and up (no echo). Bit
    // 12 of the DMA's address selects the work RAM bank a colliding CPU
    // access reaches, bank 0 or the SVBK bank, whatever the CPU's address
    // (oamdma_src0000_busypopDFFF and oamdma_src7F00_busypopEFFF: the same
    // pop, different banks).

    /// On a CGB, whether the OAM DMA's source is 0xE000 or above, where it
    /// reads 0xFF (gambatte hwtests oamdma_srcE000_readFE00,
    /// oamdma_srcFF00_busyread0000).
    #[inline]
    fn cgb_dma_blank(&self) -> bool {
        self.dma.source >= 0xE0 && self.cgb.is_some()
    }

    /// On a CGB, the index of the DMA's byte if a CPU access at `addr`
    /// meets the DMA now (the table above).
    #[inline]
    fn cgb_dma_conflict(&self, addr: u16) -> Option<u8> {
        let blocks: u16 = match self.dma.source {
            0x80..=0x9F => 0x0300,
            0xC0..=0xDF => 0xF000,
            _ => 0xFCFF,
        };
        if addr >= 0xFE00 || blocks >> (addr >> 12) & 1 == 0 {
            return None;
        }
        self.dma_index()
    }

    /// Where a CPU access to work RAM goes while an OAM DMA from the
    /// cartridge (or 0xE000 and up) runs on a CGB: its offset in the 4 KiB
    /// bank that bit 12 of the DMA's address selects (bank 0 or the SVBK
    /// bank), as the work RAM address that reaches it.
    #[inline]
    fn cgb_dma_wram_addr(&self, addr: u16) -> u16 {
        0xC000 | (self.dma.source as u16 & 0x10) << 8 | (addr & 0x0FFF)
    }

    /// [`Hardware::cpu_read_dma`] on a CGB (the table above).
    fn cgb_read_dma<const IDU: bool>(&mut self, ram: &Ram, addr: u16) -> u8 {
        let Some(i) = self.cgb_dma_conflict(addr) else {
            return self.cpu_read_idu::<IDU>(ram, addr);
        };
        let source = self.dma.source;
        if addr >= 0xC000 && !(0xC0..=0xDF).contains(&source) {
            return self.wram_read(ram, self.cgb_dma_wram_addr(addr));
        }
        self.dma_catch_up(ram, self.now);
        let byte = self.dma_source_byte(ram, (source as u16) << 8 | i as u16);
        if (0x80..=0x9F).contains(&source) && self.now >= self.dma.start {
            self.ppu.write_oam(i as usize, 0);
        }
        byte
    }

    /// [`Hardware::cpu_write_dma`] on a CGB (the table above).
    fn cgb_write_dma(&mut self, ram: &mut Ram, addr: u16, value: u8) {
        let Some(i) = self.cgb_dma_conflict(addr) else {
            return self.cpu_write(ram, addr, value);
        };
        let source = self.dma.source;
        if addr >= 0xC000 {
            if !(0xC0..=0xDF).contains(&source) {
                self.wram_write(ram, self.cgb_dma_wram_addr(addr), value);
            }
            return;
        }
        if self.now < self.dma.start {
            // A restart's set-up: the write is lost, nothing is copied yet.
            return;
        }
        self.dma_catch_up(ram, self.now - 4);
        let byte = if (0x80..=0x9F).contains(&source) {
            0
        } else {
            value
        };
        self.ppu.write_oam(i as usize, byte);
        self.dma.copied = i + 1;
        self.reschedule();
    }

    pub(super) fn start_dma(&mut self, ram: &Ram, value: u8) {
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
}
