"""Adopting portlint (issue 12, items 3-5): the repository root, `--config` anywhere and
`KEY = VALUE`, `--show-settings` / `--show-files`, default excludes and the walk outside
git, ruff-like output streams, one-line usage errors with suggestions, `portlint help`.

Every run goes through `python -m portlint` in a child process: what a user types.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

LAYOUT = "bands:\n  web:\n    port: 8080\n    sites: [web.port]\n"
EXCLUDED = "always excluded: .git/ .venv/ venv/ node_modules/ .tox/ .nox/ __pycache__/ build/ dist/ site-packages/ dist-packages/ *.egg-info/"
NOT_IN_GIT = "portlint: not in a git work tree: walked the folder, honouring .gitignore files and the default excludes, entering no git repository inside it\n"


def portlint(cwd: Path, *args: str) -> tuple[int, str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("NO_COLOR", "PORTLINT_TRACEBACK")}
    done = subprocess.run([sys.executable, "-m", "portlint", *args], cwd=cwd, capture_output=True, text=True, env=env)
    return done.returncode, done.stdout, done.stderr


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git work tree whose config lives in .github/, with one drifted site and one unbound."""
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write(root / ".github" / "portlint.yaml", LAYOUT)
    write(root / "svc" / "a.yaml", "web:\n  port: 8081\n")
    write(root / "svc" / "b.yaml", "api:\n  port: 8081\n")
    return root


PROBLEMS_FROM_ROOT = (
    "svc/a.yaml:2:9: PL202 port 8081 written by 2 services: web.port=8081 (band web) at svc/a.yaml:2; "
    "api.port=8081 at svc/b.yaml:2\n"
    "svc/a.yaml:2:9: PL301 [*] web.port=8081 drifted from the layout: band web gives 8080\n"
    "svc/b.yaml:2:9: PL302 api.port=8081 is not claimed by any band of the layout\n"
)


# -- item 3: the root is the git work tree; --config anywhere, KEY = VALUE ---------------------


def test_a_config_in_dot_github_configures_the_repository(repo: Path) -> None:
    assert portlint(repo, "--config", ".github/portlint.yaml") == (
        1, PROBLEMS_FROM_ROOT + "Found 3 problems (1 fixable with --fix).\n", "",
    )


@pytest.mark.slow
def test_from_a_subdirectory_every_path_in_a_message_is_relative_to_it_too(repo: Path) -> None:
    assert portlint(repo / "svc", "--config", "../.github/portlint.yaml") == (1, (
        "a.yaml:2:9: PL202 port 8081 written by 2 services: web.port=8081 (band web) at a.yaml:2; api.port=8081 at b.yaml:2\n"
        "a.yaml:2:9: PL301 [*] web.port=8081 drifted from the layout: band web gives 8080\n"
        "b.yaml:2:9: PL302 api.port=8081 is not claimed by any band of the layout\n"
        "Found 3 problems (1 fixable with --fix).\n"
    ), "")
    code, out, _ = portlint(repo / "svc", "--config", "../.github/portlint.yaml", "--output-format", "json")
    assert [(p["path"], p["message"]) for p in json.loads(out)][0] == (
        "a.yaml", "port 8081 written by 2 services: web.port=8081 (band web) at a.yaml:2; api.port=8081 at b.yaml:2",
    )


def test_a_config_in_a_parent_folder_does_not_make_the_parent_the_repository(repo: Path) -> None:
    parent = repo.parent
    write(parent / "portlint.yaml", LAYOUT)
    write(parent / "elsewhere" / "c.yaml", "web:\n  port: 9999\n")  # another project beside the repository
    code, out, err = portlint(repo, "--config", "../portlint.yaml")
    assert (code, out, err) == (1, PROBLEMS_FROM_ROOT + "Found 3 problems (1 fixable with --fix).\n", "")


