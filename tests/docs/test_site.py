"""The documentation site's generated pages (scripts/docs.py): the configuration reference from the
config's JSON schema, a page per rule from its docstring; and the browser check every page passes."""
from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path

import pytest

from portlint import rules
from portlint.config.schema import load_schema

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("docs_script", ROOT / "scripts" / "docs.py")
assert _spec is not None and _spec.loader is not None
docs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(docs)
EVERY_RULE = (*rules.ALL, *rules.HOST)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("generated")
    docs.generate(out)
    return out


def test_every_config_key_is_described_in_the_schema() -> None:
    schema = load_schema()
    for key, spec in schema["properties"].items():
        assert spec.get("description") or spec.get("x-alias-of") in schema["properties"], key
    for name, spec in {**schema["$defs"]["band"]["properties"], **schema["$defs"]["frozen"]["properties"]}.items():
        assert spec.get("description"), name


def test_the_configuration_reference_has_every_key_with_its_description(generated: Path) -> None:
    page = (generated / "configuration-reference.md").read_text()
    schema = load_schema()
    for key, spec in schema["properties"].items():
        if "x-alias-of" in spec:
            assert f"Also spelt `{key}`" in page.split(f"## `{spec['x-alias-of']}`", 1)[1].split("\n## ", 1)[0]
            assert f"## `{key}`" not in page
            continue
        section = page.split(f"## `{key}`\n", 1)[1].split("\n## ", 1)[0]
        assert spec["description"] in section
        assert "**Type:**" in section and ("**Example:**" in section) == ("x-example" in spec)
    assert "| `range` | \"LOW-HIGH\" or [LOW, HIGH] |" in page  # the band's keys, typed from the schema
    assert "ephemeral_floor: 9000" in page and '"docs/legacy/**": [PL501]' in page


@pytest.mark.parametrize("rule", EVERY_RULE, ids=lambda r: r.CODE)
def test_every_rule_has_a_page_with_its_sections(generated: Path, rule) -> None:  # noqa: ANN001
    page = (generated / "rules" / f"{rule.CODE}.md").read_text()
    assert page.startswith(f"# {rule.CODE} {rule.NAME}\n\n*{rules.summary(rule)}*\n")
    found = [part.split("\n", 1) for part in page.split("\n## ")[1:]]
    titles = [title.split(" (", 1)[0] for title, _ in found]
    assert titles == ["What it does", "Why", "Example", "Use instead", "Options", "Fix"]
    assert all(text.strip() for _, text in found)  # no empty section


def test_a_code_example_becomes_a_code_block(generated: Path) -> None:
    page = (generated / "rules" / "PL601.md").read_text()
    example = page.split("## Example (fails)\n", 1)[1].split("\n## ", 1)[0]
    assert "```python\nfor port in range(7000, 7100):\n    with socket.socket() as s:\n" in example
    fixed = page.split("## Use instead\n", 1)[1].split("\n## ", 1)[0]
    assert "```python\nsock = socket.socket()\n" in fixed


def test_the_rules_index_lists_every_rule_with_its_fix(generated: Path) -> None:
    index = (generated / "rules" / "index.md").read_text()
    rows = re.findall(r"^\| \[(\w+)\]\(\1\.md\) \| ([a-z-]+) \|", index, re.M)
    assert rows == [(rule.CODE, rule.NAME) for rule in EVERY_RULE]
    assert "| [PL301](PL301.md) | layout-drift | A bound site's value differs from the canonical layout. | safe |" in index
    assert "| [PL101](PL101.md) | ephemeral-overlap | A port or range reaches the kernel's ephemeral range. | via layout |" in index


# -- the browser check ------------------------------------------------------------------------

CLEAN = "<!doctype html><html><head><link rel='icon' href='data:,'></head><body><p>fine</p></body></html>"


@pytest.mark.slow
@pytest.mark.skipif(not any(shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")),
                    reason="needs Chromium (.ci/run installs it)")
def test_the_browser_check_fails_on_a_script_error_or_a_missing_resource(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    site = tmp_path / "site"
    (site / "deep").mkdir(parents=True)
    (site / "index.html").write_text(CLEAN)
    (site / "deep" / "page.html").write_text(CLEAN)
    assert docs.check(site) == 0
    assert capsys.readouterr().out == "Opened 2 pages in Chromium: 2 without errors, 0 with.\n"
    (site / "deep" / "page.html").write_text(CLEAN.replace("<p>fine</p>", "<script>undefinedFunction()</script>"))
    (site / "index.html").write_text(CLEAN.replace("<p>fine</p>", "<img src='missing.png'>"))
    assert docs.check(site) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "Opened 2 pages in Chromium: 0 without errors, 2 with."
    assert any(line.startswith("deep/page.html: exception: ReferenceError: undefinedFunction is not defined") for line in out)
    assert any(line.startswith("index.html: network: Failed to load resource") and "missing.png" in line for line in out)


def test_a_diagnostic_links_the_page_the_site_makes_for_its_rule(generated: Path) -> None:
    from portlint.server.diagnostics import RULE_PAGE  # where `portlint server` links each rule's code

    for rule in rules.ALL:
        page = docs.GENERATED.relative_to(docs.DOCS) / "rules" / f"{rule.CODE}.md"
        assert (generated / "rules" / f"{rule.CODE}.md").is_file()
        assert RULE_PAGE.format(code=rule.CODE) == page.with_suffix(".html").as_posix()  # Sphinx: one .html per page
