//! Blargg's oam_bug ROMs (the DMG OAM corruption bug), one test per ROM;
//! verdict from the $A000 block (signature DE B0 61 at $A001, status at
//! $A000: 0 pass, 0x80 running; text at $A004).
mod common;

macro_rules! oam_bug {
    ($($(#[$attr:meta])* $name:ident: $path:expr, $frames:expr;)*) => {
        $( #[test] $(#[$attr])* fn $name() { common::run_blargg($path, $frames); } )*
    };
}

// Frame budgets: a few emulated seconds each (the combined ROM runs all
// eight), with margin.
oam_bug! {
    oam_bug_1_lcd_sync: "blargg/oam_bug/rom_singles/1-lcd_sync.gb", 600;
    oam_bug_2_causes: "blargg/oam_bug/rom_singles/2-causes.gb", 600;
    oam_bug_3_non_causes: "blargg/oam_bug/rom_singles/3-non_causes.gb", 600;
    oam_bug_4_scanline_timing: "blargg/oam_bug/rom_singles/4-scanline_timing.gb", 600;
    oam_bug_5_timing_bug: "blargg/oam_bug/rom_singles/5-timing_bug.gb", 600;
    oam_bug_6_timing_no_bug: "blargg/oam_bug/rom_singles/6-timing_no_bug.gb", 600;
    /// The same test code passes inside the combined ROM (`oam_bug_combined`
    /// reports "07:ok", i.e. the checksum of its printed results matches).
    #[ignore = "ROM defect: the single ROM's text log (~9.8 KB) overruns the 8 KB of cartridge RAM its header declares and overwrites its own code at $C000, so it restarts forever without a verdict; covered by oam_bug_combined"]
    oam_bug_7_timing_effect: "blargg/oam_bug/rom_singles/7-timing_effect.gb", 1200;
    oam_bug_8_instr_effect: "blargg/oam_bug/rom_singles/8-instr_effect.gb", 600;
    oam_bug_combined: "blargg/oam_bug/oam_bug.gb", 3000;
}

/// The OAM bug behaves identically on the fast path and on the slow
/// reference path: the combined ROM (every subtest, every corruption
/// pattern) run both ways, with registers, cycles, OAM and RAM compared at
/// every frame, and both passing.
#[test]
fn oam_bug_fast_and_reference_paths_agree() {
    let Some(rom) = common::load("blargg/oam_bug/oam_bug.gb") else {
        return;
    };
    let mut fast = emurust::GameBoy::new(&rom, None).expect("ROM loads");
    let mut slow = emurust::GameBoy::new(&rom, None).expect("ROM loads");
    slow.set_reference_mode(true);
    let mut verdict = None;
    for frame in 0..3000 {
        fast.run_frame(false);
        slow.run_frame(false);
        assert_eq!(
            (fast.registers(), fast.cycles()),
            (slow.registers(), slow.cycles()),
            "registers/cycles diverge at frame {frame}"
        );
        assert_eq!(
            *fast.hardware().ppu.oam(),
            *slow.hardware().ppu.oam(),
            "OAM diverges at frame {frame}"
        );
        assert!(fast.ram() == slow.ram(), "RAM diverges at frame {frame}");
        if frame % 10 == 0 {
            verdict = common::blargg_result(&fast);
            if verdict.is_some() {
                assert_eq!(verdict, common::blargg_result(&slow));
                break;
            }
        }
    }
    match verdict {
        Some((true, _)) => {}
        other => panic!("oam_bug.gb did not pass on both paths: {other:?}"),
    }
}
