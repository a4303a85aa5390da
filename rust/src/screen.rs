//! The picture a person (or an agent) looks at: the PPU's shade buffer
//! converted to RGB and grey through a configurable palette.
//!
//! The PPU writes one shade (0 = lightest .. 3 = darkest, after BGP/OBP) per
//! pixel into its own frame buffer while it draws. When a rendered frame
//! ends, [`Screen::update`] copies the shades and converts them, so the three
//! buffers here always hold the same, complete frame. Headless frames leave
//! them untouched.

pub const WIDTH: usize = 160;
pub const HEIGHT: usize = 144;
pub const PIXELS: usize = WIDTH * HEIGHT;
/// Pixels compared at once by [`Screen::update`] (divides `PIXELS`).
const BLOCK: usize = 16;

/// The DMG greys used by the dmg-acid2 and mealybug reference images.
pub const DMG_GREYS: [[u8; 3]; 4] = [
    [0xFF, 0xFF, 0xFF],
    [0xAA, 0xAA, 0xAA],
    [0x55, 0x55, 0x55],
    [0x00, 0x00, 0x00],
];

/// How a CGB's 15-bit colours (5 bits a component) become RGB bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ColorConversion {
    /// `x << 3` (0..=248), as PyBoy 2.8.1 converts: screens compare with
    /// PyBoy's in lockstep. The default.
    #[default]
    Pyboy,
    /// `(x << 3) | (x >> 2)` (0..=255), the full range; cgb-acid2's
    /// reference image uses it.
    Full,
    /// The colours of a CGB's LCD, which mixes the components (gambatte's
    /// correction: R = (13r + 2g + b) / 2, G = 2(3g + b), B = (3r + 2g +
    /// 11b) / 2, each 0..=248).
    Corrected,
}

impl ColorConversion {
    /// `"pyboy"`, `"full"` or `"corrected"`.
    pub fn from_name(name: &str) -> Option<ColorConversion> {
        match name {
            "pyboy" => Some(ColorConversion::Pyboy),
            "full" => Some(ColorConversion::Full),
            "corrected" => Some(ColorConversion::Corrected),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ColorConversion::Pyboy => "pyboy",
            ColorConversion::Full => "full",
            ColorConversion::Corrected => "corrected",
        }
    }

    /// The RGB bytes of a 15-bit colour (bits 0-4 red, 5-9 green, 10-14
    /// blue).
    #[inline]
    pub fn rgb(self, color: u16) -> [u8; 3] {
        let (r, g, b) = (
            (color & 31) as u32,
            ((color >> 5) & 31) as u32,
            ((color >> 10) & 31) as u32,
        );
        match self {
            ColorConversion::Pyboy => [(r << 3) as u8, (g << 3) as u8, (b << 3) as u8],
            ColorConversion::Full => [
                (r << 3 | r >> 2) as u8,
                (g << 3 | g >> 2) as u8,
                (b << 3 | b >> 2) as u8,
            ],
            ColorConversion::Corrected => [
                ((r * 13 + g * 2 + b) >> 1) as u8,
                ((g * 3 + b) << 1) as u8,
                ((r * 3 + g * 2 + b * 11) >> 1) as u8,
            ],
        }
    }
}

/// The 15-bit colour of palette slot `slot` (0-63) in palette RAM `pal`
/// (see `ppu/cgb.rs`).
#[inline]
pub fn slot_color(pal: &[u8; 128], slot: u8) -> u16 {
    let i = (slot as usize & 63) * 2;
    u16::from_le_bytes([pal[i], pal[i + 1]]) & 0x7FFF
}

/// The RGB and grey bytes of a line palette's 64 slots, converted once per
/// palette rather than once per pixel (consecutive lines usually share
/// one: it is converted again only when it differs from the last).
struct LineColours {
    conversion: ColorConversion,
    pal: Option<[u8; 128]>,
    rgb: [[u8; 3]; 64],
    gray: [u8; 64],
}

impl LineColours {
    fn new(conversion: ColorConversion) -> LineColours {
        LineColours {
            conversion,
            pal: None,
            rgb: [[0; 3]; 64],
            gray: [0; 64],
        }
    }

    fn set(&mut self, pal: &[u8; 128]) {
        if self.pal.as_ref() == Some(pal) {
            return;
        }
        self.pal = Some(*pal);
        for slot in 0..64u8 {
            let c = self.conversion.rgb(slot_color(pal, slot));
            self.rgb[slot as usize] = c;
            self.gray[slot as usize] = luma(c);
        }
    }

