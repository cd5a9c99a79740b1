"""The table of tools' implicit port defaults: valid, true to the tools' docs, and matched to commands."""
from __future__ import annotations

import json
import os
from importlib.resources import files
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from portlint.model.sites import Command
from portlint.tables import tool_defaults
from portlint.tables.tool_defaults import invocation, mentions_tool, options, programs_resolved, variables_set

SCHEMA = json.loads((files("portlint.tables") / "tool_defaults.schema.json").read_text())


def tool(name: str) -> tool_defaults.Tool:
    return next(t for t in tool_defaults.load() if t.name == name)


def defaults(name: str) -> dict[str, tool_defaults.Default]:
    return {port.flags: port.default for port in tool(name).ports}


def command(*words: str, assignments: tuple[tuple[str, str], ...] = ()) -> Command:
    return Command("x.sh", 1, 1, words, assignments)


# --- the table -------------------------------------------------------------------------------


def test_the_packaged_json_is_the_yaml() -> None:
    """tool_defaults.json is what checks load (no YAML parse per run); the YAML is the source.
    `PORTLINT_UPDATE_FIXTURES=1 pytest tests/rules/test_tool_defaults.py -k json` regenerates it."""
    expected = tool_defaults.from_yaml()
    json_path = Path(tool_defaults.__file__).with_name("tool_defaults.json")
    if os.environ.get("PORTLINT_UPDATE_FIXTURES", "") not in ("", "0"):
        json_path.write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert tool_defaults.table() == expected, "tool_defaults.json is stale: regenerate it (see this test's docstring)"


def test_ray_start_defaults_are_those_of_rays_documentation() -> None:
    assert defaults("ray start") == {
        "--port": (6379, 6379),
        "--ray-client-server-port": (10001, 10001),
        "--min-worker-port/--max-worker-port": (10002, 19999),
        "--dashboard-port": (8265, 8265),
        "--dashboard-agent-listen-port": (52365, 52365),
        "--node-manager-port": None,
        "--object-manager-port": None,
        "--runtime-env-agent-port": None,
        "--dashboard-agent-grpc-port": None,
        "--metrics-export-port": None,
    }
    head_only = {port.flag for port in tool("ray start").ports if port.only_with == ("--head",)}
    assert head_only == {"--port", "--ray-client-server-port", "--dashboard-port"}


def test_kuberay_fills_in_the_metrics_export_port() -> None:
    (metrics,) = [port for port in tool("ray start").ports if port.flag == "--metrics-export-port"]
    assert metrics.default_via("kuberay") == (8080, 8080) and metrics.default_via("") is None


def test_torch_distributed_defaults_to_29500_from_torchrun_and_from_a_launcher() -> None:
    assert defaults("torchrun") == {"--master-port": (29500, 29500)}
    launcher = tool("torch.distributed (MASTER_ADDR set)")
    assert (launcher.sets, launcher.unless_runs) == ("MASTER_ADDR", ("torchrun",))
    assert [(p.env, p.default) for p in launcher.ports] == [(("MASTER_PORT",), (29500, 29500))]


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        ({"name": "x", "runs": [["x"]], "ports": [{"flag": "--p", "default": "auto", "what": "w"}]}, "unknown default"),
        ({"name": "x", "runs": [["x"]], "ports": [{"flag": "--p", "default": [1, 2], "what": "w"}]}, "range without high_flag"),
        ({"name": "x", "runs": [["x"]], "ports": [{"flag": "--a", "high_flag": "--b", "default": 1, "what": "w"}]},
         "high_flag without a range"),
        ({"name": "x", "runs": [["x"]], "ports": [{"default": 1, "what": "w"}]}, "neither flag nor env"),
        ({"name": "x", "ports": [{"flag": "--p", "default": 1, "what": "w"}]}, "neither runs nor sets"),
        ({"name": "x", "runs": [["x"]], "ports": [{"flag": "p", "default": 1, "what": "w"}]}, "an option without dashes"),
        ({"name": "x", "runs": [["x"]], "ports": [{"flag": "--p", "default": 70000, "what": "w"}]}, "not a port"),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_the_schema_rejects_a_broken_entry(entry: dict, why: str) -> None:
    assert list(Draft202012Validator(SCHEMA).iter_errors({"tools": [entry]})), why


# --- the byte test ---------------------------------------------------------------------------


def test_every_tool_of_the_table_is_found_by_the_byte_test() -> None:
    for entry in tool_defaults.load():
        written = [" ".join(prefix).replace("*", "3") for prefix in entry.runs] + ([f"export {entry.sets}=h"] if entry.sets else [])
        for text in written:
            assert mentions_tool("shell", f"#!/bin/bash\n{text} --x\n".encode()), text
    assert mentions_tool("yaml", b"spec:\n  rayStartParams: {}\n")


def test_the_byte_test_skips_other_text_and_other_kinds() -> None:
    assert not mentions_tool("shell", b"echo array start; gray  starting\n")
    assert mentions_tool("python", b"subprocess.run('ray start', shell=True)\n")
    assert not mentions_tool("markdown", b"ray start --head\n")


# --- invocations -----------------------------------------------------------------------------


