//! Writing an emurust machine as a PyBoy 2.8.1 save state
//! ([`GameBoy::save_pyboy_state`]).

use crate::error::{Error, Result};
use crate::gameboy::GameBoy;

use super::parse::{pyboy_mbc, pyboy_ram_banks, PyBoyMbc, PYBOY_STATE_VERSION};

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
