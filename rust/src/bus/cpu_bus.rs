//! [`Bus`], the CPU's view of one machine (`CpuBus`): the bus's own copy of
//! the clock, the fetch window, the per-M-cycle tick, and the modes of the
//! straight runs (`run_engine.rs`) and of OAM DMA.

use super::{Hardware, Ram, HRAM_BASE, RET_RING, WRAM_SIZE};
use crate::cpu::{Code, Cpu, CpuBus, CpuHost, DebugHooks, RunHooks, Straight};
use crate::serial::IRQ_SERIAL;
use crate::timer::IRQ_TIMER;

/// The CPU's view of one machine: its hardware plus its RAM block. `REF`
/// selects the slow reference path (every component stepped every M-cycle).
///
/// The bus keeps its own copy of the clock (`now`) and of the next event
/// time, so the per-M-cycle `now += 4; if now >= next_event` of the fast
/// path touches the bus struct directly instead of going through the
/// `hw` pointer to `Hardware`'s fields (the clock update was the largest
/// single cost of the interpreter; bench/README.md, "Figures moved out of
/// the code"). The copy is written back to
/// `hw.now` before every call that can look at the time (the slow arms of
/// reads and writes, events, HALT, STOP) and when the bus is dropped; on
/// the reference path `hw.now` is current after every tick.
///
/// `MODE` is [`NORMAL`] except on the buses of straight runs (see
/// `cpu/run_table.rs`): [`ROM_RUN`] runs a precomputed run of ROM code,
/// fetching from its bank directly; [`WRAM_RUN`] runs code in work RAM,
/// checking before each instruction that all of its M-cycles come before
/// the next event. Both skip the per-M-cycle event check.
pub struct Bus<'a, const REF: bool, const MODE: u8 = NORMAL> {
    pub hw: &'a mut Hardware,
    pub ram: &'a mut Ram,
    /// The ROM's bytes and runs (shared by every machine running it).
    pub(super) code: &'a Code,
    pub(super) now: u64,
    pub(super) next_event: u64,
    /// Raised whenever the hardware ran (events, slow accesses) or the CPU
    /// asked (`RunHooks::recheck`): see `Cpu::run_until`.
    pub(super) recheck: bool,
    /// Fetch window: the eight ROM bytes from `win_start` as mapped when
    /// they were read. The mapping only changes through a slow access (a
    /// bank-switch write, the boot ROM unmapping), and every slow access
    /// empties the window, so reads that fall in it (sequential opcode and
    /// immediate fetches, mostly) skip the address decode and bank lookup.
    pub(super) win: u64,
    /// Address of `win`'s first byte, or [`NO_WINDOW`].
    pub(super) win_start: u32,
    /// Straight runs only: the ROM bank the run's code lies in.
    pub(super) bank: &'a [u8; 0x4000],
    /// [`WRAM_RUN`]: an opcode or immediate was fetched from outside work
    /// RAM.
    pub(super) strayed: bool,
    /// Straight runs only: the run stops before an instruction that
    /// starts at or after this time ([`ROM_RUN`]: just after the start of
    /// its last instruction; [`WRAM_RUN`]: 24 T-cycles, the longest
    /// instruction, before the next event). A slow access sets it to 0:
    /// the run ends after the current instruction.
    pub(super) limit: u64,
    /// Straight runs only: a slow access happened. It may have moved the
    /// next event before a later M-cycle of its instruction, which a normal
    /// tick would process right there. Straight runs process it before the
    /// next slow access of the instruction, or after the instruction: the
    /// fast accesses in between (ROM, work RAM, HRAM) do not touch the
    /// hardware, and every component catches up lazily, so the outcome is
    /// the same.
    pub(super) slow: bool,
    /// [`ROM_RUN`]: calls less returns so far in the run (wrapping), the
    /// index of `Hardware::rets`.
    pub(super) depth: u8,
}

/// [`Bus`] modes: the normal fast bus, and those of straight runs.
pub const NORMAL: u8 = 0;
pub const ROM_RUN: u8 = 1;
pub const WRAM_RUN: u8 = 2;
/// The bus while an OAM DMA is pending or running: every access goes
/// through the hardware, which resolves the DMA's bus conflicts
/// (`Hardware::cpu_read_dma`); only HRAM countdowns are skipped.
pub const DMA_BUS: u8 = 3;

/// A flag on [`ROM_RUN`]: the run's work-RAM accesses look for a CGB's
/// bank 2-7 mapped at 0xD000 (`Hardware::wram_read`), which lives outside
/// the RAM block. Runs without it, the DMG's always, index the RAM block
/// directly; they run only while nothing is mapped there (`bus::runs`).
pub const BANKED: u8 = 4;

