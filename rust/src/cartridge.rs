//! The cartridge: ROM, external RAM and the memory bank controller (MBC).
//!
//! Supported cartridge types (header byte 0x147): ROM ONLY (0x00),
//! ROM+RAM(+BATTERY) (0x08/0x09), MBC1 (0x01-0x03, including the 1 MiB
//! "MBC1M" multicart wiring), MBC2 (0x05/0x06), MBC3 (0x0F-0x13; 0x0F/0x10
//! with the real-time clock) and MBC5 (0x19-0x1E, rumble variants included).
//! Every other type byte is rejected with [`Error::UnsupportedCartridge`].
//!
//! # Reads
//!
//! Reads are a bounds-checked indexed load through bank offsets that are
//! precomputed whenever an MBC register is written; nothing is decoded on a
//! read. ROM reads never miss (offsets are always inside the image) and RAM
//! reads return 0xFF when RAM is absent, disabled or unmapped.
//!
//! # ROM size rule
//!
//! The file's actual size wins over the header's ROM size byte (0x148):
//! * A file shorter than 0x150 bytes or larger than 8 MiB is rejected
//!   ([`Error::InvalidRom`]).
//! * A file whose size is not a multiple of 16 KiB is padded with 0xFF up to
//!   the next 16 KiB boundary (in the single copy of the image made at load),
//!   with a warning.
//! * If the header's size code declares a size (`32 KiB << code`, code <= 8)
//!   different from the (padded) file size, the warning is "header says X KiB
//!   (ROM size code 0xNN), file has Y KiB; using the file size"; an invalid
//!   code (> 8) gives "header ROM size code 0xNN is invalid, file has Y KiB;
//!   using the file size".
//! * Bank numbers are then reduced modulo the number of 16 KiB banks in the
//!   image, as on hardware whose ROM chip does not connect the higher bank
//!   lines (for a power-of-two bank count this is the same as masking; for
//!   other counts modulo is used).
//! * A ROM ONLY / ROM+RAM cartridge larger than 32 KiB is accepted with a
//!   warning; only the first 32 KiB are visible. Likewise bytes beyond what an
//!   MBC can address (MBC1 and MBC3: 2 MiB, MBC2: 256 KiB) are kept but
//!   unreachable, with a warning.
//! * A header checksum (0x14D) mismatch is only a warning.
//!
//! # RAM size rule
//!
//! External RAM exists when the cartridge type says "+RAM" and the RAM size
//! code (0x149) declares it (0: none, 2: 8 KiB, 3: 32 KiB, 4: 128 KiB,
//! 5: 64 KiB). An invalid code (1 or > 5) gives a warning and no RAM; a code
//! that disagrees with the type (RAM declared for a type without RAM, or none
//! for a "+RAM" type) gives a warning and no RAM. RAM beyond what the
//! controller can address (no MBC: 8 KiB, MBC1: 32 KiB, MBC3: 64 KiB) is cut
//! with a warning. MBC2 always has its built-in 512 x 4 bits (a non-zero
//! code is warned about and ignored).
//!
//! # Controller details
//!
//! * MBC1: RAMG enables RAM when the low nibble written is 0xA; BANK1 is 5
//!   bits (0 reads as 1, so 0x20/0x40/0x60 select 0x21/0x41/0x61); BANK2 is 2
//!   bits; in mode 1 BANK2 also selects the 0x0000-0x3FFF bank
//!   (`BANK2 << 5`) and the RAM bank. A 1 MiB MBC1 image whose 256 KiB
//!   quarters 1-3 start with the Nintendo logo (at offset 0x104) in at least
//!   two places is treated as an MBC1M multicart: BANK1 bit 4 is not wired
//!   and banks are `BANK2 << 4 | BANK1 & 0xF`.
//! * MBC2: in 0x0000-0x3FFF, address bit 8 clear writes RAMG, set writes the
//!   4-bit ROM bank (0 -> 1); RAM is 512 nibbles mirrored over 0xA000-0xBFFF,
//!   read as `0xF0 | nibble`.
//! * MBC3: RAMG (low nibble 0xA) gates RAM and RTC; 7-bit ROM bank (0 -> 1);
//!   0x4000-0x5FFF values 0x00-0x07 select a RAM bank (modulo the banks
//!   present), 0x08-0x0C an RTC register, anything else maps nothing (reads
//!   0xFF, writes ignored); writing 0x00 then 0x01 to 0x6000-0x7FFF latches
//!   the clock. See [`rtc`] for the clock.
//! * MBC5: RAMG enables only on exactly 0x0A (all 8 bits compared); 9-bit ROM
//!   bank (0x2000-0x2FFF low 8 bits, 0x3000-0x3FFF bit 8; bank 0 allowed);
//!   4-bit RAM bank, or 3 bits plus the motor (bit 3) on rumble cartridges.
//! * ROM+RAM: the RAM is always enabled.

