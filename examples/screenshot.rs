//! Run a ROM for N frames (rendering the last) and write the screen as a
//! binary PGM (greys): `cargo run --release --example screenshot -- ROM FRAMES OUT.pgm [ref]`.
use emurust::GameBoy;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: screenshot ROM FRAMES OUT.pgm [ref]");
        std::process::exit(2);
    }
    let rom = std::fs::read(&args[1]).expect("read ROM");
    let frames: u64 = args[2].parse().expect("FRAMES must be a number");
    let mut gb = GameBoy::new(&rom, None).expect("load ROM");
    if args.get(4).map(|s| s == "ref").unwrap_or(false) {
        gb.set_reference_mode(true);
    }
    gb.run_frames(frames, true);
    let mut out = b"P5\n160 144\n255\n".to_vec();
    out.extend_from_slice(gb.screen().gray());
    std::fs::write(&args[3], out).expect("write PGM");
}
