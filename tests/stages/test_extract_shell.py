"""Unit tests of the shell / sbatch extractor (kind `shell`)."""
from __future__ import annotations

from portlint.model.extraction import Extraction, Suppression
from portlint.model.naming import NameFilter
from portlint.model.sites import Site
from portlint.model.source import Source
from portlint.stages.extract.shell import extract


def scan(data: bytes, *selectors: str) -> Extraction:
    return extract(Source("x.sh", data), NameFilter(selectors))


def sites(data: bytes, *selectors: str) -> tuple[Site, ...]:
    extraction = scan(data, *selectors)
    assert extraction.error == ""
    return extraction.sites


def one(data: bytes, *selectors: str) -> Site:
    found = sites(data, *selectors)
    assert len(found) == 1, found
    return found[0]


def summary(site: Site) -> tuple[str, int, str, tuple[str, ...], str]:
    return site.name, site.value, site.role, site.aliases, site.derived


# --- 1. assignments --------------------------------------------------------------


def test_an_assignment_alone_is_a_site_spanning_its_digits() -> None:
    data = b"#!/bin/bash\nMASTER_PORT=29500\n"
    site = one(data)
    assert summary(site) == ("MASTER_PORT", 29500, "port", (), "")
    assert (site.start, site.end) == (24, 29)
    assert data[site.start:site.end] == b"29500"
    assert (site.line, site.column, site.end_line, site.end_column) == (2, 13, 2, 18)
    assert (site.path, site.kind, site.scope) == ("x.sh", "shell", "")


def test_a_double_quoted_value_spans_the_digits_without_quotes() -> None:
    data = b'MIN_WORKER_PORT="2000"\n'
    site = one(data)
    assert summary(site) == ("MIN_WORKER_PORT", 2000, "low", (), "")
    assert (site.start, site.end) == (17, 21)
    assert data[site.start:site.end] == b"2000"


def test_a_single_quoted_value_spans_the_digits_without_quotes() -> None:
    data = b"MAX_WORKER_PORT='2999'\n"
    site = one(data)
    assert summary(site) == ("MAX_WORKER_PORT", 2999, "high", (), "")
    assert (site.start, site.end) == (17, 21)


def test_several_assignments_before_a_command_are_all_sites() -> None:
    data = b"GCS_PORT=1200 CLIENT_PORT=1201 ray start\n"
    found = sites(data)
    assert [(s.name, s.value, s.start, s.end) for s in found] == [
        ("GCS_PORT", 1200, 9, 13),
        ("CLIENT_PORT", 1201, 26, 30),
    ]


def test_assignments_after_export_local_readonly_declare_and_typeset_are_sites() -> None:
    data = (
        b"export A_PORT=1\n"
        b"local B_PORT=2\n"
        b"readonly C_PORT=3\n"
        b"declare -x -i D_PORT=4 E_PORT=5\n"
        b"typeset F_PORT=6\n"
    )
    found = sites(data)
    assert [(s.name, s.value, s.line) for s in found] == [
        ("A_PORT", 1, 1), ("B_PORT", 2, 2), ("C_PORT", 3, 3), ("D_PORT", 4, 4), ("E_PORT", 5, 4), ("F_PORT", 6, 5),
    ]
    assert data[found[3].start:found[3].end] == b"4"


def test_an_assignment_after_a_keyword_is_at_command_position() -> None:
    data = b"if true; then HTTP_PORT=8080; fi\n"
    site = one(data)
    assert (site.name, site.value, site.start, site.end) == ("HTTP_PORT", 8080, 24, 28)


def test_a_name_value_argument_of_a_command_is_no_assignment() -> None:
    assert sites(b"make HTTP_PORT=8080\necho PORT=1\n") == ()


def test_a_value_that_is_not_a_plain_decimal_is_no_site() -> None:
    data = b"A_PORT=-1\nB_PORT=0x10\nC_PORT=12ab\nD_PORT=80$\nE_PORT=+5\nF_PORT=\nG_PORT=''\n"
    assert sites(data) == ()


