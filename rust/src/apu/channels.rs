//! The four sound generators. Each frequency timer is kept as the absolute
//! time of its next expiry (`next`), so bringing a channel up to time `t` is
//! one division ([`Square::advance`] and friends) instead of one step per
//! clock; `step_ref` is the one-T-cycle reference twin used when
//! `Hardware::reference` is set. A period written to NRx3/NRx4 only takes
//! effect at the next reload (Pan Docs, NR13), which is why every change of
//! period or of the channel's on/off state first advances the channel to the
//! moment of the change.

use super::lfsr;

/// Duty waveforms, step 0 in bit 7 (gbdev wiki, Square Wave).
const DUTY: [u8; 4] = [0b0000_0001, 0b1000_0001, 0b1000_0111, 0b0111_1110];

/// State every channel has: on/off (NR52 bit) and the length counter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Common {
    /// The channel is active (its NR52 status bit).
    pub on: bool,
    /// Length counter: counts down to 0 at 256 Hz while enabled.
    pub length: u16,
    /// NRx4 bit 6.
    pub len_enable: bool,
}

/// Volume envelope (NRx2) of the square and noise channels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Envelope {
    /// NRx2 as written.
    pub reg: u8,
    pub volume: u8,
    pub timer: u8,
}

impl Envelope {
    /// The DAC is powered while NRx2 bits 7-3 are not all 0.
    #[inline]
    pub fn dac_on(&self) -> bool {
        self.reg & 0xF8 != 0
    }

    /// Trigger: reload volume and timer. A trigger just before a step that
    /// clocks envelopes reloads the timer with one more (gbdev wiki,
    /// Obscure Behavior).
    pub fn trigger(&mut self, envelope_next: bool) {
        self.volume = self.reg >> 4;
        self.timer = reload(self.reg & 7) + envelope_next as u8;
    }

    /// Frame-sequencer step 7. The timer treats a period of 0 as 8, but only
    /// a non-zero period changes the volume.
    pub fn clock(&mut self) {
        self.timer = self.timer.saturating_sub(1);
        if self.timer == 0 {
            let pace = self.reg & 7;
            self.timer = reload(pace);
            if pace != 0 {
                if self.reg & 8 != 0 {
                    if self.volume < 15 {
                        self.volume += 1;
                    }
                } else if self.volume > 0 {
                    self.volume -= 1;
                }
            }
        }
    }
}

/// Envelope and sweep timers treat a period of 0 as 8.
#[inline]
pub fn reload(period: u8) -> u8 {
    if period == 0 {
        8
    } else {
        period
    }
}

/// The channel operations the frame sequencer and NRx4 logic share.
pub trait Channel {
    fn common(&mut self) -> &mut Common;
    /// Bring the frequency timer up to time `t` (closed form).
    fn advance(&mut self, t: u64);
    /// Turn the channel off at time `t` (its timer stops there).
    fn disable(&mut self, t: u64) {
        self.advance(t);
        self.common().on = false;
    }
}

/// Square channels 1 and 2 (channel 1 also uses the sweep fields).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Square {
    pub c: Common,
    /// NRx1 bits 7-6.
    pub duty: u8,
    pub env: Envelope,
    /// 11-bit period value (NRx3 + NRx4 bits 2-0).
    pub freq: u16,
    /// Duty step 0..=7.
    pub pos: u8,
    /// Time of the next timer expiry (meaningful while `c.on`).
    pub next: u64,
    /// NR10 bits 6-0 (channel 1).
    pub nr10: u8,
    /// Sweep shadow frequency.
    pub shadow: u16,
    pub sweep_timer: u8,
    pub sweep_enabled: bool,
    /// A negate-mode calculation happened since the last trigger.
    pub negate_used: bool,
}

impl Square {
    /// Frequency timer period in T-cycles (the timer runs at 1 MiHz).
    #[inline]
    pub fn period(&self) -> u64 {
        (2048 - (self.freq & 0x7FF) as u64) * 4
    }

    /// One-T-cycle reference twin of [`Channel::advance`].
    #[inline]
    pub fn step_ref(&mut self, t: u64) {
        if self.c.on && t == self.next {
            self.pos = (self.pos + 1) & 7;
            self.next = t + self.period();
        }
    }

