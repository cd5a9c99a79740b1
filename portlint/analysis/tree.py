"""Cheap walks over a stdlib `ast` tree, and where a node sits in characters.

The analysis runs on the tree the Python extractor already built: no second
parse, no concrete syntax tree (PL601/PL602 have no autofix that would need
one), and positions come with every node.
"""
from __future__ import annotations

import ast
import bisect
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeGuard

from portlint.model.records import Struct
from portlint.model.source import line_starts
from portlint.speed.needles import of_last

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# How Python code reads an environment variable (`os.environ.get("X", default)`), as `dotted` spells the call.
ENV_GETTERS = frozenset(("os.environ.get", "environ.get", "os.getenv", "getenv"))
Located = ast.stmt | ast.expr  # the nodes that carry a position (a bare ast.AST has none)
_STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")
_SKIPPED_FIELDS = frozenset(("ctx", "type_comment"))
_FIELDS: dict[type, tuple[str, ...]] = {}
_BODIES: dict[type, tuple[str, ...]] = {}
_LISTS: dict[type, tuple[str, ...]] = {}  # a node type's fields of _STATEMENT_LISTS, in that order (function_defs)
_LINE_END = re.compile(rb"\r\n?|\n")


def child_fields(node: ast.AST) -> tuple[str, ...]:
    """The fields of a node's type that can hold child nodes (no expression contexts), in order."""
    names = _FIELDS.get(type(node))
    if names is None:
        names = _FIELDS[type(node)] = tuple(f for f in node._fields if f not in _SKIPPED_FIELDS)
    return names


def children(node: ast.AST) -> list[ast.AST]:
    """The child nodes (no expression contexts), in field order. A list, not a generator: the
    walks ask for the children of every node they meet, and most nodes have one or two."""
    found = []
    for name in child_fields(node):
        value = getattr(node, name, None)
        if isinstance(value, list):
            for item in value:
                if isinstance(item, ast.AST):  # not a name of `global`, nor the None of a `**` in a dict display
                    found.append(item)
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


# Leaves and near-leaves no visitor here looks into: nothing below them is a statement or a call.
INERT = frozenset((
    ast.Constant, ast.Name, *ast.expr_context.__subclasses__(), *ast.operator.__subclasses__(),
    *ast.unaryop.__subclasses__(), *ast.cmpop.__subclasses__(), *ast.boolop.__subclasses__(),
))


class Visitor(ast.NodeVisitor):
    """`ast.NodeVisitor`, with each node type's method looked up once per visitor class and the
    inert leaves (names, constants, contexts, operators: a third or more of a tree) not visited.
    For visitors that define no `visit_Name`, `visit_Constant` or operator method."""

    _methods: dict[type, Callable[[Visitor, ast.AST], object]]

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls._methods = {}

    def visit(self, node: ast.AST) -> object:
        method = self._methods.get(type(node))
        if method is None:
            method = getattr(type(self), "visit_" + type(node).__name__, None) or type(self).generic_visit
            self._methods[type(node)] = method
        return method(self, node)

    def generic_visit(self, node: ast.AST) -> None:
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST) and type(item) not in INERT:
                        self.visit(item)
            elif isinstance(value, ast.AST) and type(value) not in INERT:
                self.visit(value)


def names_in(nodes: ast.AST | Iterable[ast.AST]) -> set[str]:
    """Every identifier used under the nodes: names, attribute names, keywords, parameters, definitions."""
    found: set[str] = set()
    stack = [nodes] if isinstance(nodes, ast.AST) else list(nodes)
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Name):
            found.add(current.id)
            continue
        if isinstance(current, ast.Attribute):
            found.add(current.attr)
        elif isinstance(current, ast.keyword) and current.arg:
            found.add(current.arg)
        elif isinstance(current, ast.ExceptHandler) and current.name:
            found.add(current.name)
        elif isinstance(current, ast.arg):
            found.add(current.arg)
        elif isinstance(current, (*FUNCTIONS, ast.ClassDef)):
            found.add(current.name)
        elif isinstance(current, (ast.Global, ast.Nonlocal)):
            found.update(current.names)
        stack.extend(children(current))
    return found


