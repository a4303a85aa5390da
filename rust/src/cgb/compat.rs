//! The colours a CGB gives a DMG cartridge (DMG compatibility mode).
//!
//! The CGB boot ROM picks them from the cartridge header (Pan Docs, "Power
//! Up Sequence", "Compatibility palettes"):
//!
//! 1. Only for a Nintendo cartridge: the old licensee code (0x14B) is 0x01,
//!    or it is 0x33 and the new licensee code (0x144-0x145) is "01".
//!    Any other cartridge gets palettes ID 0.
//! 2. The title checksum is the sum (mod 256) of the 16 title bytes
//!    (0x134-0x143). Its index in [`TITLE_CHECKSUMS`] is the palettes ID;
//!    a checksum not in the table gives ID 0.
//! 3. Indices 65 and up are checksums that several titles share: the
//!    title's fourth letter (0x137) must be found in [`FOURTH_LETTERS`],
//!    in the column of the index, and the row adds 14 per row to the
//!    ID; a letter not found gives ID 0.
//!
//! Each palettes ID selects three palettes (background palette 0, object
//! palettes 0 and 1) out of the boot ROM's 30 four-colour palettes. The
//! data are the boot ROM's as the public disassemblies document them
//! (ISSOtm/gb-bootroms, and SameBoy's free reimplementation, which gives
//! the same three palettes for each of the 94 IDs); they are data, written
//! here in this module's own layout.

/// Title checksums the boot ROM knows, by palettes ID; from index
/// [`FIRST_SHARED`] on, checksums several titles share (the fourth letter
/// decides).
const TITLE_CHECKSUMS: [u8; 79] = [
    0x00, 0x88, 0x16, 0x36, 0xD1, 0xDB, 0xF2, 0x3C, 0x8C, 0x92, 0x3D, 0x5C, 0x58, 0xC9, 0x3E, 0x70,
    0x1D, 0x59, 0x69, 0x19, 0x35, 0xA8, 0x14, 0xAA, 0x75, 0x95, 0x99, 0x34, 0x6F, 0x15, 0xFF, 0x97,
    0x4B, 0x90, 0x17, 0x10, 0x39, 0xF7, 0xF6, 0xA2, 0x49, 0x4E, 0x43, 0x68, 0xE0, 0x8B, 0xF0, 0xCE,
    0x0C, 0x29, 0xE8, 0xB7, 0x86, 0x9A, 0x52, 0x01, 0x9D, 0x71, 0x9C, 0xBD, 0x5D, 0x6D, 0x67, 0x3F,
    0x6B, //
    0xB3, 0x46, 0x28, 0xA5, 0xC6, 0xD3, 0x27, 0x61, 0x18, 0x66, 0x6A, 0xBF, 0x0D, 0xF4,
];

/// The first index of [`TITLE_CHECKSUMS`] whose checksum needs the
/// title's fourth letter.
const FIRST_SHARED: usize = 65;
/// Checksums shared by several titles (the columns of [`FOURTH_LETTERS`]).
const SHARED: usize = TITLE_CHECKSUMS.len() - FIRST_SHARED;

/// Fourth title letters, in rows of [`SHARED`]: column `c` belongs to
/// checksum `TITLE_CHECKSUMS[FIRST_SHARED + c]`, row `r` gives palettes ID
/// `FIRST_SHARED + c + r * SHARED`.
const FOURTH_LETTERS: &[u8; 29] = b"BEFAARBEKEK R-URAR INAILICE R";

/// For each palettes ID (0-93), its entry in [`COMBINATIONS`].
const ID_COMBINATION: [u8; 94] = [
    0, 4, 5, 35, 34, 3, 31, 15, 10, 5, 19, 36, 7, 37, 30, 44, 21, 32, 31, 20, 5, 33, 13, 14, 5, 29,
    5, 18, 9, 3, 2, 26, 25, 25, 41, 42, 26, 45, 42, 45, 36, 38, 26, 42, 30, 41, 34, 34, 5, 42, 6,
    5, 33, 25, 42, 42, 40, 2, 16, 25, 42, 42, 5, 0, 39, 36, 22, 25, 6, 32, 12, 36, 11, 39, 18, 39,
    24, 31, 50, 17, 46, 6, 27, 0, 47, 41, 41, 0, 0, 19, 34, 23, 18, 29,
];

