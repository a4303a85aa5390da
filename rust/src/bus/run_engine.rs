//! The run engine: the fast bus runs the straight runs, poll loops, idle
//! loops and HRAM countdowns that `cpu/run_table.rs` finds in the code, with no
//! per-M-cycle event check (their reference twin: the interpreter on
//! `Bus<true>`).

use super::cpu_bus::{LONGEST_INSTRUCTION, NO_BANK, NO_WINDOW};
use super::{
    Bus, Hardware, Ram, BANKED, DMA_BUS, HRAM_BASE, HRAM_SIZE, ROM_RUN, WRAM_RUN, WRAM_SIZE,
};
use crate::cpu::{Countdown, Cpu, IdleLoop, PollLoop, Straight, POLL_CYCLES, POLL_TURN_CYCLES};

impl<'a, const REF: bool, const MODE: u8> Bus<'a, REF, MODE> {
    /// Run the straight-line runs (`cpu/run_table.rs`) from PC, one after the
    /// other, while each ends before the next event and no slow access
    /// happens. The caller has checked that the CPU is running with no
    /// interrupt to take. Called on the fast bus only (`Bus<false>`).
    #[inline(never)]
    pub(super) fn straight_runs(
        mut cpu: Cpu,
        mut bus: Self,
        done: &mut impl FnMut(&mut Self) -> bool,
    ) -> (Cpu, Self, Straight) {
        if bus.hw.boot_end() != 0 {
            return (cpu, bus, Straight::Step);
        }
        if MODE == DMA_BUS {
            // No runs while the DMA owns a bus; HRAM is not on either.
            if cpu.pc() >= 0xFF80 {
                bus.skip_countdown(&mut cpu);
            }
            return (cpu, bus, Straight::Step);
        }
        loop {
            let pc = cpu.pc();
            let outcome;
            if pc < 0x8000 {
                (cpu, bus, outcome) = if bus.hw.banked_runs() {
                    Self::rom_runs::<{ ROM_RUN | BANKED }>(cpu, bus, done)
                } else {
                    Self::rom_runs::<ROM_RUN>(cpu, bus, done)
                };
            } else if (pc.wrapping_sub(0xC000) as usize) < WRAM_SIZE && bus.hw.wramx == 0 {
                // (Code in work RAM runs straight only while the RAM block
                // is all of it: not while a CGB maps bank 2-7 at 0xD000.)
                (cpu, bus, outcome) = Self::wram_runs(cpu, bus, done);
            } else {
                if pc >= 0xFF80 {
                    bus.skip_countdown(&mut cpu);
                }
                return (cpu, bus, Straight::Step);
            }
            if let Some(outcome) = outcome {
                return (cpu, bus, outcome);
            }
        }
    }

