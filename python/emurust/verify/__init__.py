"""Verification of emurust against an independent model and against PyBoy: ``emurust
verify`` and the lockstep harness.

Modules, one job each:

* :mod:`emurust.verify.lockstep`: :func:`run_lockstep`, emurust and PyBoy 2.8.1 side by side
  frame by frame; :mod:`emurust.verify.allowlist`: the documented differences it tolerates
  (a package: the entries as data, their rules, their proofs and the re-runs behind them);
  :mod:`emurust.verify.disasm`: the disassembler of its traces;
  :mod:`emurust._pyboy_adapter`: the project's one PyBoy adapter.
* :mod:`emurust.verify.programs`: the activity ROM; the levels build their programs and ROMs
  with :mod:`emurust.tools.asm` (:mod:`~emurust.tools.asm.ops`, :mod:`~emurust.tools.asm.program`,
  :mod:`~emurust.tools.asm.rom`); :mod:`emurust.verify.machine`: the emurust machine the
  generated-ROM checks run (fast or reference path, a test-only fault).
* :mod:`emurust.verify.runner`: :func:`run`, the levels' runner; :mod:`emurust.verify.report`:
  ``report.json`` / ``report.md``;
  :mod:`emurust.verify.cli`: ``emurust verify`` and ``python -m emurust.verify.cli``.

Levels
======

1. **Properties** (:mod:`emurust.verify.properties`, a package: ALU, memory, state): every
   ALU, rotate, shift and BCD opcode family (ADD ADC SUB SBC AND XOR OR CP INC DEC, RLCA
   RRCA RLA RRA, CB RLC RRC RL RR SLA SRA SRL SWAP BIT, DAA CPL SCF CCF, ADD HL,rr, ADD SP,e
   / LD HL,SP+e) run on emurust in generated ROMs and compared with an independent Python
   reference model (itself cross-checked against the SingleStepTests SM83 vectors when the
   test-ROM folder is present); memory-map invariants (echo RAM, FEA0-FEFF, unused I/O
   bits); save/load round trips and rendering on/off leave the machine identical.
2. **Interactions** (:mod:`emurust.verify.interactions`): joypad interrupt and P1, timer
   overflow/reload, OAM DMA, MBC1/MBC3/MBC5 banking, serial transfer, LCD off/on.
3. **Rollouts** (:mod:`emurust.verify.rollouts`): seeded random-input rollouts in lockstep
   with PyBoy (:mod:`emurust.verify.lockstep`), one long and many short per ROM.
4. **Policy transfer** (:mod:`emurust.verify.policy_transfer`, only when asked for: it
   trains two agents): a PPO agent trained on emurust and one trained on PyBoy, each
   evaluated on both backends over the same seeded episodes; TOST decides whether the mean
   returns are equivalent.

:func:`run` returns a :class:`Report`; :func:`write_report` writes ``report.json`` (the
schema in ``REPORT_SCHEMA``) and ``report.md``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from emurust._pyboy_adapter import PYBOY_VERSION, pyboy_boot_rom
    from emurust.verify.allowlist import DEFAULT_ALLOWLIST, AllowlistEntry
    from emurust.verify.disasm import disassemble
    from emurust.verify.lockstep import (
        Divergence,
        LockstepResult,
        random_inputs,
        run_lockstep,
        sync_boot_rom,
    )
    from emurust.verify.report import (
        REPORT_SCHEMA,
        Report,
        print_summary,
        render_markdown,
        write_report,
    )
    from emurust.verify.result import Result, Status
    from emurust.verify.runner import DEFAULT_LEVELS, FAULTS, LEVELS, Config, run

__all__ = [
    "DEFAULT_ALLOWLIST",
    "DEFAULT_LEVELS",
    "FAULTS",
    "LEVELS",
    "PYBOY_VERSION",
    "REPORT_SCHEMA",
    "AllowlistEntry",
    "Config",
    "Divergence",
    "LockstepResult",
    "Report",
    "Result",
    "Status",
    "disassemble",
    "print_summary",
    "pyboy_boot_rom",
    "random_inputs",
    "render_markdown",
    "run",
    "run_lockstep",
    "sync_boot_rom",
    "write_report",
]

# The public names, imported from their modules on first use: importing one module of the
# package stays cheap. The PyBoy adapter is the product's (emurust._pyboy_adapter: the envs
# and emurust.PyBoy use it); verify re-exports two of its names.
_HOME = {
    "DEFAULT_ALLOWLIST": "allowlist",
    "AllowlistEntry": "allowlist",
    "disassemble": "disasm",
    "Divergence": "lockstep",
    "LockstepResult": "lockstep",
    "random_inputs": "lockstep",
    "run_lockstep": "lockstep",
    "sync_boot_rom": "lockstep",
    "PYBOY_VERSION": "emurust._pyboy_adapter",
    "pyboy_boot_rom": "emurust._pyboy_adapter",
    "REPORT_SCHEMA": "report",
    "Report": "report",
    "print_summary": "report",
    "render_markdown": "report",
    "write_report": "report",
    "Result": "result",
    "Status": "result",
    "DEFAULT_LEVELS": "runner",
    "FAULTS": "runner",
    "LEVELS": "runner",
    "Config": "runner",
    "run": "runner",
}


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'emurust.verify' has no attribute {name!r}")
    path = module if "." in module else f"emurust.verify.{module}"
    value = getattr(importlib.import_module(path), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
