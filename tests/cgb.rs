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
