"""Sockets released before their port is used: the analysis behind PL601 and PL602.

`analyse(data, tree)` reads one Python file (the stdlib `ast` tree the Python
extractor already built; the file is never imported or run) and describes where
a function binds a socket to a port (or to 0), lets the
socket go — `close()`, the end of a `with` block, `contextlib.closing`, `del`,
or simply going out of scope — and still hands the port number on: returns it,
stores it (an attribute, a global, a container, `os.environ`) or passes it to a
call after the release. Availability checks (bind, close, return a bool) called
on the candidates of a port scan are such probes too.

Calls of the module's own functions are followed through summaries (flow.py),
and so are calls of the other modules' (imports.py, `resolve`):
the bind in one function and the close or the scan loop in another, a helper
returning `(port, sock)` whose caller drops the socket, a socket kept on `self`
by one method and closed by another before the port is handed on.

Each such hand-off is a `PortHandOff` record (model.extraction): the function
that lets the port go, the bind (or the helper's call it came from), the
release and the hand-off, where each is. The rules judge them (PL601, PL602).
"""
from __future__ import annotations

import ast
import bisect
import re
import warnings
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from portlint.analysis.tree import (
    Nesting,
    holding,
    identifier_span,
    lines_holding,
    searchable,
    spelled_at,
    spelling,
)
from portlint.model.extraction import CodeFile, Facts, PortHandOff
from portlint.model.source import line_starts
from portlint.speed.needles import holds, of_last
from portlint.tables import port_helpers

if TYPE_CHECKING:
    from portlint.speed.outline import Outline

# A file worth the analysis binds: `.bind(`, or a server constructor ...
_BINDS = re.compile(rb"\.bind\s*\(|create_server|start_server|make_server|Server\s*\(")
# ... and a port number can leave it: read back from the socket, or the port bound is not a literal.
_READ_BACK = re.compile(rb"getsockname|server_port|server_address")
_SERVERS = ("create_server", "start_server", "make_server")


@of_last
def uses_sockets(data: bytes) -> bool:
    """Python that may probe ports: socket code that binds, or a call of a library's free-port helper
    (the bytes test before any parse)."""
    return holds(data, b"socket") and _BINDS.search(data) is not None or port_helpers.mentioned(data)


def analyse(data: bytes, tree: ast.Module | None = None, externals: dict | None = None) -> Facts:
    """PL601/PL602's hand-offs of one file and the summaries it exports; `externals`: the functions of
    other modules it imports (imports.External by the name it calls them)."""
    libraries = port_helpers.mentioned(data)
    if not externals and not libraries and not _BINDS.search(data):
        return Facts()
    if tree is None:
        tree = _parse(data)
        if tree is None:
            return Facts()  # the Python extractor reports files that do not parse (PL001)
    if libraries:
        from portlint.analysis.sockets.imports import library_externals

        externals = {**library_externals(tree), **(externals or {})}
    if not externals and not (_READ_BACK.search(data) or _binds_a_variable(tree, data)):
        return Facts()  # every bind is to a literal port and nothing reads a port back: no number can leave
    from portlint.analysis.sockets.describe import handoffs
    from portlint.analysis.sockets.module import ModuleIndex

    index = ModuleIndex(tree, externals, data)
    try:
        violations = index.violations()
        exports = index.exports()
    except RecursionError:  # absurdly nested expressions
        return Facts()
    return Facts(handoffs(data, violations) if violations else (), (), exports)


# What a call `module._binds` may take for a bind spells (its name's end): a function none of
# whose lines holds one binds nothing itself.
_BIND_WORDS = (b"bind", b"Server", b"_server")
# What a function's lines spell: its names (group 1 of the second: the attributes it reads or
# writes on `self`), by bytes in an ASCII module, else read as Python reads them (NFKC).
_IDENTIFIER = (re.compile(rb"[A-Za-z_][A-Za-z0-9_]*"), re.compile(r"\w+"))
_SELF_ATTRIBUTE = (re.compile(rb"\bself\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)"), re.compile(r"\bself\s*\.\s*(\w+)"))


