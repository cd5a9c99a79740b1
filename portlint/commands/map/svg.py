"""`portlint map --svg`: the recorded picture as an SVG that every renderer draws alike.

rich's own export writes each styled run as one `<text>` and keeps its spaces as
no-break spaces; librsvg (rsvg-convert, GNOME, many doc pipelines) drops leading
ones, so labels slid left and words ran together. Here nothing depends on
spaces: every run of non-space characters is its own `<text>` placed at its
column and stretched to its cells (`textLength`), backgrounds are rectangles,
and the block glyphs of the bars are rectangles too (fonts leave gaps between
them). The result is the same grid in a browser and in librsvg.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar
from xml.sax.saxutils import escape

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from rich.terminal_theme import TerminalTheme

from portlint.model.records import Struct

CELL_WIDTH = 8.4  # px per column at FONT_SIZE 14: a monospace advance of 0.6 em
LINE_HEIGHT = 18.0
FONT_SIZE = 14.0
MARGIN = 16.0
FONT = "DejaVu Sans Mono, Menlo, Consolas, Liberation Mono, monospace"
# Glyphs drawn as rectangles: (left, top, width, height) as fractions of the cell.
BLOCKS = {"█": (0.0, 0.0, 1.0, 1.0), "▆": (0.0, 0.25, 1.0, 0.75)}


class Cell(Struct, frozen=True):
    char: str
    fg: str
    bg: str  # "" for the picture's background
    bold: bool


def export(lines: Iterable[list[Segment]], width: int, theme: TerminalTheme, title: str) -> str:
    """SVG text of the lines of segments, `width` columns wide."""
    grid = [_cells(line, theme) for line in lines]
    background = _hex(theme.background_color)
    total_w = MARGIN * 2 + CELL_WIDTH * width
    total_h = MARGIN * 2 + LINE_HEIGHT * len(grid)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(total_w)}" height="{_n(total_h)}" '
        f'viewBox="0 0 {_n(total_w)} {_n(total_h)}" font-family="{FONT}" font-size="{_n(FONT_SIZE)}">',
        f"<title>{escape(title)}</title>",
        f'<rect width="100%" height="100%" fill="{background}"/>',
    ]
    for row, cells in enumerate(grid):
        top = MARGIN + row * LINE_HEIGHT
        parts += _backgrounds(cells, top)
        parts += _blocks(cells, top)
        parts += _texts(cells, top)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _cells(line: list[Segment], theme: TerminalTheme) -> list[Cell]:
    cells = []
    for segment in line:
        if segment.control:
            continue
        style = segment.style or Style()
        fg, bg = _colors(style, theme)
        for char in segment.text:
            cells.append(Cell(char, fg, bg, bool(style.bold)))
    return cells


def _colors(style: Style, theme: TerminalTheme) -> tuple[str, str]:
    color, bgcolor = style.color, style.bgcolor
    if style.reverse:
        color, bgcolor = bgcolor, color
    fg = (color or Color.default()).get_truecolor(theme, foreground=True)
    bg = "" if bgcolor is None or bgcolor.is_default else _hex(bgcolor.get_truecolor(theme, foreground=False))
    if style.dim:  # halfway to the background, as terminals draw faint text
        base = theme.background_color
        fg = type(fg)(*((a + b) // 2 for a, b in zip(fg, base)))
    return _hex(fg), bg


_Key = TypeVar("_Key")


def _runs(cells: list[Cell], key: Callable[[Cell], _Key | None]) -> Iterator[tuple[int, int, _Key]]:
    """(start, end, key) of the maximal runs of equal key, key None skipped."""
    start = 0
    while start < len(cells):
        value = key(cells[start])
        end = start + 1
        while end < len(cells) and key(cells[end]) == value:
            end += 1
        if value is not None:
            yield start, end, value
        start = end


def _backgrounds(cells: list[Cell], top: float) -> list[str]:
    return [
        f'<rect x="{_n(_x(a))}" y="{_n(top)}" width="{_n((b - a) * CELL_WIDTH)}" height="{_n(LINE_HEIGHT)}" fill="{bg}"/>'
        for a, b, bg in _runs(cells, lambda c: c.bg or None)
    ]


def _blocks(cells: list[Cell], top: float) -> list[str]:
    out = []
    for a, b, (char, fg) in _runs(cells, lambda c: (c.char, c.fg) if c.char in BLOCKS else None):
        left, up, wide, high = BLOCKS[char]
        out.append(
            f'<rect x="{_n(_x(a) + left * CELL_WIDTH)}" y="{_n(top + up * LINE_HEIGHT)}" '
            f'width="{_n((b - a - 1 + wide) * CELL_WIDTH)}" height="{_n(high * LINE_HEIGHT)}" fill="{fg}"/>'
        )
    return out


def _texts(cells: list[Cell], top: float) -> list[str]:
    """One `<text>` per run of non-space, non-block characters of one style, at its column."""
    baseline = top + LINE_HEIGHT * 0.75
    out = []
    for a, b, (fg, bold) in _runs(
        cells, lambda c: None if c.char.isspace() or c.char in BLOCKS else (c.fg, c.bold),
    ):
        text = escape("".join(c.char for c in cells[a:b]))
        weight = ' font-weight="bold"' if bold else ""
        out.append(
            f'<text x="{_n(_x(a))}" y="{_n(baseline)}" fill="{fg}"{weight} '
            f'textLength="{_n((b - a) * CELL_WIDTH)}" lengthAdjust="spacingAndGlyphs">{text}</text>'
        )
    return out


def _x(column: int) -> float:
    return MARGIN + column * CELL_WIDTH


def _n(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)
