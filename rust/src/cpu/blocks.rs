//! Work-RAM code decoded once into blocks and run with its timing known
//! ahead (the second execution model of the fast path; its reference twin
//! is the interpreter on `Bus<true>`).
//!
//! A *block* is the straight-line code from one work-RAM address up to and
//! including the first jump, call, restart, return, HALT or EI, or up to 32
//! bytes, or up to STOP or an undefined opcode (left to the interpreter).
//! Decoding turns each instruction into a [`Rec`]: its opcode, its
//! immediate (a JR's target already computed), its address and the M-cycle
//! at which it starts, counted from the start of the block. Every
//! instruction but the last never branches, so those counts are exact, and
//! the last takes at most six M-cycles: the block's length in M-cycles is
//! known before it runs.
//!
//! [`run_blocks`] admits a block only when all of its M-cycles come before
//! the next event (one compare per block), then runs its records with no
//! clock at all: an access that needs the time (I/O, VRAM, OAM, the OAM bug
//! of the increment unit, anything but ROM, work RAM and HRAM) computes it
//! from the block's start and the access's M-cycle, exactly the time the
//! interpreter would have ticked to, and goes through the bus's slow path.
//! A slow access that may have changed anything (a write, a read that
//! raised an interrupt request or moved the next event) ends the block
//! after its instruction, as it ends a straight run.
//!
//! Blocks are kept in a [`BlockCache`] per thread, indexed by address and
//! checked against the work-RAM bytes they were decoded from every time
//! they run (four 64-bit compares), so code that was rewritten, by the CPU,
//! a state load or a debugger poke, is decoded again. A write from inside a
//! block to the block's own bytes ends the block after that instruction
//! (`BlockBus::set_code`). Decoded blocks are derived from memory alone:
//! nothing of them is saved, and a machine runs the same whichever thread
//! or cache it runs on.

use super::runs::{max_cycles, run_role, RunRole};
use super::{instruction_length, Cpu, CpuHost};
use crate::bus::{Ram, WRAM_SIZE};

/// Bytes of code a block covers at most (four 64-bit words to check).
const BLOCK_BYTES: usize = 32;
/// Records of a block: at most 31 instructions and the end marker.
const RECS: usize = 32;
/// Blocks kept per thread (direct-mapped by address).
const SLOTS: usize = 1024;
/// The opcode of the record that ends a block cut short (an undefined
/// opcode, never decoded into a block).
const END: u8 = 0xD3;
/// `Block::tag` of an empty slot (no work-RAM offset).
const EMPTY: u16 = 0xFFFF;

/// One decoded instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rec {
    /// The opcode ([`END`] for the end of a block cut short).
    op: u8,
    /// The opcode after a 0xCB prefix.
    x: u8,
    /// M-cycles from the block's start to this instruction's start.
    m: u8,
    /// The immediate (byte or little-endian word); for JR the target.
    imm: u16,
    /// The instruction's address (for [`END`]: where the block ends).
    pc: u16,
}

impl Rec {
    /// One word per record: the loop loads one word per instruction.
    fn pack(self) -> u64 {
        self.op as u64
            | (self.m as u64) << 8
            | (self.imm as u64) << 16
            | (self.pc as u64) << 32
            | (self.x as u64) << 48
    }

    #[inline(always)]
    fn unpack(v: u64) -> Rec {
        Rec {
            op: v as u8,
            m: (v >> 8) as u8,
            imm: (v >> 16) as u16,
            pc: (v >> 32) as u16,
            x: (v >> 48) as u8,
        }
    }
}

const NO_REC: Rec = Rec {
    op: END,
    x: 0,
    m: 0,
    imm: 0,
    pc: 0,
};

/// A decoded block of work-RAM code.
#[derive(Debug, Clone)]
pub(crate) struct Block {
    /// The work-RAM offset of its first byte, or [`EMPTY`].
    tag: u16,
    /// An upper bound of its M-cycles (its last instruction at its longest).
    max: u8,
    /// Bytes of code it covers.
    len: u8,
    /// Those bytes, as four little-endian words (zero past `len`)...
    words: [u64; 4],
    /// ...and which of their bits count.
    masks: [u64; 4],
    /// Its instructions, packed (`Rec::pack`).
    recs: [u64; RECS],
}

const EMPTY_BLOCK: Block = Block {
    tag: EMPTY,
    max: 0,
    len: 0,
    words: [0; 4],
    masks: [0; 4],
    recs: [0; RECS],
};

impl Block {
    /// The work-RAM code at offset `at` (the 32 bytes from there: WRAM_SIZE
    /// plus HRAM leaves room), decoded; `None` where no instruction can run
    /// in a block (STOP, an undefined opcode, an instruction running past
    /// the end of work RAM).
    fn decode(at: u16, code: &[u8; BLOCK_BYTES]) -> Option<Block> {
        let avail = BLOCK_BYTES.min(WRAM_SIZE - at as usize);
        let addr = |o: usize| 0xC000u16.wrapping_add(at).wrapping_add(o as u16);
        let mut block = EMPTY_BLOCK;
        let (mut o, mut n, mut m) = (0usize, 0usize, 0u8);
        let max = loop {
            let op = code[o.min(BLOCK_BYTES - 1)];
            let len = instruction_length(op) as usize;
            let next = code.get(o + 1).copied().unwrap_or(0);
            let cycles = max_cycles(op, next);
            let (Some(cycles), true, true) = (cycles, o + len <= avail, n < RECS - 1) else {
                block.recs[n] = Rec {
                    m,
                    pc: addr(o),
                    ..NO_REC
                }
                .pack();
                break m;
            };
            let imm = match op {
                // JR: the target.
                0x18 | 0x20 | 0x28 | 0x30 | 0x38 => addr(o + 2).wrapping_add(next as i8 as u16),
                _ if len == 3 => u16::from_le_bytes([next, code[o + 2]]),
                _ if len == 2 => next as u16,
                _ => 0,
            };
            block.recs[n] = Rec {
                op,
                x: if op == 0xCB { next } else { 0 },
                m,
                imm,
                pc: addr(o),
            }
            .pack();
            n += 1;
            o += len;
            if run_role(op) == RunRole::Last {
                break m + cycles;
            }
            m += cycles;
        };
        if n == 0 {
            return None;
        }
        block.tag = at;
        block.max = max;
        block.len = o as u8;
        for (w, chunk) in code.chunks_exact(8).enumerate() {
            let bits = (o.saturating_sub(8 * w)).min(8) * 8;
            block.masks[w] = if bits == 64 { !0 } else { (1u64 << bits) - 1 };
            block.words[w] = u64::from_le_bytes(chunk.try_into().unwrap()) & block.masks[w];
        }
        Some(block)
    }

    /// Whether `code` (the 32 bytes at the block's offset) still holds the
    /// bytes the block was decoded from.
    #[inline(always)]
    fn holds(&self, code: &[u8; BLOCK_BYTES]) -> bool {
        let mut diff = 0;
        for (w, chunk) in code.chunks_exact(8).enumerate() {
            let v = u64::from_le_bytes(chunk.try_into().unwrap());
            diff |= (v ^ self.words[w]) & self.masks[w];
        }
        diff == 0
    }
}

