"""Find, load and validate portlint's configuration (the README's Configuration section).

One module per step. Finding the file and the repository root is
portlint/locate.py's, outside this package: the warm path (portlint/runcache.py)
asks it without importing any of this. Then read.py parses YAML or TOML into plain data, with each entry's position
(positions.py); overrides.py lays `--config KEY = VALUE` settings over it;
schema.py validates it against schema.json and words what is wrong; build.py
checks what a schema cannot say (range order, band references) and builds the
`Config`; load.py runs them in that order. The first problem becomes a
`ConfigError` naming the file, the key path and what was expected.

usage.py is separate: what the config's entries matched in the repository
(PL003), gathered by the engine once per run.
"""
from __future__ import annotations

from portlint.config.build import DEFAULT_INCLUDE, STOCK_FLOOR, Config
from portlint.config.load import load_config, load_for
from portlint.locate import CONFIG_NAMES, ConfigError, find_config, split_config_args

__all__ = [
    "CONFIG_NAMES", "DEFAULT_INCLUDE", "STOCK_FLOOR", "Config", "ConfigError", "find_config", "load_config", "load_for",
    "split_config_args",
]
