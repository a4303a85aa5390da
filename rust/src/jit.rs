//! Issue 41 (feature `jit`): the code the run engine runs, compiled to host
//! code with Cranelift once per ROM and shared by every machine that runs
//! it.
//!
//! **Units.** A function is compiled from a *region*: the straight run of
//! `cpu/run_table.rs` starting at the entry (cut where the compiler
//! declines an instruction: STOP, HALT, DI, EI, RETI, the undefined
//! opcodes, which the interpreter runs), and the runs its constant jumps,
//! calls and restarts reach in the same bank, up to 8 runs
//! (`compile::region`). A jump between two runs of the region stays in the
//! function after the check the engine makes between runs (the next run's
//! last instruction starts before the horizon); any other leaves it. Each
//! run's length in M-cycles before its last instruction is known when
//! compiled, so no event can fall inside a run, and runs have no clock
//! check inside.
//!
//! **Entries.** A function can be entered at any of its region's runs (its
//! second argument, the entry index, picks the run: [`Block::index`]).
//! When the engine first wants a block at a ROM run that an earlier region
//! compiled besides its own entry, the block enters that function there
//! instead of compiling the run (and its own region) again, so each
//! instruction is compiled about once (before: 2-4.6 times, bench/README).
//! `EMURUST_JIT_SHARE=0` compiles them again, for measurements.
//!
//! **Background compiles.** Where the process may use a second core, hot
//! ROM code is compiled on a thread of its own (one per ROM, started on
//! first use, ended with the code): the slot is marked queued and the
//! interpreter runs the code until the block is there, so no machine waits
//! for Cranelift (the emulation is the same either way: both paths agree).
//! On one core, with `EMURUST_JIT_BACKGROUND=0` or
//! [`JitCode::set_background`]`(false)`, and for code in work RAM (whose
//! bytes belong to one machine), the thread that wants the block compiles
//! it. A process forked from the one that made the code (Python's
//! multiprocessing) compiles nothing more with it: the thread and a
//! compile in progress do not come along.
//!
//! **Chaining.** A function that leaves to a PC in ROM looks the next
//! function up in the slot table itself and returns it (`run_block` calls
//! it) when the engine would have run it too: compiled already, not a poll
//! or idle loop's start (whose turns the engine skips), admitted before
//! the horizon, in a bank mapped where it usually is ([`Chain`]). A
//! function that called back and was told the run ends never chains.
//!
//! **Code in work RAM** (Blargg's tests run there) is compiled the same
//! way, keyed by address, and each function keeps the bytes it was compiled
//! from: the engine runs it only while work RAM still holds them
//! ([`JitCode::wram_block`]; up to 8 versions per address, at most
//! [`WRAM_TRIES`] compiles per address, then the interpreter). A write into
//! the function's own code ends it after the instruction; a run whose code
//! was seen to change is kept out of other regions.
//!
//! [`JitCtx`] holds the registers and the clock; reads and writes the
//! compiler classifies at compile time or with a range check at run time
//! as work RAM (and its echo) or HRAM go straight to the RAM block through
//! a raw pointer (0xD000-0xDFFF through a second one, `JitCtx::wram_hi`,
//! which points at a CGB's bank 2-7 while one is mapped), and reads of ROM
//! straight to the 16 KiB banks mapped at 0x0000 and 0x4000
//! (`JitCtx::rom`); the host re-points them after every write it makes
//! ([`Maps`]: an MBC or SVBK write switches them). A CGB in CGB mode gives
//! the block its work RAM banks (`JitCtx::wram_banks`): an SVBK write to a
//! constant address then re-points `wram_hi` in the block itself and
//! leaves the value in `JitCtx::svbk`, which the host takes before its next
//! access (`sync_svbk`, in every callback and at the end of
//! [`run_block`]). Every other access
//! (VRAM, OAM, I/O, cartridge RAM and MBC writes, the OAM bug's IDU
//! cycles, ROM while a boot ROM is mapped) calls back into the bus
//! ([`JitHost`]) with the clock of its M-cycle, so I/O timing is the
//! interpreter's. When a callback ends the run (a slow write, a read that
//! raised an interrupt request: `Bus::slow`), the function returns after
//! the instruction, as the interpreter's run does.
//!
//! Flags are four SSA values (Z, N, H, C); F is built only at the exit, so
//! Cranelift drops every flag computation that no later instruction or the
//! exit reads. All exits share one exit block.
//!
//! The code lives in [`JitCode`], one per ROM inside `Code` (an `Arc`
//! shared by machines and threads): one atomic slot per ROM byte and per
//! work-RAM address, filled lazily with the function's [`Block`] or a
//! "declined" or "queued" mark. The hot path is one atomic load (and, for work RAM,
//! the byte check); compiling takes a mutex around the Cranelift module.
//! Blocks are never freed before the `JitCode`.
//!
//! This is the only module besides the NumPy buffers where `unsafe` is
//! allowed: each block says why it is sound.
#![allow(unsafe_code)]

mod compile;
#[cfg(all(test, unix))]
mod fork_test;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use cranelift_jit::JITModule;

