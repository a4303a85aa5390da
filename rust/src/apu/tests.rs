use super::*;
use crate::state::{StateReader, StateWriter, Stateful};

struct Rng(u32);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }
    fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }
}

/// A register write biased towards keeping channels busy.
fn random_write(rng: &mut Rng) -> (u16, u8) {
    let addr = match rng.below(10) {
        0 => 0xFF26,
        1 | 2 => [0xFF14, 0xFF19, 0xFF1E, 0xFF23][rng.below(4) as usize],
        3 => 0xFF30 + rng.below(16) as u16,
        _ => 0xFF10 + rng.below(0x17) as u16,
    };
    let mut v = rng.next() as u8;
    match addr {
        // Mostly keep the APU powered.
        0xFF26 => v = if rng.below(8) == 0 { 0 } else { 0x80 },
        // Mostly keep DACs on.
        0xFF12 | 0xFF17 | 0xFF21 if rng.below(4) != 0 => v |= 0x08,
        0xFF1A if rng.below(4) != 0 => v |= 0x80,
        // High frequencies sometimes, to exercise many timer periods.
        0xFF14 | 0xFF19 | 0xFF1E if rng.below(2) == 0 => v |= 0x07,
        _ => {}
    }
    (addr, v)
}

fn synced(a: &Apu, now: u64) -> Chip {
    let mut c = a.chip.clone();
    c.advance_all(now);
    c
}

/// The lazy fast path (closed-form timers, frame-sequencer edges from the
/// counter, LFSR jumps) and the one-T-cycle reference twin agree on every
/// read, on the whole state and on every output sample, over random
/// register writes, DIV resets, power cycles and gaps.
#[test]
fn lazy_matches_reference() {
    for seed in 1..=30u32 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9) | 1);
        let mut fast = if seed % 2 == 0 {
            Apu::post_boot()
        } else {
            Apu::power_on()
        };
        fast.set_sample_rate(Some(8000 + rng.below(90_000)))
            .unwrap();
        let mut slow = fast.clone();
        slow.set_reference(true);
        // System counter = t + offset.
        let mut offset = rng.next() as u64;
        let mut now = 0u64;
        for step in 0..1500 {
            now += match rng.below(10) {
                0 => rng.below(40_000) as u64,
                1 => 1 + rng.below(3) as u64,
                _ => 4 * (1 + rng.below(40) as u64),
            };
            let counter = now.wrapping_add(offset) as u16;
            let ctx = format!("seed {seed} step {step} t={now}");
            match rng.below(12) {
                0 => {
                    // A debugger peek before catching up.
                    let addr = 0xFF10 + rng.below(0x30) as u16;
                    slow.catch_up(now, counter);
                    assert_eq!(
                        fast.read(addr, now, counter),
                        slow.read(addr, now, counter),
                        "peek {addr:04X} {ctx}"
                    );
                    continue;
                }
                1 => {
                    fast.div_reset(now, counter);
                    slow.div_reset(now, counter);
                    offset = 0u64.wrapping_sub(now);
                }
                2..=4 => {
                    fast.catch_up(now, counter);
                    slow.catch_up(now, counter);
                    let addr = 0xFF10 + rng.below(0x30) as u16;
                    assert_eq!(
                        fast.read(addr, now, counter),
                        slow.read(addr, now, counter),
                        "read {addr:04X} {ctx}"
                    );
                }
                _ => {
                    fast.catch_up(now, counter);
                    slow.catch_up(now, counter);
                    let (addr, v) = random_write(&mut rng);
                    fast.write(addr, v, now);
                    slow.write(addr, v, now);
                }
            }
            assert_eq!(synced(&fast, now), slow.chip, "state {ctx}");
            assert_eq!(fast.samples(), slow.samples(), "samples {ctx}");
            if fast.samples().len() > 10_000 {
                fast.clear_samples();
                slow.clear_samples();
            }
        }
    }
}

