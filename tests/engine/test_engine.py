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


SFT = "examples/configs/sft.yaml"


def _codes_at(problems: list, path: str) -> list[str]:
    return [p.code for p in problems if p.path == path]


def test_a_session_checks_an_editor_text_in_place_of_the_disk(demo: Path) -> None:
    current = engine.session(load_config(find_config(demo), demo), Options())
    on_disk = (demo / SFT).read_bytes()
    assert _codes_at(current.check(current.files), SFT) == ["PL302", "PL301"]
    edited = current.revised(current.files, SFT, on_disk.replace(b"master_port_range_low: 1500", b"master_port_range_low: 1400"))
    assert list(edited) == list(current.files)  # the listing's order, kept
    assert _codes_at(current.check(edited), SFT) == ["PL302"]
    assert edited[SFT].data != on_disk and (demo / SFT).read_bytes() == on_disk  # nothing written
    assert {p: s for p, s in edited.items() if p != SFT} == {p: s for p, s in current.files.items() if p != SFT}
    again = current.revised(edited, SFT, None)  # the editor let go: the disk's bytes
    assert again == current.files and current.check(again) == current.check(current.files)


def test_a_text_enters_the_check_as_the_per_file_stage_would_take_it(demo: Path) -> None:
    (demo / "docs" / "notes.md").write_text("# Notes\n\nNothing about the network.\n")
    current = engine.session(load_config(find_config(demo), demo), Options())
    assert "docs/notes.md" not in current.files  # nothing worth extracting
    stated = current.revised(current.files, "docs/notes.md", b"# Notes\n\nRun with `NODE_MANAGER_PORT=1300`.\n")
    listed = [c.path for c in current.prepared.listing.files]
    assert list(stated) == [p for p in listed if p in stated] and "docs/notes.md" in stated
    assert [p.message for p in current.check(stated) if p.path == "docs/notes.md"] == [
        "doc states NODE_MANAGER_PORT=1300; band ray-mgmt gives 1301"]
    dropped = current.revised(stated, "docs/notes.md", b"# Notes\n")
    assert dropped == current.files
    assert current.revised(current.files, "nowhere/new.yaml", b"port: 1\n") == current.files  # not listed: not checked


def test_a_frozen_side_edited_again_and_again_keeps_one_tree(demo: Path) -> None:
    current = engine.session(load_config(find_config(demo), demo), Options())
    copy = "tests/unit/reference_configs/grpo_math_1B.yaml"
    data = current.files[copy].data
    files = current.files
    for number in range(5):
        files = current.revised(files, copy, data + b"\n" * number)
    assert [key for key in current.ground.trees if key[0] == copy] == [(copy, data + b"\n" * 4)]


def test_the_fix_loop_fixes_the_problems_it_is_asked_for(demo: Path) -> None:
    from portlint.stages.fix import fix_loop

    current = engine.session(load_config(find_config(demo), demo), Options())
    fixed = fix_loop(current.files, current.check, current.extract, False, wanted=lambda p: p.path == SFT)
    assert list(fixed.changed) == [SFT] and [p.code for p in fixed.fixed_problems] == ["PL301"]
    everything = fix_loop(current.files, current.check, current.extract, False)
    assert sorted(everything.changed) == ["examples/configs/evals/eval.yaml", SFT, "nemo_rl/distributed/ports.py"]


def test_a_check_after_an_edit_finds_what_a_fresh_run_over_the_same_bytes_finds(tmp_path: Path) -> None:
    # Whose port a.py's default is depends on b.py's helper: it only dials, then it binds. The
    # session's later layouts take the earlier ones' verdicts only while nothing they read changed.
    files = {
        ".portlint.yaml": "bands:\n  dash:\n    range: 8000-8099\n    sites: [other_port]\n",
        "a.py": "from b import helper\n\n\ndef connect(host, dashboard_port=8265):\n    return helper(host, dashboard_port)\n",
        "b.py": "import socket\n\nother_port = 8000\n\n\ndef helper(host, port):\n"
                "    return socket.create_connection((host, port))\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    binds = files["b.py"].replace("    return socket.create_connection((host, port))\n",
                                  "    s = socket.socket()\n    s.bind((host, port))\n    return s\n")
    current = engine.session(load_for(tmp_path, ()), Options())
    assert current.check(current.files) == []
    edited = current.revised(current.files, "b.py", binds.encode())
    found = [(p.path, p.line, p.code, p.message) for p in current.check(edited)]
    assert found == [("a.py", 4, "PL302", "connect.dashboard_port=8265 is not claimed by any band of the layout")]
    (tmp_path / "b.py").write_text(binds)
    fresh = engine.session(load_for(tmp_path, ()), Options())
    assert [(p.path, p.line, p.code, p.message) for p in fresh.check(fresh.files)] == found
    back = current.revised(edited, "b.py", files["b.py"].encode())
    assert current.check(back) == []
