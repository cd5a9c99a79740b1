"""A tool is started without a port option, and its default port lands in the wrong place.

What it does: finds the commands that start a tool of portlint's table of
implicit port defaults (`portlint/tables/tool_defaults.yaml`: `ray start`, `torchrun`,
a launcher setting `MASTER_ADDR` for torch.distributed): in shell scripts and
heredoc bodies, `bash -c`/`sh -c` and `ssh host "..."` strings, YAML
`command:`/`args:` strings, SkyPilot `run:`/`setup:` scripts, Python command
strings (`cmd = f"ray start ..."`, `subprocess.run("...")`) and KubeRay
`rayStartParams`, also when a variable holds the program (`RAY_BIN=$(which
ray)`, then `"$RAY_BIN" start`). It flags each command that leaves out an
option whose default port reaches the ephemeral range, is picked at random when
the tool starts (which draws it from the ephemeral range), or lies in no band
of a layout a person declared (a single-node torchrun's store is its job's own:
only the floor judges it). A layout whose every band `portlint init` inferred
(`inferred: true`) describes what the repository writes, not where its ports
go: a default outside it leaves no chosen lane, so only the floor and the
random ports are judged; a default inside an inferred band (the port the
repository writes for that service) is in a band. An option passed through a variable
(`--min-worker-port=${MIN_WORKER_PORT}`) is given, with the variable's default
as its value. One problem per command, at the command, naming every default
left in force and the option to set. A command run in a container that keeps
its own network namespace (a container of a pod spec, or a KubeRay group,
without `hostNetwork: true`; a compose service without `network_mode: host`, or
a script such a service mounts; a command run through `docker exec`, `docker run`
without `--network host`, `docker compose exec`/`run` or `kubectl exec`, its
script string too) is not judged: a port bound inside a
container's own network namespace is not this repository's port (the same
principle as PL101's), its defaults meet no other service of the layout and no
host's floor, and KubeRay's operator fills in the ports it depends on itself
(`--metrics-export-port=8080`, `--dashboard-agent-listen-port=52365`).
Why: a default nobody wrote down is outside every check: `ray start --head`
without `--min-worker-port/--max-worker-port` keeps Ray's 10002-19999, straight
across a 9000 ephemeral floor, and a randomly picked port is probed, released
and bound later, which loses the race to outgoing connections on big clusters.
Example (fails, floor 9000): `ray start --head --port=1200` (worker ports
10002-19999, dashboard agent 52365, node manager at random...).
Use instead: `ray start --head --port=1200 --min-worker-port=2000 --max-worker-port=2999
--node-manager-port=1301 --object-manager-port=1303 ...` (every option the message names).
Options: `ephemeral_floor`, `bands`.
Fix: none automatic; pass each option named in the message, with a port of the
layout (through a variable the layout binds, as ray.sub does).
"""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator

from portlint.model.layout import Layout
from portlint.model.problems import Problem
from portlint.model.sites import Command, Site
from portlint.tables import tool_defaults
from portlint.tables.tool_defaults import Invocation, PortDefault

CODE = "PL603"
NAME = "implicit-tool-default"
NEEDS_LAYOUT = False
NEEDS = frozenset({"commands"})

_RANDOM = "picked at random, from the ephemeral range"
_REFERENCE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)(?::?[-=](\d+))?\}?")


class _Script:
    """One file's commands: the tools they run, the variables they set, its sites by name."""

    def __init__(self, commands: list[Command], sites: list[Site], tools: tuple[tool_defaults.Tool, ...]) -> None:
        commands = tool_defaults.programs_resolved(commands)
        self.runs = [run for command in commands for run in tool_defaults.invocations(tools, command)]
        self.variables = set().union(*(tool_defaults.variables_set(c) for c in commands))
        self.sites = sites

    def value(self, command: Command, option: str, text: str) -> int | None:
        """A given option's value: digits, a variable's default (`${X}`, `${X:-N}`), or computed `$((...))`."""
        if text.isdigit():
            return int(text)
        reference = _REFERENCE.fullmatch(text)
        if reference:
            named = [s for s in self.sites if reference.group(1) in s.names and not s.derived]
            before = [s for s in named if s.line <= command.line]
            if named:
                return (before[-1] if before else named[0]).value
            return int(reference.group(2)) if reference.group(2) else None
        computed = [
            s for s in self.sites
            if s.derived and s.name == option and command.line <= s.line <= (command.end_line or command.line)
        ]
        return computed[0].value if computed else None


