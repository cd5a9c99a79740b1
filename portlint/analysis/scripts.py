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
computes (`$((BASE + i))`, the loop's variable) changes per iteration; one it
sets to a literal (`local PORT=8100`) is the same every pass. A command run in
the foreground has exited before the next iteration: no finding. A function's
commands run where the script calls it (`executed`), with the loops and `&`
of the call.

A loop may start the server through another script of the repository (`bash
serve.sh`, `sh`, `./serve.sh`, `source`, `.`): a script that leaves a server
running when it returns, started in the background on a fixed port and not
waited for (`launcher`: a bare `kill $PID` at its end does not wait), leaves it
to each pass of the loop that runs it. `runs` hands over every such run, and
`follow` matches them with the scripts they run, across files and through
scripts that run scripts.
"""
from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet

from portlint.model.extraction import Launcher, RepeatedStart, ScriptRun, Spot
from portlint.model.records import replace
from portlint.model.sites import Command
from portlint.tables import servers

Loop = tuple[str, int, str]  # kind ("for", "while", "until"), line, a `for` loop's variable
Placed = tuple[Command, tuple[Loop, ...], bool]  # the command, the loops around it (outermost first), in the background
Defined = tuple[Command, tuple[Loop, ...], bool, str]  # ... and the function whose body holds it ("": none)
_CALLS_DEEP = 4  # functions calling functions: followed this deep
_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)(?::?-([0-9]+))?\}?")
_KILLS = frozenset(("kill", "pkill", "killall"))
# Words that run the command after them (`nohup vllm serve ...`): the shell reader skips them too.
WRAPPERS = frozenset(("nohup", "exec", "time", "command", "sudo"))
_DECLARATIONS = frozenset(("export", "local", "declare", "readonly", "typeset"))


# A command that runs a script of the repository, as the bytes spell it: the test before any scan.
_RUNS_A_SCRIPT = re.compile(rb"(?:bash|sh|source|\.)[ \t]+(?:-\w+[ \t]+)*(?:[^\s;&|]+\.(?:sh|bash)\b|[\"']?\$)"
                            rb"|\./[^\s;&|/]|/[^\s;&|/]+\.(?:sh|bash)\b")
_HELD = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")  # a script path held in a variable: `bash "$SCRIPT"`
_SPREAD = re.compile(r"\$\{[^}]*\[[@*]\]\}|\$[@*]|\$\{[@*]\}")  # words an array or the arguments spread into
_SHELLS = frozenset(("bash", "sh", "dash", "zsh"))
_SOURCES = frozenset(("source", "."))
_SCRIPT_DIR = re.compile(r"^(?:\$\(.*\)|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*)/")  # `$(dirname "$0")/`, `$DIR/`


def runs_a_script(data: bytes) -> bool:
    """Whether a script may run another script (`bash x.sh`, `./x.sh`, `source x.sh`)."""
    return _RUNS_A_SCRIPT.search(data) is not None


def worth_reading(data: bytes) -> bool:
    """Whether a script is read for PL604 whatever runs it: it may start a server of the table in
    the background (in a loop of its own, or left running for the loop of a script that runs it);
    a server run in the foreground has exited before the next iteration. A script that runs others
    is read only where it may lead to such a script (the per-file stage's `_reached`)."""
    return servers.mentioned(data) and _BACKGROUND.search(data) is not None


# `&` that puts a command in the background: not `&&`, nor a redirection's (`2>&1`, `&>`, `|&`).
_BACKGROUND = re.compile(rb"(?<![&>|<])&(?![&>])")


def executed(defined: Sequence[Defined]) -> list[Placed]:
    """The script's commands in the order they run: a function's body where a command calls it (its
    loops and `&` added to the body's own), not where it is defined; a body no command calls runs
    nowhere. Calls are followed through functions that call functions, never back into one."""
    bodies: dict[str, list[Defined]] = {}
    for item in defined:
        if item[3]:
            bodies.setdefault(item[3], []).append(item)
    if not bodies:
        return _held([(command, loops, background) for command, loops, background, _ in defined])
    found: list[Placed] = []

    def run(items: Iterable[Defined], around: tuple[Loop, ...], background_around: bool, calling: tuple[str, ...]) -> None:
        for command, loops, background, _ in items:
            name = command.words[0] if command.words and not command.assignments else ""
            if name in bodies and name not in calling and len(calling) < _CALLS_DEEP:
                run(bodies[name], (*around, *loops), background_around or background, (*calling, name))
            else:
                found.append((command, (*around, *loops), background_around or background))

    run((item for item in defined if not item[3]), (), False, ())
    return _held(found)


def _held(placed: list[Placed]) -> list[Placed]:
    """The commands a variable holds run where it is run: `$SERVER_CMD &`, `eval "$CMD &"`, `bash -c
    "$CMD" &` run the words the script last gave it (`CMD="vllm serve m --port 8000"`), split as
    the shell splits them, in the background where the run says so. (Only where the variable is
    the whole command: `$PY serve.py` is a program held in a variable, PL603's to resolve.)"""
    result = list(placed)
    for at, (command, loops, background) in enumerate(placed):
        held = _held_command(command.words)
        if held is None:
            continue
        name, ampersand = held
        found = _assignment_before(name, placed, at)
        if found is None:
            continue
        try:
            words = tuple(shlex.split(found[0]))
        except ValueError:
            continue
        if words[-1:] == ("&",):
            words, ampersand = words[:-1], True
        if words:
            result[at] = (replace(command, words=words), loops, background or ampersand)
    return result


def _held_command(words: tuple[str, ...]) -> tuple[str, bool] | None:
    """(variable, whether the run adds `&`) where the command runs what a variable holds."""
    if words[:1] == ("eval",) and len(words) == 2:
        text = words[1].strip()
    elif len(words) == 1:  # also the string of `bash -c "$CMD"`, which the shell reader reads as a script
        text = words[0]
    else:
        return None
    ampersand = text.endswith("&") and not text.endswith("&&")
    match = _HELD.fullmatch(text[:-1].rstrip() if ampersand else text)
    return (match.group(1), ampersand) if match is not None else None


def _assignment_before(name: str, placed: Sequence[Placed], at: int) -> tuple[str, int] | None:
    """The value the script last gave the variable before the command at `at`, as written, and the
    line it gave it on."""
    for command, _, _ in reversed(placed[:at]):
        value = _assigned(command, name)
        if value is not None:
            return value, command.line
    return None


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
        if any(_SPREAD.search(word) for word in command.words):
            return None  # `"${args[@]}"`, `"$@"`: options portlint cannot read may set the port
        return started.server.default, "", command.line
    if started.port is not None:
        return started.port, started.flag, command.line
    value = started.value.rsplit(":", 1)[-1]
    match = _VARIABLE.fullmatch(value)
    if match is None:
        return None  # computed where it is written: `$((BASE + i))`, `$(next_port)`
    name, default = match.group(1), match.group(2)
    if name == loop[2] or _set_in(name, placed, loop):
        return None  # the loop gives it a value of its own (a literal it assigns each pass is not one)
    found = _assignment_before(name, placed, at)
    if found is not None:
        assigned, line = found
        number = _VARIABLE.fullmatch(assigned)
        if assigned.isdigit() and 0 < int(assigned) < 65536:
            return int(assigned), name, line
        if number is not None and number.group(2):  # PORT=${PORT:-8000}
            return int(number.group(2)), name, line
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
    """Whether a command inside the loop sets the variable (or reads it in: `read NAME`) to a value
    that may change per pass: a literal number (`local port=8100`) is the same every pass."""
    for command, loops, _ in placed:
        assigned = _assigned(command, name) if loop in loops else None
        if loop in loops and (assigned is not None and not assigned.isdigit() or
                              command.words[:1] == ("read",) and name in command.words or
                              command.words[:1] == ("for",) and command.words[1:2] == (name,)):
            return True
    return False


def _ending(placed: Sequence[Placed], at: int, loop: Loop, loops: tuple[Loop, ...]) -> tuple[str, str, int] | None:
    """How the rest of the iteration stops the server: None when it waits for it; ("kill", the command,
    its line) when it only kills it; ("", "", 0) when nothing does."""
    kill: tuple[str, str, int] | None = None
    pid = _pid_variable(placed, at)
    for command, around, _ in placed[at + 1:]:
        if loop not in around:
            break  # the iteration is over
        words = command.words
        if not words:
            continue
        if words[0] == "wait" or kill is not None and _polls(command, around, loops):
            return None
        if _is_kill(words) and _kills(words, pid, kill):
            kill = ("kill", " ".join(words), command.line)
    return kill if kill is not None else ("", "", 0)


_PROBES = frozenset(("kill", "ps", "pgrep", "pidof", "curl", "wget", "nc", "lsof", "ss", "netstat", "fuser"))


def _polls(command: Command, around: tuple[Loop, ...], loops: tuple[Loop, ...]) -> bool:
    """Whether the command is the condition of a loop nested in the iteration that probes the
    process or its port (`while kill -0 $pid`, `until ! curl -s localhost:8000/health`): after a kill,
    such a loop runs until the server has let go, as `wait` does."""
    if len(around) <= len(loops) or command.line != around[-1][1]:
        return False
    words = command.words[1:] if command.words[:1] == ("!",) else command.words
    return bool(words) and words[0].rsplit("/", 1)[-1] in _PROBES and (words[0] != "kill" or "-0" in words)


def _is_kill(words: Sequence[str]) -> bool:
    """A command that signals a process (`kill`, `pkill`, `killall`, under `sudo` too): no wait.
    `kill -0` (`-s 0`) sends no signal: it only asks whether the process is alive."""
    if "-0" in words[1:3] or tuple(words[1:3]) == ("-s", "0"):
        return False
    return words[0] in _KILLS or tuple(words[:2]) == ("sudo", "kill")


def _pid_variable(placed: Sequence[Placed], at: int) -> str:
    """The variable the command after a background start keeps its process id in (`PID=$!`), or ""."""
    if at + 1 < len(placed):
        command = placed[at + 1][0]
        for variable, value in command.assignments:
            if not command.words and value.strip("\"'") in ("$!", "${!}"):
                return variable
    return ""


def _kills(words: Sequence[str], pid: str, found: tuple[str, str, int] | None) -> bool:
    """Whether a kill is the one to name for the server, in place of `found`: the first kill,
    until one names the variable `pid` keeps the server's process id in (`kill $PF`, not the
    `kill $TAIL` of a log follower started beside it)."""
    if found is None:
        return True
    return _names_pid(" ".join(words), pid) and not _names_pid(found[1], pid)


def _names_pid(text: str, pid: str) -> bool:
    return bool(pid) and re.search(rf"\$\{{?{re.escape(pid)}\b", text) is not None


def launcher(placed: Sequence[Placed]) -> Launcher | None:
    """The server the script's own code (outside any loop) starts in the background on a fixed port
    and leaves running when it returns: not waited for (`wait`, a trap that waits) after it."""
    top: Loop = ("", 0, "")
    for at, (command, loops, background) in enumerate(placed):
        if loops or not background:
            continue
        started = servers.started(command.words)
        if started is None:
            continue
        fixed = _fixed(started, command, placed, at, top)
        if fixed is None:
            continue
        kill: tuple[str, str, int] | None = None
        pid = _pid_variable(placed, at)
        for later, around, _ in placed[at + 1:]:
            words = later.words
            if around or not words:
                continue
            text = " ".join(words[1:]) if words[0] == "trap" else ""
            if words[0] == "wait" or re.search(r"\bwait\b", text):
                break
            if (_is_kill(words) or re.search(r"\b(?:p?kill)\b", text)) and _kills(words, pid, kill):
                kill = ("kill", " ".join(words), later.line)
        else:
            port, fixed_by, fixed_line = fixed
            stopped, stopped_by, stopped_line = kill or ("", "", 0)
            return Launcher("", started.server.name, "server", port, fixed_by, fixed_line,
                            stopped=stopped, stopped_by=stopped_by, stopped_line=stopped_line)
    return None


def left_by_loop(started: Sequence[RepeatedStart]) -> Launcher | None:
    """The server a loop of the script starts on a fixed port and does not wait for (`starts`): its
    last iteration's is left running, or only killed, when the script returns, so a loop that
    runs the script meets it again (a sweep of configurations over a test script)."""
    if not started:
        return None
    first = started[0]
    return Launcher("", first.what, "server", first.port, first.fixed_by, first.fixed_line,
                    stopped=first.stopped, stopped_by=first.stopped_by, stopped_line=first.stopped_line)


def runs(placed: Sequence[Placed]) -> tuple[ScriptRun, ...]:
    """The commands that run a script of the repository, with the loop around each."""
    found = []
    for at, (command, loops, _) in enumerate(placed):
        script, sourced = _script(command.words)
        held = _HELD.fullmatch(script)
        if held is not None:
            script = _value_of(held.group(1), placed, at)
        if not script:
            continue
        spot = Spot(command.line, command.column, command.end_line or command.line, command.end_column or command.column)
        if not loops:
            found.append(ScriptRun(spot, script, sourced))
            continue
        loop = loops[-1]
        sets = {variable for variable, _ in command.assignments}
        sets |= {name for other, around, _ in placed if loop in around for name in _names_set(other)}
        waited = any(loop in around and other.words[:1] == ("wait",) for other, around, _ in placed[at + 1:])
        found.append(ScriptRun(spot, script, sourced, "for" if loop[0] == "for" else "while", loop[1], loop[2],
                               tuple(sorted(sets | ({loop[2]} if loop[2] else set()))), waited))
    return tuple(found)


def _value_of(name: str, placed: Sequence[Placed], at: int) -> str:
    """The script path a variable was last given before the command at `at` (`SCRIPT=eval/run.sh`,
    also `$(dirname "$0")/run.sh`), where it is written out; "" where it is not."""
    found = _assignment_before(name, placed, at)
    value = found[0] if found is not None else ""
    rest = _SCRIPT_DIR.sub("", value)
    return value if rest.endswith((".sh", ".bash")) and "$" not in rest else ""


def _script(words: tuple[str, ...]) -> tuple[str, bool]:
    """The script a command runs (as written) and whether it is sourced; ("", False) for none."""
    at = 0
    while at < len(words) and (words[at] in WRAPPERS or words[at] == "env"
                               or at and words[0] == "env" and ("=" in words[at] or words[at].startswith("-")
                                                                or _SPREAD.fullmatch(words[at]) is not None)):
        at += 1  # wrappers, and `env`'s assignments (also spread from an array) and options
    if at >= len(words):
        return "", False
    first = words[at]
    if first in _SOURCES or first in _SHELLS:
        if "-c" in words[at + 1:]:
            return "", False  # `bash -c "..."`: a command string, scanned in place
        rest = [word for word in words[at + 1:] if not word.startswith("-")]  # `bash -x x.sh`
        if rest and _HELD.fullmatch(rest[0]):
            return rest[0], first in _SOURCES  # the variable's value, where the script gives it (`runs`)
        if rest and (rest[0].endswith((".sh", ".bash")) or "/" in rest[0]) and not rest[0].startswith("/") \
                and not any(c.isspace() for c in _SCRIPT_DIR.sub("", rest[0])):
            return rest[0], first in _SOURCES
        return "", False
    if "/" in first and not first.startswith("/") and (first.startswith("./") or first.endswith((".sh", ".bash"))
                                                      or _SCRIPT_DIR.match(first)):
        return first, False
    return "", False


def _names_set(command: Command) -> set[str]:
    """The variables a command sets in this shell (`NAME=v`, `export NAME=v`, `read NAME`)."""
    found = {variable for variable, _ in command.assignments} if not command.words else set()
    words = command.words
    if words and words[0] in _DECLARATIONS:
        found |= {word.partition("=")[0] for word in words[1:] if "=" in word}
    if words[:1] == ("read",):
        found |= {word for word in words[1:] if not word.startswith("-")}
    return found


def follow(scripts: Iterable[tuple[str, tuple[Launcher, ...], tuple[ScriptRun, ...]]]
           ) -> dict[str, tuple[RepeatedStart, ...]]:
    """The servers each script's loops start through the scripts they run (`scripts`: each shell
    script's path, its own launcher, its runs), by the path of the script whose loop runs them."""
    scripts = list(scripts)
    own = {path: launchers[0] for path, launchers, _ in scripts if launchers}
    runs_of = {path: found for path, _, found in scripts if found}
    paths = frozenset({*own, *runs_of})
    left: dict[str, tuple[str, Launcher] | None] = {}

    def leaves(path: str, seen: frozenset[str]) -> tuple[str, Launcher] | None:
        """The server a script leaves running when it returns, and the script that starts it."""
        if path in left:
            return left[path]
        found: tuple[str, Launcher] | None = (path, own[path]) if path in own else None
        for run in runs_of.get(path, ()) if found is None else ():
            target = resolve(path, run.script, paths)
            if not run.per and target and target not in seen:
                found = leaves(target, seen | {target})
                if found is not None:
                    break
        left[path] = found
        return found

    result: dict[str, list[RepeatedStart]] = {}
    for path in sorted(runs_of):
        for run in runs_of[path]:
            target = resolve(path, run.script, paths)
            if not run.per or not target or target == path:
                continue
            found = leaves(target, frozenset((path, target)))
            if found is None or run.sourced and run.waited:
                continue
            where, started = found
            if started.fixed_by in run.sets:
                continue  # the loop gives the port a value of its own
            result.setdefault(path, []).append(RepeatedStart(
                run.at, "", started.what, "server", started.port, started.fixed_by, started.fixed_line, run.per,
                run.per_line, run.per_text, through=target, stopped=started.stopped, stopped_by=started.stopped_by,
                stopped_line=started.stopped_line, where=where))
    return {path: tuple(found) for path, found in result.items()}


def resolve(caller: str, written: str, paths: AbstractSet[str]) -> str:
    """The repository script a run names: beside the caller (also `$(dirname "$0")/x.sh`), from
    the root, else the one script whose path ends with it; "" when none is known."""
    here = posixpath.dirname(caller)
    bare = _SCRIPT_DIR.sub("", written)
    candidates = [posixpath.normpath(posixpath.join(here, bare))]
    if bare == written:
        candidates.append(posixpath.normpath(written))
    for candidate in candidates:
        if candidate in paths and not candidate.startswith("../"):
            return candidate
    if "$" in bare:
        return ""
    tail = "/" + posixpath.normpath(bare).lstrip("./")
    ending = [path for path in paths if path.endswith(tail)]
    return ending[0] if len(ending) == 1 else ""
