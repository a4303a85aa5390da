"""emurust re-run as PyBoy 2.8.1 behaves: the replays behind the terminal entries' proofs
(:mod:`emurust.verify.allowlist.proofs`). Each runs a scratch machine from the last matching
point to a target clock by single steps, editing its PPU, timer or stack where PyBoy's
timing differs (through the native test aids of the cargo feature ``testing``:
``GameBoy._test_shift_ppu``, ``_test_shift_timer``, ``_test_set_wy_latch``)."""

from __future__ import annotations

from dataclasses import dataclass

from emurust._gameboy import GameBoy

#: Whether this build has the native test aids that the replay proofs use (see
#: :func:`_require_test_aids`).
HAS_TEST_AIDS = hasattr(GameBoy, "_test_shift_ppu")


def _plain_line(gb: GameBoy) -> bool:
    """Whether mode 3 of the current line has its minimum length: SCX a multiple of 8, no
    window on the line and no object on the line (enabled or not)."""
    m = gb.memory
    ly, lcdc = m[0xFF44], m[0xFF40]
    if m[0xFF43] & 7 or (lcdc & 0x21 == 0x21 and m[0xFF4A] <= ly and m[0xFF4B] <= 166):
        return False
    height = 16 if lcdc & 0x04 else 8
    oam = m[0xFE00:0xFEA0]
    return not any(0 <= ly - (oam[4 * n] - 16) < height for n in range(40))


def _require_test_aids() -> None:
    """The replay proofs edit a machine's PPU and timer through the native test aids
    (``GameBoy._test_shift_ppu``, ``_test_shift_timer``, ``_test_set_wy_latch``), which only
    a build with the cargo feature ``testing`` has: scripts/setup_env.sh's development build,
    not the release wheel. Without them a proof could not tell a PyBoy deviation from a
    divergence, so it refuses to run instead of reporting one."""
    if not HAS_TEST_AIDS:
        raise RuntimeError(
            "this lockstep proof replays emurust with its PPU or timer shifted, through the "
            "native test aids of the cargo feature `testing`, which this build of emurust (the "
            "release wheel) leaves out: run it from a development build (scripts/setup_env.sh)"
        )


class PyBoyLine153:
    """PyBoy 2.8.1's answers to the STAT and LY reads a re-run makes where PyBoy is still
    in line 153: after emurust's LY wrapped to 0 in line 153 (LY 0 in STAT mode 1) and
    before its mode 2 of line 0 (the mode 0 between them included). PyBoy holds LY = 153
    and mode 1 there until its line 0 starts with mode 2 (pyboy/core/lcd.py, LCD.tick;
    pyboy-line-153-ly-terminal), so after a step that loaded LY into A (ldh a,($44),
    ld a,($ff00+c) with C = $44, ld a,($ff44)) A is set to 153, and after one that loaded
    STAT, to the value read with mode 1 and the LY=LYC flag of LY = 153 (the other bits as
    read). The replays call :meth:`before` and :meth:`after` around each final step;
    ``rewritten`` counts the reads answered so."""

    def __init__(self) -> None:
        self.rewritten = 0
        self._window = False
        self._read: tuple[int, int] | None = None  # (register read, PC after the read)

    def before(self, gb: GameBoy) -> None:
        """Notes whether the instruction at PC loads STAT or LY into A."""
        regs = gb.registers
        pc = regs["pc"]
        code = gb.memory[pc : pc + 3]
        if code[0] == 0xF0:
            addr, length = 0xFF00 | code[1], 2
        elif code[0] == 0xF2:
            addr, length = 0xFF00 | regs["c"], 1
        elif code[0] == 0xFA:
            addr, length = code[1] | code[2] << 8, 3
        else:
            addr, length = 0, 0
        self._read = (addr, (pc + length) & 0xFFFF) if addr in (0xFF41, 0xFF44) else None

    def after(self, gb: GameBoy) -> None:
        """Rewrites A if the step just made read STAT or LY in PyBoy's line 153."""
        stat, ly = gb.memory[0xFF41], gb.memory[0xFF44]
        mode = stat & 3
        on = bool(gb.memory[0xFF40] & 0x80)
        self._window = on and ly == 0 and (mode == 1 or (mode == 0 and self._window))
        read, self._read = self._read, None
        if read is None or not self._window or gb.registers["pc"] != read[1]:
            return
        a = gb.registers["a"]
        lyc_153 = 0x04 if gb.memory[0xFF45] == 153 else 0
        want = 153 if read[0] == 0xFF44 else (a & 0xF8) | 0x01 | lyc_153
        if want != a:
            gb._set_register("a", want)
            self.rewritten += 1


