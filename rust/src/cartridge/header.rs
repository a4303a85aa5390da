//! Cartridge header parsing (Pan Docs, "The Cartridge Header", 0x0100-0x014F).

use crate::error::{Error, Result};

/// Size of one switchable ROM bank.
pub const ROM_BANK_SIZE: usize = 0x4000;
/// Size of one external RAM bank.
pub const RAM_BANK_SIZE: usize = 0x2000;
/// Smallest file that contains a complete header.
pub const MIN_ROM_FILE: usize = 0x150;
/// Largest accepted file (MBC5 maximum: 512 banks of 16 KiB). The one
/// definition of the limit: `GameBoy`, the batched engine and the Python
/// bindings check ROMs against it too.
pub const MAX_ROM_SIZE: usize = 8 * 1024 * 1024;

/// The Nintendo logo bitmap stored at 0x0104-0x0133 of every licensed ROM
/// (checked by the boot ROM). Used here only to detect MBC1 multicarts.
pub const NINTENDO_LOGO: [u8; 48] = [
    0xCE, 0xED, 0x66, 0x66, 0xCC, 0x0D, 0x00, 0x0B, 0x03, 0x73, 0x00, 0x83, 0x00, 0x0C, 0x00, 0x0D,
    0x00, 0x08, 0x11, 0x1F, 0x88, 0x89, 0x00, 0x0E, 0xDC, 0xCC, 0x6E, 0xE6, 0xDD, 0xDD, 0xD9, 0x99,
    0xBB, 0xBB, 0x67, 0x63, 0x6E, 0x0E, 0xEC, 0xCC, 0xDD, 0xDC, 0x99, 0x9F, 0xBB, 0xB9, 0x33, 0x3E,
];

/// The memory bank controller family of a supported cartridge type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MbcKind {
    /// No MBC: 32 KiB of ROM, optionally up to 8 KiB of always-enabled RAM.
    None,
    Mbc1,
    Mbc2,
    Mbc3,
    Mbc5,
}

/// What a supported cartridge type byte (0x147) says about the hardware.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CartType {
    pub kind: MbcKind,
    /// The type declares external RAM (MBC2's built-in RAM is not counted).
    pub ram: bool,
    pub battery: bool,
    /// MBC3 real-time clock.
    pub timer: bool,
    /// MBC5 rumble motor (bit 3 of the RAM bank register).
    pub rumble: bool,
}

/// Name of a cartridge type byte as listed in Pan Docs, or `None` if the byte
/// is not a known type.
pub fn type_name(code: u8) -> Option<&'static str> {
    Some(match code {
        0x00 => "ROM ONLY",
        0x01 => "MBC1",
        0x02 => "MBC1+RAM",
        0x03 => "MBC1+RAM+BATTERY",
        0x05 => "MBC2",
        0x06 => "MBC2+BATTERY",
        0x08 => "ROM+RAM",
        0x09 => "ROM+RAM+BATTERY",
        0x0B => "MMM01",
        0x0C => "MMM01+RAM",
        0x0D => "MMM01+RAM+BATTERY",
        0x0F => "MBC3+TIMER+BATTERY",
        0x10 => "MBC3+TIMER+RAM+BATTERY",
        0x11 => "MBC3",
        0x12 => "MBC3+RAM",
        0x13 => "MBC3+RAM+BATTERY",
        0x19 => "MBC5",
        0x1A => "MBC5+RAM",
        0x1B => "MBC5+RAM+BATTERY",
        0x1C => "MBC5+RUMBLE",
        0x1D => "MBC5+RUMBLE+RAM",
        0x1E => "MBC5+RUMBLE+RAM+BATTERY",
        0x20 => "MBC6",
        0x22 => "MBC7+SENSOR+RUMBLE+RAM+BATTERY",
        0xFC => "POCKET CAMERA",
        0xFD => "BANDAI TAMA5",
        0xFE => "HuC3",
        0xFF => "HuC1+RAM+BATTERY",
        _ => return None,
    })
}

