//! The fast bus's side of compiled blocks (feature `jit`, `crate::jit`):
//! the accesses a block cannot make itself go through the straight run's
//! bus (`Bus<false, ROM_RUN>` with or without `BANKED`, and `WRAM_RUN`,
//! the buses that run blocks) exactly as the interpreter's do, after the
//! M-cycle's tick.

use super::Bus;
use crate::jit::{Chain, JitHost, Maps, NO_CHAIN};

impl<const REF: bool, const MODE: u8> Bus<'_, REF, MODE> {
    /// Where this run's blocks may chain (`jit::Chain`): up to `horizon`,
    /// into banks mapped where they usually are (as chained runs,
    /// `RunTable::chain`).
    pub(super) fn jit_chain(&self, horizon: u64) -> Chain {
        let cart = &self.hw.cart;
        let (rom0, romx) = (cart.rom_offset(0) as u64, cart.rom_offset(0x4000) as u64);
        Chain {
            horizon,
            rom0: if rom0 == 0 { 0 } else { NO_CHAIN },
            romx: if romx >= 0x4000 { romx } else { NO_CHAIN },
        }
    }
}

impl<const REF: bool, const MODE: u8> JitHost for Bus<'_, REF, MODE> {
    #[inline]
    fn ram(&mut self) -> &mut [u8] {
        &mut self.ram[..]
    }

    fn maps(&mut self) -> Maps<'_> {
        let hw = &mut *self.hw;
        // A bank the cartridge maps whole (its reads are `read_rom`'s, no
        // boot ROM over them).
        let rom = [0x0000u16, 0x4000].map(|a| {
            let off = hw.cart.rom_offset(a);
            if off % 0x4000 != 0 || (a == 0 && hw.boot_end() != 0) {
                return None;
            }
            self.code.bank(off)
        });
        let wram_banks = match hw.cgb.as_deref_mut() {
            Some(c) if c.cgb_mode => {
                let bank = c.wram_bank();
                Some((&mut *c.wram, bank))
            }
            _ => None,
        };
        Maps {
            ram: &mut self.ram[..],
            wram_banks,
            rom,
        }
    }

    fn read(&mut self, now: &mut u64, addr: u16, idu: bool) -> u8 {
        self.now = *now;
        let v = if idu {
            self.read_at::<true>(addr)
        } else {
            self.read_at::<false>(addr)
        };
        *now = self.now;
        v
    }

    fn write(&mut self, now: &mut u64, addr: u16, value: u8) {
        self.now = *now;
        self.write_at(addr, value);
        *now = self.now;
    }

    fn idu(&mut self, now: &mut u64, _addr: u16) {
        self.now = *now;
        self.oam_bug_at_idu();
        *now = self.now;
    }

    #[inline]
    fn ends_run(&self) -> bool {
        self.slow
    }

    fn set_svbk(&mut self, value: u8) {
        self.hw.set_svbk(value);
    }
}
