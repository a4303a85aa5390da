//! `cargo bench`: per-frame and per-state costs of the core, with criterion.
//!
//! Every measurement starts from a state saved after `WARMUP_FRAMES` frames
//! (loaded again before each batch of iterations is timed), so boot time is
//! not measured and every sample emulates the same frames. ROMs come from the
//! folder in `EMURUST_ROMS` (default `../shared/roms`); without it the bench
//! prints why and measures nothing.
//!
//! Groups (per ROM): `frame/headless`, `frame/rendered`, `state/save_state`,
//! `state/load_state`, `state/checksum`, `vec/snapshot`, `vec/restore`,
//! `vec/step_1env_1thread` (one `VecEngine` step: 24 frames, 8 with a
//! button held, the last rendered into the grey observation).
//!
//! Quick by design (about a minute in all): small sample sizes and short
//! measurement times; pass criterion options after `--` to change them, e.g.
//! `cargo bench -- --measurement-time 5 frame/`.

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use emurust::vec::{VecConfig, VecEngine};
use emurust::GameBoy;

const WARMUP_FRAMES: u64 = 120;
/// Frames per `frame/*` iteration (one frame is a few microseconds: timing
/// runs of frames keeps timer overhead out).
const FRAMES: u64 = 60;

const ROMS: [(&str, &str); 3] = [
    ("cpu_instrs", "blargg/cpu_instrs/cpu_instrs.gb"),
    ("tobu", "homebrew/tobutobugirl/tobu.gb"),
    ("2048", "homebrew/2048/2048.gb"),
];

fn roms_dir() -> PathBuf {
    match std::env::var_os("EMURUST_ROMS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/roms"),
    }
}

/// The ROMs that are present, as (label, image); prints what is skipped.
fn load_roms() -> Vec<(&'static str, Arc<[u8]>)> {
    let dir = roms_dir();
    if !dir.is_dir() {
        println!(
            "skipped: ROM folder {} not found (set EMURUST_ROMS)",
            dir.display()
        );
        return Vec::new();
    }
    ROMS.iter()
        .filter_map(|(label, rel)| match std::fs::read(dir.join(rel)) {
            Ok(data) => Some((*label, Arc::from(data))),
            Err(e) => {
                println!("skipped {label}: cannot read {rel}: {e}");
                None
            }
        })
        .collect()
}

/// A machine after `WARMUP_FRAMES` frames, and its state.
fn warmed(rom: &Arc<[u8]>) -> (GameBoy, Vec<u8>) {
    let mut gb = GameBoy::from_shared(Arc::clone(rom), None).expect("ROM loads");
    gb.run_frames(WARMUP_FRAMES, false);
    let state = gb.save_state();
    (gb, state)
}

fn frames(c: &mut Criterion) {
    for (label, rom) in load_roms() {
        let (mut gb, start) = warmed(&rom);
        let mut group = c.benchmark_group(format!("frame/{label}"));
        group.throughput(Throughput::Elements(FRAMES));
        for (name, render) in [("headless", false), ("rendered", true)] {
            group.bench_function(name, |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        gb.load_state(&start).expect("state loads"); // not timed
                        let t = Instant::now();
                        gb.run_frames(FRAMES, black_box(render));
                        total += t.elapsed();
                    }
                    total
                })
            });
        }
        group.finish();
    }
}

fn states(c: &mut Criterion) {
    for (label, rom) in load_roms() {
        let (mut gb, state) = warmed(&rom);
        let mut group = c.benchmark_group(format!("state/{label}"));
        group.bench_function("save_state", |b| b.iter(|| black_box(gb.save_state())));
        group.bench_function("load_state", |b| {
            b.iter(|| gb.load_state(black_box(&state)).expect("state loads"))
        });
        // The share of both that the checksum sealing a state costs.
        group.bench_function("checksum", |b| {
            b.iter(|| black_box(emurust::state::checksum(black_box(&state))))
        });
        group.finish();
    }
}

fn vec_engine(c: &mut Criterion) {
    for (label, rom) in load_roms() {
        let (_, state) = warmed(&rom);
        let config = VecConfig {
            num_threads: 1,
            ram_addresses: vec![
                0xC000, 0xC0A0, 0xC100, 0xCFFF, 0xD000, 0xDF00, 0xFF80, 0xFFA0,
            ],
            initial_state: Some(state),
            ..VecConfig::default()
        };
        let mut engine = VecEngine::new(Arc::clone(&rom), 1, config).expect("engine builds");
        engine.reset();
        let mut group = c.benchmark_group(format!("vec/{label}"));
        let snap = engine.snapshot(0).expect("env 0 exists");
        group.bench_function("snapshot", |b| {
            b.iter(|| black_box(engine.snapshot(0).expect("env 0 exists")))
        });
        group.bench_function("restore", |b| {
            b.iter(|| engine.restore(0, black_box(&snap)).expect("same ROM"))
        });
        // A step is 24 frames; each one starts from the initial state again
        // (reset is not timed) so samples emulate the same frames.
        group.throughput(Throughput::Elements(1));
        group.bench_function("step_1env_1thread", |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for i in 0..iters {
                    engine.reset(); // not timed
                    let action = [(i % 8) as u8];
                    let t = Instant::now();
                    engine.step(black_box(&action)).expect("valid action");
                    total += t.elapsed();
                }
                total
            })
        });
        group.finish();
    }
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .without_plots()
}

criterion_group! {
    name = benches;
    config = config();
    targets = frames, states, vec_engine
}
criterion_main!(benches);
