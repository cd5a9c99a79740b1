"""Expressions and assignments for the socket analysis: what a value is, what a call does.

A call is, in this order: a call of one of the module's own functions (followed
through its `Summary`), a socket method (`bind`, `close`, `getsockname`, ...),
a socket or server constructor, a conversion that carries a number along
(`str(port)`), a call that only logs, a store into a container, or else an
unknown call: a socket handed to it is kept alive by it, a port number handed
to it is passed on.
"""
from __future__ import annotations

import ast
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

from portlint.analysis.sockets.calls import HelperCall
from portlint.analysis.sockets.values import (
    CANDIDATE,
    CHOSEN_PORT,
    FALSE,
    NOTHING,
    SCANNED_PORT,
    TRUE,
    ZERO,
    ZERO_PORT,
    Addr,
    Escape,
    Kind,
    Num,
    Param,
    Release,
    Sock,
    SockState,
    State,
    Tup,
    flatten,
    numbers_in,
    numeric,
    sockets_in,
)
from portlint.analysis.tree import ENV_GETTERS, Located, children, constant_index, dotted, is_string, names_in

if TYPE_CHECKING:
    from portlint.analysis.sockets.flow import Summary
    from portlint.analysis.sockets.imports import External
    from portlint.analysis.sockets.module import Function, ModuleIndex

CLOSING = frozenset(("close", "server_close"))
# Using a socket this way means it serves here: it is kept open while it does.
SERVING = frozenset(("serve_forever", "serve", "start_serving", "handle_request", "accept", "recv", "recvfrom",
                     "recv_into", "makefile", "detach"))
CONVERSIONS = frozenset(("str", "int", "repr", "format", "float", "hex", "abs", "min", "max", "sorted", "list",
                         "tuple", "set", "next", "iter", "reversed", "enumerate", "sum", "closing", "wrap_socket",
                         "range", "map", "zip", "filter", "join", "dumps", "encode"))
# Calls that only look at or log what they are given (a number written to a file or a pipe is handed on).
QUIET = frozenset(("print", "isinstance", "issubclass", "len", "hasattr", "getattr", "id", "type", "callable", "bool",
                   "debug", "info", "warning", "warn", "error", "exception", "critical", "log", "fatal"))
STORING = frozenset(("append", "extend", "add", "insert", "update", "setdefault", "put", "put_nowait", "appendleft",
                     "putenv"))
# Its descriptor goes elsewhere (a child's pass_fds, another socket object): the socket lives on there.
HANDED_OVER = frozenset(("fileno", "dup", "share", "set_inheritable"))
SOCKET_METHODS = CLOSING | SERVING | HANDED_OVER | frozenset((
    "getsockname", "listen", "setsockopt", "getsockopt", "settimeout", "setblocking", "connect", "connect_ex",
    "shutdown", "send", "sendall", "sendto"))
RANDOM = frozenset(("randint", "randrange", "choice", "randbelow", "uniform"))
_LAUNCHERS = frozenset(("Popen", "check_call", "check_output", "create_subprocess_exec", "create_subprocess_shell",
                        "execv", "execvp", "execvpe", "spawnv", "spawnvp", "posix_spawn", "posix_spawnp"))
_LAUNCH_CALLS = frozenset(("subprocess.run", "subprocess.call", "sp.run", "sp.call", "os.system", "run_command"))
# Calls that take a port to bind it, by their name: processes, threads and servers made or started.
_BINDERS = frozenset(("Process", "Thread", "run", "serve", "start", "launch", "spawn", "start_server", "run_app",
                      "create_subprocess_exec", "create_subprocess_shell"))
_BINDER_ENDS = ("Process", "Server", "Config", "_server", "Thread")
# The values of constants, made once (and their hashes with them: a state's key hashes its values).
_TRUE, _FALSE, _ZERO, _CANDIDATE = frozenset({TRUE}), frozenset({FALSE}), frozenset({ZERO}), frozenset({CANDIDATE})


