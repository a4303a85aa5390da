//! The DMG APU: two square channels (the first with a frequency sweep), the
//! wave channel, the noise channel, the frame sequencer and the mixer.
//!
//! Hardware facts come from Pan Docs ("Audio", "Audio Registers", "Audio
//! details") and the gbdev wiki "Gameboy sound hardware" page; the obscure
//! behaviours (extra length clocks, sweep negate quirk, DMG wave RAM access
//! and trigger corruption...) are the ones Blargg's dmg_sound ROMs check.
//!
//! # Laziness
//!
//! The APU is only brought up to date when one of its registers is accessed
//! (or, with sample output on, at the end of a frame): [`Apu::catch_up`]
//! walks the frame-sequencer edges between the last catch-up and `now`
//! (falling edges of system-counter bit 12 = DIV bit 4; the counter value is
//! passed in, and writing DIV catches the APU up first, then reports the
//! reset with [`Apu::div_reset`]), and channel frequency timers are advanced
//! in closed form only when something needs them (a period or on/off change,
//! a wave RAM access, a sample). With sample output off a frame costs the APU
//! nothing unless the game touches a sound register, and no scheduler event
//! exists for it.
//!
//! The reference twin (chosen by `Hardware::set_reference`, the one switch)
//! steps every channel and the frame-sequencer edge detector one T-cycle at a
//! time; unit tests and the `reference_path` integration test check the two
//! agree.
//!
//! # Sample output
//!
//! Off by default. When on, one stereo sample (L, R as signed 8-bit) is taken
//! every `4194304 / rate` T-cycles (exactly: sample k of each emulated second
//! at `ceil(k * 4194304 / rate)`), by point sampling the channels' digital
//! outputs at that T-cycle, with their exact timing. The mix follows PyBoy
//! 2.8.1 so numbers are comparable: each channel outputs 0..=15 (square:
//! volume when its duty bit is 1; wave: the sample nibble shifted by the
//! NR32 code; noise: volume when LFSR bit 0 is 0), a side is the sum of the
//! channels NR51 routes to it (0..=60), NR50 is ignored, and a powered-off
//! APU outputs 0.

mod channels;
mod lfsr;
mod state;

use channels::{Channel, Common, Envelope, Noise, Square, Wave};

use crate::error::{Error, Result};

/// T-cycles per second (defined in `timer.rs`).
pub use crate::clock::CLOCK_HZ;
/// Accepted sample rates (Hz).
pub const SAMPLE_RATES: std::ops::RangeInclusive<u32> = 8000..=192_000;
/// The frame sequencer steps on every falling edge of system-counter bit 12.
const FS_PERIOD: u64 = 8192;
/// Frame-sequencer steps after which every timer it drives repeats: the
/// 8-step cycle, envelope periods of 8..=64 steps and sweep periods of
/// 4..=32 steps all divide it.
const FS_CYCLE: u64 = 6720;
/// A catch-up longer than this (a minute of emulated time without touching
/// the APU, or a corrupted state) brings the bulk up to date in the fast
/// path with no sample output, so it stays bounded in time.
const BULK: u64 = 1 << 28;
/// Sample output keeps at most this many seconds between two frames.
const MAX_BUFFERED_SECONDS: usize = 4;

// ---- DMG wave channel timing, calibrated on Blargg's dmg_sound 09, 10 and
// 12 (each checks 69 trigger-to-access distances 2 T-cycles apart).

/// Extra T-cycles before the first wave RAM read after a trigger.
const WAVE_TRIGGER_DELAY: u64 = 6;
/// Retriggering corrupts wave RAM when the channel's next read is due this
/// many T-cycles after the trigger write.
const WAVE_CORRUPT_AHEAD: u64 = 2;

/// The emulated sound hardware (everything but the sample output).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Chip {
    /// Time up to which the frame sequencer has been run.
    last: u64,
    powered: bool,
    /// The frame-sequencer step that the next edge runs (0..=7).
    fs_step: u8,
    ch1: Square,
    ch2: Square,
    ch3: Wave,
    ch4: Noise,
    nr50: u8,
    nr51: u8,
    /// A CGB's APU (its wave RAM access, power-off and trigger rules);
    /// fixed with the model, not saved.
    cgb: bool,
}

