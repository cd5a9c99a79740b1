"""What the per-file stage gives of one file: its sites, suppression comments, commands,
what the code analyses found, or why it could not be parsed."""
from __future__ import annotations

from typing import Generic, TypeVar

from portlint.model.records import Struct
from portlint.model.sites import Command, Site

# What the code analyses export of a module for the modules that import it (the analysis's own
# record, portlint.analysis.sockets.imports.Export, which sits above the model): named where a result
# is decoded from the cache (portlint.stages.perfile.RESULT).
Export = TypeVar("Export")

class Spot(Struct, frozen=True):
    """Where a piece of code is: 1-based lines, 1-based columns in characters."""

    line: int
    column: int
    end_line: int
    end_column: int


class Bound(Struct, frozen=True):
    """How a socket came to hold a port: bound in place, by a server's constructor, by a call of a
    helper (the repository's or a library's), or checked by a probe that bound and released it."""

    at: Spot  # the bind, the constructor or the call
    port: str  # "zero" (port 0: the kernel picks), "scanned" (a candidate of a scan), "chosen"
    how: str  # "bind", "server", "call" (a helper that binds) or "probe"
    called: str = ""  # the call's dotted name as written ("" when it has none)


class Released(Struct, frozen=True):
    """How the socket was let go before its port was handed on."""

    at: Spot  # the `close()`, the `with` statement, the `del`, the helper's or the probe's call
    how: str  # "close", "with", "del", "helper" (a function that closes it), "probe" (it closes what it bound),
    # "library" (a library's helper that binds, closes and returns the number)
    helper: str = ""  # the helper or probe, as `name()`


class HandedOn(Struct, frozen=True):
    """How the port number left the function."""

    at: Spot | None  # None: at the function's end
    how: str  # "return", "store", "pass" (to a call) or "yield"
    text: str = ""  # where it was stored, or the function it was passed to, as written
    launches: bool = False  # passed to a call that starts another program (subprocess.Popen, os.system, ...)


class PortHandOff(Struct, frozen=True):
    """A port number handed on (returned, stored, passed on) by a function while the socket that held
    it was released on that path, or goes out of scope when the function returns (PL601/PL602's facts)."""

    function: str  # the function that lets the port go, as `name` or `Class.method`; "module code"
    bound: Bound
    released: Released | None  # None: nothing closes the socket, it goes out of scope
    handed: HandedOn
    bound_in: str = ""  # another method of the class bound the socket (kept on `self`): its name
    checked_only: bool = False  # a chosen port checked once by a probe, not a socket of this function
    serves: bool = False  # the socket serves (accept, serve_forever, ...) somewhere in the function


class RepeatedStart(Struct, frozen=True):
    """Something that listens on a fixed port, started once per iteration (of a loop, a comprehension,
    a parametrized test's cases, a test class's tests) and left running at the iteration's end (PL604's facts)."""

    at: Spot  # the start: the call, or the helper's call it happens in
    function: str  # the function (or "module code") whose code repeats it
    what: str  # what listens: "a process group", "a vLLM engine", "torchrun", ...
    kind: str  # "group", "engine", "process", "spawn", "server" (a server or launcher command)
    port: int  # the fixed port
    fixed_by: str  # what fixes it: "init_method", "MASTER_PORT", "--master-port", "port=", ...
    fixed_line: int
    per: str  # "for", "while", "comprehension", "parametrized", "setup", "shell-for", "shell-while"
    per_line: int  # the loop's, the comprehension's or the test function's line
    per_text: str = ""  # the loop's target as written; the test function; the class of a `setUp`
    through: str = ""  # the helper (of this module or another) that starts it, as `name`
    holder: str = ""  # the name the engine or process is kept in
    stopped: str = ""  # "kill": stopped without a wait for it to exit; "raise": its teardown is skipped when
    # the iteration raises (and the next one runs); "": nothing stops it
    stopped_by: str = ""  # the call that kills it or tears it down, as written
    stopped_line: int = 0
    where: str = ""  # the file `fixed_line` and `stopped_line` are in, when it is another script (`through`'s)


class Launcher(Struct, frozen=True):
    """A module's function that starts a listener and leaves it running when it returns: what a call of it
    from another module starts (PL604 follows it as it follows the module's own helpers)."""

    name: str
    what: str
    kind: str
    port: int = 0  # the fixed port; 0: the port is what `parameter` is given
    fixed_by: str = ""
    fixed_line: int = 0
    parameter: str = ""  # the parameter that sets the port
    position: int = -1  # its place among the positional arguments
    default: int = 0  # its default when that is a literal port (0: none)
    stopped: str = ""  # a script's: "kill" when it stops it without a wait (RepeatedStart.stopped), else ""
    stopped_by: str = ""
    stopped_line: int = 0


class ScriptRun(Struct, frozen=True):
    """A command of a shell script that runs another script of the repository (`bash x.sh`, `./x.sh`,
    `source x.sh`): what PL604 follows into the script it runs."""

    at: Spot
    script: str  # the script's path as written, expansions kept (`$(dirname "$0")/serve.sh`)
    sourced: bool  # `source x.sh` / `. x.sh`: it runs in this shell, its jobs are this script's
    per: str = ""  # "for" or "while" when a loop runs it ("": the script's own code)
    per_line: int = 0
    per_text: str = ""  # a `for` loop's variable
    sets: tuple[str, ...] = ()  # the variables the run or its loop gives a value of their own (`PORT=... bash x.sh`)
    waited: bool = False  # a later command of the same iteration waits (`wait`): a sourced script's jobs end


class Facts(Struct, Generic[Export], frozen=True):
    """What the code analyses found in one file, and its helpers' summaries for other modules."""

    handoffs: tuple[PortHandOff, ...] = ()
    starts: tuple[RepeatedStart, ...] = ()
    exports: tuple[Export, ...] = ()
    launchers: tuple[Launcher, ...] = ()  # its functions that leave a listener running
    waiters: tuple[str, ...] = ()  # its functions that wait for a process to exit (a teardown to their callers)
    runs: tuple[ScriptRun, ...] = ()  # a shell script's: the repository's scripts it runs


class Suppression(Struct, frozen=True):
    """`portlint: ignore` or `portlint: ignore[PL101,PL301]` inside one comment."""

    line: int
    column: int
    codes: tuple[str, ...]  # empty: every code
    start: int  # byte span of the whole comment, for PL002's fix
    end: int


class Extraction(Struct, Generic[Export], frozen=True):
    sites: tuple[Site, ...] = ()
    suppressions: tuple[Suppression, ...] = ()
    error: str = ""
    error_line: int = 1
    error_column: int = 1
    commands: tuple[Command, ...] = ()
    sockets: Facts[Export] | None = None  # Python: what the code analyses found, plain data
    note: str = ""  # the file is skipped, not broken: why (a template that is YAML only once rendered)
    # Repository paths (files or folders) a compose service mounts into a container that keeps its
    # own network namespace: the ports they bind are bound there (portlint.stages.layout.ownership).
    mounts: tuple[str, ...] = ()
    # Python: (module, function, setting) for each function of another module called to fill a
    # setting where it is unset: that function's defaults are the setting's fallback (`Site.fills`).
    fills: tuple[tuple[str, str, str], ...] = ()


class CodeFile(Struct, frozen=True):
    """A Python file the code-pattern rules read (PL601/PL602/PL604): what the extraction found in it, and
    its bytes for the files that call helpers of other modules."""

    path: str
    kind: str
    data: bytes
    sockets: Facts | None = None  # what the code analyses found in it, computed by the extraction
