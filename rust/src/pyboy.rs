//! PyBoy compatibility, in one place: what `emurust.PyBoy` (PyBoy 2.x's API
//! on this core) needs from the machine beyond what `GameBoy` offers.
//!
//! * [`hooks`]: PC hooks (`PyBoy.hook_register`, a [`hooks::HookTable`] run
//!   on the breakpoint bus of `crate::debug`) and PyBoy-aligned frames
//!   (`GameBoy::run_pyboy_frame`: a frame ends where PyBoy's `tick()` ends
//!   one).
//! * [`state`]: PyBoy 2.8.1's save-state format, read into a machine and
//!   written from one (DMG and CGB).
//!
//! The components keep their own import functions (`Ppu::import_*`,
//! `Apu::import`, `Cpu`'s and the cartridge's), which these modules call.

pub mod hooks;
pub mod state;
