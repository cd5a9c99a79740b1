"""PL601's and PL602's shared judgement and wording of a port handed on after its socket was
released (the socket analysis's `PortHandOff` records): where one is reported, which of several at
one place is shown, and the story of what happens, in the order it happens."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from portlint.analysis import sockets
from portlint.model.extraction import PortHandOff, Spot
from portlint.model.layout import Layout
from portlint.model.problems import Problem

_NEVER = 10**9
_PORT_WORDS = {"zero": "port 0", "scanned": "a scanned port"}


def problems(layout: Layout, code: str, judged: Callable[[PortHandOff], bool],
             message: Callable[[PortHandOff], str]) -> Iterator[Problem]:
    """The rule `code`'s problems: one per place of the hand-offs it judges, worded by `message`."""
    for path, handoffs in sockets.handed_on(layout.code_files).items():
        for handoff in first_per_place(handoffs, judged):
            at = anchor(handoff)
            yield Problem(path, at.line, at.column, code, message(handoff), None, at.end_line, at.end_column)


def handed_over(handoff: PortHandOff) -> bool:
    """Whether the port was handed over: not a port only checked and kept in this process (a stale
    answer, not a hand-over), nor a port a live server published while it served."""
    if handoff.checked_only and not handoff.handed.launches:
        return False
    return not (handoff.serves and handoff.handed.how != "pass")


def first_per_place(handoffs: Iterable[PortHandOff], judged: Callable[[PortHandOff], bool]) -> Iterator[PortHandOff]:
    """The judged hand-offs, one per place (the first to show there), in the order of their places."""
    shown: dict[Spot, PortHandOff] = {}
    for handoff in handoffs:
        at = anchor(handoff)
        if judged(handoff) and (at not in shown or rank(handoff) < rank(shown[at])):
            shown[at] = handoff
    return iter(sorted(shown.values(), key=lambda h: (anchor(h).line, anchor(h).column)))


def anchor(handoff: PortHandOff) -> Spot:
    """Where it is reported: the bind (or the call it came from); the release when another method bound it."""
    released = handoff.released
    return released.at if handoff.bound_in and released is not None else handoff.bound.at


def rank(handoff: PortHandOff) -> tuple[int, ...]:
    """Among hand-offs at one place, the one to show first: the earliest escape (on one line, the
    innermost: the call the port is passed to, not the `return` of it), then the earliest release
    and bind."""
    handed, bound = handoff.handed.at, handoff.bound.at
    released = handoff.released.at if handoff.released else None
    return (handed.line if handed else _NEVER, released.line if released else _NEVER,
            -handed.column if handed else 0, bound.line, bound.column, released.column if released else _NEVER)


def story(handoff: PortHandOff) -> str:
    """What happens, in words: `frees() binds port 0 here; the socket is closed at line 5, then the
    port is returned at line 6` (the function, what it bound, the release and the hand-off in the
    order they happen)."""
    culprit = handoff.function if handoff.function == "module code" else f"{handoff.function}()"
    port = _PORT_WORDS.get(handoff.bound.port, "a chosen port")
    escaped = _escaped(handoff)
    release = handoff.released
    if handoff.bound_in:
        via = f" (with {release.helper})" if release is not None and release.how == "helper" else ""
        return f"{culprit} releases here{via} the socket {handoff.bound_in}() bound to {port} at line " \
               f"{handoff.bound.at.line}, then {escaped}"
    return f"{culprit} {_what(handoff, port)}; {_sequence(handoff, escaped, culprit)}"


def _what(handoff: PortHandOff, port: str) -> str:
    bound, release = handoff.bound, handoff.released
    if release is not None and release.how == "probe":
        if bound.port == "scanned":
            return f"probes a scanned port with {release.helper} here"
        return f"checks {port} with {release.helper} here"
    if bound.how == "bind":
        return f"binds {port} here"
    if bound.how == "server":
        return f"starts a server on {port} here"
    return f"binds {port} through {bound.called or 'a helper'}() here"


def _escaped(handoff: PortHandOff) -> str:
    handed = handoff.handed
    if handed.how == "store":
        said = f"the port is stored in {_shortened(handed.text)}"
    elif handed.how == "pass" and handed.text:
        said = f"the port is passed to {_shortened(handed.text)}()"
    else:
        said = f"the port is {handed.how}ed"
    return said + (f" at line {handed.at.line}" if handed.at is not None else "")


def _sequence(handoff: PortHandOff, escaped: str, culprit: str) -> str:
    """The release and the hand-off, in the order they happen."""
    release = handoff.released
    if release is None:
        return f"{escaped} and the socket goes out of scope when {culprit} returns"
    if release.how in ("probe", "library"):
        return f"{release.helper} releases the socket it bound, then {escaped}"
    escape_line = handoff.handed.at.line if handoff.handed.at is not None else _NEVER
    if release.how == "with":
        closed = f"the `with` block of line {release.at.line} closes the socket"
        if escape_line > release.at.end_line:
            return f"{closed}, then {escaped}"
        return f"{escaped} as {closed}"
    closer = {"helper": f"{release.helper} closes the socket", "del": "the socket is deleted"}.get(
        release.how, "the socket is closed")
    closed = f"{closer} at line {release.at.line}"
    if escape_line < release.at.line:
        return f"{escaped}, then {closed}"
    return f"{closed}, then {escaped}"


def _shortened(code: str) -> str:
    return code if len(code) <= 40 else code[:37] + "..."
