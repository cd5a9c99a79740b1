"""portlint.speed.needles: every literal the byte tests ask about is found in one RE2 pass, and
`holds` (`holds_any`) answers exactly as `literal in data` (for any of them) would."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from portlint.model.naming import NameFilter
from portlint.model.source import Source
from portlint.speed import needles as literals
from portlint.speed.needles import FOLDED, NEEDLES, holds, holds_any, holds_folded
from portlint.stages import discover, prefilter

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
# Needles asked about together (`holds_any`): a few, every one, and one with a literal that is none.
GROUPS = (NEEDLES[:3], NEEDLES[5:6], NEEDLES, (NEEDLES[0], b"not a needle"))

# Pieces the generated files are made of: every needle, needles cut short or run together,
# bytes that are not UTF-8, NULs and newlines.
PIECES = st.one_of(
    st.sampled_from(NEEDLES),
    st.sampled_from(NEEDLES).map(lambda n: n[:-1]),
    st.sampled_from(NEEDLES).map(lambda n: n[1:]),
    st.sampled_from(FOLDED).map(lambda w: w.upper()), st.sampled_from(FOLDED).map(lambda w: w.capitalize()),
    st.sampled_from(FOLDED).map(lambda w: w[1:]),
    st.sampled_from([b"\xff\xfe", b"\x80", b"\x00", b"\n", b"\r\n", b" ", b"\xc3\xa9", b"Pstart", b"arRAY"]),
    st.binary(max_size=6),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(PIECES, max_size=12).map(b"".join), min_size=1, max_size=4))
def test_holds_is_literal_in_data_for_every_needle(files: list[bytes]) -> None:
    """Files asked about in turn, each asked about every needle (and twice: the kept answer)."""
    for data in files:
        for _ in range(2):
            assert [holds(data, n) for n in NEEDLES] == [n in data for n in NEEDLES]
            assert [holds_any(data, group) for group in GROUPS] == [any(n in data for n in group) for group in GROUPS]
            assert [holds_folded(data, w) for w in FOLDED] == [w in data.lower() for w in FOLDED]


def test_the_folded_words_are_the_command_readers() -> None:
    """python_commands._spellings asks about each of its needles (any other word would be
    answered right too, by a pass of its own)."""
    from portlint.stages.extract import python_commands

    assert python_commands._HOT_BYTES == FOLDED
    assert holds_folded(b"x = CmD", b"cmd") and not holds_folded(b"c md", b"cmd")
    assert holds_folded(b"A Bind", b"bind") and not holds_folded(b"bound", b"bind")


def test_a_literal_not_listed_is_answered_by_a_pass_of_its_own() -> None:
    assert holds(b"a bind here", b"bind") and not holds(b"a bound here", b"bind")


def test_equal_bytes_of_another_object_are_asked_again() -> None:
    first = b"x socket y"
    assert holds(first, b"socket")
    other = bytes(bytearray(b"x sockex y"))
    assert not holds(other, b"socket") and holds(first, b"socket")


def test_every_literal_the_byte_tests_ask_about_is_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The read stage's tests, and the Python extractor's hot lines, over every fixture file ask
    `holds` only about listed literals (an unlisted one would still be answered right, by a pass
    over the file of its own)."""
    from portlint.stages.extract import python

    asked: set[bytes] = set()
    real, real_any = literals.holds, literals.holds_any

    def recording(data: bytes, literal: bytes) -> bool:
        asked.add(literal)
        return real(data, literal)

    def recording_any(data: bytes, given: tuple[bytes, ...]) -> bool:
        asked.update(given)
        return real_any(data, given)

    modules = ("portlint.analysis.sockets", "portlint.analysis.rendezvous", "portlint.tables.tool_defaults",
               "portlint.stages.extract.python")
    for module in modules:
        monkeypatch.setattr(f"{module}.holds", recording)
    for module in ("portlint.tables.tool_defaults", "portlint.tables.port_helpers", "portlint.tables.servers"):
        monkeypatch.setattr(f"{module}.holds_any", recording_any)
    no_token = prefilter.Prefilter((), ())  # finds no port token, so every other byte test runs
    files = [p for p in FIXTURES.rglob("*") if p.is_file() and discover.kind_of(str(p))]
    for path in files:
        data = path.read_bytes()
        for kind in ("python", "yaml", "shell"):
            prefilter.worth_parsing(kind, data, no_token)
        if discover.kind_of(str(path)) == "python":
            try:
                source = Source(str(path), data)
            except UnicodeDecodeError:
                continue
            python._hot_lines(source, NameFilter())
    assert len(files) > 500
    assert asked and asked <= set(NEEDLES), asked - set(NEEDLES)
    assert asked == set(NEEDLES), set(NEEDLES) - asked  # and every listed one is asked about


