//! Serial port (SB/SC). With no link partner, a transfer on the internal
//! clock shifts in 1s and completes after 8 bit clocks; the bytes the game
//! sends are captured (Blargg's test ROMs print their results this way).
//!
//! A CGB in CGB mode has SC bit 1, the clock speed: it reads back as
//! written, and set it shifts on bit 3 of the system counter instead of
//! bit 8, 32 times as fast (262,144 Hz; in double speed both clocks run
//! twice as fast, as the counter does, the same number of CPU cycles).
//! Pan Docs, "Serial Data Transfer"; gambatte hwtests
//! serial/start_wait_read_sc_2 (7D on a CGB, 7F on a DMG) and
//! nopx1/nopx2_start83_wait_read_if_1.

use crate::error::Result;
use crate::state::{StateReader, StateWriter, Stateful};

pub const IRQ_SERIAL: u8 = 0x08;
/// The internal serial clock is bit 8 of the system counter (8192 Hz):
/// one bit is shifted on each of its falling edges.
const BIT_PERIOD: u64 = 512;
/// The serial clock's edges lag the system counter by one M-cycle
/// (calibrated with Mooneye serial/boot_sclk_align-dmgABCmgb).
const CLOCK_PHASE: u64 = 4;
/// Half a bit period: the clock toggles this often.
const HALF_PERIOD: u64 = BIT_PERIOD / 2;
/// The same for the CGB's fast clock (SC bit 1: bit 3 of the counter).
const FAST_HALF_PERIOD: u64 = HALF_PERIOD / 32;
/// SC bits that read 1 whatever was written: bits 1-6 on a DMG (and a CGB
/// in compatibility mode), bits 2-6 on a CGB in CGB mode.
const SC_UNUSED: u8 = 0x7E;
const SC_UNUSED_CGB: u8 = 0x7C;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Serial {
    pub sb: u8,
    /// SC as written, bits 2-6 set (bit 1, the CGB's clock speed, as
    /// written: it reads back on a CGB in CGB mode only).
    pub sc: u8,
    /// Completion time of the transfer in progress (u64::MAX if none).
    done_at: u64,
    /// The clock's lead on the system counter: [`CLOCK_PHASE`] from power-on,
    /// 0 once a DIV write has reset both.
    phase: u64,
    pub output: Vec<u8>,
}

impl Serial {
    pub fn new() -> Serial {
        Serial {
            sb: 0,
            sc: SC_UNUSED,
            done_at: u64::MAX,
            phase: CLOCK_PHASE,
            output: Vec::new(),
        }
    }

    #[inline]
    /// Whether a transfer is in progress.
    pub fn transferring(&self) -> bool {
        self.done_at != u64::MAX
    }

    pub fn next_event(&self) -> u64 {
        self.done_at
    }

    pub fn catch_up(&mut self, now: u64) -> u8 {
        if now >= self.done_at {
            self.done_at = u64::MAX;
            self.sb = 0xFF;
            self.sc &= 0x7F;
            IRQ_SERIAL
        } else {
            0
        }
    }

    /// `cgb_mode`: a CGB in CGB mode (SC bit 1 exists).
    pub fn read(&self, addr: u16, cgb_mode: bool) -> u8 {
        if addr == 0xFF01 {
            self.sb
        } else if cgb_mode {
            self.sc | SC_UNUSED_CGB
        } else {
            self.sc | SC_UNUSED
        }
    }

    /// The clock's half period for the transfer in progress or starting:
    /// the fast clock where SC bit 1 is set on a CGB in CGB mode.
    fn half_period(&self, cgb_mode: bool) -> u64 {
        if cgb_mode && self.sc & 0x02 != 0 {
            FAST_HALF_PERIOD
        } else {
            HALF_PERIOD
        }
    }

    /// `counter` is the system counter at `now`; `cgb_mode`: a CGB in CGB
    /// mode (SC bit 1 picks the clock speed).
    pub fn write(&mut self, addr: u16, value: u8, now: u64, counter: u16, cgb_mode: bool) {
        if addr == 0xFF01 {
            self.sb = value;
            return;
        }
        self.sc = value | SC_UNUSED_CGB;
        if value & 0x81 == 0x81 {
            self.output.push(self.sb);
            // The transfer counts the clock's transitions (every half
            // period) from the first rising edge after the start to the
            // eighth falling edge: 16 of them, or 17 when the clock is
            // high at the start and first falls (gambatte hwtests
            // serial/start_wait_read_if_2 vs nopx1_start_wait_read_if_1:
            // a start in the high half takes one period more).
            let half = self.half_period(cgb_mode);
            let c = counter as u64 + self.phase;
            let high = c & half != 0;
            self.done_at = Self::after_transitions(now, c, 16 + high as u64, half);
        } else {
            self.done_at = u64::MAX;
        }
    }

    /// The time of the `n`-th transition (n >= 1) of the serial clock after
    /// `now`, with `c` its phase counter at `now` and `half` its half
    /// period.
    fn after_transitions(now: u64, c: u64, n: u64, half: u64) -> u64 {
        now + (half - (c & (half - 1))) + (n - 1) * half
    }

