"""The allowlist of the lockstep harness: the documented differences between emurust and
PyBoy 2.8.1 that a run tolerates (:data:`DEFAULT_ALLOWLIST`), the rules that mask them and
the proofs of the terminal entries.

Each :class:`AllowlistEntry` masks one documented difference, says exactly what it masks,
and names the evidence: the hardware test ROM that proves PyBoy wrong (or, for an emurust
gap, the test ROM emurust is known to fail). Nothing else is skipped; the entries applied in
a run are listed in :attr:`emurust.verify.lockstep.LockstepResult.allowlisted`.

One module per concern (arrows point down the list; none imports another's private names):

* :mod:`~emurust.verify.allowlist.entries`: :data:`DEFAULT_ALLOWLIST`, the entries as data
  (what each masks, the evidence, its rule and proof);
* :mod:`~emurust.verify.allowlist.rules`: the masking rules;
* :mod:`~emurust.verify.allowlist.proofs`: the terminal entries' proofs that re-run emurust
  as PyBoy behaves, with :mod:`~emurust.verify.allowlist.replays`, the re-runs themselves
  (through the native test aids of the cargo feature ``testing``);
* :mod:`~emurust.verify.allowlist.line153`: pyboy-line-153-ly-terminal's proof, from
  emurust's trace of the frame;
* :mod:`~emurust.verify.allowlist.pixels`: the DMG's pixel as hardware and as PyBoy draw it
  (:class:`LineState`, :func:`hardware_pixel`, :func:`pyboy_pixel`);
* :mod:`~emurust.verify.allowlist.point`: what a rule sees (:class:`Point`, :data:`Diff`),
  what is compared (:data:`REGIONS`, :data:`IO_REGISTERS`, :data:`REGISTERS`) and
  :class:`AllowlistEntry`.
"""

from __future__ import annotations

from emurust.verify.allowlist.entries import DEFAULT_ALLOWLIST
from emurust.verify.allowlist.pixels import LineState, hardware_pixel, pyboy_pixel
from emurust.verify.allowlist.point import (
    IO_REGISTERS,
    REGIONS,
    REGISTERS,
    AllowlistEntry,
    Diff,
    Point,
)

__all__ = [
    "DEFAULT_ALLOWLIST",
    "IO_REGISTERS",
    "REGIONS",
    "REGISTERS",
    "AllowlistEntry",
    "Diff",
    "LineState",
    "Point",
    "hardware_pixel",
    "pyboy_pixel",
]
