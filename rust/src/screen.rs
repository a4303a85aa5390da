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
    /// RAM each line was drawn with. Every pixel is converted (RGB and
    /// grey, those that are on).
    pub fn update_cgb(&mut self, slots: &[u8; PIXELS], line_pal: &[[u8; 128]; HEIGHT]) {
        self.shades.copy_from_slice(slots);
        match self.line_pal.as_deref_mut() {
            Some(l) => l.copy_from_slice(line_pal),
            None => self.line_pal = Some(Box::new(*line_pal)),
        }
        self.convert();
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

    /// A CGB frame's RGB and grey bytes (those asked for), pixel by pixel
    /// from the slots and the line palettes.
    fn convert_cgb(&mut self, rgb_on: bool, gray_on: bool) {
        let Some(line_pal) = self.line_pal.as_deref() else {
            return;
        };
        for (y, pal) in line_pal.iter().enumerate() {
            for x in 0..WIDTH {
                let i = y * WIDTH + x;
                let c = self.conversion.rgb(slot_color(pal, self.shades[i]));
                if rgb_on {
                    self.rgb[3 * i..3 * i + 3].copy_from_slice(&c);
                }
                if gray_on {
                    self.gray[i] = luma(c);
                }
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

#[cfg(test)]
mod tests {
    use super::*;

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