/// What the frame sequencer reads and writes (compared to detect that it
/// has become periodic, see `Chip::skip_cycles`).
#[derive(PartialEq, Eq)]
struct FsState {
    fs_step: u8,
    common: [Common; 4],
    env: [Envelope; 3],
    sweep: (u8, u16, u16, u8, bool, bool),
}

/// Sample output configuration, schedule and buffer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct SampleOut {
    /// Samples per second; 0 = off.
    rate: u32,
    /// Time of sample 0 of the current emulated second.
    epoch: u64,
    /// Index of the next sample within that second.
    index: u64,
    /// Time of the next sample.
    next_at: u64,
    /// Interleaved L, R.
    buf: Vec<i8>,
}

impl SampleOut {
    fn time_of(&self, index: u64) -> u64 {
        let rate = self.rate.max(1) as u64;
        self.epoch + (index * CLOCK_HZ).div_ceil(rate)
    }

    /// Restart the schedule: the first sample comes after time `t`.
    fn start(&mut self, t: u64) {
        self.epoch = t;
        self.index = 1;
        self.next_at = self.time_of(1);
    }

    #[inline]
    fn emit(&mut self, (l, r): (i8, i8)) {
        if self.buf.len() < MAX_BUFFERED_SECONDS * 2 * self.rate as usize {
            self.buf.push(l);
            self.buf.push(r);
        }
        self.index += 1;
        if self.index >= self.rate as u64 {
            self.epoch += CLOCK_HZ;
            self.index = 0;
        }
        self.next_at = self.time_of(self.index);
    }
}

/// The APU and its optional sample output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Apu {
    chip: Chip,
    out: SampleOut,
    /// Catch up with the one-T-cycle reference twin instead of the lazy
    /// fast path. Set only through `Hardware::set_reference` (not saved).
    reference: bool,
}

/// Length counter clock (frame-sequencer steps 0, 2, 4, 6).
#[inline]
fn clock_length<C: Channel>(ch: &mut C, t: u64) {
    let c = ch.common();
    if c.len_enable && c.length > 0 {
        c.length -= 1;
        if c.length == 0 && c.on {
            ch.disable(t);
        }
    }
}

/// The length part of an NRx4 write at `now`; returns whether it triggers.
/// `odd` = the next frame-sequencer step does not clock length counters,
/// which gives the extra-clock quirks (gbdev wiki, Obscure Behavior).
fn write_length_enable<C: Channel>(ch: &mut C, value: u8, odd: bool, max: u16, now: u64) -> bool {
    let trigger = value & 0x80 != 0;
    let c = ch.common();
    let was_enabled = c.len_enable;
    c.len_enable = value & 0x40 != 0;
    if odd && !was_enabled && c.len_enable && c.length > 0 {
        c.length -= 1;
        if c.length == 0 && !trigger && c.on {
            ch.disable(now);
        }
    }
    let c = ch.common();
    if trigger && c.length == 0 {
        c.length = if odd && c.len_enable { max - 1 } else { max };
    }
    trigger
}

/// NR14/NR24 write at `now` (channel 1 also runs its sweep on a trigger).
fn write_square_nrx4(ch: &mut Square, value: u8, fs_step: u8, now: u64, sweep: bool) {
    ch.advance(now);
    ch.freq = (ch.freq & 0xFF) | ((value & 7) as u16) << 8;
    if write_length_enable(ch, value, fs_step & 1 != 0, 64, now) {
        ch.c.on = true;
        ch.trigger_timer(now);
        ch.env.trigger(fs_step == 7);
        if sweep {
            ch.trigger_sweep(now);
        }
        if !ch.env.dac_on() {
            ch.c.on = false;
        }
    }
}

impl Chip {
    fn new() -> Chip {
        Chip {
            last: 0,
            powered: false,
            fs_step: 0,
            ch1: Square::default(),
            ch2: Square::default(),
            ch3: Wave {
                last_read: u64::MAX,
                ..Wave::default()
            },
            ch4: Noise::default(),
            nr50: 0,
            nr51: 0,
            cgb: false,
        }
    }