class Evaluator(ABC):
    """The expression half of `Flow` (flow.py holds the statements and the run)."""

    # Set by the statement half for the function it walks.
    summary: Summary  # what the function does, as its callers will see it
    module_level: bool  # the walk is of the module's own code: every name is a global
    globals: set[str]  # names declared `global` or `nonlocal` in the function

    def __init__(self, index: ModuleIndex, owner: str) -> None:
        self.index = index  # the module: resolves calls of its own functions, gives their summaries
        self.owner = owner  # the class of a method, "" otherwise
        self.self_name = ""
        self.served: set[Hashable] = set()  # sockets that serve somewhere in the function: live servers
        self._targets: dict[ast.expr, tuple[Function | External, int] | None] = {}

    @abstractmethod
    def check(self, state: State, sid: Hashable, escape: Escape, at_exit: bool) -> None:
        """Judge a port number that leaves (`escape`): a violation when its socket was released on this path."""

    # -- values ----------------------------------------------------------------
    # The `_eval_<NodeType>` method of each node type (`_children` where there is none), looked up
    # once per class and type: `eval` runs for every expression on every path.
    _evaluators: dict[type, Callable[[Evaluator, Any, State], frozenset]] = {}

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls._evaluators = {}

    def eval(self, node: ast.AST, state: State) -> frozenset:
        handler = self._evaluators.get(type(node))
        if handler is None:
            found: Callable[[Evaluator, Any, State], frozenset] = getattr(
                type(self), f"_eval_{type(node).__name__}", type(self)._children)
            handler = self._evaluators[type(node)] = found
        return handler(self, node, state)

    def _children(self, node: ast.AST, state: State) -> frozenset:
        found: set = set()
        for child in children(node):
            if isinstance(child, ast.expr):
                found |= self.eval(child, state)
            elif child._fields:  # not an operator (`and`, `<`), which holds nothing
                found |= self._children(child, state)
        return frozenset(found)

    def _eval_Name(self, node: ast.Name, state: State) -> frozenset:
        return state.env.get(node.id, NOTHING)

    def _eval_Constant(self, node: ast.Constant, state: State) -> frozenset:
        value = node.value
        if value is True or value is False:
            return _TRUE if value else _FALSE
        return _ZERO if type(value) is int and value == 0 else NOTHING

    def _eval_Attribute(self, node: ast.Attribute, state: State) -> frozenset:
        key = self.self_key(node)
        if key:
            return state.env.get(key, NOTHING)
        values = self.eval(node.value, state)
        if not values:
            return NOTHING  # an attribute of nothing known (most are)
        found: set = set()
        for value in flatten(values):
            if isinstance(value, Sock):
                attribute = node.attr
                if attribute in SERVING:  # `Thread(target=server.serve_forever)`: it will serve
                    self.served.add(value.sid)
                # A server's port and address; anything else of a socket still stands for it (a bound method).
                found.add(Num(value.sid) if attribute == "server_port" else
                          Addr(value.sid) if attribute == "server_address" else value)
        return frozenset(found)

    def _eval_Subscript(self, node: ast.Subscript, state: State) -> frozenset:
        base = self.eval(node.value, state)
        self.eval(node.slice, state)
        index = constant_index(node)
        found: set = set()
        for value in base:
            if isinstance(value, Addr):
                found |= {Num(value.sid)} if index == 1 else set()
            elif isinstance(value, Tup):
                found |= value.items[index] if index is not None and -len(value.items) <= index < len(value.items) \
                    else set(flatten([value]))
            else:
                found.add(value)
        return frozenset(found)

    def _eval_Tuple(self, node: ast.Tuple | ast.List, state: State) -> frozenset:
        items = tuple([self.eval(_unstarred(element), state) for element in node.elts])
        if any(isinstance(element, ast.Starred) for element in node.elts):
            return frozenset(v for item in items for v in item)
        return frozenset({Tup(items)})

    _eval_List = _eval_Tuple

    def _eval_BinOp(self, node: ast.BinOp, state: State) -> frozenset:
        return numeric(self.eval(node.left, state) | self.eval(node.right, state))

    def _eval_UnaryOp(self, node: ast.UnaryOp, state: State) -> frozenset:
        values = self.eval(node.operand, state)
        return NOTHING if isinstance(node.op, ast.Not) else numeric(values)

    def _eval_Compare(self, node: ast.Compare, state: State) -> frozenset:
        self.eval(node.left, state)  # for their effects (a call's): a comparison is a bool
        for comparator in node.comparators:
            self.eval(comparator, state)
        return NOTHING

    def _eval_IfExp(self, node: ast.IfExp, state: State) -> frozenset:
        self.eval(node.test, state)
        return self.eval(node.body, state) | self.eval(node.orelse, state)

    def _eval_FormattedValue(self, node: ast.FormattedValue, state: State) -> frozenset:
        values = self.eval(node.value, state)
        return values | self.eval(node.format_spec, state) if node.format_spec is not None else values

    def _eval_JoinedStr(self, node: ast.JoinedStr, state: State) -> frozenset:
        return numeric(self._children(node, state))

    def _eval_Lambda(self, node: ast.Lambda, state: State) -> frozenset:
        """A callback that uses one of our sockets keeps it (`Thread(target=lambda: srv.serve_forever())`)."""
        captured: set = set()
        for name in names_in(node.body):
            captured |= {v for v in state.env.get(name, NOTHING) if isinstance(v, Sock)}
        return frozenset(captured)

    def _eval_GeneratorExp(self, node: ast.GeneratorExp | ast.ListComp | ast.SetComp | ast.DictComp,
                           state: State) -> frozenset:
        """A comprehension is a scan: its targets are candidates (`next(p for p in range(a, b) if is_free(p))`)."""
        saved = dict(state.env)
        for clause in node.generators:
            self.assign(clause.target, self.elements(self.eval(clause.iter, state)), state, node)
            for condition in clause.ifs:
                state.env = self.test(condition, state)[0].env  # the element is computed where it holds
        if isinstance(node, ast.DictComp):
            values = self.eval(node.key, state) | self.eval(node.value, state)
        else:
            values = self.eval(node.elt, state)
        state.env.update(saved)  # comprehension variables do not leak
        return values

    _eval_ListComp = _eval_SetComp = _eval_DictComp = _eval_GeneratorExp

    def _eval_Yield(self, node: ast.Yield | ast.YieldFrom, state: State) -> frozenset:
        value = node.value
        values = self.eval(value, state) if value is not None else NOTHING
        self.hold(values, state)
        for sid in numbers_in(values):
            self.check(state, sid, Escape(node, "yield"), at_exit=False)
        return NOTHING

    _eval_YieldFrom = _eval_Yield

    def _eval_NamedExpr(self, node: ast.NamedExpr, state: State) -> frozenset:
        values = self.eval(node.value, state)
        self.assign(node.target, values, state, node)
        return values

    def test(self, node: ast.expr, state: State) -> tuple[State, State]:
        """Evaluate a condition; the states where it holds and where it does not.

        A probe of a scanned candidate (`if is_free(port):`, `while in_use(port):`) links the
        candidate to the probe only where the probe found it free: `if not is_free(p): busy.append(p)`
        hands on busy ports, which is no race. A probe of a chosen port used as a guard
        (`if not is_free(port): raise`) makes the port, where it was found free, the number of a
        socket the probe released (a `("guard", call)` socket: judged only when the port is
        handed to a subprocess). A probe of every port of a block (`all(is_free(p) for p in
        range(base, base + n))`, `while any(in_use(p) for p in block)`) links the variables the
        block is made of (`base`, `block`) alike, where the test found the whole block free.
        """
        probed = self._probed(node)
        before = {name: state.env.get(name) for name in probed[0]} if probed else {}
        self.eval(node, state)
        true, false = state.copy(), state
        if probed:
            names, free_when_true, call, helper, block = probed
            free, busy = (true, false) if free_when_true else (false, true)
            for name, held in before.items():
                if held is not None:
                    busy.env[name] = held
                chosen = held or NOTHING
                if block and CANDIDATE in chosen:  # a block of scanned candidates: the probe released each
                    sid: Hashable = ("probe", call, name)
                    free.socks[sid] = SockState(frozenset({(call, SCANNED_PORT)}), Release(call, "probe", helper))
                    free.env[name] = frozenset({Num(sid)})
                elif CANDIDATE not in chosen and not numbers_in(chosen):
                    sid = ("guard", call)
                    free.socks[sid] = SockState(frozenset({(call, CHOSEN_PORT)}), Release(call, "probe", helper))
                    free.env[name] = chosen | {Num(sid)}
        return true, false

    def _probed(self, node: ast.expr) -> tuple[list[str], bool, ast.Call, str, bool] | None:
        """(port names, whether a true test means free, the call, the probe's name, whether of a
        block) when `node` is a probe call, maybe negated, or `all()`/`any()` of probes of the ports
        of a block: then the names the block is made of, and what the whole test means."""
        negated = False
        while isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            negated, node = not negated, node.operand
        if not isinstance(node, ast.Call):
            return None
        block = _block_probe(node)
        if block is not None:
            every, generator = block
            inner = self._probed(every.elt)
            if inner is None or inner[0] != [_target_name(generator)]:
                return None
            free_when_true = inner[1]
            # all(free): true when the block is free; any(busy): false when it is; else it says nothing
            if (dotted(node.func) == "all") != free_when_true:
                return None
            names = [n.id for n in ast.walk(generator.iter) if isinstance(n, ast.Name) and not _called(n, generator.iter)]
            return names, free_when_true != negated, inner[2], inner[3], True
        target = self.target(node.func)
        summary = self.index.summary(target[0]) if target is not None else None
        if target is None or summary is None:
            return None
        positional = [arg for arg in node.args if not isinstance(arg, ast.Starred)]
        for k, free_when_true in summary.probe_polarity.items():
            name = summary.params[k] if k < len(summary.params) else ""
            by_name = [keyword.value for keyword in node.keywords if keyword.arg is not None and keyword.arg == name]
            place = k - target[1]
            arg = by_name[0] if by_name else positional[place] if 0 <= place < len(positional) else None
            if isinstance(arg, ast.Name):
                return [arg.id], free_when_true != negated, node, summary.library or f"{target[0].name}()", False
        return None

    def target(self, func: ast.expr) -> tuple[Function | External, int] | None:
        """`ModuleIndex.resolve` of a call's function, kept by node: it is asked for on every path, and
        the answer depends only on the node, the class and the name of `self` (fixed for the walk)."""
        if func in self._targets:
            return self._targets[func]
        found = self._targets[func] = self.index.resolve(func, self.owner, self.self_name)
        return found

    # -- assignments -----------------------------------------------------------
    def assign(self, target: ast.expr, values: frozenset, state: State, node: Located) -> None:
        if isinstance(target, ast.Name):
            state.env[target.id] = values
            if self.module_level or target.id in self.globals:
                self.store(values, state, node, target)
        elif isinstance(target, ast.Attribute):
            key = self.self_key(target)
            if key:
                state.env[key] = values
                attribute = target.attr
                self.summary.self_stores[attribute] = self.summary.self_stores.get(attribute, NOTHING) | values
            else:
                self.eval(target.value, state)
            self.store(values, state, node, target)
        elif isinstance(target, ast.Subscript):
            self.eval(target.value, state)
            if not self.into_local(target.value, values, state):
                self.store(values, state, node, target)
        elif isinstance(target, (ast.Tuple, ast.List)):
            count = len(target.elts)
            for i, element in enumerate(target.elts):
                self.assign(_unstarred(element), _unpacked(values, i, count), state, node)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, values, state, node)

    def into_local(self, container: ast.expr, values: frozenset, state: State) -> bool:
        """Put values into a local list or dict (`socks.append(sock)`): they live as long as it does."""
        if not isinstance(container, ast.Name) or self.module_level or container.id in self.globals:
            return False
        held = state.env.get(container.id)
        if held is None or any(isinstance(v, Param) for v in held):
            return False
        state.env[container.id] = held | frozenset(flatten(values))
        return True

    def elements(self, values: frozenset) -> frozenset:
        """What a loop over `values` binds its target to: their sockets and ports, else a scanned candidate."""
        found = frozenset(v for v in flatten(values) if isinstance(v, (Sock, Num, Addr)))
        return found or _CANDIDATE

    def store(self, values: frozenset, state: State, node: Located, target: ast.expr) -> None:
        """Values put where they outlive the function: a socket is kept, a number is judged at exit."""
        self.hold(values, state)
        state.store(numbers_in(values), Escape(node, "store", target))

    def hold(self, values: frozenset, state: State) -> None:
        if not values:
            return  # most calls are handed nothing the analysis knows of
        state.hold(sockets_in(values))
        self.summary.param_holds |= {v.index for v in flatten(values) if isinstance(v, Param)}

    def self_key(self, node: ast.expr) -> str:
        """`self.x` inside a method (with whatever the first parameter is called), else ""."""
        if self.self_name and isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == self.self_name:
            return f"self.{node.attr}"
        return ""

    def port_kind(self, values: frozenset) -> Kind:
        if ZERO in values:
            return ZERO_PORT
        if CANDIDATE in values:
            return SCANNED_PORT
        params = sorted(v.index for v in values if isinstance(v, Param))
        return ("param", params[0]) if params else CHOSEN_PORT

    # -- calls -----------------------------------------------------------------
    def _eval_Call(self, node: ast.Call, state: State) -> frozenset:
        positional: list[tuple[ast.expr, frozenset]] = []
        keywords: dict[str, tuple[ast.expr, frozenset]] = {}
        arguments: list[frozenset] = []  # the values of every argument, `*args` and `**kwargs` too
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                values = self.eval(arg.value, state)
            else:
                values = self.eval(arg, state)
                positional.append((arg, values))
            arguments.append(values)
        for keyword in node.keywords:
            values = self.eval(keyword.value, state)
            if keyword.arg is not None:
                keywords[keyword.arg] = (keyword.value, values)  # a name given twice does not parse
            arguments.append(values)
        func = node.func
        target = self.target(func)
        if target is not None:
            helper, shift = target
            receiver = self.eval(func.value, state) if shift and isinstance(func, ast.Attribute) else NOTHING
            return self.call_helper(node, helper, shift, receiver, positional, keywords, state)
        if isinstance(func, ast.Attribute):
            receiver = self.eval(func.value, state)
            done = self._socket_method(node, func, receiver, positional, keywords, state)
            if done is not None:
                return done
            name = func.attr
        elif isinstance(func, ast.Name):
            name = func.id
        else:
            self.eval(func, state)
            name = ""
        if dotted(func) in ENV_GETTERS:  # `os.environ.get("MASTER_PORT", str(port))`: the default, or the variable's
            return positional[1][1] if len(positional) > 1 else keywords.get("default", (func, NOTHING))[1]
        made = self._constructed(node, name, positional, keywords, state)
        if made is not None:
            return made
        if name in RANDOM:
            return _CANDIDATE
        everything = NOTHING.union(*arguments)
        if name in CONVERSIONS:
            return everything
        if name in QUIET or dotted(func).startswith("logging.") or _logs(func, name):
            return NOTHING
        if name in STORING and isinstance(func, ast.Attribute):
            if not self.into_local(func.value, everything, state):
                self.store(everything, state, node, func.value)
            return NOTHING
        return self.pass_on(node, everything, state)

    def pass_on(self, node: ast.Call, values: frozenset, state: State) -> frozenset:
        """An unknown call keeps the sockets handed to it; a port handed to it after its release escapes."""
        self.hold(values, state)
        numbers = numbers_in(values)
        for sid in numbers:
            self.check(state, sid, Escape(node, "pass"), at_exit=False)
        if numbers and binds_there(node):
            state.hand(numbers)
        return numeric(values)

    def _socket_method(self, node: ast.Call, func: ast.Attribute, receiver: frozenset, positional: list,
                       keywords: dict, state: State) -> frozenset | None:
        method = func.attr
        if method == "bind" and len(positional) == 1 and not keywords:
            return self._bind(node, func.value, receiver, positional[0], state)
        if method in CLOSING:
            key = self.self_key(func.value)
            if key:
                self.summary.self_releases.add(key[len("self."):])
        if not receiver:
            return None  # a method of nothing known: no socket nor parameter to call it on
        params = self._socket_params(func.value, receiver) if method in SOCKET_METHODS else set()
        sids = sockets_in(receiver) | {("param", i) for i in params}
        if not sids:
            return None
        # Sockets handed to it live on (`app.serve(sockets=[sock])`, where `app` may be a parameter).
        state.hold(sockets_in(v for _, values in [*positional, *keywords.values()] for v in values))
        if method in CLOSING:
            state.release(sids, Release(node, "close"))
            self.summary.param_releases |= params
        elif method == "getsockname":
            return frozenset(Addr(sid) for sid in sids)
        elif method in SERVING or method in HANDED_OVER:
            state.hold(sids)
            self.served |= sids
            self.summary.param_holds |= params
        return NOTHING

    def _socket_params(self, receiver_node: ast.expr, receiver: frozenset) -> set[int]:
        """Parameters a socket method is called on (a helper's `sock.close()`); never `self`."""
        is_self = isinstance(receiver_node, ast.Name) and receiver_node.id == self.self_name
        return set() if is_self else {v.index for v in receiver if isinstance(v, Param)}

    def _bind(self, node: ast.Call, receiver_node: ast.expr, receiver: frozenset,
              address: tuple[ast.expr, frozenset], state: State) -> frozenset:
        port_node, port = _port_of(*address)
        params = self._socket_params(receiver_node, receiver)
        sids = sockets_in(receiver) | {("param", i) for i in params}
        if port is None:  # not a (host, port) address: zmq's "tcp://*:5555", tkinter's bind("<Key>", ...)
            if not sids or is_string(address[0]):
                return NOTHING
            port = NOTHING
        if not sids:
            key = receiver_node.id if isinstance(receiver_node, ast.Name) else self.self_key(receiver_node)
            if not key:
                return NOTHING
            sids = {("new", node)}
            state.env[key] = frozenset({Sock(("new", node))})
            if key.startswith("self."):
                state.hold(sids)
        kind = self.port_kind(port)
        for sid in sids:
            state.socks[sid] = state.sock(sid).bound(node, kind)
        for i in params:
            self.summary.param_binds.setdefault(i, set()).add(kind)
        if kind == SCANNED_PORT and isinstance(port_node, ast.Name):
            state.env[port_node.id] = frozenset(Num(sid) for sid in sids)  # the candidate is now this socket's port
        return NOTHING

    def _constructed(self, node: ast.Call, name: str, positional: list, keywords: dict,
                     state: State) -> frozenset | None:
        """A new socket (`socket.socket()`), or a server bound by its constructor."""
        sid = ("new", node)
        if name == "socket":
            state.socks[sid] = SockState()
            return frozenset({Sock(sid)})
        port_node, port = None, None
        if positional and name in ("create_server", "start_server", "make_server") or name.endswith("Server"):
            port_node, port = _port_of(*positional[0]) if positional else (None, None)
        if port is None and name in ("create_server", "start_server", "make_server"):
            place = 1 if name == "make_server" else 2  # make_server(host, port, app); (factory, host, port)
            port_node, port = keywords.get("port") or (positional[place] if len(positional) > place else (None, NOTHING))
        if port is None:
            return None
        self.hold(frozenset(v for _, values in [*positional, *keywords.values()] for v in values), state)
        kind = self.port_kind(port)
        state.socks[sid] = SockState().bound(node, kind)
        if kind == SCANNED_PORT and isinstance(port_node, ast.Name):
            state.env[port_node.id] = frozenset({Num(sid)})
        return frozenset({Sock(sid)})

    def call_helper(self, node: ast.Call, helper: ast.FunctionDef | ast.AsyncFunctionDef | External, shift: int,
                    receiver: frozenset, positional: list, keywords: dict, state: State) -> frozenset:
        summary = self.index.summary(helper)
        everything = frozenset(v for _, values in [*positional, *keywords.values()] for v in values)
        name = f"{helper.name}()"
        if summary is None:  # recursion: the helper is being analysed already
            return self.pass_on(node, everything, state)
        numbers = numbers_in(everything)
        for sid in numbers:
            self.check(state, sid, Escape(node, "pass"), at_exit=False)
        if numbers and binds_there(node):
            state.hand(numbers)
        args: dict[int, tuple[ast.expr | None, frozenset]] = {0: (None, receiver)} if shift else {}
        args.update({i + shift: arg for i, arg in enumerate(positional)})
        args.update({summary.params.index(k): arg for k, arg in keywords.items() if k in summary.params})
        for i, default in summary.defaults.items():
            args.setdefault(i, (None, default))
        call = HelperCall(self, node, args, summary)
        call.apply_effects(state, name, bool(shift and receiver == state.env.get(self.self_name)))
        return call.result(state, name)


