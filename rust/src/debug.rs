//! The debug buses: generic wrappers around any bus of the machine
//! ([`MachineBus`]) that add what a debugger or a verification harness needs
//! and change nothing else. Every bus operation is forwarded unchanged, so a
//! run on a wrapper keeps the timing and the state of the bus it wraps.
//!
//! * [`DiagBus`] (`diag.rs`): an instruction trace and fault injection, the
//!   CPU's [`crate::cpu::Diagnostics`], on the reference bus.
//! * [`HookBus`] (`breakpoints.rs`): PC breakpoints ([`Breakpoints`]) on any
//!   bus; `emurust.PyBoy`'s hooks (`crate::hooks::HookTable`) use it.
//!
//! The CPU only sees the [`crate::cpu::DebugHooks`] constants they switch on
//! (`DIAGNOSTIC`, `BREAKPOINTS`); the plain buses leave them off, so they
//! carry no debug code at all. The machine picks the bus, wrapped or not, in
//! one place (`Core::on_bus` in `gameboy.rs`).

mod breakpoints;
mod diag;

pub use crate::bus::MachineBus;
pub use breakpoints::{Breakpoints, HookBus};
pub use diag::DiagBus;