def test_names_that_are_not_port_like_need_a_selector() -> None:
    data = b"NUM_NODES=4\nHEAD=7\n"
    assert sites(data) == ()
    site = one(data, "HEAD")
    assert (site.name, site.value, site.start, site.end) == ("HEAD", 7, 17, 18)


def test_a_non_ascii_line_before_a_site_shifts_bytes_not_columns() -> None:
    data = 'ECHO="héllo"; HTTP_PORT=8080\n'.encode()
    site = one(data)
    assert (site.start, site.end) == (25, 29)
    assert data[site.start:site.end] == b"8080"
    assert (site.line, site.column, site.end_column) == (1, 25, 29)


def test_a_non_ascii_comment_line_before_a_site() -> None:
    data = "# é ü\nHTTP_PORT=8080\n".encode()
    site = one(data)
    assert (site.start, site.end, site.line, site.column) == (18, 22, 2, 11)
    assert data[site.start:site.end] == b"8080"


def test_a_byte_order_mark_does_not_hide_the_first_assignment() -> None:
    data = b"\xef\xbb\xbfHTTP_PORT=8080\n"
    site = one(data)
    assert (site.start, site.end, site.line, site.column) == (13, 17, 1, 12)  # the BOM is a character


# --- 2. ${VAR:-N} as an assigned value ------------------------------------------------


def test_a_self_default_names_the_variable_once() -> None:
    data = b"NODE_MANAGER_PORT=${NODE_MANAGER_PORT:-1301}\n"
    site = one(data)
    assert summary(site) == ("NODE_MANAGER_PORT", 1301, "port", (), "")
    assert (site.start, site.end) == (39, 43)
    assert data[site.start:site.end] == b"1301"
    assert (site.line, site.column, site.end_line, site.end_column) == (1, 40, 1, 44)


def test_every_default_operator_quoted_or_not_gives_a_site() -> None:
    data = b'A_PORT=${A_PORT-1}\nB_PORT="${B_PORT:=2}"\nC_PORT=${C_PORT=3}\nD_PORT="${D_PORT:-4}"\n'
    found = sites(data)
    assert [(s.name, s.value, data[s.start:s.end]) for s in found] == [
        ("A_PORT", 1, b"1"), ("B_PORT", 2, b"2"), ("C_PORT", 3, b"3"), ("D_PORT", 4, b"4"),
    ]


def test_a_default_of_another_variable_answers_to_both_names() -> None:
    data = b'HEAD_PORT="${PORT:-6379}"\n'
    site = one(data)
    assert summary(site) == ("HEAD_PORT", 6379, "port", ("PORT",), "")
    assert (site.start, site.end) == (19, 23)


def test_the_alias_alone_can_make_the_site_wanted() -> None:
    site = one(b"HEAD=${GCS_PORT:-1200}\n")
    assert (site.name, site.aliases) == ("HEAD", ("GCS_PORT",))


def test_an_exported_default_is_a_site() -> None:
    data = b"export MIN_WORKER_PORT=${MIN_WORKER_PORT:-2000}\n"
    site = one(data)
    assert summary(site) == ("MIN_WORKER_PORT", 2000, "low", (), "")
    assert (site.start, site.end) == (42, 46)


def test_nested_defaults_chain_their_names() -> None:
    data = b"PORT=${A_PORT:-${B_PORT:-1301}}\n"
    site = one(data)
    assert (site.name, site.aliases, site.value, site.start, site.end) == ("PORT", ("A_PORT", "B_PORT"), 1301, 25, 29)


def test_a_parameter_without_default_is_no_site() -> None:
    assert sites(b"PORT=${OTHER_PORT}\nPORT=${OTHER_PORT:+1}\nPORT=${#OTHER_PORT}\nPORT=${OTHER_PORT%1}\n") == ()


def test_a_positional_default_is_named_after_what_it_is_assigned_to() -> None:
    data = b'f() {\n  local port=${1:-8000}\n  serve --http-port "${2:-9000}"\n  echo ${1:-5}\n}\n'
    found = sites(data)
    assert [(s.name, s.aliases, s.value, data[s.start:s.end]) for s in found] == [
        ("port", (), 8000, b"8000"), ("--http-port", (), 9000, b"9000"),
    ]


