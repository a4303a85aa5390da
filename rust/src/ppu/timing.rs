//! Line timing: modes, transitions, STAT/LY/LYC and their interrupts, the
//! lazy catch-up and its line skip, OAM/VRAM access windows.

use super::*;

impl Ppu {
    /// Time of the next transition (u64::MAX when the LCD is off).
    #[inline]
    pub fn next_transition(&self) -> u64 {
        self.next
    }

    /// Start time of the next occurrence of line `l` (after the current line).
    pub(super) fn next_line_start(&self, l: u8) -> u64 {
        // The line after the current one starts at `after`.
        let after = match self.phase {
            Phase::ToNextLine => self.next,
            _ => self.line_start + DOTS_PER_LINE,
        };
        let first = if self.line == 153 { 0 } else { self.line + 1 };
        let lines_ahead = (l as u64 + LINES_PER_FRAME - first as u64) % LINES_PER_FRAME;
        after + lines_ahead * DOTS_PER_LINE
    }

    /// When the scheduler must next bring the PPU up to date: the next
    /// transition that can raise an interrupt or end a frame. Transitions
    /// that cannot are processed lazily when the CPU touches the PPU (every
    /// PPU register, VRAM and OAM access catches up first), so a frame with
    /// no STAT interrupts enabled costs one wake-up instead of hundreds.
    pub fn next_event(&self) -> u64 {
        if self.phase == Phase::Off {
            return u64::MAX;
        }
        let e = self.stat_enables;
        if e & 0xA8 != 0 {
            // Mode 0 / mode 2 STAT sources (or a CGB's HBlank DMA): every
            // transition may matter.
            return self.next;
        }
        // VBlank (IF.0, mode-1 STAT source, frame end) starts with line 144.
        let mut t = self.next_line_start(144);
        if e & 0x40 != 0 {
            // The LY=LYC interrupt input changes when LY does (line 153:
            // LYC=0 matches two M-cycles after LY reads 0).
            let lyc_t = match self.lyc {
                0 => match self.phase {
                    Phase::ToLy0Irq => self.next,
                    Phase::ToLy0 => self.next + LY0_IRQ_DOTS - STAT_MODE2_LAG,
                    _ => self.next_line_start(153) + LY0_IRQ_DOTS,
                },
                1..=153 => self.next_line_start(self.lyc),
                _ => u64::MAX,
            };
            t = t.min(lyc_t);
        }
        t
    }

    /// The STAT mode sources active now, as their STAT enable bits (0x08
    /// HBlank, 0x10 VBlank, 0x20 OAM scan). The interrupt logic runs ahead
    /// of the STAT mode bits: the HBlank source rises an M-cycle before STAT
    /// reads mode 0. The OAM-scan source is no level but a pulse from one
    /// M-cycle before a line starts until STAT reads mode 2 (line 0: from
    /// its start; DMG: also before line 144), so enabling it during mode 2
    /// raises nothing (GBMicrotest lcdon_to_oam_int_*, oam_int_*).
    #[inline]
    fn mode_sources(&self) -> u8 {
        match self.phase {
            Phase::ToHBlankRead | Phase::ToOamIrq if self.line < 144 => 0x08,
            Phase::ToNextLine => match self.line {
                0..=143 => 0x28,
                _ => 0x10,
            },
            Phase::ToOamIrq
            | Phase::ToMode1
            | Phase::ToLy0
            | Phase::ToLy0Irq
            | Phase::ToLy0Flag => 0x10,
            Phase::ToMode2 => 0x20,
            _ => 0,
        }
    }

    /// The STAT LY=LYC flag. It is 0 for the first M-cycle of lines 1..=153;
    /// on line 153 it then still compares 153 for an M-cycle while LY reads
    /// 0, is 0 again for an M-cycle, and compares 0 from then on (GBMicrotest
    /// line_153_lyc0_stat_timing_*, line_153_lyc153_stat_timing_*).
    #[inline]
    pub(super) fn lyc_match(&self) -> bool {
        if !self.lcd_on() {
            return self.lyc_flag_off;
        }
        match self.phase {
            Phase::ToMode2 => self.line == 0 && self.lyc == 0,
            // Line 153: off, then still 153 while LY reads 0, off again.
            Phase::ToLy0 | Phase::ToLy0Flag => false,
            Phase::ToLy0Irq => self.lyc == 153,
            _ => self.ly == self.lyc,
        }
    }

    /// The LY=LYC input of the STAT interrupt logic: the comparison one
    /// M-cycle ahead of the STAT flag (line 153: LYC=0 matches at +8; no
    /// match between LY reading 0 and the comparison of 0).
    #[inline]
    fn lyc_irq(&self) -> bool {
        self.ly == self.lyc && self.phase != Phase::ToLy0Irq
    }

