use super::rtc::CYCLES_PER_SECOND as CPS;
use super::*;

/// Builds a ROM of `banks` 16 KiB banks; every byte of bank `i` is `i as u8`
/// except offset 0x3FFE which holds `i >> 8`, so reads reveal the mapping.
fn rom_image(ty: u8, rom_code: u8, ram_code: u8, banks: usize) -> Vec<u8> {
    let mut v = vec![0u8; banks * ROM_BANK_SIZE];
    for (i, bank) in v.chunks_mut(ROM_BANK_SIZE).enumerate() {
        bank.fill(i as u8);
        bank[0x3FFE] = (i >> 8) as u8;
    }
    v[0x104..0x134].copy_from_slice(&header::NINTENDO_LOGO);
    v[0x134..0x144].fill(0);
    v[0x134..0x13B].copy_from_slice(b"TESTROM");
    v[0x147] = ty;
    v[0x148] = rom_code;
    v[0x149] = ram_code;
    fix_checksum(&mut v);
    v
}

fn fix_checksum(v: &mut [u8]) {
    v[0x14D] = header::header_checksum(v);
}

/// A consistent ROM: size code matching `banks` (a power of two >= 2).
fn rom(ty: u8, ram_code: u8, banks: usize) -> Vec<u8> {
    let code = (banks / 2).trailing_zeros() as u8;
    rom_image(ty, code, ram_code, banks)
}

fn cart(v: Vec<u8>) -> Cartridge {
    Cartridge::new(v.into()).expect("valid test ROM")
}

fn hi_bank(c: &Cartridge) -> usize {
    c.read_rom(0x4000) as usize | (c.read_rom(0x7FFE) as usize) << 8
}

fn lo_bank(c: &Cartridge) -> usize {
    c.read_rom(0x0000) as usize | (c.read_rom(0x3FFE) as usize) << 8
}

