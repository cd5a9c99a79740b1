"""The table of server and launcher commands (portlint/tables/servers.yaml): valid, packaged, and each
entry's commands found with their port."""
from __future__ import annotations

import json
import os
from importlib.resources import files
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from portlint.speed.needles import NEEDLES
from portlint.tables import servers

SCHEMA = json.loads((files("portlint.tables") / "servers.schema.json").read_text())
SERVERS = servers.load()


def test_the_yaml_is_valid_and_the_packaged_json_is_it() -> None:
    """servers.json is what checks load; the YAML is the source.
    `PORTLINT_UPDATE_FIXTURES=1 pytest tests/tables/test_servers.py -k json` regenerates it."""
    expected = servers.from_yaml()
    Draft202012Validator(SCHEMA).validate(expected)
    json_path = Path(servers.__file__).with_name("servers.json")
    if os.environ.get("PORTLINT_UPDATE_FIXTURES", "") not in ("", "0"):
        json_path.write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert servers.table() == expected, "servers.json is stale: regenerate it (see this test's docstring)"


def test_the_schema_rejects_a_server_without_a_default() -> None:
    broken = {"name": "x", "runs": [["x"]], "flags": ["--port"], "source": "somewhere real"}
    assert list(Draft202012Validator(SCHEMA).iter_errors({"servers": [broken]}))


@pytest.mark.parametrize("server", [s for s in SERVERS if not s.mapping], ids=lambda s: s.name)
def test_each_command_of_an_entry_starts_it_on_its_flag_or_its_default(server: servers.Server) -> None:
    assert set(servers.NEEDLES) <= set(NEEDLES)
    for run in server.runs:
        words = ["nohup", *(word.replace("*", "3.11") for word in run)]
        assert servers.mentioned(" ".join(words).encode()), run
        found = servers.started([*words, "model"])
        assert found is not None and (found.server, found.port, found.flag) == (server, server.default, "")
        flag = server.flags[0]
        assert servers.started([*words, f"{flag}=4242"]).port == 4242
        assert servers.started([*words, flag, "localhost:4243"]).port == 4243
        expansion = servers.started([*words, flag, "$PORT"])
        assert expansion.port is None and expansion.value == "$PORT"
        for option in server.unless:
            assert servers.started([*words, option]) is None


@pytest.mark.parametrize("server", [s for s in SERVERS if s.mapping], ids=lambda s: s.name)
def test_each_mapping_entry_listens_on_the_local_side(server: servers.Server) -> None:
    for run in server.runs:
        words = ["nohup", *run, "svc/x"]
        assert servers.mentioned(" ".join(words).encode()), run
        found = servers.started([*words, "8080:80"])
        assert found is not None and (found.server, found.port, found.flag, found.value) == \
            (server, 8080, "8080:80", "8080")
        assert servers.started([*words, "$PORT:80"]).port is None
        assert servers.started([*words, ":80"]) is None
        assert servers.started(words) is None


def test_options_of_the_program_may_stand_between_a_commands_words() -> None:
    assert servers.mentioned(b'kubectl -n "$ns" --context=k8s port-forward svc/x 8080:80')
    assert servers.started(["kubectl", "-n", "$ns", "--context=k8s", "port-forward", "svc/x", "8080:80"]).port == 8080
    assert servers.started(["python3", "-u", "-W", "ignore", "-m", "sglang.launch_server"]).port == 30000
    assert servers.started(["python3", "bench.py", "-m", "sglang.launch_server"]) is None


def test_the_schema_rejects_a_mapping_entry_with_a_default() -> None:
    broken = {"name": "x", "runs": [["x"]], "mapping": True, "default": 1, "source": "somewhere real"}
    assert list(Draft202012Validator(SCHEMA).iter_errors({"servers": [broken]}))


@pytest.mark.parametrize(("words", "program", "flag", "port"), [
    (["some-cli", "serve", "--port", "8000"], "`some-cli serve`", "--port", 8000),
    (["python3", "-u", "-m", "pkg.server", "--http-port=8100"], "`python3 -m pkg.server`", "--http-port", 8100),
    (["nohup", "env", "A=1", "/opt/bin/api-gateway", "--grpc_port", "$PORT"], "`api-gateway`", "--grpc_port", None),
    (["python", "tools/serve.py", "--host", "0.0.0.0", "--port", "{#0}"], "`python tools/serve.py`", "--port", None),
    (["uv", "run", "--extra", "gpu", "python", "-m", "pkg.mcp", "--port", "$PORT"], "`python -m pkg.mcp`", "--port", None),
])
def test_a_program_handed_a_port_by_an_option_listens_there(words: list[str], program: str, flag: str,
                                                              port: int | None) -> None:
    found = servers.started(words)
    assert found is not None and (found.server.name, found.flag, found.port) == (program, flag, port)


@pytest.mark.parametrize("words", [
    ["pip", "install", "vllm"],
    ["echo", "serve"],
    ["curl", "--port", "8000"],  # a client
    ["ssh", "-p", "2222", "host"],
    ["python", "bench.py", "--server-port", "8000"],  # the far end's port
    ["python", "bench.py", "--remote_port=8000"],
    ["python", "bench.py", "--min-port", "8000"],  # a range's bound
    ["python", "bench.py", "--num-ports", "4"],
    ["some-server", "-p", "8000"],  # a short option says too little
    ["some-server", "--port", "auto"],
    ["some-server", "--port", "0"],
    ["python", "-c", "print(1)", "--port", "8000"],
])
def test_other_commands_start_nothing(words: list[str]) -> None:
    assert servers.started(words) is None
