//! The debug buses: generic wrappers around any bus of the machine
//! ([`MachineBus`]) that add what a debugger or a verification harness needs
//! and change nothing else. Every bus operation is forwarded unchanged, so a
//! run on a wrapper keeps the timing and the state of the bus it wraps.
//!
//! * [`DiagBus`] (`diag.rs`): an instruction trace and fault injection, the
//!   CPU's [`crate::cpu::Diagnostics`], on the reference bus.
//! * [`HookBus`] (`breakpoints.rs`): PC breakpoints ([`Breakpoints`]) on any
//!   bus; `emurust.PyBoy`'s hooks (`crate::pyboy::hooks::HookTable`) use it.
//!
//! The CPU only sees the [`crate::cpu::DebugHooks`] constants they switch on
//! (`DIAGNOSTIC`, `BREAKPOINTS`); the plain buses leave them off, so they
//! carry no debug code at all. The machine picks the bus, wrapped or not, in
//! one place (`Core::on_bus` in `gameboy.rs`).

/// The methods of `CpuBus` for a wrapper whose wrapped bus is its field
/// `inner`: every operation forwarded unchanged (used inside the wrappers'
/// `impl CpuBus` blocks).
macro_rules! forward_cpu_bus {
    () => {
        #[inline(always)]
        fn read(&mut self, addr: u16) -> u8 {
            self.inner.read(addr)
        }
        #[inline(always)]
        fn write(&mut self, addr: u16, value: u8) {
            self.inner.write(addr, value)
        }
        #[inline(always)]
        fn idle(&mut self) {
            self.inner.idle()
        }
        #[inline(always)]
        fn idle_idu(&mut self, addr: u16) {
            self.inner.idle_idu(addr)
        }
        #[inline(always)]
        fn read_idu(&mut self, addr: u16) -> u8 {
            self.inner.read_idu(addr)
        }
        #[inline(always)]
        fn fetch(&mut self, addr: u16) -> u8 {
            self.inner.fetch(addr)
        }
        #[inline(always)]
        fn pending_interrupts(&mut self) -> u8 {
            self.inner.pending_interrupts()
        }
        #[inline(always)]
        fn pending_at_dispatch(&mut self) -> u8 {
            self.inner.pending_at_dispatch()
        }
        #[inline(always)]
        fn acknowledge_interrupt(&mut self, mask: u8) {
            self.inner.acknowledge_interrupt(mask)
        }
        #[inline(always)]
        fn acknowledge_after_low_push(&mut self, mask: u8) {
            self.inner.acknowledge_after_low_push(mask)
        }
        #[inline(always)]
        fn halt_idle(&mut self) {
            self.inner.halt_idle()
        }
        #[inline(always)]
        fn stop(&mut self) {
            self.inner.stop()
        }
        fn speed_switch(&mut self) -> bool {
            self.inner.speed_switch()
        }
        #[inline(always)]
        fn joypad_pressed(&mut self) -> bool {
            self.inner.joypad_pressed()
        }
    };
}

/// The items of `MachineBus` for a wrapper whose wrapped bus, of type
/// `$inner`, is its field `inner`: the same machine and the same kind of bus.
macro_rules! forward_machine_bus {
    ($inner:ident) => {
        const REFERENCE: bool = $inner::REFERENCE;
        const DMA: bool = $inner::DMA;

        #[inline(always)]
        fn hw(&self) -> &Hardware {
            self.inner.hw()
        }
        #[inline(always)]
        fn ram(&self) -> &Ram {
            self.inner.ram()
        }
    };
}

mod breakpoints;
mod diag;

pub use crate::bus::MachineBus;
pub use breakpoints::{Breakpoints, HookBus};
pub use diag::DiagBus;
