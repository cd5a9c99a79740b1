"""The table of tools' implicit port defaults (`tool_defaults.yaml`), and which commands run them.

The table is package data, validated against `tool_defaults.schema.json` when
loaded (a broken table is a packaging bug: it raises). `invocation(tool,
command)` says whether a command runs a tool and with which options; PL603
judges the ports left out.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from fnmatch import fnmatchcase, translate
from functools import lru_cache
from typing import Any

from portlint.model.records import Struct, replace
from portlint.model.sites import Command
from portlint.speed.needles import holds, holds_any
from portlint.tables import packaged, source

# What the table's tools look like as bytes: a file without any runs none of them,
# whatever its port tokens say (`ray start` with no port option at all). Literal
# tests first (portlint.speed.needles: one pass for all); the regex only where "start" occurs.
# tests/rules/test_tool_defaults.py keeps this in step with the table.
_NEEDLES = (b"rayStartParams", b"torchrun", b"torch.distributed.run", b"torch.distributed.launch", b"MASTER_ADDR")
# `ray start`, and its words as items of a list (`[ray, start]`, `["ray", "start"]`, a YAML block
# sequence's `- ray` then `- start`): what lies between is blanks, quotes, commas and dashes, or a
# line break or tab escaped in a string (`"...\nray start"`, which also stands before the word).
_BETWEEN_WORDS = rb"(?:[\s,'\"-]|\\[ntr])+"
_RAY_START = re.compile(rb"ray(?:(?<![\w]ray)|(?<=\\[ntr]ray))" + _BETWEEN_WORDS + rb"start\b")
# `"$RAY_BIN" start`, `${RAY} start`: a program held in a variable (resolved by `programs_resolved`).
_VARIABLE_START = re.compile(rb"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?" + _BETWEEN_WORDS + rb"start\b")
# What a variable holding a program is assigned: `$(which ray)`, `$(command -v ray)`, a path, `${X:-ray}`.
_LOOKUP = re.compile(r"(?:\$\(|`)(?:which|command -v|type -P)[ \t]+([^\s()`]+)[ \t]*(?:\)|`)")
_DEFAULTED = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*:?-([^{}\s]+)\}")
# The name starts after the last `/`, `$`, `{`, `}` or `~` (none is in a name) and any digits, dots
# and dashes: said so, the pattern never retries a split (a lazy prefix before a greedy name was
# quadratic in a word that is no path).
_PROGRAM_PATH = re.compile(r"(?:[A-Za-z0-9_./${}~-]*[/${}~])?[0-9.-]*([A-Za-z_][A-Za-z0-9_.+-]*)")
_EXPANSION = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")
# `RAY_BIN`, `RAY_EXECUTABLE`, `PYTHON`: a variable the file does not assign, named after its program.
_PROGRAM_WORDS = frozenset("bin binary cmd command exe executable path".split())
_DECLARATIONS = frozenset("export local readonly declare typeset".split())
_NOT_RUNNING = frozenset(("echo", "printf", ":", "#"))
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

Default = tuple[int, int] | None  # (low, high), a single port as (p, p); None: picked at random


class PortDefault(Struct, frozen=True):
    what: str
    default: Default
    flag: str = ""  # normalized: `--min-worker-port`
    high_flag: str = ""
    env: tuple[str, ...] = ()
    via: tuple[tuple[str, Default], ...] = ()
    only_with: tuple[str, ...] = ()
    unless: tuple[str, ...] = ()
    layout_only_with: tuple[str, ...] = ()
    layout_unless: tuple[str, ...] = ()

    @property
    def flags(self) -> str:
        return f"{self.flag}/{self.high_flag}" if self.high_flag else self.flag or self.env[0]

    def shares_the_layout(self, run: Invocation) -> bool:
        """Whether the layout's bands judge this port in `run` (`layout_only_with`/`layout_unless`)."""
        if self.layout_only_with and not any(run.gives(option) for option in self.layout_only_with):
            return False
        return not any(run.gives(option) for option in self.layout_unless)

    def default_via(self, launcher: str) -> Default:
        return dict(self.via).get(launcher, self.default) if launcher else self.default