def _spelled(data: bytes, ascii_module: bool, first: int, end: int,
             patterns: tuple[re.Pattern[bytes], re.Pattern[str]]) -> set[str]:
    """The words a pattern finds (its group, else the match) in data[first:end], as identifiers."""
    if ascii_module:
        return {word.decode() for word in set(patterns[0].findall(data, first, end))}
    text = data[first:end].decode("utf-8", "replace")
    if not text.isascii():
        import unicodedata

        text = unicodedata.normalize("NFKC", text)
    return set(patterns[1].findall(text))


def kept(data: bytes, lines: Outline, definitions: Sequence[tuple[str, int, int]]) -> tuple[list[int], list[int]] | None:
    """What a sparse tree must keep for `analyse` to find what it finds in the whole module: the
    statements to keep whole (functions and classes, by where they start) and the lines of the
    module's own code (every top-level statement but definitions); None where a function's name
    cannot be read (the whole module then). `definitions`: python_outline.definitions.

    `analyse` walks only the functions where a bound socket can appear (ModuleIndex._hot): a bind
    or a server in their lines, the name of such a function, or an attribute a method of theirs
    keeps on `self`; and it asks for the summary of every function those call, and theirs. So a
    function is kept when its lines spell a bind's call, the name of a function kept so or an
    attribute one may store on `self`, as the tree is read (`_Spans`: a parameter of that name
    is none of these), to a fixpoint, and so is the whole class of such a method (its other
    methods read what it keeps on `self`); then every function named as an identifier of a
    function kept, to a fixpoint (one kept name keeps every function so named).
    The rest is never walked: in a long test module with one probe, most of it (AReaL's 92 KiB
    tests/test_local_scheduler.py keeps 39%)."""
    from portlint.speed import outline as python_outline

    by_name: dict[str, list[int]] = {}
    for index, (name, _, _) in enumerate(definitions):
        by_name.setdefault(name, []).append(index)
    if "" in by_name:
        return None  # a name a kept function may call could not be read
    ascii_module = data.isascii()
    nesting = Nesting(definitions)
    if searchable(data)[0] == data:  # what a search must find is in the bytes, at their offsets
        hot = _Spans(data, lines, definitions, nesting).reached()
    else:
        spelled = spelling(data, definitions, _BIND_WORDS, whole=False, also=lambda index: _spelled(
            data, ascii_module, definitions[index][1], definitions[index][2], _SELF_ATTRIBUTE))
        assert spelled is not None  # every name is read
        hot = spelled[0]
    found, reached = set(hot), list(hot)
    read: set[int] = set()  # the functions read for names: one inside them spells nothing new
    while reached:  # the functions they call, and those these call
        index = reached.pop()
        if not read.isdisjoint(nesting.outward(index)):  # up the functions around it, not over all read
            continue
        read.add(index)
        _, first, end = definitions[index]
        for word in _spelled(data, ascii_module, first, end, _IDENTIFIER):
            for index in by_name.get(word, ()):
                if index not in found:
                    found.add(index)
                    reached.append(index)
    whole = {definitions[i][1] for i in found} | python_outline.enclosing_classes(data, lines, (definitions[i][1] for i in hot))
    offsets = line_starts(data)
    return sorted(whole), [bisect.bisect_right(offsets, start) for start in python_outline.module_code(data, lines)]


