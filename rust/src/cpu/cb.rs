//! CB-prefixed opcodes: rotates/shifts, BIT, RES, SET.
//!
//! Register forms take no extra cycle; `(HL)` forms read then write
//! (BIT n,(HL) only reads).

use super::{Cpu, CpuBus};

impl Cpu {
    /// Execute the CB-prefixed opcode `op` (the prefix and `op` are already fetched).
    #[inline(always)]
    pub(super) fn execute_cb<B: CpuBus>(&mut self, op: u8, bus: &mut B) {
        match op {
            0x00 => self.b = self.rlc(self.b),
            0x01 => self.c = self.rlc(self.c),
            0x02 => self.d = self.rlc(self.d),
            0x03 => self.e = self.rlc(self.e),
            0x04 => self.h = self.rlc(self.h),
            0x05 => self.l = self.rlc(self.l),
            0x06 => {
                let v = self.read_hl(bus);
                let r = self.rlc(v);
                bus.write(self.hl(), r);
            }
            0x07 => self.a = self.rlc(self.a),
            0x08 => self.b = self.rrc(self.b),
            0x09 => self.c = self.rrc(self.c),
            0x0A => self.d = self.rrc(self.d),
            0x0B => self.e = self.rrc(self.e),
            0x0C => self.h = self.rrc(self.h),
            0x0D => self.l = self.rrc(self.l),
            0x0E => {
                let v = self.read_hl(bus);
                let r = self.rrc(v);
                bus.write(self.hl(), r);
            }
            0x0F => self.a = self.rrc(self.a),
            0x10 => self.b = self.rl(self.b),
            0x11 => self.c = self.rl(self.c),
            0x12 => self.d = self.rl(self.d),
            0x13 => self.e = self.rl(self.e),
            0x14 => self.h = self.rl(self.h),
            0x15 => self.l = self.rl(self.l),
            0x16 => {
                let v = self.read_hl(bus);
                let r = self.rl(v);
                bus.write(self.hl(), r);
            }
            0x17 => self.a = self.rl(self.a),
            0x18 => self.b = self.rr(self.b),
            0x19 => self.c = self.rr(self.c),
            0x1A => self.d = self.rr(self.d),
            0x1B => self.e = self.rr(self.e),
            0x1C => self.h = self.rr(self.h),
            0x1D => self.l = self.rr(self.l),
            0x1E => {
                let v = self.read_hl(bus);
                let r = self.rr(v);
                bus.write(self.hl(), r);
            }
            0x1F => self.a = self.rr(self.a),
            0x20 => self.b = self.sla(self.b),
            0x21 => self.c = self.sla(self.c),
            0x22 => self.d = self.sla(self.d),
            0x23 => self.e = self.sla(self.e),
            0x24 => self.h = self.sla(self.h),
            0x25 => self.l = self.sla(self.l),
            0x26 => {
                let v = self.read_hl(bus);
                let r = self.sla(v);
                bus.write(self.hl(), r);
            }
            0x27 => self.a = self.sla(self.a),
            0x28 => self.b = self.sra(self.b),
            0x29 => self.c = self.sra(self.c),
            0x2A => self.d = self.sra(self.d),
            0x2B => self.e = self.sra(self.e),
            0x2C => self.h = self.sra(self.h),
            0x2D => self.l = self.sra(self.l),
            0x2E => {
                let v = self.read_hl(bus);
                let r = self.sra(v);
                bus.write(self.hl(), r);
            }
            0x2F => self.a = self.sra(self.a),
            0x30 => self.b = self.swap(self.b),
            0x31 => self.c = self.swap(self.c),
            0x32 => self.d = self.swap(self.d),
            0x33 => self.e = self.swap(self.e),
            0x34 => self.h = self.swap(self.h),
            0x35 => self.l = self.swap(self.l),
            0x36 => {
                let v = self.read_hl(bus);
                let r = self.swap(v);
                bus.write(self.hl(), r);
            }
            0x37 => self.a = self.swap(self.a),
            0x38 => self.b = self.srl(self.b),
            0x39 => self.c = self.srl(self.c),
            0x3A => self.d = self.srl(self.d),
            0x3B => self.e = self.srl(self.e),
            0x3C => self.h = self.srl(self.h),
            0x3D => self.l = self.srl(self.l),
            0x3E => {
                let v = self.read_hl(bus);
                let r = self.srl(v);
                bus.write(self.hl(), r);
            }
            0x3F => self.a = self.srl(self.a),
            0x40 => self.bit(0, self.b),
            0x41 => self.bit(0, self.c),
            0x42 => self.bit(0, self.d),
            0x43 => self.bit(0, self.e),
            0x44 => self.bit(0, self.h),
            0x45 => self.bit(0, self.l),
            0x46 => {
                let v = self.read_hl(bus);
                self.bit(0, v);
            }
            0x47 => self.bit(0, self.a),
            0x48 => self.bit(1, self.b),
            0x49 => self.bit(1, self.c),
            0x4A => self.bit(1, self.d),
            0x4B => self.bit(1, self.e),
            0x4C => self.bit(1, self.h),
            0x4D => self.bit(1, self.l),
            0x4E => {
                let v = self.read_hl(bus);
                self.bit(1, v);
            }
            0x4F => self.bit(1, self.a),
            0x50 => self.bit(2, self.b),
            0x51 => self.bit(2, self.c),
            0x52 => self.bit(2, self.d),
            0x53 => self.bit(2, self.e),
            0x54 => self.bit(2, self.h),
            0x55 => self.bit(2, self.l),
            0x56 => {
                let v = self.read_hl(bus);
                self.bit(2, v);
            }
            0x57 => self.bit(2, self.a),
            0x58 => self.bit(3, self.b),
            0x59 => self.bit(3, self.c),
            0x5A => self.bit(3, self.d),
            0x5B => self.bit(3, self.e),
            0x5C => self.bit(3, self.h),
            0x5D => self.bit(3, self.l),
            0x5E => {
                let v = self.read_hl(bus);
                self.bit(3, v);
            }
            0x5F => self.bit(3, self.a),
            0x60 => self.bit(4, self.b),
            0x61 => self.bit(4, self.c),
            0x62 => self.bit(4, self.d),
            0x63 => self.bit(4, self.e),
            0x64 => self.bit(4, self.h),
            0x65 => self.bit(4, self.l),
            0x66 => {
                let v = self.read_hl(bus);
                self.bit(4, v);
            }
            0x67 => self.bit(4, self.a),
            0x68 => self.bit(5, self.b),
            0x69 => self.bit(5, self.c),
            0x6A => self.bit(5, self.d),
            0x6B => self.bit(5, self.e),
            0x6C => self.bit(5, self.h),
            0x6D => self.bit(5, self.l),
            0x6E => {
                let v = self.read_hl(bus);
                self.bit(5, v);
            }
            0x6F => self.bit(5, self.a),
            0x70 => self.bit(6, self.b),
            0x71 => self.bit(6, self.c),
            0x72 => self.bit(6, self.d),
            0x73 => self.bit(6, self.e),
            0x74 => self.bit(6, self.h),
            0x75 => self.bit(6, self.l),
            0x76 => {
                let v = self.read_hl(bus);
                self.bit(6, v);
            }
            0x77 => self.bit(6, self.a),
            0x78 => self.bit(7, self.b),
            0x79 => self.bit(7, self.c),
            0x7A => self.bit(7, self.d),
            0x7B => self.bit(7, self.e),
            0x7C => self.bit(7, self.h),
            0x7D => self.bit(7, self.l),
            0x7E => {
                let v = self.read_hl(bus);
                self.bit(7, v);
            }
            0x7F => self.bit(7, self.a),
            0x80 => self.b &= !0x01,
            0x81 => self.c &= !0x01,
            0x82 => self.d &= !0x01,
            0x83 => self.e &= !0x01,
            0x84 => self.h &= !0x01,
            0x85 => self.l &= !0x01,
            0x86 => {
                let v = self.read_hl(bus);
                bus.write(self.hl(), v & !0x01);
            }
            0x87 => self.a &= !0x01,
            0x88 => self.b &= !0x02,
            0x89 => self.c &= !0x02,
            0x8A => self.d &= !0x02,
            0x8B => self.e &= !0x02,
            0x8C => self.h &= !0x02,
            0x8D => self.l &= !0x02,
            0x8E => {
                let v = self.read_hl(bus);
                bus.write(self.hl(), v & !0x02);
            }
            0x8F => self.a &= !0x02,
            0x90 => self.b &= !0x04,
            0x91 => self.c &= !0x04,
            0x92 => self.d &= !0x04,
            0x93 => self.e &= !0x04,
            0x94 => self.h &= !0x04,
            0x95 => self.l &= !0x04,
            0x96 => {
                let v = self.read_hl(bus);
                bus.write(self.hl(), v & !0x04);
            }
            0x97 => self.a &= !0x04,
            0x98 => self.b &= !0x08,
            0x99 => self.c &= !0x08,
            0x9A => self.d &= !0x08,
            0x9B => self.e &= !0x08,
            0x9C => self.h &= !0x08,
            0x9D => self.l &= !0x08,
            0x9E => {
                let v = self.read_hl(bus);
                bus.write(self.hl(), v & !0x08);
            }
            0x9F => self.a &= !0x08,
            0xA0 => self.b &= !0x10,
            0xA1 => self.c &= !0x10,
            0xA2 => self.d &= !0x10,
            0xA3 => self.e &= !0x10,
            0xA4 => self.h &= !0x10,
            0xA5 => self.l &= !0x10,
            0xA6 => {
                let v = self.read_hl(bus);
                bus.write(self.hl(), v & !0x10);
            }
            0xA7 => self.a &= !0x10,
            0xA8 => self.b &= !0x20,
            0xA9 => self.c &= !0x20,
            0xAA => self.d &= !0x20,
            0xAB => self.e &= !0x20,
            0xAC => self.h &= !0x20,
            0xAD => self.l &= !0x20,
            0xAE => {
                let v = self.read_hl(bus);
                bus.write(self.hl(), v & !0x20);
            }
            0xAF => self.a &= !0x20,
            0xB0 => self.b &= !0x40,
            0xB1 => self.c &= !0x40,
            0xB2 => self.d &= !0x40,
            0xB3 => self.e &= !0x40,
            0xB4 => self.h &= !0x40,
            0xB5 => self.l &= !0x40,
            0xB6 => {
                let v = self.read_hl(bus);
                bus.write(self.hl(), v & !0x40);
            }
            0xB7 => self.a &= !0x40,
            0xB8 => self.b &= !0x80,
            0xB9 => self.c &= !0x80,
            0xBA => self.d &= !0x80,
            0xBB => self.e &= !0x80,
            0xBC => self.h &= !0x80,
            0xBD => self.l &= !0x80,
            0xBE => {
                let v = self.read_hl(bus);
                bus.write(self.hl(), v & !0x80);
            }
            0xBF => self.a &= !0x80,
            0xC0 => self.b |= 0x01,
            0xC1 => self.c |= 0x01,
            0xC2 => self.d |= 0x01,
            0xC3 => self.e |= 0x01,
            0xC4 => self.h |= 0x01,
            0xC5 => self.l |= 0x01,
            0xC6 => {
                let v = self.read_hl(bus);
                bus.write(self.hl(), v | 0x01);
            }
            0xC7 => self.a |= 0x01,
            0xC8 => self.b |= 0x02,
            0xC9 => self.c |= 0x02,
            0xCA => self.d |= 0x02,
            0xCB => self.e |= 0x02,
            0xCC => self.h |= 0x02,
            0xCD => self.l |= 0x02,
            0xCE => {
                let v = self.read_hl(bus);
                bus.write(self.hl(), v | 0x02);
            }
            0xCF => self.a |= 0x02,
            0xD0 => self.b |= 0x04,
            0xD1 => self.c |= 0x04,
            0xD2 => self.d |= 0x04,
            0xD3 => self.e |= 0x04,
            0xD4 => self.h |= 0x04,
            0xD5 => self.l |= 0x04,
            0xD6 => {
                let v = self.read_hl(bus);
                bus.write(self.hl(), v | 0x04);
            }
            0xD7 => self.a |= 0x04,
            0xD8 => self.b |= 0x08,
            0xD9 => self.c |= 0x08,
            0xDA => self.d |= 0x08,
            0xDB => self.e |= 0x08,
            0xDC => self.h |= 0x08,
            0xDD => self.l |= 0x08,
            0xDE => {
                let v = self.read_hl(bus);
                bus.write(self.hl(), v | 0x08);
            }
            0xDF => self.a |= 0x08,
            0xE0 => self.b |= 0x10,
            0xE1 => self.c |= 0x10,
            0xE2 => self.d |= 0x10,
            0xE3 => self.e |= 0x10,
            0xE4 => self.h |= 0x10,
            0xE5 => self.l |= 0x10,
            0xE6 => {
                let v = self.read_hl(bus);
                bus.write(self.hl(), v | 0x10);
            }
            0xE7 => self.a |= 0x10,
            0xE8 => self.b |= 0x20,
            0xE9 => self.c |= 0x20,
            0xEA => self.d |= 0x20,
            0xEB => self.e |= 0x20,
            0xEC => self.h |= 0x20,
            0xED => self.l |= 0x20,
            0xEE => {
                let v = self.read_hl(bus);
                bus.write(self.hl(), v | 0x20);
            }
            0xEF => self.a |= 0x20,
            0xF0 => self.b |= 0x40,
            0xF1 => self.c |= 0x40,
            0xF2 => self.d |= 0x40,
            0xF3 => self.e |= 0x40,
            0xF4 => self.h |= 0x40,
            0xF5 => self.l |= 0x40,
            0xF6 => {
                let v = self.read_hl(bus);
                bus.write(self.hl(), v | 0x40);
            }
            0xF7 => self.a |= 0x40,
            0xF8 => self.b |= 0x80,
            0xF9 => self.c |= 0x80,
            0xFA => self.d |= 0x80,
            0xFB => self.e |= 0x80,
            0xFC => self.h |= 0x80,
            0xFD => self.l |= 0x80,
            0xFE => {
                let v = self.read_hl(bus);
                bus.write(self.hl(), v | 0x80);
            }
            0xFF => self.a |= 0x80,
        }
    }
}
