"""Byte offsets <-> LSP positions (UTF-16 code units unless the client chose otherwise), and the
text edits a fix becomes."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from portlint.server.positions import UTF8, UTF32, Lines, Position, changes

TEXT = "a: 1\nnamé: \"é😀中\" 1500\r\nlast\rafter"
DATA = TEXT.encode()


def test_a_character_counts_as_many_utf16_units_as_it_takes() -> None:
    lines = Lines(DATA)
    at = DATA.index(b"1500")
    # `namé: "é😀中" `: 12 code points, the emoji two UTF-16 units; 19 bytes
    assert lines.position(at) == Position(1, 13)
    assert Lines(DATA, UTF32).position(at) == Position(1, 12)
    assert Lines(DATA, UTF8).position(at) == Position(1, 19) and at - DATA.index(b"nam") == 19
    assert lines.offset(1, 13) == at and Lines(DATA, UTF32).offset(1, 12) == at


def test_lines_end_where_lsp_says_they_end() -> None:
    lines = Lines(DATA)
    assert lines.position(DATA.index(b"last")) == Position(2, 0)  # after \r\n: one line break
    assert lines.position(DATA.index(b"after")) == Position(3, 0)  # a lone \r ends a line too
    assert lines.offset(1, 999) == DATA.index(b"\r\n")  # past the end: the line's end, not its break
    assert lines.offset(99, 0) == len(DATA)


def test_a_position_inside_a_character_is_its_start() -> None:
    lines = Lines(DATA)
    emoji = DATA.index("😀".encode())
    assert lines.offset(1, 8) == emoji and lines.offset(1, 9) == emoji  # the second unit of the pair
    assert Lines(DATA, UTF8).offset(1, emoji - DATA.index(b"nam") + 2) == emoji


def test_portlint_lines_and_columns_are_converted_through_a_byte_offset() -> None:
    lines = Lines(DATA)
    assert lines.at(2, 13) == DATA.index(b"1500")  # portlint: 1-based, code points, lines end at \n
    assert lines.at(3, 1) == DATA.index(b"last")  # a lone \r is no line break for portlint
    assert lines.at(9, 1) == len(DATA)


def test_a_bom_read_from_disk_is_no_character_of_the_editors_text() -> None:
    data = b"\xef\xbb\xbfport: 1500\n"
    assert Lines(data, bom_hidden=True).position(data.index(b"1500")) == Position(0, 6)
    assert Lines(data, bom_hidden=True).offset(0, 6) == data.index(b"1500")
    assert Lines(data).position(data.index(b"1500")) == Position(0, 7)  # an editor's text holding U+FEFF


def test_a_lone_surrogate_an_editor_sent_is_one_unit() -> None:
    data = "x: '\ud800' 1\n".encode("utf-8", "surrogatepass")
    assert Lines(data).position(data.index(b"1")) == Position(0, 7)


def test_a_fix_becomes_edits_of_the_bytes_that_change() -> None:
    before = b"a: 1\nport: 1500  # \xc3\xa9\nb: 2\n"
    after = b"a: 1\nport: 1400  # \xc3\xa9\nb: 2\n"
    assert changes(before, after) == [(before.index(b"5"), before.index(b"5") + 1, b"4")]
    assert changes(b"x\n", b"x\n") == []
    assert changes(b"\xc3\xa9\n", b"\xc3\xa8\n") == [(0, 2, b"\xc3\xa8")]  # never half a character


@given(st.text(alphabet="ab\n é😀", max_size=40), st.text(alphabet="ab\n é😀", max_size=40))
def test_the_edits_turn_one_text_into_the_other(first: str, second: str) -> None:
    before, after = first.encode(), second.encode()
    result, cursor = b"", 0
    for start, end, text in changes(before, after):
        assert cursor <= start <= end
        result += before[cursor:start] + text
        cursor = end
    assert result + before[cursor:] == after
