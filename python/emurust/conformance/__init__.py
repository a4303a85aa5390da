"""Runs the conformance test ROMs on emurust (and on PyBoy, side by side) and prints a table.

Usage::

    python -m emurust.conformance                 # every suite present, emurust + PyBoy
    python -m emurust.conformance --no-pyboy      # emurust only
    python -m emurust.conformance --suite mooneye --json out.json
    python -m emurust.conformance --rom path/to/test.gb --frames 600
    python -m emurust.conformance --strict        # exit 1 on an unexpected emurust failure

Suites (DMG only; ROMs missing from ``emurust.roms_dir()`` are skipped with a note):

* ``blargg``: cpu_instrs (combined + 11 singles), instr_timing, mem_timing (+3 singles),
  mem_timing-2 (+3 singles), halt_bug, interrupt_time. Verdict from the serial text
  ("Passed" / "Failed") or the $A000 block (signature DE B0 61 at $A001, status at $A000
  other than 0x80, 0 = passed, text at $A004), polled every 10 frames.
* ``mooneye``: every ROM under ``mooneye/acceptance`` and ``mooneye/emulator-only/{mbc1,mbc2,mbc5}``
  meant for a DMG (unsuffixed, ``-G``, ``-GS``, ``-dmgABC``, ``-dmgABCmgb``). Verdict after
  every frame: B,C,D,E,H,L = 3,5,8,13,21,34 passes, all 0x42 fails; 1200 frames, else timeout.
* ``samesuite``: ``interrupt/ei_delay_halt.gb`` and the two DMG ``apu/channel_3`` ROMs
  (Mooneye rule).
* ``sound``: Blargg dmg_sound (combined + 12 singles), $A000 rule.
* ``oam_bug``: Blargg oam_bug (combined + 8 singles), $A000 rule.
* ``acid2``: dmg-acid2, screenshot rule: the screen after ``budget`` frames must equal the DMG
  reference image pixel for pixel (shades). emurust renders only the last frame
  (``tick(budget, render=True)``); PyBoy renders every frame, its best case (its window
  rendering depends on earlier frames having been rendered).
* ``mealybug``: mealybug-tearoom-tests with a DMG-blob expected image, screenshot rule.
* ``gbmicrotest``: every ROM in ``gbmicrotest/bin/``; passes iff 0xFF82 == 0x01 after 30 frames
  (its README: 0x01 pass, 0xFF fail; HOWTO-c-sp: check only 0xFF82).
* ``gambatte``: gambatte's hardware tests with a DMG expectation (``gambatte-hwtests/``, see its
  README), read as gambatte's own runner reads them: whole frames are run until more than
  1,053,360 T-cycles (15 x 70,224) have passed, then the last frame is judged. Hex tests
  (``_dmg08_out<HEX>``, ``_dmg08_cgb04c_out<HEX>``): the 8x8 cells at the top left of the screen
  show the digits in gambatte's test font (dark on light, exactly); ``_outaudio0``/``1``: the
  last frame's sound is constant / not; ``_dmg08_cgb_blank``: an all-light screen. PyBoy runs
  16 frames after its boot ROM hands over. Known failures come from
  ``emurust/data/gambatte_failures.tsv`` (shared with ``tests/gambatte.rs``).
* ``gambatte-cgb``: the same ROMs' CGB column (``_cgb04c_out<HEX>``, ``_cgb04c_outaudio0/1``),
  run on a CGB (emurust ``model="cgb"``, PyBoy ``cgb=True``), the screen read in PyBoy's colour
  conversion: white as light, black as dark (:func:`cgb_cells`). Known failures come from
  ``emurust/data/gambatte_cgb_failures.tsv``.

Both emulators are judged by the same functions (:func:`run_rules`, over a :class:`Probe`
of callables), so a difference in verdict is a difference in emulation.

One module per concern, arrows pointing down the list:

* :mod:`~emurust.conformance.cli`: :func:`main` (``emurust conformance``,
  ``python -m emurust.conformance``) and :func:`run_all`;
* :mod:`~emurust.conformance.output`: the tables (:func:`report`, :class:`Row`);
* :mod:`~emurust.conformance.probes`: the two emulators (:func:`emurust_probe`,
  :func:`pyboy_probe`) and :func:`run_one`;
* :mod:`~emurust.conformance.rules`: the verdicts (:func:`run_rules`, :class:`Probe`,
  :class:`Verdict`, the Mooneye, Blargg, screenshot, gbmicrotest and gambatte rules);
* :mod:`~emurust.conformance.known_failures`: :data:`KNOWN_FAILURES`,
  :data:`KNOWN_CGB_FAILURES`;
* :mod:`~emurust.conformance.suites`: the suites, their ROMs and budgets
  (:data:`SUITES`, :class:`RomSpec`, :func:`catalogue`).

Every public name of the modules is importable from ``emurust.conformance`` itself.
"""

