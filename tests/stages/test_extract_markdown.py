"""Unit tests of the Markdown extractor: `NAME=N` in code spans and table cells."""
from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from portlint.model.extraction import Extraction
from portlint.model.naming import NameFilter
from portlint.model.source import Source
from portlint.stages.extract.markdown import extract


def _extract(text: str | bytes, names: NameFilter | None = None) -> Extraction:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return extract(Source("README.md", data), names or NameFilter())


def _found(text: str | bytes, names: NameFilter | None = None) -> list[tuple[str, int]]:
    return [(site.name, site.value) for site in _extract(text, names).sites]


# -- inline code spans --------------------------------------------------------


def test_an_inline_code_span_gives_a_markdown_site_with_its_digit_span() -> None:
    data = b"Ray workers use `MIN_WORKER_PORT=2000` by default.\n"
    (site,) = _extract(data).sites
    assert (site.kind, site.name, site.value, site.role, site.scope) == (
        "markdown", "MIN_WORKER_PORT", 2000, "low", "")
    assert site.path == "README.md"
    assert data[site.start : site.end] == b"2000"
    assert (site.line, site.column, site.end_line, site.end_column) == (1, 34, 1, 38)


def test_one_code_span_may_hold_several_sites() -> None:
    found = _found("Pass `MIN_WORKER_PORT=2000 MAX_WORKER_PORT=2999` to ray.\n")
    assert found == [("MIN_WORKER_PORT", 2000), ("MAX_WORKER_PORT", 2999)]


def test_a_double_backtick_span_may_contain_a_single_backtick() -> None:
    data = b"Use ``echo `x` MASTER_PORT=1400`` here.\n"
    (site,) = _extract(data).sites
    assert (site.name, data[site.start : site.end]) == ("MASTER_PORT", b"1400")


def test_a_span_closes_only_at_a_backtick_run_of_the_same_length() -> None:
    # The double run never closes, so its backticks are literal and the single ones pair up.
    assert _found("a ``b GYM_PORT=5000 ` c\n") == []
    assert _found("a ``b ` GYM_PORT=5000 `\n") == [("GYM_PORT", 5000)]
    assert _found("a `` b `GYM_PORT=5000` c\n") == [("GYM_PORT", 5000)]


def test_an_escaped_backtick_opens_no_span() -> None:
    assert _found("\\`MASTER_PORT=1400` x\n") == []


def test_a_code_span_may_continue_on_the_next_line_of_its_paragraph() -> None:
    assert _found("run `ray start\n--dashboard-port=8265` now\n") == [("--dashboard-port", 8265)]


def test_a_blank_line_ends_a_paragraph_so_no_span_crosses_it() -> None:
    assert _found("open ` here\n\nMASTER_PORT=1400 ` there\n") == []


def test_name_equals_number_in_plain_prose_is_not_a_site() -> None:
    assert _found("Set MASTER_PORT=1400 in your shell.\n") == []


def test_a_number_that_goes_on_as_a_word_or_a_decimal_is_not_a_site() -> None:
    assert _found("`MASTER_PORT=1400abc` `MASTER_PORT=1.5` `MASTER_PORT=${X}`\n") == []


def test_a_dotted_override_keeps_its_whole_key_path() -> None:
    found = _found("`uv run x.py cluster.master_port_range_low=1400`\n")
    assert found == [("cluster.master_port_range_low", 1400)]


# -- long options and quoting ---------------------------------------------------


def test_a_long_option_keeps_its_leading_dashes() -> None:
    data = b"`ray start --min-worker-port=2000 --max-worker-port=2999`\n"
    sites = _extract(data).sites
    assert [(s.name, s.value, s.role) for s in sites] == [
        ("--min-worker-port", 2000, "low"), ("--max-worker-port", 2999, "high")]


@pytest.mark.parametrize("quote", ['"', "'"])
def test_a_quoted_value_spans_its_digits_only(quote: str) -> None:
    data = f"`GYM_PORT={quote}5000{quote}`\n".encode()
    (site,) = _extract(data).sites
    assert (site.value, data[site.start : site.end]) == (5000, b"5000")
    assert data[site.start - 1 : site.end + 1] == f"{quote}5000{quote}".encode()


def test_an_unbalanced_quote_is_not_a_site() -> None:
    assert _found('`GYM_PORT="5000`\n') == []


# -- tables --------------------------------------------------------------------