    /// DMG quirk (Pan Docs, STAT): for one cycle a STAT write acts as if
    /// every source were enabled, so an active condition raises the
    /// interrupt on a low line. GBMicrotest stat_write_glitch_* (verified on
    /// a DMG) show it for HBlank, VBlank and LY=LYC but not during the OAM
    /// scan or mode 3: the HBlank and VBlank interrupt sources, which lead
    /// the STAT mode bits (stat_write_glitch_l1_b, l143_b: HBlank began in
    /// the M-cycle before, STAT reads mode 0 only from the write's first
    /// dot; gambatte m0enable/disable_scx3_2: HBlank begins after the
    /// write, none). Nor on line 0 after the LCD is switched on, before its
    /// first mode 3, where HBlank has not begun though STAT reads mode 0
    /// (GBMicrotest lyc1_int_nops_a/b, lyc1_int_halt_a/b, verified on a
    /// DMG: a STAT write right after LCD on raises no interrupt). A CGB
    /// has no such quirk: there a STAT write interrupts only when a source
    /// it enables is active (gambatte's CGB model; hwtests
    /// miscmstatirq/m0statwirq_trigger_*, m2enable/disable_1, m1/
    /// m1irq_disable_1: an interrupt on a DMG, none on a CGB).
    #[inline]
    fn stat_write_quirk(&self) -> bool {
        self.cgb.is_none() && (self.lyc_match() || self.mode_sources() & 0x18 != 0)
    }

    /// Before the transition due at `t`, in the M-cycle ending at `m`:
    /// keep the state a STAT or LYC write in that M-cycle acts on
    /// (`write_stat_input`). Only stores: the inputs are worked out from it
    /// when such a write comes.
    #[inline]
    fn note_stat_inputs(&mut self, t: u64, m: u64) {
        // The end of the OAM-scan pulse (when STAT reads mode 2) comes
        // before both writes: gambatte m2enable/late_enable_after_lycint_3
        // (mode 2 enabled in that M-cycle: no interrupt).
        if self.phase == Phase::ToMode2 {
            return;
        }
        let now = StatInputs {
            at: m,
            phase: self.phase,
            line: self.line,
            ly: self.ly,
            stat_line: self.stat_line,
        };
        if self.stat_write_view.at != m {
            self.stat_write_view = now;
        }
        // An LYC write comes after the transitions on its M-cycle's first dot
        // and after the line start (LY's change): gambatte lycEnable/
        // lyc0_late_ff45_enable_3 (LYC=LY-1 written as LY changes: none),
        // miscmstatirq/lycwirq_trigger_m0_late_ly44_lyc45_4 (LYC=LY written
        // as LY changes and HBlank ends: an interrupt).
        if t & 3 != 1 && self.phase != Phase::ToNextLine && self.lyc_write_view.at != m {
            self.lyc_write_view = now;
        }
    }

    /// The view a STAT (`lyc_write` false) or LYC write at `now` acts on, if
    /// transitions of its M-cycle came after it.
    #[inline]
    fn write_view(&self, now: u64, lyc_write: bool) -> Option<StatInputs> {
        let v = if lyc_write {
            self.lyc_write_view
        } else {
            self.stat_write_view
        };
        (v.at == now && self.lcd_on()).then_some(v)
    }

    /// Whether transitions of the M-cycle ending at `now` came after the
    /// STAT (`lyc_write` false) or LYC write in it, so that an edge they
    /// raised with the old value is withdrawn when `write_stat_input` does
    /// not repeat it; edges raised before the write stand.
    pub(crate) fn transitions_after_write(&self, now: u64, lyc_write: bool) -> bool {
        self.write_view(now, lyc_write).is_some()
    }

    /// `f` on the PPU as it stood at `v` (phase, line, LY), registers as now.
    fn at_view<R>(&mut self, v: StatInputs, f: impl Fn(&Ppu) -> R) -> R {
        let now = (self.phase, self.line, self.ly);
        (self.phase, self.line, self.ly) = (v.phase, v.line, v.ly);
        let r = f(self);
        (self.phase, self.line, self.ly) = now;
        r
    }

