//! One emulated DMG: CPU + hardware + RAM, and the frame loop.

use std::sync::Arc;

use crate::bus::{
    BootRom, Bus, Hardware, MachineBus, Ram, CGB_BOOT_ROM_SIZE, DMA_BUS, DMG_BOOT_ROM_SIZE,
    RAM_SIZE,
};
use crate::cartridge::Cartridge;
use crate::cgb::Model;
use crate::cpu::{Code, Cpu, Diagnostics, Fault, Registers, TraceEntry};
use crate::debug::{Breakpoints, DiagBus, HookBus};
use crate::error::{Error, Result};
use crate::joypad::Button;
use crate::screen::{decode_picture, encode_picture, Screen, MAX_PICTURE_BYTES, PIXELS};
use crate::state::{unseal, StateReader, StateWriter, Stateful};

/// Largest ROM accepted (MBC5's 8 MiB).
pub use crate::cartridge::header::MAX_ROM_SIZE;
const STATE_MAGIC: &[u8; 8] = b"EMURUST\0";
/// Bump when the state layout changes. Version 6 added the picture
/// (section `SCRN`); version 5 states still load, with a blank picture.
/// Older versions are rejected by number.
pub const STATE_VERSION: u32 = 6;
/// The oldest state format version that loads.
pub const OLDEST_STATE_VERSION: u32 = 5;
/// Format of the picture in section `SCRN`: DMG shades, 2 bits a pixel,
/// run-length coded (`crate::screen::encode_picture`).
const PICTURE_DMG_SHADES: u8 = 1;

/// The CGB's system counter when its boot ROM hands over at 0x0100
/// (Mooneye misc/boot_div-cgbABCDE, a DMG cartridge: compatibility mode).
const CGB_POST_BOOT_COUNTER: u16 = 0x2674;

/// Reject ROMs larger than any Game Boy cartridge (before copying them).
fn check_rom_size(len: usize) -> Result<()> {
    if len > MAX_ROM_SIZE {
        return Err(Error::InvalidRom(format!(
            "ROM is {len} bytes; the largest Game Boy cartridge is 8 MiB ({MAX_ROM_SIZE} bytes)"
        )));
    }
    Ok(())
}

/// Check a boot ROM's size for `model`: a DMG's is 256 bytes, a CGB's
/// 2,304 (0x0000-0x00FF and 0x0200-0x08FF).
fn check_boot_rom(b: &[u8], model: Model) -> Result<BootRom> {
    let (size, other) = match model {
        Model::Dmg => (DMG_BOOT_ROM_SIZE, CGB_BOOT_ROM_SIZE),
        Model::Cgb => (CGB_BOOT_ROM_SIZE, DMG_BOOT_ROM_SIZE),
    };
    if b.len() == size {
        return Ok(BootRom(b.to_vec()));
    }
    let hint = if b.len() == other {
        let (which, name) = match model {
            Model::Dmg => ("a CGB's", "cgb"),
            Model::Cgb => ("a DMG's", "dmg"),
        };
        format!(
            " ({} bytes is {which} boot ROM: use model=\"{name}\")",
            b.len()
        )
    } else {
        String::new()
    };
    Err(Error::InvalidRom(format!(
        "boot ROM must be exactly {size} bytes for model=\"{}\", got {}{hint}",
        model.name(),
        b.len()
    )))
}

/// The emulated machine state other than RAM; a batched engine keeps many of
/// these next to one contiguous RAM buffer.
#[derive(Clone)]
pub struct Core {
    pub cpu: Cpu,
    pub hw: Hardware,
    /// The ROM and its straight-line runs (`cpu/run_table.rs`), shared.
    code: Arc<Code>,
    pub frame_count: u64,
    /// For each button, the frame number at which to release it (0 = none).
    release_at: [u64; 8],
    /// Instruction trace and injected fault (verification aids); `None`
    /// while both are off. Not part of save states.
    pub diag: Option<Box<Diagnostics>>,
}

impl Core {
    /// A DMG running `rom` (see [`Core::with_model`]).
    pub fn new(rom: Arc<[u8]>, boot_rom: Option<&[u8]>) -> Result<Core> {
        Core::with_model(rom, boot_rom, Model::Dmg)
    }

    /// A `model` running `rom`, from the state its boot ROM hands over in,
    /// or from power-on running `boot_rom` (a DMG's 256 bytes, a CGB's
    /// 2,304).
    pub fn with_model(rom: Arc<[u8]>, boot_rom: Option<&[u8]>, model: Model) -> Result<Core> {
        check_rom_size(rom.len())?;
        // The header's logo, which the boot ROM leaves in VRAM.
        let logo: Option<[u8; 48]> = rom.get(0x104..0x134).and_then(|l| l.try_into().ok());
        let mut cart = Cartridge::new(rom.clone())?;
        let code = Code::shared(cart.rom());
        // Another machine's copy of the same bytes, if any.
        cart.share_rom(&code.rom);
        let boot = match boot_rom {
            None => None,
            Some(b) => Some(Arc::new(check_boot_rom(b, model)?)),
        };
        let regs = if boot.is_some() {
            Registers::default()
        } else if model == Model::Cgb {
            Registers::post_boot_cgb(&rom)
        } else {
            Registers::post_boot_dmg()
        };
        let booting = boot.is_some();
        let mut hw = Hardware::new(cart, boot);
        if model == Model::Cgb {
            hw.make_cgb(&rom);
            hw.cart.drop_cgb_only_warning();
            if !booting {
                // The CGB boot ROM ends with both joypad groups deselected
                // (P1 reads 0xFF: Mooneye misc/boot_hwio-C) and takes longer.
                hw.joypad.set_select(0x30);
                hw.timer.set_system_counter(CGB_POST_BOOT_COUNTER, 0);
            }
            hw.sync_after_boot_change();
        } else if let (false, Some(logo)) = (booting, logo) {
            hw.ppu.load_boot_vram(&logo);
        }
        Ok(Core {
            cpu: Cpu::new(regs),
            hw,
            code,
            frame_count: 0,
            release_at: [0; 8],
            diag: None,
        })
    }

