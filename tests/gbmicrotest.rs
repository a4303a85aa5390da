//! aappleby's GBMicrotest (`$EMURUST_ROMS/gbmicrotest/bin`, 513 ROMs): each
//! ROM checks one register or address at one cycle after boot and writes its
//! verdict to HRAM: 0xFF82 = 0x01 on pass, 0xFF on fail (the suite's HOWTO:
//! check only 0xFF82). The ROMs expect the post-boot state (no boot ROM).
//!
//! One test runs every ROM (in parallel; they are independent), on the
//! fast path and on the slow reference path (which must agree), and asserts
//! that exactly the ROMs in [`KNOWN_FAILURES`] fail, so both a regression
//! and an unexpected fix show up. Skipped with a message when the folder is
//! absent.
mod common;

use emurust::GameBoy;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Most frames to run a ROM: two are enough for all but
/// `is_if_set_during_ime0.gb` (about 380 ms of emulated time). A ROM stops
/// early once it has written its verdict (0x01 or 0xFF at 0xFF82): the
/// suite's end macros write it last and then loop forever.
const MAX_FRAMES: u32 = 30;

// Failure reasons, "category: detail"; the category names the subsystem at
// fault (`ppu ...`: the PPU's timing model, ppu.rs). The three ROM defects
// and the non-self-checking ROMs fail on hardware-accurate emulators too.
const NO_VERDICT: &str = "no verdict: not a self-checking ROM (a testbench or visual test that never writes 0x01/0xFF to 0xFF82)";
const ROM_DEFECT_DIV55: &str = "rom defect: expects DIV=$55 about 60 M-cycles after resetting DIV, unreachable (the HALT, with IF already set, runs straight on)";
const ROM_DEFECT_NO_CLEAR_IF: &str =
    "rom defect: unlike its siblings it never clears IF, yet expects VBlank's IF.0 clear";
const ROM_DEFECT_SAME_AS_A: &str = "rom defect: the same program as line_153_lyc_a and line_153_lyc_c (which pass, expecting STAT=$81) but expecting $85; no machine can pass all three";

/// ROMs that fail today, with their reason. Remove a ROM from here when a
/// fix makes it pass (the test reports it).
const KNOWN_FAILURES: &[(&str, &str)] = &[
    ("000-oam_lock.gb", NO_VERDICT),
    ("000-write_to_x8000.gb", NO_VERDICT),
    ("001-vram_unlocked.gb", NO_VERDICT),
    ("002-vram_locked.gb", NO_VERDICT),
    ("004-tima_boot_phase.gb", NO_VERDICT),
    ("004-tima_cycle_timer.gb", NO_VERDICT),
    ("007-lcd_on_stat.gb", NO_VERDICT),
    ("400-dma.gb", NO_VERDICT),
    ("500-scx-timing.gb", NO_VERDICT),
    ("800-ppu-latch-scx.gb", NO_VERDICT),
    ("801-ppu-latch-scy.gb", NO_VERDICT),
    ("802-ppu-latch-tileselect.gb", NO_VERDICT),
    ("803-ppu-latch-bgdisplay.gb", NO_VERDICT),
    ("audio_testbench.gb", NO_VERDICT),
    ("cpu_bus_1.gb", NO_VERDICT),
    ("dma_basic.gb", NO_VERDICT),
    ("flood_vram.gb", NO_VERDICT),
    ("halt_op_dupe_delay.gb", ROM_DEFECT_DIV55),
    ("lcdon_write_timing.gb", NO_VERDICT),
    ("line_153_lyc_b.gb", ROM_DEFECT_SAME_AS_A),
    ("ly_while_lcd_off.gb", NO_VERDICT),
    ("minimal.gb", NO_VERDICT),
    ("mode2_stat_int_to_oam_unlock.gb", NO_VERDICT),
    ("oam_sprite_trashing.gb", NO_VERDICT),
    ("poweron.gb", NO_VERDICT),
    ("ppu_scx_vs_bgp.gb", NO_VERDICT),
    ("ppu_sprite_testbench.gb", NO_VERDICT),
    ("ppu_spritex_vs_scx.gb", NO_VERDICT),
    ("ppu_win_vs_wx.gb", NO_VERDICT),
    ("ppu_wx_early.gb", NO_VERDICT),
    ("stat_write_glitch_l154_d.gb", ROM_DEFECT_NO_CLEAR_IF),
    ("temp.gb", NO_VERDICT),
    ("toggle_lcdc.gb", NO_VERDICT),
    ("wave_write_to_0xC003.gb", NO_VERDICT),
];

