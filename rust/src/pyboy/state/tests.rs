use super::parse::parse;
use crate::error::Error;
use crate::gameboy::GameBoy;

fn rom() -> Vec<u8> {
    vec![0u8; 0x8000]
}

fn message(data: &[u8]) -> String {
    match parse(data, &rom()) {
        Err(Error::InvalidState(m)) => m,
        other => panic!("expected an error, got {:?}", other.map(|s| s.version)),
    }
}

#[test]
fn other_versions_and_truncated_states_are_refused_by_name() {
    assert!(message(&[]).contains("empty"));
    let m = message(&[28, 0, 0, 0, 0, 0]);
    assert!(m.contains("version 28") && m.contains("version 29"), "{m}");
    let m = message(&[29, 0, 0, 0, 0, 1, 0, 0]);
    assert!(m.contains("truncated") && m.contains("HDMA"), "{m}");
    let m = message(&[29, 0, 0, 0, 0, 0, 1, 2]);
    assert!(m.contains("truncated") && m.contains("offset 8"), "{m}");
}

/// A ROM-only cartridge whose loop writes SCX and WRAM: 0x0150 INC A;
/// LDH (SCX),A; LD (0xC000),A; JR back.
fn busy_rom() -> Vec<u8> {
    let mut rom = rom();
    rom[0x100..0x103].copy_from_slice(&[0xC3, 0x50, 0x01]);
    rom[0x150..0x158].copy_from_slice(&[0x3C, 0xE0, 0x43, 0xEA, 0x00, 0xC0, 0x18, 0xF6]);
    rom
}

#[test]
fn a_written_pyboy_state_reads_back_as_the_same_machine() {
    let mut gb = GameBoy::new(&busy_rom(), None).unwrap();
    gb.record_line_registers(true);
    let mut hooks = crate::pyboy::hooks::HookTable::new();
    for _ in 0..3 {
        gb.run_pyboy_frame(false, &mut hooks);
    }
    let state = gb.save_pyboy_state().expect("at a PyBoy frame end");
    let mut copy = GameBoy::new(&busy_rom(), None).unwrap();
    copy.record_line_registers(true);
    copy.load_pyboy_state(&state).unwrap();
    for _ in 0..5 {
        gb.run_pyboy_frame(true, &mut hooks);
        copy.run_pyboy_frame(true, &mut hooks);
        assert_eq!(gb.cycles(), copy.cycles());
        assert_eq!(gb.registers(), copy.registers());
        assert_eq!(gb.ram(), copy.ram());
    }
    // Written again from the copy: the same bytes.
    let (a, b) = (
        gb.save_pyboy_state().unwrap(),
        copy.save_pyboy_state().unwrap(),
    );
    assert_eq!(a.len(), b.len());
    let first = a.iter().zip(&b).position(|(x, y)| x != y);
    assert_eq!(first, None, "the two states differ from byte {first:?}");
}

/// A CGB-only cartridge (header 0xC0) whose program selects the
/// buttons in P1, switches to double
/// speed, fills palettes, VRAM bank 1 and WRAM banks, starts an HBlank
/// DMA and then loops writing SCX, a banked WRAM byte and BCPD.
fn cgb_rom() -> Vec<u8> {
    let mut rom = rom();
    rom[0x143] = 0xC0;
    rom[0x100..0x103].copy_from_slice(&[0xC3, 0x50, 0x01]);
    #[rustfmt::skip]
    let code = [
        0x3E, 0x10, 0xE0, 0x00, // P1: the buttons (PyBoy's 0xCF is ambiguous)
        0x3E, 0x01, 0xE0, 0x4D, 0x10, 0x00, // KEY1 = 1; STOP: double speed
        0x3E, 0x80, 0xE0, 0x68, // BCPS: auto-increment from 0
        0x06, 0x40, 0x78, 0xE0, 0x69, 0x05, 0x20, 0xFA, // 64 bytes of BCPD
        0x3E, 0x01, 0xE0, 0x4F, // VBK = 1
        0x3E, 0x23, 0xEA, 0x00, 0x98, // attributes of map tile 0
        0x3E, 0x05, 0xE0, 0x70, // SVBK = 5
        0x3E, 0x55, 0xEA, 0x34, 0xD2, // [0xD234] = 0x55 in bank 5
        0x3E, 0xC0, 0xE0, 0x51, 0xAF, 0xE0, 0x52, // HDMA source 0xC000
        0x3E, 0x81, 0xE0, 0x53, 0xAF, 0xE0, 0x54, // HDMA destination 0x8100
        0x3E, 0x90, 0xE0, 0x55, // HBlank DMA, 17 blocks
        0x3E, 0x3E, 0xEA, 0xA3, 0xFE, // [0xFEA3] = 0x3E (memory on a CGB)
        0x3C, 0xE0, 0x43, 0xEA, 0x00, 0xD1, 0xE0, 0x69, 0x18, 0xF6, // loop
    ];
    rom[0x150..0x150 + code.len()].copy_from_slice(&code);
    rom
}

