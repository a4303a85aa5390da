"""The public Python API on generated ROMs (and Blargg's 01-special where available)."""

from __future__ import annotations

import os
import pickle
import threading
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import emurust
from emurust import _core
from emurust.tools.asm.program import COUNTER_ADDR, WRAM_PATTERN, serial_rom

CYCLES_PER_FRAME = 70224
# A frame ends at the first instruction boundary at or after VBlank starts, so one
# frame may be longer or shorter than 70224 T-cycles by up to one instruction.
LONGEST_INSTRUCTION = 24
REGISTER_NAMES = ["a", "f", "b", "c", "d", "e", "h", "l", "sp", "pc"]
P1 = 0xFF00


def run_until_serial(gb: emurust.GameBoy, text: bytes, max_frames: int) -> None:
    for _ in range(max_frames):
        if text in gb.serial_output:
            return
        gb.tick(1, render=False)
    raise AssertionError(f"{text!r} not sent after {max_frames} frames: {gb.serial_output!r}")


# --- package surface ---------------------------------------------------------------


def test_version_matches_pyproject_and_cargo() -> None:
    root = Path(__file__).resolve().parent.parent
    cargo = (root / "Cargo.toml").read_text()
    assert f'version = "{emurust.__version__}"' in cargo
    assert emurust.__version__.count(".") == 2


def test_public_names_exist() -> None:
    for name in emurust.__all__:
        assert hasattr(emurust, name), name
    assert emurust.GameBoy.__doc__
    assert emurust.GameBoy.tick.__doc__
    assert (Path(emurust.__file__).parent / "py.typed").is_file()
    assert (Path(emurust.__file__).parent / "_core.pyi").is_file()


def test_exception_hierarchy() -> None:
    assert issubclass(emurust.EmuRustError, Exception)
    for exc in (
        emurust.InvalidRomError,
        emurust.UnsupportedCartridgeError,
        emurust.InvalidStateError,
        emurust.InvalidArgumentError,
        emurust.InvalidAddressError,
        emurust.InternalError,
    ):
        assert issubclass(exc, emurust.EmuRustError)
        assert exc.__module__ == "emurust"
        assert exc.__doc__
        assert getattr(emurust, exc.__name__) is exc
    assert issubclass(emurust.UnsupportedCartridgeError, emurust.InvalidRomError)
    assert issubclass(emurust.InvalidArgumentError, ValueError)
    assert issubclass(emurust.InvalidAddressError, IndexError)
    assert issubclass(emurust.EmuRustWarning, UserWarning)
    # Exceptions raised from Rust are the very classes the package exports.
    assert _core.InvalidArgumentError is emurust.InvalidArgumentError


def test_exceptions_pickle() -> None:
    err = emurust.InvalidAddressError("address 65536")
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is emurust.InvalidAddressError
    assert again.args == ("address 65536",)


def test_roms_dir_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("EMURUST_ROMS", str(tmp_path))
    assert emurust.roms_dir() == tmp_path
    monkeypatch.delenv("EMURUST_ROMS")
    root = Path(__file__).resolve().parent.parent
    assert emurust.roms_dir() == root.parent / "shared" / "roms"


# --- construction --------------------------------------------------------------------


def test_rom_from_every_source_type(rom: bytes, tmp_path: Path) -> None:
    path = tmp_path / "test.gb"
    path.write_bytes(rom)
    sources: list[emurust.RomSource] = [
        rom,
        bytearray(rom),
        memoryview(rom),
        str(path),
        path,
    ]
    states = []
    for source in sources:
        gb = emurust.GameBoy(source)
        gb.tick(3)
        states.append((gb.registers, gb.memory[0xC000:0xC020], gb.serial_output))
    assert all(s == states[0] for s in states)


def test_cartridge_header(gb: emurust.GameBoy) -> None:
    assert gb.cartridge_title == "EMURUST TEST"
    assert gb.cartridge_type == 0x00
    assert isinstance(gb.cartridge_type_name, str)
    assert gb.cartridge_type_name
    assert "EMURUST TEST" in repr(gb)


def test_clean_rom_has_no_warnings(rom: bytes) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", emurust.EmuRustWarning)
        gb = emurust.GameBoy(rom)
    assert gb.warnings == []


