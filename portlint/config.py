"""Find, load and validate portlint's configuration (the README's Configuration section).

A config is `.portlint.yaml` / `.portlint.yml`, `portlint.toml` or the
`[tool.portlint]` table of `pyproject.toml`, searched from the target upward to
the repository root. Every format is parsed into plain data, validated against
the JSON Schema shipped beside this module (`config_schema.json`), then checked
for what a schema cannot say (range order, band references). The first problem
becomes a `ConfigError` naming the file, the key path and what was expected.

ruamel.yaml and jsonschema are imported where they are used: together they
cost more start-up time than reading a whole repository (Speed, in the README's Design notes).
Finding the file and the root is portlint/locate.py's (re-exported here): the warm
path of portlint/runcache.py asks it without importing this module.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

from portlint.codes import CHECK_CODES
from portlint.config_positions import Key, toml_positions, yaml_positions
from portlint.locate import CONFIG_NAMES as CONFIG_NAMES
from portlint.locate import ConfigError as ConfigError
from portlint.locate import absolute as _absolute
from portlint.locate import find_config as find_config
from portlint.locate import inside as _inside
from portlint.locate import root_of as _root
from portlint.locate import shown as _shown
from portlint.locate import split_config_args as split_config_args
from portlint.locate import tomllib as _tomllib
from portlint.model import MAX_PORT, MIN_PORT, Band, FrozenSpec, Selector, Window, is_port
from portlint.scope import DEFAULT_TEST_PATHS
from portlint.suggest import did_you_mean

DEFAULT_INCLUDE = (
    "**/*.yaml", "**/*.yml", "**/*.sh", "**/*.bash", "**/*.sub", "**/*.sbatch", "**/*.py", "**/*.md",
)
# Linux's default net.ipv4.ip_local_port_range is 32768-60999: without a config
# (or when the host's range cannot be read) that is where ephemeral ports begin.
STOCK_FLOOR = 32768
PORT_RANGE_FILE = "sys/net/ipv4/ip_local_port_range"  # under /proc

_RANGE = re.compile(r"\s*([0-9]+)\s*-\s*([0-9]+)\s*")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_TOML_POSITION = re.compile(r" \(at line (\d+), column \d+\)$")


@dataclass(frozen=True)
class Config:
    path: Path | None  # the config file (absolute), None in zero-config
    root: Path  # repository root (absolute): the git work tree, wherever the config is (see _root)
    ephemeral_floor: int
    floor_note: str  # why "auto" fell back to the stock floor, "" otherwise
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    bands: tuple[Band, ...]
    frozen: tuple[FrozenSpec, ...]
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...]
    declared: bool  # a config file was found, with or without bands
    positions: Mapping[Key, tuple[int, int]] = field(default_factory=dict, compare=False, repr=False)  # entry -> (line, column)
    test_paths: tuple[str, ...] = DEFAULT_TEST_PATHS  # test-like paths: a scope of their own (portlint.scope)


class _Invalid(Exception):
    """A problem at a key path inside the document; load_config adds the file."""

    def __init__(self, keys: tuple[str | int, ...], message: str) -> None:
        super().__init__(keys, message)
        self.keys = keys
        self.message = message


class _Document(NamedTuple):
    data: Any  # plain dicts, lists and scalars
    positions: dict[Key, tuple[int, int]]  # entry (key path below the prefix) -> 1-based (line, column)
    prefix: tuple[str, ...]  # where the config sits in the file: ("tool", "portlint") in pyproject


# Loading


def load_config(
    path: Path | None,
    start: Path,
    floor_override: str | None = None,
    proc_root: Path = Path("/proc"),
    overrides: tuple[str, ...] = (),
) -> Config:
    """The validated config of `path` (zero-config defaults when None), with `--config KEY=VALUE` overrides."""
    override = None if floor_override is None else _parse_floor_override(floor_override)
    path = None if path is None else _absolute(path)
    root = _root(start, path)
    changes = [(text, _parse_override(text)) for text in overrides]
    if path is None and not changes:
        floor, note = _resolve_floor(override or STOCK_FLOOR, proc_root)
        return Config(None, root, floor, note, DEFAULT_INCLUDE, (), (), (), (), declared=False)
    document = _read(path) if path is not None else _Document({}, {}, ())
    data = document.data
    for _, change in changes:
        data = _merged(data, change) if isinstance(data, dict) else data
    try:
        return _build(path, document._replace(data=data), override, proc_root, root)
    except _Invalid:
        pass
    # Blame the file, or else the first override that makes the config invalid.
    data = document.data
    for text, change in [("", {}), *changes]:
        data = _merged(data, change) if isinstance(data, dict) else data
        try:
            _build(path, document._replace(data=data), override, proc_root, root)
        except _Invalid as problem:
            if text:
                raise ConfigError(f"--config {json.dumps(text)}", _key_path(problem.keys), problem.message) from None
            keys = (*document.prefix, *problem.keys)
            raise ConfigError(_shown(path) if path else "--config", _key_path(keys), problem.message) from None
    raise AssertionError("unreachable: the merged config failed, so one step fails")  # pragma: no cover


def _parse_override(text: str) -> dict[str, Any]:
    """One `--config 'KEY = VALUE'`: a TOML document of a single (dotted) key."""
    tomllib = _tomllib()
    try:
        parsed: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        reason = _TOML_POSITION.sub("", str(error))
        raise ConfigError(f"--config {json.dumps(text)}", "", f"expected a config file or a TOML KEY = VALUE setting: {reason}") from None
    if not parsed:
        raise ConfigError(f"--config {json.dumps(text)}", "", "expected a config file or a TOML KEY = VALUE setting")
    return parsed


def _merged(base: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """`change` laid over `base`: tables merge key by key, anything else is replaced."""
    merged = dict(base)
    for key, value in change.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merged(merged[key], value)
        else:
            merged[key] = value
    return merged


def _touches(change: dict[str, Any], keys: tuple[str | int, ...]) -> bool:
    """The override sets the key path `keys`, or something inside or above it."""
    value: Any = change
    for key in keys:
        if not isinstance(value, dict):
            return True  # the override replaced a value above this key
        if key not in value:
            return False
        value = value[key]
    return bool(keys)


def _build(path: Path | None, document: _Document, override: int | str | None, proc_root: Path, root: Path) -> Config:
    data = document.data
    if not isinstance(data, dict):
        where = "at the top level" if not document.prefix else "for [tool.portlint]"
        raise _Invalid((), f"expected a mapping {where}, got {_describe(data)}")
    _validate(data)
    bands = tuple(
        _band(name, spec, document.positions.get(("bands", name), (1, 1))) for name, spec in data.get("bands", {}).items()
    )
    _check_references(bands)
    _check_codes(data.get("per_file_ignores", {}))
    floor, note = _resolve_floor(override or data.get("ephemeral_floor", STOCK_FLOOR), proc_root)
    return Config(
        path=path,
        root=root,
        ephemeral_floor=floor,
        floor_note=note,
        include=tuple(data.get("include", DEFAULT_INCLUDE)),
        exclude=tuple(data.get("exclude", ())),
        bands=bands,
        frozen=tuple(_frozen(index, spec, root) for index, spec in enumerate(data.get("frozen", ()))),
        per_file_ignores=tuple((glob, tuple(codes)) for glob, codes in data.get("per_file_ignores", {}).items()),
        declared=path is not None,
        positions=document.positions,
        test_paths=tuple(data.get("test_paths", DEFAULT_TEST_PATHS)),
    )


def _frozen(index: int, spec: dict[str, Any], root: Path) -> FrozenSpec:
    """A frozen-copy entry; a template that leaves the repository is refused."""
    sources = spec["source"] if isinstance(spec["source"], list) else [spec["source"]]
    for key, templates in (("copies", [spec["copies"]]), ("source", sources)):
        for template in templates:
            try:
                sample = template.format(name="x.yaml", stem="x")
            except (KeyError, IndexError, ValueError):
                raise _Invalid(("frozen", index, key), f"expected a path template using {{name}} or {{stem}}, got {template!r}") from None
            if os.path.isabs(sample) or not _inside(root, root / sample):
                raise _Invalid(("frozen", index, key), f"resolves outside the repository root: {template!r}")
    return FrozenSpec(spec["copies"], tuple(sources), spec.get("compare", "ports"), spec.get("inferred", False))


def _read(path: Path) -> _Document:
    """Parse the file by its format into plain data; syntax errors become ConfigError."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as error:
        raise ConfigError(_shown(path), "", f"cannot read the file: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(_shown(path), "", f"expected UTF-8 text: {error.reason} at byte {error.start}") from None
    try:
        if path.suffix == ".toml":
            return _read_toml(text, pyproject=path.name == "pyproject.toml")
        return _read_yaml(text)
    except _Invalid as problem:
        raise ConfigError(_shown(path), _key_path(problem.keys), problem.message) from None


def _read_yaml(text: str) -> _Document:
    # The round-trip loader builds only mappings, lists and scalars (never
    # arbitrary objects: a config cannot make portlint run code), and keeps each key's position.
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        loaded = YAML(typ="rt").load(text)
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = f" (line {mark.line + 1})" if mark is not None else ""
        raise _Invalid((), f"expected valid YAML: {error.problem or error.context}{line}") from None
    except YAMLError as error:  # a ReaderError: a character YAML does not allow
        position = getattr(error, "position", None)
        line = f" (line {text.count(chr(10), 0, position) + 1})" if isinstance(position, int) else ""
        raise _Invalid((), f"expected valid YAML: {str(error).splitlines()[0]}{line}") from None
    except RecursionError:
        raise _Invalid((), "expected YAML nested less deeply") from None
    try:
        return _Document({} if loaded is None else _plain(loaded), yaml_positions(loaded), ())
    except RecursionError:
        raise _Invalid((), "expected YAML nested less deeply") from None


def _plain(value: Any) -> Any:
    """ruamel's round-trip types (ScalarInt, CommentedMap, ...) as plain Python values.

    An alias becomes the very object its anchor became, so a "billion laughs"
    config stays as small as its text; an alias inside its own anchor is refused.
    """
    from ruamel.yaml.scalarbool import (
        ScalarBoolean,  # an anchored boolean: an int subclass
    )

    done: dict[int, Any] = {}
    open_: set[int] = set()

    def plain(item: Any, keys: tuple[str | int, ...]) -> Any:
        if isinstance(item, ScalarBoolean):
            return bool(item)
        if isinstance(item, (dict, list)):
            if id(item) in open_:
                raise _Invalid(keys, "expected no alias inside its own anchor (a recursive structure)")
            if id(item) not in done:
                open_.add(id(item))
                if isinstance(item, dict):
                    done[id(item)] = {str(k): plain(v, (*keys, str(k))) for k, v in item.items()}
                else:
                    done[id(item)] = [plain(v, (*keys, i)) for i, v in enumerate(item)]
                open_.discard(id(item))
            return done[id(item)]
        for kind in (bool, int, float, str):  # bool first: it is an int
            if isinstance(item, kind):
                return kind(item)
        return item

    return plain(value, ())


def _read_toml(text: str, pyproject: bool) -> _Document:
    tomllib = _tomllib()
    try:
        data: Any = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise _Invalid((), "expected valid TOML: " + _TOML_POSITION.sub(r" (line \1)", str(error))) from None
    prefix: tuple[str, ...] = ()
    if pyproject:
        prefix = ("tool", "portlint")
        tool = data.get("tool", {})
        if not isinstance(tool, dict) or "portlint" not in tool:
            raise _Invalid((), "expected a [tool.portlint] table")
        data = tool["portlint"]
    found = toml_positions(text)
    positions = {key[len(prefix):]: where for key, where in found.items() if key[:len(prefix)] == prefix}
    return _Document(data, positions, prefix)


# Schema validation


@cache
def _schema() -> dict[str, Any]:
    from importlib.resources import files

    schema: dict[str, Any] = json.loads((files("portlint") / "config_schema.json").read_text(encoding="utf-8"))
    return schema


def _validate(data: dict[str, Any]) -> None:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    error = best_match(Draft202012Validator(_schema()).iter_errors(data))
    if error is not None:
        raise _Invalid(tuple(error.absolute_path), _schema_message(error))


def _schema_message(error: Any) -> str:
    """A jsonschema ValidationError as "expected X, got Y" (or an unknown/missing key)."""
    keyword, schema, instance = error.validator, error.schema, error.instance
    if keyword == "additionalProperties":
        known = list(schema.get("properties", {}))
        unknown = next(key for key in instance if key not in known)
        return f'unknown key "{unknown}"' + did_you_mean(unknown, known, quoted=True)
    if keyword == "required":
        missing = next(key for key in error.validator_value if key not in instance)
        return f'missing required key "{missing}"'
    if keyword == "oneOf":
        keys = [key for branch in error.validator_value for key in branch.get("required", ())]
        present = [key for key in keys if key in instance]
        got = "both" if present else "neither"
        return f"expected exactly one of {' or '.join(map(json.dumps, keys))}, got {got}"
    expected = schema.get("x-expected") or _expectation(keyword, schema)
    return f"expected {expected}, got {_describe(instance)}" if expected else error.message


def _expectation(keyword: str, schema: dict[str, Any]) -> str:
    if keyword == "type":
        types: list[str] = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        return " or ".join(_TYPE_WORDS.get(name, name) for name in types)
    if keyword in ("minimum", "maximum"):
        if "maximum" in schema:
            return f"an integer {schema.get('minimum', '')}..{schema['maximum']}"
        return f"an integer >= {schema['minimum']}"
    if keyword == "enum":
        return "one of " + ", ".join(json.dumps(value) for value in schema["enum"])
    if keyword == "minLength":
        return "a non-empty string"
    return ""  # pragma: no cover - every other keyword of the schema carries x-expected


_TYPE_WORDS = {
    "integer": "an integer",
    "string": "a string",
    "array": "a list",
    "object": "a mapping",
    "boolean": "true or false",
}


# Bands: what the schema cannot say


def _band(name: str, spec: dict[str, Any], position: tuple[int, int]) -> Band:
    low, high = _bounds(name, spec)
    window = spec.get("window")
    band = Band(
        name=name,
        low=low,
        high=high,
        description=spec.get("description", ""),
        within=spec.get("within", ""),
        shares_with=tuple(spec.get("shares_with", ())),
        ports=tuple(spec.get("ports", {}).items()),
        window=Window(window["stride"], window["count"]) if window else None,
        files=_globs(spec.get("files", ())),
        sites=tuple(_selector(site) for site in spec.get("sites", ())),
        privileged=spec.get("privileged", False),
        inferred=spec.get("inferred", False),
        line=position[0],
        column=position[1],
    )
    for port_name, port in band.ports:
        if not band.contains(port):
            raise _Invalid(("bands", name, "ports", port_name), f"expected a port inside {band.span}, got {port}")
    return band


def _bounds(name: str, spec: dict[str, Any]) -> tuple[int, int]:
    if "port" in spec:
        return spec["port"], spec["port"]
    written = spec["range"]
    if isinstance(written, str):
        match = _RANGE.fullmatch(written)
        assert match is not None  # the schema's pattern
        low, high, form, shown = int(match[1]), int(match[2]), "LOW-HIGH", json.dumps(written)
    else:
        low, high = written
        form, shown = "[LOW, HIGH]", f"[{low}, {high}]"
    if not (is_port(low) and is_port(high)):
        raise _Invalid(("bands", name, "range"), f"expected {form} with ports in {MIN_PORT}..{MAX_PORT}, got {shown}")
    if low > high:
        raise _Invalid(("bands", name, "range"), f"expected {form} with LOW <= HIGH, got {shown}")
    return low, high


def _selector(site: str | dict[str, Any]) -> Selector:
    if isinstance(site, str):
        return Selector(site)
    return Selector(site["name"], _globs(site.get("files", ())), site.get("kind", ""), site.get("role", ""))


def _globs(value: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


def _check_references(bands: tuple[Band, ...]) -> None:
    """`within` and `shares_with` name other bands; a carve-out lies inside its parent."""
    by_name = {band.name: band for band in bands}
    for band in bands:
        for index, other in enumerate(band.shares_with):
            _known_band(other, by_name, ("bands", band.name, "shares_with", index))
        if not band.within:
            continue
        where = ("bands", band.name, "within")
        if band.within == band.name:
            raise _Invalid(where, f'expected another band, got "{band.name}" itself')
        parent = _known_band(band.within, by_name, where)
        if not (parent.low <= band.low and band.high <= parent.high):
            raise _Invalid(where, f'expected a range inside "{parent.name}" ({parent.span}), got {band.span}')


def _known_band(name: str, by_name: dict[str, Band], where: tuple[str | int, ...]) -> Band:
    if name not in by_name:
        raise _Invalid(where, f'unknown band "{name}"' + did_you_mean(name, by_name, quoted=True))
    return by_name[name]


def _check_codes(per_file_ignores: dict[str, list[str]]) -> None:
    """Every code in `per_file_ignores` names a rule or a prefix of one: a typo would ignore nothing."""
    for glob, codes in per_file_ignores.items():
        for index, code in enumerate(codes):
            if not any(rule.startswith(code) for rule in CHECK_CODES):
                raise _Invalid(("per_file_ignores", glob, index), f"unknown rule {code}{did_you_mean(code, CHECK_CODES)}")


# The ephemeral floor


def _parse_floor_override(text: str) -> int | str:
    """The CLI's `--ephemeral-floor N|auto`."""
    value = text.strip()
    if value == "auto":
        return value
    if re.fullmatch(r"[0-9]+", value) and is_port(int(value)):
        return int(value)
    raise ConfigError("--ephemeral-floor", "", f'expected an integer {MIN_PORT}..{MAX_PORT} or "auto", got {json.dumps(text)}')


def _resolve_floor(value: int | str, proc_root: Path) -> tuple[int, str]:
    """The floor and, when "auto" could not read the host's range, a note saying so."""
    if value != "auto":
        return int(value), ""
    source = proc_root / PORT_RANGE_FILE
    try:
        text = source.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return STOCK_FLOOR, f"ephemeral_floor auto: {source} unreadable; using {STOCK_FLOOR}"
    first = text.split()[:1]
    if first and re.fullmatch(r"[0-9]+", first[0]) and is_port(int(first[0])):
        return int(first[0]), ""
    return STOCK_FLOOR, f"ephemeral_floor auto: {source} holds no port range ({text.strip()!r}); using {STOCK_FLOOR}"


# Messages


def _key_path(keys: tuple[str | int, ...]) -> str:
    """`("bands", "engine", "sites", 1, "role")` -> `bands.engine.sites[1].role`.

    A key that is not a bare word (`a.b`, `docs/**`) is quoted as TOML quotes it.
    """
    text = ""
    for key in keys:
        if isinstance(key, int):
            text += f"[{key}]"
        else:
            word = key if _BARE_KEY.fullmatch(key) else json.dumps(key, ensure_ascii=False)
            text += f".{word}" if text else word
    return text


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return str(value)
