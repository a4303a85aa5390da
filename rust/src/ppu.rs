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

use crate::error::{Error, Result};
use crate::screen::{HEIGHT, PIXELS, WIDTH};
use crate::state::{StateReader, StateWriter, Stateful};

pub const IRQ_VBLANK: u8 = 0x01;
pub const IRQ_STAT: u8 = 0x02;

pub const DOTS_PER_LINE: u64 = 456;
pub const LINES_PER_FRAME: u64 = 154;
pub const DOTS_PER_FRAME: u64 = DOTS_PER_LINE * LINES_PER_FRAME;
const LINES: usize = LINES_PER_FRAME as usize;
const OAM_SCAN_DOTS: u64 = 80;
const MODE3_BASE_DOTS: u64 = 172;

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
    obj_lines: Box<[u8; LINES]>,
    obj_lines_valid: bool,
    obj_lines_tall: bool,
    pub lcdc: u8,
    /// STAT interrupt enables (bits 3..6).
    stat_enables: u8,
    pub scy: u8,
    pub scx: u8,
    ly: u8,
    lyc: u8,
    pub bgp: u8,
    pub obp0: u8,
    pub obp1: u8,
    pub wy: u8,
    pub wx: u8,
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
    pub frame_ready: bool,
    /// IF bits raised by transitions inside the M-cycle ending at
    /// `late_irq_at` (transient; see `Hardware::catch_up_ppu`).
    pub late_irq: u8,
    pub late_irq_at: u64,
    /// The part of `late_irq` raised too late in its M-cycle for a halted
    /// CPU to wake in it.
    pub late_halt_irq: u8,
    // ---- Pixel output (derived; not part of save states) ---------------
    /// Draw the lines of the current frame (set by the machine per frame).
    pub rendering: bool,
    /// Draw every line with the dot-accurate FIFO instead of the fast renderer.
    pub reference_renderer: bool,
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
    pub blank_frame: bool,
    /// LY matched WY on some line of this frame (the window may start).
    wy_triggered: bool,
    /// Register writes that landed during this line's mode 3, with the
    /// registers as they were before the first of them: the line is drawn
    /// by the dot-accurate FIFO when it ends.
    mid_writes: Vec<MidWrite>,
    mid_regs: LineRegs,
    /// Time of FIFO dot 0 of this line's mode 3, and of the mode-0
    /// interrupt that ends it.
    mode3_origin: u64,
    mode3_end: u64,
}