def _port_of(node: ast.expr | None, values: frozenset) -> tuple[ast.expr | None, frozenset | None]:
    """The port of a `(host, port)` address: its node when written in place, and its values."""
    tuples = [v for v in values if isinstance(v, Tup) and len(v.items) >= 2]
    if not tuples:
        return None, None
    port_node = _unstarred(node.elts[1]) if isinstance(node, ast.Tuple) and len(node.elts) >= 2 else None
    return port_node, frozenset(v for t in tuples for v in t.items[1])


def _unpacked(values: frozenset, i: int, count: int) -> frozenset:
    found: set = set()
    for value in values:
        if isinstance(value, Tup) and len(value.items) == count:
            found |= value.items[i]
        elif isinstance(value, Addr):
            found |= {Num(value.sid)} if i == 1 else set()
        else:
            found |= set(flatten([value]))
    return frozenset(found)


def _unstarred(node: ast.expr) -> ast.expr:
    """`x` for `*x`: an element of a tuple or list display (libcst's Element.value)."""
    return node.value if isinstance(node, ast.Starred) else node


def _block_probe(call: ast.Call) -> tuple[ast.GeneratorExp | ast.ListComp | ast.SetComp, ast.comprehension] | None:
    """`all(...)`/`any(...)` of a comprehension with one loop and no condition: it and its loop."""
    if dotted(call.func) not in ("all", "any") or len(call.args) != 1 or call.keywords:
        return None
    every = call.args[0]
    if not isinstance(every, (ast.GeneratorExp, ast.ListComp, ast.SetComp)) or len(every.generators) != 1:
        return None
    generator = every.generators[0]
    return (every, generator) if not generator.ifs and isinstance(generator.target, ast.Name) else None


