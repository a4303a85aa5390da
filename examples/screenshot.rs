//! Run a ROM and write the screen as a binary PGM (greys).
//!
//! `screenshot ROM FRAMES OUT.pgm [ref]` renders the last of FRAMES frames;
//! with FRAMES = `ldbb` it runs until the CPU reaches `LD B,B` (the
//! breakpoint the acid2 and mealybug tests execute when finished), then
//! renders two more frames.
use emurust::GameBoy;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: screenshot ROM FRAMES|ldbb OUT.pgm [ref]");
        std::process::exit(2);
    }
    let rom = std::fs::read(&args[1]).expect("read ROM");
    let mut gb = GameBoy::new(&rom, None).expect("load ROM");
    if args.get(4).map(|s| s == "ref").unwrap_or(false) {
        gb.set_reference_mode(true);
    }
    if args[2] == "ldbb" {
        let limit = gb.cycles() + 70224 * 600;
        while gb.peek(gb.registers().pc) != 0x40 && gb.cycles() < limit {
            gb.step_instruction();
        }
        gb.run_frames(2, true);
    } else {
        let frames: u64 = args[2].parse().expect("FRAMES must be a number or ldbb");
        gb.run_frames(frames, true);
    }
    let mut out = b"P5\n160 144\n255\n".to_vec();
    out.extend_from_slice(gb.screen().gray());
    std::fs::write(&args[3], out).expect("write PGM");
}
