"""The walk of one function, path by path, for the socket analysis.

Statements are interpreted over abstract values (values.py), one `State` per
path: branches fork the paths, loops run their body twice (enough to see a
number changed by the first round), a `try` handler starts from the state
before each statement of its body, and leaving a `with` block or a `finally`
runs on every path that leaves it, `return`, `break` and `continue` included.
A port number that leaves the function (returned, stored, handed to a call)
while its socket is released on that path is a `Violation`. What a function
does to its parameters and returns is kept as a `Summary`, so that calls to
the module's own helpers can be followed.
"""
from __future__ import annotations

import ast
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any

from portlint.analysis.sockets.expressions import Evaluator
from portlint.analysis.sockets.values import (
    CANDIDATE,
    CHOSEN_PORT,
    FALSE,
    NOTHING,
    TRUE,
    ZERO,
    ZERO_PORT,
    Escape,
    Kind,
    Param,
    Release,
    SockState,
    State,
    numbers_in,
    sockets_in,
)
from portlint.analysis.tree import FUNCTIONS, Located, dotted, is_int, names_in
from portlint.model.records import Struct, field, replace

if TYPE_CHECKING:
    from portlint.analysis.sockets.module import ModuleIndex

# Statements without statements inside (libcst's small statements).
# Calls that never return: they raise (pytest's outcomes, SystemExit) or end the process.
_NO_RETURN = frozenset(("pytest.skip", "pytest.fail", "pytest.exit", "pytest.xfail", "sys.exit", "os._exit",
                        "os.abort", "exit", "quit"))
_SIMPLE = (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return, ast.Raise, ast.Break, ast.Continue,
           ast.Delete, ast.Global, ast.Nonlocal, ast.Assert)
MAX_PATHS = 64  # beyond this the extra paths of a function are dropped (findings may be missed, never invented)
# A function whose paths take more steps than this to follow is left out (its findings are missed,
# none invented): no file costs seconds. A step is a statement followed on one path, and one more
# for every VARIABLES_PER_STEP variables the path holds, since copying and comparing paths costs
# in their size: the count grows with the work, whether from nested loops (each runs its body up
# to LOOP_ROUNDS times, on up to MAX_PATHS paths) or from thousands of variables on each path.
MAX_STEPS = 30_000
MAX_MODULE_STEPS = 120_000  # and so are the functions of a module walked after this many in all
VARIABLES_PER_STEP = 64  # hashing or comparing this many costs about what following a statement does
LOOP_ROUNDS = 2
_COMPARED = 16  # up to this many paths, `_distinct` compares them pair by pair
# From this many paths on, the variables nothing reads again are dropped (`_forget`): with fewer,
# finding them costs more than the paths they would merge (done from two paths on, with every
# function's reads worked out for it, a module of many small functions took twice as long).
FORGET_FROM = 8


class Violation(Struct, frozen=True):
    sid: Hashable
    origin: Located  # the bind, or the call of the helper that bound or probed
    kind: Kind
    culprit: str  # the function that lets the port go, as shown in messages
    escape: Escape
    release: Release | None  # None: the socket goes out of scope
    elsewhere: bool = False  # bound by another method of the class (reported at the release)
    serves: bool = False  # the socket serves somewhere in the function (a live server)


class Summary(Struct):
    """What a function does, seen from a caller in the same module."""

    params: tuple[str, ...] = ()
    defaults: dict[int, frozenset] = field(default_factory=dict)
    returns: frozenset = NOTHING
    returned_socks: dict[Hashable, tuple[frozenset, bool]] = field(default_factory=dict)  # sid -> (binds, alive)
    param_binds: dict[int, set] = field(default_factory=dict)
    param_releases: set[int] = field(default_factory=set)
    param_holds: set[int] = field(default_factory=set)
    probes: set[int] = field(default_factory=set)  # parameters whose port it binds and releases
    probe_polarity: dict[int, bool] = field(default_factory=dict)  # True: it answers True when the port is free
    self_releases: set[str] = field(default_factory=set)
    self_stores: dict[str, frozenset] = field(default_factory=dict)
    sock_binds: dict[Hashable, frozenset] = field(default_factory=dict)
    violations: list[Violation] = field(default_factory=list)
    released: str = ""  # a library helper's: the kind of port whose number it returns after releasing it
    released_item: int = -1  # ... as this item of a returned tuple (-1: the number itself)
    library: str = ""  # a library helper's name and library, for messages


