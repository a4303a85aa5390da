//! Watching a long step from the calling thread: signals (Ctrl-C) are
//! checked now and then while the envs run with the interpreter lock
//! released, and an interrupted step says how far each env got.

use std::time::Duration;

use pyo3::intern;
use pyo3::prelude::*;

use crate::vec::StepProgress;

/// How often a watched step checks for signals (Ctrl-C).
pub(super) const SIGNAL_CHECK_INTERVAL: Duration = Duration::from_millis(50);

/// Steps predicted to take longer than this (20 ms) are watched.
pub(super) const WATCH_AFTER_NS: f64 = 20e6;

thread_local! {
    /// Whether this OS thread is the interpreter's main thread (asked once).
    static ON_MAIN_THREAD: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

/// Whether this is the interpreter's main thread (where signal handlers run).
pub(super) fn on_main_thread(py: Python<'_>) -> PyResult<bool> {
    if let Some(known) = ON_MAIN_THREAD.with(|c| c.get()) {
        return Ok(known);
    }
    let main: u64 = py
        .import(intern!(py, "threading"))?
        .call_method0(intern!(py, "main_thread"))?
        .getattr(intern!(py, "ident"))?
        .extract()?;
    let this: u64 = py
        .import(intern!(py, "_thread"))?
        .call_method0(intern!(py, "get_ident"))?
        .extract()?;
    ON_MAIN_THREAD.with(|c| c.set(Some(this == main)));
    Ok(this == main)
}

/// The exception a signal handler raised during a step (KeyboardInterrupt
/// for Ctrl-C), with a note (Python 3.11+) saying what state the batch is in.
pub(super) fn interrupted(py: Python<'_>, err: PyErr, p: StepProgress) -> PyErr {
    let note = format!(
        "VecGameBoy.step was interrupted: {} env(s) finished the step, {} stopped part-way \
         (at a frame boundary, buttons as the step left them), {} did not start. \
         Observations were updated for the finished envs only; the RAM rows and any obs=/ram= \
         buffers were not. Each env is a consistent machine: step again, reset or restore it.",
        p.finished, p.partial, p.not_started
    );
    let value = err.value(py);
    if value.hasattr(intern!(py, "add_note")).unwrap_or(false) {
        // A failure to attach the note must not hide the interrupt itself.
        let _ = value.call_method1(intern!(py, "add_note"), (note,));
    }
    err
}