def test_bad_header_checksum_warns_not_fails(rom: bytes) -> None:
    bad = bytearray(rom)
    bad[0x14D] ^= 0xFF
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gb = emurust.GameBoy(bytes(bad))
    ours = [w for w in caught if issubclass(w.category, emurust.EmuRustWarning)]
    assert [str(w.message) for w in ours] == gb.warnings
    # The warning points at the caller, not at emurust's internals.
    assert all(w.filename == __file__ for w in ours)
    gb.tick(2)
    assert gb.frame_count == 2


def test_subclassing_keeps_working(rom: bytes) -> None:
    class MyGameBoy(emurust.GameBoy):
        __slots__ = ()

        def step(self) -> int:
            self.tick(1, render=False)
            return self.frame_count

    gb = MyGameBoy(rom)
    assert isinstance(gb, emurust.GameBoy)
    assert gb.step() == 1


# --- running ---------------------------------------------------------------------------


def test_tick_returns_true_and_counts_frames(gb: emurust.GameBoy) -> None:
    assert gb.frame_count == 0
    assert gb.tick() is True
    assert gb.frame_count == 1
    assert gb.tick(5, render=False) is True
    assert gb.frame_count == 6
    assert gb.tick(0) is True
    assert gb.frame_count == 6
    assert gb.tick(frames=2, render=True) is True
    assert gb.frame_count == 8


def test_cycles_advance_one_frame_at_a_time(gb: emurust.GameBoy) -> None:
    assert gb.cycles >= 0
    gb.tick(2)  # settle past the partial first frame
    previous = gb.cycles
    total_before = previous
    for _ in range(10):
        gb.tick(1, render=False)
        delta = gb.cycles - previous
        assert abs(delta - CYCLES_PER_FRAME) <= LONGEST_INSTRUCTION, delta
        previous = gb.cycles
    # Errors do not accumulate: frame boundaries are fixed points of the LCD timing.
    assert abs((gb.cycles - total_before) - 10 * CYCLES_PER_FRAME) <= LONGEST_INSTRUCTION


def test_cycles_are_a_multiple_of_four(gb: emurust.GameBoy) -> None:
    for _ in range(3):
        gb.tick(1)
        assert gb.cycles % 4 == 0


def test_render_flag_does_not_change_emulation(rom: bytes) -> None:
    a = emurust.GameBoy(rom)
    b = emurust.GameBoy(rom)
    a.tick(20, render=True)
    b.tick(20, render=False)
    assert a.registers == b.registers
    assert a.cycles == b.cycles
    assert a.memory[:] == b.memory[:]


def test_registers(gb: emurust.GameBoy) -> None:
    regs = gb.registers
    assert isinstance(regs, dict)
    assert list(regs) == REGISTER_NAMES
    for name, value in regs.items():
        assert type(value) is int
        limit = 0xFFFF if name in ("sp", "pc") else 0xFF
        assert 0 <= value <= limit
    # Post-boot DMG state, then the program runs from 0x0100.
    assert regs["pc"] == 0x0100
    assert regs["sp"] == 0xFFFE
    assert regs["a"] == 0x01
    gb.tick(3)
    regs = gb.registers
    assert regs["sp"] == 0xFFFE  # the program sets SP and never calls
    assert regs["pc"] >= 0x0150
    assert regs["h"] << 8 | regs["l"] == COUNTER_ADDR
    # The dict is a snapshot: changing it changes nothing.
    regs["pc"] = 0
    assert gb.registers["pc"] != 0


def test_program_effects_visible(gb: emurust.GameBoy) -> None:
    gb.tick(3)
    for addr, value in WRAM_PATTERN.items():
        assert gb.memory[addr] == value
    counter = gb.memory[COUNTER_ADDR]
    gb.tick(1)
    assert gb.memory[COUNTER_ADDR] != counter  # the main loop keeps counting


def test_serial_output(gb: emurust.GameBoy) -> None:
    assert gb.serial_output == b""
    run_until_serial(gb, b"OK", 10)
    assert gb.serial_output == b"OK"
    assert isinstance(gb.serial_output, bytes)
    gb.tick(5)
    assert gb.serial_output == b"OK"  # nothing more is sent


def test_long_serial_message() -> None:
    message = bytes(range(32, 127))
    gb = emurust.GameBoy(serial_rom(message))
    run_until_serial(gb, message, 120)
    assert gb.serial_output == message


# --- memory -----------------------------------------------------------------------------


def test_memory_len_and_repr(gb: emurust.GameBoy) -> None:
    assert len(gb.memory) == 0x10000
    assert "Memory" in repr(gb.memory)
    assert isinstance(gb.memory, emurust.Memory)