TABLE = """\
| setting | meaning |
|---|:--:|
| `NODE_MANAGER_PORT=1301` | node manager |
| `OBJECT_MANAGER_PORT=1303` | object manager |
| MIN_WORKER_PORT=10002 | stale: Ray's default |
| `--dashboard-port=8265` | dashboard |
"""


def test_every_row_of_a_table_gives_its_site_including_a_stale_one() -> None:
    assert _found(TABLE) == [
        ("NODE_MANAGER_PORT", 1301),
        ("OBJECT_MANAGER_PORT", 1303),
        ("MIN_WORKER_PORT", 10002),
        ("--dashboard-port", 8265),
    ]


def test_table_sites_carry_their_row_line_and_exact_span() -> None:
    data = TABLE.encode()
    sites = _extract(data).sites
    assert [s.line for s in sites] == [3, 4, 5, 6]
    assert [data[s.start : s.end] for s in sites] == [b"1301", b"1303", b"10002", b"8265"]


def test_a_table_without_outer_pipes_and_with_several_sites_per_row() -> None:
    text = "a | b\n--- | ---\nGYM_PORT=5000 | `SANDBOX_PORT=6000`\n"
    assert _found(text) == [("GYM_PORT", 5000), ("SANDBOX_PORT", 6000)]


def test_an_escaped_pipe_splits_no_cell_and_an_indented_table_is_a_table() -> None:
    assert _found("| a \\| b | c |\n|---|---|\n| GYM_PORT=5000 | x |\n") == [("GYM_PORT", 5000)]
    assert _found("| a | b | c |\n|---|---|\n| GYM_PORT=5000 | x |\n") == []  # three cells over two
    assert _found("  | a |\n  |---|\n  | GYM_PORT=5000 |\n") == [("GYM_PORT", 5000)]


def test_pipes_without_a_delimiter_row_are_no_table() -> None:
    assert _found("| GYM_PORT=5000 | x |\n| SANDBOX_PORT=6000 | y |\n") == []


def test_a_delimiter_row_with_another_cell_count_makes_no_table() -> None:
    assert _found("| a | b |\n|---|\n| GYM_PORT=5000 | x |\n") == []


def test_a_blank_line_ends_a_table() -> None:
    assert _found("| a |\n|---|\n| GYM_PORT=5000 |\n\nSANDBOX_PORT=6000 |\n") == [("GYM_PORT", 5000)]


def test_a_table_after_a_paragraph_line_is_still_a_table() -> None:
    assert _found("Ports:\n| a |\n|---|\n| GYM_PORT=5000 |\n") == [("GYM_PORT", 5000)]


def test_a_table_inside_a_block_quote() -> None:
    assert _found("> | a |\n> |---|\n> | GYM_PORT=5000 |\n") == [("GYM_PORT", 5000)]


# -- fenced code and HTML comments -----------------------------------------------


@pytest.mark.parametrize("fence", ["```", "~~~", "````"])
def test_a_fenced_block_is_not_scanned(fence: str) -> None:
    text = f"{fence}bash\nMASTER_PORT=1400\necho `MASTER_PORT=1400`\n{fence}\n\n`GYM_PORT=5000`\n"
    assert _found(text) == [("GYM_PORT", 5000)]


@pytest.mark.parametrize(
    "not_a_closer",
    ["``", "~~~", "    ```", "``` bash", "`````x"],
    ids=["shorter", "other-char", "indented-4", "info-string", "trailing-text"],
)
def test_a_fence_closes_only_by_commonmark_rules(not_a_closer: str) -> None:
    text = f"```\n{not_a_closer}\n`MASTER_PORT=1400`\n```\n`GYM_PORT=5000`\n"
    assert _found(text) == [("GYM_PORT", 5000)]


def test_a_longer_indented_closing_fence_closes() -> None:
    assert _found("```\nx\n   `````  \n`GYM_PORT=5000`\n") == [("GYM_PORT", 5000)]


def test_an_unclosed_fence_runs_to_the_end_of_the_file() -> None:
    assert _found("`GYM_PORT=5000`\n~~~\n`MASTER_PORT=1400`\n```\n") == [("GYM_PORT", 5000)]


def test_a_backtick_fence_info_string_may_not_hold_a_backtick() -> None:
    # Not a fence but a code span (CommonMark 0.31, example 145).
    assert _found("``` a`b ```MASTER_PORT=1400\n") == []
    assert _found("```` `MASTER_PORT=1400` ````\n") == [("MASTER_PORT", 1400)]


