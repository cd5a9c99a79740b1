"""Python sites, from the stdlib `ast` (positions suffice here; nothing is imported or run).

Found: `NAME = N` (also annotated, at any level; inside a class the name is
`Class.NAME`), literals in the branches of a conditional or boolean expression
(`base = max(c) if c else 7000`), parameter defaults (`def f(start_port=7000)`),
keyword arguments (`serve(port=7000)`), `os.environ.get("NAME", default)` /
`os.getenv(...)`, `os.environ["NAME"] = "N"`, `os.environ.setdefault("NAME", "N")` and
the entries of an environment mapping (`{"MASTER_PORT": "29500"}`: upper-case keys).
A numeric string literal counts as a port when its digits are the whole string.

Ports written as a run from a base are sites too, under port-like names singular
or plural: `BASE + i` and `8000 + rank` (not `base_port + 1`, an offset from a port
written elsewhere), `[BASE + i for i in range(4)]`, `list(range(8000, 8008))`,
`for port in range(31000, 33000)`, `[8000, 8001]` (each item). The site is the base's
literal (a module constant's, `BASE = 30000`, where the module assigns it once) with
the run's extent where its count is written (`Site.extent`): rules judge the run,
a fix rewrites the base only.

A literal given to a call whose result fills a setting where it is unset
(`os.environ.get("MASTER_PORT") or find_free_port(min_port=2000)`,
`os.environ["MASTER_PORT"] = str(find_free_port(...))`, `os.getenv("MASTER_PORT", pick(...))`,
`port = os.getenv("MASTER_PORT")` then `if port is None: port = find_free_port()`), and the
parameter defaults of the module's function so called, are marked as that setting's
fallback (`Site.fills`): the scan and the fixed value are one setting's alternatives, never
both in force. A function so called from another module is recorded (`Extraction.fills`)
for the layout stage, which marks its defaults where that module is.

A value given to the Kubernetes client's models (`V1ContainerPort(container_port=8080)`,
`V1HTTPGetAction(port=8080)`) is marked as a pod's own (`Site.pod`), as the same keys in a
manifest are.

Command-line option defaults are sites named like the shell long option they
define, with their destination as an alias (`--port`, `port`), so one selector
binds a script's `--port 8000` and the parser's default: argparse
`add_argument("--port", default=8000)` (`dest=` when given), click
`@click.option("--port", default=8000)` / `click.argument`, and typer
`port: int = typer.Option(8000, "--port")` or, annotated,
`port: Annotated[int, typer.Option("--port")] = 8000`.
"""
from __future__ import annotations

import ast
import bisect
import codecs
import io
import re
import warnings
from collections.abc import Callable, Iterator
from functools import lru_cache

from portlint import analysis
from portlint.analysis import rendezvous, sockets
from portlint.analysis.tree import ENV_GETTERS, Visitor, dotted, imports_of, statement_holds_hot
from portlint.model.extraction import Extraction, Suppression
from portlint.model.naming import NameFilter, is_port_name, role_of
from portlint.model.ports import BASE
from portlint.model.records import structs
from portlint.model.sites import Command, Site
from portlint.model.source import Source
from portlint.speed import outline as python_outline
from portlint.speed.needles import holds, port_token
from portlint.speed.switch import fast
from portlint.stages.extract import prose, python_commands, suppression_in
from portlint.tables.tool_defaults import mentions_tool

_ENV_SETDEFAULT = frozenset(("os.environ.setdefault", "environ.setdefault"))
_ENV_MAPPINGS = frozenset(("os.environ", "environ"))
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
# Calls whose arguments a mock takes (test scope wherever the file is: portlint.model.scope).
_MOCK_CLASSES = frozenset(("Mock", "MagicMock", "AsyncMock", "NonCallableMock", "NonCallableMagicMock",
                           "PropertyMock", "create_autospec"))
_PATCHES = frozenset(("patch", "mock.patch", "unittest.mock.patch", "mocker.patch"))
# The Kubernetes client's models (`client.V1ContainerPort`, `V1Probe`, `V1ServicePort`): a pod's spec
# written in Python, whose ports are the pod's own (its network namespace, or its Service's address).
_KUBERNETES_MODEL = re.compile(r"V1(?:beta\d+)?[A-Z][A-Za-z]*")
_LONE_CR = re.compile(rb"\r(?!\n)")
# A line from its first `#` on: one match per line, taken whole (a pattern requiring a digit
# after the `#` was tried again from every `#` of a line without one: quadratic in its length).
_COMMENT = re.compile(rb"#[^\n]*")


def extract(source: Source, names: NameFilter) -> Extraction:
    hot, hot_starts = _hot_lines(source, names)
    # A line with a command word is where the command reader starts: without one it reads nothing.
    # Commands matter where they may run a tool of the table (PL603): read only then (`commands`).
    reads = not fast("commands") or mentions_tool("python", source.data)
    command_hot = (python_commands.hot_lines(source.data) or None) if reads else None
    socket_code, starts = sockets.uses_sockets(source.data), rendezvous.worth_reading(source.data)
    parsed = _parse(source, hot, hot_starts, command_hot, socket_code, starts)
    analysed = socket_code or starts  # analysis.worth_reading
    if isinstance(parsed, Extraction):
        return parsed
    tree, only_hot, command_hot = parsed
    try:
        return _read(source, names, tree, hot, only_hot, command_hot, analysed)
    except RecursionError:  # `port = 1 + 1 + ...` (400 terms): a tree deeper than the walks' recursion reads
        return Extraction(error="Python nested too deeply to read")