def test_memory_reads_rom(gb: emurust.GameBoy, rom: bytes) -> None:
    assert gb.memory[0x0100:0x0104] == rom[0x100:0x104]
    assert gb.memory[0x0134:0x0140] == b"EMURUST TEST"
    assert gb.memory[0x0000:0x8000] == rom
    assert gb.memory[0x0147] == 0


def test_memory_wram_round_trip_and_echo(gb: emurust.GameBoy) -> None:
    mem = gb.memory
    mem[0xC123] = 0xAB
    assert mem[0xC123] == 0xAB
    assert mem[0xE123] == 0xAB  # echo RAM mirrors 0xC000-0xDDFF
    mem[0xE456] = 0x5C  # writes to echo RAM land in work RAM
    assert mem[0xC456] == 0x5C
    mem[0xDFFF] = 0x11
    assert mem[0xDFFF] == 0x11
    mem[0xFF80] = 0x77  # HRAM
    assert mem[0xFF80] == 0x77


def test_memory_writes_survive_ticks(gb: emurust.GameBoy) -> None:
    gb.tick(2)
    gb.memory[0xD000] = 0x3C
    gb.tick(2)
    assert gb.memory[0xD000] == 0x3C


def test_memory_write_to_rom_does_not_change_rom(gb: emurust.GameBoy, rom: bytes) -> None:
    gb.memory[0x0200] = 0x12  # ROM-only cartridge: ignored
    assert gb.memory[0x0200] == rom[0x200]


def test_memory_reads_have_no_side_effects(rom: bytes) -> None:
    reader = emurust.GameBoy(rom)
    plain = emurust.GameBoy(rom)
    for _ in range(5):
        cycles = reader.cycles
        everything = reader.memory[:]
        assert reader.memory[:] == everything  # IO registers read the same twice
        assert [reader.memory[a] for a in range(0xFF00, 0x10000)] == list(everything[0xFF00:])
        assert reader.cycles == cycles  # no time passes
        reader.tick(1)
        plain.tick(1)
    assert reader.save_state() == plain.save_state()


def test_memory_slices(gb: emurust.GameBoy) -> None:
    mem = gb.memory
    mem[0xC000:0xC008] = bytes(range(1, 9))
    assert mem[0xC000:0xC008] == bytes(range(1, 9))
    assert mem[0xC000:0xC008:2] == bytes([1, 3, 5, 7])
    assert mem[0xC007:0xBFFF:-1] == bytes(range(8, 0, -1))
    assert mem[0xC004:0xC000] == b""
    assert len(mem[:]) == 0x10000
    assert len(mem[0xFFF0:]) == 16
    assert mem[0xFFFE:0x20000] == mem[0xFFFE:]  # clamped like bytes slices
    assert mem[-2:] == mem[0xFFFE:0x10000]  # slices follow bytes semantics
    assert mem[0xFFFF:0x10000] == bytes([mem[0xFFFF]])
    # Slice assignment: bytes-like or iterable of ints, same length.
    mem[0xC010:0xC014] = [9, 8, 7, 6]
    assert mem[0xC010:0xC014] == bytes([9, 8, 7, 6])
    mem[0xC010:0xC014] = bytearray(b"wxyz")
    assert mem[0xC010:0xC014] == b"wxyz"
    mem[0xC010:0xC014] = memoryview(b"abcd")
    assert mem[0xC010:0xC014] == b"abcd"
    mem[0xC020:0xC028] = bytes(8)
    mem[0xC020:0xC028:2] = (x for x in (1, 2, 3, 4))
    assert mem[0xC020:0xC028] == bytes([1, 0, 2, 0, 3, 0, 4, 0])
    mem[0xC027:0xC01F:-2] = [5, 6, 7, 8]
    assert mem[0xC020:0xC028] == bytes([1, 8, 2, 7, 3, 6, 4, 5])
    mem[0xC030:0xC030] = b""  # empty slice, empty data: nothing happens


def test_memory_iterates(gb: emurust.GameBoy) -> None:
    mem = gb.memory
    assert bytes(list(mem)) == mem[:]


def test_memory_keeps_gameboy_alive(rom: bytes) -> None:
    mem = emurust.GameBoy(rom).memory
    mem[0xC000] = 1
    assert mem[0xC000] == 1


