"""The walk's violations as plain records: what was bound, released and handed on, where (model.extraction)."""
from __future__ import annotations

import ast
from collections.abc import Hashable

from portlint.analysis.sockets.expressions import launches
from portlint.analysis.sockets.flow import Violation
from portlint.analysis.sockets.values import Escape, Release
from portlint.analysis.tree import Located, Positions, dotted
from portlint.model.extraction import Bound, HandedOn, PortHandOff, Released, Spot

_SERVERS = ("Server", "create_server", "start_server", "make_server")


def handoffs(data: bytes, violations: list[Violation]) -> tuple[PortHandOff, ...]:
    """Each distinct hand-off of the violations, in the order of where they are."""
    positions = Positions(data)
    found = {_record(violation, positions) for violation in violations}
    return tuple(sorted(found, key=_order))


def _order(handoff: PortHandOff) -> tuple:
    handed = handoff.handed.at
    released = handoff.released.at if handoff.released is not None else None
    return (handoff.bound.at.line, handoff.bound.at.column, handoff.function,
            handed.line if handed else 0, handed.column if handed else 0, handoff.handed.how, handoff.handed.text,
            released.line if released else 0, released.column if released else 0, repr(handoff))


def _record(violation: Violation, positions: Positions) -> PortHandOff:
    return PortHandOff(
        violation.culprit, _bound(violation, positions), _released(violation.release, positions),
        _handed(violation.escape, positions), _binder(violation.sid) if violation.elsewhere else "",
        _is_guard(violation.sid), violation.serves,
    )


def _bound(violation: Violation, positions: Positions) -> Bound:
    origin = violation.origin
    called = dotted(origin.func) if isinstance(origin, ast.Call) else ""
    release = violation.release
    if release is not None and release.how == "probe":
        how = "probe"
    elif isinstance(origin, ast.Call) and isinstance(origin.func, ast.Attribute) and origin.func.attr == "bind":
        how = "bind"
    elif called.endswith(_SERVERS):
        how = "server"
    else:
        how = "call"
    return Bound(_spot(origin, positions), str(violation.kind), how, called)


def _released(release: Release | None, positions: Positions) -> Released | None:
    if release is None:
        return None
    return Released(_spot(release.node, positions), release.how, release.helper)


def _handed(escape: Escape, positions: Positions) -> HandedOn:
    node = escape.node
    text = ""
    if escape.how == "store" and escape.target is not None:
        text = positions.source(escape.target).strip()
    elif escape.how == "pass" and isinstance(node, ast.Call):
        text = positions.source(node.func).strip()
    return HandedOn(_spot(node, positions) if node is not None else None, escape.how, text, launches(escape))


def _spot(node: Located, positions: Positions) -> Spot:
    where = positions[node]
    return Spot(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)


def _binder(sid: Hashable) -> str:
    """The method that bound a socket kept on `self`: ("class", owner, method, sid)."""
    return str(sid[2]) if isinstance(sid, tuple) and len(sid) == 4 else ""


def _is_guard(sid: Hashable) -> bool:
    return isinstance(sid, tuple) and bool(sid) and sid[0] == "guard"
