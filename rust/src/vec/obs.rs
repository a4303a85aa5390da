//! What an env observes: the observation modes and their shapes, and the
//! conversion of a frame (a DMG's shades or a CGB's colours) into one.

use crate::gameboy::Core;
use crate::screen::{slot_color, ColorConversion, DMG_GREYS, HEIGHT, PIXELS, WIDTH};

/// What one env's observation holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObsMode {
    /// (144, 160) grey levels (luma of the DMG greys: 255, 170, 85, 0).
    Gray,
    /// (144, 160, 3) RGB (the DMG greys FF/AA/55/00).
    Rgb,
    /// (144, 160) shades 0..=3 (0 = lightest).
    Shades,
    /// (72, 80) grey levels, each the mean of a 2x2 block (rounded).
    GrayHalf,
    /// No screen: no frame is drawn and the observation is empty (shape
    /// `(0,)`). For policies that read RAM only ([`VecEngine::ram`]); the
    /// emulation is the same, the PPU just writes no pixels.
    None,
}

impl ObsMode {
    pub const ALL: [ObsMode; 5] = [
        ObsMode::Gray,
        ObsMode::Rgb,
        ObsMode::Shades,
        ObsMode::GrayHalf,
        ObsMode::None,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ObsMode::Gray => "gray",
            ObsMode::Rgb => "rgb",
            ObsMode::Shades => "shades",
            ObsMode::GrayHalf => "gray_half",
            ObsMode::None => "none",
        }
    }

    pub fn from_name(name: &str) -> Option<ObsMode> {
        ObsMode::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(name))
    }

    /// Shape of one frame.
    pub fn frame_shape(self) -> &'static [usize] {
        match self {
            ObsMode::Gray | ObsMode::Shades => &[HEIGHT, WIDTH],
            ObsMode::Rgb => &[HEIGHT, WIDTH, 3],
            ObsMode::GrayHalf => &[HEIGHT / 2, WIDTH / 2],
            ObsMode::None => &[0],
        }
    }

    /// Bytes of one frame.
    pub fn frame_len(self) -> usize {
        self.frame_shape().iter().product()
    }
}

/// Conversion tables from shades to observation bytes.
pub(super) struct Tables {
    /// RGB bytes of every run of four shades (index s0<<6|s1<<4|s2<<2|s3).
    rgb4: Box<[[u8; 12]; 256]>,
    /// Rounded mean grey of a 2x2 block (same index: top-left, top-right,
    /// bottom-left, bottom-right).
    half: Box<[u8; 256]>,
}

/// ITU-R BT.601 luma, rounded (as `screen.rs` computes `screen_gray`).
const fn luma(c: [u8; 3]) -> u8 {
    ((c[0] as u32 * 299 + c[1] as u32 * 587 + c[2] as u32 * 114 + 500) / 1000) as u8
}

/// The grey level of each shade: the luma of the DMG greys.
const GRAY: [u8; 4] = [
    luma(DMG_GREYS[0]),
    luma(DMG_GREYS[1]),
    luma(DMG_GREYS[2]),
    luma(DMG_GREYS[3]),
];
const _: () = assert!(
    GRAY[0] == 255 && GRAY[1] == 170 && GRAY[2] == 85 && GRAY[3] == 0,
    "the grey observation is computed as 255 - 85 * shade"
);

/// The table index of four shades.
#[inline(always)]
fn quad(a: u8, b: u8, c: u8, d: u8) -> usize {
    ((a & 3) as usize) << 6 | ((b & 3) as usize) << 4 | ((c & 3) as usize) << 2 | (d & 3) as usize
}

impl Tables {
    pub(super) fn new() -> Tables {
        let gray = GRAY;
        let mut t = Tables {
            rgb4: Box::new([[0; 12]; 256]),
            half: Box::new([0; 256]),
        };
        for i in 0..256 {
            let shades = [(i >> 6) & 3, (i >> 4) & 3, (i >> 2) & 3, i & 3];
            let mut sum = 0u32;
            for (k, &s) in shades.iter().enumerate() {
                t.rgb4[i][3 * k..3 * k + 3].copy_from_slice(&DMG_GREYS[s]);
                sum += gray[s] as u32;
            }
            t.half[i] = ((sum + 2) / 4) as u8;
        }
        t
    }