    /// After a STAT (`lyc_write` false) or LYC write at `now` (the new value
    /// in place, the PPU caught up to `now`): whether the STAT line has a
    /// rising edge in this M-cycle at or after the write, given as IRQ_STAT.
    /// The transitions of the M-cycle split at the write
    /// (`note_stat_inputs`): the line moves from its level just before the
    /// write (old value) through the DMG STAT-write quirk and the level the
    /// new value gives with the inputs then, to the level it gives with the
    /// inputs at the end of the M-cycle. An edge that the transitions after
    /// the write raised with the old value and that this does not repeat is
    /// withdrawn by the caller (`Hardware::stat_write_cancel`).
    ///
    /// A STAT write lands before the M-cycle's transitions: gambatte
    /// m2enable/lyc1_m2irq_late_lycdisable_1 (LY=LYC source disabled in the
    /// M-cycle the OAM-scan pulse rises: an interrupt; _2 one M-cycle later:
    /// none), m0enable/disable_scx3_2 and disable_scx7_2 (HBlank disabled
    /// in the M-cycle it begins, on its first dot: none), lycdisable_ff41_
    /// scx3_2 (LY=LYC disabled there: an interrupt), m2enable/disable_1
    /// (mode 2 disabled as its pulse rises: the quirk's edge),
    /// m2_late_m0disable_1, late_enable_m0disable_2, late_m1disable_ly0_2,
    /// late_enable_after_lycint_disable_1, m1/lyc143_late_m2enable_
    /// lycdisable_2, lycEnable/lyc0_m1disable_2, miscmstatirq/
    /// lycstatwirq_trigger_m0_late_ly44_lyc44_08_40_4, m0statwirq_scx3_1.
    /// An LYC write lands after the M-cycle's first dot: m0enable/
    /// lycdisable_ff45_3 and _scx2_2 (HBlank begins on the M-cycle's third
    /// or last dot: an interrupt) against lycdisable_ff45_scx3_3 (on its
    /// first dot: none); m2enable/lyc1_m2irq_late_lyc255_2, lycEnable/
    /// lyc153_late_ff45_enable_4; GBMicrotest line_153_lyc_int_b (LYC=0xFF
    /// in the M-cycle of line 153's LY=0 match: none).
    pub(super) fn write_stat_input(&mut self, now: u64, lyc_write: bool) -> u8 {
        let after = self.compute_stat_line();
        let rising = match self.write_view(now, lyc_write) {
            Some(v) => {
                let (quirk, during) =
                    self.at_view(v, |p| (p.stat_write_quirk(), p.compute_stat_line()));
                let quirk = quirk && !lyc_write;
                let mut rising = ((quirk || during) && !v.stat_line) || (after && !during);
                if lyc_write && self.stat_write_view.at == now {
                    // An edge before the write (on the first dot) stands.
                    rising |= v.stat_line && !self.stat_write_view.stat_line;
                }
                rising
            }
            None => {
                let quirk = !lyc_write && self.stat_write_quirk();
                (quirk || after) && !self.stat_line
            }
        };
        self.stat_line = after;
        if rising {
            IRQ_STAT
        } else {
            0
        }
    }

    pub(super) fn compute_stat_line(&self) -> bool {
        let e = self.stat_enables;
        if !self.lcd_on() {
            return e & 0x40 != 0 && self.lyc_flag_off;
        }
        (e & 0x40 != 0 && self.lyc_irq()) || e & self.mode_sources() != 0
    }

    /// The STAT interrupt line (any enabled source active).
    #[inline]
    pub fn stat_line(&self) -> bool {
        self.stat_line
    }

    /// Re-evaluate the STAT line; returns IRQ_STAT on a rising edge.
    #[inline]
    pub(super) fn update_stat(&mut self) -> u8 {
        // No source enabled: the line is low and stays low (what
        // `compute_stat_line` gives then), which saves every lazy
        // transition of a game without STAT interrupts (2048) its
        // evaluation.
        if self.stat_enables == 0 && !self.stat_line {
            return 0;
        }
        let new = self.compute_stat_line();
        let rising = new && !self.stat_line;
        self.stat_line = new;
        if rising {
            IRQ_STAT
        } else {
            0
        }
    }

    /// Consistency check of the schedule after loading a state.
    pub fn check(&self) -> Result<()> {
        // The LCD switch moves the schedule at once (`write` to LCDC): a
        // state whose LCDC bit 7 disagrees with the schedule would never
        // reach VBlank (LCD on, nothing scheduled) and never end a frame.
        if (self.phase == Phase::Off) == self.lcd_on() {
            return Err(Error::InvalidState(format!(
                "corrupted state: LCDC {:#04x} says the LCD is {} but the PPU schedule is {}",
                self.lcdc,
                if self.lcd_on() { "on" } else { "off" },
                if self.phase == Phase::Off {
                    "stopped"
                } else {
                    "running"
                },
            )));
        }
        let ok = match self.phase {
            Phase::Off => self.next == u64::MAX,
            _ => self.next >= self.line_start && self.next - self.line_start <= DOTS_PER_LINE,
        };
        if ok {
            Ok(())
        } else {
            Err(Error::InvalidState(format!(
                "corrupted state: PPU line start {} and next transition {} are inconsistent",
                self.line_start, self.next
            )))
        }
    }
}

impl Ppu {
    /// How many objects overlap line `ly` (rebuilding the index if stale).
    #[inline]
    pub(super) fn objects_on_line(&mut self, ly: u8, tall: bool) -> u8 {
        if !self.obj_lines_valid || self.obj_lines_tall != tall {
            self.index_object_lines(tall);
        }
        self.obj_lines[ly as usize]
    }

