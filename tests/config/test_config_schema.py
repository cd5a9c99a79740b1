"""The compiled schema (portlint/config/schema_compiled.py): made from schema.json, and never
accepting a config jsonschema refuses, so that a valid config is told apart without importing
jsonschema and an invalid one still gets jsonschema's verdict and its wording."""
from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import subprocess
import sys
from importlib.resources import files
from pathlib import Path
from typing import Any

import fastjsonschema
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from test_config import ERRORS, YAML_CONFIG

from portlint.config import schema_compiled
from portlint.config.read import read
from portlint.config.schema import compiled_accepts, load_schema

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
COMPILED = Path(schema_compiled.__file__)


def compile_schema() -> str:
    """schema_compiled.py's text: fastjsonschema's code for schema.json, under a header naming the
    digest of the schema it was made from."""
    data = (files("portlint.config") / "schema.json").read_bytes()
    header = (
        "# schema.json compiled to Python by fastjsonschema.compile_to_code: do not edit.\n"
        "# `PORTLINT_UPDATE_FIXTURES=1 pytest tests/config/test_config_schema.py` makes it again.\n"
        f"# schema.json sha256: {hashlib.sha256(data).hexdigest()}\n"
    )
    code: str = fastjsonschema.compile_to_code(json.loads(data))
    return header + code.rstrip("\n") + "\n"


def jsonschema_accepts(data: Any) -> bool:
    return bool(Draft202012Validator(load_schema()).is_valid(data))


def test_the_compiled_schema_is_made_from_schema_json() -> None:
    """`PORTLINT_UPDATE_FIXTURES=1 pytest tests/config/test_config_schema.py -k made` makes it again. Its header
    names the digest of the schema it was made from; its code is what fastjsonschema makes of that
    schema, checked byte for byte when the installed fastjsonschema is the version that made it."""
    if os.environ.get("PORTLINT_UPDATE_FIXTURES", "") not in ("", "0"):
        COMPILED.write_text(compile_schema(), encoding="utf-8")
    text = COMPILED.read_text(encoding="utf-8")
    digest = hashlib.sha256((files("portlint.config") / "schema.json").read_bytes()).hexdigest()
    assert f"# schema.json sha256: {digest}\n" in text, "schema_compiled.py is stale: make it again (see the docstring)"
    made_by = re.search(r'^VERSION = "([^"]+)"$', text, re.M)
    assert made_by is not None
    if made_by.group(1) == fastjsonschema.VERSION:
        assert text == compile_schema()


def config_files() -> list[Path]:
    names = {".portlint.yaml", ".portlint.yml", "portlint.toml", ".portlint.toml"}
    found = [path for path in FIXTURES.rglob("*") if path.name in names]
    found += [path for path in FIXTURES.rglob("pyproject.toml") if b"[tool.portlint" in path.read_bytes()]
    return sorted(found)


def test_every_config_of_the_fixtures_takes_the_compiled_path() -> None:
    """Where both accept, jsonschema is never imported: true of every config the fixtures hold."""
    checked = 0
    for path in config_files():
        data = read(path).data
        assert jsonschema_accepts(data) and compiled_accepts(data), path
        checked += 1
    assert checked >= 90, checked


def yaml_data(text: str, tmp: Path) -> Any:
    path = tmp / ".portlint.yaml"
    path.write_text(text, encoding="utf-8")
    return read(path).data


def test_the_documented_config_is_accepted_by_both(tmp_path: Path) -> None:
    data = yaml_data(YAML_CONFIG, tmp_path)
    assert jsonschema_accepts(data) and compiled_accepts(data)


@pytest.mark.parametrize(("text", "message"), [case[1:] for case in ERRORS], ids=[case[0] for case in ERRORS])
def test_a_config_jsonschema_refuses_is_refused_compiled(text: str, message: str, tmp_path: Path) -> None:
    try:
        data = yaml_data(text, tmp_path)
    except Exception:  # invalid YAML: never validated
        return
    if isinstance(data, dict) and not jsonschema_accepts(data):
        assert not compiled_accepts(data), message