def test_a_byte_test_keeps_its_answer_for_the_bytes_last_asked_about() -> None:
    """`of_last`: asked again of the same bytes object, the test is not run; of another object
    (equal bytes or not), it is; the answers are the test's."""
    asked: list[bytes] = []

    @literals.of_last
    def binds(data: bytes) -> bool:
        asked.append(data)
        return b".bind(" in data

    first, second = b"s.bind(('', 0))\n", b"print(1)\n"
    twin = bytes(bytearray(first))  # equal, another object
    assert [binds(first), binds(first), binds(second), binds(first), binds(twin)] == [True, True, False, True, True]
    assert asked == [first, second, first, twin] and asked[3] is twin and twin is not first


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(PIECES, max_size=12).map(b"".join), min_size=1, max_size=4))
def test_the_code_analyses_byte_tests_answer_as_asked_afresh(files: list[bytes]) -> None:
    """uses_sockets and rendezvous.worth_reading keep their last answer: asked of files in turn,
    twice each, they answer as their undecorated tests do."""
    from portlint.analysis import rendezvous, sockets

    for data in files * 2:
        assert sockets.uses_sockets(data) == sockets.uses_sockets.__wrapped__(data)
        assert rendezvous.worth_reading(data) == rendezvous.worth_reading.__wrapped__(data)


TOKEN_PIECES = st.one_of(
    st.sampled_from([b"port", b"Port", b"PORT", b"import", b"aPort", b"APort", b"xPORT", b"XPORT", b"4port", b"_PORT",
                     b"\xc3\xa9port", b"Por", b"ort", b"PORTS", b"support", b"\n", b" ", b"\x00", b"\xff", b"port2",
                     b"portX", b"Port0", b"PORT_", b"9PORT"]),
    st.sampled_from(NEEDLES),
    st.binary(max_size=4),
)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(TOKEN_PIECES, max_size=10).map(b"".join), min_size=1, max_size=3))
def test_the_port_tokens_of_the_one_pass_are_the_prefilters(files: list[bytes]) -> None:
    """literals.RE2_PORT_TOKENS, found with the literals, find what prefilter._PORT_TOKENS find
    (`re`, with look-behinds), and `Prefilter.held` answers as `search` does."""
    plain, named = prefilter.prefilter(), prefilter.prefilter(["cluster.gcs_slot"])
    for data in files:
        assert literals.port_token(data) == any(token.search(data) for token in plain.tokens)
        tokens = [literals.port_token(data, which) for which in range(len(plain.tokens))]
        assert tokens == [token.search(data) is not None for token in plain.tokens]
        # a port word is found only where its port token is (python._hot_lines looks for no other)
        assert all(held or re.search(word, data) is None for held, word in zip(tokens, prefilter.PORT_WORDS))
        assert plain.held(data) == bool(plain.search(data)) and named.held(data) == bool(named.search(data))


def test_a_prefilter_of_other_tokens_is_held_by_its_own_search() -> None:
    """Only the prefilter of its own tokens takes them from the literals' pass."""
    assert not prefilter.Prefilter((), ()).held(b"MASTER_PORT = 29500\n")
    assert prefilter.prefilter().held(b"MASTER_PORT = 29500\n") and not prefilter.prefilter().held(b"import os\n")
    assert prefilter.prefilter(["gcs_slot"]).held(b"gcs_slot: 1200\n")
