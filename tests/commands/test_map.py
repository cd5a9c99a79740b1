"""`portlint map`: the picture names every band, marks the floor and every overlap, and stays put."""
from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import copy_repo
from installed import PORTLINT

from portlint.cli import main
from portlint.commands.map import axis as mapaxis
from portlint.commands.map import render as layoutmap
from portlint.commands.map import rows as maprows
from portlint.commands.scan import scan

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo"
CASES = ROOT / "fixtures" / "map"
DEMO_BANDS = ("ray-gcs", "ray-mgmt", "master", "ray-worker", "generation", "gym", "sandbox", "engine", "ray-dashboard")
REGENERATE = "portlint map fixtures/demo --svg docs/map.svg (from the repository root)"


def _text(start: Path, width: int = layoutmap.DEFAULT_WIDTH) -> str:
    return layoutmap.to_text(layoutmap.draw(start, None, width), width)


class _Rows(dict):
    """Chart rows by label; a label cut short with … is found by its full name too."""

    def __missing__(self, label: str) -> str:
        for shown, line in self.items():
            if shown.endswith("…") and label.startswith(shown[:-1]):
                return line
        raise KeyError(label)


def _rows(text: str) -> _Rows:
    rows = _Rows()
    for line in text.splitlines():
        words = line.split()
        if "▕" in line and not words[0].startswith("▕"):
            rows[words[1] if words[0] == "└" else words[0]] = line
    return rows


