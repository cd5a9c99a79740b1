"""One module as the socket analysis sees it: its functions, classes and their summaries."""
from __future__ import annotations

import ast
from collections.abc import Hashable

from portlint.analysis.sockets.flow import Flow, Summary, Violation, decorator_names
from portlint.analysis.sockets.imports import Export, External, export
from portlint.analysis.sockets.values import Num, Sock, SockState
from portlint.analysis.tree import (
    FUNCTIONS,
    INERT,
    children,
    dotted,
    end_line,
    first_line,
    function_defs,
    holds_hot,
    lines_holding,
    searchable,
)

Function = ast.FunctionDef | ast.AsyncFunctionDef
_SOURCE = "<binds>"  # stands for a bind or a server constructor among the names a function uses
_SERVERS = frozenset(("create_server", "start_server", "make_server"))


class ModuleIndex:
    """Functions and methods by name; a summary of each, computed once, on demand."""

    def __init__(self, module: ast.Module, externals: dict[str, External] | None = None, data: bytes | None = None) -> None:
        self.module = module
        self.data = data  # the module's bytes, when known: only functions that spell a name are walked for names
        self.externals = externals or {}  # functions of other modules, by the name calls use
        self.functions: dict[str, Function] = {}
        self.classes: dict[str, dict[str, Function]] = {}
        self.names: dict[Function, tuple[str, str]] = {}  # node -> (qualified name, owning class)
        self._summaries: dict[Function, Summary | None] = {}
        self._hot_functions: tuple[set[Function], bool] | None = None
        self._waits = 0  # how many times a summary was asked for while it was being computed
        self._provisional: set[Function] = set()  # functions whose run met such a summary (None)
        self._last_reads: dict[Function | ast.Module, dict[str, tuple[int, int]]] = {}
        self.spent = 0  # statements the walks of its functions followed (flow.MAX_MODULE_STEPS)
        for statement in module.body:
            if isinstance(statement, FUNCTIONS):
                self.functions[statement.name] = statement
                self.names[statement] = (statement.name, "")
            elif isinstance(statement, ast.ClassDef):
                methods = {s.name: s for s in statement.body if isinstance(s, FUNCTIONS)}
                # A class defined again under the same name: one class to calls (`self.name`, `Class.name`),
                # the later method where both define one; each method is walked as its own.
                self.classes.setdefault(statement.name, {}).update(methods)
                for name, method in methods.items():
                    self.names[method] = (f"{statement.name}.{name}", statement.name)
        self.defined = function_defs(module)  # every function, at any depth (walked once: _Usage reads it too)
        self.nested = [node for node in self.defined if node not in self.names]

    def last_reads(self, function: Function | ast.Module) -> dict[str, tuple[int, int]]:
        """Where each name the function's code spells is last read, as the end (line, column)
        of the statement that reads it (a compound statement's own: an `if`'s test, a loop's
        header), which a position inside an f-string cannot make earlier."""
        found = self._last_reads.get(function)
        if found is None:
            found = self._last_reads[function] = _last_reads(function)
        return found

    def resolve(self, func: ast.expr, owner: str, self_name: str) -> tuple[Function | External, int] | None:
        """The module's function a call reaches, and whether it gets an implicit first argument (`self`)."""
        if isinstance(func, ast.Name):
            found = self.functions.get(func.id) or self.externals.get(func.id)
            return (found, 0) if found is not None else None
        external = self.externals.get(dotted(func)) if self.externals else None
        if external is not None:
            return external, 0
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
            external = self.externals.get("." + func.attr) if isinstance(func, ast.Attribute) else None
            return (external, 0) if external is not None else None
        receiver, name = func.value.id, func.attr
        if owner and receiver == self_name:
            method = self.classes[owner].get(name)
            return (method, int("staticmethod" not in decorator_names(method))) if method is not None else None
        method = self.classes.get(receiver, {}).get(name)
        if method is not None:
            return method, int("classmethod" in decorator_names(method))
        external = self.externals.get("." + name) if self.externals else None  # `obj.static_probe(port)`
        return (external, 0) if external is not None else None

    def summary(self, node: Function | External) -> Summary | None:
        if isinstance(node, External):
            return node.summary()
        if node in self._summaries:
            if self._summaries[node] is None:
                self._waits += 1
            return self._summaries[node]  # None while it is being computed: a recursive call
        self._summaries[node] = None
        name, owner = self.names.get(node, (node.name, ""))
        waits = self._waits
        self._summaries[node] = summary = Flow(self, node, name, owner).run()
        if self._waits != waits:
            self._provisional.add(node)
        return summary

    def violations(self) -> list[Violation]:
        hot, module_hot = self._hot()
        found = list(Flow(self, self.module, "module code").run().violations) if module_hot else []
        for node in [*self.functions.values(), *self.nested]:
            summary = self.summary(node) if node in hot else None
            if summary is not None:
                found += summary.violations
        for owner, all_methods in self.classes.items():
            methods = {name: method for name, method in all_methods.items() if method in hot}
            kept = {name: self._kept_on_self(owner, method) for name, method in methods.items()}
            for name, method in methods.items():
                seeds: dict[str, frozenset] = {}
                socks: dict[Hashable, SockState] = {}
                for other, (other_seeds, other_socks) in kept.items():
                    if other != name:
                        seeds.update(other_seeds)
                        socks.update(other_socks)
                if not seeds and not socks and method not in self._provisional:
                    summary = self.summary(method)  # that very run: nothing seeds it, every summary it met was done
                    assert summary is not None  # computed by _kept_on_self above
                    found += summary.violations
                    continue
                found += Flow(self, method, f"{owner}.{name}", owner).run(seeds, socks).violations
        return found

    def _hot(self) -> tuple[set[Function], bool]:
        """The functions where a bound socket can appear, and whether the module's own code is one.

        A bound socket needs a bind or a server constructor, a call of a function where one
        appears, or an attribute of `self` where a hot method keeps a bound socket or its port
        (what `_kept_on_self` seeds the other methods with; an attribute holding anything else
        brings no socket). Nothing else can report, so the rest of a large module is never
        walked path by path (its summaries are still computed when a hot function calls it: a
        helper that closes its parameter matters).
        """
        if self._hot_functions is not None:
            return self._hot_functions
        usage = _Usage(self.module, self.defined, {node for node, (_, owner) in self.names.items() if owner}, self.data)
        words = {_SOURCE} | {local.rsplit(".", 1)[-1] for local in self.externals}
        hot: set[Function] = set()
        asked: set[Function] = set()  # hot methods whose kept attributes are words already
        while True:
            grown = True
            while grown:
                grown = False
                for node in usage.spelling(words):
                    if node not in hot and usage.uses(node, words):
                        hot.add(node)
                        words.add(node.name)
                        grown = True
            attributes = set()
            for node, (_, owner) in self.names.items():  # in the module's order: summaries are computed in it
                if owner and node in hot and node not in asked:
                    asked.add(node)
                    seeds, _ = self._kept_on_self(owner, node)
                    attributes |= {key.partition(".")[2] for key in seeds}
            if attributes <= words:
                break
            words |= attributes
        self._hot_functions = hot, not usage.of_module().isdisjoint(words)
        return self._hot_functions

    def exports(self) -> tuple[Export, ...]:
        """The plain summaries, for other modules, of the top-level functions and static methods where a
        bound socket can appear."""
        hot, _ = self._hot()
        functions = [(name, node) for name, node in self.functions.items() if node in hot]
        functions += [(f"{owner}.{name}", node) for owner, methods in self.classes.items()
                      for name, node in methods.items() if node in hot and "staticmethod" in decorator_names(node)]
        found = []
        for name, node in functions:
            summary = self.summary(node)
            exported = export(name, summary) if summary is not None else None
            if exported is not None:
                found.append(exported)
        return tuple(found)

    def _kept_on_self(self, owner: str, method: Function) -> tuple[dict[str, frozenset], dict[Hashable, SockState]]:
        """Bound sockets a method keeps on `self`, and their ports, as the other methods will see them."""
        name = method.name
        summary = self.summary(method)
        seeds: dict[str, frozenset] = {}
        socks: dict[Hashable, SockState] = {}
        if summary is None:  # None only while that summary is being computed: not the case here
            return seeds, socks
        for attribute, values in summary.self_stores.items():
            kept = set()
            for value in values:
                if isinstance(value, Num) and isinstance(value.sid, tuple) and value.sid[:1] in _RELEASED:
                    continue  # a number whose socket a helper or probe let go: no other method can hold it
                if isinstance(value, (Sock, Num)) and summary.sock_binds.get(value.sid):
                    sid = ("class", owner, name, value.sid)
                    socks[sid] = SockState(summary.sock_binds[value.sid], held=True)
                    kept.add(type(value)(sid))
            if kept:
                seeds[f"self.{attribute}"] = frozenset(kept)
        return seeds, socks