/// Whether `MODE` is the mode of a straight run's bus.
pub(super) const fn is_run(mode: u8) -> bool {
    mode & !BANKED == ROM_RUN || mode & !BANKED == WRAM_RUN
}

/// Whether `MODE` is a run of ROM code ([`ROM_RUN`], with or without
/// [`BANKED`]).
pub(super) const fn is_rom_run(mode: u8) -> bool {
    mode & !BANKED == ROM_RUN
}
/// The longest instruction (CALL), in T-cycles.
pub(super) const LONGEST_INSTRUCTION: u64 = 24;

/// The bank a bus outside a straight run points at (never read).
pub(super) static NO_BANK: [u8; 0x4000] = [0; 0x4000];

/// `Bus::win_start` of an empty window: no 16-bit address is within 8 of it.
pub(super) const NO_WINDOW: u32 = 0x1_0000;

impl<'a, const REF: bool> Bus<'a, REF> {
    #[inline(always)]
    pub fn new(hw: &'a mut Hardware, ram: &'a mut Ram, code: &'a Code) -> Self {
        Self::fresh(hw, ram, code)
    }
}

impl<'a, const REF: bool, const MODE: u8> Bus<'a, REF, MODE> {
    /// A bus of any mode over `hw` with its clock, before any access.
    #[inline(always)]
    fn fresh(hw: &'a mut Hardware, ram: &'a mut Ram, code: &'a Code) -> Self {
        let (now, next_event) = (hw.now, hw.next_event);
        Bus {
            hw,
            ram,
            code,
            now,
            next_event,
            recheck: true,
            win: 0,
            win_start: NO_WINDOW,
            bank: &NO_BANK,
            strayed: false,
            limit: 0,
            slow: false,
            depth: 0,
        }
    }
}

impl<'a, const REF: bool> Bus<'a, REF, DMA_BUS> {
    /// The bus for the time an OAM DMA is pending or running (see [`DMA_BUS`]).
    #[inline(always)]
    pub fn new_dma(hw: &'a mut Hardware, ram: &'a mut Ram, code: &'a Code) -> Self {
        Self::fresh(hw, ram, code)
    }
}

impl<'a, const REF: bool, const MODE: u8> Bus<'a, REF, MODE> {
    /// A ROM read (0x0000-0x7FFF) through the fetch window.
    #[inline(always)]
    fn read_rom(&mut self, addr: u16) -> u8 {
        let d = (addr as u32).wrapping_sub(self.win_start);
        if d < 8 {
            return (self.win >> (d * 8)) as u8;
        }
        self.refill_window(addr)
    }

    /// Read `addr` and make the fetch window start there (when its eight
    /// bytes lie in one bank and no boot ROM covers them).
    #[inline(always)]
    fn refill_window(&mut self, addr: u16) -> u8 {
        if addr >= self.hw.boot_end() {
            if let Some(w) = self.hw.cart.rom_window(addr) {
                self.win = w;
                self.win_start = addr as u32;
                return w as u8;
            }
        }
        self.hw.read_rom(addr)
    }

    /// Advance one M-cycle.
    #[inline(always)]
    fn tick(&mut self) {
        if is_run(MODE) {
            // The run's admission checked every tick against the event.
            self.now += 4;
        } else if REF {
            self.hw.tick::<true>(self.ram);
            self.now = self.hw.now;
            self.recheck = true;
        } else {
            self.now += 4;
            if self.now >= self.next_event {
                self.hw.now = self.now;
                self.hw.process_events(self.ram);
                // A CGB's HBlank DMA holds the CPU: the clock moved on.
                self.now = self.hw.now;
                self.next_event = self.hw.next_event;
                self.recheck = true;
            }
        }
    }

    /// `tick` for a write to `addr`. When the tick runs the PPU's
    /// transitions of this M-cycle (an event is due, or on the reference
    /// path every M-cycle) and the write goes to STAT or LYC, the PPU is
    /// first caught up with the STAT inputs noted before each of them
    /// (`Ppu::write_stat_input` works out which come before the write).
    /// Otherwise the write's own catch-up notes them (`Hardware::write_io`);
    /// inside a run no event falls, so that is always the case there.
    #[inline(always)]
    fn tick_for_write(&mut self, addr: u16) {
        if is_run(MODE) {
            self.now += 4;
        } else if REF {
            if addr | 4 == 0xFF45 {
                self.before_stat_write(self.now + 4);
            }
            self.tick();
        } else {
            self.now += 4;
            if self.now >= self.next_event {
                if addr | 4 == 0xFF45 {
                    self.before_stat_write(self.now);
                }
                self.hw.now = self.now;
                self.hw.process_events(self.ram);
                self.now = self.hw.now;
                self.next_event = self.hw.next_event;
                self.recheck = true;
            }
        }
    }