def test_memory_numpy_integers(gb: emurust.GameBoy) -> None:
    np = pytest.importorskip("numpy")
    gb.memory[np.uint16(0xC000)] = np.uint8(200)
    assert gb.memory[np.int64(0xC000)] == 200
    gb.tick(np.int32(2))
    assert gb.frame_count == 2


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(
    start=st.none() | st.integers(-0x12000, 0x12000),
    stop=st.none() | st.integers(-0x12000, 0x12000),
    step=st.none() | st.integers(-300, 300).filter(lambda s: s != 0),
)
def test_memory_slices_match_bytes_slices(
    start: int | None, stop: int | None, step: int | None
) -> None:
    gb = emurust.GameBoy(serial_rom())
    snapshot = gb.memory[:]
    assert gb.memory[start:stop:step] == snapshot[start:stop:step]


# --- joypad ---------------------------------------------------------------------------


def joypad(gb: emurust.GameBoy, group: str) -> int:
    """The low nibble of P1 with the direction (``"dpad"``) or action keys selected."""
    gb.memory[P1] = 0x20 if group == "dpad" else 0x10
    return gb.memory[P1] & 0x0F


# Pan Docs: P1 bit 4 low selects the d-pad (bits: right, left, up, down), bit 5 low
# selects the buttons (bits: A, B, select, start); a pressed key reads 0.
KEY_BITS = {
    "right": ("dpad", 0),
    "left": ("dpad", 1),
    "up": ("dpad", 2),
    "down": ("dpad", 3),
    "a": ("buttons", 0),
    "b": ("buttons", 1),
    "select": ("buttons", 2),
    "start": ("buttons", 3),
}


def test_joypad_idle(gb: emurust.GameBoy) -> None:
    assert joypad(gb, "dpad") == 0x0F
    assert joypad(gb, "buttons") == 0x0F
    gb.memory[P1] = 0x30
    assert gb.memory[P1] & 0x0F == 0x0F
    assert gb.memory[P1] & 0xC0 == 0xC0  # unused bits read 1


@pytest.mark.parametrize("name", sorted(KEY_BITS))
def test_button_press_release_visible_in_p1(gb: emurust.GameBoy, name: str) -> None:
    group, bit = KEY_BITS[name]
    other = "buttons" if group == "dpad" else "dpad"
    gb.button_press(name.upper() if bit % 2 else name)  # names are case-insensitive
    assert joypad(gb, group) == 0x0F & ~(1 << bit)
    assert joypad(gb, other) == 0x0F
    gb.tick(2)
    assert joypad(gb, group) == 0x0F & ~(1 << bit)  # held until released
    gb.button_release(name)
    assert joypad(gb, group) == 0x0F


def test_several_buttons(gb: emurust.GameBoy) -> None:
    gb.button_press("a")
    gb.button_press("Start")
    gb.button_press("left")
    assert joypad(gb, "buttons") == 0b0110
    assert joypad(gb, "dpad") == 0b1101
    gb.button_release("a")
    assert joypad(gb, "buttons") == 0b0111


@pytest.mark.parametrize("frames", [1, 2, 5])
def test_button_releases_after_exactly_n_frames(gb: emurust.GameBoy, frames: int) -> None:
    gb.tick(1)
    gb.button("a", frames)
    assert joypad(gb, "buttons") == 0b1110
    for _ in range(frames - 1):
        gb.tick(1)
        assert joypad(gb, "buttons") == 0b1110
    gb.tick(1)
    assert joypad(gb, "buttons") == 0b1111


def test_button_default_is_one_frame(gb: emurust.GameBoy) -> None:
    gb.button("down")
    assert joypad(gb, "dpad") == 0b0111
    gb.tick()
    assert joypad(gb, "dpad") == 0b1111


def test_button_releases_within_a_multi_frame_tick(gb: emurust.GameBoy) -> None:
    gb.button("b", frames=3)
    gb.tick(10)
    assert joypad(gb, "buttons") == 0x0F


# --- save states --------------------------------------------------------------------------


def snapshot(gb: emurust.GameBoy) -> tuple[object, ...]:
    return (
        gb.registers,
        gb.memory[:],
        gb.serial_output,
        gb.frame_count,
        gb.cycles,
    )


def test_save_state_is_bytes_and_deterministic(gb: emurust.GameBoy) -> None:
    gb.tick(3)
    state = gb.save_state()
    assert isinstance(state, bytes)
    assert len(state) > 0x2000  # at least work RAM
    assert gb.save_state() == state  # saving changes nothing


