//! Serial port (SB/SC). With no link partner, a transfer on the internal
//! clock shifts in 1s and completes after 8 bit clocks; the bytes the game
//! sends are captured (Blargg's test ROMs print their results this way).

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

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Serial {
    pub sb: u8,
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
            sc: 0x7E,
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

    pub fn read(&self, addr: u16) -> u8 {
        if addr == 0xFF01 {
            self.sb
        } else {
            self.sc | 0x7E
        }
    }

    /// `counter` is the system counter at `now`.
    pub fn write(&mut self, addr: u16, value: u8, now: u64, counter: u16) {
        if addr == 0xFF01 {
            self.sb = value;
            return;
        }
        self.sc = value | 0x7E;
        if value & 0x81 == 0x81 {
            self.output.push(self.sb);
            // The transfer counts the clock's transitions (every half
            // period) from the first rising edge after the start to the
            // eighth falling edge: 16 of them, or 17 when the clock is
            // high at the start and first falls (gambatte hwtests
            // serial/start_wait_read_if_2 vs nopx1_start_wait_read_if_1:
            // a start in the high half takes one period more).
            let c = counter as u64 + self.phase;
            let high = c & HALF_PERIOD != 0;
            self.done_at = Self::after_transitions(now, c, 16 + high as u64);
        } else {
            self.done_at = u64::MAX;
        }
    }

    /// The time of the `n`-th transition (n >= 1) of the serial clock after
    /// `now`, with `c` its phase counter at `now`.
    fn after_transitions(now: u64, c: u64, n: u64) -> u64 {
        now + (HALF_PERIOD - (c & (HALF_PERIOD - 1))) + (n - 1) * HALF_PERIOD
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
    pub fn div_reset(&mut self, now: u64, counter: u16) {
        let c = counter as u64 + self.phase;
        self.phase = 0;
        if self.done_at == u64::MAX || now >= self.done_at {
            return;
        }
        let next = Self::after_transitions(now, c, 1);
        let mut left = if self.done_at >= next {
            (self.done_at - next) / HALF_PERIOD + 1
        } else {
            0
        };
        // The clock counts falling edges of the counter bit below its own;
        // the reset makes that bit fall when it was set.
        if c & (HALF_PERIOD / 2) != 0 {
            left = left.saturating_sub(1);
        }
        self.done_at = if left == 0 {
            now
        } else {
            Self::after_transitions(now, 0, left)
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
        self.sc = r.u8()? | 0x7E;
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
