"""Every rule module is registered, documented, and has failing and passing fixture cases."""
from __future__ import annotations

from pathlib import Path

import pytest

from portlint import rules
from portlint.cli import main

RULES_DIR = Path(rules.__file__).resolve().parent
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
MODULES = sorted(p.stem for p in RULES_DIR.glob("*.py") if p.stem != "__init__")


def test_every_rule_module_is_registered_once() -> None:
    assert sorted(module.__name__.rsplit(".", 1)[-1] for module in rules.ALL) == MODULES
    assert len(rules.BY_CODE) == len(rules.ALL)


@pytest.mark.parametrize("rule", rules.ALL, ids=lambda r: r.CODE)
def test_every_rule_is_documented_with_the_fixed_headings(rule) -> None:  # noqa: ANN001
    doc = rule.__doc__ or ""
    for heading in ("What it does:", "Why:", "Example", "Fix:"):
        assert heading in doc, f"{rule.CODE} lacks {heading!r}"
    assert rule.NAME.replace("-", "").isalpha() and rule.NAME == rule.NAME.lower()


@pytest.mark.parametrize("rule", rules.ALL, ids=lambda r: r.CODE)
def test_every_rule_has_a_failing_and_a_passing_case(rule) -> None:  # noqa: ANN001
    folder = FIXTURES / f"{rule.CODE}-{rule.NAME}"
    cases = [c for c in folder.iterdir() if (c / "repo").is_dir()] if folder.is_dir() else []
    codes = [{line.split(":", 3)[3].split()[0] for line in (c / "expected.txt").read_text().splitlines() if line.strip()}
             for c in cases]
    assert any(rule.CODE in found for found in codes), f"no failing case for {rule.CODE}"
    assert any(rule.CODE not in found for found in codes), f"no passing case for {rule.CODE}"


@pytest.mark.parametrize("rule", rules.ALL, ids=lambda r: r.CODE)
def test_portlint_rule_prints_the_documentation(rule, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    assert main(["rule", rule.CODE.lower()]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{rule.CODE} {rule.NAME}\n") and "Why:" in out


def test_an_unknown_rule_is_a_usage_error_with_a_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", "PL31"]) == 2
    assert "did you mean PL301?" in capsys.readouterr().err


def test_the_codes_the_config_knows_are_the_registry_s() -> None:
    from portlint.codes import CHECK_CODES

    assert CHECK_CODES == tuple(rule.CODE for rule in rules.ALL)


def test_a_problem_is_named_after_the_rule_that_reported_it() -> None:
    from portlint.problem import Problem

    described = rules.describe(rules.BY_CODE["PL301"])
    assert (described.code, described.name, described.summary) == ("PL301", "layout-drift", rules.summary(rules.BY_CODE["PL301"]))
    assert Problem("a.yaml", 1, 1, "PL301", "m").of(described).name == "layout-drift"
    with pytest.raises(ValueError, match="rule PL301 reported a problem of PL101"):
        Problem("a.yaml", 1, 1, "PL101", "m").of(described)
