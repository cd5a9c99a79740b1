"""The Python extractor: constants, defaults, conditional literals, env lookups; never runs code."""
from __future__ import annotations

import pytest

from portlint.model.naming import NameFilter
from portlint.model.source import Source
from portlint.stages.extract.python import extract


def sites_of(data: bytes) -> dict[str, object]:
    extraction = extract(Source("m.py", data), NameFilter())
    assert not extraction.error
    return {s.name: s for s in extraction.sites}


def test_module_constants_annotated_or_not() -> None:
    data = b"DEFAULT_GYM_PORT_RANGE_LOW = 5000\nDEFAULT_GYM_PORT_RANGE_HIGH: int = 5999\n"
    sites = sites_of(data)
    assert sites["DEFAULT_GYM_PORT_RANGE_LOW"].role == "low"
    high = sites["DEFAULT_GYM_PORT_RANGE_HIGH"]
    assert data[high.start:high.end] == b"5999" and (high.line, high.column) == (2, 36)


def test_class_attributes_are_qualified_and_parameter_defaults_named_after_the_function() -> None:
    data = b"class Cfg:\n    master_port = 1400\ndef get_free_port(start_port=7000, *, port_hi=7999):\n    pass\n"
    sites = sites_of(data)
    assert set(sites) == {"Cfg.master_port", "get_free_port.start_port", "get_free_port.port_hi"}
    assert sites["get_free_port.start_port"].role == "base"


def test_literals_inside_conditional_and_boolean_expressions() -> None:
    data = b"def f(c):\n    base_port = max(c.values()) if c else 7000\n    vllm_port = c.get('x') or 8000\n"
    sites = sites_of(data)
    assert (sites["base_port"].value, sites["vllm_port"].value) == (7000, 8000)


def test_keyword_arguments_and_environment_lookups() -> None:
    data = (
        b"import os\nserve(port=8000)\np = os.environ.get('MASTER_PORT', '29500')\n"
        b"q = os.getenv('VLLM_PORT', 8100)\nos.environ['RAY_PORT'] = '6379'\n"
        b"os.environ.setdefault('GCS_PORT', '1200')\n"
    )
    sites = sites_of(data)
    assert {name: s.value for name, s in sites.items()} == {
        "port": 8000, "MASTER_PORT": 29500, "VLLM_PORT": 8100, "RAY_PORT": 6379, "GCS_PORT": 1200,
    }
    master = sites["MASTER_PORT"]
    assert data[master.start - 1:master.end + 1] == b"'29500'"


def test_counts_booleans_negative_and_concatenated_strings_are_not_sites() -> None:
    data = b"MAX_PORTS_PER_ENGINE = 100\nnum_ports = 4\nuse_port = True\nmaster_port = -1\nx_port = '12' '34'\nb_port = '0x1F'\n"
    assert sites_of(data) == {}


def test_non_ascii_before_a_literal_and_a_bom() -> None:
    data = "\ufeffNAME = 'é'; vllm_port = 8000  # ✓\n".encode()
    (site,) = sites_of(data).values()
    assert data[site.start:site.end] == b"8000"


def test_syntax_errors_and_python2_are_reported_not_raised() -> None:
    for bad in (b"def f(:\n", b"print 'port', 8000\n", b"x = 1\0\n"):
        assert extract(Source("m.py", bad), NameFilter()).error.startswith("invalid Python")


def test_suppression_comments_come_from_the_tokenizer() -> None:
    data = b"GYM_PORT = 5000  # portlint: ignore[PL301]\ns = '# portlint: ignore'\n"
    (suppression,) = extract(Source("m.py", data), NameFilter()).suppressions
    assert suppression.line == 1 and data[suppression.start:suppression.end] == b"# portlint: ignore[PL301]"


# --- command-line option defaults ------------------------------------------------------------


