//! PPU timing: LY, LYC, STAT modes and interrupts, VBlank, LCD on/off.
//!
//! The PPU is a small state machine over the *transitions* of a scanline
//! (mode 2 -> 3 -> 0 -> next line, VBlank lines, the LY=153 quirk). It is
//! lazy: [`Ppu::catch_up`] processes every transition due up to `now`, and
//! [`Ppu::next_event`] tells the scheduler when the next one is due, so a
//! frame costs a few hundred transitions instead of 70,224 dot steps. The
//! reference path calls `catch_up` every M-cycle.
//!
//! Pixel output (only for frames someone looks at): a line is drawn whole, a
//! tile row at a time, once nothing can change it any more; a line with a
//! register write during mode 3 is replayed at its end by a dot-level pixel
//! FIFO with the logged writes applied at their dots. Reference mode draws
//! every line with the FIFO. The fast renderer skips a line whose frame row
//! already holds it: same VRAM and OAM (a change counter), same object scan
//! and same registers as when it was last drawn (`draw_line_cached`).
//!
//! This file holds the [`Ppu`] state, its registers, VRAM/OAM access and
//! save states; `timing.rs` the line state machine (modes, transitions,
//! STAT/LY interrupts, `catch_up` and its line skip, access windows),
//! `render.rs` the fast line renderer and its line cache, `fifo.rs` the
//! dot-accurate pixel FIFO (the reference renderer).

use crate::error::{Error, Result};
use crate::screen::{HEIGHT, PIXELS, WIDTH};
use crate::state::{StateReader, StateWriter, Stateful};

mod cgb;
mod fifo;
mod render;
#[cfg(test)]
mod tests;
mod timing;

pub(crate) use cgb::PpuCgb;
pub use cgb::COMPAT_PALETTES;
use fifo::{LineRegs, MidWrite, FIFO_ORIGIN};
use render::{LINE_BUF, MODE3_FIFO_TAIL};
use timing::{LCD_ON_EARLY, MODE2_IRQ_EARLY, MODE3_START_DOTS};

pub const IRQ_VBLANK: u8 = 0x01;
pub const IRQ_STAT: u8 = 0x02;

pub use crate::clock::{DOTS_PER_LINE, LINES_PER_FRAME};
/// Dots per frame ([`crate::clock::FRAME_CYCLES`]).
pub const DOTS_PER_FRAME: u64 = crate::clock::FRAME_CYCLES;
const LINES: usize = LINES_PER_FRAME as usize;
const OAM_SCAN_DOTS: u64 = 80;
const MODE3_BASE_DOTS: u64 = 172;

/// The object sizes an OAM scan saw when LCDC.2 switched during it (bit k:
/// object k scanned as 8x16; 40 bits), packed with a high marker bit so that
/// `Option<ScanSizes>` takes 8 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ScanSizes(std::num::NonZeroU64);

impl ScanSizes {
    const MARK: u64 = 1 << 63;

    fn new(mask: u64) -> ScanSizes {
        // Never zero: the marker bit is set.
        let packed = (mask & ((1 << 40) - 1)) | Self::MARK;
        ScanSizes(std::num::NonZeroU64::new(packed).unwrap_or(std::num::NonZeroU64::MAX))
    }

    fn get(self) -> u64 {
        self.0.get() & !Self::MARK
    }
}

/// Where in the scanline the next transition leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Next: STAT reads mode 2 and the STAT LY=LYC flag sees the new LY
    /// (one M-cycle after LY changes; the OAM-scan interrupt pulse began an
    /// M-cycle before LY changed).
    ToMode2,
    /// Next: mode 3 starts (end of OAM scan).
    ToTransfer,
    /// Next: the mode-0 interrupt (end of pixel transfer).
    ToHBlank,
    /// Next: STAT reads mode 0 and OAM/VRAM unlock (just under one M-cycle
    /// after the mode-0 interrupt).
    ToHBlankRead,
    /// Next: the OAM-scan interrupt pulse of the following line begins (one
    /// M-cycle before that line starts).
    ToOamIrq,
    /// Next: the following line starts.
    ToNextLine,
    /// Line 144: next, STAT reads mode 1 (one M-cycle into the line).
    ToMode1,
    /// Line 153: next, LY reads 0 (one M-cycle into the line).
    ToLy0,
    /// Line 153: next, the LY=LYC interrupt logic compares LYC with 0.
    ToLy0Irq,
    /// Line 153: next, the STAT LY=LYC flag compares LYC with 0.
    ToLy0Flag,
    /// LCD is off: nothing happens.
    Off,
}

/// Where the line state machine stood at some point of the M-cycle ending
/// at `at` (`Ppu::note_stat_inputs`): enough to tell the STAT interrupt
/// inputs then. Packed to 4-byte alignment (12 bytes, not 16): the PPU
/// keeps two, and the 8 bytes saved keep a DMG env within 64 KiB.
#[derive(Clone, Copy)]
#[repr(C, packed(4))]
struct StatInputs {
    at: u64,
    phase: Phase,
    line: u8,
    ly: u8,
    stat_line: bool,
}

impl StatInputs {
    const NONE: StatInputs = StatInputs {
        at: u64::MAX,
        phase: Phase::Off,
        line: 0,
        ly: 0,
        stat_line: false,
    };
}