@dataclass
class Replay:
    """What :func:`late_line_replay` did."""

    #: The machine at the target clock.
    gb: GameBoy
    #: Clocks of the steps whose line event was delayed.
    delayed: list[int]
    #: Clocks of the steps whose outcome (clock, registers) the delay changed.
    changed: list[int]
    #: Steps before which PyBoy's window rule changed the WY latch.
    forced: int
    #: VBlank line starts delayed by ``vblank_lag`` more.
    vblank_delayed: int


def late_line_replay(
    gb: GameBoy,
    target: int,
    *,
    pyboy_window: bool = False,
    vblank_lag: int = 0,
    line153: PyBoyLine153 | None = None,
) -> Replay | None:
    """Runs ``gb`` to ``target`` as PyBoy's PPU behaves after an LCD enable: a step
    (instruction, interrupt dispatch or halted step) during which a line starts (LY
    changes, or STAT enters mode 2, or mode 1 from mode 0), or mode 0 starts on a line
    whose mode 3 has its minimum length (:func:`_plain_line`), is re-run with the PPU's
    line timing 4 T-cycles later (``GameBoy._test_shift_ppu``); the timing is put back as
    soon as that event has happened (in that step or a later one). With ``pyboy_window``
    the window's WY latch is also set before every step to PyBoy's rule, LCDC.5 set and
    LY >= WY (``GameBoy._test_set_wy_latch``). Returns the machine, the clocks of the
    steps whose event was delayed and of those whose outcome (clock, registers) the delay
    changed, the number of steps before which PyBoy's window rule changed the latch and the
    number of VBlank line starts delayed by more (:class:`Replay`); None if the machine
    has no instruction boundary at ``target`` or its state cannot be edited.
    ``vblank_lag`` delays the starts of lines 144-153 (LY changes to 144..153) that many
    T-cycles more, as PyBoy's LY advances with its mode-1 transition there. With
    ``line153`` the STAT and LY reads made where PyBoy is still in line 153 get PyBoy's
    answers (:class:`PyBoyLine153`)."""
    _require_test_aids()
    delayed: list[int] = []
    changed: list[int] = []
    forced = 0
    vblank_delayed = 0
    late = 0  # the PPU runs this many T-cycles late until the delayed event has happened
    while gb.cycles < target:
        if line153 is not None:
            line153.after(gb)
            line153.before(gb)
        ly, mode = gb.memory[0xFF44], gb.memory[0xFF41] & 3
        on = gb.memory[0xFF40] & 0x80
        if pyboy_window:
            want = bool(on and gb.memory[0xFF40] & 0x20 and ly >= gb.memory[0xFF4A])
            had = gb._test_set_wy_latch(want)
            if had is None:
                return None
            forced += had != want
        before = gb.save_state()
        start = gb.cycles
        gb._step_to_cycle(start + 1)
        if gb.cycles == start:
            return None
        if not _line_event(gb, on, ly, mode):
            continue
        if not late:
            ly1 = gb.memory[0xFF44]
            late = 4 + (vblank_lag if ly1 != ly and 144 <= ly1 <= 153 else 0)
            outcome = (gb.cycles, dict(gb.registers))
            gb.load_state(before)
            if not gb._test_shift_ppu(late, start):
                return None
            gb._step_to_cycle(start + 1)
            delayed.append(start)
            vblank_delayed += late > 4
            if (gb.cycles, dict(gb.registers)) != outcome:
                changed.append(start)
            if not _line_event(gb, on, ly, mode):
                continue
        if not gb._test_shift_ppu(-late, gb.cycles):
            return None
        late = 0
    if line153 is not None:
        line153.after(gb)
    if gb.cycles != target:
        return None
    return Replay(gb, delayed, changed, forced, vblank_delayed)


def _line_event(gb: GameBoy, on: int, ly: int, mode: int) -> bool:
    """Whether, since LY ``ly`` and STAT mode ``mode`` were read with the LCD ``on``, a
    line has started or mode 0 has started on a plain line (the LCD on throughout)."""
    ly1, mode1 = gb.memory[0xFF44], gb.memory[0xFF41] & 3
    if not (on and gb.memory[0xFF40] & 0x80):
        return False
    if ly1 != ly or (mode1 == 2 and mode != 2) or (mode1 == 1 and mode == 0):
        return True
    return mode1 == 0 and mode == 3 and _plain_line(gb)