def test_argparse_defaults_are_named_after_the_long_option_with_the_destination_as_alias() -> None:
    data = (
        b"import argparse\np = argparse.ArgumentParser()\n"
        b"p.add_argument('--port', type=int, default=8000)\n"
        b"p.add_argument('-m', '--master-port', dest='mport', default='29500')\n"
        b"p.add_argument('vllm_port', nargs='?', default=8100)\n"
        b"p.add_argument('--seed', default=1234)\n"
    )
    sites = sites_of(data)
    assert {name: (s.aliases, s.value) for name, s in sites.items()} == {
        "--port": (("port",), 8000), "--master-port": (("mport",), 29500), "vllm_port": ((), 8100),
    }
    master = sites["--master-port"]
    assert data[master.start - 1:master.end + 1] == b"'29500'" and (master.line, master.column) == (4, 62)


def test_click_options_and_arguments_also_through_an_imported_name() -> None:
    data = (
        b"import click\nfrom click import option as opt\n"
        b"@click.command()\n@click.option('--port', '-p', default=9000)\n"
        b"@opt('--router', 'router_port', default=9100)\n@click.argument('gateway_port', default=9200)\n"
        b"def serve(port, router_port, gateway_port):\n    pass\n"
    )
    sites = sites_of(data)
    assert {name: (s.aliases, s.value) for name, s in sites.items()} == {
        "--port": (("port",), 9000), "--router": (("router_port",), 9100), "gateway_port": ((), 9200),
    }


def test_an_import_of_click_is_read_wherever_its_lines_break_and_its_other_uses_are_not_visited() -> None:
    # The module's name on a line that goes on to the next: the import is read, `opt` is click.option.
    data = (
        b"from click \\\n    import option as opt\n"
        b"@opt('--router', 'router_port', default=9100)\ndef serve(router_port):\n"
        b"    click.echo('serving')\n"
    )
    sites = sites_of(data)
    assert {name: (s.aliases, s.value) for name, s in sites.items()} == {"--router": (("router_port",), 9100)}
    from portlint.stages.extract.python import _hot_lines

    # `click.echo` (line 5) makes no line hot; the import's first line, the option and `router_port` do.
    assert _hot_lines(Source("m.py", data), NameFilter())[0] == [1, 3, 4]


def test_typer_options_as_defaults_or_annotated_take_the_parameter_as_destination() -> None:
    data = (
        b"from typing import Annotated\nimport typer\n"
        b"def main(port: int = typer.Option(7000, '--port', '-p'),\n"
        b"         api_port: Annotated[int, typer.Option('--api')] = 7100,\n"
        b"         rpc_port: int = typer.Option(default=7200),\n"
        b"         grpc_port: int = typer.Argument(7300)):\n    pass\n"
    )
    sites = sites_of(data)
    assert {name: (s.aliases, s.value) for name, s in sites.items()} == {
        "--port": (("port", "main.port"), 7000),
        "--api": (("api_port", "main.api_port"), 7100),
        "--rpc-port": (("rpc_port", "main.rpc_port"), 7200),
        "grpc_port": (("main.grpc_port",), 7300),
    }


def test_option_defaults_that_are_no_port_literal_are_not_sites() -> None:
    data = (
        b"import argparse, click\np = argparse.ArgumentParser()\n"
        b"p.add_argument('--port', default=None)\np.add_argument('--num-ports', default=4)\n"
        b"p.add_argument('--port', default=DEFAULT_PORT)\nadd_argument('--port', default=1)\n"
        b"@click.option('--timeout', default=36000)\ndef f(timeout):\n    pass\n"
    )
    assert sites_of(data) == {}


def test_upper_case_port_keys_of_a_mapping_are_the_environment_variables_it_sets() -> None:
    data = (
        b"import os\nos.environ.update({'MASTER_PORT': '7777', 'WORLD_SIZE': '2'})\n"
        b"env = {**os.environ, 'VLLM_PORT': 8000}\nconfig = {'port': 9000, 'server_port': 9001}\n"
    )
    sites = sites_of(data)
    assert {name: s.value for name, s in sites.items()} == {"MASTER_PORT": 7777, "VLLM_PORT": 8000}
    master = sites["MASTER_PORT"]
    assert data[master.start - 1:master.end + 1] == b"'7777'"


