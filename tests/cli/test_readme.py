"""The README's promises: its rule table matches the registry, its commands match .ci/run, the demo and the
30-second example; it is one page, and it links every page of the site."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from installed import PORTLINT, env_with_portlint

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


def test_the_readme_is_one_page() -> None:
    assert len(README.splitlines()) < 300


def test_the_thirty_second_example_prints_what_the_readme_shows(tmp_path: Path) -> None:
    section = README.split("## In 30 seconds", 1)[1]
    script = section.split("```sh\n", 1)[1].split("```", 1)[0]
    shown = section.split("```text\n", 1)[1].split("```", 1)[0]
    result = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True,
                            env=env_with_portlint({k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}))
    assert result.stdout == shown, result.stderr
    assert (tmp_path / "example" / "train.yaml").read_text() == "cluster:\n  master_port: 1400\n"


def test_every_page_the_readme_links_exists() -> None:
    links = re.findall(r"\]\(([^)#]+\.md)\)", README)
    assert len(links) >= 10
    assert [link for link in links if not (ROOT / link).is_file()] == []
    included = {"docs/index.md", "docs/architecture.md", "docs/changelog.md", "docs/contributing.md"}  # the site's own
    pages = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md")} - included
    assert pages - set(links) == set()  # and it links every page of the site
