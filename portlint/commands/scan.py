"""Scan without reporting: the layout and problems of a repository as `check` sees them, for `map` and `host`."""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from portlint.config.build import Config
from portlint.config.load import load_config
from portlint.config.locate import find_config, split_config_args
from portlint.engine import Options, session
from portlint.model.layout import Layout
from portlint.model.problems import Problem


class Scan(NamedTuple):
    config: Config
    layout: Layout
    problems: list[Problem]  # what `portlint check` reports on the whole repository
    notes: list[str]


def scan(start: Path, config_args: tuple[str, ...] = (), with_problems: bool = True) -> Scan:
    """Scan the repository of `start` once; the problems only when asked (host needs none).

    `config_args` are `--config` values: a config file and/or `KEY = VALUE` overrides."""
    explicit, overrides = split_config_args(config_args)
    config = load_config(find_config(start, explicit), start, overrides=overrides)
    current = session(config, Options())
    problems = current.check(current.files) if with_problems else []
    return Scan(config, current.layout(current.files), problems, current.notes)
