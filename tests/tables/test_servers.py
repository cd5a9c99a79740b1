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


@pytest.mark.parametrize("server", SERVERS, ids=lambda s: s.name)
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


def test_other_commands_start_nothing() -> None:
    assert servers.started(["pip", "install", "vllm"]) is None
    assert servers.started(["echo", "serve"]) is None
