//! Test-only aids of the bindings that edit a machine through its save
//! state; nothing here is public API. Compiled only with the cargo feature
//! `testing` (the development build of scripts/setup_env.sh), which the
//! release wheel does not enable.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::args::bytes_or_bytearray;
use super::errors::core_error;
use crate::state::{reseal, CHECKSUM_LEN};

use crate::clock::FRAME_CYCLES as FULL_FRAME;
/// The PPU section of a save state (`Ppu::save` in rust/src/ppu.rs): the
/// "PPU " tag and a u32 length, then VRAM, OAM, 13 bytes of registers and
/// counters, the u64 clock of the current line's start, the u64 clock of
/// the PPU's next event, the phase, 3 flags, the window's WY latch and its
/// copy at mode 3's start, and the u64 of the OAM scan's object sizes.
const PPU_TAG: &[u8; 4] = b"PPU ";
const PPU_TIMING_AT: usize = 0x2000 + 0xA0 + 13;
const PPU_WY_LATCH_AT: usize = PPU_TIMING_AT + 16 + 1 + 3;
const PPU_SECTION_LEN: usize = PPU_WY_LATCH_AT + 2 + 8;

/// Where the PPU section's body starts in `body` (a save state without its
/// checksum): found by its tag and length, since the CPU's fields before it
/// are not in a section and the sections cannot be walked.
fn ppu_section(body: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = body[from..].windows(4).position(|w| w == PPU_TAG) {
        let at = from + found;
        from = at + 1;
        let len = body.get(at + 4..at + 8)?;
        if u32::from_le_bytes(len.try_into().ok()?) as usize == PPU_SECTION_LEN
            && body.len() >= at + 8 + PPU_SECTION_LEN
        {
            return Some(at + 8);
        }
    }
    None
}

/// `state` (sealed save-state bytes) with the PPU's line timing, the clocks
/// of its current line's start and of its next event, moved by `delta`
/// T-cycles and sealed again; None if the state has no PPU section of the
/// expected length, or the line start does not lie between a frame before
/// `now` and `now + 8`, or the next event not between the line start and a
/// frame after `now`.
pub(crate) fn shift_ppu_timing(state: &[u8], delta: i64, now: u64) -> Option<Vec<u8>> {
    let body = &state[..state.len().checked_sub(CHECKSUM_LEN)?];
    let off = ppu_section(body)? + PPU_TIMING_AT;
    let u64_at = |at: usize| -> Option<u64> {
        Some(u64::from_le_bytes(body.get(at..at + 8)?.try_into().ok()?))
    };
    let (start, next) = (u64_at(off)?, u64_at(off + 8)?);
    let line_start_ok = now.saturating_sub(FULL_FRAME) <= start && start <= now + 8;
    if !(line_start_ok && start <= next && next <= now + FULL_FRAME) {
        return None;
    }
    let mut out = state.to_vec();
    out[off..off + 8].copy_from_slice(&start.checked_add_signed(delta)?.to_le_bytes());
    out[off + 8..off + 16].copy_from_slice(&next.checked_add_signed(delta)?.to_le_bytes());
    // The edit breaks the state's checksum on purpose: seal it again.
    reseal(&out).ok()
}

/// `state` with the window's WY latch (LY met WY with LCDC.5 set in this
/// frame) set to `latched`, sealed again, and the latch's value before;
/// None if the state has no PPU section of the expected length.
pub(crate) fn set_wy_latch(state: &[u8], latched: bool) -> Option<(Vec<u8>, bool)> {
    let body = &state[..state.len().checked_sub(CHECKSUM_LEN)?];
    let off = ppu_section(body)? + PPU_WY_LATCH_AT;
    let before = *body.get(off)? != 0;
    let mut out = state.to_vec();
    out[off] = u8::from(latched);
    Some((reseal(&out).ok()?, before))
}

/// The timer section of a save state (`Timer::save` in rust/src/timer.rs):
/// the "TIMR" tag and a u32 length, then the u64 offset of the system
/// counter (`counter(t) = t + offset`), the u64 catch-up clock, TIMA, TMA,
/// TAC, the reload state and its u64 clock.
const TIMER_TAG: &[u8; 4] = b"TIMR";
const TIMER_SECTION_LEN: usize = 8 + 8 + 3 + 1 + 8;

/// `state` (sealed save-state bytes, its timer caught up to `now`) with the
/// timer's system counter (DIV and what hangs off it) running `delta`
/// T-cycles late, sealed again. TIMA would count again the increments of
/// the counter values it goes through a second time: they are taken off
/// it. None if the state has no timer section of the expected length, the
/// timer is not caught up to `now`, `delta` is not in 0..=256, or a TIMA
/// overflow is pending or would be undone.
pub(crate) fn shift_timer(state: &[u8], delta: i64, now: u64) -> Option<Vec<u8>> {
    let body = &state[..state.len().checked_sub(CHECKSUM_LEN)?];
    let mut from = 0;
    let off = loop {
        let at = from + body[from..].windows(4).position(|w| w == TIMER_TAG)?;
        from = at + 1;
        let len = body.get(at + 4..at + 8)?;
        if u32::from_le_bytes(len.try_into().ok()?) as usize == TIMER_SECTION_LEN
            && body.len() >= at + 8 + TIMER_SECTION_LEN
        {
            break at + 8;
        }
    };
    let u64_at = |at: usize| -> Option<u64> {
        Some(u64::from_le_bytes(body.get(at..at + 8)?.try_into().ok()?))
    };
    let (offset, last) = (u64_at(off)?, u64_at(off + 8)?);
    let (tima, tac, pending) = (body[off + 16], body[off + 18], body[off + 19]);
    if last != now || pending != 0 || !(0..=256).contains(&delta) {
        return None;
    }
    // Falling edges of the selected counter bit in (counter - delta, counter].
    let counter = now.wrapping_add(offset);
    let repeats = if tac & 0x04 != 0 {
        let period = [1024u64, 16, 64, 256][(tac & 3) as usize];
        // Periods divide 2^64: the wrapped difference of the quotients counts.
        (counter / period).wrapping_sub(counter.wrapping_sub(delta as u64) / period)
    } else {
        0
    };
    let mut out = state.to_vec();
    out[off..off + 8].copy_from_slice(&offset.wrapping_sub(delta as u64).to_le_bytes());
    out[off + 16] = tima.checked_sub(u8::try_from(repeats).ok()?)?;
    reseal(&out).ok()
}

/// `state` (save-state bytes whose body verification tooling edited on
/// purpose) with its checksum recomputed. Not public API; test builds only
/// (cargo feature `testing`).
#[pyfunction]
pub(super) fn _reseal_state<'py>(
    py: Python<'py>,
    state: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let data = bytes_or_bytearray(state, "state")?;
    let sealed = reseal(&data).map_err(|e| core_error(py, e))?;
    Ok(PyBytes::new(py, &sealed))
}
