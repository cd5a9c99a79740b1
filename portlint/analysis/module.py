"""One module as the socket analysis sees it: its functions, classes and their summaries."""
from __future__ import annotations

from collections.abc import Hashable

import libcst as cst

from portlint.analysis.flow import Flow, Summary, Violation, decorator_names
from portlint.analysis.tree import function_defs
from portlint.analysis.values import Num, Sock, SockState


class ModuleIndex:
    """Functions and methods by name; a summary of each, computed once, on demand."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.functions: dict[str, cst.FunctionDef] = {}
        self.classes: dict[str, dict[str, cst.FunctionDef]] = {}
        self.names: dict[cst.FunctionDef, tuple[str, str]] = {}  # node -> (qualified name, owning class)
        self._summaries: dict[cst.FunctionDef, Summary | None] = {}
        for statement in module.body:
            if isinstance(statement, cst.FunctionDef):
                self.functions[statement.name.value] = statement
                self.names[statement] = (statement.name.value, "")
            elif isinstance(statement, cst.ClassDef):
                methods = {s.name.value: s for s in statement.body.body if isinstance(s, cst.FunctionDef)}
                self.classes[statement.name.value] = methods
                for name, method in methods.items():
                    self.names[method] = (f"{statement.name.value}.{name}", statement.name.value)
        self.nested = [node for node in function_defs(module) if node not in self.names]

    def resolve(self, func: cst.BaseExpression, owner: str, self_name: str) -> tuple[cst.FunctionDef, int] | None:
        """The module's function a call reaches, and whether it gets an implicit first argument (`self`)."""
        if isinstance(func, cst.Name):
            found = self.functions.get(func.value)
            return (found, 0) if found is not None else None
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
            return None
        receiver, name = func.value.value, func.attr.value
        if owner and receiver == self_name:
            method = self.classes[owner].get(name)
            return (method, int("staticmethod" not in decorator_names(method))) if method is not None else None
        method = self.classes.get(receiver, {}).get(name)
        return (method, int("classmethod" in decorator_names(method))) if method is not None else None

    def summary(self, node: cst.FunctionDef) -> Summary | None:
        if node in self._summaries:
            return self._summaries[node]  # None while it is being computed: a recursive call
        self._summaries[node] = None
        name, owner = self.names.get(node, (node.name.value, ""))
        self._summaries[node] = summary = Flow(self, node, name, owner).run()
        return summary

    def violations(self) -> list[Violation]:
        found = list(Flow(self, self.module, "module code").run().violations)
        for node in [*self.functions.values(), *self.nested]:
            found += self.summary(node).violations
        for owner, methods in self.classes.items():
            kept = {name: self._kept_on_self(owner, name) for name in methods}
            for name, method in methods.items():
                seeds: dict[str, frozenset] = {}
                socks: dict[Hashable, SockState] = {}
                for other, (other_seeds, other_socks) in kept.items():
                    if other != name:
                        seeds.update(other_seeds)
                        socks.update(other_socks)
                found += Flow(self, method, f"{owner}.{name}", owner).run(seeds, socks).violations
        return found

    def _kept_on_self(self, owner: str, name: str) -> tuple[dict[str, frozenset], dict[Hashable, SockState]]:
        """Bound sockets a method keeps on `self`, and their ports, as the other methods will see them."""
        summary = self.summary(self.classes[owner][name])
        seeds: dict[str, frozenset] = {}
        socks: dict[Hashable, SockState] = {}
        for attribute, values in summary.self_stores.items():
            kept = set()
            for value in values:
                if isinstance(value, (Sock, Num)) and summary.sock_binds.get(value.sid):
                    sid = ("class", owner, name, value.sid)
                    socks[sid] = SockState(summary.sock_binds[value.sid], held=True)
                    kept.add(type(value)(sid))
            if kept:
                seeds[f"self.{attribute}"] = frozenset(kept)
        return seeds, socks

