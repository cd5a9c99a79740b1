"""`portlint map`: the layout as a picture, in the terminal or as SVG / HTML.

rich draws it; the same recorded rendering is exported to SVG and HTML, so the
file shows exactly what the terminal shows. Nothing in it depends on the time
or the terminal: the width is fixed, so a committed picture can be compared.
Imported only by the `map` command (rich costs start-up time `check` should not pay).
"""
from __future__ import annotations

import io
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from portlint.commands.map import axis as mapaxis
from portlint.commands.map import rows as maprows
from portlint.commands.map.axis import Axis
from portlint.commands.map.rows import BAND, DRAW_ORDER, OVERFLOW, OVERLAP, SHARED, SITE, WINDOW, WRITTEN, Picture, Row
from portlint.commands.scan import scan
from portlint.model.layout import Layout
from portlint.model.ports import PRIVILEGED_CEILING
from portlint.model.problems import Problem
from portlint.model.records import Struct
from portlint.report import printable

if TYPE_CHECKING:  # rich.terminal_theme is imported when a picture is exported
    from rich.terminal_theme import TerminalTheme

DEFAULT_WIDTH = 100
GLYPHS = {BAND: "█", SITE: "▆", WINDOW: "╍", SHARED: "▒", WRITTEN: "◆", OVERFLOW: "╍", OVERLAP: "✖"}
GAP = "┆"
MAX_LISTED = 40  # problems listed under the picture; `check` lists them all


class Theme(Struct, frozen=True):
    """The colours of one picture: a band palette kept apart from the red of problems."""

    name: str
    palette: tuple[str, ...]
    site: str
    problem: str
    ok: str
    privileged: str  # zone backgrounds
    ephemeral: str
    ceiling: str  # the 1024 tick
    background: tuple[int, int, int]  # for SVG / HTML
    foreground: tuple[int, int, int]

    @property
    def styles(self) -> dict[str, str]:
        return {SITE: self.site, WRITTEN: f"bold {self.problem}", OVERFLOW: f"bold {self.problem}",
                OVERLAP: "bold #ffffff on #c02828"}

    def zone(self, name: str) -> str:
        return {"privileged": f"on {self.privileged}", "ephemeral": f"on {self.ephemeral}"}.get(name, "")


THEMES = {
    "dark": Theme(
        "dark", ("#4e9ad6", "#5bb85b", "#d6a93c", "#b07acc", "#45b5aa", "#d97f3a", "#8c9fd9", "#9c9c40"),
        site="#d0c060", problem="#ff5c5c", ok="#5bb85b", privileged="#33334a", ephemeral="#4a2020",
        ceiling="#9090b0", background=(41, 41, 41), foreground=(197, 200, 198),
    ),
    "light": Theme(
        "light", ("#2f78c0", "#2e8b3a", "#b07d10", "#8a4fb0", "#1f8f84", "#c0601c", "#5466c0", "#76761a"),
        site="#9a8400", problem="#c62828", ok="#2e7d32", privileged="#dedef2", ephemeral="#f6d8d8",
        ceiling="#5a5a8a", background=(255, 255, 255), foreground=(36, 41, 47),
    ),
}
# The dark theme's colours, as before themes (other modules and tests read these).
PALETTE = THEMES["dark"].palette
STYLES = THEMES["dark"].styles
ZONE_BACKGROUND = {zone: THEMES["dark"].zone(zone) for zone in ("privileged", "ephemeral", "")}


@dataclass(frozen=True)
class Frame:
    """Column widths of one picture, and the names as its label column shows them."""

    label: int
    span: int
    bar: int
    sites: int
    codes: int
    names: dict[str, str] = field(default_factory=dict, compare=False)  # row label -> shown text


