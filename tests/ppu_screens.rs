//! Screen tests: what the PPU draws, compared pixel by pixel.
//!
//! * dmg-acid2 against its DMG reference image, rendering only the last
//!   frame, every frame, and in reference mode (dot-accurate FIFO renderer).
//! * The Mealybug Tearoom tests (mid-mode-3 register writes) against their
//!   DMG screenshots: one test per ROM; known failures are `#[ignore]`d with
//!   the measured number of differing pixels, so the pass list is visible.
//! * The fast renderer against the reference renderer on games with scripted
//!   input, dmg-acid2 and every Mealybug ROM: identical shades every frame.
//! * Rendering never changes emulation: save states are identical with and
//!   without it.
//!
//! ROMs and images come from `$EMURUST_ROMS` (default `../shared/roms`);
//! tests skip with a printed reason when they are absent (fail when
//! `EMURUST_REQUIRE_ROMS=1`, see `tests/common`).
mod common;

use emurust::{Button, GameBoy};
use std::path::Path;

const WIDTH: usize = 160;
const HEIGHT: usize = 144;

/// Decode a PNG of any colour type and bit depth to one grey level per pixel
/// (the luma of RGB images; the reference images use exact DMG greys).
fn load_png_grey(path: &Path) -> Result<Vec<u8>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    // Palette -> RGB, 1/2/4-bit grey -> 8-bit, 16-bit -> 8-bit.
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder
        .read_info()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| format!("{}: image too large", path.display()))?;
    let mut buf = vec![0; size];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if (info.width as usize, info.height as usize) != (WIDTH, HEIGHT) {
        return Err(format!(
            "{}: {}x{} image, expected {WIDTH}x{HEIGHT}",
            path.display(),
            info.width,
            info.height
        ));
    }
    let channels = match info.color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => {
            return Err(format!("{}: palette was not expanded", path.display()))
        }
    };
    let mut grey = Vec::with_capacity(WIDTH * HEIGHT);
    for y in 0..HEIGHT {
        let row = &buf[y * info.line_size..];
        for x in 0..WIDTH {
            let px = &row[x * channels..];
            grey.push(if channels >= 3 {
                // ITU-R BT.601 luma, as the emulator's grey buffer.
                ((px[0] as u32 * 299 + px[1] as u32 * 587 + px[2] as u32 * 114 + 500) / 1000) as u8
            } else {
                px[0]
            });
        }
    }
    Ok(grey)
}