fn err_msg(r: Result<Cartridge>) -> Error {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

// ---------------------------------------------------------------- header

#[test]
fn header_parsing() {
    let mut v = rom(0x03, 0x03, 8);
    v[0x134..0x144].copy_from_slice(b"HELLO WORLD \x01  \0");
    fix_checksum(&mut v);
    let c = cart(v);
    assert_eq!(c.title(), "HELLO WORLD");
    assert_eq!(c.cartridge_type(), 0x03);
    assert_eq!(c.type_name(), "MBC1+RAM+BATTERY");
    assert!(c.has_battery());
    assert!(!c.has_rtc());
    let h = c.header();
    assert_eq!(h.rom_size_code, 2);
    assert_eq!(h.declared_rom_size, Some(128 * 1024));
    assert_eq!(h.rom_size, 128 * 1024);
    assert_eq!(h.ram_size_code, 3);
    assert_eq!(h.declared_ram_size, Some(32 * 1024));
    assert_eq!(h.ram_size, 32 * 1024);
    assert!(h.checksum_ok());
    assert!(c.warnings().is_empty(), "{:?}", c.warnings());
    assert_eq!(c.rom_banks(), 8);
    assert_eq!(c.battery_ram().len(), 32 * 1024);
}

#[test]
fn title_cleanup() {
    let mut v = rom(0x00, 0, 2);
    v[0x134..0x144].copy_from_slice(b"AB\x01C\xFFD  \0XYZ\0\0\0\0");
    assert_eq!(header::parse_title(&v), "ABCD");
    // A 16-character title with the CGB flag byte at 0x143 dropped.
    v[0x134..0x144].copy_from_slice(b"POKEMON_SLVAAXE\x80");
    assert_eq!(header::parse_title(&v), "POKEMON_SLVAAXE");
}

#[test]
fn type_names() {
    for (code, name) in [
        (0x00, "ROM ONLY"),
        (0x09, "ROM+RAM+BATTERY"),
        (0x10, "MBC3+TIMER+RAM+BATTERY"),
        (0x1E, "MBC5+RUMBLE+RAM+BATTERY"),
        (0x06, "MBC2+BATTERY"),
    ] {
        let ram = if header::cart_type(code).unwrap().ram {
            2
        } else {
            0
        };
        let c = cart(rom(code, ram, 2));
        assert_eq!(c.type_name(), name);
        assert!(c.warnings().is_empty(), "{:?}", c.warnings());
    }
}

#[test]
fn fingerprint_is_fnv1a_of_file() {
    assert_eq!(fnv1a64(b""), 0xCBF2_9CE4_8422_2325);
    assert_eq!(fnv1a64(b"a"), 0xAF63_DC4C_8601_EC8C);
    let v = rom(0x01, 0, 4);
    let c1 = cart(v.clone());
    assert_eq!(c1.rom_fingerprint(), fnv1a64(&v));
    let mut w = v.clone();
    w[0x5000] ^= 1;
    assert_ne!(cart(w).rom_fingerprint(), c1.rom_fingerprint());
}

#[test]
fn clones_share_rom() {
    let c = cart(rom(0x01, 0, 4));
    let d = c.clone();
    assert!(Arc::ptr_eq(c.rom(), d.rom()));
}

// ---------------------------------------------------------------- errors

#[test]
fn error_too_short() {
    let v = vec![0u8; 0x14F];
    match err_msg(Cartridge::new(v.into())) {
        Error::InvalidRom(m) => assert!(m.contains("335") && m.contains("336"), "{m}"),
        e => panic!("{e:?}"),
    }
    match err_msg(Cartridge::new(Vec::new().into())) {
        Error::InvalidRom(m) => assert!(m.contains("0 bytes"), "{m}"),
        e => panic!("{e:?}"),
    }
}

#[test]
fn error_too_large() {
    let mut v = vec![0u8; 8 * 1024 * 1024 + 1];
    v[0x147] = 0x19;
    match err_msg(Cartridge::new(v.into())) {
        Error::InvalidRom(m) => assert!(m.contains("8388609") && m.contains("8 MiB"), "{m}"),
        e => panic!("{e:?}"),
    }
    // Exactly 8 MiB is fine.
    let c = cart(rom(0x19, 0, 512));
    assert_eq!(c.rom_banks(), 512);
}

#[test]
fn error_unsupported_types() {
    for (code, name) in [
        (0x22u8, "MBC7"),
        (0xFC, "POCKET CAMERA"),
        (0xFD, "TAMA5"),
        (0xFE, "HuC3"),
        (0xFF, "HuC1"),
        (0x0B, "MMM01"),
        (0x0D, "MMM01"),
        (0x20, "MBC6"),
    ] {
        let v = rom_image(code, 1, 0, 4);
        match err_msg(Cartridge::new(v.into())) {
            Error::UnsupportedCartridge(m) => {
                assert!(
                    m.contains(&format!("0x{code:02X}")) && m.contains(name),
                    "{m}"
                )
            }
            e => panic!("{e:?}"),
        }
    }
    for code in [0x04u8, 0x07, 0x0A, 0x0E, 0x14, 0x1F, 0x21, 0x80, 0xFB] {
        let v = rom_image(code, 1, 0, 4);
        match err_msg(Cartridge::new(v.into())) {
            Error::UnsupportedCartridge(m) => {
                assert!(
                    m.contains(&format!("0x{code:02X}")) && m.contains("unknown"),
                    "{m}"
                )
            }
            e => panic!("{e:?}"),
        }
    }
}

// ---------------------------------------------------------------- warnings

fn has_warning(c: &Cartridge, needle: &str) -> bool {
    c.warnings().iter().any(|w| w.contains(needle))
}

#[test]
fn warning_checksum() {
    let mut v = rom(0x01, 0, 4);
    let good = v[0x14D];
    v[0x14D] = good.wrapping_add(1);
    let c = cart(v);
    assert!(!c.header().checksum_ok());
    assert_eq!(c.warnings().len(), 1);
    assert!(
        has_warning(
            &c,
            &format!(
                "header has 0x{:02X}, computed 0x{good:02X}",
                good.wrapping_add(1)
            )
        ),
        "{:?}",
        c.warnings()
    );
}

#[test]
fn warning_padding() {
    // Minimal file: padded to one bank; the header's 32 KiB disagrees.
    let v = rom(0x00, 0, 2)[..0x150].to_vec();
    let c = cart(v);
    assert_eq!(c.rom_banks(), 1);
    assert_eq!(c.header().rom_size, 0x4000);
    assert!(has_warning(&c, "padded with 0xFF to 16384 bytes"));
    assert!(has_warning(
        &c,
        "header says 32 KiB (ROM size code 0x00), file has 16 KiB; using the file size"
    ));
    // Only one bank: 0x4000-0x7FFF mirrors it; padding reads 0xFF.
    assert_eq!(c.read_rom(0x4000), c.read_rom(0x0000));
    assert_eq!(c.read_rom(0x0150), 0xFF);
    assert_eq!(c.read_rom(0x7FFF), 0xFF);

    // 40000 bytes: padded to 48 KiB (3 banks); bank 3 wraps to 0 (modulo).
    let mut v = rom(0x19, 0, 4);
    v.truncate(40000);
    let c = cart(v);
    assert_eq!(c.rom_banks(), 3);
    assert!(has_warning(&c, "ROM is 40000 bytes"));
    assert!(has_warning(
        &c,
        "header says 64 KiB (ROM size code 0x01), file has 48 KiB"
    ));
    let mut c = c;
    c.write_rom(0x2000, 2, 0);
    assert_eq!(c.read_rom(0x4000), 2);
    assert_eq!(c.read_rom(40000 - 0x8000 + 0x4000 - 1), 2);
    assert_eq!(c.read_rom(40000 - 0x8000 + 0x4000), 0xFF);
    c.write_rom(0x2000, 3, 0);
    assert_eq!(hi_bank(&c), 0);
    c.write_rom(0x2000, 5, 0);
    assert_eq!(c.read_rom(0x4000), 2); // bank 2 is partly padding: no hi_bank()
}

#[test]
fn warning_rom_size_mismatch() {
    let v = rom_image(0x01, 1, 0, 8); // header 64 KiB, file 128 KiB
    let c = cart(v);
    assert!(has_warning(
        &c,
        "header says 64 KiB (ROM size code 0x01), file has 128 KiB; using the file size"
    ));
    let mut c = c;
    c.write_rom(0x2000, 7, 0);
    assert_eq!(hi_bank(&c), 7);

    let v = rom_image(0x01, 0x52, 0, 8);
    let c = cart(v);
    assert!(has_warning(
        &c,
        "header ROM size code 0x52 is invalid, file has 128 KiB; using the file size"
    ));
}

#[test]
fn warning_invalid_ram_code() {
    for code in [1u8, 6, 0xFF] {
        let mut c = cart(rom(0x03, code, 4));
        assert!(has_warning(
            &c,
            &format!("header RAM size code 0x{code:02X} is invalid; assuming no RAM")
        ));
        c.write_rom(0x0000, 0x0A, 0);
        c.write_ram(0xA000, 0x12, 0);
        assert_eq!(c.read_ram(0xA000, 0), 0xFF);
        assert!(c.battery_ram().is_empty());
    }
    // MBC2 keeps its built-in RAM whatever the code says.
    let mut c = cart(rom(0x06, 1, 4));
    assert!(has_warning(&c, "MBC2 has 512x4 bits of built-in RAM"));
    c.write_rom(0x0000, 0x0A, 0);
    c.write_ram(0xA000, 0x05, 0);
    assert_eq!(c.read_ram(0xA000, 0), 0xF5);
    assert_eq!(c.battery_ram().len(), 512);
}

#[test]
fn warning_ram_type_mismatch() {
    let c = cart(rom(0x01, 2, 4));
    assert!(has_warning(
        &c,
        "declares 8 KiB of RAM but cartridge type 0x01 (MBC1) has none"
    ));
    assert_eq!(c.header().ram_size, 0);
    let c = cart(rom(0x03, 0, 4));
    assert!(has_warning(
        &c,
        "has RAM but the header declares none; assuming 8 KiB"
    ));
    assert_eq!(c.battery_ram().len(), 8 * 1024);
    let c = cart(rom(0x03, 4, 4));
    assert!(has_warning(
        &c,
        "MBC1 addresses at most 32 KiB; using 32 KiB"
    ));
    assert_eq!(c.battery_ram().len(), 32 * 1024);
    let c = cart(rom(0x09, 3, 2));
    assert!(has_warning(&c, "at most 8 KiB; using 8 KiB"));
}

#[test]
fn rom_only_larger_than_32k() {
    let mut c = cart(rom(0x00, 0, 8));
    assert!(has_warning(
        &c,
        "ROM ONLY cartridge has 128 KiB of ROM; only the first 32 KiB are visible"
    ));
    assert_eq!(lo_bank(&c), 0);
    assert_eq!(hi_bank(&c), 1);
    for a in (0..0x8000u16).step_by(0x100) {
        c.write_rom(a, 0x03, 0);
    }
    assert_eq!(hi_bank(&c), 1);
    assert_eq!(c.read_ram(0xA000, 0), 0xFF);
}

#[test]
fn rom_ram_always_enabled() {
    let mut c = cart(rom(0x09, 2, 2));
    c.write_ram(0xA123, 0x77, 0);
    assert_eq!(c.read_ram(0xA123, 0), 0x77);
    c.write_rom(0x0000, 0x00, 0);
    assert_eq!(c.read_ram(0xA123, 0), 0x77);
}

#[test]
fn mbc_address_limit_warning() {
    let c = cart(rom(0x05, 0, 32)); // MBC2 with 512 KiB
    assert!(has_warning(
        &c,
        "MBC2 addresses at most 256 KiB; the last 256 KiB of the 512 KiB ROM are unreachable"
    ));
}

// ---------------------------------------------------------------- MBC1

#[test]
fn mbc1_bank_zero_and_quirks() {
    let mut c = cart(rom(0x01, 0, 128)); // 2 MiB
    assert_eq!(hi_bank(&c), 1);
    assert_eq!(lo_bank(&c), 0);
    c.write_rom(0x2000, 0x00, 0);
    assert_eq!(hi_bank(&c), 1);
    c.write_rom(0x2000, 0x1F, 0);
    assert_eq!(hi_bank(&c), 0x1F);
    c.write_rom(0x3FFF, 0xE5, 0); // only 5 bits
    assert_eq!(hi_bank(&c), 0x05);
    for (b2, want) in [(1u8, 0x21usize), (2, 0x41), (3, 0x61)] {
        c.write_rom(0x4000, b2, 0);
        c.write_rom(0x2000, 0x00, 0);
        assert_eq!(hi_bank(&c), want);
        c.write_rom(0x2000, 0x20, 0); // bit 5 ignored, still 0 -> 1
        assert_eq!(hi_bank(&c), want);
        c.write_rom(0x2000, 0x02, 0);
        assert_eq!(hi_bank(&c), want + 1);
    }
    c.write_rom(0x5FFF, 0xFE, 0); // BANK2 = 2 (2 bits)
    assert_eq!(hi_bank(&c), 0x42);
    assert_eq!(lo_bank(&c), 0); // mode 0
}

#[test]
fn mbc1_mode1() {
    let mut c = cart(rom(0x03, 3, 128)); // 2 MiB + 32 KiB RAM (not a real combo, but wired)
    c.write_rom(0x0000, 0x0A, 0);
    c.write_rom(0x4000, 2, 0);
    c.write_rom(0x2000, 3, 0);
    assert_eq!(lo_bank(&c), 0);
    assert_eq!(hi_bank(&c), 0x43);
    // RAM in mode 0 always bank 0.
    c.write_ram(0xA000, 0xB0, 0);
    c.write_rom(0x6000, 1, 0);
    assert_eq!(lo_bank(&c), 0x40);
    assert_eq!(hi_bank(&c), 0x43);
    c.write_ram(0xA000, 0xB2, 0); // bank 2
    c.write_rom(0x4000, 1, 0);
    assert_eq!(lo_bank(&c), 0x20);
    c.write_ram(0xA000, 0xB1, 0);
    assert_eq!(c.read_ram(0xA000, 0), 0xB1);
    c.write_rom(0x6000, 0, 0);
    assert_eq!(lo_bank(&c), 0);
    assert_eq!(c.read_ram(0xA000, 0), 0xB0);
    let ram = c.battery_ram();
    assert_eq!(ram[0], 0xB0);
    assert_eq!(ram[0x2000], 0xB1);
    assert_eq!(ram[0x4000], 0xB2);
    // Mode bit: only bit 0.
    c.write_rom(0x7FFF, 0xFE, 0);
    assert_eq!(lo_bank(&c), 0);
}

#[test]
fn mbc1_small_rom_masks_banks() {
    // 256 KiB: 16 banks. BANK1 = 0x10 is non-zero (no 0->1) but masks to 0.
    let mut c = cart(rom(0x01, 0, 16));
    c.write_rom(0x2000, 0x10, 0);
    assert_eq!(hi_bank(&c), 0);
    c.write_rom(0x2000, 0x11, 0);
    assert_eq!(hi_bank(&c), 1);
    c.write_rom(0x4000, 3, 0); // BANK2 not connected
    assert_eq!(hi_bank(&c), 1);
    c.write_rom(0x6000, 1, 0);
    assert_eq!(lo_bank(&c), 0);
}

#[test]
fn mbc1_ramg_and_ram_size_masking() {
    let mut c = cart(rom(0x03, 2, 4)); // 8 KiB RAM
    assert_eq!(c.read_ram(0xA000, 0), 0xFF);
    c.write_ram(0xA000, 0x11, 0);
    c.write_rom(0x1FFF, 0x1A, 0); // low nibble 0xA enables
    assert_eq!(c.read_ram(0xA000, 0), 0x00); // the disabled write was ignored
    c.write_ram(0xA000, 0x11, 0);
    c.write_ram(0xBFFF, 0x22, 0);
    assert_eq!(c.read_ram(0xA000, 0), 0x11);
    // 8 KiB RAM: the RAM bank in mode 1 wraps to the only bank.
    c.write_rom(0x6000, 1, 0);
    c.write_rom(0x4000, 3, 0);
    assert_eq!(c.read_ram(0xBFFF, 0), 0x22);
    c.write_rom(0x0000, 0x0B, 0);
    assert_eq!(c.read_ram(0xA000, 0), 0xFF);
    c.write_rom(0x0000, 0x0A, 0);
    assert_eq!(c.read_ram(0xA000, 0), 0x11);
    c.write_rom(0x0000, 0x00, 0);
    c.write_ram(0xA000, 0x99, 0);
    c.write_rom(0x0000, 0xFA, 0);
    assert_eq!(c.read_ram(0xA000, 0), 0x11);
}

fn multicart_image(logos: &[usize]) -> Vec<u8> {
    let mut v = rom(0x01, 0, 64); // 1 MiB
    for &q in logos {
        let at = q * 0x4_0000 + 0x104;
        v[at..at + 48].copy_from_slice(&header::NINTENDO_LOGO);
    }
    v
}

#[test]
fn mbc1_multicart() {
    let mut c = cart(multicart_image(&[1, 2, 3]));
    assert!(c.is_multicart());
    c.write_rom(0x4000, 1, 0);
    c.write_rom(0x2000, 2, 0);
    assert_eq!(hi_bank(&c), 0x12);
    c.write_rom(0x2000, 0x10, 0); // bit 4 not wired, but 0x10 != 0 so no 0->1
    assert_eq!(hi_bank(&c), 0x10);
    c.write_rom(0x2000, 0x00, 0);
    assert_eq!(hi_bank(&c), 0x11);
    c.write_rom(0x4000, 3, 0);
    assert_eq!(hi_bank(&c), 0x31);
    assert_eq!(lo_bank(&c), 0);
    c.write_rom(0x6000, 1, 0);
    assert_eq!(lo_bank(&c), 0x30);

    assert!(cart(multicart_image(&[2, 3])).is_multicart());
    // One logo is not enough, and a normal MBC1 wires 5 bits.
    let mut c = cart(multicart_image(&[3]));
    assert!(!c.is_multicart());
    c.write_rom(0x4000, 1, 0);
    c.write_rom(0x2000, 2, 0);
    assert_eq!(hi_bank(&c), 0x22);
    // Only exactly 1 MiB images qualify.
    let mut v = rom(0x01, 0, 128);
    for q in 1..8 {
        let at = q * 0x4_0000 + 0x104;
        v[at..at + 48].copy_from_slice(&header::NINTENDO_LOGO);
    }
    assert!(!cart(v).is_multicart());
}

// ---------------------------------------------------------------- MBC2

#[test]
fn mbc2_register_select_and_banks() {
    let mut c = cart(rom(0x06, 0, 16));
    assert_eq!(hi_bank(&c), 1);
    c.write_rom(0x2100, 0x05, 0);
    assert_eq!(hi_bank(&c), 5);
    c.write_rom(0x0100, 0x0A, 0); // bit 8 set: ROM bank, not RAMG
    assert_eq!(hi_bank(&c), 10);
    assert_eq!(c.read_ram(0xA000, 0), 0xFF);
    c.write_rom(0x3EFF, 0x0A, 0); // bit 8 clear: RAMG, even in 0x2000-0x3FFF
    assert_eq!(hi_bank(&c), 10);
    assert_eq!(c.read_ram(0xA000, 0), 0xF0);
    c.write_rom(0x3FFF, 0xF0, 0); // 0 -> 1, only 4 bits
    assert_eq!(hi_bank(&c), 1);
    c.write_rom(0x0100, 0x1F, 0);
    assert_eq!(hi_bank(&c), 15);
    // 0x4000-0x7FFF does nothing.
    c.write_rom(0x4100, 0x03, 0);
    c.write_rom(0x6000, 0x03, 0);
    assert_eq!(hi_bank(&c), 15);
    assert_eq!(lo_bank(&c), 0);
    c.write_rom(0x1E00, 0x00, 0);
    assert_eq!(c.read_ram(0xA000, 0), 0xFF);
}

#[test]
fn mbc2_nibble_ram_mirrored() {
    let mut c = cart(rom(0x06, 0, 4));
    c.write_rom(0x0000, 0x0A, 0);
    c.write_ram(0xA000, 0xAB, 0);
    assert_eq!(c.read_ram(0xA000, 0), 0xFB);
    for mirror in [0xA200u16, 0xA400, 0xB000, 0xBE00] {
        assert_eq!(c.read_ram(mirror, 0), 0xFB);
    }
    c.write_ram(0xBFFF, 0x37, 0);
    assert_eq!(c.read_ram(0xA1FF, 0), 0xF7);
    let ram = c.battery_ram();
    assert_eq!(ram.len(), 512);
    assert_eq!(ram[0], 0x0B);
    assert_eq!(ram[511], 0x07);
    // Loading masks to nibbles.
    let mut c2 = cart(rom(0x06, 0, 4));
    c2.load_battery_ram(&[0xFFu8; 512]).unwrap();
    c2.write_rom(0x0000, 0x0A, 0);
    assert_eq!(c2.read_ram(0xA000, 0), 0xFF);
    assert_eq!(c2.battery_ram()[0], 0x0F);
}

// ---------------------------------------------------------------- MBC3

const SEL: u16 = 0x4000;

fn mbc3_rtc() -> Cartridge {
    let mut c = cart(rom(0x10, 3, 16));
    c.write_rom(0x0000, 0x0A, 0);
    c
}

fn latch(c: &mut Cartridge, now: u64) {
    c.write_rom(0x6000, 0x00, now);
    c.write_rom(0x6000, 0x01, now);
}

fn read_rtc(c: &mut Cartridge) -> [u8; 5] {
    let mut out = [0u8; 5];
    for (i, o) in out.iter_mut().enumerate() {
        c.write_rom(SEL, 0x08 + i as u8, 0);
        *o = c.read_ram(0xA000, 0);
    }
    out
}

fn write_rtc(c: &mut Cartridge, reg: u8, value: u8, now: u64) {
    c.write_rom(SEL, reg, now);
    c.write_ram(0xA000, value, now);
}

#[test]
fn mbc3_rom_and_ram_banks() {
    let mut c = cart(rom(0x13, 3, 128));
    assert_eq!(hi_bank(&c), 1);
    c.write_rom(0x2000, 0x00, 0);
    assert_eq!(hi_bank(&c), 1);
    for b in [0x20u8, 0x40, 0x60, 0x7F] {
        c.write_rom(0x2000, b, 0);
        assert_eq!(hi_bank(&c), b as usize);
    }
    c.write_rom(0x2000, 0x80, 0); // 7 bits: 0 -> 1
    assert_eq!(hi_bank(&c), 1);
    c.write_rom(0x2000, 0x85, 0);
    assert_eq!(hi_bank(&c), 5);
    c.write_rom(0x0000, 0x0A, 0);
    for b in 0..4u8 {
        c.write_rom(SEL, b, 0);
        c.write_ram(0xA000, 0x50 + b, 0);
    }
    for b in 0..4u8 {
        c.write_rom(SEL, b, 0);
        assert_eq!(c.read_ram(0xA000, 0), 0x50 + b);
        c.write_rom(SEL, b + 4, 0); // 4..7 wrap onto 32 KiB
        assert_eq!(c.read_ram(0xA000, 0), 0x50 + b);
    }
    // No RTC on 0x13: RTC selects and other values map nothing.
    for s in [0x08u8, 0x0C, 0x0D, 0x10, 0xFF] {
        c.write_rom(SEL, s, 0);
        assert_eq!(c.read_ram(0xA000, 0), 0xFF);
        c.write_ram(0xA000, 0x12, 0);
    }
    c.write_rom(SEL, 0, 0);
    assert_eq!(c.read_ram(0xA000, 0), 0x50);
    c.write_rom(0x0000, 0x00, 0);
    assert_eq!(c.read_ram(0xA000, 0), 0xFF);
}

#[test]
fn mbc3_rtc_advances_with_emulated_time() {
    let mut c = mbc3_rtc();
    assert!(c.has_rtc());
    latch(&mut c, 0);
    assert_eq!(read_rtc(&mut c), [0, 0, 0, 0, 0]);
    let t = (86_400 + 3_600 + 5) * CPS;
    // Not latched yet: reads still return the old latched values.
    assert_eq!(read_rtc(&mut c), [0, 0, 0, 0, 0]);
    assert_eq!(c.rtc_live(t), Some([5, 0, 1, 1, 0]));
    latch(&mut c, t);
    assert_eq!(read_rtc(&mut c), [5, 0, 1, 1, 0]);
    // One cycle short of the next second.
    latch(&mut c, t + CPS - 1);
    assert_eq!(read_rtc(&mut c)[0], 5);
    latch(&mut c, t + CPS);
    assert_eq!(read_rtc(&mut c)[0], 6);
    // Latch needs 0 then 1.
    c.write_rom(0x6000, 0x01, t + 100 * CPS);
    assert_eq!(read_rtc(&mut c)[0], 6);
    c.write_rom(0x6000, 0x00, t + 100 * CPS);
    c.write_rom(0x6000, 0x02, t + 100 * CPS);
    c.write_rom(0x6000, 0x01, t + 100 * CPS);
    assert_eq!(read_rtc(&mut c)[0], 6);
    latch(&mut c, t + 100 * CPS);
    assert_eq!(read_rtc(&mut c), [45, 1, 1, 1, 0]);
    // RTC access needs RAMG.
    c.write_rom(0x0000, 0x00, 0);
    c.write_rom(SEL, 0x08, 0);
    assert_eq!(c.read_ram(0xA000, 0), 0xFF);
}

#[test]
fn mbc3_rtc_writes_set_time() {
    let mut c = mbc3_rtc();
    let t0 = 1234 * CPS + 777;
    write_rtc(&mut c, 0x08, 30, t0);
    write_rtc(&mut c, 0x09, 59, t0);
    write_rtc(&mut c, 0x0A, 23, t0);
    write_rtc(&mut c, 0x0B, 0x10, t0);
    write_rtc(&mut c, 0x0C, 0x01, t0);
    // Writes go to the live counters, not the latched copy.
    assert_eq!(read_rtc(&mut c), [0, 0, 0, 0, 0]);
    latch(&mut c, t0 + 30 * CPS);
    assert_eq!(read_rtc(&mut c), [0, 0, 0, 0x11, 0x01]);
}

#[test]
fn mbc3_rtc_seconds_write_resets_subsecond() {
    let mut c = mbc3_rtc();
    write_rtc(&mut c, 0x08, 10, CPS / 2);
    latch(&mut c, CPS / 2 + CPS - 1);
    assert_eq!(read_rtc(&mut c)[0], 10);
    latch(&mut c, CPS / 2 + CPS);
    assert_eq!(read_rtc(&mut c)[0], 11);
    // Writing minutes keeps the sub-second position.
    let mut c = mbc3_rtc();
    write_rtc(&mut c, 0x09, 5, CPS / 2);
    latch(&mut c, CPS);
    assert_eq!(read_rtc(&mut c)[..2], [1, 5]);
}

#[test]
fn mbc3_rtc_halt() {
    let mut c = mbc3_rtc();
    let t = 10 * CPS + CPS / 4;
    write_rtc(&mut c, 0x0C, 0x40, t); // halt, 1/4 s into the second
    latch(&mut c, t + 1000 * CPS);
    assert_eq!(read_rtc(&mut c), [10, 0, 0, 0, 0x40]);
    let t2 = t + 2000 * CPS;
    write_rtc(&mut c, 0x0C, 0x00, t2); // resume with 3/4 s left
    latch(&mut c, t2 + CPS * 3 / 4 - 1);
    assert_eq!(read_rtc(&mut c)[0], 10);
    latch(&mut c, t2 + CPS * 3 / 4);
    assert_eq!(read_rtc(&mut c)[0], 11);
    // Registers can be written while halted.
    write_rtc(&mut c, 0x0C, 0x40, t2 + 5 * CPS);
    write_rtc(&mut c, 0x08, 42, t2 + 6 * CPS);
    latch(&mut c, t2 + 600 * CPS);
    assert_eq!(read_rtc(&mut c)[0], 42);
}

#[test]
fn mbc3_rtc_day_carry() {
    let mut c = mbc3_rtc();
    write_rtc(&mut c, 0x08, 59, 0);
    write_rtc(&mut c, 0x09, 59, 0);
    write_rtc(&mut c, 0x0A, 23, 0);
    write_rtc(&mut c, 0x0B, 0xFF, 0);
    write_rtc(&mut c, 0x0C, 0x01, 0); // day 511
    latch(&mut c, CPS - 1);
    assert_eq!(read_rtc(&mut c), [59, 59, 23, 0xFF, 0x01]);
    latch(&mut c, CPS);
    assert_eq!(read_rtc(&mut c), [0, 0, 0, 0, 0x80]);
    // Sticky.
    latch(&mut c, CPS + 86_400 * CPS * 300);
    assert_eq!(read_rtc(&mut c), [0, 0, 0, 44, 0x81]);
    write_rtc(&mut c, 0x0C, 0x01, CPS + 86_400 * CPS * 300);
    latch(&mut c, CPS + 86_400 * CPS * 300);
    assert_eq!(read_rtc(&mut c), [0, 0, 0, 44, 0x01]);
    // Day 255 -> 256 sets DH bit 0.
    let t = CPS + 86_400 * CPS * 300;
    write_rtc(&mut c, 0x0B, 0xFF, t);
    write_rtc(&mut c, 0x0C, 0x00, t);
    latch(&mut c, t + 86_400 * CPS);
    assert_eq!(read_rtc(&mut c)[3..], [0x00, 0x01]);
}

#[test]
fn mbc3_rtc_register_bits_and_invalid_values() {
    let mut c = mbc3_rtc();
    write_rtc(&mut c, 0x0C, 0xFF, 0); // halt so nothing ticks
    for (reg, want) in [(0x08u8, 0x3Fu8), (0x09, 0x3F), (0x0A, 0x1F), (0x0B, 0xFF)] {
        write_rtc(&mut c, reg, 0xFF, 0);
        latch(&mut c, 0);
        c.write_rom(SEL, reg, 0);
        assert_eq!(c.read_ram(0xA000, 0), want);
    }
    assert_eq!(read_rtc(&mut c)[4], 0xC1);
    // Invalid time 28:63:60 ticks to 28:63:61, and S 63 -> 0 without carry.
    write_rtc(&mut c, 0x0A, 28, 0);
    write_rtc(&mut c, 0x09, 63, 0);
    write_rtc(&mut c, 0x08, 60, 0);
    write_rtc(&mut c, 0x0B, 7, 0);
    write_rtc(&mut c, 0x0C, 0x00, 0);
    latch(&mut c, CPS);
    assert_eq!(read_rtc(&mut c), [61, 63, 28, 7, 0]);
    latch(&mut c, 4 * CPS);
    assert_eq!(read_rtc(&mut c), [0, 63, 28, 7, 0]);
    // 59 -> 0 carries into an out-of-range minute, which wraps 63 -> 0
    // without carrying into the hour.
    latch(&mut c, 64 * CPS);
    assert_eq!(read_rtc(&mut c), [0, 0, 28, 7, 0]);
    // High hours: 30:59:59 -> 31:00:00, then 31 -> 0 without a day carry.
    write_rtc(&mut c, 0x0A, 30, 64 * CPS);
    write_rtc(&mut c, 0x09, 59, 64 * CPS);
    write_rtc(&mut c, 0x08, 59, 64 * CPS);
    latch(&mut c, 65 * CPS);
    assert_eq!(read_rtc(&mut c), [0, 0, 31, 7, 0]);
    latch(&mut c, 65 * CPS + 3600 * CPS);
    assert_eq!(read_rtc(&mut c), [0, 0, 0, 7, 0]);
}

/// Reference: one second at a time, straight from the documented rules.
fn tick_reference(r: &mut [u8; 5]) {
    fn inc(v: &mut u8, normal: u8, wrap: u8) -> bool {
        if *v == normal - 1 {
            *v = 0;
            true
        } else {
            *v = (*v + 1) % wrap;
            false
        }
    }
    if inc(&mut r[0], 60, 64) && inc(&mut r[1], 60, 64) && inc(&mut r[2], 24, 32) {
        let d = (((r[4] & 1) as u16) << 8 | r[3] as u16) + 1;
        if d == 512 {
            r[4] |= 0x80;
        }
        let d = d % 512;
        r[3] = d as u8;
        r[4] = (r[4] & !1) | (d >> 8) as u8;
    }
}

#[test]
fn mbc3_rtc_closed_form_matches_reference() {
    let mut seed = 0x1234_5678_9ABC_DEF0u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as u32
    };
    for _ in 0..300 {
        let mut c = mbc3_rtc();
        let start = [
            (next() % 64) as u8,
            (next() % 64) as u8,
            (next() % 32) as u8,
            next() as u8,
            (next() % 2) as u8 | if next() % 2 == 0 { 0x80 } else { 0 },
        ];
        for (i, &v) in start.iter().enumerate() {
            write_rtc(&mut c, 0x08 + i as u8, v, 0);
        }
        let n = match next() % 3 {
            0 => next() % 100,
            1 => next() % 5_000,
            _ => next() % 200_000,
        } as u64;
        let mut want = start;
        for _ in 0..n {
            tick_reference(&mut want);
        }
        assert_eq!(c.rtc_live(n * CPS), Some(want), "start {start:?} + {n} s");
        // Catching up in several steps gives the same result.
        let mut t = 0;
        while t < n * CPS {
            t = (t + (next() as u64 % (3 * CPS))).min(n * CPS);
            latch(&mut c, t);
        }
        latch(&mut c, n * CPS);
        assert_eq!(
            c.rtc_latched(),
            Some(want),
            "start {start:?} + {n} s (steps)"
        );
    }
}

