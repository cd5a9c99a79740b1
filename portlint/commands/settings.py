"""`--show-settings` and `--show-files`: what a run would use, and where each setting came from.

Settings print as TOML lines (`key = value  # origin`), so any one of them can be
pasted back as `--config 'key = value'`. An origin is `default`, the config file's
`path:line`, or the `--config` override that set it (the last one wins, as in ruff).
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from portlint.config.build import DEFAULT_INCLUDE, STOCK_FLOOR, Config
from portlint.config.extend import read_chain
from portlint.config.locate import split_config_args
from portlint.config.overrides import merged, parse_override, touches
from portlint.config.schema import load_schema
from portlint.model.scope import DEFAULT_TEST_PATHS
from portlint.report import printable
from portlint.stages import discover

DEFAULTS: dict[str, Any] = {
    "ephemeral_floor": STOCK_FLOOR, "include": list(DEFAULT_INCLUDE), "exclude": [], "bands": {},
    "frozen": [], "per_file_ignores": {}, "test_paths": list(DEFAULT_TEST_PATHS),
}
_BARE = re.compile(r"[A-Za-z0-9_-]+")


def render(config: Config, config_args: tuple[str, ...], floor_flag: str | None = None) -> str:
    """The resolved settings, one TOML line each, with their origin."""
    _, overrides = split_config_args(config_args)
    changes = [(text, parse_override(text)) for text in overrides]
    data, keys_at, shown = _file_data(config)
    for _, change in changes:
        data = merged(data, change)
    where = "git work tree" if discover.in_git(config.root) else "not in a git work tree"
    lines = [f"# root: {config.root} ({where})", f"# config: {shown or 'none (zero-config)'}"]
    lines.append(f"# always excluded: {' '.join(discover.DEFAULT_EXCLUDE)}")

    def origin(keys: tuple[str, ...], line: int | None) -> str:
        for text, change in reversed(changes):
            if touches(change, keys):
                return f"--config {json.dumps(text)}"
        return f"{shown}:{line}" if line else "default"

    for key in _known_keys(data):
        if key == "bands" and data.get("bands"):
            bands = {band.name: band for band in config.bands}
            for name, spec in data["bands"].items():
                band = bands.get(name)
                line = band.line if band is not None and (name in keys_at.get("bands", {})) else None
                lines.append(f"bands.{_key(name)} = {_toml(spec)}  # {origin(('bands', name), line)}")
            continue
        value = data.get(key, DEFAULTS.get(key, _schema_default(key)))
        line = keys_at.get(key, {}).get("") if key in data and key in keys_at else None
        note = origin((key,), line)
        if key == "ephemeral_floor":
            if floor_flag is not None:
                note = "--ephemeral-floor"
            value = config.ephemeral_floor
            if config.floor_note:
                note += f" ({config.floor_note})"
            elif data.get(key) == "auto" or floor_flag == "auto":
                note += " (auto: this host's ephemeral range)"
        if value is None:
            lines.append(f"# {key}: not set  # default")
        else:
            lines.append(f"{key} = {_toml(value)}  # {note}")
    return "".join(printable(line) + "\n" for line in lines)  # a config's keys and values may carry anything


def files(config: Config, reported: tuple[str, ...]) -> str:
    """`KIND  PATH` for every file a check would read, relative to the working directory."""
    own = config.own_files()
    chosen = [
        c for c in discover.candidates(config.root, config.include, config.exclude)
        if c.path not in own and (not reported or any(c.path == p or c.path.startswith(p.rstrip("/") + "/") for p in reported))
    ]
    return "".join(  # a file's name may carry anything: escaped as the text report escapes it
        f"{c.kind:<8} {printable(Path(os.path.relpath(config.root / c.path)).as_posix())}\n" for c in chosen
    )


def _known_keys(data: dict[str, Any]) -> list[str]:
    """The schema's keys in its order (a key another module adds shows up by itself)."""
    schema = load_schema().get("properties", {})
    known = [key for key, spec in schema.items() if "x-alias-of" not in spec]  # ruff's spellings: read as portlint's
    return [*known, *(key for key in data if key not in schema)]


def _schema_default(key: str) -> Any:
    return load_schema().get("properties", {}).get(key, {}).get("x-default")


def _file_data(config: Config) -> tuple[dict[str, Any], dict[str, dict[str, int]], str]:
    """The config file's data, the line of each top-level key (and of each band), and its shown path."""
    if config.path is None:
        return {}, {}, ""
    document = read_chain(config.path, config.root).document  # with what it extends, ruff's spellings as portlint's
    data = document.data if isinstance(document.data, dict) else {}
    lines = {str(key[0]): pos[0] for key, pos in document.positions.items() if len(key) == 1}  # config/positions.py
    positions = {key: {"": line} for key, line in lines.items()}
    positions["bands"] = {**positions.get("bands", {}), **{
        str(key[1]): pos[0] for key, pos in document.positions.items() if len(key) == 2 and key[0] == "bands"
    }}
    return data, positions, _shown(config.path)


def _shown(path: Path) -> str:
    return Path(os.path.relpath(path)).as_posix()


def _key(name: str) -> str:
    return name if _BARE.fullmatch(name) else json.dumps(name, ensure_ascii=False)


def _toml(value: Any) -> str:
    """A value in TOML's inline syntax."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(str(k))} = {_toml(v)}" for k, v in value.items()) + "}"
    return json.dumps(str(value))