    fn rgb_line(&self, slots: &[u8], out: &mut [u8]) {
        for (&s, px) in slots.iter().zip(out.chunks_exact_mut(3)) {
            px.copy_from_slice(&self.rgb[s as usize & 63]);
        }
    }

    fn gray_line(&self, slots: &[u8], out: &mut [u8]) {
        for (&s, g) in slots.iter().zip(out.iter_mut()) {
            *g = self.gray[s as usize & 63];
        }
    }
}

#[derive(Clone)]
pub struct Screen {
    shades: Box<[u8; PIXELS]>,
    rgb: Box<[u8; PIXELS * 3]>,
    gray: Box<[u8; PIXELS]>,
    palette: [[u8; 3]; 4],
    gray_of: [u8; 4],
    /// RGB bytes of every run of four shades (index s0<<6|s1<<4|s2<<2|s3).
    rgb4: Box<[[u8; 12]; 256]>,
    /// Grey bytes of every run of four shades (same index).
    gray4: Box<[[u8; 4]; 256]>,
    /// Which derived buffers are kept up to date (the shades always are).
    rgb_on: bool,
    gray_on: bool,
    /// A CGB's frames: `shades` holds palette slots (0-63, or DMG shades
    /// 0-3 in compatibility mode, which are background palette 0's slots),
    /// coloured by the line palettes here; `None` until a CGB frame comes.
    line_pal: Option<Box<[[u8; 128]; HEIGHT]>>,
    /// How CGB colours become RGB.
    conversion: ColorConversion,
}

impl Default for Screen {
    fn default() -> Self {
        Screen::new()
    }
}

/// The table index `s0<<6|s1<<4|s2<<2|s3` of four consecutive shades held
/// as the bytes of a little-endian `u32` (s0 first). One multiply gathers the
/// four 2-bit fields: byte k is shifted to bit 36 - 2k, and no two of the
/// sixteen partial products overlap.
#[inline(always)]
fn quad_index(four: u32) -> usize {
    ((((four & 0x0303_0303) as u64) * 0x10_0401_0040) >> 30) as usize & 0xFF
}

/// ITU-R BT.601 luma of an RGB colour, rounded.
fn luma(c: [u8; 3]) -> u8 {
    ((c[0] as u32 * 299 + c[1] as u32 * 587 + c[2] as u32 * 114 + 500) / 1000) as u8
}

impl Screen {
    /// A blank (shade 0) screen with the DMG greys.
    pub fn new() -> Screen {
        let mut s = Screen {
            shades: Box::new([0; PIXELS]),
            rgb: Box::new([0; PIXELS * 3]),
            gray: Box::new([0; PIXELS]),
            palette: DMG_GREYS,
            gray_of: [0; 4],
            rgb4: Box::new([[0; 12]; 256]),
            gray4: Box::new([[0; 4]; 256]),
            rgb_on: true,
            gray_on: true,
            line_pal: None,
            conversion: ColorConversion::default(),
        };
        s.set_palette(DMG_GREYS);
        s
    }

    /// Take the frame the PPU finished: shades on a DMG, palette slots and
    /// line palettes on a CGB ([`Screen::update_cgb`]).
    pub fn show(&mut self, ppu: &crate::ppu::Ppu) {
        match ppu.line_palettes() {
            None => self.update(ppu.frame()),
            Some(pals) => self.update_cgb(ppu.frame(), pals),
        }
    }

    /// Take a CGB's finished frame: palette slots (0-63) and the palette
    /// RAM each line was drawn with. As [`Screen::update`], only lines that
    /// changed (slots or palette) since the last frame are converted (RGB
    /// and grey, those that are on).
    pub fn update_cgb(&mut self, slots: &[u8; PIXELS], line_pal: &[[u8; 128]; HEIGHT]) {
        let Some(old_pal) = self.line_pal.as_deref_mut() else {
            self.shades.copy_from_slice(slots);
            self.line_pal = Some(Box::new(*line_pal));
            self.convert();
            return;
        };
        let mut colours = LineColours::new(self.conversion);
        for y in 0..HEIGHT {
            let row = y * WIDTH..(y + 1) * WIDTH;
            if old_pal[y] == line_pal[y] && self.shades[row.clone()] == slots[row.clone()] {
                continue;
            }
            old_pal[y] = line_pal[y];
            self.shades[row.clone()].copy_from_slice(&slots[row.clone()]);
            colours.set(&line_pal[y]);
            if self.rgb_on {
                colours.rgb_line(
                    &slots[row.clone()],
                    &mut self.rgb[3 * row.start..3 * row.end],
                );
            }
            if self.gray_on {
                colours.gray_line(&slots[row.clone()], &mut self.gray[row]);
            }
        }
    }

