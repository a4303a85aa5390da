//! Issue 41's prototype (feature `jit`): ROM runs compiled to host code
//! must be indistinguishable from the interpreter. Each ROM runs side by
//! side on three machines: the fast path with compiled blocks (where the
//! compiler takes the code), the fast path on the interpreter alone
//! (`GameBoy::set_jit(false)`), and the reference path (every component
//! stepped every M-cycle, never a block). At every frame:
//!
//! * blocks against the fast interpreter: the rendered frame and the whole
//!   save state, byte for byte (both catch their components up lazily the
//!   same way);
//! * blocks against the reference path: the rendered frame and what the
//!   reference path tests compare (registers, cycles, RAM, VRAM, OAM, I/O,
//!   serial output). Their save states differ even without blocks (the
//!   fast path's lazily caught-up components hold other internal values).
//!
//! and the blocks must actually have run. What it covers: Blargg's
//! cpu_instrs to its end (its ROM code; much of the suite runs from work
//! RAM, which the interpreter runs) and Tobu Tobu Girl with scripted input.
//! Every other suite run with `EMURUST_JIT_HOT=32 cargo test --features jit`
//! runs its fast path on blocks too (with the default threshold, 65,536
//! looks, little of a suite's code gets hot; these tests set 32 themselves).
//! CI (scripts/test.sh) runs `cargo test --features jit`: these tests and
//! every suite at the default threshold, with the test profile's debug
//! assertions (Cranelift's checks of how the IR is built among them).
#![cfg(feature = "jit")]

mod common;

use emurust::{Button, GameBoy, Model};

fn script(frame: u64, gb: &mut GameBoy) {
    if frame % 7 == 0 {
        let b = Button::ALL[((frame / 7) * 5 % 8) as usize];
        gb.press_for(b, 3);
    }
}

fn agree(rel: &str, frames: u64, input: bool) -> Option<GameBoy> {
    let rom = common::load(rel)?;
    // The model the header asks for (µCity: a Game Boy Color).
    let jit = common::three_paths::agree(rel, &rom, frames, |f, gb| {
        if input {
            script(f, gb)
        }
    });
    let stats = jit.jit_stats().expect("the JIT is on (EMURUST_JIT unset)");
    assert!(
        stats.compiled > 50,
        "{rel}: too few blocks compiled: {stats:?}"
    );
    Some(jit)
}

#[test]
fn cpu_instrs_on_compiled_blocks_matches_the_interpreter() {
    if let Some(gb) = agree("blargg/cpu_instrs/cpu_instrs.gb", 3300, false) {
        let out = String::from_utf8_lossy(gb.serial_output());
        assert!(out.contains("Passed all tests"), "{out}");
    }
}

#[test]
fn tobu_tobu_girl_on_compiled_blocks_matches_the_interpreter() {
    if let Some(gb) = agree("homebrew/tobutobugirl/tobu.gb", 3000, true) {
        // Runs entered inside another entry's region ran (`jit::Block::index`).
        let stats = gb.jit_stats().expect("the JIT is on");
        assert!(stats.shared > 20, "{stats:?}");
    }
}

#[test]
fn ucity_cgb_on_compiled_blocks_matches_the_interpreter() {
    // Double speed, ROM banks, and work RAM banks 2-7 at 0xD000, which the
    // blocks reach through the bus (`JitCtx::wram_len`).
    agree("homebrew/ucity/ucity.gbc", 1500, true);
}

/// 10,000 frames of every game in `homebrew/` with scripted input, blocks
/// against the fast interpreter: the whole save state after every frame;
/// half-way, each machine loads the other's state.
#[test]
fn homebrew_rollouts_on_compiled_blocks_match_the_interpreter() {
    let Ok(entries) = std::fs::read_dir(common::roms_dir().join("homebrew")) else {
        common::missing("ROM folder homebrew", "cannot be read");
        return;
    };
    let mut dirs: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    let mut games = Vec::new();
    for dir in dirs {
        for ext in [".gb", ".gbc"] {
            games.extend(common::load_folder(&format!("homebrew/{dir}"), ext).unwrap_or_default());
        }
    }
    assert!(games.len() >= 5, "{} games", games.len());
    for (name, rom) in games {
        let new = || GameBoy::with_model(&rom, None, Model::auto(&rom)).unwrap();
        let (mut jit, mut interp) = (new(), new());
        interp.set_jit(false);
        // Compiled on the background thread while the interpreter runs the
        // code (the default).
        jit.set_jit_background(true);
        jit.set_jit_hot(common::three_paths::TEST_HOT);
        for f in 0..10_000 {
            if f == 5_000 {
                // A state saved on one path loads on the other and both go
                // on alike (checked below).
                let (a, b) = (jit.save_state(), interp.save_state());
                jit.load_state(&b).unwrap();
                interp.load_state(&a).unwrap();
            }
            for gb in [&mut jit, &mut interp] {
                script(f, gb);
                gb.run_frame(f % 64 == 0);
            }
            if jit.save_state() != interp.save_state() {
                panic!(
                    "{name}: blocks and the interpreter differ after frame {f}:\n jit    {:?} @{}\n interp {:?} @{}",
                    jit.registers(),
                    jit.cycles(),
                    interp.registers(),
                    interp.cycles()
                );
            }
            if f % 64 == 0 {
                assert!(
                    jit.screen().shades()[..] == interp.screen().shades()[..],
                    "{name}: frames differ at frame {f}"
                );
            }
        }
        let stats = jit.jit_stats().expect("the JIT is on");
        eprintln!("{name}: {stats:?}");
        assert!(stats.compiled > 20, "{name}: too few blocks: {stats:?}");
        // Runs entered inside another entry's region (a function's entry
        // index other than 0: `jit::Block::index`) ran in every game.
        assert!(
            stats.shared > 0,
            "{name}: no run entered in another's region: {stats:?}"
        );
        assert!(
            stats.background > 0,
            "{name}: nothing compiled in the background: {stats:?}"
        );
    }
}

/// The default threshold (`emurust::jit::HOT`, 65,536 looks, which the
/// other tests lower to `TEST_HOT`): cpu_instrs to its end compiles its hot
/// code (each test's loops, copied to work RAM: every new version of the
/// code there gets hot again) and leaves the rest to the interpreter, and
/// the machine matches the interpreter's, frame by frame.
#[test]
fn default_threshold_compiles_hot_code_only() {
    let Some(rom) = common::load("blargg/cpu_instrs/cpu_instrs.gb") else {
        return;
    };
    let new = || GameBoy::with_model(&rom, None, Model::auto(&rom)).unwrap();
    let (mut jit, mut interp) = (new(), new());
    interp.set_jit(false);
    jit.set_jit_background(false);
    // The default, whatever EMURUST_JIT_HOT says.
    jit.set_jit_hot(emurust::jit::HOT);
    for f in 0..3300 {
        jit.run_frame(false);
        interp.run_frame(false);
        assert!(
            jit.save_state() == interp.save_state(),
            "blocks and the interpreter differ after frame {f}"
        );
    }
    let out = String::from_utf8_lossy(jit.serial_output());
    assert!(out.contains("Passed all tests"), "{out}");
    let stats = jit.jit_stats().expect("the JIT is on");
    eprintln!("default threshold: {stats:?}");
    // With 32 looks the same run compiles 524 functions (the first test
    // of this file); with 65,536, only what ran that often.
    assert!(stats.compiled > 10, "hot code not compiled: {stats:?}");
    assert!(stats.compiled < 400, "cold code compiled: {stats:?}");
}
