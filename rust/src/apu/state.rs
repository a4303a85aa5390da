//! The APU's save-state section (`impl Stateful for Apu`).

use super::channels::{Common, Envelope, Square};
use super::{lfsr, Apu, Chip};
use crate::clock::CLOCK_HZ;
use crate::error::{Error, Result};
use crate::state::{StateReader, StateWriter, Stateful};

fn save_common(w: &mut StateWriter, c: &Common) {
    w.bool(c.on);
    w.u16(c.length);
    w.bool(c.len_enable);
}

fn load_common(r: &mut StateReader, max: u16) -> Result<Common> {
    let c = Common {
        on: r.bool()?,
        length: r.u16()?,
        len_enable: r.bool()?,
    };
    check(c.length <= max, "length counter")?;
    Ok(c)
}

fn save_env(w: &mut StateWriter, e: &Envelope) {
    w.u8(e.reg);
    w.u8(e.volume);
    w.u8(e.timer);
}

fn load_env(r: &mut StateReader) -> Result<Envelope> {
    let e = Envelope {
        reg: r.u8()?,
        volume: r.u8()?,
        timer: r.u8()?,
    };
    check(e.volume <= 15 && e.timer <= 9, "envelope")?;
    Ok(e)
}

fn save_square(w: &mut StateWriter, s: &Square) {
    save_common(w, &s.c);
    w.u8(s.duty);
    save_env(w, &s.env);
    w.u16(s.freq);
    w.u8(s.pos);
    w.u64(s.next);
    w.u8(s.nr10);
    w.u16(s.shadow);
    w.u8(s.sweep_timer);
    w.bool(s.sweep_enabled);
    w.bool(s.negate_used);
}

fn load_square(r: &mut StateReader) -> Result<Square> {
    let s = Square {
        c: load_common(r, 64)?,
        duty: r.u8()?,
        env: load_env(r)?,
        freq: r.u16()?,
        pos: r.u8()?,
        next: r.u64()?,
        nr10: r.u8()?,
        shadow: r.u16()?,
        sweep_timer: r.u8()?,
        sweep_enabled: r.bool()?,
        negate_used: r.bool()?,
    };
    check(
        s.duty < 4
            && s.freq <= 0x7FF
            && s.pos < 8
            && s.nr10 < 0x80
            && s.shadow <= 0x7FF
            && s.sweep_timer <= 8,
        "square channel",
    )?;
    Ok(s)
}

fn check(ok: bool, what: &str) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidState(format!(
            "corrupted state: APU {what} out of range"
        )))
    }
}

impl Stateful for Apu {
    fn save(&self, w: &mut StateWriter) {
        let c = &self.chip;
        w.begin_section(b"APU ");
        w.u64(c.last);
        w.bool(c.powered);
        w.u8(c.fs_step);
        w.u8(c.nr50);
        w.u8(c.nr51);
        save_square(w, &c.ch1);
        save_square(w, &c.ch2);
        let ch3 = &c.ch3;
        save_common(w, &ch3.c);
        w.bool(ch3.dac);
        w.u8(ch3.vol_code);
        w.u16(ch3.freq);
        w.u8(ch3.pos);
        w.u8(ch3.sample);
        w.u64(ch3.next);
        w.u64(ch3.last_read);
        w.raw(&ch3.ram);
        let ch4 = &c.ch4;
        save_common(w, &ch4.c);
        save_env(w, &ch4.env);
        w.u8(ch4.nr43);
        w.u16(ch4.lfsr);
        w.u64(ch4.next);
        // The sample schedule, so output continues seamlessly after a load
        // into an instance with the same sample rate.
        w.u32(self.out.rate);
        w.u64(self.out.epoch);
        w.u64(self.out.index);
        w.end_section();
    }

    fn load(&mut self, r: &mut StateReader) -> Result<()> {
        r.begin_section(b"APU ")?;
        let mut c = Chip::new();
        c.last = r.u64()?;
        c.powered = r.bool()?;
        c.fs_step = r.u8()?;
        c.nr50 = r.u8()?;
        c.nr51 = r.u8()?;
        check(c.fs_step < 8, "frame sequencer step")?;
        c.ch1 = load_square(r)?;
        c.ch2 = load_square(r)?;
        let ch3 = &mut c.ch3;
        ch3.c = load_common(r, 256)?;
        ch3.dac = r.bool()?;
        ch3.vol_code = r.u8()?;
        ch3.freq = r.u16()?;
        ch3.pos = r.u8()?;
        ch3.sample = r.u8()?;
        ch3.next = r.u64()?;
        ch3.last_read = r.u64()?;
        ch3.ram.copy_from_slice(r.raw(16)?);
        check(
            ch3.vol_code < 4 && ch3.freq <= 0x7FF && ch3.pos < 32 && ch3.sample < 16,
            "wave channel",
        )?;
        let ch4 = &mut c.ch4;
        ch4.c = load_common(r, 64)?;
        ch4.env = load_env(r)?;
        ch4.nr43 = r.u8()?;
        ch4.lfsr = r.u16()?;
        ch4.next = r.u64()?;
        check(
            ch4.lfsr <= lfsr::MASK && (ch4.period().is_some() || ch4.next == u64::MAX),
            "noise channel",
        )?;
        let rate = r.u32()?;
        let epoch = r.u64()?;
        let index = r.u64()?;
        r.end_section()?;
        c.cgb = self.chip.cgb;
        self.chip = c;
        // Sample output is this instance's setting; the schedule carries
        // over only when it matches and is consistent.
        self.out.buf.clear();
        if self.out.rate != 0 {
            let last = self.chip.last;
            if rate == self.out.rate
                && index < rate as u64
                && epoch <= last.saturating_add(CLOCK_HZ)
                && last <= epoch.saturating_add(2 * CLOCK_HZ)
            {
                self.out.epoch = epoch;
                self.out.index = index;
                self.out.next_at = self.out.time_of(index);
            } else {
                self.out.start(last);
            }
        }
        Ok(())
    }
}