/// The decoded blocks of one thread (see the module doc).
pub(crate) struct BlockCache {
    slots: Box<[Block]>,
}

impl Default for BlockCache {
    fn default() -> Self {
        BlockCache {
            slots: vec![EMPTY_BLOCK; SLOTS].into_boxed_slice(),
        }
    }
}

impl BlockCache {
    /// The block at work-RAM offset `at` (below WRAM_SIZE) as `ram` holds
    /// it now, decoded if its slot holds something else.
    #[inline(always)]
    fn get(&mut self, at: u16, ram: &Ram) -> Option<&Block> {
        let i = at as usize;
        let code: &[u8; BLOCK_BYTES] = ram[i..i + BLOCK_BYTES].try_into().unwrap();
        let slot = &mut self.slots[(i ^ (i >> 10)) & (SLOTS - 1)];
        if slot.tag != at || !slot.holds(code) {
            *slot = Block::decode(at, code)?;
        }
        Some(slot)
    }
}

/// Where [`run_blocks`] stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlocksEnd {
    /// PC left work RAM.
    Left,
    /// A slow access, a write to the running block's code or an
    /// instruction that changes the CPU's mode or IME ended a block: the
    /// interpreter's checks must run before the next instruction.
    Slow,
    /// The block at PC does not end before the next event.
    Wait,
    /// No block starts at PC (see [`Block::decode`]).
    NoBlock,
}

/// What [`run_blocks`] needs of the bus: its clock and memory, and accesses
/// made at a given time with no tick.
pub(crate) trait BlockBus: CpuHost {
    /// The clock (T-cycles).
    fn clock(&self) -> u64;
    /// Set the clock.
    fn set_clock(&mut self, now: u64);
    /// When the next event is due.
    fn next_event(&self) -> u64;
    /// Work RAM and HRAM.
    fn ram(&self) -> &Ram;
    /// The running block covers `len` bytes from work-RAM offset `at`: a
    /// write there ends it after its instruction.
    fn set_code(&mut self, at: u16, len: u16);
    /// Read `addr` in the M-cycle that ends at `now` (with `IDU`, as
    /// `CpuBus::read_idu`); false: the block must end after this instruction.
    fn read_at_time<const IDU: bool>(&mut self, addr: u16, now: u64) -> (u8, bool);
    /// Write `addr` in the M-cycle that ends at `now`; false as above.
    fn write_at(&mut self, addr: u16, value: u8, now: u64) -> bool;
    /// `CpuBus::idle_idu` in the M-cycle that ends at `now`; false as above.
    fn idle_idu_at(&mut self, addr: u16, now: u64) -> bool;
    /// A slow access of an instruction run on the bus (`CpuBus`) asked for
    /// the block to end.
    fn run_ended(&self) -> bool;
}

/// What a handler tells the block loop: go on with the next record...
const GO: u8 = 0;
/// ...the block ended, its last instruction run (PC and the clock set)...
const LAST: u8 = 1;
/// ...a slow access ended the block (PC and the clock set)...
const SLOW: u8 = 2;
/// ...or a slow access ends it after this instruction (the loop sets PC
/// and the clock from the next record).
const EXIT: u8 = 3;

/// The code of one opcode: the CPU, the bus, the packed record and the
/// time the block started. One function per opcode, called through a
/// table: each keeps its own few values in machine registers, where one
/// `match` over all of them spilled the register file (bench/README.md).
type Handler<B> = fn(&mut Cpu, &mut B, u64, u64) -> u8;

/// The handlers of a bus type, by opcode.
struct Ops<B>(std::marker::PhantomData<B>);

