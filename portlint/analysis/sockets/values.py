"""What the socket analysis knows about a value on one path through a function.

Values are abstract: a socket or server (`Sock`), its port number (`Num`), its
`getsockname()` pair (`Addr`), a parameter of the function (`Param`), a tuple
(`Tup`), port 0 (`ZERO`) and a scanned candidate port (`CANDIDATE`: a loop
target, a number changed in a loop, a random pick). Sockets are named by a
hashable id (`sid`); `SockState` is what one path knows about one socket.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from typing import TYPE_CHECKING

from portlint.model.records import Struct, replace

if TYPE_CHECKING:
    import ast

    from portlint.analysis.tree import Located

# Kinds of port a socket was bound to; ("param", k) inside a helper: its k-th parameter.
ZERO_PORT = "zero"
SCANNED_PORT = "scanned"
CHOSEN_PORT = "chosen"
Kind = str | tuple[str, int]


# The values a summary exports are cached with the file (portlint.speed.cache decodes them by
# their annotations): each is tagged by its class, so a set of them reads back as it was.
class Sock(Struct, frozen=True, tag=True):
    sid: Hashable


class Num(Struct, frozen=True, tag=True):
    """The port number of socket `sid` (from getsockname(), or the candidate it was bound to)."""

    sid: Hashable


class Addr(Struct, frozen=True, tag=True):
    sid: Hashable


class Param(Struct, frozen=True, tag=True):
    index: int


class Tup(Struct, frozen=True, tag=True):
    items: tuple[frozenset[Value], ...]


class Marker(Struct, frozen=True, tag=True):
    name: str


ZERO = Marker("zero")
CANDIDATE = Marker("candidate")
TRUE = Marker("true")
FALSE = Marker("false")
Value = Sock | Num | Addr | Param | Tup | Marker
Values = frozenset  # of Value
NOTHING: frozenset = frozenset()


class Release(Struct, frozen=True):
    """How a socket was let go: `close`, `with`, `helper` (closed by a function of the module), `probe`, `del`."""

    node: Located
    how: str
    helper: str = ""


class Escape(Struct, frozen=True):
    """How a port number left the function: `return`, `store`, `pass` (to a call) or `yield`."""

    node: Located | None  # None: the end of the function
    how: str
    target: ast.expr | None = None  # where a stored number went


class SockState(Struct, frozen=True):
    binds: frozenset = NOTHING  # of (origin node or None when bound in another method, Kind)
    released: Release | None = None
    held: bool = False  # returned, stored or handed to a call: someone else keeps it open
    handed: bool = False  # its port went, while it was open, to a process or server that binds it

    @property
    def alive(self) -> bool:
        """Still open after the function returns."""
        return self.held and self.released is None

    def bound(self, origin: Located | None, kind: Kind) -> SockState:
        return replace(self, binds=frozenset({(origin, kind)}), released=None)


def flatten(values: Iterable[Value]) -> Iterator[Value]:
    """Every value, with tuples opened (a port inside a returned tuple is returned)."""
    for value in values:
        if isinstance(value, Tup):
            for item in value.items:
                yield from flatten(item)
        else:
            yield value


# The three below are asked of every value an expression has, on every path: most are empty
# (`not values`, which a generator never is), and answer without a walk.
def sockets_in(values: Iterable[Value]) -> set[Hashable]:
    return {v.sid for v in flatten(values) if isinstance(v, Sock)} if values else set()


def numbers_in(values: Iterable[Value]) -> set[Hashable]:
    return {v.sid for v in flatten(values) if isinstance(v, Num)} if values else set()


def numeric(values: Iterable[Value]) -> frozenset:
    """What survives arithmetic or formatting: port numbers and candidates."""
    return frozenset(v for v in flatten(values) if isinstance(v, Num) or v == CANDIDATE) if values else NOTHING


class State(Struct):
    """One path through a function: variables, sockets, and port numbers stored so far."""

    env: dict[str, frozenset]
    socks: dict[Hashable, SockState]
    pending: tuple[tuple[Hashable, Escape], ...] = ()

    def copy(self) -> State:
        return State(dict(self.env), dict(self.socks), self.pending)

    def digest(self) -> int:
        """Equal for equal states (and, but by chance, only for them): the hashes of
        each variable and each socket with its value, summed, and the stored numbers. No (name,
        value) pair is kept, as a set of them would keep one per variable: hashing many states
        leaves little for the garbage collector to walk (up to 64 states of dozens of variables
        after each statement)."""
        return hash((sum(map(hash, self.env.items())), sum(map(hash, self.socks.items())), self.pending))

    def sock(self, sid: Hashable) -> SockState:
        return self.socks.get(sid, SockState())

    def hold(self, sids: Iterable[Hashable]) -> None:
        for sid in sids:
            self.socks[sid] = replace(self.sock(sid), held=True)

    def release(self, sids: Iterable[Hashable], release: Release) -> None:
        for sid in sids:
            state = self.sock(sid)
            if state.released is None:
                self.socks[sid] = replace(state, released=release)

    def hand(self, sids: Iterable[Hashable]) -> None:
        """The sockets' ports go to what binds them, while the sockets are still open (bind and hold)."""
        for sid in sids:
            state = self.sock(sid)
            if state.binds and state.released is None and not state.handed:
                self.socks[sid] = replace(state, handed=True)

    def store(self, sids: Iterable[Hashable], escape: Escape) -> None:
        self.pending += tuple((sid, escape) for sid in sids if (sid, escape) not in self.pending)
