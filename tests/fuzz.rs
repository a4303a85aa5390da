//! Random bytes as ROMs and as save states: only typed errors, never a panic
//! or a hang (every run is bounded in frames).
use emurust::{Error, GameBoy};

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

const TYPES: [u8; 12] = [
    0x00, 0x01, 0x02, 0x03, 0x05, 0x06, 0x0F, 0x10, 0x13, 0x19, 0x1B, 0x1E,
];

#[test]
fn random_roms_run_without_panicking() {
    let mut rng = Lcg(0xE4D5);
    let mut loaded = 0;
    for i in 0..300 {
        let size = [0x150usize, 0x4000, 0x8000, 0x10000, 0x9000][i % 5];
        let mut rom = rng.bytes(size);
        if i % 3 != 0 {
            // A plausible header so most ROMs load and execute random code.
            rom[0x147] = TYPES[rng.next() as usize % TYPES.len()];
            rom[0x148] = (rng.next() % 4) as u8;
            rom[0x149] = (rng.next() % 6) as u8;
        }
        match GameBoy::new(&rom, None) {
            Ok(mut gb) => {
                loaded += 1;
                gb.run_frames(3, false);
                // Random pokes through the bus (MBC registers, I/O...).
                for _ in 0..200 {
                    gb.poke(rng.next() as u16, rng.next() as u8);
                }
                gb.run_frames(2, false);
                let state = gb.save_state();
                gb.load_state(&state).expect("own state loads");
            }
            Err(Error::InvalidRom(_) | Error::UnsupportedCartridge(_)) => {}
            Err(e) => panic!("unexpected error kind for a bad ROM: {e:?}"),
        }
    }
    assert!(
        loaded > 150,
        "only {loaded} random ROMs loaded: the fuzz does not exercise execution"
    );
}

#[test]
fn corrupted_states_are_rejected_or_load_cleanly() {
    let mut rng = Lcg(0x5EED);
    let mut rom = vec![0u8; 0x8000];
    rom[0x100..0x104].copy_from_slice(&[0x00, 0xC3, 0x00, 0x01]); // nop; jp 0x100
    let mut gb = GameBoy::new(&rom, None).unwrap();
    gb.run_frames(5, false);
    let good = gb.save_state();
    for n in [0, 1, 7, 8, 12, 20, good.len() / 2, good.len() - 1] {
        assert!(
            matches!(gb.load_state(&good[..n]), Err(Error::InvalidState(_))),
            "truncated state of {n} bytes was accepted"
        );
    }
    for _ in 0..2000 {
        let mut bad = good.clone();
        for _ in 0..1 + rng.next() % 4 {
            let i = rng.next() as usize % bad.len();
            bad[i] = rng.next() as u8;
        }
        let mut g2 = gb.clone();
        match g2.load_state(&bad) {
            Ok(()) => g2.run_frames(2, false),
            Err(Error::InvalidState(_)) => {}
            Err(e) => panic!("unexpected error kind for a bad state: {e:?}"),
        }
    }
    for _ in 0..200 {
        let n = rng.next() as usize % 20000;
        let junk = rng.bytes(n);
        assert!(gb.load_state(&junk).is_err());
    }
}
