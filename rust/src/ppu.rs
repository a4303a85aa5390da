//! PPU timing: LY, LYC, STAT modes and interrupts, VBlank, LCD on/off.
//!
//! The PPU is a small state machine over the *transitions* of a scanline
//! (mode 2 -> 3 -> 0 -> next line, VBlank lines, the LY=153 quirk). It is
//! lazy: [`Ppu::catch_up`] processes every transition due up to `now`, and
//! [`Ppu::next_event`] tells the scheduler when the next one is due, so a
//! frame costs a few hundred transitions instead of 70,224 dot steps. The
//! reference path calls `catch_up` every M-cycle.
//!
//! Pixel output hooks in at the mode 3 -> mode 0 transition (a later issue):
//! whole scanlines are drawn there when the frame is being looked at.

use crate::error::{Error, Result};
use crate::screen::{PIXELS, WIDTH};
use crate::state::{StateReader, StateWriter, Stateful};

pub const IRQ_VBLANK: u8 = 0x01;
pub const IRQ_STAT: u8 = 0x02;

pub const DOTS_PER_LINE: u64 = 456;
pub const LINES_PER_FRAME: u64 = 154;
pub const DOTS_PER_FRAME: u64 = DOTS_PER_LINE * LINES_PER_FRAME;
const OAM_SCAN_DOTS: u64 = 80;
const MODE3_BASE_DOTS: u64 = 172;

/// Where in the scanline the next transition leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Next: mode 3 starts (end of OAM scan).
    ToTransfer,
    /// Next: mode 0 starts (end of pixel transfer).
    ToHBlank,
    /// Next: the following line starts.
    ToNextLine,
    /// Line 153: next, LY reads 0 (one M-cycle into the line).
    ToLy0,
    /// LCD is off: nothing happens.
    Off,
}

#[derive(Clone)]
pub struct Ppu {
    pub vram: Box<[u8; 0x2000]>,
    /// Object attribute memory. Read freely; write through [`Ppu::write_oam`]
    /// so the per-line object index stays valid.
    pub oam: [u8; 0xA0],
    /// Derived: for each LY, how many objects overlap it (8x16 if `obj_tall`).
    /// Rebuilt lazily after OAM or the object size changes; not saved.
    obj_lines: Box<[u8; 256]>,
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
    /// Set when VBlank starts; the machine clears it.
    pub frame_ready: bool,
    // ---- Pixel output (derived; not part of save states) ---------------
    /// Draw the lines of the current frame (set by the machine per frame).
    pub rendering: bool,
    /// Use the pixel-at-a-time reference renderer instead of the fast one.
    pub reference_renderer: bool,
    /// Shades (0..=3 after BGP/OBP) of the frame being drawn, row-major.
    pub frame: Box<[u8; PIXELS]>,
    /// Pixels of the current line already drawn (mid-line register writes
    /// draw up to the current pixel with the old values first).
    line_x: u8,
    /// Objects selected by this line's OAM scan (OAM indices, in OAM order).
    line_objs: [u8; 10],
    line_obj_count: u8,
    /// The window's own line counter (counts lines on which it was drawn).
    window_line: u8,
    /// Whether the window has been drawn on the current line.
    window_drawn_this_line: bool,
    /// LY matched WY on some line of this frame (the window may start).
    wy_triggered: bool,
}

