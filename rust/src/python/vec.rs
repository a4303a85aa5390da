//! `VecGameBoy` and `Snapshot`: the batched engine (`crate::vec`) for Python.
//!
//! Arguments are checked and converted with the interpreter lock held, then
//! the envs run with it released. Observations and RAM come back as
//! read-only NumPy views of the engine's own buffers (`buffers`), or are
//! copied into arrays the caller owns (`obs=`, `ram=`), borrowed read-write
//! for the duration of the call.

use std::sync::{Arc, Mutex, MutexGuard};

use numpy::{PyArrayDyn, PyArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use super::args::{bytes_or_bytearray, int_arg, type_name};
use super::buffers::{self, VecBuffer, ViewCache};
use super::errors::{
    core_error, internal_error, invalid_address, invalid_argument, no_panic, EmuRustWarning,
};
use super::MAX_ROM_SIZE;
use crate::bus::CGB_BOOT_ROM_SIZE;
use crate::cgb::Model;
use crate::gameboy::Snapshot;
use crate::vec::{
    ObsMode, StepEnd, VecConfig, VecEngine, MAX_FRAME_SKIP, MAX_FRAME_STACK, MAX_THREADS,
};

mod args;
mod watch;

pub(super) use args::obs_shapes;
use args::{
    action_masks, actions_arg, given, image_arg, mask_arg, obs_mode_arg, out_array, ranged_int,
    values_arg, Arg, BUTTON_ORDER,
};
use watch::{interrupted, on_main_thread, SIGNAL_CHECK_INTERVAL, WATCH_AFTER_NS};

struct State {
    engine: VecEngine,
    /// Set when a call panicked: the message, and the engine is unusable.
    broken: Option<String>,
    /// The step's actions, copied out of the caller's array (reused).
    actions: Vec<u8>,
    /// Wall time per env-frame of the last step, per thread (ns; 0 before
    /// the first): predicts whether a step is long enough to watch.
    ns_per_env_frame: f64,
}

impl State {
    fn usable(&self) -> PyResult<()> {
        match &self.broken {
            Some(msg) => Err(internal_error(msg)),
            None => Ok(()),
        }
    }
}

/// Marks the engine broken if `result` is a caught panic.
fn check_panic<R>(broken: &mut Option<String>, result: Result<R, String>) -> PyResult<R> {
    result.map_err(|msg| {
        let err = internal_error(&msg);
        *broken = Some(msg);
        err
    })
}

/// N Game Boys of one ROM, stepped in parallel by Rust threads (see the
/// `VecGameBoy` section of docs/api.md and `emurust.VecGameBoy`'s stub).
#[pyclass(module = "emurust._core", name = "VecGameBoy", subclass, weakref)]
pub struct PyVecGameBoy {
    // A `Mutex` makes the class `Sync`; `&mut self` methods use `get_mut`.
    // NumPy views point into the engine's buffers: it is never replaced or
    // dropped while `self` lives (see `buffers`).
    state: Mutex<State>,
    /// The arrays handed out (weakly held).
    pub(super) views: ViewCache,
}

impl PyVecGameBoy {
    fn lock(&self) -> PyResult<MutexGuard<'_, State>> {
        self.state
            .lock()
            .map_err(|_| internal_error("engine lock poisoned"))
    }

    fn state_mut(&mut self) -> PyResult<&mut State> {
        let state = self
            .state
            .get_mut()
            .map_err(|_| internal_error("engine lock poisoned"))?;
        state.usable()?;
        Ok(state)
    }

    /// Read-only access to the engine.
    pub(super) fn read<R>(&self, f: impl FnOnce(&VecEngine) -> R) -> PyResult<R> {
        let mut guard = self.lock()?;
        guard.usable()?;
        let state = &mut *guard;
        let result = no_panic(|| f(&state.engine));
        check_panic(&mut state.broken, result)
    }

    /// Mutable access to the engine (interpreter lock held); core errors
    /// become exceptions.
    fn write<R>(
        &mut self,
        py: Python<'_>,
        f: impl FnOnce(&mut VecEngine) -> crate::Result<R>,
    ) -> PyResult<R> {
        let state = self.state_mut()?;
        let engine = &mut state.engine;
        let result = no_panic(|| f(engine));
        check_panic(&mut state.broken, result)?.map_err(|e| core_error(py, e))
    }

    fn env_index(&self, obj: &Bound<'_, PyAny>) -> PyResult<usize> {
        let n = self.read(|e| e.num_envs())?;
        match int_arg(obj, "env index")? {
            Some(i) if i >= 0 && (i as u64) < n as u64 => Ok(i as usize),
            i => Err(invalid_argument(
                obj.py(),
                format!(
                    "env index {} is out of range: this engine has {n} envs (0..={})",
                    i.map_or_else(|| "(a huge int)".to_owned(), |i| i.to_string()),
                    n - 1
                ),
            )),
        }
    }

    /// Shape of the whole observation array.
    fn obs_shape(&self) -> PyResult<Vec<usize>> {
        self.read(|e| {
            let mut shape = vec![e.num_envs()];
            shape.extend(e.observation_shape());
            shape
        })
    }
}

