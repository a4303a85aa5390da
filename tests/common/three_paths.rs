//! Feature `jit`: a ROM run side by side on compiled blocks, the fast
//! interpreter (`GameBoy::set_jit(false)`) and the reference path, compared
//! at every frame (`tests/jit.rs`, `tests/jit_targeted.rs`,
//! `tests/jit_events.rs`).

use emurust::{GameBoy, Model};

/// One of our own test programs' ROMs, `tests/data/NAME`.
pub fn data(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The little-endian word at `addr` (the programs' records).
pub fn peek16(gb: &GameBoy, addr: u16) -> u16 {
    gb.peek(addr) as u16 | (gb.peek(addr + 1) as u16) << 8
}

/// What the reference path is compared on: registers, clock, the RAM
/// block, VRAM, OAM, I/O and IE, serial output. (Save states differ even
/// without blocks: the fast path's lazily caught-up components hold other
/// internal values.)
pub fn observable(gb: &GameBoy) -> (emurust::Registers, u64, Vec<u8>, Vec<u8>) {
    let hw = gb.hardware();
    let mut mem = gb.ram().to_vec();
    mem.extend_from_slice(&hw.ppu.vram()[..]);
    mem.extend_from_slice(hw.ppu.oam());
    mem.extend((0xFF00..=0xFF7Fu16).map(|a| gb.peek(a)));
    mem.push(gb.peek(0xFFFF));
    (
        gb.registers(),
        gb.cycles(),
        mem,
        gb.serial_output().to_vec(),
    )
}

/// Looks before code is compiled in the tests (`GameBoy::set_jit_hot`).
pub const TEST_HOT: u32 = 32;

/// Run `rom` (the model its header asks for) for `frames` frames on the
/// three machines, `input(frame, machine)` before each frame, and compare
/// after every frame: the rendered frames, the whole save state of blocks
/// and interpreter, the observable state of blocks and reference. Returns
/// the machine on blocks.
pub fn agree(
    label: &str,
    rom: &[u8],
    frames: u64,
    mut input: impl FnMut(u64, &mut GameBoy),
) -> GameBoy {
    let new = || GameBoy::with_model(rom, None, Model::auto(rom)).unwrap();
    let mut jit = new();
    // Blocks compiled where the engine first wants them (the tests look for
    // them at given places), not on the background thread.
    jit.set_jit_background(false);
    // Code compiled after 32 looks (the default waits much longer, see
    // `emurust::jit::HOT`): a short run covers much compiled code.
    jit.set_jit_hot(TEST_HOT);
    let mut interp = new();
    interp.set_jit(false);
    let mut reference = new();
    reference.set_reference_mode(true);
    for f in 0..frames {
        for gb in [&mut jit, &mut interp, &mut reference] {
            input(f, gb);
            gb.run_frame(true);
        }
        let shades = jit.screen().shades();
        assert!(
            shades[..] == interp.screen().shades()[..]
                && shades[..] == reference.screen().shades()[..],
            "{label}: frames differ at frame {f}"
        );
        if jit.save_state() != interp.save_state() {
            panic!(
                "{label}: blocks and the interpreter differ after frame {f}:\n jit    {:?} @{}\n interp {:?} @{}",
                jit.registers(),
                jit.cycles(),
                interp.registers(),
                interp.cycles()
            );
        }
        let (a, b) = (observable(&jit), observable(&reference));
        if a != b {
            let first = a.2.iter().zip(&b.2).position(|(x, y)| x != y);
            panic!(
                "{label}: blocks and the reference path differ after frame {f}:\n jit {:?} @{}\n ref {:?} @{}\n first differing byte: {first:?}",
                a.0, a.1, b.0, b.1
            );
        }
    }
    let stats = jit.jit_stats().expect("the JIT is on (EMURUST_JIT unset)");
    eprintln!("{label}: {stats:?}");
    jit
}