impl Ppu {
    /// The PPU as the DMG boot ROM leaves it: LCD on, near the end of VBlank.
    pub fn post_boot() -> Ppu {
        let mut p = Ppu {
            vram: Box::new([0; 0x2000]),
            oam: [0; 0xA0],
            obj_lines: Box::new([0; 256]),
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
            frame_ready: false,
            rendering: false,
            reference_renderer: false,
            frame: Box::new([0; PIXELS]),
            line_x: 0,
            line_objs: [0; 10],
            line_obj_count: 0,
            window_line: 0,
            window_drawn_this_line: false,
            wy_triggered: false,
        };
        // Line 153 began POST_BOOT_LINE153_DOTS before time 0; LY already
        // reads 0. (`line_start` is only used once the next line begins.)
        p.next = DOTS_PER_LINE - POST_BOOT_LINE153_DOTS;
        p.stat_line = p.compute_stat_line();
        p
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
            // LY=LYC can start matching when LY changes: at a line start, or
            // (LY=0) one M-cycle into line 153.
            let lyc_t = match self.lyc {
                0 => {
                    if self.phase == Phase::ToLy0 {
                        self.next
                    } else {
                        self.next_line_start(153) + 4
                    }
                }
                1..=153 => self.next_line_start(self.lyc),
                _ => u64::MAX,
            };
            t = t.min(lyc_t);
        }
        t
    }

    fn compute_stat_line(&self) -> bool {
        if !self.lcd_on() {
            return false;
        }
        let e = self.stat_enables;
        (e & 0x40 != 0 && self.ly == self.lyc)
            || (e & 0x08 != 0 && self.mode == 0)
            || (e & 0x10 != 0 && self.mode == 1)
            || (e & 0x20 != 0 && self.mode == 2)
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

    /// Write one OAM byte (CPU, DMA or debugger).
    #[inline]
    pub fn write_oam(&mut self, index: usize, value: u8) {
        if self.oam[index] != value {
            self.oam[index] = value;
            if index & 3 == 0 {
                self.obj_lines_valid = false;
            }
        }
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
                    if line < 256 {
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
    /// scroll discard, plus object fetch penalties (Pan Docs "Mode 3 length").
    fn mode3_dots(&mut self) -> u64 {
        let mut dots = MODE3_BASE_DOTS + (self.scx & 7) as u64;
        let tall = self.lcdc & 0x04 != 0;
        if self.lcdc & 0x02 != 0 && self.objects_on_line(self.ly, tall) != 0 {
            let height = if self.lcdc & 0x04 != 0 { 16 } else { 8 };
            let ly = self.ly as i32;
            let mut count = 0;
            let mut seen_tiles = [false; 32];
            for i in 0..40 {
                let y = self.oam[i * 4] as i32 - 16;
                let x = self.oam[i * 4 + 1] as i32;
                if ly < y || ly >= y + height {
                    continue;
                }
                count += 1;
                if x < 168 {
                    dots += 6;
                    let px = x + (self.scx & 7) as i32;
                    let tile = (px >> 3) as usize & 31;
                    if !seen_tiles[tile] {
                        seen_tiles[tile] = true;
                        dots += 5u64.saturating_sub((px & 7) as u64);
                    }
                }
                if count == 10 {
                    break;
                }
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
            irq |= self.skip_lines(now);
            irq |= self.transition();
        }
        irq
    }

    /// Fast path of `catch_up`: jump over whole lines whose transitions can
    /// have no visible effect (no mode 0/2 STAT source enabled, not crossing
    /// the start of VBlank, line 153 or the LYC line), landing at the end of
    /// the last skipped line. The reference path never takes it (it catches
    /// up every M-cycle), and the reference-path tests check both agree.
    fn skip_lines(&mut self, now: u64) -> u8 {
        if self.stat_enables & 0x28 != 0
            || self.phase == Phase::Off
            || self.line >= 152
            || self.rendering
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
            Phase::ToTransfer => {
                if self.rendering {
                    self.start_line_drawing();
                }
                self.mode = 3;
                self.phase = Phase::ToHBlank;
                self.next = self.line_start + OAM_SCAN_DOTS + self.mode3_dots();
            }
            Phase::ToHBlank => {
                if self.rendering {
                    self.finish_line_drawing();
                }
                self.mode = 0;
                self.phase = Phase::ToNextLine;
                self.next = self.line_start + DOTS_PER_LINE;
            }
            Phase::ToNextLine => {
                // The next line starts exactly when this transition is due.
                self.line_start = self.next;
                self.line = if self.line == 153 { 0 } else { self.line + 1 };
                self.ly = self.line;
                match self.line {
                    0..=143 => {
                        self.mode = 2;
                        self.phase = Phase::ToTransfer;
                        self.next = self.line_start + OAM_SCAN_DOTS;
                    }
                    144 => {
                        self.mode = 1;
                        self.window_line = 0;
                        self.wy_triggered = false;
                        irq |= IRQ_VBLANK;
                        self.frame_ready = true;
                        // DMG quirk: the mode-2 STAT source also fires as VBlank starts.
                        if self.stat_enables & 0x20 != 0 && !self.stat_line {
                            irq |= IRQ_STAT;
                            self.stat_line = true;
                        }
                        self.phase = Phase::ToNextLine;
                        self.next = self.line_start + DOTS_PER_LINE;
                    }
                    153 => {
                        self.phase = Phase::ToLy0;
                        self.next = self.line_start + 4;
                    }
                    _ => {
                        self.phase = Phase::ToNextLine;
                        self.next = self.line_start + DOTS_PER_LINE;
                    }
                }
            }
            Phase::ToLy0 => {
                self.ly = 0;
                self.phase = Phase::ToNextLine;
                self.next = self.line_start + DOTS_PER_LINE;
            }
            Phase::Off => {
                self.next = u64::MAX;
            }
        }
        irq | self.update_stat()
    }

    /// OAM is inaccessible to the CPU during modes 2 and 3.
    #[inline]
    pub fn oam_blocked(&self) -> bool {
        self.mode >= 2
    }

    /// VRAM is inaccessible to the CPU during mode 3.
    #[inline]
    pub fn vram_blocked(&self) -> bool {
        self.mode == 3
    }

    /// Register read (caller has caught up).
    pub fn read(&self, addr: u16) -> u8 {
        match addr {
            0xFF40 => self.lcdc,
            0xFF41 => {
                let coincidence = if self.lcd_on() && self.ly == self.lyc {
                    4
                } else {
                    0
                };
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
        if self.rendering && self.phase == Phase::ToHBlank && addr != 0xFF41 && addr != 0xFF45 {
            // A write that lands mid-line: the pixels already pushed keep
            // the old value.
            let x = self.pixel_at(now);
            self.draw_to(x);
        }
        match addr {
            0xFF40 => {
                let was_on = self.lcd_on();
                self.lcdc = value;
                if was_on && !self.lcd_on() {
                    self.ly = 0;
                    self.line = 0;
                    self.mode = 0;
                    self.phase = Phase::Off;
                    self.next = u64::MAX;
                    self.stat_line = false;
                    return 0;
                }
                if !was_on && self.lcd_on() {
                    // The first line after LCD on has no OAM scan: it starts in
                    // mode 0 and enters mode 3 where mode 2 would have ended.
                    self.line = 0;
                    self.ly = 0;
                    self.mode = 0;
                    self.line_start = now + LCD_ON_DELAY;
                    self.window_line = 0;
                    self.wy_triggered = false;
                    self.phase = Phase::ToTransfer;
                    self.next = self.line_start + OAM_SCAN_DOTS;
                }
                self.update_stat()
            }
            0xFF41 => {
                self.stat_enables = value & 0x78;
                self.update_stat()
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

/// Dots into line 153 at which the DMG boot ROM hands over (PC=0x100).
const POST_BOOT_LINE153_DOTS: u64 = 400;
/// Dots between the LCDC write that turns the LCD on and the start of line 0.
const LCD_ON_DELAY: u64 = 0;

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
        });
        w.bool(self.stat_line);
        w.bool(self.frame_ready);
        w.end_section();
    }

    fn load(&mut self, r: &mut StateReader) -> Result<()> {
        r.begin_section(b"PPU ")?;
        self.vram.copy_from_slice(r.raw(0x2000)?);
        self.oam.copy_from_slice(r.raw(0xA0)?);
        self.obj_lines_valid = false;
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
            p => {
                return Err(Error::InvalidState(format!(
                    "corrupted state: PPU phase {p} is out of range"
                )))
            }
        };
        self.stat_line = r.bool()?;
        self.frame_ready = r.bool()?;
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
// A line is drawn in spans: at the end of mode 3 everything not yet drawn is
// drawn with the registers of that moment; a register write during mode 3
// first draws up to the pixel the PPU has reached, so the pixels before the
// write keep the old value (the mid-line effects the mealybug tests probe).
// Two independent renderers draw a span: a fast one that works a tile row
// at a time and composes objects into a line buffer, and a pixel-at-a-time
// reference that evaluates each pixel from first principles. The reference
// path uses the second; tests check both draw identical frames.

/// Dots from the start of mode 3 to the first visible pixel (fetcher start-up).
const FIRST_PIXEL_DOTS: u64 = 12;

#[derive(Clone, Copy, Default)]
struct ObjPixel {
    /// Colour index 1..=3 (0 = transparent / none).
    color: u8,
    /// Shade after OBP0/OBP1.
    shade: u8,
    /// The object stays behind BG colours 1..=3.
    behind_bg: bool,
}

impl Ppu {
    /// OAM scan for the current line: the first ten objects (OAM order)
    /// whose rows include LY.
    fn start_line_drawing(&mut self) {
        self.line_x = 0;
        self.window_drawn_this_line = false;
        if self.ly == self.wy {
            self.wy_triggered = true;
        }
        let height: i32 = if self.lcdc & 0x04 != 0 { 16 } else { 8 };
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

    fn finish_line_drawing(&mut self) {
        self.draw_to(WIDTH as u8);
        if self.line_x as usize >= WIDTH && self.ly < 144 && self.window_drawn_this_line {
            self.window_line = self.window_line.wrapping_add(1);
        }
    }

    /// The pixel the PPU is pushing at `now` during mode 3 (0..=160).
    fn pixel_at(&self, now: u64) -> u8 {
        let start = self.line_start + OAM_SCAN_DOTS + FIRST_PIXEL_DOTS + (self.scx & 7) as u64;
        now.saturating_sub(start).min(WIDTH as u64) as u8
    }

    /// Draw the current line from `line_x` up to (not including) `x_end`.
    fn draw_to(&mut self, x_end: u8) {
        let x0 = self.line_x as usize;
        let x1 = (x_end as usize).min(WIDTH);
        if x0 >= x1 || self.ly >= 144 {
            return;
        }
        if self.reference_renderer {
            for x in x0..x1 {
                let s = self.reference_pixel(x);
                self.frame[self.ly as usize * WIDTH + x] = s;
            }
        } else {
            self.draw_span_fast(x0, x1);
        }
        self.line_x = x1 as u8;
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

    /// Address in VRAM (0-based) of row `row` of BG/window tile `tile`.
    #[inline]
    fn bg_tile_row_addr(&self, tile: u8, row: u8) -> usize {
        let base = if self.lcdc & 0x10 != 0 {
            tile as usize * 16
        } else {
            (0x1000 + (tile as i8 as isize) * 16) as usize
        };
        base + row as usize * 2
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
        let tall = self.lcdc & 0x04 != 0;
        let height = if tall { 16 } else { 8 };
        let y = self.oam[i * 4] as i32 - 16;
        let attrs = self.oam[i * 4 + 3];
        let mut row = (self.ly as i32 - y) as usize;
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

    fn draw_span_fast(&mut self, x0: usize, x1: usize) {
        let mut bg = [0u8; WIDTH];
        let ly = self.ly;
        if self.lcdc & 0x01 != 0 {
            let win = self.window_start().filter(|&w| w < x1);
            let bg_end = win.map_or(x1, |w| w.max(x0));
            // Background.
            let map = if self.lcdc & 0x08 != 0 {
                0x1C00
            } else {
                0x1800
            };
            let y = ly.wrapping_add(self.scy);
            let map_row = map + (y as usize >> 3) * 32;
            let mut x = x0;
            while x < bg_end {
                let bx = (x as u8).wrapping_add(self.scx);
                let tile = self.vram[map_row + (bx as usize >> 3)];
                let a = self.bg_tile_row_addr(tile, y & 7);
                let (lo, hi) = (self.vram[a], self.vram[a + 1]);
                let mut b = bx & 7;
                while b < 8 && x < bg_end {
                    let sh = 7 - b;
                    bg[x] = ((hi >> sh) & 1) << 1 | ((lo >> sh) & 1);
                    b += 1;
                    x += 1;
                }
            }
            // Window.
            if let Some(w) = win {
                self.window_drawn_this_line = true;
                let map = if self.lcdc & 0x40 != 0 {
                    0x1C00
                } else {
                    0x1800
                };
                let wy = self.window_line;
                let map_row = map + (wy as usize >> 3) * 32;
                let mut x = x0.max(w);
                while x < x1 {
                    let wx = x + 7 - self.wx as usize;
                    let tile = self.vram[map_row + ((wx >> 3) & 31)];
                    let a = self.bg_tile_row_addr(tile, wy & 7);
                    let (lo, hi) = (self.vram[a], self.vram[a + 1]);
                    let mut b = wx & 7;
                    while b < 8 && x < x1 {
                        let sh = 7 - b;
                        bg[x] = ((hi >> sh) & 1) << 1 | ((lo >> sh) & 1);
                        b += 1;
                        x += 1;
                    }
                }
            }
        }
        // Objects: lowest priority first, so higher ones overwrite.
        let mut obj = [ObjPixel::default(); WIDTH];
        let mut any_obj = false;
        if self.lcdc & 0x02 != 0 && self.line_obj_count != 0 {
            let (objs, n) = self.objects_by_priority();
            for &i in objs[..n].iter().rev() {
                let i = i as usize;
                let ox = self.oam[i * 4 + 1] as isize - 8;
                if ox >= x1 as isize || ox + 8 <= x0 as isize {
                    continue;
                }
                let attrs = self.oam[i * 4 + 3];
                let pal = if attrs & 0x10 != 0 {
                    self.obp1
                } else {
                    self.obp0
                };
                let (lo, hi) = self.object_row(i);
                for b in 0..8 {
                    let x = ox + b;
                    if x < x0 as isize || x >= x1 as isize {
                        continue;
                    }
                    let sh = 7 - b;
                    let c = ((hi >> sh) & 1) << 1 | ((lo >> sh) & 1);
                    if c != 0 {
                        obj[x as usize] = ObjPixel {
                            color: c,
                            shade: (pal >> (c * 2)) & 3,
                            behind_bg: attrs & 0x80 != 0,
                        };
                        any_obj = true;
                    }
                }
            }
        }
        let row = ly as usize * WIDTH;
        let bgp = self.bgp;
        let out = &mut self.frame[row + x0..row + x1];
        for (k, px) in out.iter_mut().enumerate() {
            let x = x0 + k;
            let c = bg[x];
            *px = (bgp >> (c * 2)) & 3;
            if any_obj {
                let o = obj[x];
                if o.color != 0 && !(o.behind_bg && c != 0) {
                    *px = o.shade;
                }
            }
        }
    }

    /// One pixel from first principles (the reference renderer).
    fn reference_pixel(&mut self, x: usize) -> u8 {
        let ly = self.ly;
        let mut bg_color = 0u8;
        if self.lcdc & 0x01 != 0 {
            let in_window = match self.window_start() {
                Some(w) => x >= w,
                None => false,
            };
            let (map, px, py) = if in_window {
                self.window_drawn_this_line = true;
                let map = if self.lcdc & 0x40 != 0 {
                    0x9C00
                } else {
                    0x9800
                };
                (map, x + 7 - self.wx as usize, self.window_line as usize)
            } else {
                let map = if self.lcdc & 0x08 != 0 {
                    0x9C00
                } else {
                    0x9800
                };
                (
                    map,
                    (x + self.scx as usize) % 256,
                    (ly as usize + self.scy as usize) % 256,
                )
            };
            let tile_index = self.vram[map - 0x8000 + (py / 8) * 32 + (px / 8) % 32];
            let tile_addr: usize = if self.lcdc & 0x10 != 0 {
                0x8000 + 16 * tile_index as usize
            } else {
                (0x9000 + 16 * (tile_index as i8 as i32)) as usize
            };
            let row_addr = tile_addr - 0x8000 + 2 * (py % 8);
            let bit = 7 - (px % 8);
            let lo = (self.vram[row_addr] >> bit) & 1;
            let hi = (self.vram[row_addr + 1] >> bit) & 1;
            bg_color = hi * 2 + lo;
        }
        let bg_shade = (self.bgp >> (2 * bg_color)) & 3;
        if self.lcdc & 0x02 == 0 {
            return bg_shade;
        }
        // The winning object: the opaque one with the smallest X, then the
        // smallest OAM index.
        let mut best: Option<(u8, usize, u8, u8)> = None; // (x, index, color, attrs)
        for k in 0..self.line_obj_count as usize {
            let i = self.line_objs[k] as usize;
            let ox = self.oam[i * 4 + 1];
            let left = ox as isize - 8;
            if (x as isize) < left || (x as isize) >= left + 8 {
                continue;
            }
            let attrs = self.oam[i * 4 + 3];
            let height = if self.lcdc & 0x04 != 0 { 16 } else { 8 };
            let mut row = ly as usize + 16 - self.oam[i * 4] as usize;
            if attrs & 0x40 != 0 {
                row = height - 1 - row;
            }
            let mut col = (x as isize - left) as usize;
            if attrs & 0x20 != 0 {
                col = 7 - col;
            }
            let tile = if height == 16 {
                self.oam[i * 4 + 2] & 0xFE
            } else {
                self.oam[i * 4 + 2]
            };
            let addr = 16 * tile as usize + 2 * row;
            let bit = 7 - col;
            let color = ((self.vram[addr + 1] >> bit) & 1) * 2 + ((self.vram[addr] >> bit) & 1);
            if color == 0 {
                continue;
            }
            let better = match best {
                None => true,
                Some((bx, bi, _, _)) => ox < bx || (ox == bx && i < bi),
            };
            if better {
                best = Some((ox, i, color, attrs));
            }
        }
        match best {
            Some((_, _, color, attrs)) if !(attrs & 0x80 != 0 && bg_color != 0) => {
                let pal = if attrs & 0x10 != 0 {
                    self.obp1
                } else {
                    self.obp0
                };
                (pal >> (2 * color)) & 3
            }
            _ => bg_shade,
        }
    }
}