pub mod header;
pub mod rtc;

#[cfg(test)]
mod tests;

use crate::error::{Error, Result};
use crate::state::{StateReader, StateWriter, Stateful};
use header::{kib, MbcKind, RAM_BANK_SIZE, ROM_BANK_SIZE};
pub use header::{CartType, Header};
use rtc::Rtc;
use std::sync::Arc;

/// MBC2's built-in RAM: 512 half-bytes.
const MBC2_RAM_LEN: usize = 512;

/// The MBC and its registers (values as written, masked to the bits the chip
/// keeps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mbc {
    RomOnly,
    Mbc1 {
        ramg: bool,
        bank1: u8,
        bank2: u8,
        mode: bool,
        multicart: bool,
    },
    Mbc2 {
        ramg: bool,
        romb: u8,
    },
    Mbc3 {
        ramg: bool,
        romb: u8,
        /// RAM bank / RTC register select, as written.
        select: u8,
        /// Last value written to 0x6000-0x7FFF (latch on 0x00 -> 0x01).
        latch: u8,
    },
    Mbc5 {
        ramg: bool,
        romb: u16,
        ramb: u8,
        rumble: bool,
    },
}

impl Mbc {
    fn tag(&self) -> u8 {
        match self {
            Mbc::RomOnly => 0,
            Mbc::Mbc1 { .. } => 1,
            Mbc::Mbc2 { .. } => 2,
            Mbc::Mbc3 { .. } => 3,
            Mbc::Mbc5 { .. } => 5,
        }
    }
}

/// What 0xA000-0xBFFF is mapped to right now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RamMap {
    /// Nothing (no RAM, disabled, or unmapped select): reads 0xFF.
    Off,
    /// `ram[ram_off + (addr & 0x1FFF)]`.
    Ram,
    /// MBC2 nibble RAM, `ram[addr & 0x1FF]`.
    Mbc2,
    /// MBC3 RTC register 0..=4.
    Rtc(u8),
}

/// The bank registers as PyBoy 2.8.1 keeps them ([`Cartridge::pyboy_banks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PyBoyBanks {
    pub rom: u16,
    pub ram: u8,
    pub ram_enabled: bool,
    /// MBC1's banking mode (0 for the others).
    pub mode: u8,
    /// MBC1's two bank registers.
    pub mbc1: [u8; 2],
    /// MBC5: the cartridge has a rumble motor, and it is on.
    pub rumble: [bool; 2],
}

#[derive(Clone)]
pub struct Cartridge {
    /// The ROM image (shared between clones), a whole number of 16 KiB banks.
    rom: Arc<[u8]>,
    /// Start of the bank mapped at 0x0000-0x3FFF and at 0x4000-0x7FFF.
    rom_off: [usize; 2],
    /// Start of the RAM bank mapped at 0xA000-0xBFFF.
    ram_off: usize,
    ram_map: RamMap,
    ram: Vec<u8>,
    mbc: Mbc,
    rtc: Option<Rtc>,
    rom_banks: usize,
    ram_banks: usize,
    battery: bool,
    header: Header,
    warnings: Vec<String>,
    fingerprint: u64,
}

/// FNV-1a, 64 bits.
pub(crate) fn fnv1a64(data: &[u8]) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for &b in data {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

fn mbc_name(kind: MbcKind) -> &'static str {
    match kind {
        MbcKind::None => "a cartridge without MBC",
        MbcKind::Mbc1 => "MBC1",
        MbcKind::Mbc2 => "MBC2",
        MbcKind::Mbc3 => "MBC3",
        MbcKind::Mbc5 => "MBC5",
    }
}

/// How the warning for a CGB-only cartridge on a DMG begins.
const CGB_ONLY_WARNING: &str = "this ROM is for the Game Boy Color only";

impl Cartridge {
    /// Forget the warning that a CGB-only cartridge runs on a DMG (it runs
    /// on a CGB).
    pub(crate) fn drop_cgb_only_warning(&mut self) {
        self.warnings.retain(|w| !w.starts_with(CGB_ONLY_WARNING));
    }

