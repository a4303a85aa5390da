//! The Game Boy Color: which machine a [`crate::GameBoy`] is ([`Model`]),
//! and the state only a CGB has beside the CPU ([`CgbHw`]: KEY0/KEY1, work
//! RAM banks, HDMA, the undocumented registers).
//!
//! The model is fixed when a machine is built. A DMG has no CGB state at
//! all (`Hardware::cgb` and `Ppu::cgb` are `None`), and every CGB-only path
//! lives where the DMG already takes a slow path (an I/O register access, a
//! VRAM access, a line being drawn), so a DMG game runs the same code as
//! before the CGB existed (docs/design.md, "The Game Boy Color").
//!
//! Work RAM banks: banks 0 and 1 live in the machine's RAM block (`Ram`,
//! the one the CPU's fast accesses and the batched engine's NumPy views
//! use), banks 2-7 here. An SVBK write moves no bytes: while it maps one of
//! banks 2-7, accesses to 0xD000-0xDFFF reach it here
//! (`Hardware::wramx`); so the RAM block's 0xD000-0xDFFF is always bank 1.

mod compat;

pub use compat::{
    compat_palette_id, compat_palettes, nintendo_licensed, palettes_of_id, title_checksum,
};

use crate::bus::Ram;
use crate::error::{Error, Result};
use crate::state::{StateReader, StateWriter};

/// Which machine runs the cartridge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Model {
    /// The original Game Boy (DMG-CPU B).
    Dmg,
    /// The Game Boy Color (CPU CGB D/E): in CGB mode for a cartridge whose
    /// header byte 0x143 has bit 7 set, in DMG compatibility mode otherwise.
    Cgb,
}

impl Model {
    /// What `"auto"` picks: the CGB for a cartridge whose header byte 0x143
    /// has bit 7 set (0x80: colour enhanced, 0xC0: colour only), the DMG
    /// otherwise; PyBoy's `cgb=None` decides the same way.
    pub fn auto(rom: &[u8]) -> Model {
        if rom.get(0x143).is_some_and(|b| b & 0x80 != 0) {
            Model::Cgb
        } else {
            Model::Dmg
        }
    }