# --- 3. ${VAR:=N} as an argument -------------------------------------------------------


def test_a_colon_command_default_is_named_after_its_variable() -> None:
    data = b': "${DASHBOARD_PORT:=8265}"\n: ${GCS_PORT:=1200}\n'
    first, second = sites(data)
    assert summary(first) == ("DASHBOARD_PORT", 8265, "port", (), "")
    assert (first.start, first.end) == (21, 25)
    assert summary(second) == ("GCS_PORT", 1200, "port", (), "")
    assert data[second.start:second.end] == b"1200"


def test_a_default_anywhere_inside_an_argument_is_a_site() -> None:
    data = b'echo "http://$HOST:${HTTP_PORT:-8000}/v1"\n'
    site = one(data)
    assert (site.name, site.value, site.start, site.end) == ("HTTP_PORT", 8000, 32, 36)


# --- 4. long options ----------------------------------------------------------------


def test_an_option_with_equals_and_a_literal_is_named_after_the_option() -> None:
    data = b"ray start --dashboard-port=8265\n"
    site = one(data)
    assert summary(site) == ("--dashboard-port", 8265, "port", (), "")
    assert (site.start, site.end, site.column) == (27, 31, 28)


def test_an_option_with_a_quoted_literal() -> None:
    data = b"ray start --dashboard-port=\"8265\" --gcs-port '1200'\n"
    first, second = sites(data)
    assert (first.name, first.start, first.end) == ("--dashboard-port", 28, 32)
    assert (second.name, second.start, second.end) == ("--gcs-port", 46, 50)


def test_an_option_followed_by_a_decimal_word_takes_it_as_value() -> None:
    data = b"ray start --max-worker-port 2999 --head\n"
    site = one(data)
    assert summary(site) == ("--max-worker-port", 2999, "high", (), "")
    assert (site.start, site.end) == (28, 32)


def test_an_option_followed_by_a_non_decimal_word_has_no_value() -> None:
    assert sites(b"ray start --http-port $PORT 80\nrun --http-port --x 80\n") == ()


def test_a_redirection_number_is_not_an_option_value() -> None:
    assert sites(b"ray start --max-worker-port 2>&1\n") == ()


def test_options_continued_over_backslash_newlines() -> None:
    data = b"ray start --head \\\n    --min-worker-port 2000 \\\n    --max-worker-port=2999\n"
    first, second = sites(data)
    assert (first.name, first.value, first.line, first.column, first.start, first.end) == (
        "--min-worker-port", 2000, 2, 23, 41, 45)
    assert (second.name, second.value, second.line, second.column) == ("--max-worker-port", 2999, 3, 23)
    assert data[second.start:second.end] == b"2999"


def test_an_option_value_that_is_a_default_answers_to_variable_and_option() -> None:
    data = b"ray start --head --port=${GCS_PORT:-1200}\n"
    site = one(data)
    assert summary(site) == ("GCS_PORT", 1200, "port", ("--port",), "")
    assert (site.start, site.end) == (36, 40)


def test_an_option_given_a_default_as_its_next_word() -> None:
    data = b'serve --http-port "${HTTP_PORT:-8000}"\n'
    site = one(data)
    assert (site.name, site.aliases, site.value, site.start, site.end) == ("HTTP_PORT", ("--http-port",), 8000, 32, 36)


def test_an_option_value_without_literal_is_no_site() -> None:
    assert sites(b"ray start --min-worker-port=${MIN_WORKER_PORT} --port=$P\n") == ()


def test_single_quoted_text_that_is_not_a_whole_value_is_no_site() -> None:
    assert sites(b"echo 'PORT=8080 --port=1 ${PORT:-2}' '--grpc-port=5'\n") == ()


# --- 5. arithmetic ----------------------------------------------------------------------


