"""Where a Python value goes: a parameter default only to the far end of a connection, a range's
high bound only as its exclusive stop (the ownership of a site: portlint.stages.layout.ownership).

A client's default for the server it dials (`def __init__(self, host="127.0.0.1", port="50051")`
in a class that hands `f"{host}:{port}"` to a gRPC client) is that server's port, wherever the
server runs: this repository listens on nothing there, so the value is not part of its layout.
`Destinations(files).connect_only(site)` proves it for a parameter default by following every read of the
parameter (a name read anywhere in the function counts, also after it is rebound: more reads, never
fewer):

- into a connect side: `connect`/`connect_ex`/`create_connection`/`open_connection`, a gRPC
  `insecure_channel`/`secure_channel`, `urlopen`, an `http(s)://`/`ws(s)://`/`grpc(s)://` URL, a
  keyword that names the remote end (`remote_bind_address=`: bound on the remote host), or a client
  library's constructor (a callee in a `client` module, `riva.client.Auth(...)`, or named `...Client`);
  the last two only for a callee whose name no function or class of the repository has;
- through what only carries it: `int()`/`str()`, a `host:port` string, a tuple, a local name, an
  attribute of `self` read by the class's own methods, a function or class of the repository
  (the module's own or one it imports) whose parameter it becomes and whose return hands it back;
- or into nothing that uses it: a log call, a comparison, a test, an attribute its class never reads
  (of a class the repository does not subclass: a subclass's methods would read it unseen).

Anything else (a bind, a server's constructor, a JSON body another process reads, a call this
module cannot see into) means it may be bound here: not proven, and the port stays in the layout.
"""
from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Iterator, Mapping
from pathlib import PurePosixPath

from portlint.analysis.tree import (
    FUNCTIONS,
    dotted,
    end_line,
    first_line,
    lines_holding,
    searchable,
    statement_holds_hot,
    statements,
)
from portlint.model.ports import HIGH
from portlint.model.records import Struct, field
from portlint.model.sites import Site

_CONNECTS = frozenset((
    "connect", "connect_ex", "create_connection", "open_connection", "insecure_channel", "secure_channel", "urlopen",
))
_LOGS = frozenset(("debug", "info", "warning", "warn", "error", "exception", "critical", "log", "print"))
_URL = re.compile(r"(?:https?|wss?|grpcs?)://", re.IGNORECASE)
_CARRIERS = frozenset(("int", "str"))
MAX_CALLS = 4  # functions followed into, one inside the other

CONNECT = "connect"
UNKNOWN = "unknown"
Function = ast.FunctionDef | ast.AsyncFunctionDef


class _Module(Struct):
    """A parsed file. A node's parent is found by going down from its top-level statement into the
    children whose lines can hold it; every parent met on the way is kept."""

    path: str
    tree: ast.Module
    _parents: dict[ast.AST, ast.AST] = field(default_factory=dict)
    _mapped: set[ast.stmt] = field(default_factory=set)  # top-level statements whose every node's parent is mapped
    _firsts: list[int] = field(default_factory=list)  # first line of each top-level statement (decorators too)

    def __post_init__(self) -> None:
        self._firsts = [first_line(statement) for statement in self.tree.body]

    def top(self, line: int) -> ast.stmt | None:
        """The top-level statement holding the line."""
        at = bisect.bisect_right(self._firsts, line) - 1
        return self.tree.body[at] if at >= 0 else None

    def parent(self, node: ast.AST) -> ast.AST | None:
        if node not in self._parents and isinstance(node, (ast.stmt, ast.expr)):
            statement = self.top(node.lineno)
            if statement is not None and statement not in self._mapped:
                self._parents[statement] = self.tree
                if node is not statement and not self._descend(statement, node):
                    self._mapped.add(statement)
                    for above in ast.walk(statement):
                        for child in ast.iter_child_nodes(above):
                            self._parents[child] = above
        return self._parents.get(node)

    def _descend(self, statement: ast.stmt, node: ast.stmt | ast.expr) -> bool:
        """Map the parent of every node from `statement` down to `node`, looking only into children
        whose lines can hold it (a long class: one method, not all); False if that did not reach it.
        Every mapped parent is a child's own, found by going down, so a position that misleads
        (decorators above a `def`, an f-string's inner nodes) costs the full walk, never a wrong parent."""
        first, last = node.lineno, end_line(node)
        pending: list[ast.AST] = [statement]
        while pending:
            current = pending.pop()
            for child in ast.iter_child_nodes(current):
                if child is node:
                    self._parents[child] = current
                    return True
                if isinstance(child, (ast.stmt, ast.expr)):
                    top = first_line(child) if isinstance(child, ast.stmt) else child.lineno
                    if not top <= first or end_line(child) < last:
                        continue
                self._parents[child] = current
                pending.append(child)
        return False

    def enclosing(self, node: ast.AST, kinds: tuple[type, ...]) -> ast.AST | None:
        current = self.parent(node)
        while current is not None and not isinstance(current, kinds):
            current = self.parent(current)
        return current


