"""The table of server and launcher commands (`servers.yaml`): which commands start something that
listens, and on which port.

Package data: `servers.json`, generated from `servers.yaml` (its source, with the
comments) and validated against `servers.schema.json` by the test suite
(tests/tables/test_servers.py, which regenerates the JSON with PORTLINT_UPDATE_FIXTURES=1).
PL604 reads it for the programs a loop, a parametrized test or a setUp starts.
"""
from __future__ import annotations

import re
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import Any

from portlint.model.naming import is_port_name, role_of
from portlint.model.naming import words as name_words
from portlint.model.ports import PORT
from portlint.model.records import Struct
from portlint.speed.needles import holds_any, of_last, re2_options
from portlint.tables import packaged, source

# A word every entry's command spells one of (a file holding none starts none of them), found in the
# one pass of portlint.speed.needles; tests/tables/test_servers.py keeps them in step with the table.
NEEDLES = (b"vllm", b"sglang", b"uvicorn", b"tritonserver", b"text-generation-launcher", b"torchrun",
           b"torch.distributed.", b"accelerate", b"deepspeed", b"port-forward")
_PLACEHOLDER = re.compile(r"\{[^{}]*\}|\$\{?[A-Za-z_][A-Za-z0-9_]*(?::?-[^}]*)?\}?|\$\(\(.*?\)\)|\$\(.*?\)")


class Server(Struct, frozen=True):
    name: str
    runs: tuple[tuple[str, ...], ...]
    flags: tuple[str, ...]
    default: int
    source: str
    unless: tuple[str, ...] = ()
    mapping: bool = False  # the port is the local side of a `LOCAL:REMOTE` word (`kubectl port-forward`)


class Started(Struct, frozen=True):
    """A command that starts a server of the table: which, and what sets its port."""

    server: Server
    flag: str  # the option that sets the port ("" when none does: its default)
    value: str  # the option's value as written ("" when none)
    port: int | None  # the port when the value is a literal (or the default); None: an expansion


@lru_cache(maxsize=1)
def load() -> tuple[Server, ...]:
    return tuple(Server(entry["name"], tuple(tuple(run) for run in entry["runs"]), tuple(entry.get("flags", ())),
                        entry.get("default", 0), entry["source"], tuple(entry.get("unless", ())),
                        entry.get("mapping", False))
                 for entry in table()["servers"])


@of_last
def mentioned(data: bytes) -> bool:
    """Whether the bytes may start a server of the table (the test before any parse): they spell one
    of its commands, as a shell line or a Python list of words writes it (`vllm serve`, `"vllm",
    "serve"`, `sglang.launch_server`), not only a package's name (`import vllm`, `uvicorn.run`)."""
    if not holds_any(data, NEEDLES):
        return False
    for match in _commands().finditer(data):
        start, end = match.span()
        before = data[max(start - 7, 0):start]
        if (start and _WORDISH.match(data, start - 1)) or (end < len(data) and _WORDISH.match(data, end)):
            continue  # a name's part or an attribute: `uvicorn.run(...)`, `deepspeed_config`
        if before.endswith((b"import ", b"from ")):
            continue  # `import deepspeed`
        return True
    return False


_WORDISH = re.compile(rb"[\w.-]")
_PORT_OPTION = re.compile(rb"--[\w.-]*port\b")


@of_last
def may_start(data: bytes) -> bool:
    """Whether the bytes may start a listener on a port (`started`): a command of the table, or a
    long option naming a port (`--port`, `--http-port`) that a program may be handed."""
    return mentioned(data) or holds_any(data, (b"port",)) and _PORT_OPTION.search(data) is not None


# What stands between two words of a command: blanks, quotes or commas, and up to three options
# with their values (`kubectl -n "$ns" port-forward`), as `_find` skips them.
_BETWEEN = rb"[\s\"',]+(?:-[^\s\"',]*[\s\"',]+(?:[^-\s\"',][^\s\"',]*[\s\"',]+)?){0,3}"


