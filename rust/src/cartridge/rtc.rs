//! MBC3 real-time clock, driven by emulated time.
//!
//! The clock is not ticked per cycle. It keeps its register values as of the
//! emulated instant `last` (in T-cycles) plus the position inside the current
//! second (`sub`, 0..4_194_304 cycles), and catches up lazily — in closed
//! form, however long the gap — whenever the game touches it (latch, register
//! write). A halted clock (DH bit 6) does not advance, its sub-second position
//! included.
//!
//! Hardware behaviour modelled (Pan Docs "MBC3"; the rtc3test descriptions):
//! * registers keep only their valid bits, the others read back as 0:
//!   S and M 6 bits, H 5 bits, DL 8 bits, DH bits 0 (day bit 8), 6 (halt) and
//!   7 (day carry);
//! * a counter holding a value beyond its normal range (S/M 60..=63,
//!   H 24..=31) keeps counting up to the top of its bit width and then wraps
//!   to 0 *without* carrying into the next register; the normal rollover
//!   (59 -> 0, 23 -> 0) carries as usual, also into a register that holds an
//!   out-of-range value;
//! * the 9-bit day counter wraps 511 -> 0 and sets the sticky carry bit (DH
//!   bit 7), which stays set until the game writes it to 0;
//! * writing S resets the sub-second position (the next tick comes a full
//!   second later); writing M, H, DL or DH does not;
//! * writes go to the live counters; reads return the latched copy, which
//!   changes only on a latch (write 0x00 then 0x01 to 0x6000-0x7FFF).
//!
//! If `now` is ever smaller than the last synchronisation time (time went
//! backwards), the gap counts as zero and the clock resynchronises to `now`.

use crate::error::{Error, Result};
use crate::state::{StateReader, StateWriter};

/// T-cycles per emulated second: the system clock.
pub const CYCLES_PER_SECOND: u64 = crate::clock::CLOCK_HZ;

/// Register indices inside the 5-register block (RTC select 0x08..=0x0C).
pub const S: usize = 0;
pub const M: usize = 1;
pub const H: usize = 2;
pub const DL: usize = 3;
pub const DH: usize = 4;

/// Valid bits of each register.
pub const MASKS: [u8; 5] = [0x3F, 0x3F, 0x1F, 0xFF, 0xC1];

const DH_HALT: u8 = 0x40;
const DH_CARRY: u8 = 0x80;

/// Size of the RTC block appended to the battery RAM (see [`Rtc::battery_block`]).
pub const BATTERY_BLOCK_LEN: usize = 48;

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Rtc {
    /// Live counters S, M, H, DL, DH as of `last`.
    live: [u8; 5],
    /// Latched copy the game reads.
    latched: [u8; 5],
    /// Cycles elapsed in the current second, `< CYCLES_PER_SECOND`.
    sub: u64,
    /// Emulated time (T-cycles) at which `live`/`sub` are valid.
    last: u64,
    /// Set after loading battery RAM: the next access takes its `now` as the
    /// time the loaded values are valid at, instead of advancing.
    rebase: bool,
}

/// Advances one counter with `normal` values per cycle (60 or 24), held in a
/// register `bits` wide (`wrap` = 1 << bits), by `n` steps. Returns the new
/// value and the number of carries into the next counter.
fn step(value: u8, n: u64, normal: u64, wrap: u64) -> (u8, u64) {
    let mut v = value as u64;
    let mut n = n;
    if v >= normal {
        // Out of range: counts up to the top of the bit width, then wraps to
        // 0 without a carry.
        let to_wrap = wrap - v;
        if n < to_wrap {
            return ((v + n) as u8, 0);
        }
        n -= to_wrap;
        v = 0;
    }
    let total = v + n;
    ((total % normal) as u8, total / normal)
}

impl Rtc {
    pub fn new() -> Rtc {
        Rtc::default()
    }

    fn halted(&self) -> bool {
        self.live[DH] & DH_HALT != 0
    }

    /// Advances the live counters by `secs` whole seconds.
    fn advance_seconds(&mut self, secs: u64) {
        if secs == 0 {
            return;
        }
        let (s, c) = step(self.live[S], secs, 60, 64);
        let (m, c) = step(self.live[M], c, 60, 64);
        let (h, c) = step(self.live[H], c, 24, 32);
        self.live[S] = s;
        self.live[M] = m;
        self.live[H] = h;
        if c > 0 {
            let days = (((self.live[DH] & 1) as u64) << 8) | self.live[DL] as u64;
            let total = days + c;
            let mut dh = self.live[DH] & !1;
            if total >= 512 {
                dh |= DH_CARRY;
            }
            let days = total % 512;
            self.live[DL] = days as u8;
            self.live[DH] = dh | (days >> 8) as u8;
        }
    }