    /// Run until the next frame boundary (VBlank start, or 70,224 T-cycles
    /// while the LCD is off).
    #[inline]
    pub fn run_frame(&mut self, ram: &mut Ram, render: bool) {
        self.begin_frame(render);
        self.run_until::<true, _>(ram, &mut NoBreakpoints, |hw| hw.frame_done);
        self.end_frame(ram, render);
    }

    /// The one place the CPU's bus is picked: the diagnostic bus while a
    /// trace or a fault is on (breakpoints are ignored there: the
    /// diagnostic path has none), else the reference bus, the [`DMA_BUS`]
    /// while an OAM DMA is pending or running (its accesses all go through
    /// the hardware, which resolves the DMA's bus conflicts, so that the
    /// plain bus's accesses pay nothing for them), or the plain fast bus;
    /// each wrapped in `breakpoints`. `job` runs once on it.
    #[inline(always)]
    fn on_bus<J: BusJob, W: Wrap>(&mut self, ram: &mut Ram, breakpoints: &mut W, job: &mut J) {
        let (cpu, hw, code) = (&mut self.cpu, &mut self.hw, &self.code);
        if let Some(diag) = self.diag.as_deref_mut() {
            job.run(cpu, DiagBus::new(Bus::<true>::new(hw, ram, code), diag));
        } else if hw.reference() {
            breakpoints.run(job, cpu, Bus::<true>::new(hw, ram, code));
        } else if hw.dma_pending() {
            breakpoints.run(job, cpu, Bus::<false, DMA_BUS>::new_dma(hw, ram, code));
        } else {
            // The plain bus's runs stop at `Hardware::run_break` (a frame
            // end or a DMA start).
            hw.run_break = false;
            breakpoints.run(job, cpu, Bus::<false>::new(hw, ram, code));
        }
    }

    /// Run the CPU until `done` holds for the hardware, or a breakpoint of
    /// `breakpoints` stops it (then true). The bus is picked again whenever
    /// a fast run ends for the bus's sake (see [`Until`]).
    #[inline(always)]
    fn run_until<const FRAME: bool, W: Wrap>(
        &mut self,
        ram: &mut Ram,
        breakpoints: &mut W,
        done: impl FnMut(&Hardware) -> bool,
    ) -> bool {
        let mut job = Until::<_, FRAME>(done);
        loop {
            breakpoints.start_run();
            self.on_bus(ram, breakpoints, &mut job);
            if breakpoints.stopped() {
                return true;
            }
            if (job.0)(&self.hw) {
                return false;
            }
        }
    }

    /// What every frame starts with: no samples yet, drawing on or off.
    #[inline]
    pub(crate) fn begin_frame(&mut self, render: bool) {
        self.hw.frame_done = false;
        self.hw.run_break = false;
        self.hw.apu.clear_samples();
        self.hw.ppu.rendering = render;
    }

    /// Run the CPU until `done` holds for the hardware (looked at where
    /// [`Cpu::run_until`] looks at its condition) or, with `hooks`, until
    /// an instruction at a hooked address is about to run (then true).
    /// Runs on the path `run_frame` would take; hooks are ignored while a
    /// trace or fault is on (the diagnostic path has no breakpoints).
    pub(crate) fn run_cpu<T: Breakpoints>(
        &mut self,
        ram: &mut Ram,
        hooks: Option<&mut T>,
        done: impl FnMut(&Hardware) -> bool,
    ) -> bool {
        match hooks {
            Some(hooks) => self.run_until::<false, _>(ram, &mut HookWrap(hooks), done),
            None => self.run_until::<false, _>(ram, &mut NoBreakpoints, done),
        }
    }

    /// What every frame ends with: the frame count, timed button releases,
    /// the hardware caught up, the blank screen of an LCD that is off.
    #[inline]
    pub(crate) fn end_frame(&mut self, ram: &mut Ram, render: bool) {
        self.frame_count += 1;
        self.release_due_buttons();
        self.hw.sync(ram);
        if render && (!self.hw.ppu.lcd_on() || self.hw.ppu.blank_frame) {
            // A DMG with the LCD off shows a blank (white) screen, and so
            // does the first frame after the LCD is switched on (Pan Docs,
            // LCDC.7).
            self.hw.ppu.clear_frame();
        }
        self.hw.ppu.rendering = false;
    }

    /// The shades of the last rendered frame (0 = lightest .. 3 = darkest).
    pub fn frame_shades(&self) -> &[u8; PIXELS] {
        self.hw.ppu.frame()
    }

    /// Run exactly one CPU step (instruction, interrupt dispatch or halt
    /// idle); for tests and debuggers.
    pub fn step_instruction(&mut self, ram: &mut Ram) {
        self.on_bus(ram, &mut NoBreakpoints, &mut Step);
    }

    fn release_due_buttons(&mut self) {
        let mut pressed = self.hw.joypad.pressed;
        for (i, at) in self.release_at.iter_mut().enumerate() {
            if *at != 0 && self.frame_count >= *at {
                *at = 0;
                pressed &= !(1 << i);
            }
        }
        if pressed != self.hw.joypad.pressed {
            self.hw.set_buttons(pressed);
        }
    }

