//! The block compiler: SM83 instructions of a region (straight runs linked
//! by constant jumps, see `jit.rs`) to Cranelift IR, one host function per
//! region.
//!
//! Every instruction's semantics and M-cycle order are those of
//! `cpu/execute.rs`, `cpu/alu.rs` and `cpu/cb.rs` on a straight run's bus
//! (`Bus<false, ROM_RUN>`): opcodes and immediates come from the bank (or
//! work RAM) as compiled; an access is made at the end of its M-cycle's
//! tick.
//!
//! For measurements and debugging: `EMURUST_JIT_REGION=N` compiles at most
//! N runs per function (1: one run each), and `EMURUST_JIT_DISASM=bN`
//! prints the host code of the N-th function compiled (names as in
//! `perf`'s map of the JIT).

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, AbiParam, InstBuilder, JumpTableData, MemFlagsData, SigRef, Signature, Value,
};
use cranelift_codegen::isa::TargetFrontendConfig;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module};

use super::off;
use crate::cpu::{instruction_length, max_cycles, run_role, RunRole};

/// Most instructions in one block (a run is at most 96 M-cycles anyway).
const MAX_INSTRUCTIONS: usize = 64;

/// The compiler's reusable state (one per ROM, behind `JitCode`'s mutex).
pub(super) struct Compiler {
    ctx: Context,
    fctx: FunctionBuilderContext,
    ptr: types::Type,
    next_id: u64,
    /// Compile only the first instruction at the entry ([`Compiler::compile_one`]).
    one: bool,
}

impl Compiler {
    /// A module for the host and its compiler; `None` where Cranelift has
    /// no backend for the host.
    pub(super) fn new() -> Option<(JITModule, Compiler)> {
        let mut flags = settings::builder();
        flags.set("opt_level", "speed").ok()?;
        flags.set("use_colocated_libcalls", "false").ok()?;
        flags.set("is_pic", "false").ok()?;
        // The IR is the compiler's own, checked by the tests: no verifier
        // pass at run time (a sixth of the compile time).
        flags.set("enable_verifier", "false").ok()?;
        // Measurement knobs (bench/README): `EMURUST_JIT_OPT` (none, speed)
        // and `EMURUST_JIT_REGALLOC` (backtracking, single_pass).
        if let Ok(v) = std::env::var("EMURUST_JIT_OPT") {
            flags.set("opt_level", &v).ok()?;
        }
        if let Ok(v) = std::env::var("EMURUST_JIT_REGALLOC") {
            flags.set("regalloc_algorithm", &v).ok()?;
        }
        let isa = cranelift_native::builder()
            .ok()?
            .finish(settings::Flags::new(flags))
            .ok()?;
        let module = JITModule::new(JITBuilder::with_isa(
            isa,
            cranelift_module::default_libcall_names(),
        ));
        let ptr = module.target_config().pointer_type();
        let ctx = module.make_context();
        Some((
            module,
            Compiler {
                ctx,
                fctx: FunctionBuilderContext::new(),
                ptr,
                next_id: 0,
                one: false,
            },
        ))
    }

    /// Compile the block starting at `pc` (an address in `bank`, mapped
    /// where it usually is), with the code it reaches by constant jumps in
    /// the same bank (a *region*, see [`region`]; `enterable`: whether the
    /// run engine would run code at a PC of this bank half). Returns its
    /// entry, the M-cycles before the entry run's last instruction (its
    /// admission), the instruction count and the code size; `None` when not
    /// even its first instruction is taken.
    pub(super) fn compile(
        &mut self,
        module: &mut JITModule,
        bank: &[u8; 0x4000],
        pc: u16,
        enterable: &dyn Fn(u16) -> bool,
        wram: bool,
    ) -> Option<Compiled> {
        let subs = if self.one {
            first_instruction(bank, pc)
        } else {
            region(bank, pc, enterable)
        };
        if subs.is_empty() {
            return None;
        }
        // The addresses the region's code lies in (work RAM: a write there
        // ends the block, see `Emitter::code_span`).
        let lo = subs.iter().map(|s| s.start).min().unwrap_or(pc);
        let hi = subs.iter().map(|s| s.end()).max().unwrap_or(pc);
        let admit = subs[0].admit();
        let instructions: usize = subs.iter().map(|s| s.insts.len()).sum();
        let ptr = self.ptr;
        self.ctx.func.signature = Signature::new(module.isa().default_call_conv());
        self.ctx.func.signature.params.push(AbiParam::new(ptr));
        // The entry index: which run of the region to start at (0: the
        // region's own entry; see [`Compiled::runs`]).
        self.ctx
            .func
            .signature
            .params
            .push(AbiParam::new(types::I32));
        self.ctx.func.signature.returns.push(AbiParam::new(ptr));
        let call_conv = module.isa().default_call_conv();
        let config = module.target_config();
        {
            let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fctx);
            let mut sig_read = Signature::new(call_conv);
            sig_read.params.extend([
                AbiParam::new(ptr),
                AbiParam::new(types::I32),
                AbiParam::new(types::I32),
            ]);
            sig_read.returns.push(AbiParam::new(types::I32));
            let mut sig_idu = Signature::new(call_conv);
            sig_idu
                .params
                .extend([AbiParam::new(ptr), AbiParam::new(types::I32)]);
            sig_idu.returns.push(AbiParam::new(types::I32));
            let read_sig = b.import_signature(sig_read.clone());
            let write_sig = b.import_signature(sig_read);
            let idu_sig = b.import_signature(sig_idu);
            let entry = b.create_block();
            b.append_block_params_for_function_params(entry);
            b.switch_to_block(entry);
            let ctx = b.block_params(entry)[0];
            let index = b.block_params(entry)[1];
            let mut em = Emitter::new(b, ctx, ptr, bank, pc, read_sig, write_sig, idu_sig);
            if wram {
                em.code_span = Some((lo & 0x1FFF, hi.wrapping_sub(lo)));
            }
            for sub in &subs {
                let blk = em.b.create_block();
                em.region.push((sub.start, blk, sub.admit()));
            }
            let first = em.region[0].1;
            if subs.len() == 1 {
                em.b.ins().jump(first, &[]);
            } else {
                // Entry 0 (the usual one) by a plain branch, the others by
                // a table on the index.
                let others = em.b.create_block();
                em.b.ins().brif(index, others, &[], first, &[]);
                em.b.switch_to_block(others);
                let table: Vec<_> = em
                    .region
                    .iter()
                    .map(|r| em.b.func.dfg.block_call(r.1, &[]))
                    .collect();
                // A block call of its own for the default (the SSA pass
                // appends arguments to each).
                let default = em.b.func.dfg.block_call(first, &[]);
                let jt = em.b.create_jump_table(JumpTableData::new(default, &table));
                em.b.ins().br_table(index, jt);
            }
            for (i, sub) in subs.iter().enumerate() {
                em.sub_block(i, sub);
            }
            em.finish(config);
        }
        self.next_id += 1;
        let name = format!("b{}", self.next_id);
        let id = module
            .declare_function(&name, Linkage::Local, &self.ctx.func.signature)
            .ok()?;
        let dump = std::env::var("EMURUST_JIT_DISASM").ok();
        if dump.is_some() {
            self.ctx.set_disasm(true);
        }
        let res = module.define_function(id, &mut self.ctx);
        if dump.as_deref() == Some(name.as_str()) {
            eprintln!("{name} at {pc:#06x}: {} runs", subs.len());
            if let Some(c) = self.ctx.compiled_code() {
                eprintln!("{}", c.vcode.as_deref().unwrap_or("?"));
            }
        }
        let bytes = self
            .ctx
            .compiled_code()
            .map(|c| c.code_buffer().len())
            .unwrap_or(0);
        module.clear_context(&mut self.ctx);
        res.ok()?;
        module.finalize_definitions().ok()?;
        Some(Compiled {
            entry: module.get_finalized_function(id),
            admit,
            instructions: instructions as u32,
            bytes,
            runs: subs
                .iter()
                .map(|s| Run {
                    start: s.start,
                    end: s.end(),
                    admit: s.admit(),
                    instructions: s.insts.len() as u32,
                })
                .collect(),
        })
    }
}

impl Compiler {
    /// The one instruction at `pc` alone, as [`Compiler::compile`] compiles
    /// a region: the region of one run, cut after its first instruction
    /// (nothing else of `bank` is compiled). For the single-step tests
    /// (`JitCode::run_one`).
    pub(super) fn compile_one(
        &mut self,
        module: &mut JITModule,
        bank: &[u8; 0x4000],
        pc: u16,
    ) -> Option<Compiled> {
        self.one = true;
        let c = self.compile(module, bank, pc, &|_| false, false);
        self.one = false;
        c
    }
}

