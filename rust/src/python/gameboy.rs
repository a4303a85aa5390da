//! `emurust._core.GameBoy`: one machine (DMG or CGB), its screen views,
//! save states, the entry points of `emurust.PyBoy` (PyBoy compatibility)
//! and the verification aids.

use std::sync::{Mutex, MutexGuard};

use numpy::{PyArray1, PyArrayDyn, PyArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use super::args::{button_arg, bytes_or_bytearray, frames_arg, int_arg, type_name};
use super::buffers::{self, ScreenBuffer, ViewCache};
use super::errors::{
    core_error, error_of_type, internal_error, invalid_argument, no_panic, sound_off_type,
    InvalidRomError,
};
use super::memory::PyMemory;
#[cfg(feature = "testing")]
use super::testing;
use super::{vec, MAX_ROM_SIZE};
use crate::cpu::Fault;
use crate::pyboy::hooks::{HookTable, PyBoyFrame};
use crate::screen::ColorConversion;
use crate::{GameBoy, Model, Registers};

/// One (r, g, b) palette colour as Python sees it.
type Colour = (u8, u8, u8);
/// `tick` re-attaches to the interpreter every this many frames to check for
/// signals, so Ctrl-C interrupts a long run (at a frame boundary).
const FRAMES_PER_SIGNAL_CHECK: u64 = 60;

struct Core {
    gb: GameBoy,
    /// Set when a call panicked: the message, and the instance is unusable.
    broken: Option<String>,
    /// PC hooks of `emurust.PyBoy` and its frame stopped at one (`pyboy/hooks.rs`).
    hooks: HookTable,
}

impl Core {
    fn usable(&self) -> PyResult<()> {
        match &self.broken {
            Some(msg) => Err(internal_error(msg)),
            None => Ok(()),
        }
    }

    /// Runs `f` on the emulator; a panic marks the instance broken.
    fn run<R>(&mut self, f: impl FnOnce(&mut GameBoy) -> R) -> PyResult<R> {
        self.usable()?;
        let gb = &mut self.gb;
        no_panic(|| f(gb)).map_err(|msg| {
            let err = internal_error(&msg);
            self.broken = Some(msg);
            err
        })
    }
}

/// Switch on the RGB and/or grey conversion of rendered frames (they start
/// off: a frame is converted only into the formats someone has looked at).
fn want_format(slf: &Bound<'_, PyGameBoy>, rgb: bool, gray: bool) -> PyResult<()> {
    let (has_rgb, has_gray) = slf.try_borrow()?.read(|gb| gb.screen().formats())?;
    if (rgb && !has_rgb) || (gray && !has_gray) {
        slf.try_borrow_mut()?
            .write(|gb| gb.set_screen_formats(rgb || has_rgb, gray || has_gray))?;
    }
    Ok(())
}

/// A Game Boy (DMG). The public `emurust.GameBoy` subclasses this class and
/// accepts ROM paths; this one takes the ROM image as `bytes`.
#[pyclass(module = "emurust._core", name = "GameBoy", subclass, weakref)]
pub struct PyGameBoy {
    // A `Mutex` makes the class `Sync` as `#[pyclass]` requires whatever the
    // core holds; `&mut self` methods use `get_mut`, which does not lock.
    // NumPy views point into the `GameBoy`'s screen buffers: it must never
    // be replaced or dropped while `self` lives (see `buffers`).
    core: Mutex<Core>,
    /// The screen arrays handed out (weakly held).
    pub(super) views: ViewCache,
}

impl PyGameBoy {
    fn lock(&self) -> PyResult<MutexGuard<'_, Core>> {
        self.core
            .lock()
            .map_err(|_| internal_error("emulator lock poisoned"))
    }

    fn core_mut(&mut self) -> PyResult<&mut Core> {
        self.core
            .get_mut()
            .map_err(|_| internal_error("emulator lock poisoned"))
    }

    /// Read-only access to the emulator.
    pub(super) fn read<R>(&self, f: impl FnOnce(&GameBoy) -> R) -> PyResult<R> {
        self.lock()?.run(|gb| f(gb))
    }

    /// Mutable access to the emulator.
    pub(super) fn write<R>(&mut self, f: impl FnOnce(&mut GameBoy) -> R) -> PyResult<R> {
        self.core_mut()?.run(f)
    }

    /// The test aids' edit: `edit` rewrites this machine's save state (None:
    /// the state's layout is not the one expected; the machine is then left
    /// unchanged) and the edited state is loaded as `load_state` loads one.
    #[cfg(feature = "testing")]
    fn edit_state<T>(
        &mut self,
        py: Python<'_>,
        edit: impl FnOnce(&[u8]) -> Option<(Vec<u8>, T)>,
    ) -> PyResult<Option<T>> {
        let state = self.read(|gb| gb.save_state())?;
        let Some((edited, out)) = edit(&state) else {
            return Ok(None);
        };
        self.core_mut()?.hooks.clear_stop(); // as load_state does
        self.write(|gb| gb.load_state(&edited))?
            .map_err(|e| core_error(py, e))?;
        Ok(Some(out))
    }
}