def test_the_hot_lines_are_numbered_as_ast_numbers_them_and_start_where_their_line_does() -> None:
    """Counted newline by newline up to each word (no list of every line's start), except where
    a lone CR ends a line too (Python's count): the same lines, and where each starts, as ast's."""
    import bisect
    import random
    import re

    from portlint.stages.extract.python import _hot_lines

    pieces = [b"\n", b"\r\n", b"\r", b"port = 1", b"x", b" MASTER_PORT", b"click", b"ports", b"\xc3\xa9", b"  ",
              b"import", b"\\"]
    rng = random.Random(5)
    for _ in range(3000):
        data = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        try:
            source = Source("m.py", data)
        except UnicodeDecodeError:
            continue
        starts = [0, *(m.end() for m in re.finditer(rb"\r\n?|\n", data))]  # as ast counts lines
        text = [re.sub(rb"[\r\n]+$", b"", data[start:end]) for start, end in zip(starts, [*starts[1:], len(data)])]
        words = [m.start() for m in re.finditer(rb"(?<![A-Za-z0-9])ports?(?![a-z0-9])|(?<![A-Z])PORTS?(?![A-Za-z0-9])", data)]
        # `click` only on a line that spells `import` or goes on to the next (an import can name it there)
        words += [m.start() for m in re.finditer(rb"click", data)
                  if b"import" in text[bisect.bisect_right(starts, m.start()) - 1]
                  or text[bisect.bisect_right(starts, m.start()) - 1].endswith(b"\\")]
        lines = sorted({bisect.bisect_right(starts, at) for at in words})
        assert _hot_lines(source, NameFilter()) == (lines, [starts[line - 1] for line in lines]), data


def test_the_hot_lines_are_those_found_when_every_word_is_looked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """A spelling of `port` or a hot word is looked for only where the one pass of
    portlint.speed.needles finds it: the lines are those a search for every one of them finds."""
    import random

    from portlint.stages.extract import python

    pieces = [b"\n", b"\r\n", b"\r", b"port", b"Port", b"PORT", b"xPort", b"APORT", b"_port", b"ports", b"import", b"click",
              b"typer", b"gcs_slot", b"serve_port", b"\xc3\xa9", b"\xef\xbd\x90\xef\xbd\x8f\xef\xbd\x92\xef\xbd\x94", b" ", b"=1"]
    names = [NameFilter(), NameFilter(["cluster.gcs_slot", "Engine.port", "x.click"])]
    rng = random.Random(7)
    cases = []
    for _ in range(3000):
        data = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        cases += [(Source("m.py", data), chosen) for chosen in names]
    found = [python._hot_lines(source, chosen) for source, chosen in cases]
    monkeypatch.setattr(python, "port_token", lambda data, which: True)
    monkeypatch.setattr(python, "holds", lambda data, literal: True)
    assert found == [python._hot_lines(Source("m.py", source.data), chosen) for source, chosen in cases]
    assert any(lines for lines, _ in found) and any(not lines for lines, _ in found)


def test_a_call_that_fills_a_setting_where_it_is_unset_marks_its_ports_as_that_settings_fallback() -> None:
    data = (
        b"import os\n"
        b"def scan(low_port=2000, high_port=3000):\n    pass\n"
        b"def pick(start_port=4000):\n    pass\n"
        b"a = int(os.environ.get('MASTER_PORT') or scan(low_port=2100, high_port=2900))\n"
        b"os.environ['STORE_PORT'] = str(pick(start_port=4100))\n"
        b"b = os.getenv('GCS_PORT', serve(port=5100))\n"
        b"c = launch(port=6100)\n"
    )
    found = {(site.line, site.name): site.fills for site in extract(Source("x.py", data), NameFilter()).sites}
    assert found == {
        (2, "scan.low_port"): "MASTER_PORT", (2, "scan.high_port"): "MASTER_PORT",
        (4, "pick.start_port"): "STORE_PORT",
        (6, "low_port"): "MASTER_PORT", (6, "high_port"): "MASTER_PORT",
        (7, "start_port"): "STORE_PORT",
        (8, "port"): "GCS_PORT",
        (9, "port"): "",
    }