def test_a_fence_nested_in_a_list_item_is_skipped() -> None:
    text = "1. Start:\n\n       ```bash\n       MASTER_PORT=1400 `A_PORT=1`\n       ```\n"
    assert _found(text) == []


def test_a_fence_inside_a_block_quote_ends_with_the_quote() -> None:
    text = "> ```\n> `MASTER_PORT=1400`\n\n`GYM_PORT=5000`\n"
    assert _found(text) == [("GYM_PORT", 5000)]


def test_html_comment_contents_are_not_scanned() -> None:
    text = (
        "Text <!-- `MASTER_PORT=1400` --> and `GYM_PORT=5000`.\n\n"
        "<!--\n| a |\n|---|\n| `MASTER_PORT=1400` |\n\n`MASTER_PORT=1400`\n-->\n"
        "`SANDBOX_PORT=6000`\n"
    )
    assert _found(text) == [("GYM_PORT", 5000), ("SANDBOX_PORT", 6000)]


def test_a_comment_inside_a_code_span_is_code() -> None:
    assert _found("`<!-- x --> GYM_PORT=5000`\n") == [("GYM_PORT", 5000)]


# -- unicode and line endings ------------------------------------------------------


def test_non_ascii_text_before_a_site_keeps_exact_byte_spans() -> None:
    data = "Café – 🚀 `MIN_WORKER_PORT=2000` | é\n".encode()
    (site,) = _extract(data).sites
    assert data[site.start : site.end] == b"2000"
    assert (site.line, site.column, site.end_column) == (1, 27, 31)


def test_non_ascii_text_in_a_table_cell_keeps_exact_byte_spans() -> None:
    data = "| é – 🚀 | x |\n|---|---|\n| ünïcødé 🚀 `GYM_PORT=5000` | – |\n".encode()
    (site,) = _extract(data).sites
    assert data[site.start : site.end] == b"5000"
    assert (site.line, site.column) == (3, 23)


def test_crlf_line_endings_keep_exact_spans() -> None:
    text = "# Ports\n\n```\nMASTER_PORT=1400\n```\n| a | b |\n|---|---|\n| `GYM_PORT=5000` | é |\n"
    data = text.replace("\n", "\r\n").encode()
    (site,) = _extract(data).sites
    assert data[site.start : site.end] == b"5000"
    assert (site.line, site.column, site.end_line, site.end_column) == (8, 13, 8, 17)


def test_a_byte_order_mark_does_not_hide_a_fence() -> None:
    assert _found(b"\xef\xbb\xbf```\n`MASTER_PORT=1400`\n```\n") == []


# -- suppressions -------------------------------------------------------------------


def test_a_suppression_sharing_its_line_applies_to_that_line() -> None:
    data = b"\nUse `GYM_PORT=5000` <!-- portlint: ignore[PL501, pl301] -->\n"
    (suppression,) = _extract(data).suppressions
    assert (suppression.line, suppression.column, suppression.codes) == (2, 21, ("PL501", "PL301"))
    assert data[suppression.start : suppression.end] == b"<!-- portlint: ignore[PL501, pl301] -->"


def test_a_suppression_alone_above_a_table_row_applies_to_the_row() -> None:
    text = (
        "| a |\n|---|\n| `NODE_MANAGER_PORT=1301` |\n"
        "<!-- portlint: ignore[PL501] -->\n| `MIN_WORKER_PORT=10002` |\n"
    )
    extraction = _extract(text)
    assert [s.line for s in extraction.suppressions] == [5]
    assert [(s.name, s.line) for s in extraction.sites] == [
        ("NODE_MANAGER_PORT", 3), ("MIN_WORKER_PORT", 5)]


def test_a_comment_line_inside_a_table_keeps_the_table_going() -> None:
    text = "| a |\n|---|\n<!-- a | b: portlint: ignore -->\n| GYM_PORT=5000 |\n"
    extraction = _extract(text)
    assert [(s.name, s.line) for s in extraction.sites] == [("GYM_PORT", 4)]
    assert [s.line for s in extraction.suppressions] == [4]