# T-cycles by which PyBoy 2.8.1 starts line 144 (and the VBlank interrupt) too early in the
# first frame after an LCD enable (pyboy-lcd-enable-vblank-early-terminal).
FIRST_VBLANK_EARLY = 4


def first_vblank_early_replay(gb: GameBoy, target: int) -> tuple[GameBoy, int] | None:
    """Runs ``gb`` to ``target`` with line 144 of the first frame after an LCD enable (an
    enable that happens during the run) starting :data:`FIRST_VBLANK_EARLY` T-cycles
    early, as PyBoy's does: when a step (instruction, interrupt dispatch or halted step)
    shows LY change from 143 to 144 in that frame, the step before it is re-run with the
    PPU's line timing moved that much earlier (``GameBoy._test_shift_ppu``), and the timing
    stays moved for the rest of that frame's VBlank (lines 144-153, put back when line 0 of
    the next frame starts). Returns the machine at ``target`` and the clock of the step
    from which the timing was moved; None if no such line 144 start comes before
    ``target``, if the LCD goes off after it, if the machine has no instruction boundary at
    ``target`` or its state cannot be edited."""
    _require_test_aids()
    fresh = False  # the LCD was switched on during the run; line 144 has not started since
    moved: int | None = None
    in_vblank = False  # the moved line 144 has started (STAT mode 1)
    back = False  # the timing was put back when the next frame started
    prev: tuple[bytes, int] | None = None
    while gb.cycles < target:
        lcd_on, ly = gb.memory[0xFF40] & 0x80, gb.memory[0xFF44]
        before, start = gb.save_state(), gb.cycles
        gb._step_to_cycle(start + 1)
        if gb.cycles == start:
            return None
        now_on, ly1 = gb.memory[0xFF40] & 0x80, gb.memory[0xFF44]
        if back:
            pass
        elif moved is not None:
            if not now_on:
                return None
            if gb.memory[0xFF41] & 3 == 1:
                in_vblank = True
            elif in_vblank:
                # Line 0 of the next frame has started: PyBoy's early VBlank is over.
                if not gb._test_shift_ppu(FIRST_VBLANK_EARLY, gb.cycles):
                    return None
                back = True
        elif now_on and not lcd_on:
            fresh = True
        elif not now_on:
            fresh = False
        elif fresh and ly == 143 and ly1 == 144:
            if prev is None:
                return None
            state, at = prev
            gb.load_state(state)
            if not gb._test_shift_ppu(-FIRST_VBLANK_EARLY, at):
                return None
            moved, fresh = at, False
        prev = (before, start)
    if moved is None or gb.cycles != target:
        return None
    return gb, moved


_INTERRUPT_VECTORS = frozenset({0x40, 0x48, 0x50, 0x58, 0x60})


def ei_halt_replay(gb: GameBoy, target: int) -> tuple[GameBoy, int] | None:
    """Runs ``gb`` to ``target`` as PyBoy 2.8.1 runs a HALT that directly follows EI while
    no enabled interrupt is pending (IE & IF = 0 as the HALT executes): the interrupt that
    ends the HALT is dispatched, but with the HALT's own address as the return address
    (PyBoy's CPU.check_interrupts does not step PC past a HALT run in EI's delay slot), so
    the handler's RETI comes back to the HALT, which halts again. Each such dispatch is
    re-written here: the pushed return address (the byte after the HALT) is set to the
    HALT's address. Returns the machine at ``target`` and the number of dispatches
    re-written; None if there is none, or the machine has no instruction boundary at
    ``target``."""
    rewritten = 0
    halt: tuple[int, int] | None = None  # (HALT's address, SP) while waiting after EI; HALT
    after_ei = False
    while gb.cycles < target:
        regs = gb.registers
        pc, sp = regs["pc"], regs["sp"]
        opcode = gb.memory[pc]
        pending = gb.memory[0xFF0F] & gb.memory[0xFFFF] & 0x1F
        start = gb.cycles
        gb._step_to_cycle(start + 1)
        if gb.cycles == start:
            return None
        now = gb.registers
        if halt is not None:
            at, halt_sp = halt
            if now["pc"] in _INTERRUPT_VECTORS and now["sp"] == (halt_sp - 2) & 0xFFFF:
                ret = gb.memory[now["sp"]] | gb.memory[(now["sp"] + 1) & 0xFFFF] << 8
                if ret == (at + 1) & 0xFFFF:
                    gb.memory[now["sp"]] = at & 0xFF
                    gb.memory[(now["sp"] + 1) & 0xFFFF] = at >> 8
                    rewritten += 1
                halt = None
            elif now["pc"] != (at + 1) & 0xFFFF or now["sp"] != halt_sp:
                halt = None
        elif after_ei and opcode == 0x76 and not pending and now["pc"] == (pc + 1) & 0xFFFF:
            halt = (pc, sp)
        after_ei = opcode == 0xFB and now["pc"] == (pc + 1) & 0xFFFF
    if not rewritten or gb.cycles != target:
        return None
    return gb, rewritten


