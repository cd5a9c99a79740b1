"""`portlint host`: the layout against this machine's kernel settings and listeners.

What portlint/config/procfs.py reads (the ephemeral range, the reserved ports, the
TCP listeners) is compared with every band, and with every range or port
written in the files outside its band (portlint/stages/layout/targets.py); the host rules
(portlint/rules/host_*.py, `portlint rule H101`) report Problems like `check`'s rules, at
the band's line in the config or at the site, and the reporters of portlint/report/
print them in every format:

* H101 ephemeral-overlap: it meets the ephemeral range and none of that part
  is reserved;
* H102 reserved-gap: it meets the ephemeral range and relies on reserved
  ports (some of that part is reserved), but not all of it is;
* H201 port-in-use: a port of it is already held by a listening socket.
"""
from __future__ import annotations

from portlint.config.procfs import Kernel
from portlint.model.layout import Layout
from portlint.model.problems import Problem
from portlint.rules import HOST, describe
from portlint.stages.layout.targets import targets


def compare(layout: Layout, kernel: Kernel) -> list[Problem]:
    found = targets(layout)
    return sorted(problem.of(describe(rule)) for rule in HOST for problem in rule.check(found, kernel))


def summary(problems: list[Problem], kernel: Kernel) -> str:
    """What was found and what was read, as one line."""
    first, last = kernel.ephemeral
    ports = {port for port, _ in kernel.listening}
    seen = (
        f"ephemeral range {first}-{last}, {kernel.reserved_ports()} reserved port"
        f"{'s' if kernel.reserved_ports() != 1 else ''}, {len(ports)} listening TCP port{'s' if len(ports) != 1 else ''}"
    )
    noun = "problem" if len(problems) == 1 else "problems"
    return f"Found {len(problems)} host {noun} ({seen})." if problems else f"No host problems ({seen})."