    /// `"auto"`, `"dmg"` or `"cgb"` (case-insensitive) for `rom`.
    pub fn from_name(name: &str, rom: &[u8]) -> Result<Model> {
        match name.to_ascii_lowercase().as_str() {
            "auto" => Ok(Model::auto(rom)),
            "dmg" => Ok(Model::Dmg),
            "cgb" => Ok(Model::Cgb),
            _ => Err(Error::InvalidArgument(format!(
                "model must be \"auto\", \"dmg\" or \"cgb\", got {name:?}"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Model::Dmg => "dmg",
            Model::Cgb => "cgb",
        }
    }
}

/// Whether a CGB runs `rom` in CGB mode (header byte 0x143 bit 7) rather
/// than in DMG compatibility mode (what the boot ROM writes to KEY0).
pub fn cgb_mode_for(rom: &[u8]) -> bool {
    Model::auto(rom) == Model::Cgb
}

/// HDMA (FF51-FF55): the VRAM DMA's registers and progress.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hdma {
    /// Source address (FF51/FF52; low nibble 0), advanced as blocks copy.
    pub src: u16,
    /// Destination in VRAM, 0x0000-0x1FF0 (FF53/FF54), advanced likewise.
    pub dst: u16,
    /// Blocks of 16 bytes left, less one (FF55 bits 0-6).
    pub blocks: u8,
    /// An HBlank DMA is running: a block at each HBlank of lines 0-143.
    pub hblank: bool,
    /// The line (LY) whose HBlank began while the CPU was halted, so its
    /// block did not go ([`NO_LINE`]: none): HDMA is inactive during HALT,
    /// and the block goes if the CPU wakes within that HBlank (see
    /// `Hardware::hdma_unhalt`).
    pub missed: u8,
    /// The CPU is halted (set for the span of `Hardware::halt_idle`; never
    /// set when a state is saved). Transient.
    pub halted: bool,
}

/// The CGB's own hardware state beside the CPU (the PPU keeps its part,
/// `ppu::cgb`): one per CGB machine, boxed so a DMG's `Hardware` only
/// holds an empty pointer.
#[derive(Clone)]
pub struct CgbHw {
    /// CGB mode (KEY0 as the boot ROM left it); `false`: DMG compatibility
    /// mode, in which the CGB's registers are locked.
    pub cgb_mode: bool,
    /// KEY1 bit 0: a speed switch is armed for the next STOP.
    pub key1_armed: bool,
    /// SVBK as written (bits 0-2; 0 selects bank 1).
    pub svbk: u8,
    /// Work RAM banks 0-7, 4 KiB each, indexed by bank; banks 0 and 1 live
    /// in the machine's `Ram` instead (their places here stay zero).
    pub wram: Box<[u8; 0x8000]>,
    pub hdma: Hdma,
    /// RP (FF56), infrared port: bits 0 and 6-7 as written.
    pub rp: u8,
    /// FF72-FF75: undocumented registers (FF74 only in CGB mode, FF75
    /// bits 4-6 only).
    pub ff72: u8,
    pub ff73: u8,
    pub ff74: u8,
    pub ff75: u8,
    /// Double-speed bookkeeping: the CPU clock (`Hardware::now`, 4 T-cycles
    /// an M-cycle in both speeds) and the dot clock of the PPU and APU agree
    /// as `dots = dot_base + (now - cpu_base) >> double` since the last
    /// switch.
    pub double: bool,
    pub cpu_base: u64,
    pub dot_base: u64,
    /// 0xFEA0-0xFEFF, which a DMG reads as 0x00: memory on a CGB of
    /// revision C, where address bits 3 and 4 are not decoded (24 bytes,
    /// each at four addresses; SameBoy's CGB-C; gambatte hwtests
    /// oamdma_src*_busypushFF01 and _busypushFEA1, cgb04c column). Indexed
    /// by `addr - 0xFEA0` with those bits clear ([`unusable_index`]).
    pub unusable: [u8; 0x60],
    /// KEY0 (FF4C) as the boot ROM wrote it (0 without one): bits 2-3
    /// select the mode at the boot ROM's end (`Hardware::end_boot`).
    pub key0: u8,
    /// Set by loading a state saved before banks 2-7 stayed here (section
    /// "CGB1", whose RAM block held the mapped bank):
    /// [`CgbHw::finish_load`] moves that bank here and bank 1 back.
    /// Transient.
    legacy_bank: Option<usize>,
}

/// The index in [`CgbHw::unusable`] of an address in 0xFEA0-0xFEFF.
#[inline]
pub fn unusable_index(addr: u16) -> usize {
    ((addr & !0x18) - 0xFEA0) as usize
}

/// [`Hdma::missed`] when no HBlank's block was missed.
pub const NO_LINE: u8 = 0xFF;

/// Bytes of one work RAM bank.
pub const WRAM_BANK: usize = 0x1000;

impl CgbHw {
    /// The state the boot ROM leaves for `rom` (CGB or compatibility mode).
    pub fn post_boot(rom: &[u8]) -> CgbHw {
        CgbHw {
            cgb_mode: cgb_mode_for(rom),
            key1_armed: false,
            svbk: 0,
            wram: Box::new([0; 0x8000]),
            hdma: Hdma {
                src: 0xFFF0,
                dst: 0x1FF0,
                blocks: 0x7F,
                hblank: false,
                missed: NO_LINE,
                halted: false,
            },
            rp: 0,
            ff72: 0,
            ff73: 0,
            ff74: 0,
            ff75: 0,
            double: false,
            cpu_base: 0,
            dot_base: 0,
            unusable: [0; 0x60],
            key0: 0,
            legacy_bank: None,
        }
    }

    /// The bank mapped at 0xD000 (1-7).
    #[inline]
    pub fn wram_bank(&self) -> usize {
        match self.svbk & 7 {
            0 => 1,
            b => b as usize,
        }
    }

    /// The bytes of work RAM bank `bank` (0-7): banks 0 and 1 in `ram`,
    /// the others here.
    pub fn wram_bank_bytes<'a>(&'a self, ram: &'a Ram, bank: usize) -> &'a [u8] {
        let bank = bank & 7;
        if bank < 2 {
            &ram[bank * WRAM_BANK..(bank + 1) * WRAM_BANK]
        } else {
            &self.wram[bank * WRAM_BANK..(bank + 1) * WRAM_BANK]
        }
    }

    /// Write a byte of work RAM bank `bank` (0-7) where it lives.
    pub fn poke_wram_bank(&mut self, ram: &mut Ram, bank: usize, offset: usize, value: u8) {
        let (bank, offset) = (bank & 7, offset & (WRAM_BANK - 1));
        if bank < 2 {
            ram[bank * WRAM_BANK + offset] = value;
        } else {
            self.wram[bank * WRAM_BANK + offset] = value;
        }
    }

    /// After a state's RAM block is in `ram`: a state of the older layout
    /// ([`CgbHw::legacy_bank`]) had the mapped bank there, and bank 1 here.
    pub fn finish_load(&mut self, ram: &mut Ram) {
        if let Some(bank) = self.legacy_bank.take() {
            let mapped = &mut ram[WRAM_BANK..2 * WRAM_BANK];
            let (low, high) = self.wram.split_at_mut(bank * WRAM_BANK);
            high[..WRAM_BANK].copy_from_slice(mapped);
            mapped.copy_from_slice(&low[WRAM_BANK..2 * WRAM_BANK]);
            low[WRAM_BANK..2 * WRAM_BANK].fill(0);
        }
    }

    /// The dot clock at CPU time `now` (see [`CgbHw::double`]).
    #[inline]
    pub fn dots(&self, now: u64) -> u64 {
        self.dot_base + ((now - self.cpu_base) >> self.double as u32)
    }

    /// The first CPU time at which the dot clock reaches `dots` (u64::MAX
    /// stays u64::MAX).
    #[inline]
    pub fn cpu_time(&self, dots: u64) -> u64 {
        if dots == u64::MAX {
            return u64::MAX;
        }
        match dots.checked_sub(self.dot_base) {
            Some(d) => self.cpu_base.saturating_add(d << self.double as u32),
            // Already passed (a time before the last switch).
            None => self
                .cpu_base
                .saturating_sub((self.dot_base - dots) << self.double as u32),
        }
    }

    /// Save the CGB section: every field that is state, and the work RAM
    /// banks that do not live in the RAM block.
    pub fn save(&self, w: &mut StateWriter) {
        w.begin_section(b"CGB2");
        w.bool(self.cgb_mode);
        w.bool(self.key1_armed);
        w.u8(self.svbk);
        // Banks 0 and 1 live in the RAM section: their places here are
        // zeros (kept so), so that equal machines save equal bytes.
        w.raw(&self.wram[..]);
        w.u16(self.hdma.src);
        w.u16(self.hdma.dst);
        w.u8(self.hdma.blocks);
        w.bool(self.hdma.hblank);
        for v in [self.rp, self.ff72, self.ff73, self.ff74, self.ff75] {
            w.u8(v);
        }
        w.bool(self.double);
        w.u64(self.cpu_base);
        w.u64(self.dot_base);
        w.raw(&self.unusable);
        w.u8(self.key0);
        w.u8(self.hdma.missed);
        w.end_section();
    }

    /// Load the CGB section ("CGB2", or "CGB1" of the older layout: see
    /// [`CgbHw::finish_load`], which must follow once the RAM block is in).
    /// `any_mode`: take the state's CGB mode (a machine whose boot ROM
    /// selects it); otherwise it must be this machine's.
    pub fn load(&mut self, r: &mut StateReader, now: u64, any_mode: bool) -> Result<()> {
        let legacy = r.peek_tag() == Some(*b"CGB1");
        r.begin_section(if legacy { b"CGB1" } else { b"CGB2" })?;
        let cgb_mode = r.bool()?;
        if any_mode {
            self.cgb_mode = cgb_mode;
        } else if cgb_mode != self.cgb_mode {
            return Err(Error::InvalidState(
                "state was saved in the other CGB mode (CGB vs DMG compatibility)".into(),
            ));
        }
        self.key1_armed = r.bool()?;
        self.svbk = r.u8()? & 7;
        self.wram.copy_from_slice(r.raw(0x8000)?);
        self.legacy_bank = None;
        if legacy {
            // The older layout kept bank 1 here when another was mapped;
            // banks 0 and 1 in the RAM section otherwise.
            let mapped = self.wram_bank();
            if mapped != 1 {
                self.legacy_bank = Some(mapped);
            } else {
                self.wram[WRAM_BANK..2 * WRAM_BANK].fill(0);
            }
        }
        self.wram[..WRAM_BANK].fill(0);
        self.hdma.src = r.u16()? & 0xFFF0;
        self.hdma.dst = r.u16()? & 0x1FF0;
        self.hdma.blocks = r.u8()? & 0x7F;
        self.hdma.hblank = r.bool()?;
        self.rp = r.u8()?;
        self.ff72 = r.u8()?;
        self.ff73 = r.u8()?;
        self.ff74 = r.u8()?;
        self.ff75 = r.u8()?;
        self.double = r.bool()?;
        self.cpu_base = r.u64()?;
        self.dot_base = r.u64()?;
        // States saved before 0xFEA0-0xFEFF was memory end here, and
        // those saved before KEY0 was kept (no CGB boot ROM) before it.
        if r.section_left() > 0 {
            self.unusable.copy_from_slice(r.raw(0x60)?);
        } else {
            self.unusable = [0; 0x60];
        }
        self.key0 = if r.section_left() > 0 { r.u8()? } else { 0 };
        // States saved before HDMA stopped during HALT end here.
        self.hdma.missed = if r.section_left() > 0 {
            r.u8()?
        } else {
            NO_LINE
        };
        self.hdma.halted = false;
        if self.cpu_base > now || self.dot_base > self.cpu_base {
            return Err(Error::InvalidState(format!(
                "corrupted state: CGB speed switch at ({}, {}) after time {now}",
                self.cpu_base, self.dot_base
            )));
        }
        r.end_section()
    }
}

/// A banked memory region a debugger or PyBoy's `memory[bank, addr]`
/// reaches whatever VBK and SVBK say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BankedRegion {
    /// Video RAM, 0x8000-0x9FFF: bank 0, and bank 1 on a CGB.
    Vram,
    /// Work RAM in 4 KiB banks: bank 0 (0xC000-0xCFFF), and banks 1-7
    /// (0xD000-0xDFFF as SVBK selects them) on a CGB; a DMG has banks 0
    /// and 1.
    Wram,
}

impl BankedRegion {
    /// Bytes of one bank.
    pub fn bank_size(self) -> usize {
        match self {
            BankedRegion::Vram => 0x2000,
            BankedRegion::Wram => WRAM_BANK,
        }
    }