    /// Rebuild the per-line object counts (after an OAM change).
    #[inline(never)]
    fn index_object_lines(&mut self, tall: bool) {
        let height = if tall { 16 } else { 8 };
        self.obj_lines.fill(0);
        for i in 0..40 {
            let top = self.oam[i * 4] as usize;
            // Object Y is the screen line + 16.
            for line in top.saturating_sub(16)..(top + height).saturating_sub(16) {
                if line < LINES {
                    self.obj_lines[line] += 1;
                }
            }
        }
        self.obj_lines_valid = true;
        self.obj_lines_tall = tall;
    }

    /// Object `i`'s height as this line's OAM scan saw it (`tall`: LCDC.2
    /// now, which it was for the whole scan unless `scan_sizes` says).
    #[inline]
    pub(super) fn scan_height(&self, i: usize, tall: bool) -> i32 {
        let t = match self.scan_sizes {
            Some(mask) => mask.get() >> i & 1 != 0,
            None => tall,
        };
        if t {
            16
        } else {
            8
        }
    }

    /// An LCDC write during the OAM scan that switches the object size
    /// (the caller checked): the scan reads object `k` (OAM order) 2 + 2k
    /// dots into the line, and the objects it has not reached yet see the
    /// new size (gambatte sprites/late_sizechange_sp00_2, _sp00_4,
    /// _sp01_2, _sp02_1, _sp39_1/_3, late_sizechange_1/_3,
    /// late_sizechange2_sp00/01/02/39_1).
    pub(super) fn switch_scan_size(&mut self, tall_now: bool, now: u64) {
        const ALL: u64 = (1 << 40) - 1;
        let w = now.saturating_sub(self.line_start);
        let reached = (w.saturating_sub(1) / 2).min(40);
        let before = (1u64 << reached) - 1;
        let old = self
            .scan_sizes
            .map_or(if self.lcdc & 0x04 != 0 { ALL } else { 0 }, |s| s.get());
        let new = if tall_now { ALL & !before } else { 0 };
        self.scan_sizes = Some(ScanSizes::new(old & before | new));
    }

    /// Length of mode 3 on the current line, in dots: 172 plus the SCX fine
    /// scroll discard, plus object fetch penalties (Pan Docs "Mode 3 length"):
    /// each object costs 6 dots, plus up to 5 more while the background fetch
    /// it interrupts finishes (paid once per background tile: the leftmost
    /// object in a tile pays the most); an object at X=0 also waits for the
    /// SCX discard.
    ///
    /// Inlined into the transition that starts mode 3, with the objects'
    /// part out of line: most lines have no object (the cached count says
    /// so), and the call into a function holding the object loop cost more
    /// than the rest of it.
    #[inline]
    fn mode3_dots(&mut self) -> u64 {
        let fine = (self.scx & 7) as u64;
        let mut dots = MODE3_BASE_DOTS + fine;
        let tall = self.lcdc & 0x04 != 0;
        if self.lcdc & 0x02 != 0
            && (self.scan_sizes.is_some() || self.objects_on_line(self.ly, tall) != 0)
        {
            dots += self.object_dots(fine, tall);
        }
        // The window costs 6 dots when it starts on the line. At WX = 166
        // it would start on the pixel counter's last step, which a DMG
        // does not wait for: mode 3 ends as without the window (gambatte
        // window/m2int_wxA6_{firstline_,scx2_,scx3_,spxA7_}m3stat,
        // m2int_wxA6_{oam,vram}busyread; while _m3stat_1 still reads 3).
        if self.lcdc & 0x20 != 0 && self.wx < 166 && self.wy_triggered {
            dots += 6;
        }
        dots
    }

    /// The object fetch penalties of `mode3_dots` (objects enabled and on
    /// the line), `fine` the SCX fine scroll.
    #[inline(never)]
    fn object_dots(&mut self, fine: u64, tall: bool) -> u64 {
        let mut dots = 0;
        let ly = self.ly as i32;
        let mut count = 0;
        let mut tile_wait = [0u8; 22];
        let mut at_x0 = false;
        // The window due at WX = 166 meets the pixel counter on the
        // last pixel: a DMG ends mode 3 there without fetching an
        // object at X = 167 either (gambatte window/
        // m2int_wxA6_spxA7_m0irq_2; _m3stat_2/_5).
        let last_x = if self.lcdc & 0x20 != 0 && self.wx == 166 && self.wy_triggered {
            167
        } else {
            168
        };
        for i in 0..40 {
            let y = self.oam[i * 4] as i32 - 16;
            if ly < y || ly >= y + self.scan_height(i, tall) {
                continue;
            }
            let x = self.oam[i * 4 + 1] as u64;
            if x < last_x {
                dots += 6;
                at_x0 |= x == 0;
                let px = x + fine;
                let w = &mut tile_wait[(px >> 3) as usize];
                *w = (*w).max(5u8.saturating_sub((px & 7) as u8));
            }
            count += 1;
            if count == 10 {
                break;
            }
        }
        dots += tile_wait.iter().map(|&w| w as u64).sum::<u64>();
        if at_x0 {
            dots += fine;
        }
        dots
    }

