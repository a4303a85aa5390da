//! DIV/TIMA/TMA/TAC.
//!
//! The 16-bit system counter is not stored: it is derived from the emulated
//! time (`counter(t) = t + offset`), so DIV costs nothing until it is read.
//! TIMA is brought up to date lazily ([`Timer::catch_up`]) and the machine's
//! scheduler is told when the next overflow interrupt is due
//! ([`Timer::next_event`]). [`Timer::tick_mcycle`] is the slow reference twin
//! (one M-cycle at a time, falling-edge detector as on hardware); the
//! `reference_path` test runs ROMs both ways and asserts identical state.
//!
//! TIMA overflow, as on hardware (Pan Docs, "Timer obscure behaviour"):
//! in the M-cycle of the overflow TIMA reads 0x00 (state `Overflow`), a write
//! to TIMA in that cycle cancels the reload; in the next M-cycle TMA is copied
//! into TIMA and IF.2 is raised (state `Reloading`), and writes to TIMA in
//! that cycle are ignored while writes to TMA go through to TIMA too.

use crate::error::Result;
use crate::state::{StateReader, StateWriter, Stateful};

pub const IRQ_TIMER: u8 = 0x04;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TimaState {
    Running,
    /// TIMA overflowed in the M-cycle ending at `.0`.
    Overflow(u64),
    /// TMA was reloaded in the M-cycle ending at `.0`.
    Reloading(u64),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timer {
    /// counter(t) = (t + offset) mod 2^16
    offset: u64,
    /// Time up to which TIMA has been brought up to date.
    last: u64,
    tima: u8,
    tma: u8,
    tac: u8,
    state: TimaState,
}

/// Counter bit whose falling edge clocks TIMA, per TAC's low two bits.
#[inline]
fn tac_bit(tac: u8) -> u32 {
    match tac & 3 {
        0 => 9,
        1 => 3,
        2 => 5,
        _ => 7,
    }
}

impl Timer {
    /// `counter` is the system counter value at time 0.
    pub fn new(counter: u16) -> Timer {
        Timer {
            offset: counter as u64,
            last: 0,
            tima: 0,
            tma: 0,
            tac: 0xF8,
            state: TimaState::Running,
        }
    }

    #[inline]
    fn counter(&self, t: u64) -> u64 {
        t.wrapping_add(self.offset)
    }

    #[inline]
    fn enabled(&self) -> bool {
        self.tac & 4 != 0
    }

    /// The timer's input signal (enable AND selected counter bit) at time `t`.
    #[inline]
    fn signal(&self, t: u64) -> bool {
        self.enabled() && (self.counter(t) >> tac_bit(self.tac)) & 1 != 0
    }

    /// Set the system counter's value at time `now` (boot-state calibration).
    pub fn set_system_counter(&mut self, counter: u16, now: u64) {
        self.offset = (counter as u64).wrapping_sub(now);
    }

    pub fn div(&self, now: u64) -> u8 {
        (self.counter(now) >> 8) as u8
    }

    /// Whether TIMA is between its overflow and the end of its reload.
    pub fn reloading(&self) -> bool {
        self.state != TimaState::Running
    }

    /// The full 16-bit system counter (the serial port and APU hang off it).
    pub fn system_counter(&self, now: u64) -> u16 {
        self.counter(now) as u16
    }

    /// Increment TIMA once at time `t` (an edge), entering `Overflow` on wrap.
    #[inline]
    fn increment(&mut self, t: u64) {
        let (v, overflow) = self.tima.overflowing_add(1);
        self.tima = v;
        if overflow {
            self.state = TimaState::Overflow(t);
        }
    }

    /// Bring TIMA up to date with time `now`; returns IF bits to raise.
    pub fn catch_up(&mut self, now: u64) -> u8 {
        let mut irq = 0;
        loop {
            match self.state {
                TimaState::Overflow(at) => {
                    if at + 4 > now {
                        break;
                    }
                    // Natural edges are >= 16 T-cycles apart, so none falls
                    // in (at, at+4]: the reload happens next.
                    self.tima = self.tma;
                    irq |= IRQ_TIMER;
                    self.state = TimaState::Reloading(at + 4);
                    self.last = at + 4;
                    continue;
                }
                TimaState::Reloading(at) => {
                    if at + 4 > now {
                        break;
                    }
                    self.state = TimaState::Running;
                    continue;
                }
                TimaState::Running => {}
            }
            if now <= self.last {
                break;
            }
            if !self.enabled() {
                self.last = now;
                break;
            }
            let shift = tac_bit(self.tac) + 1;
            let period = 1u64 << shift;
            let r = self.counter(self.last) & (period - 1);
            let edges = (r + (now - self.last)) >> shift;
            let room = 0x100 - self.tima as u64;
            if edges < room {
                self.tima += edges as u8;
                self.last = now;
                break;
            }
            // Overflow on the room-th edge.
            let t = self.last + (room * period - r);
            self.tima = 0;
            self.state = TimaState::Overflow(t);
            self.last = t;
        }
        if self.last < now && self.state == TimaState::Running {
            self.last = now;
        }
        irq
    }

    /// Reference twin of `catch_up`: advance exactly one M-cycle ending at `now`.
    pub fn tick_mcycle(&mut self, now: u64) -> u8 {
        let mut irq = 0;
        match self.state {
            TimaState::Overflow(_) => {
                self.tima = self.tma;
                irq |= IRQ_TIMER;
                self.state = TimaState::Reloading(now);
            }
            TimaState::Reloading(_) => self.state = TimaState::Running,
            TimaState::Running => {}
        }
        if self.signal(now - 4) && !self.signal(now) {
            self.increment(now);
        }
        self.last = now;
        irq
    }

    /// Consistency check after loading a state saved at time `now`.
    pub fn check(&self, now: u64) -> Result<()> {
        let lo = now.saturating_sub(1 << 20);
        let at = match self.state {
            TimaState::Running => self.last,
            TimaState::Overflow(t) | TimaState::Reloading(t) => t,
        };
        if self.last > now || self.last < lo || at > now || at < lo {
            return Err(crate::Error::InvalidState(format!(
                "corrupted state: timer times ({}, {at}) inconsistent with time {now}",
                self.last
            )));
        }
        Ok(())
    }

    /// Time (T-cycles) at which the next timer interrupt is raised, if any.
    pub fn next_event(&self) -> u64 {
        match self.state {
            TimaState::Overflow(at) => at + 4,
            TimaState::Reloading(at) => at + 4,
            TimaState::Running => {
                if !self.enabled() {
                    return u64::MAX;
                }
                let shift = tac_bit(self.tac) + 1;
                let period = 1u64 << shift;
                let r = self.counter(self.last) & (period - 1);
                let room = 0x100 - self.tima as u64;
                self.last + (room * period - r) + 4
            }
        }
    }

    /// Time (T-cycles) of the M-cycle in which IF.2 is next raised, as far as
    /// the current state tells: `next_event`, except in the reload cycle,
    /// whose end raises nothing (the next overflow is at least one timer
    /// period away). Valid whenever `next_event` is (lazily or not). The
    /// CPU's interrupt check sees this request one M-cycle early (`bus/interrupts.rs`).
    pub fn next_irq(&self) -> u64 {
        match self.state {
            TimaState::Reloading(_) => u64::MAX,
            _ => self.next_event(),
        }
    }

    /// Register read; the caller has brought the timer up to `now`.
    pub fn read(&self, addr: u16, now: u64) -> u8 {
        match addr {
            0xFF04 => self.div(now),
            0xFF05 => self.tima,
            0xFF06 => self.tma,
            _ => self.tac | 0xF8,
        }
    }

    /// Register write at `now`; the caller has brought the timer up to `now`.
    /// Returns IF bits (never any: an overflow caused here raises IF a cycle later).
    pub fn write(&mut self, addr: u16, value: u8, now: u64) {
        match addr {
            0xFF04 => {
                // Resetting the counter is a falling edge if the selected bit was 1.
                let was = self.signal(now);
                self.offset = 0u64.wrapping_sub(now);
                if was {
                    self.increment(now);
                }
            }
            0xFF05 => match self.state {
                TimaState::Running => self.tima = value,
                TimaState::Overflow(_) => {
                    self.tima = value;
                    self.state = TimaState::Running;
                }
                TimaState::Reloading(_) => {}
            },
            0xFF06 => {
                self.tma = value;
                if let TimaState::Reloading(_) = self.state {
                    self.tima = value;
                }
            }
            _ => {
                let was = self.signal(now);
                self.tac = value | 0xF8;
                if was && !self.signal(now) {
                    self.increment(now);
                }
            }
        }
        self.last = now;
    }
}

impl Stateful for Timer {
    fn save(&self, w: &mut StateWriter) {
        w.begin_section(b"TIMR");
        w.u64(self.offset);
        w.u64(self.last);
        w.u8(self.tima);
        w.u8(self.tma);
        w.u8(self.tac);
        match self.state {
            TimaState::Running => {
                w.u8(0);
                w.u64(0)
            }
            TimaState::Overflow(t) => {
                w.u8(1);
                w.u64(t)
            }
            TimaState::Reloading(t) => {
                w.u8(2);
                w.u64(t)
            }
        }
        w.end_section();
    }
    fn load(&mut self, r: &mut StateReader) -> Result<()> {
        r.begin_section(b"TIMR")?;
        self.offset = r.u64()?;
        self.last = r.u64()?;
        self.tima = r.u8()?;
        self.tma = r.u8()?;
        self.tac = r.u8()? | 0xF8;
        let kind = r.u8()?;
        let t = r.u64()?;
        self.state = match kind {
            0 => TimaState::Running,
            1 => TimaState::Overflow(t),
            2 => TimaState::Reloading(t),
            k => {
                return Err(crate::Error::InvalidState(format!(
                    "corrupted state: timer state {k} is not 0, 1 or 2"
                )))
            }
        };
        r.end_section()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lazy catch-up and the per-M-cycle reference agree over a long random
    /// sequence of register writes.
    #[test]
    fn lazy_matches_reference() {
        let mut seed = 0x1234_5678u32;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        for _ in 0..50 {
            let mut lazy = Timer::new(0xABCC);
            let mut refr = lazy.clone();
            // IF as the CPU sees it: sticky bits, compared and cleared at
            // every register access.
            let (mut irq_l, mut irq_r) = (0u8, 0u8);
            let mut now = 0u64;
            for _ in 0..3000 {
                let gap = (rnd() % 40) as u64 + 1;
                for _ in 0..gap {
                    now += 4;
                    irq_r |= refr.tick_mcycle(now);
                    if rnd() % 7 == 0 {
                        irq_l |= lazy.catch_up(now);
                    }
                }
                irq_l |= lazy.catch_up(now);
                assert_eq!(irq_l, irq_r, "IF at {now}");
                (irq_l, irq_r) = (0, 0);
                let addr = 0xFF04 + (rnd() % 4) as u16;
                let v = rnd() as u8;
                if rnd() % 3 == 0 {
                    assert_eq!(
                        lazy.read(addr, now),
                        refr.read(addr, now),
                        "{addr:04X} at {now}"
                    );
                } else {
                    let v = if addr == 0xFF07 { v | 4 } else { v };
                    lazy.write(addr, v, now);
                    refr.write(addr, v, now);
                }
                assert_eq!(lazy.tima, refr.tima, "TIMA at {now}");
                assert_eq!(lazy.state, refr.state, "state at {now}");
            }
        }
    }

    /// `next_irq` agrees between the lazy timer (caught up whenever its event
    /// is due, as the bus does) and the reference, and names the M-cycle in
    /// which the reference raises IF.2.
    #[test]
    fn next_irq_lazy_matches_reference() {
        let mut seed = 0x9E37_79B9u32;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        let mut raised = 0;
        for _ in 0..20 {
            let mut lazy = Timer::new(0xABCC);
            let mut refr = lazy.clone();
            let mut now = 0u64;
            for _ in 0..2000 {
                let gap = (rnd() % 40) as u64 + 1;
                for _ in 0..gap {
                    let predicted = refr.next_irq() == now + 4;
                    assert_eq!(lazy.next_irq() == now + 4, predicted, "at {now}");
                    now += 4;
                    let irq = refr.tick_mcycle(now);
                    assert_eq!(irq != 0, predicted, "IF.2 at {now}");
                    raised += (irq != 0) as u32;
                    if lazy.next_event() <= now {
                        lazy.catch_up(now);
                    }
                }
                lazy.catch_up(now);
                let addr = 0xFF04 + (rnd() % 4) as u16;
                let v = rnd() as u8;
                let v = if addr == 0xFF07 { v | 4 } else { v };
                lazy.write(addr, v, now);
                refr.write(addr, v, now);
            }
        }
        assert!(raised > 100, "only {raised} interrupts exercised");
    }

    #[test]
    fn next_event_is_exact() {
        let mut t = Timer::new(0);
        t.write(0xFF07, 0x05, 0); // 16 T-cycles per tick
        t.write(0xFF05, 0xFE, 0);
        let ev = t.next_event();
        // two edges: at 16 and 32 -> overflow at 32, IF at 36
        assert_eq!(ev, 36);
        assert_eq!(t.catch_up(32), 0);
        assert_eq!(t.read(0xFF05, 32), 0);
        assert_eq!(t.catch_up(36), IRQ_TIMER);
    }

    #[test]
    fn div_write_falling_edge_increments() {
        let mut t = Timer::new(0);
        t.write(0xFF07, 0x05, 0);
        t.catch_up(8); // counter 8: bit 3 set
        t.write(0xFF04, 0, 8);
        assert_eq!(t.read(0xFF05, 8), 1);
        assert_eq!(t.read(0xFF04, 8), 0);
    }
}
