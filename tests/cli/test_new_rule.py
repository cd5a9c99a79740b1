"""scripts/new_rule.py, run on a copy of what it reads and edits: what it writes, and what it refuses.

That the suite then fails at the new rule's failing case and nowhere else is
CONTRIBUTING.md's "Add a rule" walkthrough (it needs a whole installed copy).
"""
from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEADINGS = ("What it does:", "Why:", "Example", "Fix:")
README_ROW = re.compile(r"^\| (PL\d{3}) \| ([a-z-]+) \| (.+?) \|", re.M)  # as tests/cli/test_readme.py reads the table


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """The files the script reads and edits; fixture folders by name only."""
    copy = tmp_path / "checkout"
    for part in ("scripts/new_rule.py", "portlint/model/codes.py", "README.md"):
        (copy / part).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / part, copy / part)
    shutil.copytree(ROOT / "portlint" / "rules", copy / "portlint" / "rules", ignore=shutil.ignore_patterns("__pycache__"))
    for folder in (ROOT / "fixtures").iterdir():
        (copy / "fixtures" / folder.name).mkdir(parents=True)
    return copy


def run(checkout: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(checkout / "scripts" / "new_rule.py"), *args], capture_output=True, text=True, cwd=checkout,
    )


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def module_constants(path: Path) -> dict[str, object]:
    tree = ast.parse(path.read_text())
    found: dict[str, object] = {"__doc__": ast.get_docstring(tree, clean=False)}
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Constant):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node.value.value
    return found


def registry(checkout: Path) -> tuple[list[str], list[str], tuple[str, ...]]:
    """(imported modules, ALL's modules, CHECK_CODES) as the checkout writes them."""
    tree = ast.parse((checkout / "portlint" / "rules" / "__init__.py").read_text())
    imported = [alias.name for node in tree.body if isinstance(node, ast.ImportFrom) and node.module == "portlint.rules"
                for alias in node.names]
    listed = next(node.value for node in tree.body
                  if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "ALL")
    assert isinstance(listed, ast.Tuple)
    codes = ast.literal_eval(next(node.value for node in ast.parse((checkout / "portlint" / "model" / "codes.py").read_text()).body
                                  if isinstance(node, ast.AnnAssign) and node.value is not None))
    return imported, [getattr(item, "id", "") for item in listed.elts], codes


def test_it_writes_the_module_the_registry_lines_the_fixtures_and_the_readme_row(checkout: Path) -> None:
    before = snapshot(checkout)
    result = run(checkout, "PL701", "port-reuse", "--summary", "A port is reused by two services of one script.")
    assert result.returncode == 0, result.stderr
    written = [line.removeprefix("wrote ") for line in result.stdout.splitlines()]
    assert sorted(written) == sorted([
        "portlint/rules/port_reuse.py", "portlint/rules/__init__.py", "portlint/model/codes.py", "README.md",
        "fixtures/PL701-port-reuse/fails/repo/run.sh", "fixtures/PL701-port-reuse/fails/expected.txt",
        "fixtures/PL701-port-reuse/passes/repo/run.sh", "fixtures/PL701-port-reuse/passes/expected.txt",
    ])
    after = snapshot(checkout)
    assert {path for path in after if before.get(path) != after[path]} == set(written)

    module = module_constants(checkout / "portlint" / "rules" / "port_reuse.py")
    assert (module["CODE"], module["NAME"], module["NEEDS_LAYOUT"]) == ("PL701", "port-reuse", False)
    doc = str(module["__doc__"])
    assert doc.splitlines()[0] == "A port is reused by two services of one script."
    assert all(heading in doc for heading in HEADINGS)
    compile((checkout / "portlint" / "rules" / "port_reuse.py").read_text(), "port_reuse.py", "exec")

    imported, listed, codes = registry(checkout)
    assert imported == sorted(imported) and "port_reuse" in imported
    assert listed[-1] == "port_reuse" and codes[-1] == "PL701" and list(codes) == sorted(codes)
    assert len(listed) == len(codes)

    rows = {m.group(1): (m.group(2), m.group(3)) for m in README_ROW.finditer((checkout / "README.md").read_text())}
    assert rows["PL701"] == ("port-reuse", "A port is reused by two services of one script.")
    assert list(rows) == sorted(rows)

    fails = checkout / "fixtures" / "PL701-port-reuse" / "fails"
    expected = [line for line in (fails / "expected.txt").read_text().splitlines() if line.strip()]
    assert [line.split(":", 3)[3].split()[0] for line in expected] == ["PL701"]  # a failing case, as test_registry reads it
    assert (checkout / "fixtures" / "PL701-port-reuse" / "passes" / "expected.txt").read_text() == ""


def test_a_code_between_others_goes_in_code_order_everywhere(checkout: Path) -> None:
    assert run(checkout, "PL150", "ports-somewhere").returncode == 0
    imported, listed, codes = registry(checkout)
    assert list(codes) == sorted(codes) and codes.index("PL150") == codes.index("PL103") + 1
    assert listed[codes.index("PL150")] == "ports_somewhere"
    assert listed[codes.index("PL103")] == "privileged_port" and listed[codes.index("PL201")] == "band_overlap"
    rows = [m.group(1) for m in README_ROW.finditer((checkout / "README.md").read_text())]
    assert rows == sorted(rows) and "PL150" in rows
    doc = str(module_constants(checkout / "portlint" / "rules" / "ports_somewhere.py")["__doc__"])
    row = next(m for m in README_ROW.finditer((checkout / "README.md").read_text()) if m.group(1) == "PL150")
    assert row.group(3) == doc.splitlines()[0]  # a placeholder summary, the same in both places


@pytest.mark.parametrize(("args", "message"), [
    (("PL101", "another-rule"), "new_rule.py: error: PL101 is taken (portlint/model/codes.py)"),
    (("PL7x", "port-reuse"), "new_rule.py: error: expected a code like PL701 (PL and three digits), got 'PL7x'"),
    (("pl701", "port-reuse"), "new_rule.py: error: expected a code like PL701 (PL and three digits), got 'pl701'"),
    (("H104", "port-reuse"), "new_rule.py: error: expected a code like PL701 (PL and three digits), got 'H104'"),
    (("PL701", "Port_Reuse"), "new_rule.py: error: expected a name of lowercase words joined by hyphens (port-reuse), got 'Port_Reuse'"),
    (("PL701", "port--reuse"), "new_rule.py: error: expected a name of lowercase words joined by hyphens (port-reuse), got 'port--reuse'"),
    (("PL701", "layout-drift"), "new_rule.py: error: layout-drift is taken: portlint/rules/layout_drift.py exists"),
    (("PL701", "port-reuse", "--summary", "a | b"), "new_rule.py: error: expected a summary without |, \\ or triple quotes (it goes into a table row and a docstring)"),
    (("PL701",), "new_rule.py: error: the following arguments are required: name (usage: python scripts/new_rule.py PL701 name-of-rule)"),
])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(checkout: Path, args: tuple[str, ...], message: str) -> None:
    before = snapshot(checkout)
    result = run(checkout, *args)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", message + "\n")
    assert snapshot(checkout) == before


def test_a_name_whose_fixtures_exist_is_taken(checkout: Path) -> None:
    (checkout / "fixtures" / "PL799-port-reuse").mkdir()
    result = run(checkout, "PL701", "port-reuse")
    assert (result.returncode, result.stderr) == (2, "new_rule.py: error: PL701 port-reuse: fixtures/PL799-port-reuse exists\n")
