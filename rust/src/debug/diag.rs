//! [`DiagBus`]: the CPU's trace and fault injection on a bus of the machine.

use crate::bus::{Hardware, MachineBus, Ram};
use crate::cpu::{
    instruction_length, CpuBus, DebugHooks, Diagnostics, Fault, Registers, RunHooks, StepKind,
    TraceEntry,
};

/// A bus with diagnostics (see [`Diagnostics`]): what the CPU runs on while a
/// trace or a fault is on, over the reference bus. Every bus operation is
/// forwarded unchanged, so timing and state are exactly the wrapped bus's
/// (with no fault). It keeps [`RunHooks`]' defaults: the CPU looks at its
/// stop condition before every step and runs no straight runs, so every
/// step is traced.
pub struct DiagBus<'d, B> {
    pub inner: B,
    pub diag: &'d mut Diagnostics,
}

impl<'d, B: MachineBus> DiagBus<'d, B> {
    #[inline(always)]
    pub fn new(inner: B, diag: &'d mut Diagnostics) -> Self {
        DiagBus { inner, diag }
    }
}

impl<B: MachineBus> MachineBus for DiagBus<'_, B> {
    const REFERENCE: bool = B::REFERENCE;
    const DMA: bool = B::DMA;

    #[inline(always)]
    fn hw(&self) -> &Hardware {
        self.inner.hw()
    }
    #[inline(always)]
    fn ram(&self) -> &Ram {
        self.inner.ram()
    }
}

impl<B: MachineBus> CpuBus for DiagBus<'_, B> {
    #[inline(always)]
    fn read(&mut self, addr: u16) -> u8 {
        self.inner.read(addr)
    }
    #[inline(always)]
    fn write(&mut self, addr: u16, value: u8) {
        self.inner.write(addr, value)
    }
    #[inline(always)]
    fn idle(&mut self) {
        self.inner.idle()
    }
    #[inline(always)]
    fn idle_idu(&mut self, addr: u16) {
        self.inner.idle_idu(addr)
    }
    #[inline(always)]
    fn read_idu(&mut self, addr: u16) -> u8 {
        self.inner.read_idu(addr)
    }
    #[inline(always)]
    fn pending_interrupts(&mut self) -> u8 {
        self.inner.pending_interrupts()
    }
    #[inline(always)]
    fn pending_at_dispatch(&mut self) -> u8 {
        self.inner.pending_at_dispatch()
    }
    #[inline(always)]
    fn acknowledge_interrupt(&mut self, mask: u8) {
        self.inner.acknowledge_interrupt(mask)
    }
    #[inline(always)]
    fn acknowledge_after_low_push(&mut self, mask: u8) {
        self.inner.acknowledge_after_low_push(mask)
    }
    #[inline(always)]
    fn halt_idle(&mut self) {
        self.inner.halt_idle()
    }
    fn stop(&mut self) {
        self.inner.stop()
    }
    fn speed_switch(&mut self) -> bool {
        self.inner.speed_switch()
    }
    fn joypad_pressed(&mut self) -> bool {
        self.inner.joypad_pressed()
    }
}

impl<B: MachineBus> RunHooks for DiagBus<'_, B> {}

impl<B: MachineBus> DebugHooks for DiagBus<'_, B> {
    const DIAGNOSTIC: bool = true;

    fn fault(&self) -> Option<Fault> {
        self.diag.fault()
    }

    fn trace_step(&mut self, kind: StepKind, registers: Registers, ime: bool) {
        if self.diag.capacity() == 0 {
            return;
        }
        let hw = self.inner.hw();
        let ram = self.inner.ram();
        let pc = registers.pc;
        let bytes = [
            hw.peek(ram, pc),
            hw.peek(ram, pc.wrapping_add(1)),
            hw.peek(ram, pc.wrapping_add(2)),
        ];
        let length = if kind == StepKind::Instruction {
            instruction_length(bytes[0])
        } else {
            0
        };
        self.diag.push(TraceEntry {
            kind,
            registers,
            bytes,
            length,
            ime,
            ie: hw.ie,
            intf: hw.intf,
            cycles: hw.now,
            repeat: 1,
        });
    }
}