def test_arithmetic_assigned_to_a_variable_is_a_derived_site() -> None:
    data = b"NODE_MANAGER_PORT=${NODE_MANAGER_PORT:-1301}\nHEAD_PORT=$((${NODE_MANAGER_PORT} + 1))\n"
    base, head = sites(data)
    assert summary(head) == ("HEAD_PORT", 1302, "port", (), "NODE_MANAGER_PORT + 1")
    assert (head.start, head.end) == (55, 84)
    assert data[head.start:head.end] == b"$((${NODE_MANAGER_PORT} + 1))"
    assert (head.line, head.column, head.end_column) == (2, 11, 40)
    assert not head.fixable and base.fixable


def test_arithmetic_as_an_option_value_is_named_after_the_option() -> None:
    data = b"P_PORT=1301\nray start --node-manager-port=$((${P_PORT} + 1)) \\\n  --object-manager-port $((P_PORT+2))\n"
    _, first, second = sites(data)
    assert summary(first) == ("--node-manager-port", 1302, "port", (), "P_PORT + 1")
    assert data[first.start:first.end] == b"$((${P_PORT} + 1))"
    assert summary(second) == ("--object-manager-port", 1303, "port", (), "P_PORT + 2")
    assert (second.line, second.column) == (3, 25)


def test_arithmetic_elsewhere_is_named_by_its_expression() -> None:
    data = b'BASE_PORT=7000\necho "$(( (BASE_PORT - 1) * 2 + $BASE_PORT ))"\n'
    _, derived = sites(data)
    assert summary(derived) == ("(BASE_PORT - 1) * 2 + BASE_PORT", 20998, "base", (), "(BASE_PORT - 1) * 2 + BASE_PORT")
    assert data[derived.start:derived.end] == b"$(( (BASE_PORT - 1) * 2 + $BASE_PORT ))"


def test_arithmetic_uses_the_last_value_before_it_else_any_in_the_file() -> None:
    data = b"A_PORT=$((X_PORT * 2 + 1))\nX_PORT=10\nB_PORT=$((X_PORT + 1))\nX_PORT=20\nC_PORT=$((X_PORT+1))\n"
    derived = [s for s in sites(data) if s.derived]
    assert [(s.name, s.value, s.derived) for s in derived] == [
        ("A_PORT", 21, "X_PORT * 2 + 1"), ("B_PORT", 11, "X_PORT + 1"), ("C_PORT", 21, "X_PORT + 1"),
    ]


def test_arithmetic_over_an_unknown_variable_or_operator_is_no_site() -> None:
    data = b"P_PORT=1\nA_PORT=$((Q_PORT + 1))\nB_PORT=$((P_PORT / 2))\nC_PORT=$((P_PORT++))\nD_PORT=$((010+P_PORT))\n"
    assert [s.name for s in sites(data)] == ["P_PORT"]


def test_arithmetic_is_kept_when_it_reads_a_site_of_the_file() -> None:
    data = b"GCS_PORT=1200\nHEAD=$((GCS_PORT + 1))\nN=5\nM=$((N + 1))\n"
    assert [(s.name, s.value) for s in sites(data)] == [("GCS_PORT", 1200), ("HEAD", 1201)]


def test_arithmetic_reads_values_of_variables_that_are_no_sites() -> None:
    site = one(b"OFFSET=100\nHTTP_PORT=$((OFFSET + 8000))\n")
    assert (site.name, site.value, site.derived) == ("HTTP_PORT", 8100, "OFFSET + 8000")


def test_an_arithmetic_command_is_no_site() -> None:
    data = b"P_PORT=1\n(( P_PORT = P_PORT + 1 ))\nfor ((i=0;i<3;i++)); do :; done\n"
    assert [s.name for s in sites(data)] == ["P_PORT"]


# --- 7. what is not a site ------------------------------------------------------------------


def test_comments_hold_no_sites() -> None:
    assert sites(b"# HTTP_PORT=8080\necho hi # --port=1\n  #: ${A_PORT:=1}\n") == ()