#[test]
fn mbc3_rtc_extreme_times() {
    let mut c = mbc3_rtc();
    latch(&mut c, u64::MAX);
    let r = read_rtc(&mut c);
    assert!(r[0] < 60 && r[1] < 60 && r[2] < 24);
    // Time going backwards: no advance, no panic.
    latch(&mut c, 5);
    assert_eq!(read_rtc(&mut c), r);
    latch(&mut c, 5 + CPS);
    let r2 = read_rtc(&mut c);
    assert_eq!(r2[0], (r[0] + 1) % 60);
}

// ---------------------------------------------------------------- MBC5

#[test]
fn mbc5_banks() {
    let mut c = cart(rom(0x19, 0, 512)); // 8 MiB
    assert_eq!(hi_bank(&c), 1);
    c.write_rom(0x2000, 0x00, 0);
    assert_eq!(hi_bank(&c), 0); // bank 0 is bank 0
    c.write_rom(0x2FFF, 0xFF, 0);
    assert_eq!(hi_bank(&c), 0xFF);
    c.write_rom(0x3000, 0x01, 0);
    assert_eq!(hi_bank(&c), 0x1FF);
    c.write_rom(0x2000, 0x23, 0);
    assert_eq!(hi_bank(&c), 0x123);
    c.write_rom(0x3FFF, 0xFE, 0); // only bit 0
    assert_eq!(hi_bank(&c), 0x023);
    c.write_rom(0x6000, 0xFF, 0);
    assert_eq!(hi_bank(&c), 0x023);
    assert_eq!(lo_bank(&c), 0);
    // Smaller ROM: wraps by the bank count.
    let mut c = cart(rom(0x19, 0, 64));
    c.write_rom(0x3000, 1, 0);
    c.write_rom(0x2000, 0x45, 0);
    assert_eq!(hi_bank(&c), 0x145 % 64);
}