#[derive(Clone)]
pub struct Ppu {
    /// Video RAM: read through [`Ppu::vram`], written through
    /// [`Ppu::write_vram`] (which keeps the line cache honest).
    vram: Box<[u8; 0x2000]>,
    /// Object attribute memory: read through [`Ppu::oam`], written through
    /// [`Ppu::write_oam`] so the per-line object index and the line cache
    /// stay valid.
    oam: [u8; 0xA0],
    /// Derived: for each line 0..=153, how many objects overlap it (8x16 if
    /// `obj_tall`). Rebuilt lazily after OAM or the object size changes; not
    /// saved.
    obj_lines: [u8; LINES],
    obj_lines_valid: bool,
    obj_lines_tall: bool,
    pub(crate) lcdc: u8,
    /// STAT interrupt enables (bits 3..6), and bit 7 while a CGB's HBlank
    /// DMA runs (`set_hdma_wake`): the scheduler then wakes the PPU at
    /// every transition, as for the HBlank STAT source. STAT reads bit 7
    /// as 1 anyway.
    stat_enables: u8,
    pub(crate) scy: u8,
    pub(crate) scx: u8,
    ly: u8,
    lyc: u8,
    pub(crate) bgp: u8,
    pub(crate) obp0: u8,
    pub(crate) obp1: u8,
    pub(crate) wy: u8,
    pub(crate) wx: u8,
    mode: u8,
    /// Which line of the frame we are on (0..153); `ly` differs on line 153.
    line: u8,
    line_start: u64,
    next: u64,
    phase: Phase,
    /// Current level of the STAT interrupt line (interrupt on rising edge).
    stat_line: bool,
    /// The LY=LYC flag while the LCD is off: the comparator stops and its
    /// last output is kept (Mooneye stat_lyc_onoff).
    lyc_flag_off: bool,
    /// Set when VBlank starts; the machine clears it.
    pub(crate) frame_ready: bool,
    /// Set when an HBlank of lines 0-143 begins while a CGB's HBlank DMA
    /// runs (stat_enables bit 7); the machine copies a block and clears it.
    pub(crate) hdma_hit: bool,
    /// IF bits raised by transitions inside the M-cycle ending at
    /// `late_irq_at` (transient; see `Hardware::catch_up_ppu`).
    pub(crate) late_irq: u8,
    pub(crate) late_irq_at: u64,
    /// The part of `late_irq` raised too late in its M-cycle for a halted
    /// CPU to wake in it.
    pub(crate) late_halt_irq: u8,
    /// The STAT interrupt inputs before the transitions of the M-cycle in
    /// which a STAT write lands (`write_stat_input`), and before those of
    /// them at which an LYC write lands (transient, not saved).
    stat_write_view: StatInputs,
    lyc_write_view: StatInputs,
    // ---- Pixel output (derived; not part of save states) ---------------
    /// Draw the lines of the current frame (set by the machine per frame).
    pub(crate) rendering: bool,
    /// Draw every line with the dot-accurate FIFO instead of the fast
    /// renderer. Set only through `Hardware::set_reference` (not saved).
    reference: bool,
    /// Shades (0..=3 after BGP/OBP) of the frame being drawn, row-major
    /// (read through [`Ppu::frame`]).
    frame: Box<[u8; PIXELS]>,
    /// The fast renderer's line cache (derived, not saved). `content_gen`
    /// counts changes of VRAM and OAM bytes. Row `ly` of `frame` holds what
    /// the fast renderer draws for the registers `line_keys[ly]` while bit
    /// `ly` of `lines_valid` is set, which it only is while `content_gen`
    /// equals `cache_gen`: a line whose VRAM, OAM and registers are those it
    /// was last drawn with is not drawn again.
    content_gen: u64,
    cache_gen: u64,
    lines_valid: [u64; 3],
    line_keys: [u64; HEIGHT],
    /// `content_gen` and LCDC.2 at this line's OAM scan (its object list
    /// depends on both).
    scan_gen: u64,
    scan_tall: bool,
    /// Set while this line's OAM scan saw the object size switched midway:
    /// bit k says object k was scanned as 8x16 (`switch_scan_size`).
    scan_sizes: Option<ScanSizes>,
    /// The fast renderer's line being drawn: shades, and BG colour indices
    /// (kept only on lines with objects), pixel x at `x + LINE_PAD`.
    line_buf: [u8; LINE_BUF],
    line_ci: [u8; LINE_BUF],
    /// Objects selected by this line's OAM scan (OAM indices, in OAM order).
    line_objs: [u8; 10],
    line_obj_count: u8,
    /// The window's own line counter (counts lines on which it was drawn).
    window_line: u8,
    /// How many times the window started on the current line (each start
    /// moves it to its next row).
    window_starts: u8,
    /// The current line's pixels are not all drawn yet. Drawing of the rest
    /// waits until something could change them (a register, VRAM or OAM
    /// write) or the line ends.
    line_pending: bool,
    /// The LCD was switched on and has not finished a frame since.
    fresh_on: bool,
    /// The frame that just ended is the first after the LCD was switched
    /// on: a DMG does not show it (the screen stays blank).
    pub(crate) blank_frame: bool,
    /// The window's WY latch: LY matched WY with LCDC.5 set at some time
    /// during a visible line of this frame (the window may start). The
    /// comparison is live: LY's change (seen at the line's mode-2 edge), WY
    /// writes and LCDC.5 being set all set it, in mode 3 and HBlank too.
    /// Saved: it times mode 3.
    wy_triggered: bool,
    /// `wy_triggered` as it was when this line's mode 3 began: a WY write
    /// during mode 3 sets the latch at once for the lines after, but it
    /// starts the window on this one only from its dot (the FIFO).
    wy_at_m3: bool,
    /// Register writes that landed during this line's mode 3, with the
    /// registers as they were before the first of them: the line is drawn
    /// by the dot-accurate FIFO when it ends.
    mid_writes: Vec<MidWrite>,
    mid_regs: LineRegs,
    /// Time of FIFO dot 0 of this line's mode 3, and of the mode-0
    /// interrupt that ends it.
    mode3_origin: u64,
    mode3_end: u64,
    /// The line (`line_start`) whose timing the writes in `mid_writes`
    /// were logged for, on lines not drawn.
    mid_writes_line: u64,
    /// Per-line SCX, SCY, WX, WY as the lines were drawn (PyBoy's
    /// `screen.tilemap_position_list`), kept only when asked for
    /// ([`Ppu::record_line_registers`]); not saved in states.
    line_rec: Option<Box<LineRecord>>,
    /// The CGB's part (VRAM bank 1, palettes; `ppu/cgb.rs`); `None` on a
    /// DMG.
    pub(crate) cgb: Option<Box<PpuCgb>>,
    /// What an object pixel of OBP0 / OBP1 adds to its shade in the frame:
    /// 0 on a DMG and in CGB mode; in DMG compatibility mode 32 and 36, so
    /// that the frame holds the palette slot of OBJ palette 0 or 1 (Pan
    /// Docs, "Compatibility palettes": OBP0/OBP1 index into them) beside
    /// the background's slots 0-3 (BG palette 0). Fixed when the machine is
    /// built.
    obj_slot: [u8; 2],
}

