"""Which YAML files are worth composing: every shape the byte test keeps yields something,
and a file it drops yields nothing (so dropping it changes no finding)."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from portlint.model.extraction import Extraction
from portlint.model.naming import NameFilter
from portlint.stages.extract.yaml import worth_composing
from portlint.stages.perfile import extract_file, worth_extracting
from portlint.stages.prefilter import prefilter


def worth(data: bytes, selectors: tuple[str, ...] = ()) -> bool:
    return worth_extracting("yaml", data, prefilter(selectors))


def extracted(data: bytes, selectors: tuple[str, ...] = ()) -> Extraction:
    return extract_file("c.yaml", "yaml", data, NameFilter(selectors)).extraction


# Each shape yields a site, a comment statement, a suppression, a command or an error,
# and hides the port token from a look at the key's own line in one way or another.
KEPT = {
    "non-ASCII before the port": "# réglages ✓\nserveur: {nom: \"é✓\", port: 8000}\n".encode(),
    "value on the next line, CRLF": b"serve:\r\n  http_port:\r\n    8000\r\n",
    "port in the second document": b"description: the port\n---\nmetrics_port: 8002\n",
    "JSON-like flow map": b'{"master_port":29500}\n',
    "flow sequence of maps": b"servers: [{name: a, port: 8000}]\n",
    "anchored value": b"router_port: &p 7000\nname: x\n",
    "tagged value": b"router_port: !!int 7000\n",
    "alias value": b"base: &p 7000\nrouter_port: *p\n",
    "alias as a key": b"names: [&k router_port]\nservers: {*k : 7000}\n",
    "explicit key": b"? router_port\n: 7000\n",
    "escaped key": b'"router_p\\x6frt": 7000\nnote: a port\n',
    "list under a port key": b"router_port:\n  - 7000\n",
    "quoted value": b"router_port: '7000'\n",
    "colon inside a quoted key": b'"port:a": 7000\n',
    "comment after a value": b"name: port-forward  # portlint: ignore[PL103]\n",
    "comment statement": b"#   1400-1999  cluster.master_port_range_low/high\ncluster: {}\n",
    "port only in a command string": b"containers:\n  - command: [torchrun, --master-port, '29500', train.py]\n",
    "env-style assignment in a command": b"job:\n  command: MASTER_PORT=1400 torchrun train.py\n",
    "ray start in a script": b"name: x\nrun: |\n  ray start --head --port=6379\n",
    "command list on the next lines": b"spec:\n  command:\n    - ray\n    - start\n    - --port=6379\n",
    "rayStartParams of a head group": b"headGroupSpec:\n  rayStartParams:\n    dashboard-host: 0.0.0.0\n",
    "empty rayStartParams": b"workerGroupSpecs:\n  - rayStartParams: {}\n",
    "not UTF-8": b"router_port: 1\n# r\xe9glages\n",
    "port key after a count key in a flow map": b"{port_count: 1, port: 2}\n",
    "camel-case key": b"masterPort: 29500\n",
    "key with a space": b"server port: 8000\n",
    "dotted key": b"head.port: 6379\n",
    "anchor named like a count before the key": b"&count router_port: 8000\n",
    "tag before the key": b"!!str router_port: 8000\n",
}

# Port tokens that yield nothing: counts and offsets (naming's _NOT_A_PORT), words that
# start with `port`, comments without a number, keys whose values are words.
DROPPED = {
    "a count": b"port_count: 2\nnum_ports: 4\nport_offset: 1\nMAX_PORTS_PER_ENGINE: 8\n",
    "a count in a flow map": b"{port_count: 2, name: x}\n",
    "a word that starts with port": b"portions: 3\nportable: true\n",
    "a comment without a number": b"# the head's port, see below\nname: x\n",
    "a word value": b"port: auto\nmetrics_port: none\nport_name: http\n",
    "a mapping value": b"port:\n  name: http\n  number: null\n",
}


@pytest.mark.parametrize("name", sorted(KEPT))
def test_a_shape_that_yields_something_is_composed(name: str) -> None:
    data = KEPT[name]
    assert extracted(data) != Extraction(), "the case must yield something to be worth keeping"
    assert worth(data)


def test_every_port_token_opens_with_a_spelling_of_port() -> None:
    """worth_composing finds the tokens' occurrences by one search of the lowered bytes."""
    assert all(token.pattern[:4].lower() == b"port" for token in prefilter().tokens)


@pytest.mark.parametrize("name", sorted(DROPPED))
def test_a_port_token_that_yields_nothing_is_not_composed(name: str) -> None:
    assert extracted(DROPPED[name]) == Extraction()
    assert not worth(DROPPED[name])


def test_a_selected_key_without_a_port_token_in_it_is_composed() -> None:
    data = b"description: the gcs port\ncluster:\n  gcs_slot: 1200\n"
    assert extracted(data) == Extraction() and not worth(data)
    assert [site.name for site in extracted(data, ("cluster.gcs_slot",)).sites] == ["cluster.gcs_slot"]
    assert worth(data, ("cluster.gcs_slot",))