def test_a_row_without_an_equals_sign_still_gives_its_comment_and_its_stated_range() -> None:
    # a row with no `=` and no `<!--` is not split into cells; these two must still count
    text = ("| name | note |\n|---|---|\n| a | b <!-- portlint: ignore[PL501] --> |\n"
            "| dashboard | 8265 | `DASHBOARD_PORT` |\n| GYM_PORT=5000 | x |\n")
    extraction = _extract(text)
    assert [(s.line, s.codes) for s in extraction.suppressions] == [(3, ("PL501",))]
    assert [(s.name, s.value, s.role, s.line) for s in extraction.sites] == [
        ("DASHBOARD_PORT", 8265, "port", 4), ("GYM_PORT", 5000, "port", 5)]


def test_a_suppression_alone_applies_to_the_next_line_with_content() -> None:
    text = "intro\n\n  <!-- portlint: ignore -->\n\n<!-- other -->\nSet `GYM_PORT=5000`.\n"
    (suppression,) = _extract(text).suppressions
    assert (suppression.line, suppression.column, suppression.codes) == (6, 3, ())


def test_a_multi_line_suppression_alone_applies_below_its_last_line() -> None:
    (suppression,) = _extract("<!--\nportlint: ignore\n-->\n`GYM_PORT=5000`\n").suppressions
    assert (suppression.line, suppression.column) == (4, 1)


def test_a_suppression_at_the_end_of_the_file_keeps_its_own_line() -> None:
    assert [s.line for s in _extract("x\n<!-- portlint: ignore -->\n\n").suppressions] == [2]


def test_suppression_text_in_code_is_no_suppression() -> None:
    text = "`<!-- portlint: ignore -->`\n```\n<!-- portlint: ignore -->\n```\n"
    assert _extract(text).suppressions == ()


def test_an_ordinary_comment_is_no_suppression() -> None:
    assert _extract("<!-- TODO: ports -->\n").suppressions == ()


# -- which names are kept -------------------------------------------------------------


def test_a_name_that_is_not_wanted_is_skipped() -> None:
    assert _found("`NUM_WORKERS=8 NUM_PORTS=4 GYM_PORT=5000`\n") == [("GYM_PORT", 5000)]


def test_a_selector_makes_a_name_without_port_wanted() -> None:
    text = "`GCS_ADDRESS_SLOT=1200`\n"
    assert _found(text) == []
    assert _found(text, NameFilter(["GCS_ADDRESS_SLOT"])) == [("GCS_ADDRESS_SLOT", 1200)]


# -- robustness -----------------------------------------------------------------------

_NASTY = ["", "\n", "\r\n", "`", "``", "```", "~~~", "|", "|---|", "<!--", "-->", "<!-->",
          "\\", "> ", ">", "    ", "\t", "#", "- ", "1. ", "é", "🚀", "PORT=1", "A_PORT='2'",
          "--x-port=3", " ", "\r"]


@pytest.mark.parametrize("text", _NASTY)
def test_a_fragment_alone_never_raises(text: str) -> None:
    assert isinstance(_extract(text), Extraction)


def test_random_markdown_never_raises_and_every_span_is_the_value() -> None:
    rng = random.Random(20240607)
    for _ in range(400):
        data = "".join(rng.choice(_NASTY) for _ in range(rng.randint(1, 40))).encode()
        for site in _extract(data).sites:
            assert data[site.start : site.end].decode() == str(site.value)


# -- MyST directives ------------------------------------------------------------


def test_a_myst_list_table_of_name_rows_is_read_past_its_options() -> None:
    text = (
        "```{list-table} Ports\n:header-rows: 1\n:widths: 40 60\n\n"
        "* - Setting\n  - What\n* - `MASTER_PORT=1400`\n  - rendezvous\n"
        "* - `NODE_MANAGER_PORT=1301`\n  - raylet\n```\n"
    )
    sites = _extract(text).sites
    assert [(s.name, s.value, s.line, s.column) for s in sites] == [
        ("MASTER_PORT", 1400, 7, 18), ("NODE_MANAGER_PORT", 1301, 9, 24),
    ]


def test_admonitions_notes_dropdowns_and_colon_fences_hold_markdown_tables() -> None:
    text = (
        "```{note}\n| var | value |\n|---|---|\n| `GYM_PORT=5000` | gym |\n```\n"
        "````{admonition} Title\nSet `VLLM_PORT=7000`.\n````\n"
        "```{dropdown} More\n`A_PORT=1`\n```\n"
        ":::{tab-item} Linux\n`B_PORT=2`\n:::\n"
        "~~~{tip}\n`C_PORT=3`\n~~~\n"
    )
    assert _found(text) == [("GYM_PORT", 5000), ("VLLM_PORT", 7000), ("A_PORT", 1), ("B_PORT", 2), ("C_PORT", 3)]


