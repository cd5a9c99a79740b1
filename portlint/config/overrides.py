"""`--config 'KEY = VALUE'` settings: parsed as TOML and laid over the config file's data.

Telling a file from a setting is `split_config_args`' (portlint/config/locate.py), as ruff reads them.
"""
from __future__ import annotations

from typing import Any

from portlint.config.errors import ConfigError, quoted
from portlint.config.locate import tomllib
from portlint.config.read import TOML_POSITION


def parse_override(text: str) -> dict[str, Any]:
    """One `--config 'KEY = VALUE'`: a TOML document of a single (dotted) key."""
    toml = tomllib()
    try:
        parsed: dict[str, Any] = toml.loads(text)
    except toml.TOMLDecodeError as error:
        reason = TOML_POSITION.sub("", str(error))
        raise ConfigError(f"--config {quoted(text)}", "", f"expected a config file or a TOML KEY = VALUE setting: {reason}") from None
    if not parsed:
        raise ConfigError(f"--config {quoted(text)}", "", "expected a config file or a TOML KEY = VALUE setting")
    return parsed


def merged(base: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """`change` laid over `base`: tables merge key by key, anything else is replaced."""
    result = dict(base)
    for key, value in change.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merged(result[key], value)
        else:
            result[key] = value
    return result


def touches(change: dict[str, Any], keys: tuple[str | int, ...]) -> bool:
    """The override sets the key path `keys`, or something inside or above it."""
    value: Any = change
    for key in keys:
        if not isinstance(value, dict):
            return True  # the override replaced a value above this key
        if key not in value:
            return False
        value = value[key]
    return bool(keys)
