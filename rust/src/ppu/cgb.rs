//! The CGB's part of the PPU: VRAM bank 1 (tiles and the background
//! attribute maps), VBK, the colour palettes (BCPS/BCPD, OCPS/OCPD) and
//! OPRI, and the CGB line renderer.
//!
//! Frames of a machine in CGB mode hold, per pixel, a palette slot (0-31:
//! background palette `slot / 4`, colour `slot % 4`; 32-63: the same for
//! object palettes), and beside the frame the 128 palette bytes each line
//! was drawn with (`line_pal`): palettes cannot change while a line is drawn
//! (BCPD/OCPD are inaccessible in mode 3), so slot and line palettes give
//! every pixel's 15-bit colour ([`crate::screen::Screen::update_cgb`]).
//! In DMG compatibility mode the DMG renderer draws shades 0-3 and the
//! compatibility palettes the boot ROM chose colour them (background
//! palette 0).
//!
//! The CGB renderer draws a line whole (on both paths: the dot-level FIFO
//! is the DMG's; a register written during a CGB line's mode 3 takes effect
//! for the whole line).

use super::*;
use crate::state::{StateReader, StateWriter};

/// The CGB's PPU state; `Ppu::cgb` is `None` on a DMG.
#[derive(Clone)]
pub(crate) struct PpuCgb {
    /// CGB mode; `false`: DMG compatibility mode (the DMG renderer, the
    /// palettes locked, VBK fixed at 0).
    pub(crate) cgb_mode: bool,
    /// VBK bit 0: the VRAM bank the CPU sees. That bank is always
    /// `Ppu::vram` (the DMG's, so the CPU's VRAM accesses are the DMG's);
    /// VBK swaps the two boxes.
    pub(crate) vbk: u8,
    /// The VRAM bank the CPU does not see (bank 1 while VBK is 0).
    pub(crate) vram_other: Box<[u8; 0x2000]>,
    /// Palette RAM: 8 background palettes then 8 object palettes, 4
    /// colours of 2 bytes (little-endian 15-bit BGR) each.
    pub(crate) pal: [u8; 128],
    /// BCPS and OCPS: bit 7 auto-increment, bits 0-5 the byte index.
    pub(crate) bcps: u8,
    pub(crate) ocps: u8,
    /// OPRI bit 0: 1 = objects by X (DMG), 0 = by OAM index (CGB).
    pub(crate) opri: u8,
    /// The palette RAM each visible line was drawn with (derived, not
    /// saved; see the module documentation).
    pub(crate) line_pal: Box<[[u8; 128]; HEIGHT]>,
}

/// The compatibility palettes the CGB boot ROM loads for a DMG cartridge it
/// does not recognise (palettes ID 0; 15-bit colours; background, OBJ 0,
/// OBJ 1); `crate::cgb::compat_palettes` gives those of any cartridge.
/// PyBoy's default `cgb_color_palette` holds about the same colours
/// (0xFFFFFF, 0x7BFF31, 0x0063C5, 0x000000 and 0xFFFFFF, 0xFF8484,
/// 0x943A3A, 0x000000).
pub const COMPAT_PALETTES: [[u16; 4]; 3] = [
    [0x7FFF, 0x1BEF, 0x6180, 0x0000],
    [0x7FFF, 0x421F, 0x1CF2, 0x0000],
    [0x7FFF, 0x421F, 0x1CF2, 0x0000],
];

impl PpuCgb {
    /// As the CGB boot ROM leaves it for a cartridge in CGB mode (`true`)
    /// or in DMG compatibility mode with the compatibility palettes
    /// `compat` (background palette 0, object palettes 0 and 1).
    pub(crate) fn post_boot(cgb_mode: bool, compat: &[[u16; 4]; 3]) -> PpuCgb {
        let mut pal = [0xFFu8; 128];
        if !cgb_mode {
            // Background palette 0, object palettes 0 and 1.
            for (p, colors) in [0usize, 8, 9].into_iter().zip(compat) {
                for (c, color) in colors.iter().enumerate() {
                    pal[p * 8 + c * 2..p * 8 + c * 2 + 2].copy_from_slice(&color.to_le_bytes());
                }
            }
        } else {
            // Background palettes white; object palettes left as they are
            // (white here).
            pal.fill(0xFF);
            for c in pal.chunks_exact_mut(2) {
                c[1] = 0x7F;
            }
        }
        PpuCgb {
            cgb_mode,
            vbk: 0,
            vram_other: Box::new([0; 0x2000]),
            pal,
            bcps: 0x88,
            ocps: 0x90,
            opri: if cgb_mode { 0 } else { 1 },
            line_pal: Box::new([[0; 128]; HEIGHT]),
        }
    }

