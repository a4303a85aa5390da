//! Blargg's dmg_sound ROMs (verdict from the $A000 block) and the SameSuite
//! APU ROMs (Mooneye-style verdict in the registers).
mod common;

macro_rules! blargg {
    ($($(#[$attr:meta])* $name:ident: $path:expr, $frames:expr;)*) => {
        $( #[test] $(#[$attr])* fn $name() { common::run_blargg($path, $frames); } )*
    };
}

// Frame budgets: the singles finish within a few emulated seconds, the
// combined ROM in about 40; generous margins.
blargg! {
    dmg_sound_01_registers: "blargg/dmg_sound/rom_singles/01-registers.gb", 600;
    dmg_sound_02_len_ctr: "blargg/dmg_sound/rom_singles/02-len ctr.gb", 1200;
    dmg_sound_03_trigger: "blargg/dmg_sound/rom_singles/03-trigger.gb", 1500;
    dmg_sound_04_sweep: "blargg/dmg_sound/rom_singles/04-sweep.gb", 600;
    dmg_sound_05_sweep_details: "blargg/dmg_sound/rom_singles/05-sweep details.gb", 600;
    dmg_sound_06_overflow_on_trigger: "blargg/dmg_sound/rom_singles/06-overflow on trigger.gb", 600;
    dmg_sound_07_len_sweep_period_sync: "blargg/dmg_sound/rom_singles/07-len sweep period sync.gb", 600;
    dmg_sound_08_len_ctr_during_power: "blargg/dmg_sound/rom_singles/08-len ctr during power.gb", 600;
    dmg_sound_09_wave_read_while_on: "blargg/dmg_sound/rom_singles/09-wave read while on.gb", 600;
    dmg_sound_10_wave_trigger_while_on: "blargg/dmg_sound/rom_singles/10-wave trigger while on.gb", 600;
    dmg_sound_11_regs_after_power: "blargg/dmg_sound/rom_singles/11-regs after power.gb", 600;
    dmg_sound_12_wave_write_while_on: "blargg/dmg_sound/rom_singles/12-wave write while on.gb", 600;
    dmg_sound_combined: "blargg/dmg_sound/dmg_sound.gb", 4000;
}

#[test]
fn samesuite_channel_3_wave_ram_dac_on_rw() {
    common::run_mooneye("samesuite/apu/channel_3/channel_3_wave_ram_dac_on_rw.gb");
}

#[test]
fn samesuite_channel_3_wave_ram_locked_write() {
    common::run_mooneye("samesuite/apu/channel_3/channel_3_wave_ram_locked_write.gb");
}

/// The combined ROM passes with sample output on too, in the reference
/// path, and the fast path produces the very same samples.
#[test]
fn sample_output_fast_and_reference_agree() {
    let Some(rom) = common::load("blargg/dmg_sound/dmg_sound.gb") else {
        return;
    };
    let mut fast = emurust::GameBoy::new(&rom, None).unwrap();
    let mut slow = emurust::GameBoy::new(&rom, None).unwrap();
    slow.set_reference_mode(true);
    fast.set_sound_output(Some(48_000)).unwrap();
    slow.set_sound_output(Some(48_000)).unwrap();
    let (mut total, start) = (0usize, fast.cycles());
    for f in 0..300 {
        fast.run_frame(false);
        slow.run_frame(false);
        assert_eq!(
            fast.sound_samples(),
            slow.sound_samples(),
            "samples differ at frame {f}"
        );
        assert!(fast.sound_samples().iter().all(|&s| (0..=60).contains(&s)));
        total += fast.sound_samples().len();
    }
    assert!(total > 0);
    // One stereo sample every 4194304 / 48000 T-cycles.
    let expected = (fast.cycles() - start) * 48_000 / 4_194_304;
    assert!(
        (total as u64 / 2).abs_diff(expected) <= 1,
        "{} samples in {} T-cycles",
        total / 2,
        fast.cycles() - start
    );
}

/// A game with music: fast and reference paths give the same samples, the
/// samples are in PyBoy's range, and there is sound.
#[test]
fn game_samples_fast_and_reference_agree() {
    let Some(rom) = common::load("homebrew/tobutobugirl/tobu.gb") else {
        return;
    };
    let mut fast = emurust::GameBoy::new(&rom, None).unwrap();
    let mut slow = emurust::GameBoy::new(&rom, None).unwrap();
    slow.set_reference_mode(true);
    assert_eq!(fast.sound_sample_rate(), None);
    assert!(fast.set_sound_output(Some(7_999)).is_err());
    assert!(fast.set_sound_output(Some(192_001)).is_err());
    fast.set_sound_output(Some(24_000)).unwrap();
    slow.set_sound_output(Some(24_000)).unwrap();
    assert_eq!(fast.sound_sample_rate(), Some(24_000));
    let mut loud = 0;
    for f in 0..400u64 {
        if f % 50 == 10 {
            fast.press_for(emurust::Button::Start, 2);
            slow.press_for(emurust::Button::Start, 2);
        }
        fast.run_frame(false);
        slow.run_frame(false);
        assert_eq!(fast.sound_samples(), slow.sound_samples(), "frame {f}");
        assert!(fast.sound_samples().iter().all(|&s| (0..=60).contains(&s)));
        loud += fast.sound_samples().iter().filter(|&&s| s != 0).count();
    }
    assert!(loud > 1000, "only {loud} non-zero samples");
    fast.set_sound_output(None).unwrap();
    fast.run_frame(false);
    assert!(fast.sound_samples().is_empty());
}

/// Save, load into a fresh instance and continue: the same samples and the
/// same state as never having stopped.
#[test]
fn save_state_continuation_with_sound() {
    let Some(rom) = common::load("homebrew/tobutobugirl/tobu.gb") else {
        return;
    };
    let mut a = emurust::GameBoy::new(&rom, None).unwrap();
    a.set_sound_output(Some(48_000)).unwrap();
    for f in 0..250u64 {
        if f % 60 == 30 {
            a.press_for(emurust::Button::Start, 2);
        }
        a.run_frame(false);
    }
    let state = a.save_state();
    let mut b = emurust::GameBoy::new(&rom, None).unwrap();
    b.set_sound_output(Some(48_000)).unwrap();
    b.load_state(&state).unwrap();
    for f in 0..200 {
        a.run_frame(false);
        b.run_frame(false);
        assert_eq!(a.sound_samples(), b.sound_samples(), "frame {f}");
    }
    assert_eq!(a.save_state(), b.save_state());
    // Loading into an instance without sample output works too.
    let mut c = emurust::GameBoy::new(&rom, None).unwrap();
    c.load_state(&state).unwrap();
    c.run_frame(false);
    assert!(c.sound_samples().is_empty());
}
