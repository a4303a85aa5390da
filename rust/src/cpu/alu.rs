//! Register-pair accessors, bus helpers and flag arithmetic.

use super::{Cpu, CpuBus, FLAG_C, FLAG_H, FLAG_N, FLAG_Z};

#[inline(always)]
fn z(v: u8) -> u8 {
    if v == 0 {
        FLAG_Z
    } else {
        0
    }
}

impl Cpu {
    // ---- register pairs -------------------------------------------------

    #[inline(always)]
    pub(super) fn bc(&self) -> u16 {
        u16::from_be_bytes([self.b, self.c])
    }
    #[inline(always)]
    pub(super) fn de(&self) -> u16 {
        u16::from_be_bytes([self.d, self.e])
    }
    #[inline(always)]
    pub(super) fn hl(&self) -> u16 {
        u16::from_be_bytes([self.h, self.l])
    }
    #[inline(always)]
    pub(super) fn set_bc(&mut self, v: u16) {
        [self.b, self.c] = v.to_be_bytes();
    }
    #[inline(always)]
    pub(super) fn set_de(&mut self, v: u16) {
        [self.d, self.e] = v.to_be_bytes();
    }
    #[inline(always)]
    pub(super) fn set_hl(&mut self, v: u16) {
        [self.h, self.l] = v.to_be_bytes();
    }

    #[inline(always)]
    pub(super) fn flag_z(&self) -> bool {
        self.f & FLAG_Z != 0
    }
    #[inline(always)]
    pub(super) fn flag_c(&self) -> bool {
        self.f & FLAG_C != 0
    }

    // ---- bus helpers ----------------------------------------------------

    /// Read the byte at PC and advance PC (one M-cycle; the increment/decrement
    /// unit steps PC during the read).
    #[inline(always)]
    pub(crate) fn fetch8<B: CpuBus>(&mut self, bus: &mut B) -> u8 {
        let v = bus.fetch(self.pc);
        self.pc = self.pc.wrapping_add(1);
        v
    }

    /// Little-endian immediate word (two M-cycles).
    #[inline(always)]
    pub(super) fn fetch16<B: CpuBus>(&mut self, bus: &mut B) -> u16 {
        let lo = self.fetch8(bus);
        let hi = self.fetch8(bus);
        u16::from_le_bytes([lo, hi])
    }

    #[inline(always)]
    pub(super) fn read_hl<B: CpuBus>(&mut self, bus: &mut B) -> u8 {
        bus.read(self.hl())
    }

    /// PUSH order: internal cycle (SP decremented, SP on the address bus),
    /// write high byte at SP-1, low byte at SP-2.
    #[inline(always)]
    pub(super) fn push16<B: CpuBus>(&mut self, bus: &mut B, v: u16) {
        bus.idle_idu(self.sp);
        self.sp = self.sp.wrapping_sub(1);
        bus.write(self.sp, (v >> 8) as u8);
        self.sp = self.sp.wrapping_sub(1);
        bus.write(self.sp, v as u8);
    }

    /// POP order: read low byte, then high byte. For the OAM bug the first
    /// read counts as a read during an increment and the second as a plain
    /// read (Pan Docs, "OAM Corruption Bug": POP triggers it 3 times, not 4).
    #[inline(always)]
    pub(super) fn pop16<B: CpuBus>(&mut self, bus: &mut B) -> u16 {
        let lo = bus.read_idu(self.sp);
        self.sp = self.sp.wrapping_add(1);
        let hi = bus.read(self.sp);
        self.sp = self.sp.wrapping_add(1);
        u16::from_le_bytes([lo, hi])
    }

    // ---- control flow ---------------------------------------------------

    /// JR e / JR cc,e: read offset; if taken one internal cycle.
    #[inline(always)]
    pub(super) fn jr<B: CpuBus>(&mut self, bus: &mut B, taken: bool) {
        let off = self.fetch8(bus) as i8;
        if taken {
            bus.idle();
            self.pc = self.pc.wrapping_add(off as i16 as u16);
        }
    }

    /// JP nn / JP cc,nn: read address; if taken one internal cycle.
    #[inline(always)]
    pub(super) fn jp<B: CpuBus>(&mut self, bus: &mut B, taken: bool) {
        let addr = self.fetch16(bus);
        if taken {
            bus.idle();
            self.pc = addr;
        }
    }

    /// CALL nn / CALL cc,nn: read address; if taken internal cycle + push PC.
    #[inline(always)]
    pub(super) fn call<B: CpuBus>(&mut self, bus: &mut B, taken: bool) {
        let addr = self.fetch16(bus);
        if taken {
            self.push16(bus, self.pc);
            self.pc = addr;
        }
    }

