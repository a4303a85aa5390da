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
        if self.stat_enables & 0x28 != 0 || self.phase == Phase::Off || self.line >= 152 {
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
                self.mode = 3;
                self.phase = Phase::ToHBlank;
                self.next = self.line_start + OAM_SCAN_DOTS + self.mode3_dots();
            }
            Phase::ToHBlank => {
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