/// The three palettes of each combination: where background palette 0,
/// object palette 0 and object palette 1 start in [`COLORS`] (four
/// colours from there; a few start in the middle of one of the 30
/// palettes, as the boot ROM's own tables make them).
const COMBINATIONS: [[u8; 3]; 51] = {
    // [bg, obj0, obj1] as palette numbers.
    const P: [[u8; 3]; 51] = [
        [29, 4, 4],
        [18, 18, 18],
        [20, 20, 20],
        [24, 24, 24],
        [9, 9, 9],
        [0, 0, 0],
        [27, 27, 27],
        [5, 5, 5],
        [12, 12, 12],
        [26, 26, 26],
        [8, 16, 8],
        [28, 4, 28],
        [2, 4, 2],
        [4, 3, 4],
        [29, 4, 29],
        [28, 28, 4],
        [2, 2, 17],
        [8, 16, 16],
        [7, 4, 4],
        [18, 4, 4],
        [20, 4, 4],
        [9, 19, 19],
        [0, 0, 0], // colour offsets: set below
        [2, 17, 17],
        [2, 4, 4],
        [3, 4, 4],
        [0, 28, 28],
        [0, 3, 3],
        [1, 0, 0],
        [18, 18, 22],
        [20, 20, 22],
        [24, 24, 22],
        [8, 16, 22],
        [13, 17, 4],
        [0, 0, 0], // set below
        [0, 0, 0], // set below
        [0, 0, 0], // set below
        [10, 16, 28],
        [28, 4, 23],
        [2, 17, 22],
        [2, 4, 0],
        [3, 4, 28],
        [0, 28, 3],
        [4, 3, 28],
        [4, 21, 28],
        [0, 3, 28],
        [28, 25, 3],
        [8, 0, 28],
        [28, 4, 3],
        [6, 28, 3],
        [29, 4, 28],
    ];
    let mut out = [[0u8; 3]; 51];
    let mut i = 0;
    while i < P.len() {
        out[i] = [P[i][0] * 4, P[i][1] * 4, P[i][2] * 4];
        i += 1;
    }
    // Four combinations whose object palettes straddle two palettes
    // (colour offsets, not palette numbers).
    out[22] = [44, 15, 15];
    out[34] = [56, 111, 0];
    out[35] = [60, 111, 16];
    out[36] = [36, 76, 91];
    out
};

/// The boot ROM's 30 compatibility palettes, four 15-bit colours each
/// (bits 0-4 red, 5-9 green, 10-14 blue), flattened.
const COLORS: [u16; 120] = [
    0x7FFF, 0x32BF, 0x00D0, 0x0000, //  0
    0x639F, 0x4279, 0x15B0, 0x04CB, //  1
    0x7FFF, 0x6E31, 0x454A, 0x0000, //  2
    0x7FFF, 0x1BEF, 0x0200, 0x0000, //  3
    0x7FFF, 0x421F, 0x1CF2, 0x0000, //  4
    0x7FFF, 0x5294, 0x294A, 0x0000, //  5
    0x7FFF, 0x03FF, 0x012F, 0x0000, //  6
    0x7FFF, 0x03EF, 0x01D6, 0x0000, //  7
    0x7FFF, 0x42B5, 0x3DC8, 0x0000, //  8
    0x7E74, 0x03FF, 0x0180, 0x0000, //  9
    0x67FF, 0x77AC, 0x1A13, 0x2D6B, // 10
    0x7ED6, 0x4BFF, 0x2175, 0x0000, // 11
    0x53FF, 0x4A5F, 0x7E52, 0x0000, // 12
    0x4FFF, 0x7ED2, 0x3A4C, 0x1CE0, // 13
    0x03ED, 0x7FFF, 0x255F, 0x0000, // 14
    0x036A, 0x021F, 0x03FF, 0x7FFF, // 15
    0x7FFF, 0x01DF, 0x0112, 0x0000, // 16
    0x231F, 0x035F, 0x00F2, 0x0009, // 17
    0x7FFF, 0x03EA, 0x011F, 0x0000, // 18
    0x299F, 0x001A, 0x000C, 0x0000, // 19
    0x7FFF, 0x027F, 0x001F, 0x0000, // 20
    0x7FFF, 0x03E0, 0x0206, 0x0120, // 21
    0x7FFF, 0x7EEB, 0x001F, 0x7C00, // 22
    0x7FFF, 0x3FFF, 0x7E00, 0x001F, // 23
    0x7FFF, 0x03FF, 0x001F, 0x0000, // 24
    0x03FF, 0x001F, 0x000C, 0x0000, // 25
    0x7FFF, 0x033F, 0x0193, 0x0000, // 26
    0x0000, 0x4200, 0x037F, 0x7FFF, // 27
    0x7FFF, 0x7E8C, 0x7C00, 0x0000, // 28
    0x7FFF, 0x1BEF, 0x6180, 0x0000, // 29
];

/// Whether the header names Nintendo as the licensee (the boot ROM's
/// condition for looking the title up).
pub fn nintendo_licensed(rom: &[u8]) -> bool {
    let byte = |a: usize| rom.get(a).copied().unwrap_or(0);
    match byte(0x14B) {
        0x01 => true,
        0x33 => byte(0x144) == b'0' && byte(0x145) == b'1',
        _ => false,
    }
}