def test_config_key_value_overrides_one_setting_and_repeats(repo: Path) -> None:
    code, out, _ = portlint(
        repo, "--config", ".github/portlint.yaml", "--config", "ephemeral_floor = 8000",
        "--config", "bands.web.port = 8081", "--select", "PL101,PL301",
    )
    assert (code, out) == (1, (
        ".github/portlint.yaml:2:3: PL101 band web (8081) reaches the ephemeral range (8000+)\n"
        "svc/a.yaml:2:9: PL101 web.port=8081 reaches the ephemeral range (8000+)\n"
        "svc/b.yaml:2:9: PL101 api.port=8081 reaches the ephemeral range (8000+)\n"
        "Found 3 problems.\n"
    ))


def test_config_key_value_without_a_config_file(repo: Path) -> None:
    # Not given as the config, .github/portlint.yaml is one more YAML file with a port in it.
    assert portlint(repo, "--config", "ephemeral_floor = 8000", "--select", "PL101") == (1, (
        ".github/portlint.yaml:3:11: PL101 bands.web.port=8080 reaches the ephemeral range (8000+)\n"
        "svc/a.yaml:2:9: PL101 web.port=8081 reaches the ephemeral range (8000+)\n"
        "svc/b.yaml:2:9: PL101 api.port=8081 reaches the ephemeral range (8000+)\n"
        "Found 3 problems.\n"
    ), "")


@pytest.mark.parametrize(("value", "error"), [
    ("ephemeral_floor = ", '--config "ephemeral_floor = ": expected a config file or a TOML KEY = VALUE setting: Invalid value (at end of document)'),
    ("bands.web.port = [1", '--config "bands.web.port = [1": expected a config file or a TOML KEY = VALUE setting: Unclosed array (at end of document)'),
    ("ephemeral_floor = 70000", '--config "ephemeral_floor = 70000": ephemeral_floor: expected an integer 1..65535, got 70000'),
    ("bands.web.port = 0", '--config "bands.web.port = 0": bands.web.port: expected an integer 1..65535, got 0'),
    ("ephemeral_flor = 9000", '--config "ephemeral_flor = 9000": unknown key "ephemeral_flor"; did you mean "ephemeral_floor"?'),
    ("nope.yaml", "--config: expected one config file, got 2: .github/portlint.yaml, nope.yaml"),
])
def test_a_bad_config_override_is_one_line_naming_it(repo: Path, value: str, error: str) -> None:
    assert portlint(repo, "--config", ".github/portlint.yaml", "--config", value) == (2, "", f"portlint: error: {error}\n")


def test_a_missing_config_file_is_one_line(repo: Path) -> None:
    assert portlint(repo, "--config", "nope.yaml") == (2, "", "portlint: error: nope.yaml: config file not found\n")


def test_show_settings_prints_each_value_and_where_it_came_from(repo: Path) -> None:
    assert portlint(repo / "svc", "--config", "../.github/portlint.yaml", "--config", "exclude = ['gen/**']",
                    "--show-settings") == (0, (
        f"# root: {repo} (git work tree)\n"
        "# config: ../.github/portlint.yaml\n"
        f"# {EXCLUDED}\n"
        "# extend: not set  # default\n"
        "ephemeral_floor = 32768  # default\n"
        'include = ["**/*.yaml", "**/*.yml", "**/*.sh", "**/*.bash", "**/*.sub", "**/*.sbatch", "**/*.py", "**/*.md"]  # default\n'
        'exclude = ["gen/**"]  # --config "exclude = [\'gen/**\']"\n'
        'test_paths = ["tests/", "test/", "testing/", "test_*.py", "*_test.py", "conftest.py", "fixtures/", "testdata/"]'
        "  # default\n"
        'bands.web = {port = 8080, sites = ["web.port"]}  # ../.github/portlint.yaml:2\n'
        "frozen = []  # default\n"
        "# select: not set  # default\n"
        "extend_select = []  # default\n"
        "ignore = []  # default\n"
        "per_file_ignores = {}  # default\n"
    ), "")


def test_show_settings_reads_positions_from_toml_too(repo: Path) -> None:
    write(repo / "pyproject.toml", '[project]\nname = "x"\n\n[tool.portlint]\nephemeral_floor = 9000\n\n'
                                   '[tool.portlint.bands.web]\nport = 8080\n')
    code, out, _ = portlint(repo, "--show-settings")
    assert code == 0
    assert "ephemeral_floor = 9000  # pyproject.toml:5\n" in out
    assert "bands.web = {port = 8080}  # pyproject.toml:7\n" in out