def test_code_directives_stay_code_also_nested_in_a_directive_holding_markdown() -> None:
    text = (
        "````{note}\n```{code-block} bash\nexport `X_PORT=1`\n```\nafter `Y_PORT=2`\n````\n"
        "```{code}\n`Z_PORT=3`\n```\n:::{literalinclude} ../ports.py\n:::\n"
        "```{eval-rst}\n``W_PORT=4``\n```\n```bash\n`V_PORT=5`\n```\n"
    )
    assert _found(text) == [("Y_PORT", 2)]


def test_a_directive_body_ends_at_its_closing_fence_and_what_follows_is_read_once() -> None:
    text = ":::{note}\nsee `A_PORT=1`\n:::\nthen `B_PORT=2`\n\n:::{tip}\nunclosed `C_PORT=3`\n"
    assert _found(text) == [("A_PORT", 1), ("B_PORT", 2), ("C_PORT", 3)]


# -- the gate: a file where no line writes a wanted name and a number is not scanned --------


_REFERENCE = "# Options\n\n| option | type | default |\n|---|---|---|\n" + "".join(
    f"| `layer_{i}_size` | int | `{i * 64}` |\n" for i in range(200)
) + "\nThe port is chosen by the kernel when none is given.\n"


def test_a_file_where_no_line_writes_a_port_name_and_a_number_is_not_scanned(monkeypatch: pytest.MonkeyPatch) -> None:
    import portlint.stages.extract.markdown as markdown

    def scanner(*args: object) -> None:
        raise AssertionError("scanned")

    monkeypatch.setattr(markdown, "read", scanner)
    assert _extract(_REFERENCE) == Extraction()
    with pytest.raises(AssertionError, match="scanned"):
        _extract(_REFERENCE + "| `master_port` | int | `29500` |\n")
    with pytest.raises(AssertionError, match="scanned"):
        _extract(_REFERENCE + "<!-- portlint: ignore[PL101] -->\n")  # a comment: its suppression counts


def test_a_selected_name_without_port_in_it_opens_the_gate() -> None:
    names = NameFilter(["cluster.gcs_slot"])
    assert _found(_REFERENCE + "| `cluster.gcs_slot=7000` | | |\n", names) == [("cluster.gcs_slot", 7000)]


# Code fences: where every line that may state a port is in one the gate can be sure of, the file
# is not scanned; anywhere that reading is unsure, it is.
_FENCED = [
    "Run:\n```bash\nexport MASTER_PORT=1400\n```\n",
    "````\n```\n`MASTER_PORT=1400`\n````\n",
    "~~~\n`MASTER_PORT=1400`\n```\n",
    "<!-- c -->\n```\n`MASTER_PORT=1400`\n```\n",
    "```\n`MASTER_PORT=1400`\n",
    "- item\n  ```\n  `MASTER_PORT=1400`\n  ```\n",
]
_UNSURE = [
    "| a | b |\n|---|---|\n| x | y |\n```\n`MASTER_PORT=1400`\n```\n",
    "<div>\n```\n</div>\n\n`MASTER_PORT=1400`\n```\n",
    "- item\n  ```\n  code\nnot code `MASTER_PORT=1400`\n",
    "> ```\n> `MASTER_PORT=1400`\n> ```\n",
    ":::{note}\n```\n:::\n`MASTER_PORT=1400`\n",
    "```foo`bar\n`MASTER_PORT=1400`\n```\n",
    "```{note}\n`MASTER_PORT=1400`\n```\n",
    "   ```\n`MASTER_PORT=1400`\n   ```\n",
    "\t```\n`MASTER_PORT=1400`\n",
    "text\r```\r`MASTER_PORT=1400`\r```\r",
    "<!--\n```\n-->\n`MASTER_PORT=1400`\n",
    "- a\n\n      ```\n      `MASTER_PORT=1400`\n      ```\n",
    "Para\n<span>\n```\n`MASTER_PORT=1400`\n```\n",
    "```\ncode\n```\n`MASTER_PORT=1400`\n",
]


def test_a_file_whose_every_stating_line_is_in_a_code_fence_is_not_scanned(monkeypatch: pytest.MonkeyPatch) -> None:
    import portlint.stages.extract.markdown as markdown

    scanned: list[bytes] = []
    monkeypatch.setattr(markdown, "read", lambda source, names: scanned.append(source.data) or Extraction())
    for text in _FENCED + _UNSURE:
        _extract(text)
    assert scanned == [text.encode() for text in _UNSURE]