# -- mutations of a valid config: every single edit, then random chains of them ----------------
EDGE_VALUES: list[Any] = [
    None, True, False, 0, 1, 9000, 65535, 65536, -1, 2**70, 5000.0, 5000.5, float("nan"), float("inf"),
    "", "auto", "5000-5999", "5999-5000", "5000-5999\n", "PL501", "PL501\n", "PL5", "E501", "port", "low", "high",
    "base", "ports", "all", "yaml", "python", "gym", "my gym", "gym\n", "{name}", "examples/{name}", "**/*.py",
    datetime.date(2024, 1, 31), [], {}, [5000, 5999], ["a"], {"name": "x"},
]
EDGE_KEYS: list[Any] = [
    "range", "port", "ports", "sites", "name", "files", "kind", "role", "within", "shares_with", "window", "stride",
    "count", "privileged", "description", "copies", "source", "compare", "bands", "frozen", "include", "exclude",
    "test_paths", "per_file_ignores", "ephemeral_floor", "gym", "gym\n", "", "x y", 1,
]
SCALARS = st.one_of(st.sampled_from(EDGE_VALUES), st.integers(), st.text(max_size=8))
KEYS = st.one_of(st.sampled_from(EDGE_KEYS), st.text(max_size=6), st.integers(min_value=-2, max_value=2))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
                      max_leaves=6)


def places(data: Any) -> list[tuple[Any, Any]]:
    """Every (container, key or index) of the tree, containers themselves included."""
    found: list[tuple[Any, Any]] = []
    pending = [data]
    while pending:
        node = pending.pop()
        items = list(node.items()) if isinstance(node, dict) else list(enumerate(node)) if isinstance(node, list) else []
        for key, value in items:
            found.append((node, key))
            pending.append(value)
    return found


def test_no_single_edit_of_a_valid_config_is_accepted_compiled_and_refused_by_jsonschema() -> None:
    """Every value of the documented config replaced by every edge value, every key deleted, and
    every mapping given every edge key: the compiled schema accepts none that jsonschema refuses."""
    accepted = refused = 0
    base = _valid_config()
    for index, (_, key) in enumerate(places(base)):
        edits: list[tuple[str, Any]] = [("replace", value) for value in EDGE_VALUES] + [("delete", None)]
        edits += [("add", extra) for extra in EDGE_KEYS]
        for action, value in edits:
            config = _valid_config()
            container, key = places(config)[index]
            if action == "replace":
                container[key] = value
            elif action == "delete":
                del container[key]
            elif isinstance(container[key], dict):
                container[key][value] = 5000
            else:
                continue
            if compiled_accepts(config):
                assert jsonschema_accepts(config), (action, key, value)
                accepted += 1
            else:
                refused += 1
    assert accepted >= 100 and refused >= 1000, (accepted, refused)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_compiled_schema_accepts_nothing_jsonschema_refuses(data: st.DataObject) -> None:
    import copy

    def value() -> Any:
        """A drawn value of its own: EDGE_VALUES' lists and mappings are shared, and a later edit
        of this config may add to one (a change of the strategy's own data between runs)."""
        return copy.deepcopy(data.draw(VALUES))

    config = _valid_config()
    for _ in range(data.draw(st.integers(min_value=1, max_value=3))):
        spots = places(config)
        container, key = data.draw(st.sampled_from(spots))
        action = data.draw(st.sampled_from(["replace", "delete", "add"]))
        if action == "replace":
            container[key] = value()
        elif action == "delete":
            del container[key]
        elif isinstance(container, dict):
            container[data.draw(KEYS)] = value()
        else:
            container.append(value())
    accepted = compiled_accepts(config)
    event(f"compiled {'accepts' if accepted else 'refuses'}")
    if accepted:
        assert jsonschema_accepts(config), config


_CONFIG: list[Any] = []


def _valid_config() -> Any:
    """A fresh copy of the documented config's data (deep: every mutation starts from it whole)."""
    import copy
    import tempfile

    if not _CONFIG:
        with tempfile.TemporaryDirectory() as tmp:
            _CONFIG.append(yaml_data(YAML_CONFIG, Path(tmp)))
    return copy.deepcopy(_CONFIG[0])


PROBE = """import sys
from portlint.cli import main
code = main(["check", "--exit-zero", "-q", "--no-cache"])
print("imported:", " ".join(sorted(name for name in sys.modules if name.split(".")[0] == "jsonschema")[:1]))
"""


def test_a_check_with_a_valid_config_does_not_import_jsonschema(tmp_path: Path) -> None:
    (tmp_path / ".portlint.yaml").write_text(YAML_CONFIG, encoding="utf-8")
    (tmp_path / "serve.yaml").write_text("server:\n  port: 8080\n")
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "imported: "


def test_a_check_with_an_invalid_config_asks_jsonschema_for_its_words(tmp_path: Path) -> None:
    (tmp_path / ".portlint.yaml").write_text("bands:\n  gym:\n    rnage: 5000-5999\n    port: 5000\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "portlint", "check", "--no-cache"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr == 'portlint: error: .portlint.yaml: bands.gym: unknown key "rnage"; did you mean "range"?\n'
