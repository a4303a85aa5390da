//! PyBoy save states: reading the files `PyBoy.save_state` writes (PyBoy
//! 2.8.1, state format version 29) into an emurust machine, DMG or CGB, and
//! writing them ([`GameBoy::save_pyboy_state`]).
//!
//! # The format
//!
//! A PyBoy state is the fields of its components written one after the
//! other with no tags or lengths (`pyboy/core/mb.py`, `Motherboard.save_state`
//! and the `save_state` of each component). Integers are little-endian; a
//! plain field is one byte, some are 16 or 64 bits; floats are IEEE doubles.
//! In order:
//!
//! | part | fields |
//! | --- | --- |
//! | header | format version (29), boot ROM mapped, KEY0, KEY1, double speed, CGB hardware; on a CGB then the HDMA: HDMA1-5, HBlank DMA running, current source and destination (16 bits) |
//! | CPU | A F B C D E, HL SP PC (16 bits), IME, EI delay, halted, stopped, IE, interrupt queued, IF, cycles since power-on (64 bits) |
//! | OAM DMA | active, reading, source page, bytes copied, start cycle (64 bits) |
//! | LCD | VRAM (bank 0, 8 KiB), OAM (160), LCDC BGP OBP0 OBP1, STAT, LY, LYC, SCY SCX WY WX, object priority (OPRI), 144 x 5 bytes of per-line scroll registers, CGB, downgraded to DMG, speed shift, frame done, first frame after LCD on, reset pending, last cycles, clock, clock target (64 bits each), next STAT mode, STAT transition; in CGB mode then VRAM bank 1, VBK, BCPS (value, auto-increment, index, high byte), 32 background colours (16 bits), OCPS, 32 object colours |
//! | sound | buffer head, samples per frame, cycles per sample (double), the sample buffer (2 x (samples per frame + 1) bytes), speed shift, two cycle targets (doubles), cycles to interrupt, cycles, last cycles, frame-sequencer counter and step (64 bits), power-on after DIV write, power, sampling off, NR51 as 8 bytes, NR50, then the four channels' registers and timers |
//! | screen | 144 x 160 pixels of 32-bit RGBA and an attribute byte each, window-Y latch |
//! | RAM | WRAM (8 KiB on the DMG, 32 KiB: banks 0-7 on a CGB), 0xFEA0-0xFEFF, I/O 0xFF00-0xFF4B, HRAM; then the WRAM bank select (SVBK) |
//! | timer | DIV, TIMA, the 16-bit system counter, reload countdown (16 bits), TMA, TAC, reload state, last cycles, cycles to interrupt |
//! | cartridge | ROM bank, RAM bank, RAM enabled, banking mode, every RAM bank (8 KiB each, as many as PyBoy gives the header's RAM size), the clock (MBC3+TIMER), MBC1's two bank registers, MBC5's rumble flags |
//! | joypad, serial, SGB | the pressed buttons (two nibbles, 0 = pressed); SB, SC, transfer on, internal clock, four 64-bit times; the SGB state |
//!
//! # What the state lacks, and how it is filled in
//!
//! * **Sub-line PPU position.** PyBoy keeps its LCD clock (dots into the
//!   frame), LY and the STAT mode. emurust places its own PPU at the same
//!   point of the frame (its line 0 starts 4 dots before PyBoy's mode 2 of
//!   line 0, where PyBoy's LY also wraps) and runs its own transitions up to
//!   there with the loaded registers, VRAM and OAM: the mode-3 length of the
//!   current line, the STAT line and the LY=LYC flag come out as emurust
//!   computes them. The window's line counter restarts at 0 (exact at frame
//!   boundaries, where `tick()` leaves a state). In the first frame after an
//!   LCD switch-on (PyBoy's `first_frame`) the switch-on is replayed
//!   `clock` T-cycles ago.
//! * **APU internals.** Registers, channel on flags, length counters,
//!   volumes, envelope timers, duty and wave positions, frequency-timer
//!   phases, the sweep unit and the noise LFSR are taken over; the
//!   frame-sequencer step is PyBoy's step count. emurust clocks envelopes
//!   one step later in the 8-step sequence than PyBoy, so an envelope may
//!   change up to 2 ms apart. A PyBoy started with `sound_emulated=False`
//!   saves an APU that never ran (powered off, every register 0), which
//!   would leave the game silent and NR52 reading 0x70; emurust then keeps
//!   the APU the boot ROM leaves (powered on, post-boot registers).
//! * **Timer reload in progress.** PyBoy's 4-cycle TIMA reload states are
//!   completed at once (TIMA = TMA; PyBoy's IF says whether the interrupt
//!   was requested).
//! * **OAM DMA in progress** completes at once (the remaining bytes are
//!   copied now).
//! * **Serial.** A transfer in progress restarts from its first bit.
//! * **RTC** (MBC3+TIMER): PyBoy's clock runs on wall-clock time; the
//!   registers are taken over and then count emulated time, like emurust's
//!   own clock.
//! * **Screen.** PyBoy's last frame is mapped back to shades by the nearest
//!   of PyBoy's default greys (FF/99/55/00).
//! * The SGB state and PyBoy's sample buffer are read and ignored (emurust
//!   has no SGB features).
//!
//! # The Game Boy Color
//!
//! A state PyBoy saved emulating a CGB (`cgb=True`, or a CGB game with
//! `cgb=None`) loads into a CGB machine (`model="cgb"`), one of a DMG into
//! a DMG; the other pairings, and a CGB state in CGB mode loaded where the
//! machine runs the cartridge in DMG compatibility mode (or the reverse),
//! are refused. Taken over: KEY1 (the armed bit) and the speed, the HDMA
//! (source, destination, blocks left, HBlank DMA running), VRAM bank 1 and
//! VBK, the palette RAM and BCPS/OCPS, OPRI, work RAM banks 0-7 and SVBK,
//! and 0xFEA0-0xFEFF. Where the two differ:
//!
//! * **The clocks.** Both count CPU T-cycles (4 an M-cycle in both speeds);
//!   in double speed the PPU and APU count dots at half that rate. emurust's
//!   dot clock is set equal to the CPU's at the load (`CgbHw::dots`) and the
//!   PPU placed at PyBoy's LCD clock, in dots, as on the DMG: PyBoy's LY
//!   wrap 4 dots after emurust's line 0 starts, in both speeds (in double
//!   speed that is 8 CPU T-cycles; with 4, µCity's frame ends fell apart
//!   more often: 27 against 16 of 300 frames with inputs).
//! * **KEY0.** PyBoy keeps the byte its boot ROM wrote (bit 2: a DMG
//!   cartridge); emurust's mode follows the cartridge header and must agree.
//!   Written as PyBoy's boot ROM leaves it (0, or 4 in compatibility mode).
//! * **KEY1.** PyBoy keeps the byte the game wrote (bit 7 flipped by each
//!   switch); emurust takes bit 0 (armed) and the speed. Written as bit 7 =
//!   double speed, bit 0 = armed.
//! * **OPRI.** PyBoy does not emulate it and holds 0xFF until a game writes
//!   FF6C: 0xFF loads as the boot ROM's value (0 in CGB mode, 1 in DMG
//!   compatibility mode), and that value is written as 0xFF.
//! * **HDMA.** PyBoy's HDMA1-4 are the bytes written (then the address
//!   reached); emurust keeps only the current source and destination, from
//!   which HDMA1-4 are written. HDMA5 is written as emurust reads it (0xFF
//!   after a transfer, bit 7 clear while an HBlank DMA runs).
//! * **0xFEA0-0xFEFF.** PyBoy keeps 96 bytes; emurust's CGB (revision C)
//!   has 24, each at four addresses (address bits 3 and 4 not decoded):
//!   the byte at the address with both bits clear is taken; each address is
//!   written with the byte it reads.
//! * **Not in PyBoy's state**: FF72-FF75 and RP (FF56), which keep the
//!   loading machine's values, and the palettes of DMG compatibility mode
//!   (PyBoy's LCD is downgraded to DMG rendering with `cgb_color_palette`
//!   and saves no palette RAM), which keep the loading machine's.
//! * **Screen.** Each RGBA pixel of PyBoy's last frame becomes the palette
//!   slot of the same colour (`x << 3`) in the loaded palette RAM (the
//!   nearest colour if none is equal); written with PyBoy's conversion from
//!   each line's palettes. The attribute byte is approximated as on the DMG.
//!
//! A state from another format version, from the other model, or one that
//! does not match the ROM (cartridge section of the wrong length) is
//! rejected with `Error::InvalidState` and the machine is left unchanged.

use crate::apu::{Apu, ApuImport, ChannelImport};
use crate::cgb::WRAM_BANK;
use crate::error::{Error, Result};
use crate::gameboy::GameBoy;
use crate::ppu::{PpuPosition, DOTS_PER_FRAME};
use crate::screen::PIXELS;
use crate::timer::{Timer, IRQ_TIMER};

/// The PyBoy state format version read here (PyBoy 2.8.1's).
pub const PYBOY_STATE_VERSION: u8 = 29;

/// Little-endian reader with errors naming the field.
struct In<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> In<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        let Some(end) = end else {
            return Err(Error::InvalidState(format!(
                "PyBoy state is truncated: {what} needs {n} bytes at offset {}, only {} left",
                self.pos,
                self.data.len() - self.pos
            )));
        };
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.take(1, what)?[0])
    }

    fn flag(&mut self, what: &str) -> Result<bool> {
        Ok(self.u8(what)? != 0)
    }

    fn u16(&mut self, what: &str) -> Result<u16> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u64(&mut self, what: &str) -> Result<u64> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    fn skip(&mut self, n: usize, what: &str) -> Result<()> {
        self.take(n, what).map(|_| ())
    }
}

