"""Security: scanned files are data, the config cannot reach outside the repository,
and nothing taken from a file can drive the terminal that shows portlint's output.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import portlint.cli
from portlint.cli import main

LAYOUT = """\
ephemeral_floor: 9000
bands:
  master:
    range: 1400-1999
    sites: [master_port_range_low, MASTER_PORT_RANGE_LOW, master_port]
"""


def run(repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, str]:
    monkeypatch.chdir(repo)
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    assert "internal error" not in err, err
    return code, out, err


# -- scanned code is never imported or executed ------------------------------------
def _booby_trapped_repo(root: Path, marker: Path) -> Path:
    """Files that would create `marker` if anything imported, ran, sourced or loaded them."""
    root.mkdir()
    (root / ".portlint.yaml").write_text(LAYOUT)
    trap = f"open({str(marker)!r}, 'w').write('executed')\n"
    (root / "ports.py").write_text(f"{trap}MASTER_PORT_RANGE_LOW = 1500\nimport socket\ns = socket.socket()\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text(trap)
    (root / "pkg" / "conf.py").write_text(f"from . import *\n{trap}def serve(master_port=1500):\n    {trap}")
    (root / "conftest.py").write_text(trap + "master_port = 1500\n")
    (root / "setup.py").write_text(trap + "master_port = 1500\n")
    (root / "run.sh").write_text(f"#!/bin/sh\ntouch {marker}\nmaster_port=1500\n$(touch {marker})\n")
    (root / "noext").write_text(f"#!/bin/bash\ntouch {marker}\nmaster_port=1500\n")
    (root / "tagged.yaml").write_text(
        f"exploit: !!python/object/apply:os.system ['touch {marker}']\n"
        f"new: !!python/object/new:os.system ['touch {marker}']\n"
        "name: !!python/name:os.system\n"
        f"module: !!python/module:os\n"
        "cluster:\n  master_port_range_low: 1500\n"
    )
    (root / "README.md").write_text(f"```python\n{trap}```\n\n| `MASTER_PORT_RANGE_LOW=1500` |\n")
    return root


@pytest.mark.parametrize("args", [[], ["--fix"], ["--fix", "--unsafe-fixes"], ["--output-format", "sarif"]])
def test_scanned_files_are_never_imported_run_or_constructed(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "executed.marker"
    repo = _booby_trapped_repo(tmp_path / "repo", marker)
    modules_before = set(sys.modules)
    code, out, _ = run(repo, capsys, monkeypatch, *args)
    assert code in (0, 1)
    assert not marker.exists(), "portlint executed a scanned file"
    assert not {"ports", "pkg", "conftest", "setup"} & (set(sys.modules) - modules_before)
    if not args:  # the trapped files were still read as data
        assert "tagged.yaml:6:26: PL301" in out and "ports.py:2:25: PL301" in out, out


def test_a_python_object_tag_in_the_config_is_not_constructed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "executed.marker"
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".portlint.yaml").write_text(
        f"ephemeral_floor: !!python/object/apply:os.system ['touch {marker}']\nbands: {{}}\n"
    )
    code, _, err = run(repo, capsys, monkeypatch)
    assert code == 2 and err.startswith("portlint: error: .portlint.yaml: ephemeral_floor")
    assert not marker.exists()


@pytest.mark.slow
def test_nothing_is_executed_in_a_separate_process_either(tmp_path: Path) -> None:
    marker = tmp_path / "executed.marker"
    repo = _booby_trapped_repo(tmp_path / "repo", marker)
    for args in ([], ["--fix"]):
        done = subprocess.run([sys.executable, "-m", "portlint.cli", *args], cwd=repo, capture_output=True, timeout=120)
        assert done.returncode in (0, 1) and b"Traceback" not in done.stderr
    assert not marker.exists()


# -- the config cannot make portlint read or write outside the repository ----------
def _repo_beside_a_victim(tmp_path: Path, config: str) -> tuple[Path, Path]:
    repo, victim = tmp_path / "repo", tmp_path / "outside"
    repo.mkdir()
    victim.mkdir()
    (repo / ".portlint.yaml").write_text(config)
    (repo / "a.yaml").write_text("cluster:\n  master_port_range_low: 1500\n")
    (victim / "b.yaml").write_text("cluster:\n  master_port_range_low: 1500\n")
    return repo, victim


OUTWARD_CONFIGS = {
    "include globs with ../": 'include: ["**/*.yaml", "../outside/**/*.yaml", "../**/*.yaml"]\n',
    "an absolute include glob": 'include: ["**/*.yaml", "/**/outside/*.yaml", "{victim}/*.yaml"]\n',
    "a band's files glob with ../": "files: ../outside/**\n",
    "per_file_ignores with ../": 'per_file_ignores: {"../outside/**": [PL001]}\n',
    "exclude with ../": 'exclude: ["../**"]\n',
}


@pytest.mark.parametrize("name", sorted(OUTWARD_CONFIGS))
def test_globs_cannot_reach_files_outside_the_repository(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    extra = OUTWARD_CONFIGS[name].replace("{victim}", str(tmp_path / "outside"))
    band_files = extra.startswith("files:")
    config = LAYOUT.replace("    sites:", f"    {extra}    sites:") if band_files else LAYOUT + extra
    repo, victim = _repo_beside_a_victim(tmp_path, config)
    code, out, err = run(repo, capsys, monkeypatch)
    assert code in (0, 1) and "outside" not in out + err.replace(str(tmp_path), "")
    run(repo, capsys, monkeypatch, "--fix")
    assert (victim / "b.yaml").read_text() == "cluster:\n  master_port_range_low: 1500\n"
    assert sorted(p.name for p in victim.iterdir()) == ["b.yaml"]


@pytest.mark.parametrize("key", ["source", "copies"])
def test_a_frozen_template_leaving_the_repository_is_refused(
    key: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    templates = {"copies": "ref/*.yaml", "source": "{name}"}
    templates[key] = "../outside/{name}" if key == "source" else "../outside/*.yaml"
    frozen = f'frozen:\n  - copies: "{templates["copies"]}"\n    source: "{templates["source"]}"\n'
    repo, victim = _repo_beside_a_victim(tmp_path, LAYOUT + frozen)
    (repo / "ref").mkdir()
    (repo / "ref" / "b.yaml").write_text("cluster:\n  master_port_range_low: 1400\n")
    code, _, err = run(repo, capsys, monkeypatch, "--fix")
    assert code == 2 and f"frozen[0].{key}: resolves outside the repository root" in err
    assert (victim / "b.yaml").read_text() == "cluster:\n  master_port_range_low: 1500\n"


def test_a_frozen_source_that_is_a_symlink_out_of_the_repository_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    frozen = 'frozen:\n  - copies: "ref/*.yaml"\n    source: "configs/{name}"\n'
    repo, victim = _repo_beside_a_victim(tmp_path, LAYOUT + frozen)
    (repo / "ref").mkdir()
    (repo / "configs").mkdir()
    (repo / "ref" / "b.yaml").write_text("cluster:\n  master_port_range_low: 1400\n")
    (repo / "configs" / "b.yaml").symlink_to(victim / "b.yaml")
    code, out, err = run(repo, capsys, monkeypatch, "--fix")
    assert "configs/b.yaml: skipped: a symlink leading outside the repository" in err
    assert (victim / "b.yaml").read_text() == "cluster:\n  master_port_range_low: 1500\n"
    assert "ref/b.yaml" not in out or "PL401" not in out  # never compared against the outside file


def test_an_inherited_parent_outside_the_repository_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    frozen = 'frozen:\n  - copies: "ref/*.yaml"\n    source: "configs/{name}"\n'
    repo, victim = _repo_beside_a_victim(tmp_path, LAYOUT + frozen)
    (repo / "ref").mkdir()
    (repo / "configs").mkdir()
    (repo / "ref" / "c.yaml").write_text("cluster:\n  master_port_range_low: 1400\n")
    (repo / "configs" / "c.yaml").write_text("defaults:\n  - ../../outside/b\n  - _self_\n")
    code, out, _ = run(repo, capsys, monkeypatch)
    assert code == 1
    assert "configs/c.yaml:1:1: PL001 cannot check this file: missing parent" in out  # not read outside
    assert "ref/c.yaml" not in out


def test_a_config_elsewhere_configures_the_target_and_never_its_own_neighbours(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--config` may name a file anywhere (issue 12): the root stays the target's, so the
    config's folder and what lies beside it are never read or written."""
    repo, victim = _repo_beside_a_victim(tmp_path, LAYOUT)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "layout.yaml").write_text(LAYOUT)
    (elsewhere / "c.yaml").write_text("cluster:\n  master_port_range_low: 1500\n")
    # (LAYOUT names selectors these small repositories lack: PL003, which is not what this test is about)
    code, out, err = run(repo, capsys, monkeypatch, "--config", str(elsewhere / "layout.yaml"), "--fix", "--ignore", "PL003")
    assert code == 0
    assert (repo / "a.yaml").read_text().endswith("1400\n") and (victim / "b.yaml").read_text().endswith("1500\n")
    assert (elsewhere / "c.yaml").read_text().endswith("1500\n")
    code, out, err = run(elsewhere, capsys, monkeypatch, "--config", "layout.yaml", "--fix", "--ignore", "PL003")
    assert code == 0
    assert (elsewhere / "c.yaml").read_text().endswith("1400\n") and (victim / "b.yaml").read_text().endswith("1500\n")


