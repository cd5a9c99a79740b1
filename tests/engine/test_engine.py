"""The engine: a composition of stages over returned records. The facts of the layout are computed
for the rules that read them; a run takes the stages prepared before it only when they were
prepared for its config and cache; it never keeps anything for the next run."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from portlint import engine
from portlint.config.load import load_config, load_for
from portlint.config.locate import find_config
from portlint.engine import Known, Options
from portlint.rules import ALL, CHECKS, JUDGES
from portlint.stages import discover
from portlint.stages.layout.build import FACTS, needs_of


def test_every_rule_declares_the_facts_it_reads() -> None:
    for rule in ALL:
        assert rule.NEEDS <= FACTS, rule.CODE
    assert {rule.CODE for rule in JUDGES} == {"PL002"} and not set(CHECKS) & set(JUDGES)


def test_a_rule_that_declares_nothing_gets_every_fact() -> None:
    assert needs_of([SimpleNamespace(CODE="PL999")]) == FACTS
    assert needs_of([SimpleNamespace(NEEDS=frozenset({"commands"}))]) == {"commands"}


def test_only_the_facts_the_selected_rules_need_are_computed(demo: Path) -> None:
    config = load_config(find_config(demo), demo)

    def layout(**options: tuple[str, ...]):  # noqa: ANN202
        current = engine.session(config, Options(**options))
        return current.layout(current.files)

    full = layout()
    assert full.frozen and full.commands
    narrow = layout(select=("PL101",))
    assert narrow.sites == full.sites and narrow.frozen == () and narrow.commands == ()
    assert layout(select=("PL401",)).frozen == full.frozen


def test_a_session_checks_its_files_as_a_run_does(demo: Path) -> None:
    config = load_config(find_config(demo), demo)
    current = engine.session(config, Options())
    assert current.check(current.files) == engine.run(config, Options()).problems
    state = current.files["ray.sub"]
    assert current.extract(state.path, state.kind, state.data) == state


def _prepares(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The roots `engine.prepare` lists from now on, in order."""
    prepared: list[Path] = []
    real = engine.prepare
    monkeypatch.setattr(engine, "prepare", lambda config, *rest: prepared.append(config.root) or real(config, *rest))
    return prepared


def test_a_run_takes_what_was_prepared_ahead_for_its_config_and_cache(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stages before the rules, prepared before the CLI asked (the `portlint` command does),
    are what `run` checks when its config is theirs and the cache is on: the same problems,
    notes and digests as a run from scratch."""
    config = load_for(demo, ())
    fresh = engine.run(config, Options(cache=True, select=("PL301",)))
    (demo / ".portlint_cache").rename(demo.parent / "old-cache")
    ahead = engine.prepare(config, True, Known(), ("portlint.rules",))
    prepared = _prepares(monkeypatch)
    taken = engine.run(config, Options(cache=True, select=("PL301",)), Known(demo, ahead=ahead))
    assert prepared == []  # nothing listed or read again
    assert taken.problems == fresh.problems and {p.code for p in taken.problems} == {"PL301"}
    assert taken.read == fresh.read and taken.notes == fresh.notes


@pytest.mark.parametrize("asked", ["another config", "no cache"])
def test_what_was_prepared_for_something_else_is_not_taken(demo: Path, monkeypatch: pytest.MonkeyPatch, asked: str) -> None:
    ahead = engine.prepare(load_for(demo, ()), True)
    config = load_for(demo, ("ephemeral_floor = 40000",) if asked == "another config" else ())
    prepared = _prepares(monkeypatch)
    outcome = engine.run(config, Options(cache=asked != "no cache"), Known(demo, ahead=ahead))
    assert prepared == [demo]
    assert outcome.problems == engine.run(config, Options()).problems


def test_a_run_lists_what_it_is_handed_for_its_root(demo: Path) -> None:
    """The listing handed over (the warm path's, from git) is the one read, for that root only."""
    config = load_config(find_config(demo), demo)
    handed = Known(demo, lambda: discover.Listed(["ray.sub"], {}))
    assert list(engine.session(config, Options(), handed).files) == ["ray.sub"]
    elsewhere = Known(demo / "elsewhere", lambda: discover.Listed(["ray.sub"], {}))
    assert len(engine.session(config, Options(), elsewhere).files) > 1
    assert len(engine.session(config, Options(), Known(demo, lambda: None)).files) > 1  # git did not list: list again


def test_a_run_keeps_nothing_for_the_next_one(demo: Path) -> None:
    config = load_for(demo, ())
    before = engine.run(config, Options())
    (demo / "tools.sh").write_text("MASTER_PORT=1500\n")
    after = engine.run(config, Options())
    assert [p for p in after.problems if p.path == "tools.sh"] and not [p for p in before.problems if p.path == "tools.sh"]


def test_a_walk_outside_git_says_so(demo: Path) -> None:
    assert not engine.run(load_for(demo, ()), Options()).in_git
