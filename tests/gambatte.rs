//! gambatte's hardware tests (`$EMURUST_ROMS/gambatte-hwtests`, the ROMs
//! with a DMG expectation; see the folder's README): one test per ROM.
//!
//! Verdict, as gambatte's own test runner reads it: from the post-boot state
//! run frames until more than 1,053,360 T-cycles (15 x 70,224) have passed;
//! the last frame run is the one read.
//! * `..._dmg08_out<HEX>` / `..._dmg08_cgb04c_out<HEX>` (hex tests): the
//!   8x8 cells at the top left of the screen, one per digit from x = 0, must
//!   show gambatte's digit font exactly (dark digit, shade 3, on shade 0).
//! * `_outaudio0` / `_outaudio1`: the sound output of the last frame is
//!   constant (audio0) or not (audio1).
//! * `..._dmg08_cgb_blank` (one ROM, no digits): the whole screen shade 0.
//!
//! Every ROM also runs on the slow reference path, which must leave the same
//! screen, sound and clock. ROMs that fail today are listed in
//! `python/emurust/data/gambatte_failures.tsv` with their reason: a listed ROM that passes fails
//! its test too ("remove it from the list"), so both a regression and a fix
//! show. `all_roms_have_a_test` checks this file against the folder.
mod common;

use emurust::{GameBoy, Model};

/// The folder under `$EMURUST_ROMS`.
const DIR: &str = "gambatte-hwtests";
/// T-cycles gambatte's runner emulates before reading the result.
const RUN_CYCLES: u64 = 15 * 70_224;
/// Sample rate for the audio rule (the highest emurust offers, so that a
/// short pulse is not missed).
const AUDIO_RATE: u32 = 192_000;

/// gambatte's test-runner digit font (test/testrunner.cpp), 0..F: one byte
/// per row, bit 7 = leftmost pixel, 1 = dark (shade 3), 0 = light (shade 0).
const FONT: [[u8; 8]; 16] = [
    [0x00, 0x7F, 0x41, 0x41, 0x41, 0x41, 0x41, 0x7F], // 0
    [0x00, 0x08, 0x08, 0x08, 0x08, 0x08, 0x08, 0x08], // 1
    [0x00, 0x7F, 0x01, 0x01, 0x7F, 0x40, 0x40, 0x7F], // 2
    [0x00, 0x7F, 0x01, 0x01, 0x3F, 0x01, 0x01, 0x7F], // 3
    [0x00, 0x41, 0x41, 0x41, 0x7F, 0x01, 0x01, 0x01], // 4
    [0x00, 0x7F, 0x40, 0x40, 0x7E, 0x01, 0x01, 0x7E], // 5
    [0x00, 0x7F, 0x40, 0x40, 0x7F, 0x41, 0x41, 0x7F], // 6
    [0x00, 0x7F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x10], // 7
    [0x00, 0x3E, 0x41, 0x41, 0x3E, 0x41, 0x41, 0x3E], // 8
    [0x00, 0x7F, 0x41, 0x41, 0x7F, 0x01, 0x01, 0x7F], // 9
    [0x00, 0x08, 0x22, 0x41, 0x7F, 0x41, 0x41, 0x41], // A
    [0x00, 0x7E, 0x41, 0x41, 0x7E, 0x41, 0x41, 0x7E], // B
    [0x00, 0x3E, 0x41, 0x40, 0x40, 0x40, 0x41, 0x3E], // C
    [0x00, 0x7E, 0x41, 0x41, 0x41, 0x41, 0x41, 0x7E], // D
    [0x00, 0x7F, 0x40, 0x40, 0x7F, 0x40, 0x40, 0x7F], // E
    [0x00, 0x7F, 0x40, 0x40, 0x7F, 0x40, 0x40, 0x40], // F
];

const WIDTH: usize = 160;

/// What a ROM's file name says the DMG shows.
#[derive(Debug, PartialEq)]
enum Expect {
    /// Hex digits, 0..=15 each, from the top-left cell rightwards.
    Hex(Vec<u8>),
    /// Sound output of the last frame constant (`false`) or not (`true`).
    Audio(bool),
    /// A blank (all shade 0) screen.
    Blank,
}

fn expectation(rel: &str) -> Result<Expect, String> {
    let stem = rel.rsplit_once('.').map_or(rel, |(s, _)| s);
    let out = ["_dmg08_cgb04c_out", "_dmg08_out"]
        .iter()
        .find_map(|tag| stem.find(tag).map(|i| &stem[i + tag.len()..]));
    match out {
        Some(rest) if rest.starts_with("audio0") => Ok(Expect::Audio(false)),
        Some(rest) if rest.starts_with("audio1") => Ok(Expect::Audio(true)),
        Some(rest) => {
            // Digits up to the first non-hex character (gambatte's rule).
            let digits: Vec<u8> = rest
                .chars()
                .map_while(|c| c.to_digit(16).map(|d| d as u8))
                .collect();
            if digits.is_empty() {
                Err(format!("{rel}: no hex digits after _out"))
            } else {
                Ok(Expect::Hex(digits))
            }
        }
        None if stem.ends_with("_dmg08_cgb_blank") => Ok(Expect::Blank),
        None => Err(format!("{rel}: no DMG expectation in the name")),
    }
}

/// What one run leaves: the last frame's shades, its sound samples (empty
/// unless asked for) and the clock.
#[derive(PartialEq)]
struct Outcome {
    shades: Vec<u8>,
    samples: Vec<i8>,
    cycles: u64,
}

/// What a ROM's file name says a CGB shows (`_cgb04c_out<HEX>` or
/// `_cgb04c_outaudio0/1`), if it says.
fn cgb_expectation(rel: &str) -> Option<Expect> {
    let stem = rel.rsplit_once('.').map_or(rel, |(s, _)| s);
    let tag = "_cgb04c_out";
    let rest = &stem[stem.find(tag)? + tag.len()..];
    if rest.starts_with("audio0") {
        return Some(Expect::Audio(false));
    }
    if rest.starts_with("audio1") {
        return Some(Expect::Audio(true));
    }
    let digits: Vec<u8> = rest
        .chars()
        .map_while(|c| c.to_digit(16).map(|d| d as u8))
        .collect();
    (!digits.is_empty()).then_some(Expect::Hex(digits))
}

fn run(rom: &[u8], reference: bool, audio: bool) -> Outcome {
    run_model(rom, Model::Dmg, reference, audio)
}

/// `run` on `model`. A CGB's screen is read as shades too: white (0x7FFF)
/// as 0, black as 3 and any other colour as 1, which no digit cell holds
/// (the tests show dark digits on a light background in a palette of
/// their own).
fn run_model(rom: &[u8], model: Model, reference: bool, audio: bool) -> Outcome {
    let mut gb = GameBoy::with_model(rom, None, model).expect("ROM loads");
    gb.set_reference_mode(reference);
    if audio {
        gb.set_sound_output(Some(AUDIO_RATE)).expect("sample rate");
    }
    let start = gb.cycles();
    // gambatte's runner runs whole frames until more than RUN_CYCLES have
    // passed and reads the last one.
    while gb.cycles() - start <= RUN_CYCLES {
        gb.run_frame(true);
    }
    let shades = match gb.screen().colors() {
        None => gb.screen().shades().to_vec(),
        Some(colors) => colors
            .iter()
            .map(|&c| match c {
                0x7FFF => 0,
                0x0000 => 3,
                _ => 1,
            })
            .collect(),
    };
    Outcome {
        shades,
        samples: gb.sound_samples().to_vec(),
        cycles: gb.cycles() - start,
    }
}

/// The digit a cell shows, if it is one of the font's (exactly).
fn cell_digit(shades: &[u8], cell: usize) -> Option<u8> {
    (0..16u8).find(|&d| {
        (0..8).all(|y| {
            (0..8).all(|x| {
                let dark = FONT[d as usize][y] & (0x80 >> x) != 0;
                shades[y * WIDTH + cell * 8 + x] == if dark { 3 } else { 0 }
            })
        })
    })
}

/// What a run shows, in the terms of its expectation: the hex digits in the
/// cells (`?` for a cell that is no digit of the font), `audio0` / `audio1`
/// (the last frame's sound constant or not), or `blank` / the first pixel
/// that is not. A listed failure records this, so a change in how it fails
/// is seen.
fn shown(expect: &Expect, out: &Outcome) -> String {
    match expect {
        Expect::Hex(digits) => (0..digits.len())
            .map(|i| {
                cell_digit(&out.shades, i)
                    .map_or('?', |d| char::from_digit(d.into(), 16).unwrap_or('?'))
            })
            .collect(),
        Expect::Audio(_) => {
            let constant = out.samples.iter().all(|&s| s == out.samples[0]);
            if constant { "audio0" } else { "audio1" }.into()
        }
        Expect::Blank => match out.shades.iter().position(|&s| s != 0) {
            None => "blank".into(),
            Some(i) => format!(
                "pixel ({}, {}) shade {}",
                i % WIDTH,
                i / WIDTH,
                out.shades[i]
            ),
        },
    }
}

fn verdict(expect: &Expect, out: &Outcome) -> Result<(), String> {
    match expect {
        Expect::Hex(digits) => {
            let shown: String = (0..digits.len())
                .map(|i| {
                    cell_digit(&out.shades, i)
                        .map_or('?', |d| char::from_digit(d.into(), 16).unwrap_or('?'))
                })
                .collect();
            let want: String = digits
                .iter()
                .map(|&d| char::from_digit(d.into(), 16).unwrap_or('?'))
                .collect();
            if shown == want {
                Ok(())
            } else {
                Err(format!("screen shows {shown}, expected {want}"))
            }
        }
        Expect::Audio(changing) => {
            let constant = out.samples.iter().all(|&s| s == out.samples[0]);
            match (constant, changing) {
                (true, false) | (false, true) => Ok(()),
                (true, true) => {
                    Err("sound constant in the last frame, expected it to change".into())
                }
                (false, false) => {
                    Err("sound changes in the last frame, expected it constant".into())
                }
            }
        }
        Expect::Blank => match out.shades.iter().position(|&s| s != 0) {
            None => Ok(()),
            Some(i) => Err(format!(
                "screen not blank: pixel ({}, {}) is shade {}",
                i % WIDTH,
                i / WIDTH,
                out.shades[i]
            )),
        },
    }
}

fn check(rel: &str) {
    let Some(rom) = common::load(&format!("{DIR}/{rel}")) else {
        return;
    };
    let expect = expectation(rel).unwrap_or_else(|e| panic!("{e}"));
    let audio = matches!(expect, Expect::Audio(_));
    let fast = run(&rom, false, audio);
    let slow = run(&rom, true, audio);
    // The two paths must agree on every ROM, listed as a failure or not.
    if fast != slow {
        panic!(
            "{rel}: fast path (shows {}; {} cycles) and reference path (shows {}; {} cycles) disagree",
            shown(&expect, &fast),
            fast.cycles,
            shown(&expect, &slow),
            slow.cycles
        );
    }
    let failures = expected_failures().unwrap_or_else(|e| panic!("{e}"));
    let known = failures.iter().find(|f| f.rom == rel);
    let result = verdict(&expect, &fast);
    if let Some(problem) = judge(rel, result, shown(&expect, &fast), known, DMG_LIST) {
        panic!("{problem}");
    }
}

/// The CGB column: a ROM with a CGB expectation runs on a CGB, both paths,
/// against `gambatte_cgb_failures.tsv` as `check` does for the DMG.
fn check_cgb(rel: &str) {
    let Some(expect) = cgb_expectation(rel) else {
        return;
    };
    let Some(rom) = common::load(&format!("{DIR}/{rel}")) else {
        return;
    };
    let audio = matches!(expect, Expect::Audio(_));
    let fast = run_model(&rom, Model::Cgb, false, audio);
    let slow = run_model(&rom, Model::Cgb, true, audio);
    // The two paths must agree on every ROM, listed as a failure or not.
    if fast != slow {
        panic!(
            "{rel} (CGB): fast path (shows {}; {} cycles) and reference path (shows {}; {} cycles) disagree",
            shown(&expect, &fast),
            fast.cycles,
            shown(&expect, &slow),
            slow.cycles
        );
    }
    let failures = cgb_expected_failures().unwrap_or_else(|e| panic!("{e}"));
    let known = failures.iter().find(|f| f.rom == rel);
    let result = verdict(&expect, &fast);
    if let Some(problem) = judge(rel, result, shown(&expect, &fast), known, CGB_LIST) {
        panic!("{problem} (CGB)");
    }
}

/// A ROM's result against its entry in the list of expected failures (if
/// any): None when as expected, else what is wrong. A listed ROM must fail
/// showing exactly what the list records.
fn judge(
    rel: &str,
    result: Result<(), String>,
    shows: String,
    known: Option<&ExpectedFailure>,
    list: &str,
) -> Option<String> {
    match (result, known) {
        (Ok(()), None) => None,
        (Err(why), Some(f)) if shows == f.shows => {
            println!("{rel}: expected failure ({}): {why}", f.reason);
            None
        }
        (Err(why), Some(f)) => Some(format!(
            "{rel}: fails differently from {list} ({why}): shows {shows:?}, listed as showing {:?}",
            f.shows
        )),
        (Err(why), None) => Some(format!("{rel}: {why}")),
        (Ok(()), Some(f)) => Some(format!(
            "{rel}: passes now, but {list} lists it ({}): remove it from the list",
            f.reason
        )),
    }
}

#[test]
fn listed_failures_must_fail_as_recorded() {
    let listed = ExpectedFailure {
        rom: "x/a_dmg08_cgb04c_out0.gbc",
        reason: "why",
        shows: "3",
    };
    let err = || Err("screen shows ?, expected 0".to_string());
    let judge = |r, shows: &str, known| judge("x", r, shows.into(), known, DMG_LIST);
    assert_eq!(judge(err(), "3", Some(&listed)), None);
    let moved = judge(err(), "2", Some(&listed));
    assert!(moved.is_some_and(|m| m.contains("fails differently")));
    assert!(judge(Ok(()), "0", Some(&listed)).is_some_and(|m| m.contains("passes now")));
    assert!(judge(err(), "3", None).is_some());
    assert_eq!(judge(Ok(()), "0", None), None);
}

#[test]
fn all_roms_have_a_test() {
    let base = common::roms_dir().join(DIR);
    let manifest = match std::fs::read_to_string(base.join("manifest.tsv")) {
        Ok(text) => text,
        Err(e) => {
            common::missing(
                &format!("{}", base.join("manifest.tsv").display()),
                &e.to_string(),
            );
            return;
        }
    };
    let listed: Vec<&str> = manifest
        .lines()
        .filter_map(|l| l.split('\t').next())
        .map(|p| p.trim_start_matches("./"))
        .filter(|p| !p.is_empty())
        .collect();
    let missing: Vec<&&str> = listed.iter().filter(|p| !ROMS.contains(p)).collect();
    assert!(missing.is_empty(), "ROMs without a test: {missing:?}");
    let extra: Vec<&&str> = ROMS.iter().filter(|p| !listed.contains(p)).collect();
    assert!(
        extra.is_empty(),
        "tests for ROMs not in the manifest: {extra:?}"
    );
    for rel in ROMS {
        expectation(rel).unwrap_or_else(|e| panic!("{e}"));
    }
    for f in expected_failures().unwrap_or_else(|e| panic!("{e}")) {
        let rel = f.rom;
        assert!(
            ROMS.contains(&rel),
            "gambatte_failures.tsv lists {rel}, which has no test"
        );
    }
}

#[test]
fn expectations_from_names() {
    assert_eq!(
        expectation("x/a_dmg08_cgb04c_out0A.gbc"),
        Ok(Expect::Hex(vec![0, 10]))
    );
    assert_eq!(
        expectation("x/a_dmg08_out3_cgb04c_out1.gb"),
        Ok(Expect::Hex(vec![3]))
    );
    assert_eq!(
        expectation("x/a_dmg08_outaudio1.gb"),
        Ok(Expect::Audio(true))
    );
    assert_eq!(
        expectation("x/a_dmg08_cgb04c_outaudio0.gb"),
        Ok(Expect::Audio(false))
    );
    assert_eq!(expectation("x/a_dmg08_cgb_blank.gb"), Ok(Expect::Blank));
    assert!(expectation("x/a_cgb04c_out1.gb").is_err());
}

#[test]
fn font_cells_are_read_back() {
    // A screen drawn with the font shows the digits; one wrong pixel does not.
    let mut shades = vec![0u8; WIDTH * 144];
    for (cell, d) in [0xAusize, 0x5, 0xF].iter().enumerate() {
        for y in 0..8 {
            for x in 0..8 {
                if FONT[*d][y] & (0x80 >> x) != 0 {
                    shades[y * WIDTH + cell * 8 + x] = 3;
                }
            }
        }
    }
    let out = Outcome {
        shades,
        samples: vec![],
        cycles: 0,
    };
    assert_eq!(verdict(&Expect::Hex(vec![0xA, 0x5, 0xF]), &out), Ok(()));
    assert!(verdict(&Expect::Hex(vec![0xA, 0x5, 0xE]), &out).is_err());
    let mut off = out.shades.clone();
    off[WIDTH + 1] = 2; // top stroke of the A's neighbour cell... of cell 0
    let out2 = Outcome {
        shades: off,
        samples: vec![],
        cycles: 0,
    };
    assert!(verdict(&Expect::Hex(vec![0xA, 0x5, 0xF]), &out2).is_err());
    // Audio rule.
    let flat = Outcome {
        shades: vec![],
        samples: vec![4; 10],
        cycles: 0,
    };
    assert_eq!(verdict(&Expect::Audio(false), &flat), Ok(()));
    assert!(verdict(&Expect::Audio(true), &flat).is_err());
}

#[test]
fn cgb_expectations_from_names() {
    assert_eq!(
        cgb_expectation("x/a_dmg08_cgb04c_out0A.gbc"),
        Some(Expect::Hex(vec![0, 10]))
    );
    assert_eq!(
        cgb_expectation("x/a_dmg08_out3_cgb04c_out1.gbc"),
        Some(Expect::Hex(vec![1]))
    );
    assert_eq!(
        cgb_expectation("x/a_dmg08_outaudio1_cgb04c_outaudio0.gbc"),
        Some(Expect::Audio(false))
    );
    assert_eq!(cgb_expectation("x/a_dmg08_out3.gb"), None);
    assert_eq!(cgb_expectation("x/a_dmg08_cgb_blank.gb"), None);
    for f in cgb_expected_failures().unwrap_or_else(|e| panic!("{e}")) {
        let rel = f.rom;
        assert!(
            ROMS.contains(&rel) && cgb_expectation(rel).is_some(),
            "gambatte_cgb_failures.tsv lists {rel}, which has no CGB test"
        );
    }
}

/// ROMs that fail today and why, shared with `emurust.conformance`: remove
/// a ROM when a fix makes it pass (its test says so).
const EXPECTED_FAILURES: &str = include_str!("../python/emurust/data/gambatte_failures.tsv");

/// One entry of `EXPECTED_FAILURES`.
#[derive(Debug, PartialEq)]
struct ExpectedFailure {
    /// The ROM's path under [`DIR`].
    rom: &'static str,
    /// Why it fails (the text of its reason).
    reason: &'static str,
    /// What emurust shows on it (see [`shown`]).
    shows: &'static str,
}

/// The CGB column's failures, in the same format.
const CGB_EXPECTED_FAILURES: &str =
    include_str!("../python/emurust/data/gambatte_cgb_failures.tsv");

const DMG_LIST: &str = "gambatte_failures.tsv";
const CGB_LIST: &str = "gambatte_cgb_failures.tsv";

/// `EXPECTED_FAILURES` (the DMG's).
fn expected_failures() -> Result<Vec<ExpectedFailure>, String> {
    parse_failures(EXPECTED_FAILURES, DMG_LIST)
}

/// `CGB_EXPECTED_FAILURES`.
fn cgb_expected_failures() -> Result<Vec<ExpectedFailure>, String> {
    parse_failures(CGB_EXPECTED_FAILURES, CGB_LIST)
}

/// A failures list (`list`, its file name for messages): `[reasons]` lines
/// are `key <tab> reason`, `[failures]` lines `ROM <tab> reason key <tab>
/// what emurust shows`.
fn parse_failures(text: &'static str, list: &str) -> Result<Vec<ExpectedFailure>, String> {
    let mut reasons: Vec<(&str, &str)> = Vec::new();
    let mut failures = Vec::new();
    let mut section = "";
    for line in text.lines() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with('[') {
            section = line;
            continue;
        }
        let (key, value) = line
            .split_once('\t')
            .ok_or_else(|| format!("{list}: no tab in {line:?}"))?;
        match section {
            "[reasons]" => reasons.push((key, value)),
            "[failures]" => {
                let (why, shows) = value
                    .split_once('\t')
                    .ok_or_else(|| format!("{list}: {key} does not say what emurust shows"))?;
                let reason = reasons
                    .iter()
                    .find(|(k, _)| *k == why)
                    .ok_or_else(|| format!("{list}: unknown reason {why:?}"))?;
                failures.push(ExpectedFailure {
                    rom: key,
                    reason: reason.1,
                    shows,
                });
            }
            _ => return Err(format!("{list}: line outside a section: {line:?}")),
        }
    }
    Ok(failures)
}

