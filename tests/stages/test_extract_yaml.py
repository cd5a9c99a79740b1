"""The YAML extractor: key paths, byte spans, quoting, aliases, documents, suppressions."""
from __future__ import annotations

from portlint.model.extraction import Extraction
from portlint.model.naming import NameFilter
from portlint.model.source import Source
from portlint.stages.extract.yaml import extract


def sites_of(data: bytes, selectors: tuple[str, ...] = ()) -> list:
    extraction = extract(Source("c.yaml", data), NameFilter(selectors))
    assert not extraction.error
    return list(extraction.sites)


def test_nested_keys_give_dotted_paths_roles_and_digit_spans() -> None:
    data = b"policy:\n  generation:\n    port_range_low: 3000\n    port_range_high: 4999\n"
    low, high = sites_of(data)
    assert (low.name, low.value, low.role, low.scope) == ("policy.generation.port_range_low", 3000, "low", "policy.generation")
    assert (high.name, high.role) == ("policy.generation.port_range_high", "high")
    assert data[low.start:low.end] == b"3000" and (low.line, low.column) == (3, 21)


def test_a_quoted_port_is_a_site_whose_span_excludes_the_quotes() -> None:
    data = b'master_port: "29500"\nother_port: \'1400\'\n'
    first, second = sites_of(data)
    assert data[first.start - 1:first.end + 1] == b'"29500"'
    assert data[second.start:second.end] == b"1400"


def test_non_ascii_text_before_a_value_still_gives_the_exact_byte_span() -> None:
    data = "# résumé ✓\nserveur: {nom: \"é✓\", port: 8000}\n".encode()
    (site,) = sites_of(data)
    assert data[site.start:site.end] == b"8000"
    assert (site.line, site.column) == (2, 28)


def test_list_items_are_indexed_and_aliases_are_one_site() -> None:
    data = b"base: &b\n  port: 7000\nservers:\n  - port: 8000\n  - *b\n  - <<: *b\n    name: x\n"
    names = [s.name for s in sites_of(data)]
    assert names == ["base.port", "servers[0].port"]


def test_every_document_of_a_multi_document_file_is_read() -> None:
    data = b"a_port: 1\n---\nb_port: 2\n...\n---\nc_port: 3\n"
    assert [s.value for s in sites_of(data)] == [1, 2, 3]


def test_counts_strings_floats_and_unport_names_are_not_sites() -> None:
    data = b"num_ports: 4\nport_offset: 1\nport: 80.5\nname_port: abc\nport_low: 0x1F\nrouter_port: 08080\n"
    assert sites_of(data) == []


def test_a_selector_makes_a_non_port_key_a_site() -> None:
    data = b"cluster:\n  gcs_slot: 1200\n"
    assert sites_of(data) == []
    assert [s.name for s in sites_of(data, ("cluster.gcs_slot",))] == ["cluster.gcs_slot"]


def test_crlf_and_bom_keep_spans_exact() -> None:
    data = b"\xef\xbb\xbfa:\r\n  port: 1301\r\n"
    (site,) = sites_of(data)
    assert data[site.start:site.end] == b"1301" and site.line == 2


def test_suppression_comments_are_found_but_not_inside_strings() -> None:
    data = b'port: 1  # portlint: ignore[PL101, pl301]\nname: "# portlint: ignore"\n'
    extraction = extract(Source("c.yaml", data), NameFilter())
    (suppression,) = extraction.suppressions
    assert (suppression.line, suppression.codes) == (1, ("PL101", "PL301"))
    assert data[suppression.start:suppression.end] == b"# portlint: ignore[PL101, pl301]"


def test_invalid_yaml_is_an_error_with_a_position_not_an_exception() -> None:
    extraction = extract(Source("c.yaml", b'a:\n  port: "7000\nb: 1\n'), NameFilter())
    assert extraction.error.startswith("invalid YAML") and extraction.error_line >= 2


def test_recursive_anchors_and_alias_bombs_stay_linear() -> None:
    lines = [b"a0: &a0 [port: 1]"] + [b"a%d: &a%d [*a%d, *a%d, *a%d]" % (i, i, i - 1, i - 1, i - 1) for i in range(1, 30)]
    extraction = extract(Source("bomb.yaml", b"\n".join(lines) + b"\n"), NameFilter())
    assert [s.name for s in extraction.sites] == ["a0[0].port"]


