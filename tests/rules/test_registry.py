"""Every rule module is registered, documented, and has failing and passing fixture cases.

Two families share portlint/rules/: `portlint check`'s (rules.ALL, fixture cases under fixtures/) and
`portlint host`'s (rules.HOST, checked against fake /proc trees in tests/commands/test_host.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from portlint import rules
from portlint.cli import main

RULES_DIR = Path(rules.__file__).resolve().parent
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
MODULES = sorted(p.stem for p in RULES_DIR.glob("*.py") if p.stem != "__init__")
EVERY_RULE = (*rules.ALL, *rules.HOST)


def test_every_rule_module_is_registered_once() -> None:
    assert sorted(module.__name__.rsplit(".", 1)[-1] for module in EVERY_RULE) == MODULES
    assert len(rules.BY_CODE) == len(rules.ALL)
    assert len(rules.DOCUMENTED) == len(EVERY_RULE)
    assert all(rule.CODE.startswith("H") and rule.__name__.startswith("portlint.rules.host_") for rule in rules.HOST)


@pytest.mark.parametrize("rule", EVERY_RULE, ids=lambda r: r.CODE)
def test_every_rule_is_documented_with_the_fixed_headings(rule) -> None:  # noqa: ANN001
    doc = rule.__doc__ or ""
    places = []
    for heading in ("What it does:", "Why:", "Example", "Use instead:", "Options:", "Fix:"):
        assert f"\n{heading}" in doc, f"{rule.CODE} lacks {heading!r} at the start of a line"
        places.append(doc.index(f"\n{heading}"))
    assert places == sorted(places), f"{rule.CODE}: the headings are out of order"
    assert rule.NAME.replace("-", "").isalpha() and rule.NAME.lower() == rule.NAME


@pytest.mark.parametrize("rule", rules.ALL, ids=lambda r: r.CODE)
def test_every_rule_has_a_failing_and_a_passing_case(rule) -> None:  # noqa: ANN001
    folder = FIXTURES / f"{rule.CODE}-{rule.NAME}"
    cases = [c for c in folder.iterdir() if (c / "repo").is_dir()] if folder.is_dir() else []
    codes = [{line.split(":", 3)[3].split()[0] for line in (c / "expected.txt").read_text().splitlines() if line.strip()}
             for c in cases]
    assert any(rule.CODE in found for found in codes), f"no failing case for {rule.CODE}"
    assert any(rule.CODE not in found for found in codes), f"no passing case for {rule.CODE}"


@pytest.mark.parametrize("rule", EVERY_RULE, ids=lambda r: r.CODE)
def test_portlint_rule_prints_the_documentation(rule, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    assert main(["rule", rule.CODE.lower()]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{rule.CODE} {rule.NAME}\n") and "Why:" in out


def test_an_unknown_rule_is_a_usage_error_with_a_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", "PL31"]) == 2
    assert "did you mean PL301?" in capsys.readouterr().err


def test_the_codes_the_config_knows_are_the_registry_s() -> None:
    from portlint.model.codes import CHECK_CODES

    assert tuple(rule.CODE for rule in rules.ALL) == CHECK_CODES


def test_a_problem_is_named_after_the_rule_that_reported_it() -> None:
    from portlint.model.problems import Problem

    described = rules.describe(rules.BY_CODE["PL301"])
    assert (described.code, described.name, described.summary) == ("PL301", "layout-drift", rules.summary(rules.BY_CODE["PL301"]))
    assert Problem("a.yaml", 1, 1, "PL301", "m").of(described).name == "layout-drift"
    with pytest.raises(ValueError, match="rule PL301 reported a problem of PL101"):
        Problem("a.yaml", 1, 1, "PL101", "m").of(described)


def test_portlint_rule_h101_prints_the_host_rule_not_a_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", "H101"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("H101 ephemeral-overlap\n\nA band or written port meets this host's ephemeral range")
    assert "portlint host" in out and "did you mean" not in out


def test_a_mistyped_host_rule_is_suggested(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", "H21"]) == 2
    assert "did you mean H201?" in capsys.readouterr().err


def test_rule_all_prints_both_families(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", "--all"]) == 0
    heads = {f"{rule.CODE} {rule.NAME}" for rule in EVERY_RULE}
    shown = [line for line in capsys.readouterr().out.splitlines() if line in heads]
    assert shown == [f"{rule.CODE} {rule.NAME}" for rule in EVERY_RULE]


def test_host_rules_are_not_check_rules() -> None:
    from portlint.engine import known_code

    assert not known_code("H101") and not set(rules.HOST) & set(rules.CHECKS)


@pytest.mark.parametrize("code", ["H101", "H"])
def test_selecting_a_host_rule_in_check_says_where_it_runs(code: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--select", code]) == 2
    assert f"{code} is a rule of `portlint host`, not of check" in capsys.readouterr().err