/// What a ROM left behind: (0xFF80 result, 0xFF81 expected, 0xFF82
/// verdict) and the frames it ran.
type Outcome = ([u8; 3], u32);

fn run_one(rom: &[u8], reference: bool) -> Result<Outcome, String> {
    let mut gb = GameBoy::new(rom, None).map_err(|e| format!("does not load: {e}"))?;
    gb.set_reference_mode(reference);
    let mut frames = 0;
    while frames < MAX_FRAMES {
        gb.run_frame(false);
        frames += 1;
        if matches!(gb.peek(0xFF82), 0x01 | 0xFF) {
            break;
        }
    }
    Ok(([gb.peek(0xFF80), gb.peek(0xFF81), gb.peek(0xFF82)], frames))
}

/// Pass iff 0xFF82 == 0x01; otherwise why not. Also runs the ROM on the
/// slow reference path, which must leave exactly the same outcome.
fn check(rom: &[u8]) -> Result<(), String> {
    let fast = run_one(rom, false)?;
    let slow = run_one(rom, true)?;
    if fast != slow {
        return Err(format!(
            "fast path {fast:02x?} and reference path {slow:02x?} disagree"
        ));
    }
    match fast {
        ([_, _, 0x01], _) => Ok(()),
        ([result, expected, 0xFF], _) => Err(format!(
            "failed: result {result:#04x}, expected {expected:#04x}"
        )),
        ([_, _, v], frames) => Err(format!(
            "no verdict after {frames} frames (0xFF82 = {v:#04x})"
        )),
    }
}

#[test]
fn gbmicrotest() {
    let dir = common::roms_dir().join("gbmicrotest/bin");
    let mut roms: Vec<(String, Vec<u8>)> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                if !name.ends_with(".gb") {
                    return None;
                }
                std::fs::read(e.path()).ok().map(|bytes| (name, bytes))
            })
            .collect(),
        Err(e) => {
            eprintln!(
                "SKIPPED: gbmicrotest ROMs not available at {} ({e}); set EMURUST_ROMS",
                dir.display()
            );
            return;
        }
    };
    roms.sort();

    let results: Mutex<Vec<(String, Result<(), String>)>> = Mutex::new(Vec::new());
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(4, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((name, rom)) = roms.get(i) else {
                    break;
                };
                let r = check(rom);
                results
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push((name.clone(), r));
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_else(|p| p.into_inner());
    results.sort_by(|a, b| a.0.cmp(&b.0));

    let passed = results.iter().filter(|(_, r)| r.is_ok()).count();
    println!("gbmicrotest: {passed}/{} pass", results.len());
    let mut problems = Vec::new();
    let mut by_category: Vec<(&str, usize)> = Vec::new();
    for (name, r) in &results {
        let known = KNOWN_FAILURES.iter().find(|(n, _)| n == name);
        match (r, known) {
            (Err(why), Some((_, reason))) => {
                println!("  known failure {name} [{reason}]: {why}");
                let category = reason.split(':').next().unwrap_or(reason);
                match by_category.iter_mut().find(|(c, _)| *c == category) {
                    Some((_, n)) => *n += 1,
                    None => by_category.push((category, 1)),
                }
            }
            (Err(why), None) => problems.push(format!("unexpected failure {name}: {why}")),
            (Ok(()), Some((_, reason))) => problems.push(format!(
                "unexpected pass {name} (listed as a known failure [{reason}]): remove it from KNOWN_FAILURES"
            )),
            (Ok(()), None) => {}
        }
    }
    by_category.sort();
    for (category, n) in &by_category {
        println!("  {n:3} known failures: {category}");
    }
    for (name, _) in KNOWN_FAILURES {
        if !results.iter().any(|(n, _)| n == name) {
            problems.push(format!(
                "KNOWN_FAILURES lists {name}, which is not in {}",
                dir.display()
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{} gbmicrotest mismatches:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
