//! Issue 41, "held to the reference": the compiled path (feature `jit`) on
//! programs of our own that aim at what blocks could get wrong, each run on
//! three machines as `tests/jit.rs` does: blocks, the fast interpreter
//! (`GameBoy::set_jit(false)`) and the reference path. After every frame the
//! whole save state of blocks and interpreter must be equal, and what the
//! reference path's tests compare (registers, clock, RAM, VRAM, OAM, I/O,
//! serial) equal to the reference's.
//!
//! The programs (sources and the ROMs assembled from them in `tests/data`;
//! `tests/test_jit_roms.py` checks that each ROM is its source's):
//!
//! * `jit_offsets.asm`: a timer interrupt arriving at every M-cycle offset of
//!   a straight block (a sweep, one M-cycle per iteration, from after the
//!   block to before it), a HALT at the end of a block woken at every offset
//!   with IME=1 and IME=0 (and the HALT bug), and an OAM DMA ending at every
//!   offset of a block, and one started from inside a block;
//! * `jit_smc.asm`: a routine in work RAM that rewrites its next
//!   instruction's operand and opcode, routines in work RAM patched every
//!   frame by the VBlank handler while called many times per frame, and an
//!   MBC5 bank switch in the middle of a straight run in bank 0 followed by
//!   reads of 0x4000-0x7FFF and a call into the newly mapped bank.
//!
//! Each test also checks that blocks were compiled where it needs them
//! (`GameBoy::jit_blocks_at`) and that its sweep happened (the records the
//! program keeps in work RAM).
//!
//! `tests/jit_events.rs` goes on with the other interrupt sources (VBlank,
//! STAT, serial, joypad), the CGB's speed switch and code in several
//! switchable banks.
#![cfg(feature = "jit")]

mod common;

use common::three_paths::{data, peek16};

use std::collections::{BTreeMap, BTreeSet};

use emurust::GameBoy;

/// Runs `name` for `frames` frames on blocks, the fast interpreter and the
/// reference path, comparing them after every frame; the machine on blocks.
fn agree(name: &str, frames: u64) -> GameBoy {
    common::three_paths::agree(name, &data(name), frames, |_, _| {})
}

/// One record of `jit_offsets.asm` (16 bytes at 0xC000 + 16 * i).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Record {
    /// C B E D L H F A, as pushed.
    regs: [u8; 8],
    /// The interrupted address (or `Record`'s return address). (Then DIV,
    /// TIMA and IF, compared with the rest of RAM.)
    pc: u16,
    k: u8,
    phase: u8,
}

// jit_offsets.asm's fixed addresses.
const BLOCK: u16 = 0x1000;
const HALT_BLOCK: u16 = 0x1100;
const DMA_BLOCK: u16 = 0x1200;
const DMA_MID: u16 = 0x1300;
const W_K: u16 = 0xDE00;
const W_REC: u16 = 0xDE01;
const W_DONE: u16 = 0xDE05;
const W_HITS: u16 = 0xDE06;
const REC_MAX: usize = 0x1E0;
// Its sweeps' lengths (K_TIMER, K_DMA).
const K_TIMER: usize = 100;
const K_DMA: usize = 96;

fn records(gb: &GameBoy) -> Vec<Record> {
    let n = (peek16(gb, W_REC) as usize).min(REC_MAX);
    (0..n)
        .map(|i| {
            let b: Vec<u8> = (0..16)
                .map(|j| gb.peek(0xC000 + 16 * i as u16 + j))
                .collect();
            Record {
                regs: b[..8].try_into().unwrap(),
                pc: b[8] as u16 | (b[9] as u16) << 8,
                k: b[13],
                phase: b[14],
            }
        })
        .collect()
}

