//! EmuRust: a fast, faithful Game Boy (DMG) emulator core.
//!
//! The core has no Python dependency; the PyO3 bindings live in `python`
//! behind the `python` cargo feature.

pub mod apu;
pub mod bus;
pub mod cartridge;
pub mod cgb;
pub mod cpu;
pub mod error;
pub mod gameboy;
pub mod hooks;
pub mod joypad;
pub mod oam_bug;
pub mod ppu;
pub mod pyboy_state;
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