impl<B: BlockBus> Ops<B> {
    const TABLE: [Handler<B>; 256] = [
        op_00::<B>,
        op_01::<B>,
        op_02::<B>,
        op_03::<B>,
        op_04::<B>,
        op_05::<B>,
        op_06::<B>,
        op_07::<B>,
        op_08::<B>,
        op_09::<B>,
        op_0a::<B>,
        op_0b::<B>,
        op_0c::<B>,
        op_0d::<B>,
        op_0e::<B>,
        op_0f::<B>,
        op_end::<B>,
        op_11::<B>,
        op_12::<B>,
        op_13::<B>,
        op_14::<B>,
        op_15::<B>,
        op_16::<B>,
        op_17::<B>,
        op_18::<B>,
        op_19::<B>,
        op_1a::<B>,
        op_1b::<B>,
        op_1c::<B>,
        op_1d::<B>,
        op_1e::<B>,
        op_1f::<B>,
        op_20::<B>,
        op_21::<B>,
        op_22::<B>,
        op_23::<B>,
        op_24::<B>,
        op_25::<B>,
        op_26::<B>,
        op_27::<B>,
        op_28::<B>,
        op_29::<B>,
        op_2a::<B>,
        op_2b::<B>,
        op_2c::<B>,
        op_2d::<B>,
        op_2e::<B>,
        op_2f::<B>,
        op_30::<B>,
        op_31::<B>,
        op_32::<B>,
        op_33::<B>,
        op_34::<B>,
        op_35::<B>,
        op_36::<B>,
        op_37::<B>,
        op_38::<B>,
        op_39::<B>,
        op_3a::<B>,
        op_3b::<B>,
        op_3c::<B>,
        op_3d::<B>,
        op_3e::<B>,
        op_3f::<B>,
        op_40::<B>,
        op_41::<B>,
        op_42::<B>,
        op_43::<B>,
        op_44::<B>,
        op_45::<B>,
        op_46::<B>,
        op_47::<B>,
        op_48::<B>,
        op_49::<B>,
        op_4a::<B>,
        op_4b::<B>,
        op_4c::<B>,
        op_4d::<B>,
        op_4e::<B>,
        op_4f::<B>,
        op_50::<B>,
        op_51::<B>,
        op_52::<B>,
        op_53::<B>,
        op_54::<B>,
        op_55::<B>,
        op_56::<B>,
        op_57::<B>,
        op_58::<B>,
        op_59::<B>,
        op_5a::<B>,
        op_5b::<B>,
        op_5c::<B>,
        op_5d::<B>,
        op_5e::<B>,
        op_5f::<B>,
        op_60::<B>,
        op_61::<B>,
        op_62::<B>,
        op_63::<B>,
        op_64::<B>,
        op_65::<B>,
        op_66::<B>,
        op_67::<B>,
        op_68::<B>,
        op_69::<B>,
        op_6a::<B>,
        op_6b::<B>,
        op_6c::<B>,
        op_6d::<B>,
        op_6e::<B>,
        op_6f::<B>,
        op_70::<B>,
        op_71::<B>,
        op_72::<B>,
        op_73::<B>,
        op_74::<B>,
        op_75::<B>,
        op_last::<B>,
        op_77::<B>,
        op_78::<B>,
        op_79::<B>,
        op_7a::<B>,
        op_7b::<B>,
        op_7c::<B>,
        op_7d::<B>,
        op_7e::<B>,
        op_7f::<B>,
        op_80::<B>,
        op_81::<B>,
        op_82::<B>,
        op_83::<B>,
        op_84::<B>,
        op_85::<B>,
        op_86::<B>,
        op_87::<B>,
        op_88::<B>,
        op_89::<B>,
        op_8a::<B>,
        op_8b::<B>,
        op_8c::<B>,
        op_8d::<B>,
        op_8e::<B>,
        op_8f::<B>,
        op_90::<B>,
        op_91::<B>,
        op_92::<B>,
        op_93::<B>,
        op_94::<B>,
        op_95::<B>,
        op_96::<B>,
        op_97::<B>,
        op_98::<B>,
        op_99::<B>,
        op_9a::<B>,
        op_9b::<B>,
        op_9c::<B>,
        op_9d::<B>,
        op_9e::<B>,
        op_9f::<B>,
        op_a0::<B>,
        op_a1::<B>,
        op_a2::<B>,
        op_a3::<B>,
        op_a4::<B>,
        op_a5::<B>,
        op_a6::<B>,
        op_a7::<B>,
        op_a8::<B>,
        op_a9::<B>,
        op_aa::<B>,
        op_ab::<B>,
        op_ac::<B>,
        op_ad::<B>,
        op_ae::<B>,
        op_af::<B>,
        op_b0::<B>,
        op_b1::<B>,
        op_b2::<B>,
        op_b3::<B>,
        op_b4::<B>,
        op_b5::<B>,
        op_b6::<B>,
        op_b7::<B>,
        op_b8::<B>,
        op_b9::<B>,
        op_ba::<B>,
        op_bb::<B>,
        op_bc::<B>,
        op_bd::<B>,
        op_be::<B>,
        op_bf::<B>,
        op_c0::<B>,
        op_c1::<B>,
        op_c2::<B>,
        op_c3::<B>,
        op_c4::<B>,
        op_c5::<B>,
        op_c6::<B>,
        op_c7::<B>,
        op_c8::<B>,
        op_c9::<B>,
        op_ca::<B>,
        op_cb::<B>,
        op_cc::<B>,
        op_cd::<B>,
        op_ce::<B>,
        op_cf::<B>,
        op_d0::<B>,
        op_d1::<B>,
        op_d2::<B>,
        op_end::<B>,
        op_d4::<B>,
        op_d5::<B>,
        op_d6::<B>,
        op_d7::<B>,
        op_d8::<B>,
        op_last::<B>,
        op_da::<B>,
        op_end::<B>,
        op_dc::<B>,
        op_end::<B>,
        op_de::<B>,
        op_df::<B>,
        op_e0::<B>,
        op_e1::<B>,
        op_e2::<B>,
        op_end::<B>,
        op_end::<B>,
        op_e5::<B>,
        op_e6::<B>,
        op_e7::<B>,
        op_e8::<B>,
        op_e9::<B>,
        op_ea::<B>,
        op_end::<B>,
        op_end::<B>,
        op_end::<B>,
        op_ee::<B>,
        op_ef::<B>,
        op_f0::<B>,
        op_f1::<B>,
        op_f2::<B>,
        op_f3::<B>,
        op_end::<B>,
        op_f5::<B>,
        op_f6::<B>,
        op_f7::<B>,
        op_f8::<B>,
        op_f9::<B>,
        op_fa::<B>,
        op_last::<B>,
        op_end::<B>,
        op_end::<B>,
        op_fe::<B>,
        op_ff::<B>,
    ];
}

/// Run the blocks of work-RAM code from PC, one after the other, while each
/// ends before the next event. The caller has checked that the CPU is
/// running with no interrupt to take. The clock is the bus's.
#[inline(never)]
pub(crate) fn run_blocks<B: BlockBus>(
    cpu: Cpu,
    bus: &mut B,
    cache: &mut BlockCache,
) -> (Cpu, BlocksEnd) {
    let mut c = cpu;
    loop {
        let at = c.pc.wrapping_sub(0xC000);
        if at as usize >= WRAM_SIZE {
            return (c, BlocksEnd::Left);
        }
        let Some(block) = cache.get(at, bus.ram()) else {
            return (c, BlocksEnd::NoBlock);
        };
        let base = bus.clock();
        if base + 4 * block.max as u64 >= bus.next_event() {
            return (c, BlocksEnd::Wait);
        }
        bus.set_code(at, block.len as u16);
        let recs = &block.recs;
        let mut i = 0;
        let flow = loop {
            let w = recs[i & (RECS - 1)];
            i += 1;
            let flow = Ops::<B>::TABLE[w as u8 as usize](&mut c, bus, w, base);
            if flow != GO {
                break flow;
            }
        };
        match flow {
            LAST => {}
            EXIT => {
                let next = Rec::unpack(recs[i & (RECS - 1)]);
                c.pc = next.pc;
                bus.set_clock(base + 4 * next.m as u64);
                return (c, BlocksEnd::Slow);
            }
            _ => return (c, BlocksEnd::Slow),
        }
    }
}

/// PUSH `v` from the M-cycle that ends at `t0`: SP on the increment unit,
/// then the high and the low byte. False: a slow access ends the block.
#[inline(always)]
fn push<B: BlockBus>(v: u16, c: &mut Cpu, bus: &mut B, t0: u64) -> bool {
    let ok0 = bus.idle_idu_at(c.sp, t0);
    c.sp = c.sp.wrapping_sub(1);
    let ok1 = bus.write_at(c.sp, (v >> 8) as u8, t0 + 4);
    c.sp = c.sp.wrapping_sub(1);
    let ok2 = bus.write_at(c.sp, v as u8, t0 + 8);
    ok0 & ok1 & ok2
}

/// POP from the M-cycle that ends at `t0`: the low byte (with the increment
/// unit), then the high byte.
#[inline(always)]
fn pop<B: BlockBus>(c: &mut Cpu, bus: &mut B, t0: u64) -> (u16, bool) {
    let (lo, ok0) = bus.read_at_time::<true>(c.sp, t0);
    c.sp = c.sp.wrapping_add(1);
    let (hi, ok1) = bus.read_at_time::<false>(c.sp, t0 + 4);
    c.sp = c.sp.wrapping_add(1);
    (u16::from_le_bytes([lo, hi]), ok0 & ok1)
}

/// The end of a block cut short (STOP and the undefined opcodes are never
/// decoded into a block).
fn op_end<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    c.pc = d.pc;
    bus.set_clock(base + 4 * d.m as u64);
    LAST
}

/// HALT, RETI and EI, which end a block (they change the CPU's mode or
/// IME), run by the interpreter's code on the bus.
fn op_last<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    bus.set_clock(base + 4 * (d.m as u64 + 1));
    c.pc = d.pc.wrapping_add(1);
    c.execute(d.op, bus);
    SLOW
}