    /// Parses and validates a ROM image. See the module documentation for the
    /// size rules; recoverable oddities are reported by [`Cartridge::warnings`].
    pub fn new(rom: Arc<[u8]>) -> Result<Cartridge> {
        let ct = header::check_file(&rom)?;
        let code = rom[0x147];
        let mut warnings = Vec::new();
        let fingerprint = fnv1a64(&rom);

        // 0x143 = 0xC0: made for the Game Boy Color only (0x80, colour
        // enhanced, runs on a DMG as designed).
        if rom[0x143] == 0xC0 {
            warnings.push(format!(
                "{CGB_ONLY_WARNING} (header byte 0x143 = 0xC0); it runs on a DMG here \
                 (model=\"dmg\"), where such games usually show a \"Game Boy Color only\" \
                 screen or misbehave: model=\"cgb\" or \"auto\" runs it on a Game Boy Color"
            ));
        }

        // Pad to a whole number of banks.
        let file_len = rom.len();
        let rom_len = file_len.div_ceil(ROM_BANK_SIZE) * ROM_BANK_SIZE;
        let rom: Arc<[u8]> = if rom_len != file_len {
            warnings.push(format!(
                "ROM is {file_len} bytes, not a multiple of 16 KiB; padded with 0xFF to {rom_len} bytes"
            ));
            let mut v = Vec::with_capacity(rom_len);
            v.extend_from_slice(&rom);
            v.resize(rom_len, 0xFF);
            v.into()
        } else {
            rom
        };
        let rom_banks = rom_len / ROM_BANK_SIZE;

        let rom_size_code = rom[0x148];
        let declared_rom_size = header::rom_size_from_code(rom_size_code);
        match declared_rom_size {
            Some(n) if n == rom_len => {}
            Some(n) => warnings.push(format!(
                "header says {} (ROM size code 0x{rom_size_code:02X}), file has {}; using the file size",
                kib(n),
                kib(rom_len)
            )),
            None => warnings.push(format!(
                "header ROM size code 0x{rom_size_code:02X} is invalid, file has {}; using the file size",
                kib(rom_len)
            )),
        }

        let type_name = header::type_name(code).unwrap_or("UNKNOWN");
        let max_rom = match ct.kind {
            MbcKind::None => 32 * 1024,
            MbcKind::Mbc1 | MbcKind::Mbc3 => 2 * 1024 * 1024,
            MbcKind::Mbc2 => 256 * 1024,
            MbcKind::Mbc5 => 8 * 1024 * 1024,
        };
        if rom_len > max_rom {
            warnings.push(match ct.kind {
                MbcKind::None => format!(
                    "{type_name} cartridge has {} of ROM; only the first 32 KiB are visible",
                    kib(rom_len)
                ),
                k => format!(
                    "{} addresses at most {}; the last {} of the {} ROM are unreachable",
                    mbc_name(k),
                    kib(max_rom),
                    kib(rom_len - max_rom),
                    kib(rom_len)
                ),
            });
        }

        let ram_size_code = rom[0x149];
        let declared_ram_size = header::ram_size_from_code(ram_size_code);
        let ram_len = if ct.kind == MbcKind::Mbc2 {
            if ram_size_code != 0 {
                warnings.push(format!(
                    "header RAM size code 0x{ram_size_code:02X} ignored: MBC2 has 512x4 bits of built-in RAM"
                ));
            }
            MBC2_RAM_LEN
        } else {
            let n = match (ct.ram, declared_ram_size) {
                (_, None) => {
                    warnings.push(format!(
                        "header RAM size code 0x{ram_size_code:02X} is invalid; assuming no RAM"
                    ));
                    0
                }
                (true, Some(0)) => {
                    warnings.push(format!(
                        "cartridge type 0x{code:02X} ({type_name}) has RAM but the header declares none; assuming 8 KiB (test ROMs such as Blargg's halt_bug report through it)"
                    ));
                    8 * 1024
                }
                (true, Some(n)) => n,
                (false, Some(0)) => 0,
                (false, Some(n)) => {
                    warnings.push(format!(
                        "header declares {} of RAM but cartridge type 0x{code:02X} ({type_name}) has none; assuming no RAM",
                        kib(n)
                    ));
                    0
                }
            };
            let max_ram = match ct.kind {
                MbcKind::None => 8 * 1024,
                MbcKind::Mbc1 => 32 * 1024,
                MbcKind::Mbc3 => 64 * 1024,
                _ => 128 * 1024,
            };
            if n > max_ram {
                warnings.push(format!(
                    "header declares {} of RAM but {} addresses at most {}; using {}",
                    kib(n),
                    mbc_name(ct.kind),
                    kib(max_ram),
                    kib(max_ram)
                ));
                max_ram
            } else {
                n
            }
        };

        let computed = header::header_checksum(&rom);
        let stored = rom[0x14D];
        if computed != stored {
            warnings.push(format!(
                "header checksum mismatch: header has 0x{stored:02X}, computed 0x{computed:02X}"
            ));
        }

        let multicart = ct.kind == MbcKind::Mbc1 && rom_len == 0x10_0000 && {
            let hits = (1..4)
                .filter(|q| {
                    let at = q * 0x4_0000 + 0x104;
                    rom.get(at..at + 48) == Some(&header::NINTENDO_LOGO[..])
                })
                .count();
            hits >= 2
        };

        let mbc = match ct.kind {
            MbcKind::None => Mbc::RomOnly,
            MbcKind::Mbc1 => Mbc::Mbc1 {
                ramg: false,
                bank1: 0,
                bank2: 0,
                mode: false,
                multicart,
            },
            MbcKind::Mbc2 => Mbc::Mbc2 {
                ramg: false,
                romb: 0,
            },
            MbcKind::Mbc3 => Mbc::Mbc3 {
                ramg: false,
                romb: 0,
                select: 0,
                latch: 0xFF,
            },
            MbcKind::Mbc5 => Mbc::Mbc5 {
                ramg: false,
                romb: 1,
                ramb: 0,
                rumble: ct.rumble,
            },
        };

        let header = Header {
            title: header::parse_title(&rom),
            cartridge_type: code,
            type_name,
            rom_size_code,
            ram_size_code,
            declared_rom_size,
            declared_ram_size,
            header_checksum: stored,
            computed_header_checksum: computed,
            rom_size: rom_len,
            ram_size: ram_len,
        };

        let mut cart = Cartridge {
            rom,
            rom_off: [0, ROM_BANK_SIZE % rom_len],
            ram_off: 0,
            ram_map: RamMap::Off,
            ram: vec![0; ram_len],
            mbc,
            rtc: ct.timer.then(Rtc::new),
            rom_banks,
            ram_banks: ram_len / RAM_BANK_SIZE,
            battery: ct.battery,
            header,
            warnings,
            fingerprint,
        };
        cart.remap();
        Ok(cart)
    }