#[test]
fn mbc5_ram_and_rumble() {
    let mut c = cart(rom(0x1B, 4, 4)); // 128 KiB RAM
    c.write_rom(0x0000, 0x1A, 0); // MBC5 compares all 8 bits
    c.write_ram(0xA000, 1, 0);
    assert_eq!(c.read_ram(0xA000, 0), 0xFF);
    c.write_rom(0x0000, 0x0A, 0);
    for b in 0..16u8 {
        c.write_rom(0x4000, b, 0);
        c.write_ram(0xA000, 0x80 | b, 0);
    }
    for b in 0..16u8 {
        c.write_rom(0x5FFF, b | 0xF0, 0);
        assert_eq!(c.read_ram(0xA000, 0), 0x80 | b);
    }
    assert!(!c.rumble());

    let mut c = cart(rom(0x1E, 3, 4)); // rumble + 32 KiB RAM
    c.write_rom(0x0000, 0x0A, 0);
    c.write_rom(0x4000, 0x02, 0);
    c.write_ram(0xA000, 0x22, 0);
    c.write_rom(0x4000, 0x0A, 0); // motor on, bank 2
    assert!(c.rumble());
    assert_eq!(c.read_ram(0xA000, 0), 0x22);
    c.write_rom(0x4000, 0x00, 0);
    assert!(!c.rumble());
    assert_eq!(c.read_ram(0xA000, 0), 0x00);
}