/// A square, wave or noise channel of PyBoy's sound state (the fields
/// emurust uses).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SoundChannel {
    pub duty: u8,
    pub length_load: u8,
    pub env_volume: u8,
    pub env_up: bool,
    pub env_pace: u8,
    pub period: u16,
    pub length_enable: bool,
    pub enable: bool,
    pub length_timer: u64,
    pub envelope_timer: u64,
    pub period_timer: u64,
    pub frame: u64,
    pub volume: u64,
}

/// PyBoy's sound state (the fields emurust uses).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SoundState {
    /// The APU ran at all (PyBoy with `sound_emulated=True`).
    pub emulated: bool,
    pub powered: bool,
    pub div_apu: u64,
    pub nr50: u8,
    pub nr51: u8,
    pub square: [SoundChannel; 2],
    pub sweep_pace: u8,
    pub sweep_down: bool,
    pub sweep_shift: u8,
    pub sweep_timer: u64,
    pub sweep_enabled: bool,
    pub sweep_negate_used: bool,
    pub sweep_shadow: u64,
    pub wave: SoundChannel,
    pub wave_ram: [u8; 16],
    pub wave_dac: bool,
    pub wave_volume: u8,
    pub noise: SoundChannel,
    pub noise_clock_shift: u8,
    pub noise_short: bool,
    pub noise_divisor: u8,
    pub noise_lfsr: u64,
}

/// The parts of a PyBoy 2.8.1 save state that emurust loads.
#[derive(Clone, Debug)]
pub struct PyBoyState {
    pub version: u8,
    pub boot_rom_mapped: bool,
    /// A F B C D E H L, SP, PC (PyBoy's PC: the HALT itself while halted).
    pub regs: [u8; 8],
    pub sp: u16,
    pub pc: u16,
    pub ime: bool,
    pub ei_delay: u8,
    pub halted: bool,
    pub stopped: bool,
    pub ie: u8,
    pub intf: u8,
    /// T-cycles since power-on.
    pub cycles: u64,
    pub dma_active: bool,
    pub dma_source: u8,
    pub dma_copied: u8,
    pub vram: Box<[u8; 0x2000]>,
    pub oam: [u8; 0xA0],
    /// LCDC, STAT, LY, LYC, SCY, SCX, WY, WX, BGP, OBP0, OBP1.
    pub lcdc: u8,
    pub stat: u8,
    pub ly: u8,
    pub lyc: u8,
    pub scy: u8,
    pub scx: u8,
    pub wy: u8,
    pub wx: u8,
    pub bgp: u8,
    pub obp0: u8,
    pub obp1: u8,
    pub first_frame: bool,
    pub lcd_reset: bool,
    /// PyBoy's LCD clock: dots into the frame (LCD on) or into the blank
    /// frame (LCD off).
    pub lcd_clock: u64,
    pub sound: SoundState,
    /// The last frame PyBoy drew, RGBA.
    pub screen: Box<[u8; PIXELS * 4]>,
    pub wram: Box<[u8; 0x2000]>,
    pub io: [u8; 0x4C],
    pub hram: [u8; 0x7F],
    pub div_counter: u16,
    pub tima: u8,
    pub tma: u8,
    pub tac: u8,
    pub tima_reload: u8,
    pub rom_bank: u8,
    pub ram_bank: u8,
    pub ram_enabled: bool,
    pub banking_mode: u8,
    pub cart_ram: Vec<u8>,
    /// MBC3 clock: S, M, H, DL, DH (with halt and carry), if the cartridge has one.
    pub rtc: Option<[u8; 5]>,
    pub mbc1_bank1: u8,
    pub mbc1_bank2: u8,
    pub rumble: bool,
    /// Held buttons as emurust's mask (bit = `Button` discriminant).
    pub buttons: u8,
    pub sb: u8,
    pub sc: u8,
    /// OPRI as PyBoy keeps it (0xFF until a game writes FF6C).
    pub object_priority: u8,
    /// 0xFEA0-0xFEFF (PyBoy keeps 96 bytes on both models).
    pub unusable: [u8; 0x60],
    /// The CGB's part: `Some` for a state PyBoy saved emulating a CGB
    /// (`cgb=True`, or a CGB game with `cgb=None`).
    pub cgb: Option<PyBoyCgb>,
}

/// The CGB's part of a PyBoy state.
#[derive(Clone, Debug)]
pub struct PyBoyCgb {
    pub key0: u8,
    /// KEY1 as PyBoy keeps it: the byte the game wrote, bit 7 flipped (and
    /// bit 0 cleared) by each speed switch.
    pub key1: u8,
    pub double_speed: bool,
    /// HDMA1-HDMA5 as PyBoy keeps them.
    pub hdma_regs: [u8; 5],
    /// An HBlank DMA is running.
    pub hdma_active: bool,
    /// The HDMA's current source and destination (0x8000-0x9FF0).
    pub hdma_src: u16,
    pub hdma_dst: u16,
    /// The LCD's speed shift (1 in double speed).
    pub lcd_speed_shift: u8,
    /// The LCD's CGB part; `None` when the boot ROM downgraded it to DMG
    /// rendering (a DMG cartridge: DMG compatibility mode).
    pub lcd: Option<PyBoyCgbLcd>,
    /// Work RAM banks 0-7, 4 KiB each.
    pub wram: Box<[u8; 0x8000]>,
    /// SVBK as written (bits 0-2).
    pub svbk: u8,
}

/// The CGB part of PyBoy's LCD state (CGB mode only).
#[derive(Clone, Debug)]
pub struct PyBoyCgbLcd {
    pub vram1: Box<[u8; 0x2000]>,
    pub vbk: u8,
    /// BCPS and OCPS as emurust keeps them (auto-increment in bit 7, the
    /// byte index in bits 0-5).
    pub bcps: u8,
    pub ocps: u8,
    /// Palette RAM as emurust keeps it: 64 background bytes, then 64
    /// object bytes (little-endian 15-bit colours).
    pub pal: [u8; 128],
}

/// PyBoy's palette index register (value, auto-increment, index, high
/// byte) as the one byte it stands for.
fn palette_index(r: &mut In, what: &str) -> Result<u8> {
    r.skip(1, what)?; // the value written (bit 6 may be set by an increment)
    let auto = r.u8(what)? & 1;
    let index = r.u8(what)? & 0x1F;
    let hl = r.u8(what)? & 1;
    Ok(auto << 7 | index << 1 | hl)
}

/// PyBoy's palette memory (32 16-bit colours) into `out` (64 bytes).
fn palette_memory(r: &mut In, out: &mut [u8], what: &str) -> Result<()> {
    for c in out.chunks_exact_mut(2) {
        c.copy_from_slice(&r.u16(what)?.to_le_bytes());
    }
    Ok(())
}

/// PyBoy's cartridge classes, by header type byte (`CARTRIDGE_TABLE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PyBoyMbc {
    RomOnly,
    Mbc1,
    Mbc2,
    Mbc3 { rtc: bool },
    Mbc5,
}

fn pyboy_mbc(cart_type: u8) -> Option<PyBoyMbc> {
    Some(match cart_type {
        0x00 | 0x08 | 0x09 => PyBoyMbc::RomOnly,
        0x01..=0x03 => PyBoyMbc::Mbc1,
        0x05 | 0x06 => PyBoyMbc::Mbc2,
        0x0F | 0x10 => PyBoyMbc::Mbc3 { rtc: true },
        0x11..=0x13 => PyBoyMbc::Mbc3 { rtc: false },
        0x19..=0x1E => PyBoyMbc::Mbc5,
        _ => return None,
    })
}

/// RAM banks PyBoy allocates and saves for header byte 0x149
/// (`EXTERNAL_RAM_TABLE`).
fn pyboy_ram_banks(size_code: u8) -> Option<usize> {
    Some(match size_code {
        0..=2 => 1,
        3 => 4,
        4 => 16,
        5 => 8,
        _ => return None,
    })
}

/// The cartridge section of a PyBoy state and the fields after it.
struct CartAndRest {
    rom_bank: u8,
    ram_bank: u8,
    ram_enabled: bool,
    banking_mode: u8,
    cart_ram: Vec<u8>,
    rtc: Option<[u8; 5]>,
    mbc1_bank1: u8,
    mbc1_bank2: u8,
    rumble: bool,
    buttons: u8,
    sb: u8,
    sc: u8,
}

/// Bytes of the cartridge section and the fields after it, for a cartridge
/// of `mbc` with `banks` RAM banks (MBC5: one more with a rumble motor).
fn cartridge_and_rest_len(mbc: PyBoyMbc, banks: usize) -> usize {
    let cart = 4
        + banks * 0x2000
        + match mbc {
            PyBoyMbc::Mbc3 { rtc: true } => 8 + 2 + 5 + 2 + 8 + 8,
            PyBoyMbc::Mbc1 => 2,
            PyBoyMbc::Mbc5 => 1,
            _ => 0,
        };
    cart + 2 + 2 + 2 + 32 + 7 + 4 + 0x2000 + 0x800 + 0x80
}