#: How many T-cycles later than a DMG PyBoy 2.8.1's program sees the PPU and DIV, in a
#: frame that is not the first after an LCD enable (pyboy-reads-8-cycles-late-terminal).
PYBOY_READ_LAG = 8


def double_speed(gb: GameBoy) -> bool:
    """Whether ``gb`` is a CGB running in double speed (KEY1 bit 7; a DMG, or a CGB in DMG
    compatibility mode, always runs in single speed)."""
    return gb.cgb_mode and bool(gb.memory[0xFF4D] & 0x80)


def ppu_dots(gb: GameBoy, cycles: int) -> int:
    """``cycles`` CPU T-cycles as PPU dots: the same in single speed, half in double speed,
    where the CPU's clock (4 T-cycles an M-cycle in both speeds) runs at twice the PPU's
    dot rate. The PPU test aid (``GameBoy._test_shift_ppu``) moves the PPU's line timing in
    dots."""
    return cycles >> 1 if double_speed(gb) else cycles


def read_lag_replay(
    gb: GameBoy,
    target: int,
    read_lag: int,
    vblank_lag: int = 0,
    line153: PyBoyLine153 | None = None,
) -> tuple[GameBoy, int] | None:
    """``gb`` (a scratch machine at the last matching point, LCD on) with its PPU's line
    timing and its timer's system counter moved ``read_lag`` T-cycles late
    (``GameBoy._test_shift_ppu``, ``GameBoy._test_shift_timer``), run by single steps to
    ``target``, with the starts of lines 144-153 ``vblank_lag`` T-cycles later still
    (:func:`_read_lag_vblank_replay`); with the number of line starts so delayed. In
    double speed the PPU is moved ``read_lag`` CPU T-cycles, half as many dots
    (:func:`ppu_dots`). With ``line153`` the STAT and LY reads made where PyBoy is still in
    line 153 get PyBoy's answers (:class:`PyBoyLine153`). None when the LCD is off at any
    step (a switch-on restarts the PPU: the first frame after it is
    pyboy-lcd-enable-4-cycles-terminal's), the state cannot be edited or the machine has no
    instruction boundary at ``target``."""
    _require_test_aids()
    if not gb.memory[0xFF40] & 0x80:
        return None
    lag = ppu_dots(gb, read_lag)
    if not gb._test_shift_ppu(lag, gb.cycles) or not gb._test_shift_timer(read_lag):
        return None
    if vblank_lag:
        delayed = _read_lag_vblank_replay(gb, target, vblank_lag, line153)
        return None if delayed is None else (gb, delayed)
    while gb.cycles < target:
        start = gb.cycles
        if line153 is not None:
            line153.before(gb)
        gb._step_to_cycle(start + 1)
        if gb.cycles == start or not gb.memory[0xFF40] & 0x80:
            return None
        if line153 is not None:
            line153.after(gb)
    return (gb, 0) if gb.cycles == target else None


def _read_lag_vblank_replay(
    gb: GameBoy, target: int, vblank_lag: int, line153: PyBoyLine153 | None = None
) -> int | None:
    """Runs ``gb`` to ``target`` by single steps, re-running each step in which LY changes
    to 144..153 with the PPU's line timing ``vblank_lag`` T-cycles later (put back once LY
    has changed), as PyBoy advances LY with its mode-1 transition there
    (pyboy-vblank-ly-late-terminal). Returns how many line starts were delayed; None if
    the LCD is off after a step, ``gb`` has no instruction boundary at ``target`` or its
    state cannot be edited. ``line153``: as in :func:`read_lag_replay`."""
    delayed = 0
    late = False
    while gb.cycles < target:
        if line153 is not None:
            line153.after(gb)
            line153.before(gb)
        ly = gb.memory[0xFF44]
        before = gb.save_state()
        start = gb.cycles
        gb._step_to_cycle(start + 1)
        if gb.cycles == start or not gb.memory[0xFF40] & 0x80:
            return None
        ly1 = gb.memory[0xFF44]
        if not late and ly1 != ly and 144 <= ly1 <= 153:
            gb.load_state(before)
            if not gb._test_shift_ppu(vblank_lag, start):
                return None
            late = True
            delayed += 1
            gb._step_to_cycle(start + 1)
            ly1 = gb.memory[0xFF44]
        if late and ly1 != ly:
            if not gb._test_shift_ppu(-vblank_lag, gb.cycles):
                return None
            late = False
    if line153 is not None:
        line153.after(gb)
    return delayed if gb.cycles == target else None


