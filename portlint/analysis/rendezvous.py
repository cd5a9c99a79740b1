"""Process groups and engines started again and again on one fixed rendezvous port: the analysis behind PL604.

A *start* is a call that makes a process listen on a rendezvous port and keeps
it listening: `torch.distributed.init_process_group(...)` (its TCP store),
`vllm.LLM(...)`, `sglang.Engine(...)`, `subprocess.Popen` of `torchrun`, or
`mp.spawn(worker, join=False)` of a worker that starts a process group. Its
port is *fixed* when it is a constant: `MASTER_PORT` (or `VLLM_PORT`) set to a
literal in `os.environ` (in the function, the caller or the module),
`init_method="tcp://host:N"`, `--master-port N` on the command line, a
`port=`/`nccl_port=` keyword of an engine.

A start repeated per iteration — in a loop or comprehension, called through a
module function or a closure (a function defined inside another), run by a
`threading.Thread(target=...)` (a blocking run in a thread goes on beside the
iteration: only `thread.join()` ends it), in a parametrized test, or in a test class's `setUp` (whose
teardown belongs in `tearDown`) — without its teardown in the same
iteration (`destroy_process_group()`, `engine.shutdown()`, `del engine` and
`gc.collect()`, `proc.wait()`/`communicate()`/`kill()`, `ctx.join()`) is a
finding: the second iteration finds the port still held and dies with
EADDRINUSE. A port that changes per iteration (not a literal) is not fixed.
"""
from __future__ import annotations

import ast
import functools
import re
import shlex
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from portlint.analysis import scripts
from portlint.analysis.tree import (
    FUNCTIONS,
    INERT,
    Positions,
    children,
    dotted,
    first_line,
    holding,
    holds_hot,
    imports_of,
    lines_holding,
    module_names,
    searchable,
    spelling,
)
from portlint.model.extraction import CodeFile, Facts, Launcher, RepeatedStart, Spot
from portlint.model.records import Struct, replace
from portlint.model.source import line_starts
from portlint.speed.needles import holds, of_last
from portlint.tables import servers

# One test per alternative: the literal it opens with (portlint.speed.needles finds them all in one
# pass, and most files hold none of them), then the pattern for the rest, only where the literal
# is. One pattern opening with an alternation is many times slower: `re` cannot scan for a literal then.
# A start is a call of a name (`_start`: `dist.init_process_group`, `sglang.Engine (`), not of a
# longer one (`FSDPEngine(`, `_spawn(`); torchrun is a word of a command.
_STARTS = tuple((literal, re.compile(pattern)) for literal, pattern in (
    (b"init_process_group", rb"init_process_group(?<![\w]init_process_group)"),
    (b"LLM", rb"LLM(?<![\w]LLM)\s*\("), (b"Engine", rb"Engine(?<![\w]Engine)\s*\("), (b"spawn", rb"spawn(?<![\w]spawn)\s*\("),
    (b"torchrun", rb"torchrun"), (b"torch.distributed.", rb"torch\.distributed\.(?:run|launch)"),
))
# A start is judged only on a literal port, so a file is read only where one is
# written next to what would carry it: an environment key with its value, a
# tcp:// address, a launcher flag, or a port keyword (the literal's shapes: `_int`,
# `_tcp_port`, `_FLAGS`, `_ENGINE_PORT_KEYWORDS`).
_S = rb" \t\n\r\f\v"  # what `re`'s \s is in a bytes pattern (RE2's lacks \v)
_PORTS = (
    (b"MASTER_PORT", rb"MASTER_PORT[\"']?\]?[%s]*[=:,][%s]*(?:str\(|int\()?[\"']?\d" % (_S, _S)),
    (b"VLLM_PORT", rb"VLLM_PORT[\"']?\]?[%s]*[=:,][%s]*(?:str\(|int\()?[\"']?\d" % (_S, _S)),
    (b"tcp://", rb"tcp://[^\"'%s]*:\d" % _S),
    (b"--master", rb"--master[-_]port[=%s\"',]*(?:[^\"'%s]*:)?\d" % (_S, _S)),
    (b"--rdzv", rb"--rdzv[-_]endpoint[=%s\"',]*(?:[^\"'%s]*:)?\d" % (_S, _S)),
    (b"port", rb"port[%s]*=[%s]*(?:str\(|int\()?[\"']?\d" % (_S, _S)),
)


@functools.cache
def _port_patterns() -> tuple[tuple[bytes, Any], ...]:
    """`_PORTS` compiled by RE2, whose search is linear: with `re`, a host part (`[^"'\\s]*:`)
    was scanned again from every `tcp://` or `--master-port` of one long word, and from every
    split of the separators before it (quadratic in the word's length)."""
    import re2

    from portlint.speed.needles import re2_options

    return tuple((literal, re2.compile(pattern, re2_options())) for literal, pattern in _PORTS)


_ENV_PORTS = ("MASTER_PORT", "VLLM_PORT")
_ENGINE_PORT_KEYWORDS = ("port", "nccl_port", "master_port", "dist_init_port")
_WAITS = frozenset(("wait", "communicate", "kill", "terminate", "join", "shutdown", "close"))
_ENGINE_TEARDOWNS = frozenset(("destroy_model_parallel", "destroy_distributed_environment",
                               "cleanup_dist_env_and_memory", "kill_process_tree"))
_PROCESS_WAITS = frozenset(("wait", "communicate", "wait_procs"))
# Calls that stop a process without waiting for it to exit (it may still hold its port a while).
_KILLS = frozenset(("kill", "terminate", "send_signal"))
_KILL_CALLS = frozenset(("os.kill", "os.killpg", "psutil.Process"))
_KILL_COMMANDS = frozenset(("kill", "pkill", "killall"))
_PART = re.compile(r"\{#\d+\}")  # a placeholder for an expression in a launched command's words


class Start(Struct, frozen=True):
    """A start found in a function: what, where, its fixed port and where that port was written."""

    node: ast.Call
    what: str  # "a process group", "a vLLM engine", ...
    port: int | None  # None: only the environment can fix it (MASTER_PORT)
    fixed_by: str  # what fixes the port: "init_method", "MASTER_PORT", "--master-port", "port=", ...
    fixed_line: int
    kind: str  # "group", "engine", "process", "spawn"
    var: str = ""  # the name the engine or process was bound to
    variables: tuple[str, ...] = ()  # with no port yet: the environment variables that would fix it


