//! The DMG OAM corruption bug: the corruption patterns.
//!
//! During mode 2 the PPU reads OAM one row (8 bytes, four 16-bit words) per
//! M-cycle. When the CPU puts an OAM address (0xFE00..=0xFEFF) on the bus in
//! that M-cycle, by an access or because its 16-bit increment/decrement unit
//! steps a register that holds one, the row being scanned is overwritten
//! with a mix of itself and the rows before it. The pattern depends only on
//! the kind of access and on the row, never on the address or the data
//! (Pan Docs, "OAM Corruption Bug"; Blargg's oam_bug ROMs).
//!
//! This module holds the patterns as pure functions on the 160 OAM bytes;
//! the bus decides when they apply (`Hardware::oam_bug` in `bus.rs`) and the
//! PPU says which row it is scanning (`Ppu::oam_scan_row`).

/// Bytes per OAM row (two objects).
pub const ROW_BYTES: usize = 8;
/// Rows of OAM read during one OAM scan.
pub const ROWS: usize = 20;

/// What the CPU did to OAM in the M-cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// A write, or the increment/decrement unit alone (INC rr, DEC rr,
    /// the SP decrement of a push); a write during an increment counts once.
    Write,
    /// A read.
    Read,
    /// The increment/decrement unit stepping the address that is being read
    /// in the same M-cycle (LD A,(HL+/-), the first read of POP, an opcode
    /// fetch): the extra part of the "read during increase/decrease"
    /// pattern. Always followed by a [`Access::Read`] of the same row.
    IncDecDuringRead,
}

#[inline]
fn word(oam: &[u8; 0xA0], row: usize, i: usize) -> u16 {
    let a = row * ROW_BYTES + 2 * i;
    u16::from_le_bytes([oam[a], oam[a + 1]])
}

#[inline]
fn set_word(oam: &mut [u8; 0xA0], row: usize, i: usize, v: u16) {
    let a = row * ROW_BYTES + 2 * i;
    [oam[a], oam[a + 1]] = v.to_le_bytes();
}

/// Copy words 1..=3 of the row before `row` into `row` and set word 0 to
/// `first` (the common tail of the read and write patterns).
fn glitch_row(oam: &mut [u8; 0xA0], row: usize, first: u16) {
    set_word(oam, row, 0, first);
    let src = (row - 1) * ROW_BYTES;
    oam.copy_within(src + 2..src + ROW_BYTES, row * ROW_BYTES + 2);
}

/// Write corruption of `row`: word 0 becomes `((a ^ c) & (b ^ c)) ^ c`
/// (a: its old value, b: word 0 and c: word 2 of the previous row), words
/// 1..=3 are copied from the previous row. Row 0 is never affected.
fn write_corruption(oam: &mut [u8; 0xA0], row: usize) {
    if row == 0 {
        return;
    }
    let a = word(oam, row, 0);
    let b = word(oam, row - 1, 0);
    let c = word(oam, row - 1, 2);
    glitch_row(oam, row, ((a ^ c) & (b ^ c)) ^ c);
}

/// Read corruption of `row`: like a write corruption with `b | (a & c)`.
fn read_corruption(oam: &mut [u8; 0xA0], row: usize) {
    if row == 0 {
        return;
    }
    let a = word(oam, row, 0);
    let b = word(oam, row - 1, 0);
    let c = word(oam, row - 1, 2);
    glitch_row(oam, row, b | (a & c));
}

/// A read and an increment/decrement in the same M-cycle, first part: for
/// rows 4..=18 word 0 of the previous row becomes
/// `(b & (a | c | d)) | (a & c & d)` (a: word 0 two rows back, b: word 0 of
/// the previous row, c: word 0 of this row, d: word 2 of the previous row)
/// and the previous row is then copied over this row and the row two back.
/// A read corruption of `row` always follows (the caller's `Read`).
fn incdec_during_read(oam: &mut [u8; 0xA0], row: usize) {
    if (4..ROWS - 1).contains(&row) {
        let a = word(oam, row - 2, 0);
        let b = word(oam, row - 1, 0);
        let c = word(oam, row, 0);
        let d = word(oam, row - 1, 2);
        set_word(oam, row - 1, 0, (b & (a | c | d)) | (a & c & d));
        let prev = (row - 1) * ROW_BYTES;
        oam.copy_within(prev..prev + ROW_BYTES, row * ROW_BYTES);
        oam.copy_within(prev..prev + ROW_BYTES, (row - 2) * ROW_BYTES);
    }
}