/// The region of [`Compiler::compile_one`]: the run at `pc` cut after its
/// first instruction (none where [`decode`] takes none).
fn first_instruction(bank: &[u8; 0x4000], pc: u16) -> Vec<Sub> {
    let mut insts = decode(bank, pc);
    insts.truncate(1);
    if insts.is_empty() {
        return Vec::new();
    }
    vec![Sub { start: pc, insts }]
}

/// A compiled function.
pub(super) struct Compiled {
    pub entry: *const u8,
    /// M-cycles before the entry run's last instruction.
    pub admit: u32,
    pub instructions: u32,
    /// Bytes of host code.
    pub bytes: usize,
    /// The region's runs, the entry's first: entry index `i` (the
    /// function's second argument) starts at run `i`.
    pub runs: Vec<Run>,
}

/// One run of a compiled region.
pub(super) struct Run {
    /// The addresses of its code: `[start, end)`.
    pub start: u16,
    pub end: u16,
    /// M-cycles before its last instruction (what entering it checks).
    pub admit: u32,
    pub instructions: u32,
}

/// One instruction of a block.
struct Inst {
    op: u8,
    /// Its M-cycles (exact for all but a block's last).
    cycles: u32,
}

/// Whether the compiler takes the opcode `op` (the CB table entirely).
fn supported(op: u8) -> bool {
    !matches!(
        op,
        0x10 | 0x76
            | 0xF3
            | 0xFB
            | 0xD9
            | 0xD3
            | 0xDB
            | 0xDD
            | 0xE3
            | 0xE4
            | 0xEB
            | 0xEC
            | 0xED
            | 0xF4
            | 0xFC
            | 0xFD
    )
}

/// The instructions of the block at `pc`: the run from there up to its
/// last instruction (included), stopping before an opcode the compiler
/// declines or one that would cross the bank's end.
fn decode(bank: &[u8; 0x4000], pc: u16) -> Vec<Inst> {
    let mut out = Vec::new();
    let mut at = (pc & 0x3FFF) as usize;
    while out.len() < MAX_INSTRUCTIONS && at < 0x4000 {
        let op = bank[at];
        let len = instruction_length(op) as usize;
        if at + len > 0x4000 || !supported(op) {
            break;
        }
        let next = bank.get(at + 1).copied().unwrap_or(0);
        let Some(cycles) = max_cycles(op, next) else {
            break;
        };
        out.push(Inst {
            op,
            cycles: cycles as u32,
        });
        if run_role(op) != RunRole::Plain {
            break;
        }
        at += len;
    }
    out
}

/// One straight run of a region: its start and instructions ([`decode`]).
struct Sub {
    start: u16,
    insts: Vec<Inst>,
}

impl Sub {
    /// The address after its last instruction.
    fn end(&self) -> u16 {
        let len: u16 = self
            .insts
            .iter()
            .map(|i| instruction_length(i.op) as u16)
            .sum();
        self.start.wrapping_add(len)
    }

    /// M-cycles before its last instruction: what entering it checks
    /// against the horizon.
    fn admit(&self) -> u32 {
        self.insts[..self.insts.len() - 1]
            .iter()
            .map(|i| i.cycles)
            .sum()
    }
}

/// Most runs in one region, and most instructions.
const MAX_SUBS: usize = 8;
const MAX_REGION_INSTRUCTIONS: usize = 192;

/// The region of `pc`: its run, then the runs its constant jumps reach
/// (taken or not, calls' targets, restarts) in the same bank half, where
/// the run engine would run code too (`enterable`), breadth first up to
/// [`MAX_SUBS`] runs. A jump between two of them stays inside the
/// compiled function (after the horizon check the engine makes between
/// runs); any other leaves it.
fn region(bank: &[u8; 0x4000], pc: u16, enterable: &dyn Fn(u16) -> bool) -> Vec<Sub> {
    let mut subs: Vec<Sub> = Vec::new();
    let mut queue = std::collections::VecDeque::from([pc]);
    let mut total = 0;
    // `EMURUST_JIT_REGION=N`: at most N runs per function (1: no
    // regions), for measurements.
    let max_subs = std::env::var("EMURUST_JIT_REGION")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .map_or(MAX_SUBS, |n| n.clamp(1, 64));
    while let Some(at) = queue.pop_front() {
        if subs.len() >= max_subs || subs.iter().any(|s| s.start == at) {
            continue;
        }
        if !subs.is_empty() && ((at ^ pc) & 0xC000 != 0 || !enterable(at)) {
            continue;
        }
        let insts = decode(bank, at);
        if insts.is_empty() || total + insts.len() > MAX_REGION_INSTRUCTIONS {
            continue;
        }
        total += insts.len();
        let mut end = at;
        for i in &insts {
            end = end.wrapping_add(instruction_length(i.op) as u16);
        }
        let last = insts[insts.len() - 1].op;
        let lo = |o: u16| bank[(o & 0x3FFF) as usize];
        let imm16 = |o: u16| u16::from_le_bytes([lo(o.wrapping_add(1)), lo(o.wrapping_add(2))]);
        let last_at = end.wrapping_sub(instruction_length(last) as u16);
        match last {
            0x18 | 0x20 | 0x28 | 0x30 | 0x38 => {
                let e = lo(last_at.wrapping_add(1)) as i8;
                queue.push_back(end.wrapping_add(e as i16 as u16));
                if last != 0x18 {
                    queue.push_back(end);
                }
            }
            0xC3 | 0xC2 | 0xCA | 0xD2 | 0xDA => {
                queue.push_back(imm16(last_at));
                if last != 0xC3 {
                    queue.push_back(end);
                }
            }
            0xCD | 0xC4 | 0xCC | 0xD4 | 0xDC => {
                queue.push_back(imm16(last_at));
                if last != 0xCD {
                    queue.push_back(end);
                }
            }
            0xC0 | 0xC8 | 0xD0 | 0xD8 => queue.push_back(end),
            0xC7 | 0xCF | 0xD7 | 0xDF | 0xE7 | 0xEF | 0xF7 | 0xFF => {
                queue.push_back((last & 0x38) as u16)
            }
            0xC9 | 0xE9 => {}
            _ => queue.push_back(end),
        }
        subs.push(Sub { start: at, insts });
    }
    subs
}

/// Where control goes: a PC known when compiled, or computed.
enum Target {
    Const(u16),
    Dyn(Value),
}

/// An address: known when compiled, or computed.
#[derive(Clone, Copy)]
enum Addr {
    Const(u16),
    Dyn(Value),
}

// Register indices (the order of `JitCtx::regs` is A F B C D E H L).
const A: usize = 0;
const B: usize = 1;
const C: usize = 2;
const D: usize = 3;
const E: usize = 4;
const H: usize = 5;
const L: usize = 6;
/// `JitCtx::regs` index of each register variable.
const REG_SLOT: [i32; 7] = [0, 2, 3, 4, 5, 6, 7];

/// The register of operand field `r` (0-7, 6 being (HL)).
fn reg(r: u8) -> usize {
    [B, C, D, E, H, L, usize::MAX, A][r as usize & 7]
}

struct Emitter<'a> {
    b: FunctionBuilder<'a>,
    ctx: Value,
    ptr: types::Type,
    bank: &'a [u8; 0x4000],
    /// A B C D E H L.
    r: [Variable; 7],
    sp: Variable,
    fz: Variable,
    fn_: Variable,
    fh: Variable,
    fc: Variable,
    /// The clock at the block's start, as moved by callbacks.
    base: Variable,
    ram: Variable,
    /// A callback asked the run to end (after this instruction).
    stop: Variable,
    /// The one exit every path jumps to (PC, clock, whether it may chain):
    /// it writes the registers back and chains (see `Emitter::finish`).
    exit_blk: cranelift_codegen::ir::Block,
    /// The region's runs: start PC, their block, their admission.
    region: Vec<(u16, cranelift_codegen::ir::Block, u32)>,
    /// The horizon (`JitCtx::horizon`), loaded once.
    horizon: Variable,
    /// `JitCtx::wram_len` (i32), loaded at the start and after each
    /// write callback (an SVBK write changes it).
    wram_len: Variable,
    /// Code compiled from work RAM: the offset in work RAM of its first
    /// byte and its length. A write there ends the block after the
    /// instruction (the code may have changed; the engine checks it before
    /// running the block again).
    code_span: Option<(u16, u16)>,
    /// M-cycles from the block's start.
    cyc: u32,
    /// The next byte to fetch.
    pc: u16,
    /// The current instruction made a callback.
    called: bool,
    /// The current run made one.
    sub_called: bool,
    read_sig: SigRef,
    write_sig: SigRef,
    idu_sig: SigRef,
}