    /// Recomputes the ROM/RAM bank offsets and the RAM mapping from the MBC
    /// registers. Called after every register write and state load.
    fn remap(&mut self) {
        let rom_banks = self.rom_banks.max(1);
        let ram_banks = self.ram_banks;
        let rom_at = |bank: usize| (bank % rom_banks) * ROM_BANK_SIZE;
        let ram_at = |bank: usize| {
            if ram_banks == 0 {
                0
            } else {
                (bank % ram_banks) * RAM_BANK_SIZE
            }
        };
        let has_ram = !self.ram.is_empty();
        let (lo, hi, ram_bank, map) = match self.mbc {
            Mbc::RomOnly => (0, 1, 0, if has_ram { RamMap::Ram } else { RamMap::Off }),
            Mbc::Mbc1 {
                ramg,
                bank1,
                bank2,
                mode,
                multicart,
            } => {
                let b1 = if bank1 == 0 { 1 } else { bank1 as usize };
                let b2 = bank2 as usize;
                let (lo, hi) = if multicart {
                    (b2 << 4, (b2 << 4) | (b1 & 0x0F))
                } else {
                    (b2 << 5, (b2 << 5) | b1)
                };
                let map = if ramg && has_ram {
                    RamMap::Ram
                } else {
                    RamMap::Off
                };
                if mode {
                    (lo, hi, b2, map)
                } else {
                    (0, hi, 0, map)
                }
            }
            Mbc::Mbc2 { ramg, romb } => {
                let b = if romb == 0 { 1 } else { romb as usize };
                (0, b, 0, if ramg { RamMap::Mbc2 } else { RamMap::Off })
            }
            Mbc::Mbc3 {
                ramg, romb, select, ..
            } => {
                let b = if romb == 0 { 1 } else { romb as usize };
                let map = match select {
                    _ if !ramg => RamMap::Off,
                    0x00..=0x07 if has_ram => RamMap::Ram,
                    0x08..=0x0C if self.rtc.is_some() => RamMap::Rtc(select - 0x08),
                    _ => RamMap::Off,
                };
                (0, b, (select & 0x07) as usize, map)
            }
            Mbc::Mbc5 {
                ramg,
                romb,
                ramb,
                rumble,
            } => {
                let rb = if rumble { ramb & 0x07 } else { ramb & 0x0F };
                let map = if ramg && has_ram {
                    RamMap::Ram
                } else {
                    RamMap::Off
                };
                (0, romb as usize, rb as usize, map)
            }
        };
        self.rom_off = [rom_at(lo), rom_at(hi)];
        self.ram_off = ram_at(ram_bank);
        self.ram_map = map;
    }

