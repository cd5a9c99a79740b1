"""A band or written port meets this host's ephemeral range, and none of that part is reserved.

What it does: `portlint host` compares every band, and every range or port
written outside its band, with the ephemeral range this machine's kernel reads
from /proc/sys/net/ipv4/ip_local_port_range; flags each that meets it where
net.ipv4.ip_local_reserved_ports reserves none of the part inside. Reported at
the band's key in the config, or at the site.
Why: PL101 checks the layout against the `ephemeral_floor` the config states;
a node can differ (GB200 nodes hand out ports from 9000). On such a node the
kernel gives these ports to outgoing connections, and a service that binds
one later fails with EADDRINUSE, intermittently.
Example (fails on a 9000-65000 node): a band `rpc` with `range: 12000-12099`.
Use instead: `range: 6000-6099` (below the node's range), or the band's ports reserved
on the node.
Options: `bands`; `portlint host --proc-root DIR` reads another /proc.
Fix: none automatic: move the band below the node's range (then PL301 rewrites
its sites), or reserve its ports on the node
(`sysctl net.ipv4.ip_local_reserved_ports=12000-12099`).
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from portlint.model.ports import span
from portlint.model.problems import Problem

if TYPE_CHECKING:  # `portlint host` imports these; a check needs no more than the rule's name
    from portlint.config.procfs import Kernel
    from portlint.stages.layout.targets import Target

CODE = "H101"
NAME = "ephemeral-overlap"


def check(targets: list[Target], kernel: Kernel) -> Iterator[Problem]:
    from portlint.stages.layout.targets import ephemeral_part, unreserved, where_ephemeral

    for target in targets:
        part = ephemeral_part(target, kernel.ephemeral)
        if part is not None and list(unreserved(*part, kernel.reserved)) == [part]:
            message = f"{target.what} meets {where_ephemeral(kernel.ephemeral)}; none of {span(*part)} is reserved"
            yield target.problem(CODE, message)