    /// Catches the live counters up to emulated time `now`.
    pub fn sync(&mut self, now: u64) {
        if self.rebase || now <= self.last || self.halted() {
            self.rebase = false;
            self.last = now;
            return;
        }
        let elapsed = now - self.last;
        self.last = now;
        let mut secs = elapsed / CYCLES_PER_SECOND;
        self.sub += elapsed % CYCLES_PER_SECOND;
        if self.sub >= CYCLES_PER_SECOND {
            self.sub -= CYCLES_PER_SECOND;
            secs += 1;
        }
        self.advance_seconds(secs);
    }

    /// Copies the live counters (as of `now`) to the latched registers.
    pub fn latch(&mut self, now: u64) {
        self.sync(now);
        self.latched = self.live;
    }

    /// Reads latched register `reg` (0..=4); 0xFF for anything else.
    #[inline]
    pub fn read(&self, reg: u8) -> u8 {
        self.latched.get(reg as usize).copied().unwrap_or(0xFF)
    }

    /// Writes live register `reg` (0..=4) at time `now`.
    pub fn write(&mut self, reg: u8, value: u8, now: u64) {
        let reg = reg as usize;
        if reg >= 5 {
            return;
        }
        self.sync(now);
        self.live[reg] = value & MASKS[reg];
        if reg == S {
            self.sub = 0;
        }
    }

    /// The live counters S, M, H, DL, DH as they are at `now` (no side effects).
    pub fn live_at(&self, now: u64) -> [u8; 5] {
        let mut c = self.clone();
        c.sync(now);
        c.live
    }

    /// The latched registers S, M, H, DL, DH.
    pub fn latched(&self) -> [u8; 5] {
        self.latched
    }

    /// The 48-byte RTC block appended to battery RAM. Layout (all little
    /// endian): live S, M, H, DL, DH as five u32; latched S, M, H, DL, DH as
    /// five u32; then a u64 holding the sub-second position in T-cycles.
    /// The first 40 bytes follow the common BGB/VBA-M layout; the last field
    /// is emurust's own (those emulators store a UNIX timestamp there, since
    /// their clock follows the host clock while emurust's follows emulated
    /// time). The live values are those of the last synchronisation (latch or
    /// RTC register write).
    pub fn battery_block(&self) -> [u8; BATTERY_BLOCK_LEN] {
        let mut out = [0u8; BATTERY_BLOCK_LEN];
        for (i, &v) in self.live.iter().chain(self.latched.iter()).enumerate() {
            out[i * 4..i * 4 + 4].copy_from_slice(&(v as u32).to_le_bytes());
        }
        out[40..48].copy_from_slice(&self.sub.to_le_bytes());
        out
    }

    /// Loads a block written by [`Rtc::battery_block`]. Values are masked to
    /// their valid bits; a sub-second field that is not below one second (for
    /// instance a UNIX timestamp written by another emulator) counts as 0.
    /// The loaded values take effect at the next RTC access, whose `now`
    /// becomes the reference time (emulated time passing before that access
    /// does not advance the loaded clock).
    pub fn load_battery_block(&mut self, block: &[u8]) {
        let word = |i: usize| -> u32 {
            let mut b = [0u8; 4];
            if let Some(s) = block.get(i * 4..i * 4 + 4) {
                b.copy_from_slice(s);
            }
            u32::from_le_bytes(b)
        };
        for (r, &mask) in MASKS.iter().enumerate() {
            self.live[r] = (word(r) as u8) & mask;
            self.latched[r] = (word(r + 5) as u8) & mask;
        }
        let mut b = [0u8; 8];
        if let Some(s) = block.get(40..48) {
            b.copy_from_slice(s);
        }
        let sub = u64::from_le_bytes(b);
        self.sub = if sub < CYCLES_PER_SECOND { sub } else { 0 };
        self.rebase = true;
    }

    pub fn save(&self, w: &mut StateWriter) {
        w.raw(&self.live);
        w.raw(&self.latched);
        w.u64(self.sub);
        w.u64(self.last);
        w.bool(self.rebase);
    }

    pub fn load(r: &mut StateReader) -> Result<Rtc> {
        const NAMES: [&str; 5] = ["S", "M", "H", "DL", "DH"];
        let mut live = [0u8; 5];
        let mut latched = [0u8; 5];
        live.copy_from_slice(r.raw(5)?);
        latched.copy_from_slice(r.raw(5)?);
        for (which, regs) in [("live", &live), ("latched", &latched)] {
            for i in 0..5 {
                if regs[i] & !MASKS[i] != 0 {
                    return Err(Error::InvalidState(format!(
                        "corrupted state: {which} RTC register {} is 0x{:02X}, valid bits are 0x{:02X}",
                        NAMES[i], regs[i], MASKS[i]
                    )));
                }
            }
        }
        let sub = r.u64()?;
        if sub >= CYCLES_PER_SECOND {
            return Err(Error::InvalidState(format!(
                "corrupted state: RTC sub-second counter is {sub}, must be below {CYCLES_PER_SECOND}"
            )));
        }
        let last = r.u64()?;
        let rebase = r.bool()?;
        Ok(Rtc {
            live,
            latched,
            sub,
            last,
            rebase,
        })
    }
}