impl Ppu {
    /// The PPU as the DMG boot ROM leaves it: LCD on, near the end of VBlank.
    pub fn post_boot() -> Ppu {
        let mut p = Ppu {
            vram: Box::new([0; 0x2000]),
            oam: [0; 0xA0],
            obj_lines: Box::new([0; LINES]),
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
            late_irq: 0,
            late_irq_at: 0,
            late_halt_irq: 0,
            rendering: false,
            reference_renderer: false,
            frame: Box::new([0; PIXELS]),
            content_gen: 0,
            cache_gen: 0,
            lines_valid: [0; 3],
            line_keys: [0; HEIGHT],
            scan_gen: 0,
            scan_tall: false,
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
            mid_writes: Vec::new(),
            mid_regs: LineRegs::default(),
            mode3_origin: 0,
            mode3_end: 0,
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

    /// Time of the next transition (u64::MAX when the LCD is off).
    #[inline]
    pub fn next_transition(&self) -> u64 {
        self.next
    }

    /// Start time of the next occurrence of line `l` (after the current line).
    fn next_line_start(&self, l: u8) -> u64 {
        // The line after the current one starts at `after`.
        let after = match self.phase {
            Phase::ToNextLine => self.next,
            _ => self.line_start + DOTS_PER_LINE,
        };
        let first = if self.line == 153 { 0 } else { self.line + 1 };
        let lines_ahead = (l as u64 + LINES_PER_FRAME - first as u64) % LINES_PER_FRAME;
        after + lines_ahead * DOTS_PER_LINE
    }

    /// When the scheduler must next bring the PPU up to date: the next
    /// transition that can raise an interrupt or end a frame. Transitions
    /// that cannot are processed lazily when the CPU touches the PPU (every
    /// PPU register, VRAM and OAM access catches up first), so a frame with
    /// no STAT interrupts enabled costs one wake-up instead of hundreds.
    pub fn next_event(&self) -> u64 {
        if self.phase == Phase::Off {
            return u64::MAX;
        }
        let e = self.stat_enables;
        if e & 0x28 != 0 {
            // Mode 0 / mode 2 STAT sources: every transition may matter.
            return self.next;
        }
        // VBlank (IF.0, mode-1 STAT source, frame end) starts with line 144.
        let mut t = self.next_line_start(144);
        if e & 0x40 != 0 {
            // The LY=LYC interrupt input changes when LY does (line 153:
            // LYC=0 matches two M-cycles after LY reads 0).
            let lyc_t = match self.lyc {
                0 => match self.phase {
                    Phase::ToLy0Irq => self.next,
                    Phase::ToLy0 => self.next + LY0_IRQ_DOTS - STAT_MODE2_LAG,
                    _ => self.next_line_start(153) + LY0_IRQ_DOTS,
                },
                1..=153 => self.next_line_start(self.lyc),
                _ => u64::MAX,
            };
            t = t.min(lyc_t);
        }
        t
    }

    /// The STAT mode sources active now, as their STAT enable bits (0x08
    /// HBlank, 0x10 VBlank, 0x20 OAM scan). The interrupt logic runs ahead
    /// of the STAT mode bits: the HBlank source rises an M-cycle before STAT
    /// reads mode 0. The OAM-scan source is no level but a pulse from one
    /// M-cycle before a line starts until STAT reads mode 2 (line 0: from
    /// its start; DMG: also before line 144), so enabling it during mode 2
    /// raises nothing (GBMicrotest lcdon_to_oam_int_*, oam_int_*).
    #[inline]
    fn mode_sources(&self) -> u8 {
        match self.phase {
            Phase::ToHBlankRead | Phase::ToOamIrq if self.line < 144 => 0x08,
            Phase::ToNextLine => match self.line {
                0..=143 => 0x28,
                _ => 0x10,
            },
            Phase::ToOamIrq
            | Phase::ToMode1
            | Phase::ToLy0
            | Phase::ToLy0Irq
            | Phase::ToLy0Flag => 0x10,
            Phase::ToMode2 => 0x20,
            _ => 0,
        }
    }

    /// The STAT LY=LYC flag. It is 0 for the first M-cycle of lines 1..=153;
    /// on line 153 it then still compares 153 for an M-cycle while LY reads
    /// 0, is 0 again for an M-cycle, and compares 0 from then on (GBMicrotest
    /// line_153_lyc0_stat_timing_*, line_153_lyc153_stat_timing_*).
    #[inline]
    fn lyc_match(&self) -> bool {
        if !self.lcd_on() {
            return self.lyc_flag_off;
        }
        match self.phase {
            Phase::ToMode2 => self.line == 0 && self.lyc == 0,
            // Line 153: off, then still 153 while LY reads 0, off again.
            Phase::ToLy0 | Phase::ToLy0Flag => false,
            Phase::ToLy0Irq => self.lyc == 153,
            _ => self.ly == self.lyc,
        }
    }

    /// The LY=LYC input of the STAT interrupt logic: the comparison one
    /// M-cycle ahead of the STAT flag (line 153: LYC=0 matches at +8).
    #[inline]
    fn lyc_irq(&self) -> bool {
        self.ly == self.lyc && self.phase != Phase::ToLy0Irq
    }

    fn compute_stat_line(&self) -> bool {
        let e = self.stat_enables;
        if !self.lcd_on() {
            return e & 0x40 != 0 && self.lyc_flag_off;
        }
        (e & 0x40 != 0 && self.lyc_irq()) || e & self.mode_sources() != 0
    }

    /// The STAT interrupt line (any enabled source active).
    #[inline]
    pub fn stat_line(&self) -> bool {
        self.stat_line
    }

    /// Re-evaluate the STAT line; returns IRQ_STAT on a rising edge.
    #[inline]
    fn update_stat(&mut self) -> u8 {
        let new = self.compute_stat_line();
        let rising = new && !self.stat_line;
        self.stat_line = new;
        if rising {
            IRQ_STAT
        } else {
            0
        }
    }

    /// Consistency check of the schedule after loading a state.
    pub fn check(&self) -> Result<()> {
        let ok = match self.phase {
            Phase::Off => self.next == u64::MAX,
            _ => self.next >= self.line_start && self.next - self.line_start <= DOTS_PER_LINE,
        };
        if ok {
            Ok(())
        } else {
            Err(Error::InvalidState(format!(
                "corrupted state: PPU line start {} and next transition {} are inconsistent",
                self.line_start, self.next
            )))
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

    /// The shades (0..=3) of the last frame drawn, row-major.
    #[inline]
    pub fn frame(&self) -> &[u8; PIXELS] {
        &self.frame
    }

    /// Heap bytes owned beside the inline size: VRAM, the frame of shades
    /// and the object-line table.
    pub fn heap_bytes(&self) -> usize {
        self.vram.len() + self.frame.len() + self.obj_lines.len()
    }

    /// Blank the frame (shade 0 everywhere): the LCD is off, or a state
    /// with no pixels was loaded.
    pub fn clear_frame(&mut self) {
        self.frame.fill(0);
        self.lines_valid = [0; 3];
    }

    /// How many objects overlap line `ly` (rebuilding the index if stale).
    fn objects_on_line(&mut self, ly: u8, tall: bool) -> u8 {
        if !self.obj_lines_valid || self.obj_lines_tall != tall {
            let height = if tall { 16 } else { 8 };
            self.obj_lines.fill(0);
            for i in 0..40 {
                let top = self.oam[i * 4] as usize;
                // Object Y is the screen line + 16.
                for line in top.saturating_sub(16)..(top + height).saturating_sub(16) {
                    if line < LINES {
                        self.obj_lines[line] += 1;
                    }
                }
            }
            self.obj_lines_valid = true;
            self.obj_lines_tall = tall;
        }
        self.obj_lines[ly as usize]
    }

    /// Length of mode 3 on the current line, in dots: 172 plus the SCX fine
    /// scroll discard, plus object fetch penalties (Pan Docs "Mode 3 length"):
    /// each object costs 6 dots, plus up to 5 more while the background fetch
    /// it interrupts finishes (paid once per background tile: the leftmost
    /// object in a tile pays the most); an object at X=0 also waits for the
    /// SCX discard.
    fn mode3_dots(&mut self) -> u64 {
        let fine = (self.scx & 7) as u64;
        let mut dots = MODE3_BASE_DOTS + fine;
        let tall = self.lcdc & 0x04 != 0;
        if self.lcdc & 0x02 != 0 && self.objects_on_line(self.ly, tall) != 0 {
            let height = if tall { 16 } else { 8 };
            let ly = self.ly as i32;
            let mut count = 0;
            let mut tile_wait = [0u8; 22];
            let mut at_x0 = false;
            for i in 0..40 {
                let y = self.oam[i * 4] as i32 - 16;
                if ly < y || ly >= y + height {
                    continue;
                }
                let x = self.oam[i * 4 + 1] as u64;
                if x < 168 {
                    dots += 6;
                    at_x0 |= x == 0;
                    let px = x + fine;
                    let w = &mut tile_wait[(px >> 3) as usize];
                    *w = (*w).max(5u8.saturating_sub((px & 7) as u8));
                }
                count += 1;
                if count == 10 {
                    break;
                }
            }
            dots += tile_wait.iter().map(|&w| w as u64).sum::<u64>();
            if at_x0 {
                dots += fine;
            }
        }
        if self.lcdc & 0x20 != 0 && self.wx <= 166 && self.ly >= self.wy {
            dots += 6;
        }
        dots
    }

    /// Process every transition due at or before `now`; returns IF bits.
    #[inline]
    pub fn catch_up(&mut self, now: u64) -> u8 {
        let mut irq = 0;
        while self.next <= now {
            // `skip_lines` needs `now` a whole line past the end of the
            // current line, which ends at or after `next`: most catch-ups
            // (a CPU polling STAT or LY) are nowhere near, and skip the call.
            if now >= self.next + DOTS_PER_LINE {
                irq |= self.skip_lines(now);
            }
            let t = self.next;
            let was = self.phase;
            let bits = self.transition();
            if bits != 0 {
                // Remember which M-cycle raised them: the end of the M-cycle
                // the transition falls in (CPU accesses are M-cycle aligned).
                let m = (t + 3) & !3;
                if self.late_irq_at != m {
                    self.late_irq_at = m;
                    self.late_irq = 0;
                    self.late_halt_irq = 0;
                }
                self.late_irq |= bits;
                // Requests raised in the second half of their M-cycle are
                // not latched by a halted CPU until the next one: the
                // mode-0 edge (which SCX and objects move dot by dot;
                // Mooneye hblank_ly_scx_timing-GS against GBMicrotest
                // hblank_int_scx*) and the OAM-scan pulse, which rises on
                // the last dot before its M-cycle ends.
                let halt_late = match was {
                    Phase::ToHBlank => t & 3 != 1 && t & 3 != 2,
                    Phase::ToOamIrq => true,
                    _ => false,
                };
                if halt_late {
                    self.late_halt_irq |= bits;
                }
                irq |= bits;
            }
        }
        irq
    }

    /// Fast path of `catch_up`: jump over whole lines whose transitions can
    /// have no visible effect (no mode 0/2 STAT source enabled, not crossing
    /// the start of VBlank, line 153 or the LYC line), landing at the end of
    /// the last skipped line. The reference path never takes it (it catches
    /// up every M-cycle), and the reference-path tests check both agree.
    fn skip_lines(&mut self, now: u64) -> u8 {
        if self.stat_enables & 0x28 != 0 || self.phase == Phase::Off || self.line >= 152 {
            return 0;
        }
        // Drawing: the current line must have started its pixels already
        // (its OAM scan is behind it), so that it can be finished here.
        if self.rendering
            && self.line < 144
            && matches!(self.phase, Phase::ToMode2 | Phase::ToTransfer)
        {
            return 0;
        }
        let next_start = match self.phase {
            Phase::ToNextLine => self.next,
            _ => self.line_start + DOTS_PER_LINE,
        };
        if now < next_start + DOTS_PER_LINE {
            return 0;
        }
        let c = self.line as u64;
        // The line that contains `now`...
        let mut target = c + 1 + (now - next_start) / DOTS_PER_LINE;
        // ...but stop before VBlank starts / line 153 / the LYC line starts.
        target = target.min(if c < 144 { 144 } else { 153 });
        if self.stat_enables & 0x40 != 0 && (self.lyc as u64) > c {
            target = target.min(self.lyc as u64);
        }
        let last = target - 1; // the line whose end we land on
        if last <= c {
            return 0;
        }
        if self.rendering {
            // Nothing can change the skipped lines' pixels (every write that
            // could catches the PPU up first), so draw them whole now.
            self.flush_line();
            for l in c + 1..=last.min(143) {
                self.ly = l as u8;
                self.start_line_drawing();
                self.finish_line_drawing();
            }
        }
        self.line = last as u8;
        self.ly = self.line;
        self.line_start = next_start + (last - c - 1) * DOTS_PER_LINE;
        self.next = self.line_start + DOTS_PER_LINE;
        self.phase = Phase::ToNextLine;
        self.mode = if last < 144 { 0 } else { 1 };
        self.update_stat()
    }

    fn transition(&mut self) -> u8 {
        let mut irq = 0;
        match self.phase {
            Phase::ToMode2 => {
                self.mode = 2;
                self.phase = Phase::ToTransfer;
                self.next = self.line_start + MODE3_START_DOTS;
            }
            Phase::ToTransfer => {
                if self.rendering {
                    self.start_line_drawing();
                }
                // Line 0 after the LCD is turned on runs two dots late.
                let irq_dots = if self.mode == 0 {
                    MODE0_IRQ_DOTS + 2
                } else {
                    MODE0_IRQ_DOTS
                };
                self.mode3_origin = self.line_start + FIFO_ORIGIN + irq_dots - MODE0_IRQ_DOTS;
                self.mode = 3;
                self.phase = Phase::ToHBlank;
                self.next = self.line_start + irq_dots + self.mode3_dots() - MODE3_BASE_DOTS;
                self.mode3_end = self.next;
            }
            Phase::ToHBlank => {
                // The mode-0 interrupt fires now; STAT reads mode 3 (and
                // VRAM/OAM stay locked) a little longer.
                self.phase = Phase::ToHBlankRead;
                self.next += MODE0_READ_LAG;
            }
            Phase::ToHBlankRead => {
                self.mode = 0;
                self.phase = Phase::ToOamIrq;
                self.next = self.line_start + DOTS_PER_LINE - MODE2_IRQ_EARLY;
            }
            Phase::ToOamIrq => {
                self.phase = Phase::ToNextLine;
                self.next = self.line_start + DOTS_PER_LINE;
            }
            Phase::ToNextLine => {
                self.flush_line();
                // The next line starts exactly when this transition is due.
                self.line_start = self.next;
                self.line = if self.line == 153 { 0 } else { self.line + 1 };
                self.ly = self.line;
                match self.line {
                    0..=143 => {
                        // STAT still reads mode 0 (line 0: from VBlank, 0
                        // too on the DMG) for one M-cycle.
                        self.mode = 0;
                        self.phase = Phase::ToMode2;
                        self.next = self.line_start + STAT_MODE2_LAG;
                    }
                    144 => {
                        // STAT reads mode 0 for one more M-cycle.
                        self.mode = 0;
                        self.window_line = 0;
                        self.wy_triggered = false;
                        self.blank_frame = self.fresh_on;
                        self.fresh_on = false;
                        self.frame_ready = true;
                        irq |= IRQ_VBLANK;
                        self.phase = Phase::ToMode1;
                        self.next = self.line_start + STAT_MODE2_LAG;
                    }
                    153 => {
                        self.phase = Phase::ToLy0;
                        self.next = self.line_start + STAT_MODE2_LAG;
                    }
                    _ => {
                        self.phase = Phase::ToNextLine;
                        self.next = self.line_start + DOTS_PER_LINE;
                    }
                }
            }
            Phase::ToMode1 => {
                self.mode = 1;
                self.phase = Phase::ToNextLine;
                self.next = self.line_start + DOTS_PER_LINE;
            }
            Phase::ToLy0 => {
                self.ly = 0;
                self.phase = Phase::ToLy0Irq;
                self.next = self.line_start + LY0_IRQ_DOTS;
            }
            Phase::ToLy0Irq => {
                self.phase = Phase::ToLy0Flag;
                self.next = self.line_start + LY0_FLAG_DOTS;
            }
            Phase::ToLy0Flag => {
                self.phase = Phase::ToOamIrq;
                self.next = self.line_start + DOTS_PER_LINE - MODE2_IRQ_EARLY;
            }
            Phase::Off => {
                self.next = u64::MAX;
            }
        }
        irq | self.update_stat()
    }

    /// Whether a CPU read of OAM at `now` is refused (reads 0xFF): from the
    /// start of a visible line (the LY change, one M-cycle before STAT reads
    /// mode 2) until STAT reads mode 0. Line 0 after the LCD is turned on has
    /// no OAM scan: OAM locks with mode 3.
    #[inline]
    pub fn oam_read_blocked(&self) -> bool {
        match self.phase {
            Phase::ToMode2 | Phase::ToHBlank | Phase::ToHBlankRead => true,
            Phase::ToTransfer => self.mode == 2,
            _ => false,
        }
    }

    /// Whether a CPU write to OAM at `now` is dropped. Writes lock one
    /// M-cycle later than reads at the line start, and pass in the M-cycle
    /// between the OAM scan and mode 3 (Mooneye lcdon_write_timing-GS).
    #[inline]
    pub fn oam_write_blocked(&self, now: u64) -> bool {
        match self.phase {
            Phase::ToHBlank | Phase::ToHBlankRead => true,
            Phase::ToTransfer => self.mode == 2 && now < self.line_start + MODE3_START_DOTS - 4,
            _ => false,
        }
    }

    /// Whether a CPU read of VRAM at `now` is refused: during mode 3, which
    /// locks VRAM reads one M-cycle before STAT reads 3 (except on line 0
    /// after the LCD is turned on), until STAT reads mode 0.
    #[inline]
    pub fn vram_read_blocked(&self, now: u64) -> bool {
        match self.phase {
            Phase::ToHBlank | Phase::ToHBlankRead => true,
            Phase::ToTransfer => self.mode == 2 && now >= self.line_start + MODE3_START_DOTS - 4,
            _ => false,
        }
    }

    /// Whether a CPU write to VRAM is dropped: while STAT reads mode 3.
    #[inline]
    pub fn vram_write_blocked(&self) -> bool {
        matches!(self.phase, Phase::ToHBlank | Phase::ToHBlankRead)
    }

    /// Register read (caller has caught up).
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
        }
        match addr {
            0xFF40 => {
                let was_on = self.lcd_on();
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
                if !was_on && self.lcd_on() {
                    // The first line after LCD on has no OAM scan: it starts in
                    // mode 0 and enters mode 3 where mode 2 would have ended.
                    self.line = 0;
                    self.ly = 0;
                    self.mode = 0;
                    self.line_start = now.saturating_sub(LCD_ON_EARLY);
                    self.window_line = 0;
                    self.wy_triggered = false;
                    self.fresh_on = true;
                    self.phase = Phase::ToTransfer;
                    self.next = self.line_start + MODE3_START_DOTS;
                }
                self.update_stat()
            }
            0xFF41 => {
                // DMG quirk (Pan Docs, STAT): for one cycle the write acts as
                // if every source were enabled, so an active condition raises
                // the interrupt on a low line. GBMicrotest stat_write_glitch_*
                // (verified on a DMG) show it for HBlank, VBlank and LY=LYC
                // but not during the OAM scan or mode 3. Nor on line 0 after
                // the LCD is switched on, before its first mode 3: STAT reads
                // mode 0 there, but HBlank has not begun (GBMicrotest
                // lyc1_int_nops_a/b, lyc1_int_halt_a/b, verified on a DMG:
                // a STAT write right after LCD on raises no interrupt).
                let fresh_line0 = self.mode == 0 && self.phase == Phase::ToTransfer;
                let active = self.lyc_match() || (self.lcd_on() && self.mode <= 1 && !fresh_line0);
                let glitch = if active && !self.stat_line {
                    IRQ_STAT
                } else {
                    0
                };
                self.stat_enables = value & 0x78;
                glitch | self.update_stat()
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
                self.update_stat()
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

// Line timing, in dots from a line's start (`line_start`, when LY changes).
// The CPU samples on M-cycle boundaries, so mostly only which boundary an
// edge falls before matters. Fitted to Mooneye's lcdon_timing-GS and
// lcdon_write_timing-GS tables (LY, STAT, OAM/VRAM read and write windows at
// every M-cycle of lines 0..=2 after the LCD is turned on), intr_2_*,
// hblank_ly_scx_timing-GS, stat_lyc_onoff, and GBMicrotest (DMG-verified).

/// STAT reads mode 2 (lines 0..=143) or mode 1 (line 144), and the STAT
/// LY=LYC flag sees the new LY, one M-cycle after LY changes.
const STAT_MODE2_LAG: u64 = 4;
/// STAT reads mode 3 (and VRAM is write-locked) from here.
const MODE3_START_DOTS: u64 = 84;
/// The mode-0 interrupt with a 172-dot mode 3 (no SCX, objects or window);
/// two dots later on line 0 after the LCD is turned on.
const MODE0_IRQ_DOTS: u64 = 250;
/// STAT reads mode 0, and OAM/VRAM unlock, this long after the mode-0
/// interrupt. The edge falls just after an M-cycle boundary, so mode 3
/// lengthened by 1..=4 dots ends one M-cycle later (the M-cycle steps of
/// Mooneye intr_2_mode0_timing_sprites).
const MODE0_READ_LAG: u64 = 3;
/// The OAM-scan interrupt pulse rises this long before its line starts.
const MODE2_IRQ_EARLY: u64 = 4;
/// Line 153: the LY=LYC interrupt input compares LYC with 0 from here, the
/// STAT flag from `LY0_FLAG_DOTS` (LY reads 0 from `STAT_MODE2_LAG`).
const LY0_IRQ_DOTS: u64 = 8;
const LY0_FLAG_DOTS: u64 = 12;
/// Line 0 after the LCD is turned on has no OAM scan but is otherwise timed
/// like a line that started this many dots before the LCDC write.
const LCD_ON_EARLY: u64 = 4;

impl Stateful for Ppu {
    fn save(&self, w: &mut StateWriter) {
        w.begin_section(b"PPU ");
        w.raw(&self.vram[..]);
        w.raw(&self.oam);
        for v in [
            self.lcdc,
            self.stat_enables,
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
        w.end_section();
    }

    fn load(&mut self, r: &mut StateReader) -> Result<()> {
        r.begin_section(b"PPU ")?;
        self.vram.copy_from_slice(r.raw(0x2000)?);
        self.oam.copy_from_slice(r.raw(0xA0)?);
        self.obj_lines_valid = false;
        self.content_gen += 1;
        self.lcdc = r.u8()?;
        self.stat_enables = r.u8()? & 0x78;
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

// ---- Pixel output --------------------------------------------------------
//
// A line with no register write during its mode 3 is drawn whole (at the
// end of mode 3, or earlier when a VRAM/OAM write could change it) by a fast
// renderer that works a tile row at a time and composes objects into a line
// buffer. A line on which a PPU register is written during mode 3 is drawn
// by the dot-accurate pixel FIFO below, which replays mode 3 from its start
// with the logged writes at their dots. The reference path draws every line
// with the FIFO; tests check both renderers draw identical frames.

/// The FIFO's last pixel leaves up to this long after the mode-0 interrupt
/// (writes up to then are still logged for the line).
const MODE3_FIFO_TAIL: u64 = 8;

/// For each byte, its 8 bits spread into the low bit of 8 byte lanes, most
/// significant bit in lane 0 (the leftmost pixel).
const SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut v = 0u64;
        let mut bit = 0;
        while bit < 8 {
            if b & (0x80 >> bit) != 0 {
                v |= 1 << (8 * bit);
            }
            bit += 1;
        }
        t[b] = v;
        b += 1;
    }
    t
};

/// For each byte, its bits spread to the even bit positions of 16 bits (bit
/// n to bit 2n): a tile row's two planes interleave into one 2-bit colour
/// index per pixel, `INTERLEAVE[lo] | INTERLEAVE[hi] << 1`, leftmost pixel in
/// the top two bits.
const INTERLEAVE: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut b = 0;
    while b < 256 {
        let mut v = 0u16;
        let mut bit = 0;
        while bit < 8 {
            if b & (1 << bit) != 0 {
                v |= 1 << (2 * bit);
            }
            bit += 1;
        }
        t[b] = v;
        b += 1;
    }
    t
};

/// The line buffers hold screen pixel `x` at `x + LINE_PAD`: a tile that
/// starts left of the screen (fine scroll, WX < 7) is stored whole.
const LINE_PAD: usize = 8;
const LINE_BUF: usize = LINE_PAD + WIDTH + 16;

/// The shades of every run of four colour indices under every palette
/// register value: `QUAD_SHADES[pal][c0<<6|c1<<4|c2<<2|c3]` holds the bytes
/// `[pal(c0), pal(c1), pal(c2), pal(c3)]` (leftmost first) as a
/// little-endian `u32`. One 256 KiB table shared by every machine (like the
/// ROM), of which a game touches only the rows of the palettes it uses.
static QUAD_SHADES: [[u32; 256]; 256] = {
    let mut t = [[0u32; 256]; 256];
    let mut pal = 0;
    while pal < 256 {
        let mut quad = 0;
        while quad < 256 {
            let mut v = 0u32;
            let mut k = 0;
            while k < 4 {
                let color = (quad >> (6 - 2 * k)) & 3;
                v |= (((pal >> (2 * color)) & 3) as u32) << (8 * k);
                k += 1;
            }
            t[pal][quad] = v;
            quad += 1;
        }
        pal += 1;
    }
    t
};

/// The 8 shades (byte 0 leftmost) of a tile row's interleaved colours
/// (`INTERLEAVE`: leftmost pixel in the top two bits) under `pal`'s row of
/// [`QUAD_SHADES`].
#[inline(always)]
fn row_shades(pal: &[u32; 256], colors: u16) -> u64 {
    pal[(colors >> 8) as usize] as u64 | (pal[(colors & 0xFF) as usize] as u64) << 32
}

impl Ppu {
    /// OAM scan for the current line: the first ten objects (OAM order)
    /// whose rows include LY.
    fn start_line_drawing(&mut self) {
        self.line_pending = true;
        self.window_starts = 0;
        self.scan_gen = self.content_gen;
        self.scan_tall = self.lcdc & 0x04 != 0;
        if self.ly == self.wy {
            self.wy_triggered = true;
        }
        let tall = self.lcdc & 0x04 != 0;
        if self.objects_on_line(self.ly, tall) == 0 {
            self.line_obj_count = 0;
            return;
        }
        let height: i32 = if tall { 16 } else { 8 };
        let ly = self.ly as i32;
        let mut n = 0;
        for i in 0..40 {
            let y = self.oam[i * 4] as i32 - 16;
            if ly >= y && ly < y + height {
                self.line_objs[n] = i as u8;
                n += 1;
                if n == 10 {
                    break;
                }
            }
        }
        self.line_obj_count = n as u8;
    }

    /// Draw whatever is left of the current line (before anything that
    /// could change its pixels: VRAM/OAM writes, the next line).
    #[inline]
    pub fn flush_line(&mut self) {
        if self.line_pending {
            self.finish_line_drawing();
        }
    }

    fn finish_line_drawing(&mut self) {
        self.line_pending = false;
        if self.ly >= 144 {
            return;
        }
        if self.reference_renderer || !self.mid_writes.is_empty() {
            let regs = if self.mid_writes.is_empty() {
                self.line_regs()
            } else {
                self.mid_regs
            };
            self.fifo_line(regs);
            // The row no longer holds what the fast renderer drew there.
            self.lines_valid[self.ly as usize >> 6] &= !(1 << (self.ly & 63));
        } else {
            self.draw_line_cached();
        }
        self.window_line = self.window_line.wrapping_add(self.window_starts);
    }

    /// Whether this line gets the DMG's stray colour-0 pixel of a window
    /// that is off (LCDC.5 clear) but would start on a background tile
    /// boundary (Pan Docs "Window"): the FIFO inserts it at screen x
    /// WX - 7, delaying the rest of the background by one pixel.
    #[inline]
    fn window_zero_pixel(&self) -> bool {
        if self.lcdc & 0x20 != 0 || !self.wy_triggered {
            return false;
        }
        // The FIFO pushes a tile each time screen x + SCX % 8 reaches a
        // multiple of 8 (after the first push, at x = -(SCX % 8)).
        let at = self.wx as i16 - 7 + (self.scx & 7) as i16;
        at > 0 && at % 8 == 0 && self.wx <= 166
    }

    /// First screen x of the window on this line, if it shows at all.
    #[inline]
    fn window_start(&self) -> Option<usize> {
        if self.lcdc & 0x21 == 0x21 && self.wy_triggered && self.wx <= 166 {
            Some((self.wx as usize).saturating_sub(7))
        } else {
            None
        }
    }

    /// Objects of this line in priority order (lower X first, then lower
    /// OAM index): DMG object priority.
    fn objects_by_priority(&self) -> ([u8; 10], usize) {
        let n = self.line_obj_count as usize;
        let mut objs = self.line_objs;
        // Insertion sort by X; stable, so OAM order breaks ties.
        for i in 1..n {
            let mut j = i;
            while j > 0
                && self.oam[objs[j - 1] as usize * 4 + 1] > self.oam[objs[j] as usize * 4 + 1]
            {
                objs.swap(j - 1, j);
                j -= 1;
            }
        }
        (objs, n)
    }

    /// The two bit-planes of the row of object `i` that LY crosses.
    #[inline]
    fn object_row(&self, i: usize) -> (u8, u8) {
        self.object_row_with(i, self.lcdc)
    }

    /// Fetch a run of BG or window tiles of one map row into the line
    /// buffers, a tile (8 pixels, table lookups) at a time: tile column
    /// `col` (wrapping at 32) lands at buffer index `p`, the next at `p + 8`,
    /// and so on while `p < p_end`. With `colors`, the raw colour indices go
    /// to `line_ci` too (objects behind the background need them).
    #[inline(always)]
    fn fetch_tiles(
        &mut self,
        map_row: usize,
        mut col: usize,
        tile_row: u8,
        mut p: usize,
        p_end: usize,
        colors: bool,
    ) {
        // LCDC.4 = 0: signed tile numbers from 0x9000, i.e. the tile number
        // with its top bit flipped, counted from 0x8800.
        let (flip, base) = if self.lcdc & 0x10 != 0 {
            (0u8, 0usize)
        } else {
            (0x80, 0x800)
        };
        let row = base + tile_row as usize * 2;
        let pal = &QUAD_SHADES[self.bgp as usize];
        while p < p_end {
            let tile = (self.vram[(map_row + col) & 0x1FFF] ^ flip) as usize;
            let a = (row + tile * 16) & 0x1FFE;
            let (lo, hi) = (self.vram[a], self.vram[a + 1]);
            let c = INTERLEAVE[lo as usize] | INTERLEAVE[hi as usize] << 1;
            let out = row_shades(pal, c).to_le_bytes();
            self.line_buf[p..p + 8].copy_from_slice(&out);
            if colors {
                let ci = SPREAD[lo as usize] | SPREAD[hi as usize] << 1;
                self.line_ci[p..p + 8].copy_from_slice(&ci.to_le_bytes());
            }
            col = (col + 1) & 31;
            p += 8;
        }
    }

    /// The window line counter counts lines on which the window started,
    /// whether or not LCDC.0 lets it show (the FIFO starts it all the same).
    #[inline]
    fn note_window_line(&mut self) {
        if self.lcdc & 0x20 != 0 && self.wy_triggered && self.wx <= 166 {
            self.window_starts = 1;
        }
    }

    /// What the fast renderer's pixels of this line depend on besides VRAM,
    /// OAM (`content_gen`) and the OAM scan: LCDC, SCX, SCY, BGP, OBP0,
    /// OBP1, and WX and the window line counter when the window shows (WX
    /// 0xFF and counter 0 when it does not, which no showing window has;
    /// WX and 0xFF when the line gets the stray window pixel).
    #[inline]
    fn line_key(&self) -> u64 {
        let (wx, wl) = match self.window_start() {
            Some(_) => (self.wx, self.window_line),
            // The stray pixel's place; a window line counter of 0xFF never
            // occurs on a showing window (it counts at most 144 lines).
            None if self.window_zero_pixel() => (self.wx, 0xFF),
            None => (0xFF, 0),
        };
        u64::from_le_bytes([
            self.lcdc, self.scx, self.scy, self.bgp, self.obp0, self.obp1, wx, wl,
        ])
    }

    /// Draw the line with the fast renderer unless its frame row already
    /// holds it (`line_keys`).
    fn draw_line_cached(&mut self) {
        let ly = self.ly as usize;
        let (word, bit) = (ly >> 6, 1u64 << (ly & 63));
        if self.cache_gen != self.content_gen {
            self.lines_valid = [0; 3];
            self.cache_gen = self.content_gen;
        }
        let key = self.line_key();
        // The object list came from this line's OAM scan: a row drawn (now
        // or before) from a scan made under other OAM bytes or another
        // object size is not reusable.
        let scan_current =
            self.scan_gen == self.content_gen && self.scan_tall == (self.lcdc & 0x04 != 0);
        if scan_current && self.lines_valid[word] & bit != 0 && self.line_keys[ly] == key {
            self.note_window_line();
            return;
        }
        self.draw_span_fast(0, WIDTH);
        self.line_keys[ly] = key;
        if scan_current {
            self.lines_valid[word] |= bit;
        } else {
            self.lines_valid[word] &= !bit;
        }
    }

    fn draw_span_fast(&mut self, x0: usize, x1: usize) {
        self.note_window_line();
        let objects = self.lcdc & 0x02 != 0 && self.line_obj_count != 0;
        if self.lcdc & 0x01 != 0 {
            let win = self.window_start().filter(|&w| w < x1);
            let bg_end = win.map_or(x1, |w| w.max(x0));
            if x0 < bg_end {
                let map = if self.lcdc & 0x08 != 0 {
                    0x1C00
                } else {
                    0x1800
                };
                let y = self.ly.wrapping_add(self.scy);
                let bx = x0 + self.scx as usize;
                // The tile holding pixel x0 starts (bx & 7) pixels left of it.
                let p = x0 + LINE_PAD - (bx & 7);
                let map_row = map + (y as usize >> 3) * 32;
                self.fetch_tiles(
                    map_row,
                    (bx >> 3) & 31,
                    y & 7,
                    p,
                    bg_end + LINE_PAD,
                    objects,
                );
            }
            if let Some(w) = win {
                let map = if self.lcdc & 0x40 != 0 {
                    0x1C00
                } else {
                    0x1800
                };
                let wy = self.window_line;
                // Window column 0 is at screen x = WX - 7 (maybe off-screen).
                let col = (x0.max(w) + 7 - self.wx as usize) >> 3;
                let p = self.wx as usize + 1 + col * 8; // (WX - 7 + 8 col) + LINE_PAD
                let map_row = map + (wy as usize >> 3) * 32;
                self.fetch_tiles(map_row, col, wy & 7, p, x1 + LINE_PAD, objects);
            } else if self.window_zero_pixel() {
                // The stray colour-0 pixel at screen x WX - 7 (at least 1,
                // at most 159 when it applies): the background from there on
                // moves right by one pixel, its last pixel off the screen.
                // (Spans are whole lines, `draw_line_cached`; a part of one
                // would need the pixel left of it.)
                debug_assert!(x0 == 0 && x1 == WIDTH);
                let (a, b) = (self.wx as usize - 7 + LINE_PAD, WIDTH + LINE_PAD);
                self.line_buf.copy_within(a..b - 1, a + 1);
                self.line_buf[a] = self.bgp & 3;
                if objects {
                    self.line_ci.copy_within(a..b - 1, a + 1);
                    self.line_ci[a] = 0;
                }
            }
        } else {
            // BG and window off: colour 0 everywhere.
            self.line_buf[x0 + LINE_PAD..x1 + LINE_PAD].fill(self.bgp & 3);
            self.line_ci[x0 + LINE_PAD..x1 + LINE_PAD].fill(0);
        }
        if objects {
            self.draw_objects(x0, x1);
        }
        let row = self.ly as usize * WIDTH;
        if x0 == 0 && x1 == WIDTH {
            self.frame[row..row + WIDTH]
                .copy_from_slice(&self.line_buf[LINE_PAD..LINE_PAD + WIDTH]);
        } else {
            self.frame[row + x0..row + x1]
                .copy_from_slice(&self.line_buf[x0 + LINE_PAD..x1 + LINE_PAD]);
        }
    }

    /// Draw this line's objects over the background in the line buffer,
    /// between screen x `x0` and `x1`. Highest priority first: each pixel
    /// goes to the first object opaque there, which shows unless it is
    /// behind a BG colour 1..=3.
    fn draw_objects(&mut self, x0: usize, x1: usize) {
        let (objs, n) = self.objects_by_priority();
        // Pixels already taken by a higher-priority object (bit x).
        let mut taken = [0u64; 3];
        for &i in &objs[..n] {
            let i = i as usize;
            let ox = self.oam[i * 4 + 1] as usize; // screen x + 8
            if ox >= x1 + 8 || ox <= x0 {
                continue;
            }
            let (lo, hi) = self.object_row(i);
            if lo | hi == 0 {
                continue;
            }
            let attrs = self.oam[i * 4 + 3];
            let pal = if attrs & 0x10 != 0 {
                self.obp1
            } else {
                self.obp0
            };
            let behind = attrs & 0x80 != 0;
            let colors = SPREAD[lo as usize] | SPREAD[hi as usize] << 1;
            let first = x0.max(ox.saturating_sub(8));
            let last = x1.min(ox);
            for x in first..last {
                let c = (colors >> (8 * (x + 8 - ox))) as u8 & 3;
                let bit = 1u64 << (x & 63);
                if c == 0 || taken[x >> 6] & bit != 0 {
                    continue;
                }
                taken[x >> 6] |= bit;
                if !(behind && self.line_ci[x + LINE_PAD] != 0) {
                    self.line_buf[x + LINE_PAD] = (pal >> (2 * c)) & 3;
                }
            }
        }
    }
}

// ---- Dot-accurate pixel FIFO ----------------------------------------------
//
// Lines on which a PPU register is written during mode 3 (and every line in
// reference mode) are drawn by replaying mode 3 dot by dot, applying each
// logged write at its dot. The model follows Pan Docs "Pixel FIFO" and the
// Mealybug Tearoom tests' DMG screenshots:
//
// * The background fetcher takes two dots for each of its steps (tile
//   number, tile data low, tile data high) and pushes a tile row of eight
//   pixels into the BG FIFO only when the FIFO is empty. The first fetch of
//   a line is thrown away (6 dots), so the first pixel leaves the FIFO 12
//   dots into mode 3, after SCX % 8 pixels have been discarded: 172 + SCX % 8
//   dots for a plain line.
// * Registers are read when the hardware uses them: the tile map (LCDC.3,
//   LCDC.6), SCX and SCY on the tile-number step; LCDC.4 and SCY again on
//   each tile-data step; BGP, OBP0/1, LCDC.0 and LCDC.1 when a pixel is
//   shifted out and mixed (LCDC a dot late there, except that turning
//   LCDC.0 or LCDC.1 off is not late while the line's first pixel is the
//   next out).
// * The window starts when the pixel counter (screen x + 7; before the
//   first push it runs through 0..=6 one a dot) equals WX, with LCDC.5 set
//   and LY having met WY this frame: the BG FIFO is cleared and the fetcher
//   restarts on window tile 0 (6 dots); window pixels left of the screen
//   are shifted out and dropped. It is an equality test, so a WX written
//   past the current position does nothing. Every start shows the next
//   window row; clearing LCDC.5 stops the window at the next tile fetch.
//   A match that does not start the window (window already on, or LCDC.5
//   clear) on a dot where a tile is pushed inserts a colour-0 pixel (DMG).
// * An object whose X is reached (with LCDC.1 set) stops the shifter; its
//   fetch starts once the background fetch in progress has read its low
//   data byte, and takes 6 dots (Pan Docs "Mode 3 length": 6 to 11 dots).

/// Absolute dot of the first dot of the FIFO's mode 3, relative to the line
/// start (`line_start`). Calibrated with the DMG BGP write tests: a register
/// write at CPU time `now` lands on FIFO dot `now - line_start - FIFO_ORIGIN`.
const FIFO_ORIGIN: u64 = OAM_SCAN_DOTS + 3;
/// The first tile's fetch starts this many dots into mode 3, and it is
/// pushed (pixels start to shift out) at dot `FIFO_FIRST_PUSH`. (Mealybug
/// m3_scy_change and m3_lcdc_bg_map_change place the reads of the first
/// tile a few dots before the second tile's, which starts with the push.)
const FIFO_FIRST_FETCH: u32 = 4;
const FIFO_FIRST_PUSH: u32 = 12;
/// The dot on which the pixel counter, running through the positions left
/// of the screen before the first push, meets WX = 0 (with no fine scroll).
const WIN_PREROLL_DOT: u32 = 5;
/// A WX write reaches the window comparator this many dots after the dot
/// the FIFO applies other writes on (mealybug m3_wx_4/5/6_change: WX = 4
/// and 5 written before mode 3 still start the window, 6 does not).
const WX_WRITE_LAG: u32 = 2;
/// LCDC writes reach the pixel mixer and the window logic this many dots
/// after the fetcher.
const LCDC_LATE_LAG: u32 = 1;
/// Fetcher progress (dots into the 6-dot fetch) at which each of its VRAM
/// reads happens: the tile number, the low and the high data byte.
const FETCH_TILE_AT: u8 = 0;
const FETCH_LOW_AT: u8 = 2;
const FETCH_HIGH_AT: u8 = 4;
/// An object fetch starts once the background fetch has finished.
const OBJ_WAIT_PROGRESS: u8 = 6;
const OBJ_FETCH_DOTS: u8 = 6;
/// The dots of an object fetch (1..=6) on which LCDC.2 (object size) is
/// read, with the low and with the high data byte (fitted to mealybug
/// m3_lcdc_obj_size_change*: a switch between them mixes two rows' planes).
const OBJ_SIZE_AT: u8 = 3;
const OBJ_SIZE_HIGH_AT: u8 = 5;

/// The registers the FIFO reads during a line.
#[derive(Clone, Copy, Default)]
struct LineRegs {
    lcdc: u8,
    scx: u8,
    scy: u8,
    bgp: u8,
    obp0: u8,
    obp1: u8,
    wx: u8,
    wy: u8,
}

impl LineRegs {
    fn set(&mut self, addr: u16, value: u8) {
        match addr {
            0xFF40 => self.lcdc = value,
            0xFF42 => self.scy = value,
            0xFF43 => self.scx = value,
            0xFF47 => self.bgp = value,
            0xFF48 => self.obp0 = value,
            0xFF49 => self.obp1 = value,
            0xFF4A => self.wy = value,
            0xFF4B => self.wx = value,
            _ => {}
        }
    }
}

/// One pixel in the OBJ FIFO (colour 0: transparent / empty).
#[derive(Clone, Copy, Default)]
struct ObjPixel {
    color: u8,
    /// OAM attribute byte (palette bit 4, BG-over-OBJ bit 7).
    attrs: u8,
}

/// Where the object fetch stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ObjFetch {
    Idle,
    /// An object was reached: waiting for the background fetch.
    Waiting(u8),
    /// Fetching object `line_objs[k]`, `n` dots done.
    Fetching(u8, u8),
}

/// A mid-mode-3 register write, at its FIFO dot.
#[derive(Clone, Copy)]
pub(crate) struct MidWrite {
    dot: u32,
    addr: u16,
    value: u8,
}

impl Ppu {
    fn line_regs(&self) -> LineRegs {
        LineRegs {
            lcdc: self.lcdc,
            scx: self.scx,
            scy: self.scy,
            bgp: self.bgp,
            obp0: self.obp0,
            obp1: self.obp1,
            wx: self.wx,
            wy: self.wy,
        }
    }

    /// The two bit-planes of object `i`'s row on this line, with the object
    /// size taken from `lcdc` (LCDC.2 is read when the object's data is
    /// fetched).
    #[inline]
    fn object_row_with(&self, i: usize, lcdc: u8) -> (u8, u8) {
        let tall = lcdc & 0x04 != 0;
        let height = if tall { 16 } else { 8 };
        let attrs = self.oam[i * 4 + 3];
        // The row counts from the object's top; only its low 3 (8x8) or 4
        // (8x16) bits reach the tile address. An object picked by an 8x16
        // OAM scan can meet an 8x8 LCDC mid-line (mealybug obj_size_change).
        let mut row =
            (self.ly.wrapping_add(16).wrapping_sub(self.oam[i * 4]) as usize) & (height - 1);
        if attrs & 0x40 != 0 {
            row = height - 1 - row;
        }
        let mut tile = self.oam[i * 4 + 2] as usize;
        if tall {
            tile &= 0xFE;
        }
        let addr = tile * 16 + row * 2;
        let (lo, hi) = (self.vram[addr], self.vram[addr + 1]);
        if attrs & 0x20 != 0 {
            (lo.reverse_bits(), hi.reverse_bits())
        } else {
            (lo, hi)
        }
    }

    /// Merge object `line_objs[k]`'s row into the OBJ FIFO, whose head is
    /// screen pixel `lx`. Objects fetched earlier (lower X, then lower OAM
    /// index: DMG priority) keep their opaque pixels.
    ///
    /// The object size is read with each data byte: `lcdc` as LCDC was at
    /// the low byte's read and at the high byte's (a switch in between
    /// mixes the planes of two rows: mealybug m3_lcdc_obj_size_change).
    fn merge_object(
        &self,
        k: usize,
        lcdc: (u8, u8),
        lx: i16,
        obj: &mut [ObjPixel; 8],
        head: usize,
    ) {
        let i = self.line_objs[k] as usize;
        let (lo, mut hi) = self.object_row_with(i, lcdc.0);
        if (lcdc.0 ^ lcdc.1) & 0x04 != 0 {
            hi = self.object_row_with(i, lcdc.1).1;
        }
        let attrs = self.oam[i * 4 + 3];
        let left = self.oam[i * 4 + 1] as i16 - 8;
        for p in 0..8i16 {
            let slot = p - (lx - left);
            if !(0..8).contains(&slot) {
                continue;
            }
            let c = ((hi >> (7 - p)) & 1) << 1 | ((lo >> (7 - p)) & 1);
            let o = &mut obj[(head + slot as usize) & 7];
            if o.color == 0 {
                *o = ObjPixel { color: c, attrs };
            }
        }
    }

    /// The pending object (bit k of `pending`) with the lowest X, then the
    /// lowest OAM index, if its X is at most `x_max`.
    fn next_object(&self, pending: u16, x_max: i16) -> Option<usize> {
        let mut best: Option<(u8, usize)> = None;
        for k in 0..self.line_obj_count as usize {
            if pending & 1 << k == 0 {
                continue;
            }
            let x = self.oam[self.line_objs[k] as usize * 4 + 1];
            if (x as i16) <= x_max && best.is_none_or(|(bx, _)| x < bx) {
                best = Some((x, k));
            }
        }
        best.map(|(_, k)| k)
    }

    /// Draw the current line by running mode 3 dot by dot, starting from
    /// the registers `r` and applying `self.mid_writes` at their dots.
    fn fifo_line(&mut self, mut r: LineRegs) {
        let ly = self.ly;
        let row = ly as usize * WIDTH;
        // SCX % 8, taken when the first fetch starts.
        let mut fine = 0i16;
        // Pixel counter: the screen x of the next pixel shifted out; the
        // SCX fine-scroll pixels (and window pixels left of the screen) are
        // shifted out, and dropped, at x < 0.
        let mut lx: i16 = 0;
        // BG FIFO (colour indices; the fetcher pushes only into an empty
        // FIFO, so a tile row and an inserted zero pixel suffice) and OBJ
        // FIFO, both from the next pixel out.
        let mut bg = [0u8; 9];
        let mut bg_head = 0usize;
        let mut bg_len = 0usize;
        let mut obj = [ObjPixel::default(); 8];
        let mut obj_head = 0usize;
        // Fetcher: dots done of the current 6-dot fetch (6: data ready).
        let mut progress: u8 = 0;
        let mut idle = FIFO_FIRST_FETCH;
        // The window: `win_active` is the window latch (set when the pixel
        // counter meets WX, reset while LCDC.5 is clear), `fetch_win` says
        // whether the fetch in progress reads window tiles, `win_starts`
        // counts the starts on this line (each start shows the next window
        // row: mealybug m3_lcdc_win_en_change_multiple).
        let mut win_active = false;
        let mut fetch_win = false;
        let mut win_starts: u8 = 0;
        let mut win_start_lx = i16::MIN;
        let mut bg_tiles: u8 = 0;
        let mut win_tiles: u8 = 0;
        let mut tile_no = 0u8;
        let (mut lo, mut hi) = (0u8, 0u8);
        // The first tile has been pushed (pixels are shifting out).
        let mut started = false;
        let mut first_push_checked = false;
        // Objects of this line not yet reached, and the object fetch.
        let mut pending: u16 = (1u16 << self.line_obj_count) - 1;
        let mut ofetch = ObjFetch::Idle;
        let mut obj_lcdc = (r.lcdc, r.lcdc);
        // The writes, at the dots where they take effect (WX reaches the
        // window comparator later than the other registers).
        let mut writes = std::mem::take(&mut self.mid_writes);
        for w in writes.iter_mut() {
            if w.addr == 0xFF4B {
                w.dot += WX_WRITE_LAG;
            }
        }
        writes.sort_by_key(|w| w.dot);
        // LCDC as the pixel mixer and the window logic see it: writes reach
        // them a dot after the fetcher (mealybug m3_lcdc_bg_en_change,
        // m3_lcdc_win_en_change_multiple_wx).
        let mut late_lcdc = r.lcdc;
        let mut wi = 0;
        let mut li = 0;
        let mut d: u32 = 0;
        // A window start: the BG FIFO is cleared and the fetcher restarts
        // on window tile 0.
        macro_rules! start_window {
            () => {
                win_active = true;
                win_starts += 1;
                fetch_win = true;
                win_tiles = 0;
                bg_len = 0;
                progress = 0;
            };
        }
        while lx < WIDTH as i16 && d < 2000 {
            // Register writes that land on this dot.
            let mut bgp_glitch = None;
            let mut wx_written = false;
            let r_lcdc_before = r.lcdc;
            while wi < writes.len() && writes[wi].dot <= d {
                let w = writes[wi];
                if w.addr == 0xFF47 {
                    // DMG: the pixel shifted out during a BGP write sees the
                    // OR of the old and new values.
                    bgp_glitch = Some(r.bgp | w.value);
                }
                wx_written |= w.addr == 0xFF4B;
                r.set(w.addr, w.value);
                wi += 1;
            }
            let win_was_enabled = r_lcdc_before & late_lcdc & 0x20 != 0;
            while li < writes.len() && writes[li].dot + LCDC_LATE_LAG <= d {
                if writes[li].addr == 0xFF40 {
                    late_lcdc = writes[li].value;
                }
                li += 1;
            }
            let dot = d;
            d += 1;
            // Clearing LCDC.5 stops the window at once; setting it reaches
            // the window logic a dot later (mealybug
            // m3_lcdc_win_en_change_multiple_wx).
            let win_enabled = r.lcdc & late_lcdc & 0x20 != 0;
            if !win_enabled {
                win_active = false;
            }
            if idle > 0 {
                idle -= 1;
                continue;
            }
            if dot == FIFO_FIRST_FETCH {
                fine = (r.scx & 7) as i16;
                lx = -fine;
            }
            let win_y = win_enabled && self.wy_triggered;
            let wx = r.wx as i16;
            // Before the first tile is pushed, the pixel counter runs
            // through the 7 positions left of the screen, one a dot (a dot
            // later with SCX % 8 > 0, and only up to the fine-scroll
            // discard): WX < 7 starts the window there, and its pixels left
            // of the screen are shifted out and dropped. WX = 0 starts it
            // before the fine scroll, which then drops window pixels too
            // (Pan Docs "Window"; mealybug m3_window_timing,
            // m3_window_timing_wx_0, m3_wx_4_change..m3_wx_6_change).
            if !started && !win_active && win_y {
                let first = WIN_PREROLL_DOT + u32::from(fine != 0);
                let last = first + (6 - fine).max(0) as u32;
                if (first..=last).contains(&dot) && (dot - first) as i16 == wx {
                    start_window!();
                    lx = wx - 7 - if wx == 0 { fine } else { 0 };
                }
            }
            let push_allowed = started || fetch_win || dot >= FIFO_FIRST_PUSH;
            if !started && progress == 6 && push_allowed && !first_push_checked {
                // Objects that start left of the first pixel shifted out
                // (X < 8 - SCX % 8 for the background; the window can start
                // further left) are fetched before the first tile is pushed:
                // 6 dots each, plus the wait for the background fetch, as
                // Pan Docs' penalty (and an object at X = 0 also waits for
                // the fine scroll). This comes before a window starting at
                // the first pixel, whose tile-map read it delays (mealybug
                // m3_lcdc_win_map_change, m3_lcdc_tile_sel_win_change).
                first_push_checked = true;
                let mut stall = 0u32;
                let mut waited = false;
                if r.lcdc & 0x02 != 0 {
                    while let Some(k) = self.next_object(pending, lx + 7) {
                        pending &= !(1 << k);
                        let x = self.oam[self.line_objs[k] as usize * 4 + 1] as i16;
                        if !waited {
                            waited = true;
                            stall += (5 - (x - lx)).max(0) as u32;
                            if x == 0 {
                                stall += fine as u32;
                            }
                        }
                        stall += OBJ_FETCH_DOTS as u32;
                        self.merge_object(k, (r.lcdc, r.lcdc), lx, &mut obj, obj_head);
                    }
                } else {
                    while let Some(k) = self.next_object(pending, lx + 7) {
                        pending &= !(1 << k);
                    }
                }
                if stall > 0 {
                    idle = stall - 1;
                    continue;
                }
            }
            // Window start: the pixel counter meets WX - 7 (an equality
            // test, so a WX written past the current position does
            // nothing). When LCDC.5 is set on the dot of the match, the
            // window starts a pixel late (mealybug
            // m3_lcdc_win_en_change_multiple_wx).
            let shifting = started || (progress == 6 && dot >= FIFO_FIRST_PUSH);
            if !win_active && shifting && ofetch == ObjFetch::Idle && win_y {
                let on_time = lx + 7 == wx;
                let late = lx + 6 == wx && !win_was_enabled && !wx_written;
                if on_time || late {
                    win_start_lx = lx;
                    start_window!();
                }
            }
            // Object fetch in progress: the fetcher and shifter wait.
            if let ObjFetch::Fetching(k, n) = ofetch {
                if n == OBJ_SIZE_AT {
                    obj_lcdc = (r.lcdc, r.lcdc);
                }
                if n == OBJ_SIZE_HIGH_AT {
                    obj_lcdc.1 = r.lcdc;
                }
                if n < OBJ_FETCH_DOTS {
                    ofetch = ObjFetch::Fetching(k, n + 1);
                } else {
                    self.merge_object(k as usize, obj_lcdc, lx, &mut obj, obj_head);
                    ofetch = ObjFetch::Idle;
                }
                if ofetch != ObjFetch::Idle {
                    continue;
                }
            }
            // Background / window fetcher: push into an empty FIFO, and the
            // next fetch starts (reads its tile number) on the same dot.
            if progress == 6 && bg_len == 0 && push_allowed {
                // DMG: when the pixel counter meets WX - 7 on the dot a tile
                // is pushed but the window does not start there (it is
                // already on, or LCDC.5 is clear), a colour-0 pixel goes out
                // before the tile (Pan Docs "Window"; mealybug
                // m3_wx_4_change, m3_lcdc_win_en_change_multiple_wx).
                let zero = started
                    && self.wy_triggered
                    && lx + 7 == wx
                    && lx != win_start_lx
                    && (win_active || !win_enabled);
                let first = usize::from(zero);
                bg[0] = 0;
                for p in 0..8 {
                    bg[first + p] = ((hi >> (7 - p)) & 1) << 1 | ((lo >> (7 - p)) & 1);
                }
                bg_head = 0;
                bg_len = 8 + first;
                if fetch_win {
                    win_tiles = win_tiles.wrapping_add(1);
                } else {
                    bg_tiles = bg_tiles.wrapping_add(1);
                }
                progress = 0;
            }
            if progress < 6 {
                match progress {
                    FETCH_TILE_AT => {
                        // Window tiles while the window is on (clearing
                        // LCDC.5 turns it off: back to the background).
                        fetch_win = win_active;
                        let (map, col, y) = if fetch_win {
                            let map = if r.lcdc & 0x40 != 0 { 0x1C00 } else { 0x1800 };
                            (map, win_tiles as usize, self.window_row(win_starts))
                        } else {
                            let map = if r.lcdc & 0x08 != 0 { 0x1C00 } else { 0x1800 };
                            let col = (r.scx >> 3) as usize + bg_tiles as usize;
                            (map, col, ly.wrapping_add(r.scy))
                        };
                        tile_no = self.vram[map + (y as usize >> 3) * 32 + (col & 31)];
                    }
                    FETCH_LOW_AT | FETCH_HIGH_AT => {
                        let y = if fetch_win {
                            self.window_row(win_starts)
                        } else {
                            ly.wrapping_add(r.scy)
                        };
                        // LCDC.4 = 0: signed tile numbers from 0x9000.
                        let base = if r.lcdc & 0x10 != 0 {
                            tile_no as usize * 16
                        } else {
                            (0x1000 + tile_no as i8 as isize * 16) as usize
                        };
                        let a = base + (y as usize & 7) * 2;
                        if progress == FETCH_LOW_AT {
                            lo = self.vram[a];
                        } else {
                            hi = self.vram[a + 1];
                        }
                    }
                    _ => {}
                }
                progress += 1;
            }
            if bg_len == 0 {
                continue;
            }
            started = true;
            // An object reached at this pixel.
            if ofetch == ObjFetch::Idle && pending != 0 {
                if let Some(k) = self.next_object(pending, lx + 8) {
                    pending &= !(1 << k);
                    if r.lcdc & 0x02 != 0 {
                        ofetch = ObjFetch::Waiting(k as u8);
                    }
                }
            }
            if let ObjFetch::Waiting(k) = ofetch {
                // It is fetched once the background fetch is done; a DMG
                // whose LCDC.1 was cleared meanwhile drops it, and the
                // shifter goes on at once (mealybug
                // m3_lcdc_obj_en_change_variant: no fetch, no penalty).
                if progress < OBJ_WAIT_PROGRESS {
                    continue;
                }
                if r.lcdc & 0x02 != 0 {
                    ofetch = ObjFetch::Fetching(k, 1);
                    continue;
                }
                ofetch = ObjFetch::Idle;
            }
            // Shift one pixel out and mix it.
            let mut bc = bg[bg_head];
            bg_head += 1;
            bg_len -= 1;
            let o = std::mem::take(&mut obj[obj_head]);
            obj_head = (obj_head + 1) & 7;
            if lx >= 0 {
                // DMG: a write that turns the background or objects off
                // reaches the mixer at once (not a dot late) when the
                // line's first pixel is the next out (SameBoy's DMG LCDC
                // write conflict for LCDC.1; mealybug m3_lcdc_bg_en_change
                // for LCDC.0).
                let mix_lcdc = if lx == 0 {
                    late_lcdc & (r.lcdc | !0x03)
                } else {
                    late_lcdc
                };
                if mix_lcdc & 0x01 == 0 {
                    bc = 0;
                }
                let objects_shown = mix_lcdc & 0x02 != 0;
                let shade = if objects_shown && o.color != 0 && !(o.attrs & 0x80 != 0 && bc != 0) {
                    let pal = if o.attrs & 0x10 != 0 { r.obp1 } else { r.obp0 };
                    (pal >> (2 * o.color)) & 3
                } else {
                    (bgp_glitch.unwrap_or(r.bgp) >> (2 * bc)) & 3
                };
                self.frame[row + lx as usize] = shade;
            }
            lx += 1;
        }
        self.window_starts = win_starts;
        self.mid_writes = writes;
        self.mid_writes.clear();
    }

    /// The window row shown by the `n`-th window start of this line (n >= 1).
    #[inline]
    fn window_row(&self, n: u8) -> u8 {
        self.window_line.wrapping_add(n.wrapping_sub(1))
    }
}

// ---- OAM corruption bug support (the patterns are in `oam_bug.rs`) --------

impl Ppu {
    /// The OAM row (0..20, 8 bytes each) the OAM scan reads in the M-cycle
    /// ending at `now`, or `None` outside mode 2 (LCD off, VBlank, the first
    /// line after LCD on, modes 3 and 0). The caller has caught up to `now`.
    ///
    /// The scan reads one row per M-cycle: row `(now - line_start) / 4`.
    /// Checked against Blargg's oam_bug 4-scanline_timing, 5-timing_bug and
    /// 7-timing_effect, which time the bug from the LCDC write that turns
    /// the LCD on (so they also depend on `LCD_ON_EARLY`).
    pub fn oam_scan_row(&self, now: u64) -> Option<usize> {
        if self.mode != 2 || self.phase != Phase::ToTransfer {
            return None;
        }
        let row = now.checked_sub(self.line_start)? / 4;
        if row < crate::oam_bug::ROWS as u64 {
            Some(row as usize)
        } else {
            None
        }
    }
}

// ---- PyBoy compatibility (`crate::hooks`, `crate::pyboy_state`) ----------
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
        self.stat_enables = stat & 0x78;
        self.lyc = lyc;
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

#[cfg(test)]
mod render_tests {
    use super::*;

    /// xorshift64*: deterministic scenes without a dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }

        fn byte(&mut self) -> u8 {
            (self.next() >> 32) as u8
        }

        fn below(&mut self, n: u64) -> u64 {
            (self.next() >> 16) % n
        }
    }

    /// A random scene: VRAM, OAM (objects crowded onto the screen) and
    /// registers.
    fn random_ppu(rng: &mut Rng) -> Ppu {
        let mut p = Ppu::post_boot();
        for b in p.vram.iter_mut() {
            // Some all-zero bytes, for transparent and colour-0 runs.
            *b = if rng.below(4) == 0 { 0 } else { rng.byte() };
        }
        for i in 0..40 {
            p.oam[i * 4] = rng.below(176) as u8;
            p.oam[i * 4 + 1] = rng.below(176) as u8;
            p.oam[i * 4 + 2] = rng.byte();
            p.oam[i * 4 + 3] = rng.byte();
        }
        p.lcdc = 0x80 | rng.byte();
        p.scx = rng.byte();
        p.scy = rng.byte();
        p.wx = rng.below(172) as u8;
        p.wy = rng.below(150) as u8;
        p.bgp = rng.byte();
        p.obp0 = rng.byte();
        p.obp1 = rng.byte();
        p.rendering = true;
        p
    }

    /// Draw one whole frame line by line, as the PPU does when rendering.
    fn draw_frame(p: &mut Ppu) {
        p.window_line = 0;
        p.wy_triggered = false;
        for ly in 0..144u8 {
            p.ly = ly;
            p.start_line_drawing();
            p.finish_line_drawing();
        }
    }

    #[test]
    fn line_cache_redraws_exactly_what_changed() {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        for scene in 0..40 {
            let mut cached = random_ppu(&mut rng);
            draw_frame(&mut cached);
            for step in 0..60 {
                // One change (or none) between frames, of every kind the
                // cache must notice.
                match rng.below(9) {
                    0 => {
                        let i = rng.below(0x2000) as usize;
                        cached.write_vram(i, rng.byte());
                    }
                    1 => {
                        let i = rng.below(0xA0) as usize;
                        cached.write_oam(i, rng.byte());
                    }
                    2 => cached.scx = rng.byte(),
                    3 => cached.scy = rng.byte(),
                    4 => cached.bgp = rng.byte(),
                    5 => cached.obp0 = rng.byte(),
                    6 => cached.wx = rng.below(172) as u8,
                    7 => cached.lcdc = 0x80 | rng.byte(),
                    _ => {}
                }
                let mut fresh = cached.clone();
                fresh.clear_frame();
                draw_frame(&mut cached);
                draw_frame(&mut fresh);
                assert_eq!(
                    cached.window_line, fresh.window_line,
                    "scene {scene} step {step}"
                );
                assert!(
                    cached.frame[..] == fresh.frame[..],
                    "scene {scene} step {step}: cached rows differ from a full redraw"
                );
            }
        }
    }

    #[test]
    fn line_cache_skips_unchanged_lines_only() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut p = random_ppu(&mut rng);
        p.lcdc = 0x91; // BG on, window and objects off: every line differs from a blank row
        draw_frame(&mut p);
        let drawn = p.frame.clone();
        // Nothing changed: no line is drawn again (a scribbled row stays).
        p.frame[..WIDTH].fill(9);
        draw_frame(&mut p);
        assert!(p.frame[..WIDTH].iter().all(|&s| s == 9));
        assert_eq!(p.frame[WIDTH..], drawn[WIDTH..]);
        // A VRAM byte changing (even one no line uses) redraws every line.
        let unused = 0x1FFF;
        p.write_vram(unused, p.vram[unused] ^ 1);
        draw_frame(&mut p);
        assert_eq!(p.frame[..], drawn[..]);
        // Writing the value already there is no change.
        p.frame[..WIDTH].fill(9);
        p.write_vram(unused, p.vram[unused]);
        draw_frame(&mut p);
        assert!(p.frame[..WIDTH].iter().all(|&s| s == 9));
        // A register change redraws the lines drawn with it.
        p.scx = p.scx.wrapping_add(1);
        draw_frame(&mut p);
        let mut fresh = p.clone();
        fresh.clear_frame();
        draw_frame(&mut fresh);
        assert_eq!(p.frame[..], fresh.frame[..]);
    }

    #[test]
    fn fast_renderer_draws_what_the_fifo_draws() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for scene in 0..400 {
            let base = random_ppu(&mut rng);
            let mut fast = base.clone();
            let mut reference = base;
            reference.reference_renderer = true;
            for ly in 0..144u8 {
                for p in [&mut fast, &mut reference] {
                    p.ly = ly;
                    p.start_line_drawing();
                    p.finish_line_drawing();
                }
            }
            assert_eq!(fast.window_line, reference.window_line, "scene {scene}");
            for ly in 0..144 {
                let row = ly * WIDTH..(ly + 1) * WIDTH;
                assert_eq!(
                    fast.frame[row.clone()],
                    reference.frame[row],
                    "scene {scene}, line {ly}"
                );
            }
        }
    }
}