/// What a compiled block reads and writes: the CPU's registers, the clock,
/// the RAM block and the callbacks of its host. The layout is the
/// compiler's (`compile.rs` addresses the fields by offset).
#[repr(C)]
#[derive(Debug)]
pub struct JitCtx {
    /// A, F, B, C, D, E, H, L.
    pub regs: [u8; 8],
    pub sp: u16,
    pub pc: u16,
    _pad: u32,
    /// The clock (T-cycles): the block's start on entry, its end on exit;
    /// around a callback, the access's M-cycle end (the bus's `now` after
    /// the tick), written back by the callback (an access may move it).
    pub now: u64,
    /// The RAM block (`bus::Ram`: work RAM at 0, HRAM at 0x2000); reloaded
    /// by the block after every callback.
    ram: *mut u8,
    /// The host (`&mut H` as a raw pointer).
    host: *mut u8,
    read: extern "C" fn(*mut JitCtx, u32, u32) -> u32,
    write: extern "C" fn(*mut JitCtx, u32, u32) -> u32,
    idu: extern "C" fn(*mut JitCtx, u32) -> u32,
    /// Chaining (see [`Chain`]): a block goes on into the next one when
    /// that one's admission (`now + Block::admit_t`) is below `horizon`.
    horizon: u64,
    /// The ROM's slot table and its length.
    slots: *const AtomicUsize,
    slots_len: u64,
    /// The ROM offsets of the banks mapped at 0x0000 and 0x4000, or
    /// [`NO_CHAIN`] where the chained runs do not go (`Chain`).
    rom0: u64,
    romx: u64,
    /// Work RAM at 0xD000-0xDFFF: the address that work-RAM offsets
    /// 0x1000-0x1FFF are added to (the RAM block's start, where bank 1
    /// lives, or a CGB's bank 2-7 less 0x1000). Reloaded after writes.
    wram_hi: *mut u8,
    /// The ROM banks mapped at 0x0000 and 0x4000 (16 KiB each), or null
    /// where reads there go through the host. Reloaded after writes.
    rom: [*const u8; 2],
    /// How much of work RAM (from 0xC000) the RAM block holds: all of it
    /// (0x2000), or 0x1000 while `wram_hi` points elsewhere.
    wram_len: u32,
    _pad2: u32,
    /// A CGB's eight work RAM banks of 4 KiB (bank 1's slot unused: the RAM
    /// block holds it) while SVBK selects among them (CGB mode), else null:
    /// then the block writes SVBK through the host.
    wram_banks: *mut u8,
    /// An SVBK value (0-7) the block wrote itself, not yet given to the
    /// host, or [`NO_SVBK`]: the callbacks and [`run_block`] give it to the
    /// host (`JitHost::set_svbk`) before anything else.
    svbk: u8,
    _pad3: [u8; 7],
}

/// `JitCtx::svbk` with no SVBK write pending.
pub const NO_SVBK: u8 = 0xFF;

/// Field offsets of [`JitCtx`] (checked against the struct below).
pub(crate) mod off {
    pub const REGS: i32 = 0;
    pub const SP: i32 = 8;
    pub const PC: i32 = 10;
    pub const NOW: i32 = 16;
    pub const RAM: i32 = 24;
    pub const READ: i32 = 40;
    pub const WRITE: i32 = 48;
    pub const IDU: i32 = 56;
    pub const HORIZON: i32 = 64;
    pub const SLOTS: i32 = 72;
    pub const SLOTS_LEN: i32 = 80;
    pub const ROM0: i32 = 88;
    pub const ROMX: i32 = 96;
    pub const WRAM_HI: i32 = 104;
    pub const ROM: i32 = 112;
    pub const WRAM_LEN: i32 = 128;
    pub const WRAM_BANKS: i32 = 136;
    pub const SVBK: i32 = 144;
    /// In [`super::Block`]: its admission in T-cycles.
    pub const BLOCK_ADMIT_T: i32 = 8;
}

const _: () = {
    assert!(std::mem::offset_of!(JitCtx, regs) == off::REGS as usize);
    assert!(std::mem::offset_of!(JitCtx, sp) == off::SP as usize);
    assert!(std::mem::offset_of!(JitCtx, pc) == off::PC as usize);
    assert!(std::mem::offset_of!(JitCtx, now) == off::NOW as usize);
    assert!(std::mem::offset_of!(JitCtx, ram) == off::RAM as usize);
    assert!(std::mem::offset_of!(JitCtx, read) == off::READ as usize);
    assert!(std::mem::offset_of!(JitCtx, write) == off::WRITE as usize);
    assert!(std::mem::offset_of!(JitCtx, idu) == off::IDU as usize);
    assert!(std::mem::offset_of!(JitCtx, horizon) == off::HORIZON as usize);
    assert!(std::mem::offset_of!(JitCtx, slots) == off::SLOTS as usize);
    assert!(std::mem::offset_of!(JitCtx, slots_len) == off::SLOTS_LEN as usize);
    assert!(std::mem::offset_of!(JitCtx, rom0) == off::ROM0 as usize);
    assert!(std::mem::offset_of!(JitCtx, romx) == off::ROMX as usize);
    assert!(std::mem::offset_of!(JitCtx, wram_hi) == off::WRAM_HI as usize);
    assert!(std::mem::offset_of!(JitCtx, rom) == off::ROM as usize);
    assert!(std::mem::offset_of!(JitCtx, wram_len) == off::WRAM_LEN as usize);
    assert!(std::mem::offset_of!(JitCtx, wram_banks) == off::WRAM_BANKS as usize);
    assert!(std::mem::offset_of!(JitCtx, svbk) == off::SVBK as usize);
    assert!(std::mem::offset_of!(Block, admit_t) == off::BLOCK_ADMIT_T as usize);
};

/// A bank offset that no slot has: chaining into that half of the address
/// space stops.
pub const NO_CHAIN: u64 = 1 << 48;

/// The RAM block's size the compiled code assumes (work RAM, then HRAM).
pub const RAM_LEN: usize = 0x2000 + 0x7F;