    /// How CGB colours become RGB (the default: PyBoy's); the buffers are
    /// re-converted at once.
    pub fn set_color_conversion(&mut self, conversion: ColorConversion) {
        self.conversion = conversion;
        if self.line_pal.is_some() {
            self.convert();
        }
    }

    /// The colour conversion for CGB frames.
    pub fn color_conversion(&self) -> ColorConversion {
        self.conversion
    }

    /// The 15-bit colours of the last CGB frame, row-major (`None` for a
    /// DMG's frames).
    pub fn colors(&self) -> Option<Vec<u16>> {
        let line_pal = self.line_pal.as_deref()?;
        Some(
            self.shades
                .iter()
                .enumerate()
                .map(|(i, &s)| slot_color(&line_pal[i / WIDTH], s))
                .collect(),
        )
    }

    /// Change the colours of the four shades; the buffers are re-converted
    /// at once.
    pub fn set_palette(&mut self, palette: [[u8; 3]; 4]) {
        self.palette = palette;
        for (g, c) in self.gray_of.iter_mut().zip(palette) {
            *g = luma(c);
        }
        for (i, (rgb, gray)) in self.rgb4.iter_mut().zip(self.gray4.iter_mut()).enumerate() {
            for k in 0..4 {
                let shade = (i >> (6 - 2 * k)) & 3;
                rgb[3 * k..3 * k + 3].copy_from_slice(&palette[shade]);
                gray[k] = self.gray_of[shade];
            }
        }
        self.convert();
    }

    pub fn palette(&self) -> [[u8; 3]; 4] {
        self.palette
    }

    /// Take a finished frame of shades (values 0..=3; higher bits ignored).
    ///
    /// Only pixels that changed since the last frame are converted: the RGB
    /// and grey buffers, while on, always hold the conversion of `shades`.
    pub fn update(&mut self, shades: &[u8; PIXELS]) {
        let (rgb_on, gray_on) = (self.rgb_on, self.gray_on);
        for (block, (new, old)) in shades
            .chunks_exact(BLOCK)
            .zip(self.shades.chunks_exact_mut(BLOCK))
            .enumerate()
        {
            if new == old {
                continue;
            }
            old.copy_from_slice(new);
            for k in 0..BLOCK / 4 {
                let four = u32::from_le_bytes([
                    new[4 * k],
                    new[4 * k + 1],
                    new[4 * k + 2],
                    new[4 * k + 3],
                ]);
                let q = quad_index(four);
                let px = block * BLOCK + 4 * k;
                if rgb_on {
                    self.rgb[3 * px..3 * px + 12].copy_from_slice(&self.rgb4[q]);
                }
                if gray_on {
                    self.gray[px..px + 4].copy_from_slice(&self.gray4[q]);
                }
            }
        }
    }

    /// Choose which of the RGB and grey buffers are kept up to date (both
    /// are by default). A buffer switched back on is brought up to date at
    /// once. Nobody reading RGB means a rendered frame costs no conversion.
    pub fn set_formats(&mut self, rgb: bool, gray: bool) {
        let (new_rgb, new_gray) = (rgb && !self.rgb_on, gray && !self.gray_on);
        self.rgb_on = rgb;
        self.gray_on = gray;
        if self.line_pal.is_some() {
            self.convert_cgb(new_rgb, new_gray);
            return;
        }
        if new_rgb {
            self.convert_rgb();
        }
        if new_gray {
            self.convert_gray();
        }
    }

    /// Whether the RGB and grey buffers are kept up to date.
    pub fn formats(&self) -> (bool, bool) {
        (self.rgb_on, self.gray_on)
    }

    fn convert(&mut self) {
        if self.line_pal.is_some() {
            self.convert_cgb(self.rgb_on, self.gray_on);
            return;
        }
        if self.rgb_on {
            self.convert_rgb();
        }
        if self.gray_on {
            self.convert_gray();
        }
    }