def _read(source: Source, names: NameFilter, tree: ast.Module, hot: list[int], only_hot: bool,
          command_hot: list[int] | None, analysed: bool) -> Extraction:
    """What the walks of the module's tree find: sites, suppressions, commands and the code analyses' facts."""
    finder = _SiteFinder(source, names, hot, blocks_hot=only_hot)
    finder.visit(tree)
    suppressions, doc_sites = _comments(source, names)
    commands: tuple[Command, ...] = ()
    if command_hot is not None:  # the file mentions a tool, and a line may read a command
        commands = python_commands.commands(source, tree, lambda line, column: _offset(source, line, column), command_hot)
    return Extraction(
        (*finder.passed_on(), *doc_sites), suppressions, commands=commands,
        sockets=analysis.facts(source.data, tree) if analysed else None,  # from this tree: never parsed again
        fills=_imported_fills(source, finder),
    )


def _imported_fills(source: Source, finder: _SiteFinder) -> tuple[tuple[str, str, str], ...]:
    """(module, function, setting) for each function of another module this one calls to fill a
    setting where it is unset (`port = os.getenv("MASTER_PORT")`, then `if port is None: port =
    find_free_port()`): its defaults are that setting's fallback too (the layout stage finds them).
    The imports are read from a tree of the module's import statements alone (the one walked may
    be sparse, and have none)."""
    wanted = {callee: setting for callee, setting in finder.filled_calls.items()
              if callee.split(".", 1)[0] not in finder.defaults}
    if not wanted:
        return ()
    statements = sockets.import_statements(source.data)
    if statements is None:
        return ()
    imports = imports_of(source.path, statements)
    found = []
    for callee, setting in wanted.items():
        head, _, rest = callee.partition(".")
        if not rest and head in imports:  # `from pkg.utils import find_free_port`
            module, function = imports[head]
        elif rest and f"{head}." in imports:  # `import pkg.utils as utils`: `utils.find_free_port`
            module, function = ".".join((imports[f"{head}."][0], *rest.split(".")[:-1])), rest.rsplit(".", 1)[-1]
        elif rest and head in imports:  # `from pkg import utils`: `utils.find_free_port`
            base, name = imports[head]
            module, function = ".".join((base, name, *rest.split(".")[:-1])), rest.rsplit(".", 1)[-1]
        else:
            continue
        found.append((module, function, setting))
    return tuple(sorted(found))


def _parse(source: Source, hot: list[int], hot_starts: list[int], command_hot: list[int] | None, socket_code: bool,
           starts: bool) -> tuple[ast.Module, bool, list[int] | None] | Extraction:
    """The module's tree, whether it holds only hot statements and the lines the command
    reader reads (of `command_hot`, those python_commands.read_lines keeps once the module is
    outlined), or the parse error. The tree is of the module's hot statements alone where the
    fast path `outline` is taken and the outline is sure of them (`_sparse`), else of the whole."""
    data = source.data
    sparse = None
    if fast("outline"):
        sparse, command_hot = _sparse(source, hot, hot_starts, command_hot, socket_code, starts)
    if sparse is not None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return ast.parse(sparse, filename=source.path), not (socket_code or starts) and command_hot is None, command_hot
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            pass  # the whole file says what is wrong, or that nothing was
    try:
        with warnings.catch_warnings():  # `"\d"`, `1if x`: the file's business, not portlint's output
            warnings.simplefilter("ignore")
            return ast.parse(data, filename=source.path), False, command_hot
    except SyntaxError as error:
        return Extraction(
            error=f"invalid Python: {error.msg}",
            error_line=max(error.lineno or 1, 1), error_column=max(error.offset or 1, 1),
        )
    except (ValueError, RecursionError, MemoryError) as error:  # NUL bytes; absurd nesting
        return Extraction(error=f"invalid Python: {str(error) or 'nested too deeply to parse'}")