/// CB-prefixed opcodes: register forms here, (HL) forms by the
/// interpreter's code on the bus.
fn op_cb<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    if d.x & 7 != 6 {
        c.execute_cb(d.x, bus);
        return GO;
    }
    bus.set_clock(base + 4 * (d.m as u64 + 2));
    c.pc = d.pc.wrapping_add(2);
    c.execute_cb(d.x, bus);
    if bus.run_ended() {
        return SLOW;
    }
    GO
}

/// NOP
fn op_00<B: BlockBus>(_c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    GO
}

/// LD BC,nn
fn op_01<B: BlockBus>(c: &mut Cpu, _bus: &mut B, w: u64, _base: u64) -> u8 {
    let d = Rec::unpack(w);
    c.set_bc(d.imm);
    GO
}

/// LD (BC),A
fn op_02<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = bus.write_at(c.bc(), c.a, t(2));
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// INC BC
fn op_03<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let v = c.bc();
            let ok = bus.idle_idu_at(v, t(2));
            c.set_bc(v.wrapping_add(1));
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// INC B
fn op_04<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.b = c.inc8(c.b);
    GO
}

/// DEC B
fn op_05<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.b = c.dec8(c.b);
    GO
}

/// LD B,n
fn op_06<B: BlockBus>(c: &mut Cpu, _bus: &mut B, w: u64, _base: u64) -> u8 {
    let d = Rec::unpack(w);
    c.b = d.imm as u8;
    GO
}

/// RLCA
fn op_07<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.rlca();
    GO
}

/// LD (nn),SP
fn op_08<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let ok = bus.write_at(d.imm, c.sp as u8, t(4));
            bus.write_at(d.imm.wrapping_add(1), (c.sp >> 8) as u8, t(5)) && ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// ADD HL,BC
fn op_09<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.add_hl_value(c.bc());
    GO
}

/// LD A,(BC)
fn op_0a<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = bus.read_at_time::<false>(c.bc(), t(2));
            c.a = v;
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// DEC BC
fn op_0b<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let v = c.bc();
            let ok = bus.idle_idu_at(v, t(2));
            c.set_bc(v.wrapping_sub(1));
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// INC C
fn op_0c<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.c = c.inc8(c.c);
    GO
}

/// DEC C
fn op_0d<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.c = c.dec8(c.c);
    GO
}

/// LD C,n
fn op_0e<B: BlockBus>(c: &mut Cpu, _bus: &mut B, w: u64, _base: u64) -> u8 {
    let d = Rec::unpack(w);
    c.c = d.imm as u8;
    GO
}

/// RRCA
fn op_0f<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.rrca();
    GO
}

/// LD DE,nn
fn op_11<B: BlockBus>(c: &mut Cpu, _bus: &mut B, w: u64, _base: u64) -> u8 {
    let d = Rec::unpack(w);
    c.set_de(d.imm);
    GO
}

/// LD (DE),A
fn op_12<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = bus.write_at(c.de(), c.a, t(2));
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// INC DE
fn op_13<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let v = c.de();
            let ok = bus.idle_idu_at(v, t(2));
            c.set_de(v.wrapping_add(1));
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// INC D
fn op_14<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.d = c.inc8(c.d);
    GO
}

/// DEC D
fn op_15<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.d = c.dec8(c.d);
    GO
}

/// LD D,n
fn op_16<B: BlockBus>(c: &mut Cpu, _bus: &mut B, w: u64, _base: u64) -> u8 {
    let d = Rec::unpack(w);
    c.d = d.imm as u8;
    GO
}

/// RLA
fn op_17<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.rla();
    GO
}

/// JR e (imm: the target)
fn op_18<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        c.pc = d.imm;
        {
            bus.set_clock(t(3));
            LAST
        }
    }
}

/// ADD HL,DE
fn op_19<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.add_hl_value(c.de());
    GO
}

/// LD A,(DE)
fn op_1a<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = bus.read_at_time::<false>(c.de(), t(2));
            c.a = v;
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// DEC DE
fn op_1b<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let v = c.de();
            let ok = bus.idle_idu_at(v, t(2));
            c.set_de(v.wrapping_sub(1));
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// INC E
fn op_1c<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.e = c.inc8(c.e);
    GO
}

/// DEC E
fn op_1d<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.e = c.dec8(c.e);
    GO
}

/// LD E,n
fn op_1e<B: BlockBus>(c: &mut Cpu, _bus: &mut B, w: u64, _base: u64) -> u8 {
    let d = Rec::unpack(w);
    c.e = d.imm as u8;
    GO
}

/// RRA
fn op_1f<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.rra();
    GO
}

/// JR NZ,e (imm: the target)
fn op_20<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        if !c.flag_z() {
            c.pc = d.imm;
            {
                bus.set_clock(t(3));
                return LAST;
            }
        }
        c.pc = d.pc.wrapping_add(2);
        {
            bus.set_clock(t(2));
            LAST
        }
    }
}

/// LD HL,nn
fn op_21<B: BlockBus>(c: &mut Cpu, _bus: &mut B, w: u64, _base: u64) -> u8 {
    let d = Rec::unpack(w);
    c.set_hl(d.imm);
    GO
}

/// LD (HL+),A
fn op_22<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let hl = c.hl();
            let ok = bus.write_at(hl, c.a, t(2));
            c.set_hl(hl.wrapping_add(1));
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// INC HL
fn op_23<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let v = c.hl();
            let ok = bus.idle_idu_at(v, t(2));
            c.set_hl(v.wrapping_add(1));
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// INC H
fn op_24<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.h = c.inc8(c.h);
    GO
}

/// DEC H
fn op_25<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.h = c.dec8(c.h);
    GO
}

/// LD H,n
fn op_26<B: BlockBus>(c: &mut Cpu, _bus: &mut B, w: u64, _base: u64) -> u8 {
    let d = Rec::unpack(w);
    c.h = d.imm as u8;
    GO
}

/// DAA
fn op_27<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.daa();
    GO
}

/// JR Z,e (imm: the target)
fn op_28<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        if c.flag_z() {
            c.pc = d.imm;
            {
                bus.set_clock(t(3));
                return LAST;
            }
        }
        c.pc = d.pc.wrapping_add(2);
        {
            bus.set_clock(t(2));
            LAST
        }
    }
}

/// ADD HL,HL
fn op_29<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.add_hl_value(c.hl());
    GO
}

/// LD A,(HL+)
fn op_2a<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let hl = c.hl();
            let (v, ok) = bus.read_at_time::<true>(hl, t(2));
            c.a = v;
            c.set_hl(hl.wrapping_add(1));
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// DEC HL
fn op_2b<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let v = c.hl();
            let ok = bus.idle_idu_at(v, t(2));
            c.set_hl(v.wrapping_sub(1));
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// INC L
fn op_2c<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.l = c.inc8(c.l);
    GO
}

/// DEC L
fn op_2d<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.l = c.dec8(c.l);
    GO
}