impl Ppu {
    /// The PPU as the DMG boot ROM leaves it: LCD on, near the end of VBlank.
    pub fn post_boot() -> Ppu {
        let mut p = Ppu {
            vram: Box::new([0; 0x2000]),
            oam: [0; 0xA0],
            obj_lines: [0; LINES],
            obj_lines_valid: false,
            obj_lines_tall: false,
            lcdc: 0x91,
            stat_enables: 0,
            scy: 0,
            scx: 0,
            ly: 0,
            lyc: 0,
            bgp: 0xFC,
            obp0: 0xFF,
            obp1: 0xFF,
            wy: 0,
            wx: 0,
            mode: 1,
            line: 153,
            line_start: 0,
            next: 0,
            phase: Phase::ToNextLine,
            stat_line: false,
            lyc_flag_off: false,
            frame_ready: false,
            hdma_hit: false,
            late_irq: 0,
            late_irq_at: 0,
            late_halt_irq: 0,
            stat_write_view: StatInputs::NONE,
            lyc_write_view: StatInputs::NONE,
            rendering: false,
            reference: false,
            frame: Box::new([0; PIXELS]),
            content_gen: 0,
            cache_gen: 0,
            lines_valid: [0; 3],
            line_keys: [0; HEIGHT],
            scan_gen: 0,
            scan_tall: false,
            scan_sizes: None,
            line_buf: [0; LINE_BUF],
            line_ci: [0; LINE_BUF],
            line_objs: [0; 10],
            line_obj_count: 0,
            window_line: 0,
            window_starts: 0,
            line_pending: false,
            fresh_on: false,
            blank_frame: false,
            wy_triggered: false,
            wy_at_m3: false,
            mid_writes: Vec::new(),
            mid_regs: LineRegs::default(),
            mode3_origin: 0,
            mode3_end: 0,
            mid_writes_line: u64::MAX,
            line_rec: None,
            cgb: None,
            obj_slot: [0, 0],
        };
        // Line 153 began POST_BOOT_LINE153_DOTS before time 0; LY already
        // reads 0. (`line_start` is only used once the next line begins.)
        p.next = DOTS_PER_LINE - POST_BOOT_LINE153_DOTS;
        p.stat_line = p.compute_stat_line();
        p
    }

    /// Fill VRAM as the DMG boot ROM leaves it: the cartridge header's logo
    /// (`logo`, 0x104..0x134) as tiles 1..=24, each bit doubled across and
    /// down (a byte is 4 rows: its high nibble twice, then its low nibble
    /// twice), the boot ROM's (R) mark as tile 25, both in colour 1 (low bit
    /// plane only), and the map rows at 0x9904 (tiles 1..=12, then (R) at
    /// 0x9910) and 0x9924 (tiles 13..=24). Test ROMs such as Mealybug's use
    /// the (R) tile without loading it.
    pub fn load_boot_vram(&mut self, logo: &[u8; 48]) {
        fn doubled(nibble: u8) -> u8 {
            (0..4).fold(0, |acc, b| acc | (((nibble >> b) & 1) * (3 << (2 * b))))
        }
        self.vram.fill(0);
        let mut a = 0x10;
        for &byte in logo {
            for nibble in [byte >> 4, byte & 0x0F] {
                let row = doubled(nibble);
                self.vram[a] = row;
                self.vram[a + 2] = row;
                a += 4;
            }
        }
        for &row in &BOOT_REGISTERED_MARK {
            self.vram[a] = row;
            a += 2;
        }
        for i in 0..12u8 {
            self.vram[0x1904 + i as usize] = i + 1;
            self.vram[0x1924 + i as usize] = i + 13;
        }
        self.vram[0x1910] = 0x19;
        self.content_gen += 1;
    }

    /// A PPU as at power-on (boot ROM runs): LCD off.
    pub fn power_on() -> Ppu {
        let mut p = Ppu::post_boot();
        p.lcdc = 0;
        p.bgp = 0;
        p.obp0 = 0;
        p.obp1 = 0;
        p.ly = 0;
        p.line = 0;
        p.mode = 0;
        p.phase = Phase::Off;
        p.next = u64::MAX;
        p.stat_line = false;
        p
    }