class Tool(Struct, frozen=True, eq=False):  # compared and hashed by identity: cheap as a cache key
    name: str
    ports: tuple[PortDefault, ...]
    runs: tuple[tuple[str, ...], ...] = ()
    sets: str = ""
    unless_runs: tuple[str, ...] = ()
    reference: str = ""


class Invocation(Struct, frozen=True):
    """A command that runs a tool: its options (normalized name -> value; "" for a bare flag)."""

    tool: Tool
    command: Command
    options: dict[str, str]

    def gives(self, option: str) -> bool:
        """`--head` is given; `--include-dashboard=false` only with that value."""
        name, _, value = option.partition("=")
        given = self.options.get(normalized(name))
        return given is not None and (not value or given.lower() == value.lower())


def mentions_tool(kind: str, data: bytes) -> bool:
    """Whether a script, YAML or Python file may run a tool of the table (a cheap byte test)."""
    if kind not in ("shell", "yaml", "python"):
        return False
    if holds_any(data, _NEEDLES):
        return True
    if not holds(data, b"start"):
        return False
    if holds(data, b"ray") and _RAY_START.search(data) is not None:
        return True
    return (holds(data, b"ray") or holds(data, b"RAY")) and _VARIABLE_START.search(data) is not None


def programs_resolved(commands: list[Command]) -> list[Command]:
    """The commands (in file order) with a word that is only `$VAR` replaced by the program
    the file last assigned to VAR (`RAY_BIN=$(which ray)`, `RAY=/opt/conda/bin/ray`,
    `PY=${PY:-python3}`) or, when the file assigns it nothing, the program VAR is named
    after (`$RAY_BIN`, `${RAY_EXECUTABLE}`: ray)."""
    held: dict[str, str] = {}
    resolved = []
    for command in commands:
        words = command.words
        if any(word.startswith("$") for word in words):
            words = tuple(_program_of(word, held) for word in words)
        resolved.append(command if words == command.words else replace(command, words=words))
        for name, value in _assigned(command):
            expansion = _EXPANSION.fullmatch(value)
            held[name] = held.get(expansion.group(1), "") if expansion else _program(value)  # "": no program
    return resolved


def _assigned(command: Command) -> list[tuple[str, str]]:
    found = list(command.assignments)
    words = command.words
    if words and words[0] in _DECLARATIONS:
        found += [tuple(word.split("=", 1)) for word in words[1:] if "=" in word]  # type: ignore[misc]
    return found


def _program(value: str) -> str:
    """The program a variable's value names (its last path component), or ""."""
    lookup = _LOOKUP.fullmatch(value) or _DEFAULTED.fullmatch(value)
    if lookup:
        value = lookup.group(1)
    path = _PROGRAM_PATH.fullmatch(value)
    return path.group(1) if path and not path.group(1)[0].isdigit() else ""


def _program_of(word: str, held: dict[str, str]) -> str:
    expansion = _EXPANSION.fullmatch(word)
    if not expansion:
        return word
    name = expansion.group(1)
    if name in held:
        return held[name] or word
    first, *rest = name.lower().split("_")
    return first if rest and _PROGRAM_WORDS.issuperset(rest) and first.isalpha() else word


@lru_cache(maxsize=1)
def load() -> tuple[Tool, ...]:
    """The packaged table. It is validated against its schema by the test suite, not on
    every run: a check never imports jsonschema."""
    return tuple(_tool(entry) for entry in table()["tools"])


def table() -> dict[str, Any]:
    """The packaged table as data (tool_defaults.json, generated from tool_defaults.yaml)."""
    return packaged("tool_defaults")


def from_yaml() -> dict[str, Any]:
    """`tool_defaults.yaml` parsed: what `tool_defaults.json` must hold."""
    return source("tool_defaults")


def invocation(tool: Tool, command: Command) -> Invocation | None:
    """The invocation of `tool` by `command`, if it runs it (or, for a `sets` tool, sets its variable)."""
    return next(invocations((tool,), command), None)


