//! Issue 41's prototype (feature `jit`): straight runs of ROM code compiled
//! to host code with Cranelift, once per ROM, shared by every machine that
//! runs it.
//!
//! The unit is the straight run of `cpu/run_table.rs`, cut where the compiler
//! declines an instruction: a *block* starts at a ROM offset and holds the
//! instructions of the run starting there (at most its last, a jump, call,
//! restart or return, which sets PC), up to the first one the compiler does
//! not take (STOP, HALT, DI, EI, RETI, the undefined opcodes; the
//! interpreter runs those). Its length in M-cycles before its last
//! instruction is known when it is compiled, so the fast bus admits it, as
//! it admits an interpreted run, only when that last instruction starts
//! before the run horizon (the next event less the longest instruction): no
//! event can fall inside it, and the block runs with no clock check at all
//! (`Bus::rom_runs`, `bus/jit.rs`).
//!
//! A block is one host function `extern "C" fn(*mut JitCtx)`. [`JitCtx`]
//! holds the registers and the clock; accesses the compiler classifies at
//! compile time or with a range check at run time as work RAM (and its echo)
//! or HRAM go straight to the RAM block through a raw pointer; every other
//! access (ROM data, VRAM, OAM, I/O, cartridge RAM and MBC writes, the OAM
//! bug's IDU cycles) calls back into the bus ([`JitHost`]) with the clock of
//! its M-cycle (the block's start plus the access's M-cycle offset), so I/O
//! timing is the interpreter's. When a callback ends the run (a slow write,
//! a read that raised an interrupt request: `Bus::slow`), the block returns
//! after the instruction, as the interpreter's run does.
//!
//! Flags are four SSA values (Z, N, H, C); F is built only where the block
//! exits, so Cranelift's dead-code elimination drops every flag computation
//! that no later instruction or exit reads.
//!
//! The code lives in [`JitCode`], one per ROM inside `Code` (an `Arc`
//! shared by machines and threads): one atomic slot per ROM byte, filled
//! once (lazily, on the first admission of a run there) with the block's
//! entry or a "declined" mark. The hot path is one atomic load; compiling
//! takes a mutex around the Cranelift module.
//!
//! This is the only module besides the NumPy buffers where `unsafe` is
//! allowed: each block says why it is sound.
#![allow(unsafe_code)]

mod compile;

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
}

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
};

/// The RAM block's size the compiled code assumes (work RAM, then HRAM).
pub const RAM_LEN: usize = 0x2000 + 0x7F;

/// The bus side of a compiled block: the accesses it cannot make itself,
/// each at the clock `now` (the end of the access's M-cycle, as the bus's
/// clock stands after its tick), which the access may move.
pub trait JitHost {
    /// The RAM block (work RAM at 0, HRAM at 0x2000), [`RAM_LEN`] bytes.
    fn ram(&mut self) -> &mut [u8];
    /// A read the block could not classify (`idu`: a read that the OAM bug
    /// sees as one during an increment).
    fn read(&mut self, now: &mut u64, addr: u16, idu: bool) -> u8;
    /// A write the block could not classify.
    fn write(&mut self, now: &mut u64, addr: u16, value: u8);
    /// An IDU cycle with `addr` (0xFE00-0xFEFF) on the address bus.
    fn idu(&mut self, now: &mut u64, addr: u16);
    /// Whether the run must end after the current instruction.
    fn ends_run(&self) -> bool;
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
    let v = host.read(&mut ctx.now, addr as u16, idu != 0);
    ctx.ram = host.ram().as_mut_ptr();
    v as u32 | (host.ends_run() as u32) << 8
}

extern "C" fn write_cb<H: JitHost>(ctx: *mut JitCtx, addr: u32, value: u32) -> u32 {
    // SAFETY: as in `read_cb`.
    let ctx = unsafe { &mut *ctx };
    // SAFETY: as in `read_cb`.
    let host = unsafe { &mut *(ctx.host as *mut H) };
    host.write(&mut ctx.now, addr as u16, value as u8);
    ctx.ram = host.ram().as_mut_ptr();
    host.ends_run() as u32
}

extern "C" fn idu_cb<H: JitHost>(ctx: *mut JitCtx, addr: u32) -> u32 {
    // SAFETY: as in `read_cb`.
    let ctx = unsafe { &mut *ctx };
    // SAFETY: as in `read_cb`.
    let host = unsafe { &mut *(ctx.host as *mut H) };
    host.idu(&mut ctx.now, addr as u16);
    ctx.ram = host.ram().as_mut_ptr();
    host.ends_run() as u32
}

/// A compiled block: its entry, and the M-cycles before its last
/// instruction (what its admission checks).
#[derive(Debug, Clone, Copy)]
pub struct Block {
    entry: extern "C" fn(*mut JitCtx),
    /// M-cycles of the block's instructions but the last.
    pub admit_cycles: u32,
    /// Instructions in the block.
    pub instructions: u32,
}

