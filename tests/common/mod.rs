//! Shared helpers for the test-ROM suites. ROMs live outside the project in
//! `$EMURUST_ROMS` (default `../shared/roms`); tests skip with a printed
//! reason when they are absent.
#![allow(dead_code)]

use emurust::GameBoy;
use std::path::PathBuf;

pub fn roms_dir() -> PathBuf {
    match std::env::var_os("EMURUST_ROMS") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/roms"),
    }
}

/// Load a ROM by path relative to the ROM directory, or None (test skipped).
pub fn load(rel: &str) -> Option<Vec<u8>> {
    let p = roms_dir().join(rel);
    match std::fs::read(&p) {
        Ok(b) => Some(b),
        Err(e) => {
            eprintln!(
                "SKIPPED: test ROM {} not available ({e}); set EMURUST_ROMS",
                p.display()
            );
            None
        }
    }
}

pub const FIB: [u8; 6] = [3, 5, 8, 13, 21, 34];

/// Mooneye protocol: the test ends with `LD B,B` and B,C,D,E,H,L = 3,5,8,13,21,34
/// on success, 0x42 everywhere on failure.
pub fn mooneye_result(gb: &GameBoy) -> Option<bool> {
    let r = gb.registers();
    let regs = [r.b, r.c, r.d, r.e, r.h, r.l];
    if regs == FIB {
        Some(true)
    } else if regs == [0x42; 6] {
        Some(false)
    } else {
        None
    }
}

pub fn run_mooneye_gb(gb: &mut GameBoy, max_frames: u32) -> Result<(), String> {
    for _ in 0..max_frames {
        gb.run_frame(false);
        match mooneye_result(gb) {
            Some(true) => return Ok(()),
            Some(false) => {
                return Err(format!(
                    "test reported failure, registers {:?}",
                    gb.registers()
                ))
            }
            None => {}
        }
    }
    Err(format!(
        "no verdict after {max_frames} frames, registers {:?}",
        gb.registers()
    ))
}

pub fn run_mooneye(rel: &str) {
    let Some(rom) = load(rel) else { return };
    let mut gb = GameBoy::new(&rom, None).expect("ROM loads");
    if let Err(e) = run_mooneye_gb(&mut gb, 1200) {
        panic!("{rel}: {e}");
    }
}

/// Blargg: verdict via serial text ("Passed"/"Failed") or the $A000 block
/// (signature DE B0 61 at $A001, status at $A000, text at $A004).
pub fn blargg_result(gb: &GameBoy) -> Option<(bool, String)> {
    let serial = String::from_utf8_lossy(gb.serial_output()).to_string();
    if serial.contains("Passed") {
        return Some((true, serial));
    }
    if serial.contains("Failed") {
        return Some((false, serial));
    }
    if gb.peek(0xA001) == 0xDE && gb.peek(0xA002) == 0xB0 && gb.peek(0xA003) == 0x61 {
        let status = gb.peek(0xA000);
        if status != 0x80 {
            let mut text = Vec::new();
            let mut a = 0xA004u16;
            while a < 0xC000 && gb.peek(a) != 0 {
                text.push(gb.peek(a));
                a += 1;
            }
            return Some((status == 0, String::from_utf8_lossy(&text).to_string()));
        }
    }
    None
}

pub fn run_blargg_gb(gb: &mut GameBoy, max_frames: u32) -> Result<String, String> {
    for f in 0..max_frames {
        gb.run_frame(false);
        // The $A000 block is only valid once the test has started; the
        // serial text is checked every frame.
        if f % 10 == 0 || f + 1 == max_frames {
            if let Some((ok, text)) = blargg_result(gb) {
                return if ok { Ok(text) } else { Err(text) };
            }
        }
    }
    Err(format!(
        "no verdict after {max_frames} frames; serial so far: {:?}",
        String::from_utf8_lossy(gb.serial_output())
    ))
}

pub fn run_blargg(rel: &str, max_frames: u32) {
    let Some(rom) = load(rel) else { return };
    let mut gb = GameBoy::new(&rom, None).expect("ROM loads");
    if let Err(e) = run_blargg_gb(&mut gb, max_frames) {
        panic!("{rel}: {e}");
    }
}