    /// Mode 3 begins: the WY latch (LY = WY now sets it; the LCD-on line 0
    /// has no mode-2 edge) as the window logic starts the line with it.
    #[inline]
    pub(super) fn latch_wy_for_mode3(&mut self) {
        if self.ly == self.wy && self.lcdc & 0x20 != 0 {
            self.wy_triggered = true;
        }
        self.wy_at_m3 = self.wy_triggered;
    }

    /// A register write during mode 3 changed how long mode 3 lasts (it
    /// lasted `dots_before` FIFO dots before the write, which is the last
    /// in `mid_writes`): move its end by the difference, as the dot-level
    /// FIFO counts it. Clearing LCDC.5 before the pixel counter meets WX
    /// saves the window's 6 dots; setting it, or moving WX ahead of the
    /// counter, costs them; a write after the window started changes
    /// nothing (gambatte window/late_disable_*, late_reenable_*,
    /// late_wx_*). Likewise LCDC.1 set or cleared before the counter
    /// reaches an object (sprites/sprite_late_enable_spx1A/1B,
    /// sprite_late_late_disable_spx18/19), and SCX written before the
    /// fine scroll is taken (enable_display/ly0_late_scx7_m3stat_scx0/1/3,
    /// m2int_m3stat/scx/late_scx4_1).
    pub(super) fn retime_mode3(&mut self, dots_before: u32, now: u64) {
        let dots_after = self.fifo_mode3_dots();
        if dots_after != dots_before {
            let end = self.next as i64 + dots_after as i64 - dots_before as i64;
            self.next = (end.max(now as i64)) as u64;
            self.mode3_end = self.next;
        }
    }

    /// Process every transition due at or before `now`; returns IF bits.
    /// Whole lines with nothing observable are jumped over (`skip_lines`).
    #[inline]
    pub fn catch_up(&mut self, now: u64) -> u8 {
        self.catch_up_with::<false>(now)
    }

    /// `catch_up`; with `NOTE`, for a STAT or LYC write in the M-cycle `now`
    /// falls in, the STAT inputs before each transition of that M-cycle are
    /// noted (`note_stat_inputs`) for `write_stat_input`. The bus catches the
    /// PPU up this way before the write's tick (`Bus::before_stat_write`), so
    /// every transition of the M-cycle goes through here; no other catch-up
    /// pays for the notes. Out of line, as `catch_up` was before it had a
    /// twin: inlined into the bus's two call sites, LLVM leaves
    /// `transition` out of line instead, which costs more (bench/README.md).
    #[inline(never)]
    pub(crate) fn catch_up_with<const NOTE: bool>(&mut self, now: u64) -> u8 {
        let mut irq = 0;
        while self.next <= now {
            // `skip_lines` needs `now` a whole line past the end of the
            // current line, which ends at or after `next`: most catch-ups
            // (a CPU polling STAT or LY) are nowhere near, and skip the call.
            if now >= self.next + DOTS_PER_LINE {
                irq |= self.skip_lines(now);
            }
            let t = self.next;
            let was = self.phase;
            let m = (t + 3) & !3;
            if NOTE {
                self.note_stat_inputs(t, m);
            }
            let bits = self.transition();
            if bits != 0 {
                // Remember which M-cycle raised them: the end of the M-cycle
                // the transition falls in (CPU accesses are M-cycle aligned).
                if self.late_irq_at != m {
                    self.late_irq_at = m;
                    self.late_irq = 0;
                    self.late_halt_irq = 0;
                }
                self.late_irq |= bits;
                // Requests raised in the second half of their M-cycle are
                // not latched by a halted CPU until the next one: the
                // mode-0 edge (which SCX and objects move dot by dot;
                // Mooneye hblank_ly_scx_timing-GS against GBMicrotest
                // hblank_int_scx*) and the OAM-scan pulse, which rises on
                // the last dot before its M-cycle ends.
                let halt_late = match was {
                    Phase::ToHBlank => t & 3 != 1 && t & 3 != 2,
                    // A CGB's pulse before line 144 wakes a halted CPU an
                    // M-cycle before VBlank does (Mooneye misc/ppu/
                    // vblank_stat_intr-C; a DMG's together with it:
                    // acceptance/ppu/vblank_stat_intr-GS).
                    Phase::ToOamIrq => !(self.line == 143 && self.cgb.is_some()),
                    _ => false,
                };
                if halt_late {
                    self.late_halt_irq |= bits;
                }
                irq |= bits;
            }
        }
        irq
    }