    /// Save the CGB PPU section (VRAM bank the CPU does not see, VBK,
    /// palettes, their indices, OPRI); `Ppu::vram`, in the PPU section, is
    /// the bank it sees.
    pub(crate) fn save(&self, w: &mut StateWriter) {
        w.begin_section(b"CGBP");
        w.bool(self.cgb_mode);
        w.u8(self.vbk);
        w.raw(&self.vram_other[..]);
        w.raw(&self.pal);
        w.u8(self.bcps);
        w.u8(self.ocps);
        w.u8(self.opri);
        w.end_section();
    }

    /// `any_mode`: take the state's CGB mode (see `CgbHw::load`).
    pub(crate) fn load(&mut self, r: &mut StateReader, any_mode: bool) -> Result<()> {
        r.begin_section(b"CGBP")?;
        let cgb_mode = r.bool()?;
        if any_mode {
            self.cgb_mode = cgb_mode;
        } else if cgb_mode != self.cgb_mode {
            return Err(Error::InvalidState(
                "state was saved in the other CGB mode (CGB vs DMG compatibility)".into(),
            ));
        }
        self.vbk = r.u8()? & 1;
        self.vram_other.copy_from_slice(r.raw(0x2000)?);
        self.pal.copy_from_slice(r.raw(128)?);
        self.bcps = r.u8()? & 0xBF;
        self.ocps = r.u8()? & 0xBF;
        self.opri = r.u8()? & 1;
        r.end_section()
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.vram_other.len() + self.line_pal.len() * 128
    }
}

/// A byte in each byte of a u64.
const ONES: u64 = 0x0101_0101_0101_0101;

/// `SPREAD[b]`: the bits of `b`, most significant first, one in each byte
/// of a u64 (little-endian byte k = bit 7 - k): a tile row's bit plane
/// spread over its eight pixels.
static SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut k = 0;
        while k < 8 {
            t[b] |= (((b >> (7 - k)) & 1) as u64) << (8 * k);
            k += 1;
        }
        b += 1;
    }
    t
};

/// One tile row's two bit-planes, flipped horizontally when `flip`.
#[inline(always)]
fn row_planes(bank: &[u8; 0x2000], addr: usize, flip: bool) -> (u8, u8) {
    let (lo, hi) = (bank[addr], bank[addr + 1]);
    if flip {
        (lo.reverse_bits(), hi.reverse_bits())
    } else {
        (lo, hi)
    }
}

impl Ppu {
    /// Whether this PPU draws CGB-mode lines.
    #[inline]
    pub(super) fn cgb_mode(&self) -> bool {
        self.cgb.as_ref().is_some_and(|c| c.cgb_mode)
    }

    /// VRAM banks 0 and 1 (on a DMG: bank 0 twice).
    #[inline]
    pub(super) fn vram_banks(&self) -> (&[u8; 0x2000], &[u8; 0x2000]) {
        match &self.cgb {
            Some(c) if c.vbk & 1 != 0 => (&c.vram_other, &self.vram),
            Some(c) => (&self.vram, &c.vram_other),
            None => (&self.vram, &self.vram),
        }
    }

    /// VRAM bank 1 (CGB only).
    pub fn vram1(&self) -> Option<&[u8; 0x2000]> {
        self.cgb.as_ref()?;
        Some(self.vram_banks().1)
    }

    /// VRAM bank `bank & 1` whatever VBK says (on a DMG: bank 0 for both).
    pub fn vram_bank_data(&self, bank: usize) -> &[u8; 0x2000] {
        let (b0, b1) = self.vram_banks();
        if bank & 1 == 0 {
            b0
        } else {
            b1
        }
    }

