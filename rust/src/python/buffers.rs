//! Zero-copy, read-only NumPy views of buffers that Rust owns.
//!
//! This is the only module of the bindings with `unsafe` code (`python.rs`
//! denies `unsafe_code`; this module re-allows it and requires a `SAFETY:`
//! comment on every unsafe block).
//!
//! The pattern, generic so that a batched engine can reuse it for its
//! `(N, ...)` buffers: a `#[pyclass]` whose Rust payload owns a buffer at a
//! stable heap address implements [`StableBuffers`] (an `unsafe trait`: the
//! implementation is the promise that the address is stable), and [`view`]
//! turns one of its buffers into a NumPy array that
//!
//! - points straight at the Rust memory (no copy; the same memory on every
//!   access, updated in place by the owner's `&mut self` methods);
//! - is read-only (`WRITEABLE` is off, and NumPy refuses to switch it on
//!   because the array's base, a private [`ViewBase`], exposes no writable
//!   buffer);
//! - keeps the owning Python object alive: its `.base` is a [`ViewBase`]
//!   holding a strong reference to the owner, so the Rust buffer cannot be
//!   freed while the array (or any view of it) exists;
//! - is cached as a weak reference in the owner ([`ViewCache`]): while some
//!   Python code holds the array, every access returns that same object. The
//!   cache is weak because a strong one would be a reference cycle through
//!   an ndarray, which the cyclic GC cannot see into, leaking the owner.
//!
//! The one caveat, which no read-only view of mutable memory can avoid: the
//! owner's `&mut self` methods write the buffer, and `GameBoy.tick` does so
//! with the interpreter lock released. A second Python thread that reads an
//! array while the first one ticks may observe a half-updated frame. That is
//! a data race on plain bytes: formally undefined behaviour in Rust's memory
//! model, in practice a torn picture, never a crash, since the memory stays
//! allocated and NumPy only reads bytes. Within one thread, or whenever
//! ticking and reading are serialized (the usual step-then-observe loop),
//! reads always see complete frames. Free-threaded Python builds have the
//! same caveat for every writing method, not just `tick`.

#![allow(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks)]

use std::ffi::{c_int, c_void};
use std::ptr;
use std::sync::Mutex;

use numpy::npyffi::{self, npy_intp, NpyTypes, PY_ARRAY_API};
use numpy::{Element, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyWeakrefReference;
use pyo3::PyClass;

use super::errors::{internal_error, no_panic};
use super::gameboy::PyGameBoy;
use super::vec::PyVecGameBoy;
use crate::bus::{HRAM_SIZE, RAM_SIZE, WRAM_SIZE};
use crate::screen::{HEIGHT, WIDTH};

/// Element types a view may have: plain numbers, valid for every bit pattern
/// and holding no Python objects (unlike NumPy's object dtype).
///
/// # Safety
/// Implement only for types whose every bit pattern is a valid value and
/// whose NumPy dtype (`Element::get_dtype`) has the same size and layout.
pub(super) unsafe trait Plain: Element + Copy {}

// SAFETY: fixed-size integers: every bit pattern is a value, and NumPy's
// (u)int8 dtypes are one byte.
unsafe impl Plain for u8 {}
// SAFETY: as for u8.
unsafe impl Plain for i8 {}

/// A Rust-owned buffer seen as an array of `shape`: row-major, or with
/// explicit strides (in elements) for views that skip bytes, such as the
/// WRAM of every env inside the envs' contiguous WRAM+HRAM blocks.
///
/// Making one is safe (it only records an address); what may be done with it
/// is governed by the [`StableBuffers`] implementation that returns it.
pub(super) struct Region<T> {
    data: *const T,
    shape: Vec<usize>,
    /// Strides in elements; `None` = row-major (C-contiguous).
    strides: Option<Vec<usize>>,
}

impl<T> Region<T> {
    /// `buffer` viewed with `shape`; `None` when the sizes disagree.
    pub(super) fn new(buffer: &[T], shape: &[usize]) -> Option<Region<T>> {
        let len = shape
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))?;
        (len == buffer.len()).then(|| Region {
            data: buffer.as_ptr(),
            shape: shape.to_vec(),
            strides: None,
        })
    }

    /// A 2-D view of `buffer`: `rows` rows of `row_len` elements, row `r`
    /// starting at element `offset + r * row_stride`. `None` unless every
    /// element lies inside `buffer`.
    pub(super) fn rows(
        buffer: &[T],
        offset: usize,
        rows: usize,
        row_stride: usize,
        row_len: usize,
    ) -> Option<Region<T>> {
        if rows > 0 && row_len > 0 {
            let end = (rows - 1)
                .checked_mul(row_stride)?
                .checked_add(offset)?
                .checked_add(row_len)?;
            if end > buffer.len() {
                return None;
            }
        } else if offset > buffer.len() {
            return None;
        }
        Some(Region {
            // In bounds (checked above), or one past the end for an empty view.
            data: buffer.as_ptr().wrapping_add(offset),
            shape: vec![rows, row_len],
            strides: Some(vec![row_stride, 1]),
        })
    }
}

