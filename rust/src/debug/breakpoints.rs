//! [`HookBus`]: PC breakpoints on a bus of the machine.

use crate::bus::{Hardware, MachineBus, Ram};
use crate::cpu::{Cpu, CpuBus, DebugHooks, RunHooks, Straight};

/// A set of PC breakpoints, asked before each instruction of a run on a
/// [`HookBus`].
pub trait Breakpoints {
    /// Whether the instruction at `pc`, about to run on `hw`, is a
    /// breakpoint: the run then stops before it. Asked before every
    /// instruction, so it starts with a cheap check.
    fn breaks_at(&mut self, hw: &Hardware, pc: u16) -> bool;
    /// Whether the last run stopped at a breakpoint.
    fn stopped(&self) -> bool;
    /// A run starts: forget where the last one stopped.
    fn start_run(&mut self);
}

/// A bus with PC breakpoints: the CPU asks `breakpoints` before each
/// instruction ([`DebugHooks::BREAKPOINTS`]) and stops before one that is
/// hit. It runs no straight runs (they would run the instructions
/// unchecked); everything else is the wrapped bus's.
pub struct HookBus<'h, B, T> {
    pub inner: B,
    pub breakpoints: &'h mut T,
}

impl<'h, B: MachineBus, T: Breakpoints> HookBus<'h, B, T> {
    #[inline(always)]
    pub fn new(inner: B, breakpoints: &'h mut T) -> Self {
        HookBus { inner, breakpoints }
    }
}

impl<B: MachineBus, T: Breakpoints> MachineBus for HookBus<'_, B, T> {
    forward_machine_bus!(B);
}

impl<B: MachineBus, T: Breakpoints> DebugHooks for HookBus<'_, B, T> {
    const BREAKPOINTS: bool = true;

    #[inline(always)]
    fn breakpoint(&mut self, pc: u16) -> bool {
        self.breakpoints.breaks_at(self.inner.hw(), pc)
    }
}

impl<B: MachineBus, T: Breakpoints> CpuBus for HookBus<'_, B, T> {
    forward_cpu_bus!();
}

impl<B: MachineBus, T: Breakpoints> RunHooks for HookBus<'_, B, T> {
    #[inline(always)]
    fn take_recheck(&mut self) -> bool {
        self.inner.take_recheck()
    }

    #[inline(always)]
    fn recheck(&mut self) {
        self.inner.recheck()
    }

    // No straight runs: they would run hooked instructions unchecked.
    const STRAIGHT_RUNS: bool = false;

    #[inline(always)]
    fn run_straight(
        cpu: Cpu,
        bus: Self,
        done: &mut impl FnMut(&mut Self) -> bool,
    ) -> (Cpu, Self, Straight) {
        let _ = done;
        (cpu, bus, Straight::Step)
    }
}