    /// Write byte `index` of VRAM bank `bank` whatever VBK says (HDMA, the
    /// debugger); bank 1 is ignored on a DMG.
    pub fn write_vram_bank(&mut self, bank: usize, index: usize, value: u8) {
        match &mut self.cgb {
            Some(c) if (c.vbk & 1) as usize != bank & 1 && c.vram_other[index] != value => {
                c.vram_other[index] = value;
                self.content_gen += 1;
            }
            Some(c) if (c.vbk & 1) as usize != bank & 1 => {}
            Some(_) => self.write_vram(index, value),
            None if bank == 0 => self.write_vram(index, value),
            None => {}
        }
    }

    /// Enter DMG compatibility mode (the CGB boot ROM's end, with KEY0
    /// selecting it): the DMG renderer through the compatibility palettes
    /// the boot ROM left in palette RAM, VRAM bank 0 for the CPU.
    pub(crate) fn enter_compat_mode(&mut self) {
        self.set_vbk(0);
        if let Some(c) = self.cgb.as_deref_mut() {
            c.cgb_mode = false;
        }
        self.obj_slot = Self::obj_slots(false);
        self.content_gen += 1;
    }

    /// Set VBK: the CPU's bank becomes `Ppu::vram` (a swap of two boxes).
    fn set_vbk(&mut self, vbk: u8) {
        if let Some(c) = self.cgb.as_deref_mut() {
            if c.vbk != vbk & 1 {
                c.vbk = vbk & 1;
                std::mem::swap(&mut self.vram, &mut c.vram_other);
            }
        }
    }

    /// The palette RAM (64 background bytes, then 64 object bytes), CGB only.
    pub fn palette_ram(&self) -> Option<&[u8; 128]> {
        self.cgb.as_ref().map(|c| &c.pal)
    }

    /// The palette RAM each visible line was drawn with (CGB only).
    pub fn line_palettes(&self) -> Option<&[[u8; 128]; HEIGHT]> {
        self.cgb.as_ref().map(|c| &*c.line_pal)
    }

    /// Save the CGB section (nothing on a DMG).
    pub(crate) fn save_cgb(&self, w: &mut StateWriter) {
        if let Some(c) = &self.cgb {
            c.save(w);
        }
    }

    /// Load the CGB section; the content generation moves on (VRAM bank 1
    /// and the palettes changed).
    pub(crate) fn load_cgb(&mut self, r: &mut StateReader, any_mode: bool) -> Result<()> {
        if let Some(c) = self.cgb.as_deref_mut() {
            c.load(r, any_mode)?;
            let cgb_mode = c.cgb_mode;
            self.obj_slot = Self::obj_slots(cgb_mode);
            self.content_gen += 1;
        }
        Ok(())
    }

    /// Whether the palette data registers are inaccessible now (mode 3).
    #[inline]
    fn palettes_blocked(&self) -> bool {
        self.mode == 3 && self.lcd_on()
    }

    /// Read a CGB PPU register (VBK, BCPS/BCPD, OCPS/OCPD, OPRI); the
    /// caller has caught up. `None`: not one of them on this machine.
    pub(crate) fn read_cgb(&self, addr: u16) -> Option<u8> {
        let c = self.cgb.as_ref()?;
        let v = match (addr, c.cgb_mode) {
            (0xFF4F, true) => 0xFE | c.vbk,
            (0xFF4F, false) => 0xFE,
            (0xFF68, _) => 0x40 | c.bcps,
            (0xFF6A, _) => 0x40 | c.ocps,
            (0xFF69, true) if !self.palettes_blocked() => c.pal[(c.bcps & 0x3F) as usize],
            (0xFF6B, true) if !self.palettes_blocked() => c.pal[64 + (c.ocps & 0x3F) as usize],
            (0xFF6C, true) => 0xFE | c.opri,
            _ => 0xFF,
        };
        Some(v)
    }