/// LD L,n
fn op_2e<B: BlockBus>(c: &mut Cpu, _bus: &mut B, w: u64, _base: u64) -> u8 {
    let d = Rec::unpack(w);
    c.l = d.imm as u8;
    GO
}

/// CPL
fn op_2f<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.cpl();
    GO
}

/// JR NC,e (imm: the target)
fn op_30<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        if !c.flag_c() {
            c.pc = d.imm;
            {
                bus.set_clock(t(3));
                return LAST;
            }
        }
        c.pc = d.pc.wrapping_add(2);
        {
            bus.set_clock(t(2));
            LAST
        }
    }
}

/// LD SP,nn
fn op_31<B: BlockBus>(c: &mut Cpu, _bus: &mut B, w: u64, _base: u64) -> u8 {
    let d = Rec::unpack(w);
    c.sp = d.imm;
    GO
}

/// LD (HL-),A
fn op_32<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let hl = c.hl();
            let ok = bus.write_at(hl, c.a, t(2));
            c.set_hl(hl.wrapping_sub(1));
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// INC SP
fn op_33<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let v = c.sp;
            let ok = bus.idle_idu_at(v, t(2));
            c.sp = v.wrapping_add(1);
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// INC (HL)
fn op_34<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let hl = c.hl();
            let (v, ok) = bus.read_at_time::<false>(hl, t(2));
            let r = c.inc8(v);
            bus.write_at(hl, r, t(3)) && ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// DEC (HL)
fn op_35<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let hl = c.hl();
            let (v, ok) = bus.read_at_time::<false>(hl, t(2));
            let r = c.dec8(v);
            bus.write_at(hl, r, t(3)) && ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// LD (HL),n
fn op_36<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = bus.write_at(c.hl(), d.imm as u8, t(3));
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// SCF
fn op_37<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.scf();
    GO
}

/// JR C,e (imm: the target)
fn op_38<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        if c.flag_c() {
            c.pc = d.imm;
            {
                bus.set_clock(t(3));
                return LAST;
            }
        }
        c.pc = d.pc.wrapping_add(2);
        {
            bus.set_clock(t(2));
            LAST
        }
    }
}

/// ADD HL,SP
fn op_39<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.add_hl_value(c.sp);
    GO
}

/// LD A,(HL-)
fn op_3a<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let hl = c.hl();
            let (v, ok) = bus.read_at_time::<true>(hl, t(2));
            c.a = v;
            c.set_hl(hl.wrapping_sub(1));
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// DEC SP
fn op_3b<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let v = c.sp;
            let ok = bus.idle_idu_at(v, t(2));
            c.sp = v.wrapping_sub(1);
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// INC A
fn op_3c<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.a = c.inc8(c.a);
    GO
}

/// DEC A
fn op_3d<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.a = c.dec8(c.a);
    GO
}

/// LD A,n
fn op_3e<B: BlockBus>(c: &mut Cpu, _bus: &mut B, w: u64, _base: u64) -> u8 {
    let d = Rec::unpack(w);
    c.a = d.imm as u8;
    GO
}

/// CCF
fn op_3f<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.ccf();
    GO
}

/// LD B,B
fn op_40<B: BlockBus>(_c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    GO
}

/// LD B,C
fn op_41<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.b = c.c;
    GO
}

/// LD B,D
fn op_42<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.b = c.d;
    GO
}

/// LD B,E
fn op_43<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.b = c.e;
    GO
}

/// LD B,H
fn op_44<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.b = c.h;
    GO
}

/// LD B,L
fn op_45<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.b = c.l;
    GO
}

/// LD B,(HL)
fn op_46<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = bus.read_at_time::<false>(c.hl(), t(2));
            c.b = v;
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// LD B,A
fn op_47<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.b = c.a;
    GO
}

/// LD C,B
fn op_48<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.c = c.b;
    GO
}

/// LD C,C
fn op_49<B: BlockBus>(_c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    GO
}

/// LD C,D
fn op_4a<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.c = c.d;
    GO
}

/// LD C,E
fn op_4b<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.c = c.e;
    GO
}

/// LD C,H
fn op_4c<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.c = c.h;
    GO
}

/// LD C,L
fn op_4d<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.c = c.l;
    GO
}

/// LD C,(HL)
fn op_4e<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = bus.read_at_time::<false>(c.hl(), t(2));
            c.c = v;
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// LD C,A
fn op_4f<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.c = c.a;
    GO
}

/// LD D,B
fn op_50<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.d = c.b;
    GO
}

/// LD D,C
fn op_51<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.d = c.c;
    GO
}

/// LD D,D
fn op_52<B: BlockBus>(_c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    GO
}

/// LD D,E
fn op_53<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.d = c.e;
    GO
}

/// LD D,H
fn op_54<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.d = c.h;
    GO
}

/// LD D,L
fn op_55<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.d = c.l;
    GO
}

/// LD D,(HL)
fn op_56<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = bus.read_at_time::<false>(c.hl(), t(2));
            c.d = v;
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// LD D,A
fn op_57<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.d = c.a;
    GO
}

/// LD E,B
fn op_58<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.e = c.b;
    GO
}

/// LD E,C
fn op_59<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.e = c.c;
    GO
}

/// LD E,D
fn op_5a<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.e = c.d;
    GO
}

/// LD E,E
fn op_5b<B: BlockBus>(_c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    GO
}

/// LD E,H
fn op_5c<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.e = c.h;
    GO
}

/// LD E,L
fn op_5d<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.e = c.l;
    GO
}

/// LD E,(HL)
fn op_5e<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = bus.read_at_time::<false>(c.hl(), t(2));
            c.e = v;
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// LD E,A
fn op_5f<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.e = c.a;
    GO
}

/// LD H,B
fn op_60<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.h = c.b;
    GO
}

/// LD H,C
fn op_61<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.h = c.c;
    GO
}

/// LD H,D
fn op_62<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.h = c.d;
    GO
}

/// LD H,E
fn op_63<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.h = c.e;
    GO
}

/// LD H,H
fn op_64<B: BlockBus>(_c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    GO
}

/// LD H,L
fn op_65<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.h = c.l;
    GO
}

/// LD H,(HL)
fn op_66<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = bus.read_at_time::<false>(c.hl(), t(2));
            c.h = v;
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// LD H,A
fn op_67<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.h = c.a;
    GO
}

/// LD L,B
fn op_68<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.l = c.b;
    GO
}

/// LD L,C
fn op_69<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.l = c.c;
    GO
}

/// LD L,D
fn op_6a<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.l = c.d;
    GO
}

/// LD L,E
fn op_6b<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.l = c.e;
    GO
}

/// LD L,H
fn op_6c<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.l = c.h;
    GO
}

/// LD L,L
fn op_6d<B: BlockBus>(_c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    GO
}

/// LD L,(HL)
fn op_6e<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = bus.read_at_time::<false>(c.hl(), t(2));
            c.l = v;
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// LD L,A
fn op_6f<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.l = c.a;
    GO
}

