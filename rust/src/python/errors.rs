//! The exception hierarchy of `emurust._core`, the one mapping from core
//! errors to it ([`core_error`]), and panics caught at the boundary
//! ([`no_panic`]) reported as `InternalError`.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::create_exception;
use pyo3::exceptions::{
    PyException, PyIndexError, PyMemoryError, PyRuntimeError, PyUserWarning, PyValueError,
};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

use crate::Error;

create_exception!(
    emurust,
    EmuRustError,
    PyException,
    "Base class of every error raised by EmuRust."
);
create_exception!(
    emurust,
    InvalidRomError,
    EmuRustError,
    "The ROM (or boot ROM) image cannot be loaded: too short, too long, corrupt header, \
     wrong boot ROM size..."
);
create_exception!(
    emurust,
    UnsupportedCartridgeError,
    InvalidRomError,
    "The ROM is well-formed but its cartridge type (header byte 0x147) is not emulated."
);
create_exception!(
    emurust,
    InvalidStateError,
    EmuRustError,
    "A save state is truncated, corrupted, from another version or from another ROM."
);
create_exception!(
    emurust,
    InternalError,
    EmuRustError,
    "A bug in EmuRust (a Rust panic caught at the Python boundary). The GameBoy \
     instance that raised it refuses further use."
);
create_exception!(
    emurust,
    EmuRustWarning,
    PyUserWarning,
    "Warnings about questionable input that EmuRust still accepts (ROM header problems...)."
);

/// `InvalidArgumentError(EmuRustError, ValueError)` and
/// `InvalidAddressError(EmuRustError, IndexError)` have two bases, which
/// `create_exception!` cannot express, so they are built once with `type()`.
static INVALID_ARGUMENT: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static INVALID_ADDRESS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
/// `SoundOffError(EmuRustError, RuntimeError)`, built the same way.
static SOUND_OFF: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn two_base_exception<'py>(
    py: Python<'py>,
    name: &str,
    second_base: Bound<'py, PyType>,
    doc: &str,
) -> PyResult<Py<PyType>> {
    let bases = PyTuple::new(py, [py.get_type::<EmuRustError>(), second_base])?;
    let namespace = PyDict::new(py);
    namespace.set_item("__module__", "emurust")?;
    namespace.set_item("__doc__", doc)?;
    let ty = py.get_type::<PyType>().call1((name, bases, namespace))?;
    Ok(ty.cast_into::<PyType>()?.unbind())
}

pub(super) fn invalid_argument_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    INVALID_ARGUMENT
        .get_or_try_init(py, || {
            two_base_exception(
                py,
                "InvalidArgumentError",
                py.get_type::<PyValueError>(),
                "An argument has the right type but a bad value (button name, frame count, \
                 byte value out of 0..=255, slice length mismatch...).",
            )
        })
        .map(|ty| ty.bind(py))
}

pub(super) fn invalid_address_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    INVALID_ADDRESS
        .get_or_try_init(py, || {
            two_base_exception(
                py,
                "InvalidAddressError",
                py.get_type::<PyIndexError>(),
                "A memory address outside 0x0000..=0xFFFF (negative addresses are not \
                 supported).",
            )
        })
        .map(|ty| ty.bind(py))
}

pub(super) fn sound_off_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    SOUND_OFF
        .get_or_try_init(py, || {
            two_base_exception(
                py,
                "SoundOffError",
                py.get_type::<PyRuntimeError>(),
                "Sound samples were asked for while sound output is off (turn it on with \
                 GameBoy(..., sound_sample_rate=48000) or gb.sound_sample_rate = 48000).",
            )
        })
        .map(|ty| ty.bind(py))
}

pub(super) fn error_of_type(ty: PyResult<&Bound<'_, PyType>>, msg: String) -> PyErr {
    match ty {
        Ok(ty) => PyErr::from_type(ty.clone(), msg),
        // Creating the class itself failed (out of memory...): report that.
        Err(e) => e,
    }
}

pub(super) fn invalid_argument(py: Python<'_>, msg: impl Into<String>) -> PyErr {
    error_of_type(invalid_argument_type(py), msg.into())
}

pub(super) fn invalid_address(py: Python<'_>, msg: impl Into<String>) -> PyErr {
    error_of_type(invalid_address_type(py), msg.into())
}

/// The one mapping from core errors to Python exceptions.
pub(super) fn core_error(py: Python<'_>, err: Error) -> PyErr {
    match err {
        Error::InvalidRom(m) => InvalidRomError::new_err(m),
        Error::UnsupportedCartridge(m) => UnsupportedCartridgeError::new_err(m),
        Error::InvalidState(m) => InvalidStateError::new_err(m),
        Error::InvalidArgument(m) => invalid_argument(py, m),
        Error::OutOfMemory(m) => PyMemoryError::new_err(m),
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_owned()
    }
}

/// Runs `f`, turning a panic into its message.
pub(super) fn no_panic<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| panic_message(payload.as_ref()))
}

pub(super) fn internal_error(msg: &str) -> PyErr {
    InternalError::new_err(format!(
        "internal emulator error (a bug in EmuRust, please report it with the ROM): {msg}; \
         this GameBoy can no longer be used"
    ))
}
