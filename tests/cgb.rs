//! The Game Boy Color (`Model::Cgb`): Mooneye's CGB tests, the DMG-only
//! ROMs that must fail on a CGB, cgb-acid2, and the CGB's registers, banks
//! and DMA. Every ROM runs on the fast path and on the reference path,
//! which must end in the same state.
mod common;

use emurust::screen::ColorConversion;
use emurust::{GameBoy, Model};

/// Run a Mooneye ROM on a CGB, both paths; the verdict of the fast path,
/// after checking the reference path ends identically.
fn mooneye_cgb(rel: &str) -> Option<Result<(), String>> {
    let rom = common::load(rel)?;
    let mut verdicts = Vec::new();
    let mut regs = Vec::new();
    for reference in [false, true] {
        let mut gb = GameBoy::with_model(&rom, None, Model::Cgb).expect("ROM loads");
        gb.set_reference_mode(reference);
        verdicts.push(common::run_mooneye_gb(&mut gb, 1200));
        regs.push((gb.registers(), gb.cycles()));
    }
    assert_eq!(
        regs[0], regs[1],
        "{rel}: the fast and the reference path end differently"
    );
    Some(verdicts.swap_remove(0))
}

macro_rules! mooneye_cgb {
    ($($name:ident: $path:expr;)*) => {
        $(
            #[test]
            fn $name() {
                if let Some(Err(e)) = mooneye_cgb($path) {
                    panic!("{}: {e}", $path);
                }
            }
        )*
    };
}

mooneye_cgb! {
    mooneye_boot_regs_cgb: "mooneye/misc/boot_regs-cgb.gb";
    mooneye_boot_div_cgb_abcde: "mooneye/misc/boot_div-cgbABCDE.gb";
    mooneye_boot_hwio_c: "mooneye/misc/boot_hwio-C.gb";
    mooneye_bits_unused_hwio_c: "mooneye/misc/bits/unused_hwio-C.gb";
    mooneye_ppu_vblank_stat_intr_c: "mooneye/misc/ppu/vblank_stat_intr-C.gb";
}

/// ROMs for other models that a CGB must fail (they check what differs):
/// passing them would mean the CGB behaves like a DMG where it must not.
#[test]
fn dmg_only_roms_fail_on_a_cgb() {
    for rel in [
        "mooneye/acceptance/boot_regs-dmgABC.gb",
        "mooneye/acceptance/boot_div-dmgABCmgb.gb",
        "mooneye/acceptance/boot_hwio-dmgABCmgb.gb",
        "mooneye/acceptance/bits/unused_hwio-GS.gb",
        "mooneye/misc/boot_regs-A.gb",
        "mooneye/misc/boot_div-A.gb",
        "mooneye/misc/boot_div-cgb0.gb",
    ] {
        if let Some(verdict) = mooneye_cgb(rel) {
            assert!(verdict.is_err(), "{rel} passes on a CGB");
        }
    }
}

// ---- cgb-acid2 -----------------------------------------------------------------

const WIDTH: usize = 160;
const HEIGHT: usize = 144;

/// Decode a PNG to RGB bytes, row-major.
fn load_png_rgb(path: &std::path::Path) -> Result<Vec<u8>, String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let file = std::fs::File::open(path).map_err(|e| err(&e))?;
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().map_err(|e| err(&e))?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| err(&"image too large"))?;
    let mut buf = vec![0; size];
    let info = reader.next_frame(&mut buf).map_err(|e| err(&e))?;
    if (info.width as usize, info.height as usize) != (WIDTH, HEIGHT) {
        return Err(err(&format!("{}x{} image", info.width, info.height)));
    }
    let channels = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        other => return Err(err(&format!("colour type {other:?}, expected RGB"))),
    };
    let mut rgb = Vec::with_capacity(WIDTH * HEIGHT * 3);
    for y in 0..HEIGHT {
        let row = &buf[y * info.line_size..];
        for x in 0..WIDTH {
            rgb.extend_from_slice(&row[x * channels..x * channels + 3]);
        }
    }
    Ok(rgb)
}

