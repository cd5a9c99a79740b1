"""A port of a band or written port is held by a listening socket on this host.

What it does: `portlint host` reads the LISTEN rows of /proc/net/tcp and
/proc/net/tcp6 and flags each port of a band, or of a range or port written
outside its band, that a socket already listens on, naming the sockets. A port
of a carve-out (`within:`) counts for the carve-out only. Reported at the band's
key in the config, or at the site.
Why: a service whose port is taken fails to start (EADDRINUSE), or, with
SO_REUSEPORT, shares connections with a stranger. Run it on a node before the
job starts: the job's own listeners would be findings.
Example (fails): a band `gym` with `range: 5000-5999` on a node where a
process listens on 0.0.0.0:5000.
Use instead: a node where nothing listens on the band's ports when the job starts
(`ss -ltnp 'sport = :5000'` names the process), or a band no listener holds.
Options: `bands`; `portlint host --proc-root DIR` reads another /proc.
Fix: none automatic: stop what listens there, or move the band.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from portlint.model.problems import Problem

if TYPE_CHECKING:  # `portlint host` imports these; a check needs no more than the rule's name
    from portlint.config.procfs import Kernel
    from portlint.stages.layout.targets import Target

CODE = "H201"
NAME = "port-in-use"


def check(targets: list[Target], kernel: Kernel) -> Iterator[Problem]:
    for target in targets:
        for port, where in sorted(kernel.listeners(target.low, target.high).items()):
            if target.owns(port):
                yield target.problem(
                    CODE, f"port {port} of {target.what} is held by a listening socket ({', '.join(where)})",
                )