fn cartridge_and_rest(r: &mut In, mbc: PyBoyMbc, banks: usize) -> Result<CartAndRest> {
    let rom_bank = r.u8("ROM bank")?;
    let ram_bank = r.u8("RAM bank")?;
    let ram_enabled = r.flag("RAM enabled")?;
    let banking_mode = r.u8("banking mode")?;
    let cart_ram = r.take(banks * 0x2000, "cartridge RAM")?.to_vec();
    let mut rtc = None;
    if mbc == (PyBoyMbc::Mbc3 { rtc: true }) {
        r.skip(8 + 2, "RTC time zero, halt, carry")?;
        let mut regs = [0u8; 5];
        for reg in regs.iter_mut() {
            *reg = r.u8("RTC register")?;
        }
        let halt = r.u8("RTC halt")? & 1;
        let carry = r.u8("RTC carry")? & 1;
        regs[4] = (regs[4] & 1) | halt << 6 | carry << 7;
        r.skip(8 + 8, "RTC cycles and time")?;
        rtc = Some(regs);
    }
    let (mut mbc1_bank1, mut mbc1_bank2, mut rumble) = (1, 0, false);
    match mbc {
        PyBoyMbc::Mbc1 => {
            mbc1_bank1 = r.u8("MBC1 bank register 1")?;
            mbc1_bank2 = r.u8("MBC1 bank register 2")?;
        }
        PyBoyMbc::Mbc5 => {
            // The rumble flag follows only when the cartridge type has a motor.
            let supported = r.flag("MBC5 rumble support")?;
            rumble = supported && r.flag("MBC5 rumble")?;
        }
        _ => {}
    }

    // Joypad, serial, SGB
    let directional = r.u8("joypad directions")?;
    let standard = r.u8("joypad buttons")?;
    let buttons = (!directional & 0x0F) | (!standard & 0x0F) << 4;
    let sb = r.u8("SB")?;
    let sc = r.u8("SC")?;
    r.skip(2 + 32, "serial state")?;
    r.skip(7 + 4 + 0x2000 + 0x800 + 0x80, "SGB state")?;
    Ok(CartAndRest {
        rom_bank,
        ram_bank,
        ram_enabled,
        banking_mode,
        cart_ram,
        rtc,
        mbc1_bank1,
        mbc1_bank2,
        rumble,
        buttons,
        sb,
        sc,
    })
}

/// A square channel (PyBoy's `ToneChannel.save_state`).
fn square_channel(r: &mut In, name: &str) -> Result<SoundChannel> {
    let f = |s: &str| format!("sound {name} {s}");
    let mut c = SoundChannel::default();
    {
        c.duty = r.u8(&f("duty"))?;
        c.length_load = r.u8(&f("length"))?;
        c.env_volume = r.u8(&f("envelope volume"))?;
        c.env_up = r.flag(&f("envelope direction"))?;
        c.env_pace = r.u8(&f("envelope pace"))?;
        c.period = r.u16(&f("period"))?;
        c.length_enable = r.flag(&f("length enable"))?;
        c.enable = r.flag(&f("enable"))?;
        c.length_timer = r.u64(&f("length timer"))?;
        c.envelope_timer = r.u64(&f("envelope timer"))?;
        c.period_timer = r.u64(&f("period timer"))?;
        r.u64(&f("period"))?;
        c.frame = r.u64(&f("wave frame"))?;
        c.volume = r.u64(&f("volume"))?;
        r.skip(3, &f("duty update"))?;
    }
    Ok(c)
}

/// Parse a PyBoy state for a machine running `rom` (the cartridge header
/// says how long the cartridge section is).
pub fn parse(data: &[u8], rom: &[u8]) -> Result<PyBoyState> {
    if data.is_empty() {
        return Err(Error::InvalidState(
            "the PyBoy state is empty (0 bytes): was the file read from its end?".into(),
        ));
    }
    let mut r = In { data, pos: 0 };
    let version = r.u8("the format version")?;
    if version != PYBOY_STATE_VERSION {
        return Err(Error::InvalidState(format!(
            "PyBoy save state format version {version} is not supported: emurust reads \
             version {PYBOY_STATE_VERSION}, the format of PyBoy 2.8.1 (load the state in that \
             PyBoy and save it again)"
        )));
    }
    let boot_rom_mapped = r.flag("boot ROM flag")?;
    let key0 = r.u8("KEY0")?;
    let key1 = r.u8("KEY1")?;
    let double_speed = r.flag("double speed")?;
    let is_cgb = r.flag("CGB flag")?;
    let mut hdma = None;
    if is_cgb {
        let mut regs = [0u8; 5];
        for (i, reg) in regs.iter_mut().enumerate() {
            *reg = r.u8(["HDMA1", "HDMA2", "HDMA3", "HDMA4", "HDMA5"][i])?;
        }
        let active = r.flag("HDMA transfer active")?;
        let src = r.u16("HDMA source")?;
        let dst = r.u16("HDMA destination")?;
        hdma = Some((regs, active, src, dst));
    }
    let mut regs = [0u8; 8];
    for (i, reg) in regs.iter_mut().take(6).enumerate() {
        *reg = r.u8(["A", "F", "B", "C", "D", "E"][i])?;
    }
    let hl = r.u16("HL")?;
    regs[6] = (hl >> 8) as u8;
    regs[7] = hl as u8;
    let sp = r.u16("SP")?;
    let pc = r.u16("PC")?;
    let ime = r.flag("IME")?;
    let ei_delay = r.u8("EI delay")?;
    let halted = r.flag("halted")?;
    let stopped = r.flag("stopped")?;
    let ie = r.u8("IE")?;
    r.skip(1, "interrupt queued")?;
    let intf = r.u8("IF")? & 0x1F;
    let cycles = r.u64("CPU cycles")?;
    let dma_active = r.flag("OAM DMA active")?;
    r.skip(1, "OAM DMA reading")?;
    let dma_source = r.u8("OAM DMA source")?;
    let dma_copied = r.u8("OAM DMA index")?;
    r.skip(8, "OAM DMA start")?;

    // LCD
    let mut vram = Box::new([0u8; 0x2000]);
    vram.copy_from_slice(r.take(0x2000, "VRAM")?);
    let mut oam = [0u8; 0xA0];
    oam.copy_from_slice(r.take(0xA0, "OAM")?);
    let lcdc = r.u8("LCDC")?;
    let bgp = r.u8("BGP")?;
    let obp0 = r.u8("OBP0")?;
    let obp1 = r.u8("OBP1")?;
    let stat = r.u8("STAT")?;
    let ly = r.u8("LY")?;
    let lyc = r.u8("LYC")?;
    let scy = r.u8("SCY")?;
    let scx = r.u8("SCX")?;
    let wy = r.u8("WY")?;
    let wx = r.u8("WX")?;
    let object_priority = r.u8("object priority")?;
    r.skip(144 * 5, "line registers")?;
    let lcd_cgb = r.flag("LCD CGB flag")?;
    let downgraded = r.flag("LCD downgrade flag")?;
    if (lcd_cgb || downgraded) != is_cgb || (lcd_cgb && downgraded) {
        return Err(Error::InvalidState(format!(
            "corrupted PyBoy state: the machine's CGB flag ({is_cgb}) does not match its \
             LCD's (CGB {lcd_cgb}, downgraded to DMG {downgraded})"
        )));
    }
    let lcd_speed_shift = r.u8("LCD speed shift")?;
    r.skip(1, "frame done")?;
    let first_frame = r.flag("first frame")?;
    let lcd_reset = r.flag("LCD reset")?;
    r.skip(8, "LCD last cycles")?;
    let lcd_clock = r.u64("LCD clock")?;
    r.skip(8 + 2, "LCD clock target and STAT transition")?;
    let mut cgb_lcd = None;
    if lcd_cgb {
        let mut vram1 = Box::new([0u8; 0x2000]);
        vram1.copy_from_slice(r.take(0x2000, "VRAM bank 1")?);
        let vbk = r.u8("VBK")? & 1;
        let mut pal = [0u8; 128];
        let bcps = palette_index(&mut r, "BCPS")?;
        palette_memory(&mut r, &mut pal[..64], "background palettes")?;
        let ocps = palette_index(&mut r, "OCPS")?;
        palette_memory(&mut r, &mut pal[64..], "object palettes")?;
        cgb_lcd = Some(PyBoyCgbLcd {
            vram1,
            vbk,
            bcps,
            ocps,
            pal,
        });
    }

    // Sound
    let mut snd = SoundState::default();
    r.skip(8, "sound buffer head")?;
    let spf = r.u64("samples per frame")?;
    if spf > 1 << 20 {
        return Err(Error::InvalidState(format!(
            "corrupted PyBoy state: {spf} sound samples per frame"
        )));
    }
    r.skip(8, "cycles per sample")?;
    r.skip((spf as usize + 1) * 2, "sound buffer")?;
    r.skip(1 + 8 + 8 + 8, "sound speed shift and targets")?;
    let sound_cycles = r.u64("sound cycles")?;
    r.skip(8 + 8, "sound last cycles, frame sequencer counter")?;
    snd.div_apu = r.u64("frame sequencer step")?;
    r.skip(1, "power-on after DIV write")?;
    snd.powered = r.flag("sound power")?;
    r.skip(1, "sampling off")?;
    let pan = r.take(8, "NR51")?;
    // noise, wave, tone, sweep left; then the same right.
    snd.nr51 = pan.iter().fold(0, |acc, &b| acc | b);
    snd.nr50 = r.u8("NR50")?;
    snd.emulated = sound_cycles != 0;
    snd.square[0] = square_channel(&mut r, "channel 1")?;
    snd.sweep_pace = r.u8("sweep pace")?;
    snd.sweep_down = r.flag("sweep direction")?;
    snd.sweep_shift = r.u8("sweep shift")?;
    snd.sweep_timer = r.u64("sweep timer")?;
    r.skip(8 + 8 + 8, "sweep check and calc timers, restart hold")?;
    snd.sweep_negate_used = r.flag("sweep negate used")?;
    snd.sweep_enabled = r.flag("sweep enabled")?;
    snd.sweep_shadow = r.u64("sweep shadow")?;
    snd.square[1] = square_channel(&mut r, "channel 2")?;
    snd.wave_ram.copy_from_slice(r.take(16, "wave RAM")?);
    snd.wave_dac = r.flag("wave DAC")?;
    snd.wave.length_load = r.u8("wave length")?;
    snd.wave_volume = r.u8("wave volume")?;
    snd.wave.period = r.u16("wave period")?;
    snd.wave.length_enable = r.flag("wave length enable")?;
    snd.wave.enable = r.flag("wave enable")?;
    snd.wave.length_timer = r.u64("wave length timer")?;
    snd.wave.period_timer = r.u64("wave period timer")?;
    r.skip(8, "wave period")?;
    snd.wave.frame = r.u64("wave frame")?;
    r.skip(1 + 8 + 1 + 1 + 8, "wave sample state")?;
    snd.noise.length_load = r.u8("noise length")?;
    snd.noise.env_volume = r.u8("noise envelope volume")?;
    snd.noise.env_up = r.flag("noise envelope direction")?;
    snd.noise.env_pace = r.u8("noise envelope pace")?;
    snd.noise_clock_shift = r.u8("noise clock shift")?;
    snd.noise_short = r.flag("noise width")?;
    snd.noise_divisor = r.u8("noise divisor")?;
    snd.noise.length_enable = r.flag("noise length enable")?;
    snd.noise.enable = r.flag("noise enable")?;
    snd.noise.length_timer = r.u64("noise length timer")?;
    snd.noise.period_timer = r.u64("noise period timer")?;
    snd.noise.envelope_timer = r.u64("noise envelope timer")?;
    r.skip(8, "noise period")?;
    snd.noise_lfsr = r.u64("noise shift register")?;
    r.skip(8, "noise feed")?;
    snd.noise.volume = r.u64("noise volume")?;
    r.skip(8 * 3 + 1, "noise counter")?;

    // Renderer
    let mut screen = Box::new([0u8; PIXELS * 4]);
    for px in screen.chunks_exact_mut(4) {
        px.copy_from_slice(r.take(4, "screen")?);
        r.skip(1, "screen attributes")?;
    }
    r.skip(1, "window Y latch")?;

    // RAM
    let mut wram = Box::new([0u8; 0x2000]);
    let mut cgb_wram = None;
    if is_cgb {
        let mut banks = Box::new([0u8; 0x8000]);
        banks.copy_from_slice(r.take(0x8000, "WRAM (8 banks)")?);
        wram.copy_from_slice(&banks[..0x2000]);
        cgb_wram = Some(banks);
    } else {
        wram.copy_from_slice(r.take(0x2000, "WRAM")?);
    }
    let mut unusable = [0u8; 0x60];
    unusable.copy_from_slice(r.take(0x60, "0xFEA0-0xFEFF")?);
    let mut io = [0u8; 0x4C];
    io.copy_from_slice(r.take(0x4C, "I/O registers")?);
    let mut hram = [0u8; 0x7F];
    hram.copy_from_slice(r.take(0x7F, "HRAM")?);
    let svbk = r.u8("WRAM bank select")? & 7;
    let cgb = match (hdma, cgb_wram) {
        (Some((hdma_regs, hdma_active, hdma_src, hdma_dst)), Some(wram)) => Some(PyBoyCgb {
            key0,
            key1,
            double_speed,
            hdma_regs,
            hdma_active,
            hdma_src,
            hdma_dst,
            lcd_speed_shift,
            lcd: cgb_lcd,
            wram,
            svbk,
        }),
        _ => None,
    };

    // Timer
    r.skip(1, "DIV")?;
    let tima = r.u8("TIMA")?;
    let div_counter = r.u16("DIV counter")?;
    r.skip(2, "TIMA reload countdown")?;
    let tma = r.u8("TMA")?;
    let tac = r.u8("TAC")?;
    let tima_reload = r.u8("TIMA reload state")?;
    r.skip(16, "timer cycles")?;

    // Cartridge
    let cart_type = rom.get(0x147).copied().unwrap_or(0);
    let mbc = pyboy_mbc(cart_type).ok_or_else(|| {
        Error::InvalidState(format!(
            "PyBoy cannot run cartridge type {cart_type:#04x}, so this state cannot be from this ROM"
        ))
    })?;
    let size_code = rom.get(0x149).copied().unwrap_or(0);
    let banks = pyboy_ram_banks(size_code).ok_or_else(|| {
        Error::InvalidState(format!(
            "the ROM's RAM size code {size_code:#04x} is not one PyBoy handles"
        ))
    })?;
    // Everything from here on depends on the cartridge: a state of another
    // game runs short or has bytes left over, which says so.
    let cart_at = r.pos;
    let fields = cartridge_and_rest(&mut r, mbc, banks);
    let fields = match fields {
        Ok(f) if r.pos == data.len() => f,
        _ => {
            let need = cart_at + cartridge_and_rest_len(mbc, banks);
            let rumble = if mbc == PyBoyMbc::Mbc5 {
                format!(" or {}", need + 1)
            } else {
                String::new()
            };
            return Err(Error::InvalidState(format!(
                "this PyBoy state is not from this ROM: it has {} bytes, where a PyBoy {} \
                 state of this cartridge ({mbc:?}, {banks} RAM bank(s) of 8 KiB) has \
                 {need}{rumble}; it was saved with another game (or the file is damaged)",
                data.len(),
                PYBOY_STATE_VERSION,
            )));
        }
    };
    let CartAndRest {
        rom_bank,
        ram_bank,
        ram_enabled,
        banking_mode,
        cart_ram,
        rtc,
        mbc1_bank1,
        mbc1_bank2,
        rumble,
        buttons,
        sb,
        sc,
    } = fields;
    Ok(PyBoyState {
        version,
        boot_rom_mapped,
        regs,
        sp,
        pc,
        ime,
        ei_delay,
        halted,
        stopped,
        ie,
        intf,
        cycles,
        dma_active,
        dma_source,
        dma_copied,
        vram,
        oam,
        lcdc,
        stat,
        ly,
        lyc,
        scy,
        scx,
        wy,
        wx,
        bgp,
        obp0,
        obp1,
        first_frame,
        lcd_reset,
        lcd_clock,
        sound: snd,
        screen,
        wram,
        io,
        hram,
        div_counter,
        tima,
        tma,
        tac,
        tima_reload,
        rom_bank,
        ram_bank,
        ram_enabled,
        banking_mode,
        cart_ram,
        rtc,
        mbc1_bank1,
        mbc1_bank2,
        rumble,
        buttons,
        sb,
        sc,
        object_priority,
        unusable,
        cgb,
    })
}