    /// Write a CGB PPU register; returns whether `addr` is one (on a CGB).
    pub(crate) fn write_cgb(&mut self, addr: u16, value: u8) -> bool {
        let blocked = self.palettes_blocked();
        if !matches!(addr, 0xFF4F | 0xFF68..=0xFF6C) || self.cgb.is_none() {
            return false;
        }
        if matches!(addr, 0xFF69 | 0xFF6B) && !blocked {
            // The line being drawn keeps the colours it started with.
            self.flush_line();
        }
        if addr == 0xFF4F {
            if self.cgb_mode() {
                self.set_vbk(value);
            }
            return true;
        }
        let Some(c) = self.cgb.as_mut() else {
            return false;
        };
        match addr {
            0xFF68 => c.bcps = value & 0xBF,
            0xFF6A => c.ocps = value & 0xBF,
            0xFF69 | 0xFF6B if c.cgb_mode => {
                let (spec, base) = if addr == 0xFF69 {
                    (&mut c.bcps, 0)
                } else {
                    (&mut c.ocps, 64)
                };
                if !blocked {
                    c.pal[base + (*spec & 0x3F) as usize] = value;
                }
                // The index moves on even when the write is refused.
                if *spec & 0x80 != 0 {
                    *spec = 0x80 | (spec.wrapping_add(1) & 0x3F);
                }
            }
            0xFF6C if c.cgb_mode => c.opri = value & 1,
            _ => {}
        }
        true
    }

    /// Draw the current line in CGB mode into `frame` (palette slots) and
    /// note its palettes.
    pub(super) fn draw_line_cgb(&mut self) {
        let ly = self.ly as usize;
        let lcdc = self.lcdc;
        // The window shows whatever LCDC.0 says (on a CGB that bit only
        // takes the background's priority away).
        let win = if lcdc & 0x20 != 0 && self.wy_triggered && self.wx <= 166 {
            self.window_starts = 1;
            Some((self.wx as usize).saturating_sub(7))
        } else {
            None
        };
        let Some(c) = self.cgb.as_deref() else {
            return;
        };
        let banks = self.vram_banks();
        // Per pixel: palette slot and, for objects' priority, whether the
        // BG colour is non-zero and whether the BG tile claims priority.
        let mut slot = [0u8; WIDTH];
        let mut bg_opaque = [0u8; WIDTH];
        let mut bg_prio = [0u8; WIDTH];
        let bg_end = win.unwrap_or(WIDTH);
        let mut line = Line {
            slot: &mut slot,
            bg_opaque: &mut bg_opaque,
            bg_prio: &mut bg_prio,
        };
        // Background up to the window, with the map x scrolled by SCX.
        let bg_map = if lcdc & 0x08 != 0 { 0x1C00 } else { 0x1800 };
        let y = self.ly.wrapping_add(self.scy) as usize;
        let scx = self.scx as usize;
        line.draw_map(banks, lcdc, bg_map, y, 0..bg_end, |x| (x + scx) & 0xFF);
        if let Some(w) = win {
            // Window x 0 is at screen x WX - 7 (left of the screen for WX < 7).
            let win_map = if lcdc & 0x40 != 0 { 0x1C00 } else { 0x1800 };
            let wx = self.wx as usize;
            let wy = self.window_line as usize;
            line.draw_map(banks, lcdc, win_map, wy, w..WIDTH, |x| x + 7 - wx);
        }
        // Objects: the line's (up to ten), highest priority first.
        if lcdc & 0x02 != 0 && self.line_obj_count != 0 {
            let n = self.line_obj_count as usize;
            let by_x = c.opri & 1 != 0;
            let objs = if by_x {
                self.objects_by_priority().0
            } else {
                self.line_objs
            };
            let mut taken = [false; WIDTH];
            let tall = lcdc & 0x04 != 0;
            let height = if tall { 16 } else { 8 };
            for &i in &objs[..n] {
                let i = i as usize;
                let ox = self.oam[i * 4 + 1] as usize;
                if ox == 0 || ox >= WIDTH + 8 {
                    continue;
                }
                let attrs = self.oam[i * 4 + 3];
                let mut row = (self.ly.wrapping_add(16).wrapping_sub(self.oam[i * 4]) as usize)
                    & (height - 1);
                if attrs & 0x40 != 0 {
                    row = height - 1 - row;
                }
                let mut tile = self.oam[i * 4 + 2] as usize;
                if tall {
                    tile &= 0xFE;
                }
                let bank = if attrs & 0x08 != 0 { banks.1 } else { banks.0 };
                let (lo, hi) = row_planes(bank, tile * 16 + row * 2, attrs & 0x20 != 0);
                let pal = 32 + (attrs & 7) * 4;
                let behind = attrs & 0x80 != 0;
                for px in 0..8 {
                    let Some(x) = (ox + px).checked_sub(8).filter(|&x| x < WIDTH) else {
                        continue;
                    };
                    let ci = ((lo >> (7 - px)) & 1) | (((hi >> (7 - px)) & 1) << 1);
                    if ci == 0 || taken[x] {
                        continue;
                    }
                    taken[x] = true;
                    // LCDC.0 clear: objects over everything. Otherwise a BG
                    // colour 1-3 covers the object when the object or the
                    // BG tile asks for it.
                    if lcdc & 0x01 == 0 || bg_opaque[x] == 0 || !(behind || bg_prio[x] != 0) {
                        slot[x] = pal + ci;
                    }
                }
            }
        }
        let row = ly * WIDTH;
        self.frame[row..row + WIDTH].copy_from_slice(&slot);
    }
}