/// What a compiled block reads and writes directly (everything else goes
/// through its host).
#[derive(Debug)]
pub struct Maps<'a> {
    /// The RAM block (work RAM at 0, HRAM at 0x2000), [`RAM_LEN`] bytes.
    pub ram: &'a mut [u8],
    /// A CGB's eight 4 KiB work RAM banks while SVBK maps them (CGB mode;
    /// bank 1's slot unused), with the bank mapped at 0xD000 (1-7; 1: the
    /// RAM block's); `None` on a machine without them (all of work RAM in
    /// the RAM block, SVBK writes through the host).
    pub wram_banks: Option<(&'a mut [u8; 0x8000], usize)>,
    /// The ROM banks mapped at 0x0000 and 0x4000, where each is a whole
    /// bank of the ROM (reads there have no side effect); `None` sends the
    /// reads through the host (a boot ROM mapped, a bank past the ROM's
    /// end).
    pub rom: [Option<&'a [u8; 0x4000]>; 2],
}

/// The bus side of a compiled block: the accesses it cannot make itself,
/// each at the clock `now` (the end of the access's M-cycle, as the bus's
/// clock stands after its tick), which the access may move.
pub trait JitHost {
    /// The RAM block (work RAM at 0, HRAM at 0x2000), [`RAM_LEN`] bytes.
    fn ram(&mut self) -> &mut [u8];
    /// What the block reaches directly: asked when it starts and after
    /// every write it could not make itself (which may switch banks).
    fn maps(&mut self) -> Maps<'_>;
    /// A read the block could not classify (`idu`: a read that the OAM bug
    /// sees as one during an increment).
    fn read(&mut self, now: &mut u64, addr: u16, idu: bool) -> u8;
    /// A write the block could not classify.
    fn write(&mut self, now: &mut u64, addr: u16, value: u8);
    /// An IDU cycle with `addr` (0xFE00-0xFEFF) on the address bus.
    fn idu(&mut self, now: &mut u64, addr: u16);
    /// Whether the run must end after the current instruction.
    fn ends_run(&self) -> bool;
    /// SVBK written with `value` (0-7) by a block (only where [`Maps`] gave
    /// the banks): map the bank, as a write through the host would.
    fn set_svbk(&mut self, value: u8);
}

/// Give the host an SVBK value the block wrote itself (before any other
/// access of the host, which may read SVBK or the banked work RAM).
#[inline(always)]
fn sync_svbk<H: JitHost>(ctx: &mut JitCtx, host: &mut H) {
    if ctx.svbk != NO_SVBK {
        host.set_svbk(ctx.svbk);
        ctx.svbk = NO_SVBK;
    }
}

extern "C" fn read_cb<H: JitHost>(ctx: *mut JitCtx, addr: u32, idu: u32) -> u32 {
    // SAFETY: `ctx` is the `JitCtx` that `run_block` passed to the block,
    // alive for the whole call; its `host` field is the `&mut H` that
    // `run_block` holds exclusively for the call (the block touches the
    // host only through these callbacks, and the RAM pointer it keeps is
    // reloaded from `ctx.ram` after each callback).
    let ctx = unsafe { &mut *ctx };
    // SAFETY: as above: `host` was made from a `&mut H` by `run_block`.
    let host = unsafe { &mut *(ctx.host as *mut H) };
    sync_svbk(ctx, host);
    let v = host.read(&mut ctx.now, addr as u16, idu != 0);
    ctx.ram = host.ram().as_mut_ptr();
    v as u32 | (host.ends_run() as u32) << 8
}

extern "C" fn write_cb<H: JitHost>(ctx: *mut JitCtx, addr: u32, value: u32) -> u32 {
    // SAFETY: as in `read_cb`.
    let ctx = unsafe { &mut *ctx };
    // SAFETY: as in `read_cb`.
    let host = unsafe { &mut *(ctx.host as *mut H) };
    sync_svbk(ctx, host);
    host.write(&mut ctx.now, addr as u16, value as u8);
    ctx.set_maps(host.maps());
    host.ends_run() as u32
}

impl JitCtx {
    /// Point the block's direct accesses at `m` (checking the sizes the
    /// compiled code assumes: it reads and writes at offsets below
    /// [`RAM_LEN`] from `ram`, 0x1000-0x1FFF from `wram_hi` and below
    /// 0x4000 from a non-null `rom` bank).
    fn set_maps(&mut self, m: Maps<'_>) {
        assert!(m.ram.len() >= RAM_LEN);
        self.ram = m.ram.as_mut_ptr();
        (self.wram_hi, self.wram_len, self.wram_banks) = match m.wram_banks {
            Some((banks, bank)) if (2..8).contains(&bank) => {
                let base = banks.as_mut_ptr();
                // Offsets 0x1000-0x1FFF from here: bank `bank`'s bytes.
                let hi = base.wrapping_add((bank - 1) * 0x1000);
                (hi, 0x1000, base)
            }
            Some((banks, _)) => (self.ram, 0x2000, banks.as_mut_ptr()),
            None => (self.ram, 0x2000, std::ptr::null_mut()),
        };
        self.rom = m.rom.map(|r| r.map_or(std::ptr::null(), |r| r.as_ptr()));
    }
}

extern "C" fn idu_cb<H: JitHost>(ctx: *mut JitCtx, addr: u32) -> u32 {
    // SAFETY: as in `read_cb`.
    let ctx = unsafe { &mut *ctx };
    // SAFETY: as in `read_cb`.
    let host = unsafe { &mut *(ctx.host as *mut H) };
    sync_svbk(ctx, host);
    host.idu(&mut ctx.now, addr as u16);
    ctx.ram = host.ram().as_mut_ptr();
    host.ends_run() as u32
}

/// A compiled block: its entry, and the M-cycles before its last
/// instruction (what its admission checks).
#[derive(Debug)]
#[repr(C)]
pub struct Block {
    /// Runs the block (from run `index` of its function's region) and
    /// returns the next block to run (chained), or null.
    entry: Entry,
    /// What a block that chains into this one checks: `4 * admit_cycles`,
    /// or [`NO_CHAIN_INTO`] for a block the run engine enters itself (a
    /// poll or idle loop's start, whose turns it skips).
    admit_t: u64,
    /// M-cycles of the block's instructions but the last.
    pub admit_cycles: u32,
    /// Instructions in the block.
    pub instructions: u32,
    /// Code compiled from work RAM: each run's first address and the bytes
    /// it was compiled from (none for ROM code), which must still be there
    /// to run it.
    code: Box<[(u16, Box<[u8]>)]>,
    /// Work RAM: the block compiled before this one at the same address
    /// (from other bytes), or 0.
    older: usize,
    /// The entry index `entry` takes: which run of the function's region
    /// this block starts at (0: the region's own entry; others: a run that
    /// another entry's region compiled, see [`JitCode::block`]).
    index: u32,
}

/// A compiled function: the context and the entry index (which run of the
/// region to start at).
type Entry = extern "C" fn(*mut JitCtx, u32) -> *const Block;

impl Block {
    /// Whether work RAM (`wram`, 0xC000 at 0) still holds the code this
    /// block was compiled from.
    #[inline]
    fn matches(&self, wram: &[u8]) -> bool {
        self.code.iter().all(|(start, bytes)| {
            let at = (start & 0x1FFF) as usize;
            wram.get(at..at + bytes.len()) == Some(&bytes[..])
        })
    }
}

/// Registers in and out of a block (A, F, B, C, D, E, H, L; SP; PC).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Regs {
    pub r: [u8; 8],
    pub sp: u16,
    pub pc: u16,
}