/// LD (HL),B
fn op_70<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = bus.write_at(c.hl(), c.b, t(2));
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// LD (HL),C
fn op_71<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = bus.write_at(c.hl(), c.c, t(2));
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// LD (HL),D
fn op_72<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = bus.write_at(c.hl(), c.d, t(2));
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// LD (HL),E
fn op_73<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = bus.write_at(c.hl(), c.e, t(2));
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// LD (HL),H
fn op_74<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = bus.write_at(c.hl(), c.h, t(2));
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// LD (HL),L
fn op_75<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = bus.write_at(c.hl(), c.l, t(2));
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// LD (HL),A
fn op_77<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = bus.write_at(c.hl(), c.a, t(2));
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// LD A,B
fn op_78<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.a = c.b;
    GO
}

/// LD A,C
fn op_79<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.a = c.c;
    GO
}

/// LD A,D
fn op_7a<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.a = c.d;
    GO
}

/// LD A,E
fn op_7b<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.a = c.e;
    GO
}

/// LD A,H
fn op_7c<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.a = c.h;
    GO
}

/// LD A,L
fn op_7d<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.a = c.l;
    GO
}

/// LD A,(HL)
fn op_7e<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = bus.read_at_time::<false>(c.hl(), t(2));
            c.a = v;
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// LD A,A
fn op_7f<B: BlockBus>(_c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    GO
}

/// ADD B
fn op_80<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_add(c.b);
    GO
}

/// ADD C
fn op_81<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_add(c.c);
    GO
}

/// ADD D
fn op_82<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_add(c.d);
    GO
}

/// ADD E
fn op_83<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_add(c.e);
    GO
}

/// ADD H
fn op_84<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_add(c.h);
    GO
}

/// ADD L
fn op_85<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_add(c.l);
    GO
}

/// ADD (HL)
fn op_86<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = bus.read_at_time::<false>(c.hl(), t(2));
            c.alu_add(v);
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// ADD A
fn op_87<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_add(c.a);
    GO
}

/// ADC B
fn op_88<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_adc(c.b);
    GO
}

/// ADC C
fn op_89<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_adc(c.c);
    GO
}

/// ADC D
fn op_8a<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_adc(c.d);
    GO
}

/// ADC E
fn op_8b<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_adc(c.e);
    GO
}

/// ADC H
fn op_8c<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_adc(c.h);
    GO
}

/// ADC L
fn op_8d<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_adc(c.l);
    GO
}

/// ADC (HL)
fn op_8e<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = bus.read_at_time::<false>(c.hl(), t(2));
            c.alu_adc(v);
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// ADC A
fn op_8f<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_adc(c.a);
    GO
}

/// SUB B
fn op_90<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_sub(c.b);
    GO
}

/// SUB C
fn op_91<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_sub(c.c);
    GO
}

/// SUB D
fn op_92<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_sub(c.d);
    GO
}

/// SUB E
fn op_93<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_sub(c.e);
    GO
}

/// SUB H
fn op_94<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_sub(c.h);
    GO
}

/// SUB L
fn op_95<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_sub(c.l);
    GO
}

/// SUB (HL)
fn op_96<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = bus.read_at_time::<false>(c.hl(), t(2));
            c.alu_sub(v);
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// SUB A
fn op_97<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_sub(c.a);
    GO
}

/// SBC B
fn op_98<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_sbc(c.b);
    GO
}

/// SBC C
fn op_99<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_sbc(c.c);
    GO
}

/// SBC D
fn op_9a<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_sbc(c.d);
    GO
}

/// SBC E
fn op_9b<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_sbc(c.e);
    GO
}

/// SBC H
fn op_9c<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_sbc(c.h);
    GO
}

/// SBC L
fn op_9d<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_sbc(c.l);
    GO
}

/// SBC (HL)
fn op_9e<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = bus.read_at_time::<false>(c.hl(), t(2));
            c.alu_sbc(v);
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// SBC A
fn op_9f<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_sbc(c.a);
    GO
}

/// AND B
fn op_a0<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_and(c.b);
    GO
}

/// AND C
fn op_a1<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_and(c.c);
    GO
}

/// AND D
fn op_a2<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_and(c.d);
    GO
}

/// AND E
fn op_a3<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_and(c.e);
    GO
}

/// AND H
fn op_a4<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_and(c.h);
    GO
}

/// AND L
fn op_a5<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_and(c.l);
    GO
}

/// AND (HL)
fn op_a6<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = bus.read_at_time::<false>(c.hl(), t(2));
            c.alu_and(v);
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// AND A
fn op_a7<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_and(c.a);
    GO
}

/// XOR B
fn op_a8<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_xor(c.b);
    GO
}

/// XOR C
fn op_a9<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_xor(c.c);
    GO
}

/// XOR D
fn op_aa<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_xor(c.d);
    GO
}

/// XOR E
fn op_ab<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_xor(c.e);
    GO
}

/// XOR H
fn op_ac<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_xor(c.h);
    GO
}

/// XOR L
fn op_ad<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_xor(c.l);
    GO
}

/// XOR (HL)
fn op_ae<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = bus.read_at_time::<false>(c.hl(), t(2));
            c.alu_xor(v);
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// XOR A
fn op_af<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_xor(c.a);
    GO
}

/// OR B
fn op_b0<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_or(c.b);
    GO
}

/// OR C
fn op_b1<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_or(c.c);
    GO
}

/// OR D
fn op_b2<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_or(c.d);
    GO
}

/// OR E
fn op_b3<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_or(c.e);
    GO
}

/// OR H
fn op_b4<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_or(c.h);
    GO
}

/// OR L
fn op_b5<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_or(c.l);
    GO
}

/// OR (HL)
fn op_b6<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = bus.read_at_time::<false>(c.hl(), t(2));
            c.alu_or(v);
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// OR A
fn op_b7<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_or(c.a);
    GO
}

/// CP B
fn op_b8<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_cp(c.b);
    GO
}

/// CP C
fn op_b9<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_cp(c.c);
    GO
}

/// CP D
fn op_ba<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_cp(c.d);
    GO
}

/// CP E
fn op_bb<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_cp(c.e);
    GO
}

/// CP H
fn op_bc<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_cp(c.h);
    GO
}

/// CP L
fn op_bd<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_cp(c.l);
    GO
}

/// CP (HL)
fn op_be<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = bus.read_at_time::<false>(c.hl(), t(2));
            c.alu_cp(v);
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// CP A
fn op_bf<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.alu_cp(c.a);
    GO
}

/// RET NZ
fn op_c0<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        if !c.flag_z() {
            let (v, ok) = pop(c, bus, t(3));
            c.pc = v;
            {
                bus.set_clock(t(5));
                return if !ok { SLOW } else { LAST };
            }
        }
        c.pc = d.pc.wrapping_add(1);
        {
            bus.set_clock(t(2));
            LAST
        }
    }
}

/// POP BC
fn op_c1<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = pop(c, bus, t(2));
            c.set_bc(v);
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// JP NZ,nn
fn op_c2<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        if !c.flag_z() {
            c.pc = d.imm;
            {
                bus.set_clock(t(4));
                return LAST;
            }
        }
        c.pc = d.pc.wrapping_add(3);
        {
            bus.set_clock(t(3));
            LAST
        }
    }
}