/// A `#[pyclass]` whose Rust payload owns buffers that NumPy may view.
///
/// # Safety
/// Implementing this promises, for every `key`, that the buffer `region`
/// describes:
/// - lives in a heap allocation owned by the object's Rust payload that is
///   neither freed, reallocated nor moved while the Python object is alive
///   (it may be freed when the object is deallocated, which the views
///   prevent by holding a reference);
/// - is only written inside `&mut self` methods, never while Python code
///   runs in the writing thread; other threads may read concurrently only
///   while such a method has released the interpreter lock (the torn-frame
///   caveat of the module documentation).
pub(super) unsafe trait StableBuffers: PyClass {
    /// Names one buffer; `Into<usize>` gives its slot in the view cache.
    type Key: Copy + Into<usize>;
    type Elem: Plain;

    /// Where the buffer for `key` is and its shape.
    fn region(&self, key: Self::Key) -> PyResult<Region<Self::Elem>>;

    /// The owner's cache of the views it handed out.
    fn view_cache(&self) -> &ViewCache;
}

/// Weak references to the arrays a [`StableBuffers`] owner handed out, one
/// slot per key, so that repeated accesses return the same array object.
#[derive(Default)]
pub(super) struct ViewCache {
    slots: Mutex<Vec<Option<Py<PyWeakrefReference>>>>,
}

impl ViewCache {
    /// The live array cached in `slot`, if any. No Python code runs while
    /// the lock is held (cloning a reference only bumps a count).
    fn get<'py>(&self, py: Python<'py>, slot: usize) -> Option<Bound<'py, PyAny>> {
        let weak = {
            let slots = self.slots.lock().ok()?;
            slots.get(slot)?.as_ref()?.clone_ref(py)
        };
        weak.bind(py).upgrade()
    }

    fn put(&self, slot: usize, array: &Bound<'_, PyAny>) -> PyResult<()> {
        let weak = PyWeakrefReference::new(array)?.unbind();
        let old = {
            let mut slots = self
                .slots
                .lock()
                .map_err(|_| internal_error("view cache lock poisoned"))?;
            if slots.len() <= slot {
                slots.resize_with(slot + 1, || None);
            }
            slots[slot].replace(weak)
        };
        // Dropped after the lock is released: freeing an object may run code.
        drop(old);
        Ok(())
    }
}

/// The `.base` of every view: keeps the owner alive. It exposes no buffer,
/// so NumPy refuses `arr.flags.writeable = True` (it only allows it when the
/// base chain ends in a writable buffer); with the owner itself as base, a
/// Python subclass defining `__buffer__` could defeat that.
#[pyclass(module = "emurust._core", name = "ViewBase", frozen)]
pub(super) struct ViewBase {
    #[allow(dead_code)] // held for its reference count only
    owner: Py<PyAny>,
}

/// The read-only NumPy array over the buffer `key` of `owner` (see the module
/// documentation). Raises `RuntimeError` while `owner` is mutably borrowed
/// (running in another thread), as every other method does.
pub(super) fn view<'py, O: StableBuffers>(
    owner: &Bound<'py, O>,
    key: O::Key,
) -> PyResult<Bound<'py, PyArrayDyn<O::Elem>>> {
    let py = owner.py();
    // Held until the array exists: no `&mut self` method can run meanwhile.
    let this = owner.try_borrow()?;
    let region = this.region(key)?;
    let slot: usize = key.into();
    if let Some(cached) = this.view_cache().get(py, slot) {
        let cached = cached.cast_into::<PyArrayDyn<O::Elem>>()?;
        if cached.data().cast_const() == region.data {
            return Ok(cached);
        }
        // The owner broke its `StableBuffers` promise; say so loudly.
        return Err(internal_error(
            "a buffer viewed by NumPy moved (its earlier arrays are stale)",
        ));
    }
    // Fail with ImportError (rather than a panic inside rust-numpy) if NumPy
    // cannot be imported.
    py.import("numpy")?;
    let base = Bound::new(
        py,
        ViewBase {
            owner: owner.clone().into_any().unbind(),
        },
    )?;
    // SAFETY: `O: StableBuffers` promises that `region` stays allocated and
    // in place while `owner` is alive; `base` holds a strong reference to
    // `owner` and becomes the array's base, so the array cannot outlive it.
    // Writes happen only in `&mut self` methods (see `StableBuffers`).
    let array = no_panic(|| unsafe { readonly_array(base.into_any(), &region) })
        .map_err(|msg| internal_error(&msg))??;
    this.view_cache().put(slot, array.as_any())?;
    Ok(array)
}