/// Apply the corruption caused by `access` while the OAM scan reads `row`
/// (0..20; other values do nothing).
pub fn corrupt(oam: &mut [u8; 0xA0], row: usize, access: Access) {
    if row >= ROWS {
        return;
    }
    match access {
        Access::Write => write_corruption(oam, row),
        Access::Read => read_corruption(oam, row),
        Access::IncDecDuringRead => incdec_during_read(oam, row),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// OAM whose byte i holds i (every word distinct).
    fn ramp() -> [u8; 0xA0] {
        let mut oam = [0u8; 0xA0];
        for (i, b) in oam.iter_mut().enumerate() {
            *b = i as u8;
        }
        oam
    }

    #[test]
    fn row_zero_and_out_of_range_rows_are_untouched() {
        for access in [Access::Write, Access::Read, Access::IncDecDuringRead] {
            let mut oam = ramp();
            corrupt(&mut oam, 0, access);
            corrupt(&mut oam, 20, access);
            corrupt(&mut oam, usize::MAX, access);
            assert_eq!(oam, ramp(), "{access:?}");
        }
    }

    #[test]
    fn write_pattern() {
        let mut oam = [0u8; 0xA0];
        // Row 2 word 0 = a, row 1 word 0 = b, row 1 word 2 = c.
        set_word(&mut oam, 2, 0, 0b1100_1010_0101_0011); // a
        set_word(&mut oam, 1, 0, 0b1010_0110_1001_0101); // b
        set_word(&mut oam, 1, 1, 0x1111);
        set_word(&mut oam, 1, 2, 0b1111_0000_1100_0110); // c
        set_word(&mut oam, 1, 3, 0x3333);
        let (a, b, c) = (
            0b1100_1010_0101_0011u16,
            0b1010_0110_1001_0101u16,
            0b1111_0000_1100_0110u16,
        );
        let before = oam;
        corrupt(&mut oam, 2, Access::Write);
        assert_eq!(word(&oam, 2, 0), ((a ^ c) & (b ^ c)) ^ c);
        assert_eq!(word(&oam, 2, 1), 0x1111);
        assert_eq!(word(&oam, 2, 2), c);
        assert_eq!(word(&oam, 2, 3), 0x3333);
        // Nothing else changes.
        assert_eq!(oam[..16], before[..16]);
        assert_eq!(oam[24..], before[24..]);
    }

    #[test]
    fn read_pattern() {
        let mut oam = ramp();
        let (a, b, c) = (word(&oam, 5, 0), word(&oam, 4, 0), word(&oam, 4, 2));
        let before = oam;
        corrupt(&mut oam, 5, Access::Read);
        assert_eq!(word(&oam, 5, 0), b | (a & c));
        assert_eq!(oam[42..48], before[34..40]);
        assert_eq!(oam[..40], before[..40]);
        assert_eq!(oam[48..], before[48..]);
    }

    #[test]
    fn read_during_increment_pattern() {
        let mut oam = ramp();
        let row = 6;
        let a = word(&oam, row - 2, 0);
        let b = word(&oam, row - 1, 0);
        let c = word(&oam, row, 0);
        let d = word(&oam, row - 1, 2);
        let before = oam;
        corrupt(&mut oam, row, Access::IncDecDuringRead);
        corrupt(&mut oam, row, Access::Read);
        let glitched = (b & (a | c | d)) | (a & c & d);
        // The previous row (with its new word 0) lands on rows 4, 5 and,
        // before the final read corruption, on row 6.
        let mut prev = before[40..48].to_vec();
        prev[..2].copy_from_slice(&glitched.to_le_bytes());
        assert_eq!(oam[32..40], prev[..]);
        assert_eq!(oam[40..48], prev[..]);
        // Read corruption of row 6 whose word 0 is now `glitched`.
        let r0 = glitched | (glitched & d);
        assert_eq!(word(&oam, row, 0), r0);
        assert_eq!(oam[50..56], prev[2..]);
        assert_eq!(oam[..32], before[..32]);
        assert_eq!(oam[56..], before[56..]);
    }

    #[test]
    fn increment_during_read_does_nothing_in_first_rows_and_last_row() {
        for row in [1, 2, 3, 19] {
            let mut oam = ramp();
            corrupt(&mut oam, row, Access::IncDecDuringRead);
            assert_eq!(oam, ramp(), "row {row}");
        }
    }
}
