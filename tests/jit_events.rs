//! Issue 41, "held to the reference", continued from `tests/jit_targeted.rs`
//! (same harness, `common::three_paths`: compiled blocks, the fast
//! interpreter and the reference path, compared after every frame): events
//! of every other kind arriving across compiled blocks.
//!
//! The programs (sources and the ROMs assembled from them in `tests/data`;
//! `tests/test_jit_roms.py` checks that each ROM is its source's):
//!
//! * `jit_irqs.asm`: the VBlank, STAT (LYC=LY and mode 0), serial and joypad
//!   interrupts each arriving at every M-cycle offset of a straight block
//!   (a sweep, one M-cycle per iteration, from after the block to before
//!   it; the joypad's through the input callback between frames);
//! * `jit_speed.asm` (CGB): speed switches (KEY1, STOP) right after the
//!   block at offsets around a timer overflow and around the VBlank, then
//!   the timer interrupt at every offset of the block in double speed and
//!   back in single speed.
//!
//! Each test checks that blocks were compiled where it needs them
//! (`GameBoy::jit_blocks_at`) and that its sweep covered every instruction
//! boundary of the block (the records the program keeps in work RAM).
#![cfg(feature = "jit")]

mod common;

use std::collections::{BTreeMap, BTreeSet};

use emurust::{Button, GameBoy, Model};

