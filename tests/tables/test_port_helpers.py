"""The table of libraries' free-port helpers (portlint/tables/port_helpers.yaml): valid, packaged, and
each entry judged as a call of the repository's own helper of that behaviour would be."""
from __future__ import annotations

import ast
import json
import os
import re
import textwrap
from importlib.resources import files
from pathlib import Path
from types import SimpleNamespace

import pytest
from jsonschema import Draft202012Validator

from portlint.analysis.sockets import analyse
from portlint.model.extraction import CodeFile
from portlint.rules import ephemeral_fallback, toctou_probe
from portlint.speed.needles import NEEDLES
from portlint.tables import port_helpers

SCHEMA = json.loads((files("portlint.tables") / "port_helpers.schema.json").read_text())
HELPERS = port_helpers.load()


def test_the_yaml_is_valid_and_the_packaged_json_is_it() -> None:
    """port_helpers.json is what checks load; the YAML is the source.
    `PORTLINT_UPDATE_FIXTURES=1 pytest tests/tables/test_port_helpers.py -k json` regenerates it."""
    expected = port_helpers.from_yaml()
    Draft202012Validator(SCHEMA).validate(expected)
    json_path = Path(port_helpers.__file__).with_name("port_helpers.json")
    if os.environ.get("PORTLINT_UPDATE_FIXTURES", "") not in ("", "0"):
        json_path.write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert port_helpers.table() == expected, "port_helpers.json is stale: regenerate it (see this test's docstring)"


@pytest.mark.parametrize(("entry", "why"), [
    ({"package": "vllm", "name": "f", "returns": "released", "source": "somewhere real"}, "a released number needs its port"),
    ({"package": "vllm", "name": "f", "returns": "probe", "port": "zero", "source": "somewhere real"}, "a probe has no port kind"),
    ({"package": "vllm", "name": "f", "returns": "kept", "port": "zero", "source": "somewhere real"}, "unknown returns"),
    ({"package": "vllm", "name": "f", "returns": "released", "port": "zero"}, "no source"),
    ({"package": "vllm.utils", "name": "f", "returns": "released", "port": "zero", "source": "somewhere real"}, "a package is one name"),
])
def test_the_schema_rejects_a_broken_entry(entry: dict, why: str) -> None:
    assert list(Draft202012Validator(SCHEMA).iter_errors({"helpers": [entry]})), why


def test_every_helper_is_found_by_the_byte_test_and_its_words_are_needles() -> None:
    assert set(port_helpers.NEEDLES) <= set(NEEDLES)
    for helper in HELPERS:
        assert port_helpers.mentioned(f"x = {helper.name}()\n".encode()), helper.name
    assert not port_helpers.mentioned(b"free_port_count = 3\nopen_ports = []\n")


def test_the_rules_document_every_helper_of_the_table() -> None:
    """`portlint rule PL601`/`PL602` list each helper under its package (an entry `  pkg, other: names`)."""
    for rule in (toctou_probe, ephemeral_fallback):
        listed = (rule.__doc__ or "").split("Helpers of other modules and libraries:", 1)[1].split("\nWhy:", 1)[0]
        entries = re.split(r"\n  (?=\w[\w, ]*:)", listed)[1:]
        for helper in HELPERS:
            name = f"{helper.owner}.{helper.name}" if helper.owner else helper.name
            assert any(helper.package in entry.split(":", 1)[0].split(", ") and re.search(rf"\b{re.escape(name)}\b", entry)
                       for entry in entries), (rule.CODE, helper.package, name)


def judged(source: str) -> list[tuple[int, str, str]]:
    data = textwrap.dedent(source).encode()
    layout = SimpleNamespace(code_files=(CodeFile("m.py", "python", data, analyse(data, ast.parse(data))),))
    problems = [*toctou_probe.check(layout), *ephemeral_fallback.check(layout)]  # type: ignore[arg-type]
    return sorted((p.line, p.code, p.message) for p in problems)


def call_of(helper: port_helpers.Helper, arguments: str = "") -> tuple[str, str]:
    """An import of the helper and a call of it, as a module of the field writes them."""
    module = (helper.modules or (helper.package,))[0]
    if helper.owner:
        return f"from {module}.lib import {helper.owner}", f"{helper.owner}.instance().{helper.name}({arguments})"
    return f"from {module}.utils import {helper.name}", f"{helper.name}({arguments})"


