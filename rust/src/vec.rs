//! The batched engine: many emulators stepped in parallel, for reinforcement
//! learning.
//!
//! A [`VecEngine`] runs `num_envs` machines of one ROM. Every [`VecEngine::step`]
//! takes one action per env, presses its buttons for `hold_frames` frames,
//! releases them for the rest of `frame_skip` frames, draws only the last
//! frame, and writes the observation of every env into one buffer that the
//! engine owns (`(num_envs, [frame_stack,] ...frame)` bytes, row-major).
//!
//! Layout, chosen so that a binding can hand out zero-copy views:
//! - the machines are split as the core allows: the [`Core`]s in one `Vec`
//!   and the RAM blocks ([`Ram`]: WRAM then HRAM) in another, contiguous, so
//!   that the WRAM (or HRAM) of all envs is a strided view of one array;
//! - the ROM is shared by all envs (`Arc<[u8]>`);
//! - none of the buffers is reallocated after construction.
//!
//! The envs run on the engine's own rayon pool (never rayon's global one),
//! created on the first parallel step and created anew in a forked child
//! (the process id changed; the parent's pool threads do not exist there).
//! Each env is stepped by one thread from start to end and envs share no
//! mutable state, so results are bit-identical whatever the thread count.
//!
//! A step can be watched ([`VecEngine::step_watched`]): the calling thread
//! waits for the workers and asks a callback now and then whether to stop
//! (the Python binding checks for Ctrl-C there). A stopped step leaves
//! every env at a frame boundary and says how far each got.

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rayon::{ThreadPool, ThreadPoolBuilder};

use crate::bus::{Ram, HRAM_SIZE, RAM_SIZE, WRAM_SIZE};
use crate::cgb::Model;
use crate::error::{Error, Result};
use crate::gameboy::{core_heap_bytes, Core, Snapshot};
use crate::joypad::Button;
use crate::screen::PIXELS;

mod obs;
mod step;

pub use obs::ObsMode;
use obs::Tables;
use step::{gather, Buffers, StepParams, Tally};
pub use step::{StepEnd, StepProgress};

/// Most envs one engine runs.
pub const MAX_ENVS: usize = 65_536;
/// Most worker threads one engine starts.
pub const MAX_THREADS: usize = 1024;
/// Longest step, in frames (one minute of emulated time).
pub const MAX_FRAME_SKIP: u32 = 3600;
/// Deepest frame stack.
pub const MAX_FRAME_STACK: usize = 64;
/// Most entries of an action table (actions are bytes).
pub const MAX_ACTIONS: usize = 256;
/// Most RAM addresses gathered per env.
pub const MAX_RAM_ADDRESSES: usize = 0x1_0000;

/// The default action table, as in PokemonRedExperiments (PWhiddy): the
/// four directions, A, B, START, and a no-op (index 7, no button).
pub const DEFAULT_ACTIONS: [&[Button]; 8] = [
    &[Button::Down],
    &[Button::Left],
    &[Button::Right],
    &[Button::Up],
    &[Button::A],
    &[Button::B],
    &[Button::Start],
    &[],
];

/// The button bitmask of a set of buttons (bit = [`Button`] discriminant, as
/// [`Core::set_buttons`] takes it).
pub fn button_mask(buttons: &[Button]) -> u8 {
    buttons.iter().fold(0, |m, b| m | 1 << b.index())
}

/// The default action table as button bitmasks.
pub fn default_action_table() -> Vec<u8> {
    DEFAULT_ACTIONS.iter().map(|b| button_mask(b)).collect()
}

/// How a [`VecEngine`] steps and observes.
#[derive(Clone, Debug)]
pub struct VecConfig {
    /// Frames per step (1..=[`MAX_FRAME_SKIP`]).
    pub frame_skip: u32,
    /// Frames the action's buttons are held at the start of a step
    /// (0..=`frame_skip`); they are released for the rest. With
    /// `hold_frames == frame_skip` they stay held until the next step.
    pub hold_frames: u32,
    /// Worker threads; 0 = one per available core. 1 steps the envs in the
    /// calling thread (no pool is started).
    pub num_threads: usize,
    pub obs: ObsMode,
    /// Frames per observation (1 = no stack); newest last.
    pub frame_stack: usize,
    /// Addresses read (side-effect free) after every step into `ram()`.
    pub ram_addresses: Vec<u16>,
    /// Button bitmask of each action (`None`: actions are bitmasks).
    pub action_table: Option<Vec<u8>>,
    /// A save state every env starts from (and `reset` returns to).
    pub initial_state: Option<Vec<u8>>,
    /// A machine every env starts from, with its last drawn frame (the
    /// first observation shows it); takes the place of `initial_state`.
    pub initial_snapshot: Option<Snapshot>,
    /// A 256-byte DMG boot ROM (ignored when `initial_state` is given).
    pub boot_rom: Option<Vec<u8>>,
    /// The machine every env is (a snapshot brings its own).
    pub model: Model,
}

