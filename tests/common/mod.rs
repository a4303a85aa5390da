//! Shared helpers for the test-ROM suites. ROMs live outside the project in
//! `$EMURUST_ROMS` (default `../shared/roms`).
//!
//! A missing ROM is a skip on a clone with nothing beside it: the test
//! returns early and says so on stderr, and when `$EMURUST_SKIP_LOG` names a
//! file the skip is appended to it (`scripts/test.sh` counts them and reports
//! SKIP, since `cargo test` shows a skipped test as "ok"). Where the ROM
//! folder is expected (`EMURUST_REQUIRE_ROMS=1`, set by `.ci/run`), a missing
//! ROM fails the test instead.
#![allow(dead_code)]

pub mod sm83_json;
#[cfg(feature = "jit")]
pub mod three_paths;

use emurust::GameBoy;
use std::io::Write as _;
use std::path::PathBuf;

pub fn roms_dir() -> PathBuf {
    match std::env::var_os("EMURUST_ROMS") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/roms"),
    }
}

/// Whether the ROM folder must be there (`EMURUST_REQUIRE_ROMS=1`): then a
/// missing ROM fails its test instead of skipping it.
pub fn roms_required() -> bool {
    std::env::var_os("EMURUST_REQUIRE_ROMS").is_some_and(|v| v == "1")
}

/// `what` (a ROM, an image, a folder) is not available because of `why`:
/// panics when the ROM folder is required, else reports the skip (stderr,
/// and the `$EMURUST_SKIP_LOG` file if set). The caller then skips.
pub fn missing(what: &str, why: &str) {
    let line = format!("{what} not available ({why}); set EMURUST_ROMS");
    if roms_required() {
        panic!("EMURUST_REQUIRE_ROMS=1 and {line}");
    }
    eprintln!("SKIPPED: {line}");
    if let Some(log) = std::env::var_os("EMURUST_SKIP_LOG") {
        let test = std::thread::current().name().unwrap_or("?").to_string();
        // One short O_APPEND write per skip: lines from parallel tests and
        // test binaries do not interleave.
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = f.write_all(format!("{test}: {line}\n").as_bytes());
        }
    }
}

/// Load a ROM by path relative to the ROM directory, or None (test skipped,
/// see [`missing`]).
pub fn load(rel: &str) -> Option<Vec<u8>> {
    let p = roms_dir().join(rel);
    match std::fs::read(&p) {
        Ok(b) => Some(b),
        Err(e) => {
            missing(&format!("test ROM {}", p.display()), &e.to_string());
            None
        }
    }
}

/// The `.ext` files of folder `rel` under the ROM directory, sorted by name
/// with their bytes; None (skipped, see [`missing`]) if the folder cannot be
/// read. Panics if a listed file cannot be read.
pub fn load_folder(rel: &str, ext: &str) -> Option<Vec<(String, Vec<u8>)>> {
    let dir = roms_dir().join(rel);
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) => {
            missing(&format!("ROM folder {}", dir.display()), &e.to_string());
            return None;
        }
    };
    let mut files: Vec<(String, Vec<u8>)> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(ext))
        .map(|name| {
            let bytes = std::fs::read(dir.join(&name))
                .unwrap_or_else(|e| panic!("{}: {e}", dir.join(&name).display()));
            (name, bytes)
        })
        .collect();
    files.sort();
    Some(files)
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