def test_a_hash_inside_a_word_or_quotes_starts_no_comment() -> None:
    data = b'echo a#b "# x" ${#X}; HTTP_PORT=8080\n'
    site = one(data)
    assert (site.name, site.start, site.end) == ("HTTP_PORT", 32, 36)
    assert scan(data).suppressions == ()


def test_a_heredoc_body_holds_no_sites_even_a_line_starting_with_the_delimiter() -> None:
    data = (
        b"cat <<EOF > head.sh\n"
        b"PORT=9999\n"
        b"EOFINNER\n"
        b"--port=1 ${A_PORT:-2} # portlint: ignore\n"
        b"EOF\n"
        b"HTTP_PORT=8080\n"
    )
    extraction = scan(data)
    assert [(s.name, s.line, data[s.start:s.end]) for s in extraction.sites] == [("HTTP_PORT", 6, b"8080")]
    assert extraction.suppressions == ()


def test_the_ray_sub_heredoc_delimited_by_eofinner() -> None:
    data = b"cat <<EOFINNER | tee -a head.sh\nPORT=9999\nEOF\nEOFINNER\nray start --port=6379\n"
    site = one(data)
    assert (site.name, site.value, site.line) == ("--port", 6379, 5)


def test_a_ray_sub_style_command_built_in_a_heredoc_inside_command_substitution() -> None:
    data = (
        b"GCS_PORT=${GCS_PORT:-1200}\n"
        b"head_cmd=$(cat <<EOF\n"
        b"cat <<EOFINNER | tee -a /launch-head.sh\n"
        b"ray start --head --port=${GCS_PORT} --dashboard-port=8265 )\n"
        b"EOFINNER\n"
        b"PORT=9999\n"
        b"EOF\n"
        b")\n"
        b'srun --overlap --nodes=1 bash -x -c "$head_cmd" --min-worker-port 2000 &\n'
    )
    found = sites(data)
    assert [(s.name, s.value, s.line, data[s.start:s.end]) for s in found] == [
        ("GCS_PORT", 1200, 1, b"1200"), ("--min-worker-port", 2000, 9, b"2000"),
    ]


def test_every_heredoc_delimiter_quoting() -> None:
    for opener in (b"<<'EOF'", b'<<"EOF"', b"<<\\EOF", b"<< EOF", b"<<E'O'F"):
        data = b"cat " + opener + b"\nPORT=9999\nEOF\nHTTP_PORT=8080\n"
        assert [(s.name, s.line) for s in sites(data)] == [("HTTP_PORT", 4)], opener


def test_a_dash_heredoc_ends_at_a_tab_indented_delimiter() -> None:
    data = b"if true; then\n\tcat <<-EOF\n\tPORT=9999\n\tEOF\n\tHTTP_PORT=8080\nfi\n"
    assert [(s.name, s.line) for s in sites(data)] == [("HTTP_PORT", 5)]


def test_a_plain_heredoc_does_not_end_at_an_indented_delimiter() -> None:
    extraction = scan(b"cat <<EOF\n\tEOF\nHTTP_PORT=8080\n")
    assert extraction.sites == ()
    assert extraction.error == "unterminated heredoc <<EOF started at line 1"


def test_two_heredocs_on_one_line_are_read_in_order() -> None:
    data = b"cat <<A - <<B\nPORT=1\nA\nPORT=2\nB\nHTTP_PORT=3\n"
    assert [(s.name, s.value) for s in sites(data)] == [("HTTP_PORT", 3)]


def test_a_heredoc_inside_command_substitution() -> None:
    data = b"X=$(cat <<EOF\nPORT=9999 )\nEOF\n)\nHTTP_PORT=8080\n"
    assert [(s.name, s.line) for s in sites(data)] == [("HTTP_PORT", 5)]


def test_a_here_string_is_no_heredoc() -> None:
    assert [s.name for s in sites(b"cat <<< 'x'\nHTTP_PORT=8080\n")] == ["HTTP_PORT"]


def test_array_elements_are_no_sites() -> None:
    data = b"PORTS=(8000 # c\n 8001)\nHTTP_PORT=8080\n"
    assert [(s.name, s.line) for s in sites(data)] == [("HTTP_PORT", 3)]


