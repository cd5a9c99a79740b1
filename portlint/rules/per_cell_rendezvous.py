"""A process group or engine is started per iteration on one fixed rendezvous port, and never torn down.

What it does: flags code that, once per iteration (of a Python loop or
comprehension, of a parametrized test's cases, of a test class's `setUp`, of a
shell `for`/`while`/`until` loop), starts something that listens on a port
that does not change per iteration, and ends the iteration without a teardown
that waits for it to exit. Listeners: `torch.distributed.init_process_group(...)`,
`vllm.LLM(...)`, `sglang.Engine(...)`, `mp.spawn(worker, join=False)` of a
worker that starts a process group, and the servers and launchers of the table
portlint/tables/servers.yaml (`vllm serve`, `python -m
vllm.entrypoints.openai.api_server`, `python -m sglang.launch_server`, `trl
vllm-serve`, uvicorn, tritonserver, torchrun, `accelerate launch`, deepspeed,
`kubectl port-forward svc/x 8080:80`, which listens on 8080 here), and any other
program handed a port by a long option that names its own (`some-cli serve
--port 8000`, `python -m pkg.server --http-port=8000`; not a short `-p`, not a
range's bound, not the far end's port such as `--server-port` or
`--remote-port`, not a client such as curl or ssh), started by
`subprocess.Popen`, asyncio's subprocesses, a backgrounded `os.system("... &")`
or, in a shell loop, `cmd &`. The port is fixed when it is
a literal (`MASTER_PORT`/`VLLM_PORT` set to one, `init_method="tcp://host:N"`,
`--port N`, an engine's `port=N`), a name bound to one outside the loop (a
constant, a parameter's default, `PORT=8000` in a script, or set in the loop to
the same literal every pass), or the server's own default. Teardowns:
`destroy_process_group()`, `llm.shutdown()`, `del llm` plus `gc.collect()`,
`proc.wait()`/`communicate()` (after a kill), `with Popen(...)`, `ctx.join()`,
`wait $pid` in a shell loop (or, after the kill, a loop that polls the process
or its port until it has gone: `while kill -0 $pid`, `while curl -s
host:8000/health`); for `setUp`, in
`tearDown`. A kill without a wait (`proc.terminate()`, `os.killpg(...)`,
`pkill -f ...`) is no teardown: the process may still hold the port (`kill -0`
stops nothing: it asks whether the process lives). A server's default is its
port only where no option may set it: options spread from an array or the
script's arguments (`"${args[@]}"`, `"$@"`) may, so nothing is reported. Where the
next iteration runs after one that raised (a parametrized test's next case, a
loop that catches what its body raises), a teardown must be in a `finally`.
Starts and teardowns inside the module's own helpers called in the loop count,
as do those of a closure it calls (a function defined inside another) and of a
function a `threading.Thread(target=...)` runs; a thread runs on beside the
iteration, so even a blocking run in it is a start, ended by stopping it and
`thread.join()`. In a shell script, a function's commands run where a command
calls it (`start_server() { vllm serve m --port 8100 & }` called in a loop, and
stopped by another function's `kill`), not where it is defined; a heredoc's
lines are the script it writes, never a loop of this one; a command held in a
variable (`CMD="vllm serve m --port 8000"`) runs where `$CMD &` or `eval "$CMD
&"` runs it. A shell loop that
runs another script of the repository
(`bash x.sh`, `sh`, `./x.sh`, `source`, `.`, also a path the script put in a
variable, `bash "$SCRIPT"`; through scripts that run scripts)
starts what that script leaves running when it returns: a server it put in the
background on a fixed port and did not wait for (a bare `kill $PID` at its end
does not wait), also in a loop of its own, whose last server it only killed;
a port the loop gives a value per run (`PORT=$((8000 + i)) bash x.sh`) is not
fixed.
The message names the port, where it was fixed, the loop, and the missing
teardown or the kill that does not wait.
Not flagged: a port that changes per iteration (the loop's variable, computed
in the loop), a group rendezvousing through a `store=` the caller made, a
start torn down in the iteration, a blocking run (`subprocess.run`,
`os.system` without `&`, a shell command in the foreground: it has exited
before the next iteration), `torchrun --standalone`, `setUpClass`, a single start.
Why: the previous iteration's group, engine or server still holds the port, so
the second cell of a sweep (or of a notebook, or the second test case) dies at
start-up with the signature
`torch.distributed.DistNetworkError: ... EADDRINUSE ... port: P` (or
`RuntimeError: Address already in use`) — intermittently, when the first
holder has not yet let the port go.
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
Fix: none automatic. Either tear the group, engine or server down in every
iteration and wait for it (`dist.destroy_process_group()` in a `finally`,
`llm.shutdown()`, `proc.terminate(); proc.wait()` in a `finally`, `kill $pid;
wait $pid`), or give each iteration a fresh port that is bound and held until
the rendezvous uses it (a `TCPStore(host, 0, is_master=True)` handed over as
`store=`, or a socket bound to port 0 kept open and passed on).
"""
from __future__ import annotations