class _TooLong(Exception):
    """The walk of a function took MAX_STEPS statements."""


class _Loop(Struct):
    node: ast.For | ast.AsyncFor | ast.While
    depth: int  # len(Flow.exits) when the loop started
    breaks: list[State] = field(default_factory=list)
    continues: list[State] = field(default_factory=list)


class Flow(Evaluator):
    """One run over one function (or over a module's top-level code)."""

    def __init__(self, index: ModuleIndex, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Module, name: str,
                 owner: str = "") -> None:
        super().__init__(index, owner)
        self.node = node
        self.name = name
        self.module_level = isinstance(node, ast.Module)
        self.loops: list[_Loop] = []
        self.exits: list[Callable[[State], list[State]]] = []
        self.globals: set[str] = set()
        self.exit_states: list[tuple[frozenset, State]] = []
        self.summary = Summary()
        self.steps = 0  # statements followed, one per path, weighed by the paths' size (MAX_STEPS)
        if isinstance(node, FUNCTIONS):
            self._read_params(node)

    def _read_params(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        ordered = [*positional, *args.kwonlyargs]
        defaults = [None] * (len(positional) - len(args.defaults)) + [*args.defaults, *args.kw_defaults]
        self.summary.params = tuple(p.arg for p in ordered)
        for i, default in enumerate(defaults):
            if is_int(default) and default.value == 0:
                self.summary.defaults[i] = self.eval(default, State({}, {}))
        if self.owner and ordered and "staticmethod" not in decorator_names(node):
            self.self_name = ordered[0].arg
        self._kept = frozenset((*self.summary.params, self.self_name))

    # -- the run ---------------------------------------------------------------
    def run(self, seeds: dict[str, frozenset] | None = None, seed_socks: dict | None = None) -> Summary:
        """The function's summary, with the violations of its paths; an empty one for a function whose
        paths take more than MAX_STEPS statements to follow (its findings are missed, none invented)."""
        env = {name: frozenset({Param(i)}) for i, name in enumerate(self.summary.params)}
        socks: dict[Hashable, SockState] = {("param", i): SockState(held=True) for i in range(len(self.summary.params))}
        env.update(seeds or {})
        socks.update(seed_socks or {})
        try:
            for state in self.exec_block(self.node.body, [State(env, socks)]):
                self.finish(state, NOTHING, None)
        except _TooLong:
            return Summary(params=self.summary.params, defaults=self.summary.defaults)
        finally:
            self.index.spent += self.steps
        self._conclude()
        return self.summary

    def finish(self, state: State, values: frozenset, node: Located | None) -> None:
        """The path leaves the function returning `values`: every number it let out is judged now."""
        for sid in numbers_in(values):
            self.check(state, sid, Escape(node, "return"), at_exit=True)
        for sid, escape in state.pending:
            self.check(state, sid, escape, at_exit=True)
        self.exit_states.append((values, state))

    def check(self, state: State, sid: Hashable, escape: Escape, at_exit: bool) -> None:
        sock = state.sock(sid)
        if not sock.binds or sock.handed or (sock.alive if at_exit else sock.released is None):
            return  # open (or held until what binds the port has it): no window
        elsewhere = isinstance(sid, tuple) and sid[0] == "class"
        for origin, kind in sock.binds:
            if isinstance(kind, tuple):  # bound to a parameter: port 0 when that is its default
                kind = ZERO_PORT if ZERO in self.summary.defaults.get(kind[1], NOTHING) else CHOSEN_PORT
            self.summary.violations.append(Violation(sid, origin, kind, self.name, escape, sock.released, elsewhere))

    def _conclude(self) -> None:
        summary = self.summary
        returned: dict[Hashable, tuple[frozenset, bool]] = {}
        maybe_probes: set[tuple[Hashable, int]] = set()
        not_probes: set[tuple[Hashable, int]] = set()
        for values, state in self.exit_states:
            summary.returns |= values
            for sid in sockets_in(values) | numbers_in(values):
                binds, alive = returned.get(sid, (NOTHING, False))
                returned[sid] = (binds | state.sock(sid).binds, alive or state.sock(sid).alive)
            for sid, sock in state.socks.items():
                summary.sock_binds[sid] = summary.sock_binds.get(sid, NOTHING) | sock.binds
                for _, kind in sock.binds:
                    if isinstance(kind, tuple):
                        gone = sock.alive or sid in numbers_in(values)
                        (not_probes if gone else maybe_probes).add((sid, kind[1]))
        summary.returned_socks = returned
        # A socket that serves (accept, serve_forever, ...) on some path is a live server.
        summary.violations = [replace(v, serves=True) if v.sid in self.served else v for v in summary.violations]
        probes = {(sid, k) for sid, k in maybe_probes - not_probes if not _is_param(sid)}
        summary.probes |= {k for _, k in probes}
        for sid, k in probes:
            self._polarity(sid, k)

    def _polarity(self, sid: Hashable, k: int) -> None:
        """Whether the probe of parameter k answers True for a free port (`is_free`) or for a busy one (`in_use`).

        Judged on the paths where the bind did not happen (it raised): what they return means "busy".
        """
        failed: set[bool] = set()
        succeeded: set[bool] = set()
        for values, state in self.exit_states:
            bound = any(kind == ("param", k) for _, kind in state.sock(sid).binds)
            answers = {answer for answer, marker in ((True, TRUE), (False, FALSE)) if marker in values}
            (succeeded if bound else failed).update(answers)
        if len(failed) == 1:
            self.summary.probe_polarity[k] = not failed.pop()
        elif not failed and len(succeeded) == 1:
            self.summary.probe_polarity[k] = succeeded.pop()

    # -- statements ------------------------------------------------------------
    def exec_block(self, statements: Sequence[ast.stmt], states: list[State]) -> list[State]:
        for statement in statements:
            if not states:
                break
            self.steps += len(states) + sum(len(state.env) for state in states) // VARIABLES_PER_STEP
            if self.steps > MAX_STEPS or self.steps + self.index.spent > MAX_MODULE_STEPS:
                raise _TooLong
            states = self.exec_statement(statement, states)
            if len(states) >= FORGET_FROM and not self.module_level:
                self._forget(statement, states)
            states = _distinct(states)
        return states

    def _forget(self, statement: ast.stmt, states: list[State]) -> None:
        """Drop from every path the variables that nothing after `statement` reads: paths that
        differ only in those are then one. Nothing the walk does later can tell (it reads a
        variable only where the code names it, and one it does not hold reads as nothing), and a
        function with many branches and loops no longer runs its last statements once for each
        of up to MAX_PATHS paths that differ only in what its earlier loops left behind (64 paths of
        dozens of variables each). In a loop, what the loop
        reads is read again by its next round; parameters, `self` and attributes are kept."""
        last = self.index.last_reads(self.node)
        since = (self.loops[0].node.lineno, self.loops[0].node.col_offset) if self.loops else \
            (statement.end_lineno or 0, statement.end_col_offset or 0)
        keep = self._kept
        dead = [name for name in set().union(*[state.env for state in states])
                if name not in keep and "." not in name and last.get(name, (0, 0)) < since]
        if dead:
            for state in states:
                env = state.env
                for name in dead:
                    env.pop(name, None)

    # The `_exec_<StatementType>` method of each statement type (`_exec_simple` for the small
    # statements, `_exec_other` for the rest), looked up once per class and type.
    _executors: dict[type, Callable[[Flow, Any, list[State]], list[State]]] = {}

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls._executors = {}

    def exec_statement(self, node: ast.stmt, states: list[State]) -> list[State]:
        handler = self._executors.get(type(node))
        if handler is None:
            cls = type(self)
            default = cls._exec_simple if isinstance(node, _SIMPLE) else cls._exec_other
            handler = self._executors[type(node)] = getattr(cls, f"_exec_{type(node).__name__}", default)
        return handler(self, node, states)

    def _exec_simple(self, node: ast.stmt, states: list[State]) -> list[State]:
        """A statement without statements inside, on each path."""
        return [after for state in states for after in self.exec_small(node, state)]

    def _exec_other(self, node: ast.stmt, states: list[State]) -> list[State]:
        """A statement the walk does not look into (`pass`, an import, a class): the paths go on as they were."""
        return states

    def _exec_If(self, node: ast.If, states: list[State]) -> list[State]:
        split = [self.test(node.test, state) for state in states]
        taken = self.exec_block(node.body, [yes for yes, _ in split])
        otherwise = [no for _, no in split]
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):  # elif
            return taken + self._exec_If(node.orelse[0], otherwise)
        if node.orelse:
            return taken + self.exec_block(node.orelse, otherwise)
        return taken + otherwise

    def _exec_For(self, node: ast.For | ast.AsyncFor, states: list[State]) -> list[State]:
        elements = frozenset(v for state in states for v in self.elements(self.eval(node.iter, state)))

        def enter(state: State) -> tuple[State, State]:
            self.assign(node.target, elements, state, node)
            return state, state.copy()

        return self._loop(node, states, enter)

    _exec_AsyncFor = _exec_For

    def _exec_While(self, node: ast.While, states: list[State]) -> list[State]:
        forever = isinstance(node.test, ast.Constant) and node.test.value is True
        return self._loop(node, states, lambda state: self.test(node.test, state), forever)

    def _loop(self, node: ast.For | ast.AsyncFor | ast.While, states: list[State],
              enter: Callable[[State], tuple[State, State]], forever: bool = False) -> list[State]:
        """`enter` runs before each round and before leaving: the next target, or the test (true, false)."""
        frame = _Loop(node, len(self.exits))
        self.loops.append(frame)
        done: list[State] = []
        current = states
        for round_ in range(LOOP_ROUNDS + 1):
            split = [enter(state.copy()) for state in current]
            if not forever:
                done += [leaving for _, leaving in split]
            if round_ == LOOP_ROUNDS:
                break
            current = _distinct(self.exec_block(node.body, [into for into, _ in split]) + frame.continues)
            frame.continues = []
        self.loops.pop()
        if node.orelse:
            done = self.exec_block(node.orelse, _distinct(done))
        return _distinct(done + frame.breaks)

    def _exec_Try(self, node: ast.Try, states: list[State]) -> list[State]:
        final = node.finalbody
        if final:
            self.exits.append(lambda state: self.exec_block(final, [state]))
        raising: list[State] = []
        current = states
        for statement in node.body:
            raising += [s.copy() for s in current]  # an exception in this statement: its effects are lost
            current = _distinct(self.exec_statement(statement, current))
        if node.orelse:
            current = self.exec_block(node.orelse, current)
        raising = _distinct(raising)
        for handler in node.handlers:
            if handler.type is not None:
                for state in raising:
                    self.eval(handler.type, state)
            current += self.exec_block(handler.body, [s.copy() for s in raising])
        if final:
            self.exits.pop()
            current = self.exec_block(final, _distinct(current))
        return current

    _exec_TryStar = _exec_Try

    def _exec_With(self, node: ast.With | ast.AsyncWith, states: list[State]) -> list[State]:
        closed: set[Hashable] = set()
        for state in states:
            for item in node.items:
                values = self.eval(item.context_expr, state)
                closed |= sockets_in(values)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, values, state, node)
        release = Release(node, "with")

        def leave(state: State) -> list[State]:
            state.release(closed, release)
            return [state]

        self.exits.append(leave)
        after = self.exec_block(node.body, states)
        self.exits.pop()
        return [s for state in after for s in leave(state)]

    _exec_AsyncWith = _exec_With

    def _exec_Match(self, node: ast.Match, states: list[State]) -> list[State]:
        for state in states:
            self.eval(node.subject, state)
        out = list(states)
        for case in node.cases:
            out += self.exec_block(case.body, [s.copy() for s in states])
        return out

    def _exec_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef, states: list[State]) -> list[State]:
        """A nested function that uses a socket of ours keeps it (a callback, a thread target). Its
        body is walked for the names it uses only where a path holds a value it could capture."""
        names = names_in(node.body) if any(value for state in states for value in state.env.values()) else ()
        for state in states:
            captured = frozenset(v for name in names for v in state.env.get(name, NOTHING))
            state.env[node.name] = captured
        return states

    _exec_AsyncFunctionDef = _exec_FunctionDef

    # -- simple statements -----------------------------------------------------
    def exec_small(self, node: ast.stmt, state: State) -> list[State]:
        if isinstance(node, ast.Expr):
            call = node.value
            if isinstance(call, ast.Call) and dotted(call.func) in _NO_RETURN:
                for argument in [*call.args, *(keyword.value for keyword in call.keywords)]:
                    self.eval(argument, state)  # `sys.exit(main())`: main runs; the message is only shown
                return []  # `pytest.skip(...)`, `sys.exit(...)`: the path ends there, as at a `raise`
            self.eval(call, state)
        elif isinstance(node, ast.Assign):
            values = self.eval(node.value, state)
            for target in node.targets:
                self.assign(target, values, state, node)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            self.assign(node.target, self.eval(node.value, state), state, node)
        elif isinstance(node, ast.AugAssign):
            self._augment(node, state)
        elif isinstance(node, ast.Return):
            return self._return(node, state)
        elif isinstance(node, ast.Raise):
            return []
        elif isinstance(node, (ast.Break, ast.Continue)):
            return self._jump(node, state)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                self._delete(target, node, state)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            self.globals |= set(node.names)
        elif isinstance(node, ast.Assert):
            return [self.test(node.test, state)[0]]
        return [state]

    def _augment(self, node: ast.AugAssign, state: State) -> None:
        values = self.eval(node.value, state)
        if isinstance(node.target, ast.Name):
            # A number changed inside a loop is a scan (`port += 1`); elsewhere it keeps what it was.
            old = state.env.get(node.target.id, NOTHING)
            state.env[node.target.id] = frozenset({CANDIDATE}) if self.loops or CANDIDATE in values else old
        else:
            self.eval(node.target, state)

    def _return(self, node: ast.Return, state: State) -> list[State]:
        values = self.eval(node.value, state) if node.value is not None else NOTHING
        state.hold(sockets_in(values))
        for after in self.unwind(state, 0):
            self.finish(after, values, node)
        return []

    def _jump(self, node: ast.Break | ast.Continue, state: State) -> list[State]:
        if not self.loops:
            return []
        frame = self.loops[-1]
        target = frame.breaks if isinstance(node, ast.Break) else frame.continues
        target += self.unwind(state, frame.depth)
        return []

    def unwind(self, state: State, depth: int) -> list[State]:
        """Run the `with` exits and `finally` blocks between here and `depth`, innermost first."""
        states = [state]
        saved = self.exits
        for i in range(len(saved) - 1, depth - 1, -1):
            self.exits = saved[:i]
            states = [after for s in states for after in saved[i](s)]
        self.exits = saved
        return states

    def _delete(self, target: ast.expr, node: ast.Delete, state: State) -> None:
        if isinstance(target, ast.Name):
            state.release(sockets_in(state.env.pop(target.id, NOTHING)), Release(node, "del"))
        elif isinstance(target, ast.Tuple):
            for element in target.elts:
                self._delete(element, node, state)


def _distinct(states: list[State]) -> list[State]:
    """The states without repeats (the first of equal ones, in order), at most MAX_PATHS of them.

    A few states are compared pair by pair (`in`: a State equals another with the same variables,
    sockets and stored numbers; most often there are two, and different). More would make too
    many pairs: they are grouped by `State.digest` first, and each is compared with those of its
    group only (almost always none, or one that is equal).
    """
    kept: list[State] = []
    if len(states) <= _COMPARED:
        for state in states:
            if state not in kept:
                kept.append(state)
        return kept
    groups: dict[int, list[State]] = {}
    for state in states:
        group = groups.setdefault(state.digest(), [])
        if state not in group:
            group.append(state)
            kept.append(state)
    return kept[:MAX_PATHS]


def _is_param(sid: Hashable) -> bool:
    return isinstance(sid, tuple) and sid[0] == "param"


def decorator_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    return {_decorator_name(d) for d in node.decorator_list}


def _decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""