/// cgb-acid2 after `frames` frames (the last one drawn) in the reference
/// image's colour conversion; the differing pixels and the rows they are on.
fn cgb_acid2(reference: bool, every_frame: bool) -> Option<(usize, Vec<usize>)> {
    let rom = common::load("acid2/cgb-acid2.gbc")?;
    let expected = load_png_rgb(&common::roms_dir().join("acid2/cgb-acid2-reference.png"))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut gb = GameBoy::with_model(&rom, None, Model::auto(&rom)).expect("ROM loads");
    assert_eq!(
        gb.model(),
        Model::Cgb,
        "cgb-acid2 is CGB-only: auto picks the CGB"
    );
    gb.set_reference_mode(reference);
    gb.set_color_conversion(ColorConversion::Full);
    if every_frame {
        for _ in 0..120 {
            gb.run_frame(true);
        }
    } else {
        gb.run_frames(120, true);
    }
    let actual = gb.screen().rgb();
    let mut rows = Vec::new();
    let mut n = 0;
    for y in 0..HEIGHT {
        let w = WIDTH * 3;
        let d = (0..WIDTH)
            .filter(|x| {
                actual[y * w + x * 3..y * w + x * 3 + 3]
                    != expected[y * w + x * 3..y * w + x * 3 + 3]
            })
            .count();
        if d > 0 {
            rows.push(y);
            n += d;
        }
    }
    Some((n, rows))
}

#[test]
fn cgb_acid2_pixel_exact() {
    for (reference, every_frame) in [(false, false), (false, true), (true, false)] {
        if let Some((n, rows)) = cgb_acid2(reference, every_frame) {
            assert_eq!(
                n, 0,
                "cgb-acid2 (reference path {reference}, every frame {every_frame}): {n} pixels \
                 differ, rows {rows:?}"
            );
        }
    }
}

// ---- CGB hardware on a built ROM --------------------------------------------------

/// What the fast and reference paths must agree on: registers, the clock,
/// every address the CPU sees from 0x8000 on, VRAM bank 1, the palettes.
fn machine_view(gb: &GameBoy) -> (emurust::Registers, u64, Vec<u8>) {
    let mut bytes: Vec<u8> = (0x8000..=0xFFFFu16).map(|a| gb.peek(a)).collect();
    let ppu = &gb.hardware().ppu;
    bytes.extend_from_slice(ppu.vram1().map_or(&[][..], |v| &v[..]));
    bytes.extend_from_slice(ppu.palette_ram().map_or(&[][..], |p| &p[..]));
    (gb.registers(), gb.cycles(), bytes)
}

/// A 32 KiB ROM with `program` at 0x0150 and header byte 0x143 = `cgb_flag`
/// (checksum fixed), entered from 0x0100.
fn cgb_rom(program: &[u8], cgb_flag: u8) -> Vec<u8> {
    let mut rom = vec![0u8; 0x8000];
    rom[0x100..0x104].copy_from_slice(&[0x00, 0xC3, 0x50, 0x01]);
    rom[0x134..0x13C].copy_from_slice(b"CGBTEST\0");
    rom[0x143] = cgb_flag;
    rom[0x150..0x150 + program.len()].copy_from_slice(program);
    let sum = rom[0x134..0x14D]
        .iter()
        .fold(0u8, |s, &b| s.wrapping_sub(b).wrapping_sub(1));
    rom[0x14D] = sum;
    rom
}

/// LCD off; work RAM banks 2 and 3 get 0x22 and 0x33 at 0xD000 (SVBK),
/// bank 2 is read back into 0xC000; VRAM bank 1 gets 0x11 at 0x8000
/// (VBK) and bank 0's byte is read into 0xC001; a general-purpose HDMA
/// copies 0xC000-0xC00F to 0x8010 (bank 0), read back into 0xC002; a
/// speed switch (KEY1, STOP), KEY1 read into 0xC003; BCPS/BCPD with
/// auto-increment write two bytes, read back into 0xC004/0xC005; then the
/// program waits in a loop.
const CGB_PROGRAM: &[u8] = &[
    0xF3, // di
    0xAF, 0xE0, 0x40, // xor a; ldh (LCDC),a
    0x3E, 0x02, 0xE0, 0x70, 0x3E, 0x22, 0xEA, 0x00, 0xD0, // SVBK=2; (d000)=0x22
    0x3E, 0x03, 0xE0, 0x70, 0x3E, 0x33, 0xEA, 0x00, 0xD0, // SVBK=3; (d000)=0x33
    0x3E, 0x02, 0xE0, 0x70, 0xFA, 0x00, 0xD0, 0xEA, 0x00, 0xC0, // SVBK=2; (c000)=(d000)
    0x3E, 0x01, 0xE0, 0x4F, 0x3E, 0x11, 0xEA, 0x00, 0x80, // VBK=1; (8000)=0x11
    0xAF, 0xE0, 0x4F, 0xFA, 0x00, 0x80, 0xEA, 0x01, 0xC0, // VBK=0; (c001)=(8000)
    0x3E, 0xC0, 0xE0, 0x51, 0xAF, 0xE0, 0x52, // HDMA source 0xC000
    0xAF, 0xE0, 0x53, 0x3E, 0x10, 0xE0, 0x54, // HDMA destination 0x8010
    0xAF, 0xE0, 0x55, // HDMA5 = 0: one block, general purpose
    0xFA, 0x10, 0x80, 0xEA, 0x02, 0xC0, // (c002)=(8010)
    0x3E, 0x01, 0xE0, 0x4D, 0x10, 0x00, // KEY1=1; stop
    0xF0, 0x4D, 0xEA, 0x03, 0xC0, // (c003)=KEY1
    0x3E, 0x80, 0xE0, 0x68, // BCPS = 0x80: index 0, auto-increment
    0x3E, 0x5A, 0xE0, 0x69, 0x3E, 0x6B, 0xE0, 0x69, // BCPD = 0x5A, 0x6B
    0x3E, 0x01, 0xE0, 0x68, 0xF0, 0x69, 0xEA, 0x04, 0xC0, // BCPS=1; (c004)=BCPD
    0xF0, 0x68, 0xEA, 0x05, 0xC0, // (c005)=BCPS
    0x18, 0xFE, // jr -2
];