def _target_name(generator: ast.comprehension) -> str:
    return generator.target.id if isinstance(generator.target, ast.Name) else ""


_LEVELS = frozenset(("debug", "info", "warning", "warn", "error", "exception", "critical", "fatal"))


def _logs(func: ast.expr, name: str) -> bool:
    """A logger's method named after a level (`logger.info_rank0`, `log.warning_once`): it only logs."""
    return isinstance(func, ast.Attribute) and name.split("_", 1)[0] in _LEVELS


def _called(name: ast.Name, tree: ast.expr) -> bool:
    """Whether the name is the function of a call under `tree` (`range` in `range(a, b)`)."""
    return any(isinstance(n, ast.Call) and n.func is name for n in ast.walk(tree))


def binds_there(call: ast.Call) -> bool:
    """The call hands a port to what binds it: a program it starts, a process or thread it starts or
    makes (`multiprocessing.Process`, with fork the child inherits the open socket too), a server it
    makes or runs (`uvicorn.run`, `...Server(...)`, `uvicorn.Config(...)`)."""
    called = dotted(call.func)
    name = called.rsplit(".", 1)[-1] if called else call.func.attr if isinstance(call.func, ast.Attribute) else ""
    return name in _LAUNCHERS or called in _LAUNCH_CALLS or name in _BINDERS or name.endswith(_BINDER_ENDS)


def launches(escape: Escape) -> bool:
    """The number is handed to a call that starts another program (`subprocess.Popen`, `os.system`, ...)."""
    if escape.how != "pass" or not isinstance(escape.node, ast.Call):
        return False
    called = dotted(escape.node.func)
    return called.rsplit(".", 1)[-1] in _LAUNCHERS or called in _LAUNCH_CALLS