/// Differing pixels between two grey images, and a short description of
/// where they are (the rows that differ, as ranges).
fn compare(actual: &[u8], expected: &[u8]) -> (usize, String) {
    let mut count = 0;
    let mut rows: Vec<(usize, usize)> = Vec::new();
    for y in 0..HEIGHT {
        let a = &actual[y * WIDTH..(y + 1) * WIDTH];
        let e = &expected[y * WIDTH..(y + 1) * WIDTH];
        let n = a.iter().zip(e).filter(|(p, q)| p != q).count();
        if n > 0 {
            count += n;
            match rows.last_mut() {
                Some((_, end)) if *end + 1 == y => *end = y,
                _ => rows.push((y, y)),
            }
        }
    }
    let mut desc: Vec<String> = rows
        .iter()
        .take(6)
        .map(|&(a, b)| {
            if a == b {
                format!("{a}")
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    if rows.len() > 6 {
        desc.push("...".into());
    }
    (count, format!("rows {}", desc.join(", ")))
}

// ---- dmg-acid2 ---------------------------------------------------------------

const ACID2_FRAMES: u64 = 120;

fn acid2(reference: bool, every_frame: bool) {
    let Some(rom) = common::load("acid2/dmg-acid2.gb") else {
        return;
    };
    let expected = load_png_grey(&common::roms_dir().join("acid2/dmg-acid2-reference-dmg.png"))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut gb = GameBoy::new(&rom, None).expect("ROM loads");
    gb.set_reference_mode(reference);
    if every_frame {
        for _ in 0..ACID2_FRAMES {
            gb.run_frame(true);
        }
    } else {
        gb.run_frames(ACID2_FRAMES, true);
    }
    let (n, rows) = compare(gb.screen().gray(), &expected);
    assert_eq!(n, 0, "dmg-acid2: {n} pixels differ ({rows})");
}

#[test]
fn acid2_last_frame_rendered() {
    acid2(false, false);
}

#[test]
fn acid2_every_frame_rendered() {
    acid2(false, true);
}

#[test]
fn acid2_reference_mode() {
    acid2(true, true);
}

// ---- Mealybug Tearoom tests ------------------------------------------------

const MEALYBUG: &str = "mealybug-tearoom-tests";
/// Its ROMs: the 24 with a DMG screenshot below and seven with CGB ones only.
const MEALYBUG_ROMS: usize = 31;
/// Frames allowed before the test must have reached its `LD B,B`.
const MEALYBUG_MAX_FRAMES: u32 = 60;

/// The expected DMG screenshot of a Mealybug ROM: `DMG-blob` (the README's
/// DMG results), else `DMG-CPU B`; None for the CGB-only tests.
fn mealybug_expected(name: &str) -> Option<std::path::PathBuf> {
    let dir = common::roms_dir().join(MEALYBUG).join("expected");
    ["DMG-blob", "DMG-CPU B"]
        .iter()
        .map(|model| dir.join(model).join(format!("{name}.png")))
        .find(|p| p.exists())
}

/// Run until the CPU executes `LD B,B` (the suite's "take the screenshot
/// now" breakpoint), then render two frames: the one in progress and a
/// complete one drawn entirely after the breakpoint (the test's picture is
/// static once it is finished). Returns false if `LD B,B` never comes.
fn run_to_ld_b_b(gb: &mut GameBoy, max_frames: u32) -> bool {
    let limit = gb.cycles() + max_frames as u64 * 70_224;
    loop {
        let pc = gb.registers().pc;
        let at_breakpoint = gb.peek(pc) == 0x40;
        gb.step_instruction();
        if at_breakpoint {
            break;
        }
        if gb.cycles() > limit {
            return false;
        }
    }
    gb.run_frame(true);
    gb.run_frame(true);
    true
}

/// Run one Mealybug ROM and count the pixels that differ from its DMG
/// screenshot; None when the ROM or its screenshot is absent.
fn mealybug_diff(name: &str) -> Option<(usize, String)> {
    let rom = common::load(&format!("{MEALYBUG}/{name}.gb"))?;
    let Some(png) = mealybug_expected(name) else {
        common::missing(
            &format!("the DMG screenshot of {name}"),
            "not in expected/DMG-blob or expected/DMG-CPU B",
        );
        return None;
    };
    let expected = load_png_grey(&png).unwrap_or_else(|e| panic!("{e}"));
    let mut gb = GameBoy::new(&rom, None).expect("ROM loads");
    assert!(
        run_to_ld_b_b(&mut gb, MEALYBUG_MAX_FRAMES),
        "{name}: no LD B,B within {MEALYBUG_MAX_FRAMES} frames"
    );
    Some(compare(gb.screen().gray(), &expected))
}

fn mealybug(name: &str) {
    if let Some((n, rows)) = mealybug_diff(name) {
        assert_eq!(n, 0, "{name}: {n} pixels differ ({rows})");
    }
}

macro_rules! mealybug_tests {
    ($($(#[$attr:meta])* $name:ident;)*) => {
        $( #[test] $(#[$attr])* fn $name() { mealybug(stringify!($name)); } )*

        /// Every ROM with a DMG screenshot, in one list (for the total).
        const MEALYBUG_DMG_ROMS: &[&str] = &[$(stringify!($name)),*];
    };
}

// The seven `*2` ROMs (m3_lcdc_bg_en_change2, m3_lcdc_bg_map_change2,
// m3_lcdc_tile_sel_change2, m3_lcdc_tile_sel_win_change2,
// m3_lcdc_win_map_change2, m3_scx_high_5_bits_change2, m3_scy_change2) have
// CGB screenshots only; they still take part in the renderer agreement test.
mealybug_tests! {
    m2_win_en_toggle;
    m3_bgp_change;
    m3_bgp_change_sprites;
    m3_lcdc_bg_en_change;
    m3_lcdc_bg_map_change;
    m3_lcdc_obj_en_change;
    m3_lcdc_obj_en_change_variant;
    m3_lcdc_obj_size_change;
    m3_lcdc_obj_size_change_scx;
    m3_lcdc_tile_sel_change;
    m3_lcdc_tile_sel_win_change;
    m3_lcdc_win_en_change_multiple;
    m3_lcdc_win_en_change_multiple_wx;
    m3_lcdc_win_map_change;
    m3_obp0_change;
    m3_scx_high_5_bits;
    m3_scx_low_3_bits;
    m3_scy_change;
    m3_window_timing;
    m3_window_timing_wx_0;
    m3_wx_4_change;
    m3_wx_4_change_sprites;
    m3_wx_5_change;
    m3_wx_6_change;
}

/// Runs every Mealybug ROM that has a DMG screenshot and prints the score
/// and each ROM's differing-pixel count (`cargo test mealybug_total --
/// --nocapture`). Individual verdicts are the per-ROM tests above.
#[test]
fn mealybug_total() {
    let mut passed = 0;
    let mut total = 0;
    for name in MEALYBUG_DMG_ROMS {
        // A ROM that makes the emulator panic counts as a failure here (its
        // own test reports the panic).
        match std::panic::catch_unwind(|| mealybug_diff(name)) {
            Ok(None) => continue,
            Ok(Some((0, _))) => {
                passed += 1;
                println!("  pass  {name}");
            }
            Ok(Some((n, rows))) => println!("  FAIL  {name}: {n} pixels differ ({rows})"),
            Err(_) => println!("  FAIL  {name}: panicked"),
        }
        total += 1;
    }
    println!("mealybug: {passed}/{total} pass");
}

// ---- Fast renderer vs reference renderer -----------------------------------

/// Deterministic input script: a different button every 7 frames, held 3
/// (as in tests/reference_path.rs).
fn script(frame: u64, gb: &mut GameBoy) {
    if frame % 7 == 0 {
        let b = Button::ALL[((frame / 7) * 5 % 8) as usize];
        gb.press_for(b, 3);
    }
}

/// Run `rel` on the fast path and on the reference path (which also uses the
/// dot-accurate FIFO renderer), rendering every frame, and require identical
/// shades at every frame.
/// Frame `f` on two machines: the same scripted input, then one frame each,
/// drawn or not as asked.
fn step_pair(f: u64, a: &mut GameBoy, render_a: bool, b: &mut GameBoy, render_b: bool) {
    script(f, a);
    script(f, b);
    a.run_frame(render_a);
    b.run_frame(render_b);
}

fn renderers_agree(rel: &str, frames: u64, with_input: bool) {
    let Some(rom) = common::load(rel) else { return };
    let mut fast = GameBoy::new(&rom, None).expect("ROM loads");
    let mut slow = GameBoy::new(&rom, None).expect("ROM loads");
    slow.set_reference_mode(true);
    for f in 0..frames {
        if with_input {
            script(f, &mut fast);
            script(f, &mut slow);
        }
        fast.run_frame(true);
        slow.run_frame(true);
        assert_same_screen(rel, &format!("frame {f}"), &fast, &slow);
    }
}

/// Panic, naming the differing pixels, unless the fast and the reference
/// machine show the same shades.
fn assert_same_screen(rel: &str, what: &str, fast: &GameBoy, slow: &GameBoy) {
    let (a, b) = (fast.screen().shades(), slow.screen().shades());
    if a != b {
        let first = a
            .iter()
            .zip(b.iter())
            .position(|(x, y)| x != y)
            .unwrap_or(0);
        let (n, rows) = compare(&a[..], &b[..]);
        panic!(
            "{rel}: fast and reference renderers differ at {what}: {n} pixels ({rows}), \
             first at x={} y={}",
            first % WIDTH,
            first / WIDTH
        );
    }
}

#[test]
fn renderers_agree_on_games() {
    renderers_agree("homebrew/2048/2048.gb", 300, true);
    renderers_agree("homebrew/tobutobugirl/tobu.gb", 400, true);
    renderers_agree("homebrew/libbet/libbet.gb", 400, true);
    renderers_agree("homebrew/pandoras-blocks/PandorasBlocks.gbc", 400, true);
}

#[test]
fn renderers_agree_on_acid2() {
    renderers_agree("acid2/dmg-acid2.gb", 60, false);
}

#[test]
fn renderers_agree_on_mealybug() {
    let Some(roms) = common::load_folder(MEALYBUG, ".gb") else {
        return;
    };
    let names: Vec<String> = roms.into_iter().map(|(name, _)| name).collect();
    assert_eq!(
        names.len(),
        MEALYBUG_ROMS,
        "{MEALYBUG} holds {} ROMs, the suite has {MEALYBUG_ROMS}",
        names.len()
    );
    for name in names {
        renderers_agree(&format!("{MEALYBUG}/{name}"), 40, false);
    }
}

/// The fast renderer's line cache (a row is drawn again only when its VRAM,
/// OAM or registers changed) across headless frames and state loads: the
/// fast path renders only some frames and goes back to a saved state, and
/// every frame it renders must equal the reference renderer's.
#[test]
fn line_cache_across_skipped_frames_and_state_loads() {
    for rel in [
        "homebrew/tobutobugirl/tobu.gb",
        "homebrew/2048/2048.gb",
        "homebrew/libbet/libbet.gb",
    ] {
        let Some(rom) = common::load(rel) else {
            continue;
        };
        let mut fast = GameBoy::new(&rom, None).expect("ROM loads");
        let mut slow = GameBoy::new(&rom, None).expect("ROM loads");
        slow.set_reference_mode(true);
        let mut saved = None;
        for f in 0..400u64 {
            let render = f % 5 == 0 || f % 7 == 3;
            step_pair(f, &mut fast, render, &mut slow, true);
            if f == 150 {
                saved = Some((fast.save_state(), slow.save_state()));
            }
            if render {
                assert_same_screen(rel, &format!("frame {f}"), &fast, &slow);
            }
        }
        let (a, b) = saved.expect("state saved at frame 150");
        fast.load_state(&a).expect("state loads");
        slow.load_state(&b).expect("state loads");
        for f in 151..211u64 {
            step_pair(f, &mut fast, true, &mut slow, true);
            let what = format!("frame {f} after loading frame 150");
            assert_same_screen(rel, &what, &fast, &slow);
        }
    }
}

// ---- Rendering does not change emulation ------------------------------------

#[test]
fn rendering_leaves_state_unchanged() {
    for rel in [
        "homebrew/tobutobugirl/tobu.gb",
        "acid2/dmg-acid2.gb",
        "mealybug-tearoom-tests/m3_lcdc_win_en_change_multiple_wx.gb",
    ] {
        let Some(rom) = common::load(rel) else {
            continue;
        };
        let mut drawn = GameBoy::new(&rom, None).expect("ROM loads");
        let mut headless = GameBoy::new(&rom, None).expect("ROM loads");
        for f in 0..200 {
            step_pair(f, &mut drawn, true, &mut headless, false);
        }
        // The machine (the state but for its picture, which is what
        // rendering draws).
        assert!(
            drawn.machine_state() == headless.machine_state(),
            "{rel}: save states differ after rendering vs not rendering"
        );
    }
}