// ---------------------------------------------------------------- state

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 16
    }
    fn byte(&mut self) -> u8 {
        self.next() as u8
    }
}

/// Random MBC register writes and RAM traffic; returns the new `now`.
fn scramble(c: &mut Cartridge, rng: &mut Lcg, now: u64, n: usize) -> u64 {
    let mut now = now;
    for _ in 0..n {
        now += rng.next() % (CPS / 2);
        match rng.next() % 4 {
            0 => {
                // Keep RAM mostly enabled.
                let v = if rng.next() % 4 == 0 {
                    rng.byte()
                } else {
                    0x0A
                };
                c.write_rom(0x0000, v, now);
            }
            1 => {
                let a = (rng.next() as u16) & 0x7FFF;
                c.write_rom(a, rng.byte(), now);
            }
            _ => {
                let a = 0xA000 | (rng.next() as u16 & 0x1FFF);
                c.write_ram(a, rng.byte(), now);
            }
        }
    }
    now
}

fn snapshot(c: &Cartridge, now: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for a in (0..0x8000u16).step_by(0x3FF) {
        out.push(c.read_rom(a));
    }
    out.push(c.read_rom(0x7FFE));
    for a in (0xA000..0xC000u32).step_by(0x1FF) {
        out.push(c.read_ram(a as u16, now));
    }
    out.extend(c.battery_ram());
    out.extend(c.rtc_live(now).unwrap_or_default());
    out.push(c.rumble() as u8);
    out
}