    /// Straight runs of ROM code while PC stays in ROM (`None`: it left,
    /// or the runs must go on in the other mode). `RUN`, the mode of the
    /// runs' bus (its `MODE`), is [`ROM_RUN`],
    /// with [`BANKED`] where a CGB may map work RAM bank 2-7 at 0xD000
    /// (`Hardware::banked_runs`): then the runs' work-RAM accesses look for
    /// it, and an SVBK write does not end the run; a DMG's never do.
    #[inline(never)]
    fn rom_runs<const RUN: u8>(
        mut cpu: Cpu,
        mut bus: Self,
        done: &mut impl FnMut(&mut Self) -> bool,
    ) -> (Cpu, Self, Option<Straight>) {
        loop {
            // One run bus for the runs up to the next slow access: only
            // then may the mapping, the next event or the CPU's state have
            // changed.
            let mut run = bus.run_bus::<RUN>(&NO_BANK);
            let mut bank_start = usize::MAX;
            // An instruction starting before this ends before the next
            // event.
            let horizon = run.next_event.saturating_sub(LONGEST_INSTRUCTION);
            let outcome = loop {
                let pc = cpu.pc();
                if pc >= 0x8000 {
                    break None;
                }
                let off = run.hw.cart.rom_offset(pc);
                // (`_looped`: a poll or idle loop's start.)
                let (cycles, _looped) = match run.code.runs.chained_at(off) {
                    Some(cycles) => (cycles, false),
                    None if run.code.runs.poll_at(off) => {
                        run.skip_poll_turns(&mut cpu, off);
                        (POLL_CYCLES, true)
                    }
                    None if run.code.runs.idle_at(off) => {
                        run.skip_idle_turns(&cpu, off);
                        // Then the jump itself, as a run of one.
                        (0, true)
                    }
                    None => break Some(Straight::Step),
                };
                // Every tick of the run, its last instruction at its
                // longest, must come before the next event: a run that
                // does not fit stops at the first instruction ending after
                // `horizon`.
                if run.now >= horizon {
                    break Some(Straight::Wait);
                }
                // (Keyed by the bank and the half it is mapped in: the
                // same bank at 0x0000 and at 0x4000 differ.)
                let bank_key = off & !0x3FFF | (pc >> 14) as usize & 1;
                if bank_key != bank_start {
                    // Chained runs assume the bank is mapped where it
                    // usually is (`RunTable::chain`); elsewhere (bank 0 at
                    // 0x4000, a high bank at 0x0000: rare MBC settings)
                    // the code runs without runs.
                    if (pc < 0x4000) != (off < 0x4000) {
                        break Some(Straight::Step);
                    }
                    let Some(bank) = run.code.bank(off) else {
                        break Some(Straight::Step);
                    };
                    run.bank = bank;
                    bank_start = bank_key;
                }
                // A compiled block (feature `jit`): admitted when its last
                // instruction starts before the horizon, like a run.
                #[cfg(feature = "jit")]
                if RUN & !BANKED == ROM_RUN && !run.hw.no_jit {
                    let code = run.code;
                    // Poll and idle loops' starts: the engine skips their
                    // turns itself, so blocks do not chain into them.
                    let chain_into = !_looped;
                    // Where a compiled region may go on without the engine:
                    // where it would run a run itself (`jit::compile`).
                    let bank_off = off & !0x3FFF;
                    let enterable = |t: u16| code.enterable(bank_off, t);
                    if let Some(block) = code.jit.as_ref().and_then(|j| {
                        Some((j, j.block(off, pc, run.bank, chain_into, &enterable)?))
                    }) {
                        let (jit, block) = block;
                        if run.now + 4 * (block.admit_cycles as u64) < horizon {
                            let mut regs = cpu.jit_regs();
                            run.limit = run.now + 4 * block.admit_cycles as u64 + 1;
                            let now = run.now;
                            let chain = run.jit_chain(horizon);
                            run.now =
                                crate::jit::run_block(jit, block, &mut regs, now, chain, &mut run);
                            cpu.set_jit_regs(&regs);
                            if run.slow {
                                break Some(Straight::Recheck);
                            }
                            continue;
                        }
                    }
                }
                // The run stops after the instruction that starts at the
                // end of its `cycles` (its last), or earlier: at the
                // horizon, or after a branch that leaves its predicted
                // path (`RunHooks::branch_taken`, `RunHooks::returned`).
                run.limit = (run.now + 4 * cycles as u64 + 1).min(horizon);
                loop {
                    let op = cpu.fetch8(&mut run);
                    cpu.execute(op, &mut run);
                    if run.now >= run.limit {
                        break;
                    }
                }
                if run.slow {
                    break Some(Straight::Recheck);
                }
            };
            let now = run.now;
            drop(run);
            bus.now = now;
            match outcome {
                Some(Straight::Recheck) => {
                    if !bus.after_slow_run(&cpu, done) {
                        return (cpu, bus, outcome);
                    }
                    // The write to FF50 that ends the boot ROM chose the
                    // mode, or SVBK mapped a bank (`Hardware::banked_runs`).
                    if bus.hw.banked_runs() != (RUN & BANKED != 0) {
                        return (cpu, bus, None);
                    }
                }
                _ => return (cpu, bus, outcome),
            }
        }
    }