/// Registers in and out of a block (A, F, B, C, D, E, H, L; SP; PC).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Regs {
    pub r: [u8; 8],
    pub sp: u16,
    pub pc: u16,
}

/// Run `block` on `regs` from the clock `now` over `host`; returns the
/// clock at its end.
#[inline]
pub fn run_block<H: JitHost>(block: &Block, regs: &mut Regs, now: u64, host: &mut H) -> u64 {
    let ram = host.ram();
    assert!(ram.len() >= RAM_LEN);
    let ram = ram.as_mut_ptr();
    let mut ctx = JitCtx {
        regs: regs.r,
        sp: regs.sp,
        pc: regs.pc,
        _pad: 0,
        now,
        ram,
        host: host as *mut H as *mut u8,
        read: read_cb::<H>,
        write: write_cb::<H>,
        idu: idu_cb::<H>,
    };
    // The block reads and writes `ctx` (registers, clock), the RAM block
    // through `ctx.ram` (in bounds: the compiler only emits accesses at
    // offsets below RAM_LEN, checked above), and calls the callbacks, which
    // reach the host through `ctx.host`. `host` is not used here until
    // the block returns.
    (block.entry)(&mut ctx);
    regs.r = ctx.regs;
    regs.sp = ctx.sp;
    regs.pc = ctx.pc;
    ctx.now
}

/// Slot values besides a block's address.
const UNTRIED: usize = 0;
const DECLINED: usize = 1;

/// A ROM's compiled blocks, shared by every machine running it.
pub struct JitCode {
    /// Per ROM offset: [`UNTRIED`], [`DECLINED`] or the address of a
    /// leaked `Block` (owned by `blocks`).
    slots: Box<[AtomicUsize]>,
    inner: Mutex<Inner>,
}

struct Inner {
    module: Option<JITModule>,
    compiler: Option<compile::Compiler>,
    // Boxed: the slots hold the blocks' addresses, which must not move
    // when the vector grows.
    #[allow(clippy::vec_box)]
    blocks: Vec<Box<Block>>,
    stats: JitStats,
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
            inner: Mutex::new(Inner {
                module: Some(module),
                compiler: Some(compiler),
                blocks: Vec::new(),
                stats: JitStats::default(),
            }),
        })
    }

    /// The block at ROM offset `off` (whose bank, `bank`, is mapped at its
    /// usual address, `pc`), compiled on first use; `None` where the
    /// compiler declines.
    #[inline(always)]
    pub fn block(&self, off: usize, pc: u16, bank: &[u8; 0x4000]) -> Option<&Block> {
        let slot = self.slots.get(off)?;
        let v = slot.load(Ordering::Acquire);
        match v {
            UNTRIED => self.compile(off, pc, bank),
            DECLINED => None,
            // SAFETY: a slot holds either a mark or the address of a
            // `Block` boxed in `inner.blocks`, which only grows and lives
            // as long as `self`; it was written (Release) after the box
            // was complete.
            p => Some(unsafe { &*(p as *const Block) }),
        }
    }

    #[cold]
    #[inline(never)]
    fn compile(&self, off: usize, pc: u16, bank: &[u8; 0x4000]) -> Option<&Block> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let slot = &self.slots[off];
        // Another thread may have compiled it meanwhile.
        let v = slot.load(Ordering::Acquire);
        if v != UNTRIED {
            drop(inner);
            return self.block(off, pc, bank);
        }
        let t = Instant::now();
        let Inner {
            module,
            compiler,
            blocks,
            stats,
        } = &mut *inner;
        let (module, compiler) = (module.as_mut()?, compiler.as_mut()?);
        let compiled = compiler.compile(module, bank, pc);
        stats.compile_seconds += t.elapsed().as_secs_f64();
        let Some((ptr, admit_cycles, instructions, bytes)) = compiled else {
            stats.declined += 1;
            slot.store(DECLINED, Ordering::Release);
            return None;
        };
        // SAFETY: `ptr` is the finalized entry of a function compiled with
        // the signature `fn(*mut JitCtx)` in the platform's C calling
        // convention (`compile::Compiler::signature`); the module keeps
        // its code alive until `JitCode` is dropped.
        let entry = unsafe { std::mem::transmute::<*const u8, extern "C" fn(*mut JitCtx)>(ptr) };
        let block = Box::new(Block {
            entry,
            admit_cycles,
            instructions,
        });
        let addr = &*block as *const Block as usize;
        blocks.push(block);
        stats.compiled += 1;
        stats.instructions += instructions as u64;
        stats.code_bytes += bytes as u64;
        slot.store(addr, Ordering::Release);
        drop(inner);
        // SAFETY: as in `block`: the box just pushed lives as long as `self`.
        Some(unsafe { &*(addr as *const Block) })
    }

    /// What the compiler did so far.
    pub fn stats(&self) -> JitStats {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).stats
    }

    /// Bytes of the slot table (one word per ROM byte).
    pub fn table_bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<AtomicUsize>()
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