impl Default for VecConfig {
    fn default() -> Self {
        VecConfig {
            frame_skip: 24,
            hold_frames: 8,
            num_threads: 0,
            obs: ObsMode::Gray,
            frame_stack: 1,
            ram_addresses: Vec::new(),
            action_table: Some(default_action_table()),
            initial_state: None,
            initial_snapshot: None,
            boot_rom: None,
            model: Model::Dmg,
        }
    }
}

/// A `Vec` of exactly `len` elements, or an `InvalidArgument` error (not an
/// abort) when the memory cannot be had.
fn try_vec<T: Clone>(len: usize, value: T, what: &str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| {
        Error::OutOfMemory(format!(
            "cannot allocate {what} ({len} x {} bytes); use fewer envs or a smaller observation",
            std::mem::size_of::<T>()
        ))
    })?;
    v.resize(len, value);
    Ok(v)
}

/// The engine's own rayon pool and the process it was started in.
struct Pool {
    pid: u32,
    pool: ThreadPool,
}

/// `num_envs` emulators of one ROM stepped in parallel (see the module
/// documentation).
pub struct VecEngine {
    cores: Vec<Core>,
    rams: Vec<Ram>,
    /// (num_envs, frame_stack, frame) observation bytes.
    obs: Vec<u8>,
    /// (num_envs, ram_addresses.len()) gathered bytes.
    ram_obs: Vec<u8>,
    /// Each env's button mask for the current step (reused, no allocation).
    masks: Vec<u8>,
    initial: Snapshot,
    tables: Tables,
    frame_skip: u32,
    hold_frames: u32,
    mode: ObsMode,
    frame_stack: usize,
    ram_addresses: Vec<u16>,
    action_table: Option<Vec<u8>>,
    num_threads: usize,
    pool: Option<Pool>,
}

impl Drop for VecEngine {
    fn drop(&mut self) {
        // An engine dropped in a forked child without stepping there still
        // holds the parent's pool: leak it (see `VecEngine::pool`).
        if let Some(old) = self.pool.take_if(|p| p.pid != std::process::id()) {
            std::mem::forget(old);
        }
    }
}

