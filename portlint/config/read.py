"""Reading a config file into plain data, with where each entry is written (positions.py).

YAML goes through ruamel.yaml's round-trip loader, TOML through tomllib; both
give plain dicts, lists and scalars. A syntax error is a `ConfigError` at the file.
ruamel.yaml is imported where it is used: it costs more start-up time than
reading a whole repository (docs/performance.md).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NamedTuple

from portlint.config.errors import ConfigError, Invalid, key_path
from portlint.config.locate import shown, tomllib
from portlint.config.positions import Key, toml_positions, yaml_positions

TOML_POSITION = re.compile(r" \(at line (\d+), column \d+\)$")


class Document(NamedTuple):
    data: Any  # plain dicts, lists and scalars
    positions: dict[Key, tuple[int, int]]  # entry (key path below the prefix) -> 1-based (line, column)
    prefix: tuple[str, ...]  # where the config sits in the file: ("tool", "portlint") in pyproject


def read(path: Path) -> Document:
    """Parse the file by its format into plain data; syntax errors become ConfigError."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as error:
        raise ConfigError(shown(path), "", f"cannot read the file: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(shown(path), "", f"expected UTF-8 text: {error.reason} at byte {error.start}") from None
    try:
        if path.suffix == ".toml":
            return _read_toml(text, pyproject=path.name == "pyproject.toml")
        return _read_yaml(text)
    except Invalid as problem:
        raise ConfigError(shown(path), key_path(problem.keys), problem.message) from None


def _read_yaml(text: str) -> Document:
    # The round-trip loader builds only mappings, lists and scalars (never
    # arbitrary objects: a config cannot make portlint run code), and keeps each key's position.
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        loaded = YAML(typ="rt").load(text)
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = f" (line {mark.line + 1})" if mark is not None else ""
        raise Invalid((), f"expected valid YAML: {error.problem or error.context}{line}") from None
    except YAMLError as error:  # a ReaderError: a character YAML does not allow
        position = getattr(error, "position", None)
        line = f" (line {text.count(chr(10), 0, position) + 1})" if isinstance(position, int) else ""
        raise Invalid((), f"expected valid YAML: {str(error).splitlines()[0]}{line}") from None
    except RecursionError:
        raise Invalid((), "expected YAML nested less deeply") from None
    try:
        return Document({} if loaded is None else _plain(loaded), yaml_positions(loaded), ())
    except RecursionError:
        raise Invalid((), "expected YAML nested less deeply") from None


# Values a config holds once its aliases are expanded: far more than any layout needs, far fewer
# than a "billion laughs" (aliases of lists of aliases) expands to in what reads it next (the
# schema's validation walks, and its messages print, every expanded value).
MAX_VALUES = 100_000


def _plain(value: Any) -> Any:
    """ruamel's round-trip types (ScalarInt, CommentedMap, ...) as plain Python values.

    An alias becomes the very object its anchor became, so a "billion laughs"
    config stays as small as its text here; an alias inside its own anchor is
    refused, and so is a config of more than MAX_VALUES values once its aliases
    are expanded (counted here, each anchor once, before anything expands them).
    """
    from ruamel.yaml.scalarbool import (
        ScalarBoolean,  # an anchored boolean: an int subclass
    )

    done: dict[int, Any] = {}
    sizes: dict[int, int] = {}  # values under a mapping or list, itself included, aliases expanded
    open_: set[int] = set()

    def plain(item: Any, keys: tuple[str | int, ...]) -> Any:
        if isinstance(item, ScalarBoolean):
            return bool(item)
        if isinstance(item, (dict, list)):
            if id(item) in open_:
                raise Invalid(keys, "expected no alias inside its own anchor (a recursive structure)")
            if id(item) not in done:
                open_.add(id(item))
                if isinstance(item, dict):
                    done[id(item)] = {str(k): plain(v, (*keys, str(k))) for k, v in item.items()}
                else:
                    done[id(item)] = [plain(v, (*keys, i)) for i, v in enumerate(item)]
                open_.discard(id(item))
                children = item.values() if isinstance(item, dict) else item
                sizes[id(item)] = 1 + sum(sizes.get(id(child), 1) for child in children)
                if sizes[id(item)] > MAX_VALUES:
                    raise Invalid(keys, f"expected at most {MAX_VALUES} values once aliases are expanded")
            return done[id(item)]
        for kind in (bool, int, float, str):  # bool first: it is an int
            if isinstance(item, kind):
                return kind(item)
        return item

    return plain(value, ())


def _read_toml(text: str, pyproject: bool) -> Document:
    toml = tomllib()
    try:
        data: Any = toml.loads(text)
    except toml.TOMLDecodeError as error:
        raise Invalid((), "expected valid TOML: " + TOML_POSITION.sub(r" (line \1)", str(error))) from None
    except RecursionError:  # arrays or inline tables nested past tomllib's recursion
        raise Invalid((), "expected TOML nested less deeply") from None
    prefix: tuple[str, ...] = ()
    if pyproject:
        prefix = ("tool", "portlint")
        tool = data.get("tool", {})
        if not isinstance(tool, dict) or "portlint" not in tool:
            raise Invalid((), "expected a [tool.portlint] table")
        data = tool["portlint"]
    found = toml_positions(text)
    positions = {key[len(prefix):]: where for key, where in found.items() if key[:len(prefix)] == prefix}
    return Document(data, positions, prefix)