    /// Convert `core`'s last frame into `out`: a DMG's shades, or a CGB's
    /// colours ([`Tables::convert_cgb`]).
    #[inline]
    pub(super) fn convert_core(&self, mode: ObsMode, core: &Core, out: &mut [u8]) {
        match core.hw.ppu.line_palettes() {
            None => self.convert(mode, core.frame_shades(), out),
            Some(pals) => convert_cgb(mode, core.frame_shades(), pals, out),
        }
    }

    /// Convert a frame of shades into `out` (one frame of `mode`).
    fn convert(&self, mode: ObsMode, shades: &[u8; PIXELS], out: &mut [u8]) {
        match mode {
            ObsMode::None => {}
            ObsMode::Shades => {
                for (o, &s) in out.iter_mut().zip(shades.iter()) {
                    *o = s & 3;
                }
            }
            ObsMode::Gray => {
                // Arithmetic rather than a table, so that it vectorizes
                // (`GRAY` is checked to be 255 - 85 * shade at compile time).
                for (o, &s) in out.iter_mut().zip(shades.iter()) {
                    *o = 255 - 85 * (s & 3);
                }
            }
            ObsMode::Rgb => {
                for (px, o) in shades.chunks_exact(4).zip(out.chunks_exact_mut(12)) {
                    o.copy_from_slice(&self.rgb4[quad(px[0], px[1], px[2], px[3])]);
                }
            }
            ObsMode::GrayHalf => {
                for (rows, o) in shades
                    .chunks_exact(2 * WIDTH)
                    .zip(out.chunks_exact_mut(WIDTH / 2))
                {
                    let (top, bottom) = rows.split_at(WIDTH);
                    for ((t, b), o) in top
                        .chunks_exact(2)
                        .zip(bottom.chunks_exact(2))
                        .zip(o.iter_mut())
                    {
                        *o = self.half[quad(t[0], t[1], b[0], b[1])];
                    }
                }
            }
        }
    }
}

/// Convert a CGB frame (palette slots, the palettes of each line) into
/// `out`: RGB as PyBoy converts it (`x << 3`); grey the luma of that RGB
/// (as `Screen` computes its grey screen); `shades` that grey in four
/// levels, 0 lightest (`3 - grey / 64`); `gray_half` the rounded mean grey
/// of each 2x2 block.
fn convert_cgb(mode: ObsMode, slots: &[u8; PIXELS], pals: &[[u8; 128]; HEIGHT], out: &mut [u8]) {
    let conv = ColorConversion::Pyboy;
    let rgb_at = |i: usize| conv.rgb(slot_color(&pals[i / WIDTH], slots[i]));
    let gray_at = |i: usize| luma(rgb_at(i));
    match mode {
        ObsMode::None => {}
        ObsMode::Rgb => {
            for (i, o) in out.chunks_exact_mut(3).enumerate() {
                o.copy_from_slice(&rgb_at(i));
            }
        }
        ObsMode::Gray => {
            for (i, o) in out.iter_mut().enumerate() {
                *o = gray_at(i);
            }
        }
        ObsMode::Shades => {
            for (i, o) in out.iter_mut().enumerate() {
                *o = 3 - gray_at(i) / 64;
            }
        }
        ObsMode::GrayHalf => {
            for (k, o) in out.iter_mut().enumerate() {
                let (y, x) = (2 * (k / (WIDTH / 2)), 2 * (k % (WIDTH / 2)));
                let i = y * WIDTH + x;
                let sum = gray_at(i) as u32
                    + gray_at(i + 1) as u32
                    + gray_at(i + WIDTH) as u32
                    + gray_at(i + WIDTH + 1) as u32;
                *o = ((sum + 2) / 4) as u8;
            }
        }
    }
}