    /// Recoverable problems found while loading the ROM.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The header title (see [`Header::title`]).
    pub fn title(&self) -> &str {
        &self.header.title
    }

    /// The parsed header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Header byte 0x147.
    pub fn cartridge_type(&self) -> u8 {
        self.header.cartridge_type
    }

    /// Pan Docs name of the cartridge type, e.g. "MBC1+RAM+BATTERY".
    pub fn type_name(&self) -> &'static str {
        self.header.type_name
    }

    /// The cartridge keeps its RAM (and clock) with a battery.
    pub fn has_battery(&self) -> bool {
        self.battery
    }

    /// The cartridge has an MBC3 real-time clock.
    pub fn has_rtc(&self) -> bool {
        self.rtc.is_some()
    }

    /// The image was detected as an MBC1M multicart.
    pub fn is_multicart(&self) -> bool {
        matches!(
            self.mbc,
            Mbc::Mbc1 {
                multicart: true,
                ..
            }
        )
    }

    /// The rumble motor is on (MBC5 rumble cartridges; false otherwise).
    pub fn rumble(&self) -> bool {
        matches!(self.mbc, Mbc::Mbc5 { rumble: true, ramb, .. } if ramb & 0x08 != 0)
    }

    /// Number of 16 KiB banks in the (padded) ROM image.
    pub fn rom_banks(&self) -> usize {
        self.rom_banks
    }

    /// The ROM image in use (padded to a whole number of banks).
    pub fn rom(&self) -> &Arc<[u8]> {
        &self.rom
    }

    /// PyBoy 2.8.1's view of the bank registers, for writing its save
    /// states: (ROM bank, RAM bank, RAM enabled, banking mode, MBC1's two
    /// registers, MBC5's rumble motor and its bit), or None for an MBC1
    /// multicart.
    pub(crate) fn pyboy_banks(&self) -> Option<PyBoyBanks> {
        let rom_banks = self.rom_banks.max(1);
        let ram_banks = self.ram_banks.max(1);
        let plain = PyBoyBanks {
            rom: 1,
            ram: 0,
            ram_enabled: false,
            mode: 0,
            mbc1: [1, 0],
            rumble: [false; 2],
        };
        Some(match self.mbc {
            Mbc::RomOnly => plain,
            Mbc::Mbc1 {
                multicart: true, ..
            } => return None,
            Mbc::Mbc1 {
                ramg,
                bank1,
                bank2,
                mode,
                ..
            } => {
                let bank1 = bank1.max(1);
                PyBoyBanks {
                    rom: (((bank2 as usize) << 5 | bank1 as usize) % rom_banks) as u16,
                    ram: if mode { bank2 } else { 0 },
                    ram_enabled: ramg,
                    mode: mode as u8,
                    mbc1: [bank1, bank2],
                    ..plain
                }
            }
            Mbc::Mbc2 { ramg, romb } => PyBoyBanks {
                rom: romb.max(1) as u16,
                ram_enabled: ramg,
                ..plain
            },
            Mbc::Mbc3 {
                ramg, romb, select, ..
            } => PyBoyBanks {
                rom: (romb.max(1) as usize % rom_banks) as u16,
                ram: if (0x08..=0x0C).contains(&select) {
                    select
                } else {
                    (select as usize % ram_banks) as u8
                },
                ram_enabled: ramg,
                ..plain
            },
            Mbc::Mbc5 {
                ramg,
                romb,
                ramb,
                rumble,
            } => PyBoyBanks {
                rom: (romb as usize % rom_banks) as u16,
                ram: ((ramb as usize & 0x0F) % ram_banks) as u8,
                ram_enabled: ramg,
                rumble: [rumble, ramb & 0x08 != 0],
                ..plain
            },
        })
    }

    /// Replace the ROM bytes with `rom` (the same length: a patched copy).
    /// The fingerprint stays the one of the ROM first loaded.
    pub(crate) fn replace_rom(&mut self, rom: Arc<[u8]>) {
        debug_assert_eq!(rom.len(), self.rom.len());
        self.rom = rom;
    }

    /// The eight ROM bytes at `addr..addr + 8` (little-endian), if they lie
    /// in one mapped bank: what the bus keeps as its fetch window.
    #[inline]
    pub fn rom_window(&self, addr: u16) -> Option<u64> {
        let a = addr as usize;
        let in_bank = a & 0x3FFF;
        if a >= 0x8000 || in_bank > 0x3FF8 {
            return None;
        }
        let off = self.rom_off[(a >> 14) & 1] + in_bank;
        let bytes: [u8; 8] = self.rom.get(off..off + 8)?.try_into().ok()?;
        Some(u64::from_le_bytes(bytes))
    }

    /// Banks currently mapped at 0x0000-0x3FFF and 0x4000-0x7FFF.
    pub fn rom_bank_numbers(&self) -> (usize, usize) {
        (
            self.rom_off[0] / ROM_BANK_SIZE,
            self.rom_off[1] / ROM_BANK_SIZE,
        )
    }

    /// The 8 KiB RAM bank mapped at 0xA000-0xBFFF (0 when none is).
    pub fn ram_bank(&self) -> usize {
        self.ram_off / 0x2000
    }

    /// The live RTC registers S, M, H, DL, DH at emulated time `now`
    /// (no side effects); `None` without a clock.
    pub fn rtc_live(&self, now: u64) -> Option<[u8; 5]> {
        self.rtc.as_ref().map(|r| r.live_at(now))
    }

    /// The latched RTC registers S, M, H, DL, DH; `None` without a clock.
    pub fn rtc_latched(&self) -> Option<[u8; 5]> {
        self.rtc.as_ref().map(|r| r.latched())
    }

    /// Use `rom`, the same bytes as this cartridge's ROM, in place of its
    /// own copy (ignored if the bytes differ).
    pub fn share_rom(&mut self, rom: &Arc<[u8]>) {
        if !Arc::ptr_eq(rom, &self.rom) && rom[..] == self.rom[..] {
            self.rom = rom.clone();
        }
    }

    /// The ROM offset that `addr` (0x0000-0x7FFF) reads now.
    #[inline(always)]
    pub fn rom_offset(&self, addr: u16) -> usize {
        let a = addr as usize;
        self.rom_off[(a >> 14) & 1] + (a & 0x3FFF)
    }

    /// Reads 0x0000-0x7FFF.
    #[inline]
    pub fn read_rom(&self, addr: u16) -> u8 {
        let a = addr as usize;
        let off = self.rom_off[(a >> 14) & 1] + (a & 0x3FFF);
        match self.rom.get(off) {
            Some(&b) => b,
            None => 0xFF,
        }
    }

    /// Writes to 0x0000-0x7FFF (MBC registers). `now` is the emulated time in
    /// T-cycles (used by the MBC3 clock latch).
    #[inline]
    pub fn write_rom(&mut self, addr: u16, value: u8, now: u64) {
        if addr >= 0x8000 {
            return;
        }
        match &mut self.mbc {
            Mbc::RomOnly => return,
            Mbc::Mbc1 {
                ramg,
                bank1,
                bank2,
                mode,
                ..
            } => match addr >> 13 {
                0 => *ramg = value & 0x0F == 0x0A,
                1 => *bank1 = value & 0x1F,
                2 => *bank2 = value & 0x03,
                _ => *mode = value & 1 != 0,
            },
            Mbc::Mbc2 { ramg, romb } => {
                if addr >= 0x4000 {
                    return;
                }
                if addr & 0x0100 == 0 {
                    *ramg = value & 0x0F == 0x0A;
                } else {
                    *romb = value & 0x0F;
                }
            }
            Mbc::Mbc3 {
                ramg,
                romb,
                select,
                latch,
            } => match addr >> 13 {
                0 => *ramg = value & 0x0F == 0x0A,
                1 => *romb = value & 0x7F,
                2 => *select = value,
                _ => {
                    let fire = *latch == 0x00 && value == 0x01;
                    *latch = value;
                    if fire {
                        if let Some(rtc) = &mut self.rtc {
                            rtc.latch(now);
                        }
                    }
                    return;
                }
            },
            Mbc::Mbc5 {
                ramg, romb, ramb, ..
            } => match addr >> 12 {
                0 | 1 => *ramg = value == 0x0A,
                2 => *romb = (*romb & 0x100) | value as u16,
                3 => *romb = (*romb & 0xFF) | (((value & 1) as u16) << 8),
                4 | 5 => *ramb = value & 0x0F,
                _ => return,
            },
        }
        self.remap();
    }

    /// Reads 0xA000-0xBFFF; 0xFF when no RAM is mapped.
    #[inline]
    pub fn read_ram(&self, addr: u16, _now: u64) -> u8 {
        match self.ram_map {
            RamMap::Ram => match self.ram.get(self.ram_off + (addr as usize & 0x1FFF)) {
                Some(&b) => b,
                None => 0xFF,
            },
            RamMap::Off => 0xFF,
            RamMap::Mbc2 => match self.ram.get(addr as usize & 0x1FF) {
                Some(&b) => 0xF0 | b,
                None => 0xFF,
            },
            RamMap::Rtc(reg) => match &self.rtc {
                Some(rtc) => rtc.read(reg),
                None => 0xFF,
            },
        }
    }

    /// Writes 0xA000-0xBFFF; ignored when no RAM is mapped.
    #[inline]
    pub fn write_ram(&mut self, addr: u16, value: u8, now: u64) {
        match self.ram_map {
            RamMap::Ram => {
                if let Some(b) = self.ram.get_mut(self.ram_off + (addr as usize & 0x1FFF)) {
                    *b = value;
                }
            }
            RamMap::Off => {}
            RamMap::Mbc2 => {
                if let Some(b) = self.ram.get_mut(addr as usize & 0x1FF) {
                    *b = value & 0x0F;
                }
            }
            RamMap::Rtc(reg) => {
                if let Some(rtc) = &mut self.rtc {
                    rtc.write(reg, value, now);
                }
            }
        }
    }

    /// Expected length of a battery file: the RAM, plus the 48-byte RTC block
    /// for cartridges with a clock.
    pub fn battery_ram_len(&self) -> usize {
        self.ram.len()
            + if self.rtc.is_some() {
                rtc::BATTERY_BLOCK_LEN
            } else {
                0
            }
    }

    /// The battery-backed data: the external RAM bytes (MBC2: 512 bytes, one
    /// nibble each in the low 4 bits), followed, on MBC3 cartridges with a
    /// clock, by the 48-byte RTC block described at [`Rtc::battery_block`].
    pub fn battery_ram(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.battery_ram_len());
        out.extend_from_slice(&self.ram);
        if let Some(rtc) = &self.rtc {
            out.extend_from_slice(&rtc.battery_block());
        }
        out
    }

    /// Restores data produced by [`Cartridge::battery_ram`]. The length must
    /// be the RAM size, plus 48 for a cartridge with a clock (for which the
    /// RAM alone is also accepted, leaving the clock unchanged). MBC2 bytes
    /// are masked to their low nibble.
    pub fn load_battery_ram(&mut self, data: &[u8]) -> Result<()> {
        let ram_len = self.ram.len();
        let full = self.battery_ram_len();
        if data.len() != full && data.len() != ram_len {
            return Err(Error::InvalidArgument(if full != ram_len {
                format!(
                    "battery RAM has {} bytes, expected {full} ({ram_len} bytes of RAM + {} bytes of RTC) or {ram_len}",
                    data.len(),
                    rtc::BATTERY_BLOCK_LEN
                )
            } else {
                format!("battery RAM has {} bytes, expected {ram_len}", data.len())
            }));
        }
        let (ram, rest) = data.split_at(ram_len);
        self.ram.copy_from_slice(ram);
        if matches!(self.mbc, Mbc::Mbc2 { .. }) {
            for b in &mut self.ram {
                *b &= 0x0F;
            }
        }
        if let (Some(rtc), false) = (&mut self.rtc, rest.is_empty()) {
            rtc.load_battery_block(rest);
        }
        Ok(())
    }

    /// FNV-1a 64 hash of the ROM file as given to [`Cartridge::new`].
    pub fn rom_fingerprint(&self) -> u64 {
        self.fingerprint
    }
}

