//! The unprefixed opcode table: one `match` arm per opcode.
//!
//! The opcode fetch has already happened (one M-cycle); each arm performs the
//! remaining accesses in hardware order.

use super::{Cpu, CpuHost, Mode};

impl Cpu {
    /// Execute the unprefixed opcode `op` (already fetched).
    #[inline(always)]
    pub(crate) fn execute<B: CpuHost>(&mut self, op: u8, bus: &mut B) {
        if B::DIAGNOSTIC {
            if let Some(fault) = bus.fault() {
                if self.execute_faulty(fault, op, bus) {
                    return;
                }
            }
        }
        match op {
            // ---- 0x00-0x3F: misc, 16-bit loads, inc/dec, rotates, JR ----
            0x00 => {}
            0x01 => {
                let v = self.fetch16(bus);
                self.set_bc(v);
            }
            0x02 => bus.write(self.bc(), self.a),
            0x03 => {
                bus.idle_idu(self.bc());
                self.set_bc(self.bc().wrapping_add(1));
            }
            0x04 => self.b = self.inc8(self.b),
            0x05 => self.b = self.dec8(self.b),
            0x06 => self.b = self.fetch8(bus),
            0x07 => self.rlca(),
            0x08 => {
                let addr = self.fetch16(bus);
                bus.write(addr, self.sp as u8);
                bus.write(addr.wrapping_add(1), (self.sp >> 8) as u8);
            }
            0x09 => self.add_hl(bus, self.bc()),
            0x0A => self.a = bus.read(self.bc()),
            0x0B => {
                bus.idle_idu(self.bc());
                self.set_bc(self.bc().wrapping_sub(1));
            }
            0x0C => self.c = self.inc8(self.c),
            0x0D => self.c = self.dec8(self.c),
            0x0E => self.c = self.fetch8(bus),
            0x0F => self.rrca(),

            0x10 => self.stop_instr(bus),
            0x11 => {
                let v = self.fetch16(bus);
                self.set_de(v);
            }
            0x12 => bus.write(self.de(), self.a),
            0x13 => {
                bus.idle_idu(self.de());
                self.set_de(self.de().wrapping_add(1));
            }
            0x14 => self.d = self.inc8(self.d),
            0x15 => self.d = self.dec8(self.d),
            0x16 => self.d = self.fetch8(bus),
            0x17 => self.rla(),
            0x18 => self.jr(bus, true),
            0x19 => self.add_hl(bus, self.de()),
            0x1A => self.a = bus.read(self.de()),
            0x1B => {
                bus.idle_idu(self.de());
                self.set_de(self.de().wrapping_sub(1));
            }
            0x1C => self.e = self.inc8(self.e),
            0x1D => self.e = self.dec8(self.e),
            0x1E => self.e = self.fetch8(bus),
            0x1F => self.rra(),

            0x20 => self.jr_cc(bus, !self.flag_z()),
            0x21 => {
                let v = self.fetch16(bus);
                self.set_hl(v);
            }
            0x22 => {
                let hl = self.hl();
                bus.write(hl, self.a);
                self.set_hl(hl.wrapping_add(1));
            }
            0x23 => {
                bus.idle_idu(self.hl());
                self.set_hl(self.hl().wrapping_add(1));
            }
            0x24 => self.h = self.inc8(self.h),
            0x25 => self.h = self.dec8(self.h),
            0x26 => self.h = self.fetch8(bus),
            0x27 => self.daa(),
            0x28 => self.jr_cc(bus, self.flag_z()),
            0x29 => self.add_hl(bus, self.hl()),
            0x2A => {
                let hl = self.hl();
                self.a = bus.read_idu(hl);
                self.set_hl(hl.wrapping_add(1));
            }
            0x2B => {
                bus.idle_idu(self.hl());
                self.set_hl(self.hl().wrapping_sub(1));
            }
            0x2C => self.l = self.inc8(self.l),
            0x2D => self.l = self.dec8(self.l),
            0x2E => self.l = self.fetch8(bus),
            0x2F => self.cpl(),

            0x30 => self.jr_cc(bus, !self.flag_c()),
            0x31 => self.sp = self.fetch16(bus),
            0x32 => {
                let hl = self.hl();
                bus.write(hl, self.a);
                self.set_hl(hl.wrapping_sub(1));
            }
            0x33 => {
                bus.idle_idu(self.sp);
                self.sp = self.sp.wrapping_add(1);
            }
            0x34 => {
                let hl = self.hl();
                let v = bus.read(hl);
                let r = self.inc8(v);
                bus.write(hl, r);
            }
            0x35 => {
                let hl = self.hl();
                let v = bus.read(hl);
                let r = self.dec8(v);
                bus.write(hl, r);
            }
            0x36 => {
                let v = self.fetch8(bus);
                bus.write(self.hl(), v);
            }
            0x37 => self.scf(),
            0x38 => self.jr_cc(bus, self.flag_c()),
            0x39 => self.add_hl(bus, self.sp),
            0x3A => {
                let hl = self.hl();
                self.a = bus.read_idu(hl);
                self.set_hl(hl.wrapping_sub(1));
            }
            0x3B => {
                bus.idle_idu(self.sp);
                self.sp = self.sp.wrapping_sub(1);
            }
            0x3C => self.a = self.inc8(self.a),
            0x3D => self.a = self.dec8(self.a),
            0x3E => self.a = self.fetch8(bus),
            0x3F => self.ccf(),

            // ---- 0x40-0x7F: LD r,r' (0x76 is HALT) ----
            0x40 => {}
            0x41 => self.b = self.c,
            0x42 => self.b = self.d,
            0x43 => self.b = self.e,
            0x44 => self.b = self.h,
            0x45 => self.b = self.l,
            0x46 => self.b = self.read_hl(bus),
            0x47 => self.b = self.a,
            0x48 => self.c = self.b,
            0x49 => {}
            0x4A => self.c = self.d,
            0x4B => self.c = self.e,
            0x4C => self.c = self.h,
            0x4D => self.c = self.l,
            0x4E => self.c = self.read_hl(bus),
            0x4F => self.c = self.a,
            0x50 => self.d = self.b,
            0x51 => self.d = self.c,
            0x52 => {}
            0x53 => self.d = self.e,
            0x54 => self.d = self.h,
            0x55 => self.d = self.l,
            0x56 => self.d = self.read_hl(bus),
            0x57 => self.d = self.a,
            0x58 => self.e = self.b,
            0x59 => self.e = self.c,
            0x5A => self.e = self.d,
            0x5B => {}
            0x5C => self.e = self.h,
            0x5D => self.e = self.l,
            0x5E => self.e = self.read_hl(bus),
            0x5F => self.e = self.a,
            0x60 => self.h = self.b,
            0x61 => self.h = self.c,
            0x62 => self.h = self.d,
            0x63 => self.h = self.e,
            0x64 => {}
            0x65 => self.h = self.l,
            0x66 => self.h = self.read_hl(bus),
            0x67 => self.h = self.a,
            0x68 => self.l = self.b,
            0x69 => self.l = self.c,
            0x6A => self.l = self.d,
            0x6B => self.l = self.e,
            0x6C => self.l = self.h,
            0x6D => {}
            0x6E => self.l = self.read_hl(bus),
            0x6F => self.l = self.a,
            0x70 => bus.write(self.hl(), self.b),
            0x71 => bus.write(self.hl(), self.c),
            0x72 => bus.write(self.hl(), self.d),
            0x73 => bus.write(self.hl(), self.e),
            0x74 => bus.write(self.hl(), self.h),
            0x75 => bus.write(self.hl(), self.l),
            0x77 => bus.write(self.hl(), self.a),
            0x78 => self.a = self.b,
            0x79 => self.a = self.c,
            0x7A => self.a = self.d,
            0x7B => self.a = self.e,
            0x7C => self.a = self.h,
            0x7D => self.a = self.l,
            0x7E => self.a = self.read_hl(bus),
            0x7F => {}
            0x76 => {
                bus.recheck();
                if bus.pending_interrupts() == 0 {
                    self.mode = Mode::Halted;
                } else if !self.ime {
                    // HALT bug: no halt, and the next fetch repeats this PC.
                    self.mode = Mode::HaltBug;
                }
                // IME=1 with an interrupt pending: no halt; the next step
                // dispatches and returns to the instruction after HALT.
            }

            // ---- 0x80-0xBF: 8-bit ALU on A ----
            0x80 => self.alu_add(self.b),
            0x81 => self.alu_add(self.c),
            0x82 => self.alu_add(self.d),
            0x83 => self.alu_add(self.e),
            0x84 => self.alu_add(self.h),
            0x85 => self.alu_add(self.l),
            0x86 => {
                let v = self.read_hl(bus);
                self.alu_add(v);
            }
            0x87 => self.alu_add(self.a),
            0x88 => self.alu_adc(self.b),
            0x89 => self.alu_adc(self.c),
            0x8A => self.alu_adc(self.d),
            0x8B => self.alu_adc(self.e),
            0x8C => self.alu_adc(self.h),
            0x8D => self.alu_adc(self.l),
            0x8E => {
                let v = self.read_hl(bus);
                self.alu_adc(v);
            }
            0x8F => self.alu_adc(self.a),
            0x90 => self.alu_sub(self.b),
            0x91 => self.alu_sub(self.c),
            0x92 => self.alu_sub(self.d),
            0x93 => self.alu_sub(self.e),
            0x94 => self.alu_sub(self.h),
            0x95 => self.alu_sub(self.l),
            0x96 => {
                let v = self.read_hl(bus);
                self.alu_sub(v);
            }
            0x97 => self.alu_sub(self.a),
            0x98 => self.alu_sbc(self.b),
            0x99 => self.alu_sbc(self.c),
            0x9A => self.alu_sbc(self.d),
            0x9B => self.alu_sbc(self.e),
            0x9C => self.alu_sbc(self.h),
            0x9D => self.alu_sbc(self.l),
            0x9E => {
                let v = self.read_hl(bus);
                self.alu_sbc(v);
            }
            0x9F => self.alu_sbc(self.a),
            0xA0 => self.alu_and(self.b),
            0xA1 => self.alu_and(self.c),
            0xA2 => self.alu_and(self.d),
            0xA3 => self.alu_and(self.e),
            0xA4 => self.alu_and(self.h),
            0xA5 => self.alu_and(self.l),
            0xA6 => {
                let v = self.read_hl(bus);
                self.alu_and(v);
            }
            0xA7 => self.alu_and(self.a),
            0xA8 => self.alu_xor(self.b),
            0xA9 => self.alu_xor(self.c),
            0xAA => self.alu_xor(self.d),
            0xAB => self.alu_xor(self.e),
            0xAC => self.alu_xor(self.h),
            0xAD => self.alu_xor(self.l),
            0xAE => {
                let v = self.read_hl(bus);
                self.alu_xor(v);
            }
            0xAF => self.alu_xor(self.a),
            0xB0 => self.alu_or(self.b),
            0xB1 => self.alu_or(self.c),
            0xB2 => self.alu_or(self.d),
            0xB3 => self.alu_or(self.e),
            0xB4 => self.alu_or(self.h),
            0xB5 => self.alu_or(self.l),
            0xB6 => {
                let v = self.read_hl(bus);
                self.alu_or(v);
            }
            0xB7 => self.alu_or(self.a),
            0xB8 => self.alu_cp(self.b),
            0xB9 => self.alu_cp(self.c),
            0xBA => self.alu_cp(self.d),
            0xBB => self.alu_cp(self.e),
            0xBC => self.alu_cp(self.h),
            0xBD => self.alu_cp(self.l),
            0xBE => {
                let v = self.read_hl(bus);
                self.alu_cp(v);
            }
            0xBF => self.alu_cp(self.a),

            // ---- 0xC0-0xFF: control flow, stack, immediates, I/O ----
            0xC0 => self.ret_cc_run(bus, !self.flag_z()),
            0xC1 => {
                let v = self.pop16(bus);
                self.set_bc(v);
            }
            0xC2 => self.jp_cc(bus, !self.flag_z()),
            0xC3 => self.jp(bus, true),
            0xC4 => self.call_cc(bus, !self.flag_z()),
            0xC5 => self.push16(bus, self.bc()),
            0xC6 => {
                let v = self.fetch8(bus);
                self.alu_add(v);
            }
            0xC7 => self.rst(bus, 0x00),
            0xC8 => self.ret_cc_run(bus, self.flag_z()),
            0xC9 => {
                self.ret(bus);
                bus.returned(self.pc);
            }
            0xCA => self.jp_cc(bus, self.flag_z()),
            0xCB => {
                let op2 = self.fetch8(bus);
                self.execute_cb(op2, bus);
            }
            0xCC => self.call_cc(bus, self.flag_z()),
            0xCD => {
                // The address pushed: the one after the immediate.
                let ret = self.pc.wrapping_add(2);
                self.call(bus, true);
                bus.called(ret);
            }
            0xCE => {
                let v = self.fetch8(bus);
                self.alu_adc(v);
            }
            0xCF => self.rst(bus, 0x08),

            0xD0 => self.ret_cc_run(bus, !self.flag_c()),
            0xD1 => {
                let v = self.pop16(bus);
                self.set_de(v);
            }
            0xD2 => self.jp_cc(bus, !self.flag_c()),
            0xD4 => self.call_cc(bus, !self.flag_c()),
            0xD5 => self.push16(bus, self.de()),
            0xD6 => {
                let v = self.fetch8(bus);
                self.alu_sub(v);
            }
            0xD7 => self.rst(bus, 0x10),
            0xD8 => self.ret_cc_run(bus, self.flag_c()),
            0xD9 => {
                // RETI: like RET, IME=1 immediately (no EI delay).
                self.ret(bus);
                self.ime = true;
                bus.recheck();
            }
            0xDA => self.jp_cc(bus, self.flag_c()),
            0xDC => self.call_cc(bus, self.flag_c()),
            0xDE => {
                let v = self.fetch8(bus);
                self.alu_sbc(v);
            }
            0xDF => self.rst(bus, 0x18),

            0xE0 => {
                let n = self.fetch8(bus);
                bus.write(0xFF00 | n as u16, self.a);
            }
            0xE1 => {
                let v = self.pop16(bus);
                self.set_hl(v);
            }
            0xE2 => bus.write(0xFF00 | self.c as u16, self.a),
            0xE5 => self.push16(bus, self.hl()),
            0xE6 => {
                let v = self.fetch8(bus);
                self.alu_and(v);
            }
            0xE7 => self.rst(bus, 0x20),
            0xE8 => {
                let e = self.fetch8(bus);
                self.sp = self.sp_plus_e(e);
                bus.idle();
                bus.idle();
            }
            0xE9 => self.pc = self.hl(),
            0xEA => {
                let addr = self.fetch16(bus);
                bus.write(addr, self.a);
            }
            0xEE => {
                let v = self.fetch8(bus);
                self.alu_xor(v);
            }
            0xEF => self.rst(bus, 0x28),

            0xF0 => {
                let n = self.fetch8(bus);
                self.a = bus.read(0xFF00 | n as u16);
            }
            0xF1 => {
                let [lo, hi] = self.pop16(bus).to_le_bytes();
                self.a = hi;
                self.f = lo & 0xF0;
            }
            0xF2 => self.a = bus.read(0xFF00 | self.c as u16),
            0xF3 => self.ime = false,
            0xF5 => self.push16(bus, u16::from_be_bytes([self.a, self.f])),
            0xF6 => {
                let v = self.fetch8(bus);
                self.alu_or(v);
            }
            0xF7 => self.rst(bus, 0x30),
            0xF8 => {
                let e = self.fetch8(bus);
                let v = self.sp_plus_e(e);
                bus.idle();
                self.set_hl(v);
            }
            0xF9 => {
                bus.idle();
                self.sp = self.hl();
            }
            0xFA => {
                let addr = self.fetch16(bus);
                self.a = bus.read(addr);
            }
            0xFB => {
                // EI: IME turns on after the next instruction (see `step`).
                // With IME already 1 there is nothing to delay.
                if !self.ime {
                    self.mode = Mode::EiPending;
                    bus.recheck();
                }
            }
            0xFE => {
                let v = self.fetch8(bus);
                self.alu_cp(v);
            }
            0xFF => self.rst(bus, 0x38),

            // The 11 unused opcodes hang the CPU until reset.
            0xD3 | 0xDB | 0xDD | 0xE3 | 0xE4 | 0xEB | 0xEC | 0xED | 0xF4 | 0xFC | 0xFD => {
                self.mode = Mode::Locked;
                bus.recheck();
            }
        }
    }
}

/// Conditional jumps, calls and returns: straight runs chain through them
/// as not taken (`RunTable::chain`), so a taken one tells the bus
/// (`RunHooks::branch_taken`).
impl Cpu {
    #[inline(always)]
    fn jr_cc<B: CpuHost>(&mut self, bus: &mut B, taken: bool) {
        self.jr(bus, taken);
        if taken {
            bus.branch_taken();
        }
    }

    #[inline(always)]
    fn jp_cc<B: CpuHost>(&mut self, bus: &mut B, taken: bool) {
        self.jp(bus, taken);
        if taken {
            bus.branch_taken();
        }
    }

    #[inline(always)]
    fn call_cc<B: CpuHost>(&mut self, bus: &mut B, taken: bool) {
        self.call(bus, taken);
        if taken {
            bus.branch_taken();
        }
    }

    #[inline(always)]
    fn ret_cc_run<B: CpuHost>(&mut self, bus: &mut B, taken: bool) {
        self.ret_cc(bus, taken);
        if taken {
            bus.branch_taken();
        }
    }
}