    pub fn press(&mut self, b: Button) {
        self.release_at[b.index()] = 0;
        let p = self.hw.joypad.pressed | 1 << b.index();
        self.hw.set_buttons(p);
    }

    pub fn release(&mut self, b: Button) {
        self.release_at[b.index()] = 0;
        let p = self.hw.joypad.pressed & !(1 << b.index());
        self.hw.set_buttons(p);
    }

    /// Press now and release after `frames` frames (at least 1).
    pub fn press_for(&mut self, b: Button, frames: u32) {
        self.press(b);
        self.release_at[b.index()] = self.frame_count + frames.max(1) as u64;
    }

    /// Set the held buttons as a bitmask (bit = [`Button`] discriminant).
    pub fn set_buttons(&mut self, mask: u8) {
        self.release_at = [0; 8];
        self.hw.set_buttons(mask);
    }

    /// The machine's state as sealed bytes (see [`crate::state`]), with
    /// the last drawn frame as its picture.
    pub fn state_bytes(&self, ram: &Ram) -> Vec<u8> {
        self.state_bytes_with(ram, self.frame_shades())
    }

    /// The machine's state as sealed bytes with `picture` as the screen it
    /// shows (a [`GameBoy`] saves its screen's last complete frame).
    pub fn state_bytes_with(&self, ram: &Ram, picture: &[u8; PIXELS]) -> Vec<u8> {
        let mut w = StateWriter::new();
        self.save(ram, picture, &mut w);
        w.into_sealed()
    }

    fn save(&self, ram: &Ram, picture: &[u8; PIXELS], w: &mut StateWriter) {
        w.raw(STATE_MAGIC);
        w.u32(STATE_VERSION);
        w.u64(self.hw.cart.rom_fingerprint());
        self.cpu.save(w);
        self.hw.save(w);
        w.begin_section(b"RAM ");
        w.raw(ram);
        w.end_section();
        w.begin_section(b"GB  ");
        w.u64(self.frame_count);
        for t in self.release_at {
            w.u64(t);
        }
        w.end_section();
        // The picture: its own section, so that other screen formats can
        // come as sections of their own.
        w.begin_section(b"SCRN");
        w.u8(PICTURE_DMG_SHADES);
        let mut coded = [0; MAX_PICTURE_BYTES];
        let n = encode_picture(picture, &mut coded);
        w.raw(&coded[..n]);
        w.end_section();
    }

    /// Load into scratch copies first so a bad state leaves `self` untouched.
    /// The state's picture becomes the PPU's frame (blank for a version 5
    /// state, which has none).
    pub fn load(&mut self, ram: &mut Ram, data: &[u8]) -> Result<()> {
        self.load_checked(ram, data, true)
    }

    /// [`Core::load`]; with `check_rom` false, a state saved while another
    /// ROM was running loads too, provided its cartridge has the same memory
    /// bank controller and RAM size (PyBoy's behaviour, for starting many
    /// ROMs from one state).
    pub fn load_checked(&mut self, ram: &mut Ram, data: &[u8], check_rom: bool) -> Result<()> {
        let mut r = StateReader::new(data);
        let magic = r.raw(8).map_err(|_| {
            Error::InvalidState(format!(
                "not an emurust state: {} bytes is too short for the header",
                data.len()
            ))
        })?;
        if magic != STATE_MAGIC {
            return Err(Error::InvalidState(
                "not an emurust state: bad magic bytes".into(),
            ));
        }
        let version = r.u32()?;
        if !(OLDEST_STATE_VERSION..=STATE_VERSION).contains(&version) {
            return Err(Error::InvalidState(format!(
                "state format version {version} is not supported (this build reads versions \
                 {OLDEST_STATE_VERSION} to {STATE_VERSION})"
            )));
        }
        // After the header (an old version is named, not called corrupt),
        // before any field is read.
        let mut r = StateReader::new(unseal(data)?);
        r.raw(STATE_MAGIC.len() + 4)?;
        let fp = r.u64()?;
        if check_rom && fp != self.hw.cart.rom_fingerprint() {
            return Err(Error::InvalidState(
                "state was saved with a different ROM (emurust.PyBoy loads it, as PyBoy \
                 does; GameBoy.load_state(state, check_rom=False) too)"
                    .into(),
            ));
        }
        r.other_rom_ok = !check_rom;
        let mut core = self.clone();
        core.cpu.load(&mut r)?;
        core.hw.load(&mut r)?;
        r.begin_section(b"RAM ")?;
        let new_ram = r.raw(RAM_SIZE)?;
        r.end_section()?;
        r.begin_section(b"GB  ")?;
        core.frame_count = r.u64()?;
        // As the hardware's clock (`Hardware::validate`): 2^60 frames is
        // far beyond any run, and the count must have room to grow.
        if core.frame_count > 1 << 60 {
            return Err(Error::InvalidState(format!(
                "corrupted state: frame count {} is implausible",
                core.frame_count
            )));
        }
        for t in core.release_at.iter_mut() {
            *t = r.u64()?;
        }
        r.end_section()?;
        if version >= 6 {
            r.begin_section(b"SCRN")?;
            let format = r.u8()?;
            if format != PICTURE_DMG_SHADES {
                return Err(Error::InvalidState(format!(
                    "corrupted state: picture format {format} is unknown"
                )));
            }
            let coded = r.raw(r.section_left())?;
            r.end_section()?;
            // Into the scratch copy's frame: a picture that does not decode
            // leaves `self` untouched like any other error.
            decode_picture(coded, core.hw.ppu.frame_to_replace()).ok_or_else(|| {
                Error::InvalidState("corrupted state: the picture does not decode".into())
            })?;
        } else {
            core.hw.ppu.clear_frame();
        }
        if r.remaining() != 0 {
            return Err(Error::InvalidState(format!(
                "corrupted state: {} unexpected trailing bytes",
                r.remaining()
            )));
        }
        *self = core;
        ram.copy_from_slice(new_ram);
        if let Some(c) = self.hw.cgb.as_deref_mut() {
            c.finish_load(ram);
        }
        Ok(())
    }
}