/// An admission no clock reaches: blocks never chain into this one.
pub const NO_CHAIN_INTO: u64 = 1 << 62;

/// Where a block may chain into the next one (without returning to the
/// run engine): the next block must have been compiled, must be one the
/// engine would enter itself ([`NO_CHAIN_INTO`]), and its last instruction
/// must start before `horizon`, as the engine's admission checks; and the
/// target must lie in a bank mapped where it usually is (`rom0`, `romx`:
/// the ROM offsets of the banks at 0x0000 and 0x4000, or [`NO_CHAIN`]).
/// A block that called back and was told the run ends never chains.
#[derive(Debug, Clone, Copy)]
pub struct Chain {
    pub horizon: u64,
    pub rom0: u64,
    pub romx: u64,
}

impl Chain {
    /// No chaining: every block returns to the run engine.
    pub const NONE: Chain = Chain {
        horizon: 0,
        rom0: NO_CHAIN,
        romx: NO_CHAIN,
    };
}

/// Run `block` on `regs` from the clock `now` over `host`, and the blocks
/// it chains into under `chain`; returns the clock at the end.
#[inline]
pub fn run_block<H: JitHost>(
    code: &JitCode,
    block: &Block,
    regs: &mut Regs,
    now: u64,
    chain: Chain,
    host: &mut H,
) -> u64 {
    let mut ctx = JitCtx {
        regs: regs.r,
        sp: regs.sp,
        pc: regs.pc,
        _pad: 0,
        now,
        ram: std::ptr::null_mut(),
        host: std::ptr::null_mut(),
        read: read_cb::<H>,
        write: write_cb::<H>,
        idu: idu_cb::<H>,
        horizon: chain.horizon,
        slots: code.slots.as_ptr(),
        slots_len: code.slots.len() as u64,
        rom0: chain.rom0,
        romx: chain.romx,
        wram_hi: std::ptr::null_mut(),
        rom: [std::ptr::null(); 2],
        wram_len: 0,
        _pad2: 0,
        wram_banks: std::ptr::null_mut(),
        svbk: NO_SVBK,
        _pad3: [0; 7],
    };
    ctx.set_maps(host.maps());
    ctx.host = host as *mut H as *mut u8;
    // The block reads and writes `ctx` (registers, clock), the RAM block
    // through `ctx.ram` and `ctx.wram_hi`, reads the ROM banks through
    // `ctx.rom` (in bounds: the compiler emits accesses at the offsets
    // `set_maps` checks), reads the slot table through
    // `ctx.slots` (below `ctx.slots_len`, checked) and calls the callbacks,
    // which reach the host through `ctx.host`. `host` is not used here
    // until the blocks return. A block returns null or the address of a
    // `Block` read from a slot of `code` (see `JitCode::block`), which
    // lives as long as `code`.
    let mut next = (block.entry)(&mut ctx, block.index);
    while !next.is_null() {
        // SAFETY: `next` is a slot's block address (above), alive while
        // `code` is.
        let b = unsafe { &*next };
        next = (b.entry)(&mut ctx, b.index);
    }
    sync_svbk(&mut ctx, host);
    regs.r = ctx.regs;
    regs.sp = ctx.sp;
    regs.pc = ctx.pc;
    ctx.now
}

/// Slot values besides a block's address.
const UNTRIED: usize = 0;
const DECLINED: usize = 1;
/// A ROM offset handed to the background compiler, not compiled yet (the
/// interpreter runs the code there meanwhile).
pub(crate) const QUEUED: usize = 2;

/// A compile the background thread is asked for: the ROM offset (whose
/// bank is mapped at its usual address, `pc`) and whether blocks may
/// chain into it.
struct Job {
    off: usize,
    pc: u16,
    chain_into: bool,
}

/// Looks for a block at a place (a ROM offset, or a work-RAM address whose
/// code matches none of its compiled versions) before it is compiled
/// (`EMURUST_JIT_HOT=N` or [`JitCode::set_hot`] set another count: 0
/// compiles code the first time, for measurements that must not compile
/// in the stretch they time).
///
/// The count weighs a compile's cost against what it saves (the rule of
/// renting skis until the rent paid equals the price): a function costs
/// about 75 µs of compiling per instruction, and a compiled instruction
/// saves a few nanoseconds each time it runs, so code pays back its
/// compile only after some 10,000 runs. Code looked at this many times
/// then costs at most about twice what the better choice would have cost,
/// whether it keeps running or stops. Measured (bench/README.md, tenth
/// session): with 32 looks Tobu Tobu Girl ran 15,000 frames at 0.27x the
/// interpreter's speed, compiles included; with 65,536, 0.93-0.99x, and
/// µCity 1.0-1.1x over 15,000 frames and 1.6-1.7x over 240,000.
pub const HOT: u32 = 1 << 16;

