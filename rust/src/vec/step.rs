//! One step of the envs: each env runs its frames on one thread, start to
//! end; its observation stack and RAM row are written by the same worker,
//! so results do not depend on the thread count.

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use super::obs::{ObsMode, Tables};
use crate::bus::Ram;
use crate::gameboy::Core;

/// What every env's step needs, shared read-only by the workers.
pub(super) struct StepParams<'a> {
    pub(super) frame_skip: u32,
    pub(super) hold_frames: u32,
    pub(super) mode: ObsMode,
    pub(super) frame_len: usize,
    pub(super) tables: &'a Tables,
}

/// How far the envs of a stopped step got (see [`VecEngine::step_watched`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StepProgress {
    /// Envs that ran the whole step (their observations are new).
    pub finished: usize,
    /// Envs stopped part-way, at a frame boundary (observations not updated).
    pub partial: usize,
    /// Envs that did not run a frame.
    pub not_started: usize,
}

/// How a watched step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepEnd {
    Done,
    /// The watcher asked to stop; RAM rows and copies out were not updated.
    Stopped(StepProgress),
}

/// Counts of envs by how far they got, shared by the workers.
#[derive(Default)]
pub(super) struct Tally {
    pub(super) finished: AtomicUsize,
    pub(super) partial: AtomicUsize,
}

impl StepParams<'_> {
    /// Press `mask` for `hold_frames` frames, release for the rest, draw the
    /// last frame and push it onto the env's observation stack. `stop` is
    /// asked before every frame; when it says yes the env is left at that
    /// frame boundary and its observation is not pushed. Returns the frames
    /// run.
    #[inline]
    fn step_env(
        &self,
        core: &mut Core,
        ram: &mut Ram,
        mask: u8,
        obs: &mut [u8],
        stop: &impl Fn() -> bool,
    ) -> u32 {
        for f in 0..self.frame_skip {
            if stop() {
                return f;
            }
            if f == 0 {
                core.set_buttons(if self.hold_frames > 0 { mask } else { 0 });
            } else if f == self.hold_frames {
                core.set_buttons(0);
            }
            core.run_frame(ram, self.frame_len > 0 && f + 1 == self.frame_skip);
        }
        self.push_frame(core, obs);
        self.frame_skip
    }

    /// Count an env's step in `tally` (frames run out of `frame_skip`).
    fn count(&self, tally: &Tally, frames: u32) {
        if frames == self.frame_skip {
            tally.finished.fetch_add(1, Ordering::Relaxed);
        } else if frames > 0 {
            tally.partial.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Shift the stack one frame towards the front and write the current
    /// frame last.
    pub(super) fn push_frame(&self, core: &Core, obs: &mut [u8]) {
        if self.frame_len == 0 {
            return;
        }
        let newest = obs.len() - self.frame_len;
        obs.copy_within(self.frame_len.., 0);
        self.tables
            .convert_core(self.mode, core, &mut obs[newest..]);
    }

    /// Fill the whole stack with the current frame (after a reset).
    pub(super) fn fill_frames(&self, core: &Core, obs: &mut [u8]) {
        if self.frame_len == 0 {
            return;
        }
        let (first, rest) = obs.split_at_mut(self.frame_len);
        self.tables.convert_core(self.mode, core, first);
        for frame in rest.chunks_exact_mut(self.frame_len) {
            frame.copy_from_slice(first);
        }
    }
}

/// Each env's observation bytes in `buf` (`num_envs` equal rows), as
/// mutable slices: empty ones when the mode draws no screen (a zero-length
/// chunk size is not allowed by `chunks_exact_mut`).
fn env_rows(buf: &mut [u8], num_envs: usize) -> impl Iterator<Item = &mut [u8]> {
    let len = buf.len() / num_envs.max(1);
    if len == 0 {
        rayon::iter::Either::Left((0..num_envs).map(|_| <&mut [u8]>::default()))
    } else {
        rayon::iter::Either::Right(buf.chunks_exact_mut(len))
    }
}

/// [`env_rows`] for rayon.
fn env_rows_par(buf: &mut [u8], num_envs: usize) -> impl IndexedParallelIterator<Item = &mut [u8]> {
    let len = buf.len() / num_envs.max(1);
    if len == 0 {
        rayon::iter::Either::Left(
            (0..num_envs)
                .into_par_iter()
                .map(|_| <&mut [u8]>::default()),
        )
    } else {
        rayon::iter::Either::Right(buf.par_chunks_mut(len))
    }
}

pub(super) fn gather(core: &Core, ram: &Ram, addresses: &[u16], out: &mut [u8]) {
    for (o, &a) in out.iter_mut().zip(addresses) {
        *o = core.hw.peek(ram, a);
    }
}

/// The buffers one step works on, borrowed from the engine.
pub(super) struct Buffers<'a> {
    pub(super) cores: &'a mut [Core],
    pub(super) rams: &'a mut [Ram],
    pub(super) obs: &'a mut [u8],
    pub(super) ram_obs: &'a mut [u8],
    pub(super) masks: &'a [u8],
    /// Envs to step (`None`: all); the others keep their machine,
    /// observation and RAM row untouched.
    pub(super) active: Option<&'a [bool]>,
    pub(super) addresses: &'a [u16],
    pub(super) obs_out: Option<&'a mut [u8]>,
    pub(super) ram_out: Option<&'a mut [u8]>,
}

