//! The fast line renderer: a tile row at a time, objects composed into a
//! line buffer, and the line cache.

use super::*;

// ---- Pixel output --------------------------------------------------------
//
// A line with no register write during its mode 3 is drawn whole (at the
// end of mode 3, or earlier when a VRAM/OAM write could change it) by a fast
// renderer that works a tile row at a time and composes objects into a line
// buffer. A line on which a PPU register is written during mode 3 is drawn
// by the dot-accurate pixel FIFO (`fifo.rs`), which replays mode 3 from its start
// with the logged writes at their dots. The reference path draws every line
// with the FIFO; tests check both renderers draw identical frames.

/// The FIFO's last pixel leaves up to this long after the mode-0 interrupt
/// (writes up to then are still logged for the line).
pub(super) const MODE3_FIFO_TAIL: u64 = 8;

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
pub(super) const LINE_BUF: usize = LINE_PAD + WIDTH + 16;

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
    pub(super) fn start_line_drawing(&mut self) {
        self.line_pending = true;
        self.window_starts = 0;
        // Writes logged only for the timing of a line not drawn.
        self.mid_writes.clear();
        // A scan with the object size switched midway matches no cache key.
        self.scan_gen = if self.scan_sizes.is_some() {
            u64::MAX
        } else {
            self.content_gen
        };
        self.scan_tall = self.lcdc & 0x04 != 0;
        self.latch_wy_for_mode3();
        self.scan_objects();
    }

    /// The OAM scan: the first ten objects (OAM order) whose rows include
    /// LY, into `line_objs`.
    pub(super) fn scan_objects(&mut self) {
        let tall = self.lcdc & 0x04 != 0;
        if self.scan_sizes.is_none() && self.objects_on_line(self.ly, tall) == 0 {
            self.line_obj_count = 0;
            return;
        }
        let ly = self.ly as i32;
        let mut n = 0;
        for i in 0..40 {
            let y = self.oam[i * 4] as i32 - 16;
            if ly >= y && ly < y + self.scan_height(i, tall) {
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

    pub(super) fn finish_line_drawing(&mut self) {
        self.line_pending = false;
        if self.ly >= 144 {
            return;
        }
        if let Some(c) = self.cgb.as_deref_mut() {
            // The colours this line is shown in (the palettes cannot change
            // while it is drawn).
            c.line_pal[self.ly as usize] = c.pal;
        }
        if self.cgb_mode() {
            self.draw_line_cgb();
        } else if self.reference || !self.mid_writes.is_empty() {
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
    pub(super) fn objects_by_priority(&self) -> ([u8; 10], usize) {
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
            let obp1 = attrs & 0x10 != 0;
            let pal = if obp1 { self.obp1 } else { self.obp0 };
            let tag = self.obj_pixel(obp1, 0);
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
                    self.line_buf[x + LINE_PAD] = ((pal >> (2 * c)) & 3) | tag;
                }
            }
        }
    }
}