@lru_cache(maxsize=1)
def _commands() -> Any:
    """Every command of the table as its words may be written: a `python -m` module by its module,
    the other words apart by blanks, quotes and commas (RE2: one linear pass for all of them)."""
    import re2

    spelled = set()
    for server in load():
        for run in server.runs:
            words = [word for word in run if word != "-m" and not word.startswith("python")]
            spelled.add(_BETWEEN.join(re.escape(word.encode()) for word in words))
    return re2.compile(b"|".join(sorted(spelled)), re2_options())


def started(words: tuple[str, ...] | list[str]) -> Started | None:
    """The server a command's words start (with its port), if any: a command of the table, else a
    program handed a port by an option that names one (`given_a_port`)."""
    names = [word.rsplit("/", 1)[-1] for word in words]
    for server in load():
        for run in server.runs:
            at = _find(names, run)
            if at is None:
                continue
            options = words[_follows(names, at + 1, run[1:]) or at + len(run):]
            if any(_option(word) in server.unless for word in options):
                return None
            if server.mapping:
                return _mapped(server, options)
            flag, value = _flag(options, server.flags)
            if not flag:
                return Started(server, "", "", server.default)
            digits = value.rsplit(":", 1)[-1]
            port = int(digits) if digits.isdigit() and 0 < int(digits) < 65536 else None
            return Started(server, flag, value, port)
    return given_a_port(words)


def _mapped(server: Server, options: tuple[str, ...] | list[str]) -> Started | None:
    """The local side of the first `LOCAL:REMOTE` word (`8080:80`, `$PORT:80`; `:80` picks a free one)."""
    for word in options:
        if word.startswith("-") or ":" not in word:
            continue
        local = word.split(":", 1)[0]
        if not local:
            return None
        port = int(local) if local.isdigit() and 0 < int(local) < 65536 else None
        return Started(server, word, local, port)
    return None


# Words in front of the program they run (`nohup vllm ...`, `env A=1 prog ...`, `timeout 60 prog ...`).
_WRAPPERS = frozenset(("nohup", "env", "exec", "setsid", "stdbuf", "nice", "time", "timeout", "sudo", "command"))
# Environment managers that run a program (`uv run`, `poetry run`, `conda run -n env`).
_RUNNERS = frozenset(("uv", "poetry", "pipenv", "conda", "pixi", "hatch", "pdm", "rye"))
# Programs a port option does not make a listener: they dial it, or pass it on to a machine elsewhere.
_CLIENTS = frozenset(("curl", "wget", "nc", "ncat", "telnet", "ssh", "scp", "rsync", "grpcurl", "http", "echo",
                      "printf", "kill", "pkill", "killall", "lsof", "fuser", "docker", "kubectl", "srun", "sbatch",
                      "ray", "helm", "gcloud", "aws", "mpirun"))
# Option words that name the far end of a connection: the port of something the program dials.
_FAR_END = frozenset(("remote", "target", "dest", "destination", "upstream", "client", "db", "database",
                      "redis", "mongo", "postgres", "mysql", "api", "server", "master", "coordinator", "head",
                      "gcs", "from", "to"))


def given_a_port(words: tuple[str, ...] | list[str]) -> Started | None:
    """A program handed a port by a long option whose name ends in `port` (`--port N`, `--http-port=N`,
    `--grpc_port N`): whatever its name, it listens there. Options that name a range's bound, a count,
    or the far end of a connection (`--min-port`, `--remote-port`, `--server-port`: a client's) are not
    read, nor the options of a program that only dials or forwards (curl, ssh, kubectl, ...); a
    short option (`-p`) says too little."""
    program = _program(words)
    if not program:
        return None
    what, at = program
    options = words[words.index(what[-1], at) + 1:] if what[-1] in words[at:] else words[at + len(what):]
    for i, word in enumerate(options):
        name, equals, value = word.partition("=")
        if not name.startswith("--") or not _names_its_own_port(name[2:]):
            continue
        if not equals:
            if i + 1 >= len(options) or options[i + 1].startswith("-"):
                continue
            value = options[i + 1]
        digits = value.rsplit(":", 1)[-1]
        port = int(digits) if digits.isdigit() and 0 < int(digits) < 65536 else None
        if port is None and not placeholders(value):
            continue  # `--port auto`, `--port 0`: no fixed port
        return Started(Server(f"`{' '.join(what)}`", (what,), (name,), 0, "given a port by an option"), name, value, port)
    return None


