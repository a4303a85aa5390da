//! Reading a PyBoy 2.8.1 save state into plain fields (`parse`): the format
//! of the module documentation, field by field, with errors naming the field.

use crate::error::{Error, Result};
use crate::screen::PIXELS;

/// The PyBoy state format version read here (PyBoy 2.8.1's).
pub const PYBOY_STATE_VERSION: u8 = 29;

/// Little-endian reader with errors naming the field.
pub(super) struct In<'a> {
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
pub(super) fn palette_index(r: &mut In, what: &str) -> Result<u8> {
    r.skip(1, what)?; // the value written (bit 6 may be set by an increment)
    let auto = r.u8(what)? & 1;
    let index = r.u8(what)? & 0x1F;
    let hl = r.u8(what)? & 1;
    Ok(auto << 7 | index << 1 | hl)
}

/// PyBoy's palette memory (32 16-bit colours) into `out` (64 bytes).
pub(super) fn palette_memory(r: &mut In, out: &mut [u8], what: &str) -> Result<()> {
    for c in out.chunks_exact_mut(2) {
        c.copy_from_slice(&r.u16(what)?.to_le_bytes());
    }
    Ok(())
}

/// PyBoy's cartridge classes, by header type byte (`CARTRIDGE_TABLE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PyBoyMbc {
    RomOnly,
    Mbc1,
    Mbc2,
    Mbc3 { rtc: bool },
    Mbc5,
}

pub(super) fn pyboy_mbc(cart_type: u8) -> Option<PyBoyMbc> {
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
pub(super) fn pyboy_ram_banks(size_code: u8) -> Option<usize> {
    Some(match size_code {
        0..=2 => 1,
        3 => 4,
        4 => 16,
        5 => 8,
        _ => return None,
    })
}

/// The cartridge section of a PyBoy state and the fields after it.
pub(super) struct CartAndRest {
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
pub(super) fn cartridge_and_rest_len(mbc: PyBoyMbc, banks: usize) -> usize {
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

pub(super) fn cartridge_and_rest(r: &mut In, mbc: PyBoyMbc, banks: usize) -> Result<CartAndRest> {
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
pub(super) fn square_channel(r: &mut In, name: &str) -> Result<SoundChannel> {
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