class _Walk:
    """One proof: the fates of a value, file by file, with every name and attribute followed once."""

    def __init__(self, files: Mapping[str, bytes]) -> None:
        self.files = files
        self.modules: dict[str, _Module | None] = {}
        self.seen: set[tuple[str, int, str]] = set()
        self.searched: dict[tuple[tuple[bytes, ...], str], bool] = {}
        self.reads: dict[int, dict[str, list[ast.Name]]] = {}  # id of a scope -> its name reads, in walk order
        self.texts: dict[str, tuple[bytes, list[int]]] = {}  # path -> its `searchable` text and line starts
        self.lines: dict[tuple[str, str], list[int]] = {}  # (path, identifier) -> the lines spelling it

    def module(self, path: str) -> _Module | None:
        if path not in self.modules:
            data = self.files.get(path)
            try:
                self.modules[path] = _Module(path, ast.parse(data)) if data is not None else None
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                self.modules[path] = None
        return self.modules[path]

    # -- a name, an attribute ---------------------------------------------------
    def name(self, module: _Module, scope: ast.AST, name: str, depth: int, returns: bool) -> Iterator[str]:
        """Every read of `name` under `scope` (a function, or the module)."""
        key = (module.path, id(scope), name)
        if key in self.seen:
            return
        self.seen.add(key)
        for node in self.reads_of(scope).get(name, ()):
            yield from self.up(module, node, depth, returns)

    def reads_of(self, scope: ast.AST) -> dict[str, list[ast.Name]]:
        """The names read under a scope, each with its reads: one walk per scope, however many
        names are followed in it (a module's own names, a long function's)."""
        reads = self.reads.get(id(scope))
        if reads is None:
            reads = self.reads[id(scope)] = {}
            for node in ast.walk(scope):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    reads.setdefault(node.id, []).append(node)
        return reads

    def attribute(self, module: _Module, function: ast.AST, attr: str, depth: int) -> Iterator[str]:
        """Every read of `self.attr` in the class of `function` (none: nothing here uses it)."""
        owner = module.enclosing(function, (ast.ClassDef,))
        if not isinstance(owner, ast.ClassDef) or not isinstance(function, FUNCTIONS) or not function.args.args:
            yield UNKNOWN
            return
        key = (module.path, id(owner), "." + attr)
        if key in self.seen:
            return
        self.seen.add(key)
        if self.subclassed(owner.name):
            yield UNKNOWN  # a subclass's methods read it too, unseen here
            return
        hot = self.lines_with(module.path, attr)
        for method in (s for s in owner.body if isinstance(s, FUNCTIONS)):
            if not statement_holds_hot(hot, method):
                continue  # a long class: only the methods that spell the attribute are walked
            receiver = method.args.args[0].arg if method.args.args else ""
            for node in ast.walk(method):
                if isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.ctx, ast.Load) \
                        and isinstance(node.value, ast.Name) and node.value.id == receiver:
                    yield from self.up(module, node, depth, returns=False)

    def lines_with(self, path: str, word: str) -> list[int]:
        """The sorted lines of a file that spell `word` as a whole identifier."""
        key = (path, word)
        if key not in self.lines:
            if path not in self.texts:
                self.texts[path] = searchable(self.files[path])
            text, starts = self.texts[path]
            self.lines[key] = sorted(lines_holding(text, starts, [word.encode()]))
        return self.lines[key]

    def target(self, module: _Module, node: ast.AST, target: ast.expr, depth: int, returns: bool) -> Iterator[str]:
        """The value is stored in `target`: follow what reads it."""
        function = module.enclosing(node, FUNCTIONS) or module.tree
        if isinstance(target, ast.Name):
            yield from self.name(module, function, target.id, depth, returns)
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and isinstance(function, FUNCTIONS) \
                and function.args.args and target.value.id == function.args.args[0].arg:
            yield from self.attribute(module, function, target.attr, depth)
        else:
            yield UNKNOWN  # a container, a global object's attribute: read who knows where

    # -- where one expression holding the value goes -----------------------------
    def up(self, module: _Module, node: ast.AST, depth: int, returns: bool) -> Iterator[str]:
        parent = module.parent(node)
        if isinstance(parent, ast.FormattedValue):
            joined = module.parent(parent)
            if isinstance(joined, ast.JoinedStr) and _is_url(joined):
                yield CONNECT
            elif isinstance(joined, ast.JoinedStr) and _log_only(module, joined):
                return
            elif isinstance(joined, ast.JoinedStr):
                yield from self.up(module, joined, depth, returns)
            else:
                yield UNKNOWN
        elif isinstance(parent, ast.keyword):
            call = module.parent(parent)
            yield from self.argument(module, call, parent.arg, None, depth, returns) if isinstance(call, ast.Call) \
                else iter((UNKNOWN,))
        elif isinstance(parent, ast.Call):
            if node is parent.func:
                yield UNKNOWN
            else:
                index = parent.args.index(node) if node in parent.args else None
                yield from self.argument(module, parent, None, index, depth, returns)
        elif isinstance(parent, (ast.Tuple, ast.List)) and isinstance(parent.ctx, ast.Load):
            yield from self.up(module, parent, depth, returns)
        elif isinstance(parent, ast.Assign) and node is parent.value:
            for target in parent.targets:
                yield from self.target(module, parent, target, depth, returns)
        elif isinstance(parent, ast.AnnAssign) and node is parent.value:
            yield from self.target(module, parent, parent.target, depth, returns)
        elif isinstance(parent, ast.Return):
            if not returns:
                yield UNKNOWN  # the function hands it to callers nobody followed here
        elif isinstance(parent, ast.IfExp) and node is not parent.test or isinstance(parent, ast.BoolOp):
            yield from self.up(module, parent, depth, returns)
        elif isinstance(parent, (ast.Compare, ast.If, ast.While, ast.Assert, ast.Expr)) \
                or isinstance(parent, ast.IfExp) and node is parent.test \
                or isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
            return  # read to decide something, not passed on
        else:
            yield UNKNOWN

    def argument(self, module: _Module, call: ast.Call, keyword: str | None, index: int | None, depth: int,
                 returns: bool) -> Iterator[str]:
        callee = dotted(call.func)
        leaf = callee.rsplit(".", 1)[-1] if callee else ""
        if leaf in _CARRIERS and callee == leaf:
            yield from self.up(module, call, depth, returns)
            return
        if leaf in _LOGS:
            return
        resolved = self.resolve(module, call) if depth < MAX_CALLS else None
        if resolved is not None:
            yield from self.into(module, call, resolved, keyword, index, depth, returns)
            return
        if leaf in _CONNECTS or ((keyword or "").startswith("remote_") or _client(callee)) and not self.ours(leaf):
            yield CONNECT
            return
        yield UNKNOWN

    def subclassed(self, name: str) -> bool:
        """A class of the repository names `name` among its bases (bytes: a false match only makes a proof fail)."""
        return self._search((rb"class[ \t]+\w+[ \t]*\([^)]*\b",), name)

    def ours(self, name: str) -> bool:
        """A function or class of that name is defined somewhere in the repository: a call this walk
        could not resolve (`pkg.VLLMClient(...)` through a module alias) may reach it, so its name
        proves nothing."""
        return self._search((rb"def[ \t]+", rb"class[ \t]+"), name)

    def _search(self, keywords: tuple[bytes, ...], name: str) -> bool:
        """Any file has a line that opens (after spaces, maybe `async`) with one of the keyword patterns
        then the name as a word. Bytes, not trees: a match in a string or a comment only makes a proof
        fail; files without the name are not searched. Each pattern opens with its keyword's literal,
        which `re` scans for, and the line before a match is tested after: a pattern opening with `^`
        is tried at every byte."""
        key = (keywords, name)
        if key not in self.searched:
            word = name.encode()
            patterns = [re.compile(keyword + re.escape(word) + rb"\b") for keyword in keywords]
            self.searched[key] = any(
                word in data and any(_opens_a_line(pattern, data) for pattern in patterns) for data in self.files.values()
            )
        return self.searched[key]

    def into(self, module: _Module, call: ast.Call, resolved: tuple[_Module, Function, int], keyword: str | None,
             index: int | None, depth: int, returns: bool) -> Iterator[str]:
        """The value becomes a parameter of a function of the repository: its fates there, and where
        the call's result takes it when the function returns it."""
        other, function, skip = resolved
        params = [*function.args.posonlyargs, *function.args.args]
        names = [a.arg for a in params][skip:]
        if keyword is not None:
            known = {a.arg for a in (*params, *function.args.kwonlyargs)}
            param = keyword if keyword in known else None
        else:
            param = names[index] if index is not None and index < len(names) else None
        if param is None:
            yield UNKNOWN  # *args, **kwargs, a star argument: not followed
            return
        yield from self.name(other, function, param, depth + 1, returns=True)
        for at in _returned(function, param):
            if at is None:
                yield from self.up(module, call, depth, returns)
                continue
            parent = module.parent(call)
            if not isinstance(parent, ast.Assign) or parent.value is not call:
                yield UNKNOWN  # a tuple handed on whole: which part goes where is not followed
                continue
            for target in parent.targets:
                if isinstance(target, ast.Tuple) and at < len(target.elts) and not any(
                        isinstance(e, ast.Starred) for e in target.elts):
                    yield from self.target(module, parent, target.elts[at], depth, returns)
                else:
                    yield UNKNOWN

    # -- which function a call reaches --------------------------------------------
    def resolve(self, module: _Module, call: ast.Call) -> tuple[_Module, Function, int] | None:
        """The repository's function (or class, by its `__init__`) a call reaches, and how many implicit
        arguments it takes first."""
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            function = module.enclosing(call, FUNCTIONS)
            owner = module.enclosing(call, (ast.ClassDef,))
            if isinstance(function, FUNCTIONS) and isinstance(owner, ast.ClassDef) and function.args.args \
                    and func.value.id == function.args.args[0].arg:
                method = _member(owner, func.attr)
                return (module, method, 1) if method is not None else None
            return None
        if not isinstance(func, ast.Name):
            return None
        return self.defined(module, func.id, 0)

    def defined(self, module: _Module, name: str, hops: int) -> tuple[_Module, Function, int] | None:
        for statement in module.tree.body:
            if isinstance(statement, FUNCTIONS) and statement.name == name:
                return module, statement, 0
            if isinstance(statement, ast.ClassDef) and statement.name == name:
                init = _member(statement, "__init__")
                return (module, init, 1) if init is not None else None
        for node in statements(module.tree):
            if isinstance(node, ast.ImportFrom) and hops < 2:
                for alias in node.names:
                    if (alias.asname or alias.name) == name:
                        for path in _candidates(module.path, node, self.files):
                            other = self.module(path)
                            found = self.defined(other, alias.name, hops + 1) if other is not None else None
                            if found is not None:
                                return found
        return None