    /// The PPU caught up to `end`, the end of the write's M-cycle, noting
    /// the STAT inputs before its transitions there (`tick_for_write`).
    #[cold]
    #[inline(never)]
    fn before_stat_write(&mut self, end: u64) {
        let now = self.hw.now;
        self.hw.now = end;
        self.hw.catch_up_ppu_noting(self.ram);
        self.hw.now = now;
    }

    /// Run `f` on the hardware with its clock up to date, then take back
    /// the event time it may have rescheduled (and the clock, which HALT
    /// moves).
    #[inline(always)]
    pub(super) fn synced<R>(&mut self, f: impl FnOnce(&mut Hardware, &mut Ram) -> R) -> R {
        self.hw.now = self.now;
        if is_run(MODE) && self.now >= self.next_event {
            // An earlier slow access of this instruction moved the next
            // event before this M-cycle (see `Bus::slow`).
            self.hw.process_events(self.ram);
        }
        let r = f(self.hw, self.ram);
        self.now = self.hw.now;
        self.next_event = self.hw.next_event;
        self.recheck = true;
        // The access may have switched ROM banks or unmapped the boot ROM.
        self.win_start = NO_WINDOW;
        if is_run(MODE) {
            self.limit = 0;
            self.slow = true;
        }
        r
    }

    #[inline(always)]
    pub(super) fn read_at<const IDU: bool>(&mut self, addr: u16) -> u8 {
        // While an OAM DMA runs, every access may collide with it. (The fast
        // path switches to the DMA bus for that time; the reference path
        // asks at every access.)
        if MODE == DMA_BUS || (REF && self.hw.dma_pending()) {
            // HRAM is on neither bus: the DMA routine's wait loop runs there.
            if let 0xFF80..=0xFFFE = addr {
                return self.ram[HRAM_BASE + (addr - 0xFF80) as usize];
            }
            return self.synced(|hw, ram| hw.cpu_read_dma::<IDU>(ram, addr));
        }
        // The common targets need no clock: ROM, WRAM (and echo), HRAM.
        match addr {
            0x0000..=0x7FFF => self.hw.read_rom(addr),
            // A run without BANKED runs only while the RAM block is all of
            // work RAM (`bus::runs`).
            0xC000..=0xFDFF if is_run(MODE) && MODE & BANKED == 0 => {
                self.ram[(addr & 0x1FFF) as usize]
            }
            0xC000..=0xFDFF => self.hw.wram_read(self.ram, addr),
            0xFF80..=0xFFFE => self.ram[HRAM_BASE + (addr - 0xFF80) as usize],
            _ if is_run(MODE) => self.straight_io_read::<IDU>(addr),
            _ => self.synced(|hw, ram| hw.cpu_read_idu::<IDU>(ram, addr)),
        }
    }

    /// A write's access, after its M-cycle's tick.
    #[inline(always)]
    pub(super) fn write_at(&mut self, addr: u16, value: u8) {
        if MODE == DMA_BUS || (REF && self.hw.dma_pending()) {
            if let 0xFF80..=0xFFFE = addr {
                self.ram[HRAM_BASE + (addr - 0xFF80) as usize] = value;
                return;
            }
            return self.synced(|hw, ram| hw.cpu_write_dma(ram, addr, value));
        }
        match addr {
            0xC000..=0xFDFF if is_run(MODE) && MODE & BANKED == 0 => {
                self.ram[(addr & 0x1FFF) as usize] = value
            }
            0xC000..=0xFDFF => self.hw.wram_write(self.ram, addr, value),
            0xFF80..=0xFFFE => self.ram[HRAM_BASE + (addr - 0xFF80) as usize] = value,
            // SVBK in a run that looks for the bank (`BANKED`): nothing
            // else depends on it, so the run goes on (a CGB game that
            // switches banks hundreds of times a frame, such as µCity,
            // would otherwise end a run at each).
            0xFF70 if is_rom_run(MODE) && MODE & BANKED != 0 => {
                self.hw.write_cgb_io(self.ram, addr, value)
            }
            _ if is_rom_run(MODE) => {
                self.synced_out_of_line(|hw, ram| hw.cpu_write(ram, addr, value))
            }
            _ => self.synced(|hw, ram| hw.cpu_write(ram, addr, value)),
        }
    }