#[test]
fn cgb_registers_banks_hdma_and_speed_switch() {
    let rom = cgb_rom(CGB_PROGRAM, 0x80);
    let mut results = Vec::new();
    for reference in [false, true] {
        let mut gb = GameBoy::with_model(&rom, None, Model::auto(&rom)).unwrap();
        gb.set_reference_mode(reference);
        gb.run_frames(3, false);
        let got: Vec<u8> = (0xC000..0xC006).map(|a| gb.peek(a)).collect();
        assert_eq!(
            got,
            [0x22, 0x00, 0x22, 0xFE, 0x6B, 0x41],
            "reference path {reference}: bank 2, VRAM bank 0, HDMA copy, KEY1 after the \
             switch, BCPD at index 1, BCPS (index 1, bit 6 set)"
        );
        // In double speed a frame with the LCD off is 70,224 dots: twice
        // as many CPU T-cycles.
        let before = gb.cycles();
        gb.run_frame(false);
        assert_eq!(
            gb.cycles() - before,
            2 * 70_224,
            "reference path {reference}"
        );
        results.push(machine_view(&gb));
    }
    assert!(results[0] == results[1], "fast and reference path differ");
}

/// A CGB's state saved anywhere in `CGB_PROGRAM` (work RAM banks set
/// aside, VRAM bank 1 mapped, double speed on) continues as the machine it
/// was saved from; a DMG refuses it, and a CGB refuses a DMG's.
#[test]
fn cgb_states_continue_and_refuse_the_other_model() {
    let rom = cgb_rom(CGB_PROGRAM, 0x80);
    for steps in [6, 10, 14, 18, 22, 26, 30, 34, 38, 42] {
        let mut a = GameBoy::with_model(&rom, None, Model::Cgb).unwrap();
        for _ in 0..steps {
            a.step_instruction();
        }
        let state = a.save_state();
        let mut b = GameBoy::with_model(&rom, None, Model::Cgb).unwrap();
        b.load_state(&state).unwrap();
        assert_eq!(
            b.save_state(),
            state,
            "after {steps} steps: the state reloads as saved"
        );
        a.run_frames(2, false);
        b.run_frames(2, false);
        assert!(
            machine_view(&a) == machine_view(&b),
            "after {steps} steps: the loaded state continues differently"
        );
        let mut dmg = GameBoy::with_model(&rom, None, Model::Dmg).unwrap();
        let err = dmg.load_state(&state).unwrap_err().to_string();
        assert!(err.contains("saved on a Game Boy Color"), "{err}");
        let err = b.load_state(&dmg.save_state()).unwrap_err().to_string();
        assert!(err.contains("saved on a DMG"), "{err}");
    }
}