def _sparse(source: Source, hot: list[int], hot_starts: list[int], command_hot: list[int] | None, socket_code: bool,
            starts: bool) -> tuple[bytes | None, list[int] | None]:
    """The module with the statements no walk reads blanked (python_outline), or None where the
    outline is unsure; and the lines the command reader reads.

    Where only the site finder reads the tree, only its hot statements are kept: every
    statement with a body in the tree is one it would visit. Where the command reader reads it
    too, so are the statements that spell a name a command's placeholder may read and the
    functions named like a command (python_commands.kept). So does the rendezvous analysis
    (`starts`): every function it may reach (rendezvous.kept). A module the socket analysis
    reads (`socket_code`) is kept whole.
    """
    data = source.data
    if not (socket_code or starts) and command_hot is None:
        return python_outline.sparse_at(data, hot_starts), command_hot
    if socket_code and command_hot is None:
        return None, None  # kept whole (`_kept`): nothing to outline it for
    lines = python_outline.outline(data)
    if lines is None:
        return None, command_hot
    if command_hot is not None:  # with no line left to read, the file is one the reader does not read
        command_hot = python_commands.read_lines(data, source.line_starts, lines, command_hot) or None
    definitions = python_outline.definitions(data, lines)
    kept = _kept(data, definitions, socket_code, starts)
    if kept is None:
        return None, command_hot
    functions, kept_lines = kept
    hot_lines = [*hot, *(command_hot or ())]
    if command_hot is not None:
        constants, commanding = python_commands.kept(data, source.line_starts, lines, command_hot, definitions)
        hot_lines += constants
        functions = [*functions, *commanding]
    sparse = python_outline.sparse(data, sorted(set(hot_lines)), source.line_starts, lines=lines,
                                   whole=functions, whole_lines=kept_lines)
    return sparse, command_hot


def _kept(data: bytes, definitions: list[tuple[str, int, int]], socket_code: bool,
          starts: bool) -> tuple[list[int], list[int]] | None:
    """What the code analyses reading the module read of it, kept whole in a sparse tree: the
    statements (where they start) and the lines of the module's own code; None: all of it (the
    socket analysis reads the whole module: a sparse tree of only what it reaches saved too little
    for the hand-kept reading of bytes it took, docs/performance.md)."""
    if socket_code:
        return None
    return rendezvous.kept(data, definitions) if starts else ([], [])


def _env_getter(node: ast.AST) -> ast.Call | None:
    """The env getter a value reads (`os.environ.get("X")`, also inside `int(...)`/`str(...)`), or None."""
    inner = node.args[0] if isinstance(node, ast.Call) and dotted(node.func) in ("int", "str") and node.args else node
    return inner if isinstance(inner, ast.Call) and dotted(inner.func) in ENV_GETTERS else None


