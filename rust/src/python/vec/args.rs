//! `VecGameBoy`'s arguments: Python objects checked and turned into the
//! engine's strict types (bitmasks, byte vectors, observation modes, output
//! arrays), each refusal a typed exception that says what was wrong.

use numpy::{
    BorrowError, Element, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyReadwriteArrayDyn,
    PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString, PyTuple};

use crate::joypad::Button;
use crate::python::args::{int_arg, type_name};
use crate::python::errors::{invalid_argument, InvalidRomError};
use crate::vec::ObsMode;

/// Button names in the order `emurust.BUTTONS` lists them (the order used
/// when an action table is shown).
pub(super) const BUTTON_ORDER: [Button; 8] = [
    Button::A,
    Button::B,
    Button::Start,
    Button::Select,
    Button::Up,
    Button::Down,
    Button::Left,
    Button::Right,
];

/// An argument whose absence differs from an explicit `None`
/// (`action_table=None` means "actions are bitmasks").
pub(super) enum Arg<'py> {
    Missing,
    Given(Bound<'py, PyAny>),
}

impl<'a, 'py> FromPyObject<'a, 'py> for Arg<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        Ok(Arg::Given(obj.to_owned()))
    }
}

/// An optional argument, `None` counting as absent.
pub(super) fn given<'py>(obj: Option<&Bound<'py, PyAny>>) -> Option<Bound<'py, PyAny>> {
    obj.filter(|o| !o.is_none()).cloned()
}

/// `(a, b, c)` as Python writes a shape.
pub(super) fn shape_text(shape: &[usize]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

pub(super) fn dtype_text(array: &Bound<'_, PyUntypedArray>) -> String {
    array
        .dtype()
        .str()
        .map(|s| s.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// A caller-owned output array: a writeable, C-contiguous uint8 NumPy array
/// of exactly `shape`, borrowed read-write (rust-numpy's borrow tracking
/// refuses an array aliasing another borrowed one).
pub(super) fn out_array<'py>(
    obj: &Bound<'py, PyAny>,
    what: &str,
    shape: &[usize],
) -> PyResult<PyReadwriteArrayDyn<'py, u8>> {
    let want = || format!("a C-contiguous uint8 array of shape {}", shape_text(shape));
    let Ok(array) = obj.cast::<PyUntypedArray>() else {
        return Err(PyTypeError::new_err(format!(
            "{what} must be a NumPy array ({}), not {}",
            want(),
            type_name(obj)
        )));
    };
    if !array.dtype().is_equiv_to(&u8::get_dtype(obj.py())) {
        return Err(PyTypeError::new_err(format!(
            "{what} must be {}, got dtype {}",
            want(),
            dtype_text(array)
        )));
    }
    if array.shape() != shape {
        return Err(PyValueError::new_err(format!(
            "{what} must be {}, got shape {}",
            want(),
            shape_text(array.shape())
        )));
    }
    if !array.is_c_contiguous() {
        return Err(PyValueError::new_err(format!(
            "{what} must be {}, got a non-contiguous array (use np.ascontiguousarray)",
            want()
        )));
    }
    array
        .cast::<PyArrayDyn<u8>>()?
        .try_readwrite()
        .map_err(|e| match e {
            BorrowError::NotWriteable => {
                PyValueError::new_err(format!("{what} must be {}, got a read-only array", want()))
            }
            _ => PyValueError::new_err(format!(
                "{what} cannot be written: {e} (is the same memory passed twice?)"
            )),
        })
}

/// `obj` as a 1-D NumPy array of `n` entries (lists and tuples are converted
/// with `numpy.asarray`); `TypeError`/`ValueError` naming `expected` else.
pub(super) fn vector_arg<'py>(
    obj: &Bound<'py, PyAny>,
    what: &str,
    n: usize,
    expected: &str,
) -> PyResult<Bound<'py, PyUntypedArray>> {
    let py = obj.py();
    if obj.is_none() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be {expected} of shape ({n},), not None"
        )));
    }
    let array = match obj.cast::<PyUntypedArray>() {
        Ok(a) => a.clone(),
        Err(_) => {
            let converted = py
                .import("numpy")?
                .call_method1("asarray", (obj,))
                .map_err(|_| {
                    PyTypeError::new_err(format!(
                        "{what} must be {expected} of shape ({n},), not {}",
                        type_name(obj)
                    ))
                })?;
            converted.cast_into::<PyUntypedArray>()?
        }
    };
    if array.shape() != [n] {
        return Err(PyValueError::new_err(format!(
            "{what} must be {expected} of shape ({n},) (one per env), got shape {}",
            shape_text(array.shape())
        )));
    }
    Ok(array)
}

/// Copy `actions` (an integer array of shape (n,)) into `out`, checking
/// every value is a byte.
pub(super) fn actions_arg(obj: &Bound<'_, PyAny>, n: usize, out: &mut Vec<u8>) -> PyResult<()> {
    const EXPECTED: &str = "an integer array (uint8)";
    let py = obj.py();
    let array = vector_arg(obj, "actions", n, EXPECTED)?;
    let dtype = array.dtype();
    out.clear();
    if dtype.is_equiv_to(&u8::get_dtype(py)) {
        let array = array.cast::<PyArrayDyn<u8>>()?.try_readonly()?;
        out.extend(array.as_array().iter().copied());
        return Ok(());
    }
    if !matches!(dtype.kind(), b'i' | b'u') {
        return Err(PyTypeError::new_err(format!(
            "actions must be {EXPECTED} of shape ({n},), got dtype {}",
            dtype_text(&array)
        )));
    }
    let wide = array.call_method1("astype", ("int64",))?;
    let wide = wide.cast::<PyArrayDyn<i64>>()?.try_readonly()?;
    for (i, &v) in wide.as_array().iter().enumerate() {
        let byte = u8::try_from(v).map_err(|_| {
            invalid_argument(
                py,
                format!("action {v} of env {i} is outside 0..=255 (actions are bytes)"),
            )
        })?;
        out.push(byte);
    }
    Ok(())
}

