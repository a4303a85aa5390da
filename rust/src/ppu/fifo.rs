//! The dot-accurate pixel FIFO (reference renderer).

use super::*;

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
pub(super) const FIFO_ORIGIN: u64 = OAM_SCAN_DOTS + 3;
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
/// A WY write reaches the window's LY = WY comparator this many dots after
/// the dot the FIFO applies other writes on (gambatte window/arg/
/// late_wy_FFto2_ly2_scx3_1/_3 and _scx5_2: a write 3 dots before the
/// pixel counter meets WX starts the window, 2 dots before does not;
/// late_wy_FFto2_ly2_wx0f_2, late_scx_late_wy_FFto4_ly4_wx20_1/_3).
const WY_WRITE_LAG: u32 = 3;
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
pub(super) struct LineRegs {
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
pub(super) struct MidWrite {
    pub(super) dot: u32,
    pub(super) addr: u16,
    pub(super) value: u8,
}

impl Ppu {
    pub(super) fn line_regs(&self) -> LineRegs {
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
    pub(super) fn object_row_with(&self, i: usize, lcdc: u8) -> (u8, u8) {
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
    pub(super) fn fifo_line(&mut self, r: LineRegs) {
        let writes = std::mem::take(&mut self.mid_writes);
        let (_, win_starts, mut writes) = self.fifo_run(r, writes, true);
        self.window_starts = win_starts;
        writes.clear();
        self.mid_writes = writes;
    }

    /// How many dots mode 3 of the current line lasts with the writes
    /// logged so far (`mid_writes`, on top of `mid_regs`; the registers as
    /// they are when none is), by the FIFO run without drawing. Only
    /// differences of two such lengths are used (`Ppu::retime_mode3`), so
    /// they need not match `mode3_dots` to the dot.
    pub(super) fn fifo_mode3_dots(&mut self) -> u32 {
        let regs = if self.mid_writes.is_empty() {
            self.line_regs()
        } else {
            self.mid_regs
        };
        let writes = self.mid_writes.clone();
        let (dots, _, _) = self.fifo_run(regs, writes, false);
        dots
    }

    /// Mode 3 dot by dot from the registers `r`, applying `writes` at their
    /// dots, drawing into the frame if `draw`. Returns the dots it took, the
    /// window starts, and `writes` (for reuse of its buffer).
    fn fifo_run(
        &mut self,
        mut r: LineRegs,
        mut writes: Vec<MidWrite>,
        draw: bool,
    ) -> (u32, u8, Vec<MidWrite>) {
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
        // The writes, at the dots where they take effect (WX and WY reach
        // the window comparators later than the other registers).
        for w in writes.iter_mut() {
            if w.addr == 0xFF4B {
                w.dot += WX_WRITE_LAG;
            } else if w.addr == 0xFF4A {
                w.dot += WY_WRITE_LAG;
            }
        }
        writes.sort_by_key(|w| w.dot);
        // LCDC as the pixel mixer and the window logic see it: writes reach
        // them a dot after the fetcher (mealybug m3_lcdc_bg_en_change,
        // m3_lcdc_win_en_change_multiple_wx).
        let mut late_lcdc = r.lcdc;
        // The WY latch: as mode 3 began, then set on the dot a WY or LCDC
        // write makes WY meet LY with the window enabled (gambatte window/arg/late_wy_FFto2_ly2_1/_3,
        // late_wy_10to1_ly1_1/_3, late_wy_FFto0_ly0_2).
        let mut wy_hit = self.wy_at_m3;
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
                wy_hit |= r.lcdc & 0x20 != 0 && r.wy == ly;
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
            // Mode 3's length (the run that does not draw) sees a clear
            // reach the window logic a dot late too: the window fetch
            // that delays mode 3 has begun by then (gambatte window/
            // late_disable_early_scx03_wx11_2, late_disable_scx5_1).
            let win_enabled = if draw {
                r.lcdc & late_lcdc & 0x20 != 0
            } else {
                late_lcdc & 0x20 != 0
            };
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
            let win_y = win_enabled && wy_hit;
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
            // Object fetch in progress: the fetcher and shifter wait. A DMG
            // whose LCDC.1 is cleared meanwhile cuts it short on that dot:
            // the shifter goes on at once (gambatte sprites/
            // sprite_late_late_disable_spx1A_1, _spx1B_1 against
            // sprite_late_disable_spx1A_2, _spx1B_2), the object's row still
            // merged (mealybug m3_lcdc_obj_en_change and its _variant set
            // LCDC.1 again before its pixels leave).
            if let ObjFetch::Fetching(k, n) = ofetch {
                if r.lcdc & 0x02 == 0 {
                    self.merge_object(k as usize, obj_lcdc, lx, &mut obj, obj_head);
                    ofetch = ObjFetch::Idle;
                } else {
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
                    && wy_hit
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
                // whose LCDC.1 is cleared meanwhile drops it on that dot,
                // and the shifter goes on at once (mealybug
                // m3_lcdc_obj_en_change_variant: no fetch, no penalty;
                // gambatte sprites/late_disable_1 against late_disable_2:
                // the rest of the wait is not paid either).
                if r.lcdc & 0x02 == 0 {
                    ofetch = ObjFetch::Idle;
                } else if progress < OBJ_WAIT_PROGRESS {
                    continue;
                } else {
                    ofetch = ObjFetch::Fetching(k, 1);
                    continue;
                }
            }
            // Shift one pixel out and mix it.
            let mut bc = bg[bg_head];
            bg_head += 1;
            bg_len -= 1;
            let o = std::mem::take(&mut obj[obj_head]);
            obj_head = (obj_head + 1) & 7;
            if draw && lx >= 0 {
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
                    let obp1 = o.attrs & 0x10 != 0;
                    let pal = if obp1 { r.obp1 } else { r.obp0 };
                    self.obj_pixel(obp1, (pal >> (2 * o.color)) & 3)
                } else {
                    (bgp_glitch.unwrap_or(r.bgp) >> (2 * bc)) & 3
                };
                self.frame[row + lx as usize] = shade;
            }
            lx += 1;
        }
        (d, win_starts, writes)
    }

    /// The window row shown by the `n`-th window start of this line (n >= 1).
    #[inline]
    fn window_row(&self, n: u8) -> u8 {
        self.window_line.wrapping_add(n.wrapping_sub(1))
    }
}