def test_a_selected_high_end_stated_as_low_slash_high_in_a_comment_is_composed() -> None:
    data = b"description: the gcs port\n#   1400-1499  cluster.gcs_slot_low/high\ncluster: {}\n"
    assert extracted(data) == Extraction() and not worth(data)
    selectors = ("cluster.gcs_slot_high",)
    assert [site.value for site in extracted(data, selectors).sites] == [1400, 1499]
    assert worth(data, selectors)


def test_a_port_like_selector_key_is_left_to_the_port_token() -> None:
    """`WorkerConfig.port` selects what the port token finds anyway: its key `port`, searched
    as bytes, would find `import` and `support` in every file."""
    data = b"description: import and support ports\nrouter:\n  port_count: 2\n"
    assert extracted(data, ("WorkerConfig.port",)) == Extraction()
    assert not worth(data, ("WorkerConfig.port",))
    assert worth(b"worker:\n  port: 8000\n", ("WorkerConfig.port",))


# A CRD's schema: port keys whose values describe the field, commands and rayStartParams
# declared, not run.
CRD = b"""\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec:
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        properties:
          headGroupSpec:
            properties:
              rayStartParams:
                additionalProperties:
                  type: string
                type: object
              containers:
                items:
                  properties:
                    args:
                      items:
                        type: string
                      type: array
                    command:
                      items:
                        type: string
                      type: array
                    ports:
                      items:
                        properties:
                          containerPort:
                            description: 'Port to expose on the pod: a number, 0 < x < 65536.'
                            format: int32
                            type: integer
                          hostPort:

                            format: int32
                            type: integer
                        required:
                        - containerPort
                        type: object
                      type: array
"""


def test_a_crd_schema_is_not_composed() -> None:
    assert extracted(CRD) == Extraction()
    assert not worth(CRD)
    assert not worth(CRD.replace(b"\n", b"\r\n"))


@pytest.mark.parametrize("edit", [
    (b"format: int32\n                            type: integer\n                          hostPort:", b"format: int32\n                            type: integer\n                          hostPort: 80"),
    (b"", b"---\nheadGroupSpec:\n  rayStartParams:\n    num-cpus: '1'\n"),  # appended
    (b"spec:\n", b"spec:  # 6379 is ray.head_port\n"),
])
def test_one_live_line_in_a_crd_makes_it_composed(edit: tuple[bytes, bytes]) -> None:
    old, new = edit
    data = CRD.replace(old, new, 1) if old else CRD + new
    assert data != CRD and extracted(data) != Extraction()
    assert worth(data)


_KEYS = ["port", "master_port", "containerPort", "ports", "port_count", "num_ports", "server port", "&count port",
         "masterPort", "a.port", "port_range_low", "command", "args", "run", "setup",
         "rayStartParams", "properties", "description", "items", "name", "? port", '"port"', "*a", "- port"]
_VALUES = ["", "8000", "'8000'", '"80"', "&a 80", "*a", "!!int 80", "{port: 1}", "[1, 2]", "port 80",
           "|", "text", "# port 8000", "- 80", "x: 1", "ray start --port 1", "{}"]
_LINE = st.tuples(st.integers(0, 3), st.sampled_from(_KEYS), st.sampled_from(_VALUES))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_LINE, min_size=1, max_size=8), st.sampled_from([b"\n", b"\r\n"]))
def test_a_dropped_document_yields_nothing(lines: list[tuple[int, str, str]], newline: bytes) -> None:
    data = newline.join(
        f"{'  ' * depth}{key}: {value}".rstrip().encode() for depth, key, value in lines
    ) + newline
    result = extracted(data)
    if result.error:
        return  # not YAML: a dropped file is not checked, as any file the byte prefilter skips
    pattern = prefilter()
    if not worth_composing(data, pattern.tokens, pattern.keys):
        assert result == Extraction(), data


def test_a_large_file_is_read_once_and_by_its_bytes() -> None:
    """The verdict on a large file is remembered by its bytes: the same bytes at another path
    get it again, other bytes their own."""
    from portlint.stages.extract.yaml import _LARGE, _worth_composing

    pattern = prefilter()
    padding = b"# " + b"x" * 78 + b"\n"
    schema = CRD + padding * (_LARGE // len(padding))
    live = schema.replace(b"hostPort:\n", b"hostPort: 80\n", 1)
    assert len(schema) >= _LARGE and live != schema
    for data in (schema, bytes(bytearray(schema)), live, schema):  # the second: equal bytes, another object
        assert worth_composing(data, pattern.tokens, pattern.keys) == _worth_composing(data, pattern.tokens, pattern.keys)
    assert not worth_composing(schema, pattern.tokens, pattern.keys)
    assert worth_composing(live, pattern.tokens, pattern.keys)