@of_last
def worth_reading(data: bytes) -> bool:
    """Python that may start a listener on a fixed port: a start next to a literal port, or a server or
    launcher of the table (portlint.tables.servers: its default port is fixed) next to a call that may
    launch it and leave it running: `Popen`, an asyncio subprocess, a blocking run of a command put
    in the background (`... &"`) or one in a thread (a thread without a launch starts no server).
    A module whose only launches are blocking runs in the foreground starts nothing that outlives
    its call (`_launched`)."""
    if servers.may_start(data) and _LAUNCH.search(data) is not None and _OUTLIVES.search(data) is not None:
        return True
    return any(holds(data, literal) and pattern.search(data) for literal, pattern in _STARTS) and \
        any(holds(data, literal) and pattern.search(data) for literal, pattern in _port_patterns())


def starts(data: bytes, tree: ast.Module, externals: dict[str, Launcher] | None = None,
           waiters: frozenset[str] = frozenset()) -> tuple[RepeatedStart, ...]:
    """The starts of one file repeated per iteration on a fixed port and left running at its end
    (for each start, the first loop or case around it that repeats it); `externals`: the functions of
    other modules it calls that start a listener, `waiters` those that wait for a process."""
    if not externals and not worth_reading(data):
        return ()
    return _repeated_starts(data, _Module(data, tree, externals, waiters))


def read(data: bytes, tree: ast.Module) -> tuple[tuple[RepeatedStart, ...], tuple[Launcher, ...], tuple[str, ...]]:
    """A file's repeated starts, and the summaries of its functions for callers in other modules."""
    if not worth_reading(data):
        return (), (), ()
    module = _Module(data, tree)
    return _repeated_starts(data, module), module.launchers(), module.waiting()


def _repeated_starts(data: bytes, module: _Module) -> tuple[RepeatedStart, ...]:
    positions: Positions | None = None
    found: dict[ast.Call, RepeatedStart] = {}
    for node, describe in module.problems():
        if node not in found:
            if positions is None:
                positions = Positions(data)
            where = positions[node]
            found[node] = describe(Spot(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1))
    return tuple(sorted(found.values(), key=lambda start: (start.at.line, start.at.column)))


@of_last
def repeated(code_files: tuple[CodeFile, ...]) -> dict[str, tuple[RepeatedStart, ...]]:
    """Each file's repeated starts (`resolve`), once per layout's files."""
    return resolve((f.path, f.kind, f.data, f.sockets) for f in code_files)


def resolve(files: Iterable[tuple[str, str, bytes, Facts | None]]) -> dict[str, tuple[RepeatedStart, ...]]:
    """Each file's repeated starts: those its extraction found, and for a Python file that imports a
    function of another module that starts a listener (or waits for one), those of a second reading
    with that function's summary (`files`: path, kind, bytes, facts)."""
    files = list(files)
    found = {path: facts.starts for path, _, _, facts in files if facts and facts.starts}
    shell = [(path, facts.launchers, facts.runs) for path, kind, _, facts in files if kind == "shell" and facts]
    if any(runs for _, _, runs in shell):
        for path, followed in scripts.follow(shell).items():
            found[path] = tuple(sorted((*found.get(path, ()), *followed), key=lambda start: (start.at.line, start.at.column)))
    launchers = {path: facts.launchers for path, kind, _, facts in files if kind == "python" and facts and facts.launchers}
    if not launchers:
        return found
    waiters = {path: facts.waiters for path, _, _, facts in files if facts and facts.waiters}
    modules: dict[str, str] = {}
    for path in sorted({*launchers, *waiters}, key=lambda p: (p.count("/"), p)):
        for name in module_names(path):
            modules.setdefault(name, path)
    names = sorted({launcher.name.encode() for found in launchers.values() for launcher in found})
    pattern = re.compile(rb"\b(?:" + b"|".join(map(re.escape, names)) + rb")\b")
    for path, kind, data, _ in files:
        if kind != "python" or path in launchers or b"import" not in data or not any(name in data for name in names) \
                or pattern.search(data) is None:
            continue
        tree = _parse(data)
        if tree is None:
            continue
        externals: dict[str, Launcher] = {}
        waiting: set[str] = set()
        for local, (module, name) in imports_of(path, tree).items():
            if local.endswith("."):
                held = modules.get(module)
                externals.update({local + launcher.name: launcher for launcher in launchers.get(held or "", ())})
                waiting.update(local + waiter for waiter in waiters.get(held or "", ()))
                continue
            held = modules.get(module)
            launcher = next((launcher for launcher in launchers.get(held or "", ()) if launcher.name == name), None)
            if launcher is not None:
                externals[local] = launcher
            if name in waiters.get(held or "", ()):
                waiting.add(local)
            inner = modules.get(f"{module}.{name}")  # from pkg import helpers: helpers.start(...)
            externals.update({f"{local}.{launcher.name}": launcher for launcher in launchers.get(inner or "", ())})
            waiting.update(f"{local}.{waiter}" for waiter in waiters.get(inner or "", ()))
        if externals:
            again = starts(data, tree, externals, frozenset(waiting))
            if again or path in found:
                found[path] = again
    return found


def _parse(data: bytes) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