class _SiteFinder(Visitor):
    """Every site of a module; statements whose lines hold no port token or selector name are
    skipped whole (a site's name, or its last dotted part, is written in its statement)."""

    def __init__(self, source: Source, names: NameFilter, hot: list[int] | None = None, blocks_hot: bool = False) -> None:
        self.source = source
        self.names = names
        self.hot = hot  # sorted line numbers worth a look; None: every line
        # A tree of only the hot statements (python_outline.sparse): a statement with a body is
        # there because it is hot, though its end moved up with its cold statements.
        self.blocks_hot = blocks_hot
        self.scopes: list[str] = []
        self.class_depth: list[bool] = []
        self.sites: list[Site] = []
        # One value under several names (PL202 reads them as one service): a name passed on as
        # an argument or a parameter default (`serve(port=DEFAULT_PORT)`), an env getter that
        # feeds a parameter default, the other branch of `x.port if c else 8000`.
        self.passed: dict[str, list[str]] = {}
        self.env_defaults: dict[int, str] = {}
        self.cli_names: dict[str, str] = {}  # `option` imported from click -> "click.option"
        self.constants: dict[str, tuple[int, int, int] | None] = {}  # module constants read as a run's base
        self.mocking = 0  # inside the arguments of this many mock calls (`MagicMock(port=...)`)
        self.in_pod = 0  # inside the arguments of this many Kubernetes models (`V1ContainerPort(container_port=...)`)
        # A call whose result fills a setting where it is unset, by id (`os.environ.get("X") or f(...)`),
        # and the setting each function so called fills; the default sites of each function, by name.
        self.filling: dict[int, str] = {}
        self.filled: dict[str, str] = {}
        self.filled_calls: dict[str, str] = {}  # the same, by the callee as written (`utils.find_free_port`)
        self.defaults: dict[str, list[int]] = {}
        self.getters: dict[str, str] = {}  # a local name given an env getter's value -> the setting it reads

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module in ("click", "typer") and node.level == 0:
            for alias in node.names:
                self.cli_names[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def visit(self, node: ast.AST) -> None:
        if self.hot is not None and isinstance(node, ast.stmt) and not (self.blocks_hot and hasattr(node, "body")) \
                and not statement_holds_hot(self.hot, node):
            return  # nothing port-like is written in this statement: no site inside
        super().visit(node)

    # -- scopes --------------------------------------------------------------
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._in_scope(node.name, node, is_class=True)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
        pairs += [(arg, default) for arg, default in zip(args.kwonlyargs, args.kw_defaults) if default]
        first = len(self.sites)
        for arg, default in pairs:
            qualified = f"{self._qualified(node.name)}.{arg.arg}"
            typer_call = self._typer_parameter(default) or self._typer_parameter(_annotated_metadata(arg))
            if typer_call is not None:
                self._typer_default(typer_call, default, arg.arg, qualified)
            else:
                self._literal(default, qualified, arg.arg)
                self._feeds(default, qualified)
        if len(self.sites) > first:
            self.defaults.setdefault(node.name, []).extend(range(first, len(self.sites)))
        getters, self.getters = self.getters, {}  # a function's locals are its own
        self._in_scope(node.name, node, is_class=False)
        self.getters = getters

    visit_AsyncFunctionDef = visit_FunctionDef

    def _in_scope(self, name: str, node: ast.AST, is_class: bool) -> None:
        self.scopes.append(name)
        self.class_depth.append(is_class)
        self.generic_visit(node)
        self.scopes.pop()
        self.class_depth.pop()

    def _qualified(self, name: str) -> str:
        return ".".join((*self.scopes, name))

    # -- assignments -----------------------------------------------------------
    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._assignment(target, node.value)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self._assignment(node.target, node.value)
        self.generic_visit(node)

    def _assignment(self, target: ast.AST, value: ast.AST) -> None:
        if isinstance(target, ast.Name):
            inner = _env_getter(value)
            if inner is not None and inner.args and len(inner.args) == 1:
                self.getters[target.id] = _string(inner.args[0])
            else:
                self.getters.pop(target.id, None)
        if isinstance(target, ast.Subscript) and dotted(target.value) in _ENV_MAPPINGS:
            self._fills(value, _string(target.slice))
            self._literal(value, _string(target.slice), None)
            return
        name = target.id if isinstance(target, ast.Name) else dotted(target)
        if not name:
            return
        in_class = bool(self.class_depth) and self.class_depth[-1]
        qualified = f"{self.scopes[-1]}.{name}" if in_class else name
        also = _other_branches(value)  # once: per literal, `1 and 1 and ...` was quadratic
        for literal in _branch_literals(value):
            self._literal(literal, qualified, name, also=also)
        if not isinstance(value, ast.Constant) and _ports_named(name):
            self._run(value, qualified, name)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        """`for port in range(30000, 30010)`: the ports a loop goes through, from a literal base."""
        if isinstance(node.target, ast.Name) and _ports_named(node.target.id):
            self._run(node.iter, node.target.id, node.target.id)
        self.generic_visit(node)

    visit_AsyncFor = visit_For

    # -- ports written as runs: lists, ranges, arithmetic ------------------------
    def _run(self, value: ast.AST, name: str, leaf: str) -> None:
        """Ports written from a base (issue: ports in lists and arithmetic): `BASE + i`, `8000 + rank`,
        `[BASE + i for i in range(4)]`, `list(range(8000, 8004))`, `[8000, 8001]`. The base is a literal
        here, or a module constant's (`BASE = 30000`); the run's extent is known where its count is."""
        if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
            for index, item in enumerate(value.elts):
                if isinstance(item, ast.Constant):
                    self._literal(item, f"{name}[{index}]", leaf, force=True)
            return
        if isinstance(value, ast.Call) and dotted(value.func) in ("list", "tuple", "set", "sorted") and value.args:
            value = value.args[0]
        if isinstance(value, (ast.ListComp, ast.GeneratorExp, ast.SetComp)) and len(value.generators) == 1:
            loop = value.generators[0]
            count = _range_count(loop.iter)
            base = _added_to(value.elt, loop.target)
            if base is not None:
                self._base(base, name, leaf, count - 1 if count else 0)
            return
        if isinstance(value, ast.Call) and dotted(value.func) == "range" and len(value.args) >= 2:
            start, stop = value.args[0], value.args[1]
            count = _stop_after(start, stop, self._constant_value)
            self._base(start, name, leaf, count - 1 if count else 0)
            return
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            for side, other in ((value.left, value.right), (value.right, value.left)):
                if _ports_named(dotted(other)) or isinstance(other, ast.Constant):
                    continue  # `base_port + 1000`: an offset from a port written elsewhere
                if isinstance(side, ast.Constant) or isinstance(side, ast.Name) and self._constant(side.id):
                    self._base(side, name, leaf, 0)
                    return

    def _base(self, node: ast.AST, name: str, leaf: str, extent: int) -> None:
        """The base of a run: a literal here, or the literal a module constant is given (one whose
        own name is port-like is a site already: a run from it says no more of it)."""
        if isinstance(node, ast.Constant):
            self._literal(node, name, leaf, force=True, role=BASE, extent=extent)
        elif isinstance(node, ast.Name) and (extent or not _ports_named(node.id)):
            found = self._constant(node.id)
            if found is not None:
                start, end, value = found
                self._site(start, end, value, node.id, leaf, aliases=(name,), role=BASE, extent=extent)

    def _constant(self, name: str) -> tuple[int, int, int] | None:
        """The digits of `NAME = N` where the module assigns its constant once, at its top level."""
        if name not in self.constants:
            found = list(re.finditer(rb"^%s[ \t]*(?::[^=\n]*)?=[ \t]*(\d+)[ \t]*(?:#[^\n]*)?\r?$" % re.escape(name.encode()),
                                     self.source.data, re.MULTILINE))
            assigned = len(re.findall(rb"^%s[ \t]*(?::[^=\n]*)?=[^=]" % re.escape(name.encode()), self.source.data, re.MULTILINE))
            digits = found[0].group(1) if len(found) == 1 and assigned == 1 else b""
            ok = digits.isdigit() and (digits == b"0" or not digits.startswith(b"0"))
            self.constants[name] = (found[0].start(1), found[0].end(1), int(digits)) if ok else None
        return self.constants[name]

    def _constant_value(self, node: ast.AST) -> int | None:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        found = self._constant(node.id) if isinstance(node, ast.Name) else None
        return found[2] if found is not None else None

    def visit_Dict(self, node: ast.Dict) -> None:
        """`{"MASTER_PORT": "29500"}`: an environment mapping (for `env=`, `os.environ.update`,
        `patch.dict`) sets the variable, so an upper-case port-like key is its site."""
        for key, value in zip(node.keys, node.values):
            name = _string(key) if key is not None else ""
            if _ENV_NAME.fullmatch(name):
                self._literal(value, name, None)
        self.generic_visit(node)

    # -- a setting's fallback ---------------------------------------------------
    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        """`os.environ.get("X") or f(...)`: what follows the getter fills X where it is unset."""
        if isinstance(node.op, ast.Or):
            for getter, rest in zip(node.values, node.values[1:]):
                inner = _env_getter(getter)
                if inner is not None and inner.args:
                    self._fills(rest, _string(inner.args[0]))
        self.generic_visit(node)

    def visit_If(self, node: ast.If) -> None:
        """`port = os.getenv("X")`, then `if port is None: port = f(...)` (or `if not port:`, or the
        `else:` of `if port is not None:` / `if port:`): what the branch assigns fills X where it is unset."""
        unset = _unset_test(node.test)
        if unset is not None:
            name, when_true = unset
            setting = self.getters.get(name, "")
            for statement in node.body if when_true else node.orelse:
                if setting and isinstance(statement, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == name for t in statement.targets):
                    self._fills(statement.value, setting)
        self.generic_visit(node)

    def _fills(self, value: ast.AST, setting: str) -> None:
        """The calls of `value` (but env getters) give the setting its value where it is unset."""
        if not setting:
            return
        for node in ast.walk(value):
            callee = dotted(node.func) if isinstance(node, ast.Call) else ""
            if callee and callee not in ENV_GETTERS and callee not in ("int", "str"):
                self.filling.setdefault(id(node), setting)
                self.filled.setdefault(callee.rsplit(".", 1)[-1], setting)
                self.filled_calls.setdefault(callee, setting)

    # -- calls ----------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        callee = dotted(node.func)
        mock, pod = _is_mock(callee), _KUBERNETES_MODEL.fullmatch(callee.rsplit(".", 1)[-1]) is not None
        self.mocking += mock
        self.in_pod += pod
        self._call(node, callee)
        self.mocking -= mock
        self.in_pod -= pod

    def _call(self, node: ast.Call, callee: str) -> None:
        if callee in ENV_GETTERS | _ENV_SETDEFAULT and len(node.args) >= 2:
            self._fills(node.args[1], _string(node.args[0]))
            fed = self.env_defaults.get(id(node))
            self._literal(node.args[1], _string(node.args[0]), None, also=(fed,) if fed else ())
        cli = self._cli_option(node, callee)
        first = len(self.sites)
        for keyword in node.keywords:
            if keyword.arg == "default" and cli:
                for literal in _branch_literals(keyword.value):
                    self._literal(literal, cli[0], cli[0], aliases=cli[1:])
            elif keyword.arg is not None:
                self._feeds(keyword.value, keyword.arg)
                also = _other_branches(keyword.value)
                for literal in _branch_literals(keyword.value):
                    self._literal(literal, keyword.arg, keyword.arg, also=also)
        setting = self.filling.get(id(node))
        if setting:
            self.sites[first:] = [structs.replace(site, fills=setting) for site in self.sites[first:]]
        self.generic_visit(node)

    def _feeds(self, value: ast.AST, name: str) -> None:
        """`name` takes the value of a Python name, or of an env getter (also inside `int(...)`)."""
        if isinstance(value, ast.Name):
            self.passed.setdefault(value.id, []).append(name)
        elif (inner := _env_getter(value)) is not None:
            self.env_defaults[id(inner)] = name

    def passed_on(self) -> list[Site]:
        """The sites, each with the names its value is passed on as (PL202's one-service reading); a
        literal found twice (a constant, and the base of a run it starts) is one site; the defaults of
        a function called to fill a setting, as that setting's fallback."""
        for function, setting in self.filled.items():
            for index in self.defaults.get(function, ()):
                if not self.sites[index].fills:
                    self.sites[index] = structs.replace(self.sites[index], fills=setting)
        merged: dict[tuple[int, int], Site] = {}
        for site in self.sites:
            known = merged.get((site.start, site.end))
            if known is not None:
                site = structs.replace(
                    known, aliases=tuple(dict.fromkeys(n for n in (*known.aliases, *site.names) if n != known.name)),
                    extent=max(known.extent, site.extent), role=BASE if site.extent else known.role,
                )
            merged[(site.start, site.end)] = site
        return [
            structs.replace(site, aliases=(*site.aliases, *self.passed[site.name]))
            if site.name in self.passed else site
            for site in merged.values()
        ]

    # -- command-line options -------------------------------------------------
    def _cli_option(self, node: ast.Call, callee: str) -> tuple[str, ...]:
        """(option, destination) of an argparse/click option declaration, () for any other call."""
        leaf = callee.rsplit(".", 1)[-1]
        if leaf == "add_argument" and "." in callee:
            flags = [_string(arg) for arg in node.args]
            dest = next((_string(k.value) for k in node.keywords if k.arg == "dest"), "")
            return _option_names(flags, dest, underscores=True)
        if self.cli_names.get(callee, callee) in ("click.option", "click.argument"):
            declared = [_string(arg) for arg in node.args]
            dest = next((d for d in declared if d and not d.startswith("-")), "")
            return _option_names([d for d in declared if d.startswith("-")] or [dest], dest, underscores=True)
        return ()

    def _typer_parameter(self, node: ast.AST | None) -> ast.Call | None:
        if isinstance(node, ast.Call):
            callee = dotted(node.func)
            if self.cli_names.get(callee, callee) in ("typer.Option", "typer.Argument"):
                return node
        return None

    def _typer_default(self, call: ast.Call, default: ast.AST, parameter: str, qualified: str) -> None:
        """The default of a typer parameter: in `Option(8000, ...)`, its `default=`, or after `=`."""
        declared = [_string(arg) for arg in call.args]
        value: ast.AST | None
        if call is default:  # `port: int = typer.Option(8000, "--port")`
            keyword = next((k.value for k in call.keywords if k.arg == "default"), None)
            value = keyword if keyword is not None else (call.args[0] if call.args else None)
            declared = declared[1:] if keyword is None else declared
        else:  # `port: Annotated[int, typer.Option("--port")] = 8000`
            value = default
        flags = [d for d in declared if d.startswith("-")]
        if dotted(call.func).endswith("Option") and not flags:
            flags = ["--" + parameter.replace("_", "-")]
        names = (*_option_names(flags or [parameter], parameter, underscores=False), qualified)
        for literal in _branch_literals(value) if value is not None else ():
            self._literal(literal, names[0], names[0], aliases=names[1:])

    # -- sites ----------------------------------------------------------------
    def _literal(
        self, node: ast.AST, name: str, leaf: str | None, aliases: tuple[str, ...] = (), also: tuple[str, ...] = (),
        force: bool = False, role: str = "", extent: int = 0,
    ) -> None:
        """Record `node` as a site named `name` when it is a port literal and wanted (`force`: a run's
        base or a list's item, wanted by the list's name); `also` are names of the same value (its
        flow) that make nothing wanted by themselves."""
        if not name or not isinstance(node, ast.Constant) or not (force or any(map(self.names.wants, (name, *aliases)))):
            return
        span = _digits_span(self.source, node)
        if span is not None:
            self._site(*span, name, leaf, aliases=(*aliases, *also), role=role, extent=extent)

    def _site(self, start: int, end: int, value: int, name: str, leaf: str | None, aliases: tuple[str, ...] = (),
              role: str = "", extent: int = 0) -> None:
        line, column = self.source.position(start)
        end_line, end_column = self.source.position(end)
        self.sites.append(Site(
            self.source.path, line, column, start, end, "python", name, value,
            role=role or role_of(leaf or name), scope=".".join(self.scopes),
            end_line=end_line, end_column=end_column,
            aliases=tuple(dict.fromkeys(a for a in aliases if a != name)), mock=self.mocking > 0,
            pod=self.in_pod > 0, extent=max(extent, 0),
        ))


# Words of statements the finder must visit for what they tell it about later ones (not sites
# themselves): `from click import option as opt`. A visitor that gathers such state needs its words
# here (and in portlint.speed.needles.NEEDLES, whose one pass says which a file holds), and only on the
# lines where such a statement can spell them (_imports_here).
_HOT_WORDS = (b"click", b"typer")
_LINE_ENDS = re.compile(rb"[\r\n]")


def _imports_here(data: bytes, at: int) -> bool:
    """Whether the line of offset `at` can spell a module's name in an import (`from click import
    option`): it spells `import` too, or goes on to the next line (a backslash). Where a module
    calls `click.echo` on every other line, only its imports are then hot (else hundreds of hot
    lines, and the finder visiting most of the module)."""
    start = max(data.rfind(b"\n", 0, at), data.rfind(b"\r", 0, at)) + 1
    found = _LINE_ENDS.search(data, at)
    line = data[start:found.start() if found else len(data)]
    return b"import" in line or line.endswith(b"\\")


def _hot_lines(source: Source, names: NameFilter) -> tuple[list[int], list[int]]:
    """The lines (1-based, as ast counts them) holding `port` as a word of a name, the last dotted
    part of a selector name, or a word of _HOT_WORDS where an import can spell it: the only lines
    a site's name can be written on, and the name a value is passed on to
    (`serve(port=DEFAULT_PORT)` spells the site's name); and the offset where each starts.
    Numbered by counting newlines up to each word, where no lone CR ends a line: most files give
    no site, and need no other line's start.

    A spelling of `port` or a word of _HOT_WORDS is looked for only in a file that holds it, as
    the one pass of portlint.speed.needles tells (the extraction asks it anyway: `mentions_tool`):
    most files hold neither hot word, nor `Port` or `PORT`."""
    from portlint.stages.prefilter import prefilter

    data = source.data
    pattern = prefilter(names.selector_names)
    offsets = [m.start() for which, word in enumerate(_port_words()) if port_token(data, which)
               for m in word.finditer(data)]
    for leaf in pattern.keys:  # each selector's last dotted part
        at = data.find(leaf)
        while at != -1:
            offsets.append(at)
            at = data.find(leaf, at + 1)
    for word in _HOT_WORDS:
        if word in pattern.keys or not holds(data, word):
            continue
        at = data.find(word)
        while at != -1:
            if _imports_here(data, at):
                offsets.append(at)
            at = data.find(word, at + 1)
    if b"\r" in data and _LONE_CR.search(data):
        starts = _line_starts(source)
        lines = sorted({bisect.bisect_right(starts, offset) for offset in offsets})
        return lines, [starts[line - 1] for line in lines]
    lines, begins = [], []
    line = 1
    at = 0
    for offset in sorted(offsets):
        line += data.count(b"\n", at, offset)
        at = offset
        if not lines or lines[-1] != line:
            lines.append(line)
            begins.append(data.rfind(b"\n", 0, offset) + 1)
    return lines, begins


@lru_cache(maxsize=1)
def _port_words() -> tuple[re.Pattern[bytes], ...]:
    """Each spelling of the prefilter's PORT_WORDS, in the plural too (`worker_ports`: a run of ports,
    `_SiteFinder._run`); the port token of the same index is a prefix of both."""
    from portlint.stages.prefilter import PORT_WORDS

    plural = (b"s?", b"s?", b"S?")
    return tuple(re.compile(word.replace(b")(?!", b")" + s + b"(?!", 1)) for word, s in zip(PORT_WORDS, plural))


def _is_mock(callee: str) -> bool:
    """A mock's constructor or a patcher: `MagicMock(...)`, `patch.dict(...)`, `mocker.patch.object(...)`,
    `monkeypatch.setenv(...)` (not `requests.patch(...)`, an HTTP PATCH)."""
    parts = callee.split(".")
    return parts[-1] in _MOCK_CLASSES or callee in _PATCHES or parts[0] == "monkeypatch" or (
        len(parts) > 1 and parts[-2] == "patch" and parts[-1] in ("object", "dict", "multiple"))


def _unset_test(test: ast.AST) -> tuple[str, bool] | None:
    """(name, whether the `if` body runs when it is unset) for `name is None`, `not name`,
    `name is not None` and `name`; None for any other test."""
    if isinstance(test, ast.Name):
        return test.id, False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Name):
        return test.operand.id, True
    if (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and len(test.ops) == 1
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None):
        if isinstance(test.ops[0], ast.Is):
            return test.left.id, True
        if isinstance(test.ops[0], ast.IsNot):
            return test.left.id, False
    return None