    /// The OAM bug of an IDU cycle with 0xFE00-0xFEFF on the bus, after the
    /// cycle's tick.
    #[inline(always)]
    pub(super) fn oam_bug_at_idu(&mut self) {
        if is_rom_run(MODE) {
            self.synced_out_of_line(|hw, ram| hw.oam_bug_idu(ram));
        } else {
            self.synced(|hw, ram| hw.oam_bug_idu(ram));
        }
    }
}

/// A bus over one machine: the plain [`Bus`] of every mode, and the debug
/// wrappers around one (`crate::debug`), which reach the machine through it.
/// The machine's run conditions look at the hardware through [`MachineBus::hw`]
/// whatever the bus.
pub trait MachineBus: CpuHost {
    /// The reference bus (every component stepped every M-cycle).
    const REFERENCE: bool;
    /// The bus of a pending or running OAM DMA ([`DMA_BUS`]).
    const DMA: bool;
    /// The machine's hardware. On the fast buses `hw().now` is current only
    /// where the bus wrote its clock back (slow accesses, events), which is
    /// where the CPU looks at its stop condition.
    fn hw(&self) -> &Hardware;
    /// The machine's RAM block.
    fn ram(&self) -> &Ram;
}

impl<const REF: bool, const MODE: u8> MachineBus for Bus<'_, REF, MODE> {
    const REFERENCE: bool = REF;
    const DMA: bool = MODE == DMA_BUS;

    #[inline(always)]
    fn hw(&self) -> &Hardware {
        self.hw
    }
    #[inline(always)]
    fn ram(&self) -> &Ram {
        self.ram
    }
}

impl<const REF: bool, const MODE: u8> Drop for Bus<'_, REF, MODE> {
    #[inline(always)]
    fn drop(&mut self) {
        self.hw.now = self.now;
    }
}

impl<const REF: bool, const MODE: u8> RunHooks for Bus<'_, REF, MODE> {
    const STRAIGHT_RUNS: bool = !REF && (MODE == NORMAL || MODE == DMA_BUS);

    #[inline(always)]
    fn run_straight(
        cpu: Cpu,
        bus: Self,
        done: &mut impl FnMut(&mut Self) -> bool,
    ) -> (Cpu, Self, Straight) {
        if Self::STRAIGHT_RUNS {
            return Self::straight_runs(cpu, bus, done);
        }
        (cpu, bus, Straight::Step)
    }

    #[inline(always)]
    fn take_recheck(&mut self) -> bool {
        if self.recheck {
            self.recheck = false;
            true
        } else {
            false
        }
    }

    #[inline(always)]
    fn recheck(&mut self) {
        self.recheck = true;
        if is_run(MODE) {
            // The CPU changed its mode or IME: the run ends here.
            self.limit = 0;
            self.slow = true;
        }
    }

    #[inline(always)]
    fn branch_taken(&mut self) {
        if is_rom_run(MODE) {
            self.limit = 0;
        }
    }

    #[inline(always)]
    fn called(&mut self, ret: u16) {
        if is_rom_run(MODE) {
            self.hw.rets[self.depth as usize % RET_RING] = ret;
            self.depth = self.depth.wrapping_add(1);
        }
    }

    #[inline(always)]
    fn returned(&mut self, to: u16) {
        if is_rom_run(MODE) {
            self.depth = self.depth.wrapping_sub(1);
            if self.hw.rets[self.depth as usize % RET_RING] != to {
                // Not where the run's CALL would return: the run ends.
                self.limit = 0;
            }
        }
    }
}

impl<const REF: bool, const MODE: u8> DebugHooks for Bus<'_, REF, MODE> {}

