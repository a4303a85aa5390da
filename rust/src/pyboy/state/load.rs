//! Loading parsed PyBoy fields into an emurust machine
//! ([`GameBoy::load_pyboy_state`]), filling in what the state lacks.

use crate::apu::{Apu, ApuImport, ChannelImport};
use crate::cgb::WRAM_BANK;
use crate::error::{Error, Result};
use crate::gameboy::GameBoy;
use crate::ppu::{PpuPosition, DOTS_PER_FRAME};
use crate::screen::PIXELS;
use crate::timer::{Timer, IRQ_TIMER};

use super::parse::{parse, pyboy_mbc, PyBoyMbc, SoundChannel, SoundState};

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
        let cgb_mode = c.hw.cgb_mode();
        serial.write(0xFF01, st.sb, now, st.div_counter, cgb_mode);
        if st.sc & 0x81 == 0x81 {
            serial.write(0xFF02, st.sc, now, st.div_counter, cgb_mode);
            serial.output.pop(); // the byte was logged when the transfer began
        } else {
            serial.sc = st.sc | 0x7C;
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