/// A complete emulator instance that owns its RAM.
#[derive(Clone)]
pub struct GameBoy {
    core: Core,
    ram: Box<Ram>,
    screen: Screen,
}

/// One machine, copied in memory: what [`GameBoy::snapshot`] and
/// `VecEngine::snapshot` give, and what a `VecEngine` starts its envs from
/// or restores.
#[derive(Clone)]
pub struct Snapshot {
    pub(crate) core: Core,
    pub(crate) ram: Box<Ram>,
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Snapshot {{ frame_count: {} }}", self.core.frame_count)
    }
}

impl Snapshot {
    /// A snapshot of a machine's core and RAM (its diagnostics, if any, are
    /// left behind).
    pub(crate) fn new(mut core: Core, ram: Box<Ram>) -> Snapshot {
        if let Some(diag) = core.diag.take() {
            core.hw.set_reference(diag.saved_reference);
        }
        Snapshot { core, ram }
    }

    /// Frames the machine had run when the snapshot was taken.
    pub fn frame_count(&self) -> u64 {
        self.core.frame_count
    }

    /// The machine state as bytes (as `VecEngine::save_state` gives it).
    pub fn save_state(&self) -> Vec<u8> {
        self.core.state_bytes(&self.ram)
    }

    /// Bytes of memory the snapshot holds.
    pub fn bytes(&self) -> usize {
        std::mem::size_of::<Snapshot>() + RAM_SIZE + core_heap_bytes(&self.core)
    }
}

/// Heap bytes a [`Core`] owns beside its inline size: VRAM, the PPU's
/// frame of shades and object-line table, cartridge RAM and the serial log.
/// (The ROM is shared and not counted.)
pub(crate) fn core_heap_bytes(core: &Core) -> usize {
    std::mem::size_of::<Core>()
        + core.hw.ppu.heap_bytes()
        + core.hw.cgb_heap_bytes()
        + core.hw.cart.battery_ram_len()
        + core.hw.serial.output.capacity()
}

/// Work for the bus [`Core::on_bus`] picks, generic over the bus: each bus
/// gets its own compiled loop.
trait BusJob {
    fn run<B: MachineBus>(&mut self, cpu: &mut Cpu, bus: B);
}

/// Run until `.0` holds for the hardware. On the fast buses the run also
/// ends when the bus must be picked again: the DMA bus's when the DMA is
/// over, the plain bus's at `Hardware::run_break` (a frame end or a DMA
/// start). With `FRAME`, `.0` is `frame_done`, which `run_break` covers, so
/// the plain bus's check stays one flag.
struct Until<F, const FRAME: bool>(F);

impl<F: FnMut(&Hardware) -> bool, const FRAME: bool> BusJob for Until<F, FRAME> {
    #[inline(always)]
    fn run<B: MachineBus>(&mut self, cpu: &mut Cpu, bus: B) {
        let done = &mut self.0;
        cpu.run_until(bus, |b| {
            let hw = b.hw();
            if B::REFERENCE {
                done(hw)
            } else if B::DMA {
                done(hw) || !hw.dma_pending()
            } else {
                hw.run_break || (!FRAME && done(hw))
            }
        });
    }
}

/// One CPU step.
struct Step;

impl BusJob for Step {
    #[inline(always)]
    fn run<B: MachineBus>(&mut self, cpu: &mut Cpu, mut bus: B) {
        cpu.step(&mut bus);
    }
}

/// What goes around the bus [`Core::on_bus`] picks: nothing
/// ([`NoBreakpoints`]) or a [`HookBus`] ([`HookWrap`]).
trait Wrap {
    fn run<J: BusJob, B: MachineBus>(&mut self, job: &mut J, cpu: &mut Cpu, bus: B);
    /// A run starts (see [`Breakpoints::start_run`]).
    fn start_run(&mut self);
    /// Whether the last run stopped at a breakpoint.
    fn stopped(&self) -> bool;
}

/// No breakpoints: the bus itself.
struct NoBreakpoints;

impl Wrap for NoBreakpoints {
    #[inline(always)]
    fn run<J: BusJob, B: MachineBus>(&mut self, job: &mut J, cpu: &mut Cpu, bus: B) {
        job.run(cpu, bus);
    }
    #[inline(always)]
    fn start_run(&mut self) {}
    #[inline(always)]
    fn stopped(&self) -> bool {
        false
    }
}

/// The bus in a [`HookBus`] with these breakpoints.
struct HookWrap<'h, T>(&'h mut T);

impl<T: Breakpoints> Wrap for HookWrap<'_, T> {
    #[inline(always)]
    fn run<J: BusJob, B: MachineBus>(&mut self, job: &mut J, cpu: &mut Cpu, bus: B) {
        job.run(cpu, HookBus::new(bus, &mut *self.0));
    }
    #[inline(always)]
    fn start_run(&mut self) {
        self.0.start_run();
    }
    #[inline(always)]
    fn stopped(&self) -> bool {
        self.0.stopped()
    }
}

impl GameBoy {
    /// A DMG running `rom` (see [`GameBoy::with_model`]).
    pub fn new(rom: &[u8], boot_rom: Option<&[u8]>) -> Result<GameBoy> {
        Self::with_model(rom, boot_rom, Model::Dmg)
    }

