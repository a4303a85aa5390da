//! Unit tests of the PPU: the fast renderer against the FIFO, the line cache,
//! and `skip_lines` against its twin `catch_up_by_transitions`.

use super::*;

/// xorshift64*: deterministic scenes without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn byte(&mut self) -> u8 {
        (self.next() >> 32) as u8
    }

    fn below(&mut self, n: u64) -> u64 {
        (self.next() >> 16) % n
    }
}

/// A random scene: VRAM, OAM (objects crowded onto the screen) and
/// registers.
fn random_ppu(rng: &mut Rng) -> Ppu {
    let mut p = Ppu::post_boot();
    for b in p.vram.iter_mut() {
        // Some all-zero bytes, for transparent and colour-0 runs.
        *b = if rng.below(4) == 0 { 0 } else { rng.byte() };
    }
    for i in 0..40 {
        p.oam[i * 4] = rng.below(176) as u8;
        p.oam[i * 4 + 1] = rng.below(176) as u8;
        p.oam[i * 4 + 2] = rng.byte();
        p.oam[i * 4 + 3] = rng.byte();
    }
    p.lcdc = 0x80 | rng.byte();
    p.scx = rng.byte();
    p.scy = rng.byte();
    p.wx = rng.below(172) as u8;
    p.wy = rng.below(150) as u8;
    p.bgp = rng.byte();
    p.obp0 = rng.byte();
    p.obp1 = rng.byte();
    p.rendering = true;
    p
}

/// Draw one whole frame line by line, as the PPU does when rendering.
fn draw_frame(p: &mut Ppu) {
    p.window_line = 0;
    p.wy_triggered = false;
    for ly in 0..144u8 {
        p.ly = ly;
        p.start_line_drawing();
        p.finish_line_drawing();
    }
}

#[test]
fn line_cache_redraws_exactly_what_changed() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for scene in 0..40 {
        let mut cached = random_ppu(&mut rng);
        draw_frame(&mut cached);
        for step in 0..60 {
            // One change (or none) between frames, of every kind the
            // cache must notice.
            match rng.below(9) {
                0 => {
                    let i = rng.below(0x2000) as usize;
                    cached.write_vram(i, rng.byte());
                }
                1 => {
                    let i = rng.below(0xA0) as usize;
                    cached.write_oam(i, rng.byte());
                }
                2 => cached.scx = rng.byte(),
                3 => cached.scy = rng.byte(),
                4 => cached.bgp = rng.byte(),
                5 => cached.obp0 = rng.byte(),
                6 => cached.wx = rng.below(172) as u8,
                7 => cached.lcdc = 0x80 | rng.byte(),
                _ => {}
            }
            let mut fresh = cached.clone();
            fresh.clear_frame();
            draw_frame(&mut cached);
            draw_frame(&mut fresh);
            assert_eq!(
                cached.window_line, fresh.window_line,
                "scene {scene} step {step}"
            );
            assert!(
                cached.frame[..] == fresh.frame[..],
                "scene {scene} step {step}: cached rows differ from a full redraw"
            );
        }
    }
}

#[test]
fn line_cache_skips_unchanged_lines_only() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut p = random_ppu(&mut rng);
    p.lcdc = 0x91; // BG on, window and objects off: every line differs from a blank row
    draw_frame(&mut p);
    let drawn = p.frame.clone();
    // Nothing changed: no line is drawn again (a scribbled row stays).
    p.frame[..WIDTH].fill(9);
    draw_frame(&mut p);
    assert!(p.frame[..WIDTH].iter().all(|&s| s == 9));
    assert_eq!(p.frame[WIDTH..], drawn[WIDTH..]);
    // A VRAM byte changing (even one no line uses) redraws every line.
    let unused = 0x1FFF;
    p.write_vram(unused, p.vram[unused] ^ 1);
    draw_frame(&mut p);
    assert_eq!(p.frame[..], drawn[..]);
    // Writing the value already there is no change.
    p.frame[..WIDTH].fill(9);
    p.write_vram(unused, p.vram[unused]);
    draw_frame(&mut p);
    assert!(p.frame[..WIDTH].iter().all(|&s| s == 9));
    // A register change redraws the lines drawn with it.
    p.scx = p.scx.wrapping_add(1);
    draw_frame(&mut p);
    let mut fresh = p.clone();
    fresh.clear_frame();
    draw_frame(&mut fresh);
    assert_eq!(p.frame[..], fresh.frame[..]);
}

#[test]
fn fast_renderer_draws_what_the_fifo_draws() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for scene in 0..400 {
        let base = random_ppu(&mut rng);
        let mut fast = base.clone();
        let mut reference = base;
        reference.set_reference(true);
        for ly in 0..144u8 {
            for p in [&mut fast, &mut reference] {
                p.ly = ly;
                p.start_line_drawing();
                p.finish_line_drawing();
            }
        }
        assert_eq!(fast.window_line, reference.window_line, "scene {scene}");
        for ly in 0..144 {
            let row = ly * WIDTH..(ly + 1) * WIDTH;
            assert_eq!(
                fast.frame[row.clone()],
                reference.frame[row],
                "scene {scene}, line {ly}"
            );
        }
    }
}