class _Spans:
    """`kept`'s functions where a bound socket can appear: a superset of `ModuleIndex._hot`'s, read
    from a module's bytes, that tells apart what its tree does:
      - a bind: a function spelling a call `module._binds` may take for one (`.bind(` with
        something in the brackets, `...Server(`, `make_server(`), not a longer name (`bind_host`,
        `ServerArgs`) nor `.bind()`;
      - a word that is a parameter of the function (`module.parameters`) counts there only where
        `module._function_names` may count it: in a decorator, a default or an annotation that
        reads it, as an attribute (`.word`), as a call (`word(`), or anywhere in a function that
        declares a name `global` or `nonlocal`. A pytest fixture's name makes its tests no use
        of it (on AReaL, 21 of the 32 functions of one test module are not parsed);
      - an attribute on `self` brings the functions that spell it only where a method may store
        a value in it (`_stored`), not where one only reads it.
    Where a name's `.` or `(` may be on another line, it counts. The bytes are what a search must
    find (`tree.searchable`: no line changes when Python reads it); definitions nest
    (python_outline.definitions)."""

    def __init__(self, data: bytes, lines: Outline, definitions: Sequence[tuple[str, int, int]], nesting: Nesting) -> None:
        self.data = data
        self.lines = lines
        self.definitions = definitions
        self.nesting = nesting  # the one `kept` reads too
        self.signatures: dict[int, tuple[frozenset[str], frozenset[str], bool] | None] = {}

    def reached(self) -> set[int]:
        data, definitions = self.data, self.definitions
        found: set[int] = set()
        for seed in _BIND_WORDS:
            at = data.find(seed)
            while at != -1:
                if _binds_here(data, *identifier_span(data, at, at + len(seed))):
                    found.update(self.nesting.around(at))
                at = data.find(seed, at + 1)
        frontier, searched = list(found), set[str]()
        while frontier:
            words: set[str] = set()
            for index in frontier:
                name, first, end = definitions[index]
                words.add(name)
                words.update(self._stored(first, end))
            frontier = []
            for word in words - searched:
                searched.add(word)
                for at in spelled_at(data, word.encode()):
                    for index in self.nesting.around(at):
                        if index not in found and self._counts(index, word, at):
                            found.add(index)
                            frontier.append(index)
        return found

    def _stored(self, first: int, end: int) -> set[str]:
        """The attributes written `self.NAME` in data[first:end] where a value may be stored
        (`expressions.assign`'s `self_stores`, all `_kept_on_self` seeds others with), not only
        read. Where a name goes on past ASCII, every one, as Python reads them."""
        data = self.data
        found = set()
        for match in _SELF_ATTRIBUTE[0].finditer(data, first, end):
            if match.end() < len(data) and data[match.end()] >= 0x80:
                return _spelled(data, False, first, end, _SELF_ATTRIBUTE)
            if self._may_store(match.start(), match.end()):
                found.add(match.group(1).decode())
        return found

    def _may_store(self, start: int, end: int) -> bool:
        """Whether `self.NAME` at data[start:end] may be where `expressions.assign` stores a value:
        its logical line assigns after it (`self.x = `, `self.x += `, `self.x: int = `, `self.a,
        self.b = `) or reads a target before it (`for self.x in`, `with f() as self.x:`)."""
        starts = self.lines.starts
        line = bisect.bisect_right(starts, start) - 1
        if line < 0 or start > self.lines.ends[line]:
            return True  # not in a statement this reader knows of
        return _ASSIGNED.search(self.data, end, self.lines.ends[line]) is not None or \
            _TARGET_AFTER.search(self.data, starts[line], start) is not None

    def _counts(self, index: int, word: str, at: int) -> bool:
        """Whether the word at offset `at`, inside the definition, may be a use `_function_names` reads."""
        header = self._header(index)
        if header is None:
            return True
        start, end = header
        needle = word.encode()
        if next(spelled_at(self.data, needle, start, end), None) is None:
            return True  # not in its header: no parameter of it
        signature = self._signature(index, start, end)
        if signature is None:
            return True
        parameters, reads, scoped = signature
        if word not in parameters or at < start or word in reads or scoped:
            return True
        return _attribute_or_call(self.data, at, at + len(needle))

    def _header(self, index: int) -> tuple[int, int] | None:
        """Where the logical line of a definition's `def` starts and ends (its decorators before it)."""
        from portlint.speed.outline import decorated

        line = bisect.bisect_left(self.lines.starts, self.definitions[index][1])
        if line == len(self.lines.starts):
            return None
        line = decorated(self.data, self.lines, line)
        return self.lines.starts[line], self.lines.ends[line]

    def _signature(self, index: int, start: int, end: int) -> tuple[frozenset[str], frozenset[str], bool] | None:
        """A definition's parameters, the names its defaults and annotations read, and whether it
        declares a name `global` or `nonlocal`; None where its header does not parse alone."""
        if index in self.signatures:
            return self.signatures[index]
        from portlint.analysis.sockets.module import parameters, signature_names

        found = None
        header = self.data[start:end]
        for text in (header + b"\n pass\n", header + b"\n"):  # `def f(x):`, then `def f(x): return x`
            tree = _parse(text)
            if tree is None or not tree.body:
                continue
            node = tree.body[0]
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                scoped = _SCOPED.search(self.data, self.definitions[index][1], self.definitions[index][2]) is not None
                found = parameters(node), frozenset(signature_names(node)), scoped
            break
        self.signatures[index] = found
        return found


