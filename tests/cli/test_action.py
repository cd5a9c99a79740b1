"""The composite GitHub Action (action.yml): its shell steps, run as the runner runs them, on a tiny repository.

A runner evaluates `${{ inputs.NAME }}` in a step's `env`, `with` and
`working-directory`, and an `if:` of the form `inputs.NAME == 'VALUE'`; it runs
a `shell: bash` step as `bash --noprofile --norc -eo pipefail` with
GITHUB_ACTION_PATH (the action's checkout) and GITHUB_WORKSPACE set. This test
does the same for every `run:` step (the install step installs portlint from a
copy of this checkout into a fresh virtualenv, which stands for the Python that
actions/setup-python provides); the `uses:` steps are checked, not run.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

pytestmark = pytest.mark.slow  # installs portlint and its dependencies into a fresh virtualenv

ROOT = Path(__file__).resolve().parents[2]
ACTION = YAML(typ="safe").load((ROOT / "action.yml").read_text())
_EXPRESSION = re.compile(r"\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}")
_CONDITION = re.compile(r"inputs\.([A-Za-z0-9_-]+) == '([^']*)'")
LAYOUT = "ephemeral_floor: 9000\nbands:\n  master:\n    range: 1400-1999\n    sites: [master_port]\n"


def _evaluate(text: str, inputs: dict[str, str]) -> str:
    return _EXPRESSION.sub(lambda match: inputs[match.group(1)], text)


def _condition(expression: str | None, inputs: dict[str, str]) -> bool:
    if expression is None:
        return True
    match = _CONDITION.fullmatch(expression.strip())
    assert match, f"a condition this test cannot evaluate: {expression}"
    return inputs[match.group(1)] == match.group(2)


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The action's checkout (this project's files) and a Python on PATH, as the runner gives them."""
    base = tmp_path_factory.mktemp("runner")
    checkout = base / "action"
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (checkout / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, checkout / name)
    subprocess.run([sys.executable, "-m", "venv", str(base / "python")], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "VIRTUAL_ENV"))}
    env["PATH"] = os.pathsep.join([str(base / "python" / "bin"), env.get("PATH", "")])
    env.update(GITHUB_ACTION_PATH=str(checkout), RUNNER_TEMP=str(base), NO_COLOR="1")
    return env


def _workspace(tmp_path: Path) -> Path:
    workspace = tmp_path / "workspace"
    (workspace / "configs").mkdir(parents=True)
    (workspace / ".portlint.yaml").write_text(LAYOUT)
    (workspace / "configs" / "train.yaml").write_text("cluster:\n  master_port: 1500\n  other_port: 9100\n")
    return workspace


def _run_action(workspace: Path, runner: dict[str, str], given: dict[str, str]) -> list[tuple[str, object]]:
    """Every step in order: ("uses", its evaluated `with`) or ("run", the finished process); stops at a failure."""
    inputs = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    unknown = set(given) - set(inputs)
    assert not unknown, f"not inputs of the action: {unknown}"
    inputs.update(given)
    done: list[tuple[str, object]] = []
    for step in ACTION["runs"]["steps"]:
        if not _condition(step.get("if"), inputs):
            continue
        if "uses" in step:
            done.append((step["uses"], {k: _evaluate(str(v), inputs) for k, v in step.get("with", {}).items()}))
            continue
        assert step["shell"] == "bash" and "${{" not in step["run"]  # expressions go through env: no injection
        env = dict(runner, GITHUB_WORKSPACE=str(workspace))
        env.update({k: _evaluate(str(v), inputs) for k, v in step.get("env", {}).items()})
        cwd = workspace / _evaluate(step.get("working-directory", "."), inputs)
        result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=cwd,
                                env=env, capture_output=True, text=True, timeout=900)
        done.append(("run", result))
        if result.returncode != 0:
            break
    return done