macro_rules! gambatte {
    ($($name:ident: $path:expr;)*) => {
        /// Every ROM with a test (checked against the folder's manifest).
        const ROMS: &[&str] = &[$($path),*];
        $( #[test] fn $name() { check($path); } )*
        /// The CGB column: the same ROMs on a CGB (those with a CGB
        /// expectation; the others return at once).
        mod cgb {
            $( #[test] fn $name() { super::check_cgb($path); } )*
        }
    };
}

gambatte! {
    display_startstate_irq_dmg08_cgb04c_oute1: "display_startstate/irq_dmg08_cgb04c_outE1.gbc";
    display_startstate_stat_1_dmg08_out85: "display_startstate/stat_1_dmg08_out85.gb";
    div_start_inc_1_dmg08_outab: "div/start_inc_1_dmg08_outAB.gb";
    enable_display_disable_display_regs_1_dmg08_cgb04c_out66e46666009266666666: "enable_display/disable_display_regs_1_dmg08_cgb04c_out66e46666009266666666.gbc";
    enable_display_disable_display_regs_3_dmg08_cgb04c_out91e06666006666666666: "enable_display/disable_display_regs_3_dmg08_cgb04c_out91e06666006666666666.gbc";
    enable_display_enable_display_ly0_m2irq_dmg08_out0_cgb04c_out0: "enable_display/enable_display_ly0_m2irq_dmg08_out0_cgb04c_out0.gbc";
    enable_display_enable_display_ly0_oambusy_read_2_dmg08_cgb04c_out7: "enable_display/enable_display_ly0_oambusy_read_2_dmg08_cgb04c_out7.gbc";
    enable_display_enable_display_ly0_sprites_m0stat_2_dmg08_cgb04c_out0: "enable_display/enable_display_ly0_sprites_m0stat_2_dmg08_cgb04c_out0.gbc";
    enable_display_enable_display_ly0_wemaster_2_dmg08_cgb04c_out3: "enable_display/enable_display_ly0_wemaster_2_dmg08_cgb04c_out3.gbc";
    enable_display_frame0_ly_count_2_dmg08_cgb04c_out9a: "enable_display/frame0_ly_count_2_dmg08_cgb04c_out9A.gbc";
    enable_display_frame0_m0irq_count_scx2_2_dmg08_cgb04c_out90: "enable_display/frame0_m0irq_count_scx2_2_dmg08_cgb04c_out90.gbc";
    enable_display_frame0_m0irq_count_scx3_2_dmg08_cgb04c_out90: "enable_display/frame0_m0irq_count_scx3_2_dmg08_cgb04c_out90.gbc";
    enable_display_frame0_m1stat_2_dmg08_cgb04c_out81: "enable_display/frame0_m1stat_2_dmg08_cgb04c_out81.gbc";
    enable_display_frame0_m2irq_count_2_dmg08_cgb04c_out91: "enable_display/frame0_m2irq_count_2_dmg08_cgb04c_out91.gbc";
    enable_display_frame0_m2stat_count_2_dmg08_cgb04c_out90: "enable_display/frame0_m2stat_count_2_dmg08_cgb04c_out90.gbc";
    enable_display_frame0_m3stat_count_2_dmg08_cgb04c_out90: "enable_display/frame0_m3stat_count_2_dmg08_cgb04c_out90.gbc";
    enable_display_frame1_ly_count_2_dmg08_cgb04c_out9a: "enable_display/frame1_ly_count_2_dmg08_cgb04c_out9A.gbc";
    enable_display_frame1_m0irq_count_scx2_2_dmg08_cgb04c_out90: "enable_display/frame1_m0irq_count_scx2_2_dmg08_cgb04c_out90.gbc";
    enable_display_frame1_m0irq_count_scx3_2_dmg08_cgb04c_out90: "enable_display/frame1_m0irq_count_scx3_2_dmg08_cgb04c_out90.gbc";
    enable_display_frame1_m1stat_2_dmg08_cgb04c_out81: "enable_display/frame1_m1stat_2_dmg08_cgb04c_out81.gbc";
    enable_display_frame1_m2irq_count_2_dmg08_cgb04c_out91: "enable_display/frame1_m2irq_count_2_dmg08_cgb04c_out91.gbc";
    enable_display_frame1_m2stat_count_2_dmg08_cgb04c_out90: "enable_display/frame1_m2stat_count_2_dmg08_cgb04c_out90.gbc";
    enable_display_frame1_m3stat_count_2_dmg08_cgb04c_out90: "enable_display/frame1_m3stat_count_2_dmg08_cgb04c_out90.gbc";
    enable_display_frame2_m0irq_count_scx2_2_dmg08_cgb04c_out90: "enable_display/frame2_m0irq_count_scx2_2_dmg08_cgb04c_out90.gbc";
    enable_display_frame2_m0irq_count_scx3_2_dmg08_cgb04c_out90: "enable_display/frame2_m0irq_count_scx3_2_dmg08_cgb04c_out90.gbc";
    enable_display_lcdcenable_lyc0irq_2_dmg08_cgb04c_out0: "enable_display/lcdcenable_lyc0irq_2_dmg08_cgb04c_out0.gbc";
    enable_display_ly0_late_oamw_2_dmg08_cgb04c_out55: "enable_display/ly0_late_oamw_2_dmg08_cgb04c_out55.gbc";
    enable_display_ly0_late_scx7_m3stat_scx0_2_dmg08_out87_cgb04c_out84: "enable_display/ly0_late_scx7_m3stat_scx0_2_dmg08_out87_cgb04c_out84.gbc";
    enable_display_ly0_late_scx7_m3stat_scx1_1_dmg08_cgb04c_out87: "enable_display/ly0_late_scx7_m3stat_scx1_1_dmg08_cgb04c_out87.gbc";
    enable_display_ly0_late_scx7_m3stat_scx3_1_dmg08_cgb04c_out87: "enable_display/ly0_late_scx7_m3stat_scx3_1_dmg08_cgb04c_out87.gbc";
    enable_display_ly0_late_vramr_1_dmg08_cgb04c_out55: "enable_display/ly0_late_vramr_1_dmg08_cgb04c_out55.gbc";
    enable_display_ly0_late_vramr_3_dmg08_cgb04c_outff: "enable_display/ly0_late_vramr_3_dmg08_cgb04c_outFF.gbc";
    enable_display_ly0_late_vramw_2_dmg08_out55_cgb04c_outaa: "enable_display/ly0_late_vramw_2_dmg08_out55_cgb04c_outAA.gbc";
    enable_display_ly0_m0irq_scx0_1_dmg08_cgb04c_oute0: "enable_display/ly0_m0irq_scx0_1_dmg08_cgb04c_outE0.gbc";
    enable_display_ly0_m0irq_scx1_1_dmg08_cgb04c_oute0: "enable_display/ly0_m0irq_scx1_1_dmg08_cgb04c_outE0.gbc";
    enable_display_ly_dmg08_cgb04c_out00: "enable_display/ly_dmg08_cgb04c_out00.gbc";
    enable_display_nextstat_2_dmg08_cgb04c_out87: "enable_display/nextstat_2_dmg08_cgb04c_out87.gbc";
    halt_ifandie_ei_halt_m2int_m0stat_1_dmg08_cgb04c_out0: "halt/ifandie_ei_halt_m2int_m0stat_1_dmg08_cgb04c_out0.gbc";
    halt_ifandie_ei_halt_sra_dmg08_cgb04c_out0a: "halt/ifandie_ei_halt_sra_dmg08_cgb04c_out0A.gbc";
    halt_late_m0int_halt_m0stat_scx2_1a_dmg08_cgb04c_out0: "halt/late_m0int_halt_m0stat_scx2_1a_dmg08_cgb04c_out0.gbc";
    halt_late_m0int_halt_m0stat_scx2_2a_dmg08_cgb04c_out0: "halt/late_m0int_halt_m0stat_scx2_2a_dmg08_cgb04c_out0.gbc";
    halt_late_m0int_halt_m0stat_scx2_3a_dmg08_cgb04c_out0: "halt/late_m0int_halt_m0stat_scx2_3a_dmg08_cgb04c_out0.gbc";
    halt_late_m0int_halt_m0stat_scx2_4a_dmg08_cgb04c_out0: "halt/late_m0int_halt_m0stat_scx2_4a_dmg08_cgb04c_out0.gbc";
    halt_late_m0int_halt_m0stat_scx3_1a_dmg08_cgb04c_out0: "halt/late_m0int_halt_m0stat_scx3_1a_dmg08_cgb04c_out0.gbc";
    halt_late_m0int_halt_m0stat_scx3_1c_dmg08_cgb04c_out2: "halt/late_m0int_halt_m0stat_scx3_1c_dmg08_cgb04c_out2.gbc";
    halt_late_m0int_halt_m0stat_scx3_2b_dmg08_cgb04c_out2: "halt/late_m0int_halt_m0stat_scx3_2b_dmg08_cgb04c_out2.gbc";
    halt_late_m0int_halt_m0stat_scx3_3b_dmg08_out0_cgb04c_out2: "halt/late_m0int_halt_m0stat_scx3_3b_dmg08_out0_cgb04c_out2.gbc";
    halt_late_m0int_halt_m0stat_scx3_4a_dmg08_cgb04c_out0: "halt/late_m0int_halt_m0stat_scx3_4a_dmg08_cgb04c_out0.gbc";
    halt_late_m0int_halt_m0stat_scx3_4c_dmg08_cgb04c_out2: "halt/late_m0int_halt_m0stat_scx3_4c_dmg08_cgb04c_out2.gbc";
    halt_late_m0irq_halt_dec_scx2_2_dmg08_cgb04c_out6: "halt/late_m0irq_halt_dec_scx2_2_dmg08_cgb04c_out6.gbc";
    halt_late_m0irq_halt_dec_scx3_2_dmg08_cgb04c_out6: "halt/late_m0irq_halt_dec_scx3_2_dmg08_cgb04c_out6.gbc";
    halt_late_m0irq_halt_m0stat_scx2_1b_dmg08_cgb04c_out2: "halt/late_m0irq_halt_m0stat_scx2_1b_dmg08_cgb04c_out2.gbc";
    halt_late_m0irq_halt_m0stat_scx2_2b_dmg08_cgb04c_out2: "halt/late_m0irq_halt_m0stat_scx2_2b_dmg08_cgb04c_out2.gbc";
    halt_late_m0irq_halt_m0stat_scx2_3b_dmg08_cgb04c_out2: "halt/late_m0irq_halt_m0stat_scx2_3b_dmg08_cgb04c_out2.gbc";
    halt_late_m0irq_halt_m0stat_scx2_4b_dmg08_cgb04c_out2: "halt/late_m0irq_halt_m0stat_scx2_4b_dmg08_cgb04c_out2.gbc";
    halt_late_m0irq_halt_m0stat_scx3_1b_dmg08_out0_cgb04c_out2: "halt/late_m0irq_halt_m0stat_scx3_1b_dmg08_out0_cgb04c_out2.gbc";
    halt_late_m0irq_halt_m0stat_scx3_2a_dmg08_cgb04c_out0: "halt/late_m0irq_halt_m0stat_scx3_2a_dmg08_cgb04c_out0.gbc";
    halt_late_m0irq_halt_m0stat_scx3_3a_dmg08_cgb04c_out0: "halt/late_m0irq_halt_m0stat_scx3_3a_dmg08_cgb04c_out0.gbc";
    halt_late_m0irq_halt_m0stat_scx3_4a_dmg08_cgb04c_out0: "halt/late_m0irq_halt_m0stat_scx3_4a_dmg08_cgb04c_out0.gbc";
    halt_lycirq_m2stat_1_dmg08_cgb04c_out2: "halt/lycirq_m2stat_1_dmg08_cgb04c_out2.gbc";
    halt_lycirq_m2stat_3_dmg08_cgb04c_out3: "halt/lycirq_m2stat_3_dmg08_cgb04c_out3.gbc";
    halt_m0int_m0stat_scx2_2_dmg08_cgb04c_out2: "halt/m0int_m0stat_scx2_2_dmg08_cgb04c_out2.gbc";
    halt_m0int_m0stat_scx3_2_dmg08_out0_cgb04c_out2: "halt/m0int_m0stat_scx3_2_dmg08_out0_cgb04c_out2.gbc";
    halt_m0int_m0stat_scx4_1_dmg08_cgb04c_out0: "halt/m0int_m0stat_scx4_1_dmg08_cgb04c_out0.gbc";
    halt_m0int_m0stat_scx4_3_dmg08_cgb04c_out2: "halt/m0int_m0stat_scx4_3_dmg08_cgb04c_out2.gbc";
    halt_m0int_m0stat_scx5_2_dmg08_cgb04c_out2: "halt/m0int_m0stat_scx5_2_dmg08_cgb04c_out2.gbc";
    halt_m0irq_m0stat_scx2_2_dmg08_cgb04c_out2: "halt/m0irq_m0stat_scx2_2_dmg08_cgb04c_out2.gbc";
    halt_m0irq_m0stat_scx3_2_dmg08_out0_cgb04c_out2: "halt/m0irq_m0stat_scx3_2_dmg08_out0_cgb04c_out2.gbc";
    halt_m0irq_m0stat_scx4_1_dmg08_cgb04c_out0: "halt/m0irq_m0stat_scx4_1_dmg08_cgb04c_out0.gbc";
    halt_m0irq_m0stat_scx4_3_dmg08_cgb04c_out2: "halt/m0irq_m0stat_scx4_3_dmg08_cgb04c_out2.gbc";
    halt_m0irq_m0stat_scx5_2_dmg08_cgb04c_out2: "halt/m0irq_m0stat_scx5_2_dmg08_cgb04c_out2.gbc";
    halt_m1int_ly_2_dmg08_out90_cgb04c_out91: "halt/m1int_ly_2_dmg08_out90_cgb04c_out91.gbc";
    halt_noime_ifandie_halt_lda_3c_dmg08_cgb04c_out3f: "halt/noime_ifandie_halt_lda_3c_dmg08_cgb04c_out3F.gbc";
    halt_noime_ifandie_m2int_m0stat_1_dmg08_cgb04c_out0: "halt/noime_ifandie_m2int_m0stat_1_dmg08_cgb04c_out0.gbc";
    halt_noime_m2irq_m0stat_1_dmg08_cgb04c_out0: "halt/noime_m2irq_m0stat_1_dmg08_cgb04c_out0.gbc";
    halt_noime_noie_nolcdirq_readstat_dmg08_cgb_blank: "halt/noime_noie_nolcdirq_readstat_dmg08_cgb_blank.gb";
    irq_precedence_if_and_ie_0_if_1_dmg08_cgb04c_oute4: "irq_precedence/if_and_ie_0_if_1_dmg08_cgb04c_outE4.gbc";
    irq_precedence_if_and_ie_0_vector_1_dmg08_cgb04c_out00: "irq_precedence/if_and_ie_0_vector_1_dmg08_cgb04c_out00.gbc";
    irq_precedence_if_and_ie_0_vector_3_dmg08_cgb04c_out00: "irq_precedence/if_and_ie_0_vector_3_dmg08_cgb04c_out00.gbc";
    irq_precedence_late_if_via_sp_if_1_dmg08_cgb04c_outfd: "irq_precedence/late_if_via_sp_if_1_dmg08_cgb04c_outFD.gbc";
    irq_precedence_late_m0irq_retrigger_1_dmg08_cgb04c_oute2: "irq_precedence/late_m0irq_retrigger_1_dmg08_cgb04c_outE2.gbc";
    irq_precedence_late_m0irq_retrigger_scx1_1_dmg08_cgb04c_oute2: "irq_precedence/late_m0irq_retrigger_scx1_1_dmg08_cgb04c_outE2.gbc";
    irq_precedence_late_m0irq_vs_tima_scx2_1_dmg08_cgb04c_out4: "irq_precedence/late_m0irq_vs_tima_scx2_1_dmg08_cgb04c_out4.gbc";
    irq_precedence_late_m0irq_vs_tima_scx2_halt_1_dmg08_cgb04c_out4: "irq_precedence/late_m0irq_vs_tima_scx2_halt_1_dmg08_cgb04c_out4.gbc";
    irq_precedence_late_m0irq_vs_tima_scx3_1_dmg08_cgb04c_out4: "irq_precedence/late_m0irq_vs_tima_scx3_1_dmg08_cgb04c_out4.gbc";
    irq_precedence_late_m0irq_vs_tima_scx3_halt_1_dmg08_cgb04c_out4: "irq_precedence/late_m0irq_vs_tima_scx3_halt_1_dmg08_cgb04c_out4.gbc";
    lcdirq_precedence_lcdirqprecedence_lycirq_ly44_lcdstat58_dmg08_cgb04c_out2: "lcdirq_precedence/lcdirqprecedence_lycirq_ly44_lcdstat58_dmg08_cgb04c_out2.gbc";
    lcdirq_precedence_lcdirqprecedence_lycirq_ly90_lcdstat68_dmg08_cgb04c_out1: "lcdirq_precedence/lcdirqprecedence_lycirq_ly90_lcdstat68_dmg08_cgb04c_out1.gbc";
    lcdirq_precedence_lcdirqprecedence_m0irq_ly00_lcdstat48_lyc00_dmg08_cgb04c_out0: "lcdirq_precedence/lcdirqprecedence_m0irq_ly00_lcdstat48_lyc00_dmg08_cgb04c_out0.gbc";
    lcdirq_precedence_lcdirqprecedence_m0irq_ly00_lcdstat58_lyc00_dmg08_cgb04c_out0: "lcdirq_precedence/lcdirqprecedence_m0irq_ly00_lcdstat58_lyc00_dmg08_cgb04c_out0.gbc";
    lcdirq_precedence_lycirq_ly00_lcdstat50_dmg08_cgb04c_out0: "lcdirq_precedence/lycirq_ly00_lcdstat50_dmg08_cgb04c_out0.gbc";
    lcdirq_precedence_lycirq_ly44_lcdstat50_dmg08_cgb04c_out2: "lcdirq_precedence/lycirq_ly44_lcdstat50_dmg08_cgb04c_out2.gbc";
    lcdirq_precedence_lycirq_ly91_lcdstat50_dmg08_cgb04c_out0: "lcdirq_precedence/lycirq_ly91_lcdstat50_dmg08_cgb04c_out0.gbc";
    lcdirq_precedence_m0irq_ly00_lcdstat18_dmg08_cgb04c_out2: "lcdirq_precedence/m0irq_ly00_lcdstat18_dmg08_cgb04c_out2.gbc";
    lcdirq_precedence_m0irq_ly44_lcdstat28_dmg08_cgb04c_out2: "lcdirq_precedence/m0irq_ly44_lcdstat28_dmg08_cgb04c_out2.gbc";
    lcdirq_precedence_m0irq_ly44_lcdstat48_lyc44_dmg08_cgb04c_out0: "lcdirq_precedence/m0irq_ly44_lcdstat48_lyc44_dmg08_cgb04c_out0.gbc";
    lcdirq_precedence_m0irq_ly8f_lcdstat18_dmg08_cgb04c_out2: "lcdirq_precedence/m0irq_ly8f_lcdstat18_dmg08_cgb04c_out2.gbc";
    lcdirq_precedence_m1irq_lcdstat30_dmg08_cgb04c_out3: "lcdirq_precedence/m1irq_lcdstat30_dmg08_cgb04c_out3.gbc";
    lcdirq_precedence_m1irq_lcdstat50_lyc90_dmg08_cgb04c_out3: "lcdirq_precedence/m1irq_lcdstat50_lyc90_dmg08_cgb04c_out3.gbc";
    lcdirq_precedence_m2irq_ly00_lcdstat28_dmg08_cgb04c_out2: "lcdirq_precedence/m2irq_ly00_lcdstat28_dmg08_cgb04c_out2.gbc";
    lcdirq_precedence_m2irq_ly44_lcdstat30_dmg08_cgb04c_out2: "lcdirq_precedence/m2irq_ly44_lcdstat30_dmg08_cgb04c_out2.gbc";
    lcdirq_precedence_m2irq_ly8f_lcdstat30_dmg08_cgb04c_out2: "lcdirq_precedence/m2irq_ly8f_lcdstat30_dmg08_cgb04c_out2.gbc";
    ly0_lycint152_ly0stat_1_dmg08_cgb04c_outc1: "ly0/lycint152_ly0stat_1_dmg08_cgb04c_outC1.gbc";
    ly0_lycint152_ly0stat_3_dmg08_cgb04c_outc2: "ly0/lycint152_ly0stat_3_dmg08_cgb04c_outC2.gbc";
    ly0_lycint152_ly153_2_dmg08_cgb04c_out99: "ly0/lycint152_ly153_2_dmg08_cgb04c_out99.gbc";
    ly0_lycint152_ly1_m2irq_1_dmg08_cgb04c_oute0: "ly0/lycint152_ly1_m2irq_1_dmg08_cgb04c_outE0.gbc";
    ly0_lycint152_lyc0flag_1_dmg08_cgb04c_outc1: "ly0/lycint152_lyc0flag_1_dmg08_cgb04c_outC1.gbc";
    ly0_lycint152_lyc0flag_3_dmg08_cgb04c_outc4: "ly0/lycint152_lyc0flag_3_dmg08_cgb04c_outC4.gbc";
    ly0_lycint152_lyc0irq_1_dmg08_cgb04c_oute0: "ly0/lycint152_lyc0irq_1_dmg08_cgb04c_outE0.gbc";
    ly0_lycint152_lyc0irq_ifw_1_dmg08_cgb04c_oute2: "ly0/lycint152_lyc0irq_ifw_1_dmg08_cgb04c_outE2.gbc";
    ly0_lycint152_lyc0irq_late_retrigger_1_dmg08_cgb04c_oute2: "ly0/lycint152_lyc0irq_late_retrigger_1_dmg08_cgb04c_outE2.gbc";
    ly0_lycint152_lyc153flag_1_dmg08_cgb04c_outc1: "ly0/lycint152_lyc153flag_1_dmg08_cgb04c_outC1.gbc";
    ly0_lycint152_lyc153flag_3_dmg08_cgb04c_outc1: "ly0/lycint152_lyc153flag_3_dmg08_cgb04c_outC1.gbc";
    ly0_lycint152_lyc153irq_2_dmg08_cgb04c_oute2: "ly0/lycint152_lyc153irq_2_dmg08_cgb04c_outE2.gbc";
    ly0_lycint152_lyc153irq_ifw_2_dmg08_cgb04c_oute0: "ly0/lycint152_lyc153irq_ifw_2_dmg08_cgb04c_outE0.gbc";
    ly0_lycint152_lyc153irq_late_retrigger_2_dmg08_cgb04c_oute0: "ly0/lycint152_lyc153irq_late_retrigger_2_dmg08_cgb04c_outE0.gbc";
    ly0_lycint152_m0irq_2_dmg08_cgb04c_oute2: "ly0/lycint152_m0irq_2_dmg08_cgb04c_outE2.gbc";
    ly0_lycint152_m2irq_2_dmg08_cgb04c_oute2: "ly0/lycint152_m2irq_2_dmg08_cgb04c_outE2.gbc";
    ly0_lycint152_m2stat_2_dmg08_cgb04c_outc3: "ly0/lycint152_m2stat_2_dmg08_cgb04c_outC3.gbc";
    lyc0int_m0irq_lyc0int_m0irq_1_dmg08_cgb04c_out0: "lyc0int_m0irq/lyc0int_m0irq_1_dmg08_cgb04c_out0.gbc";
    lyc153int_m2irq_lyc153int_m2irq_1_dmg08_cgb04c_out0: "lyc153int_m2irq/lyc153int_m2irq_1_dmg08_cgb04c_out0.gbc";
    lyc153int_m2irq_lyc153int_m2irq_ifw_1_dmg08_cgb04c_out2: "lyc153int_m2irq/lyc153int_m2irq_ifw_1_dmg08_cgb04c_out2.gbc";
    lyc153int_m2irq_lyc153int_m2irq_late_retrigger_1_dmg08_cgb04c_out2: "lyc153int_m2irq/lyc153int_m2irq_late_retrigger_1_dmg08_cgb04c_out2.gbc";
    lycenable_early_ff45_response_1_dmg08_cgb04c_out0: "lycEnable/early_ff45_response_1_dmg08_cgb04c_out0.gbc";
    lycenable_ff40_disable_1_dmg08_cgb04c_out0: "lycEnable/ff40_disable_1_dmg08_cgb04c_out0.gbc";
    lycenable_ff41_disable_1_dmg08_cgb04c_out0: "lycEnable/ff41_disable_1_dmg08_cgb04c_out0.gbc";
    lycenable_ff41_disable_3_dmg08_cgb04c_out2: "lycEnable/ff41_disable_3_dmg08_cgb04c_out2.gbc";
    lycenable_ff41_reenable_2_dmg08_cgb04c_out2: "lycEnable/ff41_reenable_2_dmg08_cgb04c_out2.gbc";
    lycenable_ff45_disable_1_dmg08_cgb04c_out1: "lycEnable/ff45_disable_1_dmg08_cgb04c_out1.gbc";
    lycenable_ff45_disable_3_dmg08_cgb04c_out3: "lycEnable/ff45_disable_3_dmg08_cgb04c_out3.gbc";
    lycenable_ff45_enable_weirdpoint_2_dmg08_out3_cgb04c_out1: "lycEnable/ff45_enable_weirdpoint_2_dmg08_out3_cgb04c_out1.gbc";
    lycenable_ff45_enable_weirdpoint_4_dmg08_cgb04c_out3: "lycEnable/ff45_enable_weirdpoint_4_dmg08_cgb04c_out3.gbc";
    lycenable_ff45_reenable_2_dmg08_cgb04c_out2: "lycEnable/ff45_reenable_2_dmg08_cgb04c_out2.gbc";
    lycenable_late_ff41_enable_1_dmg08_cgb04c_out2: "lycEnable/late_ff41_enable_1_dmg08_cgb04c_out2.gbc";
    lycenable_late_ff41_enable_3_dmg08_cgb04c_out0: "lycEnable/late_ff41_enable_3_dmg08_cgb04c_out0.gbc";
    lycenable_late_ff41_enable_after_m2int_dmg08_cgb04c_out2: "lycEnable/late_ff41_enable_after_m2int_dmg08_cgb04c_out2.gbc";
    lycenable_late_ff45_enable_2_dmg08_out3_cgb04c_out1: "lycEnable/late_ff45_enable_2_dmg08_out3_cgb04c_out1.gbc";
    lycenable_late_ff45_enable_after_m2int_dmg08_cgb04c_out2: "lycEnable/late_ff45_enable_after_m2int_dmg08_cgb04c_out2.gbc";
    lycenable_lcdoff_lycirqen_2_dmg08_cgb04c_oute0: "lycEnable/lcdoff_lycirqen_2_dmg08_cgb04c_outE0.gbc";
    lycenable_lcdoff_lycirqen_4_dmg08_oute2_cgb04c_oute0: "lycEnable/lcdoff_lycirqen_4_dmg08_outE2_cgb04c_outE0.gbc";
    lycenable_lyc0_ff41_disable_2_dmg08_cgb04c_oute2: "lycEnable/lyc0_ff41_disable_2_dmg08_cgb04c_outE2.gbc";
    lycenable_lyc0_ff45_disable_2_dmg08_oute0_cgb04c_oute2: "lycEnable/lyc0_ff45_disable_2_dmg08_outE0_cgb04c_outE2.gbc";
    lycenable_lyc0_ff45_enable_weirdpoint_1_dmg08_cgb04c_oute2: "lycEnable/lyc0_ff45_enable_weirdpoint_1_dmg08_cgb04c_outE2.gbc";
    lycenable_lyc0_ff45_enable_weirdpoint_3_dmg08_cgb04c_oute2: "lycEnable/lyc0_ff45_enable_weirdpoint_3_dmg08_cgb04c_outE2.gbc";
    lycenable_lyc0_late_ff45_enable_1_dmg08_cgb04c_oute2: "lycEnable/lyc0_late_ff45_enable_1_dmg08_cgb04c_outE2.gbc";
    lycenable_lyc0_late_ff45_enable_3_dmg08_cgb04c_oute0: "lycEnable/lyc0_late_ff45_enable_3_dmg08_cgb04c_outE0.gbc";
    lycenable_lyc0_m1disable_2_dmg08_oute2_cgb04c_oute0: "lycEnable/lyc0_m1disable_2_dmg08_outE2_cgb04c_outE0.gbc";
    lycenable_lyc153_late_enable_m1disable_1_dmg08_cgb04c_oute2: "lycEnable/lyc153_late_enable_m1disable_1_dmg08_cgb04c_outE2.gbc";
    lycenable_lyc153_late_enable_m1disable_3_dmg08_cgb04c_oute0: "lycEnable/lyc153_late_enable_m1disable_3_dmg08_cgb04c_outE0.gbc";
    lycenable_lyc153_late_ff41_enable_2_dmg08_oute2_cgb04c_oute0: "lycEnable/lyc153_late_ff41_enable_2_dmg08_outE2_cgb04c_outE0.gbc";
    lycenable_lyc153_late_ff45_enable_2_dmg08_oute2_cgb04c_oute0: "lycEnable/lyc153_late_ff45_enable_2_dmg08_outE2_cgb04c_outE0.gbc";
    lycenable_lyc153_late_ff45_enable_4_dmg08_oute2_cgb04c_oute0: "lycEnable/lyc153_late_ff45_enable_4_dmg08_outE2_cgb04c_outE0.gbc";
    lycenable_lyc153_late_m1disable_1_dmg08_cgb04c_oute2: "lycEnable/lyc153_late_m1disable_1_dmg08_cgb04c_outE2.gbc";
    lycenable_lyc153_late_m1disable_3_dmg08_cgb04c_oute0: "lycEnable/lyc153_late_m1disable_3_dmg08_cgb04c_outE0.gbc";
    lycenable_lyc_ff41_enable_2_dmg08_cgb04c_out2: "lycEnable/lyc_ff41_enable_2_dmg08_cgb04c_out2.gbc";
    lycenable_lyc_ff41_enable_4_dmg08_cgb04c_out2: "lycEnable/lyc_ff41_enable_4_dmg08_cgb04c_out2.gbc";
    lycenable_lyc_ff41_trigger_delay_1_dmg08_cgb04c_out0: "lycEnable/lyc_ff41_trigger_delay_1_dmg08_cgb04c_out0.gbc";
    lycenable_lyc_ff45_disable2_1_dmg08_cgb04c_out1: "lycEnable/lyc_ff45_disable2_1_dmg08_cgb04c_out1.gbc";
    lycenable_lyc_ff45_disable2_3_dmg08_cgb04c_out3: "lycEnable/lyc_ff45_disable2_3_dmg08_cgb04c_out3.gbc";
    lycenable_lyc_ff45_trigger_delay_2_dmg08_out0_cgb04c_out2: "lycEnable/lyc_ff45_trigger_delay_2_dmg08_out0_cgb04c_out2.gbc";
    lycenable_lycwirq_trigger_ly00_stat50_1_dmg08_cgb04c_oute0: "lycEnable/lycwirq_trigger_ly00_stat50_1_dmg08_cgb04c_outE0.gbc";
    lycenable_lycwirq_trigger_ly00_stat50_3_dmg08_cgb04c_oute2: "lycEnable/lycwirq_trigger_ly00_stat50_3_dmg08_cgb04c_outE2.gbc";
    lycint_ly_lycint_ly_1_dmg08_cgb04c_out5: "lycint_ly/lycint_ly_1_dmg08_cgb04c_out5.gbc";
    lycint_lycflag_lycint_lycflag_1_dmg08_cgb04c_out0: "lycint_lycflag/lycint_lycflag_1_dmg08_cgb04c_out0.gbc";
    lycint_lycflag_lycint_lycflag_3_dmg08_cgb04c_out4: "lycint_lycflag/lycint_lycflag_3_dmg08_cgb04c_out4.gbc";
    lycint_lycirq_lycint_lycirq_1_dmg08_cgb04c_out1: "lycint_lycirq/lycint_lycirq_1_dmg08_cgb04c_out1.gbc";
    lycint_m0stat_lycint_m0stat_1_dmg08_cgb04c_out0: "lycint_m0stat/lycint_m0stat_1_dmg08_cgb04c_out0.gbc";
    lycm2int_lyc0m2int_m2irq_1_dmg08_cgb04c_out0: "lycm2int/lyc0m2int_m2irq_1_dmg08_cgb04c_out0.gbc";
    lycm2int_lyc0m2int_stat_dmg08_cgb04c_out1: "lycm2int/lyc0m2int_stat_dmg08_cgb04c_out1.gbc";
    lycm2int_lycm2int_m0stat_2_dmg08_cgb04c_out2: "lycm2int/lycm2int_m0stat_2_dmg08_cgb04c_out2.gbc";
    lycm2int_lycm2int_m2irq_2_dmg08_cgb04c_out3: "lycm2int/lycm2int_m2irq_2_dmg08_cgb04c_out3.gbc";
    lycm2int_m2irq_before_lycint_2_dmg08_cgb04c_out3: "lycm2int/m2irq_before_lycint_2_dmg08_cgb04c_out3.gbc";
    lywrite_lywrite77_ly44_m3_ly_dmg08_cgb04c_out44: "lywrite/lywrite77_ly44_m3_ly_dmg08_cgb04c_out44.gbc";
    lywrite_lywrite77_ly97_ly_dmg08_cgb04c_out97: "lywrite/lywrite77_ly97_ly_dmg08_cgb04c_out97.gbc";
    m0enable_disable_1_dmg08_cgb04c_out0: "m0enable/disable_1_dmg08_cgb04c_out0.gbc";
    m0enable_disable_3_dmg08_cgb04c_out2: "m0enable/disable_3_dmg08_cgb04c_out2.gbc";
    m0enable_disable_scx1_2_dmg08_cgb04c_out2: "m0enable/disable_scx1_2_dmg08_cgb04c_out2.gbc";
    m0enable_disable_scx2_2_dmg08_cgb04c_out2: "m0enable/disable_scx2_2_dmg08_cgb04c_out2.gbc";
    m0enable_disable_scx3_2_dmg08_out0_cgb04c_out2: "m0enable/disable_scx3_2_dmg08_out0_cgb04c_out2.gbc";
    m0enable_disable_scx4_1_dmg08_cgb04c_out0: "m0enable/disable_scx4_1_dmg08_cgb04c_out0.gbc";
    m0enable_disable_scx4_3_dmg08_cgb04c_out2: "m0enable/disable_scx4_3_dmg08_cgb04c_out2.gbc";
    m0enable_disable_scx5_2_dmg08_cgb04c_out2: "m0enable/disable_scx5_2_dmg08_cgb04c_out2.gbc";
    m0enable_disable_scx7_2_dmg08_out0_cgb04c_out2: "m0enable/disable_scx7_2_dmg08_out0_cgb04c_out2.gbc";
    m0enable_enable_after_lyc_during_1_dmg08_cgb04c_out0: "m0enable/enable_after_lyc_during_1_dmg08_cgb04c_out0.gbc";
    m0enable_enable_after_lyc_prior_1_dmg08_cgb04c_out2: "m0enable/enable_after_lyc_prior_1_dmg08_cgb04c_out2.gbc";
    m0enable_enable_after_m2_during_1_dmg08_cgb04c_out2: "m0enable/enable_after_m2_during_1_dmg08_cgb04c_out2.gbc";
    m0enable_enable_after_m2_prior_1_dmg08_cgb04c_out2: "m0enable/enable_after_m2_prior_1_dmg08_cgb04c_out2.gbc";
    m0enable_enable_before_lycint_1_dmg08_cgb04c_out0: "m0enable/enable_before_lycint_1_dmg08_cgb04c_out0.gbc";
    m0enable_enable_twice_1_dmg08_cgb04c_out0: "m0enable/enable_twice_1_dmg08_cgb04c_out0.gbc";
    m0enable_enable_wxa6_2x_spxa7_2_dmg08_cgb04c_out2: "m0enable/enable_wxA6_2x_spxA7_2_dmg08_cgb04c_out2.gbc";
    m0enable_enable_wxa6_2x_spxa7_4_dmg08_cgb04c_out2: "m0enable/enable_wxA6_2x_spxA7_4_dmg08_cgb04c_out2.gbc";
    m0enable_late_enable_2_dmg08_out2_cgb04c_out0: "m0enable/late_enable_2_dmg08_out2_cgb04c_out0.gbc";
    m0enable_lycdisable_ff41_1_dmg08_cgb04c_out2: "m0enable/lycdisable_ff41_1_dmg08_cgb04c_out2.gbc";
    m0enable_lycdisable_ff41_3_dmg08_cgb04c_out0: "m0enable/lycdisable_ff41_3_dmg08_cgb04c_out0.gbc";
    m0enable_lycdisable_ff41_scx1_2_dmg08_cgb04c_out0: "m0enable/lycdisable_ff41_scx1_2_dmg08_cgb04c_out0.gbc";
    m0enable_lycdisable_ff41_scx2_2_dmg08_cgb04c_out0: "m0enable/lycdisable_ff41_scx2_2_dmg08_cgb04c_out0.gbc";
    m0enable_lycdisable_ff41_scx3_2_dmg08_out2_cgb04c_out0: "m0enable/lycdisable_ff41_scx3_2_dmg08_out2_cgb04c_out0.gbc";
    m0enable_lycdisable_ff45_1_dmg08_cgb04c_out2: "m0enable/lycdisable_ff45_1_dmg08_cgb04c_out2.gbc";
    m0enable_lycdisable_ff45_3_dmg08_out2_cgb04c_out0: "m0enable/lycdisable_ff45_3_dmg08_out2_cgb04c_out0.gbc";
    m0enable_lycdisable_ff45_scx1_1_dmg08_cgb04c_out2: "m0enable/lycdisable_ff45_scx1_1_dmg08_cgb04c_out2.gbc";
    m0enable_lycdisable_ff45_scx1_3_dmg08_cgb04c_out0: "m0enable/lycdisable_ff45_scx1_3_dmg08_cgb04c_out0.gbc";
    m0enable_lycdisable_ff45_scx2_2_dmg08_out2_cgb04c_out0: "m0enable/lycdisable_ff45_scx2_2_dmg08_out2_cgb04c_out0.gbc";
    m0enable_lycdisable_ff45_scx3_1_dmg08_cgb04c_out2: "m0enable/lycdisable_ff45_scx3_1_dmg08_cgb04c_out2.gbc";
    m0enable_lycdisable_ff45_scx3_3_dmg08_cgb04c_out0: "m0enable/lycdisable_ff45_scx3_3_dmg08_cgb04c_out0.gbc";
    m0enable_m0_enable_2_dmg08_cgb04c_out2: "m0enable/m0_enable_2_dmg08_cgb04c_out2.gbc";
    m0enable_m0_enable_4_dmg08_cgb04c_out2: "m0enable/m0_enable_4_dmg08_cgb04c_out2.gbc";
    m0enable_m0_trigger_delay_1_dmg08_cgb04c_out0: "m0enable/m0_trigger_delay_1_dmg08_cgb04c_out0.gbc";
    m0enable_reenable_1_dmg08_cgb04c_out2: "m0enable/reenable_1_dmg08_cgb04c_out2.gbc";
    m0enable_reenable_3_dmg08_cgb04c_out0: "m0enable/reenable_3_dmg08_cgb04c_out0.gbc";
    m0int_m0irq_m0int_m0irq_1_dmg08_cgb04c_out0: "m0int_m0irq/m0int_m0irq_1_dmg08_cgb04c_out0.gbc";
    m0int_m0stat_m0int_m0stat_scx2_1_dmg08_cgb04c_out0: "m0int_m0stat/m0int_m0stat_scx2_1_dmg08_cgb04c_out0.gbc";
    m0int_m0stat_m0int_m0stat_scx3_1_dmg08_cgb04c_out0: "m0int_m0stat/m0int_m0stat_scx3_1_dmg08_cgb04c_out0.gbc";
    m0int_m3stat_m0int_m3stat_1_dmg08_cgb04c_out3: "m0int_m3stat/m0int_m3stat_1_dmg08_cgb04c_out3.gbc";
    m1_ly143_late_m0enable_1_dmg08_cgb04c_out3: "m1/ly143_late_m0enable_1_dmg08_cgb04c_out3.gbc";
    m1_ly143_late_m2enable_1_dmg08_cgb04c_out3: "m1/ly143_late_m2enable_1_dmg08_cgb04c_out3.gbc";
    m1_lyc143_late_m0enable_lycdisable_1_dmg08_cgb04c_out1: "m1/lyc143_late_m0enable_lycdisable_1_dmg08_cgb04c_out1.gbc";
    m1_lyc143_late_m0enable_lycdisable_3_dmg08_out3_cgb04c_out1: "m1/lyc143_late_m0enable_lycdisable_3_dmg08_out3_cgb04c_out1.gbc";
    m1_lyc143_late_m2enable_lycdisable_2_dmg08_cgb04c_out1: "m1/lyc143_late_m2enable_lycdisable_2_dmg08_cgb04c_out1.gbc";
    m1_lyc147_ly148_push_m1irq_late_enable_dmg08_cgb04c_out3: "m1/lyc147++_ly148_push_m1irq_late_enable_dmg08_cgb04c_out3.gbc";
    m1_lyc148_ly148_m1irq_late_enable_dmg08_cgb04c_out0: "m1/lyc148_ly148_m1irq_late_enable_dmg08_cgb04c_out0.gbc";
    m1_lycint143_m1irq_1_dmg08_cgb04c_out0: "m1/lycint143_m1irq_1_dmg08_cgb04c_out0.gbc";
    m1_lycint143_m1irq_ifw_1_dmg08_cgb04c_out3: "m1/lycint143_m1irq_ifw_1_dmg08_cgb04c_out3.gbc";
    m1_lycint143_m1irq_late_retrigger_1_dmg08_cgb04c_out3: "m1/lycint143_m1irq_late_retrigger_1_dmg08_cgb04c_out3.gbc";
    m1_lycint_m1intirq_1_dmg08_cgb04c_out3: "m1/lycint_m1intirq_1_dmg08_cgb04c_out3.gbc";
    m1_lycint_m1stat_1_dmg08_cgb04c_out0: "m1/lycint_m1stat_1_dmg08_cgb04c_out0.gbc";
    m1_lycint_vblankintirq_1_dmg08_cgb04c_out1: "m1/lycint_vblankintirq_1_dmg08_cgb04c_out1.gbc";
    m1_lycint_vblankirq_1_dmg08_cgb04c_out0: "m1/lycint_vblankirq_1_dmg08_cgb04c_out0.gbc";
    m1_lycint_vblankirq_late_retrigger_1_dmg08_cgb04c_out1: "m1/lycint_vblankirq_late_retrigger_1_dmg08_cgb04c_out1.gbc";
    m1_m1irq_disable_1_dmg08_out3_cgb04c_out1: "m1/m1irq_disable_1_dmg08_out3_cgb04c_out1.gbc";
    m1_m1irq_enable_1_dmg08_cgb04c_out3: "m1/m1irq_enable_1_dmg08_cgb04c_out3.gbc";
    m1_m1irq_enable_3_dmg08_cgb04c_out3: "m1/m1irq_enable_3_dmg08_cgb04c_out3.gbc";
    m1_m1irq_enable_after_lyc144_1_dmg08_cgb04c_out1: "m1/m1irq_enable_after_lyc144_1_dmg08_cgb04c_out1.gbc";
    m1_m1irq_enable_after_lyc144_3_dmg08_cgb04c_out3: "m1/m1irq_enable_after_lyc144_3_dmg08_cgb04c_out3.gbc";
    m1_m1irq_late_enable_2_dmg08_out2_cgb04c_out0: "m1/m1irq_late_enable_2_dmg08_out2_cgb04c_out0.gbc";
    m1_m1irq_m0disable_1_dmg08_cgb04c_out3: "m1/m1irq_m0disable_1_dmg08_cgb04c_out3.gbc";
    m1_m1irq_m0disable_3_dmg08_cgb04c_out1: "m1/m1irq_m0disable_3_dmg08_cgb04c_out1.gbc";
    m1_m1irq_m0enable_2_dmg08_cgb04c_out3: "m1/m1irq_m0enable_2_dmg08_cgb04c_out3.gbc";
    m1_m1irq_m2disable_lycdisable_1_dmg08_cgb04c_out3: "m1/m1irq_m2disable_lycdisable_1_dmg08_cgb04c_out3.gbc";
    m1_m1irq_m2disable_lycdisable_3_dmg08_cgb04c_out1: "m1/m1irq_m2disable_lycdisable_3_dmg08_cgb04c_out1.gbc";
    m1_m1irq_m2enable_2_dmg08_cgb04c_out3: "m1/m1irq_m2enable_2_dmg08_cgb04c_out3.gbc";
    m1_m1irq_m2enable_lyc_1_dmg08_cgb04c_out1: "m1/m1irq_m2enable_lyc_1_dmg08_cgb04c_out1.gbc";
    m1_m1irq_m2enable_lyc_3_dmg08_cgb04c_out3: "m1/m1irq_m2enable_lyc_3_dmg08_cgb04c_out3.gbc";
    m1_m2m1irq_ifw_2_dmg08_cgb04c_out1: "m1/m2m1irq_ifw_2_dmg08_cgb04c_out1.gbc";
    m1_vblankint_lcd147_int_m1irq_enable_1_dmg08_cgb04c_out2: "m1/vblankint_lcd147++int_m1irq_enable_1_dmg08_cgb04c_out2.gbc";
    m2enable_disable_1_dmg08_out2_cgb04c_out0: "m2enable/disable_1_dmg08_out2_cgb04c_out0.gbc";
    m2enable_disable_by_m1enable_ly0_1_dmg08_cgb04c_out2: "m2enable/disable_by_m1enable_ly0_1_dmg08_cgb04c_out2.gbc";
    m2enable_disable_ly0_1_dmg08_out2_cgb04c_out0: "m2enable/disable_ly0_1_dmg08_out2_cgb04c_out0.gbc";
    m2enable_enable_after_lycint_1_dmg08_cgb04c_out1: "m2enable/enable_after_lycint_1_dmg08_cgb04c_out1.gbc";
    m2enable_enable_after_lycint_disable_1_dmg08_cgb04c_out1: "m2enable/enable_after_lycint_disable_1_dmg08_cgb04c_out1.gbc";
    m2enable_late_enable_1_dmg08_cgb04c_out2: "m2enable/late_enable_1_dmg08_cgb04c_out2.gbc";
    m2enable_late_enable_after_lycint_1_dmg08_cgb04c_out0: "m2enable/late_enable_after_lycint_1_dmg08_cgb04c_out0.gbc";
    m2enable_late_enable_after_lycint_3_dmg08_cgb04c_out0: "m2enable/late_enable_after_lycint_3_dmg08_cgb04c_out0.gbc";
    m2enable_late_enable_after_lycint_disable_1_dmg08_cgb04c_out2: "m2enable/late_enable_after_lycint_disable_1_dmg08_cgb04c_out2.gbc";
    m2enable_late_enable_after_lycint_disable_3_dmg08_cgb04c_out0: "m2enable/late_enable_after_lycint_disable_3_dmg08_cgb04c_out0.gbc";
    m2enable_late_enable_ly0_2_dmg08_cgb04c_out0: "m2enable/late_enable_ly0_2_dmg08_cgb04c_out0.gbc";
    m2enable_late_enable_m0disable_2_dmg08_out0_cgb04c_out2: "m2enable/late_enable_m0disable_2_dmg08_out0_cgb04c_out2.gbc";
    m2enable_late_enable_m1disable_ly0_1_dmg08_cgb04c_out2: "m2enable/late_enable_m1disable_ly0_1_dmg08_cgb04c_out2.gbc";
    m2enable_late_enable_m1disable_ly0_3_dmg08_cgb04c_out0: "m2enable/late_enable_m1disable_ly0_3_dmg08_cgb04c_out0.gbc";
    m2enable_late_m1disable_ly0_2_dmg08_out2_cgb04c_out0: "m2enable/late_m1disable_ly0_2_dmg08_out2_cgb04c_out0.gbc";
    m2enable_lyc0_late_m2enable_lycdisable_1_dmg08_cgb04c_out2: "m2enable/lyc0_late_m2enable_lycdisable_1_dmg08_cgb04c_out2.gbc";
    m2enable_lyc0_late_m2enable_lycdisable_3_dmg08_cgb04c_out0: "m2enable/lyc0_late_m2enable_lycdisable_3_dmg08_cgb04c_out0.gbc";
    m2enable_lyc1_late_m2enable_lycdisable_2_dmg08_cgb04c_out0: "m2enable/lyc1_late_m2enable_lycdisable_2_dmg08_cgb04c_out0.gbc";
    m2enable_lyc1_m2irq_late_lyc255_2_dmg08_out2_cgb04c_out0: "m2enable/lyc1_m2irq_late_lyc255_2_dmg08_out2_cgb04c_out0.gbc";
    m2enable_lyc1_m2irq_late_lycdisable_1_dmg08_cgb04c_out2: "m2enable/lyc1_m2irq_late_lycdisable_1_dmg08_cgb04c_out2.gbc";
    m2enable_m2_late_m0disable_1_dmg08_cgb04c_out2: "m2enable/m2_late_m0disable_1_dmg08_cgb04c_out2.gbc";
    m2int_m0irq_m2int_m0irq_1_dmg08_cgb04c_out0: "m2int_m0irq/m2int_m0irq_1_dmg08_cgb04c_out0.gbc";
    m2int_m0irq_m2int_m0irq_scx2_1_dmg08_cgb04c_out0: "m2int_m0irq/m2int_m0irq_scx2_1_dmg08_cgb04c_out0.gbc";
    m2int_m0irq_m2int_m0irq_scx2_di_1_dmg08_cgb04c_out0: "m2int_m0irq/m2int_m0irq_scx2_di_1_dmg08_cgb04c_out0.gbc";
    m2int_m0irq_m2int_m0irq_scx2_ei_1_dmg08_cgb04c_out0: "m2int_m0irq/m2int_m0irq_scx2_ei_1_dmg08_cgb04c_out0.gbc";
    m2int_m0irq_m2int_m0irq_scx2_ie_1_dmg08_cgb04c_out0: "m2int_m0irq/m2int_m0irq_scx2_ie_1_dmg08_cgb04c_out0.gbc";
    m2int_m0irq_m2int_m0irq_scx2_reti_1_dmg08_cgb04c_out0: "m2int_m0irq/m2int_m0irq_scx2_reti_1_dmg08_cgb04c_out0.gbc";
    m2int_m0irq_m2int_m0irq_scx3_1_dmg08_cgb04c_out0: "m2int_m0irq/m2int_m0irq_scx3_1_dmg08_cgb04c_out0.gbc";
    m2int_m0irq_m2int_m0irq_scx3_di_1_dmg08_cgb04c_out0: "m2int_m0irq/m2int_m0irq_scx3_di_1_dmg08_cgb04c_out0.gbc";
    m2int_m0irq_m2int_m0irq_scx3_ei_1_dmg08_cgb04c_out0: "m2int_m0irq/m2int_m0irq_scx3_ei_1_dmg08_cgb04c_out0.gbc";
    m2int_m0irq_m2int_m0irq_scx3_ie_1_dmg08_cgb04c_out0: "m2int_m0irq/m2int_m0irq_scx3_ie_1_dmg08_cgb04c_out0.gbc";
    m2int_m0irq_m2int_m0irq_scx3_ifw_1_dmg08_cgb04c_out2: "m2int_m0irq/m2int_m0irq_scx3_ifw_1_dmg08_cgb04c_out2.gbc";
    m2int_m0irq_m2int_m0irq_scx3_ifw_3_dmg08_cgb04c_out8: "m2int_m0irq/m2int_m0irq_scx3_ifw_3_dmg08_cgb04c_out8.gbc";
    m2int_m0irq_m2int_m0irq_scx3_reti_1_dmg08_cgb04c_out0: "m2int_m0irq/m2int_m0irq_scx3_reti_1_dmg08_cgb04c_out0.gbc";
    m2int_m0irq_m2int_m0irq_scx4_ifw_1_dmg08_cgb04c_out2: "m2int_m0irq/m2int_m0irq_scx4_ifw_1_dmg08_cgb04c_out2.gbc";
    m2int_m0irq_m2int_m0irq_scx4_ifw_3_dmg08_cgb04c_out8: "m2int_m0irq/m2int_m0irq_scx4_ifw_3_dmg08_cgb04c_out8.gbc";
    m2int_m0irq_m2int_m0irq_scx5_1_dmg08_cgb04c_out0: "m2int_m0irq/m2int_m0irq_scx5_1_dmg08_cgb04c_out0.gbc";
    m2int_m0stat_m2int_m0stat_1_dmg08_cgb04c_out0: "m2int_m0stat/m2int_m0stat_1_dmg08_cgb04c_out0.gbc";
    m2int_m2irq_m2int_m2irq_1_dmg08_cgb04c_out0: "m2int_m2irq/m2int_m2irq_1_dmg08_cgb04c_out0.gbc";
    m2int_m2irq_m2int_m2irq_ifw_1_dmg08_cgb04c_out2: "m2int_m2irq/m2int_m2irq_ifw_1_dmg08_cgb04c_out2.gbc";
    m2int_m2irq_m2int_m2irq_late_retrigger_1_dmg08_cgb04c_out2: "m2int_m2irq/m2int_m2irq_late_retrigger_1_dmg08_cgb04c_out2.gbc";
    m2int_m2stat_m2int_m2stat_1_dmg08_cgb04c_out2: "m2int_m2stat/m2int_m2stat_1_dmg08_cgb04c_out2.gbc";
    m2int_m3stat_m2int_m3stat_1_dmg08_cgb04c_out3: "m2int_m3stat/m2int_m3stat_1_dmg08_cgb04c_out3.gbc";
    m2int_m3stat_scx_late_scx4_1_dmg08_cgb04c_out3: "m2int_m3stat/scx/late_scx4_1_dmg08_cgb04c_out3.gbc";
    m2int_m3stat_scx_m2int_scx2_m3stat_1_dmg08_cgb04c_out3: "m2int_m3stat/scx/m2int_scx2_m3stat_1_dmg08_cgb04c_out3.gbc";
    m2int_m3stat_scx_m2int_scx3_m3stat_1_dmg08_cgb04c_out3: "m2int_m3stat/scx/m2int_scx3_m3stat_1_dmg08_cgb04c_out3.gbc";
    m2int_m3stat_scx_m2int_scx5_m3stat_1_dmg08_cgb04c_out3: "m2int_m3stat/scx/m2int_scx5_m3stat_1_dmg08_cgb04c_out3.gbc";
    miscmstatirq_lcdoff_statirqen_if_dmg08_cgb04c_oute0: "miscmstatirq/lcdoff_statirqen_if_dmg08_cgb04c_outE0.gbc";
    miscmstatirq_lycflag_statwirq_2_dmg08_out2: "miscmstatirq/lycflag_statwirq_2_dmg08_out2.gb";
    miscmstatirq_lycflag_statwirq_4_dmg08_out0: "miscmstatirq/lycflag_statwirq_4_dmg08_out0.gb";
    miscmstatirq_lycstatwirq_trigger_00_40_dmg08_out2_cgb04c_out2: "miscmstatirq/lycstatwirq_trigger_00_40_dmg08_out2_cgb04c_out2.gbc";
    miscmstatirq_lycstatwirq_trigger_00_ff_dmg08_out2_cgb04c_out2: "miscmstatirq/lycstatwirq_trigger_00_ff_dmg08_out2_cgb04c_out2.gbc";
    miscmstatirq_lycstatwirq_trigger_40_40_dmg08_cgb04c_out0: "miscmstatirq/lycstatwirq_trigger_40_40_dmg08_cgb04c_out0.gbc";
    miscmstatirq_lycstatwirq_trigger_40_ff_dmg08_cgb04c_out0: "miscmstatirq/lycstatwirq_trigger_40_ff_dmg08_cgb04c_out0.gbc";
    miscmstatirq_lycstatwirq_trigger_bf_40_dmg08_out2_cgb04c_out2: "miscmstatirq/lycstatwirq_trigger_bf_40_dmg08_out2_cgb04c_out2.gbc";
    miscmstatirq_lycstatwirq_trigger_bf_ff_dmg08_out2_cgb04c_out2: "miscmstatirq/lycstatwirq_trigger_bf_ff_dmg08_out2_cgb04c_out2.gbc";
    miscmstatirq_lycstatwirq_trigger_ff_40_dmg08_cgb04c_out0: "miscmstatirq/lycstatwirq_trigger_ff_40_dmg08_cgb04c_out0.gbc";
    miscmstatirq_lycstatwirq_trigger_ff_ff_dmg08_cgb04c_out0: "miscmstatirq/lycstatwirq_trigger_ff_ff_dmg08_cgb04c_out0.gbc";
    miscmstatirq_lycstatwirq_trigger_ly00_10_50_2_dmg08_cgb04c_oute2: "miscmstatirq/lycstatwirq_trigger_ly00_10_50_2_dmg08_cgb04c_outE2.gbc";
    miscmstatirq_lycstatwirq_trigger_ly94_10_40_dmg08_cgb04c_oute0: "miscmstatirq/lycstatwirq_trigger_ly94_10_40_dmg08_cgb04c_outE0.gbc";
    miscmstatirq_lycstatwirq_trigger_m0_early_ly44_lyc44_08_40_1_dmg08_cgb04c_oute2: "miscmstatirq/lycstatwirq_trigger_m0_early_ly44_lyc44_08_40_1_dmg08_cgb04c_outE2.gbc";
    miscmstatirq_lycstatwirq_trigger_m0_early_ly44_lyc44_08_40_3_dmg08_cgb04c_oute2: "miscmstatirq/lycstatwirq_trigger_m0_early_ly44_lyc44_08_40_3_dmg08_cgb04c_outE2.gbc";
    miscmstatirq_lycstatwirq_trigger_m0_early_ly44_lyc44_08_40_5_dmg08_cgb04c_oute2: "miscmstatirq/lycstatwirq_trigger_m0_early_ly44_lyc44_08_40_5_dmg08_cgb04c_outE2.gbc";
    miscmstatirq_lycstatwirq_trigger_m0_early_ly44_lyc44_08_40_7_dmg08_cgb04c_oute2: "miscmstatirq/lycstatwirq_trigger_m0_early_ly44_lyc44_08_40_7_dmg08_cgb04c_outE2.gbc";
    miscmstatirq_lycstatwirq_trigger_m0_early_ly44_lyc44_08_40_9_dmg08_cgb04c_oute0: "miscmstatirq/lycstatwirq_trigger_m0_early_ly44_lyc44_08_40_9_dmg08_cgb04c_outE0.gbc";
    miscmstatirq_lycstatwirq_trigger_m0_late_ly44_lyc44_08_40_2_dmg08_cgb04c_oute0: "miscmstatirq/lycstatwirq_trigger_m0_late_ly44_lyc44_08_40_2_dmg08_cgb04c_outE0.gbc";
    miscmstatirq_lycstatwirq_trigger_m0_late_ly44_lyc44_08_40_4_dmg08_cgb04c_oute0: "miscmstatirq/lycstatwirq_trigger_m0_late_ly44_lyc44_08_40_4_dmg08_cgb04c_outE0.gbc";
    miscmstatirq_lycstatwirq_trigger_m0_ly44_lyc44_00_48_dmg08_cgb04c_oute2: "miscmstatirq/lycstatwirq_trigger_m0_ly44_lyc44_00_48_dmg08_cgb04c_outE2.gbc";
    miscmstatirq_lycstatwirq_trigger_m0_ly44_lyc44_08_48_dmg08_cgb04c_oute0: "miscmstatirq/lycstatwirq_trigger_m0_ly44_lyc44_08_48_dmg08_cgb04c_outE0.gbc";
    miscmstatirq_lycstatwirq_trigger_m0_ly44_lyc44_b7_40_dmg08_cgb04c_oute2: "miscmstatirq/lycstatwirq_trigger_m0_ly44_lyc44_b7_40_dmg08_cgb04c_outE2.gbc";
    miscmstatirq_lycstatwirq_trigger_m0_ly44_lyc44_bf_40_dmg08_cgb04c_oute0: "miscmstatirq/lycstatwirq_trigger_m0_ly44_lyc44_bf_40_dmg08_cgb04c_outE0.gbc";
    miscmstatirq_lycwirq_trigger_m0_early_ly44_1_dmg08_cgb04c_oute2: "miscmstatirq/lycwirq_trigger_m0_early_ly44_1_dmg08_cgb04c_outE2.gbc";
    miscmstatirq_lycwirq_trigger_m0_early_ly44_3_dmg08_cgb04c_oute2: "miscmstatirq/lycwirq_trigger_m0_early_ly44_3_dmg08_cgb04c_outE2.gbc";
    miscmstatirq_lycwirq_trigger_m0_early_ly44_5_dmg08_cgb04c_oute2: "miscmstatirq/lycwirq_trigger_m0_early_ly44_5_dmg08_cgb04c_outE2.gbc";
    miscmstatirq_lycwirq_trigger_m0_early_ly44_7_dmg08_cgb04c_oute2: "miscmstatirq/lycwirq_trigger_m0_early_ly44_7_dmg08_cgb04c_outE2.gbc";
    miscmstatirq_lycwirq_trigger_m0_early_ly44_9_dmg08_cgb04c_oute0: "miscmstatirq/lycwirq_trigger_m0_early_ly44_9_dmg08_cgb04c_outE0.gbc";
    miscmstatirq_lycwirq_trigger_m0_late_ly44_2_dmg08_cgb04c_oute0: "miscmstatirq/lycwirq_trigger_m0_late_ly44_2_dmg08_cgb04c_outE0.gbc";
    miscmstatirq_lycwirq_trigger_m0_late_ly44_4_dmg08_cgb04c_oute0: "miscmstatirq/lycwirq_trigger_m0_late_ly44_4_dmg08_cgb04c_outE0.gbc";
    miscmstatirq_lycwirq_trigger_m0_late_ly44_lyc45_2_dmg08_cgb04c_oute2: "miscmstatirq/lycwirq_trigger_m0_late_ly44_lyc45_2_dmg08_cgb04c_outE2.gbc";
    miscmstatirq_lycwirq_trigger_m0_late_ly44_lyc45_4_dmg08_cgb04c_oute2: "miscmstatirq/lycwirq_trigger_m0_late_ly44_lyc45_4_dmg08_cgb04c_outE2.gbc";
    miscmstatirq_m0statwirq_1_dmg08_out2: "miscmstatirq/m0statwirq_1_dmg08_out2.gb";
    miscmstatirq_m0statwirq_3_dmg08_out0: "miscmstatirq/m0statwirq_3_dmg08_out0.gb";
    miscmstatirq_m0statwirq_scx2_1_dmg08_out0: "miscmstatirq/m0statwirq_scx2_1_dmg08_out0.gb";
    miscmstatirq_m0statwirq_scx3_1_dmg08_out0: "miscmstatirq/m0statwirq_scx3_1_dmg08_out0.gb";
    miscmstatirq_m0statwirq_scx5_1_dmg08_out0: "miscmstatirq/m0statwirq_scx5_1_dmg08_out0.gb";
    miscmstatirq_m0statwirq_trigger_00_00_dmg08_out2_cgb04c_out0: "miscmstatirq/m0statwirq_trigger_00_00_dmg08_out2_cgb04c_out0.gbc";
    miscmstatirq_m0statwirq_trigger_00_f7_dmg08_out2_cgb04c_out0: "miscmstatirq/m0statwirq_trigger_00_f7_dmg08_out2_cgb04c_out0.gbc";
    miscmstatirq_m0statwirq_trigger_08_00_dmg08_cgb04c_out0: "miscmstatirq/m0statwirq_trigger_08_00_dmg08_cgb04c_out0.gbc";
    miscmstatirq_m0statwirq_trigger_08_f7_dmg08_cgb04c_out0: "miscmstatirq/m0statwirq_trigger_08_f7_dmg08_cgb04c_out0.gbc";
    miscmstatirq_m0statwirq_trigger_f7_00_dmg08_out2_cgb04c_out0: "miscmstatirq/m0statwirq_trigger_f7_00_dmg08_out2_cgb04c_out0.gbc";
    miscmstatirq_m0statwirq_trigger_f7_f7_dmg08_out2_cgb04c_out0: "miscmstatirq/m0statwirq_trigger_f7_f7_dmg08_out2_cgb04c_out0.gbc";
    miscmstatirq_m0statwirq_trigger_ff_00_dmg08_cgb04c_out0: "miscmstatirq/m0statwirq_trigger_ff_00_dmg08_cgb04c_out0.gbc";
    miscmstatirq_m0statwirq_trigger_ff_f7_dmg08_cgb04c_out0: "miscmstatirq/m0statwirq_trigger_ff_f7_dmg08_cgb04c_out0.gbc";
    miscmstatirq_m0statwirq_trigger_ly44_lyc44_00_08_dmg08_cgb04c_oute2: "miscmstatirq/m0statwirq_trigger_ly44_lyc44_00_08_dmg08_cgb04c_outE2.gbc";
    miscmstatirq_m0statwirq_trigger_ly44_lyc44_40_48_dmg08_cgb04c_oute0: "miscmstatirq/m0statwirq_trigger_ly44_lyc44_40_48_dmg08_cgb04c_outE0.gbc";
    miscmstatirq_m1statwirq_2_dmg08_out3: "miscmstatirq/m1statwirq_2_dmg08_out3.gb";
    miscmstatirq_m1statwirq_4_dmg08_out0: "miscmstatirq/m1statwirq_4_dmg08_out0.gb";
    miscmstatirq_m1statwirq_trigger_00_10_dmg08_out2_cgb04c_out2: "miscmstatirq/m1statwirq_trigger_00_10_dmg08_out2_cgb04c_out2.gbc";
    miscmstatirq_m1statwirq_trigger_00_ff_dmg08_out2_cgb04c_out2: "miscmstatirq/m1statwirq_trigger_00_ff_dmg08_out2_cgb04c_out2.gbc";
    miscmstatirq_m1statwirq_trigger_10_10_dmg08_cgb04c_out0: "miscmstatirq/m1statwirq_trigger_10_10_dmg08_cgb04c_out0.gbc";
    miscmstatirq_m1statwirq_trigger_10_ff_dmg08_cgb04c_out0: "miscmstatirq/m1statwirq_trigger_10_ff_dmg08_cgb04c_out0.gbc";
    miscmstatirq_m1statwirq_trigger_ef_10_dmg08_out2_cgb04c_out2: "miscmstatirq/m1statwirq_trigger_ef_10_dmg08_out2_cgb04c_out2.gbc";
    miscmstatirq_m1statwirq_trigger_ef_ff_dmg08_out2_cgb04c_out2: "miscmstatirq/m1statwirq_trigger_ef_ff_dmg08_out2_cgb04c_out2.gbc";
    miscmstatirq_m1statwirq_trigger_ff_10_dmg08_cgb04c_out0: "miscmstatirq/m1statwirq_trigger_ff_10_dmg08_cgb04c_out0.gbc";
    miscmstatirq_m1statwirq_trigger_ff_ff_dmg08_cgb04c_out0: "miscmstatirq/m1statwirq_trigger_ff_ff_dmg08_cgb04c_out0.gbc";
    miscmstatirq_m1statwirq_trigger_ly94_lyc94_00_50_dmg08_cgb04c_oute2: "miscmstatirq/m1statwirq_trigger_ly94_lyc94_00_50_dmg08_cgb04c_outE2.gbc";
    miscmstatirq_m1statwirq_trigger_ly94_lyc94_40_50_1_dmg08_cgb04c_oute0: "miscmstatirq/m1statwirq_trigger_ly94_lyc94_40_50_1_dmg08_cgb04c_outE0.gbc";
    miscmstatirq_m1statwirq_trigger_ly94_lyc94_40_50_3_dmg08_cgb04c_oute2: "miscmstatirq/m1statwirq_trigger_ly94_lyc94_40_50_3_dmg08_cgb04c_outE2.gbc";
    miscmstatirq_m2disable_dmg08_cgb_dmg08_out0: "miscmstatirq/m2disable_dmg08_cgb_dmg08_out0.gb";
    miscmstatirq_m2statwirq_trigger_00_20_dmg08_cgb04c_out0: "miscmstatirq/m2statwirq_trigger_00_20_dmg08_cgb04c_out0.gbc";
    miscmstatirq_m2statwirq_trigger_00_ff_dmg08_cgb04c_out0: "miscmstatirq/m2statwirq_trigger_00_ff_dmg08_cgb04c_out0.gbc";
    miscmstatirq_m2statwirq_trigger_20_20_dmg08_cgb04c_out0: "miscmstatirq/m2statwirq_trigger_20_20_dmg08_cgb04c_out0.gbc";
    miscmstatirq_m2statwirq_trigger_20_ff_dmg08_cgb04c_out0: "miscmstatirq/m2statwirq_trigger_20_ff_dmg08_cgb04c_out0.gbc";
    miscmstatirq_m2statwirq_trigger_df_20_dmg08_cgb04c_out0: "miscmstatirq/m2statwirq_trigger_df_20_dmg08_cgb04c_out0.gbc";
    miscmstatirq_m2statwirq_trigger_df_ff_dmg08_cgb04c_out0: "miscmstatirq/m2statwirq_trigger_df_ff_dmg08_cgb04c_out0.gbc";
    miscmstatirq_m2statwirq_trigger_ff_20_dmg08_cgb04c_out0: "miscmstatirq/m2statwirq_trigger_ff_20_dmg08_cgb04c_out0.gbc";
    miscmstatirq_m2statwirq_trigger_ff_ff_dmg08_cgb04c_out0: "miscmstatirq/m2statwirq_trigger_ff_ff_dmg08_cgb04c_out0.gbc";
    oam_access_10spritesprline_postread_1_dmg08_cgb04c_out3: "oam_access/10spritesprline_postread_1_dmg08_cgb04c_out3.gbc";
    oam_access_midread_1_dmg08_cgb04c_out3: "oam_access/midread_1_dmg08_cgb04c_out3.gbc";
    oam_access_midread_3_dmg08_cgb04c_out3: "oam_access/midread_3_dmg08_cgb04c_out3.gbc";
    oam_access_midwrite_2_dmg08_out1_cgb04c_out0: "oam_access/midwrite_2_dmg08_out1_cgb04c_out0.gbc";
    oam_access_postread_1_dmg08_cgb04c_out3: "oam_access/postread_1_dmg08_cgb04c_out3.gbc";
    oam_access_postread_scx2_1_dmg08_cgb04c_out3: "oam_access/postread_scx2_1_dmg08_cgb04c_out3.gbc";
    oam_access_postread_scx3_1_dmg08_cgb04c_out3: "oam_access/postread_scx3_1_dmg08_cgb04c_out3.gbc";
    oam_access_postread_scx5_1_dmg08_cgb04c_out3: "oam_access/postread_scx5_1_dmg08_cgb04c_out3.gbc";
    oam_access_postwrite_1_dmg08_cgb04c_out0: "oam_access/postwrite_1_dmg08_cgb04c_out0.gbc";
    oam_access_postwrite_2_scx3_dmg08_cgb04c_out1: "oam_access/postwrite_2_scx3_dmg08_cgb04c_out1.gbc";
    oam_access_preread_2_dmg08_cgb04c_out3: "oam_access/preread_2_dmg08_cgb04c_out3.gbc";
    oam_access_prewrite_2_dmg08_out1_cgb04c_out0: "oam_access/prewrite_2_dmg08_out1_cgb04c_out0.gbc";
    oamdma_late_sp00x_1_dmg08_cgb04c_out0: "oamdma/late_sp00x_1_dmg08_cgb04c_out0.gbc";
    oamdma_late_sp00y_1_dmg08_cgb04c_out3: "oamdma/late_sp00y_1_dmg08_cgb04c_out3.gbc";
    oamdma_late_sp01x_1_dmg08_cgb04c_out0: "oamdma/late_sp01x_1_dmg08_cgb04c_out0.gbc";
    oamdma_late_sp01y_1_dmg08_cgb04c_out3: "oamdma/late_sp01y_1_dmg08_cgb04c_out3.gbc";
    oamdma_late_sp02x_1_dmg08_cgb04c_out0: "oamdma/late_sp02x_1_dmg08_cgb04c_out0.gbc";
    oamdma_late_sp02y_1_dmg08_cgb04c_out3: "oamdma/late_sp02y_1_dmg08_cgb04c_out3.gbc";
    oamdma_late_sp39x_1_dmg08_cgb04c_out0: "oamdma/late_sp39x_1_dmg08_cgb04c_out0.gbc";
    oamdma_late_sp39y_1_dmg08_cgb04c_out3: "oamdma/late_sp39y_1_dmg08_cgb04c_out3.gbc";
    oamdma_oamdma_busydelay_1_dmg08_cgb04c_out5: "oamdma/oamdma_busydelay_1_dmg08_cgb04c_out5.gbc";
    oamdma_oamdma_late_halt_stat_2_dmg08_cgb04c_out3: "oamdma/oamdma_late_halt_stat_2_dmg08_cgb04c_out3.gbc";
    oamdma_oamdma_src0000_busyint0002_dmg08_cgb04c_outff941234: "oamdma/oamdma_src0000_busyint0002_dmg08_cgb04c_outFF941234.gbc";
    oamdma_oamdma_src0000_busypop9fff_2_dmg08_cgb04c_out65765576: "oamdma/oamdma_src0000_busypop9FFF_2_dmg08_cgb04c_out65765576.gbc";
    oamdma_oamdma_src0000_busypopbfff_2_dmg08_out65766576_cgb04c_out657665aa: "oamdma/oamdma_src0000_busypopBFFF_2_dmg08_out65766576_cgb04c_out657665AA.gbc";
    oamdma_oamdma_src0000_busypopdfff_dmg08_out65766576_cgb04c_out657655aa: "oamdma/oamdma_src0000_busypopDFFF_dmg08_out65766576_cgb04c_out657655AA.gbc";
    oamdma_oamdma_src0000_busypopfdff_dmg08_out657665ff_cgb04c_out657655ff: "oamdma/oamdma_src0000_busypopFDFF_dmg08_out657665FF_cgb04c_out657655FF.gbc";
    oamdma_oamdma_src0000_busypopfeff_dmg08_cgb04c_out6576ffef: "oamdma/oamdma_src0000_busypopFEFF_dmg08_cgb04c_out6576FFEF.gbc";
    oamdma_oamdma_src0000_busypopffff_dmg08_cgb04c_out65765576: "oamdma/oamdma_src0000_busypopFFFF_dmg08_cgb04c_out65765576.gbc";
    oamdma_oamdma_src0000_busypush8001_dmg08_cgb04c_out65aa1255: "oamdma/oamdma_src0000_busypush8001_dmg08_cgb04c_out65AA1255.gbc";
    oamdma_oamdma_src0000_busypusha001_dmg08_cgb04c_out5576aa34: "oamdma/oamdma_src0000_busypushA001_dmg08_cgb04c_out5576AA34.gbc";
    oamdma_oamdma_src0000_busypushc001_dmg08_out55aa1234_cgb04c_out65aa1255: "oamdma/oamdma_src0000_busypushC001_dmg08_out55AA1234_cgb04c_out65AA1255.gbc";
    oamdma_oamdma_src0000_busypushf001_dmg08_out55aa1234_cgb04c_out6576aa55: "oamdma/oamdma_src0000_busypushF001_dmg08_out55AA1234_cgb04c_out6576AA55.gbc";
    oamdma_oamdma_src0000_busypushfea1_dmg08_out65768700_cgb04c_out65768734: "oamdma/oamdma_src0000_busypushFEA1_dmg08_out65768700_cgb04c_out65768734.gbc";
    oamdma_oamdma_src0000_busypushff81_dmg08_cgb04c_out6576ff55: "oamdma/oamdma_src0000_busypushFF81_dmg08_cgb04c_out6576FF55.gbc";
    oamdma_oamdma_src0000_busyread0000_2_dmg08_cgb04c_out5: "oamdma/oamdma_src0000_busyread0000_2_dmg08_cgb04c_out5.gbc";
    oamdma_oamdma_src0000_busyread0000_4_dmg08_cgb04c_out5: "oamdma/oamdma_src0000_busyread0000_4_dmg08_cgb04c_out5.gbc";
    oamdma_oamdma_src0000_busyreada000_1_dmg08_cgb04c_out5: "oamdma/oamdma_src0000_busyreadA000_1_dmg08_cgb04c_out5.gbc";
    oamdma_oamdma_src0000_busyreadc000_1_dmg08_out5_cgb04c_out1: "oamdma/oamdma_src0000_busyreadC000_1_dmg08_out5_cgb04c_out1.gbc";
    oamdma_oamdma_src0000_busyreadfe00_1_dmg08_cgb04c_out0: "oamdma/oamdma_src0000_busyreadFE00_1_dmg08_cgb04c_out0.gbc";
    oamdma_oamdma_src0000_busyreadff4b_dmg08_cgb04c_out1: "oamdma/oamdma_src0000_busyreadFF4B_dmg08_cgb04c_out1.gbc";
    oamdma_oamdma_src0000_rombankchange_1_dmg08_cgb04c_out4: "oamdma/oamdma_src0000_rombankchange_1_dmg08_cgb04c_out4.gbc";
    oamdma_oamdma_src0000_srambankchange_1_dmg08_cgb04c_out4: "oamdma/oamdma_src0000_srambankchange_1_dmg08_cgb04c_out4.gbc";
    oamdma_oamdma_src7f00_busypop7fff_dmg08_cgb04c_out657665aa: "oamdma/oamdma_src7F00_busypop7FFF_dmg08_cgb04c_out657665AA.gbc";
    oamdma_oamdma_src7f00_busypop9fff_dmg08_cgb04c_out65765576: "oamdma/oamdma_src7F00_busypop9FFF_dmg08_cgb04c_out65765576.gbc";
    oamdma_oamdma_src7f00_busypopbfff_dmg08_out65766576_cgb04c_out657665aa: "oamdma/oamdma_src7F00_busypopBFFF_dmg08_out65766576_cgb04c_out657665AA.gbc";
    oamdma_oamdma_src7f00_busypopefff_dmg08_out65766576_cgb04c_out657655aa: "oamdma/oamdma_src7F00_busypopEFFF_dmg08_out65766576_cgb04c_out657655AA.gbc";
    oamdma_oamdma_src7f00_busypopfe9f_dmg08_cgb04c_out6576ffff: "oamdma/oamdma_src7F00_busypopFE9F_dmg08_cgb04c_out6576FFFF.gbc";
    oamdma_oamdma_src7f00_busypopff7f_dmg08_cgb04c_out6576ffaa: "oamdma/oamdma_src7F00_busypopFF7F_dmg08_cgb04c_out6576FFAA.gbc";
    oamdma_oamdma_src7f00_busypush0001_dmg08_cgb04c_out5576aa34: "oamdma/oamdma_src7F00_busypush0001_dmg08_cgb04c_out5576AA34.gbc";
    oamdma_oamdma_src7f00_busypusha001_2_dmg08_cgb04c_out5576aaff: "oamdma/oamdma_src7F00_busypushA001_2_dmg08_cgb04c_out5576AAFF.gbc";
    oamdma_oamdma_src7f00_busypushc001_2_dmg08_out55aaff34_cgb04c_out65aaff55: "oamdma/oamdma_src7F00_busypushC001_2_dmg08_out55AAFF34_cgb04c_out65AAFF55.gbc";
    oamdma_oamdma_src7f00_busypushe001_dmg08_out55aa1234_cgb04c_out6576aa55: "oamdma/oamdma_src7F00_busypushE001_dmg08_out55AA1234_cgb04c_out6576AA55.gbc";
    oamdma_oamdma_src7f00_busypushfe01_dmg08_out65aa1298_cgb04c_out6576aa98: "oamdma/oamdma_src7F00_busypushFE01_dmg08_out65AA1298_cgb04c_out6576AA98.gbc";
    oamdma_oamdma_src7f00_busypushff01_dmg08_out657600df_cgb04c_out657612df: "oamdma/oamdma_src7F00_busypushFF01_dmg08_out657600DF_cgb04c_out657612DF.gbc";
    oamdma_oamdma_src8000_busypop7fff_dmg08_out65765576_cgb04c_out65005576: "oamdma/oamdma_src8000_busypop7FFF_dmg08_out65765576_cgb04c_out65005576.gbc";
    oamdma_oamdma_src8000_busypop9fff_dmg08_out657665aa_cgb04c_out007665aa: "oamdma/oamdma_src8000_busypop9FFF_dmg08_out657665AA_cgb04c_out007665AA.gbc";
    oamdma_oamdma_src8000_busypopbfff_dmg08_cgb04c_out657655aa: "oamdma/oamdma_src8000_busypopBFFF_dmg08_cgb04c_out657655AA.gbc";
    oamdma_oamdma_src8000_busypopefff_dmg08_cgb04c_out657655aa: "oamdma/oamdma_src8000_busypopEFFF_dmg08_cgb04c_out657655AA.gbc";
    oamdma_oamdma_src8000_busypopfe9f_dmg08_cgb04c_out6576ffff: "oamdma/oamdma_src8000_busypopFE9F_dmg08_cgb04c_out6576FFFF.gbc";
    oamdma_oamdma_src8000_busypopff7f_dmg08_cgb04c_out6576ffaa: "oamdma/oamdma_src8000_busypopFF7F_dmg08_cgb04c_out6576FFAA.gbc";
    oamdma_oamdma_src8000_busypush0001_dmg08_cgb04c_out6576aa34: "oamdma/oamdma_src8000_busypush0001_dmg08_cgb04c_out6576AA34.gbc";
    oamdma_oamdma_src8000_busypusha001_2_dmg08_out65aa12ff_cgb04c_out650012ff: "oamdma/oamdma_src8000_busypushA001_2_dmg08_out65AA12FF_cgb04c_out650012FF.gbc";
    oamdma_oamdma_src8000_busypushc001_2_dmg08_cgb04c_out6576ff55: "oamdma/oamdma_src8000_busypushC001_2_dmg08_cgb04c_out6576FF55.gbc";
    oamdma_oamdma_src8000_busypushe001_dmg08_cgb04c_out6576aa55: "oamdma/oamdma_src8000_busypushE001_dmg08_cgb04c_out6576AA55.gbc";
    oamdma_oamdma_src8000_busypushfe01_dmg08_cgb04c_out6576aa98: "oamdma/oamdma_src8000_busypushFE01_dmg08_cgb04c_out6576AA98.gbc";
    oamdma_oamdma_src8000_busypushff01_dmg08_out657600df_cgb04c_out657612df: "oamdma/oamdma_src8000_busypushFF01_dmg08_out657600DF_cgb04c_out657612DF.gbc";
    oamdma_oamdma_src8000_busyread0000_dmg08_cgb04c_out1: "oamdma/oamdma_src8000_busyread0000_dmg08_cgb04c_out1.gbc";
    oamdma_oamdma_src8000_busyread8000_2_dmg08_cgb04c_out1: "oamdma/oamdma_src8000_busyread8000_2_dmg08_cgb04c_out1.gbc";
    oamdma_oamdma_src8000_busyreadc000_dmg08_cgb04c_out1: "oamdma/oamdma_src8000_busyreadC000_dmg08_cgb04c_out1.gbc";
    oamdma_oamdma_src8000_srcchange0000_busyinc_dmg08_cgb04c_out0: "oamdma/oamdma_src8000_srcchange0000_busyinc_dmg08_cgb04c_out0.gbc";
    oamdma_oamdma_src8000_srcchange0000_busyread0000_2_dmg08_cgb04c_out1: "oamdma/oamdma_src8000_srcchange0000_busyread0000_2_dmg08_cgb04c_out1.gbc";
    oamdma_oamdma_src9f00_busypop7fff_dmg08_out65765576_cgb04c_out65005576: "oamdma/oamdma_src9F00_busypop7FFF_dmg08_out65765576_cgb04c_out65005576.gbc";
    oamdma_oamdma_src9f00_busypop9fff_dmg08_out657665aa_cgb04c_out007665aa: "oamdma/oamdma_src9F00_busypop9FFF_dmg08_out657665AA_cgb04c_out007665AA.gbc";
    oamdma_oamdma_src9f00_busypopbfff_dmg08_cgb04c_out657655aa: "oamdma/oamdma_src9F00_busypopBFFF_dmg08_cgb04c_out657655AA.gbc";
    oamdma_oamdma_src9f00_busypopefff_dmg08_cgb04c_out657655aa: "oamdma/oamdma_src9F00_busypopEFFF_dmg08_cgb04c_out657655AA.gbc";
    oamdma_oamdma_src9f00_busypopfe9f_dmg08_cgb04c_out6576ffff: "oamdma/oamdma_src9F00_busypopFE9F_dmg08_cgb04c_out6576FFFF.gbc";
    oamdma_oamdma_src9f00_busypopff7f_dmg08_cgb04c_out6576ffaa: "oamdma/oamdma_src9F00_busypopFF7F_dmg08_cgb04c_out6576FFAA.gbc";
    oamdma_oamdma_src9f00_busypush0001_dmg08_cgb04c_out6576aa34: "oamdma/oamdma_src9F00_busypush0001_dmg08_cgb04c_out6576AA34.gbc";
    oamdma_oamdma_src9f00_busypusha001_2_dmg08_out65aa12ff_cgb04c_out650012ff: "oamdma/oamdma_src9F00_busypushA001_2_dmg08_out65AA12FF_cgb04c_out650012FF.gbc";
    oamdma_oamdma_src9f00_busypushc001_2_dmg08_cgb04c_out6576ff55: "oamdma/oamdma_src9F00_busypushC001_2_dmg08_cgb04c_out6576FF55.gbc";
    oamdma_oamdma_src9f00_busypushe001_dmg08_cgb04c_out6576aa55: "oamdma/oamdma_src9F00_busypushE001_dmg08_cgb04c_out6576AA55.gbc";
    oamdma_oamdma_src9f00_busypushfe01_dmg08_cgb04c_out6576aa98: "oamdma/oamdma_src9F00_busypushFE01_dmg08_cgb04c_out6576AA98.gbc";
    oamdma_oamdma_src9f00_busypushff01_dmg08_out657600df_cgb04c_out657612df: "oamdma/oamdma_src9F00_busypushFF01_dmg08_out657600DF_cgb04c_out657612DF.gbc";
    oamdma_oamdma_srca000_busypop7fff_dmg08_cgb04c_out657665aa: "oamdma/oamdma_srcA000_busypop7FFF_dmg08_cgb04c_out657665AA.gbc";
    oamdma_oamdma_srca000_busypop9fff_dmg08_cgb04c_out65765576: "oamdma/oamdma_srcA000_busypop9FFF_dmg08_cgb04c_out65765576.gbc";
    oamdma_oamdma_srca000_busypopbfff_dmg08_out65766576_cgb04c_out657665aa: "oamdma/oamdma_srcA000_busypopBFFF_dmg08_out65766576_cgb04c_out657665AA.gbc";
    oamdma_oamdma_srca000_busypopefff_dmg08_out65766576_cgb04c_out657655aa: "oamdma/oamdma_srcA000_busypopEFFF_dmg08_out65766576_cgb04c_out657655AA.gbc";
    oamdma_oamdma_srca000_busypopfe9f_dmg08_cgb04c_out6576ffff: "oamdma/oamdma_srcA000_busypopFE9F_dmg08_cgb04c_out6576FFFF.gbc";
    oamdma_oamdma_srca000_busypopff7f_dmg08_cgb04c_out6576ffaa: "oamdma/oamdma_srcA000_busypopFF7F_dmg08_cgb04c_out6576FFAA.gbc";
    oamdma_oamdma_srca000_busypush0001_dmg08_cgb04c_out5576aa34: "oamdma/oamdma_srcA000_busypush0001_dmg08_cgb04c_out5576AA34.gbc";
    oamdma_oamdma_srca000_busypusha001_2_dmg08_cgb04c_out55ffaaff: "oamdma/oamdma_srcA000_busypushA001_2_dmg08_cgb04c_out55FFAAFF.gbc";
    oamdma_oamdma_srca000_busypushc001_2_dmg08_out55aaff34_cgb04c_outffaaff55: "oamdma/oamdma_srcA000_busypushC001_2_dmg08_out55AAFF34_cgb04c_outFFAAFF55.gbc";
    oamdma_oamdma_srca000_busypushe001_dmg08_out55aa1234_cgb04c_out6576aa55: "oamdma/oamdma_srcA000_busypushE001_dmg08_out55AA1234_cgb04c_out6576AA55.gbc";
    oamdma_oamdma_srca000_busypushfe01_dmg08_out65aa1298_cgb04c_out6576aa98: "oamdma/oamdma_srcA000_busypushFE01_dmg08_out65AA1298_cgb04c_out6576AA98.gbc";
    oamdma_oamdma_srca000_busypushff01_dmg08_out657600df_cgb04c_out657612df: "oamdma/oamdma_srcA000_busypushFF01_dmg08_out657600DF_cgb04c_out657612DF.gbc";
    oamdma_oamdma_srca000_busyread0000_1_dmg08_cgb04c_out5: "oamdma/oamdma_srcA000_busyread0000_1_dmg08_cgb04c_out5.gbc";
    oamdma_oamdma_srca000_busyreadc000_1_dmg08_out5_cgb04c_out1: "oamdma/oamdma_srcA000_busyreadC000_1_dmg08_out5_cgb04c_out1.gbc";
    oamdma_oamdma_srca000_busywrite4000_dmg08_cgb04c_out2: "oamdma/oamdma_srcA000_busywrite4000_dmg08_cgb04c_out2.gbc";
    oamdma_oamdma_srca000_srambankchange_2_dmg08_cgb04c_out0: "oamdma/oamdma_srcA000_srambankchange_2_dmg08_cgb04c_out0.gbc";
    oamdma_oamdma_srcbf00_busypop9fff_2_dmg08_cgb04c_outffff55ff: "oamdma/oamdma_srcBF00_busypop9FFF_2_dmg08_cgb04c_outFFFF55FF.gbc";
    oamdma_oamdma_srcbf00_busypopbfff_2_dmg08_outffffffff_cgb04c_outffffffaa: "oamdma/oamdma_srcBF00_busypopBFFF_2_dmg08_outFFFFFFFF_cgb04c_outFFFFFFAA.gbc";
    oamdma_oamdma_srcbf00_busypopdfff_dmg08_out65766576_cgb04c_out657655aa: "oamdma/oamdma_srcBF00_busypopDFFF_dmg08_out65766576_cgb04c_out657655AA.gbc";
    oamdma_oamdma_srcbf00_busypopfdff_dmg08_out657665ff_cgb04c_out657655ff: "oamdma/oamdma_srcBF00_busypopFDFF_dmg08_out657665FF_cgb04c_out657655FF.gbc";
    oamdma_oamdma_srcbf00_busypopfeff_dmg08_cgb04c_out6576ffef: "oamdma/oamdma_srcBF00_busypopFEFF_dmg08_cgb04c_out6576FFEF.gbc";
    oamdma_oamdma_srcbf00_busypopffff_dmg08_cgb04c_out65765576: "oamdma/oamdma_srcBF00_busypopFFFF_dmg08_cgb04c_out65765576.gbc";
    oamdma_oamdma_srcbf00_busypush8001_dmg08_cgb04c_out65aa1255: "oamdma/oamdma_srcBF00_busypush8001_dmg08_cgb04c_out65AA1255.gbc";
    oamdma_oamdma_srcbf00_busypusha001_dmg08_cgb04c_out5576aa34: "oamdma/oamdma_srcBF00_busypushA001_dmg08_cgb04c_out5576AA34.gbc";
    oamdma_oamdma_srcbf00_busypushc001_dmg08_out55aa1234_cgb04c_out65aa1255: "oamdma/oamdma_srcBF00_busypushC001_dmg08_out55AA1234_cgb04c_out65AA1255.gbc";
    oamdma_oamdma_srcbf00_busypushf001_dmg08_out55aa1234_cgb04c_out6576aa55: "oamdma/oamdma_srcBF00_busypushF001_dmg08_out55AA1234_cgb04c_out6576AA55.gbc";
    oamdma_oamdma_srcbf00_busypushfea1_dmg08_out65768700_cgb04c_out65768734: "oamdma/oamdma_srcBF00_busypushFEA1_dmg08_out65768700_cgb04c_out65768734.gbc";
    oamdma_oamdma_srcbf00_busypushff81_dmg08_cgb04c_out6576ff55: "oamdma/oamdma_srcBF00_busypushFF81_dmg08_cgb04c_out6576FF55.gbc";
    oamdma_oamdma_srcc000_busypop9fff_2_dmg08_out65765576_cgb04c_out657655ff: "oamdma/oamdma_srcC000_busypop9FFF_2_dmg08_out65765576_cgb04c_out657655FF.gbc";
    oamdma_oamdma_srcc000_busypopbfff_2_dmg08_out65766576_cgb04c_out6576ff76: "oamdma/oamdma_srcC000_busypopBFFF_2_dmg08_out65766576_cgb04c_out6576FF76.gbc";
    oamdma_oamdma_srcc000_busypopdfff_dmg08_cgb04c_out65766576: "oamdma/oamdma_srcC000_busypopDFFF_dmg08_cgb04c_out65766576.gbc";
    oamdma_oamdma_srcc000_busypopfdff_dmg08_cgb04c_out657665ff: "oamdma/oamdma_srcC000_busypopFDFF_dmg08_cgb04c_out657665FF.gbc";
    oamdma_oamdma_srcc000_busypopfeff_dmg08_cgb04c_out6576ffef: "oamdma/oamdma_srcC000_busypopFEFF_dmg08_cgb04c_out6576FFEF.gbc";
    oamdma_oamdma_srcc000_busypopffff_dmg08_out65765576_cgb04c_out657655aa: "oamdma/oamdma_srcC000_busypopFFFF_dmg08_out65765576_cgb04c_out657655AA.gbc";
    oamdma_oamdma_srcc000_busypush8001_dmg08_out65221255_cgb04c_out65761255: "oamdma/oamdma_srcC000_busypush8001_dmg08_out65221255_cgb04c_out65761255.gbc";
    oamdma_oamdma_srcc000_busypusha001_dmg08_out4576aa34_cgb04c_out6576aa55: "oamdma/oamdma_srcC000_busypushA001_dmg08_out4576AA34_cgb04c_out6576AA55.gbc";
    oamdma_oamdma_srcc000_busypushc001_dmg08_out45221234_cgb04c_out6576aa34: "oamdma/oamdma_srcC000_busypushC001_dmg08_out45221234_cgb04c_out6576AA34.gbc";
    oamdma_oamdma_srcc000_busypushf001_dmg08_out45221234_cgb04c_out65761234: "oamdma/oamdma_srcC000_busypushF001_dmg08_out45221234_cgb04c_out65761234.gbc";
    oamdma_oamdma_srcc000_busypushfea1_dmg08_out65768700_cgb04c_out65768734: "oamdma/oamdma_srcC000_busypushFEA1_dmg08_out65768700_cgb04c_out65768734.gbc";
    oamdma_oamdma_srcc000_busypushff81_dmg08_cgb04c_out6576ff55: "oamdma/oamdma_srcC000_busypushFF81_dmg08_cgb04c_out6576FF55.gbc";
    oamdma_oamdma_srcc000_busyreada000_2_dmg08_cgb04c_out1: "oamdma/oamdma_srcC000_busyreadA000_2_dmg08_cgb04c_out1.gbc";
    oamdma_oamdma_srcc000_srambankchange_2_dmg08_cgb04c_out0: "oamdma/oamdma_srcC000_srambankchange_2_dmg08_cgb04c_out0.gbc";
    oamdma_oamdma_srcdf00_busypop9fff_2_dmg08_out65765576_cgb04c_out657655ff: "oamdma/oamdma_srcDF00_busypop9FFF_2_dmg08_out65765576_cgb04c_out657655FF.gbc";
    oamdma_oamdma_srcdf00_busypopbfff_2_dmg08_out65766576_cgb04c_out6576ff76: "oamdma/oamdma_srcDF00_busypopBFFF_2_dmg08_out65766576_cgb04c_out6576FF76.gbc";
    oamdma_oamdma_srcdf00_busypopdfff_dmg08_cgb04c_out65766576: "oamdma/oamdma_srcDF00_busypopDFFF_dmg08_cgb04c_out65766576.gbc";
    oamdma_oamdma_srcdf00_busypopfdff_dmg08_cgb04c_out657665ff: "oamdma/oamdma_srcDF00_busypopFDFF_dmg08_cgb04c_out657665FF.gbc";
    oamdma_oamdma_srcdf00_busypopfeff_dmg08_cgb04c_out6576ffef: "oamdma/oamdma_srcDF00_busypopFEFF_dmg08_cgb04c_out6576FFEF.gbc";
    oamdma_oamdma_srcdf00_busypopffff_dmg08_out65765576_cgb04c_out657655aa: "oamdma/oamdma_srcDF00_busypopFFFF_dmg08_out65765576_cgb04c_out657655AA.gbc";
    oamdma_oamdma_srcdf00_busypush8001_dmg08_out65221255_cgb04c_out65761255: "oamdma/oamdma_srcDF00_busypush8001_dmg08_out65221255_cgb04c_out65761255.gbc";
    oamdma_oamdma_srcdf00_busypusha001_dmg08_out4576aa34_cgb04c_out6576aa55: "oamdma/oamdma_srcDF00_busypushA001_dmg08_out4576AA34_cgb04c_out6576AA55.gbc";
    oamdma_oamdma_srcdf00_busypushc001_dmg08_out45221234_cgb04c_out6576aa34: "oamdma/oamdma_srcDF00_busypushC001_dmg08_out45221234_cgb04c_out6576AA34.gbc";
    oamdma_oamdma_srcdf00_busypushf001_dmg08_out45221234_cgb04c_out65761234: "oamdma/oamdma_srcDF00_busypushF001_dmg08_out45221234_cgb04c_out65761234.gbc";
    oamdma_oamdma_srcdf00_busypushfea1_dmg08_out65768700_cgb04c_out65768734: "oamdma/oamdma_srcDF00_busypushFEA1_dmg08_out65768700_cgb04c_out65768734.gbc";
    oamdma_oamdma_srcdf00_busypushff81_dmg08_cgb04c_out6576ff55: "oamdma/oamdma_srcDF00_busypushFF81_dmg08_cgb04c_out6576FF55.gbc";
    oamdma_oamdma_srce000_busypop7fff_dmg08_out657665aa_cgb04c_outffffffaa: "oamdma/oamdma_srcE000_busypop7FFF_dmg08_out657665AA_cgb04c_outFFFFFFAA.gbc";
    oamdma_oamdma_srce000_busypop9fff_dmg08_out65765576_cgb04c_outffff55ff: "oamdma/oamdma_srcE000_busypop9FFF_dmg08_out65765576_cgb04c_outFFFF55FF.gbc";
    oamdma_oamdma_srce000_busypopbfff_dmg08_out65766576_cgb04c_outffffffaa: "oamdma/oamdma_srcE000_busypopBFFF_dmg08_out65766576_cgb04c_outFFFFFFAA.gbc";
    oamdma_oamdma_srce000_busypopefff_dmg08_out65766576_cgb04c_outffff55aa: "oamdma/oamdma_srcE000_busypopEFFF_dmg08_out65766576_cgb04c_outFFFF55AA.gbc";
    oamdma_oamdma_srce000_busypopfe9f_dmg08_out6576ffff_cgb04c_outffffffff: "oamdma/oamdma_srcE000_busypopFE9F_dmg08_out6576FFFF_cgb04c_outFFFFFFFF.gbc";
    oamdma_oamdma_srce000_busypopff7f_dmg08_out6576ffaa_cgb04c_outffffffaa: "oamdma/oamdma_srcE000_busypopFF7F_dmg08_out6576FFAA_cgb04c_outFFFFFFAA.gbc";
    oamdma_oamdma_srce000_busypush0001_dmg08_out4576aa34_cgb04c_out55ffaa34: "oamdma/oamdma_srcE000_busypush0001_dmg08_out4576AA34_cgb04c_out55FFAA34.gbc";
    oamdma_oamdma_srce000_busypusha001_2_dmg08_out4576aaff_cgb04c_out55ffaaff: "oamdma/oamdma_srcE000_busypushA001_2_dmg08_out4576AAFF_cgb04c_out55FFAAFF.gbc";
    oamdma_oamdma_srce000_busypushc001_2_dmg08_out4522ff34_cgb04c_outffaaff55: "oamdma/oamdma_srcE000_busypushC001_2_dmg08_out4522FF34_cgb04c_outFFAAFF55.gbc";
    oamdma_oamdma_srce000_busypushe001_dmg08_out45221234_cgb04c_outffffaa55: "oamdma/oamdma_srcE000_busypushE001_dmg08_out45221234_cgb04c_outFFFFAA55.gbc";
    oamdma_oamdma_srce000_busypushfe01_dmg08_out65221298_cgb04c_outffffaaff: "oamdma/oamdma_srcE000_busypushFE01_dmg08_out65221298_cgb04c_outFFFFAAFF.gbc";
    oamdma_oamdma_srce000_busypushff01_dmg08_out657600df_cgb04c_outffff12df: "oamdma/oamdma_srcE000_busypushFF01_dmg08_out657600DF_cgb04c_outFFFF12DF.gbc";
    oamdma_oamdma_srce000_readfe00_dmg08_out2_cgb04c_out0: "oamdma/oamdma_srcE000_readFE00_dmg08_out2_cgb04c_out0.gbc";
    oamdma_oamdma_srcef00_busypop9fff_2_dmg08_out65765576_cgb04c_outffff55ff: "oamdma/oamdma_srcEF00_busypop9FFF_2_dmg08_out65765576_cgb04c_outFFFF55FF.gbc";
    oamdma_oamdma_srcef00_busypopbfff_2_dmg08_out65766576_cgb04c_outffffffaa: "oamdma/oamdma_srcEF00_busypopBFFF_2_dmg08_out65766576_cgb04c_outFFFFFFAA.gbc";
    oamdma_oamdma_srcef00_busypopdfff_dmg08_out65766576_cgb04c_outffff55aa: "oamdma/oamdma_srcEF00_busypopDFFF_dmg08_out65766576_cgb04c_outFFFF55AA.gbc";
    oamdma_oamdma_srcef00_busypopfdff_dmg08_out657665ff_cgb04c_outffff55ff: "oamdma/oamdma_srcEF00_busypopFDFF_dmg08_out657665FF_cgb04c_outFFFF55FF.gbc";
    oamdma_oamdma_srcef00_busypopfeff_dmg08_out6576ffef_cgb04c_outffffffef: "oamdma/oamdma_srcEF00_busypopFEFF_dmg08_out6576FFEF_cgb04c_outFFFFFFEF.gbc";
    oamdma_oamdma_srcef00_busypopffff_dmg08_out65765576_cgb04c_outffff55ff: "oamdma/oamdma_srcEF00_busypopFFFF_dmg08_out65765576_cgb04c_outFFFF55FF.gbc";
    oamdma_oamdma_srcef00_busypush8001_dmg08_out65221255_cgb04c_outffaa1255: "oamdma/oamdma_srcEF00_busypush8001_dmg08_out65221255_cgb04c_outFFAA1255.gbc";
    oamdma_oamdma_srcef00_busypusha001_dmg08_out4576aa34_cgb04c_out55ffaa34: "oamdma/oamdma_srcEF00_busypushA001_dmg08_out4576AA34_cgb04c_out55FFAA34.gbc";
    oamdma_oamdma_srcef00_busypushc001_dmg08_out45221234_cgb04c_outffaa1255: "oamdma/oamdma_srcEF00_busypushC001_dmg08_out45221234_cgb04c_outFFAA1255.gbc";
    oamdma_oamdma_srcef00_busypushf001_dmg08_out45221234_cgb04c_outffffaa55: "oamdma/oamdma_srcEF00_busypushF001_dmg08_out45221234_cgb04c_outFFFFAA55.gbc";
    oamdma_oamdma_srcef00_busypushfea1_dmg08_out65768700_cgb04c_outffffff34: "oamdma/oamdma_srcEF00_busypushFEA1_dmg08_out65768700_cgb04c_outFFFFFF34.gbc";
    oamdma_oamdma_srcef00_busypushff81_dmg08_out6576ff55_cgb04c_outffffff55: "oamdma/oamdma_srcEF00_busypushFF81_dmg08_out6576FF55_cgb04c_outFFFFFF55.gbc";
    oamdma_oamdma_srcf000_busypop9fff_2_dmg08_out65765576_cgb04c_outffff55ff: "oamdma/oamdma_srcF000_busypop9FFF_2_dmg08_out65765576_cgb04c_outFFFF55FF.gbc";
    oamdma_oamdma_srcf000_busypopbfff_2_dmg08_out65766576_cgb04c_outffffffaa: "oamdma/oamdma_srcF000_busypopBFFF_2_dmg08_out65766576_cgb04c_outFFFFFFAA.gbc";
    oamdma_oamdma_srcf000_busypopdfff_dmg08_out65766576_cgb04c_outffff55aa: "oamdma/oamdma_srcF000_busypopDFFF_dmg08_out65766576_cgb04c_outFFFF55AA.gbc";
    oamdma_oamdma_srcf000_busypopfdff_dmg08_out657665ff_cgb04c_outffff55ff: "oamdma/oamdma_srcF000_busypopFDFF_dmg08_out657665FF_cgb04c_outFFFF55FF.gbc";
    oamdma_oamdma_srcf000_busypopfeff_dmg08_out6576ffef_cgb04c_outffffffef: "oamdma/oamdma_srcF000_busypopFEFF_dmg08_out6576FFEF_cgb04c_outFFFFFFEF.gbc";
    oamdma_oamdma_srcf000_busypopffff_dmg08_out65765576_cgb04c_outffff55ff: "oamdma/oamdma_srcF000_busypopFFFF_dmg08_out65765576_cgb04c_outFFFF55FF.gbc";
    oamdma_oamdma_srcf000_busypush8001_dmg08_out65221255_cgb04c_outffaa1255: "oamdma/oamdma_srcF000_busypush8001_dmg08_out65221255_cgb04c_outFFAA1255.gbc";
    oamdma_oamdma_srcf000_busypusha001_dmg08_out4576aa34_cgb04c_out55ffaa34: "oamdma/oamdma_srcF000_busypushA001_dmg08_out4576AA34_cgb04c_out55FFAA34.gbc";
    oamdma_oamdma_srcf000_busypushc001_dmg08_out45221234_cgb04c_outffaa1255: "oamdma/oamdma_srcF000_busypushC001_dmg08_out45221234_cgb04c_outFFAA1255.gbc";
    oamdma_oamdma_srcf000_busypushf001_dmg08_out45221234_cgb04c_outffffaa55: "oamdma/oamdma_srcF000_busypushF001_dmg08_out45221234_cgb04c_outFFFFAA55.gbc";
    oamdma_oamdma_srcf000_busypushfea1_dmg08_out65768700_cgb04c_outffffff34: "oamdma/oamdma_srcF000_busypushFEA1_dmg08_out65768700_cgb04c_outFFFFFF34.gbc";
    oamdma_oamdma_srcf000_busypushff81_dmg08_out6576ff55_cgb04c_outffffff55: "oamdma/oamdma_srcF000_busypushFF81_dmg08_out6576FF55_cgb04c_outFFFFFF55.gbc";
    oamdma_oamdma_srcf000_busyread0000_2_dmg08_cgb04c_out3: "oamdma/oamdma_srcF000_busyread0000_2_dmg08_cgb04c_out3.gbc";
    oamdma_oamdma_srcf000_busyreada000_dmg08_out6_cgb04c_out0: "oamdma/oamdma_srcF000_busyreadA000_dmg08_out6_cgb04c_out0.gbc";
    oamdma_oamdma_srcfe00_busypop7fff_dmg08_out657665aa_cgb04c_outffffffaa: "oamdma/oamdma_srcFE00_busypop7FFF_dmg08_out657665AA_cgb04c_outFFFFFFAA.gbc";
    oamdma_oamdma_srcfe00_busypop9fff_dmg08_out65765576_cgb04c_outffff55ff: "oamdma/oamdma_srcFE00_busypop9FFF_dmg08_out65765576_cgb04c_outFFFF55FF.gbc";
    oamdma_oamdma_srcfe00_busypopbfff_dmg08_out65766576_cgb04c_outffffffaa: "oamdma/oamdma_srcFE00_busypopBFFF_dmg08_out65766576_cgb04c_outFFFFFFAA.gbc";
    oamdma_oamdma_srcfe00_busypopefff_dmg08_out65766576_cgb04c_outffff55aa: "oamdma/oamdma_srcFE00_busypopEFFF_dmg08_out65766576_cgb04c_outFFFF55AA.gbc";
    oamdma_oamdma_srcfe00_busypopfe9f_dmg08_out6576ffff_cgb04c_outffffffff: "oamdma/oamdma_srcFE00_busypopFE9F_dmg08_out6576FFFF_cgb04c_outFFFFFFFF.gbc";
    oamdma_oamdma_srcfe00_busypopff7f_dmg08_out6576ffaa_cgb04c_outffffffaa: "oamdma/oamdma_srcFE00_busypopFF7F_dmg08_out6576FFAA_cgb04c_outFFFFFFAA.gbc";
    oamdma_oamdma_srcfe00_busypush0001_dmg08_out4576aa34_cgb04c_out55ffaa34: "oamdma/oamdma_srcFE00_busypush0001_dmg08_out4576AA34_cgb04c_out55FFAA34.gbc";
    oamdma_oamdma_srcfe00_busypusha001_2_dmg08_out4576aaff_cgb04c_out55ffaaff: "oamdma/oamdma_srcFE00_busypushA001_2_dmg08_out4576AAFF_cgb04c_out55FFAAFF.gbc";
    oamdma_oamdma_srcfe00_busypushc001_2_dmg08_out4522ff34_cgb04c_outffaaff55: "oamdma/oamdma_srcFE00_busypushC001_2_dmg08_out4522FF34_cgb04c_outFFAAFF55.gbc";
    oamdma_oamdma_srcfe00_busypushe001_dmg08_out45221234_cgb04c_outffffaa55: "oamdma/oamdma_srcFE00_busypushE001_dmg08_out45221234_cgb04c_outFFFFAA55.gbc";
    oamdma_oamdma_srcfe00_busypushfe01_dmg08_out65221298_cgb04c_outffffaaff: "oamdma/oamdma_srcFE00_busypushFE01_dmg08_out65221298_cgb04c_outFFFFAAFF.gbc";
    oamdma_oamdma_srcfe00_busypushff01_dmg08_out657600df_cgb04c_outffff12df: "oamdma/oamdma_srcFE00_busypushFF01_dmg08_out657600DF_cgb04c_outFFFF12DF.gbc";
    oamdma_oamdma_srcfe00_busyread0000_dmg08_cgb04c_out0: "oamdma/oamdma_srcFE00_busyread0000_dmg08_cgb04c_out0.gbc";
    oamdma_oamdma_srcfe00_busyreada000_dmg08_cgb04c_out0: "oamdma/oamdma_srcFE00_busyreadA000_dmg08_cgb04c_out0.gbc";
    oamdma_oamdma_srcff00_busypop7fff_dmg08_out657665aa_cgb04c_outffffffaa: "oamdma/oamdma_srcFF00_busypop7FFF_dmg08_out657665AA_cgb04c_outFFFFFFAA.gbc";
    oamdma_oamdma_srcff00_busypop9fff_dmg08_out65765576_cgb04c_outffff55ff: "oamdma/oamdma_srcFF00_busypop9FFF_dmg08_out65765576_cgb04c_outFFFF55FF.gbc";
    oamdma_oamdma_srcff00_busypopbfff_dmg08_out65766576_cgb04c_outffffffaa: "oamdma/oamdma_srcFF00_busypopBFFF_dmg08_out65766576_cgb04c_outFFFFFFAA.gbc";
    oamdma_oamdma_srcff00_busypopefff_dmg08_out65766576_cgb04c_outffff55aa: "oamdma/oamdma_srcFF00_busypopEFFF_dmg08_out65766576_cgb04c_outFFFF55AA.gbc";
    oamdma_oamdma_srcff00_busypopfe9f_dmg08_out6576ffff_cgb04c_outffffffff: "oamdma/oamdma_srcFF00_busypopFE9F_dmg08_out6576FFFF_cgb04c_outFFFFFFFF.gbc";
    oamdma_oamdma_srcff00_busypopff7f_dmg08_out6576ffaa_cgb04c_outffffffaa: "oamdma/oamdma_srcFF00_busypopFF7F_dmg08_out6576FFAA_cgb04c_outFFFFFFAA.gbc";
    oamdma_oamdma_srcff00_busypush0001_dmg08_out4576aa34_cgb04c_out55ffaa34: "oamdma/oamdma_srcFF00_busypush0001_dmg08_out4576AA34_cgb04c_out55FFAA34.gbc";
    oamdma_oamdma_srcff00_busypusha001_2_dmg08_out4576aaff_cgb04c_out55ffaaff: "oamdma/oamdma_srcFF00_busypushA001_2_dmg08_out4576AAFF_cgb04c_out55FFAAFF.gbc";
    oamdma_oamdma_srcff00_busypushc001_2_dmg08_out4522ff34_cgb04c_outffaaff55: "oamdma/oamdma_srcFF00_busypushC001_2_dmg08_out4522FF34_cgb04c_outFFAAFF55.gbc";
    oamdma_oamdma_srcff00_busypushe001_dmg08_out45221234_cgb04c_outffffaa55: "oamdma/oamdma_srcFF00_busypushE001_dmg08_out45221234_cgb04c_outFFFFAA55.gbc";
    oamdma_oamdma_srcff00_busypushfe01_dmg08_out65221298_cgb04c_outffffaaff: "oamdma/oamdma_srcFF00_busypushFE01_dmg08_out65221298_cgb04c_outFFFFAAFF.gbc";
    oamdma_oamdma_srcff00_busypushff01_dmg08_out657600df_cgb04c_outffff12df: "oamdma/oamdma_srcFF00_busypushFF01_dmg08_out657600DF_cgb04c_outFFFF12DF.gbc";
    oamdma_oamdma_srcff00_busyread0000_dmg08_out1_cgb04c_out0: "oamdma/oamdma_srcFF00_busyread0000_dmg08_out1_cgb04c_out0.gbc";
    oamdma_oamdma_srcff00_busyreada000_dmg08_out1_cgb04c_out0: "oamdma/oamdma_srcFF00_busyreadA000_dmg08_out1_cgb04c_out0.gbc";
    oamdma_oamdma_srcff00_readfe00_dmg08_out1_cgb04c_out0: "oamdma/oamdma_srcFF00_readFE00_dmg08_out1_cgb04c_out0.gbc";
    oamdma_oamdmasrc80_halt_lycirq_read8000_dmg08_cgb04c_out81: "oamdma/oamdmasrc80_halt_lycirq_read8000_dmg08_cgb04c_out81.gbc";
    scx_during_m3_scx_m3_extend_1_dmg08_cgb04c_out3: "scx_during_m3/scx_m3_extend_1_dmg08_cgb04c_out3.gbc";
    serial_div_write_start_wait_read_if_1_dmg08_cgb04c_oute0: "serial/div_write_start_wait_read_if_1_dmg08_cgb04c_outE0.gbc";
    serial_nopx1_div_write_start_wait_read_if_1_dmg08_cgb04c_oute0: "serial/nopx1_div_write_start_wait_read_if_1_dmg08_cgb04c_outE0.gbc";
    serial_nopx1_start83_wait_read_if_1_dmg08_cgb04c_oute0: "serial/nopx1_start83_wait_read_if_1_dmg08_cgb04c_outE0.gbc";
    serial_nopx1_start_wait_read_if_1_dmg08_cgb04c_oute0: "serial/nopx1_start_wait_read_if_1_dmg08_cgb04c_outE0.gbc";
    serial_nopx2_start83_wait_read_if_1_dmg08_cgb04c_oute0: "serial/nopx2_start83_wait_read_if_1_dmg08_cgb04c_outE0.gbc";
    serial_nopx2_start_wait_read_if_1_dmg08_cgb04c_oute0: "serial/nopx2_start_wait_read_if_1_dmg08_cgb04c_outE0.gbc";
    serial_start_late_div_write_wait_read_if_1a_dmg08_cgb04c_oute0: "serial/start_late_div_write_wait_read_if_1a_dmg08_cgb04c_outE0.gbc";
    serial_start_late_div_write_wait_read_if_2a_dmg08_cgb04c_oute0: "serial/start_late_div_write_wait_read_if_2a_dmg08_cgb04c_outE0.gbc";
    serial_start_late_div_write_wait_read_if_3a_dmg08_cgb04c_oute0: "serial/start_late_div_write_wait_read_if_3a_dmg08_cgb04c_outE0.gbc";
    serial_start_late_div_write_wait_read_if_4_dmg08_cgb04c_oute8: "serial/start_late_div_write_wait_read_if_4_dmg08_cgb04c_outE8.gbc";
    serial_start_wait_clear_if_read_if_2_dmg08_cgb04c_oute0: "serial/start_wait_clear_if_read_if_2_dmg08_cgb04c_outE0.gbc";
    serial_start_wait_read_if_2_dmg08_cgb04c_oute8: "serial/start_wait_read_if_2_dmg08_cgb04c_outE8.gbc";
    serial_start_wait_read_sb_2_dmg08_cgb04c_outff: "serial/start_wait_read_sb_2_dmg08_cgb04c_outFF.gbc";
    serial_start_wait_read_sc_2_dmg08_out7f_cgb04c_out7d: "serial/start_wait_read_sc_2_dmg08_out7F_cgb04c_out7D.gbc";
    serial_start_wait_restart_read_if_2_dmg08_cgb04c_oute8: "serial/start_wait_restart_read_if_2_dmg08_cgb04c_outE8.gbc";
    serial_start_wait_sc80_read_if_2_dmg08_cgb04c_oute8: "serial/start_wait_sc80_read_if_2_dmg08_cgb04c_outE8.gbc";
    serial_start_wait_stop_read_if_2_dmg08_cgb04c_oute8: "serial/start_wait_stop_read_if_2_dmg08_cgb04c_outE8.gbc";
    serial_start_wait_trigger_int8_read_if_2_dmg08_oute8_cgb04c_oute0: "serial/start_wait_trigger_int8_read_if_2_dmg08_outE8_cgb04c_outE0.gbc";
    sound_ch1_div_write_reset_length_counter_timing_nr52_1_dmg08_cgb04c_outf1: "sound/ch1_div_write_reset_length_counter_timing_nr52_1_dmg08_cgb04c_outF1.gbc";
    sound_ch1_duty0_pattern_pos0_dmg08_cgb04c_outaudio0: "sound/ch1_duty0_pattern_pos0_dmg08_cgb04c_outaudio0.gbc";
    sound_ch1_duty0_pattern_pos2_dmg08_cgb04c_outaudio0: "sound/ch1_duty0_pattern_pos2_dmg08_cgb04c_outaudio0.gbc";
    sound_ch1_duty0_pattern_pos4_dmg08_cgb04c_outaudio0: "sound/ch1_duty0_pattern_pos4_dmg08_cgb04c_outaudio0.gbc";
    sound_ch1_duty0_pattern_pos6_dmg08_cgb04c_outaudio0: "sound/ch1_duty0_pattern_pos6_dmg08_cgb04c_outaudio0.gbc";
    sound_ch1_duty0_pattern_pos8_dmg08_cgb04c_outaudio0: "sound/ch1_duty0_pattern_pos8_dmg08_cgb04c_outaudio0.gbc";
    sound_ch1_duty0_pos6_to_pos7_timing_2_dmg08_cgb04c_outaudio1: "sound/ch1_duty0_pos6_to_pos7_timing_2_dmg08_cgb04c_outaudio1.gbc";
    sound_ch1_duty0_to_duty3_pos3_2_dmg08_cgb04c_outaudio0: "sound/ch1_duty0_to_duty3_pos3_2_dmg08_cgb04c_outaudio0.gbc";
    sound_ch1_duty1_pattern_pos0_dmg08_cgb04c_outaudio0: "sound/ch1_duty1_pattern_pos0_dmg08_cgb04c_outaudio0.gbc";
    sound_ch1_duty1_pattern_pos2_dmg08_cgb04c_outaudio0: "sound/ch1_duty1_pattern_pos2_dmg08_cgb04c_outaudio0.gbc";
    sound_ch1_duty1_pattern_pos4_dmg08_cgb04c_outaudio0: "sound/ch1_duty1_pattern_pos4_dmg08_cgb04c_outaudio0.gbc";
    sound_ch1_duty1_pattern_pos6_dmg08_cgb04c_outaudio0: "sound/ch1_duty1_pattern_pos6_dmg08_cgb04c_outaudio0.gbc";
    sound_ch1_duty1_pattern_pos8_dmg08_cgb04c_outaudio1: "sound/ch1_duty1_pattern_pos8_dmg08_cgb04c_outaudio1.gbc";
    sound_ch1_duty2_pattern_pos1_dmg08_cgb04c_outaudio0: "sound/ch1_duty2_pattern_pos1_dmg08_cgb04c_outaudio0.gbc";
    sound_ch1_duty2_pattern_pos3_dmg08_cgb04c_outaudio0: "sound/ch1_duty2_pattern_pos3_dmg08_cgb04c_outaudio0.gbc";
    sound_ch1_duty2_pattern_pos5_dmg08_cgb04c_outaudio1: "sound/ch1_duty2_pattern_pos5_dmg08_cgb04c_outaudio1.gbc";
    sound_ch1_duty2_pattern_pos7_dmg08_cgb04c_outaudio1: "sound/ch1_duty2_pattern_pos7_dmg08_cgb04c_outaudio1.gbc";
    sound_ch1_duty3_pattern_pos0_dmg08_cgb04c_outaudio0: "sound/ch1_duty3_pattern_pos0_dmg08_cgb04c_outaudio0.gbc";
    sound_ch1_duty3_pattern_pos2_dmg08_cgb04c_outaudio1: "sound/ch1_duty3_pattern_pos2_dmg08_cgb04c_outaudio1.gbc";
    sound_ch1_duty3_pattern_pos4_dmg08_cgb04c_outaudio1: "sound/ch1_duty3_pattern_pos4_dmg08_cgb04c_outaudio1.gbc";
    sound_ch1_duty3_pattern_pos6_dmg08_cgb04c_outaudio1: "sound/ch1_duty3_pattern_pos6_dmg08_cgb04c_outaudio1.gbc";
    sound_ch1_duty3_pattern_pos8_dmg08_cgb04c_outaudio0: "sound/ch1_duty3_pattern_pos8_dmg08_cgb04c_outaudio0.gbc";
    sound_ch1_init_pos_2_dmg08_cgb04c_outaudio1: "sound/ch1_init_pos_2_dmg08_cgb04c_outaudio1.gbc";
    sound_ch1_init_pos_4_dmg08_outaudio1_cgb04c_outaudio0: "sound/ch1_init_pos_4_dmg08_outaudio1_cgb04c_outaudio0.gbc";
    sound_ch1_init_pos_6_dmg08_cgb04c_outaudio0: "sound/ch1_init_pos_6_dmg08_cgb04c_outaudio0.gbc";
    sound_ch1_init_pos_8_dmg08_outaudio0_cgb04c_outaudio1: "sound/ch1_init_pos_8_dmg08_outaudio0_cgb04c_outaudio1.gbc";
    sound_ch1_init_reset_sweep_counter_timing_12_dmg08_cgb04c_outaudio0: "sound/ch1_init_reset_sweep_counter_timing_12_dmg08_cgb04c_outaudio0.gbc";
    sound_ch1_init_reset_sweep_counter_timing_3_dmg08_outaudio0_cgb04c_outaudio1: "sound/ch1_init_reset_sweep_counter_timing_3_dmg08_outaudio0_cgb04c_outaudio1.gbc";
    sound_ch1_init_reset_sweep_counter_timing_6_dmg08_cgb04c_outaudio0: "sound/ch1_init_reset_sweep_counter_timing_6_dmg08_cgb04c_outaudio0.gbc";
    sound_ch1_init_reset_sweep_counter_timing_9_dmg08_outaudio1_cgb04c_outaudio0: "sound/ch1_init_reset_sweep_counter_timing_9_dmg08_outaudio1_cgb04c_outaudio0.gbc";
    sound_ch1_init_reset_sweep_counter_timing_nr52_2_dmg08_out0_cgb04c_out1: "sound/ch1_init_reset_sweep_counter_timing_nr52_2_dmg08_out0_cgb04c_out1.gbc";
    sound_ch1_init_reset_sweep_counter_timing_nr52_4_dmg08_cgb04c_out0: "sound/ch1_init_reset_sweep_counter_timing_nr52_4_dmg08_cgb04c_out0.gbc";
    sound_ch1_late_div_write_nr52_1b_dmg08_cgb04c_outf0: "sound/ch1_late_div_write_nr52_1b_dmg08_cgb04c_outF0.gbc";
    sound_ch1_late_div_write_nr52_2b_dmg08_cgb04c_outf0: "sound/ch1_late_div_write_nr52_2b_dmg08_cgb04c_outF0.gbc";
    sound_ch2_div_write_reset_length_counter_timing_nr52_2_dmg08_cgb04c_outf0: "sound/ch2_div_write_reset_length_counter_timing_nr52_2_dmg08_cgb04c_outF0.gbc";
    sound_ch2_init_env_counter_timing_2_dmg08_outaudio1_cgb04c_outaudio0: "sound/ch2_init_env_counter_timing_2_dmg08_outaudio1_cgb04c_outaudio0.gbc";
    sound_ch2_init_env_counter_timing_4_dmg08_cgb04c_outaudio1: "sound/ch2_init_env_counter_timing_4_dmg08_cgb04c_outaudio1.gbc";
    sound_ch2_init_pos_2_dmg08_cgb04c_outaudio0: "sound/ch2_init_pos_2_dmg08_cgb04c_outaudio0.gbc";
    sound_ch2_init_reset_env_counter_timing_11_dmg08_outaudio0_cgb04c_outaudio1: "sound/ch2_init_reset_env_counter_timing_11_dmg08_outaudio0_cgb04c_outaudio1.gbc";
    sound_ch2_init_reset_env_counter_timing_13_dmg08_cgb04c_outaudio0: "sound/ch2_init_reset_env_counter_timing_13_dmg08_cgb04c_outaudio0.gbc";
    sound_ch2_init_reset_env_counter_timing_15_dmg08_outaudio1_cgb04c_outaudio0: "sound/ch2_init_reset_env_counter_timing_15_dmg08_outaudio1_cgb04c_outaudio0.gbc";
    sound_ch2_init_reset_env_counter_timing_1_dmg08_cgb04c_outaudio0: "sound/ch2_init_reset_env_counter_timing_1_dmg08_cgb04c_outaudio0.gbc";
    sound_ch2_init_reset_env_counter_timing_3_dmg08_cgb04c_outaudio0: "sound/ch2_init_reset_env_counter_timing_3_dmg08_cgb04c_outaudio0.gbc";
    sound_ch2_init_reset_env_counter_timing_5_dmg08_outaudio0_cgb04c_outaudio1: "sound/ch2_init_reset_env_counter_timing_5_dmg08_outaudio0_cgb04c_outaudio1.gbc";
    sound_ch2_init_reset_env_counter_timing_7_dmg08_outaudio1_cgb04c_outaudio0: "sound/ch2_init_reset_env_counter_timing_7_dmg08_outaudio1_cgb04c_outaudio0.gbc";
    sound_ch2_init_reset_env_counter_timing_9_dmg08_cgb04c_outaudio0: "sound/ch2_init_reset_env_counter_timing_9_dmg08_cgb04c_outaudio0.gbc";
    sound_ch2_init_reset_length_counter_timing_2_dmg08_outaudio0_cgb04c_outaudio1: "sound/ch2_init_reset_length_counter_timing_2_dmg08_outaudio0_cgb04c_outaudio1.gbc";
    sound_ch2_init_reset_length_counter_timing_4_dmg08_cgb04c_outaudio0: "sound/ch2_init_reset_length_counter_timing_4_dmg08_cgb04c_outaudio0.gbc";
    sound_ch2_init_reset_length_counter_timing_6_dmg08_outaudio1_cgb04c_outaudio0: "sound/ch2_init_reset_length_counter_timing_6_dmg08_outaudio1_cgb04c_outaudio0.gbc";
    sound_ch2_init_reset_length_counter_timing_8_dmg08_cgb04c_outaudio0: "sound/ch2_init_reset_length_counter_timing_8_dmg08_cgb04c_outaudio0.gbc";
    sound_ch2_init_reset_length_counter_timing_nr52_2_dmg08_cgb04c_out0: "sound/ch2_init_reset_length_counter_timing_nr52_2_dmg08_cgb04c_out0.gbc";
    sound_ch2_init_reset_length_counter_timing_nr52_4_dmg08_out2_cgb04c_out0: "sound/ch2_init_reset_length_counter_timing_nr52_4_dmg08_out2_cgb04c_out0.gbc";
    sound_ch2_late_div_write_nr52_1b_dmg08_cgb04c_outf0: "sound/ch2_late_div_write_nr52_1b_dmg08_cgb04c_outF0.gbc";
    sound_ch2_late_div_write_nr52_2b_dmg08_cgb04c_outf0: "sound/ch2_late_div_write_nr52_2b_dmg08_cgb04c_outF0.gbc";
    sound_ch2_late_reset_nr52_1b_dmg08_cgb04c_out0: "sound/ch2_late_reset_nr52_1b_dmg08_cgb04c_out0.gbc";
    sound_ch2_late_reset_nr52_2b_dmg08_cgb04c_out0: "sound/ch2_late_reset_nr52_2b_dmg08_cgb04c_out0.gbc";
    sound_ch3_div_write_reset_length_counter_timing_nr52_2_dmg08_cgb04c_outf0: "sound/ch3_div_write_reset_length_counter_timing_nr52_2_dmg08_cgb04c_outF0.gbc";
    sound_ch3_late_div_write_nr52_1b_dmg08_cgb04c_outf0: "sound/ch3_late_div_write_nr52_1b_dmg08_cgb04c_outF0.gbc";
    sound_ch3_late_div_write_nr52_2b_dmg08_cgb04c_outf0: "sound/ch3_late_div_write_nr52_2b_dmg08_cgb04c_outF0.gbc";
    sound_ch3_reset_nr4init_freq7fd_read_ff30_2_dmg08_outff_cgb04c_out10: "sound/ch3_reset_nr4init_freq7fd_read_ff30_2_dmg08_outFF_cgb04c_out10.gbc";
    sound_ch3_reset_nr4init_freq7fd_read_ff30_4_dmg08_cgb04c_out32: "sound/ch3_reset_nr4init_freq7fd_read_ff30_4_dmg08_cgb04c_out32.gbc";
    sound_ch3_reset_nr4init_freq7fd_write_ff30_2_dmg08_out32_cgb04c_out00: "sound/ch3_reset_nr4init_freq7fd_write_ff30_2_dmg08_out32_cgb04c_out00.gbc";
    sound_ch3_reset_nr4init_freq7fd_write_ff30_4_dmg08_out32_cgb04c_out00: "sound/ch3_reset_nr4init_freq7fd_write_ff30_4_dmg08_out32_cgb04c_out00.gbc";
    sound_ch3_reset_nr4init_freq7fe_read_ff30_2_dmg08_outff_cgb04c_out32: "sound/ch3_reset_nr4init_freq7fe_read_ff30_2_dmg08_outFF_cgb04c_out32.gbc";
    sound_ch3_reset_nr4init_freq7fe_read_ff30_4_dmg08_outff_cgb04c_out54: "sound/ch3_reset_nr4init_freq7fe_read_ff30_4_dmg08_outFF_cgb04c_out54.gbc";
    sound_ch3_reset_nr4init_freq7ff_read_ff30_2_dmg08_cgb04c_out54: "sound/ch3_reset_nr4init_freq7ff_read_ff30_2_dmg08_cgb04c_out54.gbc";
    sound_ch4_div_write_reset_length_counter_timing_nr52_2_dmg08_cgb04c_outf0: "sound/ch4_div_write_reset_length_counter_timing_nr52_2_dmg08_cgb04c_outF0.gbc";
    sound_ch4_late_div_write_nr52_1b_dmg08_cgb04c_outf0: "sound/ch4_late_div_write_nr52_1b_dmg08_cgb04c_outF0.gbc";
    sound_ch4_late_div_write_nr52_2b_dmg08_cgb04c_outf0: "sound/ch4_late_div_write_nr52_2b_dmg08_cgb04c_outF0.gbc";
    speedchange_key1_set_dmg08_outff_cgb04c_out7f: "speedchange/key1_set_dmg08_outFF_cgb04c_out7F.gbc";
    sprites_10spritesprline_10xposa6_m0irq_1_dmg08_cgb04c_out0: "sprites/10spritesPrLine_10xposA6_m0irq_1_dmg08_cgb04c_out0.gbc";
    sprites_10spritesprline_10xposa7_m0irq_1_dmg08_cgb04c_out0: "sprites/10spritesPrLine_10xposA7_m0irq_1_dmg08_cgb04c_out0.gbc";
    sprites_10spritesprline_10xposa7_m3stat_1_dmg08_cgb04c_out3: "sprites/10spritesPrLine_10xposA7_m3stat_1_dmg08_cgb04c_out3.gbc";
    sprites_10spritesprline_1xpos0_m3stat_1_dmg08_cgb04c_out3: "sprites/10spritesPrLine_1xpos0_m3stat_1_dmg08_cgb04c_out3.gbc";
    sprites_10spritesprline_1xposa8_m3stat_1_dmg08_cgb04c_out3: "sprites/10spritesPrLine_1xposA8_m3stat_1_dmg08_cgb04c_out3.gbc";
    sprites_10spritesprline_m2stat_1_dmg08_cgb04c_out2: "sprites/10spritesPrLine_m2stat_1_dmg08_cgb04c_out2.gbc";
    sprites_10spritesprline_m3stat_1_dmg08_cgb04c_out3: "sprites/10spritesPrLine_m3stat_1_dmg08_cgb04c_out3.gbc";
    sprites_10spritesprline_m0stat_1_dmg08_cgb04c_out0: "sprites/10spritesprline_m0stat_1_dmg08_cgb04c_out0.gbc";
    sprites_1spritesprline_m3stat_1_dmg08_cgb04c_out3: "sprites/1spritesPrLine_m3stat_1_dmg08_cgb04c_out3.gbc";
    sprites_1spritesprline_offset7_m3stat_1_dmg08_cgb04c_out3: "sprites/1spritesPrLine_offset7_m3stat_1_dmg08_cgb04c_out3.gbc";
    sprites_1spritesprline_scx1_offset7_m3stat_1_dmg08_cgb04c_out3: "sprites/1spritesPrLine_scx1_offset7_m3stat_1_dmg08_cgb04c_out3.gbc";
    sprites_1spritesprline_xpos01_m3stat_1_dmg08_cgb04c_out3: "sprites/1spritesPrLine_xpos01_m3stat_1_dmg08_cgb04c_out3.gbc";
    sprites_1spritesprline_xpos01_scx4_m3stat_1_dmg08_cgb04c_out3: "sprites/1spritesPrLine_xpos01_scx4_m3stat_1_dmg08_cgb04c_out3.gbc";
    sprites_1spritesprline_xpos07_m3stat_1_dmg08_cgb04c_out3: "sprites/1spritesPrLine_xpos07_m3stat_1_dmg08_cgb04c_out3.gbc";
    sprites_1spritesprline_xpos09_scx4_m3stat_1_dmg08_cgb04c_out3: "sprites/1spritesPrLine_xpos09_scx4_m3stat_1_dmg08_cgb04c_out3.gbc";
    sprites_2spritesprline_m3stat_1_dmg08_cgb04c_out3: "sprites/2spritesPrLine_m3stat_1_dmg08_cgb04c_out3.gbc";
    sprites_3spritesprline_m3stat_1_dmg08_cgb04c_out3: "sprites/3spritesPrLine_m3stat_1_dmg08_cgb04c_out3.gbc";
    sprites_4spritesprline_m3stat_1_dmg08_cgb04c_out3: "sprites/4spritesPrLine_m3stat_1_dmg08_cgb04c_out3.gbc";
    sprites_5spritesprline_m3stat_1_dmg08_cgb04c_out3: "sprites/5spritesPrLine_m3stat_1_dmg08_cgb04c_out3.gbc";
    sprites_6spritesprline_m3stat_1_dmg08_cgb04c_out3: "sprites/6spritesPrLine_m3stat_1_dmg08_cgb04c_out3.gbc";
    sprites_7spritesprline_m3stat_1_dmg08_cgb04c_out3: "sprites/7spritesPrLine_m3stat_1_dmg08_cgb04c_out3.gbc";
    sprites_8spritesprline_m3stat_1_dmg08_cgb04c_out3: "sprites/8spritesPrLine_m3stat_1_dmg08_cgb04c_out3.gbc";
    sprites_9spritesprline_m3stat_1_dmg08_cgb04c_out3: "sprites/9spritesPrLine_m3stat_1_dmg08_cgb04c_out3.gbc";
    sprites_late_disable_1_dmg08_out0: "sprites/late_disable_1_dmg08_out0.gb";
    sprites_late_sizechange2_sp00_1_dmg08_cgb04c_out3: "sprites/late_sizechange2_sp00_1_dmg08_cgb04c_out3.gbc";
    sprites_late_sizechange2_sp01_1_dmg08_cgb04c_out3: "sprites/late_sizechange2_sp01_1_dmg08_cgb04c_out3.gbc";
    sprites_late_sizechange2_sp02_1_dmg08_cgb04c_out3: "sprites/late_sizechange2_sp02_1_dmg08_cgb04c_out3.gbc";
    sprites_late_sizechange2_sp39_1_dmg08_cgb04c_out3: "sprites/late_sizechange2_sp39_1_dmg08_cgb04c_out3.gbc";
    sprites_late_sizechange_1_dmg08_cgb04c_out0: "sprites/late_sizechange_1_dmg08_cgb04c_out0.gbc";
    sprites_late_sizechange_3_dmg08_cgb04c_out3: "sprites/late_sizechange_3_dmg08_cgb04c_out3.gbc";
    sprites_late_sizechange_sp00_2_dmg08_cgb04c_out3: "sprites/late_sizechange_sp00_2_dmg08_cgb04c_out3.gbc";
    sprites_late_sizechange_sp00_4_dmg08_cgb04c_out0: "sprites/late_sizechange_sp00_4_dmg08_cgb04c_out0.gbc";
    sprites_late_sizechange_sp01_2_dmg08_out0_cgb04c_out3: "sprites/late_sizechange_sp01_2_dmg08_out0_cgb04c_out3.gbc";
    sprites_late_sizechange_sp02_1_dmg08_cgb04c_out0: "sprites/late_sizechange_sp02_1_dmg08_cgb04c_out0.gbc";
    sprites_late_sizechange_sp39_1_dmg08_cgb04c_out0: "sprites/late_sizechange_sp39_1_dmg08_cgb04c_out0.gbc";
    sprites_late_sizechange_sp39_3_dmg08_cgb04c_out3: "sprites/late_sizechange_sp39_3_dmg08_cgb04c_out3.gbc";
    sprites_mix_m3stat_2_dmg08_cgb04c_out0: "sprites/mix_m3stat_2_dmg08_cgb04c_out0.gbc";
    sprites_sprite_late_disable_spx18_2_dmg08_out3: "sprites/sprite_late_disable_spx18_2_dmg08_out3.gb";
    sprites_sprite_late_disable_spx19_2_dmg08_out3: "sprites/sprite_late_disable_spx19_2_dmg08_out3.gb";
    sprites_sprite_late_disable_spx1a_2_dmg08_out3: "sprites/sprite_late_disable_spx1A_2_dmg08_out3.gb";
    sprites_sprite_late_disable_spx1b_2_dmg08_out3: "sprites/sprite_late_disable_spx1B_2_dmg08_out3.gb";
    sprites_sprite_late_enable_spx18_2_dmg08_out0: "sprites/sprite_late_enable_spx18_2_dmg08_out0.gb";
    sprites_sprite_late_enable_spx1a_1_dmg08_out3: "sprites/sprite_late_enable_spx1A_1_dmg08_out3.gb";
    sprites_sprite_late_enable_spx1b_1_dmg08_out3: "sprites/sprite_late_enable_spx1B_1_dmg08_out3.gb";
    sprites_sprite_late_late_disable_spx18_1_dmg08_out0: "sprites/sprite_late_late_disable_spx18_1_dmg08_out0.gb";
    sprites_sprite_late_late_disable_spx19_1_dmg08_out0: "sprites/sprite_late_late_disable_spx19_1_dmg08_out0.gb";
    sprites_sprite_late_late_disable_spx1a_1_dmg08_out0: "sprites/sprite_late_late_disable_spx1A_1_dmg08_out0.gb";
    sprites_sprite_late_late_disable_spx1b_1_dmg08_out0: "sprites/sprite_late_late_disable_spx1B_1_dmg08_out0.gb";
    tima_tc00_1stopstart_ff_tma_1_dmg08_cgb04c_outff: "tima/tc00_1stopstart_ff_tma_1_dmg08_cgb04c_outFF.gbc";
    tima_tc00_1stopstart_ff_tma_3_dmg08_cgb04c_outfe: "tima/tc00_1stopstart_ff_tma_3_dmg08_cgb04c_outFE.gbc";
    tima_tc00_1stopstart_offset1_ff_tma_2_dmg08_cgb04c_out00: "tima/tc00_1stopstart_offset1_ff_tma_2_dmg08_cgb04c_out00.gbc";
    tima_tc00_1stopstart_offset2_ff_tma_1_dmg08_cgb04c_outff: "tima/tc00_1stopstart_offset2_ff_tma_1_dmg08_cgb04c_outFF.gbc";
    tima_tc00_1stopstart_offset2_ff_tma_3_dmg08_cgb04c_outfe: "tima/tc00_1stopstart_offset2_ff_tma_3_dmg08_cgb04c_outFE.gbc";
    tima_tc00_div_write_start_2_dmg08_cgb04c_outf1: "tima/tc00_div_write_start_2_dmg08_cgb04c_outF1.gbc";
    tima_tc00_fe_ff_2_dmg08_cgb04c_outff: "tima/tc00_fe_ff_2_dmg08_cgb04c_outFF.gbc";
    tima_tc00_ff_tma_2_dmg08_cgb04c_out00: "tima/tc00_ff_tma_2_dmg08_cgb04c_out00.gbc";
    tima_tc00_irq_1_dmg08_cgb04c_oute0: "tima/tc00_irq_1_dmg08_cgb04c_outE0.gbc";
    tima_tc00_irq_ifw_1_dmg08_cgb04c_oute4: "tima/tc00_irq_ifw_1_dmg08_cgb04c_outE4.gbc";
    tima_tc00_irq_late_retrigger_1_dmg08_cgb04c_oute4: "tima/tc00_irq_late_retrigger_1_dmg08_cgb04c_outE4.gbc";
    tima_tc00_irq_late_retrigger_3_dmg08_cgb04c_oute0: "tima/tc00_irq_late_retrigger_3_dmg08_cgb04c_outE0.gbc";
    tima_tc00_late_div_write_1b_dmg08_cgb04c_out00: "tima/tc00_late_div_write_1b_dmg08_cgb04c_out00.gbc";
    tima_tc00_late_div_write_2b_dmg08_cgb04c_outff: "tima/tc00_late_div_write_2b_dmg08_cgb04c_outFF.gbc";
    tima_tc00_late_div_write_3b_dmg08_cgb04c_outff: "tima/tc00_late_div_write_3b_dmg08_cgb04c_outFF.gbc";
    tima_tc00_late_div_write_4b_dmg08_cgb04c_outff: "tima/tc00_late_div_write_4b_dmg08_cgb04c_outFF.gbc";
    tima_tc00_late_div_write_if_1b_dmg08_cgb04c_oute4: "tima/tc00_late_div_write_if_1b_dmg08_cgb04c_outE4.gbc";
    tima_tc00_late_stop_inc_1_dmg08_cgb04c_outfe: "tima/tc00_late_stop_inc_1_dmg08_cgb04c_outFE.gbc";
    tima_tc00_late_stop_irq_1_dmg08_cgb04c_oute0: "tima/tc00_late_stop_irq_1_dmg08_cgb04c_outE0.gbc";
    tima_tc00_late_stop_of_1_dmg08_cgb04c_outff: "tima/tc00_late_stop_of_1_dmg08_cgb04c_outFF.gbc";
    tima_tc00_late_tc01_1_dmg08_cgb04c_outff: "tima/tc00_late_tc01_1_dmg08_cgb04c_outFF.gbc";
    tima_tc00_late_tc01_3_dmg08_cgb04c_outff: "tima/tc00_late_tc01_3_dmg08_cgb04c_outFF.gbc";
    tima_tc00_late_tc01_5_dmg08_cgb04c_out00: "tima/tc00_late_tc01_5_dmg08_cgb04c_out00.gbc";
    tima_tc00_late_tc01_7_dmg08_cgb04c_outff: "tima/tc00_late_tc01_7_dmg08_cgb04c_outFF.gbc";
    tima_tc00_nop_div_write_start_1_dmg08_cgb04c_outf0: "tima/tc00_nop_div_write_start_1_dmg08_cgb04c_outF0.gbc";
    tima_tc00_tc01_ff_tma_1_dmg08_cgb04c_outff: "tima/tc00_tc01_ff_tma_1_dmg08_cgb04c_outFF.gbc";
    tima_tc00_tc01_ff_tma_3_dmg08_cgb04c_outf0: "tima/tc00_tc01_ff_tma_3_dmg08_cgb04c_outF0.gbc";
    tima_tc00_tc01_late_tc00_of_2_dmg08_cgb04c_outf0: "tima/tc00_tc01_late_tc00_of_2_dmg08_cgb04c_outF0.gbc";
    tima_tc01_1stopstart_ff_tma_2_dmg08_cgb04c_out00: "tima/tc01_1stopstart_ff_tma_2_dmg08_cgb04c_out00.gbc";
    tima_tc01_1stopstart_irq_1_dmg08_cgb04c_oute0: "tima/tc01_1stopstart_irq_1_dmg08_cgb04c_outE0.gbc";
    tima_tc01_1stopstart_offset1_ff_tma_1_dmg08_cgb04c_outff: "tima/tc01_1stopstart_offset1_ff_tma_1_dmg08_cgb04c_outFF.gbc";
    tima_tc01_1stopstart_offset1_ff_tma_3_dmg08_cgb04c_outf0: "tima/tc01_1stopstart_offset1_ff_tma_3_dmg08_cgb04c_outF0.gbc";
    tima_tc01_1stopstart_offset1_irq_2_dmg08_cgb04c_oute4: "tima/tc01_1stopstart_offset1_irq_2_dmg08_cgb04c_outE4.gbc";
    tima_tc01_1stopstart_offset2_ff_tma_2_dmg08_cgb04c_out00: "tima/tc01_1stopstart_offset2_ff_tma_2_dmg08_cgb04c_out00.gbc";
    tima_tc01_1stopstart_offset2_irq_1_dmg08_cgb04c_oute0: "tima/tc01_1stopstart_offset2_irq_1_dmg08_cgb04c_outE0.gbc";
    tima_tc01_1stopstart_offset3_ff_tma_1_dmg08_cgb04c_outff: "tima/tc01_1stopstart_offset3_ff_tma_1_dmg08_cgb04c_outFF.gbc";
    tima_tc01_1stopstart_offset3_ff_tma_3_dmg08_cgb04c_outf0: "tima/tc01_1stopstart_offset3_ff_tma_3_dmg08_cgb04c_outF0.gbc";
    tima_tc01_1stopstart_offset3_irq_2_dmg08_cgb04c_oute4: "tima/tc01_1stopstart_offset3_irq_2_dmg08_cgb04c_outE4.gbc";
    tima_tc01_div_write_start_2_dmg08_cgb04c_outf2: "tima/tc01_div_write_start_2_dmg08_cgb04c_outF2.gbc";
    tima_tc01_fe_ff_2_dmg08_cgb04c_outff: "tima/tc01_fe_ff_2_dmg08_cgb04c_outFF.gbc";
    tima_tc01_ff_tma_2_dmg08_cgb04c_out00: "tima/tc01_ff_tma_2_dmg08_cgb04c_out00.gbc";
    tima_tc01_irq_1_dmg08_cgb04c_oute0: "tima/tc01_irq_1_dmg08_cgb04c_outE0.gbc";
    tima_tc01_late_div_write_1a_dmg08_cgb04c_outff: "tima/tc01_late_div_write_1a_dmg08_cgb04c_outFF.gbc";
    tima_tc01_late_div_write_2a_dmg08_cgb04c_outfe: "tima/tc01_late_div_write_2a_dmg08_cgb04c_outFE.gbc";
    tima_tc01_late_div_write_3a_dmg08_cgb04c_outfe: "tima/tc01_late_div_write_3a_dmg08_cgb04c_outFE.gbc";
    tima_tc01_late_div_write_4a_dmg08_cgb04c_outfe: "tima/tc01_late_div_write_4a_dmg08_cgb04c_outFE.gbc";
    tima_tc01_late_stop_inc_1_dmg08_cgb04c_outfd: "tima/tc01_late_stop_inc_1_dmg08_cgb04c_outFD.gbc";
    tima_tc01_late_stop_irq_1_dmg08_cgb04c_oute0: "tima/tc01_late_stop_irq_1_dmg08_cgb04c_outE0.gbc";
    tima_tc01_late_stop_of_1_dmg08_cgb04c_outff: "tima/tc01_late_stop_of_1_dmg08_cgb04c_outFF.gbc";
    tima_tc01_late_tima_inc_1_dmg08_cgb04c_out11: "tima/tc01_late_tima_inc_1_dmg08_cgb04c_out11.gbc";
    tima_tc01_late_tima_irq_1_dmg08_cgb04c_oute0: "tima/tc01_late_tima_irq_1_dmg08_cgb04c_outE0.gbc";
    tima_tc01_late_tima_tma_1_dmg08_cgb04c_out11: "tima/tc01_late_tima_tma_1_dmg08_cgb04c_out11.gbc";
    tima_tc01_late_tima_tma_3_dmg08_cgb04c_out11: "tima/tc01_late_tima_tma_3_dmg08_cgb04c_out11.gbc";
    tima_tc01_late_tma_2_dmg08_cgb04c_outf1: "tima/tc01_late_tma_2_dmg08_cgb04c_outF1.gbc";
    tima_tc01_nop_div_write_start_2_dmg08_cgb04c_outf2: "tima/tc01_nop_div_write_start_2_dmg08_cgb04c_outF2.gbc";
    tima_tc01_tma_next_2_dmg08_cgb04c_outf1: "tima/tc01_tma_next_2_dmg08_cgb04c_outF1.gbc";
    undef_ops_undef_op_d3_dmg08_cgb04c_out01: "undef_ops/undef_op_d3_dmg08_cgb04c_out01.gbc";
    undef_ops_undef_op_e3_dmg08_cgb04c_out01: "undef_ops/undef_op_e3_dmg08_cgb04c_out01.gbc";
    undef_ops_undef_op_eb_dmg08_cgb04c_out01: "undef_ops/undef_op_eb_dmg08_cgb04c_out01.gbc";
    undef_ops_undef_op_ed_dmg08_cgb04c_out01: "undef_ops/undef_op_ed_dmg08_cgb04c_out01.gbc";
    undef_ops_undef_op_fc_dmg08_cgb04c_out01: "undef_ops/undef_op_fc_dmg08_cgb04c_out01.gbc";
    vram_m3_10spritesprline_postread_1_dmg08_cgb04c_out3: "vram_m3/10spritesprline_postread_1_dmg08_cgb04c_out3.gbc";
    vram_m3_postread_1_dmg08_cgb04c_out3: "vram_m3/postread_1_dmg08_cgb04c_out3.gbc";
    vram_m3_postread_scx2_1_dmg08_cgb04c_out3: "vram_m3/postread_scx2_1_dmg08_cgb04c_out3.gbc";
    vram_m3_postread_scx3_1_dmg08_cgb04c_out3: "vram_m3/postread_scx3_1_dmg08_cgb04c_out3.gbc";
    vram_m3_postread_scx5_1_dmg08_cgb04c_out3: "vram_m3/postread_scx5_1_dmg08_cgb04c_out3.gbc";
    vram_m3_preread_1_dmg08_cgb04c_out0: "vram_m3/preread_1_dmg08_cgb04c_out0.gbc";
    vram_m3_preread_3_dmg08_cgb04c_out3: "vram_m3/preread_3_dmg08_cgb04c_out3.gbc";
    vram_m3_vramw_m3start_2_dmg08_cgb04c_out0: "vram_m3/vramw_m3start_2_dmg08_cgb04c_out0.gbc";
    vramw_m3end_vramw_m3end_1_dmg08_cgb04c_out7: "vramw_m3end/vramw_m3end_1_dmg08_cgb04c_out7.gbc";
    vramw_m3end_vramw_m3end_3_dmg08_cgb04c_out0: "vramw_m3end/vramw_m3end_3_dmg08_cgb04c_out0.gbc";
    vramw_m3end_vramw_m3end_5_dmg08_cgb04c_out1: "vramw_m3end/vramw_m3end_5_dmg08_cgb04c_out1.gbc";
    vramw_m3end_vramw_m3end_scx3_1_dmg08_cgb04c_out7: "vramw_m3end/vramw_m3end_scx3_1_dmg08_cgb04c_out7.gbc";
    vramw_m3end_vramw_m3end_scx3_3_dmg08_cgb04c_out0: "vramw_m3end/vramw_m3end_scx3_3_dmg08_cgb04c_out0.gbc";
    vramw_m3end_vramw_m3end_scx3_5_dmg08_cgb04c_out3: "vramw_m3end/vramw_m3end_scx3_5_dmg08_cgb04c_out3.gbc";
    window_arg_late_enable_aftervblank_3_dmg08_cgb04c_out3: "window/arg/late_enable_afterVblank_3_dmg08_cgb04c_out3.gbc";
    window_arg_late_enable_aftervblank_5_dmg08_cgb04c_out0: "window/arg/late_enable_afterVblank_5_dmg08_cgb04c_out0.gbc";
    window_arg_late_scx_late_wy_ffto4_ly4_wx00_2_dmg08_out3_cgb04c_out0: "window/arg/late_scx_late_wy_FFto4_ly4_wx00_2_dmg08_out3_cgb04c_out0.gbc";
    window_arg_late_scx_late_wy_ffto4_ly4_wx20_1_dmg08_cgb04c_out3: "window/arg/late_scx_late_wy_FFto4_ly4_wx20_1_dmg08_cgb04c_out3.gbc";
    window_arg_late_scx_late_wy_ffto4_ly4_wx20_3_dmg08_cgb04c_out0: "window/arg/late_scx_late_wy_FFto4_ly4_wx20_3_dmg08_cgb04c_out0.gbc";
    window_arg_late_wx_late_wy_ffto2_ly2_2_dmg08_cgb04c_out3: "window/arg/late_wx_late_wy_FFto2_ly2_2_dmg08_cgb04c_out3.gbc";
    window_arg_late_wy_10to0_ly1_2_dmg08_out3_cgb04c_out0: "window/arg/late_wy_10to0_ly1_2_dmg08_out3_cgb04c_out0.gbc";
    window_arg_late_wy_10to1_ly1_1_dmg08_cgb04c_out3: "window/arg/late_wy_10to1_ly1_1_dmg08_cgb04c_out3.gbc";
    window_arg_late_wy_10to1_ly1_3_dmg08_cgb04c_out0: "window/arg/late_wy_10to1_ly1_3_dmg08_cgb04c_out0.gbc";
    window_arg_late_wy_1toff_1_dmg08_cgb04c_out0: "window/arg/late_wy_1toFF_1_dmg08_cgb04c_out0.gbc";
    window_arg_late_wy_1toff_3_dmg08_cgb04c_out3: "window/arg/late_wy_1toFF_3_dmg08_cgb04c_out3.gbc";
    window_arg_late_wy_2toff_1_dmg08_cgb04c_out0: "window/arg/late_wy_2toFF_1_dmg08_cgb04c_out0.gbc";
    window_arg_late_wy_2toff_3_dmg08_cgb04c_out3: "window/arg/late_wy_2toFF_3_dmg08_cgb04c_out3.gbc";
    window_arg_late_wy_ffto0_ly0_2_dmg08_out3_cgb04c_out0: "window/arg/late_wy_FFto0_ly0_2_dmg08_out3_cgb04c_out0.gbc";
    window_arg_late_wy_ffto0_ly2_1_dmg08_cgb04c_out3: "window/arg/late_wy_FFto0_ly2_1_dmg08_cgb04c_out3.gbc";
    window_arg_late_wy_ffto0_ly2_3_dmg08_cgb04c_out0: "window/arg/late_wy_FFto0_ly2_3_dmg08_cgb04c_out0.gbc";
    window_arg_late_wy_ffto1_ly2_2_dmg08_out3_cgb04c_out0: "window/arg/late_wy_FFto1_ly2_2_dmg08_out3_cgb04c_out0.gbc";
    window_arg_late_wy_ffto2_ly2_1_dmg08_cgb04c_out3: "window/arg/late_wy_FFto2_ly2_1_dmg08_cgb04c_out3.gbc";
    window_arg_late_wy_ffto2_ly2_3_dmg08_cgb04c_out0: "window/arg/late_wy_FFto2_ly2_3_dmg08_cgb04c_out0.gbc";
    window_arg_late_wy_ffto2_ly2_scx2_2_dmg08_out3_cgb04c_out0: "window/arg/late_wy_FFto2_ly2_scx2_2_dmg08_out3_cgb04c_out0.gbc";
    window_arg_late_wy_ffto2_ly2_scx3_1_dmg08_cgb04c_out3: "window/arg/late_wy_FFto2_ly2_scx3_1_dmg08_cgb04c_out3.gbc";
    window_arg_late_wy_ffto2_ly2_scx3_3_dmg08_cgb04c_out0: "window/arg/late_wy_FFto2_ly2_scx3_3_dmg08_cgb04c_out0.gbc";
    window_arg_late_wy_ffto2_ly2_scx5_2_dmg08_out3_cgb04c_out0: "window/arg/late_wy_FFto2_ly2_scx5_2_dmg08_out3_cgb04c_out0.gbc";
    window_arg_late_wy_ffto2_ly2_wx00_1_dmg08_cgb04c_out3: "window/arg/late_wy_FFto2_ly2_wx00_1_dmg08_cgb04c_out3.gbc";
    window_arg_late_wy_ffto2_ly2_wx00_3_dmg08_cgb04c_out0: "window/arg/late_wy_FFto2_ly2_wx00_3_dmg08_cgb04c_out0.gbc";
    window_arg_late_wy_ffto2_ly2_wx0f_2_dmg08_out3_cgb04c_out0: "window/arg/late_wy_FFto2_ly2_wx0f_2_dmg08_out3_cgb04c_out0.gbc";
    window_late_disable_0_dmg08_cgb04c_out0: "window/late_disable_0_dmg08_cgb04c_out0.gbc";
    window_late_disable_2_dmg08_cgb04c_out3: "window/late_disable_2_dmg08_cgb04c_out3.gbc";
    window_late_disable_early_scx03_wx0f_2_dmg08_cgb04c_out3: "window/late_disable_early_scx03_wx0f_2_dmg08_cgb04c_out3.gbc";
    window_late_disable_early_scx03_wx10_2_dmg08_cgb04c_out3: "window/late_disable_early_scx03_wx10_2_dmg08_cgb04c_out3.gbc";
    window_late_disable_early_scx03_wx11_2_dmg08_cgb04c_out3: "window/late_disable_early_scx03_wx11_2_dmg08_cgb04c_out3.gbc";
    window_late_disable_early_scx03_wx12_2_dmg08_out0_cgb04c_out3: "window/late_disable_early_scx03_wx12_2_dmg08_out0_cgb04c_out3.gbc";
    window_late_disable_late_scx03_wx0f_1_dmg08_cgb04c_out0: "window/late_disable_late_scx03_wx0f_1_dmg08_cgb04c_out0.gbc";
    window_late_disable_late_scx03_wx0f_3_dmg08_cgb04c_out3: "window/late_disable_late_scx03_wx0f_3_dmg08_cgb04c_out3.gbc";
    window_late_disable_late_scx03_wx10_2_dmg08_out3_cgb04c_out0: "window/late_disable_late_scx03_wx10_2_dmg08_out3_cgb04c_out0.gbc";
    window_late_disable_late_scx03_wx11_1_dmg08_cgb04c_out0: "window/late_disable_late_scx03_wx11_1_dmg08_cgb04c_out0.gbc";
    window_late_disable_late_scx03_wx11_3_dmg08_cgb04c_out3: "window/late_disable_late_scx03_wx11_3_dmg08_cgb04c_out3.gbc";
    window_late_disable_late_scx03_wx12_2_dmg08_cgb04c_out3: "window/late_disable_late_scx03_wx12_2_dmg08_cgb04c_out3.gbc";
    window_late_disable_scx2_1_dmg08_out3_cgb04c_out0: "window/late_disable_scx2_1_dmg08_out3_cgb04c_out0.gbc";
    window_late_disable_scx3_0_dmg08_cgb04c_out0: "window/late_disable_scx3_0_dmg08_cgb04c_out0.gbc";
    window_late_disable_scx3_2_dmg08_cgb04c_out3: "window/late_disable_scx3_2_dmg08_cgb04c_out3.gbc";
    window_late_disable_scx5_1_dmg08_out3_cgb04c_out0: "window/late_disable_scx5_1_dmg08_out3_cgb04c_out0.gbc";
    window_late_disable_spx10_wx0f_1_dmg08_cgb04c_out0: "window/late_disable_spx10_wx0f_1_dmg08_cgb04c_out0.gbc";
    window_late_disable_wx0f_0_dmg08_cgb04c_out0: "window/late_disable_wx0f_0_dmg08_cgb04c_out0.gbc";
    window_late_disable_wx0f_2_dmg08_cgb04c_out3: "window/late_disable_wx0f_2_dmg08_cgb04c_out3.gbc";
    window_late_enable_aftervblank_2_dmg08_out3_cgb04c_out0: "window/late_enable_afterVblank_2_dmg08_out3_cgb04c_out0.gbc";
    window_late_reenable_1_dmg08_cgb04c_out3: "window/late_reenable_1_dmg08_cgb04c_out3.gbc";
    window_late_reenable_scx2_1_dmg08_cgb04c_out3: "window/late_reenable_scx2_1_dmg08_cgb04c_out3.gbc";
    window_late_reenable_scx2_3_dmg08_cgb04c_out0: "window/late_reenable_scx2_3_dmg08_cgb04c_out0.gbc";
    window_late_reenable_scx3_2_dmg08_out3_cgb04c_out0: "window/late_reenable_scx3_2_dmg08_out3_cgb04c_out0.gbc";
    window_late_reenable_scx5_1_dmg08_cgb04c_out3: "window/late_reenable_scx5_1_dmg08_cgb04c_out3.gbc";
    window_late_reenable_scx5_3_dmg08_cgb04c_out0: "window/late_reenable_scx5_3_dmg08_cgb04c_out0.gbc";
    window_late_reenable_wx0f_2_dmg08_cgb04c_out0: "window/late_reenable_wx0f_2_dmg08_cgb04c_out0.gbc";
    window_late_scx_late_disable_1_dmg08_out3_cgb04c_out0: "window/late_scx_late_disable_1_dmg08_out3_cgb04c_out0.gbc";
    window_late_wx_1_dmg08_cgb04c_out0: "window/late_wx_1_dmg08_cgb04c_out0.gbc";
    window_late_wx_ff_07_1_dmg08_cgb04c_out3: "window/late_wx_ff_07_1_dmg08_cgb04c_out3.gbc";
    window_late_wx_ff_0f_1_dmg08_cgb04c_out3: "window/late_wx_ff_0f_1_dmg08_cgb04c_out3.gbc";
    window_late_wx_scx2_1_dmg08_cgb04c_out0: "window/late_wx_scx2_1_dmg08_cgb04c_out0.gbc";
    window_late_wx_scx3_1_dmg08_cgb04c_out0: "window/late_wx_scx3_1_dmg08_cgb04c_out0.gbc";
    window_late_wx_scx3_3_dmg08_cgb04c_out3: "window/late_wx_scx3_3_dmg08_cgb04c_out3.gbc";
    window_late_wx_scx5_2_dmg08_cgb04c_out3: "window/late_wx_scx5_2_dmg08_cgb04c_out3.gbc";
    window_late_wx_wx03_2_dmg08_cgb04c_out3: "window/late_wx_wx03_2_dmg08_cgb04c_out3.gbc";
    window_late_wx_wx0f_2_dmg08_cgb04c_out3: "window/late_wx_wx0f_2_dmg08_cgb04c_out3.gbc";
    window_late_wy_2_dmg08_cgb04c_out3: "window/late_wy_2_dmg08_cgb04c_out3.gbc";
    window_m2int_wx00_m3stat_2_dmg08_cgb04c_out0: "window/m2int_wx00_m3stat_2_dmg08_cgb04c_out0.gbc";
    window_m2int_wx03_m3stat_2_dmg08_cgb04c_out0: "window/m2int_wx03_m3stat_2_dmg08_cgb04c_out0.gbc";
    window_m2int_wx03_scx2_m3stat_2_dmg08_cgb04c_out0: "window/m2int_wx03_scx2_m3stat_2_dmg08_cgb04c_out0.gbc";
    window_m2int_wx03_scx3_m3stat_2_dmg08_cgb04c_out0: "window/m2int_wx03_scx3_m3stat_2_dmg08_cgb04c_out0.gbc";
    window_m2int_wx03_scx5_m3stat_2_dmg08_cgb04c_out0: "window/m2int_wx03_scx5_m3stat_2_dmg08_cgb04c_out0.gbc";
    window_m2int_wx07_m3stat_2_dmg08_cgb04c_out0: "window/m2int_wx07_m3stat_2_dmg08_cgb04c_out0.gbc";
    window_m2int_wx07_scx2_m3stat_2_dmg08_cgb04c_out0: "window/m2int_wx07_scx2_m3stat_2_dmg08_cgb04c_out0.gbc";
    window_m2int_wx07_scx3_m3stat_2_dmg08_cgb04c_out0: "window/m2int_wx07_scx3_m3stat_2_dmg08_cgb04c_out0.gbc";
    window_m2int_wx07_scx5_m3stat_2_dmg08_cgb04c_out0: "window/m2int_wx07_scx5_m3stat_2_dmg08_cgb04c_out0.gbc";
    window_m2int_wx17_wxa5_m3stat_2_dmg08_cgb04c_out0: "window/m2int_wx17_wxA5_m3stat_2_dmg08_cgb04c_out0.gbc";
    window_m2int_wxa5_m0irq_2_dmg08_cgb04c_out2: "window/m2int_wxA5_m0irq_2_dmg08_cgb04c_out2.gbc";
    window_m2int_wxa5_m3stat_2_dmg08_cgb04c_out0: "window/m2int_wxA5_m3stat_2_dmg08_cgb04c_out0.gbc";
    window_m2int_wxa6_firstline_m3stat_2_dmg08_out0_cgb04c_out3: "window/m2int_wxA6_firstline_m3stat_2_dmg08_out0_cgb04c_out3.gbc";
    window_m2int_wxa6_m0irq2_1_dmg08_cgb04c_out0: "window/m2int_wxA6_m0irq2_1_dmg08_cgb04c_out0.gbc";
    window_m2int_wxa6_m0irq_1_dmg08_cgb04c_out0: "window/m2int_wxA6_m0irq_1_dmg08_cgb04c_out0.gbc";
    window_m2int_wxa6_m3stat_1_dmg08_cgb04c_out3: "window/m2int_wxA6_m3stat_1_dmg08_cgb04c_out3.gbc";
    window_m2int_wxa6_m3stat_3_dmg08_cgb04c_out0: "window/m2int_wxA6_m3stat_3_dmg08_cgb04c_out0.gbc";
    window_m2int_wxa6_oambusyread_2_dmg08_out5_cgb04c_out0: "window/m2int_wxA6_oambusyread_2_dmg08_out5_cgb04c_out0.gbc";
    window_m2int_wxa6_scx2_m3stat_1_dmg08_cgb04c_out3: "window/m2int_wxA6_scx2_m3stat_1_dmg08_cgb04c_out3.gbc";
    window_m2int_wxa6_scx2_m3stat_3_dmg08_out0_cgb04c_out3: "window/m2int_wxA6_scx2_m3stat_3_dmg08_out0_cgb04c_out3.gbc";
    window_m2int_wxa6_scx3_m3stat_1_dmg08_cgb04c_out3: "window/m2int_wxA6_scx3_m3stat_1_dmg08_cgb04c_out3.gbc";
    window_m2int_wxa6_scx3_m3stat_3_dmg08_out0_cgb04c_out3: "window/m2int_wxA6_scx3_m3stat_3_dmg08_out0_cgb04c_out3.gbc";
    window_m2int_wxa6_scx5_m3stat_1_dmg08_cgb04c_out3: "window/m2int_wxA6_scx5_m3stat_1_dmg08_cgb04c_out3.gbc";
    window_m2int_wxa6_scx5_m3stat_3_dmg08_cgb04c_out0: "window/m2int_wxA6_scx5_m3stat_3_dmg08_cgb04c_out0.gbc";
    window_m2int_wxa6_spxa7_m0irq_2_dmg08_cgb04c_out2: "window/m2int_wxA6_spxA7_m0irq_2_dmg08_cgb04c_out2.gbc";
    window_m2int_wxa6_spxa7_m3stat_2_dmg08_out0_cgb04c_out3: "window/m2int_wxA6_spxA7_m3stat_2_dmg08_out0_cgb04c_out3.gbc";
    window_m2int_wxa6_spxa7_m3stat_5_dmg08_cgb04c_out0: "window/m2int_wxA6_spxA7_m3stat_5_dmg08_cgb04c_out0.gbc";
    window_m2int_wxa6_vrambusyread_2_dmg08_out5_cgb04c_out0: "window/m2int_wxA6_vrambusyread_2_dmg08_out5_cgb04c_out0.gbc";
}
