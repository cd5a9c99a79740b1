"""Frozen trees (aliases, merges, inheritance) and layout statements in prose."""
from __future__ import annotations

import pytest

from portlint.model.naming import NameFilter
from portlint.model.source import Source
from portlint.stages.extract.prose import statements
from portlint.stages.layout import frozen


def _tree(files: dict[str, str], path: str) -> frozen.Tree:
    return frozen.tree(path, lambda p: files[p].encode() if p in files else None)


def test_aliases_and_merge_keys_are_expanded_with_own_keys_winning() -> None:
    tree = _tree({"a.yaml": "base: &b {port: 1, host: x}\nuse: *b\nover:\n  <<: *b\n  port: 2\n"}, "a.yaml")
    values = {key: scalar.value for key, scalar in tree.scalars.items()}
    assert values == {"base.port": "1", "base.host": "x", "use.port": "1", "use.host": "x", "over.port": "2", "over.host": "x"}


def test_parents_merge_mappings_key_by_key_and_children_replace_lists() -> None:
    files = {
        "c/base.yaml": "a:\n  port_low: 1\n  port_high: 9\nlist: [1, 2, 3]\n",
        "c/child.yaml": "defaults: [base]\na:\n  port_high: 5\nlist: [7]\n",
    }
    tree = _tree(files, "c/child.yaml")
    assert {k: v.value for k, v in tree.scalars.items()} == {"a.port_low": "1", "a.port_high": "5", "list[0]": "7"}
    assert tree.files == ("c/child.yaml", "c/base.yaml")
    assert tree.scalars["a.port_low"].path == "c/base.yaml"


@pytest.mark.parametrize(("files", "message"), [
    ({"a.yaml": "defaults: b.yaml\n", "b.yaml": "defaults: [a.yaml]\n"}, "inheritance cycle: a.yaml -> b.yaml -> a.yaml"),
    ({"a.yaml": "defaults: [_self_, gone]\n"}, "missing parent: a.yaml -> gone.yaml"),
])
def test_broken_inheritance_names_the_chain(files: dict[str, str], message: str) -> None:
    with pytest.raises(frozen.InheritanceError, match=message):
        _tree(files, "a.yaml")


def test_an_alias_bomb_is_cut_by_the_budget() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [*a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}]" for i in range(1, 9)]
    tree = _tree({"bomb.yaml": "\n".join(lines) + "\n"}, "bomb.yaml")
    assert len(tree.scalars) + len(tree.collections) <= 50_000


@pytest.mark.parametrize(("text", "expected"), [
    ("#   1400-1999    TCPStore (cluster.master_port_range_low/high)",
     [("cluster.master_port_range_low", 1400, "low", 0), ("cluster.master_port_range_low", 1999, "high", 0)]),
    ("# VLLM_PORT: [7000, 9000) per engine", [("VLLM_PORT", 7000, "low", 0), ("VLLM_PORT", 9000, "high", 1)]),
    ("# engines from 7100+ (VLLM_PORT)", [("VLLM_PORT", 7100, "low", 0)]),
    ("| dashboard | 8265 | `DASHBOARD_PORT` |", [("DASHBOARD_PORT", 8265, "port", 0)]),
    ("# released 2024-01-05, see MASTER_PORT", []),
    ("# MIN_WORKER_PORT=2000 is documented elsewhere", []),
    ("# 1400-1999 for the master, no name here", []),
])
def test_statements_give_doc_sites_with_roles_and_offsets(text: str, expected: list) -> None:
    source = Source("x", text.encode())
    found = [(s.name, s.value, s.role, s.offset) for s in statements(source, 0, len(source.data), "comment", NameFilter(["VLLM_PORT"]))]
    assert found == expected


def test_running_prose_ignores_lone_numbers_but_not_ranges() -> None:
    text = "The head uses the next one (1302) after NODE_MANAGER_PORT; workers 2000–2999 (MIN_WORKER_PORT)."
    source = Source("x.md", text.encode())
    found = list(statements(source, 0, len(source.data), "markdown", NameFilter(), ranges_only=True))
    assert [(s.value, s.role) for s in found] == [(2000, "low"), (2999, "high")]
    assert source.data[found[1].start:found[1].end] == b"2999"