    /// Code in work RAM, run while PC stays there and each instruction ends
    /// before the next event (`None`: PC left work RAM).
    #[inline(never)]
    fn wram_runs(
        mut cpu: Cpu,
        mut bus: Self,
        done: &mut impl FnMut(&mut Self) -> bool,
    ) -> (Cpu, Self, Option<Straight>) {
        loop {
            let limit = bus.next_event.saturating_sub(LONGEST_INSTRUCTION);
            if bus.now >= limit {
                return (cpu, bus, Some(Straight::Wait));
            }
            let mut run = bus.run_bus::<WRAM_RUN>(&NO_BANK);
            run.limit = limit;
            // The loop runs on a copy of the CPU: `cpu` is part of the
            // returned tuple, which the optimizer otherwise works on in
            // place (in memory, through a pointer). On the copy it keeps PC
            // in a machine register, which pays for code in work RAM
            // (bench/README.md, "A copy of the CPU in work-RAM runs").
            let mut c = cpu;
            loop {
                // A compiled block (feature `jit`) where work RAM still holds
                // the code it was compiled from, admitted as in `rom_runs`.
                #[cfg(feature = "jit")]
                if !run.hw.no_jit {
                    let code = run.code;
                    if let Some(jit) = code.jit.as_ref() {
                        if let Some(block) = jit.wram_block(c.pc(), &run.ram[..WRAM_SIZE]) {
                            if run.now + 4 * (block.admit_cycles as u64) < run.limit {
                                let mut regs = c.jit_regs();
                                let chain = crate::jit::Chain {
                                    horizon: run.limit,
                                    ..crate::jit::Chain::NONE
                                };
                                let now = run.now;
                                run.now = crate::jit::run_block(
                                    jit, block, &mut regs, now, chain, &mut run,
                                );
                                c.set_jit_regs(&regs);
                                if run.slow || run.now >= run.limit {
                                    break;
                                }
                                if (c.pc().wrapping_sub(0xC000) as usize) >= WRAM_SIZE {
                                    run.strayed = true;
                                    break;
                                }
                                continue;
                            }
                        }
                    }
                }
                let op = c.fetch8(&mut run);
                c.execute(op, &mut run);
                if run.now >= run.limit {
                    break;
                }
            }
            cpu = c;
            let (now, slow, strayed) = (run.now, run.slow, run.strayed);
            drop(run);
            bus.now = now;
            if slow {
                if !bus.after_slow_run(&cpu, done) {
                    return (cpu, bus, Some(Straight::Recheck));
                }
                if bus.hw.wramx != 0 {
                    // An SVBK write mapped bank 2-7 (see `straight_runs`).
                    bus.recheck = true;
                    return (cpu, bus, Some(Straight::Recheck));
                }
            } else if !strayed {
                // Stopped before the next event, still in work RAM.
                return (cpu, bus, Some(Straight::Wait));
            }
            if (cpu.pc().wrapping_sub(0xC000) as usize) >= WRAM_SIZE {
                return (cpu, bus, None);
            }
        }
    }

    /// After a run that made a slow access: take the new event time, and
    /// make the checks the interpreter loop makes after one. `false`: the
    /// loop must take over (the frame is done, or the CPU halts or has an
    /// interrupt to take).
    #[inline(always)]
    fn after_slow_run(&mut self, cpu: &Cpu, done: &mut impl FnMut(&mut Self) -> bool) -> bool {
        if self.now >= self.hw.next_event {
            // The access moved an event into the rest of its instruction.
            self.hw.now = self.now;
            self.hw.process_events(self.ram);
            self.now = self.hw.now;
        }
        self.next_event = self.hw.next_event;
        // A bank switch or the boot ROM unmapping moved the window.
        self.win_start = NO_WINDOW;
        if done(self) || !cpu.runs_plainly(self.hw.pending()) {
            self.recheck = true;
            return false;
        }
        true
    }

