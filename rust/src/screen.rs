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
        };
        s.set_palette(DMG_GREYS);
        s
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
        if self.rgb_on {
            self.convert_rgb();
        }
        if self.gray_on {
            self.convert_gray();
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
        PIXELS * 5
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
