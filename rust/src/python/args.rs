//! Argument conversion: Python values into strict Rust values, with a typed
//! exception naming the problem (`TypeError` for a wrong type,
//! `InvalidArgumentError`/`InvalidAddressError` for a bad value).

use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyInt, PySlice, PyString};

use super::errors::{invalid_address, invalid_argument};
use crate::Button;

/// Size of the addressable space seen through `GameBoy.memory`.
pub(super) const ADDRESS_SPACE: usize = 0x1_0000;

/// Copy a `bytes` or `bytearray` argument; anything else is a `TypeError`
/// naming `what`.
pub(super) fn bytes_or_bytearray(data: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u8>> {
    if let Ok(b) = data.cast::<PyBytes>() {
        Ok(b.as_bytes().to_vec())
    } else if let Ok(b) = data.cast::<PyByteArray>() {
        Ok(b.to_vec())
    } else {
        Err(PyTypeError::new_err(format!(
            "{what} must be bytes or bytearray, not {}",
            type_name(data)
        )))
    }
}

pub(super) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned())
}

/// `obj` as a Python int (`int`, `bool`, or anything with `__index__`, such as
/// NumPy integers), or `None` when it is not integer-like.
fn as_int<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyInt>>> {
    if let Ok(i) = obj.cast::<PyInt>() {
        return Ok(Some(i.clone()));
    }
    let py = obj.py();
    if obj.get_type().hasattr(intern!(py, "__index__"))? {
        let value = obj.call_method0(intern!(py, "__index__"))?;
        return Ok(Some(value.cast_into::<PyInt>()?));
    }
    Ok(None)
}

/// An integer argument as `i64`; `TypeError` for a non-integer, `Ok(None)`
/// for an integer too large for `i64` (the caller reports it as out of range).
pub(super) fn int_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Option<i64>> {
    let Some(int) = as_int(obj)? else {
        return Err(PyTypeError::new_err(format!(
            "{what} must be an int, not {}",
            type_name(obj)
        )));
    };
    match int.extract::<i64>() {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => Ok(None),
        Err(e) => Err(e),
    }
}

/// A frame count `>= min`.
pub(super) fn frames_arg(obj: &Bound<'_, PyAny>, min: i64, max: i64) -> PyResult<i64> {
    match int_arg(obj, "frames")? {
        Some(v) if (min..=max).contains(&v) => Ok(v),
        Some(v) => Err(invalid_argument(
            obj.py(),
            format!("frames must be between {min} and {max}, got {v}"),
        )),
        None => Err(invalid_argument(
            obj.py(),
            format!("frames must be between {min} and {max}, got a huge int"),
        )),
    }
}

pub(super) fn address_arg(obj: &Bound<'_, PyAny>) -> PyResult<u16> {
    let Some(int) = as_int(obj)? else {
        return Err(PyTypeError::new_err(format!(
            "memory indices must be int or slice, not {}",
            type_name(obj)
        )));
    };
    let shown = int.to_string();
    match int
        .extract::<i64>()
        .ok()
        .and_then(|v| u16::try_from(v).ok())
    {
        Some(addr) => Ok(addr),
        None => Err(invalid_address(
            obj.py(),
            format!(
                "address {shown} is outside 0x0000..=0xFFFF (negative addresses are not \
                 supported)"
            ),
        )),
    }
}

pub(super) fn byte_arg(obj: &Bound<'_, PyAny>) -> PyResult<u8> {
    let Some(int) = as_int(obj)? else {
        return Err(PyTypeError::new_err(format!(
            "memory values must be int, not {}",
            type_name(obj)
        )));
    };
    let shown = int.to_string();
    match int.extract::<i64>().ok().and_then(|v| u8::try_from(v).ok()) {
        Some(b) => Ok(b),
        None => Err(invalid_argument(
            obj.py(),
            format!("byte value {shown} is outside 0..=255"),
        )),
    }
}

/// Bytes for a slice assignment: a bytes-like object or an iterable of ints.
pub(super) fn bytes_arg(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(b.to_vec());
    }
    if obj.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "memory slices take bytes or an iterable of ints, not str",
        ));
    }
    let Ok(items) = obj.try_iter() else {
        return Err(PyTypeError::new_err(format!(
            "memory slices take bytes or an iterable of ints, not {}",
            type_name(obj)
        )));
    };
    let mut out = Vec::new();
    for item in items {
        let item = item?;
        if out.len() >= ADDRESS_SPACE {
            return Err(invalid_argument(
                obj.py(),
                "more values than the 64 KiB address space",
            ));
        }
        out.push(byte_arg(&item)?);
    }
    Ok(out)
}

pub(super) fn button_arg(py: Python<'_>, name: &Bound<'_, PyAny>) -> PyResult<Button> {
    let Ok(text) = name.cast::<PyString>() else {
        return Err(PyTypeError::new_err(format!(
            "button name must be a str, not {}",
            type_name(name)
        )));
    };
    let text = text.to_cow()?;
    Button::from_name(&text).ok_or_else(|| {
        invalid_argument(
            py,
            format!(
                "unknown button {text:?}; valid names are: a, b, start, select, up, down, \
                 left, right (case-insensitive)"
            ),
        )
    })
}

/// Indices `start, start+step, ...` (`count` of them) of a slice resolved
/// against the 64 KiB space; every index is in range by construction.
pub(super) fn slice_addresses(slice: &Bound<'_, PySlice>) -> PyResult<impl Iterator<Item = u16>> {
    let idx = slice.indices(ADDRESS_SPACE as isize)?;
    let (start, step, count) = (idx.start as i64, idx.step as i64, idx.slicelength);
    Ok((0..count).map(move |i| {
        // PySlice_GetIndicesEx guarantees 0 <= start + i*step < ADDRESS_SPACE.
        (start + i as i64 * step) as u16
    }))
}