/// A bool array of shape (n,).
pub(super) fn mask_arg(obj: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<bool>> {
    const EXPECTED: &str = "a bool array";
    let array = vector_arg(obj, "mask", n, EXPECTED)?;
    if !array.dtype().is_equiv_to(&bool::get_dtype(obj.py())) {
        return Err(PyTypeError::new_err(format!(
            "mask must be {EXPECTED} of shape ({n},), got dtype {}",
            dtype_text(&array)
        )));
    }
    let array = array.cast::<PyArrayDyn<bool>>()?.try_readonly()?;
    Ok(array.as_array().iter().copied().collect())
}

/// `set_memory`'s values: a uint8 array of shape (n,) or (n, k), row-major.
pub(super) fn values_arg(obj: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<u8>> {
    let want = || format!("a uint8 array of shape ({n},) or ({n}, k)");
    let Ok(array) = obj.cast::<PyUntypedArray>() else {
        return Err(PyTypeError::new_err(format!(
            "values must be {} (a NumPy array), not {}",
            want(),
            type_name(obj)
        )));
    };
    if !array.dtype().is_equiv_to(&u8::get_dtype(obj.py())) {
        return Err(PyTypeError::new_err(format!(
            "values must be {}, got dtype {}",
            want(),
            dtype_text(array)
        )));
    }
    let shape = array.shape();
    if shape.is_empty() || shape.len() > 2 || shape[0] != n || shape.get(1) == Some(&0) {
        return Err(PyValueError::new_err(format!(
            "values must be {}, got shape {}",
            want(),
            shape_text(shape)
        )));
    }
    let array = array.cast::<PyArrayDyn<u8>>()?.try_readonly()?;
    Ok(array.as_array().iter().copied().collect())
}

/// An int argument within `range` (inclusive); `TypeError` for a non-int,
/// `InvalidArgumentError` naming `what` and the range otherwise.
pub(super) fn ranged_int(obj: &Bound<'_, PyAny>, what: &str, min: i64, max: i64) -> PyResult<i64> {
    match int_arg(obj, what)? {
        Some(v) if (min..=max).contains(&v) => Ok(v),
        v => Err(invalid_argument(
            obj.py(),
            format!(
                "{what} must be between {min} and {max}, got {}",
                v.map_or_else(|| "a huge int".to_owned(), |v| v.to_string())
            ),
        )),
    }
}

/// The bytes of a ROM or boot ROM: `bytes` of at most `limit` bytes
/// (`emurust.VecGameBoy` reads paths and bytes-like data in Python, with
/// `emurust._gameboy.read_image`, and passes the bytes).
pub(super) fn image_arg(obj: &Bound<'_, PyAny>, what: &str, limit: usize) -> PyResult<Vec<u8>> {
    let data = obj
        .cast::<PyBytes>()
        .map_err(|_| PyTypeError::new_err(format!("{what} must be bytes, not {}", type_name(obj))))?
        .as_bytes();
    if data.len() > limit {
        return Err(InvalidRomError::new_err(format!(
            "{what} is {} bytes; at most {limit} are accepted",
            data.len()
        )));
    }
    Ok(data.to_vec())
}

/// `{mode: frame shape}` for every `VecGameBoy(obs=mode)`, from [`ObsMode`]:
/// the one definition of the observation modes and their shapes, which the
/// Python package reads (`_core.OBS_SHAPES`; `emurust.games.OBS_SHAPES`).
pub(in crate::python) fn obs_shapes(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let shapes = PyDict::new(py);
    for mode in ObsMode::ALL {
        shapes.set_item(mode.name(), PyTuple::new(py, mode.frame_shape())?)?;
    }
    Ok(shapes)
}

pub(super) fn obs_mode_arg(obj: &Bound<'_, PyAny>) -> PyResult<ObsMode> {
    let names = || {
        ObsMode::ALL
            .iter()
            .map(|m| format!("{:?}", m.name()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let Ok(text) = obj.cast::<PyString>() else {
        return Err(PyTypeError::new_err(format!(
            "obs must be a str ({}), not {}",
            names(),
            type_name(obj)
        )));
    };
    let text = text.to_cow()?;
    ObsMode::from_name(&text).ok_or_else(|| {
        invalid_argument(
            obj.py(),
            format!("unknown obs mode {text:?}; valid modes are {}", names()),
        )
    })
}

/// The action table as `emurust.VecGameBoy` passes it, after converting the
/// friendly forms in Python: each action a sequence of button names (pressed
/// together; empty = no-op). The bitmasks, in the core's button order.
pub(super) fn action_masks(py: Python<'_>, table: &[Vec<String>]) -> PyResult<Vec<u8>> {
    table
        .iter()
        .map(|names| {
            names.iter().try_fold(0u8, |mask, name| {
                let button = Button::from_name(name).ok_or_else(|| {
                    invalid_argument(py, format!("unknown button {name:?} in action_table"))
                })?;
                Ok(mask | 1 << button.index())
            })
        })
        .collect()
}