# -- no terminal escape injection -----------------------------------------------------
# C0 controls other than the newline between lines and a tab, DEL, C1 controls (U+009B is
# a one-character CSI), and the bidirectional overrides of "Trojan source".
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _hostile_repo(root: Path) -> Path:
    root.mkdir()
    (root / ".portlint.yaml").write_text(LAYOUT)
    # YAML escapes put raw control characters into a key path, and so into messages.
    (root / "keys.yaml").write_text(
        '"evil\\e[2J\\e]0;pwned\\a\\r\\nFAKE::error::x_port": 70000\n'
        '"bidi\\u202eevil_port": 70001\n'
        'cluster:\n  "master\\x9b31m_port": 70002\n'
    )
    # a Python string escape in an environment variable's name
    (root / "env.py").write_text('import os\nPORT = os.environ.get("EVIL\\x1b[31m_PORT", 70003)\n')
    # raw ESC bytes are valid UTF-8 in a shell script: an unterminated heredoc names its word
    (root / "heredoc.sh").write_bytes(b"master_port=1500\ncat <<EOF\x1b[2J\x07\nnever ends\n")
    # a file name carrying control characters
    (root / "name\x1b[31m\r\x07.sh").write_bytes(b"master_port=70004\n")
    # a symlink out of the repository, named with controls: its note goes to stderr
    (root / "link\x1b]0;x\x07.yaml").symlink_to("/etc/hostname")
    return root