    /// The bus of a straight run (see `straight_runs`) in mode `RUN`, on
    /// this bus's machine and clock.
    #[inline(always)]
    fn run_bus<const RUN: u8>(&mut self, bank: &'a [u8; 0x4000]) -> Bus<'_, REF, RUN> {
        Bus {
            hw: &mut *self.hw,
            ram: &mut *self.ram,
            code: self.code,
            now: self.now,
            next_event: self.next_event,
            recheck: false,
            win: 0,
            win_start: NO_WINDOW,
            bank,
            strayed: false,
            limit: 0,
            slow: false,
            depth: 0,
        }
    }

    /// At the start of the poll loop at ROM offset `off` (see
    /// [`PollLoop`]): if the value the register holds now sends the loop
    /// back, skip the turns that would all read it: those whose reads come
    /// before the PPU's next transition (the only thing that changes STAT
    /// or LY while the loop runs: it writes nothing) and that end before
    /// the next event, so nothing else happens meanwhile; every component
    /// catches up lazily. Leaves PC at the loop, and A and F as the last
    /// skipped turn leaves them. The reference path runs every turn.
    #[inline(never)]
    fn skip_poll_turns(&mut self, cpu: &mut Cpu, off: usize) {
        let Some(poll) = self.code.rom.get(off..off + 6).and_then(PollLoop::decode) else {
            return;
        };
        let hw = &*self.hw;
        // The turn's read comes in its third M-cycle, after three ticks.
        let read = self.now + 12;
        let next = hw.cpu_time_of(hw.ppu.next_transition());
        // Otherwise `catch_up_ppu` would have work to do at the first read.
        // (Its late-request note needs a transition in the M-cycle of the
        // read; those caught up so far all came by `now`.)
        if next <= read || hw.dma.copied < 160 {
            return;
        }
        let turn = 4 * POLL_TURN_CYCLES;
        // Turns whose reads come before the transition...
        let by_ppu = (next - 1 - read) / turn + 1;
        // ...and that end before the next event.
        let turns = by_ppu.min(self.time_to_skip() / turn);
        if turns == 0 {
            return;
        }
        let v = hw.ppu.read(poll.register);
        let mut after = *cpu;
        if poll.turn(&mut after, v) {
            *cpu = after;
            self.now += turns * turn;
        }
    }

    /// A jump to itself at ROM byte offset `off` (an [`IdleLoop`], with the
    /// CPU running and no interrupt to take): skip its turns that end, with
    /// an instruction's margin, before the next event, the only thing that
    /// can raise an interrupt to leave it. A turn only fetches its own ROM
    /// bytes, so nothing else happens meanwhile; every component catches up
    /// lazily. Not while an OAM DMA runs (its bus conflict changes what
    /// the fetches read). The reference path runs every turn.
    #[inline(never)]
    fn skip_idle_turns(&mut self, cpu: &Cpu, off: usize) {
        let rom = &self.code.rom;
        let Some(idle) = rom
            .get(off..(off + 3).min(rom.len()))
            .and_then(|b| IdleLoop::decode(b, cpu.pc()))
        else {
            return;
        };
        if self.hw.dma.copied < 160 {
            return;
        }
        let turn = 4 * idle.turn_cycles;
        self.now += self.time_to_skip() / turn * turn;
    }

    /// HRAM code where the interpreter rechecks (after a jump or call into
    /// HRAM from a run, or after an event): if it is a [`Countdown`], run
    /// its turns that end, with an instruction's margin, before the next
    /// event at once. They touch nothing but A, F and PC, so nothing else happens
    /// meanwhile; every component catches up lazily. The reference path
    /// runs every turn.
    #[inline(never)]
    fn skip_countdown(&mut self, cpu: &mut Cpu) {
        let at = HRAM_BASE + (cpu.pc() - 0xFF80) as usize;
        let Some(countdown) = Countdown::decode(&self.ram[at..HRAM_BASE + HRAM_SIZE]) else {
            return;
        };
        self.now += 4 * countdown.skip(cpu, self.time_to_skip() / 4);
    }

    /// T-cycles that skipped loop turns may take: up to the next event,
    /// less an instruction's margin (as a run keeps).
    fn time_to_skip(&self) -> u64 {
        self.next_event
            .saturating_sub(self.now + LONGEST_INSTRUCTION + 1)
    }

    /// A slow read inside a straight run. A read switches no bank and
    /// changes neither IE nor the CPU, so the run goes on unless it raised
    /// an interrupt request, ended the frame (reading IF catches every
    /// component up) or moved the next event earlier. Games polling STAT or
    /// LY would otherwise end a run at every poll.
    ///
    /// The PPU's registers take a shorter way (`straight_ppu_read`): the
    /// clock-independent ones need nothing at all, STAT and LY only the
    /// PPU's catch-up.
    #[inline(never)]
    pub(super) fn straight_io_read<const IDU: bool>(&mut self, addr: u16) -> u8 {
        if let 0xFF40..=0xFF45 | 0xFF47..=0xFF4B = addr {
            if self.now < self.next_event {
                return self.straight_ppu_read(addr);
            }
        }
        let (intf, next_event, limit, slow) =
            (self.hw.intf, self.next_event, self.limit, self.slow);
        let v = self.synced(|hw, ram| hw.cpu_read_idu::<IDU>(ram, addr));
        if self.hw.intf == intf && self.next_event >= next_event && !self.hw.frame_done {
            self.limit = limit;
            self.slow = slow;
        }
        v
    }

    /// A read of a PPU register (not DMA) inside a straight run, before the
    /// next event: what `straight_io_read` does through `synced` and
    /// `Hardware::cpu_read_idu`, without the work that cannot matter here.
    /// LCDC, SCY, SCX, LYC, BGP, OBP0/1, WY and WX hold what the CPU last
    /// wrote, whatever the PPU's progress, so they are read as they are:
    /// the PPU catches up at its next access or event, as lazily as
    /// everywhere else (2048 reads LCDC before every tile it writes). STAT
    /// and LY need the PPU brought up to date, nothing else: no other
    /// component, no event (the run ends before the next one), no bank or
    /// fetch window. Like `straight_io_read`, the run goes on unless the
    /// catch-up raised an interrupt request (the lazy transitions before
    /// the next event never do; kept for exactness). The reference path
    /// reads through `Hardware::read_ppu_register`, at every M-cycle caught
    /// up; `tests/reference_path.rs::ppu_register_reads_match_the_reference_path`
    /// holds the two together.
    #[inline(always)]
    fn straight_ppu_read(&mut self, addr: u16) -> u8 {
        if addr != 0xFF41 && addr != 0xFF44 {
            return self.hw.ppu.read(addr);
        }
        let hw = &mut *self.hw;
        hw.now = self.now;
        let intf = hw.intf;
        hw.catch_up_ppu(self.ram);
        if hw.intf != intf {
            self.limit = 0;
            self.slow = true;
        }
        hw.ppu.read(addr)
    }

    /// `synced`, out of line, for the slow writes and the OAM-bug cycle of
    /// a straight ROM run: it keeps the run's loop small. Work-RAM runs
    /// keep `synced` inline, which measured better there (bench/README.md,
    /// "Slow writes out of line in ROM runs").
    #[cold]
    #[inline(never)]
    pub(super) fn synced_out_of_line<R>(
        &mut self,
        f: impl FnOnce(&mut Hardware, &mut Ram) -> R,
    ) -> R {
        self.synced(f)
    }
}