    /// A DIV write at `now` resets the system counter (`counter` is its
    /// value before), and the serial clock with it: a transfer in progress
    /// has seen the transitions up to now, one more when the reset makes
    /// counter bit 7 fall (the transitions are that bit's falling edges),
    /// and counts the rest from the reset (gambatte
    /// hwtests serial/div_write_start_wait_read_if_1,
    /// start_late_div_write_wait_read_if_1a/2a/3a/4). From then on the
    /// clock runs in phase with the counter: the power-on lead
    /// ([`CLOCK_PHASE`]) is gone.
    ///
    /// (A state saved before SC bit 1 was kept has it set: on a CGB in CGB
    /// mode, a transfer in progress in such a state is taken for a fast one
    /// here, the one place that asks after its start.)
    pub fn div_reset(&mut self, now: u64, counter: u16, cgb_mode: bool) {
        let c = counter as u64 + self.phase;
        self.phase = 0;
        if self.done_at == u64::MAX || now >= self.done_at {
            return;
        }
        let half = self.half_period(cgb_mode);
        let next = Self::after_transitions(now, c, 1, half);
        let mut left = if self.done_at >= next {
            (self.done_at - next) / half + 1
        } else {
            0
        };
        // The clock counts falling edges of the counter bit below its own;
        // the reset makes that bit fall when it was set.
        if c & (half / 2) != 0 {
            left = left.saturating_sub(1);
        }
        self.done_at = if left == 0 {
            now
        } else {
            Self::after_transitions(now, 0, left, half)
        };
    }
}

impl Default for Serial {
    fn default() -> Self {
        Self::new()
    }
}

impl Stateful for Serial {
    fn save(&self, w: &mut StateWriter) {
        w.begin_section(b"SERL");
        w.u8(self.sb);
        w.u8(self.sc);
        w.u64(self.done_at);
        w.u64(self.phase);
        w.bytes(&self.output);
        w.end_section();
    }
    fn load(&mut self, r: &mut StateReader) -> Result<()> {
        r.begin_section(b"SERL")?;
        self.sb = r.u8()?;
        // (States saved before SC bit 1 was kept have it set, and read
        // back as they did then.)
        self.sc = r.u8()? | SC_UNUSED_CGB;
        self.done_at = r.u64()?;
        self.phase = r.u64()?;
        if self.phase > CLOCK_PHASE {
            return Err(crate::error::Error::InvalidState(format!(
                "serial clock phase {} out of range (0..={CLOCK_PHASE})",
                self.phase
            )));
        }
        self.output = r.bytes()?.to_vec();
        r.end_section()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A transfer started at `now` on the internal clock with SC = `sc`,
    /// the counter at 0 (the power-on phase, [`CLOCK_PHASE`], applies):
    /// how long it takes.
    fn length(sc: u8, cgb_mode: bool) -> u64 {
        let mut s = Serial::new();
        s.write(0xFF02, sc, 1000, 0, cgb_mode);
        assert!(s.transferring());
        s.next_event() - 1000
    }

    #[test]
    fn the_fast_clock_runs_on_a_cgb_in_cgb_mode_only() {
        // Counter 0 + phase 4: the clock is low, 16 transitions from the
        // next edge. Normal: 256 - 4 + 15 * 256; fast: 8 - 4 + 15 * 8.
        assert_eq!(length(0x81, false), 4_092);
        assert_eq!(length(0x81, true), 4_092);
        assert_eq!(length(0x83, false), 4_092, "SC bit 1 does nothing on a DMG");
        assert_eq!(length(0x83, true), 124);
    }

    #[test]
    fn sc_bit_1_reads_back_on_a_cgb_in_cgb_mode_only() {
        let mut s = Serial::new();
        assert_eq!(s.read(0xFF02, false), 0x7E);
        assert_eq!(s.read(0xFF02, true), 0x7E, "power-on SC");
        s.write(0xFF02, 0x81, 0, 0, true);
        assert_eq!(s.read(0xFF02, true), 0xFD);
        assert_eq!(s.read(0xFF02, false), 0xFF);
        assert_eq!(s.catch_up(s.next_event()), IRQ_SERIAL);
        assert_eq!(s.read(0xFF02, true), 0x7D);
        assert_eq!(s.read(0xFF01, true), 0xFF, "nothing on the other end");
        s.write(0xFF02, 0x02, 0, 0, true);
        assert_eq!(s.read(0xFF02, true), 0x7E);
        assert!(!s.transferring());
    }

    #[test]
    fn a_div_reset_restarts_the_fast_clock_too() {
        // A fast transfer from counter 0 (phase 4: it ends at 124), reset at
        // 40 (counter 40 + 4 = 44): the next edge would have been at 44,
        // so 11 transitions were left, one fewer because the reset makes
        // counter bit 2 fall; the 10 count from the reset: 40 + 8 + 9 * 8.
        let mut s = Serial::new();
        s.write(0xFF02, 0x83, 0, 0, true);
        assert_eq!(s.next_event(), 124);
        s.div_reset(40, 40, true);
        assert_eq!(s.next_event(), 120);
        // The normal clock (ends at 4,092): 16 transitions left from the
        // reset, 40 + 256 + 15 * 256.
        let mut n = Serial::new();
        n.write(0xFF02, 0x81, 0, 0, true);
        n.div_reset(40, 40, true);
        assert_eq!(n.next_event(), 4_136);
    }
}
