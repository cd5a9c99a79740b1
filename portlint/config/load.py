"""`load_config`: the root (portlint/config/locate.py), the file read with the files it extends
(portlint/config/extend.py), `--config` overrides laid over it, the Config built.

When the result is invalid, the file is blamed (the inherited file that wrote the entry, for an
inherited one), or else the first override that makes it invalid.
"""
from __future__ import annotations

from pathlib import Path

from portlint.config.build import DEFAULT_INCLUDE, STOCK_FLOOR, Config, build, parse_floor_override, resolve_floor
from portlint.config.errors import ConfigError, Invalid, key_path, quoted
from portlint.config.extend import Chain, canonical, read_chain
from portlint.config.locate import absolute, root_of, shown
from portlint.config.overrides import merged, parse_override
from portlint.config.read import Document


def load_for(
    start: Path, config_args: tuple[str, ...], floor_override: str | None = None, cache_dir: Path | None = None,
) -> Config:
    """The config a check from `start` runs with: `--config` values split into a file (else the
    one found from `start`) and `KEY = VALUE` overrides, `--ephemeral-floor` and `--cache-dir`."""
    from portlint.config.locate import find_config, split_config_args

    explicit, overrides = split_config_args(config_args)
    return load_config(find_config(start, explicit), start, floor_override, overrides=overrides, cache_dir=cache_dir)


def load_config(
    path: Path | None,
    start: Path,
    floor_override: str | None = None,
    proc_root: Path = Path("/proc"),
    overrides: tuple[str, ...] = (),
    cache_dir: Path | None = None,
) -> Config:
    """The validated config of `path` (zero-config defaults when None), with `--config KEY=VALUE` overrides."""
    override = None if floor_override is None else parse_floor_override(floor_override)
    path = None if path is None else absolute(path)
    cache_dir = None if cache_dir is None else absolute(cache_dir)
    root = root_of(start, path)
    changes = [(text, canonical(parse_override(text))) for text in overrides]
    if path is None and not changes:
        floor, note = resolve_floor(override or STOCK_FLOOR, proc_root)
        return Config(None, root, floor, note, DEFAULT_INCLUDE, (), (), (), (), declared=False, cache_dir=cache_dir)
    chain = read_chain(path, root) if path is not None else Chain(Document({}, {}, ()), (), (), {})
    document = chain.document

    def built(data: object) -> Config:
        return build(path, document._replace(data=data), override, proc_root, root, chain.layers, chain.files[1:], cache_dir)

    data = document.data
    for _, change in changes:
        data = merged(data, change) if isinstance(data, dict) else data
    try:
        return built(data)
    except Invalid:
        pass
    # Blame the file (or the inherited file that wrote the entry), or else the first override
    # that makes the config invalid.
    data = document.data
    for text, change in [("", {}), *changes]:
        data = merged(data, change) if isinstance(data, dict) else data
        try:
            built(data)
        except Invalid as problem:
            if text:
                raise ConfigError(f"--config {quoted(text)}", key_path(problem.keys), problem.message) from None
            file, prefix = chain.origins.get(problem.keys[:2]) or chain.origins.get(problem.keys[:1]) or (path, document.prefix)
            keys = (*prefix, *problem.keys)
            raise ConfigError(shown(file) if file else "--config", key_path(keys), problem.message) from None
    raise AssertionError("unreachable: the merged config failed, so one step fails")  # pragma: no cover