class _Module:
    def __init__(self, data: bytes, tree: ast.Module, externals: dict[str, Launcher] | None = None,
                 waiters: frozenset[str] = frozenset()) -> None:
        self.data = data
        self.tree = tree
        _OWN_NODES_OF.clear()  # the last module's blocks: none of them is asked for again
        self.externals = externals or {}  # other modules' functions that start a listener, by the name calls use
        self.waiters = waiters  # other modules' functions that wait for a process, by the name calls use
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        for statement in tree.body:
            if isinstance(statement, FUNCTIONS):
                self.functions[statement.name] = statement
            elif isinstance(statement, ast.ClassDef):
                for item in statement.body:
                    if isinstance(item, FUNCTIONS):
                        methods.setdefault(f"self.{item.name}", item)
        self.functions.update(methods)  # reached as `self.name(...)` or `cls.name(...)`
        # Functions defined inside others (a closure a loop or a test calls, a thread's target), by their
        # name where no other function of the module has it: a call by that name reaches them.
        self.nested: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self._scoped: dict[str, list[tuple[int, int, str]]] = {}  # a name defined in several functions: where
        for name, defined in _nested(tree).items():
            if name in self.functions:
                continue
            if len(defined) == 1:
                self.nested[name] = defined[0][1]
                continue
            for outer, function in defined:
                key = f"{name}@{function.lineno}"
                self.nested[key] = function
                first = getattr(outer, "lineno", 0)
                self._scoped.setdefault(name, []).append((first, getattr(outer, "end_lineno", None) or first, key))
        self.functions.update(self.nested)
        self._module_env: dict[str, tuple[int, int] | None] | None = None
        self._starts: dict[str, tuple[Start, ...] | None] = {}
        self._tears: dict[str, frozenset[str]] = {}

    def callee(self, func: ast.AST) -> str:
        """The key of the module's function a call of `func` reaches (`_helper`), a closure by the
        function it is defined in where several define one so named; "" for none."""
        name = _helper(func)
        if name in self.functions or name not in self._scoped:
            return name
        line = getattr(func, "lineno", 0)
        inside = [(last - first, key) for first, last, key in self._scoped[name] if first <= line <= last]
        return min(inside)[1] if inside else ""

    @functools.cached_property
    def index(self) -> _Index:
        return _Index(self.data, self.tree, self.functions, tuple(name.rsplit(".", 1)[-1] for name in self.externals))

    @property
    def module_env(self) -> dict[str, tuple[int, int] | None]:
        """MASTER_PORT/VLLM_PORT the module's code sets, and its names bound to a literal port (`py:NAME`)."""
        if self._module_env is None:
            nodes = _own_nodes(self.tree.body)
            self._module_env = {**_name_ports(nodes), **_env_ports(nodes)}
        return self._module_env

    # -- what a function does, for its callers ---------------------------------
    def starts_of(self, name: str) -> tuple[Start, ...]:
        """Starts a module function leaves running when it returns (its own, or those of its helpers)."""
        if name in self._starts:
            return self._starts[name] or ()
        self._starts[name] = None  # recursion
        function = self.functions[name]
        nodes = _own_nodes(function.body)
        env = {**self.module_env, **_env_ports(nodes)}
        local = {key: value for key, value in _name_ports(nodes).items() if key[3:] not in _parameter_names(function)}
        left = []
        for start in self._starts_in(nodes, env):
            if self._torn_down(start, nodes):
                continue
            variable = start.variables[0] if start.port is None and start.variables else ""
            if variable in local:  # a port the helper itself sets
                fixed = local[variable]
                if fixed is None:
                    continue
                start = replace(start, port=fixed[0], fixed_by=variable[3:], fixed_line=fixed[1], variables=())
            left.append(start)
        found = self._starts[name] = tuple(left)
        return found

    def launchers(self) -> tuple[Launcher, ...]:
        """The module's top-level functions that leave a listener running, for callers in other modules."""
        found = []
        may_start = set(map(id, self.index.functions))
        offsets = line_starts(self.data)
        for name, function in self.functions.items():
            if "." in name or name in self.nested or id(function) not in may_start:
                continue
            # only a function that launches a server or launcher itself (a test helpers module's start_server)
            lines = self.data[offsets[function.lineno - 1]:offsets[min(function.end_lineno or function.lineno, len(offsets) - 1)]]
            if _LAUNCH.search(lines) is None or not servers.may_start(lines):
                continue
            for start in self.starts_of(name):
                if start.port is not None:
                    found.append(Launcher(name, start.what, start.kind, start.port, start.fixed_by, start.fixed_line))
                    break
                variable = start.variables[0][3:] if start.variables and start.variables[0].startswith("py:") else ""
                parameters = _parameter_names(function)
                if variable in parameters:
                    default = _parameter_ports(function, self.module_env).get(f"py:{variable}")
                    found.append(Launcher(name, start.what, start.kind, 0, "", 0, variable, parameters.index(variable),
                                          default[0] if default else 0))
                    break
        return tuple(found)

    def waiting(self) -> tuple[str, ...]:
        """The module's top-level functions that wait for a process to exit (only those whose lines
        spell a wait are walked)."""
        text, starts = searchable(self.data)
        hot = sorted(lines_holding(text, starts, [name.encode() for name in sorted(_PROCESS_WAITS)]))
        return tuple(name for name, function in self.functions.items()
                     if "." not in name and name not in self.nested and holds_hot(hot, first_line(function), function.end_lineno or function.lineno)
                     and self.waits(name))

    def tears(self, name: str) -> frozenset[str]:
        """The kinds of start a module function ends (it calls destroy_process_group(), ...)."""
        if name not in self._tears:
            self._tears[name] = frozenset()
            self._tears[name] = self._kinds_torn(_own_nodes(self.functions[name].body))
        return self._tears[name]

    def _kinds_torn(self, nodes: list[ast.AST]) -> frozenset[str]:
        kinds = set()
        for node in nodes:
            if isinstance(node, ast.Call):
                name = _name(node.func)
                if name == "destroy_process_group":
                    kinds.add("group")
                if name in _ENGINE_TEARDOWNS:
                    kinds.add("engine")
                if self.callee(node.func) in self.functions:
                    kinds |= self.tears(self.callee(node.func))
        return frozenset(kinds)

    # -- starts in a block ------------------------------------------------------
    def _starts_in(self, nodes: list[ast.AST], env: dict[str, tuple[int, int] | None]) -> Iterator[Start]:
        for node in nodes:
            if not isinstance(node, ast.Call):
                continue
            start = self._start(node, env)
            if start is not None:
                yield start
                continue
            target = _thread_target(node)
            if target is not None and self.callee(target) in self.functions:
                yield from self._thread_starts(node, self.callee(target), env, nodes)
                continue
            name = self.callee(node.func)
            if name in self.functions:
                parameters = _parameter_names(self.functions[name])
                shift = 1 if name.startswith("self.") and parameters[:1] in (["self"], ["cls"]) else 0
                for inner in self.starts_of(name):
                    start = Start(node, inner.what, inner.port, inner.fixed_by, inner.fixed_line, inner.kind,
                                  _bound_name(node, nodes), inner.variables)
                    variable = inner.variables[0][3:] if inner.port is None and inner.variables else ""
                    if variable in parameters:
                        default = _parameter_ports(self.functions[name], self.module_env).get(f"py:{variable}")
                        start = _given(start, node, variable, parameters.index(variable) - shift, default)
                    if start is not None:
                        yield start
                continue
            launcher = self.externals.get(dotted(node.func))
            if launcher is not None:
                start = Start(node, launcher.what, launcher.port or None, launcher.fixed_by, launcher.fixed_line,
                              launcher.kind, _bound_name(node, nodes))
                if launcher.parameter:
                    default = (launcher.default, node.lineno) if launcher.default else None
                    start = _given(start, node, launcher.parameter, launcher.position, default,
                                   f"the default of {launcher.parameter}")
                if start is not None:
                    yield start

    def _start(self, call: ast.Call, env: dict[str, tuple[int, int] | None]) -> Start | None:
        name = _name(call.func)
        called = dotted(call.func)
        if name == "init_process_group":
            if _keyword(call, "store") is not None:
                return None  # a store the caller made (and holds) is the rendezvous
            method = _keyword(call, "init_method")
            if method is None and len(call.args) >= 2:
                method = call.args[1]
            port = _tcp_port(method) if method is not None else None
            if port is not None and method is not None:
                return Start(call, "a process group", port, "init_method", method.lineno, "group")
            if method is not None and not _is_env_method(method):
                return None
            return self._env_start(call, env, "a process group", "group", ("MASTER_PORT",))
        if name == "LLM" and (called in ("LLM", "vllm.LLM") or called.endswith(".LLM")) or \
                name == "Engine" and (called in ("Engine", "sglang.Engine", "sgl.Engine") or "sglang" in called):
            what = "a vLLM engine" if name == "LLM" else "an SGLang engine"
            for keyword in call.keywords:
                if keyword.arg in _ENGINE_PORT_KEYWORDS and _int(keyword.value) is not None:
                    return Start(call, what, _int(keyword.value), f"{keyword.arg}=", keyword.value.lineno, "engine")
            if name == "Engine":
                return None  # SGLang picks its ports from its own arguments
            return self._env_start(call, env, what, "engine", ("VLLM_PORT", "MASTER_PORT"))
        if name == "Popen" or called in ("asyncio.create_subprocess_exec", "asyncio.create_subprocess_shell"):
            return self._launched(call, env, background=True)
        if called in _BLOCKING_RUNS:
            return self._launched(call, env, background=False)
        if name in ("spawn", "start_processes") and _keyword_false(call, "join"):
            worker = call.args[0] if call.args else _keyword(call, "fn")
            worker_name = self.callee(worker) if worker is not None else ""
            if worker_name in self.functions:
                for inner in self._worker_starts(worker_name, env):
                    return Start(call, f"processes running {worker_name}() (each starts {inner.what})", inner.port,
                                 inner.fixed_by, inner.fixed_line, "spawn")
        return None

    def _thread_starts(self, call: ast.Call, name: str, env: dict[str, tuple[int, int] | None],
                       nodes: Sequence[ast.AST]) -> Iterator[Start]:
        """What a thread running a function of the module starts: the thread runs on beside the
        iteration, so a blocking run in it (`subprocess.run`, a wait on its own process) is a start the
        iteration must stop and join (`t.join()`), not one it has seen exit."""
        function = self.functions[name]
        inner_nodes = _own_nodes(function.body)
        inner_env = {**env, **_env_ports(inner_nodes)}
        parameters = _parameter_names(function)
        given = _keyword(call, "args")
        arguments = ast.Call(func=call.func, args=list(given.elts) if isinstance(given, (ast.Tuple, ast.List)) else [],
                             keywords=[ast.keyword(arg=key.value, value=value) for key, value in zip(
                                 getattr(_keyword(call, "kwargs"), "keys", []), getattr(_keyword(call, "kwargs"), "values", []))
                                 if isinstance(key, ast.Constant) and isinstance(key.value, str)])
        if given is not None and not isinstance(given, (ast.Tuple, ast.List)):
            return  # arguments this reading cannot see
        found: list[Start] = list(self._starts_in(inner_nodes, inner_env))
        for node in inner_nodes:
            if isinstance(node, ast.Call) and dotted(node.func) in _BLOCKING_RUNS:
                started = self._launched(node, inner_env, background=True)
                if started is not None:
                    found.append(started)
        for inner in found:
            start: Start | None = Start(call, inner.what, inner.port, inner.fixed_by, inner.fixed_line, "thread",
                                        _bound_name(call, nodes), inner.variables)
            variable = inner.variables[0][3:] if inner.port is None and inner.variables else ""
            if start is not None and variable in parameters:
                default = _parameter_ports(function, self.module_env).get(f"py:{variable}")
                start = _given(start, arguments, variable, parameters.index(variable), default)
            if start is not None:
                yield start

    def _worker_starts(self, name: str, env: dict[str, tuple[int, int] | None]) -> list[Start]:
        """What a spawned worker starts, torn down or not: the processes keep it until they are joined."""
        nodes = _own_nodes(self.functions[name].body)
        return list(self._starts_in(nodes, {**env, **_env_ports(nodes)}))

    def _env_start(self, call: ast.Call, env: dict[str, tuple[int, int] | None], what: str,
                   kind: str, variables: tuple[str, ...]) -> Start | None:
        for variable in variables:
            if variable in env:
                fixed = env[variable]
                if fixed is None:
                    return None  # set from a variable: the caller picks it
                return Start(call, what, fixed[0], variable, fixed[1], kind)
        # The environment may still fix it (a caller, the module).
        return Start(call, what, None, "", 0, kind, variables=variables)

    def _launched(self, call: ast.Call, env: dict[str, tuple[int, int] | None], background: bool) -> Start | None:
        """A server or launcher of the table (portlint.tables.servers) the call starts, and keeps running:
        `subprocess.Popen`, or a shell command put in the background (`os.system("... &")`); a blocking
        run exits before the next one."""
        words, values = _command_parts(call)
        if not background:
            if not words or words[-1] != "&":
                return None
            words = words[:-1]
        found = servers.started(words)
        if found is None:
            return None
        torchrun = found.server.name == "torchrun"
        kind, what = ("process", "torchrun") if torchrun else ("server", found.server.name)
        if found.flag and found.port is not None:
            return Start(call, what, found.port, found.flag, call.lineno, kind)
        if found.flag:  # an expansion: a variable the loop may or may not change
            held = _PART.fullmatch(found.value.rsplit(":", 1)[-1])
            value = values.get(held.group(0)) if held else None
            variable = _variable(value) if value is not None else ""
            return Start(call, what, None, "", 0, kind, variables=(f"py:{variable}",)) if variable else None
        if torchrun:  # MASTER_PORT in the child's environment, else torchrun's own default
            env_keyword = _keyword(call, "env")
            local = _env_ports([env_keyword]) if isinstance(env_keyword, ast.Dict) else {}
            if "MASTER_PORT" in local or "MASTER_PORT" in env:
                fixed = local.get("MASTER_PORT") if local else env.get("MASTER_PORT")
                return Start(call, what, fixed[0], "MASTER_PORT", fixed[1], kind) if fixed is not None else None
        return Start(call, what, found.port, "", call.lineno, kind)

    def _torn_down(self, start: Start, nodes: list[ast.AST]) -> bool:
        """The block that holds the start also ends it (a helper's own block: it returns with nothing left)."""
        return self._ending(start, nodes)[0]

    def _ending(self, start: Start, nodes: Sequence[ast.AST], strict: bool = False,
                guarded: frozenset[int] = frozenset()) -> tuple[bool, str, str, int]:
        """Whether the block ends the start (the teardown of its kind, a wait on its process), and
        else how it stops it without that: ("kill", the call, its line) for a kill that does not wait
        for the process to exit, ("raise", ...) for a teardown that an exception skips (`strict`: an
        exception does not end the repetition; `guarded`: ids of the nodes in a `finally` or `with`)."""
        var = start.var or _bound_name(start.node, nodes)
        kill: tuple[str, str, int] | None = None
        for node in nodes:
            if isinstance(node, ast.With) and any(item.context_expr is start.node for item in node.items):
                return True, "", "", 0  # `with Popen(...) as p:` waits on exit
            if not isinstance(node, ast.Call):
                if isinstance(node, ast.Delete) and var and start.kind == "engine" and any(
                        isinstance(t, ast.Name) and t.id == var for t in node.targets) and \
                        any(isinstance(n, ast.Call) and dotted(n.func) == "gc.collect" for n in nodes):
                    return self._kept_or_skipped(node, strict, guarded)
                continue
            if self._ends_it(node, start, var):
                return self._kept_or_skipped(node, strict, guarded)
            if kill is None and start.kind in ("process", "server", "thread") and _kills(node, var):
                kill = ("kill", ast.unparse(node), node.lineno)
        return (False, *kill) if kill is not None else (False, "", "", 0)

    def _ends_it(self, call: ast.Call, start: Start, var: str) -> bool:
        """Whether the call ends the start: its kind's teardown, a wait on its holder, or a module
        helper that does either."""
        name = _name(call.func)
        if start.kind == "group" and name == "destroy_process_group" or start.kind == "engine" and name in _ENGINE_TEARDOWNS:
            return True
        helper = self.callee(call.func)
        if helper in self.functions and start.kind in self.tears(helper):
            return True
        if not var:
            return False
        waits = _PROCESS_WAITS if start.kind in ("process", "server") else _WAITS
        if isinstance(call.func, ast.Attribute) and call.func.attr in waits and dotted(call.func.value) == var:
            return True
        # a helper (of this module or another) handed the holder that waits on what it is given (`stop(proc)`)
        if start.kind not in ("process", "server") or not any(dotted(arg) == var for arg in call.args):
            return False
        return helper in self.functions and self.waits(helper) or dotted(call.func) in self.waiters

    def waits(self, name: str) -> bool:
        """Whether a module function waits for a process (`.wait()`, `.communicate()` on anything)."""
        return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _PROCESS_WAITS
                   for node in _own_nodes(self.functions[name].body))

    @staticmethod
    def _kept_or_skipped(node: ast.AST, strict: bool, guarded: frozenset[int]) -> tuple[bool, str, str, int]:
        if strict and id(node) not in guarded:
            return False, "raise", ast.unparse(node) if isinstance(node, ast.expr) else "", getattr(node, "lineno", 0)
        return True, "", "", 0

    # -- repeated starts --------------------------------------------------------
    def problems(self) -> Iterator[tuple[ast.Call, Callable[[Spot], RepeatedStart]]]:
        """Starts repeated per loop iteration, parametrized case or test, not ended in it: each start's
        node and what makes its record once its place is known.

        Most blocks cannot start anything: `_Index` (one walk) tells which can, and only
        those are analysed (the order, and so the record kept for a node, is unchanged)."""
        index = self.index
        if not index.any_start:
            return
        scopes: list[tuple[str, list[ast.stmt], ast.AST]] = [("module code", self.tree.body, self.tree)]
        scopes += [(function.name, function.body, function) for function in index.functions]
        for culprit, body, owner in scopes:
            loops = index.loops_that_start(owner)
            if not loops:
                continue
            scope_nodes = _own_nodes(body)
            parameters = _parameter_ports(owner, self.module_env) if isinstance(owner, FUNCTIONS) else {}
            scope_env = {**self.module_env, **parameters, **_name_ports(scope_nodes), **_env_ports(scope_nodes)}
            for loop in scope_nodes:
                if id(loop) not in loops:
                    continue
                if isinstance(loop, (ast.For, ast.AsyncFor, ast.While)):
                    per = ("while", "") if isinstance(loop, ast.While) else ("for", ast.unparse(loop.target))
                    targets = _targets(loop.target) if isinstance(loop, (ast.For, ast.AsyncFor)) else ()
                    yield from self._repeated(culprit, _own_nodes(loop.body), scope_env, (*per, loop.lineno),
                                              targets=targets)
                elif isinstance(loop, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
                    parts = [loop.key, loop.value] if isinstance(loop, ast.DictComp) else [loop.elt]
                    targets = tuple(name for generator in loop.generators for name in _targets(generator.target))
                    yield from self._repeated(culprit, _own_nodes(parts), scope_env, ("comprehension", "", loop.lineno),
                                              targets=targets)
        for function in index.functions:
            if _parametrized(function) and index.starts_in(function):
                nodes = _own_nodes(function.body)
                # its parameters change per case: they name the cases' values
                env = {**self.module_env, **{f"py:{name}": None for name in _parameter_ports(function)},
                       **_name_ports(nodes), **_env_ports(nodes)}
                yield from self._repeated(function.name, nodes, env, ("parametrized", function.name, function.lineno))
        for cls in index.classes:
            yield from self._per_test(cls, index)

    def _per_test(self, cls: ast.ClassDef, index: _Index) -> Iterator[tuple[ast.Call, Callable[[Spot], RepeatedStart]]]:
        """`setUp` (`setup_method`) runs before each test of the class: its teardown is `tearDown`'s job."""
        methods = {item.name: item for item in cls.body if isinstance(item, FUNCTIONS)}
        for setup, teardown in (("setUp", "tearDown"), ("setup_method", "teardown_method")):
            if setup in methods and index.starts_in(methods[setup]):
                nodes = _own_nodes(methods[setup].body)
                after = _own_nodes(methods[teardown].body) if teardown in methods else []
                env = {**self.module_env, **_name_ports(nodes), **_env_ports(nodes)}
                yield from self._repeated(f"{cls.name}.{setup}", nodes, env, ("setup", cls.name, methods[setup].lineno),
                                          after=after)

    def _repeated(self, culprit: str, nodes: list[ast.AST], env: dict, per: tuple[str, str, int],
                  after: Sequence[ast.AST] = (), targets: tuple[str, ...] = ()
                  ) -> Iterator[tuple[ast.Call, Callable[[Spot], RepeatedStart]]]:
        """Starts in `nodes` (one iteration, one case) not ended there or in `after` (a tearDown method);
        `per`: what repeats them (see RepeatedStart.per), its text and line; `targets`: the loop's
        variables, which change per iteration (so do the names the iteration binds to anything but a
        literal port)."""
        env = {**env, **_name_ports(nodes), **{f"py:{name}": None for name in targets}, **_env_ports(nodes)}
        # Another iteration runs after one that raised: a parametrized test's next case, the next test of
        # a class, a loop that catches what its body raises. A teardown must then survive the exception.
        strict = per[0] in ("parametrized", "setup") or any(isinstance(node, ast.ExceptHandler) for node in nodes)
        guarded = frozenset(id(node) for node in [*_finally_nodes(nodes), *after])
        for start in self._starts_in(nodes, env):
            port, fixed_by, fixed_line = start.port, start.fixed_by, start.fixed_line
            if port is None:
                variable = next((v for v in start.variables if v in env), None)
                fixed = env[variable] if variable else None
                if fixed is None:
                    continue
                port, fixed_by, fixed_line = fixed[0], str(variable).removeprefix("py:"), fixed[1]
            ended, stopped, stopped_by, stopped_line = self._ending(start, [*nodes, *after], strict, guarded)
            if ended:
                continue
            helper = self.callee(start.node.func)
            called = dotted(start.node.func)
            through = helper.removeprefix("self.").split("@", 1)[0] if helper in self.functions else called if called in self.externals else ""
            target = _thread_target(start.node) if start.kind == "thread" else None
            if target is not None:
                through = self.callee(target).removeprefix("self.").split("@", 1)[0]  # what the thread runs
            record = functools.partial(
                RepeatedStart, function=culprit, what=start.what, kind=start.kind, port=port, fixed_by=fixed_by,
                fixed_line=fixed_line, per=per[0], per_line=per[2], per_text=per[1],
                through=through,
                holder=start.var or _bound_name(start.node, nodes), stopped=stopped, stopped_by=stopped_by,
                stopped_line=stopped_line)
            yield start.node, record


def kept(data: bytes, definitions: Sequence[tuple[str, int, int]]) -> tuple[list[int], list[int]] | None:
    """What a sparse tree must keep whole for `findings` to read what it reads in the whole tree:
    functions (python_outline.definitions: name, first and end offset), as their first offsets,
    and the lines that spell a name they are kept for (the module's statements holding one are
    its code that may start something); None when a name cannot be read (the whole tree then).

    `findings` reads the module's code that may start something or set MASTER_PORT, and of the
    functions those that may start something (`_Index`: a start name or the name of such a function
    in their lines) and those that end one (a teardown's name, `tearDown`, or the name of such a
    function), through the names calls use.
    So a function is kept when its lines spell one of those names or the name of a function kept,
    to a fixpoint; one kept name keeps every function so named (`self.name` is the first method so
    named). Every other function can be left out of the tree: nothing reaches it."""
    reached = spelling(data, definitions, _KEPT_NAMES)
    if reached is None:
        return None
    found, hot = reached
    return sorted(definitions[i][1] for i in found), hot

# The names `_Module._start` can turn into a start, whatever the call's arguments.
_START_NAMES = (b"init_process_group", b"LLM", b"Engine", b"Popen", b"create_subprocess_exec",
                b"create_subprocess_shell", b"spawn", b"start_processes", b"system", b"subprocess")
# A call that may launch a program (`_launched`): the test, with a server word, before any parse.
_LAUNCH = re.compile(rb"Popen|create_subprocess_|os\.system|subprocess\.(?:run|call|check_call|check_output)")
# What may leave a launched process running past its call: `_LAUNCH`'s background calls, a shell
# command ending in `&` (a string or a list's last word, before its closing quote), a thread.
_OUTLIVES = re.compile(rb"Popen|create_subprocess_|Thread|&[ \t]*[\"']")
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
# ... and those of a teardown, of a method one is written in, and the environment variables that fix a
# port: what a sparse tree keeps first (`kept`).
_KEPT_NAMES = (*_START_NAMES, b"destroy_process_group", *(name.encode() for name in sorted(_ENGINE_TEARDOWNS)),
               b"tearDown", b"teardown_method", *(name.encode() for name in _ENV_PORTS),
               *(name.encode() for name in sorted(_PROCESS_WAITS)))


class _Index:
    """Which blocks of a module can start something, read from its lines and statements.

    A start is a call whose name `_start` knows, or a call of a module function (`_helper`)
    whose own code holds one, directly or through its helpers. Either way that name is
    written inside the block: a block none of whose lines holds a start name, or the name of
    a module function that may start (one whose lines hold such a name, to a fixpoint), yields
    no start (`_starts_in` looks at nothing else). So `problems` reads only the loops,
    comprehensions, functions and classes holding such a line: the same answers as reading
    every block, without walking every function body and every loop body (again for each
    loop around it). Only the statements on the way to such a line are visited.
    """

    def __init__(self, data: bytes, tree: ast.Module, functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef],
                 extra: tuple[str, ...] = ()) -> None:
        text, starts = searchable(data)
        hot = lines_holding(text, starts, (*_START_NAMES, *(word.encode() for word in extra)))
        self.hot = sorted(hot)
        may_start = {key for key, function in functions.items() if self._holds(first_line(function), function)}
        searched: set[bytes] = set()
        while True:
            words = {key.rsplit(".", 1)[-1].split("@", 1)[0].encode() for key in may_start} - searched
            if not words:
                break
            searched |= words
            hot |= lines_holding(text, starts, tuple(words))
            self.hot = sorted(hot)
            may_start |= {key for key, function in functions.items() if self._holds(first_line(function), function)}
        self.functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        self.classes: list[ast.ClassDef] = []
        self._loops: dict[int, set[int]] = {}  # id of a scope -> ids of its loops that may start something
        if self.hot:
            self._visit(tree.body, tree)
        self.any_start = bool(self.hot)

    def _holds(self, first: int, node: ast.AST) -> bool:
        """Whether a hot line lies in lines first..the node's last."""
        return holds_hot(self.hot, first, getattr(node, "end_lineno", None) or first)

    def _visit(self, statements: Sequence[ast.stmt], scope: ast.AST) -> None:
        """The statements holding a hot line, and their loops and comprehensions holding one
        (`scope`: the function, class or module whose code they are)."""
        for statement in statements:
            if not self._holds(first_line(statement), statement):
                continue
            inner = scope
            if isinstance(statement, FUNCTIONS):
                self.functions.append(statement)
                inner = statement
            elif isinstance(statement, ast.ClassDef):
                self.classes.append(statement)
                inner = statement
            elif isinstance(statement, (ast.For, ast.AsyncFor, ast.While)) and \
                    self._holds(first_line(statement.body[0]), statement.body[-1]):
                self._loops.setdefault(id(scope), set()).add(id(statement))
            for child in children(statement):
                if isinstance(child, ast.stmt):
                    continue  # below, with the other statement lists
                parts = [child.type] if isinstance(child, ast.ExceptHandler) else \
                    [child.pattern, child.guard] if isinstance(child, ast.match_case) else [child]
                # A node whose lines hold no hot one is not entered (a comprehension whose element holds
                # one lies in its lines): most nodes of a module are never entered.
                for node in holding(self.hot, (part for part in parts if part is not None)):
                    if isinstance(node, _COMPREHENSIONS):
                        first, last = (node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt, node.elt)
                        if self._holds(first.lineno, last):
                            self._loops.setdefault(id(inner), set()).add(id(node))
            for field in ("body", "orelse", "finalbody"):
                self._visit(getattr(statement, field, None) or (), inner)
            for part in (*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())):
                self._visit(part.body, inner)

    def starts_in(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """Whether the function's lines hold a hot one (else its own code starts nothing)."""
        return self._holds(first_line(function), function)

    def loops_that_start(self, scope: ast.AST) -> set[int]:
        """ids of the scope's loops and comprehensions (the module's, or a function's) that may start something."""
        return self._loops.get(id(scope), set())




# -- small helpers -----------------------------------------------------------------
_OWN_NODES_OF: dict[int, tuple[object, list[ast.AST]]] = {}  # id of a block of the module read: (block, nodes)


_BLOCKING_RUNS = frozenset(("os.system", "subprocess.run", "subprocess.call", "subprocess.check_call",
                            "subprocess.check_output"))


def _thread_target(call: ast.Call) -> ast.expr | None:
    """The function a `threading.Thread(target=f, ...)` runs, if the call makes one."""
    if _name(call.func) != "Thread":
        return None
    target = _keyword(call, "target")
    return target if target is not None else call.args[1] if len(call.args) > 1 else None


def _nested(tree: ast.Module) -> dict[str, list[tuple[ast.AST, ast.FunctionDef | ast.AsyncFunctionDef]]]:
    """Functions defined inside functions, by name: each with the function it is defined in. Only
    statements are walked, never expressions."""
    found: dict[str, list[tuple[ast.AST, ast.FunctionDef | ast.AsyncFunctionDef]]] = {}
    stack: list[tuple[ast.AST, ast.AST | None]] = [(statement, None) for statement in tree.body]
    while stack:
        node, outer = stack.pop()
        if isinstance(node, FUNCTIONS):
            if outer is not None:
                found.setdefault(node.name, []).append((outer, node))
            outer = node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, field, None) or ():
                if isinstance(child, (ast.stmt, ast.ExceptHandler, ast.match_case)):
                    stack.append((child, outer))
    return found