@pytest.fixture
def in_root(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(ROOT)
    return ROOT


def test_the_demo_map_names_every_band_and_shows_the_floor(in_root: Path) -> None:
    text = _text(Path("fixtures/demo"))
    rows = _rows(text)
    for band in DEMO_BANDS:
        assert band in rows and "█" in rows[band], band
    ticks = text.split("▕", 1)[0]
    assert "9000" in ticks and "1024" in ticks
    assert "ephemeral floor 9000" in text and "ephemeral (>=9000)" in text


def test_the_demo_map_marks_what_check_reports(in_root: Path) -> None:
    rows = _rows(_text(Path("fixtures/demo")))
    assert "✖" in rows["generation"] and "✖" in rows["gym"]  # PL202: generation's written 5000-5499 meets gym
    assert "◆" in rows["gym"] and "PL101" in rows["gym"]  # a gym range written at 25000, past the floor
    assert "▒" in rows["engine"]  # the ray-dashboard carve-out
    assert "╍" in rows["8×100"]  # engine's windows
    assert "PL302" in rows["logger.tensorboard.port"] and "▆" in rows["logger.tensorboard.port"]


def test_every_line_fits_the_width_and_the_output_is_deterministic(in_root: Path) -> None:
    for width in (60, 100, 160):
        text = _text(Path("fixtures/demo"), width)
        assert all(len(line) <= width for line in text.splitlines())
        assert text == _text(Path("fixtures/demo"), width)


def test_svg_and_html_are_written_and_the_svg_is_well_formed_xml(in_root: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    svg, html = tmp_path / "map.svg", tmp_path / "map.html"
    assert main(["map", "fixtures/demo", "--svg", str(svg), "--html", str(html)]) == 0
    assert capsys.readouterr().out == ""  # the files, not the terminal
    root = ET.parse(svg).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert "ray-dashboard" in svg.read_text(encoding="utf-8")
    assert html.read_text(encoding="utf-8").lstrip().startswith("<!DOCTYPE html>")


def test_an_unwritable_picture_is_one_line_and_exit_2(in_root: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["map", "fixtures/demo", "--svg", str(tmp_path / "missing" / "map.svg")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_overlapping_bands_and_a_colliding_written_range_are_marked(in_root: Path) -> None:
    rows = _rows(_text(CASES / "overlaps" / "repo"))
    assert "✖" in rows["gym"] and "✖" in rows["sandbox"] and "PL201" in rows["gym"]  # one PL201 per group, at its first band
    assert "✖" not in rows["engine"] and "▒" in rows["engine"] and "▒" in rows["sglang-router"]  # shares_with
    assert "╍" in rows["30×100"]


def test_windows_that_run_past_their_band_are_drawn_as_overflow() -> None:
    found = scan(CASES / "overlaps" / "repo")
    windows = {row.key: row for row in maprows.picture(found.layout, found.problems).rows}["window:engine"]
    assert [(m.low, m.high, m.kind) for m in windows.marks] == [(7000, 8999, "window"), (9000, 9999, "overflow")]


def test_thirty_bands_from_80_to_65535_each_get_a_visible_row(in_root: Path) -> None:
    config = (CASES / "thirty-bands" / "repo" / ".portlint.yaml").read_text()
    names = [line.strip().rstrip(":") for line in config.splitlines() if line.startswith("  ") and not line.startswith("    ")]
    assert len(names) == 30
    rows = _rows(_text(CASES / "thirty-bands" / "repo"))
    for name in names:
        assert "█" in rows[name] or "✖" in rows[name], name  # grafana's one port is all overlap
    bars = {name: rows[name].split("▕", 1)[1].split("▏", 1)[0] for name in names}
    assert bars["ray-mgmt"].index("█") < bars["master"].index("█") < bars["high-water"].index("█")
    assert len(set(bars.values())) == 30  # no two bands drawn the same: small ones are not squashed


def test_two_bands_get_their_start_labels_and_empty_stretches_stay_quiet(in_root: Path) -> None:
    text = _text(CASES / "two-bands" / "repo")
    ticks = text.split("▕", 1)[0]
    assert all(label in ticks for label in ("443", "1024", "8000", "32768"))
    rows = _rows(text)
    assert "█" in rows["api"] and "█" in rows["web"]
    assert rows["web"].count("┆") <= 8  # one break mark per empty stretch, not per column


def test_zero_config_map_draws_the_discovered_ranges(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    copy_repo(CASES / "zero-config" / "repo", repo)
    monkeypatch.chdir(repo)
    text = _text(Path("."))
    rows = _rows(text)
    assert "no layout: 6 ranges and ports found" in text
    assert rows["generation.port_range_*"].split()[1] == "3000-5499"
    assert "✖" in rows["METRICS_PORT"] and "PL202" in rows["env.gym.port_range_*"]  # at the group's first site
    assert "ephemeral floor 32768" in text


def test_the_axis_gives_a_small_band_room_beside_huge_empty_stretches() -> None:
    axis = mapaxis.build([(80, 80), (1301, 1312), (7000, 8999), (61000, 65535)], floor=9000, width=40)
    assert len(axis.columns) == 40
    assert len(axis.cells(1301, 1312)) >= 2
    gaps = [c for c in axis.columns if c.gap]
    assert all(c.low != c.high or c.low == 80 for c in gaps)
    assert axis.zone(axis.cells(9000, 9000)[0]) == "ephemeral" and axis.zone(axis.cells(80, 80)[0]) == "privileged"


def test_more_stretches_than_columns_share_columns_in_order() -> None:
    ranges = [(1000 + 10 * i, 1000 + 10 * i + 4) for i in range(100)]
    axis = mapaxis.build(ranges, floor=32768, width=30)
    assert len(axis.columns) == 30
    lows = [c.low for c in axis.columns]
    assert lows == sorted(lows)
    assert all(axis.cells(low, high) for low, high in ranges)


def test_the_committed_picture_is_what_the_command_draws_today(in_root: Path, tmp_path: Path) -> None:
    fresh = tmp_path / "map.svg"
    assert main(["map", "fixtures/demo", "--svg", str(fresh)]) == 0
    committed = ROOT / "docs" / "map.svg"
    assert committed.read_text(encoding="utf-8") == fresh.read_text(encoding="utf-8"), f"regenerate: {REGENERATE}"


def test_the_map_page_shows_the_terminal_picture_of_today(in_root: Path) -> None:
    readme = (ROOT / "docs" / "map.md").read_text(encoding="utf-8")
    block = readme.split("`portlint map fixtures/demo` prints", 1)[1].split("```", 2)[1]
    shown = block.split("\n", 1)[1].strip("\n")  # after the block's info string
    assert shown == _text(Path("fixtures/demo")).strip("\n"), "regenerate the block of docs/map.md with portlint map fixtures/demo"


# -- the map as a figure (issue 12, item 7) ------------------------------------------------------


def _svg(*args: str) -> str:
    # The installed entry point: `python -m portlint` from the checkout would import the source tree,
    # where portlint/rules/ is not yet portlint.rules (CI installs portlint, not editable).
    done = subprocess.run([PORTLINT, "map", *args, "--svg", "/dev/stdout"],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout


def test_the_svg_relies_on_no_space_and_every_text_sits_at_its_column() -> None:
    svg = _svg("fixtures/demo")
    root = ET.fromstring(svg)
    texts = [t for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert texts and "\u00a0" not in svg  # librsvg drops leading no-break spaces
    assert all(t.text and t.text == t.text.strip() for t in texts)
    columns = {round((float(t.get("x")) - 16) / 8.4, 6) for t in texts}
    assert all(c == int(c) for c in columns)  # on the character grid
    words = [t.text for t in texts]
    assert words[:2] == ["portlint", "map"]  # the title's words stay apart


@pytest.mark.slow
def test_no_problems_leaves_the_list_out() -> None:
    with_list, without = _svg("fixtures/demo"), _svg("fixtures/demo", "--no-problems")
    assert ">Problems<" in with_list and ">Problems<" not in without
    assert "drifted" in with_list and "drifted" not in without
    assert ">ray-dashboard<" in without


@pytest.mark.slow
def test_themes_differ_in_background_and_zones() -> None:
    dark, light = _svg("fixtures/demo"), _svg("fixtures/demo", "--theme", "light")
    background = '<rect width="100%" height="100%" fill="{}"/>'
    assert background.format("#292929") in dark and background.format("#ffffff") in light
    assert 'fill="#4a2020"' in dark and 'fill="#f6d8d8"' in light  # the ephemeral zone
    assert 'fill="#4a2020"' not in light and 'fill="#f6d8d8"' not in dark


def test_distinct_names_are_never_cut_to_the_same_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = [f"generation-server-port-range-{end}" for end in ("low-a", "low-b", "high-a")] + ["ray-dashboard-agent-grpc"]
    config = "bands:\n" + "".join(f"  {name}:\n    port: {2000 + i}\n" for i, name in enumerate(names))
    (tmp_path / ".portlint.yaml").write_text(config)
    monkeypatch.chdir(tmp_path)
    text = _text(Path("."))
    shown = [line.split()[0] for line in text.splitlines() if "▕" in line and not line.lstrip().startswith("▕")]
    assert len(shown) == 4 and len(set(shown)) == 4, shown
    assert all(len(label) <= 20 for label in shown)
    for label in shown:  # each reads as its own name: its start and its end
        head, _, tail = label.partition("…")
        assert sum(name.startswith(head) and name.endswith(tail) for name in names) == 1, label


def test_the_axis_names_every_band_edge(in_root: Path) -> None:
    text = _text(Path("fixtures/demo"))
    ticks = " ".join(text.split("▕", 1)[0].splitlines()[3:]).split()
    labels = {word.strip("│") for word in ticks}
    found = scan(DEMO)
    starts = {band.low for band in found.layout.bands}
    for band in found.layout.bands:
        assert str(band.low) in labels, band.name
        if band.high not in starts and band.high + 1 not in starts:
            assert str(band.high) in labels, band.name
    assert {"1024", "9000", "65535"} <= labels