def _every_shape() -> list[str]:
    texts = [_REFERENCE, _REFERENCE + "| `master_port` | int | `29500` |\n", TABLE, *_FENCED, *_UNSURE]
    texts += [node.value for node in ast.walk(ast.parse(Path(__file__).read_text()))  # every text of the tests above
              if isinstance(node, ast.Constant) and isinstance(node.value, str) and "port" in node.value.lower()]
    rng = random.Random(20261203)
    texts += ["".join(rng.choice(_NASTY) for _ in range(rng.randint(1, 40))) for _ in range(300)]
    texts += [text.replace("\n", "\r\n") for text in texts[:40]]
    texts += [str(path.read_text()) for path in (Path(__file__).resolve().parents[2] / "fixtures").rglob("*.md")]
    return texts


@pytest.mark.parametrize("names", [NameFilter(), NameFilter(["cluster.gcs_slot", "Engine.port", "--rdzv-endpoint"])])
def test_the_gate_never_changes_what_the_scan_finds(names: NameFilter, monkeypatch: pytest.MonkeyPatch) -> None:
    import portlint.stages.extract.markdown as markdown

    texts = _every_shape()
    gated = [_extract(text, names) for text in texts]
    monkeypatch.setattr(markdown, "_may_state", lambda source, names: True)
    assert gated == [_extract(text, names) for text in texts]
    assert sum(1 for found in gated if found.sites) >= 10  # the shapes hold sites to lose


# -- CommonMark's blocks, as markdown-it-py reads them ------------------------------------


def test_an_indented_code_block_is_code() -> None:
    assert _found("Run:\n\n    export `MASTER_PORT=1400`\n\nthen `GYM_PORT=5000`\n") == [("GYM_PORT", 5000)]


def test_an_indented_line_inside_a_list_item_is_its_paragraph_not_code() -> None:
    # Four columns past the item's content are code, inside the item as anywhere.
    text = "- first\n\n    second `MASTER_PORT=1400`\n- third\n\n      code in the item: `GYM_PORT=5000`\n"
    assert _found(text) == [("MASTER_PORT", 1400)]


def test_a_fence_in_a_list_item_and_a_table_in_one() -> None:
    text = "1. Run:\n   ```bash\n   `MASTER_PORT=1400`\n   ```\n2. Table:\n   | a |\n   |---|\n   | GYM_PORT=5000 |\n"
    assert _found(text) == [("GYM_PORT", 5000)]


def test_raw_html_holds_no_code_span_but_its_comments_count() -> None:
    text = "<div>\n`MASTER_PORT=1400` <!-- portlint: ignore -->\n</div>\n\n`GYM_PORT=5000`\n"
    extraction = _extract(text)
    assert [(s.name, s.value) for s in extraction.sites] == [("GYM_PORT", 5000)]
    assert [s.line for s in extraction.suppressions] == [2]


def test_a_lazy_continuation_line_belongs_to_the_quoted_paragraph() -> None:
    data = b"> start\n`MASTER_PORT=1400` end\n\n```\n`GYM_PORT=5000`\n```\n"
    (site,) = _extract(data).sites
    assert (site.name, site.line, data[site.start : site.end]) == ("MASTER_PORT", 2, b"1400")


def test_a_docusaurus_admonition_holds_markdown() -> None:
    assert _found(":::note\nSet `GYM_PORT=5000`.\n:::\n") == [("GYM_PORT", 5000)]


def test_a_directive_nested_in_a_quote_is_read_at_its_own_lines() -> None:
    data = b"> ```{note}\n> | a |\n> |---|\n> | `GYM_PORT=5000` |\n> ```\n"
    (site,) = _extract(data).sites
    assert (site.line, site.column, data[site.start : site.end]) == (4, 15, b"5000")


@pytest.mark.parametrize(("text", "passed"), [
    ("Start it with `python serve.py --api-port=8100`.\n", True),
    ("| replica | command |\n|---|---|\n| second | python serve.py --api-port=8100 |\n", True),
    ("The default is `--api-port=8100`.\n", False),
    ("| API server | `--api-port=8100` |\n|---|---|\n", False),
])
def test_an_options_value_in_an_example_command_is_passed(text: str, passed: bool) -> None:
    found = _extract(text, NameFilter(["--api-port"])).sites
    assert [(site.value, site.passed) for site in found] == [(8100, passed)]