/// A NumPy array over `region` (C-contiguous, or with the region's strides)
/// that does not own its data, is not writeable, and has `base` as its base
/// object.
///
/// # Safety
/// `region` must describe initialized memory that stays allocated, in place
/// and unwritten-while-Python-runs (see [`StableBuffers`]) for as long as
/// `base` is alive.
unsafe fn readonly_array<'py, T: Plain>(
    base: Bound<'py, PyAny>,
    region: &Region<T>,
) -> PyResult<Bound<'py, PyArrayDyn<T>>> {
    let py = base.py();
    let mut dims = region
        .shape
        .iter()
        .map(|&d| npy_intp::try_from(d))
        .collect::<Result<Vec<npy_intp>, _>>()
        .map_err(|_| internal_error("view dimension too large"))?;
    let ndim = c_int::try_from(dims.len()).map_err(|_| internal_error("too many dimensions"))?;
    // Strides in bytes, as NumPy wants them.
    let mut strides = match &region.strides {
        None => None,
        Some(s) => Some(
            s.iter()
                .map(|&e| {
                    e.checked_mul(std::mem::size_of::<T>())
                        .and_then(|b| npy_intp::try_from(b).ok())
                })
                .collect::<Option<Vec<npy_intp>>>()
                .ok_or_else(|| internal_error("view stride too large"))?,
        ),
    };
    if strides.as_ref().is_some_and(|s| s.len() != dims.len()) {
        return Err(internal_error("view strides do not match its shape"));
    }
    let strides_ptr = strides.as_mut().map_or(ptr::null_mut(), |s| s.as_mut_ptr());
    // `PyArray_NewFromDescr` steals this reference (on failure too).
    let descr = T::get_dtype(py).into_dtype_ptr();
    // SAFETY: NumPy's C API is initialized (rust-numpy imports it on first
    // use; `view` imported numpy before). The arguments: the ndarray type, an
    // owned dtype reference (stolen), `ndim` dimensions in `dims`, the
    // strides (NULL = C order, matching a row-major `Region`; otherwise
    // `ndim` byte strides that `Region::rows` checked keep every element in
    // the buffer), the data pointer (valid per this function's contract;
    // NumPy never frees it as OWNDATA is not set), flags 0 (so not WRITEABLE)
    // and no `__array_finalize__` object. NumPy only reads `dims` and
    // `strides` during the call.
    let raw = unsafe {
        PY_ARRAY_API.PyArray_NewFromDescr(
            py,
            npyffi::get_type_object(py, NpyTypes::PyArray_Type),
            descr,
            ndim,
            dims.as_mut_ptr(),
            strides_ptr,
            region.data.cast_mut().cast::<c_void>(),
            0,
            ptr::null_mut(),
        )
    };
    // SAFETY: `raw` is a new (owned) reference or NULL with an exception set.
    let array = unsafe { Bound::from_owned_ptr_or_err(py, raw) }?;
    // SAFETY: `raw` is the live ndarray just created (kept alive by `array`)
    // and has no base yet; `PyArray_SetBaseObject` steals the reference that
    // `into_ptr` hands over, on failure too.
    let status = unsafe {
        PY_ARRAY_API.PyArray_SetBaseObject(py, raw.cast::<npyffi::PyArrayObject>(), base.into_ptr())
    };
    if status < 0 {
        return Err(PyErr::fetch(py));
    }
    Ok(array.cast_into::<PyArrayDyn<T>>()?)
}

// ---------------------------------------------------------------------------
// GameBoy screen buffers
// ---------------------------------------------------------------------------

/// The screen buffers of a GameBoy (`emurust::screen::Screen`).
#[derive(Clone, Copy, Debug)]
pub(super) enum ScreenBuffer {
    /// (144, 160, 3) RGB through the palette.
    Rgb,
    /// (144, 160) shades 0..=3 (0 = lightest).
    Shades,
    /// (144, 160) grey levels (luma of the palette colours).
    Gray,
}