# Documents whose marks are easy to get wrong: a BOM, CRLF, a lone CR, non-ASCII and
# astral characters before a value, multi-line quoted strings, documents, flow style,
# anchors, tags, aliases, block scalars with an explicit indent, explicit keys, comments.
TRICKY = [
    "a:\r\n  port: 1301\r\n",
    "# é✓\nserveur: {nom: \"é✓\", port: 8000}\n",
    "a: 1\rport: 2\r",
    "a: \U0001F600 port\nb_port: 1\n",
    "k: 'multi\n  line é'\nport: 2\n",
    "x: &a 1\ny: *a\nz: !!int 2\nw: &b !!str 3\n",
    "---\na: 1\n...\n---\nb: [1, {c_port: 2}]\n",
    "s: |\n  text # x\n  more\nt: >-\n  folded\n  line\nu: |2\n   x\n  y\nport: 1\n",
    "'q': 'it''s'\n\"d\": \"\\x41\\u00e9\"\nport: \"3\"\n",
    "? k\n: v\n",
    "x:\n- a\n-   b: 1\n    c: [2, 3]\n",
    "a: 1 # c\n# d\nb: {e: 2, f: [3, {g: 4}]}\n",
    "base: &b {port: 1}\nuse:\n  <<: *b\n  other_port: 2\n",
    "command: [bash, -lc, 'ray start --port=6379']\nargs: [--x]\nrayStartParams: {num-cpus: '1'}\n",
]


def _marks(roots: list) -> list:
    from portlint.stages.extract.yaml import walk

    return [
        (path, node.id, node.value if node.id == "scalar" else None, node.start_mark.index, node.start_mark.line,
         node.start_mark.column, node.end_mark.index, node.end_mark.line, node.end_mark.column)
        for path, node in walk(roots)
    ]


def test_the_c_composer_and_the_pure_one_give_the_same_marks() -> None:
    """Sites are placed by the C composer's marks when ruamel.yaml.clib is installed and by
    the pure composer's otherwise: both must say the same index, line and column."""
    from portlint.stages.extract.yaml import _c_composer, _pure_yaml, compose

    assert _c_composer() is not None  # ruamel.yaml.clib is a dependency (pyproject.toml)
    pure = _pure_yaml()
    for text in TRICKY:
        assert _marks(compose(text)) == _marks([doc for doc in pure.compose_all(text) if doc is not None]), text


def test_one_walk_reads_what_the_generic_walk_and_the_command_finder_read() -> None:
    from portlint.stages.extract import yaml_commands
    from portlint.stages.extract.yaml import _tree, compose, walk

    names = NameFilter()
    for text in TRICKY:
        roots = compose(text)
        candidates, spanned, invoking, _, _ = _tree(roots)
        scalars = [(path, node) for path, node in walk(roots) if node.id == "scalar"]
        assert candidates == [(path, node) for path, node in scalars if path and node.value.isdigit()], text
        assert [n for n in spanned] == [n for _, n in scalars if "#" in n.value or n.style in ("|", ">")], text
        source = Source("c.yaml", text.encode())
        assert yaml_commands.find_in(source, invoking, names) == yaml_commands.find(source, roots, names), text


def test_a_comment_after_a_hash_inside_a_value_is_still_read() -> None:
    data = (
        b'url: "http://h/#top"  # portlint: ignore[PL302]\n'
        b"link: a#b  #   1400-1999  cluster.master_port_range_low/high\n"
        b'note: "#"  # says nothing\n'
    )
    extraction = extract(Source("c.yaml", data), NameFilter())
    (suppression,) = extraction.suppressions
    assert (suppression.line, suppression.column, suppression.codes) == (1, 23, ("PL302",))
    assert [(site.line, site.value, site.kind) for site in extraction.sites] == [(2, 1400, "comment"), (2, 1999, "comment")]


def test_a_compose_services_mounts_resolve_from_its_folder_and_stay_below_it() -> None:
    text = (
        "services:\n"
        "  proxy:\n"
        "    image: proxy\n"
        "    volumes:\n"
        "      - ./conf/proxy.yaml:/etc/proxy.yaml:ro\n"
        "      - ../shared:/shared\n"
        "      - .:/app\n"
        "      - cache:/cache\n"
        "      - /etc/hosts:/etc/hosts\n"
        "      - ${PWD}/x:/x\n"
        "      - {type: bind, source: ./scripts, target: /scripts}\n"
        "  host:\n"
        "    image: agent\n"
        "    network_mode: host\n"
        "    volumes: [\"./agent.yaml:/etc/agent.yaml\"]\n"
    )
    extraction = _extract(text, "deploy/compose.yaml")
    assert extraction.mounts == ("deploy/conf/proxy.yaml", "deploy/scripts")


def test_a_top_level_services_mapping_without_images_is_no_compose_file() -> None:
    text = "services:\n  api:\n    replicas: 2\n    volumes: [\"./conf.yaml:/etc/conf.yaml\"]\n"
    assert _extract(text, "deploy/services.yaml").mounts == ()


def _extract(text: str, path: str) -> Extraction:
    return extract(Source(path, text.encode()), NameFilter())
