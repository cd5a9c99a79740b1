"""PL003 unused-config: config entries that match nothing are problems at their line, not silent no-ops."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from portlint.cli import main
from portlint.config.positions import toml_positions

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"


def _repo(root: Path, files: dict[str, str]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    return root


def _run(root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str):
    monkeypatch.chdir(root)
    capsys.readouterr()
    code = main(["--no-color", *args])
    return code, capsys.readouterr().out


def test_zero_config_gains_no_pl003(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    demo = tmp_path / "demo"
    shutil.copytree(DEMO, demo)
    (demo / ".portlint.yaml").unlink()
    assert _run(demo, monkeypatch, capsys, "--select", "PL003") == (0, "All checks passed!\n")


def test_the_demo_layout_uses_every_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    demo = tmp_path / "demo"
    shutil.copytree(DEMO, demo)
    assert _run(demo, monkeypatch, capsys, "--select", "PL003") == (0, "All checks passed!\n")


def test_init_writes_a_config_that_uses_every_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    demo = tmp_path / "demo"
    shutil.copytree(DEMO, demo)
    (demo / ".portlint.yaml").unlink()
    monkeypatch.chdir(demo)
    assert main(["init"]) == 0
    assert _run(demo, monkeypatch, capsys, "--select", "PL003") == (0, "All checks passed!\n")


def test_a_select_that_checks_nothing_fails_ci_and_ignore_silences_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, {"a.yaml": "master_port: 1400\n"})
    message = ("--select PL301 checks nothing: PL301 needs a declared layout (bands:), and no config file "
               "was found")
    assert _run(repo, monkeypatch, capsys, "--select", "PL301") == (1, f".:1:1: PL003 {message}\nFound 1 problem.\n")
    assert _run(repo, monkeypatch, capsys, "--select", "PL301", "--ignore", "PL003") == (0, "All checks passed!\n")
    assert _run(repo, monkeypatch, capsys, "--select", "PL1") == (0, "All checks passed!\n")  # PL101 runs, PL103 not
    assert _run(repo, monkeypatch, capsys, "--select", "ALL") == (0, "All checks passed!\n")


def test_a_config_problem_is_reported_at_its_entry_and_ignored_per_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    layout = "bands:\n  master:\n    range: 1400-1999\n    sites: [master_port, MASTER_PORT_LO]\n"
    repo = _repo(tmp_path, {".portlint.yaml": layout, "a.yaml": "master_port: 1400\n", "b.py": "MASTER_PORT_LOW = 1400\n"})
    code, out = _run(repo, monkeypatch, capsys, "--select", "PL003")
    assert (code, out) == (1, ".portlint.yaml:4:26: PL003 site selector MASTER_PORT_LO of band master matches no "
                              "site; did you mean MASTER_PORT_LOW?\nFound 1 problem.\n")
    (repo / ".portlint.yaml").write_text(layout + 'per_file_ignores: {".portlint.yaml": [PL003]}\n')
    assert _run(repo, monkeypatch, capsys, "--select", "PL003") == (0, "All checks passed!\n")


def test_include_patterns_that_name_no_kind_drop_nothing_on_purpose(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An include list that leaves Markdown out says so; one whose `*.yml` finds no file is a mistake."""
    layout = "bands:\n  master:\n    range: 1400-1999\n    sites: [master_port]\n"
    repo = _repo(tmp_path, {"a.yaml": "master_port: 1400\n", "docs/a.md": "`master_port=1400`\n"})
    (repo / ".portlint.yaml").write_text('include: ["**/*.yaml"]\n' + layout)
    assert _run(repo, monkeypatch, capsys, "--select", "PL003") == (0, "All checks passed!\n")
    (repo / ".portlint.yaml").write_text('include: ["**/*.yaml", "docs/*.markdown"]\n' + layout)
    code, out = _run(repo, monkeypatch, capsys, "--select", "PL003")
    assert out.splitlines()[0] == (
        '.portlint.yaml:1:24: PL003 include "docs/*.markdown" leaves no markdown file to check: it does not match '
        "the repository's only markdown file (docs/a.md)"
    )


def test_a_pyproject_config_is_located_below_tool_portlint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = (
        '[project]\nname = "x"\n\n[tool.portlint]\nexclude = ["docs/**"]\n\n'
        '[tool.portlint.bands.master]\nrange = "1400-1999"\nsites = ["master_port"]\n'
    )
    repo = _repo(tmp_path, {"pyproject.toml": pyproject, "a.yaml": "master_port: 1400\n", "docs/a.md": "x\n"})
    assert _run(repo, monkeypatch, capsys, "--select", "PL003") == (1, (
        'pyproject.toml:5:12: PL003 exclude "docs/**" leaves no markdown file to check: it drops the '
        "repository's only markdown file (docs/a.md)\nFound 1 problem.\n"
    ))


def test_toml_positions_follow_the_grammar_not_the_lines() -> None:
    text = (
        '# a comment [not.a.table]\n'
        'include = [\n  "**/*.yaml",  # YAML\n  \'**/*.py\',\n]\n'
        'description = """\n[bands.fake]\n"""\n'
        '[bands."ray.mgmt"]\nports = { A = 1301, "B" = 1303 }\n'
        '[[frozen]]\ncopies = "a/*.yaml"\n'
        '[[frozen]]\n  copies = "b/*.yaml"\n'
        'bands.gym.sites = [{name = "x", files = ["p/**"]}, "y"]\n'
    )
    found = toml_positions(text)
    assert found[("include", 0)] == (3, 3) and found[("include", 1)] == (4, 3)
    assert ("bands", "fake") not in found
    assert found[("bands", "ray.mgmt")] == (9, 9)
    assert found[("bands", "ray.mgmt", "ports", "A")] == (10, 11)
    assert found[("bands", "ray.mgmt", "ports", "B")] == (10, 22)
    assert found[("frozen", 0, "copies")] == (12, 1) and found[("frozen", 1, "copies")] == (14, 3)
    assert found[("frozen", 1, "bands", "gym", "sites", 0, "name")] == (15, 21)
    assert found[("frozen", 1, "bands", "gym", "sites", 1)] == (15, 52)


def test_toml_positions_never_raise_on_shapes_they_do_not_follow() -> None:
    found = toml_positions('a = 1\nb = [1, 2\n')  # not TOML (tomllib refuses it): what was read before stays
    assert found[("a",)] == (1, 1) and found[("b", 1)] == (2, 9)