@pytest.mark.parametrize(("text", "expected"), [
    # the range belongs to the services the clause names, not to the port it is "above"
    ("- A range of ports above `MASTER_PORT` for Ray internal services (typically 10002-19999)", []),
    # a name in another clause states nothing about the range
    ("Set MASTER_PORT; the workers then take 2000-2999.", []),
    ("`MASTER_PORT` is in 1400-1999", [("MASTER_PORT", 1400), ("MASTER_PORT", 1999)]),
    ("Masters take 1400-1999 (`cluster.master_port_range_low/high`)",
     [("cluster.master_port_range_low", 1400), ("cluster.master_port_range_low", 1999)]),
])
def test_running_prose_states_a_range_only_for_a_name_beside_it(text: str, expected: list) -> None:
    source = Source("x.md", text.encode())
    found = statements(source, 0, len(source.data), "markdown", NameFilter(), ranges_only=True)
    assert [(s.name, s.value) for s in found] == expected


@pytest.mark.parametrize(("text", "stated"), [
    ("# Change the default port of sshd from 22 to DEFAULT_DOCKER_PORT.\n", []),
    ("# Falls back to DEFAULT_DOCKER_PORT (not legacy 6379).\n", []),
    ("# DEFAULT_DOCKER_PORT instead of 2222 since the host's sshd holds 22.\n", []),
    ("# DEFAULT_DOCKER_PORT was 2222 before the switch.\n", []),
    ("# DEFAULT_DOCKER_PORT: 10022 (sshd inside the container)\n", [10022]),
    ("# DEFAULT_DOCKER_PORT ports from 10000 to 10099\n", [10000]),
])
def test_a_number_the_prose_names_as_a_former_value_states_no_port(text: str, stated: list[int]) -> None:
    source = Source("a.py", text.encode())
    found = statements(source, 0, len(source.data), "comment", NameFilter(["DEFAULT_DOCKER_PORT"]))
    assert [site.value for site in found] == stated


@pytest.mark.parametrize(("text", "passed"), [
    ("#     python serve.py --api-port 8100\n", True),
    ("# $ python serve.py --api-port 8100 --workers 2\n", True),
    ("# Example: bash run.sh --api-port 8100\n", True),
    ("#   --api-port 8100   the API server\n", False),
    ("# Default: --api-port 8100\n", False),
    ("# The API server (--api-port 8100) answers health checks\n", False),
    ("# Start it; --api-port 8100 is the usual choice\n", False),
])
def test_an_options_value_on_an_example_command_line_is_passed(text: str, passed: bool) -> None:
    source = Source("a.py", text.encode())
    found = list(statements(source, 0, len(source.data), "comment", NameFilter(["--api-port"])))
    assert [(site.value, site.passed) for site in found] == [(8100, passed)]


@pytest.mark.parametrize(("text", "stated"), [
    ("# python serve.py --api-port=8100 --workers 2\n", []),
    ("# python serve.py --workers 2 --api-port 8100\n", [8100]),
    ("# API_PORT is set by --api-port 8100\n", [8100]),
])
def test_another_options_value_states_nothing_about_the_port(text: str, stated: list[int]) -> None:
    source = Source("a.py", text.encode())
    found = statements(source, 0, len(source.data), "comment", NameFilter(["--api-port"]))
    assert [site.value for site in found] == stated


@pytest.mark.parametrize(("text", "passed"), [
    ("# python proxy.py \\\n#     --api-port 8100 \\\n#     --workers 2\n", True),
    ("# python proxy.py\n#     --api-port 8100\n", False),
    ("x = 1  # ends with a backslash \\\n#     --api-port 8100\n", True),
])
def test_a_comment_line_going_on_with_the_command_above_passes_its_options_value(text: str, passed: bool) -> None:
    source = Source("a.py", text.encode())
    second = source.data.index(b"\n") + 1
    end = source.data.index(b"\n", second)
    found = list(statements(source, second, end, "comment", NameFilter(["--api-port"])))
    assert [(site.value, site.passed) for site in found] == [(8100, passed)]