@pytest.mark.parametrize("helper", [h for h in HELPERS if h.returns == "released"], ids=lambda h: f"{h.package}.{h.name}")
def test_a_released_number_handed_on_is_reported_at_the_call(helper: port_helpers.Helper) -> None:
    imported, call = call_of(helper)
    number = f"{call}[{helper.item}]" if helper.item >= 0 else call
    found = judged(f"""\
        import subprocess
        {imported}
        def launch():
            port = {number}
            return subprocess.Popen(["server", "--port", str(port)])
    """)
    code = "PL602" if helper.port == "zero" else "PL601"
    port = "port 0" if helper.port == "zero" else "a scanned port"
    assert [(line, c) for line, c, _ in found] == [(4, code)]
    assert found[0][2].startswith(f"launch() binds {port} through ")
    assert f"{helper.name}() of {helper.package} releases the socket it bound, then the port is passed to " \
           f"subprocess.Popen() at line 5" in found[0][2]


@pytest.mark.parametrize("helper", [h for h in HELPERS if h.returns == "socket"], ids=lambda h: f"{h.package}.{h.name}")
def test_a_returned_socket_closed_before_its_number_is_published_is_reported(helper: port_helpers.Helper) -> None:
    imported, call = call_of(helper)
    found = judged(f"""\
        import os
        from contextlib import closing
        {imported}
        def set_master_port():
            with closing({call}) as sock:
                port = sock.getsockname()[1]
            os.environ["MASTER_PORT"] = str(port)
        def kept():
            sock = {call}
            return sock, sock.getsockname()[1]
    """)
    assert [(line, code) for line, code, _ in found] == [(5, "PL602")]
    assert "the `with` block of line 5 closes the socket, then the port is stored in os.environ" in found[0][2]


@pytest.mark.parametrize("helper", [h for h in HELPERS if h.returns == "probe"], ids=lambda h: f"{h.package}.{h.name}")
def test_a_probe_of_the_candidates_of_a_scan_is_reported(helper: port_helpers.Helper) -> None:
    imported, call = call_of(helper, "port")
    test = call if helper.free_when else f"not {call}"
    found = judged(f"""\
        {imported}
        def pick():
            for port in range(7000, 7100):
                if {test}:
                    return port
    """)
    assert [(line, code) for line, code, _ in found] == [(4, "PL601")]
    assert f"pick() probes a scanned port with {helper.name}() of {helper.package} here" in found[0][2]


@pytest.mark.parametrize("helper", [h for h in HELPERS if h.returns == "carries"], ids=lambda h: f"{h.package}.{h.name}")
def test_a_number_carried_by_the_helper_goes_on_with_its_result(helper: port_helpers.Helper) -> None:
    imported, _ = call_of(helper)
    found = judged(f"""\
        import socket
        {imported}
        def address():
            with socket.socket() as s:
                s.bind(("", 0))
                url = {helper.name}("127.0.0.1", s.getsockname()[1])
            return url
    """)
    assert [(line, code) for line, code, _ in found] == [(5, "PL602")]
    assert "the `with` block of line 4 closes the socket, then the port is returned at line 7" in found[0][2]


def test_a_helper_is_resolved_only_through_an_import_from_its_library() -> None:
    """The repository's own function of the same name is its own (judged by its own summary), and a name
    imported from another package is no helper of the table."""
    assert judged("""\
        from mypkg.net import get_open_port
        def launch():
            return get_open_port()
    """) == []
    assert [(line, code) for line, code, _ in judged("""\
        import vllm.utils
        from vllm import utils as vu
        def one():
            return vllm.utils.get_open_port()
        def two():
            return vu.get_open_port()
    """)] == [(4, "PL602"), (6, "PL602")]


def test_a_module_that_only_names_a_helper_is_not_read_for_one() -> None:
    """The bytes name a helper of the table, but the module imports it from no library of the table, or
    imports the library without calling the helper through it: the socket analysis does not read it."""
    from portlint.analysis import sockets

    assert not sockets.uses_sockets(b"import ray\nfrom .utils import find_free_port\nport = find_free_port()\n")
    assert sockets.uses_sockets(b"import ray\nport = ray.find_free_port()\n")
    assert sockets.uses_sockets(b"from vllm.utils import get_open_port\n")
    assert not sockets.uses_sockets(b"from torch.nn import get_free_port\n")
