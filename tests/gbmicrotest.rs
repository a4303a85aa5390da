//! aappleby's GBMicrotest (`$EMURUST_ROMS/gbmicrotest/bin`, 513 ROMs): each
//! ROM checks one register or address at one cycle after boot and writes its
//! verdict to HRAM: 0xFF82 = 0x01 on pass, 0xFF on fail (the suite's HOWTO:
//! check only 0xFF82). The ROMs expect the post-boot state (no boot ROM).
//!
//! One test runs every ROM (in parallel; they are independent), on the
//! fast path and on the slow reference path (which must agree), and asserts
//! that exactly the ROMs in [`KNOWN_FAILURES`] fail, so both a regression
//! and an unexpected fix show up. Skipped with a message when the folder is
//! absent (a failure when `EMURUST_REQUIRE_ROMS=1`, see `common`).
mod common;

use emurust::GameBoy;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use Failure::{Failed, NoVerdict};

/// The folder under `$EMURUST_ROMS`, and the number of ROMs in it.
const DIR: &str = "gbmicrotest/bin";
const ROM_COUNT: usize = 513;

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

/// ROMs that fail today, with their reason and how they fail (what they
/// leave in HRAM): a listed ROM that fails differently is a mismatch too.
/// Remove a ROM from here when a fix makes it pass (the test reports it).
const KNOWN_FAILURES: &[(&str, &str, Failure)] = &[
    ("000-oam_lock.gb", NO_VERDICT, NoVerdict(0x00)),
    ("000-write_to_x8000.gb", NO_VERDICT, NoVerdict(0x00)),
    ("001-vram_unlocked.gb", NO_VERDICT, NoVerdict(0x00)),
    ("002-vram_locked.gb", NO_VERDICT, NoVerdict(0x00)),
    ("004-tima_boot_phase.gb", NO_VERDICT, NoVerdict(0x00)),
    ("004-tima_cycle_timer.gb", NO_VERDICT, NoVerdict(0x00)),
    ("007-lcd_on_stat.gb", NO_VERDICT, NoVerdict(0x00)),
    ("400-dma.gb", NO_VERDICT, NoVerdict(0x00)),
    ("500-scx-timing.gb", NO_VERDICT, NoVerdict(0x00)),
    ("800-ppu-latch-scx.gb", NO_VERDICT, NoVerdict(0x00)),
    ("801-ppu-latch-scy.gb", NO_VERDICT, NoVerdict(0x00)),
    ("802-ppu-latch-tileselect.gb", NO_VERDICT, NoVerdict(0x00)),
    ("803-ppu-latch-bgdisplay.gb", NO_VERDICT, NoVerdict(0x00)),
    ("audio_testbench.gb", NO_VERDICT, NoVerdict(0x00)),
    ("cpu_bus_1.gb", NO_VERDICT, NoVerdict(0x00)),
    ("dma_basic.gb", NO_VERDICT, NoVerdict(0x18)),
    ("flood_vram.gb", NO_VERDICT, NoVerdict(0x00)),
    (
        "halt_op_dupe_delay.gb",
        ROM_DEFECT_DIV55,
        Failed {
            result: 0x01,
            expected: 0x55,
        },
    ),
    ("lcdon_write_timing.gb", NO_VERDICT, NoVerdict(0x00)),
    (
        "line_153_lyc_b.gb",
        ROM_DEFECT_SAME_AS_A,
        Failed {
            result: 0x81,
            expected: 0x85,
        },
    ),
    ("ly_while_lcd_off.gb", NO_VERDICT, NoVerdict(0x00)),
    ("minimal.gb", NO_VERDICT, NoVerdict(0x00)),
    (
        "mode2_stat_int_to_oam_unlock.gb",
        NO_VERDICT,
        NoVerdict(0x00),
    ),
    ("oam_sprite_trashing.gb", NO_VERDICT, NoVerdict(0x00)),
    ("poweron.gb", NO_VERDICT, NoVerdict(0x00)),
    ("ppu_scx_vs_bgp.gb", NO_VERDICT, NoVerdict(0x00)),
    ("ppu_sprite_testbench.gb", NO_VERDICT, NoVerdict(0x00)),
    ("ppu_spritex_vs_scx.gb", NO_VERDICT, NoVerdict(0x00)),
    ("ppu_win_vs_wx.gb", NO_VERDICT, NoVerdict(0x00)),
    ("ppu_wx_early.gb", NO_VERDICT, NoVerdict(0x00)),
    (
        "stat_write_glitch_l154_d.gb",
        ROM_DEFECT_NO_CLEAR_IF,
        Failed {
            result: 0xe1,
            expected: 0xe0,
        },
    ),
    ("temp.gb", NO_VERDICT, NoVerdict(0x00)),
    ("toggle_lcdc.gb", NO_VERDICT, NoVerdict(0x00)),
    ("wave_write_to_0xC003.gb", NO_VERDICT, NoVerdict(0x00)),
];

/// What a ROM left behind: (0xFF80 result, 0xFF81 expected, 0xFF82
/// verdict) and the frames it ran.
type Outcome = ([u8; 3], u32);