    /// A `model` running `rom` ([`Model::auto`] picks one from the header).
    pub fn with_model(rom: &[u8], boot_rom: Option<&[u8]>, model: Model) -> Result<GameBoy> {
        check_rom_size(rom.len())?;
        Self::from_shared_model(Arc::from(rom), boot_rom, model)
    }

    /// Build from ROM bytes shared with other instances.
    pub fn from_shared(rom: Arc<[u8]>, boot_rom: Option<&[u8]>) -> Result<GameBoy> {
        Self::from_shared_model(rom, boot_rom, Model::Dmg)
    }

    /// [`GameBoy::from_shared`] for any model.
    pub fn from_shared_model(
        rom: Arc<[u8]>,
        boot_rom: Option<&[u8]>,
        model: Model,
    ) -> Result<GameBoy> {
        let core = Core::with_model(rom, boot_rom, model)?;
        Ok(GameBoy {
            core,
            ram: Box::new([0; RAM_SIZE]),
            screen: Screen::new(),
        })
    }

    /// The model this machine is.
    pub fn model(&self) -> Model {
        self.core.hw.model()
    }

    /// Use the slow reference path (every component stepped every M-cycle).
    /// While a trace or a fault is on the machine stays on the reference
    /// path; the setting applies once both are off again.
    pub fn set_reference_mode(&mut self, on: bool) {
        if let Some(diag) = self.core.diag.as_deref_mut() {
            diag.saved_reference = on;
            return;
        }
        self.core.hw.set_reference(on);
        self.core.hw.sync(&self.ram);
    }

    /// Whether the machine runs on the reference path now (always while a
    /// trace or a fault is on).
    pub fn reference_mode(&self) -> bool {
        self.core.hw.reference()
    }

    /// The diagnostic state, switched on (reference path) if needed.
    fn diag_on(&mut self) -> &mut Diagnostics {
        if self.core.diag.is_none() {
            let saved = self.core.hw.reference();
            self.set_reference_mode(true);
            self.core.diag = Some(Box::new(Diagnostics::new(saved)));
        }
        self.core.diag.get_or_insert_with(Default::default)
    }

    /// Back to the plain paths once neither a trace nor a fault is on.
    fn diag_off_if_idle(&mut self) {
        if let Some(diag) = self.core.diag.take_if(|d| d.idle()) {
            self.set_reference_mode(diag.saved_reference);
        }
    }

    /// Record the last `capacity` CPU steps ([`GameBoy::trace`]); 0 turns the
    /// trace off. A verification aid: while it is on the machine runs on the
    /// reference path (same results, several times slower); turning it off
    /// restores the previous [`GameBoy::set_reference_mode`] setting. The fast
    /// path is compiled without any trace code. Not part of save states.
    pub fn set_trace(&mut self, capacity: usize) {
        if capacity == 0 && self.core.diag.is_none() {
            return;
        }
        self.diag_on().set_capacity(capacity);
        self.diag_off_if_idle();
    }

    /// The traced steps, oldest first (empty while the trace is off).
    pub fn trace(&self) -> Vec<TraceEntry> {
        match &self.core.diag {
            Some(diag) => diag.entries().copied().collect(),
            None => Vec::new(),
        }
    }

    /// Test-only fault injection, a verification aid: `Some(fault)` makes
    /// the CPU deliberately wrong (see [`Fault`]) so that a differential
    /// harness can prove it catches the bug; `None` removes it. Like the
    /// trace, a fault runs on the reference path only: the fast path has no
    /// fault code.
    pub fn inject_fault(&mut self, fault: Option<Fault>) {
        if fault.is_none() && self.core.diag.is_none() {
            return;
        }
        self.diag_on().set_fault(fault);
        self.diag_off_if_idle();
    }

    /// The injected fault, if any.
    pub fn fault(&self) -> Option<Fault> {
        self.core.diag.as_ref().and_then(|d| d.fault())
    }

    /// Run single CPU steps on the reference path (exact halts, no
    /// fast-forward) until the clock reaches `target` T-cycles, stopping
    /// early when a frame ends on the way. Returns whether `target` was
    /// reached. A verification aid: it pairs this machine with another
    /// emulator whose frames end elsewhere (PyBoy's at LY 153 -> 0). Frame
    /// bookkeeping (frame count, timed button releases, the blank-frame fill)
    /// is left to the next [`GameBoy::run_frame`], which finishes the frame.
    pub fn step_to_cycle(&mut self, target: u64) -> bool {
        let reference = self.core.hw.reference();
        if !reference {
            self.set_reference_mode(true);
        }
        self.core.hw.frame_done = false;
        let mut reached = true;
        while self.core.hw.now < target {
            self.core.step_instruction(&mut self.ram);
            if self.core.hw.frame_done {
                reached = self.core.hw.now >= target;
                break;
            }
        }
        if !reference {
            self.set_reference_mode(false);
        }
        reached
    }

    /// Run one frame; with `render` its pixels are drawn and the screen
    /// buffers hold it afterwards. Timing and state do not depend on `render`.
    pub fn run_frame(&mut self, render: bool) {
        self.core.run_frame(&mut self.ram, render);
        if render {
            self.screen.show(&self.core.hw.ppu);
        }
    }

    /// Run `n` frames, drawing only the last one when `render` is set.
    pub fn run_frames(&mut self, n: u64, render: bool) {
        for i in 0..n {
            self.run_frame(render && i + 1 == n);
        }
    }

    /// The machine's parts, for the PyBoy-compatibility modules
    /// (`crate::pyboy::hooks`, `crate::pyboy::state`).
    pub(crate) fn parts_mut(&mut self) -> (&mut Core, &mut Ram, &mut Screen) {
        (&mut self.core, &mut self.ram, &mut self.screen)
    }

