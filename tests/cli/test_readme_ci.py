"""The documentation's output formats, `portlint init`, "Use in CI" and "pre-commit" sections say what portlint
does: docs/usage.md, docs/adopting.md and docs/ci.md, and the README's pre-commit stanza."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from installed import env_with_portlint
from ruamel.yaml import YAML

from portlint.cli import main

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo"
USAGE, ADOPTING, CI = (ROOT / "docs" / name for name in ("usage.md", "adopting.md", "ci.md"))


def _section(heading: str, page: Path = ROOT / "README.md") -> str:
    """A page's text under a heading, up to the next heading of the same or a higher level."""
    level = len(heading.split(" ", 1)[0])
    lines, inside, fenced = [], False, False
    for line in page.read_text().splitlines(keepends=True):
        if line.startswith("```"):
            fenced = not fenced
        is_heading = not fenced and re.match(r"#+ ", line)
        if inside and is_heading and len(line.split(" ", 1)[0]) <= level:
            break
        if line.rstrip("\n") == heading:
            inside = True
        if inside:
            lines.append(line)
    assert lines, heading
    return "".join(lines)


def _blocks(text: str, language: str = "") -> list[str]:
    """The fenced code blocks of `text` written in `language` ("" for the unlabelled ones)."""
    blocks, current, label = [], None, ""
    for line in text.splitlines(keepends=True):
        if line.startswith("```"):
            if current is None:
                current, label = [], line[3:].strip()
            else:
                if label == language:
                    blocks.append("".join(current))
                current = None
        elif current is not None:
            current.append(line)
    return blocks


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(args))
    return code, capsys.readouterr().out