/// PyBoy's default DMG greys, shades 0..=3.
const PYBOY_GREYS: [u8; 4] = [0xFF, 0x99, 0x55, 0x00];

/// The shade of an RGBA pixel: the nearest PyBoy default grey.
fn shade_of(px: &[u8]) -> u8 {
    let luma = (px[0] as u32 * 299 + px[1] as u32 * 587 + px[2] as u32 * 114) / 1000;
    (0..4u8)
        .min_by_key(|&s| (PYBOY_GREYS[s as usize] as i32 - luma as i32).unsigned_abs())
        .unwrap_or(0)
}

/// A CGB frame of RGBA pixels (PyBoy's `x << 3` colours) as palette slots
/// of palette RAM `pal`: each pixel the first slot of its colour
/// (background palettes first), or of the nearest colour.
fn cgb_slots(screen: &[u8; PIXELS * 4], pal: &[u8; 128]) -> Box<[u8; PIXELS]> {
    let colours: Vec<[i32; 3]> = (0..64u8)
        .map(|s| {
            let c = crate::screen::slot_color(pal, s);
            [c & 31, (c >> 5) & 31, (c >> 10) & 31].map(|x| x as i32)
        })
        .collect();
    let mut slots = Box::new([0u8; PIXELS]);
    let mut last: Option<([u8; 3], u8)> = None;
    for (slot, px) in slots.iter_mut().zip(screen.chunks_exact(4)) {
        let rgb = [px[0], px[1], px[2]];
        if let Some((l, s)) = last.filter(|(l, _)| *l == rgb) {
            let _ = l;
            *slot = s;
            continue;
        }
        let want = rgb.map(|x| (x >> 3) as i32);
        let s = (0..64u8)
            .min_by_key(|&s| {
                let c = colours[s as usize];
                (0..3).map(|i| (c[i] - want[i]).pow(2)).sum::<i32>()
            })
            .unwrap_or(0);
        last = Some((rgb, s));
        *slot = s;
    }
    slots
}

/// PyBoy's sound state as emurust's APU import.
fn apu_import(s: &SoundState) -> ApuImport {
    let mut regs = [0u8; 0x16];
    let mut set = |a: u16, v: u8| regs[(a - 0xFF10) as usize] = v;
    let env = |c: &SoundChannel| c.env_volume << 4 | (c.env_up as u8) << 3 | (c.env_pace & 7);
    set(
        0xFF10,
        (s.sweep_pace & 7) << 4 | (s.sweep_down as u8) << 3 | (s.sweep_shift & 7),
    );
    for (i, c) in s.square.iter().enumerate() {
        let base = 0xFF10 + 5 * i as u16;
        set(base + 1, (c.duty & 3) << 6 | (c.length_load & 63));
        set(base + 2, env(c));
        set(base + 3, c.period as u8);
        set(
            base + 4,
            (c.length_enable as u8) << 6 | ((c.period >> 8) & 7) as u8,
        );
    }
    let w = &s.wave;
    set(0xFF1A, (s.wave_dac as u8) << 7);
    set(0xFF1B, w.length_load);
    set(0xFF1C, (s.wave_volume & 3) << 5);
    set(0xFF1D, w.period as u8);
    set(
        0xFF1E,
        (w.length_enable as u8) << 6 | ((w.period >> 8) & 7) as u8,
    );
    let n = &s.noise;
    set(0xFF20, n.length_load & 63);
    set(0xFF21, env(n));
    set(
        0xFF22,
        s.noise_clock_shift << 4 | (s.noise_short as u8) << 3 | (s.noise_divisor & 7),
    );
    set(0xFF23, (n.length_enable as u8) << 6);
    set(0xFF24, s.nr50);
    set(0xFF25, s.nr51);
    let ch = |c: &SoundChannel, pos: u64| ChannelImport {
        on: c.enable,
        length: c.length_timer.min(256) as u16,
        len_enable: c.length_enable,
        volume: c.volume.min(15) as u8,
        env_timer: c.envelope_timer.clamp(1, 8) as u8,
        pos: pos as u8,
        timer_left: c.period_timer.min(1 << 16),
    };
    ApuImport {
        powered: s.powered,
        regs,
        wave_ram: s.wave_ram,
        fs_step: (s.div_apu % 8) as u8,
        channels: [
            ch(&s.square[0], s.square[0].frame % 8),
            ch(&s.square[1], s.square[1].frame % 8),
            ch(w, w.frame % 32),
            ch(n, 0),
        ],
        sweep: (
            s.sweep_shadow as u16,
            s.sweep_timer.clamp(1, 8) as u8,
            s.sweep_enabled,
            s.sweep_negate_used,
        ),
        lfsr: s.noise_lfsr as u16,
    }
}