_RELEASED = (("library",), ("probe",))  # sids of the numbers a helper's call or a probe released (calls.py)


class _Usage:
    """The names each function uses (`names_in`, with `_SOURCE` when it binds), walked on demand.

    A function's names include those of the functions nested in it, not its parameters
    (`_function_names`); the module's own code leaves out the bodies of its top-level functions
    and classes. With the module's bytes,
    only the functions whose lines spell a word asked about are walked (a name it uses is
    written in it): in a large module most are never walked at all. (Names, attributes and
    constants, most nodes, take a short path.)
    """

    def __init__(self, module: ast.Module, functions: list[Function], methods: set[Function], data: bytes | None) -> None:
        self.module = module
        self.methods = methods
        self.functions = functions  # function_defs(module)
        self.spans = [(first_line(node), end_line(node)) for node in self.functions]
        self.used: dict[Function, set[str]] = {}
        self.walked: dict[Function, tuple[int, set[str]]] = {}  # (lines searched when walked, the names found)
        self.text = searchable(data) if data is not None else None
        self.searched: set[str] = set()
        self.lines: list[int] = []  # sorted: the lines spelling a word searched for

    def spelling(self, words: set[str]) -> list[Function]:
        """The functions that may use one of the words (every function without the module's bytes)."""
        if self.text is None:
            return self.functions
        new = words - self.searched
        if new:
            self.searched |= new
            needles = [word.encode() for word in new if word != _SOURCE]
            if _SOURCE in new:
                needles += [b"bind", b"Server", b"_server"]  # what _binds reads a call's name for
            text, starts = self.text
            self.lines = sorted({*self.lines, *lines_holding(text, starts, needles, whole=False)})
        return [node for node, (first, last) in zip(self.functions, self.spans) if holds_hot(self.lines, first, last)]

    def of(self, function: Function) -> set[str]:
        used = self.used.get(function)
        if used is None:
            used = self.used[function] = {function.name, *_function_names(function, self._first(function))}
        return used

    def uses(self, function: Function, words: set[str]) -> bool:
        """Whether `of(function)` holds one of the words. With the module's bytes, only the function's
        statements whose lines spell a word searched for so far are walked (`spelling`): a name is
        written on a line of the statement it is used in, and a bind spells `bind` or `Server`
        there. (A long test function that spells a helper's name once is walked on that line.)"""
        if self.text is None:
            return not self.of(function).isdisjoint(words)
        if function.name in words:
            return True
        walked = self.walked.get(function)
        if walked is None or walked[0] != len(self.lines):
            walked = self.walked[function] = (len(self.lines), _function_names(function, self._first(function), self.lines))
        return not walked[1].isdisjoint(words)

    def _first(self, function: Function) -> str:
        """The name of a method's first parameter (`self`), else ""."""
        args = [*function.args.posonlyargs, *function.args.args]
        return args[0].arg if args and function in self.methods else ""

    def of_module(self) -> set[str]:
        return _names([s for s in self.module.body if not isinstance(s, (*FUNCTIONS, ast.ClassDef))], "")