/// Work RAM banks through the CPU (SVBK): LCD off; for each bank b of 1-7,
/// (0xD000) = b * 0x11 and (0xDFFF) = b; a routine at 0xD100 in bank 1
/// (`ld a,0x11; ret`) and another in bank 3 (`ld a,0x33; ret`), each
/// called with its bank mapped, results into 0xC010 (bank 3's) and 0xC011
/// (bank 1's); each bank's 0xD000 read back into 0xC020 + SVBK (SVBK 0
/// maps bank 1), bank 6 through the echo at 0xF000 into 0xC030; then bank
/// 5 stays mapped.
const WRAM_BANKS_PROGRAM: &[u8] = &[
    0xF3, // di
    0xAF, 0xE0, 0x40, // xor a; ldh (LCDC),a
    0x3E, 0x01, 0xE0, 0x70, 0x3E, 0x11, 0xEA, 0x00, 0xD0, // SVBK=1; (d000)=0x11
    0x3E, 0x01, 0xEA, 0xFF, 0xDF, // (dfff)=1
    0x3E, 0x02, 0xE0, 0x70, 0x3E, 0x22, 0xEA, 0x00, 0xD0, // SVBK=2; (d000)=0x22
    0x3E, 0x02, 0xEA, 0xFF, 0xDF, // (dfff)=2
    0x3E, 0x03, 0xE0, 0x70, 0x3E, 0x33, 0xEA, 0x00, 0xD0, // SVBK=3; (d000)=0x33
    0x3E, 0x03, 0xEA, 0xFF, 0xDF, // (dfff)=3
    0x3E, 0x04, 0xE0, 0x70, 0x3E, 0x44, 0xEA, 0x00, 0xD0, // SVBK=4; (d000)=0x44
    0x3E, 0x04, 0xEA, 0xFF, 0xDF, // (dfff)=4
    0x3E, 0x05, 0xE0, 0x70, 0x3E, 0x55, 0xEA, 0x00, 0xD0, // SVBK=5; (d000)=0x55
    0x3E, 0x05, 0xEA, 0xFF, 0xDF, // (dfff)=5
    0x3E, 0x06, 0xE0, 0x70, 0x3E, 0x66, 0xEA, 0x00, 0xD0, // SVBK=6; (d000)=0x66
    0x3E, 0x06, 0xEA, 0xFF, 0xDF, // (dfff)=6
    0x3E, 0x07, 0xE0, 0x70, 0x3E, 0x77, 0xEA, 0x00, 0xD0, // SVBK=7; (d000)=0x77
    0x3E, 0x07, 0xEA, 0xFF, 0xDF, // (dfff)=7
    0x3E, 0x01, 0xE0, 0x70, // SVBK=1
    0x3E, 0x3E, 0xEA, 0x00, 0xD1, 0x3E, 0x11, 0xEA, 0x01, 0xD1, 0x3E, 0xC9, 0xEA, 0x02, 0xD1, 0x3E,
    0x03, 0xE0, 0x70, // SVBK=3
    0x3E, 0x3E, 0xEA, 0x00, 0xD1, 0x3E, 0x33, 0xEA, 0x01, 0xD1, 0x3E, 0xC9, 0xEA, 0x02, 0xD1, 0xCD,
    0x00, 0xD1, 0xEA, 0x10, 0xC0, // call d100; (c010)=a
    0x3E, 0x01, 0xE0, 0x70, 0xCD, 0x00, 0xD1, 0xEA, 0x11, 0xC0, // SVBK=1; call d100; (c011)=a
    0x3E, 0x00, 0xE0, 0x70, 0xFA, 0x00, 0xD0, 0xEA, 0x20, 0xC0, // SVBK=0; (c020)=(d000)
    0x3E, 0x01, 0xE0, 0x70, 0xFA, 0x00, 0xD0, 0xEA, 0x21, 0xC0, // SVBK=1; (c021)=(d000)
    0x3E, 0x02, 0xE0, 0x70, 0xFA, 0x00, 0xD0, 0xEA, 0x22, 0xC0, // SVBK=2; (c022)=(d000)
    0x3E, 0x03, 0xE0, 0x70, 0xFA, 0x00, 0xD0, 0xEA, 0x23, 0xC0, // SVBK=3; (c023)=(d000)
    0x3E, 0x04, 0xE0, 0x70, 0xFA, 0x00, 0xD0, 0xEA, 0x24, 0xC0, // SVBK=4; (c024)=(d000)
    0x3E, 0x05, 0xE0, 0x70, 0xFA, 0x00, 0xD0, 0xEA, 0x25, 0xC0, // SVBK=5; (c025)=(d000)
    0x3E, 0x06, 0xE0, 0x70, 0xFA, 0x00, 0xD0, 0xEA, 0x26, 0xC0, // SVBK=6; (c026)=(d000)
    0x3E, 0x07, 0xE0, 0x70, 0xFA, 0x00, 0xD0, 0xEA, 0x27, 0xC0, // SVBK=7; (c027)=(d000)
    0x3E, 0x06, 0xE0, 0x70, 0xFA, 0x00, 0xF0, 0xEA, 0x30, 0xC0, // SVBK=6; (c030)=(f000)
    0x3E, 0x05, 0xE0, 0x70, // SVBK=5
    0x18, 0xFE, // jr -2
];