impl VecEngine {
    /// Builds `num_envs` machines of `rom`, all in the initial state
    /// (power-on, or `config.initial_state`). No thread is started yet.
    pub fn new(rom: Arc<[u8]>, num_envs: usize, config: VecConfig) -> Result<VecEngine> {
        let bad = |m: String| Err(Error::InvalidArgument(m));
        if !(1..=MAX_ENVS).contains(&num_envs) {
            return bad(format!(
                "num_envs must be between 1 and {MAX_ENVS}, got {num_envs}"
            ));
        }
        if !(1..=MAX_FRAME_SKIP).contains(&config.frame_skip) {
            return bad(format!(
                "frame_skip must be between 1 and {MAX_FRAME_SKIP}, got {}",
                config.frame_skip
            ));
        }
        if config.hold_frames > config.frame_skip {
            return bad(format!(
                "hold_frames must be between 0 and frame_skip ({}), got {}",
                config.frame_skip, config.hold_frames
            ));
        }
        if config.num_threads > MAX_THREADS {
            return bad(format!(
                "num_threads must be between 1 and {MAX_THREADS} (or automatic), got {}",
                config.num_threads
            ));
        }
        if config.obs == ObsMode::None && config.frame_stack != 1 {
            return bad(format!(
                "obs=\"none\" draws no frame to stack: frame_stack must be 1, got {}",
                config.frame_stack
            ));
        }
        if !(1..=MAX_FRAME_STACK).contains(&config.frame_stack) {
            return bad(format!(
                "frame_stack must be between 1 and {MAX_FRAME_STACK}, got {}",
                config.frame_stack
            ));
        }
        if config.ram_addresses.len() > MAX_RAM_ADDRESSES {
            return bad(format!(
                "at most {MAX_RAM_ADDRESSES} ram_addresses, got {}",
                config.ram_addresses.len()
            ));
        }
        if let Some(table) = &config.action_table {
            if !(1..=MAX_ACTIONS).contains(&table.len()) {
                return bad(format!(
                    "an action table needs 1 to {MAX_ACTIONS} actions, got {}",
                    table.len()
                ));
            }
        }
        let num_threads = match config.num_threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
        .min(MAX_THREADS);

        let mut core = Core::with_model(rom, config.boot_rom.as_deref(), config.model)?;
        let mut ram: Box<Ram> = Box::new([0; RAM_SIZE]);
        if config.initial_state.is_some() && config.initial_snapshot.is_some() {
            return bad("give initial_state or initial_snapshot, not both".into());
        }
        if let Some(state) = &config.initial_state {
            // The first observation is the state's picture.
            core.load(&mut ram, state)?;
        }
        let initial = match config.initial_snapshot {
            Some(mut snap) => {
                if snap.core.hw.cart.rom_fingerprint() != core.hw.cart.rom_fingerprint() {
                    return Err(Error::InvalidState(
                        "the initial snapshot was taken from a machine running a different ROM"
                            .into(),
                    ));
                }
                core.hw.check_boot_rom(&snap.core.hw)?;
                snap.core.hw.adopt_boot_rom(&core.hw);
                snap
            }
            None => Snapshot { core, ram },
        };

        let frame_len = config.obs.frame_len();
        let obs_len = num_envs
            .checked_mul(config.frame_stack * frame_len)
            .ok_or_else(|| Error::InvalidArgument("observation buffer too large".into()))?;
        // Everything the envs will hold, asked for at once before any of it
        // is built: the machines' own allocations (VRAM, frames...) are made
        // by cloning, which cannot fail gracefully, so a batch too large for
        // the memory available is refused here instead of aborting halfway.
        let per_env = core_heap_bytes(&initial.core)
            + RAM_SIZE
            + config.frame_stack * frame_len
            + config.ram_addresses.len()
            + 1;
        let total = per_env.saturating_mul(num_envs);
        let mut probe: Vec<u8> = Vec::new();
        probe.try_reserve_exact(total).map_err(|_| {
            Error::OutOfMemory(format!(
                "cannot allocate {num_envs} envs: they need about {} MiB ({per_env} bytes each); \
                 use fewer envs or a smaller observation",
                total.div_ceil(1 << 20)
            ))
        })?;
        drop(probe);
        let obs = try_vec(obs_len, 0u8, "the observation buffer")?;
        let ram_obs = try_vec(
            num_envs * config.ram_addresses.len(),
            0u8,
            "the RAM observation buffer",
        )?;
        let rams = try_vec(num_envs, *initial.ram, "the envs' RAM")?;
        let mut cores = Vec::new();
        cores
            .try_reserve_exact(num_envs)
            .map_err(|_| Error::OutOfMemory(format!("cannot allocate {num_envs} machines")))?;
        cores.extend((0..num_envs).map(|_| initial.core.clone()));

        let mut engine = VecEngine {
            cores,
            rams,
            obs,
            ram_obs,
            masks: vec![0; num_envs],
            initial,
            tables: Tables::new(),
            frame_skip: config.frame_skip,
            hold_frames: config.hold_frames,
            mode: config.obs,
            frame_stack: config.frame_stack,
            ram_addresses: config.ram_addresses,
            action_table: config.action_table,
            num_threads,
            pool: None,
        };
        for i in 0..num_envs {
            engine.refresh_obs(i);
        }
        Ok(engine)
    }

    pub fn num_envs(&self) -> usize {
        self.cores.len()
    }

    /// Problems found loading the ROM that did not stop it (as
    /// [`crate::GameBoy::warnings`] reports them).
    pub fn warnings(&self) -> &[String] {
        self.initial.core.hw.cart.warnings()
    }

    pub fn num_threads(&self) -> usize {
        self.num_threads
    }

    pub fn frame_skip(&self) -> u32 {
        self.frame_skip
    }

    pub fn hold_frames(&self) -> u32 {
        self.hold_frames
    }

    pub fn obs_mode(&self) -> ObsMode {
        self.mode
    }

    pub fn frame_stack(&self) -> usize {
        self.frame_stack
    }

