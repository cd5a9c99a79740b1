"""python_outline: only the hot statements of a module are parsed, and they parse as in the file.

The property every caller relies on: for any hot lines, the statements of the blanked
module that the site finder visits are those it visits in the whole module, at the same
lines and columns, with the same expressions in them. (What the command reader and the
rendezvous analysis keep besides is tested with them: tests/stages/test_commands.py,
tests/analysis/test_analysis_rendezvous.py.)
"""
from __future__ import annotations

import ast
import bisect
import itertools

import pytest
from conftest import needs_sparse

from portlint.model.source import Source
from portlint.speed import outline as python_outline

pytestmark = needs_sparse

def sparse(text: str, hot: list[int]) -> bytes | None:
    data = text.encode()
    return python_outline.sparse(data, hot, Source("m.py", data).line_starts)


def _holds(statement: ast.stmt, hot: list[int]) -> bool:
    first = min((statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", ()))))
    at = bisect.bisect_left(hot, first)
    return at < len(hot) and hot[at] <= (statement.end_lineno or statement.lineno)


def visited(tree: ast.AST, keep) -> list[tuple[object, ...]]:
    """Every node under the statements `keep(statement)` admits, with its position (a statement's
    end aside: it moves up with the cold statements blanked at the end of its body)."""
    out: list[tuple[object, ...]] = []

    def walk(node: ast.AST) -> None:
        for _, value in ast.iter_fields(node):
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, ast.stmt):
                    if isinstance(item, ast.Pass) or not keep(item):
                        continue
                    out.append((type(item).__name__, item.lineno, item.col_offset))
                    walk(item)
                elif isinstance(item, ast.AST):
                    moved = isinstance(item, ast.excepthandler)  # its end is its body's
                    where = [getattr(item, k, None) for k in ("lineno", "col_offset", "end_lineno", "end_col_offset")]
                    value = repr(item.value) if isinstance(item, ast.Constant) else ""
                    out.append((type(item).__name__, *where[:2 if moved else 4], value))
                    walk(item)
                elif item is not None:
                    out.append((repr(item),))

    walk(tree)
    return out


def assert_same_hot_statements(text: str, hot: list[int]) -> None:
    whole = ast.parse(text)
    blanked = sparse(text, hot)
    assert blanked is not None
    assert blanked.count(b"\n") == text.count("\n")
    # the site finder's view: a statement with a body is in the blanked tree because it is hot
    assert visited(ast.parse(blanked), lambda s: hasattr(s, "body") or _holds(s, hot)) == visited(
        whole, lambda s: _holds(s, hot)
    )


SHAPES = {
    "strings that look like code": '''"""
port = 8000
""" + """
x = 1
"""
def f(port=1):
    s = \'\'\'
def g():
    port = 2
\'\'\'
    return s
y = "# port 3"  # a comment with 'quotes"
''',
    "brackets at column 0": """x = dict(
port=8000,
host=1,
)
def f():
    return [
1,
2]
z = 3
""",
    "decorators, clauses, one-liners": """import click
@click.option("--port", default=8000)
@click.command()
def main(port): ...
class A:
    def a(self): return 1
    def b(self, port=9): pass
    x = 1; port = 2
if a:
    pass
elif port:
    b = 1
elif c:
    d = 2
else:
    e = 3
try:
    f = 1
except ValueError:
    port = 2
else:
    g = 1
finally:
    h = 1
for i in x:
    j = 1
else:
    k = 2
""",
    "match and continuation lines": """match port:
    case 1:
        a = 1
    case [x, y] if x > 2:
        b = 2
    case _:
        c = 3
total = 1 + \\
    2 + port
async def serve(port=1):
    async with x as y:
        await y
    while True:
        break
""",
    "column-0 comments in bodies, no newline at the end": """def f():
# a comment at column 0, inside the body
    x = 1
class C:
    @property
    def port(self):
        return 8000

    # between methods
    def g(self, port=2): return (port,
        3)
z = 4
w = (1,
2)""",
    "comments and blank lines inside bodies": """def f():
    # port 8000 in a comment

    x = 1
    # trailing comment, port
class B:

    # only a comment
    y = 2  # port
""",
    "f-strings whose fields hold brackets, strings, specs": '''def url(host, port=8000):
    return f"http://{host}:{port}/{'/'.join(['a', 'b'])}"
x = f'{ {"port": 1}["port"] }' + f"{x!r:>{width}}" + F"{{port}}"
def g(port=1):
    s = rf"""{
        port
    } {y:#06x}
    """
    return f"{(lambda p: p)(port)}{s[1:2]}"
z = [f"{i}" for i in range(3)]
''',
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_every_choice_of_one_or_two_hot_lines_parses_the_hot_statements_as_the_file_does(name: str) -> None:
    text = SHAPES[name]
    lines = range(1, text.count("\n") + 1)
    for hot in [[], *([line] for line in lines), *(list(pair) for pair in itertools.combinations(lines, 2))]:
        assert_same_hot_statements(text, hot)


def test_cold_statements_become_empty_lines_and_an_empty_body_a_pass() -> None:
    text = "import os\n\n\nclass A:\n    x = 1\n    def f(self, port=1):\n        y = 2\n        z = (\n            3)\n"
    assert sparse(text, [6]) == b"\n\n\nclass A:\n\n    def f(self, port=1):\n        pass\n\n\n"


def test_a_run_of_cold_statements_is_blanked_as_one_with_the_comment_lines_between_them() -> None:
    text = "a = 1\n# a comment\nb = 2\n\nport = 3\nc = 4\n"
    assert sparse(text, [5]) == b"\n\n\n\nport = 3\n\n"


def test_a_module_of_comments_alone_is_kept_as_it_is() -> None:
    assert sparse("# port 8000\n# nothing else\n", [1]) == b"# port 8000\n# nothing else\n"


def test_a_last_line_without_a_newline_is_a_line_like_any_other() -> None:
    """(It used to be read from inside itself, from a bracket or a quote, and the module parsed whole.)"""
    assert sparse("x = f(1)\ndef f(port=1):\n    return (1,\n2)", [2]) == b"\ndef f(port=1):\n    pass\n"
    assert sparse("port = 1\ns = 'never closed", [1]) is None


def test_crlf_lines_keep_their_count_and_the_kept_lines_their_bytes() -> None:
    data = b"a = 1\r\nport = 2\r\nb = (\r\n 3)\r\n"
    assert python_outline.sparse(data, [2], Source("m.py", data).line_starts) == b"\nport = 2\r\n\n\n"


@pytest.mark.parametrize(
    "text",
    [
        "s = 'never closed\nport = 1\n",  # an unterminated string
        "x = (1,\nport = 2\n",  # a bracket never closed
        "x = 1)\nport = 2\n",  # a bracket never opened
        "if x:\n\ty = 1\nport = 2\n",  # a tab in an indentation
        "a = 1\rport = 2\n",  # a lone CR ends a line for Python, not for Source
        "a = 1\x0c\nport = 2\n",  # a form feed
        "a = 1\x00\nport = 2\n",  # a NUL byte
        "<<<<<<< HEAD\nport = 1\n=======\nport = 2\n>>>>>>> b\n",  # an unresolved merge
        "x = \\ 1\nport = 2\n",  # a stray backslash
        "def f():\n        a = 1\n    b = 2\nport = 1\n",  # a dedent to a level never opened
        "if x:\n    port = 2\n    @decorator\n",  # a decorator that decorates nothing
        "if x:\n    port = 2\n    y = 3\n    @decorator\n",  # the same, with a cold statement between them
        "if x:\n" + " " * 256 + "port = 2\n",  # indented deeper than a byte counts
    ],
)
def test_what_this_tokenizer_cannot_be_sure_of_is_parsed_whole(text: str) -> None:
    assert sparse(text, [2]) is None


def test_asked_to_stop_the_outline_ends_before_the_first_top_level_statement_after_the_offset() -> None:
    """A clause goes on its statement and a decorator's statement is what it decorates: no stop there."""
    data = b"port = 1\nif x:\n    y = 2\nelse:\n    z = 3\n@dec\ndef f():\n    pass\nclass A:\n    pass\n"
    at = {line: data.index(line) for line in (b"if x", b"    y", b"@dec", b"def f", b"class")}
    for until, stop in [(1, b"if x"), (at[b"    y"] + 1, b"@dec"), (at[b"@dec"] + 1, b"class")]:
        lines = python_outline.outline(data, until)
        assert lines is not None
        assert lines.stop == at[stop]
        assert lines.starts == [start for start in python_outline.outline(data).starts if start < at[stop]]
        assert lines.ends[-1] == at[stop] - 1  # the newline before the stop
    assert python_outline.outline(data, at[b"class"] + 1).stop == len(data)


@pytest.mark.parametrize(
    "text",
    [
        "port = 1\ns = 'never closed\n",
        "port = 1\nx = (1,\n",
        "port = 1\nx = 1)\n",
        "port = 1\nx = \\ 1\n",
        "port = 1\nx = f(g(h(1)), [2]\n",  # a bracket in a bracket in a bracket, one never closed
    ],
)
def test_after_the_last_hot_statement_what_the_tokenizer_cannot_be_sure_of_is_still_parsed_whole(text: str) -> None:
    assert sparse(text, [1]) is None


def test_after_the_last_hot_statement_lines_are_not_read_as_statements() -> None:
    """A decorator that decorates nothing there is Python's error in a cold statement: unreported, as
    any other one is (a whole outline reads it as statements and declines)."""
    data = b"port = 1\nx = 2\n@decorator\n"
    assert python_outline.sparse_at(data, [0], python_outline.outline(data)) is None
    assert python_outline.sparse_at(data, [0]) == b"port = 1\n\n\n"


def test_a_sparse_module_outlined_to_its_last_hot_statement_parses_as_one_outlined_whole() -> None:
    """sparse_at outlines the lines up to the first top-level statement after the last hot line and
    blanks the rest: the same tree as from the whole outline, for one to three hot lines anywhere
    in every module of portlint and of its tests."""
    import random
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    chosen = random.Random(7)
    compared = 0
    for path in sorted([*root.glob("portlint/**/*.py"), *root.glob("tests/**/*.py")]):
        data = path.read_bytes()
        whole = python_outline.outline(data)
        if whole is None:
            continue
        starts = Source(str(path), data).line_starts
        for count in (1, 2, 3):
            hot = sorted(chosen.sample(starts, min(count, len(starts))))
            expected = python_outline.sparse_at(data, hot, whole)
            got = python_outline.sparse_at(data, hot)
            assert (got is None) == (expected is None), (path, hot)
            if got is not None and expected is not None:
                assert got.count(b"\n") == data.count(b"\n")
                assert ast.dump(ast.parse(got), include_attributes=True) == ast.dump(
                    ast.parse(expected), include_attributes=True), (path, hot)
                compared += 1
    assert compared > 300


def test_definitions_are_every_function_with_its_decorators_and_body() -> None:
    data = (b"import x\n@dec\n@dec2(1)\ndef f(a):\n    def inner():\n        return 1\n    return inner\n"
            b"class C:\n    async def m(self): pass\n    def \\\n  weird(self): pass\nz = 1\n"
            b"s = 'def g(): pass'  # def h():\nt = undef (1)  # masync\t def i():\n\"\"\"\ndef doc(): pass\n\"\"\"\n"
            b"async \t def a(): pass\n")
    lines = python_outline.outline(data)
    assert lines is not None
    found = [(name, data[start:end]) for name, start, end in python_outline.definitions(data, lines)]
    assert found == [
        ("f", b"@dec\n@dec2(1)\ndef f(a):\n    def inner():\n        return 1\n    return inner"),
        ("inner", b"    def inner():\n        return 1"),
        ("m", b"    async def m(self): pass"),
        ("", b"    def \\\n  weird(self): pass"),  # a name this reader does not take: callers then parse whole
        ("a", b"async \t def a(): pass"),  # not the `def`s inside strings, comments or other words
    ]


@pytest.mark.parametrize(
    ("text", "read_as_before"),
    [
        ("x = f'{a[\"k\"]}'", True),  # another quote inside: the same string since 3.6
        ('x = f"{max([len(o.a[0].b) for o in c])}" + f"{ {1: 2}[1] }"', True),  # brackets at any depth
        ('x = f"{x!r:>{w}}" + f"{x:#06x}" + f"{x=}" + f"{a != b}"', True),  # conversions, specs, `#` in a spec
        ("x = f\"{'\\n'.join(a)}\" + f\"{f'{y}'}\"", True),  # a backslash, a field, in a nested string
        ('x = f"""{\n  a\n}"""', True),  # a field over lines, in a triple-quoted string
        ('x = ["f", "{a"]  # f"{ in a comment', True),  # `f"` that starts no string, or one that never ends
        ('x = f"{d["k"]}"', False),  # the string's own quote: 3.12 reads on, 3.11 stops there
        ('x = f"{ "#" }"; y = (\n1)', False),  # and so reads `; y = (` as code, not a comment
        ('x = f"""{x # c\n}"""', False),  # a comment in a field
        ('x = rf"{a\\b}"', False),  # a backslash in a field's expression
        ('x = f"{d[\'k}"', False),  # a quote that ends no string
        ('x = f"""{"""a"""}"""', False),  # a triple-quoted string inside: 3.11 ends the outer one at it
        ('x = f"{a" + f"}"', False),  # a field that does not close, a `}` alone
    ],
)
def test_an_f_string_is_read_as_before_312_only_where_its_fields_close_inside_it(text: str, read_as_before: bool) -> None:
    """Python 3.12 reads a field as code (PEP 701): where it may end the string elsewhere than
    3.11 does, the outline declines there (test below); this is the test it asks."""
    assert python_outline._fields_as_before(text.encode()) is read_as_before


def test_since_312_an_f_string_read_otherwise_is_parsed_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(python_outline, "_FIELDS_ARE_CODE", True)  # as on 3.12 and later, whatever runs this
    assert sparse('x = f"{ "#" }"; y = (\n1)\nport = 2\n', [3]) is None
    assert sparse('x = f"{host}:{port}"\ny = 1\nport = 2\n', [3]) == b"\n\nport = 2\n"
    text = SHAPES["f-strings whose fields hold brackets, strings, specs"]
    for line in range(1, text.count("\n") + 1):  # read as before: blanked as before
        assert_same_hot_statements(text, [line])


def _walked(body: bytes) -> bool:
    """An f-string body read field by field, as `_body_as_before` does when the plain fields do not
    take it whole."""
    at, end = 0, len(body)
    while (at := python_outline._fstrings().literal.match(body, at, end).end()) < end:  # type: ignore[union-attr]
        if body[at] != ord("{") or (at := python_outline._field_end(body, at + 1, end, spec=True)) < 0:
            return False
    return True


FIELD_PIECES = [b"x", b"a.b", b"{", b"}", b"{{", b"}}", b"!r", b"!z", b":", b">4", b"=", b"==", b"(", b")", b"[0]",
                b"'s'", b'"d"', b"#", b"\\", b"\n", b" ", b"{x}", b"{x!r}", b"{x:>{w}}", b"\xc3\xa9"]


@pytest.mark.slow
def test_plain_fields_are_read_as_field_by_field() -> None:
    """`_FStrings.plain` takes a body whole only where reading it field by field reaches its end too,
    and `_body_as_before` answers as that reading, on every body of up to four pieces and on
    the bodies of the f-strings of these tests."""
    import ast as ast_module
    from pathlib import Path

    bodies = [b"".join(parts) for size in range(5) for parts in itertools.product(FIELD_PIECES, repeat=size)]
    for path in sorted(Path(__file__).resolve().parents[1].rglob("test_*.py")):
        for node in ast_module.walk(ast_module.parse(path.read_bytes())):
            if isinstance(node, ast_module.JoinedStr):
                bodies.append(ast_module.get_source_segment(path.read_text(), node).encode()[2:-1])
    plain = 0
    for body in bodies:
        if python_outline._fstrings().plain.match(body).end() == len(body):
            assert _walked(body), body
            plain += 1
        assert python_outline._body_as_before(body, 0, len(body)) is _walked(body), body
    assert plain > 10_000 and len(bodies) - plain > 100_000


def test_the_f_string_search_finds_every_prefix_the_plain_pattern_finds() -> None:
    """`_FStrings.fstring` (RE2's, for speed) matches where the plain pattern of `re` (no identifier
    character, then the prefix, then a quote) matches: on shapes written for it and on every module
    of these tests and of portlint."""
    import re
    from pathlib import Path

    import portlint

    letters = python_outline._TEMPLATE_LETTERS
    plain = re.compile(rb"(?<![A-Za-z0-9_])(?:[" + letters + rb"][rR]?|[rR][" + letters + rb"])['\"]")
    shapes = [b"f'", b"F\"", b"rf'", b"fR\"", b"Rf'", b"rr'", b"br'", b"rb'", b"xf'", b"_f'", b"9f'", b"ff'",
              b"(f'", b" rF\"", b"\xc3\xa9f'", b"\xa9f'", b"t'", b"rt'", b"f\n'", b"print(f'{x}', rf\"{y}\")",
              b'f"f"', b'f""f""', b"f'rf'fr'"]  # one right after another's quote: none is missed
    roots = [Path(__file__).resolve().parents[1], Path(portlint.__file__).resolve().parent]
    texts = [*shapes, *(path.read_bytes() for root in roots for path in sorted(root.rglob("*.py")))]
    for text in texts:
        assert [m.span() for m in python_outline._fstrings().fstring.finditer(text)] == [m.span() for m in plain.finditer(text)], text[:80]
    assert sum(1 for text in texts for _ in plain.finditer(text)) > 500