def read_lag_irq_replay(
    gb: GameBoy, probe: GameBoy, target: int, read_lag: int, irq_lead: int
) -> tuple[GameBoy, int] | None:
    """:func:`read_lag_replay` (no late VBlank lines) with the PPU's interrupt requests
    served as if made ``irq_lead`` T-cycles before the late PPU makes them: before each
    step the scratch machine ``probe`` is loaded with ``gb``'s state, its PPU moved
    ``irq_lead`` T-cycles back (``read_lag - irq_lead`` late), and both are stepped; when
    the probe's step dispatched the VBlank or STAT interrupt (its PC is now 0x0040 or
    0x0048) and ``gb``'s did not, ``gb`` takes the probe's state with its PPU moved
    ``irq_lead`` T-cycles late again (a dispatch reads no I/O register: only the request's
    time differs). Returns the machine and the number of dispatches so moved; None when
    the two steps end at different clocks otherwise, or as :func:`read_lag_replay`."""
    _require_test_aids()
    if not gb.memory[0xFF40] & 0x80:
        return None
    if not gb._test_shift_ppu(read_lag, gb.cycles) or not gb._test_shift_timer(read_lag):
        return None
    moved = 0
    while gb.cycles < target:
        start = gb.cycles
        probe.load_state(gb.save_state())
        if not probe._test_shift_ppu(-irq_lead, start):
            return None
        probe._step_to_cycle(start + 1)
        gb._step_to_cycle(start + 1)
        if gb.cycles == start or not gb.memory[0xFF40] & 0x80:
            return None
        pc = probe.registers["pc"]
        if pc in (0x40, 0x48) and gb.registers["pc"] != pc:
            gb.load_state(probe.save_state())
            if not gb._test_shift_ppu(irq_lead, gb.cycles):
                return None
            moved += 1
        elif probe.cycles != gb.cycles:
            return None
    return (gb, moved) if gb.cycles == target else None


def read_lag_lcd_off_replay(
    gb: GameBoy, target: int, read_lag: int, vblank_lag: int = 0
) -> tuple[GameBoy, int] | None:
    """``gb`` (a scratch machine at the last matching point) with its timer's system
    counter moved ``read_lag`` T-cycles late (``GameBoy._test_shift_timer``), and its PPU's
    line timing too while the LCD is on (``GameBoy._test_shift_ppu``), run by single steps
    to ``target``, each step in which LY changes to 144..153 re-run with the line timing
    ``vblank_lag`` T-cycles later still (as :func:`_read_lag_vblank_replay`); with the
    number of line starts so delayed. None unless the LCD is off at the start or after
    some step, when the LCD is switched on on the way (the first frame after a switch-on
    is pyboy-lcd-enable-4-cycles-terminal's), the state cannot be edited or the machine
    has no instruction boundary at ``target``."""
    _require_test_aids()
    on = bool(gb.memory[0xFF40] & 0x80)
    if on and not gb._test_shift_ppu(read_lag, gb.cycles):
        return None
    if not gb._test_shift_timer(read_lag):
        return None
    was_off = not on
    delayed = 0
    late = False
    while gb.cycles < target:
        ly = gb.memory[0xFF44]
        before = gb.save_state() if vblank_lag and on else None
        start = gb.cycles
        gb._step_to_cycle(start + 1)
        if gb.cycles == start:
            return None
        now_on = bool(gb.memory[0xFF40] & 0x80)
        if now_on and not on:
            return None
        ly1 = gb.memory[0xFF44]
        if before is not None and now_on and not late and ly1 != ly and 144 <= ly1 <= 153:
            gb.load_state(before)
            if not gb._test_shift_ppu(vblank_lag, start):
                return None
            late = True
            delayed += 1
            gb._step_to_cycle(start + 1)
            now_on = bool(gb.memory[0xFF40] & 0x80)
            ly1 = gb.memory[0xFF44]
        if late and now_on and ly1 != ly:
            if not gb._test_shift_ppu(-vblank_lag, gb.cycles):
                return None
            late = False
        if not now_on:
            late = False
        on = now_on
        was_off = was_off or not on
    return (gb, delayed) if gb.cycles == target and was_off else None