    fn fs_state(&self) -> FsState {
        let s = &self.ch1;
        FsState {
            fs_step: self.fs_step,
            common: [self.ch1.c, self.ch2.c, self.ch3.c, self.ch4.c],
            env: [self.ch1.env, self.ch2.env, self.ch4.env],
            sweep: (
                s.nr10,
                s.shadow,
                s.freq,
                s.sweep_timer,
                s.sweep_enabled,
                s.negate_used,
            ),
        }
    }

    /// Bring every channel's timer up to `t`.
    fn advance_all(&mut self, t: u64) {
        self.ch1.advance(t);
        self.ch2.advance(t);
        self.ch3.advance(t);
        self.ch4.advance(t);
    }

    /// One frame-sequencer step at time `t`.
    fn frame_step(&mut self, t: u64) {
        let step = self.fs_step;
        self.fs_step = (step + 1) & 7;
        if step & 1 == 0 {
            clock_length(&mut self.ch1, t);
            clock_length(&mut self.ch2, t);
            clock_length(&mut self.ch3, t);
            clock_length(&mut self.ch4, t);
        }
        if step == 2 || step == 6 {
            self.ch1.clock_sweep(t);
        }
        if step == 7 {
            if self.ch1.c.on {
                self.ch1.env.clock();
            }
            if self.ch2.c.on {
                self.ch2.env.clock();
            }
            if self.ch4.c.on {
                self.ch4.env.clock();
            }
        }
    }

    /// Catch up to `now`; `counter` is the system counter at `now`.
    #[inline(never)]
    fn catch_up(
        &mut self,
        now: u64,
        counter: u16,
        reference: bool,
        mut out: Option<&mut SampleOut>,
    ) {
        if now <= self.last {
            return;
        }
        if now - self.last > BULK {
            let mid = now - BULK / 2;
            let c_mid = counter.wrapping_sub((now - mid) as u16);
            self.catch_up_fast(mid, c_mid, None, true);
            if let Some(o) = out.as_deref_mut() {
                o.start(mid);
            }
        }
        if reference {
            self.catch_up_ref(now, counter, out);
        } else {
            self.catch_up_fast(now, counter, out, true);
        }
    }

    /// System counter modulo the frame-sequencer period at `self.last`.
    #[inline]
    fn phase_at_last(&self, now: u64, counter: u16) -> u64 {
        (counter as u64).wrapping_sub(now - self.last) & (FS_PERIOD - 1)
    }

    /// `skip`: allow skipping periodic stretches (off only in a test).
    fn catch_up_fast(
        &mut self,
        now: u64,
        counter: u16,
        mut out: Option<&mut SampleOut>,
        skip: bool,
    ) {
        if self.powered {
            let mut te = self.last + (FS_PERIOD - self.phase_at_last(now, counter));
            while te <= now {
                if skip && out.is_none() && (now - te) / FS_PERIOD >= 3 * FS_CYCLE {
                    te = self.skip_cycles(te, now);
                    continue;
                }
                if let Some(o) = out.as_deref_mut() {
                    self.render_to(te - 1, o);
                }
                self.frame_step(te);
                te += FS_PERIOD;
            }
        }
        if let Some(o) = out {
            self.render_to(now, o);
        }
        self.last = now;
    }

    /// Run one full `FS_CYCLE` of edges from `te`; if the frame sequencer's
    /// state came back to where it was, it is periodic from here on (its
    /// evolution only depends on that state), so whole cycles before `now`
    /// are skipped. Returns the next edge to run. Channel timers stay
    /// correct: no period or on/off change can happen in a periodic stretch
    /// (sweep write-backs are monotonic, nothing turns a channel on).
    fn skip_cycles(&mut self, mut te: u64, now: u64) -> u64 {
        let before = self.fs_state();
        for _ in 0..FS_CYCLE {
            self.frame_step(te);
            te += FS_PERIOD;
        }
        if self.fs_state() == before && te <= now {
            let left = (now - te) / FS_PERIOD + 1;
            te += left / FS_CYCLE * FS_CYCLE * FS_PERIOD;
        }
        te
    }

