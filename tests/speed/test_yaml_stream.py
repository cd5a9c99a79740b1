"""A YAML stream's documents found by their markers, and the stream with some of them blanked
(portlint/speed/yaml_stream.py): what is left composes to the nodes the whole stream gives."""
from __future__ import annotations

import itertools
from typing import Any

import pytest

from portlint.model.naming import NameFilter
from portlint.model.source import Source
from portlint.speed.yaml_stream import blanked, documents
from portlint.stages.extract import yaml
from portlint.stages.extract.yaml import compose

DOCUMENTS = (
    "a: 1\nb: [2, 3]\n",
    "# a comment\nkey: |+\n  kept\n\n",
    "--- |\n  a scalar on the marker's line\n",
    "list:\n- x: 'quoted --- not a marker'\n- y: \"...\"\n",
    "text: >\n  folded\n  lines\n...\n",
    "anchor: &a {p: 7000}\nalias: *a\n",
    "naïve: ünïcödé ports\nport: 8080\n",
)


def _stream(parts: tuple[str, ...]) -> str:
    text = ""
    for part in parts:
        if text and not part.startswith("---"):
            text += "---\n"
        text += part
    return text


def _nodes(node: Any) -> Any:
    """A node as values and marks, all the way down."""
    marks = (node.start_mark.index, node.start_mark.line, node.start_mark.column, node.end_mark.index)
    if node.id == "scalar":
        return (node.value, node.style, marks)
    if node.id == "sequence":
        return ([_nodes(item) for item in node.value], marks)
    return ([(_nodes(key), _nodes(value)) for key, value in node.value], marks)


def test_the_documents_are_cut_after_each_marker_up_to_the_next_with_an_end_marker() -> None:
    text = "a: 1\n---\nb: 2\n--- |\n  x\n...\n---\nc: 3\n"
    assert [text[start:end] for start, end in documents(text) or ()] == \
           ["a: 1\n", "\nb: 2\n", " |\n  x\n...", "\n", "\nc: 3\n"]


def test_a_stream_that_opens_with_a_marker_has_no_document_before_it() -> None:
    assert documents("--- \na: 1\n") == [(3, 10)]


@pytest.mark.parametrize("text", [
    "%YAML 1.2\n---\na: 1\n",  # a directive belongs to the document after it
    "a: 1\n...\n%TAG !e! tag:example.com,2000:\n---\nb: !e!x 2\n",
    "a: 1\r---\rb: 2\r",  # a lone CR breaks a line for YAML
    "a: 1\x85---\x85b: 2\n",  # and so do NEL, LS and PS
    "a: 1\u2028b: 2\n",
    "a: 1\n---\n\ufeffb: 2\n",  # a BOM inside the stream
], ids=["directive", "directive-after-an-end", "lone-cr", "nel", "line-separator", "bom-inside"])
def test_a_stream_the_split_may_misread_is_not_split(text: str) -> None:
    assert documents(text) is None


def test_indented_or_glued_markers_are_no_markers() -> None:
    text = "a: |\n  ---\nb: ---x\n----\n"
    assert documents(text) == [(0, len(text))]


def test_blanking_keeps_every_index_and_line_break() -> None:
    text = "a: 1\r\n---\r\nb: ü\r\n---\r\nc: 3\r\n"
    spans = documents(text)
    assert spans is not None
    cold = blanked(text, [spans[1]])
    assert len(cold) == len(text)
    assert cold == "a: 1\r\n---\r\n    \r\n---\r\nc: 3\r\n"


@pytest.mark.parametrize("parts", list(itertools.permutations(DOCUMENTS, 3)))
def test_the_documents_left_compose_to_the_nodes_the_whole_stream_gives(parts: tuple[str, ...]) -> None:
    text = _stream(parts)
    spans = documents(text)
    assert spans is not None and len(spans) >= 3
    whole = compose(text)
    assert len(whole) == 3
    for start, end in spans:
        left = [_nodes(root) for root in compose(blanked(text, [(start, end)])) if not _empty(root)]
        assert left == [_nodes(root) for root in whole if not start <= root.start_mark.index < end]


def _empty(root: Any) -> bool:
    """A document blanked: an empty scalar where it had a marker (none where it had none)."""
    return bool(root.id == "scalar" and root.value == "" and not root.style)


CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.com
spec:
  names:
    kind: Thing
"""
CONFIG = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ports\ndata:\n  admin_port: "7070"\n'
POD = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: head\nspec:\n  containers:\n  - name: head\n    env:\n    - name: X\n      value: '1'\n"


@pytest.mark.parametrize("parts", [
    (CRD, CONFIG),  # every document an object: the file's keys are its pods'
    (CONFIG, "settings:\n  steps: 10\n"),  # a cold document that is no object: nor is the file
    (CONFIG, "apiVersion: kind.x-k8s.io/v1alpha4\nkind: Cluster\n"),  # kind's own config: the host's
    (CRD, CONFIG, POD.replace("spec:\n", "spec:\n  hostNetwork: true\n")),  # a pod on the host's network
    (CRD, CONFIG, POD.replace("spec:\n", "spec:\n  hostNetwork:\n    True\n")),  # its value on the next line
    (CONFIG, CRD + "  hostNetwork:\n    type: boolean\n"),  # described: cold
    (CRD, "--- # nothing but a comment\n", CONFIG),  # an empty document after a marker: an empty scalar
    ("# nothing but a comment\n", CONFIG, CRD),  # before any: no document
    ("# a comment\n", CONFIG, "a: |+\n  kept\n\n"),
], ids=["objects", "no-object", "kind-config", "host-network", "host-network-below", "host-network-described",
        "empty", "empty-first", "comment-first"])
def test_a_stream_read_by_its_hot_documents_gives_what_the_whole_stream_gives(parts: tuple[str, ...]) -> None:
    """The fast path `documents` against its plain way: the same sites (each marked as a pod's own
    or not, a fact of the whole file) and comments, with a document blanked."""
    source = Source("deploy/release.yaml", _stream(parts).encode())
    fast = yaml._hot_documents(source, NameFilter())
    assert fast is not None  # a document was cold: the fast path was taken
    plain = yaml.extract_with_roots(source, NameFilter())[0]
    assert fast == plain and fast.sites


def test_a_stream_whose_kept_document_nests_too_deep_is_left_to_the_whole_stream() -> None:
    """The whole stream then reports it (TooDeep, PL001), where it is first."""
    deep = "admin_port: " + "[" * (yaml.MAX_DEPTH + 1) + "]" * (yaml.MAX_DEPTH + 1) + "\n"
    source = Source("deploy/release.yaml", _stream((CRD, deep)).encode())
    assert yaml._hot_documents(source, NameFilter()) is None
    assert "nested deeper" in yaml.extract(source, NameFilter()).error