def _own_nodes(body: Sequence[ast.AST]) -> list[ast.AST]:
    """Every node of a block, nested functions and classes left out (they run elsewhere), in source order
    (a function's body is asked for again and again: the last module's answers are kept)."""
    kept = _OWN_NODES_OF.get(id(body))
    if kept is not None and kept[0] is body:
        return kept[1]
    found: list[ast.AST] = []
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        found.append(node)
        if isinstance(node, _OPAQUE) or type(node) in INERT:
            continue
        inner = children(node)
        inner.reverse()
        stack += inner
    if isinstance(body, list):
        _OWN_NODES_OF[id(body)] = (body, found)
    return found


_OPAQUE = (*FUNCTIONS, ast.ClassDef, ast.Lambda)


def _env_ports(nodes: list[ast.AST]) -> dict[str, tuple[int, int] | None]:
    """`MASTER_PORT`/`VLLM_PORT` set in the nodes: (port, line) for a literal, None when set from a variable."""
    found: dict[str, tuple[int, int] | None] = {}

    def note(key: ast.expr | None, value: ast.expr) -> None:
        if isinstance(key, ast.Constant) and key.value in _ENV_PORTS:
            port = _int(value)
            found[key.value] = (port, value.lineno) if port is not None else None

    for node in nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and _is_environ(target.value):
                    note(target.slice, node.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("setdefault", "putenv") or node.func.attr == "__setitem__":
                if len(node.args) == 2 and (_is_environ(node.func.value) or dotted(node.func) == "os.putenv"):
                    note(node.args[0], node.args[1])
            elif node.func.attr == "update" and _is_environ(node.func.value):
                for arg in node.args:
                    if isinstance(arg, ast.Dict):
                        for key, value in zip(arg.keys, arg.values):
                            note(key, value)
                for keyword in node.keywords:
                    if keyword.arg in _ENV_PORTS:
                        note(ast.Constant(keyword.arg), keyword.value)
        elif isinstance(node, ast.Dict):  # an env mapping handed to a launcher
            for key, value in zip(node.keys, node.values):
                note(key, value)
    return found


def _name_ports(nodes: Sequence[ast.AST]) -> dict[str, tuple[int, int] | None]:
    """Names the nodes bind (`py:NAME`): (port, line) for a literal port, None for anything else (a
    loop target, a value computed, a port changed with `+=`)."""
    found: dict[str, tuple[int, int] | None] = {}
    for node in nodes:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    port = _int(node.value)
                    found[f"py:{target.id}"] = (port, node.value.lineno) if port is not None else None
                else:
                    found.update({f"py:{name}": None for name in _targets(target)})
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            found[f"py:{node.target.id}"] = None
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            found.update({f"py:{name}": None for name in _targets(node.target)})
        elif isinstance(node, ast.NamedExpr):
            found[f"py:{node.target.id}"] = None
    return found


def _parameter_ports(function: ast.AST, module_env: dict[str, tuple[int, int] | None] | None = None
                     ) -> dict[str, tuple[int, int] | None]:
    """A function's parameters (`py:NAME`): (port, line) for a literal default or a module constant
    that is one (`port=DEFAULT_PORT`), None otherwise."""
    if not isinstance(function, FUNCTIONS):
        return {}
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults = [None] * (len(positional) - len(arguments.defaults)) + [*arguments.defaults]
    pairs = [*zip(positional, defaults), *zip(arguments.kwonlyargs, arguments.kw_defaults)]
    found: dict[str, tuple[int, int] | None] = {}
    for argument, default in pairs:
        port = _int(default) if default is not None else None
        if port is not None and default is not None:
            found[f"py:{argument.arg}"] = (port, default.lineno)
        elif isinstance(default, ast.Name) and module_env:
            found[f"py:{argument.arg}"] = module_env.get(f"py:{default.id}")
        else:
            found[f"py:{argument.arg}"] = None
    return found


def _parameter_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    arguments = function.args
    return [argument.arg for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]


def _given(start: Start, call: ast.Call, parameter: str, position: int, default: tuple[int, int] | None,
           defaulted: str = "") -> Start | None:
    """A helper's start whose port is its parameter, as a call gives it: a literal, a name of the
    caller (`py:NAME`, resolved where the call repeats), else the parameter's default; None when the
    call computes it."""
    given = next((keyword.value for keyword in call.keywords if keyword.arg == parameter), None)
    positional = [arg for arg in call.args if not isinstance(arg, ast.Starred)]
    if given is None and 0 <= position < len(positional) and len(positional) == len(call.args):
        given = positional[position]
    if given is None:
        if default is None:
            return None
        return replace(start, port=default[0], fixed_by=defaulted or parameter, fixed_line=default[1], variables=())
    port = _int(given)
    if port is not None:
        return replace(start, port=port, fixed_by=f"{parameter}=", fixed_line=given.lineno, variables=())
    variable = _variable(given)
    return replace(start, port=None, variables=(f"py:{variable}",)) if variable else None


def _targets(target: ast.AST) -> tuple[str, ...]:
    return tuple(node.id for node in ast.walk(target) if isinstance(node, ast.Name))


def _finally_nodes(nodes: Sequence[ast.AST]) -> list[ast.AST]:
    """The nodes under a `finally` block, or inside a `with` block's exit (its items), among `nodes`."""
    found: list[ast.AST] = []
    for node in nodes:
        if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            found += _own_nodes(getattr(node, "finalbody", []))
    return found


def _is_environ(node: ast.AST) -> bool:
    return dotted(node) in ("os.environ", "environ")


def _int(node: ast.AST | None) -> int | None:
    """A literal port: `29500`, `"29500"`, `str(29500)`."""
    if isinstance(node, ast.Call) and _name(node.func) in ("str", "int") and len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, ast.Constant):
        value = node.value
        if type(value) is int:
            return value if 0 < value < 65536 else None
        if isinstance(value, str) and value.strip().isdigit():
            number = int(value.strip())
            return number if 0 < number < 65536 else None
    return None


