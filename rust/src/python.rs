//! PyO3 bindings: the private `emurust._core` extension module.
//!
//! The public Python package (`python/emurust`) re-exports what is defined
//! here and adds the pure-Python conveniences (ROM paths, warnings).
//!
//! Rules this module keeps:
//! - arguments are converted and validated into Rust values first, with a
//!   typed exception naming the problem (`TypeError` for a wrong type,
//!   `InvalidArgumentError`/`InvalidAddressError` for a value out of range);
//! - Rust takes strict types only and never calls back into the `emurust`
//!   package: Python turns friendly input (ROM paths, button-name tables...)
//!   into strict input first (`tests/test_vec.py` checks that no binding
//!   imports an `emurust` module);
//! - every core `Error` goes through [`errors::core_error`], the one mapping
//!   to the exception hierarchy;
//! - emulation runs with the interpreter detached (`Python::detach`);
//! - no panic reaches Python: every call into the core is wrapped in
//!   `catch_unwind`. A panic is a bug in EmuRust; it is reported as
//!   `InternalError` and the instance refuses further use, because its state
//!   may be half-updated.
//! - no `unsafe` here: the zero-copy NumPy views of the screen live in
//!   [`buffers`], the one module allowed to use it.
//!
//! One job per module: [`errors`] (the exception hierarchy, `core_error`,
//! `no_panic`), [`args`] (argument conversion), [`gameboy`] (`GameBoy`),
//! [`memory`] (`Memory`), [`vec`] (`VecGameBoy`, `Snapshot`), [`buffers`]
//! (the NumPy views), `testing` (test-only aids, cargo feature `testing`);
//! this file declares the module.

#![deny(unsafe_code)]

mod args;
mod buffers;
mod errors;
mod gameboy;
mod memory;
#[cfg(feature = "testing")]
mod testing;
mod vec;

use pyo3::prelude::*;

use errors::{
    invalid_address_type, invalid_argument_type, sound_off_type, EmuRustError, EmuRustWarning,
    InternalError, InvalidRomError, InvalidStateError, UnsupportedCartridgeError,
};
use gameboy::PyGameBoy;
use memory::PyMemory;

/// Exact size of a DMG boot ROM, and of a CGB's.
use crate::bus::{CGB_BOOT_ROM_SIZE, DMG_BOOT_ROM_SIZE as BOOT_ROM_SIZE};
/// Largest ROM accepted (the largest real cartridges, MBC5, are 8 MiB).
use crate::gameboy::MAX_ROM_SIZE;

/// The CPUs this process may run on: its affinity mask, capped by a cgroup
/// CPU quota (rounded down, at least 1), as Rust's standard library reads
/// them. What `VecGameBoy(num_threads=None)` starts one thread per.
#[pyfunction]
fn available_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The native part of EmuRust; use the public `emurust` package instead.
#[pymodule]
#[pyo3(name = "_core")]
fn core_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<PyGameBoy>()?;
    m.add_class::<PyMemory>()?;
    m.add_class::<vec::PyVecGameBoy>()?;
    m.add_class::<vec::PySnapshot>()?;
    #[cfg(feature = "testing")]
    m.add_function(wrap_pyfunction!(testing::_reseal_state, m)?)?;
    m.add_function(wrap_pyfunction!(available_cpus, m)?)?;
    m.add("EmuRustError", py.get_type::<EmuRustError>())?;
    m.add("InvalidRomError", py.get_type::<InvalidRomError>())?;
    m.add(
        "UnsupportedCartridgeError",
        py.get_type::<UnsupportedCartridgeError>(),
    )?;
    m.add("InvalidStateError", py.get_type::<InvalidStateError>())?;
    m.add("InvalidArgumentError", invalid_argument_type(py)?)?;
    m.add("InvalidAddressError", invalid_address_type(py)?)?;
    m.add("SoundOffError", sound_off_type(py)?)?;
    m.add("InternalError", py.get_type::<InternalError>())?;
    m.add("EmuRustWarning", py.get_type::<EmuRustWarning>())?;
    m.add("MAX_ROM_SIZE", MAX_ROM_SIZE)?;
    m.add("BOOT_ROM_SIZE", BOOT_ROM_SIZE)?;
    m.add("CGB_BOOT_ROM_SIZE", CGB_BOOT_ROM_SIZE)?;
    m.add("OBS_SHAPES", vec::obs_shapes(py)?)?;
    m.add("CLOCK_HZ", crate::clock::CLOCK_HZ)?;
    m.add("FRAME_CYCLES", crate::clock::FRAME_CYCLES)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