impl From<ScreenBuffer> for usize {
    fn from(b: ScreenBuffer) -> usize {
        b as usize
    }
}

// SAFETY: the screen buffers are `Box<[u8; N]>` fields of the `Screen` in
// the `GameBoy` that `PyGameBoy` owns (inside its `Mutex<Core>`):
// - a `Box`'s contents keep their address when the `GameBoy` moves, and the
//   bindings never replace or drop the `GameBoy` before the `PyGameBoy` is
//   deallocated (`load_state` loads in place; a panic only marks the core
//   broken). `Screen` writes its boxes in place (`update` copies into them,
//   `set_palette` converts into them) and never reassigns them. `view`
//   re-checks the address on every access and raises `InternalError` if
//   this ever stops being true;
// - the buffers change only inside `GameBoy::run_frame(true)` (via
//   `tick`) and `GameBoy::set_palette` (the `palette` setter), both reached
//   through `&mut PyGameBoy`: with the interpreter lock held, except `tick`,
//   which releases it (the torn-frame caveat).
unsafe impl StableBuffers for PyGameBoy {
    type Key = ScreenBuffer;
    type Elem = u8;

    fn region(&self, key: ScreenBuffer) -> PyResult<Region<u8>> {
        self.read(|gb| {
            let screen = gb.screen();
            match key {
                ScreenBuffer::Rgb => Region::new(screen.rgb(), &[HEIGHT, WIDTH, 3]),
                ScreenBuffer::Shades => Region::new(screen.shades(), &[HEIGHT, WIDTH]),
                ScreenBuffer::Gray => Region::new(screen.gray(), &[HEIGHT, WIDTH]),
            }
        })?
        .ok_or_else(|| internal_error("screen buffer size does not match its shape"))
    }

    fn view_cache(&self) -> &ViewCache {
        &self.views
    }
}

// ---------------------------------------------------------------------------
// VecGameBoy buffers
// ---------------------------------------------------------------------------

/// The buffers of a VecGameBoy (`emurust::vec::VecEngine`).
#[derive(Clone, Copy, Debug)]
pub(super) enum VecBuffer {
    /// (num_envs, [frame_stack,] ...frame) observations.
    Obs,
    /// (num_envs, len(ram_addresses)) gathered RAM bytes.
    Ram,
    /// (num_envs, 8192) WRAM, a strided view of the envs' RAM blocks.
    Wram,
    /// (num_envs, 127) HRAM, likewise.
    Hram,
}

impl From<VecBuffer> for usize {
    fn from(b: VecBuffer) -> usize {
        b as usize
    }
}

// SAFETY: the buffers are the `Vec`s of the `VecEngine` that `PyVecGameBoy`
// owns (inside its `Mutex`): `obs`, `ram_obs` and `rams` (WRAM then HRAM of
// each env, `RAM_SIZE` bytes apart).
// - `VecEngine` sizes them once in `VecEngine::new` and never pushes to,
//   resizes or replaces them: every method writes their elements in place
//   (`step`, `reset`, `reset_envs`, `restore`, `load_state`). The bindings
//   never replace or drop the engine before the `PyVecGameBoy` is
//   deallocated (a panic only marks it broken). `view` re-checks the address
//   on every access and raises `InternalError` if this ever stops being true;
// - `Region::rows` checks that the strided WRAM/HRAM views stay inside
//   `rams`;
// - the buffers change only inside those methods, reached through
//   `&mut PyVecGameBoy`: `step` and `reset` release the interpreter lock
//   (the torn-frame caveat), the others keep it.
unsafe impl StableBuffers for PyVecGameBoy {
    type Key = VecBuffer;
    type Elem = u8;

    fn region(&self, key: VecBuffer) -> PyResult<Region<u8>> {
        self.read(|e| {
            let n = e.num_envs();
            let rams = e.rams().as_flattened();
            match key {
                VecBuffer::Obs => {
                    let mut shape = vec![n];
                    shape.extend(e.observation_shape());
                    Region::new(e.obs(), &shape)
                }
                VecBuffer::Ram => Region::new(e.ram(), &[n, e.ram_addresses().len()]),
                VecBuffer::Wram => Region::rows(rams, 0, n, RAM_SIZE, WRAM_SIZE),
                VecBuffer::Hram => Region::rows(rams, WRAM_SIZE, n, RAM_SIZE, HRAM_SIZE),
            }
        })?
        .ok_or_else(|| internal_error("engine buffer size does not match its shape"))
    }

    fn view_cache(&self) -> &ViewCache {
        &self.views
    }
}