    /// RET: pop PC, then one internal cycle.
    #[inline(always)]
    pub(super) fn ret<B: CpuBus>(&mut self, bus: &mut B) {
        self.pc = self.pop16(bus);
        bus.idle();
    }

    /// RET cc: internal cycle for the condition, then RET if taken.
    #[inline(always)]
    pub(super) fn ret_cc<B: CpuBus>(&mut self, bus: &mut B, taken: bool) {
        bus.idle();
        if taken {
            self.ret(bus);
        }
    }

    /// RST n: internal cycle, push PC, jump.
    #[inline(always)]
    pub(super) fn rst<B: CpuBus>(&mut self, bus: &mut B, vector: u16) {
        self.push16(bus, self.pc);
        self.pc = vector;
    }

    // ---- 8-bit arithmetic -----------------------------------------------

    #[inline(always)]
    pub(super) fn alu_add(&mut self, v: u8) {
        let a = self.a;
        let r = a.wrapping_add(v);
        let h = if (a & 0x0F) + (v & 0x0F) > 0x0F {
            FLAG_H
        } else {
            0
        };
        let c = if r < a { FLAG_C } else { 0 };
        self.a = r;
        self.f = z(r) | h | c;
    }

    #[inline(always)]
    pub(super) fn alu_adc(&mut self, v: u8) {
        let a = self.a;
        let cin = (self.f >> 4) & 1;
        let sum = a as u16 + v as u16 + cin as u16;
        let r = sum as u8;
        let h = if (a & 0x0F) + (v & 0x0F) + cin > 0x0F {
            FLAG_H
        } else {
            0
        };
        let c = if sum > 0xFF { FLAG_C } else { 0 };
        self.a = r;
        self.f = z(r) | h | c;
    }

    /// A - v - carry_in with full flags; returns the result without storing.
    #[inline(always)]
    fn sub_flags(&mut self, v: u8, cin: u8) -> u8 {
        let a = self.a;
        let r = a.wrapping_sub(v).wrapping_sub(cin);
        let h = if (a & 0x0F) < (v & 0x0F) + cin {
            FLAG_H
        } else {
            0
        };
        let c = if (a as u16) < v as u16 + cin as u16 {
            FLAG_C
        } else {
            0
        };
        self.f = z(r) | FLAG_N | h | c;
        r
    }

    #[inline(always)]
    pub(super) fn alu_sub(&mut self, v: u8) {
        self.a = self.sub_flags(v, 0);
    }

    #[inline(always)]
    pub(super) fn alu_sbc(&mut self, v: u8) {
        let cin = (self.f >> 4) & 1;
        self.a = self.sub_flags(v, cin);
    }

    #[inline(always)]
    pub(super) fn alu_cp(&mut self, v: u8) {
        self.sub_flags(v, 0);
    }

    #[inline(always)]
    pub(super) fn alu_and(&mut self, v: u8) {
        self.a &= v;
        self.f = z(self.a) | FLAG_H;
    }

    #[inline(always)]
    pub(super) fn alu_xor(&mut self, v: u8) {
        self.a ^= v;
        self.f = z(self.a);
    }

    #[inline(always)]
    pub(super) fn alu_or(&mut self, v: u8) {
        self.a |= v;
        self.f = z(self.a);
    }

    /// INC r: Z, N=0, H from bit 3; C unchanged.
    #[inline(always)]
    pub(super) fn inc8(&mut self, v: u8) -> u8 {
        let r = v.wrapping_add(1);
        let h = if r & 0x0F == 0 { FLAG_H } else { 0 };
        self.f = (self.f & FLAG_C) | z(r) | h;
        r
    }

    /// DEC r: Z, N=1, H from bit 4 borrow; C unchanged.
    #[inline(always)]
    pub(super) fn dec8(&mut self, v: u8) -> u8 {
        let r = v.wrapping_sub(1);
        let h = if v & 0x0F == 0 { FLAG_H } else { 0 };
        self.f = (self.f & FLAG_C) | z(r) | FLAG_N | h;
        r
    }

    /// DAA: decimal-adjust A after a BCD addition or subtraction.
    #[inline(always)]
    pub(super) fn daa(&mut self) {
        let mut a = self.a;
        let mut carry = self.f & FLAG_C != 0;
        let half = self.f & FLAG_H != 0;
        if self.f & FLAG_N == 0 {
            if carry || a > 0x99 {
                a = a.wrapping_add(0x60);
                carry = true;
            }
            if half || (a & 0x0F) > 0x09 {
                a = a.wrapping_add(0x06);
            }
        } else {
            if carry {
                a = a.wrapping_sub(0x60);
            }
            if half {
                a = a.wrapping_sub(0x06);
            }
        }
        self.a = a;
        self.f = z(a) | (self.f & FLAG_N) | if carry { FLAG_C } else { 0 };
    }