def render(  # noqa: PLR0913
    layout: Layout, drawn: Picture, title: str, width: int = DEFAULT_WIDTH,
    theme: str = "dark", problems: bool = True, root: Path | None = None,
) -> list[RenderableType]:
    """The picture as lines of styled text, each at most `width` cells.

    `problems=False` leaves the problem list out (a figure for a design doc); `root`,
    when given, shows the listed paths relative to the working directory, as `check` does."""
    colours = THEMES[theme]
    frame = _frame(drawn.rows, width)
    ranges = [(m.low, m.high) for row in drawn.rows for m in row.marks]
    axis = mapaxis.build(ranges, layout.ephemeral_floor, frame.bar)
    lines: list[RenderableType] = [*_heading(layout, drawn, title, colours)]
    lines += _ticks(axis, frame, _edges(drawn.rows), colours)
    for row, color in zip(drawn.rows, _colors(drawn.rows, colours)):
        lines.append(_row(row, axis, frame, color, colours))
    lines.append(_ruler(axis, frame, set(), colours))
    lines += _legend(layout.ephemeral_floor, width, colours)
    if problems:
        lines += _problems(drawn.unplaced, [row for row in drawn.rows if row.problems], frame, colours, root)
    return lines


def _colors(rows: tuple[Row, ...], theme: Theme) -> list[str]:
    """A palette colour per band; a band's windows take its colour."""
    colors: list[str] = []
    count = 0
    for row in rows:
        if row.key.startswith("window:"):
            colors.append(colors[-1] if colors else theme.palette[0])
            continue
        colors.append(theme.palette[count % len(theme.palette)])
        count += 1
    return colors