from collections.abc import Iterator

from portlint.analysis import rendezvous
from portlint.model.extraction import RepeatedStart
from portlint.model.layout import Layout
from portlint.model.problems import Problem

CODE = "PL604"
NAME = "per-cell-rendezvous"
NEEDS_LAYOUT = False
NEEDS = frozenset({"code_files"})
# What ends each kind of start, and what its holder is called when the code gives it no name.
_TEARDOWNS = {"group": "destroy_process_group()", "engine": "{var}.shutdown() (or `del {var}` and gc.collect())",
              "process": "{var}.wait()", "spawn": "{var}.join()"}
_HOLDERS = {"group": "", "engine": "llm", "process": "proc", "spawn": "context", "thread": "thread"}


def check(layout: Layout) -> Iterator[Problem]:
    for path, starts in rendezvous.repeated(layout.code_files).items():
        for start in starts:
            at = start.at
            yield Problem(path, at.line, at.column, CODE, message(start), None, at.end_line, at.end_column)


def message(start: RepeatedStart) -> str:
    culprit = "the script" if not start.function else \
        start.function if start.function == "module code" else f"{start.function}()"
    in_loop = start.per not in ("parametrized", "setup")
    each = "iteration" if in_loop else "case"
    if start.kind in ("server", "thread") or start.stopped or not start.fixed_by:
        return _launched(start, culprit, each)
    teardown = _TEARDOWNS[start.kind].format(var=start.holder or _HOLDERS[start.kind])
    via = f" through {start.through}()" if start.through else ""
    return (
        f"{culprit} starts {start.what}{via} on the fixed rendezvous port {start.port} "
        f"({start.fixed_by} at line {start.fixed_line}) in {_repeated_by(start)}, "
        f"and nothing ends it before the next {each}: no {teardown}; "
        f"the next one fails with EADDRINUSE on port {start.port} while this one still holds it; tear it down in "
        f"every {each}, or give each one a fresh port that is bound and held"
    )


def _repeated_by(start: RepeatedStart) -> str:
    """The loop, comprehension or test that runs the start again."""
    if start.per == "while":
        return f"the `while` loop of line {start.per_line}"
    if start.per == "for":
        return f"the `for {start.per_text}` loop of line {start.per_line}"
    if start.per == "comprehension":
        return f"the comprehension of line {start.per_line}"
    if start.per == "parametrized":
        return f"each parametrized case of {start.per_text}() (@pytest.mark.parametrize, line {start.per_line})"
    setup = start.function.rsplit(".", 1)[-1]
    return f"{setup}() of {start.per_text}, run before each of its tests"


def _launched(start: RepeatedStart, culprit: str, each: str) -> str:
    """A server or launcher started again per iteration, or a start stopped without a wait."""
    via = f" through {start.through}()" if start.through else ""
    if start.kind == "thread":
        via = f" in a thread running {start.through}()"
    elif start.where:  # a script a shell loop runs
        via = f" through {start.through}" + (f" (which runs {start.where})" if start.where != start.through else "")
    of = f" of {start.where}" if start.where else ""
    fixed = f"{start.fixed_by} at line {start.fixed_line}{of}" if start.fixed_by else \
        f"its default: the command at line {start.fixed_line}{of} sets no port"
    if start.stopped == "kill":
        ending = f"{start.stopped_by} at line {start.stopped_line}{of} stops it without waiting for it to exit"
    elif start.stopped == "raise":
        ending = f"{start.stopped_by} at line {start.stopped_line} is skipped when the {each} raises"
    else:
        ending = f"nothing stops it before the next {each}"
    holder = start.holder or _HOLDERS.get(start.kind) or "proc"
    if not start.function and start.where:  # a script a shell loop runs
        teardown = f"wait for it to exit before {start.where} returns (`kill $pid; wait $pid`)"
    elif not start.function:  # a shell script's loop
        teardown = "wait for it to exit (`kill $pid; wait $pid`)"
    elif start.kind in ("server", "process"):
        teardown = f"wait for it to exit ({holder}.wait() after the kill, in a `finally`)"
    elif start.kind == "thread":
        teardown = f"stop it and wait for it to exit ({holder}.join() after the stop, in a `finally`)"
    else:
        teardown = "tear it down in a `finally`"
    return (
        f"{culprit} starts {start.what}{via} on the fixed port {start.port} ({fixed}) in {_repeated_by(start)}, "
        f"and {ending}: the next {each} fails with EADDRINUSE on port {start.port} while this one still holds it; "
        f"{teardown} in every {each}, or give each one a fresh port"
    )
