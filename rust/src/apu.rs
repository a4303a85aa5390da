//! Sound registers (register level only for now: storage, read masks, power
//! on/off). Channel emulation and sample output come with the APU issue.

use crate::error::Result;
use crate::state::{StateReader, StateWriter, Stateful};

/// Bits that read back as 1 for 0xFF10..=0xFF2F (Pan Docs / Blargg dmg_sound).
const READ_MASK: [u8; 0x20] = [
    0x80, 0x3F, 0x00, 0xFF, 0xBF, // NR10-NR14
    0xFF, 0x3F, 0x00, 0xFF, 0xBF, // -, NR21-NR24
    0x7F, 0xFF, 0x9F, 0xFF, 0xBF, // NR30-NR34
    0xFF, 0xFF, 0x00, 0x00, 0xBF, // -, NR41-NR44
    0x00, 0x00, 0x70, // NR50-NR52
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Apu {
    regs: [u8; 0x20],
    pub wave: [u8; 16],
}

impl Apu {
    pub fn post_boot() -> Apu {
        let mut regs = [0u8; 0x20];
        let init: [(usize, u8); 21] = [
            (0x10, 0x80),
            (0x11, 0xBF),
            (0x12, 0xF3),
            (0x13, 0xFF),
            (0x14, 0xBF),
            (0x16, 0x3F),
            (0x17, 0x00),
            (0x18, 0xFF),
            (0x19, 0xBF),
            (0x1A, 0x7F),
            (0x1B, 0xFF),
            (0x1C, 0x9F),
            (0x1D, 0xFF),
            (0x1E, 0xBF),
            (0x20, 0xFF),
            (0x21, 0x00),
            (0x22, 0x00),
            (0x23, 0xBF),
            (0x24, 0x77),
            (0x25, 0xF3),
            (0x26, 0xF1),
        ];
        for (a, v) in init {
            regs[a - 0x10] = v;
        }
        Apu {
            regs,
            wave: [0; 16],
        }
    }

    pub fn power_on() -> Apu {
        Apu {
            regs: [0; 0x20],
            wave: [0; 16],
        }
    }

    fn powered(&self) -> bool {
        self.regs[0x16] & 0x80 != 0
    }

    pub fn read(&self, addr: u16) -> u8 {
        match addr {
            0xFF30..=0xFF3F => self.wave[(addr - 0xFF30) as usize],
            0xFF26 => {
                // Channel-active flags need channel emulation (APU issue);
                // channel 1 is left on by the boot ROM's chime.
                (self.regs[0x16] & 0x80) | 0x70 | (self.regs[0x16] & 0x0F)
            }
            _ => {
                let i = (addr - 0xFF10) as usize;
                self.regs[i] | READ_MASK[i]
            }
        }
    }

    pub fn write(&mut self, addr: u16, value: u8) {
        match addr {
            0xFF30..=0xFF3F => self.wave[(addr - 0xFF30) as usize] = value,
            0xFF26 => {
                if value & 0x80 == 0 {
                    // Power off clears every sound register.
                    self.regs = [0; 0x20];
                } else {
                    self.regs[0x16] |= 0x80;
                }
            }
            _ if !self.powered() => {}
            _ => self.regs[(addr - 0xFF10) as usize] = value,
        }
    }
}

impl Stateful for Apu {
    fn save(&self, w: &mut StateWriter) {
        w.begin_section(b"APU ");
        w.raw(&self.regs);
        w.raw(&self.wave);
        w.end_section();
    }
    fn load(&mut self, r: &mut StateReader) -> Result<()> {
        r.begin_section(b"APU ")?;
        self.regs.copy_from_slice(r.raw(0x20)?);
        self.wave.copy_from_slice(r.raw(16)?);
        r.end_section()
    }
}