def _frame(rows: tuple[Row, ...], width: int) -> Frame:
    longest = max([len(_indent(r)) + len(r.label) for r in rows] + [4])
    label = min(max(10, width // 5), longest)
    span = max([len(r.span) for r in rows] + [5])
    codes = min(max(8, width // 6), max([len(_codes(r)) for r in rows] + [8]))
    sites = 5
    names = _distinct_names(rows, label)
    while names is None:  # cut names that would read the same: widen the label column
        label += 1
        names = _distinct_names(rows, label)
    bar = width - label - span - sites - codes - 7  # spaces and the bar's two edges
    return Frame(label, span, max(bar, 10), sites, codes, names)


def _indent(row: Row) -> str:
    return "  " * row.depth + "└ " if row.depth else ""


def _distinct_names(rows: tuple[Row, ...], label: int) -> dict[str, str] | None:
    """Each row's name cut to fit `label` cells after its indent, two distinct names never
    cut to the same text: a clash keeps the names' ends (`generation.…_high`). None when
    `label` is too narrow for that."""
    room: dict[str, int] = {}
    for row in rows:
        room[row.label] = min(room.get(row.label, label), label - len(_indent(row)))
    if any(cells < 2 for name, cells in room.items() if len(name) > cells):
        return None
    shown = {name: _cut(name, cells, cells - 1) for name, cells in room.items()}
    for _ in range(len(shown)):
        groups: dict[str, list[str]] = {}
        for name, text in shown.items():
            groups.setdefault(text, []).append(name)
        clashes = [names for names in groups.values() if len(names) > 1]
        if not clashes:
            return shown
        for names in clashes:
            taken = {text for name, text in shown.items() if name not in names}
            for head in range(min(room[name] for name in names) - 2, -1, -1):
                trial = {name: _cut(name, room[name], head) for name in names}
                if len(set(trial.values())) == len(names) and not set(trial.values()) & taken:
                    shown.update(trial)
                    break
            else:
                return None
    return None


def _cut(name: str, room: int, head: int) -> str:
    """`name` in `room` cells: its first `head` characters, `…`, and its end."""
    if len(name) <= room:
        return name
    tail = room - 1 - head
    return name[:head] + "…" + (name[len(name) - tail:] if tail > 0 else "")


def _codes(row: Row, room: int = 0) -> str:
    """`PL101×2 PL301`; without the counts when that does not fit in `room` (0: no limit)."""
    text = " ".join(code if count == 1 else f"{code}×{count}" for code, count in row.codes)
    if room and len(text) > room:
        text = " ".join(code for code, _ in row.codes)
    return text if not room or len(text) <= room else text[: room - 1] + "…"


# -- pieces of the picture ------------------------------------------------------------------


def _heading(layout: Layout, drawn: Picture, title: str, theme: Theme) -> list[Text]:
    problems = sum(count for row in drawn.rows for _, count in row.codes) + len(drawn.unplaced)
    what = f"{len(layout.bands)} bands" if drawn.declared else f"no layout: {len(drawn.rows)} ranges and ports found"
    head = Text.assemble(("portlint map", "bold"), f"  {printable(title)}  ·  {what}  ·  {len(layout.sites)} sites  ·  ")
    head.append(f"{problems} problem{'s' if problems != 1 else ''}", f"bold {theme.problem if problems else theme.ok}")
    note = Text(
        f"ephemeral floor {layout.ephemeral_floor}  ·  privileged below {PRIVILEGED_CEILING}  ·  "
        f"piecewise axis, {GAP} = nothing there", "dim",
    )
    return [head, note, Text()]


def _edges(rows: tuple[Row, ...]) -> list[tuple[int, int]]:
    """(low, high) of every band, carve-out and range a row draws, windows aside."""
    return sorted({
        (m.low, m.high) for row in rows if not row.key.startswith("window:")
        for m in row.marks if m.kind in (BAND, SITE)
    })


def _ticks(axis: Axis, frame: Frame, edges: list[tuple[int, int]], theme: Theme) -> list[Text]:
    """Port labels at their ticks, on as many lines as it takes to name every band edge.

    A band's low is written from its first column, its high up to its last (unless the
    next band starts right after: that start names the edge). A label on a higher line
    drops a │ to the ruler. The floor, 1024 and 65535 are always named; other column
    starts fill the lines where there is room."""
    tiers: list[list[str]] = [[" "] * frame.bar]
    styles: dict[tuple[int, int], str] = {}
    anchors: set[int] = set()
    for required, label, start, anchor in _tick_labels(axis, edges, frame.bar):
        if not _fits([" "] * frame.bar, start, label):
            continue
        tier = next((t for t in range(len(tiers)) if _fits(tiers[t], start, label) and _open(tiers, t, anchor)), None)
        if tier is None and required:
            # A label further left may cover this tick on the lines below: the leader then
            # stops there, but the label still stands over its column.
            tier = next((t for t in range(len(tiers)) if _fits(tiers[t], start, label)), None)
            if tier is None:
                tiers.append([" "] * frame.bar)
                tier = len(tiers) - 1
        if tier is None:
            continue
        tiers[tier][start:start + len(label)] = list(label)
        for below in range(tier):
            if tiers[below][anchor] == " ":
                tiers[below][anchor] = "│"
        for index in range(start, start + len(label)):
            styles[(tier, index)] = _tick_style(axis, anchor, theme)
        anchors.add(anchor)
    pad = " " * (frame.label + frame.span + 2)
    out = []
    for tier in range(len(tiers) - 1, -1, -1):
        text = Text(pad + " ", no_wrap=True, overflow="crop")
        for index, char in enumerate(tiers[tier]):
            text.append(char, styles.get((tier, index), "dim" if char == "│" else ""))
        if tier == 0:
            text.append(" " + "sites".rjust(frame.sites) + " problems", "dim")
        out.append(text)
    return [*out, _ruler(axis, frame, anchors, theme)]


def _tick_labels(axis: Axis, edges: list[tuple[int, int]], width: int) -> list[tuple[bool, str, int, int]]:
    """(required, label, first column, anchor column): required ones left to right, then the rest."""
    labels: dict[int, tuple[bool, str, int, int]] = {}

    def add(port: int, anchor: int, required: bool, at_end: bool = False) -> None:
        text = str(port)
        start = anchor - len(text) + 1 if at_end or anchor + len(text) > width else anchor
        key = anchor if not at_end else -anchor - 1
        if key not in labels or (required and not labels[key][0]):
            labels[key] = (required, text, max(start, 0), anchor)

    starts = {low for low, _ in edges}
    for index, column in enumerate(axis.columns):
        if not column.starts:
            continue
        special = column.low in (axis.floor, PRIVILEGED_CEILING)
        if special or column.low in starts:
            add(column.low, index, True)
        elif not column.gap:
            add(column.low, index, False)
    for low, high in edges:
        cells = axis.cells(low, high)
        if cells and high not in starts and high + 1 not in starts:  # else a start names it
            add(high, cells[-1], True, at_end=True)
    last = len(axis.columns) - 1
    add(axis.columns[last].high, last, True, at_end=True)
    chosen = sorted(labels.values(), key=lambda item: (not item[0], item[3], item[2]))
    return chosen


def _open(tiers: list[list[str]], tier: int, anchor: int) -> bool:
    """A leader from `tier` down to the ruler passes only through blank cells or leaders."""
    return all(tiers[below][anchor] in " │" for below in range(tier))


def _fits(line: list[str], index: int, label: str) -> bool:
    if index < 0 or index + len(label) > len(line):
        return False
    return all(char == " " for char in line[index:index + len(label)]) and all(
        char in " │" for char in (line[index - 1:index] + line[index + len(label):index + len(label) + 1])
    )


def _tick_style(axis: Axis, index: int, theme: Theme) -> str:
    low = axis.columns[index].low
    if low == axis.floor:
        return f"bold {theme.problem}"
    return theme.ceiling if low == PRIVILEGED_CEILING else ""


def _ruler(axis: Axis, frame: Frame, labelled: set[int], theme: Theme) -> Text:
    text = Text(" " * (frame.label + frame.span + 2) + "▕", "dim", no_wrap=True, overflow="crop")
    for index, column in enumerate(axis.columns):
        char = "┬" if index in labelled else (GAP if column.gap and column.starts else "╌" if column.gap else "─")
        text.append(char, f"dim {theme.zone(axis.zone(index))}".strip())
    text.append("▏", "dim")
    return text


def _row(row: Row, axis: Axis, frame: Frame, color: str, theme: Theme) -> Text:
    label = _indent(row) + frame.names.get(row.label, row.label)
    text = Text(label.ljust(frame.label), "bold" if not row.depth else "", no_wrap=True, overflow="crop")
    text.append(" " + row.span.rjust(frame.span) + " ", "dim" if row.key.startswith("window:") else "")
    text.append("▕", "dim")
    cells = _cells(row, axis)
    for index, kind in enumerate(cells):
        zone = theme.zone(axis.zone(index))
        if kind is None:
            column = axis.columns[index]
            char, style = (GAP, "dim") if column.gap and column.starts else (" ", "")
        else:
            char, style = GLYPHS[kind], theme.styles.get(kind, color)
        if kind != OVERLAP:
            style = f"{style} {zone}".strip()
        text.append(char, style)
    text.append("▏", "dim")
    text.append(" " + (str(row.sites) if row.sites else "").rjust(frame.sites) + " ", "dim")
    text.append(_codes(row, frame.codes), f"bold {theme.problem}")
    return text


def _cells(row: Row, axis: Axis) -> list[str | None]:
    cells: list[str | None] = [None] * len(axis.columns)
    for mark in sorted(row.marks, key=lambda m: DRAW_ORDER.index(m.kind)):
        for index in axis.cells(mark.low, mark.high):
            cells[index] = mark.kind
    return cells


def _legend(floor: int, width: int, theme: Theme) -> list[Text]:
    band = theme.palette[0]
    styles = theme.styles
    items = [
        (GLYPHS[BAND], band, "band"), (GLYPHS[SHARED], band, "may overlap (within / shares_with)"),
        (GLYPHS[WINDOW], band, "windows"), (GLYPHS[SITE], styles[SITE], "written, no band"),
        (GLYPHS[WRITTEN], styles[WRITTEN], "written off its band"), (GLYPHS[OVERLAP], styles[OVERLAP], "overlap"),
        (" ", theme.zone("privileged"), f"privileged (<{PRIVILEGED_CEILING})"),
        (" ", theme.zone("ephemeral"), f"ephemeral (>={floor})"),
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


def _problems(
    unplaced: tuple[Problem, ...], rows: list[Row], frame: Frame, theme: Theme, root: Path | None,
) -> list[RenderableType]:
    """Each problem after the band it marks (the band named once); the rest (PL001, PL002, docs) last."""
    if not rows and not unplaced:
        return [Text(), Text("No problems: every band is in its lane.", theme.ok)]
    listed = [(frame.names.get(row.label, row.label), p) for row in rows for p in row.problems]
    listed += [("", p) for p in unplaced]
    table = Table.grid(padding=(0, 1), pad_edge=True)
    table.add_column(style="bold", no_wrap=True)
    table.add_column(style=f"bold {theme.problem}", no_wrap=True)
    table.add_column(ratio=1)
    previous = None
    for label, problem in listed[:MAX_LISTED]:
        where = f"{_path(problem.path, root)}:{problem.line}: " if problem.path else ""
        # Text, not markup: a name or message from a file may hold `[link=...]` or controls.
        table.add_row(Text(label if label != previous else ""), Text(problem.code),
                      Text(printable(where + _message(problem, root))))
        previous = label
    lines: list[RenderableType] = [Text(), Text("Problems", "bold"), table]
    if len(listed) > MAX_LISTED:
        lines.append(Text(f"  … and {len(listed) - MAX_LISTED} more: `portlint check` lists them all", "dim"))
    return lines


def _path(path: str, root: Path | None) -> str:
    return path if root is None else Path(os.path.relpath(root / path)).as_posix()


def _message(problem: Problem, root: Path | None) -> str:
    if root is None:
        return problem.message
    from portlint.report import Context

    return Context(root, Path.cwd()).message(problem)


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


def _terminal_theme(theme: str) -> TerminalTheme:
    from rich.terminal_theme import DEFAULT_TERMINAL_THEME, SVG_EXPORT_THEME, TerminalTheme

    colours = THEMES[theme]
    base = SVG_EXPORT_THEME if theme == "dark" else DEFAULT_TERMINAL_THEME
    ansi = [(c.red, c.green, c.blue) for c in (base.ansi_colors[i] for i in range(16))]
    return TerminalTheme(colours.background, colours.foreground, ansi[:8], ansi[8:])


def to_svg(lines: list[RenderableType], width: int, title: str = "portlint map", theme: str = "dark") -> str:
    """The picture as SVG that browsers and librsvg draw alike (portlint/commands/map/svg.py)."""
    from portlint.commands.map import svg as mapsvg

    console = _console(width, io.StringIO())
    rows = [row for line in lines for row in console.render_lines(line, console.options, pad=False)]
    return mapsvg.export(rows, width, _terminal_theme(theme), title)


def to_html(lines: list[RenderableType], width: int, theme: str = "dark") -> str:
    """A page in the picture's theme: the same picture, selectable as text."""
    return _recorded(lines, width).export_html(theme=_terminal_theme(theme), inline_styles=True)


def to_text(lines: list[RenderableType], width: int) -> str:
    """The picture without colour: what a code block in a README can show."""
    return "".join(line.rstrip() + "\n" for line in _recorded(lines, width).export_text().splitlines())


def draw(
    start: Path, config_args: tuple[str, ...] | None = (), width: int = DEFAULT_WIDTH,
    theme: str = "dark", problems: bool = True,
) -> list[RenderableType]:
    """Scan the repository of `start` as `check` does and draw what it found."""
    found = scan(start, config_args or ())
    title = _shown(found.config.path if found.config.path is not None else found.config.root)
    picture = maprows.picture(found.layout, found.problems)
    return render(found.layout, picture, title, width, theme, problems, root=found.config.root)


def _shown(path: Path) -> str:
    """Relative to the working directory when below it: no machine-specific prefix in a picture."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix() or "."
    except ValueError:
        return path.as_posix()