// ---- `skip_lines` and its twin -------------------------------------------

/// Everything the line skip could get wrong: the saved state (registers,
/// VRAM, OAM, line, phase, schedule, window counters, STAT line), the
/// pixels, the register reads, and the late requests as the bus sees them
/// at `now` (it reads `late_irq` only when `late_irq_at` is the current
/// M-cycle: a request from a skipped line is never that).
fn skip_state(p: &Ppu, now: u64) -> (Vec<u8>, Vec<u8>, [u64; 5], Vec<u8>) {
    let mut w = StateWriter::new();
    p.save(&mut w);
    let regs = (0xFF40..=0xFF4B).map(|a| p.read(a)).collect();
    let (late, late_halt) = if p.late_irq_at == now {
        (p.late_irq, p.late_halt_irq)
    } else {
        (0, 0)
    };
    let timing = [
        late as u64,
        late_halt as u64,
        p.next_event(),
        p.frame_ready as u64,
        p.blank_frame as u64,
    ];
    (w.into_bytes(), p.frame().to_vec(), timing, regs)
}

/// Run `p` forward in random steps (a few dots up to several frames)
/// twice: with `catch_up` (which jumps over lines with `skip_lines`) and
/// with `catch_up_by_transitions` (every transition); both must return the
/// same interrupt bits and end in the same state after every step. STAT
/// enables, LYC and drawing are varied so that every stop of the skip
/// (mode 0/2 sources, the LYC line, VBlank, line 153) is met.
fn check_skip_twin(mut p: Ppu, rng: &mut Rng, now: &mut u64, ctx: &str) {
    if rng.below(3) != 0 {
        p.stat_enables = rng.byte() & 0x78;
    }
    if rng.below(2) == 0 {
        p.lyc = rng.below(156) as u8;
    }
    p.rendering = rng.below(2) == 0;
    let mut fast = p.clone();
    let mut twin = p;
    for step in 0..40 {
        *now += match rng.below(6) {
            0 => 1 + rng.below(8),
            1 => 4 * (1 + rng.below(40)),
            2 => DOTS_PER_LINE * (1 + rng.below(20)) + rng.below(DOTS_PER_LINE),
            3 => DOTS_PER_FRAME * (1 + rng.below(3)) + rng.below(DOTS_PER_FRAME),
            _ => rng.below(3 * DOTS_PER_LINE),
        };
        let a = fast.catch_up(*now);
        let b = twin.catch_up_by_transitions(*now);
        assert_eq!(a, b, "{ctx}, step {step}: IF bits at {now}");
        let (sa, sb) = (skip_state(&fast, *now), skip_state(&twin, *now));
        assert!(
            sa == sb,
            "{ctx}, step {step}: the line skip and the transitions disagree at {now}"
        );
        if rng.below(8) == 0 {
            // Something the CPU might do between catch-ups.
            let (addr, value) = match rng.below(4) {
                0 => (0xFF41, rng.byte()),
                1 => (0xFF45, rng.below(156) as u8),
                2 => (0xFF40, rng.byte() | 0x80),
                _ => (0xFF4A, rng.byte()),
            };
            assert_eq!(fast.write(addr, value, *now), twin.write(addr, value, *now));
        }
    }
}

/// `skip_lines` against its twin on random scenes (no ROMs needed).
#[test]
fn skip_lines_matches_transitions() {
    let mut rng = Rng(0x5EED_0F11_E5A7);
    for scene in 0..60 {
        let p = random_ppu(&mut rng);
        let mut now = p.line_start;
        check_skip_twin(p, &mut rng, &mut now, &format!("scene {scene}"));
    }
}

/// `skip_lines` against its twin from the PPU states of real ROMs (taken
/// every few frames of a run on the fast path). Skips, with the reason,
/// when `$EMURUST_ROMS` (default `../shared/roms`) lacks them (see
/// `crate::test_roms`).
#[test]
fn skip_lines_matches_transitions_on_roms() {
    let mut rng = Rng(0xB0BC_A75E_ED01);
    for rel in [
        "acid2/dmg-acid2.gb",
        "homebrew/tobutobugirl/tobu.gb",
        "homebrew/2048/2048.gb",
        "mooneye/acceptance/ppu/stat_irq_blocking.gb",
        "blargg/cpu_instrs/cpu_instrs.gb",
    ] {
        let Some(rom) = crate::test_roms::load(rel) else {
            continue;
        };
        let mut gb = crate::GameBoy::new(&rom, None).unwrap();
        for frame in 0..240u64 {
            gb.run_frame(frame % 3 == 0);
            if frame % 8 == 7 {
                let p = gb.hardware().ppu.clone();
                let mut now = gb.cycles();
                check_skip_twin(p, &mut rng, &mut now, &format!("{rel} frame {frame}"));
            }
        }
    }
}