    /// A CGB frame's RGB and grey bytes (those asked for), every line,
    /// from the slots and the line palettes.
    fn convert_cgb(&mut self, rgb_on: bool, gray_on: bool) {
        let Some(line_pal) = self.line_pal.as_deref() else {
            return;
        };
        let mut colours = LineColours::new(self.conversion);
        for (y, pal) in line_pal.iter().enumerate() {
            let row = y * WIDTH..(y + 1) * WIDTH;
            colours.set(pal);
            if rgb_on {
                colours.rgb_line(
                    &self.shades[row.clone()],
                    &mut self.rgb[3 * row.start..3 * row.end],
                );
            }
            if gray_on {
                colours.gray_line(&self.shades[row.clone()], &mut self.gray[row]);
            }
        }
    }

    /// Four pixels at a time, through tables indexed by the four shades.
    fn convert_rgb(&mut self) {
        for (px, out) in self
            .shades
            .chunks_exact(4)
            .zip(self.rgb.chunks_exact_mut(12))
        {
            let four = u32::from_le_bytes([px[0], px[1], px[2], px[3]]);
            out.copy_from_slice(&self.rgb4[quad_index(four)]);
        }
    }

    fn convert_gray(&mut self) {
        for (px, out) in self
            .shades
            .chunks_exact(4)
            .zip(self.gray.chunks_exact_mut(4))
        {
            let four = u32::from_le_bytes([px[0], px[1], px[2], px[3]]);
            out.copy_from_slice(&self.gray4[quad_index(four)]);
        }
    }

    /// (144, 160) shades 0..=3, row-major.
    pub fn shades(&self) -> &[u8; PIXELS] {
        &self.shades
    }

    /// (144, 160, 3) RGB bytes, row-major (current while RGB is on, see
    /// [`Screen::set_formats`]).
    pub fn rgb(&self) -> &[u8; PIXELS * 3] {
        &self.rgb
    }

    /// (144, 160) grey levels (luma of the palette colours).
    pub fn gray(&self) -> &[u8; PIXELS] {
        &self.gray
    }

    pub fn bytes(&self) -> usize {
        PIXELS * 5 + self.line_pal.as_ref().map_or(0, |l| l.len() * 128)
    }
}

// ---- The picture in save states ----------------------------------------------
//
// A save state carries the last drawn frame (section `SCRN`, see
// `crate::gameboy`), so that a loaded machine shows the screen it was saved
// with. The frame is 2,880 words of 8 pixels, each word 2 bytes (little
// endian, pixel k in bits 2k..2k+1), run-length coded by word as in
// PackBits: a control byte `c` is followed by `c + 1` literal words when
// `c < 128`, or by one word repeated `257 - c` times when `c > 128`; 128 is
// not used. Game screens have long uniform stretches, so a picture costs a
// few hundred bytes to a few KB (69 bytes blank, at most 5,783).

/// Words of 8 pixels in a frame.
const WORDS: usize = PIXELS / 8;

/// The longest run or literal stretch one control byte covers (in words).
const MAX_RUN: usize = 128;

/// Eight shades (one a byte, values 0..=3) as 16 bits, pixel k in bits
/// 2k..2k+1: two doublings of the field width gather them.
#[inline(always)]
fn pack_word(eight: u64) -> [u8; 2] {
    let v = eight & 0x0303_0303_0303_0303;
    let x = (v | v >> 6) & 0x000F_000F_000F_000F;
    let x = (x | x >> 12) & 0x0000_00FF_0000_00FF;
    [x as u8, (x >> 32) as u8]
}

/// The inverse of [`pack_word`].
#[inline(always)]
fn unpack_word(packed: [u8; 2]) -> [u8; 8] {
    let x = packed[0] as u64 | (packed[1] as u64) << 32;
    let x = (x | x << 12) & 0x000F_000F_000F_000F;
    ((x | x << 6) & 0x0303_0303_0303_0303).to_le_bytes()
}

/// The most bytes a coded picture takes: every word a literal.
pub const MAX_PICTURE_BYTES: usize = 2 * WORDS + WORDS.div_ceil(MAX_RUN);

/// `shades` (values 0..=3; higher bits ignored) coded as above into `out`;
/// returns the number of bytes written. One pass, no allocation.
pub fn encode_picture(shades: &[u8; PIXELS], out: &mut [u8; MAX_PICTURE_BYTES]) -> usize {
    // Words compared as they are: equal bytes are equal shades (words that
    // differ only in the ignored bits are coded as literals, still right).
    let word = |k: usize| u64::from_le_bytes(shades[8 * k..8 * k + 8].try_into().expect("8"));
    let mut n = 0;
    // The control byte of the literal stretch being written, and its length.
    let (mut literal_at, mut literals) = (0, 0);
    let mut i = 0;
    while i < WORDS {
        let first = word(i);
        let mut run = 1;
        while i + run < WORDS && run < MAX_RUN && word(i + run) == first {
            run += 1;
        }
        if run >= 2 {
            out[n] = (257 - run) as u8;
            out[n + 1..n + 3].copy_from_slice(&pack_word(first));
            n += 3;
            literals = 0;
        } else {
            if literals == 0 || literals == MAX_RUN {
                literal_at = n;
                literals = 0;
                n += 1;
            }
            out[literal_at] = literals as u8; // (count - 1 once this word is in)
            out[n..n + 2].copy_from_slice(&pack_word(first));
            n += 2;
            literals += 1;
        }
        i += run;
    }
    n
}