def test_show_files_lists_what_would_be_checked_and_its_kind(repo: Path) -> None:
    write(repo / "run.sh", "#!/bin/sh\n")
    write(repo / "tool", "#!/usr/bin/env bash\n")  # no suffix: a shell shebang
    write(repo / "README.md", "# x\n")
    write(repo / "notes.txt", "port 1\n")
    write(repo / ".venv" / "lib" / "x.py", "PORT = 1\n")
    assert portlint(repo, "--config", ".github/portlint.yaml", "--show-files") == (0, (
        "markdown README.md\n"
        "shell    run.sh\n"
        "yaml     svc/a.yaml\n"
        "yaml     svc/b.yaml\n"
        "shell    tool\n"
    ), "")
    assert portlint(repo / "svc", "--show-files", "a.yaml") == (0, "yaml     a.yaml\n", "")


# -- item 4: default excludes, the walk outside git -------------------------------------------


def test_default_excludes_apply_in_git(repo: Path) -> None:
    for folder in (".venv/lib", "venv", "node_modules/x", ".tox/py", ".nox/s", "__pycache__", "build", "dist",
                   "lib/site-packages/pkg", "pkg.egg-info"):
        write(repo / folder / "c.yaml", "web:\n  port: 9999\n")
    assert portlint(repo, "--config", ".github/portlint.yaml") == (
        1, PROBLEMS_FROM_ROOT + "Found 3 problems (1 fixable with --fix).\n", "",
    )


