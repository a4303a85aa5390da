"""The DMG's pixel, drawn from what the PPU sees on one row (:class:`LineState`): as
hardware draws it (:func:`hardware_pixel`) and as PyBoy 2.8.1 does (:func:`pyboy_pixel`),
for the screen rules."""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class LineState:
    """What the PPU draws one screen row from: VRAM, OAM and the LCD registers, read at
    the start of that row's mode 3 (emurust re-run from the last matching point)."""

    vram: bytes
    oam: bytes
    lcdc: int
    scy: int
    scx: int
    wy: int
    wx: int
    bgp: int
    obp0: int
    obp1: int


def _bg_colour(state: LineState, row: int, x: int) -> int | None:
    """The BG colour index (0-3) under pixel (row, x); None where the window covers it
    (the window's line counter is not modelled here) or BG/window are off."""
    lcdc = state.lcdc
    if not lcdc & 0x01:
        return None
    if lcdc & 0x20 and state.wy <= row and x >= state.wx - 7:
        return None
    y, xx = (row + state.scy) & 0xFF, (x + state.scx) & 0xFF
    tile = state.vram[(0x1C00 if lcdc & 0x08 else 0x1800) + (y // 8) * 32 + xx // 8]
    base = tile * 16 if lcdc & 0x10 else 0x1000 + ((tile ^ 0x80) - 0x80) * 16
    lo, hi = state.vram[base + (y % 8) * 2], state.vram[base + (y % 8) * 2 + 1]
    bit = 7 - xx % 8
    return ((lo >> bit) & 1) | (((hi >> bit) & 1) << 1)


def _objects_at(state: LineState, row: int, x: int) -> list[tuple[int, int]]:
    """The objects of ``row`` covering pixel ``x`` in drawing priority (smaller X first,
    then OAM order), each as (colour index 0-3, attribute flags)."""
    height = 16 if state.lcdc & 0x04 else 8
    selected = [n for n in range(40) if 0 <= row - (state.oam[4 * n] - 16) < height][:10]
    out = []
    for n in sorted(selected, key=lambda n: (state.oam[4 * n + 1], n)):
        oy, ox, tile, flags = state.oam[4 * n : 4 * n + 4]
        dx = x - (ox - 8)
        if not 0 <= dx < 8:
            continue
        dy = row - (oy - 16)
        if flags & 0x40:
            dy = height - 1 - dy
        if height == 16:
            tile &= 0xFE
        addr = tile * 16 + dy * 2
        bit = dx if flags & 0x20 else 7 - dx
        lo, hi = state.vram[addr], state.vram[addr + 1]
        out.append((((lo >> bit) & 1) | (((hi >> bit) & 1) << 1), flags))
    return out


def _shade(palette: int, colour: int) -> int:
    return (palette >> (2 * colour)) & 3


def _obj_shade(state: LineState, colour: int, flags: int) -> int:
    return _shade(state.obp1 if flags & 0x10 else state.obp0, colour)


def hardware_pixel(state: LineState, row: int, x: int) -> int | None:
    """A DMG pixel's shade (Pan Docs, OAM 'Drawing priority'): the first opaque object
    pixel in drawing priority wins over the others; only then is its BG-over-OBJ bit
    checked against the BG colour. None where :func:`_bg_colour` is None."""
    bg = _bg_colour(state, row, x)
    if bg is None:
        return None
    if state.lcdc & 0x02:
        for colour, flags in _objects_at(state, row, x):
            if colour:
                if flags & 0x80 and bg:
                    break
                return _obj_shade(state, colour, flags)
    return _shade(state.bgp, bg)


def pyboy_pixel(state: LineState, row: int, x: int) -> int | None:
    """The same pixel as PyBoy 2.8.1 draws it (pyboy/core/lcd.py,
    ``Renderer.scanline_sprites``): objects are drawn from the lowest priority to the
    highest, each opaque pixel overwriting the pixel unless its BG-over-OBJ bit is set and
    the BG colour is not 0; so the highest-priority object that is opaque *and not masked
    by the BG* wins, and a masked object does not hide the objects below it."""
    bg = _bg_colour(state, row, x)
    if bg is None:
        return None
    if state.lcdc & 0x02:
        for colour, flags in _objects_at(state, row, x):
            if colour and not (flags & 0x80 and bg):
                return _obj_shade(state, colour, flags)
    return _shade(state.bgp, bg)


def bg_row(state: LineState, row: int, scx: int) -> list[int | None]:
    """Row ``row`` of the background drawn from ``state`` with SCX = ``scx`` (shades; None
    where :func:`_bg_colour` is None)."""
    st = replace(state, scx=scx)
    out: list[int | None] = []
    for x in range(160):
        bg = _bg_colour(st, row, x)
        out.append(None if bg is None else _shade(st.bgp, bg))
    return out
