//! The fast bus's side of compiled blocks (feature `jit`, `crate::jit`):
//! the accesses a block cannot make itself go through the straight run's
//! bus (`Bus<false, ROM_RUN>`, the only one that runs blocks) exactly as the interpreter's do, after the M-cycle's tick.

use super::Bus;
use crate::jit::JitHost;

impl<const REF: bool, const MODE: u8> JitHost for Bus<'_, REF, MODE> {
    #[inline]
    fn ram(&mut self) -> &mut [u8] {
        &mut self.ram[..]
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
}