def test_a_tool_is_run_after_wrappers_with_its_options() -> None:
    found = invocation(tool("ray start"), command("srun", "-w", "n", "exec", "/opt/bin/ray", "start", "--head", "--port", "1200"))
    assert found is not None and found.options == {"--head": "", "--port": "1200"}


def test_python_dash_m_runs_torch_distributed_run() -> None:
    found = invocation(tool("torchrun"), command("python3.11", "-m", "torch.distributed.run", "--master_port=1400", "t.py"))
    assert found is not None and "--master-port" in found.options


def test_an_echoed_or_other_ray_command_runs_nothing() -> None:
    assert invocation(tool("ray start"), command("echo", "ray", "start")) is None
    assert invocation(tool("ray start"), command("ray", "stop")) is None


def test_a_launcher_tool_is_run_by_setting_its_variable() -> None:
    launcher = tool("torch.distributed (MASTER_ADDR set)")
    assert invocation(launcher, command("export", "MASTER_ADDR=h")) is not None
    assert invocation(launcher, command("python", "t.py", assignments=(("MASTER_ADDR", "h"),))) is not None
    assert invocation(launcher, command("echo", "MASTER_ADDR=h")) is None


def test_options_read_both_spellings_and_normalize_underscores() -> None:
    assert options(("--a=1", "--b", "2", "--c", "--d_e=x", "pos", "-f")) == {
        "--a": "1", "--b": "2", "--c": "", "--d-e": "x", "-f": "",
    }


def test_an_unless_option_with_a_value_matches_that_value_only() -> None:
    ray = tool("ray start")
    off = invocation(ray, command("ray", "start", "--include-dashboard=False"))
    on = invocation(ray, command("ray", "start", "--include-dashboard", "true"))
    assert off is not None and off.gives("--include-dashboard=false")
    assert on is not None and not on.gives("--include-dashboard=false") and on.gives("--include-dashboard")


def test_variables_set_by_assignments_declarations_and_env() -> None:
    assert variables_set(command("export", "A=1", "B", "-n", assignments=(("C", "2"),))) == {"A", "B", "C"}
    assert variables_set(command("env", "-i", "D=1", "torchrun")) == {"D"}
    assert variables_set(command("torchrun", "E=1")) == set()


def test_a_variable_starting_something_where_ray_is_mentioned_passes_the_byte_test() -> None:
    assert mentions_tool("shell", b'RAY_BIN=$(which ray)\n"$RAY_BIN" start --head\n')
    assert mentions_tool("shell", b"RAY=/opt/bin/ray\n${RAY} start\n")
    assert mentions_tool("shell", b'"$RAY_EXECUTABLE" start --head\n')
    assert not mentions_tool("shell", b'SERVER=./serve.sh\n"$SERVER" start\n')


def test_a_word_holding_only_a_variable_is_the_program_last_assigned_to_it() -> None:
    commands = [
        Command("x.sh", 1, 1, (), (("RAY_BIN", "$(which ray)"),)),
        Command("x.sh", 2, 1, ("$RAY_BIN", "start", "--head")),
        Command("x.sh", 3, 1, ("export", "RAY=${RAY:-/opt/conda/bin/ray}")),
        Command("x.sh", 4, 1, ("srun", "${RAY}", "start")),
        Command("x.sh", 5, 1, (), (("COPY", "$RAY"), ("PY", "`command -v python3`"))),
        Command("x.sh", 6, 1, ("$COPY", "start", "$PY", "-m", "x", "$UNKNOWN")),
        Command("x.sh", 7, 1, (), (("RAY_BIN", "$head:6379"),)),
        Command("x.sh", 8, 1, ("$RAY_BIN", "start")),
        Command("x.sh", 9, 1, ("${RAY_EXECUTABLE}", "start", "$PYTHON_BIN", "$HEAD_NODE", "$X_1")),
    ]
    assert [c.words for c in programs_resolved(commands)] == [
        (), ("ray", "start", "--head"), ("export", "RAY=${RAY:-/opt/conda/bin/ray}"), ("srun", "ray", "start"),
        (), ("ray", "start", "python3", "-m", "x", "$UNKNOWN"), (), ("$RAY_BIN", "start"),
        ("ray", "start", "python", "$HEAD_NODE", "$X_1"),
    ]


def test_a_single_node_torchrun_store_is_not_judged_against_the_layout() -> None:
    torchrun = next(tool for tool in tool_defaults.load() if tool.name == "torchrun")
    (master,) = torchrun.ports
    judged = {}
    for words in (("torchrun", "t.py"), ("torchrun", "--nnodes=1", "t.py"), ("torchrun", "--nnodes", "1:1", "t.py"),
                  ("torchrun", "--nnodes=2", "t.py"), ("torchrun", "--node_rank=1", "t.py")):
        run = invocation(torchrun, Command("x.sh", 1, 1, words))
        assert run is not None
        judged[" ".join(words[1:-1])] = master.shares_the_layout(run)
    assert judged == {"": False, "--nnodes=1": False, "--nnodes 1:1": False, "--nnodes=2": True, "--node_rank=1": True}
