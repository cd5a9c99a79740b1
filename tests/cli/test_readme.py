"""The README's promises: its rule table matches the registry, its commands match .ci/run and the demo."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

from installed import PORTLINT

from portlint.rules import ALL, summary

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def test_the_rule_table_lists_every_rule_with_its_code_name_and_summary() -> None:
    rows = {m.group(1): (m.group(2), m.group(3)) for m in re.finditer(r"^\| (PL\d{3}) \| ([a-z-]+) \| (.+?) \|", README, re.M)}
    assert rows == {rule.CODE: (rule.NAME, summary(rule)) for rule in ALL}


def test_ci_runs_exactly_the_readme_test_command() -> None:
    command = 'pip install -e ".[test]" && ruff check portlint && mypy portlint && lint-imports && pytest -q'
    assert f"\n{command}\n" in README
    assert f"\n{command}\n" in (ROOT / ".ci" / "run").read_text()


def test_the_readme_shows_what_portlint_prints_on_the_demo_today() -> None:
    shown = README.split("The first prints", 1)[1].split("```", 2)[1].strip("\n")
    result = subprocess.run(
        [PORTLINT, "fixtures/demo"], cwd=ROOT, capture_output=True, text=True,
    )
    assert result.returncode == 1
    assert result.stdout.strip("\n") == shown