fn bad(msg: String) -> Error {
    Error::InvalidState(format!("corrupted state: {msg}"))
}

fn check_max(what: &str, v: u32, max: u32) -> Result<()> {
    if v > max {
        Err(bad(format!("{what} is 0x{v:X}, must be at most 0x{max:X}")))
    } else {
        Ok(())
    }
}

/// Save-state layout, inside section `CART`: u64 ROM fingerprint, u8
/// cartridge type, u8 MBC tag (0 none, 1 MBC1, 2 MBC2, 3 MBC3, 5 MBC5), the
/// MBC registers, the RAM (length-prefixed), then a bool "has RTC" and the
/// RTC state (live and latched registers, sub-second counter, last sync
/// time, rebase flag).
impl Stateful for Cartridge {
    fn save(&self, w: &mut StateWriter) {
        w.begin_section(b"CART");
        w.u64(self.fingerprint);
        w.u8(self.header.cartridge_type);
        w.u8(self.mbc.tag());
        match self.mbc {
            Mbc::RomOnly => {}
            Mbc::Mbc1 {
                ramg,
                bank1,
                bank2,
                mode,
                ..
            } => {
                w.bool(ramg);
                w.u8(bank1);
                w.u8(bank2);
                w.bool(mode);
            }
            Mbc::Mbc2 { ramg, romb } => {
                w.bool(ramg);
                w.u8(romb);
            }
            Mbc::Mbc3 {
                ramg,
                romb,
                select,
                latch,
            } => {
                w.bool(ramg);
                w.u8(romb);
                w.u8(select);
                w.u8(latch);
            }
            Mbc::Mbc5 {
                ramg, romb, ramb, ..
            } => {
                w.bool(ramg);
                w.u16(romb);
                w.u8(ramb);
            }
        }
        w.bytes(&self.ram);
        w.bool(self.rtc.is_some());
        if let Some(rtc) = &self.rtc {
            rtc.save(w);
        }
        w.end_section();
    }