def check(layout: Layout) -> Iterator[Problem]:
    if not layout.commands:
        return
    tools = tool_defaults.load()
    by_path: dict[str, list[Command]] = defaultdict(list)
    for command in layout.commands:
        if not command.pod_network and not layout.in_container(command.path):
            by_path[command.path].append(command)
    sites: dict[str, list[Site]] = defaultdict(list)
    for site in layout.code_sites:
        if site.path in by_path:
            sites[site.path].append(site)
    for path, commands in by_path.items():
        script = _Script(commands, sorted(sites[path], key=lambda s: (s.line, s.column)), tools)
        tools_run = {run.tool.name for run in script.runs if run.tool.runs}
        launchers_judged = set()
        for run in script.runs:
            tool = run.tool
            if tool.name in launchers_judged or not tools_run.isdisjoint(tool.unless_runs):
                continue
            if tool.sets:
                launchers_judged.add(tool.name)  # a launcher's variable is judged once per file
            left_out = [found for port in tool.ports if (found := _left_out(layout, script, run, port))]
            if left_out:
                yield _problem(run, left_out)


def _left_out(layout: Layout, script: _Script, run: Invocation, port: PortDefault) -> tuple[str, str] | None:
    """(why, what) for a port the command leaves to a default that lands in the wrong place, else None."""
    if port.only_with and not any(run.gives(option) for option in port.only_with):
        return None
    if any(run.gives(option) for option in port.unless):
        return None
    low_given = port.flag in run.options or not script.variables.isdisjoint(port.env)
    high_given = not port.high_flag or port.high_flag in run.options
    if low_given and high_given:
        return None
    missing = "/".join(n for n, given in ((port.flag or port.env[0], low_given), (port.high_flag, high_given)) if not given)
    default = port.default_via(run.command.via)
    if default is None:
        return _RANDOM, missing
    in_force = _in_force(script, run, port, default, low_given, high_given)
    if max(in_force) >= layout.ephemeral_floor:
        why = f"in the ephemeral range ({layout.ephemeral_floor}+)"
    elif (
        layout.decided and port.shares_the_layout(run)
        and not any(b.contains(min(in_force)) and b.contains(max(in_force)) for b in layout.bands)
    ):
        why = "outside every band of the layout"
    else:
        return None
    if not port.high_flag:
        return why, f"{missing} {default[0]}"
    if low_given == high_given:
        return why, f"{missing} {default[0]}-{default[1]}"
    shown = f"{missing} {default[1] if low_given else default[0]}"
    return why, shown + (f" ({min(in_force)}-{max(in_force)} in force)" if len(in_force) == 2 else "")


def _in_force(
    script: _Script, run: Invocation, port: PortDefault, default: tuple[int, int], low_given: bool, high_given: bool
) -> list[int]:
    """The ports in force, low to high: given values where known, defaults where not given."""
    ports = []
    for option, fallback, given in ((port.flag, default[0], low_given), (port.high_flag, default[1], high_given)):
        if not given:
            ports.append(fallback)
        elif option:
            value = script.value(run.command, option, run.options.get(option, ""))
            if value is not None:
                ports.append(value)
    return ports if port.high_flag else ports[:1]


def _problem(run: Invocation, left_out: list[tuple[str, str]]) -> Problem:
    command = run.command
    by_why: dict[str, list[str]] = defaultdict(list)
    for why, what in left_out:
        by_why[why].append(what)
    settings = sum(what.split(" ", 1)[0].count("/") + 1 for _, what in left_out)
    count = "1 setting to its default" if settings == 1 else f"{settings} settings to their defaults"
    reasons = "; ".join(f"{', '.join(whats)} {why}" for why, whats in by_why.items())
    tool = f"{run.tool.name} (run by {command.via})" if command.via else run.tool.name
    message = f"{tool} leaves {count}: {reasons}; set {'it' if settings == 1 else 'them'}"
    return Problem(
        command.path, command.line, command.column, CODE, message, None,
        command.end_line or command.line, command.end_column or command.column,
    )
