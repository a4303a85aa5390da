//! Run a ROM headless for N frames and print serial output, registers and
//! timing: `cargo run --release --example runrom -- ROM [FRAMES]`.
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 2 {
        eprintln!("usage: runrom ROM [FRAMES] [--reference]");
        std::process::exit(2);
    }
    let rom = std::fs::read(&args[1]).expect("read ROM");
    let frames: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(600);
    let mut gb = emurust::GameBoy::new(&rom, None).expect("load ROM");
    if args.iter().any(|a| a == "--reference") {
        gb.set_reference_mode(true);
    }
    let t = Instant::now();
    gb.run_frames(frames, false);
    let dt = t.elapsed().as_secs_f64();
    println!("serial: {:?}", String::from_utf8_lossy(gb.serial_output()));
    println!("regs: {:?}", gb.registers());
    println!(
        "{frames} frames in {dt:.3}s = {:.0} fps, cycles {}",
        frames as f64 / dt,
        gb.cycles()
    );
}
