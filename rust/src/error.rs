//! The one error type of the core. The Python layer maps each variant to an
//! exception class (`emurust.EmuRustError` and subclasses).

use std::fmt;

/// Everything that can go wrong when feeding the emulator bad input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The ROM image cannot be emulated (too short, too long, corrupt header...).
    InvalidRom(String),
    /// The ROM is well-formed but uses a cartridge type we do not emulate.
    UnsupportedCartridge(String),
    /// A save state is truncated, corrupted, from another version or another ROM.
    InvalidState(String),
    /// An argument is out of range (address, value, button name...).
    InvalidArgument(String),
    /// Memory for what was asked (e.g. the envs of a batch) could not be had.
    OutOfMemory(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidRom(m)
            | Error::UnsupportedCartridge(m)
            | Error::InvalidState(m)
            | Error::InvalidArgument(m)
            | Error::OutOfMemory(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;
