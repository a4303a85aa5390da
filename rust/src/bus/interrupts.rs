//! Interrupt requests: `IE & IF`, and the requests raised late in an
//! M-cycle (by the PPU and the timer) that IF accesses in that M-cycle do
//! not see, a halted CPU latches one M-cycle later, and an LYC or TIMA
//! write in it withdraws.

use super::Hardware;
use crate::ppu::IRQ_STAT;
use crate::timer::IRQ_TIMER;

impl Hardware {
    /// `IE & IF` for the five interrupt sources.
    #[inline]
    pub fn pending(&self) -> u8 {
        self.ie & self.intf & 0x1F
    }

    /// The PPU raises its interrupt requests late in the M-cycle: a CPU read
    /// or write of IF in the same M-cycle neither sees nor clears the bits
    /// that became set in it, though the next interrupt check dispatches
    /// them (GBMicrotest *_int_if_*, oam_int_if_*, stat_write_glitch_*).
    #[cold]
    pub(super) fn note_late_ppu_irq(&mut self, before: u8) {
        if self.if_late_at != self.now {
            self.if_late_at = self.now;
            self.if_late = 0;
            self.halt_late = 0;
        }
        self.if_late |= self.ppu.late_irq & !before;
        self.halt_late |= self.ppu.late_halt_irq & !before;
        self.ppu.late_irq = 0;
        self.ppu.late_halt_irq = 0;
    }

    /// A STAT or LYC write lands inside its M-cycle, before some of the
    /// PPU's transitions in it (`Ppu::write_stat_input`): when it leaves no
    /// rising edge there, the request those later transitions raised with
    /// the old value is withdrawn, like a TIMA write cancelling the timer's
    /// (GBMicrotest line_153_lyc_int_b, verified on a DMG: LYC=0xFF written
    /// in the M-cycle of line 153's LY=0 match raises no interrupt; gambatte
    /// m0enable/disable_scx3_2: HBlank disabled as it begins, none).
    #[cold]
    pub(super) fn stat_write_cancel(&mut self) {
        if self.if_late_at == self.now && self.if_late & IRQ_STAT != 0 {
            self.intf &= !IRQ_STAT;
            self.if_late &= !IRQ_STAT;
            self.halt_late &= !IRQ_STAT;
        }
    }

    /// IF bits the PPU raised in the current M-cycle (hidden from IF accesses).
    #[inline]
    pub(super) fn late_if(&self) -> u8 {
        if self.if_late_at == self.now {
            self.if_late
        } else {
            0
        }
    }

    /// The timer raises IF.2 at the very end of the overflow M-cycle, on the
    /// boundary with the reload cycle: the running CPU's interrupt check
    /// after the overflow cycle already takes it (GBMicrotest int_timer_nops,
    /// int_timer_incs, int_timer_nops_div_a; Mooneye timer/rapid_toggle),
    /// but IF reads and writes in that cycle do not see it and a halted CPU
    /// wakes one cycle later (int_timer_halt*), like the PPU's late requests
    /// (`note_late_ppu_irq`). So the request is raised during the overflow
    /// cycle as a late bit of it; a TIMA write in that cycle, which cancels
    /// the reload, takes it back. Runs after every change of the timer's
    /// state: its event (scheduled one cycle early for this), each reference
    /// path M-cycle and timer register writes.
    #[inline(never)]
    pub(super) fn timer_irq_edge(&mut self) {
        let now = self.now;
        if self.timer.next_irq() == now.wrapping_add(4) {
            let new = IRQ_TIMER & !self.intf;
            if new != 0 {
                if self.if_late_at != now {
                    self.if_late_at = now;
                    self.if_late = 0;
                    self.halt_late = 0;
                }
                self.intf |= new;
                self.if_late |= new;
                self.halt_late |= new;
            }
        } else if self.if_late_at == now && self.if_late & IRQ_TIMER != 0 {
            self.intf &= !IRQ_TIMER;
            self.if_late &= !IRQ_TIMER;
            self.halt_late &= !IRQ_TIMER;
        }
    }

    /// IF.2 when it is the timer's request raised late in the current
    /// M-cycle (`timer_irq_edge`).
    #[inline]
    pub(super) fn timer_irq_late(&self) -> u8 {
        self.late_if() & IRQ_TIMER
    }
}