fn save(c: &Cartridge) -> Vec<u8> {
    let mut w = StateWriter::new();
    c.save(&mut w);
    w.into_bytes()
}

fn load(c: &mut Cartridge, bytes: &[u8]) -> Result<()> {
    let mut r = StateReader::new(bytes);
    c.load(&mut r)?;
    assert_eq!(r.remaining(), 0);
    Ok(())
}

fn test_images() -> Vec<Vec<u8>> {
    vec![
        rom(0x00, 0, 2),
        rom(0x09, 2, 2),
        rom(0x03, 3, 64),
        multicart_image(&[1, 2, 3]),
        rom(0x06, 0, 16),
        rom(0x10, 3, 128),
        rom(0x0F, 0, 8),
        rom(0x13, 5, 32),
        rom(0x1B, 4, 256),
        rom(0x1E, 3, 32),
    ]
}

#[test]
fn state_round_trip_is_bit_identical() {
    let mut rng = Lcg(42);
    for image in test_images() {
        let mut a = cart(image.clone());
        let now = scramble(&mut a, &mut rng, 0, 3000);
        let bytes = save(&a);
        let mut b = cart(image);
        scramble(&mut b, &mut Lcg(7), 0, 500); // different state before load
        load(&mut b, &bytes).unwrap();
        assert_eq!(snapshot(&a, now), snapshot(&b, now));
        assert_eq!(save(&a), save(&b));
        // Continuing with the same inputs stays identical.
        let mut r1 = Lcg(99);
        let mut r2 = Lcg(99);
        let n1 = scramble(&mut a, &mut r1, now, 2000);
        let n2 = scramble(&mut b, &mut r2, now, 2000);
        assert_eq!(n1, n2);
        assert_eq!(snapshot(&a, n1), snapshot(&b, n2));
        assert_eq!(save(&a), save(&b));
    }
}