    /// The reference twin of `catch_up_fast`: one T-cycle at a time.
    fn catch_up_ref(&mut self, now: u64, counter: u16, mut out: Option<&mut SampleOut>) {
        let mut phase = self.phase_at_last(now, counter);
        for t in self.last + 1..=now {
            self.ch1.step_ref(t);
            self.ch2.step_ref(t);
            self.ch3.step_ref(t);
            self.ch4.step_ref(t);
            phase = (phase + 1) & (FS_PERIOD - 1);
            if phase == 0 && self.powered {
                self.frame_step(t);
            }
            if let Some(o) = out.as_deref_mut() {
                if t == o.next_at {
                    o.emit(self.mix());
                }
            }
        }
        self.last = now;
    }

    /// Emit the samples due up to time `t`.
    fn render_to(&mut self, t: u64, out: &mut SampleOut) {
        while out.next_at <= t {
            let ts = out.next_at;
            self.advance_all(ts);
            out.emit(self.mix());
        }
    }

    /// The stereo output now (channels must be up to date).
    fn mix(&self) -> (i8, i8) {
        if !self.powered {
            return (0, 0);
        }
        let o = [
            self.ch1.output(),
            self.ch2.output(),
            self.ch3.output(),
            self.ch4.output(),
        ];
        let (mut l, mut r) = (0u8, 0u8);
        for (i, v) in o.into_iter().enumerate() {
            if self.nr51 >> (4 + i) & 1 != 0 {
                l += v;
            }
            if self.nr51 >> i & 1 != 0 {
                r += v;
            }
        }
        (l.min(127) as i8, r.min(127) as i8)
    }

    /// DMG: while the wave channel plays, the CPU reaches wave RAM only in
    /// the T-cycle in which the channel reads it, and then gets the byte the
    /// channel reads (Pan Docs, FF30-FF3F). Returns that byte's index.
    /// CGB: at any time, the byte of the sample being played (blargg
    /// cgb_sound 09-wave read while on).
    fn wave_byte_accessible(&self, now: u64) -> Option<usize> {
        let a = self.ch3.at(now);
        (self.cgb || a.last_read == now).then_some((a.pos >> 1) as usize)
    }

    fn read(&self, addr: u16, now: u64) -> u8 {
        let len = |c: &Common| 0xBF | (c.len_enable as u8) << 6;
        match addr {
            0xFF10 => 0x80 | self.ch1.nr10,
            0xFF11 => self.ch1.duty << 6 | 0x3F,
            0xFF12 => self.ch1.env.reg,
            0xFF14 => len(&self.ch1.c),
            0xFF16 => self.ch2.duty << 6 | 0x3F,
            0xFF17 => self.ch2.env.reg,
            0xFF19 => len(&self.ch2.c),
            0xFF1A => 0x7F | (self.ch3.dac as u8) << 7,
            0xFF1C => 0x9F | self.ch3.vol_code << 5,
            0xFF1E => len(&self.ch3.c),
            0xFF21 => self.ch4.env.reg,
            0xFF22 => self.ch4.nr43,
            0xFF23 => len(&self.ch4.c),
            0xFF24 => self.nr50,
            0xFF25 => self.nr51,
            0xFF26 => {
                0x70 | (self.powered as u8) << 7
                    | self.ch1.c.on as u8
                    | (self.ch2.c.on as u8) << 1
                    | (self.ch3.c.on as u8) << 2
                    | (self.ch4.c.on as u8) << 3
            }
            0xFF30..=0xFF3F => {
                if !self.ch3.c.on {
                    return self.ch3.ram[(addr & 15) as usize];
                }
                match self.wave_byte_accessible(now) {
                    Some(i) => self.ch3.ram[i],
                    None => 0xFF,
                }
            }
            // NRx3 and NR31/NR41 are write-only; unused addresses read 0xFF.
            _ => 0xFF,
        }
    }