/// Skipping whole periodic frame-sequencer cycles over a long gap gives
/// exactly what running every edge gives.
#[test]
fn periodic_skip_is_exact() {
    let setups: [&[(u16, u8)]; 3] = [
        // Sweep down from 2047 by 1/128 every 7 sweep clocks, envelope up
        // every 7 steps, long wave length, 7-bit noise.
        &[
            (0xFF10, 0x7F),
            (0xFF12, 0x0F),
            (0xFF13, 0xFF),
            (0xFF14, 0x87),
            (0xFF17, 0xF7),
            (0xFF19, 0x86),
            (0xFF1A, 0x80),
            (0xFF1B, 0x00),
            (0xFF1E, 0xC7),
            (0xFF21, 0x1F),
            (0xFF22, 0x29),
            (0xFF23, 0x80),
        ],
        // Sweep up that overflows late.
        &[
            (0xFF10, 0x77),
            (0xFF12, 0x08),
            (0xFF13, 0x80),
            (0xFF14, 0x80),
        ],
        // Stopped noise clock, envelopes at their bounds.
        &[(0xFF21, 0xF9), (0xFF22, 0xF0), (0xFF23, 0x80)],
    ];
    for (i, setup) in setups.iter().enumerate() {
        let mut a = Apu::post_boot();
        for &(addr, v) in setup.iter() {
            a.write(addr, v, 0);
        }
        let mut b = a.clone();
        let now = 47_000 * FS_PERIOD + 1234;
        let counter = now as u16;
        a.chip.catch_up_fast(now, counter, None, true);
        b.chip.catch_up_fast(now, counter, None, false);
        assert_eq!(synced(&a, now), synced(&b, now), "setup {i}");
        // A huge gap stays fast.
        let far = now + (1 << 40);
        a.catch_up(far, far as u16);
        assert!(a.chip.last == far);
    }
}

#[test]
fn div_reset_with_bit_12_set_clocks_the_frame_sequencer() {
    let mut a = Apu::power_on();
    a.write(0xFF26, 0x80, 0);
    // Length 1, enabled: the next length clock turns channel 2 off.
    a.write(0xFF17, 0x08, 0);
    a.write(0xFF16, 0x3F, 0);
    a.write(0xFF19, 0xC0, 0);
    assert_eq!(a.read(0xFF26, 0, 0) & 2, 2);
    // Counter 0x0FFC at t=4: bit 12 clear, no step.
    a.div_reset(4, 0x0FFC);
    assert_eq!(a.read(0xFF26, 4, 0) & 2, 2);
    // Counter 0x1000 later: bit 12 set, falling edge, step 0 clocks length.
    a.div_reset(4 + 0x1000, 0x1000);
    assert_eq!(a.read(0xFF26, 4 + 0x1000, 0) & 2, 0);
}

#[test]
fn save_load_roundtrip_and_bad_rates() {
    let mut a = Apu::post_boot();
    a.set_sample_rate(Some(44_100)).unwrap();
    for (addr, v) in [
        (0xFF1A, 0x80),
        (0xFF1C, 0x20),
        (0xFF1E, 0x87),
        (0xFF22, 0x13),
    ] {
        a.write(addr, v, 0);
    }
    a.catch_up(123_456, 0x1234);
    let mut w = StateWriter::new();
    a.save(&mut w);
    let bytes = w.into_bytes();
    let mut b = Apu::power_on();
    b.set_sample_rate(Some(44_100)).unwrap();
    b.load(&mut StateReader::new(&bytes)).unwrap();
    a.clear_samples();
    assert_eq!(a, b);
    a.catch_up(300_000, 0x5678);
    b.catch_up(300_000, 0x5678);
    assert_eq!(a, b);
    assert!(!a.samples().is_empty());
    for bad in [0, 7999, 192_001] {
        assert!(matches!(
            a.set_sample_rate(Some(bad)),
            Err(Error::InvalidArgument(_))
        ));
    }
    a.set_sample_rate(None).unwrap();
    assert_eq!(a.sample_rate(), None);
    // Truncated states are rejected.
    assert!(b
        .load(&mut StateReader::new(&bytes[..bytes.len() - 3]))
        .is_err());
}

/// No register write sequence panics (wrapping/underflow/indexing).
#[test]
fn random_writes_never_panic() {
    let mut rng = Rng(0xDEAD_BEEF);
    let mut a = Apu::post_boot();
    a.set_sample_rate(Some(192_000)).unwrap();
    let mut now = 0;
    for _ in 0..200_000 {
        now += rng.below(64) as u64;
        a.catch_up(now, now as u16);
        let addr = 0xFF10 + rng.below(0x30) as u16;
        a.write(addr, rng.next() as u8, now);
        a.read(addr, now, now as u16);
        if rng.below(1000) == 0 {
            a.clear_samples();
        }
    }
}