/// Decode a picture written by [`encode_picture`] into `shades`; `None` if
/// `data` is not exactly one coded frame (then `shades` may be partly
/// written: decode into a scratch buffer).
pub fn decode_picture(data: &[u8], shades: &mut [u8; PIXELS]) -> Option<()> {
    let mut words = shades.chunks_exact_mut(8);
    let mut filled = 0;
    let mut i = 0;
    while i < data.len() {
        let c = data[i] as usize;
        i += 1;
        if c < 128 {
            let n = c + 1;
            let src = data.get(i..i + 2 * n)?;
            if filled + n > WORDS {
                return None;
            }
            // (The source first: zip stops on it without taking a word.)
            for (w, dst) in src.chunks_exact(2).zip(words.by_ref()) {
                dst.copy_from_slice(&unpack_word([w[0], w[1]]));
            }
            i += 2 * n;
            filled += n;
        } else if c > 128 {
            let n = 257 - c;
            let src = data.get(i..i + 2)?;
            if filled + n > WORDS {
                return None;
            }
            let eight = unpack_word([src[0], src[1]]);
            for dst in words.by_ref().take(n) {
                dst.copy_from_slice(&eight);
            }
            i += 2;
            filled += n;
        } else {
            return None;
        }
    }
    (filled == WORDS).then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A CGB frame's RGB and grey buffers, converted by lines through
    /// tables and only where a line changed, are every pixel's colour
    /// converted on its own (`colors`), over frames that change some lines'
    /// slots, some lines' palettes and the formats and conversion in use.
    #[test]
    fn cgb_frames_convert_as_each_pixel_alone() {
        let mut x: u32 = 99;
        let mut next = move || {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            x >> 8
        };
        let mut slots = Box::new([0u8; PIXELS]);
        let mut pals = Box::new([[0u8; 128]; HEIGHT]);
        for s in slots.iter_mut() {
            *s = (next() & 63) as u8;
        }
        for p in pals.iter_mut() {
            for b in p.iter_mut() {
                *b = next() as u8;
            }
        }
        let mut screen = Screen::new();
        for frame in 0..12 {
            // Some lines get new slots, some a new palette, some both.
            for _ in 0..20 {
                let y = next() as usize % HEIGHT;
                match next() % 3 {
                    0 => slots[y * WIDTH + next() as usize % WIDTH] = (next() & 63) as u8,
                    1 => pals[y][next() as usize % 128] = next() as u8,
                    _ => pals[y] = pals[(y + 1) % HEIGHT],
                }
            }
            match frame {
                4 => screen.set_formats(false, true),
                6 => screen.set_formats(true, true),
                8 => screen.set_color_conversion(ColorConversion::Corrected),
                _ => {}
            }
            screen.update_cgb(&slots, &pals);
            let colors = screen.colors().unwrap();
            let (rgb_on, gray_on) = screen.formats();
            for (i, &c) in colors.iter().enumerate() {
                assert_eq!(
                    c,
                    slot_color(&pals[i / WIDTH], slots[i]),
                    "frame {frame} pixel {i}"
                );
                let want = screen.color_conversion().rgb(c);
                if rgb_on {
                    assert_eq!(
                        &screen.rgb()[3 * i..3 * i + 3],
                        &want,
                        "frame {frame} pixel {i}"
                    );
                }
                if gray_on {
                    assert_eq!(screen.gray()[i], luma(want), "frame {frame} pixel {i}");
                }
            }
        }
    }

    /// A picture with runs of every length up to past 128, literal stretches
    /// longer than 128 bytes, and every shade.
    fn busy_picture() -> Box<[u8; PIXELS]> {
        let mut shades = Box::new([0u8; PIXELS]);
        let mut x: u32 = 12345;
        for (i, s) in shades.iter_mut().enumerate() {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            *s = match i / 4000 {
                0 => ((x >> 16) & 3) as u8,                 // noise: literals
                1 => ((i / 37) & 3) as u8,                  // runs of about 9 packed bytes
                2 => 2,                                     // one long run
                3 => ((i / (4 * (i % 300 + 1))) & 3) as u8, // runs of many lengths
                _ => ((x >> 20) & 3) as u8 | ((i & 1) as u8),
            };
        }
        shades
    }

    fn encode(shades: &[u8; PIXELS]) -> Vec<u8> {
        let mut out = [0u8; MAX_PICTURE_BYTES];
        let n = encode_picture(shades, &mut out);
        out[..n].to_vec()
    }

    #[test]
    fn pictures_decode_to_what_was_encoded() {
        for shades in [
            Box::new([0u8; PIXELS]),
            Box::new([3u8; PIXELS]),
            busy_picture(),
        ] {
            let coded = encode(&shades);
            let mut back = Box::new([9u8; PIXELS]);
            decode_picture(&coded, &mut back).expect("decodes");
            assert!(back[..] == shades[..], "decoded differently");
        }
        let coded = encode(&[1u8; PIXELS]);
        assert_eq!(
            coded.len(),
            3 * WORDS.div_ceil(MAX_RUN),
            "runs of 128 words"
        );
        let mut noise = [0u8; PIXELS];
        for (k, s) in noise.iter_mut().enumerate() {
            *s = [0, 1, 2, 3, 3, 1][k % 6]; // no two neighbouring words alike
        }
        let coded = encode(&noise);
        assert_eq!(coded.len(), MAX_PICTURE_BYTES, "all literals");
        let mut back = Box::new([0u8; PIXELS]);
        decode_picture(&coded, &mut back).expect("decodes");
        assert!(back[..] == noise[..], "literals decoded differently");
        for eight in [[0, 1, 2, 3, 3, 2, 1, 0], [3; 8], [1, 0, 0, 0, 0, 0, 0, 2]] {
            assert_eq!(unpack_word(pack_word(u64::from_le_bytes(eight))), eight);
        }
    }

    #[test]
    fn damaged_pictures_are_refused() {
        let coded = encode(&busy_picture());
        let mut out = Box::new([0u8; PIXELS]);
        for cut in [0, 1, coded.len() / 2, coded.len() - 1] {
            assert!(
                decode_picture(&coded[..cut], &mut out).is_none(),
                "cut at {cut}"
            );
        }
        let mut longer = coded.clone();
        longer.extend_from_slice(&[0, 0]);
        assert!(
            decode_picture(&longer, &mut out).is_none(),
            "one byte too many"
        );
        assert!(
            decode_picture(&[128], &mut out).is_none(),
            "control byte 128"
        );
        // Every control byte changed: never a panic, and never a wrong-length frame.
        for i in 0..coded.len().min(600) {
            let mut bad = coded.clone();
            bad[i] = bad[i].wrapping_add(1);
            let _ = decode_picture(&bad, &mut out);
        }
    }

    #[test]
    fn converts_through_the_palette() {
        let mut s = Screen::new();
        let mut shades = [0u8; PIXELS];
        shades[1] = 1;
        shades[2] = 2;
        shades[PIXELS - 1] = 3;
        s.update(&shades);
        assert_eq!(
            &s.rgb()[0..12],
            &[255, 255, 255, 170, 170, 170, 85, 85, 85, 255, 255, 255]
        );
        assert_eq!(&s.rgb()[PIXELS * 3 - 3..], &[0, 0, 0]);
        assert_eq!(s.gray()[1], 0xAA);
        s.set_palette([[255, 0, 0], [0, 255, 0], [0, 0, 255], [1, 2, 3]]);
        assert_eq!(&s.rgb()[3..6], &[0, 255, 0]);
        assert_eq!(s.gray()[0], 76);
        assert_eq!(s.shades()[2], 2);
    }

    #[test]
    fn formats_switched_off_are_caught_up_when_switched_on() {
        let mut s = Screen::new();
        s.set_formats(false, false);
        let shades = [3u8; PIXELS];
        s.update(&shades);
        assert_eq!(s.rgb()[0], 0xFF, "RGB off: not converted");
        assert_eq!(s.gray()[0], 0xFF, "grey off: not converted");
        s.set_formats(true, false);
        assert_eq!(&s.rgb()[..3], &[0, 0, 0]);
        s.set_formats(true, true);
        assert_eq!(s.gray()[PIXELS - 1], 0);
        assert_eq!(s.formats(), (true, true));
    }
}