    fn write(&mut self, addr: u16, value: u8, now: u64) {
        match addr {
            0xFF30..=0xFF3F => {
                if !self.ch3.c.on {
                    self.ch3.ram[(addr & 15) as usize] = value;
                    return;
                }
                self.ch3.advance(now);
                if let Some(i) = self.wave_byte_accessible(now) {
                    self.ch3.ram[i] = value;
                }
            }
            0xFF26 => self.write_nr52(value, now),
            // Powered off, nothing can be written on a CGB.
            _ if !self.powered && self.cgb => {}
            // Powered off, only the length counters can be written (DMG).
            _ if !self.powered => match addr {
                0xFF11 => self.ch1.c.length = 64 - (value & 63) as u16,
                0xFF16 => self.ch2.c.length = 64 - (value & 63) as u16,
                0xFF1B => self.ch3.c.length = 256 - value as u16,
                0xFF20 => self.ch4.c.length = 64 - (value & 63) as u16,
                _ => {}
            },
            0xFF10 => {
                let ch = &mut self.ch1;
                let was_negate = ch.nr10 & 8 != 0;
                ch.nr10 = value & 0x7F;
                // Leaving negate mode after a negate calculation since the
                // trigger disables the channel.
                if was_negate && value & 8 == 0 && ch.negate_used && ch.c.on {
                    ch.disable(now);
                }
            }
            0xFF11 => {
                self.ch1.duty = value >> 6;
                self.ch1.c.length = 64 - (value & 63) as u16;
            }
            0xFF16 => {
                self.ch2.duty = value >> 6;
                self.ch2.c.length = 64 - (value & 63) as u16;
            }
            0xFF12 => {
                self.ch1.env.reg = value;
                if !self.ch1.env.dac_on() && self.ch1.c.on {
                    self.ch1.disable(now);
                }
            }
            0xFF17 => {
                self.ch2.env.reg = value;
                if !self.ch2.env.dac_on() && self.ch2.c.on {
                    self.ch2.disable(now);
                }
            }
            0xFF21 => {
                self.ch4.env.reg = value;
                if !self.ch4.env.dac_on() && self.ch4.c.on {
                    self.ch4.disable(now);
                }
            }
            0xFF13 => {
                self.ch1.advance(now);
                self.ch1.freq = (self.ch1.freq & 0x700) | value as u16;
            }
            0xFF18 => {
                self.ch2.advance(now);
                self.ch2.freq = (self.ch2.freq & 0x700) | value as u16;
            }
            0xFF1D => {
                self.ch3.advance(now);
                self.ch3.freq = (self.ch3.freq & 0x700) | value as u16;
            }
            0xFF14 => write_square_nrx4(&mut self.ch1, value, self.fs_step, now, true),
            0xFF19 => write_square_nrx4(&mut self.ch2, value, self.fs_step, now, false),
            0xFF1A => {
                self.ch3.dac = value & 0x80 != 0;
                if !self.ch3.dac && self.ch3.c.on {
                    self.ch3.disable(now);
                }
            }
            0xFF1B => self.ch3.c.length = 256 - value as u16,
            0xFF1C => self.ch3.vol_code = (value >> 5) & 3,
            0xFF1E => self.write_nr34(value, now),
            0xFF20 => self.ch4.c.length = 64 - (value & 63) as u16,
            0xFF22 => {
                self.ch4.advance(now);
                self.ch4.write_nr43(value, now);
            }
            0xFF23 => {
                let fs = self.fs_step;
                let ch = &mut self.ch4;
                if write_length_enable(ch, value, fs & 1 != 0, 64, now) {
                    ch.c.on = ch.env.dac_on();
                    ch.lfsr = lfsr::MASK;
                    ch.restart_timer(now);
                    ch.env.trigger(fs == 7);
                }
            }
            0xFF24 => self.nr50 = value,
            0xFF25 => self.nr51 = value,
            _ => {}
        }
    }