    #[inline]
    pub fn lcd_on(&self) -> bool {
        self.lcdc & 0x80 != 0
    }

    #[inline]
    pub fn mode(&self) -> u8 {
        self.mode
    }

    /// LY as it reads now.
    #[inline]
    pub fn ly(&self) -> u8 {
        self.ly
    }

    /// The VRAM bank the CPU sees (VBK; 0 on a DMG).
    #[inline]
    pub fn vram_bank(&self) -> usize {
        self.cgb.as_ref().map_or(0, |c| (c.vbk & 1) as usize)
    }

    /// Wake the machine at every transition (for a CGB's HBlank DMA) or
    /// stop doing so.
    pub(crate) fn set_hdma_wake(&mut self, on: bool) {
        if on {
            self.stat_enables |= 0x80;
        } else {
            self.stat_enables &= 0x78;
            self.hdma_hit = false;
        }
    }

    /// Video RAM (0x8000-0x9FFF).
    #[inline]
    pub fn vram(&self) -> &[u8; 0x2000] {
        &self.vram
    }

    /// Object attribute memory (0xFE00-0xFE9F).
    #[inline]
    pub fn oam(&self) -> &[u8; 0xA0] {
        &self.oam
    }

    /// Write one VRAM byte (CPU or debugger; the caller checks access).
    #[inline]
    pub fn write_vram(&mut self, index: usize, value: u8) {
        if self.vram[index] != value {
            self.vram[index] = value;
            self.content_gen += 1;
        }
    }

    /// Write one OAM byte (CPU, DMA or debugger).
    #[inline]
    pub fn write_oam(&mut self, index: usize, value: u8) {
        if self.oam[index] != value {
            self.oam[index] = value;
            self.content_gen += 1;
            if index & 3 == 0 {
                self.obj_lines_valid = false;
            }
        }
    }

    /// Write OAM bytes `start..start + bytes.len()` at once (the OAM DMA
    /// catching up): the same as [`Ppu::write_oam`] on each in turn.
    pub fn write_oam_bytes(&mut self, start: usize, bytes: &[u8]) {
        let dst = &mut self.oam[start..start + bytes.len()];
        if dst == bytes {
            return;
        }
        for (i, (d, &v)) in dst.iter_mut().zip(bytes).enumerate() {
            if *d != v {
                *d = v;
                self.content_gen += 1;
                if (start + i) & 3 == 0 {
                    self.obj_lines_valid = false;
                }
            }
        }
    }

    /// The shades (0..=3) of the last frame drawn, row-major.
    #[inline]
    pub fn frame(&self) -> &[u8; PIXELS] {
        &self.frame
    }

    /// Heap bytes owned beside the inline size: VRAM, the frame of shades
    /// and a CGB's part.
    pub fn heap_bytes(&self) -> usize {
        self.vram.len()
            + self.frame.len()
            + self
                .cgb
                .as_ref()
                .map_or(0, |c| std::mem::size_of::<PpuCgb>() + c.heap_bytes())
    }

    /// Make this a CGB's PPU, in CGB mode or DMG compatibility mode, as the
    /// CGB boot ROM leaves it.
    /// `compat`: the compatibility palettes (background, OBJ 0, OBJ 1)
    /// for DMG compatibility mode.
    pub(crate) fn make_cgb(&mut self, cgb_mode: bool, compat: &[[u16; 4]; 3]) {
        self.cgb = Some(Box::new(PpuCgb::post_boot(cgb_mode, compat)));
        self.obj_slot = Self::obj_slots(cgb_mode);
    }

    /// `obj_slot` for CGB mode (`true`) or DMG compatibility mode.
    pub(crate) fn obj_slots(cgb_mode: bool) -> [u8; 2] {
        if cgb_mode {
            [0, 0]
        } else {
            [32, 36]
        }
    }

    /// The frame value of an object pixel of shade `shade` drawn through
    /// OBP1 (`obp1`) or OBP0: the shade, or in DMG compatibility mode the
    /// palette slot of OBJ palette 0 or 1 (see `obj_slot`).
    #[inline(always)]
    pub(super) fn obj_pixel(&self, obp1: bool, shade: u8) -> u8 {
        shade | self.obj_slot[obp1 as usize]
    }

    /// Blank the frame (shade 0 everywhere): the LCD is off, or a state
    /// with no pixels was loaded.
    pub fn clear_frame(&mut self) {
        self.frame.fill(0);
        self.lines_valid = [0; 3];
        if let Some(c) = self.cgb.as_deref_mut() {
            // A CGB's blank screen is white: slot 0 of white palettes.
            for l in c.line_pal.iter_mut() {
                for p in l.chunks_exact_mut(2) {
                    p.copy_from_slice(&0x7FFFu16.to_le_bytes());
                }
            }
        }
    }

    /// The frame, to be replaced (a loaded state's picture is decoded
    /// into it). The line cache is dropped: its rows will no longer be
    /// what it drew.
    pub fn frame_to_replace(&mut self) -> &mut [u8; PIXELS] {
        self.lines_valid = [0; 3];
        &mut self.frame
    }

    /// Draw every line with the reference renderer (the FIFO) from now on.
    /// The machine's reference switch is `Hardware::set_reference`, which
    /// calls this.
    pub(crate) fn set_reference(&mut self, on: bool) {
        self.reference = on;
    }