fn data(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn peek16(gb: &GameBoy, addr: u16) -> u16 {
    gb.peek(addr) as u16 | (gb.peek(addr + 1) as u16) << 8
}

/// The addresses where the instructions from `start` up to `end` start
/// (checked to end exactly at `end`).
fn instruction_starts(rom: &[u8], start: u16, end: u16) -> BTreeSet<u16> {
    let mut out = BTreeSet::new();
    let mut pc = start;
    while pc < end {
        out.insert(pc);
        pc += emurust::cpu::instruction_length(rom[pc as usize]) as u16;
    }
    assert_eq!(pc, end, "the block's last instruction runs past {end:#06x}");
    out
}

/// Addresses in `code` where `call target` is.
fn calls_of(code: &[u8], target: u16) -> Vec<u16> {
    let call = [0xCD, target as u8, (target >> 8) as u8];
    code.windows(3)
        .enumerate()
        .filter(|(_, w)| *w == call)
        .map(|(i, _)| i as u16)
        .collect()
}

/// One record of `jit_irqs.asm` or `jit_speed.asm` (8 bytes at
/// 0xC000 + 8 * i): per interrupt the interrupted address, k, the phase and
/// four bytes the phase chooses.
#[derive(Debug, Clone, Copy)]
struct Record {
    /// The interrupted address (or, for a speed switch, KEY1 and STAT).
    pc: u16,
    k: u8,
    phase: u8,
    more: [u8; 4],
}

// jit_irqs.asm's and jit_speed.asm's fixed addresses.
const BLOCK: u16 = 0x1000;
const BLOCK_END: u16 = 0x1027;
const SLED: u16 = 0x3000;
const W_K: u16 = 0xD000;
const W_REC: u16 = 0xD001;
const W_DONE: u16 = 0xD005;
const REC_MAX: usize = 0x200;

fn records(gb: &GameBoy) -> BTreeMap<u8, Vec<Record>> {
    let n = peek16(gb, W_REC) as usize;
    assert!(n <= REC_MAX, "{n} records: some were not kept");
    let mut by_phase: BTreeMap<u8, Vec<Record>> = BTreeMap::new();
    for i in 0..n {
        let a = 0xC000 + 8 * i as u16;
        let r = Record {
            pc: peek16(gb, a),
            k: gb.peek(a + 2),
            phase: gb.peek(a + 3),
            more: [gb.peek(a + 4), gb.peek(a + 5), gb.peek(a + 6), gb.peek(a + 7)],
        };
        by_phase.entry(r.phase).or_default().push(r);
    }
    by_phase
}

/// A sweep's records: one interrupt per iteration (`k` 0..`iterations`),
/// at every instruction boundary of the block, and before (in the sled)
/// and after it.
fn check_sweep(what: &str, rs: &[Record], iterations: usize, boundaries: &BTreeSet<u16>) {
    assert_eq!(rs.len(), iterations, "{what}: interrupts");
    let ks: BTreeSet<u8> = rs.iter().map(|r| r.k).collect();
    assert_eq!(ks.len(), iterations, "{what}: iterations with an interrupt");
    let in_block = |pc: &u16| (BLOCK..BLOCK_END).contains(pc);
    let inside: BTreeSet<u16> = rs.iter().map(|r| r.pc).filter(in_block).collect();
    assert_eq!(
        &inside,
        boundaries,
        "{what}: the boundaries hit: {:x?}",
        rs.iter().map(|r| (r.k, r.pc)).collect::<Vec<_>>()
    );
    let pcs = || rs.iter().map(|r| (r.k, r.pc)).collect::<Vec<_>>();
    assert!(
        rs.iter().any(|r| r.pc >= SLED),
        "{what}: none before Block: {:x?}",
        pcs()
    );
    assert!(
        rs.iter().any(|r| !in_block(&r.pc) && r.pc < SLED),
        "{what}: none after Block: {:x?}",
        pcs()
    );
}

/// The checks both programs share: it finished, Block and each call of it
/// were compiled (the engine enters the call after the sled's RET; the
/// block runs in that function, a constant call staying in the caller's
/// region), and the instruction boundaries of Block.
fn finished_and_compiled(gb: &GameBoy, rom: &[u8], calls: usize) -> BTreeSet<u16> {
    assert_eq!(gb.peek(W_DONE), 1, "the program did not finish");
    assert!(gb.serial_output().ends_with(b"OK\n"));
    assert_eq!(gb.jit_blocks_at(BLOCK), 1, "Block not compiled");
    let sites = calls_of(&rom[..0x1000], BLOCK);
    assert_eq!(sites.len(), calls, "calls of Block: {sites:x?}");
    // (The first is the warm-up's, inside its loop's function.)
    for &site in &sites[1..] {
        assert_eq!(gb.jit_blocks_at(site), 1, "call at {site:#06x} not compiled");
    }
    instruction_starts(rom, BLOCK, BLOCK_END)
}

#[test]
fn vblank_stat_serial_and_joypad_interrupts_at_every_offset_of_a_block() {
    const K: usize = 100;
    let name = "jit_irqs.gb";
    let rom = data(name);
    // A press before every frame: a joypad interrupt request where each
    // frame ends (taken only in phase 5, the only one that enables it).
    let gb = common::three_paths::agree(name, &rom, 450, |_, gb| {
        gb.set_buttons(0);
        gb.set_buttons(1 << Button::A as u8);
    });
    // (The warm-up's call, and one per sweep loop.)
    let boundaries = finished_and_compiled(&gb, &rom, 3);
    assert_eq!(gb.peek(W_K) as usize, K);
    let by_phase = records(&gb);
    for (phase, what) in [
        (1, "VBlank"),
        (2, "STAT LYC"),
        (3, "STAT mode 0"),
        (4, "serial"),
        (5, "joypad"),
    ] {
        check_sweep(what, &by_phase[&phase], K, &boundaries);
    }
    assert_eq!(by_phase.len(), 5);
}

#[test]
fn speed_switches_around_blocks_and_timer_interrupts_in_both_speeds() {
    const K_TIMER: usize = 100;
    const K_SWITCH: usize = 80;
    let name = "jit_speed.gb";
    let rom = data(name);
    assert_eq!(Model::auto(&rom), Model::Cgb);
    let gb = common::three_paths::agree(name, &rom, 130, |_, _| {});
    // (The warm-up's call, phase 2's and the timer sweeps'.)
    let boundaries = finished_and_compiled(&gb, &rom, 3);
    let by_phase = records(&gb);
    assert_eq!(by_phase.len(), 5);
    // Phases 1, 4, 5: the timer interrupt across Block in single, double,
    // single speed (KEY1 bit 7, read by the handler).
    for (phase, what, key1) in [
        (1, "single speed", 0x7E),
        (4, "double speed", 0xFE),
        (5, "single speed again", 0x7E),
    ] {
        let rs = &by_phase[&phase];
        check_sweep(what, rs, K_TIMER, &boundaries);
        let speeds: BTreeSet<u8> = rs.iter().map(|r| r.more[3]).collect();
        assert_eq!(speeds, BTreeSet::from([key1]), "{what}: KEY1");
    }
    // Phases 2, 3: a switch per iteration (KEY1 after it: double speed
    // after even k, single after odd), with the timer overflow (IF bit 2)
    // or the VBlank (IF bit 0) before the STOP in some iterations (IF read
    // just before it) and after it in others. (What DIV, TIMA and LY read
    // after the switch is compared on the three machines, with the rest of
    // RAM.)
    for (phase, what, irq) in [(2, "after Block", 0x04), (3, "near VBlank", 0x01)] {
        let rs = &by_phase[&phase];
        assert_eq!(rs.len(), K_SWITCH, "{what}: switches");
        for r in rs {
            let double = r.pc & 0x80 != 0;
            assert_eq!(double, r.k % 2 == 0, "{what}: speed after k = {}", r.k);
        }
        let ifs: BTreeSet<bool> = rs.iter().map(|r| r.more[3] & irq != 0).collect();
        assert_eq!(ifs.len(), 2, "{what}: IF {irq:#04x} before the switch");
    }
}