/// The banks live where the CPU, the debugger's banked reads, the RAM block
/// and save states expect them: banks 0 and 1 in the RAM block (its
/// 0xD000-0xDFFF is bank 1 whatever SVBK says), 2-7 beside it, code runs
/// from the mapped bank, and a state saved with bank 5 mapped continues.
#[test]
fn cgb_work_ram_banks() {
    use emurust::cgb::BankedRegion;
    let rom = cgb_rom(WRAM_BANKS_PROGRAM, 0x80);
    let mut views = Vec::new();
    for reference in [false, true] {
        let mut gb = GameBoy::with_model(&rom, None, Model::Cgb).unwrap();
        gb.set_reference_mode(reference);
        gb.run_frames(2, false);
        let path = if reference { "reference" } else { "fast" };
        assert_eq!(
            [gb.peek(0xC010), gb.peek(0xC011)],
            [0x33, 0x11],
            "{path} path: the routine of the mapped bank ran"
        );
        let read_back: Vec<u8> = (0xC020..0xC028).map(|a| gb.peek(a)).collect();
        assert_eq!(
            read_back,
            [0x11, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77],
            "{path} path: (0xD000) for SVBK 0-7"
        );
        assert_eq!(gb.peek(0xC030), 0x66, "{path} path: the echo of bank 6");
        assert_eq!(gb.peek(0xD000), 0x55, "{path} path: bank 5 is mapped");
        assert_eq!(gb.peek(0xFF70), 0xFD, "{path} path: SVBK reads 5 | 0xF8");
        for bank in 1..8usize {
            let first = gb.read_bank(BankedRegion::Wram, bank, 0, 1).unwrap();
            let last = gb.read_bank(BankedRegion::Wram, bank, 0xFFF, 1).unwrap();
            assert_eq!(
                (first[0], last[0]),
                (bank as u8 * 0x11, bank as u8),
                "{path} path: bank {bank}"
            );
        }
        // The RAM block (the batched engine's `wram` view): bank 1 at 0x1000.
        assert_eq!(
            gb.ram()[0x1000],
            0x11,
            "{path} path: bank 1 in the RAM block"
        );
        assert_eq!(
            gb.ram()[0x1FFF],
            0x01,
            "{path} path: bank 1 in the RAM block"
        );
        // A debugger's write reaches the mapped bank.
        gb.poke(0xD001, 0x5A);
        assert_eq!(
            gb.read_bank(BankedRegion::Wram, 5, 1, 1).unwrap(),
            [0x5A],
            "{path} path"
        );
        let state = gb.save_state();
        let mut loaded = GameBoy::with_model(&rom, None, Model::Cgb).unwrap();
        loaded.set_reference_mode(reference);
        loaded.load_state(&state).unwrap();
        assert_eq!(loaded.save_state(), state, "{path} path: reloads as saved");
        for bank in 0..8usize {
            assert_eq!(
                loaded
                    .read_bank(BankedRegion::Wram, bank, 0, 0x1000)
                    .unwrap(),
                gb.read_bank(BankedRegion::Wram, bank, 0, 0x1000).unwrap(),
                "{path} path: bank {bank} after loading"
            );
        }
        gb.run_frames(2, false);
        loaded.run_frames(2, false);
        assert!(machine_view(&gb) == machine_view(&loaded), "{path} path");
        views.push(machine_view(&gb));
    }
    assert!(views[0] == views[1], "fast and reference path differ");
}

/// A state saved before banks 2-7 stayed beside the RAM block (section
/// "CGB1": the RAM block held the mapped bank, bank 1 lay beside it) loads
/// as the machine it was saved from.
#[test]
fn cgb_states_of_the_older_work_ram_layout_load() {
    let rom = cgb_rom(WRAM_BANKS_PROGRAM, 0x80);
    let mut gb = GameBoy::with_model(&rom, None, Model::Cgb).unwrap();
    gb.run_frames(2, false);
    assert_eq!(gb.peek(0xFF70) & 7, 5, "bank 5 mapped");
    let state = gb.save_state();
    // The same state in the older layout.
    let mut old = state.clone();
    let at = |data: &[u8], tag: &[u8], from: usize| {
        from + data[from..].windows(4).position(|w| w == tag).unwrap()
    };
    let cgb = at(&old, b"CGB2", 0);
    let wram = cgb + 8 + 3; // tag, length, CGB mode, KEY1, SVBK
    let ram = at(&old, b"RAM ", wram + 0x8000) + 8;
    let bank1 = old[ram + 0x1000..ram + 0x2000].to_vec();
    let bank5 = old[wram + 0x5000..wram + 0x6000].to_vec();
    old[cgb..cgb + 4].copy_from_slice(b"CGB1");
    old[wram + 0x1000..wram + 0x2000].copy_from_slice(&bank1);
    old[ram + 0x1000..ram + 0x2000].copy_from_slice(&bank5);
    old[wram + 0x5000..wram + 0x6000].fill(0);
    let old = emurust::state::reseal(&old).unwrap();
    assert_ne!(old, state);
    let mut loaded = GameBoy::with_model(&rom, None, Model::Cgb).unwrap();
    loaded.load_state(&old).unwrap();
    assert_eq!(loaded.peek(0xD000), 0x55, "bank 5 mapped after loading");
    assert_eq!(loaded.ram()[0x1000], 0x11, "bank 1 in the RAM block");
    assert_eq!(loaded.save_state(), state, "the same machine as saved");
}