def _tcp_port(node: ast.AST) -> int | None:
    """The port of a `tcp://host:N` literal (also the literal tail of an f-string)."""
    text = ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
    elif isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[-1], ast.Constant):
        text = "".join(str(v.value) if isinstance(v, ast.Constant) else "{}" for v in node.values)
    match = re.fullmatch(r"tcp://.*:(\d+)/?", text)
    if match is None:
        return None
    port = int(match.group(1))
    return port if 0 < port < 65536 else None


def _is_env_method(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("env://")


def _command_parts(call: ast.Call) -> tuple[list[str], dict[str, ast.expr]]:
    """The words of a launched command written as a list or one string (literal, or an f-string), with
    `{#k}` in a word for each value computed where it is written, and those values by placeholder."""
    command = call.args[0] if call.args else _keyword(call, "args")
    if dotted(call.func) == "asyncio.create_subprocess_exec":
        command = ast.List(elts=list(call.args))
    values: dict[str, ast.expr] = {}

    def text(node: ast.expr) -> str:
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, int)):
            return str(node.value)
        if dotted(node) == "sys.executable":
            return "python"
        if isinstance(node, ast.JoinedStr):
            return "".join(text(part.value) if isinstance(part, ast.FormattedValue) else str(part.value)
                           for part in node.values if isinstance(part, (ast.Constant, ast.FormattedValue)))
        if isinstance(node, ast.Call) and _name(node.func) == "str" and len(node.args) == 1:
            return text(node.args[0])
        key = f"{{#{len(values)}}}"
        values[key] = node
        return key

    if isinstance(command, (ast.List, ast.Tuple)):
        return [text(e) for e in command.elts if not isinstance(e, ast.Starred)], values
    if isinstance(command, (ast.Constant, ast.JoinedStr)) and not isinstance(getattr(command, "value", ""), bytes):
        try:
            return shlex.split(text(command)), values
        except ValueError:
            return [], values
    return [], values