    /// The reference twin of [`Ppu::catch_up`]: the same transitions up to
    /// `now`, each caught up to on its own (as the reference path, which
    /// catches up every M-cycle, does), so `skip_lines` never runs.
    /// `ppu::tests` checks the two agree. (A `SKIP` const generic on
    /// `catch_up` cost the fast path 0.4-4 % more host instructions.)
    pub fn catch_up_by_transitions(&mut self, now: u64) -> u8 {
        let mut irq = 0;
        while self.next <= now {
            irq |= self.catch_up(self.next);
        }
        irq
    }

    /// Fast path of `catch_up`: jump over whole lines whose transitions can
    /// have no visible effect (no mode 0/2 STAT source enabled, not crossing
    /// the start of VBlank, line 153 or the LYC line), landing at the end of
    /// the last skipped line. Its twin is [`Ppu::catch_up_by_transitions`]
    /// (`ppu::tests::skip_lines_matches_transitions`); the reference path
    /// never takes it either (it catches up every M-cycle), and the
    /// reference-path tests check the whole machine agrees. Inlined into
    /// the catch-up loop like `transition`.
    #[inline(always)]
    fn skip_lines(&mut self, now: u64) -> u8 {
        if self.stat_enables & 0xA8 != 0 || self.phase == Phase::Off || self.line >= 152 {
            return 0;
        }
        // Drawing: the current line must have started its pixels already
        // (its OAM scan is behind it), so that it can be finished here.
        if self.rendering
            && self.line < 144
            && matches!(self.phase, Phase::ToMode2 | Phase::ToTransfer)
        {
            return 0;
        }
        let next_start = match self.phase {
            Phase::ToNextLine => self.next,
            _ => self.line_start + DOTS_PER_LINE,
        };
        if now < next_start + DOTS_PER_LINE {
            return 0;
        }
        let c = self.line as u64;
        // The line that contains `now`...
        let mut target = c + 1 + (now - next_start) / DOTS_PER_LINE;
        // ...but stop before VBlank starts / line 153 / the LYC line starts.
        target = target.min(if c < 144 { 144 } else { 153 });
        if self.stat_enables & 0x40 != 0 && (self.lyc as u64) > c {
            target = target.min(self.lyc as u64);
        }
        let last = target - 1; // the line whose end we land on
        if last <= c {
            return 0;
        }
        self.scan_sizes = None;
        if self.rendering {
            // Nothing can change the skipped lines' pixels (every write that
            // could catches the PPU up first), so draw them whole now.
            self.flush_line();
            for l in c + 1..=last.min(143) {
                self.ly = l as u8;
                self.start_line_drawing();
                self.finish_line_drawing();
            }
        }
        // The WY latch of the skipped visible lines (drawn ones: in
        // `start_line_drawing`), and of the current one if its mode 3 has
        // not begun; as the last one's mode 3 began with it. (The skip
        // does not cross line 144: from a visible line it ends by 143.)
        let first = if matches!(self.phase, Phase::ToMode2 | Phase::ToTransfer) {
            c
        } else {
            c + 1
        };
        if c < 144 {
            if self.lcdc & 0x20 != 0 && (first..=last).contains(&(self.wy as u64)) {
                self.wy_triggered = true;
            }
            self.wy_at_m3 = self.wy_triggered;
        }
        self.line = last as u8;
        self.ly = self.line;
        self.line_start = next_start + (last - c - 1) * DOTS_PER_LINE;
        self.next = self.line_start + DOTS_PER_LINE;
        self.phase = Phase::ToNextLine;
        self.mode = if last < 144 { 0 } else { 1 };
        self.update_stat()
    }