// ---- Blargg's CGB ROMs ------------------------------------------------------------

/// OAM DMA on a CGB's buses (`bus/dma.rs`), from a routine in HRAM with the
/// LCD off: VRAM 0x8000+i holds i+1 and work RAM bank 2 0xD000+i holds
/// i^0xA5; 0x4000 holds 0x44; bank 0 holds 0x0C at 0xC123, bank 2 0x22 at
/// 0xD123 (SVBK = 2). Four DMAs, each with CPU accesses while it runs:
/// from 0xF000 (no memory: it reads 0xFF) a read of 0xC123 (stored at
/// 0xFFF4) and of 0x4000 (0xFFF5), then OAM's first byte after it (0xFFF6);
/// from 0x0000 a read of 0xD123 (0xFFF0) and a write of 0x5A to 0xD456;
/// from 0xD000 a read of 0x4000 (0xFFF2) and of 0xC000 (0xFFF3); from
/// 0x8000 a read of 0x9000 (0xFFF1).
const CGB_OAM_DMA_PROGRAM: &[u8] = &[
    0xF3, // di
    0xAF, 0xE0, 0x40, // xor a; ldh (LCDC),a
    0x3E, 0x02, 0xE0, 0x70, // SVBK = 2
    0x3E, 0x22, 0xEA, 0x23, 0xD1, // (d123) = 0x22 (bank 2)
    0x3E, 0x0C, 0xEA, 0x23, 0xC1, // (c123) = 0x0C (bank 0)
    0x21, 0x00, 0x80, // ld hl,0x8000
    0x7D, 0x3C, 0x22, 0x7D, 0xFE, 0xA0, 0x20, 0xF8, // (hl+) = l+1 until l = 0xA0
    0x21, 0x00, 0xD0, // ld hl,0xD000
    0x7D, 0xEE, 0xA5, 0x22, 0x7D, 0xFE, 0xA0, 0x20, 0xF7, // (hl+) = l^0xA5 ...
    0x21, 0x00, 0x03, 0x0E, 0x80, 0x06, 0x54, // hl = routine, c = 0x80, b = 84
    0x2A, 0xE2, 0x0C, 0x05, 0x20, 0xFA, // copy it to HRAM
    0xCD, 0x80, 0xFF, // call 0xFF80
    0x18, 0xFE, // jr -2
];

/// The HRAM routine of `CGB_OAM_DMA_PROGRAM` (84 bytes, at 0x0300).
const CGB_OAM_DMA_ROUTINE: &[u8] = &[
    0x3E, 0xF0, 0xE0, 0x46, 0x00, 0x00, // DMA from 0xF000; nop; nop
    0xFA, 0x23, 0xC1, 0xE0, 0xF4, // (fff4) = (c123)
    0xFA, 0x00, 0x40, 0xE0, 0xF5, // (fff5) = (4000)
    0x3E, 0x2A, 0x3D, 0x20, 0xFD, // wait out the DMA
    0xFA, 0x00, 0xFE, 0xE0, 0xF6, // (fff6) = (fe00)
    0xAF, 0xE0, 0x46, 0x00, 0x00, // DMA from 0x0000
    0xFA, 0x23, 0xD1, 0xE0, 0xF0, // (fff0) = (d123)
    0x3E, 0x5A, 0xEA, 0x56, 0xD4, // (d456) = 0x5A
    0x3E, 0x2A, 0x3D, 0x20, 0xFD, // wait
    0x3E, 0xD0, 0xE0, 0x46, 0x00, 0x00, // DMA from 0xD000
    0xFA, 0x00, 0x40, 0xE0, 0xF2, // (fff2) = (4000)
    0xFA, 0x00, 0xC0, 0xE0, 0xF3, // (fff3) = (c000)
    0x3E, 0x2A, 0x3D, 0x20, 0xFD, // wait
    0x3E, 0x80, 0xE0, 0x46, 0x00, 0x00, // DMA from 0x8000
    0xFA, 0x00, 0x90, 0xE0, 0xF1, // (fff1) = (9000)
    0x3E, 0x2A, 0x3D, 0x20, 0xFD, // wait
    0xC9, // ret
];

