"""The `portlint` command: a check whose inputs are unchanged replays its last output
(portlint/runcache.py) before click or the engine is imported; the rest is the CLI's."""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    from portlint import runcache

    warm = runcache.prepare(args)
    if warm is not None:
        code = warm.replay()
        if code is not None:
            return code
    from portlint.cli import main as cli_main

    if warm is None:
        return cli_main(args)
    return warm.record(lambda: cli_main(args))