class Destinations:
    """The proofs for one repository (`files`: its Python files by path); each file is parsed once."""

    def __init__(self, files: Mapping[str, bytes]) -> None:
        self.walk = _Walk(files)
        self.stops: dict[tuple[str, str], set[str]] = {}  # (path, name) -> how its module reads the name as an end

    def over(self, files: Mapping[str, bytes]) -> Destinations:
        """The proofs for the repository holding `files` now: these when every file holds the same
        bytes (the same objects), else new ones that take each module parsed from bytes still there
        (an edit parses only the edited module again)."""
        old = self.walk.files
        if old.keys() == files.keys() and all(files[path] is data for path, data in old.items()):
            return self
        fresh = Destinations(files)
        fresh.walk.modules = {path: module for path, module in self.walk.modules.items()
                              if path in files and files[path] is old.get(path)}
        return fresh

    def connect_only(self, site: Site) -> bool:
        """True when the site is a Python parameter default whose every read provably ends at the far
        end of a connection (see the module)."""
        if site.kind != "python" or site.derived or not _a_default(site):
            return False
        module = self.walk.module(site.path)
        found = _parameter(module, site) if module is not None else None
        if module is None or found is None:
            return False
        self.walk.seen = set()
        function, param = found
        return set(self.walk.name(module, function, param, 0, returns=False)) == {CONNECT}


    def exclusive_end(self, site: Site) -> bool | None:
        """True when the site is a Python range bound that its module reads as a range's stop
        (`range(low, high)`, `randrange`, numpy's `randint`/`integers`, `port < high`) and never as
        an inclusive end; False when it reads it only as one (`<=`, `random.randint`, `range(low,
        high + 1)`); None when it does neither, or both."""
        if site.kind != "python" or site.derived or site.role != HIGH:
            return None
        module = self.walk.module(site.path)
        if module is None:
            return None
        name = site.name.rsplit(".", 1)[-1]
        uses = self.stops.get((site.path, name))
        if uses is None:
            uses = self.stops[(site.path, name)] = _stops(module.tree, name)
        return (EXCLUSIVE in uses) if len(uses) == 1 else None