    /// Register read (caller has caught up).
    #[inline]
    pub fn read(&self, addr: u16) -> u8 {
        match addr {
            0xFF40 => self.lcdc,
            0xFF41 => {
                let coincidence = if self.lyc_match() { 4 } else { 0 };
                0x80 | self.stat_enables | coincidence | self.mode
            }
            0xFF42 => self.scy,
            0xFF43 => self.scx,
            0xFF44 => self.ly,
            0xFF45 => self.lyc,
            0xFF47 => self.bgp,
            0xFF48 => self.obp0,
            0xFF49 => self.obp1,
            0xFF4A => self.wy,
            _ => self.wx,
        }
    }

    /// Register write at `now` (caller has caught up); returns IF bits.
    pub fn write(&mut self, addr: u16, value: u8, now: u64) -> u8 {
        // A write during mode 3 (before its mode-0 interrupt) that can
        // change how long it lasts: the window enable, object enable and
        // LCD on bits, SCX, WY, WX.
        let retime = self.phase == Phase::ToHBlank
            && match addr {
                0xFF40 => value & 0x80 != 0 && value != self.lcdc,
                0xFF43 | 0xFF4A | 0xFF4B => value != self.read(addr),
                _ => false,
            };
        let dots_before = if retime {
            if !self.line_pending {
                // Not drawing: the writes are logged for the timing only
                // (those of an earlier line are dropped here rather than on
                // every line).
                if self.mid_writes_line != self.line_start {
                    self.mid_writes.clear();
                    self.mid_writes_line = self.line_start;
                }
                self.scan_objects();
            }
            self.fifo_mode3_dots()
        } else {
            0
        };
        if self.line_pending && addr != 0xFF41 && addr != 0xFF45 && addr != 0xFF44 {
            // A write that lands while the line is being drawn: log it with
            // its dot, and the line is drawn by the FIFO, which applies it
            // exactly there. (The FIFO can run a few dots past the mode-0
            // interrupt: its last pixels still see such writes.)
            if now < self.mode3_end + MODE3_FIFO_TAIL && now >= self.mode3_origin {
                if self.mid_writes.is_empty() {
                    self.mid_regs = self.line_regs();
                }
                self.mid_writes.push(MidWrite {
                    dot: (now - self.mode3_origin) as u32,
                    addr,
                    value,
                });
            } else {
                self.flush_line();
            }
        } else if retime {
            if self.mid_writes.is_empty() {
                self.mid_regs = self.line_regs();
            }
            self.mid_writes.push(MidWrite {
                dot: now.saturating_sub(self.mode3_origin) as u32,
                addr,
                value,
            });
        }
        if retime {
            self.retime_mode3(dots_before, now);
        }
        if self.line_rec.is_some() && matches!(addr, 0xFF42 | 0xFF43 | 0xFF4A | 0xFF4B) {
            self.note_scroll_write();
        }
        match addr {
            0xFF40 => {
                if (value ^ self.lcdc) & 0x04 != 0
                    && self.phase == Phase::ToTransfer
                    && self.mode == 2
                {
                    self.switch_scan_size(value & 0x04 != 0, now);
                }
                let was_on = self.lcd_on();
                let old_lcdc = self.lcdc;
                if was_on && value & 0x80 == 0 {
                    self.lyc_flag_off = self.lyc_match();
                }
                self.lcdc = value;
                if was_on && !self.lcd_on() {
                    self.flush_line();
                    self.ly = 0;
                    self.line = 0;
                    self.mode = 0;
                    self.phase = Phase::Off;
                    self.next = u64::MAX;
                    self.stat_line = self.compute_stat_line();
                    return 0;
                }
                // The window enabled while LY = WY on a visible line sets
                // the WY latch (the comparison only counts with LCDC.5 set:
                // gambatte window/arg/late_enable_afterVblank_3/_5).
                if value & !old_lcdc & 0x20 != 0 && was_on && self.line < 144 && self.ly == self.wy
                {
                    self.wy_triggered = true;
                }
                if !was_on && self.lcd_on() {
                    // The first line after LCD on has no OAM scan: it starts in
                    // mode 0 and enters mode 3 where mode 2 would have ended.
                    self.line = 0;
                    self.ly = 0;
                    self.mode = 0;
                    self.line_start = now.saturating_sub(LCD_ON_EARLY);
                    self.window_line = 0;
                    self.wy_triggered = false;
                    self.scan_sizes = None;
                    self.fresh_on = true;
                    self.phase = Phase::ToTransfer;
                    self.next = self.line_start + MODE3_START_DOTS;
                }
                self.update_stat()
            }
            0xFF41 => {
                self.stat_enables = (value & 0x78) | (self.stat_enables & 0x80);
                self.write_stat_input(now, false)
            }
            0xFF42 => {
                self.scy = value;
                0
            }
            0xFF43 => {
                self.scx = value;
                0
            }
            0xFF44 => 0, // LY is read-only
            0xFF45 => {
                self.lyc = value;
                self.write_stat_input(now, true)
            }
            0xFF47 => {
                self.bgp = value;
                0
            }
            0xFF48 => {
                self.obp0 = value;
                0
            }
            0xFF49 => {
                self.obp1 = value;
                0
            }
            0xFF4A => {
                self.wy = value;
                // WY meets LY at any time of a visible line, HBlank
                // included: the window latch is set from the next line on
                // (this line's mode 3 sees it from the write's dot, in the
                // FIFO). gambatte window/arg/late_wy_FFto0_ly2_1 (line 0,
                // dot 448), late_wy_10to0_ly1_2, late_wy_FFto1_ly2_2 (dot
                // 452), late_wy_FFto2_ly2_*, late_wy_10to1_ly1_* (mode 3).
                if value == self.ly && self.line < 144 && self.lcdc & 0xA0 == 0xA0 {
                    self.wy_triggered = true;
                }
                0
            }
            _ => {
                self.wx = value;
                0
            }
        }
    }
}