@pytest.mark.slow
def test_outside_git_the_walk_honours_gitignore_files_and_the_defaults_and_says_so(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    write(root / ".portlint.yaml", LAYOUT)
    write(root / "svc" / "a.yaml", "web:\n  port: 8081\n")
    write(root / ".gitignore", "generated/\n*.tmp.yaml\n")
    write(root / "generated" / "x.yaml", "web:\n  port: 1\n")
    write(root / "svc" / "y.tmp.yaml", "web:\n  port: 2\n")
    write(root / "svc" / ".gitignore", "local.yaml\n!keep.tmp.yaml\n")
    write(root / "svc" / "local.yaml", "web:\n  port: 3\n")
    write(root / "svc" / "keep.tmp.yaml", "web:\n  port: 4\n")
    write(root / "node_modules" / "m" / "z.yaml", "web:\n  port: 5\n")
    write(root / ".venv" / "lib" / "site.py", "PORT = 6\n")
    assert portlint(root / "svc", "--select", "PL301") == (1, (
        "a.yaml:2:9: PL301 [*] web.port=8081 drifted from the layout: band web gives 8080\n"
        "keep.tmp.yaml:2:9: PL301 [*] web.port=4 drifted from the layout: band web gives 8080\n"
        "Found 2 problems (2 fixable with --fix).\n"
    ), NOT_IN_GIT)
    assert portlint(root, "--show-files") == (0, "yaml     svc/a.yaml\nyaml     svc/keep.tmp.yaml\n", NOT_IN_GIT)
    assert portlint(root, "--quiet", "--select", "PL301")[2] == ""


# -- item 5: output streams ------------------------------------------------------------------


DIFF = (
    "--- a/svc/a.yaml\n"
    "+++ b/svc/a.yaml\n"
    "@@ -1,2 +1,2 @@\n"
    " web:\n"
    "-  port: 8081\n"
    "+  port: 8080\n"
)


def test_diff_prints_only_the_diff_on_stdout_and_the_summary_on_stderr(repo: Path) -> None:
    assert portlint(repo, "--config", ".github/portlint.yaml", "--diff") == (
        1, DIFF, "Would fix 1 problem. Found 1 problem.\n",
    )
    assert (repo / "svc" / "a.yaml").read_text() == "web:\n  port: 8081\n"  # nothing written


@pytest.mark.slow
@pytest.mark.parametrize("where", [".", "svc"])
def test_the_diff_applies_with_git_apply(repo: Path, where: str) -> None:
    cwd = repo / where
    config = os.path.relpath(repo / ".github" / "portlint.yaml", cwd)
    write(repo / "svc" / "c.yaml", "web:\n  port: 8082")  # no newline at the end
    # Characters str.splitlines() takes for line ends, CRLF ends: git knows only \n.
    (repo / "svc" / "d.py").write_bytes("# form\x0cfeed, line\u2028separator\r\nWEB_PORT = 8083\r\n".encode())
    sites = 'bands.web.sites = ["web.port", "WEB_PORT"]'
    patch = subprocess.run([sys.executable, "-m", "portlint", "--config", config, "--config", sites, "--diff"],
                           cwd=cwd, capture_output=True).stdout  # bytes: the CRLF ends as printed
    (repo.parent / "fix.patch").write_bytes(patch)
    subprocess.run(["git", "apply", str(repo.parent / "fix.patch")], cwd=cwd, check=True)
    assert (repo / "svc" / "a.yaml").read_text() == "web:\n  port: 8080\n"
    assert (repo / "svc" / "c.yaml").read_text() == "web:\n  port: 8080"
    assert (repo / "svc" / "d.py").read_bytes() == "# form\x0cfeed, line\u2028separator\r\nWEB_PORT = 8080\r\n".encode()
    assert portlint(cwd, "--config", config, "--config", sites, "--select", "PL301") == (0, "All checks passed!\n", "")


@pytest.mark.parametrize(("args", "error"), [
    (("--output-format", "json"), "--diff prints a unified diff; it does not combine with --output-format json"),
    (("--statistics",), "--diff prints a unified diff; it does not combine with --statistics"),
])
def test_diff_with_a_machine_format_is_a_clear_error(repo: Path, args: tuple[str, ...], error: str) -> None:
    assert portlint(repo, "--diff", *args) == (2, "", f"portlint: error: {error}\n")


def test_output_file_takes_the_report(repo: Path) -> None:
    target = repo.parent / "report.json"
    code, out, err = portlint(repo, "--config", ".github/portlint.yaml", "--output-format", "json", "--output-file", str(target))
    assert (code, out, err) == (1, "", "")
    assert [p["code"] for p in json.loads(target.read_text())] == ["PL202", "PL301", "PL302"]
    text = repo.parent / "report.txt"
    assert portlint(repo, "--config", ".github/portlint.yaml", "--output-file", str(text)) == (1, "", "")
    assert text.read_text() == PROBLEMS_FROM_ROOT + "Found 3 problems (1 fixable with --fix).\n"


def test_an_output_file_that_cannot_be_written_is_one_line(repo: Path) -> None:
    code, out, err = portlint(repo, "--output-file", "missing/dir/report.txt")
    assert (code, out) == (2, "")
    assert err.startswith("portlint: error: Could not open file 'missing/dir/report.txt': ") and err.count("\n") == 1


# -- item 5: usage errors, suggestions, help ------------------------------------------------------


@pytest.mark.parametrize(("args", "error"), [
    (("chekc",), 'unknown command "chekc"; did you mean "check"?'),
    (("inti",), 'unknown command "inti"; did you mean "init"?'),
    (("--fxi",), 'unknown option --fxi; did you mean "--fix"?'),
    (("check", "--selct", "PL101"), 'unknown option --selct; did you mean "--select"?'),
    (("--select", "PL1O1"), "Invalid value for '--select': unknown rule PL1O1; did you mean PL101?"),
    (("--output-format", "xml"), "Invalid value for '--output-format': 'xml' is not one of 'text', 'json', 'sarif', 'github'."),
    (("no/such/path",), "Invalid value for '[PATHS]...': Path 'no/such/path' does not exist."),
    (("help", "mpa"), 'unknown command "mpa"; did you mean "map"?'),
    (("rule", "--all", "--nope"), "unknown option --nope"),
])
def test_usage_errors_are_one_line_with_a_suggestion(repo: Path, args: tuple[str, ...], error: str) -> None:
    assert portlint(repo, *args) == (2, "", f"portlint: error: {error}\n")


def test_a_file_named_like_a_command_is_still_a_path(repo: Path) -> None:
    write(repo / "chekc", "#!/bin/sh\nPORT=8081\n")
    code, out, err = portlint(repo, "chekc")
    assert (code, err) == (0, "") and out == "All checks passed!\n"


@pytest.mark.slow
def test_help_prints_the_help_of_portlint_and_of_a_command(repo: Path) -> None:
    code, out, err = portlint(repo, "help")
    assert (code, err) == (0, "") and out.startswith("Usage: portlint [OPTIONS] COMMAND [ARGS]...\n")
    assert portlint(repo, "help")[1] == portlint(repo, "--help")[1]
    code, out, err = portlint(repo, "help", "check")
    assert (code, err) == (0, "") and out == portlint(repo, "check", "--help")[1]
    assert out.startswith("Usage: portlint check [OPTIONS] [PATHS]...\n") and "--show-settings" in out


def test_outside_git_the_walk_enters_no_repository_inside_the_folder(tmp_path: Path) -> None:
    root = tmp_path / "folder"
    write(root / ".portlint.yaml", LAYOUT)
    write(root / "a.yaml", "web:\n  port: 8081\n")
    subprocess.run(["git", "init", "-q", str(root / "other-repo")], check=True)
    write(root / "other-repo" / "b.yaml", "web:\n  port: 8082\n")
    assert portlint(root, "--show-files") == (0, "yaml     a.yaml\n", NOT_IN_GIT)


def test_a_walk_past_the_file_limit_stops_with_one_line(tmp_path: Path) -> None:
    root = tmp_path / "big"
    for index in range(5):
        write(root / f"f{index}.yaml", "x: 1\n")
    write(root / "notes.txt", "not a file portlint checks: not counted\n")
    script = ("import sys; from portlint.stages import discover; discover.MAX_WALKED = 4; "
              "from portlint.cli import main; sys.exit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", (
        f"portlint: error: {root}: more than 4 files to check outside a git work tree; "
        "run portlint in a repository or a smaller folder\n"
    ))
    (root / "f4.yaml").unlink()
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "All checks passed!\n")