EXCLUSIVE, INCLUSIVE = "exclusive", "inclusive"
_EXCLUSIVE_STOPS = frozenset(("range", "randrange", "integers"))  # stop is one past the last value
_NUMPY_RANDINT = ("np.random.randint", "numpy.random.randint")  # numpy's high is exclusive; `random.randint`'s is not


def _stops(tree: ast.Module, name: str) -> set[str]:
    """How the module reads `name` (a bare name or any object's attribute) as a range's end."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and len(node.args) >= 2:
            callee = dotted(node.func)
            stop = node.args[1]
            leaf = callee.rsplit(".", 1)[-1]
            if _named(stop, name) and (leaf in _EXCLUSIVE_STOPS or callee in _NUMPY_RANDINT):
                found.add(EXCLUSIVE)
            elif _named(stop, name) and leaf == "randint" or isinstance(stop, ast.BinOp) \
                    and isinstance(stop.op, ast.Add) and _named(stop.left, name):
                found.add(INCLUSIVE)  # `random.randint(low, high)`, `range(low, high + 1)`: high is the last port
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for op, left, right in zip(node.ops, operands, operands[1:]):
                if _named(right, name) and type(op) in _BELOW_A_RIGHT_END:
                    found.add(_BELOW_A_RIGHT_END[type(op)])
                elif _named(left, name) and type(op) in _ABOVE_A_LEFT_END:
                    found.add(_ABOVE_A_LEFT_END[type(op)])
    return found


# `port < high` and `port >= high` (out of range) say high is past the last port; `port <= high`
# and `port > high` say it is the last. The same, with the end on the left.
_BELOW_A_RIGHT_END = {ast.Lt: EXCLUSIVE, ast.GtE: EXCLUSIVE, ast.LtE: INCLUSIVE, ast.Gt: INCLUSIVE}
_ABOVE_A_LEFT_END = {ast.Gt: EXCLUSIVE, ast.LtE: EXCLUSIVE, ast.GtE: INCLUSIVE, ast.Lt: INCLUSIVE}


def _named(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name or isinstance(node, ast.Attribute) and node.attr == name


def _a_default(site: Site) -> bool:
    """The site's name can be a parameter default's (`Class.method.param`: its scope, the function, the
    parameter), not a constant (`NAME`, `Class.NAME`) or a keyword argument (`port`): the test before a parse."""
    scope = site.scope.split(".") if site.scope else []
    return len(site.name.split(".")) >= len(scope) + 2




def _parameter(module: _Module, site: Site) -> tuple[Function, str] | None:
    """The function and parameter whose default is the site's literal."""
    statement = module.top(site.line)
    for node in statements(statement) if statement is not None else ():
        if not isinstance(node, FUNCTIONS):
            continue
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
        pairs += [(arg, default) for arg, default in zip(args.kwonlyargs, args.kw_defaults) if default is not None]
        for arg, default in pairs:
            if isinstance(default, ast.Constant) and default.lineno == site.line and default.end_lineno == site.line \
                    and site.name.rsplit(".", 1)[-1] == arg.arg and _columns(default, site):
                return node, arg.arg
    return None