from __future__ import annotations

from emurust.conformance.cli import main, run_all, unexpected_failures
from emurust.conformance.known_failures import (
    KNOWN_CGB_FAILURES,
    KNOWN_FAILURES,
    gambatte_cgb_known_failures,
    gambatte_known_failures,
)
from emurust.conformance.output import Row, report
from emurust.conformance.probes import (
    PYBOY_BOOT_FRAMES_MAX,
    emurust_probe,
    pyboy_available,
    pyboy_probe,
    run_one,
)
from emurust.conformance.rules import (
    Probe,
    Verdict,
    blargg_verdict,
    cgb_cells,
    gambatte_cells,
    gambatte_cgb_expectation,
    gambatte_expectation,
    gambatte_verdict,
    mooneye_verdict,
    reference_shades,
    run_rules,
)
from emurust.conformance.suites import (
    ACID2,
    ACID2_FRAMES,
    BLARGG_EXTRA_ROMS,
    BLARGG_POLL,
    BLARGG_ROMS,
    DMG_CHECKSUM_INTERRUPT_TIME,
    FRAME_CYCLES,
    GAMBATTE_DIR,
    GAMBATTE_FONT,
    GAMBATTE_FRAMES,
    GAMBATTE_SOUND_RATE,
    GBMICROTEST_DIR,
    GBMICROTEST_FRAMES,
    MEALYBUG_DIR,
    MEALYBUG_EXPECTED,
    MEALYBUG_FRAMES,
    MOONEYE_BUDGET,
    MOONEYE_DIRS,
    MOONEYE_FAIL,
    MOONEYE_FIB,
    SAMESUITE_ROMS,
    SUITES,
    RomSpec,
    catalogue,
    is_dmg_mooneye_rom,
)

__all__ = [
    "ACID2",
    "ACID2_FRAMES",
    "BLARGG_EXTRA_ROMS",
    "BLARGG_POLL",
    "BLARGG_ROMS",
    "DMG_CHECKSUM_INTERRUPT_TIME",
    "FRAME_CYCLES",
    "GAMBATTE_DIR",
    "GAMBATTE_FONT",
    "GAMBATTE_FRAMES",
    "GAMBATTE_SOUND_RATE",
    "GBMICROTEST_DIR",
    "GBMICROTEST_FRAMES",
    "KNOWN_CGB_FAILURES",
    "KNOWN_FAILURES",
    "MEALYBUG_DIR",
    "MEALYBUG_EXPECTED",
    "MEALYBUG_FRAMES",
    "MOONEYE_BUDGET",
    "MOONEYE_DIRS",
    "MOONEYE_FAIL",
    "MOONEYE_FIB",
    "PYBOY_BOOT_FRAMES_MAX",
    "SAMESUITE_ROMS",
    "SUITES",
    "Probe",
    "RomSpec",
    "Row",
    "Verdict",
    "blargg_verdict",
    "catalogue",
    "cgb_cells",
    "emurust_probe",
    "gambatte_cells",
    "gambatte_cgb_expectation",
    "gambatte_cgb_known_failures",
    "gambatte_expectation",
    "gambatte_known_failures",
    "gambatte_verdict",
    "is_dmg_mooneye_rom",
    "main",
    "mooneye_verdict",
    "pyboy_available",
    "pyboy_probe",
    "reference_shades",
    "report",
    "run_all",
    "run_one",
    "run_rules",
    "unexpected_failures",
]