def invocations(tools: tuple[Tool, ...], command: Command) -> Iterator[Invocation]:
    """Every tool of `tools` the command runs (each once), in the tools' order."""
    words = command.words
    if words and words[0] in _NOT_RUNNING:
        return
    first = _first_words(tools)
    starts = [i for i, word in enumerate(words) if first.match(word.rsplit("/", 1)[-1])]
    for tool in tools:
        if tool.sets:
            if tool.sets in variables_set(command):
                yield Invocation(tool, command, {})
            continue
        start_and_prefix = next(((i, p) for i in starts for p in tool.runs if _runs(words, i, p)), None)
        if start_and_prefix is not None:
            start, prefix = start_and_prefix
            yield Invocation(tool, command, options(words[start + len(prefix):]))


def variables_set(command: Command) -> set[str]:
    """Variables a command sets: in front of it, after export/declare/..., or after `env`."""
    found = {name for name, _ in command.assignments}
    words = command.words
    if words and (words[0] in _DECLARATIONS or words[0] == "env"):
        for word in words[1:]:
            name = word.split("=", 1)[0]
            if _VARIABLE.fullmatch(name) and ("=" in word or words[0] != "env"):
                found.add(name)
    return found


def options(words: tuple[str, ...]) -> dict[str, str]:
    """`--name=value` and `--name value` (a next word that is no option), names normalized."""
    found: dict[str, str] = {}
    previous = ""
    for word in words:
        if word.startswith("-") and len(word) > 1:
            name, equals, value = word.partition("=")
            previous = "" if equals else normalized(name)
            found[normalized(name)] = value
        elif previous:
            found[previous] = word
            previous = ""
    return found


@lru_cache(maxsize=1)
def documented_defaults() -> dict[str, frozenset[int]]:
    """The tools' own settings by name (an environment variable, `MASTER_PORT`; an option whose name
    says more than `--port`, as `master-port`) -> the ports the table gives them by default: what a
    tool's documentation states for them (PL501 reads this: such a doc describes that tool)."""
    found: dict[str, set[int]] = {}
    for tool in load():
        for port in tool.ports:
            defaults = [d for d in (port.default, *(d for _, d in port.via)) if d]
            for names, end in ((port.env, None), ((port.flag,), 0), ((port.high_flag,), 1)):
                for name in (n.lstrip("-") for n in names if n and n.lstrip("-") != "port"):
                    found.setdefault(name, set()).update(v for d in defaults for v in (d if end is None else (d[end],)))
    return {name: frozenset(values) for name, values in found.items()}


def normalized(option: str) -> str:
    """`--master_port` and `--master-port` name one option."""
    return option.replace("_", "-")


@lru_cache(maxsize=8)
def _first_words(tools: tuple[Tool, ...]) -> re.Pattern[str]:
    """One pattern for the first word of every prefix of the tools: most words match none."""
    patterns = [translate(prefix[0]) for tool in tools for prefix in tool.runs]
    return re.compile("|".join(patterns) or "(?!)")


def _runs(words: tuple[str, ...], start: int, prefix: tuple[str, ...]) -> bool:
    if start + len(prefix) > len(words):
        return False
    first = words[start].rsplit("/", 1)[-1]
    if not fnmatchcase(first, prefix[0]):
        return False
    return all(fnmatchcase(word, pattern) for word, pattern in zip(words[start + 1:], prefix[1:]))


def _tool(entry: dict[str, Any]) -> Tool:
    return Tool(
        entry["name"], tuple(_port(port) for port in entry["ports"]),
        tuple(tuple(prefix) for prefix in entry.get("runs", ())), entry.get("sets", ""),
        tuple(entry.get("unless_runs", ())), entry.get("reference", ""),
    )


def _port(entry: dict[str, Any]) -> PortDefault:
    return PortDefault(
        entry["what"], _default(entry["default"]), normalized(entry.get("flag", "")),
        normalized(entry.get("high_flag", "")), tuple(entry.get("env", ())),
        tuple((launcher, _default(value)) for launcher, value in entry.get("via", {}).items()),
        tuple(entry.get("only_with", ())), tuple(entry.get("unless", ())),
        tuple(entry.get("layout_only_with", ())), tuple(entry.get("layout_unless", ())),
    )


def _default(value: int | list[int] | str) -> Default:
    if value == "random":
        return None
    if isinstance(value, list):
        return value[0], value[1]
    assert isinstance(value, int)
    return value, value