_DOT, _OPEN, _CLOSE = (ord(c) for c in ".()")
_ASSIGNED = re.compile(rb"(?<![=!<>])=(?!=)")  # `=`, `+=`, a keyword's: not `==`, `<=`, `>=`, `!=`
_TARGET_AFTER = re.compile(rb"\b(?:for|as)\b")
_SCOPED = re.compile(rb"\b(?:global|nonlocal)\b")


def _next(data: bytes, at: int) -> int:
    """Where the first byte from `at` past blanks and line continuations is, on that line; -1 at
    the line's end (a comment, a newline: inside brackets the expression goes on) or the bytes'."""
    size = len(data)
    while at < size:
        byte = data[at]
        if byte in b" \t":
            at += 1
        elif byte == 0x5C and data.startswith(b"\n", at + 1):  # a backslash ending the line
            at += 2
        else:
            return -1 if byte in b"\n#" else at
    return -1


def _previous(data: bytes, at: int) -> int:
    """Where the last byte before `at` past blanks and line continuations is; -1 at a line's start."""
    at -= 1
    while at >= 0:
        byte = data[at]
        if byte in b" \t":
            at -= 1
        elif byte == 0x0A and at > 0 and data[at - 1] == 0x5C:  # a continued line
            at -= 2
        else:
            return -1 if byte == 0x0A else at
    return -1


def _attribute_or_call(data: bytes, start: int, end: int) -> bool:
    """The name data[start:end] may be read as an attribute (`x.name`) or called (`name(`): when
    what is before or after it is on another line, it may."""
    before, after = _previous(data, start), _next(data, end)
    return before == -1 or data[before] == _DOT or after == -1 or data[after] == _OPEN


def _binds_here(data: bytes, start: int, end: int) -> bool:
    """The identifier data[start:end] may be the name `module._binds` reads a bind's call for: `.bind(`
    with something in the brackets, `...Server(`, `make_server(` (when unsure, it may)."""
    name = data[start:end]
    after = _next(data, end)
    if name == b"bind":
        before = _previous(data, start)
        if before != -1 and data[before] != _DOT:
            return False
        if after == -1:
            return True
        inside = _next(data, after + 1) if data[after] == _OPEN else 0
        return data[after] == _OPEN and (inside == -1 or data[inside] != _CLOSE)
    return (name.endswith(b"Server") or name in _SERVER_NAMES) and (after == -1 or data[after] == _OPEN)


_SERVER_NAMES = frozenset(name.encode() for name in _SERVERS)


