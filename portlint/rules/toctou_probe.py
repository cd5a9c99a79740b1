"""Python code probes a free port, releases it, and hands the number on.

What it does: flags a function that binds a socket to a chosen or scanned port
and lets the socket go (`close()`, the end of a `with` block,
`contextlib.closing`, `del`, or the socket going out of scope) while the port
number is returned, stored or passed on; also an availability check (bind,
close, return a bool) called on the candidates of a port-scan loop, or used as
a guard (`if not is_free(port): raise`) before that port is handed to a
subprocess. Calls of helpers are followed, in the same module and across the
repository's own modules (`from .net import is_port_free`, `import pkg.net as
net`, static methods of an imported class). Reported in the function that lets
the port go: at the bind, else at the call of the helper that bound or probed,
else (a socket kept on `self` by another method) at the release.
Not flagged: returning or storing the still-open socket or server with its port,
a server that serves (`serve_forever`, `accept`), a bind that only tests an
address family or an interface, a port the caller chose that is checked once
and used by the same process.
{library-helpers}
Why: between the probe's release and the real bind, any other process (or an
outgoing connection, if the port is in the ephemeral range) can take the port;
at scale the service then dies with EADDRINUSE, intermittently.
Example (fails):
    for port in range(7000, 7100):
        with socket.socket() as s:
            try:
                s.bind(("", port))
            except OSError:
                continue
        return port
Use instead:
    sock = socket.socket()
    sock.bind(("", 7000))
    sock.listen()
    serve(sock)  # the bound socket is handed over, never closed first
Options: none.
Fix: none automatic. Keep the bound socket or server and hand it over (pass the
socket, or `sockets=[sock]`, to the server), or bind in the process that serves
and publish the port afterwards.
"""
from __future__ import annotations

from collections.abc import Iterator

from portlint.model.extraction import PortHandOff
from portlint.model.layout import Layout
from portlint.model.problems import Problem
from portlint.rules.common.docs import expand
from portlint.rules.common.handoffs import handed_over, problems, story

__doc__ = expand(__doc__)

CODE = "PL601"
NAME = "toctou-probe"
NEEDS_LAYOUT = False
NEEDS = frozenset({"code_files"})


def check(layout: Layout) -> Iterator[Problem]:
    return problems(layout, CODE, judged, message)


def judged(handoff: PortHandOff) -> bool:
    """A hand-off this rule reports: a chosen or scanned port, handed over (`handed_over`)."""
    return handoff.bound.port != "zero" and handed_over(handoff)


def message(handoff: PortHandOff) -> str:
    return f"{story(handoff)}: another process can bind the port first; keep the bound socket or server and " \
           f"hand it over, or bind in the process that serves and publish the port afterwards"
