//! Run a ROM on the fast and the reference path in lockstep and report the
//! first divergence (registers or cycle count at instruction boundaries).
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rom = std::fs::read(&args[1]).unwrap();
    let steps: u64 = args
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000_000);
    let mut a = emurust::GameBoy::new(&rom, None).unwrap();
    let mut b = emurust::GameBoy::new(&rom, None).unwrap();
    b.set_reference_mode(true);
    for i in 0..steps {
        a.step_instruction();
        while b.cycles() < a.cycles() {
            b.step_instruction();
        }
        if a.registers() != b.registers() || a.cycles() != b.cycles() {
            println!(
                "diverged at step {i}: fast {:?} @{} / ref {:?} @{}",
                a.registers(),
                a.cycles(),
                b.registers(),
                b.cycles()
            );
            return;
        }
    }
    println!("identical for {steps} steps");
}