def _variable(node: ast.expr) -> str:
    """The name a port value is read from (`port`, `str(port)`, `int(port)`), else ""."""
    if isinstance(node, ast.Call) and _name(node.func) in ("str", "int") and len(node.args) == 1:
        node = node.args[0]
    return node.id if isinstance(node, ast.Name) else ""


def _kills(call: ast.Call, var: str) -> bool:
    """Whether the call stops a process without waiting for it: `proc.kill()`, `proc.terminate()`,
    `os.killpg(...)`, a `pkill`/`kill` command."""
    func = call.func
    if var and isinstance(func, ast.Attribute) and func.attr in _KILLS and dotted(func.value) == var:
        return True
    called = dotted(func)
    if called in _KILL_CALLS:
        return True
    if called in ("os.system", "subprocess.run", "subprocess.call", "subprocess.Popen", "subprocess.check_call"):
        words = _command_parts(call)[0]
        return bool(words) and words[0] in _KILL_COMMANDS
    return False


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _keyword_false(call: ast.Call, name: str) -> bool:
    value = _keyword(call, name)
    return isinstance(value, ast.Constant) and value.value is False


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _helper(func: ast.AST) -> str:
    """The key of a module function a call may reach: `name` for `name(...)`, `self.name` for `self.name(...)`."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
        return f"self.{func.attr}"
    return ""


def _bound_name(call: ast.Call, nodes: Sequence[ast.AST]) -> str:
    """The variable (or attribute: `self.proc`) a call's result is assigned to in the block
    (`llm = LLM(...)`), or ""."""
    for node in nodes:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is call:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if len(targets) == 1 and isinstance(targets[0], (ast.Name, ast.Attribute)):
                return dotted(targets[0])
        if isinstance(node, ast.withitem) and node.context_expr is call and isinstance(node.optional_vars, ast.Name):
            return node.optional_vars.id
    return ""


def _parametrized(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(dotted(d.func if isinstance(d, ast.Call) else d).endswith("parametrize") for d in function.decorator_list)