/// The 8-bit registers `a` .. `l` as items of `d` (`GameBoy.registers`, the
/// trace's entries).
fn set_registers_8bit(d: &Bound<'_, PyDict>, r: &crate::cpu::Registers) -> PyResult<()> {
    for (name, value) in [
        ("a", r.a),
        ("f", r.f),
        ("b", r.b),
        ("c", r.c),
        ("d", r.d),
        ("e", r.e),
        ("h", r.h),
        ("l", r.l),
    ] {
        d.set_item(name, value)?;
    }
    Ok(())
}

/// "vram" or "wram" (the banked regions of `GameBoy._read_bank`).
fn banked_region(py: Python<'_>, name: &str) -> PyResult<crate::cgb::BankedRegion> {
    match name {
        "vram" => Ok(crate::cgb::BankedRegion::Vram),
        "wram" => Ok(crate::cgb::BankedRegion::Wram),
        _ => Err(invalid_argument(
            py,
            format!("region must be \"vram\" or \"wram\", got {name:?}"),
        )),
    }
}

#[pymethods]
impl PyGameBoy {
    /// Creates a Game Boy running `rom` (the cartridge image as bytes).
    ///
    /// Without `boot_rom` the machine starts in the documented post-boot state;
    /// with one (exactly 256 bytes for the DMG, 2,304 for the CGB) it starts
    /// at 0x0000 in the boot ROM.
    /// `model`: "dmg" (the default), "cgb" or "auto" (the CGB for a
    /// cartridge whose header byte 0x143 has bit 7 set).
    #[new]
    #[pyo3(signature = (rom, boot_rom = None, model = "dmg"))]
    fn new(
        py: Python<'_>,
        rom: &Bound<'_, PyAny>,
        boot_rom: Option<&Bound<'_, PyAny>>,
        model: &str,
    ) -> PyResult<Self> {
        let rom = rom.cast::<PyBytes>().map_err(|_| {
            PyTypeError::new_err(format!("rom must be bytes, not {}", type_name(rom)))
        })?;
        let rom = rom.as_bytes();
        if rom.len() > MAX_ROM_SIZE {
            return Err(InvalidRomError::new_err(format!(
                "ROM is {} bytes; the largest Game Boy ROM is {MAX_ROM_SIZE} bytes (8 MiB)",
                rom.len()
            )));
        }
        let boot = match boot_rom {
            None => None,
            Some(b) => {
                let b = b.cast::<PyBytes>().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "boot_rom must be bytes or None, not {}",
                        type_name(b)
                    ))
                })?;
                // Its size for the model is checked by the core.
                Some(b.as_bytes())
            }
        };
        let model = Model::from_name(model, rom).map_err(|e| core_error(py, e))?;
        let built = no_panic(|| GameBoy::with_model(rom, boot, model))
            .map_err(|msg| internal_error(&msg))?;
        let mut gb = built.map_err(|e| core_error(py, e))?;
        // RGB and grey are converted only once someone has asked for them.
        gb.set_screen_formats(false, false);
        Ok(PyGameBoy {
            core: Mutex::new(Core {
                gb,
                broken: None,
                hooks: HookTable::new(),
            }),
            views: ViewCache::default(),
        })
    }

    /// Runs `frames` frames (a frame ends at the start of VBlank, or after
    /// 70224 T-cycles while the LCD is off) with the interpreter lock
    /// released. `render=False` skips drawing pixels. Returns True.
    #[pyo3(signature = (frames = None, render = true), text_signature = "(self, frames=1, render=True)")]
    fn tick(
        &mut self,
        py: Python<'_>,
        frames: Option<&Bound<'_, PyAny>>,
        render: bool,
    ) -> PyResult<bool> {
        let mut left = match frames {
            None => 1,
            Some(f) => frames_arg(f, 0, i64::MAX)? as u64,
        };
        let core = self.core_mut()?;
        core.usable()?;
        while left > 0 {
            let n = left.min(FRAMES_PER_SIGNAL_CHECK);
            let gb = &mut core.gb;
            // Only the last frame of the call is drawn (as PyBoy does).
            let last_chunk = left == n;
            let ran = py.detach(|| {
                no_panic(|| {
                    for i in 0..n {
                        gb.run_frame(render && last_chunk && i + 1 == n);
                    }
                })
            });
            if let Err(msg) = ran {
                let err = internal_error(&msg);
                core.broken = Some(msg);
                return Err(err);
            }
            left -= n;
            if left > 0 {
                py.check_signals()?;
            }
        }
        Ok(true)
    }

    /// Frames completed since power-on.
    #[getter]
    fn frame_count(&self) -> PyResult<u64> {
        self.read(|gb| gb.frame_count())
    }

    /// T-cycles (4.194304 MHz clock ticks) since power-on.
    #[getter]
    fn cycles(&self) -> PyResult<u64> {
        self.read(|gb| gb.cycles())
    }

    /// CPU registers as a dict: a f b c d e h l (0..=255) and sp pc (0..=65535).
    #[getter]
    fn registers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let r = self.read(|gb| gb.registers())?;
        let d = PyDict::new(py);
        set_registers_8bit(&d, &r)?;
        d.set_item("sp", r.sp)?;
        d.set_item("pc", r.pc)?;
        Ok(d)
    }

    /// The 64 KiB address space: `memory[addr]` reads without side effects,
    /// `memory[addr] = v` writes through the bus; slices take and give bytes.
    #[getter]
    fn memory(slf: &Bound<'_, Self>) -> PyMemory {
        PyMemory {
            gb: slf.clone().unbind(),
        }
    }

    /// Every byte sent out of the serial port so far.
    #[getter]
    fn serial_output<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let guard = self.lock()?;
        guard.usable()?;
        Ok(PyBytes::new(py, guard.gb.serial_output()))
    }

    /// The title from the cartridge header.
    #[getter]
    fn cartridge_title(&self) -> PyResult<String> {
        self.read(|gb| gb.cartridge().title().to_owned())
    }

    /// The cartridge type byte (header 0x147).
    #[getter]
    fn cartridge_type(&self) -> PyResult<u8> {
        self.read(|gb| gb.cartridge().cartridge_type())
    }

    /// The cartridge type's name ("ROM ONLY", "MBC1+RAM+BATTERY"...).
    #[getter]
    fn cartridge_type_name(&self) -> PyResult<&'static str> {
        self.read(|gb| gb.cartridge().type_name())
    }

    /// Warnings from loading the ROM (bad header checksum...).
    #[getter]
    fn warnings(&self) -> PyResult<Vec<String>> {
        self.read(|gb| gb.warnings().to_vec())
    }

    /// Bytes of memory this instance owns (machine state, VRAM, WRAM/HRAM,
    /// cartridge RAM, serial log); the ROM is shared and not counted.
    #[getter]
    fn instance_bytes(&self) -> PyResult<usize> {
        self.read(|gb| gb.instance_bytes())
    }

    /// The last rendered frame as RGB, a read-only (144, 160, 3) uint8 NumPy
    /// array viewing the emulator's own buffer: no copy, updated in place by
    /// every rendering `tick` and by setting `palette`.
    #[getter]
    fn screen<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyArrayDyn<u8>>> {
        want_format(slf, true, false)?;
        buffers::view(slf, ScreenBuffer::Rgb)
    }

    /// The last rendered frame as shades 0..=3 (0 = lightest), a read-only
    /// (144, 160) uint8 view like `screen`.
    #[getter]
    fn screen_shades<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyArrayDyn<u8>>> {
        buffers::view(slf, ScreenBuffer::Shades)
    }

    /// The last rendered frame as grey levels (the luma of the palette
    /// colours), a read-only (144, 160) uint8 view like `screen`.
    #[getter]
    fn screen_gray<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyArrayDyn<u8>>> {
        want_format(slf, false, true)?;
        buffers::view(slf, ScreenBuffer::Gray)
    }

    /// The machine: "dmg" or "cgb" (fixed when it was created).
    #[getter]
    fn model(&self) -> PyResult<&'static str> {
        self.read(|gb| gb.model().name())
    }

    /// Whether this is a CGB in CGB mode (False on a DMG, and on a CGB
    /// running a DMG cartridge in compatibility mode).
    #[getter]
    fn cgb_mode(&self) -> PyResult<bool> {
        self.read(|gb| gb.hardware().cgb_mode())
    }

    /// How a CGB's 15-bit colours become RGB: "pyboy" (x << 3, as PyBoy;
    /// the default), "full" ((x << 3) | (x >> 2)) or "corrected" (an LCD's
    /// colours). No effect on a DMG's screen.
    #[getter]
    fn color_conversion(&self) -> PyResult<&'static str> {
        self.read(|gb| gb.screen().color_conversion().name())
    }

    #[setter]
    fn set_color_conversion(&mut self, py: Python<'_>, value: &str) -> PyResult<()> {
        let Some(conv) = ColorConversion::from_name(value) else {
            return Err(invalid_argument(
                py,
                format!(
                    "color_conversion must be \"pyboy\", \"full\" or \"corrected\", got {value:?}"
                ),
            ));
        };
        self.write(|gb| gb.set_color_conversion(conv))
    }

    /// The colours of shades 0..=3 as four (r, g, b) tuples, lightest first.
    #[getter]
    fn palette(&self) -> PyResult<(Colour, Colour, Colour, Colour)> {
        let p = self.read(|gb| gb.screen().palette())?;
        let c = |i: usize| (p[i][0], p[i][1], p[i][2]);
        Ok((c(0), c(1), c(2), c(3)))
    }

    /// Sets the colours of shades 0..=3: four (r, g, b) tuples of ints
    /// 0..=255, lightest first (emurust.GameBoy also takes 0xRRGGBB ints and
    /// any sequences, converted in Python). The screen arrays are
    /// re-converted at once.
    #[setter]
    fn set_palette(&mut self, value: (Colour, Colour, Colour, Colour)) -> PyResult<()> {
        let c = |c: Colour| [c.0, c.1, c.2];
        let palette = [c(value.0), c(value.1), c(value.2), c(value.3)];
        self.write(|gb| gb.set_palette(palette))
    }

    /// The sound output's sample rate in Hz, or None while sound output is
    /// off (the default). Setting an int (8000..=192000; PyBoy uses 48000)
    /// turns it on, None turns it off.
    #[getter]
    fn sound_sample_rate(&self) -> PyResult<Option<u32>> {
        self.read(|gb| gb.sound_sample_rate())
    }

    #[setter]
    fn set_sound_sample_rate(&mut self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let rate = if value.is_none() {
            None
        } else {
            match int_arg(value, "sound_sample_rate")?.and_then(|r| u32::try_from(r).ok()) {
                Some(r) => Some(r),
                None => {
                    return Err(invalid_argument(
                        py,
                        format!("sound sample rate must be in 8000..=192000 Hz, got {value}"),
                    ))
                }
            }
        };
        self.write(|gb| gb.set_sound_output(rate))?
            .map_err(|e| core_error(py, e))
    }

    /// The sound samples of the last frame run (the last frame of the last
    /// `tick`, as PyBoy's `sound.ndarray`): a new int8 NumPy array of shape
    /// (n, 2), columns left and right (a copy, not a view). Raises
    /// `SoundOffError` while sound output is off.
    #[getter]
    fn sound<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<i8>>> {
        // ImportError rather than a panic inside rust-numpy without NumPy.
        py.import("numpy")?;
        let samples = self.read(|gb| {
            gb.sound_sample_rate().map(|_| {
                let s = gb.sound_samples();
                (PyArray1::from_slice(py, s), s.len() / 2)
            })
        })?;
        let Some((samples, pairs)) = samples else {
            return Err(error_of_type(
                sound_off_type(py),
                "sound output is off: turn it on with GameBoy(..., sound_sample_rate=48000) \
                 or gb.sound_sample_rate = 48000"
                    .to_owned(),
            ));
        };
        samples.reshape(vec![pairs, 2])
    }

    /// Presses `name` now and releases it after `frames` frames (>= 1).
    #[pyo3(signature = (name, frames = None), text_signature = "(self, name, frames=1)")]
    fn button(
        &mut self,
        py: Python<'_>,
        name: &Bound<'_, PyAny>,
        frames: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let b = button_arg(py, name)?;
        let frames = match frames {
            None => 1,
            Some(f) => frames_arg(f, 1, i64::from(u32::MAX))? as u32,
        };
        self.write(|gb| gb.press_for(b, frames))
    }

    /// Holds `name` down until `button_release(name)`.
    fn button_press(&mut self, py: Python<'_>, name: &Bound<'_, PyAny>) -> PyResult<()> {
        let b = button_arg(py, name)?;
        self.write(|gb| gb.press(b))
    }

    /// Releases `name`.
    fn button_release(&mut self, py: Python<'_>, name: &Bound<'_, PyAny>) -> PyResult<()> {
        let b = button_arg(py, name)?;
        self.write(|gb| gb.release(b))
    }

    /// An in-memory copy of the machine, its last drawn frame included: a
    /// `VecGameBoy` can start its envs from it (`initial_state=`) or
    /// `restore` one env to it.
    fn snapshot(&self) -> PyResult<vec::PySnapshot> {
        let snap = self.read(|gb| gb.snapshot())?;
        Ok(vec::PySnapshot { snap })
    }

    /// The whole machine state as bytes, for `load_state`; its picture is
    /// the screen's last frame.
    fn save_state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let state = self.read(|gb| gb.save_state())?;
        Ok(PyBytes::new(py, &state))
    }

    /// `save_state()` with a blank picture: equal for two machines in the
    /// same state whatever they drew (verification compares these).
    fn _machine_state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let state = self.read(|gb| gb.machine_state())?;
        Ok(PyBytes::new(py, &state))
    }

    /// The cartridge RAM as a battery keeps it (what a `.sav` file holds;
    /// for MBC3 with a clock, followed by a 48-byte RTC block). Empty when
    /// the cartridge has no RAM.
    #[getter]
    fn cartridge_ram<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let ram = self.read(|gb| gb.cartridge_ram())?;
        Ok(PyBytes::new(py, &ram))
    }

    /// Replaces the cartridge RAM (e.g. from a `.sav` file). The length must
    /// match `len(cartridge_ram)` (MBC3+RTC also accepts the RAM alone).
    fn load_cartridge_ram(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let data = bytes_or_bytearray(data, "cartridge RAM")?;
        self.write(|gb| gb.load_cartridge_ram(&data))?
            .map_err(|e| core_error(py, e))
    }

    /// Restores a state from `save_state` of a GameBoy running the same ROM
    /// (with `check_rom=False`, also one saved with another ROM whose
    /// cartridge has the same MBC and RAM size). On error
    /// (`InvalidStateError`) the machine is left unchanged.
    #[pyo3(signature = (data, *, check_rom = true))]
    fn load_state(
        &mut self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        check_rom: bool,
    ) -> PyResult<()> {
        let data = bytes_or_bytearray(data, "state")?;
        // Loaded in place: NumPy views point into this GameBoy's screen, so
        // it is never replaced by another one. `GameBoy::load_state` parses
        // into scratch copies and commits only a valid state, so a rejected
        // state leaves the machine unchanged; a panic marks it broken.
        let core = self.core_mut()?;
        core.hooks.clear_stop();
        core.run(|gb| gb.load_state_checked(&data, check_rom))?
            .map_err(|e| core_error(py, e))
    }

    // ---- PyBoy compatibility (`emurust.PyBoy`, `pyboy/hooks.rs`, `pyboy/state.rs`) ----

    /// Loads a state that PyBoy 2.8.1 saved (`PyBoy.save_state`) for this
    /// ROM; see docs/pyboy.md for what is taken over and how the rest is
    /// filled in. `InvalidStateError` (naming the problem: format version,
    /// CGB mode, another ROM...) leaves the machine unchanged.
    fn load_pyboy_state(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let data = bytes_or_bytearray(data, "PyBoy state")?;
        let core = self.core_mut()?;
        core.hooks.clear_stop();
        core.run(|gb| gb.load_pyboy_state(&data))?
            .map_err(|e| core_error(py, e))
    }

    /// Runs up to `frames` frames ending where PyBoy's `tick()` ends them
    /// (LY 153 -> 0, LCD switched on or off, every 70224 T-cycles while it
    /// is off), drawing the last one if `render`; stops early before an
    /// instruction at a hooked address. Returns (frames completed, the hook
    /// `(bank, address)` or None). After a hook, the next call finishes the
    /// interrupted frame first (pass the same `render`).
    fn _pyboy_tick(
        &mut self,
        py: Python<'_>,
        frames: u64,
        render: bool,
    ) -> PyResult<(u64, Option<(i32, u16)>)> {
        let core = self.core_mut()?;
        core.usable()?;
        let mut done = 0;
        while done < frames {
            let n = (frames - done).min(FRAMES_PER_SIGNAL_CHECK);
            let Core { gb, hooks, .. } = &mut *core;
            let ran = py.detach(|| {
                no_panic(|| {
                    let mut completed = 0;
                    while completed < n {
                        let last = done + completed + 1 == frames;
                        match gb.run_pyboy_frame(render && last, hooks) {
                            PyBoyFrame::Done => completed += 1,
                            PyBoyFrame::Hook(bank, addr) => {
                                // The callback reads memory: LY, STAT, DIV... as of now.
                                gb.catch_up();
                                return (completed, Some((bank, addr)));
                            }
                        }
                    }
                    (completed, None)
                })
            });
            match ran {
                Err(msg) => {
                    let err = internal_error(&msg);
                    core.broken = Some(msg);
                    return Err(err);
                }
                Ok((completed, hit)) => {
                    done += completed;
                    if hit.is_some() {
                        return Ok((done, hit));
                    }
                }
            }
            if done < frames {
                py.check_signals()?;
            }
        }
        Ok((done, None))
    }

    /// Adds a PC hook at `(bank, address)` (PyBoy's bank numbering: -1 boot
    /// ROM, the mapped ROM bank at 0x4000-0x7FFF...); False if it exists.
    fn _hook_add(&mut self, bank: i32, address: u16) -> PyResult<bool> {
        let core = self.core_mut()?;
        Ok(core.hooks.insert(bank, address))
    }

    /// Removes a PC hook; False if there was none.
    fn _hook_remove(&mut self, bank: i32, address: u16) -> PyResult<bool> {
        let core = self.core_mut()?;
        Ok(core.hooks.remove(bank, address))
    }

    /// Overwrites ROM bytes from file offset `offset` (emurust.PyBoy's ROM
    /// patching): this machine gets its own patched copy of the ROM, which
    /// the CPU then reads on every path.
    fn _patch_rom(
        &mut self,
        py: Python<'_>,
        offset: usize,
        data: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let data = bytes_or_bytearray(data, "data")?;
        self.write(|gb| gb.patch_rom(offset, &data))?
            .map_err(|e| core_error(py, e))
    }

    /// `length` bytes of VRAM bank `bank` ("vram": 0-1 on a CGB) or work
    /// RAM bank `bank` ("wram": 0-7 on a CGB, 0-1 on a DMG) from byte
    /// `offset` of the bank, whatever VBK/SVBK select (PyBoy's
    /// `memory[bank, addr]`).
    fn _read_bank<'py>(
        &self,
        py: Python<'py>,
        region: &str,
        bank: usize,
        offset: usize,
        length: usize,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let region = banked_region(py, region)?;
        let v = self
            .read(|gb| gb.read_bank(region, bank, offset, length))?
            .map_err(|e| core_error(py, e))?;
        Ok(PyBytes::new(py, &v))
    }

    /// Writes `data` into a bank as `_read_bank` reads it.
    fn _write_bank(
        &mut self,
        py: Python<'_>,
        region: &str,
        bank: usize,
        offset: usize,
        data: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let region = banked_region(py, region)?;
        let data = bytes_or_bytearray(data, "data")?;
        self.write(|gb| gb.write_bank(region, bank, offset, &data))?
            .map_err(|e| core_error(py, e))
    }

    /// Overwrites boot ROM bytes from `offset` (this machine's copy).
    fn _patch_boot_rom(
        &mut self,
        py: Python<'_>,
        offset: usize,
        data: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let data = bytes_or_bytearray(data, "data")?;
        self.write(|gb| gb.patch_boot_rom(offset, &data))?
            .map_err(|e| core_error(py, e))
    }

    /// The boot ROM's 256 bytes (as patched), or None.
    #[getter]
    fn _boot_rom<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let boot = self.read(|gb| gb.boot_rom().map(|b| b.to_vec()))?;
        Ok(boot.map(|b| PyBytes::new(py, &b)))
    }

    /// The machine as a PyBoy 2.8.1 save state (`PyBoy.load_state` reads
    /// it), written at a frame end as `emurust.PyBoy.tick` leaves it;
    /// `InvalidStateError` says what is in the way elsewhere (docs/pyboy.md).
    fn save_pyboy_state<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let data = self
            .write(|gb| gb.save_pyboy_state())?
            .map_err(|e| core_error(py, e))?;
        Ok(PyBytes::new(py, &data))
    }

    /// Keeps (or stops keeping) the SCX, SCY, WX, WY each line was drawn
    /// with, for `_line_registers` (PyBoy's `tilemap_position_list`).
    fn _record_line_registers(&mut self, on: bool) -> PyResult<()> {
        self.write(|gb| gb.record_line_registers(on))
    }

    /// `[[SCX, SCY, WX, WY]] * 144` as each visible line was last drawn, or
    /// None unless `_record_line_registers(True)` was called.
    fn _line_registers(&mut self) -> PyResult<Option<Vec<[u8; 4]>>> {
        self.write(|gb| gb.line_registers())
    }

    /// Sets DIV (the system counter's high byte; its low byte is kept) with
    /// no side effect of the jump (PyBoy's game wrappers set DIV this way).
    fn _set_div(&mut self, value: u8) -> PyResult<()> {
        self.write(|gb| gb.set_div(value))
    }

    /// Sets one CPU register: a f b c d e h l (0..=255), sp pc (0..=65535)
    /// (F keeps its high nibble, as on hardware).
    fn _set_register(&mut self, py: Python<'_>, name: &str, value: i64) -> PyResult<()> {
        let wide = matches!(name, "sp" | "pc");
        let max = if wide { 0xFFFF } else { 0xFF };
        if !(0..=max).contains(&value) {
            return Err(invalid_argument(
                py,
                format!("register {name} takes 0..={max}, got {value}"),
            ));
        }
        let mut r: Registers = self.read(|gb| gb.registers())?;
        let v = value as u8;
        match name {
            "a" => r.a = v,
            "f" => r.f = v,
            "b" => r.b = v,
            "c" => r.c = v,
            "d" => r.d = v,
            "e" => r.e = v,
            "h" => r.h = v,
            "l" => r.l = v,
            "sp" => r.sp = value as u16,
            "pc" => r.pc = value as u16,
            _ => {
                return Err(invalid_argument(
                    py,
                    format!("unknown register {name:?}; valid: a f b c d e h l sp pc"),
                ))
            }
        }
        self.write(|gb| gb.set_registers(r))
    }

    // ---- verification aids (trace, reference path, fault injection) ----

    /// Whether the machine runs on the slow reference path (every component
    /// stepped every M-cycle; same results as the fast path). Always True
    /// while a trace or an injected fault is on; a value set meanwhile
    /// applies once both are off.
    #[getter]
    fn reference_mode(&self) -> PyResult<bool> {
        self.read(|gb| gb.reference_mode())
    }

    #[setter]
    fn set_reference_mode(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let on = value.cast::<pyo3::types::PyBool>().map_err(|_| {
            PyTypeError::new_err(format!(
                "reference_mode must be a bool, not {}",
                type_name(value)
            ))
        })?;
        let on = on.is_true();
        self.write(|gb| gb.set_reference_mode(on))
    }

    /// Records the last `capacity` (1..=1000000) CPU steps for `trace()`.
    /// Runs on the reference path while on (several times slower).
    #[pyo3(signature = (capacity = None), text_signature = "(self, capacity=64)")]
    fn trace_enable(&mut self, capacity: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let capacity = match capacity {
            None => 64,
            Some(obj) => match int_arg(obj, "capacity")? {
                Some(v) if (1..=1_000_000).contains(&v) => v as usize,
                _ => {
                    return Err(invalid_argument(
                        obj.py(),
                        "capacity must be between 1 and 1000000",
                    ))
                }
            },
        };
        self.write(|gb| gb.set_trace(capacity))
    }

    /// Stops tracing and forgets the trace; restores the previous `reference_mode`.
    fn trace_disable(&mut self) -> PyResult<()> {
        self.write(|gb| gb.set_trace(0))
    }

    /// The traced CPU steps, oldest first: dicts with `kind` ("instruction",
    /// "interrupt", "halted", "stopped", "locked"), `pc`, `opcode` (the
    /// instruction bytes), the registers before the step (`a f b c d e h l
    /// sp`), `ime`, `ie`, `if`, `cycles` (T-cycles since power-on) and
    /// `repeat` (consecutive identical halted steps folded into one entry).
    fn trace<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let entries = self.read(|gb| gb.trace())?;
        let mut out = Vec::with_capacity(entries.len());
        for e in entries {
            let d = PyDict::new(py);
            let r = e.registers;
            d.set_item("kind", e.kind.name())?;
            d.set_item("pc", r.pc)?;
            d.set_item("opcode", PyBytes::new(py, e.opcode()))?;
            set_registers_8bit(&d, &r)?;
            d.set_item("sp", r.sp)?;
            d.set_item("ime", e.ime)?;
            d.set_item("ie", e.ie)?;
            d.set_item("if", e.intf)?;
            d.set_item("cycles", e.cycles)?;
            d.set_item("repeat", e.repeat)?;
            out.push(d);
        }
        Ok(out)
    }

    /// Test-only fault injection (a verification aid): makes the CPU wrong
    /// on purpose so a differential harness can prove it catches the bug.
    /// `name` is "adc_half_carry", "daa_ignore_h" or None (no fault). Runs on
    /// the reference path while a fault is set.
    fn _inject_fault(&mut self, py: Python<'_>, name: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let fault = match name {
            None => None,
            Some(obj) => {
                let text = obj.cast::<PyString>().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "fault must be a str or None, not {}",
                        type_name(obj)
                    ))
                })?;
                // `to_cow`, not `to_str`: the limited API (abi3) of Python < 3.10
                // has no borrowed UTF-8 view of a str.
                let text = text.to_cow()?;
                Some(Fault::from_name(&text).ok_or_else(|| {
                    let names: Vec<&str> = Fault::ALL.iter().map(|f| f.name()).collect();
                    invalid_argument(
                        py,
                        format!("unknown fault {text:?}; valid: {}", names.join(", ")),
                    )
                })?)
            }
        };
        self.write(|gb| gb.inject_fault(fault))
    }

    /// Runs single CPU steps until `cycles >= target` (True) or until a
    /// frame ends on the way (False); a verification aid that stops this
    /// machine at another emulator's clock. At most 10 frames ahead.
    fn _step_to_cycle(&mut self, py: Python<'_>, target: u64) -> PyResult<bool> {
        let now = self.read(|gb| gb.cycles())?;
        if target > now.saturating_add(10 * crate::clock::FRAME_CYCLES) {
            return Err(invalid_argument(
                py,
                format!("target {target} is more than 10 frames after the clock ({now})"),
            ));
        }
        self.write(|gb| gb.step_to_cycle(target))
    }

    /// Test-only: moves the PPU's line timing (the clocks of its current
    /// line's start and of its next event) by `delta` dots (T-cycles but in
    /// a CGB's double speed), through a save state of this machine. False,
    /// the machine unchanged, when the line start is not between a frame
    /// before `now` and `now + 8` or the next event not between the line
    /// start and a frame after `now`; `now` is a CPU clock (`cycles`), taken
    /// to the PPU's dot clock first (in double speed the two part at every
    /// frame). The lockstep harness's proof that PyBoy starts lines 4
    /// T-cycles late after an LCD enable (emurust.verify.allowlist) uses it.
    /// Only in builds with the cargo feature `testing` (not the release wheel).
    #[cfg(feature = "testing")]
    fn _test_shift_ppu(&mut self, py: Python<'_>, delta: i64, now: u64) -> PyResult<bool> {
        let dots = self.write(|gb| {
            let (core, _, _) = gb.parts_mut();
            core.hw.dots_at(now)
        })?;
        let edited = self.edit_state(py, |state| {
            testing::shift_ppu_timing(state, delta, dots).map(|s| (s, ()))
        })?;
        Ok(edited.is_some())
    }

    /// Test-only: makes the timer's system counter (DIV, and TIMA, the
    /// serial clock and the APU's frame sequencer that hang off it) run
    /// `delta` T-cycles late (0..=256), through a save state of this machine
    /// with its timer caught up to the clock. False, the machine otherwise
    /// unchanged, if the state's layout is not the one expected or a TIMA
    /// overflow is pending. The lockstep harness's proof that PyBoy reads
    /// the PPU and DIV 8 T-cycles late (emurust.verify.allowlist) uses it.
    /// Only in builds with the cargo feature `testing` (not the release wheel).
    #[cfg(feature = "testing")]
    fn _test_shift_timer(&mut self, py: Python<'_>, delta: i64) -> PyResult<bool> {
        // Bring the timer up to the clock first (its lazy catch-up, as any
        // access would): the edit needs TIMA as of now.
        let now = self.write(|gb| {
            let now = gb.cycles();
            let (core, _, _) = gb.parts_mut();
            let irq = core.hw.timer.catch_up(now);
            core.hw.intf |= irq;
            now
        })?;
        let edited = self.edit_state(py, |state| {
            testing::shift_timer(state, delta, now).map(|s| (s, ()))
        })?;
        Ok(edited.is_some())
    }

    /// Test-only: sets the window's WY latch (LY met WY with LCDC.5 set in
    /// this frame), through a save state of this machine; returns the
    /// latch's value before, or None (the machine unchanged) if the state's
    /// layout is not the one expected. The lockstep harness's proof that
    /// PyBoy starts the window on any line with LY >= WY
    /// (emurust.verify.allowlist) uses it.
    /// Only in builds with the cargo feature `testing` (not the release wheel).
    #[cfg(feature = "testing")]
    fn _test_set_wy_latch(&mut self, py: Python<'_>, latched: bool) -> PyResult<Option<bool>> {
        self.edit_state(py, |state| testing::set_wy_latch(state, latched))
    }

    /// The injected fault's name, or None.
    #[getter]
    fn _fault(&self) -> PyResult<Option<&'static str>> {
        self.read(|gb| gb.fault().map(|f| f.name()))
    }

    fn __repr__(&self) -> PyResult<String> {
        self.read(|gb| {
            format!(
                "<emurust.GameBoy title={:?} type={:?} frame={}>",
                gb.cartridge().title(),
                gb.cartridge().type_name(),
                gb.frame_count()
            )
        })
    }
}