    /// The last rendered frame (shades, RGB and grey buffers).
    pub fn screen(&self) -> &Screen {
        &self.screen
    }

    /// Choose which derived screen buffers (RGB, grey) rendering keeps up to
    /// date; see [`Screen::set_formats`].
    pub fn set_screen_formats(&mut self, rgb: bool, gray: bool) {
        self.screen.set_formats(rgb, gray);
    }

    /// How a CGB's colours become RGB (default: PyBoy's `x << 3`).
    pub fn set_color_conversion(&mut self, conversion: crate::screen::ColorConversion) {
        self.screen.set_color_conversion(conversion);
    }

    /// Colours of the four shades (default: the DMG greys FF/AA/55/00).
    pub fn set_palette(&mut self, palette: [[u8; 3]; 4]) {
        self.screen.set_palette(palette);
    }

    pub fn step_instruction(&mut self) {
        self.core.step_instruction(&mut self.ram);
    }

    pub fn frame_count(&self) -> u64 {
        self.core.frame_count
    }

    pub fn cycles(&self) -> u64 {
        self.core.hw.now
    }

    pub fn registers(&self) -> Registers {
        self.core.cpu.registers()
    }

    /// Overwrite the CPU registers (a debugger write; F keeps its high nibble).
    pub fn set_registers(&mut self, r: Registers) {
        self.core.cpu.set_registers(r);
    }

    pub fn cpu(&self) -> &Cpu {
        &self.core.cpu
    }

    pub fn peek(&self, addr: u16) -> u8 {
        self.core.hw.peek(&self.ram, addr)
    }

    pub fn poke(&mut self, addr: u16, value: u8) {
        self.core.hw.poke(&mut self.ram, addr, value);
    }

    /// Overwrite ROM bytes from file offset `offset` (a patch, as PyBoy's
    /// `memory[bank, addr] = v`): this machine gets its own copy of the ROM
    /// with its straight-line runs recomputed, so the CPU reads the patched
    /// bytes on every path; other machines keep the original. The state
    /// check still uses the fingerprint of the ROM first loaded.
    pub fn patch_rom(&mut self, offset: usize, data: &[u8]) -> Result<()> {
        let rom = self.core.hw.cart.rom();
        let end = offset.checked_add(data.len()).filter(|&e| e <= rom.len());
        let Some(end) = end else {
            return Err(Error::InvalidArgument(format!(
                "ROM patch of {} bytes at offset {offset:#x} is outside the {}-byte ROM",
                data.len(),
                rom.len()
            )));
        };
        if rom[offset..end] == *data {
            return Ok(());
        }
        let mut bytes = rom.to_vec();
        bytes[offset..end].copy_from_slice(data);
        let code = Code::shared(&Arc::from(bytes));
        self.core.hw.cart.replace_rom(code.rom.clone());
        self.core.code = code;
        Ok(())
    }

    /// Overwrite boot ROM bytes from `offset` (this machine's copy).
    pub fn patch_boot_rom(&mut self, offset: usize, data: &[u8]) -> Result<()> {
        let Some(len) = self.core.hw.boot_rom().map(<[u8]>::len) else {
            return Err(Error::InvalidArgument(
                "this machine has no boot ROM to patch".into(),
            ));
        };
        if !self.core.hw.patch_boot_rom(offset, data) {
            return Err(Error::InvalidArgument(format!(
                "boot ROM patch of {} bytes at offset {offset:#x} is outside its {len} bytes",
                data.len()
            )));
        }
        Ok(())
    }

    /// Bring every component up to the clock, so that [`GameBoy::peek`]
    /// reads the registers as they are now (the machine stopped inside a
    /// frame, e.g. at a hook).
    pub fn catch_up(&mut self) {
        self.core.hw.catch_up(&self.ram);
    }

    /// Keep (or stop keeping) the scroll and window registers each line was
    /// drawn with, for [`GameBoy::line_registers`] (off by default).
    pub fn record_line_registers(&mut self, on: bool) {
        self.core.hw.ppu.record_line_registers(on);
    }

    /// SCX, SCY, WX, WY of each of the 144 visible lines as last drawn (the
    /// current frame's lines drawn so far, the previous frame's others), or
    /// `None` if not recording.
    pub fn line_registers(&mut self) -> Option<Vec<[u8; 4]>> {
        self.core.hw.line_registers(&self.ram)
    }

    /// The boot ROM's bytes, if the machine has one.
    pub fn boot_rom(&self) -> Option<&[u8]> {
        self.core.hw.boot_rom()
    }

    /// Set DIV (the high byte of the timer's 16-bit system counter; the low
    /// byte is kept) with no side effect of the jump.
    pub fn set_div(&mut self, value: u8) {
        let hw = &mut self.core.hw;
        let low = hw.timer.system_counter(hw.now) & 0xFF;
        hw.set_system_counter((value as u16) << 8 | low);
    }

    pub fn ram(&self) -> &Ram {
        &self.ram
    }

    pub fn press(&mut self, b: Button) {
        self.core.press(b);
    }

    pub fn release(&mut self, b: Button) {
        self.core.release(b);
    }

    pub fn press_for(&mut self, b: Button, frames: u32) {
        self.core.press_for(b, frames);
    }

    pub fn set_buttons(&mut self, mask: u8) {
        self.core.set_buttons(mask);
    }

    pub fn serial_output(&self) -> &[u8] {
        &self.core.hw.serial.output
    }

    pub fn cartridge(&self) -> &Cartridge {
        &self.core.hw.cart
    }

    /// Mutable access to the hardware (tests and calibration).
    pub fn hardware_mut(&mut self) -> &mut Hardware {
        &mut self.core.hw
    }

