"""The screen arrays (zero-copy, read-only NumPy views), the palette, and dmg-acid2.

Most tests use the generated ROM (``emurust.tools.asm.program.serial_rom``: the LCD stays
on with the post-boot registers) and draw through the bus: with BGP = 0xFF every background
pixel is shade 3 whatever the tile data, with BGP = 0x00 shade 0. dmg-acid2 needs the shared
test ROMs.
"""

from __future__ import annotations

import gc
import threading
import weakref
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

import emurust

HEIGHT, WIDTH = 144, 160
BGP = 0xFF47
DMG_GREYS = ((255, 255, 255), (170, 170, 170), (85, 85, 85), (0, 0, 0))
ACID2_FRAMES = 120


def data_address(array: npt.NDArray[np.uint8]) -> int:
    address: int = array.__array_interface__["data"][0]
    return address


def luma(rgb: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """ITU-R BT.601 luma, rounded (the formula emurust documents for ``screen_gray``)."""
    r, g, b = (rgb[..., i].astype(np.uint32) for i in range(3))
    return ((r * 299 + g * 587 + b * 114 + 500) // 1000).astype(np.uint8)


def fill_screen(gb: emurust.GameBoy, shade: int) -> None:
    """Render one frame in which every background pixel has ``shade`` (0..=3)."""
    gb.memory[BGP] = 0xFF if shade == 3 else 0x00 if shade == 0 else shade * 0x55
    gb.tick(1, render=True)


# --- shape, type, read-only -----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "shape"),
    [
        ("screen", (HEIGHT, WIDTH, 3)),
        ("screen_shades", (HEIGHT, WIDTH)),
        ("screen_gray", (HEIGHT, WIDTH)),
    ],
)
def test_shape_dtype_and_flags(gb: emurust.GameBoy, name: str, shape: tuple[int, ...]) -> None:
    array = getattr(gb, name)
    assert isinstance(array, np.ndarray)
    assert array.shape == shape
    assert array.dtype == np.uint8
    assert array.flags.c_contiguous
    assert not array.flags.owndata  # a view of the emulator's buffer
    assert not array.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        array[0, 0] = 1
    with pytest.raises(ValueError, match="WRITEABLE"):
        array.flags.writeable = True
    with pytest.raises(ValueError, match="WRITEABLE"):
        array.setflags(write=True)
    # Views of the view are read-only too.
    with pytest.raises(ValueError, match="read-only"):
        array[1:3].fill(7)
    with pytest.raises(ValueError, match="WRITEABLE"):
        array.view().flags.writeable = True


def test_power_on_screen_is_blank(gb: emurust.GameBoy) -> None:
    assert not gb.screen_shades.any()
    assert (gb.screen == 255).all()
    assert (gb.screen_gray == 255).all()


# --- zero copy --------------------------------------------------------------------------


def test_same_array_while_held(gb: emurust.GameBoy) -> None:
    screen, shades, gray = gb.screen, gb.screen_shades, gb.screen_gray
    gb.tick(3)
    assert gb.screen is screen
    assert gb.screen_shades is shades
    assert gb.screen_gray is gray
    assert len({data_address(screen), data_address(shades), data_address(gray)}) == 3


def test_same_memory_every_access_and_updated_in_place(gb: emurust.GameBoy) -> None:
    screen = gb.screen
    shades = gb.screen_shades
    gray = gb.screen_gray
    addresses = [data_address(a) for a in (screen, shades, gray)]
    fill_screen(gb, 3)
    assert (shades == 3).all()
    assert (screen == 0).all()
    assert (gray == 0).all()
    fill_screen(gb, 0)
    assert not shades.any()
    assert (screen == 255).all()
    state = gb.save_state()
    gb.tick(10, render=True)
    gb.load_state(state)
    gb.palette = [(1, 2, 3)] * 4
    del screen, shades, gray
    gc.collect()
    # Fresh array objects (the old ones are gone), same memory.
    assert [data_address(a) for a in (gb.screen, gb.screen_shades, gb.screen_gray)] == addresses


def test_held_array_follows_many_ticks(gb: emurust.GameBoy) -> None:
    shades = gb.screen_shades
    address = data_address(shades)
    for i in range(20):
        fill_screen(gb, 3 * (i % 2))
        assert int(shades[0, 0]) == 3 * (i % 2)
        assert data_address(gb.screen_shades) == address


def test_tick_renders_only_the_last_frame_of_a_call(rom: bytes) -> None:
    a = emurust.GameBoy(rom)
    b = emurust.GameBoy(rom)
    for gb in (a, b):
        gb.memory[BGP] = 0xFF
    a.tick(5)
    for _ in range(5):
        b.tick(1)
    assert np.array_equal(a.screen, b.screen)
    assert (a.screen_shades == 3).all()


def test_array_keeps_gameboy_alive(rom: bytes) -> None:
    gb = emurust.GameBoy(rom)
    fill_screen(gb, 3)
    screen = gb.screen
    shades = gb.screen_shades[10:20, ::2]  # a NumPy view of the view
    alive = weakref.ref(gb)
    del gb
    gc.collect()
    assert alive() is not None  # held through the arrays' base
    assert (screen == 0).all()
    assert (shades == 3).all()
    assert screen.base is not None
    del screen
    gc.collect()
    assert alive() is not None  # `shades` still holds it
    del shades
    gc.collect()
    assert alive() is None  # no reference cycle: the emulator is freed with its last view


def test_gameboy_without_views_is_freed(rom: bytes) -> None:
    gb = emurust.GameBoy(rom)
    _ = gb.screen.sum(), gb.screen_shades.sum(), gb.screen_gray.sum()
    alive = weakref.ref(gb)
    del gb
    gc.collect()
    assert alive() is None


def test_screen_while_ticking_in_another_thread(rom: bytes) -> None:
    """Getting an array while another thread ticks fails cleanly (like every method)."""
    gb = emurust.GameBoy(rom)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            gb.tick(3000, render=False)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    refused: list[str] = []
    thread = threading.Thread(target=run)
    thread.start()
    try:
        for _ in range(200):
            try:
                gb.screen_shades.sum()
            except RuntimeError as e:
                refused.append(str(e))
    finally:
        thread.join()
    assert not errors
    assert all("borrowed" in message for message in refused)


# --- render=False -------------------------------------------------------------------------


def test_headless_ticks_leave_the_screen_alone_and_emulate_identically(rom: bytes) -> None:
    rendered = emurust.GameBoy(rom)
    headless = emurust.GameBoy(rom)
    for gb in (rendered, headless):
        gb.memory[BGP] = 0xFF
    before = headless.screen.copy(), headless.screen_shades.copy(), headless.screen_gray.copy()
    for frame in range(120):
        if frame == 60:
            for gb in (rendered, headless):
                gb.memory[BGP] = 0x55  # every colour index -> shade 1
        rendered.tick(1, render=True)
        headless.tick(1, render=False)
        assert rendered._machine_state() == headless._machine_state()
    assert (rendered.screen_shades == 1).all()
    assert np.array_equal(headless.screen, before[0])
    assert np.array_equal(headless.screen_shades, before[1])
    assert np.array_equal(headless.screen_gray, before[2])
    headless.tick(1, render=True)
    rendered.tick(1, render=True)
    assert np.array_equal(headless.screen, rendered.screen)


# --- palette ----------------------------------------------------------------------------


def test_default_palette(gb: emurust.GameBoy) -> None:
    assert gb.palette == DMG_GREYS
    assert isinstance(gb.palette, tuple)
    assert all(isinstance(c, tuple) for c in gb.palette)


@pytest.mark.parametrize(
    "value",
    [
        ((255, 0, 0), (0, 255, 0), (0, 0, 255), (1, 2, 3)),
        [[255, 0, 0], [0, 255, 0], [0, 0, 255], [1, 2, 3]],
        [0xFF0000, 0x00FF00, 0x0000FF, 0x010203],
        np.array([[255, 0, 0], [0, 255, 0], [0, 0, 255], [1, 2, 3]], dtype=np.uint8),
        ([255, 0, 0], 0x00FF00, (np.int64(0), np.uint8(0), 255), bytes([1, 2, 3])),
        iter([(255, 0, 0), (0, 255, 0), (0, 0, 255), (1, 2, 3)]),
    ],
)
def test_set_palette_forms(gb: emurust.GameBoy, value: emurust.PaletteLike) -> None:
    gb.palette = value
    assert gb.palette == ((255, 0, 0), (0, 255, 0), (0, 0, 255), (1, 2, 3))


def test_palette_recolours_at_once(rom: bytes) -> None:
    gb = emurust.GameBoy(rom)
    fill_screen(gb, 3)
    screen, shades = gb.screen, gb.screen_shades
    gb.palette = [(255, 255, 255), (170, 170, 170), (85, 85, 85), (12, 34, 56)]
    assert (screen == np.array([12, 34, 56], dtype=np.uint8)).all()  # no tick needed
    assert (shades == 3).all()  # shades do not depend on the palette
    assert (gb.screen_gray == luma(np.array([12, 34, 56], dtype=np.uint8))).all()


def test_palette_keyword(rom: bytes) -> None:
    palette = ((224, 248, 208), (136, 192, 112), (52, 104, 86), (8, 24, 32))
    gb = emurust.GameBoy(rom, palette=palette)
    assert gb.palette == palette
    assert (gb.screen == np.array(palette[0], dtype=np.uint8)).all()
    assert emurust.GameBoy(rom, palette=None).palette == DMG_GREYS
    with pytest.raises(emurust.InvalidArgumentError):
        emurust.GameBoy(rom, palette=[(0, 0, 0)] * 3)


@pytest.mark.parametrize(
    ("value", "error", "match"),
    [
        ([(0, 0, 0)] * 3, emurust.InvalidArgumentError, "exactly 4 colours.*got 3"),
        ([(0, 0, 0)] * 5, emurust.InvalidArgumentError, "exactly 4 colours.*got more"),
        ([], emurust.InvalidArgumentError, "got 0"),
        ([(0, 0, 0)] * 3 + [(0, 0)], emurust.InvalidArgumentError, "colour 3 needs exactly 3"),
        ([(0, 0, 0, 0)] * 4, emurust.InvalidArgumentError, "colour 0 needs exactly 3"),
        ([(0, 0, 256)] * 4, emurust.InvalidArgumentError, "256, outside 0..=255"),
        ([(0, -1, 0)] * 4, emurust.InvalidArgumentError, "-1, outside 0..=255"),
        ([(0, 2**70, 0)] * 4, emurust.InvalidArgumentError, "outside 0..=255"),
        ([0x1000000] * 4, emurust.InvalidArgumentError, "0x000000..=0xFFFFFF"),
        ([-1] * 4, emurust.InvalidArgumentError, "0x000000..=0xFFFFFF"),
        ("abcd", TypeError, "palette must be a sequence"),
        (b"abcd", TypeError, "palette must be a sequence"),
        (None, TypeError, "palette must be a sequence"),
        (5, TypeError, "palette must be a sequence"),
        (["abc"] * 4, TypeError, "colour 0 must be"),
        ([(0.0, 0, 0)] * 4, TypeError, "components must be ints, not float"),
        ([1.5] * 4, TypeError, "colour 0 must be"),
    ],
)
def test_bad_palette(
    gb: emurust.GameBoy, value: object, error: type[Exception], match: str
) -> None:
    gb.palette = [(9, 9, 9)] * 4
    with pytest.raises(error, match=match):
        gb.palette = value  # type: ignore[assignment]
    assert gb.palette == ((9, 9, 9),) * 4  # unchanged
    if error is emurust.InvalidArgumentError:
        assert issubclass(error, ValueError)
        assert issubclass(error, emurust.EmuRustError)


def test_palette_cannot_be_deleted(gb: emurust.GameBoy) -> None:
    with pytest.raises((AttributeError, TypeError)):
        del gb.palette


# --- consistency of the three buffers ------------------------------------------------------


@pytest.mark.parametrize(
    "palette",
    [DMG_GREYS, ((255, 0, 0), (0, 255, 0), (0, 0, 255), (1, 2, 3)), ((7, 7, 7),) * 4],
)
def test_rgb_gray_and_shades_agree(rom: bytes, palette: emurust.PaletteLike) -> None:
    gb = emurust.GameBoy(rom, palette=palette)
    # Four bands of shades: write one tile per colour index into tile data and the map.
    gb.memory[BGP] = 0xE4  # identity: colour index i -> shade i
    for tile in range(4):
        low = 0xFF if tile & 1 else 0x00
        high = 0xFF if tile & 2 else 0x00
        gb.memory[0x8000 + 16 * tile : 0x8000 + 16 * tile + 16] = bytes([low, high] * 8)
    gb.memory[0x9800 : 0x9800 + 32 * 18] = bytes(
        (row // 5) % 4 for row in range(18) for _ in range(32)
    )
    gb.memory[0xFF42] = 0  # SCY
    gb.memory[0xFF43] = 0  # SCX
    gb.tick(1)
    shades = gb.screen_shades
    assert set(np.unique(shades).tolist()) == {0, 1, 2, 3}
    lut = np.array(gb.palette, dtype=np.uint8)
    assert np.array_equal(gb.screen, lut[shades])
    assert np.array_equal(gb.screen_gray, luma(gb.screen))


# --- dmg-acid2 -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def acid2(shared_roms: Path) -> tuple[Path, npt.NDArray[np.uint8]]:
    """The dmg-acid2 ROM and its DMG reference picture as RGB."""
    pil = pytest.importorskip("PIL.Image", reason="Pillow is needed to read the reference PNG")
    rom = shared_roms / "acid2" / "dmg-acid2.gb"
    reference = shared_roms / "acid2" / "dmg-acid2-reference-dmg.png"
    for path in (rom, reference):
        if not path.is_file():
            pytest.skip(f"{path} not found")
    with pil.open(reference) as image:
        rgb = np.asarray(image.convert("RGB"), dtype=np.uint8)
    assert rgb.shape == (HEIGHT, WIDTH, 3)
    return rom, rgb


def check_acid2(gb: emurust.GameBoy, reference: npt.NDArray[np.uint8]) -> None:
    wrong = np.argwhere((gb.screen != reference).any(axis=2))
    assert len(wrong) == 0, (
        f"{len(wrong)} pixels differ from the reference; first (row, column): {wrong[:10].tolist()}"
    )
    shade_of_grey = {255: 0, 170: 1, 85: 2, 0: 3}
    expected_shades = np.vectorize(shade_of_grey.__getitem__)(reference[..., 0])
    assert np.array_equal(gb.screen_shades, expected_shades)
    assert np.array_equal(gb.screen_gray, reference[..., 0])


def test_acid2_in_one_tick(acid2: tuple[Path, npt.NDArray[np.uint8]]) -> None:
    rom, reference = acid2
    gb = emurust.GameBoy(rom)
    gb.tick(ACID2_FRAMES)
    check_acid2(gb, reference)


def test_acid2_one_tick_per_frame(acid2: tuple[Path, npt.NDArray[np.uint8]]) -> None:
    rom, reference = acid2
    gb = emurust.GameBoy(rom)
    screen = gb.screen
    for _ in range(ACID2_FRAMES):
        gb.tick()
    assert gb.screen is screen
    check_acid2(gb, reference)


def test_acid2_headless_then_one_rendered_frame(acid2: tuple[Path, npt.NDArray[np.uint8]]) -> None:
    rom, reference = acid2
    gb = emurust.GameBoy(rom)
    gb.tick(ACID2_FRAMES - 1, render=False)
    assert not gb.screen_shades.any()  # nothing rendered yet
    gb.tick(1, render=True)
    check_acid2(gb, reference)


# --- sound output ---------------------------------------------------------------------------

T_CYCLES_PER_SECOND = 4_194_304


def test_sound_is_off_by_default(gb: emurust.GameBoy) -> None:
    assert gb.sound_sample_rate is None
    gb.tick(2)
    with pytest.raises(emurust.SoundOffError, match=r"sound_sample_rate=48000") as info:
        _ = gb.sound
    assert isinstance(info.value, emurust.EmuRustError)
    assert isinstance(info.value, RuntimeError)


def test_sound_samples_follow_the_clock(rom: bytes) -> None:
    gb = emurust.GameBoy(rom, sound_sample_rate=48000)
    assert gb.sound_sample_rate == 48000
    assert gb.sound.shape == (0, 2)  # nothing run yet
    start = gb.cycles
    total = 0
    for frame in range(30):
        gb.tick(1, render=False)
        samples = gb.sound
        assert samples.dtype == np.int8
        assert samples.ndim == 2
        assert samples.shape[1] == 2
        if frame > 0:  # the first frame after the post-boot state is a partial one
            assert 800 <= len(samples) <= 806  # 48000 Hz / 59.73 frames per second
        total += len(samples)
    assert abs(total - (gb.cycles - start) * 48000 / T_CYCLES_PER_SECOND) <= 1


def test_sound_is_a_copy_of_the_last_frame(rom: bytes) -> None:
    gb = emurust.GameBoy(rom, sound_sample_rate=22050)
    gb.tick(10)
    first = gb.sound
    assert 367 <= len(first) <= 371  # the last frame only, as PyBoy's tick(10)
    assert first.flags.writeable  # a copy: the caller may keep and modify it
    again = gb.sound
    assert again is not first
    assert np.array_equal(again, first)
    assert not np.shares_memory(again, first)


def test_sound_can_be_switched(gb: emurust.GameBoy) -> None:
    gb.sound_sample_rate = 44100
    gb.tick(2)
    assert 735 <= len(gb.sound) <= 740
    gb.sound_sample_rate = None
    assert gb.sound_sample_rate is None
    with pytest.raises(emurust.SoundOffError):
        _ = gb.sound
    gb.sound_sample_rate = np.int32(8000)
    assert gb.sound_sample_rate == 8000
    with pytest.raises((AttributeError, TypeError)):
        del gb.sound_sample_rate
    assert gb.sound_sample_rate == 8000


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (7999, emurust.InvalidArgumentError),
        (192_001, emurust.InvalidArgumentError),
        (-48000, emurust.InvalidArgumentError),
        (2**70, emurust.InvalidArgumentError),
        ("48000", TypeError),
        (48000.0, TypeError),
    ],
)
def test_bad_sound_sample_rate(rom: bytes, value: object, error: type[Exception]) -> None:
    gb = emurust.GameBoy(rom, sound_sample_rate=48000)
    with pytest.raises(error, match="sound"):
        gb.sound_sample_rate = value  # type: ignore[assignment]
    assert gb.sound_sample_rate == 48000  # unchanged
    with pytest.raises(error):
        emurust.GameBoy(rom, sound_sample_rate=value)  # type: ignore[arg-type]


def test_sound_does_not_depend_on_render(shared_roms: Path) -> None:
    path = shared_roms / "homebrew" / "tobutobugirl" / "tobu.gb"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    rendered = emurust.GameBoy(path, sound_sample_rate=48000)
    headless = emurust.GameBoy(path, sound_sample_rate=48000)
    heard = False
    for _ in range(240):
        rendered.tick(1, render=True)
        headless.tick(1, render=False)
        assert np.array_equal(rendered.sound, headless.sound)
        heard = heard or bool(rendered.sound.any())
    assert heard  # the title music plays
