"""Where a violation is reported, and what its message says."""
from __future__ import annotations

import ast

from portlint.analysis.flow import Violation
from portlint.analysis.tree import Located, Positions, dotted, end_line
from portlint.analysis.values import SCANNED_PORT, ZERO_PORT, Escape, Kind, Release

TOCTOU_PROBE = "PL601"
EPHEMERAL_FALLBACK = "PL602"
_NEVER = 10**9


def code_of(violation: Violation) -> str:
    return EPHEMERAL_FALLBACK if violation.kind == ZERO_PORT else TOCTOU_PROBE


def anchor_of(violation: Violation) -> Located:
    """The bind (or the helper call it came from); the release when another method bound the socket."""
    release = violation.release
    return release.node if violation.elsewhere and release is not None else violation.origin


def rank_of(violation: Violation) -> tuple[int, ...]:
    """Among violations at one anchor, the message shows the earliest escape (on one line, the
    innermost: the call the port is passed to, not the `return` of it), then the earliest
    release and bind: the same one whatever order the analysis met them in (it walks sets of
    nodes, whose order is their addresses')."""
    escape = violation.escape.node
    release = violation.release
    origin = violation.origin
    return (escape.lineno if escape is not None else _NEVER,
            release.node.lineno if release is not None else _NEVER,
            -escape.col_offset if escape is not None else 0,
            origin.lineno, origin.col_offset,
            release.node.col_offset if release is not None else _NEVER)


def message(violation: Violation, positions: Positions) -> str:
    text = _Text(positions)
    culprit = violation.culprit if violation.culprit == "module code" else f"{violation.culprit}()"
    ports: dict[Kind, str] = {ZERO_PORT: "port 0", SCANNED_PORT: "a scanned port"}
    port = ports.get(violation.kind, "a chosen port")
    escaped = text.escape(violation.escape)
    release = violation.release
    if violation.elsewhere and isinstance(violation.sid, tuple):
        binder = violation.sid[2]  # ("class", owner, method, sid): the method that bound it
        via = f" (with {release.helper})" if release is not None and release.how == "helper" else ""
        story = f"releases here{via} the socket {binder}() bound to {port} at line {text.line(violation.origin)}, " \
                f"then {escaped}"
    else:
        story = f"{_what(violation, port)}; {text.sequence(escaped, violation.escape, release, culprit)}"
    if violation.kind == ZERO_PORT:
        risk = "the kernel may give that ephemeral port to another socket first"
        alternative = "bind port 0 in the process that serves and publish the port afterwards"
    else:
        risk = "another process can bind the port first"
        alternative = "bind in the process that serves and publish the port afterwards"
    return f"{culprit} {story}: {risk}; keep the bound socket or server and hand it over, or {alternative}"


def _what(violation: Violation, port: str) -> str:
    origin = violation.origin
    release = violation.release
    called = dotted(origin.func) if isinstance(origin, ast.Call) else ""
    if release is not None and release.how == "probe":
        if violation.kind == SCANNED_PORT:
            return f"probes a scanned port with {release.helper} here"
        return f"checks {port} with {release.helper} here"
    if isinstance(origin, ast.Call) and isinstance(origin.func, ast.Attribute) and origin.func.attr == "bind":
        return f"binds {port} here"
    if called.endswith(("Server", "create_server", "start_server", "make_server")):
        return f"starts a server on {port} here"
    return f"binds {port} through {called or 'a helper'}() here"


class _Text:
    def __init__(self, positions: Positions) -> None:
        self.positions = positions

    def line(self, node: Located) -> int:
        return node.lineno

    def escape(self, escape: Escape) -> str:
        if escape.how == "store":
            said = f"the port is stored in {self.source(escape.target)}"
        elif escape.how == "pass" and isinstance(escape.node, ast.Call):
            said = f"the port is passed to {self.source(escape.node.func)}()"
        else:
            said = f"the port is {escape.how}ed"
        return said + (f" at line {self.line(escape.node)}" if escape.node is not None else "")

    def sequence(self, escaped: str, escape: Escape, release: Release | None, culprit: str) -> str:
        """The release and the escape, in the order they happen."""
        if release is None:
            return f"{escaped} and the socket goes out of scope when {culprit} returns"
        if release.how == "probe":
            return f"{release.helper} releases the socket it bound, then {escaped}"
        escape_line = self.line(escape.node) if escape.node is not None else _NEVER
        if release.how == "with":
            closed = f"the `with` block of line {self.line(release.node)} closes the socket"
            if escape_line > end_line(release.node):
                return f"{closed}, then {escaped}"
            return f"{escaped} as {closed}"
        closer = {"helper": f"{release.helper} closes the socket", "del": "the socket is deleted"}.get(
            release.how, "the socket is closed")
        closed = f"{closer} at line {self.line(release.node)}"
        if escape_line < self.line(release.node):
            return f"{escaped}, then {closed}"
        return f"{closed}, then {escaped}"

    def source(self, node: Located | None) -> str:
        code = self.positions.source(node).strip() if node is not None else "a call"
        return code if len(code) <= 40 else code[:37] + "..."
