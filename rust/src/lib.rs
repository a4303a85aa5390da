//! EmuRust: a fast, faithful Game Boy (DMG) emulator core.
//!
//! The core has no Python dependency; the PyO3 bindings live in `python`
//! behind the `python` cargo feature.
// No `unsafe` outside the two modules that re-allow it (the NumPy buffers,
// `python/buffers.rs`, and the block compiler of feature `jit`, `jit.rs`).
#![deny(unsafe_code)]

pub mod apu;
pub mod bus;
pub mod cartridge;
pub mod cgb;
pub mod clock;
pub mod cpu;
pub mod debug;
pub mod error;
pub mod gameboy;
#[cfg(feature = "jit")]
pub mod jit;
pub mod joypad;
pub mod oam_bug;
pub mod ppu;
pub mod pyboy;
pub mod screen;
pub mod serial;
pub mod state;
pub mod timer;
pub mod vec;

pub use cgb::Model;
pub use cpu::Registers;
pub use error::{Error, Result};
pub use gameboy::GameBoy;
pub use joypad::Button;

#[cfg(feature = "python")]
mod python;

/// The test-ROM folder for the crate's unit tests, with the same rules as
/// the integration tests' `tests/common` (which the crate cannot import):
/// `$EMURUST_ROMS` (default `../shared/roms`); a missing ROM skips the test
/// with a message (and a line in the `$EMURUST_SKIP_LOG` file if set), or
/// fails it when `EMURUST_REQUIRE_ROMS=1`.
#[cfg(test)]
mod test_roms {
    use std::io::Write as _;
    use std::path::PathBuf;

    pub(crate) fn roms_dir() -> PathBuf {
        match std::env::var_os("EMURUST_ROMS") {
            Some(p) => PathBuf::from(p),
            None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/roms"),
        }
    }

    /// `what` is not available because of `why`: panics when the ROM folder is
    /// required, else reports the skip; the caller then skips.
    pub(crate) fn missing(what: &str, why: &str) {
        let line = format!("{what} not available ({why}); set EMURUST_ROMS");
        if std::env::var_os("EMURUST_REQUIRE_ROMS").is_some_and(|v| v == "1") {
            panic!("EMURUST_REQUIRE_ROMS=1 and {line}");
        }
        eprintln!("SKIPPED: {line}");
        if let Some(log) = std::env::var_os("EMURUST_SKIP_LOG") {
            let test = std::thread::current().name().unwrap_or("?").to_string();
            if let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(log)
            {
                let _ = f.write_all(format!("{test}: {line}\n").as_bytes());
            }
        }
    }

    /// A ROM by path under [`roms_dir`], or None (skipped, see [`missing`]).
    pub(crate) fn load(rel: &str) -> Option<Vec<u8>> {
        let path = roms_dir().join(rel);
        match std::fs::read(&path) {
            Ok(bytes) => Some(bytes),
            Err(e) => {
                missing(&format!("test ROM {}", path.display()), &e.to_string());
                None
            }
        }
    }
}