#[test]
fn interrupts_halt_and_dma_at_every_offset_of_a_block() {
    let gb = agree("jit_offsets.gb", 24);
    assert_eq!(gb.peek(W_DONE), 1, "the program did not finish");
    assert_eq!(gb.serial_output(), b"OK\n");
    // (a) The blocks the sweeps aim at were compiled (and so ran whenever
    // the engine admitted them).
    for (addr, what) in [
        (BLOCK, "Block"),
        (HALT_BLOCK, "HaltBlock"),
        (DMA_BLOCK, "DmaBlock"),
    ] {
        assert_eq!(
            gb.jit_blocks_at(addr),
            1,
            "{what} ({addr:#06x}) not compiled"
        );
    }
    // DmaMid runs inside the function compiled at its call (a constant
    // call stays in the caller's region, `jit::compile::region`).
    let rom = data("jit_offsets.gb");
    let call = [0xCD, DMA_MID as u8, (DMA_MID >> 8) as u8];
    let site = rom[..0x1000]
        .windows(3)
        .position(|w| w == call)
        .expect("the call of DmaMid") as u16;
    assert_eq!(
        gb.jit_blocks_at(site),
        1,
        "DmaMid's call ({site:#06x}) not compiled"
    );
    // (b) The sweeps happened.
    let recs = records(&gb);
    let hits = peek16(&gb, W_HITS) as usize;
    assert_eq!(hits, peek16(&gb, W_REC) as usize);
    assert!(hits <= REC_MAX, "{hits} records: some were not kept");
    assert_eq!(gb.peek(W_K) as usize, K_DMA);
    let mut by_phase: BTreeMap<u8, Vec<Record>> = BTreeMap::new();
    for r in &recs {
        by_phase.entry(r.phase).or_default().push(*r);
    }
    let ks = |p: u8| {
        by_phase[&p]
            .iter()
            .map(|r| r.k)
            .collect::<BTreeSet<_>>()
            .len()
    };
    let pcs_in = |p: u8, lo: u16, hi: u16| {
        by_phase[&p]
            .iter()
            .filter(|r| (lo..hi).contains(&r.pc))
            .map(|r| r.pc)
            .collect::<BTreeSet<_>>()
    };
    // Phase 1: one interrupt per k, at every instruction boundary of Block
    // and its subroutine (30 instructions from 0x1000 to 0x102B), and
    // before and after it.
    assert_eq!(by_phase[&1].len(), K_TIMER);
    assert_eq!(ks(1), K_TIMER);
    let inside = pcs_in(1, BLOCK, BLOCK + 0x30);
    assert!(inside.len() >= 30, "phase 1 hit Block at {inside:x?}");
    assert!(
        by_phase[&1].iter().any(|r| r.pc < BLOCK),
        "none after Block"
    );
    assert!(
        by_phase[&1].iter().any(|r| r.pc >= 0x3000),
        "none before Block"
    );
    // Phase 2 (IME=1): the interrupt at every boundary of HaltBlock, and
    // waking its HALT (the return address after it).
    assert_eq!(ks(2), K_TIMER);
    let inside = pcs_in(2, HALT_BLOCK, HALT_BLOCK + 0x1A);
    assert!(inside.len() >= 17, "phase 2 hit HaltBlock at {inside:x?}");
    let halt_end = HALT_BLOCK + 0x1A;
    assert!(
        by_phase[&2].iter().filter(|r| r.pc == halt_end).count() >= K_TIMER / 2,
        "phase 2: few HALTs woken"
    );
    // Phase 3 (IME=0): HALT left with and without the bug (INC B twice).
    assert_eq!(ks(3), K_TIMER);
    let b_after: BTreeSet<u8> = by_phase[&3].iter().map(|r| r.regs[1]).collect();
    assert_eq!(b_after.len(), 2, "phase 3: B after HaltBlock: {b_after:?}");
    // Phase 4: a record per k. The registers sum what the OAM reads of
    // DmaBlock (eight) and DmaMid got ($FF under the DMA): the DMA's end
    // moving across a block changes them at each read.
    assert_eq!(by_phase[&4].len(), K_DMA);
    assert_eq!(ks(4), K_DMA);
    let sums: BTreeSet<[u8; 8]> = by_phase[&4].iter().map(|r| r.regs).collect();
    assert!(sums.len() >= 8, "phase 4: {} distinct sums", sums.len());
}

// jit_smc.asm's fixed addresses.
const W_CALLS: u16 = 0xD000;
const W_BANK_CALLS: u16 = 0xD002;
const W_LOG: u16 = 0xD009;
const WSMC: u16 = 0xC000;
const WFRAME_A: u16 = 0xC100;
const WFRAME_B: u16 = 0xC200;
const BANK_BLOCK: u16 = 0x1000;
const BANK_ROUTINE: u16 = 0x1100;
const H_FRAME: u16 = 0xFF80;

#[test]
fn code_rewritten_in_work_ram_and_bank_switches_inside_blocks() {
    let frames = 200;
    let gb = agree("jit_smc.gb", frames);
    // (a) Compiled: the bank-0 run that switches banks; BankRoutine at its
    // own address (entered through JP HL: a block the run engine enters,
    // and so one that blocks could wrongly chain into at 0x5100, where the
    // interpreter must run it); and versions of the code in work RAM:
    // WFrameA's eight (its operand and opcode patched every frame) and more
    // than one of the self-modifying routine's.
    assert_eq!(gb.jit_blocks_at(BANK_BLOCK), 1, "BankBlock not compiled");
    assert_eq!(
        gb.jit_blocks_at(BANK_ROUTINE),
        1,
        "BankRoutine not compiled"
    );
    let versions_a = gb.jit_blocks_at(WFRAME_A);
    assert!(versions_a >= 8, "WFrameA: {versions_a} versions compiled");
    assert!(gb.jit_blocks_at(WFRAME_B) >= 2, "WFrameB");
    assert!(gb.jit_blocks_at(WSMC) >= 2, "WSmc");
    // (b) What ran: every frame patched WFrameB's operand (the frame
    // counter), the main loop ran many times per frame, and BankRoutine
    // ran once per iteration at 0x1100 and every other iteration at 0x5100
    // (bank 0 mapped there; bank 1 there is a RET).
    let frame = gb.peek(H_FRAME);
    assert!(frame as u64 >= frames - 2, "frame counter {frame}");
    assert_eq!(gb.peek(WFRAME_B + 1), frame, "WFrameB not patched");
    let calls = peek16(&gb, W_CALLS) as u64;
    let bank_calls = peek16(&gb, W_BANK_CALLS) as u64;
    assert!(calls > 50 * frames, "{calls} iterations");
    assert!(
        bank_calls.abs_diff(calls + calls / 2) <= 2,
        "BankRoutine ran {bank_calls} times in {calls} iterations"
    );
    // The per-frame log: 64 entries, all different.
    let log: BTreeSet<Vec<u8>> = (0..64)
        .map(|i| (0..8).map(|j| gb.peek(W_LOG + 8 * i + j)).collect())
        .collect();
    assert_eq!(log.len(), 64);
}