    /// Digital output 0..=15.
    #[inline]
    pub fn output(&self) -> u8 {
        if self.c.on && (DUTY[(self.duty & 3) as usize] >> (7 - (self.pos & 7))) & 1 != 0 {
            self.env.volume
        } else {
            0
        }
    }

    /// Restart the timer on a trigger at `now`. The duty step is kept (only
    /// powering the APU on resets it).
    pub fn trigger_timer(&mut self, now: u64) {
        self.next = now + self.period();
    }

    /// Sweep frequency calculation with overflow check (channel 1). Returns
    /// the new frequency; disables the channel at `t` on overflow.
    pub fn sweep_calc(&mut self, t: u64) -> u16 {
        let delta = self.shadow >> (self.nr10 & 7);
        let new = if self.nr10 & 8 != 0 {
            self.negate_used = true;
            self.shadow - delta
        } else {
            self.shadow + delta
        };
        if new > 0x7FF {
            self.disable(t);
        }
        new
    }

    /// Frame-sequencer steps 2 and 6 (channel 1).
    pub fn clock_sweep(&mut self, t: u64) {
        if !self.c.on {
            return;
        }
        self.sweep_timer = self.sweep_timer.saturating_sub(1);
        if self.sweep_timer != 0 {
            return;
        }
        let pace = (self.nr10 >> 4) & 7;
        self.sweep_timer = reload(pace);
        if self.sweep_enabled && pace != 0 {
            let new = self.sweep_calc(t);
            if new <= 0x7FF && self.nr10 & 7 != 0 {
                // The period changes at `t`: the timer runs with the old one
                // until then.
                self.advance(t);
                self.shadow = new;
                self.freq = new;
                self.sweep_calc(t);
            }
        }
    }

    /// Sweep part of a trigger at `now` (channel 1).
    pub fn trigger_sweep(&mut self, now: u64) {
        self.shadow = self.freq;
        let pace = (self.nr10 >> 4) & 7;
        let shift = self.nr10 & 7;
        self.sweep_timer = reload(pace);
        self.sweep_enabled = pace != 0 || shift != 0;
        self.negate_used = false;
        if shift != 0 {
            self.sweep_calc(now);
        }
    }
}

impl Channel for Square {
    #[inline]
    fn common(&mut self) -> &mut Common {
        &mut self.c
    }

    #[inline]
    fn advance(&mut self, t: u64) {
        if self.c.on && t >= self.next {
            let p = self.period();
            let n = (t - self.next) / p + 1;
            self.pos = ((self.pos as u64 + n) & 7) as u8;
            self.next += n * p;
        }
    }
}

/// Wave channel 3 and wave RAM.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Wave {
    pub c: Common,
    /// NR30 bit 7.
    pub dac: bool,
    /// NR32 bits 6-5.
    pub vol_code: u8,
    pub freq: u16,
    /// Sample index 0..=31 of the last wave RAM read.
    pub pos: u8,
    /// The sample buffer: the last nibble read (what the channel outputs).
    pub sample: u8,
    /// Time of the next read (meaningful while `c.on`).
    pub next: u64,
    /// Time of the last read (`u64::MAX` before the first one).
    pub last_read: u64,
    pub ram: [u8; 16],
}

/// Where the wave channel stands at some time: see [`Wave::at`].
pub struct WaveAt {
    pub pos: u8,
    pub last_read: u64,
    pub next: u64,
}

impl Wave {
    /// Frequency timer period in T-cycles (the timer runs at 2 MiHz).
    #[inline]
    pub fn period(&self) -> u64 {
        (2048 - (self.freq & 0x7FF) as u64) * 2
    }

    #[inline]
    fn nibble(&self, pos: u8) -> u8 {
        let b = self.ram[((pos >> 1) & 15) as usize];
        if pos & 1 == 0 {
            b >> 4
        } else {
            b & 0x0F
        }
    }