    pub fn ram_addresses(&self) -> &[u16] {
        &self.ram_addresses
    }

    /// Button bitmask of each action, or `None` when actions are bitmasks.
    pub fn action_table(&self) -> Option<&[u8]> {
        self.action_table.as_deref()
    }

    /// Shape of one env's observation: `([frame_stack,] ...frame)` (the
    /// stack axis only when `frame_stack > 1`).
    pub fn observation_shape(&self) -> Vec<usize> {
        let mut shape = Vec::with_capacity(4);
        if self.frame_stack > 1 {
            shape.push(self.frame_stack);
        }
        shape.extend_from_slice(self.mode.frame_shape());
        shape
    }

    /// Bytes of one env's observation.
    pub fn obs_len(&self) -> usize {
        self.frame_stack * self.mode.frame_len()
    }

    /// Memory each env costs: its machine (state, VRAM, frame of shades,
    /// cartridge RAM, serial log), its WRAM/HRAM, and its share of the
    /// observation and RAM buffers. The ROM is shared and not counted.
    pub fn bytes_per_env(&self) -> usize {
        let machines: usize = self.cores.iter().map(core_heap_bytes).sum();
        machines.div_ceil(self.num_envs())
            + RAM_SIZE
            + self.obs_len()
            + self.ram_addresses.len()
            + 1 // the step's button mask
    }

    /// All observations, `(num_envs, [frame_stack,] ...frame)` row-major.
    pub fn obs(&self) -> &[u8] {
        &self.obs
    }

    /// The gathered RAM bytes, `(num_envs, ram_addresses.len())`.
    pub fn ram(&self) -> &[u8] {
        &self.ram_obs
    }

    /// Every env's WRAM then HRAM, one [`Ram`] per env, contiguous.
    pub fn rams(&self) -> &[Ram] {
        &self.rams
    }

    /// Env `i`'s WRAM (0xC000..0xE000).
    pub fn wram(&self, i: usize) -> &[u8] {
        &self.rams[i][..WRAM_SIZE]
    }

    /// Env `i`'s HRAM (0xFF80..0xFFFF).
    pub fn hram(&self, i: usize) -> &[u8] {
        &self.rams[i][WRAM_SIZE..WRAM_SIZE + HRAM_SIZE]
    }

    /// Read env `i`'s address space without side effects.
    pub fn peek(&self, i: usize, addr: u16) -> u8 {
        self.cores[i].hw.peek(&self.rams[i], addr)
    }

    /// Frames env `i` has run.
    pub fn frame_count(&self, i: usize) -> u64 {
        self.cores[i].frame_count
    }

    /// Env `i`'s last drawn frame of shades.
    pub fn frame_shades(&self, i: usize) -> &[u8; PIXELS] {
        self.cores[i].frame_shades()
    }

    fn check_env(&self, i: usize) -> Result<()> {
        if i < self.num_envs() {
            Ok(())
        } else {
            Err(Error::InvalidArgument(format!(
                "env index {i} is out of range: this engine has {} envs (0..={})",
                self.num_envs(),
                self.num_envs() - 1
            )))
        }
    }

    /// Rewrite env `i`'s observation (whole stack) and RAM bytes from its
    /// machine as it is now.
    fn refresh_obs(&mut self, i: usize) {
        let obs_len = self.obs_len();
        let n = self.ram_addresses.len();
        let params = StepParams {
            frame_skip: self.frame_skip,
            hold_frames: self.hold_frames,
            mode: self.mode,
            frame_len: self.mode.frame_len(),
            tables: &self.tables,
        };
        params.fill_frames(
            &self.cores[i],
            &mut self.obs[i * obs_len..(i + 1) * obs_len],
        );
        gather(
            &self.cores[i],
            &self.rams[i],
            &self.ram_addresses,
            &mut self.ram_obs[i * n..(i + 1) * n],
        );
    }