impl GameBoy {
    /// Load a state that PyBoy 2.8.1 saved (`PyBoy.save_state`) for this
    /// ROM (see the module docs for what is taken over and how the rest is
    /// filled in). The clock becomes PyBoy's (T-cycles since power-on); the
    /// frame count is kept. On error the machine is unchanged.
    pub fn load_pyboy_state(&mut self, data: &[u8]) -> Result<()> {
        let st = parse(data, self.cartridge().rom())?;
        let machine_cgb = self.model() == crate::cgb::Model::Cgb;
        match (&st.cgb, machine_cgb) {
            (None, true) => {
                return Err(Error::InvalidState(
                    "this PyBoy state was saved emulating a DMG (cgb=False, or a DMG game with \
                     cgb=None); this machine is a Game Boy Color: load it into model=\"dmg\" \
                     (PyBoy(..., cgb=False))"
                        .into(),
                ))
            }
            (Some(_), false) => {
                return Err(Error::InvalidState(
                    "this PyBoy state was saved emulating a Game Boy Color (cgb=True, or a CGB \
                     game with cgb=None); this machine is a DMG: load it into model=\"cgb\" \
                     (PyBoy(..., cgb=True))"
                        .into(),
                ))
            }
            (Some(cgb), true) => {
                let state_mode = cgb.lcd.is_some();
                if state_mode != self.hardware().cgb_mode() {
                    let mode = |m: bool| {
                        if m {
                            "CGB mode"
                        } else {
                            "DMG compatibility mode"
                        }
                    };
                    return Err(Error::InvalidState(format!(
                        "this PyBoy state's Game Boy Color runs in {}, this machine in {} \
                         (the cartridge header decides: was the state saved with another game?)",
                        mode(state_mode),
                        mode(self.hardware().cgb_mode())
                    )));
                }
                if cgb.lcd_speed_shift > 1 || (cgb.lcd_speed_shift == 1) != cgb.double_speed {
                    return Err(Error::InvalidState(format!(
                        "corrupted PyBoy state: double speed {} with an LCD speed shift of {}",
                        cgb.double_speed, cgb.lcd_speed_shift
                    )));
                }
            }
            (None, false) => {}
        }
        let (core, ram, screen) = self.parts_mut();
        let mut c = core.clone();
        let now = st.cycles;
        if now > 1 << 60 {
            return Err(Error::InvalidState(format!(
                "corrupted PyBoy state: {now} cycles since power-on"
            )));
        }
        c.hw.import_reset(now, st.boot_rom_mapped, st.io[0x46]);
        // A CGB: the speed, and the dot clock of the PPU and APU, equal to
        // the CPU's clock now (`CgbHw::dots`), then the registers of its own.
        let double = st.cgb.as_ref().is_some_and(|g| g.double_speed);
        if let (Some(g), Some(h)) = (&st.cgb, c.hw.cgb.as_deref_mut()) {
            h.double = g.double_speed;
            h.cpu_base = now;
            h.dot_base = now;
            h.key1_armed = g.key1 & 1 != 0;
            h.svbk = g.svbk;
            h.hdma = crate::cgb::Hdma {
                src: g.hdma_src & 0xFFF0,
                dst: g.hdma_dst & 0x1FF0,
                blocks: g.hdma_regs[4] & 0x7F,
                hblank: g.hdma_active,
                missed: crate::cgb::NO_LINE,
                halted: false,
            };
            // Banks 2-7 live here, 0 and 1 in the RAM block (below).
            h.wram[..2 * WRAM_BANK].fill(0);
            h.wram[2 * WRAM_BANK..].copy_from_slice(&g.wram[2 * WRAM_BANK..]);
            // 24 bytes, each at four addresses: PyBoy's byte at the address
            // with bits 3 and 4 clear.
            h.unusable = [0; 0x60];
            for i in (0..0x60).filter(|i| i & 0x18 == 0) {
                h.unusable[i] = st.unusable[i];
            }
            c.hw.speed_mapped = double;
        }
        if st.boot_rom_mapped && !c.hw.boot_rom_mapped() {
            return Err(Error::InvalidState(
                "the PyBoy state was saved while its boot ROM was running; load it into a \
                 machine started with that boot ROM (GameBoy(rom, boot_rom=...), \
                 PyBoy(rom, bootrom=...))"
                    .into(),
            ));
        }

        // CPU. PyBoy keeps PC on a HALT while halted; emurust past it.
        let [a, f, b, cc, d, e, h, l] = st.regs;
        let halted = st.halted && !st.stopped;
        let pc = if halted { st.pc.wrapping_add(1) } else { st.pc };
        c.cpu.set_registers(crate::Registers {
            a,
            f,
            b,
            c: cc,
            d,
            e,
            h,
            l,
            sp: st.sp,
            pc,
        });
        c.cpu.set_ime(st.ime);
        c.cpu.import_mode(halted, st.stopped, st.ei_delay > 0);

        // Timer: the system counter, then TAC, TMA and TIMA.
        let mut timer = Timer::new(0);
        timer.set_system_counter(st.div_counter, now);
        timer.catch_up(now);
        timer.write(0xFF07, st.tac, now);
        timer.write(0xFF06, st.tma, now);
        timer.write(
            0xFF05,
            if st.tima_reload == 1 { st.tma } else { st.tima },
            now,
        );
        c.hw.timer = timer;

        // Cartridge: the MBC registers as writes, then the RAM.
        let cart = &mut c.hw.cart;
        let enable = if st.ram_enabled { 0x0A } else { 0x00 };
        match pyboy_mbc(cart.cartridge_type()) {
            Some(PyBoyMbc::Mbc1) => {
                cart.write_rom(0x0000, enable, now);
                cart.write_rom(0x2000, st.mbc1_bank1, now);
                cart.write_rom(0x4000, st.mbc1_bank2, now);
                cart.write_rom(0x6000, st.banking_mode, now);
            }
            Some(PyBoyMbc::Mbc2) => {
                cart.write_rom(0x0000, enable, now);
                cart.write_rom(0x0100, st.rom_bank, now);
            }
            Some(PyBoyMbc::Mbc3 { .. }) => {
                cart.write_rom(0x0000, enable, now);
                cart.write_rom(0x2000, st.rom_bank, now);
                cart.write_rom(0x4000, st.ram_bank, now);
            }
            Some(PyBoyMbc::Mbc5) => {
                cart.write_rom(0x0000, enable, now);
                cart.write_rom(0x2000, st.rom_bank, now);
                cart.write_rom(0x3000, 0, now);
                cart.write_rom(0x4000, st.ram_bank | (st.rumble as u8) << 3, now);
            }
            _ => {}
        }
        let ram_len = cart.battery_ram_len();
        let rtc_len = if st.rtc.is_some() && cart.has_rtc() {
            crate::cartridge::rtc::BATTERY_BLOCK_LEN
        } else {
            0
        };
        let mut battery = vec![0u8; ram_len];
        let n = (ram_len - rtc_len).min(st.cart_ram.len());
        battery[..n].copy_from_slice(&st.cart_ram[..n]);
        if let (Some(regs), true) = (st.rtc, rtc_len > 0) {
            let block = &mut battery[ram_len - rtc_len..];
            for (i, &v) in regs.iter().chain(regs.iter()).enumerate() {
                block[i * 4..i * 4 + 4].copy_from_slice(&(v as u32).to_le_bytes());
            }
        }
        if ram_len > 0 {
            cart.load_battery_ram(&battery)?;
        }

        // Joypad, serial.
        c.hw.joypad = crate::joypad::Joypad::new();
        // PyBoy stores what P1 reads, in which both groups deselected (0x30)
        // and both selected (0x00) look alike (0xCF): both selected reads
        // the same as PyBoy with no button held.
        let _ = c.hw.joypad.write(st.io[0] & 0x30);
        c.set_buttons(st.buttons);
        let mut serial = crate::serial::Serial::new();
        serial.output = c.hw.serial.output.clone();
        serial.write(0xFF01, st.sb, now, st.div_counter);
        if st.sc & 0x81 == 0x81 {
            serial.write(0xFF02, st.sc, now, st.div_counter);
            serial.output.pop(); // the byte was logged when the transfer began
        } else {
            serial.sc = st.sc | 0x7E;
        }
        c.hw.serial = serial;

        // PPU: registers, memory, then its place in the frame.
        let ppu = &mut c.hw.ppu;
        ppu.scy = st.scy;
        ppu.scx = st.scx;
        ppu.wy = st.wy;
        ppu.wx = st.wx;
        ppu.bgp = st.bgp;
        ppu.obp0 = st.obp0;
        ppu.obp1 = st.obp1;
        ppu.lcdc = st.lcdc;
        ppu.import_memory(&st.vram, &st.oam, st.stat, st.lyc);
        if let Some(g) = &st.cgb {
            let lcd = g.lcd.as_ref();
            // OPRI: PyBoy holds 0xFF until a game writes it (it does not
            // emulate it): the boot ROM's value (0 in CGB mode, 1 in DMG
            // compatibility mode).
            let opri = Some(match st.object_priority {
                0xFF => lcd.is_none() as u8,
                v => v & 1,
            });
            ppu.import_cgb(
                lcd.map(|l| &*l.vram1),
                lcd.map_or(0, |l| l.vbk),
                lcd.map(|l| &l.pal),
                lcd.map(|l| l.bcps),
                lcd.map(|l| l.ocps),
                opri,
            );
            ppu.set_hdma_wake(g.hdma_active);
        }
        let clock = st.lcd_clock % DOTS_PER_FRAME;
        let position = if st.lcdc & 0x80 == 0 {
            PpuPosition::Off {
                lyc_flag: st.stat & 4 != 0,
            }
        } else if st.lcd_reset {
            PpuPosition::SwitchedOnAt { at: now }
        } else if st.first_frame {
            PpuPosition::SwitchedOnAt {
                at: now.saturating_sub(st.lcd_clock),
            }
        } else {
            // PyBoy's mode 2 of line 0 (its LY wrap) is at clock 0, 4
            // dots after emurust's line 0 starts.
            PpuPosition::InFrame { dots: clock + 4 }
        };
        ppu.import_position(now, position);
        if let Some(pal) = ppu.palette_ram().copied() {
            ppu.import_frame_cgb(&cgb_slots(&st.screen, &pal));
        } else {
            let mut shades = [0u8; PIXELS];
            for (s, px) in shades.iter_mut().zip(st.screen.chunks_exact(4)) {
                *s = shade_of(px);
            }
            ppu.import_frame(&shades);
        }
        c.hw.frame_start = match position {
            // PyBoy counts blank frames from its LCDC write, which it times
            // 8 T-cycles earlier than emurust (`pyboy/hooks.rs`).
            // (PyBoy's clock counts dots: 2 CPU T-cycles each in double speed.)
            PpuPosition::Off { .. } => now - (clock << double as u32).min(now) + 8,
            // The last VBlank start (line 144), where the frame grid is kept.
            PpuPosition::InFrame { dots } => {
                let vblank = 144 * crate::clock::DOTS_PER_LINE;
                let since = (dots + DOTS_PER_FRAME - vblank) % DOTS_PER_FRAME;
                // In double speed the CPU's clock runs two T-cycles a dot.
                now.saturating_sub(since << double as u32)
            }
            PpuPosition::SwitchedOnAt { .. } => now,
        };

        // APU.
        if st.sound.emulated || st.sound.powered {
            c.hw.apu.import(now, &apu_import(&st.sound));
        } else {
            let rate = c.hw.apu.sample_rate();
            c.hw.apu = Apu::post_boot();
            if machine_cgb {
                c.hw.apu.make_cgb();
            }
            // A fresh APU: give it the machine's reference setting again.
            c.hw.set_reference(c.hw.reference());
            // In double speed the APU sees the counter halved (`apu_clock`).
            let counter = c.hw.timer.system_counter(now) >> double as u32;
            c.hw.apu.catch_up(now, counter);
            c.hw.apu.set_sample_rate(rate)?;
        }

        // RAM, OAM DMA, interrupts.
        let mut new_ram = *ram;
        new_ram[..0x2000].copy_from_slice(&st.wram[..]);
        new_ram[0x2000..].copy_from_slice(&st.hram);
        c.hw.map_wram_bank();
        if st.dma_active && st.dma_copied < 160 {
            let src = (st.dma_source as u16) << 8;
            for i in st.dma_copied as u16..160 {
                let addr = src | i;
                let v = match addr {
                    // A CGB reads its banked work RAM, OAM and 0xFEA0-0xFEFF.
                    _ if machine_cgb => c.hw.peek(&new_ram, addr),
                    0xC000..=0xFFFF => new_ram[(addr & 0x1FFF) as usize],
                    _ => c.hw.peek(&new_ram, addr),
                };
                c.hw.ppu.write_oam(i as usize, v);
            }
        }
        c.hw.ie = st.ie;
        c.hw.intf = st.intf | if st.tima_reload == 1 { IRQ_TIMER } else { 0 };
        c.hw.set_deadline(u64::MAX);
        if let Some(diag) = c.diag.as_deref_mut() {
            diag.clear();
        }
        *core = c;
        *ram = new_ram;
        screen.show(&core.hw.ppu);
        Ok(())
    }
}

