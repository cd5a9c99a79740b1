"""`portlint map`: the layout as a picture, in the terminal or as SVG / HTML.

rich draws it; the same recorded rendering is exported to SVG and HTML, so the
file shows exactly what the terminal shows. Nothing in it depends on the time
or the terminal: the width is fixed, so a committed picture can be compared.
Imported only by the `map` command (rich costs start-up time `check` should not pay).
"""
from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from portlint import mapaxis, maprows
from portlint.mapaxis import PRIVILEGED_CEILING, Axis
from portlint.maprows import BAND, DRAW_ORDER, OVERFLOW, OVERLAP, SHARED, SITE, WINDOW, WRITTEN, Picture, Row
from portlint.model import Layout
from portlint.problem import Problem
from portlint.survey import survey

DEFAULT_WIDTH = 100
GLYPHS = {BAND: "█", SITE: "▆", WINDOW: "╍", SHARED: "▒", WRITTEN: "◆", OVERFLOW: "╍", OVERLAP: "✖"}
# A colour per band, cycled; chosen to stay apart from the red of problems.
PALETTE = ("#4e9ad6", "#5bb85b", "#d6a93c", "#b07acc", "#45b5aa", "#d97f3a", "#8c9fd9", "#9c9c40")
STYLES = {
    SITE: "#d0c060", WRITTEN: "bold #ff5c5c", OVERFLOW: "bold #ff5c5c", OVERLAP: "bold #ffffff on #c02828",
}
ZONE_BACKGROUND = {"privileged": "on #33334a", "ephemeral": "on #4a2020", "": ""}
GAP = "┆"
MAX_LISTED = 40  # problems listed under the picture; `check` lists them all


@dataclass(frozen=True)
class Frame:
    """Column widths of one picture."""

    label: int
    span: int
    bar: int
    sites: int
    codes: int


def render(layout: Layout, drawn: Picture, title: str, width: int = DEFAULT_WIDTH) -> list[RenderableType]:
    """The picture as lines of styled text, each at most `width` cells."""
    frame = _frame(drawn.rows, width)
    ranges = [(m.low, m.high) for row in drawn.rows for m in row.marks]
    axis = mapaxis.build(ranges, layout.ephemeral_floor, frame.bar)
    starts = {m.low for row in drawn.rows for m in row.marks if m.kind in (BAND, SITE)}
    lines: list[RenderableType] = [*_heading(layout, drawn, title)]
    lines += _ticks(axis, frame, starts)
    for row, color in zip(drawn.rows, _colors(drawn.rows)):
        lines.append(_row(row, axis, frame, color))
    lines.append(_ruler(axis, frame, set()))
    lines += _legend(layout.ephemeral_floor, width)
    lines += _problems(drawn.unplaced, [row for row in drawn.rows if row.problems])
    return lines


def _colors(rows: tuple[Row, ...]) -> list[str]:
    """A palette colour per band; a band's windows take its colour."""
    colors, count = [], 0
    for row in rows:
        if row.key.startswith("window:"):
            colors.append(colors[-1] if colors else PALETTE[0])
            continue
        colors.append(PALETTE[count % len(PALETTE)])
        count += 1
    return colors


