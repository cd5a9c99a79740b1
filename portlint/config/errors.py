"""Config errors and their wording: `{file}: {key.path}: {what was expected}`.

`Invalid` is raised inside the document (a key path, a message); the loader turns
it into a `ConfigError` (portlint/config/locate.py) naming the file or the `--config`
override to blame.
"""
from __future__ import annotations

import re
from typing import Any

from portlint.config.locate import ConfigError as ConfigError  # beside discovery, which raises it too

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


class Invalid(Exception):
    """A problem at a key path inside the document; load_config adds the file."""

    def __init__(self, keys: tuple[str | int, ...], message: str) -> None:
        super().__init__(keys, message)
        self.keys = keys
        self.message = message


def quoted(value: Any, ascii_only: bool = True) -> str:
    """`value` as JSON writes it, for a message: json is imported by the runs whose config or
    messages quote something (an import a zero-config check never pays for)."""
    import json

    return json.dumps(value, ensure_ascii=ascii_only)


def key_path(keys: tuple[str | int, ...]) -> str:
    """`("bands", "engine", "sites", 1, "role")` -> `bands.engine.sites[1].role`.

    A key that is not a bare word (`a.b`, `docs/**`) is quoted as TOML quotes it.
    """
    text = ""
    for key in keys:
        if isinstance(key, int):
            text += f"[{key}]"
        else:
            word = key if _BARE_KEY.fullmatch(key) else quoted(key, ascii_only=False)
            text += f".{word}" if text else word
    return text


def describe(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return quoted(value, ascii_only=False)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return str(value)