    pub fn hardware(&self) -> &Hardware {
        &self.core.hw
    }

    /// Feature `jit`: whether this machine's fast path runs compiled
    /// blocks (on by default; off: the interpreter alone, for comparisons).
    #[cfg(feature = "jit")]
    pub fn set_jit(&mut self, on: bool) {
        self.core.hw.no_jit = !on;
    }

    /// Feature `jit`: whether this machine's ROM code is compiled on a
    /// background thread (the default: the interpreter runs it meanwhile)
    /// or on the thread that first wants it (tests that look for blocks at
    /// given places; measurements). It holds for every machine running the
    /// same ROM (the compiled code is shared); the emulation is the same
    /// either way.
    #[cfg(feature = "jit")]
    pub fn set_jit_background(&self, on: bool) {
        if let Some(j) = self.core.code.jit.as_ref() {
            j.set_background(on);
        }
    }

    /// Feature `jit`: compile code once the engine has looked for its block
    /// `looks` times (`emurust::jit::HOT` by default, weighed against the
    /// cost of a compile; 0: the first time). It holds for every machine
    /// running the same ROM; the emulation is the same either way.
    #[cfg(feature = "jit")]
    pub fn set_jit_hot(&self, looks: u32) {
        if let Some(j) = self.core.code.jit.as_ref() {
            j.set_hot(looks);
        }
    }

    /// What the block compiler (feature `jit`) did so far for this
    /// machine's ROM (shared by every machine running it): `None` where
    /// the JIT is off (no backend, `EMURUST_JIT=0`).
    #[cfg(feature = "jit")]
    pub fn jit_stats(&self) -> Option<crate::jit::JitStats> {
        self.core.code.jit.as_ref().map(|j| j.stats())
    }

    /// Feature `jit`, for tests: how many blocks were compiled at `addr` as
    /// mapped now: 0 or 1 in ROM (the bank mapped there), one per version
    /// of the code in work RAM (0xC000-0xDFFF); 0 elsewhere or with the JIT
    /// off.
    #[cfg(feature = "jit")]
    pub fn jit_blocks_at(&self, addr: u16) -> usize {
        let Some(jit) = self.core.code.jit.as_ref() else {
            return 0;
        };
        match addr {
            0..=0x7FFF => jit.compiled_at(self.core.hw.cart.rom_offset(addr)) as usize,
            0xC000..=0xDFFF => jit.wram_versions(addr),
            _ => 0,
        }
    }

    /// The cartridge's external RAM as a battery would keep it (for MBC3
    /// with a clock, followed by the RTC block; see `Cartridge::battery_ram`).
    pub fn cartridge_ram(&self) -> Vec<u8> {
        self.core.hw.cart.battery_ram()
    }

    /// Replace the cartridge RAM (a `.sav` file's bytes); the length must match.
    pub fn load_cartridge_ram(&mut self, data: &[u8]) -> Result<()> {
        self.core.hw.cart.load_battery_ram(data)
    }

    pub fn warnings(&self) -> &[String] {
        self.core.hw.cart.warnings()
    }

    /// Bytes of memory this instance owns: the machine state, VRAM, WRAM and
    /// HRAM, cartridge RAM and the serial log. The ROM is shared (`Arc`) and
    /// not counted.
    pub fn instance_bytes(&self) -> usize {
        std::mem::size_of::<GameBoy>()
            + std::mem::size_of::<Core>()
            + std::mem::size_of::<Ram>()
            + self.core.hw.ppu.heap_bytes()
            + self.core.hw.cgb_heap_bytes()
            + self.screen.bytes()
            + self.core.hw.cart.battery_ram_len()
            + self.core.hw.serial.output.capacity()
    }

    /// An in-memory copy of the machine, last drawn frame included, that a
    /// [`crate::vec::VecEngine`] can start its envs from or restore.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot::new(self.core.clone(), self.ram.clone())
    }

    /// The machine's state, with the screen's last complete frame as its
    /// picture.
    pub fn save_state(&self) -> Vec<u8> {
        self.core.state_bytes_with(&self.ram, self.screen.shades())
    }

    /// [`GameBoy::save_state`] with a blank picture: the machine alone,
    /// whatever it last drew (to compare machines rendered differently).
    pub fn machine_state(&self) -> Vec<u8> {
        static BLANK: [u8; PIXELS] = [0; PIXELS];
        self.core.state_bytes_with(&self.ram, &BLANK)
    }

    /// Load a state; the screen shows the state's picture at once.
    pub fn load_state(&mut self, data: &[u8]) -> Result<()> {
        self.load_state_checked(data, true)
    }

    /// [`GameBoy::load_state`]; with `check_rom` false, also a state saved
    /// with another ROM whose cartridge has the same MBC and RAM size.
    pub fn load_state_checked(&mut self, data: &[u8], check_rom: bool) -> Result<()> {
        self.core.load_checked(&mut self.ram, data, check_rom)?;
        self.screen.update(self.core.hw.ppu.frame());
        if let Some(diag) = self.core.diag.as_deref_mut() {
            diag.clear(); // the trace does not lead up to the loaded state
        }
        Ok(())
    }
}

/// Sound output (the APU itself always runs; this only adds samples).
impl GameBoy {
    /// Turn sample output on at `sample_rate` Hz (8000..=192000) or off
    /// (`None`, the default). While on, [`GameBoy::sound_samples`] holds the
    /// samples of the last frame run.
    pub fn set_sound_output(&mut self, sample_rate: Option<u32>) -> Result<()> {
        let hw = &mut self.core.hw;
        let counter = hw.timer.system_counter(hw.now);
        hw.apu.catch_up(hw.now, counter);
        hw.apu.set_sample_rate(sample_rate)
    }

