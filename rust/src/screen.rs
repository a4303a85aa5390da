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
}

impl Default for Screen {
    fn default() -> Self {
        Screen::new()
    }
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
        self.convert();
    }

    pub fn palette(&self) -> [[u8; 3]; 4] {
        self.palette
    }

    /// Take a finished frame of shades (values 0..=3; higher bits ignored).
    pub fn update(&mut self, shades: &[u8; PIXELS]) {
        self.shades.copy_from_slice(shades);
        self.convert();
    }

    fn convert(&mut self) {
        let pal = self.palette;
        let gray_of = self.gray_of;
        for ((s, rgb), g) in self
            .shades
            .iter()
            .zip(self.rgb.chunks_exact_mut(3))
            .zip(self.gray.iter_mut())
        {
            let i = (*s & 3) as usize;
            rgb.copy_from_slice(&pal[i]);
            *g = gray_of[i];
        }
    }

    /// (144, 160) shades 0..=3, row-major.
    pub fn shades(&self) -> &[u8; PIXELS] {
        &self.shades
    }

    /// (144, 160, 3) RGB bytes, row-major.
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
}