/// The (R) mark the DMG boot ROM puts after the logo (tile 25, one byte a
/// row, low bit plane).
const BOOT_REGISTERED_MARK: [u8; 8] = [0x3C, 0x42, 0xB9, 0xA5, 0xB9, 0xA5, 0x42, 0x3C];

/// Dots into line 153 at which the DMG boot ROM hands over (PC=0x100)
/// (GBMicrotest poweron_ly_*, poweron_stat_*, poweron_oam_*, poweron_vram_*).
const POST_BOOT_LINE153_DOTS: u64 = 396;

impl Stateful for Ppu {
    fn save(&self, w: &mut StateWriter) {
        w.begin_section(b"PPU ");
        w.raw(&self.vram[..]);
        w.raw(&self.oam);
        for v in [
            self.lcdc,
            self.stat_enables & 0x78,
            self.scy,
            self.scx,
            self.ly,
            self.lyc,
            self.bgp,
            self.obp0,
            self.obp1,
            self.wy,
            self.wx,
            self.mode,
            self.line,
        ] {
            w.u8(v);
        }
        w.u64(self.line_start);
        w.u64(self.next);
        w.u8(match self.phase {
            Phase::ToTransfer => 0,
            Phase::ToHBlank => 1,
            Phase::ToNextLine => 2,
            Phase::ToLy0 => 3,
            Phase::Off => 4,
            Phase::ToMode2 => 5,
            Phase::ToHBlankRead => 6,
            Phase::ToOamIrq => 7,
            Phase::ToLy0Irq => 8,
            Phase::ToLy0Flag => 9,
            Phase::ToMode1 => 10,
        });
        w.bool(self.stat_line);
        w.bool(self.frame_ready);
        w.bool(self.lyc_flag_off);
        // The window's WY latch and the OAM scan's object sizes time mode 3.
        w.bool(self.wy_triggered);
        w.bool(self.wy_at_m3);
        w.u64(self.scan_sizes.map_or(u64::MAX, ScanSizes::get));
        w.end_section();
    }

    fn load(&mut self, r: &mut StateReader) -> Result<()> {
        r.begin_section(b"PPU ")?;
        self.vram.copy_from_slice(r.raw(0x2000)?);
        self.oam.copy_from_slice(r.raw(0xA0)?);
        self.obj_lines_valid = false;
        self.content_gen += 1;
        self.lcdc = r.u8()?;
        self.stat_enables = (r.u8()? & 0x78) | (self.stat_enables & 0x80);
        self.scy = r.u8()?;
        self.scx = r.u8()?;
        self.ly = r.u8()?;
        self.lyc = r.u8()?;
        self.bgp = r.u8()?;
        self.obp0 = r.u8()?;
        self.obp1 = r.u8()?;
        self.wy = r.u8()?;
        self.wx = r.u8()?;
        self.mode = r.u8()?;
        self.line = r.u8()?;
        self.line_start = r.u64()?;
        self.next = r.u64()?;
        self.phase = match r.u8()? {
            0 => Phase::ToTransfer,
            1 => Phase::ToHBlank,
            2 => Phase::ToNextLine,
            3 => Phase::ToLy0,
            4 => Phase::Off,
            5 => Phase::ToMode2,
            6 => Phase::ToHBlankRead,
            7 => Phase::ToOamIrq,
            8 => Phase::ToLy0Irq,
            9 => Phase::ToLy0Flag,
            10 => Phase::ToMode1,
            p => {
                return Err(Error::InvalidState(format!(
                    "corrupted state: PPU phase {p} is out of range"
                )))
            }
        };
        self.stat_line = r.bool()?;
        self.frame_ready = r.bool()?;
        // Rendering state is derived: a line in progress is finished with
        // the loaded registers.
        self.mid_writes.clear();
        self.lyc_flag_off = r.bool()?;
        self.wy_triggered = r.bool()?;
        self.wy_at_m3 = r.bool()?;
        self.scan_sizes = match r.u64()? {
            u64::MAX => None,
            m if m >> 40 == 0 => Some(ScanSizes::new(m)),
            m => {
                return Err(Error::InvalidState(format!(
                    "corrupted state: PPU object sizes {m:#x} out of range"
                )))
            }
        };
        if self.mode > 3 || self.line > 153 || self.ly > 153 {
            return Err(Error::InvalidState(format!(
                "corrupted state: PPU mode {} / line {} / LY {} out of range",
                self.mode, self.line, self.ly
            )));
        }
        if (self.phase == Phase::Off) != (self.next == u64::MAX) {
            return Err(Error::InvalidState(
                "corrupted state: PPU schedule is inconsistent".into(),
            ));
        }
        r.end_section()
    }
}

// ---- PyBoy compatibility (`crate::pyboy::hooks`, `crate::pyboy::state`) ----------
//
// Read-only timing queries and a state import; nothing here runs during
// ordinary emulation.

/// Where a PPU imported from another emulator's save state stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PpuPosition {
    /// LCD off; the STAT LY=LYC flag as it was last compared.
    Off { lyc_flag: bool },
    /// LCD on, `dots` T-cycles after the start of line 0 of this frame.
    InFrame { dots: u64 },
    /// LCD switched on at T-cycle `at` and still in its first frame.
    SwitchedOnAt { at: u64 },
}