    /// The sample rate in Hz, or None while sample output is off.
    pub fn sound_sample_rate(&self) -> Option<u32> {
        self.core.hw.apu.sample_rate()
    }

    /// Interleaved stereo samples (L, R, L, R...), signed 8-bit, produced
    /// during the most recent frame: `run_frame` clears them first, so after
    /// `run_frames(n)` they are the last frame's (like PyBoy's `tick(n)`).
    /// Each channel contributes 0..=15 to the sides NR51 routes it to, as in
    /// PyBoy 2.8.1's `sound.ndarray`. Empty while sample output is off.
    pub fn sound_samples(&self) -> &[i8] {
        self.core.hw.apu.samples()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cartridge::header::NINTENDO_LOGO;
    use crate::state::{reseal, CHECKSUM_LEN};

    /// A ROM-only cartridge that loops at 0x0150; its header logo, which the
    /// post-boot VRAM holds, is on screen.
    fn logo_rom() -> Vec<u8> {
        let mut rom = vec![0u8; 0x8000];
        rom[0x100..0x103].copy_from_slice(&[0xC3, 0x50, 0x01]);
        rom[0x104..0x134].copy_from_slice(&NINTENDO_LOGO);
        rom[0x150..0x152].copy_from_slice(&[0x18, 0xFE]);
        rom
    }

    /// `state` as version 5 wrote it: no `SCRN` section.
    fn as_version_5(state: &[u8]) -> Vec<u8> {
        let body = &state[..state.len() - CHECKSUM_LEN];
        let at = body
            .windows(4)
            .rposition(|w| w == b"SCRN")
            .expect("a picture section");
        let mut old = body[..at].to_vec();
        old[8..12].copy_from_slice(&5u32.to_le_bytes());
        old.extend_from_slice(&[0; CHECKSUM_LEN]);
        reseal(&old).unwrap()
    }

    #[test]
    fn a_state_brings_back_its_picture() {
        let mut gb = GameBoy::new(&logo_rom(), None).unwrap();
        gb.run_frames(3, true);
        let picture = *gb.screen().shades();
        assert!(picture.iter().any(|&s| s != 0), "the logo is drawn");
        let state = gb.save_state();
        let mut other = GameBoy::new(&logo_rom(), None).unwrap();
        other.poke(0xFF47, 0x00); // BGP: every shade 0, a blank screen from now on
        other.run_frames(2, true);
        assert!(other.screen().shades().iter().all(|&s| s == 0));
        other.load_state(&state).unwrap();
        assert_eq!(other.screen().shades()[..], picture[..], "the screen");
        assert_eq!(
            other.core.frame_shades()[..],
            picture[..],
            "the PPU's frame"
        );
        assert_eq!(other.screen().gray(), gb.screen().gray());
        assert_eq!(other.screen().rgb()[..], gb.screen().rgb()[..]);
        assert!(other.save_state() == state, "the same bytes again");
        // A state of a machine that drew no frame shows a blank screen.
        let headless = GameBoy::new(&logo_rom(), None).unwrap();
        other.load_state(&headless.save_state()).unwrap();
        assert!(other.screen().shades().iter().all(|&s| s == 0));
    }

    #[test]
    fn version_5_states_load_with_a_blank_picture() {
        let mut gb = GameBoy::new(&logo_rom(), None).unwrap();
        gb.run_frames(3, true);
        let state = gb.save_state();
        let old = as_version_5(&state);
        let mut other = GameBoy::new(&logo_rom(), None).unwrap();
        other.run_frames(1, true);
        other.load_state(&old).unwrap();
        assert!(other.screen().shades().iter().all(|&s| s == 0));
        assert_eq!(other.frame_count(), 3);
        assert_eq!(other.registers(), gb.registers());
        // Saved again, it is a version 6 state of the same machine.
        let again = other.save_state();
        assert_eq!(&again[8..12], &STATE_VERSION.to_le_bytes());
        assert!(as_version_5(&again) == old);
        // Version 4 and 7 are refused by number.
        for v in [4u32, 7] {
            let mut bad = state.clone();
            bad[8..12].copy_from_slice(&v.to_le_bytes());
            let bad = reseal(&bad).unwrap();
            let err = other.load_state(&bad).unwrap_err().to_string();
            assert!(err.contains(&format!("version {v}")), "{err}");
        }
    }

    #[test]
    fn a_damaged_picture_is_refused_and_changes_nothing() {
        let mut gb = GameBoy::new(&logo_rom(), None).unwrap();
        gb.run_frames(3, true);
        let state = gb.save_state();
        let body = state.len() - CHECKSUM_LEN;
        let at = state.windows(4).rposition(|w| w == b"SCRN").unwrap();
        let mut fresh = GameBoy::new(&logo_rom(), None).unwrap();
        let before = fresh.save_state();
        // An unknown picture format; a coded picture one byte short (its
        // section says so too); both sealed again, so only the decoder sees it.
        let mut unknown = state.clone();
        unknown[at + 8] = 2;
        let mut short = state[..body - 1].to_vec();
        let len = u32::from_le_bytes(short[at + 4..at + 8].try_into().unwrap()) - 1;
        short[at + 4..at + 8].copy_from_slice(&len.to_le_bytes());
        short.extend_from_slice(&[0; CHECKSUM_LEN]);
        for bad in [unknown, short] {
            let err = fresh.load_state(&reseal(&bad).unwrap()).unwrap_err();
            assert!(err.to_string().contains("picture"), "{err}");
            assert!(fresh.save_state() == before);
        }
    }
}
