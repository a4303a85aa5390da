//! The noise channel's 15-bit linear-feedback shift register.
//!
//! One clock (gbdev wiki "Gameboy sound hardware", Noise Channel): the XOR of
//! bits 0 and 1 is shifted in at bit 14 (and also written to bit 6 in 7-bit
//! "short" mode) while the register shifts right. Every operation in that is
//! XOR, shift or a bit overwrite, so one clock is a linear map over GF(2)^15.
//! [`jump`] applies `n` clocks at once by multiplying with precomputed
//! matrices M^(2^k); [`step`] is the one-clock reference the tests compare
//! it against.

/// Bits of the register (bit 15 is never set).
pub const MASK: u16 = 0x7FFF;

/// One LFSR clock.
#[inline]
pub const fn step(lfsr: u16, short: bool) -> u16 {
    let fb = (lfsr ^ (lfsr >> 1)) & 1;
    let mut l = (lfsr >> 1) | (fb << 14);
    if short {
        l = (l & !0x40) | (fb << 6);
    }
    l
}

/// A 15x15 matrix over GF(2): entry `i` is the image of bit `i`.
type Matrix = [u16; 15];

const fn apply(m: &Matrix, v: u16) -> u16 {
    let mut r = 0;
    let mut i = 0;
    while i < 15 {
        if v >> i & 1 != 0 {
            r ^= m[i];
        }
        i += 1;
    }
    r
}

/// `a` after `b`.
const fn compose(a: &Matrix, b: &Matrix) -> Matrix {
    let mut c = [0u16; 15];
    let mut i = 0;
    while i < 15 {
        c[i] = apply(a, b[i]);
        i += 1;
    }
    c
}

/// `POW[short][k]` = one clock raised to the power 2^k.
const fn powers(short: bool) -> [Matrix; 64] {
    let mut m = [0u16; 15];
    let mut i = 0;
    while i < 15 {
        m[i] = step(1 << i, short);
        i += 1;
    }
    let mut p = [[0u16; 15]; 64];
    p[0] = m;
    let mut k = 1;
    while k < 64 {
        p[k] = compose(&p[k - 1], &p[k - 1]);
        k += 1;
    }
    p
}

static POW: [[Matrix; 64]; 2] = [powers(false), powers(true)];

/// `n` LFSR clocks in closed form (O(bits of n) instead of O(n)).
#[inline]
pub fn jump(mut lfsr: u16, n: u64, short: bool) -> u16 {
    if n <= 24 {
        for _ in 0..n {
            lfsr = step(lfsr, short);
        }
        return lfsr;
    }
    let table = &POW[short as usize];
    let mut bits = n;
    while bits != 0 {
        let k = bits.trailing_zeros() as usize;
        lfsr = apply(&table[k], lfsr);
        bits &= bits - 1;
    }
    lfsr
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jump_matches_stepping() {
        for short in [false, true] {
            for start in [0x7FFFu16, 0x1234, 0x0001, 0x4000, 0x2AAA] {
                let mut l = start;
                for n in 0..3000u64 {
                    assert_eq!(jump(start, n, short), l, "n={n} short={short}");
                    l = step(l, short);
                }
            }
        }
    }

    #[test]
    fn fifteen_bit_mode_has_period_32767() {
        assert_eq!(jump(0x7FFF, 32767, false), 0x7FFF);
        assert_ne!(jump(0x7FFF, 32767 / 7, false), 0x7FFF);
        // Huge jumps reduce like the period says.
        assert_eq!(
            jump(0x5555, 32767 * 1_000_000_007 + 5, false),
            jump(0x5555, 5, false)
        );
    }
}