def _ports_named(name: str) -> bool:
    """A name for ports, one or many (`worker_port`, `worker_ports`, `PORTS`), not a count of them."""
    leaf = name.rsplit(".", 1)[-1]
    return is_port_name(re.sub(r"(?<=[Pp]ort)s|(?<=PORT)S", "", leaf))


def _range_count(node: ast.AST) -> int:
    """How many values `range(n)` / `range(0, n)` gives, where n is written; 0 when unknown."""
    if not (isinstance(node, ast.Call) and dotted(node.func) == "range" and node.args):
        return 0
    ends = [a.value for a in node.args if isinstance(a, ast.Constant) and type(a.value) is int]
    if len(ends) != len(node.args) or len(ends) > 2:
        return 0
    return max(ends[-1] - (ends[0] if len(ends) == 2 else 0), 0)


def _added_to(node: ast.AST, target: ast.AST) -> ast.AST | None:
    """The base of `BASE + i` (or `i + BASE`) where i is the loop's variable."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and isinstance(target, ast.Name)):
        return None
    for base, step in ((node.left, node.right), (node.right, node.left)):
        if isinstance(step, ast.Name) and step.id == target.id and isinstance(base, (ast.Constant, ast.Name)):
            return base
    return None


def _stop_after(start: ast.AST, stop: ast.AST, value_of: Callable[[ast.AST], int | None]) -> int:
    """How many values `range(start, stop)` gives where both are known (`stop` written as a number,
    a constant, or `start + n`); 0 when unknown."""
    if isinstance(stop, ast.BinOp) and isinstance(stop.op, ast.Add) and ast.dump(stop.left) == ast.dump(start):
        count = value_of(stop.right)
        return count or 0
    low, high = value_of(start), value_of(stop)
    return high - low if low is not None and high is not None and high > low else 0


def _branch_literals(node: ast.AST) -> Iterator[ast.AST]:
    """The node itself, or the literal branches of `a if c else b` / `a or b`."""
    if isinstance(node, ast.IfExp):
        yield from _branch_literals(node.body)
        yield from _branch_literals(node.orelse)
    elif isinstance(node, ast.BoolOp):
        for value in node.values:
            yield from _branch_literals(value)
    elif isinstance(node, ast.Constant):
        yield node


def _option_names(flags: list[str], dest: str, underscores: bool) -> tuple[str, ...]:
    """(`--port`, `port`): the first long option and the destination, as argparse and click derive it.

    Without a long option the name is the destination (a positional, `-p` alone).
    """
    flags = [flag for flag in flags if flag]
    long = next((flag for flag in flags if flag.startswith("--")), "")
    if not dest:
        dest = (long or next(iter(flags), "")).lstrip("-")
        dest = dest.replace("-", "_") if underscores else dest
    if not long:
        return (dest,) if dest else ()
    return (long, dest) if dest != long else (long,)


def _annotated_metadata(arg: ast.arg) -> ast.AST | None:
    """The first metadata of `Annotated[T, meta, ...]` (also `typing.Annotated`), else None."""
    annotation = arg.annotation
    if not isinstance(annotation, ast.Subscript) or dotted(annotation.value).rsplit(".", 1)[-1] != "Annotated":
        return None
    items = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else []
    return next((item for item in items[1:] if isinstance(item, ast.Call)), None)


def _other_branches(node: ast.AST) -> tuple[str, ...]:
    """The names read by the non-literal branches of `a if c else b` / `a or b`."""
    if isinstance(node, ast.IfExp):
        return (*_other_branches(node.body), *_other_branches(node.orelse))
    if isinstance(node, ast.BoolOp):
        return tuple(name for value in node.values for name in _other_branches(value))
    return (dotted(node),) if isinstance(node, (ast.Name, ast.Attribute)) and dotted(node) else ()


def _string(node: ast.AST) -> str:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""


def _digits_span(source: Source, node: ast.Constant) -> tuple[int, int, int] | None:
    """Byte span of the literal's digits (inside the quotes of a string), and its value."""
    if node.end_lineno is None or node.end_col_offset is None:
        return None
    start = _offset(source, node.lineno, node.col_offset)
    end = _offset(source, node.end_lineno, node.end_col_offset)
    raw = source.data[start:end]
    value = node.value
    if type(value) is int:
        return (start, end, value) if value >= 0 and raw.replace(b"_", b"").isdigit() else None
    if not isinstance(value, str) or not value.isascii() or not value.isdigit():
        return None
    if value[0] == "0" and value != "0":
        return None
    body = value.encode()
    at = raw.find(body)
    opening, closing = raw[:at], raw[at + len(body):]
    quote = closing[:1]
    if at < 0 or quote not in (b"'", b'"') or closing.strip(quote) or not opening.endswith(closing):
        return None  # concatenated, escaped or otherwise not one plain literal
    return start + at, start + at + len(body), int(value)


