//! The fast path (event scheduler, lazy catch-up, HALT fast-forward) must be
//! indistinguishable from the slow reference path (every component stepped
//! every M-cycle): same registers, cycle counts, RAM, VRAM, OAM, I/O and
//! serial output at every frame, on test ROMs and games with scripted input.
mod common;

use emurust::{Button, GameBoy};

fn snapshot(gb: &GameBoy) -> (emurust::Registers, u64, Vec<u8>, Vec<u8>) {
    let hw = gb.hardware();
    let mut mem = gb.ram().to_vec();
    mem.extend_from_slice(&hw.ppu.vram()[..]);
    mem.extend_from_slice(hw.ppu.oam());
    let io: Vec<u8> = (0xFF00..=0xFF7Fu16).map(|a| gb.peek(a)).collect();
    mem.extend_from_slice(&io);
    mem.push(gb.peek(0xFFFF));
    (
        gb.registers(),
        gb.cycles(),
        mem,
        gb.serial_output().to_vec(),
    )
}

/// Deterministic input script: a different button every 7 frames, held 3.
fn script(frame: u64, gb: &mut GameBoy) {
    if frame % 7 == 0 {
        let b = Button::ALL[((frame / 7) * 5 % 8) as usize];
        gb.press_for(b, 3);
    }
}

fn compare(rel: &str, frames: u64, with_input: bool) {
    let Some(rom) = common::load(rel) else { return };
    let mut fast = GameBoy::new(&rom, None).unwrap();
    let mut slow = GameBoy::new(&rom, None).unwrap();
    slow.set_reference_mode(true);
    for f in 0..frames {
        if with_input {
            script(f, &mut fast);
            script(f, &mut slow);
        }
        fast.run_frame(false);
        slow.run_frame(false);
        let (a, b) = (snapshot(&fast), snapshot(&slow));
        if a != b {
            let (ra, ca, ma, _) = &a;
            let (rb, cb, mb, _) = &b;
            let first = ma.iter().zip(mb.iter()).position(|(x, y)| x != y);
            panic!(
                "{rel}: fast and reference paths diverge at frame {f}:\n fast {ra:?} @{ca}\n ref  {rb:?} @{cb}\n first differing state byte index: {first:?}"
            );
        }
    }
}

#[test]
fn cpu_instrs() {
    compare("blargg/cpu_instrs/cpu_instrs.gb", 400, false);
}

#[test]
fn halt_bug_and_timing_roms() {
    compare("blargg/halt_bug.gb", 120, false);
    compare("blargg/mem_timing-2/mem_timing.gb", 250, false);
    compare("mooneye/acceptance/timer/tim00_div_trigger.gb", 30, false);
    compare("mooneye/acceptance/timer/tma_write_reloading.gb", 30, false);
    compare("mooneye/acceptance/oam_dma_restart.gb", 30, false);
    compare("mooneye/acceptance/ppu/stat_irq_blocking.gb", 30, false);
    compare("mooneye/acceptance/halt_ime1_timing2-GS.gb", 30, false);
    compare(
        "mooneye/acceptance/serial/boot_sclk_align-dmgABCmgb.gb",
        30,
        false,
    );
}

#[test]
fn game_2048_with_input() {
    compare("homebrew/2048/2048.gb", 600, true);
}

#[test]
fn tobu_tobu_girl_with_input() {
    compare("homebrew/tobutobugirl/tobu.gb", 600, true);
}

#[test]
fn libbet_with_input() {
    compare("homebrew/libbet/libbet.gb", 600, true);
}

/// Saving, loading into a fresh instance and continuing gives bit-identical
/// results to never having stopped.
#[test]
fn save_state_continuation_is_identical() {
    for rel in [
        "homebrew/tobutobugirl/tobu.gb",
        "blargg/cpu_instrs/cpu_instrs.gb",
    ] {
        let Some(rom) = common::load(rel) else { return };
        let mut a = GameBoy::new(&rom, None).unwrap();
        for f in 0..300 {
            script(f, &mut a);
            a.run_frame(false);
        }
        let state = a.save_state();
        let mut b = GameBoy::new(&rom, None).unwrap();
        b.load_state(&state).unwrap();
        assert_eq!(snapshot(&a), snapshot(&b), "{rel}: state right after load");
        for f in 300..600 {
            script(f, &mut a);
            script(f, &mut b);
            a.run_frame(false);
            b.run_frame(false);
        }
        assert_eq!(snapshot(&a), snapshot(&b), "{rel}: after 300 more frames");
        assert_eq!(
            a.save_state(),
            b.save_state(),
            "{rel}: states after continuing"
        );
    }
}