def test_restored_state_continues_identically(rom: bytes) -> None:
    original = emurust.GameBoy(rom)
    original.tick(1)  # mid-program: "O" may be out, "K" not yet
    original.button_press("right")
    original.memory[0xC200] = 0x99
    state = original.save_state()
    expected_at_save = snapshot(original)
    original.tick(30)
    original.button_release("right")
    original.tick(5)
    expected = snapshot(original)

    restored = emurust.GameBoy(rom)
    restored.tick(7)  # a different place, to be overwritten
    restored.load_state(state)
    assert snapshot(restored) == expected_at_save
    restored.tick(30)
    restored.button_release("right")
    restored.tick(5)
    assert snapshot(restored) == expected

    # Loading into the instance that saved it rewinds it.
    original.load_state(bytearray(state))
    assert snapshot(original) == expected_at_save


def test_state_keeps_pending_button_release(rom: bytes) -> None:
    gb = emurust.GameBoy(rom)
    gb.button("a", 3)
    gb.tick(1)
    state = gb.save_state()
    other = emurust.GameBoy(rom)
    other.load_state(state)
    assert joypad(other, "buttons") == 0b1110
    other.tick(2)
    assert joypad(other, "buttons") == 0b1111


def test_state_from_another_rom_is_rejected(rom: bytes) -> None:
    other = emurust.GameBoy(serial_rom(b"NO", title="OTHER GAME"))
    other.tick(2)
    state = other.save_state()
    gb = emurust.GameBoy(rom)
    gb.tick(1)
    before = gb.save_state()
    with pytest.raises(emurust.InvalidStateError):
        gb.load_state(state)
    assert gb.save_state() == before  # a rejected state changes nothing


def test_failed_load_leaves_machine_unchanged(gb: emurust.GameBoy) -> None:
    gb.tick(4)
    state = gb.save_state()
    before = snapshot(gb)
    for bad in (b"", state[:-1], state[: len(state) // 2], b"\x00" * len(state)):
        with pytest.raises(emurust.InvalidStateError):
            gb.load_state(bad)
        assert snapshot(gb) == before


def test_states_of_independent_machines_match(rom: bytes) -> None:
    a = emurust.GameBoy(rom)
    b = emurust.GameBoy(rom)
    a.tick(12)
    b.tick(12)
    assert a.save_state() == b.save_state()


# --- threads --------------------------------------------------------------------------------


def test_tick_in_threads(rom: bytes) -> None:
    """Each thread drives its own GameBoy; the interpreter lock is released in tick."""
    machines = [emurust.GameBoy(rom) for _ in range(4)]
    threads = [threading.Thread(target=gb.tick, args=(30, False)) for gb in machines]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [gb.frame_count for gb in machines] == [30] * 4
    assert len({gb.save_state() for gb in machines}) == 1


def test_sharing_one_gameboy_between_threads_is_safe(rom: bytes) -> None:
    gb = emurust.GameBoy(rom)
    errors: list[BaseException] = []

    def work() -> None:
        for _ in range(20):
            try:
                gb.tick(1)
                _ = gb.memory[0xC000]
            except RuntimeError as e:
                # "already borrowed": the other thread is inside tick; any other
                # RuntimeError is a failure.
                if "borrowed" not in str(e):
                    errors.append(e)
            except BaseException as e:
                errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert 1 <= gb.frame_count <= 40


# --- real ROM -----------------------------------------------------------------------------------


def test_blargg_01_special_passes(blargg_special: Path) -> None:
    gb = emurust.GameBoy(blargg_special)
    assert gb.cartridge_type in (0x00, 0x01)
    for _ in range(100):
        gb.tick(60, render=False)
        if b"Passed" in gb.serial_output or b"Failed" in gb.serial_output:
            break
    text = gb.serial_output.decode("ascii", "replace")
    assert "01-special" in text
    assert "Passed" in text, text


def test_blargg_state_round_trip(blargg_special: Path) -> None:
    gb = emurust.GameBoy(os.fspath(blargg_special))
    gb.tick(30, render=False)
    state = gb.save_state()
    gb.tick(60, render=False)
    expected = snapshot(gb)
    other = emurust.GameBoy(blargg_special.read_bytes())
    other.load_state(state)
    other.tick(60, render=False)
    assert snapshot(other) == expected