impl Ppu {
    /// When line 0 of the next frame starts (`None` while the LCD is off).
    /// The caller has caught up.
    pub(crate) fn next_frame_start(&self) -> Option<u64> {
        (self.phase != Phase::Off).then(|| self.next_line_start(0))
    }

    /// Replace VRAM and OAM and set the STAT interrupt enables (`stat` bits
    /// 3-6) and LYC, as another emulator's save state gives them (the other
    /// registers are public fields); then [`Ppu::import_position`].
    pub(crate) fn import_memory(
        &mut self,
        vram: &[u8; 0x2000],
        oam: &[u8; 0xA0],
        stat: u8,
        lyc: u8,
    ) {
        self.vram.copy_from_slice(vram);
        self.oam.copy_from_slice(oam);
        self.obj_lines_valid = false;
        self.content_gen += 1;
        self.stat_enables = (stat & 0x78) | (self.stat_enables & 0x80);
        self.lyc = lyc;
    }

    /// A CGB's VRAM banks, VBK, palette RAM, BCPS/OCPS and OPRI from an
    /// imported state (`None` fields keep the machine's); nothing on a DMG.
    /// Call after [`Ppu::import_memory`], whose VRAM is bank 0.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn import_cgb(
        &mut self,
        vram1: Option<&[u8; 0x2000]>,
        vbk: u8,
        pal: Option<&[u8; 128]>,
        bcps: Option<u8>,
        ocps: Option<u8>,
        opri: Option<u8>,
    ) {
        let Some(c) = self.cgb.as_deref_mut() else {
            return;
        };
        // `import_memory` wrote bank 0 where the CPU's bank is: VBK 0.
        c.vbk = 0;
        if let Some(v) = vram1 {
            c.vram_other.copy_from_slice(v);
        }
        if vbk & 1 != 0 {
            c.vbk = 1;
            std::mem::swap(&mut self.vram, &mut c.vram_other);
        }
        if let Some(p) = pal {
            c.pal = *p;
        }
        if let Some(v) = bcps {
            c.bcps = v & 0xBF;
        }
        if let Some(v) = ocps {
            c.ocps = v & 0xBF;
        }
        if let Some(v) = opri {
            c.opri = v & 1;
        }
        self.obj_lines_valid = false;
        self.content_gen += 1;
    }

    /// Replace a CGB's last drawn frame: palette slots (0-63), every line
    /// drawn with the palette RAM as it is now.
    pub(crate) fn import_frame_cgb(&mut self, slots: &[u8; PIXELS]) {
        self.frame.copy_from_slice(slots);
        self.lines_valid = [0; 3];
        if let Some(c) = self.cgb.as_deref_mut() {
            let pal = c.pal;
            c.line_pal.iter_mut().for_each(|l| *l = pal);
        }
    }

    /// Replace the last drawn frame (shades 0..=3, row-major).
    pub(crate) fn import_frame(&mut self, shades: &[u8; PIXELS]) {
        self.frame.copy_from_slice(shades);
        self.lines_valid = [0; 3];
    }

    /// Put the PPU where `position` says at time `now`, by running its own
    /// transitions there from the start of the frame (or from the LCD
    /// switch-on) with the registers, VRAM and OAM it has now: the line,
    /// mode, mode-3 length and STAT line come out as this PPU would have
    /// them. Nothing is drawn and no interrupt is requested (the imported IF
    /// says which are); the frame being drawn is lost.
    pub(crate) fn import_position(&mut self, now: u64, position: PpuPosition) {
        self.flush_line();
        self.mid_writes.clear();
        self.line_pending = false;
        self.rendering = false;
        self.window_line = 0;
        self.window_starts = 0;
        self.wy_triggered = false;
        self.fresh_on = false;
        self.blank_frame = false;
        match position {
            PpuPosition::Off { lyc_flag } => {
                self.lcdc &= 0x7F;
                self.ly = 0;
                self.line = 0;
                self.mode = 0;
                self.phase = Phase::Off;
                self.next = u64::MAX;
                self.lyc_flag_off = lyc_flag;
            }
            PpuPosition::InFrame { dots } => {
                self.lcdc |= 0x80;
                let start = now - dots % DOTS_PER_FRAME;
                // Line 153 of the previous frame, LY already reading 0,
                // about to raise the OAM-scan pulse of line 0.
                self.line = 153;
                self.ly = 0;
                self.mode = 1;
                self.line_start = start - DOTS_PER_LINE;
                self.phase = Phase::ToOamIrq;
                self.next = start - MODE2_IRQ_EARLY;
                self.stat_line = self.compute_stat_line();
                self.catch_up(now);
            }
            PpuPosition::SwitchedOnAt { at } => {
                let lcdc = self.lcdc | 0x80;
                self.lcdc &= 0x7F;
                self.phase = Phase::Off;
                self.next = u64::MAX;
                self.stat_line = self.compute_stat_line();
                self.write(0xFF40, lcdc, at);
                self.catch_up(now);
            }
        }
        self.frame_ready = false;
        self.late_irq = 0;
        self.late_halt_irq = 0;
        self.stat_line = self.compute_stat_line();
        self.lines_valid = [0; 3];
    }
}

/// Registers of [`LineRecord`]: SCX, SCY, WX, WY.
pub type LineRegisters = [u8; 4];