# --- nested commands -------------------------------------------------------------------------


def test_commands_inside_command_substitution_and_backticks_are_scanned() -> None:
    data = b"X=$(serve --grpc-port=5555; case $a in 1) echo;; esac)\nY=`serve --http-port 7777`\n"
    first, second = sites(data)
    assert (first.name, first.value, data[first.start:first.end]) == ("--grpc-port", 5555, b"5555")
    assert (second.name, second.value, second.line, second.column) == ("--http-port", 7777, 2, 22)


def test_the_script_of_bash_dash_c_is_scanned_as_commands() -> None:
    data = b'srun bash -c "ray start --address=$HEAD:${GCS_PORT} --object-manager-port=1303"\n'
    site = one(data)
    assert (site.name, site.value, site.start, site.end) == ("--object-manager-port", 1303, 74, 78)
    assert data[site.start:site.end] == b"1303"


def test_a_default_inside_a_bash_dash_c_script_keeps_its_option_alias() -> None:
    data = b"srun --overlap bash -lc 'ray start --port=${GCS_PORT:-1200}'\n"
    site = one(data)
    assert (site.name, site.aliases, site.value, data[site.start:site.end]) == ("GCS_PORT", ("--port",), 1200, b"1200")


# --- 8. suppressions ---------------------------------------------------------------------------


def test_suppression_comments_carry_their_byte_span_and_position() -> None:
    data = "# é\nHTTP_PORT=8080  # portlint: ignore[PL301, pl101]\necho # portlint: ignore\n".encode()
    extraction = scan(data)
    assert extraction.suppressions == (
        Suppression(line=2, column=17, codes=("PL301", "PL101"), start=21, end=53),
        Suppression(line=3, column=6, codes=(), start=59, end=77),
    )
    assert data[21:53] == b"# portlint: ignore[PL301, pl101]"


def test_comments_without_the_marker_are_no_suppressions() -> None:
    assert scan(b"# just a comment\nA=1 # another\n").suppressions == ()


# --- CRLF ---------------------------------------------------------------------------------------


def test_crlf_line_endings_keep_spans_exact() -> None:
    data = (
        b"# header\r\n"
        b"NODE_MANAGER_PORT=${NODE_MANAGER_PORT:-1301}\r\n"
        b"ray start --port=1200 \\\r\n"
        b"  --max-worker-port 2999 # portlint: ignore\r\n"
        b"cat <<EOF\r\n"
        b"PORT=9999\r\n"
        b"EOF\r\n"
        b"HTTP_PORT='8080'\r\n"
    )
    extraction = scan(data)
    assert extraction.error == ""
    assert [(s.name, s.value, s.line, s.column, data[s.start:s.end]) for s in extraction.sites] == [
        ("NODE_MANAGER_PORT", 1301, 2, 40, b"1301"),
        ("--port", 1200, 3, 18, b"1200"),
        ("--max-worker-port", 2999, 4, 21, b"2999"),
        ("HTTP_PORT", 8080, 8, 12, b"8080"),
    ]
    assert extraction.sites[0].start == 49
    (suppression,) = extraction.suppressions
    assert data[suppression.start:suppression.end] == b"# portlint: ignore"
    assert (suppression.line, suppression.column) == (4, 26)


# --- 9. errors ----------------------------------------------------------------------------------


def test_an_unterminated_heredoc_is_reported_where_it_started() -> None:
    data = b"HTTP_PORT=8080\n\n  cat <<EOF\nPORT=1\nEOFX\n"
    extraction = scan(data)
    assert extraction.error == "unterminated heredoc <<EOF started at line 3"
    assert (extraction.error_line, extraction.error_column) == (3, 7)
    assert [s.name for s in extraction.sites] == ["HTTP_PORT"]


def test_a_heredoc_announced_on_the_last_line_is_unterminated() -> None:
    extraction = scan(b"cat <<-'END'")
    assert extraction.error == "unterminated heredoc <<-END started at line 1"