def test_the_action_is_composite_and_its_inputs_are_documented() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["inputs"]) == {"args", "working-directory", "python-version", "sarif", "sarif-file"}
    assert all(spec.get("description") for spec in ACTION["inputs"].values())
    uses = [step["uses"] for step in ACTION["runs"]["steps"] if "uses" in step]
    assert uses == ["actions/setup-python@v5", "github/codeql-action/upload-sarif@v3"]
    page = (ROOT / "docs" / "ci.md").read_text()
    for name in ACTION["inputs"]:
        assert f"| `{name}` |" in page


def test_the_action_annotates_each_problem_and_fails(tmp_path: Path, runner: dict[str, str]) -> None:
    workspace = _workspace(tmp_path)
    steps = _run_action(workspace, runner, {})
    assert [name for name, _ in steps] == ["actions/setup-python@v5", "run", "run"]  # no SARIF by default
    assert steps[0][1] == {"python-version": "3.12"}
    install, check = steps[1][1], steps[2][1]
    assert install.returncode == 0, install.stderr
    assert check.returncode == 1
    assert check.stdout.splitlines() == [
        "::error file=configs/train.yaml,line=3,col=15,endLine=3,endColumn=19,title=PL101::"
        "cluster.other_port=9100 reaches the ephemeral range (9000+)",
        "::error file=configs/train.yaml,line=3,col=15,endLine=3,endColumn=19,title=PL302::"
        "cluster.other_port=9100 is not claimed by any band of the layout",
    ]


def test_the_action_writes_sarif_for_the_upload_and_passes_args(tmp_path: Path, runner: dict[str, str]) -> None:
    workspace = _workspace(tmp_path)
    steps = _run_action(workspace, runner, {"sarif": "true", "args": "--select PL1 configs"})
    names = [name for name, _ in steps]
    assert names == ["actions/setup-python@v5", "run", "run", "github/codeql-action/upload-sarif@v3", "run"]
    upload = steps[3][1]
    assert upload == {"sarif_file": "./portlint.sarif", "category": "portlint"}
    sarif = json.loads((workspace / upload["sarif_file"]).read_text())
    assert sarif["version"] == "2.1.0"
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["PL101"]  # --select PL1 reached portlint
    check = steps[4][1]
    assert check.returncode == 1 and check.stdout.count("::error ") == 1 and "title=PL101" in check.stdout


def test_a_clean_repository_passes(tmp_path: Path, runner: dict[str, str]) -> None:
    workspace = _workspace(tmp_path)
    (workspace / "configs" / "train.yaml").write_text("cluster:\n  master_port: 1400\n")
    steps = _run_action(workspace, runner, {"working-directory": "."})
    assert all(result.returncode == 0 for name, result in steps if name == "run")
    assert steps[-1][1].stdout == ""


def test_annotations_name_files_from_the_repository_root_with_a_working_directory(
    tmp_path: Path, runner: dict[str, str],
) -> None:
    """`working-directory: services/api` runs portlint there; GitHub places annotations by the path
    from the repository's root, so that is what `file=` holds."""
    workspace = tmp_path / "workspace"
    api = workspace / "services" / "api"
    (api / "configs").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    (api / ".portlint.yaml").write_text(LAYOUT)
    (api / "configs" / "train.yaml").write_text("cluster:\n  master_port: 1400\n  other_port: 9100\n")
    steps = _run_action(workspace, runner, {"working-directory": "services/api"})
    check = steps[-1][1]
    assert check.returncode == 1
    assert check.stdout.splitlines() == [
        "::error file=services/api/configs/train.yaml,line=3,col=15,endLine=3,endColumn=19,title=PL101::"
        "cluster.other_port=9100 reaches the ephemeral range (9000+)",
        "::error file=services/api/configs/train.yaml,line=3,col=15,endLine=3,endColumn=19,title=PL302::"
        "cluster.other_port=9100 is not claimed by any band of the layout",
    ]