def function_defs(node: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function defined under `node`, at any depth of statements, in the order of a walk
    that takes each statement list in turn (with a stack, not a generator per statement)."""
    found: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    pending: list[ast.AST] = [node]
    while pending:
        current = pending.pop()
        if current is not node and isinstance(current, FUNCTIONS):
            found.append(current)
        names = _LISTS.get(type(current))
        if names is None:
            names = _LISTS[type(current)] = tuple(f for f in _STATEMENT_LISTS if f in current._fields)
        if names:
            inner = [child for name in names for child in getattr(current, name)]
            inner.reverse()  # popped first to last
            pending += inner
    return found


def statements(node: ast.AST) -> Iterator[ast.stmt]:
    """Every statement under `node` (itself too, if one), in `ast.walk`'s order, without visiting a
    single expression: most of a tree's nodes, and never the parent of a statement."""
    pending = deque([node])
    while pending:
        current = pending.popleft()
        if isinstance(current, ast.stmt):
            yield current
        for name in _bodies(current):
            pending.extend(getattr(current, name))


def _bodies(node: ast.AST) -> tuple[str, ...]:
    """The fields of a node's type that hold statements (or handlers, match cases), in field order."""
    names = _BODIES.get(type(node))
    if names is None:
        names = _BODIES[type(node)] = tuple(f for f in node._fields if f in _STATEMENT_LISTS)
    return names


def module_names(path: str) -> list[str]:
    """The dotted names a file can be imported as: `a.b.c` for a/b/c.py, and its suffixes (`src/` layouts)."""
    parts = path[:-3].split("/") if path.endswith(".py") else path.split("/")
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return [".".join(parts[i:]) for i in range(len(parts))]


def _relative(path: str, level: int, module: str | None) -> str:
    """The root-relative dotted name `from .x import` (`level` dots) means in the file `path`."""
    package = path.split("/")[:-1]
    if level > 1:
        package = package[: max(len(package) - (level - 1), 0)]
    return ".".join([*package, *(module.split(".") if module else [])])


def imports_of(path: str, tree: ast.Module) -> dict[str, tuple[str, str]]:
    """Local name -> (dotted module, name in it): `g` for `from M import f as g`, `m.` for `import M as m`."""
    found: dict[str, tuple[str, str]] = {}
    for node in statements(tree):
        if isinstance(node, ast.ImportFrom):
            base = _relative(path, node.level, node.module) if node.level else (node.module or "")
            for alias in node.names:
                if alias.name != "*":
                    found[alias.asname or alias.name] = (base, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                found[(alias.asname or alias.name) + "."] = (alias.name, "")
    return found



@of_last
def searchable(data: bytes) -> tuple[bytes, list[int]]:
    """A module's lines as ast numbers them (a lone CR ends one too) joined by newlines, and
    where each starts: for byte searches that must find every identifier the parser reads.
    Python reads identifiers NFKC-normalised (`ｐｏｒｔ` is `port`); only a line with a
    non-ASCII byte can differ, and only such lines are rewritten. (Those of the last module
    asked for are kept: the command reader and both code analyses search the same file.)"""
    text = data
    if b"\r" in text:
        text = _LINE_END.sub(b"\n", text)
    if not text.isascii():
        import unicodedata

        text = b"\n".join(
            line if line.isascii() else unicodedata.normalize("NFKC", line.decode("utf-8", "replace")).encode()
            for line in text.split(b"\n")
        )
    return text, line_starts(text)


def first_line(statement: ast.stmt) -> int:
    """A statement's first line, its decorators included (the first is first in the source)."""
    decorators: list[ast.expr] | None = getattr(statement, "decorator_list", None)
    return min(statement.lineno, decorators[0].lineno) if decorators else statement.lineno


def holds_hot(hot: list[int], first: int, last: int) -> bool:
    """Whether one of the sorted line numbers `hot` lies in first..last."""
    at = bisect.bisect_left(hot, first)
    return at < len(hot) and hot[at] <= last


def statement_holds_hot(hot: list[int], statement: ast.stmt) -> bool:
    """Whether one of the sorted line numbers `hot` lies in the statement, its decorators included."""
    return holds_hot(hot, first_line(statement), end_line(statement))


def holding(hot: list[int], nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """The nodes under `nodes` (themselves included) whose lines may hold one of the sorted line
    numbers `hot`: a node whose lines (a statement's decorators among them) hold none is not
    entered; one without lines (`arguments`, an operator) is."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        line = getattr(node, "lineno", None)
        if line is not None and not holds_hot(hot, first_line(node) if isinstance(node, ast.stmt) else line,
                                               getattr(node, "end_lineno", None) or line):
            continue
        yield node
        stack.extend(children(node))


def lines_holding(text: bytes, starts: list[int], words: Iterable[bytes], whole: bool = True) -> set[int]:
    """The 1-based lines of a `searchable` text holding one of the words (`whole`: as a whole
    identifier, `spelled_at`)."""
    found: set[int] = set()
    for word in words:
        if whole:
            found.update(bisect.bisect_right(starts, at) for at in spelled_at(text, word))
            continue
        at = text.find(word)
        while at != -1:
            found.add(bisect.bisect_right(starts, at))
            at = text.find(word, at + 1)
    return found


def spelling(data: bytes, definitions: Sequence[tuple[str, int, int]], seeds: Iterable[bytes], whole: bool = True,
             also: Callable[[int], Iterable[str]] = lambda index: ()) -> tuple[set[int], list[int]] | None:
    """What a code analysis may reach of a module, read from its lines: the definitions
    (python_outline.definitions: name, first and end offset) whose lines spell one of the `seeds`
    (`whole`: as whole words), the name of a definition found so or a word `also` gives for one,
    to a fixpoint; and the sorted lines that spell any of those words. None when a definition
    found has a name that cannot be read (""): the whole module then."""
    text, starts = searchable(data)  # numbered as the file's lines (python_outline declines a lone CR)
    hot = sorted(lines_holding(text, starts, seeds, whole))
    offsets = line_starts(data)
    spans = [(bisect.bisect_right(offsets, first), bisect.bisect_right(offsets, max(end - 1, first)))
             for _, first, end in definitions]
    found: set[int] = set()
    searched: set[str] = set()
    while new := [i for i, (first, last) in enumerate(spans) if i not in found and holds_hot(hot, first, last)]:
        found.update(new)
        words = {definitions[i][0] for i in new}
        if "" in words:
            return None
        words.update(word for i in new for word in also(i))
        words -= searched
        searched |= words
        hot = sorted({*hot, *lines_holding(text, starts, [word.encode() for word in words])})
    return found, hot


class Nesting:
    """How the functions of `definitions` (python_outline.definitions: name, first and end
    offset) nest: which of them hold an offset of the module."""

    def __init__(self, definitions: Sequence[tuple[str, int, int]]) -> None:
        self.definitions = definitions
        self.firsts = [first for _, first, _ in definitions]  # in order: `definitions` finds them so
        self.parents: list[int] = []  # the innermost definition around each, else -1
        open_: list[int] = []
        for index, (_, first, _) in enumerate(definitions):
            while open_ and definitions[open_[-1]][2] <= first:
                open_.pop()
            self.parents.append(open_[-1] if open_ else -1)
            open_.append(index)

    def innermost(self, at: int) -> int:
        """The innermost definition whose span holds offset `at`, else -1."""
        index = bisect.bisect_right(self.firsts, at) - 1
        while index >= 0 and self.definitions[index][2] <= at:
            index = self.parents[index]  # one that holds `at` and starts before this one holds it
        return index

    def around(self, at: int) -> list[int]:
        """The definitions whose span holds offset `at`, innermost first."""
        return list(self.outward(self.innermost(at)))

    def outward(self, index: int) -> Iterator[int]:
        """The definition `index` (none for -1) and those around it, innermost first."""
        while index >= 0:
            yield index
            index = self.parents[index]


def identifier_span(data: bytes, start: int, end: int) -> tuple[int, int]:
    """The span of the identifier data[start:end] is part of (a byte of a non-ASCII character is
    one of an identifier's: no word ends or starts beside one)."""
    while start and (data[start - 1] in _WORD):
        start -= 1
    while end < len(data) and data[end] in _WORD:
        end += 1
    return start, end


_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_" + bytes(range(0x80, 0x100)))


def spelled_at(data: bytes, word: bytes, start: int = 0, end: int | None = None) -> Iterator[int]:
    """Where data[start:end] spells `word` as a whole identifier."""
    at = data.find(word, start, end)
    while at != -1:
        if identifier_span(data, at, at + len(word)) == (at, at + len(word)):
            yield at
        at = data.find(word, at + 1, end)


def constant_index(node: ast.Subscript) -> int | None:
    value = node.slice
    index = int_value(value)
    if index is not None:
        return index
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub):
        operand = int_value(value.operand)
        return -operand if operand is not None else None
    return None


def is_int(node: ast.AST | None) -> TypeGuard[ast.Constant]:
    """An integer literal (`True` and `False` are names, not integers)."""
    return isinstance(node, ast.Constant) and type(node.value) is int


def int_value(node: ast.AST | None) -> int | None:
    """The value of an integer literal, else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def is_string(node: ast.AST | None) -> bool:
    return isinstance(node, ast.JoinedStr) or isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))


def dotted(node: ast.AST) -> str:
    """`subprocess.Popen` for a chain of names, "" for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    parts.append(node.id)
    return ".".join(reversed(parts))


class Point(Struct, frozen=True):
    line: int  # 1-based
    column: int  # 0-based, in characters


class Span(Struct, frozen=True):
    start: Point
    end: Point


class Positions:
    """`positions[node]`: where a node starts and ends, in characters (ast counts UTF-8 bytes).

    Only the few nodes a finding shows are looked up, so lines are decoded on demand.
    """

    def __init__(self, data: bytes) -> None:
        self.lines = data.splitlines(keepends=True)
        if self.lines and self.lines[0].startswith(b"\xef\xbb\xbf"):
            self.lines[0] = self.lines[0][3:]  # ast counts from after the BOM

    def __getitem__(self, node: Located) -> Span:
        return Span(self._point(node.lineno, node.col_offset), self._point(*_end(node)))

    def _point(self, line: int, offset: int) -> Point:
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else b""
        return Point(line, len(text[:offset].decode("utf-8", "replace")))

    def source(self, node: Located) -> str:
        """The node's source text as written."""
        end_line, end_offset = _end(node)
        first, last = node.lineno - 1, end_line - 1
        if first == last:
            return self.lines[first][node.col_offset:end_offset].decode("utf-8", "replace")
        parts = [self.lines[first][node.col_offset:], *self.lines[first + 1:last], self.lines[last][:end_offset]]
        return b"".join(parts).decode("utf-8", "replace")


def end_line(node: Located) -> int:
    return _end(node)[0]


def _end(node: Located) -> tuple[int, int]:
    """Where a node ends: `ast.parse` always says; a node built by hand may not (then: where it starts)."""
    if node.end_lineno is None or node.end_col_offset is None:
        return node.lineno, node.col_offset
    return node.end_lineno, node.end_col_offset