impl Buffers<'_> {
    /// On the current rayon pool: each env is one task, stepped start to end
    /// by one thread.
    pub(super) fn step_parallel(
        self,
        params: &StepParams<'_>,
        stop: &(impl Fn() -> bool + Sync),
        tally: &Tally,
    ) {
        let obs_len = self.obs.len() / self.cores.len();
        let num_envs = self.cores.len();
        // One env per task: envs in different game states differ several
        // times over in cost (a halted game against one that redraws), and
        // rayon's default splitting makes about 2 x num_threads chunks unless
        // work is stolen: a thread sat idle while another finished a slow
        // chunk alone.
        let active = self.active;
        let stepped = |i: usize| active.is_none_or(|a| a[i]);
        self.cores
            .par_iter_mut()
            .zip(self.rams.par_iter_mut())
            .zip(env_rows_par(self.obs, num_envs))
            .zip(self.masks.par_iter())
            .enumerate()
            .with_max_len(1)
            .filter(|(i, _)| stepped(*i))
            .for_each(|(_, (((core, ram), obs), &mask))| {
                let frames = params.step_env(core, ram, mask, obs, stop);
                params.count(tally, frames);
            });
        if stop() {
            return;
        }
        let n = self.addresses.len();
        if n > 0 {
            self.ram_obs
                .par_chunks_mut(n)
                .zip(self.cores.par_iter().zip(self.rams.par_iter()))
                .enumerate()
                .filter(|(i, _)| stepped(*i))
                .for_each(|(_, (out, (core, ram)))| gather(core, ram, self.addresses, out));
        }
        if let Some(out) = self.obs_out.filter(|_| obs_len > 0) {
            out.par_chunks_mut(obs_len)
                .zip(self.obs.par_chunks(obs_len))
                .for_each(|(o, s)| o.copy_from_slice(s));
        }
        if let Some(out) = self.ram_out {
            out.copy_from_slice(self.ram_obs);
        }
    }

    /// The same work in the calling thread (`num_threads == 1`).
    pub(super) fn step_sequential(
        self,
        params: &StepParams<'_>,
        stop: &impl Fn() -> bool,
        tally: &Tally,
    ) {
        let num_envs = self.cores.len();
        let active = self.active;
        let stepped = |i: usize| active.is_none_or(|a| a[i]);
        for (_, (((core, ram), obs), &mask)) in self
            .cores
            .iter_mut()
            .zip(self.rams.iter_mut())
            .zip(env_rows(self.obs, num_envs))
            .zip(self.masks)
            .enumerate()
            .filter(|(i, _)| stepped(*i))
        {
            let frames = params.step_env(core, ram, mask, obs, stop);
            params.count(tally, frames);
            if frames < params.frame_skip {
                return;
            }
        }
        let n = self.addresses.len();
        if n > 0 {
            for (_, ((out, core), ram)) in self
                .ram_obs
                .chunks_exact_mut(n)
                .zip(self.cores.iter())
                .zip(self.rams.iter())
                .enumerate()
                .filter(|(i, _)| stepped(*i))
            {
                gather(core, ram, self.addresses, out);
            }
        }
        if let Some(out) = self.obs_out {
            out.copy_from_slice(self.obs);
        }
        if let Some(out) = self.ram_out {
            out.copy_from_slice(self.ram_obs);
        }
    }
}
