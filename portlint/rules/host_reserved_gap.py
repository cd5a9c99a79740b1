"""A band or written port relies on reserved ports inside this host's ephemeral range, but some of it is not reserved.

What it does: `portlint host`, for every band, and every range or port written
outside its band, that meets this machine's ephemeral range where
net.ipv4.ip_local_reserved_ports reserves some of the part inside but not all,
names the runs left unreserved (the first three). Reported at the band's key in
the config, or at the site.
Why: reserving a band's ports is how a node keeps the kernel from handing them
to outgoing connections; a reservation that misses part of the band (a band that
grew, a typo in the sysctl) protects only what it names, and the rest fails
with EADDRINUSE as if nothing were reserved.
Example (fails): a band `rpc` with `range: 12000-12099` on a node with
`ip_local_port_range` 9000 65000 and `ip_local_reserved_ports` 12000-12049.
Use instead: `ip_local_reserved_ports` 12000-12099, the whole band.
Options: `bands`; `portlint host --proc-root DIR` reads another /proc.
Fix: none automatic: reserve the whole band on the node
(`sysctl net.ipv4.ip_local_reserved_ports=12000-12099`), or move it below the range.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from portlint.model.ports import span
from portlint.model.problems import Problem

if TYPE_CHECKING:  # `portlint host` imports these; a check needs no more than the rule's name
    from portlint.config.procfs import Kernel
    from portlint.stages.layout.targets import Target

CODE = "H102"
NAME = "reserved-gap"
_SHOWN = 3  # unreserved runs named; the rest are an ellipsis


def check(targets: list[Target], kernel: Kernel) -> Iterator[Problem]:
    from portlint.stages.layout.targets import ephemeral_part, unreserved, where_ephemeral

    for target in targets:
        part = ephemeral_part(target, kernel.ephemeral)
        if part is None:
            continue
        gaps = list(unreserved(*part, kernel.reserved))
        if not gaps or gaps == [part]:
            continue  # all reserved (the kernel never hands these out), or none (H101)
        shown = ", ".join(span(a, b) for a, b in gaps[:_SHOWN]) + (", …" if len(gaps) > _SHOWN else "")
        where = where_ephemeral(kernel.ephemeral)
        yield target.problem(
            CODE, f"{target.what} relies on net.ipv4.ip_local_reserved_ports inside {where}, but {shown} is not reserved",
        )