/// A line's background being drawn: per pixel its palette slot, whether
/// its colour is not 0 and whether its tile has priority over objects.
struct Line<'a> {
    slot: &'a mut [u8; WIDTH],
    /// 1 where the BG colour is not 0.
    bg_opaque: &'a mut [u8; WIDTH],
    /// 1 where the BG tile has priority (attribute bit 7).
    bg_prio: &'a mut [u8; WIDTH],
}

impl Line<'_> {
    /// Draw screen pixels `xs` from map `map` (0x1800 or 0x1C00), map row
    /// `y` (0-255), map x `map_x(x)`: tile numbers from bank 0, attributes
    /// (palette, bank, flips, priority) from bank 1.
    fn draw_map(
        &mut self,
        (vram0, vram1): (&[u8; 0x2000], &[u8; 0x2000]),
        lcdc: u8,
        map: usize,
        y: usize,
        xs: std::ops::Range<usize>,
        map_x: impl Fn(usize) -> usize,
    ) {
        // A tile at a time: the pixels from `x` to the tile's right edge
        // (map x moves with screen x, and wraps only at a tile boundary).
        let mut x = xs.start;
        while x < xs.end {
            let mx = map_x(x);
            let map_addr = map + ((y >> 3) & 31) * 32 + ((mx >> 3) & 31);
            let tile = vram0[map_addr];
            let attr = vram1[map_addr];
            let bank = if attr & 0x08 != 0 { vram1 } else { vram0 };
            let mut row = y & 7;
            if attr & 0x40 != 0 {
                row = 7 - row;
            }
            // LCDC.4 clear: signed tile numbers from 0x9000.
            let base = if lcdc & 0x10 != 0 {
                tile as usize * 16
            } else {
                (0x1000 + (tile as i8 as isize) * 16) as usize
            };
            let (lo, hi) = row_planes(bank, base + row * 2, attr & 0x20 != 0);
            // The tile row's eight colour numbers, one a byte (leftmost
            // first), and from them its slots and opacity, eight at once.
            let ci = SPREAD[lo as usize] | SPREAD[hi as usize] << 1;
            let slots = ci + ONES * ((attr & 7) as u64 * 4);
            let opaque = (ci | ci >> 1) & ONES;
            let prio = if attr & 0x80 != 0 { ONES } else { 0 };
            let first = mx & 7;
            let n = (8 - first).min(xs.end - x);
            let (span, from) = (x..x + n, first..first + n);
            self.slot[span.clone()].copy_from_slice(&slots.to_le_bytes()[from.clone()]);
            self.bg_opaque[span.clone()].copy_from_slice(&opaque.to_le_bytes()[from.clone()]);
            self.bg_prio[span].copy_from_slice(&prio.to_le_bytes()[from]);
            x += n;
        }
    }
}