    /// Check `actions` and turn them into button masks (nothing is stepped
    /// when one is invalid).
    fn load_masks(&mut self, actions: &[u8], active: Option<&[bool]>) -> Result<()> {
        if actions.len() != self.num_envs() {
            return Err(Error::InvalidArgument(format!(
                "expected {} actions (one per env), got {}",
                self.num_envs(),
                actions.len()
            )));
        }
        if let Some(a) = active {
            self.check_mask(a)?;
        }
        match &self.action_table {
            None => self.masks.copy_from_slice(actions),
            Some(table) => {
                // The actions of envs that are not stepped are not looked at.
                if let Some((i, &a)) = actions
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| active.is_none_or(|m| m[i]))
                    .find(|&(_, &a)| a as usize >= table.len())
                {
                    return Err(Error::InvalidArgument(format!(
                        "action {a} of env {i} is out of range: the action table has {} \
                         actions (0..={})",
                        table.len(),
                        table.len() - 1
                    )));
                }
                for (m, &a) in self.masks.iter_mut().zip(actions) {
                    *m = table.get(a as usize).copied().unwrap_or(0);
                }
            }
        }
        Ok(())
    }

    /// The pool, (re)started when missing or inherited through `fork`.
    fn pool(&mut self) -> Result<&ThreadPool> {
        let pid = std::process::id();
        if let Some(old) = self.pool.take_if(|p| p.pid != pid) {
            // Forked: the pool's threads live in the parent only. Dropping it
            // would signal them through locks that may have been held at
            // fork time; leak it instead (a few hundred bytes).
            std::mem::forget(old);
        }
        if self.pool.is_none() {
            let pool = ThreadPoolBuilder::new()
                .num_threads(self.num_threads)
                .thread_name(|i| format!("emurust-vec-{i}"))
                .build()
                .map_err(|e| {
                    Error::InvalidArgument(format!(
                        "cannot start {} worker threads: {e}",
                        self.num_threads
                    ))
                })?;
            self.pool = Some(Pool { pid, pool });
        }
        Ok(&self.pool.as_ref().expect("pool was just set").pool)
    }

    /// Step every env once (see [`VecConfig`]); `actions` holds one action
    /// per env. An invalid action is an error and nothing is stepped.
    pub fn step(&mut self, actions: &[u8]) -> Result<()> {
        self.step_into(actions, None, None)
    }

    /// [`VecEngine::step`], then copy the observations into `obs_out` and
    /// the gathered RAM bytes into `ram_out` (same layouts as [`VecEngine::obs`]
    /// and [`VecEngine::ram`]). Lengths are checked before anything runs.
    pub fn step_into(
        &mut self,
        actions: &[u8],
        obs_out: Option<&mut [u8]>,
        ram_out: Option<&mut [u8]>,
    ) -> Result<()> {
        self.step_masked(actions, None, obs_out, ram_out)
    }

    /// [`VecEngine::step_into`] for the envs whose `active` entry is set
    /// (`None`: every env). The other envs are not run: their machines,
    /// observations and RAM rows stay as they are (in `obs_out`/`ram_out`
    /// their rows get the engine's unchanged rows), and their actions are
    /// ignored, not even checked.
    pub fn step_masked(
        &mut self,
        actions: &[u8],
        active: Option<&[bool]>,
        obs_out: Option<&mut [u8]>,
        ram_out: Option<&mut [u8]>,
    ) -> Result<()> {
        self.step_inner(actions, active, obs_out, ram_out, None)
            .map(|_| ())
    }

    /// [`VecEngine::step_masked`], watched: while the envs run, the calling
    /// thread calls `watch` about every `interval` (between frames when the
    /// engine steps in the calling thread); once it returns true every env
    /// stops at its next frame boundary and the step ends early, with
    /// [`StepEnd::Stopped`] saying how far the envs got. A stopped step
    /// updates the observations of the envs that finished only, and neither
    /// the RAM rows nor `obs_out`/`ram_out`. Results of a step that is not
    /// stopped are the same as [`VecEngine::step_masked`]'s.
    pub fn step_watched(
        &mut self,
        actions: &[u8],
        active: Option<&[bool]>,
        obs_out: Option<&mut [u8]>,
        ram_out: Option<&mut [u8]>,
        watch: &mut dyn FnMut() -> bool,
        interval: Duration,
    ) -> Result<StepEnd> {
        self.step_inner(actions, active, obs_out, ram_out, Some((watch, interval)))
    }

    fn step_inner(
        &mut self,
        actions: &[u8],
        active: Option<&[bool]>,
        obs_out: Option<&mut [u8]>,
        ram_out: Option<&mut [u8]>,
        watch: Option<(&mut dyn FnMut() -> bool, Duration)>,
    ) -> Result<StepEnd> {
        self.check_out(obs_out.as_deref(), ram_out.as_deref())?;
        self.load_masks(actions, active)?;
        let parallel = self.num_threads > 1;
        if parallel {
            // Started (or restarted after a fork) before any env runs.
            self.pool()?;
        }
        let params = StepParams {
            frame_skip: self.frame_skip,
            hold_frames: self.hold_frames,
            mode: self.mode,
            frame_len: self.mode.frame_len(),
            tables: &self.tables,
        };
        let stepped = active.map_or(self.cores.len(), |a| a.iter().filter(|&&x| x).count());
        let bufs = Buffers {
            cores: &mut self.cores,
            rams: &mut self.rams,
            obs: &mut self.obs,
            ram_obs: &mut self.ram_obs,
            masks: &self.masks,
            active,
            addresses: &self.ram_addresses,
            obs_out,
            ram_out,
        };
        let tally = Tally::default();
        let pool = self.pool.as_ref().filter(|_| parallel).map(|p| &p.pool);
        let stopped = match (pool, watch) {
            (Some(pool), None) => {
                pool.install(|| bufs.step_parallel(&params, &|| false, &tally));
                false
            }
            (None, None) => {
                bufs.step_sequential(&params, &|| false, &tally);
                false
            }
            (Some(pool), Some((watch, interval))) => {
                // The workers run the step; this thread waits, waking every
                // `interval` to ask `watch`, and raises `stop` for them.
                let stop = AtomicBool::new(false);
                let done = AtomicBool::new(false);
                let waiter = std::thread::current();
                pool.in_place_scope(|scope| {
                    scope.spawn(|_| {
                        bufs.step_parallel(&params, &|| stop.load(Ordering::Relaxed), &tally);
                        done.store(true, Ordering::Release);
                        waiter.unpark();
                    });
                    while !done.load(Ordering::Acquire) {
                        std::thread::park_timeout(interval);
                        if !done.load(Ordering::Acquire) && !stop.load(Ordering::Relaxed) && watch()
                        {
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                });
                stop.into_inner()
            }
            (None, Some((watch, interval))) => {
                // Stepped in this thread: `watch` is asked between frames,
                // once `interval` has passed since it was last asked.
                let stop = Cell::new(false);
                let last = Cell::new(Instant::now());
                let watch = RefCell::new(watch);
                let check = || {
                    if !stop.get() && last.get().elapsed() >= interval {
                        last.set(Instant::now());
                        stop.set((watch.borrow_mut())());
                    }
                    stop.get()
                };
                bufs.step_sequential(&params, &check, &tally);
                stop.get()
            }
        };
        if !stopped {
            return Ok(StepEnd::Done);
        }
        let finished = tally.finished.into_inner();
        let partial = tally.partial.into_inner();
        Ok(StepEnd::Stopped(StepProgress {
            finished,
            partial,
            not_started: stepped - finished - partial,
        }))
    }

    fn check_out(&self, obs_out: Option<&[u8]>, ram_out: Option<&[u8]>) -> Result<()> {
        if let Some(o) = obs_out {
            if o.len() != self.obs.len() {
                return Err(Error::InvalidArgument(format!(
                    "the observation buffer must hold {} bytes, got {}",
                    self.obs.len(),
                    o.len()
                )));
            }
        }
        if let Some(r) = ram_out {
            if r.len() != self.ram_obs.len() {
                return Err(Error::InvalidArgument(format!(
                    "the RAM buffer must hold {} bytes, got {}",
                    self.ram_obs.len(),
                    r.len()
                )));
            }
        }
        Ok(())
    }

    /// Put every env back in the initial state; their observations show the
    /// initial machine's frame (blank unless the initial machine drew one).
    pub fn reset(&mut self) {
        let mask = vec![true; self.num_envs()];
        self.reset_envs(&mask).expect("mask has one entry per env");
    }

    /// Put the envs whose `mask` entry is set back in the initial state.
    pub fn reset_envs(&mut self, mask: &[bool]) -> Result<()> {
        self.check_mask(mask)?;
        for (i, _) in mask.iter().enumerate().filter(|(_, &m)| m) {
            self.cores[i].clone_from(&self.initial.core);
            self.rams[i] = *self.initial.ram;
            self.refresh_obs(i);
        }
        Ok(())
    }

    fn check_mask(&self, mask: &[bool]) -> Result<()> {
        if mask.len() != self.num_envs() {
            return Err(Error::InvalidArgument(format!(
                "expected a mask of {} entries (one per env), got {}",
                self.num_envs(),
                mask.len()
            )));
        }
        Ok(())
    }

    /// Write `values` (`(num_envs, k)` bytes, row-major) at the `k` addresses
    /// from `address` on, in every env whose `mask` entry is set (`None`:
    /// all), through the bus as a debugger does (no time passes; I/O
    /// registers react as to a CPU write). The gathered RAM rows of those
    /// envs are refreshed; their observations are not (nothing was drawn).
    pub fn set_memory(&mut self, address: u16, values: &[u8], mask: Option<&[bool]>) -> Result<()> {
        let n = self.num_envs();
        if values.is_empty() || values.len() % n != 0 {
            return Err(Error::InvalidArgument(format!(
                "expected k >= 1 bytes per env ({n} envs), got {} bytes",
                values.len()
            )));
        }
        let k = values.len() / n;
        if usize::from(address) + k > 0x1_0000 {
            return Err(Error::InvalidArgument(format!(
                "{k} bytes from address {address:#06x} run past 0xFFFF"
            )));
        }
        if let Some(m) = mask {
            self.check_mask(m)?;
        }
        let per_env = self.ram_addresses.len();
        for (i, row) in values.chunks_exact(k).enumerate() {
            if !mask.is_none_or(|m| m[i]) {
                continue;
            }
            let (core, ram) = (&mut self.cores[i], &mut self.rams[i]);
            for (offset, &v) in row.iter().enumerate() {
                core.hw.poke(ram, address + offset as u16, v);
            }
            gather(
                core,
                ram,
                &self.ram_addresses,
                &mut self.ram_obs[i * per_env..(i + 1) * per_env],
            );
        }
        Ok(())
    }

    /// A copy of env `i`'s machine, for [`VecEngine::restore`].
    pub fn snapshot(&self, i: usize) -> Result<Snapshot> {
        self.check_env(i)?;
        Ok(Snapshot {
            core: self.cores[i].clone(),
            ram: Box::new(self.rams[i]),
        })
    }

    /// Copy `snap` into `snap_out` (reusing its allocations where the core
    /// allows): a snapshot taken again costs no allocation of its RAM.
    pub fn snapshot_into(&self, i: usize, snap_out: &mut Snapshot) -> Result<()> {
        self.check_env(i)?;
        snap_out.core.clone_from(&self.cores[i]);
        *snap_out.ram = self.rams[i];
        Ok(())
    }

    /// Put env `i` back in the state of `snap` (taken from an env of an
    /// engine running the same ROM); its observation stack is refilled with
    /// the snapshot's last drawn frame.
    pub fn restore(&mut self, i: usize, snap: &Snapshot) -> Result<()> {
        self.check_env(i)?;
        if snap.core.hw.cart.rom_fingerprint() != self.initial.core.hw.cart.rom_fingerprint() {
            return Err(Error::InvalidState(
                "snapshot was taken from an engine running a different ROM".into(),
            ));
        }
        if snap.core.hw.model() != self.initial.core.hw.model() {
            return Err(Error::InvalidState(format!(
                "snapshot was taken on a {} machine; this engine's envs are {}",
                snap.core.hw.model().name(),
                self.initial.core.hw.model().name()
            )));
        }
        // Every way into an env checks what `load_state` checks: a machine
        // still running a boot ROM needs this engine's boot ROM.
        self.initial.core.hw.check_boot_rom(&snap.core.hw)?;
        self.cores[i].clone_from(&snap.core);
        self.cores[i].hw.adopt_boot_rom(&self.initial.core.hw);
        self.rams[i] = *snap.ram;
        self.refresh_obs(i);
        Ok(())
    }

    /// Env `i`'s machine state as bytes (the format of `GameBoy::save_state`,
    /// so either can load the other's).
    pub fn save_state(&self, i: usize) -> Result<Vec<u8>> {
        self.check_env(i)?;
        Ok(self.cores[i].state_bytes(&self.rams[i]))
    }

    /// Load a state into env `i`; a state that does not load leaves the env
    /// unchanged. The env's observation is the state's picture (blank for a
    /// version 5 state, which has none).
    pub fn load_state(&mut self, i: usize, data: &[u8]) -> Result<()> {
        self.check_env(i)?;
        self.cores[i].load(&mut self.rams[i], data)?;
        self.refresh_obs(i);
        Ok(())
    }
}