@pytest.mark.parametrize("output_format", ["text", "github"])
@pytest.mark.parametrize("color", [True, False], ids=["terminal", "pipe"])
def test_no_control_character_from_a_file_reaches_the_output(
    output_format: str, color: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _hostile_repo(tmp_path / "repo")
    monkeypatch.setattr(portlint.cli, "_use_color", lambda no_color: color)
    code, out, err = run(repo, capsys, monkeypatch, "--output-format", output_format, "--show-fixes")
    assert code == 1
    shown = re.sub(r"\x1b\[[0-9;]*m", "", out) if color else out  # portlint's own styles are fine
    assert not _CONTROL.findall(shown), shown
    assert not _CONTROL.findall(err), err
    assert len(shown.splitlines()) == shown.count("\n")
    for visible in ("\\x1b[2J", "\\u202e", "\\x9b", "\\x1b[31m", "\\x1b"):
        assert visible in shown  # escaped, not dropped: the reader still sees what is there
    assert "link\\x1b]0;x\\x07.yaml: skipped" in err


def test_json_output_keeps_the_real_text_escaped_by_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _hostile_repo(tmp_path / "repo")
    _, out, _ = run(repo, capsys, monkeypatch, "--output-format", "json")
    assert not _CONTROL.findall(out.replace("\n", ""))
    problems = json.loads(out)
    assert any("\x1b[2J" in p["message"] for p in problems)  # the data itself is unchanged
    assert any(p["path"] == "name\x1b[31m\r\x07.sh" for p in problems)
