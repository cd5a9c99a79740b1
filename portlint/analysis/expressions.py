"""Expressions and assignments for the socket analysis: what a value is, what a call does.

A call is, in this order: a call of one of the module's own functions (followed
through its `Summary`), a socket method (`bind`, `close`, `getsockname`, ...),
a socket or server constructor, a conversion that carries a number along
(`str(port)`), a call that only logs, a store into a container, or else an
unknown call: a socket handed to it is kept alive by it, a port number handed
to it is passed on.
"""
from __future__ import annotations

from collections.abc import Hashable

import libcst as cst

from portlint.analysis.calls import HelperCall
from portlint.analysis.tree import (
    children,
    constant_index,
    dotted,
    literal_int,
    names_in,
)
from portlint.analysis.values import (
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

CLOSING = frozenset(("close", "server_close"))
# Using a socket this way means it serves here: it is kept open while it does.
SERVING = frozenset(("serve_forever", "serve", "start_serving", "handle_request", "accept", "recv", "recvfrom",
                     "recv_into", "makefile", "detach"))
CONVERSIONS = frozenset(("str", "int", "repr", "format", "float", "hex", "abs", "min", "max", "sorted", "list",
                         "tuple", "set", "next", "iter", "reversed", "enumerate", "sum", "closing", "wrap_socket"))
QUIET = frozenset(("print", "isinstance", "issubclass", "len", "hasattr", "getattr", "id", "type", "callable", "bool",
                   "debug", "info", "warning", "warn", "error", "exception", "critical", "log", "fatal", "write"))
STORING = frozenset(("append", "extend", "add", "insert", "update", "setdefault", "put", "put_nowait", "appendleft",
                     "putenv"))
# Its descriptor goes elsewhere (a child's pass_fds, another socket object): the socket lives on there.
HANDED_OVER = frozenset(("fileno", "dup", "share", "set_inheritable"))
SOCKET_METHODS = CLOSING | SERVING | HANDED_OVER | frozenset((
    "getsockname", "listen", "setsockopt", "getsockopt", "settimeout", "setblocking", "connect", "connect_ex",
    "shutdown", "send", "sendall", "sendto"))
RANDOM = frozenset(("randint", "randrange", "choice", "randbelow", "uniform"))


class Evaluator:
    """The expression half of `Flow` (flow.py holds the statements and the run)."""

    def __init__(self, index, owner: str) -> None:  # noqa: ANN001
        self.index = index  # the module: resolves calls of its own functions, gives their summaries
        self.owner = owner  # the class of a method, "" otherwise
        self.self_name = ""
        self.served: set[Hashable] = set()  # sockets that serve somewhere in the function: live servers

    # -- values ----------------------------------------------------------------
    def eval(self, node: cst.CSTNode, state: State) -> frozenset:
        handler = getattr(self, f"_eval_{type(node).__name__}", None)
        return handler(node, state) if handler else self._children(node, state)

    def _children(self, node: cst.CSTNode, state: State) -> frozenset:
        found: set = set()
        for child in children(node):
            found |= self.eval(child, state) if isinstance(child, cst.BaseExpression) else self._children(child, state)
        return frozenset(found)

    def _eval_Name(self, node: cst.Name, state: State) -> frozenset:
        if node.value in ("True", "False"):
            return frozenset({TRUE if node.value == "True" else FALSE})
        return state.env.get(node.value, NOTHING)

    def _eval_Integer(self, node: cst.Integer, state: State) -> frozenset:
        return frozenset({ZERO}) if literal_int(node) == 0 else NOTHING

    def _eval_SimpleString(self, node: cst.SimpleString, state: State) -> frozenset:
        return NOTHING

    def _eval_Attribute(self, node: cst.Attribute, state: State) -> frozenset:
        key = self.self_key(node)
        if key:
            return state.env.get(key, NOTHING)
        found: set = set()
        for value in flatten(self.eval(node.value, state)):
            if isinstance(value, Sock):
                attribute = node.attr.value
                if attribute in SERVING:  # `Thread(target=server.serve_forever)`: it will serve
                    self.served.add(value.sid)
                # A server's port and address; anything else of a socket still stands for it (a bound method).
                found.add(Num(value.sid) if attribute == "server_port" else
                          Addr(value.sid) if attribute == "server_address" else value)
        return frozenset(found)

    def _eval_Subscript(self, node: cst.Subscript, state: State) -> frozenset:
        base = self.eval(node.value, state)
        for element in node.slice:
            self._children(element, state)
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

    def _eval_Tuple(self, node: cst.Tuple | cst.List, state: State) -> frozenset:
        items = tuple(self.eval(element.value, state) for element in node.elements)
        if any(isinstance(element, cst.StarredElement) for element in node.elements):
            return frozenset(v for item in items for v in item)
        return frozenset({Tup(items)})

    _eval_List = _eval_Tuple

    def _eval_BinaryOperation(self, node: cst.BinaryOperation, state: State) -> frozenset:
        return numeric(self.eval(node.left, state) | self.eval(node.right, state))

    def _eval_UnaryOperation(self, node: cst.UnaryOperation, state: State) -> frozenset:
        values = self.eval(node.expression, state)
        return NOTHING if isinstance(node.operator, cst.Not) else numeric(values)

    def _eval_Comparison(self, node: cst.Comparison, state: State) -> frozenset:
        self._children(node, state)
        return NOTHING

    def _eval_IfExp(self, node: cst.IfExp, state: State) -> frozenset:
        self.eval(node.test, state)
        return self.eval(node.body, state) | self.eval(node.orelse, state)

    def _eval_FormattedString(self, node: cst.FormattedString, state: State) -> frozenset:
        return numeric(self._children(node, state))

    def _eval_ConcatenatedString(self, node: cst.ConcatenatedString, state: State) -> frozenset:
        return numeric(self._children(node, state))

    def _eval_Lambda(self, node: cst.Lambda, state: State) -> frozenset:
        """A callback that uses one of our sockets keeps it (`Thread(target=lambda: srv.serve_forever())`)."""
        captured: set = set()
        for name in names_in(node.body):
            captured |= {v for v in state.env.get(name, NOTHING) if isinstance(v, Sock)}
        return frozenset(captured)

    def _eval_GeneratorExp(self, node: cst.GeneratorExp | cst.ListComp | cst.SetComp, state: State) -> frozenset:
        """A comprehension is a scan: its targets are candidates (`next(p for p in range(a, b) if is_free(p))`)."""
        saved = dict(state.env)
        clause = node.for_in
        while clause is not None:
            self.assign(clause.target, self.elements(self.eval(clause.iter, state)), state, node)
            for condition in clause.ifs:
                state.env = self.test(condition.test, state)[0].env  # the element is computed where it holds
            clause = clause.inner_for_in
        if isinstance(node, cst.DictComp):
            values = self.eval(node.key, state) | self.eval(node.value, state)
        else:
            values = self.eval(node.elt, state)
        state.env.update(saved)  # comprehension variables do not leak
        return values

    _eval_ListComp = _eval_SetComp = _eval_DictComp = _eval_GeneratorExp

    def _eval_Yield(self, node: cst.Yield, state: State) -> frozenset:
        value = node.value.item if isinstance(node.value, cst.From) else node.value
        values = self.eval(value, state) if value is not None else NOTHING
        self.hold(values, state)
        for sid in numbers_in(values):
            self.check(state, sid, Escape(node, "yield"), at_exit=False)
        return NOTHING

    def _eval_NamedExpr(self, node: cst.NamedExpr, state: State) -> frozenset:
        values = self.eval(node.value, state)
        self.assign(node.target, values, state, node)
        return values

    def test(self, node: cst.BaseExpression, state: State) -> tuple[State, State]:
        """Evaluate a condition; the states where it holds and where it does not.

        A probe of a scanned candidate (`if is_free(port):`, `while in_use(port):`) links the
        candidate to the probe only where the probe found it free: `if not is_free(p): busy.append(p)`
        hands on busy ports, which is no race.
        """
        probed = self._probed(node)
        before = state.env.get(probed[0]) if probed else None
        self.eval(node, state)
        true, false = state.copy(), state
        if probed and before is not None:
            name, free_when_true = probed
            (false if free_when_true else true).env[name] = before
        return true, false

    def _probed(self, node: cst.BaseExpression) -> tuple[str, bool] | None:
        """(candidate name, whether a true test means free) when `node` is a probe call, maybe negated."""
        negated = False
        while isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            negated, node = not negated, node.expression
        target = self.index.resolve(node.func, self.owner, self.self_name) if isinstance(node, cst.Call) else None
        summary = self.index.summary(target[0]) if target is not None else None
        if summary is None:
            return None
        positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
        for k, free_when_true in summary.probe_polarity.items():
            name = summary.params[k] if k < len(summary.params) else ""
            by_name = [arg.value for arg in node.args if arg.keyword is not None and arg.keyword.value == name]
            place = k - target[1]
            arg = by_name[0] if by_name else positional[place] if 0 <= place < len(positional) else None
            if isinstance(arg, cst.Name):
                return arg.value, free_when_true != negated
        return None

    # -- assignments -----------------------------------------------------------
    def assign(self, target: cst.BaseExpression, values: frozenset, state: State, node: cst.CSTNode) -> None:
        if isinstance(target, cst.Name):
            state.env[target.value] = values
            if self.module_level or target.value in self.globals:
                self.store(values, state, node, target)
        elif isinstance(target, cst.Attribute):
            key = self.self_key(target)
            if key:
                state.env[key] = values
                attribute = target.attr.value
                self.summary.self_stores[attribute] = self.summary.self_stores.get(attribute, NOTHING) | values
            else:
                self.eval(target.value, state)
            self.store(values, state, node, target)
        elif isinstance(target, cst.Subscript):
            self.eval(target.value, state)
            if not self.into_local(target.value, values, state):
                self.store(values, state, node, target)
        elif isinstance(target, (cst.Tuple, cst.List)):
            count = len(target.elements)
            for i, element in enumerate(target.elements):
                self.assign(element.value, _unpacked(values, i, count), state, node)
        elif isinstance(target, cst.StarredElement):
            self.assign(target.value, values, state, node)

    def into_local(self, container: cst.BaseExpression, values: frozenset, state: State) -> bool:
        """Put values into a local list or dict (`socks.append(sock)`): they live as long as it does."""
        if not isinstance(container, cst.Name) or self.module_level or container.value in self.globals:
            return False
        held = state.env.get(container.value)
        if held is None or any(isinstance(v, Param) for v in held):
            return False
        state.env[container.value] = held | frozenset(flatten(values))
        return True

    def elements(self, values: frozenset) -> frozenset:
        """What a loop over `values` binds its target to: their sockets and ports, else a scanned candidate."""
        found = frozenset(v for v in flatten(values) if isinstance(v, (Sock, Num, Addr)))
        return found or frozenset({CANDIDATE})

    def store(self, values: frozenset, state: State, node: cst.CSTNode, target: cst.BaseExpression) -> None:
        """Values put where they outlive the function: a socket is kept, a number is judged at exit."""
        self.hold(values, state)
        state.store(numbers_in(values), Escape(node, "store", target))

    def hold(self, values: frozenset, state: State) -> None:
        state.hold(sockets_in(values))
        self.summary.param_holds |= {v.index for v in flatten(values) if isinstance(v, Param)}

    def self_key(self, node: cst.BaseExpression) -> str:
        """`self.x` inside a method (with whatever the first parameter is called), else ""."""
        if self.self_name and isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) \
                and node.value.value == self.self_name:
            return f"self.{node.attr.value}"
        return ""

    def port_kind(self, values: frozenset) -> Kind:
        if ZERO in values:
            return ZERO_PORT
        if CANDIDATE in values:
            return SCANNED_PORT
        params = sorted(v.index for v in values if isinstance(v, Param))
        return ("param", params[0]) if params else CHOSEN_PORT

    # -- calls -----------------------------------------------------------------
    def _eval_Call(self, node: cst.Call, state: State) -> frozenset:
        positional: list[tuple[cst.BaseExpression, frozenset]] = []
        keywords: dict[str, tuple[cst.BaseExpression, frozenset]] = {}
        extra: list[frozenset] = []
        for arg in node.args:
            values = self.eval(arg.value, state)
            if arg.keyword is not None:
                keywords[arg.keyword.value] = (arg.value, values)
            elif arg.star:
                extra.append(values)
            else:
                positional.append((arg.value, values))
        arguments = [v for _, v in positional] + [v for _, v in keywords.values()] + extra
        func = node.func
        target = self.index.resolve(func, self.owner, self.self_name)
        if target is not None:
            helper, shift = target
            receiver = self.eval(func.value, state) if shift else NOTHING
            return self.call_helper(node, helper, shift, receiver, positional, keywords, state)
        if isinstance(func, cst.Attribute):
            receiver = self.eval(func.value, state)
            done = self._socket_method(node, func, receiver, positional, keywords, state)
            if done is not None:
                return done
            name = func.attr.value
        elif isinstance(func, cst.Name):
            name = func.value
        else:
            self.eval(func, state)
            name = ""
        made = self._constructed(node, name, positional, keywords, state)
        if made is not None:
            return made
        if name in RANDOM:
            return frozenset({CANDIDATE})
        if name in CONVERSIONS:
            return frozenset(v for values in arguments for v in values)
        if name in QUIET or dotted(func).startswith("logging."):
            return NOTHING
        everything = frozenset(v for values in arguments for v in values)
        if name in STORING and isinstance(func, cst.Attribute):
            if not self.into_local(func.value, everything, state):
                self.store(everything, state, node, func.value)
            return NOTHING
        return self.pass_on(node, everything, state)

    def pass_on(self, node: cst.Call, values: frozenset, state: State) -> frozenset:
        """An unknown call keeps the sockets handed to it; a port handed to it after its release escapes."""
        self.hold(values, state)
        for sid in numbers_in(values):
            self.check(state, sid, Escape(node, "pass"), at_exit=False)
        return numeric(values)

    def _socket_method(self, node: cst.Call, func: cst.Attribute, receiver: frozenset, positional: list,
                       keywords: dict, state: State) -> frozenset | None:
        method = func.attr.value
        key = self.self_key(func.value)
        if method == "bind" and len(positional) == 1 and not keywords:
            return self._bind(node, func.value, receiver, positional[0], state)
        if method in CLOSING and key:
            self.summary.self_releases.add(key[len("self."):])
        params = self._socket_params(func.value, receiver) if method in SOCKET_METHODS else set()
        sids = sockets_in(receiver) | {("param", i) for i in params}
        if not sids:
            return None
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

    def _socket_params(self, receiver_node: cst.BaseExpression, receiver: frozenset) -> set[int]:
        """Parameters a socket method is called on (a helper's `sock.close()`); never `self`."""
        is_self = isinstance(receiver_node, cst.Name) and receiver_node.value == self.self_name
        return set() if is_self else {v.index for v in receiver if isinstance(v, Param)}

    def _bind(self, node: cst.Call, receiver_node: cst.BaseExpression, receiver: frozenset,
              address: tuple[cst.BaseExpression, frozenset], state: State) -> frozenset:
        port_node, port = _port_of(*address)
        params = self._socket_params(receiver_node, receiver)
        sids = sockets_in(receiver) | {("param", i) for i in params}
        if port is None:  # not a (host, port) address: zmq's "tcp://*:5555", tkinter's bind("<Key>", ...)
            if not sids or isinstance(address[0], (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
                return NOTHING
            port = NOTHING
        if not sids:
            key = receiver_node.value if isinstance(receiver_node, cst.Name) else self.self_key(receiver_node)
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
        if kind == SCANNED_PORT and isinstance(port_node, cst.Name):
            state.env[port_node.value] = frozenset(Num(sid) for sid in sids)  # the candidate is now this socket's port
        return NOTHING

    def _constructed(self, node: cst.Call, name: str, positional: list, keywords: dict,
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
        if kind == SCANNED_PORT and isinstance(port_node, cst.Name):
            state.env[port_node.value] = frozenset({Num(sid)})
        return frozenset({Sock(sid)})

    def call_helper(self, node: cst.Call, helper: cst.FunctionDef, shift: int, receiver: frozenset,
                    positional: list, keywords: dict, state: State) -> frozenset:
        summary = self.index.summary(helper)
        everything = frozenset(v for _, values in [*positional, *keywords.values()] for v in values)
        name = f"{helper.name.value}()"
        if summary is None:  # recursion: the helper is being analysed already
            return self.pass_on(node, everything, state)
        for sid in numbers_in(everything):
            self.check(state, sid, Escape(node, "pass"), at_exit=False)
        args: dict[int, tuple[cst.BaseExpression | None, frozenset]] = {0: (None, receiver)} if shift else {}
        args.update({i + shift: arg for i, arg in enumerate(positional)})
        args.update({summary.params.index(k): arg for k, arg in keywords.items() if k in summary.params})
        for i, default in summary.defaults.items():
            args.setdefault(i, (None, default))
        call = HelperCall(self, node, args, summary)
        call.apply_effects(state, name, bool(shift and receiver == state.env.get(self.self_name)))
        return call.result(state, name)


def _port_of(node: cst.BaseExpression | None, values: frozenset) -> tuple[cst.BaseExpression | None, frozenset | None]:
    """The port of a `(host, port)` address: its node when written in place, and its values."""
    tuples = [v for v in values if isinstance(v, Tup) and len(v.items) >= 2]
    if not tuples:
        return None, None
    port_node = node.elements[1].value if isinstance(node, cst.Tuple) and len(node.elements) >= 2 else None
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
