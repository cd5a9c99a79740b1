"""`load_config`: the root (portlint/config/locate.py), the file read, `--config` overrides laid over it, the Config built.

When the result is invalid, the file is blamed, or else the first override that makes it invalid.
"""
from __future__ import annotations

from pathlib import Path

from portlint.config.build import DEFAULT_INCLUDE, STOCK_FLOOR, Config, build, parse_floor_override, resolve_floor
from portlint.config.errors import ConfigError, Invalid, key_path, quoted
from portlint.config.locate import absolute, root_of, shown
from portlint.config.overrides import merged, parse_override
from portlint.config.read import Document, read


def load_for(start: Path, config_args: tuple[str, ...], floor_override: str | None = None) -> Config:
    """The config a check from `start` runs with: `--config` values split into a file (else the
    one found from `start`) and `KEY = VALUE` overrides, and `--ephemeral-floor`."""
    from portlint.config.locate import find_config, split_config_args

    explicit, overrides = split_config_args(config_args)
    return load_config(find_config(start, explicit), start, floor_override, overrides=overrides)


def load_config(
    path: Path | None,
    start: Path,
    floor_override: str | None = None,
    proc_root: Path = Path("/proc"),
    overrides: tuple[str, ...] = (),
) -> Config:
    """The validated config of `path` (zero-config defaults when None), with `--config KEY=VALUE` overrides."""
    override = None if floor_override is None else parse_floor_override(floor_override)
    path = None if path is None else absolute(path)
    root = root_of(start, path)
    changes = [(text, parse_override(text)) for text in overrides]
    if path is None and not changes:
        floor, note = resolve_floor(override or STOCK_FLOOR, proc_root)
        return Config(None, root, floor, note, DEFAULT_INCLUDE, (), (), (), (), declared=False)
    document = read(path) if path is not None else Document({}, {}, ())
    data = document.data
    for _, change in changes:
        data = merged(data, change) if isinstance(data, dict) else data
    try:
        return build(path, document._replace(data=data), override, proc_root, root)
    except Invalid:
        pass
    # Blame the file, or else the first override that makes the config invalid.
    data = document.data
    for text, change in [("", {}), *changes]:
        data = merged(data, change) if isinstance(data, dict) else data
        try:
            build(path, document._replace(data=data), override, proc_root, root)
        except Invalid as problem:
            if text:
                raise ConfigError(f"--config {quoted(text)}", key_path(problem.keys), problem.message) from None
            keys = (*document.prefix, *problem.keys)
            raise ConfigError(shown(path) if path else "--config", key_path(keys), problem.message) from None
    raise AssertionError("unreachable: the merged config failed, so one step fails")  # pragma: no cover