    /// How many banks `model` has.
    pub fn banks(self, model: Model) -> usize {
        match (self, model) {
            (BankedRegion::Vram, Model::Dmg) => 1,
            (BankedRegion::Vram, Model::Cgb) => 2,
            (BankedRegion::Wram, Model::Dmg) => 2,
            (BankedRegion::Wram, Model::Cgb) => 8,
        }
    }

    fn name(self) -> &'static str {
        match self {
            BankedRegion::Vram => "VRAM",
            BankedRegion::Wram => "WRAM",
        }
    }

    /// Check that `len` bytes from `offset` lie in bank `bank` of `model`.
    fn check(self, model: Model, bank: usize, offset: usize, len: usize) -> Result<()> {
        let banks = self.banks(model);
        if bank >= banks {
            return Err(Error::InvalidArgument(format!(
                "{} bank {bank} out of range (a {} has banks 0-{})",
                self.name(),
                model.name().to_ascii_uppercase(),
                banks - 1
            )));
        }
        if offset
            .checked_add(len)
            .is_none_or(|end| end > self.bank_size())
        {
            return Err(Error::InvalidArgument(format!(
                "{len} bytes at offset {offset:#x} leave the {:#x}-byte {} bank",
                self.bank_size(),
                self.name()
            )));
        }
        Ok(())
    }
}

