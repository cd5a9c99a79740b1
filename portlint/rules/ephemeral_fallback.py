"""Binds port 0 and publishes the number after releasing it.

What it does: flags a function that binds a socket or server to port 0 (the
kernel picks a free ephemeral port), reads the number (`getsockname()[1]`,
`server_address[1]`), and lets the socket go (`close()`, the end of a `with`
block, `contextlib.closing`, `del`, or the socket going out of scope) while the
number is returned, stored or passed on — also as the fallback after a failed
bind of a preferred port, when the binding helper and the close live in
different functions or methods, or in another module of the repository (a
helper returning `(port, sock)` whose caller drops the socket:
`self.port, _ = get_free_port()`), and for a loop that binds one port-0 socket
per channel, closes them all and publishes the numbers. Reported like PL601: at the bind
(or the call of the helper that bound), or at the release for a socket another
method kept on `self`. Not flagged: returning or storing the still-open socket or
server with its port, a server that serves, a bind to port 0 that only tests an
address family or an interface and returns a bool.
{library-helpers}
Why: a released ephemeral port goes back to the pool the kernel draws source
ports of outgoing connections from; on a busy node another connection takes it
before the real server binds, and startup dies with EADDRINUSE.
Example (fails):
    def get_free_port():
        with socket.socket() as s:
            s.bind(("", 0))
            return s.getsockname()[1]
Use instead:
    server = socketserver.TCPServer(("", 0), Handler)  # bound in the process that serves
    publish(server.server_address[1])                  # the port, while it is held
    server.serve_forever()
Options: none.
Fix: none automatic. Keep the bound socket or server and hand it over, or bind
port 0 in the process that serves and publish the port afterwards.
"""
from __future__ import annotations

from collections.abc import Iterator

from portlint.model.extraction import PortHandOff
from portlint.model.layout import Layout
from portlint.model.problems import Problem
from portlint.rules.common.docs import expand
from portlint.rules.common.handoffs import handed_over, problems, story

__doc__ = expand(__doc__)

CODE = "PL602"
NAME = "ephemeral-fallback"
NEEDS_LAYOUT = False
NEEDS = frozenset({"code_files"})


def check(layout: Layout) -> Iterator[Problem]:
    return problems(layout, CODE, judged, message)


def judged(handoff: PortHandOff) -> bool:
    """A hand-off this rule reports: a port 0, handed over (`handed_over`)."""
    return handoff.bound.port == "zero" and handed_over(handoff)


def message(handoff: PortHandOff) -> str:
    return f"{story(handoff)}: the kernel may give that ephemeral port to another socket first; keep the bound " \
           f"socket or server and hand it over, or bind port 0 in the process that serves and publish the port afterwards"
