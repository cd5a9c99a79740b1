"""Configuration as ruff users expect it: `select`, `ignore`, `extend_select` and `per_file_ignores`
in the config file (ruff's spellings `extend-select` and `per-file-ignores` too), the command
line over them, `extend:` of a shared config, and config files in subfolders never ignored
silently. Each run goes through `main`, as a user's would, in a small git repository."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from portlint.cli import main
from portlint.config.selection import Selection, enabled, resolve
from portlint.model.codes import CHECK_CODES

LAYOUT = "ephemeral_floor: 9000\nbands:\n  web:\n    port: 8080\n    sites: [web.port]\n"
SITES = "web:\n  port: 8081\nother:\n  port: 9100\n"  # PL301 on line 2; PL101 and PL302 on line 4


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write(root / "configs" / "a.yaml", SITES)
    monkeypatch.chdir(root)
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    """Exit code, the codes reported (in order), stderr."""
    capsys.readouterr()
    code = main(list(args))
    captured = capsys.readouterr()
    codes = [line.split(": ", 1)[1].split()[0] for line in captured.out.splitlines() if ": PL" in line]
    return code, codes, captured.err


def config(repo: Path, extra: str, name: str = ".portlint.yaml") -> None:
    write(repo / name, LAYOUT + extra)


# -- select / ignore / extend_select ------------------------------------------------------------


@pytest.mark.parametrize(("extra", "expected"), [
    ("", ["PL301", "PL101", "PL302"]),
    ("select: [PL3]\n", ["PL301", "PL302"]),
    ("ignore: [PL302]\n", ["PL301", "PL101"]),
    ("select: [PL1]\nextend_select: [PL301]\n", ["PL301", "PL101"]),
    ("select: [PL1]\nextend-select: [PL301]\n", ["PL301", "PL101"]),  # ruff's spelling
    ("select: [PL3]\nignore: [PL302]\n", ["PL301"]),  # the more specific wins: the ignore
    ("select: [PL301]\nignore: [PL3]\n", ["PL301"]),  # the more specific wins: the select
    ("select: [ALL]\nignore: [PL1]\n", ["PL301", "PL302"]),
])
def test_the_config_selects_and_ignores_rules(repo: Path, capsys: pytest.CaptureFixture[str],
                                              extra: str, expected: list[str]) -> None:
    config(repo, extra)
    assert run(capsys)[:2] == (1, expected)


@pytest.mark.parametrize(("extra", "args", "expected"), [
    ("select: [PL1]\n", ["--select", "PL3"], ["PL301", "PL302"]),  # --select replaces
    ("select: [PL1]\nignore: [PL101]\n", ["--select", "PL1"], ["PL101"]),  # ... the config's ignore too, as ruff's
    ("select: [PL1]\n", ["--extend-select", "PL302"], ["PL101", "PL302"]),  # --extend-select adds
    ("ignore: [PL302]\n", ["--ignore", "PL101"], ["PL301"]),  # --ignore adds
    ("ignore: [PL3]\n", ["--extend-select", "PL301"], ["PL301", "PL101"]),  # a later layer selects again
])
def test_the_command_line_goes_over_the_config_as_ruff_s_does(
    repo: Path, capsys: pytest.CaptureFixture[str], extra: str, args: list[str], expected: list[str],
) -> None:
    config(repo, extra)
    assert run(capsys, *args)[:2] == (1, expected)


def test_pyproject_takes_the_same_keys(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(repo / "pyproject.toml", (
        '[tool.portlint]\nephemeral_floor = 9000\nselect = ["PL1"]\nextend-select = ["PL302"]\n'
        '[tool.portlint.bands.web]\nport = 8080\nsites = ["web.port"]\n'
        '[tool.portlint.per-file-ignores]\n"configs/**" = ["PL101"]\n'
    ))
    assert run(capsys)[:2] == (1, ["PL302"])


@pytest.mark.parametrize("key", ["per_file_ignores", "per-file-ignores"])
def test_per_file_ignores_in_either_spelling(repo: Path, capsys: pytest.CaptureFixture[str], key: str) -> None:
    config(repo, f'{key}:\n  "configs/**": [PL1, PL302]\n')
    assert run(capsys)[:2] == (1, ["PL301"])


@pytest.mark.parametrize(("extra", "error"), [
    ("select: [PL999]\n", ".portlint.yaml: select[0]: unknown rule PL999"),
    ("extend-select: [PL31]\n", ".portlint.yaml: extend-select[0]: unknown rule PL31; did you mean PL301?"),
    ("ignore: PL1\n", '.portlint.yaml: ignore: expected a list, got "PL1"'),
    ("select: [E501]\n", '.portlint.yaml: select[0]: expected a rule code such as "PL301", a prefix such as "PL3", or "ALL", got "E501"'),
    ('per-file-ignores: {"docs/**": [PL77]}\n', '.portlint.yaml: per-file-ignores."docs/**"[0]: unknown rule PL77'),
    ("extend_select: [PL1]\nextend-select: [PL2]\n",
     '.portlint.yaml: extend-select: expected one of "extend_select" or "extend-select", got both'),
])
def test_a_bad_value_is_one_line_naming_the_key(repo: Path, capsys: pytest.CaptureFixture[str],
                                               extra: str, error: str) -> None:
    config(repo, extra)
    assert run(capsys) == (2, [], f"portlint: error: {error}\n")


def test_selection_layers_resolve_as_ruff_s() -> None:
    codes = ("PL101", "PL102", "PL301", "PL302")
    assert enabled([Selection(("PL3",), (), ("PL302",))], codes) == {"PL301"}
    assert enabled([Selection(None, (), ("PL1",)), Selection(None, ("PL102",), ())], codes) == {"PL102", "PL301", "PL302"}
    assert enabled([Selection(("PL1",)), Selection(())], codes) == set()  # select: [] selects nothing
    # What the engine takes: the ignore as written when it says the same, else the codes left out.
    assert resolve([Selection(None, (), ("PL3",))], codes) == ((), ("PL3",))
    assert resolve([Selection(("PL3",), (), ("PL3",)), Selection(None, ("PL301",))], codes) == (("PL3", "PL301"), ("PL302",))
    assert resolve([], CHECK_CODES) == ((), ())


# -- extend ------------------------------------------------------------------------------------


def test_extend_inherits_a_shared_config_and_overrides_it(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(repo / "shared" / "base.yaml", LAYOUT + "  db:\n    port: 5432\nignore: [PL302]\n")
    write(repo / ".portlint.yaml", "extend: shared/base.yaml\nbands:\n  web:\n    port: 8081\n    sites: [web.port]\n")
    # The floor and the ignore come from the base; web is this file's (8081: no drift); db is inherited.
    # The inherited band no site binds is reported at this file's `extend` line; the base file,
    # part of the layout, is not read for sites.
    capsys.readouterr()
    assert main([]) == 1
    assert capsys.readouterr().out == (
        ".portlint.yaml:1:1: PL003 band db has no site: it names no sites and no ports\n"
        "configs/a.yaml:4:9: PL101 other.port=9100 reaches the ephemeral range (9000+)\n"
        "Found 2 problems.\n"
    )


def test_extend_resolves_relative_to_the_file_and_chains(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(repo / "shared" / "floor.yaml", "ephemeral_floor: 9000\n")
    write(repo / "shared" / "base.yaml", "extend: floor.yaml\nbands:\n  web:\n    port: 8080\n    sites: [web.port]\n")
    write(repo / "svc" / ".portlint.yaml", "extend: ../shared/base.yaml\nselect: [PL1, PL3]\nignore: [PL302]\n")
    write(repo / "svc" / "a.yaml", SITES)
    monkeypatch_dir = repo / "svc"
    assert run(capsys, str(monkeypatch_dir))[:2] == (1, ["PL301", "PL101"])


@pytest.mark.parametrize(("files", "error"), [
    ({".portlint.yaml": "extend: ../outside.yaml\n"},
     '.portlint.yaml: extend: expected a config file inside the work tree ({root}), got "../outside.yaml"'),
    ({".portlint.yaml": "extend: nope.yaml\n"}, '.portlint.yaml: extend: no such config file: "nope.yaml"'),
    ({".portlint.yaml": "extend: b.yaml\n", "b.yaml": "extend: .portlint.yaml\n"},
     "b.yaml: extend: expected no cycle, got .portlint.yaml -> b.yaml -> .portlint.yaml"),
    ({".portlint.yaml": "extend: .portlint.yaml\n"}, ".portlint.yaml: extend: expected no cycle, got .portlint.yaml -> .portlint.yaml"),
    ({".portlint.yaml": "extend: b.yaml\n", "b.yaml": "bands:\n  web:\n    port: 0\n"},
     "b.yaml: bands.web.port: expected an integer 1..65535, got 0"),
    ({".portlint.yaml": "extend: b.yaml\n", "b.yaml": "bands:\n  web:\n    port: 80\n    within: db\n"},
     'b.yaml: bands.web.within: unknown band "db"'),
    ({".portlint.yaml": "extend: 7\n"}, ".portlint.yaml: extend: expected a path to another config file, got 7"),
])
def test_a_bad_extend_is_one_line(repo: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str], error: str) -> None:
    write(repo.parent / "outside.yaml", LAYOUT)
    for name, text in files.items():
        write(repo / name, text)
    assert run(capsys) == (2, [], f"portlint: error: {error.format(root=repo)}\n")


def test_extend_from_pyproject_to_a_yaml_file(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(repo / "shared.yaml", LAYOUT)
    write(repo / "pyproject.toml", '[tool.portlint]\nextend = "shared.yaml"\nselect = ["PL3"]\n')
    assert run(capsys)[:2] == (1, ["PL301", "PL302"])


# -- config files in subfolders ------------------------------------------------------------------


def test_a_config_in_a_subfolder_is_named_when_the_run_does_not_use_it(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config(repo, "")
    write(repo / "svc" / ".portlint.yaml", LAYOUT)
    write(repo / "svc" / "b.yaml", "web:\n  port: 8080\n")
    _, _, err = run(capsys)
    assert err == ("portlint: svc/.portlint.yaml is not used: this run's config is .portlint.yaml; "
                   "to check svc/ with it, run portlint there (or exclude svc/)\n")
    _, _, err = run(capsys, "svc")  # a path below it: that config governs the run, and is rooted there
    assert err == ""
    _, _, err = run(capsys, "-q")
    assert err == ""


def test_many_unused_configs_are_one_line(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for folder in ("a", "b", "c", "d"):
        write(repo / folder / "portlint.toml", "ephemeral_floor = 9000\n")
    write(repo / "e" / "pyproject.toml", "[project]\nname = 'e'\n")  # configures no portlint
    write(repo / "vendor" / ".portlint.yaml", LAYOUT)
    write(repo / ".portlint.yaml", LAYOUT + "exclude: [vendor/**]\n")  # an excluded folder's config governs nothing
    _, _, err = run(capsys)
    assert err == ("portlint: 4 config files in subfolders are not used (a/portlint.toml, b/portlint.toml, "
                   "c/portlint.toml, ...): this run's config is .portlint.yaml; to check a folder with its "
                   "own config, run portlint there (or exclude it)\n")


def test_a_config_that_is_extended_is_used(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(repo / "shared" / ".portlint.yaml", LAYOUT)
    write(repo / ".portlint.yaml", "extend: shared/.portlint.yaml\n")
    assert run(capsys)[2] == ""


def test_without_a_config_at_the_root_a_subfolder_s_is_named(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(repo / "svc" / ".portlint.yaml", LAYOUT)
    assert run(capsys)[2] == (
        "portlint: svc/.portlint.yaml is not used: this run has no config; "
        "to check svc/ with it, run portlint there (or exclude svc/)\n"
    )


def test_outside_git_the_configs_below_are_found_by_a_walk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "plain"
    write(root / ".portlint.yaml", LAYOUT)
    write(root / "svc" / ".portlint.yml", LAYOUT)
    write(root / "node_modules" / "x" / ".portlint.yaml", LAYOUT)  # a default exclude
    monkeypatch.chdir(root)
    err = run(capsys)[2]
    assert "portlint: svc/.portlint.yml is not used: this run's config is .portlint.yaml;" in err
    assert "node_modules" not in err