impl<const REF: bool, const MODE: u8> CpuBus for Bus<'_, REF, MODE> {
    #[inline(always)]
    fn read(&mut self, addr: u16) -> u8 {
        self.tick();
        self.read_at::<false>(addr)
    }

    #[inline(always)]
    fn write(&mut self, addr: u16, value: u8) {
        self.tick_for_write(addr);
        self.write_at(addr, value)
    }

    #[inline(always)]
    fn idle(&mut self) {
        self.tick();
    }

    #[inline(always)]
    fn idle_idu(&mut self, addr: u16) {
        // Test the address before the tick: the same cost, but it measurably
        // keeps the hot opcode arms tighter (bench/README.md, "Figures moved
        // out of the code").
        let oam = addr >> 8 == 0xFE;
        self.tick();
        if oam {
            self.oam_bug_at_idu();
        }
    }

    #[inline(always)]
    fn read_idu(&mut self, addr: u16) -> u8 {
        self.tick();
        self.read_at::<true>(addr)
    }

    #[inline(always)]
    fn fetch(&mut self, addr: u16) -> u8 {
        self.tick();
        if is_rom_run(MODE) {
            // A run lies in one bank, mapped for all of it.
            return self.bank[(addr & 0x3FFF) as usize];
        }
        if MODE == WRAM_RUN {
            let i = addr.wrapping_sub(0xC000) as usize;
            if i < WRAM_SIZE {
                return self.ram[i];
            }
            // The code left work RAM: end after this instruction.
            self.strayed = true;
            self.limit = 0;
            return self.read_at::<true>(addr);
        }
        // The reference path reads every byte through the address decode.
        if !REF && MODE == NORMAL && addr < 0x8000 {
            self.read_rom(addr)
        } else {
            self.read_at::<true>(addr)
        }
    }

    #[inline(always)]
    fn pending_interrupts(&mut self) -> u8 {
        self.hw.pending()
    }

    #[inline]
    fn pending_at_dispatch(&mut self) -> u8 {
        // The timer's request raised at the end of this M-cycle comes too
        // late for the vector choice made in it.
        self.synced(|hw, _| hw.pending() & !hw.timer_irq_late())
    }

    #[inline(always)]
    fn acknowledge_interrupt(&mut self, mask: u8) {
        self.hw.intf &= !mask;
    }

    /// Which requests raised in the low push's M-cycle survive the DMG's
    /// clear there, measured on gambatte's dispatch tests: the timer's
    /// (tima/tc00_irq_late_retrigger_3: lost) and the bit a push into IF
    /// writes (irq_precedence/late_if_via_sp_if_1: cleared) come before it;
    /// the PPU's late mode-0 and mode-2 requests
    /// (irq_precedence/late_m0irq_retrigger_scx1_1,
    /// m2int_m2irq/m2irq_late_retrigger_1) and the serial request
    /// (serial/start_wait_trigger_int8_read_if_2) come after it and stay.
    /// Not modelled: the PPU's requests early in the M-cycle (the LYC=153
    /// match of ly0/lycint152_lyc153irq_late_retrigger_2 is lost on a DMG;
    /// emurust does not note where in the M-cycle a late request fell).
    #[cold]
    #[inline(never)]
    fn acknowledge_after_low_push(&mut self, mask: u8) {
        self.synced(|hw, _| {
            let after = (hw.late_if() & !IRQ_TIMER) | IRQ_SERIAL;
            hw.intf &= !(mask & !after);
        })
    }

    #[inline]
    fn halt_idle(&mut self) {
        self.synced(|hw, ram| hw.halt_idle::<REF>(ram));
    }

    #[inline(always)]
    fn stop(&mut self) {
        self.synced(|hw, _| hw.reset_div());
    }

    #[inline(always)]
    fn speed_switch(&mut self) -> bool {
        if self.hw.cgb.is_none() {
            return false;
        }
        self.synced(|hw, ram| hw.speed_switch(ram))
    }

    #[inline(always)]
    fn joypad_pressed(&mut self) -> bool {
        self.hw.joypad.pressed != 0
    }
}

#[cfg(test)]
mod tests {
    use crate::GameBoy;

    /// An MBC1 ROM whose code in bank 1 switches itself out: the opcode
    /// right after the bank-switch write must come from the new bank, even
    /// though the fetch window read it from the old one.
    fn self_switching_rom() -> Vec<u8> {
        let mut rom = vec![0u8; 4 * 0x4000];
        // Header: MBC1, 64 KiB (4 banks).
        rom[0x147] = 0x01;
        rom[0x148] = 0x01;
        // 0x0100: JP 0x4100.
        rom[0x100..0x103].copy_from_slice(&[0xC3, 0x00, 0x41]);
        // Bank 1 at 0x4100: LD A,2; LD (0x2000),A; LD B,0x11; JR -2.
        rom[0x4100..0x410A]
            .copy_from_slice(&[0x3E, 0x02, 0xEA, 0x00, 0x20, 0x06, 0x11, 0x18, 0xFE, 0x00]);
        // Bank 2 at 0x4105: LD B,0x22; JR -2.
        rom[0x8105..0x8109].copy_from_slice(&[0x06, 0x22, 0x18, 0xFE]);
        rom
    }

    #[test]
    fn fetch_window_follows_a_bank_switch() {
        for reference in [false, true] {
            let mut gb = GameBoy::new(&self_switching_rom(), None).unwrap();
            gb.set_reference_mode(reference);
            gb.run_frame(false);
            assert_eq!(gb.registers().b, 0x22, "reference path: {reference}");
        }
    }
}