    /// Position, last and next read at time `t` without changing anything.
    #[inline]
    pub fn at(&self, t: u64) -> WaveAt {
        if self.c.on && t >= self.next {
            let p = self.period();
            let n = (t - self.next) / p + 1;
            WaveAt {
                pos: ((self.pos as u64 + n) & 31) as u8,
                last_read: self.next + (n - 1) * p,
                next: self.next + n * p,
            }
        } else {
            WaveAt {
                pos: self.pos,
                last_read: self.last_read,
                next: self.next,
            }
        }
    }

    /// One-T-cycle reference twin of [`Channel::advance`].
    #[inline]
    pub fn step_ref(&mut self, t: u64) {
        if self.c.on && t == self.next {
            self.pos = (self.pos + 1) & 31;
            self.sample = self.nibble(self.pos);
            self.last_read = t;
            self.next = t + self.period();
        }
    }

    /// Digital output 0..=15 (the volume code shifts the digital value).
    #[inline]
    pub fn output(&self) -> u8 {
        if !self.c.on {
            return 0;
        }
        match self.vol_code & 3 {
            0 => 0,
            c => self.sample >> (c - 1),
        }
    }
}

impl Channel for Wave {
    #[inline]
    fn common(&mut self) -> &mut Common {
        &mut self.c
    }

    #[inline]
    fn advance(&mut self, t: u64) {
        if self.c.on && t >= self.next {
            let a = self.at(t);
            self.pos = a.pos;
            self.last_read = a.last_read;
            self.next = a.next;
            // Wave RAM cannot change between reads without this channel
            // being advanced first, so the last read saw today's contents.
            self.sample = self.nibble(a.pos);
        }
    }
}

/// Noise channel 4.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Noise {
    pub c: Common,
    pub env: Envelope,
    /// NR43 as written.
    pub nr43: u8,
    pub lfsr: u16,
    /// Time of the next LFSR clock (`u64::MAX` while the clock shift is
    /// 14 or 15, which stops the clock).
    pub next: u64,
}

impl Noise {
    /// LFSR clock period in T-cycles, None for clock shifts 14 and 15.
    #[inline]
    pub fn period(&self) -> Option<u64> {
        let shift = self.nr43 >> 4;
        if shift >= 14 {
            return None;
        }
        let r = (self.nr43 & 7) as u64;
        let divisor = if r == 0 { 8 } else { r * 16 };
        Some(divisor << shift)
    }

    #[inline]
    fn short(&self) -> bool {
        self.nr43 & 8 != 0
    }

    /// Timer restart (trigger, or the clock being started by NR43).
    pub fn restart_timer(&mut self, now: u64) {
        self.next = match self.period() {
            Some(p) => now + p,
            None => u64::MAX,
        };
    }

    /// NR43 write at `now` (the channel has been advanced to `now`): a new
    /// period applies from the next clock; a stopped clock starts again.
    pub fn write_nr43(&mut self, value: u8, now: u64) {
        let was_stopped = self.period().is_none();
        self.nr43 = value;
        match self.period() {
            None => self.next = u64::MAX,
            Some(p) if was_stopped => self.next = now + p,
            Some(_) => {}
        }
    }

    /// One-T-cycle reference twin of [`Channel::advance`].
    #[inline]
    pub fn step_ref(&mut self, t: u64) {
        if self.c.on && t == self.next {
            self.lfsr = lfsr::step(self.lfsr, self.short());
            self.restart_timer(t);
        }
    }

    /// Digital output 0..=15: the volume while bit 0 is clear.
    #[inline]
    pub fn output(&self) -> u8 {
        if self.c.on && self.lfsr & 1 == 0 {
            self.env.volume
        } else {
            0
        }
    }
}

impl Channel for Noise {
    #[inline]
    fn common(&mut self) -> &mut Common {
        &mut self.c
    }

    #[inline]
    fn advance(&mut self, t: u64) {
        if self.c.on && t >= self.next {
            let Some(p) = self.period() else {
                // Only a corrupted state gets here: a stopped clock has
                // `next == u64::MAX`.
                self.next = u64::MAX;
                return;
            };
            let n = (t - self.next) / p + 1;
            self.lfsr = lfsr::jump(self.lfsr, n, self.short());
            self.next += n * p;
        }
    }
}