/// Banked VRAM and work RAM, whatever VBK and SVBK select (PyBoy's
/// `memory[bank, addr]`); no side effect, no access-timing check.
impl crate::gameboy::GameBoy {
    /// `len` bytes of bank `bank` of `region` from byte `offset`.
    pub fn read_bank(
        &self,
        region: BankedRegion,
        bank: usize,
        offset: usize,
        len: usize,
    ) -> Result<Vec<u8>> {
        let hw = self.hardware();
        region.check(hw.model(), bank, offset, len)?;
        let bytes: &[u8] = match (region, hw.cgb.as_deref()) {
            (BankedRegion::Vram, _) => hw.ppu.vram_bank_data(bank),
            (BankedRegion::Wram, Some(c)) => c.wram_bank_bytes(self.ram(), bank),
            (BankedRegion::Wram, None) => &self.ram()[bank * WRAM_BANK..(bank + 1) * WRAM_BANK],
        };
        Ok(bytes[offset..offset + len].to_vec())
    }

    /// Write `data` into bank `bank` of `region` from byte `offset`.
    pub fn write_bank(
        &mut self,
        region: BankedRegion,
        bank: usize,
        offset: usize,
        data: &[u8],
    ) -> Result<()> {
        let model = self.hardware().model();
        region.check(model, bank, offset, data.len())?;
        let (core, ram, _) = self.parts_mut();
        let hw = &mut core.hw;
        for (i, &v) in data.iter().enumerate() {
            match (region, hw.cgb.as_deref_mut()) {
                (BankedRegion::Vram, _) => hw.ppu.write_vram_bank(bank, offset + i, v),
                (BankedRegion::Wram, Some(c)) => c.poke_wram_bank(ram, bank, offset + i, v),
                (BankedRegion::Wram, None) => ram[bank * WRAM_BANK + offset + i] = v,
            }
        }
        Ok(())
    }
}