/// Count one more look for a block where none was compiled; whether the
/// place is hot (looked at `threshold` times, [`HOT`]) and is to be
/// compiled now. A plain load and store: a count lost to another thread
/// only delays the compile.
#[inline(always)]
fn hot(heat: &std::sync::atomic::AtomicU32, threshold: u32) -> bool {
    let h = heat.load(Ordering::Relaxed);
    if h < threshold {
        heat.store(h + 1, Ordering::Relaxed);
        return false;
    }
    true
}

/// Compiles per work-RAM address: then code there that matches none of
/// its versions is left to the interpreter (code rewritten all the time,
/// such as a test ROM's instruction under test).
pub const WRAM_TRIES: u8 = 16;

/// Versions of a work-RAM address's code looked at before compiling
/// another (the newest first).
const WRAM_VERSIONS: usize = 8;

/// A ROM's compiled blocks, shared by every machine running it.
pub struct JitCode {
    /// Per ROM offset: [`UNTRIED`], [`DECLINED`], [`QUEUED`] or the address of a
    /// leaked `Block` (owned by `blocks`).
    slots: Box<[AtomicUsize]>,
    /// Per ROM offset: how often the engine looked for a block there before
    /// one was compiled (up to [`HOT`]: code run only a few times, such as
    /// a game's start-up, is left to the interpreter; compiling one costs
    /// about 1.5 ms a function, bench/README.md).
    heat: Box<[std::sync::atomic::AtomicU32]>,
    /// The same per work-RAM address (0xC000 at 0), the block's code
    /// checked against work RAM before each run ([`JitCode::wram_block`]).
    wram_slots: Box<[AtomicUsize]>,
    /// Compiles per work-RAM address (code that keeps changing is left to
    /// the interpreter after [`WRAM_TRIES`]).
    wram_tries: Box<[std::sync::atomic::AtomicU8]>,
    /// As `heat`, per work-RAM address, counted again for each new version
    /// of the code there.
    wram_heat: Box<[std::sync::atomic::AtomicU32]>,
    /// [`HOT`], `EMURUST_JIT_HOT` or [`JitCode::set_hot`].
    hot: std::sync::atomic::AtomicU32,
    /// How ROM runs are shared between regions (`EMURUST_JIT_SHARE`, for
    /// measurements): 2 (the default) a run compiled inside another entry's
    /// region is entered there rather than compiled again, and regions
    /// leave out runs compiled before; 1 the first only; 0 neither (each
    /// entry compiles its whole region).
    share: u8,
    /// The code this cache compiles for, which the background compiler
    /// reads (set by `Code::shared`; without it every compile is made on
    /// the thread that asks).
    source: std::sync::OnceLock<std::sync::Weak<crate::cpu::Code>>,
    /// The background compiler's queue, once started (`None`: it could not
    /// be started).
    queue: std::sync::OnceLock<Option<std::sync::mpsc::Sender<Job>>>,
    /// Whether ROM code is compiled in the background where the process
    /// may use a second core (the default; off with
    /// `EMURUST_JIT_BACKGROUND=0` or [`JitCode::set_background`]).
    background: std::sync::atomic::AtomicBool,
    /// The process that made it: a process forked from it (Python's
    /// multiprocessing) compiles nothing more with it, because the
    /// background thread and a compile in progress on another thread (the
    /// mutex held) did not come along (`Code::shared` gives such a process
    /// new code for new machines).
    pid: u32,
    inner: Mutex<Inner>,
}

struct Inner {
    module: Option<JITModule>,
    compiler: Option<compile::Compiler>,
    // Boxed: the slots hold the blocks' addresses, which must not move
    // when the vector grows.
    #[allow(clippy::vec_box)]
    blocks: Vec<Box<Block>>,
    /// Per ROM offset: a run that a compiled region holds besides its
    /// entry, which a block there enters instead of compiling the run again
    /// ([`JitCode::block`]).
    members: std::collections::HashMap<usize, Member>,
    stats: JitStats,
}

/// A run compiled inside another entry's region: its function, its entry
/// index there, its admission and instructions.
#[derive(Clone, Copy)]
struct Member {
    entry: Entry,
    index: u32,
    admit: u32,
    instructions: u32,
}

/// What the compiler did so far for one ROM.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct JitStats {
    /// Blocks compiled.
    pub compiled: u64,
    /// Run starts where the compiler took not even the first instruction.
    pub declined: u64,
    /// Instructions in the compiled blocks.
    pub instructions: u64,
    /// Bytes of host code.
    pub code_bytes: u64,
    /// Seconds spent compiling.
    pub compile_seconds: f64,
    /// Blocks that enter a function compiled for another entry (a run of
    /// that entry's region), compiling nothing.
    pub shared: u64,
    /// Blocks made by the background compiler (of `compiled` and `shared`).
    pub background: u64,
}

impl std::fmt::Debug for JitCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JitCode")
            .field("stats", &self.stats())
            .finish()
    }
}

impl JitCode {
    /// An empty cache for a ROM of `rom_len` bytes; `None` when the host
    /// has no Cranelift backend, or `EMURUST_JIT=0` is set (the same build
    /// with the interpreter alone, for measurements).
    pub fn new(rom_len: usize) -> Option<JitCode> {
        if std::env::var("EMURUST_JIT").is_ok_and(|v| v == "0") {
            return None;
        }
        let (module, compiler) = compile::Compiler::new()?;
        Some(JitCode {
            slots: (0..rom_len).map(|_| AtomicUsize::new(UNTRIED)).collect(),
            heat: (0..rom_len)
                .map(|_| std::sync::atomic::AtomicU32::new(0))
                .collect(),
            wram_slots: (0..0x2000).map(|_| AtomicUsize::new(UNTRIED)).collect(),
            wram_tries: (0..0x2000)
                .map(|_| std::sync::atomic::AtomicU8::new(0))
                .collect(),
            wram_heat: (0..0x2000)
                .map(|_| std::sync::atomic::AtomicU32::new(0))
                .collect(),
            hot: std::sync::atomic::AtomicU32::new(
                std::env::var("EMURUST_JIT_HOT")
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(HOT),
            ),
            share: std::env::var("EMURUST_JIT_SHARE")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(2),
            source: std::sync::OnceLock::new(),
            queue: std::sync::OnceLock::new(),
            background: std::sync::atomic::AtomicBool::new(
                std::env::var("EMURUST_JIT_BACKGROUND").map_or(true, |v| v != "0"),
            ),
            pid: std::process::id(),
            inner: Mutex::new(Inner {
                module: Some(module),
                compiler: Some(compiler),
                blocks: Vec::new(),
                members: std::collections::HashMap::new(),
                stats: JitStats::default(),
            }),
        })
    }

