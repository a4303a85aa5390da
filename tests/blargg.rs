//! Blargg's test ROMs, one test per ROM (verdict from serial text or $A000).
mod common;

macro_rules! blargg {
    ($($(#[$attr:meta])* $name:ident: $path:expr, $frames:expr;)*) => {
        $( #[test] $(#[$attr])* fn $name() { common::run_blargg($path, $frames); } )*
    };
}

// Frame budgets: emulated seconds from the suites' HOWTO x 60, plus margin.
blargg! {
    cpu_instrs: "blargg/cpu_instrs/cpu_instrs.gb", 6000;
    cpu_instrs_01_special: "blargg/cpu_instrs/individual/01-special.gb", 1500;
    cpu_instrs_02_interrupts: "blargg/cpu_instrs/individual/02-interrupts.gb", 1500;
    cpu_instrs_03_op_sp_hl: "blargg/cpu_instrs/individual/03-op sp,hl.gb", 1500;
    cpu_instrs_04_op_r_imm: "blargg/cpu_instrs/individual/04-op r,imm.gb", 1500;
    cpu_instrs_05_op_rp: "blargg/cpu_instrs/individual/05-op rp.gb", 1500;
    cpu_instrs_06_ld_r_r: "blargg/cpu_instrs/individual/06-ld r,r.gb", 1500;
    cpu_instrs_07_jr_jp_call_ret_rst: "blargg/cpu_instrs/individual/07-jr,jp,call,ret,rst.gb", 1500;
    cpu_instrs_08_misc_instrs: "blargg/cpu_instrs/individual/08-misc instrs.gb", 1500;
    cpu_instrs_09_op_r_r: "blargg/cpu_instrs/individual/09-op r,r.gb", 3000;
    cpu_instrs_10_bit_ops: "blargg/cpu_instrs/individual/10-bit ops.gb", 3000;
    cpu_instrs_11_op_a_hl: "blargg/cpu_instrs/individual/11-op a,(hl).gb", 3000;
    instr_timing: "blargg/instr_timing/instr_timing.gb", 300;
    mem_timing: "blargg/mem_timing/mem_timing.gb", 400;
    mem_timing_01_read_timing: "blargg/mem_timing/individual/01-read_timing.gb", 300;
    mem_timing_02_write_timing: "blargg/mem_timing/individual/02-write_timing.gb", 300;
    mem_timing_03_modify_timing: "blargg/mem_timing/individual/03-modify_timing.gb", 300;
    mem_timing_2: "blargg/mem_timing-2/mem_timing.gb", 500;
    mem_timing_2_01_read_timing: "blargg/mem_timing-2/rom_singles/01-read_timing.gb", 400;
    mem_timing_2_02_write_timing: "blargg/mem_timing-2/rom_singles/02-write_timing.gb", 400;
    mem_timing_2_03_modify_timing: "blargg/mem_timing-2/rom_singles/03-modify_timing.gb", 400;
    halt_bug: "blargg/halt_bug.gb", 300;
}

/// interrupt_time is a CGB test (it measures double-speed mode). On a DMG it
/// fails by design; real DMG hardware prints checksum 7F8F4AAF (c-sp's
/// HOWTO, DMG-C). We assert that we reproduce the DMG's output exactly.
#[test]
fn interrupt_time_matches_dmg_hardware() {
    let Some(rom) = common::load("blargg/interrupt_time/interrupt_time.gb") else {
        return;
    };
    let mut gb = emurust::GameBoy::new(&rom, None).unwrap();
    match common::run_blargg_gb(&mut gb, 600) {
        Ok(text) => panic!("interrupt_time unexpectedly passed on DMG: {text}"),
        Err(text) => assert!(
            text.contains("7F8F4AAF"),
            "expected the DMG hardware checksum 7F8F4AAF, got {text:?}"
        ),
    }
}
