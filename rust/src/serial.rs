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

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Serial {
    pub sb: u8,
    pub sc: u8,
    /// Completion time of the transfer in progress (u64::MAX if none).
    done_at: u64,
    pub output: Vec<u8>,
}

impl Serial {
    pub fn new() -> Serial {
        Serial {
            sb: 0,
            sc: 0x7E,
            done_at: u64::MAX,
            output: Vec::new(),
        }
    }

    #[inline]
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
            // First falling edge of counter bit 8, then 7 more.
            let r = (counter as u64 + CLOCK_PHASE) & (BIT_PERIOD - 1);
            self.done_at = now + (BIT_PERIOD - r) + 7 * BIT_PERIOD;
        } else {
            // External clock (no partner: never completes) or transfer stopped.
            self.done_at = u64::MAX;
        }
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
        w.bytes(&self.output);
        w.end_section();
    }
    fn load(&mut self, r: &mut StateReader) -> Result<()> {
        r.begin_section(b"SERL")?;
        self.sb = r.u8()?;
        self.sc = r.u8()? | 0x7E;
        self.done_at = r.u64()?;
        self.output = r.bytes()?.to_vec();
        r.end_section()
    }
}