/// Decodes a cartridge type byte; `None` when it is unknown or not emulated.
pub fn cart_type(code: u8) -> Option<CartType> {
    let t = |kind, ram, battery, timer, rumble| CartType {
        kind,
        ram,
        battery,
        timer,
        rumble,
    };
    use MbcKind::*;
    Some(match code {
        0x00 => t(None, false, false, false, false),
        0x08 => t(None, true, false, false, false),
        0x09 => t(None, true, true, false, false),
        0x01 => t(Mbc1, false, false, false, false),
        0x02 => t(Mbc1, true, false, false, false),
        0x03 => t(Mbc1, true, true, false, false),
        0x05 => t(Mbc2, false, false, false, false),
        0x06 => t(Mbc2, false, true, false, false),
        0x0F => t(Mbc3, false, true, true, false),
        0x10 => t(Mbc3, true, true, true, false),
        0x11 => t(Mbc3, false, false, false, false),
        0x12 => t(Mbc3, true, false, false, false),
        0x13 => t(Mbc3, true, true, false, false),
        0x19 => t(Mbc5, false, false, false, false),
        0x1A => t(Mbc5, true, false, false, false),
        0x1B => t(Mbc5, true, true, false, false),
        0x1C => t(Mbc5, false, false, false, true),
        0x1D => t(Mbc5, true, false, false, true),
        0x1E => t(Mbc5, true, true, false, true),
        _ => return Option::None,
    })
}

/// ROM size declared by header code 0x148 (`32 KiB << n` for n <= 8).
pub fn rom_size_from_code(code: u8) -> Option<usize> {
    (code <= 8).then(|| (32 * 1024) << code)
}

/// RAM size declared by header code 0x149; `None` for the invalid codes
/// (1 is "unused" in Pan Docs, values above 5 are undefined).
pub fn ram_size_from_code(code: u8) -> Option<usize> {
    match code {
        0 => Some(0),
        2 => Some(8 * 1024),
        3 => Some(32 * 1024),
        4 => Some(128 * 1024),
        5 => Some(64 * 1024),
        _ => None,
    }
}

/// The parsed cartridge header plus the sizes actually used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// 0x134-0x143: cut at the first NUL, non-printable bytes dropped,
    /// trailing spaces trimmed.
    pub title: String,
    /// 0x147.
    pub cartridge_type: u8,
    /// Pan Docs name of `cartridge_type`.
    pub type_name: &'static str,
    /// 0x148 as stored.
    pub rom_size_code: u8,
    /// 0x149 as stored.
    pub ram_size_code: u8,
    /// ROM size the header declares, `None` for an invalid code.
    pub declared_rom_size: Option<usize>,
    /// RAM size the header declares, `None` for an invalid code.
    pub declared_ram_size: Option<usize>,
    /// 0x14D as stored.
    pub header_checksum: u8,
    /// The checksum computed over 0x134-0x14C.
    pub computed_header_checksum: u8,
    /// Size of the ROM image in use (the file size padded to 16 KiB).
    pub rom_size: usize,
    /// Size of the emulated external RAM in bytes (512 for MBC2).
    pub ram_size: usize,
}

impl Header {
    /// True when the stored header checksum matches the computed one.
    pub fn checksum_ok(&self) -> bool {
        self.header_checksum == self.computed_header_checksum
    }
}

/// Header checksum as computed by the boot ROM:
/// `x = 0; for b in rom[0x134..=0x14C] { x = x - b - 1 }`.
pub fn header_checksum(rom: &[u8]) -> u8 {
    rom.get(0x134..0x14D)
        .unwrap_or(&[])
        .iter()
        .fold(0u8, |x, &b| x.wrapping_sub(b).wrapping_sub(1))
}

/// The title field, cleaned up as documented on [`Header::title`].
pub fn parse_title(rom: &[u8]) -> String {
    let raw = rom.get(0x134..0x144).unwrap_or(&[]);
    let s: String = raw
        .iter()
        .take_while(|&&b| b != 0)
        .filter(|&&b| (0x20..=0x7E).contains(&b))
        .map(|&b| b as char)
        .collect();
    s.trim_end().to_string()
}

/// Formats a byte count as KiB (or bytes when not a whole number of KiB).
pub fn kib(n: usize) -> String {
    if n % 1024 == 0 {
        format!("{} KiB", n / 1024)
    } else {
        format!("{n} bytes")
    }
}

/// Validates the file size and the cartridge type; returns the decoded type.
pub fn check_file(rom: &[u8]) -> Result<CartType> {
    if rom.len() < MIN_ROM_FILE {
        return Err(Error::InvalidRom(format!(
            "ROM is {} bytes, shorter than the {} (0x{:X}) bytes needed for a cartridge header",
            rom.len(),
            MIN_ROM_FILE,
            MIN_ROM_FILE
        )));
    }
    if rom.len() > MAX_ROM_SIZE {
        return Err(Error::InvalidRom(format!(
            "ROM is {} bytes, larger than the 8 MiB ({} bytes) maximum",
            rom.len(),
            MAX_ROM_SIZE
        )));
    }
    let code = rom[0x147];
    cart_type(code).ok_or_else(|| {
        Error::UnsupportedCartridge(match type_name(code) {
            Some(name) => format!("cartridge type 0x{code:02X} ({name}) is not supported"),
            None => format!("cartridge type 0x{code:02X} is unknown"),
        })
    })
}
