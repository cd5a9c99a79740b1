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

from portlint.model.records import Struct
from portlint.speed.needles import holds_any, of_last, re2_options
from portlint.tables import packaged, source

# A word every entry's command spells one of (a file holding none starts none of them), found in the
# one pass of portlint.speed.needles; tests/tables/test_servers.py keeps them in step with the table.
NEEDLES = (b"vllm", b"sglang", b"uvicorn", b"tritonserver", b"text-generation-launcher", b"torchrun",
           b"torch.distributed.", b"accelerate", b"deepspeed")
_PLACEHOLDER = re.compile(r"\{[^{}]*\}|\$\{?[A-Za-z_][A-Za-z0-9_]*(?::?-[^}]*)?\}?|\$\(\(.*?\)\)|\$\(.*?\)")


class Server(Struct, frozen=True):
    name: str
    runs: tuple[tuple[str, ...], ...]
    flags: tuple[str, ...]
    default: int
    source: str
    unless: tuple[str, ...] = ()


class Started(Struct, frozen=True):
    """A command that starts a server of the table: which, and what sets its port."""

    server: Server
    flag: str  # the option that sets the port ("" when none does: its default)
    value: str  # the option's value as written ("" when none)
    port: int | None  # the port when the value is a literal (or the default); None: an expansion


@lru_cache(maxsize=1)
def load() -> tuple[Server, ...]:
    return tuple(Server(entry["name"], tuple(tuple(run) for run in entry["runs"]), tuple(entry["flags"]),
                        entry["default"], entry["source"], tuple(entry.get("unless", ())))
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


@lru_cache(maxsize=1)
def _commands() -> Any:
    """Every command of the table as its words may be written: a `python -m` module by its module,
    the other words apart by blanks, quotes and commas (RE2: one linear pass for all of them)."""
    import re2

    spelled = set()
    for server in load():
        for run in server.runs:
            words = [word for word in run if word != "-m" and not word.startswith("python")]
            spelled.add(rb"[\s\"',]+".join(re.escape(word.encode()) for word in words))
    return re2.compile(b"|".join(sorted(spelled)), re2_options())


def started(words: tuple[str, ...] | list[str]) -> Started | None:
    """The server a command's words start (with its port), if any."""
    names = [word.rsplit("/", 1)[-1] for word in words]
    for server in load():
        for run in server.runs:
            at = _find(names, run)
            if at is None:
                continue
            options = words[at + len(run):]
            if any(_option(word) in server.unless for word in options):
                return None
            flag, value = _flag(options, server.flags)
            if not flag:
                return Started(server, "", "", server.default)
            digits = value.rsplit(":", 1)[-1]
            port = int(digits) if digits.isdigit() and 0 < int(digits) < 65536 else None
            return Started(server, flag, value, port)
    return None


def _find(names: list[str], run: tuple[str, ...]) -> int | None:
    for at in range(len(names) - len(run) + 1):
        if all(fnmatchcase(names[at + k], pattern) for k, pattern in enumerate(run)):
            return at
    return None


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