#[pymethods]
impl PyVecGameBoy {
    /// Creates `num_envs` Game Boys running `rom` (a path or the image as
    /// bytes-like data), all in the initial state: power-on (or `boot_rom`),
    /// or `initial_state` (bytes from `save_state`, or a `Snapshot` from
    /// `snapshot` or `GameBoy.snapshot`, whose last frame is kept).
    /// `ram_addresses` is a sequence of ints 0..=0xFFFF and `action_table`
    /// (default: the default table) None or a sequence of sequences of
    /// button names: `emurust.VecGameBoy` converts their friendly forms.
    #[new]
    #[pyo3(signature = (
        rom, num_envs, *, frame_skip = None, hold_frames = None, num_threads = None,
        obs = None, ram_addresses = None, initial_state = None, action_table = Arg::Missing,
        frame_stack = None, boot_rom = None, model = "dmg"
    ), text_signature = "(rom, num_envs, *, frame_skip=24, hold_frames=8, num_threads=None, \
        obs='gray', ram_addresses=None, initial_state=None, action_table=..., \
        frame_stack=1, boot_rom=None, model='dmg')")]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        rom: &Bound<'_, PyAny>,
        num_envs: &Bound<'_, PyAny>,
        frame_skip: Option<&Bound<'_, PyAny>>,
        hold_frames: Option<&Bound<'_, PyAny>>,
        num_threads: Option<&Bound<'_, PyAny>>,
        obs: Option<&Bound<'_, PyAny>>,
        ram_addresses: Option<Vec<u16>>,
        initial_state: Option<&Bound<'_, PyAny>>,
        action_table: Arg<'_>,
        frame_stack: Option<&Bound<'_, PyAny>>,
        boot_rom: Option<&Bound<'_, PyAny>>,
        model: &str,
    ) -> PyResult<Self> {
        let num_envs = ranged_int(num_envs, "num_envs", 1, crate::vec::MAX_ENVS as i64)? as usize;
        let frame_skip = match given(frame_skip) {
            None => 24,
            Some(f) => ranged_int(&f, "frame_skip", 1, i64::from(MAX_FRAME_SKIP))? as u32,
        };
        let hold_frames = match given(hold_frames) {
            None => 8.min(frame_skip),
            Some(h) => ranged_int(&h, "hold_frames", 0, i64::from(frame_skip)).map_err(|e| {
                if e.is_instance_of::<PyTypeError>(py) {
                    e
                } else {
                    invalid_argument(
                        py,
                        format!(
                            "hold_frames must be between 0 and frame_skip ({frame_skip}), got {h}"
                        ),
                    )
                }
            })? as u32,
        };
        let num_threads = match given(num_threads) {
            None => 0,
            Some(t) => ranged_int(&t, "num_threads", 1, MAX_THREADS as i64)? as usize,
        };
        let obs = match given(obs) {
            None => ObsMode::Gray,
            Some(o) => obs_mode_arg(&o)?,
        };
        let frame_stack = match given(frame_stack) {
            None => 1,
            Some(k) => ranged_int(&k, "frame_stack", 1, MAX_FRAME_STACK as i64)? as usize,
        };
        let ram_addresses = ram_addresses.unwrap_or_default();
        let action_table = match action_table {
            Arg::Missing => Some(crate::vec::default_action_table()),
            Arg::Given(t) if t.is_none() => None,
            Arg::Given(t) => Some(action_masks(py, &t.extract::<Vec<Vec<String>>>()?)?),
        };
        // A `Snapshot` keeps its last drawn frame and state bytes their
        // picture: the first observation shows it.
        let (initial_state, initial_snapshot) = match given(initial_state) {
            None => (None, None),
            Some(s) => match s.cast::<PySnapshot>() {
                Ok(snap) => (None, Some(snap.get().snap.clone())),
                Err(_) => (Some(bytes_or_bytearray(&s, "initial_state")?), None),
            },
        };
        let boot_rom = match given(boot_rom) {
            None => None,
            Some(b) => Some(image_arg(&b, "boot_rom", CGB_BOOT_ROM_SIZE)?),
        };
        let rom: Arc<[u8]> = Arc::from(image_arg(rom, "rom", MAX_ROM_SIZE)?);
        let model = Model::from_name(model, &rom).map_err(|e| core_error(py, e))?;
        let config = VecConfig {
            frame_skip,
            hold_frames,
            num_threads,
            obs,
            frame_stack,
            ram_addresses,
            action_table,
            initial_state,
            initial_snapshot,
            boot_rom,
            model,
        };
        let built = py
            .detach(|| no_panic(|| VecEngine::new(rom, num_envs, config)))
            .map_err(|msg| internal_error(&msg))?;
        let engine = built.map_err(|e| core_error(py, e))?;
        // As `emurust.GameBoy` does (from Python): each problem that did not
        // stop loading becomes an `EmuRustWarning` at the caller's line.
        for message in engine.warnings() {
            let text = std::ffi::CString::new(message.replace('\0', " "))
                .expect("NUL bytes were replaced");
            PyErr::warn(py, &py.get_type::<EmuRustWarning>(), &text, 1)?;
        }
        Ok(PyVecGameBoy {
            state: Mutex::new(State {
                engine,
                broken: None,
                actions: Vec::new(),
                ns_per_env_frame: 0.0,
            }),
            views: ViewCache::default(),
        })
    }

    /// Puts every env back in the initial state and returns the
    /// observations (the engine's read-only `obs` view, or `obs` filled in).
    /// `seed` is accepted for Gymnasium compatibility; emulation is
    /// deterministic, so it changes nothing.
    #[pyo3(signature = (seed = None, *, obs = None))]
    fn reset<'py>(
        slf: &Bound<'py, Self>,
        seed: Option<&Bound<'py, PyAny>>,
        obs: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        if let Some(seed) = seed.filter(|s| !s.is_none()) {
            int_arg(seed, "seed")?;
        }
        let shape = slf.try_borrow()?.obs_shape()?;
        let mut out = match obs.filter(|o| !o.is_none()) {
            None => None,
            Some(o) => Some(out_array(o, "obs", &shape)?),
        };
        {
            let mut this = slf.try_borrow_mut()?;
            let state = this.state_mut()?;
            let engine = &mut state.engine;
            let out_slice = match out.as_mut() {
                None => None,
                Some(a) => Some(a.as_slice_mut()?),
            };
            let result = py.detach(|| {
                no_panic(|| {
                    engine.reset();
                    if let Some(o) = out_slice {
                        o.copy_from_slice(engine.obs());
                    }
                })
            });
            check_panic(&mut state.broken, result)?;
        }
        match obs.filter(|o| !o.is_none()) {
            Some(o) => Ok(o.clone()),
            None => Ok(buffers::view(slf, VecBuffer::Obs)?.into_any()),
        }
    }

    /// Steps every env once: its action's buttons are held `hold_frames`
    /// frames, then released for the rest of `frame_skip` frames; only the
    /// last frame is drawn. Returns the observations (the engine's read-only
    /// `obs` view, or `obs` filled in); `ram=` receives the gathered RAM
    /// bytes. Runs with the interpreter lock released.
    ///
    /// `mask` (a bool array of shape (num_envs,)) steps only the envs whose
    /// entry is True: the others are not run, keep their observation and RAM
    /// rows, and their actions are ignored.
    #[pyo3(signature = (actions, *, obs = None, ram = None, mask = None))]
    fn step<'py>(
        slf: &Bound<'py, Self>,
        actions: &Bound<'py, PyAny>,
        obs: Option<&Bound<'py, PyAny>>,
        ram: Option<&Bound<'py, PyAny>>,
        mask: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let obs = obs.filter(|o| !o.is_none());
        let ram = ram.filter(|o| !o.is_none());
        let (obs_shape, ram_shape, n) = {
            let this = slf.try_borrow()?;
            let shape = this.obs_shape()?;
            let ram_shape = this.read(|e| vec![e.num_envs(), e.ram_addresses().len()])?;
            let n = shape[0];
            (shape, ram_shape, n)
        };
        // Actions and the mask are copied before the output arrays are
        // borrowed for writing: they may be views of the same memory.
        let active = match given(mask) {
            None => None,
            Some(m) => Some(mask_arg(&m, n)?),
        };
        {
            let mut this = slf.try_borrow_mut()?;
            let state = this.state_mut()?;
            actions_arg(actions, n, &mut state.actions)?;
        }
        let mut obs_out = match obs {
            None => None,
            Some(o) => Some(out_array(o, "obs", &obs_shape)?),
        };
        let mut ram_out = match ram {
            None => None,
            Some(r) => Some(out_array(r, "ram", &ram_shape)?),
        };
        {
            let mut this = slf.try_borrow_mut()?;
            let state = this.state_mut()?;
            let obs_slice = match obs_out.as_mut() {
                None => None,
                Some(a) => Some(a.as_slice_mut()?),
            };
            let ram_slice = match ram_out.as_mut() {
                None => None,
                Some(a) => Some(a.as_slice_mut()?),
            };
            let engine = &mut state.engine;
            let acts = &state.actions;
            let active = active.as_deref();
            // Ctrl-C reaches the main thread only: there a step that may
            // take longer than WATCH_AFTER (by the last step's speed) is
            // watched, signals checked every SIGNAL_CHECK_INTERVAL. Short
            // steps, the usual RL ones, and steps in other threads run
            // unwatched, at no cost.
            let env_frames = active.map_or(n, |a| a.iter().filter(|&&x| x).count()) as f64
                * f64::from(engine.frame_skip())
                / engine.num_threads() as f64;
            let predicted = state.ns_per_env_frame * env_frames;
            let long = state.ns_per_env_frame == 0.0 || predicted >= WATCH_AFTER_NS;
            let started = std::time::Instant::now();
            let result = if long && on_main_thread(py)? {
                let mut raised: Option<PyErr> = None;
                let mut watch = || match Python::attach(|py| py.check_signals()) {
                    Ok(()) => false,
                    Err(e) => {
                        raised = Some(e);
                        true
                    }
                };
                let result = py.detach(|| {
                    no_panic(|| {
                        engine.step_watched(
                            acts,
                            active,
                            obs_slice,
                            ram_slice,
                            &mut watch,
                            SIGNAL_CHECK_INTERVAL,
                        )
                    })
                });
                let end = check_panic(&mut state.broken, result)?.map_err(|e| core_error(py, e))?;
                if let (StepEnd::Stopped(progress), Some(err)) = (end, raised) {
                    return Err(interrupted(py, err, progress));
                }
                Ok(())
            } else {
                let result = py
                    .detach(|| no_panic(|| engine.step_masked(acts, active, obs_slice, ram_slice)));
                check_panic(&mut state.broken, result)?.map_err(|e| core_error(py, e))
            };
            result?;
            if env_frames > 0.0 {
                state.ns_per_env_frame = started.elapsed().as_nanos() as f64 / env_frames;
            }
        }
        match obs {
            Some(o) => Ok(o.clone()),
            None => Ok(buffers::view(slf, VecBuffer::Obs)?.into_any()),
        }
    }

    /// The observations of the last step or reset: a read-only NumPy view of
    /// the engine's buffer, shape (num_envs, *observation_shape), updated in
    /// place.
    #[getter]
    fn obs<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyArrayDyn<u8>>> {
        buffers::view(slf, VecBuffer::Obs)
    }

    /// The bytes at `ram_addresses` of every env, gathered after each step:
    /// a read-only (num_envs, len(ram_addresses)) uint8 view.
    #[getter]
    fn ram<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyArrayDyn<u8>>> {
        buffers::view(slf, VecBuffer::Ram)
    }

    /// Every env's WRAM (0xC000..0xE000): a read-only (num_envs, 8192) uint8
    /// view straight into the emulators' memory (strided, no copy). On a
    /// CGB it holds banks 0 and 1, whatever bank SVBK maps at 0xD000.
    #[getter]
    fn wram<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyArrayDyn<u8>>> {
        buffers::view(slf, VecBuffer::Wram)
    }

    /// Every env's HRAM (0xFF80..0xFFFF): a read-only (num_envs, 127) uint8
    /// view like `wram`.
    #[getter]
    fn hram<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyArrayDyn<u8>>> {
        buffers::view(slf, VecBuffer::Hram)
    }

    /// Problems found loading the ROM that did not stop it (a bad header
    /// checksum, a padded short ROM...), also emitted as `EmuRustWarning`s
    /// when the engine was created.
    #[getter]
    fn warnings(&self) -> PyResult<Vec<String>> {
        self.read(|e| e.warnings().to_vec())
    }

    #[getter]
    fn num_envs(&self) -> PyResult<usize> {
        self.read(|e| e.num_envs())
    }

    fn __len__(&self) -> PyResult<usize> {
        self.read(|e| e.num_envs())
    }

    /// Worker threads stepping the envs (1 = in the calling thread).
    #[getter]
    fn num_threads(&self) -> PyResult<usize> {
        self.read(|e| e.num_threads())
    }

    #[getter]
    fn frame_skip(&self) -> PyResult<u32> {
        self.read(|e| e.frame_skip())
    }

    #[getter]
    fn hold_frames(&self) -> PyResult<u32> {
        self.read(|e| e.hold_frames())
    }

    #[getter]
    fn frame_stack(&self) -> PyResult<usize> {
        self.read(|e| e.frame_stack())
    }

    /// "gray", "rgb", "shades", "gray_half" or "none".
    #[getter]
    fn obs_mode(&self) -> PyResult<&'static str> {
        self.read(|e| e.obs_mode().name())
    }

    /// Shape of one env's observation: ([frame_stack,] *frame).
    #[getter]
    fn observation_shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let shape = self.read(|e| e.observation_shape())?;
        PyTuple::new(py, shape)
    }

    #[getter]
    fn ram_addresses<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let addresses = self.read(|e| e.ram_addresses().to_vec())?;
        PyTuple::new(py, addresses)
    }

    /// The buttons of each action (a tuple of button-name tuples), or None
    /// when actions are button bitmasks.
    #[getter]
    fn action_table<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let Some(table) = self.read(|e| e.action_table().map(<[u8]>::to_vec))? else {
            return Ok(None);
        };
        let actions = table
            .into_iter()
            .map(|mask| {
                PyTuple::new(
                    py,
                    BUTTON_ORDER
                        .iter()
                        .filter(|b| mask & (1 << b.index()) != 0)
                        .map(|b| b.name())
                        .collect::<Vec<_>>(),
                )
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(py, actions).map(Some)
    }

    /// Memory each env costs (machine state, VRAM, WRAM/HRAM, cartridge
    /// RAM, its observation and RAM rows); the ROM is shared and not counted.
    #[getter]
    fn bytes_per_env(&self) -> PyResult<usize> {
        self.read(|e| e.bytes_per_env())
    }

    /// Env `i`'s last drawn frame: a (144, 160) uint8 array of shades 0..3
    /// (0 = lightest), a copy. (The observation may be downsampled or grey;
    /// this is what `render()` and GIFs are made from.)
    fn frame<'py>(
        &self,
        py: Python<'py>,
        i: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, numpy::PyArray2<u8>>> {
        let i = self.env_index(i)?;
        let shades = self.read(|e| e.frame_shades(i).to_vec())?;
        numpy::PyArray1::from_vec(py, shades).reshape([crate::screen::HEIGHT, crate::screen::WIDTH])
    }

    /// Env `i`'s machine state as bytes (the format of `GameBoy.save_state`).
    fn save_state<'py>(
        &self,
        py: Python<'py>,
        i: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let i = self.env_index(i)?;
        let state = self
            .read(|e| e.save_state(i))?
            .map_err(|e| core_error(py, e))?;
        Ok(PyBytes::new(py, &state))
    }

    /// Loads a state (from `save_state` or `GameBoy.save_state` of the same
    /// ROM) into env `i`; a bad state raises `InvalidStateError` and leaves
    /// the env unchanged. Its observation is blank until its next step.
    fn load_state(
        &mut self,
        py: Python<'_>,
        i: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let i = self.env_index(i)?;
        let data = bytes_or_bytearray(data, "state")?;
        self.write(py, |e| e.load_state(i, &data))
    }

    /// An in-memory copy of env `i`'s machine, for `restore`.
    fn snapshot(&self, py: Python<'_>, i: &Bound<'_, PyAny>) -> PyResult<PySnapshot> {
        let i = self.env_index(i)?;
        let snap = self
            .read(|e| e.snapshot(i))?
            .map_err(|e| core_error(py, e))?;
        Ok(PySnapshot { snap })
    }

    /// Puts env `i` back in the state of `snapshot` (of an engine running
    /// the same ROM); its observation shows the snapshot's last frame.
    fn restore(
        &mut self,
        py: Python<'_>,
        i: &Bound<'_, PyAny>,
        snapshot: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let i = self.env_index(i)?;
        let snap = snapshot.cast::<PySnapshot>().map_err(|_| {
            PyTypeError::new_err(format!(
                "snapshot must be an emurust.Snapshot (from VecGameBoy.snapshot), not {}",
                type_name(snapshot)
            ))
        })?;
        let snap = &snap.get().snap;
        self.write(py, |e| e.restore(i, snap))
    }

    /// Puts the envs whose `mask` entry is True (a bool array of shape
    /// (num_envs,)) back in the initial state; their observations and RAM
    /// rows are refreshed.
    fn reset_envs(&mut self, py: Python<'_>, mask: &Bound<'_, PyAny>) -> PyResult<()> {
        let n = self.read(|e| e.num_envs())?;
        let mask = mask_arg(mask, n)?;
        self.write(py, |e| e.reset_envs(&mask))
    }

    /// Writes `values` into every env's memory from `address` on, through
    /// the bus (as `GameBoy.memory[a] = v` does: no time passes). `values` is
    /// a uint8 array of shape (num_envs,) (one byte per env) or
    /// (num_envs, k) (k consecutive bytes per env); `mask` (bool, shape
    /// (num_envs,)) writes only the envs whose entry is True. The gathered
    /// `ram` rows of the written envs are refreshed.
    #[pyo3(signature = (address, values, *, mask = None))]
    fn set_memory(
        &mut self,
        py: Python<'_>,
        address: &Bound<'_, PyAny>,
        values: &Bound<'_, PyAny>,
        mask: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let n = self.read(|e| e.num_envs())?;
        let address = match int_arg(address, "address")? {
            Some(a) if (0..=0xFFFF).contains(&a) => a as u16,
            a => {
                return Err(invalid_address(
                    py,
                    format!(
                        "address {} is outside 0x0000..=0xFFFF",
                        a.map_or_else(|| "(a huge int)".to_owned(), |a| a.to_string())
                    ),
                ))
            }
        };
        let data = values_arg(values, n)?;
        let mask = match given(mask) {
            None => None,
            Some(m) => Some(mask_arg(&m, n)?),
        };
        self.write(py, |e| e.set_memory(address, &data, mask.as_deref()))
    }

    fn __repr__(&self) -> PyResult<String> {
        self.read(|e| {
            format!(
                "<emurust.VecGameBoy num_envs={} num_threads={} obs={:?} frame_skip={} \
                 hold_frames={}>",
                e.num_envs(),
                e.num_threads(),
                e.obs_mode().name(),
                e.frame_skip(),
                e.hold_frames()
            )
        })
    }
}

/// One env's machine copied in memory (`VecGameBoy.snapshot`); restore it
/// with `VecGameBoy.restore` into any env of an engine running the same ROM.
#[pyclass(module = "emurust._core", name = "Snapshot", frozen)]
pub struct PySnapshot {
    pub(super) snap: Snapshot,
}

#[pymethods]
impl PySnapshot {
    /// Frames the machine had run when the snapshot was taken.
    #[getter]
    fn frame_count(&self) -> u64 {
        self.snap.frame_count()
    }

    /// Bytes of memory the snapshot holds.
    #[getter]
    fn nbytes(&self) -> usize {
        self.snap.bytes()
    }

    /// The machine state as bytes (as `VecGameBoy.save_state` gives it).
    fn save_state<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.snap.save_state())
    }

    fn __repr__(&self) -> String {
        format!("<emurust.Snapshot frame={}>", self.snap.frame_count())
    }
}
