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
    forward_machine_bus!(B);
}

impl<B: MachineBus> CpuBus for DiagBus<'_, B> {
    forward_cpu_bus!();
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