/// The CGB's OAM DMA bus rules, one case per row of the table in
/// `bus/dma.rs`, on both paths (the gambatte oamdma ROMs check them
/// against hardware; this needs no ROM files).
#[test]
fn cgb_oam_dma_buses() {
    assert_eq!(CGB_OAM_DMA_ROUTINE.len(), 84);
    let mut rom = cgb_rom(CGB_OAM_DMA_PROGRAM, 0x80);
    rom[0x300..0x300 + CGB_OAM_DMA_ROUTINE.len()].copy_from_slice(CGB_OAM_DMA_ROUTINE);
    rom[0x4000] = 0x44;
    let mut views = Vec::new();
    for reference in [false, true] {
        let mut gb = GameBoy::with_model(&rom, None, Model::Cgb).unwrap();
        gb.set_reference_mode(reference);
        gb.run_frames(3, false);
        let at = |a: u16| gb.peek(a);
        let path = format!("reference path {reference}");
        // No memory above 0xE000: the DMA reads 0xFF, and so does a ROM
        // read colliding with it; a work RAM read reaches the bank bit 12
        // of the DMA's address selects (the SVBK bank for 0xF0xx).
        assert_eq!(at(0xFFF4), 0x22, "{path}: 0xC123 read in bank 2");
        assert_eq!(at(0xFFF5), 0xFF, "{path}: 0x4000 read as the DMA's 0xFF");
        assert_eq!(at(0xFFF6), 0xFF, "{path}: OAM from 0xF000");
        // From ROM: work RAM accesses land in bank 0 (bit 12 of 0x00xx).
        assert_eq!(at(0xFFF0), 0x0C, "{path}: 0xD123 read in bank 0");
        assert_eq!(at(0xC456), 0x5A, "{path}: 0xD456 written in bank 0");
        assert_eq!(at(0xD456), 0x00, "{path}: bank 2 untouched");
        // From work RAM: ROM is on another bus; work RAM gives the DMA's byte.
        assert_eq!(at(0xFFF2), 0x44, "{path}: 0x4000 read undisturbed");
        let i = at(0xFFF3) ^ 0xA5;
        assert!(
            (1..0xA0).contains(&i),
            "{path}: 0xC000 read the DMA's byte {i}"
        );
        // From VRAM: the read gets the DMA's byte i+1, and OAM byte i gets 0.
        let k = at(0xFFF1);
        assert!(
            (2..=0xA0).contains(&k),
            "{path}: 0x9000 read the DMA's byte"
        );
        for j in 0..0xA0u16 {
            let want = if j + 1 == k as u16 { 0 } else { j as u8 + 1 };
            assert_eq!(at(0xFE00 + j), want, "{path}: OAM byte {j} after the DMA");
        }
        views.push(machine_view(&gb));
    }
    assert!(views[0] == views[1], "fast and reference path differ");
}

/// 0xFEA0-0xFEFF with the LCD off: 0x34 written to 0xFEA0 and 0x12 to
/// 0xFEFF, read back at 0xFEB8 and 0xFEE7 into 0xC000 and 0xC001.
const UNUSABLE_PROGRAM: &[u8] = &[
    0xF3, 0xAF, 0xE0, 0x40, // di; LCD off
    0x3E, 0x34, 0xEA, 0xA0, 0xFE, // (fea0) = 0x34
    0x3E, 0x12, 0xEA, 0xFF, 0xFE, // (feff) = 0x12
    0xFA, 0xB8, 0xFE, 0xEA, 0x00, 0xC0, // (c000) = (feb8)
    0xFA, 0xE7, 0xFE, 0xEA, 0x01, 0xC0, // (c001) = (fee7)
    0x18, 0xFE, // jr -2
];

