//! Time the RL step loop in Rust (no Python): one env, hold 8 of 24 frames,
//! last frame rendered, pseudo-random actions from the default table:
//! `cargo run --release --example rlloop -- ROM [STEPS] [WARMUP_FRAMES] [EPISODE]`.
//! Every EPISODE (125) steps the env is reset to the warmed-up state, as
//! `bench/compare_pyboy.py` does with its 3000 frames. For profiling.
use std::sync::Arc;
use std::time::Instant;

use emurust::vec::{VecConfig, VecEngine};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 2 {
        eprintln!("usage: rlloop ROM [STEPS] [WARMUP_FRAMES] [EPISODE]");
        std::process::exit(2);
    }
    let rom: Arc<[u8]> = std::fs::read(&args[1]).expect("read ROM").into();
    let steps: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2000);
    let warmup: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(120);
    let episode: u64 = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(125);
    let mut gb = emurust::GameBoy::from_shared(rom.clone(), None).expect("load ROM");
    gb.run_frames(warmup, false);
    let config = VecConfig {
        num_threads: 1,
        initial_state: Some(gb.save_state()),
        ram_addresses: vec![
            0xC000, 0xC0A0, 0xC100, 0xCFFF, 0xD000, 0xDF00, 0xFF80, 0xFFA0,
        ],
        ..VecConfig::default()
    };
    let mut engine = VecEngine::new(rom, 1, config).expect("engine");
    // xorshift: the same action sequence every run.
    let mut x: u32 = 1234;
    let t = Instant::now();
    for i in 0..steps {
        if i % episode == 0 {
            engine.reset();
            x = 1234;
        }
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        engine.step(&[(x % 8) as u8]).expect("step");
    }
    let dt = t.elapsed().as_secs_f64();
    println!(
        "{steps} steps in {dt:.3}s = {:.0} steps/s = {:.0} fps",
        steps as f64 / dt,
        steps as f64 * 24.0 / dt
    );
}