def test_message_paths_follow_the_leading_path_even_for_a_missing_file(tmp_path: Path) -> None:
    from portlint.model.problems import Problem
    from portlint.report import Context

    write(tmp_path / "examples" / "configs" / "a.yaml", "x: 1\n")
    problem = Problem("examples/configs/a.yaml", 1, 1, "PL001",
                      "cannot check this file: missing parent: examples/configs/a.yaml -> examples/common/base.yaml; "
                      "env.gym.port_range_* 1.5 README.md")
    (tmp_path / "examples" / "common").mkdir()
    below = Context(tmp_path, tmp_path / "examples" / "configs")
    assert below.message(problem) == (
        "cannot check this file: missing parent: a.yaml -> ../common/base.yaml; env.gym.port_range_* 1.5 README.md"
    )
    assert Context(tmp_path, tmp_path).message(problem) == problem.message


def test_a_diff_reaching_outside_the_working_directory_is_rooted_at_the_repository(tmp_path: Path) -> None:
    root = tmp_path / "frozen"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write(root / ".portlint.yaml", LAYOUT + "frozen:\n  - {copies: 'tests/*.yaml', source: 'examples/{name}'}\n")
    write(root / "examples" / "a.yaml", "web:\n  port: 8080\n")
    write(root / "tests" / "a.yaml", "web:\n  port: 8081\n")
    code, patch, err = portlint(root / "examples", "--diff")
    assert (code, err) == (1, (
        f"portlint: the diff changes files outside the working directory: its paths are relative to {root}; "
        "apply it there\nWould fix 1 problem. No problems would remain.\n"
    ))
    assert patch.startswith("--- a/tests/a.yaml\n+++ b/tests/a.yaml\n")
    (tmp_path / "fix.patch").write_text(patch)
    subprocess.run(["git", "apply", str(tmp_path / "fix.patch")], cwd=root, check=True)
    assert (root / "tests" / "a.yaml").read_text() == "web:\n  port: 8080\n"