/// A CGB (revision C) has memory at 0xFEA0-0xFEFF with address bits 3 and
/// 4 ignored; a DMG reads 0x00 there. The bytes travel in save states.
#[test]
fn cgb_memory_at_fea0_feff() {
    let rom = cgb_rom(UNUSABLE_PROGRAM, 0x80);
    for (model, want) in [(Model::Cgb, [0x34, 0x12]), (Model::Dmg, [0x00, 0x00])] {
        let mut views = Vec::new();
        for reference in [false, true] {
            let mut gb = GameBoy::with_model(&rom, None, model).unwrap();
            gb.set_reference_mode(reference);
            gb.run_frames(2, false);
            assert_eq!(
                [gb.peek(0xC000), gb.peek(0xC001)],
                want,
                "{model:?}, reference path {reference}: 0xFEB8 and 0xFEE7 read back"
            );
            views.push(machine_view(&gb));
            if model == Model::Cgb {
                let mut b = GameBoy::with_model(&rom, None, model).unwrap();
                b.load_state(&gb.save_state()).unwrap();
                assert_eq!(b.peek(0xFEA0), 0x34, "0xFEA0 after a state load");
                assert_eq!(b.peek(0xFEFF), 0x12, "0xFEFF after a state load");
            }
        }
        assert!(
            views[0] == views[1],
            "{model:?}: fast and reference path differ"
        );
    }
}

/// A Blargg ROM on a CGB, both paths (same verdict, registers and clock).
fn blargg_cgb(rel: &str, frames: u32) {
    let Some(rom) = common::load(rel) else {
        return;
    };
    let mut ends = Vec::new();
    for reference in [false, true] {
        let mut gb = GameBoy::with_model(&rom, None, Model::Cgb).expect("ROM loads");
        gb.set_reference_mode(reference);
        if let Err(e) = common::run_blargg_gb(&mut gb, frames) {
            panic!("{rel} (reference path {reference}): {e}");
        }
        ends.push((gb.registers(), gb.cycles()));
    }
    assert_eq!(ends[0], ends[1], "{rel}: the paths end differently");
}

/// Double speed: interrupt latency measured in both speeds.
#[test]
fn blargg_interrupt_time_cgb() {
    blargg_cgb("blargg/interrupt_time/interrupt_time.gb", 600);
}

/// The CGB's APU: wave RAM read and retrigger while playing, power-off
/// clearing the length counters, and the rest of dmg_sound's checks.
#[test]
fn blargg_cgb_sound() {
    blargg_cgb("blargg/cgb_sound/cgb_sound.gb", 3000);
}

/// µCity (CGB, double speed, HDMA, VRAM bank 1) from power-on into a
/// city whose simulation runs, on the fast path and on the reference path,
/// compared at every frame end (registers, clock, 0x8000-0xFFFF, VRAM bank
/// 1, palettes and every work RAM bank). The city's simulation writes SVBK
/// hundreds of times a frame, across which the fast path's runs go on
/// (`Hardware::banked_runs`); the reference path synchronizes every access.
#[test]
fn ucity_fast_path_matches_the_reference_path() {
    use emurust::Button;
    let Some(rom) = common::load("homebrew/ucity/ucity.gbc") else {
        return;
    };
    // (button, frames after it): the start-up (Select does nothing there),
    // the title, a random map, its city, then the simulation running (as
    // bench/compare_pyboy_cgb.py's warm-up and script).
    let script = [
        (Button::Select, 300),
        (Button::Start, 60),
        (Button::Down, 30),
        (Button::A, 60),
        (Button::A, 60),
        (Button::Start, 120),
        (Button::A, 600),
        (Button::Start, 600),
        (Button::B, 300),
    ];
    let new = |reference: bool| {
        let mut gb = GameBoy::with_model(&rom, None, Model::Cgb).unwrap();
        gb.set_reference_mode(reference);
        gb
    };
    let (mut fast, mut reference) = (new(false), new(true));
    let banks = |gb: &GameBoy| {
        gb.hardware()
            .cgb
            .as_ref()
            .map(|c| c.wram[0x2000..].to_vec())
    };
    let mut frame = 0;
    let mut svbk = std::collections::BTreeSet::new();
    for (button, wait) in script {
        for gb in [&mut fast, &mut reference] {
            gb.press_for(button, 1);
        }
        for _ in 0..wait {
            fast.run_frame(false);
            reference.run_frame(false);
            frame += 1;
            svbk.insert(fast.peek(0xFF70) & 7);
            let (a, b) = (machine_view(&fast), machine_view(&reference));
            if a != b || banks(&fast) != banks(&reference) {
                panic!(
                    "µCity: the fast and the reference path differ after frame {frame}:\n fast      {:?} @{}\n reference {:?} @{}",
                    a.0, a.1, b.0, b.1
                );
            }
        }
    }
    // The game switched work RAM banks all along: frames ended with
    // banks 2-7 mapped at 0xD000 (every one of them, on this run).
    assert!(
        (2..8).all(|b| svbk.contains(&b)),
        "SVBK at frame ends: {svbk:?}"
    );
}