def _columns(default: ast.Constant, site: Site) -> bool:
    """The literal spans the site's column (ast counts UTF-8 bytes, the site characters: close enough
    on a line of one literal of that parameter, and exact on ASCII lines)."""
    return default.col_offset < site.column <= (default.end_col_offset or 0) + 1


def _member(owner: ast.ClassDef, name: str) -> Function | None:
    return next((s for s in owner.body if isinstance(s, FUNCTIONS) and s.name == name), None)


def _returned(function: Function, param: str) -> Iterator[int | None]:
    """Where `function` returns its parameter: None for the whole result, i for the i-th of a tuple."""
    for node in statements(function):
        if not isinstance(node, ast.Return) or node.value is None:
            continue
        if isinstance(node.value, ast.Name) and node.value.id == param:
            yield None
        elif isinstance(node.value, ast.Tuple):
            for at, element in enumerate(node.value.elts):
                if isinstance(element, ast.Name) and element.id == param:
                    yield at


_LINE_OPENING = re.compile(rb"[ \t]*(?:async[ \t]+)?")


def _opens_a_line(pattern: re.Pattern[bytes], data: bytes) -> bool:
    """`pattern` matches where only spaces (and maybe `async`) come before it on its line."""
    at = 0
    while (found := pattern.search(data, at)) is not None:
        line = data.rfind(b"\n", 0, found.start()) + 1
        if _LINE_OPENING.fullmatch(data, line, found.start()):
            return True
        at = found.start() + 1
    return False