    /// The block at ROM offset `off` (whose bank, `bank`, is mapped at its
    /// usual address, `pc`), compiled on first use; `None` where the
    /// compiler declines.
    #[inline(always)]
    pub fn block(
        &self,
        off: usize,
        pc: u16,
        bank: &[u8; 0x4000],
        chain_into: bool,
        enterable: &dyn Fn(u16) -> bool,
    ) -> Option<&Block> {
        let slot = self.slots.get(off)?;
        let v = slot.load(Ordering::Acquire);
        match v {
            // Not yet hot: the interpreter runs it.
            UNTRIED if !hot(&self.heat[off], self.hot.load(Ordering::Relaxed)) => None,
            UNTRIED => self.compile(off, pc, bank, chain_into, enterable),
            // Declined, or being compiled in the background.
            DECLINED | QUEUED => None,
            // SAFETY: a slot holds either a mark or the address of a
            // `Block` boxed in `inner.blocks`, which only grows and lives
            // as long as `self`; it was written (Release) after the box
            // was complete.
            p => Some(unsafe { &*(p as *const Block) }),
        }
    }

    #[cold]
    #[inline(never)]
    fn compile(
        &self,
        off: usize,
        pc: u16,
        bank: &[u8; 0x4000],
        chain_into: bool,
        enterable: &dyn Fn(u16) -> bool,
    ) -> Option<&Block> {
        let slot = &self.slots[off];
        if std::process::id() != self.pid {
            // A forked process: the interpreter runs what is not compiled
            // (marked declined, so that it is not asked again every run).
            let _ = slot.compare_exchange(UNTRIED, DECLINED, Ordering::AcqRel, Ordering::Acquire);
            return None;
        }
        if self.enqueue(off, pc, chain_into) {
            // The interpreter runs it until the background thread is done.
            return None;
        }
        let got = self.compile_into(slot, UNTRIED, pc, bank, chain_into, enterable, Some(off));
        match got {
            Err(()) => self.block(off, pc, bank, chain_into, enterable),
            Ok(b) => b,
        }
    }

    /// The block for code in work RAM at `pc` (0xC000-0xDFFF), where
    /// `wram` (0xC000 at 0) holds it: the block compiled there if it was
    /// compiled from the same bytes, else compiled now (at most
    /// [`WRAM_TRIES`] times per address, then the interpreter runs the
    /// code there); `None` where the compiler declines.
    #[inline(always)]
    pub fn wram_block(&self, pc: u16, wram: &[u8]) -> Option<&Block> {
        let i = (pc as usize).wrapping_sub(0xC000);
        let slot = self.wram_slots.get(i)?;
        let head = slot.load(Ordering::Acquire);
        if head == DECLINED {
            return None;
        }
        let mut v = head;
        for _ in 0..WRAM_VERSIONS {
            if v <= DECLINED {
                break;
            }
            // SAFETY: as in `block` (`older` links hold the same kind of
            // addresses, of blocks kept in `blocks`).
            let b = unsafe { &*(v as *const Block) };
            if b.matches(wram) {
                return Some(b);
            }
            v = b.older;
        }
        // No version of this code compiled: each new one gets hot first
        // (code copied to work RAM and run a few times, such as a test
        // ROM's next test, is left to the interpreter).
        if !hot(&self.wram_heat[i], self.hot.load(Ordering::Relaxed)) {
            return None;
        }
        self.compile_wram(i, pc, wram, head)
    }

    #[cold]
    #[inline(never)]
    fn compile_wram(&self, i: usize, pc: u16, wram: &[u8], seen: usize) -> Option<&Block> {
        if self.wram_tries[i].load(Ordering::Relaxed) >= WRAM_TRIES {
            return None;
        }
        if std::process::id() != self.pid {
            // A forked process (see `compile`): no more tries here.
            self.wram_tries[i].store(WRAM_TRIES, Ordering::Relaxed);
            return None;
        }
        self.wram_tries[i].fetch_add(1, Ordering::Relaxed);
        self.wram_heat[i].store(0, Ordering::Relaxed);
        if seen > DECLINED {
            // SAFETY: as in `block`.
            let head = unsafe { &*(seen as *const Block) };
            // A run other than the entry's changed (a routine the region
            // calls whose code is rewritten, say): no region takes it in
            // again, so that the regions that reach it stop changing.
            for (start, bytes) in head.code.iter().skip(1) {
                let at = (start & 0x1FFF) as usize;
                if wram.get(at..at + bytes.len()) != Some(&bytes[..]) {
                    self.wram_tries[at].store(WRAM_TRIES, Ordering::Relaxed);
                }
            }
        }
        // The code as the compiler reads it: work RAM in a bank's frame,
        // an undefined opcode (declined) after it.
        let mut bank = Box::new([0xD3u8; 0x4000]);
        let n = wram.len().min(0x2000);
        bank[..n].copy_from_slice(&wram[..n]);
        // Code whose bytes were seen to change stays out of regions.
        let enterable = |t: u16| {
            (0xC000..0xE000).contains(&t)
                && self.wram_tries[(t - 0xC000) as usize].load(Ordering::Relaxed) < WRAM_TRIES
        };
        let got = self.compile_into(&self.wram_slots[i], seen, pc, &bank, true, &enterable, None);
        match got {
            // Another thread added a version meanwhile: look again.
            Err(()) => self.wram_block(pc, wram),
            Ok(b) => b,
        }
    }