    fn write_nr34(&mut self, value: u8, now: u64) {
        let fs = self.fs_step;
        let ch = &mut self.ch3;
        ch.advance(now);
        ch.freq = (ch.freq & 0xFF) | ((value & 7) as u16) << 8;
        if !write_length_enable(ch, value, fs & 1 != 0, 256, now) {
            return;
        }
        if ch.c.on && !self.cgb {
            // DMG: retriggering while the channel reads wave RAM rewrites
            // the start of wave RAM with what is being read (gbdev wiki,
            // Obscure Behavior).
            if ch.next == now + WAVE_CORRUPT_AHEAD {
                let i = (((ch.pos + 1) & 31) >> 1) as usize;
                let ram = &mut ch.ram;
                if i < 4 {
                    ram[0] = ram[i];
                } else {
                    let base = i & !3;
                    ram.copy_within(base..base + 4, 0);
                }
            }
        }
        ch.c.on = ch.dac;
        // The position restarts but the sample buffer is not reloaded: the
        // first read (of sample 1) comes a period and a little later.
        ch.pos = 0;
        ch.next = now + ch.period() + WAVE_TRIGGER_DELAY;
    }

    fn write_nr52(&mut self, value: u8, now: u64) {
        let on = value & 0x80 != 0;
        if !on && self.powered {
            self.advance_all(now);
            self.power_off();
        } else if on && !self.powered {
            self.powered = true;
            // The next frame-sequencer step is 0; duty steps and the wave
            // sample buffer restart.
            self.fs_step = 0;
            self.ch1.pos = 0;
            self.ch2.pos = 0;
            self.ch3.sample = 0;
        }
    }

    /// Power off: every register from NR10 to NR51 reads as if written with
    /// 0, every channel stops; on the DMG the length counters survive.
    fn power_off(&mut self) {
        self.powered = false;
        let lengths = [
            self.ch1.c.length,
            self.ch2.c.length,
            self.ch3.c.length,
            self.ch4.c.length,
        ];
        let keep1 = (self.ch1.pos, self.ch1.next);
        let keep2 = (self.ch2.pos, self.ch2.next);
        self.ch1 = Square {
            pos: keep1.0,
            next: keep1.1,
            ..Square::default()
        };
        self.ch2 = Square {
            pos: keep2.0,
            next: keep2.1,
            ..Square::default()
        };
        let ch3 = &mut self.ch3;
        ch3.c = Common::default();
        ch3.dac = false;
        ch3.vol_code = 0;
        ch3.freq = 0;
        let ch4 = &mut self.ch4;
        ch4.c = Common::default();
        ch4.env = Envelope::default();
        ch4.nr43 = 0;
        self.nr50 = 0;
        self.nr51 = 0;
        if self.cgb {
            // A CGB clears the length counters too (blargg cgb_sound
            // 08-len ctr during power, 11-regs after power).
            return;
        }
        self.ch1.c.length = lengths[0];
        self.ch2.c.length = lengths[1];
        self.ch3.c.length = lengths[2];
        self.ch4.c.length = lengths[3];
    }
}

impl Apu {
    /// The state the DMG boot ROM leaves (channel 1 still on after the
    /// chime, its envelope run down).
    pub fn post_boot() -> Apu {
        let mut c = Chip::new();
        c.powered = true;
        c.nr50 = 0x77;
        c.nr51 = 0xF3;
        let ch1 = &mut c.ch1;
        ch1.duty = 2;
        ch1.env.reg = 0xF3;
        ch1.env.timer = 3;
        ch1.freq = 0x7C1;
        ch1.shadow = 0x7C1;
        ch1.sweep_timer = 8;
        ch1.c = Common {
            on: true,
            length: 64,
            len_enable: false,
        };
        ch1.next = ch1.period();
        c.ch4.lfsr = lfsr::MASK;
        Apu {
            chip: c,
            out: SampleOut::default(),
            reference: false,
        }
    }

    /// Power-on state (before a boot ROM runs): everything off and zero.
    pub fn power_on() -> Apu {
        Apu {
            chip: Chip::new(),
            out: SampleOut::default(),
            reference: false,
        }
    }

    /// Bring the APU up to `now`; `counter` is the system counter at `now`
    /// (the frame sequencer steps on its bit 12 falling edges).
    #[inline]
    pub fn catch_up(&mut self, now: u64, counter: u16) {
        if now > self.chip.last {
            let out = if self.out.rate != 0 {
                Some(&mut self.out)
            } else {
                None
            };
            self.chip.catch_up(now, counter, self.reference, out);
        }
    }

