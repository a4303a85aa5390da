//! Issue 41's measurements (feature `jit`): run a ROM headless for WARM
//! frames, then FRAMES more, and print what the block compiler did. Run it
//! under valgrind with FRAMES and with 0 to count the host instructions of
//! the FRAMES alone (`bench/README.md`, "Compiled ROM blocks"):
//!
//! `cargo run --release --features jit --example jitcount -- ROM WARM FRAMES [--no-jit] [--again] [--split]`
//!
//! `--again [--last N]`: the FRAMES twice from the same state (compiling
//! what they run), then N (default FRAMES) from it again, the pass timed.
//! `--state FILE` starts from a save state of the same ROM (after WARM
//! frames; the model follows the header, as `Model::auto`). `--no-jit`
//! runs the same build's interpreter alone; `--split` instead
//! counts the emulated instructions of the FRAMES by where their code lies
//! (ROM, work RAM, HRAM), from the trace (the reference path: slow);
//! `--hist` prints the 60 addresses that ran the most instructions.
//! `--repeat K` times the last pass K times from the same state.
//! Compiles are made on the emulating thread unless `--background`.
use emurust::cpu::StepKind;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: jitcount ROM WARM FRAMES [--no-jit] [--split|--hist] [--again [--last N]] [--repeat K] [--state FILE]");
        std::process::exit(2);
    }
    let rom = std::fs::read(&args[1]).expect("read ROM");
    let warm: u64 = args[2].parse().expect("WARM");
    let frames: u64 = args[3].parse().expect("FRAMES");
    let model = emurust::Model::auto(&rom);
    let mut gb = emurust::GameBoy::with_model(&rom, None, model).expect("load ROM");
    let state = args
        .iter()
        .position(|a| a == "--state")
        .map(|i| std::fs::read(&args[i + 1]).expect("read state"));
    #[cfg(feature = "jit")]
    gb.set_jit(!args.iter().any(|a| a == "--no-jit"));
    // Compiles on this thread, so that `--again` passes leave nothing to
    // compile in the timed one (`--background`: on the background thread).
    #[cfg(feature = "jit")]
    gb.set_jit_background(args.iter().any(|a| a == "--background"));
    gb.run_frames(warm, false);
    if let Some(state) = &state {
        gb.load_state(state).expect("load state");
    }
    if args.iter().any(|a| a == "--hist") {
        let mut h = std::collections::HashMap::<u16, u64>::new();
        let mut cyc = 0u64;
        for _ in 0..frames {
            gb.set_trace(0);
            gb.set_trace(40_000);
            gb.run_frame(false);
            for e in gb.trace() {
                if e.kind != StepKind::Instruction {
                    continue;
                }
                *h.entry(e.registers.pc).or_default() += 1;
                cyc += 1;
            }
        }
        let mut v: Vec<_> = h.into_iter().collect();
        v.sort_by_key(|e| std::cmp::Reverse(e.1));
        println!("instr {cyc} per frame {}", cyc / frames);
        for (pc, n) in v.iter().take(60) {
            println!("{pc:04x} {n} {:.2}%", 100.0 * *n as f64 / cyc as f64);
        }
        return;
    }
    if args.iter().any(|a| a == "--split") {
        // One frame is at most 17,556 M-cycles: the ring holds all its steps.
        let (mut rom_i, mut wram, mut hram, mut other) = (0u64, 0u64, 0u64, 0u64);
        for _ in 0..frames {
            // A fresh ring each frame.
            gb.set_trace(0);
            gb.set_trace(20_000);
            gb.run_frame(false);
            for e in gb.trace() {
                if e.kind != StepKind::Instruction {
                    continue;
                }
                match e.registers.pc {
                    0x0000..=0x7FFF => rom_i += 1,
                    0xC000..=0xFDFF => wram += 1,
                    0xFF80..=0xFFFE => hram += 1,
                    _ => other += 1,
                }
            }
        }
        let all = (rom_i + wram + hram + other).max(1) as f64;
        println!(
            "emulated instructions in {frames} frames: {} (ROM {rom_i} {:.1}%, work RAM {wram} {:.1}%, HRAM {hram} {:.1}%, other {other})",
            rom_i + wram + hram + other,
            100.0 * rom_i as f64 / all,
            100.0 * wram as f64 / all,
            100.0 * hram as f64 / all,
        );
        return;
    }
    if args.iter().any(|a| a == "--again") {
        // The FRAMES to compile their blocks, then again from the same
        // state: the last pass runs on code compiled before.
        let state = gb.save_state();
        // Twice: code in work RAM compiled on the first pass may meet other
        // bytes at the same addresses on the second (a test ROM's
        // sub-tests), which it then compiles too.
        for _ in 0..2 {
            gb.run_frames(frames, false);
            gb.load_state(&state).expect("load state");
        }
        #[cfg(feature = "jit")]
        gb.set_jit(!args.iter().any(|a| a == "--no-jit"));
    }
    // `--last N`: the last pass runs N frames (with `--again`, counted
    // with N and with 0 under valgrind, the difference is N frames on code
    // compiled before, exactly).
    let frames = args
        .iter()
        .position(|a| a == "--last")
        .map_or(frames, |i| args[i + 1].parse().expect("--last N"));
    // `--repeat K`: the last pass K times, each from the same state (a
    // longer timed stretch of code compiled before; FRAMES * K counted).
    let repeat = args
        .iter()
        .position(|a| a == "--repeat")
        .map_or(1, |i| args[i + 1].parse::<u64>().expect("--repeat K"));
    let start = gb.save_state();
    let t = std::time::Instant::now();
    for k in 0..repeat {
        if k > 0 {
            gb.load_state(&start).expect("load state");
        }
        gb.run_frames(frames, false);
    }
    let secs = t.elapsed().as_secs_f64();
    let frames = frames * repeat;
    println!("cycles {} regs {:?}", gb.cycles(), gb.registers());
    println!(
        "last pass: {frames} frames in {secs:.4} s ({:.0} frames/s)",
        frames as f64 / secs
    );
    #[cfg(feature = "jit")]
    if let Some(s) = gb.jit_stats() {
        println!("{s:?}");
    }
}