/// JP nn
fn op_c3<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        c.pc = d.imm;
        {
            bus.set_clock(t(4));
            LAST
        }
    }
}

/// CALL NZ,nn
fn op_c4<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        if !c.flag_z() {
            let ok = push(d.pc.wrapping_add(3), c, bus, t(4));
            c.pc = d.imm;
            {
                bus.set_clock(t(6));
                return if !ok { SLOW } else { LAST };
            }
        }
        c.pc = d.pc.wrapping_add(3);
        {
            bus.set_clock(t(3));
            LAST
        }
    }
}

/// PUSH BC
fn op_c5<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = push(c.bc(), c, bus, t(2));
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// ADD n
fn op_c6<B: BlockBus>(c: &mut Cpu, _bus: &mut B, w: u64, _base: u64) -> u8 {
    let d = Rec::unpack(w);
    c.alu_add(d.imm as u8);
    GO
}

/// RST 00h
fn op_c7<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = push(d.pc.wrapping_add(1), c, bus, t(2));
        c.pc = 0x00;
        {
            bus.set_clock(t(4));
            if !ok {
                SLOW
            } else {
                LAST
            }
        }
    }
}

/// RET Z
fn op_c8<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        if c.flag_z() {
            let (v, ok) = pop(c, bus, t(3));
            c.pc = v;
            {
                bus.set_clock(t(5));
                return if !ok { SLOW } else { LAST };
            }
        }
        c.pc = d.pc.wrapping_add(1);
        {
            bus.set_clock(t(2));
            LAST
        }
    }
}

/// RET
fn op_c9<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let (v, ok) = pop(c, bus, t(2));
        c.pc = v;
        {
            bus.set_clock(t(4));
            if !ok {
                SLOW
            } else {
                LAST
            }
        }
    }
}

/// JP Z,nn
fn op_ca<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        if c.flag_z() {
            c.pc = d.imm;
            {
                bus.set_clock(t(4));
                return LAST;
            }
        }
        c.pc = d.pc.wrapping_add(3);
        {
            bus.set_clock(t(3));
            LAST
        }
    }
}

/// CALL Z,nn
fn op_cc<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        if c.flag_z() {
            let ok = push(d.pc.wrapping_add(3), c, bus, t(4));
            c.pc = d.imm;
            {
                bus.set_clock(t(6));
                return if !ok { SLOW } else { LAST };
            }
        }
        c.pc = d.pc.wrapping_add(3);
        {
            bus.set_clock(t(3));
            LAST
        }
    }
}

/// CALL nn
fn op_cd<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = push(d.pc.wrapping_add(3), c, bus, t(4));
        c.pc = d.imm;
        {
            bus.set_clock(t(6));
            if !ok {
                SLOW
            } else {
                LAST
            }
        }
    }
}

/// ADC n
fn op_ce<B: BlockBus>(c: &mut Cpu, _bus: &mut B, w: u64, _base: u64) -> u8 {
    let d = Rec::unpack(w);
    c.alu_adc(d.imm as u8);
    GO
}

/// RST 08h
fn op_cf<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = push(d.pc.wrapping_add(1), c, bus, t(2));
        c.pc = 0x08;
        {
            bus.set_clock(t(4));
            if !ok {
                SLOW
            } else {
                LAST
            }
        }
    }
}

/// RET NC
fn op_d0<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        if !c.flag_c() {
            let (v, ok) = pop(c, bus, t(3));
            c.pc = v;
            {
                bus.set_clock(t(5));
                return if !ok { SLOW } else { LAST };
            }
        }
        c.pc = d.pc.wrapping_add(1);
        {
            bus.set_clock(t(2));
            LAST
        }
    }
}

/// POP DE
fn op_d1<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = pop(c, bus, t(2));
            c.set_de(v);
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// JP NC,nn
fn op_d2<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        if !c.flag_c() {
            c.pc = d.imm;
            {
                bus.set_clock(t(4));
                return LAST;
            }
        }
        c.pc = d.pc.wrapping_add(3);
        {
            bus.set_clock(t(3));
            LAST
        }
    }
}

/// CALL NC,nn
fn op_d4<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        if !c.flag_c() {
            let ok = push(d.pc.wrapping_add(3), c, bus, t(4));
            c.pc = d.imm;
            {
                bus.set_clock(t(6));
                return if !ok { SLOW } else { LAST };
            }
        }
        c.pc = d.pc.wrapping_add(3);
        {
            bus.set_clock(t(3));
            LAST
        }
    }
}

/// PUSH DE
fn op_d5<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = push(c.de(), c, bus, t(2));
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// SUB n
fn op_d6<B: BlockBus>(c: &mut Cpu, _bus: &mut B, w: u64, _base: u64) -> u8 {
    let d = Rec::unpack(w);
    c.alu_sub(d.imm as u8);
    GO
}

/// RST 10h
fn op_d7<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = push(d.pc.wrapping_add(1), c, bus, t(2));
        c.pc = 0x10;
        {
            bus.set_clock(t(4));
            if !ok {
                SLOW
            } else {
                LAST
            }
        }
    }
}

/// RET C
fn op_d8<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        if c.flag_c() {
            let (v, ok) = pop(c, bus, t(3));
            c.pc = v;
            {
                bus.set_clock(t(5));
                return if !ok { SLOW } else { LAST };
            }
        }
        c.pc = d.pc.wrapping_add(1);
        {
            bus.set_clock(t(2));
            LAST
        }
    }
}

/// JP C,nn
fn op_da<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        if c.flag_c() {
            c.pc = d.imm;
            {
                bus.set_clock(t(4));
                return LAST;
            }
        }
        c.pc = d.pc.wrapping_add(3);
        {
            bus.set_clock(t(3));
            LAST
        }
    }
}

/// CALL C,nn
fn op_dc<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        if c.flag_c() {
            let ok = push(d.pc.wrapping_add(3), c, bus, t(4));
            c.pc = d.imm;
            {
                bus.set_clock(t(6));
                return if !ok { SLOW } else { LAST };
            }
        }
        c.pc = d.pc.wrapping_add(3);
        {
            bus.set_clock(t(3));
            LAST
        }
    }
}

/// SBC n
fn op_de<B: BlockBus>(c: &mut Cpu, _bus: &mut B, w: u64, _base: u64) -> u8 {
    let d = Rec::unpack(w);
    c.alu_sbc(d.imm as u8);
    GO
}

/// RST 18h
fn op_df<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = push(d.pc.wrapping_add(1), c, bus, t(2));
        c.pc = 0x18;
        {
            bus.set_clock(t(4));
            if !ok {
                SLOW
            } else {
                LAST
            }
        }
    }
}