#[test]
fn state_rtc_continues_identically() {
    let mut a = mbc3_rtc();
    write_rtc(&mut a, 0x08, 17, CPS / 3);
    latch(&mut a, 5 * CPS + 11);
    let bytes = save(&a);
    let mut b = mbc3_rtc();
    load(&mut b, &bytes).unwrap();
    for t in [6 * CPS, 100 * CPS + 5, 86_400 * CPS * 3 + 17] {
        latch(&mut a, t);
        latch(&mut b, t);
        assert_eq!(read_rtc(&mut a), read_rtc(&mut b));
    }
    // 3 days + 17 cycles after the S write at CPS / 3: 3 * 86400 - 1 ticks.
    assert_eq!(read_rtc(&mut b)[0], ((17 + 86_400 * 3 - 1) % 60) as u8);
}

fn expect_state_err(c: &mut Cartridge, bytes: &[u8], needle: &str) {
    let before = save(c);
    match load(c, bytes) {
        Err(Error::InvalidState(m)) => assert!(m.contains(needle), "{m:?} lacks {needle:?}"),
        other => panic!("expected InvalidState containing {needle:?}, got {other:?}"),
    }
    assert_eq!(
        save(c),
        before,
        "a failed load must not change the cartridge"
    );
}

#[test]
fn state_corruption_is_rejected() {
    // MBC1 layout: tag(4) len(4) fingerprint(8) type(1) mbc(1) ramg bank1 bank2 mode.
    let mut c = cart(rom(0x03, 2, 16));
    scramble(&mut c, &mut Lcg(3), 0, 100);
    let good = save(&c);
    let mut fresh = cart(rom(0x03, 2, 16));

    let mut s = good.clone();
    s[0] = b'X';
    expect_state_err(&mut fresh, &s, "expected section");
    let mut s = good.clone();
    s[8] ^= 1;
    expect_state_err(&mut fresh, &s, "another ROM");
    let mut s = good.clone();
    s[16] = 0x13;
    expect_state_err(&mut fresh, &s, "cartridge type is 0x13");
    let mut s = good.clone();
    s[17] = 3;
    expect_state_err(&mut fresh, &s, "MBC tag is 3");
    let mut s = good.clone();
    s[18] = 2;
    expect_state_err(&mut fresh, &s, "boolean");
    let mut s = good.clone();
    s[19] = 0x25;
    expect_state_err(
        &mut fresh,
        &s,
        "MBC1 BANK1 register is 0x25, must be at most 0x1F",
    );
    let mut s = good.clone();
    s[20] = 4;
    expect_state_err(&mut fresh, &s, "MBC1 BANK2 register is 0x4");
    // RAM length prefix at 22..26.
    let mut s = good.clone();
    s[22..26].copy_from_slice(&(0x1000u32).to_le_bytes());
    expect_state_err(&mut fresh, &s, "");
    for cut in [0, 3, 10, 20, good.len() - 1] {
        expect_state_err(&mut fresh, &good[..cut], "truncated");
    }
    // State from another ROM entirely.
    let other = save(&cart(rom(0x03, 2, 8)));
    expect_state_err(&mut fresh, &other, "another ROM");
    // And the good one loads.
    load(&mut fresh, &good).unwrap();
    assert_eq!(snapshot(&fresh, 0), snapshot(&c, 0));
}

#[test]
fn state_ram_length_must_match() {
    // Build a state whose RAM field has the wrong length but a valid frame.
    let c = cart(rom(0x03, 2, 4));
    let mut w = StateWriter::new();
    w.begin_section(b"CART");
    w.u64(c.rom_fingerprint());
    w.u8(0x03);
    w.u8(1);
    w.bool(true);
    w.u8(1);
    w.u8(0);
    w.bool(false);
    w.bytes(&[0u8; 100]);
    w.bool(false);
    w.end_section();
    let mut fresh = cart(rom(0x03, 2, 4));
    expect_state_err(
        &mut fresh,
        &w.into_bytes(),
        "cartridge RAM has 100 bytes, expected 8192",
    );
}

#[test]
fn state_corrupted_rtc_and_mbc2_ram() {
    let c = mbc3_rtc();
    let good = save(&c);
    // MBC3 layout: ...tag(1) ramg romb select latch | ram len(4) + 32768 | has_rtc | live[5] latched[5] sub(8) last(8) rebase
    let rtc_at = 18 + 4 + 4 + 32 * 1024 + 1;
    let mut fresh = mbc3_rtc();
    let mut s = good.clone();
    s[rtc_at] = 60 | 0x40; // S with invalid bit 6
    expect_state_err(&mut fresh, &s, "live RTC register S is 0x7C");
    let mut s = good.clone();
    s[rtc_at + 9] = 0x02;
    expect_state_err(&mut fresh, &s, "latched RTC register DH is 0x02");
    let mut s = good.clone();
    s[rtc_at + 10..rtc_at + 18].copy_from_slice(&CPS.to_le_bytes());
    expect_state_err(&mut fresh, &s, "sub-second counter is 4194304");
    let mut s = good.clone();
    s[rtc_at - 1] = 0;
    expect_state_err(&mut fresh, &s, "");
    let mut s = good.clone();
    s[19] = 0x80;
    expect_state_err(&mut fresh, &s, "MBC3 ROM bank register is 0x80");

    let c = cart(rom(0x06, 0, 4));
    let mut s = save(&c);
    // MBC2: tag(1) ramg romb | len(4) ram[512]
    s[18 + 2 + 4 + 7] = 0x10;
    let mut fresh = cart(rom(0x06, 0, 4));
    expect_state_err(&mut fresh, &s, "MBC2 RAM byte 7 is 0x10");

    let c = cart(rom(0x1B, 3, 4));
    let mut s = save(&c);
    s[19..21].copy_from_slice(&0x200u16.to_le_bytes());
    let mut fresh = cart(rom(0x1B, 3, 4));
    expect_state_err(&mut fresh, &s, "MBC5 ROM bank register is 0x200");
}

// ---------------------------------------------------------------- battery

#[test]
fn battery_ram_round_trip() {
    let mut a = cart(rom(0x1B, 3, 8));
    a.write_rom(0x0000, 0x0A, 0);
    for bank in 0..4u8 {
        a.write_rom(0x4000, bank, 0);
        for i in 0..0x2000u16 {
            a.write_ram(0xA000 + i, (i as u8) ^ bank.wrapping_mul(37), 0);
        }
    }
    let data = a.battery_ram();
    assert_eq!(data.len(), 32 * 1024);
    let mut b = cart(rom(0x1B, 3, 8));
    b.load_battery_ram(&data).unwrap();
    assert_eq!(b.battery_ram(), data);
    b.write_rom(0x0000, 0x0A, 0);
    b.write_rom(0x4000, 2, 0);
    assert_eq!(b.read_ram(0xA005, 0), 5 ^ 74);

    match b.load_battery_ram(&data[1..]) {
        Err(Error::InvalidArgument(m)) => {
            assert!(m.contains("32767") && m.contains("32768"), "{m}")
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        cart(rom(0x01, 0, 4)).load_battery_ram(&[0]),
        Err(Error::InvalidArgument(_))
    ));
    cart(rom(0x01, 0, 4)).load_battery_ram(&[]).unwrap();
}