    /// Compile the code at `pc` in `bank` into `slot` (the slot of ROM
    /// offset `rom_off`, or of work RAM: `None`), unless the slot no longer
    /// holds `seen` (`Err`: another thread changed it). A ROM run that an
    /// earlier region compiled besides its entry is not compiled again:
    /// its block enters that region's function at the run.
    #[allow(clippy::too_many_arguments)]
    fn compile_into(
        &self,
        slot: &AtomicUsize,
        seen: usize,
        pc: u16,
        bank: &[u8; 0x4000],
        chain_into: bool,
        enterable: &dyn Fn(u16) -> bool,
        rom_off: Option<usize>,
    ) -> Result<Option<&Block>, ()> {
        let wram = rom_off.is_none();
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if slot.load(Ordering::Acquire) != seen {
            return Err(());
        }
        let admit_t = |admit: u32| {
            if chain_into {
                4 * admit as u64
            } else {
                NO_CHAIN_INTO
            }
        };
        let Inner {
            module,
            compiler,
            blocks,
            members,
            stats,
        } = &mut *inner;
        let block = if let Some(m) = rom_off.and_then(|o| members.get(&o).copied()) {
            stats.shared += 1;
            Box::new(Block {
                entry: m.entry,
                admit_t: admit_t(m.admit),
                admit_cycles: m.admit,
                instructions: m.instructions,
                code: Box::new([]),
                older: 0,
                index: m.index,
            })
        } else {
            let t = Instant::now();
            let (Some(module), Some(compiler)) = (module.as_mut(), compiler.as_mut()) else {
                return Ok(None);
            };
            // A ROM region leaves out the runs compiled before (an entry's
            // block, or a run of another region): it goes on into their blocks
            // by chaining, so that no run is compiled twice.
            let fresh = |t: u16| {
                let Some(off) = rom_off.filter(|_| self.share >= 2) else {
                    return true;
                };
                let o = off - (pc & 0x3FFF) as usize + (t & 0x3FFF) as usize;
                !members.contains_key(&o)
                    && self
                        .slots
                        .get(o)
                        .is_some_and(|s| s.load(Ordering::Acquire) <= QUEUED)
            };
            let enterable = |t: u16| enterable(t) && fresh(t);
            let compiled = compiler.compile(module, bank, pc, &enterable, wram);
            stats.compile_seconds += t.elapsed().as_secs_f64();
            let Some(c) = compiled else {
                stats.declined += 1;
                if !wram || seen == UNTRIED {
                    slot.store(DECLINED, Ordering::Release);
                }
                return Ok(None);
            };
            // SAFETY: `c.entry` is the finalized entry of a function compiled
            // with the signature `fn(*mut JitCtx, u32) -> *const Block` ([`Entry`])
            // in the platform's C calling convention (`compile::Compiler::compile`),
            // which takes any entry index (one past its runs goes to run 0); the
            // module keeps its code alive until `JitCode` is dropped.
            let entry = unsafe { std::mem::transmute::<*const u8, Entry>(c.entry) };
            if let (Some(off), true) = (rom_off, self.share >= 1) {
                // The region's other runs: their blocks enter this function.
                let bank_start = off - (pc & 0x3FFF) as usize;
                for (index, run) in c.runs.iter().enumerate().skip(1) {
                    members
                        .entry(bank_start + (run.start & 0x3FFF) as usize)
                        .or_insert(Member {
                            entry,
                            index: index as u32,
                            admit: run.admit,
                            instructions: run.instructions,
                        });
                }
            }
            let code: Box<[(u16, Box<[u8]>)]> = if wram {
                c.runs
                    .iter()
                    .map(|r| {
                        let bytes = (r.start..r.end).map(|a| bank[(a & 0x3FFF) as usize]);
                        (r.start, bytes.collect())
                    })
                    .collect()
            } else {
                Box::new([])
            };
            stats.compiled += 1;
            stats.instructions += c.instructions as u64;
            stats.code_bytes += c.bytes as u64;
            Box::new(Block {
                entry,
                admit_t: admit_t(c.admit),
                admit_cycles: c.admit,
                instructions: c.instructions,
                code,
                older: if wram && seen > DECLINED { seen } else { 0 },
                index: 0,
            })
        };
        stats.background += (seen == QUEUED) as u64;
        let addr = &*block as *const Block as usize;
        blocks.push(block);
        slot.store(addr, Ordering::Release);
        drop(inner);
        // SAFETY: as in `block`: the box just pushed lives as long as `self`.
        Ok(Some(unsafe { &*(addr as *const Block) }))
    }

    /// The code this cache compiles for (`Code::shared`), which the
    /// background compiler reads: without it, compiles are made on the
    /// thread that asks for them.
    pub(crate) fn set_source(&self, code: std::sync::Weak<crate::cpu::Code>) {
        let _ = self.source.set(code);
    }

    /// Compile ROM code on a background thread (`true`, the default) or on
    /// the thread that first wants it (`false`: the block is there when the
    /// call returns, as tests that look for compiled blocks at given places
    /// need). Either way the emulated machine does the same: code not
    /// compiled yet runs on the interpreter.
    pub fn set_background(&self, on: bool) {
        self.background.store(on, Ordering::Relaxed);
    }

    /// Compile code once the engine has looked for its block `looks` times
    /// ([`HOT`] by default; 0: the first time). For tests that want much
    /// code compiled in a short run, and for measurements. The emulated
    /// machine does the same either way.
    pub fn set_hot(&self, looks: u32) {
        self.hot.store(looks, Ordering::Relaxed);
    }