    /// DIV is reset at `now` (a DIV write or STOP); `counter` is the system
    /// counter just before. Catches up, then a falling edge of bit 12 steps
    /// the frame sequencer.
    #[inline(never)]
    pub fn div_reset(&mut self, now: u64, counter: u16) {
        self.catch_up(now, counter);
        if self.chip.powered && counter & 0x1000 != 0 {
            self.chip.frame_step(now);
        }
    }

    /// Catch up with the reference twin (one T-cycle at a time) from now on.
    /// The machine's reference switch is `Hardware::set_reference`, which
    /// calls this; only the APU's own tests call it directly.
    pub(crate) fn set_reference(&mut self, on: bool) {
        self.reference = on;
    }

    /// Register read at `now` as the CPU would see it. Normally the APU has
    /// been caught up; otherwise (a debugger peek) only NR52 and wave RAM can
    /// have changed since, and a copy is caught up to read them.
    #[inline(never)]
    pub fn read(&self, addr: u16, now: u64, counter: u16) -> u8 {
        if now > self.chip.last && (addr == 0xFF26 || addr >= 0xFF30) {
            let mut c = self.chip.clone();
            c.catch_up(now, counter, false, None);
            return c.read(addr, now);
        }
        self.chip.read(addr, now)
    }

    /// Follow a CGB's APU rules (wave RAM access while channel 3 plays, no
    /// wave RAM corruption on a retrigger, power-off clearing the length
    /// counters and refusing every write).
    pub(crate) fn make_cgb(&mut self) {
        self.chip.cgb = true;
    }

    /// PCM12 (`high` false: channels 1 and 2, the first in the low nibble)
    /// or PCM34 at `now`, a CGB register: the channels' digital outputs
    /// (0-15 each). The APU has been caught up to `now`.
    pub fn pcm(&self, high: bool, now: u64) -> u8 {
        if !self.chip.powered {
            return 0;
        }
        let mut c = self.chip.clone();
        c.advance_all(now);
        if high {
            c.ch3.output() | c.ch4.output() << 4
        } else {
            c.ch1.output() | c.ch2.output() << 4
        }
    }

    /// Register write at `now`; the APU has been caught up to `now`.
    #[inline(never)]
    pub fn write(&mut self, addr: u16, value: u8, now: u64) {
        self.chip.write(addr, value, now);
    }

    /// Sample output is on.
    #[inline]
    pub fn sound_on(&self) -> bool {
        self.out.rate != 0
    }

    pub fn sample_rate(&self) -> Option<u32> {
        (self.out.rate != 0).then_some(self.out.rate)
    }

    /// Turn sample output on at `rate` Hz (8000..=192000) or off. The APU
    /// should be caught up first: samples start after its current time.
    pub fn set_sample_rate(&mut self, rate: Option<u32>) -> Result<()> {
        match rate {
            None => {
                self.out = SampleOut::default();
            }
            Some(r) if SAMPLE_RATES.contains(&r) => {
                self.out.rate = r;
                self.out.buf.clear();
                self.out.start(self.chip.last);
            }
            Some(r) => {
                return Err(Error::InvalidArgument(format!(
                    "sound sample rate must be in {}..={} Hz, got {r}",
                    SAMPLE_RATES.start(),
                    SAMPLE_RATES.end()
                )))
            }
        }
        Ok(())
    }

    /// Interleaved L, R samples produced since the last `clear_samples`.
    pub fn samples(&self) -> &[i8] {
        &self.out.buf
    }

    pub fn clear_samples(&mut self) {
        self.out.buf.clear();
    }
}

// ---- State import (`crate::pyboy::state`) ----------------------------------

/// One channel of an APU state imported from another emulator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ChannelImport {
    /// Playing (its NR52 bit).
    pub on: bool,
    /// Length counter (steps left) and NRx4 bit 6.
    pub length: u16,
    pub len_enable: bool,
    /// Square and noise channels: the current volume and the envelope
    /// timer (frame-sequencer envelope steps to the next volume change).
    pub volume: u8,
    pub env_timer: u8,
    /// Square: duty step 0..=7; wave: sample index 0..=31.
    pub pos: u8,
    /// T-cycles to the next frequency-timer expiry (0: a whole period).
    pub timer_left: u64,
}

