"""The Python extractor: constants, defaults, conditional literals, env lookups; never runs code."""
from __future__ import annotations

from portlint.extract.python import extract
from portlint.naming import NameFilter
from portlint.source import Source


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
