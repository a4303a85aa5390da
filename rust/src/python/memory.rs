//! `emurust._core.Memory`: the 64 KiB address space of a `GameBoy`.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyIterator, PySlice};

use super::args::{address_arg, byte_arg, bytes_arg, slice_addresses, ADDRESS_SPACE};
use super::errors::invalid_argument;
use super::gameboy::PyGameBoy;

/// The 64 KiB address space of a GameBoy (`GameBoy.memory`).
///
/// `m[addr]` is a side-effect-free read (int), `m[a:b:step]` gives bytes;
/// `m[addr] = v` and `m[a:b] = data` write through the bus (MBC registers
/// and IO side effects happen, no time passes).
#[pyclass(module = "emurust._core", name = "Memory", frozen)]
pub struct PyMemory {
    pub(super) gb: Py<PyGameBoy>,
}

#[pymethods]
impl PyMemory {
    fn __len__(&self) -> usize {
        ADDRESS_SPACE
    }

    /// Iterates over a snapshot of all 65536 bytes (taken when iteration starts).
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyIterator>> {
        let owner = self.gb.bind(py).try_borrow()?;
        let bytes = owner.read(|gb| (0..=u16::MAX).map(|a| gb.peek(a)).collect::<Vec<u8>>())?;
        PyBytes::new(py, &bytes).try_iter()
    }

    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let owner = self.gb.bind(py).try_borrow()?;
        if let Ok(slice) = key.cast::<PySlice>() {
            let addrs = slice_addresses(slice)?;
            let bytes = owner.read(|gb| addrs.map(|a| gb.peek(a)).collect::<Vec<u8>>())?;
            return Ok(PyBytes::new(py, &bytes).into_any());
        }
        let addr = address_arg(key)?;
        let value = owner.read(|gb| gb.peek(addr))?;
        Ok(value.into_pyobject(py)?.into_any())
    }

    fn __setitem__(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        if let Ok(slice) = key.cast::<PySlice>() {
            let addrs: Vec<u16> = slice_addresses(slice)?.collect();
            let data = bytes_arg(value)?;
            if data.len() != addrs.len() {
                return Err(invalid_argument(
                    py,
                    format!(
                        "slice assignment needs exactly {} values, got {} (the address \
                         space cannot be resized)",
                        addrs.len(),
                        data.len()
                    ),
                ));
            }
            let mut owner = self.gb.bind(py).try_borrow_mut()?;
            return owner.write(|gb| {
                for (addr, byte) in addrs.into_iter().zip(data) {
                    gb.poke(addr, byte);
                }
            });
        }
        let addr = address_arg(key)?;
        let byte = byte_arg(value)?;
        let mut owner = self.gb.bind(py).try_borrow_mut()?;
        owner.write(|gb| gb.poke(addr, byte))
    }

    fn __repr__(&self) -> &'static str {
        "<emurust.Memory 0x0000..=0xFFFF>"
    }
}
