"""Commands written in YAML: `command:`/`args:` of Kubernetes, compose and CI files, the
`run:`/`setup:` scripts of a SkyPilot task, and KubeRay's `rayStartParams`.

* A string under `command:` or `args:` (a block scalar, usually) is a shell
  script: it is scanned with the shell scanner, and each command's position is
  moved into the YAML file (exactly for `|` blocks and one-line strings; at the
  string's start otherwise, where folding has joined its lines).
* A string under a document's top-level `run:` or `setup:` (a SkyPilot task) is
  a script too; a nested `run:` is left alone, as any other value.
* Lists under `command:` and `args:` of one mapping are one argument vector
  (Kubernetes runs `command` + `args`); `[bash, -c, script]` runs the script.
  A container's commands (a `containers:` item of a pod spec without
  `hostNetwork: true`) are marked `pod_network`: they run in the pod's own
  network namespace.
* A `rayStartParams` mapping is the `ray start` KubeRay runs: its keys are the
  options without their leading dashes, and a head group's pod gets `--head`.
  The command is marked `pod_network` unless the group's pod template sets
  `hostNetwork: true`; a `rayStartParams` under `properties:` is a CRD schema
  describing the field, which runs nothing.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from portlint.model.naming import NameFilter
from portlint.model.records import structs
from portlint.model.sites import Command
from portlint.model.source import Source
from portlint.speed.switch import fast
from portlint.tables.tool_defaults import mentions_tool

_INVOKING_KEYS = ("command", "args")
_SHELLS = frozenset("sh bash dash ksh zsh".split())
_SHELL_C = re.compile(r"-[A-Za-z]*c")
KEYS = frozenset(("rayStartParams", "command", "args", "run", "setup"))  # a mapping with none of them runs nothing
_INVOKING = frozenset(_INVOKING_KEYS)


def find(source: Source, roots: list[Any], names: NameFilter) -> tuple[Command, ...]:
    """Every command the YAML documents run, in file order."""
    from portlint.stages.extract.yaml import walk

    mappings = [(path, node) for path, node in walk(roots) if node.id == "mapping"]
    return find_in(source, mappings, names)


def find_in(source: Source, mappings: list[tuple[str, Any]], names: NameFilter,
            in_pod: Callable[[str], bool] = lambda path: False) -> tuple[Command, ...]:
    """Every command the (key path, mapping) pairs run, in file order: the extractor's own
    walk hands over only the mappings with a key of KEYS. `in_pod` says which key paths are a
    container of a pod that keeps its own network namespace: its commands are marked `pod_network`.
    Commands matter where they may run a tool of the table (PL603): where no script or argument
    list of the file names one (the fast path `commands`), only the `rayStartParams` are read."""
    found: list[Command] = []
    reads = not fast("commands") or _may_run_a_tool(mappings)
    for path, node in mappings:
        invoking = []
        for key, value in node.value:
            if key.id != "scalar":
                continue
            if key.value == "rayStartParams":
                found += _ray_start(source, path, node, key, value)
            elif not reads:
                continue
            elif key.value in _INVOKING:
                invoking.append((_INVOKING_KEYS.index(key.value), value))
            elif _runs_script(path, key) and value.id == "scalar" and value.value.strip():
                found += _script(source, value, names)
        if invoking:
            commands = _invocation(source, [value for _, value in sorted(invoking, key=lambda kv: kv[0])], names)
            found += [structs.replace(c, pod_network=True) for c in commands] if in_pod(path) else commands
    return tuple(sorted(found, key=lambda command: (command.line, command.column)))


def _may_run_a_tool(mappings: list[tuple[str, Any]]) -> bool:
    """Whether the text of a script or an argument list of the mappings names a tool of the
    table (tool_defaults.mentions_tool, on the strings as the composer read them: escapes and
    folded lines resolved)."""
    texts = []
    for path, node in mappings:
        for key, value in node.value:
            if key.id != "scalar" or not (key.value in _INVOKING or _runs_script(path, key)):
                continue
            if value.id == "scalar":
                texts.append(value.value)
            elif value.id == "sequence":
                texts.append(" ".join(item.value for item in value.value if item.id == "scalar"))
    return mentions_tool("shell", "\n".join(texts).encode("utf-8", "surrogatepass"))


def _runs_script(path: str, key: Any) -> bool:
    """A SkyPilot task's `run:`/`setup:`: at the top of the document."""
    return path == "" and key.id == "scalar" and key.value in ("run", "setup")