def _function_names(function: Function, first: str, lines: list[int] | None = None) -> set[str]:
    """`_names` of a function: its body's (nested functions' included) without its parameters, and
    what its decorators, defaults and annotations read where it is defined (`signature_names`).
    A parameter is no function of the module: a pytest fixture's name, given to the tests that
    use it, makes them use no function (else most functions of a test module are walked path
    by path). But a call of one still counts, as the flow resolves a call by its
    name; so does an attribute of that name."""
    return signature_names(function, first) | _names(list(function.body), first, lines, parameters(function))


def _last_reads(function: Function | ast.Module) -> dict[str, tuple[int, int]]:
    last: dict[str, tuple[int, int]] = {}
    stack: list[tuple[ast.AST, tuple[int, int]]] = [(s, (s.end_lineno or 0, s.end_col_offset or 0)) for s in function.body]
    while stack:
        node, end = stack.pop()
        if isinstance(node, ast.Name):
            if last.get(node.id, (0, 0)) < end:
                last[node.id] = end
        elif type(node) not in INERT:  # (a Name is one: taken above)
            for child in children(node):
                stack.append((child, (child.end_lineno or 0, child.end_col_offset or 0)) if isinstance(child, ast.stmt) else (child, end))
    return last


def parameters(function: Function) -> frozenset[str]:
    return frozenset(argument.arg for argument in _arguments(function))