    #[inline(always)]
    pub(super) fn cpl(&mut self) {
        self.a = !self.a;
        self.f |= FLAG_N | FLAG_H;
    }

    #[inline(always)]
    pub(super) fn scf(&mut self) {
        self.f = (self.f & FLAG_Z) | FLAG_C;
    }

    #[inline(always)]
    pub(super) fn ccf(&mut self) {
        self.f = (self.f & (FLAG_Z | FLAG_C)) ^ FLAG_C;
    }

    // ---- rotates on A (Z always cleared) ----------------------------------

    #[inline(always)]
    pub(super) fn rlca(&mut self) {
        self.a = self.a.rotate_left(1);
        self.f = (self.a & 1) << 4;
    }

    #[inline(always)]
    pub(super) fn rrca(&mut self) {
        self.f = (self.a & 1) << 4;
        self.a = self.a.rotate_right(1);
    }

    #[inline(always)]
    pub(super) fn rla(&mut self) {
        let cin = (self.f >> 4) & 1;
        self.f = (self.a >> 7) << 4;
        self.a = (self.a << 1) | cin;
    }

    #[inline(always)]
    pub(super) fn rra(&mut self) {
        let cin = (self.f << 3) & 0x80;
        self.f = (self.a & 1) << 4;
        self.a = (self.a >> 1) | cin;
    }

    // ---- 16-bit arithmetic ----------------------------------------------

    /// ADD HL,rr: one internal cycle; Z unchanged, N=0, H from bit 11, C from bit 15.
    #[inline(always)]
    pub(super) fn add_hl<B: CpuBus>(&mut self, bus: &mut B, v: u16) {
        bus.idle();
        let hl = self.hl();
        let (r, carry) = hl.overflowing_add(v);
        let h = if (hl & 0x0FFF) + (v & 0x0FFF) > 0x0FFF {
            FLAG_H
        } else {
            0
        };
        self.f = (self.f & FLAG_Z) | h | if carry { FLAG_C } else { 0 };
        self.set_hl(r);
    }

    /// SP + signed immediate, flags from the unsigned low-byte addition
    /// (Z=0, N=0). Shared by ADD SP,e and LD HL,SP+e.
    #[inline(always)]
    pub(super) fn sp_plus_e(&mut self, e: u8) -> u16 {
        let sp = self.sp;
        let h = if (sp & 0x0F) + (e as u16 & 0x0F) > 0x0F {
            FLAG_H
        } else {
            0
        };
        let c = if (sp & 0xFF) + e as u16 > 0xFF {
            FLAG_C
        } else {
            0
        };
        self.f = h | c;
        sp.wrapping_add(e as i8 as i16 as u16)
    }

    // ---- CB-prefixed shifts and bit tests --------------------------------

    #[inline(always)]
    pub(super) fn rlc(&mut self, v: u8) -> u8 {
        let r = v.rotate_left(1);
        self.f = z(r) | ((v >> 7) << 4);
        r
    }

    #[inline(always)]
    pub(super) fn rrc(&mut self, v: u8) -> u8 {
        let r = v.rotate_right(1);
        self.f = z(r) | ((v & 1) << 4);
        r
    }

    #[inline(always)]
    pub(super) fn rl(&mut self, v: u8) -> u8 {
        let r = (v << 1) | ((self.f >> 4) & 1);
        self.f = z(r) | ((v >> 7) << 4);
        r
    }

    #[inline(always)]
    pub(super) fn rr(&mut self, v: u8) -> u8 {
        let r = (v >> 1) | ((self.f << 3) & 0x80);
        self.f = z(r) | ((v & 1) << 4);
        r
    }

    #[inline(always)]
    pub(super) fn sla(&mut self, v: u8) -> u8 {
        let r = v << 1;
        self.f = z(r) | ((v >> 7) << 4);
        r
    }

    #[inline(always)]
    pub(super) fn sra(&mut self, v: u8) -> u8 {
        let r = (v >> 1) | (v & 0x80);
        self.f = z(r) | ((v & 1) << 4);
        r
    }

    #[inline(always)]
    pub(super) fn swap(&mut self, v: u8) -> u8 {
        let r = v.rotate_left(4);
        self.f = z(r);
        r
    }

    #[inline(always)]
    pub(super) fn srl(&mut self, v: u8) -> u8 {
        let r = v >> 1;
        self.f = z(r) | ((v & 1) << 4);
        r
    }

    /// BIT n,v: Z = !bit, N=0, H=1, C unchanged.
    #[inline(always)]
    pub(super) fn bit(&mut self, n: u8, v: u8) {
        self.f = (self.f & FLAG_C) | FLAG_H | z(v & (1 << n));
    }
}