def _ray_start(source: Source, path: str, group: Any, key: Any, params: Any) -> list[Command]:
    if params.id != "mapping" or path.rsplit(".", 1)[-1] == "properties":
        return []
    head = path.rsplit(".", 1)[-1].startswith("headGroupSpec")
    options = [
        f"--{name.value}={value.value}" for name, value in params.value if name.id == "scalar" and value.id == "scalar"
    ]
    words = ("ray", "start", *(("--head",) if head else ()), *options)
    line, column = key.start_mark.line + 1, key.start_mark.column + 1
    end = key.end_mark
    return [Command(
        source.path, line, column, words, (), end.line + 1, end.column + 1, via="kuberay",
        pod_network=not _host_network(group),
    )]


def _host_network(group: Any) -> bool:
    """Whether a KubeRay group's pod template (`template.spec`) sets `hostNetwork: true`."""
    node = group
    for key in ("template", "spec"):
        node = _value(node, key)
        if node is None:
            return False
    flag = _value(node, "hostNetwork")
    return flag is not None and flag.id == "scalar" and flag.value.lower() == "true"


def _value(mapping: Any, key: str) -> Any:
    if mapping.id != "mapping":
        return None
    return next((v for k, v in mapping.value if k.id == "scalar" and k.value == key), None)


def _invocation(source: Source, values: list[Any], names: NameFilter) -> list[Command]:
    """`command:` + `args:` of one mapping: scripts in strings, or one argument vector."""
    found: list[Command] = []
    argv = []
    for value in values:
        if value.id == "scalar" and value.value.strip():
            found += _script(source, value, names)
        elif value.id == "sequence":
            argv += [item for item in value.value if item.id == "scalar"]
    script = _script_index(argv)
    if script is not None:
        found += _script(source, argv[script], names)
    elif argv:
        first, last = argv[0].start_mark, argv[-1].end_mark
        words = tuple(item.value for item in argv)
        found.append(Command(source.path, first.line + 1, first.column + 1, words, (), last.line + 1, last.column + 1))
    return found


def _script_index(argv: list[Any]) -> int | None:
    """Where the script of `[bash, -c, script]` is (also `sh -lc -- script`), else None."""
    if len(argv) < 3 or argv[0].value.rsplit("/", 1)[-1] not in _SHELLS or not _SHELL_C.fullmatch(argv[1].value):
        return None
    script = 3 if argv[2].value == "--" else 2
    return script if script < len(argv) else None


def _script(source: Source, node: Any, names: NameFilter) -> list[Command]:
    """The commands of a script in a YAML string. One that names no tool of the table runs none
    (the fast path `commands`, per script: a file's other scripts may name one), so it is not read."""
    from portlint.stages.extract import shell

    data = node.value.encode("utf-8")
    if fast("commands") and not mentions_tool("shell", data):
        return []
    extraction = shell.extract(Source(source.path, data), names)
    return [_moved(source, node, command) for command in extraction.commands]


def _moved(source: Source, node: Any, command: Command) -> Command:
    """A command found in a YAML string, placed where its text is in the file."""
    mark = node.start_mark
    if node.style == "|":
        content = mark.line + 1  # 0-based line of the block's first content line
        indent = _block_indent(source, content)
        return structs.replace(
            command,
            line=content + command.line, column=indent + command.column,
            end_line=content + command.end_line, end_column=indent + command.end_column,
        )
    quoted = node.style in ("'", '"')
    if mark.line == node.end_mark.line and command.line == 1:
        shift = mark.column + quoted
        return structs.replace(
            command, line=mark.line + 1, column=shift + command.column,
            end_line=mark.line + 1, end_column=shift + command.end_column,
        )
    return structs.replace(
        command, line=mark.line + 1, column=mark.column + 1, end_line=mark.line + 1, end_column=mark.column + 1
    )


def _block_indent(source: Source, first_line0: int) -> int:
    """Indentation of a block scalar: that of its first non-blank content line."""
    for line0 in range(first_line0, len(source.line_starts)):
        text = source.line_bytes(line0 + 1).rstrip(b"\r\n")
        if text.strip():
            return len(text) - len(text.lstrip(b" "))
    return 0