/// LDH (n),A
fn op_e0<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = bus.write_at(0xFF00 | d.imm, c.a, t(3));
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// POP HL
fn op_e1<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = pop(c, bus, t(2));
            c.set_hl(v);
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// LD (C),A
fn op_e2<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = bus.write_at(0xFF00 | c.c as u16, c.a, t(2));
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// PUSH HL
fn op_e5<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = push(c.hl(), c, bus, t(2));
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// AND n
fn op_e6<B: BlockBus>(c: &mut Cpu, _bus: &mut B, w: u64, _base: u64) -> u8 {
    let d = Rec::unpack(w);
    c.alu_and(d.imm as u8);
    GO
}

/// RST 20h
fn op_e7<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = push(d.pc.wrapping_add(1), c, bus, t(2));
        c.pc = 0x20;
        {
            bus.set_clock(t(4));
            if !ok {
                SLOW
            } else {
                LAST
            }
        }
    }
}

/// ADD SP,e
fn op_e8<B: BlockBus>(c: &mut Cpu, _bus: &mut B, w: u64, _base: u64) -> u8 {
    let d = Rec::unpack(w);
    c.sp = c.sp_plus_e(d.imm as u8);
    GO
}

/// JP HL
fn op_e9<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        c.pc = c.hl();
        {
            bus.set_clock(t(1));
            LAST
        }
    }
}

/// LD (nn),A
fn op_ea<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = bus.write_at(d.imm, c.a, t(4));
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// XOR n
fn op_ee<B: BlockBus>(c: &mut Cpu, _bus: &mut B, w: u64, _base: u64) -> u8 {
    let d = Rec::unpack(w);
    c.alu_xor(d.imm as u8);
    GO
}

/// RST 28h
fn op_ef<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = push(d.pc.wrapping_add(1), c, bus, t(2));
        c.pc = 0x28;
        {
            bus.set_clock(t(4));
            if !ok {
                SLOW
            } else {
                LAST
            }
        }
    }
}

/// LDH A,(n)
fn op_f0<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = bus.read_at_time::<false>(0xFF00 | d.imm, t(3));
            c.a = v;
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// POP AF
fn op_f1<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = pop(c, bus, t(2));
            let [lo, hi] = v.to_le_bytes();
            c.a = hi;
            c.f = lo & 0xF0;
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// LD A,(C)
fn op_f2<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = bus.read_at_time::<false>(0xFF00 | c.c as u16, t(2));
            c.a = v;
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// DI
fn op_f3<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.ime = false;
    GO
}

/// PUSH AF
fn op_f5<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = push(u16::from_be_bytes([c.a, c.f]), c, bus, t(2));
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// OR n
fn op_f6<B: BlockBus>(c: &mut Cpu, _bus: &mut B, w: u64, _base: u64) -> u8 {
    let d = Rec::unpack(w);
    c.alu_or(d.imm as u8);
    GO
}

/// RST 30h
fn op_f7<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = push(d.pc.wrapping_add(1), c, bus, t(2));
        c.pc = 0x30;
        {
            bus.set_clock(t(4));
            if !ok {
                SLOW
            } else {
                LAST
            }
        }
    }
}

/// LD HL,SP+e
fn op_f8<B: BlockBus>(c: &mut Cpu, _bus: &mut B, w: u64, _base: u64) -> u8 {
    let d = Rec::unpack(w);
    {
        let v = c.sp_plus_e(d.imm as u8);
        c.set_hl(v)
    }
    GO
}

/// LD SP,HL
fn op_f9<B: BlockBus>(c: &mut Cpu, _bus: &mut B, _w: u64, _base: u64) -> u8 {
    c.sp = c.hl();
    GO
}

/// LD A,(nn)
fn op_fa<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = {
            let (v, ok) = bus.read_at_time::<false>(d.imm, t(4));
            c.a = v;
            ok
        };
        if !ok {
            return EXIT;
        }
    }
    GO
}

/// CP n
fn op_fe<B: BlockBus>(c: &mut Cpu, _bus: &mut B, w: u64, _base: u64) -> u8 {
    let d = Rec::unpack(w);
    c.alu_cp(d.imm as u8);
    GO
}

/// RST 38h
fn op_ff<B: BlockBus>(c: &mut Cpu, bus: &mut B, w: u64, base: u64) -> u8 {
    let d = Rec::unpack(w);
    let t = move |k: u64| base + 4 * (d.m as u64 + k);
    {
        let ok = push(d.pc.wrapping_add(1), c, bus, t(2));
        c.pc = 0x38;
        {
            bus.set_clock(t(4));
            if !ok {
                SLOW
            } else {
                LAST
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(bytes: &[u8]) -> [u8; BLOCK_BYTES] {
        let mut c = [0u8; BLOCK_BYTES];
        c[..bytes.len()].copy_from_slice(bytes);
        c
    }

    #[test]
    fn a_block_ends_with_its_first_jump() {
        // 0xC100: LD A,5; INC B; JR NZ,-5; NOP
        let c = code(&[0x3E, 0x05, 0x04, 0x20, 0xFB, 0x00]);
        let b = Block::decode(0x100, &c).unwrap();
        assert_eq!(b.len, 5);
        // LD A,n (2) + INC B (1) + JR taken (3).
        assert_eq!(b.max, 6);
        let recs: Vec<Rec> = b.recs[..3].iter().map(|&w| Rec::unpack(w)).collect();
        assert_eq!(
            (recs[0].op, recs[0].imm, recs[0].m, recs[0].pc),
            (0x3E, 5, 0, 0xC100)
        );
        assert_eq!((recs[1].op, recs[1].m, recs[1].pc), (0x04, 2, 0xC102));
        // JR's target: after it (0xC105) minus 5.
        assert_eq!((recs[2].op, recs[2].imm, recs[2].m), (0x20, 0xC100, 3));
    }

    #[test]
    fn a_block_stops_before_stop_and_at_32_bytes() {
        let b = Block::decode(0, &code(&[0x00, 0x10, 0x00])).unwrap();
        let end = Rec::unpack(b.recs[1]);
        assert_eq!((end.op, end.pc, end.m, b.max), (END, 0xC001, 1, 1));
        assert!(Block::decode(0, &code(&[0x10, 0x00])).is_none());
        // 32 NOPs: cut after 31 instructions (the end record is the 32nd).
        let b = Block::decode(0, &code(&[0x00; 32])).unwrap();
        assert_eq!((b.len, b.max), (31, 31));
        // No instruction may run past the end of work RAM.
        let b = Block::decode(0x1FFE, &code(&[0x00, 0x3E, 0x01])).unwrap();
        assert_eq!((b.len, Rec::unpack(b.recs[1]).op), (1, END));
    }

    #[test]
    fn a_block_holds_only_the_bytes_it_was_decoded_from() {
        let mut c = code(&[0x3E, 0x05, 0xC9, 0x77]);
        let b = Block::decode(0x100, &c).unwrap();
        assert!(b.holds(&c));
        // Past its RET: not its code.
        c[3] = 0x00;
        assert!(b.holds(&c));
        c[1] = 0x06;
        assert!(!b.holds(&c));
    }
}