/// How a ROM fails.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Failure {
    /// 0xFF82 = 0xFF: the ROM read `result` where it expected `expected`
    /// (0xFF80 and 0xFF81).
    Failed { result: u8, expected: u8 },
    /// Neither 0x01 nor 0xFF in 0xFF82 after [`MAX_FRAMES`] frames: what is
    /// there.
    NoVerdict(u8),
    /// The fast and the reference path left different outcomes.
    PathsDisagree(String),
    /// The ROM does not load.
    DoesNotLoad(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Failed { result, expected } => {
                write!(f, "failed: result {result:#04x}, expected {expected:#04x}")
            }
            Failure::NoVerdict(v) => {
                write!(
                    f,
                    "no verdict after {MAX_FRAMES} frames (0xFF82 = {v:#04x})"
                )
            }
            Failure::PathsDisagree(what) => write!(f, "{what}"),
            Failure::DoesNotLoad(why) => write!(f, "does not load: {why}"),
        }
    }
}

fn run_one(rom: &[u8], reference: bool) -> Result<Outcome, Failure> {
    let mut gb = GameBoy::new(rom, None).map_err(|e| Failure::DoesNotLoad(e.to_string()))?;
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

/// Pass iff 0xFF82 == 0x01; otherwise how it fails. Also runs the ROM on
/// the slow reference path, which must leave exactly the same outcome, on
/// every ROM (listed or not).
fn check(rom: &[u8]) -> Result<(), Failure> {
    let fast = run_one(rom, false)?;
    let slow = run_one(rom, true)?;
    if fast != slow {
        return Err(Failure::PathsDisagree(format!(
            "fast path {fast:02x?} and reference path {slow:02x?} disagree"
        )));
    }
    match fast {
        ([_, _, 0x01], _) => Ok(()),
        ([result, expected, 0xFF], _) => Err(Failure::Failed { result, expected }),
        ([_, _, v], _) => Err(Failure::NoVerdict(v)),
    }
}

/// What is wrong with one ROM's result against the list of known failures
/// (None: as expected).
fn mismatch(name: &str, result: &Result<(), Failure>) -> Option<String> {
    let known = KNOWN_FAILURES.iter().find(|(n, _, _)| *n == name);
    match (result, known) {
        (Ok(()), None) => None,
        (Err(got), Some((_, _, want))) if got == want => None,
        (Err(got), Some((_, reason, want))) => Some(format!(
            "{name} fails differently from its KNOWN_FAILURES entry [{reason}]: {got}, listed as {want}"
        )),
        (Err(got), None) => Some(format!("unexpected failure {name}: {got}")),
        (Ok(()), Some((_, reason, _))) => Some(format!(
            "unexpected pass {name} (listed as a known failure [{reason}]): remove it from KNOWN_FAILURES"
        )),
    }
}

/// The list is checked entry by entry: a listed ROM passes only by failing
/// exactly as listed (the verdict and values it leaves), so a no-verdict
/// ROM that starts failing explicitly, or a ROM defect whose values move,
/// is reported; an unlisted ROM must pass.
#[test]
fn known_failures_are_matched_by_how_they_fail() {
    let (name, _, listed) = KNOWN_FAILURES
        .iter()
        .find(|(_, _, f)| matches!(f, Failure::NoVerdict(_)))
        .expect("a no-verdict entry");
    assert_eq!(mismatch(name, &Err(listed.clone())), None);
    let explicit = Failure::Failed {
        result: 0x00,
        expected: 0x01,
    };
    let why = mismatch(name, &Err(explicit)).expect("an explicit fail is not a listed no-verdict");
    assert!(why.contains("fails differently"), "{why}");
    assert!(mismatch(name, &Ok(())).is_some_and(|w| w.contains("unexpected pass")));
    let (defect, _, _) = KNOWN_FAILURES
        .iter()
        .find(|(_, _, f)| matches!(f, Failure::Failed { .. }))
        .expect("a ROM-defect entry");
    let moved = Failure::Failed {
        result: 0x42,
        expected: 0x43,
    };
    assert!(mismatch(defect, &Err(moved)).is_some_and(|w| w.contains("fails differently")));
    assert!(mismatch("unlisted.gb", &Err(Failure::NoVerdict(0))).is_some());
    assert_eq!(mismatch("unlisted.gb", &Ok(())), None);
}

#[test]
fn gbmicrotest() {
    let dir = common::roms_dir().join(DIR);
    let Some(roms) = common::load_folder(DIR, ".gb") else {
        return;
    };
    // Every ROM ran: a folder with ROMs missing is not the suite.
    assert_eq!(
        roms.len(),
        ROM_COUNT,
        "{} holds {} ROMs, the suite has {ROM_COUNT}",
        dir.display(),
        roms.len()
    );

    let results: Mutex<Vec<(String, Result<(), Failure>)>> = Mutex::new(Vec::new());
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
        if let Some(problem) = mismatch(name, r) {
            problems.push(problem);
        } else if let (Err(why), Some((_, reason, _))) =
            (r, KNOWN_FAILURES.iter().find(|(n, _, _)| n == name))
        {
            println!("  known failure {name} [{reason}]: {why}");
            let category = reason.split(':').next().unwrap_or(reason);
            match by_category.iter_mut().find(|(c, _)| *c == category) {
                Some((_, n)) => *n += 1,
                None => by_category.push((category, 1)),
            }
        }
    }
    by_category.sort();
    for (category, n) in &by_category {
        println!("  {n:3} known failures: {category}");
    }
    for (name, _, _) in KNOWN_FAILURES {
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
