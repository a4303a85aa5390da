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
//!   back in single speed;
//! * `jit_banks.asm` (MBC5, four banks, assembled with ROMX sections): the
//!   same addresses holding different code in banks 1-3, called from bank
//!   0, jumped into after a bank switch inside a block in bank 0, and
//!   switching banks themselves (to their own bank and to another, whose
//!   code at the next address runs and returns through bank 0), under
//!   timer interrupts.
//!
//! Each test checks that blocks were compiled where it needs them
//! (`GameBoy::jit_blocks_at`) and that its sweep covered every instruction
//! boundary of the block (the records the program keeps in work RAM).
#![cfg(feature = "jit")]

mod common;

use common::three_paths::{data, peek16};

use std::collections::{BTreeMap, BTreeSet};

use emurust::{Button, GameBoy, Model};

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
            more: std::array::from_fn(|j| gb.peek(a + 4 + j as u16)),
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
        assert_eq!(
            gb.jit_blocks_at(site),
            1,
            "call at {site:#06x} not compiled"
        );
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

// jit_banks.asm's fixed addresses.
const BANK_BLOCK: u16 = 0x1000;
const ENTRY: u16 = 0x4010;
const CALLEE: u16 = 0x4100;
const SWITCHER: u16 = 0x4200;
const CONT: u16 = 0x4211;
const B_ITER: u16 = 0xD000;
const B_IRQS: u16 = 0xD002;
const B_IRQ_ROMX: u16 = 0xD004;
const B_CALLEE: u16 = 0xD00A;
const B_ENTRY: u16 = 0xD00E;
const B_CONT: u16 = 0xD012;
const B_IRQ_BANKS: u16 = 0xD016;

#[test]
fn code_in_switchable_banks_called_jumped_into_and_switching_banks() {
    let name = "jit_banks.gb";
    let rom = data(name);
    assert_eq!(rom.len(), 4 * 0x4000);
    let frames = 60;
    let mut gb = common::three_paths::agree(name, &rom, frames, |_, _| {});
    // (a) What ran: every iteration called Callee in banks 1-3, BankBlock's
    // Entry and the Switcher's continuation in one bank each (1, 2, 3 in
    // turn); the 8-bit counters against the iterations (one may be under
    // way), and the timer interrupts, some of code in banks 1-3 and some
    // with each bank mapped.
    let iter = peek16(&gb, B_ITER) as u64;
    assert!(iter > 20 * frames, "{iter} iterations");
    let near = |what: &str, n: u16, got: u8, want: u64| {
        let d = got.wrapping_sub(want as u8) as i8;
        assert!(
            (0..=1).contains(&d),
            "{what} in bank {n}: {got} runs, {want} expected (mod 256)"
        );
    };
    for n in 1..=3u16 {
        near("Callee", n, gb.peek(B_CALLEE + n), iter);
        // Entry in bank n: iterations i with i % 3 == n - 1; Cont in bank
        // n: i % 3 == n % 3 (the bank after Switcher's).
        let count = |r: u64| (iter + 2 - r) / 3;
        near("Entry", n, gb.peek(B_ENTRY + n), count(n as u64 - 1));
        near("Cont", n, gb.peek(B_CONT + n), count(n as u64 % 3));
        assert!(gb.peek(B_IRQ_BANKS + n) > 0, "no interrupt with bank {n}");
    }
    assert!(peek16(&gb, B_IRQS) as u64 > 10 * frames, "timer interrupts");
    assert!(peek16(&gb, B_IRQ_ROMX) > 0, "no interrupt of banked code");
    // (b) Compiled: BankBlock in bank 0, and in each of banks 1-3 (mapped
    // here through the MBC) its own Entry, Callee, Switcher and Cont, at
    // the same addresses.
    assert_eq!(gb.jit_blocks_at(BANK_BLOCK), 1, "BankBlock not compiled");
    for n in 1..=3u8 {
        gb.poke(0x2000, n);
        assert_eq!(gb.peek(0x4000), n, "bank {n} not mapped");
        for (addr, what) in [
            (ENTRY, "Entry"),
            (CALLEE, "Callee"),
            (SWITCHER, "Switcher"),
            (CONT, "Cont"),
        ] {
            assert_eq!(
                gb.jit_blocks_at(addr),
                1,
                "{what} ({addr:#06x}) in bank {n} not compiled"
            );
        }
    }
}