def _offset(source: Source, line: int, byte_column: int) -> int:
    """ast's columns are UTF-8 byte offsets, counted after a BOM on the first line."""
    bom = 3 if line == 1 and source.data.startswith(codecs.BOM_UTF8) else 0
    return _line_starts(source)[line - 1] + byte_column + bom


@lru_cache(maxsize=1)
def _line_starts(source: Source) -> list[int]:
    """Where ast's lines start: Python also ends a line at a lone CR, which Source does not."""
    if b"\r" not in source.data or not _LONE_CR.search(source.data):
        return source.line_starts
    return [0, *(match.end() for match in re.finditer(rb"\r\n?|\n", source.data))]


def _statement_comment(data: bytes, names: NameFilter) -> bool:
    """A `#` line holding a number and a port-like or selected name: worth tokenizing for."""
    from portlint.stages.prefilter import prefilter

    pattern = prefilter(names.selector_names)
    return any(
        prose.DIGIT.search(data, *line.span()) and pattern.search(line.group()) for line in _COMMENT.finditer(data)
    )


def _comments(source: Source, names: NameFilter) -> tuple[tuple[Suppression, ...], list[Site]]:
    """Suppressions and layout statements of the file's comments, from the tokenizer.

    Tokenizing costs about as much as parsing, so it runs only on files with a
    suppression, or, when a layout is declared, a comment holding a number.
    """
    wants_statements = bool(names.selector_names) and _statement_comment(source.data, names)
    if b"portlint:" not in source.data and not wants_statements:
        return (), []
    import tokenize  # here: few files get this far, and its import is a cost of every process of a pool

    suppressions: list[Suppression] = []
    doc_sites: list[Site] = []
    readline = io.StringIO(source.text).readline
    try:
        for token in tokenize.generate_tokens(readline):
            if token.type != tokenize.COMMENT:
                continue
            row, col = token.start
            start = source.char_offset(row - 1, col)
            end = start + len(token.string.encode())
            suppression = suppression_in(token.string, row, col + 1, start, end)
            if suppression is not None:
                suppressions.append(suppression)
            if wants_statements:
                doc_sites += prose.statements(source, start, end, "comment", names)
    except (tokenize.TokenError, SyntaxError):
        pass  # ast accepted the file, so this is tokenize's own edge case; keep what was found
    return tuple(suppressions), doc_sites