#[test]
fn a_cgb_pyboy_state_reads_back_as_the_same_machine() {
    let new = || {
        let mut gb = GameBoy::with_model(&cgb_rom(), None, crate::cgb::Model::Cgb).unwrap();
        gb.record_line_registers(true);
        gb
    };
    let mut gb = new();
    let mut hooks = crate::pyboy::hooks::HookTable::new();
    for _ in 0..3 {
        gb.run_pyboy_frame(true, &mut hooks);
    }
    assert!(gb.hardware().cgb.as_ref().unwrap().double, "double speed");
    let state = gb.save_pyboy_state().expect("at a PyBoy frame end");
    let mut copy = new();
    copy.load_pyboy_state(&state).unwrap();
    for _ in 0..5 {
        gb.run_pyboy_frame(true, &mut hooks);
        copy.run_pyboy_frame(true, &mut hooks);
        assert_eq!(gb.cycles(), copy.cycles());
        assert_eq!(gb.registers(), copy.registers());
        assert!(gb.ram() == copy.ram(), "work RAM and HRAM");
        for bank in 0..8 {
            let read = |g: &GameBoy| g.read_bank(crate::cgb::BankedRegion::Wram, bank, 0, 0x1000);
            assert!(
                read(&gb).unwrap() == read(&copy).unwrap(),
                "WRAM bank {bank}"
            );
        }
        assert!(gb.screen().rgb() == copy.screen().rgb(), "the screen");
    }
    let (a, b) = (
        gb.save_pyboy_state().unwrap(),
        copy.save_pyboy_state().unwrap(),
    );
    let first = a.iter().zip(&b).position(|(x, y)| x != y);
    assert_eq!((a.len(), first), (b.len(), None), "the two states differ");
    // A DMG's state into a CGB and the reverse are refused by name.
    let mut dmg = GameBoy::new(&busy_rom(), None).unwrap();
    let err = dmg.load_pyboy_state(&state).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidState(m) if m.contains("model=\"cgb\"")),
        "{err:?}"
    );
    let mut hooks = crate::pyboy::hooks::HookTable::new();
    dmg.run_pyboy_frame(false, &mut hooks);
    dmg.run_pyboy_frame(false, &mut hooks);
    let dmg_state = dmg.save_pyboy_state().unwrap();
    let err = new().load_pyboy_state(&dmg_state).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidState(m) if m.contains("model=\"dmg\"")),
        "{err:?}"
    );
}

#[test]
fn a_pyboy_state_is_written_only_at_a_pyboy_frame_end() {
    let mut gb = GameBoy::new(&busy_rom(), None).unwrap();
    gb.run_frames(3, false); // emurust's own frames end at VBlank
    let err = gb.save_pyboy_state().unwrap_err();
    assert!(
        matches!(&err, Error::InvalidState(m) if m.contains("frame end")),
        "{err:?}"
    );
}

#[test]
fn a_state_longer_than_its_fields_is_refused() {
    // Fields of a ROM-only cartridge without RAM..., then one byte too many.
    let mut gb = GameBoy::new(&rom(), None).unwrap();
    let before = gb.save_state();
    let err = gb.load_pyboy_state(&[29; 200_000]).unwrap_err();
    assert!(matches!(err, Error::InvalidState(_)));
    assert_eq!(
        gb.save_state(),
        before,
        "a refused state leaves the machine unchanged"
    );
}