fn flags() -> MemFlagsData {
    MemFlagsData::trusted()
}

impl<'a> Emitter<'a> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        mut b: FunctionBuilder<'a>,
        ctx: Value,
        ptr: types::Type,
        bank: &'a [u8; 0x4000],
        pc: u16,
        read_sig: SigRef,
        write_sig: SigRef,
        idu_sig: SigRef,
    ) -> Self {
        let r = std::array::from_fn(|_| b.declare_var(types::I8));
        let sp = b.declare_var(types::I16);
        let [fz, fn_, fh, fc] = std::array::from_fn(|_| b.declare_var(types::I8));
        let base = b.declare_var(types::I64);
        let ram = b.declare_var(ptr);
        let stop = b.declare_var(types::I8);
        for (i, v) in r.iter().enumerate() {
            let x = b
                .ins()
                .load(types::I8, flags(), ctx, off::REGS + REG_SLOT[i]);
            b.def_var(*v, x);
        }
        let f = b.ins().load(types::I8, flags(), ctx, off::REGS + 1);
        for (bit, v) in [(7, fz), (6, fn_), (5, fh), (4, fc)] {
            let x = b.ins().ushr_imm_u(f, bit);
            let x = b.ins().band_imm_u(x, 1);
            b.def_var(v, x);
        }
        let x = b.ins().load(types::I16, flags(), ctx, off::SP);
        b.def_var(sp, x);
        let x = b.ins().load(types::I64, flags(), ctx, off::NOW);
        b.def_var(base, x);
        let x = b.ins().load(ptr, flags(), ctx, off::RAM);
        b.def_var(ram, x);
        let zero = b.ins().iconst(types::I8, 0);
        b.def_var(stop, zero);
        let horizon = b.declare_var(types::I64);
        let x = b.ins().load(types::I64, flags(), ctx, off::HORIZON);
        b.def_var(horizon, x);
        let wram_len = b.declare_var(types::I32);
        let x = b.ins().load(types::I32, flags(), ctx, off::WRAM_LEN);
        b.def_var(wram_len, x);
        let exit_blk = b.create_block();
        b.append_block_param(exit_blk, types::I16);
        b.append_block_param(exit_blk, types::I64);
        b.append_block_param(exit_blk, types::I8);
        Emitter {
            b,
            ctx,
            ptr,
            bank,
            r,
            sp,
            fz,
            fn_,
            fh,
            fc,
            base,
            ram,
            stop,
            exit_blk,
            region: Vec::new(),
            horizon,
            wram_len,
            code_span: None,
            cyc: 0,
            pc,
            called: false,
            sub_called: false,
            read_sig,
            write_sig,
            idu_sig,
        }
    }

    // ---- values ------------------------------------------------------

    fn get(&mut self, r: usize) -> Value {
        self.b.use_var(self.r[r])
    }
    fn set(&mut self, r: usize, v: Value) {
        self.b.def_var(self.r[r], v);
    }
    fn c8(&mut self, v: u8) -> Value {
        self.b.ins().iconst(types::I8, v as i64)
    }
    fn c16(&mut self, v: u16) -> Value {
        self.b.ins().iconst(types::I16, v as i64)
    }
    fn pair(&mut self, hi: usize, lo: usize) -> Value {
        let h = self.get(hi);
        let l = self.get(lo);
        let h = self.b.ins().uextend(types::I16, h);
        let l = self.b.ins().uextend(types::I16, l);
        let h = self.b.ins().ishl_imm_u(h, 8);
        self.b.ins().bor(h, l)
    }
    fn set_pair(&mut self, hi: usize, lo: usize, v: Value) {
        let h = self.b.ins().ushr_imm_u(v, 8);
        let h = self.b.ins().ireduce(types::I8, h);
        let l = self.b.ins().ireduce(types::I8, v);
        self.set(hi, h);
        self.set(lo, l);
    }
    /// BC, DE, HL or SP (`p` 0-3).
    fn rr(&mut self, p: u8) -> Value {
        match p & 3 {
            0 => self.pair(B, C),
            1 => self.pair(D, E),
            2 => self.pair(H, L),
            _ => self.b.use_var(self.sp),
        }
    }
    fn set_rr(&mut self, p: u8, v: Value) {
        match p & 3 {
            0 => self.set_pair(B, C, v),
            1 => self.set_pair(D, E, v),
            2 => self.set_pair(H, L, v),
            _ => self.b.def_var(self.sp, v),
        }
    }
    fn set_flags(&mut self, z: Value, n: Value, h: Value, c: Value) {
        self.b.def_var(self.fz, z);
        self.b.def_var(self.fn_, n);
        self.b.def_var(self.fh, h);
        self.b.def_var(self.fc, c);
    }
    fn is_zero(&mut self, v: Value) -> Value {
        self.b.ins().icmp_imm_u(IntCC::Equal, v, 0)
    }

    // ---- cycles and accesses -----------------------------------------

    /// The next immediate byte (one M-cycle), known when compiled.
    fn imm8(&mut self) -> u8 {
        self.cyc += 1;
        let v = self.bank[(self.pc & 0x3FFF) as usize];
        self.pc = self.pc.wrapping_add(1);
        v
    }
    fn imm16(&mut self) -> u16 {
        let lo = self.imm8();
        let hi = self.imm8();
        u16::from_le_bytes([lo, hi])
    }
    /// An internal M-cycle.
    fn idle(&mut self) {
        self.cyc += 1;
    }
    /// The clock at the current M-cycle's end.
    fn clock(&mut self) -> Value {
        let base = self.b.use_var(self.base);
        self.b.ins().iadd_imm_s(base, 4 * self.cyc as i64)
    }
    fn addr32(&mut self, a: Value) -> Value {
        self.b.ins().uextend(types::I32, a)
    }

    /// Store the clock, call `f` with `args` (after the context), take the
    /// clock and RAM back, note a stop; returns the call's result (i32).
    fn callback(&mut self, field: i32, sig: SigRef, args: &[Value]) -> Value {
        self.called = true;
        self.sub_called = true;
        let now = self.clock();
        self.b.ins().store(flags(), now, self.ctx, off::NOW);
        let f = self.b.ins().load(self.ptr, flags(), self.ctx, field);
        let mut all = vec![self.ctx];
        all.extend_from_slice(args);
        let call = self.b.ins().call_indirect(sig, f, &all);
        let r = self.b.inst_results(call)[0];
        let now = self.b.ins().load(types::I64, flags(), self.ctx, off::NOW);
        let base = self.b.ins().iadd_imm_s(now, -4 * self.cyc as i64);
        self.b.def_var(self.base, base);
        let ram = self.b.ins().load(self.ptr, flags(), self.ctx, off::RAM);
        self.b.def_var(self.ram, ram);
        if field == off::WRITE {
            // A write may have mapped another work RAM bank (SVBK).
            let len = self
                .b
                .ins()
                .load(types::I32, flags(), self.ctx, off::WRAM_LEN);
            self.b.def_var(self.wram_len, len);
        }
        r
    }

    fn note_stop(&mut self, s: Value) {
        let s = self.b.ins().ireduce(types::I8, s);
        let s = self.b.ins().band_imm_u(s, 1);
        let old = self.b.use_var(self.stop);
        let s = self.b.ins().bor(old, s);
        self.b.def_var(self.stop, s);
    }

    /// The RAM block's byte at offset `i` (a pointer-sized value).
    fn ram_at(&mut self, i: Value) -> Value {
        let ram = self.b.use_var(self.ram);
        self.b.ins().iadd(ram, i)
    }

    /// Read `addr` in a new M-cycle.
    fn read(&mut self, addr: Addr, idu: bool) -> Value {
        self.cyc += 1;
        match addr {
            Addr::Const(a) => match a {
                0x0000..=0x7FFF => {
                    let a = self.b.ins().iconst(types::I32, a as i64);
                    self.rom_read(a, idu)
                }
                0xC000..=0xFDFF => {
                    let (base, i) = self.wram_const(a);
                    self.b.ins().load(types::I8, flags(), base, i)
                }
                0xFF80..=0xFFFE => {
                    let ram = self.b.use_var(self.ram);
                    self.b
                        .ins()
                        .load(types::I8, flags(), ram, 0x2000 + (a - 0xFF80) as i32)
                }
                _ => {
                    let a = self.b.ins().iconst(types::I32, a as i64);
                    self.read_slow(a, idu)
                }
            },
            Addr::Dyn(a) => {
                let a = self.addr32(a);
                let wram = self.b.create_block();
                let other = self.b.create_block();
                let rom = self.b.create_block();
                let high = self.b.create_block();
                let hram = self.b.create_block();
                let slow = self.b.create_block();
                let done = self.b.create_block();
                self.b.append_block_param(done, types::I8);
                let i = self.b.ins().iadd_imm_s(a, -0xC000);
                let in_wram = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, i, 0x3E00);
                self.b.ins().brif(in_wram, wram, &[], other, &[]);
                self.b.switch_to_block(wram);
                let i = self.b.ins().band_imm_u(a, 0x1FFF);
                self.wram_access(i, |e, p, _| {
                    let v = e.b.ins().load(types::I8, flags(), p, 0);
                    e.b.ins().jump(done, &[v.into()]);
                });
                self.b.switch_to_block(other);
                let in_rom = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, a, 0x8000);
                self.b.ins().brif(in_rom, rom, &[], high, &[]);
                self.b.switch_to_block(rom);
                let v = self.rom_read(a, idu);
                self.b.ins().jump(done, &[v.into()]);
                self.b.switch_to_block(high);
                let i = self.b.ins().iadd_imm_s(a, -0xFF80);
                let in_hram = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, i, 0x7F);
                self.b.ins().brif(in_hram, hram, &[], slow, &[]);
                self.b.switch_to_block(hram);
                let i = self.b.ins().uextend(self.ptr, i);
                let p = self.ram_at(i);
                let v = self.b.ins().load(types::I8, flags(), p, 0x2000);
                self.b.ins().jump(done, &[v.into()]);
                self.read_slow_into(slow, done, a, idu)
            }
        }
    }

    /// A read of ROM at `a` (i32, below 0x8000): from the bank mapped
    /// there (`JitCtx::rom`; no side effect, no clock), or through the
    /// host where that bank is not there to read directly.
    fn rom_read(&mut self, a: Value, idu: bool) -> Value {
        let half = self.b.ins().ushr_imm_u(a, 14);
        let half = self.b.ins().uextend(self.ptr, half);
        let shift = self.ptr.bytes().trailing_zeros() as i64;
        let at = self.b.ins().ishl_imm_u(half, shift);
        let at = self.b.ins().iadd(self.ctx, at);
        let bank = self.b.ins().load(self.ptr, flags(), at, off::ROM);
        let direct = self.b.create_block();
        let slow = self.b.create_block();
        let done = self.b.create_block();
        self.b.append_block_param(done, types::I8);
        self.b.ins().brif(bank, direct, &[], slow, &[]);
        self.b.switch_to_block(direct);
        let i = self.b.ins().band_imm_u(a, 0x3FFF);
        let i = self.b.ins().uextend(self.ptr, i);
        let p = self.b.ins().iadd(bank, i);
        let v = self.b.ins().load(types::I8, flags(), p, 0);
        self.b.ins().jump(done, &[v.into()]);
        self.read_slow_into(slow, done, a, idu)
    }

    /// Emit the read of `a` through the host into the cold block `slow`,
    /// which goes on to `done` (whose one parameter is the byte read);
    /// continue in `done` and return that byte.
    fn read_slow_into(
        &mut self,
        slow: cranelift_codegen::ir::Block,
        done: cranelift_codegen::ir::Block,
        a: Value,
        idu: bool,
    ) -> Value {
        self.b.set_cold_block(slow);
        self.b.switch_to_block(slow);
        let v = self.read_slow(a, idu);
        self.b.ins().jump(done, &[v.into()]);
        self.b.switch_to_block(done);
        self.b.block_params(done)[0]
    }

    /// Work RAM at a constant address (0xC000-0xFDFF): the base and offset
    /// to load or store at (0xD000-0xDFFF from `JitCtx::wram_hi`: a CGB's
    /// bank there may be one of 2-7).
    fn wram_const(&mut self, a: u16) -> (Value, i32) {
        let i = a & 0x1FFF;
        let base = if i < 0x1000 {
            self.b.use_var(self.ram)
        } else {
            self.b.ins().load(self.ptr, flags(), self.ctx, off::WRAM_HI)
        };
        (base, i as i32)
    }

    /// Branch on where work-RAM offset `i` (i32, below 0x2000) lies and
    /// make the access there with `access`, given the host address and
    /// whether it is in the RAM block (below `JitCtx::wram_len`: all of
    /// work RAM but while a CGB maps bank 2-7 at 0xD000), else from
    /// `JitCtx::wram_hi`: two blocks that each access and go on (`access`
    /// ends each with its jump; no join of the address: the common path
    /// stays as short as before banks were direct). Each block is filled
    /// before the next is begun, as Cranelift's builder requires.
    fn wram_access(&mut self, i: Value, access: impl Fn(&mut Self, Value, bool)) {
        let len = self.b.use_var(self.wram_len);
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, i, len);
        let i = self.b.ins().uextend(self.ptr, i);
        let direct = self.b.create_block();
        let banked = self.b.create_block();
        self.b.ins().brif(inside, direct, &[], banked, &[]);
        self.b.switch_to_block(direct);
        let p = self.ram_at(i);
        access(self, p, true);
        self.b.switch_to_block(banked);
        let hi = self.b.ins().load(self.ptr, flags(), self.ctx, off::WRAM_HI);
        let p = self.b.ins().iadd(hi, i);
        access(self, p, false);
    }

    fn read_slow(&mut self, a: Value, idu: bool) -> Value {
        let idu = self.b.ins().iconst(types::I32, idu as i64);
        let r = self.callback(off::READ, self.read_sig, &[a, idu]);
        let s = self.b.ins().ushr_imm_u(r, 8);
        self.note_stop(s);
        self.b.ins().ireduce(types::I8, r)
    }

    /// Write `v` to `addr` in a new M-cycle.
    fn write(&mut self, addr: Addr, v: Value) {
        self.cyc += 1;
        match addr {
            Addr::Const(a) => match a {
                0xC000..=0xFDFF => {
                    let (base, i) = self.wram_const(a);
                    self.b.ins().store(flags(), v, base, i);
                    if let Some((lo, len)) = self.code_span {
                        if (a & 0x1FFF).wrapping_sub(lo) < len {
                            let one = self.b.ins().iconst(types::I32, 1);
                            self.called = true;
                            self.sub_called = true;
                            self.note_stop(one);
                        }
                    }
                }
                0xFF80..=0xFFFE => {
                    let ram = self.b.use_var(self.ram);
                    self.b
                        .ins()
                        .store(flags(), v, ram, 0x2000 + (a - 0xFF80) as i32);
                }
                0xFF70 => self.write_svbk(v),
                _ => {
                    let a = self.b.ins().iconst(types::I32, a as i64);
                    self.write_slow(a, v);
                }
            },
            Addr::Dyn(a) => {
                let a = self.addr32(a);
                let wram = self.b.create_block();
                let other = self.b.create_block();
                let hram = self.b.create_block();
                let slow = self.b.create_block();
                let done = self.b.create_block();
                let i = self.b.ins().iadd_imm_s(a, -0xC000);
                let in_wram = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, i, 0x3E00);
                self.b.ins().brif(in_wram, wram, &[], other, &[]);
                self.b.switch_to_block(wram);
                let i = self.b.ins().band_imm_u(a, 0x1FFF);
                self.wram_access(i, |e, p, direct| {
                    e.b.ins().store(flags(), v, p, 0);
                    // (Code in work RAM runs only while the RAM block
                    // holds all of it: no code span in a bank.)
                    if let Some((lo, len)) = e.code_span.filter(|_| direct) {
                        let wi = e.b.ins().band_imm_u(a, 0x1FFF);
                        let d = e.b.ins().iadd_imm_s(wi, -(lo as i64));
                        let hit = e.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, d, len as i64);
                        let hit = e.b.ins().uextend(types::I32, hit);
                        e.called = true;
                        e.sub_called = true;
                        e.note_stop(hit);
                    }
                    e.b.ins().jump(done, &[]);
                });
                self.b.switch_to_block(other);
                let i = self.b.ins().iadd_imm_s(a, -0xFF80);
                let in_hram = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, i, 0x7F);
                self.b.ins().brif(in_hram, hram, &[], slow, &[]);
                self.b.switch_to_block(hram);
                let i = self.b.ins().uextend(self.ptr, i);
                let p = self.ram_at(i);
                self.b.ins().store(flags(), v, p, 0x2000);
                self.b.ins().jump(done, &[]);
                self.b.set_cold_block(slow);
                self.b.switch_to_block(slow);
                self.write_slow(a, v);
                self.b.ins().jump(done, &[]);
                self.b.switch_to_block(done);
            }
        }
    }

    /// SVBK written with `v` (a CGB's work RAM bank at 0xD000): where the
    /// context has the banks (CGB mode), map the bank here (`JitCtx::wram_hi`,
    /// `wram_len`) and leave the value in `JitCtx::svbk` for the host (which
    /// takes it before any other access, see `jit::sync_svbk`): the run goes
    /// on as the interpreter's does. Else through the host.
    fn write_svbk(&mut self, v: Value) {
        let banks = self
            .b
            .ins()
            .load(self.ptr, flags(), self.ctx, off::WRAM_BANKS);
        let fast = self.b.create_block();
        let slow = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(banks, fast, &[], slow, &[]);
        self.b.switch_to_block(fast);
        let s = self.b.ins().band_imm_u(v, 7);
        self.b.ins().store(flags(), s, self.ctx, off::SVBK);
        // Bank 0 selects 1, held by the RAM block (all 8 KiB there).
        let one = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, s, 1);
        let s = self.b.ins().uextend(self.ptr, s);
        let at = self.b.ins().ishl_imm_u(s, 12);
        let hi = self.b.ins().iadd(banks, at);
        let hi = self.b.ins().iadd_imm_s(hi, -0x1000);
        let ram = self.b.use_var(self.ram);
        let hi = self.b.ins().select(one, ram, hi);
        self.b.ins().store(flags(), hi, self.ctx, off::WRAM_HI);
        let all = self.b.ins().iconst(types::I32, 0x2000);
        let half = self.b.ins().iconst(types::I32, 0x1000);
        let len = self.b.ins().select(one, all, half);
        // In the context too: a block chained into loads it at its entry.
        self.b.ins().store(flags(), len, self.ctx, off::WRAM_LEN);
        self.b.def_var(self.wram_len, len);
        self.b.ins().jump(done, &[]);
        self.b.set_cold_block(slow);
        self.b.switch_to_block(slow);
        let a = self.b.ins().iconst(types::I32, 0xFF70);
        self.write_slow(a, v);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
    }

    fn write_slow(&mut self, a: Value, v: Value) {
        let v = self.b.ins().uextend(types::I32, v);
        let r = self.callback(off::WRITE, self.write_sig, &[a, v]);
        self.note_stop(r);
    }

    /// An IDU M-cycle with `addr` on the bus (the OAM bug's trigger).
    fn idle_idu(&mut self, addr: Addr) {
        self.cyc += 1;
        match addr {
            Addr::Const(a) if a >> 8 != 0xFE => {}
            Addr::Const(a) => {
                let a = self.b.ins().iconst(types::I32, a as i64);
                let r = self.callback(off::IDU, self.idu_sig, &[a]);
                self.note_stop(r);
            }
            Addr::Dyn(a) => {
                let a = self.addr32(a);
                let oam = self.b.create_block();
                let done = self.b.create_block();
                let hi = self.b.ins().ushr_imm_u(a, 8);
                let is_oam = self.b.ins().icmp_imm_u(IntCC::Equal, hi, 0xFE);
                self.b.ins().brif(is_oam, oam, &[], done, &[]);
                self.b.set_cold_block(oam);
                self.b.switch_to_block(oam);
                let r = self.callback(off::IDU, self.idu_sig, &[a]);
                self.note_stop(r);
                self.b.ins().jump(done, &[]);
                self.b.switch_to_block(done);
            }
        }
    }

    fn push16(&mut self, v: Value) {
        let sp = self.b.use_var(self.sp);
        self.idle_idu(Addr::Dyn(sp));
        let sp = self.b.ins().iadd_imm_s(sp, -1);
        let hi = self.b.ins().ushr_imm_u(v, 8);
        let hi = self.b.ins().ireduce(types::I8, hi);
        self.write(Addr::Dyn(sp), hi);
        let sp = self.b.ins().iadd_imm_s(sp, -1);
        let lo = self.b.ins().ireduce(types::I8, v);
        self.write(Addr::Dyn(sp), lo);
        self.b.def_var(self.sp, sp);
    }

    fn pop16(&mut self) -> Value {
        let sp = self.b.use_var(self.sp);
        let lo = self.read(Addr::Dyn(sp), true);
        let sp = self.b.ins().iadd_imm_s(sp, 1);
        let hi = self.read(Addr::Dyn(sp), false);
        let sp = self.b.ins().iadd_imm_s(sp, 1);
        self.b.def_var(self.sp, sp);
        let lo = self.b.ins().uextend(types::I16, lo);
        let hi = self.b.ins().uextend(types::I16, hi);
        let hi = self.b.ins().ishl_imm_u(hi, 8);
        self.b.ins().bor(hi, lo)
    }

    // ---- exits -------------------------------------------------------

    /// Leave with PC `pc` and the clock `cyc` M-cycles after the start
    /// (through the shared exit, which may chain into the next block).
    fn exit(&mut self, pc: Value, cyc: u32) {
        self.exit_to(pc, cyc, true);
    }

    fn exit_to(&mut self, pc: Value, cyc: u32, chain: bool) {
        let base = self.b.use_var(self.base);
        let now = self.b.ins().iadd_imm_s(base, 4 * cyc as i64);
        let chain = if chain && self.sub_called {
            // Never after a callback that ended the run.
            let stop = self.b.use_var(self.stop);
            self.b.ins().bxor_imm_u(stop, 1)
        } else {
            self.b.ins().iconst(types::I8, chain as i64)
        };
        let blk = self.exit_blk;
        self.b
            .ins()
            .jump(blk, &[pc.into(), now.into(), chain.into()]);
    }

    /// The shared exit: write the registers, PC and clock back; then, when
    /// the path may chain, return the next block where `jit::Chain` allows
    /// it, else null.
    fn emit_exit_block(&mut self) {
        let blk = self.exit_blk;
        self.b.switch_to_block(blk);
        let [pc, now, chain] = [0, 1, 2].map(|i| self.b.block_params(blk)[i]);
        for (var, slot) in self.r.into_iter().zip(REG_SLOT) {
            let v = self.b.use_var(var);
            self.b.ins().store(flags(), v, self.ctx, off::REGS + slot);
        }
        let mut f = self.b.ins().iconst(types::I8, 0);
        for (bit, v) in [(7, self.fz), (6, self.fn_), (5, self.fh), (4, self.fc)] {
            let x = self.b.use_var(v);
            let x = self.b.ins().ishl_imm_u(x, bit);
            f = self.b.ins().bor(f, x);
        }
        self.b.ins().store(flags(), f, self.ctx, off::REGS + 1);
        let sp = self.b.use_var(self.sp);
        self.b.ins().store(flags(), sp, self.ctx, off::SP);
        self.b.ins().store(flags(), pc, self.ctx, off::PC);
        self.b.ins().store(flags(), now, self.ctx, off::NOW);

        let ret0 = self.b.create_block();
        let try_chain = self.b.create_block();
        let low = self.b.create_block();
        let high_check = self.b.create_block();
        let high = self.b.create_block();
        let lookup = self.b.create_block();
        self.b.append_block_param(lookup, types::I64);
        let look2 = self.b.create_block();
        let admit = self.b.create_block();
        let retp = self.b.create_block();
        let ptr = self.ptr;
        self.b.ins().brif(chain, try_chain, &[], ret0, &[]);

        self.b.switch_to_block(try_chain);
        let pc64 = self.b.ins().uextend(types::I64, pc);
        let is_low = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThan, pc64, 0x4000);
        self.b.ins().brif(is_low, low, &[], high_check, &[]);

        self.b.switch_to_block(low);
        let base = self.b.ins().load(types::I64, flags(), self.ctx, off::ROM0);
        let o = self.b.ins().iadd(base, pc64);
        self.b.ins().jump(lookup, &[o.into()]);

        self.b.switch_to_block(high_check);
        let in_x = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThan, pc64, 0x8000);
        self.b.ins().brif(in_x, high, &[], ret0, &[]);

        self.b.switch_to_block(high);
        let base = self.b.ins().load(types::I64, flags(), self.ctx, off::ROMX);
        let o = self.b.ins().iadd(base, pc64);
        let o = self.b.ins().iadd_imm_s(o, -0x4000);
        self.b.ins().jump(lookup, &[o.into()]);

        self.b.switch_to_block(lookup);
        let o = self.b.block_params(lookup)[0];
        let len = self
            .b
            .ins()
            .load(types::I64, flags(), self.ctx, off::SLOTS_LEN);
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, o, len);
        self.b.ins().brif(inside, look2, &[], ret0, &[]);

        self.b.switch_to_block(look2);
        let slots = self.b.ins().load(ptr, flags(), self.ctx, off::SLOTS);
        let o8 = self.b.ins().ishl_imm_u(o, 3);
        let at = self.b.ins().iadd(slots, o8);
        let p = self.b.ins().load(ptr, flags(), at, 0);
        // Slots 0 to 2 are the marks (untried, declined, queued).
        let is_block = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThan, p, super::QUEUED as i64);
        self.b.ins().brif(is_block, admit, &[], ret0, &[]);

        self.b.switch_to_block(admit);
        let need = self
            .b
            .ins()
            .load(types::I64, flags(), p, off::BLOCK_ADMIT_T);
        let end = self.b.ins().iadd(now, need);
        let horizon = self
            .b
            .ins()
            .load(types::I64, flags(), self.ctx, off::HORIZON);
        let fits = self.b.ins().icmp(IntCC::UnsignedLessThan, end, horizon);
        self.b.ins().brif(fits, retp, &[], ret0, &[]);

        self.b.switch_to_block(retp);
        self.b.ins().return_(&[p]);

        self.b.switch_to_block(ret0);
        let null = self.b.ins().iconst(ptr, 0);
        self.b.ins().return_(&[null]);
    }

    /// After an instruction that may have called back: leave if the run
    /// must end.
    fn stop_check(&mut self) {
        if !self.called {
            return;
        }
        let out = self.b.create_block();
        let go_on = self.b.create_block();
        let stop = self.b.use_var(self.stop);
        self.b.ins().brif(stop, out, &[], go_on, &[]);
        self.b.set_cold_block(out);
        self.b.switch_to_block(out);
        let pc = self.c16(self.pc);
        self.exit_to(pc, self.cyc, false);
        self.b.switch_to_block(go_on);
    }

    /// Emit run `i` of the region, `sub`, into its block.
    fn sub_block(&mut self, i: usize, sub: &Sub) {
        let blk = self.region[i].1;
        self.b.switch_to_block(blk);
        self.pc = sub.start;
        self.cyc = 0;
        self.sub_called = false;
        let zero = self.c8(0);
        self.b.def_var(self.stop, zero);
        let n = sub.insts.len();
        for (k, inst) in sub.insts.iter().enumerate() {
            self.instruction(inst.op, k + 1 == n);
        }
        if run_role(sub.insts[n - 1].op) == RunRole::Plain {
            // Its last instruction was no branch: on after it.
            self.goto(self.pc, self.cyc);
        }
    }

    /// End the function.
    fn finish(mut self, config: TargetFrontendConfig) {
        self.emit_exit_block();
        self.b.seal_all_blocks();
        self.b.finalize(config);
    }

    /// Go on at the constant PC `target`, `cyc` M-cycles after the current
    /// run's start: inside the function when `target` starts a run of the
    /// region and that run's admission fits before the horizon (else back
    /// to the engine, which decides), or through the exit.
    fn goto(&mut self, target: u16, cyc: u32) {
        let Some(&(_, blk, admit)) = self.region.iter().find(|r| r.0 == target) else {
            let pc = self.c16(target);
            self.exit(pc, cyc);
            return;
        };
        let base = self.b.use_var(self.base);
        let now = self.b.ins().iadd_imm_s(base, 4 * cyc as i64);
        let end = self.b.ins().iadd_imm_s(now, 4 * admit as i64);
        let horizon = self.b.use_var(self.horizon);
        let mut fits = self.b.ins().icmp(IntCC::UnsignedLessThan, end, horizon);
        if self.sub_called {
            // Never after a callback that ended the run.
            let stop = self.b.use_var(self.stop);
            let on = self.b.ins().bxor_imm_u(stop, 1);
            fits = self.b.ins().band(fits, on);
        }
        let go = self.b.create_block();
        let out = self.b.create_block();
        self.b.ins().brif(fits, go, &[], out, &[]);
        self.b.set_cold_block(out);
        self.b.switch_to_block(out);
        let pc = self.c16(target);
        self.exit_to(pc, cyc, false);
        self.b.switch_to_block(go);
        self.b.def_var(self.base, now);
        self.b.ins().jump(blk, &[]);
    }

    /// Leave for `t`, `cyc` M-cycles after the run's start.
    fn leave(&mut self, t: Target, cyc: u32) {
        match t {
            Target::Const(pc) => self.goto(pc, cyc),
            Target::Dyn(pc) => self.exit(pc, cyc),
        }
    }

    /// A branch: taken (to what `taken` returns) or not taken (fall through
    /// to the next instruction). `cond` is an i8 0/1; `taken` emits the
    /// taken path's extra cycles and accesses and returns its PC.
    fn branch(&mut self, cond: Value, taken: impl FnOnce(&mut Self) -> Target) {
        let yes = self.b.create_block();
        let no = self.b.create_block();
        self.b.ins().brif(cond, yes, &[], no, &[]);
        let (cyc, pc) = (self.cyc, self.pc);
        self.b.switch_to_block(yes);
        let target = taken(self);
        self.leave(target, self.cyc);
        self.b.switch_to_block(no);
        self.cyc = cyc;
        self.goto(pc, cyc);
    }

    /// A jump, call or relative jump: always `taken` when `always`, else
    /// on the condition in bits 3-4 of `op` ([`Self::branch`]).
    fn jump(&mut self, always: bool, op: u8, taken: impl FnOnce(&mut Self) -> Target) {
        if always {
            let t = taken(self);
            self.leave(t, self.cyc);
        } else {
            let c = self.cond(op >> 3);
            self.branch(c, taken);
        }
    }

    fn cond(&mut self, cc: u8) -> Value {
        let (flag, want) = match cc & 3 {
            0 => (self.fz, 0),
            1 => (self.fz, 1),
            2 => (self.fc, 0),
            _ => (self.fc, 1),
        };
        let f = self.b.use_var(flag);
        if want == 1 {
            f
        } else {
            self.b.ins().bxor_imm_u(f, 1)
        }
    }

    // ---- ALU -----------------------------------------------------------

    fn alu(&mut self, kind: u8, v: Value) {
        let a = self.get(A);
        let zero = self.c8(0);
        let one = self.c8(1);
        match kind & 7 {
            0 | 1 => {
                let cin = if kind & 7 == 1 {
                    self.b.use_var(self.fc)
                } else {
                    zero
                };
                let a16 = self.b.ins().uextend(types::I16, a);
                let v16 = self.b.ins().uextend(types::I16, v);
                let c16 = self.b.ins().uextend(types::I16, cin);
                let s = self.b.ins().iadd(a16, v16);
                let s = self.b.ins().iadd(s, c16);
                let r = self.b.ins().ireduce(types::I8, s);
                let al = self.b.ins().band_imm_u(a, 0xF);
                let vl = self.b.ins().band_imm_u(v, 0xF);
                let hs = self.b.ins().iadd(al, vl);
                let hs = self.b.ins().iadd(hs, cin);
                let h = self.b.ins().icmp_imm_u(IntCC::UnsignedGreaterThan, hs, 0xF);
                let c = self.b.ins().icmp_imm_u(IntCC::UnsignedGreaterThan, s, 0xFF);
                let z = self.is_zero(r);
                self.set_flags(z, zero, h, c);
                self.set(A, r);
            }
            2 | 3 | 7 => {
                let cin = if kind & 7 == 3 {
                    self.b.use_var(self.fc)
                } else {
                    zero
                };
                let r = self.b.ins().isub(a, v);
                let r = self.b.ins().isub(r, cin);
                let al = self.b.ins().band_imm_u(a, 0xF);
                let vl = self.b.ins().band_imm_u(v, 0xF);
                let vl = self.b.ins().iadd(vl, cin);
                let h = self.b.ins().icmp(IntCC::UnsignedLessThan, al, vl);
                let a16 = self.b.ins().uextend(types::I16, a);
                let v16 = self.b.ins().uextend(types::I16, v);
                let c16 = self.b.ins().uextend(types::I16, cin);
                let v16 = self.b.ins().iadd(v16, c16);
                let c = self.b.ins().icmp(IntCC::UnsignedLessThan, a16, v16);
                let z = self.is_zero(r);
                self.set_flags(z, one, h, c);
                if kind & 7 != 7 {
                    self.set(A, r);
                }
            }
            4 => {
                let r = self.b.ins().band(a, v);
                let z = self.is_zero(r);
                self.set_flags(z, zero, one, zero);
                self.set(A, r);
            }
            5 => {
                let r = self.b.ins().bxor(a, v);
                let z = self.is_zero(r);
                self.set_flags(z, zero, zero, zero);
                self.set(A, r);
            }
            _ => {
                let r = self.b.ins().bor(a, v);
                let z = self.is_zero(r);
                self.set_flags(z, zero, zero, zero);
                self.set(A, r);
            }
        }
    }

    fn inc8(&mut self, v: Value) -> Value {
        let r = self.b.ins().iadd_imm_s(v, 1);
        let lo = self.b.ins().band_imm_u(r, 0xF);
        let h = self.is_zero(lo);
        let z = self.is_zero(r);
        let zero = self.c8(0);
        self.b.def_var(self.fz, z);
        self.b.def_var(self.fn_, zero);
        self.b.def_var(self.fh, h);
        r
    }

    fn dec8(&mut self, v: Value) -> Value {
        let r = self.b.ins().iadd_imm_s(v, -1);
        let lo = self.b.ins().band_imm_u(v, 0xF);
        let h = self.is_zero(lo);
        let z = self.is_zero(r);
        let one = self.c8(1);
        self.b.def_var(self.fz, z);
        self.b.def_var(self.fn_, one);
        self.b.def_var(self.fh, h);
        r
    }

    /// The CB-table operation `op` on `v`; `None` for BIT (no result).
    fn cb(&mut self, op: u8, v: Value) -> Option<Value> {
        let zero = self.c8(0);
        let n = (op >> 3) & 7;
        match op >> 6 {
            0 => {
                let (r, c) = match n {
                    0 => (self.b.ins().rotl_imm_u(v, 1), self.b.ins().ushr_imm_u(v, 7)),
                    1 => (self.b.ins().rotr_imm_u(v, 1), self.b.ins().band_imm_u(v, 1)),
                    2 => {
                        let cin = self.b.use_var(self.fc);
                        let s = self.b.ins().ishl_imm_u(v, 1);
                        (self.b.ins().bor(s, cin), self.b.ins().ushr_imm_u(v, 7))
                    }
                    3 => {
                        let cin = self.b.use_var(self.fc);
                        let cin = self.b.ins().ishl_imm_u(cin, 7);
                        let s = self.b.ins().ushr_imm_u(v, 1);
                        (self.b.ins().bor(s, cin), self.b.ins().band_imm_u(v, 1))
                    }
                    4 => (self.b.ins().ishl_imm_u(v, 1), self.b.ins().ushr_imm_u(v, 7)),
                    5 => (self.b.ins().sshr_imm_u(v, 1), self.b.ins().band_imm_u(v, 1)),
                    6 => (self.b.ins().rotl_imm_u(v, 4), zero),
                    _ => (self.b.ins().ushr_imm_u(v, 1), self.b.ins().band_imm_u(v, 1)),
                };
                let z = self.is_zero(r);
                self.set_flags(z, zero, zero, c);
                Some(r)
            }
            1 => {
                let m = self.b.ins().band_imm_u(v, 1i64 << n);
                let z = self.is_zero(m);
                let one = self.c8(1);
                self.b.def_var(self.fz, z);
                self.b.def_var(self.fn_, zero);
                self.b.def_var(self.fh, one);
                None
            }
            2 => Some(self.b.ins().band_imm_u(v, !(1i64 << n) & 0xFF)),
            _ => Some(self.b.ins().bor_imm_u(v, 1i64 << n)),
        }
    }

    /// SP + the signed immediate `e`, setting H and C from the low byte.
    fn sp_plus_e(&mut self, e: u8) -> Value {
        let sp = self.b.use_var(self.sp);
        let lo = self.b.ins().band_imm_u(sp, 0xF);
        let hs = self.b.ins().iadd_imm_s(lo, (e & 0xF) as i64);
        let h = self.b.ins().icmp_imm_u(IntCC::UnsignedGreaterThan, hs, 0xF);
        let lo = self.b.ins().band_imm_u(sp, 0xFF);
        let cs = self.b.ins().iadd_imm_s(lo, e as i64);
        let c = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThan, cs, 0xFF);
        let zero = self.c8(0);
        self.set_flags(zero, zero, h, c);
        self.b.ins().iadd_imm_s(sp, e as i8 as i64)
    }

    // ---- instructions --------------------------------------------------

    /// Emit the instruction at `self.pc` (its opcode `op`); `last`: the
    /// block's last (a branch there exits).
    fn instruction(&mut self, op: u8, last: bool) {
        self.called = false;
        // The opcode fetch.
        self.cyc += 1;
        self.pc = self.pc.wrapping_add(1);
        let hl_op = |s: &mut Self| s.pair(H, L);
        match op {
            0x00 => {}
            0x01 | 0x11 | 0x21 | 0x31 => {
                let v = self.imm16();
                let v = self.c16(v);
                self.set_rr(op >> 4, v);
            }
            0x02 | 0x12 => {
                let a = self.rr(op >> 4);
                let v = self.get(A);
                self.write(Addr::Dyn(a), v);
            }
            0x0A | 0x1A => {
                let a = self.rr(op >> 4);
                let v = self.read(Addr::Dyn(a), false);
                self.set(A, v);
            }
            0x22 | 0x32 => {
                let hl = hl_op(self);
                let v = self.get(A);
                self.write(Addr::Dyn(hl), v);
                let d = if op == 0x22 { 1 } else { -1 };
                let hl = self.b.ins().iadd_imm_s(hl, d);
                self.set_pair(H, L, hl);
            }
            0x2A | 0x3A => {
                let hl = hl_op(self);
                let v = self.read(Addr::Dyn(hl), true);
                self.set(A, v);
                let d = if op == 0x2A { 1 } else { -1 };
                let hl = self.b.ins().iadd_imm_s(hl, d);
                self.set_pair(H, L, hl);
            }
            0x03 | 0x13 | 0x23 | 0x33 | 0x0B | 0x1B | 0x2B | 0x3B => {
                let v = self.rr(op >> 4);
                self.idle_idu(Addr::Dyn(v));
                let d = if op & 8 == 0 { 1 } else { -1 };
                let v = self.b.ins().iadd_imm_s(v, d);
                self.set_rr(op >> 4, v);
            }
            0x34 | 0x35 => {
                let hl = hl_op(self);
                let v = self.read(Addr::Dyn(hl), false);
                let r = if op == 0x34 {
                    self.inc8(v)
                } else {
                    self.dec8(v)
                };
                self.write(Addr::Dyn(hl), r);
            }
            0x36 => {
                let n = self.imm8();
                let hl = hl_op(self);
                let v = self.c8(n);
                self.write(Addr::Dyn(hl), v);
            }
            0x04 | 0x0C | 0x14 | 0x1C | 0x24 | 0x2C | 0x3C => {
                let r = reg(op >> 3);
                let v = self.get(r);
                let v = self.inc8(v);
                self.set(r, v);
            }
            0x05 | 0x0D | 0x15 | 0x1D | 0x25 | 0x2D | 0x3D => {
                let r = reg(op >> 3);
                let v = self.get(r);
                let v = self.dec8(v);
                self.set(r, v);
            }
            0x06 | 0x0E | 0x16 | 0x1E | 0x26 | 0x2E | 0x3E => {
                let n = self.imm8();
                let v = self.c8(n);
                self.set(reg(op >> 3), v);
            }
            0x07 | 0x0F | 0x17 | 0x1F => {
                let a = self.get(A);
                let r = self.cb(op >> 3 << 3, a).unwrap_or(a);
                // Unlike the CB rotates, Z is always cleared.
                let zero = self.c8(0);
                self.b.def_var(self.fz, zero);
                self.set(A, r);
            }
            0x08 => {
                let a = self.imm16();
                let sp = self.b.use_var(self.sp);
                let lo = self.b.ins().ireduce(types::I8, sp);
                let hi = self.b.ins().ushr_imm_u(sp, 8);
                let hi = self.b.ins().ireduce(types::I8, hi);
                self.write(Addr::Const(a), lo);
                self.write(Addr::Const(a.wrapping_add(1)), hi);
            }
            0x09 | 0x19 | 0x29 | 0x39 => {
                self.idle();
                let v = self.rr(op >> 4);
                let hl = hl_op(self);
                let r = self.b.ins().iadd(hl, v);
                let hl12 = self.b.ins().band_imm_u(hl, 0xFFF);
                let v12 = self.b.ins().band_imm_u(v, 0xFFF);
                let s12 = self.b.ins().iadd(hl12, v12);
                let h = self
                    .b
                    .ins()
                    .icmp_imm_u(IntCC::UnsignedGreaterThan, s12, 0xFFF);
                let c = self.b.ins().icmp(IntCC::UnsignedLessThan, r, hl);
                let zero = self.c8(0);
                self.b.def_var(self.fn_, zero);
                self.b.def_var(self.fh, h);
                self.b.def_var(self.fc, c);
                self.set_pair(H, L, r);
            }
            0x27 => {
                let a = self.get(A);
                let fc = self.b.use_var(self.fc);
                let fh = self.b.use_var(self.fh);
                let fnn = self.b.use_var(self.fn_);
                // N = 0.
                let big = self.b.ins().icmp_imm_u(IntCC::UnsignedGreaterThan, a, 0x99);
                let carry_add = self.b.ins().bor(fc, big);
                let a60 = self.b.ins().iadd_imm_s(a, 0x60);
                let a1 = self.b.ins().select(carry_add, a60, a);
                let lo = self.b.ins().band_imm_u(a1, 0xF);
                let lo_big = self.b.ins().icmp_imm_u(IntCC::UnsignedGreaterThan, lo, 9);
                let adj = self.b.ins().bor(fh, lo_big);
                let a16 = self.b.ins().iadd_imm_s(a1, 6);
                let add = self.b.ins().select(adj, a16, a1);
                // N = 1.
                let s60 = self.b.ins().iadd_imm_s(a, -0x60);
                let s1 = self.b.ins().select(fc, s60, a);
                let s6 = self.b.ins().iadd_imm_s(s1, -6);
                let sub = self.b.ins().select(fh, s6, s1);
                let r = self.b.ins().select(fnn, sub, add);
                let c = self.b.ins().select(fnn, fc, carry_add);
                let z = self.is_zero(r);
                let zero = self.c8(0);
                self.b.def_var(self.fz, z);
                self.b.def_var(self.fh, zero);
                self.b.def_var(self.fc, c);
                self.set(A, r);
            }
            0x2F => {
                let a = self.get(A);
                let r = self.b.ins().bnot(a);
                self.set(A, r);
                let one = self.c8(1);
                self.b.def_var(self.fn_, one);
                self.b.def_var(self.fh, one);
            }
            0x37 | 0x3F => {
                let zero = self.c8(0);
                let c = if op == 0x37 {
                    self.c8(1)
                } else {
                    let c = self.b.use_var(self.fc);
                    self.b.ins().bxor_imm_u(c, 1)
                };
                self.b.def_var(self.fn_, zero);
                self.b.def_var(self.fh, zero);
                self.b.def_var(self.fc, c);
            }
            0x40..=0x7F => {
                let (dst, src) = ((op >> 3) & 7, op & 7);
                let v = if src == 6 {
                    let hl = hl_op(self);
                    self.read(Addr::Dyn(hl), false)
                } else {
                    self.get(reg(src))
                };
                if dst == 6 {
                    let hl = hl_op(self);
                    self.write(Addr::Dyn(hl), v);
                } else {
                    self.set(reg(dst), v);
                }
            }
            0x80..=0xBF => {
                let src = op & 7;
                let v = if src == 6 {
                    let hl = hl_op(self);
                    self.read(Addr::Dyn(hl), false)
                } else {
                    self.get(reg(src))
                };
                self.alu(op >> 3, v);
            }
            0xC6 | 0xCE | 0xD6 | 0xDE | 0xE6 | 0xEE | 0xF6 | 0xFE => {
                let n = self.imm8();
                let v = self.c8(n);
                self.alu(op >> 3, v);
            }
            0xC1 | 0xD1 | 0xE1 => {
                let v = self.pop16();
                self.set_rr((op >> 4) & 3, v);
            }
            0xF1 => {
                let v = self.pop16();
                let hi = self.b.ins().ushr_imm_u(v, 8);
                let hi = self.b.ins().ireduce(types::I8, hi);
                self.set(A, hi);
                let lo = self.b.ins().ireduce(types::I8, v);
                for (bit, var) in [(7, self.fz), (6, self.fn_), (5, self.fh), (4, self.fc)] {
                    let x = self.b.ins().ushr_imm_u(lo, bit);
                    let x = self.b.ins().band_imm_u(x, 1);
                    self.b.def_var(var, x);
                }
            }
            0xC5 | 0xD5 | 0xE5 => {
                let v = self.rr((op >> 4) & 3);
                self.push16(v);
            }
            0xF5 => {
                let a = self.get(A);
                let a = self.b.ins().uextend(types::I16, a);
                let a = self.b.ins().ishl_imm_u(a, 8);
                let mut f = self.b.ins().iconst(types::I16, 0);
                for (bit, var) in [(7, self.fz), (6, self.fn_), (5, self.fh), (4, self.fc)] {
                    let x = self.b.use_var(var);
                    let x = self.b.ins().uextend(types::I16, x);
                    let x = self.b.ins().ishl_imm_u(x, bit);
                    f = self.b.ins().bor(f, x);
                }
                let v = self.b.ins().bor(a, f);
                self.push16(v);
            }
            0xCB => {
                let op2 = self.imm8();
                let r = op2 & 7;
                if r == 6 {
                    let hl = hl_op(self);
                    let v = self.read(Addr::Dyn(hl), false);
                    if let Some(res) = self.cb(op2, v) {
                        self.write(Addr::Dyn(hl), res);
                    }
                } else {
                    let v = self.get(reg(r));
                    if let Some(res) = self.cb(op2, v) {
                        self.set(reg(r), res);
                    }
                }
            }
            0xE0 => {
                let n = self.imm8();
                let v = self.get(A);
                self.write(Addr::Const(0xFF00 | n as u16), v);
            }
            0xF0 => {
                let n = self.imm8();
                let v = self.read(Addr::Const(0xFF00 | n as u16), false);
                self.set(A, v);
            }
            0xE2 | 0xF2 => {
                let c = self.get(C);
                let c = self.b.ins().uextend(types::I16, c);
                let a = self.b.ins().bor_imm_u(c, 0xFF00);
                if op == 0xE2 {
                    let v = self.get(A);
                    self.write(Addr::Dyn(a), v);
                } else {
                    let v = self.read(Addr::Dyn(a), false);
                    self.set(A, v);
                }
            }
            0xE8 => {
                let e = self.imm8();
                let v = self.sp_plus_e(e);
                self.b.def_var(self.sp, v);
                self.idle();
                self.idle();
            }
            0xF8 => {
                let e = self.imm8();
                let v = self.sp_plus_e(e);
                self.idle();
                self.set_pair(H, L, v);
            }
            0xF9 => {
                self.idle();
                let hl = hl_op(self);
                self.b.def_var(self.sp, hl);
            }
            0xEA => {
                let a = self.imm16();
                let v = self.get(A);
                self.write(Addr::Const(a), v);
            }
            0xFA => {
                let a = self.imm16();
                let v = self.read(Addr::Const(a), false);
                self.set(A, v);
            }
            // ---- the block's last instruction: control flow ----
            0x18 | 0x20 | 0x28 | 0x30 | 0x38 => {
                let e = self.imm8() as i8;
                let target = self.pc.wrapping_add(e as i16 as u16);
                let taken = move |s: &mut Self| {
                    s.idle();
                    Target::Const(target)
                };
                self.jump(op == 0x18, op, taken);
            }
            0xC3 | 0xC2 | 0xCA | 0xD2 | 0xDA => {
                let target = self.imm16();
                let taken = move |s: &mut Self| {
                    s.idle();
                    Target::Const(target)
                };
                self.jump(op == 0xC3, op, taken);
            }
            0xE9 => {
                let hl = hl_op(self);
                self.exit(hl, self.cyc);
            }
            0xCD | 0xC4 | 0xCC | 0xD4 | 0xDC => {
                let target = self.imm16();
                let ret = self.pc;
                let taken = move |s: &mut Self| {
                    let r = s.c16(ret);
                    s.push16(r);
                    Target::Const(target)
                };
                self.jump(op == 0xCD, op, taken);
            }
            0xC9 => {
                let pc = self.pop16();
                self.idle();
                self.exit(pc, self.cyc);
            }
            0xC0 | 0xC8 | 0xD0 | 0xD8 => {
                self.idle();
                let c = self.cond(op >> 3);
                self.branch(c, |s| {
                    let pc = s.pop16();
                    s.idle();
                    Target::Dyn(pc)
                });
            }
            0xC7 | 0xCF | 0xD7 | 0xDF | 0xE7 | 0xEF | 0xF7 | 0xFF => {
                let r = self.c16(self.pc);
                self.push16(r);
                self.goto((op & 0x38) as u16, self.cyc);
            }
            _ => unreachable!("declined opcode {op:#04x} in a block"),
        }
        if !last {
            self.stop_check();
        }
    }
}