/// An APU state imported from another emulator's save state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ApuImport {
    pub powered: bool,
    /// NR10..=NR51 (0xFF10..=0xFF25) with their write-only bits (NRx3, the
    /// period bits of NRx4); NRx4's trigger bit is ignored.
    pub regs: [u8; 0x16],
    pub wave_ram: [u8; 16],
    /// The frame-sequencer step the next edge runs (0..=7).
    pub fs_step: u8,
    pub channels: [ChannelImport; 4],
    /// Channel 1's sweep: shadow frequency, timer, enabled, negate used.
    pub sweep: (u16, u8, bool, bool),
    pub lfsr: u16,
}

impl Apu {
    /// Replace the APU's state with `s` at time `now` (registers set as
    /// written, without their side effects; channel timers from now).
    /// Sample output keeps its rate and restarts at `now`.
    pub(crate) fn import(&mut self, now: u64, s: &ApuImport) {
        let mut c = Chip::new();
        c.last = now;
        c.powered = s.powered;
        c.fs_step = s.fs_step & 7;
        c.ch3.ram = s.wave_ram;
        let r = |a: u16| s.regs[(a - 0xFF10) as usize];
        let freq = |lo: u16, hi: u16| r(lo) as u16 | ((r(hi) & 7) as u16) << 8;
        if s.powered {
            c.ch1.nr10 = r(0xFF10) & 0x7F;
            c.ch1.duty = r(0xFF11) >> 6;
            c.ch1.env.reg = r(0xFF12);
            c.ch1.freq = freq(0xFF13, 0xFF14);
            c.ch2.duty = r(0xFF16) >> 6;
            c.ch2.env.reg = r(0xFF17);
            c.ch2.freq = freq(0xFF18, 0xFF19);
            c.ch3.dac = r(0xFF1A) & 0x80 != 0;
            c.ch3.vol_code = (r(0xFF1C) >> 5) & 3;
            c.ch3.freq = freq(0xFF1D, 0xFF1E);
            c.ch4.env.reg = r(0xFF21);
            c.ch4.nr43 = r(0xFF22);
            c.nr50 = r(0xFF24);
            c.nr51 = r(0xFF25);
        }
        let common = |i: usize| {
            let ch = &s.channels[i];
            Common {
                on: ch.on && s.powered,
                length: ch.length,
                len_enable: ch.len_enable,
            }
        };
        let next = |left: u64, period: u64| now + if left == 0 { period } else { left };
        for (i, sq) in [&mut c.ch1, &mut c.ch2].into_iter().enumerate() {
            let ch = &s.channels[i];
            sq.c = common(i);
            sq.env.volume = ch.volume & 15;
            sq.env.timer = ch.env_timer;
            sq.pos = ch.pos & 7;
            sq.next = next(ch.timer_left, sq.period());
        }
        let (shadow, timer, enabled, negate) = s.sweep;
        c.ch1.shadow = shadow & 0x7FF;
        c.ch1.sweep_timer = timer;
        c.ch1.sweep_enabled = enabled;
        c.ch1.negate_used = negate;
        let w = &s.channels[2];
        c.ch3.c = common(2);
        c.ch3.pos = w.pos & 31;
        let b = c.ch3.ram[((c.ch3.pos >> 1) & 15) as usize];
        c.ch3.sample = if c.ch3.pos & 1 == 0 { b >> 4 } else { b & 15 };
        c.ch3.next = next(w.timer_left, c.ch3.period());
        let n = &s.channels[3];
        c.ch4.c = common(3);
        c.ch4.env.volume = n.volume & 15;
        c.ch4.env.timer = n.env_timer;
        c.ch4.lfsr = s.lfsr & lfsr::MASK;
        c.ch4.next = match c.ch4.period() {
            Some(p) => next(n.timer_left, p),
            None => u64::MAX,
        };
        c.cgb = self.chip.cgb;
        self.chip = c;
        if self.out.rate != 0 {
            self.out.buf.clear();
            self.out.start(now);
        }
    }
}

#[cfg(test)]
mod tests;