/// Little-endian writer for [`GameBoy::save_pyboy_state`].
struct Out(Vec<u8>);

impl Out {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn flag(&mut self, v: bool) {
        self.0.push(v as u8);
    }
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn f64(&mut self, v: f64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn bytes(&mut self, v: &[u8]) {
        self.0.extend_from_slice(v);
    }
    fn zeros(&mut self, n: usize) {
        self.0.resize(self.0.len() + n, 0);
    }
}

/// PyBoy's "no event" time (`MAX_CYCLES`, 2^31).
const PYBOY_NEVER: u64 = 1 << 31;
/// Sound samples per frame and T-cycles per sample at PyBoy's default 48 kHz.
const PYBOY_SAMPLES_PER_FRAME: u64 = 804;

/// A square channel of an APU that never ran (PyBoy with `sound_emulated=False`).
fn idle_square(o: &mut Out) {
    o.zeros(5); // duty, length, envelope volume, direction, pace
    o.u16(0); // period
    o.zeros(2); // length enable, enable
    o.u64(64); // length timer
    o.u64(0); // envelope timer
    o.u64(0); // period timer
    o.u64(4); // period
    o.u64(0); // wave frame
    o.u64(0); // volume
    o.zeros(3); // duty update
}

/// The sound section as PyBoy started with `sound_emulated=False` saves it
/// (its APU never runs, so every such state holds these values but the
/// clock).
fn idle_sound(o: &mut Out, now: u64, speed_shift: u8) {
    o.u64(0); // buffer head
    o.u64(PYBOY_SAMPLES_PER_FRAME);
    o.f64(crate::clock::CLOCK_HZ as f64 / 48_000.0); // T-cycles per sample
    o.zeros((PYBOY_SAMPLES_PER_FRAME as usize + 1) * 2); // the sample buffer
    o.u8(speed_shift);
    o.f64(PYBOY_NEVER as f64);
    o.f64(PYBOY_NEVER as f64);
    o.u64(PYBOY_NEVER); // cycles to interrupt
    o.u64(0); // cycles
    o.u64(now); // last cycles
    o.u64(0); // frame-sequencer counter
    o.u64(3); // frame-sequencer step
    o.zeros(3); // power-on after DIV write, power, sampling off
    o.zeros(8 + 1); // NR51, NR50
    idle_square(o);
    o.zeros(3); // sweep pace, direction, shift
    o.zeros(4 * 8); // sweep timers
    o.zeros(2); // negate used, enabled
    o.u64(0); // shadow
    idle_square(o);
    o.bytes(&[0xFF; 16]); // wave RAM
    o.zeros(3); // DAC, length, volume
    o.u16(0); // period
    o.zeros(2); // length enable, enable
    o.u64(256); // length timer
    o.u64(0); // period timer
    o.u64(4); // period
    o.u64(0); // wave frame
    o.u8(0);
    o.u64(0);
    o.zeros(2);
    o.u64(0); // sample state
    o.zeros(9); // noise registers and flags
    o.u64(64); // length timer
    o.u64(0); // period timer
    o.u64(0); // envelope timer
    o.u64(8); // period
    o.u64(1); // shift register
    o.u64(16384); // feed
    o.u64(0); // volume
    o.zeros(3 * 8 + 1); // counter
}

impl GameBoy {
    /// The machine as a PyBoy 2.8.1 save state (format version 29), which
    /// `PyBoy.load_state` reads and continues from as PyBoy would have: the
    /// state PyBoy itself saves at the same point. Only at a frame end as
    /// PyBoy's `tick()` leaves it (LY just wrapped to 0, the LCD on: where
    /// `emurust.PyBoy.tick` returns), with no boot ROM mapped, no OAM DMA,
    /// TIMA reload or serial transfer in progress, and a cartridge PyBoy
    /// emulates (not an MBC3 with a clock or an MBC1 multicart); else
    /// `InvalidState` naming what is in the way. The sound section is the
    /// one a PyBoy with `sound_emulated=False` saves (its APU never runs);
    /// the screen is written in the machine's palette (a CGB's: the colours
    /// of each line's palettes, PyBoy's `x << 3` conversion). On a CGB the
    /// CGB's fields are written too (see the module docs, "The Game Boy
    /// Color").
    pub fn save_pyboy_state(&mut self) -> Result<Vec<u8>> {
        let refuse = |why: &str| {
            Err(Error::InvalidState(format!(
                "cannot write a PyBoy state now: {why}"
            )))
        };
        self.catch_up();
        let rom = self.cartridge().rom().clone();
        let (core, ram, screen) = self.parts_mut();
        let hw = &core.hw;
        let now = hw.now;
        // PyBoy's LCD clock: T-cycles since its LY wrapped to 0 (4 after
        // emurust's line 0 began); its frames end at the first instruction
        // boundary from there, in the line's OAM scan (80 T-cycles).
        let cgb = hw.cgb.as_deref();
        let cgb_mode = hw.cgb_mode();
        let double = cgb.is_some_and(|g| g.double);
        // Dots from emurust's line 0 to PyBoy's LY wrap.
        let early = 4;
        let clock = match hw.ppu.frame_dots(hw.dots_at(now)) {
            None => {
                return refuse(
                    "the LCD is off (PyBoy states are written at frame ends with the LCD on)",
                )
            }
            Some(d) if (early..84).contains(&d) => d - early,
            Some(_) => {
                return refuse(
                    "not at a frame end as PyBoy's tick() leaves it (LY just wrapped to 0)",
                )
            }
        };
        if hw.boot_rom_mapped() {
            return refuse("the boot ROM is still running");
        }
        if hw.dma_pending() {
            return refuse("an OAM DMA is in progress");
        }
        if hw.timer.reloading() {
            return refuse("a TIMA reload is in progress");
        }
        if hw.serial.transferring() {
            return refuse("a serial transfer is in progress");
        }
        let cart = &hw.cart;
        let cart_type = cart.cartridge_type();
        let Some(mbc) = pyboy_mbc(cart_type) else {
            return refuse(&format!(
                "PyBoy does not emulate cartridge type {cart_type:#04x}"
            ));
        };
        if mbc == (PyBoyMbc::Mbc3 { rtc: true }) {
            return refuse(
                "the cartridge has a clock (MBC3+TIMER), whose PyBoy state is not written",
            );
        }
        let Some(b) = cart.pyboy_banks() else {
            return refuse("MBC1 multicarts are not written");
        };
        let banks = pyboy_ram_banks(rom.get(0x149).copied().unwrap_or(0)).ok_or_else(|| {
            Error::InvalidState("the ROM's RAM size code is not one PyBoy handles".into())
        })?;

        let mut o = Out(Vec::with_capacity(160_000));
        // Header: version, boot ROM, KEY0, KEY1, double speed, CGB (then
        // the HDMA).
        o.u8(PYBOY_STATE_VERSION);
        o.u8(0);
        match cgb {
            None => o.zeros(4),
            Some(g) => {
                // KEY0 as PyBoy's boot ROM leaves it (bit 2: a DMG cartridge).
                o.u8(if cgb_mode { 0 } else { 4 });
                o.u8((g.double as u8) << 7 | g.key1_armed as u8);
                o.flag(g.double);
                o.u8(1);
                let (src, dst) = (g.hdma.src, g.hdma.dst | 0x8000);
                o.bytes(&[(src >> 8) as u8, src as u8, (dst >> 8) as u8, dst as u8]);
                // HDMA5: the blocks left less one; bit 7 clear while an
                // HBlank DMA runs (0xFF once done).
                o.u8(if g.hdma.hblank { 0 } else { 0x80 } | g.hdma.blocks);
                o.flag(g.hdma.hblank);
                o.u16(src);
                o.u16(dst);
            }
        }
        // CPU. PyBoy keeps PC on a HALT while halted.
        let r = core.cpu.registers();
        o.bytes(&[r.a, r.f, r.b, r.c, r.d, r.e]);
        o.u16(u16::from_be_bytes([r.h, r.l]));
        o.u16(r.sp);
        let halted = core.cpu.halted() && !core.cpu.stopped();
        o.u16(if halted { r.pc.wrapping_sub(1) } else { r.pc });
        o.flag(core.cpu.ime());
        o.u8(core.cpu.ime_pending() as u8);
        o.flag(halted);
        o.flag(core.cpu.stopped());
        o.u8(hw.ie);
        o.u8(0); // interrupt queued
        o.u8(hw.peek(ram, 0xFF0F) & 0x1F);
        o.u64(now);
        // OAM DMA: none running. PyBoy keeps the last one's start, the time
        // emurust copies its byte 0 at (the same on games:
        // tests/test_pyboy_boot.py compares the states byte for byte).
        o.zeros(2);
        let dma = hw.dma_last_start();
        if dma == u64::MAX {
            o.u8(0); // PyBoy's source before any DMA
            o.u8(160);
            o.u64(0);
        } else {
            o.u8(hw.peek(ram, 0xFF46));
            o.u8(160);
            o.u64(dma);
        }
        // LCD at its frame end: line 0, mode 2.
        let ppu = &hw.ppu;
        o.bytes(&ppu.vram_bank_data(0)[..]);
        o.bytes(&ppu.oam()[..]);
        let lcdc = ppu.lcdc;
        o.bytes(&[lcdc, ppu.bgp, ppu.obp0, ppu.obp1]);
        let lyc = hw.peek(ram, 0xFF45);
        o.u8(0x80 | ppu.stat_enables() | ((lyc == 0) as u8) << 2 | 2);
        o.bytes(&[0, lyc, ppu.scy, ppu.scx, ppu.wy, ppu.wx]);
        // OPRI: 0xFF (PyBoy's value until a game writes it) where it holds
        // the boot ROM's value (`load_pyboy_state` reads it back so).
        let pc = ppu.cgb.as_deref();
        let opri = pc.map(|p| p.opri);
        o.u8(match opri {
            Some(v) if v != (!cgb_mode) as u8 => v,
            _ => 0xFF,
        });
        let lines = ppu
            .line_registers()
            .unwrap_or_else(|| vec![[ppu.scx, ppu.scy, ppu.wx, ppu.wy]; 144]);
        for l in &lines {
            o.bytes(&[l[0], l[1], l[2], l[3], lcdc & 0x10]);
        }
        // CGB, downgraded to DMG (compatibility mode), speed shift.
        o.bytes(&[
            cgb_mode as u8,
            (cgb.is_some() && !cgb_mode) as u8,
            double as u8,
        ]);
        o.u8(1); // frame done
        o.zeros(2); // first frame after LCD on, reset
        o.u64(now); // last cycles
        o.u64(clock);
        o.u64(80); // clock target: mode 3 of line 0
        o.u8(3); // next STAT mode
        o.u8(0); // STAT transition
        if let (true, Some(pal), Some(p)) = (cgb_mode, ppu.palette_ram(), pc) {
            o.bytes(&ppu.vram_bank_data(1)[..]);
            o.u8(p.vbk & 1);
            let (bcps, ocps) = (p.bcps & 0xBF, p.ocps & 0xBF);
            // PyBoy's index registers: the value, auto-increment, index, high.
            let index_reg = |spec: u8| [spec, spec >> 7, (spec >> 1) & 0x1F, spec & 1];
            o.bytes(&index_reg(bcps));
            o.bytes(&pal[..64]);
            o.bytes(&index_reg(ocps));
            o.bytes(&pal[64..]);
        }
        idle_sound(&mut o, now, double as u8);
        // Screen: the last frame, RGBA, and an attribute byte a pixel.
        // The attribute PyBoy's renderer keeps (background colour 0 there) is
        // only read while a line is drawn; it is approximated from the shade.
        if let Some(lines) = ppu.line_palettes() {
            // A CGB: palette slots in each line's palettes, PyBoy's colours;
            // the attribute says "colour 0 of a background palette".
            let conv = crate::screen::ColorConversion::Pyboy;
            for (i, &s) in ppu.frame().iter().enumerate() {
                let [r, g, b] = conv.rgb(crate::screen::slot_color(&lines[i / 160], s));
                o.bytes(&[r, g, b, 0xFF, (s < 32 && s & 3 == 0) as u8]);
            }
        } else {
            let pal = screen.palette();
            let colour0 = ppu.bgp & 3;
            for &s in ppu.frame().iter() {
                let [r, g, b] = pal[(s & 3) as usize];
                o.bytes(&[r, g, b, 0xFF, (s & 3 == colour0) as u8]);
            }
        }
        o.flag(ppu.wy == 0); // window-Y latch (LY = 0 has met WY)
                             // RAM: WRAM, 0xFEA0-0xFEFF, I/O (PyBoy keeps P1 there), HRAM, WRAM bank.
        match cgb {
            None => {
                o.bytes(&ram[..0x2000]);
                o.zeros(0x60);
            }
            Some(g) => {
                for bank in 0..8 {
                    o.bytes(g.wram_bank_bytes(ram, bank));
                }
                for addr in 0xFEA0..=0xFEFF {
                    o.u8(g.unusable[crate::cgb::unusable_index(addr)]);
                }
            }
        }
        // P1 as PyBoy keeps it: the selected group's buttons under 0xC0 and the
        // select bits, 0xCF with both groups or none selected.
        let p1 = hw.peek(ram, 0xFF00);
        let mut io = [0u8; 0x4C];
        io[0] = match p1 & 0x30 {
            // Both groups selected: as at power-on, where PyBoy holds 0 until
            // the game first writes P1 (a game that selects both later reads
            // 0xCF on PyBoy, which emurust cannot tell apart).
            0x00 => 0x00,
            0x30 => 0xCF,
            sel => 0xC0 | sel | (p1 & 0x0F),
        };
        o.bytes(&io);
        for addr in 0xFF80..=0xFFFE {
            o.u8(hw.peek(ram, addr));
        }
        o.u8(cgb.map_or(0, |g| g.svbk));
        // Timer.
        let counter = hw.timer.system_counter(now);
        let tima = hw.peek(ram, 0xFF05);
        let tac = hw.peek(ram, 0xFF07) & 7;
        o.u8((counter >> 8) as u8);
        o.u8(tima);
        o.u16(counter);
        o.u16(0); // reload countdown
        o.u8(hw.peek(ram, 0xFF06));
        o.u8(tac);
        o.u8(0); // reload state
        o.u64(now);
        o.u64(if tac & 4 != 0 {
            let period = [1024u64, 16, 64, 256][(tac & 3) as usize];
            let c = counter as u64;
            ((c & !(period - 1)) + period - c) + (0xFF - tima as u64) * period
        } else {
            PYBOY_NEVER
        });
        // Cartridge: the bank registers as PyBoy keeps them, every RAM bank.
        o.u8(b.rom as u8);
        o.u8(b.ram);
        o.flag(b.ram_enabled);
        o.u8(b.mode);
        let mut cart_ram = cart.battery_ram();
        cart_ram.truncate(
            cart.battery_ram_len()
                - if cart.has_rtc() {
                    crate::cartridge::rtc::BATTERY_BLOCK_LEN
                } else {
                    0
                },
        );
        if mbc == PyBoyMbc::Mbc2 {
            cart_ram.iter_mut().for_each(|b| *b |= 0xF0);
        }
        cart_ram.resize(banks * 0x2000, 0);
        o.bytes(&cart_ram);
        match mbc {
            PyBoyMbc::Mbc1 => o.bytes(&b.mbc1),
            PyBoyMbc::Mbc5 => {
                o.flag(b.rumble[0]);
                if b.rumble[0] {
                    o.flag(b.rumble[1]);
                }
            }
            _ => {}
        }
        // Joypad (0 = pressed), serial, SGB (none).
        let pressed = hw.joypad.pressed;
        o.u8(!pressed & 0x0F);
        o.u8(!(pressed >> 4) & 0x0F);
        o.u8(hw.peek(ram, 0xFF01));
        o.u8(hw.peek(ram, 0xFF02));
        o.zeros(2);
        o.u64(now);
        o.u64(PYBOY_NEVER);
        o.u64(now);
        o.u64(PYBOY_NEVER);
        o.bytes(&[0, 0, 1, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]);
        o.zeros(0x2000 + 0x800 + 0x80);
        Ok(o.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rom() -> Vec<u8> {
        vec![0u8; 0x8000]
    }

    fn message(data: &[u8]) -> String {
        match parse(data, &rom()) {
            Err(Error::InvalidState(m)) => m,
            other => panic!("expected an error, got {:?}", other.map(|s| s.version)),
        }
    }

    #[test]
    fn other_versions_and_truncated_states_are_refused_by_name() {
        assert!(message(&[]).contains("empty"));
        let m = message(&[28, 0, 0, 0, 0, 0]);
        assert!(m.contains("version 28") && m.contains("version 29"), "{m}");
        let m = message(&[29, 0, 0, 0, 0, 1, 0, 0]);
        assert!(m.contains("truncated") && m.contains("HDMA"), "{m}");
        let m = message(&[29, 0, 0, 0, 0, 0, 1, 2]);
        assert!(m.contains("truncated") && m.contains("offset 8"), "{m}");
    }

    /// A ROM-only cartridge whose loop writes SCX and WRAM: 0x0150 INC A;
    /// LDH (SCX),A; LD (0xC000),A; JR back.
    fn busy_rom() -> Vec<u8> {
        let mut rom = rom();
        rom[0x100..0x103].copy_from_slice(&[0xC3, 0x50, 0x01]);
        rom[0x150..0x158].copy_from_slice(&[0x3C, 0xE0, 0x43, 0xEA, 0x00, 0xC0, 0x18, 0xF6]);
        rom
    }

    #[test]
    fn a_written_pyboy_state_reads_back_as_the_same_machine() {
        let mut gb = GameBoy::new(&busy_rom(), None).unwrap();
        gb.record_line_registers(true);
        let mut hooks = crate::pyboy::hooks::HookTable::new();
        for _ in 0..3 {
            gb.run_pyboy_frame(false, &mut hooks);
        }
        let state = gb.save_pyboy_state().expect("at a PyBoy frame end");
        let mut copy = GameBoy::new(&busy_rom(), None).unwrap();
        copy.record_line_registers(true);
        copy.load_pyboy_state(&state).unwrap();
        for _ in 0..5 {
            gb.run_pyboy_frame(true, &mut hooks);
            copy.run_pyboy_frame(true, &mut hooks);
            assert_eq!(gb.cycles(), copy.cycles());
            assert_eq!(gb.registers(), copy.registers());
            assert_eq!(gb.ram(), copy.ram());
        }
        // Written again from the copy: the same bytes.
        let (a, b) = (
            gb.save_pyboy_state().unwrap(),
            copy.save_pyboy_state().unwrap(),
        );
        assert_eq!(a.len(), b.len());
        let first = a.iter().zip(&b).position(|(x, y)| x != y);
        assert_eq!(first, None, "the two states differ from byte {first:?}");
    }

    /// A CGB-only cartridge (header 0xC0) whose program selects the
    /// buttons in P1, switches to double
    /// speed, fills palettes, VRAM bank 1 and WRAM banks, starts an HBlank
    /// DMA and then loops writing SCX, a banked WRAM byte and BCPD.
    fn cgb_rom() -> Vec<u8> {
        let mut rom = rom();
        rom[0x143] = 0xC0;
        rom[0x100..0x103].copy_from_slice(&[0xC3, 0x50, 0x01]);
        #[rustfmt::skip]
        let code = [
            0x3E, 0x10, 0xE0, 0x00, // P1: the buttons (PyBoy's 0xCF is ambiguous)
            0x3E, 0x01, 0xE0, 0x4D, 0x10, 0x00, // KEY1 = 1; STOP: double speed
            0x3E, 0x80, 0xE0, 0x68, // BCPS: auto-increment from 0
            0x06, 0x40, 0x78, 0xE0, 0x69, 0x05, 0x20, 0xFA, // 64 bytes of BCPD
            0x3E, 0x01, 0xE0, 0x4F, // VBK = 1
            0x3E, 0x23, 0xEA, 0x00, 0x98, // attributes of map tile 0
            0x3E, 0x05, 0xE0, 0x70, // SVBK = 5
            0x3E, 0x55, 0xEA, 0x34, 0xD2, // [0xD234] = 0x55 in bank 5
            0x3E, 0xC0, 0xE0, 0x51, 0xAF, 0xE0, 0x52, // HDMA source 0xC000
            0x3E, 0x81, 0xE0, 0x53, 0xAF, 0xE0, 0x54, // HDMA destination 0x8100
            0x3E, 0x90, 0xE0, 0x55, // HBlank DMA, 17 blocks
            0x3E, 0x3E, 0xEA, 0xA3, 0xFE, // [0xFEA3] = 0x3E (memory on a CGB)
            0x3C, 0xE0, 0x43, 0xEA, 0x00, 0xD1, 0xE0, 0x69, 0x18, 0xF6, // loop
        ];
        rom[0x150..0x150 + code.len()].copy_from_slice(&code);
        rom
    }

    #[test]
    fn a_cgb_pyboy_state_reads_back_as_the_same_machine() {
        let new = || {
            let mut gb = GameBoy::with_model(&cgb_rom(), None, crate::cgb::Model::Cgb).unwrap();
            gb.record_line_registers(true);
            gb
        };
        let mut gb = new();
        let mut hooks = crate::pyboy::hooks::HookTable::new();
        for _ in 0..3 {
            gb.run_pyboy_frame(true, &mut hooks);
        }
        assert!(gb.hardware().cgb.as_ref().unwrap().double, "double speed");
        let state = gb.save_pyboy_state().expect("at a PyBoy frame end");
        let mut copy = new();
        copy.load_pyboy_state(&state).unwrap();
        for _ in 0..5 {
            gb.run_pyboy_frame(true, &mut hooks);
            copy.run_pyboy_frame(true, &mut hooks);
            assert_eq!(gb.cycles(), copy.cycles());
            assert_eq!(gb.registers(), copy.registers());
            assert!(gb.ram() == copy.ram(), "work RAM and HRAM");
            for bank in 0..8 {
                let read =
                    |g: &GameBoy| g.read_bank(crate::cgb::BankedRegion::Wram, bank, 0, 0x1000);
                assert!(
                    read(&gb).unwrap() == read(&copy).unwrap(),
                    "WRAM bank {bank}"
                );
            }
            assert!(gb.screen().rgb() == copy.screen().rgb(), "the screen");
        }
        let (a, b) = (
            gb.save_pyboy_state().unwrap(),
            copy.save_pyboy_state().unwrap(),
        );
        let first = a.iter().zip(&b).position(|(x, y)| x != y);
        assert_eq!((a.len(), first), (b.len(), None), "the two states differ");
        // A DMG's state into a CGB and the reverse are refused by name.
        let mut dmg = GameBoy::new(&busy_rom(), None).unwrap();
        let err = dmg.load_pyboy_state(&state).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidState(m) if m.contains("model=\"cgb\"")),
            "{err:?}"
        );
        let mut hooks = crate::pyboy::hooks::HookTable::new();
        dmg.run_pyboy_frame(false, &mut hooks);
        dmg.run_pyboy_frame(false, &mut hooks);
        let dmg_state = dmg.save_pyboy_state().unwrap();
        let err = new().load_pyboy_state(&dmg_state).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidState(m) if m.contains("model=\"dmg\"")),
            "{err:?}"
        );
    }

    #[test]
    fn a_pyboy_state_is_written_only_at_a_pyboy_frame_end() {
        let mut gb = GameBoy::new(&busy_rom(), None).unwrap();
        gb.run_frames(3, false); // emurust's own frames end at VBlank
        let err = gb.save_pyboy_state().unwrap_err();
        assert!(
            matches!(&err, Error::InvalidState(m) if m.contains("frame end")),
            "{err:?}"
        );
    }

    #[test]
    fn a_state_longer_than_its_fields_is_refused() {
        // Fields of a ROM-only cartridge without RAM..., then one byte too many.
        let mut gb = GameBoy::new(&rom(), None).unwrap();
        let before = gb.save_state();
        let err = gb.load_pyboy_state(&[29; 200_000]).unwrap_err();
        assert!(matches!(err, Error::InvalidState(_)));
        assert_eq!(
            gb.save_state(),
            before,
            "a refused state leaves the machine unchanged"
        );
    }
}
