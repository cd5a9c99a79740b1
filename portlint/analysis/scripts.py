"""Servers started again by a shell loop on one fixed port: PL604's facts in shell scripts.

The shell extractor hands over every simple command with the loops open around
it and whether `&` put it in the background. A command that starts a server or
launcher of the table (portlint.tables.servers) in the background, inside a
`for`/`while`/`until` loop, keeps running when the iteration goes on: unless a
later command of the same iteration waits for it (`wait`, `wait $pid`), the
next iteration starts another on the same port while the first may still hold
it. `kill`/`pkill` stop it without waiting for it to exit. Its port is fixed
when it is a literal, a server's default, or a variable the loop does not set
(`$PORT`, `${PORT:-8000}`) whose value the script gives; a port the loop
computes (`$((BASE + i))`, the loop's variable) changes per iteration. A
command run in the foreground has exited before the next iteration: no finding.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from portlint.model.extraction import RepeatedStart, Spot
from portlint.model.sites import Command
from portlint.tables import servers

Loop = tuple[str, int, str]  # kind ("for", "while", "until"), line, a `for` loop's variable
Placed = tuple[Command, tuple[Loop, ...], bool]  # the command, the loops around it (outermost first), in the background
_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)(?::?-([0-9]+))?\}?")
_KILLS = frozenset(("kill", "pkill", "killall"))
_DECLARATIONS = frozenset(("export", "local", "declare", "readonly", "typeset"))


def starts(placed: Sequence[Placed]) -> tuple[RepeatedStart, ...]:
    """The servers a loop of the script starts in the background on a fixed port and does not wait for."""
    if not any(background and loops for _, loops, background in placed):
        return ()
    found = []
    for at, (command, loops, background) in enumerate(placed):
        if not (background and loops):
            continue
        started = servers.started(command.words)
        if started is None:
            continue
        loop = loops[-1]
        fixed = _fixed(started, command, placed, at, loop)
        if fixed is None:
            continue
        ending = _ending(placed, at, loop, loops)
        if ending is None:
            continue
        port, fixed_by, fixed_line = fixed
        stopped, stopped_by, stopped_line = ending
        found.append(RepeatedStart(
            Spot(command.line, command.column, command.end_line or command.line, command.end_column or command.column),
            "", started.server.name, "server", port, fixed_by, fixed_line, "for" if loop[0] == "for" else "while",
            loop[1], loop[2],
            stopped=stopped, stopped_by=stopped_by, stopped_line=stopped_line))
    return tuple(found)


def _fixed(started: servers.Started, command: Command, placed: Sequence[Placed], at: int,
           loop: Loop) -> tuple[int, str, int] | None:
    """(port, what fixes it, its line), or None where the loop may change it or nothing says which it is."""
    if not started.flag:
        return started.server.default, "", command.line
    if started.port is not None:
        return started.port, started.flag, command.line
    value = started.value.rsplit(":", 1)[-1]
    match = _VARIABLE.fullmatch(value)
    if match is None:
        return None  # computed where it is written: `$((BASE + i))`, `$(next_port)`
    name, default = match.group(1), match.group(2)
    if name == loop[2] or _set_in(name, placed, loop):
        return None
    for command_before, _, _ in reversed(placed[:at]):
        assigned = _assigned(command_before, name)
        if assigned is not None:
            number = _VARIABLE.fullmatch(assigned)
            if assigned.isdigit() and 0 < int(assigned) < 65536:
                return int(assigned), name, command_before.line
            if number is not None and number.group(2):  # PORT=${PORT:-8000}
                return int(number.group(2)), name, command_before.line
            return None
    if default is not None and 0 < int(default) < 65536:
        return int(default), name, command.line
    return None


def _assigned(command: Command, name: str) -> str | None:
    """The value the command gives the variable (`NAME=v`, `export NAME=v`), if it does."""
    for variable, value in command.assignments:
        if variable == name and not command.words:
            return value
    words = command.words
    if words and words[0] in _DECLARATIONS:
        for word in words[1:]:
            variable, equals, value = word.partition("=")
            if variable == name and equals:
                return value
    return None


def _set_in(name: str, placed: Sequence[Placed], loop: Loop) -> bool:
    """Whether a command inside the loop sets the variable (or reads it in: `read NAME`)."""
    for command, loops, _ in placed:
        if loop in loops and (_assigned(command, name) is not None or
                              command.words[:1] == ("read",) and name in command.words or
                              command.words[:1] == ("for",) and command.words[1:2] == (name,)):
            return True
    return False


def _ending(placed: Sequence[Placed], at: int, loop: Loop, loops: tuple[Loop, ...]) -> tuple[str, str, int] | None:
    """How the rest of the iteration stops the server: None when it waits for it; ("kill", the command,
    its line) when it only kills it; ("", "", 0) when nothing does."""
    kill: tuple[str, str, int] | None = None
    for command, around, _ in placed[at + 1:]:
        if loop not in around:
            break  # the iteration is over
        words = command.words
        if not words:
            continue
        if words[0] == "wait":
            return None
        if kill is None and (words[0] in _KILLS or words[:2] == ("sudo", "kill")):
            kill = ("kill", " ".join(words), command.line)
    return kill if kill is not None else ("", "", 0)