def test_unterminated_quotes_and_expansions_are_errors() -> None:
    cases = {
        b'A=1\nB="abc\n': ("unterminated double quote started at line 2", 2, 3),
        b"echo 'abc\n": ("unterminated single quote started at line 1", 1, 6),
        b"X=$(echo\n": ("unterminated $( started at line 1", 1, 3),
        b"X=${A:-1\n": ("unterminated ${ started at line 1", 1, 3),
        b"X=$((1+\n": ("unterminated $(( started at line 1", 1, 3),
        b"X=`date\n": ("unterminated backtick started at line 1", 1, 3),
        "é=\"${X:-$(echo)\n".encode(): ("unterminated ${ started at line 1", 1, 4),  # the innermost
    }
    for data, (error, line, column) in cases.items():
        extraction = scan(data)
        assert (extraction.error, extraction.error_line, extraction.error_column) == (error, line, column), data


def test_sites_found_before_an_error_are_kept() -> None:
    extraction = scan(b"HTTP_PORT=8080\necho \"oops\n")
    assert extraction.error.startswith("unterminated double quote")
    assert [s.name for s in extraction.sites] == ["HTTP_PORT"]


def test_pathological_input_never_raises() -> None:
    for data in (
        b"X=" + b"$(" * 3000 + b")" * 3000,
        b"X=" + b"${A:-" * 3000 + b"}" * 3000,
        b"HTTP_PORT=$((" + b"(" * 3000 + b"1" + b")" * 3000 + b"))",
        b"HTTP_PORT=" + b"9" * 5000,
        b"\\", b"$", b"${", b"$((", b"<<", b"#", b"\r\n\\\r\n", b")))", b"(((",
    ):
        assert isinstance(scan(data), Extraction)


# --- Hydra / OmegaConf overrides -----------------------------------------------------


def test_a_dotted_override_after_python_is_a_yaml_key_site_spanning_its_digits() -> None:
    data = b"python -m trainer actor.rollout.prometheus.port=44398 trainer.nnodes=2\n"
    site = one(data)
    assert (site.kind, site.name, site.value, site.scope) == ("yaml", "actor.rollout.prometheus.port", 44398, "actor.rollout.prometheus")
    assert data[site.start:site.end] == b"44398" and (site.line, site.column) == (1, 49)


def test_overrides_quoted_appended_or_forced_and_behind_launchers() -> None:
    data = (
        b'python3.11 t.py "env.gym.port_range_low=5000" ++env.gym.port_range_high=5999\n'
        b"uv run t.py a.port=8000\naccelerate launch t.py b.port='8001'\n"
        b"srun -N2 torchrun --nproc-per-node 8 t.py c.port=8002\ndeepspeed t.py d.port=8003\n"
    )
    found = {s.name: (s.kind, s.value, s.role) for s in sites(data)}
    assert found == {
        "env.gym.port_range_low": ("yaml", 5000, "low"), "env.gym.port_range_high": ("yaml", 5999, "high"),
        "a.port": ("yaml", 8000, "port"), "b.port": ("yaml", 8001, "port"),
        "c.port": ("yaml", 8002, "port"), "d.port": ("yaml", 8003, "port"),
    }


def test_an_override_default_through_a_variable_keeps_the_variable_as_alias() -> None:
    site = one(b"python t.py +server.port=${SERVER_PORT:-7000}\n")
    assert (site.kind, site.name, site.aliases, site.value) == ("yaml", "server.port", ("SERVER_PORT",), 7000)


def test_dotted_words_of_commands_that_run_no_python_or_before_python_are_not_sites() -> None:
    data = (
        b"echo a.port=1234\nls b.port=1\nX=1 c.port=3 python t.py\nenv d.port=4 python t.py\n"
        b"echo python t.py e.port=5\nprintf '%s' python f.port=6\n"
    )
    assert sites(data) == ()


def test_overrides_inside_bash_c_are_read_at_their_place_in_the_file() -> None:
    data = b"bash -c 'python t.py a.port=9000'\n"
    site = one(data)
    assert data[site.start:site.end] == b"9000" and site.kind == "yaml"