    /// Hand the compile of ROM offset `off` to the background thread
    /// (started on first use): `true` when it took it (the slot is then
    /// [`QUEUED`], or another thread queued it first), `false` when the
    /// caller compiles it itself (background compiles off, the process
    /// allowed one core only, no source, no thread).
    fn enqueue(&self, off: usize, pc: u16, chain_into: bool) -> bool {
        // Only with a second core to run on: on one core the thread would
        // take its time from the emulation (and from whatever else runs
        // there) anyway.
        if !self.background.load(Ordering::Relaxed)
            || std::thread::available_parallelism().map_or(true, |n| n.get() < 2)
        {
            return false;
        }
        let Some(source) = self.source.get() else {
            return false;
        };
        let queue = self.queue.get_or_init(|| {
            let (tx, rx) = std::sync::mpsc::channel::<Job>();
            let source = source.clone();
            std::thread::Builder::new()
                .name("emurust-jit".into())
                .spawn(move || background_compiler(rx, source))
                .ok()
                .map(|_| tx)
        });
        let Some(tx) = queue else {
            return false;
        };
        let slot = &self.slots[off];
        if slot
            .compare_exchange(UNTRIED, QUEUED, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            // Queued, compiled or declined by another thread meanwhile.
            return true;
        }
        if tx
            .send(Job {
                off,
                pc,
                chain_into,
            })
            .is_err()
        {
            // The thread is gone (it cannot be while `self` lives, unless
            // a compile panicked): compile here.
            slot.store(UNTRIED, Ordering::Release);
            return false;
        }
        true
    }

    /// What the compiler did so far.
    pub fn stats(&self) -> JitStats {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).stats
    }

    /// Whether a block was compiled at ROM offset `off` (tests: the
    /// compiled path ran where a test needs it).
    pub fn compiled_at(&self, off: usize) -> bool {
        self.slots
            .get(off)
            .is_some_and(|s| s.load(Ordering::Acquire) > QUEUED)
    }

    /// How many blocks were compiled for work RAM at `pc` (0xC000-0xDFFF),
    /// one per version of its code (tests).
    pub fn wram_versions(&self, pc: u16) -> usize {
        let i = (pc as usize).wrapping_sub(0xC000);
        let mut v = self
            .wram_slots
            .get(i)
            .map_or(UNTRIED, |s| s.load(Ordering::Acquire));
        let mut n = 0;
        while v > DECLINED {
            n += 1;
            // SAFETY: as in `wram_block`: a slot or `older` link holds the
            // address of a block kept in `blocks` as long as `self`.
            v = unsafe { &*(v as *const Block) }.older;
        }
        n
    }

    /// Bytes of the slot table (one word per ROM byte).
    pub fn table_bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<AtomicUsize>()
    }
}

/// The background compiler of one ROM's code: compiles the queued ROM
/// offsets in order, each as the thread that queued it would have
/// ([`JitCode::compile_into`]); ends when the code is dropped (the queue's
/// sender goes with it).
fn background_compiler(
    rx: std::sync::mpsc::Receiver<Job>,
    source: std::sync::Weak<crate::cpu::Code>,
) {
    while let Ok(job) = rx.recv() {
        // The code lives while a machine runs it; if none does, the queue
        // is about to close.
        let Some(code) = source.upgrade() else {
            break;
        };
        let Some(jit) = code.jit.as_ref() else {
            break;
        };
        let Some(bank) = code.bank(job.off) else {
            jit.slots[job.off].store(DECLINED, Ordering::Release);
            continue;
        };
        let bank_start = job.off & !0x3FFF;
        let enterable = |t: u16| code.enterable(bank_start, t);
        let slot = &jit.slots[job.off];
        let _ = jit.compile_into(
            slot,
            QUEUED,
            job.pc,
            bank,
            job.chain_into,
            &enterable,
            Some(job.off),
        );
    }
}

impl Drop for JitCode {
    fn drop(&mut self) {
        let inner = self.inner.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(module) = inner.module.take() {
            // SAFETY: the blocks' code is only reached through `self`
            // (slots and `blocks`), which is being dropped: no block runs
            // now (running one borrows `self`) and none can run after.
            unsafe { module.free_memory() };
        }
    }
}

impl JitCode {
    /// For tests only (the SM83 single-step vectors, `tests/jit_vectors.rs`):
    /// compile the one instruction at `regs.pc` alone from `bank` (the
    /// 16 KiB frame that holds it, as [`JitCode::block`] takes a bank: the
    /// byte at `pc & 0x3FFF`), and run it on `regs` from the clock `now`
    /// over `host`, chaining nowhere ([`Chain::NONE`]). Returns the clock
    /// after it, or `None` where the compiler declines the instruction
    /// (STOP, HALT, DI, EI, RETI, the undefined opcodes) or it crosses the
    /// frame's end. Every call compiles anew; the host code stays until the
    /// `JitCode` is dropped, and no slot or statistic records it.
    #[doc(hidden)]
    pub fn run_one<H: JitHost>(
        &self,
        bank: &[u8; 0x4000],
        regs: &mut Regs,
        now: u64,
        host: &mut H,
    ) -> Option<u64> {
        let c = {
            let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
            let Inner {
                module, compiler, ..
            } = &mut *inner;
            let (Some(module), Some(compiler)) = (module.as_mut(), compiler.as_mut()) else {
                return None;
            };
            compiler.compile_one(module, bank, regs.pc)?
        };
        // SAFETY: as in `compile_into`: `c.entry` is a finalized function
        // of this signature, alive until `self` is dropped (which `&self`
        // prevents during the run).
        let entry = unsafe { std::mem::transmute::<*const u8, Entry>(c.entry) };
        let block = Block {
            entry,
            admit_t: NO_CHAIN_INTO,
            admit_cycles: c.admit,
            instructions: c.instructions,
            code: Box::new([]),
            older: 0,
            index: 0,
        };
        Some(run_block(self, &block, regs, now, Chain::NONE, host))
    }
}
