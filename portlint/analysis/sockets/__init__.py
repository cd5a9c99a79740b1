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
import re
import warnings
from collections.abc import Iterable

from portlint.analysis.tree import (
    holding,
    imports_of,
    lines_holding,
    searchable,
)
from portlint.model.extraction import CodeFile, Facts, PortHandOff
from portlint.model.source import line_starts
from portlint.speed.needles import holds, of_last
from portlint.tables import port_helpers

# A file worth the analysis binds: `.bind(`, or a server constructor ...
_BINDS = re.compile(rb"\.bind\s*\(|create_server|start_server|make_server|Server\s*\(")
# ... and a port number can leave it: read back from the socket, or the port bound is not a literal.
_READ_BACK = re.compile(rb"getsockname|server_port|server_address")
_SERVERS = ("create_server", "start_server", "make_server")
# What a bind's call spells (its name's end): `.bind`, `...Server`, and `_server` ends every name of _SERVERS.
_BIND_WORDS = (b"bind", b"Server", b"_server")


@of_last
def uses_sockets(data: bytes) -> bool:
    """Python that may probe ports: socket code that binds, or a call of a library's free-port helper
    (the bytes test before any parse)."""
    return holds(data, b"socket") and _BINDS.search(data) is not None or calls_library_helpers(data)


@of_last
def calls_library_helpers(data: bytes) -> bool:
    """Python that imports a library's free-port helper (portlint.tables.port_helpers): the bytes name
    one, and its import statements (parsed alone) import one."""
    if not port_helpers.mentioned(data):
        return False
    head = import_statements(data)
    if head is None:
        return False
    # `m.f` and `.f` are called as spelled; `f` is imported so, and may be called by a name alone
    return any("." not in local or local.encode() in data for local in port_helpers.imported(imports_of("", head)))


def analyse(data: bytes, tree: ast.Module | None = None, externals: dict | None = None,
            libraries: bool | None = None) -> Facts:
    """PL601/PL602's hand-offs of one file and the summaries it exports; `externals`: the functions of
    other modules it imports (imports.External by the name it calls them); `libraries`: whether it
    calls a library's helper, where the caller knows (`calls_library_helpers`)."""
    if libraries is None:
        libraries = calls_library_helpers(data)
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


def _parse(data: bytes) -> ast.Module | None:
    try:
        with warnings.catch_warnings():  # `"\d"`: the file's business, not portlint's output
            warnings.simplefilter("ignore")
            return ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


@of_last
def import_statements(data: bytes) -> ast.Module | None:
    """The module with only its import statements (and the blocks they are in) parsed: what
    `Repository.externals` reads, for a file that names an exported helper, which may not import
    it (a whole parse at rules time, for nothing). Every import statement
    spells `import` on one of its lines; python_outline blanks the other statements."""
    from portlint.speed import outline as python_outline
    from portlint.speed.switch import fast

    if not fast("outline"):
        return _parse(data)
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
    libraries: dict[str, bool] = {}  # path -> whether it calls a library's helper
    for _ in range(MAX_ROUNDS):
        repository = Repository(exports)
        jobs: list[tuple[str, bytes, dict, bool]] = []
        for path, data, _ in files:
            if not repository.mentions(data):
                continue
            if path not in heads:
                heads[path] = import_statements(data)
                libraries[path] = calls_library_helpers(data)  # while its import tree is the one kept
            head = heads[path]
            externals = repository.externals(path, head) if head is not None else {}
            externals = {name: e for name, e in externals.items() if e.export not in exports.get(path, ())}
            key = frozenset((name, e.export) for name, e in externals.items())
            if not externals or seen.get(path) == key:
                continue
            seen[path] = key
            jobs.append((path, data, externals, libraries[path]))
        changed = False
        for (path, _, _, _), facts in zip(jobs, _analysed(jobs)):
            if facts is None:
                continue  # does not parse: the Python extractor reports it (PL001)
            if facts.handoffs or path in found:
                found[path] = facts.handoffs
            if facts.exports != exports.get(path, ()):
                exports[path] = facts.exports
                changed = True
        if not changed:
            break
    return found


def _analysed(jobs: list[tuple[str, bytes, dict, bool]]) -> list[Facts | None]:
    """Each file's second analysis (with the helpers it imports), None where it does not parse: by
    this process and workers forked from it where the files are worth a pool (portlint.speed.pool;
    each task parses its files whole and analyses them: neither trees nor inputs are sent)."""
    from portlint.speed import pool

    sizes = [len(data) for _, data, _, _ in jobs]
    workers = pool.workers(sum(sizes)) if len(jobs) > 1 else 1
    if workers <= 1:
        return [_second(*job[1:]) for job in jobs]
    order = sorted(range(len(jobs)), key=lambda i: -sizes[i])
    split = pool.runs(order, [sizes[i] for i in order], pool.TASKS - 1)
    pool.preload(_ANALYSIS_MODULES)
    done = pool.run(len(split), lambda task: [(i, _second(*jobs[i][1:])) for i in split[task]], workers)
    results: list[Facts | None] = [None] * len(jobs)
    for task in done:
        for i, facts in task:
            results[i] = facts
    return results


# What a second analysis imports on first use: imported once before a pool forks.
_ANALYSIS_MODULES = ("portlint.analysis.sockets.describe", "portlint.analysis.sockets.module")


def _second(data: bytes, externals: dict, libraries: bool) -> Facts | None:
    tree = _parse(data)
    return analyse(data, tree, externals, libraries) if tree is not None else None


def _binds_a_variable(tree: ast.Module, data: bytes) -> bool:
    """A bind or server constructor whose port is not written as a literal (a candidate, a parameter).

    Only the nodes whose lines spell a word of _BIND_WORDS are walked: a call's name is written
    on its lines (`.bind`, `...Server`, and `_server` ends every name of _SERVERS). A walk of
    every node of a large module was a large part of its extraction."""
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
