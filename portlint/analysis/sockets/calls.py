"""A call of one of the module's own functions, seen from the caller: its summary in the caller's values.

The helper's parameters become the caller's arguments, the sockets it returns
open become new sockets of the caller (bound at the call), and what it does to
its parameters (binds, closes, keeps) happens to the caller's sockets. A probe
(a helper that binds the port it is given and releases it) called on a scanned
candidate makes the candidate the port of a socket released at the call.
"""
from __future__ import annotations

import ast
from collections.abc import Hashable
from typing import TYPE_CHECKING

from portlint.analysis.sockets.values import (
    CANDIDATE,
    NOTHING,
    SCANNED_PORT,
    Addr,
    Kind,
    Num,
    Param,
    Release,
    Sock,
    SockState,
    State,
    Tup,
    sockets_in,
)

if TYPE_CHECKING:
    from portlint.analysis.sockets.expressions import Evaluator
    from portlint.analysis.sockets.flow import Summary


class HelperCall:
    """One call of a module helper: its summary translated into the caller's values."""

    def __init__(self, caller: Evaluator, node: ast.Call, args: dict[int, tuple[ast.expr | None, frozenset]],
                 summary: Summary) -> None:
        self.caller = caller
        self.node = node
        self.args = args
        self.summary = summary

    def arg(self, i: int) -> frozenset:
        return self.args.get(i, (None, NOTHING))[1]

    def sids(self, i: int) -> set[Hashable]:
        values = self.arg(i)
        return sockets_in(values) | {("param", v.index) for v in values if isinstance(v, Param)}

    def kind(self, kind: Kind) -> Kind:
        return self.caller.port_kind(self.arg(kind[1])) if isinstance(kind, tuple) else kind

    def sid(self, sid: Hashable) -> set[Hashable]:
        if isinstance(sid, tuple) and sid[0] == "param":
            return self.sids(sid[1])
        binds_alive = self.summary.returned_socks.get(sid)
        return {("via", self.node, sid)} if binds_alive and binds_alive[1] else set()

    def value(self, value: object) -> set:
        if isinstance(value, Param):
            return set(self.arg(value.index))
        if isinstance(value, (Sock, Num, Addr)):
            return {type(value)(sid) for sid in self.sid(value.sid)}
        if isinstance(value, Tup):
            return {Tup(tuple(frozenset(v for item_value in item for v in self.value(item_value))
                              for item in value.items))}
        return {value}

    def apply_effects(self, state: State, name: str, on_self: bool) -> None:
        summary, caller, node = self.summary, self.caller, self.node
        for i, kinds in summary.param_binds.items():
            for kind in kinds:
                mine = self.kind(kind)
                for sid in self.sids(i):
                    state.socks[sid] = state.sock(sid).bound(node, mine)
                port_node = self.args.get(kind[1], (None,))[0] if isinstance(kind, tuple) else None
                if mine == SCANNED_PORT and isinstance(port_node, ast.Name):  # as for a bind written in place
                    state.env[port_node.id] = frozenset(Num(sid) for sid in self.sids(i))
                for v in self.arg(i):
                    if isinstance(v, Param):
                        caller.summary.param_binds.setdefault(v.index, set()).add(mine)
        for i in summary.param_releases:
            state.release(self.sids(i), Release(node, "helper", name))
            caller.summary.param_releases |= {v.index for v in self.arg(i) if isinstance(v, Param)}
        for i in summary.param_holds:
            caller.hold(self.arg(i), state)
        if on_self:
            for attribute in summary.self_releases:
                state.release(sockets_in(state.env.get(f"self.{attribute}", NOTHING)), Release(node, "helper", name))
                caller.summary.self_releases.add(attribute)
        for sid, (binds, alive) in summary.returned_socks.items():
            if alive and not (isinstance(sid, tuple) and sid[0] == "param"):
                state.socks[("via", node, sid)] = SockState(frozenset((node, self.kind(k)) for _, k in binds))

    def result(self, state: State, name: str) -> frozenset:
        found = {v for value in self.summary.returns for v in self.value(value)}
        if self.summary.released:  # a library's helper: the number of a socket it bound and closed
            sid = ("library", self.node)
            state.socks[sid] = SockState(frozenset({(self.node, self.summary.released)}),
                                         Release(self.node, "library", self.summary.library))
            number = frozenset({Num(sid)})
            item = self.summary.released_item
            found.add(Tup(tuple(number if i == item else NOTHING for i in range(max(item + 1, 2)))) if item >= 0 else Num(sid))
        for k in self.summary.probes:
            node, values = self.args.get(k, (None, NOTHING))
            if CANDIDATE in values:
                probe = ("probe", self.node, k)
                state.socks[probe] = SockState(frozenset({(self.node, SCANNED_PORT)}),
                                               Release(self.node, "probe", self.summary.library or name))
                if isinstance(node, ast.Name):
                    state.env[node.id] = frozenset({Num(probe)})
                if Param(k) in self.summary.returns:
                    found.add(Num(probe))
            self.caller.summary.probes |= {v.index for v in values if isinstance(v, Param)}
        return frozenset(found)