def _names_its_own_port(option: str) -> bool:
    parts = name_words(option)
    return bool(parts) and parts[-1] == "port" and is_port_name(option) and role_of(option) == PORT \
        and _FAR_END.isdisjoint(parts)


def _program(words: tuple[str, ...] | list[str]) -> tuple[tuple[str, ...], int] | None:
    """The words naming the program a command runs (`some-cli serve`, `python -m pkg.server`,
    `python serve.py`) and how many words come before them; None for a client, a forwarder, or
    no program."""
    at = 0
    while at < len(words):
        word = words[at].rsplit("/", 1)[-1]
        if "=" in word and not word.startswith("-") or word in _WRAPPERS or word.isdigit() or \
                word.startswith("-") and at and words[at - 1].rsplit("/", 1)[-1] in _WRAPPERS:
            at += 1
            continue
        if word in _RUNNERS and list(words[at + 1:at + 2]) == ["run"]:
            at += 2
            while at < len(words) and words[at].startswith("-"):  # `uv run --extra gpu python ...`
                at += 1 if "=" in words[at] or at + 1 >= len(words) or words[at + 1].startswith("-") else 2
            continue
        break
    if at >= len(words):
        return None
    first = words[at].rsplit("/", 1)[-1]
    if first in _CLIENTS or not re.fullmatch(r"[\w.+-]+", first):
        return None
    rest = list(words[at + 1:])
    if fnmatchcase(first, "python*"):
        while rest and rest[0].startswith("-") and rest[0] not in ("-m", "-c"):
            rest.pop(0)  # `python -u -m ...`
        if rest[:1] == ["-m"] and len(rest) > 1:
            return (first, "-m", rest[1]), at
        if rest and rest[0].endswith(".py"):
            return (first, rest[0]), at
        return None
    if rest and re.fullmatch(r"[a-z][a-z0-9-]*", rest[0]):  # a subcommand: `some-cli serve`
        return (first, rest[0]), at
    return (first,), at


def _find(names: list[str], run: tuple[str, ...]) -> int | None:
    """Where the run's first word is, its other words following it; options of the program may
    stand between them (`kubectl -n ns port-forward`, `python -u -m pkg`)."""
    for at in range(len(names) - len(run) + 1):
        if fnmatchcase(names[at], run[0]) and _follows(names, at + 1, run[1:]) is not None:
            return at
    return None


def _follows(names: list[str], at: int, run: tuple[str, ...]) -> int | None:
    """The index after the run's words found from `at` on, options and their values skipped between them."""
    for pattern in run:
        while at < len(names) and not fnmatchcase(names[at], pattern):
            if not names[at].startswith("-"):
                return None
            at += 1
            if at < len(names) and "=" not in names[at - 1] and not names[at].startswith("-") and \
                    not fnmatchcase(names[at], pattern):
                at += 1  # the option's value: `-n ns`
        if at >= len(names):
            return None
        at += 1
    return at


def _option(word: str) -> str:
    return word.split("=", 1)[0].replace("_", "-")


def _flag(options: tuple[str, ...] | list[str], flags: tuple[str, ...]) -> tuple[str, str]:
    """The last option of `flags` among the words (`--port N`, `--port=N`) and its value."""
    wanted = {flag.replace("_", "-") for flag in flags}
    found = ("", "")
    for i, word in enumerate(options):
        name, equals, value = word.partition("=")
        if name.replace("_", "-") not in wanted:
            continue
        if equals:
            found = (name, value)
        elif i + 1 < len(options):
            found = (name, options[i + 1])
    return found


def placeholders(value: str) -> list[str]:
    """The expansions in a value as written (`{port}`, `${PORT:-8000}`, `$((BASE + i))`)."""
    return _PLACEHOLDER.findall(value)


def table() -> dict[str, Any]:
    """The packaged table as data (servers.json, generated from servers.yaml)."""
    return packaged("servers")


def from_yaml() -> dict[str, Any]:
    """`servers.yaml` parsed: what `servers.json` must hold."""
    return source("servers")
