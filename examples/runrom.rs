//! Run a ROM headless for N frames and print serial output, registers, the
//! Blargg $A000 result block and timing:
//! `cargo run --release --example runrom -- ROM [FRAMES] [--reference] [--render]`
//! (`--render` draws every frame).
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 2 {
        eprintln!("usage: runrom ROM [FRAMES] [--reference] [--render]");
        std::process::exit(2);
    }
    let rom = std::fs::read(&args[1]).expect("read ROM");
    let frames: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(600);
    let mut gb = emurust::GameBoy::new(&rom, None).expect("load ROM");
    for w in gb.warnings() {
        eprintln!("warning: {w}");
    }
    if args.iter().any(|a| a == "--reference") {
        gb.set_reference_mode(true);
    }
    let render = args.iter().any(|a| a == "--render");
    let t = Instant::now();
    for _ in 0..frames {
        gb.run_frame(render);
    }
    let dt = t.elapsed().as_secs_f64();
    println!("serial: {:?}", String::from_utf8_lossy(gb.serial_output()));
    let block: Vec<u8> = (0xA000..0xA100u16).map(|a| gb.peek(a)).collect();
    let text_end = block[4..].iter().position(|&b| b == 0).unwrap_or(0) + 4;
    println!(
        "$A000: status {:02X} sig {:02X?} text {:?}",
        block[0],
        &block[1..4],
        String::from_utf8_lossy(&block[4..text_end])
    );
    println!("regs: {:?}", gb.registers());
    println!(
        "{frames} frames in {dt:.3}s = {:.0} fps, cycles {}",
        frames as f64 / dt,
        gb.cycles()
    );
}