def test_every_json_field_is_documented_and_every_documented_field_exists(
    demo: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    documented = set(re.findall(r"^\| `([^|]+)` \|", _section("## Output formats", USAGE), re.M))
    documented = {name.strip("`") for row in documented for name in row.split("`, `")}
    _, out = _run(capsys, "--output-format", "json")
    fixable = next(p for p in json.loads(out) if p["fix"])
    produced = set(fixable) | {f"fix.{k}" for k in fixable["fix"]}
    produced |= {f"fix.edits[].{k}" for k in fixable["fix"]["edits"][0]}
    assert documented == produced


def test_the_statistics_shown_are_what_portlint_prints_on_the_demo(demo: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    shown = next(block for block in _blocks(_section("## Output formats", USAGE)) if "layout-drift" in block
                 and "Fixed" not in block)
    _, out = _run(capsys, "--statistics", "--quiet")
    assert out == shown


def test_the_show_fixes_listing_is_what_fix_prints_on_the_demo(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shown = next(block for block in _blocks(_section("## Output formats", USAGE)) if block.startswith("Fixed "))
    _, out = _run(capsys, "--fix", "--show-fixes")
    assert shown in out


def test_the_github_annotation_shown_is_what_portlint_prints(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shown = next(block for block in _blocks(_section("## Output formats", USAGE)) if block.startswith("::error"))
    _, out = _run(capsys, "--output-format", "github")
    assert shown.strip() in out.splitlines()


def test_the_init_transcript_is_what_init_prints_on_the_demo(tmp_path: Path) -> None:
    transcript = _blocks(_section("## `portlint init`: a starter config", ADOPTING))[0].splitlines()
    command, printed = transcript[0].removeprefix("$ "), transcript[1:]
    workdir = tmp_path / "work"
    workdir.mkdir()
    shutil.copytree(DEMO, workdir / "fixtures" / "demo")
    command = command.replace("/tmp/demo3", str(tmp_path / "demo3"))
    result = subprocess.run(["bash", "-c", command], cwd=workdir, capture_output=True, text=True, env=env_with_portlint())
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == printed


def test_the_workflow_uses_the_action_with_its_inputs_and_the_plain_steps_run_the_formats_they_upload(
    demo: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    section = _section("## Use in CI", CI)
    assert "a full 40-character commit" in section and "No release of portlint is tagged yet" in section
    workflow, plain = _blocks(section, "yaml")
    steps = YAML(typ="safe").load(workflow)["jobs"]["portlint"]["steps"]
    action = YAML(typ="safe").load((ROOT / "action.yml").read_text())
    [uses] = [step for step in steps if step.get("uses", "").startswith("OWNER/portlint@")]
    assert uses["uses"] == "OWNER/portlint@COMMIT_SHA" and set(uses["with"]) <= set(action["inputs"])
    documented = set(re.findall(r"^\| `([a-z-]+)` \|", section, re.M))
    assert documented == set(action["inputs"])
    for name, spec in action["inputs"].items():  # the table's defaults are the action's
        assert re.search(rf"^\| `{name}` \| `{re.escape(json.dumps(spec['default']) if name in ('args', 'sarif') else spec['default'])}` \|",
                         section, re.M), name
    steps = YAML(typ="safe").load(plain)
    assert [step["run"] for step in steps if "run" in step] == [
        'pip install "git+https://github.com/OWNER/portlint@COMMIT_SHA"',
        "portlint --output-format sarif --exit-zero > portlint.sarif", "portlint --output-format github",
    ]
    upload = next(step for step in steps if step.get("uses", "").startswith("github/codeql-action/upload-sarif"))
    assert upload["with"]["sarif_file"] == "portlint.sarif"  # written before the step that fails the job
    code, out = _run(capsys, "--output-format", "github")
    assert code == 1 and out.startswith("::error file=")  # annotations, and the job fails
    code, out = _run(capsys, "--output-format", "sarif", "--exit-zero")
    assert code == 0 and json.loads(out)["version"] == "2.1.0"


@pytest.mark.slow
def test_the_add_noqa_transcript_is_what_it_prints_on_the_demo(tmp_path: Path) -> None:
    transcript = _blocks(_section("## `portlint --add-noqa`: comments, and a baseline where none can go", ADOPTING))[0].splitlines()
    command, printed = transcript[0].removeprefix("$ "), transcript[1:]
    workdir = tmp_path / "work"
    workdir.mkdir()
    shutil.copytree(DEMO, workdir / "fixtures" / "demo")
    command = command.replace("/tmp/demo4", str(tmp_path / "demo4"))
    result = subprocess.run(["bash", "-c", command], cwd=workdir, capture_output=True, text=True, env=env_with_portlint())
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == printed


def test_the_pre_commit_stanza_names_the_hooks_the_manifest_defines() -> None:
    [stanza] = _blocks(_section("## pre-commit"), "yaml")
    assert _blocks(_section("## pre-commit", CI), "yaml") == [stanza]  # the site shows the README's
    config = YAML(typ="safe").load(stanza)
    [repo] = config["repos"]
    hooks = {hook["id"]: hook for hook in YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert [hook["id"] for hook in repo["hooks"]] == ["portlint"]
    assert "- id: portlint-fix" in stanza  # offered, commented out
    assert (repo["repo"], repo["rev"]) == ("https://github.com/OWNER/portlint", "COMMIT_SHA")  # explained above it
    assert "pre-commit needs a `rev:` that exists" in _section("## pre-commit")
    assert set(hooks) == {"portlint", "portlint-fix"}
    assert hooks["portlint-fix"]["entry"] == "portlint check --fix --exit-non-zero-on-fix"
    for hook in hooks.values():
        assert hook["language"] == "python" and hook["pass_filenames"] is False and hook["require_serial"] is True
        pattern = re.compile(hook["files"])
        for path in ("a/b.yaml", "c.yml", "run.sh", "x.bash", "ray.sub", "job.sbatch", "m.py", "README.md",
                     ".portlint.yaml", "sub/portlint.toml", "pyproject.toml"):
            assert pattern.search(path), path
        assert not pattern.search("image.png")