    /// One transition of the line state machine. Inlined into the catch-up
    /// loop (its one caller per `catch_up_with` instance): left to itself
    /// LLVM keeps it out of line, and the call costs the loop more than
    /// the notes of the STAT rule saved (bench/README.md).
    #[inline(always)]
    fn transition(&mut self) -> u8 {
        let mut irq = 0;
        match self.phase {
            Phase::ToMode2 => {
                // The window's WY comparator sees the new LY by now: a WY
                // write one M-cycle into the line no longer hides the
                // match, one at the line's start does (gambatte window/arg/
                // late_wy_1toFF_1/_3, late_wy_2toFF_1/_3). Only with the
                // window enabled (late_enable_afterVblank_3/_5).
                if self.ly == self.wy && self.lcdc & 0x20 != 0 {
                    self.wy_triggered = true;
                }
                self.mode = 2;
                self.phase = Phase::ToTransfer;
                self.next = self.line_start + MODE3_START_DOTS;
            }
            Phase::ToTransfer => {
                self.latch_wy_for_mode3();
                if self.rendering {
                    self.start_line_drawing();
                }
                // Line 0 after the LCD is turned on runs two dots late.
                let irq_dots = if self.mode == 0 {
                    MODE0_IRQ_DOTS + 2
                } else {
                    MODE0_IRQ_DOTS
                };
                self.mode3_origin = self.line_start + FIFO_ORIGIN + irq_dots - MODE0_IRQ_DOTS;
                self.mode = 3;
                self.phase = Phase::ToHBlank;
                self.next = self.line_start + irq_dots + self.mode3_dots() - MODE3_BASE_DOTS;
                self.mode3_end = self.next;
            }
            Phase::ToHBlank => {
                // The mode-0 interrupt fires now; STAT reads mode 3 (and
                // VRAM/OAM stay locked) a little longer.
                if self.stat_enables & 0x80 != 0 && self.line < 144 {
                    self.hdma_hit = true;
                }
                self.phase = Phase::ToHBlankRead;
                self.next += MODE0_READ_LAG;
            }
            Phase::ToHBlankRead => {
                self.mode = 0;
                self.phase = Phase::ToOamIrq;
                self.next = self.line_start + DOTS_PER_LINE - MODE2_IRQ_EARLY;
            }
            Phase::ToOamIrq => {
                self.phase = Phase::ToNextLine;
                self.next = self.line_start + DOTS_PER_LINE;
            }
            Phase::ToNextLine => {
                self.flush_line();
                self.scan_sizes = None;
                // The next line starts exactly when this transition is due.
                self.line_start = self.next;
                self.line = if self.line == 153 { 0 } else { self.line + 1 };
                self.ly = self.line;
                match self.line {
                    0..=143 => {
                        // The HBlank source falls as the line starts, a
                        // moment before the LY=LYC input compares the new
                        // LY: with both enabled (and not the OAM-scan pulse,
                        // which bridges the gap) the line drops and rises
                        // again, an interrupt (gambatte lycEnable/
                        // ff41_disable_3, miscmstatirq/lycwirq_trigger_m0_
                        // late_ly44_lyc45_2, lcdirq_precedence/
                        // lcdirqprecedence_lycirq_ly44_lcdstat58).
                        if self.line != 0
                            && self.stat_line
                            && self.stat_enables & 0x60 == 0x40
                            && self.ly == self.lyc
                        {
                            irq |= IRQ_STAT;
                        }
                        // STAT still reads mode 0 (line 0: from VBlank, 0
                        // too on the DMG) for one M-cycle.
                        self.mode = 0;
                        self.phase = Phase::ToMode2;
                        self.next = self.line_start + STAT_MODE2_LAG;
                    }
                    144 => {
                        // The LY=LYC input lets go of LY 143 a moment
                        // before the VBlank source rises: a line held by
                        // the LYC=143 match alone drops and rises again, an
                        // interrupt (gambatte m1/lycint143_m1irq_ifw_1,
                        // lycint143_m1irq_late_retrigger_1,
                        // lycint_m1intirq_1, m1irq_m2enable_lyc_3). The
                        // HBlank source bridges the gap (m1irq_m0disable_3:
                        // no interrupt); with the OAM-scan source enabled
                        // it is not known, so left as it was.
                        if self.stat_line && self.stat_enables & 0x38 == 0x10 {
                            irq |= IRQ_STAT;
                        }
                        // STAT reads mode 0 for one more M-cycle.
                        self.mode = 0;
                        self.window_line = 0;
                        self.wy_triggered = false;
                        self.blank_frame = self.fresh_on;
                        self.fresh_on = false;
                        self.frame_ready = true;
                        irq |= IRQ_VBLANK;
                        self.phase = Phase::ToMode1;
                        self.next = self.line_start + STAT_MODE2_LAG;
                    }
                    153 => {
                        self.phase = Phase::ToLy0;
                        self.next = self.line_start + STAT_MODE2_LAG;
                    }
                    _ => {
                        self.phase = Phase::ToNextLine;
                        self.next = self.line_start + DOTS_PER_LINE;
                    }
                }
            }
            Phase::ToMode1 => {
                self.mode = 1;
                self.phase = Phase::ToNextLine;
                self.next = self.line_start + DOTS_PER_LINE;
            }
            Phase::ToLy0 => {
                self.ly = 0;
                self.phase = Phase::ToLy0Irq;
                self.next = self.line_start + LY0_IRQ_DOTS;
            }
            Phase::ToLy0Irq => {
                self.phase = Phase::ToLy0Flag;
                self.next = self.line_start + LY0_FLAG_DOTS;
            }
            Phase::ToLy0Flag => {
                self.phase = Phase::ToOamIrq;
                self.next = self.line_start + DOTS_PER_LINE - MODE2_IRQ_EARLY;
            }
            Phase::Off => {
                self.next = u64::MAX;
            }
        }
        irq | self.update_stat()
    }