def signature_names(function: Function, first: str = "") -> set[str]:
    """The names a function's decorators, defaults and annotations read (where it is defined)."""
    arguments = function.args
    outside: list[ast.AST | None] = [*function.decorator_list, *arguments.defaults, *arguments.kw_defaults,
                                     *(argument.annotation for argument in _arguments(function)), function.returns]
    return _names([node for node in outside if node is not None], first)


def _arguments(function: Function) -> list[ast.arg]:
    """Every parameter of the function: positional, keyword-only, `*args` and `**kwargs`."""
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
    return [argument for argument in every if argument is not None]


def _names(nodes: list[ast.AST], first: str, lines: list[int] | None = None, local: frozenset[str] = frozenset()) -> set[str]:
    """The names used under the nodes, with `_SOURCE` when a call binds (`first`: the first parameter
    of the method they are in, else ""); with `lines` (sorted), only in the statements that hold one.
    A `local` name (a parameter of the function they are in: sockets.kept reads its bytes alike)
    counts only as an attribute, as the name of a call, or declared `global` or `nonlocal`."""
    found: set[str] = set()
    stack = nodes
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        node = pop()
        # The most frequent nodes first (a name, a constant, an attribute: no statement).
        if isinstance(node, ast.Name):
            if node.id not in local:
                found.add(node.id)
            continue
        if isinstance(node, ast.Constant):
            continue
        if isinstance(node, ast.Attribute):
            found.add(node.attr)
            push(node.value)
            continue
        if lines is not None and isinstance(node, ast.stmt) and not holds_hot(lines, first_line(node), end_line(node)):
            continue
        if isinstance(node, FUNCTIONS):
            if node.name not in local:
                found.add(node.name)
        elif isinstance(node, ast.Call):
            if _binds(node, first):
                found.add(_SOURCE)
            if local and isinstance(node.func, ast.Name) and node.func.id in local:
                found.add(node.func.id)  # a call the flow resolves by its name (module.resolve)
        elif isinstance(node, _NAMING):
            named = _names_of(node)
            if local and named and not isinstance(node, (ast.Global, ast.Nonlocal)):
                named = tuple(name for name in named if name not in local)
            found.update(named)
        extend(children(node))
    return found


# The nodes `_names_of` finds identifiers in (but names and attributes).
_NAMING = (ast.keyword, ast.ExceptHandler, ast.arg, ast.ClassDef, ast.Global, ast.Nonlocal)


def _names_of(node: ast.AST) -> tuple[str, ...]:
    """The identifiers one node contributes to `names_in` (not those of its children; a Name's
    and an Attribute's are taken before this is asked)."""
    if isinstance(node, ast.keyword):
        return (node.arg,) if node.arg else ()
    if isinstance(node, ast.ExceptHandler):
        return (node.name,) if node.name else ()
    if isinstance(node, ast.arg):
        return (node.arg,)
    if isinstance(node, ast.ClassDef):
        return (node.name,)
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return tuple(node.names)
    return ()


def _binds(call: ast.Call, first: str) -> bool:
    """A call the analysis can take for a bind: `x.bind(address)`, or a server constructed on an address.

    A server's address must be able to hold a `(host, port)` tuple: a display, a variable, a call,
    an item, or an attribute of a method's first parameter `first` (`config.server` cannot).
    """
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    positional = [arg for arg in call.args if not isinstance(arg, ast.Starred)]
    if name == "bind" and isinstance(func, ast.Attribute):
        return len(positional) == 1 and not call.keywords
    if name in _SERVERS:
        return True
    if name.endswith("Server") and positional:
        address = positional[0]
        return isinstance(address, (ast.Tuple, ast.Name, ast.Call, ast.Subscript, ast.IfExp, ast.NamedExpr)) or \
            isinstance(address, ast.Attribute) and isinstance(address.value, ast.Name) and address.value.id == first
    return False