#[test]
fn battery_ram_with_rtc_block() {
    let mut a = mbc3_rtc();
    a.write_rom(SEL, 1, 0);
    a.write_ram(0xA010, 0x5A, 0);
    let t = (2 * 86_400 + 3 * 3600 + 4 * 60 + 5) * CPS + CPS / 2;
    latch(&mut a, t);
    let data = a.battery_ram();
    assert_eq!(data.len(), 32 * 1024 + 48);
    assert_eq!(data[0x2010], 0x5A);
    let block = &data[32 * 1024..];
    for (i, want) in [5u32, 4, 3, 2, 0, 5, 4, 3, 2, 0].iter().enumerate() {
        assert_eq!(&block[i * 4..i * 4 + 4], &want.to_le_bytes());
    }
    assert_eq!(&block[40..48], &(CPS / 2).to_le_bytes());

    // Loaded at some later emulated time: the clock resumes from the saved
    // values at the next access.
    let mut b = mbc3_rtc();
    b.load_battery_ram(&data).unwrap();
    assert_eq!(read_rtc(&mut b), [5, 4, 3, 2, 0]);
    let t0 = 1_000 * CPS;
    latch(&mut b, t0);
    assert_eq!(read_rtc(&mut b), [5, 4, 3, 2, 0]);
    latch(&mut b, t0 + CPS / 2);
    assert_eq!(read_rtc(&mut b), [6, 4, 3, 2, 0]);
    b.write_rom(SEL, 1, 0);
    assert_eq!(b.read_ram(0xA010, 0), 0x5A);

    // RAM alone is accepted for an RTC cartridge; anything else is not.
    let mut c = mbc3_rtc();
    c.load_battery_ram(&data[..32 * 1024]).unwrap();
    match c.load_battery_ram(&data[..32 * 1024 + 44]) {
        Err(Error::InvalidArgument(m)) => {
            assert!(m.contains("32812") && m.contains("32816"), "{m}")
        }
        other => panic!("{other:?}"),
    }
    // Garbage in the block is masked, not trusted.
    let mut junk = data.clone();
    junk[32 * 1024..].fill(0xFF);
    c.load_battery_ram(&junk).unwrap();
    assert_eq!(read_rtc(&mut c), [0x3F, 0x3F, 0x1F, 0xFF, 0xC1]);

    // Timer without RAM: just the block.
    let d = cart(rom(0x0F, 0, 4));
    assert_eq!(d.battery_ram().len(), 48);
}

// ---------------------------------------------------------------- fuzz

#[test]
fn random_roms_never_panic() {
    const TYPES: [u8; 19] = [
        0x00, 0x01, 0x02, 0x03, 0x05, 0x06, 0x08, 0x09, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x19, 0x1A,
        0x1B, 0x1C, 0x1D, 0x1E,
    ];
    let mut rng = Lcg(0xDEAD_BEEF);
    let mut accepted = 0;
    for iter in 0..3000 {
        let len = match rng.next() % 8 {
            0 => (rng.next() % 0x200) as usize,
            1 => 0x4000 * (1 + (rng.next() % 4) as usize),
            2 => 0x10_0000,
            _ => (rng.next() % 0x2_0000) as usize,
        };
        let mut v: Vec<u8> = (0..len).map(|_| rng.byte()).collect();
        if len > 0x14F && rng.next() % 4 != 0 {
            v[0x147] = TYPES[(rng.next() % TYPES.len() as u64) as usize];
            if rng.next() % 2 == 0 {
                v[0x148] = (rng.next() % 10) as u8;
                v[0x149] = (rng.next() % 7) as u8;
            }
        }
        if len == 0x10_0000 && iter % 2 == 0 {
            v[0x40104..0x40134].copy_from_slice(&header::NINTENDO_LOGO);
            v[0x80104..0x80134].copy_from_slice(&header::NINTENDO_LOGO);
        }
        let Ok(mut c) = Cartridge::new(v.into()) else {
            continue;
        };
        accepted += 1;
        let _ = (c.title(), c.type_name(), c.header().checksum_ok());
        let mut now = rng.next();
        for _ in 0..300 {
            now = now.wrapping_add(rng.next() % (4 * CPS));
            let addr = rng.next() as u16;
            let v = rng.byte();
            match rng.next() % 5 {
                0 => c.write_rom(addr, v, now),
                1 => c.write_ram(addr, v, now),
                2 => {
                    let _ = c.read_rom(addr);
                }
                3 => {
                    let _ = c.read_ram(addr, now);
                }
                _ => c.write_rom(addr & 0x7FFF, v, now),
            }
        }
        let data = c.battery_ram();
        let mut junk = data.clone();
        for b in &mut junk {
            *b = rng.byte();
        }
        c.load_battery_ram(&junk).unwrap();
        let _ = c.load_battery_ram(&junk[..junk.len().saturating_sub(1)]);
        let s = save(&c);
        let mut d = c.clone();
        load(&mut d, &s).unwrap();
        // Random corruption of a state never panics.
        let mut bad = s.clone();
        if !bad.is_empty() {
            let i = (rng.next() as usize) % bad.len();
            bad[i] ^= 1 << (rng.next() % 8);
        }
        let _ = load(&mut d, &bad);
        let cut = (rng.next() as usize) % (s.len() + 1);
        let mut r = StateReader::new(&s[..cut]);
        let _ = d.load(&mut r);
        let _ = d.rtc_live(u64::MAX);
    }
    assert!(accepted > 1000, "only {accepted} ROMs accepted");
}

// ---------------------------------------------------------------- real ROMs

/// The Mooneye emulator-only MBC test ROMs (when present) load without
/// warnings, and only the multicart one is detected as MBC1M.
#[test]
fn mooneye_headers() {
    let dir = crate::test_roms::roms_dir().join("mooneye/emulator-only");
    let groups = match std::fs::read_dir(&dir) {
        Ok(groups) => groups,
        Err(e) => {
            crate::test_roms::missing(&format!("{}", dir.display()), &e.to_string());
            return;
        }
    };
    let mut checked = 0;
    for group in groups.flatten() {
        let Ok(files) = std::fs::read_dir(group.path()) else {
            continue;
        };
        for f in files.flatten() {
            let path = f.path();
            if path.extension().and_then(|e| e.to_str()) != Some("gb") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let c = Cartridge::new(bytes.into()).unwrap();
            assert!(c.warnings().is_empty(), "{path:?}: {:?}", c.warnings());
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            assert_eq!(c.is_multicart(), name.starts_with("multicart"), "{name}");
            checked += 1;
        }
    }
    // mbc1 (13 ROMs), mbc2 (7), mbc5 (8).
    assert_eq!(checked, 28, "MBC test ROMs found in {}", dir.display());
}