    /// Validates everything before changing anything: on error the cartridge
    /// is left as it was.
    fn load(&mut self, r: &mut StateReader) -> Result<()> {
        r.begin_section(b"CART")?;
        let fp = r.u64()?;
        if fp != self.fingerprint && !r.other_rom_ok {
            return Err(Error::InvalidState(format!(
                "state was saved with another ROM (ROM fingerprint 0x{fp:016X}, this ROM 0x{:016X})",
                self.fingerprint
            )));
        }
        let ty = r.u8()?;
        if ty != self.header.cartridge_type && !r.other_rom_ok {
            return Err(bad(format!(
                "cartridge type is 0x{ty:02X}, this cartridge is 0x{:02X}",
                self.header.cartridge_type
            )));
        }
        let tag = r.u8()?;
        if tag != self.mbc.tag() {
            if r.other_rom_ok {
                return Err(Error::InvalidState(format!(
                    "the state's cartridge has another memory bank controller than this one \
                     (cartridge type 0x{ty:02X}, this one 0x{:02X})",
                    self.header.cartridge_type
                )));
            }
            return Err(bad(format!(
                "MBC tag is {tag}, this cartridge's is {}",
                self.mbc.tag()
            )));
        }
        let mbc = match self.mbc {
            Mbc::RomOnly => Mbc::RomOnly,
            Mbc::Mbc1 { multicart, .. } => {
                let ramg = r.bool()?;
                let bank1 = r.u8()?;
                check_max("MBC1 BANK1 register", bank1 as u32, 0x1F)?;
                let bank2 = r.u8()?;
                check_max("MBC1 BANK2 register", bank2 as u32, 0x03)?;
                let mode = r.bool()?;
                Mbc::Mbc1 {
                    ramg,
                    bank1,
                    bank2,
                    mode,
                    multicart,
                }
            }
            Mbc::Mbc2 { .. } => {
                let ramg = r.bool()?;
                let romb = r.u8()?;
                check_max("MBC2 ROM bank register", romb as u32, 0x0F)?;
                Mbc::Mbc2 { ramg, romb }
            }
            Mbc::Mbc3 { .. } => {
                let ramg = r.bool()?;
                let romb = r.u8()?;
                check_max("MBC3 ROM bank register", romb as u32, 0x7F)?;
                let select = r.u8()?;
                let latch = r.u8()?;
                Mbc::Mbc3 {
                    ramg,
                    romb,
                    select,
                    latch,
                }
            }
            Mbc::Mbc5 { rumble, .. } => {
                let ramg = r.bool()?;
                let romb = r.u16()?;
                check_max("MBC5 ROM bank register", romb as u32, 0x1FF)?;
                let ramb = r.u8()?;
                check_max("MBC5 RAM bank register", ramb as u32, 0x0F)?;
                Mbc::Mbc5 {
                    ramg,
                    romb,
                    ramb,
                    rumble,
                }
            }
        };
        let ram = r.bytes_exact(self.ram.len(), "cartridge RAM")?;
        if matches!(mbc, Mbc::Mbc2 { .. }) {
            if let Some((i, &b)) = ram.iter().enumerate().find(|(_, &b)| b > 0x0F) {
                return Err(bad(format!(
                    "MBC2 RAM byte {i} is 0x{b:02X}, must be a nibble (at most 0x0F)"
                )));
            }
        }
        let has_rtc = r.bool()?;
        if has_rtc != self.rtc.is_some() {
            return Err(bad(format!(
                "RTC present in state: {has_rtc}, in this cartridge: {}",
                self.rtc.is_some()
            )));
        }
        let rtc = if has_rtc { Some(Rtc::load(r)?) } else { None };
        r.end_section()?;

        self.mbc = mbc;
        self.ram.copy_from_slice(ram);
        self.rtc = rtc;
        self.remap();
        Ok(())
    }
}