def _is_url(joined: ast.JoinedStr) -> bool:
    first = joined.values[0] if joined.values else None
    return isinstance(first, ast.Constant) and isinstance(first.value, str) and _URL.match(first.value) is not None


def _log_only(module: _Module, joined: ast.JoinedStr) -> bool:
    """A message: an f-string handed to a log call or raised in an exception."""
    parent = module.parent(joined)
    if isinstance(parent, ast.Call) and joined in parent.args:
        leaf = dotted(parent.func).rsplit(".", 1)[-1]
        return leaf in _LOGS or isinstance(module.parent(parent), ast.Raise)
    return False


def _client(callee: str) -> bool:
    """A client library's constructor: `riva.client.Auth`, `grpc_client.Channel`, `...Client`."""
    parts = callee.split(".")
    return len(parts) > 1 and "client" in parts[:-1] or parts[-1].endswith("Client") and parts[-1][:1].isupper()


def _candidates(path: str, node: ast.ImportFrom, files: Mapping[str, bytes]) -> Iterator[str]:
    """The repository files an import can name: relative to the importing file, or by module path."""
    module = (node.module or "").replace(".", "/")
    if node.level:
        parts = PurePosixPath(path).parent.parts
        if node.level - 1 > len(parts):
            return
        stem = "/".join((*parts[:len(parts) - (node.level - 1)], *([module] if module else [])))
        yield from (p for p in (f"{stem}.py", f"{stem}/__init__.py") if p in files)
        return
    if not module:
        return
    for suffix in (f"{module}.py", f"{module}/__init__.py"):
        for candidate in files:
            if candidate == suffix or candidate.endswith("/" + suffix):
                yield candidate