/// The sum (mod 256) of the 16 title bytes, 0x134-0x143.
pub fn title_checksum(rom: &[u8]) -> u8 {
    (0x134..=0x143).fold(0u8, |s, a| s.wrapping_add(rom.get(a).copied().unwrap_or(0)))
}

/// The palettes ID (0-93) the CGB boot ROM picks for a DMG cartridge.
pub fn compat_palette_id(rom: &[u8]) -> u8 {
    if !nintendo_licensed(rom) {
        return 0;
    }
    let sum = title_checksum(rom);
    let Some(index) = TITLE_CHECKSUMS.iter().position(|&c| c == sum) else {
        return 0;
    };
    if index < FIRST_SHARED {
        return index as u8;
    }
    let column = index - FIRST_SHARED;
    let letter = rom.get(0x137).copied().unwrap_or(0);
    FOURTH_LETTERS
        .iter()
        .skip(column)
        .step_by(SHARED)
        .position(|&l| l == letter)
        .map_or(0, |row| (index + row * SHARED) as u8)
}

/// The three palettes (background palette 0, object palette 0, object
/// palette 1; four 15-bit colours each) of palettes ID `id` (0-93).
pub fn palettes_of_id(id: u8) -> [[u16; 4]; 3] {
    let comb = COMBINATIONS[ID_COMBINATION[id as usize % ID_COMBINATION.len()] as usize];
    comb.map(|start| {
        let s = start as usize;
        [COLORS[s], COLORS[s + 1], COLORS[s + 2], COLORS[s + 3]]
    })
}

/// The compatibility palettes the CGB boot ROM leaves for DMG cartridge
/// `rom`: background palette 0, object palettes 0 and 1.
pub fn compat_palettes(rom: &[u8]) -> [[u16; 4]; 3] {
    palettes_of_id(compat_palette_id(rom))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 0x150-byte header with `title`, licensed by Nintendo (old code
    /// 0x01) or not.
    fn header(title: &[u8], nintendo: bool) -> Vec<u8> {
        let mut rom = vec![0u8; 0x150];
        rom[0x134..0x134 + title.len()].copy_from_slice(title);
        rom[0x14B] = if nintendo { 0x01 } else { 0x00 };
        rom
    }

    #[test]
    fn tables_are_consistent() {
        // Every ID reaches a combination, every combination four colours.
        assert_eq!(FIRST_SHARED + FOURTH_LETTERS.len(), ID_COMBINATION.len());
        for id in 0..ID_COMBINATION.len() {
            let c = COMBINATIONS[ID_COMBINATION[id] as usize];
            assert!(c.iter().all(|&s| s as usize + 4 <= COLORS.len()), "{id}");
        }
        // The first checksum matches first: no checksum is listed twice.
        for (i, c) in TITLE_CHECKSUMS.iter().enumerate() {
            assert_eq!(TITLE_CHECKSUMS.iter().position(|x| x == c), Some(i));
        }
    }

    #[test]
    fn licensee_rule() {
        let mut rom = header(b"TETRIS", true);
        assert!(nintendo_licensed(&rom));
        rom[0x14B] = 0x33;
        assert!(!nintendo_licensed(&rom), "0x33 wants the new code");
        rom[0x144..0x146].copy_from_slice(b"01");
        assert!(nintendo_licensed(&rom));
        rom[0x145] = b'8';
        assert!(!nintendo_licensed(&rom));
        assert_eq!(compat_palette_id(&header(b"TETRIS", false)), 0);
    }

    #[test]
    fn titles_pick_their_palettes() {
        // TETRIS: checksum 0xDB, ID 5; unknown titles get ID 0.
        assert_eq!(title_checksum(&header(b"TETRIS", true)), 0xDB);
        assert_eq!(compat_palette_id(&header(b"TETRIS", true)), 5);
        assert_eq!(compat_palette_id(&header(b"NOT A REAL GAME", true)), 0);
        // Shared checksum 0x46: fourth letter 'E' (row 0) or 'R' (row 1);
        // another letter gives ID 0.
        let sml = header(b"SUPER MARIOLAND", true);
        assert_eq!(title_checksum(&sml), 0x46);
        assert_eq!(compat_palette_id(&sml), 66);
        let mut other = sml.clone();
        other[0x137] = b'R';
        other[0x138] = b'E'; // keep the checksum
        assert_eq!(title_checksum(&other), 0x46);
        assert_eq!(compat_palette_id(&other), 66 + 14);
        other[0x137] = b'D';
        other[0x138] = b'S';
        assert_eq!(title_checksum(&other), 0x46);
        assert_eq!(compat_palette_id(&other), 0);
        // The default: background palette 29, object palettes 4.
        assert_eq!(
            palettes_of_id(0),
            [
                [0x7FFF, 0x1BEF, 0x6180, 0x0000],
                [0x7FFF, 0x421F, 0x1CF2, 0x0000],
                [0x7FFF, 0x421F, 0x1CF2, 0x0000],
            ]
        );
    }
}