/// The scroll and window registers each visible line was drawn with, for
/// the frame being drawn and the one before. Filled when one of them is
/// written (the lines already past their mode 3 keep the old values), so
/// frames without such writes cost nothing.
#[derive(Clone, Debug)]
pub struct LineRecord {
    /// Start time of the frame `cur` belongs to (`u64::MAX`: none yet).
    frame: u64,
    /// Lines of `cur` known.
    filled: usize,
    cur: [LineRegisters; 144],
    /// Start time of the frame `prev` belongs to, complete.
    prev_frame: u64,
    prev: [LineRegisters; 144],
}

impl LineRecord {
    fn new() -> LineRecord {
        LineRecord {
            frame: u64::MAX,
            filled: 0,
            cur: [[0; 4]; 144],
            prev_frame: u64::MAX,
            prev: [[0; 4]; 144],
        }
    }

    /// The registers were `regs` for lines `filled..upto` of the frame that
    /// started at `frame` (and for the lines of earlier frames not noted).
    fn note(&mut self, frame: u64, upto: usize, regs: LineRegisters) {
        if frame != self.frame {
            if self.frame != u64::MAX {
                self.cur[self.filled..].fill(regs);
                self.prev = self.cur;
                self.prev_frame = self.frame;
            }
            let before = frame.wrapping_sub(DOTS_PER_FRAME);
            if self.prev_frame != before {
                // The frame before had no writes: `regs` all along.
                self.prev = [regs; 144];
                self.prev_frame = before;
            }
            self.frame = frame;
            self.filled = 0;
        }
        if upto > self.filled {
            self.cur[self.filled..upto].fill(regs);
            self.filled = upto;
        }
    }

    /// Line `l` of the frame that started at `frame`, given the registers now.
    fn line(&self, frame: u64, l: usize, now: LineRegisters) -> LineRegisters {
        if frame == self.frame {
            if l < self.filled {
                self.cur[l]
            } else {
                now
            }
        } else if frame == self.prev_frame {
            self.prev[l]
        } else {
            now
        }
    }
}

impl Ppu {
    /// Start (or stop) keeping [`Ppu::line_registers`].
    pub fn record_line_registers(&mut self, on: bool) {
        if on != self.line_rec.is_some() {
            self.line_rec = on.then(|| Box::new(LineRecord::new()));
        }
    }

    /// The current frame's start time and how many of its visible lines are
    /// drawn (past their mode 3), with the LCD on; the PPU is caught up.
    fn frame_position(&self) -> (u64, usize) {
        let frame = self
            .line_start
            .wrapping_sub(self.line as u64 * DOTS_PER_LINE);
        let line = self.line as usize;
        let drawn = if line >= 144 {
            144
        } else if matches!(
            self.phase,
            Phase::ToMode2 | Phase::ToTransfer | Phase::ToHBlank
        ) {
            line
        } else {
            line + 1
        };
        (frame, drawn)
    }

    /// T-cycles since the current frame's line 0 began (LCD on; the PPU
    /// caught up), or None with the LCD off.
    pub fn frame_dots(&self, now: u64) -> Option<u64> {
        if !self.lcd_on() {
            return None;
        }
        Some(now.wrapping_sub(self.frame_position().0))
    }

    /// STAT's interrupt enable bits (3-6).
    pub fn stat_enables(&self) -> u8 {
        self.stat_enables
    }

    fn scroll_registers(&self) -> LineRegisters {
        [self.scx, self.scy, self.wx, self.wy]
    }

    /// A write to SCX, SCY, WX or WY is about to land (caught up).
    fn note_scroll_write(&mut self) {
        if !self.lcd_on() {
            return;
        }
        let (frame, drawn) = self.frame_position();
        let regs = self.scroll_registers();
        if let Some(rec) = self.line_rec.as_deref_mut() {
            rec.note(frame, drawn, regs);
        }
    }

    /// SCX, SCY, WX, WY of each visible line as last drawn: the lines of the
    /// current frame drawn so far, the previous frame's for the others (what
    /// PyBoy's `tilemap_position_list` holds at any time). `None` when not
    /// recording. The PPU must be caught up.
    pub fn line_registers(&self) -> Option<Vec<LineRegisters>> {
        let rec = self.line_rec.as_deref()?;
        let now = self.scroll_registers();
        let (frame, drawn) = self.frame_position();
        let before = frame.wrapping_sub(DOTS_PER_FRAME);
        Some(
            (0..144)
                .map(|l| {
                    if l < drawn {
                        rec.line(frame, l, now)
                    } else {
                        rec.line(before, l, now)
                    }
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod line_record_tests {
    use super::*;

    const F: u64 = DOTS_PER_FRAME;

    #[test]
    fn lines_keep_the_registers_they_were_drawn_with() {
        let mut rec = LineRecord::new();
        let (a, b, c) = ([1, 0, 0, 0], [2, 0, 0, 0], [3, 0, 0, 0]);
        // Frame 10: `a` until line 40, `b` from there; frame 11: `c` from line 0.
        rec.note(10 * F, 40, a);
        rec.note(11 * F, 0, b);
        assert_eq!(rec.line(10 * F, 0, c), a);
        assert_eq!(rec.line(10 * F, 39, c), a);
        assert_eq!(rec.line(10 * F, 40, c), b);
        assert_eq!(rec.line(10 * F, 143, c), b);
        // The current frame: what is noted, then the registers now.
        assert_eq!(rec.line(11 * F, 0, c), c);
        // A frame with no writes had the registers of the next write's "before".
        rec.note(13 * F, 10, c);
        assert_eq!(rec.line(12 * F, 100, a), c);
        assert_eq!(rec.line(13 * F, 5, a), c);
        // Frames not recorded: the registers now.
        assert_eq!(rec.line(5 * F, 5, a), a);
    }
}