def _frame(rows: tuple[Row, ...], width: int) -> Frame:
    label = min(max(10, width // 5), max([len(_indented(r)) for r in rows] + [4]))
    span = max([len(r.span) for r in rows] + [5])
    codes = min(max(8, width // 6), max([len(_codes(r)) for r in rows] + [8]))
    sites = 5
    bar = width - label - span - sites - codes - 7  # spaces and the bar's two edges
    return Frame(label, span, max(bar, 10), sites, codes)


def _indented(row: Row) -> str:
    return ("  " * row.depth + "└ " if row.depth else "") + row.label


def _codes(row: Row, room: int = 0) -> str:
    """`PL101×2 PL301`; without the counts when that does not fit in `room` (0: no limit)."""
    text = " ".join(code if count == 1 else f"{code}×{count}" for code, count in row.codes)
    if room and len(text) > room:
        text = " ".join(code for code, _ in row.codes)
    return text if not room or len(text) <= room else text[: room - 1] + "…"


# -- pieces of the picture ------------------------------------------------------------------


def _heading(layout: Layout, drawn: Picture, title: str) -> list[Text]:
    problems = sum(count for row in drawn.rows for _, count in row.codes) + len(drawn.unplaced)
    what = f"{len(layout.bands)} bands" if drawn.declared else f"no layout: {len(drawn.rows)} ranges and ports found"
    head = Text.assemble(("portlint map", "bold"), f"  {title}  ·  {what}  ·  {len(layout.sites)} sites  ·  ")
    head.append(f"{problems} problem{'s' if problems != 1 else ''}", "bold #ff5c5c" if problems else "bold #5bb85b")
    note = Text(
        f"ephemeral floor {layout.ephemeral_floor}  ·  privileged below {PRIVILEGED_CEILING}  ·  "
        f"piecewise axis, {GAP} = nothing there", "dim",
    )
    return [head, note, Text()]


def _ticks(axis: Axis, frame: Frame, starts: set[int]) -> list[Text]:
    """Two lines of port labels above a ruler; an upper label drops a │ through the lower line."""
    upper, lower = [" "] * frame.bar, [" "] * frame.bar
    styles: dict[tuple[int, int], str] = {}
    anchors: set[int] = set()
    for _, anchor, start, label in sorted(_tick_candidates(axis, starts)):
        if start + len(label) > frame.bar:
            start = anchor - len(label) + 1  # no room to the right: end the label at its column
        for line_no, line in ((1, lower), (0, upper)):
            if _fits(line, start, label) and (line_no == 1 or lower[anchor] == " "):
                line[start:start + len(label)] = list(label)
                if line_no == 0:
                    lower[anchor] = "│"
                for index in range(start, start + len(label)):
                    styles[(line_no, index)] = _tick_style(axis, anchor)
                anchors.add(anchor)
                break
    pad = " " * (frame.label + frame.span + 2)
    out = []
    for line_no, line in ((0, upper), (1, lower)):
        text = Text(pad + " ", no_wrap=True, overflow="crop")
        for index, char in enumerate(line):
            text.append(char, styles.get((line_no, index), "dim" if char == "│" else ""))
        if line_no == 1:
            text.append(" " + "sites".rjust(frame.sites) + " problems", "dim")
        out.append(text)
    return [*out, _ruler(axis, frame, anchors)]


def _tick_candidates(axis: Axis, starts: set[int]) -> Iterable[tuple[int, int, int, str]]:
    """(tier, anchor column, first column, label): the floor, 1024 and the end first, then band starts."""
    for index, column in enumerate(axis.columns):
        if not column.starts:
            continue
        if column.low == axis.floor:
            yield 0, index, index, str(column.low)
        elif column.low == PRIVILEGED_CEILING:
            yield 1, index, index, str(column.low)
        elif column.low in starts:
            yield 3, index, index, str(column.low)
        elif not column.gap:
            yield 4, index, index, str(column.low)
    last = len(axis.columns) - 1
    end = str(axis.columns[last].high)
    yield 2, last, last - len(end) + 1, end


def _fits(line: list[str], index: int, label: str) -> bool:
    if index < 0 or index + len(label) > len(line):
        return False
    return all(char == " " for char in line[max(0, index - 1):index + len(label) + 1])


def _tick_style(axis: Axis, index: int) -> str:
    low = axis.columns[index].low
    if low == axis.floor:
        return "bold #ff5c5c"
    return "#9090b0" if low == PRIVILEGED_CEILING else ""


def _ruler(axis: Axis, frame: Frame, labelled: set[int]) -> Text:
    text = Text(" " * (frame.label + frame.span + 2) + "▕", "dim", no_wrap=True, overflow="crop")
    for index, column in enumerate(axis.columns):
        char = "┬" if index in labelled else (GAP if column.gap and column.starts else "╌" if column.gap else "─")
        text.append(char, f"dim {ZONE_BACKGROUND[axis.zone(index)]}".strip())
    text.append("▏", "dim")
    return text


def _row(row: Row, axis: Axis, frame: Frame, color: str) -> Text:
    label = _indented(row)
    if len(label) > frame.label:
        label = label[: frame.label - 1] + "…"
    text = Text(label.ljust(frame.label), "bold" if not row.depth else "", no_wrap=True, overflow="crop")
    text.append(" " + row.span.rjust(frame.span) + " ", "dim" if row.key.startswith("window:") else "")
    text.append("▕", "dim")
    cells = _cells(row, axis)
    for index, kind in enumerate(cells):
        zone = ZONE_BACKGROUND[axis.zone(index)]
        if kind is None:
            column = axis.columns[index]
            char, style = (GAP, "dim") if column.gap and column.starts else (" ", "")
        else:
            char, style = GLYPHS[kind], STYLES.get(kind, color)
        if kind != OVERLAP:
            style = f"{style} {zone}".strip()
        text.append(char, style)
    text.append("▏", "dim")
    text.append(" " + (str(row.sites) if row.sites else "").rjust(frame.sites) + " ", "dim")
    text.append(_codes(row, frame.codes), "bold #ff5c5c")
    return text


def _cells(row: Row, axis: Axis) -> list[str | None]:
    cells: list[str | None] = [None] * len(axis.columns)
    for mark in sorted(row.marks, key=lambda m: DRAW_ORDER.index(m.kind)):
        for index in axis.cells(mark.low, mark.high):
            cells[index] = mark.kind
    return cells


def _legend(floor: int, width: int) -> list[Text]:
    items = [
        (GLYPHS[BAND], "#4e9ad6", "band"), (GLYPHS[SHARED], "#4e9ad6", "may overlap (within / shares_with)"),
        (GLYPHS[WINDOW], "#4e9ad6", "windows"), (GLYPHS[SITE], STYLES[SITE], "written, no band"),
        (GLYPHS[WRITTEN], STYLES[WRITTEN], "written off its band"), (GLYPHS[OVERLAP], STYLES[OVERLAP], "overlap"),
        (" ", ZONE_BACKGROUND["privileged"], f"privileged (<{PRIVILEGED_CEILING})"),
        (" ", ZONE_BACKGROUND["ephemeral"], f"ephemeral (>={floor})"),
    ]
    lines, text = [], Text()
    for glyph, style, what in items:
        piece = 2 + len(what) + 3
        if text.cell_len and text.cell_len + piece > width:
            lines.append(text)
            text = Text()
        text.append(glyph, style)
        text.append(f" {what}   ", "dim")
    lines.append(text)
    return [Text(), *lines]


def _problems(unplaced: tuple[Problem, ...], rows: list[Row]) -> list[RenderableType]:
    """Each problem after the band it marks (the band named once); the rest (PL001, PL002, docs) last."""
    if not rows and not unplaced:
        return [Text(), Text("No problems: every band is in its lane.", "#5bb85b")]
    listed = [(row.label, p) for row in rows for p in row.problems] + [("", p) for p in unplaced]
    table = Table.grid(padding=(0, 1), pad_edge=True)
    table.add_column(style="bold", no_wrap=True, max_width=24, overflow="ellipsis")
    table.add_column(style="bold #ff5c5c", no_wrap=True)
    table.add_column(ratio=1)
    previous = None
    for label, problem in listed[:MAX_LISTED]:
        where = f"{problem.path}:{problem.line}: " if problem.path else ""
        table.add_row(label if label != previous else "", problem.code, where + problem.message)
        previous = label
    lines: list[RenderableType] = [Text(), Text("Problems", "bold"), table]
    if len(listed) > MAX_LISTED:
        lines.append(Text(f"  … and {len(listed) - MAX_LISTED} more: `portlint check` lists them all", "dim"))
    return lines


# -- output -------------------------------------------------------------------------------------


def _console(width: int, file: io.StringIO | None = None, record: bool = False) -> Console:
    if file is None:
        return Console(width=width, highlight=False, record=record)
    return Console(
        width=width, file=file, record=record, highlight=False, color_system="truecolor",
        force_terminal=True, legacy_windows=False,
    )


def to_terminal(lines: list[RenderableType], width: int) -> None:
    console = _console(width)
    for line in lines:
        console.print(line)


def _recorded(lines: list[RenderableType], width: int) -> Console:
    console = _console(width, io.StringIO(), record=True)
    for line in lines:
        console.print(line)
    return console


def to_svg(lines: list[RenderableType], width: int, title: str = "portlint map") -> str:
    return _recorded(lines, width).export_svg(title=title)


def to_html(lines: list[RenderableType], width: int) -> str:
    """A page with the SVG's dark theme: the same picture, selectable as text."""
    from rich.terminal_theme import SVG_EXPORT_THEME

    return _recorded(lines, width).export_html(theme=SVG_EXPORT_THEME, inline_styles=True)


def to_text(lines: list[RenderableType], width: int) -> str:
    """The picture without colour: what a code block in a README can show."""
    return "".join(line.rstrip() + "\n" for line in _recorded(lines, width).export_text().splitlines())


def draw(start: Path, config_args: tuple[str, ...] | None = (), width: int = DEFAULT_WIDTH) -> list[RenderableType]:
    """Scan the repository of `start` as `check` does and draw what it found."""
    found = survey(start, config_args or ())
    if found.config.path is not None:
        title = _shown(found.config.path)
    else:
        title = _shown(found.config.root)
    return render(found.layout, maprows.picture(found.layout, found.problems), title, width)


def _shown(path: Path) -> str:
    """Relative to the working directory when below it: no machine-specific prefix in a picture."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix() or "."
    except ValueError:
        return path.as_posix()