    /// Whether a CPU read of OAM at `now` is refused (reads 0xFF): from the
    /// start of a visible line (the LY change, one M-cycle before STAT reads
    /// mode 2) until STAT reads mode 0. Line 0 after the LCD is turned on has
    /// no OAM scan: OAM locks with mode 3.
    #[inline]
    pub fn oam_read_blocked(&self) -> bool {
        match self.phase {
            Phase::ToMode2 | Phase::ToHBlank | Phase::ToHBlankRead => true,
            Phase::ToTransfer => self.mode == 2,
            _ => false,
        }
    }

    /// Whether a CPU write to OAM at `now` is dropped. Writes lock one
    /// M-cycle later than reads at the line start, and pass in the M-cycle
    /// between the OAM scan and mode 3 (Mooneye lcdon_write_timing-GS).
    #[inline]
    pub fn oam_write_blocked(&self, now: u64) -> bool {
        match self.phase {
            Phase::ToHBlank | Phase::ToHBlankRead => true,
            Phase::ToTransfer => self.mode == 2 && now < self.line_start + MODE3_START_DOTS - 4,
            _ => false,
        }
    }

    /// Whether a CPU read of VRAM at `now` is refused: during mode 3, which
    /// locks VRAM reads one M-cycle before STAT reads 3 (except on line 0
    /// after the LCD is turned on), until STAT reads mode 0.
    #[inline]
    pub fn vram_read_blocked(&self, now: u64) -> bool {
        match self.phase {
            Phase::ToHBlank | Phase::ToHBlankRead => true,
            Phase::ToTransfer => self.mode == 2 && now >= self.line_start + MODE3_START_DOTS - 4,
            _ => false,
        }
    }

    /// Whether a CPU write to VRAM is dropped: while STAT reads mode 3.
    #[inline]
    pub fn vram_write_blocked(&self) -> bool {
        matches!(self.phase, Phase::ToHBlank | Phase::ToHBlankRead)
    }
}

// Line timing, in dots from a line's start (`line_start`, when LY changes).
// The CPU samples on M-cycle boundaries, so mostly only which boundary an
// edge falls before matters. Fitted to Mooneye's lcdon_timing-GS and
// lcdon_write_timing-GS tables (LY, STAT, OAM/VRAM read and write windows at
// every M-cycle of lines 0..=2 after the LCD is turned on), intr_2_*,
// hblank_ly_scx_timing-GS, stat_lyc_onoff, and GBMicrotest (DMG-verified).

/// STAT reads mode 2 (lines 0..=143) or mode 1 (line 144), and the STAT
/// LY=LYC flag sees the new LY, one M-cycle after LY changes.
const STAT_MODE2_LAG: u64 = 4;
/// STAT reads mode 3 (and VRAM is write-locked) from here.
pub(super) const MODE3_START_DOTS: u64 = 84;
/// The mode-0 interrupt with a 172-dot mode 3 (no SCX, objects or window);
/// two dots later on line 0 after the LCD is turned on.
const MODE0_IRQ_DOTS: u64 = 250;
/// STAT reads mode 0, and OAM/VRAM unlock, this long after the mode-0
/// interrupt. The edge falls just after an M-cycle boundary, so mode 3
/// lengthened by 1..=4 dots ends one M-cycle later (the M-cycle steps of
/// Mooneye intr_2_mode0_timing_sprites).
const MODE0_READ_LAG: u64 = 3;
/// The OAM-scan interrupt pulse rises this long before its line starts.
pub(super) const MODE2_IRQ_EARLY: u64 = 4;
/// Line 153: the LY=LYC interrupt input compares LYC with 0 from here, the
/// STAT flag from `LY0_FLAG_DOTS` (LY reads 0 from `STAT_MODE2_LAG`).
const LY0_IRQ_DOTS: u64 = 8;
const LY0_FLAG_DOTS: u64 = 12;
/// Line 0 after the LCD is turned on has no OAM scan but is otherwise timed
/// like a line that started this many dots before the LCDC write.
pub(super) const LCD_ON_EARLY: u64 = 4;

// ---- OAM corruption bug support (the patterns are in `oam_bug.rs`) --------

impl Ppu {
    /// The OAM row (0..20, 8 bytes each) the OAM scan reads in the M-cycle
    /// ending at `now`, or `None` outside mode 2 (LCD off, VBlank, the first
    /// line after LCD on, modes 3 and 0). The caller has caught up to `now`.
    ///
    /// The scan reads one row per M-cycle: row `(now - line_start) / 4`.
    /// Checked against Blargg's oam_bug 4-scanline_timing, 5-timing_bug and
    /// 7-timing_effect, which time the bug from the LCDC write that turns
    /// the LCD on (so they also depend on `LCD_ON_EARLY`).
    pub fn oam_scan_row(&self, now: u64) -> Option<usize> {
        if self.mode != 2 || self.phase != Phase::ToTransfer {
            return None;
        }
        let row = now.checked_sub(self.line_start)? / 4;
        if row < crate::oam_bug::ROWS as u64 {
            Some(row as usize)
        } else {
            None
        }
    }
}
