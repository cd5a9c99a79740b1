"""A process group or engine is started per iteration on one fixed rendezvous port, and never torn down.

What it does: flags Python code that, inside a loop or comprehension (or once
per test case: a parametrized test, a test class's `setUp`), starts something that listens on a rendezvous
port — `torch.distributed.init_process_group(...)`, `vllm.LLM(...)`,
`sglang.Engine(...)`, `mp.spawn(worker, join=False)` of a worker that starts a
process group, `subprocess.Popen` of `torchrun` — on a fixed port (`MASTER_PORT`
or `VLLM_PORT` set to a literal, `init_method="tcp://host:N"`, `--master-port N`,
an engine's `port=N`), and does not end it in the same iteration
(`destroy_process_group()`, `llm.shutdown()`, `del llm` plus `gc.collect()`,
`proc.wait()`, `ctx.join()`; for `setUp`, in `tearDown`). Starts inside the module's own helpers called in
the loop count, and so do teardowns inside them. The message names the port,
where it was fixed, the loop and the missing teardown.
Not flagged: a port that changes per iteration (not a literal), a group
rendezvousing through a `store=` the caller made, a start torn down in the
iteration, a blocking `subprocess.run` of torchrun, a single start.
Why: the previous iteration's group or engine still holds the port, so the
second cell of a sweep (or of a notebook, or the second test case) dies at
start-up with the signature
`torch.distributed.DistNetworkError: ... EADDRINUSE ... port: P` (or
`RuntimeError: Address already in use`) — intermittently, when the first
worker has not yet let the port go.
Example (fails):
    os.environ["MASTER_PORT"] = "29500"
    for config in configs:
        dist.init_process_group("gloo", rank=0, world_size=1)
        train(config)
Use instead:
    os.environ["MASTER_PORT"] = "29500"
    for config in configs:
        dist.init_process_group("gloo", rank=0, world_size=1)
        try:
            train(config)
        finally:
            dist.destroy_process_group()
Options: none.
Fix: none automatic. Either tear the group or engine down in every iteration
(`dist.destroy_process_group()` in a `finally`, `llm.shutdown()`, wait for the
process), or give each iteration a fresh port that is bound and held until the
rendezvous uses it (a `TCPStore(host, 0, is_master=True)` handed over as
`store=`, or a socket bound to port 0 kept open and passed on).
"""
from __future__ import annotations

from collections.abc import Iterator

from portlint.analysis import sockets
from portlint.model.layout import Layout
from portlint.model.problems import Problem

CODE = "PL604"
NAME = "per-cell-rendezvous"
NEEDS_LAYOUT = False
NEEDS = frozenset({"code_files"})


def check(layout: Layout) -> Iterator[Problem]:
    return sockets.problems(layout, CODE)