def _parse(data: bytes) -> ast.Module | None:
    try:
        with warnings.catch_warnings():  # `"\d"`: the file's business, not portlint's output
            warnings.simplefilter("ignore")
            return ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _imports(data: bytes) -> ast.Module | None:
    """The module with only its import statements (and the blocks they are in) parsed: what
    `Repository.externals` reads, for a file that names an exported helper, which may not import
    it (on trl, one whole parse of 14 ms at rules time for nothing). Every import statement
    spells `import` on one of its lines; python_outline blanks the other statements."""
    from portlint.speed import outline as python_outline

    starts = line_starts(data)
    sparse = python_outline.sparse(data, sorted(lines_holding(data, starts, [b"import"], whole=False)), starts)
    tree = _parse(sparse) if sparse is not None else None
    return tree if tree is not None else _parse(data)  # the whole file where the outline is unsure


@of_last
def handed_on(code_files: tuple[CodeFile, ...]) -> dict[str, tuple[PortHandOff, ...]]:
    """Each Python file's hand-offs (`resolve`), once per layout's files (PL601 and PL602 ask in turn)."""
    return resolve((f.path, f.data, f.sockets) for f in code_files if f.kind == "python")


def resolve(files: Iterable[tuple[str, bytes, Facts | None]]) -> dict[str, tuple[PortHandOff, ...]]:
    """Each file's hand-offs: those its extraction found, and for a file that imports a helper another
    module exports, those of a second analysis with that helper's summary (`files`: path, bytes, facts)."""
    files = list(files)
    found = {path: facts.handoffs for path, _, facts in files if facts and facts.handoffs}
    exports = {path: facts.exports for path, _, facts in files if facts and facts.exports}
    if not exports:
        return found
    from portlint.analysis.sockets.imports import MAX_ROUNDS, Repository

    seen: dict[str, frozenset] = {}
    heads: dict[str, ast.Module | None] = {}  # path -> its import statements' tree
    trees: dict[str, ast.Module | None] = {}
    for _ in range(MAX_ROUNDS):
        repository = Repository(exports)
        changed = False
        for path, data, _ in files:
            if not repository.mentions(data):
                continue
            if path not in heads:
                heads[path] = _imports(data)
            head = heads[path]
            externals = repository.externals(path, head) if head is not None else {}
            externals = {name: e for name, e in externals.items() if e.export not in exports.get(path, ())}
            key = frozenset((name, e.export) for name, e in externals.items())
            if not externals or seen.get(path) == key:
                continue
            if path not in trees:
                trees[path] = _parse(data)
            tree = trees[path]
            if tree is None:
                continue
            seen[path] = key
            facts = analyse(data, tree, externals)
            if facts.handoffs or path in found:
                found[path] = facts.handoffs
            if facts.exports != exports.get(path, ()):
                exports[path] = facts.exports
                changed = True
        if not changed:
            break
    return found


def _binds_a_variable(tree: ast.Module, data: bytes) -> bool:
    """A bind or server constructor whose port is not written as a literal (a candidate, a parameter).

    Only the nodes whose lines spell a word of _BIND_WORDS are walked: a call's name is written
    on its lines (`.bind`, `...Server`, and `_server` ends every name of _SERVERS). A walk of
    every node of sglang's `tokenizer_manager.py` was ~40% of its extraction."""
    text, starts = searchable(data)
    for node in holding(sorted(lines_holding(text, starts, _BIND_WORDS, whole=False)), [tree]):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name == "bind" and isinstance(func, ast.Attribute) or name.endswith("Server"):
            ports = [_port_in(node.args[0])] if node.args else []
        elif name in _SERVERS:
            place = 1 if name == "make_server" else 2  # make_server(host, port, app); (factory, host, port)
            ports = [_port_in(node.args[0])] if node.args else []
            ports += [k.value for k in node.keywords if k.arg == "port"] + node.args[place:place + 1]
        else:
            continue
        if any(not isinstance(port, ast.Constant) for port in ports):
            return True
    return False


def _port_in(address: ast.expr) -> ast.expr:
    """The port of an address written as a `(host, port)` display; the address itself otherwise."""
    if isinstance(address, ast.Tuple) and len(address.elts) >= 2:
        return address.elts[1]
    return address
